//! The family's GPU path (feature `cuda`): `kernels/mpfma_gemm.cu` (our blocked
//! GEMM on `mma.sync`, Algorithm 1's order), the probes on it, and cuBLAS
//! `GemmEx` and cuBLASLt `cublasLtMatmul` as the vendor kernels to audit.
//!
//! Without the feature, or without a device, every entry point answers with
//! one line of reason and the CPU model runs where a fallback is allowed.
//! The device is used only after `crate::gpu::probe` has opened it (so the
//! driver library exists and cudarc cannot panic on loading it); cudarc calls
//! are wrapped in `catch_unwind` as a last resort.

use super::gemm::{GemmConfig, GemmOperands, GemmRun, run_model};
use super::probe::MatrixUnit;
use super::record::{Arch, TcInput, TcOutput, TcRecord};
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
    let mut d = device::gemm(
        GemmKernel::Simple,
        &config.record,
        &ops.a_read,
        &ops.b_read,
        None,
        m,
        k,
        t,
    )
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

/// A vendor GEMM to audit: cuBLAS `GemmEx` (the paper's Listing 1) or
/// cuBLASLt `cublasLtMatmul` (the library frameworks call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// cuBLAS `cublasGemmEx`, `CUBLAS_GEMM_DEFAULT_TENSOR_OP` (fp16 inputs only here).
    GemmEx,
    /// cuBLASLt `cublasLtMatmul` with the heuristic's first algorithm.
    Lt,
}

impl Vendor {
    /// Both vendors.
    pub const ALL: [Vendor; 2] = [Vendor::GemmEx, Vendor::Lt];

    /// The name used in options and reports.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::GemmEx => "gemmex",
            Vendor::Lt => "cublaslt",
        }
    }
}

impl std::str::FromStr for Vendor {
    type Err = Error;
    fn from_str(s: &str) -> Result<Vendor> {
        let lower = s.trim().to_ascii_lowercase();
        Vendor::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| Error::usage(format!("unknown vendor `{s}` (known: gemmex, cublaslt)")))
    }
}

impl std::fmt::Display for Vendor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which cuBLASLt algorithms the heuristic may pick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtSplitK {
    /// Any (the library's default: what an application gets).
    Allowed,
    /// Only algorithms without a split-K reduction
    /// (`CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = CUBLASLT_REDUCTION_SCHEME_NONE`),
    /// so every element is one chain of block FMAs, the order the rigorous
    /// block-FMA bound assumes.
    Forbidden,
}

/// The algorithm cuBLASLt's heuristic chose (`cublasLtMatmulAlgoConfigGetAttribute`;
/// `None` where the library did not answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LtAlgo {
    /// `CUBLASLT_ALGO_CONFIG_ID`.
    pub id: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_TILE_ID`.
    pub tile: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_STAGES_ID`.
    pub stages: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_SPLITK_NUM` (1 or 0: no split).
    pub split_k: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME` (0: none).
    pub reduction_scheme: Option<u32>,
}

impl LtAlgo {
    /// The inner dimension is not split: each element is one chain (split-K 0 or 1,
    /// no reduction scheme). `false` when the library did not say.
    pub fn single_chain(&self) -> bool {
        matches!(self.split_k, Some(0 | 1)) && self.reduction_scheme == Some(0)
    }
}

impl std::fmt::Display for LtAlgo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |v: Option<u32>| v.map_or("?".to_string(), |v| v.to_string());
        write!(
            f,
            "algo {}, tile {}, stages {}, split-K {}, reduction scheme {}",
            s(self.id),
            s(self.tile),
            s(self.stages),
            s(self.split_k),
            s(self.reduction_scheme)
        )
    }
}

/// The result of a cuBLASLt call: `D` (row-major, as `f64`) and the algorithm.
#[derive(Clone, Debug)]
pub struct LtRun {
    /// `D = A B`, row-major `m x t`.
    pub d: Vec<f64>,
    /// The algorithm that computed it.
    pub algo: LtAlgo,
}

