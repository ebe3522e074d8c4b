//! Launchers of `kernels/residual.cu` (feature `cuda`): Gu's Algorithm 1 on the
//! GPU in binary32, step for step the CPU model of [`super::method`] with
//! [`Working::Fp32`], so that integers, masks and outputs can be compared bit
//! for bit (`tests/residual_gpu.rs`, ignored without a device).
//!
//! Run on a lent H100 on 2026-11-24 (record `docs/gpu/2026-11-24-h100.md`):
//! in run 3 (A's mask passes one warp per row), `tests/residual_gpu.rs`
//! matched the CPU model in 480 runs (integers, `P0`, `D_F`, path,
//! densities, `D`; all three reduction rules) within the rigorous bound;
//! compute-sanitizer memcheck and racecheck clean. [`time_gpu`] times it
//! (`benches/residual_gpu.rs`, the paper's Table 3 sweep). The kernels as
//! they are now (fused sparse products, residuals never stored, register
//! histograms) ran on 2026-11-27 (`docs/gpu/2026-11-27-h100.md`): dp4a path
//! 480 runs identical; at density 1e-4 the sparse method reached 2.30x /
//! 2.65x / 2.80x the full residual and 0.79x / 0.89x / 0.93x plain int8 at
//! 4096 / 8192 / 16384 with dp4a (issue 6's 0.8x missed at 4096 only).
//!
//! A machine without a driver gets the probe's typed error (never a panic); a
//! panic inside the bindings is caught and returned as [`GpuError::Internal`].

mod int8gemm;
mod quantize;
mod sparse;

pub use int8gemm::Int8Gemm;
use int8gemm::*;
use quantize::*;
use sparse::*;

use super::exact_mean::{AbsSumBins, F32_FIELDS};
use super::kernel::RunConfig;
use super::method::{Method, Path};
use super::quant::Working;
use super::reduce::ReduceRule;
use crate::gpu::guard::catch;
use crate::gpu::module::driver;
use crate::gpu::timing::{median_seconds, require_repetitions};
use crate::gpu::{GpuError, KernelModule, sources};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::residual::{ScaleAxis, int32_max_k};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

/// The kernel source, embedded like the other `kernels/*.cu`.
pub const SOURCE: &str = crate::gpu::sources::RESIDUAL.source;

/// What the GPU computed, with the intermediates needed to compare with the CPU model.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuResidual {
    /// `D`, row-major `m x n`.
    pub d: Vec<f64>,
    /// `A_int` (row-major `m x k`).
    pub aq: Vec<i8>,
    /// `B_int` (row-major `k x n`).
    pub bq: Vec<i8>,
    /// `RA_int`.
    pub raq: Vec<i8>,
    /// `RB_int`.
    pub rbq: Vec<i8>,
    /// `P0 = A_int B_int`.
    pub p0: Vec<i32>,
    /// `D_F`.
    pub d_f: Vec<f64>,
    /// The path taken.
    pub path: Path,
    /// Densities of the reduced matrices (sparse method).
    pub densities: Option<(f64, f64)>,
}

fn axis_code(axis: ScaleAxis) -> i32 {
    match axis {
        ScaleAxis::Tensor => 0,
        ScaleAxis::Rows => 1,
        ScaleAxis::Columns => 2,
    }
}

fn lines(axis: ScaleAxis, rows: usize, cols: usize) -> usize {
    match axis {
        ScaleAxis::Tensor => 1,
        ScaleAxis::Rows => rows,
        ScaleAxis::Columns => cols,
    }
}

