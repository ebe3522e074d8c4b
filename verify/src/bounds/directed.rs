//! Upward and downward rounded `f64` arithmetic, so that evaluating a bound in
//! floating point never gives less than the bound itself (and a probability
//! never more).
//!
//! The basic operations use error-free transformations: `s = fl(a + b)` and the
//! exact remainder from TwoSum tell on which side of `s` the exact sum lies,
//! and likewise FMA gives the exact remainder of a product, quotient or square
//! root (Muller et al., *Handbook of Floating-Point Arithmetic*, 2nd ed., §4.3,
//! §4.4). Where the remainder may itself underflow the result is moved
//! outward anyway, which is conservative. Transcendental functions go through
//! MPFR, which rounds correctly in the requested direction.

use rug::Float;
use rug::float::Round;

/// Below this, remainders of products and quotients may be inexact.
const TINY: f64 = 1.0e-290;

/// `2^600`: scales a divisor below [`TINY`] to above it (`2^-1074 2^600 =
/// 2^-474`) without changing the quotient.
const SCALE_600: f64 = 4.149515568880993e180;

fn up_if(x: f64, exact_above: bool) -> f64 {
    if exact_above { x.next_up() } else { x }
}

fn down_if(x: f64, exact_below: bool) -> f64 {
    if exact_below { x.next_down() } else { x }
}

/// The directed result for an operation on finite operands whose
/// round-to-nearest result `r` is infinite (or NaN): the exact result is finite,
/// so rounding toward zero's side gives the largest finite value.
fn overflowed(r: f64, operands_finite: bool, up: bool) -> f64 {
    if r.is_nan() || !operands_finite {
        return r;
    }
    match (r > 0.0, up) {
        (true, false) => f64::MAX,
        (false, true) => -f64::MAX,
        _ => r,
    }
}

/// The tiny-range fallback of the products and quotients: the rounded-to-
/// nearest result `r` moved one ulp outward, `up` or down, but not across
/// zero against the exact result's known sign (`negative`): a nonzero
/// product or quotient of positive numbers is above 0, so 0 is a lower bound
/// of it (the step down from +0 gave -2^-1074, a "lower bound" of a positive
/// number below zero, which made the trsv oracle's backward errors 0 or
/// negative; review, 2026-11-29), and likewise -0 above a negative one.
fn outward_tiny(r: f64, negative: bool, up: bool) -> f64 {
    match (up, negative) {
        (false, false) => r.next_down().max(0.0),
        (true, true) => r.next_up().min(-0.0),
        (false, true) => r.next_down(),
        (true, false) => r.next_up(),
    }
}

/// The exact remainder `a + b - s` of `s = fl(a + b)` (finite `s`).
fn sum_remainder(a: f64, b: f64) -> f64 {
    crate::format::arith::two_sum(a, b).1
}

/// `a + b` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::add_up;
/// assert!(add_up(1.0, 1e-30) > 1.0);
/// assert_eq!(add_up(1.0, 2.0), 3.0);
/// ```
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return overflowed(s, a.is_finite() && b.is_finite(), true);
    }
    up_if(s, sum_remainder(a, b) > 0.0)
}

/// `a + b` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{add_down, add_up};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// // 1 + 2^-60 lies strictly between 1 and its successor.
/// assert_eq!(add_down(1.0, 2f64.powi(-60)), 1.0);
/// assert_eq!(add_up(1.0, 2f64.powi(-60)), 1f64.next_up());
/// // The exact sum rounded toward -infinity, bit for bit; an overflowing
/// // exact sum 2e308 rounds down to the largest finite value.
/// for (a, b) in [(0.1, 0.2), (-0.1, -0.2), (1e308, 1e308)] {
///     let mut s = ExactSum::new();
///     s.add_slice(&[a, b]);
///     assert_eq!(add_down(a, b), s.round(Format::FP64, RoundingMode::Down));
/// }
/// assert_eq!(add_down(1e308, 1e308), f64::MAX);
/// ```
pub fn add_down(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return overflowed(s, a.is_finite() && b.is_finite(), false);
    }
    down_if(s, sum_remainder(a, b) < 0.0)
}

