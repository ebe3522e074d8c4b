//! The process-wide CUDA state: device 0's primary context, what it is, and the
//! kernel modules built for it so far (each `kernels/*.cu` is compiled by NVRTC
//! once per process, for the device's own architecture).

use super::nvrtc::{BuildOptions, compile};
use super::sources::KernelSource;
use super::{DeviceInfo, GpuError, guard, loader};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, DriverError, sys};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) struct Session {
    pub(crate) context: Arc<CudaContext>,
    pub(crate) info: DeviceInfo,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

/// The session, opened on first use. The driver library is checked first, so
/// a machine without one gets [`GpuError::NoDriver`], never a cudarc panic.
pub(crate) fn session() -> Result<&'static Session, GpuError> {
    static SESSION: OnceLock<Result<Session, GpuError>> = OnceLock::new();
    loader::require_driver()?;
    SESSION
        .get_or_init(|| guard::catch(open))
        .as_ref()
        .map_err(Clone::clone)
}

fn open() -> Result<Session, GpuError> {
    let context =
        CudaContext::new(0).map_err(driver("open device 0 (cuInit, cuDevicePrimaryCtxRetain)"))?;
    let name = context.name().map_err(driver("cuDeviceGetName"))?;
    let (major, minor) = context
        .compute_capability()
        .map_err(driver("cuDeviceGetAttribute"))?;
    let mut version: std::ffi::c_int = 0;
    // SAFETY: a valid out-pointer; the driver library was checked to have it.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(driver("cuDriverGetVersion"))?;
    // The driver encodes CUDA 13.0 as 13000.
    let version = version.max(0) as u32;
    Ok(Session {
        context,
        info: DeviceInfo {
            name,
            compute_capability: (major.max(0) as u32, minor.max(0) as u32),
            driver_version: (version / 1000, version % 1000 / 10),
        },
        modules: Mutex::new(HashMap::new()),
    })
}

impl Session {
    /// Function `name` of `kernel`, building and loading the kernel's module
    /// (CUBIN for the device's `sm_XY`) on first use.
    pub(crate) fn function(
        &self,
        kernel: &KernelSource,
        name: &str,
    ) -> Result<CudaFunction, GpuError> {
        let module = self.module(kernel)?;
        module
            .load_function(name)
            .map_err(driver(&format!("cuModuleGetFunction {name}")))
    }

    fn module(&self, kernel: &KernelSource) -> Result<Arc<CudaModule>, GpuError> {
        // A panic while this lock was held left the map itself consistent.
        let mut modules = self
            .modules
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(module) = modules.get(kernel.path) {
            return Ok(module.clone());
        }
        let target = kernel.cubin_for(self.info.compute_capability)?;
        let built = compile(kernel.path, kernel.source, &BuildOptions::new(target))?;
        let module = self
            .context
            .load_module(built.to_module_image())
            .map_err(driver(&format!("cuModuleLoadData {}", kernel.path)))?;
        modules.insert(kernel.path, module.clone());
        Ok(module)
    }
}

/// Maps a driver error to [`GpuError::Driver`] naming the failed operation.
pub(crate) fn driver(call: &str) -> impl Fn(DriverError) -> GpuError + '_ {
    move |error| {
        let name = error.error_name().map(|s| s.to_string_lossy().into_owned());
        let text = error
            .error_string()
            .map(|s| s.to_string_lossy().into_owned());
        let message = match (name, text) {
            (Ok(name), Ok(text)) => format!("{name}: {text}"),
            (Ok(name), Err(_)) => name,
            _ => format!("{:?}", error.0),
        };
        GpuError::Driver {
            call: call.to_string(),
            message,
        }
    }
}
