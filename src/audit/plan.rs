//! Audit plans: which kernels to run, with which parameters, sizes,
//! distributions and seeds, and at which confidence to judge probabilistic
//! bounds. Plans are TOML; a malformed plan is refused with the file, line and
//! field.
//!
//! ```toml
//! name = "example"
//! seeds = { first = 1, count = 10 }
//! confidence = 0.999
//!
//! [[campaign]]
//! kernel = "dot-recursive"
//! sizes = [10, 1000]
//! distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }]
//! params = { format = ["fp16", "fp32"], fma = ["false", "true"] }
//! ```

use super::experiment::Params as ExperimentParams;
use crate::error::{Error, Result};
use crate::generate::Distribution;
use crate::io::read_text;
use crate::kernels::{Kernel, Params, registry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The default plan, `plans/default.toml`, compiled in so that `boundgate
/// audit` works from any directory.
pub const DEFAULT_PLAN: &str = include_str!("../../plans/default.toml");

/// The most values one generated input of a cell may hold: 2^28 (2 GiB of
/// f64). Every shipped plan stays far below (the largest, a 10^7-element dot
/// product, is 1/27 of it); a size beyond it aborted the audit on
/// allocation, or overflowed `size * size`, until 2026-11-25 (review).
///
/// # Example
/// ```
/// assert_eq!(boundgate::audit::plan::MAX_INPUT_ELEMENTS, 1 << 28);
/// ```
pub const MAX_INPUT_ELEMENTS: usize = 1 << 28;

/// The most trials (seeds) per cell: 2^24, about 1.7e7. A cell keeps
/// nothing per trial (the runner summarizes each verdict as it comes; until
/// 2026-11-25 it kept them all, about 2 KB per trial, and the cap was 2^20),
/// so the cap no longer bounds memory: it refuses a mistyped count before a
/// run that would not end. Even at a millisecond per trial a cell at the cap
/// runs for 4.7 hours; the shipped plans use at most 20 trials per cell.
/// Experiments keep results per seed and have their own cap,
/// [`MAX_EXPERIMENT_RESULTS`].
///
/// # Example
/// ```
/// use boundgate::audit::{Seeds, plan::MAX_TRIALS};
/// assert_eq!(MAX_TRIALS, 1 << 24);
/// assert!(Seeds { first: 1, count: MAX_TRIALS }.last() > 0);
/// ```
pub const MAX_TRIALS: u64 = 1 << 24;

/// The most results an experiment may keep: 2^20 seeds times its
/// [`results_per_seed`](crate::audit::experiment::Experiment::results_per_seed).
/// Unlike cells, experiments keep what every seed gave until they end, for
/// their medians, quantiles and tables: 8 bytes per seed for `dot-tightness`
/// (one result per seed), a table row of about 3 KB per distribution, bit
/// width and method for `residual-accuracy` (its default lists: 84 per seed;
/// 2000 seeds took 584 MB there, and 2^20 seeds were accepted until
/// 2026-11-26, found by review). At the cap one may still hold gigabytes: the
/// cap cells had before they streamed, kept for experiments. An experiment
/// that runs only the first seed (`results_per_seed` 0) is not capped.
///
/// # Example
/// ```
/// use boundgate::audit::plan::{MAX_EXPERIMENT_RESULTS, MAX_TRIALS};
/// assert_eq!(MAX_EXPERIMENT_RESULTS, 1 << 20);
/// assert!(MAX_EXPERIMENT_RESULTS < MAX_TRIALS);
/// ```
pub const MAX_EXPERIMENT_RESULTS: u64 = 1 << 20;

/// The most cells a plan may expand to: 2^16, counted over its campaigns
/// (included plans' among them) as sizes x distributions x the values of
/// each parameter list, repeats included. Every cell is built before the
/// first one runs, at about 2 KB each: a campaign of 3000 x 3000 parameter
/// values aborted the audit on allocation until 2026-11-29 (review). The
/// largest shipped plan has 432 cells.
///
/// # Example
/// ```
/// assert_eq!(boundgate::audit::plan::MAX_CELLS, 1 << 16);
/// ```
pub const MAX_CELLS: usize = 1 << 16;

/// Seeds of the trials: `first, first + 1, ..., first + count - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seeds {
    /// First seed.
    pub first: u64,
    /// Number of seeds (trials per cell).
    pub count: u64,
}

impl Seeds {
    /// The last seed, `first + count - 1` (saturating: a report read from a
    /// file may hold seeds no plan accepts, and rendering it must not panic).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::Seeds;
    /// assert_eq!(Seeds { first: 1, count: 10 }.last(), 10);
    /// ```
    pub fn last(&self) -> u64 {
        self.first.saturating_add(self.count.saturating_sub(1))
    }

    /// Why these seeds are not a cell's: none, more than [`MAX_TRIALS`], or
    /// a range past `u64::MAX` (`first + count` overflowed and wrapped to
    /// seed 0 in release builds until 2026-11-25; found by review).
    pub(crate) fn problem(&self) -> Option<String> {
        if self.count > MAX_TRIALS {
            return Some(format!(
                "{} trials exceed the limit of {MAX_TRIALS} (2^24) per cell: a cap against mistyped counts \
                 (a cell keeps nothing per trial, but runs every one)",
                self.count
            ));
        }
        self.range_problem()
    }

    /// Why these seeds are not those of an experiment keeping
    /// `results_per_seed` results for each: no seeds, a range past
    /// `u64::MAX`, or more than [`MAX_EXPERIMENT_RESULTS`] results.
    pub(crate) fn experiment_problem(&self, results_per_seed: u64) -> Option<String> {
        let results = u128::from(self.count) * u128::from(results_per_seed);
        if results > u128::from(MAX_EXPERIMENT_RESULTS) {
            let what = if results_per_seed == 1 {
                format!("{} seeds", self.count)
            } else {
                format!(
                    "{} seeds x {results_per_seed} results per seed = {results} results",
                    self.count
                )
            };
            return Some(format!(
                "{what} exceed the limit of {MAX_EXPERIMENT_RESULTS} (2^20) per experiment: an \
                 experiment keeps every result until it ends"
            ));
        }
        self.range_problem()
    }

