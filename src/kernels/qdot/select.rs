//! The parameter selection phase, Algorithm 3.2 with exact binning (§3.2).
//!
//! 1. Exponent preprocessing (line 3): `e_i = fexp(x_i) + fexp(y_i)` as
//!    `i16` ("short int": sums of fp64 exponents lie in `[-2148, 2046]`),
//!    read off the bits; `fexp(0)` is undefined, so indices with
//!    `x_i y_i = 0` get no exponent and no bin (their products are exactly 0).
//!    With [`Binning::Product`] (the theorems' Def. 3.1 bins of `x ⊙ y`),
//!    `e_i = fexp(x_i y_i)` of the exact product instead: the exponent sum
//!    plus one where the significands' product reaches 2, decided exactly by
//!    an FMA (`[-2148, 2047]`, still a short int).
//! 2. `e_min`, `e_max` (line 4) and the early exit of Theorem 3.6: if
//!    `e_max - e_min <= -floor(log2 eps) - mu^`, every bin would keep the input
//!    precision and the original kernel runs instead.
//! 3. Exact binning with one counting pass (lines 5-6): a histogram over
//!    `[e_min, e_max]`, prefix sums, and a stable scatter of the indices into
//!    bin order, `O(n + e_max - e_min + 1)`, no comparison sort. Within a bin
//!    the indices stay ascending, which fixes the computation order.
//! 4. Bin scores (3.10) with `eps` or `eps / N_bins` (line 7) and the
//!    Precision function (3.9) on the configured ladder (line 8).

use super::config::{QdotConfig, Score, Tolerance};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{
    Binning, Fexp, bin_score, floor_log2_tolerance, precision_3_9, thm_3_6,
};
use boundgate_verify::error::require_same_len;
use boundgate_verify::format::RoundingMode;
use serde::Serialize;

/// The exponent of an index whose product is zero (no bin).
pub const NO_EXPONENT: i16 = i16::MIN;

/// One nonempty exponent bin and its precision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SelectedBin {
    /// `u_k` (the bin is `(u_k - 1, u_k]`).
    pub exponent: i32,
    /// `M_k`.
    pub count: usize,
    /// Where its indices start in [`Selection::order`].
    pub start: usize,
    /// `sigma_k` of (3.10).
    pub score: i64,
    /// Index into [`QdotConfig::levels`], or `None` for perforate.
    pub level: Option<usize>,
}

/// What Algorithm 3.2 selected: bins, their precisions and the bin order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selection {
    /// `e_min` over nonzero products (None if every product is zero).
    pub e_min: Option<i32>,
    /// `e_max`.
    pub e_max: Option<i32>,
    /// Whether Theorem 3.6's early exit applied (then `bins` is empty and the
    /// original kernel runs).
    pub early_exit: bool,
    /// `floor(log2 eps)` of Theorem 3.6's test.
    pub floor_log2_eps: i64,
    /// `floor(log2 t)` of the bin score, `t = eps` or `eps / N_bins`.
    pub floor_log2_score: i64,
    /// The divisor of `eps` in the score (1 or `N_bins`).
    pub score_divisor: u64,
    /// The nonempty bins, ascending by exponent.
    pub bins: Vec<SelectedBin>,
    /// The indices of nonzero products, grouped by bin (ascending within each).
    #[serde(skip)]
    pub order: Vec<u32>,
    /// `e_i` per index ([`NO_EXPONENT`] for zero products).
    #[serde(skip)]
    pub exponents: Vec<i16>,
    /// Number of zero products.
    pub zeros: usize,
}

