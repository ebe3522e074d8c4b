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

/// The kernel source, embedded like the other `kernels/*.cu`.
pub const SOURCE: KernelSource = sources::ACCESSOR_BLAS;

/// Threads per block of the GEMV (`op(A) = A`) and CSR SpMV kernels: 8 warps,
/// a warp per row.
const ROW_WARPS: usize = 8;
/// Threads per block of the ELL SpMV kernel (a thread per row).
const ELL_THREADS: usize = 256;

/// The storage/arithmetic pairs `kernels/accessor_blas.cu` instantiates, in
/// the order of its `ACCESSOR_KERNELS` lines: (storage, fp64 arithmetic?).
const PAIRS: [(StorageKind, bool); 7] = [
    (StorageKind::Fp64, true),
    (StorageKind::Fp32, true),
    (StorageKind::Fp32, false),
    (StorageKind::Fp16, true),
    (StorageKind::Fp16, false),
    (StorageKind::Bf16, true),
    (StorageKind::Bf16, false),
];

/// The kernel `accessor_<k>_<storage>_<arith>` for every pair, in [`PAIRS`] order.
macro_rules! kernel_names {
    ($k:literal) => {
        [
            concat!("accessor_", $k, "_f64_f64"),
            concat!("accessor_", $k, "_f32_f64"),
            concat!("accessor_", $k, "_f32_f32"),
            concat!("accessor_", $k, "_f16_f64"),
            concat!("accessor_", $k, "_f16_f32"),
            concat!("accessor_", $k, "_bf16_f64"),
            concat!("accessor_", $k, "_bf16_f32"),
        ]
    };
}

const DOT_BLOCKS: [&str; 7] = kernel_names!("dot_blocks");
const DOT_FINAL: [&str; 7] = kernel_names!("dot_final");
const GEMV_N: [&str; 7] = kernel_names!("gemv_n");
const GEMV_T: [&str; 7] = kernel_names!("gemv_t");
const SPMV_CSR: [&str; 7] = kernel_names!("spmv_csr");
const SPMV_ELL: [&str; 7] = kernel_names!("spmv_ell");
const TRSV_INVERT: [&str; 7] = kernel_names!("trsv_invert");
const TRSV_SOLVE: [&str; 7] = kernel_names!("trsv_solve");
const ROOFLINE: [&str; 7] = kernel_names!("roofline");

/// A storage/arithmetic pair the kernel file instantiates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuPair {
    index: usize,
}

impl GpuPair {
    /// The pair of `spec`, if the GPU kernels implement it: floating-point
    /// storage contained in fp64 or fp32 arithmetic, round-to-nearest-even
    /// writes, no flush to zero.
    ///
    /// # Errors
    /// [`GpuError::Input`] with [`VerifyError::InvalidParameter`] naming the
    /// field the kernels do not implement (integer storage, another write
    /// mode, `ftz`), or the spec's own validation error.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::GpuPair;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    /// assert_eq!(GpuPair::of(&spec).unwrap().suffix(), "f16_f32");
    /// let int8 = AccessorSpec::new(StorageKind::Int8, Format::FP64).unwrap();
    /// assert!(GpuPair::of(&int8).is_err());
    /// ```
    pub fn of(spec: &AccessorSpec) -> Result<GpuPair, GpuError> {
        spec.validate()?;
        if spec.storage.float_format().is_none() {
            return Err(VerifyError::invalid(
                "storage",
                spec.storage.name(),
                "the GPU kernels implement floating-point storage only (fp64, fp32, fp16, bf16)",
            )
            .into());
        }
        if spec.write_mode != RoundingMode::NearestEven {
            return Err(VerifyError::invalid(
                "write",
                format!("{:?}", spec.write_mode),
                "the GPU kernels write with round to nearest even only",
            )
            .into());
        }
        if spec.ftz {
            return Err(VerifyError::invalid(
                "ftz",
                true,
                "the GPU kernels keep subnormals (no flush to zero)",
            )
            .into());
        }
        let f64_arith = spec.arithmetic == Format::FP64;
        PAIRS
            .iter()
            .position(|&(s, a)| s == spec.storage && a == f64_arith)
            .map(|index| GpuPair { index })
            .ok_or_else(|| {
                VerifyError::invalid(
                    "storage",
                    spec.storage.name(),
                    format!("no GPU kernel for arithmetic {}", spec.arithmetic.name()),
                )
                .into()
            })
    }

