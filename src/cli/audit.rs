//! `boundgate audit`: run a plan, show progress, end with a summary table.

use crate::audit::{Plan, RunOptions, run_plan};
use crate::error::{Error, ExitCode, Result};
use crate::kernels::registry;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Plan file (TOML); default: the built-in plans/default.toml.
    #[arg(long)]
    plan: Option<PathBuf>,
    /// Write the JSON report here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a Markdown report here.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Never draw a progress bar.
    #[arg(long)]
    quiet: bool,
    /// List the kernels and experiments a plan can name, and exit.
    #[arg(long)]
    list: bool,
}

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
    let progress = !args.quiet && std::io::stderr().is_terminal();
    let report = run_plan(&plan, RunOptions { progress })?;
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })
    };
    if let Some(path) = &args.json {
        write(path, report.to_json())?;
    }
    if let Some(path) = &args.markdown {
        report.write_markdown(path)?;
    }
    print!("{}", report.summary_table());
    println!("Finished in {:.1} s.", report.timings.total_seconds);
    Ok(report.exit_code())
}