impl Selection {
    /// `N_bins`: the number of nonempty bins (0 after an early exit).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
    /// use boundgate::kernels::qdot::select::select;
    /// use boundgate_verify::format::Format;
    /// let (x, y) = ([1.0, 4.0, 3.0, 0.0], [1.0, 1.0, 1.0, 5.0]);
    /// let eps = Tolerance::new(1e-8).unwrap();
    /// // e_i = 0, 2, 1 and a zero product: three bins.
    /// let mut c = QdotConfig::new(Format::FP64).unwrap();
    /// c.early_exit = false;
    /// assert_eq!(select(&x, &y, eps, &c).unwrap().n_bins(), 3);
    /// // Theorem 3.6: e_max - e_min = 2 <= -floor(log2 1e-8) - 24 = 3, so the
    /// // early exit (on by default) applies and no bin is formed.
    /// let s = select(&x, &y, eps, &QdotConfig::new(Format::FP64).unwrap()).unwrap();
    /// assert!(s.early_exit && s.n_bins() == 0);
    /// ```
    pub fn n_bins(&self) -> usize {
        self.bins.len()
    }
    /// The indices of bin `k`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
    /// use boundgate::kernels::qdot::select::select;
    /// use boundgate_verify::format::Format;
    /// let mut c = QdotConfig::new(Format::FP64).unwrap();
    /// c.early_exit = false;
    /// // fexp(2) = fexp(3) = 1, fexp(1) = fexp(1.5) = 0 (y_i = 1: fexp 0).
    /// let s = select(&[2.0, 1.0, 3.0, 1.5], &[1.0; 4], Tolerance::new(1e-8).unwrap(), &c).unwrap();
    /// // Bins ascend by exponent; indices ascend within a bin.
    /// assert_eq!((s.bins[0].exponent, s.indices(0)), (0, &[1, 3][..]));
    /// assert_eq!((s.bins[1].exponent, s.indices(1)), (1, &[0, 2][..]));
    /// ```
    pub fn indices(&self, k: usize) -> &[u32] {
        let b = &self.bins[k];
        &self.order[b.start..b.start + b.count]
    }

