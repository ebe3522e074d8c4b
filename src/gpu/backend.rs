//! Choosing where a kernel runs: on the CPU model, on the GPU, or on the GPU
//! when there is one.

use super::{DeviceInfo, DeviceStatus, GpuError, nvrtc, probe};
use std::fmt;
use std::str::FromStr;

/// Where to run.
///
/// # Example
/// ```
/// use boundgate::gpu::Backend;
/// let backend: Backend = "auto".parse().unwrap();
/// assert_eq!(backend, Backend::Auto);
/// assert!("tpu".parse::<Backend>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The CPU model only.
    Cpu,
    /// The GPU; an error when there is none.
    Gpu,
    /// The GPU if one is available, else the CPU model (saying why).
    #[default]
    Auto,
}

/// The outcome of [`Backend::select`].
#[derive(Clone, Debug, PartialEq)]
pub enum Selected {
    /// Run the CPU model; `reason` says why when a GPU was wanted (`auto`).
    Cpu {
        /// E.g. "no CUDA driver (libcuda.so.1 not found): running the CPU model".
        reason: Option<String>,
    },
    /// Run on this device.
    Gpu(DeviceInfo),
}

impl Backend {
    /// The backend's name as the CLI spells it.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::Backend;
    /// assert_eq!(Backend::default().name(), "auto");
    /// for backend in [Backend::Cpu, Backend::Gpu, Backend::Auto] {
    ///     assert_eq!(backend.name().parse::<Backend>().unwrap(), backend);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
            Backend::Auto => "auto",
        }
    }

    /// Decides where to run, probing the GPU unless the CPU was asked for.
    /// Only `gpu` without a usable device is an error; `auto` falls back to the
    /// CPU with one clear line of reason.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{Backend, Selected};
    /// assert_eq!(Backend::Cpu.select().unwrap(), Selected::Cpu { reason: None });
    /// // On a machine without a GPU, auto runs the CPU model and says why.
    /// if let Selected::Cpu { reason: Some(reason) } = Backend::Auto.select().unwrap() {
    ///     assert!(reason.ends_with("running the CPU model"));
    /// }
    /// ```
    pub fn select(self) -> Result<Selected, GpuError> {
        match self {
            Backend::Cpu => Ok(Selected::Cpu { reason: None }),
            Backend::Gpu => usable_device().map(Selected::Gpu),
            Backend::Auto => Ok(match usable_device() {
                Ok(info) => Selected::Gpu(info),
                Err(reason) => Selected::Cpu {
                    reason: Some(format!("{reason}: running the CPU model")),
                },
            }),
        }
    }
}

/// A device, and NVRTC to build its kernels: both are needed to run on a GPU.
fn usable_device() -> Result<DeviceInfo, GpuError> {
    match probe() {
        DeviceStatus::Available(info) => nvrtc::version().map(|_| info),
        DeviceStatus::Unavailable { reason } => Err(reason),
    }
}

impl FromStr for Backend {
    type Err = GpuError;
    fn from_str(name: &str) -> Result<Backend, GpuError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            "auto" => Ok(Backend::Auto),
            _ => Err(GpuError::UnknownBackend(name.to_string())),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for backend in [Backend::Cpu, Backend::Gpu, Backend::Auto] {
            assert_eq!(backend.name().parse::<Backend>().unwrap(), backend);
            assert_eq!(backend.to_string(), backend.name());
        }
        assert_eq!(" GPU ".parse::<Backend>().unwrap(), Backend::Gpu);
        assert_eq!(
            "cuda".parse::<Backend>(),
            Err(GpuError::UnknownBackend("cuda".into()))
        );
    }
}
