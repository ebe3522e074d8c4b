//! Correctly rounded arithmetic in any [`Format`]: the exact result of
//! `a + b`, `a - b`, `a * b` or `a * b + c` on `f64` operands, rounded once.
//!
//! This is the arithmetic of IEEE 754 §5.4 (formatOf operations) including the
//! special cases of §6 (NaN, infinities, signed zeros). Fast paths use
//! error-free transformations (TwoSum, TwoProduct via FMA) and rounding to odd:
//! for a target precision `p <= 51`, rounding `round_to_odd_53(v)` again to `p`
//! bits equals rounding `v` directly (Boldo and Melquiond, "Emulation of FMA
//! and correctly rounded sums: proved algorithms using rounding to odd",
//! IEEE TC 57(4), 2008, Theorem 1). Everything else goes through the exact
//! integer path ([`Exact`]). Both paths are tested against MPFR.

use super::{Exact, Format, RoundingMode};

/// Products at least this large (in magnitude) have an exact FMA remainder:
/// the product's 106-bit integer significand then ends at or above 2^-1074.
const EXACT_REMAINDER_MIN: f64 = 1.0e-290;

/// Largest precision for which rounding to odd at 53 bits is innocuous.
const MAX_PRECISION_FOR_ODD: u32 = 51;

impl Format {
    /// `a + b`, correctly rounded.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let rne = RoundingMode::NearestEven;
    /// // In fp16, 2048 + 1 is a tie between 2048 and 2050: it rounds to even.
    /// assert_eq!(Format::FP16.add(2048.0, 1.0, rne), 2048.0);
    /// assert_eq!(Format::FP16.add(2048.0, 1.0, RoundingMode::Up), 2050.0);
    /// // x + (-x) is +0, except toward -infinity.
    /// assert!(Format::FP16.add(1.0, -1.0, RoundingMode::Down).is_sign_negative());
    /// ```
    #[inline]
    pub fn add(&self, a: f64, b: f64, mode: RoundingMode) -> f64 {
        if !a.is_finite() || !b.is_finite() {
            return self.round(a + b, mode);
        }
        if mode == RoundingMode::NearestEven {
            if self.is_binary64() {
                return a + b;
            }
            if let (true, Some(a32), Some(b32)) = (self.is_binary32(), as_f32(a), as_f32(b)) {
                return (a32 + b32) as f64;
            }
        }
        let (s, e) = two_sum(a, b);
        if s.is_finite() {
            if e == 0.0 {
                if s == 0.0 {
                    return zero_sum_sign(a.is_sign_negative(), b.is_sign_negative(), mode);
                }
                return self.round(s, mode);
            }
            if self.precision <= MAX_PRECISION_FOR_ODD {
                return self.round(round_to_odd(s, e), mode);
            }
        }
        self.round_exact_sum(Exact::from_f64(a), Exact::from_f64(b), mode)
    }

    /// `a - b`, correctly rounded.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// // Below 1, bf16's spacing is 2^-8: 1 - 2^-10 rounds to 1 or to 1 - 2^-8.
    /// let x = 2f64.powi(-10);
    /// assert_eq!(Format::BF16.sub(1.0, x, RoundingMode::NearestEven), 1.0);
    /// assert_eq!(Format::BF16.sub(1.0, x, RoundingMode::Down), 0.99609375);
    /// // x - x is +0, except toward -infinity.
    /// assert!(Format::BF16.sub(0.5, 0.5, RoundingMode::NearestEven).is_sign_positive());
    /// assert!(Format::BF16.sub(0.5, 0.5, RoundingMode::Down).is_sign_negative());
    /// ```
    pub fn sub(&self, a: f64, b: f64, mode: RoundingMode) -> f64 {
        self.add(a, -b, mode)
    }

