//! Schedules refined until their *execution* stays within the limit (this
//! crate's addition to Freytag 2023, §4.2.6).
//!
//! The thesis simulates a run from per-cell average rates and checks only
//! the simulated trajectory; executed, its schedules overshoot (the finding
//! in docs/findings/interleave.md: on HotSpot3D 512x512x8 both switching
//! rules exceed `L_max/4`). The CPU model's arithmetic is the device's bit for
//! bit (tests/interleave_gpu.rs), so executing a schedule here gives the
//! device's trajectory exactly. [`refine`] closes the loop: simulate under a
//! *simulated* limit, execute against the *true* limit, and when the
//! execution exceeds it, simulate again under the simulated limit scaled by
//! `limit / max executed loss` (the overshoot ratio, < 1), until an execution
//! stays within the limit or the rounds run out. Then the `float`-only
//! schedule is returned, whose loss is 0: the result's execution never
//! exceeds the limit on this input, whatever happens (a property test). A
//! schedule that stays within the limit but is slower than `float` alone
//! (few approximate iterations, each switch paying a conversion) is not
//! kept either: `float` alone is then both within and faster.
//!
//! What it does not claim: the guarantee is for the input it was executed
//! on; another input needs its own run (as the thesis's profiles do). Nor
//! that the schedule kept is the fastest within the limit: the first one
//! within is kept. A search back up (bisecting between the last limit beyond
//! and the first within, keeping the fastest) was measured on 440
//! configurations and never found a faster one (docs/interleave.md), so
//! rounds are not spent on it.

use super::clock::Clock;
use super::error::{InterleaveError, Result, require_threshold};
use super::execute::{Execution, Verdict, execute};
use super::hotspot::HotSpot3D;
use super::schedule::Schedule;
use super::simulate::{Policy, Simulation, simulate};
use super::stats::{Statistics, Targets};
use super::version::Version;
use serde::Serialize;

/// One simulate-and-execute round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    /// The limit the simulation ran under.
    pub simulated_limit: f64,
    /// Iterations run by the approximate kernel.
    pub approximate_iterations: usize,
    /// The largest executed loss (infinite for a run that ended early).
    pub executed_max_loss: f64,
    /// Whether the execution stayed within the true limit.
    pub within: bool,
    /// The execution's speedup over `float` (under the clock); `None` when
    /// the run ended early.
    pub speedup: Option<f64>,
}

/// What [`refine`] settled on.
#[derive(Clone, Debug, Serialize)]
pub struct Refined {
    /// The true limit.
    pub limit: f64,
    /// Every round, in order.
    pub rounds: Vec<Round>,
    /// Why the `float`-only schedule was kept instead of a refined one.
    pub fallback: Option<Fallback>,
    /// The simulation of the schedule kept (`None` for the `float` fallback).
    pub simulation: Option<Simulation>,
    /// The execution of the schedule kept: it never exceeds `limit`.
    pub execution: Execution,
}

/// Why [`refine`] kept the `float`-only schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fallback {
    /// No round's execution stayed within the limit.
    NoRoundWithin,
    /// The last round stayed within it but was slower than `float` alone.
    SlowerThanFloat,
}

impl Refined {
    /// The schedule kept.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D, pipeline::Prepared};
    /// use boundgate::kernels::interleave::{refine::{refine, Fallback}, simulate::Policy, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let p = Prepared::new(&app, Version::Half, 12, 2, Clock::DEFAULT).unwrap();
    /// let inputs = p.refine_inputs(&app, Clock::DEFAULT, false);
    /// // a limit below the first half iteration's loss, one round: the float-only fallback
    /// let r = refine(&inputs, 1e-12, Policy::Thesis, 1).unwrap();
    /// assert_eq!((r.rounds.len(), r.rounds[0].within, r.fallback), (1, false, Some(Fallback::NoRoundWithin)));
    /// assert_eq!(r.schedule().switches(), &[(0, Version::Float)]);
    /// assert_eq!(r.schedule(), &r.execution.schedule);
    /// assert!(r.execution.respects_limit());
    /// ```
    pub fn schedule(&self) -> &Schedule {
        &self.execution.schedule
    }
}

