//! Step 6: the schedule simulation (Freytag 2023, §4.2.6).
//!
//! The simulation starts with the approximate kernel in the bottom-left cell
//! and, each iteration, adds the current cell's loss rate and mean runtime
//! of the running kernel to the simulated loss and runtime, moving to the
//! cell that holds the new point. Switching rules:
//! - approximate -> exact when the simulated loss reaches or exceeds the limit;
//! - exact -> approximate when the loss has retracted by at least half the
//!   limit since the exact run began, or when the runtime reaches a target
//!   `T_k(i)` (k = 1, 2, 3, 4 in turn) and the loss has decreased since the
//!   exact run began; a target reached without a decrease moves on to the
//!   next; after the fourth, exact runs to the end.
//!
//! Choices where the thesis is silent or ambiguous (docs/interleave.md):
//! - The simulated loss starts at the approximate profile's conversion loss
//!   (its row 0) and the runtime at that row's runtime; the loss is kept
//!   non-negative.
//! - "Retracted more than 50 %" / "greater than or equal to 50 %" (both
//!   appear): `>=`. "Decreased": strictly below the loss at the switch.
//! - The target level persists over the whole run: the first exact run
//!   aims at `T_1`, a later one at the next target not yet reached, and once
//!   `T_4` has been reached the next exact run lasts to the end (the targets
//!   are a runtime budget spent a quarter at a time; restarting at `T_1` in
//!   every exact run makes the rules alternate kernels every iteration once
//!   the runtime hovers around `T_1`, see docs/findings/interleave.md). Every
//!   target reached at the same iteration is examined at once.
//! - [`Policy::Thesis`] switches *after* an approximate iteration has reached
//!   the limit, so the simulated trajectory itself touches or crosses it.
//!   [`Policy::Predictive`] (this crate's variant) does not run an
//!   approximate iteration whose predicted loss would reach the limit, and
//!   does not switch back when the next one would: the simulated trajectory
//!   then stays below the limit. Neither guarantees the *executed* one does:
//!   the executor checks that ([`super::execute`]).

use super::error::{InterleaveError, Result, require_finite, require_threshold};
use super::schedule::Schedule;
use super::stats::{Statistics, Targets};
use super::version::Version;
use serde::Serialize;
use std::str::FromStr;

/// When the simulation leaves the approximate kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The thesis's rule: after the simulated loss reaches the limit.
    Thesis,
    /// Before an iteration whose predicted loss would reach the limit.
    Predictive,
}

impl Policy {
    /// Its name (`thesis`, `predictive`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::simulate::Policy;
    /// assert_eq!((Policy::Thesis.name(), Policy::Predictive.name()), ("thesis", "predictive"));
    /// for p in [Policy::Thesis, Policy::Predictive] {
    ///     assert_eq!(p.name().parse::<Policy>().unwrap(), p);
    /// }
    /// assert!("Thesis".parse::<Policy>().is_err()); // names are case-sensitive
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Policy::Thesis => "thesis",
            Policy::Predictive => "predictive",
        }
    }
}

impl FromStr for Policy {
    type Err = InterleaveError;
    fn from_str(s: &str) -> Result<Policy> {
        match s {
            "thesis" => Ok(Policy::Thesis),
            "predictive" => Ok(Policy::Predictive),
            _ => Err(InterleaveError::parameter(
                "policy",
                s,
                "expected thesis or predictive",
            )),
        }
    }
}

/// One simulated iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SimulatedStep {
    /// Iterations completed (0: the start).
    pub iteration: usize,
    /// The kernel that ran it.
    pub version: Version,
    /// Simulated loss after it.
    pub loss: f64,
    /// Simulated cumulative runtime after it (ms).
    pub runtime_ms: f64,
    /// The cell it started in.
    pub cell: usize,
    /// The cell whose statistics it used (differs when borrowed).
    pub source_cell: usize,
}

/// A simulation's schedule and trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Simulation {
    /// The limit.
    pub limit: f64,
    /// The policy.
    pub policy: Policy,
    /// The schedule it produced.
    pub schedule: Schedule,
    /// Row 0 (the start) then one row per iteration.
    pub trace: Vec<SimulatedStep>,
}

