//! Gating a dot kernel: for every input the strategies find (wide exponent
//! ranges, cancellation, subnormal products, overflow edges), the exact error
//! of the kernel must be inside the DBEA bound gamma_n sum|x_i y_i|
//! (Bhola & Duraisamy, Lemma 2.1; Higham 2002, eq. (3.5)) made rigorous with
//! the underflow term (boundgate-verify's `bounds::dot::rigorous`).

use boundgate_verify::bounds::dot::{abs_dot_up, recursive_depth, rigorous};
use boundgate_verify::check::{ElementBounds, check};
use boundgate_verify::format::{Format, RoundingMode::NearestEven};
use boundgate_verify::oracle;
use boundgate_verify::strategies::{any_dot_inputs, proptest_config};
use proptest::prelude::*;

/// The gate, in about ten lines: exact error vs. the bound, per input.
fn within_bound(
    kernel: fn(&[f32], &[f32]) -> f32,
    x: &[f64],
    y: &[f64],
) -> Result<(), TestCaseError> {
    let (xf, yf): (Vec<f32>, Vec<f32>) = (
        x.iter().map(|&v| v as f32).collect(),
        y.iter().map(|&v| v as f32).collect(),
    );
    let computed = f64::from(kernel(&xf, &yf));
    let error = oracle::dot(x, y).unwrap().error_of(computed);
    let n = x.len();
    let bound = rigorous(
        Format::FP32,
        NearestEven,
        recursive_depth(n),
        n as u64,
        abs_dot_up(x, y).unwrap(),
    );
    let verdict = check(&[error], bound.map(|b| ElementBounds::uniform(b, 1))).unwrap();
    prop_assert!(!verdict.is_violation(), "x = {x:?}, y = {y:?}: {verdict:?}");
    Ok(())
}

proptest! {
    // Fixed seed (printed on failure), 256 cases; BOUNDGATE_HEAVY=1 runs 10^5.
    #![proptest_config(proptest_config(256, 100_000))]

    #[test]
    fn dot_f32_stays_inside_the_dbea_bound((x, y) in any_dot_inputs(Format::FP32, 1..=64)) {
        within_bound(gate_dot_example::dot_f32, &x, &y)?;
    }
}

/// The same gate catches the kernel that silently accumulates in half precision.
#[test]
fn the_gate_catches_a_half_precision_accumulator() {
    let mut config = proptest_config(256, 256);
    config.failure_persistence = None;
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&any_dot_inputs(Format::FP32, 2..=64), |(x, y)| {
        within_bound(gate_dot_example::dot_f32_with_half_accumulator, &x, &y)
    });
    assert!(
        result.is_err(),
        "a half-precision accumulator must violate the fp32 bound"
    );
}
