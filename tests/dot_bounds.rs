//! The baseline dot kernels against the exact oracle and their bounds, over
//! the public adversarial strategies of `boundgate::gen`.
//!
//! Properties:
//! 1. the rigorous bounds are never violated: the depth form for every order,
//!    and for left-to-right orders also `recursive_rigorous` (Rump's
//!    summation bound in round to nearest); they may refuse an input whose
//!    intermediates could overflow, and nothing else (no `n u < 1`);
//! 2. the published DBEA bounds (Higham 2002 (3.5); pairwise form) are
//!    violated only where an operation's exact result fell in the underflow
//!    range, or where an intermediate could overflow (in a mode rounding
//!    toward zero, overflow saturates at the largest finite value without
//!    producing an infinity): both are excluded by their rounding model
//!    (docs/findings/dot.md).
//!
//! Seeded (`boundgate::generate::PROPTEST_SEED`, override with PROPTEST_RNG_SEED);
//! `BOUNDGATE_HEAVY=1` runs 100 000 cases per property instead of 256.

use boundgate::generate::{proptest_config, strategies::any_dot_inputs};
use boundgate::kernels::baseline::pairwise::pairwise_dot;
use boundgate::kernels::baseline::recursive::recursive_dot;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::dot::{
    abs_dot_up, pairwise_depth, pairwise_published, recursive_depth, recursive_published,
    recursive_rigorous, rigorous, underflow_ops,
};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{self, ErrorMeasure, ExactSum};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Order {
    Recursive,
    RecursiveFma,
    Pairwise,
}

fn compute(order: Order, x: &[f64], y: &[f64], f: Format, mode: RoundingMode) -> f64 {
    match order {
        Order::Recursive => recursive_dot(x, y, f, mode, false),
        Order::RecursiveFma => recursive_dot(x, y, f, mode, true),
        Order::Pairwise => pairwise_dot(x, y, f, mode),
    }
}

/// Whether some operation of the order had an exact result of magnitude
/// below 2^emin (where the relative rounding model fails): a product for the
/// orders that round products, an FMA result (exact s_{k-1} + x_k y_k) for the FMA chain.
fn some_operation_underflowed(
    order: Order,
    x: &[f64],
    y: &[f64],
    f: Format,
    mode: RoundingMode,
) -> bool {
    // Nonzero and below 2^emin (to_f64 may even round it to 0 for fp64).
    let underflows = |e: &ExactSum| !e.is_zero() && e.to_f64().abs() < f.min_positive_normal();
    match order {
        Order::Recursive | Order::Pairwise => x.iter().zip(y).any(|(a, b)| {
            let mut p = ExactSum::new();
            p.add_product(*a, *b);
            underflows(&p)
        }),
        Order::RecursiveFma => {
            let mut s = 0.0;
            for (a, b) in x.iter().zip(y) {
                let mut exact = ExactSum::new();
                exact.add(s);
                exact.add_product(*a, *b);
                if underflows(&exact) {
                    return true;
                }
                s = f.fma(*a, *b, s, mode);
            }
            false
        }
    }
}

fn check_case(
    order: Order,
    f: Format,
    mode: RoundingMode,
    x: &[f64],
    y: &[f64],
) -> Result<(), TestCaseError> {
    let n = x.len();
    let computed = compute(order, x, y, f, mode);
    let exact = oracle::dot(x, y).unwrap();
    let error = exact.error_of(computed);
    let sum_abs = abs_dot_up(x, y).unwrap();
    let depth = match order {
        Order::Pairwise => pairwise_depth(n),
        _ => recursive_depth(n),
    };
    let mut overflow_possible = false;
    match rigorous(f, mode, depth, underflow_ops(f, n), sum_abs) {
        Err(VerifyError::HypothesisNotMet { hypothesis, .. }) => {
            prop_assert!(
                hypothesis.contains("overflow") || hypothesis.contains("u < 1"),
                "unexpected hypothesis failure: {hypothesis}"
            );
            overflow_possible = hypothesis.contains("overflow");
        }
        Err(other) => return Err(TestCaseError::fail(format!("bound error: {other}"))),
        Ok(bound) => match error {
            ErrorMeasure::Finite { absolute_up, .. } => prop_assert!(
                absolute_up <= bound.value,
                "{order:?} {f} {mode}: error {absolute_up:e} > rigorous bound {:e}\nx = {x:?}\ny = {y:?}\ncomputed = {computed:e}",
                bound.value
            ),
            ErrorMeasure::NonFinite { computed, exact } => {
                return Err(TestCaseError::fail(format!(
                    "{order:?} {f} {mode}: non-finite result {computed} (exact {exact}) although no overflow was possible\nx = {x:?}\ny = {y:?}"
                )));
            }
        },
    }
    // Left to right: Rump's summation bound in round to nearest (any n), else
    // the depth form again.
    let left_to_right = match order {
        Order::Recursive => Some(false),
        Order::RecursiveFma => Some(true),
        Order::Pairwise => None,
    };
    if let Some(fma) = left_to_right {
        match (recursive_rigorous(f, mode, n, fma, sum_abs), error) {
            (Err(VerifyError::HypothesisNotMet { hypothesis, .. }), _) => prop_assert!(
                hypothesis.contains("overflow"),
                "unexpected hypothesis failure: {hypothesis}"
            ),
            (Err(other), _) => return Err(TestCaseError::fail(format!("bound error: {other}"))),
            (Ok(bound), ErrorMeasure::Finite { absolute_up, .. }) => prop_assert!(
                absolute_up <= bound.value,
                "{order:?} {f} {mode}: error {absolute_up:e} > left-to-right rigorous bound {:e}\nx = {x:?}\ny = {y:?}\ncomputed = {computed:e}",
                bound.value
            ),
            (Ok(_), ErrorMeasure::NonFinite { computed, exact }) => {
                return Err(TestCaseError::fail(format!(
                    "{order:?} {f} {mode}: non-finite result {computed} (exact {exact}) under a left-to-right bound\nx = {x:?}\ny = {y:?}"
                )));
            }
        }
    }
    let published = match order {
        Order::Pairwise => pairwise_published(f, mode, n, sum_abs),
        _ => recursive_published(f, mode, n, sum_abs),
    };
    if let (Ok(p), ErrorMeasure::Finite { absolute_up, .. }) = (published, error)
        && absolute_up > p.value
    {
        prop_assert!(
            overflow_possible || some_operation_underflowed(order, x, y, f, mode),
            "{order:?} {f} {mode}: published bound violated without underflow or overflow: error {absolute_up:e} > {:e}\nx = {x:?}\ny = {y:?}",
            p.value
        );
    }
    Ok(())
}

