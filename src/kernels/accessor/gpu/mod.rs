//! Launchers of `kernels/accessor_blas.cu` (feature `cuda`): the accessor DOT,
//! GEMV (`A` and `A^T`), SpMV (CSR and ELL) and TRSV kernels on the GPU, with
//! the results downloaded both in the arithmetic format (before the store) and
//! through the accessor (after it), so that they can be compared bit for bit
//! with the CPU models ([`accessor_dot`](super::dot::accessor_dot),
//! [`accessor_gemv`](super::gemv::accessor_gemv),
//! [`accessor_spmv`](super::spmv::accessor_spmv),
//! [`accessor_trsv`](super::trsv::accessor_trsv)), whose orders
//! ([`super::order`]) are the kernels' orders (`tests/accessor_gpu.rs`, ignored
//! without a device). [`AccessorGpu::time`] measures a kernel's throughput in
//! GB/s with CUDA events, and [`AccessorGpu::copy_bandwidth`] the device's
//! copy bandwidth, for the comparison the issue asks for (Grützmacher et al.
//! 2021, §4: the accessor kernels are memory bound, so GB/s is their measure).
//!
//! Inputs are given as `f64` values; they are stored on the host through the
//! same [`Accessor`](super::storage::Accessor) the CPU model uses (one correctly
//! rounded write per value) and uploaded as the storage format's bit patterns
//! (binary64, binary32, binary16, bfloat16, little-endian as both host and
//! device are). The kernel file instantiates floating-point storage contained in
//! the arithmetic format, round-to-nearest writes, no flush to zero
//! ([`GpuPair::of`] refuses anything else with a typed error).
//!
//! Run on a lent H100 on 2026-11-24 (record `docs/gpu/2026-11-24-h100.md`):
//! DOT, GEMV, SpMV CSR/ELL and TRSV, all seven pairs, bit-identical to the CPU
//! models and within the rigorous bounds (`tests/accessor_gpu.rs`); GB/s in
//! docs/accessor.md.
//!
//! A machine without a driver gets the probe's typed error (never a panic); a
//! panic inside the bindings is caught and returned as [`GpuError::Internal`].

mod dot;
mod gemv;
mod pair;
mod roofline;
mod spmv;
mod timing;
mod trsv;
pub mod tuning;

pub use pair::GpuPair;
use pair::*;
pub use trsv::TrsvSchedule;

use super::gemv::GemvOp;
use super::order::{DOT_FINAL_THREADS, DOT_THREADS, GridConfig, WARP};
use super::sparse::CsrMatrix;
use super::spmv::SparseFormat;
use super::storage::{AccessorSpec, StorageKind};
use super::trsv::{TRSV_BLOCK, TRSV_WARPS};
use crate::gpu::guard::catch;
use crate::gpu::module::driver;
use crate::gpu::sources::KernelSource;
use crate::gpu::{GpuError, KernelModule, sources};
use boundgate_verify::VerifyError;
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::Transpose;
use boundgate_verify::oracle::trsv::{Diag, Uplo};
use cudarc::driver::{CudaFunction, CudaSlice, LaunchArgs, LaunchConfig, PushKernelArg, sys};
use tuning::{AccessorTuning, Knob};

/// The kernel source, embedded like the other `kernels/*.cu`.
pub const SOURCE: KernelSource = sources::ACCESSOR_BLAS;

/// Threads per block of the GEMV (`op(A) = A`) and CSR SpMV kernels: 8 warps,
/// a warp per row (GEMV) or per `CSR_ROWS_PER_WARP` rows (CSR).
const ROW_WARPS: usize = 8;
/// Rows per warp of the CSR SpMV kernel (`CSR_ROWS_PER_WARP` in
/// kernels/accessor_blas.cu): each reduced in the one-row order, their loads
/// issued together.
const CSR_ROWS_PER_WARP: usize = 4;
/// Threads per block of the ELL SpMV kernel (a thread per row).
const ELL_THREADS: usize = 256;
/// Threads per block of the CSR-stream SpMV kernel, and so rows per block (a
/// thread per row; `CSR_STREAM_THREADS` in kernels/accessor_blas.cu).
const CSR_STREAM_THREADS: usize = 256;

fn config(blocks: usize, threads: (u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (threads.0, threads.1, 1),
        shared_mem_bytes: 0,
    }
}

/// A grid dimension that the driver accepts (at most `2^31 - 1` blocks).
fn blocks_for(count: usize, per_block: usize) -> Result<usize, GpuError> {
    let blocks = count.div_ceil(per_block).max(1);
    if blocks > i32::MAX as usize {
        return Err(VerifyError::invalid("size", count, "more blocks than a grid can hold").into());
    }
    Ok(blocks)
}

