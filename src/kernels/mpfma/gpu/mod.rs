//! The family's GPU path (feature `cuda`): `kernels/mpfma_gemm.cu` (our blocked
//! GEMMs on `mma.sync`, Algorithm 1's order) and `kernels/mpfma_wgmma.cu` (the
//! same order on Hopper's `wgmma`; [`GemmKernel`]), the probes on the first, and cuBLAS
//! `GemmEx` and cuBLASLt `cublasLtMatmul` as the vendor kernels to audit.
//!
//! Every entry point returns a typed [`GpuError`]: without the feature
//! [`GpuError::NotBuilt`], without a device the probe's reason (no driver,
//! no NVRTC), for a configuration no kernel covers [`GpuError::Unsupported`],
//! for bad operands [`GpuError::Input`]. The device is opened through
//! `KernelModule` (`crate::gpu`, feature `cuda`), which probes it first (so
//! cudarc cannot panic on a missing driver), and every cudarc call runs
//! under `crate::gpu::guard::catch` as a last resort.
//!
//! ```
//! use boundgate::gpu::GpuError;
//! use boundgate::kernels::mpfma::gpu::gemm_on_device;
//! use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
//! let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
//! match gemm_on_device(&record, &[1.0, 2.0], &[3.0, 4.0], None, (1, 2, 1)) {
//!     Ok(d) => assert_eq!(d, [11.0]),  // on a device with the kernel
//!     Err(e) => assert!(!e.to_string().is_empty()), // one line: why not
//! }
//! ```

#[cfg(feature = "cuda")]
mod cublas;
#[cfg(feature = "cuda")]
mod device;
mod kernel;
#[cfg(feature = "cuda")]
mod lt;
mod vendor;

pub use kernel::GemmKernel;
pub use vendor::{LtAlgo, LtRun, LtSplitK, Vendor, VendorReduction};

use super::gemm::{GemmConfig, GemmOperands, GemmRun, run_model};
use super::probe::MatrixUnit;
use super::record::{Arch, TcInput, TcRecord};
use crate::error::Result;
use crate::gpu::GpuError;
use boundgate_verify::VerifyError;
use boundgate_verify::error::require_same_len;

/// `kernels/mpfma_gemm.cu`, embedded.
pub const GEMM_SOURCE: &str = crate::gpu::sources::MPFMA_GEMM.source;
/// Its path in the repository (the NVRTC program name).
pub const GEMM_PATH: &str = crate::gpu::sources::MPFMA_GEMM.path;

/// The architecture of device 0, if there is a device with a record.
///
/// # Errors
/// The probe's reason (no driver, not built with `cuda`, ...), or
/// [`GpuError::Unsupported`] for a device without a tensor-core record.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::device_arch;
/// match device_arch() {
///     Ok(arch) => println!("tensor cores of {arch}"),
///     Err(reason) => println!("no GPU to probe: {reason}"),
/// }
/// ```
pub fn device_arch() -> std::result::Result<Arch, GpuError> {
    match crate::gpu::probe() {
        crate::gpu::DeviceStatus::Available(info) => {
            let (major, minor) = info.compute_capability;
            Arch::of_compute_capability(major).ok_or_else(|| {
                GpuError::Unsupported(format!(
                    "{}: no tensor-core record for compute capability {major}.{minor}",
                    info.name
                ))
            })
        }
        crate::gpu::DeviceStatus::Unavailable { reason } => Err(reason),
    }
}

/// A block other than the record's (`block=N`): the device's unit adds the
/// instruction's products per step whatever the model is told, so its result
/// would be judged by the bound of another unit (a false violation where the
/// record's block errs more; found by review, 2026-11-26).
fn overridden_block(config: &GemmConfig) -> Option<GpuError> {
    let record = &config.record;
    let native = TcRecord::lookup(record.arch, record.input, record.output).ok()?;
    (native.block != record.block).then(|| {
        GpuError::Unsupported(format!(
            "block = {}: the device's {} unit adds {} products per step (the record's block); \
             another block is a question for the CPU model (backend=cpu)",
            record.block,
            record.label(),
            native.block
        ))
    })
}

