//! The command-line contract at its edges, end to end through the binary:
//! misspelt and negative arguments, hostile `.npy` files, outputs that would
//! overwrite each other, summaries that must not hide a NaN, `--list` naming
//! the values a parameter takes, JSON that stays JSON, and the README's
//! example as written (review, 2026-11-29).

use boundgate::io::{Tensor, read_npy, write_npy};
use std::path::Path;

mod common;
use common::cli::{
    assert_bad_input, boundgate, run_dot, save, save_bytes, stderr, stdout, vector, workdir,
};
use common::npy::{npy_bytes, npy_dict};

fn f64s(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Parses stdout or a file as JSON the strict way (serde_json refuses the
/// `NaN` and `Infinity` literals some writers emit).
fn strict_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not strict JSON ({e}): {text}"))
}

/// e4m3 has no infinity: a finite value beyond 448 rounds (to nearest) to
/// NaN, and so does an infinite input. The summary said "4 of them
/// overflowed to an infinity" over a file of NaNs, and nothing at all of the
/// infinity turned NaN or of NaN inputs.
#[test]
fn round_summary_says_nan_where_the_format_has_no_infinity() {
    let dir = workdir("round-nan");
    let out = dir.join("out.npy");
    let round = |input: &str, format: &str| {
        boundgate(&[
            "round",
            "--format",
            format,
            "--input",
            input,
            "--output",
            out.to_str().unwrap(),
        ])
    };
    let big = vector(&dir, "big.npy", &[1e308, -1e308, 1.0]);
    let o = round(&big, "e4m3");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = read_npy(&out).unwrap();
    assert!(r.data()[0].is_nan() && r.data()[1].is_nan() && r.data()[2] == 1.0);
    let s = stdout(&o);
    assert!(
        s.contains("2 of them overflowed to NaN (e4m3 has no infinity)"),
        "{s}"
    );
    assert!(
        !s.contains("infinity;") && !s.contains("to an infinity"),
        "{s}"
    );

    let special = vector(&dir, "special.npy", &[f64::INFINITY, f64::NAN, 2.0]);
    let s = stdout(&round(&special, "e4m3"));
    assert!(
        s.contains("1 infinite input(s) became NaN (e4m3 has no infinity)")
            && s.contains("1 NaN input(s) stay NaN"),
        "{s}"
    );
    // Where the format has infinities, an overflow is still said as before.
    let s = stdout(&round(&big, "e5m2"));
    assert!(
        s.contains("2 of them overflowed to an infinity") && !s.contains("NaN"),
        "{s}"
    );
}

/// `--output r.npy --json r.npy` wrote the JSON over the kernel's output
/// (and `./r.npy` is the same file): refused before anything runs.
#[test]
fn run_refuses_two_outputs_naming_one_file() {
    let dir = workdir("same-output");
    let x = vector(&dir, "x.npy", &[1.0, 2.0, 3.0]);
    let r = dir.join("r.npy");
    let r = r.to_str().unwrap();
    let dotted = format!("{}/./r.npy", dir.display());
    for (flag, path) in [("--json", r), ("--bound-output", dotted.as_str())] {
        let o = run_dot(&x, &x, r, &[flag, path]);
        assert_bad_input(&o, &format!("--output and {flag} both name"));
        assert!(!Path::new(r).exists(), "nothing is written");
    }
    // Distinct files are fine.
    let b = dir.join("b.npy");
    let o = run_dot(&x, &x, r, &["--bound-output", b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read_npy(Path::new(r)).unwrap().data(), &[14.0]);
}

/// `--input y=` was "error: : No such file or directory": neither the input
/// nor the flag named.
#[test]
fn an_input_without_a_file_names_the_input() {
    let dir = workdir("empty-file-name");
    let x = vector(&dir, "x.npy", &[1.0, 2.0]);
    let out = dir.join("o.npy");
    let o = run_dot(&x, "", out.to_str().unwrap(), &[]);
    assert_bad_input(&o, "--input `y=`: no file after `=`");
}

/// `alpha`, `beta`, `threshold` and `eta` take only listed values, which
/// `run --list` did not show (`alpha=1e-3` was refused with a list seen only
/// then); parameters whose help names every value are unchanged.
#[test]
fn run_list_names_the_values_of_each_choice() {
    let o = boundgate(&["run", "--list"]);
    assert_eq!(o.status.code(), Some(0));
    let s = stdout(&o);
    assert!(
        s.contains("param alpha=1 : the scalar alpha (one of: 1, -1, 2, 0.5, -0.5, 0.25, 3, 0)"),
        "{s}"
    );
    assert!(
        s.contains("param threshold=0.5 :") && s.contains("(one of: 0.05, 0.1, 0.2,"),
        "{s}"
    );
    // Every choice-valued parameter's values can be read in --list.
    for k in boundgate::kernels::registry::all() {
        for p in k.params() {
            if let boundgate::kernels::ParamKind::Choice(words) = p.kind {
                let line = s
                    .lines()
                    .skip_while(|l| !l.starts_with(&format!("{}:", k.name())))
                    .find(|l| l.trim_start().starts_with(&format!("param {}=", p.key)))
                    .unwrap_or_else(|| panic!("{} {} not listed", k.name(), p.key));
                for w in words {
                    assert!(line.contains(w), "{}: `{w}` missing from {line}", k.name());
                }
            }
        }
    }
}

/// Clap's "a similar argument exists" tip was dropped with the lines below
/// the first; a misspelt flag now says what was meant, on the one line.
#[test]
fn a_misspelt_flag_is_told_what_was_meant() {
    let o = boundgate(&["round", "--formt", "fp16"]);
    assert_bad_input(&o, "unexpected argument '--formt' found");
    assert!(
        stderr(&o).contains("tip: a similar argument exists: '--format'"),
        "{}",
        stderr(&o)
    );
    let o = boundgate(&["run", "dot-recursive", "--output", "o.npy", "--inptu", "x"]);
    assert_bad_input(&o, "a similar argument exists: '--input'");
}

/// `--lambda -1` and `--n -1` were "unexpected argument '-1' found", as if
/// the value were missing; now the value is refused as the option's value.
#[test]
fn negative_bound_parameters_are_refused_as_values() {
    let o = boundgate(&["bounds", "--lambda", "-1"]);
    assert_bad_input(&o, "--lambda -1: must be a positive number");
    let o = boundgate(&["bounds", "--lambda", "-0"]);
    assert_bad_input(&o, "--lambda -0: must be a positive number");
    let o = boundgate(&["bounds", "--n", "-1"]);
    assert_bad_input(&o, "invalid value '-1' for '--n <N>'");
    // Values beyond binary64 or not numbers, and n beyond u64.
    for lambda in ["1e400", "nan", "inf"] {
        let o = boundgate(&["bounds", "--lambda", lambda]);
        assert_bad_input(&o, "must be a positive number");
    }
    for bad in ["0x1p-3", "3junk", "1_000"] {
        let o = boundgate(&["bounds", "--lambda", bad]);
        assert_bad_input(&o, &format!("invalid value '{bad}' for '--lambda"));
    }
    let o = boundgate(&["bounds", "--n", "18446744073709551616"]);
    assert_bad_input(&o, "--n <N>");
}

/// A structured dtype was refused as "expected a quoted string at byte 10".
#[test]
fn a_structured_dtype_is_named_as_such() {
    let dir = workdir("structured");
    let f = save_bytes(
        &dir,
        "rec.npy",
        &npy_bytes(
            "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }",
            &f64s(&[1.0]),
        ),
    );
    let o = boundgate(&["round", "--format", "fp16", "--input", &f, "--output", &f]);
    assert_bad_input(&o, "structured dtype");
    assert!(stderr(&o).contains("rec.npy"), "{}", stderr(&o));
}

/// Hostile `.npy` files, as each command reads them: exit 2, one line that
/// names the file, never a panic or an allocation sized by the header.
#[test]
fn hostile_npy_files_exit_2_naming_the_file() {
    let dir = workdir("hostile-npy");
    // Name, dtype, Fortran order, shape, bytes of data (zeros), and what the
    // one line says.
    let headers = [
        ("be.npy", ">f8", false, "(2,)", 16, "dtype >f8"),
        ("i4.npy", "<i4", false, "(2,)", 8, "dtype <i4"),
        ("c16.npy", "<c16", false, "(1,)", 16, "dtype <c16"),
        ("fortran.npy", "<f8", true, "(2, 2)", 32, "Fortran-order"),
        ("3d.npy", "<f8", false, "(1, 1, 1)", 8, "3-D arrays"),
        (
            "huge.npy",
            "<f8",
            false,
            "(1000000000000,)",
            8,
            "header promises",
        ),
        (
            "huge0.npy",
            "<f8",
            false,
            "(0, 4611686018427387904)",
            0,
            "exceeds the file",
        ),
        (
            "overflow.npy",
            "<f8",
            false,
            "(2305843009213693952,)",
            8,
            "overflows",
        ),
        (
            "short.npy",
            "<f8",
            false,
            "(2, 3)",
            40,
            "could not read the data",
        ),
    ];
    let mut cases: Vec<(String, String)> = headers
        .into_iter()
        .map(|(name, descr, fortran, shape, data, needle)| {
            let bytes = npy_bytes(&npy_dict(descr, fortran, shape), &vec![0; data]);
            (save_bytes(&dir, name, &bytes), needle.into())
        })
        .collect();
    cases.extend([
        (
            save_bytes(&dir, "magic.npy", b"\x93NUMPY\x01"),
            "not a valid .npy".into(),
        ),
        (
            save_bytes(&dir, "v9.npy", b"\x93NUMPY\x09\x00\x10\x00\x00\x00{}"),
            "not a valid .npy".into(),
        ),
        (dir.to_str().unwrap().to_string(), "directory".into()),
        (
            dir.join("missing.npy").to_str().unwrap().to_string(),
            "No such file".into(),
        ),
    ]);
    let good = vector(&dir, "good.npy", &[1.0, 2.0]);
    let out = dir.join("out.npy");
    let out = out.to_str().unwrap();
    for (file, needle) in &cases {
        let name = Path::new(file).file_name().unwrap().to_str().unwrap();
        for args in [
            vec![
                "round", "--format", "fp16", "--input", file, "--output", out,
            ],
            vec!["oracle", "dot", "--x", file, "--y", &good, "--json"],
            vec![
                "run",
                "dot-recursive",
                "--input",
                &format!("x={file}"),
                "--input",
                &format!("y={good}"),
                "--output",
                out,
            ],
        ] {
            let o = boundgate(&args);
            assert_bad_input(&o, needle);
            assert!(stderr(&o).contains(name), "{args:?}: {}", stderr(&o));
            assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        }
    }
}

/// A 0-d array is no vector and no matrix: every kernel refuses it as an
/// input with one line naming the input, whatever else it is given.
#[test]
fn every_kernel_refuses_a_0_d_array() {
    let dir = workdir("zero-d");
    let scalar = save(&dir, "s.npy", &Tensor::scalar(2.0));
    let out = dir.join("o.npy");
    for k in boundgate::kernels::registry::all() {
        let inputs: Vec<String> = k
            .inputs()
            .iter()
            .map(|i| format!("{}={scalar}", i.name))
            .collect();
        let mut args = vec!["run", k.name()];
        for i in &inputs {
            args.extend(["--input", i.as_str()]);
        }
        args.extend(["--output", out.to_str().unwrap()]);
        let o = boundgate(&args);
        assert_bad_input(&o, "has shape []");
    }
}

/// JSON written for NaN, infinite and extreme inputs is strict JSON (a
/// non-finite value is `null` or text, never a `NaN` literal), and every
/// non-finite value is flagged beside it.
#[test]
fn json_outputs_stay_strict_json_on_non_finite_values() {
    let dir = workdir("strict-json");
    let nan = vector(&dir, "nan.npy", &[f64::NAN, 1.0]);
    let big = vector(&dir, "big.npy", &[f64::MAX, f64::MAX]);
    let ones = vector(&dir, "ones.npy", &[1.0, 1.0]);
    for (x, hex, finite) in [(&nan, "nan", false), (&big, "inf", true)] {
        let o = boundgate(&["oracle", "dot", "--x", x, "--y", &ones, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v = strict_json(stdout(&o).trim());
        assert_eq!(v["value"], serde_json::Value::Null);
        assert_eq!(
            (v["hex"].as_str(), v["finite"].as_bool()),
            (Some(hex), Some(false))
        );
        assert_eq!(v["exact_is_finite"].as_bool(), Some(finite));
    }
    let report = dir.join("r.json");
    for x in [&nan, &big] {
        let o = run_dot(
            x,
            &ones,
            dir.join("o.npy").to_str().unwrap(),
            &["--json", report.to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v = strict_json(&std::fs::read_to_string(&report).unwrap());
        assert_eq!(
            v["verdicts"][0]["verdict"]["outcome"]["outcome"],
            "non_finite"
        );
        assert_eq!(v["rigorous_bound_max"], serde_json::Value::Null);
    }
    for lambda in ["1e300", "5e-324"] {
        let o = boundgate(&[
            "bounds",
            "--n",
            "18446744073709551615",
            "--lambda",
            lambda,
            "--json",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v = strict_json(&stdout(&o));
        for f in v["formats"].as_array().unwrap() {
            for b in f["bounds"].as_array().unwrap() {
                // A row has a finite value or says why it has none.
                match b["bound"]["value"].as_f64() {
                    Some(value) => assert!(value.is_finite() && value >= 0.0, "{b}"),
                    None => assert!(b["no_value"].is_string(), "{b}"),
                }
            }
        }
    }
}

/// Help and version go to stdout with exit 0 for every subcommand; the
/// top-level help states the four exit codes.
#[test]
fn help_of_every_subcommand_exits_0_on_stdout() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["round", "--help"],
        &["oracle", "--help"],
        &["oracle", "dot", "--help"],
        &["run", "--help"],
        &["audit", "--help"],
        &["merge", "--help"],
        &["bounds", "--help"],
        &["probe", "--help"],
        &["interleave", "--help"],
        &["interleave", "profile", "--help"],
        &["interleave", "sample", "--help"],
        &["interleave", "schedule", "--help"],
        &["interleave", "refine", "--help"],
        &["interleave", "execute", "--help"],
        &["interleave", "report", "--help"],
        &["help", "run"],
    ] {
        let o = boundgate(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!stdout(&o).is_empty() && stderr(&o).is_empty(), "{args:?}");
    }
    let top = stdout(&boundgate(&["--help"]));
    for code in [
        "0 all rigorous bounds hold",
        "1 a rigorous bound was violated",
        "2 bad usage or input",
        "3 (only with --strict)",
    ] {
        assert!(top.contains(code), "{code}: {top}");
    }
    // bounds documents every default.
    let bounds = stdout(&boundgate(&["bounds", "--help"]));
    for default in ["[default: 1000]", "[default: rne]", "[default: 3]"] {
        assert!(bounds.contains(default), "{default}: {bounds}");
    }
}

/// The README's example, as written (the inputs written here, not by
/// NumPy, which the test machine may lack): exit 0, the outputs of the shapes
/// it says, and a report that is strict JSON.
#[test]
fn the_readme_example_runs_as_written() {
    let dir = workdir("readme");
    let values = |seed: u64| -> Vec<f64> {
        (0..1000u64)
            .map(|i| ((i.wrapping_mul(2654435761).wrapping_add(seed)) % 1000) as f64 / 1000.0)
            .collect()
    };
    write_npy(&dir.join("x.npy"), &Tensor::vector(values(1))).unwrap();
    write_npy(&dir.join("y.npy"), &Tensor::vector(values(7))).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_boundgate"))
        .current_dir(&dir)
        .args([
            "run",
            "dot-recursive",
            "--input",
            "x=x.npy",
            "--input",
            "y=y.npy",
            "--param",
            "format=fp16",
            "--param",
            "fma=true",
            "--output",
            "s.npy",
            "--bound-output",
            "b.npy",
            "--json",
            "run.json",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (s, b) = (
        read_npy(&dir.join("s.npy")).unwrap(),
        read_npy(&dir.join("b.npy")).unwrap(),
    );
    assert_eq!((s.shape(), b.shape()), (&[][..], &[][..]));
    assert!(b.data()[0].is_finite() && b.data()[0] > 0.0);
    let v = strict_json(&std::fs::read_to_string(dir.join("run.json")).unwrap());
    assert_eq!(v["schema"], "boundgate.run/1");
    assert_eq!(v["params"]["fma"], "true");
}
