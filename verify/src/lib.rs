//! # boundgate-verify: the checker
//!
//! Small, independent and trusted: number formats and correctly rounded
//! conversion ([`format`](mod@format)), exact references computed with MPFR and a fast
//! exact accumulator ([`oracle`]), executable forms of published error bounds
//! ([`bounds`]), confidence tests for probabilistic bounds ([`stats`]) and the
//! check loop that turns a kernel's output into a [`check::Verdict`].
//!
//! This crate never depends on the kernels it checks (the `boundgate` crate);
//! `tests/independence.rs` enforces that.
//!
//! ```
//! use boundgate_verify::format::{Format, RoundingMode};
//! // Round pi to bfloat16, toward zero.
//! let x = Format::BF16.round(std::f64::consts::PI, RoundingMode::TowardZero);
//! assert_eq!(x, 3.140625);
//! ```

#![warn(missing_docs)]

pub mod bounds;
pub mod check;
pub mod error;
pub mod format;
pub mod oracle;
pub mod stats;
#[cfg(feature = "strategies")]
pub mod strategies;

/// A fixed-seed SplitMix64 stream (Steele, Lea and Flood 2014) for the unit
/// tests: the same numbers on every platform, without a dependency.
#[cfg(test)]
pub(crate) fn splitmix64(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

pub use error::{Result, VerifyError};

/// This crate's version, recorded in reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
