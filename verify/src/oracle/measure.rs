//! [`ErrorMeasure`]: how far a computed value is from an exact one, as
//! rigorous upper bounds that bound checks can compare with.

use crate::bounds::directed::{add_up, div_up, sub_down};
use crate::format::{Fixed, Format, RoundingMode};
use rug::float::Round;
use rug::{Float, Rational};
use serde::Serialize;

/// The error of a computed value against the exact result.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{ErrorMeasure, ExactSum};
/// let mut s = ExactSum::new();
/// s.add(1.0);
/// assert_eq!(
///     s.error_of(1.5),
///     ErrorMeasure::Finite { absolute_up: 0.5, absolute_down: None, relative_up: Some(0.5), exact: 1.0 }
/// );
/// assert!(matches!(s.error_of(f64::NAN), ErrorMeasure::NonFinite { .. }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum ErrorMeasure {
    /// Both the computed value and the exact result (rounded to `f64`) are finite.
    Finite {
        /// `|computed - exact|` rounded up to an `f64` (infinite if it
        /// overflows, at least the smallest subnormal if nonzero); for an
        /// enclosure, the largest error over it, rounded up.
        absolute_up: f64,
        /// `None` when the exact result is known exactly (the MPFR, exact-sum
        /// and rational oracles): `absolute_up` is then the error rounded up,
        /// and `absolute_up > bound` decides `error > bound` exactly for any
        /// `f64` bound. `Some(d)` for an enclosure oracle, whose exact result
        /// is known only to lie in an interval (the TRSV oracle's, HotSpot3D's
        /// certified run): `d` is the least error over the enclosure, rounded
        /// down, and only `d > bound` proves `error > bound`; between the two
        /// the check is [undecided](crate::check::Outcome::Undecided).
        absolute_down: Option<f64>,
        /// An upper bound of `|computed - exact| / |exact|`: the ratio rounded
        /// up, or rarely the next `f64` above; `None` when the exact result is
        /// zero, and for an enclosure (the TRSV oracle's, whose exact solution
        /// is known to lie within `z` of a point) also when the enclosure
        /// contains zero, so that no positive lower bound on `|exact|` exists.
        relative_up: Option<f64>,
        /// The exact result rounded to nearest `f64` (ties to even).
        exact: f64,
    },
    /// The computed value or the exact result is infinite or NaN: `exact` is
    /// the IEEE result of the non-finite terms, or the rounded value of an
    /// exact result that overflows `f64`.
    NonFinite {
        /// The computed value.
        computed: f64,
        /// The exact result as an `f64` (NaN or an infinity, or finite if only
        /// `computed` is not).
        exact: f64,
    },
}

impl ErrorMeasure {
    /// The absolute error bound, if both sides are finite.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_slice(&[0.1, 0.2, 0.3]);
    /// // The naive sum's error against the exact sum of the three doubles.
    /// let naive = 0.1 + 0.2 + 0.3;
    /// let err = s.error_of(naive).absolute_up().unwrap();
    /// assert!(err > 0.0 && err <= 2f64.powi(-52)); // 0.60000000000000009 vs ~0.6
    /// assert_eq!(s.error_of(f64::INFINITY).absolute_up(), None);
    /// ```
    pub fn absolute_up(&self) -> Option<f64> {
        match *self {
            ErrorMeasure::Finite { absolute_up, .. } => Some(absolute_up),
            ErrorMeasure::NonFinite { .. } => None,
        }
    }

    /// The relative error bound, if both sides are finite and the exact
    /// result is nonzero.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(4.0);
    /// assert_eq!(s.error_of(5.0).relative_up(), Some(0.25)); // |5 - 4| / 4
    /// s.add(-4.0);
    /// // An exact zero has no relative error, even where the absolute one is 1.
    /// assert_eq!(s.error_of(1.0).relative_up(), None);
    /// assert_eq!(s.error_of(1.0).absolute_up(), Some(1.0));
    /// ```
    pub fn relative_up(&self) -> Option<f64> {
        match *self {
            ErrorMeasure::Finite { relative_up, .. } => relative_up,
            ErrorMeasure::NonFinite { .. } => None,
        }
    }

    /// The exact result rounded to nearest (or its IEEE non-finite value).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_slice(&[1e16, 1.0, -1e16]);
    /// assert_eq!(s.error_of(0.0).exact(), 1.0); // not the naive sum's 0
    /// s.add(f64::NEG_INFINITY);
    /// assert_eq!(s.error_of(0.0).exact(), f64::NEG_INFINITY);
    /// ```
    pub fn exact(&self) -> f64 {
        match *self {
            ErrorMeasure::Finite { exact, .. } | ErrorMeasure::NonFinite { exact, .. } => exact,
        }
    }

