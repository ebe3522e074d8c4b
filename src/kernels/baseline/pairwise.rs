//! Pairwise dot product: rounded products, summed by recursive halving.
//!
//! `sum(v) = v[0]` for one element, else `fl(sum(v[..h]) + sum(v[h..]))` with
//! `h = ceil(len / 2)`, so each product passes through at most
//! `ceil(log2 n)` additions (Higham 2002, §4.2) after its own rounding.

use super::{
    DOT_INPUTS, DotOperands, FORMAT_PARAM, MODE_PARAM, dot_run, published_check, rigorous_as_given,
    stored_sum_abs,
};
use crate::error::Result;
use crate::kernels::{Inputs, Kernel, KernelInfo, KernelRun, ParamSpec, Params};
use boundgate_verify::bounds::dot::{pairwise_depth, pairwise_published, rigorous, underflow_ops};
use boundgate_verify::format::{Format, RoundingMode};
use serde_json::json;

/// The pairwise dot product of `x` and `y` computed in `format` with `mode`.
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::pairwise::pairwise_dot;
/// use boundgate_verify::format::{Format, RoundingMode};
/// // fp16: (2048 + 1) + (1 + 1) = 2048 + 2 = 2050 exactly, where the recursive order gives 2048.
/// let x = [2048.0, 1.0, 1.0, 1.0];
/// let y = [1.0, 1.0, 1.0, 1.0];
/// assert_eq!(pairwise_dot(&x, &y, Format::FP16, RoundingMode::NearestEven), 2050.0);
/// ```
pub fn pairwise_dot(x: &[f64], y: &[f64], format: Format, mode: RoundingMode) -> f64 {
    let products: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| format.mul(a, b, mode))
        .collect();
    pairwise_sum(&products, format, mode)
}

fn pairwise_sum(v: &[f64], format: Format, mode: RoundingMode) -> f64 {
    match v.len() {
        0 => 0.0,
        1 => v[0],
        n => {
            let (left, right) = v.split_at(n.div_ceil(2));
            format.add(
                pairwise_sum(left, format, mode),
                pairwise_sum(right, format, mode),
                mode,
            )
        }
    }
}

/// `dot-pairwise`: the pairwise dot product kernel.
pub struct PairwiseDot;

const PARAMS: &[ParamSpec] = &[FORMAT_PARAM, MODE_PARAM];

const INFO: KernelInfo = KernelInfo {
    name: "dot-pairwise",
    summary: "dot product with pairwise summation of rounded products, in one format",
    inputs: DOT_INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Propagated,
};

impl Kernel for PairwiseDot {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let format = params.format("format")?;
        let mode = params.mode("mode")?;
        let ops = DotOperands::from_inputs(inputs, format)?;
        let n = ops.x.len();
        let computed = pairwise_dot(&ops.x_stored, &ops.y_stored, format, mode);
        let depth = pairwise_depth(n);
        let rigorous = rigorous_as_given(&ops, |s| {
            rigorous(format, mode, depth, underflow_ops(format, n), s)
        });
        let sum_abs = stored_sum_abs(&ops);
        let others = vec![published_check(
            "published: Higham 2002 §3.1/§4.2 (pairwise)",
            sum_abs.and_then(|s| pairwise_published(format, mode, n, s)),
        )];
        let details = json!({
            "order": "pairwise",
            "format": format.to_string(),
            "mode": mode.name(),
            "n": n,
            "depth": depth,
        });
        dot_run(&ops, computed, rigorous, others, details)
    }
}