/// Checks a cuBLASLt call before any device work: supported formats
/// (fp16 with fp32 or fp16 `D`; bf16, tf32 with fp32 `D`), nonzero
/// dimensions, lengths `m k` and `k t`, and every finite operand exactly a
/// value of the input format (so no conversion happens on the device: tf32
/// values are passed as fp32 and the unit's truncation leaves them unchanged).
fn check_lt_call(
    input: TcInput,
    a: &[f64],
    b: &[f64],
    (m, k, t): (usize, usize, usize),
    fp16_output: bool,
) -> std::result::Result<(), String> {
    match (input, fp16_output) {
        (TcInput::Fp16, _) | (TcInput::Bf16 | TcInput::Tf32, false) => {}
        (TcInput::Bf16 | TcInput::Tf32, true) => {
            return Err(format!(
                "cuBLASLt: {input} inputs with fp16 D is not a supported combination (fp32 D only)"
            ));
        }
        _ => return Err(format!("cuBLASLt launcher has no {input} variant")),
    }
    if m == 0 || k == 0 || t == 0 {
        return Err(format!("cuBLASLt: empty dimension in {m} x {k} x {t}"));
    }
    for (name, v, len) in [("A", a, m * k), ("B", b, k * t)] {
        if v.len() != len {
            return Err(format!(
                "cuBLASLt: {name} has {} values, the shape needs {len}",
                v.len()
            ));
        }
        let fmt = input.operand();
        if let Some(i) = v.iter().position(|&x| {
            x.is_finite() && fmt.round(x, boundgate_verify::format::RoundingMode::NearestEven) != x
        }) {
            return Err(format!(
                "cuBLASLt: {name}[{i}] = {:e} is not a {input} value",
                v[i]
            ));
        }
    }
    Ok(())
}

/// `D = A B` by cuBLASLt (`cublasLtMatmul`): `input` fp16, bf16 or tf32
/// (fp32 storage, `CUBLAS_COMPUTE_32F_FAST_TF32`), fp32 compute and scale,
/// fp32 `D` or (fp16 inputs) fp16 `D`, `alpha = 1`, `beta = 0`. Row-major
/// operands are passed as their column-major transposes (`D^T = B^T A^T`),
/// as for [`cublas_gemm_ex`]. Returns `D` as `f64` with the algorithm the
/// heuristic chose (`split_k` restricts it).
///
/// ```
/// use boundgate::kernels::mpfma::gpu::{LtSplitK, cublaslt_matmul};
/// use boundgate::kernels::mpfma::record::TcInput;
/// // Rejected before any device work: 0.1 is not an fp16 value.
/// let e = cublaslt_matmul(TcInput::Fp16, &[0.1], &[1.0], (1, 1, 1), false, LtSplitK::Allowed);
/// assert!(e.unwrap_err().contains("not a fp16 value"));
/// ```
///
/// # Errors
/// One line: an unsupported format or shape, an operand not in the input
/// format, not built with `cuda`, no device, or a cuBLASLt failure
/// (`CUBLAS_STATUS_NOT_SUPPORTED` when the heuristic has no algorithm).
pub fn cublaslt_matmul(
    input: TcInput,
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
    split_k: LtSplitK,
) -> std::result::Result<LtRun, String> {
    check_lt_call(input, a, b, shape, fp16_output)?;
    #[cfg(feature = "cuda")]
    {
        device::cublaslt_matmul(input, a, b, shape, fp16_output, split_k)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = split_k;
        Err("built without the `cuda` feature".into())
    }
}

/// `D = A B` by a vendor library, as the vendor runs it by default
/// (cuBLASLt: any algorithm). [`Vendor::GemmEx`] takes fp16 inputs only.
///
/// # Errors
/// As [`cublas_gemm_ex`] and [`cublaslt_matmul`].
pub fn vendor_gemm(
    vendor: Vendor,
    input: TcInput,
    a: &[f64],
    b: &[f64],
    shape: (usize, usize, usize),
    fp16_output: bool,
) -> std::result::Result<Vec<f64>, String> {
    match vendor {
        Vendor::GemmEx if input != TcInput::Fp16 => Err(format!(
            "the GemmEx launcher takes fp16 inputs, not {input}"
        )),
        Vendor::GemmEx => cublas_gemm_ex(a, b, shape, fp16_output),
        Vendor::Lt => {
            cublaslt_matmul(input, a, b, shape, fp16_output, LtSplitK::Allowed).map(|r| r.d)
        }
    }
}

