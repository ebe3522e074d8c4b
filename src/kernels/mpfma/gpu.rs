//! The family's GPU path (feature `cuda`): `kernels/mpfma_gemm.cu` (our blocked
//! GEMM on `mma.sync`, Algorithm 1's order), the probes on it, and cuBLAS
//! `GemmEx` as the vendor kernel to audit.
//!
//! Without the feature, or without a device, every entry point answers with
//! one line of reason and the CPU model runs where a fallback is allowed.
//! The device is used only after `crate::gpu::probe` has opened it (so the
//! driver library exists and cudarc cannot panic on loading it); cudarc calls
//! are wrapped in `catch_unwind` as a last resort.

use super::gemm::{GemmConfig, GemmOperands, GemmRun, run_model};
use super::probe::MatrixUnit;
use super::record::{Arch, TcInput, TcRecord};
use crate::error::{Error, Result};

/// `kernels/mpfma_gemm.cu`, embedded.
pub const GEMM_SOURCE: &str = include_str!("../../../kernels/mpfma_gemm.cu");
/// Its path in the repository (the NVRTC program name).
pub const GEMM_PATH: &str = "kernels/mpfma_gemm.cu";

/// The architecture of device 0, if there is a device with a record.
///
/// # Errors
/// One line saying why not (no driver, not built with `cuda`, no record).
pub fn device_arch() -> std::result::Result<Arch, String> {
    match crate::gpu::probe() {
        crate::gpu::DeviceStatus::Available(info) => {
            let (major, minor) = info.compute_capability;
            Arch::of_compute_capability(major).ok_or_else(|| {
                format!(
                    "{}: no tensor-core record for compute capability {major}.{minor}",
                    info.name
                )
            })
        }
        crate::gpu::DeviceStatus::Unavailable { reason } => Err(reason.to_string()),
    }
}

/// Why `kernels/mpfma_gemm.cu` cannot run `config` on this machine, if it cannot.
fn unsupported(config: &GemmConfig) -> Option<String> {
    if config.alg1 {
        return Some("model alg1 is a CPU model only".into());
    }
    if !matches!(
        config.record.input,
        TcInput::Fp16 | TcInput::Bf16 | TcInput::Tf32
    ) {
        return Some(format!(
            "kernels/mpfma_gemm.cu has no {} variant",
            config.record.input
        ));
    }
    match device_arch() {
        Err(reason) => Some(reason),
        Ok(arch) if arch != config.record.arch => Some(format!(
            "the device is {arch}, the record {}",
            config.record.arch
        )),
        Ok(_) => None,
    }
}

/// Runs `mpfma-gemm` on the GPU: required (`required`), or when possible with
/// the CPU model as the fallback (the run says where it ran).
///
/// # Errors
/// [`Error::Gpu`] when the GPU is required and cannot run the configuration.
pub fn run_or_model(config: &GemmConfig, ops: &GemmOperands, required: bool) -> Result<GemmRun> {
    match unsupported(config) {
        Some(reason) if required => Err(Error::Gpu(reason)),
        Some(reason) => {
            let mut run = run_model(config, ops);
            run.ran_on = format!("cpu model ({reason})");
            Ok(run)
        }
        None => run_on_device(config, ops),
    }
}

#[cfg(not(feature = "cuda"))]
fn run_on_device(_config: &GemmConfig, _ops: &GemmOperands) -> Result<GemmRun> {
    Err(Error::Gpu("built without the `cuda` feature".into()))
}

