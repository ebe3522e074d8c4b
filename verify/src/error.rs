//! Typed errors of the checker.
//!
//! Every way user input can be wrong has its own variant, so that callers (the
//! CLI, a CI test) can report one precise line and never see a panic or a
//! silent NaN.

use thiserror::Error;

/// The errors `boundgate-verify` returns for bad input.
///
/// # Example
/// ```
/// use boundgate_verify::{VerifyError, format::{Format, RoundingMode}};
/// let err = Format::FP16.convert(1.0e6, RoundingMode::NearestEven).unwrap_err();
/// assert!(matches!(err, VerifyError::Overflow { .. }));
/// ```
#[derive(Debug, Error, Clone, PartialEq)]
pub enum VerifyError {
    /// An input that must not be empty is empty.
    #[error("{what} is empty")]
    Empty {
        /// What was empty (e.g. "x").
        what: String,
    },

    /// Two inputs whose lengths (or shapes) must agree do not.
    #[error("length mismatch: {what} ({left} vs {right})")]
    LengthMismatch {
        /// Which pair of inputs.
        what: String,
        /// Length of the first.
        left: usize,
        /// Length of the second.
        right: usize,
    },

    /// A NaN or infinity where only finite values are allowed.
    #[error("{what}[{index}] is {value}, but only finite values are allowed")]
    NonFinite {
        /// Which input.
        what: String,
        /// Position of the offending value.
        index: usize,
        /// The value itself.
        value: f64,
    },

    /// A value overflows the target format.
    #[error("{value:e} overflows {format} (largest finite value {max:e})")]
    Overflow {
        /// The target format's name.
        format: String,
        /// The value that did not fit.
        value: f64,
        /// The largest finite value of the format.
        max: f64,
    },

    /// A relative error was asked for where the exact result is zero.
    #[error("relative error is undefined: the exact result is zero")]
    UndefinedRelativeError,

    /// A bound's hypothesis fails, so the bound has no value on this input
    /// (e.g. gamma_n needs n u < 1).
    #[error("{source_ref}: hypothesis {hypothesis} does not hold ({detail})")]
    HypothesisNotMet {
        /// Paper and result, e.g. "Higham 2002, Lemma 3.1".
        source_ref: String,
        /// The hypothesis as stated, e.g. "n u < 1".
        hypothesis: String,
        /// Why it fails on this input, e.g. "n u = 1.5".
        detail: String,
    },

    /// A format has no bit-level encoding (a custom format that is not IEEE-shaped).
    #[error("format {format} has no bit encoding")]
    NoEncoding {
        /// The format's name.
        format: String,
    },

    /// A value cannot be encoded exactly in a format.
    #[error("{value:e} is not representable in {format}")]
    NotRepresentable {
        /// The format's name.
        format: String,
        /// The value.
        value: f64,
    },

    /// A bit pattern is wider than the format.
    #[error("bit pattern {bits:#x} does not fit the {width}-bit format {format}")]
    InvalidBitPattern {
        /// The format's name.
        format: String,
        /// The pattern.
        bits: u64,
        /// Width of the format in bits.
        width: u32,
    },

    /// A format name is unknown.
    #[error("unknown format `{name}` (known: fp64, fp32, tf32, bf16, fp16, e4m3, e5m2)")]
    UnknownFormat {
        /// The name given.
        name: String,
    },

    /// A rounding-mode name is unknown.
    #[error("unknown rounding mode `{name}` (known: rne, rtz, rup, rdn)")]
    UnknownRoundingMode {
        /// The name given.
        name: String,
    },

