//! How much any schedule could gain at a limit: the longest single stretch of
//! the approximate kernel whose *executed* loss stays within the limit, at the
//! start and at the end of the run, and the speedup bounds that follow.
//!
//! Why a single stretch: on HotSpot3D the loss an approximate iteration adds
//! is not healed by later float iterations, and every re-entry into half
//! rounds the state afresh (docs/findings/interleave.md, "A ceiling at
//! L_max/4"; tests/interleave_ceiling.rs), so splitting the approximate
//! iterations buys none. That is measured, not proved, so this module reports
//! what it executed: a stretch of `H` iterations within the limit and one of
//! `H + 1` beyond it, and the bound `N / (N - H)` on the speedup of any
//! schedule with at most `H` approximate iterations even if they cost nothing
//! (`N` iterations of which `H` cost `r` times a float one take at least
//! `N - H (1 - r)` float iterations' time; conversions only add). Not part of
//! the thesis (Freytag 2023), which reports no such bound.

use super::clock::Clock;
use super::error::Result;
use super::execute::{Execution, execute_many};
use super::hotspot::HotSpot3D;
use super::schedule::Schedule;
use super::version::Version;
use std::collections::BTreeMap;

/// `approx` for `len` iterations from `start` (completed iterations), float
/// before and after.
///
/// # Errors
/// `start + len > iterations` (an overflowing sum included), `len = 0` or
/// `iterations = 0`.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::ceiling::stretch;
/// use boundgate::kernels::interleave::version::Version;
/// let s = stretch(10, Version::Half, 6, 4).unwrap();
/// assert_eq!(s.count(Version::Half), 4);
/// assert_eq!(s.version_at(6), Version::Float);
/// assert_eq!(s.version_at(7), Version::Half);
/// assert!(stretch(10, Version::Half, usize::MAX, 1).is_err()); // refused, not overflowed
/// ```
pub fn stretch(iterations: usize, approx: Version, start: usize, len: usize) -> Result<Schedule> {
    // Checked: `start + len` overflowed (a panic in debug builds) for a
    // start near usize::MAX.
    if len == 0 || start.checked_add(len).is_none_or(|end| end > iterations) {
        return Err(super::error::InterleaveError::parameter(
            "stretch",
            len,
            format!(
                "a stretch of 1 to {} iterations from {start}",
                iterations.saturating_sub(start)
            ),
        ));
    }
    let mut switches = Vec::new();
    if start > 0 {
        switches.push((0, Version::Float));
    }
    switches.push((start, approx));
    if start + len < iterations {
        switches.push((start + len, Version::Float));
    }
    Schedule::new(iterations, switches)
}

/// Where a stretch sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Placement {
    /// From iteration 0.
    Start,
    /// Ending at the last iteration.
    End,
}

/// The longest stretch within a limit at one placement.
#[derive(Clone, Debug)]
pub struct Longest {
    /// Where.
    pub placement: Placement,
    /// Its length `H` (0: not even one approximate iteration is within).
    pub len: usize,
    /// Its execution (`None` when `len = 0`).
    pub within: Option<Execution>,
    /// The execution of the stretch one longer, beyond the limit (`None`
    /// when the whole run is within).
    pub beyond: Option<Execution>,
}

/// The ceiling at one limit.
#[derive(Clone, Debug)]
pub struct Ceiling {
    /// The limit.
    pub limit: f64,
    /// The longest stretch from the start and to the end.
    pub longest: [Longest; 2],
    /// Iterations of the run.
    pub iterations: usize,
}

impl Ceiling {
    /// The larger of the two lengths.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::ceiling::{Ceiling, Longest, Placement};
    /// let at = |placement, len| Longest { placement, len, within: None, beyond: None };
    /// let c = Ceiling { limit: 0.01, longest: [at(Placement::Start, 3), at(Placement::End, 5)], iterations: 40 };
    /// assert_eq!(c.longest_len(), 5);
    /// let c = Ceiling { longest: [at(Placement::Start, 7), at(Placement::End, 0)], ..c };
    /// assert_eq!(c.longest_len(), 7);
    /// ```
    pub fn longest_len(&self) -> usize {
        self.longest[0].len.max(self.longest[1].len)
    }

