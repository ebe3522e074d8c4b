//! Review (2026-11-29) of the MPFR reference (`oracle::mpfr`: `dot`, `sum`,
//! `product`, `sum_of_terms` and `MpfrResult`'s roundings and error
//! measures) against `rug::Rational`: the exact values, the IEEE special
//! values, the signed zeros by the `mpfr_sum` rule, the correct rounding into
//! fp64 and fp32 in every mode by bracketing between neighbouring
//! floating-point numbers, and the error measures (`relative_up` is claimed to
//! be exactly the ratio rounded up). Adversarial inputs: exponent spans from
//! `2^-2148` (products of subnormals) to `2^2048` and beyond for longer
//! products, thousands of terms at the top of the range (the `log2 n` part of
//! the precision argument), cancellation, ties, NaN and infinities. Seeds are
//! fixed and printed on failure.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::mpfr;
use rug::Float;

mod common;
use common::exact::{
    Reference, RelativeUp, Zeros, assert_same, check_errors_near, check_value, reference, same,
};
use common::rng::SplitMix;

/// Checks an MPFR result against the reference.
fn check(result: &mpfr::MpfrResult, reference: &Reference, context: &str) {
    check_value(
        result.non_finite(),
        || {
            result
                .exact()
                .expect("finite")
                .to_rational()
                .expect("finite")
        },
        reference,
        context,
    );
    if let Reference::Infinity { .. } = reference {
        assert!(result.exact().is_none(), "{context}");
    }
    for mode in RoundingMode::ALL {
        let r = reference.round(Format::FP64, mode);
        assert_same(
            result.round_f64(mode),
            r,
            &format!("{context}: fp64 {mode}"),
        );
        assert_same(
            result.round(Format::FP64, mode),
            r,
            &format!("{context}: round(fp64) {mode}"),
        );
        let r = reference.round(Format::FP32, mode);
        assert_same(
            result.round(Format::FP32, mode),
            r,
            &format!("{context}: fp32 {mode}"),
        );
    }
    assert!(same(
        result.to_f64(),
        reference.round(Format::FP64, RoundingMode::NearestEven)
    ));
    // `MpfrResult::error_of` is exact: `absolute_up` and `relative_up` are
    // the absolute and relative errors rounded up, no more.
    check_errors_near(
        |c| result.error_of(c),
        reference,
        &[0.0, -0.0, 1.0, -f64::MAX, f64::from_bits(1), f64::NAN],
        RelativeUp::Exact,
        context,
    );
}

fn products(x: &[f64], y: &[f64]) -> Vec<Vec<f64>> {
    x.iter().zip(y).map(|(&a, &b)| vec![a, b]).collect()
}

fn singles(x: &[f64]) -> Vec<Vec<f64>> {
    x.iter().map(|&a| vec![a]).collect()
}

#[test]
fn dot_and_sum_against_rational_reference() {
    for case in 0..4000u64 {
        let seed = 0x6d70_6400 ^ case;
        let mut rng = SplitMix(seed);
        let specials = rng.below(5) == 0;
        let n = rng.below(12) as usize;
        let x = rng.vec(n, specials);
        let mut y = rng.vec(n, specials);
        if n >= 2 && rng.below(2) == 0 {
            // Cancel the first product against the last one.
            y[n - 1] = -y[0];
            let (a, b) = (x[0], x[n - 1]);
            y[n - 1] = if b != 0.0 { -(a * y[0]) / b } else { y[n - 1] };
        }
        let context = format!("seed {seed:#x}: x {x:?}, y {y:?}");
        check(
            &mpfr::dot(&x, &y).unwrap(),
            &reference(&products(&x, &y)),
            &format!("dot {context}"),
        );
        check(
            &mpfr::sum(&x).unwrap(),
            &reference(&singles(&x)),
            &format!("sum {context}"),
        );
    }
    assert!(mpfr::dot(&[1.0], &[]).is_err());
}

#[test]
fn products_and_sums_of_terms_against_rational_reference() {
    for case in 0..3000u64 {
        let seed = 0x6d70_7000 ^ case;
        let mut rng = SplitMix(seed);
        let specials = rng.below(6) == 0;
        let terms: Vec<Vec<f64>> = (0..rng.below(6))
            .map(|_| {
                let k = rng.below(5) as usize;
                rng.vec(k, specials)
            })
            .collect();
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        for (t, p) in terms.iter().zip(&floats) {
            assert_eq!(
                p.prec(),
                53 * t.len().max(1) as u32,
                "seed {seed:#x}: {t:?}"
            );
            match reference(std::slice::from_ref(t)) {
                Reference::Nan => assert!(p.is_nan(), "seed {seed:#x}: {t:?}"),
                Reference::Infinity { negative } => {
                    assert!(p.is_infinite() && p.is_sign_negative() == negative)
                }
                Reference::Finite { value, zero } => {
                    assert_eq!(p.to_rational().unwrap(), value, "seed {seed:#x}: {t:?}");
                    if value == 0 {
                        assert_eq!(p.is_sign_negative(), zero == Zeros::Negative, "{t:?}");
                    }
                }
            }
        }
        check(
            &mpfr::sum_of_terms(&floats),
            &reference(&terms),
            &format!("sum_of_terms seed {seed:#x}: {terms:?}"),
        );
    }
}

/// Thousands of terms at the top of the range and one at the bottom: the
/// partial sums need the `ceil(log2 n)` bits of the precision argument.
#[test]
fn long_sums_at_the_top_of_the_range_are_exact() {
    let max = f64::MAX;
    let tiny = f64::from_bits(1);
    for n in [2usize, 3, 4, 5, 1023, 1024, 1025, 4097] {
        let mut x = vec![max; n];
        let mut y = vec![max; n];
        x.push(tiny);
        y.push(-tiny);
        let context = format!("{n} x MAX^2 - 2^-2148");
        check(
            &mpfr::dot(&x, &y).unwrap(),
            &reference(&products(&x, &y)),
            &context,
        );
        let mut s = vec![max; n];
        s.push(-tiny);
        check(&mpfr::sum(&s).unwrap(), &reference(&singles(&s)), &context);
        // Products of four factors: n (MAX^4) - 2^-4296.
        let mut terms = vec![vec![max; 4]; n];
        terms.push(vec![tiny, tiny, tiny, -tiny]);
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        check(&mpfr::sum_of_terms(&floats), &reference(&terms), &context);
        // Cancelling back to the bottom bit.
        let mut terms = vec![vec![max, max, max]; n];
        terms.extend(vec![vec![-max, max, max]; n]);
        terms.push(vec![tiny, tiny, tiny]);
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        check(&mpfr::sum_of_terms(&floats), &reference(&terms), &context);
    }
}

#[test]
fn zero_signs_by_the_mpfr_sum_rule() {
    let cases: &[&[f64]] = &[
        &[],
        &[-0.0],
        &[0.0],
        &[-0.0, -0.0],
        &[-0.0, 0.0],
        &[0.0, -0.0],
        &[1.0, -1.0],
        &[-1.0, 1.0, -0.0],
        &[-0.0, 1.0, -1.0],
        &[f64::from_bits(1), -f64::from_bits(1), -0.0],
    ];
    for &x in cases {
        check(
            &mpfr::sum(x).unwrap(),
            &reference(&singles(x)),
            &format!("sum {x:?}"),
        );
        let ones = vec![-1.0; x.len()];
        check(
            &mpfr::dot(x, &ones).unwrap(),
            &reference(&products(x, &ones)),
            &format!("dot {x:?} . -1"),
        );
    }
}