    /// No seeds, or a range past `u64::MAX`.
    fn range_problem(&self) -> Option<String> {
        if self.count == 0 {
            Some("must be at least 1".into())
        } else if self.first.checked_add(self.count).is_none() {
            Some(format!(
                "first + count overflows u64 (first = {}, count = {})",
                self.first, self.count
            ))
        } else {
            None
        }
    }
}

/// One campaign: a kernel over the cartesian product of its parameter lists,
/// sizes and distributions, with one trial per seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Campaign {
    /// Kernel name (`boundgate run --list`).
    pub kernel: String,
    /// Problem sizes (vector length, matrix dimension: the kernel decides).
    pub sizes: Vec<usize>,
    /// Input distributions.
    pub distributions: Vec<Distribution>,
    /// Parameter values to sweep (each key: a list; unlisted keys keep their defaults).
    #[serde(default)]
    pub params: BTreeMap<String, Vec<String>>,
    /// Overrides the plan's seeds for this campaign.
    #[serde(default)]
    pub seeds: Option<Seeds>,
}

/// One experiment of a plan (see [`super::experiment`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// The experiment's name (`boundgate audit --list`).
    pub name: String,
    /// Its parameters (checked by the experiment when the plan is read).
    #[serde(default)]
    pub params: toml::Table,
    /// Overrides the plan's seeds for this experiment.
    #[serde(default)]
    pub seeds: Option<Seeds>,
}

/// An audit plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Name shown in reports.
    pub name: String,
    /// What the plan checks.
    #[serde(default)]
    pub description: String,
    /// Trials per cell.
    pub seeds: Seeds,
    /// Confidence of the statistical judgement of probabilistic bounds.
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// The campaigns.
    #[serde(rename = "campaign", default)]
    pub campaigns: Vec<Campaign>,
    /// The experiments.
    #[serde(rename = "experiment", default)]
    pub experiments: Vec<ExperimentSpec>,
    /// Other plans whose campaigns and experiments are appended to this
    /// plan's, in order (paths relative to this plan's file; each keeps its
    /// own seeds). Resolved by [`Plan::from_file`]; empty afterwards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    /// The file the plan was read from (set by [`Plan::from_toml`]), named
    /// in errors raised while it runs. Not part of the plan: the digest and
    /// the JSON form leave it out, so shards read from different paths merge.
    #[serde(skip)]
    pub source: PathBuf,
}

fn default_confidence() -> f64 {
    0.999
}

/// One cell of a plan: a kernel with fixed parameters, size and distribution.
#[derive(Clone)]
pub struct Cell {
    /// The kernel.
    pub kernel: &'static dyn Kernel,
    /// Its parameters.
    pub params: Params,
    /// Problem size.
    pub size: usize,
    /// Input distribution.
    pub distribution: Distribution,
    /// Seeds of its trials.
    pub seeds: Seeds,
}

impl Plan {
    /// Reads and validates a plan file.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read; [`Error::Plan`] as for
    /// [`Plan::from_toml`], or naming `include[i]` when an included plan is
    /// refused, closes a cycle, nests deeper than 8, or brings the cells
    /// past [`MAX_CELLS`].
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::audit::{Plan, Seeds};
    /// let dir = std::env::temp_dir().join(format!("boundgate-doc-plan-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let campaign = "campaign = [{ kernel = \"dot-pairwise\", sizes = [8], distributions = [{ kind = \"normal\", mean = 0.0, std_dev = 1.0 }] }]";
    /// std::fs::write(dir.join("inner.toml"), format!("name = \"inner\"\nseeds = {{ first = 100, count = 1 }}\n{campaign}")).unwrap();
    /// std::fs::write(dir.join("outer.toml"), format!("name = \"outer\"\nseeds = {{ first = 1, count = 2 }}\ninclude = [\"inner.toml\"]\n{campaign}")).unwrap();
    /// std::fs::write(dir.join("loop.toml"), "name = \"loop\"\nseeds = { first = 1, count = 1 }\ninclude = [\"loop.toml\"]").unwrap();
    /// let (plan, looped) = (Plan::from_file(&dir.join("outer.toml")), Plan::from_file(&dir.join("loop.toml")));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// // the included campaign is appended and keeps the included plan's seeds
    /// let plan = plan.unwrap();
    /// assert_eq!(plan.campaigns[1].seeds, Some(Seeds { first: 100, count: 1 }));
    /// assert!(plan.include.is_empty() && plan.campaigns[0].seeds.is_none());
    /// assert!(matches!(looped, Err(Error::Plan { field, .. }) if field == "include[0]"));
    /// assert!(matches!(Plan::from_file(&dir.join("outer.toml")), Err(Error::Io { .. }))); // removed
    /// ```
    pub fn from_file(path: &Path) -> Result<Plan> {
        Plan::from_file_nested(path, &mut Vec::new())
    }