/// Why our `kernel` cannot run `config` on this machine, if it cannot.
fn unsupported(config: &GemmConfig, kernel: GemmKernel) -> Option<GpuError> {
    if config.alg1 {
        return Some(GpuError::Unsupported(
            "model alg1 is a CPU model only".into(),
        ));
    }
    if let Some(reason) = overridden_block(config) {
        return Some(reason);
    }
    if !matches!(
        config.record.input,
        TcInput::Fp16 | TcInput::Bf16 | TcInput::Tf32
    ) {
        return Some(GpuError::Unsupported(format!(
            "kernels/mpfma_gemm.cu has no {} variant",
            config.record.input
        )));
    }
    if let Err(reason) = kernel.entry(config.record.input, config.record.output) {
        return Some(reason);
    }
    match device_arch() {
        Err(reason) => Some(reason),
        Ok(arch) if arch != config.record.arch => Some(GpuError::Unsupported(format!(
            "the device is {arch}, the record {}",
            config.record.arch
        ))),
        Ok(_) => match crate::gpu::probe() {
            crate::gpu::DeviceStatus::Available(info) => {
                kernel.source().cubin_for(info.compute_capability).err()
            }
            crate::gpu::DeviceStatus::Unavailable { reason } => Some(reason),
        },
    }
}

/// Runs `mpfma-gemm` on the GPU: required (`required`), or when possible with
/// the CPU model as the fallback (the run says where it ran).
///
/// # Errors
/// [`Error::Gpu`](crate::error::Error::Gpu) when the GPU is required and
/// cannot run the configuration, or when the device fails.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, config_from_pairs};
/// use boundgate::kernels::mpfma::gpu::{GemmKernel, run_or_model};
/// let config = config_from_pairs(&["model=alg1"]).unwrap();
/// let ops = GemmOperands::new(&config.record, vec![1.0, 2.0], (1, 2), vec![3.0, 4.0], (2, 1)).unwrap();
/// // Algorithm 1 is a CPU model: "when possible" runs the model and says why.
/// let run = run_or_model(&config, &ops, GemmKernel::Simple, false).unwrap();
/// assert_eq!((run.d, run.ran_on.as_str()), (vec![11.0], "cpu model (model alg1 is a CPU model only)"));
/// // Required, it is refused before any device work.
/// let required = run_or_model(&config, &ops, GemmKernel::Simple, true);
/// assert!(matches!(required, Err(Error::Gpu(GpuError::Unsupported(_)))));
/// ```
/// On an sm90 device (H100, H200), our kernel's `D` is the model's, bit for bit:
/// ```no_run
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, config_from_pairs, run_model};
/// use boundgate::kernels::mpfma::gpu::{GemmKernel, run_or_model};
/// let config = config_from_pairs(&["arch=sm90", "input=fp16", "output=fp32"]).unwrap();
/// let (m, k, t) = (64, 256, 64);
/// let v = |n: usize| (0..n).map(|i| ((i * 7919) % 1000) as f64 / 997.0 - 0.5).collect::<Vec<_>>();
/// let ops = GemmOperands::new(&config.record, v(m * k), (m, k), v(k * t), (k, t)).unwrap();
/// let gpu = run_or_model(&config, &ops, GemmKernel::Simple, true).unwrap();
/// assert!(gpu.ran_on.starts_with("gpu"));
/// let model = run_model(&config, &ops).unwrap();
/// assert!(gpu.d.iter().zip(&model.d).all(|(g, c)| g.to_bits() == c.to_bits()));
/// ```
pub fn run_or_model(
    config: &GemmConfig,
    ops: &GemmOperands,
    kernel: GemmKernel,
    required: bool,
) -> Result<GemmRun> {
    match unsupported(config, kernel) {
        Some(reason) if required => Err(reason.into()),
        Some(reason) => {
            let mut run = run_model(config, ops)?;
            run.ran_on = format!("cpu model ({reason})");
            Ok(run)
        }
        None => run_on_device(config, ops, kernel),
    }
}