/// Simulates a run under `limit` from the statistics and targets; `start_loss`
/// and `start_runtime_ms` are the approximate profile's row 0.
///
/// # Errors
/// A limit that is not positive and finite; a `start_loss` or
/// `start_runtime_ms` that is not finite ([`InterleaveError::NonFinite`]);
/// missing statistics.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{error::InterleaveError, profile::{Profile, Row}, sections::SectionGrid};
/// use boundgate::kernels::interleave::{simulate::{simulate, Policy}, stats::{Statistics, Targets}};
/// use boundgate::kernels::interleave::version::Version::{self, Float, Half};
/// let r = |kernel: Version, i: usize, loss: f64, ms: f64| Row { kernel, iteration: i, start_timestamp: 0,
///     end_timestamp: 0, runtime_ms: ms, accuracy_loss: loss, ground_truth: None };
/// // one cell: half gains 0.25 per iteration, float (forked at 2) loses 0.25
/// let base = Profile::new((0..=4).map(|i| r(Half, i, 0.25 * i as f64, 1.0)).collect()).unwrap();
/// let fork = Profile::new(vec![r(Half, 2, 0.5, 1.0), r(Float, 3, 0.25, 2.0), r(Float, 4, 0.0, 2.0)]).unwrap();
/// let exact = Profile::new((0..=4).map(|i| r(Float, i, 0.0, 2.0)).collect()).unwrap();
/// let stats = Statistics::new(&SectionGrid::new(1, 4, 1.0).unwrap(), &base, &[fork]).unwrap();
/// let targets = Targets::new(&base, &exact).unwrap();
/// // thesis, limit 0.5: half until the loss reaches 0.5, float until it retracts by 0.5 / 2
/// let t = simulate(&stats, &targets, 0.5, Policy::Thesis, 0.0, 0.0).unwrap();
/// assert_eq!(t.schedule.switches(), &[(0, Half), (2, Float), (3, Half)]);
/// assert_eq!(t.trace.iter().map(|s| s.loss).collect::<Vec<_>>(), [0.0, 0.25, 0.5, 0.25, 0.5]);
/// // predictive: never runs the half iteration that would reach 0.5
/// let p = simulate(&stats, &targets, 0.5, Policy::Predictive, 0.0, 0.0).unwrap();
/// assert_eq!(p.schedule.switches(), &[(0, Half), (1, Float), (2, Half), (3, Float)]);
/// assert!(p.trace.iter().all(|s| s.loss < 0.5));
/// assert!(matches!(simulate(&stats, &targets, -0.5, Policy::Thesis, 0.0, 0.0),
///     Err(InterleaveError::InvalidThreshold { .. })));
/// assert!(matches!(simulate(&stats, &targets, 0.5, Policy::Thesis, 0.0, f64::NAN),
///     Err(InterleaveError::NonFinite { .. })));
/// ```
pub fn simulate(
    stats: &Statistics,
    targets: &Targets,
    limit: f64,
    policy: Policy,
    start_loss: f64,
    start_runtime_ms: f64,
) -> Result<Simulation> {
    require_threshold(limit)?;
    require_finite("start_loss", &[start_loss])?;
    require_finite("start_runtime_ms", &[start_runtime_ms])?;
    let grid = &stats.grid;
    let n = grid.iterations();
    let approx = stats.approx_version;
    let rate_of = |exact: bool, i: usize, loss: f64| -> Result<(f64, f64, usize, usize)> {
        let cell = grid.locate_clamped(i, loss);
        let (s, source) = stats.lookup(exact, cell)?;
        Ok((s.rate, s.runtime_ms, cell, source))
    };
    let mut loss = start_loss.max(0.0);
    let mut runtime = start_runtime_ms;
    let mut version = approx;
    let mut switches = vec![(0usize, approx)];
    // Predictive: not even the first approximate iteration fits.
    if policy == Policy::Predictive && loss + rate_of(false, 0, loss)?.0 >= limit {
        version = Version::Float;
        switches = vec![(0, Version::Float)];
        loss = 0.0;
        runtime = 0.0;
    }
    let mut trace = vec![SimulatedStep {
        iteration: 0,
        version,
        loss,
        runtime_ms: runtime,
        cell: grid.locate_clamped(0, loss),
        source_cell: grid.locate_clamped(0, loss),
    }];
    let mut exact_start_loss = loss;
    let mut level = 1usize;
    let mut exact_to_end = false;
    let switch = |at: usize, to: Version, switches: &mut Vec<(usize, Version)>| {
        switches.push((at, to));
        to
    };
    for i in 0..n {
        // Predictive: leave the approximate kernel before reaching the limit.
        if version == approx
            && policy == Policy::Predictive
            && loss + rate_of(false, i, loss)?.0 >= limit
        {
            version = switch(i, Version::Float, &mut switches);
            exact_start_loss = loss;
            exact_to_end = level > 4;
        }
        let (rate, ms, cell, source) = rate_of(version.is_exact(), i, loss)?;
        loss = (loss + rate).max(0.0);
        runtime += ms;
        trace.push(SimulatedStep {
            iteration: i + 1,
            version,
            loss,
            runtime_ms: runtime,
            cell,
            source_cell: source,
        });
        let done = i + 1;
        if done == n {
            break;
        }
        if version == approx {
            if policy == Policy::Thesis && loss >= limit {
                version = switch(done, Version::Float, &mut switches);
                exact_start_loss = loss;
                exact_to_end = level > 4;
            }
            continue;
        }
        if exact_to_end {
            continue;
        }
        let next_fits = |loss: f64| -> Result<bool> {
            Ok(policy == Policy::Thesis || loss + rate_of(false, done, loss)?.0 < limit)
        };
        let mut back = exact_start_loss - loss >= 0.5 * limit;
        if !back {
            while level <= 4 && runtime >= targets.target(level, done) {
                level += 1;
                if loss < exact_start_loss {
                    back = true;
                    break;
                }
            }
            if level > 4 && !back {
                exact_to_end = true;
            }
        }
        if back && next_fits(loss)? {
            version = switch(done, approx, &mut switches);
        }
    }
    let schedule = Schedule::new(n, switches)?;
    Ok(Simulation {
        limit,
        policy,
        schedule,
        trace,
    })
}