    /// `N / (N - H)`: the speedup of a run with `H` approximate iterations
    /// that cost nothing, conversions free.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::ceiling::{Ceiling, Longest, Placement};
    /// let at = |placement, len| Longest { placement, len, within: None, beyond: None };
    /// let c = Ceiling { limit: 0.01, longest: [at(Placement::Start, 10), at(Placement::End, 4)], iterations: 40 };
    /// assert_eq!(c.free_bound(), 40.0 / 30.0); // N / (N - H), H = 10
    /// // no approximate iteration within the limit: no gain at all
    /// let none = Ceiling { longest: [at(Placement::Start, 0), at(Placement::End, 0)], ..c.clone() };
    /// assert_eq!(none.free_bound(), 1.0);
    /// // the whole run within: no finite bound
    /// let all = Ceiling { longest: [at(Placement::Start, 40), at(Placement::End, 40)], ..c };
    /// assert_eq!(all.free_bound(), f64::INFINITY);
    /// ```
    pub fn free_bound(&self) -> f64 {
        let n = self.iterations as f64;
        n / (n - self.longest_len() as f64).max(f64::MIN_POSITIVE)
    }

    /// The best executed speedup of the two longest stretches (1 when none
    /// is within).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{ceiling::ceiling, clock::Clock, grid::Grid3,
    ///     hotspot::HotSpot3D, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    /// let c = ceiling(&app, Version::Half, 20, 0.002, Clock::DEFAULT).unwrap();
    /// assert!(c.longest_len() > 0);
    /// // the faster of the two stretches within the limit; half is cheaper than float
    /// let best = c.best_executed();
    /// assert!(best > 1.0 && best <= c.free_bound());
    /// assert!(c.longest.iter().any(|l| l.within.as_ref().and_then(|e| e.speedup) == Some(best)));
    /// // an unreachable limit: nothing within, speedup 1
    /// let none = ceiling(&app, Version::Half, 20, 1e-12, Clock::DEFAULT).unwrap();
    /// assert_eq!((none.longest_len(), none.best_executed()), (0, 1.0));
    /// ```
    pub fn best_executed(&self) -> f64 {
        self.longest
            .iter()
            .filter_map(|l| l.within.as_ref().and_then(|e| e.speedup))
            .fold(1.0, f64::max)
    }
}

/// The longest stretch of `approx` within `limit` from the start and to the
/// end of an `iterations`-long run, by bisection on the length (each length
/// executed: the reported `H` is within and `H + 1` beyond, whether or not
/// the loss grows monotonically with the length in between).
///
/// # Errors
/// As [`execute`](super::execute::execute).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{ceiling::ceiling, clock::Clock, grid::Grid3,
///     hotspot::HotSpot3D, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(16, 16, 2).unwrap(), 1).unwrap();
/// let c = ceiling(&app, Version::Half, 40, 0.002, Clock::DEFAULT).unwrap();
/// for l in &c.longest {
///     if let Some(e) = &l.within { assert!(e.respects_limit()); }
///     if let Some(e) = &l.beyond { assert!(!e.respects_limit()); }
/// }
/// assert!(c.free_bound() >= c.best_executed());
/// ```
pub fn ceiling(
    app: &HotSpot3D,
    approx: Version,
    iterations: usize,
    limit: f64,
    clock: Clock,
) -> Result<Ceiling> {
    let mut all = ceilings(app, approx, iterations, &[limit], clock)?;
    Ok(all.pop().expect("one limit, one ceiling"))
}

