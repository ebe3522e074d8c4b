//! `residual-gemm`: the CPU model of Gu's Algorithm 1 (and its two baselines)
//! through the `run` contract, with its rigorous per-element bound and the
//! paper's published estimates beside it.

use super::method::{Method, Output, Prepared, Reduction, relative_frobenius};
use super::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
use super::reduce::ReduceRule;
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{
    BoundCheck, InputSpec, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params,
    Reference, Shape, input,
};
use boundgate_verify::bounds::residual::{
    Prepared as BoundParts, eq8_first_order, int32_max_k, threshold_claim,
};
use boundgate_verify::oracle::{ErrorMeasure, ExactOp, Gemm, Matrix, Transpose};
use serde_json::json;

/// `residual-gemm`.
pub struct ResidualGemm;

const INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "a",
        shape: Shape::Matrix,
        help: "left matrix A (m x k)",
    },
    InputSpec {
        name: "b",
        shape: Shape::Matrix,
        help: "right matrix B (k x n)",
    },
];

/// The thresholds `M` the parameter accepts (the paper's 0.2..1 and the worked
/// example's 0.3; the library API takes any finite positive value).
pub const THRESHOLDS: &[&str] = &[
    "0.05", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1", "2", "5",
];
/// The densities `eta` the parameter accepts (Gu §4.1 C: about 0.001 on the
/// A100, 0.3 on the Xeon; 0 never takes the sparse path, 1 always does unless
/// nothing is dropped).
pub const ETAS: &[&str] = &["0", "0.0001", "0.001", "0.01", "0.1", "0.3", "0.5", "1"];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "method",
        default: "sparse",
        kind: ParamKind::Choice(&["sparse", "full", "direct"]),
        help: "sparse: Gu's Algorithm 1; full: A'B' + A'RB + RA B' (eq. (7) less its last term); direct: eq. (4)",
    },
    ParamSpec {
        key: "bits",
        default: "8",
        kind: ParamKind::Choice(&["8", "4"]),
        help: "integer width: int8 ([-127, 127]) or int4 ([-7, 7]), int32 accumulation",
    },
    ParamSpec {
        key: "scaling",
        default: "vector",
        kind: ParamKind::Choice(&["vector", "tensor"]),
        help: "vector: a scale per row of A and per column of B (Gu §3.2); tensor: one per matrix",
    },
    ParamSpec {
        key: "scale",
        default: "absmax",
        kind: ParamKind::Choice(&["absmax", "half", "eq2"]),
        help: "lambda = (2^(N-1)-1)/max (absmax), 2^(N-2)/max (half: the worked example), (2^N-1)/max (eq2: eq. (2) as printed, saturating)",
    },
    ParamSpec {
        key: "rounding",
        default: "nearest",
        kind: ParamKind::Choice(&["nearest", "floor", "trunc"]),
        help: "lambda x to an integer: nearest (ties to even), floor (eq. (9)), trunc (toward zero, the worked example)",
    },
    ParamSpec {
        key: "threshold",
        default: "0.5",
        kind: ParamKind::Choice(THRESHOLDS),
        help: "Gu's M: with reduce=mean keep a_ik != 0 with |a_ik| >= 2 M mean_nnz|A|, the mean over the nonzero entries (b_kj likewise)",
    },
    ParamSpec {
        key: "reduce",
        default: "mean",
        kind: ParamKind::Choice(&["mean", "rows", "signed"]),
        help: "mean: |x| >= 2M mean_nnz|X| (the authors' code, default); rows: |a_ik| > M mean_j |D_F_ij| (eq. (14)); signed: a_ik > M mean_j |D_F_ij| (the worked example)",
    },
    ParamSpec {
        key: "eta",
        default: "0.3",
        kind: ParamKind::Choice(ETAS),
        help: "density below which a reduced product is a CSR SpMM (per product); else the full residual's dense product",
    },
    ParamSpec {
        key: "format",
        default: "fp32",
        kind: ParamKind::Choice(&["fp32", "fp64"]),
        help: "working format of the scales, residuals, dequantization and additions (round to nearest even)",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "residual-gemm",
    summary: "A B by int8/int4 quantization with (sparse) residual compensation, Gu's Algorithm 1",
    inputs: INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Refused(
        "the absmax quantization scales are not defined for NaN or infinity",
    ),
};

