//! `qdot`: the kernel of `boundgate run qdot --input x=.. --input y=.. --param eps=..`.
//!
//! Rounds the inputs to the input precision, runs Algorithm 3.3 (selection,
//! then computation) and reports: the rigorous bound with respect to the
//! exact dot product of the inputs as given (representation error included),
//! the published Theorems 3.2-3.5 and the corrected Theorem 3.2 with respect
//! to the values read, and in `details` the bins, their scores and precisions.

use super::bounds::{QdotBounds, evaluate};
use super::compute::compute;
use super::config::{HalfMode, Ladder, QdotConfig, Score, TileLayout, Tolerance};
use super::select::{Selection, select};
use crate::error::{Error, Result};
use crate::kernels::baseline::{DOT_INPUTS, DotOperands, dot_run, published_check};
use crate::kernels::{
    BoundCheck, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params,
};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::directed::add_up;
use boundgate_verify::bounds::dot::representation_error_up;
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::require_finite;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle;
use serde_json::{Value, json};

/// The `qdot` kernel.
pub struct QdotKernel;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "eps",
        default: "1e-8",
        kind: ParamKind::Probability,
        help: "qdot tolerance eps, a relative error in (0, 1)",
    },
    ParamSpec {
        key: "input",
        default: "fp64",
        kind: ParamKind::Format,
        help: "precision of x and y (fp64, fp32, fp16 or bf16); inputs are rounded to it, bin results summed in it",
    },
    ParamSpec {
        key: "fexp",
        default: "ieee",
        kind: ParamKind::Choice(&["ieee", "paper"]),
        help: "exponent function: ieee = floor(log2|x|) (the paper's implementation), paper = eq. (1.1) (ceil for |x| < 1)",
    },
    ParamSpec {
        key: "binning",
        default: "factors",
        kind: ParamKind::Choice(&["factors", "product"]),
        help: "bin by: factors = fexp(x_i) + fexp(y_i) (Alg. 3.2, the paper's implementation), product = fexp(x_i y_i) (Def. 3.1, the bins of Thms 3.2-3.5)",
    },
    ParamSpec {
        key: "half",
        default: "fp16-fp32",
        kind: ParamKind::Choice(HalfMode::NAMES),
        help: "half bins: fp16-fp32 = exact fp16 products, fp32 accumulation (tensor cores); fp16 = pure fp16",
    },
    ParamSpec {
        key: "ladder",
        default: "paper",
        kind: ParamKind::Choice(Ladder::NAMES),
        help: "levels of (3.9): paper = half/single/double, bf16 = bfloat16 (fp32 accumulation) below half",
    },
    ParamSpec {
        key: "score",
        default: "eps-over-nbins",
        kind: ParamKind::Choice(Score::NAMES),
        help: "tolerance in the bin score (3.10): eps-over-nbins (the experiments, bound eps) or eps (as printed, bound N_bins eps)",
    },
    ParamSpec {
        key: "tile",
        default: "64",
        kind: ParamKind::Count,
        help: "indices per tile of the fixed order (0: one tile, i.e. sequential)",
    },
    ParamSpec {
        key: "layout",
        default: "contiguous",
        kind: ParamKind::Choice(TileLayout::NAMES),
        help: "which indices form a tile: contiguous (tile t = t*tile..) or interleaved (t, t+T, t+2T, ...: coalesced on a GPU)",
    },
    ParamSpec {
        key: "early_exit",
        default: "true",
        kind: ParamKind::Bool,
        help: "run the original kernel when Theorem 3.6 says every bin keeps the input precision",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "qdot",
    summary: "error-bounded quantized dot product (Diffenderfer et al. 2021, Alg. 3.3): exponent bins in half/single/double or perforated",
    inputs: DOT_INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Refused(
        "the exponent bins (eq. (1.1), Alg. 3.2) are not defined for NaN or infinity",
    ),
};

/// The configuration and tolerance given by the kernel parameters.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::kernel::config_from;
/// use boundgate::kernels::{Params, registry};
/// let k = registry::find("qdot").unwrap();
/// let p = Params::parse(k, &["eps=1e-4".into(), "fexp=paper".into()]).unwrap();
/// let (config, eps) = config_from(&p).unwrap();
/// assert_eq!(eps.value(), 1e-4);
/// assert_eq!(config.fexp.name(), "paper");
/// assert!(Params::parse(k, &["eps=1.5".into()]).is_err());
/// ```
pub fn config_from(params: &Params) -> Result<(QdotConfig, Tolerance)> {
    let eps = Tolerance::new(params.f64("eps")?)?;
    let mut config = QdotConfig::new(params.format("input")?)?;
    config.fexp = params
        .text("fexp")?
        .parse()
        .map_err(|e: VerifyError| Error::usage(e.to_string()))?;
    config.binning = params
        .text("binning")?
        .parse()
        .map_err(|e: VerifyError| Error::usage(e.to_string()))?;
    config.half = HalfMode::parse(params.text("half")?)?;
    config.ladder = Ladder::parse(params.text("ladder")?)?;
    config.score = Score::parse(params.text("score")?)?;
    config.tile = params.usize("tile")?;
    config.layout = TileLayout::parse(params.text("layout")?)?;
    config.early_exit = params.bool("early_exit")?;
    Ok((config, eps))
}

