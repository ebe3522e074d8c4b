//! `boundgate interleave`: the thesis's pipeline from the command line.
//!
//! ```text
//! boundgate interleave profile  --grid 512x512x8 --iterations 500 --approx half --out DIR
//! boundgate interleave sample   --approx-profile DIR/approx.csv --sections 2 --out DIR/s2
//! boundgate interleave schedule --approx-profile DIR/approx.csv --exact-profile DIR/exact.csv \
//!                               --measurements DIR/s2 --fraction 0.25 --out DIR/s2/schedule.txt
//! boundgate interleave execute  --schedule DIR/s2/schedule.txt --threshold 0.011 --trace DIR/s2/trace.csv
//! boundgate interleave refine   --approx-profile DIR/approx.csv --exact-profile DIR/exact.csv \
//!                               --measurements DIR/s2 --fraction 0.25 --out DIR/s2/verified.txt
//! boundgate interleave report   --grid 512x512x8 --iterations 500 --markdown out/interleave.md
//! ```
//!
//! `profile`, `sample` and `execute` run the application (HotSpot3D on the
//! synthetic inputs of `--seed`, or on `--temp`/`--power` files: `.npy`
//! matrices of `(layers * rows) x cols` (or 1-D arrays in index order), or
//! Rodinia's text files); `schedule` only reads files (steps 4 to 6 are
//! pure). `execute` exits with 1 when the executed loss exceeds the limit at
//! some iteration, 0 when it never does.
//! `refine` runs steps 4 to 6 with the execution in the loop ([`refine`]):
//! its schedule's executed loss never exceeds the limit on the given input.

use super::clock::Clock;
use super::error::{InterleaveError, require_threshold};
use super::execute::{Verdict, execute as execute_schedule, speedup_text};
use super::grid::Grid3;
use super::hotspot::{HotSpot3D, read_rodinia_text};
use super::pipeline::{Curve, Profiles, Sampling, profiles, sample};
use super::profile::Profile;
use super::refine::{Fallback, RefineInputs, refine};
use super::schedule::Schedule;
use super::sections::SectionGrid;
use super::simulate::{Policy, SimulatedStep, simulate};
use super::stats::{
    ProfileRole, Statistics, Targets, check_measurement, check_step1_profile, check_step1_profiles,
};
use super::version::Version;
use crate::error::{Error, ExitCode, Result};
use clap::{Args, Subcommand};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `boundgate interleave`.
#[derive(Debug, Args)]
pub struct InterleaveArgs {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Step 1: accuracy-loss profiles of the approximate and exact kernels (CSV).
    Profile(ProfileArgs),
    /// Steps 2-3: subsections and the three forking phases (sections CSV, measurement CSVs).
    Sample(SampleArgs),
    /// Steps 4-6: statistics, targets, simulation, schedule file (reads files only).
    Schedule(ScheduleArgs),
    /// Steps 4-6 with the execution in the loop: re-simulate under a tightened
    /// limit until the executed schedule stays within the limit (float only if none does).
    Refine(RefineArgs),
    /// Run a schedule and check the executed loss against the limit at every iteration.
    Execute(ExecuteArgs),
    /// Everything, for L_max x {1,2,3}/4, as a Markdown report with SVG charts.
    Report(ReportArgs),
}

/// The problem: grid, inputs, clock.
#[derive(Debug, Args)]
struct Problem {
    /// Grid NXxNYxNZ (Rodinia: 512x512x8).
    #[arg(long, default_value = "512x512x8")]
    grid: String,
    /// Seed of the synthetic inputs (ignored with --temp/--power).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Initial temperatures: .npy ((layers*rows) x cols) or a Rodinia text file.
    #[arg(long, requires = "power")]
    temp: Option<PathBuf>,
    /// Powers: .npy or a Rodinia text file.
    #[arg(long, requires = "temp")]
    power: Option<PathBuf>,
    /// Runtimes: `model` (the thesis's A100 cost model) or `wall` (this CPU).
    #[arg(long, default_value = "model")]
    clock: String,
    /// Skip the binary64 ground truth (faster; drops the extra CSV columns).
    #[arg(long)]
    no_ground_truth: bool,
}

