//! Bulk exact summation and the exact dot product: a "large" accumulator
//! in front of the small one ([`ExactSum`]), after Neal (arXiv:1505.05571,
//! 2015), reorganised for speed.
//!
//! Neal's large accumulator has one 64-bit bin per sign-and-exponent field of
//! an `f64`, each with a count of the additions it can still take before it
//! must be moved into the small accumulator. Measured here (docs/perf.md),
//! that per-bin count is a second store-to-load dependency chain and a branch
//! per term, and the exact dot product ran 6x slower than a naive one. So:
//!
//! - **Bins by exponent, signed.** Bin `E` holds `sum ±m 2^(E - 1075)` as an
//!   integer `sum ±m` in an `i64`, for terms with biased exponent field `E` and
//!   53-bit significand `m` (implicit bit included). A bin can take 1024 terms
//!   (`1024 (2^53 - 1) < 2^63`) before it overflows.
//! - **No per-bin counts.** Terms are processed in blocks of [`BLOCK`]
//!   elements; after [`BLOCKS_PER_FLUSH`] blocks (1024 elements, about 256 per
//!   copy of the bins, a few more for copy 0 in a last partial block) fewer
//!   than 600 terms have reached any one bin of any one copy (at most two per
//!   element: `hi` and `lo` of one product are never in the same bin), and every
//!   bin in the range of exponents the blocks used is moved into a second level
//!   of `i128` bins, which cannot overflow (it would take 2^63 flushes). At the
//!   end the second level goes into the small accumulator.
//! - **Two phases per block.** First, branch-free and vectorised (AVX2 on
//!   x86-64, chosen at run time): products split by TwoProduct
//!   (`hi = fl(x y)`, `lo = fma(x, y, -hi)`), each half turned into a bin index
//!   and a signed significand, and the block's exponent range (from 106 below
//!   the smallest `hi`, the lowest a nonzero `lo` can be, to the largest `hi`).
//!   Then a scalar
//!   scatter adds them to four interleaved copies of the bins (element `k` to
//!   copy `k mod 4`), so that terms with equal exponents in a row do not wait on
//!   each other's store-to-load forwarding. A zero `lo` adds 0 (skipped in effect).
//! - **A stricter fast-path condition for products**: `hi` finite and
//!   `|hi| >= 2^-916`. Then `lo` is zero or normal, so every significand has its
//!   implicit bit: `lo` is a nonzero multiple of `2^(q_x + q_y)` and
//!   `q_x + q_y >= e_x + e_y - 104 >= e_hi - 106 >= -1022` (notation of
//!   [`super::accumulator`]); the condition also implies the one for an exact
//!   TwoProduct (`|hi| >= 2^-968`). Values: finite and normal. Everything else
//!   (zeros, subnormal values, products near underflow or beyond overflow, NaN,
//!   infinities) is added by the exact per-term path after the block.
//!
//! The bins (64 KB + 32 KB) are allocated once per thread and kept (zeroed
//! after each use), so that a call costs no allocation or page faults; inputs
//! shorter than [`LARGE_THRESHOLD`] go straight into the small accumulator, so
//! that a 16-term dot inside a GEMM stays cheap.

use super::accumulator::{
    ExactSum, F64_POSITION_OFFSET, FRACTION_MASK, IMPLICIT_BIT, exact_remainder,
};
use crate::error::{Result, require_finite, require_same_len};
use crate::format::{Format, RoundingMode};
use std::cell::RefCell;

/// Inputs at least this long go through the bins.
pub(crate) const LARGE_THRESHOLD: usize = 128;

/// Elements per block.
const BLOCK: usize = 256;
/// Blocks between flushes of the first-level bins: fewer than 600 terms per
/// bin and copy (module documentation), below the 1024 an `i64` bin holds.
const BLOCKS_PER_FLUSH: usize = 4;
const COPIES: usize = 4;
const FIELDS: usize = 2048;
const FIELD_MASK: usize = FIELDS - 1;
/// `hi` needs a biased exponent of at least this (`|hi| >= 2^-916`).
const PRODUCT_MIN_FIELD: u64 = (1023 - 916) as u64;
const MAX_FINITE_FIELD: u64 = 2046;