/// Reads and checks the inputs: finite, and finite once rounded to the input
/// precision (a value beyond its range is [`VerifyError::Overflow`]).
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::io::Tensor;
/// use boundgate::kernels::{Inputs, qdot::kernel::operands};
/// use boundgate_verify::{VerifyError, format::Format};
/// let mut inputs = Inputs::new();
/// inputs.insert("x".into(), Tensor::vector(vec![1.0, 0.1]));
/// inputs.insert("y".into(), Tensor::vector(vec![70000.0, 2.0]));
/// let ops = operands(&inputs, Format::FP32).unwrap();
/// assert_eq!(ops.x_stored, [1.0, f64::from(0.1f32)]); // rounded to nearest binary32
/// // 70000 rounds to +inf in fp16 (largest finite 65504): refused, naming the value.
/// let err = operands(&inputs, Format::FP16).unwrap_err();
/// assert!(matches!(err, Error::Verify(VerifyError::Overflow { value, .. }) if value == 70000.0));
/// ```
pub fn operands(inputs: &Inputs, input: Format) -> Result<DotOperands> {
    let ops = DotOperands::from_inputs(inputs, input)?;
    require_finite("x", &ops.x)?;
    require_finite("y", &ops.y)?;
    for (given, stored) in [(&ops.x, &ops.x_stored), (&ops.y, &ops.y_stored)] {
        if let Some(i) = stored.iter().position(|v| !v.is_finite()) {
            return Err(VerifyError::Overflow {
                format: input.name().to_string(),
                value: given[i],
                max: input.max_finite(),
            }
            .into());
        }
    }
    Ok(ops)
}

impl Kernel for QdotKernel {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let (config, eps) = config_from(params)?;
        let ops = operands(inputs, config.input)?;
        let selection = select(&ops.x_stored, &ops.y_stored, eps, &config)?;
        let computed = compute(&ops.x_stored, &ops.y_stored, &selection, &config)?;
        let exact = oracle::dot(&ops.x_stored, &ops.y_stored)?;
        let bounds = evaluate(
            &ops.x_stored,
            &ops.y_stored,
            &selection,
            &config,
            eps,
            &exact,
        )?;
        let rigorous = rigorous_as_given(&ops, &bounds);
        let mut others: Vec<BoundCheck> = bounds
            .published()
            .into_iter()
            .map(|(label, b)| published_check(label, b.clone()))
            .collect();
        others.push(published_check(
            "rigorous a priori: qdot Thm 3.2 corrected",
            bounds.corrected_3_2.clone(),
        ));
        let details = details(&config, eps, &selection, &bounds, ops.x.len());
        dot_run(&ops, computed.value, rigorous, others, details)
    }
}

/// The rigorous bound with respect to the inputs as given: the checker's
/// rigorous bound on the values read, plus the representation error of
/// rounding the inputs to the input precision where that changed them.
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::DotOperands;
/// use boundgate::kernels::qdot::{bounds::evaluate, config::*, kernel::rigorous_as_given, select::select};
/// use boundgate_verify::{format::Format, oracle};
/// let (c, eps) = (QdotConfig::new(Format::FP32).unwrap(), Tolerance::new(1e-6).unwrap());
/// // 0.1 is not a binary32 value: x_stored[0] = fl32(0.1).
/// let ops = DotOperands::new(vec![0.1, 1.0], vec![1.0, 1.0], Format::FP32).unwrap();
/// let (xs, ys) = (&ops.x_stored, &ops.y_stored);
/// let s = select(xs, ys, eps, &c).unwrap();
/// let b = evaluate(xs, ys, &s, &c, eps, &oracle::dot(xs, ys).unwrap()).unwrap();
/// let on_stored = b.rigorous.as_ref().unwrap().value;
/// let given = rigorous_as_given(&ops, &b).unwrap().values()[0];
/// // The representation error |0.1 - fl32(0.1)| (exact by Sterbenz) is added.
/// assert!(given >= on_stored + (0.1 - xs[0]).abs());
/// ```
pub fn rigorous_as_given(
    ops: &DotOperands,
    bounds: &QdotBounds,
) -> std::result::Result<ElementBounds, VerifyError> {
    let mut bound = bounds.rigorous.clone()?;
    if !ops.stored_exactly() {
        let r = representation_error_up(ops.storage, RoundingMode::NearestEven, &ops.x, &ops.y)?;
        bound.value = add_up(bound.value, r);
        bound = bound.with_hypothesis(
            "inputs rounded to the input precision (nearest even)",
            format!("representation error <= {r:e} added"),
        );
    }
    Ok(ElementBounds::uniform(bound, 1))
}