/// The problem the schedules are for.
#[derive(Clone, Copy)]
pub struct RefineInputs<'a> {
    /// The application (its inputs are those the guarantee is for).
    pub app: &'a HotSpot3D,
    /// Step 4.
    pub stats: &'a Statistics,
    /// Step 5.
    pub targets: &'a Targets,
    /// The approximate profile's row 0: its loss and runtime (ms).
    pub start: (f64, f64),
    /// Where runtimes come from.
    pub clock: Clock,
    /// Whether executions also run the binary64 ground truth.
    pub ground_truth: bool,
}

/// Simulates under `limit`, executes, and tightens the simulated limit by
/// the overshoot ratio until an execution stays within `limit`; at most
/// `max_rounds` rounds, then the `float`-only schedule (also kept when the
/// schedule within the limit is slower than it).
///
/// # Errors
/// A limit that is not positive and finite; `max_rounds` outside
/// `1..=`[`super::experiment::MAX_REFINE_ROUNDS`]; the simulation's and
/// execution's errors.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D,
///     pipeline::Prepared, refine::refine, simulate::Policy, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(16, 16, 2).unwrap(), 1).unwrap();
/// let p = Prepared::new(&app, Version::Half, 30, 2, Clock::DEFAULT).unwrap();
/// let inputs = p.refine_inputs(&app, Clock::DEFAULT, false);
/// let limit = p.profiles.approx.max_loss() / 4.0;
/// let r = refine(&inputs, limit, Policy::Thesis, 6).unwrap();
/// assert!(r.execution.respects_limit());
/// ```
pub fn refine(
    inputs: &RefineInputs<'_>,
    limit: f64,
    policy: Policy,
    max_rounds: usize,
) -> Result<Refined> {
    refine_from(inputs, limit, policy, max_rounds, None)
}

