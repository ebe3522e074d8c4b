//! `boundgate audit`: run a plan (or one shard of it), show progress, end
//! with a summary table; `boundgate merge`: combine the shards' reports.

use crate::audit::{AuditReport, Plan, RunOptions, Shard, html, junit, merge, run_plan};
use crate::error::{Error, ExitCode, Result};
use crate::io::read_text;
use crate::kernels::registry;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Where to write the report, in which forms.
#[derive(Debug, Args)]
pub struct ReportOutputs {
    /// Write the JSON report here (schema boundgate.audit/2).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a Markdown report here (charts as SVG files beside it).
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Write a self-contained HTML report here (inline SVG charts; opens offline).
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write JUnit XML here (one test case per cell; failures = rigorous-bound violations).
    #[arg(long)]
    junit: Option<PathBuf>,
}

/// How the exit code is decided.
#[derive(Debug, Args)]
pub struct Gate {
    /// Exit 3 when no rigorous bound was violated but some rigorous verdict
    /// is not a pass (a hypothesis failed, an exact result is not finite, or
    /// an enclosure oracle left the verdict undecided).
    #[arg(long)]
    strict: bool,
}

impl ReportOutputs {
    /// Refuses, before anything runs, an output path that cannot be written:
    /// a directory, or one whose folder does not exist. They were found only
    /// after the whole run, whose violation (exit 1) the write error (exit 2)
    /// then hid (review, 2026-11-25).
    fn check_paths(&self) -> Result<()> {
        let paths = [&self.json, &self.markdown, &self.html, &self.junit];
        for path in paths.into_iter().flatten() {
            let problem = if path.is_dir() {
                Some("is a directory")
            } else {
                match path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    Some(parent) if !parent.is_dir() => Some("its folder does not exist"),
                    _ => None,
                }
            };
            if let Some(problem) = problem {
                return Err(Error::Io {
                    path: path.clone(),
                    source: std::io::Error::other(format!("cannot write a report here: {problem}")),
                });
            }
        }
        Ok(())
    }

    fn write(&self, report: &AuditReport) -> Result<()> {
        let write = |path: &PathBuf, text: String| {
            std::fs::write(path, text).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })
        };
        if let Some(path) = &self.json {
            write(path, report.to_json())?;
        }
        if let Some(path) = &self.markdown {
            report.write_markdown(path)?;
        }
        if let Some(path) = &self.html {
            write(path, html::to_html(report)?)?;
        }
        if let Some(path) = &self.junit {
            write(path, junit::to_junit(report))?;
        }
        Ok(())
    }
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Plan file (TOML); default: the built-in plans/default.toml.
    #[arg(long)]
    plan: Option<PathBuf>,
    /// Run only shard I of N (1-based: units u with u mod N = I - 1), e.g.
    /// `--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`; combine the
    /// shards' JSON reports with `boundgate merge`.
    #[arg(long)]
    shard: Option<Shard>,
    #[command(flatten)]
    outputs: ReportOutputs,
    #[command(flatten)]
    gate: Gate,
    /// Never draw a progress bar.
    #[arg(long)]
    quiet: bool,
    /// List the kernels and experiments a plan can name, and exit.
    #[arg(long)]
    list: bool,
}