    /// Checks that this selection can drive the computation phase on `n`
    /// values with a configuration of `levels` precision levels: its bin
    /// order covers the `n` indices (a [`select_from_histogram`] selection
    /// has none: it is the GPU's, which orders the bins on the device), every
    /// bin lies in the order, and every level is the configuration's. The
    /// checks are per bin, not per index, to keep the computation phase free
    /// of a scan the paper's timing does not have: an entry of `order` edited
    /// past `n` (the fields are public) is refused by
    /// [`compute`](super::compute::compute) when it reaches it.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] when the order and the zero products do
    /// not number `n`; [`VerifyError::InvalidParameter`] for a bin outside the
    /// order or a level the configuration lacks.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
    /// use boundgate::kernels::qdot::select::{select, select_from_histogram};
    /// use boundgate_verify::format::Format;
    /// let mut c = QdotConfig::new(Format::FP64).unwrap();
    /// c.early_exit = false;
    /// let eps = Tolerance::new(1e-8).unwrap();
    /// let s = select(&[2.0, 1.0, 0.0], &[1.0; 3], eps, &c).unwrap();
    /// assert!(s.check_computable(3, c.levels().len()).is_ok());
    /// assert!(s.check_computable(4, c.levels().len()).is_err()); // made on 3 values
    /// // The GPU's selection (counts per exponent) orders no indices on the host.
    /// let gpu = select_from_histogram(0, &[1, 1], 1, eps, &c).unwrap();
    /// assert!(gpu.check_computable(3, c.levels().len()).is_err());
    /// ```
    pub fn check_computable(&self, n: usize, levels: usize) -> Result<(), VerifyError> {
        if self.early_exit {
            // The original kernel runs on x and y alone.
            return Ok(());
        }
        for (k, b) in self.bins.iter().enumerate() {
            if b.start
                .checked_add(b.count)
                .is_none_or(|end| end > self.order.len())
            {
                return Err(VerifyError::invalid(
                    "selection bin",
                    k,
                    format!(
                        "indices {}..+{} lie outside the order of {} indices{}",
                        b.start,
                        b.count,
                        self.order.len(),
                        if self.order.is_empty() {
                            " (a selection from a histogram orders none)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            if let Some(level) = b.level.filter(|&l| l >= levels) {
                return Err(VerifyError::invalid(
                    "selection level",
                    level,
                    format!("the configuration has {levels} levels"),
                ));
            }
        }
        let covered = self.order.len().checked_add(self.zeros);
        require_same_len(
            "selection: ordered indices plus zero products, and the values",
            covered.unwrap_or(usize::MAX),
            n,
        )?;
        Ok(())
    }
}

/// `fexp` read off the bits (the paper's "bitmask and bitshift", §3.2), with
/// the true exponent of subnormals and eq. (1.1)'s ceiling for `|x| < 1`.
#[inline]
fn fexp_bits(x: f64, fexp: Fexp) -> Option<i32> {
    let bits = x.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if bits == 0 || biased == 0x7ff {
        return None;
    }
    let (floor, power_of_two) = if biased == 0 {
        (
            -1011 - fraction.leading_zeros() as i32,
            fraction.is_power_of_two(),
        )
    } else {
        (biased - 1023, fraction == 0)
    };
    Some(match fexp {
        Fexp::Paper if floor < 0 && !power_of_two => floor + 1,
        _ => floor,
    })
}

/// The IEEE exponent and significand in `[1, 2)` of a finite nonzero `x`
/// (subnormals normalised), read off the bits.
#[inline]
fn ieee_parts(x: f64) -> Option<(i32, f64)> {
    let floor = fexp_bits(x, Fexp::Ieee)?;
    let bits = x.to_bits() & !(1u64 << 63);
    let significand = if bits >> 52 == 0 {
        // Normalise: shift the leading bit of the fraction into the implicit one.
        let shift = bits.leading_zeros() - 11;
        f64::from_bits(((bits << shift) & ((1u64 << 52) - 1)) | (1023u64 << 52))
    } else {
        f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52))
    };
    Some((floor, significand))
}

/// `fexp(x y)` of the exact product (Def. 3.1 on `x ⊙ y`), from the bits:
/// `x y = m_x m_y 2^(e_x + e_y)` with `m_x m_y` in `[1, 4)`, whose IEEE exponent
/// is `e_x + e_y + [m_x m_y >= 2]`. The comparison is exact: `fma(m_x, m_y, -2)`
/// is `m_x m_y - 2` correctly rounded, which keeps its sign (a nonzero multiple
/// of `2^-104` cannot round to 0). The product is a power of two only if both
/// significands are 1, which is when (1.1)'s ceiling agrees with the floor.
#[inline]
fn product_fexp_bits(x: f64, y: f64, fexp: Fexp) -> Option<i32> {
    let (ex, mx) = ieee_parts(x)?;
    let (ey, my) = ieee_parts(y)?;
    let floor = ex + ey + i32::from(mx.mul_add(my, -2.0) >= 0.0);
    let power_of_two = mx == 1.0 && my == 1.0;
    Some(match fexp {
        Fexp::Paper if floor < 0 && !power_of_two => floor + 1,
        _ => floor,
    })
}

/// The bin exponent `e_i` of one index under the configured binning (None for
/// a zero product or a non-finite value).
#[inline]
fn bin_exponent(x: f64, y: f64, config: &QdotConfig) -> Option<i32> {
    match config.binning {
        Binning::Factors => Some(fexp_bits(x, config.fexp)? + fexp_bits(y, config.fexp)?),
        Binning::Product => product_fexp_bits(x, y, config.fexp),
    }
}

/// Algorithm 3.2 (exact binning) on `x` and `y`, values of the configured
/// input precision.
///
/// # Errors
/// [`VerifyError::LengthMismatch`]; [`VerifyError::NonFinite`] for NaN or
/// infinity (`fexp` is undefined there).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::{QdotConfig, Score, Tolerance};
/// use boundgate::kernels::qdot::select::select;
/// use boundgate_verify::format::Format;
/// let mut c = QdotConfig::new(Format::FP64).unwrap();
/// c.score = Score::Eps;
/// let x = [1.0, 2f64.powi(-10), 2f64.powi(-40), 0.0];
/// let y = [1.0, 1.0, 1.0, 3.0];
/// let s = select(&x, &y, Tolerance::new(2f64.powi(-20)).unwrap(), &c).unwrap();
/// assert_eq!((s.e_min, s.e_max, s.zeros), (Some(-40), Some(0), 1));
/// // scores: -40 + 21 < 0 (perforate), -10 + 21 = 11 (single), 21 (single)
/// let levels: Vec<_> = s.bins.iter().map(|b| b.level).collect();
/// assert_eq!(levels, [None, Some(1), Some(1)]);
/// ```
pub fn select(
    x: &[f64],
    y: &[f64],
    eps: Tolerance,
    config: &QdotConfig,
) -> Result<Selection, VerifyError> {
    require_same_len("x and y", x.len(), y.len())?;
    if x.len() > u32::MAX as usize {
        return Err(VerifyError::invalid(
            "n",
            x.len(),
            "qdot indexes with 32 bits: at most 2^32 - 1 elements",
        ));
    }
    // Line 3: exponent preprocessing.
    let mut exponents = Vec::with_capacity(x.len());
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    let mut zeros = 0usize;
    for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
        match bin_exponent(a, b, config) {
            Some(e) => {
                lo = lo.min(e);
                hi = hi.max(e);
                exponents.push(e as i16);
            }
            None => {
                for (what, v) in [("x", a), ("y", b)] {
                    if !v.is_finite() {
                        return Err(VerifyError::NonFinite {
                            what: what.into(),
                            index: i,
                            value: v,
                        });
                    }
                }
                zeros += 1;
                exponents.push(NO_EXPONENT);
            }
        }
    }
    let mut selection = Selection {
        exponents,
        ..empty_selection(lo, hi, zeros, eps)?
    };
    if lo > hi {
        return Ok(selection); // every product is zero
    }
    // Line 4 and Theorem 3.6.
    let nonzero = (x.len() - zeros) as u64;
    if early_exit(lo, hi, nonzero, &selection, config) {
        selection.early_exit = true;
        return Ok(selection);
    }
    // Lines 5-6: counting pass.
    let range = (hi - lo + 1) as usize;
    let mut counts = vec![0usize; range];
    for &e in &selection.exponents {
        if e != NO_EXPONENT {
            counts[(i32::from(e) - lo) as usize] += 1;
        }
    }
    let mut next = Vec::with_capacity(range);
    let mut start = 0usize;
    for &c in &counts {
        next.push(start);
        start += c;
    }
    let mut order = vec![0u32; start];
    for (i, &e) in selection.exponents.iter().enumerate() {
        if e != NO_EXPONENT {
            let k = (i32::from(e) - lo) as usize;
            order[next[k]] = i as u32;
            next[k] += 1;
        }
    }
    score_bins(&mut selection, &counts, lo, hi, eps, config)?;
    selection.order = order;
    Ok(selection)
}

/// A selection with no bins yet: `e_min`/`e_max` from `lo <= hi` (none if
/// `lo > hi`, every product zero) and `floor(log2 eps)`.
fn empty_selection(
    lo: i32,
    hi: i32,
    zeros: usize,
    eps: Tolerance,
) -> Result<Selection, VerifyError> {
    let floor_log2_eps = floor_log2_tolerance(eps.value(), 1)?;
    Ok(Selection {
        e_min: (lo <= hi).then_some(lo),
        e_max: (lo <= hi).then_some(hi),
        early_exit: false,
        floor_log2_eps,
        floor_log2_score: floor_log2_eps,
        score_divisor: 1,
        bins: Vec::new(),
        order: Vec::new(),
        exponents: Vec::new(),
        zeros,
    })
}

/// Theorem 3.6's test, if the configuration asks for the early exit, and
/// boundgate's guard: the early exit runs the original kernel on the
/// unscaled inputs (Alg. 3.3), so it is taken only where that kernel cannot
/// overflow ([`unscaled_fits`]); elsewhere the bins are computed scaled, as
/// Alg. 3.1 does. Without the guard `x = [300, 300]`, `y = [300, -300]` gave
/// NaN in pure fp16 and `[2^100, 2^100] . [2^100, -2^100]` gave inf in fp32,
/// both exactly 0 when binned (review, 2026-11-26).
fn early_exit(lo: i32, hi: i32, nonzero: u64, selection: &Selection, config: &QdotConfig) -> bool {
    config.early_exit
        && thm_3_6(
            i64::from(lo),
            i64::from(hi),
            selection.floor_log2_eps,
            config.mu_hat(),
        )
        && unscaled_fits(hi, nonzero, config)
}

/// Whether the original kernel on `nonzero` unscaled products, each below
/// `2^(hi + 2)` (`|x| < 2^(fexp(x) + 1)` for either fexp definition, and the
/// product binning's `|x y| < 2^(fexp(x y) + 1)`), stays below the largest
/// value of its arithmetic: every partial sum is at most `(1 + u)^n` times
/// the sum of the magnitudes (Higham 2002, Lemma 3.1), so
/// `hi + 2 + log2 n + n log2(1 + u) <= emax` suffices (`max >= 2^emax`),
/// evaluated with a margin for its own rounding.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::{HalfMode, QdotConfig};
/// use boundgate::kernels::qdot::select::unscaled_fits;
/// use boundgate_verify::format::Format;
/// let mut fp16 = QdotConfig::new(Format::FP16).unwrap();
/// fp16.half = HalfMode::Fp16;
/// // 300 * 300 < 2^17 overflows fp16 (emax 15); 1 * 1 over 1000 terms does not.
/// assert!(!unscaled_fits(16, 2, &fp16));
/// assert!(unscaled_fits(0, 1000, &fp16));
/// // With fp32 products and sums (the default, tensor cores) 300 * 300 fits.
/// assert!(unscaled_fits(16, 2, &QdotConfig::new(Format::FP16).unwrap()));
/// // fp64: only products near the top of the range are refused.
/// let fp64 = QdotConfig::new(Format::FP64).unwrap();
/// assert!(unscaled_fits(980, 1 << 30, &fp64) && !unscaled_fits(1000, 1 << 30, &fp64));
/// ```
pub fn unscaled_fits(hi: i32, nonzero: u64, config: &QdotConfig) -> bool {
    // Products and sums are formed in the accumulator (the values are
    // already of the level's format: fp16 values with fp32 products and sums
    // for half=fp16-fp32, everything in fp16 for half=fp16).
    let acc = config.input_level().arithmetic.accumulator;
    let emax = acc.emax();
    let u = acc.unit_roundoff(RoundingMode::NearestEven);
    let n = nonzero.max(1) as f64;
    // log2(1 + u) <= u log2(e); a relative margin of 2^-40 and 2^-30 covers
    // the rounding of these few operations.
    let reach = f64::from(hi) + 2.0 + n.log2() + n * u * std::f64::consts::LOG2_E;
    reach * (1.0 + 2f64.powi(-40)) + 2f64.powi(-30) <= f64::from(emax)
}

/// Lines 7-8: the scores (3.10) and precisions (3.9) of the nonempty bins of
/// `counts` (index `k` is exponent `lo + k`), ascending.
fn score_bins(
    selection: &mut Selection,
    counts: &[usize],
    lo: i32,
    hi: i32,
    eps: Tolerance,
    config: &QdotConfig,
) -> Result<(), VerifyError> {
    let n_bins = counts.iter().filter(|&&c| c > 0).count();
    // Line 7: scores.
    let divisor = match config.score {
        Score::Eps => 1,
        Score::EpsOverNbins => n_bins as u64,
    };
    let floor = floor_log2_tolerance(eps.value(), divisor)?;
    let ladder = config.ladder_bits();
    let mut begin = 0usize;
    for (k, &count) in counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let exponent = lo + k as i32;
        let score = bin_score(count as u64, i64::from(exponent), i64::from(hi), floor);
        // Line 8: precision (3.9).
        selection.bins.push(SelectedBin {
            exponent,
            count,
            start: begin,
            score,
            level: precision_3_9(score, &ladder)?,
        });
        begin += count;
    }
    selection.floor_log2_score = floor;
    selection.score_divisor = divisor;
    Ok(())
}

