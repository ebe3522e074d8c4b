//! Quantization on the device: absmax per line (coalesced along rows), scales,
//! `residual_quantize` (integers row-major; a residual's maxima, or the
//! residual itself recomputed from the operand and quantized), and the int8
//! transpose that gives `dp4a` its layout (Gu, Algorithm 1: the quantization
//! of A, B and of their residuals RA, RB).

use super::*;
use std::borrow::Cow;

/// One quantized operand on the device: integers (row-major as quantized,
/// and for an operand the GEMM reads transposed, `cols x kp`), scales, and
/// its residual's maxima if asked for.
pub(super) struct Quantized {
    /// The integers row-major (`rows x rows_ld`), as `residual_quantize`
    /// wrote them: A's and RA's padded to `kp` (the GEMM's layout too), B's
    /// and RB's unpadded (the sparse product `A^r RB` reads RB's rows).
    rows: CudaSlice<i8>,
    /// The row length of `rows`.
    rows_ld: usize,
    /// `rows x cols` of the quantized matrix.
    shape: (usize, usize),
    /// How the GEMM reads the integers, with the transpose made at once.
    gemm_form: GemmForm,
    /// One scale per line (row, column, or one for the tensor).
    pub(super) scales: CudaSlice<f32>,
    /// `max |x - dq(q)|` per line, found by `residual_quantize` as it
    /// quantizes (asked for by [`Level::Operand`]): the residual's
    /// quantization ([`Level::Residual`]) takes it as its absmax.
    pub(super) residual_amax: Option<CudaSlice<f32>>,
}

/// How a GEMM reads a quantized operand, which decides what [`quantize`]
/// leaves on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// Row-major `rows x kp`, zero-padded (A, RA): written so directly.
    Rows,
    /// Transposed, `cols x kp` (B, RB for `dp4a` and the IMMA kernel):
    /// `residual_transpose_i8` of the row-major integers, at once.
    Columns,
    /// As `Columns`, but the transpose is left until a GEMM needs it
    /// ([`Quantized::gemm_operand`]): RB in the sparse method, whose
    /// product `P1 = A' RB'` is a GEMM only when `A^r` is not sparser than
    /// eta (until 2026-11-27 RB was always transposed, 37 us of the sparse
    /// path at 4096^2 on the H100, a pass the sparse products never read).
    ColumnsOnDemand,
}

/// What [`quantize`] left for the GEMM, by [`Layout`].
enum GemmForm {
    /// [`Layout::Rows`]: the row-major integers themselves.
    Rows,
    /// [`Layout::Columns`]: their transpose (`cols x kp`).
    Columns(CudaSlice<i8>),
    /// [`Layout::ColumnsOnDemand`]: nothing yet; each
    /// [`Quantized::gemm_operand`] that asks transposes them anew.
    ColumnsOnDemand,
}

impl Quantized {
    /// The row-major integers (`rows x rows_ld`).
    pub(super) fn rows(&self) -> &CudaSlice<i8> {
        &self.rows
    }

    /// How the GEMM reads the integers.
    pub(super) fn layout(&self) -> Layout {
        match self.gemm_form {
            GemmForm::Rows => Layout::Rows,
            GemmForm::Columns(_) => Layout::Columns,
            GemmForm::ColumnsOnDemand => Layout::ColumnsOnDemand,
        }
    }

    /// The integers as the GEMM reads them: the row-major ones of a
    /// [`Layout::Rows`] operand, the transposed ones of the others,
    /// transposed now where [`Layout::ColumnsOnDemand`] left them.
    pub(super) fn gemm_operand(
        &self,
        dev: &Device,
        kp: usize,
    ) -> Result<Cow<'_, CudaSlice<i8>>, GpuError> {
        // Each ask transposes a ColumnsOnDemand operand anew (nothing is
        // cached: one GEMM at most reads RB in a timed run; a comparison run
        // of the full method transposes it twice).
        Ok(match &self.gemm_form {
            GemmForm::Rows => Cow::Borrowed(&self.rows),
            GemmForm::Columns(columns) => Cow::Borrowed(columns),
            GemmForm::ColumnsOnDemand => Cow::Owned(transpose(dev, &self.rows, self.shape, kp)?),
        })
    }
}

