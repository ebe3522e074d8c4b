//! Our GEMM (`kernels/mpfma_gemm.cu`) on device 0 (feature `cuda`): the
//! module built once per process, operands converted to the kernel's
//! storage, padded to its tiles, launched, and D cropped back; the GPU as a
//! probe unit; and the timing of our kernel against cuBLAS `GemmEx`.

use super::super::probe::MatrixUnit;
use super::super::record::{TcInput, TcOutput, TcRecord};
use super::GemmKernel;
use crate::gpu::module::{as_int, driver};
use crate::gpu::{GpuError, KernelModule, guard, sources};
use boundgate_verify::format::Format;
use cudarc::driver::{CudaFunction, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};
use std::sync::OnceLock;

/// `kernels/mpfma_gemm.cu` on device 0, compiled by NVRTC once per process
/// (the probes call the kernel thousands of times). `KernelModule::open`
/// probes the device first, so a machine without a driver gets a typed
/// error here, never a panic of the bindings.
pub(super) fn module() -> Result<&'static KernelModule, GpuError> {
    static MODULE: OnceLock<Result<KernelModule, GpuError>> = OnceLock::new();
    MODULE
        .get_or_init(|| guard::catch(|| KernelModule::open(&sources::MPFMA_GEMM)))
        .as_ref()
        .map_err(Clone::clone)
}

/// The module holding `kernel`: [`module`] or, for the wgmma kernel,
/// `kernels/mpfma_wgmma.cu` (sm_90a), likewise compiled once per process.
fn module_of(kernel: GemmKernel) -> Result<&'static KernelModule, GpuError> {
    static WGMMA: OnceLock<Result<KernelModule, GpuError>> = OnceLock::new();
    match kernel {
        GemmKernel::Warpgroup => WGMMA
            .get_or_init(|| guard::catch(|| KernelModule::open(&kernel.source())))
            .as_ref()
            .map_err(Clone::clone),
        _ => module(),
    }
}

/// Whether [`GemmKernel::launch`]'s grid for a padded `pm x pt` output (a
/// block per tile: `pt / cols` by `pm / rows`) is one the driver launches.
/// [`GemmKernel::check_offsets`] allows a padded `A` of up to `2^31 - 1`
/// elements, so with a short `k` up to `2^27` rows: `m = 2^22` (`k = 1`,
/// padded to 16, `t = 1`) is `65536` blocks of 64 rows in `y`, which
/// `cuLaunchKernel` refuses. Until this review that was found only there,
/// after `A`, `B` and `D` had been converted, padded and uploaded; now it is
/// refused before any device work (tests/gpu_host_edges.rs,
/// `a_gemm_taller_than_the_grid_is_refused_before_the_device`).
fn check_grid(kernel: GemmKernel, (pm, pt): (usize, usize)) -> Result<(), GpuError> {
    let (rows, cols) = kernel.block_tile();
    crate::gpu::grid::check_grid(
        &format!("{} kernel", kernel.name()),
        &format!("a padded {pm} x {pt} D in blocks of {rows} x {cols}"),
        (pt / cols, pm / rows),
    )
}

/// Every finite operand must be a value of the format the kernel reads it in
/// (`A`, `B`: the record's input format; `C`: fp16 or fp32, the output's),
/// since the conversions below ([`f16_bits`], [`bf16_bits`], [`f32s`]) are
/// exact only on such values. Until this review an other value was rounded
/// silently there (for fp16 twice, through f32), so the device computed on
/// other operands than the caller's model and a difference read as the
/// kernel's (tests/gpu_host_edges.rs,
/// `gemm_operands_outside_the_input_format_are_refused_before_the_device`).
/// The vendor calls check the same (`vendor::check_vendor_call`).
fn check_operand_values(
    record: &TcRecord,
    (a, b, c): (&[f64], &[f64], Option<&[f64]>),
) -> Result<(), GpuError> {
    use boundgate_verify::VerifyError;
    use boundgate_verify::format::RoundingMode;
    let input = record.input.operand();
    let output = match record.output {
        TcOutput::Fp16 => Format::FP16,
        TcOutput::Fp32 => Format::FP32,
    };
    let operands = [
        ("A", a, input),
        ("B", b, input),
        ("C", c.unwrap_or(&[]), output),
    ];
    for (name, values, format) in operands {
        if let Some(i) = values
            .iter()
            .position(|&x| x.is_finite() && format.round(x, RoundingMode::NearestEven) != x)
        {
            return Err(VerifyError::invalid(
                &format!("{name}[{i}]"),
                format!("{:e}", values[i]),
                format!("not a {} value", format.name()),
            )
            .into());
        }
    }
    Ok(())
}

