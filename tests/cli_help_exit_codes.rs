//! What `--help` promises, end to end through the binary: every leaf
//! subcommand states the exit codes it can return (`probe` and `interleave
//! execute`, which exit 1 on their own kind of failure, said nothing; only
//! the top-level help listed codes), parameters echoed in a header are short
//! and exact (`bounds --lambda 1e300` printed 301 digits), and the help's
//! words match what the command accepts.

use clap::CommandFactory;
use std::collections::{BTreeMap, BTreeSet};

mod common;
use common::cli::{boundgate, save_bytes, stderr, stdout, workdir};
use common::npy::{npy_bytes, npy_dict};

/// The paths (`["interleave", "execute"]`) of the commands without
/// subcommands under `cmd`, walked from clap's definition of the CLI.
fn leaves(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut any = false;
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue; // clap's own `help` subcommand
        }
        any = true;
        path.push(sub.get_name().to_string());
        leaves(sub, path, out);
        path.pop();
    }
    if !any && !path.is_empty() {
        out.push(path.clone());
    }
}

/// The exit codes a help text states, each with its meaning: the paragraph
/// `Exit codes: 0 ...; 1 ...; 2 ...` (one line; a code is a digit after
/// `Exit codes: ` or `; ` and before a space).
fn stated_codes(help: &str) -> BTreeMap<u8, String> {
    let Some(line) = help
        .lines()
        .find_map(|l| l.trim().strip_prefix("Exit codes: "))
    else {
        return BTreeMap::new();
    };
    let mut codes = BTreeMap::new();
    for item in line.split("; ") {
        let mut chars = item.chars();
        if let (Some(d @ '0'..='9'), Some(' ')) = (chars.next(), chars.next()) {
            let meaning = chars.as_str().trim_end_matches('.').to_string();
            assert!(!meaning.is_empty(), "code {d} without a meaning: {line}");
            let previous = codes.insert(d as u8 - b'0', meaning);
            assert!(previous.is_none(), "code {d} twice: {line}");
        }
    }
    codes
}