/// What [`quantize`] quantizes.
pub(super) enum Level<'q> {
    /// The operand `x` itself; with `residual_maxima`, the maxima of its
    /// residual too.
    Operand {
        /// Whether to find `max |x - dq(q)|` per line.
        residual_maxima: bool,
    },
    /// The residual `R = fl(x - fl(q / lambda))` of the quantized operand
    /// `of`, recomputed from `x` and `of`'s integers inside the kernel (the
    /// same operations on the same operands as the first pass, so the same
    /// floats), with `amax` its maxima from that pass. Until 2026-11-27 the
    /// first pass stored R (rows x cols floats) and this one read it: a
    /// float write and read per element where this reads the operand and a
    /// byte.
    Residual {
        /// The operand's quantization.
        of: &'q Quantized,
        /// `max |R|` per line.
        amax: CudaSlice<f32>,
    },
}

/// Rows each thread of `residual_quantize` walks: with a residual, a thread
/// makes one atomic maximum per column for all of them (scales per column),
/// so few threads per column keep the atomics few (about 256 per column at
/// 4096 rows).
const QUANTIZE_ROWS_PER_THREAD: usize = 16;

/// The launch of `residual_absmax_strided`: blocks of 32 x 8 threads, one
/// block column per 32 columns, enough block rows that each thread walks
/// about 32 rows (at most 1024).
pub(super) fn strided_absmax_launch(rows: usize, cols: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            cols.div_ceil(32).max(1) as u32,
            rows.div_ceil(8 * 32).clamp(1, 1024) as u32,
            1,
        ),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// The launch of `residual_transpose_i8` for a `rows x cols` source: one
/// block per 32 x 32 tile (tile rows beyond 65535 blocks by a stride loop).
pub(super) fn transpose_launch(rows: usize, cols: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            cols.div_ceil(32).max(1) as u32,
            crate::gpu::grid::clamp_grid_y(rows.div_ceil(32)),
            1,
        ),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// `residual_transpose_i8` of the row-major `rows x cols` integers into a
/// `cols x kp` buffer (`kp >= rows`; the padding rows zero).
fn transpose(
    dev: &Device,
    q_rows: &CudaSlice<i8>,
    (rows, cols): (usize, usize),
    kp: usize,
) -> Result<CudaSlice<i8>, GpuError> {
    let mut q = padded(dev, cols * kp, kp > rows)?;
    let f = dev.function("residual_transpose_i8")?;
    let (rows64, cols64, kp64) = (rows as u64, cols as u64, kp as u64);
    // SAFETY: residual_transpose_i8's signature; q_rows holds rows x cols
    // bytes, q cols x kp with kp >= rows (the padding zeroed where there is
    // any, never written).
    unsafe {
        dev.stream
            .launch_builder(&f)
            .arg(q_rows)
            .arg(&rows64)
            .arg(&cols64)
            .arg(&mut q)
            .arg(&kp64)
            .launch(transpose_launch(rows, cols))
            .map_err(driver("launch residual_transpose_i8"))?;
    }
    Ok(q)
}

/// A buffer of `len` integers that a kernel writes in full except for its
/// padding: zeroed only where there is padding (`has_padding`), so an
/// unpadded one (k a multiple of 16) costs no memset (until 2026-11-27 all
/// four integer buffers were zeroed, 16 MB each at 4096^2).
fn padded(dev: &Device, len: usize, has_padding: bool) -> Result<CudaSlice<i8>, GpuError> {
    if has_padding {
        dev.zeros::<i8>(len)
    } else {
        // SAFETY: the caller's kernel writes every value when there is no
        // padding.
        unsafe { dev.uninit::<i8>(len) }
    }
}