/// The two levels of bins; all zero between uses.
struct Bins {
    level1: Box<[[i64; FIELDS]; COPIES]>,
    level2: Box<[i128; FIELDS]>,
}

thread_local! {
    static SPARE_BINS: RefCell<Option<Bins>> = const { RefCell::new(None) };
}

impl Bins {
    /// This thread's bins, or new ones (if another call on this thread holds them).
    fn take() -> Bins {
        SPARE_BINS
            .with(|spare| spare.borrow_mut().take())
            .unwrap_or_else(|| Bins {
                level1: vec![[0i64; FIELDS]; COPIES]
                    .into_boxed_slice()
                    .try_into()
                    .expect("COPIES rows"),
                level2: vec![0i128; FIELDS]
                    .into_boxed_slice()
                    .try_into()
                    .expect("FIELDS bins"),
            })
    }

    /// Gives the (zeroed) bins back for the next call on this thread.
    fn give_back(self) {
        debug_assert!(self.level1.iter().all(|copy| copy.iter().all(|&v| v == 0)));
        debug_assert!(self.level2.iter().all(|&v| v == 0));
        SPARE_BINS.with(|spare| *spare.borrow_mut() = Some(self));
    }

    /// Moves first-level bins `range` into the second level and zeroes them.
    fn flush(&mut self, range: &mut FieldRange) {
        for e in range.lo..=range.hi {
            let mut total = 0i128;
            for copy in self.level1.iter_mut() {
                total += copy[e] as i128;
                copy[e] = 0;
            }
            self.level2[e] += total;
        }
        *range = FieldRange::EMPTY;
    }

    /// Moves second-level bins `range` into the small accumulator and zeroes them.
    fn drain(&mut self, range: FieldRange, acc: &mut ExactSum) {
        for e in range.lo..=range.hi {
            let v = self.level2[e];
            if v != 0 {
                let magnitude = v.unsigned_abs();
                // Bin e holds multiples of 2^(e - 1075), e >= 1.
                let position = e as u32 + F64_POSITION_OFFSET;
                acc.add_u128(v < 0, magnitude, position);
                self.level2[e] = 0;
            }
        }
    }
}

/// A range of exponent fields (empty when `lo > hi`).
#[derive(Clone, Copy, Debug)]
struct FieldRange {
    lo: usize,
    hi: usize,
}

impl FieldRange {
    const EMPTY: FieldRange = FieldRange { lo: FIELDS, hi: 0 };
    fn include(&mut self, other: FieldRange) {
        self.lo = self.lo.min(other.lo);
        self.hi = self.hi.max(other.hi);
    }
}

/// One block's terms in bin form: index and signed significand (0 for terms
/// that take the exact per-term path, or for a zero `lo`).
struct Block {
    hi_index: [u32; BLOCK],
    hi_value: [i64; BLOCK],
    lo_index: [u32; BLOCK],
    lo_value: [i64; BLOCK],
}

/// What the first phase learned about a block.
struct Summary {
    /// Exponent fields of the nonzero bin values.
    range: FieldRange,
    /// Whether some term must take the exact per-term path.
    any_slow: bool,
    /// Whether some term went into the bins (so the sum has a nonzero term).
    any_fast: bool,
}

/// `±m` for the bits of a finite normal `f64` (`m` with its implicit bit).
#[inline(always)]
fn signed_significand(bits: u64) -> i64 {
    let m = ((bits & FRACTION_MASK) | IMPLICIT_BIT) as i64;
    let sign = (bits as i64) >> 63;
    (m ^ sign) - sign
}