    /// `chain`: the files including this one, outermost first (canonical
    /// paths), so that a cycle is named where it closes.
    fn from_file_nested(path: &Path, chain: &mut Vec<PathBuf>) -> Result<Plan> {
        let depth = chain.len();
        chain.push(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()));
        let text = read_text(path)?;
        let mut plan = Plan::from_toml(&text, path)?;
        let includes = std::mem::take(&mut plan.include);
        for (i, name) in includes.iter().enumerate() {
            let located = |reason: String| Error::Plan {
                path: path.to_path_buf(),
                line: locate(&text, None, "include"),
                field: format!("include[{i}]"),
                reason,
            };
            let target = path.parent().unwrap_or(Path::new(".")).join(name);
            let canonical = std::fs::canonicalize(&target).unwrap_or_else(|_| target.clone());
            if let Some(at) = chain.iter().position(|p| *p == canonical) {
                // Named once, here (the nesting limit below repeated the
                // cycle in a 500-character line; review, 2026-11-26).
                let names: Vec<String> = chain[at..]
                    .iter()
                    .chain(std::iter::once(&canonical))
                    .map(|p| {
                        p.file_name()
                            .map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into())
                    })
                    .collect();
                return Err(located(format!(
                    "{name}: an include cycle ({})",
                    names.join(" -> ")
                )));
            }
            if depth >= 8 {
                return Err(located("includes nest deeper than 8".into()));
            }
            let included = Plan::from_file_nested(&target, chain)
                .map_err(|e| located(format!("{name}: {e}")))?;
            plan.campaigns
                .extend(included.campaigns.into_iter().map(|mut c| {
                    c.seeds = c.seeds.or(Some(included.seeds));
                    c
                }));
            plan.experiments
                .extend(included.experiments.into_iter().map(|mut e| {
                    e.seeds = e.seeds.or(Some(included.seeds));
                    e
                }));
            // Each file may stay below the cap and their sum not.
            if let Some((_, reason)) = plan.cells_problem() {
                return Err(located(format!("{name}: {reason}")));
            }
        }
        chain.pop();
        Ok(plan)
    }

    /// A digest of the plan as parsed (FNV-1a, 64 bits, over its canonical
    /// JSON form): the shards of one plan carry the same digest.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::Plan;
    /// use std::path::Path;
    /// let text = "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-pairwise\", sizes = [8], distributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }] }]";
    /// let a = Plan::from_toml(text, Path::new("a.toml")).unwrap();
    /// // FNV-1a, 64 bits, over the plan's JSON form
    /// let json = serde_json::to_string(&a).unwrap();
    /// let h = json.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    /// assert_eq!(a.digest(), format!("fnv1a64:{h:016x}"));
    /// // the plan as parsed: layout and the file's path do not count, the seeds do
    /// let b = Plan::from_toml(&text.replace("sizes = [8]", "sizes=[ 8 ]"), Path::new("elsewhere/b.toml")).unwrap();
    /// assert_eq!(a.digest(), b.digest());
    /// assert_ne!(a.digest(), Plan::from_toml(&text.replace("count = 2", "count = 3"), Path::new("a.toml")).unwrap().digest());
    /// ```
    pub fn digest(&self) -> String {
        let canonical = serde_json::to_string(self).expect("plans serialize");
        let hash = canonical.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        format!("fnv1a64:{hash:016x}")
    }

    /// Number of units (cells, then experiments): what `--shard` distributes.
    ///
    /// # Errors
    ///
    /// As [`Plan::cells`].
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::Plan;
    /// use std::path::Path;
    /// let text = "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 16], params = { format = [\"fp16\", \"fp32\"] }, distributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }] }]";
    /// // 2 formats x 2 sizes x 1 distribution
    /// assert_eq!(Plan::from_toml(text, Path::new("p.toml")).unwrap().units().unwrap(), 4);
    /// // ... then the experiments
    /// let with = format!("{text}\nexperiment = [{{ name = \"dot-tightness\", params = {{ sizes = [16], formats = [\"fp16\"] }} }}]");
    /// assert_eq!(Plan::from_toml(&with, Path::new("p.toml")).unwrap().units().unwrap(), 5);
    /// ```
    pub fn units(&self) -> Result<usize> {
        Ok(self.cells()?.len() + self.experiments.len())
    }

    /// The built-in default plan.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::Plan;
    /// use boundgate::audit::plan::DEFAULT_PLAN;
    /// use std::path::Path;
    /// let plan = Plan::default_plan().unwrap();
    /// assert_eq!(plan.name, "default");
    /// assert_eq!(plan.source, Path::new("plans/default.toml"));
    /// assert_eq!(plan, Plan::from_toml(DEFAULT_PLAN, Path::new("plans/default.toml")).unwrap());
    /// assert!(plan.units().unwrap() > 0);
    /// ```
    pub fn default_plan() -> Result<Plan> {
        Plan::from_toml(DEFAULT_PLAN, Path::new("plans/default.toml"))
    }

    /// Parses and validates a plan; `path` is only used in error messages.
    ///
    /// # Errors
    ///
    /// [`Error::Plan`] naming the file, the line when found, and the field:
    /// TOML that is not a plan, an unknown kernel or experiment, a parameter
    /// the kernel refuses, no sizes or a size of 0 or past
    /// [`MAX_INPUT_ELEMENTS`], no distribution or an invalid one, no seeds
    /// or too many ([`MAX_TRIALS`], [`MAX_EXPERIMENT_RESULTS`]), a
    /// confidence outside (0, 1), or more than [`MAX_CELLS`] cells.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::audit::Plan;
    /// use std::path::Path;
    /// let ok = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"dot-pairwise\"\nsizes = [8]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
    /// let plan = Plan::from_toml(ok, Path::new("p.toml")).unwrap();
    /// assert_eq!((plan.confidence, plan.source.as_path()), (0.999, Path::new("p.toml"))); // default confidence
    /// // a bad value is named with the file, the line and the field
    /// let bad = ok.replace("count = 2 }", "count = 2 }\nconfidence = 1.5");
    /// let err = Plan::from_toml(&bad, Path::new("p.toml")).unwrap_err();
    /// assert!(matches!(&err, Error::Plan { line: Some(3), field, .. } if field == "confidence"));
    /// assert!(err.to_string().starts_with("p.toml:3: confidence: "));
    /// let bad = ok.replace("dot-pairwise", "dot-magic");
    /// let err = Plan::from_toml(&bad, Path::new("p.toml")).unwrap_err();
    /// assert!(matches!(err, Error::Plan { line: Some(4), field, .. } if field == "campaign[0].kernel"));
    /// ```
    pub fn from_toml(text: &str, path: &Path) -> Result<Plan> {
        let mut plan: Plan = toml::from_str(text).map_err(|e| {
            // 1 + the newlines before the span: `lines().count()` of the text
            // before it is one short when the span starts a line (an unknown
            // key was reported at the line above it until 2026-11-25; review).
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.and_then(|l| text.lines().nth(l - 1)).map(str::trim);
            // A table header names its table (`[campaign]` was reported as
            // field `plan`; review, 2026-11-26).
            let header = at
                .filter(|l| l.starts_with('[') && !l.starts_with("[["))
                .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
            let field = header
                .clone()
                .or_else(|| {
                    at.and_then(|l| l.split_once('='))
                        .map(|(k, _)| k.trim().to_string())
                })
                .unwrap_or_else(|| "plan".to_string());
            let mut reason = e.message().to_string();
            if let Some(name) = header.filter(|_| reason.contains("expected a sequence")) {
                reason.push_str(&format!(" (a list of tables is written [[{name}]])"));
            }
            Error::Plan {
                path: path.to_path_buf(),
                line,
                field,
                reason,
            }
        })?;
        plan.validate(path).map_err(|e| match e {
            // Semantic errors know the field; find its line in the text.
            Error::Plan {
                path,
                line: None,
                field,
                reason,
            } => Error::Plan {
                line: locate_field(text, &field),
                path,
                field,
                reason,
            },
            other => other,
        })?;
        plan.source = path.to_path_buf();
        Ok(plan)
    }

    /// The first campaign at which the plan's cells, counted as in
    /// [`MAX_CELLS`], exceed it or overflow `usize`, and why.
    fn cells_problem(&self) -> Option<(usize, String)> {
        let mut total = 0usize;
        for (i, c) in self.campaigns.iter().enumerate() {
            let count = c
                .params
                .values()
                .map(Vec::len)
                .chain([c.sizes.len(), c.distributions.len()])
                .try_fold(1usize, usize::checked_mul)
                .and_then(|n| total.checked_add(n));
            let reason = match count {
                Some(n) if n <= MAX_CELLS => {
                    total = n;
                    continue;
                }
                Some(n) => format!("{n} cells"),
                None => "a number of cells that overflows usize".to_string(),
            };
            return Some((
                i,
                format!(
                    "{reason} (sizes x distributions x parameter values, over the campaigns up to \
                     this one): more than the limit of {MAX_CELLS} (2^16) per plan, as every cell \
                     is built before the first runs"
                ),
            ));
        }
        None
    }

    fn validate(&self, path: &Path) -> Result<()> {
        let err = |field: String, reason: String| Error::Plan {
            path: PathBuf::from(path),
            line: None,
            field,
            reason,
        };
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(err(
                "confidence".into(),
                format!("{} is not in (0, 1)", self.confidence),
            ));
        }
        // The checker may split the confidence between two tests: a plan
        // whose split rounds to 1 ran every cell and then failed with no file
        // named (review, 2026-11-25), so it is refused here, by the same rule.
        if let Err(e) = boundgate_verify::check::split_confidence(self.confidence) {
            return Err(err("confidence".into(), e.to_string()));
        }
        if let Some(reason) = self.seeds.problem() {
            return Err(err("seeds.count".into(), reason));
        }
        if self.campaigns.is_empty() && self.experiments.is_empty() && self.include.is_empty() {
            return Err(err(
                "campaign".into(),
                "the plan has no [[campaign]] and no [[experiment]]".into(),
            ));
        }
        // Before the per-value checks below, which a plan of millions of
        // values would keep busy.
        if let Some((i, reason)) = self.cells_problem() {
            return Err(err(format!("campaign[{i}]"), reason));
        }
        for (i, e) in self.experiments.iter().enumerate() {
            let at = |f: &str| format!("experiment[{i}].{f}");
            let experiment =
                registry::find_experiment(&e.name).map_err(|x| err(at("name"), x.to_string()))?;
            // The experiment names the parameter ("params.eps: ..."): keep it in the field.
            let params = ExperimentParams::new(e.params.clone());
            let param_error = |reason: String| match reason.split_once(": ") {
                Some((field, rest)) if field.starts_with("params.") => {
                    err(at(field), rest.to_string())
                }
                _ => err(at("params"), reason),
            };
            experiment.check_params(&params).map_err(param_error)?;
            let results_per_seed = experiment.results_per_seed(&params).map_err(param_error)?;
            // An experiment without seeds of its own runs the plan's, which
            // may suit cells and still be too many for it.
            let (seeds, field) = match e.seeds {
                Some(s) => (s, at("seeds.count")),
                None => (self.seeds, "seeds.count".to_string()),
            };
            if let Some(reason) = seeds.experiment_problem(results_per_seed) {
                let reason = match e.seeds {
                    Some(_) => reason,
                    None => format!("experiment[{i}] ({}) runs these seeds: {reason}", e.name),
                };
                return Err(err(field, reason));
            }
        }
        for (i, c) in self.campaigns.iter().enumerate() {
            let at = |f: &str| format!("campaign[{i}].{f}");
            let kernel = registry::find(&c.kernel).map_err(|e| err(at("kernel"), e.to_string()))?;
            if c.sizes.is_empty() || c.sizes.contains(&0) {
                return Err(err(at("sizes"), "needs at least one size, all > 0".into()));
            }
            for &size in &c.sizes {
                input_elements(kernel, size).map_err(|r| err(at("sizes"), r))?;
            }
            if c.distributions.is_empty() {
                return Err(err(
                    at("distributions"),
                    "needs at least one distribution".into(),
                ));
            }
            for (j, d) in c.distributions.iter().enumerate() {
                d.validate()
                    .and_then(|()| normal_stays_finite(d))
                    .map_err(|r| err(at(&format!("distributions[{j}]")), r))?;
            }
            if let Some(reason) = c.seeds.as_ref().and_then(Seeds::problem) {
                return Err(err(at("seeds.count"), reason));
            }
            for (key, values) in &c.params {
                if values.is_empty() {
                    return Err(err(
                        at(&format!("params.{key}")),
                        "needs at least one value".into(),
                    ));
                }
                for v in values {
                    let mut p = Params::defaults(kernel);
                    p.set(kernel, key, v)
                        .map_err(|e| err(at(&format!("params.{key}")), e.to_string()))?;
                }
            }
        }
        Ok(())
    }

    /// Expands the plan into its cells, in a fixed order; a cell that two
    /// campaigns (or one, twice) give is kept where it first appears.
    ///
    /// # Errors
    ///
    /// [`Error::Plan`] (without a line) when the plan is not one
    /// [`Plan::from_toml`] accepts: its fields are public and it
    /// deserializes, so it may be built unchecked (seeds past `u64::MAX`
    /// panicked the runner until 2026-11-29; review). Among them: more than
    /// [`MAX_CELLS`] cells.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, Seeds};
    /// use std::path::Path;
    /// let text = "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 16], params = { format = [\"fp16\", \"fp32\"] }, distributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }] }]";
    /// let cells = Plan::from_toml(text, Path::new("p.toml")).unwrap().cells().unwrap();
    /// // parameters outermost, then sizes, then distributions
    /// let order: Vec<(&str, usize)> = cells.iter().map(|c| (c.params.as_map()["format"].as_str(), c.size)).collect();
    /// assert_eq!(order, [("fp16", 8), ("fp16", 16), ("fp32", 8), ("fp32", 16)]);
    /// assert!(cells.iter().all(|c| c.kernel.name() == "dot-recursive" && c.seeds == Seeds { first: 1, count: 2 }));
    /// // a size given twice is one cell
    /// let twice = Plan::from_toml(&text.replace("[8, 16]", "[8, 8]"), Path::new("p.toml")).unwrap();
    /// assert_eq!(twice.cells().unwrap().len(), 2);
    /// // a plan changed after it was read is checked again
    /// let mut unchecked = twice;
    /// unchecked.seeds = Seeds { first: u64::MAX, count: 2 };
    /// assert!(unchecked.cells().err().unwrap().to_string().starts_with("p.toml: seeds.count: first + count overflows"));
    /// ```
    pub fn cells(&self) -> Result<Vec<Cell>> {
        // A plan built or deserialized without `from_toml` is checked here,
        // before the runner trusts it (seeds past u64::MAX panicked it).
        self.validate(&self.source)?;
        let mut cells = Vec::new();
        for c in &self.campaigns {
            let kernel = registry::find(&c.kernel)?;
            for params in param_grid(kernel, &c.params)? {
                for &size in &c.sizes {
                    for distribution in &c.distributions {
                        cells.push(Cell {
                            kernel,
                            params: params.clone(),
                            size,
                            distribution: distribution.clone(),
                            seeds: c.seeds.unwrap_or(self.seeds),
                        });
                    }
                }
            }
        }
        // A cell twice (a repeated size or parameter value, or overlapping
        // campaigns, included plans among them) ran the same trials twice and
        // gave two JUnit cases of one name (review, 2026-11-26): it runs
        // once, where it first appears. (Refusing it refused two shipped
        // plans whose campaigns overlap at one size.)
        let mut seen = std::collections::HashSet::with_capacity(cells.len());
        cells.retain(|cell| {
            let label = super::report::describe_cell(
                cell.kernel.name(),
                cell.params.as_map().iter().map(|(k, v)| (*k, v.as_str())),
                cell.size,
                &cell.distribution.label(),
            );
            seen.insert((label, cell.seeds.first, cell.seeds.count))
        });
        Ok(cells)
    }
}