    /// A parameter is out of its domain.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: String,
        /// Its value, as text.
        value: String,
        /// Why it is invalid.
        reason: String,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = VerifyError> = std::result::Result<T, E>;

impl VerifyError {
    /// Builds [`VerifyError::InvalidParameter`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// let err = VerifyError::invalid("confidence", 1.5, "must lie in (0, 1)");
    /// assert_eq!(err.to_string(), "invalid parameter confidence = 1.5: must lie in (0, 1)");
    /// assert!(matches!(err, VerifyError::InvalidParameter { ref value, .. } if value == "1.5"));
    /// // A binary64 value far from 1 is written with an exponent, not in the
    /// // hundreds of digits of `f64`'s `Display`; integers stay as they are.
    /// let tiny = VerifyError::invalid("a[0][0]", 5e-324, "not an fp32 value");
    /// assert_eq!(tiny.to_string(), "invalid parameter a[0][0] = 5e-324: not an fp32 value");
    /// let huge = VerifyError::invalid("lambda", 1e300, "too large");
    /// assert_eq!(huge.to_string(), "invalid parameter lambda = 1e300: too large");
    /// let n = VerifyError::invalid("n", u128::MAX, "too many");
    /// assert!(n.to_string().contains("= 340282366920938463463374607431768211455:"));
    /// ```
    pub fn invalid(name: &str, value: impl ToString, reason: impl Into<String>) -> Self {
        VerifyError::InvalidParameter {
            name: name.to_string(),
            value: readable_number(value.to_string()),
            reason: reason.into(),
        }
    }
}

/// `x` for people, exactly: `f64`'s `Display` (the shortest decimal that
/// reads back as `x`), unless that is long, as it is far from 1, then the
/// same shortest digits with an exponent. The rule of
/// [`VerifyError::invalid`]'s values, for anything else that prints a
/// number in one line (the CLI's headers).
///
/// # Example
/// ```
/// use boundgate_verify::error::readable_f64;
/// assert_eq!(readable_f64(0.1), "0.1");
/// assert_eq!(readable_f64(1e300), "1e300"); // not 301 digits
/// assert_eq!(readable_f64(5e-324).parse::<f64>().unwrap(), 5e-324);
/// ```
pub fn readable_f64(x: f64) -> String {
    readable_number(x.to_string())
}

/// `f64`'s `Display` writes every digit: `5e-324` as 327 characters and
/// `1e300` as 301, which made a one-line error unreadable (`run
/// accessor-trsv` with a subnormal diagonal; review, 2026-11-29). A value
/// written that way (a long decimal that no integer type holds) is written
/// again with an exponent, the shortest form that reads back as the same
/// `f64`; anything else is kept as it is.
fn readable_number(text: String) -> String {
    const LONG: usize = 24;
    let decimal = |t: &str| {
        let digits = t.strip_prefix('-').unwrap_or(t);
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
            && digits.chars().filter(|&c| c == '.').count() <= 1
    };
    if text.len() <= LONG
        || !decimal(&text)
        || text.parse::<i128>().is_ok()
        || text.parse::<u128>().is_ok()
    {
        return text;
    }
    match text.parse::<f64>() {
        // Display's digits are exact for the value, so this reads back the
        // same f64, and `{:e}` is its shortest round-trip form.
        Ok(x) if x.is_finite() && x.to_string() == text => format!("{x:e}"),
        _ => text,
    }
}

/// Checks that a slice is non-empty.
///
/// # Example
/// ```
/// use boundgate_verify::error::require_nonempty;
/// assert!(require_nonempty("x", &[1.0]).is_ok());
/// assert!(require_nonempty::<f64>("x", &[]).is_err());
/// ```
pub fn require_nonempty<T>(what: &str, values: &[T]) -> Result<()> {
    if values.is_empty() {
        Err(VerifyError::Empty {
            what: what.to_string(),
        })
    } else {
        Ok(())
    }
}

/// Checks that two lengths agree.
///
/// # Example
/// ```
/// use boundgate_verify::error::require_same_len;
/// assert!(require_same_len("x and y", 3, 3).is_ok());
/// assert!(require_same_len("x and y", 3, 4).is_err());
/// ```
pub fn require_same_len(what: &str, left: usize, right: usize) -> Result<()> {
    if left == right {
        Ok(())
    } else {
        Err(VerifyError::LengthMismatch {
            what: what.to_string(),
            left,
            right,
        })
    }
}

/// Checks that every value is finite, naming the first that is not.
///
/// # Example
/// ```
/// use boundgate_verify::error::require_finite;
/// assert!(require_finite("x", &[1.0, 2.0]).is_ok());
/// assert!(require_finite("x", &[1.0, f64::NAN]).is_err());
/// ```
pub fn require_finite(what: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(VerifyError::NonFinite {
            what: what.to_string(),
            index,
            value: values[index],
        }),
    }
}
