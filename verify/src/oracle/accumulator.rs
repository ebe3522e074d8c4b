//! [`ExactSum`]: an exact accumulator of `f64` values and of exact products of
//! two `f64` values, in the style of Neal's "small superaccumulator"
//! (R. M. Neal, *Fast exact summation using small and large superaccumulators*,
//! arXiv:1505.05571, 2015: the small superaccumulator).
//!
//! # Representation
//!
//! The value is `sum_j c_j 2^(32 j + LOW_EXP)` over `NUM_CHUNKS` signed 64-bit
//! chunks `c_j`, each meant to hold 32 bits, with 31 bits of headroom so that
//! additions need no carry propagation (Neal 2015). A term is split into
//! 32-bit pieces that are added to (or subtracted from) consecutive chunks.
//! After a carry propagation ([`ExactSum::normalize`]) every chunk below the
//! top one is in `[0, 2^32)` and the top one holds the sign, in `[-2^32, 2^32)`.
//!
//! The range is wider than xsum's `f64` range, because exact products are not
//! `f64` numbers: the product of two `f64` values has up to 106 bits, from
//! `2^-2148` up to below `2^2048`, and the blas oracles multiply a sum of such
//! products by a scalar `alpha`, which reaches `2^(-2148 - 1074) = 2^-3222`
//! below and `2^(2048 + 64 + 1024)` above (a sum of fewer than `2^64` products
//! times the largest `f64`). `LOW_EXP = -3264` leaves a whole chunk below
//! `2^-3222`, so even the chunk holding the lowest bit of such a sum can be
//! scaled, and 208 chunks reach `2^3392`, far above any reachable sum. Only
//! [`ExactSum::merge`] can grow a sum without such a limit (a sum merged into
//! copies of itself doubles each time); it refuses a result outside
//! `[-2^3328, 2^3328)`, which keeps every later carry inside the last chunk.
//!
//! This is why the `xsum` crate is not used: it accumulates `f64` values only,
//! over the `f64` exponent range, and cannot hold an exact product that
//! underflows or overflows `f64` (nor a scaled sum of them).
//!
//! # Products
//!
//! `hi = fl(x y)` and `lo = fma(x, y, -hi)` satisfy `x y = hi + lo` exactly
//! when `lo` is representable (TwoProduct with an FMA: Ogita, Rump and Oishi,
//! *Accurate sum and dot product*, SIAM J. Sci. Comput. 26(6), 2005). The
//! condition used here is that `hi` is finite and `|hi| >= 2^-968`. Proof that
//! it suffices: write `x = M_x 2^q_x`, `y = M_y 2^q_y` with integer significands
//! and `q >= e - 52` (`e = floor(log2 |.|)`; equality for normal numbers,
//! `q = -1074` for subnormal ones). `|hi| >= 2^-968` and `|x y| < 2^(e_x + e_y + 2)`
//! give `e_x + e_y >= -970`, so `q_x + q_y >= -1074`: the exact product is a
//! multiple of `2^-1074`, hence so is `lo = x y - hi`; and `|lo| <= ulp(hi)/2
//! <= 2^(e_x + e_y + 1 - 53)`, so `|lo| / 2^(q_x + q_y) <= 2^52` and `lo` fits
//! 53 bits: it is an `f64`, which the FMA then returns exactly. This is the
//! condition `e_x + e_y >= e_min + p - 1` of Muller et al., *Handbook of
//! Floating-Point Arithmetic*, 2nd ed., 2018 (algorithm Fast2MultFMA). Products
//! outside it (underflow, overflow, zero, non-finite) take the exact integer
//! path: the 106-bit product of the integer significands, added at its exponent.

use super::ieee::{Specials, ZeroSign};
use super::measure::{ErrorMeasure, relative_bound_up};
use crate::error::{Result, VerifyError};
use crate::format::{Fixed, Format, RoundingMode};
use rug::integer::Order;
use rug::{Float, Integer};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// Exponent of bit 0 of chunk 0.
pub(crate) const LOW_EXP: i32 = -3264;
/// Number of chunks (see the module documentation for the range).
const NUM_CHUNKS: usize = 208;
/// The highest top chunk a merge may leave: the sum then lies in
/// `[-2^(32 * 206 + LOW_EXP), 2^(32 * 206 + LOW_EXP)) = [-2^3328, 2^3328)`.
/// A carry propagation writes one chunk above the top (a negative top chunk
/// carries -1 there before it is folded back), so the top must stay below
/// the last chunk; from `2^3328`, terms below `2^2048` would need more than
/// `2^1311` additions to get there.
const MAX_MERGED_TOP: usize = NUM_CHUNKS - 3;
const CHUNK_BITS: u32 = 32;
const CHUNK_MASK: i64 = (1 << CHUNK_BITS) - 1;
/// Additions between carry propagations. Every addition puts less than `2^52`
/// into any one chunk and a normalized chunk is at most `2^32` in magnitude, so
/// after `2^11 - 1` additions a chunk is still below `2^32 + (2^11 - 1) 2^52 < 2^63`
/// (Neal 2015 uses the same count for the small superaccumulator).
const ADDS_BETWEEN_CARRIES: u32 = (1 << 11) - 1;