impl Problem {
    fn app(&self) -> Result<HotSpot3D> {
        let grid: Grid3 = self.grid.parse()?;
        match (&self.temp, &self.power) {
            (Some(t), Some(p)) => Ok(HotSpot3D::new(
                grid,
                read_values(t, grid)?,
                read_values(p, grid)?,
            )?),
            _ => Ok(HotSpot3D::synthetic(grid, self.seed)?),
        }
    }
    fn clock(&self) -> Result<Clock> {
        Clock::by_name(&self.clock)
            .ok_or_else(|| Error::usage(format!("--clock {}: expected model or wall", self.clock)))
    }
}

/// The values of one input file for `grid`, in index order `x + y nx + z nx ny`.
///
/// A `.npy` file is a `(layers * rows) x cols` matrix, as `run hotspot3d`
/// reads it: its shape must be `(nz ny, nx)` exactly, since a transposed or
/// reshaped array of the right size would be read in the wrong layout without
/// a sign. A 1-D array of `nx ny nz` values is also accepted, read in index
/// order: it has no second axis to get wrong. Any other file is a Rodinia text
/// file ([`read_rodinia_text`], which refuses too few or too many values).
fn read_values(path: &Path, grid: Grid3) -> Result<Vec<f64>> {
    if path.extension().is_some_and(|e| e == "npy") {
        let t = crate::io::read_npy(path)?;
        let matrix = (grid.nz() * grid.ny(), grid.nx());
        let fits = match *t.shape() {
            [rows, cols] => (rows, cols) == matrix,
            [len] => len == grid.cells(),
            _ => false,
        };
        if !fits {
            return Err(Error::Npy {
                path: path.to_path_buf(),
                reason: format!(
                    "shape {:?}: the grid {grid} needs a (layers*rows, cols) = ({}, {}) matrix (or {} values in index order)",
                    t.shape(),
                    matrix.0,
                    matrix.1,
                    grid.cells()
                ),
            });
        }
        Ok(t.into_data())
    } else {
        Ok(read_rodinia_text(path, grid)?)
    }
}

