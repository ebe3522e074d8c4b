//! The six steps end to end (Freytag 2023, §4.2, Fig. 4.2): profiles,
//! subsections, the three sampling phases, statistics, targets, schedules,
//! and (this crate's addition) the execution of every schedule with the
//! limit checked at every iteration.
//!
//! The sampling phases of several subsection configurations run in the same
//! lockstep passes (one per phase), so forks they share are computed once.

use super::clock::Clock;
use super::error::{InterleaveError, Result, require_threshold};
use super::execute::{Execution, execute};
use super::hotspot::HotSpot3D;
use super::phases::{TestPoint, distinct_forks, select};
use super::profile::Profile;
use super::refine::{RefineInputs, Refined, refine_from};
use super::runner::{BranchSpec, Lockstep, RunOptions, run_lockstep};
use super::sections::SectionGrid;
use super::simulate::{Policy, Simulation, simulate};
use super::stats::{Statistics, Targets};
use super::version::Version;
use serde::Serialize;
use std::collections::BTreeMap;

/// Step 1's output: the approximate and the exact profile (loss against the
/// lockstep `float` reference; the exact one is that reference, loss 0).
#[derive(Clone, Debug, Serialize)]
pub struct Profiles {
    /// The approximate kernel.
    pub approx_version: Version,
    /// Its profile, rows 0..N.
    pub approx: Profile,
    /// The exact kernel's profile, rows 0..N.
    pub exact: Profile,
}

/// Step 1: runs the approximate kernel beside the `float` reference.
///
/// # Errors
/// `approx` not approximate; zero iterations; bad problem data; a run that
/// did not complete (its [`super::runner::Ending`] in the message).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, grid::Grid3};
/// use boundgate::kernels::interleave::{hotspot::HotSpot3D, pipeline::profiles, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let p = profiles(&app, Version::Half, 12, Clock::DEFAULT, false).unwrap();
/// assert_eq!((p.approx.first_iteration(), p.approx.last_iteration()), (0, 12));
/// assert!(p.approx.rows().iter().all(|r| r.kernel == Version::Half));
/// assert!(p.approx.max_loss() > 0.0); // binary16 loses accuracy
/// // the exact profile is the float reference itself: loss 0 throughout
/// assert!(p.exact.rows().iter().all(|r| r.kernel == Version::Float && r.accuracy_loss == 0.0));
/// assert!(matches!(profiles(&app, Version::Float, 12, Clock::DEFAULT, false),
///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "approx"));
/// ```
pub fn profiles(
    app: &HotSpot3D,
    approx: Version,
    iterations: usize,
    clock: Clock,
    ground_truth: bool,
) -> Result<Profiles> {
    if !Version::APPROXIMATE.contains(&approx) {
        return Err(InterleaveError::parameter(
            "approx",
            approx,
            "expected half or looperf",
        ));
    }
    let options = RunOptions {
        iterations,
        clock,
        ground_truth,
        limits: Vec::new(),
    };
    let mut lock = run_lockstep(app, &[BranchSpec::single(approx)], &options)?;
    let run = lock.branches.pop().expect("one spec, one run");
    if run.ending != super::runner::Ending::Completed {
        return Err(InterleaveError::parameter(
            "approx",
            approx,
            format!("the approximate run did not complete: {:?}", run.ending),
        ));
    }
    Ok(Profiles {
        approx_version: approx,
        approx: run.path_profile().expect("a completed run has rows"),
        exact: lock.reference,
    })
}

/// One measurement curve of step 3.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    /// Its switch points.
    pub spec: BranchSpec,
    /// Its rows from the fork point.
    pub profile: Profile,
}

/// Step 3's output for one subsection configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Sampling {
    /// The subsections.
    pub grid: SectionGrid,
    /// Test points of each phase (curve indices into the previous phase's curves;
    /// phase 1's curve 0 is the approximate profile).
    pub test_points: [Vec<TestPoint>; 3],
    /// The curves of each phase.
    pub curves: [Vec<Curve>; 3],
}

