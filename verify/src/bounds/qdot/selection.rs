//! Parameter selection (paper §3.3): bin scores (3.10), the Precision
//! function (3.9) and the early exit of Theorem 3.6.

use super::*;

/// How a computed (not perforated) bin is evaluated: its values cast to
/// `format` (the bin precision `pi_k` of Algorithm 3.1), the dot product
/// accumulated in `accumulator` (e.g. fp16 with fp32 accumulation, as on
/// tensor cores).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BinArithmetic {
    /// The format the bin's (scaled) values are rounded to, `pi_k`.
    pub format: Format,
    /// The format of the products' accumulation.
    pub accumulator: Format,
}

/// The precision of one bin (Algorithm 3.1's `pi_k`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BinPrecision {
    /// Left out of the computation (a 0-bit representation, `eps(k) = 1`).
    Perforate,
    /// Computed in the given arithmetic.
    Compute(BinArithmetic),
}

impl BinPrecision {
    /// The paper's `eps(k)`: the unit roundoff `2^-p` of `pi_k`, 1 for perforate.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{BinArithmetic, BinPrecision};
    /// use boundgate_verify::format::Format;
    /// let half = BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP32 });
    /// assert_eq!(half.eps(), 2f64.powi(-11)); // u = 2^-p, p = 11
    /// assert_eq!(half.eps(), 2f64.powi(-(half.bits() as i32)));
    /// assert_eq!(BinPrecision::Perforate.eps(), 1.0);
    /// ```
    pub fn eps(&self) -> f64 {
        match self {
            BinPrecision::Perforate => 1.0,
            BinPrecision::Compute(a) => a.format.unit_roundoff(RNE),
        }
    }
    /// `-log2 eps(k)`: the precision `p` of `pi_k` (0 for perforate).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{BinArithmetic, BinPrecision};
    /// use boundgate_verify::format::Format;
    /// let bits = |format| BinPrecision::Compute(BinArithmetic { format, accumulator: Format::FP64 }).bits();
    /// assert_eq!([bits(Format::FP64), bits(Format::FP32), bits(Format::FP16), bits(Format::BF16)], [53, 24, 11, 8]);
    /// assert_eq!(BinPrecision::Perforate.bits(), 0);
    /// ```
    pub fn bits(&self) -> u32 {
        match self {
            BinPrecision::Perforate => 0,
            BinPrecision::Compute(a) => a.format.precision(),
        }
    }
}

/// `floor(log2(eps / divisor))`, exactly: the `floor(log2 eps)` of the bin
/// score (3.10), with `divisor = N_bins` for the `eps / N_bins` variant of the
/// experiments (§4.1) and 1 for the printed one.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] unless `eps` is finite and positive and
/// `divisor >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::floor_log2_tolerance;
/// assert_eq!(floor_log2_tolerance(1e-16, 1).unwrap(), -54);
/// assert_eq!(floor_log2_tolerance(0.5, 1).unwrap(), -1);
/// assert_eq!(floor_log2_tolerance(0.5, 3).unwrap(), -3); // 1/6
/// assert_eq!(floor_log2_tolerance(1e3, 1).unwrap(), 9);
/// assert!(floor_log2_tolerance(0.0, 1).is_err());
/// ```
pub fn floor_log2_tolerance(eps: f64, divisor: u64) -> Result<i64> {
    if !(eps.is_finite() && eps > 0.0) {
        return Err(VerifyError::invalid(
            "eps",
            eps,
            "the qdot tolerance must be finite and positive",
        ));
    }
    if divisor == 0 {
        return Err(VerifyError::invalid("divisor", 0, "must be at least 1"));
    }
    // eps = m 2^q with m < 2^53 an integer; floor(log2(eps / d)) is the
    // largest k with d 2^k <= m 2^q, decided exactly on integers.
    let (m, q) = integer_significand(eps);
    let fits = |k: i64| -> bool {
        let shift = k - q;
        if shift >= 0 {
            // d 2^shift <= m < 2^53
            shift < 64 && (u128::from(divisor) << shift) <= u128::from(m)
        } else {
            // d <= m 2^-shift; beyond 64 bits of shift the right side exceeds any u64
            -shift >= 64 || u128::from(divisor) <= (u128::from(m) << -shift)
        }
    };
    let mut k = i64::from(exponent_of(eps)) - ceil_log2(divisor as usize) as i64 - 1;
    while fits(k + 1) {
        k += 1;
    }
    while !fits(k) {
        k -= 1;
    }
    Ok(k)
}