    /// `a * b`, correctly rounded.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// // fp16's product of 2^-12 and 2^-12 underflows past the smallest subnormal 2^-24.
    /// assert_eq!(Format::FP16.mul(2f64.powi(-12), 2f64.powi(-13), RoundingMode::NearestEven), 0.0);
    /// assert_eq!(Format::FP16.mul(2f64.powi(-12), 2f64.powi(-13), RoundingMode::Up), 2f64.powi(-24));
    /// ```
    #[inline]
    pub fn mul(&self, a: f64, b: f64, mode: RoundingMode) -> f64 {
        if !a.is_finite() || !b.is_finite() {
            return self.round(a * b, mode);
        }
        if mode == RoundingMode::NearestEven {
            if self.is_binary64() {
                return a * b;
            }
            if let (true, Some(a32), Some(b32)) = (self.is_binary32(), as_f32(a), as_f32(b)) {
                return (a32 * b32) as f64;
            }
        }
        let p = a * b;
        if p.is_finite() && (p.abs() >= EXACT_REMAINDER_MIN || p == 0.0 && (a == 0.0 || b == 0.0)) {
            let e = a.mul_add(b, -p);
            if e == 0.0 {
                return self.round(p, mode);
            }
            if self.precision <= MAX_PRECISION_FOR_ODD {
                return self.round(round_to_odd(p, e), mode);
            }
        }
        self.round_fixed(Exact::product(a, b).to_fixed(), mode)
    }

    /// `a * b + c` with a single rounding (fused multiply-add).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let rne = RoundingMode::NearestEven;
    /// let x = 1.0 + 2f64.powi(-10); // an fp16 number
    /// // x*x = 1 + 2^-9 + 2^-20: separate rounding loses 2^-20, the FMA keeps it.
    /// let fused = Format::FP16.fma(x, x, -(1.0 + 2f64.powi(-9)), rne);
    /// assert_eq!(fused, 2f64.powi(-20));
    /// ```
    #[inline]
    pub fn fma(&self, a: f64, b: f64, c: f64, mode: RoundingMode) -> f64 {
        if !a.is_finite() || !b.is_finite() || !c.is_finite() {
            // IEEE 754 §7.2: inf * 0 is invalid whatever c is; otherwise the
            // result is that of the unfused expression on the exact product.
            // With finite a and b that product is finite even where the f64
            // product overflows (fma(1e200, 1e200, -inf) = -inf, not
            // inf - inf = NaN), so any finite stand-in gives the same result.
            let product = if a.is_finite() && b.is_finite() {
                0.0
            } else {
                a * b
            };
            return self.round(product + c, mode);
        }
        if mode == RoundingMode::NearestEven {
            if self.is_binary64() {
                return a.mul_add(b, c);
            }
            if let (true, Some(a32), Some(b32), Some(c32)) =
                (self.is_binary32(), as_f32(a), as_f32(b), as_f32(c))
            {
                return a32.mul_add(b32, c32) as f64;
            }
        }
        let p = a * b;
        if p.is_finite()
            && (p.abs() >= EXACT_REMAINDER_MIN || p == 0.0 && (a == 0.0 || b == 0.0))
            && a.mul_add(b, -p) == 0.0
        {
            // The product is exact in f64, so this is one rounding of p + c.
            return self.add(p, c, mode);
        }
        self.round_exact_sum(Exact::product(a, b), Exact::from_f64(c), mode)
    }

    fn round_exact_sum(&self, x: Exact, y: Exact, mode: RoundingMode) -> f64 {
        let sum = x.add(y);
        if sum.is_zero() {
            return zero_sum_sign(x.negative(), y.negative(), mode);
        }
        self.round_fixed(sum, mode)
    }
}

/// IEEE 754 §6.3: an exact zero sum of operands of opposite signs (or of two
/// nonzero operands that cancel) is +0, except -0 when rounding toward -inf;
/// a sum of two zeros of the same sign keeps that sign.
fn zero_sum_sign(a_negative: bool, b_negative: bool, mode: RoundingMode) -> f64 {
    // Terms that cancel exactly have opposite signs, so one rule covers both cases.
    let negative = if a_negative == b_negative {
        a_negative
    } else {
        mode == RoundingMode::Down
    };
    if negative { -0.0 } else { 0.0 }
}

/// `x` as an `f32` if it is one exactly (native binary32 operations on such
/// operands are the correctly rounded binary32 arithmetic, IEEE 754 §5.4).
#[inline]
fn as_f32(x: f64) -> Option<f32> {
    let y = x as f32;
    (y as f64 == x).then_some(y)
}

