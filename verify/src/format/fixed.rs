//! Integer representations of real numbers used for rounding.
//!
//! [`Exact`] is a dyadic rational `±m 2^e` known exactly (an `f64`, or an exact
//! product of two). [`Fixed`] is what rounding consumes: `±(m + f) 2^e` with
//! `0 <= f < 1` known only through its sticky bit (`f > 0`). A sticky `Fixed`
//! always carries at least 64 significant bits, more than any format here needs
//! (p <= 53 plus a round bit), so rounding it is exact for every mode.

use rug::{Float, Integer};

/// A real number `±(mantissa + f) 2^exponent`, where `0 <= f < 1` and `sticky`
/// says whether `f > 0`. Invariant: a sticky value has `mantissa >= 2^63`.
///
/// # Example
/// ```
/// use boundgate_verify::format::{Fixed, Format, RoundingMode};
/// // 3 * 2^-2 = 0.75, exactly.
/// let x = Fixed::from_parts(false, 3, -2, false).unwrap();
/// assert_eq!(Format::FP16.round_fixed(x, RoundingMode::NearestEven), 0.75);
/// // A sticky value needs guard bits: refused with a short mantissa.
/// assert!(Fixed::from_parts(false, 3, -2, true).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixed {
    negative: bool,
    mantissa: u128,
    exponent: i32,
    sticky: bool,
}

/// Smallest mantissa a sticky [`Fixed`] may have.
const STICKY_MIN_MANTISSA: u128 = 1 << 63;

/// The largest `|exponent|` a [`Fixed`] takes: far beyond every format's
/// range (though not beyond every MPFR number's: [`Fixed::from_float`]
/// replaces those near MPFR's default least exponent, `1 - 2^30`), and small
/// enough that no exponent derived from it (`exponent + 127`, a format's
/// shift) overflows `i32`. An exponent of `i32::MAX` overflowed in
/// [`Fixed::top_exponent`] (review, 2026-11-29).
///
/// # Example
/// ```
/// use boundgate_verify::format::{Fixed, MAX_EXPONENT_MAGNITUDE};
/// assert!(Fixed::from_parts(false, 1, MAX_EXPONENT_MAGNITUDE, false).is_some());
/// assert!(Fixed::from_parts(false, 1, MAX_EXPONENT_MAGNITUDE + 1, false).is_none());
/// assert!(Fixed::from_parts(false, 1, -MAX_EXPONENT_MAGNITUDE - 1, false).is_none());
/// ```
pub const MAX_EXPONENT_MAGNITUDE: i32 = 1 << 30;

impl Fixed {
    /// Builds a value; `None` if `sticky` is set with fewer than 64 significant
    /// bits, or if `|exponent|` exceeds [`MAX_EXPONENT_MAGNITUDE`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Fixed, Format, RoundingMode};
    /// let x = Fixed::from_parts(true, 5, 3, false).unwrap(); // -5 * 2^3
    /// assert_eq!((x.negative(), x.mantissa(), x.exponent(), x.sticky()), (true, 5, 3, false));
    /// assert_eq!(Format::FP16.round_fixed(x, RoundingMode::NearestEven), -40.0);
    /// // A sticky bit needs at least 64 significant bits below it.
    /// assert!(Fixed::from_parts(false, (1 << 63) - 1, 0, true).is_none());
    /// assert!(Fixed::from_parts(false, 1 << 63, 0, true).is_some());
    /// assert!(Fixed::from_parts(false, 2, i32::MAX, false).is_none());
    /// ```
    pub fn from_parts(
        negative: bool,
        mantissa: u128,
        exponent: i32,
        sticky: bool,
    ) -> Option<Fixed> {
        if (sticky && mantissa < STICKY_MIN_MANTISSA)
            || exponent.unsigned_abs() > MAX_EXPONENT_MAGNITUDE.unsigned_abs()
        {
            return None;
        }
        Some(Fixed {
            negative,
            mantissa,
            exponent,
            sticky,
        })
    }

