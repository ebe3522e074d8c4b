//! Interleaved execution of approximate kernels (Freytag 2023).
//!
//! Not implemented yet: this family registers no kernels and no experiments.

pub mod cli;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels.
pub fn kernels() -> Vec<&'static dyn Kernel> {
    Vec::new()
}

/// The family's experiments.
pub fn experiments() -> Vec<&'static dyn Experiment> {
    Vec::new()
}
