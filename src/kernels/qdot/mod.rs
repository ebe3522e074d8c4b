//! qdot: the error-bounded quantized dot product of Diffenderfer,
//! Osei-Kuffuor & Menon (2021; seed `qdot-diffenderfer-2021.txt`, digest
//! `qdot.md`), its bounds, and the applications of its §4.
//!
//! - [`select`]: parameter selection, Algorithm 3.2 with exact binning (one
//!   counting pass, bin scores (3.10), Precision (3.9), early exit of Theorem 3.6);
//! - [`compute`]: the computation phase, Algorithm 3.1, in a fixed order shared
//!   with `kernels/qdot.cu`;
//! - [`bounds`]: the checker's bounds for a run (Theorems 3.2-3.5 as printed,
//!   the corrected rigorous bound), from `boundgate_verify::bounds::qdot`;
//! - [`kernel`]: `boundgate run qdot`;
//! - `gpu` (feature `cuda`): the launchers of `kernels/qdot.cu` (run on a lent
//!   H100 on 2026-11-24, bit-identical to the CPU model: record
//!   `docs/gpu/2026-11-24-h100.md`);
//! - [`config`]: the options (input precision, `fexp` definition, half-bin
//!   arithmetic, ladder, score tolerance, order, early exit).

pub mod apps;
pub mod bounds;
pub mod compute;
pub mod config;
pub mod distributions;
pub mod experiments;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod kernel;
pub mod select;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels.
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::qdot::kernels().iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["qdot"]);
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![&kernel::QdotKernel]
}

/// The family's experiments.
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::qdot::experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["qdot-fig1", "qdot-fig2", "qdot-efficiency", "qdot-acg", "qdot-apm"]);
/// ```
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![
        &experiments::fig1::Fig1,
        &experiments::fig2::Fig2,
        &experiments::efficiency::Efficiency,
        &experiments::acg::Acg,
        &experiments::apm::Apm,
    ]
}
