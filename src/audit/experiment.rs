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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Table;
    /// let t = Table::new("sizes", &["n", "ratio"]);
    /// assert_eq!(t.title, "sizes");
    /// assert_eq!(t.headers, ["n", "ratio"]);
    /// assert!(t.rows.is_empty());
    /// // caption, header row and a delimiter row of one `---` per column
    /// assert_eq!(t.to_markdown(), "**sizes**\n\n| n | ratio |\n|---|---|\n");
    /// ```
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Table {
        Table {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }
    /// Appends a row.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Table;
    /// let mut t = Table::new("T", &["n", "ratio"]);
    /// t.row(vec!["10".into(), "0.5".into()]);
    /// t.row(vec!["100".into(), "0.25".into()]);
    /// assert_eq!(t.rows[1], ["100", "0.25"]); // appended in order
    /// assert!(t.to_markdown().ends_with("| 10 | 0.5 |\n| 100 | 0.25 |\n"));
    /// ```
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
/// A backslash is escaped first (`a\|b` read as an escaped backslash and a
/// real separator), and control characters (CR, ESC, NUL ...) become
/// spaces (review, 2026-11-26).
pub(crate) fn markdown_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|c| {
            c.as_ref()
                .chars()
                .map(|ch| if ch.is_control() { ' ' } else { ch })
                .collect::<String>()
                .replace('\\', "\\\\")
                .replace('|', "\\|")
        })
        .collect();
    format!("| {} |", cells.join(" | "))
}

