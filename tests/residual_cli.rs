//! `boundgate run residual-gemm` end to end (issue 6, item 6): the defaults
//! (int8, vector-wise scales, threshold 0.5, eta 0.3), the output and bound
//! files, the JSON report, and bad input as exit code 2 with one line.

use boundgate::io::{Tensor, read_npy, write_npy};
use std::path::Path;
use std::process::Output;

mod common;
use common::cli::{boundgate, workdir};

fn matrix(dir: &Path, name: &str, rows: usize, cols: usize, values: Vec<f64>) -> String {
    let p = dir.join(name);
    write_npy(&p, &Tensor::matrix(rows, cols, values).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_bad_input(o: &Output, needle: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "`{needle}` not in: {err}");
}

fn values(len: usize, seed: u64) -> Vec<f64> {
    // A small deterministic spread of positive and negative values.
    (0..len)
        .map(|i| (((i as u64 * 2654435761 + seed * 97) % 1000) as f64 - 400.0) / 250.0)
        .collect()
}

#[test]
fn defaults_write_output_bounds_and_report() {
    let dir = workdir("defaults");
    let a = matrix(&dir, "a.npy", 12, 20, values(240, 1));
    let b = matrix(&dir, "b.npy", 20, 7, values(140, 2));
    let (out, bound, json) = (dir.join("d.npy"), dir.join("bound.npy"), dir.join("r.json"));
    let o = boundgate(&[
        "run",
        "residual-gemm",
        "--input",
        &format!("a={a}"),
        "--input",
        &format!("b={b}"),
        "--output",
        out.to_str().unwrap(),
        "--bound-output",
        bound.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout} {}", text(&o.stderr));
    assert!(stdout.starts_with("residual-gemm: holds"), "{stdout}");
    assert!(stdout.contains("Gu eq. (8)"), "{stdout}");
    assert!(stdout.contains("threshold claim"), "{stdout}");
    let d = read_npy(&out).unwrap();
    assert_eq!(d.shape(), &[12, 7]);
    let bounds = read_npy(&bound).unwrap();
    assert_eq!(bounds.shape(), &[12, 7]);
    assert!(bounds.data().iter().all(|b| b.is_finite() && *b > 0.0));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let details = &report["details"];
    assert_eq!(details["bits"], 8);
    assert_eq!(details["scaling"], "vector");
    assert_eq!(details["threshold"], 0.5);
    assert_eq!(details["eta"], 0.3);
    assert_eq!(details["method"], "sparse");
    assert!(details["e_delta_as_stored"].as_f64().unwrap() < 0.05);
    assert_eq!(
        report["verdicts"][0]["verdict"]["outcome"]["outcome"],
        "pass"
    );
}

#[test]
fn bad_input_is_exit_code_2_with_one_line() {
    let dir = workdir("bad");
    let a = matrix(&dir, "a.npy", 2, 3, values(6, 1));
    let b = matrix(&dir, "b.npy", 3, 2, values(6, 2));
    let b_wrong = matrix(&dir, "bw.npy", 2, 2, values(4, 3));
    let mut nan = values(6, 1);
    nan[4] = f64::NAN;
    let a_nan = matrix(&dir, "an.npy", 2, 3, nan);
    let out = dir.join("d.npy");
    let run = |a: &str, b: &str, extra: &[&str]| {
        let mut args = vec![
            "run".to_string(),
            "residual-gemm".into(),
            "--input".into(),
            format!("a={a}"),
            "--input".into(),
            format!("b={b}"),
            "--output".into(),
            out.to_str().unwrap().into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        boundgate(&refs)
    };
    assert_bad_input(&run(&a, &b_wrong, &[]), "length mismatch");
    assert_bad_input(&run(&a_nan, &b, &[]), "only finite values");
    assert_bad_input(&run(&a, &b, &["--param", "threshold=0"]), "threshold");
    assert_bad_input(&run(&a, &b, &["--param", "threshold=-1"]), "threshold");
    assert_bad_input(&run(&a, &b, &["--param", "bits=16"]), "bits");
    assert_bad_input(&run(&a, &b, &["--param", "eta=2"]), "eta");
    // And the options all run.
    for p in [
        "bits=4",
        "scaling=tensor",
        "scale=eq2",
        "rounding=floor",
        "method=full",
        "method=direct",
        "reduce=signed",
        "format=fp64",
    ] {
        let o = run(&a, &b, &["--param", p]);
        assert_eq!(o.status.code(), Some(0), "{p}: {}", text(&o.stderr));
    }
}

/// An outer product of two small inputs can ask for an output far beyond
/// memory: `A` (2^20 x 1) and `B` (1 x 2^20), 8 MiB each, make a 2^40-element
/// `D`. It is refused (one line, exit 2) before anything is allocated; the
/// kernel aborted on allocation ("memory allocation of 4398046511104 bytes
/// failed", exit 134) until found by review.
#[test]
fn an_output_too_large_to_hold_is_refused_before_allocating() {
    // Both matrix products: 8 MiB inputs whose outer product is 2^40
    // elements (each aborted allocating 4 TB; mpfma-gemm shares the check).
    let dir = workdir("huge-output");
    let side = 1usize << 20;
    let a = matrix(&dir, "a.npy", side, 1, vec![1.0; side]);
    let b = matrix(&dir, "b.npy", 1, side, vec![1.0; side]);
    for kernel in ["residual-gemm", "mpfma-gemm"] {
        let out = dir.join(format!("{kernel}.npy"));
        let o = boundgate(&[
            "run",
            kernel,
            "--input",
            &format!("a={a}"),
            "--input",
            &format!("b={b}"),
            "--output",
            out.to_str().unwrap(),
        ]);
        assert_bad_input(
            &o,
            "output D (rows of A x columns of B) = 1048576 x 1048576",
        );
        assert!(!out.exists(), "{kernel}");
    }
}
