//! The CUDA C sources of `kernels/`, embedded in the binary so that a build
//! carried to a GPU machine needs no source tree there; NVRTC compiles them at
//! run time for the device's architecture.

/// One embedded kernel file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSource {
    /// The path in the repository, e.g. `kernels/dot.cu` (also the NVRTC program name).
    pub path: &'static str,
    /// The CUDA C source.
    pub source: &'static str,
}

/// `kernels/dot.cu`: the baseline dot with a fixed order (modelled by
/// [`tree_dot`](crate::kernels::baseline::tree_dot)).
pub const DOT: KernelSource = KernelSource {
    path: "kernels/dot.cu",
    source: include_str!("../../kernels/dot.cu"),
};

/// Every embedded kernel.
///
/// # Example
/// ```
/// let paths: Vec<_> = boundgate::gpu::sources::ALL.iter().map(|k| k.path).collect();
/// assert!(paths.contains(&"kernels/dot.cu"));
/// ```
pub const ALL: &[KernelSource] = &[DOT];
