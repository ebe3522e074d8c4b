//! Recursive (left-to-right) dot product in one format, with or without FMA.
//!
//! Without FMA: `s_0 = 0`, `s_k = fl(s_{k-1} + fl(x_k y_k))`.
//! With FMA: `s_k = fl(s_{k-1} + x_k y_k)` (one rounding per step).
//! Every operation is correctly rounded in the kernel's format and mode, so
//! this is exactly what IEEE hardware computing in that format does.

use super::{
    DOT_INPUTS, DotOperands, FORMAT_PARAM, MODE_PARAM, dot_run, published_check, rigorous_as_given,
    stored_sum_abs,
};
use crate::error::Result;
use crate::kernels::{Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params};
use boundgate_verify::bounds::dot::{
    recursive_depth, recursive_higham_mary, recursive_published, recursive_rigorous,
};
use boundgate_verify::format::{Format, RoundingMode};
use serde_json::json;

/// The recursive dot product of `x` and `y` (values of `format`) computed in
/// `format` with rounding `mode`.
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::recursive::recursive_dot;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// // fp16: 2048 + 1 + 1 stays 2048 (each +1 is a tie to even), with or without FMA.
/// let x = [2048.0, 1.0, 1.0];
/// let y = [1.0, 1.0, 1.0];
/// assert_eq!(recursive_dot(&x, &y, Format::FP16, rne, false), 2048.0);
/// assert_eq!(recursive_dot(&x, &y, Format::FP64, rne, false), 2050.0);
/// ```
pub fn recursive_dot(x: &[f64], y: &[f64], format: Format, mode: RoundingMode, fma: bool) -> f64 {
    let mut s = 0.0;
    for (&a, &b) in x.iter().zip(y) {
        s = if fma {
            format.fma(a, b, s, mode)
        } else {
            format.add(s, format.mul(a, b, mode), mode)
        };
    }
    s
}

/// `dot-recursive`: the recursive dot product kernel.
pub struct RecursiveDot;

const PARAMS: &[ParamSpec] = &[
    FORMAT_PARAM,
    MODE_PARAM,
    ParamSpec {
        key: "fma",
        kind: ParamKind::Bool,
        default: "false",
        help: "true: fused multiply-add (one rounding per step); false: rounded product, then rounded sum",
    },
    ParamSpec {
        key: "probability",
        kind: ParamKind::Probability,
        default: "0.99",
        help: "target probability of the Higham-Mary probabilistic bound (reported, not gating)",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "dot-recursive",
    summary: "dot product, left to right, in one format (FMA optional)",
    inputs: DOT_INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Propagated,
};

impl Kernel for RecursiveDot {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let format = params.format("format")?;
        let mode = params.mode("mode")?;
        let fma = params.bool("fma")?;
        let probability = params.f64("probability")?;
        let ops = DotOperands::from_inputs(inputs, format)?;
        let n = ops.x.len();
        let computed = recursive_dot(&ops.x_stored, &ops.y_stored, format, mode, fma);
        let depth = recursive_depth(n);
        let rigorous = rigorous_as_given(&ops, |s| recursive_rigorous(format, mode, n, fma, s));
        let sum_abs = stored_sum_abs(&ops);
        let others = vec![
            published_check(
                "published: Higham 2002 (3.5) / Bhola-Duraisamy Lemma 2.1 (DBEA)",
                sum_abs
                    .clone()
                    .and_then(|s| recursive_published(format, mode, n, s)),
            ),
            published_check(
                "probabilistic: Higham-Mary 2019 Theorem 3.1",
                sum_abs.and_then(|s| recursive_higham_mary(format, mode, n, s, probability)),
            ),
        ];
        let details = json!({
            "order": if fma { "recursive, fma" } else { "recursive" },
            "format": format.to_string(),
            "mode": mode.name(),
            "n": n,
            "depth": depth,
        });
        dot_run(&ops, computed, rigorous, others, details)
    }
}
