//! Review of the runner as a CI gate sees it (2026-11-29): a failing gate
//! must say, in the log it leaves, which cell failed and with which seed.

use std::path::Path;

mod common;
use common::audit::{forge_violation, shard_json};
use common::cli::{boundgate, path_str, stderr, stdout, workdir, write_text};

/// The 1/1 shard report of a two-cell plan (fp16 and fp32, n = 4, seeds 1
/// and 2), as JSON.
fn two_cell_shard_json(dir: &Path) -> serde_json::Value {
    let plan = write_text(
        dir,
        "p.toml",
        "name = \"t\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [4]\nparams = { format = [\"fp16\", \"fp32\"] }\ndistributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }]\n",
    );
    shard_json(dir, &plan)
}

/// A gate run without report files (`boundgate audit` alone, as a CI step
/// may be) that exits 1 printed the counts ("1 VIOLATED") but not which
/// cell violated its rigorous bound, nor the seed and element to
/// reproduce it: they were in the JSON, Markdown, HTML and JUnit reports
/// only. The summary on stdout names them now. (A real violation is a bug
/// in a kernel or a bound; a forged shard report, merged, prints the same
/// summary as `audit`.)
#[test]
fn the_summary_of_a_failing_gate_names_the_cell_and_seed_of_each_violation() {
    let dir = workdir("summary-names-violations");
    let mut forged = two_cell_shard_json(&dir);
    let cell = &mut forged["cells"][1];
    assert_eq!(cell["params"]["format"], "fp32", "{cell}");
    let bound = &mut cell["bounds"][0];
    assert_eq!(bound["counts"]["pass"], 2, "{bound}");
    forge_violation(bound, 1, "seed 2: element 0: error 1e0 > bound 1e-1");
    let violated = write_text(&dir, "violated.json", &forged.to_string());
    let o = boundgate(&["merge", path_str(&violated)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("seed 2: element 0: error 1e0 > bound 1e-1"))
        .unwrap_or_else(|| panic!("no line names the violation's seed:\n{out}"));
    // The cell, as the reports name it, with its unit.
    assert_eq!(
        line,
        "  unit 1 dot-recursive fma=false format=fp32 mode=rne probability=0.99 n=4 U(-1,1): \
         violation (1 of 2 trials), first: seed 2: element 0: error 1e0 > bound 1e-1"
    );
    // The passing cell is not listed.
    assert!(!out.contains("unit 0 "), "{out}");
    // An undecided trial (what `--strict` fails on) is listed with its seed.
    let bound = &mut forged["cells"][0]["bounds"][0];
    bound["counts"]["pass"] = serde_json::json!(1);
    bound["counts"]["undecided"] = serde_json::json!(1);
    bound["first_undecided"] =
        serde_json::json!("seed 1: element 0: error in [1e-2, 2e0], bound 1e0");
    let undecided = write_text(&dir, "undecided.json", &forged.to_string());
    let o = boundgate(&["merge", path_str(&undecided), "--strict"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "  unit 0 dot-recursive fma=false format=fp16 mode=rne probability=0.99 n=4 U(-1,1): \
             undecided (1 of 2 trials), first: seed 1: element 0: error in [1e-2, 2e0], bound 1e0\n"
        ),
        "{}",
        stdout(&o)
    );
    // Without a violation, the summary lists none.
    let clean = write_text(&dir, "clean.json", &two_cell_shard_json(&dir).to_string());
    let o = boundgate(&["merge", path_str(&clean)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("seed "), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Many failing cells: the first 20 are listed, then how many more.
#[test]
fn the_summary_lists_at_most_twenty_failing_cells() {
    let dir = workdir("summary-caps-violations");
    let sizes: Vec<String> = (1..=22).map(|n| n.to_string()).collect();
    let plan = write_text(
        &dir,
        "p.toml",
        &format!(
            "name = \"t\"\nseeds = {{ first = 5, count = 1 }}\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [{}]\ndistributions = [{{ kind = \"uniform\", low = -1.0, high = 1.0 }}]\n",
            sizes.join(", ")
        ),
    );
    let mut forged = shard_json(&dir, &plan);
    for cell in forged["cells"].as_array_mut().unwrap() {
        let bound = &mut cell["bounds"][0];
        forge_violation(bound, 0, "seed 5: element 0: error 1e0 > bound 1e-1");
    }
    let violated = write_text(&dir, "violated.json", &forged.to_string());
    let o = boundgate(&["merge", path_str(&violated)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let listed = out.lines().filter(|l| l.starts_with("  unit ")).count();
    assert_eq!(listed, 20, "{out}");
    assert!(out.contains("  unit 19 dot-recursive "), "{out}");
    assert!(!out.contains("  unit 20 "), "{out}");
    assert!(
        out.contains("\n  ... and 2 more (the JSON, Markdown, HTML and JUnit reports list each)\n"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
