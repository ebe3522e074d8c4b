//! Residual-compensated int8/int4 GEMM with a sparse residual: Hongyaoxing Gu,
//! *A method for accelerating low precision operations by sparse matrix
//! multiplication* (preprint; seed `residual-sparse-gemm-gu.txt`).
//!
//! - [`quant`]: symmetric absmax quantizers (eq. (1)-(3)), int8/int4, per
//!   tensor or vector-wise (§3.2), with the scale rule (default
//!   `(2^(N-1)-1)/max`; the worked example's `2^(N-2)/max`; eq. (2) as printed,
//!   saturating) and the rounding rule (nearest-even, floor, toward zero) stated.
//! - [`intgemm`], [`csr`]: exact integer GEMM and CSR SpMM with `int32`
//!   accumulation and an overflow check.
//! - [`reduce`]: the reduction rule (eq. (14)), one clear reading plus the
//!   worked example's signed variant.
//! - [`method`]: Algorithm 1 (sparse), the full residual and direct
//!   quantization, in a fixed order of correctly rounded operations.
//! - [`kernel`]: `boundgate run residual-gemm`, with the rigorous bound of
//!   `boundgate_verify::bounds::residual` and the paper's estimates beside it.
//! - [`example`]: the §3 worked example (Table 2).
//! - [`accuracy`]: the experiment `residual-accuracy` (the paper's Fig. 6
//!   comparison, plus a zero-mean distribution) and [`dist`], its distributions.
//! - `gpu` (feature `cuda`): launchers of `kernels/residual.cu`.
//!
//! The decisions on the paper's inconsistencies are in `docs/residual.md`.

pub mod accuracy;
pub mod csr;
pub mod dist;
pub mod exact_mean;
pub mod example;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod intgemm;
pub mod kernel;
pub mod method;
pub mod quant;
pub mod reduce;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels.
///
/// # Example
/// ```
/// use boundgate::kernels::Kernel;
/// use boundgate::kernels::residual::kernels;
/// let names: Vec<&str> = kernels().iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["residual-gemm"]);
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![&kernel::ResidualGemm]
}

/// The family's experiments.
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Experiment;
/// use boundgate::kernels::residual::experiments;
/// let names: Vec<&str> = experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["residual-accuracy"]);
/// ```
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![&accuracy::ResidualAccuracy]
}