/// Why a normal distribution can draw infinities: the sampler's draws reach
/// about 40 standard deviations from the mean at most, and `N(0, 1e308)` gave
/// infinite inputs that showed up as "non-finite exact result" verdicts
/// instead of as a plan error (review of 2026-11-25). Uniform distributions
/// are already refused when their width overflows.
fn normal_stays_finite(d: &Distribution) -> std::result::Result<(), String> {
    match *d {
        Distribution::Normal { mean, std_dev } if !(mean.abs() + 40.0 * std_dev).is_finite() => {
            Err(format!(
                "normal ({mean:?}, {std_dev:?}) can draw infinite values: |mean| + 40 std_dev must be finite"
            ))
        }
        _ => Ok(()),
    }
}

/// The number of values in the largest input `kernel` generates at `size`,
/// or why it exceeds [`MAX_INPUT_ELEMENTS`]. Checked before `audit_shapes`,
/// whose shapes multiply `size` by small constants, and with checked
/// products (`size * size` overflowed for sizes of 2^32 and more).
pub(crate) fn input_elements(
    kernel: &dyn Kernel,
    size: usize,
) -> std::result::Result<usize, String> {
    let too_many = |what: String| {
        format!(
            "size {size}: {what} exceeds the limit of {MAX_INPUT_ELEMENTS} (2^28) values per input"
        )
    };
    if size > MAX_INPUT_ELEMENTS {
        return Err(too_many(format!("{size} values")));
    }
    let mut largest = 0;
    for (name, shape) in kernel.audit_shapes(size) {
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        let count = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .filter(|&n| n <= MAX_INPUT_ELEMENTS)
            .ok_or_else(|| too_many(format!("input {name} ({})", dims.join("x"))))?;
        largest = largest.max(count);
    }
    Ok(largest)
}