/// `s = fl(a + b)` and `e` with `a + b = s + e` exactly (when `s` is
/// finite): Dekker's Fast2Sum on the operands ordered by magnitude (Muller et
/// al., Handbook of Floating-Point Arithmetic, 2nd ed., §4.3.1). Not Knuth's
/// branch-free TwoSum: its `s - a` overflows when `a` is small and `b` near
/// the largest finite value with the other sign (`3 x 2^970 - f64::MAX`),
/// and the NaN remainder then sent results to the wrong side (found by
/// review, 2026-11-25). With `|big| >= |small|`, `s - big` is exact and at
/// most about `|small|`, so nothing overflows while `s` is finite.
#[inline]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let (big, small) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let e = small - (s - big);
    (s, e)
}

/// Rounds `s + e` to odd at 53 bits, given `s = fl_nearest(s + e)`, `e != 0`
/// and `s` normal: `s` if its last bit is odd, else its neighbour toward `e`.
#[inline]
fn round_to_odd(s: f64, e: f64) -> f64 {
    if s.to_bits() & 1 == 1 {
        s
    } else if e > 0.0 {
        s.next_up()
    } else {
        s.next_down()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_signs_follow_ieee() {
        let modes = RoundingMode::ALL;
        for mode in modes {
            let down = mode == RoundingMode::Down;
            // x + (-x)
            let r = Format::FP16.add(1.0, -1.0, mode);
            assert_eq!(r, 0.0);
            assert_eq!(r.is_sign_negative(), down, "{mode}");
            // (-0) + (-0) = -0 in every mode
            assert!(Format::FP16.add(-0.0, -0.0, mode).is_sign_negative());
            // (+0) + (-0) = +0 except rdn
            assert_eq!(Format::FP16.add(0.0, -0.0, mode).is_sign_negative(), down);
            // (+0) + (+0) = +0 in every mode
            assert!(!Format::FP16.add(0.0, 0.0, mode).is_sign_negative());
        }
    }

    #[test]
    fn round_to_odd_fast_path_agrees_with_exact_path() {
        let values = [
            1.0,
            1.0 + 2f64.powi(-30),
            3.0e-5,
            -7.5,
            1.0e10,
            2f64.powi(-30),
        ];
        for &a in &values {
            for &b in &values {
                for mode in RoundingMode::ALL {
                    for format in [Format::FP16, Format::BF16, Format::FP32, Format::TF32] {
                        let fast = format.add(a, b, mode);
                        let exact =
                            format.round_exact_sum(Exact::from_f64(a), Exact::from_f64(b), mode);
                        assert_eq!(fast.to_bits(), exact.to_bits(), "{format} {a} + {b} {mode}");
                    }
                }
            }
        }
    }

    /// A small operand and one near f64::MAX of the other sign: the branch-
    /// free TwoSum's `s - a` overflowed, and a custom format reaching 2^1023
    /// got -inf or a result beyond the exact one (found by review,
    /// 2026-11-25). Compared with the exact path, both orders, every mode.
    #[test]
    fn sums_near_the_largest_f64_agree_with_the_exact_path() {
        let formats = [51, 50, 40, 24, 11].map(|p| {
            Format::custom(
                p,
                -1022,
                1023,
                true,
                crate::format::OverflowPolicy::Infinity,
            )
            .unwrap()
        });
        let smalls = [
            3.0 * 2f64.powi(970),
            6.985441083371519e292,
            1.0,
            2f64.powi(1000),
        ];
        for format in formats {
            for &small in &smalls {
                for (a, b) in [(small, -f64::MAX), (-f64::MAX, small), (-small, f64::MAX)] {
                    for mode in RoundingMode::ALL {
                        let fast = format.add(a, b, mode);
                        let exact =
                            format.round_exact_sum(Exact::from_f64(a), Exact::from_f64(b), mode);
                        assert_eq!(
                            fast.to_bits(),
                            exact.to_bits(),
                            "{format:?} {a:e} + {b:e} {mode}"
                        );
                        let fma = format.fma(a, 1.0, b, mode);
                        assert_eq!(
                            fma.to_bits(),
                            exact.to_bits(),
                            "fma {format:?} {a:e} {b:e} {mode}"
                        );
                    }
                }
            }
        }
    }
}
