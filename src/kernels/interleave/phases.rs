//! Step 3: where to fork the measurements (Freytag 2023, §4.2.3).
//!
//! - Phase 1: on the approximate profile, in every cell it intersects, the
//!   mean iteration of its points in the cell; the run forks there to the
//!   exact kernel (Fig. 4.6).
//! - Phase 2: on the phase-1 curves, in every cell they intersect, the curve
//!   closest to the cell's centre, at the mean iteration of its points in the
//!   cell; forks to the approximate kernel (Fig. 4.7).
//! - Phase 3: the same on the phase-2 curves; forks to the exact kernel (Fig. 4.8).
//!
//! Choices where the thesis is silent (docs/interleave.md):
//! - A curve's points are its measured rows `(i, L(i))`, `i > t` for a run
//!   forked at `t` (`i >= 1` for the approximate profile: the conversion row
//!   is not a kernel iteration).
//! - "Mean iteration": the mean of the iterations of the points in the cell,
//!   rounded half up; the fork runs the next kernel from iteration `mean + 1`.
//!   A test point at `N` (nothing left to run) is dropped.
//! - "Closest to the centre": the smallest distance from one of the curve's
//!   points in the cell to the centre, in cell widths and heights
//!   ([`SectionGrid::centre_distance`]); ties go to the earlier curve.
//! - Two cells choosing the same curve and iteration give one fork.

use super::profile::Profile;
use super::sections::SectionGrid;
use serde::Serialize;
use std::collections::BTreeMap;

/// A fork chosen for a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TestPoint {
    /// The cell it was chosen for.
    pub cell: usize,
    /// Index of the curve it forks from.
    pub curve: usize,
    /// The iteration after which the fork runs the other kernel.
    pub iteration: usize,
}

/// The cells a curve's points fall in, each with the iterations of its points there.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{phases::intersections, profile::{Profile, Row}};
/// use boundgate::kernels::interleave::{sections::SectionGrid, version::Version};
/// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
///     end_timestamp: 0, runtime_ms: 0.0, accuracy_loss: loss, ground_truth: None };
/// // 2 x 2 cells over 4 iterations and losses up to 1: columns split at 2, rows at 0.5
/// let curve = Profile::new(vec![row(0, 0.0), row(1, 0.25), row(2, 0.25), row(3, 0.75), row(4, 1.5)]).unwrap();
/// let cells = intersections(&curve, &SectionGrid::new(2, 4, 1.0).unwrap());
/// // row 0 (the start) is no point; (4, 1.5) lies above the grid
/// assert_eq!(cells.into_iter().collect::<Vec<_>>(), vec![(0, vec![1]), (1, vec![2]), (3, vec![3])]);
/// ```
pub fn intersections(curve: &Profile, grid: &SectionGrid) -> BTreeMap<usize, Vec<usize>> {
    let mut cells: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, loss) in curve.points() {
        if let Some(c) = grid.locate(i, loss) {
            cells.entry(c).or_default().push(i);
        }
    }
    cells
}

/// The mean of iterations, rounded half up (`None` for none).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::phases::mean_iteration;
/// assert_eq!(mean_iteration(&[3, 4]), Some(4));
/// assert_eq!(mean_iteration(&[1, 2, 3, 10]), Some(4));
/// assert_eq!(mean_iteration(&[]), None);
/// ```
pub fn mean_iteration(iterations: &[usize]) -> Option<usize> {
    if iterations.is_empty() {
        return None;
    }
    let sum: u128 = iterations.iter().map(|&i| i as u128).sum();
    let n = iterations.len() as u128;
    Some(((2 * sum + n) / (2 * n)) as usize)
}

/// For every cell intersected by some curve: the curve closest to the
/// cell's centre and its mean iteration in the cell (phases 2 and 3; with
/// one curve, phase 1). Sorted by cell; forks at `N` dropped.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{phases::select, profile::{Profile, Row}, sections::SectionGrid, version::Version};
/// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
///     end_timestamp: 0, runtime_ms: 0.0, accuracy_loss: loss, ground_truth: None };
/// let curve = Profile::new((0..=4).map(|i| row(i, i as f64 * 0.01)).collect()).unwrap();
/// let grid = SectionGrid::new(2, 4, 0.04).unwrap();
/// let points = select(&[curve], &grid);
/// // cell 0 holds iteration 1 (loss 0.01), cell 3 iterations 2..4: fork after 1 and after 3
/// assert_eq!(points.iter().map(|p| (p.cell, p.iteration)).collect::<Vec<_>>(), vec![(0, 1), (3, 3)]);
/// ```
pub fn select(curves: &[Profile], grid: &SectionGrid) -> Vec<TestPoint> {
    let mut best: BTreeMap<usize, (f64, usize, Vec<usize>)> = BTreeMap::new();
    for (k, curve) in curves.iter().enumerate() {
        for (cell, its) in intersections(curve, grid) {
            let distance = its
                .iter()
                .map(|&i| {
                    let loss = curve.row(i).map_or(f64::NAN, |r| r.accuracy_loss);
                    grid.centre_distance(cell, i, loss)
                })
                .fold(f64::INFINITY, f64::min);
            let better = best.get(&cell).is_none_or(|(d, _, _)| distance < *d);
            if better {
                best.insert(cell, (distance, k, its));
            }
        }
    }
    let mut points: Vec<TestPoint> = Vec::new();
    for (cell, (_, curve, its)) in best {
        let Some(iteration) = mean_iteration(&its) else {
            continue;
        };
        if iteration >= grid.iterations() {
            continue;
        }
        points.push(TestPoint {
            cell,
            curve,
            iteration,
        });
    }
    points
}

/// The distinct forks `(curve, iteration)` of test points, in order.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::phases::{distinct_forks, TestPoint};
/// let p = |cell: usize, curve: usize, iteration: usize| TestPoint { cell, curve, iteration };
/// // cells 0 and 1 chose the same fork; cell 2 the same iteration on another curve
/// let points = [p(0, 0, 3), p(1, 0, 3), p(2, 1, 3), p(3, 0, 5)];
/// assert_eq!(distinct_forks(&points), vec![(0, 3), (1, 3), (0, 5)]);
/// ```
pub fn distinct_forks(points: &[TestPoint]) -> Vec<(usize, usize)> {
    let mut seen = std::collections::BTreeSet::new();
    points
        .iter()
        .filter_map(|p| {
            seen.insert((p.curve, p.iteration))
                .then_some((p.curve, p.iteration))
        })
        .collect()
}
