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

pub use error::{Result, VerifyError};

/// This crate's version, recorded in reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
