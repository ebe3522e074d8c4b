//! Dot products for the applications: the original fp64 kernel, or qdot with
//! a per-call record of the precision each component got (the paper's
//! Fig. 4 breakdowns) and, optionally, a check of every call against the
//! rigorous bound with the exact oracle.

use crate::error::Result;
use crate::kernels::qdot::bounds::evaluate;
use crate::kernels::qdot::compute::{compute, original_dot};
use crate::kernels::qdot::config::{QdotConfig, Tolerance};
use crate::kernels::qdot::select::select;
use boundgate_verify::format::Format;
use boundgate_verify::oracle;
use serde::Serialize;

/// The precision classes of the breakdowns, in report order.
pub const CLASSES: [&str; 5] = ["perforate", "bf16", "half", "single", "double"];

/// What one qdot call did: components per precision class ([`CLASSES`]),
/// zero products, bins, whether it exited early.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CallStats {
    /// Components per class, in the order of [`CLASSES`].
    pub components: [usize; 5],
    /// Components whose product is exactly zero (no bin).
    pub zeros: usize,
    /// Nonempty bins.
    pub bins: usize,
    /// Theorem 3.6's early exit applied.
    pub early_exit: bool,
}

impl CallStats {
    /// The percentage of the nonzero components in each class.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::apps::CallStats;
    /// // 1 perforated and 3 half of 4 components; the zero products do not count.
    /// let s = CallStats { components: [1, 0, 3, 0, 0], zeros: 5, ..CallStats::default() };
    /// assert_eq!(s.percentages(), [25.0, 0.0, 75.0, 0.0, 0.0]);
    /// // No component at all: zeros, not NaN.
    /// assert_eq!(CallStats::default().percentages(), [0.0; 5]);
    /// ```
    pub fn percentages(&self) -> [f64; 5] {
        // Summed in f64 (exact below 2^53): counts set by hand (public
        // fields) that overflow usize give percentages, not a panic.
        let total: f64 = self.components.iter().map(|&c| c as f64).sum();
        let mut p = [0.0; 5];
        if total > 0.0 {
            for (out, &c) in p.iter_mut().zip(&self.components) {
                *out = 100.0 * c as f64 / total;
            }
        }
        p
    }
}

/// A dot product the solvers call.
pub trait DotProvider {
    /// `x^T y`.
    fn dot(&mut self, x: &[f64], y: &[f64]) -> Result<f64>;
}

/// The original fp64 kernel (the role of `cublasDdot`): the tiled fp64 dot of
/// `compute::original_dot`.
#[derive(Clone, Copy, Debug)]
pub struct PlainDot {
    /// Tile length of its order.
    pub tile: usize,
}

impl DotProvider for PlainDot {
    fn dot(&mut self, x: &[f64], y: &[f64]) -> Result<f64> {
        let c = QdotConfig::new(Format::FP64)?;
        Ok(original_dot(
            x,
            y,
            c.input_level(),
            Format::FP64,
            boundgate_verify::bounds::qdot::TileOrder {
                n: x.len(),
                tile: self.tile,
            },
        )?)
    }
}

/// qdot with a tolerance (any positive value: the CG experiments go to 1e3),
/// recording each call.
#[derive(Clone, Debug)]
pub struct QdotDot {
    /// The configuration.
    pub config: QdotConfig,
    /// The tolerance.
    pub eps: Tolerance,
    /// One record per call, in call order.
    pub calls: Vec<CallStats>,
    /// Check every call against the rigorous bound (exact oracle).
    pub check: bool,
    /// Calls whose rigorous bound had a value and was checked.
    pub checked: u64,
    /// Calls whose error exceeded the rigorous bound (must stay 0).
    pub violations: u64,
}

impl QdotDot {
    /// A provider with an empty record.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::apps::{DotProvider, QdotDot};
    /// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
    /// use boundgate_verify::format::Format;
    /// let c = QdotConfig::new(Format::FP64).unwrap();
    /// let mut dots = QdotDot::new(c, Tolerance::new(1e-8).unwrap(), true);
    /// assert!(dots.calls.is_empty() && (dots.checked, dots.violations) == (0, 0));
    /// // 1*3 + 2*4 = 11: e_i = 1, 3, so Theorem 3.6's early exit runs the fp64 dot, exact here.
    /// assert_eq!(dots.dot(&[1.0, 2.0], &[3.0, 4.0]).unwrap(), 11.0);
    /// assert_eq!(dots.calls[0].components, [0, 0, 0, 0, 2]); // both in "double"
    /// assert_eq!((dots.calls.len(), dots.checked, dots.violations), (1, 1, 0));
    /// ```
    pub fn new(config: QdotConfig, eps: Tolerance, check: bool) -> QdotDot {
        QdotDot {
            config,
            eps,
            calls: Vec::new(),
            check,
            checked: 0,
            violations: 0,
        }
    }
}

impl DotProvider for QdotDot {
    fn dot(&mut self, x: &[f64], y: &[f64]) -> Result<f64> {
        let c = &self.config;
        let selection = select(x, y, self.eps, c)?;
        let z = compute(x, y, &selection, c)?.value;
        let levels = c.levels();
        let mut stats = CallStats {
            zeros: selection.zeros,
            bins: selection.n_bins(),
            early_exit: selection.early_exit,
            ..CallStats::default()
        };
        let class = |name: &str| CLASSES.iter().position(|c| *c == name).unwrap_or(0);
        if selection.early_exit {
            stats.components[class(c.input_level().name)] = x.len() - selection.zeros;
        }
        for b in &selection.bins {
            let name = b.level.map_or("perforate", |l| levels[l].name);
            stats.components[class(name)] += b.count;
        }
        self.calls.push(stats);
        if self.check {
            let exact = oracle::dot(x, y)?;
            let bounds = evaluate(x, y, &selection, c, self.eps, &exact)?;
            if let Ok(b) = bounds.rigorous {
                self.checked += 1;
                let error = exact.error_of(z).absolute_up().unwrap_or(f64::INFINITY);
                if error > b.value {
                    self.violations += 1;
                }
            }
        }
        Ok(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_of_counts_that_overflow_usize_do_not_panic() {
        let s = CallStats {
            components: [usize::MAX, usize::MAX, 0, 0, 0],
            ..CallStats::default()
        };
        assert_eq!(s.percentages(), [50.0, 50.0, 0.0, 0.0, 0.0]);
    }
}