/// Phase one for products: branch-free, so that it vectorises.
#[inline(always)]
fn split_products<const ABS: bool>(x: &[f64], y: &[f64], block: &mut Block) -> Summary {
    let mut lo_field = 4095i64;
    let mut hi_field = 0i64;
    let mut slow = 0i64;
    let n = x.len().min(y.len()).min(BLOCK);
    for k in 0..n {
        let (a, b) = if ABS {
            (x[k].abs(), y[k].abs())
        } else {
            (x[k], y[k])
        };
        let hi = a * b;
        let lo = a.mul_add(b, -hi);
        let (hb, lb) = (hi.to_bits(), lo.to_bits());
        let hf = ((hb >> 52) & 0x7ff) as i64;
        let lf = ((lb >> 52) & 0x7ff) as i64;
        let ok = (hf - PRODUCT_MIN_FIELD as i64) as u64 <= MAX_FINITE_FIELD - PRODUCT_MIN_FIELD;
        let ok_mask = -(ok as i64);
        block.hi_index[k] = hf as u32;
        block.lo_index[k] = lf as u32;
        block.hi_value[k] = signed_significand(hb) & ok_mask;
        block.lo_value[k] = signed_significand_or_zero(lb, lf) & ok_mask;
        hi_field = hi_field.max(hf & ok_mask);
        lo_field = lo_field.min(hf | (!ok_mask & 4095));
        slow |= !ok_mask & 1;
    }
    let fast = hi_field != 0;
    Summary {
        range: FieldRange {
            lo: (lo_field - 106).max(1) as usize,
            hi: hi_field as usize,
        },
        any_slow: slow != 0,
        any_fast: fast,
    }
}

#[inline(always)]
fn signed_significand_or_zero(bits: u64, field: i64) -> i64 {
    let m = ((bits & FRACTION_MASK) | (((field != 0) as u64) << 52)) as i64;
    let sign = (bits as i64) >> 63;
    (m ^ sign) - sign
}

/// Phase one for values: normal finite values go into the bins.
#[inline(always)]
fn split_values(x: &[f64], block: &mut Block) -> Summary {
    let mut lo_field = 2047u64;
    let mut hi_field = 0u64;
    let mut slow = 0u64;
    let mut fast = 0u64;
    let slots = block.hi_index.iter_mut().zip(block.hi_value.iter_mut());
    for (&v, (index, value)) in x.iter().zip(slots) {
        let bits = v.to_bits();
        let f = (bits >> 52) & 0x7ff;
        let ok = (1..=MAX_FINITE_FIELD).contains(&f);
        let ok_mask = (ok as u64).wrapping_neg();
        *index = f as u32;
        *value = signed_significand(bits) & ok_mask as i64;
        hi_field = hi_field.max(f & ok_mask);
        lo_field = lo_field.min((f & ok_mask) | (2047 & !ok_mask));
        slow |= !ok_mask & 1;
        fast |= ok_mask & 1;
    }
    Summary {
        range: FieldRange {
            lo: lo_field as usize,
            hi: hi_field as usize,
        },
        any_slow: slow != 0,
        any_fast: fast != 0,
    }
}

/// Phase two: adds `value[k]` to bin `index[k]` of copy `k mod 4`.
#[inline(always)]
fn scatter(bins: &mut [[i64; FIELDS]; COPIES], index: &[u32], value: &[i64]) {
    let (index4, index_rest) = index.as_chunks::<COPIES>();
    let (value4, value_rest) = value.as_chunks::<COPIES>();
    for (i, v) in index4.iter().zip(value4) {
        for c in 0..COPIES {
            bins[c][i[c] as usize & FIELD_MASK] += v[c];
        }
    }
    for (&i, &v) in index_rest.iter().zip(value_rest) {
        bins[0][i as usize & FIELD_MASK] += v;
    }
}

/// Phase two for products: [`scatter`] of the `hi` and the `lo` terms in one
/// loop (more independent additions in flight).
#[inline(always)]
fn scatter_split(bins: &mut [[i64; FIELDS]; COPIES], block: &Block, n: usize) {
    let (hi_index, hi_index_rest) = block.hi_index[..n].as_chunks::<COPIES>();
    let (hi_value, hi_value_rest) = block.hi_value[..n].as_chunks::<COPIES>();
    let (lo_index, lo_index_rest) = block.lo_index[..n].as_chunks::<COPIES>();
    let (lo_value, lo_value_rest) = block.lo_value[..n].as_chunks::<COPIES>();
    let quads = hi_index.iter().zip(hi_value).zip(lo_index).zip(lo_value);
    for (((hi, hv), lo), lv) in quads {
        for c in 0..COPIES {
            bins[c][hi[c] as usize & FIELD_MASK] += hv[c];
            bins[c][lo[c] as usize & FIELD_MASK] += lv[c];
        }
    }
    scatter(bins, hi_index_rest, hi_value_rest);
    scatter(bins, lo_index_rest, lo_value_rest);
}