/// Text from a plan (its name, its description) as literal Markdown: every
/// ASCII punctuation character backslash-escaped (CommonMark allows it for
/// all of them), so a `#`, `|`, `<script>` or backtick in a plan's name is
/// text, not a heading, a table, HTML or code; control characters other
/// than newlines become spaces, and with `one_line` newlines too (review,
/// 2026-11-26: a plan name injected a heading and raw HTML).
pub(crate) fn markdown_text(text: &str, one_line: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\n' if !one_line => out.push('\n'),
            c if c.is_control() => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::ExperimentReport;
    /// let r = ExperimentReport::new("qdot-fig1", "Figure 1", "Reproduces figure 1.");
    /// assert_eq!((r.name.as_str(), r.title.as_str()), ("qdot-fig1", "Figure 1"));
    /// // nothing yet: no violation, no data, no tables, charts or findings
    /// assert_eq!(r.rigorous_violations, 0);
    /// assert!(r.data.is_null());
    /// assert!(r.tables.is_empty() && r.charts.is_empty() && r.findings.is_empty());
    /// ```
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
    /// How many results it keeps for every seed it runs, with these
    /// parameters (already checked): the plan refuses more than
    /// [`MAX_EXPERIMENT_RESULTS`](crate::audit::plan::MAX_EXPERIMENT_RESULTS)
    /// in all. 0 for an experiment that runs only the first seed, whatever
    /// `seeds.count` says; 1 unless an experiment says otherwise.
    fn results_per_seed(&self, params: &Params) -> std::result::Result<u64, String> {
        let _ = params;
        Ok(1)
    }
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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("n = 3").unwrap());
    /// assert_eq!(p.usize_or("n", 1).unwrap(), 3);
    /// // an empty table: every getter gives its default
    /// assert_eq!(Params::new(toml::Table::new()), Params::default());
    /// assert_eq!(Params::default().usize_or("n", 1).unwrap(), 1);
    /// ```
    pub fn new(table: toml::Table) -> Params {
        Params { table }
    }

    /// Refuses keys other than `known`.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("eps = 1e-16\nsizse = [10]").unwrap());
    /// assert!(p.only(&["eps", "sizse"]).is_ok());
    /// // a misspelt key is named, with the known ones
    /// assert_eq!(p.only(&["eps", "sizes"]).unwrap_err(), "params.sizse: unknown parameter (known: eps, sizes)");
    /// assert!(Params::default().only(&[]).is_ok());
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("eps = 1e-16\nn = 3\nname = \"x\"").unwrap());
    /// assert_eq!(p.f64_or("eps", 1.0).unwrap(), 1e-16);
    /// assert_eq!(p.f64_or("n", 1.0).unwrap(), 3.0); // an integer is a number
    /// assert_eq!(p.f64_or("tol", 0.5).unwrap(), 0.5); // absent
    /// assert_eq!(p.f64_or("name", 1.0).unwrap_err(), "params.name: expected a number");
    /// ```
    pub fn f64_or(&self, key: &str, default: f64) -> std::result::Result<f64, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => as_f64(v).ok_or_else(|| Self::err(key, "a number")),
        }
    }

    /// A non-negative integer, or `default` if absent.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// // the cap is 2^28 = 268435456, inclusive
    /// let p = Params::new(toml::from_str("a = 268435456\nb = 268435457\nc = -1\nd = 2.0").unwrap());
    /// assert_eq!(p.usize_or("a", 0).unwrap(), 1 << 28);
    /// assert!(p.usize_or("b", 0).unwrap_err().starts_with("params.b: expected a non-negative integer"));
    /// assert!(p.usize_or("c", 0).is_err());
    /// assert!(p.usize_or("d", 0).is_err()); // a float is not an integer
    /// assert_eq!(p.usize_or("e", 7).unwrap(), 7);
    /// ```
    pub fn usize_or(&self, key: &str, default: usize) -> std::result::Result<usize, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => {
                as_usize(v).ok_or_else(|| Self::err(key, "a non-negative integer of at most 2^28"))
            }
        }
    }

    /// A non-negative integer of the full TOML range (up to `2^63 - 1`), or
    /// `None` if absent: for seeds, which unlike sizes need no cap.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("a = 9223372036854775807\nb = -1\nc = 1.5").unwrap());
    /// assert_eq!(p.u64_opt("a").unwrap(), Some(i64::MAX as u64));
    /// assert_eq!(p.u64_opt("b").unwrap_err(), "params.b: expected a non-negative integer");
    /// assert!(p.u64_opt("c").is_err()); // a float is not an integer
    /// assert_eq!(p.u64_opt("absent").unwrap(), None);
    /// ```
    pub fn u64_opt(&self, key: &str) -> std::result::Result<Option<u64>, String> {
        match self.table.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_integer()
                .and_then(|i| u64::try_from(i).ok())
                .map(Some)
                .ok_or_else(|| Self::err(key, "a non-negative integer")),
        }
    }

    /// A boolean, or `default` if absent.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("heavy = true\nquick = 1").unwrap());
    /// assert!(p.bool_or("heavy", false).unwrap());
    /// assert!(!p.bool_or("absent", false).unwrap());
    /// assert_eq!(p.bool_or("quick", false).unwrap_err(), "params.quick: expected true or false");
    /// ```
    pub fn bool_or(&self, key: &str, default: bool) -> std::result::Result<bool, String> {
        match self.table.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| Self::err(key, "true or false")),
        }
    }

    /// A string, or `default` if absent.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("format = \"bf16\"\nn = 3").unwrap());
    /// assert_eq!(p.str_or("format", "fp16").unwrap(), "bf16");
    /// assert_eq!(p.str_or("working", "fp32").unwrap(), "fp32");
    /// assert_eq!(p.str_or("n", "").unwrap_err(), "params.n: expected a string");
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("eps = [1, 0.5, 1e-3]\nbad = [1.0, \"x\"]\none = 1.0").unwrap());
    /// assert_eq!(p.f64_list_or("eps", &[]).unwrap(), vec![1.0, 0.5, 1e-3]);
    /// assert_eq!(p.f64_list_or("absent", &[2.0]).unwrap(), vec![2.0]);
    /// assert_eq!(p.f64_list_or("bad", &[]).unwrap_err(), "params.bad: expected a list of numbers");
    /// assert!(p.f64_list_or("one", &[]).is_err()); // a number is not a list
    /// ```
    pub fn f64_list_or(&self, key: &str, default: &[f64]) -> std::result::Result<Vec<f64>, String> {
        match self.table.get(key) {
            None => Ok(default.to_vec()),
            Some(v) => list(v, as_f64).ok_or_else(|| Self::err(key, "a list of numbers")),
        }
    }

    /// A list of non-negative integers, or `default` if absent.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("sizes = [0, 10, 268435456]\nbad = [10, -1]").unwrap());
    /// assert_eq!(p.usize_list_or("sizes", &[]).unwrap(), vec![0, 10, 1 << 28]);
    /// assert_eq!(p.usize_list_or("absent", &[5]).unwrap(), vec![5]);
    /// // one bad entry refuses the whole list
    /// assert!(p.usize_list_or("bad", &[]).unwrap_err().starts_with("params.bad: expected a list of non-negative integers"));
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::Params;
    /// let p = Params::new(toml::from_str("formats = [\"fp16\", \"bf16\"]\nbad = [\"fp16\", 8]").unwrap());
    /// assert_eq!(p.str_list_or("formats", &[]).unwrap(), ["fp16", "bf16"]);
    /// assert_eq!(p.str_list_or("absent", &["fp32"]).unwrap(), ["fp32"]);
    /// assert_eq!(p.str_list_or("bad", &[]).unwrap_err(), "params.bad: expected a list of strings");
    /// ```
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

