//! Experiment `mpfma-fig6`: Bhola and Duraisamy, §4.2, Fig. 6.
//!
//! `D = A B` with `A` m x n, `B` n x t, entries `U(-1, 1)`, stored in fp16,
//! fp32 accumulation on tensor cores: the paper ran cuBLAS `GemmEx` on an
//! H100 (m = 2^10, inner dimension 2^15, t = 2^3; Listing 1 passes an fp16 `C`,
//! so the fp32 result is converted to fp16). Here the CPU model with the sm90
//! record runs instead (no GPU): the per-element forward error
//! `|D^ - D| / |D|` (componentwise, against the exact product of the fp16
//! data, which is what the paper's fp64 reference computes), and per element
//! the DBEA bound (Theorem 3.7), the VIBEA bound (Theorem 3.9, lambda chosen
//! so that the whole-matrix probability, with its union over m t elements,
//! reaches the target; both pairings), and two rigorous bounds of the block
//! FMA: a priori and a posteriori. The paper (§4.2): maximum error O(1e-2),
//! DBEA O(1e2), VIBEA O(1e1), overestimates of about 1e4 and 1e3; its
//! conclusion says "nearly O(1e5)" for both.
//!
//! Default size m = 2^6, n = 2^12, t = 2^3; the paper's full size with
//! `BOUNDGATE_HEAVY=1` (or `heavy = false` to keep the default there too).
//!
//! `backend = "gpu"` (feature `cuda`, a device) runs the paper's own call
//! instead, cuBLAS `GemmEx` ([`super::gpu::cublas_gemm_ex`]), with the
//! device's record (`arch` is then the device's), and reports how many
//! elements equal the block-FMA model bit for bit. The chained a-priori and
//! a-posteriori bounds assume the model's order, which cuBLAS does not
//! document: they are checked as rigorous bounds at the elements equal to the
//! model. Elsewhere the rigorous bound is the any-order one
//! ([`any_order_bound`]: any split-K and reduction), a violation of it
//! counts, and any excess over the chained a-priori bound is reported apart.
//! `reduction = "compute-type"` makes the call with
//! `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION` and holds those
//! elements to the any-order bound without fp16 reductions plus the final
//! conversion: with an fp16 `C` at the paper's size the reducing bound of
//! the default (`library`, Listing 1's call) fails its no-overflow hypothesis,
//! and the elements that differ from the model go unjudged (739 of 8192 on
//! an H100, 2026-11-26: docs/gpu/2026-11-26-h100.md).

use super::common::transpose;
use super::gemm::{GemmConfig, GemmOperands, any_order_bound, fp16_conversion_error_up, run_model};
use super::gpu::VendorReduction;
use super::record::{Arch, TcInput, TcOutput, TcRecord};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, elements_within, non_empty,
    product_within,
};
use crate::error::{Error, Result};
use crate::generate::Distribution;
use crate::plot::{Chart, Series, ecdf};
use boundgate_verify::bounds::directed::add_up;
use boundgate_verify::bounds::tc::{
    GammaTilde, GemmShape, ThmConstant, block_fma_a_priori, thm_3_7_constant, thm_3_9, vibea_lambda,
};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::{self, ErrorMeasure, Matrix};
use serde_json::json;

/// The `mpfma-fig6` experiment.
pub struct Fig6;

/// The most terms of the exact product, `m x inner x t`: 2^32, 16 times the
/// paper's full size (2^10 x 2^15 x 2^3). The exact oracle and the a-priori
/// bound each visit every term; dimensions of 2^14 each, within the element
/// limit pairwise, would have been 2^42 of them.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::mpfma::fig6::MAX_TERMS_LOG2, 32);
/// ```
pub const MAX_TERMS_LOG2: u32 = 32;

struct Config {
    m: usize,
    inner: usize,
    t: usize,
    arch: Arch,
    outputs: Vec<String>,
    probability: f64,
    /// Run cuBLAS GemmEx on the device instead of the model.
    gpu: bool,
    /// Where cuBLAS may reduce split-K partials (device only).
    reduction: VendorReduction,
}