pub(crate) const FRACTION_MASK: u64 = (1 << 52) - 1;
pub(crate) const IMPLICIT_BIT: u64 = 1 << 52;
/// Position, relative to `2^LOW_EXP`, of bit 0 of the integer significand of an
/// `f64` with biased exponent field `E` is `max(E, 1) + F64_POSITION_OFFSET`
/// (the value is `m 2^(max(E, 1) - 1075)`).
pub(crate) const F64_POSITION_OFFSET: u32 = (-1075 - LOW_EXP) as u32;
/// Smallest biased exponent of `hi = fl(x y)` for which TwoProduct is exact:
/// `2^-968` (see the module documentation).
const EXACT_REMAINDER_MIN_FIELD: u64 = (1023 - 968) as u64;
/// Largest finite biased exponent.
const MAX_FINITE_FIELD: u64 = 2046;

/// An exact sum of `f64` values and of exact products of two `f64` values.
///
/// Finite terms are kept exactly (no rounding, no overflow: a product of two
/// large `f64` values stays finite and exact). NaN and infinities are tracked
/// apart with IEEE 754 semantics ([`ExactSum::non_finite`]). The result can be
/// rounded correctly into any [`Format`] in any [`RoundingMode`], returned
/// exactly as a `rug::Float`, or compared with a computed value
/// ([`ExactSum::error_of`]).
///
/// Its range holds every exact product of two `f64` values (from `2^-2148` to
/// below `2^2048`), sums of any practical number of them, and such sums
/// multiplied by one more `f64` (down to `2^-3222`), exactly.
///
/// About 1.7 KB; cheap to create and to [`clear`](ExactSum::clear), so one can
/// be made per output element of a matrix product.
///
/// # Example
/// ```
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// let mut s = ExactSum::new();
/// s.add(1e308);
/// s.add(1e308); // 2e308 overflows f64, but the sum is exact
/// s.add(-1e308);
/// s.add_product(1.0 + f64::EPSILON, 1.0 - f64::EPSILON); // 1 - 2^-104, exactly
/// s.add(-1e308);
/// s.add(-1.0);
/// assert_eq!(s.to_f64(), -2f64.powi(-104));
/// assert_eq!(s.round(Format::FP16, RoundingMode::TowardZero), -0.0);
/// assert_eq!(s.round(Format::FP16, RoundingMode::Down), -2f64.powi(-24));
/// ```
#[derive(Clone)]
pub struct ExactSum {
    chunks: [i64; NUM_CHUNKS],
    /// Chunks changed since the last normalization: `dirty_lo..=dirty_hi`
    /// (empty when `dirty_lo > dirty_hi`).
    dirty_lo: usize,
    dirty_hi: usize,
    /// In normalized form, the chunk holding the sign; all chunks above are zero.
    top: usize,
    /// Chunks below this one have not been written since the last clear and
    /// are zero (as of the last normalization; the top chunk is never below it
    /// unless the sum is zero).
    floor: usize,
    adds_left: u32,
    pub(crate) specials: Specials,
    pub(crate) zeros: ZeroSign,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum::new()
    }
}

impl fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactSum")
            .field("nearest_f64", &self.to_f64())
            .field("signum", &self.signum())
            .field("non_finite", &self.non_finite())
            .finish()
    }
}

/// `x = ±m 2^q` with `m < 2^53` for a finite `x`.
pub(crate) fn significand(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & FRACTION_MASK;
    if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | IMPLICIT_BIT, field - 1075)
    }
}

/// Whether `hi = fl(x y)` (given by its bits) is finite with `|hi| >= 2^-968`,
/// so that `fma(x, y, -hi)` is the exact remainder.
#[inline(always)]
pub(crate) fn exact_remainder(hi_bits: u64) -> bool {
    let field = (hi_bits >> 52) & 0x7ff;
    field.wrapping_sub(EXACT_REMAINDER_MIN_FIELD) <= MAX_FINITE_FIELD - EXACT_REMAINDER_MIN_FIELD
}

impl ExactSum {
    /// An empty sum (exactly +0).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::RoundingMode;
    /// use boundgate_verify::oracle::ExactSum;
    /// let s = ExactSum::new();
    /// assert!(s.is_zero() && s.is_finite());
    /// // +0 in every rounding mode, toward -infinity included (as `mpfr::sum(&[])`).
    /// assert_eq!(s.round(boundgate_verify::format::Format::FP64, RoundingMode::Down).to_bits(), 0);
    /// ```
    pub fn new() -> Self {
        ExactSum {
            chunks: [0; NUM_CHUNKS],
            dirty_lo: NUM_CHUNKS,
            dirty_hi: 0,
            top: 0,
            floor: NUM_CHUNKS,
            adds_left: ADDS_BETWEEN_CARRIES,
            specials: Specials::default(),
            zeros: ZeroSign::Empty,
        }
    }