/// Times cuBLASLt on device-resident fp16 operands (`m x k` times `k x t`,
/// fp32 compute and `D`, any algorithm), `reps` launches after one warm-up,
/// as [`time_gemm`] does: seconds per GEMM and the algorithm.
///
/// # Errors
/// One line: not built with `cuda`, no device, or a failure.
pub fn time_cublaslt(
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, LtAlgo), String> {
    if m == 0 || k == 0 || t == 0 || reps == 0 {
        return Err("time_cublaslt needs nonzero dimensions and reps".into());
    }
    #[cfg(feature = "cuda")]
    {
        device::time_cublaslt((m, k, t), reps)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err("built without the `cuda` feature".into())
    }
}

/// Which of our GEMM kernels (`kernels/mpfma_gemm.cu`) runs. All issue the
/// same mma instructions on every accumulator in the same order, so their D
/// is the same bit for bit; they differ in how A and B reach the tensor cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmKernel {
    /// `mpfma_gemm_*`: K in slices of 16, scalar loads (measured on the
    /// H100 on 2026-11-24: bit-exact, 3.7 % of cuBLAS).
    Simple,
    /// `mpfma_gemm_pipelined_*`: K in slices of 32, 16-byte loads, the next
    /// slice loaded while the current one is multiplied (not yet run on a device).
    Pipelined,
    /// `mpfma_gemm_wide_*` (fp16 and bf16 inputs): 128 x 128 tiles per block
    /// of 256 threads, a 3-stage cp.async pipeline, ldmatrix fragments (not
    /// yet run on a device; ptxas: about 100 registers, no spills; 56 832 B of
    /// dynamic shared memory, so two blocks per SM).
    Wide,
}