    /// The exact value of a finite `f64` (the sign of zero is kept).
    ///
    /// # Panics
    /// Never for finite input; non-finite input is a caller bug (`debug_assert`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Fixed;
    /// // 0.75 = 1.5 * 2^-1: the 53-bit significand 3 * 2^51 times 2^-53.
    /// let x = Fixed::from_f64(0.75);
    /// assert_eq!((x.mantissa(), x.exponent(), x.sticky()), (3u128 << 51, -53, false));
    /// // Subnormals: the raw fraction times 2^-1074; the sign of zero is kept.
    /// assert_eq!(Fixed::from_f64(f64::from_bits(1)), Fixed::from_parts(false, 1, -1074, false).unwrap());
    /// assert!(Fixed::from_f64(-0.0).negative() && Fixed::from_f64(-0.0).is_zero());
    /// ```
    pub fn from_f64(x: f64) -> Fixed {
        debug_assert!(x.is_finite());
        let bits = x.to_bits();
        let negative = bits >> 63 == 1;
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        let (mantissa, exponent) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1u64 << 52), biased - 1075)
        };
        Fixed {
            negative,
            mantissa: mantissa as u128,
            exponent,
            sticky: false,
        }
    }

    /// The value of a finite MPFR number, compressed to 127 bits and a sticky
    /// bit; `None` for NaN and the infinities.
    ///
    /// A value whose compressed exponent would lie beyond
    /// [`MAX_EXPONENT_MAGNITUDE`] (one within 126 bits of MPFR's default least
    /// exponent, `1 - 2^30`, or past a widened MPFR range) cannot be held; it
    /// is replaced by a stand-in of the same sign that every format rounds the
    /// same way in every mode: a tiny value by a sticky one in `(2^(63 - 2^30),
    /// 2^(64 - 2^30))` (nonzero, and far below half of any format's least
    /// quantum, `2^-1074`), a huge one by `2^(2^30)` (beyond every format's
    /// range). Such values used to give `None`, and `Format::round_float` then
    /// rounded their `f64` conversion, made to nearest: `2^-1073741800`
    /// rounded upward to fp16 gave 0, not `2^-24` (found by review).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Fixed, Format, RoundingMode};
    /// use rug::Float;
    /// // 1 + 2^-150 needs 151 bits: kept as 2^126 * 2^-126 with a sticky bit.
    /// let x = Float::with_val(200, 1) + Float::with_val(200, 2f64.powi(-150));
    /// let f = Fixed::from_float(&x).unwrap();
    /// assert_eq!((f.mantissa(), f.exponent(), f.sticky()), (1u128 << 126, -126, true));
    /// assert_eq!(Format::FP64.round_fixed(f, RoundingMode::Up), 1.0 + f64::EPSILON);
    /// assert_eq!(Format::FP64.round_fixed(f, RoundingMode::TowardZero), 1.0);
    /// assert!(Fixed::from_float(&Float::with_val(53, f64::NAN)).is_none());
    /// ```
    pub fn from_float(x: &Float) -> Option<Fixed> {
        let negative = x.is_sign_negative();
        if x.is_zero() {
            return Some(Fixed {
                negative,
                mantissa: 0,
                exponent: 0,
                sticky: false,
            });
        }
        let (integer, exponent) = x.to_integer_exp()?;
        // The exponent of the compressed value (from_integer keeps 127 bits).
        let compressed =
            i64::from(exponent) + i64::from(integer.significant_bits().saturating_sub(127));
        Some(
            Fixed::from_integer(negative, integer, exponent)
                .unwrap_or_else(|| Fixed::beyond_range(negative, compressed > 0)),
        )
    }

    /// The stand-in of [`Fixed::from_float`] for a value beyond the exponent
    /// range: `2^MAX_EXPONENT_MAGNITUDE` if `huge` (it overflows every
    /// format), else a sticky value in `(2^(63 - M), 2^(64 - M))`, `M =
    /// MAX_EXPONENT_MAGNITUDE` (nonzero, and below every format's least
    /// quantum by far), with the given sign.
    fn beyond_range(negative: bool, huge: bool) -> Fixed {
        if huge {
            Fixed {
                negative,
                mantissa: 1,
                exponent: MAX_EXPONENT_MAGNITUDE,
                sticky: false,
            }
        } else {
            Fixed {
                negative,
                mantissa: STICKY_MIN_MANTISSA,
                exponent: -MAX_EXPONENT_MAGNITUDE,
                sticky: true,
            }
        }
    }

    /// The value `±|integer| 2^exponent`, compressed to 127 bits and a sticky
    /// bit; `None` if the compressed exponent's magnitude exceeds
    /// [`MAX_EXPONENT_MAGNITUDE`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Fixed, Format, RoundingMode};
    /// use rug::Integer;
    /// // The sign comes from `negative`, the magnitude from |integer|.
    /// let x = Fixed::from_integer(true, Integer::from(-12), -2).unwrap();
    /// assert_eq!(Format::FP16.round_fixed(x, RoundingMode::NearestEven), -3.0);
    /// // 2^130 + 1 has 131 bits: 4 are dropped into the sticky bit.
    /// let big = Fixed::from_integer(false, (Integer::from(1) << 130) + 1, 0).unwrap();
    /// assert_eq!((big.mantissa(), big.exponent(), big.sticky()), (1u128 << 126, 4, true));
    /// assert_eq!(Format::FP64.round_fixed(big, RoundingMode::Up), 2f64.powi(130).next_up());
    /// // Dropping 73 bits would push 2^30 - 2 past the limit.
    /// assert!(Fixed::from_integer(false, Integer::from(1) << 200, (1 << 30) - 2).is_none());
    /// ```
    pub fn from_integer(negative: bool, mut integer: Integer, exponent: i32) -> Option<Fixed> {
        integer.abs_mut();
        let bits = integer.significant_bits();
        let mut exponent = exponent;
        let mut sticky = false;
        if bits > 127 {
            let shift = bits - 127;
            sticky = !integer.is_divisible_2pow(shift);
            integer >>= shift;
            exponent = exponent.checked_add(shift as i32)?;
        }
        let mantissa = integer
            .to_u128()
            .expect("at most 127 significant bits fit u128");
        Fixed::from_parts(negative, mantissa, exponent, sticky)
    }

    /// Whether the value is negative (or negative zero).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Fixed;
    /// assert!(Fixed::from_f64(-2.5).negative() && !Fixed::from_f64(2.5).negative());
    /// assert!(Fixed::from_f64(-0.0).negative());
    /// ```
    pub fn negative(&self) -> bool {
        self.negative
    }
    /// The integer part of the scaled magnitude.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Fixed;
    /// // 1.0 is 2^52 * 2^-52 as an f64's exact value.
    /// assert_eq!(Fixed::from_f64(1.0).mantissa(), 1u128 << 52);
    /// assert_eq!(Fixed::from_f64(f64::MAX).mantissa(), (1u128 << 53) - 1);
    /// ```
    pub fn mantissa(&self) -> u128 {
        self.mantissa
    }
    /// The scale exponent.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Fixed;
    /// assert_eq!(Fixed::from_f64(1.0).exponent(), -52);
    /// assert_eq!(Fixed::from_f64(f64::MAX).exponent(), 971); // (2^53 - 1) 2^971
    /// ```
    pub fn exponent(&self) -> i32 {
        self.exponent
    }
    /// Whether a nonzero fraction lies below the mantissa's last bit.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Fixed};
    /// assert!(!Fixed::from_f64(0.1).sticky()); // an f64 is exact
    /// // 1 + 2^-200 does not fit 126 bits: the sum keeps a sticky bit.
    /// assert!(Exact::from_f64(1.0).add(Exact::from_f64(2f64.powi(-200))).sticky());
    /// ```
    pub fn sticky(&self) -> bool {
        self.sticky
    }
    /// Whether the value is exactly zero.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Fixed};
    /// assert!(Fixed::from_f64(0.0).is_zero() && Fixed::from_f64(-0.0).is_zero());
    /// assert!(!Fixed::from_f64(f64::from_bits(1)).is_zero());
    /// assert!(Exact::from_f64(1.5).add(Exact::from_f64(-1.5)).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.mantissa == 0 && !self.sticky
    }
    /// The same value with the opposite sign.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Fixed, Format, RoundingMode};
    /// assert_eq!(Fixed::from_f64(1.5).negated(), Fixed::from_f64(-1.5));
    /// // Rounding commutes with negation when the direction is mirrored.
    /// let x = Fixed::from_f64(0.1);
    /// assert_eq!(Format::FP16.round_fixed(x.negated(), RoundingMode::Down), -Format::FP16.round_fixed(x, RoundingMode::Up));
    /// ```
    pub fn negated(self) -> Fixed {
        Fixed {
            negative: !self.negative,
            ..self
        }
    }

    /// floor(log2 |x|), or `None` for zero.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Fixed;
    /// assert_eq!(Fixed::from_f64(0.75).top_exponent(), Some(-1));
    /// assert_eq!(Fixed::from_f64(1.0).top_exponent(), Some(0));
    /// assert_eq!(Fixed::from_f64(f64::from_bits(1)).top_exponent(), Some(-1074));
    /// assert_eq!(Fixed::from_f64(0.0).top_exponent(), None);
    /// ```
    pub fn top_exponent(&self) -> Option<i32> {
        if self.mantissa == 0 {
            return None;
        }
        Some(self.exponent + (127 - self.mantissa.leading_zeros() as i32))
    }
}

