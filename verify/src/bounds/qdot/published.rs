//! Theorems 3.2-3.5 of the paper, their formulas exactly as printed (hypotheses
//! checked), evaluated on the bins the computation used: Algorithm 3.2's (by
//! `fexp(x_i) + fexp(y_i)`, [`Binning::Factors`], the default), or the
//! theorems' own Def. 3.1 bins of `x ⊙ y` (by `fexp(x_i y_i)`,
//! [`Binning::Product`]). On Algorithm 3.2's bins a product can lie one bin
//! higher than the theorems assume (docs/findings/qdot.md, "Which bins").

use super::*;

/// Checks what every printed theorem assumes of the parameters: one precision
/// per bin, each no finer than the input's (`eps(k) >= eps_machine`).
fn check_parameters(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    source: &Source,
) -> Result<()> {
    require_same_len("bins and precisions", bins.bins.len(), precisions.len())?;
    if let Some(k) = precisions.iter().position(|p| p.bits() > input.precision()) {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: source.to_string(),
            hypothesis: "eps(k) >= eps_machine for every bin".into(),
            detail: format!(
                "bin {} has {} bits, the input {} has {}",
                bins.bins[k].exponent,
                precisions[k].bits(),
                input,
                input.precision()
            ),
        });
    }
    Ok(())
}

/// `sum_k M_k 2^(u_k + shift) eps(k)`, rounded up.
fn printed_sum(bins: &ExponentBins, precisions: &[BinPrecision], shift: i64) -> f64 {
    bins.bins.iter().zip(precisions).fold(0.0, |acc, (b, p)| {
        let e = i64::from(b.exponent) + shift - i64::from(p.bits());
        add_up(acc, mul_up(count_up(b.count), pow2_up(e)))
    })
}

fn published(value: f64, quantity: Quantity, source: Source, bins: &ExponentBins) -> Bound {
    Bound::deterministic(value, quantity, source, Rigor::Published)
        .with_hypothesis(
            "{(l_k, u_k)} partitions [e_min(x ⊙ y), e_max(x ⊙ y)] into Def. 3.1 bins of x ⊙ y",
            format!(
                "{}, {} nonempty bins, {} zero products left out",
                binning_note(bins),
                bins.n_bins(),
                bins.zeros
            ),
        )
        .with_hypothesis(
            "x_j y_j - x_j ⊗ y_j = -x_j y_j eps_j, |eps_j| <= eps(k) (the proof's model)",
            "assumed by the source, not checked (no cast, accumulation or scaling error)",
        )
}

/// Which bins a printed bound was evaluated on, for its hypothesis.
fn binning_note(bins: &ExponentBins) -> String {
    match bins.binning {
        Binning::Factors => format!(
            "evaluated on Algorithm 3.2's bins instead, exact binning by {} \
             ({} fexp), which can hold a product one bin above its Def. 3.1 bin \
             (docs/findings/qdot.md, \"Which bins\")",
            bins.binning.rule(),
            bins.fexp
        ),
        Binning::Product => format!(
            "met: Def. 3.1 bins (with the {} fexp), exact binning by {} of the exact products, the computation's own bins",
            bins.fexp,
            bins.binning.rule()
        ),
    }
}

/// Theorem 3.2 (eq. (3.1)), as printed: `|x^T y - k~| <= sum_k M_k 2^(u_k + 1) eps(k)`,
/// an absolute bound.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] unless there is one precision per bin;
/// [`VerifyError::HypothesisNotMet`] if a bin's precision has more bits than
/// `input` (`eps(k) >= eps_machine`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_2, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 0.25], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate, BinPrecision::Perforate];
/// // 1 * 2^(-2 + 1) + 1 * 2^(0 + 1)
/// assert_eq!(thm_3_2(&bins, &p, Format::FP64).unwrap().value, 2.5);
/// ```
pub fn thm_3_2(bins: &ExponentBins, precisions: &[BinPrecision], input: Format) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_2)?;
    Ok(published(
        printed_sum(bins, precisions, 1),
        Quantity::AbsoluteError,
        THM_3_2,
        bins,
    ))
}

/// `e_max` and `E = fexp(x^T y)`, or the failed hypothesis.
fn exponents(bins: &ExponentBins, dot_fexp: Option<i64>, source: &Source) -> Result<(i64, i64)> {
    let e_max = bins.e_max().ok_or_else(|| VerifyError::HypothesisNotMet {
        source_ref: source.to_string(),
        hypothesis: "e_max(x ⊙ y) exists".into(),
        detail: "every product x_i y_i is zero".into(),
    })?;
    let e = dot_fexp.ok_or_else(|| VerifyError::HypothesisNotMet {
        source_ref: source.to_string(),
        hypothesis: "fexp(x^T y) exists".into(),
        detail: "x^T y = 0, where fexp is undefined and the relative error too".into(),
    })?;
    // An exact dot product of binary64 values lies within 2^-2148..2^2112
    // (fewer than 2^64 products): an exponent far outside is no dot's, and
    // the printed formulas' `1 - e` overflowed for `e = i64::MIN` (review,
    // 2026-11-29).
    if !(-4096..=4096).contains(&e) {
        return Err(VerifyError::invalid(
            "fexp(x^T y)",
            e,
            "no exact dot product of binary64 values has an exponent beyond +-4096",
        ));
    }
    Ok((i64::from(e_max), e))
}