/// The 1-based line of a validated field such as `campaign[2].params.format`
/// or `seeds.count`: the `k`-th `[[table]]` header, then the line in it that
/// assigns the field (`params = {...}`, `params.format = ...`, or `format =`
/// under a `[campaign.params]` sub-table), or the header itself.
fn locate_field(text: &str, field: &str) -> Option<usize> {
    let (table, rest) = match field.split_once('.') {
        Some((head, rest)) if head.ends_with(']') => (Some(head), rest),
        None if field.ends_with(']') => (Some(field), ""),
        _ => (None, field),
    };
    // Key names only: `distributions[1].low` is looked for as `distributions`.
    let keys: Vec<&str> = rest
        .split('.')
        .map(|k| k.split('[').next().unwrap_or(""))
        .filter(|k| !k.is_empty())
        .collect();
    locate_path(text, table, &keys)
}

/// The line of `key = ...` inside the `index`-th `[[name]]` table given as
/// `name[index]` (or at top level when `table` is `None`).
fn locate(text: &str, table: Option<&str>, key: &str) -> Option<usize> {
    let keys: Vec<&str> = [key].into_iter().filter(|k| !k.is_empty()).collect();
    locate_path(text, table, &keys)
}

/// Whether `line` is a table header (`[x]` or `[[x]]`) named `name` or one of
/// its sub-tables (`name.sub...`).
fn header_within(line: &str, name: &str) -> bool {
    let inner = line
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    line.trim_start().starts_with('[') && (inner == name || inner.starts_with(&format!("{name}.")))
}