/// Every leaf subcommand's `--help` lists exactly the exit codes it can
/// return (read from each command's code: 1 only where a verdict can fail,
/// 3 only where there is `--strict`), and a code that means the same thing
/// everywhere (2, 3) is worded the same everywhere: one source, not copies.
#[test]
fn every_leaf_help_states_its_exit_codes() {
    let expected: BTreeMap<&str, &[u8]> = BTreeMap::from([
        ("round", &[0, 2][..]),
        ("oracle dot", &[0, 2]),
        ("run", &[0, 1, 2, 3]),
        ("audit", &[0, 1, 2, 3]),
        ("merge", &[0, 1, 2, 3]),
        ("bounds", &[0, 2]),
        ("probe", &[0, 1, 2]),
        ("interleave profile", &[0, 2]),
        ("interleave sample", &[0, 2]),
        ("interleave schedule", &[0, 2]),
        ("interleave refine", &[0, 1, 2]),
        ("interleave execute", &[0, 1, 2]),
        ("interleave report", &[0, 2]),
    ]);
    let mut found = Vec::new();
    leaves(&boundgate::cli::Cli::command(), &mut Vec::new(), &mut found);
    let found: BTreeSet<String> = found.iter().map(|p| p.join(" ")).collect();
    let listed: BTreeSet<String> = expected.keys().map(|k| k.to_string()).collect();
    assert_eq!(
        found, listed,
        "the CLI's leaf subcommands and this test's list differ: add the new command's exit codes here"
    );

    let top = stdout(&boundgate(&["--help"]));
    let general = stated_codes(&top);
    assert_eq!(
        general.keys().copied().collect::<Vec<_>>(),
        [0, 1, 2, 3],
        "{top}"
    );
    let mut missing = Vec::new();
    for (path, codes) in &expected {
        let mut args: Vec<&str> = path.split(' ').collect();
        args.push("--help");
        let o = boundgate(&args);
        assert_eq!(o.status.code(), Some(0), "{path}: {}", stderr(&o));
        let help = stdout(&o);
        let stated = stated_codes(&help);
        if stated.keys().copied().collect::<Vec<_>>() != *codes {
            missing.push(format!(
                "`{path} --help` states {:?}, expected {codes:?}",
                stated.keys().collect::<Vec<_>>()
            ));
            continue;
        }
        for code in [2, 3] {
            if let Some(meaning) = stated.get(&code) {
                assert_eq!(
                    Some(meaning),
                    general.get(&code),
                    "{path}: code {code} worded differently from the top-level help"
                );
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// A group (`oracle`, `interleave`) says where its codes are, and the help
/// printed by `boundgate help PATH` is the same as by `PATH --help`.
#[test]
fn groups_point_to_their_subcommands_and_help_agrees() {
    for group in ["oracle", "interleave"] {
        let help = stdout(&boundgate(&[group, "--help"]));
        assert!(help.contains("Exit codes: "), "{group}: {help}");
        assert!(
            help.contains(&format!("boundgate {group} <COMMAND> --help")),
            "{help}"
        );
    }
    let by_flag = stdout(&boundgate(&["interleave", "execute", "--help"]));
    let by_help = stdout(&boundgate(&["help", "interleave", "execute"]));
    assert_eq!(by_flag, by_help);
}

/// `bounds --lambda 1e300` wrote lambda in its header with `f64`'s
/// `Display`: 301 digits. The header now writes it in the shortest form
/// that reads back as the same `f64`, with an exponent where the decimal
/// would be long, and small values as before (`3`, `0.1`).
#[test]
fn the_bounds_header_writes_lambda_short_and_exact() {
    for (lambda, text) in [
        ("1e300", "1e300"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e308"),
        ("1.2345678901234566e-7", "1.2345678901234566e-7"),
        ("3", "3"),
        ("0.1", "0.1"),
        ("12345.5", "12345.5"),
    ] {
        let o = boundgate(&["bounds", "--lambda", lambda, "--format", "fp16"]);
        assert_eq!(o.status.code(), Some(0), "{lambda}: {}", stderr(&o));
        let out = stdout(&o);
        let header = out.lines().next().unwrap();
        assert!(header.len() <= 60, "{lambda}: header too long: {header}");
        let shown = header
            .split_once("lambda = ")
            .unwrap_or_else(|| panic!("no lambda in: {header}"))
            .1;
        assert_eq!(shown, text, "{header}");
        assert_eq!(
            shown.parse::<f64>().unwrap().to_bits(),
            lambda.parse::<f64>().unwrap().to_bits(),
            "{header}"
        );
    }
    // The default, as before.
    let out = stdout(&boundgate(&["bounds", "--format", "fp16"]));
    assert_eq!(out.lines().next(), Some("n = 1000, mode = rne, lambda = 3"));
}

/// A refused lambda is echoed in the same short form: `--lambda -1e300`
/// was a 340-character error line. And a negative lambda with an exponent
/// sign or a leading point is read as lambda's value: clap took `-1e-3`
/// and `-.5` for flags ("unexpected argument '-1' found").
#[test]
fn a_refused_lambda_is_echoed_short() {
    for (lambda, text) in [
        ("-1e300", "-1e300"),
        ("-5e-324", "-5e-324"),
        ("-1", "-1"),
        ("-1e-3", "-0.001"),
        ("-.5", "-0.5"),
        ("-2E-1", "-0.2"),
    ] {
        let o = boundgate(&["bounds", "--lambda", lambda]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.len() < 80, "error line too long: {err}");
        assert!(
            err.contains(&format!("--lambda {text}: must be a positive number")),
            "{err}"
        );
    }
    // A value that is not a number is refused as lambda's, whatever it
    // starts with.
    for bad in ["-x", "--json"] {
        let o = boundgate(&["bounds", "--lambda", bad]);
        let err = stderr(&o);
        assert_eq!(
            (o.status.code(), err.lines().count()),
            (Some(2), 1),
            "{err}"
        );
        assert!(
            err.contains(&format!("invalid value '{bad}' for '--lambda")),
            "{err}"
        );
    }
}

/// `round`'s summary said "a float64 .npy array", while `--input` takes
/// float64, float32 or float16 (and does: a float32 file rounds, exit 0).
#[test]
fn round_help_names_every_input_dtype_it_reads() {
    let help = stdout(&boundgate(&["round", "--help"]));
    let about = help.lines().next().unwrap();
    for dtype in ["float64", "float32", "float16"] {
        assert!(about.contains(dtype), "`{dtype}` not in: {about}");
    }
    // A float32 vector [0.1f32, 1, 2], written by hand as NumPy writes it.
    let data: Vec<u8> = [0.1f32, 1.0, 2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let dir = workdir("help-round-float32");
    let input = save_bytes(
        &dir,
        "in.npy",
        &npy_bytes(&npy_dict("<f4", false, "(3,)"), &data),
    );
    let output = dir.join("out.npy");
    let o = boundgate(&[
        "round",
        "--format",
        "bf16",
        "--input",
        &input,
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("rounded 3 values to bf16"),
        "{}",
        stdout(&o)
    );
}

/// `interleave schedule` and `refine` need one limit, `--threshold` or
/// `--fraction`: their usage line says so, and neither or both is a one-line
/// usage error (until 2026-11-29 the help listed both as optional, and only
/// the run refused a missing limit).
#[test]
fn schedule_and_refine_say_that_one_limit_is_required() {
    for command in ["schedule", "refine"] {
        let help = stdout(&boundgate(&["interleave", command, "--help"]));
        assert!(
            help.contains("<--threshold <THRESHOLD>|--fraction <FRACTION>>"),
            "{command}: {help}"
        );
        let base = [
            "interleave",
            command,
            "--approx-profile",
            "a.csv",
            "--exact-profile",
            "e.csv",
            "--measurements",
            "m",
            "--out",
            "s.txt",
        ];
        for extra in [&[][..], &["--threshold", "0.1", "--fraction", "0.5"]] {
            let o = boundgate(&[&base[..], extra].concat());
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{command} {extra:?}: {err}");
            assert_eq!(
                err.trim_end().lines().count(),
                1,
                "{command} {extra:?}: {err}"
            );
            assert!(
                err.contains("--threshold") && err.contains("--fraction"),
                "{err}"
            );
        }
    }
}

/// `run`'s usage line shows what a kernel run requires, the kernel and
/// `--output` (clap's own line showed `[KERNEL]` and hid `--output` among the
/// options, while a run without it is a usage error), and the `--list` form.
#[test]
fn run_usage_shows_the_kernel_and_output_as_required() {
    let help = stdout(&boundgate(&["run", "--help"]));
    let usage: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Usage:"))
        .take(2)
        .collect();
    assert!(
        usage[0].contains("boundgate run <KERNEL>") && usage[0].contains("--output <OUTPUT>"),
        "{help}"
    );
    assert!(usage[1].trim() == "boundgate run --list", "{help}");
    let o = boundgate(&["run", "qdot"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--output"), "{}", stderr(&o));
}