/// `a - b` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::sub_up;
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// // 1 - 2^-60 lies strictly between 1 - 2^-53 and 1: rounded up, 1.
/// assert_eq!(sub_up(1.0, 2f64.powi(-60)), 1.0);
/// // The exact difference rounded toward +infinity; -2e308 rounds up to -MAX.
/// for (a, b) in [(0.3, 0.1), (0.1, 0.3), (-1e308, 1e308)] {
///     let mut s = ExactSum::new();
///     s.add_slice(&[a, -b]);
///     assert_eq!(sub_up(a, b), s.round(Format::FP64, RoundingMode::Up));
/// }
/// assert_eq!(sub_up(-1e308, 1e308), -f64::MAX);
/// ```
pub fn sub_up(a: f64, b: f64) -> f64 {
    add_up(a, -b)
}

/// `a - b` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{sub_down, sub_up};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// // 1 - 2^-60: rounded down it is the predecessor of 1.
/// assert_eq!(sub_down(1.0, 2f64.powi(-60)), 1f64.next_down());
/// for (a, b) in [(0.3, 0.1), (0.1, 0.3), (1e308, -1e308)] {
///     let mut s = ExactSum::new();
///     s.add_slice(&[a, -b]);
///     assert_eq!(sub_down(a, b), s.round(Format::FP64, RoundingMode::Down));
/// }
/// // An exact difference needs no widening.
/// assert_eq!((sub_down(0.75, 0.5), sub_up(0.75, 0.5)), (0.25, 0.25));
/// ```
pub fn sub_down(a: f64, b: f64) -> f64 {
    add_down(a, -b)
}

/// `a * b` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::mul_up;
/// let third = 1.0 / 3.0;
/// assert!(mul_up(third, 3.0) >= 1.0);
/// ```
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return overflowed(p, a.is_finite() && b.is_finite(), true);
    }
    if p.abs() < TINY && a != 0.0 && b != 0.0 {
        return outward_tiny(p, (a < 0.0) != (b < 0.0), true);
    }
    up_if(p, a.mul_add(b, -p) > 0.0)
}

/// `a b c` for non-negative factors, rounded toward +infinity, multiplied
/// in an order whose intermediate does not overflow unless the product does
/// (smallest times largest first: if the middle factor is below 1 so is the
/// smallest, and the first product is at most the largest factor; otherwise
/// it is at most the product). An exact zero factor gives 0 even beside an
/// infinity: callers pass `+inf` only as an upward rounding of a finite real
/// (a reciprocal of a tiny scale), whose product with 0 is 0.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{mul_up, product3_up};
/// // (1e300 * 1e300) * 1e-300 overflows; 1e-300 * 1e300 first does not.
/// assert!(mul_up(mul_up(1e300, 1e300), 1e-300).is_infinite());
/// assert!(product3_up(1e300, 1e300, 1e-300) >= 1e300);
/// assert!(product3_up(1e300, 1e300, 1e-300) <= 1e300f64.next_up().next_up());
/// assert_eq!(product3_up(0.0, f64::INFINITY, 2.0), 0.0);
/// ```
pub fn product3_up(a: f64, b: f64, c: f64) -> f64 {
    if a == 0.0 || b == 0.0 || c == 0.0 {
        return 0.0;
    }
    let mut f = [a, b, c];
    f.sort_by(f64::total_cmp);
    mul_up(mul_up(f[0], f[2]), f[1])
}

/// The enclosure `[lo, hi]` of a sum widened by the exact product `a b`
/// (of any signs): `[lo + RD(a b), hi + RU(a b)]`, each end rounded outward.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::add_product_enclosure;
/// let e = add_product_enclosure((1.0, 1.0), 0.1, -3.0);
/// // 1 + 0.1 (-3) = 0.69999999999999998..., between the ends.
/// assert!(e.0 < e.1 && e.0 <= 0.7 && e.1 > 0.7);
/// ```
pub fn add_product_enclosure((lo, hi): (f64, f64), a: f64, b: f64) -> (f64, f64) {
    (add_down(lo, mul_down(a, b)), add_up(hi, mul_up(a, b)))
}

/// `a * b` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{mul_down, mul_up};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// // fl(1/3) = (2^54 - 1) / (3 2^54), so 3 fl(1/3) = 1 - 2^-54 exactly.
/// let third = 1.0 / 3.0;
/// assert_eq!(mul_down(third, 3.0), 1f64.next_down());
/// assert_eq!(mul_up(third, 3.0), 1.0);
/// for (a, b) in [(0.1, 0.7), (-0.1, 0.7), (1e300, 1e10)] {
///     let mut s = ExactSum::new();
///     s.add_product(a, b);
///     assert_eq!(mul_down(a, b), s.round(Format::FP64, RoundingMode::Down));
/// }
/// ```
pub fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return overflowed(p, a.is_finite() && b.is_finite(), false);
    }
    if p.abs() < TINY && a != 0.0 && b != 0.0 {
        return outward_tiny(p, (a < 0.0) != (b < 0.0), false);
    }
    down_if(p, a.mul_add(b, -p) < 0.0)
}