/// `x = m 2^q` for finite positive `x`, `m < 2^53` an integer.
fn integer_significand(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// The bin score (3.10): `ceil(log2 M_k) + u_k - e_max - floor(log2 eps) + 1`
/// for a nonempty bin; an empty bin (`count = 0`) scores `i64::MIN`, the
/// paper's `-inf` (perforated by (3.9)). Evaluated in `i128` and saturated to
/// `i64`, so that no argument overflows (review, 2026-11-29: `count = 0`
/// tripped a debug assertion, and extreme exponents overflowed `i64`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::bin_score;
/// // the top bin, one element, eps = 2^-20: 0 + 0 - (-20) + 1
/// assert_eq!(bin_score(1, 0, 0, -20), 21);
/// assert_eq!(bin_score(5, -30, 0, -20), 3 - 30 + 20 + 1);
/// assert_eq!(bin_score(0, 0, 0, -20), i64::MIN); // empty: -inf
/// assert_eq!(bin_score(1, 0, 0, i64::MIN), i64::MAX); // saturated
/// ```
pub fn bin_score(count: u64, exponent: i64, e_max: i64, floor_log2_eps: i64) -> i64 {
    if count == 0 {
        return i64::MIN;
    }
    // ceil(log2 count) for any u64 (at most 64).
    let log = i128::from(u64::BITS - (count - 1).leading_zeros());
    let score = log + i128::from(exponent) - i128::from(e_max) - i128::from(floor_log2_eps) + 1;
    score.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Checks a ladder of precisions for [`precision_3_9`]: nonempty and
/// strictly ascending (each level more mantissa bits than the one below;
/// (3.9) picks "the first level whose precision exceeds the score", which
/// means nothing on an unordered ladder), every level at least 1 bit.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] naming the ladder.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::check_ladder;
/// assert!(check_ladder(&[11, 24, 53]).is_ok());
/// assert!(check_ladder(&[]).is_err());
/// assert!(check_ladder(&[53, 11, 53]).is_err());
/// assert!(check_ladder(&[0, 53]).is_err());
/// ```
pub fn check_ladder(ladder: &[u32]) -> Result<()> {
    let ascending = ladder.windows(2).all(|w| w[0] < w[1]);
    if ladder.is_empty() || !ascending || ladder[0] == 0 {
        return Err(VerifyError::invalid(
            "ladder",
            format!("{ladder:?}"),
            "must be nonempty and strictly ascending in mantissa bits, from at least 1",
        ));
    }
    Ok(())
}

/// The Precision function (3.9), generalised to a ladder of levels by their
/// mantissa bits (`m_half = 11`, `m_single = 24`, `m_double = 53`, and for
/// the bfloat16 generalisation `8`): `None` (perforate) for `sigma < 0`, else
/// the first level `i` with `sigma < ladder[i]`, else the last level, the
/// input's precision `mu` (for `sigma >= mu` (3.9) has no case; the proof of
/// Theorem 3.6 reads it as the input precision, and so do we). `ladder` is
/// ascending and ends with `mu`; the condition `mu >= m` of (3.9) is that the
/// ladder stops at `mu`.
///
/// # Errors
/// [`check_ladder`]'s, for an empty or unordered ladder (until 2026-11-29
/// an empty one read as "perforate" and an unordered one gave a level
/// (3.9) does not).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::precision_3_9;
/// let ladder = [11, 24, 53]; // half, single, double; fp64 inputs
/// assert_eq!(precision_3_9(-1, &ladder).unwrap(), None);
/// assert_eq!(precision_3_9(0, &ladder).unwrap(), Some(0));
/// assert_eq!(precision_3_9(10, &ladder).unwrap(), Some(0));
/// assert_eq!(precision_3_9(11, &ladder).unwrap(), Some(1));
/// assert_eq!(precision_3_9(52, &ladder).unwrap(), Some(2));
/// assert_eq!(precision_3_9(80, &ladder).unwrap(), Some(2));
/// assert_eq!(precision_3_9(20, &[11]).unwrap(), Some(0)); // fp16 inputs
/// assert!(precision_3_9(-1, &[]).is_err());
/// ```
pub fn precision_3_9(score: i64, ladder: &[u32]) -> Result<Option<usize>> {
    check_ladder(ladder)?;
    if score < 0 {
        return Ok(None);
    }
    Ok(Some(
        ladder
            .iter()
            .position(|&m| score < i64::from(m))
            .unwrap_or(ladder.len() - 1),
    ))
}

/// Theorem 3.6: whether `e_max - e_min <= -floor(log2 eps) - mu_hat`, in which
/// case (3.9) gives every bin the input precision (`mu_hat`: the mantissa bits
/// of the level directly below the input's).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::thm_3_6;
/// // fp64 inputs (mu^ = 24), eps = 1e-16 (floor log2 = -54): a range of 30 exits early.
/// assert!(thm_3_6(-10, 20, -54, 24));
/// assert!(!thm_3_6(-10, 21, -54, 24));
/// ```
pub fn thm_3_6(e_min: i64, e_max: i64, floor_log2_eps: i64, mu_hat: u32) -> bool {
    // In i128: no i64 argument overflows (it did for floor_log2_eps = i64::MIN).
    i128::from(e_max) - i128::from(e_min) <= -i128::from(floor_log2_eps) - i128::from(mu_hat)
}