/// Theorem 3.3 (eq. (3.5)), as printed: if `e_max(x ⊙ y) <= fexp(x^T y)`, the
/// relative error is at most `sum_k M_k 2^(u_k - e_max + 1) eps(k)`.
/// `dot_fexp` is `fexp(x^T y)` of the exact result under the binning's
/// definition ([`Fexp::of_exact`]); `e_max` is that of the binning (Algorithm
/// 3.2, line 4). Returns a [`Quantity::RelativeError`]; see [`times_abs_exact`].
///
/// # Errors
/// As [`thm_3_2`], plus [`VerifyError::HypothesisNotMet`] if every product is
/// zero (no `e_max`), `dot_fexp` is `None` (`x^T y = 0`) or `e_max > fexp(x^T y)`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_3, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 0.25], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate; 2];
/// assert_eq!(thm_3_3(&bins, &p, Format::FP64, Some(0)).unwrap().value, 2.5);
/// assert!(thm_3_3(&bins, &p, Format::FP64, Some(-1)).is_err()); // e_max = 0 > -1
/// assert!(thm_3_3(&bins, &p, Format::FP64, None).is_err()); // x^T y = 0
/// ```
pub fn thm_3_3(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_3)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_3)?;
    require(
        e_max <= e,
        &THM_3_3,
        "e_max(x ⊙ y) <= fexp(x^T y)",
        || format!("e_max = {e_max} > fexp(x^T y) = {e}"),
    )?;
    Ok(published(
        printed_sum(bins, precisions, 1 - e_max),
        Quantity::RelativeError,
        THM_3_3,
        bins,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) <= fexp(x^T y)",
        format!("e_max = {e_max} <= {e} ({} fexp)", bins.fexp),
    ))
}

/// Theorem 3.4 (eq. (3.7)), as printed: if `e_max(x ⊙ y) > E = fexp(x^T y)`,
/// the relative error is at most `sum_k M_k 2^(u_k - E + 1) eps(k)`.
///
/// # Errors
/// As [`thm_3_2`], plus [`VerifyError::HypothesisNotMet`] if every product is
/// zero (no `e_max`), `dot_fexp` is `None` (`x^T y = 0`) or `e_max <= fexp(x^T y)`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_4, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, -0.75], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate; 2];
/// // x^T y = 0.25: E = -2 < e_max = 0
/// assert_eq!(thm_3_4(&bins, &p, Format::FP64, Some(-2)).unwrap().value, 2.0 * 2.0 + 2.0 * 4.0);
/// assert!(thm_3_4(&bins, &p, Format::FP64, Some(0)).is_err());
/// ```
pub fn thm_3_4(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_4)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_4)?;
    require(e_max > e, &THM_3_4, "e_max(x ⊙ y) > fexp(x^T y)", || {
        format!("e_max = {e_max} <= fexp(x^T y) = {e}")
    })?;
    Ok(published(
        printed_sum(bins, precisions, 1 - e),
        Quantity::RelativeError,
        THM_3_4,
        bins,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) > E = fexp(x^T y)",
        format!("e_max = {e_max} > E = {e} ({} fexp)", bins.fexp),
    ))
}

/// The tolerance of the bin score (3.10): `eps / divisor`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScoreTolerance {
    /// The qdot tolerance `eps`.
    pub eps: f64,
    /// 1 for the printed (3.10); `N_bins` for the experiments' `eps / N_bins`.
    pub divisor: u64,
}

