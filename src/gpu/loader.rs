//! Opening the CUDA libraries BEFORE cudarc does.
//!
//! cudarc 0.19 with `dynamic-loading` opens libcuda/libnvrtc lazily on the
//! first call and PANICS when the library (or one of its functions) is missing
//! (`panic_no_lib_found`, and `load()` in each `sys` module). So every GPU entry
//! point first calls [`require_driver`] / [`require_nvrtc`], which try the same
//! candidate names (`cudarc::get_lib_name_candidates`) with libloading and check
//! the functions we use, returning a typed error instead.
//!
//! The library that was found is kept open for the life of the process. For
//! NVRTC there are more candidates: the install script's cache and a CUDA
//! toolkit's lib64, opened by absolute path. Once one is open, cudarc's own
//! `dlopen("libnvrtc.so.13")` resolves to it by its SONAME (glibc matches
//! already-loaded objects by soname), so running the script is enough even
//! without `LD_LIBRARY_PATH`.

use super::{GpuError, paths};
use libloading::Library;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The driver functions cudarc calls on our paths (probe, module load, launch,
/// copies, events). A driver that lacks one would make cudarc panic.
const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemsetD8Async",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventDestroy_v2",
    "cuGetErrorName",
    "cuGetErrorString",
    // Also called on our paths, and missing from this list until this review
    // (a driver without them got cudarc's panic, caught as an internal error,
    // instead of `DriverTooOld`): the memory-pool setting of
    // `KernelModule::open` (CUDA 11.2), the opt-in to more than 48 KiB of
    // dynamic shared memory, occupancy queries, event waits. All are in every
    // driver that runs CUDA 12. (`cuEventElapsedTime_v2`, which the timings
    // call, is not required here: drivers before 12.8 lack it and still run
    // everything else.)
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolSetAttribute",
    "cuFuncSetAttribute",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuEventSynchronize",
];

/// The NVRTC functions of [`super::nvrtc`].
const NVRTC_SYMBOLS: &[&str] = &[
    "nvrtcVersion",
    "nvrtcGetNumSupportedArchs",
    "nvrtcGetSupportedArchs",
    "nvrtcCreateProgram",
    "nvrtcCompileProgram",
    "nvrtcDestroyProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetPTXSize",
    "nvrtcGetPTX",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
    "nvrtcGetErrorString",
];

/// The file name cudarc ends up opening on Linux for CUDA 13 (for messages).
const DRIVER_NAME: &str = "libcuda.so.1";
const NVRTC_NAME: &str = "libnvrtc.so.13";

/// Succeeds when the CUDA driver library opens and has every function we use.
/// Checked once per process.
pub(crate) fn require_driver() -> Result<(), GpuError> {
    static DRIVER: OnceLock<Result<Library, GpuError>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let candidates = candidates(&["cuda", "nvcuda"]);
            let (library, name) = open_first(&candidates).ok_or_else(|| GpuError::NoDriver {
                library: DRIVER_NAME.to_string(),
            })?;
            match first_missing(&library, DRIVER_SYMBOLS) {
                None => Ok(library),
                Some(symbol) => Err(GpuError::DriverTooOld {
                    library: name,
                    symbol: symbol.to_string(),
                }),
            }
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// Succeeds when NVRTC opens and has every function we use. Looked for by the
/// loader's search path first (`LD_LIBRARY_PATH`, ldconfig), then by absolute
/// path in the install script's cache and in a CUDA toolkit (`$CUDA_HOME`,
/// `$CUDA_PATH`, `/usr/local/cuda`). Checked once per process.
pub(crate) fn require_nvrtc() -> Result<(), GpuError> {
    static NVRTC: OnceLock<Result<Library, GpuError>> = OnceLock::new();
    NVRTC
        .get_or_init(|| {
            let folders = nvrtc_folders();
            let mut candidates = candidates(&["nvrtc"]);
            candidates.extend(
                folders
                    .iter()
                    .map(|dir| dir.join(NVRTC_NAME).to_string_lossy().into_owned()),
            );
            let (library, name) = open_first(&candidates).ok_or_else(|| GpuError::NoNvrtc {
                library: NVRTC_NAME.to_string(),
                searched: folders
                    .iter()
                    .map(|dir| dir.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            match first_missing(&library, NVRTC_SYMBOLS) {
                None => Ok(library),
                Some(symbol) => Err(GpuError::NvrtcTooOld {
                    library: name,
                    symbol: symbol.to_string(),
                }),
            }
        })
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

/// Folders that hold `libnvrtc.so.13` without being on the loader's path.
fn nvrtc_folders() -> Vec<PathBuf> {
    let toolkits = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|var| std::env::var_os(var).filter(|v| !v.is_empty()))
        .map(|root| PathBuf::from(root).join("lib64"))
        .chain(std::iter::once(PathBuf::from("/usr/local/cuda/lib64")));
    paths::cache_lib_dir().into_iter().chain(toolkits).collect()
}

fn candidates(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .flat_map(|name| cudarc::get_lib_name_candidates(name))
        .collect()
}

fn open_first(candidates: &[String]) -> Option<(Library, String)> {
    candidates.iter().find_map(|name| {
        // SAFETY: opening a shared library runs its initialisers; the CUDA
        // libraries' initialisers have no preconditions on our side. This is
        // exactly what cudarc would do next.
        unsafe { Library::new(name) }
            .ok()
            .map(|library| (library, name.clone()))
    })
}

fn first_missing<'a>(library: &Library, symbols: &[&'a str]) -> Option<&'a str> {
    symbols.iter().copied().find(|symbol| {
        // SAFETY: only the address is looked up; nothing is called.
        unsafe { library.get::<*const ()>(symbol.as_bytes()) }.is_err()
    })
}
