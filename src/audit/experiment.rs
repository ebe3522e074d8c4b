//! Experiments: named studies that do not fit the kernel x size x distribution
//! grid of a campaign (a paper's figure, a parameter sweep, an application),
//! run from a plan's `[[experiment]]` entries and reported with tables,
//! charts (SVG) and machine-readable data.
//!
//! ```toml
//! [[experiment]]
//! name = "qdot-fig1"
//! params = { sizes = [100, 1000], eps = 1e-16 }
//! ```
//!
//! An experiment that checks rigorous bounds counts their violations in
//! [`ExperimentReport::rigorous_violations`]; any violation fails the audit
//! (exit code 1), exactly like a campaign's.

use super::plan::Seeds;
use crate::error::Result;
use crate::plot::Chart;
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};

/// A table of results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Caption.
    pub title: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with the given caption and headers.
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Table {
        Table {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }
    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
    /// As a Markdown table with its caption.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Table;
    /// let mut t = Table::new("T", &["||r|| / ||b||"]);
    /// t.row(vec!["1e-16".into()]);
    /// assert!(t.to_markdown().contains("| \\|\\|r\\|\\| / \\|\\|b\\|\\| |"));
    /// ```
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "**{}**\n\n{}\n|{}|\n",
            self.title,
            markdown_row(&self.headers),
            vec!["---"; self.headers.len()].join("|")
        );
        for r in &self.rows {
            out.push_str(&markdown_row(r));
            out.push('\n');
        }
        out
    }
}

/// One Markdown table row, `| a | b |`, with `|` escaped and newlines
/// flattened in each cell: an unescaped `|` split the default plan's
/// `||b - Ax|| / ||b||` header into 14 cells against a 7-cell delimiter row,
/// so GFM rendered the table as text (review of 2026-11-25).
pub(crate) fn markdown_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|c| c.as_ref().replace('|', "\\|").replace('\n', " "))
        .collect();
    format!("| {} |", cells.join(" | "))
}

/// What an experiment produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentReport {
    /// The experiment's name.
    pub name: String,
    /// A title for people.
    pub title: String,
    /// What was done, how, and what the source paper reports for comparison.
    pub description: String,
    /// Result tables.
    pub tables: Vec<Table>,
    /// Charts (written as SVG files beside the Markdown report).
    pub charts: Vec<Chart>,
    /// The results as data (deterministic for a given plan and seeds).
    pub data: serde_json::Value,
    /// Violations of rigorous bounds observed (fail the audit).
    pub rigorous_violations: u64,
    /// Findings: statements about published results, with their evidence.
    pub findings: Vec<String>,
}

impl ExperimentReport {
    /// An empty report for the named experiment.
    pub fn new(
        name: &str,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> ExperimentReport {
        ExperimentReport {
            name: name.to_string(),
            title: title.into(),
            description: description.into(),
            tables: Vec::new(),
            charts: Vec::new(),
            data: serde_json::Value::Null,
            rigorous_violations: 0,
            findings: Vec::new(),
        }
    }
}

/// What an experiment may use while it runs.
pub struct ExperimentContext<'a> {
    /// Seeds of its trials.
    pub seeds: Seeds,
    /// Confidence for statistical judgements.
    pub confidence: f64,
    /// Whether the opt-in heavy sizes are enabled (`BOUNDGATE_HEAVY=1`).
    pub heavy: bool,
    /// The progress bar (set its message; it is hidden when not on a terminal).
    pub progress: &'a ProgressBar,
}