/// A dyadic rational `±mantissa 2^exponent` known exactly, with a mantissa of
/// at most 120 bits (an `f64` has 53, the product of two has 106).
///
/// # Example
/// ```
/// use boundgate_verify::format::{Exact, Format, RoundingMode};
/// // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104 is not an f64; its exact sum with -1 is.
/// let x = 1.0 + f64::EPSILON;
/// let sum = Exact::product(x, x).add(Exact::from_f64(-1.0));
/// let up = Format::FP64.round_fixed(sum, RoundingMode::Up);
/// assert!(up > 2f64.powi(-51));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    negative: bool,
    mantissa: u128,
    exponent: i32,
}

/// Position of the leading bit after normalisation in [`Exact::add`]; leaves
/// one bit of headroom for the carry of an addition.
const ALIGN_TOP_BIT: u32 = 125;

impl Exact {
    /// The exact value of a finite `f64`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Fixed};
    /// assert_eq!(Exact::from_f64(0.75).to_fixed(), Fixed::from_f64(0.75));
    /// assert!(Exact::from_f64(-0.0).negative() && Exact::from_f64(-0.0).is_zero());
    /// ```
    pub fn from_f64(x: f64) -> Exact {
        let f = Fixed::from_f64(x);
        Exact {
            negative: f.negative,
            mantissa: f.mantissa,
            exponent: f.exponent,
        }
    }