fn run_on_device(config: &GemmConfig, ops: &GemmOperands, kernel: GemmKernel) -> Result<GemmRun> {
    let mut d = gemm_on_device_with(
        kernel,
        &config.record,
        &ops.a_read,
        &ops.b_read,
        None,
        (ops.m, ops.k, ops.t),
    )?;
    if config.fp16_epilogue {
        use boundgate_verify::format::{Format, RoundingMode};
        for v in &mut d {
            *v = Format::FP16.round(*v, RoundingMode::NearestEven);
        }
    }
    // The a-posteriori bound needs the block results: the device gives only
    // the final result, so it is taken from the model, which the tests check
    // against the device bit for bit.
    let model = run_model(config, ops)?;
    Ok(GemmRun {
        d,
        a_posteriori: model.a_posteriori,
        ran_on: format!("gpu ({}, {} kernel)", config.record.arch, kernel.name()),
        split_k: None,
    })
}

/// Runs `mpfma-gemm` with a vendor GEMM on the device (`backend=gemmex` or
/// `cublaslt`): `D = A B` of the operands as read, fp32 compute; with
/// `output = fp32-fp16` the library writes fp16 `D` itself (the paper's
/// Listing 1). The record must be the device's (the bound is its unit's), the
/// model the block FMA, the accumulation fp32. No a-posteriori bound: the
/// library does not expose its partial results.
///
/// # Errors
/// [`GpuError::Unsupported`] for Algorithm 1, fp16 accumulation, a record of
/// another architecture, or a combination the launcher has no variant for
/// (checked before any device work where possible); then the device's
/// reason (not built with `cuda`, no driver, a library failure).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, config_from_pairs};
/// use boundgate::kernels::mpfma::gpu::{Vendor, VendorReduction, run_vendor};
/// let config = config_from_pairs(&["model=alg1"]).unwrap();
/// let ops = GemmOperands::new(&config.record, vec![1.0], (1, 1), vec![1.0], (1, 1)).unwrap();
/// // Refused before any device work: a vendor GEMM runs the tensor cores.
/// let e = run_vendor(&config, &ops, Vendor::Lt, VendorReduction::Library).unwrap_err();
/// assert!(e.to_string().contains("Algorithm 1"));
/// ```
pub fn run_vendor(
    config: &GemmConfig,
    ops: &GemmOperands,
    vendor: Vendor,
    reduction: VendorReduction,
) -> Result<GemmRun> {
    let refuse = |why: String| -> Result<GemmRun> { Err(GpuError::Unsupported(why).into()) };
    if config.alg1 {
        return refuse(format!(
            "{vendor} runs the device's tensor cores: model alg1 (Algorithm 1) is a CPU model only"
        ));
    }
    if config.record.output != super::record::TcOutput::Fp32 {
        return refuse(format!(
            "{vendor}: fp32 accumulation only (output = fp32 or fp32-fp16), not {}",
            config.record.output.name()
        ));
    }
    vendor::check_vendor_input(vendor, config.record.input)?;
    if let Some(reason) = overridden_block(config) {
        return Err(reason.into());
    }
    let arch = device_arch()?;
    if arch != config.record.arch {
        return refuse(format!(
            "the device is {arch}, the record {}: the bound is the record's unit",
            config.record.arch
        ));
    }
    let (d, how, algo) = vendor_dispatch(
        vendor,
        config.record.input,
        (&ops.a_read, &ops.b_read),
        (ops.m, ops.k, ops.t),
        config.fp16_epilogue,
        reduction,
    )?;
    Ok(GemmRun {
        d,
        a_posteriori: Vec::new(),
        ran_on: format!("gpu ({arch}, {how})"),
        split_k: algo.and_then(|a| a.split_parts()),
    })
}