#[cfg(feature = "cuda")]
fn run_on_device(config: &GemmConfig, ops: &GemmOperands) -> Result<GemmRun> {
    let (m, k, t) = (ops.m, ops.k, ops.t);
    let mut d = device::gemm(&config.record, &ops.a_read, &ops.b_read, None, m, k, t)
        .map_err(Error::Gpu)?;
    if config.fp16_epilogue {
        use boundgate_verify::format::{Format, RoundingMode};
        for v in &mut d {
            *v = Format::FP16.round(*v, RoundingMode::NearestEven);
        }
    }
    // The a-posteriori bound needs the block results: the device gives only
    // the final result, so it is taken from the model, which the tests check
    // against the device bit for bit.
    let model = run_model(config, ops);
    Ok(GemmRun {
        d,
        a_posteriori: model.a_posteriori,
        ran_on: format!(
            "gpu ({})",
            device_arch().map(|a| a.to_string()).unwrap_or_default()
        ),
    })
}

/// A [`MatrixUnit`] on the GPU for a record (our GEMM kernel with `m = t = 1`).
///
/// # Errors
/// Why the device cannot probe this record.
pub fn probe_unit(record: &TcRecord) -> std::result::Result<Box<dyn MatrixUnit>, String> {
    let config = GemmConfig {
        record: *record,
        alg1: false,
        fp16_epilogue: false,
    };
    if let Some(reason) = unsupported(&config) {
        return Err(reason);
    }
    #[cfg(feature = "cuda")]
    {
        Ok(Box::new(device::GpuUnit { record: *record }))
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err("built without the `cuda` feature".into())
    }
}

/// `D = A B` by cuBLAS `GemmEx` (fp16 `A`, `B`; fp32 or fp16 `C`/`D`; fp32
/// compute; `CUBLAS_GEMM_DEFAULT_TENSOR_OP`): the paper's Listing 1.
///
/// # Errors
/// One line: not built with `cuda`, no device, or a cuBLAS failure.
pub fn cublas_gemm_ex(
    a: &[f64],
    b: &[f64],
    (m, k, t): (usize, usize, usize),
    fp16_output: bool,
) -> std::result::Result<Vec<f64>, String> {
    #[cfg(feature = "cuda")]
    {
        device::cublas_gemm_ex(a, b, (m, k, t), fp16_output)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (a, b, m, k, t, fp16_output);
        Err("built without the `cuda` feature".into())
    }
}

/// Runs our GEMM kernel on device 0 (timing and bit comparisons in the GPU
/// tests): `D = C + A B` for operand values, row-major.
///
/// # Errors
/// One line: not built with `cuda`, no device, or a launch failure.
pub fn gemm_on_device(
    record: &TcRecord,
    a: &[f64],
    b: &[f64],
    c: Option<&[f64]>,
    (m, k, t): (usize, usize, usize),
) -> std::result::Result<Vec<f64>, String> {
    #[cfg(feature = "cuda")]
    {
        device::gemm(record, a, b, c, m, k, t)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (record, a, b, c, m, k, t);
        Err("built without the `cuda` feature".into())
    }
}

/// Times `kernels/mpfma_gemm.cu` and cuBLAS `GemmEx` on the same device-resident
/// fp16 operands (`m x k` times `k x t`, fp32 accumulation), `reps` launches
/// each after one warm-up: returns the seconds per GEMM `(ours, cublas)`.
/// Only the launches are timed (the stream is synchronized around them).
///
/// # Errors
/// One line: not built with `cuda`, no device, or a failure.
pub fn time_gemm(
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, f64), String> {
    #[cfg(feature = "cuda")]
    {
        device::time_gemm((m, k, t), reps)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (m, k, t, reps);
        Err("built without the `cuda` feature".into())
    }
}

#[cfg(feature = "cuda")]
mod device {
    use super::{GEMM_PATH, GEMM_SOURCE, MatrixUnit};
    use crate::gpu::nvrtc::{BuildOptions, Target, compile};
    use crate::kernels::mpfma::record::{TcInput, TcOutput, TcRecord};
    use boundgate_verify::format::Format;
    use cudarc::driver::{
        CudaContext, CudaModule, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
    };
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::{Arc, OnceLock};

    struct Device {
        stream: Arc<CudaStream>,
        module: Arc<CudaModule>,
    }

    fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        catch_unwind(AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err("a CUDA library call panicked".to_string()))
    }

    fn device() -> Result<&'static Device, String> {
        static DEVICE: OnceLock<Result<Device, String>> = OnceLock::new();
        DEVICE
            .get_or_init(|| {
                let info = match crate::gpu::probe() {
                    crate::gpu::DeviceStatus::Available(info) => info,
                    crate::gpu::DeviceStatus::Unavailable { reason } => {
                        return Err(reason.to_string());
                    }
                };
                guarded(|| {
                    let ctx = CudaContext::new(0).map_err(|e| format!("open device 0: {e:?}"))?;
                    let (major, minor) = info.compute_capability;
                    let built = compile(
                        GEMM_PATH,
                        GEMM_SOURCE,
                        &BuildOptions::new(Target::Cubin(major, minor)),
                    )
                    .map_err(|e| e.to_string())?;
                    let module = ctx
                        .load_module(cudarc::nvrtc::Ptx::from_binary(built.image))
                        .map_err(|e| format!("load {GEMM_PATH}: {e:?}"))?;
                    let stream = ctx.new_stream().map_err(|e| format!("new stream: {e:?}"))?;
                    Ok(Device { stream, module })
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn round_up(x: usize, to: usize) -> usize {
        x.div_ceil(to) * to
    }

    /// Zero-padded copy of a row-major matrix.
    fn padded(data: &[f64], rows: usize, cols: usize, prow: usize, pcol: usize) -> Vec<f64> {
        let mut out = vec![0.0; prow * pcol];
        for r in 0..rows {
            out[r * pcol..r * pcol + cols].copy_from_slice(&data[r * cols..(r + 1) * cols]);
        }
        out
    }

    fn f16_bits(v: &[f64]) -> Vec<u16> {
        // Values of fp16: exact in f32, so from_f32 does not round.
        v.iter()
            .map(|&x| half::f16::from_f32(x as f32).to_bits())
            .collect()
    }

    fn bf16_bits(v: &[f64]) -> Vec<u16> {
        v.iter()
            .map(|&x| half::bf16::from_f32(x as f32).to_bits())
            .collect()
    }

    fn f32s(v: &[f64]) -> Vec<f32> {
        v.iter().map(|&x| x as f32).collect()
    }

    /// `D = C + A B` on the device for operand values (row-major), cropped.
    pub(super) fn gemm(
        record: &TcRecord,
        a: &[f64],
        b: &[f64],
        c: Option<&[f64]>,
        m: usize,
        k: usize,
        t: usize,
    ) -> Result<Vec<f64>, String> {
        let dev = device()?;
        let (pm, pk, pt) = (round_up(m, 64), round_up(k, 16), round_up(t, 64));
        let ap = padded(a, m, k, pm, pk);
        let bp = padded(b, k, t, pk, pt);
        let cp = c.map(|c| padded(c, m, t, pm, pt));
        let (name, fp16_acc) = match (record.input, record.output) {
            (TcInput::Fp16, TcOutput::Fp32) => ("mpfma_gemm_f16_f32", false),
            (TcInput::Fp16, TcOutput::Fp16) => ("mpfma_gemm_f16_f16", true),
            (TcInput::Bf16, TcOutput::Fp32) => ("mpfma_gemm_bf16_f32", false),
            (TcInput::Tf32, TcOutput::Fp32) => ("mpfma_gemm_tf32_f32", false),
            _ => return Err(format!("no kernel for {}", record.label())),
        };
        guarded(|| {
            let f = dev
                .module
                .load_function(name)
                .map_err(|e| format!("{name}: {e:?}"))?;
            let s = &dev.stream;
            let err = |what: &str| {
                let what = what.to_string();
                move |e: cudarc::driver::DriverError| format!("{what}: {e:?}")
            };
            let cfg = LaunchConfig {
                grid_dim: ((pt / 64) as u32, (pm / 64) as u32, 1),
                block_dim: (128, 1, 1),
                shared_mem_bytes: 0,
            };
            let dims = (pm as i32, pt as i32, pk as i32);
            macro_rules! launch {
                ($ain:expr, $bin:expr, $cin:expr, $zero:expr, $to_f64:expr) => {{
                    let d_a = s.clone_htod(&$ain).map_err(err("copy A"))?;
                    let d_b = s.clone_htod(&$bin).map_err(err("copy B"))?;
                    let has_c = $cin.is_some();
                    let d_c = s
                        .clone_htod(&$cin.unwrap_or_else(|| vec![$zero; 1]))
                        .map_err(err("copy C"))?;
                    let mut d_d = s
                        .clone_htod(&vec![$zero; pm * pt])
                        .map_err(err("alloc D"))?;
                    let null: u64 = 0;
                    // SAFETY: the arguments match the kernel's signature (A, B, C or
                    // null, D, M, N, K) and the buffers have the padded sizes it indexes.
                    unsafe {
                        let mut builder = s.launch_builder(&f);
                        builder.arg(&d_a).arg(&d_b);
                        if has_c {
                            builder.arg(&d_c);
                        } else {
                            builder.arg(&null);
                        }
                        builder.arg(&mut d_d).arg(&dims.0).arg(&dims.1).arg(&dims.2);
                        builder.launch(cfg).map_err(err(name))?;
                    }
                    let out = s.clone_dtoh(&d_d).map_err(err("copy D back"))?;
                    s.synchronize().map_err(err("synchronize"))?;
                    let mut cropped = Vec::with_capacity(m * t);
                    for r in 0..m {
                        for col in 0..t {
                            cropped.push($to_f64(out[r * pt + col]));
                        }
                    }
                    Ok(cropped)
                }};
            }
            match (record.input, fp16_acc) {
                (TcInput::Fp16, true) => launch!(
                    f16_bits(&ap),
                    f16_bits(&bp),
                    cp.as_ref().map(|c| f16_bits(c)),
                    0u16,
                    |x: u16| half::f16::from_bits(x).to_f64()
                ),
                (TcInput::Fp16, false) => launch!(
                    f16_bits(&ap),
                    f16_bits(&bp),
                    cp.as_ref().map(|c| f32s(c)),
                    0f32,
                    f64::from
                ),
                (TcInput::Bf16, _) => launch!(
                    bf16_bits(&ap),
                    bf16_bits(&bp),
                    cp.as_ref().map(|c| f32s(c)),
                    0f32,
                    f64::from
                ),
                _ => launch!(
                    f32s(&ap),
                    f32s(&bp),
                    cp.as_ref().map(|c| f32s(c)),
                    0f32,
                    f64::from
                ),
            }
        })
    }

    /// The GPU as a probe unit.
    pub(super) struct GpuUnit {
        pub(super) record: TcRecord,
    }

    impl MatrixUnit for GpuUnit {
        fn describe(&self) -> String {
            format!("GPU, kernels/mpfma_gemm.cu ({})", self.record.label())
        }
        fn input(&self) -> TcInput {
            self.record.input
        }
        fn accumulator(&self) -> Format {
            self.record.accumulator
        }
        fn dot(&self, x: &[f64], y: &[f64], c: f64) -> crate::error::Result<f64> {
            let k = x.len();
            gemm(&self.record, x, y, Some(&[c]), 1, k, 1)
                .map(|d| d[0])
                .map_err(crate::error::Error::Gpu)
        }
    }

    /// cuBLAS `GemmEx` for row-major operands: `D^T = B^T A^T` in column-major.
    pub(super) fn cublas_gemm_ex(
        a: &[f64],
        b: &[f64],
        (m, k, t): (usize, usize, usize),
        fp16_output: bool,
    ) -> Result<Vec<f64>, String> {
        use cudarc::cublas::{CudaBlas, result, sys};
        let dev = device()?;
        guarded(|| {
            let s = &dev.stream;
            let blas = CudaBlas::new(s.clone()).map_err(|e| format!("cuBLAS: {e:?}"))?;
            let d_a = s.clone_htod(&f16_bits(a)).map_err(|e| format!("{e:?}"))?;
            let d_b = s.clone_htod(&f16_bits(b)).map_err(|e| format!("{e:?}"))?;
            let (alpha, beta) = (1.0f32, 0.0f32);
            let (mi, ki, ti) = (m as i32, k as i32, t as i32);
            let out: Vec<f64> = if fp16_output {
                let mut d_d = s
                    .clone_htod(&vec![0u16; m * t])
                    .map_err(|e| format!("{e:?}"))?;
                {
                    let (pa, _ra) = d_a.device_ptr(s);
                    let (pb, _rb) = d_b.device_ptr(s);
                    let (pd, _rd) = d_d.device_ptr_mut(s);
                    // SAFETY: column-major views of the row-major buffers with the
                    // sizes above; the pointers live until the records drop.
                    unsafe {
                        result::gemm_ex(
                            *blas.handle(),
                            sys::cublasOperation_t::CUBLAS_OP_N,
                            sys::cublasOperation_t::CUBLAS_OP_N,
                            ti,
                            mi,
                            ki,
                            (&alpha) as *const f32 as *const _,
                            pb as *const _,
                            sys::cudaDataType::CUDA_R_16F,
                            ti,
                            pa as *const _,
                            sys::cudaDataType::CUDA_R_16F,
                            ki,
                            (&beta) as *const f32 as *const _,
                            pd as *mut _,
                            sys::cudaDataType::CUDA_R_16F,
                            ti,
                            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
                        )
                        .map_err(|e| format!("cublasGemmEx: {e:?}"))?;
                    }
                }
                let host = s.clone_dtoh(&d_d).map_err(|e| format!("{e:?}"))?;
                host.into_iter()
                    .map(|x| half::f16::from_bits(x).to_f64())
                    .collect()
            } else {
                let mut d_d = s
                    .clone_htod(&vec![0f32; m * t])
                    .map_err(|e| format!("{e:?}"))?;
                {
                    let (pa, _ra) = d_a.device_ptr(s);
                    let (pb, _rb) = d_b.device_ptr(s);
                    let (pd, _rd) = d_d.device_ptr_mut(s);
                    // SAFETY: as above.
                    unsafe {
                        result::gemm_ex(
                            *blas.handle(),
                            sys::cublasOperation_t::CUBLAS_OP_N,
                            sys::cublasOperation_t::CUBLAS_OP_N,
                            ti,
                            mi,
                            ki,
                            (&alpha) as *const f32 as *const _,
                            pb as *const _,
                            sys::cudaDataType::CUDA_R_16F,
                            ti,
                            pa as *const _,
                            sys::cudaDataType::CUDA_R_16F,
                            ki,
                            (&beta) as *const f32 as *const _,
                            pd as *mut _,
                            sys::cudaDataType::CUDA_R_32F,
                            ti,
                            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
                        )
                        .map_err(|e| format!("cublasGemmEx: {e:?}"))?;
                    }
                }
                let host = s.clone_dtoh(&d_d).map_err(|e| format!("{e:?}"))?;
                host.into_iter().map(f64::from).collect()
            };
            s.synchronize().map_err(|e| format!("{e:?}"))?;
            Ok(out)
        })
    }

    /// See [`super::time_gemm`]. `m`, `t` multiples of 64 and `k` of 16.
    pub(super) fn time_gemm(
        (m, k, t): (usize, usize, usize),
        reps: usize,
    ) -> Result<(f64, f64), String> {
        use cudarc::cublas::{CudaBlas, result, sys};
        if m % 64 != 0 || t % 64 != 0 || k % 16 != 0 || reps == 0 {
            return Err("time_gemm needs m, t multiples of 64, k of 16 and reps >= 1".into());
        }
        let dev = device()?;
        guarded(|| {
            let s = &dev.stream;
            let e = |what: &'static str| {
                move |err: cudarc::driver::DriverError| format!("{what}: {err:?}")
            };
            // Small integers in fp16: the values do not matter for the timing.
            let a: Vec<u16> = (0..m * k)
                .map(|i| half::f16::from_f32((i % 7) as f32 - 3.0).to_bits())
                .collect();
            let b: Vec<u16> = (0..k * t)
                .map(|i| half::f16::from_f32((i % 5) as f32 - 2.0).to_bits())
                .collect();
            let d_a = s.clone_htod(&a).map_err(e("copy A"))?;
            let d_b = s.clone_htod(&b).map_err(e("copy B"))?;
            let mut d_d = s.clone_htod(&vec![0f32; m * t]).map_err(e("alloc D"))?;
            let f = dev
                .module
                .load_function("mpfma_gemm_f16_f32")
                .map_err(|err| format!("{err:?}"))?;
            let cfg = LaunchConfig {
                grid_dim: ((t / 64) as u32, (m / 64) as u32, 1),
                block_dim: (128, 1, 1),
                shared_mem_bytes: 0,
            };
            let (mi, ki, ti) = (m as i32, k as i32, t as i32);
            let null: u64 = 0;
            let mut ours = || -> Result<(), String> {
                // SAFETY: the kernel's signature (A, B, C = null, D, M, N, K) and buffer sizes.
                unsafe {
                    s.launch_builder(&f)
                        .arg(&d_a)
                        .arg(&d_b)
                        .arg(&null)
                        .arg(&mut d_d)
                        .arg(&mi)
                        .arg(&ti)
                        .arg(&ki)
                        .launch(cfg)
                        .map_err(e("launch"))?;
                }
                Ok(())
            };
            ours()?;
            s.synchronize().map_err(e("synchronize"))?;
            let start = std::time::Instant::now();
            for _ in 0..reps {
                ours()?;
            }
            s.synchronize().map_err(e("synchronize"))?;
            let ours_s = start.elapsed().as_secs_f64() / reps as f64;

            let blas = CudaBlas::new(s.clone()).map_err(|err| format!("cuBLAS: {err:?}"))?;
            let mut d_c = s.clone_htod(&vec![0f32; m * t]).map_err(e("alloc C"))?;
            let (alpha, beta) = (1.0f32, 0.0f32);
            let mut theirs = || -> Result<(), String> {
                let (pa, _ra) = d_a.device_ptr(s);
                let (pb, _rb) = d_b.device_ptr(s);
                let (pc, _rc) = d_c.device_ptr_mut(s);
                // SAFETY: column-major views of the row-major buffers (D^T = B^T A^T).
                unsafe {
                    result::gemm_ex(
                        *blas.handle(),
                        sys::cublasOperation_t::CUBLAS_OP_N,
                        sys::cublasOperation_t::CUBLAS_OP_N,
                        ti,
                        mi,
                        ki,
                        (&alpha) as *const f32 as *const _,
                        pb as *const _,
                        sys::cudaDataType::CUDA_R_16F,
                        ti,
                        pa as *const _,
                        sys::cudaDataType::CUDA_R_16F,
                        ki,
                        (&beta) as *const f32 as *const _,
                        pc as *mut _,
                        sys::cudaDataType::CUDA_R_32F,
                        ti,
                        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                        sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
                    )
                    .map_err(|err| format!("cublasGemmEx: {err:?}"))
                }
            };
            theirs()?;
            s.synchronize().map_err(e("synchronize"))?;
            let start = std::time::Instant::now();
            for _ in 0..reps {
                theirs()?;
            }
            s.synchronize().map_err(e("synchronize"))?;
            let theirs_s = start.elapsed().as_secs_f64() / reps as f64;
            Ok((ours_s, theirs_s))
        })
    }
}