/// Theorem 3.5 (eqs. (3.12), (3.16)), as printed: with the precisions that
/// (3.9) gives for the bin score of tolerance `t = eps / divisor`, and
/// `e_max(x ⊙ y) <= fexp(x^T y)`, the relative error is at most `N_bins t`
/// (so `eps` for the experiments' `divisor = N_bins`). The precisions must be
/// those of [`precision_3_9`] on `ladder` (checked bin by bin).
///
/// # Errors
/// As [`thm_3_3`]; [`VerifyError::InvalidParameter`] for a `ladder` that does
/// not end with the input precision or a bad tolerance
/// ([`floor_log2_tolerance`]); [`VerifyError::HypothesisNotMet`] if a bin's
/// precision is not the one (3.9) gives for its score.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_5, BinArithmetic, BinPrecision, ExponentBins, Fexp, ScoreTolerance};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 2f64.powi(-40)], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let double = BinPrecision::Compute(BinArithmetic { format: Format::FP64, accumulator: Format::FP64 });
/// // eps = 2^-20: the small bin scores 0 - 40 + 20 + 1 < 0 (perforate), the top 21 (< 24: single).
/// let single = BinPrecision::Compute(BinArithmetic { format: Format::FP32, accumulator: Format::FP32 });
/// let t = ScoreTolerance { eps: 2f64.powi(-20), divisor: 1 };
/// let b = thm_3_5(&bins, &[BinPrecision::Perforate, single], Format::FP64, Some(0), &[11, 24, 53], t).unwrap();
/// assert_eq!(b.value, 2.0 * 2f64.powi(-20));
/// // Other precisions are not the ones (3.9) gives: the theorem says nothing.
/// assert!(thm_3_5(&bins, &[BinPrecision::Perforate, double], Format::FP64, Some(0), &[11, 24, 53], t).is_err());
/// ```
pub fn thm_3_5(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
    ladder: &[u32],
    tolerance: ScoreTolerance,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_5)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_5)?;
    require(
        e_max <= e,
        &THM_3_5,
        "e_max(x ⊙ y) <= fexp(x^T y)",
        || format!("e_max = {e_max} > fexp(x^T y) = {e}"),
    )?;
    check_ladder(ladder)?;
    if ladder.last() != Some(&input.precision()) {
        return Err(VerifyError::invalid(
            "ladder",
            format!("{ladder:?}"),
            format!(
                "must be ascending and end with the input precision {}",
                input.precision()
            ),
        ));
    }
    let floor = floor_log2_tolerance(tolerance.eps, tolerance.divisor)?;
    // The highest score: at or above the input precision (3.9) has no case.
    let mut top_score = i64::MIN;
    for (b, p) in bins.bins.iter().zip(precisions) {
        let score = bin_score(b.count, i64::from(b.exponent), e_max, floor);
        top_score = top_score.max(score);
        let wanted = precision_3_9(score, ladder)?.map_or(0, |i| ladder[i]);
        require(
            p.bits() == wanted,
            &THM_3_5,
            "precisions given by (3.9) with the score (3.10)",
            || {
                format!(
                    "bin {} (M = {}, sigma = {score}) has {} bits, (3.9) gives {wanted}",
                    b.exponent,
                    b.count,
                    p.bits()
                )
            },
        )?;
    }
    let t = div_up(tolerance.eps, count_up(tolerance.divisor));
    Ok(Bound::deterministic(
        mul_up(count_up(bins.n_bins() as u64), t),
        Quantity::RelativeError,
        THM_3_5,
        Rigor::Published,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) <= fexp(x^T y)",
        format!("e_max = {e_max} <= {e} ({} fexp)", bins.fexp),
    )
    .with_hypothesis(
        if top_score >= i64::from(input.precision()) {
            "(3.9) with tolerance t in (3.10), a score sigma >= mu (no case in (3.9) as printed) read as the input precision, as the proof of Thm 3.6 and the paper's Fig. 1 read it"
        } else {
            "(3.9) with tolerance t in (3.10)"
        },
        format!(
            "t = eps / {} = {t:e}, floor(log2 t) = {floor}, N_bins = {}, top score {top_score}",
            tolerance.divisor,
            bins.n_bins()
        ),
    )
    .with_hypothesis(
        "Theorem 3.3's model (one rounding of eps(k) per product)",
        "assumed by the source, not checked",
    ))
}

/// A relative bound turned into the absolute one it states, `|x^T y| coefficient`
/// (eqs. (3.5), (3.7) and (3.12) are printed that way), with `|x^T y|` from the
/// exact oracle rounded up.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] unless `bound` is a relative error bound;
/// [`VerifyError::HypothesisNotMet`] if the exact `x^T y` is not finite.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_3, times_abs_exact, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::bounds::Quantity;
/// use boundgate_verify::format::Format;
/// use boundgate_verify::oracle::dot;
/// let (x, y) = ([3.0], [1.0]);
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// let exact = dot(&x, &y).unwrap();
/// let rel = thm_3_3(&bins, &[BinPrecision::Perforate], Format::FP64, Fexp::Ieee.of_exact(&exact)).unwrap();
/// let abs = times_abs_exact(rel, &exact).unwrap();
/// assert_eq!((abs.quantity, abs.value), (Quantity::AbsoluteError, 6.0));
/// ```
pub fn times_abs_exact(bound: Bound, exact: &ExactSum) -> Result<Bound> {
    if bound.quantity != Quantity::RelativeError {
        return Err(VerifyError::invalid(
            "bound",
            format!("{:?}", bound.quantity),
            "must be a relative error bound",
        ));
    }
    if !exact.is_finite() {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: bound.source.to_string(),
            hypothesis: "finite x^T y".into(),
            detail: "the exact result is not finite".into(),
        });
    }
    let magnitude = match exact.signum() {
        Ordering::Less => -exact.round(Format::FP64, RoundingMode::Down),
        _ => exact.round(Format::FP64, RoundingMode::Up),
    };
    let mut b = bound;
    b.value = mul_up(b.value, magnitude);
    b.quantity = Quantity::AbsoluteError;
    Ok(b.with_hypothesis(
        "absolute form |x^T y| * (relative bound)",
        format!("|x^T y| <= {magnitude:e} (exact oracle, rounded up)"),
    ))
}
