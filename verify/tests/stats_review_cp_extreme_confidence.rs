//! One-sided Clopper-Pearson bounds at confidences close to 1 (upper bound)
//! or close to 0 (lower bound), against closed forms and the defining
//! equation evaluated in MPFR (review, 2026-11-29).
//!
//! The upper bound `U` solves `P[Bin(n, U) <= k] = 1 - c` (Clopper and
//! Pearson 1934). It was found by bisection on `P[Bin(n, x) >= k + 1] >= c`,
//! the tail computed near `U` as `1 - P[X <= k]`: rounding that complement to
//! binary64 costs `2^-54` absolute, i.e. a relative error of `2^-54 / (1 - c)`
//! in the level `1 - c`. At `c = 1 - 1e-12` that was 6e-5 of the level and
//! moved `U` by 2e-6 relative; at `c = 1 - 2^-50` by 2e-4 (and downwards: the
//! "upper" bound fell below the true one). The lower bound at a confidence
//! near 0 had the mirror-image fault.

use boundgate_verify::stats::{clopper_pearson_lower, clopper_pearson_upper};
use rug::ops::Pow;
use rug::{Float, Integer};

const PREC: u32 = 512;

fn big<T>(x: T) -> Float
where
    Float: rug::Assign<T>,
{
    let mut f = Float::new(PREC);
    rug::Assign::assign(&mut f, x);
    f
}

fn assert_rel(got: f64, want: &Float, tol: f64, what: &str) {
    let rel = (Float::with_val(PREC, got - want) / want).abs().to_f64();
    assert!(
        rel <= tol,
        "{what}: got {got:e}, want {:e}, relative error {rel:e} > {tol:e}",
        want.to_f64()
    );
}

/// `-expm1(ln(a) / n)`, i.e. `1 - a^(1/n)`, in MPFR.
fn one_minus_root(a: f64, n: u64) -> Float {
    let mut e = big(a).ln();
    e /= n;
    -e.exp_m1()
}

#[test]
fn upper_bound_with_no_events_at_confidence_near_one_matches_its_closed_form() {
    // k = 0: (1 - U)^n = 1 - c, so U = 1 - (1 - c)^(1/n); 1 - c is exact in
    // binary64 for c >= 1/2 (Sterbenz), so the closed form is evaluated on it.
    for (n, c) in [
        (10u64, 1.0 - 2f64.powi(-50)),
        (1000, 1.0 - 1e-12),
        (1_000_000, 1.0 - 2f64.powi(-45)),
        (1_000_000, 1.0 - 1e-9),
    ] {
        let want = one_minus_root(1.0 - c, n);
        assert_rel(
            clopper_pearson_upper(0, n, c).unwrap(),
            &want,
            1e-12,
            &format!("upper(0, {n}, 1 - {:e})", 1.0 - c),
        );
    }
}

#[test]
fn lower_bound_with_one_event_at_confidence_near_zero_matches_its_closed_form() {
    // k = 1: P[X >= 1] = 1 - (1 - L)^n = 1 - c, so L = 1 - c^(1/n).
    for (n, c) in [
        (10u64, 2f64.powi(-50)),
        (1000, 1e-12),
        (1_000_000, 2f64.powi(-45)),
    ] {
        let want = one_minus_root(c, n);
        assert_rel(
            clopper_pearson_lower(1, n, c).unwrap(),
            &want,
            1e-12,
            &format!("lower(1, {n}, {c:e})"),
        );
    }
}

/// `P[Bin(n, x) <= k]` for a binary64 `x`, summed exactly enough in MPFR.
fn cdf(k: u64, n: u64, x: f64) -> Float {
    let x = big(x);
    let one_minus = Float::with_val(PREC, 1 - &x);
    let mut sum = big(0);
    for j in 0..=k {
        let c = Integer::from(Integer::binomial_u(n as u32, j as u32));
        let mut t = big(&c);
        t *= Float::with_val(PREC, (&x).pow(j as u32));
        t *= Float::with_val(PREC, (&one_minus).pow((n - j) as u32));
        sum += t;
    }
    sum
}

/// The returned bound is, to the tail's relative accuracy, the smallest
/// binary64 satisfying the defining inequality: the CDF in MPFR is at most
/// the level there, and at least the level one ulp below.
#[test]
fn bounds_at_extreme_confidence_solve_their_defining_equation() {
    let rel = 1e-12;
    for (k, n) in [(3u64, 200u64), (20, 200), (1, 50)] {
        for c in [1.0 - 1e-12, 1.0 - 2f64.powi(-48), 1.0 - 1e-9] {
            // Upper: P[X <= k](U) = 1 - c.
            let alpha = 1.0 - c;
            let u = clopper_pearson_upper(k, n, c).unwrap();
            let (at, below) = (cdf(k, n, u), cdf(k, n, u.next_down()));
            assert!(
                at <= alpha * (1.0 + rel) && below >= alpha * (1.0 - rel),
                "upper({k}, {n}, 1 - {alpha:e}) = {u:e}: P[X <= k] = {:e} there, {:e} one ulp below",
                at.to_f64(),
                below.to_f64()
            );
            // Lower at confidence 1 - c (near 0): P[X >= k](L) = c, i.e.
            // P[X <= k - 1](L) = 1 - c.
            let l = clopper_pearson_lower(k, n, alpha).unwrap();
            let (at, below) = (cdf(k - 1, n, l), cdf(k - 1, n, l.next_down()));
            assert!(
                at <= alpha * (1.0 + rel) && below >= alpha * (1.0 - rel),
                "lower({k}, {n}, {alpha:e}) = {l:e}: P[X <= k - 1] = {:e} there, {:e} one ulp below",
                at.to_f64(),
                below.to_f64()
            );
        }
    }
}