#[derive(Debug, Args)]
struct ProfileArgs {
    #[command(flatten)]
    problem: Problem,
    /// Iterations.
    #[arg(long, default_value_t = 500)]
    iterations: usize,
    /// The approximate kernel: half or looperf.
    #[arg(long, default_value = "half")]
    approx: String,
    /// Output folder (approx.csv, exact.csv).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Args)]
struct SampleArgs {
    #[command(flatten)]
    problem: Problem,
    /// The approximate profile (step 1).
    #[arg(long)]
    approx_profile: PathBuf,
    /// The exact profile (step 1; only its runtimes are used, for the phases' bookkeeping).
    #[arg(long)]
    exact_profile: Option<PathBuf>,
    /// Subsections per axis.
    #[arg(long, default_value_t = 2)]
    sections: usize,
    /// Output folder (sections.csv, test points, phase*.csv).
    #[arg(long)]
    out: PathBuf,
}

// One limit, given one way: clap's group puts `<--threshold|--fraction>`
// in the usage line and refuses neither or both (until 2026-11-29 the help
// did not say that one is required; only `limit_of` did, at run time).
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["threshold", "fraction"])))]
struct ScheduleArgs {
    /// The approximate profile (step 1).
    #[arg(long)]
    approx_profile: PathBuf,
    /// The exact profile (step 1).
    #[arg(long)]
    exact_profile: PathBuf,
    /// The folder written by `sample` (sections.csv and phase*.csv).
    #[arg(long)]
    measurements: PathBuf,
    /// The limit as a ratio (0.011 = 1.1 %).
    #[arg(long)]
    threshold: Option<f64>,
    /// The limit as a fraction of L_max (the thesis: 0.25, 0.5, 0.75).
    #[arg(long)]
    fraction: Option<f64>,
    /// Switching rule: thesis or predictive.
    #[arg(long, default_value = "thesis")]
    policy: String,
    /// The schedule file to write.
    #[arg(long)]
    out: PathBuf,
    /// Also write the simulated trajectory (CSV).
    #[arg(long)]
    trace: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct RefineArgs {
    #[command(flatten)]
    problem: Problem,
    #[command(flatten)]
    schedule: ScheduleArgs,
    /// Simulate-and-execute rounds before falling back to float only.
    #[arg(long, default_value_t = 8)]
    max_rounds: usize,
}

#[derive(Debug, Args)]
struct ExecuteArgs {
    #[command(flatten)]
    problem: Problem,
    /// The schedule file.
    #[arg(long)]
    schedule: PathBuf,
    /// The limit (ratio).
    #[arg(long)]
    threshold: f64,
    /// A simulated trajectory to show beside the executed one.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write the executed profile (CSV) here.
    #[arg(long)]
    profile_out: Option<PathBuf>,
    /// Print every iteration, not only those over the limit and the switches.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// Grid.
    #[arg(long, default_value = "512x512x8")]
    grid: String,
    /// Iterations.
    #[arg(long, default_value_t = 500)]
    iterations: usize,
    /// The approximate kernel.
    #[arg(long, default_value = "half")]
    approx: String,
    /// Subsections per axis (comma-separated).
    #[arg(long, default_value = "2,3,4,5,6")]
    sections: String,
    /// Limits as fractions of L_max (comma-separated).
    #[arg(long, default_value = "0.25,0.5,0.75")]
    fractions: String,
    /// Policies (comma-separated).
    #[arg(long, default_value = "thesis,predictive")]
    policies: String,
    /// Seed of the synthetic inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The Markdown report (charts beside it).
    #[arg(long)]
    markdown: PathBuf,
}

/// Runs `boundgate interleave`.
///
/// # Errors
/// Bad arguments or input files ([`Error`]); an exceeded limit is not an
/// error but [`ExitCode::Violation`] (from `execute`).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{cli::{InterleaveArgs, execute}, schedule::Schedule,
///     version::Version};
/// use boundgate::{Error, ExitCode};
/// use clap::{Args, FromArgMatches};
/// let path = std::env::temp_dir().join(format!("boundgate-doc-cli-{}.txt", std::process::id()));
/// Schedule::new(10, vec![(0, Version::Half), (5, Version::Float)]).unwrap().write(&path).unwrap();
/// let run = |threshold: &str| {
///     let argv = ["interleave", "execute", "--grid", "8x8x2", "--no-ground-truth",
///                 "--schedule", path.to_str().unwrap(), "--threshold", threshold];
///     let m = InterleaveArgs::augment_args(clap::Command::new("interleave")).get_matches_from(argv);
///     execute(InterleaveArgs::from_arg_matches(&m).unwrap())
/// };
/// assert_eq!(run("0.5").unwrap(), ExitCode::Ok);
/// assert_eq!(run("1e-9").unwrap(), ExitCode::Violation); // binary16 rounding alone exceeds it
/// assert!(matches!(run("0"), Err(Error::Usage(_)))); // not a positive limit
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn execute(args: InterleaveArgs) -> Result<ExitCode> {
    match args.command {
        Command::Profile(a) => run_profile(a),
        Command::Sample(a) => run_sample(a),
        Command::Schedule(a) => run_schedule(a),
        Command::Refine(a) => run_refine(a),
        Command::Execute(a) => run_execute(a),
        Command::Report(a) => run_report(a),
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn approx_version(name: &str) -> Result<Version> {
    let v = Version::schedulable(name)?;
    if !Version::APPROXIMATE.contains(&v) {
        return Err(Error::usage(format!(
            "--approx {name}: expected half or looperf"
        )));
    }
    Ok(v)
}

fn run_profile(a: ProfileArgs) -> Result<ExitCode> {
    let app = a.problem.app()?;
    let p = profiles(
        &app,
        approx_version(&a.approx)?,
        a.iterations,
        a.problem.clock()?,
        !a.problem.no_ground_truth,
    )?;
    create_dir(&a.out)?;
    p.approx.write(&a.out.join("approx.csv"))?;
    p.exact.write(&a.out.join("exact.csv"))?;
    let last = p.approx.rows()[p.approx.rows().len() - 1];
    println!(
        "{} on {}, {} iterations: final loss {:.6e}, max loss {:.6e}; wrote {}/approx.csv and exact.csv",
        p.approx_version,
        app.grid(),
        a.iterations,
        last.accuracy_loss,
        p.approx.max_loss(),
        a.out.display()
    );
    Ok(ExitCode::Ok)
}

/// File name of a curve: its switch points.
fn curve_name(c: &Curve) -> String {
    c.spec
        .switches()
        .iter()
        .map(|(t, v)| format!("{t}-{v}"))
        .collect::<Vec<_>>()
        .join("_")
}

fn run_sample(a: SampleArgs) -> Result<ExitCode> {
    let app = a.problem.app()?;
    let approx = Profile::read(&a.approx_profile)?;
    let exact = match &a.exact_profile {
        Some(p) => Profile::read(p)?,
        None => approx.clone(),
    };
    // The checks `schedule` makes, made before the sampling runs rather than
    // after (a profile that `schedule` would refuse is not worth sampling).
    let version = match &a.exact_profile {
        Some(path) => check_step1_profiles((&approx, &a.approx_profile), (&exact, path))?,
        None => check_step1_profile(&approx, ProfileRole::Approximate, &a.approx_profile)?,
    };
    let given = Profiles {
        approx_version: version,
        approx,
        exact,
    };
    let mut samplings: Vec<Sampling> = sample(
        &app,
        &given,
        &[a.sections],
        a.problem.clock()?,
        !a.problem.no_ground_truth,
    )
    .map_err(|e| match e {
        InterleaveError::ProfileMismatch { .. } => {
            InterleaveError::file(&a.approx_profile, None, "accuracy_loss", e.to_string())
        }
        other => other,
    })?;
    let s = samplings.pop().expect("one configuration");
    create_dir(&a.out)?;
    write(&a.out.join("sections.csv"), &s.grid.to_csv())?;
    for (phase, curves) in s.curves.iter().enumerate() {
        // The thesis's test-point files: one line per fork, its switch iterations.
        let mut points = String::new();
        for c in curves {
            let its: Vec<String> = c.spec.switches()[1..]
                .iter()
                .map(|(t, _)| t.to_string())
                .collect();
            let _ = writeln!(points, "{}", its.join(" "));
            c.profile.write(
                &a.out
                    .join(format!("phase{}_{}.csv", phase + 1, curve_name(c))),
            )?;
        }
        write(
            &a.out.join(format!("testpoints-phase{}.txt", phase + 1)),
            &points,
        )?;
    }
    println!(
        "{0}x{0} subsections over {1} iterations and loss {2:.6e}: {3} + {4} + {5} measurements in {6}",
        s.grid.n(),
        s.grid.iterations(),
        s.grid.max_loss(),
        s.curves[0].len(),
        s.curves[1].len(),
        s.curves[2].len(),
        a.out.display()
    );
    Ok(ExitCode::Ok)
}

/// The sections file of a `sample` folder and its measurements, each with its file.
fn read_measurements(dir: &Path) -> Result<(SectionGrid, Vec<(PathBuf, Profile)>)> {
    let sections = dir.join("sections.csv");
    let text = std::fs::read_to_string(&sections).map_err(|source| Error::Io {
        path: sections.clone(),
        source,
    })?;
    let grid = SectionGrid::parse(&text, &sections)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "csv")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("phase"))
        })
        .collect();
    files.sort();
    let profiles = files
        .into_iter()
        .map(|f| {
            let p = Profile::read(&f)?;
            check_measurement_name(&f, &p)?;
            Ok((f, p))
        })
        .collect::<std::result::Result<Vec<_>, InterleaveError>>()?;
    Ok((grid, profiles))
}

