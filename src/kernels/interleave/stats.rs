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
//!
//! The inputs are checked for what the steps assume ([`check_step1_profiles`],
//! [`check_measurement`]): the approximate profile runs one approximate
//! kernel, the exact one runs `float`, both from iteration 0 to the same `N`,
//! each measurement runs one of those two kernels, and no runtime sum
//! overflows. A file breaking one of these is refused with its name, where
//! it used to give a schedule built on the wrong kernel or on infinite
//! targets (found by review, 2026-11-25).

use super::error::{InterleaveError, Result};
use super::profile::{Profile, Row};
use super::sections::SectionGrid;
use super::version::Version;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Which of step 1's two profiles a profile is meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileRole {
    /// The approximate kernel's profile: `half` or `looperf` on every row.
    Approximate,
    /// The exact kernel's profile: `float` on every row.
    Exact,
}

impl ProfileRole {
    /// "approximate" or "exact", as errors say it.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::profile::{Profile, Row};
    /// use boundgate::kernels::interleave::stats::{check_step1_profile, ProfileRole};
    /// use boundgate::kernels::interleave::version::Version;
    /// use std::path::Path;
    /// assert_eq!((ProfileRole::Approximate.name(), ProfileRole::Exact.name()), ("approximate", "exact"));
    /// let float = Profile::new(vec![Row { kernel: Version::Float, iteration: 0, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.0, accuracy_loss: 0.0, ground_truth: None }]).unwrap();
    /// let err = check_step1_profile(&float, ProfileRole::Approximate, Path::new("a.csv")).unwrap_err();
    /// assert!(err.to_string().contains("the approximate profile runs float"), "{err}");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ProfileRole::Approximate => "approximate",
            ProfileRole::Exact => "exact",
        }
    }

    /// Whether `kernel` is a kernel a profile of this role may run.
    fn admits(self, kernel: Version) -> bool {
        match self {
            ProfileRole::Approximate => Version::APPROXIMATE.contains(&kernel),
            ProfileRole::Exact => kernel.is_exact(),
        }
    }

    fn expected(self) -> &'static str {
        match self {
            ProfileRole::Approximate => "half or looperf",
            ProfileRole::Exact => "float",
        }
    }
}

/// The first iteration (of `rows`) at which the running sum of the runtimes
/// is not finite, if any.
fn runtime_overflow(rows: &[Row]) -> Option<usize> {
    let mut sum = 0.0f64;
    rows.iter().find_map(|r| {
        sum += r.runtime_ms;
        (!sum.is_finite()).then_some(r.iteration)
    })
}

