//! The CUDA C sources of `kernels/`, embedded in the binary so that a build
//! carried to a GPU machine needs no source tree there; NVRTC compiles them at
//! run time for the device's architecture. Our own headers
//! (`kernels/include/*.cuh`) are embedded too and handed to NVRTC in memory
//! with every build ([`HEADERS`]), so `#include "boundgate_async.cuh"` needs
//! no include path on any machine.

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

/// `kernels/qdot.cu`: selection (exponent histogram) and per-bin computation
/// of the error-bounded quantized dot (modelled by `crate::kernels::qdot`).
pub const QDOT: KernelSource = KernelSource {
    path: "kernels/qdot.cu",
    source: include_str!("../../kernels/qdot.cu"),
};

/// `kernels/accessor_blas.cu`: memory-accessor dot, gemv, spmv (CSR, ELL)
/// and trsv (modelled by `crate::kernels::accessor`).
pub const ACCESSOR_BLAS: KernelSource = KernelSource {
    path: "kernels/accessor_blas.cu",
    source: include_str!("../../kernels/accessor_blas.cu"),
};

/// `kernels/mpfma_gemm.cu`: Algorithm 1 on mma.sync and the matrix-unit
/// probes (modelled by `crate::kernels::mpfma::blockfma`).
pub const MPFMA_GEMM: KernelSource = KernelSource {
    path: "kernels/mpfma_gemm.cu",
    source: include_str!("../../kernels/mpfma_gemm.cu"),
};

/// `kernels/residual.cu`: quantize, reduce, int8 GEMM and CSR SpMM of the
/// residual-compensated GEMM (modelled by `crate::kernels::residual`).
pub const RESIDUAL: KernelSource = KernelSource {
    path: "kernels/residual.cu",
    source: include_str!("../../kernels/residual.cu"),
};

/// `kernels/hotspot3d.cu`: HotSpot3D in fp32, fp16 and perforated variants
/// (modelled by `crate::kernels::interleave`).
pub const HOTSPOT3D: KernelSource = KernelSource {
    path: "kernels/hotspot3d.cu",
    source: include_str!("../../kernels/hotspot3d.cu"),
};

/// Every embedded kernel.
///
/// # Example
/// ```
/// let paths: Vec<_> = boundgate::gpu::sources::ALL.iter().map(|k| k.path).collect();
/// assert!(paths.contains(&"kernels/dot.cu"));
/// ```
pub const ALL: &[KernelSource] = &[DOT, QDOT, ACCESSOR_BLAS, MPFMA_GEMM, RESIDUAL, HOTSPOT3D];

/// One embedded header of `kernels/include/`, found by `#include "<name>"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelHeader {
    /// The name a kernel includes it by, e.g. `boundgate_async.cuh`.
    pub name: &'static str,
    /// The path in the repository, e.g. `kernels/include/boundgate_async.cuh`.
    pub path: &'static str,
    /// The CUDA C source.
    pub source: &'static str,
}

/// `kernels/include/boundgate_async.cuh`: `cp.async` and `ldmatrix` helpers
/// shared by the tensor-core GEMMs of `kernels/mpfma_gemm.cu` and
/// `kernels/residual.cu` (they move bits and do no arithmetic).
pub const ASYNC_HEADER: KernelHeader = KernelHeader {
    name: "boundgate_async.cuh",
    path: "kernels/include/boundgate_async.cuh",
    source: include_str!("../../kernels/include/boundgate_async.cuh"),
};

/// Every header NVRTC receives with a build.
///
/// # Example
/// ```
/// use boundgate::gpu::sources::{ALL, HEADERS};
/// let header = HEADERS[0];
/// assert_eq!(header.name, "boundgate_async.cuh");
/// // Included by the tensor-core GEMMs:
/// let includers: Vec<_> = ALL
///     .iter()
///     .filter(|k| k.source.contains(&format!("#include \"{}\"", header.name)))
///     .map(|k| k.path)
///     .collect();
/// assert_eq!(includers, ["kernels/mpfma_gemm.cu", "kernels/residual.cu"]);
/// ```
pub const HEADERS: &[KernelHeader] = &[ASYNC_HEADER];