impl Sampling {
    /// Every measurement of the three phases.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D};
    /// use boundgate::kernels::interleave::{pipeline::{profiles, sample}, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let p = profiles(&app, Version::Half, 12, Clock::DEFAULT, false).unwrap();
    /// let s = sample(&app, &p, &[2], Clock::DEFAULT, false).unwrap().pop().unwrap();
    /// let m = s.measurements();
    /// // phase 1's curves first, then phase 2's and phase 3's
    /// assert_eq!(m.len(), s.curves.iter().map(Vec::len).sum::<usize>());
    /// assert_eq!(m[0], s.curves[0][0].profile);
    /// ```
    pub fn measurements(&self) -> Vec<Profile> {
        self.curves
            .iter()
            .flatten()
            .map(|c| c.profile.clone())
            .collect()
    }
}

/// Checks that phase 1's forks reproduce the step-1 approximate profile up
/// to their fork points: the runs are deterministic, so a different loss
/// means the profile came from another problem, and measurements forked from
/// it would mix two problems without a sign (profiles do not record their
/// grid or seed; left alone 2026-11-25). Losses are compared exactly: the
/// CSV writes them in shortest round-trip form.
fn require_reproduced(approx: &Profile, branches: &[super::runner::BranchRun]) -> Result<()> {
    for branch in branches {
        let t = branch.spec.fork_point();
        for row in branch.path.iter().take_while(|r| r.iteration <= t) {
            let Some(given) = approx.row(row.iteration) else {
                continue;
            };
            if given.accuracy_loss.to_bits() != row.accuracy_loss.to_bits() {
                return Err(InterleaveError::ProfileMismatch {
                    iteration: row.iteration,
                    in_profile: given.accuracy_loss,
                    on_problem: row.accuracy_loss,
                });
            }
        }
    }
    Ok(())
}

/// Steps 2 and 3 for several subsection counts `n` (2..6 in the thesis).
///
/// # Errors
/// As [`SectionGrid::from_profile`] and the runs;
/// [`InterleaveError::ProfileMismatch`] when this problem does not reproduce
/// the approximate profile.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, grid::Grid3, hotspot::HotSpot3D};
/// use boundgate::kernels::interleave::{pipeline::{profiles, sample}, runner::BranchSpec, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let p = profiles(&app, Version::Half, 12, Clock::DEFAULT, false).unwrap();
/// let s = sample(&app, &p, &[2, 3], Clock::DEFAULT, false).unwrap();
/// assert_eq!((s[0].grid.n(), s[1].grid.n()), (2, 3));
/// // phase 1 forks the half profile to float at its first test point
/// let first = s[0].test_points[0][0];
/// let spec = BranchSpec::single(Version::Half).fork(first.iteration, Version::Float).unwrap();
/// assert_eq!(s[0].curves[0][0].spec, spec);
/// // profiles made on another input are refused, not mixed in
/// let other = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 2).unwrap();
/// assert!(matches!(sample(&other, &p, &[2], Clock::DEFAULT, false), Err(InterleaveError::ProfileMismatch { .. })));
/// ```
pub fn sample(
    app: &HotSpot3D,
    profiles: &Profiles,
    sections: &[usize],
    clock: Clock,
    ground_truth: bool,
) -> Result<Vec<Sampling>> {
    let iterations = profiles.approx.last_iteration();
    let options = RunOptions {
        iterations,
        clock,
        ground_truth,
        limits: Vec::new(),
    };
    let grids: Vec<SectionGrid> = sections
        .iter()
        .map(|&n| SectionGrid::from_profile(&profiles.approx, n))
        .collect::<Result<_>>()?;
    let base = Curve {
        spec: BranchSpec::single(profiles.approx_version),
        profile: profiles.approx.clone(),
    };
    let mut parents: Vec<Vec<Curve>> = vec![vec![base]; grids.len()];
    let mut test_points: Vec<[Vec<TestPoint>; 3]> = vec![Default::default(); grids.len()];
    let mut curves: Vec<[Vec<Curve>; 3]> = vec![Default::default(); grids.len()];
    let next_version = [Version::Float, profiles.approx_version, Version::Float];
    for phase in 0..3 {
        // Every grid's forks, run in one pass.
        let mut wanted: BTreeMap<BranchSpec, usize> = BTreeMap::new();
        let mut per_grid: Vec<Vec<BranchSpec>> = Vec::with_capacity(grids.len());
        for (g, grid) in grids.iter().enumerate() {
            let candidate: Vec<Profile> = parents[g].iter().map(|c| c.profile.clone()).collect();
            let points = select(&candidate, grid);
            let mut specs = Vec::new();
            for (curve, at) in distinct_forks(&points) {
                let spec = parents[g][curve].spec.fork(at, next_version[phase])?;
                let len = wanted.len();
                wanted.entry(spec.clone()).or_insert(len);
                specs.push(spec);
            }
            test_points[g][phase] = points;
            per_grid.push(specs);
        }
        let mut order: Vec<(BranchSpec, usize)> = wanted.into_iter().collect();
        order.sort_by_key(|(_, k)| *k);
        let specs: Vec<BranchSpec> = order.into_iter().map(|(s, _)| s).collect();
        let lock: Lockstep = if specs.is_empty() {
            Lockstep {
                reference: profiles.exact.clone(),
                branches: Vec::new(),
            }
        } else {
            run_lockstep(app, &specs, &options)?
        };
        if phase == 0 {
            require_reproduced(&profiles.approx, &lock.branches)?;
        }
        let by_spec: BTreeMap<&BranchSpec, &super::runner::BranchRun> =
            lock.branches.iter().map(|b| (&b.spec, b)).collect();
        for g in 0..grids.len() {
            let mut made = Vec::new();
            for spec in &per_grid[g] {
                let run = by_spec[spec];
                if let Some(profile) = run.profile().filter(|p| !p.measured().is_empty()) {
                    made.push(Curve {
                        spec: spec.clone(),
                        profile,
                    });
                }
            }
            curves[g][phase] = made.clone();
            parents[g] = made;
        }
    }
    Ok(grids
        .into_iter()
        .zip(test_points)
        .zip(curves)
        .map(|((grid, test_points), curves)| Sampling {
            grid,
            test_points,
            curves,
        })
        .collect())
}

