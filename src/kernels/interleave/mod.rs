//! Interleaved execution of approximate kernels driven by accuracy-loss
//! profiles (G. Freytag, *Interleaved execution of approximated CUDA kernels
//! in iterative applications*, PhD thesis, UFRGS 2023, chapters 3 to 5), with
//! an exact ground truth.
//!
//! An iterative application has an exact kernel (`float`) and approximate
//! ones (`half`: binary16 arithmetic; `looperf`: loop perforation). The
//! thesis runs the approximate one until the accumulated accuracy loss
//! `||A^ - A||_F / ||A||_F` reaches a limit, then the exact one (which often
//! makes the loss retract), and back, following a schedule computed offline
//! from sampled profiles. The pipeline (§4.2) is here as pure, tested
//! functions, one module per step:
//!
//! 1. [`profile`], [`runner`]: accuracy-loss profiles from a lockstep run
//!    against a `float` reference, CSV as in the thesis (Fig. 4.4), plus the
//!    error of every run against a binary64 ground truth whose own distance
//!    to exact arithmetic is bounded rigorously ([`bound`]);
//! 2. [`sections`]: the subsection grid;
//! 3. [`phases`]: the three forking phases;
//! 4. and 5. [`stats`]: per-cell rates and runtimes, the four runtime targets;
//! 6. [`simulate`], [`schedule`]: the simulation and the schedule file.
//!
//! Beyond the thesis: [`execute`] runs a schedule and checks the *executed*
//! trajectory against the limit after every iteration, exactly ([`loss`]);
//! [`pipeline`] runs everything end to end; [`experiment`] reports it
//! (`plans/interleave.toml`); [`ceiling`] bounds what any schedule can gain
//! at a limit (the longest approximate stretch within it, executed). The application is HotSpot3D ([`hotspot`],
//! [`stencil`], CUDA in `kernels/hotspot3d.cu`), available as the kernel
//! `hotspot3d` ([`kernel`]) of `boundgate run`; the command is
//! `boundgate interleave` ([`cli`]). Runtimes come from a documented cost
//! model or the CPU's clock ([`clock`]). Method and results: docs/interleave.md.

pub mod bound;
pub mod ceiling;
pub mod cli;
pub mod clock;
pub mod error;
pub mod execute;
pub mod experiment;
pub mod fp16;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod grid;
pub mod hotspot;
pub mod kernel;
pub mod loss;
pub mod phases;
pub mod pipeline;
pub mod profile;
pub mod refine;
pub mod runner;
pub mod schedule;
pub mod sections;
pub mod simulate;
pub mod stats;
pub mod stencil;
pub mod version;

use crate::audit::experiment::Experiment;
use crate::kernels::Kernel;

/// The family's kernels: `hotspot3d`.
///
/// # Example
/// ```
/// use boundgate::kernels::{interleave::kernels, Kernel};
/// let names: Vec<&str> = kernels().iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["hotspot3d"]);
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![&kernel::HotSpot3DKernel]
}

/// The family's experiments: `interleave-hotspot3d`.
///
/// # Example
/// ```
/// use boundgate::{audit::experiment::Experiment, kernels::interleave::experiments};
/// let names: Vec<&str> = experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["interleave-hotspot3d"]);
/// ```
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![&experiment::InterleaveHotSpot3D]
}