/// Adds every value of `x` to `acc`, leaving it in normal form.
pub(crate) fn add_values(acc: &mut ExactSum, x: &[f64]) {
    add_values_unnormalized(acc, x);
    acc.normalize();
}

fn add_values_unnormalized(acc: &mut ExactSum, x: &[f64]) {
    if x.len() < LARGE_THRESHOLD {
        for &v in x {
            acc.add(v);
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { values_avx2(acc, x) };
            return;
        }
    }
    values_blocked(acc, x);
}

/// [`values_blocked`] compiled with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn values_avx2(acc: &mut ExactSum, x: &[f64]) {
    values_blocked(acc, x);
}

#[inline(always)]
fn values_blocked(acc: &mut ExactSum, x: &[f64]) {
    let mut bins = Bins::take();
    let mut block = Block {
        hi_index: [0; BLOCK],
        hi_value: [0; BLOCK],
        lo_index: [0; BLOCK],
        lo_value: [0; BLOCK],
    };
    let mut pending = FieldRange::EMPTY;
    let mut used = FieldRange::EMPTY;
    let mut any_fast = false;
    for (number, chunk) in x.chunks(BLOCK).enumerate() {
        let summary = split_values(chunk, &mut block);
        let n = chunk.len();
        scatter(&mut bins.level1, &block.hi_index[..n], &block.hi_value[..n]);
        pending.include(summary.range);
        any_fast |= summary.any_fast;
        if summary.any_slow {
            for &v in chunk {
                let f = (v.to_bits() >> 52) & 0x7ff;
                if f == 0 || f == 0x7ff {
                    acc.add(v);
                }
            }
        }
        if (number + 1) % BLOCKS_PER_FLUSH == 0 {
            used.include(pending);
            bins.flush(&mut pending);
        }
    }
    used.include(pending);
    bins.flush(&mut pending);
    bins.drain(used, acc);
    bins.give_back();
    if any_fast {
        acc.zeros.note_nonzero();
    }
}

/// Adds every product `x[i] y[i]` (or `|x[i] y[i]|` when `ABS`) to `acc`;
/// the lengths are equal.
pub(crate) fn add_products<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    add_products_unnormalized::<ABS>(acc, x, y);
    // Leave the sum in normal form, so that reading it needs no copy.
    acc.normalize();
}

fn add_products_unnormalized<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    debug_assert_eq!(x.len(), y.len());
    #[cfg(target_arch = "x86_64")]
    {
        if x.len() >= LARGE_THRESHOLD
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            unsafe { products_avx2_fma::<ABS>(acc, x, y) };
            return;
        }
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            unsafe { products_fma::<ABS>(acc, x, y) };
            return;
        }
    }
    products::<ABS>(acc, x, y);
}

/// [`products`] compiled with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn products_avx2_fma<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    products::<ABS>(acc, x, y);
}

/// [`products`] compiled with FMA (one instruction instead of a libm call).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn products_fma<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    products::<ABS>(acc, x, y);
}

#[inline(always)]
fn products<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    if x.len() < LARGE_THRESHOLD {
        products_direct::<ABS>(acc, x, y);
    } else {
        products_blocked::<ABS>(acc, x, y);
    }
}