/// A measurement's file name, `phaseP_T-VERSION[_T-VERSION ...].csv` as
/// `sample` writes it, names its last switch: the iteration the measurement
/// starts from and the kernel it then runs. A file named for another fork,
/// or not named so at all, was read and counted (a copy named for a fork at
/// iteration 99 of a 60-iteration run moved the simulated loss; review,
/// 2026-11-26).
fn check_measurement_name(
    path: &Path,
    profile: &Profile,
) -> std::result::Result<(), InterleaveError> {
    let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    let refuse = |why: String| InterleaveError::file(path, None, "name", why);
    let switches = name
        .strip_prefix("phase")
        .and_then(|rest| rest.split_once('_'))
        .filter(|(phase, _)| ["1", "2", "3"].contains(phase))
        .map(|(_, switches)| {
            switches
                .split('_')
                .map(|s| {
                    let (t, v) = s.split_once('-')?;
                    Some((t.parse::<usize>().ok()?, v.parse::<Version>().ok()?))
                })
                .collect::<Option<Vec<_>>>()
        });
    let Some(Some(switches)) = switches else {
        return Err(refuse(
            "expected phaseP_T-VERSION[_T-VERSION ...].csv (P 1 to 3), as `sample` writes it"
                .into(),
        ));
    };
    let Some(&(start, version)) = switches.last() else {
        return Err(refuse("no switch in the name".into()));
    };
    let first = profile.first_iteration();
    let runs = profile.measured().first().map(|r| r.kernel);
    if start != first || runs.is_some_and(|k| k != version) {
        return Err(refuse(format!(
            "the name says it starts at iteration {start} running {version}; the file starts at \
             iteration {first}{}",
            runs.map_or(String::new(), |k| format!(" running {k}"))
        )));
    }
    Ok(())
}

