//! Memory-accessor BLAS: low-precision storage, high-precision arithmetic (Grützmacher et al. 2021).
//!
//! Not implemented yet: this family registers no kernels and no experiments.

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