/// Checks one of step 1's profiles, read from `path`, for its role, and
/// returns the kernel it runs.
///
/// A step-1 profile starts at iteration 0 (the conversion row), runs one
/// kernel on every row (`half` or `looperf` for the approximate profile,
/// `float` for the exact one) and its cumulative runtime stays finite (the
/// targets of step 5 are cumulative runtimes).
///
/// # Errors
/// [`InterleaveError::File`] naming `path`, the field (`iteration`,
/// `kernel`, `runtime`) and the iteration where the rule breaks.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::profile::{Profile, Row};
/// use boundgate::kernels::interleave::stats::{ProfileRole, check_step1_profile};
/// use boundgate::kernels::interleave::version::Version::{self, Float, Half, Looperf};
/// use std::path::Path;
/// let p = |kernels: &[Version]| Profile::new(kernels.iter().enumerate().map(|(i, &kernel)| Row {
///     kernel, iteration: i, start_timestamp: 0, end_timestamp: 0, runtime_ms: 1.0,
///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
/// let path = Path::new("approx.csv");
/// assert_eq!(check_step1_profile(&p(&[Half, Half]), ProfileRole::Approximate, path).unwrap(), Half);
/// let mixed = check_step1_profile(&p(&[Half, Looperf]), ProfileRole::Approximate, path).unwrap_err();
/// assert!(mixed.to_string().starts_with("approx.csv: kernel: iteration 1 runs looperf"), "{mixed}");
/// assert!(check_step1_profile(&p(&[Half, Half]), ProfileRole::Exact, path).is_err());
/// ```
pub fn check_step1_profile(profile: &Profile, role: ProfileRole, path: &Path) -> Result<Version> {
    let rows = profile.rows();
    let first = profile.start();
    if first.iteration != 0 {
        return Err(InterleaveError::file(
            path,
            None,
            "iteration",
            format!(
                "the {} profile starts at iteration {}: a step-1 profile starts at iteration 0",
                role.name(),
                first.iteration
            ),
        ));
    }
    let kernel = first.kernel;
    if !role.admits(kernel) {
        return Err(InterleaveError::file(
            path,
            None,
            "kernel",
            format!(
                "the {} profile runs {kernel}: it must run {}",
                role.name(),
                role.expected()
            ),
        ));
    }
    if let Some(other) = rows.iter().find(|r| r.kernel != kernel) {
        return Err(InterleaveError::file(
            path,
            None,
            "kernel",
            format!(
                "iteration {} runs {} where iteration 0 runs {kernel}: the {} profile must run one kernel",
                other.iteration,
                other.kernel,
                role.name()
            ),
        ));
    }
    if let Some(i) = runtime_overflow(rows) {
        return Err(InterleaveError::file(
            path,
            None,
            "runtime",
            format!(
                "the cumulative runtime is not finite from iteration {i} on (the runtimes overflow when summed)"
            ),
        ));
    }
    Ok(kernel)
}

/// Checks step 1's approximate and exact profiles together (each as
/// [`check_step1_profile`], and both over the same iterations) and returns
/// the approximate kernel. The pairs are `(profile, the file it was read from)`.
///
/// # Errors
/// As [`check_step1_profile`]; [`InterleaveError::File`] naming the exact
/// profile when it ends at another iteration than the approximate one.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::profile::{Profile, Row};
/// use boundgate::kernels::interleave::stats::check_step1_profiles;
/// use boundgate::kernels::interleave::version::Version::{self, Float, Half};
/// use std::path::Path;
/// let p = |kernel: Version, n: usize| Profile::new((0..=n).map(|i| Row {
///     kernel, iteration: i, start_timestamp: 0, end_timestamp: 0, runtime_ms: 1.0,
///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
/// let (a, e) = (Path::new("approx.csv"), Path::new("exact.csv"));
/// assert_eq!(check_step1_profiles((&p(Half, 3), a), (&p(Float, 3), e)).unwrap(), Half);
/// let short = check_step1_profiles((&p(Half, 3), a), (&p(Float, 2), e)).unwrap_err();
/// assert!(short.to_string().starts_with("exact.csv: iteration"), "{short}");
/// ```
pub fn check_step1_profiles(
    approx: (&Profile, &Path),
    exact: (&Profile, &Path),
) -> Result<Version> {
    let version = check_step1_profile(approx.0, ProfileRole::Approximate, approx.1)?;
    check_step1_profile(exact.0, ProfileRole::Exact, exact.1)?;
    if approx.0.last_iteration() != exact.0.last_iteration() {
        return Err(InterleaveError::file(
            exact.1,
            None,
            "iteration",
            format!(
                "ends at iteration {}, the approximate profile {} at {}: both must cover the same iterations",
                exact.0.last_iteration(),
                approx.1.display(),
                approx.0.last_iteration()
            ),
        ));
    }
    Ok(version)
}