/// [`refine`] whose first round is already done: `first` is the simulation
/// under `limit` by `policy` and its execution against `limit` (the
/// pipeline's own run of that schedule), so it is not simulated and executed
/// again.
///
/// # Errors
/// As [`refine`]; [`InterleaveError::InvalidParameter`] named `first` when
/// its execution is not against `limit`, runs another schedule than its
/// simulation, or that schedule is not `inputs.stats`'s length (a round made
/// for another limit or problem would be kept as within `limit` without
/// having been checked against it).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, execute::execute, grid::Grid3};
/// use boundgate::kernels::interleave::{hotspot::HotSpot3D, pipeline::Prepared, refine::refine_from, schedule::Schedule};
/// use boundgate::kernels::interleave::{simulate::{Policy, Simulation}, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let p = Prepared::new(&app, Version::Half, 12, 2, Clock::DEFAULT).unwrap();
/// let inputs = p.refine_inputs(&app, Clock::DEFAULT, false);
/// let limit = p.profiles.approx.max_loss() / 4.0;
/// // a first round already done: float only (loss 0, as fast as float), kept as given
/// let float = Schedule::single(12, Version::Float).unwrap();
/// let done = execute(&app, &float, limit, Clock::DEFAULT, false).unwrap();
/// let sim = Simulation { limit, policy: Policy::Thesis, schedule: float.clone(), trace: vec![] };
/// let r = refine_from(&inputs, limit, Policy::Thesis, 3, Some((sim, done))).unwrap();
/// assert_eq!((r.rounds.len(), r.rounds[0].approximate_iterations, r.fallback), (1, 0, None));
/// assert_eq!(r.schedule(), &float);
/// assert!(matches!(refine_from(&inputs, limit, Policy::Thesis, 0, None),
///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "max_rounds"));
/// // a first round executed against another limit is refused, not kept unchecked
/// let loose = execute(&app, &float, 1.0, Clock::DEFAULT, false).unwrap();
/// let sim = Simulation { limit, policy: Policy::Thesis, schedule: float.clone(), trace: vec![] };
/// assert!(matches!(refine_from(&inputs, limit, Policy::Thesis, 3, Some((sim, loose))),
///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "first"));
/// ```
pub fn refine_from(
    inputs: &RefineInputs<'_>,
    limit: f64,
    policy: Policy,
    max_rounds: usize,
    mut first: Option<(Simulation, Execution)>,
) -> Result<Refined> {
    require_threshold(limit)?;
    // Capped here, for the CLI as for plans: the rounds are kept, and
    // `interleave refine --max-rounds 10^11` reserved 4.8 TB and aborted
    // (found by review, 2026-11-26).
    let cap = super::experiment::MAX_REFINE_ROUNDS;
    if max_rounds == 0 || max_rounds > cap {
        return Err(super::error::InterleaveError::parameter(
            "max_rounds",
            max_rounds,
            format!("must be 1 to {cap}"),
        ));
    }
    if let Some((simulation, execution)) = &first {
        // Round 1 is kept as it is when its execution stays within its own
        // limit: one made for another limit or problem would be kept as
        // within `limit` unchecked (found by review, 2026-11-29).
        let n = inputs.stats.grid.iterations();
        let wrong = if execution.limit != limit {
            Some(format!(
                "executed against the limit {:e}, not {limit:e}",
                execution.limit
            ))
        } else if execution.schedule != simulation.schedule {
            Some("its execution runs another schedule than its simulation".to_string())
        } else if simulation.schedule.iterations() != n {
            Some(format!(
                "its schedule has {} iterations, the statistics {n}",
                simulation.schedule.iterations()
            ))
        } else {
            None
        };
        if let Some(reason) = wrong {
            return Err(InterleaveError::parameter("first", "round 1", reason));
        }
    }
    let mut simulated_limit = limit;
    let mut rounds = Vec::with_capacity(max_rounds);
    let mut previous: Option<Schedule> = None;
    while rounds.len() < max_rounds {
        let (simulation, execution) = match first.take() {
            Some(done) => done,
            None => {
                let Some((tightened, simulation)) =
                    next_schedule(inputs, limit, simulated_limit, policy, previous.as_ref())?
                else {
                    break;
                };
                simulated_limit = tightened;
                let execution = execute(
                    inputs.app,
                    &simulation.schedule,
                    limit,
                    inputs.clock,
                    inputs.ground_truth,
                )?;
                (simulation, execution)
            }
        };
        let executed_max_loss = match execution.verdict {
            Verdict::Ended { .. } => f64::INFINITY,
            _ => execution.max_loss(),
        };
        let within = execution.respects_limit();
        rounds.push(Round {
            simulated_limit,
            approximate_iterations: simulation.schedule.count(inputs.stats.approx_version),
            executed_max_loss,
            within,
            speedup: execution.speedup,
        });
        if within && execution.speedup.is_some_and(|s| s >= 1.0) {
            return Ok(Refined {
                limit,
                rounds,
                fallback: None,
                simulation: Some(simulation),
                execution,
            });
        }
        if within {
            return float_only(inputs, limit, rounds, Fallback::SlowerThanFloat);
        }
        // The overshoot ratio (< 1); halve when the run ended early.
        let ratio = if executed_max_loss.is_finite() && executed_max_loss > 0.0 {
            limit / executed_max_loss
        } else {
            0.5
        };
        simulated_limit *= ratio.min(0.999);
        previous = Some(simulation.schedule);
    }
    float_only(inputs, limit, rounds, Fallback::NoRoundWithin)
}

/// Each step of the search for a schedule other than the last one executed
/// tightens the simulated limit by this factor: simulations are cheap next
/// to executions, so the step is small, and the first different schedule is
/// the one closest to the last (an overshoot of 0.1 % halved the simulated
/// limit before 2026-11-25, throwing away half the approximate iterations).
const SEARCH_STEP: f64 = 0.99;

/// Below this fraction of the true limit the search gives up (the schedule
/// then is all `float` or as good as): 0.99^1375 is about 1e-6.
const SEARCH_FLOOR: f64 = 1e-6;