/// `a / b` rounded toward +infinity (b != 0).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{div_down, div_up};
/// use boundgate_verify::oracle::ExactSum;
/// use std::cmp::Ordering;
/// // q >= a / b (b > 0) exactly when q b - a >= 0, decided on the exact remainder.
/// for (a, b) in [(1.0, 3.0), (-2.0, 7.0), (1e-300, 3e10), (1.0, 1e-300)] {
///     let q = div_up(a, b);
///     let mut r = ExactSum::new();
///     r.add_product(q, b);
///     r.add(-a);
///     assert_eq!(r.signum(), Ordering::Greater);
///     assert!(div_down(a, b) < q);
/// }
/// // Correctly rounded away from the tiny range: one ulp above the rounded-down quotient.
/// assert_eq!(div_up(1.0, 3.0), div_down(1.0, 3.0).next_up());
/// assert_eq!(div_up(6.0, 3.0), 2.0); // exact
/// ```
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return overflowed(q, a.is_finite() && b.is_finite() && b != 0.0, true);
    }
    if b.abs() < TINY {
        // Both scaled by 2^600, exactly (powers of two; |a| < 2^61 since the
        // quotient is finite): the same quotient with a divisor whose
        // remainder can be exact. Moving outward instead turned a quotient of
        // f64::MAX, rounded up correctly, into +inf (127 / (127 / MAX), the
        // reciprocal scale of a matrix entry equal to MAX; found by review,
        // 2026-11-26).
        return div_up(a * SCALE_600, b * SCALE_600);
    }
    // The remainder a - q b is exact only if it does not underflow: it is a
    // multiple of ulp(q) ulp(b) below ulp(q) |b| ~ 2^-52 |a|, so a tiny
    // quotient or dividend (2^-980 or so) moves outward instead.
    if a != 0.0 && (q.abs() < TINY || a.abs() < TINY) {
        return outward_tiny(q, (a < 0.0) != (b < 0.0), true);
    }
    // a - q b is exact; a/b - q has the sign of (a - q b) / b.
    let r = (-q).mul_add(b, a);
    up_if(q, (r > 0.0) == (b > 0.0) && r != 0.0)
}

/// `a / b` rounded toward -infinity (b != 0).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::div_down;
/// use boundgate_verify::oracle::ExactSum;
/// use std::cmp::Ordering;
/// // q <= a / b (b > 0) exactly when q b - a <= 0; for a negative divisor the sign flips.
/// for (a, b) in [(1.0, 3.0), (-2.0, 7.0), (2.0, -7.0), (1e-300, 3e10)] {
///     let q = div_down(a, b);
///     let mut r = ExactSum::new();
///     r.add_product(q, b);
///     r.add(-a);
///     let below = if b > 0.0 { Ordering::Less } else { Ordering::Greater };
///     assert_eq!(r.signum(), below);
/// }
/// assert_eq!(div_down(-6.0, 3.0), -2.0); // exact
/// ```
pub fn div_down(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return overflowed(q, a.is_finite() && b.is_finite() && b != 0.0, false);
    }
    if b.abs() < TINY {
        return div_down(a * SCALE_600, b * SCALE_600); // as div_up
    }
    if a != 0.0 && (q.abs() < TINY || a.abs() < TINY) {
        return outward_tiny(q, (a < 0.0) != (b < 0.0), false); // as div_up
    }
    let r = (-q).mul_add(b, a);
    down_if(q, (r < 0.0) == (b > 0.0) && r != 0.0)
}

/// `sqrt(a)` rounded toward +infinity (a >= 0).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{sqrt_down, sqrt_up};
/// use boundgate_verify::oracle::ExactSum;
/// use std::cmp::Ordering;
/// // s >= sqrt(2) exactly when s^2 - 2 >= 0, decided exactly.
/// let s = sqrt_up(2.0);
/// let mut r = ExactSum::new();
/// r.add_product(s, s);
/// r.add(-2.0);
/// assert_eq!(r.signum(), Ordering::Greater);
/// assert_eq!(s, sqrt_down(2.0).next_up()); // one ulp wide
/// assert_eq!(sqrt_up(6.25), 2.5); // exact
/// ```
pub fn sqrt_up(a: f64) -> f64 {
    let s = a.sqrt();
    if !s.is_finite() || s == 0.0 {
        return s;
    }
    if a < TINY {
        return s.next_up();
    }
    up_if(s, (-s).mul_add(s, a) > 0.0)
}