/// Checks a step-3 measurement read from `path` and returns the kernel its
/// rows after the starting one run (`None` when it has no such row).
///
/// A measurement runs one kernel after its starting row: `approx_version`
/// (phase 2) or `float` (phases 1 and 3); its runtimes sum to a finite number.
///
/// # Errors
/// [`InterleaveError::File`] naming `path` and the field (`kernel`, `runtime`).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::profile::{Profile, Row};
/// use boundgate::kernels::interleave::stats::check_measurement;
/// use boundgate::kernels::interleave::version::Version::{self, Float, Half, Looperf};
/// use std::path::Path;
/// let m = |kernels: &[Version]| Profile::new(kernels.iter().enumerate().map(|(i, &kernel)| Row {
///     kernel, iteration: 4 + i, start_timestamp: 0, end_timestamp: 0, runtime_ms: 1.0,
///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
/// let path = Path::new("phase1.csv");
/// assert_eq!(check_measurement(&m(&[Half, Float, Float]), Half, path).unwrap(), Some(Float));
/// assert_eq!(check_measurement(&m(&[Half]), Half, path).unwrap(), None);
/// assert!(check_measurement(&m(&[Half, Looperf]), Half, path).is_err());
/// assert!(check_measurement(&m(&[Half, Half, Float]), Half, path).is_err());
/// ```
pub fn check_measurement(
    measurement: &Profile,
    approx_version: Version,
    path: &Path,
) -> Result<Option<Version>> {
    let measured = measurement.measured();
    let Some(first) = measured.first() else {
        return Ok(None);
    };
    let kernel = first.kernel;
    if let Some(other) = measured.iter().find(|r| r.kernel != kernel) {
        return Err(InterleaveError::file(
            path,
            None,
            "kernel",
            format!(
                "iteration {} runs {kernel}, iteration {} runs {}: a measurement runs one kernel after its starting row",
                first.iteration, other.iteration, other.kernel
            ),
        ));
    }
    if kernel != approx_version && !kernel.is_exact() {
        return Err(InterleaveError::file(
            path,
            None,
            "kernel",
            format!(
                "the measurement runs {kernel}: it must run {approx_version} (the approximate profile's kernel) or float"
            ),
        ));
    }
    if let Some(i) = runtime_overflow(measured) {
        return Err(InterleaveError::file(
            path,
            None,
            "runtime",
            format!("the runtimes summed up to iteration {i} are not finite"),
        ));
    }
    Ok(Some(kernel))
}

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
    /// A baseline that [`check_step1_profile`] refuses as the approximate
    /// profile, a measurement that [`check_measurement`] refuses (named
    /// `<approximate profile>` and `<measurement k>`, `k` from 0: callers
    /// that read files check them first, with their names).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, sections::SectionGrid};
    /// use boundgate::kernels::interleave::stats::{KernelStat, Statistics};
    /// use boundgate::kernels::interleave::version::Version::{self, Float, Half, Looperf};
    /// let r = |kernel: Version, i: usize, loss: f64, ms: f64| Row { kernel, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: ms, accuracy_loss: loss, ground_truth: None };
    /// // half gains 0.25 per iteration (1 ms each); float, forked at 2, loses 0.25 (2 ms each)
    /// let base = Profile::new((0..=4).map(|i| r(Half, i, 0.25 * i as f64, 1.0)).collect()).unwrap();
    /// let fork = Profile::new(vec![r(Half, 2, 0.5, 1.0), r(Float, 3, 0.25, 2.0), r(Float, 4, 0.0, 2.0)]).unwrap();
    /// let grid = SectionGrid::new(1, 4, 1.0).unwrap(); // one cell
    /// let s = Statistics::new(&grid, &base, &[fork]).unwrap();
    /// assert_eq!(s.cells[0].baseline, Some(KernelStat { rate: 0.25, runtime_ms: 1.0, measurements: 1, iterations: 4 }));
    /// assert_eq!(s.cells[0].exact, Some(KernelStat { rate: -0.25, runtime_ms: 2.0, measurements: 1, iterations: 2 }));
    /// assert_eq!((s.cells[0].approx, s.unused, s.approx_version), (None, 0, Half));
    /// // a measurement running looperf beside a half baseline is refused, named by its position
    /// let wrong = Profile::new(vec![r(Half, 2, 0.5, 1.0), r(Looperf, 3, 0.5, 1.0)]).unwrap();
    /// let err = Statistics::new(&grid, &base, &[wrong]).unwrap_err();
    /// assert!(err.to_string().starts_with("<measurement 0>: kernel"), "{err}");
    /// ```
    pub fn new(
        grid: &SectionGrid,
        baseline: &Profile,
        measurements: &[Profile],
    ) -> Result<Statistics> {
        let approx_version = check_step1_profile(
            baseline,
            ProfileRole::Approximate,
            Path::new("<approximate profile>"),
        )?;
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
            let label = format!("<measurement {k}>");
            let Some(kernel) = check_measurement(m, approx_version, Path::new(&label))? else {
                continue;
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
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, profile::{Profile, Row}, sections::SectionGrid};
    /// use boundgate::kernels::interleave::{stats::Statistics, version::Version::{self, Float, Half}};
    /// let r = |kernel: Version, i: usize, loss: f64, ms: f64| Row { kernel, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: ms, accuracy_loss: loss, ground_truth: None };
    /// // half gains 0.25 per iteration (1 ms each); float, forked at 2, loses 0.25 (2 ms each)
    /// let base = Profile::new((0..=4).map(|i| r(Half, i, 0.25 * i as f64, 1.0)).collect()).unwrap();
    /// let fork = Profile::new(vec![r(Half, 2, 0.5, 1.0), r(Float, 3, 0.25, 2.0), r(Float, 4, 0.0, 2.0)]).unwrap();
    /// // 2 x 2 cells: the baseline starts iterations in cells 0 and 3, the fork one in cell 3
    /// let grid = SectionGrid::new(2, 4, 1.0).unwrap();
    /// let s = Statistics::new(&grid, &base, &[fork]).unwrap();
    /// assert_eq!(s.lookup(false, 3).unwrap().1, 3); // its own
    /// assert_eq!(s.lookup(false, 1).unwrap().1, 0); // cells 0 and 3 are as near: the lower id
    /// let (exact, from) = s.lookup(true, 0).unwrap(); // borrowed from the only cell with data
    /// assert_eq!((exact.rate, exact.runtime_ms, from), (-0.25, 2.0, 3));
    /// let none = Statistics::new(&grid, &base, &[]).unwrap();
    /// assert!(matches!(none.lookup(true, 0), Err(InterleaveError::NoStatistics { kernel }) if kernel == "float"));
    /// // there is no cell 4 in a 2 x 2 grid
    /// assert!(matches!(s.lookup(false, 4), Err(InterleaveError::InvalidParameter { .. })));
    /// ```
    pub fn lookup(&self, exact: bool, cell: usize) -> Result<(KernelStat, usize)> {
        let get = |c: usize| {
            if exact {
                self.cells[c].exact
            } else {
                self.approx_combined[c]
            }
        };
        // `grid` and `cells` are public: a cell is looked up only where all
        // three tables have it.
        let len = self
            .cells
            .len()
            .min(self.approx_combined.len())
            .min(self.grid.len());
        if cell >= len {
            return Err(InterleaveError::parameter(
                "cell",
                cell,
                format!("must be below the {len} cells of the statistics"),
            ));
        }
        if let Some(s) = get(cell) {
            return Ok((s, cell));
        }
        let centre = self.grid.section(cell);
        let mut best: Option<(f64, usize, KernelStat)> = None;
        for c in 0..len {
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
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, sections::SectionGrid};
    /// use boundgate::kernels::interleave::{stats::Statistics, version::Version::{self, Float, Half}};
    /// let r = |kernel: Version, i: usize, loss: f64, ms: f64| Row { kernel, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: ms, accuracy_loss: loss, ground_truth: None };
    /// // half gains 0.25 per iteration (1 ms each); float, forked at 2, loses 0.25 (2 ms each)
    /// let base = Profile::new((0..=4).map(|i| r(Half, i, 0.25 * i as f64, 1.0)).collect()).unwrap();
    /// let fork = Profile::new(vec![r(Half, 2, 0.5, 1.0), r(Float, 3, 0.25, 2.0), r(Float, 4, 0.0, 2.0)]).unwrap();
    /// let s = Statistics::new(&SectionGrid::new(1, 4, 1.0).unwrap(), &base, &[fork]).unwrap();
    /// // no phase-2 measurement: empty approx fields and a count of 0
    /// assert_eq!(s.to_csv(), "id,baseline_rate,baseline_runtime,approx_rate,approx_runtime,approx_measurements,\
    ///     exact_rate,exact_runtime,exact_measurements\n0,0.25,1,,,0,-0.25,2,1\n");
    /// ```
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
    /// Profiles that [`check_step1_profiles`] refuses (named `<approximate
    /// profile>` and `<exact profile>`): not from iteration 0, ending at
    /// different iterations, running other or several kernels, or whose
    /// cumulative runtime is not finite.
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
        check_step1_profiles(
            (approx, Path::new("<approximate profile>")),
            (exact, Path::new("<exact profile>")),
        )?;
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

    /// `T_k(i)`, `k = 1..4` (clamped to that range; `i` clamped to `N`).
    /// On hand-built targets `N` is the last index of the shorter of the two
    /// cumulative runtimes, and targets with an empty one are all 0 ms.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, stats::Targets, version::Version};
    /// // C_apx = [0, 1, 2], C_ex = [0, 2, 4] (ms)
    /// let p = |v: Version, ms: f64| Profile::new((0..=2).map(|i| Row { kernel: v, iteration: i,
    ///     start_timestamp: 0, end_timestamp: 0, runtime_ms: if i == 0 { 0.0 } else { ms },
    ///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
    /// let t = Targets::new(&p(Version::Half, 1.0), &p(Version::Float, 2.0)).unwrap();
    /// assert_eq!(t.target(1, 1), 1.25); // 1 + (2 - 1) / 4
    /// assert_eq!(t.target(3, 2), 3.5); // 2 + 3 (4 - 2) / 4
    /// // k and i are clamped: k = 0 is T_1, k = 9 is T_4 (the exact runtime), i past N is N
    /// assert_eq!((t.target(0, 1), t.target(9, 1), t.target(2, 99)), (1.25, 2.0, 3.0));
    /// ```
    pub fn target(&self, k: usize, i: usize) -> f64 {
        let k = k.clamp(1, 4) as f64;
        // The fields are public: clamp to the shorter one, and an empty one
        // has no runtime yet (0 ms) instead of an index below 0.
        let len = self
            .approx_cumulative
            .len()
            .min(self.exact_cumulative.len());
        let Some(last) = len.checked_sub(1) else {
            return 0.0;
        };
        let i = i.min(last);
        let (a, e) = (self.approx_cumulative[i], self.exact_cumulative[i]);
        a + k / 4.0 * (e - a)
    }

    /// The performance statistics file (§4.2.5: "the iteration, approximate
    /// kernel version and exact kernel version cumulative runtime, and the four targets").
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, stats::Targets, version::Version};
    /// // C_apx = [0, 1, 2], C_ex = [0, 2, 4] (ms)
    /// let p = |v: Version, ms: f64| Profile::new((0..=2).map(|i| Row { kernel: v, iteration: i,
    ///     start_timestamp: 0, end_timestamp: 0, runtime_ms: if i == 0 { 0.0 } else { ms },
    ///     accuracy_loss: 0.0, ground_truth: None }).collect()).unwrap();
    /// let t = Targets::new(&p(Version::Half, 1.0), &p(Version::Float, 2.0)).unwrap();
    /// assert_eq!(t.to_csv(), "iteration,approx_cumulative,exact_cumulative,target_1,target_2,target_3,target_4\n\
    ///     0,0,0,0,0,0,0\n1,1,2,1.25,1.5,1.75,2\n2,2,4,2.5,3,3.5,4\n");
    /// ```
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
