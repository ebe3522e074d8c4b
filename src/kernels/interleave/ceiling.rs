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
use super::execute::{Execution, execute};
use super::hotspot::HotSpot3D;
use super::schedule::Schedule;
use super::version::Version;

/// `approx` for `len` iterations from `start` (completed iterations), float
/// before and after.
///
/// # Errors
/// `start + len > iterations`, `len = 0` or `iterations = 0`.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::ceiling::stretch;
/// use boundgate::kernels::interleave::version::Version;
/// let s = stretch(10, Version::Half, 6, 4).unwrap();
/// assert_eq!(s.count(Version::Half), 4);
/// assert_eq!(s.version_at(6), Version::Float);
/// assert_eq!(s.version_at(7), Version::Half);
/// ```
pub fn stretch(iterations: usize, approx: Version, start: usize, len: usize) -> Result<Schedule> {
    if len == 0 || start + len > iterations {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
    pub fn longest_len(&self) -> usize {
        self.longest[0].len.max(self.longest[1].len)
    }

    /// `N / (N - H)`: the speedup of a run with `H` approximate iterations
    /// that cost nothing, conversions free.
    pub fn free_bound(&self) -> f64 {
        let n = self.iterations as f64;
        n / (n - self.longest_len() as f64).max(f64::MIN_POSITIVE)
    }

    /// The best executed speedup of the two longest stretches (1 when none
    /// is within).
    pub fn best_executed(&self) -> f64 {
        self.longest
            .iter()
            .filter_map(|l| l.within.as_ref().map(|e| e.speedup))
            .fold(1.0, f64::max)
    }
}

/// The longest stretch of `approx` within `limit` from the start and to the
/// end of an `iterations`-long run, by bisection on the length (each length
/// executed: the reported `H` is within and `H + 1` beyond, whether or not
/// the loss grows monotonically with the length in between).
///
/// # Errors
/// As [`execute`].
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
    // The whole run in the approximate kernel is the longest stretch at either
    // placement: executed once for both.
    let whole = execute(
        app,
        &stretch(iterations, approx, 0, iterations)?,
        limit,
        clock,
        false,
    )?;
    let longest = [Placement::Start, Placement::End]
        .map(|placement| longest_at(app, approx, iterations, limit, clock, placement, &whole));
    let [start, end] = longest;
    Ok(Ceiling {
        limit,
        longest: [start?, end?],
        iterations,
    })
}

fn longest_at(
    app: &HotSpot3D,
    approx: Version,
    n: usize,
    limit: f64,
    clock: Clock,
    placement: Placement,
    whole: &Execution,
) -> Result<Longest> {
    let run = |len: usize| -> Result<Execution> {
        let start = match placement {
            Placement::Start => 0,
            Placement::End => n - len,
        };
        execute(app, &stretch(n, approx, start, len)?, limit, clock, false)
    };
    if whole.respects_limit() {
        return Ok(Longest {
            placement,
            len: n,
            within: Some(whole.clone()),
            beyond: None,
        });
    }
    // Invariant: `lo` is 0 or was executed within the limit (`within`), `hi`
    // was executed beyond it (`beyond`).
    let (mut lo, mut hi) = (0usize, n);
    let (mut within, mut beyond) = (None, Some(whole.clone()));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let e = run(mid)?;
        if e.respects_limit() {
            lo = mid;
            within = Some(e);
        } else {
            hi = mid;
            beyond = Some(e);
        }
    }
    Ok(Longest {
        placement,
        len: lo,
        within,
        beyond,
    })
}
