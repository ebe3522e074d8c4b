//! Mixed-precision FMA units and tensor-core GEMM: Bhola and Duraisamy,
//! "Deterministic and Probabilistic Rounding Error Analysis for
//! Mixed-Precision Arithmetic on Modern Computing Units" (DBEA/VIBEA), and
//! the arithmetic real tensor cores perform.
//!
//! - [`unit`](mod@unit): MAC units (unfused, FMA, MPFMA), parametrised by the formats of
//!   `(u_low, u_high, u~, u_bar, u_FMA)`; kernel `mpfma-mac` ([`mac`]) checks
//!   Lemmas 3.1-3.6 on them.
//! - [`alg1`]: Algorithm 1 as the paper models it (eq. (7)); [`record`]: one
//!   parameter record per architecture and input format (sm80, sm90; fp16,
//!   bf16, tf32, fp8) from the published measurements; [`blockfma`]: the
//!   bit-exact block-FMA model of a record. Kernel `mpfma-gemm` ([`gemm`])
//!   runs either, with Theorems 3.7-3.10 and the rigorous bounds.
//! - Experiments: `mpfma-fig5` ([`fig5`]), `mpfma-fig6` ([`fig6`]),
//!   `mpfma-blockfma-vs-thm37` ([`validity`]), `mpfma-probe` ([`probe`]).
//! - [`probe`]: Fasi et al.-style feature tests and an FPRev-style order test
//!   of a matrix unit, run on the model or on a GPU ([`gpu`]); `boundgate
//!   probe` ([`cli`]).
//!
//! The bounds themselves live in the checker: `boundgate_verify::bounds::tc`.

pub mod alg1;
pub mod blockfma;
pub mod cli;
pub mod common;
pub mod fig5;
pub mod fig6;
pub mod gemm;
pub mod gpu;
pub mod mac;
pub mod probe;
pub mod record;
pub mod unit;
pub mod validity;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels.
///
/// # Example
/// ```
/// use boundgate::kernels::{mpfma, registry};
/// let names: Vec<_> = mpfma::kernels().iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["mpfma-mac", "mpfma-gemm"]);
/// assert!(names.iter().all(|n| registry::find(n).is_ok())); // registered
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![&mac::MpfmaMac, &gemm::MpfmaGemm]
}

/// The family's experiments.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma;
/// let names: Vec<_> = mpfma::experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["mpfma-fig5", "mpfma-fig6", "mpfma-blockfma-vs-thm37", "mpfma-probe"]);
/// ```
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![
        &fig5::Fig5,
        &fig6::Fig6,
        &validity::BlockFmaVsThm37,
        &probe::ProbeExperiment,
    ]
}