    /// Empties the sum again, touching only the chunks in use.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(-1e300);
    /// s.add_product(1e-300, 3e-300); // far below f64
    /// s.add(f64::NAN);
    /// s.clear();
    /// assert!(s.is_finite()); // the NaN is forgotten too
    /// assert_eq!(s.to_f64().to_bits(), 0.0f64.to_bits()); // +0, not -0
    /// s.add(0.5);
    /// assert_eq!(s.to_float().unwrap(), 0.5); // no trace of the 1e-300 * 3e-300
    /// ```
    pub fn clear(&mut self) {
        let (start, end) = if self.is_dirty() {
            (self.floor.min(self.dirty_lo), self.dirty_hi.max(self.top))
        } else {
            (self.floor.min(self.top), self.top)
        };
        self.chunks[start..=end].fill(0);
        self.dirty_lo = NUM_CHUNKS;
        self.dirty_hi = 0;
        self.top = 0;
        self.floor = NUM_CHUNKS;
        self.adds_left = ADDS_BETWEEN_CARRIES;
        self.specials = Specials::default();
        self.zeros = ZeroSign::Empty;
    }

    /// Adds any `f64`: finite values exactly, NaN and infinities as IEEE
    /// special values (see [`ExactSum::non_finite`]).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(f64::INFINITY);
    /// s.add(1.0);
    /// assert_eq!(s.non_finite(), Some(f64::INFINITY));
    /// s.add(f64::NEG_INFINITY);
    /// assert!(s.non_finite().unwrap().is_nan());
    /// ```
    pub fn add(&mut self, x: f64) {
        let bits = x.to_bits();
        if (bits >> 52) & 0x7ff == 0x7ff {
            self.specials.add_value(x);
        } else if bits << 1 == 0 {
            self.zeros.note_zero(bits >> 63 == 1);
        } else {
            self.zeros.note_nonzero();
            self.add_finite_bits(bits);
        }
    }

    /// Adds the exact product `x * y` (IEEE special values for non-finite
    /// factors: `0 * inf` is NaN).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let tiny = 2f64.powi(-1000);
    /// let mut s = ExactSum::new();
    /// s.add_product(tiny, tiny); // 2^-2000: far below f64, still exact
    /// assert_eq!(s.to_float().unwrap(), rug::Float::with_val(53, rug::Float::i_exp(1, -2000)));
    /// assert_eq!(s.to_f64(), 0.0);
    /// ```
    pub fn add_product(&mut self, x: f64, y: f64) {
        let hi = x * y;
        let bits = hi.to_bits();
        if exact_remainder(bits) {
            let lo = x.mul_add(y, -hi);
            self.zeros.note_nonzero();
            self.add_finite_bits(bits);
            if lo != 0.0 {
                self.add_finite_bits(lo.to_bits());
            }
        } else {
            self.add_product_slow(x, y);
        }
    }

    /// Adds every value of a slice (as [`ExactSum::add`], faster).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_slice(&[1e100, 1.0, -1e100]);
    /// assert_eq!(s.to_f64(), 1.0);
    /// ```
    pub fn add_slice(&mut self, x: &[f64]) {
        super::large::add_values(self, x);
    }

