//! The executor: runs a schedule (Freytag 2023, Fig. 4.9), converting the
//! state only where the format changes, and checks the *executed* trajectory
//! against the limit after every iteration, exactly (the thesis checks only
//! the simulated trajectory and reports overshoots after the fact, §5.3).
//!
//! The verdict names every iteration whose loss exceeds the limit; a run
//! that crossed the limit mid-run is not valid even if it ends below it
//! (§3.4: "it cannot be guaranteed that this result is correct").

use super::clock::Clock;
use super::error::{InterleaveError, Result, require_threshold};
use super::hotspot::HotSpot3D;
use super::profile::Profile;
use super::runner::{BranchRun, Conversion, Ending, RunOptions, run_lockstep};
use super::schedule::Schedule;
use super::simulate::Simulation;
use super::version::Version;
use serde::Serialize;

/// The executed trajectory against the limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Every iteration's loss is at most the limit.
    WithinLimit,
    /// Some iterations exceed it.
    Exceeded {
        /// The iterations over the limit.
        iterations: Vec<usize>,
        /// The largest loss.
        max_loss: f64,
    },
    /// The run ended early (non-finite state, overflowing conversion or
    /// power, undefined loss).
    Ended {
        /// How it ended.
        ending: Ending,
        /// The iterations over the limit before the end.
        over_limit: Vec<usize>,
    },
}

/// What executing a schedule produced.
#[derive(Clone, Debug, Serialize)]
pub struct Execution {
    /// The schedule.
    pub schedule: Schedule,
    /// The limit.
    pub limit: f64,
    /// The executed run (rows 0..N along the schedule).
    pub run: BranchRun,
    /// The `float` reference run.
    pub reference: Profile,
    /// The verdict.
    pub verdict: Verdict,
    /// Runtime of the schedule, conversions included (ms, under `clock`).
    pub runtime_ms: f64,
    /// Runtime of the `float` reference run (ms).
    pub exact_runtime_ms: f64,
    /// `exact_runtime_ms / runtime_ms`; `None` for a run that ended early,
    /// whose runtime covers only the iterations before the end.
    pub speedup: Option<f64>,
    /// The clock.
    pub clock: String,
}

/// A speedup to 3 decimals, or `-` for a run that ended early (it has none).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::execute::speedup_text;
/// assert_eq!(speedup_text(Some(1.23456)), "1.235");
/// assert_eq!(speedup_text(None), "-");
/// ```
pub fn speedup_text(speedup: Option<f64>) -> String {
    speedup.map_or("-".into(), |s| format!("{s:.3}"))
}

impl Execution {
    /// The conversions performed.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, execute::execute, runner::Conversion, grid::Grid3,
    ///     hotspot::HotSpot3D, schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let s = Schedule::new(12, vec![(0, Version::Half), (4, Version::Float), (8, Version::Half)]).unwrap();
    /// let e = execute(&app, &s, 0.5, Clock::DEFAULT, false).unwrap();
    /// let to = |iteration, to| Conversion { iteration, to };
    /// assert_eq!(e.conversions(), [to(0, Version::Half), to(4, Version::Float), to(8, Version::Half)]);
    /// // float and looperf share binary32 storage: no conversion between them
    /// let s = Schedule::new(12, vec![(0, Version::Float), (6, Version::Looperf)]).unwrap();
    /// assert!(execute(&app, &s, 0.5, Clock::DEFAULT, false).unwrap().conversions().is_empty());
    /// ```
    pub fn conversions(&self) -> &[Conversion] {
        &self.run.conversions
    }

    /// The largest executed loss along the run (0 for an empty one).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, execute::execute, grid::Grid3,
    ///     hotspot::HotSpot3D, schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// // float only is the reference itself: loss exactly 0 throughout
    /// let float = Schedule::single(10, Version::Float).unwrap();
    /// assert_eq!(execute(&app, &float, 0.5, Clock::DEFAULT, false).unwrap().max_loss(), 0.0);
    /// let half = Schedule::single(10, Version::Half).unwrap();
    /// let e = execute(&app, &half, 0.5, Clock::DEFAULT, false).unwrap();
    /// assert!(e.max_loss() > 0.0);
    /// assert!(e.run.path.iter().all(|r| r.accuracy_loss <= e.max_loss()));
    /// assert!(e.run.path.iter().any(|r| r.accuracy_loss == e.max_loss()));
    /// ```
    pub fn max_loss(&self) -> f64 {
        self.run
            .path
            .iter()
            .map(|r| r.accuracy_loss)
            .fold(0.0, f64::max)
    }

