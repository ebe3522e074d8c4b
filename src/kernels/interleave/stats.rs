//! Steps 4 and 5: accuracy-loss and runtime statistics per subsection
//! (Freytag 2023, §4.2.4) and the four cumulative runtime targets (§4.2.5).
//!
//! Step 4, with the choices where the thesis is silent (docs/interleave.md):
//! - A measurement (a phase-1, -2 or -3 curve) belongs to the cell holding
//!   its starting point `(t, L(t))` ("the profiles whose measurements in step
//!   three started in that subsection"); a start outside the grid is unused.
//! - An iteration `i` is "in" a cell when it starts there: `(i - 1, L(i - 1))`
//!   lies in the cell, which is where the simulation applies the cell's rate.
//! - The loss rate of a measurement in its cell is the mean increment
//!   `L(i) - L(i - 1)` over its iterations in the cell, its runtime the mean
//!   runtime of those iterations; several measurements of a kernel in a cell
//!   are averaged ("an average of the average", §4.2.4).
//! - The approximate profile (the baseline) counts as one more approximate
//!   measurement in every cell it crosses; phase 2 gives the others, phases
//!   1 and 3 the exact kernel's.
//! - A cell without a measurement of a kernel borrows the nearest cell's
//!   (centre to centre, in cell units; ties to the lower id).
//!
//! Step 5: `C_apx(i)` and `C_ex(i)`, the cumulative runtimes of the two
//! profiles (row 0, the conversion, included), and the targets
//! `T_k(i) = C_apx(i) + (k/4) (C_ex(i) - C_apx(i))`, `k = 1..4`.

use super::error::{InterleaveError, Result};
use super::profile::{Profile, Row};
use super::sections::SectionGrid;
use super::version::Version;
use serde::Serialize;
use std::fmt::Write as _;

/// The mean loss rate and runtime of one kernel in one cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KernelStat {
    /// Mean loss increment per iteration.
    pub rate: f64,
    /// Mean runtime per iteration (ms).
    pub runtime_ms: f64,
    /// Number of measurements averaged.
    pub measurements: usize,
    /// Number of iterations behind them.
    pub iterations: usize,
}

/// The statistics of one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CellStats {
    /// The cell.
    pub cell: usize,
    /// The approximate profile (baseline) in this cell.
    pub baseline: Option<KernelStat>,
    /// Phase-2 measurements (approximate kernel) started here.
    pub approx: Option<KernelStat>,
    /// Phase-1 and phase-3 measurements (exact kernel) started here.
    pub exact: Option<KernelStat>,
}

/// Per-cell statistics of both kernels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statistics {
    /// The subsections.
    pub grid: SectionGrid,
    /// The approximate kernel.
    pub approx_version: Version,
    /// The cells, by id.
    pub cells: Vec<CellStats>,
    /// Measurements whose start lies outside the grid (unused).
    pub unused: usize,
    /// Per cell: the combined approximate statistics (baseline and phase 2).
    approx_combined: Vec<Option<KernelStat>>,
}

/// A measurement's mean increment and runtime over its iterations that
/// start in `cell`.
fn mean_in_cell(rows: &[Row], grid: &SectionGrid, cell: usize) -> Option<(f64, f64, usize)> {
    let (mut rate, mut runtime, mut count) = (0.0, 0.0, 0usize);
    for w in rows.windows(2) {
        if grid.locate(w[0].iteration, w[0].accuracy_loss) == Some(cell) {
            rate += w[1].accuracy_loss - w[0].accuracy_loss;
            runtime += w[1].runtime_ms;
            count += 1;
        }
    }
    (count > 0).then(|| (rate / count as f64, runtime / count as f64, count))
}

#[derive(Default, Clone)]
struct Acc {
    rate: f64,
    runtime: f64,
    measurements: usize,
    iterations: usize,
}