fn grid(count: usize, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (count.div_ceil(threads as usize).max(1) as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Blocks of `threads` over the `cols` columns, the grid's y striding over
/// the `rows` rows, each thread about `rows_per_thread` of them (at most
/// 65535 block rows): the element-wise kernels `residual_quantize` and
/// `residual_dequantize` index `(row, column)` without dividing a flat
/// 64-bit index, and a thread's per-column work (a scale, an atomic
/// maximum) is done once for its rows.
fn rows_grid(rows: usize, cols: usize, threads: u32, rows_per_thread: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            cols.div_ceil(threads as usize).max(1) as u32,
            crate::gpu::grid::clamp_grid_y(rows.div_ceil(rows_per_thread.max(1))),
            1,
        ),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Rows per thread of `residual_dequantize`: enough threads to fill the
/// device at 4096^2 (about a million) while each thread's column scale
/// serves several rows.
const ELEMENTWISE_ROWS_PER_THREAD: usize = 16;

/// A block of `threads` per row (`residual_combine`: the block walks the
/// whole row, so the row of `RA` its gathers read stays in one SM's L1),
/// grid-striding beyond 2^31 - 1 rows.
fn block_per_row(rows: usize, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (rows.clamp(1, i32::MAX as usize) as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

type Device = KernelModule;

/// Runs Gu's Algorithm 1 (or a baseline) on the GPU.
///
/// # Errors
/// [`GpuError::Input`] for bad input (as the CPU model), for a working format
/// other than fp32, or for a `k` beyond the `int32` limit (the GPU path has no
/// `i64` fallback); the probe's error without a device; driver errors.
///
/// # Example
/// The device result equals the CPU model's bit for bit:
/// ```no_run
/// use boundgate::kernels::residual::gpu::run_gpu;
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// let (m, k, n) = (64, 96, 48);
/// let a: Vec<f64> = (0..m * k).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
/// let b: Vec<f64> = (0..k * n).map(|i| ((i * 53 % 89) as f64 - 44.0) / 3.0).collect();
/// let gpu = run_gpu(&a, &b, (m, k, n), &cfg).unwrap();
/// let cpu = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
/// let out = cpu.run(cfg.method, cfg.reduction).unwrap();
/// assert_eq!((&gpu.aq, &gpu.bq, &gpu.raq, &gpu.rbq), (&cpu.aq.ints, &cpu.bq.ints, &cpu.raq.ints, &cpu.rbq.ints));
/// assert_eq!(gpu.p0, cpu.p0);
/// assert_eq!(gpu.path, out.path);
/// assert!(gpu.d.iter().zip(&out.d).all(|(x, y)| x.to_bits() == y.to_bits()));
/// ```
/// Bad input is refused before any device is touched:
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::residual::gpu::run_gpu;
/// use boundgate_verify::VerifyError;
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// let fp64 = RunConfig { quantizer: Quantizer { working: Working::Fp64, ..cfg.quantizer }, ..cfg };
/// assert!(matches!(
///     run_gpu(&[1.0], &[1.0], (1, 1, 1), &fp64),
///     Err(GpuError::Input(VerifyError::InvalidParameter { .. }))
/// ));
/// assert!(matches!(
///     run_gpu(&[], &[1.0], (0, 1, 1), &cfg),
///     Err(GpuError::Input(VerifyError::Empty { .. }))
/// ));
/// ```
pub fn run_gpu(
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    cfg: &RunConfig,
) -> Result<GpuResidual, GpuError> {
    run_gpu_with(Int8Gemm::Dp4a, a, b, shape, cfg)
}

/// [`run_gpu`] with the dense int8 products computed by `kind`.
///
/// # Errors
/// As [`run_gpu`].
///
/// # Example
/// The tensor-core product gives the same bits as the CPU model:
/// ```no_run
/// use boundgate::kernels::residual::gpu::{Int8Gemm, run_gpu_with};
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// let (m, k, n) = (128, 256, 128);
/// let a: Vec<f64> = (0..m * k).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
/// let b: Vec<f64> = (0..k * n).map(|i| ((i * 53 % 89) as f64 - 44.0) / 3.0).collect();
/// let gpu = run_gpu_with(Int8Gemm::Imma, &a, &b, (m, k, n), &cfg).unwrap();
/// let cpu = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
/// let out = cpu.run(cfg.method, cfg.reduction).unwrap();
/// assert_eq!(gpu.p0, cpu.p0);
/// assert!(gpu.d.iter().zip(&out.d).all(|(x, y)| x.to_bits() == y.to_bits()));
/// ```
/// Shapes that do not match the data are refused before any device is touched:
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::residual::gpu::{Int8Gemm, run_gpu_with};
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// assert!(matches!(
///     run_gpu_with(Int8Gemm::Imma, &[1.0, 2.0], &[1.0], (1, 1, 1), &cfg),
///     Err(GpuError::Input(_))
/// ));
/// ```
pub fn run_gpu_with(
    kind: Int8Gemm,
    a: &[f64],
    b: &[f64],
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
) -> Result<GpuResidual, GpuError> {
    let (a32, b32) = checked_inputs(a, b, (m, k, n), cfg)?;
    // After the input checks: bad input is an input error whatever its shape.
    kind.check_grid(m, n)?;
    catch(|| run(kind, &a32, &b32, (m, k, n), cfg))
}

/// The checks of [`run_gpu`] (before any device is touched) and the operands
/// rounded to binary32 (refused where they overflow it).
fn checked_inputs(
    a: &[f64],
    b: &[f64],
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
) -> Result<(Vec<f32>, Vec<f32>), GpuError> {
    if cfg.quantizer.working != Working::Fp32 {
        return Err(
            VerifyError::invalid("format", "fp64", "the GPU kernels compute in fp32").into(),
        );
    }
    for (what, dim) in [("rows of A", m), ("columns of A", k), ("columns of B", n)] {
        if dim == 0 {
            return Err(VerifyError::Empty { what: what.into() }.into());
        }
    }
    let shape_len = crate::kernels::shape_len;
    let (mk, kn) = (shape_len("A", m, k)?, shape_len("B", k, n)?);
    boundgate_verify::error::require_same_len("A and m * k", a.len(), mk)?;
    boundgate_verify::error::require_same_len("B and k * n", b.len(), kn)?;
    let q = cfg.quantizer.bits.qmax() as u32;
    if k as u64 > int32_max_k(q, q) {
        return Err(VerifyError::invalid(
            "k",
            k,
            "int32 accumulation could overflow (the GPU path has no i64 fallback)",
        )
        .into());
    }
    let to_f32 = |what: &str, v: &[f64]| -> Result<Vec<f32>, GpuError> {
        boundgate_verify::error::require_finite(what, v)?;
        v.iter()
            .map(|&x| {
                let s = x as f32;
                if s.is_finite() {
                    Ok(s)
                } else {
                    Err(GpuError::Input(VerifyError::Overflow {
                        format: "fp32".into(),
                        value: x,
                        max: f64::from(f32::MAX),
                    }))
                }
            })
            .collect()
    };
    Ok((to_f32("A", a)?, to_f32("B", b)?))
}

fn run(
    kind: Int8Gemm,
    a32: &[f32],
    b32: &[f32],
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
) -> Result<GpuResidual, GpuError> {
    let dev = Device::open(&sources::RESIDUAL)?;
    let d_a = dev.upload(a32)?;
    let d_b = dev.upload(b32)?;
    let pass = device_pass(&dev, kind, &d_a, &d_b, (m, k, n), cfg, Purpose::Compare)?;
    let (qra, qrb) = residuals(&pass.residuals)?;
    let kp = pass.kp;
    let untranspose = |t: Vec<i8>, rows: usize, cols: usize| -> Vec<i8> {
        // t is cols x kp holding (row r, col c) at c * kp + r.
        let mut out = vec![0i8; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                out[r * cols + c] = t[c * kp + r];
            }
        }
        out
    };
    let unpad = |t: Vec<i8>, rows: usize| -> Vec<i8> {
        (0..rows)
            .flat_map(|r| t[r * kp..r * kp + k].to_vec())
            .collect()
    };
    let d_f =
        dev.download(pass.d_f.as_ref().ok_or_else(|| {
            GpuError::Internal("a comparison pass left D_F undequantized".into())
        })?)?;
    let d = match &pass.d {
        Some(d) => dev.download(d)?,
        None => d_f.clone(),
    };
    dev.stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize"))?;
    Ok(GpuResidual {
        d: d.into_iter().map(f64::from).collect(),
        aq: unpad(dev.download(pass.qa.rows())?, m),
        // B's and RB's integers as the GEMM reads them, so the transpose is
        // compared too (RB's transposed here anew: the same kernel on the
        // same integers as for a GEMM of the pass, not the same buffer).
        bq: untranspose(dev.download(&*pass.qb.gemm_operand(&dev, kp)?)?, k, n),
        raq: unpad(dev.download(qra.rows())?, m),
        rbq: untranspose(dev.download(&*qrb.gemm_operand(&dev, kp)?)?, k, n),
        p0: dev.download(&pass.p0)?,
        d_f: d_f.into_iter().map(f64::from).collect(),
        path: pass.path,
        densities: pass.densities,
    })
}

/// Everything one run of Algorithm 1 leaves on the device.
struct DevicePass {
    /// Padded inner dimension (a multiple of 16: dp4a words, IMMA vectors).
    kp: usize,
    qa: Quantized,
    qb: Quantized,
    /// The quantized residuals `RA`, `RB` (`None`: a timed plain int8 run).
    residuals: Option<(Quantized, Quantized)>,
    p0: CudaSlice<i32>,
    /// `D_F` as a matrix (`None`: a timed run whose combination dequantized
    /// `P0` itself).
    d_f: Option<CudaSlice<f32>>,
    /// `D` when the method compensates (`None`: `D = D_F`).
    d: Option<CudaSlice<f32>>,
    path: Path,
    densities: Option<(f64, f64)>,
}

/// Why a device pass runs: to compare every matrix with the CPU model, or to
/// be timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// Every intermediate, the residuals' quantization included, is kept.
    Compare,
    /// Only what the method needs: a plain int8 run (`Method::Direct`)
    /// computes no residuals.
    Time,
}

/// The quantized residuals of a pass, which every pass but a timed plain
/// int8 one has: the comparison and the compensating methods need them.
fn residuals(
    quantized: &Option<(Quantized, Quantized)>,
) -> Result<&(Quantized, Quantized), GpuError> {
    quantized.as_ref().ok_or_else(|| {
        GpuError::Internal("the residuals were not quantized for a pass that needs them".into())
    })
}

/// Algorithm 1 on operands already on the device: quantize A, B and (where
/// the method or the comparison needs them) their residuals, `P0`, `D_F`,
/// then the compensation of the method (none, the two dense products, or the
/// reduction with CSR products). Launches only (the sparse method reads its
/// row counts back to size the CSR arrays).
fn device_pass(
    dev: &Device,
    kind: Int8Gemm,
    d_a: &CudaSlice<f32>,
    d_b: &CudaSlice<f32>,
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
    purpose: Purpose,
) -> Result<DevicePass, GpuError> {
    // Zero padding to 16 bytes: 4-byte words for dp4a, 16-byte rows for the
    // IMMA kernel's cp.async (zeros add nothing to an integer sum).
    let kp = k.div_ceil(16) * 16;
    let axis_a = cfg.granularity.axis(true);
    let axis_b = cfg.granularity.axis(false);
    // A timed plain int8 run quantizes A and B and nothing else: until the
    // review of the 2026-11-26 H100 run it also wrote the residuals RA, RB
    // and quantized them, work a plain int8 GEMM does not do, which made the
    // baseline slower and the sparse method's ratio to it look better.
    let with_residuals = cfg.method != Method::Direct || purpose == Purpose::Compare;
    let operand = || Level::Operand {
        residual_maxima: with_residuals,
    };
    let mut qa = quantize(dev, d_a, (m, k), axis_a, cfg, Layout::Rows, kp, operand())?;
    let mut qb = quantize(
        dev,
        d_b,
        (k, n),
        axis_b,
        cfg,
        Layout::Columns,
        kp,
        operand(),
    )?;
    let quantized_residuals = match (qa.residual_amax.take(), qb.residual_amax.take()) {
        (Some(ra_amax), Some(rb_amax)) => {
            let ra = Level::Residual {
                of: &qa,
                amax: ra_amax,
            };
            let rb = Level::Residual {
                of: &qb,
                amax: rb_amax,
            };
            Some((
                quantize(dev, d_a, (m, k), axis_a, cfg, Layout::Rows, kp, ra)?,
                // RB is transposed when a GEMM reads it: the full method's
                // P1, or the sparse one's where A^r is not sparse.
                quantize(
                    dev,
                    d_b,
                    (k, n),
                    axis_b,
                    cfg,
                    Layout::ColumnsOnDemand,
                    kp,
                    rb,
                )?,
            ))
        }
        _ => None,
    };
    let p0 = gemm(dev, kind, &qa, &qb, (m, n, kp))?;
    let (ca, cb) = (axis_code(axis_a), axis_code(axis_b));
    // The full method, and the sparse one under the code's rule, need D_F
    // only to add to: residual_combine dequantizes P0 itself, the same
    // operations on the same scales, and a timed run skips the pass that
    // wrote D_F for it to read back (until 2026-11-27 it always ran). D_F is
    // a matrix of its own for the plain method (its result), for eq. (14)'s
    // readings of the rule (rules 1 and 2 take its means), and for the
    // comparison, whose combination still dequantizes P0 itself where a timed
    // run would: the path timed is the path compared.
    let combine_from_p0 = match cfg.method {
        Method::Direct => false,
        Method::Full => true,
        Method::Sparse => cfg.reduction.rule == ReduceRule::Mean,
    };
    let needs_d_f = purpose == Purpose::Compare || !combine_from_p0;
    let d_f = if needs_d_f {
        Some(dequantize(
            dev,
            &p0,
            (&qa.scales, &qb.scales),
            (m, n),
            (ca, cb),
        )?)
    } else {
        None
    };
    let mut densities = None;
    // The compensating products `P1 = A' RB'`, `P2 = RA' B'` (none: direct).
    let (products, path) = match cfg.method {
        Method::Direct => (None, Path::Direct),
        Method::Full => {
            let (qra, qrb) = residuals(&quantized_residuals)?;
            (
                Some((
                    Product::Dense(gemm(dev, kind, &qa, qrb, (m, n, kp))?),
                    Product::Dense(gemm(dev, kind, qra, &qb, (m, n, kp))?),
                )),
                Path::Dense,
            )
        }
        Method::Sparse => {
            let (qra, qrb) = residuals(&quantized_residuals)?;
            let (p1, p2, path, dens) = sparse(
                (dev, kind),
                d_a,
                d_b,
                d_f.as_ref(),
                (&qa, &qb, qra, qrb),
                (m, k, n, kp),
                cfg,
            )?;
            densities = Some(dens);
            (Some((p1, p2)), path)
        }
    };
    let d = match products {
        Some((p1, p2)) => {
            let (qra, qrb) = residuals(&quantized_residuals)?;
            Some(combine(
                dev,
                (if combine_from_p0 { None } else { d_f.as_ref() }, &p0),
                (&p1, &p2),
                (qra, qrb),
                (&qa.scales, &qb.scales),
                (m, n, kp),
                (ca, cb),
            )?)
        }
        None => None,
    };
    Ok(DevicePass {
        kp,
        qa,
        qb,
        residuals: quantized_residuals,
        p0,
        d_f,
        d,
        path,
        densities,
    })
}

/// `D_F = dq(P0)` by `residual_dequantize`, scales per row of A and column
/// of B (or per tensor, by their axis codes).
fn dequantize(
    dev: &Device,
    p0: &CudaSlice<i32>,
    (a_scales, b_scales): (&CudaSlice<f32>, &CudaSlice<f32>),
    (m, n): (usize, usize),
    (ca, cb): (i32, i32),
) -> Result<CudaSlice<f32>, GpuError> {
    let (m64, n64) = (m as u64, n as u64);
    // SAFETY: residual_dequantize writes every element of D_F.
    let mut d_f = unsafe { dev.uninit::<f32>(m * n) }?;
    let deq = dev.function("residual_dequantize")?;
    // SAFETY: signature of residual_dequantize; p0 and d_f have m x n elements,
    // the scale buffers one per line of their axis.
    unsafe {
        dev.stream
            .launch_builder(&deq)
            .arg(p0)
            .arg(&m64)
            .arg(&n64)
            .arg(a_scales)
            .arg(&ca)
            .arg(b_scales)
            .arg(&cb)
            .arg(&mut d_f)
            .launch(rows_grid(m, n, 256, ELEMENTWISE_ROWS_PER_THREAD))
            .map_err(driver("launch residual_dequantize"))?;
    }
    Ok(d_f)
}

/// `D = fl(fl(D_F + dq(P1)) + dq(P2))` by `residual_combine`, which reads a
/// dense product as it is and multiplies a sparse one's CSR itself, and
/// takes `D_F` as a matrix or, where there is none, dequantizes `P0` itself.
#[allow(clippy::too_many_arguments)] // the kernel's parameters, grouped
fn combine(
    dev: &Device,
    (d_f, p0): (Option<&CudaSlice<f32>>, &CudaSlice<i32>),
    (p1, p2): (&Product, &Product),
    (qra, qrb): (&Quantized, &Quantized),
    (a_scales, b_scales): (&CudaSlice<f32>, &CudaSlice<f32>),
    (m, n, kp): (usize, usize, usize),
    (ca, cb): (i32, i32),
) -> Result<CudaSlice<f32>, GpuError> {
    let (m64, n64, kp64) = (m as u64, n as u64, kp as u64);
    let null: u64 = 0;
    let rb_rows = qrb.rows();
    // SAFETY: residual_combine writes every element of D.
    let mut d = unsafe { dev.uninit::<f32>(m * n) }?;
    let f = dev.function("residual_combine")?;
    let mut builder = dev.stream.launch_builder(&f);
    // D_F, or null and P0.
    match d_f {
        Some(d_f) => builder.arg(d_f).arg(&null),
        None => builder.arg(&null).arg(p0),
    };
    builder.arg(&m64).arg(&n64);
    // Each product: its dense matrix, or null and the reduced matrix's CSR
    // (the other side's pointers null).
    match p1 {
        Product::Dense(p) => builder.arg(p).arg(&null).arg(&null).arg(&null),
        Product::Csr { ptr, idx, val } => builder.arg(&null).arg(ptr).arg(idx).arg(val),
    };
    builder.arg(rb_rows);
    match p2 {
        Product::Dense(p) => builder.arg(p),
        Product::Csr { .. } => builder.arg(&null),
    };
    builder.arg(qra.rows()).arg(&kp64);
    match p2 {
        Product::Dense(_) => builder.arg(&null).arg(&null).arg(&null),
        Product::Csr { ptr, idx, val } => builder.arg(ptr).arg(idx).arg(val),
    };
    builder
        .arg(a_scales)
        .arg(&qrb.scales)
        .arg(&qra.scales)
        .arg(b_scales)
        .arg(&ca)
        .arg(&cb)
        .arg(&mut d);
    // SAFETY: residual_combine's signature (kernels/residual.cu); D_F and a
    // dense P are m x n, a CSR's pointer array has one entry more than its
    // rows (A^r: m) or columns (B^r: n) and its index and value arrays the
    // scanned counts, RB's rows k x n, RA m x kp, the scales one per line.
    unsafe { builder.launch(block_per_row(m, 256)) }.map_err(driver("launch residual_combine"))?;
    Ok(d)
}

/// The median time of one run of Algorithm 1 on the device
/// ([`time_gpu`]), with what the run did.
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualTiming {
    /// Seconds per run (median), operands already on the device, result left there.
    pub seconds: f64,
    /// `2 m n k / seconds / 1e12`: the paper's measure (Table 3, "TOPS").
    pub tops: f64,
    /// The path taken.
    pub path: Path,
    /// Densities of the reduced matrices (sparse method).
    pub densities: Option<(f64, f64)>,
}

/// Times Gu's Algorithm 1 (or a baseline, by `cfg.method`) on the GPU, as
/// the paper's Table 3 does: operands uploaded once (outside the timing),
/// one untimed run, then `repetitions` runs of every step from quantization
/// to the combined `D`, each ended by a stream synchronisation, timed on the
/// host clock (the sparse method reads its row counts back mid-run, so host
/// time is the honest measure). Reports the median and `2 m n k / t` in TOPS.
///
/// # Errors
/// As [`run_gpu`]; `repetitions = 0`.
///
/// # Example
/// ```no_run
/// use boundgate::kernels::residual::gpu::time_gpu;
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let config = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer {
///         bits: Bits::Int8,
///         scale: ScaleRule::Absmax,
///         rounding: Rounding::Nearest,
///         working: Working::Fp32,
///     },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.999, rule: ReduceRule::Mean, eta: 1.0 },
/// };
/// let n = 4096;
/// let a: Vec<f64> = (0..n * n).map(|i| (i % 1000) as f64 / 1000.0).collect();
/// let t = time_gpu(&a, &a, (n, n, n), &config, 10).unwrap();
/// println!("{:.1} TOPS on the {:?} path", t.tops, t.path);
/// ```
pub fn time_gpu(
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    cfg: &RunConfig,
    repetitions: usize,
) -> Result<ResidualTiming, GpuError> {
    time_gpu_with(Int8Gemm::Dp4a, a, b, shape, cfg, repetitions)
}

/// [`time_gpu`] with the dense int8 products computed by `kind`.
///
/// # Errors
/// As [`time_gpu`].
///
/// # Example
/// ```no_run
/// use boundgate::kernels::residual::gpu::{Int8Gemm, time_gpu_with};
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// let n = 1024;
/// let a: Vec<f64> = (0..n * n).map(|i| (i % 1000) as f64 / 1000.0).collect();
/// let t = time_gpu_with(Int8Gemm::Imma, &a, &a, (n, n, n), &cfg, 5).unwrap();
/// assert!(t.seconds > 0.0);
/// assert_eq!(t.tops, 2.0 * (n as f64).powi(3) / t.seconds / 1e12);
/// ```
/// Zero repetitions are refused before any device is touched:
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::residual::gpu::{Int8Gemm, time_gpu_with};
/// use boundgate_verify::VerifyError;
/// use boundgate::kernels::residual::kernel::RunConfig;
/// use boundgate::kernels::residual::method::{Method, Prepared, Reduction};
/// use boundgate::kernels::residual::quant::{Bits, Granularity, Quantizer, Rounding, ScaleRule, Working};
/// use boundgate::kernels::residual::reduce::ReduceRule;
/// let cfg = RunConfig {
///     method: Method::Sparse,
///     quantizer: Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 },
///     granularity: Granularity::Vector,
///     reduction: Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 },
/// };
/// assert!(matches!(
///     time_gpu_with(Int8Gemm::Dp4a, &[1.0], &[1.0], (1, 1, 1), &cfg, 0),
///     Err(GpuError::Input(VerifyError::InvalidParameter { .. }))
/// ));
/// ```
pub fn time_gpu_with(
    kind: Int8Gemm,
    a: &[f64],
    b: &[f64],
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
    repetitions: usize,
) -> Result<ResidualTiming, GpuError> {
    require_repetitions(repetitions)?;
    let (a32, b32) = checked_inputs(a, b, (m, k, n), cfg)?;
    kind.check_grid(m, n)?;
    catch(|| {
        let dev = Device::open(&sources::RESIDUAL)?;
        let d_a = dev.upload(&a32)?;
        let d_b = dev.upload(&b32)?;
        let (first, seconds) = median_seconds(repetitions, || {
            let pass = device_pass(&dev, kind, &d_a, &d_b, (m, k, n), cfg, Purpose::Time)?;
            dev.stream
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))?;
            Ok(pass)
        })?;
        Ok(ResidualTiming {
            seconds,
            tops: 2.0 * m as f64 * n as f64 * k as f64 / seconds / 1e12,
            path: first.path,
            densities: first.densities,
        })
    })
}
