//! The `boundgate` command line.
//!
//! Exit codes: 0 = every rigorous bound held, 1 = a rigorous bound was
//! violated, 2 = bad usage or input (one line on stderr names the problem),
//! 3 = only with `--strict`: no violation, but some rigorous verdict is
//! neither a pass nor a violation (a hypothesis failed, the exact result is
//! not finite, or an enclosure oracle could not decide). Each command's
//! `--help` states the codes it can return, from one table (`exit_codes`).

mod audit;
mod bounds;
mod exit_codes;
mod hexfloat;
mod oracle;
mod round;
mod run;

pub use hexfloat::hex_float;

use crate::error::{Error, ExitCode};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Proves, with evidence, whether mixed- and low-precision kernels stay inside their error bounds.
// Parsed through `command()`, which adds each command's exit codes to its help.
#[derive(Debug, Parser)]
#[command(name = "boundgate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Round every value of a .npy array (float64, float32 or float16) to a format; writes float64.
    Round(round::RoundArgs),
    /// Exact references.
    #[command(subcommand)]
    Oracle(oracle::OracleCommand),
    /// Run a kernel's CPU model on .npy inputs; write its result and per-element rigorous bounds.
    Run(run::RunArgs),
    /// Run an audit plan (plans/default.toml by default) and summarise it.
    Audit(audit::AuditArgs),
    /// Merge the JSON reports of a sharded audit (`audit --shard I/N`) into one report.
    Merge(audit::MergeArgs),
    /// Evaluate the bound catalogue at given parameters.
    Bounds(bounds::BoundsArgs),
    /// Probe the arithmetic of matrix units (tensor cores): on the GPU when present, else on the model.
    Probe(crate::kernels::mpfma::cli::ProbeArgs),
    /// Interleaved execution of approximate kernels: profiles, schedules, execution.
    Interleave(crate::kernels::interleave::cli::InterleaveArgs),
}

/// Parses the arguments, runs the command, prints errors as one line, and
/// returns the process exit code.
///
/// # Example
/// ```standalone_crate
/// // The child process: this test, run again with the arguments, plays the binary.
/// if std::env::var_os("BOUNDGATE_DOCTEST_CHILD").is_some() {
///     std::process::exit(boundgate::cli::main());
/// }
/// let boundgate = |args: &[&str]| std::process::Command::new(std::env::current_exe().unwrap())
///     .args(args).env("BOUNDGATE_DOCTEST_CHILD", "1").output().unwrap();
/// let version = boundgate(&["--version"]);
/// assert_eq!(version.status.code(), Some(0));
/// assert_eq!(String::from_utf8(version.stdout).unwrap(), format!("boundgate {}\n", env!("CARGO_PKG_VERSION")));
/// // bad usage: exit 2, one line on stderr
/// let bad = boundgate(&["bounds", "--n", "0"]);
/// assert_eq!(bad.status.code(), Some(2));
/// assert_eq!(String::from_utf8(bad.stderr).unwrap().lines().count(), 1);
/// assert_eq!(boundgate(&[]).status.code(), Some(2)); // no subcommand
/// assert_eq!(boundgate(&["bounds", "--n", "4", "--format", "fp32"]).status.code(), Some(0));
/// ```
pub fn main() -> i32 {
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Round(args) => round::execute(args),
        Command::Oracle(cmd) => oracle::execute(cmd),
        Command::Run(args) => run::execute(args),
        Command::Audit(args) => audit::execute(args),
        Command::Merge(args) => audit::execute_merge(args),
        Command::Bounds(args) => bounds::execute(args),
        Command::Probe(args) => crate::kernels::mpfma::cli::execute(args),
        Command::Interleave(args) => crate::kernels::interleave::cli::execute(args),
    };
    match result {
        Ok(code) => code as i32,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::BadInput as i32
        }
    }
}

/// The `boundgate` command line as clap sees it: [`Cli`], with the exit
/// codes each command can return stated in its `--help` (from one table,
/// `exit_codes`: `probe` and `interleave execute` stated none).
///
/// # Example
/// ```
/// let mut cmd = boundgate::cli::command();
/// let probe = cmd.find_subcommand_mut("probe").unwrap().render_help().to_string();
/// assert!(probe.contains("Exit codes: 0 every probe agrees with the record; 1 a probe disagrees"));
/// ```
pub fn command() -> clap::Command {
    exit_codes::attach(Cli::command())
}

/// Help and version go to stdout with exit 0; a usage error is one line on
/// stderr and exit 2 ([`usage_line`]).
fn usage_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::Ok as i32
        }
        // Clap renders the help here; its first line is the about text, not
        // an error (`boundgate` alone printed "error: Proves, with ...").
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!(
                "error: a subcommand is required (see `{} --help`)",
                usage_command(&e.to_string())
            );
            ExitCode::BadInput as i32
        }
        _ => {
            eprintln!("error: {}", usage_line(&e.to_string()));
            ExitCode::BadInput as i32
        }
    }
}

