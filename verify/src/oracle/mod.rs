//! Exact oracles: the ground truth every kernel is compared with.
//!
//! A sum of products of binary floating-point numbers is a dyadic rational,
//! so it can be computed without any error and rounded once. Two independent
//! implementations do that here:
//!
//! - [`mpfr`]: MPFR (through `rug`) at a precision derived from the inputs'
//!   exponent range, so that no partial sum is rounded; MPFR performs the final
//!   rounding. Slow (tens of ns per term), simple, trusted.
//! - [`ExactSum`], [`dot`], [`sum`]: a fast superaccumulator after Neal
//!   (arXiv:1505.05571) extended to the exponent range of exact products,
//!   within a small factor of a naive `f64` dot product (docs/perf.md). It is
//!   tested bit for bit against [`mpfr`] (`tests/oracle_vs_mpfr.rs`).
//!
//! On top of the fast one: [`gemv`], [`gemm`] and sparse matrix-vector
//! products ([`spmv_csr`], [`spmv_ell`]), in the BLAS form
//! `alpha op(A) x + beta y0` through [`Gemv`], [`Gemm`] and [`Spmv`], with
//! the errors of a computed output ([`ExactOp::errors`]) as rigorous upper
//! bounds ([`ErrorMeasure`]).
//!
//! Special values follow IEEE 754-2019 (§6, §7.2): NaN in gives NaN,
//! `0 * inf` and `inf - inf` give NaN, an infinity otherwise dominates; they
//! are reported as non-finite, never as a finite value or an error of 0.
//! A finite exact result whose rounding overflows is finite in [`ExactSum`]
//! and infinite only once rounded.
//!
//! # Example
//! ```
//! use boundgate_verify::format::RoundingMode;
//! use boundgate_verify::oracle::{dot, mpfr};
//! let x = [1e16, 1.0, -1e16];
//! let y = [1.0, 1.0, 1.0];
//! let naive: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
//! let exact = dot(&x, &y).unwrap();
//! assert_eq!(naive, 0.0);
//! assert_eq!(exact.to_f64(), 1.0);
//! assert_eq!(exact.to_float().as_ref(), mpfr::dot(&x, &y).unwrap().exact());
//! for mode in RoundingMode::ALL {
//!     assert_eq!(exact.round(boundgate_verify::format::Format::FP64, mode),
//!                mpfr::dot(&x, &y).unwrap().round_f64(mode));
//! }
//! ```

mod accumulator;
pub mod blas;
mod ieee;
mod large;
mod matrix;
mod measure;
pub mod mpfr;
pub mod trsv;

pub use accumulator::ExactSum;
pub use blas::{
    ExactOp, Gemm, Gemv, Sparse, Spmv, Transpose, gemm, gemm_errors, gemv, gemv_errors, gemv_t,
    spmv_csr, spmv_ell,
};
pub use large::{abs_dot_up, dot, sum};
pub use matrix::{Csr, ELL_PADDING, Ell, EllLayout, Matrix};
pub use measure::{ErrorMeasure, nearest_f64};