    /// Adds every product `x[i] * y[i]` (as [`ExactSum::add_product`], faster).
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] if the lengths differ.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_products(&[3.0, 1e300], &[0.5, 1e300]).unwrap();
    /// s.add_product(-1e300, 1e300);
    /// assert_eq!(s.to_f64(), 1.5);
    /// assert!(s.add_products(&[1.0], &[]).is_err());
    /// ```
    pub fn add_products(&mut self, x: &[f64], y: &[f64]) -> Result<()> {
        crate::error::require_same_len("x and y", x.len(), y.len())?;
        super::large::add_products::<false>(self, x, y);
        Ok(())
    }

    /// Adds the sum of another accumulator.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] when the merged sum would leave
    /// `[-2^3328, 2^3328)`, the part of the range merges may fill (module
    /// documentation): no sum of products of `f64` values gets there, only a
    /// sum merged into copies of itself over a thousand times. `self` is
    /// unchanged then. Until 2026-11-29 such a merge panicked in the next
    /// carry propagation.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut a = ExactSum::new();
    /// a.add(0.1);
    /// let mut b = ExactSum::new();
    /// b.add(-0.1);
    /// a.merge(&b).unwrap();
    /// assert!(a.is_zero());
    /// // Doubling 2^1023 again and again leaves the range after 2304 merges.
    /// let mut s = ExactSum::new();
    /// s.add(2f64.powi(1023));
    /// let doublings = (0..).take_while(|_| s.merge(&s.clone()).is_ok()).count();
    /// assert_eq!(doublings, 3328 - 1023 - 1);
    /// ```
    pub fn merge(&mut self, other: &ExactSum) -> Result<()> {
        let other = other.normalized();
        if other.finite_is_zero() {
            // Nothing to add to the chunks.
        } else if other.top.max(self.reach()) < MAX_MERGED_TOP {
            // Both tops are below `MAX_MERGED_TOP`: the carries end at or
            // below it.
            self.add_chunks(&other);
        } else {
            // Near the top of the range: merge into a normalized copy and
            // keep it only if it fits (below chunk `MAX_MERGED_TOP + 1`).
            let mut merged = self.normalized().into_owned();
            merged.add_chunks(&other);
            if !merged.try_normalize() || merged.top > MAX_MERGED_TOP {
                return Err(VerifyError::invalid(
                    "ExactSum::merge",
                    "the merged sum",
                    "it leaves [-2^3328, 2^3328), beyond the accumulator's range",
                ));
            }
            *self = merged;
        }
        self.specials.merge(other.specials);
        self.zeros = self.zeros.merged(other.zeros);
        Ok(())
    }

    /// Adds a normalized sum's chunks: one addition, each chunk receiving one
    /// value of magnitude `<= 2^32`.
    fn add_chunks(&mut self, other: &ExactSum) {
        debug_assert!(!other.is_dirty());
        self.reserve_add();
        for j in 0..=other.top {
            self.chunks[j] += other.chunks[j];
        }
        self.mark(0, other.top);
    }

    /// The highest chunk written since the last normalization or holding
    /// the normalized top: the sum's top after normalizing is at most one
    /// above it.
    fn reach(&self) -> usize {
        if self.is_dirty() {
            self.top.max(self.dirty_hi)
        } else {
            self.top
        }
    }

    /// Whether no NaN or infinity was added.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_product(1e300, 1e300); // 1e600 overflows f64 but is finite here
    /// assert!(s.is_finite());
    /// s.add_product(0.0, f64::INFINITY);
    /// assert!(!s.is_finite());
    /// ```
    pub fn is_finite(&self) -> bool {
        self.specials.is_empty()
    }

    /// The IEEE 754 result of the non-finite terms, if there were any: NaN if
    /// a NaN, an invalid product (`0 * inf`) or infinities of both signs were
    /// added, else the infinity that was added. Finite terms never produce
    /// one: the exact sum of finite terms is finite even where `f64` overflows.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(f64::MAX);
    /// s.add(f64::MAX);
    /// assert_eq!(s.non_finite(), None); // 2 f64::MAX is exact, though to_f64() is inf
    /// assert_eq!(s.to_f64(), f64::INFINITY);
    /// s.add_product(-2.0, f64::INFINITY);
    /// assert_eq!(s.non_finite(), Some(f64::NEG_INFINITY));
    /// s.add_product(0.0, f64::INFINITY); // 0 * inf is invalid
    /// assert!(s.non_finite().unwrap().is_nan());
    /// ```
    pub fn non_finite(&self) -> Option<f64> {
        self.specials.value()
    }

    /// The exact sum correctly rounded into `format` in `mode`. A non-finite
    /// sum gives `format.round(non_finite, mode)` (NaN for an infinity in a
    /// format without infinities). An exact zero takes the IEEE sign (+0, or
    /// -0 if every term was -0, or -0 toward -infinity when terms cancel).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(1.0);
    /// s.add(2f64.powi(-11)); // a tie in fp16: 1 + 2^-11
    /// assert_eq!(s.round(Format::FP16, RoundingMode::NearestEven), 1.0);
    /// assert_eq!(s.round(Format::FP16, RoundingMode::Up), 1.0 + 2f64.powi(-10));
    /// ```
    pub fn round(&self, format: Format, mode: RoundingMode) -> f64 {
        if let Some(special) = self.non_finite() {
            return format.round(special, mode);
        }
        let normalized = self.normalized();
        match normalized.to_fixed() {
            None => self.zeros.zero(mode),
            Some(fixed) => format.round_fixed(fixed, mode),
        }
    }

    /// The exact sum rounded to nearest `f64` (ties to even).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{mpfr, ExactSum};
    /// let x = [0.1, 0.7, -0.3, 1e-20];
    /// let mut s = ExactSum::new();
    /// s.add_slice(&x);
    /// // Correctly rounded: bit for bit MPFR's single rounding of the exact sum.
    /// assert_eq!(s.to_f64().to_bits(), mpfr::sum(&x).unwrap().to_f64().to_bits());
    /// // Ties go to even: 1 + 2^-53 lies halfway between 1 and 1 + 2^-52.
    /// let mut t = ExactSum::new();
    /// t.add_slice(&[1.0, 2f64.powi(-53)]);
    /// assert_eq!(t.to_f64(), 1.0);
    /// ```
    pub fn to_f64(&self) -> f64 {
        self.round(Format::FP64, RoundingMode::NearestEven)
    }

    /// The exact sum as an MPFR number of sufficient precision; `None` if a
    /// non-finite term was added. An exact zero carries the sign it rounds to
    /// in round-to-nearest.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add(1.0);
    /// let tiny = f64::from_bits(1); // 2^-1074
    /// s.add(tiny); // 1 + 2^-1074 needs 1075 bits
    /// let f = s.to_float().unwrap();
    /// assert!(f.prec() >= 1075);
    /// assert_eq!(f - 1u32, tiny);
    /// s.add(f64::NAN);
    /// assert!(s.to_float().is_none());
    /// ```
    pub fn to_float(&self) -> Option<Float> {
        if !self.is_finite() {
            return None;
        }
        let normalized = self.normalized();
        if normalized.finite_is_zero() {
            let zero = self.zeros.zero(RoundingMode::NearestEven);
            return Some(Float::with_val(53, zero));
        }
        let negative = normalized.chunks[normalized.top] < 0;
        let magnitude = if negative {
            Cow::Owned(normalized.negated())
        } else {
            normalized
        };
        let digits: Vec<u32> = magnitude.chunks[..=magnitude.top]
            .iter()
            .map(|&c| c as u32)
            .collect();
        let integer = Integer::from_digits(&digits, Order::Lsf);
        let mut value = Float::with_val(integer.significant_bits().max(1), integer);
        value <<= LOW_EXP;
        if negative {
            value = -value;
        }
        Some(value)
    }

    /// The sign of the exact sum of the finite terms (non-finite terms are
    /// tracked apart: check [`ExactSum::is_finite`]).
    ///
    /// # Example
    /// ```
    /// use std::cmp::Ordering;
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_slice(&[1e300, -1e300]);
    /// s.add_product(-2f64.powi(-1000), 2f64.powi(-1000)); // -2^-2000
    /// assert_eq!(s.signum(), Ordering::Less); // though it rounds to -0
    /// assert!(s.to_f64() == 0.0 && s.to_f64().is_sign_negative());
    /// s.add(f64::INFINITY); // tracked apart
    /// assert_eq!(s.signum(), Ordering::Less);
    /// ```
    pub fn signum(&self) -> Ordering {
        let normalized = self.normalized();
        if normalized.finite_is_zero() {
            Ordering::Equal
        } else if normalized.chunks[normalized.top] < 0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    /// Whether the exact sum of the finite terms is zero (non-finite terms are
    /// tracked apart: check [`ExactSum::is_finite`]).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::ExactSum;
    /// let mut s = ExactSum::new();
    /// s.add_product(0.1, 0.3);
    /// assert!(!s.is_zero());
    /// s.add_product(-0.3, 0.1); // cancels exactly
    /// assert!(s.is_zero());
    /// let tiny = f64::from_bits(1); // 2^-1074
    /// s.add_product(tiny, tiny); // 2^-2148, nonzero
    /// assert!(!s.is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.normalized().finite_is_zero()
    }

    /// How far `computed` is from the exact sum, with rigorous upper bounds:
    /// `absolute_up` is `|computed - exact|` rounded up to an `f64` (infinite
    /// if that overflows) and `relative_up` bounds `|computed - exact| / |exact|`
    /// from above (it is that ratio rounded up, or rarely the next `f64`
    /// above); it is `None` when the exact sum is zero. If `computed` or the
    /// rounded exact value is not finite the measure is
    /// [`ErrorMeasure::NonFinite`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{ErrorMeasure, ExactSum};
    /// let mut s = ExactSum::new();
    /// s.add(0.1);
    /// s.add(0.2);
    /// let ErrorMeasure::Finite { absolute_up, relative_up, exact, .. } = s.error_of(0.1 + 0.2) else {
    ///     unreachable!()
    /// };
    /// assert_eq!(exact, 0.30000000000000004); // 0.1 + 0.2 rounded once
    /// assert!(absolute_up > 0.0 && absolute_up < 1e-16);
    /// assert!(relative_up.unwrap() < 2f64.powi(-53));
    /// ```
    pub fn error_of(&self, computed: f64) -> ErrorMeasure {
        let exact_rounded = self.non_finite().unwrap_or_else(|| self.to_f64());
        if !computed.is_finite() || !exact_rounded.is_finite() {
            return ErrorMeasure::NonFinite {
                computed,
                exact: exact_rounded,
            };
        }
        let exact = self.normalized();
        let mut difference = exact.clone().into_owned();
        difference.add(-computed);
        difference.normalize();
        let difference = difference.to_fixed().map(abs_fixed);
        let absolute_up = difference.map_or(0.0, |d| Format::FP64.round_fixed(d, RoundingMode::Up));
        let relative_up = exact.to_fixed().map(|x| match difference {
            None => 0.0,
            Some(d) => relative_bound_up(d, abs_fixed(x)),
        });
        ErrorMeasure::Finite {
            absolute_up,
            absolute_down: None,
            relative_up,
            exact: exact_rounded,
        }
    }

    /// Adds `factor * other` exactly, for a finite nonzero `factor` and an
    /// `other` whose terms are `f64` values or products of two (its lowest bit
    /// is then at or above `2^-2148`, so the scaled sum stays in range).
    pub(crate) fn add_multiple(&mut self, other: &ExactSum, factor: f64) -> Result<()> {
        if !factor.is_finite() || factor == 0.0 {
            return Err(VerifyError::invalid(
                "factor",
                factor,
                "must be finite and nonzero",
            ));
        }
        let other = other.normalized();
        self.specials.merge(other.specials.scaled(factor));
        self.zeros = self.zeros.merged(other.zeros.scaled(factor));
        let (m, q) = significand(factor);
        let negative_factor = factor < 0.0;
        for j in 0..=other.top {
            let c = other.chunks[j];
            if c == 0 {
                continue;
            }
            let mut product = c.unsigned_abs() as u128 * m as u128;
            let mut position = (j as i64) * CHUNK_BITS as i64 + q as i64;
            if position < 0 {
                // Bits below 2^LOW_EXP must be zero: `other` ends at 2^-2148 or above.
                let drop = (-position) as u32;
                if drop >= 128 || product.trailing_zeros() < drop {
                    return Err(VerifyError::invalid(
                        "factor",
                        factor,
                        "the scaled sum has bits below the accumulator's range",
                    ));
                }
                product >>= drop;
                position = 0;
            }
            let negative = (c < 0) != negative_factor;
            self.add_u128(negative, product, position as u32);
        }
        Ok(())
    }

    // ----- adding terms -------------------------------------------------

    /// Adds a finite `f64` given by its bits (as in Neal 2015: the 53-bit
    /// significand lands in two consecutive chunks).
    #[inline(always)]
    pub(crate) fn add_finite_bits(&mut self, bits: u64) {
        let field = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & FRACTION_MASK;
        let (m, e) = if field == 0 {
            (fraction, 1)
        } else {
            (fraction | IMPLICIT_BIT, field)
        };
        let position = e + F64_POSITION_OFFSET;
        let j = (position / CHUNK_BITS) as usize;
        let shift = position % CHUNK_BITS;
        // Bits shifted out of the u64 belong to `high`.
        let low = ((m << shift) as i64) & CHUNK_MASK;
        let high = (m >> (CHUNK_BITS - shift)) as i64;
        // Branch-free negation: (v ^ s) - s is -v when s = -1.
        let sign = (bits as i64) >> 63;
        self.reserve_add();
        self.chunks[j] += (low ^ sign) - sign;
        self.chunks[j + 1] += (high ^ sign) - sign;
        self.mark(j, j + 1);
    }

    /// The exact product path: 106-bit integer product at its exponent.
    pub(crate) fn add_product_slow(&mut self, x: f64, y: f64) {
        if !x.is_finite() || !y.is_finite() {
            self.specials.add_product(&[x, y]);
            return;
        }
        let negative = x.is_sign_negative() != y.is_sign_negative();
        if x == 0.0 || y == 0.0 {
            self.zeros.note_zero(negative);
            return;
        }
        self.zeros.note_nonzero();
        let (mx, qx) = significand(x);
        let (my, qy) = significand(y);
        let m = mx as u128 * my as u128;
        // q >= -1074 each, so the position is >= -2148 - LOW_EXP > 0.
        let position = (qx + qy - LOW_EXP) as u32;
        self.add_u128(negative, m, position);
    }

    /// Adds `±magnitude * 2^(LOW_EXP + position)`, split into 32-bit pieces
    /// (each below 2^32, so the whole is one addition of the carry budget).
    #[inline]
    pub(crate) fn add_u128(&mut self, negative: bool, magnitude: u128, position: u32) {
        if magnitude == 0 {
            return;
        }
        let shift = position % CHUNK_BITS;
        let first = (position / CHUNK_BITS) as usize;
        // magnitude << shift spans up to 159 bits: five 32-bit pieces.
        let low = magnitude << shift;
        let top = if shift == 0 {
            0
        } else {
            (magnitude >> (128 - shift)) as u64
        };
        let pieces = [
            (low as u64 & CHUNK_MASK as u64) as i64,
            ((low >> 32) as u64 & CHUNK_MASK as u64) as i64,
            ((low >> 64) as u64 & CHUNK_MASK as u64) as i64,
            (low >> 96) as i64,
            top as i64,
        ];
        let used = (128 - magnitude.leading_zeros() + shift).div_ceil(CHUNK_BITS) as usize;
        debug_assert!(
            first + used < NUM_CHUNKS - 1,
            "term beyond the accumulator's range"
        );
        self.reserve_add();
        let sign = -(negative as i64);
        for (chunk, piece) in self.chunks[first..first + used].iter_mut().zip(pieces) {
            *chunk += (piece ^ sign) - sign;
        }
        self.mark(first, first + used - 1);
    }

    #[inline(always)]
    fn reserve_add(&mut self) {
        if self.adds_left == 0 {
            self.normalize();
        }
        self.adds_left -= 1;
    }

    #[inline(always)]
    fn mark(&mut self, lo: usize, hi: usize) {
        self.dirty_lo = self.dirty_lo.min(lo);
        self.dirty_hi = self.dirty_hi.max(hi);
    }

    fn is_dirty(&self) -> bool {
        self.dirty_lo <= self.dirty_hi
    }

    // ----- normal form --------------------------------------------------

    /// Propagates carries: afterwards chunks below `top` are in `[0, 2^32)`,
    /// chunk `top` is nonzero (unless the sum is zero) and holds the sign, in
    /// `[-2^32, 2^32)`, and chunks above are zero (Neal 2015, carry
    /// propagation, with the sign kept in the top chunk).
    pub(crate) fn normalize(&mut self) {
        let fits = self.try_normalize();
        // `merge` keeps every top at or below `MAX_MERGED_TOP`, and the
        // other terms are below 2^2048 (module documentation), so the top
        // stays below the last chunk and a carry reaches at most that one.
        assert!(fits, "ExactSum beyond its range, which merge refuses");
    }

    /// [`ExactSum::normalize`], or `false` (the state then meaningless) if
    /// the sum carries out of the last chunk.
    fn try_normalize(&mut self) -> bool {
        self.adds_left = ADDS_BETWEEN_CARRIES;
        if !self.is_dirty() {
            return true;
        }
        // The old top chunk may be negative: it has to be normalized too
        // (unless it is zero, which means that the old value was zero).
        let start = if self.chunks[self.top] != 0 {
            self.dirty_lo.min(self.top)
        } else {
            self.dirty_lo
        };
        let end = self.dirty_hi.max(self.top);
        let mut carry = 0i64;
        for c in &mut self.chunks[start..=end] {
            let v = *c + carry;
            *c = v & CHUNK_MASK;
            carry = v >> CHUNK_BITS;
        }
        let mut top = end;
        if carry != 0 {
            // Chunks above `end` were zero; `end + 1` is in range unless the
            // sum left it (only a merge can: `merge` checks).
            if end + 1 == NUM_CHUNKS {
                return false;
            }
            top = end + 1;
            self.chunks[top] = carry;
        }
        // A top chunk of -1 over a chunk c is the same as c - 2^32 one lower.
        while top > 0 && self.chunks[top] == -1 {
            self.chunks[top] = 0;
            self.chunks[top - 1] -= 1 << CHUNK_BITS;
            top -= 1;
        }
        while top > 0 && self.chunks[top] == 0 {
            top -= 1;
        }
        self.top = top;
        // The loop over -1 tops above may have moved the top below every chunk
        // written so far: a sum of exactly -2^(32 F + LOW_EXP), whose lowest
        // written chunk is F, ends as -2^32 in chunk F - 1. The floor must
        // cover that chunk too, or `clear` would leave it behind (review
        // finding; test `clear_forgets_a_top_below_the_written_chunks`).
        if self.chunks[top] != 0 {
            self.floor = self.floor.min(top);
        }
        self.floor = self.floor.min(self.dirty_lo);
        self.dirty_lo = NUM_CHUNKS;
        self.dirty_hi = 0;
        true
    }

    /// This sum in normal form: borrowed if it already is, else a normalized copy.
    pub(crate) fn normalized(&self) -> Cow<'_, ExactSum> {
        if self.is_dirty() {
            let mut copy = self.clone();
            copy.normalize();
            Cow::Owned(copy)
        } else {
            Cow::Borrowed(self)
        }
    }

    /// Normal form required.
    fn finite_is_zero(&self) -> bool {
        debug_assert!(!self.is_dirty());
        self.top == 0 && self.chunks[0] == 0
    }

    /// `-self` in normal form (normal form required).
    fn negated(&self) -> ExactSum {
        let mut negated = self.clone();
        for c in &mut negated.chunks[..=self.top] {
            *c = -*c;
        }
        negated.mark(0, self.top);
        negated.normalize();
        negated
    }

    /// The digits of the absolute value of the finite sum, or `None` for zero.
    /// Normal form required.
    fn magnitude(&self) -> Option<Magnitude<'_>> {
        if self.finite_is_zero() {
            return None;
        }
        let lowest = (self.floor..=self.top)
            .find(|&j| self.chunks[j] != 0)
            .unwrap_or(self.top);
        Some(Magnitude {
            chunks: &self.chunks,
            negative: self.chunks[self.top] < 0,
            lowest,
            top: self.top,
        })
    }

    /// The finite sum as a [`Fixed`] (at least 64 significant bits and a sticky
    /// bit), or `None` for zero. Normal form required.
    pub(crate) fn to_fixed(&self) -> Option<Fixed> {
        let magnitude = self.magnitude()?;
        let negative = magnitude.negative;
        let t = magnitude.top;
        let c = |j: usize| magnitude.digit(j) as u128;
        let (mantissa, exponent, sticky) = if t >= 2 {
            // c(t) >= 1, so the mantissa has at least 65 bits.
            let mantissa = (c(t) << 64) + (c(t - 1) << 32) + c(t - 2);
            // Digits below the lowest nonzero chunk are zero, that one is not.
            let sticky = magnitude.lowest < t - 2;
            (
                mantissa,
                LOW_EXP + (CHUNK_BITS * (t as u32 - 2)) as i32,
                sticky,
            )
        } else {
            let mantissa = (0..=t).fold(0u128, |acc, j| acc + (c(j) << (32 * j)));
            (mantissa, LOW_EXP, false)
        };
        Some(
            Fixed::from_parts(negative, mantissa, exponent, sticky)
                .expect("a sticky mantissa has at least 65 bits"),
        )
    }
}

