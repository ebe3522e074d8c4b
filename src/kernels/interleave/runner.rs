//! The lockstep runner: one `float` reference run, the binary64 ground truth,
//! and any number of interleaved runs ("branches"), advanced together one
//! iteration at a time, each measured against the reference after every
//! iteration (Freytag 2023, Fig. 4.3 for one run; Figs. 4.6-4.8 for the forks
//! of step 3).
//!
//! A branch is a list of switch points `(t, version)`: iterations `t + 1 ...`
//! run `version` (the thesis's schedule semantics, Fig. 4.9: `exec_config[i]`
//! applies from loop index `i`). Branches that share a prefix share its
//! computation: the runner builds the tree of distinct prefixes and forks a
//! state (a copy, converted if the format changes) where a prefix ends, as
//! the thesis's instrumentation duplicates its data structures. A fork gives
//! the same bits as a fresh run with the same switch points (tested).
//!
//! Each run's state is checked every iteration: a NaN or an infinity (e.g.
//! binary16 overflow past 65504) ends that run with an explicit
//! [`Ending`], as does an overflowing conversion or an undefined loss; the
//! other runs go on.

use super::bound::{RunningBound, Start};
use super::clock::{Clock, Stopwatch};
use super::error::{InterleaveError, Result};
use super::hotspot::{HotSpot3D, State};
use super::loss::{LossSums, add_squares};
use super::profile::{GroundTruth, Profile, Row};
use super::stencil::{Step, advance, scan, scan64, sweep64};
use super::version::Version;
use boundgate_verify::bounds::directed::{div_up, mul_up, sqrt_down, sqrt_up};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::ExactSum;
use serde::Serialize;
use std::collections::BTreeMap;

/// A run's switch points: `(t, v)` = iterations after the first `t` run `v`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct BranchSpec {
    switches: Vec<(usize, Version)>,
}

impl BranchSpec {
    /// A run of `version` from the start.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{runner::BranchSpec, version::Version};
    /// let s = BranchSpec::single(Version::Looperf);
    /// assert_eq!(s.switches(), &[(0, Version::Looperf)]);
    /// assert_eq!(s, BranchSpec::new(vec![(0, Version::Looperf)]).unwrap());
    /// assert!((0..100).all(|i| s.version_at(i) == Version::Looperf));
    /// ```
    pub fn single(version: Version) -> BranchSpec {
        BranchSpec {
            switches: vec![(0, version)],
        }
    }

    /// A spec from switch points: the first at 0, strictly increasing, each
    /// changing the version, none a `double`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{runner::BranchSpec, version::Version::*};
    /// assert!(BranchSpec::new(vec![(0, Half), (10, Float)]).is_ok());
    /// assert!(BranchSpec::new(vec![(1, Half)]).is_err());
    /// assert!(BranchSpec::new(vec![(0, Half), (5, Half)]).is_err());
    /// ```
    pub fn new(switches: Vec<(usize, Version)>) -> Result<BranchSpec> {
        let bad =
            |reason: &str| InterleaveError::parameter("switches", format!("{switches:?}"), reason);
        match switches.first() {
            Some((0, _)) => {}
            _ => return Err(bad("the first switch must be at iteration 0")),
        }
        for w in switches.windows(2) {
            if w[1].0 <= w[0].0 {
                return Err(bad("switch points must increase strictly"));
            }
            if w[1].1 == w[0].1 {
                return Err(bad("a switch must change the kernel version"));
            }
        }
        if switches.iter().any(|(_, v)| *v == Version::Double) {
            return Err(bad("`double` is the ground truth, not a kernel to run"));
        }
        Ok(BranchSpec { switches })
    }

    /// The switch points.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{runner::BranchSpec, version::Version::*};
    /// let s = BranchSpec::single(Half).fork(10, Float).unwrap().fork(15, Half).unwrap();
    /// assert_eq!(s.switches(), &[(0, Half), (10, Float), (15, Half)]);
    /// ```
    pub fn switches(&self) -> &[(usize, Version)] {
        &self.switches
    }