impl Acc {
    fn add(&mut self, (rate, runtime, iterations): (f64, f64, usize)) {
        self.rate += rate;
        self.runtime += runtime;
        self.measurements += 1;
        self.iterations += iterations;
    }
    fn merge(&mut self, other: &Acc) {
        self.rate += other.rate;
        self.runtime += other.runtime;
        self.measurements += other.measurements;
        self.iterations += other.iterations;
    }
    fn stat(&self) -> Option<KernelStat> {
        (self.measurements > 0).then(|| KernelStat {
            rate: self.rate / self.measurements as f64,
            runtime_ms: self.runtime / self.measurements as f64,
            measurements: self.measurements,
            iterations: self.iterations,
        })
    }
}

impl Statistics {
    /// The statistics of a baseline (approximate) profile and the step-3
    /// measurements (each a forked profile whose rows after the first ran one
    /// kernel: exact for phases 1 and 3, approximate for phase 2).
    ///
    /// # Errors
    /// A measurement that runs a kernel other than the two, or runs both.
    pub fn new(
        grid: &SectionGrid,
        baseline: &Profile,
        measurements: &[Profile],
    ) -> Result<Statistics> {
        let approx_version = baseline.rows()[0].kernel;
        let n = grid.len();
        let mut base = vec![Acc::default(); n];
        let mut approx = vec![Acc::default(); n];
        let mut exact = vec![Acc::default(); n];
        for (cell, acc) in base.iter_mut().enumerate() {
            if let Some(m) = mean_in_cell(baseline.rows(), grid, cell) {
                acc.add(m);
            }
        }
        let mut unused = 0;
        for (k, m) in measurements.iter().enumerate() {
            let kernels: std::collections::BTreeSet<Version> =
                m.measured().iter().map(|r| r.kernel).collect();
            let kernel = match kernels.iter().copied().collect::<Vec<_>>()[..] {
                [v] if v == approx_version || v.is_exact() => v,
                [] => continue,
                _ => {
                    return Err(InterleaveError::parameter(
                        "measurement",
                        k,
                        format!(
                            "runs {kernels:?}: a measurement runs one kernel, {approx_version} or float"
                        ),
                    ));
                }
            };
            let start = m.start();
            let Some(cell) = grid.locate(start.iteration, start.accuracy_loss) else {
                unused += 1;
                continue;
            };
            if let Some(stat) = mean_in_cell(m.rows(), grid, cell) {
                if kernel.is_exact() {
                    exact[cell].add(stat);
                } else {
                    approx[cell].add(stat);
                }
            }
        }
        let approx_combined = (0..n)
            .map(|c| {
                let mut a = base[c].clone();
                a.merge(&approx[c]);
                a.stat()
            })
            .collect();
        let cells = (0..n)
            .map(|c| CellStats {
                cell: c,
                baseline: base[c].stat(),
                approx: approx[c].stat(),
                exact: exact[c].stat(),
            })
            .collect();
        Ok(Statistics {
            grid: grid.clone(),
            approx_version,
            cells,
            unused,
            approx_combined,
        })
    }

    /// The statistics the simulation uses for `exact` (true) or the
    /// approximate kernel in `cell`: the cell's own, else the nearest cell's
    /// with data. Returns the cell the numbers come from.
    ///
    /// # Errors
    /// [`InterleaveError::NoStatistics`] when no cell has data for the kernel.
    pub fn lookup(&self, exact: bool, cell: usize) -> Result<(KernelStat, usize)> {
        let get = |c: usize| {
            if exact {
                self.cells[c].exact
            } else {
                self.approx_combined[c]
            }
        };
        if let Some(s) = get(cell) {
            return Ok((s, cell));
        }
        let centre = self.grid.section(cell);
        let mut best: Option<(f64, usize, KernelStat)> = None;
        for c in 0..self.cells.len() {
            let Some(s) = get(c) else { continue };
            let other = self.grid.section(c);
            let d = ((other.col as f64 - centre.col as f64).powi(2)
                + (other.row as f64 - centre.row as f64).powi(2))
            .sqrt();
            if best.as_ref().is_none_or(|(bd, _, _)| d < *bd) {
                best = Some((d, c, s));
            }
        }
        best.map(|(_, c, s)| (s, c))
            .ok_or_else(|| InterleaveError::NoStatistics {
                kernel: if exact {
                    "float".into()
                } else {
                    self.approx_version.to_string()
                },
            })
    }