    /// Whether both sides are finite.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(f64::MAX);
    /// s.add(f64::MAX); // exact and finite, but it rounds to +inf in f64
    /// assert!(!s.error_of(f64::MAX).is_finite());
    /// s.add(-f64::MAX);
    /// assert!(s.error_of(f64::MAX).is_finite());
    /// assert!(!s.error_of(f64::NAN).is_finite());
    /// ```
    pub fn is_finite(&self) -> bool {
        matches!(self, ErrorMeasure::Finite { .. })
    }

    /// The error of a computed value against an exact result known only to
    /// lie within `radius` of a centre (an enclosure oracle's answer), from
    /// the distance `d` between the computed value and the centre, given as
    /// `(d rounded down, d rounded up)`, and the centre as `(its nearest f64,
    /// |centre| rounded down)`. The error then lies in `[d - radius, d +
    /// radius]` ([`ErrorMeasure::Finite`]'s `absolute_down` and
    /// `absolute_up`; no lower end at radius 0, where the centre is exact),
    /// and `|exact| >= |centre| - radius` bounds the relative error when that
    /// is positive. The TRSV oracle and HotSpot3D's certified run both
    /// measure through it.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// // Computed 1.5; the exact value within 0.25 of 1: the error is in [0.25, 0.75].
    /// let m = ErrorMeasure::enclosed((0.5, 0.5), 0.25, (1.0, 1.0));
    /// let ErrorMeasure::Finite { absolute_up, absolute_down, relative_up, .. } = m else { unreachable!() };
    /// assert_eq!((absolute_down, absolute_up), (Some(0.25), 0.75));
    /// assert_eq!(relative_up, Some(1.0)); // 0.75 / (1 - 0.25)
    /// ```
    pub fn enclosed(distance: (f64, f64), radius: f64, centre: (f64, f64)) -> ErrorMeasure {
        let (distance_down, distance_up) = distance;
        let (centre_nearest, centre_abs_down) = centre;
        let absolute_up = add_up(distance_up, radius);
        let absolute_down = (radius > 0.0).then(|| sub_down(distance_down, radius).max(0.0));
        // No positive lower bound on |exact| when the enclosure reaches zero:
        // no relative error, not an infinite one.
        let floor = sub_down(centre_abs_down, radius);
        let relative_up = (floor > 0.0).then(|| div_up(absolute_up, floor));
        ErrorMeasure::Finite {
            absolute_up,
            absolute_down,
            relative_up,
            exact: centre_nearest,
        }
    }

    /// The error of `computed` against an exact rational value: `exact` is
    /// its nearest `f64` ([`nearest_f64`]; [`ErrorMeasure::NonFinite`] when
    /// it overflows, or when `computed` is not finite), the absolute and
    /// relative errors rounded up (`None` for a zero exact value).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// use rug::Rational;
    /// let third = Rational::from((1, 3));
    /// let m = ErrorMeasure::of_rational(0.25, &third);
    /// assert_eq!(m.exact(), 1.0 / 3.0);
    /// assert!(m.absolute_up().unwrap() >= 1.0 / 12.0);
    /// ```
    pub fn of_rational(computed: f64, exact: &Rational) -> ErrorMeasure {
        let nearest = nearest_f64(exact);
        if !computed.is_finite() || !nearest.is_finite() {
            return ErrorMeasure::NonFinite {
                computed,
                exact: nearest,
            };
        }
        let difference = (Rational::from_f64(computed).expect("finite") - exact).abs();
        let relative_up =
            (*exact != 0).then(|| up_f64(&(difference.clone() / exact.clone().abs())));
        ErrorMeasure::Finite {
            absolute_up: up_f64(&difference),
            absolute_down: None,
            relative_up,
            exact: nearest,
        }
    }
}

/// `q` rounded up to an `f64`: to 53 bits with MPFR's unbounded exponent,
/// then up again to `f64` (one upward rounding, `f64`'s numbers being a
/// subset; rounding the 53-bit value to NEAREST `f64` could go below `q` in
/// the subnormal range).
fn up_f64(q: &Rational) -> f64 {
    Float::with_val_round(53, q, Round::Up)
        .0
        .to_f64_round(Round::Up)
}