/// Column indices and row pointers as the kernels' `int`.
fn to_int(what: &str, v: &[usize]) -> Result<Vec<i32>, GpuError> {
    v.iter()
        .map(|&i| {
            i32::try_from(i).map_err(|_| {
                GpuError::Input(VerifyError::invalid(
                    what,
                    i,
                    "beyond the kernels' int indices",
                ))
            })
        })
        .collect()
}

/// The DOT kernels' result.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuDot {
    /// The result in the arithmetic format (`out[0]`), before the store.
    pub before_store: f64,
    /// The result written through the accessor (`out_stored[0]`), read back.
    pub output: f64,
    /// The launch geometry (blocks of the first launch).
    pub config: GridConfig,
}

/// A vector result (GEMV, SpMV).
#[derive(Clone, Debug, PartialEq)]
pub struct GpuVector {
    /// The results in the arithmetic format (`y_arith`), before the store.
    pub before_store: Vec<f64>,
    /// The results written through the accessor (`y`), read back.
    pub output: Vec<f64>,
}

/// The TRSV kernels' result.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuTrsv {
    /// The inverses of the diagonal blocks (positions, row-major `m x m` with
    /// `m` the block's size), as [`TrsvComputation::inverses`](super::trsv::TrsvComputation::inverses).
    pub inverses: Vec<Vec<f64>>,
    /// The solution in the arithmetic format (by row), before the store.
    pub before_store: Vec<f64>,
    /// The solution written through the accessor (by row), read back.
    pub output: Vec<f64>,
}

/// What [`AccessorGpu::time`] measures.
#[derive(Clone, Copy, Debug)]
pub enum Workload<'a> {
    /// `x^T y`.
    Dot {
        /// `x`.
        x: &'a [f64],
        /// `y`.
        y: &'a [f64],
    },
    /// `alpha op(A) x + beta y`.
    Gemv {
        /// `A`, row-major.
        a: &'a [f64],
        /// Rows and columns of `A`.
        shape: (usize, usize),
        /// `x`.
        x: &'a [f64],
        /// The operation.
        op: GemvOp,
        /// `y` (read when `beta != 0`).
        y: Option<&'a [f64]>,
    },
    /// `alpha A x + beta y`, sparse `A`.
    Spmv {
        /// `A`.
        a: &'a CsrMatrix,
        /// The kernel.
        format: SparseFormat,
        /// `x`.
        x: &'a [f64],
        /// `alpha`, `beta`.
        scalars: (f64, f64),
        /// `y` (read when `beta != 0`).
        y: Option<&'a [f64]>,
    },
    /// The roofline kernel: `y_i = w(f^k(r(x_i)))`, `f(v) = v a + b`
    /// ([`super::roofline`]), `2k` FLOPs per value.
    Roofline {
        /// `x`.
        x: &'a [f64],
        /// `k`: multiply-adds per value.
        k: usize,
    },
    /// `T x = b`.
    Trsv {
        /// The `n x n` matrix whose triangle is `T`.
        a: &'a [f64],
        /// `n`.
        n: usize,
        /// `b`.
        b: &'a [f64],
        /// Which triangle.
        uplo: Uplo,
        /// Unit or non-unit diagonal.
        diag: Diag,
        /// How the solve is scheduled.
        schedule: TrsvSchedule,
    },
}

/// A throughput measurement.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Timing {
    /// What ran (kernel name or `copy`).
    pub kernel: String,
    /// Timed launches (after one untimed warm-up).
    pub repetitions: usize,
    /// Mean seconds per launch (CUDA events around all repetitions).
    pub seconds: f64,
    /// Bytes one launch moves (see [`AccessorGpu::time`]).
    pub bytes: u64,
    /// `bytes / seconds / 1e9`.
    pub gb_per_s: f64,
}

/// `kernels/accessor_blas.cu` compiled for device 0 and loaded there, with a
/// setting of its tuning knobs ([`AccessorTuning`]).
pub struct AccessorGpu {
    pub(super) dev: KernelModule,
    tuning: AccessorTuning,
}

/// Device buffers of a GEMV or SpMV (the operands differ, the outputs not).
struct VectorOutputs {
    alpha: Scalar,
    beta: Scalar,
    y0: CudaSlice<u8>,
    y_arith: CudaSlice<u8>,
    y: CudaSlice<u8>,
    len: usize,
}

