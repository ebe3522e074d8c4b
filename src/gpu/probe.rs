//! Is there a usable GPU? Answered without ever panicking, in both build
//! configurations.

use super::GpuError;
use serde::Serialize;
use std::fmt;

/// The device the GPU path runs on (device 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`; kernels are built for `sm_<major><minor>`.
    pub compute_capability: (u32, u32),
    /// The CUDA version the driver supports `(major, minor)`, e.g. `(13, 0)` for driver 580.
    pub driver_version: (u32, u32),
}

/// The answer of [`probe`].
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceStatus {
    /// A device was opened.
    Available(DeviceInfo),
    /// No device can be used, and why (one line).
    Unavailable {
        /// E.g. [`GpuError::NoDriver`] or [`GpuError::NotBuilt`].
        reason: GpuError,
    },
}

impl DeviceStatus {
    /// Whether a device was opened.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{probe, DeviceInfo, DeviceStatus, GpuError};
    /// let info = DeviceInfo { name: "NVIDIA H100 80GB HBM3".into(), compute_capability: (9, 0), driver_version: (13, 0) };
    /// assert!(DeviceStatus::Available(info).is_available());
    /// assert!(!DeviceStatus::Unavailable { reason: GpuError::NotBuilt }.is_available());
    /// // Without the `cuda` feature there is never a device.
    /// if !cfg!(feature = "cuda") {
    ///     assert!(!probe().is_available());
    /// }
    /// ```
    pub fn is_available(&self) -> bool {
        matches!(self, DeviceStatus::Available(_))
    }
}

impl fmt::Display for DeviceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceStatus::Available(info) => write!(
                f,
                "{} (compute capability {}.{}, driver CUDA {}.{})",
                info.name,
                info.compute_capability.0,
                info.compute_capability.1,
                info.driver_version.0,
                info.driver_version.1
            ),
            DeviceStatus::Unavailable { reason } => write!(f, "no GPU: {reason}"),
        }
    }
}

/// Looks for a CUDA device: opens the driver library (checked with libloading
/// before cudarc touches it), initialises CUDA and reads device 0. The result
/// is computed once per process.
///
/// Without the `cuda` feature it is `Unavailable` with
/// [`GpuError::NotBuilt`] ("built without the `cuda` feature").
///
/// # Example
/// ```
/// use boundgate::gpu::{probe, DeviceStatus};
/// match probe() {
///     DeviceStatus::Available(info) => println!("GPU: {}", info.name),
///     DeviceStatus::Unavailable { reason } => println!("no GPU: {reason}"),
/// }
/// ```
pub fn probe() -> DeviceStatus {
    match device() {
        Ok(info) => DeviceStatus::Available(info),
        Err(reason) => DeviceStatus::Unavailable { reason },
    }
}

#[cfg(feature = "cuda")]
fn device() -> Result<DeviceInfo, GpuError> {
    super::session::session().map(|session| session.info.clone())
}

#[cfg(not(feature = "cuda"))]
fn device() -> Result<DeviceInfo, GpuError> {
    Err(GpuError::NotBuilt)
}
