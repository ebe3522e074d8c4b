//! `Accessor<S, A>` at compile time: storage type `S` in memory, arithmetic
//! type `A` in registers, as Ginkgo's `reduced_row_major<ArithmeticType,
//! StorageType>` (Grützmacher et al. 2021, §2.2-2.3): a read converts `S` to
//! `A` (exactly), a write converts `A` to `S` (round to nearest even, once).
//! Zero-cost: everything inlines to a load, a conversion and a store, which is
//! what the roofline benchmark ([`super::roofline`]) measures.
//!
//! Writes to binary16 from `f64` go through [`Format::round`] and not through
//! `half::f16::from_f64`, which rounds twice on x86 with F16C
//! (docs/findings/half-crate.md); the runtime accessor
//! ([`super::storage::Accessor`]) and this one agree bit for bit (tested).

use super::arith::Arith;
use boundgate_verify::format::{Format, RoundingMode};
use std::marker::PhantomData;

/// A storage type: a Rust type holding numbers of a format.
pub trait StorageType: Copy + Default + Send + Sync + 'static {
    /// The format.
    const FORMAT: Format;
    /// The value (exact).
    fn to_f64(self) -> f64;
    /// `v` rounded to nearest even, once.
    fn from_f64(v: f64) -> Self;
}

impl StorageType for f64 {
    const FORMAT: Format = Format::FP64;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> f64 {
        v
    }
}

impl StorageType for f32 {
    const FORMAT: Format = Format::FP32;
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl StorageType for half::f16 {
    const FORMAT: Format = Format::FP16;
    #[inline]
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
    #[inline]
    fn from_f64(v: f64) -> half::f16 {
        // Round once with the checker's rounding; the value is then exact in f16.
        half::f16::from_f64(Format::FP16.round(v, RoundingMode::NearestEven))
    }
}

impl StorageType for half::bf16 {
    const FORMAT: Format = Format::BF16;
    #[inline]
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
    #[inline]
    fn from_f64(v: f64) -> half::bf16 {
        half::bf16::from_f64(Format::BF16.round(v, RoundingMode::NearestEven))
    }
}

/// `Accessor<S, A>`: reads widen `S` to `A`, writes round `A` to `S`.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::native::Accessor;
/// type Acc = Accessor<f32, f64>;
/// let stored: Vec<f32> = vec![0.1, 0.2];
/// let sum: f64 = Acc::read(stored[0]) + Acc::read(stored[1]);
/// assert_eq!(sum, 0.1f32 as f64 + 0.2f32 as f64); // computed in f64
/// assert_eq!(Acc::write(sum), 0.1f32 + 0.2f32); // rounded once to f32 here
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Accessor<S, A> {
    _types: PhantomData<(S, A)>,
}

impl<S: StorageType, A: Arith> Accessor<S, A> {
    /// Reads a stored value into the arithmetic type (exact).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::native::Accessor;
    /// let h = half::f16::from_f32(0.1);
    /// assert_eq!(Accessor::<half::f16, f32>::read(h), h.to_f32());
    /// ```
    #[inline(always)]
    pub fn read(s: S) -> A {
        A::of(s.to_f64())
    }
    /// Writes an arithmetic value to storage (round to nearest even).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::native::Accessor;
    /// // 1 + 2^-24 is a tie between two f32 neighbours of 1: to even, 1.
    /// assert_eq!(Accessor::<f32, f64>::write(1.0 + 2f64.powi(-24)), 1.0f32);
    /// ```
    #[inline(always)]
    pub fn write(a: A) -> S {
        S::from_f64(a.to_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::super::storage::{AccessorSpec, StorageKind};
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn agrees<S: StorageType, A: Arith>(kind: StorageKind, rng: &mut ChaCha8Rng) {
        let runtime = AccessorSpec::new(kind, A::FORMAT)
            .unwrap()
            .for_data(&[])
            .unwrap();
        for _ in 0..20_000 {
            let m: f64 = rng.random_range(-1.0..1.0);
            let e = rng.random_range(-30..30);
            let v = A::of(A::FORMAT.round(m * 2f64.powi(e), RoundingMode::NearestEven));
            let native = Accessor::<S, A>::write(v);
            let element = runtime.write_ieee(v.to_f64()).unwrap();
            assert_eq!(native.to_f64().to_bits(), element.to_bits(), "{v:?}");
            assert_eq!(
                Accessor::<S, A>::read(native).to_f64().to_bits(),
                runtime.read(element).to_bits()
            );
        }
    }

    #[test]
    fn the_compile_time_accessor_agrees_with_the_runtime_one() {
        let seed = 0x0a7e;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        agrees::<f32, f64>(StorageKind::Fp32, &mut rng);
        agrees::<half::f16, f64>(StorageKind::Fp16, &mut rng);
        agrees::<half::bf16, f64>(StorageKind::Bf16, &mut rng);
        agrees::<half::f16, f32>(StorageKind::Fp16, &mut rng);
        agrees::<half::bf16, f32>(StorageKind::Bf16, &mut rng);
        agrees::<f64, f64>(StorageKind::Fp64, &mut rng);
        agrees::<f32, f32>(StorageKind::Fp32, &mut rng);
    }
}
