//! Typed errors of the GPU path. Each says in one line what is missing and what
//! to do; none of them is ever a panic.

use boundgate_verify::VerifyError;
use thiserror::Error;

/// Why the GPU path cannot run, or what went wrong on it.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// let err = GpuError::NoDriver { library: "libcuda.so.1".into() };
/// assert_eq!(err.to_string(), "no CUDA driver (libcuda.so.1 not found)");
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
pub enum GpuError {
    /// The crate was compiled without the `cuda` feature.
    #[error("built without the `cuda` feature")]
    NotBuilt,

    /// No CUDA driver library could be opened (no NVIDIA driver on this machine).
    #[error("no CUDA driver ({library} not found)")]
    NoDriver {
        /// The library looked for, e.g. `libcuda.so.1`.
        library: String,
    },

    /// The CUDA driver library lacks a function the bindings need.
    #[error(
        "the CUDA driver {library} lacks {symbol}: it is older than CUDA 13 (driver 580) requires"
    )]
    DriverTooOld {
        /// The library that was opened.
        library: String,
        /// The missing function.
        symbol: String,
    },

    /// NVRTC could not be opened.
    #[error(
        "NVRTC not found ({library}; also looked in {searched}): run \
         scripts/install-cuda-nvrtc.sh, then `eval \"$(scripts/install-cuda-nvrtc.sh --print-env)\"`"
    )]
    NoNvrtc {
        /// The library looked for, e.g. `libnvrtc.so.13`.
        library: String,
        /// The folders tried by absolute path (the install script's cache first).
        searched: String,
    },

    /// The NVRTC library lacks a function the bindings need.
    #[error("NVRTC {library} lacks {symbol}")]
    NvrtcTooOld {
        /// The library that was opened.
        library: String,
        /// The missing function.
        symbol: String,
    },

    /// A CUDA driver call failed (no device, out of memory, launch failure, ...).
    #[error("CUDA driver call {call} failed: {message}")]
    Driver {
        /// The operation, e.g. `cuInit` or `launch dot_f32_blocks`.
        call: String,
        /// The driver's error name and description.
        message: String,
    },

    /// An NVRTC call other than the compile itself failed.
    #[error("NVRTC call {call} failed: {message}")]
    Nvrtc {
        /// The function, e.g. `nvrtcVersion`.
        call: String,
        /// NVRTC's description of the result code.
        message: String,
    },

    /// NVRTC rejected a kernel (or a build option).
    #[error(
        "NVRTC could not compile {kernel} for {target}: {message}{}",
        log_suffix(log)
    )]
    Compile {
        /// The kernel file, e.g. `kernels/dot.cu`.
        kernel: String,
        /// The target, e.g. `sm_90 (CUBIN)`.
        target: String,
        /// NVRTC's result code.
        message: String,
        /// NVRTC's program log (the compiler's messages).
        log: String,
    },

    /// A backend name other than `cpu`, `gpu` or `auto`.
    #[error("unknown backend `{0}` (known: cpu, gpu, auto)")]
    UnknownBackend(String),

    /// A precision name the GPU dot does not know.
    #[error("unknown dot precision `{0}` (known: fp64, fp32, fp16-fp32)")]
    UnknownPrecision(String),

    /// A configuration the GPU path does not cover: a format without a
    /// kernel, a record for another architecture than the device's, a model
    /// that exists only on the CPU. The text says which.
    #[error("{0}")]
    Unsupported(String),

    /// Bad input (empty, mismatched, NaN, not a value of the storage format, ...).
    #[error(transparent)]
    Input(#[from] VerifyError),

    /// A CUDA tool run outside the driver (cuobjdump) is missing or failed.
    /// The text says which and how.
    #[error("{0}")]
    Tool(String),

    /// The CUDA bindings panicked; caught so that callers see an error instead.
    #[error("internal error in the CUDA bindings: {0}")]
    Internal(String),

    /// A kernel whose order is fixed computed something its CPU model did not:
    /// a bug in the kernel or in the model, and no bound derived for that
    /// order may be claimed for the result. The text names the value.
    #[error("{0}")]
    ModelMismatch(String),
}

fn log_suffix(log: &str) -> String {
    if log.is_empty() {
        String::new()
    } else {
        format!("\n{log}")
    }
}
