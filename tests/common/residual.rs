//! The residual GEMM's run configuration as a proptest strategy, drawn from
//! every option, for the rigorous-bound properties of `tests/residual.rs`
//! (every working precision and threshold) and `tests/residual_qdot_edges.rs`
//! (binary64 working precision, fewer thresholds).

use boundgate::kernels::residual::kernel::RunConfig;
use boundgate::kernels::residual::method::{Method, Reduction};
use boundgate::kernels::residual::quant::{
    Bits, Granularity, Quantizer, Rounding, ScaleRule, Working,
};
use boundgate::kernels::residual::reduce::ReduceRule;
use proptest::prelude::*;

/// A run configuration: method, bits, scale rule, rounding, granularity,
/// reduction rule and `eta` drawn from every value, the working precision
/// from `working` and the threshold from `threshold`.
///
/// The caller's two strategies are drawn in the order the options are listed
/// in [`Quantizer`] and [`Reduction`] (working after rounding, threshold
/// after the rule): a `Just` draws nothing from the generator, so a caller
/// that fixes one gets the same cases, and seeds, as a strategy without it.
pub fn run_config(
    working: impl Strategy<Value = Working>,
    threshold: impl Strategy<Value = f64>,
) -> impl Strategy<Value = RunConfig> {
    (
        prop_oneof![
            Just(Method::Sparse),
            Just(Method::Full),
            Just(Method::Direct)
        ],
        prop_oneof![Just(Bits::Int8), Just(Bits::Int4)],
        prop_oneof![
            Just(ScaleRule::Absmax),
            Just(ScaleRule::Half),
            Just(ScaleRule::Eq2)
        ],
        prop_oneof![
            Just(Rounding::Nearest),
            Just(Rounding::Floor),
            Just(Rounding::TowardZero)
        ],
        working,
        prop_oneof![Just(Granularity::Vector), Just(Granularity::Tensor)],
        prop_oneof![
            Just(ReduceRule::Mean),
            Just(ReduceRule::Rows),
            Just(ReduceRule::Signed)
        ],
        threshold,
        prop_oneof![Just(0.0), Just(0.3), Just(1.0)],
    )
        .prop_map(
            |(method, bits, scale, rounding, working, granularity, rule, threshold, eta)| {
                RunConfig {
                    method,
                    quantizer: Quantizer {
                        bits,
                        scale,
                        rounding,
                        working,
                    },
                    granularity,
                    reduction: Reduction {
                        threshold,
                        rule,
                        eta,
                    },
                }
            },
        )
}