/// Short inputs: each product straight into the small accumulator.
#[inline(always)]
fn products_direct<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    let mut any_split = false;
    for (&a, &b) in x.iter().zip(y) {
        let (a, b) = if ABS { (a.abs(), b.abs()) } else { (a, b) };
        let hi = a * b;
        let bits = hi.to_bits();
        if exact_remainder(bits) {
            let lo = a.mul_add(b, -hi);
            acc.add_finite_bits(bits);
            if lo != 0.0 {
                acc.add_finite_bits(lo.to_bits());
            }
            any_split = true;
        } else {
            acc.add_product_slow(a, b);
        }
    }
    // Products that were split are nonzero; the others noted their own signs.
    if any_split {
        acc.zeros.note_nonzero();
    }
}

#[inline(always)]
fn products_blocked<const ABS: bool>(acc: &mut ExactSum, x: &[f64], y: &[f64]) {
    let mut bins = Bins::take();
    let mut block = Block {
        hi_index: [0; BLOCK],
        hi_value: [0; BLOCK],
        lo_index: [0; BLOCK],
        lo_value: [0; BLOCK],
    };
    let mut pending = FieldRange::EMPTY;
    let mut used = FieldRange::EMPTY;
    let mut any_fast = false;
    for (number, (xs, ys)) in x.chunks(BLOCK).zip(y.chunks(BLOCK)).enumerate() {
        let summary = split_products::<ABS>(xs, ys, &mut block);
        let n = xs.len();
        scatter_split(&mut bins.level1, &block, n);
        pending.include(summary.range);
        any_fast |= summary.any_fast;
        if summary.any_slow {
            for (&a, &b) in xs.iter().zip(ys) {
                let (a, b) = if ABS { (a.abs(), b.abs()) } else { (a, b) };
                let field = ((a * b).to_bits() >> 52) & 0x7ff;
                if field.wrapping_sub(PRODUCT_MIN_FIELD) > MAX_FINITE_FIELD - PRODUCT_MIN_FIELD {
                    acc.add_product_slow(a, b);
                }
            }
        }
        if (number + 1) % BLOCKS_PER_FLUSH == 0 {
            used.include(pending);
            bins.flush(&mut pending);
        }
    }
    used.include(pending);
    bins.flush(&mut pending);
    bins.drain(used, acc);
    bins.give_back();
    if any_fast {
        acc.zeros.note_nonzero();
    }
}

/// The exact dot product `sum x[i] y[i]`.
///
/// An empty dot product is exactly +0 (the sum of no terms), not an error.
/// NaN and infinities follow IEEE 754 ([`ExactSum::non_finite`]); finite
/// products never overflow.
///
/// # Errors
/// [`VerifyError::LengthMismatch`](crate::VerifyError::LengthMismatch) if the lengths differ.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::dot;
/// let x = [1e308, 1.0, -1e308];
/// let y = [10.0, 1e-300, 10.0];
/// assert_eq!(dot(&x, &y).unwrap().to_f64(), 1e-300);
/// assert_eq!(dot(&[], &[]).unwrap().to_f64(), 0.0);
/// ```
pub fn dot(x: &[f64], y: &[f64]) -> Result<ExactSum> {
    require_same_len("x and y", x.len(), y.len())?;
    let mut acc = ExactSum::new();
    add_products::<false>(&mut acc, x, y);
    Ok(acc)
}

/// The exact sum of `x`. An empty sum is exactly +0.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::sum;
/// let s = sum(&[0.1; 10]).unwrap();
/// // Ten times the double nearest 0.1 is 1 + 5.6e-17, which rounds to 1;
/// // the naive loop gives 0.9999999999999999.
/// assert_eq!(s.to_f64(), 1.0);
/// assert_eq!([0.1f64; 10].iter().sum::<f64>(), 0.9999999999999999);
/// ```
pub fn sum(x: &[f64]) -> Result<ExactSum> {
    let mut acc = ExactSum::new();
    add_values(&mut acc, x);
    Ok(acc)
}

