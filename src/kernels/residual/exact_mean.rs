//! The exactly rounded mean of `|x|` over the nonzero entries: the limit of
//! the code's reduction rule (`|x| >= 2 M mean_nnz|X|`, [`super::reduce`]).
//!
//! Why exact: the GPU computes the limit in parallel and must agree with the
//! CPU model bit for bit (the masks, hence the sparse matrices, depend on
//! it). A floating-point sum depends on its order; the exact sum does not.
//! The mean here is `RN_64(S / c)`, with `S` the exact sum of the nonzero
//! `|x|` and `c` their count, whatever the order or the machine.
//!
//! How: every finite binary64 value is `m 2^(max(E, 1) - 1075)` with an
//! integer significand `m < 2^53` and its biased exponent field `E`. Summing
//! `m` per exponent field ([`AbsSumBins`], `u128` bins: exact for fewer than
//! `2^75` terms) and weighting the bins by their powers of two at the end
//! gives `S` exactly as an integer multiple of `2^-1074`. The device does the
//! same over binary32 fields (`kernels/residual.cu`, `residual_abs_bins_f32`:
//! 24-bit significands in `u64` bins, exact for fewer than `2^40` terms,
//! one shared-memory histogram per block); [`AbsSumBins::from_f32_bins`]
//! turns them into the same exact `S`. The division is rounded to odd at 128
//! bits and then to nearest binary64 (Boldo and Melquiond, *Emulation of FMA
//! and correctly rounded sums: proved algorithms using rounding to odd*, IEEE
//! Trans. Computers 57(4), 2008, Theorem 1: rounding to odd at `p + 2` bits or
//! more, then to nearest at `p` bits, is the correct rounding), which also
//! holds for a subnormal result.
//!
//! Replaces the sequential binary64 sum of the authors' code
//! (`get_nnz_avg`); the two differ by at most the rounding errors of that sum.

use boundgate_verify::format::{Format, RoundingMode};
use rug::float::Round;
use rug::{Float, Integer};

/// Biased exponent fields of binary64 (0 and 1 share the weight `2^-1074`).
const F64_FIELDS: usize = 2047;
/// Biased exponent fields of binary32 (0 and 1 share the weight `2^-149`).
pub const F32_FIELDS: usize = 256;

/// Per-exponent sums of the significands of the nonzero `|x|`, and their count.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::exact_mean::AbsSumBins;
/// let mut bins = AbsSumBins::new();
/// for v in [0.1, -0.2, 0.0, 0.3] {
///     bins.add(v);
/// }
/// assert_eq!(bins.count(), 3);
/// // (0.1 + 0.2 + 0.3) / 3 exactly, then rounded once:
/// assert_eq!(bins.mean(), 0.2);
/// // the sequential binary64 sum rounds twice on the way:
/// assert_ne!((0.1 + 0.2 + 0.3) / 3.0, 0.2);
/// ```
#[derive(Clone, Debug)]
pub struct AbsSumBins {
    bins: Vec<u128>,
    count: u64,
}

impl Default for AbsSumBins {
    fn default() -> Self {
        Self::new()
    }
}

impl AbsSumBins {
    /// No terms yet.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// let bins = AbsSumBins::new();
    /// assert_eq!(bins.count(), 0);
    /// assert_eq!(bins.mean(), 0.0);
    /// ```
    pub fn new() -> AbsSumBins {
        AbsSumBins {
            bins: vec![0; F64_FIELDS],
            count: 0,
        }
    }

    /// Adds `|v|` when `v` is nonzero and finite (the residual method
    /// refuses non-finite inputs before it reduces; they are skipped here).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// let mut bins = AbsSumBins::new();
    /// for v in [0.0, -0.0, f64::NAN, f64::INFINITY] {
    ///     bins.add(v); // skipped
    /// }
    /// assert_eq!(bins.count(), 0);
    /// // the smallest subnormal is counted with its exact weight
    /// bins.add(-f64::from_bits(1));
    /// assert_eq!(bins.count(), 1);
    /// assert_eq!(bins.mean(), f64::from_bits(1));
    /// ```
    #[inline]
    pub fn add(&mut self, v: f64) {
        let bits = v.to_bits() & !(1u64 << 63);
        if bits == 0 || bits >= 0x7ff0_0000_0000_0000 {
            return;
        }
        let field = (bits >> 52) as usize;
        let fraction = bits & ((1u64 << 52) - 1);
        let (slot, significand) = if field == 0 {
            (1, fraction)
        } else {
            (field, fraction | (1u64 << 52))
        };
        self.bins[slot] += u128::from(significand);
        self.count += 1;
    }