/// A [`MatrixUnit`] on the GPU for a record (our GEMM kernel with `m = t = 1`).
///
/// # Errors
/// Why the device cannot probe this record.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::probe_unit;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// // Refused before any device work: no fp8 kernel; no device unit with another block.
/// let fp8 = TcRecord::lookup(Arch::Sm90, TcInput::E4m3, TcOutput::Fp32).unwrap();
/// assert!(matches!(probe_unit(&fp8), Err(GpuError::Unsupported(_))));
/// let fp16 = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// assert!(matches!(probe_unit(&fp16.with_block(4)), Err(GpuError::Unsupported(_))));
/// ```
/// On an sm90 device the probes measure the record (docs/mpfma.md):
/// ```no_run
/// use boundgate::kernels::mpfma::gpu::probe_unit;
/// use boundgate::kernels::mpfma::probe::run_probes;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let unit = probe_unit(&record).unwrap();
/// assert!(run_probes(unit.as_ref(), &record).unwrap().iter().all(|r| r.agrees));
/// ```
pub fn probe_unit(record: &TcRecord) -> std::result::Result<Box<dyn MatrixUnit>, GpuError> {
    let config = GemmConfig {
        record: *record,
        alg1: false,
        fp16_epilogue: false,
    };
    if let Some(reason) = unsupported(&config, GemmKernel::Simple) {
        return Err(reason);
    }
    #[cfg(feature = "cuda")]
    {
        Ok(Box::new(device::GpuUnit { record: *record }))
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}

/// Checks an `m x k` by `k x t` product's operands before any device work:
/// nonzero dimensions, and `A`, `B` (and `C`) of `m k`, `k t` (and `m t`)
/// values. Our kernels and the vendor calls ([`vendor::check_vendor_call`])
/// share it.
fn check_shape(
    (a, b, c): (&[f64], &[f64], Option<&[f64]>),
    (m, k, t): (usize, usize, usize),
) -> std::result::Result<(), GpuError> {
    if m == 0 || k == 0 || t == 0 {
        return Err(
            VerifyError::invalid("shape", format!("{m} x {k} x {t}"), "empty dimension").into(),
        );
    }
    let against = |name: &str| format!("{name} against the shape {m} x {k} x {t}");
    // Checked products: `m * k` overflowed (a panic in debug builds, a
    // wrapped length in release) for dimensions like 2^63 x 2 (review,
    // 2026-11-29).
    require_same_len(
        &against("A"),
        a.len(),
        crate::kernels::shape_len("A", m, k)?,
    )?;
    require_same_len(
        &against("B"),
        b.len(),
        crate::kernels::shape_len("B", k, t)?,
    )?;
    let d_len = crate::kernels::shape_len("D", m, t)?;
    if let Some(c) = c {
        require_same_len(&against("C"), c.len(), d_len)?;
    }
    Ok(())
}

/// `D = A B` by cuBLAS `GemmEx` (fp16 `A`, `B`; fp32 or fp16 `C`/`D`; fp32
/// compute; `CUBLAS_GEMM_DEFAULT_TENSOR_OP`): the paper's Listing 1, with
/// the library's default math mode (reduced-precision reductions allowed).
/// [`cublas_gemm_ex_reducing`] chooses the reduction.
///
/// # Errors
/// Bad shapes or operands that are not fp16 values ([`GpuError::Input`]),
/// not built with `cuda`, no device, or a cuBLAS failure.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::cublas_gemm_ex;
/// // Rejected before any device work: A has 3 values, the shape needs 2.
/// assert!(cublas_gemm_ex(&[1.0, 2.0, 3.0], &[1.0, 1.0], (1, 2, 1), false).is_err());
/// ```
pub fn cublas_gemm_ex(
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
) -> std::result::Result<Vec<f64>, GpuError> {
    cublas_gemm_ex_reducing(a, b, shape, fp16_output, VendorReduction::Library)
}

/// [`cublas_gemm_ex`] with the handle's math mode set for `reduction`
/// ([`VendorReduction::ComputeType`]: `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`).
///
/// # Errors
/// As [`cublas_gemm_ex`].
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::{VendorReduction, cublas_gemm_ex_reducing};
/// // Rejected before any device work: 0.1 is not an fp16 value.
/// let r = VendorReduction::ComputeType;
/// assert!(cublas_gemm_ex_reducing(&[0.1], &[1.0], (1, 1, 1), true, r).is_err());
/// ```
pub fn cublas_gemm_ex_reducing(
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
    reduction: VendorReduction,
) -> std::result::Result<Vec<f64>, GpuError> {
    vendor::check_vendor_call(TcInput::Fp16, a, b, shape, fp16_output)?;
    #[cfg(feature = "cuda")]
    {
        cublas::cublas_gemm_ex(a, b, shape, fp16_output, reduction)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = reduction;
        Err(GpuError::NotBuilt)
    }
}

/// `D = A B` by cuBLASLt (`cublasLtMatmul`): `input` fp16, bf16 or tf32
/// (fp32 storage, `CUBLAS_COMPUTE_32F_FAST_TF32`), fp32 compute and scale,
/// fp32 `D` or (fp16 inputs) fp16 `D`, `alpha = 1`, `beta = 0`. Row-major
/// operands are passed as their column-major transposes (`D^T = B^T A^T`),
/// as for [`cublas_gemm_ex`]. Returns `D` as `f64` with the algorithm the
/// heuristic chose (`split_k` restricts it).
///
/// # Errors
/// An unsupported format ([`GpuError::Unsupported`]), a bad shape or an
/// operand not in the input format ([`GpuError::Input`]), not built with
/// `cuda`, no device, or a cuBLASLt failure (`CUBLAS_STATUS_NOT_SUPPORTED`
/// when the heuristic has no algorithm).
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::{LtSplitK, cublaslt_matmul};
/// use boundgate::kernels::mpfma::record::TcInput;
/// // Rejected before any device work: 0.1 is not an fp16 value.
/// let e = cublaslt_matmul(TcInput::Fp16, &[0.1], &[1.0], (1, 1, 1), false, LtSplitK::Allowed);
/// let e = e.unwrap_err();
/// assert!(matches!(e, GpuError::Input(_)) && e.to_string().contains("not a fp16 value"));
/// // bf16 inputs with an fp16 D is no cuBLASLt combination.
/// let e = cublaslt_matmul(TcInput::Bf16, &[1.0], &[1.0], (1, 1, 1), true, LtSplitK::Allowed);
/// assert!(matches!(e, Err(GpuError::Unsupported(_))));
/// ```
/// On a device: small integers, exact in any order and split.
/// ```no_run
/// use boundgate::kernels::mpfma::gpu::{LtSplitK, cublaslt_matmul};
/// use boundgate::kernels::mpfma::record::TcInput;
/// let (a, b) = ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]); // 2 x 2 each, row-major
/// let run = cublaslt_matmul(TcInput::Fp16, &a, &b, (2, 2, 2), false, LtSplitK::Forbidden).unwrap();
/// assert_eq!(run.d, vec![19.0, 22.0, 43.0, 50.0]);
/// println!("{}", run.algo); // the heuristic's choice
/// ```
pub fn cublaslt_matmul(
    input: TcInput,
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
    split_k: LtSplitK,
) -> std::result::Result<LtRun, GpuError> {
    vendor::check_vendor_call(input, a, b, shape, fp16_output)?;
    #[cfg(feature = "cuda")]
    {
        lt::cublaslt_matmul(input, a, b, shape, fp16_output, split_k)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = split_k;
        Err(GpuError::NotBuilt)
    }
}

/// `D = A B` by a vendor library, as the vendor runs it by default
/// (cuBLASLt: any algorithm). [`Vendor::GemmEx`] takes fp16 inputs only.
///
/// # Errors
/// As [`cublas_gemm_ex`] and [`cublaslt_matmul`].
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::{Vendor, vendor_gemm};
/// use boundgate::kernels::mpfma::record::TcInput;
/// let e = vendor_gemm(Vendor::GemmEx, TcInput::Bf16, &[1.0], &[1.0], (1, 1, 1), false);
/// assert!(e.unwrap_err().to_string().contains("fp16 inputs"));
/// ```
pub fn vendor_gemm(
    vendor: Vendor,
    input: TcInput,
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
) -> std::result::Result<Vec<f64>, GpuError> {
    vendor_dispatch(
        vendor,
        input,
        (a, b),
        shape,
        fp16_output,
        VendorReduction::Library,
    )
    .map(|(d, _, _)| d)
}

/// Runs `vendor` with `reduction`; returns `D`, what ran, and (cuBLASLt) the
/// algorithm with its split-K and reduction scheme as the library reports it.
fn vendor_dispatch(
    vendor: Vendor,
    input: TcInput,
    (a, b): (&[f64], &[f64]),
    shape: (usize, usize, usize),
    fp16_output: bool,
    reduction: VendorReduction,
) -> std::result::Result<(Vec<f64>, String, Option<LtAlgo>), GpuError> {
    vendor::check_vendor_input(vendor, input)?;
    let how = |what: String| format!("{vendor}: {what}, reduction {}", reduction.name());
    match vendor {
        Vendor::GemmEx => Ok((
            cublas_gemm_ex_reducing(a, b, shape, fp16_output, reduction)?,
            how("CUBLAS_GEMM_DEFAULT_TENSOR_OP".into()),
            None,
        )),
        Vendor::Lt => {
            let run = cublaslt_matmul(input, a, b, shape, fp16_output, reduction.lt_split_k())?;
            Ok((run.d, how(run.algo.to_string()), Some(run.algo)))
        }
    }
}

/// Times cuBLASLt on device-resident fp16 operands (`m x k` times `k x t`,
/// fp32 compute and `D`, any algorithm), `reps` launches after one warm-up,
/// as [`time_gemm`] does: seconds per GEMM and the algorithm.
///
/// # Errors
/// Zero dimensions or repetitions ([`GpuError::Input`]), not built with
/// `cuda`, no device, or a failure.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::time_cublaslt;
/// assert!(time_cublaslt((64, 64, 64), 0).is_err()); // no repetitions
/// ```
pub fn time_cublaslt(
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, LtAlgo), GpuError> {
    if m == 0 || k == 0 || t == 0 || reps == 0 {
        return Err(VerifyError::invalid(
            "time_cublaslt",
            format!("{m} x {k} x {t}, {reps} repetitions"),
            "needs nonzero dimensions and repetitions",
        )
        .into());
    }
    #[cfg(feature = "cuda")]
    {
        lt::time_cublaslt((m, k, t), reps)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}

/// Runs our GEMM kernel on device 0 (timing and bit comparisons in the GPU
/// tests): `D = C + A B` for operand values, row-major.
///
/// # Errors
/// Bad shapes ([`GpuError::Input`]), a record without a kernel
/// ([`GpuError::Unsupported`]), not built with `cuda`, no device, or a
/// launch failure.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::gemm_on_device;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// // Refused before any device work: B has 3 values, a 1 x 2 x 1 product needs 2.
/// let e = gemm_on_device(&record, &[1.0, 2.0], &[3.0, 4.0, 5.0], None, (1, 2, 1));
/// assert!(matches!(e, Err(GpuError::Input(_))));
/// let e = gemm_on_device(&record, &[], &[], None, (0, 2, 1)); // an empty dimension
/// assert!(matches!(e, Err(GpuError::Input(_))));
/// let e = gemm_on_device(&record, &[1.0; 2], &[1.0], None, (1 << 63, 2, 1)); // m k overflows
/// assert!(matches!(e, Err(GpuError::Input(_))));
/// ```
/// On an sm90 device, `D` equals the block-FMA model's bit for bit:
/// ```no_run
/// use boundgate::kernels::mpfma::blockfma::BlockFma;
/// use boundgate::kernels::mpfma::gpu::gemm_on_device;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let (m, k, t) = (32, 64, 16);
/// // fp16 values: multiples of 2^-10 in [-1/2, 1/2).
/// let v = |n: usize| (0..n).map(|i| ((i * 37) % 1024) as f64 / 1024.0 - 0.5).collect::<Vec<_>>();
/// let (a, b) = (v(m * k), v(k * t));
/// let d = gemm_on_device(&record, &a, &b, None, (m, k, t)).unwrap();
/// let model = BlockFma::new(&record).gemm(&a, &b, m, k, t).unwrap();
/// assert!(d.iter().zip(&model).all(|(g, c)| g.to_bits() == c.to_bits()));
/// ```
pub fn gemm_on_device(
    record: &TcRecord,
    a: &[f64],
    b: &[f64],
    c: Option<&[f64]>,
    shape: (usize, usize, usize),
) -> std::result::Result<Vec<f64>, GpuError> {
    gemm_on_device_with(GemmKernel::Simple, record, a, b, c, shape)
}

/// [`gemm_on_device`] with the kernel chosen.
///
/// # Errors
/// As [`gemm_on_device`].
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::{GemmKernel, gemm_on_device_with};
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let record = TcRecord::lookup(Arch::Sm90, TcInput::Tf32, TcOutput::Fp32).unwrap();
/// // The wide kernel has no tf32 entry: said before any device work.
/// let e = gemm_on_device_with(GemmKernel::Wide, &record, &[1.0], &[1.0], None, (1, 1, 1));
/// assert!(matches!(e, Err(GpuError::Unsupported(_))));
/// ```
pub fn gemm_on_device_with(
    kernel: GemmKernel,
    record: &TcRecord,
    a: &[f64],
    b: &[f64],
    c: Option<&[f64]>,
    shape: (usize, usize, usize),
) -> std::result::Result<Vec<f64>, GpuError> {
    check_shape((a, b, c), shape)?;
    kernel.check_offsets(shape)?;
    kernel.entry(record.input, record.output)?;
    #[cfg(feature = "cuda")]
    {
        device::gemm(kernel, record, (a, b, c), shape)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}

/// Times our simple kernel ([`time_gemm_with`]: any of them) and cuBLAS `GemmEx` on the same device-resident
/// fp16 operands (`m x k` times `k x t`, fp32 accumulation), `reps` launches
/// each after one warm-up: returns the seconds per GEMM `(ours, cublas)`.
/// Only the launches are timed (the stream is synchronized around them).
///
/// # Errors
/// A shape that is not a whole number of tiles or zero repetitions
/// ([`GpuError::Input`]), not built with `cuda`, no device, or a failure.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::time_gemm;
/// // Refused before any device work: 100 is not a multiple of the simple kernel's 64-wide
/// // tiles, and zero repetitions time nothing.
/// assert!(matches!(time_gemm((100, 64, 64), 10), Err(GpuError::Input(_))));
/// assert!(matches!(time_gemm((64, 64, 64), 0), Err(GpuError::Input(_))));
/// ```
/// On a device:
/// ```no_run
/// use boundgate::kernels::mpfma::gpu::time_gemm;
/// let (n, reps) = (4096, 10);
/// let (ours, cublas) = time_gemm((n, n, n), reps).unwrap();
/// assert!(ours > 0.0 && cublas > 0.0);
/// let tflops = |s: f64| 2.0 * (n as f64).powi(3) / s / 1e12;
/// println!("ours {:.1} TFLOP/s, cuBLAS {:.1} TFLOP/s", tflops(ours), tflops(cublas));
/// ```
pub fn time_gemm(
    shape: (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, f64), GpuError> {
    time_gemm_with(GemmKernel::Simple, shape, reps)
}

/// [`time_gemm`] with the kernel chosen.
///
/// # Errors
/// As [`time_gemm`].
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::mpfma::gpu::{GemmKernel, time_gemm_with};
/// // 100 is not a whole number of the wide kernel's 128-wide tiles.
/// let e = time_gemm_with(GemmKernel::Wide, (100, 64, 128), 10);
/// assert!(matches!(e, Err(GpuError::Input(_))));
/// ```
pub fn time_gemm_with(
    kernel: GemmKernel,
    shape: (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, f64), GpuError> {
    let (m, k, t) = shape;
    if m == 0 || k == 0 || t == 0 || kernel.padded(shape) != shape {
        return Err(VerifyError::invalid(
            "shape",
            format!("{m} x {k} x {t}"),
            format!(
                "time_gemm ({}) needs m, t nonzero multiples of {} and k of 16",
                kernel.name(),
                kernel.tile()
            ),
        )
        .into());
    }
    if reps == 0 {
        return Err(VerifyError::invalid("repetitions", 0, "must be at least 1").into());
    }
    kernel.check_offsets(shape)?;
    #[cfg(feature = "cuda")]
    {
        device::time_gemm(kernel, shape, reps)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}