/// The configuration a parameter set describes.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// Method.
    pub method: Method,
    /// Quantizer.
    pub quantizer: Quantizer,
    /// Scale granularity.
    pub granularity: Granularity,
    /// Reduction (sparse method).
    pub reduction: Reduction,
}

impl RunConfig {
    /// Reads the kernel's parameters.
    ///
    /// # Errors
    /// [`Error::Usage`] naming a parameter whose value is not understood.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::kernel::RunConfig;
    /// use boundgate::kernels::residual::method::Method;
    /// use boundgate::kernels::residual::quant::{Bits, Granularity, Rounding, Working};
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("residual-gemm").unwrap();
    /// let p = Params::parse(k, &["bits=4".into(), "rounding=trunc".into(), "format=fp64".into()]).unwrap();
    /// let cfg = RunConfig::from_params(&p).unwrap();
    /// assert_eq!((cfg.quantizer.bits, cfg.quantizer.rounding, cfg.quantizer.working), (Bits::Int4, Rounding::TowardZero, Working::Fp64));
    /// // the defaults: Algorithm 1, vector-wise, M = 0.5 with the code's rule, eta = 0.3
    /// assert_eq!((cfg.method, cfg.granularity), (Method::Sparse, Granularity::Vector));
    /// assert_eq!((cfg.reduction.threshold, cfg.reduction.rule, cfg.reduction.eta), (0.5, ReduceRule::Mean, 0.3));
    /// assert!(Params::parse(k, &["bits=16".into()]).is_err());
    /// ```
    pub fn from_params(p: &Params) -> Result<RunConfig> {
        let bad =
            |key: &str, v: &str| Error::usage(format!("parameter {key}={v} is not understood"));
        let text = |key: &str| p.text(key);
        let method = Method::by_name(text("method")?).ok_or_else(|| bad("method", "?"))?;
        let bits = text("bits")?
            .parse()
            .ok()
            .and_then(Bits::from_bits)
            .ok_or_else(|| bad("bits", "?"))?;
        let granularity = match text("scaling")? {
            "vector" => Granularity::Vector,
            "tensor" => Granularity::Tensor,
            other => return Err(bad("scaling", other)),
        };
        let scale = ScaleRule::by_name(text("scale")?).ok_or_else(|| bad("scale", "?"))?;
        let rounding = Rounding::by_name(text("rounding")?).ok_or_else(|| bad("rounding", "?"))?;
        let rule = ReduceRule::by_name(text("reduce")?).ok_or_else(|| bad("reduce", "?"))?;
        let working = match text("format")? {
            "fp32" => Working::Fp32,
            "fp64" => Working::Fp64,
            other => return Err(bad("format", other)),
        };
        let reduction = Reduction {
            threshold: p.f64("threshold")?,
            rule,
            eta: p.f64("eta")?,
        };
        reduction.validate()?;
        Ok(RunConfig {
            method,
            quantizer: Quantizer {
                bits,
                scale,
                rounding,
                working,
            },
            granularity,
            reduction,
        })
    }
}

impl Kernel for ResidualGemm {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let cfg = RunConfig::from_params(params)?;
        let a = input(inputs, &INPUTS[0])?;
        let b = input(inputs, &INPUTS[1])?;
        let (m, k) = a.dims2().expect("input() checked the shape");
        let (kb, n) = b.dims2().expect("input() checked the shape");
        boundgate_verify::error::require_same_len("columns of a and rows of b", k, kb)?;
        let prepared = Prepared::new(a.data(), b.data(), m, k, n, cfg.quantizer, cfg.granularity)?;
        let out = prepared.run(cfg.method, cfg.reduction)?;
        assemble(&prepared, &out, &cfg)
    }
}

