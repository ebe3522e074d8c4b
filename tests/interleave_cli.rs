//! `boundgate interleave` end to end on a small grid (profile -> sample ->
//! schedule -> execute), bad files through the CLI, and `boundgate run hotspot3d`.

use boundgate::io::{Tensor, write_npy};
use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
use std::path::Path;
use std::path::PathBuf;
use std::process::Output;

mod common;
use common::cli::boundgate;

/// A fresh folder under the system's temporary folder (no tempfile crate).
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "boundgate-interleave-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn the_pipeline_runs_from_the_command_line() {
    let dir = scratch("pipeline");
    let d = dir.as_path();
    let problem = ["--grid", "16x16x2", "--seed", "3"];
    let o = boundgate(
        &[
            &["interleave", "profile"][..],
            &problem,
            &["--iterations", "60", "--out", p(d)],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let approx = d.join("approx.csv");
    let exact = d.join("exact.csv");
    let s2 = d.join("s2");
    let o = boundgate(
        &[
            &["interleave", "sample"][..],
            &problem,
            &[
                "--approx-profile",
                p(&approx),
                "--exact-profile",
                p(&exact),
                "--sections",
                "2",
                "--out",
                p(&s2),
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let schedule = s2.join("schedule.txt");
    let trace = s2.join("trace.csv");
    let profiles = [
        "--approx-profile",
        p(&approx),
        "--exact-profile",
        p(&exact),
        "--measurements",
        p(&s2),
    ];
    let o = boundgate(
        &[
            &["interleave", "schedule"][..],
            &profiles,
            &["--fraction", "0.25", "--policy", "predictive"],
            &["--out", p(&schedule), "--trace", p(&trace)],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    // Execute against a generous and an impossible limit: exit 0, then 1 naming the iterations.
    let run = |limit: &str| {
        boundgate(
            &[
                &["interleave", "execute"][..],
                &problem,
                &[
                    "--schedule",
                    p(&schedule),
                    "--threshold",
                    limit,
                    "--trace",
                    p(&trace),
                ],
            ]
            .concat(),
        )
    };
    let ok = run("0.9");
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let over = run("1e-12");
    assert_eq!(over.status.code(), Some(1), "{}", text(&over));
    assert!(text(&over).contains("EXCEEDED"), "{}", text(&over));
    // `refine`: the schedule it writes executes within the limit it was given.
    let verified = s2.join("verified.txt");
    let o = boundgate(
        &[
            &["interleave", "refine"][..],
            &problem,
            &profiles,
            &[
                "--fraction",
                "0.25",
                "--policy",
                "thesis",
                "--out",
                p(&verified),
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("executed within the limit"),
        "{}",
        text(&o)
    );
    let limit = text(&o)
        .lines()
        .find_map(|l| l.strip_prefix("limit "))
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .expect("the limit line");
    let checked = boundgate(
        &[
            &["interleave", "execute"][..],
            &problem,
            &["--schedule", p(&verified), "--threshold", &limit],
        ]
        .concat(),
    );
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked));
    // Thresholds <= 0 and malformed schedule files are errors (exit 2), not verdicts.
    let bad = run("0");
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    std::fs::write(&schedule, "60\n0 half\n0 float\n").unwrap();
    let bad = run("0.5");
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("schedule.txt:3"), "{}", text(&bad));
    // A malformed profile names its line.
    std::fs::write(&approx, "kernel,iteration\nhalf,zero\n").unwrap();
    let o = boundgate(&[
        "interleave",
        "schedule",
        "--approx-profile",
        p(&approx),
        "--exact-profile",
        p(&exact),
        "--measurements",
        p(&s2),
        "--fraction",
        "0.25",
        "--out",
        p(&schedule),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("approx.csv"), "{}", text(&o));
}

#[test]
fn run_hotspot3d_passes_its_rigorous_bound() {
    let dir = scratch("run");
    let g = Grid3::new(6, 5, 2).unwrap();
    let a = HotSpot3D::synthetic(g, 1).unwrap();
    let t = dir.join("t.npy");
    let pw = dir.join("p.npy");
    write_npy(&t, &Tensor::matrix(10, 6, a.temp().to_vec()).unwrap()).unwrap();
    write_npy(&pw, &Tensor::matrix(10, 6, a.power().to_vec()).unwrap()).unwrap();
    let input_t = format!("temp={}", p(&t));
    let input_p = format!("power={}", p(&pw));
    let out = dir.join("out.npy");
    for version in ["float", "half", "looperf"] {
        let v = format!("version={version}");
        let o = boundgate(&[
            "run",
            "hotspot3d",
            "--input",
            &input_t,
            "--input",
            &input_p,
            "--param",
            &v,
            "--param",
            "layers=2",
            "--param",
            "iterations=20",
            "--output",
            p(&out),
        ]);
        assert!(o.status.success(), "{version}: {}", text(&o));
    }
    // Without --output: one line that names it.
    let o = boundgate(&["run", "hotspot3d", "--input", &input_t, "--input", &input_p]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not provided: --output"), "{}", text(&o));
    // layers not dividing the rows: a usage error.
    let o = boundgate(&[
        "run",
        "hotspot3d",
        "--input",
        &input_t,
        "--input",
        &input_p,
        "--param",
        "layers=3",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// `run hotspot3d` on `temp` and `power` (layers 1, a 1 x n row), with
/// extra parameters; the JSON report is written to `json`.
fn run_row(dir: &Path, temp: &[f64], power: &[f64], params: &[&str], json: &Path) -> Output {
    let n = temp.len();
    let t = dir.join("row_t.npy");
    let pw = dir.join("row_p.npy");
    write_npy(&t, &Tensor::matrix(1, n, temp.to_vec()).unwrap()).unwrap();
    write_npy(&pw, &Tensor::matrix(1, n, power.to_vec()).unwrap()).unwrap();
    let (input_t, input_p) = (format!("temp={}", p(&t)), format!("power={}", p(&pw)));
    let out = dir.join("row_out.npy");
    let mut args = vec!["run", "hotspot3d", "--input", &input_t, "--input", &input_p];
    args.extend([
        "--param",
        "layers=1",
        "--json",
        p(json),
        "--output",
        p(&out),
    ]);
    for q in params {
        args.extend(["--param", q]);
    }
    boundgate(&args)
}

#[test]
fn run_hotspot3d_refuses_what_it_cannot_run_and_only_that() {
    let dir = scratch("run-refusals");
    let json = dir.join("r.json");
    // A power beyond binary16 (review, 2026-11-25): float and double run on
    // it; half, which stores powers in binary16, refuses it, naming it.
    let (temp, power) = (vec![300.0; 4], vec![1.0, 1e5, 1.0, 1.0]);
    for version in ["float", "double", "looperf"] {
        let v = format!("version={version}");
        let o = run_row(&dir, &temp, &power, &[&v, "iterations=3"], &json);
        assert!(o.status.success(), "{version}: {}", text(&o));
    }
    let o = run_row(
        &dir,
        &temp,
        &power,
        &["version=half", "iterations=3"],
        &json,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o)
            .contains("power[1] = 1e5: overflows fp16, where the half version stores the powers"),
        "{}",
        text(&o)
    );
    // A count that would never finish is refused (it ran for ever).
    let o = run_row(
        &dir,
        &temp,
        &[1.0; 4],
        &["iterations=18446744073709551615"],
        &json,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("at most 16777216"), "{}", text(&o));
}

#[test]
fn run_hotspot3d_json_gives_no_bound_value_where_the_verdict_has_none() {
    // An unstable row (the review's): temperatures 300 +- 1000 alternating,
    // no power; in half the state passes 65504 within 30 iterations, so the
    // rigorous bound's hypothesis fails and the output holds infinities.
    let dir = scratch("run-no-bound");
    let json = dir.join("r.json");
    let temp: Vec<f64> = (0..2048)
        .map(|i| if i % 2 == 0 { 1300.0 } else { -700.0 })
        .collect();
    let o = run_row(
        &dir,
        &temp,
        &vec![0.0; 2048],
        &["version=half", "iterations=30"],
        &json,
    );
    assert!(text(&o).contains("no bound"), "{}", text(&o));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let details = &report["details"];
    assert!(details["rigorous_bound"].is_null(), "{details}");
    let value = details["first_non_finite"]["value"].as_str().unwrap();
    assert!(["inf", "-inf", "NaN"].contains(&value), "{details}");
}