fn config(p: &Params, heavy: bool) -> std::result::Result<Config, String> {
    p.only(&[
        "m",
        "inner",
        "t",
        "heavy",
        "arch",
        "outputs",
        "probability",
        "backend",
        "reduction",
    ])?;
    let full = heavy && p.bool_or("heavy", true)?;
    let (m, inner, t) = if full {
        (1 << 10, 1 << 15, 1 << 3)
    } else {
        (
            p.usize_or("m", 1 << 6)?,
            p.usize_or("inner", 1 << 12)?,
            p.usize_or("t", 1 << 3)?,
        )
    };
    for (key, d) in [("m", m), ("inner", inner), ("t", t)] {
        if d == 0 {
            return Err(format!("params.{key}: every dimension must be at least 1"));
        }
    }
    // A (m x inner), B (inner x t) and the m x t results and bounds.
    elements_within("inner", &[m, inner])?;
    elements_within("inner", &[inner, t])?;
    elements_within("t", &[m, t])?;
    product_within("inner", &[m, inner, t], MAX_TERMS_LOG2, "exact products")?;
    let arch: Arch = p
        .str_or("arch", "sm90")?
        .parse()
        .map_err(|e: Error| format!("params.arch: {e}"))?;
    let outputs = non_empty("outputs", p.str_list_or("outputs", &["fp32-fp16", "fp32"])?)?;
    if let Some(o) = outputs
        .iter()
        .find(|o| !["fp32", "fp32-fp16"].contains(&o.as_str()))
    {
        return Err(format!("params.outputs: `{o}` is not fp32 or fp32-fp16"));
    }
    let probability = p.f64_or("probability", 0.99)?;
    if !(probability > 0.0 && probability < 1.0) {
        return Err("params.probability: expected a probability in (0, 1)".into());
    }
    let gpu = match p.str_or("backend", "model")? {
        "model" => false,
        "gpu" => true,
        other => return Err(format!("params.backend: `{other}` is not model or gpu")),
    };
    let reduction: VendorReduction = p
        .str_or("reduction", "library")?
        .parse()
        .map_err(|e: Error| format!("params.reduction: {e}"))?;
    if !gpu && reduction != VendorReduction::Library {
        return Err(format!(
            "params.reduction: `{}` is for backend = gpu (cuBLAS's reduction); the model reduces nothing",
            reduction.name()
        ));
    }
    Ok(Config {
        m,
        inner,
        t,
        arch,
        outputs,
        probability,
        gpu,
        reduction,
    })
}

/// The rigorous bound of a device element whose result is not the model's:
/// `any_order` is the any-order bound of the accumulation, computed with fp16
/// reductions allowed where cuBLAS may use them (an fp16 `C` under the
/// library's reduction: that bound counts the final conversion among its
/// roundings). With reductions in the compute type and an fp16 `C` the final
/// conversion is added here, `u16 (S + b) + eta16` (`magnitude` = `S`, the
/// sum of `|a_k b_k|`, bounds `|D|`, and `|D32| <= S + b`); with an fp32 `C`
/// there is no conversion. `None` (the bound's hypothesis failed) stays
/// `None`.
fn device_element_bound(
    any_order: Option<f64>,
    fp16_output: bool,
    reduction: VendorReduction,
    magnitude: f64,
) -> Option<f64> {
    let b = any_order?;
    Some(
        if fp16_output && reduction == VendorReduction::ComputeType {
            with_fp16_conversion(b, magnitude)
        } else {
            b
        },
    )
}

/// A bound `b` on an fp32 result whose exact value is at most `magnitude`,
/// after its conversion to fp16 (nearest even): `b + u16 (magnitude + b) +
/// eta16`, rounded up.
fn with_fp16_conversion(b: f64, magnitude: f64) -> f64 {
    add_up(b, fp16_conversion_error_up(add_up(magnitude, b)))
}

fn max_and_median(values: &[f64]) -> (f64, f64) {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    (v[v.len() - 1], v[v.len() / 2])
}

