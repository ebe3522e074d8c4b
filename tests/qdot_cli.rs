//! `boundgate run qdot --input x=.. --input y=.. --param eps=..`, end to end:
//! the output, the rigorous bound in `--bound-output`, the bins, precisions
//! and published bounds in `--json`; bad tolerances exit 2 with one line.

use boundgate::io::read_npy;

mod common;
use common::cli::{boundgate, vector, workdir};

#[test]
fn run_qdot_writes_output_bound_and_json() {
    let dir = workdir("run");
    let xs: Vec<f64> = (0..200)
        .map(|i| 1.25f64.powi(i % 40 - 20) * if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let ys: Vec<f64> = (0..200).map(|i| 1.0 + (i % 7) as f64 / 7.0).collect();
    let x = vector(&dir, "x.npy", &xs);
    let y = vector(&dir, "y.npy", &ys);
    let (out, bound, json) = (dir.join("z.npy"), dir.join("b.npy"), dir.join("r.json"));
    let o = boundgate(&[
        "run",
        "qdot",
        "--input",
        &format!("x={x}"),
        "--input",
        &format!("y={y}"),
        "--param",
        "eps=1e-5",
        "--output",
        out.to_str().unwrap(),
        "--bound-output",
        bound.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.starts_with("qdot: holds"), "{stdout}");
    assert!(stdout.contains("Thm 3.5"), "{stdout}");
    let z = read_npy(&out).unwrap();
    let b = read_npy(&bound).unwrap();
    assert_eq!(z.shape(), b.shape());
    assert!(b.data()[0] > 0.0 && b.data()[0].is_finite());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["kernel"], "qdot");
    let details = &report["details"];
    assert!(details["bins"].as_array().unwrap().len() > 3);
    assert!(details["bins"][0]["precision"].is_string());
    assert!(
        details["bounds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["label"].as_str().unwrap().contains("Thm 3.2"))
    );
    assert!(report["verdicts"].as_array().unwrap().len() >= 5);
}

#[test]
fn bad_tolerances_exit_2_with_one_line() {
    let dir = workdir("bad");
    let x = vector(&dir, "x.npy", &[1.0, 2.0]);
    let out = dir.join("z.npy");
    for eps in ["0", "1", "-0.5", "NaN"] {
        let o = boundgate(&[
            "run",
            "qdot",
            "--input",
            &format!("x={x}"),
            "--input",
            &format!("y={x}"),
            "--param",
            &format!("eps={eps}"),
            "--output",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{eps}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("eps"), "{err}");
    }
    let nan = vector(&dir, "nan.npy", &[1.0, f64::NAN]);
    let o = boundgate(&[
        "run",
        "qdot",
        "--input",
        &format!("x={nan}"),
        "--input",
        &format!("y={x}"),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("finite"));
}

#[test]
fn qdot_is_listed() {
    let o = boundgate(&["run", "--list"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("qdot: error-bounded quantized dot product"),
        "{s}"
    );
    assert!(s.contains("param eps=1e-8"), "{s}");
}