/// The JSON details of a run: configuration, selection, bins and bounds.
///
/// Never panics: a selection inconsistent with `config` or `n` (hand-built)
/// has its unknown precision levels named `"unknown"` and, after an early
/// exit, `n - zeros` floored at 0.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::{bounds::evaluate, config::*, kernel::details, select::select};
/// use boundgate_verify::{format::Format, oracle};
/// let mut c = QdotConfig::new(Format::FP64).unwrap();
/// c.score = Score::Eps;
/// let eps = Tolerance::new(2f64.powi(-20)).unwrap();
/// // As in `select`'s example: one perforated bin, two single bins, one zero product.
/// let (x, y) = ([1.0, 2f64.powi(-10), 2f64.powi(-40), 0.0], [1.0, 1.0, 1.0, 3.0]);
/// let s = select(&x, &y, eps, &c).unwrap();
/// let b = evaluate(&x, &y, &s, &c, eps, &oracle::dot(&x, &y).unwrap()).unwrap();
/// let d = details(&c, eps, &s, &b, x.len());
/// assert_eq!((d["n"].as_u64(), d["zero_products"].as_u64(), d["n_bins"].as_u64()), (Some(4), Some(1), Some(3)));
/// assert_eq!(d["elements_per_precision"], serde_json::json!({ "perforate": 1, "single": 2 }));
/// assert_eq!(d["bins"][0]["precision"], "perforate");
/// ```
pub fn details(
    config: &QdotConfig,
    eps: Tolerance,
    selection: &Selection,
    bounds: &QdotBounds,
    n: usize,
) -> Value {
    let levels = config.levels();
    // A hand-built selection (public fields) may name a level the
    // configuration lacks or count more zeros than `n`: reported as
    // "unknown" and 0, not a panic.
    let name = |level: Option<usize>| {
        level.map_or("perforate", |l| levels.get(l).map_or("unknown", |v| v.name))
    };
    let mut per_precision = serde_json::Map::new();
    if selection.early_exit {
        per_precision.insert(
            config.input_level().name.into(),
            json!(n.saturating_sub(selection.zeros)),
        );
    }
    for b in &selection.bins {
        let entry = per_precision.entry(name(b.level)).or_insert(json!(0));
        *entry = json!(entry.as_u64().unwrap_or(0) + b.count as u64);
    }
    let bound_json = |b: &std::result::Result<boundgate_verify::bounds::Bound, VerifyError>| match b
    {
        Ok(b) => json!({ "value": b.value, "rigor": b.rigor, "source": b.source.to_string() }),
        Err(e) => json!({ "no_value": e.to_string() }),
    };
    let mut published: Vec<Value> = bounds
        .published()
        .into_iter()
        .map(|(label, b)| json!({ "label": label, "bound": bound_json(b) }))
        .collect();
    published.push(json!({ "label": "rigorous a priori: qdot Thm 3.2 corrected", "bound": bound_json(&bounds.corrected_3_2) }));
    json!({
        "algorithm": "qdot, Algorithm 3.3 (selection 3.2 with exact binning, then computation 3.1)",
        "eps": eps.value(),
        "input": config.input.name(),
        "fexp": config.fexp.name(),
        "binning": config.binning.name(),
        "half": config.half.name(),
        "ladder": config.ladder.name(),
        "score": config.score.name(),
        "tile": config.tile,
        "layout": config.layout.name(),
        "n": n,
        "zero_products": selection.zeros,
        "e_min": selection.e_min,
        "e_max": selection.e_max,
        "early_exit": selection.early_exit,
        // The checker's exponent bins; after an early exit the kernel scores
        // none, so the score's tolerance and divisor are null (they read 1
        // and eps's floor before; review, 2026-11-26).
        "n_bins": bounds.bins.n_bins(),
        "floor_log2_eps": selection.floor_log2_eps,
        "floor_log2_score_tolerance": (!selection.early_exit).then_some(selection.floor_log2_score),
        "score_divisor": (!selection.early_exit).then_some(selection.score_divisor),
        "fexp_of_exact_dot": bounds.dot_fexp,
        "bins": selection.bins.iter().map(|b| json!({
            "exponent": b.exponent,
            "count": b.count,
            "score": b.score,
            "precision": name(b.level),
        })).collect::<Vec<_>>(),
        "elements_per_precision": per_precision,
        "bounds": published,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_of_an_inconsistent_selection_do_not_panic() {
        let eps = Tolerance::new(1e-8).unwrap();
        let (x, y) = ([1.0, 0.5, 0.0], [1.0, 1.0, 2.0]);
        // early exit: n - zeros, with more zeros than n
        let c = QdotConfig::new(Format::FP64).unwrap();
        let mut s = select(&x, &y, eps, &c).unwrap();
        assert!(s.early_exit);
        let b = evaluate(&x, &y, &s, &c, eps, &oracle::dot(&x, &y).unwrap()).unwrap();
        s.zeros = 10;
        let d = details(&c, eps, &s, &b, x.len());
        assert_eq!(d["elements_per_precision"]["double"], 0);
        // a level the configuration lacks
        let mut c = c;
        c.early_exit = false;
        let mut s = select(&x, &y, eps, &c).unwrap();
        let b = evaluate(&x, &y, &s, &c, eps, &oracle::dot(&x, &y).unwrap()).unwrap();
        s.bins[0].level = Some(99);
        let d = details(&c, eps, &s, &b, x.len());
        assert_eq!(d["bins"][0]["precision"], "unknown");
    }
}