/// The command path of clap's `Usage:` line (`boundgate oracle` from
/// `Usage: boundgate oracle <COMMAND>`), or `boundgate`.
fn usage_command(text: &str) -> String {
    let usage = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .unwrap_or("boundgate");
    let words: Vec<&str> = usage
        .split_whitespace()
        .take_while(|w| !w.starts_with(['<', '[', '-']))
        .collect();
    if words.is_empty() {
        "boundgate".into()
    } else {
        words.join(" ")
    }
}

/// Clap's message in one line: its first line, which names the argument,
/// and, when that line ends in `:` (a missing argument: clap lists them on
/// the indented lines below), those lines joined to it; once only the first
/// line was printed and the missing argument went unnamed (review, 2026-11-25).
fn usage_line(text: &str) -> String {
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    if !first.ends_with(':') {
        // Clap's suggestion for a misspelt argument, subcommand or value
        // (`--formt`: "tip: a similar argument exists: '--format'") was on
        // a line of its own and dropped with it (review, 2026-11-29).
        let similar = text
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with("tip: a similar") || l.starts_with("tip: some similar"));
        return match similar {
            Some(tip) => format!("{first} ({tip})"),
            None => first.to_string(),
        };
    }
    let listed: Vec<&str> = lines
        .take_while(|l| l.starts_with(' ') && !l.trim().is_empty())
        .map(str::trim)
        .collect();
    format!("{first} {}", listed.join(", "))
}

fn one_line(e: &Error) -> String {
    e.to_string().replace('\n', " ")
}

/// The exit code of a command whose verdict is known when an output could
/// not be written: a proven violation keeps its exit 1, the write error
/// printed on its own line (a kernel or bound bug outranks a lost report,
/// and the summary on stdout names it); any other verdict gives way to the
/// write error, exit 2. (A disk that filled up mid-write turned a
/// violation's exit 1 into 2; left alone 2026-11-25.)
pub(crate) fn verdict_despite_write(
    verdict: ExitCode,
    written: crate::error::Result<()>,
) -> crate::error::Result<ExitCode> {
    match written {
        Ok(()) => Ok(verdict),
        Err(e) if verdict == ExitCode::Violation => {
            eprintln!("error: {}", one_line(&e));
            Ok(verdict)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::{usage_command, usage_line, verdict_despite_write};
    use crate::error::{Error, ExitCode};
    use boundgate_verify::error::readable_f64;

    #[test]
    fn a_write_error_does_not_hide_a_violation() {
        let failed = || {
            Err(Error::Io {
                path: "/full/report.json".into(),
                source: std::io::Error::other("No space left on device"),
            })
        };
        assert_eq!(
            verdict_despite_write(ExitCode::Violation, failed()).unwrap(),
            ExitCode::Violation
        );
        for verdict in [ExitCode::Ok, ExitCode::Unjudged] {
            let e = verdict_despite_write(verdict, failed()).unwrap_err();
            assert!(e.to_string().contains("report.json"), "{e}");
        }
        assert_eq!(
            verdict_despite_write(ExitCode::Unjudged, Ok(())).unwrap(),
            ExitCode::Unjudged
        );
    }

    #[test]
    fn readable_numbers_are_short_and_read_back() {
        for (x, text) in [
            (3.0, "3"),
            (0.1, "0.1"),
            (-0.0, "-0"),
            (1e300, "1e300"),
            (-1e300, "-1e300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e308"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(readable_f64(x), text);
            assert_eq!(text.parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }

    #[test]
    fn a_missing_subcommand_names_the_command_to_ask_for_help() {
        let clap =
            "Exact references\n\nUsage: boundgate oracle <COMMAND>\n\nCommands:\n  dot  ...\n";
        assert_eq!(usage_command(clap), "boundgate oracle");
        assert_eq!(
            usage_command("Proves ...\n\nUsage: boundgate [OPTIONS] <COMMAND>\n"),
            "boundgate"
        );
        assert_eq!(usage_command("no usage line"), "boundgate");
    }

    #[test]
    fn a_usage_error_names_the_missing_arguments_on_its_one_line() {
        let clap = "error: the following required arguments were not provided:\n  --output <FILE>\n  --input <NAME=FILE>\n\nUsage: boundgate run --output <FILE> <KERNEL>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            usage_line(clap),
            "the following required arguments were not provided: --output <FILE>, --input <NAME=FILE>"
        );
        assert_eq!(
            usage_line("error: unexpected argument '--x' found\n\n  tip: ...\n"),
            "unexpected argument '--x' found"
        );
    }
}