/// `sum |x[i] y[i]|` rounded up to an `f64` (infinite if it overflows), the
/// quantity most dot-product error bounds are proportional to.
///
/// # Errors
/// [`VerifyError::LengthMismatch`](crate::VerifyError::LengthMismatch) if the
/// lengths differ, [`VerifyError::NonFinite`](crate::VerifyError::NonFinite)
/// for a NaN or infinite input.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::abs_dot_up;
/// assert_eq!(abs_dot_up(&[1.0, -2.0], &[3.0, 4.0]).unwrap(), 11.0);
/// // (1 + eps)^2 = 1 + 2 eps + eps^2: nearest gives 1 + 2 eps, upward 1 + 3 eps.
/// let x = 1.0 + f64::EPSILON;
/// assert_eq!(abs_dot_up(&[x], &[-x]).unwrap(), 1.0 + 3.0 * f64::EPSILON);
/// assert_eq!(abs_dot_up(&[1e300, 1e300], &[1e10, 1e10]).unwrap(), f64::INFINITY);
/// ```
pub fn abs_dot_up(x: &[f64], y: &[f64]) -> Result<f64> {
    require_same_len("x and y", x.len(), y.len())?;
    require_finite("x", x)?;
    require_finite("y", y)?;
    let mut acc = ExactSum::new();
    add_products::<true>(&mut acc, x, y);
    Ok(acc.round(Format::FP64, RoundingMode::Up))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_short_paths_agree() {
        // Long enough for several flushes, with one exponent dominating.
        let n = 3 * BLOCK * BLOCKS_PER_FLUSH + 17;
        let x: Vec<f64> = (0..n).map(|i| 1.0 + (i as f64) * 2f64.powi(-40)).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    -1.5
                } else {
                    1.0 + 2f64.powi(-30)
                }
            })
            .collect();
        let long = dot(&x, &y).unwrap();
        let mut short = ExactSum::new();
        for (a, b) in x.chunks(100).zip(y.chunks(100)) {
            short.add_products(a, b).unwrap();
        }
        assert_eq!(long.to_float(), short.to_float());
        let mut one_by_one = ExactSum::new();
        for (&a, &b) in x.iter().zip(&y) {
            one_by_one.add_product(a, b);
        }
        assert_eq!(long.to_float(), one_by_one.to_float());
    }

    #[test]
    fn products_around_the_fast_path_thresholds() {
        // Products from 2^-980 to 2^-900 in long inputs: across 2^-968 (exact
        // TwoProduct) and 2^-916 (lo zero or normal), with full significands.
        let n = 4 * BLOCK + 3;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let e = -530 + (i % 80) as i32;
            let m = |r: u64| 1.0 + (r >> 12) as f64 * f64::EPSILON;
            x.push(m(next()) * 2f64.powi(e));
            y.push(-m(next()) * 2f64.powi(-450 - (i % 7) as i32));
        }
        let long = dot(&x, &y).unwrap();
        let mut one_by_one = ExactSum::new();
        for (&a, &b) in x.iter().zip(&y) {
            one_by_one.add_product_slow(a, b);
        }
        assert_eq!(long.to_float(), one_by_one.to_float());
    }

    #[test]
    fn long_sum_with_subnormals_and_signs() {
        let n = 10_000;
        let x: Vec<f64> = (0..n)
            .map(|i| {
                let v = f64::from_bits(1 + i as u64 * 12345);
                if i % 2 == 0 { v } else { -v * 3.0 }
            })
            .collect();
        let long = sum(&x).unwrap();
        let mut short = ExactSum::new();
        for &v in &x {
            short.add(v);
        }
        assert_eq!(long.to_float(), short.to_float());
    }

    #[test]
    fn exact_zero_sign_of_long_inputs() {
        let x = vec![-0.0; 2 * LARGE_THRESHOLD];
        assert!(sum(&x).unwrap().to_f64().is_sign_negative());
        let y = vec![1.0; 2 * LARGE_THRESHOLD];
        assert!(dot(&x, &y).unwrap().to_f64().is_sign_negative());
        let mut z = vec![1.0; 2 * LARGE_THRESHOLD];
        z[LARGE_THRESHOLD] = -((2 * LARGE_THRESHOLD - 1) as f64);
        let s = sum(&z).unwrap();
        assert!(s.to_f64().is_sign_positive());
        assert!(s.round(Format::FP64, RoundingMode::Down).is_sign_negative());
    }
}