    /// The bins of `values`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// let bins = AbsSumBins::of([1.0, -2.0, 0.0, f64::NAN]);
    /// assert_eq!(bins.count(), 2);
    /// assert_eq!(bins.mean(), 1.5);
    /// ```
    pub fn of(values: impl IntoIterator<Item = f64>) -> AbsSumBins {
        let mut bins = AbsSumBins::new();
        for v in values {
            bins.add(v);
        }
        bins
    }

    /// The bins of a slice: four bin sets over interleaved elements, merged
    /// at the end (exact, so the split changes nothing), so that consecutive
    /// values of one binade do not wait on each other's store to one bin.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// // seven values: one group of four and a remainder of three
    /// let v = [1.0, -2.0, 3.0, 0.0, 5.0, -6.0, 7.0];
    /// let bins = AbsSumBins::of_slice(&v);
    /// assert_eq!(bins.count(), 6);
    /// assert_eq!(bins.mean(), 4.0); // 24 / 6
    /// assert_eq!(bins.mean(), AbsSumBins::of(v).mean());
    /// ```
    pub fn of_slice(values: &[f64]) -> AbsSumBins {
        let [mut a, mut b, mut c, mut d] = std::array::from_fn(|_| AbsSumBins::new());
        let chunks = values.chunks_exact(4);
        for &v in chunks.remainder() {
            a.add(v);
        }
        for q in chunks {
            a.add(q[0]);
            b.add(q[1]);
            c.add(q[2]);
            d.add(q[3]);
        }
        for other in [&b, &c, &d] {
            a.merge(other);
        }
        a
    }

    /// Adds `other`'s terms (exact).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// let mut a = AbsSumBins::of([1.0]);
    /// a.merge(&AbsSumBins::of([-2.0, 0.0, 6.0]));
    /// assert_eq!(a.count(), 3);
    /// assert_eq!(a.mean(), 3.0);
    /// // the exact sum does not overflow where a binary64 sum would
    /// let mut big = AbsSumBins::of([f64::MAX]);
    /// big.merge(&AbsSumBins::of([f64::MAX]));
    /// assert_eq!(big.mean(), f64::MAX);
    /// ```
    pub fn merge(&mut self, other: &AbsSumBins) {
        for (mine, theirs) in self.bins.iter_mut().zip(&other.bins) {
            *mine += theirs;
        }
        self.count += other.count;
    }

    /// From the device's binary32 bins and the count of nonzero `|x|`:
    /// `bins[E]` is a sum of integer terms each weighing `2^(E - 150)` (the
    /// weight of one unit of a 24-bit significand of biased exponent field
    /// `E`; subnormals in `bins[1]` with their fraction, `bins[0]` unused).
    /// The kernel puts most values' significands, shifted, in the bin of the
    /// lowest field of a window (kernels/residual.cu: residual_abs_bins_f32);
    /// only the weighted sum matters, and it is formed exactly.
    ///
    /// # Errors
    /// A slice that is not [`F32_FIELDS`] long, or a nonzero `bins[0]`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::{AbsSumBins, F32_FIELDS};
    /// // 1.0f32 and 1.5f32: field 127, 24-bit significands 2^23 and 3 * 2^22.
    /// let mut bins = vec![0u64; F32_FIELDS];
    /// bins[127] = (1 << 23) + (3 << 22);
    /// let s = AbsSumBins::from_f32_bins(&bins, 2).unwrap();
    /// assert_eq!(s.mean(), 1.25);
    /// assert_eq!(s.mean(), AbsSumBins::of([1.0, 1.5]).mean());
    /// assert!(AbsSumBins::from_f32_bins(&bins[..F32_FIELDS - 1], 2).is_err());
    /// bins[0] = 1;
    /// assert!(AbsSumBins::from_f32_bins(&bins, 2).is_err());
    /// ```
    pub fn from_f32_bins(bins: &[u64], count: u64) -> Result<AbsSumBins, String> {
        if bins.len() != F32_FIELDS {
            return Err(format!(
                "{} binary32 bins, expected {F32_FIELDS}",
                bins.len()
            ));
        }
        if bins[0] != 0 {
            return Err("binary32 bin 0 must be empty (subnormals go to bin 1)".into());
        }
        // Field E >= 1 of binary32 weighs 2^(E - 150) = 2^((E + 925) - 1075)
        // per unit of its 24-bit significand: the binary64 field E + 925,
        // whose weight per unit is the same power of two.
        let mut out = AbsSumBins::new();
        for (field, &sum) in bins.iter().enumerate().skip(1) {
            out.bins[field + 925] += u128::from(sum);
        }
        out.count = count;
        Ok(out)
    }