/// Zero-padded copy of a row-major `rows x cols` matrix as `prows x pcols`.
fn padded(data: &[f64], (rows, cols): (usize, usize), (prows, pcols): (usize, usize)) -> Vec<f64> {
    let mut out = vec![0.0; prows * pcols];
    for r in 0..rows {
        out[r * pcols..r * pcols + cols].copy_from_slice(&data[r * cols..(r + 1) * cols]);
    }
    out
}

/// fp16 bit patterns of fp16 values (exact in f32, so `from_f32` does not
/// round, and `from_f64`'s double rounding is avoided:
/// docs/findings/half-crate.md).
pub(super) fn f16_bits(v: &[f64]) -> Vec<u16> {
    v.iter()
        .map(|&x| half::f16::from_f32(x as f32).to_bits())
        .collect()
}

/// bf16 bit patterns of bf16 values (exact in f32).
pub(super) fn bf16_bits(v: &[f64]) -> Vec<u16> {
    v.iter()
        .map(|&x| half::bf16::from_f32(x as f32).to_bits())
        .collect()
}

/// f32 values of f32 (or tf32) values: exact.
pub(super) fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// fp16 operands of an `m x k` by `k x t` product for timing: small integers,
/// exact in fp16 (the values do not matter for the time).
pub(super) fn timing_operands((m, k, t): (usize, usize, usize)) -> (Vec<u16>, Vec<u16>) {
    let a = (0..m * k)
        .map(|i| half::f16::from_f32((i % 7) as f32 - 3.0).to_bits())
        .collect();
    let b = (0..k * t)
        .map(|i| half::f16::from_f32((i % 5) as f32 - 2.0).to_bits())
        .collect();
    (a, b)
}

/// One launch of an entry point on padded operands: `(A, B, C or null, D, M, N, K)`.
struct Launch<'a> {
    module: &'a KernelModule,
    function: &'a CudaFunction,
    config: LaunchConfig,
    /// Padded `(m, t, k)`.
    dims: (i32, i32, i32),
}

impl Launch<'_> {
    /// Uploads `a`, `b` (and `c`), launches, and returns the padded D.
    fn run<I: DeviceRepr, O: DeviceRepr + ValidAsZeroBits + Default + Clone>(
        &self,
        a: &[I],
        b: &[I],
        c: Option<&[O]>,
        len_d: usize,
    ) -> Result<Vec<O>, GpuError> {
        let m = self.module;
        let d_a = m.upload(a)?;
        let d_b = m.upload(b)?;
        let d_c = c.map(|c| m.upload(c)).transpose()?;
        // Zeroed, although the kernel writes every padded element: this path
        // serves the bit comparisons and the probes (small D), where the
        // memset costs nothing; the timed path allocates its own D.
        let mut d_d = m.zeros::<O>(len_d)?;
        let null: u64 = 0;
        let (rows, cols, inner) = self.dims;
        // SAFETY: the arguments match the kernel's signature (A, B, C or
        // null, D, M, N, K) and the buffers have the padded sizes it indexes.
        unsafe {
            let mut builder = m.stream.launch_builder(self.function);
            builder.arg(&d_a).arg(&d_b);
            match &d_c {
                Some(d_c) => builder.arg(d_c),
                None => builder.arg(&null),
            };
            builder.arg(&mut d_d).arg(&rows).arg(&cols).arg(&inner);
            builder
                .launch(self.config)
                .map_err(driver("launch mpfma_gemm"))?;
        }
        let out = m.download(&d_d)?;
        m.stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))?;
        Ok(out)
    }
}

