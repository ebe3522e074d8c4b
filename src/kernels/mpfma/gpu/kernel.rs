//! Which of our GEMM kernels in `kernels/mpfma_gemm.cu` and
//! `kernels/mpfma_wgmma.cu` runs: source, tile, block, shared memory and entry
//! point of each. Every one applies one tensor-core step per 16 of k (8 for
//! tf32) to each accumulator, k ascending, as the block-FMA model does
//! (Bhola and Duraisamy, Algorithm 1, with the record's block FMA): the
//! `mma.sync` kernels issue the same instructions in the same order, so
//! their D is the same bit for bit by construction; the wgmma kernel's steps
//! are another instruction, whose equality with the model (and so with the
//! others) is measured on the device (`tests/mpfma_gpu.rs`). They differ in
//! how A and B reach the tensor cores.

use super::super::record::{TcInput, TcOutput};
use crate::gpu::GpuError;
use crate::gpu::sources::{self, KernelSource};

/// One of our GEMM kernels.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::GemmKernel;
/// let names: Vec<_> = GemmKernel::ALL.iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["simple", "pipelined", "wide", "wgmma"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmKernel {
    /// `mpfma_gemm_*`: K in slices of 16, scalar loads (measured on the
    /// H100 on 2026-11-24: bit-exact, 3.7 % of cuBLAS).
    Simple,
    /// `mpfma_gemm_pipelined_*`: K in slices of 32, 16-byte loads, the next
    /// slice loaded while the current one is multiplied (H100, 2026-11-26:
    /// bit-exact, 15.5 % of cuBLAS).
    Pipelined,
    /// `mpfma_gemm_wide_*` (fp16 and bf16 inputs): 128 x 128 tiles per block
    /// of 256 threads, a 3-stage cp.async pipeline, ldmatrix fragments (H100,
    /// 2026-11-26: bit-exact, racecheck clean, 29 % of cuBLAS; ptxas: about
    /// 100 registers, no spills; 56 832 B of dynamic shared memory, so two
    /// blocks per SM).
    Wide,
    /// `mpfma_gemm_wgmma_*` (fp16 and bf16 inputs, fp32 accumulation;
    /// `kernels/mpfma_wgmma.cu`, sm_90a only): Hopper's warpgroup MMA,
    /// 128 x 256 tiles per block of two warpgroups, a 4-stage cp.async ring
    /// in 128-byte-swizzled shared memory, one block per SM (H100,
    /// 2026-11-26: bit-exact, memcheck and racecheck clean, 59 % and 63 % of
    /// cuBLAS at 4096 and 8192; ptxas: 212 registers, no spills).
    Warpgroup,
}

impl GemmKernel {
    /// Every kernel.
    pub const ALL: [GemmKernel; 4] = [
        GemmKernel::Simple,
        GemmKernel::Pipelined,
        GemmKernel::Wide,
        GemmKernel::Warpgroup,
    ];

