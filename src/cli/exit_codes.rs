//! The exit codes of each command, in words: the one source of every
//! `--help`'s `Exit codes:` paragraph (attached to the whole command tree by
//! [`attach`]; [`ExitCode`] is the codes themselves, the README says the
//! same in prose). Only the top-level help listed codes before: `probe` and
//! `interleave execute`, which exit 1 on a failure of their own kind, did not
//! say so (review, 2026-11-29).

use crate::error::ExitCode;
use clap::Command;

/// What a command's exit codes mean where they differ from the general
/// ones ([`general`]), and which it can return at all.
struct Codes {
    /// The command path below `boundgate` (`interleave execute`).
    path: &'static str,
    /// What exit 0 means for it.
    ok: &'static str,
    /// What exit 1 means for it; `None`: it has no verdict that can fail.
    violation: Option<&'static str>,
    /// Whether it takes `--strict` (and so can exit 3).
    strict: bool,
}

/// Exit 0 and 1 of the commands whose verdict is the rigorous bounds'.
const BOUNDS_OK: &str = "all rigorous bounds hold";
const BOUNDS_VIOLATED: &str = "a rigorous bound was violated (a bug in a kernel or in a bound)";

/// Every leaf command, with what its codes mean (read from its `execute`).
const LEAVES: &[Codes] = &[
    Codes {
        path: "round",
        ok: "the values were rounded and written",
        violation: None,
        strict: false,
    },
    Codes {
        path: "oracle dot",
        ok: "the exact dot product was printed (NaN or infinite inputs and a result beyond float64's range included)",
        violation: None,
        strict: false,
    },
    Codes {
        path: "run",
        ok: BOUNDS_OK,
        violation: Some(BOUNDS_VIOLATED),
        strict: true,
    },
    Codes {
        path: "audit",
        ok: "all rigorous bounds hold (violations of published bounds are findings, not failures)",
        violation: Some(BOUNDS_VIOLATED),
        strict: true,
    },
    Codes {
        path: "merge",
        ok: "all rigorous bounds hold in the merged report (violations of published bounds are findings, not failures)",
        violation: Some(BOUNDS_VIOLATED),
        strict: true,
    },
    Codes {
        path: "bounds",
        ok: "the catalogue was printed (a row without a value is not an error)",
        violation: None,
        strict: false,
    },
    Codes {
        path: "probe",
        ok: "every probe agrees with the record",
        violation: Some(
            "a probe disagrees with the record (the record, and any bound built on it, does not describe this unit)",
        ),
        strict: false,
    },
    Codes {
        path: "interleave profile",
        ok: "the profiles were written",
        violation: None,
        strict: false,
    },
    Codes {
        path: "interleave sample",
        ok: "the sections and measurements were written",
        violation: None,
        strict: false,
    },
    Codes {
        path: "interleave schedule",
        ok: "the schedule was written",
        violation: None,
        strict: false,
    },
    Codes {
        path: "interleave refine",
        ok: "the refined schedule, executed, stays within the limit at every iteration",
        violation: Some(
            "the refined schedule, executed, exceeds the limit at some iteration (it is written all the same)",
        ),
        strict: false,
    },
    Codes {
        path: "interleave execute",
        ok: "the executed loss never exceeds the limit",
        violation: Some(
            "the executed loss exceeds the limit at some iteration, or the run ended early",
        ),
        strict: false,
    },
    Codes {
        path: "interleave report",
        ok: "the report was written (a schedule's overshoot is a finding, not a failure)",
        violation: None,
        strict: false,
    },
];

/// What each code means for the tool as a whole (the top-level help); 2 and
/// 3 mean this for every command.
fn general(code: ExitCode) -> &'static str {
    match code {
        ExitCode::Ok => BOUNDS_OK,
        ExitCode::Violation => BOUNDS_VIOLATED,
        ExitCode::BadInput => {
            "bad usage or input, or an output that could not be written (one line on stderr names the problem)"
        }
        ExitCode::Unjudged => {
            "(only with --strict) no violation, but a rigorous verdict without a value (a hypothesis failed), on a non-finite exact result, or undecided (the oracle's enclosure of the exact result straddles the bound)"
        }
    }
}

/// `Exit codes: 0 ...; 1 ...` for the codes given with their meanings.
fn paragraph(codes: &[(ExitCode, &str)]) -> String {
    let items: Vec<String> = codes
        .iter()
        .map(|(code, meaning)| format!("{} {meaning}", *code as i32))
        .collect();
    format!("Exit codes: {}.", items.join("; "))
}

/// The paragraph of the command at `path`; a leaf missing from [`LEAVES`]
/// gets the general one (every code it might return), and the unit test
/// below refuses that.
fn leaf(path: &str) -> String {
    let Some(c) = LEAVES.iter().find(|c| c.path == path) else {
        return top();
    };
    let mut codes = vec![(ExitCode::Ok, c.ok)];
    if let Some(violation) = c.violation {
        codes.push((ExitCode::Violation, violation));
    }
    codes.push((ExitCode::BadInput, general(ExitCode::BadInput)));
    if c.strict {
        codes.push((ExitCode::Unjudged, general(ExitCode::Unjudged)));
    }
    paragraph(&codes)
}

/// The top-level paragraph: every code, in general words.
fn top() -> String {
    let all = [
        ExitCode::Ok,
        ExitCode::Violation,
        ExitCode::BadInput,
        ExitCode::Unjudged,
    ];
    paragraph(&all.map(|code| (code, general(code))))
}

/// A command with subcommands (`oracle`, `interleave`) exits as the
/// subcommand it runs.
fn group(path: &str) -> String {
    format!(
        "Exit codes: those of the subcommand (see `boundgate {path} <COMMAND> --help`); 2 {}.",
        general(ExitCode::BadInput)
    )
}

/// `cmd` (the whole CLI) with the exit-code paragraph of each command as its
/// `after_help`.
pub(crate) fn attach(cmd: Command) -> Command {
    attach_at(cmd, &[])
}

fn attach_at(mut cmd: Command, path: &[String]) -> Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in &names {
        let below = [path, std::slice::from_ref(name)].concat();
        cmd = cmd.mut_subcommand(name, |c| attach_at(c, &below));
    }
    let text = match (path.is_empty(), names.is_empty()) {
        (true, _) => top(),
        (false, true) => leaf(&path.join(" ")),
        (false, false) => group(&path.join(" ")),
    };
    cmd.after_help(text)
}

#[cfg(test)]
mod tests {
    use super::LEAVES;
    use clap::CommandFactory;

    fn leaves(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<String>) {
        if cmd.get_subcommands().next().is_none() {
            out.push(path.join(" "));
        }
        for sub in cmd.get_subcommands() {
            path.push(sub.get_name().to_string());
            leaves(sub, path, out);
            path.pop();
        }
    }

    /// [`LEAVES`] names every leaf command, and nothing else.
    #[test]
    fn every_leaf_has_its_exit_codes() {
        let mut found = Vec::new();
        leaves(&super::super::Cli::command(), &mut Vec::new(), &mut found);
        found.sort();
        let mut listed: Vec<String> = LEAVES.iter().map(|c| c.path.to_string()).collect();
        listed.sort();
        assert_eq!(found, listed);
    }
}
