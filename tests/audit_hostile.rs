//! Hostile plans and reports: each is refused with exit code 2 and one line
//! naming the file and the field, never a panic, an abort or a hang
//! (review of 2026-11-25, /tmp/review-cli.md items 2, 4, 5, 10-14).
//! Every plan here is tiny, with fixed seeds.

use std::path::Path;

mod common;
use common::audit::{forge_violation, shard_json};
use common::cli::{assert_bad_input, boundgate, path_str, stderr, workdir, write_text};

/// A one-campaign plan: `kernel` at `size`, over `dist`, with extra lines.
fn plan(kernel: &str, size: &str, dist: &str, extra: &str) -> String {
    format!(
        "name = \"t\"\nseeds = {{ first = 1, count = 2 }}\n[[campaign]]\nkernel = \"{kernel}\"\nsizes = [{size}]\ndistributions = [{dist}]\n{extra}\n"
    )
}

const UNIFORM: &str = "{ kind = \"uniform\", low = -1.0, high = 1.0 }";

/// A shard report of a tiny plan, as JSON to forge.
fn tiny_shard_json(dir: &Path) -> serde_json::Value {
    let p = write_text(dir, "p.toml", &plan("dot-recursive", "4", UNIFORM, ""));
    shard_json(dir, &p)
}

/// Writes a forged copy of `base` (changed by `f`) and merges it alone.
fn merge_forged(
    dir: &Path,
    name: &str,
    base: &serde_json::Value,
    f: impl FnOnce(&mut serde_json::Value),
) -> std::process::Output {
    let mut v = base.clone();
    f(&mut v);
    let p = write_text(dir, name, &v.to_string());
    let md = dir.join(format!("{name}.md"));
    boundgate(&["merge", path_str(&p), "--markdown", path_str(&md)])
}

#[test]
fn merge_refuses_forged_counts_units_and_seeds() {
    let dir = workdir("merge-forged");
    let base = tiny_shard_json(&dir);
    // Shard count 2^63: allocated 2^63 flags (capacity overflow panic).
    let o = merge_forged(&dir, "cnt.json", &base, |v| {
        v["shard"]["count"] = serde_json::json!(1u64 << 63);
    });
    assert_bad_input(&o, "is missing");
    // Units 10^15: collected 0..10^15 (allocation abort).
    let o = merge_forged(&dir, "units.json", &base, |v| {
        v["units"] = serde_json::json!(1_000_000_000_000_000u64);
    });
    assert_bad_input(&o, "units.json");
    assert_bad_input(&o, "units:");
    // Seed count 0: first + count - 1 underflowed in the Markdown page.
    let o = merge_forged(&dir, "seeds.json", &base, |v| {
        v["seeds"] = serde_json::json!({ "first": 0, "count": 0 });
    });
    assert_bad_input(&o, "seeds.json");
    assert_bad_input(&o, "seeds:");
    // More outcomes than trials: rendered as "5 of 2 trials violate".
    let o = merge_forged(&dir, "viol.json", &base, |v| {
        v["cells"][0]["bounds"][0]["counts"]["violation"] = serde_json::json!(5);
    });
    assert_bad_input(&o, "cells[0].bounds[0].counts");
    // A unit beyond the plan's.
    let o = merge_forged(&dir, "unit.json", &base, |v| {
        v["cells"][0]["unit"] = serde_json::json!(7);
    });
    assert_bad_input(&o, "unit.json");
    // Edits that made the exit code, JUnit and the tables disagree, or
    // wrapped counts to 0 in release builds (review, 2026-11-26): a second
    // gating bound, a rigorous bound without a verdict in every trial,
    // causes that are not the violations', a negative ratio, a duration
    // that is not one.
    for (name, forge, field) in [
        (
            "gating.json",
            &(|v: &mut serde_json::Value| v["cells"][0]["bounds"][1]["gating"] = true.into())
                as &dyn Fn(&mut serde_json::Value),
            "only the first bound gates",
        ),
        (
            "ungated.json",
            &|v: &mut serde_json::Value| v["cells"][0]["bounds"][0]["gating"] = false.into(),
            "must gate",
        ),
        (
            "fewer.json",
            &|v: &mut serde_json::Value| v["cells"][0]["bounds"][0]["counts"]["pass"] = 0.into(),
            "a verdict in each",
        ),
        (
            "causes.json",
            &|v: &mut serde_json::Value| {
                v["cells"][0]["bounds"][1]["violation_causes"]["unexplained"] =
                    serde_json::json!(1u64 << 63)
            },
            "violation_causes",
        ),
        (
            "ratio.json",
            &|v: &mut serde_json::Value| v["cells"][0]["bounds"][0]["max_ratio"] = (-3.0).into(),
            "max_ratio",
        ),
        (
            "seconds.json",
            &|v: &mut serde_json::Value| v["timings"]["total_seconds"] = (-1.0).into(),
            "total_seconds",
        ),
    ] {
        let o = merge_forged(&dir, name, &base, forge);
        assert_bad_input(&o, name);
        assert_bad_input(&o, field);
    }
}