/// The most entries a list parameter may hold: 256. Every list an
/// experiment takes is a sweep that multiplies its work (each threshold,
/// tolerance or size is one more run over everything else); the longest a
/// shipped plan or a default uses is 20 (`qdot-acg`'s tolerances 1e-16 to
/// 1e3), and 256 points are finer than a chart can show. Without a cap only
/// the plan file's length bounded the work.
///
/// # Example
/// ```
/// assert_eq!(boundgate::audit::experiment::MAX_LIST_LEN, 256);
/// ```
pub const MAX_LIST_LEN: usize = 256;

/// Checks a uniform range given as `params.low` and `params.high`, naming the
/// end at fault: `low` when it is not finite, else `high` (not above a
/// finite `low`, or too far from it). Both ends were once reported as `low`
/// (dot-tightness, fixed 2026-11-25; mpfma-fig5, found by review 2026-11-26).
///
/// # Example
/// ```
/// use boundgate::audit::experiment::uniform_range;
/// assert!(uniform_range(1.0, 2.0).is_ok());
/// assert!(uniform_range(1.0, 0.5).unwrap_err().starts_with("params.high: "));
/// assert!(uniform_range(f64::NAN, 2.0).unwrap_err().starts_with("params.low: "));
/// ```
pub fn uniform_range(low: f64, high: f64) -> std::result::Result<(), String> {
    let culprit = if low.is_finite() { "high" } else { "low" };
    crate::generate::Distribution::Uniform { low, high }
        .validate()
        .map_err(|e| format!("params.{culprit}: {e}"))
}

/// A list parameter that the run iterates: refused when empty (the run would
/// report nothing, which reads as a pass: `formats = []` gave an empty
/// table until 2026-11-26) or longer than [`MAX_LIST_LEN`].
///
/// # Example
/// ```
/// use boundgate::audit::experiment::{Params, non_empty};
/// let p = Params::new(toml::from_str("formats = []").unwrap());
/// let formats = p.str_list_or("formats", &["fp16"]).unwrap();
/// assert_eq!(non_empty("formats", formats).unwrap_err(), "params.formats: must not be empty");
/// assert_eq!(non_empty("sizes", vec![1, 2]).unwrap(), vec![1, 2]);
/// assert!(non_empty("sizes", vec![1; 257]).unwrap_err().contains("257 entries"));
/// ```
pub fn non_empty<T>(key: &str, values: Vec<T>) -> std::result::Result<Vec<T>, String> {
    if values.is_empty() {
        Err(format!("params.{key}: must not be empty"))
    } else {
        list_within(key, values)
    }
}

/// A list parameter that may be empty (nothing more to do, such as heavy
/// sizes or the sizes of a kernel the plan does not select), refused when
/// longer than [`MAX_LIST_LEN`].
///
/// # Example
/// ```
/// use boundgate::audit::experiment::list_within;
/// assert!(list_within::<usize>("heavy_sizes", vec![]).unwrap().is_empty());
/// assert_eq!(
///     list_within("heavy_sizes", vec![1; 300]).unwrap_err(),
///     "params.heavy_sizes: 300 entries exceed the limit of 256"
/// );
/// ```
pub fn list_within<T>(key: &str, values: Vec<T>) -> std::result::Result<Vec<T>, String> {
    if values.len() > MAX_LIST_LEN {
        Err(format!(
            "params.{key}: {} entries exceed the limit of {MAX_LIST_LEN}",
            values.len()
        ))
    } else {
        Ok(values)
    }
}