fn trace_csv(trace: &[SimulatedStep]) -> String {
    let mut out = String::from("iteration,kernel,loss,runtime,cell,source_cell\n");
    for t in trace {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            t.iteration, t.version, t.loss, t.runtime_ms, t.cell, t.source_cell
        );
    }
    out
}

/// Parses a trace written by `schedule --trace`: iterations from 0, finite losses.
fn parse_trace(text: &str, path: &Path) -> std::result::Result<Vec<f64>, InterleaveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    match lines.next() {
        Some((_, h)) if h.trim() == "iteration,kernel,loss,runtime,cell,source_cell" => {}
        _ => {
            return Err(InterleaveError::file(
                path,
                Some(1),
                "header",
                "expected iteration,kernel,loss,runtime,cell,source_cell",
            ));
        }
    }
    let mut losses = Vec::new();
    for (k, line) in lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad =
            |field: &str, reason: String| InterleaveError::file(path, Some(k + 1), field, reason);
        if f.len() != 6 {
            return Err(bad("row", format!("{} fields, expected 6", f.len())));
        }
        if f[0].parse::<usize>().ok() != Some(losses.len()) {
            return Err(bad(
                "iteration",
                format!("`{}` where {} was expected", f[0], losses.len()),
            ));
        }
        let loss = f[2]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                bad(
                    "loss",
                    format!("`{}` is not a finite non-negative number", f[2]),
                )
            })?;
        losses.push(loss);
    }
    Ok(losses)
}