#[test]
fn a_report_that_cannot_be_written_does_not_hide_a_violation() {
    // /dev/full passes the path check (its folder exists) and fails the
    // write with ENOSPC, as a disk filling up mid-write would.
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = workdir("write-after-violation");
    let base = tiny_shard_json(&dir);
    let mut forged = base.clone();
    let bound = &mut forged["cells"][0]["bounds"][0];
    let counts = &bound["counts"];
    assert_eq!(counts["pass"], 2, "{counts}");
    // Each violation has its cause (the rigorous bound's own: unexplained).
    forge_violation(bound, 1, "seed 2: element 0: error 1e0 > bound 1e-1");
    let violated = write_text(&dir, "violated.json", &forged.to_string());
    let o = boundgate(&["merge", path_str(&violated), "--json", "/dev/full"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("/dev/full"), "{}", stderr(&o));
    // Without a violation the write error is the exit code.
    let clean = write_text(&dir, "clean.json", &base.to_string());
    let o = boundgate(&["merge", path_str(&clean), "--json", "/dev/full"]);
    assert_bad_input(&o, "/dev/full");
}

#[test]
fn plan_sizes_and_trials_are_capped_with_the_field_named() {
    let dir = workdir("caps");
    // 10^12 values: aborted on allocation.
    let p = write_text(
        &dir,
        "big.toml",
        &plan("dot-recursive", "1000000000000", UNIFORM, ""),
    );
    assert_bad_input(
        &boundgate(&["audit", "--plan", path_str(&p)]),
        "campaign[0].sizes",
    );
    // 2^32: size * size overflowed in the runner (exit 101).
    let p = write_text(
        &dir,
        "bigm.toml",
        &plan("mpfma-gemm", "4294967296", UNIFORM, ""),
    );
    assert_bad_input(
        &boundgate(&["audit", "--plan", path_str(&p)]),
        "campaign[0].sizes",
    );
    // 10^5 x 10^5 = 10^10 values: 80 GB.
    let p = write_text(
        &dir,
        "bigr.toml",
        &plan("residual-gemm", "100000", UNIFORM, ""),
    );
    let o = boundgate(&["audit", "--plan", path_str(&p)]);
    assert_bad_input(&o, "bigr.toml");
    assert_bad_input(&o, "2^28");
    // Trials beyond 2^24 per cell.
    let text = plan("dot-recursive", "4", UNIFORM, "").replace("count = 2", "count = 100000000");
    let p = write_text(&dir, "many.toml", &text);
    let o = boundgate(&["audit", "--plan", path_str(&p)]);
    assert_bad_input(&o, "seeds.count");
    assert_bad_input(&o, "2^24");
    // Seeds beyond 2^20 for an experiment, which keeps a sample per seed:
    // the plan's seeds it runs, or its own.
    let p = write_text(
        &dir,
        "manyexp.toml",
        "name = \"e\"\nseeds = { first = 1, count = 2000000 }\n[[experiment]]\nname = \"dot-tightness\"\n",
    );
    let o = boundgate(&["audit", "--plan", path_str(&p)]);
    assert_bad_input(&o, "seeds.count");
    assert_bad_input(&o, "2^20");
    let p = write_text(
        &dir,
        "manyown.toml",
        "name = \"e\"\nseeds = { first = 1, count = 1 }\n[[experiment]]\nname = \"dot-tightness\"\nseeds = { first = 1, count = 2000000 }\n",
    );
    assert_bad_input(
        &boundgate(&["audit", "--plan", path_str(&p)]),
        "experiment[0].seeds.count",
    );
    // An experiment's size of 10^12.
    let p = write_text(
        &dir,
        "exp.toml",
        "name = \"e\"\nseeds = { first = 1, count = 1 }\n[[experiment]]\nname = \"dot-tightness\"\nparams = { sizes = [1000000000000] }\n",
    );
    assert_bad_input(
        &boundgate(&["audit", "--plan", path_str(&p)]),
        "experiment[0].params.sizes",
    );
}

/// 3000 x 3000 parameter values (9 million cells, a 77 KB plan) aborted on
/// allocation (exit 134) while the cells were built; 10^5 repeats of a size
/// and of a format, the same (review, 2026-11-29).
#[test]
fn plans_expanding_to_too_many_cells_exit_2_with_one_line() {
    let dir = workdir("cells");
    let list = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let params = format!(
        "params = {{ tile = [{}], eps = [{}] }}",
        list(3000, &|i| format!("\"{i}\"")),
        list(3000, &|i| format!("\"{}e-9\"", i + 1))
    );
    let p = write_text(&dir, "grid.toml", &plan("qdot", "4", UNIFORM, &params));
    let o = boundgate(&["audit", "--plan", path_str(&p), "--quiet"]);
    assert_bad_input(&o, "grid.toml:3: campaign[0]: 9000000 cells");
    assert_bad_input(&o, "(2^16)");
    let sizes = list(100_000, &|_| "4".into());
    let formats = format!(
        "params = {{ format = [{}] }}",
        list(100_000, &|_| "\"fp16\"".into())
    );
    let p = write_text(
        &dir,
        "repeats.toml",
        &plan("dot-recursive", &sizes, UNIFORM, &formats),
    );
    let o = boundgate(&["audit", "--plan", path_str(&p), "--quiet"]);
    assert_bad_input(&o, "campaign[0]: 10000000000 cells");
}

#[test]
fn a_kernel_refusal_names_plan_cell_and_seed() {
    let dir = workdir("refusal");
    let p = write_text(
        &dir,
        "w.toml",
        &plan(
            "dot-tree",
            "8",
            "{ kind = \"uniform\", low = -1e300, high = 1e300 }",
            "",
        ),
    );
    let o = boundgate(&["audit", "--plan", path_str(&p), "--quiet"]);
    assert_bad_input(&o, "w.toml: unit 0 (kernel dot-tree");
    assert_bad_input(&o, "n=8 U(");
    assert_bad_input(&o, "seed 1:");
    // N(0, 1e308) draws infinities: refused when the plan is read.
    let p = write_text(
        &dir,
        "q.toml",
        &plan(
            "qdot",
            "8",
            "{ kind = \"normal\", mean = 0.0, std_dev = 1e308 }",
            "",
        ),
    );
    let o = boundgate(&["audit", "--plan", path_str(&p)]);
    assert_bad_input(&o, "campaign[0].distributions[0]");
    // The values as written, not 1e308's 309 digits.
    assert_bad_input(&o, "normal (0.0, 1e308) can draw infinite values");
}

#[test]
fn markdown_charts_of_same_named_experiments_do_not_collide() {
    let dir = workdir("charts");
    let p = write_text(
        &dir,
        "d.toml",
        "name = \"d\"\nseeds = { first = 1, count = 1 }\n[[experiment]]\nname = \"dot-tightness\"\nparams = { formats = [\"fp16\"], sizes = [10, 100] }\n[[experiment]]\nname = \"dot-tightness\"\nparams = { formats = [\"fp32\"], sizes = [10, 100] }\n",
    );
    let md = dir.join("r.md");
    let o = boundgate(&[
        "audit",
        "--plan",
        path_str(&p),
        "--quiet",
        "--markdown",
        path_str(&md),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&md).unwrap();
    let (a, b) = (
        dir.join("r-0-dot-tightness-0.svg"),
        dir.join("r-1-dot-tightness-0.svg"),
    );
    assert!(
        text.contains("r-0-dot-tightness-0.svg") && text.contains("r-1-dot-tightness-0.svg"),
        "{text}"
    );
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn markdown_table_cells_escape_pipes() {
    use boundgate::audit::experiment::Table;
    let mut t = Table::new("acg", &["problem", "true ||b - Ax|| / ||b||"]);
    t.row(vec!["a|b".into(), "1e-16".into()]);
    let md = t.to_markdown();
    let header = md.lines().nth(2).unwrap();
    assert_eq!(
        header,
        "| problem | true \\|\\|b - Ax\\|\\| / \\|\\|b\\|\\| |"
    );
    // As many unescaped separators in each row as in the delimiter row.
    let unescaped = |l: &str| l.replace("\\|", "").matches('|').count();
    for line in md.lines().skip(2) {
        assert_eq!(unescaped(line), 3, "{line}");
    }
}

/// A report of a tiny plan, run in process.
fn tiny_report(name: &str) -> boundgate::audit::AuditReport {
    let text = plan("dot-recursive", "4", UNIFORM, "")
        .replace("name = \"t\"", &format!("name = \"{name}\""));
    let plan = boundgate::audit::Plan::from_toml(&text, Path::new("t.toml")).unwrap();
    boundgate::audit::run_plan(&plan, Default::default()).unwrap()
}

#[test]
fn junit_and_html_show_what_strict_fails() {
    use boundgate::audit::{html, junit};
    use boundgate::error::ExitCode;
    // Every trial's exact result non-finite: no rigorous verdict at all.
    let mut r = tiny_report("t");
    let b = &mut r.cells[0].bounds[0];
    assert!(b.gating);
    b.counts.non_finite = b.counts.pass;
    b.counts.pass = 0;
    r.totals = boundgate::audit::report::Totals::of(&r.cells, &r.experiments);
    assert_eq!(r.strict_exit_code(), ExitCode::Unjudged);
    let xml = junit::to_junit(&r);
    assert!(xml.contains("skipped=\"1\""), "{xml}");
    assert!(
        xml.contains("2 of 2 trials had a non-finite exact result"),
        "{xml}"
    );
    assert!(xml.contains("not judged (--strict fails)"), "{xml}");
    let page = html::to_html(&r).unwrap();
    assert!(!page.contains("every rigorous bound held"));
    assert!(page.contains("2 verdicts not judged (--strict fails)"));

    // A partial hypothesis failure: still a pass, with a note.
    let mut r = tiny_report("t");
    let b = &mut r.cells[0].bounds[0];
    b.counts.pass = 1;
    b.counts.hypothesis_not_met = 1;
    r.totals = boundgate::audit::report::Totals::of(&r.cells, &r.experiments);
    let xml = junit::to_junit(&r);
    assert!(xml.contains("skipped=\"0\""), "{xml}");
    assert!(
        xml.contains("0 undecided, 1 hypothesis not met, 0 non-finite"),
        "{xml}"
    );
    assert!(html::to_html(&r).unwrap().contains("1 verdicts not judged"));
}

#[test]
fn junit_of_a_plan_named_with_noncharacters_is_well_formed() {
    let r = tiny_report("a\u{FFFF}b\u{FFFE}");
    let xml = boundgate::audit::junit::to_junit(&r);
    assert!(!xml.contains('\u{FFFF}') && !xml.contains('\u{FFFE}'));
    assert!(xml.contains("boundgate audit: a b "), "{xml}");
}

/// The reproducibility claim names its exception: timed experiments' tables
/// differ from run to run (review item 14).
#[test]
fn docs_state_the_timed_units_exception() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["README.md", "docs/sharding.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let claim = flat
            .find("byte-identical")
            .unwrap_or_else(|| panic!("{doc}"));
        let nearby = &flat[claim..(claim + 300).min(flat.len())];
        assert!(nearby.contains("timings.timed_units"), "{doc}: {nearby}");
    }
}

#[test]
fn confidence_just_below_one_is_refused_when_the_plan_is_read() {
    let text = plan("dot-recursive", "4", UNIFORM, "").replace(
        "[[campaign]]",
        "confidence = 0.9999999999999999\n[[campaign]]",
    );
    let e = boundgate::audit::Plan::from_toml(&text, Path::new("c.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("c.toml:3: confidence:"), "{e}");
}

#[test]
fn markdown_violation_entries_name_the_cell_parameters() {
    let mut r = tiny_report("t");
    r.cells[0].bounds[0].hypothesis_reasons = vec!["forged".into()];
    let md = r.to_markdown();
    let line = md
        .lines()
        .find(|l| l.starts_with("- dot-recursive"))
        .unwrap();
    assert!(line.contains("format=") && line.contains("n=4"), "{line}");
}