/// Runs `boundgate audit` (or lists what a plan can name): the plan (or one
/// shard of it), its reports written and its summary printed; the exit code
/// is the report's ([`AuditReport::strict_exit_code`] with `--strict`).
///
/// # Example
/// ```standalone_crate
/// // `execute` is private to the CLI: the command runs through
/// // `boundgate::cli::main` in a child process (this test, run again).
/// if std::env::var_os("BOUNDGATE_DOCTEST_CHILD").is_some() {
///     std::process::exit(boundgate::cli::main());
/// }
/// let boundgate = |args: &[&str]| std::process::Command::new(std::env::current_exe().unwrap())
///     .args(args).env("BOUNDGATE_DOCTEST_CHILD", "1").output().unwrap();
/// let dir = std::env::temp_dir().join(format!("boundgate-doc-audit-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = |name: &str| dir.join(name).display().to_string();
/// // fp16 products of numbers near 2^8 reach 2^16 > 65504: no rigorous bound (possible overflow)
/// std::fs::write(f("p.toml"), "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [16], params = { format = [\"fp16\"] }, distributions = [{ kind = \"scaled-significand\", exp_min = 8, exp_max = 8 }] }]").unwrap();
/// let lenient = boundgate(&["audit", "--plan", &f("p.toml"), "--json", &f("r.json")]).status.code();
/// let strict = boundgate(&["audit", "--plan", &f("p.toml"), "--strict"]).status.code();
/// let report = std::fs::read_to_string(f("r.json")).unwrap();
/// let nowhere = boundgate(&["audit", "--plan", &f("p.toml"), "--json", &f("no/r.json")]).status.code();
/// std::fs::remove_dir_all(&dir).unwrap();
/// // no violation: exit 0, but 3 with --strict (both trials unjudged)
/// assert_eq!((lenient, strict), (Some(0), Some(3)));
/// assert!(report.contains("\"hypothesis_not_met\": 2"));
/// assert_eq!(nowhere, Some(2)); // an unwritable output is refused before the run
/// ```
pub fn execute(args: AuditArgs) -> Result<ExitCode> {
    if args.list {
        println!("kernels (for [[campaign]] kernel = ...):");
        for k in registry::all() {
            println!("  {}: {}", k.name(), k.summary());
        }
        println!("experiments (for [[experiment]] name = ...):");
        for e in registry::experiments() {
            println!("  {}: {}", e.name(), e.summary());
        }
        return Ok(ExitCode::Ok);
    }
    let plan = match &args.plan {
        Some(path) => Plan::from_file(path)?,
        None => Plan::default_plan()?,
    };
    args.outputs.check_paths()?;
    let progress = !args.quiet && std::io::stderr().is_terminal();
    let report = run_plan(
        &plan,
        RunOptions {
            progress,
            shard: args.shard,
        },
    )?;
    finish(&report, &args.outputs, &args.gate)
}

fn finish(report: &AuditReport, outputs: &ReportOutputs, gate: &Gate) -> Result<ExitCode> {
    let written = outputs.write(report);
    print!("{}", report.summary_table());
    println!("Finished in {:.1} s.", report.timings.total_seconds);
    let verdict = if gate.strict {
        report.strict_exit_code()
    } else {
        report.exit_code()
    };
    super::verdict_despite_write(verdict, written)
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The JSON reports of all shards of one plan (any order).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    #[command(flatten)]
    outputs: ReportOutputs,
    #[command(flatten)]
    gate: Gate,
}

/// Runs `boundgate merge`: the shards' JSON reports read and merged, then
/// written and summarized as by `boundgate audit`.
///
/// # Example
/// ```standalone_crate
/// // `execute` is private to the CLI: the command runs through
/// // `boundgate::cli::main` in a child process (this test, run again).
/// if std::env::var_os("BOUNDGATE_DOCTEST_CHILD").is_some() {
///     std::process::exit(boundgate::cli::main());
/// }
/// let boundgate = |args: &[&str]| std::process::Command::new(std::env::current_exe().unwrap())
///     .args(args).env("BOUNDGATE_DOCTEST_CHILD", "1").output().unwrap();
/// let dir = std::env::temp_dir().join(format!("boundgate-doc-merge-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = |name: &str| dir.join(name).display().to_string();
/// std::fs::write(f("p.toml"), "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 16, 32], params = { format = [\"bf16\"] }, distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }] }]").unwrap();
/// for s in ["1", "2"] {
///     boundgate(&["audit", "--plan", &f("p.toml"), "--shard", &format!("{s}/2"), "--json", &f(&format!("{s}.json"))]);
/// }
/// let merged = boundgate(&["merge", &f("2.json"), &f("1.json"), "--json", &f("m.json")]).status.code();
/// let whole = boundgate(&["audit", "--plan", &f("p.toml"), "--json", &f("w.json")]).status.code();
/// let alone = boundgate(&["merge", &f("1.json")]).status.code();
/// let read = |name: &str| boundgate::audit::AuditReport::from_json(&std::fs::read_to_string(f(name)).unwrap(), name.as_ref()).unwrap();
/// let (m, w) = (read("m.json"), read("w.json"));
/// std::fs::remove_dir_all(&dir).unwrap();
/// // the merge of both shards is the unsharded report; a shard alone is refused
/// assert_eq!((merged, whole, alone), (Some(0), Some(0), Some(2)));
/// assert_eq!(m.deterministic_json(), w.deterministic_json());
/// ```
pub fn execute_merge(args: MergeArgs) -> Result<ExitCode> {
    args.outputs.check_paths()?;
    let mut reports = Vec::with_capacity(args.shards.len());
    for path in args.shards {
        let text = read_text(&path)?;
        let report = AuditReport::from_json(&text, &path)?;
        reports.push((path, report));
    }
    let merged = merge(reports)?;
    finish(&merged, &args.outputs, &args.gate)
}
