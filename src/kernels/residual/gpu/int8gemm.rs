//! The exact int8 GEMM with int32 accumulation on the device: `dp4a` (the
//! default) or the int8 tensor cores (`mma.sync` m16n8k32, IMMA).

use super::*;

/// Which kernel computes the dense int8 products `P = A Bt^T` (`P0`, and
/// `P1`, `P2` of the full residual or of a product the density switch keeps
/// dense). Both give the same exact int32 sums (the host excludes overflow),
/// so every result of Algorithm 1 is the same whichever runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int8Gemm {
    /// `residual_gemm_dp4a`: 32 x 32 tiles, `dp4a` on the CUDA cores (run on
    /// the H100 on 2026-11-24: 48 TOPS at 16384, bit-identical). The default
    /// of [`run_gpu`] and [`time_gpu`].
    Dp4a,
    /// `residual_gemm_imma`: the int8 tensor cores (`mma.sync` m16n8k32),
    /// 128 x 128 tiles, `cp.async` double buffering, `ldmatrix` fragments
    /// (run on the H100 on 2026-11-26: bit-identical, racecheck clean, 242
    /// TOPS at 16384; docs/gpu/2026-11-26-h100.md).
    Imma,
}

impl Int8Gemm {
    /// Both kernels.
    pub const ALL: [Int8Gemm; 2] = [Int8Gemm::Dp4a, Int8Gemm::Imma];

    /// Its name in reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::gpu::Int8Gemm;
    /// assert_eq!(Int8Gemm::Imma.name(), "imma");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Int8Gemm::Dp4a => "dp4a",
            Int8Gemm::Imma => "imma",
        }
    }

    /// Refuses an `m x n` product whose grid (its launch configuration: one
    /// block per 32 x 32 or 128 x 128 tile) CUDA cannot launch: at most 65535
    /// blocks in `y` (rows), `2^31 - 1` in `x`. Checked before any device
    /// work: a tall `A` was refused by the driver only after the upload and
    /// quantization (review, 2026-11-29).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::gpu::Int8Gemm;
    /// assert!(Int8Gemm::Dp4a.check_grid(32 * 65535, 1).is_ok());
    /// assert!(Int8Gemm::Dp4a.check_grid(32 * 65535 + 1, 1).is_err());
    /// assert!(Int8Gemm::Imma.check_grid(32 * 65535 + 1, 1).is_ok()); // 128-row tiles
    /// ```
    pub fn check_grid(self, m: usize, n: usize) -> Result<(), GpuError> {
        let tile = match self {
            Int8Gemm::Dp4a => 32,
            Int8Gemm::Imma => 128,
        };
        crate::gpu::grid::check_grid(
            &format!("{} GEMM", self.name()),
            &format!("{m} x {n} in tiles of {tile} x {tile}"),
            (n.div_ceil(tile), m.div_ceil(tile)),
        )
    }

    pub(super) fn launch(self, m: usize, n: usize) -> (&'static str, LaunchConfig) {
        match self {
            // 16 x 16 threads per 32 x 32 tile.
            Int8Gemm::Dp4a => (
                "residual_gemm_dp4a",
                LaunchConfig {
                    grid_dim: (n.div_ceil(32) as u32, m.div_ceil(32) as u32, 1),
                    block_dim: (16, 16, 1),
                    shared_mem_bytes: 0,
                },
            ),
            // 256 threads per 128 x 128 tile.
            Int8Gemm::Imma => (
                "residual_gemm_imma",
                LaunchConfig {
                    grid_dim: (n.div_ceil(128) as u32, m.div_ceil(128) as u32, 1),
                    block_dim: (256, 1, 1),
                    shared_mem_bytes: 0,
                },
            ),
        }
    }
}

/// `P = A B` for the quantized `A` (`m x kp`, [`Layout::Rows`]) and `B`
/// (read transposed, `n x kp`; transposed now if its quantization left that
/// for later) by `kind`.
pub(super) fn gemm(
    dev: &Device,
    kind: Int8Gemm,
    a: &Quantized,
    b: &Quantized,
    (m, n, kp): (usize, usize, usize),
) -> Result<CudaSlice<i32>, GpuError> {
    if a.layout() != Layout::Rows || b.layout() == Layout::Rows {
        return Err(GpuError::Internal(
            "the int8 GEMM takes a row-major left and a transposed right operand".into(),
        ));
    }
    let a = a.gemm_operand(dev, kp)?;
    let bt = b.gemm_operand(dev, kp)?;
    let (name, launch) = kind.launch(m, n);
    let f = dev.function(name)?;
    // SAFETY: both GEMM kernels write every element of P (i < m, j < n).
    let mut p = unsafe { dev.uninit::<i32>(m * n) }?;
    let (m64, n64) = (m as u64, n as u64);
    // dp4a takes kp in 4-byte words, the IMMA kernel in bytes.
    let k_arg = match kind {
        Int8Gemm::Dp4a => (kp / 4) as u64,
        Int8Gemm::Imma => kp as u64,
    };
    // SAFETY: kp is a multiple of 16 and the int8 buffers are 256-byte aligned
    // device allocations, so reading them as int words or 16-byte vectors is
    // aligned and in bounds; p has m x n elements; the launch is the kernel's.
    unsafe {
        dev.stream
            .launch_builder(&f)
            .arg(&*a)
            .arg(&*bt)
            .arg(&m64)
            .arg(&n64)
            .arg(&k_arg)
            .arg(&mut p)
            .launch(launch)
            .map_err(driver(name))?;
    }
    Ok(p)
}
