//! `boundgate audit` shard reports to forge: the report of a plan as JSON,
//! and a violation written into it.

use super::cli::{boundgate, path_str, stderr};
use std::path::Path;

/// Runs the plan at `plan` as shard 1/1 (`--quiet`), its report written to
/// `dir/s.json`, and returns that report as JSON.
pub fn shard_json(dir: &Path, plan: &Path) -> serde_json::Value {
    let json = dir.join("s.json");
    let o = boundgate(&[
        "audit",
        "--plan",
        path_str(plan),
        "--quiet",
        "--shard",
        "1/1",
        "--json",
        path_str(&json),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// Forges one violation (of a rigorous bound's: unexplained) into a cell's
/// `bound` of a shard report: `pass` trials pass, the violation is `first`.
pub fn forge_violation(bound: &mut serde_json::Value, pass: u64, first: &str) {
    bound["counts"]["pass"] = serde_json::json!(pass);
    bound["counts"]["violation"] = serde_json::json!(1);
    bound["violation_causes"]["unexplained"] = serde_json::json!(1);
    bound["first_violation"] = serde_json::json!(first);
}