/// One schedule: its limit, simulation and execution.
#[derive(Clone, Debug, Serialize)]
pub struct Scheduled {
    /// Subsections per axis.
    pub sections: usize,
    /// The limit.
    pub limit: f64,
    /// The fraction of `L_max` it is (`None` when given as a value).
    pub fraction: Option<f64>,
    /// The simulation and its schedule.
    pub simulation: Simulation,
    /// The execution.
    pub execution: Execution,
}

/// Steps 1 to 5 on one problem for one section count, without the ground
/// truth: the profiles, the sampling, its statistics and the targets, which
/// [`simulate`] and [`refine`](super::refine::refine) start from.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D,
///     pipeline::Prepared, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let p = Prepared::new(&app, Version::Half, 12, 2, Clock::DEFAULT).unwrap();
/// assert_eq!((p.sampling.grid.n(), p.stats.grid.iterations()), (2, 12));
/// let inputs = p.refine_inputs(&app, Clock::DEFAULT, false);
/// assert_eq!(inputs.start.0, p.profiles.approx.start().accuracy_loss);
/// ```
pub struct Prepared {
    /// Step 1.
    pub profiles: Profiles,
    /// Steps 2 and 3.
    pub sampling: Sampling,
    /// Step 4.
    pub stats: Statistics,
    /// Step 5.
    pub targets: Targets,
}

impl Prepared {
    /// Runs steps 1 to 5 (`iterations` of `approx` beside `float`,
    /// `sections` x `sections` subsections).
    ///
    /// # Errors
    /// As [`profiles`], [`sample`], [`Statistics::new`], [`Targets::new`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, grid::Grid3};
    /// use boundgate::kernels::interleave::{hotspot::HotSpot3D, pipeline::Prepared, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let p = Prepared::new(&app, Version::Looperf, 12, 3, Clock::DEFAULT).unwrap();
    /// assert_eq!((p.profiles.approx_version, p.stats.approx_version), (Version::Looperf, Version::Looperf));
    /// assert_eq!((p.sampling.grid.n(), p.stats.cells.len()), (3, 9));
    /// assert_eq!(p.targets.approx_cumulative.len(), 13); // iterations 0..=12
    /// // more parts per axis than iterations: refused
    /// let err = Prepared::new(&app, Version::Half, 12, 13, Clock::DEFAULT).err().unwrap();
    /// assert!(matches!(err, InterleaveError::InvalidParameter { name, .. } if name == "sections"));
    /// ```
    pub fn new(
        app: &HotSpot3D,
        approx: Version,
        iterations: usize,
        sections: usize,
        clock: Clock,
    ) -> Result<Prepared> {
        let profiles = profiles(app, approx, iterations, clock, false)?;
        let sampling = sample(app, &profiles, &[sections], clock, false)?
            .pop()
            .expect("one sampling per section count");
        let stats = Statistics::new(&sampling.grid, &profiles.approx, &sampling.measurements())?;
        let targets = Targets::new(&profiles.approx, &profiles.exact)?;
        Ok(Prepared {
            profiles,
            sampling,
            stats,
            targets,
        })
    }