    /// The exact product of two finite `f64` values (sign of zero: xor of signs).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Format, RoundingMode};
    /// // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: rounding the exact product sees the last term.
    /// let x = 1.0 + f64::EPSILON;
    /// let p = Exact::product(x, x).to_fixed();
    /// assert_eq!(Format::FP64.round_fixed(p, RoundingMode::NearestEven), 1.0 + 2.0 * f64::EPSILON);
    /// assert_eq!(Format::FP64.round_fixed(p, RoundingMode::Up), 1.0 + 3.0 * f64::EPSILON);
    /// // The sign of a zero product is the xor of the signs.
    /// assert!(Exact::product(3.0, -0.0).negative() && Exact::product(-3.0, -0.0).is_zero());
    /// assert!(!Exact::product(-3.0, -0.0).negative());
    /// ```
    pub fn product(x: f64, y: f64) -> Exact {
        let a = Exact::from_f64(x);
        let b = Exact::from_f64(y);
        Exact {
            negative: a.negative != b.negative,
            mantissa: a.mantissa * b.mantissa,
            exponent: a.exponent + b.exponent,
        }
    }

    /// Whether the value is zero.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Exact;
    /// assert!(Exact::product(1e-300, 0.0).is_zero());
    /// // 1e-300 * 1e-300 underflows in f64, but not exactly.
    /// assert!(!Exact::product(1e-300, 1e-300).is_zero());
    /// assert_eq!(1e-300 * 1e-300, 0.0);
    /// ```
    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }
    /// Whether the value is negative (or negative zero).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Exact;
    /// assert!(Exact::from_f64(-2.0).negative());
    /// assert!(!Exact::product(-2.0, -3.0).negative());
    /// ```
    pub fn negative(&self) -> bool {
        self.negative
    }
    /// The same value with the opposite sign.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Exact;
    /// assert_eq!(Exact::from_f64(2.5).negated(), Exact::from_f64(-2.5));
    /// // x + (-x) is exactly zero.
    /// assert!(Exact::product(0.1, 0.3).add(Exact::product(0.1, 0.3).negated()).is_zero());
    /// ```
    pub fn negated(self) -> Exact {
        Exact {
            negative: !self.negative,
            ..self
        }
    }

    /// As a [`Fixed`] with no sticky bit.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Fixed};
    /// let f = Exact::product(3.0, 0.5).to_fixed();
    /// assert!(!f.sticky());
    /// // 3 * 0.5: the significands' product (3 * 2^51) * 2^52 times 2^(-51 - 53).
    /// assert_eq!((f.mantissa(), f.exponent()), (3u128 << 103, -104));
    /// assert_eq!(Exact::from_f64(1.5).to_fixed(), Fixed::from_f64(1.5));
    /// ```
    pub fn to_fixed(self) -> Fixed {
        Fixed {
            negative: self.negative,
            mantissa: self.mantissa,
            exponent: self.exponent,
            sticky: false,
        }
    }

    fn top_exponent(&self) -> i32 {
        self.exponent + (127 - self.mantissa.leading_zeros() as i32)
    }

    /// The sum `self + other`, exact where it fits 126 bits, else with a sticky
    /// bit. An exact zero sum of nonzero terms is returned as +0, and a zero
    /// term gives the other term as it is (so `-0 + +0` is -0): callers apply
    /// IEEE's sign rules.
    // Not `std::ops::Add`: the sum is a `Fixed` that may carry a sticky bit,
    // not an `Exact`, and the name is public API.
    #[allow(clippy::should_implement_trait)]
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Exact, Format, RoundingMode};
    /// // (1 + 2^-52)^2 - 1 = 2^-51 + 2^-104 exactly: a tie at fp64 precision.
    /// let x = 1.0 + f64::EPSILON;
    /// let s = Exact::product(x, x).add(Exact::from_f64(-1.0));
    /// assert!(!s.sticky());
    /// assert_eq!(Format::FP64.round_fixed(s, RoundingMode::NearestEven), 2f64.powi(-51));
    /// assert_eq!(Format::FP64.round_fixed(s, RoundingMode::Up), 2f64.powi(-51) + 2f64.powi(-103));
    /// // Far apart, the small term survives only as the sticky bit.
    /// let s = Exact::from_f64(1.0).add(Exact::from_f64(-(2f64.powi(-200))));
    /// assert!(s.sticky());
    /// assert_eq!(Format::FP64.round_fixed(s, RoundingMode::Down), 1.0 - f64::EPSILON / 2.0);
    /// assert_eq!(Format::FP64.round_fixed(s, RoundingMode::NearestEven), 1.0);
    /// ```
    pub fn add(self, other: Exact) -> Fixed {
        if other.is_zero() {
            return self.to_fixed();
        }
        if self.is_zero() {
            return other.to_fixed();
        }
        // `big` has the higher leading bit.
        let (big, small) = if self.top_exponent() >= other.top_exponent() {
            (self, other)
        } else {
            (other, self)
        };
        let lead = 127 - big.mantissa.leading_zeros();
        let big_shift = ALIGN_TOP_BIT - lead;
        let big_m = big.mantissa << big_shift;
        let base = big.exponent - big_shift as i32;
        let offset = small.exponent as i64 - base as i64;
        let (small_m, lost) = if offset >= 0 {
            // small's leading bit is at most big's, so this stays below 2^126.
            (small.mantissa << offset as u32, false)
        } else {
            let s = (-offset) as u64;
            if s >= 128 {
                (0, true)
            } else {
                let s = s as u32;
                (
                    small.mantissa >> s,
                    small.mantissa & ((1u128 << s) - 1) != 0,
                )
            }
        };
        if big.negative == small.negative {
            return Fixed {
                negative: big.negative,
                mantissa: big_m + small_m,
                exponent: base,
                sticky: lost,
            };
        }
        // Opposite signs. If bits of `small` were lost, |small| < |big| by far,
        // and big - small = (big_m - small_m - 1) + (1 - fraction).
        if lost {
            return Fixed {
                negative: big.negative,
                mantissa: big_m - small_m - 1,
                exponent: base,
                sticky: true,
            };
        }
        let (negative, mantissa) = if big_m >= small_m {
            (big.negative, big_m - small_m)
        } else {
            (small.negative, small_m - big_m)
        };
        Fixed {
            negative: negative && mantissa != 0,
            mantissa,
            exponent: base,
            sticky: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    fn exact_float(x: Fixed) -> Float {
        assert!(!x.sticky);
        let mut f = Float::with_val(256, Integer::from(x.mantissa));
        f <<= x.exponent;
        if x.negative { -f } else { f }
    }

    #[test]
    fn exact_add_matches_mpfr_when_exact() {
        let cases = [
            (1.5, -1.75),
            (1.0, 2f64.powi(-60)),
            (3.0, -3.0),
            (1e300, 1e-300),
            (f64::from_bits(1), -f64::from_bits(3)),
        ];
        for (a, b) in cases {
            let sum = Exact::from_f64(a).add(Exact::from_f64(b));
            let reference = Float::with_val(4096, a) + Float::with_val(4096, b);
            if !sum.sticky {
                assert_eq!(exact_float(sum), reference, "{a} + {b}");
            } else {
                // Sticky: the truncated value is below the exact one by less than one unit.
                let low = exact_float(Fixed {
                    sticky: false,
                    ..sum
                });
                let diff = Float::with_val(4096, &reference - &low).abs();
                let mut unit = Float::with_val(64, 1);
                unit <<= sum.exponent;
                assert!(diff > 0 && diff < unit, "{a} + {b}");
                assert!(sum.mantissa >= STICKY_MIN_MANTISSA);
            }
        }
    }

    /// Regression (review): a finite MPFR number within 126 bits of MPFR's
    /// default least exponent (`1 - 2^30`) gave `None` here, and
    /// `Format::round_float` then rounded its `f64` conversion (to nearest,
    /// so 0): `2^-1073741800` rounded upward to fp16 gave 0, not `2^-24`.
    #[test]
    fn from_float_keeps_values_near_mpfr_least_exponent() {
        use crate::format::{Format, RoundingMode};
        let emin = rug::float::exp_min(); // 1 - 2^30 by default
        for (prec, exp) in [
            (53u32, emin),
            (53, emin + 100),
            (300, emin),
            (300, emin + 200),
            (2, emin + 50),
        ] {
            for negative in [false, true] {
                // 0.11..1 * 2^exp, MPFR's convention (0.5 <= m < 1).
                let mut x =
                    Float::with_val(prec, 1) - Float::with_val(prec, 2f64.powi(-(prec as i32)));
                x >>= (-exp) as u32; // (1 - 2^-prec) 2^exp: every bit set
                assert_eq!(x.get_exp(), Some(exp));
                if negative {
                    x = -x;
                }
                let f = Fixed::from_float(&x).expect("a finite value");
                assert_eq!(f.negative(), negative);
                assert!(!f.is_zero());
                for format in Format::NAMED {
                    let min = format.min_positive();
                    for mode in RoundingMode::ALL {
                        let away = match mode {
                            RoundingMode::Up => !negative,
                            RoundingMode::Down => negative,
                            _ => false,
                        };
                        let magnitude = if away { min } else { 0.0 };
                        let expected = if negative { -magnitude } else { magnitude };
                        let ours = format.round_float(&x, mode);
                        assert_eq!(
                            ours.to_bits(),
                            expected.to_bits(),
                            "{format} {mode:?} prec {prec} exp {exp} negative {negative}: {ours:e}"
                        );
                    }
                }
            }
        }
        // The stand-in for values past a widened MPFR range overflows every
        // format as such values do.
        for negative in [false, true] {
            let huge = Fixed::beyond_range(negative, true);
            let sign = if negative { -1.0 } else { 1.0 };
            for format in [Format::FP16, Format::FP64, Format::BF16] {
                let max = format.max_finite();
                let rz = format.round_fixed(huge, RoundingMode::TowardZero);
                assert_eq!(rz, sign * max, "{format}");
                let rn = format.round_fixed(huge, RoundingMode::NearestEven);
                assert_eq!(rn, sign * f64::INFINITY, "{format}");
            }
            assert!(
                Format::E4M3
                    .round_fixed(huge, RoundingMode::NearestEven)
                    .is_nan()
            );
        }
    }

    #[test]
    fn from_float_compresses_with_sticky() {
        let mut x = Float::with_val(300, 1);
        x += Float::with_val(300, 2f64.powi(-200));
        let f = Fixed::from_float(&x).unwrap();
        assert!(f.sticky);
        assert_eq!(f.mantissa, 1u128 << 126);
        assert_eq!(f.exponent, -126);
    }
}
