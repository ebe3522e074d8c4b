//! # boundgate
//!
//! The kernels under test and the tool around them: CPU models of mixed- and
//! low-precision kernels (and their GPU versions), input generators and
//! proptest strategies, audit plans and reports, and the `boundgate` CLI.
//! The checker it relies on is the separate crate `boundgate-verify`, which
//! never depends on this one.

pub mod audit;
pub mod cli;
pub mod decimal;
pub mod error;
pub mod generate;
pub mod gpu;
pub mod io;
pub mod kernels;
pub mod plot;
pub mod sparse;

pub use error::{Error, ExitCode, Result};
