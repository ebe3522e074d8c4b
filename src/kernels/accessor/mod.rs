//! Memory-accessor BLAS: low-precision storage, high-precision arithmetic
//! (Grützmacher, Anzt and Quintana-Ortí, *Using Ginkgo's memory accessor for
//! improving the accuracy of memory-bound low precision BLAS*, Softw. Pract.
//! Exper. 2021).
//!
//! - [`storage`]: the accessor (`Accessor<Storage, Arith>` at run time):
//!   storage fp64/fp32/fp16/bf16 or scaled int8/int16/int32, arithmetic fp64 or
//!   fp32, reads that widen exactly, writes that round (or truncate) as stated.
//! - [`native`]: the same accessor at compile time over Rust's native types,
//!   for the roofline benchmark.
//! - [`order`]: the summation orders of the GPU kernels (`kernels/accessor_blas.cu`)
//!   and their depths.
//! - Kernels, each a CPU model in the GPU's order with per-element rigorous
//!   bounds: [`dot`] (`accessor-dot`), [`axpy`] (`accessor-axpy`), [`gemv`]
//!   (`accessor-gemv`), [`spmv`] (`accessor-spmv`, CSR and ELL, with
//!   [`sparse`] and the Matrix Market reader [`mtx`]), [`trsv`]
//!   (`accessor-trsv`, blocked with inverted diagonal blocks).
//! - Experiments: [`accuracy`] (`accessor-accuracy`, the paper's accuracy
//!   figures against the exact oracle) and [`roofline`] (`accessor-roofline`,
//!   the paper's experimental roofline, on the CPU).

pub mod accuracy;
pub mod arith;
pub mod axpy;
pub mod common;
#[cfg(feature = "cuda")]
pub mod cublas;
pub mod device;
pub mod dot;
pub mod gemv;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod mtx;
pub mod native;
pub mod order;
pub mod roofline;
pub mod sparse;
pub mod spmv;
pub mod storage;
pub mod trsv;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels.
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::accessor::kernels().iter().map(|k| k.info().name).collect();
/// assert_eq!(names, ["accessor-dot", "accessor-axpy", "accessor-gemv", "accessor-trsv", "accessor-spmv"]);
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![
        &dot::AccessorDot,
        &axpy::AccessorAxpy,
        &gemv::AccessorGemv,
        &trsv::AccessorTrsv,
        &spmv::AccessorSpmv,
    ]
}

/// The family's experiments.
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::accessor::experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["accessor-accuracy", "accessor-roofline"]);
/// ```
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![&accuracy::AccessorAccuracy, &roofline::AccessorRoofline]
}
