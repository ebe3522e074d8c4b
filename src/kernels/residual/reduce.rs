//! The reduction rule (Gu §3.1, eq. (13)-(14); Algorithm 1, lines 7-8): which
//! entries of `A` and `B` take part in the residual compensation.
//!
//! The sources disagree with each other:
//!
//! - **eq. (14) as printed** compares each entry with the threshold `M` times
//!   the mean magnitude of the result row (for `A`) or column (for `B`) it
//!   contributes to, estimated from the directly quantized product `D_F`:
//!   `a_ik <= M * avg(abs(c_i*))`. The derivation keeps entries with large
//!   weight ("we only need to focus on the numbers with relatively large
//!   weights"), but eq. (13)-(14) are written with signed `a_ik`, and the
//!   comparison is not scale-invariant: an entry of `A` is compared with a
//!   value of `A B`, which grows with `k`. `Rows` keeps the larger entries,
//!   `|a_ik| > M * avg(abs(c_i*))` (the intent; the printed `<=` taken
//!   literally keeps every entry at the paper's size). At the paper's size
//!   (1024) no entry of any of its five distributions passes for `M` in 0.2..1
//!   (the sparse method degenerates to direct quantization;
//!   `docs/findings/residual.md`), so the paper's Fig. 8 densities cannot come
//!   from it, read either way.
//! - **the worked example** (§3.1 B) keeps `0.1602` but drops `-0.2394` and
//!   `-0.4861` in rows whose limit they exceed in magnitude: a *signed*
//!   comparison with the row means of `|D_F|` (any `M` in `(0.2414, 0.3539)`
//!   reproduces its `A^r` and `B^r`).
//! - **the authors' code** (github.com/grysgreat/rxigemm,
//!   `xigemm_cpu/src/matrix/rcxigemm.hpp`, `rcxigemm`, vector-wise) keeps
//!   `|a_ik| >= 2 M mean|A|` and `|b_kj| >= 2 M mean|B|`, the means taken over
//!   the nonzero entries of the whole matrix (`get_nnz_avg`): dimensionally
//!   consistent, and the one that produced the experiments.
//!
//! The rule here, [`ReduceRule::Mean`] (the default), is the code's, stated
//! precisely:
//!
//! ```text
//! keep a_ik  iff  a_ik != 0  and  |a_ik| >= (2 M) * mean{ |a| : a != 0 }
//! ```
//!
//! (likewise `b_kj` with `B`'s mean; the mean is exactly rounded, `RN_64` of
//! the exact sum over the count ([`super::exact_mean`]: order-free, so the
//! GPU computes it in parallel and agrees bit for bit; the authors' code sums
//! sequentially in `double`), the limit is `(2 M) * mean` in `f64`, and
//! zeros are never kept, so an all-zero matrix has density 0). The two
//! readings of the paper are options: [`ReduceRule::Rows`], eq. (14) with
//! magnitudes (`|a_ik| > M * mean_j |D_F_ij|`, column means for `b_kj`), and
//! [`ReduceRule::Signed`], the worked example's (`a_ik > M * mean_j |D_F_ij|`).

use crate::error::Result;
use crate::kernels::shape_len;
use boundgate_verify::VerifyError;
use serde::Serialize;

/// Which entries the reduction keeps (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReduceRule {
    /// `|x| >= 2 M mean_nnz|X|`, `x != 0` (the authors' code; the default).
    Mean,
    /// `|x| > M * mean |D_F|` over the result row / column (eq. (14) with magnitudes).
    Rows,
    /// `x > M * mean |D_F|` (the worked example).
    Signed,
}

