//! The CUDA C sources of `kernels/`, embedded in the binary so that a build
//! carried to a GPU machine needs no source tree there; NVRTC compiles them at
//! run time for the device's architecture. Our own headers
//! (`kernels/include/*.cuh`) are embedded too and handed to NVRTC in memory
//! with every build ([`HEADERS`]), so `#include "boundgate_async.cuh"` needs
//! no include path on any machine.

use super::GpuError;
use super::nvrtc::Target;

/// One embedded kernel file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSource {
    /// The path in the repository, e.g. `kernels/dot.cu` (also the NVRTC program name).
    pub path: &'static str,
    /// The CUDA C source.
    pub source: &'static str,
    /// `Some((major, minor))` for a file that uses features of that compute
    /// capability alone (`kernels/mpfma_wgmma.cu`: Hopper's `wgmma`, sm_90a):
    /// built only for it. `None`: portable, built for any device's
    /// architecture.
    pub arch_specific: Option<(u32, u32)>,
}

impl KernelSource {
    /// A portable kernel file.
    const fn portable(path: &'static str, source: &'static str) -> KernelSource {
        KernelSource {
            path,
            source,
            arch_specific: None,
        }
    }

    /// The machine code to build for a device of compute capability
    /// `(major, minor)`.
    ///
    /// # Errors
    /// [`GpuError::Unsupported`] for an architecture-specific file on any
    /// other device.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::Target;
    /// use boundgate::gpu::sources::{DOT, MPFMA_WGMMA};
    /// assert_eq!(DOT.cubin_for((8, 0)).unwrap(), Target::Cubin(8, 0));
    /// assert_eq!(MPFMA_WGMMA.cubin_for((9, 0)).unwrap(), Target::CubinArchSpecific(9, 0));
    /// assert!(MPFMA_WGMMA.cubin_for((8, 0)).is_err());
    /// assert!(MPFMA_WGMMA.cubin_for((10, 0)).is_err());
    /// ```
    pub fn cubin_for(&self, (major, minor): (u32, u32)) -> Result<Target, GpuError> {
        match self.arch_specific {
            None => Ok(Target::Cubin(major, minor)),
            Some(arch) if arch == (major, minor) => Ok(Target::CubinArchSpecific(major, minor)),
            Some((a, b)) => Err(GpuError::Unsupported(format!(
                "{} runs on compute capability {a}.{b} only (sm_{a}{b}a instructions); \
                 this device is {major}.{minor}",
                self.path
            ))),
        }
    }

    /// The targets the CI compile check builds this file for: PTX and CUBIN
    /// of sm_80 and sm_90 for a portable file, of its own architecture for
    /// an architecture-specific one.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::sources::{MPFMA_WGMMA, QDOT};
    /// assert_eq!(QDOT.check_targets().len(), 4);
    /// assert_eq!(MPFMA_WGMMA.check_targets().len(), 2);
    /// ```
    pub fn check_targets(&self) -> Vec<Target> {
        match self.arch_specific {
            None => vec![
                Target::Ptx(8, 0),
                Target::Ptx(9, 0),
                Target::Cubin(8, 0),
                Target::Cubin(9, 0),
            ],
            Some((major, minor)) => vec![
                Target::PtxArchSpecific(major, minor),
                Target::CubinArchSpecific(major, minor),
            ],
        }
    }
}

/// `kernels/dot.cu`: the baseline dot with a fixed order (modelled by
/// [`tree_dot`](crate::kernels::baseline::tree_dot)).
pub const DOT: KernelSource =
    KernelSource::portable("kernels/dot.cu", include_str!("../../kernels/dot.cu"));

/// `kernels/qdot.cu`: selection (exponent histogram) and per-bin computation
/// of the error-bounded quantized dot (modelled by `crate::kernels::qdot`).
pub const QDOT: KernelSource =
    KernelSource::portable("kernels/qdot.cu", include_str!("../../kernels/qdot.cu"));

/// `kernels/accessor_blas.cu`: memory-accessor dot, gemv, spmv (CSR, ELL)
/// and trsv (modelled by `crate::kernels::accessor`).
pub const ACCESSOR_BLAS: KernelSource = KernelSource::portable(
    "kernels/accessor_blas.cu",
    include_str!("../../kernels/accessor_blas.cu"),
);

/// `kernels/mpfma_gemm.cu`: Algorithm 1 on mma.sync and the matrix-unit
/// probes (modelled by `crate::kernels::mpfma::blockfma`).
pub const MPFMA_GEMM: KernelSource = KernelSource::portable(
    "kernels/mpfma_gemm.cu",
    include_str!("../../kernels/mpfma_gemm.cu"),
);

/// `kernels/residual.cu`: quantize, reduce, int8 GEMM and CSR SpMM of the
/// residual-compensated GEMM (modelled by `crate::kernels::residual`).
pub const RESIDUAL: KernelSource = KernelSource::portable(
    "kernels/residual.cu",
    include_str!("../../kernels/residual.cu"),
);

/// `kernels/hotspot3d.cu`: HotSpot3D in fp32, fp16 and perforated variants
/// (modelled by `crate::kernels::interleave`).
pub const HOTSPOT3D: KernelSource = KernelSource::portable(
    "kernels/hotspot3d.cu",
    include_str!("../../kernels/hotspot3d.cu"),
);

/// `kernels/mpfma_wgmma.cu`: Algorithm 1 on Hopper's warpgroup MMA (sm_90a
/// only), the same order as [`MPFMA_GEMM`] (modelled by
/// `crate::kernels::mpfma::blockfma`).
pub const MPFMA_WGMMA: KernelSource = KernelSource {
    path: "kernels/mpfma_wgmma.cu",
    source: include_str!("../../kernels/mpfma_wgmma.cu"),
    arch_specific: Some((9, 0)),
};

/// Every embedded kernel.
///
/// # Example
/// ```
/// let paths: Vec<_> = boundgate::gpu::sources::ALL.iter().map(|k| k.path).collect();
/// assert!(paths.contains(&"kernels/dot.cu"));
/// ```
pub const ALL: &[KernelSource] = &[
    DOT,
    QDOT,
    ACCESSOR_BLAS,
    MPFMA_GEMM,
    MPFMA_WGMMA,
    RESIDUAL,
    HOTSPOT3D,
];

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
/// assert_eq!(
///     includers,
///     ["kernels/mpfma_gemm.cu", "kernels/mpfma_wgmma.cu", "kernels/residual.cu"]
/// );
/// ```
pub const HEADERS: &[KernelHeader] = &[ASYNC_HEADER];