impl AccessorGpu {
    /// Probes device 0, compiles `kernels/accessor_blas.cu` for its compute
    /// capability with NVRTC and loads it.
    ///
    /// # Errors
    /// The probe's error without a device or driver, NVRTC or driver errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let gpu = AccessorGpu::open().unwrap();
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
    /// let out = gpu.dot(&spec, &[16_777_216.0, 1.0, 1.0], &[1.0; 3]).unwrap();
    /// assert_eq!(out.output, 16_777_218.0);
    /// ```
    pub fn open() -> Result<AccessorGpu, GpuError> {
        AccessorGpu::open_tuned(AccessorTuning::default())
    }

    /// [`AccessorGpu::open`] with the kernel file compiled for `tuning`
    /// (NVRTC `-D` options; [`tuning`] says what the knobs change: the speed,
    /// never the bits), the launcher sizing its grids to match.
    ///
    /// # Errors
    /// As [`AccessorGpu::open`].
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::{AccessorGpu, tuning::AccessorTuning};
    /// let tuning: AccessorTuning = "CSR_GROUPS_PER_WARP=1,CSR_MIN_BLOCKS=5".parse()?;
    /// let gpu = AccessorGpu::open_tuned(tuning)?;
    /// println!("{}", gpu.tuning());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_tuned(tuning: AccessorTuning) -> Result<AccessorGpu, GpuError> {
        catch(|| {
            Ok(AccessorGpu {
                dev: KernelModule::open_with_defines(&SOURCE, &tuning.defines())?,
                tuning,
            })
        })
    }

    /// The setting of the tuning knobs this module was compiled with.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// assert!(AccessorGpu::open()?.tuning().is_default());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tuning(&self) -> &AccessorTuning {
        &self.tuning
    }

    /// The storage bit patterns of `values` stored through `spec`'s accessor,
    /// on the device (at least one element, so that an empty operand still
    /// has a valid pointer).
    pub(super) fn store(
        &self,
        spec: &AccessorSpec,
        pair: GpuPair,
        values: &[f64],
    ) -> Result<CudaSlice<u8>, GpuError> {
        let stored = spec.for_data(values)?.store(values)?;
        let bytes = pair.encode(&stored.values);
        if bytes.is_empty() {
            self.dev.zeros::<u8>(pair.storage_bytes())
        } else {
            self.dev.upload(&bytes)
        }
    }

    fn upload_ints(&self, v: &[i32]) -> Result<CudaSlice<i32>, GpuError> {
        if v.is_empty() {
            self.dev.zeros::<i32>(1)
        } else {
            self.dev.upload(v)
        }
    }

    pub(super) fn sync(&self) -> Result<(), GpuError> {
        self.dev
            .stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))
    }

    // ------------------------------------------------------------------ DOT

    /// `alpha`, `beta`, `y0` (stored when `beta != 0`) and the output buffers.
    fn outputs(
        &self,
        spec: &AccessorSpec,
        pair: GpuPair,
        (alpha, beta): (f64, f64),
        y: Option<&[f64]>,
        len: usize,
    ) -> Result<VectorOutputs, GpuError> {
        let y0 = if beta != 0.0 {
            let y = y.ok_or_else(|| {
                VerifyError::invalid("y", "missing", "beta != 0 needs the input y")
            })?;
            require_same_len("y and the rows of op(A)", y.len(), len)?;
            self.store(spec, pair, y)?
        } else {
            self.dev.zeros::<u8>(pair.storage_bytes())?
        };
        Ok(VectorOutputs {
            alpha: pair.scalar(alpha)?,
            beta: pair.scalar(beta)?,
            y0,
            y_arith: self.dev.zeros::<u8>(len * pair.arith_bytes())?,
            y: self.dev.zeros::<u8>(len * pair.storage_bytes())?,
            len,
        })
    }

    fn read_outputs(&self, pair: GpuPair, o: &VectorOutputs) -> Result<GpuVector, GpuError> {
        self.sync()?;
        let mut before_store = pair.decode_arith(&self.dev.download(&o.y_arith)?);
        let mut output = pair.decode_storage(&self.dev.download(&o.y)?);
        // Buffers hold at least one element; the result has `len`.
        before_store.truncate(o.len);
        output.truncate(o.len);
        Ok(GpuVector {
            before_store,
            output,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{CSR_ROWS_PER_WARP, CSR_STREAM_THREADS, SOURCE};

    /// kernels/accessor_blas.cu defines `name` as `value` (`#define name value`,
    /// then a space or the end of the line: not a longer number).
    fn assert_kernel_defines(name: &str, value: usize) {
        let define = format!("#define {name} {value}");
        let found = SOURCE.source.match_indices(&define).any(|(at, _)| {
            matches!(
                SOURCE.source[at + define.len()..].chars().next(),
                Some(' ' | '\n')
            )
        });
        assert!(found, "kernels/accessor_blas.cu lacks `{define}`");
    }

    /// The CSR-stream grid has a block per `CSR_STREAM_THREADS` rows, the
    /// kernel's rows per block: fewer rows per block in the kernel would leave
    /// rows unwritten, more would let a block start past the last row.
    #[test]
    fn the_csr_stream_grid_and_the_kernel_agree_on_rows_per_block() {
        assert_kernel_defines("CSR_STREAM_THREADS", CSR_STREAM_THREADS);
    }

    /// The launcher sizes the CSR grid by the kernel's rows per warp: the
    /// two numbers are one (a grid for more rows per warp than the kernel
    /// takes would leave rows unwritten).
    #[test]
    fn the_csr_grid_and_the_kernel_agree_on_rows_per_warp() {
        assert_kernel_defines("CSR_ROWS_PER_WARP", CSR_ROWS_PER_WARP);
        // warp_tree4 reduces exactly four rows.
        assert_eq!(CSR_ROWS_PER_WARP, 4);
        // The groups per warp only size the grid (Knob::CsrGroupsPerWarp: the launcher
        // reads them from the tuning the file was compiled with).
    }

    /// The pipelined TRSV kernel gives each of the launcher's TRSV_WARPS
    /// warps `TRSV_ROWS_PER_WARP` rows of a block row: together exactly the
    /// block row (fewer would leave rows unsolved and every later block row
    /// waiting on them).
    #[test]
    fn the_trsv_launch_and_the_kernel_agree_on_rows_per_warp() {
        use super::{TRSV_BLOCK, TRSV_WARPS};
        let rows_per_warp = TRSV_BLOCK / TRSV_WARPS;
        assert_eq!(rows_per_warp * TRSV_WARPS, TRSV_BLOCK);
        assert_kernel_defines("TRSV_ROWS_PER_WARP", rows_per_warp);
        // The kernel's rows are reduced by warp_tree4: four of them.
        assert_eq!(rows_per_warp, 4);
        // It stages x one entry per thread: TRSV_X_CHUNKS chunks of 32 are the block's
        // threads (more would leave chunks unloaded and read stale shared memory).
        assert_kernel_defines("TRSV_X_CHUNKS", TRSV_WARPS);
    }

    /// The threads per block in an entry point's `__launch_bounds__`, if it
    /// has them: `accessor_<entry>_##SN##_##AN` in the instantiation macro.
    fn launch_bound_threads(entry: &str) -> Option<usize> {
        let src = SOURCE.source;
        let at = src.find(&format!("accessor_{entry}_##SN##_##AN("))?;
        // The bounds stand between the `extern "C"` that opens this entry
        // point and its name (possibly on the line before, after a `\`).
        let opening = src[..at].rfind("extern \"C\"")?;
        let declaration = &src[opening..at];
        let bounds = declaration.find("__launch_bounds__(")? + "__launch_bounds__(".len();
        let digits: String = declaration[bounds..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok()
    }

    /// Every entry point launched with launch bounds is launched with exactly
    /// the block size the bounds name: more threads would fail to launch,
    /// fewer would leave the minimum blocks per SM, and the registers ptxas
    /// chose for them, meaning something else (the bounds are what keeps the
    /// batched loads of DOT, GEMV^T and SpMV issued before their FMAs:
    /// kernels/accessor_blas.cu).
    #[test]
    fn launch_bounds_name_the_launchers_block_sizes() {
        use super::{CSR_STREAM_THREADS, ELL_THREADS, ROW_WARPS};
        use crate::kernels::accessor::gemv::TRANSPOSED_GROUPS;
        use crate::kernels::accessor::order::{DOT_THREADS, WARP};
        let expected = [
            ("dot_blocks", DOT_THREADS),
            ("gemv_t", WARP * TRANSPOSED_GROUPS),
            ("spmv_csr", ROW_WARPS * WARP),
            ("spmv_ell", ELL_THREADS),
            ("spmv_csr_stream", CSR_STREAM_THREADS),
            ("trsv_rows", super::TRSV_WARPS * WARP),
        ];
        for (entry, threads) in expected {
            assert_eq!(
                launch_bound_threads(entry),
                Some(threads),
                "accessor_{entry}: launch bounds against the launcher's block size"
            );
        }
        // The parser itself: an entry point without bounds has none.
        assert_eq!(launch_bound_threads("gemv_n"), None);
    }
}