    /// How many nonzero values were added.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// assert_eq!(AbsSumBins::of([0.0, -0.0, 3.0, f64::INFINITY, -1e-310]).count(), 2);
    /// ```
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The exact sum as an integer multiple of `2^-1074`.
    fn exact_sum_units(&self) -> Integer {
        let mut sum = Integer::new();
        for (field, &b) in self.bins.iter().enumerate() {
            if b != 0 {
                // Weight 2^(max(field, 1) - 1075) = 2^-1074 * 2^(max(field, 1) - 1).
                sum += Integer::from(b) << (field.max(1) - 1) as u32;
            }
        }
        sum
    }

    /// `RN_64(S / count)`: the exactly rounded mean; 0 when nothing was added.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::exact_mean::AbsSumBins;
    /// // the binary64 sum overflows; the exact one does not
    /// assert_eq!((f64::MAX + f64::MAX) / 2.0, f64::INFINITY);
    /// assert_eq!(AbsSumBins::of([f64::MAX, -f64::MAX]).mean(), f64::MAX);
    /// // 1 + 2^-53 + 2^-53 = 1 + 2^-52 exactly; summed in binary64 from the left
    /// // each 2^-53 is lost (ties to even)
    /// let h = f64::EPSILON / 2.0;
    /// assert_eq!(1.0 + h + h, 1.0);
    /// assert_eq!(AbsSumBins::of([1.0, h, h]).mean(), (1.0 + f64::EPSILON) / 3.0);
    /// ```
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let units = self.exact_sum_units();
        let precision = units.significant_bits().max(1) + 64;
        // Exact: the integer fits the precision; scaling by 2^-1074 is exact.
        let sum = Float::with_val(precision, &units) >> 1074u32;
        // Round to odd at 128 bits: truncate, and make the last bit 1 when inexact.
        let (mut q, dir) = Float::with_val_round(128, &sum / self.count, Round::Zero);
        if dir != std::cmp::Ordering::Equal {
            let (significand, _) = q.to_integer_exp().expect("a finite quotient");
            if significand.is_even() {
                q.next_up();
            }
        }
        Format::FP64.round_float(&q, RoundingMode::NearestEven)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Rational;

    /// The correctly rounded mean by rational arithmetic (rounded once, also
    /// for a subnormal mean).
    fn rational_mean(values: &[f64]) -> f64 {
        let nonzero: Vec<f64> = values.iter().copied().filter(|&v| v != 0.0).collect();
        if nonzero.is_empty() {
            return 0.0;
        }
        let mut sum = Rational::new();
        for v in &nonzero {
            sum += Rational::from_f64(v.abs()).unwrap();
        }
        boundgate_verify::oracle::nearest_f64(&(sum / Rational::from(nonzero.len())))
    }