    /// The storage kind.
    pub fn storage(self) -> StorageKind {
        PAIRS[self.index].0
    }

    /// The arithmetic format.
    pub fn arithmetic(self) -> Format {
        if PAIRS[self.index].1 {
            Format::FP64
        } else {
            Format::FP32
        }
    }

    /// The kernels' name suffix, e.g. `f32_f64`.
    pub fn suffix(self) -> &'static str {
        DOT_BLOCKS[self.index]
            .strip_prefix("accessor_dot_blocks_")
            .expect("every name has the prefix")
    }

    fn storage_bytes(self) -> usize {
        self.storage().bytes()
    }

    fn arith_bytes(self) -> usize {
        if PAIRS[self.index].1 { 8 } else { 4 }
    }

    /// Storage bit patterns of values of the storage format (little-endian).
    fn encode(self, values: &[f64]) -> Vec<u8> {
        let mut out = Vec::with_capacity(values.len() * self.storage_bytes());
        for &v in values {
            // Every value is a number of the storage format (the accessor
            // stored it), so each conversion below is exact (`half`'s
            // conversions may round twice on inexact values,
            // docs/findings/half-crate.md; these are exact).
            match self.storage() {
                StorageKind::Fp64 => out.extend(v.to_le_bytes()),
                StorageKind::Fp32 => out.extend((v as f32).to_le_bytes()),
                StorageKind::Fp16 => out.extend(half::f16::from_f64(v).to_bits().to_le_bytes()),
                _ => out.extend(half::bf16::from_f64(v).to_bits().to_le_bytes()),
            }
        }
        out
    }

    /// Values of storage bit patterns (exact).
    fn decode_storage(self, bytes: &[u8]) -> Vec<f64> {
        let kind = self.storage();
        bytes
            .chunks_exact(self.storage_bytes())
            .map(|c| match kind {
                StorageKind::Fp64 => f64::from_le_bytes(c.try_into().expect("8 bytes")),
                StorageKind::Fp32 => f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))),
                StorageKind::Fp16 => {
                    half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64()
                }
                _ => half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64(),
            })
            .collect()
    }

    /// Values of arithmetic-format bytes (exact).
    fn decode_arith(self, bytes: &[u8]) -> Vec<f64> {
        if PAIRS[self.index].1 {
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect()
        } else {
            bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))))
                .collect()
        }
    }

    /// A scalar of the arithmetic format, as the kernels take it by value.
    fn scalar(self, v: f64) -> Result<Scalar, GpuError> {
        self.arithmetic().require_values(&[v])?;
        Ok(if PAIRS[self.index].1 {
            Scalar::F64(v)
        } else {
            Scalar::F32(v as f32)
        })
    }
}

/// A kernel argument of type `A::T`.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    F64(f64),
    F32(f32),
}

fn push_scalar<'a>(builder: &mut LaunchArgs<'a>, s: &'a Scalar) {
    match s {
        Scalar::F64(v) => builder.arg(v),
        Scalar::F32(v) => builder.arg(v),
    };
}

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

/// `kernels/accessor_blas.cu` compiled for device 0 and loaded there.
pub struct AccessorGpu {
    pub(super) dev: KernelModule,
}