/// `x` rounded to the nearest `f64` (ties to even), subnormals included: first
/// rounded to odd at 64 bits (toward zero, then the last bit set if inexact),
/// which a second rounding to nearest at 53 bits or fewer turns into the
/// correct rounding (Boldo and Melquiond, IEEE Trans. Computers 57(4), 2008);
/// one rounding to 53 bits with MPFR's unbounded exponent and then to `f64`
/// would round twice in the subnormal range.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::nearest_f64;
/// use rug::Rational;
/// // 2^-1075 (1 + 2^-100), just above half the smallest subnormal: rounds up
/// // to it (rounded to 53 bits first it would be the tie 2^-1075, then 0).
/// let x = (Rational::from(1) + (Rational::from(1) >> 100u32)) >> 1075u32;
/// assert_eq!(nearest_f64(&x).to_bits(), 1);
/// assert_eq!(nearest_f64(&(Rational::from(1) >> 1075u32)), 0.0); // the tie itself: to even
/// ```
pub fn nearest_f64(x: &Rational) -> f64 {
    let (mut odd, order) = Float::with_val_round(64, x, Round::Zero);
    if order != std::cmp::Ordering::Equal {
        // The last of the 64 bits is 0: step away from zero to the odd neighbour.
        let even = odd.get_significand().is_some_and(|m| m.is_even());
        if even {
            if odd.is_sign_negative() {
                odd.next_down();
            } else {
                odd.next_up();
            }
        }
    }
    odd.to_f64()
}

/// An upper bound of `d / x` for nonnegative `d` and positive `x`, given as
/// [`Fixed`] values (mantissa `m`, exponent `e`, sticky bit: the value lies in
/// `[m, m + 1) 2^e`, exactly `m 2^e` without the sticky bit).
///
/// `d` is rounded up and `x` down to at most 64 bits, the integer quotient is
/// taken with a sticky remainder, and the result rounded up to `f64`. The
/// quotient of the reduced values exceeds `d / x` by a relative `2^-62` at
/// most, so the result is `d / x` rounded up or, when that interval straddles
/// an `f64`, the next one.
pub(crate) fn relative_bound_up(d: Fixed, x: Fixed) -> f64 {
    if d.is_zero() {
        return 0.0;
    }
    let (dm, de) = reduce_to_64_bits(d, true);
    let (xm, xe) = reduce_to_64_bits(x, false);
    debug_assert!(xm > 0);
    // dm < 2^64, so dm 2^64 fits u128; dm >= 2^63 and xm < 2^64 give q >= 2^63.
    let numerator = dm << 64;
    let quotient = numerator / xm;
    let sticky = numerator % xm != 0;
    let exponent = de - 64 - xe;
    let q = Fixed::from_parts(false, quotient, exponent, sticky)
        .expect("the quotient has at least 64 bits");
    Format::FP64.round_fixed(q, RoundingMode::Up)
}

/// `(m, e)` with `m` in `[2^63, 2^64)` and `m 2^e` at least (`up`) or at most
/// (`!up`) the value of `v` (nonzero).
fn reduce_to_64_bits(v: Fixed, up: bool) -> (u128, i32) {
    let m = v.mantissa();
    let bits = 128 - m.leading_zeros() as i32;
    let drop = bits - 64;
    let (mut mantissa, mut exponent, inexact) = if drop > 0 {
        let kept = m >> drop;
        let lost = m & ((1u128 << drop) - 1) != 0;
        (kept, v.exponent() + drop, lost || v.sticky())
    } else {
        (m << (-drop), v.exponent() + drop, v.sticky())
    };
    if up && inexact {
        mantissa += 1;
        if mantissa == 1u128 << 64 {
            mantissa >>= 1;
            exponent += 1;
        }
    }
    (mantissa, exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(m: u128, e: i32, sticky: bool) -> Fixed {
        Fixed::from_parts(false, m, e, sticky).unwrap()
    }

    #[test]
    fn exact_quotients_are_correctly_rounded_up() {
        assert_eq!(
            relative_bound_up(fixed(1, 0, false), fixed(4, 0, false)),
            0.25
        );
        assert_eq!(
            relative_bound_up(fixed(1, 0, false), fixed(3, 0, false)),
            (1.0f64 / 3.0).next_up()
        );
        assert_eq!(
            relative_bound_up(fixed(0, 0, false), fixed(3, 0, false)),
            0.0
        );
        // Ratios beyond the f64 range round up to infinity / the smallest subnormal.
        assert_eq!(
            relative_bound_up(fixed(1, 2000, false), fixed(1, -1000, false)),
            f64::INFINITY
        );
        assert_eq!(
            relative_bound_up(fixed(1, -3000, false), fixed(1, 0, false)),
            f64::from_bits(1)
        );
    }

    #[test]
    fn sticky_inputs_bound_from_above() {
        // d in (2^64 - 1, 2^64), x = 1: the bound must be at least 2^64 - 1.
        let d = fixed(u64::MAX as u128, 0, true);
        assert!(relative_bound_up(d, fixed(1, 0, false)) >= 2f64.powi(64));
    }
}