    /// The inputs of [`refine`](super::refine::refine) for `app` (the
    /// problem these steps ran on), starting from the approximate profile's
    /// row 0.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::Clock, grid::Grid3, hotspot::HotSpot3D};
    /// use boundgate::kernels::interleave::{pipeline::Prepared, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let p = Prepared::new(&app, Version::Half, 12, 2, Clock::DEFAULT).unwrap();
    /// let inputs = p.refine_inputs(&app, Clock::Wall, true);
    /// let row0 = p.profiles.approx.start();
    /// assert_eq!(inputs.start, (row0.accuracy_loss, row0.runtime_ms));
    /// assert!(std::ptr::eq(inputs.stats, &p.stats) && std::ptr::eq(inputs.app, &app));
    /// assert_eq!((inputs.clock, inputs.ground_truth), (Clock::Wall, true));
    /// ```
    pub fn refine_inputs<'a>(
        &'a self,
        app: &'a HotSpot3D,
        clock: Clock,
        ground_truth: bool,
    ) -> RefineInputs<'a> {
        let start = self.profiles.approx.start();
        RefineInputs {
            app,
            stats: &self.stats,
            targets: &self.targets,
            start: (start.accuracy_loss, start.runtime_ms),
            clock,
            ground_truth,
        }
    }
}

/// Steps 4 to 6 for one sampling and limit, then the execution.
///
/// # Errors
/// As [`Statistics::new`], [`simulate`], [`execute`];
/// [`InterleaveError::InvalidParameter`] named `sampling` when `sampling`
/// spans another number of iterations than `profiles.approx` (it was made
/// from other profiles).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, grid::Grid3, hotspot::HotSpot3D};
/// use boundgate::kernels::interleave::{pipeline::{schedule_and_execute, Prepared}, simulate::Policy, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let p = Prepared::new(&app, Version::Half, 12, 2, Clock::DEFAULT).unwrap();
/// let limit = p.profiles.approx.max_loss() / 2.0;
/// let run = |limit: f64| schedule_and_execute(&app, &p.profiles, &p.sampling, limit, Some(0.5),
///     Policy::Predictive, Clock::DEFAULT, false);
/// let s = run(limit).unwrap();
/// assert_eq!((s.sections, s.limit, s.fraction), (2, limit, Some(0.5)));
/// assert_eq!(s.execution.schedule, s.simulation.schedule); // the simulated schedule is the one executed
/// assert!(s.simulation.trace.iter().all(|t| t.loss < limit)); // predictive: below the limit, simulated
/// assert!(matches!(run(0.0), Err(InterleaveError::InvalidThreshold { .. })));
/// // a sampling of 20 iterations with the profiles of 12: refused, not mixed
/// let other = Prepared::new(&app, Version::Half, 20, 2, Clock::DEFAULT).unwrap();
/// assert!(matches!(schedule_and_execute(&app, &p.profiles, &other.sampling, limit, None,
///     Policy::Thesis, Clock::DEFAULT, false),
///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "sampling"));
/// ```
#[allow(clippy::too_many_arguments)]
pub fn schedule_and_execute(
    app: &HotSpot3D,
    profiles: &Profiles,
    sampling: &Sampling,
    limit: f64,
    fraction: Option<f64>,
    policy: Policy,
    clock: Clock,
    ground_truth: bool,
) -> Result<Scheduled> {
    require_threshold(limit)?;
    // The check `interleave schedule` makes on its files: Statistics::new
    // does not compare the grid with the profile, and a sampling of another
    // length gave a schedule of that length without a sign (found by
    // review, 2026-11-29).
    let (sampled, profiled) = (sampling.grid.iterations(), profiles.approx.last_iteration());
    if sampled != profiled {
        return Err(InterleaveError::parameter(
            "sampling",
            format!("{sampled} iterations"),
            format!(
                "the approximate profile has {profiled}: the sampling comes from other profiles"
            ),
        ));
    }
    let stats = Statistics::new(&sampling.grid, &profiles.approx, &sampling.measurements())?;
    let targets = Targets::new(&profiles.approx, &profiles.exact)?;
    let start = profiles.approx.start();
    let simulation = simulate(
        &stats,
        &targets,
        limit,
        policy,
        start.accuracy_loss,
        start.runtime_ms,
    )?;
    let execution = execute(app, &simulation.schedule, limit, clock, ground_truth)?;
    Ok(Scheduled {
        sections: sampling.grid.n(),
        limit,
        fraction,
        simulation,
        execution,
    })
}