    fn lcg(seed: u64) -> impl FnMut() -> f64 {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            let e = ((s >> 3) % 40) as i32 - 20;
            (u - 0.5) * 2f64.powi(e)
        }
    }

    #[test]
    fn the_mean_is_the_correctly_rounded_rational_mean() {
        for seed in 0..200u64 {
            let mut next = lcg(seed);
            let n = 1 + (seed as usize * 7) % 300;
            let values: Vec<f64> = (0..n)
                .map(|i| if i % 5 == 0 { 0.0 } else { next() })
                .collect();
            assert_eq!(
                AbsSumBins::of(values.iter().copied()).mean(),
                rational_mean(&values),
                "seed {seed}"
            );
            // Scaled across the subnormal boundary (2^-1060 .. 2^-1020).
            let tiny: Vec<f64> = values.iter().map(|v| v * 2f64.powi(-1040)).collect();
            assert_eq!(
                AbsSumBins::of(tiny.iter().copied()).mean(),
                rational_mean(&tiny),
                "seed {seed}, scaled by 2^-1040"
            );
            // The four-lane slice path: the same bins, whatever n mod 4.
            let lanes = AbsSumBins::of_slice(&values);
            let plain = AbsSumBins::of(values.iter().copied());
            assert_eq!((lanes.bins.clone(), lanes.count), (plain.bins, plain.count));
        }
    }

    #[test]
    fn order_does_not_matter_and_zeros_are_not_counted() {
        let values = [1e300, 1.0, -1e300, 3.0, 0.0, -0.0, 5e-324];
        let mut reversed = values;
        reversed.reverse();
        let a = AbsSumBins::of(values.iter().copied());
        let b = AbsSumBins::of(reversed.iter().copied());
        assert_eq!(a.count(), 5);
        assert_eq!(a.mean(), b.mean());
        assert_eq!(a.mean(), rational_mean(&values));
        assert_eq!(AbsSumBins::new().mean(), 0.0);
        assert_eq!(AbsSumBins::of([0.0, -0.0]).mean(), 0.0);
    }

    #[test]
    fn subnormal_means_round_once() {
        // (2^-1074 + 2 * 2^-1074) / 2 = 1.5 * 2^-1074: a tie on the subnormal
        // grid, to even: 2 * 2^-1074. A 53-bit intermediate would also give
        // 1.5 * 2^-1074 and then round it; one rounding is what must happen.
        let tiny = f64::from_bits(1);
        let bins = AbsSumBins::of([tiny, 2.0 * tiny]);
        assert_eq!(bins.mean(), 2.0 * tiny);
        // (3 + 3 + 4) / 3 units = 10/3: rounds to 3 units.
        let bins = AbsSumBins::of([3.0 * tiny, 3.0 * tiny, 4.0 * tiny]);
        assert_eq!(bins.mean(), 3.0 * tiny);
        // Across the normal boundary: a tie between the largest subnormal
        // (odd significand) and the smallest normal (even): the normal one.
        let v = f64::MIN_POSITIVE;
        assert_eq!(AbsSumBins::of([v, v.next_down()]).mean(), v);
    }

    /// The device's binning (kernels/residual.cu, residual_abs_bins_f32), in
    /// Rust, for one warp taking `values` 128 at a time (lane `l` the four
    /// from `4 l`, a float4): the window's top is the largest field of the
    /// first step with a nonzero value; each lane sums the significands of
    /// the window's `BIN_WINDOW` fields in its own u64 registers (checked
    /// here: they must not wrap), any other field goes straight to its bin;
    /// at the end the window is summed over the lanes into the bins.
    fn f32_bins(values: &[f32]) -> (Vec<u64>, u64) {
        const BIN_WINDOW: usize = 8;
        let mut bins = vec![0u64; F32_FIELDS];
        let mut count = 0;
        let mut window = [[0u64; BIN_WINDOW]; 32];
        let mut top: Option<usize> = None;
        for step in values.chunks(128) {
            let fields: Vec<Option<(usize, u32)>> = step
                .iter()
                .map(|v| {
                    let bits = v.to_bits() & 0x7fff_ffff;
                    if bits == 0 || bits >= 0x7f80_0000 {
                        return None;
                    }
                    let field = bits >> 23;
                    let fraction = bits & 0x7f_ffff;
                    Some(if field == 0 {
                        (1, fraction)
                    } else {
                        (field as usize, fraction | (1 << 23))
                    })
                })
                .collect();
            if top.is_none() {
                top = fields.iter().flatten().map(|&(bin, _)| bin).max();
            }
            for (at, field) in fields.into_iter().enumerate() {
                let Some((bin, significand)) = field else {
                    continue;
                };
                let lane = at / 4;
                count += 1;
                match top.and_then(|t| t.checked_sub(bin)) {
                    Some(d) if d < BIN_WINDOW => {
                        let slot = &mut window[lane][d];
                        *slot = slot
                            .checked_add(u64::from(significand))
                            .expect("a lane's window sum fits u64");
                    }
                    _ => bins[bin] += u64::from(significand),
                }
            }
        }
        if let Some(t) = top {
            for d in 0..BIN_WINDOW {
                let sum: u64 = window.iter().map(|lane| lane[d]).sum();
                if sum != 0 {
                    bins[t - d] += sum;
                }
            }
        }
        (bins, count)
    }

    #[test]
    fn binary32_bins_give_the_binary64_bins_mean() {
        for seed in 0..100u64 {
            let mut next = lcg(seed + 1000);
            let mut values: Vec<f32> = (0..257).map(|_| next() as f32).collect();
            values.extend([0.0, -0.0, f32::from_bits(1), -f32::from_bits(0x7f_ffff)]);
            values.extend([f32::MAX, -f32::MIN_POSITIVE]);
            // A whole warp step of the largest significands in one bin
            // first, so that the 128 values fill one step (values.len() is
            // not a multiple of 128) and set the window's top; the values
            // above it (f32::MAX) and far below it (subnormals) take the
            // direct path.
            values.splice(0..0, [f32::from_bits(0x3fff_ffff); 128]);
            let (bins, count) = f32_bins(&values);
            let device = AbsSumBins::from_f32_bins(&bins, count).unwrap();
            let host = AbsSumBins::of(values.iter().map(|&v| f64::from(v)));
            assert_eq!(device.count(), host.count());
            assert_eq!(
                device.mean().to_bits(),
                host.mean().to_bits(),
                "seed {seed}"
            );
        }
        assert!(AbsSumBins::from_f32_bins(&[0; 3], 0).is_err());
        let mut bad = vec![0u64; F32_FIELDS];
        bad[0] = 1;
        assert!(AbsSumBins::from_f32_bins(&bad, 1).is_err());
    }
}