    /// This run continued with `version` after iteration `at` (which must be
    /// after the last switch).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, runner::BranchSpec, version::Version::*};
    /// let half = BranchSpec::single(Half);
    /// let fork = half.fork(10, Float).unwrap();
    /// assert_eq!(fork.switches(), &[(0, Half), (10, Float)]);
    /// assert_eq!(half.switches(), &[(0, Half)]); // the parent is left as it was
    /// // not after the last switch, or not a change of version: refused
    /// assert!(matches!(fork.fork(10, Half), Err(InterleaveError::InvalidParameter { .. })));
    /// assert!(matches!(fork.fork(12, Float), Err(InterleaveError::InvalidParameter { .. })));
    /// ```
    pub fn fork(&self, at: usize, version: Version) -> Result<BranchSpec> {
        let mut s = self.switches.clone();
        s.push((at, version));
        BranchSpec::new(s)
    }

    /// The last switch point (where this run leaves its parent).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{runner::BranchSpec, version::Version::*};
    /// assert_eq!(BranchSpec::single(Half).fork_point(), 0);
    /// let s = BranchSpec::new(vec![(0, Half), (10, Float), (15, Half)]).unwrap();
    /// assert_eq!(s.fork_point(), 15); // the last switch, not the first fork
    /// ```
    pub fn fork_point(&self) -> usize {
        self.switches.last().map_or(0, |s| s.0)
    }

    /// The version running iteration `i` (1-based).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{runner::BranchSpec, version::Version::*};
    /// // (10, Float): iterations 11 and on run float
    /// let s = BranchSpec::new(vec![(0, Half), (10, Float)]).unwrap();
    /// assert_eq!([s.version_at(0), s.version_at(1), s.version_at(10)], [Half; 3]);
    /// assert_eq!(s.version_at(11), Float);
    /// ```
    pub fn version_at(&self, i: usize) -> Version {
        self.switches
            .iter()
            .rev()
            .find(|(t, _)| *t < i.max(1))
            .map_or(self.switches[0].1, |s| s.1)
    }
}

/// What a run needs besides the problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunOptions {
    /// Total iterations `N`.
    pub iterations: usize,
    /// Where runtimes come from.
    pub clock: Clock,
    /// Whether to run the binary64 ground truth (the extra CSV columns).
    pub ground_truth: bool,
    /// Limits to check every row against, exactly (for the executor).
    pub limits: Vec<f64>,
}

/// The most rows (iterations + 1, times branches + 1, the reference
/// included) one lockstep pass keeps: about 2.3 GB.
pub const MAX_ROWS: usize = 1 << 22;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "ending", rename_all = "snake_case")]
pub enum Ending {
    /// All iterations ran.
    Completed,
    /// The state held a NaN or an infinity after `iteration` (e.g. binary16 overflow).
    NonFinite {
        /// Iterations completed.
        iteration: usize,
        /// First bad cell.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// Converting the state overflowed the target format.
    ConversionOverflow {
        /// Iterations completed before the conversion.
        iteration: usize,
        /// The cell.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// The run switched to `half`, which stores the powers in binary16, and
    /// a power overflows binary16.
    PowerOverflow {
        /// Iterations completed before the switch.
        iteration: usize,
        /// The power's cell.
        index: usize,
        /// The power as given.
        value: f64,
    },
    /// The loss was undefined (zero reference, nonzero difference).
    UndefinedLoss {
        /// Iterations completed.
        iteration: usize,
    },
    /// The run it forks from ended before the fork point.
    ParentEnded {
        /// The fork point.
        iteration: usize,
    },
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Completed => write!(f, "completed"),
            Ending::NonFinite {
                iteration,
                index,
                value,
            } => write!(
                f,
                "after iteration {iteration}, cell {index} of the state is {value} (the format overflowed)"
            ),
            Ending::ConversionOverflow {
                iteration,
                index,
                value,
            } => write!(
                f,
                "after iteration {iteration}, converting cell {index} = {value:e} to binary16 overflows it"
            ),
            Ending::PowerOverflow {
                iteration,
                index,
                value,
            } => write!(
                f,
                "after iteration {iteration}, the switch to half stores power {index} = {value:e} in binary16, which it overflows"
            ),
            Ending::UndefinedLoss { iteration } => write!(
                f,
                "at iteration {iteration} the accuracy loss is undefined (zero reference, nonzero difference)"
            ),
            Ending::ParentEnded { iteration } => {
                write!(
                    f,
                    "the run it forks from ended before iteration {iteration}"
                )
            }
        }
    }
}

