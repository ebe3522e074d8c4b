//! Review of the large accumulator (`oracle::large`: `dot`, `sum`,
//! `abs_dot_up`, `ExactSum::add_slice`/`add_products`) at the edges of its
//! fast path, against exact sums in MPFR (`rug`) at a precision that holds
//! every partial sum exactly. Fixed seeds, printed.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{ExactSum, abs_dot_up, dot, sum};
use rug::Float;
use rug::float::Round;

mod common;
use common::rng::XorShift;

/// Enough bits for any sum of fewer than 2^40 exact products of f64 values
/// (from 2^-2148 to below 2^2048).
const PREC: u32 = 4300;

fn exact_dot(x: &[f64], y: &[f64], abs: bool) -> Float {
    let mut s = Float::new(PREC);
    for (&a, &b) in x.iter().zip(y) {
        let p = Float::with_val(PREC, a) * Float::with_val(PREC, b);
        let p = if abs { p.abs() } else { p };
        s += p;
    }
    s
}

fn exact_sum(x: &[f64]) -> Float {
    let mut s = Float::new(PREC);
    for &a in x {
        s += a;
    }
    s
}

fn check(acc: &ExactSum, reference: &Float, context: &str) {
    let value = acc.to_float().expect("finite");
    assert_eq!(value, *reference, "{context}");
    assert_eq!(
        acc.round(Format::FP64, RoundingMode::Up),
        reference.to_f64_round(Round::Up),
        "{context}"
    );
    assert_eq!(
        acc.round(Format::FP64, RoundingMode::Down),
        reference.to_f64_round(Round::Down),
        "{context}"
    );
}

/// Factor pairs whose products sit at the fast path's edges: `hi` at the
/// threshold `2^-916` and just below it, `lo` as low as it can be (105
/// binades below `hi`, at the bottom of the block's bin range), `hi` next to
/// the overflow threshold and beyond it, subnormal and zero factors.
fn edge_pair(rng: &mut XorShift) -> (f64, f64) {
    let sign = |rng: &mut XorShift| if rng.below(2) == 0 { 1.0 } else { -1.0 };
    let (s1, s2) = (sign(rng), sign(rng));
    let top = 2.0 - f64::EPSILON; // (2 - 2^-52)^2 = 4 - 2^-50 + 2^-104
    let (a, b) = match rng.below(10) {
        // hi = 2^-916 (1 + 2^-51), lo = 2^-1020.
        0 => {
            let e = rng.below(400) as i32;
            (
                (1.0 + f64::EPSILON) * 2f64.powi(-458 + e),
                (1.0 + f64::EPSILON) * 2f64.powi(-458 - e),
            )
        }
        // hi = (4 - 2^-50) 2^-917 in [2^-916, 2^-915), lo = 2^-1021 =
        // 2^(e_hi - 105): the lowest bin a block can use.
        1 => {
            let e = rng.below(400) as i32;
            (top * 2f64.powi(-458 + e), top * 2f64.powi(-459 - e))
        }
        // Just below the threshold (slow path), and around it.
        2 => {
            let e = rng.below(6) as i32;
            (
                rng.significand() * 2f64.powi(-460 + e),
                rng.significand() * 2f64.powi(-460),
            )
        }
        // Next to overflow, and beyond (exact product finite, hi = inf).
        3 => {
            let e = rng.below(4) as i32;
            (rng.significand() * 2f64.powi(1020 + e), rng.significand())
        }
        4 => (top * 2f64.powi(1023), top * 2f64.powi(rng.below(3) as i32)),
        // Subnormal factors.
        5 => (
            f64::from_bits(1 + rng.below(1 << 52)),
            rng.significand() * 2f64.powi(rng.below(2000) as i32 - 1000),
        ),
        6 => (0.0, rng.significand()),
        // Ordinary values with cancellation.
        _ => (
            rng.significand(),
            rng.significand() * 2f64.powi(rng.below(40) as i32 - 20),
        ),
    };
    (s1 * a, s2 * b)
}

#[test]
fn products_at_the_fast_path_edges_are_exact() {
    let seed = 0x1a7_9e5u64;
    println!("seed {seed:#x}");
    let mut rng = XorShift(seed);
    for len in [
        127usize, 128, 129, 255, 256, 257, 1023, 1024, 1025, 3000, 4097,
    ] {
        for round in 0..3 {
            let (x, y): (Vec<f64>, Vec<f64>) = (0..len).map(|_| edge_pair(&mut rng)).unzip();
            let context = format!("len {len} round {round}");
            check(&dot(&x, &y).unwrap(), &exact_dot(&x, &y, false), &context);
            let mut acc = ExactSum::new();
            acc.add_products(&x, &y).unwrap();
            acc.add_products(&y, &x).unwrap();
            let mut twice = exact_dot(&x, &y, false);
            twice *= 2;
            check(&acc, &twice, &context);
            assert_eq!(
                abs_dot_up(&x, &y).unwrap(),
                exact_dot(&x, &y, true).to_f64_round(Round::Up),
                "{context}"
            );
            // The same values as terms of a sum.
            let terms: Vec<f64> = x.iter().chain(&y).copied().collect();
            let mut acc = ExactSum::new();
            acc.add_slice(&terms);
            check(&acc, &exact_sum(&terms), &context);
            check(&sum(&terms).unwrap(), &exact_sum(&terms), &context);
        }
    }
}

/// Every first-level bin filled to its worst case: full significands of one
/// sign at one exponent, for both halves of the products (`hi` and `lo` in
/// their own bins), over many flushes.
#[test]
fn full_bins_over_many_flushes() {
    let top = 2.0 - f64::EPSILON;
    let n = 50_000;
    for sign in [1.0, -1.0] {
        let x = vec![sign * top; n];
        let y = vec![top; n];
        check(&dot(&x, &y).unwrap(), &exact_dot(&x, &y, false), "dot");
        check(&sum(&x).unwrap(), &exact_sum(&x), "sum");
        let big = vec![sign * f64::MAX; n];
        check(&sum(&big).unwrap(), &exact_sum(&big), "sum of MAX");
        check(
            &dot(&big, &y).unwrap(),
            &exact_dot(&big, &y, false),
            "dot of MAX",
        );
    }
}

/// Exact zeros of long inputs take the IEEE sign in every rounding mode.
#[test]
fn signed_zeros_of_long_inputs() {
    for len in [128usize, 1025] {
        let neg = vec![-0.0; len];
        let ones = vec![1.0; len];
        let s = dot(&neg, &ones).unwrap();
        for mode in RoundingMode::ALL {
            assert!(s.round(Format::FP64, mode).is_sign_negative(), "{mode:?}");
        }
        // -0 * -1 = +0: all terms +0.
        let minus: Vec<f64> = ones.iter().map(|v| -v).collect();
        let s = dot(&neg, &minus).unwrap();
        for mode in RoundingMode::ALL {
            assert!(s.round(Format::FP64, mode).is_sign_positive(), "{mode:?}");
        }
        // Nonzero terms that cancel: +0, -0 toward -infinity.
        let mut x = vec![2f64.powi(-460); len];
        x[len - 1] = -(2f64.powi(-460) * (len - 1) as f64);
        let y = vec![2f64.powi(-460); len]; // products 2^-920 < 2^-916: slow path
        let s = dot(&x, &y).unwrap();
        assert!(s.is_zero());
        assert!(s.to_f64().is_sign_positive());
        assert!(s.round(Format::FP64, RoundingMode::Down).is_sign_negative());
    }
}