    /// Its name in reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Warpgroup.name(), "wgmma");
    /// assert!(GemmKernel::ALL.iter().all(|&k| k.name().parse::<GemmKernel>().unwrap() == k));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            GemmKernel::Simple => "simple",
            GemmKernel::Pipelined => "pipelined",
            GemmKernel::Wide => "wide",
            GemmKernel::Warpgroup => "wgmma",
        }
    }

    /// The kernel file it is in.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Wide.source().path, "kernels/mpfma_gemm.cu");
    /// assert_eq!(GemmKernel::Warpgroup.source().path, "kernels/mpfma_wgmma.cu");
    /// ```
    pub fn source(self) -> KernelSource {
        match self {
            GemmKernel::Warpgroup => sources::MPFMA_WGMMA,
            _ => sources::MPFMA_GEMM,
        }
    }

    /// What M and N are padded to a multiple of: the side of the square
    /// tile of D one block computes, or for the wgmma kernel, whose blocks
    /// are 128 x 256 ([`GemmKernel::block_tile`]), the larger side.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Simple.tile(), 64);
    /// assert_eq!(GemmKernel::Wide.tile(), 128);
    /// assert_eq!(GemmKernel::Warpgroup.tile(), 256);
    /// ```
    pub fn tile(self) -> usize {
        match self {
            GemmKernel::Simple | GemmKernel::Pipelined => 64,
            GemmKernel::Wide => 128,
            GemmKernel::Warpgroup => 256,
        }
    }

    /// Rows and columns of the tile of D one block computes.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Wide.block_tile(), (128, 128));
    /// assert_eq!(GemmKernel::Warpgroup.block_tile(), (128, 256));
    /// ```
    pub fn block_tile(self) -> (usize, usize) {
        match self {
            GemmKernel::Warpgroup => (128, 256),
            other => (other.tile(), other.tile()),
        }
    }

    /// Threads per block.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Pipelined.threads(), 128);
    /// assert_eq!(GemmKernel::Wide.threads(), 256);
    /// ```
    pub fn threads(self) -> u32 {
        match self {
            GemmKernel::Simple | GemmKernel::Pipelined => 128,
            GemmKernel::Wide | GemmKernel::Warpgroup => 256,
        }
    }

    /// The entry point for inputs `input` accumulated in `output`.
    ///
    /// # Errors
    /// [`GpuError::Unsupported`] for a combination the kernel does not have.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// assert_eq!(
    ///     GemmKernel::Pipelined.entry(TcInput::Fp16, TcOutput::Fp32).unwrap(),
    ///     "mpfma_gemm_pipelined_f16_f32"
    /// );
    /// assert!(GemmKernel::Simple.entry(TcInput::E4m3, TcOutput::Fp32).is_err());
    /// // ldmatrix moves 16-bit elements: the wide kernel has no tf32 entry.
    /// assert!(GemmKernel::Wide.entry(TcInput::Tf32, TcOutput::Fp32).is_err());
    /// ```
    pub fn entry(self, input: TcInput, output: TcOutput) -> Result<&'static str, GpuError> {
        use GemmKernel::{Pipelined, Simple, Warpgroup, Wide};
        Ok(match (input, output, self) {
            (TcInput::Fp16, TcOutput::Fp32, Simple) => "mpfma_gemm_f16_f32",
            (TcInput::Fp16, TcOutput::Fp16, Simple) => "mpfma_gemm_f16_f16",
            (TcInput::Bf16, TcOutput::Fp32, Simple) => "mpfma_gemm_bf16_f32",
            (TcInput::Tf32, TcOutput::Fp32, Simple) => "mpfma_gemm_tf32_f32",
            (TcInput::Fp16, TcOutput::Fp32, Pipelined) => "mpfma_gemm_pipelined_f16_f32",
            (TcInput::Fp16, TcOutput::Fp16, Pipelined) => "mpfma_gemm_pipelined_f16_f16",
            (TcInput::Bf16, TcOutput::Fp32, Pipelined) => "mpfma_gemm_pipelined_bf16_f32",
            (TcInput::Tf32, TcOutput::Fp32, Pipelined) => "mpfma_gemm_pipelined_tf32_f32",
            (TcInput::Fp16, TcOutput::Fp32, Wide) => "mpfma_gemm_wide_f16_f32",
            (TcInput::Fp16, TcOutput::Fp16, Wide) => "mpfma_gemm_wide_f16_f16",
            (TcInput::Bf16, TcOutput::Fp32, Wide) => "mpfma_gemm_wide_bf16_f32",
            (TcInput::Fp16, TcOutput::Fp32, Warpgroup) => "mpfma_gemm_wgmma_f16_f32",
            (TcInput::Bf16, TcOutput::Fp32, Warpgroup) => "mpfma_gemm_wgmma_bf16_f32",
            _ => {
                return Err(GpuError::Unsupported(format!(
                    "no {} kernel for {input} inputs with {} accumulation",
                    self.name(),
                    output.name()
                )));
            }
        })
    }

    /// Dynamic shared memory per block, in bytes: the wide kernel's three
    /// pipeline stages of A (128 x 40) and B (32 x 136) 16-bit elements
    /// (`kernels/mpfma_gemm.cu`: `WIDE_STAGES`); the wgmma kernel's four
    /// stages of A (128 x 64) and B (64 x 256) and 1024 bytes to align them
    /// (`kernels/mpfma_wgmma.cu`: `WG_SHARED_BYTES`); the others use static
    /// shared memory only.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Wide.dynamic_shared_bytes(), 56_832);
    /// assert_eq!(GemmKernel::Warpgroup.dynamic_shared_bytes(), 197_632);
    /// assert_eq!(GemmKernel::Simple.dynamic_shared_bytes(), 0);
    /// ```
    pub fn dynamic_shared_bytes(self) -> u32 {
        match self {
            GemmKernel::Simple | GemmKernel::Pipelined => 0,
            GemmKernel::Wide => 3 * (128 * 40 + 32 * 136) * 2,
            GemmKernel::Warpgroup => 4 * (128 * 64 + 64 * 256) * 2 + 1024,
        }
    }

    /// The shape padded to the kernel's tiles: `m` and `t` to multiples of
    /// [`GemmKernel::tile`], `k` to a multiple of 16 (one mma step; the
    /// padding is zeros, which add exact zeros to every block FMA).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Wide.padded((1, 17, 130)), (128, 32, 256));
    /// ```
    pub fn padded(self, (m, k, t): (usize, usize, usize)) -> (usize, usize, usize) {
        let tile = self.tile();
        (
            m.div_ceil(tile) * tile,
            k.div_ceil(16) * 16,
            t.div_ceil(tile) * tile,
        )
    }

    /// Whether the kernels' `int` element offsets (`r * N + c` in
    /// `acc_init`/`acc_store`, the simple kernel's loads) reach every element
    /// of the padded operands: each of `M K`, `K N` and `M N` must be at most
    /// `i32::MAX` (16384^2 is 2^28; 65536^2 would wrap). Found by a static
    /// review, 2026-11-25; refused here rather than widening the offsets of
    /// kernels no device has run since.
    ///
    /// # Errors
    /// [`GpuError::Unsupported`] for a larger padded operand.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert!(GemmKernel::Wide.check_offsets((16384, 16384, 16384)).is_ok());
    /// assert!(GemmKernel::Wide.check_offsets((65536, 16, 65536)).is_err());
    /// ```
    pub fn check_offsets(self, shape: (usize, usize, usize)) -> Result<(), GpuError> {
        let (pm, pk, pt) = self.padded(shape);
        let limit = i32::MAX as usize;
        for (name, rows, cols) in [("A", pm, pk), ("B", pk, pt), ("D", pm, pt)] {
            if rows.checked_mul(cols).is_none_or(|n| n > limit) {
                return Err(GpuError::Unsupported(format!(
                    "{} kernel: the padded {name} ({rows} x {cols}) has more than 2^31 - 1 \
                     elements, beyond the kernel's 32-bit offsets",
                    self.name()
                )));
            }
        }
        Ok(())
    }

    /// The launch for a padded `m x t` output: one block per tile.
    #[cfg(feature = "cuda")]
    pub(super) fn launch(self, m: usize, t: usize) -> cudarc::driver::LaunchConfig {
        let (rows, cols) = self.block_tile();
        cudarc::driver::LaunchConfig {
            grid_dim: ((t / cols) as u32, (m / rows) as u32, 1),
            block_dim: (self.threads(), 1, 1),
            shared_mem_bytes: self.dynamic_shared_bytes(),
        }
    }

    /// Loads the kernel's entry point `name` from `module` and allows it the
    /// dynamic shared memory it launches with: above 48 KiB a function must
    /// opt in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    #[cfg(feature = "cuda")]
    pub(super) fn load(
        self,
        module: &crate::gpu::KernelModule,
        name: &'static str,
    ) -> Result<cudarc::driver::CudaFunction, GpuError> {
        use cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        let function = module.function(name)?;
        let bytes = self.dynamic_shared_bytes();
        if bytes > 48 * 1024 {
            function
                .set_attribute(
                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
                .map_err(crate::gpu::module::driver(
                    "cuFuncSetAttribute (dynamic shared memory)",
                ))?;
        }
        Ok(function)
    }
}

