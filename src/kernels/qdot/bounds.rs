//! The bounds of one qdot run, evaluated by the checker
//! (`boundgate_verify::bounds::qdot`) on its own exact binning of the data:
//! the kernel contributes only the precision it chose per bin and its order.

use super::config::{QdotConfig, Score, Tolerance};
use super::select::Selection;
use boundgate_verify::bounds::Bound;
use boundgate_verify::bounds::qdot::{
    self as paper, BinPrecision, ExponentBins, ScoreTolerance, TileOrder, times_abs_exact,
};
use boundgate_verify::oracle::ExactSum;
use boundgate_verify::{Result as VResult, VerifyError};

/// Every bound of one run, all absolute, with respect to the exact dot
/// product of the values the kernel read (the representation error of
/// rounding the inputs to the input precision is added by the kernel).
#[derive(Clone, Debug)]
pub struct QdotBounds {
    /// The checker's exact binning of the data.
    pub bins: ExponentBins,
    /// The precision of each of its bins, as the kernel chose.
    pub precisions: Vec<BinPrecision>,
    /// `fexp(x^T y)` of the exact result (None if it is zero).
    pub dot_fexp: Option<i64>,
    /// The corrected, rigorous bound.
    pub rigorous: VResult<Bound>,
    /// Theorem 3.2 corrected in its own terms (`M_k`, `u_k`, precisions).
    pub corrected_3_2: VResult<Bound>,
    /// Theorem 3.2 as printed.
    pub thm_3_2: VResult<Bound>,
    /// Theorem 3.3 as printed (times `|x^T y|`).
    pub thm_3_3: VResult<Bound>,
    /// Theorem 3.4 as printed (times `|x^T y|`).
    pub thm_3_4: VResult<Bound>,
    /// Theorem 3.5 as printed (times `|x^T y|`).
    pub thm_3_5: VResult<Bound>,
}

impl QdotBounds {
    /// The published bounds with their report labels, in the paper's order.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::{bounds::evaluate, config::*, select::select};
    /// use boundgate_verify::{format::Format, oracle};
    /// let (x, y) = ([1.0, 0.1, 2f64.powi(-40)], [1.0, 3.0, 1.0]);
    /// let (c, eps) = (QdotConfig::new(Format::FP64).unwrap(), Tolerance::new(1e-6).unwrap());
    /// let s = select(&x, &y, eps, &c).unwrap();
    /// let b = evaluate(&x, &y, &s, &c, eps, &oracle::dot(&x, &y).unwrap()).unwrap();
    /// let published = b.published();
    /// let labels: Vec<_> = published.iter().map(|(label, _)| *label).collect();
    /// assert_eq!(labels[0], "published: qdot Thm 3.2 (3.1)");
    /// assert_eq!(labels[3], "published: qdot Thm 3.5 (3.12)");
    /// // The entries are the struct's own fields, in the paper's order.
    /// assert!(std::ptr::eq(published[0].1, &b.thm_3_2) && std::ptr::eq(published[3].1, &b.thm_3_5));
    /// ```
    pub fn published(&self) -> Vec<(&'static str, &VResult<Bound>)> {
        vec![
            ("published: qdot Thm 3.2 (3.1)", &self.thm_3_2),
            ("published: qdot Thm 3.3 (3.5)", &self.thm_3_3),
            ("published: qdot Thm 3.4 (3.7)", &self.thm_3_4),
            ("published: qdot Thm 3.5 (3.12)", &self.thm_3_5),
        ]
    }
}

/// The evaluation order of a configuration on vectors of length `n`.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::bounds::order;
/// use boundgate::kernels::qdot::config::QdotConfig;
/// use boundgate_verify::format::Format;
/// let mut c = QdotConfig::new(Format::FP64).unwrap();
/// let o = order(&c, 1000);
/// // Tiles of 64 (the default): ceil(1000 / 64) = 16 tiles.
/// assert_eq!((o.n, o.tile, o.tiles()), (1000, 64, 16));
/// c.tile = 0; // one tile: the sequential order
/// assert_eq!(order(&c, 1000).tiles(), 1);
/// ```
pub fn order(config: &QdotConfig, n: usize) -> TileOrder {
    TileOrder {
        n,
        tile: config.tile,
    }
}

