//! The check loop must fail wrong kernels: a test suite that cannot fail
//! proves nothing. Deliberately wrong outputs go through the same path as the
//! real kernels (oracle -> rigorous bound -> verdict) and must be violations.

use boundgate::kernels::baseline::recursive::recursive_dot;
use boundgate::kernels::baseline::{DotOperands, dot_run, rigorous_as_given};
use boundgate_verify::bounds::dot::recursive_rigorous;
use boundgate_verify::check::Outcome;
use boundgate_verify::format::{Format, RoundingMode};

fn operands(n: usize, storage: Format) -> DotOperands {
    // Deterministic inputs in [-1, 1): a fixed pattern, no RNG needed.
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 37 % 101) as f64 / 50.5) - 1.0)
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| ((i * 53 % 97) as f64 / 48.5) - 1.0)
        .collect();
    DotOperands::new(x, y, storage).unwrap()
}

fn rigorous_verdict(ops: &DotOperands, arithmetic: Format, computed: f64) -> Outcome {
    let n = ops.x.len();
    let rne = RoundingMode::NearestEven;
    let bound = rigorous_as_given(ops, |s| recursive_rigorous(arithmetic, rne, n, false, s));
    let run = dot_run(ops, computed, bound, Vec::new(), serde_json::Value::Null).unwrap();
    run.verdicts().unwrap().remove(0).verdict.outcome
}

#[test]
fn the_correct_kernel_passes() {
    let ops = operands(500, Format::FP32);
    let computed = recursive_dot(
        &ops.x_stored,
        &ops.y_stored,
        Format::FP32,
        RoundingMode::NearestEven,
        false,
    );
    assert_eq!(
        rigorous_verdict(&ops, Format::FP32, computed),
        Outcome::Pass
    );
}

#[test]
fn an_all_zero_kernel_is_caught() {
    let ops = operands(500, Format::FP32);
    assert!(matches!(
        rigorous_verdict(&ops, Format::FP32, 0.0),
        Outcome::Violation { .. }
    ));
}

#[test]
fn a_kernel_computing_in_a_narrower_format_than_claimed_is_caught() {
    // fp16 arithmetic on the fp32-stored inputs, judged by the fp32 bound.
    let ops = operands(500, Format::FP32);
    let fp16_x: Vec<f64> = ops
        .x_stored
        .iter()
        .map(|&v| Format::FP16.round(v, RoundingMode::NearestEven))
        .collect();
    let fp16_y: Vec<f64> = ops
        .y_stored
        .iter()
        .map(|&v| Format::FP16.round(v, RoundingMode::NearestEven))
        .collect();
    let computed = recursive_dot(
        &fp16_x,
        &fp16_y,
        Format::FP16,
        RoundingMode::NearestEven,
        false,
    );
    assert!(matches!(
        rigorous_verdict(&ops, Format::FP32, computed),
        Outcome::Violation { .. }
    ));
}

#[test]
fn an_off_by_one_ulp_kernel_on_an_exact_case_is_caught() {
    // Small integers: every operation is exact, so the bound is essentially 0
    // and even one ulp of error is a violation.
    let x = vec![1.0, 2.0, 3.0];
    let y = vec![4.0, 5.0, 6.0];
    let ops = DotOperands::new(x, y, Format::FP64).unwrap();
    let exact = 32.0f64;
    assert_eq!(rigorous_verdict(&ops, Format::FP64, exact), Outcome::Pass);
    assert!(matches!(
        rigorous_verdict(&ops, Format::FP64, exact.next_up().next_up()),
        Outcome::Violation { .. }
    ));
}