/// Algorithm 3.2 lines 4-8 from an exponent histogram, what the GPU's one
/// pass (`qdot_exponents_f64` in `kernels/qdot.cu`) produces: `counts[k]` is
/// the number of indices with `e_i = first + k`, `zeros` the number of zero
/// products. The result has the bins, scores, precisions and early exit of
/// [`select`] on the same data, without `order` and `exponents` (the GPU
/// keeps those on the device).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if an exponent `first + k` of a nonzero
/// count does not fit `i32`, if the counts sum past `u64`, or if a count
/// exceeds `usize`; the tolerance's errors as [`select`].
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
/// use boundgate::kernels::qdot::select::{select, select_from_histogram};
/// use boundgate_verify::format::Format;
/// let mut c = QdotConfig::new(Format::FP64).unwrap();
/// c.early_exit = false;
/// let (x, y) = ([1.0, 2f64.powi(-10), 2f64.powi(-40), 0.0], [1.0; 4]);
/// let eps = Tolerance::new(2f64.powi(-20)).unwrap();
/// // e = 0, -10, -40: a histogram over [-40, 0]
/// let mut counts = vec![0u64; 41];
/// for e in [0i32, -10, -40] {
///     counts[(e + 40) as usize] += 1;
/// }
/// let h = select_from_histogram(-40, &counts, 1, eps, &c).unwrap();
/// assert_eq!(h.bins, select(&x, &y, eps, &c).unwrap().bins);
/// ```
pub fn select_from_histogram(
    first: i32,
    counts: &[u64],
    zeros: usize,
    eps: Tolerance,
    config: &QdotConfig,
) -> Result<Selection, VerifyError> {
    let exponent = |k: usize| {
        i32::try_from(k)
            .ok()
            .and_then(|k| first.checked_add(k))
            .ok_or_else(|| {
                VerifyError::invalid(
                    "first",
                    first,
                    format!("the exponent first + {k} of a nonzero count overflows i32"),
                )
            })
    };
    let lo = counts
        .iter()
        .position(|&c| c > 0)
        .map(exponent)
        .transpose()?;
    let hi = counts
        .iter()
        .rposition(|&c| c > 0)
        .map(exponent)
        .transpose()?;
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return empty_selection(1, 0, zeros, eps);
    };
    let mut selection = empty_selection(lo, hi, zeros, eps)?;
    let nonzero = counts
        .iter()
        .try_fold(0u64, |sum, &c| sum.checked_add(c))
        .ok_or_else(|| {
            VerifyError::invalid("counts", "histogram", "the counts' sum exceeds u64")
        })?;
    if early_exit(lo, hi, nonzero, &selection, config) {
        selection.early_exit = true;
        return Ok(selection);
    }
    let window = &counts[(lo - first) as usize..=(hi - first) as usize];
    let counts: Vec<usize> = window
        .iter()
        .map(|&c| usize::try_from(c))
        .collect::<Result<_, _>>()
        .map_err(|_| VerifyError::invalid("counts", "histogram", "a count exceeds usize"))?;
    score_bins(&mut selection, &counts, lo, hi, eps, config)?;
    Ok(selection)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boundgate_verify::format::Format;

    #[test]
    fn select_from_histogram_refuses_exponents_or_counts_that_overflow() {
        let c = QdotConfig::new(Format::FP64).unwrap();
        let eps = Tolerance::new(0.1).unwrap();
        // first + 1 overflows i32
        let got = select_from_histogram(i32::MAX, &[0, 1], 0, eps, &c);
        assert!(
            matches!(got, Err(VerifyError::InvalidParameter { .. })),
            "{got:?}"
        );
        // the counts sum past u64
        let got = select_from_histogram(0, &[u64::MAX, 1], 0, eps, &c);
        assert!(
            matches!(got, Err(VerifyError::InvalidParameter { .. })),
            "{got:?}"
        );
        // the top of the range itself is fine
        assert!(select_from_histogram(i32::MAX, &[1], 0, eps, &c).is_ok());
    }

    #[test]
    fn fexp_from_bits_matches_the_checker() {
        let values = [
            1.0,
            -0.75,
            0.5,
            3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(3),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            1e-300,
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
        ];
        for v in values {
            for d in Fexp::ALL {
                assert_eq!(fexp_bits(v, d), d.of(v), "{v:e} {d}");
            }
        }
    }

    #[test]
    fn product_exponent_from_bits_matches_the_checker() {
        // mx my = 2 - 1665384871141292 2^-104 < 2: the rounded product is 2.0.
        let mx = 5_072_016_059_579_332u64 as f64 / 2f64.powi(52);
        let my = 7_997_770_261_529_445u64 as f64 / 2f64.powi(52);
        assert_eq!(mx * my, 2.0, "the naive product rounds up to 2");
        assert_eq!(product_fexp_bits(mx, my, Fexp::Ieee), Some(0));
        let values = [
            1.0,
            -1.5,
            0.75,
            std::f64::consts::SQRT_2,
            mx,
            -my,
            mx * 2f64.powi(-1030),
            my * 2f64.powi(900),
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(3),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            0.1,
            0.0,
            f64::NAN,
            f64::NEG_INFINITY,
        ];
        for a in values {
            for b in values {
                for d in Fexp::ALL {
                    assert_eq!(
                        product_fexp_bits(a, b, d),
                        Binning::Product.exponent(a, b, d),
                        "{a:e} * {b:e} ({d})"
                    );
                }
            }
        }
    }

    #[test]
    fn bins_hold_every_nonzero_index_once_in_ascending_order() {
        let c = QdotConfig::new(Format::FP64).unwrap();
        let x: Vec<f64> = (0..200)
            .map(|i| (i as f64 - 50.0) * 1.37f64.powi(i % 17))
            .collect();
        let y: Vec<f64> = (0..200).map(|i| 0.3 + (i % 7) as f64).collect();
        let mut c2 = c;
        c2.early_exit = false;
        let s = select(&x, &y, Tolerance::new(1e-10).unwrap(), &c2).unwrap();
        let mut seen = vec![false; x.len()];
        for k in 0..s.n_bins() {
            let idx = s.indices(k);
            assert!(idx.windows(2).all(|w| w[0] < w[1]));
            for &i in idx {
                assert_eq!(i32::from(s.exponents[i as usize]), s.bins[k].exponent);
                assert!(!seen[i as usize]);
                seen[i as usize] = true;
            }
        }
        assert_eq!(seen.iter().filter(|&&v| !v).count(), s.zeros);
    }

    #[test]
    fn the_histogram_path_selects_as_the_counting_pass_does() {
        let x: Vec<f64> = (0..300)
            .map(|i| (i as f64 - 80.0) * 1.9f64.powi(i % 23 - 11))
            .collect();
        let y: Vec<f64> = (0..300)
            .map(|i| {
                if i % 13 == 0 {
                    0.0
                } else {
                    0.7 + (i % 5) as f64
                }
            })
            .collect();
        for early in [false, true] {
            for score in [Score::Eps, Score::EpsOverNbins] {
                for eps in [1e-15, 1e-8, 1e-3, 0.5] {
                    let mut c = QdotConfig::new(Format::FP64).unwrap();
                    (c.early_exit, c.score) = (early, score);
                    let eps = Tolerance::new(eps).unwrap();
                    let s = select(&x, &y, eps, &c).unwrap();
                    let first = -2148;
                    let mut counts = vec![0u64; 4195];
                    for &e in &s.exponents {
                        if e != NO_EXPONENT {
                            counts[(i32::from(e) - first) as usize] += 1;
                        }
                    }
                    let h = select_from_histogram(first, &counts, s.zeros, eps, &c).unwrap();
                    assert_eq!(
                        (
                            h.bins,
                            h.e_min,
                            h.e_max,
                            h.early_exit,
                            h.floor_log2_score,
                            h.zeros
                        ),
                        (
                            s.bins.clone(),
                            s.e_min,
                            s.e_max,
                            s.early_exit,
                            s.floor_log2_score,
                            s.zeros
                        )
                    );
                }
            }
        }
        let c = QdotConfig::new(Format::FP64).unwrap();
        let none = select_from_histogram(0, &[0, 0], 5, Tolerance::new(0.1).unwrap(), &c).unwrap();
        assert_eq!((none.e_min, none.n_bins(), none.zeros), (None, 0, 5));
    }
}