/// The simulation under `simulated_limit`, or, when it reproduces `previous`
/// (which would execute exactly as before), under the first limit of the
/// steps `simulated_limit * SEARCH_STEP^i` that gives another schedule; with
/// the limit used. `None` when no step above `SEARCH_FLOOR * limit` does, or
/// when there is no step left: `simulated_limit` has underflowed to 0 (a limit
/// near the smallest doubles overshot by orders of magnitude: `refine` at
/// 1e-200 failed with "threshold 0" instead of falling back to `float`;
/// review, 2026-11-29), or stepping no longer lowers it (subnormals).
fn next_schedule(
    inputs: &RefineInputs<'_>,
    limit: f64,
    mut simulated_limit: f64,
    policy: Policy,
    previous: Option<&Schedule>,
) -> Result<Option<(f64, Simulation)>> {
    let floor = SEARCH_FLOOR * limit;
    loop {
        if simulated_limit <= 0.0 {
            return Ok(None);
        }
        let simulation = simulate(
            inputs.stats,
            inputs.targets,
            simulated_limit,
            policy,
            inputs.start.0,
            inputs.start.1,
        )?;
        if previous != Some(&simulation.schedule) {
            return Ok(Some((simulated_limit, simulation)));
        }
        let stepped = simulated_limit * SEARCH_STEP;
        if stepped < floor || stepped == simulated_limit {
            return Ok(None);
        }
        simulated_limit = stepped;
    }
}

/// The `float`-only schedule, executed (loss 0, speedup 1).
fn float_only(
    inputs: &RefineInputs<'_>,
    limit: f64,
    rounds: Vec<Round>,
    why: Fallback,
) -> Result<Refined> {
    let float = Schedule::single(inputs.stats.grid.iterations(), Version::Float)?;
    let execution = execute(inputs.app, &float, limit, inputs.clock, inputs.ground_truth)?;
    Ok(Refined {
        limit,
        rounds,
        fallback: Some(why),
        simulation: None,
        execution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::interleave::grid::Grid3;
    use crate::kernels::interleave::pipeline::Prepared;

    #[test]
    fn the_search_stops_at_the_first_step_that_changes_the_schedule() {
        let app = HotSpot3D::synthetic(Grid3::new(16, 16, 2).unwrap(), 2).unwrap();
        let p = Prepared::new(&app, Version::Half, 36, 2, Clock::DEFAULT).unwrap();
        let inputs = p.refine_inputs(&app, Clock::DEFAULT, false);
        let limit = p.profiles.approx.max_loss() / 4.0;
        let simulated = |l: f64| {
            simulate(
                &p.stats,
                &p.targets,
                l,
                Policy::Thesis,
                inputs.start.0,
                inputs.start.1,
            )
            .unwrap()
        };
        let first = simulated(limit).schedule;
        // No previous schedule: the limit as given.
        let (l, sim) = next_schedule(&inputs, limit, limit, Policy::Thesis, None)
            .unwrap()
            .unwrap();
        assert_eq!((l, &sim.schedule), (limit, &first));
        // The first schedule as the previous one: the first step that differs.
        let (l, sim) = next_schedule(&inputs, limit, limit, Policy::Thesis, Some(&first))
            .unwrap()
            .unwrap();
        assert!(l < limit && sim.schedule != first);
        assert_eq!(simulated(l / SEARCH_STEP).schedule, first);
        // Near the floor the schedule stops changing, and the search gives
        // up. It is not all float there: under the thesis's rule a float
        // iteration that retracts the simulated loss by half of so small a
        // limit switches back at once, so the kernels alternate (18 half
        // iterations of 36, more than the 12 at the true limit: a tighter
        // simulated limit does not always mean fewer approximate iterations).
        let tiny = limit * SEARCH_FLOOR * 1.5;
        let alternating = simulated(tiny).schedule;
        assert_eq!(alternating.count(Version::Half), 18);
        assert!(
            next_schedule(&inputs, limit, tiny, Policy::Thesis, Some(&alternating))
                .unwrap()
                .is_none()
        );
    }
}