impl std::str::FromStr for GemmKernel {
    type Err = crate::error::Error;

    /// A kernel by its [`GemmKernel::name`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!("wgmma".parse::<GemmKernel>().unwrap(), GemmKernel::Warpgroup);
    /// assert!("fast".parse::<GemmKernel>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<GemmKernel, Self::Err> {
        GemmKernel::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let known: Vec<_> = GemmKernel::ALL.iter().map(|k| k.name()).collect();
                crate::error::Error::usage(format!(
                    "unknown kernel `{s}` (known: {})",
                    known.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_covers_the_shape_with_whole_tiles_and_mma_steps() {
        for kernel in GemmKernel::ALL {
            for shape in [(1, 1, 1), (64, 16, 64), (65, 17, 129), (300, 1000, 7)] {
                let (pm, pk, pt) = kernel.padded(shape);
                let tile = kernel.tile();
                assert!(pm >= shape.0 && pm % tile == 0 && pm - shape.0 < tile);
                assert!(pt >= shape.2 && pt % tile == 0 && pt - shape.2 < tile);
                // Whole blocks both ways (the launch grid divides by them).
                let (rows, cols) = kernel.block_tile();
                assert!(pm % rows == 0 && pt % cols == 0, "{}", kernel.name());
                assert!(pk >= shape.1 && pk % 16 == 0 && pk - shape.1 < 16);
            }
        }
    }

    /// The dynamic shared memory the launcher asks for is the kernel's own
    /// figure: kernels/mpfma_wgmma.cu asserts its WG_SHARED_BYTES at compile
    /// time against the number written here, so changing one side alone
    /// fails a build or this test.
    #[test]
    fn the_wgmma_launch_shares_the_kernels_shared_memory_size() {
        let bytes = GemmKernel::Warpgroup.dynamic_shared_bytes();
        let source = GemmKernel::Warpgroup.source().source;
        assert!(
            source.contains(&format!("static_assert(WG_SHARED_BYTES == {bytes},")),
            "kernels/mpfma_wgmma.cu does not assert {bytes} bytes"
        );
        assert!(bytes <= 227 * 1024, "beyond sm_90's 227 KiB per block");
    }

    #[test]
    fn a_missing_entry_is_an_unsupported_configuration() {
        let e = GemmKernel::Wide
            .entry(TcInput::Tf32, TcOutput::Fp32)
            .unwrap_err();
        assert_eq!(
            e,
            GpuError::Unsupported("no wide kernel for tf32 inputs with fp32 accumulation".into())
        );
    }
}