fn limit_of(threshold: Option<f64>, fraction: Option<f64>, l_max: f64) -> Result<f64> {
    match (threshold, fraction) {
        (Some(t), None) => Ok(require_threshold(t)?),
        (None, Some(f)) if f > 0.0 && f <= 1.0 => Ok(require_threshold(f * l_max)?),
        (None, Some(f)) => Err(Error::usage(format!(
            "--fraction {f}: expected a fraction in (0, 1]"
        ))),
        _ => Err(Error::usage("give --threshold or --fraction")),
    }
}

/// Steps 4 and 5 from the files `schedule` and `refine` read.
struct ScheduleInputs {
    approx: Profile,
    stats: Statistics,
    targets: Targets,
    limit: f64,
    policy: Policy,
}

fn schedule_inputs(a: &ScheduleArgs) -> Result<ScheduleInputs> {
    let approx = Profile::read(&a.approx_profile)?;
    let exact = Profile::read(&a.exact_profile)?;
    // Checked here with the files' names; Statistics::new and Targets::new
    // check the same rules again with labels only.
    let approx_version =
        check_step1_profiles((&approx, &a.approx_profile), (&exact, &a.exact_profile))?;
    let (grid, measurements) = read_measurements(&a.measurements)?;
    for (path, m) in &measurements {
        check_measurement(m, approx_version, path)?;
    }
    let measurements: Vec<Profile> = measurements.into_iter().map(|(_, m)| m).collect();
    if grid.iterations() != approx.last_iteration() {
        return Err(InterleaveError::file(
            a.measurements.join("sections.csv"),
            Some(1),
            "iterations",
            format!(
                "{} iterations, the approximate profile has {}",
                grid.iterations(),
                approx.last_iteration()
            ),
        )
        .into());
    }
    let limit = limit_of(a.threshold, a.fraction, approx.max_loss())?;
    let policy: Policy = a.policy.parse()?;
    let stats = Statistics::new(&grid, &approx, &measurements)?;
    let targets = Targets::new(&approx, &exact)?;
    Ok(ScheduleInputs {
        approx,
        stats,
        targets,
        limit,
        policy,
    })
}

/// Writes the schedule, the statistics and targets beside it, and the trace.
fn write_schedule(
    a: &ScheduleArgs,
    inputs: &ScheduleInputs,
    schedule: &Schedule,
    trace: Option<&[SimulatedStep]>,
) -> Result<()> {
    schedule.write(&a.out)?;
    let dir = a.out.parent().unwrap_or(Path::new("."));
    write(&dir.join("statistics.csv"), &inputs.stats.to_csv())?;
    write(&dir.join("targets.csv"), &inputs.targets.to_csv())?;
    if let (Some(path), Some(trace)) = (&a.trace, trace) {
        write(path, &trace_csv(trace))?;
    }
    Ok(())
}

fn run_schedule(a: ScheduleArgs) -> Result<ExitCode> {
    let inputs = schedule_inputs(&a)?;
    let (limit, policy, stats) = (inputs.limit, inputs.policy, &inputs.stats);
    let start = inputs.approx.start();
    let sim = simulate(
        stats,
        &inputs.targets,
        limit,
        policy,
        start.accuracy_loss,
        start.runtime_ms,
    )?;
    write_schedule(&a, &inputs, &sim.schedule, Some(&sim.trace))?;
    println!(
        "limit {limit:.6e} ({} policy): {} switches, {} {} iterations of {}; simulated max loss {:.6e}; wrote {}",
        policy.name(),
        sim.schedule.switches().len() - 1,
        sim.schedule.count(stats.approx_version),
        stats.approx_version,
        stats.grid.iterations(),
        sim.trace.iter().map(|t| t.loss).fold(0.0, f64::max),
        a.out.display()
    );
    Ok(ExitCode::Ok)
}

