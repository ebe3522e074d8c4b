//! The arithmetic formats of the accessor kernels, as native Rust types.
//!
//! The GPU kernels compute in binary32 or binary64 with the round-to-nearest
//! intrinsics `__fmaf_rn`, `__fadd_rn`, `__fmul_rn`, `__fdiv_rn` (and their
//! `double` forms), without flush-to-zero. Rust's `f32`/`f64` operators and
//! `mul_add` are exactly these IEEE 754 operations (correctly rounded, ties to
//! even, gradual underflow), so the CPU models written with [`Arith`] produce
//! the GPU's bits wherever they follow its order. Unit tests check the trait
//! against [`Format`]'s correctly rounded arithmetic (itself checked against MPFR).

use boundgate_verify::format::Format;
use std::fmt::Debug;

/// An arithmetic format with IEEE 754 round-to-nearest-even operations.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::arith::Arith;
/// // fp32: 2^24 + 1 rounds to 2^24 (a tie, to even); in fp64 it is exact.
/// let big = 16_777_216.0;
/// assert_eq!(<f32 as Arith>::add(f32::of(big), f32::of(1.0)).to_f64(), big);
/// assert_eq!(<f64 as Arith>::add(big, 1.0), big + 1.0);
/// ```
pub trait Arith: Copy + PartialEq + Debug + Default + Send + Sync + 'static {
    /// The format as the checker describes it.
    const FORMAT: Format;
    /// `+0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// The value `v`, which must be a number of [`Arith::FORMAT`] (exact then;
    /// other values are rounded to nearest, which callers avoid).
    fn of(v: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_f64(self) -> f64;
    /// `a * b + c` rounded once (IEEE `fusedMultiplyAdd`).
    fn fma(a: Self, b: Self, c: Self) -> Self;
    /// `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// `a - b`.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b`.
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b`.
    fn div(a: Self, b: Self) -> Self;
    /// `-a` (exact).
    fn neg(a: Self) -> Self;
    /// Whether the value is finite.
    fn is_finite(self) -> bool;
}

/// The IEEE 754 operations of a native float type; `$of` and `$to_f64` are
/// its exact conversions from and to `f64` (`f64 as f32` rounds to nearest,
/// the documented behaviour of [`Arith::of`] off the format).
macro_rules! native_arith {
    ($t:ty, $format:expr, $of:expr, $to_f64:expr) => {
        impl Arith for $t {
            const FORMAT: Format = $format;
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            #[inline]
            fn of(v: f64) -> $t {
                $of(v)
            }
            #[inline]
            fn to_f64(self) -> f64 {
                $to_f64(self)
            }
            #[inline]
            fn fma(a: $t, b: $t, c: $t) -> $t {
                a.mul_add(b, c)
            }
            #[inline]
            fn add(a: $t, b: $t) -> $t {
                a + b
            }
            #[inline]
            fn sub(a: $t, b: $t) -> $t {
                a - b
            }
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                a * b
            }
            #[inline]
            fn div(a: $t, b: $t) -> $t {
                a / b
            }
            #[inline]
            fn neg(a: $t) -> $t {
                -a
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    };
}

native_arith!(
    f64,
    Format::FP64,
    std::convert::identity,
    std::convert::identity
);
native_arith!(f32, Format::FP32, |v: f64| v as f32, f64::from);

/// Converts values of the arithmetic format to `A` (exactly).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::arith::{to_arith, to_f64s};
/// let v: Vec<f32> = to_arith(&[0.5, -3.0]);
/// assert_eq!(v, vec![0.5f32, -3.0]);
/// assert_eq!(to_f64s(&v), vec![0.5, -3.0]);
/// ```
pub fn to_arith<A: Arith>(values: &[f64]) -> Vec<A> {
    values.iter().map(|&v| A::of(v)).collect()
}

/// Converts back to `f64` (exactly).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::arith::to_f64s;
/// assert_eq!(to_f64s(&[0.1f32]), vec![0.1f32 as f64]); // the f32 value, not 0.1
/// ```
pub fn to_f64s<A: Arith>(values: &[A]) -> Vec<f64> {
    values.iter().map(|v| v.to_f64()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boundgate_verify::format::RoundingMode;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn check<A: Arith>(rng: &mut ChaCha8Rng, spread: i32) {
        let rne = RoundingMode::NearestEven;
        let f = A::FORMAT;
        let mut value = || {
            let m: f64 = rng.random_range(-1.0..1.0);
            let e = rng.random_range(-spread..=spread);
            f.round(m * 2f64.powi(e), rne)
        };
        for _ in 0..20_000 {
            let (a, b, c) = (value(), value(), value());
            let (x, y, z) = (A::of(a), A::of(b), A::of(c));
            // Bit for bit, except that any NaN equals any NaN (its sign and
            // payload are not specified by IEEE 754 for invalid operations).
            let same = |p: A, q: f64| {
                let p = p.to_f64();
                assert!(
                    p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
                    "{a} {b} {c}: {p} vs {q}"
                );
            };
            same(A::fma(x, y, z), f.fma(a, b, c, rne));
            same(A::add(x, y), f.add(a, b, rne));
            same(A::sub(x, y), f.sub(a, b, rne));
            same(A::mul(x, y), f.mul(a, b, rne));
            if b != 0.0 {
                // Division: checked against the exact quotient's rounding with MPFR.
                let q = rug::Float::with_val(200, a) / rug::Float::with_val(200, b);
                same(A::div(x, y), f.round_float(&q, rne));
            }
        }
    }

    #[test]
    fn native_arithmetic_is_the_correctly_rounded_one() {
        let seed = 0xacce55;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        check::<f32>(&mut rng, 30);
        check::<f32>(&mut rng, 140); // into fp32's subnormal range
        check::<f64>(&mut rng, 300);
        check::<f64>(&mut rng, 1000);
    }
}