/// Device buffers and functions of one DOT.
struct DotLaunch {
    blocks_fn: CudaFunction,
    final_fn: CudaFunction,
    x: CudaSlice<u8>,
    y: CudaSlice<u8>,
    n: u64,
    config: GridConfig,
    partials: CudaSlice<u8>,
    out: CudaSlice<u8>,
    out_stored: CudaSlice<u8>,
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

struct GemvLaunch {
    function: CudaFunction,
    trans: Transpose,
    m: u64,
    n: u64,
    a: CudaSlice<u8>,
    x: CudaSlice<u8>,
    out: VectorOutputs,
}

struct SpmvLaunch {
    function: CudaFunction,
    format: SparseFormat,
    rows: u64,
    width: u64,
    row_ptr: CudaSlice<i32>,
    col_idx: CudaSlice<i32>,
    values: CudaSlice<u8>,
    x: CudaSlice<u8>,
    out: VectorOutputs,
}

struct RooflineLaunch {
    function: CudaFunction,
    n: u64,
    n_usize: usize,
    k: u32,
    a: Scalar,
    b: Scalar,
    x: CudaSlice<u8>,
    y: CudaSlice<u8>,
}

struct TrsvLaunch {
    invert_fn: CudaFunction,
    solve_fn: CudaFunction,
    n: u64,
    n_usize: usize,
    upper: i32,
    unit: i32,
    a: CudaSlice<u8>,
    b: CudaSlice<u8>,
    inv: CudaSlice<u8>,
    x: CudaSlice<u8>,
    x_stored: CudaSlice<u8>,
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
        catch(|| {
            Ok(AccessorGpu {
                dev: KernelModule::open(&SOURCE)?,
            })
        })
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

    fn prepare_dot(
        &self,
        spec: &AccessorSpec,
        x: &[f64],
        y: &[f64],
    ) -> Result<DotLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_nonempty("x", x)?;
        require_same_len("x and y", x.len(), y.len())?;
        let config = GridConfig::for_len(x.len());
        Ok(DotLaunch {
            blocks_fn: self.dev.function(DOT_BLOCKS[pair.index])?,
            final_fn: self.dev.function(DOT_FINAL[pair.index])?,
            x: self.store(spec, pair, x)?,
            y: self.store(spec, pair, y)?,
            n: x.len() as u64,
            config,
            partials: self.dev.zeros::<u8>(config.blocks * pair.arith_bytes())?,
            out: self.dev.zeros::<u8>(pair.arith_bytes())?,
            out_stored: self.dev.zeros::<u8>(pair.storage_bytes())?,
        })
    }

    fn launch_dot(&self, d: &mut DotLaunch) -> Result<(), GpuError> {
        let count = d.config.blocks as u32;
        // SAFETY: the argument lists match accessor_dot_blocks_* and
        // accessor_dot_final_* in kernels/accessor_blas.cu (storage pointers
        // are raw byte buffers of n elements of the storage type, 256-byte
        // aligned device allocations); partials holds one arithmetic value per
        // block of the first launch, out one, out_stored one storage element;
        // the final launch has DOT_FINAL_THREADS >= blocks threads (the kernel
        // pads the partials beyond `count` with zeros), as order::grid_dot
        // models it.
        unsafe {
            self.dev
                .stream
                .launch_builder(&d.blocks_fn)
                .arg(&d.x)
                .arg(&d.y)
                .arg(&d.n)
                .arg(&mut d.partials)
                .launch(config(d.config.blocks, (DOT_THREADS as u32, 1)))
                .map_err(driver("launch accessor_dot_blocks"))?;
            self.dev
                .stream
                .launch_builder(&d.final_fn)
                .arg(&d.partials)
                .arg(&count)
                .arg(&mut d.out)
                .arg(&mut d.out_stored)
                .launch(config(1, (DOT_FINAL_THREADS as u32, 1)))
                .map_err(driver("launch accessor_dot_final"))?;
        }
        Ok(())
    }

