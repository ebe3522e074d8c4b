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
    /// Whether this shard runs unit `unit` (0-based).
    pub fn owns(&self, unit: usize) -> bool {
        unit % self.count == self.index - 1
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
/// Refused, with the file named: a report that is not a shard, shards of
/// different plans (digest), builds or devices (environment), counts, a
/// missing or repeated shard, or units missing or repeated.
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
