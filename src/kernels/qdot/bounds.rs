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
/// checker's (a bug), and the checker's input errors.
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
                None => BinPrecision::Perforate,
                Some(l) => BinPrecision::Compute(levels[l].arithmetic),
            })
            .collect()
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