/// `sqrt(a)` rounded toward -infinity (a >= 0).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::sqrt_down;
/// use boundgate_verify::oracle::ExactSum;
/// use std::cmp::Ordering;
/// for a in [2.0, 0.1, 1e300, 1e-310] {
///     let s = sqrt_down(a);
///     let mut r = ExactSum::new();
///     r.add_product(s, s);
///     r.add(-a);
///     assert_eq!(r.signum(), Ordering::Less); // s^2 < a: below the root
/// }
/// assert_eq!(sqrt_down(0.0), 0.0);
/// assert_eq!(sqrt_down(6.25), 2.5); // exact
/// ```
pub fn sqrt_down(a: f64) -> f64 {
    let s = a.sqrt();
    if !s.is_finite() || s == 0.0 {
        return s;
    }
    if a < TINY {
        return s.next_down();
    }
    down_if(s, (-s).mul_add(s, a) < 0.0)
}

fn mpfr_unary(
    x: f64,
    round: Round,
    f: impl FnOnce(&mut Float, Round) -> std::cmp::Ordering,
) -> f64 {
    let mut v = Float::with_val(53, x);
    f(&mut v, round);
    v.to_f64_round(round)
}

/// `exp(x)` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{exp_up, exp_down};
/// assert!(exp_down(1.0) < exp_up(1.0));
/// assert!(exp_down(1.0) <= std::f64::consts::E && std::f64::consts::E <= exp_up(1.0));
/// ```
pub fn exp_up(x: f64) -> f64 {
    mpfr_unary(x, Round::Up, |v, r| v.exp_round(r))
}

/// `exp(x)` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{exp_down, exp_up};
/// assert_eq!(exp_down(0.0), 1.0); // exact
/// // e is irrational: the two directed roundings are adjacent and the
/// // nearest one, `E`, is one of them.
/// assert_eq!(exp_down(1.0).next_up(), exp_up(1.0));
/// assert!(exp_down(1.0) == std::f64::consts::E || exp_up(1.0) == std::f64::consts::E);
/// // exp(-1000) ~ 5e-435 underflows: 0 rounded down, the smallest subnormal up.
/// assert_eq!(exp_down(-1000.0), 0.0);
/// assert_eq!(exp_up(-1000.0), f64::from_bits(1));
/// ```
pub fn exp_down(x: f64) -> f64 {
    mpfr_unary(x, Round::Down, |v, r| v.exp_round(r))
}

/// `exp(x) - 1` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::expm1_up;
/// // expm1(x) = x + x^2/2 + ...: for x = 1e-20 the excess 5e-41 is far below
/// // ulp(x) ~ 1.5e-36, so the exact value lies strictly between x and its successor.
/// let x = 1e-20;
/// assert_eq!(expm1_up(x), x.next_up());
/// assert_eq!(expm1_up(-x), (-x).next_up());
/// assert_eq!(expm1_up(0.0), 0.0);
/// ```
pub fn expm1_up(x: f64) -> f64 {
    mpfr_unary(x, Round::Up, |v, r| v.exp_m1_round(r))
}

/// `exp(x) - 1` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{expm1_down, expm1_up};
/// // As for `expm1_up`: x < expm1(x) < next_up(x) for x = +-1e-20.
/// let x = 1e-20;
/// assert_eq!(expm1_down(x), x);
/// assert_eq!(expm1_down(-x), -x);
/// // expm1(1) = e - 1 is irrational: the roundings are adjacent.
/// assert_eq!(expm1_down(1.0).next_up(), expm1_up(1.0));
/// ```
pub fn expm1_down(x: f64) -> f64 {
    mpfr_unary(x, Round::Down, |v, r| v.exp_m1_round(r))
}

/// `ln(x)` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{ln_down, ln_up};
/// assert_eq!(ln_up(1.0), 0.0); // exact
/// // ln 2 is irrational: adjacent roundings, the nearest `LN_2` one of them.
/// assert_eq!(ln_down(2.0).next_up(), ln_up(2.0));
/// assert!(ln_up(2.0) == std::f64::consts::LN_2 || ln_down(2.0) == std::f64::consts::LN_2);
/// ```
pub fn ln_up(x: f64) -> f64 {
    mpfr_unary(x, Round::Up, |v, r| v.ln_round(r))
}