/// The number of values in the largest matrix, vector or grid that parameter
/// `key` makes the run build, the product of `dims`, if it is at most
/// [`MAX_INPUT_ELEMENTS`](super::plan::MAX_INPUT_ELEMENTS) (2^28); else the
/// error naming the parameter, the dimensions and the limit. Each integer
/// parameter is capped at 2^28 on its own, but a matrix dimension is squared:
/// `residual-accuracy` with `size = 1048576` asked for 2^40 elements.
///
/// # Example
/// ```
/// use boundgate::audit::experiment::elements_within;
/// assert_eq!(elements_within("size", &[1024, 1024]).unwrap(), 1 << 20);
/// assert_eq!(
///     elements_within("size", &[20000, 20000]).unwrap_err(),
///     "params.size: 20000 x 20000 = 400000000 elements exceed the limit of 2^28"
/// );
/// // No overflow, whatever the dimensions.
/// assert!(elements_within("problems", &[usize::MAX; 3]).is_err());
/// ```
pub fn elements_within(key: &str, dims: &[usize]) -> std::result::Result<usize, String> {
    let limit = super::plan::MAX_INPUT_ELEMENTS;
    debug_assert_eq!(limit, 1 << 28);
    let n = product_within(key, dims, 28, "elements")?;
    // At most 2^28, so it fits.
    Ok(usize::try_from(n).unwrap_or(limit))
}