    /// The statistics file: one line per cell (empty fields where a kernel
    /// has no measurement starting there).
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "id,baseline_rate,baseline_runtime,approx_rate,approx_runtime,approx_measurements,exact_rate,exact_runtime,exact_measurements\n",
        );
        let f = |s: Option<KernelStat>, count: bool| match s {
            Some(s) if count => format!("{},{},{}", s.rate, s.runtime_ms, s.measurements),
            Some(s) => format!("{},{}", s.rate, s.runtime_ms),
            None if count => ",,0".to_string(),
            None => ",".to_string(),
        };
        for c in &self.cells {
            let _ = writeln!(
                out,
                "{},{},{},{}",
                c.cell,
                f(c.baseline, false),
                f(c.approx, true),
                f(c.exact, true)
            );
        }
        out
    }
}

/// Step 5: cumulative runtimes and the four targets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Targets {
    /// `C_apx(i)`, ms, `i = 0..=N`.
    pub approx_cumulative: Vec<f64>,
    /// `C_ex(i)`, ms.
    pub exact_cumulative: Vec<f64>,
}

impl Targets {
    /// From the approximate and exact profiles (both from iteration 0 to the same `N`).
    ///
    /// # Errors
    /// Profiles that do not start at 0 or end at different iterations.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, stats::Targets, version::Version};
    /// let p = |v: Version, ms: f64| Profile::new((0..=2).map(|i| Row { kernel: v, iteration: i,
    ///     start_timestamp: 0, end_timestamp: 0, runtime_ms: if i == 0 { 0.0 } else { ms },
    ///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
    /// let t = Targets::new(&p(Version::Half, 1.0), &p(Version::Float, 2.0)).unwrap();
    /// assert_eq!(t.target(1, 2), 2.5); // 2 + (4 - 2) / 4
    /// assert_eq!(t.target(4, 2), 4.0);
    /// ```
    pub fn new(approx: &Profile, exact: &Profile) -> Result<Targets> {
        if approx.first_iteration() != 0 || exact.first_iteration() != 0 {
            return Err(InterleaveError::parameter(
                "profiles",
                format!(
                    "{} and {}",
                    approx.first_iteration(),
                    exact.first_iteration()
                ),
                "the approximate and exact profiles must start at iteration 0",
            ));
        }
        if approx.last_iteration() != exact.last_iteration() {
            return Err(InterleaveError::parameter(
                "profiles",
                format!("{} and {}", approx.last_iteration(), exact.last_iteration()),
                "the approximate and exact profiles must have the same number of iterations",
            ));
        }
        let cumulative = |p: &Profile| {
            p.rows()
                .iter()
                .scan(0.0, |acc, r| {
                    *acc += r.runtime_ms;
                    Some(*acc)
                })
                .collect::<Vec<f64>>()
        };
        Ok(Targets {
            approx_cumulative: cumulative(approx),
            exact_cumulative: cumulative(exact),
        })
    }

    /// `T_k(i)`, `k = 1..4` (clamped to that range).
    pub fn target(&self, k: usize, i: usize) -> f64 {
        let k = k.clamp(1, 4) as f64;
        let i = i.min(self.approx_cumulative.len() - 1);
        let (a, e) = (self.approx_cumulative[i], self.exact_cumulative[i]);
        a + k / 4.0 * (e - a)
    }

    /// The performance statistics file (§4.2.5: "the iteration, approximate
    /// kernel version and exact kernel version cumulative runtime, and the four targets").
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "iteration,approx_cumulative,exact_cumulative,target_1,target_2,target_3,target_4\n",
        );
        for i in 0..self.approx_cumulative.len() {
            let _ = writeln!(
                out,
                "{i},{},{},{},{},{},{}",
                self.approx_cumulative[i],
                self.exact_cumulative[i],
                self.target(1, i),
                self.target(2, i),
                self.target(3, i),
                self.target(4, i)
            );
        }
        out
    }
}