/// What [`run_all`] runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipelineConfig {
    /// The approximate kernel (`half` or `looperf`).
    pub approx: Version,
    /// Iterations `N`.
    pub iterations: usize,
    /// Subsections per axis, one configuration each (the thesis: 2..6).
    pub sections: Vec<usize>,
    /// Limits as fractions of `L_max` (the thesis: 1/4, 2/4, 3/4).
    pub fractions: Vec<f64>,
    /// The simulation policies to compare.
    pub policies: Vec<Policy>,
    /// Where runtimes come from.
    pub clock: Clock,
    /// Whether profiles and executions run the binary64 ground truth (the
    /// sampling phases never do: they only need the loss).
    pub ground_truth: bool,
    /// Rounds of [`refine`](super::refine::refine) for every schedule whose execution exceeds its
    /// limit (0: none). Refinement executions skip the ground truth (the
    /// limit is on the loss against `float`).
    pub refine_rounds: usize,
}

/// A schedule that exceeded its limit, refined with the execution in the loop.
#[derive(Clone, Debug, Serialize)]
pub struct RefinedSchedule {
    /// Subsections per axis.
    pub sections: usize,
    /// The fraction of `L_max` the limit is.
    pub fraction: Option<f64>,
    /// The rule it was simulated under.
    pub policy: Policy,
    /// The rounds and the schedule kept (never over the limit when executed).
    pub refined: Refined,
}

/// Everything [`run_all`] produced.
#[derive(Clone, Debug, Serialize)]
pub struct PipelineReport {
    /// Step 1.
    pub profiles: Profiles,
    /// Steps 2 and 3, per subsection configuration.
    pub samplings: Vec<Sampling>,
    /// Step 4, per subsection configuration.
    pub statistics: Vec<Statistics>,
    /// Step 5.
    pub targets: Targets,
    /// Step 6 and the executions: per configuration, limit and policy.
    pub scheduled: Vec<Scheduled>,
    /// The schedules of `scheduled` that exceeded their limit, refined
    /// ([`PipelineConfig::refine_rounds`]), in the same order.
    pub refined: Vec<RefinedSchedule>,
}

