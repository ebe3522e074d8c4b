//! `boundgate interleave` end to end on a small grid (profile -> sample ->
//! schedule -> execute), bad files through the CLI, and `boundgate run hotspot3d`.
//! Every bad input is exit 2 with one line naming the file or field.

use boundgate::io::{Tensor, write_npy};
use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
use std::path::Path;
use std::path::PathBuf;
use std::process::Output;

mod common;
use common::cli::{assert_bad_input, boundgate, stderr};

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

/// Profiles (`approx.csv`, `exact.csv`) of 8x8x2 over 60 iterations, seed 3,
/// and their 2x2 sampling in `s2/`, in a fresh folder.
fn sampled(name: &str) -> PathBuf {
    let dir = scratch(name);
    let d = dir.as_path();
    let problem = ["--grid", "8x8x2", "--seed", "3", "--no-ground-truth"];
    let o = boundgate(
        &[
            &["interleave", "profile"][..],
            &problem,
            &["--iterations", "60", "--out", p(d)],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let (approx, exact, s2) = (d.join("approx.csv"), d.join("exact.csv"), d.join("s2"));
    let o = boundgate(
        &[
            &["interleave", "sample"][..],
            &problem,
            &["--approx-profile", p(&approx), "--exact-profile", p(&exact)],
            &["--sections", "2", "--out", p(&s2)],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    dir
}

/// Writes `path` as the profile at `from` with `edit(row, fields)` applied to
/// every data row (`row` from 0).
fn edited_profile(from: &Path, path: &Path, edit: impl Fn(usize, &mut Vec<String>)) {
    let original = std::fs::read_to_string(from).unwrap();
    let mut lines = original.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for (row, line) in lines.enumerate() {
        let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
        edit(row, &mut fields);
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

/// `interleave schedule` on the given profiles and measurement folder.
fn schedule(dir: &Path, approx: &Path, exact: &Path, measurements: &Path) -> Output {
    boundgate(&[
        "interleave",
        "schedule",
        "--approx-profile",
        p(approx),
        "--exact-profile",
        p(exact),
        "--measurements",
        p(measurements),
        "--fraction",
        "0.25",
        "--out",
        p(&dir.join("schedule.txt")),
    ])
}

#[test]
fn huge_section_counts_are_refused_before_anything_is_allocated() {
    // Both aborted on allocations of 720 GB and 2.9 TB until 2026-11-25 (review).
    let dir = sampled("sections");
    let d = dir.as_path();
    let o = boundgate(&[
        "interleave",
        "sample",
        "--grid",
        "8x8x2",
        "--seed",
        "3",
        "--approx-profile",
        p(&d.join("approx.csv")),
        "--sections",
        "100000",
        "--out",
        p(&d.join("x")),
    ]);
    assert_bad_input(&o, "sections = 100000");
    let m = d.join("m");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(
        m.join("sections.csv"),
        "# sections=200000 iterations=60 max_loss=0.0454\nid,x_start,x_end,y_start,y_end,x_center,y_center\n",
    )
    .unwrap();
    let o = schedule(d, &d.join("approx.csv"), &d.join("exact.csv"), &m);
    assert_bad_input(&o, "sections.csv:1: sections: 200000");
}

#[test]
fn inconsistent_profiles_are_refused_naming_the_file() {
    let dir = sampled("profiles");
    let d = dir.as_path();
    let (approx, exact, s2) = (d.join("approx.csv"), d.join("exact.csv"), d.join("s2"));
    // Each of these ran to a schedule (or a message naming neither file nor
    // problem) until 2026-11-25 (review).
    let mixed = d.join("mixed.csv");
    edited_profile(&approx, &mixed, |row, f| {
        if row % 2 == 1 {
            f[0] = "looperf".into();
        }
    });
    let o = schedule(d, &mixed, &exact, &s2);
    assert_bad_input(&o, "mixed.csv: kernel: iteration 1 runs looperf");
    let o = schedule(d, &approx, &approx, &s2);
    assert_bad_input(&o, "approx.csv: kernel: the exact profile runs half");
    let float = d.join("float.csv");
    edited_profile(&approx, &float, |_, f| f[0] = "float".into());
    let o = schedule(d, &float, &exact, &s2);
    assert_bad_input(&o, "float.csv: kernel: the approximate profile runs float");
    let slow = d.join("slow.csv");
    edited_profile(&exact, &slow, |_, f| f[4] = "1e308".into());
    let o = schedule(d, &approx, &slow, &s2);
    assert_bad_input(
        &o,
        "slow.csv: runtime: the cumulative runtime is not finite",
    );
    // A measurement that switches kernels within itself names its file.
    let m = d.join("m");
    std::fs::create_dir_all(&m).unwrap();
    for entry in std::fs::read_dir(&s2).unwrap() {
        let f = entry.unwrap().path();
        std::fs::copy(&f, m.join(f.file_name().unwrap())).unwrap();
    }
    let phase1 = m.join("phase1_0-half_15-float.csv");
    edited_profile(&s2.join("phase1_0-half_15-float.csv"), &phase1, |row, f| {
        if row == 3 {
            f[0] = "looperf".into();
        }
    });
    let o = schedule(d, &approx, &exact, &m);
    assert_bad_input(&o, "phase1_0-half_15-float.csv: kernel");
    // A measurement whose name is not the fork it holds, or no fork at
    // all, is refused naming the file (a copy named for another fork was
    // read and counted; review, 2026-11-26).
    for (name, says) in [
        ("phase1_0-half_99-float.csv", "starts at iteration 99"),
        ("phase1_garbage.csv", "expected phaseP_T-VERSION"),
    ] {
        let n = d.join("named");
        let _ = std::fs::remove_dir_all(&n);
        std::fs::create_dir_all(&n).unwrap();
        for entry in std::fs::read_dir(&s2).unwrap() {
            let f = entry.unwrap().path();
            std::fs::copy(&f, n.join(f.file_name().unwrap())).unwrap();
        }
        std::fs::copy(s2.join("phase1_0-half_15-float.csv"), n.join(name)).unwrap();
        let o = schedule(d, &approx, &exact, &n);
        assert_bad_input(&o, name);
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    // `refine` reads the same files the same way.
    let refine = |approx: &Path, extra: &[&str]| {
        let mut args = vec![
            "interleave",
            "refine",
            "--grid",
            "8x8x2",
            "--seed",
            "3",
            "--approx-profile",
            p(approx),
            "--exact-profile",
            p(&exact),
            "--measurements",
            p(&s2),
            "--fraction",
            "0.25",
            "--out",
        ];
        let out = d.join("refined.txt");
        args.push(p(&out));
        args.extend_from_slice(extra);
        boundgate(&args)
    };
    assert_bad_input(&refine(&mixed, &[]), "mixed.csv: kernel");
    // More rounds than the cap (64) are refused, not reserved: 10^11 asked
    // for 4.8 TB and aborted (review, 2026-11-26).
    let o = refine(&approx, &["--max-rounds", "100000000000"]);
    assert_bad_input(&o, "max_rounds");
    // `sample` refuses an approximate profile that does not start at
    // iteration 0 (which `schedule` would refuse after the sampling).
    let late = d.join("late.csv");
    let text_of = std::fs::read_to_string(&approx).unwrap();
    let mut lines: Vec<&str> = text_of.lines().collect();
    lines.drain(1..6);
    std::fs::write(&late, lines.join("\n") + "\n").unwrap();
    let o = boundgate(&[
        "interleave",
        "sample",
        "--grid",
        "8x8x2",
        "--seed",
        "3",
        "--approx-profile",
        p(&late),
        "--out",
        p(&d.join("late")),
    ]);
    assert_bad_input(
        &o,
        "late.csv: iteration: the approximate profile starts at iteration 5",
    );
}

#[test]
fn sampling_another_problem_than_the_profiles_is_refused() {
    // Profiles of 8x8x2, seed 3: sampled with another seed or grid, the
    // forks' shared prefixes do not reproduce the profile's losses; the
    // measurements would have mixed two problems without a sign.
    let dir = sampled("mismatch");
    let d = dir.as_path();
    let approx = d.join("approx.csv");
    for (k, problem) in [["8x8x2", "4"], ["8x9x2", "3"]].iter().enumerate() {
        let o = boundgate(&[
            "interleave",
            "sample",
            "--grid",
            problem[0],
            "--seed",
            problem[1],
            "--no-ground-truth",
            "--approx-profile",
            p(&approx),
            "--sections",
            "2",
            "--out",
            p(&d.join(format!("other{k}"))),
        ]);
        assert_bad_input(
            &o,
            "approx.csv: accuracy_loss: the approximate profile does not come from this problem",
        );
    }
}

#[test]
fn input_files_of_the_wrong_length_or_shape_are_refused() {
    let dir = scratch("inputs");
    let d = dir.as_path();
    let schedule = d.join("s.txt");
    std::fs::write(&schedule, "3\n0 half\n").unwrap();
    let run = |temp: &Path, power: &Path| {
        boundgate(&[
            "interleave",
            "execute",
            "--grid",
            "4x4x2",
            "--temp",
            p(temp),
            "--power",
            p(power),
            "--schedule",
            p(&schedule),
            "--threshold",
            "0.5",
            "--no-ground-truth",
        ])
    };
    let lines = |values: &[f64]| values.iter().map(|v| format!("{v}\n")).collect::<String>();
    let temps: Vec<f64> = (0..40).map(|k| 320.0 + 0.5 * k as f64).collect();
    let (power, long, exact) = (d.join("p.txt"), d.join("t40.txt"), d.join("t32.txt"));
    std::fs::write(&power, lines(&[1.0; 32])).unwrap();
    std::fs::write(&long, lines(&temps)).unwrap();
    // Blank lines after the last value are not values.
    std::fs::write(&exact, lines(&temps[..32]) + "\n\n").unwrap();
    let o = run(&exact, &power);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // 40 values for 32 cells: read as the first 32 until 2026-11-25 (review).
    assert_bad_input(
        &run(&long, &power),
        "t40.txt:33: values: more than 32 values",
    );
    // .npy: (layers * rows) x cols = 8 x 4; the transposed 4 x 8 was read in
    // the wrong layout until 2026-11-25 (review). 32 values in index order
    // (1-D) are accepted.
    let npy = |name: &str, t: Tensor| {
        let path = d.join(name);
        write_npy(&path, &t).unwrap();
        path
    };
    let t84 = npy(
        "t84.npy",
        Tensor::matrix(8, 4, temps[..32].to_vec()).unwrap(),
    );
    let t48 = npy(
        "t48.npy",
        Tensor::matrix(4, 8, temps[..32].to_vec()).unwrap(),
    );
    let t1d = npy("t1d.npy", Tensor::vector(temps[..32].to_vec()));
    let p84 = npy("p84.npy", Tensor::matrix(8, 4, vec![1.0; 32]).unwrap());
    for good in [&t84, &t1d] {
        let o = run(good, &p84);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    assert_bad_input(&run(&t48, &p84), "t48.npy: shape [4, 8]");
    assert_bad_input(&run(&t84, &t48), "t48.npy: shape [4, 8]");
}

#[test]
fn report_values_cannot_inject_plan_keys() {
    let dir = scratch("report");
    let md = dir.join("r.md");
    // A tiny report (4x4x1, 4 iterations) with the given grid, kernel and sections.
    let report = |grid: &str, approx: &str, sections: &str| {
        boundgate(
            &[
                &["interleave", "report", "--markdown", p(&md)][..],
                &["--grid", grid, "--approx", approx, "--sections", sections],
                &[
                    "--iterations",
                    "4",
                    "--fractions",
                    "0.5",
                    "--policies",
                    "thesis",
                ],
            ]
            .concat(),
        )
    };
    // The review's input: a `duplicate key` error about a key nobody gave.
    let o = report("4x4x2\", iterations = 7, approx = \"half", "half", "1");
    assert_bad_input(&o, "params.grid");
    // A key that is no duplicate changed the plan silently (exit 0) until 2026-11-25.
    let o = report("4x4x1", "half\", clock = \"wall", "1");
    assert_bad_input(&o, "params.approx");
    let o = report("4x4x1", "half", "1], clock = \"wall\", x = [1");
    assert_bad_input(&o, "--sections");
    assert!(!md.exists(), "no report for a refused plan");
}