/// Evaluates every bound for a run on `x`, `y` (the values the kernel read)
/// with the given selection; `exact` is the exact `x^T y` on them.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if the kernel's bins disagree with the
/// checker's (a bug) or a bin's precision level is not one of the
/// configuration's (a hand-built selection), and the checker's input errors.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::{bounds::evaluate, compute::compute, config::*, select::select};
/// use boundgate_verify::{VerifyError, format::Format, oracle};
/// let (x, y) = ([1.0, 0.1, 2f64.powi(-40)], [1.0, 3.0, 1.0]);
/// let (c, eps) = (QdotConfig::new(Format::FP64).unwrap(), Tolerance::new(1e-6).unwrap());
/// let s = select(&x, &y, eps, &c).unwrap();
/// let z = compute(&x, &y, &s, &c).unwrap().value;
/// let exact = oracle::dot(&x, &y).unwrap();
/// let b = evaluate(&x, &y, &s, &c, eps, &exact).unwrap();
/// // The rigorous bound holds against the exact error of the computed z.
/// assert!(exact.error_of(z).absolute_up().unwrap() <= b.rigorous.unwrap().value);
/// // A selection made on other data disagrees with the checker's bins.
/// let other = [4.0, 0.1, 2f64.powi(-40)];
/// assert!(matches!(evaluate(&other, &y, &s, &c, eps, &exact), Err(VerifyError::InvalidParameter { .. })));
/// ```
pub fn evaluate(
    x: &[f64],
    y: &[f64],
    selection: &Selection,
    config: &QdotConfig,
    eps: Tolerance,
    exact: &ExactSum,
) -> VResult<QdotBounds> {
    let bins = ExponentBins::binned(x, y, config.fexp, config.binning)?;
    let levels = config.levels();
    let input_level = config.input_level();
    let precisions: Vec<BinPrecision> = if selection.early_exit {
        vec![BinPrecision::Compute(input_level.arithmetic); bins.n_bins()]
    } else {
        check_agreement(&bins, selection)?;
        selection
            .bins
            .iter()
            .map(|b| match b.level {
                None => Ok(BinPrecision::Perforate),
                Some(l) => levels
                    .get(l)
                    .map(|level| BinPrecision::Compute(level.arithmetic))
                    .ok_or_else(|| {
                        VerifyError::invalid(
                            "selection level",
                            l,
                            format!("the configuration has {} levels", levels.len()),
                        )
                    }),
            })
            .collect::<VResult<_>>()?
    };
    let input = config.input;
    let order = order(config, x.len());
    let rigorous = if selection.early_exit {
        paper::rigorous_plain(x, y, input, input_level.arithmetic, order)
    } else {
        paper::rigorous(&bins, &precisions, input, order)
    };
    let dot_fexp = config.fexp.of_exact(exact);
    let relative = |b: VResult<Bound>| b.and_then(|b| times_abs_exact(b, exact));
    let divisor = match config.score {
        Score::Eps => 1,
        Score::EpsOverNbins => bins.n_bins().max(1) as u64,
    };
    let tolerance = ScoreTolerance {
        eps: eps.value(),
        divisor,
    };
    Ok(QdotBounds {
        corrected_3_2: paper::corrected_thm_3_2(&bins, &precisions, input, order),
        thm_3_2: paper::thm_3_2(&bins, &precisions, input),
        thm_3_3: relative(paper::thm_3_3(&bins, &precisions, input, dot_fexp)),
        thm_3_4: relative(paper::thm_3_4(&bins, &precisions, input, dot_fexp)),
        thm_3_5: relative(paper::thm_3_5(
            &bins,
            &precisions,
            input,
            dot_fexp,
            &config.ladder_bits(),
            tolerance,
        )),
        rigorous,
        dot_fexp,
        bins,
        precisions,
    })
}

/// The kernel's selection must bin exactly as the checker does.
fn check_agreement(bins: &ExponentBins, selection: &Selection) -> VResult<()> {
    let ours: Vec<(i32, u64)> = bins.bins.iter().map(|b| (b.exponent, b.count)).collect();
    let theirs: Vec<(i32, u64)> = selection
        .bins
        .iter()
        .map(|b| (b.exponent, b.count as u64))
        .collect();
    if ours == theirs {
        Ok(())
    } else {
        Err(VerifyError::invalid(
            "selection",
            format!("{} bins", theirs.len()),
            format!(
                "the kernel's bins {theirs:?} disagree with the checker's exact binning {ours:?}"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::qdot::select::select;
    use boundgate_verify::format::Format;
    use boundgate_verify::oracle;

    #[test]
    fn evaluate_refuses_a_selection_level_the_configuration_lacks() {
        let mut c = QdotConfig::new(Format::FP64).unwrap();
        c.early_exit = false;
        let eps = Tolerance::new(1e-6).unwrap();
        let (x, y) = ([1.0, 0.1], [1.0, 3.0]);
        let mut s = select(&x, &y, eps, &c).unwrap();
        let exact = oracle::dot(&x, &y).unwrap();
        assert!(evaluate(&x, &y, &s, &c, eps, &exact).is_ok());
        s.bins[0].level = Some(c.levels().len());
        let got = evaluate(&x, &y, &s, &c, eps, &exact);
        assert!(
            matches!(got, Err(VerifyError::InvalidParameter { .. })),
            "{got:?}"
        );
    }
}
