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

/// Seeds of the trials: `first, first + 1, ..., first + count - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seeds {
    /// First seed.
    pub first: u64,
    /// Number of seeds (trials per cell).
    pub count: u64,
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
    pub fn from_file(path: &Path) -> Result<Plan> {
        let text = read_text(path)?;
        Plan::from_toml(&text, path)
    }

    /// The built-in default plan.
    pub fn default_plan() -> Result<Plan> {
        Plan::from_toml(DEFAULT_PLAN, Path::new("plans/default.toml"))
    }

    /// Parses and validates a plan; `path` is only used in error messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<Plan> {
        let plan: Plan = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let field = line
                .and_then(|l| text.lines().nth(l - 1))
                .and_then(|l| l.split_once('='))
                .map(|(k, _)| k.trim().to_string())
                .unwrap_or_else(|| "plan".to_string());
            Error::Plan {
                path: path.to_path_buf(),
                line,
                field,
                reason: e.message().to_string(),
            }
        })?;
        plan.validate(path)?;
        Ok(plan)
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
        if self.seeds.count == 0 {
            return Err(err("seeds.count".into(), "must be at least 1".into()));
        }
        if self.campaigns.is_empty() && self.experiments.is_empty() {
            return Err(err(
                "campaign".into(),
                "the plan has no [[campaign]] and no [[experiment]]".into(),
            ));
        }
        for (i, e) in self.experiments.iter().enumerate() {
            let at = |f: &str| format!("experiment[{i}].{f}");
            let experiment =
                registry::find_experiment(&e.name).map_err(|x| err(at("name"), x.to_string()))?;
            if e.seeds.is_some_and(|s| s.count == 0) {
                return Err(err(at("seeds.count"), "must be at least 1".into()));
            }
            // The experiment names the parameter ("params.eps: ..."): keep it in the field.
            experiment
                .check_params(&ExperimentParams::new(e.params.clone()))
                .map_err(|reason| match reason.split_once(": ") {
                    Some((field, rest)) if field.starts_with("params.") => {
                        err(at(field), rest.to_string())
                    }
                    _ => err(at("params"), reason),
                })?;
        }
        for (i, c) in self.campaigns.iter().enumerate() {
            let at = |f: &str| format!("campaign[{i}].{f}");
            let kernel = registry::find(&c.kernel).map_err(|e| err(at("kernel"), e.to_string()))?;
            if c.sizes.is_empty() || c.sizes.contains(&0) {
                return Err(err(at("sizes"), "needs at least one size, all > 0".into()));
            }
            if c.distributions.is_empty() {
                return Err(err(
                    at("distributions"),
                    "needs at least one distribution".into(),
                ));
            }
            for (j, d) in c.distributions.iter().enumerate() {
                d.validate()
                    .map_err(|r| err(at(&format!("distributions[{j}]")), r))?;
            }
            if c.seeds.is_some_and(|s| s.count == 0) {
                return Err(err(at("seeds.count"), "must be at least 1".into()));
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

    /// Expands the plan into its cells, in a fixed order.
    pub fn cells(&self) -> Result<Vec<Cell>> {
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
        Ok(cells)
    }
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
}
