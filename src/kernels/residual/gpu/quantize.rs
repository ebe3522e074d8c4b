//! Quantization on the device: absmax per line (coalesced along rows), scales,
//! `residual_quantize` (integers row-major; a residual's maxima, or the
//! residual itself recomputed from the operand and quantized), and the int8
//! transpose that gives `dp4a` its layout (Gu, Algorithm 1: the quantization
//! of A, B and of their residuals RA, RB).

use super::*;

/// One quantized operand on the device: integers (`rows x kp`, or transposed
/// `cols x kp`), scales, and its residual's maxima if asked for.
pub(super) struct Quantized {
    /// The integers as the GEMM reads them (`rows x kp`, or `cols x kp`
    /// for a transposed operand).
    pub(super) q: CudaSlice<i8>,
    /// The row-major integers (`rows x cols`) of a transposed operand, as
    /// the quantizer wrote them: the sparse product `A^r RB` reads RB's rows.
    q_rows: Option<CudaSlice<i8>>,
    /// The row length of the row-major integers (`q_rows`, else `q`).
    rows_ld: usize,
    /// One scale per line (row, column, or one for the tensor).
    pub(super) scales: CudaSlice<f32>,
    /// `max |x - dq(q)|` per line, found by `residual_quantize` as it
    /// quantizes (asked for by [`Level::Operand`]): the residual's
    /// quantization ([`Level::Residual`]) takes it as its absmax.
    pub(super) residual_amax: Option<CudaSlice<f32>>,
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

/// The row-major integers of a transposed operand (B or RB).
pub(super) fn row_major<'q>(q: &'q Quantized, name: &str) -> Result<&'q CudaSlice<i8>, GpuError> {
    q.q_rows.as_ref().ok_or_else(|| {
        GpuError::Internal(format!("{name} was quantized without its row-major copy"))
    })
}

/// The launch of `residual_transpose_i8` for a `rows x cols` source: one
/// block per 32 x 32 tile (tile rows beyond 65535 blocks by a stride loop).
pub(super) fn transpose_launch(rows: usize, cols: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            cols.div_ceil(32).max(1) as u32,
            rows.div_ceil(32).clamp(1, 65535) as u32,
            1,
        ),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// Absmax (an operand's; a residual's comes with it), scales and
/// `residual_quantize` for one matrix, the operand `x` or its residual
/// (`level`), and `residual_transpose_i8` for a transposed operand.
#[allow(clippy::too_many_arguments)] // the kernel's parameters
pub(super) fn quantize(
    dev: &Device,
    x: &CudaSlice<f32>,
    (rows, cols): (usize, usize),
    axis: ScaleAxis,
    cfg: &RunConfig,
    transposed: bool,
    ld: usize,
    level: Level<'_>,
) -> Result<Quantized, GpuError> {
    let q_cfg = cfg.quantizer;
    let count = lines(axis, rows, cols);
    let (mut amax, base, residual_maxima) = match level {
        Level::Operand { residual_maxima } => (dev.zeros::<f32>(count)?, None, residual_maxima),
        Level::Residual { of, amax } => (amax, Some(of), false),
    };
    let mut scales = dev.zeros::<f32>(count)?;
    // The quantizer writes row-major: into q itself (ld = kp), or, for a
    // transposed operand, into a rows x cols buffer transposed afterwards.
    let (mut q_rows, rows_ld) = if transposed {
        // SAFETY: residual_quantize writes every element (no padding at ld = cols).
        (unsafe { dev.uninit::<i8>(rows * cols) }?, cols)
    } else {
        (dev.zeros::<i8>(rows * ld)?, ld)
    };
    let mut residual_amax = if residual_maxima {
        Some(dev.zeros::<f32>(count)?)
    } else {
        None
    };
    let mut saturated = dev.zeros::<u32>(1)?;
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
    // line, amax zeroed for the atomic maxima; q_rows: rows times rows_ld;
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
            Some(b) => builder
                .arg(b.q_rows.as_ref().unwrap_or(&b.q))
                .arg(&base_ld64)
                .arg(&b.scales),
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
            .arg(&mut saturated)
            .launch(rows_grid(rows, cols, threads, QUANTIZE_ROWS_PER_THREAD))
            .map_err(driver("launch residual_quantize"))?;
    }
    let (q, q_rows) = if transposed {
        let mut q = dev.zeros::<i8>(cols * ld)?;
        let transpose = dev.function("residual_transpose_i8")?;
        let ld64 = ld as u64;
        // SAFETY: residual_transpose_i8's signature; q_rows holds rows x cols
        // bytes, q cols x ld with ld >= rows (zeroed padding left as is).
        unsafe {
            dev.stream
                .launch_builder(&transpose)
                .arg(&q_rows)
                .arg(&rows64)
                .arg(&cols64)
                .arg(&mut q)
                .arg(&ld64)
                .launch(transpose_launch(rows, cols))
                .map_err(driver("launch residual_transpose_i8"))?;
        }
        (q, Some(q_rows))
    } else {
        (q_rows, None)
    };
    Ok(Quantized {
        q,
        q_rows,
        rows_ld,
        scales,
        residual_amax,
    })
}