    /// Whether the executed trajectory stayed within the limit and completed.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, execute::{Verdict, execute}, grid::Grid3,
    ///     hotspot::HotSpot3D, schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let s = Schedule::single(10, Version::Half).unwrap();
    /// let loss = execute(&app, &s, 0.5, Clock::DEFAULT, false).unwrap().max_loss();
    /// // a limit at the largest loss is respected (only exceeding counts) ...
    /// assert!(execute(&app, &s, loss, Clock::DEFAULT, false).unwrap().respects_limit());
    /// // ... one just below it is not
    /// let e = execute(&app, &s, loss.next_down(), Clock::DEFAULT, false).unwrap();
    /// assert!(!e.respects_limit());
    /// assert!(matches!(e.verdict, Verdict::Exceeded { .. }));
    /// ```
    pub fn respects_limit(&self) -> bool {
        self.verdict == Verdict::WithinLimit
    }

    /// Rows `(iteration, version, simulated loss, executed loss [lower, upper], over)`
    /// side by side with a simulation of the same schedule.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, execute::execute, grid::Grid3,
    ///     hotspot::HotSpot3D, schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let s = Schedule::new(10, vec![(0, Version::Float), (5, Version::Half)]).unwrap();
    /// let e = execute(&app, &s, 0.5, Clock::DEFAULT, true).unwrap();
    /// let rows = e.side_by_side(None);
    /// assert_eq!(rows.len(), 11); // iterations 0 to 10
    /// assert_eq!((rows[5].version, rows[6].version), (Version::Float, Version::Half));
    /// assert_eq!(rows[5].executed, 0.0); // float so far: the reference itself
    /// for r in &rows {
    ///     assert!(r.simulated.is_none() && !r.over);
    ///     // with the ground truth, an enclosure of the exact loss around the executed one
    ///     assert!(r.lower <= r.executed && r.executed <= r.upper);
    /// }
    /// ```
    pub fn side_by_side(&self, simulation: Option<&Simulation>) -> Vec<SideBySide> {
        self.run
            .path
            .iter()
            .zip(&self.run.over_limit)
            .map(|(r, over)| SideBySide {
                iteration: r.iteration,
                version: r.kernel,
                simulated: simulation
                    .and_then(|s| s.trace.get(r.iteration))
                    .map(|t| t.loss),
                executed: r.accuracy_loss,
                lower: r.ground_truth.map_or(r.accuracy_loss, |g| g.loss_lower),
                upper: r.ground_truth.map_or(r.accuracy_loss, |g| g.loss_upper),
                over: over.first().copied().unwrap_or(false),
            })
            .collect()
    }
}

/// One iteration, simulated and executed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SideBySide {
    /// Iterations completed.
    pub iteration: usize,
    /// The kernel that ran it.
    pub version: Version,
    /// The simulated loss, if a simulation was given.
    pub simulated: Option<f64>,
    /// The executed loss.
    pub executed: f64,
    /// Its lower bound.
    pub lower: f64,
    /// Its upper bound.
    pub upper: f64,
    /// Whether it exceeds the limit (decided exactly).
    pub over: bool,
}

/// Executes `schedule` on `app` and checks every iteration against `limit`.
///
/// # Errors
/// A limit that is not positive and finite; invalid problem data.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, execute::execute, grid::Grid3,
///     hotspot::HotSpot3D, schedule::Schedule, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let s = Schedule::new(20, vec![(0, Version::Half), (10, Version::Float)]).unwrap();
/// let e = execute(&app, &s, 0.5, Clock::DEFAULT, false).unwrap();
/// assert!(e.respects_limit());
/// assert_eq!(e.conversions().len(), 2); // float data -> half at 0, half -> float at 10
/// assert!(e.speedup.unwrap() > 1.0);
/// ```
pub fn execute(
    app: &HotSpot3D,
    schedule: &Schedule,
    limit: f64,
    clock: Clock,
    ground_truth: bool,
) -> Result<Execution> {
    let mut all = execute_many(app, &[(schedule.clone(), limit)], clock, ground_truth)?;
    Ok(all.pop().expect("one schedule, one execution"))
}