impl GemmKernel {
    /// Every kernel.
    pub const ALL: [GemmKernel; 3] = [GemmKernel::Simple, GemmKernel::Pipelined, GemmKernel::Wide];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            GemmKernel::Simple => "simple",
            GemmKernel::Pipelined => "pipelined",
            GemmKernel::Wide => "wide",
        }
    }

    /// The side of the square tile of D one block computes: M and N are
    /// padded to a multiple of it.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Simple.tile(), 64);
    /// assert_eq!(GemmKernel::Wide.tile(), 128);
    /// ```
    pub fn tile(self) -> usize {
        match self {
            GemmKernel::Simple | GemmKernel::Pipelined => 64,
            GemmKernel::Wide => 128,
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
            GemmKernel::Wide => 256,
        }
    }

    /// The entry point for inputs `input` accumulated in `output`.
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
    pub fn entry(
        self,
        input: TcInput,
        output: TcOutput,
    ) -> std::result::Result<&'static str, String> {
        use GemmKernel::{Pipelined, Simple, Wide};
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
            _ => {
                return Err(format!(
                    "no {} kernel for {input} inputs with {} accumulation",
                    self.name(),
                    output.name()
                ));
            }
        })
    }

    /// Dynamic shared memory per block, in bytes: the wide kernel's three
    /// pipeline stages of A (128 x 40) and B (32 x 136) 16-bit elements
    /// (`kernels/mpfma_gemm.cu`: `WIDE_STAGES`); the others use static
    /// shared memory only.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::GemmKernel;
    /// assert_eq!(GemmKernel::Wide.dynamic_shared_bytes(), 56_832);
    /// assert_eq!(GemmKernel::Simple.dynamic_shared_bytes(), 0);
    /// ```
    pub fn dynamic_shared_bytes(self) -> u32 {
        match self {
            GemmKernel::Simple | GemmKernel::Pipelined => 0,
            GemmKernel::Wide => 3 * (128 * 40 + 32 * 136) * 2,
        }
    }

    /// The launch for a padded `m x t` output: one block per tile.
    #[cfg(feature = "cuda")]
    fn launch(self, m: usize, t: usize) -> cudarc::driver::LaunchConfig {
        cudarc::driver::LaunchConfig {
            grid_dim: ((t / self.tile()) as u32, (m / self.tile()) as u32, 1),
            block_dim: (self.threads(), 1, 1),
            shared_mem_bytes: self.dynamic_shared_bytes(),
        }
    }

    /// Loads the kernel's entry point `name` from `module` and allows it the
    /// dynamic shared memory it launches with: above 48 KiB a function must
    /// opt in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    #[cfg(feature = "cuda")]
    fn load(
        self,
        module: &std::sync::Arc<cudarc::driver::CudaModule>,
        name: &str,
    ) -> std::result::Result<cudarc::driver::CudaFunction, String> {
        use cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        let f = module
            .load_function(name)
            .map_err(|e| format!("{name}: {e:?}"))?;
        let bytes = self.dynamic_shared_bytes();
        if bytes > 48 * 1024 {
            f.set_attribute(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .map_err(|e| format!("{name}: {bytes} bytes of dynamic shared memory: {e:?}"))?;
        }
        Ok(f)
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
    shape: (usize, usize, usize),
) -> std::result::Result<Vec<f64>, String> {
    gemm_on_device_with(GemmKernel::Simple, record, a, b, c, shape)
}

/// [`gemm_on_device`] with the kernel chosen.
///
/// # Errors
/// As [`gemm_on_device`].
pub fn gemm_on_device_with(
    kernel: GemmKernel,
    record: &TcRecord,
    a: &[f64],
    b: &[f64],
    c: Option<&[f64]>,
    (m, k, t): (usize, usize, usize),
) -> std::result::Result<Vec<f64>, String> {
    #[cfg(feature = "cuda")]
    {
        device::gemm(kernel, record, a, b, c, m, k, t)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (kernel, record, a, b, c, m, k, t);
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
    shape: (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, f64), String> {
    time_gemm_with(GemmKernel::Simple, shape, reps)
}

/// [`time_gemm`] with the kernel chosen.
///
/// # Errors
/// As [`time_gemm`].
pub fn time_gemm_with(
    kernel: GemmKernel,
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> std::result::Result<(f64, f64), String> {
    #[cfg(feature = "cuda")]
    {
        device::time_gemm(kernel, (m, k, t), reps)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (kernel, m, k, t, reps);
        Err("built without the `cuda` feature".into())
    }
}

#[cfg(feature = "cuda")]
mod device {
    use super::{GEMM_PATH, GEMM_SOURCE, GemmKernel, LtAlgo, LtRun, LtSplitK, MatrixUnit};
    use crate::gpu::nvrtc::{BuildOptions, Target, compile};
    use crate::kernels::mpfma::record::{TcInput, TcOutput, TcRecord};
    use boundgate_verify::format::Format;
    use core::ffi::c_void;
    use cudarc::cublaslt::{result as lt, sys as ltsys};
    use cudarc::driver::{
        CudaContext, CudaModule, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, PushKernelArg,
        ValidAsZeroBits,
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
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gemm(
        kernel: GemmKernel,
        record: &TcRecord,
        a: &[f64],
        b: &[f64],
        c: Option<&[f64]>,
        m: usize,
        k: usize,
        t: usize,
    ) -> Result<Vec<f64>, String> {
        let dev = device()?;
        let tile = kernel.tile();
        let (pm, pk, pt) = (round_up(m, tile), round_up(k, 16), round_up(t, tile));
        let ap = padded(a, m, k, pm, pk);
        let bp = padded(b, k, t, pk, pt);
        let cp = c.map(|c| padded(c, m, t, pm, pt));
        let name = kernel
            .entry(record.input, record.output)
            .map_err(|_| format!("no kernel for {}", record.label()))?;
        let fp16_acc = record.output == TcOutput::Fp16;
        guarded(|| {
            let f = kernel.load(&dev.module, name)?;
            let s = &dev.stream;
            let err = |what: &str| {
                let what = what.to_string();
                move |e: cudarc::driver::DriverError| format!("{what}: {e:?}")
            };
            let cfg = kernel.launch(pm, pt);
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
            gemm(GemmKernel::Simple, &self.record, x, y, Some(&[c]), 1, k, 1)
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

    /// See [`super::time_gemm`]. `m`, `t` multiples of the kernel's tile and `k` of 16.
    pub(super) fn time_gemm(
        kernel: GemmKernel,
        (m, k, t): (usize, usize, usize),
        reps: usize,
    ) -> Result<(f64, f64), String> {
        use cudarc::cublas::{CudaBlas, result, sys};
        let tile = kernel.tile();
        if m % tile != 0 || t % tile != 0 || k % 16 != 0 || reps == 0 {
            return Err(format!(
                "time_gemm ({}) needs m, t multiples of {tile}, k of 16 and reps >= 1",
                kernel.name()
            ));
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
            let f = kernel.load(&dev.module, kernel.entry(TcInput::Fp16, TcOutput::Fp32)?)?;
            let cfg = kernel.launch(m, t);
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
    /// cuBLASLt workspace: 32 MiB, NVIDIA's recommendation for Hopper (more than
    /// enough for Ampere's 4 MiB).
    const LT_WORKSPACE: usize = 32 << 20;

    /// The cuBLASLt objects of one problem, destroyed on drop (a failure to
    /// destroy is ignored: nothing can be done about it there).
    struct LtPlan {
        handle: ltsys::cublasLtHandle_t,
        desc: ltsys::cublasLtMatmulDesc_t,
        /// Column-major layouts of `B^T` (`t x k`), `A^T` (`k x m`), `D^T` (`t x m`).
        layouts: [ltsys::cublasLtMatrixLayout_t; 3],
        pref: ltsys::cublasLtMatmulPreference_t,
        heuristic: Option<ltsys::cublasLtMatmulHeuristicResult_t>,
        workspace: Option<cudarc::driver::CudaSlice<u8>>,
    }

    impl Drop for LtPlan {
        fn drop(&mut self) {
            // SAFETY: each object was created by this plan and is destroyed once;
            // null ones (construction stopped early) are skipped.
            unsafe {
                if !self.pref.is_null() {
                    let _ = lt::destroy_matmul_pref(self.pref);
                }
                for &l in &self.layouts {
                    if !l.is_null() {
                        let _ = lt::destroy_matrix_layout(l);
                    }
                }
                if !self.desc.is_null() {
                    let _ = lt::destroy_matmul_desc(self.desc);
                }
                if !self.handle.is_null() {
                    let _ = lt::destroy_handle(self.handle);
                }
            }
        }
    }

    fn lt_err(what: &'static str) -> impl Fn(lt::CublasError) -> String {
        move |e| format!("{what}: {e:?}")
    }

    impl LtPlan {
        /// Descriptors for `D^T = B^T A^T` (column-major views of row-major
        /// `A` (`m x k`), `B` (`k x t`), `D` (`m x t`)), and the heuristic's first algorithm.
        fn new(
            s: &Arc<CudaStream>,
            input: TcInput,
            fp16_output: bool,
            (m, k, t): (usize, usize, usize),
            split_k: LtSplitK,
        ) -> Result<LtPlan, String> {
            use ltsys::cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
            use ltsys::cudaDataType_t::{CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F};
            let (in_type, compute) = match input {
                TcInput::Fp16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F),
                TcInput::Bf16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F),
                TcInput::Tf32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32),
                other => return Err(format!("cuBLASLt launcher has no {other} variant")),
            };
            let out_type = if fp16_output { CUDA_R_16F } else { CUDA_R_32F };
            let mut plan = LtPlan {
                handle: std::ptr::null_mut(),
                desc: std::ptr::null_mut(),
                layouts: [std::ptr::null_mut(); 3],
                pref: std::ptr::null_mut(),
                heuristic: None,
                workspace: None,
            };
            plan.handle = lt::create_handle().map_err(lt_err("cublasLtCreate"))?;
            // fp32 scale type: alpha, beta are f32 (cuBLAS's table of
            // supported cublasLtMatmul types: 32F compute, 32F scale, 16F/16BF A, B).
            plan.desc = lt::create_matmul_desc(compute, CUDA_R_32F)
                .map_err(lt_err("cublasLtMatmulDescCreate"))?;
            let (m, k, t) = (m as u64, k as u64, t as u64);
            for (i, (ty, rows, cols)) in [(in_type, t, k), (in_type, k, m), (out_type, t, m)]
                .into_iter()
                .enumerate()
            {
                plan.layouts[i] = lt::create_matrix_layout(ty, rows, cols, rows as i64)
                    .map_err(lt_err("cublasLtMatrixLayoutCreate"))?;
            }
            plan.pref =
                lt::create_matmul_pref().map_err(lt_err("cublasLtMatmulPreferenceCreate"))?;
            let max_workspace = LT_WORKSPACE as u64;
            // SAFETY: the attribute takes a uint64_t; the preference is live.
            unsafe {
                lt::set_matmul_pref_attribute(
                    plan.pref,
                    ltsys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    (&max_workspace) as *const u64 as *const c_void,
                    std::mem::size_of::<u64>(),
                )
                .map_err(lt_err("max workspace"))?;
            }
            if split_k == LtSplitK::Forbidden {
                let mask = ltsys::cublasLtReductionScheme_t::CUBLASLT_REDUCTION_SCHEME_NONE as u32;
                // SAFETY: the attribute takes a uint32_t mask; the preference is live.
                unsafe {
                    lt::set_matmul_pref_attribute(
                        plan.pref,
                        ltsys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                        (&mask) as *const u32 as *const c_void,
                        std::mem::size_of::<u32>(),
                    )
                    .map_err(lt_err("reduction scheme mask"))?;
                }
            }
            // SAFETY: all descriptors are live; C and D share the layout (beta = 0).
            let heuristic = unsafe {
                lt::get_matmul_algo_heuristic(
                    plan.handle,
                    plan.desc,
                    plan.layouts[0],
                    plan.layouts[1],
                    plan.layouts[2],
                    plan.layouts[2],
                    plan.pref,
                )
            }
            .map_err(lt_err("cublasLtMatmulAlgoGetHeuristic"))?;
            plan.heuristic = Some(heuristic);
            plan.workspace = Some(
                s.alloc_zeros::<u8>(LT_WORKSPACE)
                    .map_err(|e| format!("cuBLASLt workspace: {e:?}"))?,
            );
            Ok(plan)
        }

        fn algo(&self) -> LtAlgo {
            use ltsys::cublasLtMatmulAlgoConfigAttributes_t as A;
            let Some(h) = self.heuristic.as_ref() else {
                return LtAlgo::default();
            };
            let get = |attr: A| -> Option<u32> {
                let (mut v, mut written) = (0u32, 0usize);
                // SAFETY: the algorithm is a valid heuristic result; the
                // attributes read are 4-byte integers.
                let status = unsafe {
                    ltsys::cublasLtMatmulAlgoConfigGetAttribute(
                        &h.algo,
                        attr,
                        (&mut v) as *mut u32 as *mut c_void,
                        std::mem::size_of::<u32>(),
                        &mut written,
                    )
                };
                (status.result().is_ok() && written == 4).then_some(v)
            };
            LtAlgo {
                id: get(A::CUBLASLT_ALGO_CONFIG_ID),
                tile: get(A::CUBLASLT_ALGO_CONFIG_TILE_ID),
                stages: get(A::CUBLASLT_ALGO_CONFIG_STAGES_ID),
                split_k: get(A::CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                reduction_scheme: get(A::CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME),
            }
        }

        /// Enqueues `D^T = B^T A^T` on `s`.
        ///
        /// # Safety
        /// `b_ptr`, `a_ptr`, `d_ptr` are device buffers of at least `k t`, `m k`
        /// and `m t` elements of the plan's types, live until the stream has run it.
        unsafe fn launch(
            &self,
            s: &Arc<CudaStream>,
            b_ptr: u64,
            a_ptr: u64,
            d_ptr: u64,
        ) -> Result<(), String> {
            let (Some(h), Some(ws)) = (self.heuristic.as_ref(), self.workspace.as_ref()) else {
                return Err("cuBLASLt plan incomplete".into());
            };
            let (alpha, beta) = (1.0f32, 0.0f32);
            let (pw, _rw) = ws.device_ptr(s);
            // SAFETY: by the caller's contract and the plan's live descriptors.
            unsafe {
                lt::matmul(
                    self.handle,
                    self.desc,
                    (&alpha) as *const f32 as *const c_void,
                    (&beta) as *const f32 as *const c_void,
                    b_ptr as *const c_void,
                    self.layouts[0],
                    a_ptr as *const c_void,
                    self.layouts[1],
                    d_ptr as *const c_void,
                    self.layouts[2],
                    d_ptr as *mut c_void,
                    self.layouts[2],
                    &h.algo,
                    pw as *mut c_void,
                    LT_WORKSPACE,
                    s.cu_stream() as ltsys::cudaStream_t,
                )
            }
            .map_err(lt_err("cublasLtMatmul"))
        }
    }

    /// Uploads `A`, `B`, runs the plan and downloads `D` as `f64`.
    fn lt_execute<I: DeviceRepr, O: DeviceRepr + ValidAsZeroBits>(
        s: &Arc<CudaStream>,
        plan: &LtPlan,
        a: &[I],
        b: &[I],
        len_d: usize,
        to_f64: impl Fn(O) -> f64,
    ) -> Result<Vec<f64>, String> {
        let d_a = s.clone_htod(a).map_err(|e| format!("copy A: {e:?}"))?;
        let d_b = s.clone_htod(b).map_err(|e| format!("copy B: {e:?}"))?;
        let mut d_d = s
            .alloc_zeros::<O>(len_d)
            .map_err(|e| format!("alloc D: {e:?}"))?;
        {
            let (pa, _ra) = d_a.device_ptr(s);
            let (pb, _rb) = d_b.device_ptr(s);
            let (pd, _rd) = d_d.device_ptr_mut(s);
            // SAFETY: the buffers have the sizes of the plan's shape and the
            // records keep them live until the stream passes this point.
            unsafe { plan.launch(s, pb, pa, pd)? };
        }
        let host = s
            .clone_dtoh(&d_d)
            .map_err(|e| format!("copy D back: {e:?}"))?;
        s.synchronize().map_err(|e| format!("synchronize: {e:?}"))?;
        Ok(host.into_iter().map(to_f64).collect())
    }

    /// See [`super::cublaslt_matmul`] (arguments already checked).
    pub(super) fn cublaslt_matmul(
        input: TcInput,
        a: &[f64],
        b: &[f64],
        (m, k, t): (usize, usize, usize),
        fp16_output: bool,
        split_k: LtSplitK,
    ) -> Result<LtRun, String> {
        let dev = device()?;
        guarded(|| {
            let s = &dev.stream;
            let plan = LtPlan::new(s, input, fp16_output, (m, k, t), split_k)?;
            let half_out = |x: u16| half::f16::from_bits(x).to_f64();
            let d = match (input, fp16_output) {
                (TcInput::Fp16, true) => {
                    lt_execute(s, &plan, &f16_bits(a), &f16_bits(b), m * t, half_out)?
                }
                (TcInput::Fp16, false) => {
                    lt_execute::<_, f32>(s, &plan, &f16_bits(a), &f16_bits(b), m * t, f64::from)?
                }
                (TcInput::Bf16, _) => {
                    lt_execute::<_, f32>(s, &plan, &bf16_bits(a), &bf16_bits(b), m * t, f64::from)?
                }
                // tf32 values (checked) stored as fp32: exact, the unit's
                // conversion to tf32 leaves them unchanged.
                _ => lt_execute::<_, f32>(s, &plan, &f32s(a), &f32s(b), m * t, f64::from)?,
            };
            Ok(LtRun {
                d,
                algo: plan.algo(),
            })
        })
    }

    /// See [`super::time_cublaslt`].
    pub(super) fn time_cublaslt(
        (m, k, t): (usize, usize, usize),
        reps: usize,
    ) -> Result<(f64, LtAlgo), String> {
        let dev = device()?;
        guarded(|| {
            let s = &dev.stream;
            let plan = LtPlan::new(s, TcInput::Fp16, false, (m, k, t), LtSplitK::Allowed)?;
            let e = |what: &'static str| {
                move |err: cudarc::driver::DriverError| format!("{what}: {err:?}")
            };
            let a: Vec<u16> = (0..m * k)
                .map(|i| half::f16::from_f32((i % 7) as f32 - 3.0).to_bits())
                .collect();
            let b: Vec<u16> = (0..k * t)
                .map(|i| half::f16::from_f32((i % 5) as f32 - 2.0).to_bits())
                .collect();
            let d_a = s.clone_htod(&a).map_err(e("copy A"))?;
            let d_b = s.clone_htod(&b).map_err(e("copy B"))?;
            let mut d_d = s.alloc_zeros::<f32>(m * t).map_err(e("alloc D"))?;
            let mut run = || -> Result<(), String> {
                let (pa, _ra) = d_a.device_ptr(s);
                let (pb, _rb) = d_b.device_ptr(s);
                let (pd, _rd) = d_d.device_ptr_mut(s);
                // SAFETY: buffers of the plan's shape and types, live while enqueued.
                unsafe { plan.launch(s, pb, pa, pd) }
            };
            run()?;
            s.synchronize().map_err(e("synchronize"))?;
            let start = std::time::Instant::now();
            for _ in 0..reps {
                run()?;
            }
            s.synchronize().map_err(e("synchronize"))?;
            Ok((start.elapsed().as_secs_f64() / reps as f64, plan.algo()))
        })
    }
}