impl Experiment for Fig6 {
    fn name(&self) -> &'static str {
        "mpfma-fig6"
    }
    fn summary(&self) -> &'static str {
        "Bhola-Duraisamy Fig. 6: tensor-core GEMM (sm90 model, fp16 in, fp32 compute) against DBEA, VIBEA and rigorous bounds"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params, false).and(config(params, true)).map(|_| ())
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Runs the first seed only (seeds.count does not matter to it).
        Ok(0)
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let mut cfg = config(params, ctx.heavy).map_err(Error::usage)?;
        if cfg.gpu {
            // The device's own record: the model it is compared with.
            cfg.arch = super::gpu::device_arch()?;
        }
        let (m, k, t) = (cfg.m, cfg.inner, cfg.t);
        let dist = Distribution::Uniform {
            low: -1.0,
            high: 1.0,
        };
        let seed = ctx.seeds.first;
        let a = dist.sample(seed, 0, m * k).map_err(Error::usage)?;
        let b = dist.sample(seed, 1, k * t).map_err(Error::usage)?;
        let record = TcRecord::lookup(cfg.arch, TcInput::Fp16, TcOutput::Fp32)?;
        let ops = GemmOperands::new(&record, a, (m, k), b, (k, t))?;
        let bt = transpose(&ops.b_read, k, t);
        let s: Vec<f64> = (0..m * t)
            .map(|e| {
                let (i, j) = (e / t, e % t);
                oracle::abs_dot_up(&ops.a_read[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k])
            })
            .collect::<boundgate_verify::Result<_>>()?;
        let a_read = Matrix::new(m, k, &ops.a_read)?;
        let b_read = Matrix::new(k, t, &ops.b_read)?;
        let exact: Vec<f64> = oracle::gemm(&a_read, &b_read)?
            .iter()
            .map(|x| x.to_f64())
            .collect();
        // The paper's theorems with Table 2's first row.
        let base = GemmConfig {
            record,
            alg1: false,
            fp16_epilogue: false,
        };
        let r = base.roundoffs();
        let per_element = GemmShape::new(1, k as u64, record.block as u64)?;
        let whole = GemmShape::new((m * t) as u64, k as u64, record.block as u64)?;
        let zeta = thm_3_7_constant(&r, &per_element)?;
        ctx.progress.set_message("mpfma-fig6: lambda");
        // Each pairing at the lambda its own whole-matrix probability needs:
        // the printed expression for the authors' constant, the proven one
        // (`paired_probability`) for ours.
        let authors = ThmConstant::Tilde(GammaTilde::AuthorsCentred);
        let paired = ThmConstant::Tilde(GammaTilde::Paired);
        let lambda = vibea_lambda(&r, &whole, cfg.probability, authors)?;
        let whole_p = authors.probability(&r, &whole, lambda)?;
        let lambda_paired = vibea_lambda(&r, &whole, cfg.probability, paired)?;
        let whole_p_paired = paired.probability(&r, &whole, lambda_paired)?;
        let vibea_authors = thm_3_9(&r, &per_element, lambda, authors, 1.0)?.value;
        let vibea_paired = thm_3_9(&r, &per_element, lambda_paired, paired, 1.0)?.value;
        let spec = record.spec();
        ctx.progress.set_message("mpfma-fig6: a-priori bounds");
        let a_priori: Vec<f64> = (0..m * t)
            .map(|e| {
                let (i, j) = (e / t, e % t);
                block_fma_a_priori(
                    &spec,
                    &ops.a_read[i * k..(i + 1) * k],
                    &bt[j * k..(j + 1) * k],
                )
                .map(|b| b.value)
            })
            .collect::<boundgate_verify::Result<_>>()?;
        // The device's order is cuBLAS's: where its result is not the
        // model's, it is held to the any-order bound (with fp16 C, the one
        // that lets the reduction round to fp16 too).
        // An element whose any-order bound fails its no-overflow hypothesis
        // has none (`None`; the reducing bound's does at the paper's size:
        // collected with `?`, one such element aborted the experiment before
        // cuBLAS ran; review, 2026-11-26); other errors propagate.
        let any_order_for = |fp16_output: bool| -> Result<Vec<Option<f64>>> {
            Ok((0..m * t)
                .map(|e| {
                    let (i, j) = (e / t, e % t);
                    let (x, y) = (&ops.a_read[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k]);
                    match any_order_bound(&spec, fp16_output, x, y) {
                        Ok(b) => Ok(Some(b.value)),
                        Err(boundgate_verify::VerifyError::HypothesisNotMet { .. }) => Ok(None),
                        Err(other) => Err(other),
                    }
                })
                .collect::<boundgate_verify::Result<_>>()?)
        };
        let mut report = ExperimentReport::new(
            self.name(),
            "Fig. 6: tensor-core GEMM, errors and bounds",
            format!(
                "D = A B, A {m} x {k}, B {k} x {t}, entries U(-1,1) (seed {seed}) stored in fp16; the \
                 {} record ({}, b = {}, F = {}) {}, fp32 accumulation, results as fp32 and \
                 converted to fp16 (Listing 1). Relative error |D^ - D| / |D| per element against the exact \
                 product of the fp16 data. DBEA: Theorem 3.7 (zeta = {zeta:.3e}); VIBEA: Theorem 3.9 with \
                 lambda = {lambda:.4} (authors' constant, printed probability) and {lambda_paired:.4} \
                 (paired constant, proven probability) so that the whole-matrix probability (union over {} \
                 elements) is {whole_p:.4} and {whole_p_paired:.4}; rigorous: the block-FMA bounds (a priori from |A||B|, a posteriori from the \
                 computed block results). The paper (cuBLAS on an H100, m = 2^10, n = 2^15, t = 2^3): \
                 max error O(1e-2), DBEA O(1e2), VIBEA O(1e1), overestimates of about 1e4 and 1e3 (its conclusion: \
                 \"nearly O(1e5)\").",
                record.label(),
                record.instruction,
                record.block,
                record.fraction_bits,
                if !cfg.gpu {
                    "on the CPU model".to_string()
                } else {
                    format!(
                        "as the model beside cuBLAS GemmEx on the device (the errors are cuBLAS's; reduction {})",
                        cfg.reduction.name()
                    )
                },
                m * t
            ),
        );
        let mut table = Table::new(
            "relative error and relative bounds (max over elements / median)",
            &[
                "result",
                "error max / median",
                "DBEA Thm 3.7",
                "VIBEA Thm 3.9 authors",
                "VIBEA Thm 3.9 paired",
                "rigorous a priori",
                "rigorous a posteriori",
                "DBEA / error at worst element",
                "a posteriori / error at worst element",
            ],
        );
        let mut data = Vec::new();
        for output in &cfg.outputs {
            ctx.progress.set_message(format!("mpfma-fig6: {output}"));
            let config = GemmConfig {
                fp16_epilogue: output == "fp32-fp16",
                ..base
            };
            let run = run_model(&config, &ops)?;
            // With an fp16 C and the library's reduction every step may round
            // to fp16 (the reducing bound counts the final conversion); with
            // reductions in the compute type only the conversion does, added
            // by `device_element_bound`.
            let fp16_reductions = config.fp16_epilogue && cfg.reduction == VendorReduction::Library;
            let any_order = if cfg.gpu {
                ctx.progress
                    .set_message(format!("mpfma-fig6: {output}, any-order bounds"));
                any_order_for(fp16_reductions)?
            } else {
                Vec::new()
            };
            let device = if cfg.gpu {
                Some(super::gpu::cublas_gemm_ex_reducing(
                    &ops.a_read,
                    &ops.b_read,
                    (m, k, t),
                    config.fp16_epilogue,
                    cfg.reduction,
                )?)
            } else {
                None
            };
            let d = device.as_ref().unwrap_or(&run.d);
            let same_as_model: Vec<bool> = d
                .iter()
                .zip(&run.d)
                .map(|(x, y)| x.to_bits() == y.to_bits())
                .collect();
            let mut chained_bound_exceeded = 0u64;
            let mut without_any_order_bound = 0u64;
            let mut held_to_any_order = 0u64;
            // The element's rigorous bound where the device's result is not
            // the model's (None: no bound, or the model's own result).
            let device_bound = |e: usize| -> Option<f64> {
                if same_as_model[e] {
                    return None;
                }
                let raw = any_order.get(e).copied().flatten();
                device_element_bound(raw, config.fp16_epilogue, cfg.reduction, s[e])
            };
            // Where the result may overflow: past fp16's largest finite value
            // the conversion may give inf; fp32's range is far beyond any S + b
            // that has a bound.
            let overflow_threshold = if config.fp16_epilogue {
                Format::FP16.max_finite()
            } else {
                f64::from(f32::MAX)
            };
            let errors = oracle::gemm_errors(&a_read, &b_read, d)?;
            let mut rel = Vec::with_capacity(m * t);
            let (mut dbea, mut va, mut vp, mut ap, mut post) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut published_violations = [0u64; 2];
            let mut worst: Option<(usize, f64)> = None;
            // Elements left out of the statistics, with why: a non-finite
            // result that may be an overflow (the bounds' no-overflow
            // hypothesis excludes it), and an exact result of zero (relative
            // error undefined; its absolute error is still judged).
            let (mut non_finite, mut exact_zero) = (0u64, 0u64);
            for e in 0..m * t {
                let ErrorMeasure::Finite {
                    absolute_up,
                    relative_up,
                    ..
                } = errors[e]
                else {
                    // A device result that is not finite although its
                    // rigorous bound keeps |D^| <= S + b below the overflow
                    // threshold violates that bound (review, 2026-11-26: it
                    // was only counted apart).
                    match device_bound(e) {
                        Some(b) if add_up(s[e], b) <= overflow_threshold => {
                            held_to_any_order += 1;
                            report.rigorous_violations += 1;
                        }
                        _ => non_finite += 1,
                    }
                    continue;
                };
                // The epilogue's conversion, a priori (u16 (S + bound) + eta) and a posteriori.
                let (prior, post_extra) = if config.fp16_epilogue {
                    (
                        with_fp16_conversion(a_priori[e], s[e]),
                        Format::FP16.ulp(run.d[e]) / 2.0,
                    )
                } else {
                    (a_priori[e], 0.0)
                };
                // The a-posteriori bound reads the model's block results:
                // valid for the result only where it is the model's.
                let posterior = match (&run.a_posteriori[e], same_as_model[e]) {
                    (Ok(v), true) => add_up(*v, post_extra),
                    (Err(_), true) => f64::INFINITY,
                    (_, false) => prior,
                };
                if same_as_model[e] {
                    if absolute_up > prior || absolute_up > posterior {
                        report.rigorous_violations += 1;
                    }
                } else {
                    if absolute_up > prior {
                        chained_bound_exceeded += 1;
                    }
                    match device_bound(e) {
                        Some(b) => {
                            held_to_any_order += 1;
                            if absolute_up > b {
                                report.rigorous_violations += 1;
                            }
                        }
                        None => without_any_order_bound += 1,
                    }
                }
                let bounds_abs = [zeta * s[e], vibea_authors * s[e], vibea_paired * s[e]];
                if absolute_up > bounds_abs[0] {
                    published_violations[0] += 1;
                }
                if absolute_up > bounds_abs[1] {
                    published_violations[1] += 1;
                }
                let Some(r_e) = relative_up else {
                    exact_zero += 1;
                    continue;
                };
                let z = exact[e].abs();
                rel.push(r_e);
                dbea.push(bounds_abs[0] / z);
                va.push(bounds_abs[1] / z);
                vp.push(bounds_abs[2] / z);
                ap.push(prior / z);
                post.push(posterior / z);
                if worst.is_none_or(|w| r_e > w.1) {
                    worst = Some((rel.len() - 1, r_e));
                }
            }
            let fmt = |v: &[f64]| {
                let (mx, md) = max_and_median(v);
                format!("{mx:.3e} / {md:.3e}")
            };
            let (wi, we) = worst.unwrap_or((0, f64::NAN));
            let ratio = |v: &[f64]| v.get(wi).map_or(f64::NAN, |b| b / we);
            table.row(vec![
                output.clone(),
                fmt(&rel),
                fmt(&dbea),
                fmt(&va),
                fmt(&vp),
                fmt(&ap),
                fmt(&post),
                format!("{:.3e}", ratio(&dbea)),
                format!("{:.3e}", ratio(&post)),
            ]);
            let (emax, _) = max_and_median(&rel);
            let (dmax, _) = max_and_median(&dbea);
            let (vmax, _) = max_and_median(&va);
            report.findings.push(format!(
                "{output}: max relative error {emax:.2e}; max DBEA {dmax:.2e} and VIBEA (authors) {vmax:.2e}: \
                 overestimates of {:.1e} and {:.1e} (the paper: about 1e4 and 1e3 by §4.2's orders, \"nearly O(1e5)\" in its conclusion); the a-posteriori rigorous bound is \
                 {:.1e} times the error at the worst element",
                dmax / emax,
                vmax / emax,
                ratio(&post)
            ));
            if let Some(d) = &device {
                let same = same_as_model.iter().filter(|&&x| x).count();
                let differ = d.len() - same;
                report.findings.push(format!(
                    "{output}: cuBLAS GemmEx on the device ({}, reduction {}): {same} of {} elements \
                     equal the {} block-FMA model bit for bit; of the other {differ}, {held_to_any_order} are \
                     held to the any-order rigorous bound (cuBLAS's split and order are not \
                     documented){}; {chained_bound_exceeded} of the {differ} exceed the \
                     chained-order a-priori bound (not a violation: that bound assumes the model's \
                     order)",
                    cfg.arch,
                    cfg.reduction.name(),
                    d.len(),
                    record.label(),
                    if without_any_order_bound > 0 {
                        format!(" and {without_any_order_bound} have none (below)")
                    } else {
                        String::new()
                    },
                ));
            }
            if without_any_order_bound > 0 {
                report.findings.push(format!(
                    "{output}: {without_any_order_bound} of {} device elements that differ from the \
                     model have no any-order bound (its no-overflow hypothesis fails{}); they are \
                     not judged",
                    m * t,
                    if fp16_reductions {
                        ": with an fp16 C every step may round to fp16, whose growth factor reaches \
                         65504 at this inner dimension; reduction = \"compute-type\" forbids fp16 \
                         reductions, and its bound applies"
                    } else {
                        ""
                    }
                ));
            }
            if non_finite > 0 {
                report.findings.push(format!(
                    "{output}: {non_finite} of {} elements have a non-finite result that no bound \
                     rules out as an overflow (the bounds assume none): not judged, and left out \
                     of the statistics",
                    m * t
                ));
            }
            if exact_zero > 0 {
                report.findings.push(format!(
                    "{output}: {exact_zero} of {} elements have an exact result of 0: judged \
                     against the rigorous bounds, left out of the relative-error statistics",
                    m * t
                ));
            }
            if published_violations.iter().any(|&v| v > 0) {
                report.findings.push(format!(
                    "{output}: Theorem 3.7 violated at {} elements, Theorem 3.9 (authors) at {}",
                    published_violations[0], published_violations[1]
                ));
            }
            report.charts.push(
                Chart::new(
                    format!("Fig. 6 ({output}): EDF of the relative error and its bounds"),
                    "relative error |D^ - D| / |D|",
                    "empirical distribution",
                )
                .log_x()
                .with(Series::points("error", ecdf(&rel)))
                .with(Series::line("DBEA (Thm 3.7)", ecdf(&dbea)))
                .with(Series::line("VIBEA (Thm 3.9, authors)", ecdf(&va)))
                .with(Series::line("VIBEA (Thm 3.9, paired)", ecdf(&vp)))
                .with(Series::reference(
                    "rigorous a priori (block FMA)",
                    ecdf(&ap),
                ))
                .with(Series::reference("rigorous a posteriori", ecdf(&post))),
            );
            data.push(json!({
                "output": output,
                "max_error": emax, "max_dbea": dmax, "max_vibea_authors": vmax,
                "published_violations": published_violations,
                "backend": if cfg.gpu { "gpu (cuBLAS GemmEx)" } else { "model" },
                "reduction": cfg.reduction.name(),
                "equal_to_model": same_as_model.iter().filter(|&&x| x).count(),
                "chained_bound_exceeded_elsewhere": chained_bound_exceeded,
                "non_finite_elements": non_finite, "exact_zero_elements": exact_zero,
                "without_any_order_bound": without_any_order_bound,
                "held_to_any_order_bound": held_to_any_order,
                "worst_element_ratios": { "dbea": ratio(&dbea), "vibea_authors": ratio(&va),
                    "vibea_paired": ratio(&vp), "a_priori": ratio(&ap), "a_posteriori": ratio(&post) },
            }));
        }
        report.tables.push(table);
        report.data = json!({
            "m": m, "inner": k, "t": t, "seed": seed, "record": record,
            "zeta": zeta, "lambda": lambda, "whole_matrix_probability": whole_p,
            "lambda_paired": lambda_paired, "whole_matrix_probability_paired": whole_p_paired,
            "vibea_authors_constant": vibea_authors, "vibea_paired_constant": vibea_paired,
            "rows": data,
        });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, params, refused};

    #[test]
    fn dimensions_that_would_exhaust_memory_or_run_for_days_are_refused() {
        assert!(accepts_defaults_and_shipped(&Fig6) >= 2);
        refused(&Fig6, "m = 0", "m");
        refused(&Fig6, "inner = 0", "inner");
        refused(&Fig6, "t = 0", "t");
        assert_eq!(
            refused(&Fig6, "m = 65536\ninner = 65536", "inner"),
            "params.inner: 65536 x 65536 = 4294967296 elements exceed the limit of 2^28"
        );
        refused(&Fig6, "t = 268435456", "inner");
        refused(&Fig6, "m = 268435456\ninner = 1\nt = 2", "t");
        let e = refused(&Fig6, "m = 16384\ninner = 16384\nt = 16384", "inner");
        assert!(e.contains("exact products exceed the limit of 2^32"), "{e}");
        // The paper's full size passes.
        Fig6.check_params(&params("m = 1024\ninner = 32768\nt = 8"))
            .unwrap();
        refused(&Fig6, "outputs = []", "outputs");
    }

    #[test]
    fn a_device_element_gets_the_conversion_only_where_its_bound_lacks_it() {
        use VendorReduction::{ComputeType, Library};
        let (b, s) = (1e-3, 100.0);
        // Library reduction: the reducing bound counts the conversion.
        assert_eq!(device_element_bound(Some(b), true, Library, s), Some(b));
        // fp32 C: no conversion at all.
        assert_eq!(
            device_element_bound(Some(b), false, ComputeType, s),
            Some(b)
        );
        assert_eq!(device_element_bound(Some(b), false, Library, s), Some(b));
        // Compute-type reductions, fp16 C: b + u16 (S + b) + eta16, rounded up.
        let with = device_element_bound(Some(b), true, ComputeType, s).unwrap();
        let (u16, eta16) = (2f64.powi(-11), 2f64.powi(-25));
        // The same association as the bound: each directed step >= its nearest one.
        let exact = b + (u16 * (s + b) + eta16);
        assert!(
            with >= exact && with <= exact * (1.0 + 1e-15),
            "{with} {exact}"
        );
        // No bound stays no bound.
        assert_eq!(device_element_bound(None, true, ComputeType, s), None);
    }

    #[test]
    fn the_reduction_is_cublass_and_refused_for_the_model() {
        // The model reduces nothing: a reduction other than the default
        // would be silently meaningless there.
        let e = refused(&Fig6, "reduction = \"compute-type\"", "reduction");
        assert!(e.contains("backend = gpu"), "{e}");
        refused(
            &Fig6,
            "backend = \"gpu\"\nreduction = \"fp16\"",
            "reduction",
        );
        for r in ["library", "compute-type"] {
            let text = format!("backend = \"gpu\"\nreduction = \"{r}\"");
            Fig6.check_params(&params(&text)).unwrap();
            let cfg = config(&params(&text), false).unwrap();
            assert_eq!(cfg.reduction.name(), r);
        }
        let cfg = config(&params(""), false).unwrap();
        assert_eq!(cfg.reduction, VendorReduction::Library);
    }
}