/// The product of `factors` if it is at most `2^limit_log2`, else the error
/// `params.<key>: a x b = p <unit> exceed the limit of 2^<limit_log2>`: how
/// an experiment bounds the work that several parameters multiply (values
/// timed, multiply-adds, stencil updates), with checked arithmetic. A
/// `limit_log2` of 64 or more allows any product that fits the `u64`
/// returned.
///
/// # Errors
/// The message above when the product exceeds the limit (or `u64::MAX`).
///
/// # Example
/// ```
/// use boundgate::audit::experiment::product_within;
/// assert_eq!(product_within("repeats", &[5, 1000], 32, "values timed").unwrap(), 5000);
/// assert_eq!(
///     product_within("repeats", &[1 << 20, 1 << 20], 32, "values timed").unwrap_err(),
///     "params.repeats: 1048576 x 1048576 = 1099511627776 values timed exceed the limit of 2^32"
/// );
/// // 2^64 does not fit the u64 returned: products up to u64::MAX pass
/// assert_eq!(product_within("n", &[1 << 32, 1 << 31], 100, "values").unwrap(), 1 << 63);
/// assert!(product_within("n", &[1 << 32, 1 << 32], 100, "values").is_err());
/// ```
pub fn product_within(
    key: &str,
    factors: &[usize],
    limit_log2: u32,
    unit: &str,
) -> std::result::Result<u64, String> {
    // 2^64 and above do not fit the u64 returned: the limit is then u64::MAX
    // (a debug_assert refused them in debug builds only; release builds
    // silently used 2^63).
    let limit = if limit_log2 < 64 {
        1u128 << limit_log2
    } else {
        u128::from(u64::MAX)
    };
    let shown: Vec<String> = factors.iter().map(usize::to_string).collect();
    let product = factors
        .iter()
        .try_fold(1u128, |p, &f| p.checked_mul(f as u128));
    match product {
        Some(p) if p <= limit => Ok(p as u64),
        Some(p) if factors.len() == 1 => Err(format!(
            "params.{key}: {p} {unit} exceed the limit of 2^{limit_log2}"
        )),
        Some(p) => Err(format!(
            "params.{key}: {} = {p} {unit} exceed the limit of 2^{limit_log2}",
            shown.join(" x ")
        )),
        None => Err(format!(
            "params.{key}: {} {unit} exceed the limit of 2^{limit_log2}",
            shown.join(" x ")
        )),
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

/// Helpers for the experiments' tests of their parameter checks.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Experiment, Params};
    use std::path::Path;

    /// Parameters from TOML text.
    pub(crate) fn params(text: &str) -> Params {
        Params::new(toml::from_str(text).expect("TOML"))
    }

    /// Asserts that `text` is refused with an error about `params.<key>`, and
    /// returns the error.
    pub(crate) fn refused(e: &dyn Experiment, text: &str, key: &str) -> String {
        let err = e
            .check_params(&params(text))
            .expect_err(&format!("{}: `{text}` was accepted", e.name()));
        assert!(
            err.starts_with(&format!("params.{key}:")),
            "{}: `{text}` refused without naming params.{key}: {err}",
            e.name()
        );
        err
    }

    /// Asserts that the defaults (no parameters) and the parameters of every
    /// `[[experiment]]` entry of `e` in the shipped plans (`plans/*.toml`,
    /// `tests/plans/*.toml`) are accepted; returns how many entries there were.
    pub(crate) fn accepts_defaults_and_shipped(e: &dyn Experiment) -> usize {
        e.check_params(&Params::default())
            .unwrap_or_else(|err| panic!("{}: defaults refused: {err}", e.name()));
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut entries = 0;
        for dir in ["plans", "tests/plans"] {
            for file in std::fs::read_dir(root.join(dir)).expect("plan directory") {
                let path = file.expect("directory entry").path();
                if path.extension().is_none_or(|x| x != "toml") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("plan");
                let plan: toml::Table = toml::from_str(&text).expect("plan TOML");
                let Some(list) = plan.get("experiment").and_then(|v| v.as_array()) else {
                    continue;
                };
                for entry in list {
                    if entry.get("name").and_then(|n| n.as_str()) != Some(e.name()) {
                        continue;
                    }
                    let table = entry
                        .get("params")
                        .and_then(|p| p.as_table())
                        .cloned()
                        .unwrap_or_default();
                    e.check_params(&Params::new(table)).unwrap_or_else(|err| {
                        panic!("{}: refused in {}: {err}", e.name(), path.display())
                    });
                    entries += 1;
                }
            }
        }
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_within_accepts_a_limit_beyond_u64_without_panicking() {
        for log2 in [64, 65, u32::MAX] {
            assert_eq!(
                product_within("n", &[1 << 32, 1 << 31], log2, "v"),
                Ok(1 << 63)
            );
            assert_eq!(
                product_within("n", &[usize::MAX], log2, "v"),
                Ok(usize::MAX as u64)
            );
            assert!(product_within("n", &[1 << 32, 1 << 32], log2, "v").is_err());
        }
        assert_eq!(product_within("n", &[1 << 31, 2], 32, "v"), Ok(1 << 32));
        assert!(product_within("n", &[1 << 31, 4], 32, "v").is_err());
    }

    /// Plan text is literal in Markdown, and table cells keep their columns
    /// (review, 2026-11-26).
    #[test]
    fn markdown_text_and_rows_stay_literal() {
        assert_eq!(
            markdown_text("x | y\n# h <script>`c`\u{1b}", true),
            "x \\| y \\# h \\<script\\>\\`c\\` "
        );
        assert_eq!(markdown_text("a\nb.", false), "a\nb\\.");
        assert_eq!(markdown_row(&["a\\|b", "c\rd"]), "| a\\\\\\|b | c d |");
    }

    #[test]
    fn element_counts_at_the_limit_pass_and_one_more_is_refused() {
        assert_eq!(elements_within("n", &[1 << 14, 1 << 14]).unwrap(), 1 << 28);
        assert_eq!(
            elements_within("n", &[(1 << 28) + 1]).unwrap_err(),
            "params.n: 268435457 elements exceed the limit of 2^28"
        );
        assert_eq!(elements_within("n", &[]).unwrap(), 1);
        // A product past u128 is refused, not wrapped.
        let e = product_within("problems", &[usize::MAX; 3], 28, "elements").unwrap_err();
        assert!(e.starts_with("params.problems: "), "{e}");
        assert!(e.contains("exceed the limit of 2^28"), "{e}");
        assert!(product_within("k", &[usize::MAX, 0], 28, "elements").is_ok());
    }

    #[test]
    fn lists_must_hold_one_to_max_entries() {
        assert_eq!(
            non_empty::<f64>("thresholds", vec![]).unwrap_err(),
            "params.thresholds: must not be empty"
        );
        assert_eq!(
            non_empty("t", vec![0; MAX_LIST_LEN]).unwrap().len(),
            MAX_LIST_LEN
        );
        assert!(non_empty("t", vec![0; MAX_LIST_LEN + 1]).is_err());
        assert!(list_within("t", vec![0; MAX_LIST_LEN + 1]).is_err());
        assert!(list_within::<u8>("t", vec![]).is_ok());
    }
}