/// `D = C + A B` on the device for operand values (row-major, already
/// values of the record's input format), cropped to `m x t`.
pub(super) fn gemm(
    kernel: GemmKernel,
    record: &TcRecord,
    (a, b, c): (&[f64], &[f64], Option<&[f64]>),
    (m, k, t): (usize, usize, usize),
) -> Result<Vec<f64>, GpuError> {
    let name = kernel.entry(record.input, record.output)?;
    let (pm, pk, pt) = kernel.padded((m, k, t));
    let dims = (as_int("m", pm)?, as_int("t", pt)?, as_int("k", pk)?);
    check_grid(kernel, (pm, pt))?;
    check_operand_values(record, (a, b, c))?;
    let module = module_of(kernel)?;
    let ap = padded(a, (m, k), (pm, pk));
    let bp = padded(b, (k, t), (pk, pt));
    let cp = c.map(|c| padded(c, (m, t), (pm, pt)));
    let len_d = pm * pt;
    guard::catch(|| {
        let function = kernel.load(module, name)?;
        let launch = Launch {
            module,
            function: &function,
            config: kernel.launch(pm, pt),
            dims,
        };
        let d: Vec<f64> = match (record.input, record.output) {
            (TcInput::Fp16, TcOutput::Fp16) => launch
                .run(
                    &f16_bits(&ap),
                    &f16_bits(&bp),
                    cp.as_deref().map(f16_bits).as_deref(),
                    len_d,
                )?
                .into_iter()
                .map(|x| half::f16::from_bits(x).to_f64())
                .collect(),
            (TcInput::Fp16, _) => launch
                .run(
                    &f16_bits(&ap),
                    &f16_bits(&bp),
                    cp.as_deref().map(f32s).as_deref(),
                    len_d,
                )?
                .into_iter()
                .map(f64::from)
                .collect(),
            (TcInput::Bf16, _) => launch
                .run(
                    &bf16_bits(&ap),
                    &bf16_bits(&bp),
                    cp.as_deref().map(f32s).as_deref(),
                    len_d,
                )?
                .into_iter()
                .map(f64::from)
                .collect(),
            // tf32 values stored as f32 (exact; the unit's conversion keeps them).
            _ => launch
                .run(
                    &f32s(&ap),
                    &f32s(&bp),
                    cp.as_deref().map(f32s).as_deref(),
                    len_d,
                )?
                .into_iter()
                .map(f64::from)
                .collect(),
        };
        Ok((0..m)
            .flat_map(|r| d[r * pt..r * pt + t].iter().copied())
            .collect())
    })
}

/// The GPU as a probe unit: our simple kernel with `m = t = 1`.
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
        // Through the checked entry point: lengths and an empty x are refused
        // before any device work.
        let d = super::gemm_on_device(&self.record, x, y, Some(&[c]), (1, x.len(), 1))?;
        Ok(d[0])
    }
}

/// Seconds per launch of our kernel (fp16 in, fp32 accumulation) on
/// device-resident operands, and the same for cuBLAS `GemmEx` on the same
/// operands: `reps` back-to-back launches each after one warm-up, the stream
/// synchronised around them. The shape was checked by [`super::time_gemm_with`].
pub(super) fn time_gemm(
    kernel: GemmKernel,
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> Result<(f64, f64), GpuError> {
    let name = kernel.entry(TcInput::Fp16, TcOutput::Fp32)?;
    let (rows, cols, inner) = (as_int("m", m)?, as_int("t", t)?, as_int("k", k)?);
    check_grid(kernel, (m, t))?;
    let module = module_of(kernel)?;
    guard::catch(|| {
        let (a, b) = timing_operands((m, k, t));
        let d_a = module.upload(&a)?;
        let d_b = module.upload(&b)?;
        let mut d_d = module.zeros::<f32>(m * t)?;
        let function = kernel.load(module, name)?;
        let config = kernel.launch(m, t);
        let null: u64 = 0;
        let ours = seconds_per_run(module, reps, || {
            // SAFETY: the kernel's signature (A, B, C = null, D, M, N, K) and buffer sizes.
            unsafe {
                module
                    .stream
                    .launch_builder(&function)
                    .arg(&d_a)
                    .arg(&d_b)
                    .arg(&null)
                    .arg(&mut d_d)
                    .arg(&rows)
                    .arg(&cols)
                    .arg(&inner)
                    .launch(config)
                    .map_err(driver("launch mpfma_gemm"))?;
            }
            Ok(())
        })?;
        let theirs = super::cublas::time_gemm_ex(module, (&d_a, &d_b), (m, k, t), reps)?;
        Ok((ours, theirs))
    })
}

/// Mean seconds per run of `enqueue` over `reps` back-to-back runs after one
/// warm-up, the stream synchronised before and after (a GEMM launch is long
/// enough that the mean of a batch is the usual measure; the launches overlap
/// no host work).
pub(super) fn seconds_per_run(
    module: &KernelModule,
    reps: usize,
    mut enqueue: impl FnMut() -> Result<(), GpuError>,
) -> Result<f64, GpuError> {
    crate::gpu::timing::require_repetitions(reps)?;
    let sync = || {
        module
            .stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))
    };
    enqueue()?;
    sync()?;
    let start = std::time::Instant::now();
    for _ in 0..reps {
        enqueue()?;
    }
    sync()?;
    Ok(start.elapsed().as_secs_f64() / reps as f64)
}
