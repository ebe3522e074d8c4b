//! binary16 arithmetic for the `half` kernel's CPU model: the correctly
//! rounded (round-to-nearest-even) `mul` and `fma` of CUDA's `__hmul_rn` and
//! `__hfma` (`__hmul2_rn`/`__hfma2` per lane), bit for bit the results of
//! [`Format::FP16`]'s operations, with a fast path.
//!
//! Why the fast path is exact: binary16 numbers have 11-bit significands and
//! exponents in `[-24, 15]`, so the product of two of them has at most 22
//! significant bits and lies in `[2^-48, 2^32)`: it is exact in `f64`. For
//! `fma(a, b, c)` the exact sum `a b + c` is then rounded once to `f64` and
//! TwoSum (Knuth) gives the rounding error `e`; when `e = 0` that `f64` sum is
//! the exact value and one rounding to binary16 is the correctly rounded fma.
//! Otherwise (sums spanning more than 53 bits, special values) the general
//! [`Format::fma`] runs. Both are compared bit for bit in the tests.
//!
//! Values are carried in `f32`, which holds every binary16 number exactly.

use boundgate_verify::format::{Format, RoundingMode};

const RNE: RoundingMode = RoundingMode::NearestEven;

/// Rounds to binary16 (nearest even), returned as the `f32` holding it.
///
/// In binary16's normal range this rounds on the bits (add half a quantum
/// less one, plus the last kept bit, then truncate: round half to even; a
/// carry into the exponent is the correct result), exactly what
/// [`Format::FP16`]`.round` does there; everything else (subnormals, zeros,
/// overflow, NaN, infinities) goes to [`Format::round`].
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::fp16::round16;
/// assert_eq!(round16(1.0 + 2f64.powi(-11)), 1.0); // a tie, to even
/// assert_eq!(round16(70000.0), f32::INFINITY);
/// assert_eq!(round16(3.0e-6), 2.980232238769531e-6); // a subnormal: 50 x 2^-24
/// ```
#[inline(always)]
pub fn round16(x: f64) -> f32 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if (-14..=15).contains(&exponent) {
        // 53 - 11 = 42 bits to drop.
        const DROP: u32 = 42;
        let kept_lsb = (bits >> DROP) & 1;
        let rounded = (bits + (1u64 << (DROP - 1)) - 1 + kept_lsb) & !((1u64 << DROP) - 1);
        let v = f64::from_bits(rounded);
        if v.abs() <= 65504.0 {
            return v as f32;
        }
    }
    Format::FP16.round(x, RNE) as f32
}

/// `a * b` rounded once to binary16 (`__hmul_rn`); `a`, `b` binary16 values.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::fp16::mul16;
/// // 3 x fp16(1/3) = 0.999755859375, halfway between 0.99951171875 and 1: to even.
/// assert_eq!(mul16(3.0, 0.333251953125), 1.0);
/// assert_eq!(mul16(3.0, 0.5), 1.5);
/// ```
#[inline]
pub fn mul16(a: f32, b: f32) -> f32 {
    // Exact in f64 (22 significant bits, inside the f64 range); NaN and
    // infinities follow IEEE through the product and the rounding.
    round16(f64::from(a) * f64::from(b))
}

/// `a * b + c` rounded once to binary16 (`__hfma`); `a`, `b`, `c` binary16 values.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::fp16::fma16;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let x = 1.0 + 2f32.powi(-10);
/// let fused = fma16(x, x, -(1.0 + 2f32.powi(-9)));
/// assert_eq!(fused, 2f32.powi(-20)); // the product's low bits survive
/// let general = Format::FP16.fma(x as f64, x as f64, -(1.0 + 2f64.powi(-9)), RoundingMode::NearestEven);
/// assert_eq!(fused as f64, general);
/// ```
#[inline]
pub fn fma16(a: f32, b: f32, c: f32) -> f32 {
    let (a, b, c) = (f64::from(a), f64::from(b), f64::from(c));
    let p = a * b;
    let s = p + c;
    let bb = s - p;
    let e = (p - (s - bb)) + (c - bb);
    if e == 0.0 && s.is_finite() {
        // s = a b + c exactly; IEEE's signs of exact zeros are those of f64's
        // round-to-nearest addition, which s already has.
        round16(s)
    } else {
        Format::FP16.fma(a, b, c, RNE) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn fp16(bits: u16) -> f32 {
        Format::FP16
            .decode(u64::from(bits))
            .expect("16-bit pattern") as f32
    }

    fn same(a: f32, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a as f64).to_bits() == b.to_bits()
    }

    #[test]
    fn fma16_and_mul16_agree_with_the_format_bit_for_bit() {
        // Seed printed for reproduction.
        let seed = 0x16fa;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let specials = [
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00,
            0x3c00, 0xbc00,
        ];
        for i in 0..400_000u32 {
            let mut pick = || -> u16 {
                if i % 7 == 0 {
                    specials[rng.random_range(0..specials.len())]
                } else {
                    rng.random()
                }
            };
            let (a, b, c) = (fp16(pick()), fp16(pick()), fp16(pick()));
            let want = Format::FP16.fma(a as f64, b as f64, c as f64, RNE);
            assert!(same(fma16(a, b, c), want), "fma16({a:e}, {b:e}, {c:e})");
            let want = Format::FP16.mul(a as f64, b as f64, RNE);
            assert!(same(mul16(a, b), want), "mul16({a:e}, {b:e})");
        }
    }

    #[test]
    fn round16_agrees_with_the_format() {
        let seed = 0x16;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..1_000_000 {
            let x = f64::from_bits(rng.random::<u64>());
            let x = if rng.random_range(0..3) == 0 {
                x
            } else {
                (x.abs() % 70000.0).copysign(x) * 2f64.powi(rng.random_range(-30..1))
            };
            let want = Format::FP16.round(x, RNE);
            assert!(same(round16(x), want), "round16({x:e})");
        }
        for bits in 0..=u16::MAX {
            // Every binary16 value and every midpoint above it.
            let v = fp16(bits) as f64;
            for x in [
                v,
                v + Format::FP16.ulp(v) / 2.0,
                v - Format::FP16.ulp(v) / 2.0,
            ] {
                assert!(
                    same(round16(x), Format::FP16.round(x, RNE)),
                    "round16({x:e})"
                );
            }
        }
    }

    #[test]
    fn exact_zero_sums_take_ieee_signs() {
        assert!(fma16(1.0, 1.0, -1.0).is_sign_positive());
        assert!(fma16(-0.0, 1.0, -0.0).is_sign_negative());
        assert!(fma16(0.0, 1.0, -0.0).is_sign_positive());
    }
}
