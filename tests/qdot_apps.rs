//! The applications of qdot (§4.2-4.3: ACG, Alg. 4.1, and APM, Alg. 4.2) and
//! the qdot experiments, on small problems: the HPCCG matrix is the 27-point
//! operator with `b = A 1`; ACG at a tight tolerance takes CG's iterations;
//! every qdot call inside the solvers satisfies the rigorous bound; each
//! experiment runs through `boundgate audit` on a tiny plan with exit code 0.

use boundgate::kernels::qdot::apps::acg::cg;
use boundgate::kernels::qdot::apps::apm::{power, start_vector};
use boundgate::kernels::qdot::apps::hpccg::{generate, parse_dims};
use boundgate::kernels::qdot::apps::laplacian::random_laplacian;
use boundgate::kernels::qdot::apps::{PlainDot, QdotDot};
use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
use boundgate_verify::format::Format;
use std::process::Command;

#[test]
fn hpccg_is_the_27_point_operator_with_b_equal_a_times_one() {
    let p = generate(4, 3, 2).unwrap();
    assert_eq!(p.a.rows(), 24);
    for i in 0..p.a.rows() {
        let (cols, vals) = p.a.row(i);
        let diag = cols
            .iter()
            .zip(vals)
            .find(|(c, _)| **c == i)
            .map(|(_, v)| *v);
        assert_eq!(diag, Some(27.0), "row {i}");
        assert!(vals.iter().filter(|&&v| v != 27.0).all(|&v| v == -1.0));
        assert!(cols.len() <= 27);
        // b_i = 27 - (number of neighbours) = (A 1)_i
        assert_eq!(p.b[i], vals.iter().sum::<f64>(), "row {i}");
    }
    // an interior point of a 3x3x3 grid has all 26 neighbours
    let q = generate(3, 3, 3).unwrap();
    assert_eq!(q.a.row(13).0.len(), 27);
    assert_eq!(parse_dims("100x100x10"), Ok((100, 100, 10)));
    assert!(parse_dims("100x100").is_err());
    assert!(generate(0, 1, 1).is_err());
}

#[test]
fn cg_and_power_refuse_vectors_that_do_not_fit_the_matrix() {
    let p = generate(3, 3, 2).unwrap();
    // shorter (used to panic in the SpMV) and longer (used to panic on q) b
    assert!(cg(&p.a, &p.b[1..], 1e-8, 50, &mut PlainDot { tile: 64 }).is_err());
    let mut long = p.b.clone();
    long.push(1.0);
    assert!(cg(&p.a, &long, 1e-8, 50, &mut PlainDot { tile: 64 }).is_err());
    let l = random_laplacian(20, 3, 7).unwrap();
    // a start vector one shorter or one longer than the 20 x 20 matrix
    for len in [19, 21] {
        let start = start_vector(len, 1);
        assert!(
            power(&l, &start, 1e-6, 50, &mut PlainDot { tile: 64 }).is_err(),
            "{len}"
        );
    }
}

#[test]
fn cg_residual_of_a_zero_right_hand_side_is_zero_not_nan() {
    let p = generate(3, 3, 2).unwrap();
    let zero = vec![0.0; p.b.len()];
    let out = cg(&p.a, &zero, 1e-8, 50, &mut PlainDot { tile: 64 }).unwrap();
    assert_eq!(out.true_relative_residual, 0.0);
    assert!(out.x.iter().all(|&v| v == 0.0));
}

#[test]
fn acg_with_a_tight_tolerance_takes_cg_iterations_and_every_call_is_bounded() {
    let p = generate(10, 10, 3).unwrap();
    let plain = cg(&p.a, &p.b, 1e-8, 500, &mut PlainDot { tile: 64 }).unwrap();
    assert!(plain.converged && plain.true_relative_residual < 1e-7);
    let config = QdotConfig::new(Format::FP64).unwrap();
    for eps in [1e-16, 1e-8, 1.0] {
        let mut dots = QdotDot::new(config, Tolerance::loose(eps).unwrap(), true);
        let out = cg(&p.a, &p.b, 1e-8, 500, &mut dots).unwrap();
        assert!(out.converged, "eps {eps}");
        if eps == 1e-16 {
            assert_eq!(out.iterations, plain.iterations);
        }
        assert!(dots.checked > 0);
        assert_eq!(
            dots.violations, 0,
            "eps {eps}: rigorous bound violated inside CG"
        );
    }
}

#[test]
fn apm_with_a_tight_tolerance_finds_the_pm_eigenvalue() {
    let l = random_laplacian(300, 4, 11).unwrap();
    let x0 = start_vector(300, 2);
    let pm = power(&l, &x0, 1e-6, 2000, &mut PlainDot { tile: 64 }).unwrap();
    assert!(pm.converged);
    let config = QdotConfig::new(Format::FP64).unwrap();
    let mut dots = QdotDot::new(config, Tolerance::new(1e-12).unwrap(), true);
    let apm = power(&l, &x0, 1e-6, 2000, &mut dots).unwrap();
    assert!(apm.converged);
    assert!((apm.eigenvalue - pm.eigenvalue).abs() <= 1e-6 * pm.eigenvalue.abs());
    assert_eq!(dots.violations, 0);
}

#[test]
fn every_qdot_experiment_runs_on_a_tiny_plan() {
    let dir = std::env::temp_dir().join(format!("boundgate-qdot-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = dir.join("tiny.toml");
    std::fs::write(
        &plan,
        r#"
name = "qdot-tiny"
description = "every qdot experiment, tiny"
seeds = { first = 1, count = 1 }

[[experiment]]
name = "qdot-fig1"
params = { sizes = [100], eps = 1e-16 }

[[experiment]]
name = "qdot-fig2"
params = { sizes = [100], t = [5], distributions = ["B"] }

[[experiment]]
name = "qdot-efficiency"
params = { sizes = [1000], eps = [1e-8], repeats = 1 }

[[experiment]]
name = "qdot-acg"
params = { problems = ["6x6x2"], eps = [1e-16, 1e0], tol = 1e-8 }

[[experiment]]
name = "qdot-apm"
params = { n = 200, degree = 3, eps = [1e-16, 1e-4], tol = 1e-6, max_iter = 300 }
"#,
    )
    .unwrap();
    let report = dir.join("tiny.md");
    let out = Command::new(env!("CARGO_BIN_EXE_boundgate"))
        .args([
            "audit",
            "--plan",
            plan.to_str().unwrap(),
            "--markdown",
            report.to_str().unwrap(),
        ])
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(&report).unwrap();
    for name in [
        "qdot-fig1",
        "qdot-fig2",
        "qdot-efficiency",
        "qdot-acg",
        "qdot-apm",
    ] {
        assert!(
            md.contains(&format!("Experiment `{name}`")),
            "{name} missing from the report"
        );
    }
    assert!(md.contains(".svg"), "charts are written");
}