/// Whether `line` assigns `key` (`key = ...` or a dotted `key.sub = ...`).
fn assigns(line: &str, key: &str) -> bool {
    !line.trim_start().starts_with('[')
        && line.split_once('=').is_some_and(|(k, _)| {
            let k = k.trim();
            k == key || k.starts_with(&format!("{key}."))
        })
}

/// The line assigning the dotted `keys` inside the `index`-th `[[name]]`
/// table given as `name[index]` (or at top level when `table` is `None`).
/// A table's lines run to the next header that is not one of its own
/// sub-tables, so a key under `[campaign.params]` is found (it was reported
/// at the `[[campaign]]` header before; left alone 2026-11-25).
fn locate_path(text: &str, table: Option<&str>, keys: &[&str]) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let is_header = |l: &&str| l.trim_start().starts_with('[');
    let (name, start, end) = match table {
        None => {
            let end = lines.iter().position(is_header).unwrap_or(lines.len());
            (String::new(), 0, end)
        }
        Some(t) => {
            let (name, index) = t.trim_end_matches(']').split_once('[')?;
            let index: usize = index.parse().ok()?;
            let header = format!("[[{name}]]");
            let start = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.trim() == header)
                .nth(index)?
                .0;
            let end = lines[start + 1..]
                .iter()
                .position(|l| is_header(l) && !header_within(l, name))
                .map_or(lines.len(), |p| start + 1 + p);
            (name.to_string(), start, end)
        }
    };
    let fallback = table.map(|_| start + 1);
    let Some(&first) = keys.first() else {
        return fallback;
    };
    // Lines before the table's first sub-table header assign its own keys.
    let own_start = if table.is_some() { start + 1 } else { start };
    let own_end = lines[own_start..end]
        .iter()
        .position(is_header)
        .map_or(end, |p| own_start + p);
    if let Some(p) = lines[own_start..own_end]
        .iter()
        .position(|l| assigns(l, first))
    {
        return Some(own_start + p + 1);
    }
    // A sub-table `[name.first]` (or `[[name.first]]`): the next key in it.
    // Top-level tables such as `[seeds]` may be anywhere in the file.
    let (sub, end) = if name.is_empty() {
        (first.to_string(), lines.len())
    } else {
        (format!("{name}.{first}"), end)
    };
    let Some(h) = (start..end).find(|&i| {
        let inner = lines[i]
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim();
        is_header(&lines[i]) && inner == sub
    }) else {
        return fallback;
    };
    let sub_end = lines[h + 1..end]
        .iter()
        .position(is_header)
        .map_or(end, |p| h + 1 + p);
    let found = keys.get(1).and_then(|&next| {
        lines[h + 1..sub_end]
            .iter()
            .position(|l| assigns(l, next))
            .map(|p| h + 1 + p + 1)
    });
    Some(found.unwrap_or(h + 1))
}

