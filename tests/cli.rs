//! The `boundgate` command line, end to end: each subcommand on real .npy
//! files, and each kind of bad input giving exit code 2 and one line naming
//! the problem.

use boundgate::io::read_npy;

mod common;
use common::cli::{assert_bad_input, boundgate, stderr, stdout, vector, workdir};

#[test]
fn round_writes_correctly_rounded_values() {
    let dir = workdir("round");
    let input = vector(&dir, "in.npy", &[0.1, 1.0e6, -3.0, 1.0 + 2f64.powi(-11)]);
    let out = dir.join("out.npy");
    let o = boundgate(&[
        "round",
        "--format",
        "fp16",
        "--mode",
        "rne",
        "--input",
        &input,
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_npy(&out).unwrap();
    assert_eq!(r.data(), &[0.0999755859375, f64::INFINITY, -3.0, 1.0]);
    // the overflow of 1e6 is IEEE-correct but said, not silent
    assert!(
        stdout(&o).contains("3 changed, 1 of them overflowed to an infinity"),
        "{}",
        stdout(&o)
    );

    let o = boundgate(&[
        "round",
        "--format",
        "fp16",
        "--mode",
        "rtz",
        "--input",
        &input,
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(read_npy(&out).unwrap().data()[1], 65504.0);
    assert!(!stdout(&o).contains("overflowed"), "{}", stdout(&o));
}

#[test]
fn oracle_dot_is_exact_and_prints_json() {
    let dir = workdir("oracle");
    // Naive evaluation gives 0; the exact value is 1.
    let x = vector(&dir, "x.npy", &[1.0e16, 1.0, -1.0e16]);
    let y = vector(&dir, "y.npy", &[1.0, 1.0, 1.0]);
    let o = boundgate(&["oracle", "dot", "--x", &x, "--y", &y, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["value"], 1.0);
    assert_eq!(v["hex"], "0x1p+0");
}

#[test]
fn run_writes_output_bounds_and_report() {
    let dir = workdir("run");
    let x = vector(&dir, "x.npy", &[0.1, 0.2, 0.3, 0.4]);
    let y = vector(&dir, "y.npy", &[1.5, -2.5, 3.5, 1e-3]);
    let out = dir.join("out.npy");
    let bound = dir.join("bound.npy");
    let report = dir.join("report.json");
    let o = boundgate(&[
        "run",
        "dot-recursive",
        "--input",
        &format!("x={x}"),
        "--input",
        &format!("y={y}"),
        "--param",
        "format=fp16",
        "--param",
        "fma=true",
        "--output",
        out.to_str().unwrap(),
        "--bound-output",
        bound.to_str().unwrap(),
        "--json",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let result = read_npy(&out).unwrap().data()[0];
    let b = read_npy(&bound).unwrap().data()[0];
    let exact = 0.1 * 1.5 - 0.2 * 2.5 + 0.3 * 3.5 + 0.4 * 1e-3;
    // The bound is with respect to the inputs as given (fp16 storage error included).
    assert!((result - exact).abs() <= b, "|{result} - {exact}| > {b}");
    assert!(
        b < 1e-2,
        "bound {b} should be of the order of fp16 rounding"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["kernel"], "dot-recursive");
    assert_eq!(json["verdicts"][0]["verdict"]["outcome"]["outcome"], "pass");
    assert!(stdout(&o).contains("holds"));
}

#[test]
fn run_list_names_every_kernel() {
    let o = boundgate(&["run", "--list"]);
    assert!(o.status.success());
    for k in boundgate::kernels::registry::all() {
        assert!(stdout(&o).contains(k.name()));
    }
}

#[test]
fn nan_input_gives_an_explicit_non_finite_verdict() {
    let dir = workdir("nan");
    let x = vector(&dir, "x.npy", &[1.0, f64::NAN]);
    let y = vector(&dir, "y.npy", &[1.0, 1.0]);
    let out = dir.join("out.npy");
    let o = boundgate(&[
        "run",
        "dot-pairwise",
        "--input",
        &format!("x={x}"),
        "--input",
        &format!("y={y}"),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("non-finite"), "{}", stdout(&o));
}

/// Every kernel does with a NaN or an infinity what `run --list` says
/// (`KernelInfo::non_finite`): a non-finite verdict from the rigorous check,
/// or the typed error naming the value (exit 2); the accessor kernels also
/// refuse them with integer storage. Inputs: the audit's shapes at size 8,
/// filled with 0.75 (a number of every format), the first element of the
/// first input replaced (a diagonal element: every triangular solve reads it).
#[test]
fn every_kernel_treats_non_finite_inputs_as_run_list_says() {
    use boundgate::io::Tensor;
    use boundgate::kernels::{Inputs, NonFiniteInputs, Params, registry};
    use boundgate_verify::check::Outcome;
    for kernel in registry::all() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut inputs = Inputs::new();
            for (i, (name, shape)) in kernel.audit_shapes(8).into_iter().enumerate() {
                let mut values = vec![0.75; shape.iter().product()];
                if i == 0 {
                    values[0] = bad;
                }
                let tensor = match shape[..] {
                    [_] => Tensor::vector(values),
                    [r, c] => Tensor::matrix(r, c, values).unwrap(),
                    _ => unreachable!("{}: {shape:?}", kernel.name()),
                };
                inputs.insert(name.to_string(), tensor);
            }
            // An error (every error exits 2) whose one line names the value,
            // without a misleading "GPU:" where the CPU model ran.
            let refused = |params: &Params| match kernel.run(&inputs, params) {
                Err(e) => {
                    let line = e.to_string();
                    assert!(
                        line.contains(&format!("{bad}"))
                            && line.contains("only finite values")
                            && !line.starts_with("GPU"),
                        "{} with {bad}: {line}",
                        kernel.name()
                    );
                }
                Ok(run) => panic!(
                    "{} with {bad} ran: {:?}",
                    kernel.name(),
                    run.verdicts().unwrap()[0].verdict.outcome
                ),
            };
            let defaults = Params::defaults(*kernel);
            match kernel.info().non_finite {
                NonFiniteInputs::Refused(_) => refused(&defaults),
                policy => {
                    let run = kernel
                        .run(&inputs, &defaults)
                        .unwrap_or_else(|e| panic!("{} with {bad} ({policy}): {e}", kernel.name()));
                    let outcome = run.verdicts().unwrap()[0].verdict.outcome.clone();
                    assert!(
                        matches!(outcome, Outcome::NonFinite { .. }),
                        "{} with {bad}: {outcome:?}",
                        kernel.name()
                    );
                    if let NonFiniteInputs::PropagatedUnless(_) = policy {
                        let mut int8 = defaults.clone();
                        int8.set(*kernel, "storage", "int8").unwrap();
                        refused(&int8);
                        // BLAS: with alpha = 0, GEMV and SpMV do not read A.
                        if matches!(kernel.name(), "accessor-gemv" | "accessor-spmv") {
                            let mut unread = defaults.clone();
                            unread.set(*kernel, "alpha", "0").unwrap();
                            let run = kernel.run(&inputs, &unread).unwrap();
                            assert!(
                                run.output.data().iter().all(|v| v.is_finite()),
                                "{}",
                                kernel.name()
                            );
                            let outcome = run.verdicts().unwrap()[0].verdict.outcome.clone();
                            assert!(
                                matches!(outcome, Outcome::Pass),
                                "{} alpha = 0 with {bad}: {outcome:?}",
                                kernel.name()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// `--strict`: a rigorous verdict that is not a pass without being a
/// violation exits 3 (here a NaN input, and an fp16 dot whose bound cannot
/// exclude overflow: x = [6e4, 6e4], y = [2, -1.9] gives NaN for 6000); a
/// pass still exits 0. Without it both exit 0, as the contract says.
#[test]
fn strict_runs_exit_3_on_unjudged_outputs() {
    let dir = workdir("strict");
    let run = |x: &[f64], y: &[f64], format: &str, strict: bool| {
        let (xs, ys) = (vector(&dir, "x.npy", x), vector(&dir, "y.npy", y));
        let out = dir.join("out.npy");
        let mut args = vec![
            "run".to_string(),
            "dot-recursive".into(),
            "--input".into(),
            format!("x={xs}"),
            "--input".into(),
            format!("y={ys}"),
            "--param".into(),
            format!("format={format}"),
            "--output".into(),
            out.to_str().unwrap().into(),
        ];
        if strict {
            args.push("--strict".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        boundgate(&args).status.code()
    };
    for strict in [false, true] {
        let unjudged = if strict { Some(3) } else { Some(0) };
        assert_eq!(run(&[1.0, f64::NAN], &[1.0, 1.0], "fp64", strict), unjudged);
        assert_eq!(run(&[6e4, 6e4], &[2.0, -1.9], "fp16", strict), unjudged);
        assert_eq!(run(&[0.5, 0.25], &[1.0, 3.0], "fp16", strict), Some(0));
    }
}

#[test]
fn bad_inputs_exit_2_with_one_line() {
    let dir = workdir("bad");
    let x = vector(&dir, "x.npy", &[1.0, 2.0]);
    let y3 = vector(&dir, "y3.npy", &[1.0, 2.0, 3.0]);
    let empty = vector(&dir, "empty.npy", &[]);
    let out = dir.join("out.npy");
    let out = out.to_str().unwrap();
    let missing = dir.join("missing.npy");

    let o = boundgate(&["oracle", "dot", "--x", missing.to_str().unwrap(), "--y", &x]);
    assert_bad_input(&o, "missing.npy");

    let text = dir.join("text.npy");
    std::fs::write(&text, "hello").unwrap();
    let o = boundgate(&["oracle", "dot", "--x", text.to_str().unwrap(), "--y", &x]);
    assert_bad_input(&o, "text.npy");

    let o = boundgate(&["oracle", "dot", "--x", &x, "--y", &y3]);
    assert_bad_input(&o, "length mismatch");

    // A matrix is not a vector (it was flattened).
    let m = dir.join("m22.npy");
    boundgate::io::write_npy(
        &m,
        &boundgate::io::Tensor::matrix(2, 2, vec![1.0; 4]).unwrap(),
    )
    .unwrap();
    let o = boundgate(&["oracle", "dot", "--x", m.to_str().unwrap(), "--y", &x]);
    assert_bad_input(&o, "a vector must be 1-D");

    let o = boundgate(&[
        "run",
        "dot-recursive",
        "--input",
        &format!("x={empty}"),
        "--input",
        &format!("y={empty}"),
        "--output",
        out,
    ]);
    assert_bad_input(&o, "empty");

    let o = boundgate(&["run", "no-such-kernel", "--output", out]);
    assert_bad_input(&o, "unknown kernel");

    // dot-recursive on x . x with the given --param pairs.
    let dot_with = |params: &[&str]| {
        let (xa, ya) = (format!("x={x}"), format!("y={x}"));
        let mut args = vec!["run", "dot-recursive", "--input", &xa, "--input", &ya];
        for p in params {
            args.extend(["--param", p]);
        }
        args.extend(["--output", out]);
        boundgate(&args)
    };
    let o = dot_with(&["colour=red"]);
    assert_bad_input(&o, "colour");

    let o = dot_with(&["format=fp16", "format=fp32"]);
    assert_bad_input(&o, "given twice");

    let o = dot_with(&["format=fp12"]);
    assert_bad_input(&o, "fp12");

    let o = boundgate(&[
        "run",
        "dot-recursive",
        "--input",
        &format!("x={x}"),
        "--output",
        out,
    ]);
    assert_bad_input(&o, "missing input `y`");

    // A finite input that overflows the storage format is named as given
    // (not as the infinity it would become).
    let big = vector(&dir, "big.npy", &[1e6, 1.0]);
    let o = boundgate(&[
        "run",
        "dot-tree",
        "--input",
        &format!("x={big}"),
        "--input",
        &format!("y={x}"),
        "--param",
        "precision=fp16-fp32",
        "--output",
        out,
    ]);
    assert_bad_input(&o, "x[0] = 1e6 overflows fp16");

    let o = boundgate(&["round", "--format", "fp12", "--input", &x, "--output", out]);
    assert_eq!(o.status.code(), Some(2));

    let plan = dir.join("plan.toml");
    std::fs::write(&plan, "name = \"p\"\nseeds = { first = 1, count = 0 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [4]\ndistributions = [{ kind = \"normal\", mean = 0.0, std_dev = 1.0 }]\n").unwrap();
    let o = boundgate(&["audit", "--plan", plan.to_str().unwrap()]);
    assert_bad_input(&o, "seeds.count");
}

#[test]
fn audit_runs_a_small_plan_and_reports() {
    let dir = workdir("audit");
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        "name = \"small\"\nseeds = { first = 7, count = 5 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [8, 300]\n\
         distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }]\nparams = { format = [\"fp16\", \"fp32\"] }\n",
    )
    .unwrap();
    let json = dir.join("report.json");
    let md = dir.join("report.md");
    let o = boundgate(&[
        "audit",
        "--plan",
        plan.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("4 cells, 20 trials"), "{}", stdout(&o));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], "boundgate.audit/2");
    assert_eq!(report["totals"]["rigorous"]["violation"], 0);
    assert_eq!(report["totals"]["rigorous"]["pass"], 20);
    assert!(std::fs::read_to_string(&md).unwrap().contains("| kernel |"));

    // Same plan, same seeds: the same report apart from the timings.
    let json2 = dir.join("report2.json");
    let o = boundgate(&[
        "audit",
        "--plan",
        plan.to_str().unwrap(),
        "--json",
        json2.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let mut a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json2).unwrap()).unwrap();
    a["timings"] = serde_json::Value::Null;
    b["timings"] = serde_json::Value::Null;
    assert_eq!(a, b);

    // --strict: every verdict here is a pass, so still 0; a plan with a
    // possible fp16 overflow (its rigorous bound has no value) exits 3.
    let o = boundgate(&["audit", "--plan", plan.to_str().unwrap(), "--strict"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let overflow = dir.join("overflow.toml");
    std::fs::write(
        &overflow,
        "name = \"overflow\"\nseeds = { first = 7, count = 2 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [8]\n\
         distributions = [{ kind = \"uniform\", low = 3e4, high = 6e4 }]\nparams = { format = [\"fp16\"] }\n",
    )
    .unwrap();
    let o = boundgate(&["audit", "--plan", overflow.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = boundgate(&["audit", "--plan", overflow.to_str().unwrap(), "--strict"]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn bounds_prints_the_catalogue_and_refusals() {
    let o = boundgate(&[
        "bounds", "--n", "4096", "--format", "fp16", "--format", "fp64",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("gamma_n"), "{text}");
    // fp16 at n = 4096: n u = 2 >= 1, gamma_n has no value.
    assert!(text.contains("n u < 1"), "{text}");
    // The tensor-core records with fp16 operands: the block-FMA growth of
    // one chain and of any order, the latter 4 times the former on sm90.
    let row_value = |start: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.contains(start))
            .unwrap_or_else(|| panic!("no row {start}: {text}"));
        let after = &line[line.find(" - 1").unwrap() + 4..];
        after.split_whitespace().next().unwrap().parse().unwrap()
    };
    let chain = row_value("block FMA, one chain, sm90 fp16->fp32");
    let any = row_value("block FMA, any order, sm90 fp16->fp32");
    assert!((any / chain - 4.0).abs() < 0.01, "{any} / {chain}");
    // No tensor-core record takes fp64 operands.
    assert!(
        text.lines()
            .filter(|l| l.starts_with("fp64"))
            .all(|l| !l.contains("block FMA")),
        "{text}"
    );
    // A probabilistic row states its probability for one theta_n and for a
    // dot product of n terms (Higham and Mary's Theorem 3.1, 1 - n (1 - P):
    // vacuous for fp16 at n = 1000, lambda = 3, where P(3) = 0.9777).
    let o = boundgate(&["bounds", "--n", "1000", "--format", "fp16"]);
    let text = stdout(&o);
    let higham_mary = text
        .lines()
        .find(|l| l.contains("Higham-Mary"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        higham_mary.contains("|theta_n|: p >= 0.977684; a dot: p >= -21.316 (vacuous)"),
        "{higham_mary}"
    );
    // Every rounding mode that is not to nearest refuses the probabilistic
    // models (rounding errors of mean zero, uniform on [-u, u]).
    let o = boundgate(&["bounds", "--n", "1000", "--format", "fp16", "--mode", "rtz"]);
    let text = stdout(&o);
    let refused: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("gamma~") || l.contains("VIBEA"))
        .collect();
    assert_eq!(refused.len(), 4, "{text}");
    for line in refused {
        assert!(
            line.contains("round to nearest") && !line.contains("p >="),
            "{line}"
        );
    }
    // A bound that overflows binary64 is a row without a value, in the table
    // and in JSON (serde wrote +inf as null).
    let o = boundgate(&["bounds", "--n", "16777216", "--format", "e4m3", "--json"]);
    let json = stdout(&o);
    assert!(!json.contains("\"value\": null"), "{json}");
    assert!(json.contains("overflows binary64"), "{json}");
    // A lambda that is not a positive number is bad usage, not a row.
    for lambda in ["--lambda=nan", "--lambda=-1", "--lambda=0"] {
        assert_bad_input(&boundgate(&["bounds", lambda]), "--lambda");
    }
    // n = 0 has no bound (it was evaluated as n = 1).
    assert_bad_input(&boundgate(&["bounds", "--n", "0"]), "--n");
}

#[test]
fn audit_experiments_write_charts_and_refuse_bad_params() {
    let dir = workdir("experiment");
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        "name = \"exp\"\nseeds = { first = 1, count = 3 }\n[[experiment]]\nname = \"dot-tightness\"\n\
         params = { formats = [\"fp16\", \"fp32\"], sizes = [8, 64] }\n",
    )
    .unwrap();
    let md = dir.join("r.md");
    let o = boundgate(&[
        "audit",
        "--plan",
        plan.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let text = std::fs::read_to_string(&md).unwrap();
    for k in 0..2 {
        let svg = format!("r-0-dot-tightness-{k}.svg");
        assert!(text.contains(&svg), "{text}");
        assert!(
            std::fs::read_to_string(dir.join(&svg))
                .unwrap()
                .starts_with("<svg")
        );
    }

    std::fs::write(
        &plan,
        "name = \"exp\"\nseeds = { first = 1, count = 3 }\n[[experiment]]\nname = \"dot-tightness\"\nparams = { sizes = \"many\" }\n",
    )
    .unwrap();
    let o = boundgate(&["audit", "--plan", plan.to_str().unwrap()]);
    assert_bad_input(&o, "experiment[0].params.sizes");
}

#[test]
fn a_missing_subcommand_is_one_line_that_says_so() {
    for args in [&[][..], &["oracle"][..]] {
        let o = boundgate(args);
        assert_bad_input(&o, "a subcommand is required");
    }
}

#[cfg(unix)]
#[test]
fn a_closed_output_pipe_ends_the_process_quietly() {
    use std::os::unix::process::ExitStatusExt;
    // The reading end is closed before the binary starts, so its first
    // print meets a broken pipe (it panicked with exit 101).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_boundgate"))
        .args(["run", "--list"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(
        o.status.signal(),
        Some(13),
        "{:?}: {}",
        o.status,
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn report_paths_are_checked_before_anything_runs() {
    // The default plan takes minutes: a refusal within the test's time
    // shows the paths are checked first (they failed after the whole run).
    let dir = workdir("report-paths");
    let missing = dir.join("no-such-folder").join("r.html");
    let o = boundgate(&["audit", "--quiet", "--html", missing.to_str().unwrap()]);
    assert_bad_input(&o, "its folder does not exist");
    let o = boundgate(&["audit", "--quiet", "--json", dir.to_str().unwrap()]);
    assert_bad_input(&o, "is a directory");
    let o = boundgate(&["merge", "x.json", "--markdown", dir.to_str().unwrap()]);
    assert_bad_input(&o, "is a directory");
}