/// The base-2^32 digits of the absolute value of a normalized nonzero sum,
/// read in place. For a negative sum (top chunk `c_t < 0`, the others in
/// `[0, 2^32)`, lowest nonzero chunk `L`), negating the chunk vector gives the
/// digits `2^32 - c_L` at `L`, `2^32 - 1 - c_j` above it and `-c_t - 1` at the
/// top (or `-c_t` if `L = t`); below `L` they are zero. The top digit is
/// nonzero: normalization never leaves `-1` in a top chunk above chunk 0.
struct Magnitude<'a> {
    chunks: &'a [i64; NUM_CHUNKS],
    negative: bool,
    lowest: usize,
    top: usize,
}

impl Magnitude<'_> {
    /// Digit `j` (at most `2^32`, and below it except possibly at the top).
    fn digit(&self, j: usize) -> u64 {
        let c = self.chunks[j];
        let base = 1i64 << CHUNK_BITS;
        let d = if !self.negative {
            c
        } else if j < self.lowest {
            0
        } else if j == self.top {
            if j == self.lowest { -c } else { -c - 1 }
        } else if j == self.lowest {
            base - c
        } else {
            base - 1 - c
        };
        d as u64
    }
}

/// `|x|` (also the trsv oracle's).
pub(super) fn abs_fixed(x: Fixed) -> Fixed {
    if x.negative() { x.negated() } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> Float {
        Float::with_val(53, x)
    }

    #[test]
    fn exact_remainder_threshold_is_sharp_enough() {
        // 2^-968 is accepted, its predecessor is not.
        assert!(exact_remainder(2f64.powi(-968).to_bits()));
        assert!(!exact_remainder(2f64.powi(-968).next_down().to_bits()));
        assert!(exact_remainder(f64::MAX.to_bits()));
        assert!(!exact_remainder(f64::INFINITY.to_bits()));
        assert!(!exact_remainder(0.0f64.to_bits()));
        // Just above the threshold with the smallest possible operand
        // exponents, the FMA remainder is still exact.
        let x = (1.0 + f64::EPSILON) * 2f64.powi(-485);
        let y = (1.0 + 3.0 * f64::EPSILON) * 2f64.powi(-483);
        let hi = x * y;
        assert!(exact_remainder(hi.to_bits()));
        let lo = x.mul_add(y, -hi);
        let exact = Float::with_val(106, &float(x) * &float(y));
        assert_eq!(Float::with_val(200, &float(hi) + &float(lo)), exact);
    }

    #[test]
    fn carries_and_negative_tops() {
        let mut s = ExactSum::new();
        for _ in 0..5000 {
            s.add(-f64::MAX);
        }
        // Not 2f64.powi(-1074): that is 0 in unoptimized builds.
        s.add(f64::from_bits(1));
        let expected =
            Float::with_val(3000, f64::MAX) * -5000 + Float::with_val(53, f64::from_bits(1));
        assert_eq!(s.to_float().unwrap(), expected);
        assert_eq!(s.to_f64(), f64::NEG_INFINITY);
        assert_eq!(s.round(Format::FP64, RoundingMode::Up), -f64::MAX);
        assert_eq!(s.signum(), Ordering::Less);
    }

    #[test]
    fn scaled_sum_reaches_the_bottom_of_the_range() {
        let mut products = ExactSum::new();
        products.add_product(f64::from_bits(1), -f64::from_bits(3)); // -3 * 2^-2148
        let mut s = ExactSum::new();
        s.add_multiple(&products, f64::from_bits(5)).unwrap(); // * 5 * 2^-1074
        let expected = -Float::with_val(64, Float::i_exp(15, -3222));
        assert_eq!(s.to_float().unwrap(), expected);
        assert_eq!(
            s.round(Format::FP64, RoundingMode::Down),
            -f64::from_bits(1)
        );
    }

    #[test]
    fn clear_forgets_a_top_below_the_written_chunks() {
        // Regression (review): 2^20 - (2^20 + 2^-32) = -2^-32 = -2^(32 * 101 +
        // LOW_EXP). Both terms are written to chunks 101 and 102; normalization
        // leaves -2^32 in chunk 100, below `floor` (101). A later addition above
        // chunk 100 made `clear` start at chunk 101, so the -2^32 survived the
        // clear and the next sum, 1, came out as 1 - 2^-32.
        let mut s = ExactSum::new();
        s.add_slice(&[2f64.powi(20), -(2f64.powi(20) + 2f64.powi(-32))]);
        assert_eq!(
            s.to_float().unwrap(),
            -Float::with_val(53, Float::i_exp(1, -32))
        );
        s.add(2f64.powi(40));
        s.clear();
        s.add(1.0);
        assert_eq!(s.to_float().unwrap(), 1.0);
        assert_eq!(s.round(Format::FP64, RoundingMode::Down), 1.0);
        // The same through the carry budget instead of `add_slice`: 2047
        // additions summing to -2^-32 (fillers in chunks 101 and 102 only),
        // then one more, which normalizes first.
        let mut s = ExactSum::new();
        s.add(2f64.powi(20));
        s.add(-(2f64.powi(20) + 2f64.powi(-32)));
        let big = 2f64.powi(40);
        s.add(big);
        s.add(big);
        s.add(-2.0 * big);
        assert_eq!((ADDS_BETWEEN_CARRIES - 5) % 2, 0);
        for _ in 0..(ADDS_BETWEEN_CARRIES - 5) / 2 {
            s.add(big);
            s.add(-big);
        }
        s.add(big); // normalizes first, then writes above chunk 100
        s.clear();
        s.add(1.0);
        assert_eq!(s.to_float().unwrap(), 1.0);
    }

    #[test]
    fn clear_resets_everything() {
        let mut s = ExactSum::new();
        s.add(-3.5);
        s.add(f64::NAN);
        s.clear();
        assert!(s.is_zero() && s.is_finite());
        assert_eq!(s.to_f64().to_bits(), 0.0f64.to_bits());
        s.add(2.0);
        assert_eq!(s.to_f64(), 2.0);
    }
}