/// The cartesian product of parameter lists, over the kernel's defaults.
fn param_grid(
    kernel: &'static dyn Kernel,
    lists: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<Params>> {
    let mut grid = vec![Params::defaults(kernel)];
    for (key, values) in lists {
        let mut next = Vec::with_capacity(grid.len() * values.len());
        for p in &grid {
            for v in values {
                let mut q = p.clone();
                q.set(kernel, key, v)?;
                next.push(q);
            }
        }
        grid = next;
    }
    Ok(grid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plan_is_valid() {
        let plan = Plan::default_plan().unwrap();
        assert!(!plan.cells().unwrap().is_empty());
    }

    /// A cell given twice runs once (review, 2026-11-26: it ran twice and
    /// gave two JUnit cases of one name).
    #[test]
    fn repeated_cells_run_once() {
        let campaign = "[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [8]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
        let head = "name = \"x\"\nseeds = { first = 1, count = 2 }\n";
        for text in [
            format!("{head}{campaign}{campaign}"),
            format!("{head}{}", campaign.replace("[8]", "[8, 8]")),
        ] {
            let plan = Plan::from_toml(&text, Path::new("p.toml")).unwrap();
            assert_eq!(plan.cells().unwrap().len(), 1);
        }
        // Other seeds make another cell.
        let text = format!(
            "{head}{campaign}{}",
            campaign.replace("sizes", "seeds = { first = 5, count = 2 }\nsizes")
        );
        assert_eq!(
            Plan::from_toml(&text, Path::new("p.toml"))
                .unwrap()
                .cells()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn unknown_experiments_are_refused() {
        let text =
            "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[experiment]]\nname = \"no-such\"\n";
        let e = Plan::from_toml(text, Path::new("p.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("experiment[0].name") && e.contains("unknown experiment"),
            "{e}"
        );
        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n";
        let e = Plan::from_toml(text, Path::new("p.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no [[campaign]] and no [[experiment]]"), "{e}");
    }

    #[test]
    fn malformed_plans_name_file_line_and_field() {
        let p = Path::new("bad.toml");
        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = \"ten\"\ndistributions = []\n";
        let e = Plan::from_toml(text, p).unwrap_err().to_string();
        assert!(e.starts_with("bad.toml:5: sizes:"), "{e}");

        // A table written where a list of tables belongs names its table.
        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[campaign]\nkernel = \"dot-recursive\"\nsizes = [8]\ndistributions = []\n";
        let e = Plan::from_toml(text, p).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.toml:3: campaign:") && e.ends_with("written [[campaign]])"),
            "{e}"
        );

        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"nope\"\nsizes = [1]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
        let e = Plan::from_toml(text, p).unwrap_err().to_string();
        assert!(
            e.contains("campaign[0].kernel") && e.contains("unknown kernel"),
            "{e}"
        );

        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [1]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\nparams = { format = [\"fp12\"] }\n";
        let e = Plan::from_toml(text, p).unwrap_err().to_string();
        assert!(
            e.contains("campaign[0].params.format") && e.contains("fp12"),
            "{e}"
        );
    }

    #[test]
    fn fields_in_sub_tables_are_located_at_their_own_line() {
        let p = Path::new("bad.toml");
        let head = "name = \"x\"\nconfidence = 0.99\n";
        let campaign = "[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [4]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
        // `format` under [campaign.params], line 12 (it was reported at the
        // [[campaign]] header, line 6).
        let text = format!(
            "{head}[seeds]\nfirst = 1\ncount = 2\n{campaign}[campaign.params]\nmode = [\"rne\"]\nformat = [\"fp12\"]\n"
        );
        let e = Plan::from_toml(&text, p).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.toml:12: campaign[0].params.format"),
            "{e}"
        );
        // The second campaign's sub-table, not the first's.
        let text = format!(
            "{head}seeds = {{ first = 1, count = 2 }}\n{campaign}[campaign.params]\nformat = [\"fp32\"]\n{campaign}[campaign.params]\nformat = [\"fp13\"]\n"
        );
        let e = Plan::from_toml(&text, p).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.toml:15: campaign[1].params.format"),
            "{e}"
        );
        // A dotted key in the table itself.
        let text = format!(
            "{head}seeds = {{ first = 1, count = 2 }}\n{campaign}params.format = [\"fp14\"]\n"
        );
        let e = Plan::from_toml(&text, p).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.toml:8: campaign[0].params.format"),
            "{e}"
        );
        // A top-level table after the campaigns.
        let text = format!("{head}{campaign}[seeds]\nfirst = 1\ncount = 0\n");
        let e = Plan::from_toml(&text, p).unwrap_err().to_string();
        assert!(e.starts_with("bad.toml:9: seeds.count"), "{e}");
    }

    /// Cells may run up to MAX_TRIALS trials, experiments up to
    /// MAX_EXPERIMENT_RESULTS results, whether of their own seeds or the
    /// plan's; one that runs only the first seed is not capped.
    #[test]
    fn trials_and_experiment_seeds_have_their_own_caps() {
        let p = Path::new("caps.toml");
        let campaign = "[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [1]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
        let experiment = "[[experiment]]\nname = \"dot-tightness\"\n";
        let with = |count: u64, body: &str| {
            Plan::from_toml(
                &format!("name = \"x\"\nseeds = {{ first = 1, count = {count} }}\n{body}"),
                p,
            )
        };
        assert!(with(MAX_TRIALS, campaign).is_ok());
        let e = with(MAX_TRIALS + 1, campaign).unwrap_err().to_string();
        assert!(
            e.starts_with("caps.toml:2: seeds.count:") && e.contains("(2^24) per cell"),
            "{e}"
        );
        assert!(with(MAX_EXPERIMENT_RESULTS, experiment).is_ok());
        // The plan's seeds suit its cells, not the experiment that runs them.
        let e = with(
            MAX_EXPERIMENT_RESULTS + 1,
            &format!("{campaign}{experiment}"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "caps.toml:2: seeds.count: experiment[0] (dot-tightness) runs these seeds:"
            ) && e.contains("(2^20) per experiment"),
            "{e}"
        );
        // Its own seeds: named in its table.
        let own = format!(
            "{experiment}seeds = {{ first = 1, count = {} }}\n",
            MAX_EXPERIMENT_RESULTS + 1
        );
        let e = with(2, &own).unwrap_err().to_string();
        assert!(
            e.starts_with("caps.toml:5: experiment[0].seeds.count:") && e.contains("(2^20)"),
            "{e}"
        );
        let own = own.replace(&(MAX_EXPERIMENT_RESULTS + 1).to_string(), "20");
        assert!(with(MAX_TRIALS, &format!("{campaign}{own}")).is_ok());
        // 84 results per seed for residual-accuracy's default lists: 12 483
        // seeds pass, 12 484 do not (found by review: 2000 seeds took 584 MB).
        let residual = "[[experiment]]\nname = \"residual-accuracy\"\nparams = { size = 1 }\n";
        assert!(with(12_483, residual).is_ok());
        let e = with(12_484, residual).unwrap_err().to_string();
        assert!(
            e.contains("12484 seeds x 84 results per seed = 1048656 results exceed"),
            "{e}"
        );
        // accessor-accuracy keeps 48 cases per seed by default (2
        // distributions x (4 DOT + 4 GEMV + 8 TRSV + 8 SpMV)): 21 845 seeds.
        let accessor = "[[experiment]]\nname = \"accessor-accuracy\"\n";
        assert!(with(21_845, accessor).is_ok());
        let e = with(21_846, accessor).unwrap_err().to_string();
        assert!(e.contains("x 48 results per seed"), "{e}");
        // mpfma-fig5 runs only the first seed: the plan's 2^24 cell seeds
        // are not its concern (refused for it until 2026-11-26).
        let fig5 = "[[experiment]]\nname = \"mpfma-fig5\"\n";
        assert!(with(MAX_TRIALS, &format!("{campaign}{fig5}")).is_ok());
    }

    /// A campaign whose lists multiply out to millions of cells aborted on
    /// allocation (`memory allocation of ... failed`, exit 134) while the
    /// cells were built, before any check (review, 2026-11-29): refused when
    /// the plan is read, naming the campaign.
    #[test]
    fn plans_expanding_to_too_many_cells_are_refused() {
        let p = Path::new("big.toml");
        let list =
            |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
        let campaign = |tiles: usize, eps: usize| {
            format!(
                "[[campaign]]\nkernel = \"qdot\"\nsizes = [4]\ndistributions = [{{ kind = \"uniform\", low = -1.0, high = 1.0 }}]\nparams = {{ tile = [{}], eps = [{}] }}\n",
                list(tiles, &|i| format!("\"{i}\"")),
                list(eps, &|i| format!("\"{}e-9\"", i + 1))
            )
        };
        let head = "name = \"x\"\nseeds = { first = 1, count = 1 }\n";
        // 256 x 256 = MAX_CELLS cells: accepted.
        let at_cap = format!("{head}{}", campaign(256, 256));
        assert_eq!(MAX_CELLS, 256 * 256);
        assert!(Plan::from_toml(&at_cap, p).is_ok());
        // 3000 x 3000 = 9 000 000 cells: refused before any cell is built.
        let e = Plan::from_toml(&format!("{head}{}", campaign(3000, 3000)), p)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("big.toml:3: campaign[0]:")
                && e.contains("9000000 cells")
                && e.contains("(2^16)"),
            "{e}"
        );
        // Over the cap only together: named at the campaign that crosses it.
        let e = Plan::from_toml(
            &format!("{head}{}{}", campaign(256, 256), campaign(1, 1)),
            p,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("big.toml:8: campaign[1]:"), "{e}");
        // A product past usize::MAX (2^16 values in each of four lists) is
        // refused, not wrapped.
        let mut plan = Plan::from_toml(&at_cap, p).unwrap();
        plan.campaigns[0].sizes = vec![4; 1 << 16];
        plan.campaigns[0].params = BTreeMap::from([
            ("tile".to_string(), vec!["1".to_string(); 1 << 16]),
            ("eps".to_string(), vec!["1e-8".to_string(); 1 << 16]),
            ("input".to_string(), vec!["fp16".to_string(); 1 << 16]),
        ]);
        let e = plan.cells().err().expect("refused").to_string();
        assert!(
            e.contains("campaign[0]: a number of cells that overflows usize"),
            "{e}"
        );
    }

    /// Cells of an included plan count with the including plan's: each file
    /// may stay below the cap and their sum not.
    #[test]
    fn included_cells_count_towards_the_cap() {
        let dir = std::env::temp_dir().join(format!("boundgate-plan-cap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sizes: Vec<String> = (1..=MAX_CELLS).map(|n| n.to_string()).collect();
        let campaign = format!(
            "[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [{}]\ndistributions = [{{ kind = \"uniform\", low = -1.0, high = 1.0 }}]\n",
            sizes.join(", ")
        );
        let head = "seeds = { first = 1, count = 1 }\n";
        std::fs::write(
            dir.join("inner.toml"),
            format!("name = \"inner\"\n{head}{campaign}"),
        )
        .unwrap();
        std::fs::write(
            dir.join("outer.toml"),
            format!("name = \"outer\"\n{head}include = [\"inner.toml\"]\n{campaign}"),
        )
        .unwrap();
        let (inner, outer) = (
            Plan::from_file(&dir.join("inner.toml")),
            Plan::from_file(&dir.join("outer.toml")),
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(inner.is_ok());
        let e = outer.unwrap_err().to_string();
        assert!(
            e.contains("outer.toml:3: include[0]:") && e.contains("(2^16)"),
            "{e}"
        );
    }

    /// `Plan`'s fields are public and it deserializes: a plan built without
    /// `from_toml` reached the runner unchecked, and seeds past `u64::MAX`
    /// panicked it (`attempt to add with overflow`; review, 2026-11-29).
    /// `cells` checks the plan as `from_toml` does.
    #[test]
    fn cells_refuse_a_plan_built_without_validation() {
        let text = "name = \"x\"\nseeds = { first = 1, count = 2 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [8]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n";
        let good = Plan::from_toml(text, Path::new("p.toml")).unwrap();
        let refused = |f: &dyn Fn(&mut Plan)| {
            let mut plan = good.clone();
            f(&mut plan);
            let e = plan.cells().err().expect("refused").to_string();
            assert!(
                super::super::run_plan(&plan, Default::default()).is_err(),
                "{e}"
            );
            e
        };
        let e = refused(&|p| {
            p.seeds = Seeds {
                first: u64::MAX,
                count: 2,
            }
        });
        assert!(
            e.starts_with("p.toml: seeds.count: first + count overflows"),
            "{e}"
        );
        let e = refused(&|p| p.campaigns[0].sizes = vec![0]);
        assert!(e.contains("campaign[0].sizes"), "{e}");
        let e = refused(&|p| p.confidence = f64::NAN);
        assert!(e.contains("confidence"), "{e}");
        let e = refused(&|p| {
            p.campaigns[0].distributions = vec![Distribution::Normal {
                mean: 0.0,
                std_dev: f64::NAN,
            }]
        });
        assert!(e.contains("campaign[0].distributions[0]"), "{e}");
        // The plan as read is unchanged.
        assert_eq!(good.cells().unwrap().len(), 1);
    }
}