/// A conversion between binary32 and binary16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Conversion {
    /// Iterations completed before it.
    pub iteration: usize,
    /// The version switched to.
    pub to: Version,
}

/// One branch's results.
#[derive(Clone, Debug, Serialize)]
pub struct BranchRun {
    /// Its switch points.
    pub spec: BranchSpec,
    /// Its rows from iteration 0 along its whole path (shared prefix included).
    pub path: Vec<Row>,
    /// For each row of `path` and each of [`RunOptions::limits`]: whether
    /// the row's loss exceeds that limit (decided exactly).
    pub over_limit: Vec<Vec<bool>>,
    /// How it ended.
    pub ending: Ending,
    /// The conversions along its path (iteration 0: the initial one, if any).
    pub conversions: Vec<Conversion>,
    /// Iterations computed and skipped (loop perforation) along its path.
    pub computed: usize,
    /// Skipped iterations.
    pub skipped: usize,
}

impl BranchRun {
    /// Its measurement: the rows from its fork point on (the first row is the
    /// starting point, the parent's row there). `None` if it has no row there.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D, version::Version};
    /// use boundgate::kernels::interleave::runner::{run_lockstep, BranchSpec, RunOptions};
    /// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
    /// let options = RunOptions { iterations: 6, clock: Clock::DEFAULT, ground_truth: false, limits: vec![] };
    /// let fork = BranchSpec::single(Version::Half).fork(3, Version::Float).unwrap();
    /// let lock = run_lockstep(&app, &[fork], &options).unwrap();
    /// let run = &lock.branches[0];
    /// let p = run.profile().unwrap();
    /// assert_eq!((p.first_iteration(), p.last_iteration()), (3, 6));
    /// assert_eq!(p.start(), &run.path[3]); // the starting row is the half run's row 3
    /// assert_eq!(p.start().kernel, Version::Half);
    /// assert!(p.measured().iter().all(|r| r.kernel == Version::Float));
    /// // a half run whose powers overflow binary16 ends before its first row: no profile
    /// let grid = Grid3::new(2, 1, 1).unwrap();
    /// let hot = HotSpot3D::new(grid, vec![300.0, 300.0], vec![1.0, 1e5]).unwrap();
    /// let lock = run_lockstep(&hot, &[BranchSpec::single(Version::Half)], &options).unwrap();
    /// assert!(lock.branches[0].path.is_empty() && lock.branches[0].profile().is_none());
    /// ```
    pub fn profile(&self) -> Option<Profile> {
        let t = self.spec.fork_point();
        let first = self.path.iter().position(|r| r.iteration == t)?;
        Profile::new(self.path[first..].to_vec()).ok()
    }

    /// Its whole path as a profile.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D, version::Version};
    /// use boundgate::kernels::interleave::runner::{run_lockstep, BranchSpec, RunOptions};
    /// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
    /// let options = RunOptions { iterations: 6, clock: Clock::DEFAULT, ground_truth: false, limits: vec![] };
    /// let fork = BranchSpec::single(Version::Half).fork(3, Version::Float).unwrap();
    /// let lock = run_lockstep(&app, &[fork], &options).unwrap();
    /// let p = lock.branches[0].path_profile().unwrap();
    /// assert_eq!((p.first_iteration(), p.last_iteration()), (0, 6)); // the shared prefix included
    /// let kernels: Vec<Version> = p.rows().iter().map(|r| r.kernel).collect();
    /// assert_eq!(kernels, [[Version::Half; 4].as_slice(), &[Version::Float; 3]].concat());
    /// ```
    pub fn path_profile(&self) -> Option<Profile> {
        Profile::new(self.path.clone()).ok()
    }