    /// The DOT kernels on `x` and `y` stored through `spec` (the CPU model is
    /// [`accessor_dot`](super::dot::accessor_dot) with `store = true`).
    ///
    /// # Errors
    /// As [`GpuPair::of`]; empty or mismatched inputs; device errors.
    pub fn dot(&self, spec: &AccessorSpec, x: &[f64], y: &[f64]) -> Result<GpuDot, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut d = self.prepare_dot(spec, x, y)?;
            self.launch_dot(&mut d)?;
            self.sync()?;
            Ok(GpuDot {
                before_store: pair.decode_arith(&self.dev.download(&d.out)?)[0],
                output: pair.decode_storage(&self.dev.download(&d.out_stored)?)[0],
                config: d.config,
            })
        })
    }

    // ----------------------------------------------------------- GEMV, SPMV

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

    fn prepare_gemv(
        &self,
        spec: &AccessorSpec,
        op: GemvOp,
        a: &[f64],
        (rows, cols): (usize, usize),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<GemvLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        let size = rows.checked_mul(cols).ok_or_else(|| {
            VerifyError::invalid("rows x cols", format!("{rows} x {cols}"), "overflows")
        })?;
        require_same_len("A and rows x cols", a.len(), size)?;
        let (inner, outer, names) = match op.trans {
            Transpose::No => (cols, rows, &GEMV_N),
            Transpose::Yes => (rows, cols, &GEMV_T),
        };
        require_same_len("x and the columns of op(A)", x.len(), inner)?;
        Ok(GemvLaunch {
            function: self.dev.function(names[pair.index])?,
            trans: op.trans,
            m: rows as u64,
            n: cols as u64,
            a: self.store(spec, pair, a)?,
            x: self.store(spec, pair, x)?,
            out: self.outputs(spec, pair, (op.alpha, op.beta), y, outer)?,
        })
    }

    fn launch_gemv(&self, g: &mut GemvLaunch) -> Result<(), GpuError> {
        if g.out.len == 0 {
            return Ok(());
        }
        let cfg = match g.trans {
            // 8 warps per block, a warp per row.
            Transpose::No => config(
                blocks_for(g.out.len, ROW_WARPS)?,
                ((ROW_WARPS * WARP) as u32, 1),
            ),
            // 32 columns x 8 row groups per block.
            Transpose::Yes => config(
                blocks_for(g.out.len, WARP)?,
                (WARP as u32, super::gemv::TRANSPOSED_GROUPS as u32),
            ),
        };
        let mut builder = self.dev.stream.launch_builder(&g.function);
        builder.arg(&g.m).arg(&g.n);
        push_scalar(&mut builder, &g.out.alpha);
        builder.arg(&g.a).arg(&g.x);
        push_scalar(&mut builder, &g.out.beta);
        builder
            .arg(&g.out.y0)
            .arg(&mut g.out.y_arith)
            .arg(&mut g.out.y);
        // SAFETY: the argument list matches accessor_gemv_n_* / accessor_gemv_t_*
        // (index_t m, n; A::T alpha; a, x; A::T beta; y0, y_arith, y): a holds
        // m x n storage elements, x the inner dimension, y0 (read only when
        // beta != 0) and y the outer one in the storage format, y_arith the
        // outer one in the arithmetic format; the grid covers the outer
        // dimension (rows: 8 per block, columns: 32 per block).
        unsafe { builder.launch(cfg) }.map_err(driver("launch accessor_gemv"))?;
        Ok(())
    }

    /// The GEMV kernel (`op(A) = A`: a warp per row; `A^T`: 32 x 8 threads per
    /// 32 columns) on operands stored through `spec`; the CPU model is
    /// [`accessor_gemv`](super::gemv::accessor_gemv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; shape mismatches; `alpha`/`beta` outside the
    /// arithmetic format; a missing `y` with `beta != 0`; device errors.
    pub fn gemv(
        &self,
        spec: &AccessorSpec,
        op: GemvOp,
        a: &[f64],
        shape: (usize, usize),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<GpuVector, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut g = self.prepare_gemv(spec, op, a, shape, x, y)?;
            self.launch_gemv(&mut g)?;
            self.read_outputs(pair, &g.out)
        })
    }

    fn prepare_spmv(
        &self,
        spec: &AccessorSpec,
        a: &CsrMatrix,
        format: SparseFormat,
        scalars: (f64, f64),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<SpmvLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_same_len("x and the columns of A", x.len(), a.cols())?;
        let rows = a.rows();
        // The values go through the accessor in CSR order; ELL reorders the
        // stored values into its column-major slots (padding: index -1, value 0).
        let stored = spec.for_data(a.values())?.store(a.values())?.values;
        let col_int = to_int("column index", a.col_idx())?;
        let (names, row_ptr, col_idx, values, width) = match format {
            SparseFormat::Csr => (
                &SPMV_CSR,
                to_int("row pointer", a.row_ptr())?,
                col_int,
                stored,
                0,
            ),
            SparseFormat::Ell => {
                let width = a.max_row_len();
                let slots = rows.checked_mul(width).ok_or_else(|| {
                    VerifyError::invalid("rows x width", format!("{rows} x {width}"), "overflows")
                })?;
                let mut cols = vec![-1i32; slots];
                let mut vals = vec![0.0; slots];
                for i in 0..rows {
                    let start = a.row_ptr()[i];
                    for k in 0..a.row_len(i) {
                        cols[k * rows + i] = col_int[start + k];
                        vals[k * rows + i] = stored[start + k];
                    }
                }
                (&SPMV_ELL, Vec::new(), cols, vals, width)
            }
        };
        let bytes = pair.encode(&values);
        Ok(SpmvLaunch {
            function: self.dev.function(names[pair.index])?,
            format,
            rows: rows as u64,
            width: width as u64,
            row_ptr: self.upload_ints(&row_ptr)?,
            col_idx: self.upload_ints(&col_idx)?,
            values: if bytes.is_empty() {
                self.dev.zeros::<u8>(pair.storage_bytes())?
            } else {
                self.dev.upload(&bytes)?
            },
            x: self.store(spec, pair, x)?,
            out: self.outputs(spec, pair, scalars, y, rows)?,
        })
    }

    fn launch_spmv(&self, s: &mut SpmvLaunch) -> Result<(), GpuError> {
        if s.out.len == 0 {
            return Ok(());
        }
        let mut builder = self.dev.stream.launch_builder(&s.function);
        let cfg = match s.format {
            SparseFormat::Csr => {
                builder.arg(&s.rows).arg(&s.row_ptr).arg(&s.col_idx);
                config(
                    blocks_for(s.out.len, ROW_WARPS)?,
                    ((ROW_WARPS * WARP) as u32, 1),
                )
            }
            SparseFormat::Ell => {
                builder.arg(&s.rows).arg(&s.width).arg(&s.col_idx);
                config(blocks_for(s.out.len, ELL_THREADS)?, (ELL_THREADS as u32, 1))
            }
        };
        builder.arg(&s.values).arg(&s.x);
        push_scalar(&mut builder, &s.out.alpha);
        push_scalar(&mut builder, &s.out.beta);
        builder
            .arg(&s.out.y0)
            .arg(&mut s.out.y_arith)
            .arg(&mut s.out.y);
        // SAFETY: the argument lists match accessor_spmv_csr_* (index_t rows;
        // int row_ptr[rows + 1], col_idx[nnz]; values[nnz]; ...) and
        // accessor_spmv_ell_* (index_t rows, width; int col_idx[width x rows],
        // -1 for padding; values[width x rows]; ...), then x (cols storage
        // elements), A::T alpha, beta, y0, y_arith, y (rows each); every column
        // index is below cols; CSR: a warp per row, 8 per block; ELL: a thread
        // per row.
        unsafe { builder.launch(cfg) }.map_err(driver("launch accessor_spmv"))?;
        Ok(())
    }

    /// The SpMV kernel (CSR: a warp per row; ELL: a thread per row) on `A`'s
    /// values, `x` and `y` stored through `spec`; the CPU model is
    /// [`accessor_spmv`](super::spmv::accessor_spmv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; shape mismatches; scalars outside the arithmetic
    /// format; a missing `y` with `beta != 0`; indices beyond `int`; device
    /// errors.
    pub fn spmv(
        &self,
        spec: &AccessorSpec,
        a: &CsrMatrix,
        format: SparseFormat,
        scalars: (f64, f64),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<GpuVector, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut s = self.prepare_spmv(spec, a, format, scalars, x, y)?;
            self.launch_spmv(&mut s)?;
            self.read_outputs(pair, &s.out)
        })
    }

    // ------------------------------------------------------------------ TRSV

    fn prepare_trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        uplo: Uplo,
        diag: Diag,
    ) -> Result<TrsvLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_nonempty("b", b)?;
        let size = n
            .checked_mul(n)
            .ok_or_else(|| VerifyError::invalid("n", n, "n x n overflows"))?;
        require_same_len("A and n x n", a.len(), size)?;
        require_same_len("b and n", b.len(), n)?;
        let acc = spec.for_data(a)?;
        if diag == Diag::NonUnit {
            // As the CPU model: a zero on the diagonal, as given or as stored,
            // is a singular system (the kernel would divide by it).
            for i in 0..n {
                let v = a[i * n + i];
                if v == 0.0 || acc.write_ieee(v)? == 0.0 {
                    return Err(VerifyError::invalid(
                        &format!("a[{i}][{i}]"),
                        v,
                        "zero on the diagonal (as given or as stored): the triangular system is singular",
                    )
                    .into());
                }
            }
        }
        let blocks = n.div_ceil(TRSV_BLOCK);
        Ok(TrsvLaunch {
            invert_fn: self.dev.function(TRSV_INVERT[pair.index])?,
            solve_fn: self.dev.function(TRSV_SOLVE[pair.index])?,
            n: n as u64,
            n_usize: n,
            upper: i32::from(uplo == Uplo::Upper),
            unit: i32::from(diag == Diag::Unit),
            a: self.store(spec, pair, a)?,
            b: self.store(spec, pair, b)?,
            inv: self
                .dev
                .zeros::<u8>(blocks * TRSV_BLOCK * TRSV_BLOCK * pair.arith_bytes())?,
            x: self.dev.zeros::<u8>(n * pair.arith_bytes())?,
            x_stored: self.dev.zeros::<u8>(n * pair.storage_bytes())?,
        })
    }

    fn launch_trsv(&self, t: &mut TrsvLaunch) -> Result<(), GpuError> {
        // SAFETY: the argument lists match accessor_trsv_invert_* (index_t n;
        // a[n x n]; int upper, unit; A::T inv[blocks x 32 x 32]) with one warp
        // per diagonal block, and accessor_trsv_solve_* (index_t n; a; b[n];
        // int upper; inv; A::T x[n]; x_stored[n]) with one block of
        // TRSV_WARPS warps; the solve follows the inversion on the same stream.
        unsafe {
            self.dev
                .stream
                .launch_builder(&t.invert_fn)
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.upper)
                .arg(&t.unit)
                .arg(&mut t.inv)
                .launch(config(blocks_for(t.n_usize, TRSV_BLOCK)?, (WARP as u32, 1)))
                .map_err(driver("launch accessor_trsv_invert"))?;
            self.dev
                .stream
                .launch_builder(&t.solve_fn)
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.b)
                .arg(&t.upper)
                .arg(&t.inv)
                .arg(&mut t.x)
                .arg(&mut t.x_stored)
                .launch(config(1, ((TRSV_WARPS * WARP) as u32, 1)))
                .map_err(driver("launch accessor_trsv_solve"))?;
        }
        Ok(())
    }

    /// The blocked TRSV kernels (invert the diagonal blocks, then solve block
    /// by block) on `T` and `b` stored through `spec`; the CPU model is
    /// [`accessor_trsv`](super::trsv::accessor_trsv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; `n = 0`, shape mismatches; a zero on the diagonal
    /// (non-unit), as given or as stored; device errors.
    pub fn trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        uplo: Uplo,
        diag: Diag,
    ) -> Result<GpuTrsv, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut t = self.prepare_trsv(spec, a, n, b, uplo, diag)?;
            self.launch_trsv(&mut t)?;
            self.sync()?;
            let inv = pair.decode_arith(&self.dev.download(&t.inv)?);
            let x_pos = pair.decode_arith(&self.dev.download(&t.x)?);
            let x_stored = pair.decode_storage(&self.dev.download(&t.x_stored)?);
            let row = |p: usize| match uplo {
                Uplo::Lower => p,
                Uplo::Upper => n - 1 - p,
            };
            let mut before_store = vec![0.0; n];
            for p in 0..n {
                before_store[row(p)] = x_pos[p];
            }
            // The kernel keeps each block's inverse at a stride of 32; the CPU
            // model packs it as m x m.
            let inverses = (0..n.div_ceil(TRSV_BLOCK))
                .map(|k| {
                    let m = TRSV_BLOCK.min(n - k * TRSV_BLOCK);
                    let base = k * TRSV_BLOCK * TRSV_BLOCK;
                    let mut y = vec![0.0; m * m];
                    for r in 0..m {
                        for c in 0..=r {
                            y[r * m + c] = inv[base + r * TRSV_BLOCK + c];
                        }
                    }
                    y
                })
                .collect();
            Ok(GpuTrsv {
                inverses,
                before_store,
                output: x_stored[..n].to_vec(),
            })
        })
    }

    // ------------------------------------------------------------- ROOFLINE

    fn prepare_roofline(
        &self,
        spec: &AccessorSpec,
        x: &[f64],
        k: usize,
    ) -> Result<RooflineLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        if x.is_empty() {
            return Err(
                VerifyError::invalid("x", 0, "the roofline needs at least one value").into(),
            );
        }
        let k = u32::try_from(k).map_err(|_| {
            GpuError::Input(VerifyError::invalid(
                "k",
                k,
                "at most 2^32 - 1 multiply-adds per value",
            ))
        })?;
        Ok(RooflineLaunch {
            function: self.dev.function(ROOFLINE[pair.index])?,
            n: x.len() as u64,
            n_usize: x.len(),
            k,
            a: pair.scalar(super::roofline::MULTIPLIER)?,
            b: pair.scalar(super::roofline::ADDEND)?,
            x: self.store(spec, pair, x)?,
            y: self.dev.zeros::<u8>(x.len() * pair.storage_bytes())?,
        })
    }

    fn launch_roofline(&self, r: &mut RooflineLaunch) -> Result<(), GpuError> {
        // A grid-stride loop: at most 1024 blocks of 256 threads.
        let cfg = config(blocks_for(r.n_usize, 256)?.min(1024), (256, 1));
        let mut builder = self.dev.stream.launch_builder(&r.function);
        builder.arg(&r.x).arg(&mut r.y).arg(&r.n).arg(&r.k);
        push_scalar(&mut builder, &r.a);
        push_scalar(&mut builder, &r.b);
        // SAFETY: the argument list matches accessor_roofline_* (x, y, index_t n,
        // unsigned int k, A::T a, A::T b); x and y hold n storage elements.
        unsafe { builder.launch(cfg) }.map_err(driver("launch accessor_roofline"))?;
        Ok(())
    }

    /// The roofline kernel (`y_i = w(f^k(r(x_i)))`, `f(v) = fl(fl(v a) + b)`,
    /// a thread per value) on `x` stored through `spec`: the stored outputs,
    /// read back. The CPU model is [`accessor_kernel`](super::roofline::accessor_kernel),
    /// bit for bit (the same two roundings per step).
    ///
    /// # Errors
    /// As [`GpuPair::of`]; an empty `x`; `k >= 2^32`; device errors.
    pub fn roofline(&self, spec: &AccessorSpec, x: &[f64], k: usize) -> Result<Vec<f64>, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut r = self.prepare_roofline(spec, x, k)?;
            self.launch_roofline(&mut r)?;
            self.sync()?;
            let mut out = pair.decode_storage(&self.dev.download(&r.y)?);
            out.truncate(r.n_usize);
            Ok(out)
        })
    }

    // ---------------------------------------------------------------- timing

    pub(super) fn time_launches(
        &self,
        kernel: String,
        repetitions: usize,
        bytes: u64,
        mut launch: impl FnMut() -> Result<(), GpuError>,
    ) -> Result<Timing, GpuError> {
        crate::gpu::timing::require_repetitions(repetitions)?;
        // One untimed launch: module loading, caches and clocks settle.
        launch()?;
        self.sync()?;
        // Timing events (the default flags of cudarc disable timing).
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self
            .dev
            .stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        for _ in 0..repetitions {
            launch()?;
        }
        let end = self
            .dev
            .stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(driver("cuEventElapsedTime"))?;
        let seconds = f64::from(ms) / 1e3 / repetitions as f64;
        Ok(Timing {
            kernel,
            repetitions,
            seconds,
            bytes,
            gb_per_s: bytes as f64 / seconds / 1e9,
        })
    }

    /// Times `repetitions` launches of the workload's kernel(s) on operands
    /// stored through `spec` (uploaded once, outside the timing) with CUDA
    /// events, after one warm-up launch. `bytes` counts every value the
    /// kernels must move once: the stored operands read (ELL: padding
    /// included; CSR: values, column indices and row pointers; TRSV: the
    /// triangle, diagonal included, and `b`), `y` read when `beta != 0`, and
    /// the outputs written (both the arithmetic-format result and the stored
    /// one, as the kernels write both); `x` of SpMV counted once. Partial sums
    /// of DOT and the inverses of TRSV are not counted.
    ///
    /// # Errors
    /// As the workload's launcher; `repetitions = 0`; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::{AccessorGpu, Workload};
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let gpu = AccessorGpu::open().unwrap();
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
    /// let x = vec![0.5; 1 << 24];
    /// let t = gpu.time(&spec, &Workload::Dot { x: &x, y: &x }, 20).unwrap();
    /// println!("{} GB/s", t.gb_per_s);
    /// ```
    pub fn time(
        &self,
        spec: &AccessorSpec,
        workload: &Workload<'_>,
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let (s, ar) = (pair.storage_bytes() as u64, pair.arith_bytes() as u64);
            match *workload {
                Workload::Dot { x, y } => {
                    let mut d = self.prepare_dot(spec, x, y)?;
                    let bytes = 2 * x.len() as u64 * s;
                    let name = DOT_BLOCKS[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_dot(&mut d))
                }
                Workload::Gemv { a, shape, x, op, y } => {
                    let mut g = self.prepare_gemv(spec, op, a, shape, x, y)?;
                    let outer = g.out.len as u64;
                    let y_read = if op.beta != 0.0 { outer * s } else { 0 };
                    let bytes = (a.len() + x.len()) as u64 * s + y_read + outer * (s + ar);
                    let names = match op.trans {
                        Transpose::No => &GEMV_N,
                        Transpose::Yes => &GEMV_T,
                    };
                    let name = names[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_gemv(&mut g))
                }
                Workload::Spmv {
                    a,
                    format,
                    x,
                    scalars,
                    y,
                } => {
                    let mut sp = self.prepare_spmv(spec, a, format, scalars, x, y)?;
                    let rows = a.rows() as u64;
                    let (matrix, name) = match format {
                        SparseFormat::Csr => (
                            a.nnz() as u64 * (s + 4) + (rows + 1) * 4,
                            SPMV_CSR[pair.index],
                        ),
                        SparseFormat::Ell => (
                            rows * a.max_row_len() as u64 * (s + 4),
                            SPMV_ELL[pair.index],
                        ),
                    };
                    let y_read = if scalars.1 != 0.0 { rows * s } else { 0 };
                    let bytes = matrix + x.len() as u64 * s + y_read + rows * (s + ar);
                    self.time_launches(name.to_string(), repetitions, bytes, || {
                        self.launch_spmv(&mut sp)
                    })
                }
                Workload::Roofline { x, k } => {
                    let mut r = self.prepare_roofline(spec, x, k)?;
                    // x read and y written once, in the storage format.
                    let bytes = 2 * x.len() as u64 * s;
                    let name = ROOFLINE[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_roofline(&mut r))
                }
                Workload::Trsv {
                    a,
                    n,
                    b,
                    uplo,
                    diag,
                } => {
                    let mut t = self.prepare_trsv(spec, a, n, b, uplo, diag)?;
                    let n64 = n as u64;
                    let bytes = n64 * (n64 + 1) / 2 * s + n64 * s + n64 * (s + ar);
                    let name = TRSV_SOLVE[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_trsv(&mut t))
                }
            }
        })
    }

    /// The device's copy bandwidth: `repetitions` device-to-device copies of
    /// `bytes` bytes (`cuMemcpyDtoDAsync`), timed with CUDA events; a copy
    /// reads and writes, so it moves `2 bytes`.
    ///
    /// # Errors
    /// `bytes = 0` or `repetitions = 0`; device errors (out of memory).
    pub fn copy_bandwidth(&self, bytes: usize, repetitions: usize) -> Result<Timing, GpuError> {
        catch(|| {
            if bytes == 0 {
                return Err(VerifyError::invalid("bytes", 0, "must be at least 1").into());
            }
            let src = self.dev.zeros::<u8>(bytes)?;
            let mut dst = self.dev.zeros::<u8>(bytes)?;
            let stream = self.dev.stream.clone();
            self.time_launches("copy".into(), repetitions, 2 * bytes as u64, || {
                stream
                    .memcpy_dtod(&src, &mut dst)
                    .map_err(driver("cuMemcpyDtoDAsync"))
            })
        })
    }
}