/// Measures a computed output with the exact oracle and evaluates the bounds.
///
/// # Errors
/// Oracle errors (shapes) only; bounds without a value are verdicts.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::kernel::{RunConfig, assemble};
/// use boundgate::kernels::residual::method::Prepared;
/// use boundgate::kernels::{Params, registry};
/// use boundgate_verify::check::Outcome;
/// let k = registry::find("residual-gemm").unwrap();
/// let cfg = RunConfig::from_params(&Params::defaults(k)).unwrap();
/// let (a, b) = ([0.3, -1.7, 2.2, 0.9], [1.1, 0.4, -0.6, 2.5]);
/// let p = Prepared::new(&a, &b, 2, 2, 2, cfg.quantizer, cfg.granularity).unwrap();
/// let out = p.run(cfg.method, cfg.reduction).unwrap();
/// let run = assemble(&p, &out, &cfg).unwrap();
/// assert_eq!(run.output.data(), &out.d[..]);
/// let verdicts = run.verdicts().unwrap();
/// assert_eq!(verdicts[0].label, "rigorous");
/// assert!(matches!(verdicts[0].verdict.outcome, Outcome::Pass));
/// // element by element, the exact error is within the rigorous bound
/// for (e, b) in run.errors_as_given.iter().zip(run.rigorous_values()) {
///     assert!(e.absolute_up().unwrap() <= b);
/// }
/// ```
pub fn assemble(prepared: &Prepared, out: &Output, cfg: &RunConfig) -> Result<KernelRun> {
    let (m, k, n) = (prepared.m, prepared.k, prepared.n);
    let exact_errors = |a: &[f64], b: &[f64]| -> Result<Vec<ErrorMeasure>> {
        let op = Gemm::new(
            1.0,
            Matrix::new(m, k, a)?,
            Transpose::No,
            Matrix::new(k, n, b)?,
            Transpose::No,
            0.0,
            None,
        )?;
        Ok(op.errors(&out.d)?)
    };
    let errors_as_given = exact_errors(&prepared.a, &prepared.b)?;
    let errors_as_stored = if prepared.stored_exactly() {
        errors_as_given.clone()
    } else {
        exact_errors(&prepared.a_stored, &prepared.b_stored)?
    };
    let exact_stored: Vec<f64> = errors_as_stored.iter().map(ErrorMeasure::exact).collect();
    let ops = prepared.operands()?;
    let rigorous = BoundParts::new(&ops).and_then(|p| p.rigorous(&out.keep_a, &out.keep_b));
    let mut others = vec![BoundCheck {
        label: "published: Gu eq. (8) with eq. (12), first order".into(),
        reference: Reference::AsStored,
        bounds: eq8_first_order(&ops, &out.keep_a, &out.keep_b),
    }];
    if cfg.method == Method::Sparse {
        others.push(BoundCheck {
            label: "published: Gu §3.1 threshold claim, relative error <= 2M".into(),
            reference: Reference::AsStored,
            bounds: threshold_claim(cfg.reduction.threshold, &exact_stored),
        });
    }
    let q = cfg.quantizer;
    let details = json!({
        "method": cfg.method,
        "path": out.path,
        "bits": q.bits.bits(),
        "scaling": cfg.granularity,
        "scale": q.scale.name(),
        "rounding": q.rounding.name(),
        "format": q.working.name(),
        "threshold": cfg.reduction.threshold,
        "reduce": cfg.reduction.rule.name(),
        "eta": cfg.reduction.eta,
        "m": m, "k": k, "n": n,
        "density_a": out.density_a,
        "density_b": out.density_b,
        "kept_a": out.keep_a.iter().filter(|&&x| x).count(),
        "kept_b": out.keep_b.iter().filter(|&&x| x).count(),
        "saturated": {
            "a": prepared.aq.saturated, "b": prepared.bq.saturated,
            "ra": prepared.raq.saturated, "rb": prepared.rbq.saturated,
        },
        "int32_max_k": int32_max_k(q.bits.qmax() as u32, q.bits.qmax() as u32),
        "e_delta_as_stored": relative_frobenius(&out.d, &exact_stored),
    });
    Ok(KernelRun {
        output: Tensor::matrix(m, n, out.d.clone())?,
        rigorous: BoundCheck::rigorous(rigorous),
        others,
        errors_as_given,
        errors_as_stored,
        details,
    })
}