impl ReduceRule {
    /// Parameter name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// assert_eq!(ReduceRule::Mean.name(), "mean");
    /// assert_eq!(ReduceRule::Signed.name(), "signed");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ReduceRule::Mean => "mean",
            ReduceRule::Rows => "rows",
            ReduceRule::Signed => "signed",
        }
    }
    /// From its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// for r in [ReduceRule::Mean, ReduceRule::Rows, ReduceRule::Signed] {
    ///     assert_eq!(ReduceRule::by_name(r.name()), Some(r));
    /// }
    /// assert_eq!(ReduceRule::by_name("eq14"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<ReduceRule> {
        [ReduceRule::Mean, ReduceRule::Rows, ReduceRule::Signed]
            .into_iter()
            .find(|r| r.name() == name)
    }
    /// Whether `x` is kept against `limit` (`2 M mean` or `M * mean`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// // Mean: magnitude at or above the limit, never a zero.
    /// assert!(ReduceRule::Mean.keeps(-0.5, 0.5));
    /// assert!(!ReduceRule::Mean.keeps(0.0, 0.0));
    /// // Rows: magnitude strictly above.
    /// assert!(!ReduceRule::Rows.keeps(-0.5, 0.5));
    /// assert!(ReduceRule::Rows.keeps(-0.6, 0.5));
    /// // Signed: the value itself strictly above (the worked example drops -0.2394).
    /// assert!(!ReduceRule::Signed.keeps(-0.6, 0.5));
    /// assert!(ReduceRule::Signed.keeps(0.6, 0.5));
    /// ```
    #[inline]
    pub fn keeps(self, x: f64, limit: f64) -> bool {
        match self {
            ReduceRule::Mean => x != 0.0 && x.abs() >= limit,
            ReduceRule::Rows => x.abs() > limit,
            ReduceRule::Signed => x > limit,
        }
    }
}

/// Row means (`by_rows`) or column means of `|d|` for a row-major `m x n` `d`,
/// summed in index order in `f64`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `m * n` overflows `usize`;
/// [`VerifyError::LengthMismatch`] if `d` does not hold `m * n` values;
/// [`VerifyError::Empty`] for rows (columns) of no entries, whose mean is
/// undefined (0/0 would be a silent NaN).
///
/// # Example
/// ```
/// use boundgate::kernels::residual::reduce::abs_means;
/// let d = [1.0, -3.0, 2.0, 0.0];
/// assert_eq!(abs_means(&d, 2, 2, true).unwrap(), vec![2.0, 1.0]);
/// assert_eq!(abs_means(&d, 2, 2, false).unwrap(), vec![1.5, 1.5]);
/// // a 2 x 3 shape for 4 values is refused
/// assert!(abs_means(&d, 2, 3, true).is_err());
/// ```
pub fn abs_means(d: &[f64], m: usize, n: usize, by_rows: bool) -> Result<Vec<f64>> {
    let len = shape_len("D", m, n)?;
    boundgate_verify::error::require_same_len("D and m * n", d.len(), len)?;
    let (lines, count) = if by_rows { (m, n) } else { (n, m) };
    if lines > 0 && count == 0 {
        let what = if by_rows { "rows of D" } else { "columns of D" };
        return Err(VerifyError::Empty { what: what.into() }.into());
    }
    let mut sums = vec![0.0; if by_rows { m } else { n }];
    for i in 0..m {
        for j in 0..n {
            sums[if by_rows { i } else { j }] += d[i * n + j].abs();
        }
    }
    let count = count as f64;
    Ok(sums.into_iter().map(|s| s / count).collect())
}

/// The mean of `|x|` over the nonzero entries, exactly rounded
/// ([`super::exact_mean`]); 0 if there are none.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::reduce::nonzero_mean;
/// assert_eq!(nonzero_mean(&[1.0, 0.0, -3.0]), 2.0);
/// assert_eq!(nonzero_mean(&[0.0, 0.0]), 0.0);
/// ```
pub fn nonzero_mean(x: &[f64]) -> f64 {
    super::exact_mean::AbsSumBins::of_slice(x).mean()
}

