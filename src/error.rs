//! Errors of the `boundgate` crate and the CLI's exit codes.
//!
//! Every error is one line naming the problem (and the file or field where
//! there is one); the CLI prints it and exits with [`ExitCode::BadInput`].

use boundgate_verify::VerifyError;
use std::path::PathBuf;
use thiserror::Error;

/// Exit codes of the `boundgate` command (documented in the README and `--help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything ran and every rigorous bound held.
    Ok = 0,
    /// A rigorous bound was violated (a bug in a kernel or in a bound).
    Violation = 1,
    /// Bad usage or bad input (unreadable file, wrong dtype, malformed plan ...).
    BadInput = 2,
    /// Only with `--strict`: no rigorous bound was violated, but some rigorous
    /// verdict is not a pass: a hypothesis of the bound failed (its value is
    /// `+inf`, e.g. a possible overflow), the exact result is not finite
    /// (NaN or infinite inputs), so the output was not judged, or the verdict
    /// is undecided (an enclosure oracle's interval straddles the bound).
    Unjudged = 3,
}

/// Errors of the kernels, the I/O and the tool.
#[derive(Debug, Error)]
pub enum Error {
    /// A checker error (bad numbers, failed hypothesis, ...).
    #[error(transparent)]
    Verify(#[from] VerifyError),

    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },

    /// A .npy file is malformed or has an unsupported dtype or layout.
    #[error("{}: {reason}", path.display())]
    Npy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// A plan (TOML) is malformed.
    #[error("{}{}: {field}: {reason}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Plan {
        /// The plan file.
        path: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// The offending field (dotted path), or "plan" for the whole file.
        field: String,
        /// What is wrong.
        reason: String,
    },

    /// A JSON report (e.g. a shard's, for `boundgate merge`) is malformed.
    #[error("{}: {reason}", path.display())]
    Report {
        /// The report file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// Bad command-line usage (unknown kernel, missing input, bad parameter).
    #[error("{0}")]
    Usage(String),

    /// The GPU path failed or cannot run (no driver, no NVRTC, a
    /// configuration without a kernel, a driver call that failed).
    #[error("GPU: {0}")]
    Gpu(#[source] crate::gpu::GpuError),
}

/// A GPU path's bad-input error is the input's fault, not the GPU's: it is
/// reported as [`Error::Verify`] (no "GPU:" prefix, which would mislead when
/// the CPU model ran).
impl From<crate::gpu::GpuError> for Error {
    fn from(err: crate::gpu::GpuError) -> Error {
        match err {
            crate::gpu::GpuError::Input(input) => Error::Verify(input),
            other => Error::Gpu(other),
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds [`Error::Usage`].
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// let e = Error::usage(format!("unknown kernel `{}`", "gemm3"));
    /// assert!(matches!(&e, Error::Usage(m) if m == "unknown kernel `gemm3`"));
    /// // printed as given: no prefix, no file
    /// assert_eq!(e.to_string(), "unknown kernel `gemm3`");
    /// ```
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }
}
