//! Runtimes in the profiles: a documented GPU cost model, or the CPU model's
//! own wall clock.
//!
//! The CPU model emulates binary16 arithmetic in software, so its wall-clock
//! time says nothing about a GPU, where `half2` arithmetic and half the memory
//! traffic make the half kernel faster (the thesis measured 1.64x on an A100
//! for HotSpot3D 512x512x8). Profiles therefore carry *modelled* runtimes by
//! default ([`Clock::Model`]): a per-cell cost for each kernel version,
//! calibrated on the thesis's measurements, so that schedules, targets and
//! speedups are deterministic and reproducible. [`Clock::Wall`] records the
//! CPU model's real time instead (the thesis's `gettimeofday` timestamps).
//! Every report says which clock produced its numbers.

use super::version::Version;
use serde::Serialize;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Per-cell costs of each kernel version on a device, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CostModel {
    /// Its name in reports.
    pub name: &'static str,
    /// One `float` iteration (also a computed `looperf` iteration), per cell.
    pub float_ns_per_cell: f64,
    /// One `half` iteration, per cell.
    pub half_ns_per_cell: f64,
    /// A skipped `looperf` iteration (no launch), per cell.
    pub skipped_ns_per_cell: f64,
    /// Converting the state between binary32 and binary16, per cell.
    pub convert_ns_per_cell: f64,
}

impl CostModel {
    /// The thesis's A100 (Freytag 2023, Table A.9, HotSpot3D 512x512x8, 500
    /// iterations): `float` 12.05 ms, `half` 7.33 ms, i.e. 24.10 us and
    /// 14.66 us per iteration over 2,097,152 cells. A skipped perforated
    /// iteration costs nothing (its launch is skipped). The thesis does not
    /// report the conversion's cost; it is modelled as a memory-bound kernel
    /// reading 4 and writing 2 bytes per cell, half the traffic of a `float`
    /// iteration (read 8, write 4), so half its cost. Assumptions, not
    /// measurements: only the two iteration costs come from the thesis.
    pub const A100_THESIS: CostModel = CostModel {
        name: "a100-thesis (Freytag 2023, Table A.9)",
        float_ns_per_cell: 12.05e6 / 500.0 / 2_097_152.0,
        half_ns_per_cell: 7.33e6 / 500.0 / 2_097_152.0,
        skipped_ns_per_cell: 0.0,
        convert_ns_per_cell: 0.5 * 12.05e6 / 500.0 / 2_097_152.0,
    };

    /// Modelled time of one call of `version` on `cells` cells (`computed`:
    /// false for a skipped perforated iteration).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{clock::CostModel, version::Version};
    /// let m = CostModel { name: "toy", float_ns_per_cell: 2.0, half_ns_per_cell: 1.5,
    ///                     skipped_ns_per_cell: 0.25, convert_ns_per_cell: 1.0 };
    /// assert_eq!(m.iteration_ns(Version::Float, 8, true), 16.0); // 2 * 8
    /// assert_eq!(m.iteration_ns(Version::Half, 8, true), 12.0); // 1.5 * 8
    /// assert_eq!(m.iteration_ns(Version::Looperf, 8, true), 16.0); // computed: a float iteration
    /// assert_eq!(m.iteration_ns(Version::Looperf, 8, false), 2.0); // skipped: 0.25 * 8
    /// // the thesis's A100: 12.05 ms for 500 float iterations of 512x512x8
    /// let a = CostModel::A100_THESIS.iteration_ns(Version::Float, 2_097_152, true);
    /// assert!((a - 24_100.0).abs() < 1e-6);
    /// ```
    pub fn iteration_ns(&self, version: Version, cells: usize, computed: bool) -> f64 {
        let per_cell = match (version, computed) {
            (_, false) => self.skipped_ns_per_cell,
            (Version::Half, true) => self.half_ns_per_cell,
            (_, true) => self.float_ns_per_cell,
        };
        per_cell * cells as f64
    }

    /// Modelled time of one conversion of `cells` cells.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::clock::CostModel;
    /// let m = CostModel { name: "toy", float_ns_per_cell: 2.0, half_ns_per_cell: 1.5,
    ///                     skipped_ns_per_cell: 0.0, convert_ns_per_cell: 0.75 };
    /// assert_eq!(m.conversion_ns(4), 3.0); // 0.75 * 4
    /// assert_eq!(m.conversion_ns(0), 0.0);
    /// // the A100 model: half the cost of a float iteration
    /// let a = CostModel::A100_THESIS;
    /// assert!((a.conversion_ns(2_097_152) - 12_050.0).abs() < 1e-6);
    /// ```
    pub fn conversion_ns(&self, cells: usize) -> f64 {
        self.convert_ns_per_cell * cells as f64
    }
}

/// Where runtimes come from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// A cost model: deterministic, timestamps count modelled nanoseconds from 0.
    Model(CostModel),
    /// The CPU model's wall clock: timestamps are nanoseconds since the Unix epoch.
    Wall,
}

impl Clock {
    /// The default: the thesis's A100 cost model.
    pub const DEFAULT: Clock = Clock::Model(CostModel::A100_THESIS);

    /// Parses `model` or `wall`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::clock::Clock;
    /// assert_eq!(Clock::by_name("model"), Some(Clock::DEFAULT));
    /// assert_eq!(Clock::by_name("wall"), Some(Clock::Wall));
    /// assert_eq!(Clock::by_name("Wall"), None); // case-sensitive
    /// assert_eq!(Clock::by_name("gpu"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<Clock> {
        match name {
            "model" => Some(Clock::DEFAULT),
            "wall" => Some(Clock::Wall),
            _ => None,
        }
    }

    /// A label for reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::clock::Clock;
    /// assert_eq!(Clock::Wall.label(), "measured: CPU model wall clock");
    /// assert_eq!(Clock::DEFAULT.label(), "modelled: a100-thesis (Freytag 2023, Table A.9)");
    /// ```
    pub fn label(&self) -> String {
        match self {
            Clock::Model(m) => format!("modelled: {}", m.name),
            Clock::Wall => "measured: CPU model wall clock".into(),
        }
    }
}

/// A stopwatch for one timed piece of work under a [`Clock`].
pub(crate) struct Stopwatch {
    started: Instant,
    epoch_ns: u64,
}

impl Stopwatch {
    pub(crate) fn start() -> Stopwatch {
        Stopwatch {
            started: Instant::now(),
            epoch_ns: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or(Duration::ZERO)
                .as_nanos() as u64,
        }
    }

    /// `(start, end)` timestamps and the runtime in ns of the work since
    /// `start()`: under a model, the modelled `ns` placed after `virtual_now`.
    pub(crate) fn finish(
        self,
        clock: &Clock,
        virtual_now: u64,
        modelled_ns: f64,
    ) -> (u64, u64, f64) {
        match clock {
            Clock::Model(_) => {
                let end = virtual_now + modelled_ns.round() as u64;
                (virtual_now, end, modelled_ns)
            }
            Clock::Wall => {
                let elapsed = self.started.elapsed().as_nanos() as u64;
                (self.epoch_ns, self.epoch_ns + elapsed, elapsed as f64)
            }
        }
    }
}