/// Runs the whole pipeline: profiles, sampling for every subsection count,
/// statistics, targets, a schedule per (count, fraction, policy), and the
/// execution of every schedule (one lockstep pass for all of them).
///
/// # Errors
/// As the steps; fractions outside `(0, 1]`; `refine_rounds` above
/// [`MAX_REFINE_ROUNDS`](super::experiment::MAX_REFINE_ROUNDS), refused
/// before the profiles run (it was refused only when a schedule overshot,
/// after the whole pipeline had run, until 2026-11-29).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{clock::Clock, error::InterleaveError, grid::Grid3, hotspot::HotSpot3D};
/// use boundgate::kernels::interleave::{pipeline::{run_all, PipelineConfig}, simulate::Policy, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let mut config = PipelineConfig { approx: Version::Half, iterations: 12, sections: vec![2],
///     fractions: vec![0.25, 0.5], policies: vec![Policy::Thesis, Policy::Predictive],
///     clock: Clock::DEFAULT, ground_truth: false, refine_rounds: 3 };
/// let r = run_all(&app, &config).unwrap();
/// assert_eq!(r.scheduled.len(), 1 * 2 * 2); // sections x fractions x policies
/// // some schedules overshoot when executed: each is refined, and the refined ones never do
/// let over = r.scheduled.iter().filter(|s| !s.execution.respects_limit()).count();
/// assert!(over > 0 && r.refined.len() == over);
/// assert!(r.refined.iter().all(|s| s.refined.execution.respects_limit()));
/// config.fractions = vec![1.5];
/// assert!(matches!(run_all(&app, &config), Err(InterleaveError::InvalidParameter { name, .. }) if name == "fractions"));
/// config.fractions = vec![0.5];
/// config.refine_rounds = 65;
/// assert!(matches!(run_all(&app, &config), Err(InterleaveError::InvalidParameter { name, .. }) if name == "refine_rounds"));
/// ```
pub fn run_all(app: &HotSpot3D, config: &PipelineConfig) -> Result<PipelineReport> {
    let cap = super::experiment::MAX_REFINE_ROUNDS;
    if config.refine_rounds > cap {
        return Err(InterleaveError::parameter(
            "refine_rounds",
            config.refine_rounds,
            format!("must be 0 (no refinement) to {cap}"),
        ));
    }
    for &f in &config.fractions {
        if !(f > 0.0 && f <= 1.0) {
            return Err(InterleaveError::parameter(
                "fractions",
                f,
                "each must be in (0, 1]",
            ));
        }
    }
    let profiles = profiles(
        app,
        config.approx,
        config.iterations,
        config.clock,
        config.ground_truth,
    )?;
    let samplings = sample(app, &profiles, &config.sections, config.clock, false)?;
    let targets = Targets::new(&profiles.approx, &profiles.exact)?;
    let l_max = profiles.approx.max_loss();
    let start = profiles.approx.start();
    let mut statistics = Vec::new();
    let mut simulations = Vec::new();
    for sampling in &samplings {
        let stats = Statistics::new(&sampling.grid, &profiles.approx, &sampling.measurements())?;
        for &fraction in &config.fractions {
            let limit = l_max * fraction;
            for &policy in &config.policies {
                let sim = simulate(
                    &stats,
                    &targets,
                    limit,
                    policy,
                    start.accuracy_loss,
                    start.runtime_ms,
                )?;
                simulations.push((sampling.grid.n(), fraction, sim));
            }
        }
        statistics.push(stats);
    }
    let items: Vec<(super::schedule::Schedule, f64)> = simulations
        .iter()
        .map(|(_, _, s)| (s.schedule.clone(), s.limit))
        .collect();
    let executions = super::execute::execute_many(app, &items, config.clock, config.ground_truth)?;
    let scheduled: Vec<Scheduled> = simulations
        .into_iter()
        .zip(executions)
        .map(|((sections, fraction, simulation), execution)| Scheduled {
            sections,
            limit: simulation.limit,
            fraction: Some(fraction),
            simulation,
            execution,
        })
        .collect();
    let mut refined = Vec::new();
    if config.refine_rounds > 0 {
        for s in scheduled.iter().filter(|s| !s.execution.respects_limit()) {
            let Some(stats) = statistics.iter().find(|st| st.grid.n() == s.sections) else {
                continue;
            };
            let inputs = RefineInputs {
                app,
                stats,
                targets: &targets,
                start: (start.accuracy_loss, start.runtime_ms),
                clock: config.clock,
                ground_truth: false,
            };
            // Round 1 is the run just made: refinement starts from it.
            let first = (s.simulation.clone(), s.execution.clone());
            refined.push(RefinedSchedule {
                sections: s.sections,
                fraction: s.fraction,
                policy: s.simulation.policy,
                refined: refine_from(
                    &inputs,
                    s.limit,
                    s.simulation.policy,
                    config.refine_rounds,
                    Some(first),
                )?,
            });
        }
    }
    Ok(PipelineReport {
        profiles,
        samplings,
        statistics,
        targets,
        scheduled,
        refined,
    })
}