fn mode_strategy() -> impl Strategy<Value = RoundingMode> {
    prop_oneof![
        4 => Just(RoundingMode::NearestEven),
        1 => Just(RoundingMode::TowardZero),
        1 => Just(RoundingMode::Up),
        1 => Just(RoundingMode::Down),
    ]
}

macro_rules! dot_property {
    ($name:ident, $format:expr, $order:expr) => {
        proptest! {
            #![proptest_config(proptest_config(256, 100_000))]
            #[test]
            fn $name((x, y) in any_dot_inputs($format, 1..=64), mode in mode_strategy()) {
                check_case($order, $format, mode, &x, &y)?;
            }
        }
    };
}

dot_property!(recursive_fp16, Format::FP16, Order::Recursive);
dot_property!(recursive_fma_fp16, Format::FP16, Order::RecursiveFma);
dot_property!(pairwise_fp16, Format::FP16, Order::Pairwise);
dot_property!(recursive_bf16, Format::BF16, Order::Recursive);
dot_property!(recursive_fma_bf16, Format::BF16, Order::RecursiveFma);
dot_property!(pairwise_bf16, Format::BF16, Order::Pairwise);
dot_property!(recursive_fp32, Format::FP32, Order::Recursive);
dot_property!(recursive_fma_fp32, Format::FP32, Order::RecursiveFma);
dot_property!(pairwise_fp32, Format::FP32, Order::Pairwise);
dot_property!(recursive_fp64, Format::FP64, Order::Recursive);
// Formats of 3 and 4 significant bits: n u passes 1 from n = 8 (e5m2) and 16
// (e4m3) on, where only the bounds without `n u < 1` apply.
dot_property!(recursive_e5m2, Format::E5M2, Order::Recursive);
dot_property!(recursive_fma_e5m2, Format::E5M2, Order::RecursiveFma);
dot_property!(recursive_e4m3, Format::E4M3, Order::Recursive);
dot_property!(recursive_fma_fp64, Format::FP64, Order::RecursiveFma);
dot_property!(pairwise_fp64, Format::FP64, Order::Pairwise);

/// Rump's summation bound near its worst case, far beyond `n u < 1` (and its
/// FMA-chain form, `n u S`): in fp16,
/// `1 + u + u + ...` (10 000 terms) stays 1 (every `+ u` is a tie to even), an
/// error of `(n - 1) u = 4.88` with `S = 1 + (n - 1) u`. The bound
/// `(n - 1) u (S + E) + E` holds and is `S + E` times the error (about 5.9:
/// the bound multiplies by `sum |p_i|`, which the stagnation leaves out); the
/// depth form needs `(1 + u)^n - 1 = 130`.
#[test]
fn rumps_summation_bound_holds_where_n_u_exceeds_1() {
    let rne = RoundingMode::NearestEven;
    let u = Format::FP16.unit_roundoff(rne);
    let n = 10_000;
    let mut x = vec![u; n];
    x[0] = 1.0;
    let y = vec![1.0; n];
    assert_eq!(recursive_dot(&x, &y, Format::FP16, rne, false), 1.0);
    // An FMA chain stagnates the same way; its bound is n u S (+ underflow).
    assert_eq!(recursive_dot(&x, &y, Format::FP16, rne, true), 1.0);
    let ErrorMeasure::Finite { absolute_up, .. } = oracle::dot(&x, &y).unwrap().error_of(1.0)
    else {
        panic!("finite")
    };
    assert_eq!(absolute_up, (n - 1) as f64 * u);
    let s = abs_dot_up(&x, &y).unwrap();
    let bound = recursive_rigorous(Format::FP16, rne, n, false, s).unwrap();
    assert!(absolute_up <= bound.value);
    assert!(
        bound.value < 6.0 * absolute_up,
        "{} vs {absolute_up}",
        bound.value
    );
    let fma = recursive_rigorous(Format::FP16, rne, n, true, s).unwrap();
    assert!(absolute_up <= fma.value && fma.value < 6.0 * absolute_up);
    let depth = rigorous(
        Format::FP16,
        rne,
        recursive_depth(n),
        underflow_ops(Format::FP16, n),
        s,
    )
    .unwrap();
    assert!(depth.value > 25.0 * bound.value);
}

