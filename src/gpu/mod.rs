//! The GPU path: device detection, NVRTC builds of `kernels/*.cu`, launchers,
//! and the CPU models that reproduce the kernels bit for bit.
//!
//! Built on cudarc with dynamic loading (feature `cuda`): nothing CUDA is
//! needed to build, and at run time a missing driver or NVRTC is a typed
//! [`GpuError`] with one clear line, never a panic. cudarc itself panics when a
//! library cannot be opened, so checks with libloading (same candidate names)
//! run before any cudarc call, and `catch_unwind` wraps the calls as a last
//! resort. Without the `cuda` feature the module still compiles and
//! answers: [`probe`] says `Unavailable` ("built without the `cuda` feature"),
//! the GPU entry points return [`GpuError::NotBuilt`], and the CPU models run.
//!
//! ```
//! use boundgate::gpu::{run_dot, Backend, DotPrecision};
//! // Runs on the GPU when there is one, else on the CPU model (same bits).
//! let run = run_dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], DotPrecision::Fp32, Backend::Auto).unwrap();
//! assert_eq!(run.value, 32.0);
//! if let Some(note) = run.note {
//!     eprintln!("{note}"); // e.g. "no CUDA driver (libcuda.so.1 not found): running the CPU model"
//! }
//! ```

mod backend;
mod dot;
mod error;
mod paths;
mod probe;

pub mod grid;
pub mod machine_code;
pub mod nvrtc;
pub mod sources;

#[cfg(feature = "cuda")]
pub(crate) mod guard;
#[cfg(feature = "cuda")]
mod launch;
#[cfg(feature = "cuda")]
mod loader;
#[cfg(feature = "cuda")]
pub mod module;
#[cfg(feature = "cuda")]
mod session;
#[cfg(feature = "cuda")]
pub(crate) mod timing;

/// The CPU model of `kernels/dot.cu` (it lives with the baseline kernels).
pub use crate::kernels::baseline::tree_dot;

pub use backend::{Backend, Selected};
pub use dot::{DotPrecision, DotRun, RanOn, dot, dot_model, dot_with_config, run_dot};
pub use error::GpuError;
#[cfg(feature = "cuda")]
pub use module::KernelModule;
pub use paths::{HOME_ENV, INCLUDE_ENV, cache_lib_dir, cuda_binary, cuda_home, include_dirs};
pub use probe::{DeviceInfo, DeviceStatus, probe};