fn run_refine(a: RefineArgs) -> Result<ExitCode> {
    let inputs = schedule_inputs(&a.schedule)?;
    let app = a.problem.app()?;
    let start = inputs.approx.start();
    let refine_inputs = RefineInputs {
        app: &app,
        stats: &inputs.stats,
        targets: &inputs.targets,
        start: (start.accuracy_loss, start.runtime_ms),
        clock: a.problem.clock()?,
        ground_truth: !a.problem.no_ground_truth,
    };
    let r = refine(&refine_inputs, inputs.limit, inputs.policy, a.max_rounds)?;
    let trace = r.simulation.as_ref().map(|s| s.trace.as_slice());
    write_schedule(&a.schedule, &inputs, r.schedule(), trace)?;
    println!(
        "round  simulated limit  {:>8} iterations  executed max loss  speedup  within",
        inputs.stats.approx_version
    );
    for (k, round) in r.rounds.iter().enumerate() {
        println!(
            "{:>5}  {:>15.6e}  {:>19}  {:>17.6e}  {:>7}  {}",
            k + 1,
            round.simulated_limit,
            round.approximate_iterations,
            round.executed_max_loss,
            speedup_text(round.speedup),
            if round.within { "yes" } else { "no" }
        );
    }
    println!(
        "limit {:.6e} ({} policy, refined): {} {} iterations of {}, {}, speedup {} ({}){}; wrote {}",
        r.limit,
        inputs.policy.name(),
        r.schedule().count(inputs.stats.approx_version),
        inputs.stats.approx_version,
        inputs.stats.grid.iterations(),
        // Said from the execution, not assumed (the float-only fallback has
        // loss 0, but the line should not depend on that).
        if r.execution.respects_limit() {
            "executed within the limit"
        } else {
            "EXECUTED BEYOND THE LIMIT"
        },
        speedup_text(r.execution.speedup),
        r.execution.clock,
        match r.fallback {
            None => String::new(),
            Some(Fallback::NoRoundWithin) => format!(
                "; no round stayed within it in {} rounds: float only",
                a.max_rounds
            ),
            Some(Fallback::SlowerThanFloat) =>
                "; the schedule within it was slower than float alone: float only".to_string(),
        },
        a.schedule.out.display()
    );
    // As `interleave execute`: a schedule over its limit exits 1.
    Ok(if r.execution.respects_limit() {
        ExitCode::Ok
    } else {
        ExitCode::Violation
    })
}

fn run_execute(a: ExecuteArgs) -> Result<ExitCode> {
    let schedule = Schedule::read(&a.schedule)?;
    require_threshold(a.threshold)?;
    let simulated = match &a.trace {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| Error::Io {
                path: p.clone(),
                source,
            })?;
            Some(parse_trace(&text, p)?)
        }
        None => None,
    };
    let app = a.problem.app()?;
    let e = execute_schedule(
        &app,
        &schedule,
        a.threshold,
        a.problem.clock()?,
        !a.problem.no_ground_truth,
    )?;
    if let Some(p) = &a.profile_out
        && let Some(profile) = e.run.path_profile()
    {
        profile.write(p)?;
    }
    println!(
        "iteration  kernel   simulated      executed [lower, upper]                      over"
    );
    let switches: Vec<usize> = schedule.switches().iter().map(|s| s.0).collect();
    for r in e.side_by_side(None) {
        let sim = simulated.as_ref().and_then(|s| s.get(r.iteration)).copied();
        let show = a.all
            || r.over
            || switches.contains(&r.iteration)
            || r.iteration == schedule.iterations();
        if show {
            println!(
                "{:>9}  {:<7}  {:<13}  {:.6e} [{:.6e}, {:.6e}]  {}",
                r.iteration,
                r.version.name(),
                sim.map_or("-".into(), |v| format!("{v:.6e}")),
                r.executed,
                r.lower,
                r.upper,
                if r.over { "OVER" } else { "" }
            );
        }
    }
    println!(
        "conversions: {}; runtime {:.6} ms vs float {:.6} ms: speedup {} ({})",
        e.conversions().len(),
        e.runtime_ms,
        e.exact_runtime_ms,
        speedup_text(e.speedup),
        e.clock
    );
    Ok(match &e.verdict {
        Verdict::WithinLimit => {
            println!(
                "verdict: the executed loss never exceeds {:.6e}",
                a.threshold
            );
            ExitCode::Ok
        }
        Verdict::Exceeded {
            iterations,
            max_loss,
        } => {
            println!(
                "verdict: EXCEEDED at {} iterations: {:?} (max loss {max_loss:.6e})",
                iterations.len(),
                iterations
            );
            ExitCode::Violation
        }
        Verdict::Ended { ending, over_limit } => {
            println!("verdict: the run ended early: {ending}");
            if !over_limit.is_empty() {
                println!(
                    "  before that, over the limit at {} iterations: {over_limit:?}",
                    over_limit.len()
                );
            }
            ExitCode::Violation
        }
    })
}