/// The minimal counterexample to the published bound (docs/findings/dot.md):
/// in fp16, 2^-13 * 2^-13 = 2^-26 is below half the smallest subnormal and
/// rounds to 0, an error of 2^-26 where gamma_1 * 2^-26 = 2^-37 / (1 - 2^-11).
#[test]
fn published_dbea_bound_fails_on_an_underflowing_fp16_product() {
    let rne = RoundingMode::NearestEven;
    let x = [2f64.powi(-13)];
    let computed = recursive_dot(&x, &x, Format::FP16, rne, false);
    assert_eq!(computed, 0.0);
    let error = oracle::dot(&x, &x).unwrap().error_of(computed);
    let ErrorMeasure::Finite { absolute_up, .. } = error else {
        panic!("finite")
    };
    assert_eq!(absolute_up, 2f64.powi(-26));
    let s = abs_dot_up(&x, &x).unwrap();
    let published = recursive_published(Format::FP16, rne, 1, s).unwrap();
    assert!(absolute_up > published.value);
    let rigorous = rigorous(Format::FP16, rne, 1, underflow_ops(Format::FP16, 1), s).unwrap();
    assert!(absolute_up <= rigorous.value);
}

/// Overflow breaks the published bound too, silently in a mode rounding toward
/// zero: in fp16 with rtz, 256 * 512 = 131072 saturates to 65504 (no infinity
/// appears), an error of 65568 where gamma_1 * 131072 is about 64. The rigorous
/// bound refuses the input (its no-overflow hypothesis fails).
#[test]
fn published_dbea_bound_fails_silently_on_overflow_toward_zero() {
    let rtz = RoundingMode::TowardZero;
    let (x, y) = ([256.0], [512.0]);
    let computed = recursive_dot(&x, &y, Format::FP16, rtz, false);
    assert_eq!(computed, 65504.0);
    let ErrorMeasure::Finite { absolute_up, .. } = oracle::dot(&x, &y).unwrap().error_of(computed)
    else {
        panic!("finite")
    };
    assert_eq!(absolute_up, 65568.0);
    let s = abs_dot_up(&x, &y).unwrap();
    let published = recursive_published(Format::FP16, rtz, 1, s).unwrap();
    assert!(
        absolute_up > published.value,
        "{absolute_up} vs {}",
        published.value
    );
    let refused = rigorous(Format::FP16, rtz, 1, underflow_ops(Format::FP16, 1), s);
    assert!(
        matches!(refused, Err(VerifyError::HypothesisNotMet { ref hypothesis, .. }) if hypothesis.contains("overflow"))
    );
}

/// An input beyond a saturating format's range is stored as its largest
/// value: finite, but outside `fl(v) = v (1 + a) + e`. The rigorous bound
/// must refuse it (an e4m3 1000 saturated to 448 got a bound of 3.5 for an
/// error of 8.6 until 2026-11-25; found by review), and so must the
/// representation error bound on its own.
#[test]
fn a_saturated_input_is_an_unmet_hypothesis() {
    use boundgate::kernels::baseline::{DotOperands, rigorous_as_given};
    use boundgate_verify::bounds::dot::representation_error_up;
    use boundgate_verify::format::OverflowPolicy;
    let e4m3 = Format::E4M3
        .with_overflow(OverflowPolicy::Saturate)
        .unwrap();
    let rne = RoundingMode::NearestEven;
    let (x, y) = (vec![1000.0], vec![0.015625]);
    assert_eq!(e4m3.round(1000.0, rne), 448.0, "the case needs saturation");
    assert!(matches!(
        representation_error_up(e4m3, rne, &x, &y),
        Err(VerifyError::HypothesisNotMet { .. })
    ));
    let ops = DotOperands::new(x.clone(), y.clone(), e4m3).unwrap();
    for arithmetic in [e4m3, Format::FP32] {
        assert!(matches!(
            rigorous_as_given(&ops, |s| rigorous(arithmetic, rne, 1, 1, s)),
            Err(VerifyError::HypothesisNotMet { .. })
        ));
    }
    // Within range the representation bound still has a value.
    assert!(representation_error_up(e4m3, rne, &[400.0], &y).is_ok());
}
