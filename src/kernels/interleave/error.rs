//! Typed errors of the interleave family.
//!
//! Every way a profile, a schedule, a parameter or a run can be wrong has its
//! own variant, so that tests match on it and the CLI prints one line naming
//! the file, line and field. [`InterleaveError`] converts into the crate's
//! [`crate::error::Error`] at the command-line boundary.

use crate::error::Error;
use boundgate_verify::VerifyError;
use std::path::PathBuf;
use thiserror::Error as ThisError;

/// Errors of profiles, schedules, the pipeline and the runs.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{error::InterleaveError, grid::Grid3};
/// assert!(matches!(Grid3::new(0, 4, 2), Err(InterleaveError::EmptyGrid { .. })));
/// ```
#[derive(Debug, Clone, PartialEq, ThisError)]
pub enum InterleaveError {
    /// A grid with a zero dimension (or too many cells to index).
    #[error("grid {nx}x{ny}x{nz}: {reason}")]
    EmptyGrid {
        /// Cells along x.
        nx: usize,
        /// Cells along y.
        ny: usize,
        /// Layers (z).
        nz: usize,
        /// What is wrong.
        reason: String,
    },

    /// An accuracy-loss limit (threshold) that is not a positive finite number.
    #[error("accuracy-loss threshold {value}: must be a positive finite number")]
    InvalidThreshold {
        /// The value given.
        value: f64,
    },

    /// A parameter outside its domain.
    #[error("{name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: String,
        /// Its value, as text.
        value: String,
        /// Why it is refused.
        reason: String,
    },

    /// A malformed or inconsistent file (profile CSV, sections CSV, schedule).
    #[error("{}{}: {field}: {reason}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    File {
        /// The file (or a label such as `<profile>` for text not read from disk).
        path: PathBuf,
        /// 1-based line, when the problem is on one line.
        line: Option<usize>,
        /// The field or part of the file.
        field: String,
        /// What is wrong.
        reason: String,
    },

    /// Converting the state to a narrower format overflowed it (e.g. a
    /// temperature above 65504 converted to fp16).
    #[error(
        "iteration {iteration}: converting cell {index} = {value:e} to {format} overflows it (largest finite {max:e})"
    )]
    ConversionOverflow {
        /// Iterations completed before the conversion.
        iteration: usize,
        /// The cell.
        index: usize,
        /// The value.
        value: f64,
        /// The target format.
        format: String,
        /// Its largest finite value.
        max: f64,
    },

    /// The relative loss `||A^ - A|| / ||A||` is undefined: the reference is
    /// zero and the approximation is not.
    #[error(
        "accuracy loss undefined: the reference state is zero (||A||_F = 0) but the approximate one is not"
    )]
    UndefinedLoss,

    /// A non-finite value where only finite ones are allowed (input data).
    #[error("{what}[{index}] = {value}: only finite values are allowed")]
    NonFinite {
        /// Which input.
        what: String,
        /// The position.
        index: usize,
        /// The value.
        value: f64,
    },

    /// No measurement of a kernel in any subsection: the simulation has no rate to use.
    #[error("no statistics for kernel {kernel} in any subsection (did step 3 measure it?)")]
    NoStatistics {
        /// The kernel name.
        kernel: String,
    },

    /// A step-1 profile that this problem does not reproduce: a fork's shared
    /// prefix (the approximate run up to its fork point) has another loss than
    /// the profile at the same iteration, so the profile was made on another
    /// grid, seed, input files or approximate kernel.
    #[error(
        "the approximate profile does not come from this problem: its loss at iteration {iteration} is {in_profile:e}, this problem's is {on_problem:e} (use the grid, seed or input files and --approx of the run that wrote it)"
    )]
    ProfileMismatch {
        /// The first iteration where they differ.
        iteration: usize,
        /// The profile's loss there.
        in_profile: f64,
        /// The loss this problem's approximate run has there.
        on_problem: f64,
    },

    /// A checker error (format conversion, bound hypothesis).
    #[error(transparent)]
    Verify(#[from] VerifyError),

    /// A file could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error, as text.
        message: String,
    },
}

/// Shorthand for results of this family.
pub type Result<T, E = InterleaveError> = std::result::Result<T, E>;

impl InterleaveError {
    /// A [`InterleaveError::File`] error.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::error::InterleaveError;
    /// let e = InterleaveError::file("a.csv", Some(3), "loss", "not a number");
    /// assert!(matches!(&e, InterleaveError::File { line: Some(3), field, .. } if field == "loss"));
    /// assert_eq!(e.to_string(), "a.csv:3: loss: not a number");
    /// // without a line, no `:line` part
    /// assert_eq!(InterleaveError::file("s.txt", None, "header", "missing").to_string(), "s.txt: header: missing");
    /// ```
    pub fn file(
        path: impl Into<PathBuf>,
        line: Option<usize>,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> InterleaveError {
        InterleaveError::File {
            path: path.into(),
            line,
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A [`InterleaveError::InvalidParameter`] error.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::error::InterleaveError;
    /// let e = InterleaveError::parameter("iterations", 0, "must be at least 1");
    /// assert!(matches!(&e, InterleaveError::InvalidParameter { value, .. } if value == "0"));
    /// assert_eq!(e.to_string(), "iterations = 0: must be at least 1");
    /// ```
    pub fn parameter(
        name: &str,
        value: impl ToString,
        reason: impl Into<String>,
    ) -> InterleaveError {
        InterleaveError::InvalidParameter {
            name: name.to_string(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// An [`InterleaveError::Io`] error for `path`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::error::InterleaveError;
    /// use std::io::{Error, ErrorKind};
    /// let e = InterleaveError::io("/no/such/file", Error::new(ErrorKind::NotFound, "gone"));
    /// assert!(matches!(&e, InterleaveError::Io { message, .. } if message == "gone"));
    /// assert_eq!(e.to_string(), "/no/such/file: gone");
    /// ```
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> InterleaveError {
        InterleaveError::Io {
            path: path.into(),
            message: error.to_string(),
        }
    }
}

/// Checks an accuracy-loss limit: positive and finite.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::error::require_threshold;
/// assert!(require_threshold(0.01).is_ok());
/// assert!(require_threshold(0.0).is_err());
/// assert!(require_threshold(f64::NAN).is_err());
/// ```
pub fn require_threshold(value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(InterleaveError::InvalidThreshold { value })
    }
}

/// Checks that every value of the input `what` is finite: the first NaN or
/// infinity is [`InterleaveError::NonFinite`] with its position.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::error::{InterleaveError, require_finite};
/// assert!(require_finite("temp", &[300.0, 310.0]).is_ok());
/// assert!(matches!(require_finite("temp", &[300.0, f64::NAN]),
///     Err(InterleaveError::NonFinite { index: 1, .. })));
/// ```
pub fn require_finite(what: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(InterleaveError::NonFinite {
            what: what.to_string(),
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

impl From<InterleaveError> for Error {
    fn from(e: InterleaveError) -> Error {
        match e {
            InterleaveError::Verify(v) => Error::Verify(v),
            InterleaveError::File {
                path,
                line,
                field,
                reason,
            } => Error::Plan {
                path,
                line,
                field,
                reason,
            },
            other => Error::Usage(other.to_string()),
        }
    }
}
