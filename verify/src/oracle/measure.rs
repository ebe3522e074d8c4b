//! [`ErrorMeasure`]: how far a computed value is from an exact one, as
//! rigorous upper bounds that bound checks can compare with.

use crate::format::{Fixed, Format, RoundingMode};
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
///     ErrorMeasure::Finite { absolute_up: 0.5, relative_up: Some(0.5), exact: 1.0 }
/// );
/// assert!(matches!(s.error_of(f64::NAN), ErrorMeasure::NonFinite { .. }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum ErrorMeasure {
    /// Both the computed value and the exact result (rounded to `f64`) are finite.
    Finite {
        /// `|computed - exact|` rounded up to an `f64` (infinite if it
        /// overflows, at least the smallest subnormal if nonzero).
        absolute_up: f64,
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
    pub fn absolute_up(&self) -> Option<f64> {
        match *self {
            ErrorMeasure::Finite { absolute_up, .. } => Some(absolute_up),
            ErrorMeasure::NonFinite { .. } => None,
        }
    }

    /// The relative error bound, if both sides are finite and the exact
    /// result is nonzero.
    pub fn relative_up(&self) -> Option<f64> {
        match *self {
            ErrorMeasure::Finite { relative_up, .. } => relative_up,
            ErrorMeasure::NonFinite { .. } => None,
        }
    }

    /// The exact result rounded to nearest (or its IEEE non-finite value).
    pub fn exact(&self) -> f64 {
        match *self {
            ErrorMeasure::Finite { exact, .. } | ErrorMeasure::NonFinite { exact, .. } => exact,
        }
    }

    /// Whether both sides are finite.
    pub fn is_finite(&self) -> bool {
        matches!(self, ErrorMeasure::Finite { .. })
    }
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