/// Executes several schedules (same iteration count) in one lockstep pass:
/// shared prefixes run once. Each is checked against its own limit.
///
/// # Errors
/// As [`execute`]; schedules of different lengths.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError,
///     execute::{execute, execute_many}, grid::Grid3, hotspot::HotSpot3D,
///     schedule::Schedule, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let a = Schedule::single(10, Version::Half).unwrap();
/// let b = Schedule::new(10, vec![(0, Version::Half), (5, Version::Float)]).unwrap();
/// let both = execute_many(&app, &[(a.clone(), 0.5), (b.clone(), 1e-9)], Clock::DEFAULT, false).unwrap();
/// // the same as one at a time, each against its own limit
/// let alone = execute(&app, &b, 1e-9, Clock::DEFAULT, false).unwrap();
/// assert_eq!(both[1].max_loss(), alone.max_loss());
/// assert!(both[0].respects_limit() && !both[1].respects_limit());
/// assert!(execute_many(&app, &[], Clock::DEFAULT, false).unwrap().is_empty());
/// let c = Schedule::single(11, Version::Half).unwrap();
/// let mixed = execute_many(&app, &[(a.clone(), 0.5), (c, 0.5)], Clock::DEFAULT, false);
/// assert!(matches!(mixed, Err(InterleaveError::InvalidParameter { .. })));
/// let bad = execute_many(&app, &[(a, 0.0)], Clock::DEFAULT, false);
/// assert!(matches!(bad, Err(InterleaveError::InvalidThreshold { .. })));
/// ```
pub fn execute_many(
    app: &HotSpot3D,
    items: &[(Schedule, f64)],
    clock: Clock,
    ground_truth: bool,
) -> Result<Vec<Execution>> {
    let Some((first, _)) = items.first() else {
        return Ok(Vec::new());
    };
    let iterations = first.iterations();
    let mut limits: Vec<f64> = Vec::new();
    for (s, limit) in items {
        require_threshold(*limit)?;
        if s.iterations() != iterations {
            return Err(InterleaveError::parameter(
                "schedule",
                s.iterations(),
                format!("every schedule executed together must have {iterations} iterations"),
            ));
        }
        if !limits.iter().any(|l| l.to_bits() == limit.to_bits()) {
            limits.push(*limit);
        }
    }
    let mut specs: Vec<super::runner::BranchSpec> = Vec::new();
    for (s, _) in items {
        if !specs.contains(&s.spec()) {
            specs.push(s.spec());
        }
    }
    let options = RunOptions {
        iterations,
        clock,
        ground_truth,
        limits: limits.clone(),
    };
    let lock = run_lockstep(app, &specs, &options)?;
    let exact_runtime_ms: f64 = lock.reference.rows().iter().map(|r| r.runtime_ms).sum();
    items
        .iter()
        .map(|(schedule, limit)| {
            let k = limits
                .iter()
                .position(|l| l.to_bits() == limit.to_bits())
                .expect("collected above");
            let branch = lock
                .branches
                .iter()
                .find(|b| b.spec == schedule.spec())
                .expect("every schedule was run");
            let mut run = branch.clone();
            run.over_limit = branch.over_limit.iter().map(|o| vec![o[k]]).collect();
            let over: Vec<usize> = run
                .path
                .iter()
                .zip(&run.over_limit)
                .filter(|(_, o)| o[0])
                .map(|(r, _)| r.iteration)
                .collect();
            let completed = run.ending == Ending::Completed;
            let verdict = if !completed {
                Verdict::Ended {
                    ending: run.ending.clone(),
                    over_limit: over,
                }
            } else if over.is_empty() {
                Verdict::WithinLimit
            } else {
                Verdict::Exceeded {
                    max_loss: run.path.iter().map(|r| r.accuracy_loss).fold(0.0, f64::max),
                    iterations: over,
                }
            };
            let runtime_ms = run.runtime_ms();
            Ok(Execution {
                schedule: schedule.clone(),
                limit: *limit,
                speedup: completed.then(|| exact_runtime_ms / runtime_ms),
                runtime_ms,
                exact_runtime_ms,
                run,
                reference: lock.reference.clone(),
                verdict,
                clock: clock.label(),
            })
        })
        .collect()
}