    /// Total runtime of the path (ms), conversions included.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D, version::Version};
    /// use boundgate::kernels::interleave::runner::{run_lockstep, BranchSpec, RunOptions};
    /// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
    /// let options = RunOptions { iterations: 6, clock: Clock::DEFAULT, ground_truth: false, limits: vec![] };
    /// use boundgate::kernels::interleave::clock::CostModel;
    /// let lock = run_lockstep(&app, &[BranchSpec::single(Version::Half)], &options).unwrap();
    /// // modelled: one conversion to binary16, then 6 half iterations, on 32 cells
    /// let m = CostModel::A100_THESIS;
    /// let want = 32.0 * (m.convert_ns_per_cell + 6.0 * m.half_ns_per_cell) / 1e6;
    /// let got = lock.branches[0].runtime_ms();
    /// assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    /// ```
    pub fn runtime_ms(&self) -> f64 {
        self.path.iter().map(|r| r.runtime_ms).sum()
    }
}

/// Everything one lockstep pass produced.
#[derive(Clone, Debug, Serialize)]
pub struct Lockstep {
    /// The `float` reference run as a profile of its own (loss 0 against
    /// itself): the thesis's "exact kernel profile".
    pub reference: Profile,
    /// The branches, in the order of the specs.
    pub branches: Vec<BranchRun>,
}

struct Node {
    parent: Option<usize>,
    spawn: usize,
    version: Version,
    needed_until: usize,
    state: Option<State>,
    rows: Vec<Row>,
    over: Vec<Vec<bool>>,
    clock_ns: u64,
    pending_ns: f64,
    ending: Option<Ending>,
    conversion: Option<Conversion>,
    /// For each row: the step that produced it (`None` for the starting row).
    steps: Vec<Option<Step>>,
}

/// The reference's and the ground truth's measurements at one iteration.
struct Shared<'a> {
    reference: &'a [f32],
    reference_squares: &'a ExactSum,
    truth: Option<Truth<'a>>,
    limits: &'a [f64],
}

struct Truth<'a> {
    values: &'a [f64],
    squares: &'a ExactSum,
    reference_error: f64,
    radius: f64,
}