/// `ln(x)` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{ln_down, ln_up};
/// assert_eq!(ln_down(1.0), 0.0); // exact
/// // ln 10 is irrational: adjacent roundings around the nearest `LN_10`.
/// assert_eq!(ln_down(10.0).next_up(), ln_up(10.0));
/// assert!(ln_down(10.0) <= std::f64::consts::LN_10 && std::f64::consts::LN_10 <= ln_up(10.0));
/// assert_eq!(ln_down(0.0), f64::NEG_INFINITY);
/// ```
pub fn ln_down(x: f64) -> f64 {
    mpfr_unary(x, Round::Down, |v, r| v.ln_round(r))
}

/// `ln(1 + x)` rounded toward +infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::ln1p_up;
/// // ln(1 + x) = x - x^2/2 + ...: for x = 1e-20 the deficit 5e-41 is far below
/// // ulp(x) ~ 1.5e-36, so the exact value lies strictly between pred(x) and x.
/// let x = 1e-20;
/// assert_eq!(ln1p_up(x), x);
/// assert_eq!(ln1p_up(0.0), 0.0);
/// ```
pub fn ln1p_up(x: f64) -> f64 {
    mpfr_unary(x, Round::Up, |v, r| v.ln_1p_round(r))
}

/// `ln(1 + x)` rounded toward -infinity.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{ln1p_down, ln1p_up};
/// // As for `ln1p_up`: pred(x) < ln(1 + x) < x for x = 1e-20.
/// let x = 1e-20;
/// assert_eq!(ln1p_down(x), x.next_down());
/// // ln(1 + 1) = ln 2, irrational: adjacent roundings.
/// assert_eq!(ln1p_down(1.0).next_up(), ln1p_up(1.0));
/// ```
pub fn ln1p_down(x: f64) -> f64 {
    mpfr_unary(x, Round::Down, |v, r| v.ln_1p_round(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product or quotient whose exact value is tiny keeps its sign's side
    /// of zero in the direction that allows it: a lower bound of a positive
    /// one is at least +0 (it was -2^-1074), an upper bound of a negative one
    /// at most -0; the other directions move outward as before. Every result
    /// is still on its side of the exact value (MPFR at 2200 bits).
    #[test]
    fn tiny_results_do_not_cross_zero_against_their_sign() {
        use rug::Float;
        let tiny = [1e-200, 2f64.powi(-1074), 1e-160, 3e-300];
        // [lo, hi] encloses `exact`, and stays on the side of zero its sign allows.
        let check = |what: String, (lo, hi): (f64, f64), exact: Float, positive: bool| {
            assert!(lo <= exact && exact <= hi, "{what}: [{lo:e}, {hi:e}]");
            if positive {
                assert!(lo >= 0.0, "{what}: lower bound {lo:e} below 0");
            } else {
                assert!(hi <= 0.0, "{what}: upper bound {hi:e} above 0");
            }
        };
        for &a in &tiny {
            for &b in &tiny {
                for (sa, sb) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
                    let (x, y) = (sa * a, sb * b);
                    let positive = (sa * sb) > 0.0;
                    let exact = Float::with_val(2200, x) * Float::with_val(2200, y);
                    check(
                        format!("{x:e} * {y:e}"),
                        (mul_down(x, y), mul_up(x, y)),
                        exact,
                        positive,
                    );
                    let big = 1e300 * sb;
                    let exact = Float::with_val(2200, x) / Float::with_val(2200, big);
                    check(
                        format!("{x:e} / {big:e}"),
                        (div_down(x, big), div_up(x, big)),
                        exact,
                        positive,
                    );
                }
            }
        }
    }

    fn exact(a: f64) -> Float {
        Float::with_val(4096, a)
    }

    #[test]
    fn basic_ops_bracket_the_exact_result() {
        let values = [
            1.0,
            3.0,
            0.1,
            -7.25,
            1e-300,
            1e300,
            2f64.powi(-1060),
            1.0 / 3.0,
            -2.5e-8,
        ];
        for &a in &values {
            for &b in &values {
                let s = exact(a) + exact(b);
                assert!(
                    Float::with_val(4096, add_down(a, b)) <= s && s <= add_up(a, b),
                    "{a}+{b}"
                );
                let p = exact(a) * exact(b);
                assert!(
                    Float::with_val(4096, mul_down(a, b)) <= p && p <= mul_up(a, b),
                    "{a}*{b}"
                );
                let q = exact(a) / exact(b);
                assert!(
                    Float::with_val(4096, div_down(a, b)) <= q && q <= div_up(a, b),
                    "{a}/{b}"
                );
                // Tightness: at most one ulp apart.
                assert!(
                    add_up(a, b) <= add_down(a, b).next_up().next_up() || !add_up(a, b).is_finite()
                );
            }
            if a >= 0.0 {
                let r = exact(a).sqrt();
                assert!(Float::with_val(4096, sqrt_down(a)) <= r && r <= sqrt_up(a));
            }
        }
    }

    /// A small operand and one near f64::MAX of the other sign: TwoSum's
    /// `s - a` overflowed, the remainder was NaN and the sum was not moved
    /// (add_down(-3 x 2^970, MAX) was above the exact sum; found by review,
    /// 2026-11-25).
    #[test]
    fn sums_near_the_largest_f64_round_outward() {
        let smalls = [3.0 * 2f64.powi(970), 2f64.powi(971) + 2f64.powi(919), 1.0];
        for &small in &smalls {
            for (a, b) in [(-small, f64::MAX), (small, -f64::MAX), (f64::MAX, -small)] {
                let s = exact(a) + exact(b);
                assert!(
                    Float::with_val(4096, add_down(a, b)) <= s,
                    "add_down({a:e}, {b:e})"
                );
                assert!(s <= add_up(a, b), "add_up({a:e}, {b:e})");
                assert!(
                    add_up(a, b) <= add_down(a, b).next_up(),
                    "one ulp apart at most"
                );
            }
        }
    }

    /// A divisor below the guard no longer moves a correct quotient outward:
    /// `127 / (127 / MAX)` (the reciprocal scale of an entry equal to
    /// f64::MAX) is MAX or just below it exactly, and rounds up to a finite
    /// value, not +inf; quotients with tiny and subnormal divisors stay
    /// correctly directed (against MPFR).
    #[test]
    fn a_tiny_divisor_keeps_a_quotient_near_max_finite() {
        let lambda = 127.0 / f64::MAX;
        let exact_q = exact(127.0) / exact(lambda);
        let up = div_up(127.0, lambda);
        assert!(up.is_finite() && exact(up) >= exact_q, "{up:e}");
        let down = div_down(-127.0, lambda);
        assert!(
            down.is_finite() && exact(down) <= -exact_q.clone(),
            "{down:e}"
        );
        assert_eq!(SCALE_600, 2f64.powi(600));
        let divisors = [
            lambda,
            f64::from_bits(1),
            f64::from_bits(3),
            1e-300,
            -7e-295,
        ];
        let dividends = [1.0, -3.0, 1e-300, 5e-324, 1e17, 0.0];
        for &b in &divisors {
            for &a in &dividends {
                let q = exact(a) / exact(b);
                let (u, d) = (div_up(a, b), div_down(a, b));
                assert!(
                    Float::with_val(4096, u) >= q,
                    "div_up({a:e}, {b:e}) = {u:e}"
                );
                assert!(
                    Float::with_val(4096, d) <= q,
                    "div_down({a:e}, {b:e}) = {d:e}"
                );
                let nearest = a / b;
                if nearest.is_finite() {
                    assert!(
                        u <= nearest.next_up() && d >= nearest.next_down(),
                        "{a:e} / {b:e}"
                    );
                }
            }
        }
    }

    /// A dividend near 2^-980 whose FMA remainder `a - q b` underflows to 0
    /// while `q` and `b` are above the old guard: the quotient rounded to
    /// nearest was returned unchanged although the exact one lies beyond it
    /// (found by review, 2026-11-25; both directions).
    #[test]
    fn a_tiny_dividend_whose_remainder_underflows_still_rounds_outward() {
        let p2 = |e: i32| 2f64.powi(e);
        let third = ((1u64 << 52) - 1) / 3;
        let cases = [
            (
                p2(-17) * (1.0 + 3.0 * p2(-52)),
                p2(-963) * (1.0 + third as f64 * p2(-52)),
            ),
            (p2(-17) * (1.0 + p2(-52)), p2(-963) * (1.0 + p2(-52))),
        ];
        for (q, b) in cases {
            let a = q * b;
            assert!(a.abs() < TINY && q.abs() > TINY && b.abs() > TINY);
            let exact_q = exact(a) / exact(b);
            assert!(exact_q != a / b, "the case needs an inexact quotient");
            assert!(exact_q <= div_up(a, b), "div_up({a:e}, {b:e})");
            assert!(
                Float::with_val(4096, div_down(a, b)) <= exact_q,
                "div_down({a:e}, {b:e})"
            );
        }
    }
}
