//! The kernel versions of an iterative application (thesis: "kernel
//! versions"): the exact `float` kernel, the approximate `half` and `looperf`
//! kernels, and the `double` ground truth this crate adds.

use super::error::{InterleaveError, Result};
use boundgate_verify::format::Format;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A kernel version, named as in the thesis's profile and schedule files
/// (Freytag 2023, Fig. 4.4 `half`, Fig. 5.2 `looperf`, Fig. 5.3 `float`).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::version::Version;
/// let v: Version = "half".parse().unwrap();
/// assert_eq!(v.storage(), boundgate_verify::format::Format::FP16);
/// assert!(!v.is_exact() && Version::Float.is_exact());
/// assert!("quarter".parse::<Version>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Version {
    /// binary64 arithmetic and storage: the ground truth (not schedulable).
    Double,
    /// binary32 arithmetic and storage: the thesis's "exact" kernel.
    Float,
    /// binary16 arithmetic and storage (`__hfma2` per lane).
    Half,
    /// binary32, loop perforation: of every 6 calls the 6th is skipped
    /// (Freytag 2023, Fig. 5.2: `if (5 == count) count = 0 else { compute; count++ }`).
    Looperf,
}

impl Version {
    /// The versions a schedule may name.
    pub const SCHEDULABLE: [Version; 3] = [Version::Float, Version::Half, Version::Looperf];
    /// The approximate versions.
    pub const APPROXIMATE: [Version; 2] = [Version::Half, Version::Looperf];

    /// The name in files and on the command line.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::version::Version;
    /// assert_eq!(Version::Looperf.name(), "looperf");
    /// assert_eq!(Version::Double.to_string(), "double"); // Display prints the name
    /// // every name parses back to its version
    /// for v in [Version::Double, Version::Float, Version::Half, Version::Looperf] {
    ///     assert_eq!(v.name().parse::<Version>().unwrap(), v);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Version::Double => "double",
            Version::Float => "float",
            Version::Half => "half",
            Version::Looperf => "looperf",
        }
    }

    /// The format of the state (and of the arithmetic).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::version::Version;
    /// use boundgate_verify::format::Format;
    /// assert_eq!(Version::Double.storage(), Format::FP64);
    /// assert_eq!(Version::Float.storage(), Format::FP32);
    /// assert_eq!(Version::Looperf.storage(), Format::FP32); // perforation keeps binary32
    /// assert_eq!(Version::Half.storage(), Format::FP16);
    /// ```
    pub fn storage(self) -> Format {
        match self {
            Version::Double => Format::FP64,
            Version::Float | Version::Looperf => Format::FP32,
            Version::Half => Format::FP16,
        }
    }

    /// Whether this is the thesis's exact kernel (`float`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::version::Version;
    /// assert!(Version::Float.is_exact());
    /// // the ground truth is more accurate, but it is not the thesis's exact kernel
    /// assert!(!Version::Double.is_exact());
    /// assert!(Version::APPROXIMATE.iter().all(|v| !v.is_exact()));
    /// ```
    pub fn is_exact(self) -> bool {
        self == Version::Float
    }

    /// Parses a schedulable version (`float`, `half`, `looperf`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, version::Version};
    /// assert_eq!(Version::schedulable("looperf").unwrap(), Version::Looperf);
    /// // `double` parses as a version but is refused here; unknown names are refused too
    /// assert!("double".parse::<Version>().is_ok());
    /// assert!(matches!(Version::schedulable("double"),
    ///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "kernel"));
    /// assert!(matches!(Version::schedulable("quarter"), Err(InterleaveError::InvalidParameter { .. })));
    /// ```
    pub fn schedulable(name: &str) -> Result<Version> {
        let v: Version = name.parse()?;
        if v == Version::Double {
            return Err(InterleaveError::parameter(
                "kernel",
                name,
                "`double` is the ground truth, not a schedulable kernel version",
            ));
        }
        Ok(v)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Version {
    type Err = InterleaveError;
    fn from_str(name: &str) -> Result<Version> {
        [
            Version::Double,
            Version::Float,
            Version::Half,
            Version::Looperf,
        ]
        .into_iter()
        .find(|v| v.name() == name)
        .ok_or_else(|| {
            InterleaveError::parameter(
                "kernel",
                name,
                "unknown kernel version (known: float, half, looperf, double)",
            )
        })
    }
}