/// [`ceiling`] at several limits, in order, with the work shared: the
/// searches (every limit, both placements) advance together, one bisection
/// step per lockstep pass of [`execute_many`] (which runs the float reference
/// once for all the stretches of the pass and shares their common prefixes),
/// and a stretch is executed once against every limit, so a length two
/// searches probe runs once. The lengths found are those of [`ceiling`] at
/// each limit alone: each search takes the same steps on the same executions.
///
/// # Errors
/// As [`execute`](super::execute::execute).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{ceiling::{ceiling, ceilings}, clock::Clock,
///     grid::Grid3, hotspot::HotSpot3D, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(16, 16, 2).unwrap(), 1).unwrap();
/// let both = ceilings(&app, Version::Half, 40, &[0.001, 0.002], Clock::DEFAULT).unwrap();
/// let alone = ceiling(&app, Version::Half, 40, 0.002, Clock::DEFAULT).unwrap();
/// assert_eq!(both[1].longest_len(), alone.longest_len());
/// ```
pub fn ceilings(
    app: &HotSpot3D,
    approx: Version,
    iterations: usize,
    limits: &[f64],
    clock: Clock,
) -> Result<Vec<Ceiling>> {
    let n = iterations;
    // The whole run in the approximate kernel is the longest stretch at either
    // placement: one key for both.
    let key = |placement: Placement, len: usize| {
        if len == n {
            (Placement::Start, n)
        } else {
            (placement, len)
        }
    };
    let mut executed: BTreeMap<(Placement, usize), Vec<Execution>> = BTreeMap::new();
    let run_pass = |probes: &[(Placement, usize)],
                    executed: &mut BTreeMap<(Placement, usize), Vec<Execution>>|
     -> Result<()> {
        let mut items = Vec::with_capacity(probes.len() * limits.len());
        for &(placement, len) in probes {
            let start = match placement {
                Placement::Start => 0,
                Placement::End => n - len,
            };
            let schedule = stretch(n, approx, start, len)?;
            items.extend(limits.iter().map(|&limit| (schedule.clone(), limit)));
        }
        let mut results = execute_many(app, &items, clock, false)?.into_iter();
        for &probe in probes {
            executed.insert(probe, results.by_ref().take(limits.len()).collect());
        }
        Ok(())
    };
    if limits.is_empty() {
        return Ok(Vec::new());
    }
    run_pass(&[key(Placement::Start, n)], &mut executed)?;
    let whole = &executed[&key(Placement::Start, n)];
    // One search per limit and placement. Invariant: `lo` is 0 or was
    // executed within the limit, `hi` was executed beyond it (or is `n` with
    // the whole run within, the search then over).
    let mut searches: Vec<(usize, Placement, usize, usize)> = Vec::new();
    for (k, e) in whole.iter().enumerate() {
        for placement in [Placement::Start, Placement::End] {
            let lo = if e.respects_limit() { n } else { 0 };
            searches.push((k, placement, lo, n));
        }
    }
    loop {
        let mut probes: Vec<(Placement, usize)> = searches
            .iter()
            .filter(|&&(_, _, lo, hi)| hi - lo > 1)
            .map(|&(_, placement, lo, hi)| key(placement, lo + (hi - lo) / 2))
            .filter(|probe| !executed.contains_key(probe))
            .collect();
        probes.sort_unstable();
        probes.dedup();
        if !probes.is_empty() {
            run_pass(&probes, &mut executed)?;
        }
        let mut moved = false;
        for (k, placement, lo, hi) in &mut searches {
            if *hi - *lo > 1 {
                let mid = *lo + (*hi - *lo) / 2;
                if executed[&key(*placement, mid)][*k].respects_limit() {
                    *lo = mid;
                } else {
                    *hi = mid;
                }
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let longest = |k: usize, placement: Placement, lo: usize, hi: usize| {
        let at = |len: usize| executed[&key(placement, len)][k].clone();
        Longest {
            placement,
            len: lo,
            within: (lo > 0).then(|| at(lo)),
            beyond: (lo < n).then(|| at(hi)),
        }
    };
    Ok(limits
        .iter()
        .enumerate()
        .map(|(k, &limit)| {
            let [start, end] = [Placement::Start, Placement::End].map(|placement| {
                let &(_, _, lo, hi) = searches
                    .iter()
                    .find(|s| s.0 == k && s.1 == placement)
                    .expect("a search per limit and placement");
                longest(k, placement, lo, hi)
            });
            Ceiling {
                limit,
                longest: [start, end],
                iterations,
            }
        })
        .collect())
}