/// The audit plan `report` runs, built as TOML values rather than pasted
/// text, so that a command-line value is always one value: a grid such as
/// `4x4x2", approx = "looperf` is a (refused) grid, not a second key (it
/// changed the plan silently until 2026-11-25; review). The experiment
/// checks every value when the plan is read.
fn report_plan(a: &ReportArgs) -> Result<String> {
    use toml::{Table, Value};
    fn list<T: std::str::FromStr>(flag: &str, text: &str, what: &str) -> Result<Vec<T>> {
        text.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| {
                x.parse::<T>()
                    .map_err(|_| Error::usage(format!("{flag} {text}: `{x}` is not {what}")))
            })
            .collect()
    }
    let integer = |flag: &str, value: u64| {
        i64::try_from(value)
            .map(Value::Integer)
            .map_err(|_| Error::usage(format!("{flag} {value}: above {}", i64::MAX)))
    };
    let sections = list::<u64>("--sections", &a.sections, "a count")?
        .into_iter()
        .map(|n| integer("--sections", n))
        .collect::<Result<Vec<_>>>()?;
    let fractions = list::<f64>("--fractions", &a.fractions, "a number")?
        .into_iter()
        .map(Value::Float)
        .collect();
    let policies = list::<String>("--policies", &a.policies, "a name")?
        .into_iter()
        .map(Value::String)
        .collect();
    let mut params = Table::new();
    params.insert("grid".into(), Value::String(a.grid.clone()));
    params.insert(
        "iterations".into(),
        integer("--iterations", a.iterations as u64)?,
    );
    params.insert("approx".into(), Value::String(a.approx.clone()));
    params.insert("sections".into(), Value::Array(sections));
    params.insert("fractions".into(), Value::Array(fractions));
    params.insert("policies".into(), Value::Array(policies));
    let mut experiment = Table::new();
    experiment.insert("name".into(), Value::String("interleave-hotspot3d".into()));
    experiment.insert("params".into(), Value::Table(params));
    let mut seeds = Table::new();
    seeds.insert("first".into(), integer("--seed", a.seed)?);
    seeds.insert("count".into(), Value::Integer(1));
    let mut plan = Table::new();
    plan.insert("name".into(), Value::String("interleave-report".into()));
    plan.insert(
        "description".into(),
        Value::String("boundgate interleave report".into()),
    );
    plan.insert("seeds".into(), Value::Table(seeds));
    plan.insert(
        "experiment".into(),
        Value::Array(vec![Value::Table(experiment)]),
    );
    toml::to_string(&plan).map_err(|e| {
        Error::usage(format!(
            "interleave report: the plan cannot be written: {e}"
        ))
    })
}

fn run_report(a: ReportArgs) -> Result<ExitCode> {
    let toml = report_plan(&a)?;
    let plan = crate::audit::Plan::from_toml(&toml, Path::new("<interleave report>"))?;
    let report = crate::audit::run_plan(&plan, crate::audit::RunOptions::default())?;
    report.write_markdown(&a.markdown)?;
    for e in &report.experiments {
        for f in &e.report.findings {
            println!("- {f}");
        }
    }
    println!("wrote {}", a.markdown.display());
    Ok(report.exit_code())
}
