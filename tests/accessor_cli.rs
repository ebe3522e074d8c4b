//! The accessor kernels through the command line, end to end: `boundgate run`
//! with .npy inputs writes the output, the per-element rigorous bounds and a
//! JSON report; `run --list` and `audit --list` name the kernels and
//! experiments; the smoke plan audits every accessor kernel with exit code 0.

use boundgate::io::{Tensor, read_npy};
use std::path::Path;

mod common;
use common::cli::{boundgate, save, workdir};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn run_lists_the_five_kernels_and_two_experiments() {
    let o = boundgate(&["run", "--list"]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    for k in [
        "accessor-dot",
        "accessor-axpy",
        "accessor-gemv",
        "accessor-trsv",
        "accessor-spmv",
    ] {
        assert!(out.contains(k), "{k} missing from:\n{out}");
    }
    let o = boundgate(&["audit", "--list"]);
    let out = text(&o.stdout);
    for e in ["accessor-accuracy", "accessor-roofline"] {
        assert!(out.contains(e), "{e} missing from:\n{out}");
    }
}

#[test]
fn run_gemv_writes_output_bounds_and_report() {
    let dir = workdir("gemv");
    let a = save(
        &dir,
        "a.npy",
        &Tensor::matrix(3, 2, vec![0.1, 0.2, -0.3, 0.4, 1e-3, 7.0]).unwrap(),
    );
    let x = save(&dir, "x.npy", &Tensor::vector(vec![1.0 / 3.0, -2.5]));
    let out = dir.join("y.npy");
    let bound = dir.join("bound.npy");
    let json = dir.join("report.json");
    let o = boundgate(&[
        "run",
        "accessor-gemv",
        "--input",
        &format!("a={a}"),
        "--input",
        &format!("x={x}"),
        "--output",
        out.to_str().unwrap(),
        "--bound-output",
        bound.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let y = read_npy(&out).unwrap();
    let b = read_npy(&bound).unwrap();
    assert_eq!(y.shape(), &[3]);
    assert_eq!(b.shape(), &[3]);
    // Defaults: fp32 storage, fp64 arithmetic, output stored in fp32.
    for v in y.data() {
        assert_eq!(*v as f32 as f64, *v);
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["kernel"], "accessor-gemv");
    assert_eq!(report["params"]["storage"], "fp32");
    assert_eq!(report["params"]["arithmetic"], "fp64");
    assert_eq!(
        report["verdicts"][0]["verdict"]["outcome"]["outcome"],
        "pass"
    );
    // Exact check of the bound: |y_i - (A x)_i| <= bound_i, with rationals.
    let q = |v: f64| rug::Rational::from_f64(v).unwrap();
    let av = [0.1, 0.2, -0.3, 0.4, 1e-3, 7.0];
    let xv = [1.0 / 3.0, -2.5];
    for i in 0..3 {
        let exact = q(av[2 * i]) * q(xv[0]) + q(av[2 * i + 1]) * q(xv[1]);
        assert!((q(y.data()[i]) - exact).abs() <= q(b.data()[i]));
    }
}

#[test]
fn run_trsv_and_spmv_with_parameters() {
    let dir = workdir("trsv");
    let a = save(
        &dir,
        "a.npy",
        &Tensor::matrix(3, 3, vec![2.0, 5.0, -1.0, 0.0, 4.0, 0.5, 0.0, 0.0, 8.0]).unwrap(),
    );
    let b = save(&dir, "b.npy", &Tensor::vector(vec![1.0, 2.0, 3.0]));
    let out = dir.join("x.npy");
    let json = dir.join("r.json");
    let o = boundgate(&[
        "run",
        "accessor-trsv",
        "--input",
        &format!("a={a}"),
        "--input",
        &format!("b={b}"),
        "--param",
        "uplo=upper",
        "--param",
        "storage=bf16",
        "--param",
        "arithmetic=fp32",
        "--output",
        out.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["details"]["uplo"], "upper");
    assert_eq!(report["details"]["chain_ways"], 4);
    assert!(report["details"]["backward_error"]["componentwise"].is_number());
    // The product with the inverse over one FMA chain (the order measured on the devices
    // until 2026-11-28): its own order, judged by its own bound.
    let o = boundgate(&[
        "run",
        "accessor-trsv",
        "--input",
        &format!("a={a}"),
        "--input",
        &format!("b={b}"),
        "--param",
        "chain_ways=1",
        "--output",
        out.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["details"]["chain_ways"], 1);
    let x = dir.join("y.npy");
    let xv = save(&dir, "xv.npy", &Tensor::vector(vec![1.0, -1.0, 0.5]));
    // ELL, and CSR-stream: ELL's chains, so the same values; each its order
    // in the report.
    for (sparse, order) in [
        ("ell", "ELL (column-major slots): a thread per row"),
        ("csr_stream", "CSR-stream: a thread per row"),
    ] {
        let json = dir.join(format!("{sparse}.json"));
        let o = boundgate(&[
            "run",
            "accessor-spmv",
            "--input",
            &format!("a={a}"),
            "--input",
            &format!("x={xv}"),
            "--param",
            &format!("sparse={sparse}"),
            "--output",
            x.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{sparse}: {}", text(&o.stderr));
        assert_eq!(
            read_npy(&x).unwrap().data(),
            &[-3.5, -3.75, 4.0],
            "{sparse}"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let details = &report["details"];
        assert_eq!(details["format"], sparse);
        assert!(
            details["order"].as_str().unwrap().starts_with(order),
            "{details}"
        );
    }
}

#[test]
fn bad_inputs_exit_2_with_one_line() {
    let dir = workdir("bad");
    let a = save(
        &dir,
        "a.npy",
        &Tensor::matrix(2, 2, vec![0.0, 0.0, 1.0, 1.0]).unwrap(),
    );
    let b = save(&dir, "b.npy", &Tensor::vector(vec![1.0, 1.0]));
    let out = dir.join("x.npy");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "run".into(),
                "accessor-trsv".into(),
                "--input".into(),
                format!("a={a}"),
                "--input".into(),
                format!("b={b}"),
            ],
            "singular",
        ),
        (
            vec![
                "run".into(),
                "accessor-dot".into(),
                "--input".into(),
                format!("x={b}"),
                "--input".into(),
                format!("y={b}"),
                "--param".into(),
                "storage=fp64".into(),
                "--param".into(),
                "arithmetic=fp32".into(),
            ],
            "reads would round",
        ),
        (
            vec![
                "run".into(),
                "accessor-dot".into(),
                "--input".into(),
                format!("x={b}"),
                "--input".into(),
                format!("y={b}"),
                "--param".into(),
                "alpha=1".into(),
            ],
            "no parameter `alpha`",
        ),
        (
            vec![
                "run".into(),
                "accessor-trsv".into(),
                "--input".into(),
                format!("a={a}"),
                "--input".into(),
                format!("b={b}"),
                "--param".into(),
                "chain_ways=9".into(),
            ],
            "expected one of 1, 2, 3, 4, 5, 6, 7, 8",
        ),
    ];
    for (mut args, needle) in cases {
        args.extend(["--output".to_string(), out.to_str().unwrap().to_string()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = boundgate(&refs);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "`{needle}` not in {err}");
    }
}

#[test]
fn the_smoke_plan_audits_every_accessor_kernel() {
    let dir = workdir("audit");
    let plan = Path::new(env!("CARGO_MANIFEST_DIR")).join("plans/accessor-smoke.toml");
    let md = dir.join("report.md");
    let o = boundgate(&[
        "audit",
        "--plan",
        plan.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let report = std::fs::read_to_string(&md).unwrap();
    for k in [
        "accessor-dot",
        "accessor-axpy",
        "accessor-gemv",
        "accessor-trsv",
        "accessor-spmv",
        "accessor-accuracy",
    ] {
        assert!(report.contains(k), "{k} missing from the report");
    }
    assert!(report.contains("0 violated"), "{report}");
}

/// `backend` on the four kernels with a CUDA kernel. Without a usable GPU:
/// `gpu` stops with one line ("GPU: ..."), exit 2, and writes nothing;
/// `auto` runs the CPU model and says why in `ran_on`; `cpu` says "cpu model".
/// With one (the device run of this suite): `gpu` and `auto` run the kernel,
/// whose results equal the model's bit for bit, and the verdicts are the
/// model's; integer storage has no CUDA kernel, so `gpu` refuses it and
/// `auto` falls back, naming the storage.
#[test]
fn the_backend_parameter_runs_the_cuda_kernel_or_says_why_not() {
    let dir = workdir("backend");
    let a = save(
        &dir,
        "a.npy",
        &Tensor::matrix(3, 3, vec![2.0, 0.0, 0.0, 0.5, 4.0, 0.0, -1.0, 0.25, 8.0]).unwrap(),
    );
    let v = save(&dir, "v.npy", &Tensor::vector(vec![1.0, -1.0, 0.5]));
    let runs: [(&str, Vec<String>); 4] = [
        ("accessor-dot", vec![format!("x={v}"), format!("y={v}")]),
        ("accessor-gemv", vec![format!("a={a}"), format!("x={v}")]),
        ("accessor-spmv", vec![format!("a={a}"), format!("x={v}")]),
        ("accessor-trsv", vec![format!("a={a}"), format!("b={v}")]),
    ];
    let gpu = matches!(
        boundgate::gpu::probe(),
        boundgate::gpu::DeviceStatus::Available(_)
    );
    for (kernel, inputs) in &runs {
        for (backend, storage) in [
            ("cpu", "fp32"),
            ("gpu", "fp32"),
            ("auto", "fp32"),
            ("gpu", "int8"),
            ("auto", "int8"),
        ] {
            let json = dir.join(format!("{kernel}-{backend}-{storage}.json"));
            let out = dir.join(format!("{kernel}-{backend}-{storage}.npy"));
            let _ = std::fs::remove_file(&json);
            let _ = std::fs::remove_file(&out);
            let mut args = vec!["run", kernel];
            for input in inputs {
                args.extend(["--input", input.as_str()]);
            }
            let backend_param = format!("backend={backend}");
            let storage_param = format!("storage={storage}");
            args.extend(["--param", &backend_param, "--param", &storage_param]);
            args.extend(["--json", json.to_str().unwrap()]);
            args.extend(["--output", out.to_str().unwrap()]);
            let o = boundgate(&args);
            let what = format!("{kernel} {backend_param} {storage_param}");
            let refused = backend == "gpu" && (!gpu || storage == "int8");
            if refused {
                assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o.stderr));
                let err = text(&o.stderr);
                assert_eq!(err.trim().lines().count(), 1, "{what}: {err}");
                if gpu {
                    assert!(err.contains("storage"), "{what}: {err}");
                } else {
                    assert!(err.starts_with("error: GPU: "), "{what}: {err}");
                }
                assert!(
                    !json.exists() && !out.exists(),
                    "{what}: a file after an error"
                );
                continue;
            }
            assert_eq!(o.status.code(), Some(0), "{what}: {}", text(&o.stderr));
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let ran_on = report["details"]["ran_on"].as_str().unwrap().to_string();
            let on_device = backend != "cpu" && gpu && storage != "int8";
            if on_device {
                assert!(ran_on.starts_with("gpu ("), "{what}: {ran_on}");
                assert!(ran_on.contains("bit-identical"), "{what}: {ran_on}");
            } else if backend == "auto" {
                // Why the device did not run: no device, or no CUDA kernel
                // for integer storage.
                assert!(ran_on.starts_with("cpu model ("), "{what}: {ran_on}");
                if gpu {
                    assert!(ran_on.contains("storage"), "{what}: {ran_on}");
                }
            } else {
                assert_eq!(ran_on, "cpu model", "{what}");
            }
            assert_eq!(
                report["verdicts"][0]["verdict"]["outcome"]["outcome"], "pass",
                "{what}"
            );
        }
    }
}