/// Absmax (an operand's; a residual's comes with it), scales and
/// `residual_quantize` for one matrix, the operand `x` or its residual
/// (`level`), and `residual_transpose_i8` for a [`Layout::Columns`] operand.
#[allow(clippy::too_many_arguments)] // the kernel's parameters
pub(super) fn quantize(
    dev: &Device,
    x: &CudaSlice<f32>,
    (rows, cols): (usize, usize),
    axis: ScaleAxis,
    cfg: &RunConfig,
    layout: Layout,
    kp: usize,
    level: Level<'_>,
) -> Result<Quantized, GpuError> {
    let q_cfg = cfg.quantizer;
    let count = lines(axis, rows, cols);
    let (mut amax, base, residual_maxima) = match level {
        // Row maxima are written one per line by residual_absmax_rows; the
        // strided kernel's atomic maxima need zeros to start from.
        Level::Operand { residual_maxima } if axis == ScaleAxis::Rows => {
            // SAFETY: residual_absmax_rows writes every line (a block each).
            (unsafe { dev.uninit::<f32>(count) }?, None, residual_maxima)
        }
        Level::Operand { residual_maxima } => (dev.zeros::<f32>(count)?, None, residual_maxima),
        Level::Residual { of, amax } => (amax, Some(of), false),
    };
    // SAFETY: residual_scales writes every line.
    let mut scales = unsafe { dev.uninit::<f32>(count) }?;
    // The quantizer writes row-major: A and RA padded to kp (the GEMM's
    // layout; the padding zero), B and RB unpadded (rows x cols), to be
    // transposed.
    let rows_ld = if layout == Layout::Rows { kp } else { cols };
    let mut q_rows = padded(dev, rows * rows_ld, rows_ld > cols)?;
    let mut residual_amax = if residual_maxima {
        Some(dev.zeros::<f32>(count)?)
    } else {
        None
    };
    let (rows64, cols64, rows_ld64) = (rows as u64, cols as u64, rows_ld as u64);
    let axis_c = axis_code(axis);
    let num = q_cfg.scale.numerator(q_cfg.bits) as f32;
    let max_pow2 = Working::Fp32.max_pow2() as f32;
    let (rule, qmax) = (
        match q_cfg.rounding {
            crate::kernels::residual::quant::Rounding::Nearest => 0i32,
            crate::kernels::residual::quant::Rounding::Floor => 1,
            crate::kernels::residual::quant::Rounding::TowardZero => 2,
        },
        q_cfg.bits.qmax(),
    );
    let lines64 = count as u64;
    let scale_fn = dev.function("residual_scales")?;
    let quant_fn = dev.function("residual_quantize")?;
    let threads = 256u32;
    // SAFETY: argument lists match the kernels' signatures in kernels/residual.cu,
    // every buffer has the length the kernel indexes (amax and scales: one per
    // line, amax zeroed where residual_absmax_strided's atomic maxima start
    // from it, written per line by residual_absmax_rows; q_rows: rows times rows_ld;
    // the base's integers rows x base.rows_ld and scales one per line), and
    // residual_absmax_rows gets blockDim.x floats of shared memory.
    unsafe {
        if base.is_some() {
            // A residual's maxima came from its operand's quantization.
        } else if axis == ScaleAxis::Rows {
            let absmax = dev.function("residual_absmax_rows")?;
            dev.stream
                .launch_builder(&absmax)
                .arg(x)
                .arg(&rows64)
                .arg(&cols64)
                .arg(&mut amax)
                .launch(LaunchConfig {
                    grid_dim: (count as u32, 1, 1),
                    block_dim: (threads, 1, 1),
                    shared_mem_bytes: threads * 4,
                })
                .map_err(driver("launch residual_absmax_rows"))?;
        } else {
            let absmax = dev.function("residual_absmax_strided")?;
            dev.stream
                .launch_builder(&absmax)
                .arg(x)
                .arg(&rows64)
                .arg(&cols64)
                .arg(&axis_c)
                .arg(&mut amax)
                .launch(strided_absmax_launch(rows, cols))
                .map_err(driver("launch residual_absmax_strided"))?;
        }
        dev.stream
            .launch_builder(&scale_fn)
            .arg(&amax)
            .arg(&lines64)
            .arg(&num)
            .arg(&max_pow2)
            .arg(&mut scales)
            .launch(grid(count, threads))
            .map_err(driver("launch residual_scales"))?;
        let null: u64 = 0;
        let base_ld64 = base.map_or(0, |b| b.rows_ld as u64);
        let mut builder = dev.stream.launch_builder(&quant_fn);
        builder.arg(x).arg(&rows64).arg(&cols64);
        // The base (a residual's operand): its row-major integers, their
        // row length and its scales; null for an operand.
        match base {
            Some(b) => builder.arg(&b.rows).arg(&base_ld64).arg(&b.scales),
            None => builder.arg(&null).arg(&base_ld64).arg(&null),
        };
        builder
            .arg(&scales)
            .arg(&axis_c)
            .arg(&rule)
            .arg(&qmax)
            .arg(&rows_ld64)
            .arg(&mut q_rows);
        match residual_amax.as_mut() {
            Some(r) => builder.arg(r),
            None => builder.arg(&null),
        };
        builder
            .launch(rows_grid(rows, cols, threads, QUANTIZE_ROWS_PER_THREAD))
            .map_err(driver("launch residual_quantize"))?;
    }
    let gemm_form = match layout {
        Layout::Rows => GemmForm::Rows,
        Layout::Columns => GemmForm::Columns(transpose(dev, &q_rows, (rows, cols), kp)?),
        Layout::ColumnsOnDemand => GemmForm::ColumnsOnDemand,
    };
    Ok(Quantized {
        rows: q_rows,
        rows_ld,
        shape: (rows, cols),
        gemm_form,
        scales,
        residual_amax,
    })
}
