//! Review of `bounds::qdot::{rigorous, corrected_thm_3_2, rigorous_plain}`
//! on hand-built bins and extreme inputs (2026-11-29): the public
//! `ExponentBins` and `TileOrder` fields take any value, and the bounds must
//! answer with a value or a typed error, never a panic.

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{
    BinArithmetic, BinPrecision, Binning, ExponentBin, ExponentBins, Fexp, TileOrder,
    corrected_thm_3_2, rigorous, rigorous_plain,
};
use boundgate_verify::format::Format;

fn one_bin(exponent: i32) -> ExponentBins {
    ExponentBins {
        fexp: Fexp::Ieee,
        binning: Binning::Factors,
        bins: vec![ExponentBin {
            exponent,
            count: 1,
            scaled_abs_sum: 1.0,
            scaled_sum: (1.0, 1.0),
        }],
        zeros: 0,
        n: 1,
    }
}

/// A bin exponent of `i32::MIN` (hand-built): rescaling the bin's result
/// enclosure by `2^u_k` negated the exponent to check exactness, `-i32::MIN`,
/// an arithmetic overflow (a panic in debug builds).
#[test]
fn extreme_bin_exponents_are_a_value_or_a_typed_error_not_a_panic() {
    let fp64 = BinPrecision::Compute(BinArithmetic {
        format: Format::FP64,
        accumulator: Format::FP64,
    });
    let order = TileOrder { n: 1, tile: 0 };
    for exponent in [i32::MIN, i32::MIN + 1, -5000, 5000, i32::MAX] {
        let bins = one_bin(exponent);
        for p in [fp64, BinPrecision::Perforate] {
            for (name, got) in [
                ("rigorous", rigorous(&bins, &[p], Format::FP64, order)),
                (
                    "corrected",
                    corrected_thm_3_2(&bins, &[p], Format::FP64, order),
                ),
            ] {
                match got {
                    Ok(b) => assert!(
                        b.value.is_finite() && b.value > 0.0,
                        "{name} 2^{exponent}: {b:?}"
                    ),
                    Err(VerifyError::HypothesisNotMet { .. }) => {
                        assert!(exponent > 0, "{name} 2^{exponent}")
                    }
                    Err(other) => panic!("{name} 2^{exponent}: {other}"),
                }
            }
        }
    }
}

/// `rigorous_plain` (Theorem 3.6's early exit, the original kernel on the
/// unscaled inputs) has no cast term: it holds for values of the input
/// precision only, which it now checks value by value (the formats alone were
/// compared until 2026-11-29), and a NaN or an infinity is `NonFinite`, as
/// for `ExponentBins` (it was "no overflow" not met).
#[test]
fn rigorous_plain_checks_its_inputs_are_finite_values_of_the_input_precision() {
    let fp32 = BinArithmetic {
        format: Format::FP32,
        accumulator: Format::FP32,
    };
    let order = TileOrder { n: 2, tile: 0 };
    let v = 1.0 + 2f64.powi(-24) - 2f64.powi(-52); // not a binary32 value
    match rigorous_plain(&[1.0, v], &[1.0, 1.0], Format::FP32, fp32, order) {
        Err(VerifyError::HypothesisNotMet {
            hypothesis, detail, ..
        }) => {
            assert!(
                hypothesis.contains("values of the input precision"),
                "{hypothesis}"
            );
            assert!(detail.starts_with("x[1]"), "{detail}");
        }
        other => panic!("expected HypothesisNotMet, got {other:?}"),
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        match rigorous_plain(&[1.0, 2.0], &[0.0, bad], Format::FP32, fp32, order) {
            Err(VerifyError::NonFinite { what, index: 1, .. }) => assert_eq!(what, "y"),
            other => panic!("{bad}: expected NonFinite, got {other:?}"),
        }
    }
    // Values of the input precision (subnormals included) keep their bound.
    let tiny = f64::from(f32::from_bits(1));
    let b = rigorous_plain(&[1.5, tiny], &[3.0, 1.0], Format::FP32, fp32, order).unwrap();
    assert!(b.value > 0.0 && b.value < 1e-6);
    // n = 0: the empty sum, computed exactly.
    let empty = TileOrder { n: 0, tile: 0 };
    assert_eq!(
        rigorous_plain(&[], &[], Format::FP32, fp32, empty)
            .unwrap()
            .value,
        0.0
    );
}

/// The selection and printed-bound helpers take any `i64`: an empty bin
/// scores the paper's `-inf`, extreme exponents saturate or are refused, and
/// none panics (review, 2026-11-29: `bin_score(0, ..)` tripped a debug
/// assertion, `thm_3_6` and `thm_3_4` overflowed `i64`).
#[test]
fn score_and_theorem_helpers_take_extreme_integers_without_panicking() {
    use boundgate_verify::bounds::qdot::{
        BinPrecision, ExponentBins, Fexp, bin_score, precision_3_9, thm_3_4, thm_3_6,
    };
    use boundgate_verify::format::Format;
    assert_eq!(bin_score(0, 0, 0, -20), i64::MIN);
    assert_eq!(
        precision_3_9(bin_score(0, 0, 0, -20), &[11, 24, 53]).unwrap(),
        None
    );
    assert_eq!(bin_score(u64::MAX, i64::MAX, i64::MIN, i64::MIN), i64::MAX);
    assert_eq!(bin_score(1, i64::MIN, i64::MAX, 0), i64::MIN);
    assert_eq!(bin_score(u64::MAX, 0, 0, 0), 65);
    assert!(thm_3_6(0, 0, i64::MIN, 24));
    assert!(!thm_3_6(i64::MIN, i64::MAX, 0, 0));
    let bins = ExponentBins::new(&[1.0, 0.5], &[1.0, 1.0], Fexp::Ieee).unwrap();
    let p = [BinPrecision::Perforate, BinPrecision::Perforate];
    for e in [i64::MIN, i64::MAX, -5000] {
        assert!(thm_3_4(&bins, &p, Format::FP64, Some(e)).is_err(), "{e}");
    }
}