/// Runs the reference, the ground truth and every branch for `options.iterations` iterations.
///
/// # Errors
/// Invalid specs (a switch at or after `N`), iterations outside
/// `1..=`[`super::schedule::MAX_ITERATIONS`], a limit in
/// [`RunOptions::limits`] that is not positive and finite, a run keeping more
/// than [`MAX_ROWS`] rows, a problem whose binary32 data overflow, a
/// non-finite reference state, a [`Clock::Model`] whose per-cell costs are
/// not finite, negative, or so large that the run's modelled time would not
/// fit 2^64 ns.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D, version::Version};
/// use boundgate::kernels::interleave::runner::{run_lockstep, BranchSpec, RunOptions};
/// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
/// let options = RunOptions { iterations: 6, clock: Clock::DEFAULT, ground_truth: false, limits: vec![] };
/// use boundgate::kernels::interleave::{error::InterleaveError, runner::Ending};
/// let half = BranchSpec::single(Version::Half);
/// let fork = half.fork(3, Version::Float).unwrap();
/// let both = run_lockstep(&app, &[half.clone(), fork.clone()], &options).unwrap();
/// assert!(both.reference.rows().iter().all(|r| r.kernel == Version::Float && r.accuracy_loss == 0.0));
/// assert_eq!(both.branches[1].ending, Ending::Completed);
/// // the fork shares the half run's rows up to 3, and gives the bits of a run of its own
/// assert_eq!(both.branches[1].path[..4], both.branches[0].path[..4]);
/// let alone = run_lockstep(&app, &[fork], &options).unwrap();
/// assert_eq!(both.branches[1].path, alone.branches[0].path);
/// // a switch at N = 6 leaves nothing to run
/// let late = half.fork(6, Version::Float).unwrap();
/// assert!(matches!(run_lockstep(&app, &[late], &options), Err(InterleaveError::InvalidParameter { .. })));
/// ```
pub fn run_lockstep(
    app: &HotSpot3D,
    specs: &[BranchSpec],
    options: &RunOptions,
) -> Result<Lockstep> {
    let n_it = options.iterations;
    if n_it == 0 || n_it > super::schedule::MAX_ITERATIONS {
        return Err(InterleaveError::parameter(
            "iterations",
            n_it,
            format!("must be in 1..={}", super::schedule::MAX_ITERATIONS),
        ));
    }
    // Every branch keeps its whole path (about 550 bytes a row, measured):
    // a run that would need gigabytes is refused, not killed for memory
    // (review, 2026-11-25: 2^24 iterations of one branch on one cell needed
    // about 9 GB). The thesis-sized pipelines keep well below: 1000
    // iterations x a few hundred branches.
    let rows = (n_it + 1).saturating_mul(specs.len() + 1);
    if rows > MAX_ROWS {
        return Err(InterleaveError::parameter(
            "iterations",
            n_it,
            format!(
                "with {} branches this keeps {rows} rows (at most {MAX_ROWS}, about 2.3 GB); run fewer iterations or branches",
                specs.len()
            ),
        ));
    }
    for &limit in &options.limits {
        super::error::require_threshold(limit)?;
    }
    if let Clock::Model(m) = options.clock {
        // The fields are public: a NaN cost became 0 ns when rounded to the
        // virtual clock (with a NaN runtime beside it), and a huge one
        // overflowed the u64 nanoseconds (a panic in debug builds). A path
        // runs at most N iterations and N conversions, each at most the
        // largest cost times the cells.
        let costs = [
            m.float_ns_per_cell,
            m.half_ns_per_cell,
            m.skipped_ns_per_cell,
            m.convert_ns_per_cell,
        ];
        let largest = costs.iter().fold(0.0f64, |a, &c| a.max(c));
        let worst = largest * app.grid().cells() as f64 * 2.0 * (n_it + 1) as f64;
        if costs.iter().any(|c| !(c.is_finite() && *c >= 0.0)) || worst >= u64::MAX as f64 {
            return Err(InterleaveError::parameter(
                "clock",
                format!("{} {costs:?}", m.name),
                "per-cell costs must be finite, not negative, and small enough that the run's modelled time fits 2^64 ns",
            ));
        }
    }
    for s in specs {
        if s.fork_point() >= n_it {
            return Err(InterleaveError::parameter(
                "switches",
                format!("{:?}", s.switches),
                format!("every switch point must be below the {n_it} iterations"),
            ));
        }
    }
    let cells = app.grid().cells();
    // The tree of distinct prefixes.
    let mut index: BTreeMap<Vec<(usize, Version)>, usize> = BTreeMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut terminal = Vec::with_capacity(specs.len());
    for s in specs {
        let mut parent = None;
        for j in 0..s.switches.len() {
            let prefix = s.switches[..=j].to_vec();
            let id = *index.entry(prefix).or_insert_with(|| {
                nodes.push(Node {
                    parent,
                    spawn: s.switches[j].0,
                    version: s.switches[j].1,
                    needed_until: 0,
                    state: None,
                    rows: Vec::new(),
                    over: Vec::new(),
                    clock_ns: 0,
                    pending_ns: 0.0,
                    ending: None,
                    conversion: None,
                    steps: Vec::new(),
                });
                nodes.len() - 1
            });
            parent = Some(id);
        }
        let id = parent.expect("a spec has a switch");
        nodes[id].needed_until = n_it;
        terminal.push(id);
    }
    for id in 0..nodes.len() {
        if let Some(p) = nodes[id].parent {
            nodes[p].needed_until = nodes[p].needed_until.max(nodes[id].spawn);
        }
    }

    let clock = options.clock;
    let grid = app.grid();
    let mut reference = app.initial32()?;
    let mut ref_scratch = vec![0.0f32; cells];
    let mut truth = if options.ground_truth {
        Some(app.initial64()?)
    } else {
        None
    };
    let mut truth_scratch = vec![0.0f64; if options.ground_truth { cells } else { 0 }];
    let mut bound = if options.ground_truth {
        Some(RunningBound::new(
            app,
            Version::Double,
            Start::Binary32Data,
        )?)
    } else {
        None
    };
    let mut scratch = Vec::new();
    let mut ref_rows = Vec::with_capacity(n_it + 1);
    let mut ref_clock = 0u64;
    let mut ref_ns = 0.0f64;

    for i in 0..=n_it {
        // Measurements shared by every run at iteration i.
        let mut ref_sq = ExactSum::new();
        add_squares(&mut ref_sq, &reference);
        let truth_parts = match &truth {
            Some(g) => {
                let mut g_sq = ExactSum::new();
                add_squares(&mut g_sq, g);
                let ref_err = LossSums::against(&reference, g, &g_sq)?.measure()?.value;
                let e = bound.as_ref().map_or(0.0, |b| b.value);
                let g_norm = sqrt_down(g_sq.round(Format::FP64, RoundingMode::Down));
                let radius = if g_norm > 0.0 {
                    div_up(mul_up(sqrt_up(cells as f64), e), g_norm)
                } else {
                    f64::INFINITY
                };
                Some((g_sq, ref_err, radius))
            }
            None => None,
        };
        let shared = Shared {
            reference: &reference,
            reference_squares: &ref_sq,
            truth: match (&truth, &truth_parts) {
                (Some(g), Some((g_sq, ref_err, radius))) => Some(Truth {
                    values: g,
                    squares: g_sq,
                    reference_error: *ref_err,
                    radius: *radius,
                }),
                _ => None,
            },
            limits: &options.limits,
        };
        if i > 0 {
            // Record iteration i of every run that stepped.
            for node in nodes.iter_mut() {
                if node.state.is_some()
                    && node.ending.is_none()
                    && node.spawn < i
                    && i <= node.needed_until
                {
                    record(node, i, &shared)?;
                }
            }
        }
        // The reference as a profile of its own.
        let ref_runtime = if i == 0 { 0.0 } else { ref_ns };
        let (start, end) = (ref_clock, ref_clock + ref_runtime.round() as u64);
        ref_clock = end;
        ref_rows.push(Row {
            kernel: Version::Float,
            iteration: i,
            start_timestamp: start,
            end_timestamp: end,
            runtime_ms: ref_runtime / 1e6,
            accuracy_loss: 0.0,
            ground_truth: shared.truth.as_ref().map(|t| GroundTruth {
                loss_lower: 0.0,
                loss_upper: 0.0,
                error_vs_fp64: t.reference_error,
                reference_error_vs_fp64: t.reference_error,
                fp64_radius: t.radius,
            }),
        });
        // Forks at i (after i iterations), roots at 0.
        for id in 0..nodes.len() {
            if nodes[id].spawn == i && nodes[id].state.is_none() && nodes[id].ending.is_none() {
                spawn(&mut nodes, id, app, &shared, clock)?;
            }
        }
        // States no longer needed.
        for node in nodes.iter_mut() {
            if node.needed_until <= i {
                node.state = None;
            }
        }
        if i == n_it {
            break;
        }
        // Step the reference, the ground truth, and every active run.
        let watch = Stopwatch::start();
        super::stencil::sweep32(
            grid,
            app.coefficients32(),
            app.power32(),
            &reference,
            &mut ref_scratch,
        );
        std::mem::swap(&mut reference, &mut ref_scratch);
        let modelled = match clock {
            Clock::Model(m) => m.iteration_ns(Version::Float, cells, true),
            Clock::Wall => 0.0,
        };
        ref_ns = watch.finish(&clock, 0, modelled).2;
        if let (Some(g), Some(b)) = (truth.as_mut(), bound.as_mut()) {
            let (max, _) = scan64(g);
            sweep64(grid, app.coefficients(), app.power(), g, &mut truth_scratch);
            std::mem::swap(g, &mut truth_scratch);
            b.step(max, true)?;
        }
        if let (_, Some((index, value))) = scan(&reference) {
            return Err(InterleaveError::NonFinite {
                what: format!("the float reference state after iteration {}", i + 1),
                index,
                value,
            });
        }
        for node in nodes.iter_mut() {
            if node.ending.is_some() || node.needed_until <= i {
                continue;
            }
            let Some(state) = node.state.as_mut() else {
                continue;
            };
            let watch = Stopwatch::start();
            let step = advance(app, node.version, state, &mut scratch);
            let modelled = match clock {
                Clock::Model(m) => m.iteration_ns(node.version, cells, step == Step::Computed),
                Clock::Wall => 0.0,
            } + node.pending_ns;
            let (start, end, ns) = watch.finish(&clock, node.clock_ns, modelled);
            let ns = if let Clock::Wall = clock {
                ns + node.pending_ns
            } else {
                ns
            };
            node.pending_ns = 0.0;
            node.clock_ns = end;
            node.steps.push(Some(step));
            // Timestamps and runtime of the row recorded at the top of the next turn.
            node.rows.push(Row {
                kernel: node.version,
                iteration: i + 1,
                start_timestamp: start,
                end_timestamp: end,
                runtime_ms: ns / 1e6,
                accuracy_loss: 0.0,
                ground_truth: None,
            });
            if let (_, Some((index, value))) = scan(&node.state.as_ref().expect("stepped").values) {
                node.rows.pop();
                node.steps.pop();
                node.ending = Some(Ending::NonFinite {
                    iteration: i + 1,
                    index,
                    value,
                });
                node.state = None;
            }
        }
    }

    let reference = Profile::new(ref_rows)?;
    let branches = specs
        .iter()
        .zip(terminal)
        .map(|(spec, id)| assemble(&nodes, id, spec.clone()))
        .collect();
    Ok(Lockstep {
        reference,
        branches,
    })
}

