//! Sharding a plan for clusters and merging the shards' reports.
//!
//! A plan is a list of *units*: its cells (kernel x parameters x size x
//! distribution, in the order of [`Plan::cells`](super::Plan::cells)), then
//! its experiments. Shard `I/N` (1-based, as Slurm's `--array=1-N` numbers
//! tasks) runs the units `u` with `u mod N = I - 1`. Every unit draws its
//! inputs from its own seeds, so a unit's result does not depend on the
//! shard that ran it, and [`merge`] of all `N` shard reports equals the
//! unsharded report (timings, and the timed experiments they list, aside). A Slurm example is in docs/sharding.md.

use super::report::AuditReport;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Shard `index` of `count` (1-based).
///
/// # Example
/// ```
/// use boundgate::audit::Shard;
/// let s: Shard = "2/3".parse().unwrap();
/// assert_eq!((s.index, s.count), (2, 3));
/// assert!(s.owns(1) && s.owns(4) && !s.owns(0));
/// assert!("3/2".parse::<Shard>().is_err());
/// assert!("0/0".parse::<Shard>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, `1..=count`.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// Whether this shard runs unit `unit` (0-based); a malformed shard
    /// (`index` outside `1..=count`) runs none.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::Shard;
    /// let s = Shard { index: 2, count: 3 };
    /// // units u with u mod 3 = 1
    /// assert_eq!((0..8).filter(|&u| s.owns(u)).collect::<Vec<_>>(), [1, 4, 7]);
    /// // every unit has exactly one owner among the shards 1/3, 2/3, 3/3
    /// assert!((0..100).all(|u| (1..=3).filter(|&i| Shard { index: i, count: 3 }.owns(u)).count() == 1));
    /// // malformed by hand (parsing refuses these): owns nothing, no panic
    /// assert!(!Shard { index: 0, count: 3 }.owns(0) && !Shard { index: 1, count: 0 }.owns(0));
    /// ```
    pub fn owns(&self, unit: usize) -> bool {
        // The fields are public: a shard built by hand as 0/N or I/0 owns
        // nothing rather than panicking (parsing refuses both).
        match (unit.checked_rem(self.count), self.index.checked_sub(1)) {
            (Some(rem), Some(slot)) => rem == slot,
            _ => false,
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard> {
        let bad = |why: &str| Error::usage(format!("--shard {s}: {why}"));
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, e.g. 2/8"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("I is not a whole number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index == 0 || index > count {
            return Err(bad("I must be in 1..=N (shards are numbered from 1)"));
        }
        Ok(Shard { index, count })
    }
}

/// Merges the reports of all shards of one plan into the report the
/// unsharded run gives (timings: the sum of the shards').
///
/// Refused, with the file named ([`Error::Report`]): a report that is not a
/// shard, shards of different plans (digest), builds or devices
/// (environment) or counts, a shard given twice. Refused as usage
/// ([`Error::Usage`], no single file to name): no reports, a shard missing,
/// units missing or repeated across the shards.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::audit::{Plan, RunOptions, Shard, merge, run_plan};
/// use std::path::{Path, PathBuf};
/// let text = "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 16, 32], params = { format = [\"bf16\"] }, distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }] }]";
/// let plan = Plan::from_toml(text, Path::new("doc.toml")).unwrap();
/// let run = |s: &str| run_plan(&plan, RunOptions { shard: Some(s.parse::<Shard>().unwrap()), ..Default::default() }).unwrap();
/// let (one, two) = ((PathBuf::from("1.json"), run("1/2")), (PathBuf::from("2.json"), run("2/2")));
/// // shard 1/2 ran units 0 and 2, shard 2/2 unit 1: merged in order, as the unsharded run
/// let merged = merge(vec![two.clone(), one.clone()]).unwrap();
/// let whole = run_plan(&plan, RunOptions::default()).unwrap();
/// assert_eq!(merged.deterministic_json(), whole.deterministic_json());
/// assert!(matches!(merge(vec![one.clone()]), Err(Error::Usage(m)) if m == "merge: shard 2/2 is missing"));
/// assert!(matches!(merge(vec![one.clone(), one]), Err(Error::Report { path, .. }) if path == Path::new("1.json")));
/// ```
pub fn merge(shards: Vec<(PathBuf, AuditReport)>) -> Result<AuditReport> {
    let bad = |path: &PathBuf, reason: String| Error::Report {
        path: path.clone(),
        reason,
    };
    let Some((first_path, first)) = shards.first() else {
        return Err(Error::usage("merge: no shard reports given"));
    };
    let Some(first_shard) = first.shard else {
        return Err(bad(first_path, "not a shard (no \"shard\" field)".into()));
    };
    // A set, not a vector of `count` flags: `count` comes from a file
    // (2^63 aborted on allocation until 2026-11-25; review).
    let mut seen = std::collections::BTreeSet::new();
    for (path, r) in &shards {
        let shard = r
            .shard
            .ok_or_else(|| bad(path, "not a shard (no \"shard\" field)".into()))?;
        // A report read from a file may say anything: `I/N` as `--shard`
        // requires it (an index of 0 or beyond N panicked until 2026-11-25).
        if shard.count == 0 || shard.index == 0 || shard.index > shard.count {
            return Err(bad(
                path,
                format!("shard {shard} is not a shard I/N with I in 1..=N"),
            ));
        }
        if r.plan_digest != first.plan_digest {
            return Err(bad(
                path,
                format!(
                    "plan digest {} differs from {}'s {}: shards of different plans",
                    r.plan_digest,
                    first_path.display(),
                    first.plan_digest
                ),
            ));
        }
        if r.environment != first.environment {
            return Err(bad(
                path,
                format!(
                    "environment differs from {}'s (versions, commit, target or device): the merge would not be reproducible",
                    first_path.display()
                ),
            ));
        }
        if shard.count != first_shard.count {
            return Err(bad(
                path,
                format!("shard {shard} is not one of {} shards", first_shard.count),
            ));
        }
        if r.units != first.units {
            return Err(bad(
                path,
                format!(
                    "units: {} differs from {}'s {}: shards of different plans",
                    r.units,
                    first_path.display(),
                    first.units
                ),
            ));
        }
        if !seen.insert(shard.index) {
            return Err(bad(path, format!("shard {shard} given twice")));
        }
    }
    // The first index not seen: among the first `seen.len() + 1`, so this
    // ends quickly whatever the count.
    if let Some(missing) = (1..=first_shard.count).find(|i| !seen.contains(i)) {
        return Err(Error::usage(format!(
            "merge: shard {missing}/{} is missing",
            first_shard.count
        )));
    }
    let template = first.clone();
    let mut cells = Vec::new();
    let mut experiments = Vec::new();
    let mut seconds = 0.0;
    let mut timed_units = Vec::new();
    for (_, r) in shards {
        cells.extend(r.cells);
        experiments.extend(r.experiments);
        // Finite whatever the shards say (1.7e308 twice summed to inf, which
        // JSON wrote as null and merge then refused to read back).
        seconds = (seconds + r.timings.total_seconds).min(f64::MAX);
        timed_units.extend(r.timings.timed_units);
    }
    timed_units.sort_unstable();
    cells.sort_by_key(|c| c.unit);
    experiments.sort_by_key(|e| e.unit);
    let mut units: Vec<usize> = cells
        .iter()
        .map(|c| c.unit)
        .chain(experiments.iter().map(|e| e.unit))
        .collect();
    units.sort_unstable();
    // Compared lazily: `units` comes from a file (10^15 aborted on
    // allocation until 2026-11-25; review).
    if !units.iter().copied().eq(0..template.units) {
        return Err(Error::usage(format!(
            "merge: the shards hold units {:?}..., not each of the plan's {} units once",
            &units[..units.len().min(8)],
            template.units
        )));
    }
    Ok(AuditReport {
        shard: None,
        totals: super::report::Totals::of(&cells, &experiments),
        cells,
        experiments,
        timings: super::report::Timings {
            total_seconds: seconds,
            timed_units,
        },
        ..template
    })
}