/// The mask of kept entries of a row-major `rows x cols` matrix `x`.
///
/// For [`ReduceRule::Mean`], `means` is ignored and the limit is
/// `(2 M) * nonzero_mean(x)`; for the other rules it is `M * means[line]` with
/// `line` the row (`means_by_rows`, for `A`) or the column (for `B`).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `rows * cols` overflows `usize`;
/// [`VerifyError::LengthMismatch`] if `x` does not hold `rows * cols` values
/// or, for the rules other than [`ReduceRule::Mean`], `means` does not hold
/// one value per row (`means_by_rows`) or per column.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::reduce::{reduce_mask, ReduceRule};
/// // Row 0 of the worked example with M = 0.3: limit 0.3 * 0.5047.
/// let row = [0.2735, -0.1588, 0.1218];
/// assert_eq!(reduce_mask(&row, 1, 3, &[0.5047], true, 0.3, ReduceRule::Signed).unwrap(), vec![true, false, false]);
/// // The code's rule: mean |x| = 0.1847, keep |x| >= 2 * 0.5 * 0.1847.
/// assert_eq!(reduce_mask(&row, 1, 3, &[], true, 0.5, ReduceRule::Mean).unwrap(), vec![true, false, false]);
/// // the other rules need one mean per line
/// assert!(reduce_mask(&row, 1, 3, &[], true, 0.3, ReduceRule::Signed).is_err());
/// ```
pub fn reduce_mask(
    x: &[f64],
    rows: usize,
    cols: usize,
    means: &[f64],
    means_by_rows: bool,
    threshold: f64,
    rule: ReduceRule,
) -> Result<Vec<bool>> {
    let len = shape_len("X", rows, cols)?;
    boundgate_verify::error::require_same_len("X and rows * cols", x.len(), len)?;
    if rule != ReduceRule::Mean {
        let (what, lines) = if means_by_rows {
            ("means and rows", rows)
        } else {
            ("means and columns", cols)
        };
        boundgate_verify::error::require_same_len(what, means.len(), lines)?;
    }
    let global = match rule {
        ReduceRule::Mean => Some((2.0 * threshold) * nonzero_mean(x)),
        _ => None,
    };
    let mut mask = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let limit =
                global.unwrap_or_else(|| threshold * means[if means_by_rows { i } else { j }]);
            mask.push(rule.keeps(x[i * cols + j], limit));
        }
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn abs_means_refuses_data_that_does_not_fit_the_shape() {
        let got = abs_means(&[1.0, 2.0, 3.0], 2, 2, true);
        assert!(
            matches!(got, Err(Error::Verify(VerifyError::LengthMismatch { .. }))),
            "{got:?}"
        );
        assert!(abs_means(&[], usize::MAX, 2, false).is_err());
    }

    #[test]
    fn abs_means_of_empty_lines_is_an_error_not_nan() {
        for by_rows in [true, false] {
            let (m, n) = if by_rows { (3, 0) } else { (0, 3) };
            let got = abs_means(&[], m, n, by_rows);
            assert!(
                matches!(got, Err(Error::Verify(VerifyError::Empty { .. }))),
                "{got:?}"
            );
        }
        // no lines at all: no mean to take, nothing undefined
        assert_eq!(abs_means(&[], 0, 3, true).unwrap(), Vec::<f64>::new());
    }

    #[test]
    fn reduce_mask_refuses_means_or_data_of_the_wrong_length() {
        let x = [1.0, 2.0, 3.0, 4.0];
        for rule in [ReduceRule::Rows, ReduceRule::Signed] {
            assert!(reduce_mask(&x, 2, 2, &[1.0], true, 0.5, rule).is_err());
            assert!(reduce_mask(&x, 2, 2, &[1.0; 3], false, 0.5, rule).is_err());
            assert!(reduce_mask(&x, 2, 2, &[1.0; 2], false, 0.5, rule).is_ok());
        }
        for rule in [ReduceRule::Mean, ReduceRule::Rows] {
            let got = reduce_mask(&x[..3], 2, 2, &[1.0; 2], true, 0.5, rule);
            assert!(
                matches!(got, Err(Error::Verify(VerifyError::LengthMismatch { .. }))),
                "{got:?}"
            );
        }
    }
}