/// Fills in the loss and ground-truth columns of node's row `i` (pushed when it stepped).
fn record(node: &mut Node, i: usize, shared: &Shared<'_>) -> Result<()> {
    let state = node.state.as_ref().expect("an active run has a state");
    let sums = LossSums::against(&state.values, shared.reference, shared.reference_squares)?;
    let measure = match sums.measure() {
        Ok(m) => m,
        Err(InterleaveError::UndefinedLoss) => {
            node.rows.pop();
            node.steps.pop();
            node.ending = Some(Ending::UndefinedLoss { iteration: i });
            node.state = None;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let over = shared
        .limits
        .iter()
        .map(|&limit| sums.exceeds(limit))
        .collect::<Result<Vec<bool>>>()?;
    let ground_truth = match &shared.truth {
        Some(t) => Some(GroundTruth {
            loss_lower: measure.lower,
            loss_upper: measure.upper,
            error_vs_fp64: LossSums::against(&state.values, t.values, t.squares)?
                .measure()?
                .value,
            reference_error_vs_fp64: t.reference_error,
            fp64_radius: t.radius,
        }),
        None => None,
    };
    let row = node.rows.last_mut().expect("pushed when stepped");
    debug_assert_eq!(row.iteration, i);
    row.accuracy_loss = measure.value;
    row.ground_truth = ground_truth;
    node.over.push(over);
    Ok(())
}

/// The ending of a run that switches to `version` after `iteration`
/// iterations, if that version is `half` and a power overflows binary16.
fn half_power_overflow(app: &HotSpot3D, version: Version, iteration: usize) -> Option<Ending> {
    if version != Version::Half {
        return None;
    }
    let (index, value) = app.half_power_overflow()?;
    Some(Ending::PowerOverflow {
        iteration,
        index,
        value,
    })
}

/// Creates node `id`'s state at its spawn point (root: the initial conversion).
fn spawn(
    nodes: &mut [Node],
    id: usize,
    app: &HotSpot3D,
    shared: &Shared<'_>,
    clock: Clock,
) -> Result<()> {
    let i = nodes[id].spawn;
    let cells = app.grid().cells();
    match nodes[id].parent {
        None => {
            let watch = Stopwatch::start();
            let version = nodes[id].version;
            if let Some(ending) = half_power_overflow(app, version, 0) {
                nodes[id].ending = Some(ending);
                return Ok(());
            }
            let state = match app.initial_state(version) {
                Ok(s) => s,
                Err(InterleaveError::ConversionOverflow { index, value, .. }) => {
                    nodes[id].ending = Some(Ending::ConversionOverflow {
                        iteration: 0,
                        index,
                        value,
                    });
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            let converted = state.storage != Version::Float;
            let modelled = match (clock, converted) {
                (Clock::Model(m), true) => m.conversion_ns(cells),
                _ => 0.0,
            };
            let (start, end, ns) = watch.finish(&clock, 0, modelled);
            let node = &mut nodes[id];
            if converted {
                node.conversion = Some(Conversion {
                    iteration: 0,
                    to: version,
                });
            }
            node.clock_ns = end;
            node.steps.push(None);
            node.rows.push(Row {
                kernel: version,
                iteration: 0,
                start_timestamp: start,
                end_timestamp: end,
                runtime_ms: if converted { ns / 1e6 } else { 0.0 },
                accuracy_loss: 0.0,
                ground_truth: None,
            });
            node.state = Some(state);
            record(node, 0, shared)
        }
        Some(p) => {
            let parent_row = nodes[p].rows.last().copied();
            let parent_over = nodes[p].over.last().cloned();
            let (parent_state, parent_clock) = (nodes[p].state.clone(), nodes[p].clock_ns);
            let node = &mut nodes[id];
            let (Some(state), Some(row)) = (parent_state, parent_row.filter(|r| r.iteration == i))
            else {
                node.ending = Some(Ending::ParentEnded { iteration: i });
                return Ok(());
            };
            let version = node.version;
            if let Some(ending) = half_power_overflow(app, version, i) {
                node.ending = Some(ending);
                return Ok(());
            }
            let watch = Stopwatch::start();
            let converts = state.needs_conversion(version);
            let state = match state.converted(version, i) {
                Ok(s) => s,
                Err(InterleaveError::ConversionOverflow { index, value, .. }) => {
                    node.ending = Some(Ending::ConversionOverflow {
                        iteration: i,
                        index,
                        value,
                    });
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            if converts {
                node.conversion = Some(Conversion {
                    iteration: i,
                    to: version,
                });
                node.pending_ns = match clock {
                    Clock::Model(m) => m.conversion_ns(cells),
                    Clock::Wall => watch.finish(&clock, 0, 0.0).2,
                };
            }
            node.clock_ns = parent_clock;
            node.steps.push(None);
            node.rows.push(row);
            node.over.push(parent_over.unwrap_or_default());
            node.state = Some(state);
            Ok(())
        }
    }
}

/// A branch's path: its ancestors' rows up to each fork, then its own.
fn assemble(nodes: &[Node], id: usize, spec: BranchSpec) -> BranchRun {
    let mut chain = vec![id];
    while let Some(p) = nodes[*chain.last().expect("non-empty")].parent {
        chain.push(p);
    }
    chain.reverse();
    let mut path: Vec<Row> = Vec::new();
    let mut over: Vec<Vec<bool>> = Vec::new();
    let mut conversions = Vec::new();
    let (mut computed, mut skipped) = (0, 0);
    let mut ending = Ending::Completed;
    for (k, &n) in chain.iter().enumerate() {
        let node = &nodes[n];
        debug_assert_eq!(node.rows.len(), node.over.len(), "every row is measured");
        let until = chain.get(k + 1).map(|&c| nodes[c].spawn);
        // A node's own rows start with its fork row, already in the path.
        let skip_first = usize::from(k > 0);
        for (row, o) in node.rows.iter().zip(&node.over).skip(skip_first) {
            if until.is_some_and(|u| row.iteration > u) {
                break;
            }
            path.push(*row);
            over.push(o.clone());
        }
        if let Some(c) = node.conversion {
            conversions.push(c);
        }
        for (row, step) in node.rows.iter().zip(&node.steps) {
            if until.is_some_and(|u| row.iteration > u) {
                break;
            }
            match step {
                Some(Step::Computed) => computed += 1,
                Some(Step::Skipped) => skipped += 1,
                None => {}
            }
        }
        if let Some(e) = &node.ending {
            let relevant = match e {
                Ending::Completed => false,
                Ending::NonFinite { iteration, .. } | Ending::UndefinedLoss { iteration } => {
                    until.is_none_or(|u| *iteration <= u)
                }
                Ending::ConversionOverflow { .. }
                | Ending::PowerOverflow { .. }
                | Ending::ParentEnded { .. } => true,
            };
            if relevant {
                ending = e.clone();
                break;
            }
        }
    }
    BranchRun {
        spec,
        path,
        over_limit: over,
        ending,
        conversions,
        computed,
        skipped,
    }
}