/// A named experiment.
pub trait Experiment: Sync {
    /// Its name in plans (`[[experiment]] name = ...`).
    fn name(&self) -> &'static str;
    /// One line saying what it reproduces or measures.
    fn summary(&self) -> &'static str;
    /// Checks the parameters without running (called when a plan is read);
    /// the error names the parameter, e.g. `params.eps: expected a number`.
    fn check_params(&self, params: &Params) -> std::result::Result<(), String>;
    /// Runs it.
    fn run(&self, params: &Params, context: &ExperimentContext<'_>) -> Result<ExperimentReport>;
    /// Whether its results depend on wall-clock measurements (throughput,
    /// speedups): such units are listed in the report's timings section and
    /// are exempt from the byte-identical-JSON guarantee.
    fn measures_time(&self) -> bool {
        false
    }
}

/// An experiment's parameters (a TOML table) with typed access; every error
/// names the parameter.
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// let p = Params::new(toml::from_str("eps = 1e-16\nsizes = [10, 100]").unwrap());
/// assert_eq!(p.f64_or("eps", 1.0).unwrap(), 1e-16);
/// assert_eq!(p.usize_list_or("sizes", &[1]).unwrap(), vec![10, 100]);
/// assert_eq!(p.f64_or("missing", 0.5).unwrap(), 0.5);
/// assert!(p.usize_list_or("eps", &[1]).unwrap_err().contains("params.eps"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    table: toml::Table,
}

impl Params {
    /// Wraps a table.
    pub fn new(table: toml::Table) -> Params {
        Params { table }
    }

    /// Refuses keys other than `known`.
    pub fn only(&self, known: &[&str]) -> std::result::Result<(), String> {
        match self.table.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(format!(
                "params.{k}: unknown parameter (known: {})",
                known.join(", ")
            )),
        }
    }

    fn err(key: &str, what: &str) -> String {
        format!("params.{key}: expected {what}")
    }

    /// A number (integers accepted), or `default` if absent.
    pub fn f64_or(&self, key: &str, default: f64) -> std::result::Result<f64, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => as_f64(v).ok_or_else(|| Self::err(key, "a number")),
        }
    }

    /// A non-negative integer, or `default` if absent.
    pub fn usize_or(&self, key: &str, default: usize) -> std::result::Result<usize, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => {
                as_usize(v).ok_or_else(|| Self::err(key, "a non-negative integer of at most 2^28"))
            }
        }
    }

    /// A boolean, or `default` if absent.
    pub fn bool_or(&self, key: &str, default: bool) -> std::result::Result<bool, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| Self::err(key, "true or false")),
        }
    }

    /// A string, or `default` if absent.
    pub fn str_or<'a>(
        &'a self,
        key: &str,
        default: &'a str,
    ) -> std::result::Result<&'a str, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => v.as_str().ok_or_else(|| Self::err(key, "a string")),
        }
    }

    /// A list of numbers, or `default` if absent.
    pub fn f64_list_or(&self, key: &str, default: &[f64]) -> std::result::Result<Vec<f64>, String> {
        match self.table.get(key) {
            None => Ok(default.to_vec()),
            Some(v) => list(v, as_f64).ok_or_else(|| Self::err(key, "a list of numbers")),
        }
    }

    /// A list of non-negative integers, or `default` if absent.
    pub fn usize_list_or(
        &self,
        key: &str,
        default: &[usize],
    ) -> std::result::Result<Vec<usize>, String> {
        match self.table.get(key) {
            None => Ok(default.to_vec()),
            Some(v) => list(v, as_usize)
                .ok_or_else(|| Self::err(key, "a list of non-negative integers of at most 2^28")),
        }
    }

    /// A list of strings, or `default` if absent.
    pub fn str_list_or(
        &self,
        key: &str,
        default: &[&str],
    ) -> std::result::Result<Vec<String>, String> {
        match self.table.get(key) {
            None => Ok(default.iter().map(|s| s.to_string()).collect()),
            Some(v) => list(v, |x| x.as_str().map(str::to_string))
                .ok_or_else(|| Self::err(key, "a list of strings")),
        }
    }
}

fn as_f64(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// An integer parameter: non-negative and at most
/// [`MAX_INPUT_ELEMENTS`](super::plan::MAX_INPUT_ELEMENTS). Integer
/// parameters are sizes, counts and repetitions; one past the cap is more
/// values than one input may hold, and `dot-tightness` with a size of 10^12
/// aborted on allocation until 2026-11-25 (review). Sizes that are squared
/// (matrix dimensions) need the experiment's own check.
fn as_usize(v: &toml::Value) -> Option<usize> {
    v.as_integer()
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&n| n <= super::plan::MAX_INPUT_ELEMENTS)
}

fn list<T>(v: &toml::Value, item: impl Fn(&toml::Value) -> Option<T>) -> Option<Vec<T>> {
    v.as_array()?.iter().map(item).collect()
}
