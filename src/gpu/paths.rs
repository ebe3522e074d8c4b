//! Where the CUDA pieces live: the install script's cache
//! (`scripts/install-cuda-nvrtc.sh`) and the include folders handed to NVRTC.

use std::env;
use std::path::{Path, PathBuf};

/// Overrides the include folder given to NVRTC.
pub const INCLUDE_ENV: &str = "BOUNDGATE_CUDA_INCLUDE";

/// Overrides the install script's cache folder.
pub const HOME_ENV: &str = "BOUNDGATE_CUDA_HOME";

/// The install script's cache folder: `$BOUNDGATE_CUDA_HOME`, else
/// `$HOME/.cache/boundgate/cuda13` (the same rule as the script).
///
/// # Example
/// ```
/// let home = boundgate::gpu::cuda_home();
/// assert!(home.is_some() || std::env::var_os("HOME").is_none());
/// ```
pub fn cuda_home() -> Option<PathBuf> {
    if let Some(home) = env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(home));
    }
    env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| Path::new(&home).join(".cache/boundgate/cuda13"))
}

/// The cache's library folder (`<cache>/nvidia/cu13/lib`, with `libnvrtc.so.13`).
///
/// # Example
/// ```
/// use boundgate::gpu::{cache_lib_dir, cuda_home};
/// assert_eq!(cache_lib_dir(), cuda_home().map(|home| home.join("nvidia/cu13/lib")));
/// ```
pub fn cache_lib_dir() -> Option<PathBuf> {
    cuda_home().map(|home| home.join("nvidia/cu13/lib"))
}

/// The include folders for NVRTC, first match wins:
/// 1. `$BOUNDGATE_CUDA_INCLUDE` (used as given, even if missing, so a typo shows
///    up as a compile error rather than being silently replaced);
/// 2. the install script's `<cache>/nvidia/cu13/include`;
/// 3. a CUDA toolkit: `$CUDA_HOME/include`, `$CUDA_PATH/include`, `/usr/local/cuda/include`.
///
/// Empty when none exists: kernels that include no header still compile.
///
/// # Example
/// ```
/// for dir in boundgate::gpu::include_dirs() {
///     println!("NVRTC include folder: {}", dir.display());
/// }
/// ```
pub fn include_dirs() -> Vec<PathBuf> {
    if let Some(dir) = env::var_os(INCLUDE_ENV).filter(|v| !v.is_empty()) {
        return vec![PathBuf::from(dir)];
    }
    cuda_roots()
        .map(|root| root.join("include"))
        .find(|dir| dir.join("cuda_fp16.h").is_file())
        .into_iter()
        .collect()
}

/// A CUDA program (`cuobjdump`, `nvdisasm`, ...), first match wins: the
/// install script's `<cache>/nvidia/cu13/bin/<name>`, then a CUDA toolkit's
/// `bin/<name>` (`$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`): the folders
/// [`include_dirs`] looks in, in the same order.
///
/// # Example
/// ```
/// if let Some(tool) = boundgate::gpu::cuda_binary("cuobjdump") {
///     assert!(tool.ends_with("bin/cuobjdump"));
/// }
/// ```
pub fn cuda_binary(name: &str) -> Option<PathBuf> {
    cuda_roots()
        .map(|root| root.join("bin").join(name))
        .find(|path| path.is_file())
}

/// The folders that may hold CUDA's `include/` and `bin/`, in the order
/// they are tried: the install script's `<cache>/nvidia/cu13`, then
/// `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda`.
fn cuda_roots() -> impl Iterator<Item = PathBuf> {
    let cache = cuda_home().map(|home| home.join("nvidia/cu13"));
    let toolkits = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|var| env::var_os(var).filter(|v| !v.is_empty()))
        .map(|root| Path::new(&root).to_path_buf())
        .chain(std::iter::once(PathBuf::from("/usr/local/cuda")));
    cache.into_iter().chain(toolkits)
}
