//! cuBLAS `GemmEx` (feature `cuda`): the call of Bhola and Duraisamy's
//! Listing 1 (fp16 `A`, `B`; fp32 compute; `CUBLAS_GEMM_DEFAULT_TENSOR_OP`),
//! for row-major operands passed as their column-major transposes
//! (`D^T = B^T A^T`), with fp32 or fp16 `D`.

use super::VendorReduction;
use super::device::{f16_bits, module, seconds_per_run};
use crate::gpu::module::{as_int, cublas_error, driver};
use crate::gpu::{GpuError, KernelModule, guard};
use cudarc::cublas::{CudaBlas, result, sys};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};

/// Enqueues `D = A B` (row-major `m x k` fp16 `A`, `k x t` fp16 `B`, `m x t`
/// `D` of `d_type`) on the handle's stream.
///
/// # Safety
/// `a`, `b`, `d` are device pointers to at least `m k`, `k t` and `m t`
/// elements of their types, live until the stream has run the call.
unsafe fn gemm_ex(
    blas: &CudaBlas,
    (m, k, t): (i32, i32, i32),
    (a, b, d): (u64, u64, u64),
    d_type: sys::cudaDataType,
) -> Result<(), GpuError> {
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: by the caller's contract; alpha and beta are f32 as the
    // fp32 compute type requires and live for the call.
    unsafe {
        result::gemm_ex(
            *blas.handle(),
            sys::cublasOperation_t::CUBLAS_OP_N,
            sys::cublasOperation_t::CUBLAS_OP_N,
            t,
            m,
            k,
            (&alpha) as *const f32 as *const _,
            b as *const _,
            sys::cudaDataType::CUDA_R_16F,
            t,
            a as *const _,
            sys::cudaDataType::CUDA_R_16F,
            k,
            (&beta) as *const f32 as *const _,
            d as *mut _,
            d_type,
            t,
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        )
    }
    .map_err(cublas_error("cublasGemmEx"))
}

/// Runs `GemmEx` once on uploaded fp16 operands into a new `D` of `O`
/// (`d_type`) and downloads it.
fn run_into<O: DeviceRepr + ValidAsZeroBits + Default + Clone>(
    module: &KernelModule,
    blas: &CudaBlas,
    (d_a, d_b): (&CudaSlice<u16>, &CudaSlice<u16>),
    shape: (i32, i32, i32),
    len_d: usize,
    d_type: sys::cudaDataType,
) -> Result<Vec<O>, GpuError> {
    let s = &module.stream;
    let mut d_d = module.zeros::<O>(len_d)?;
    {
        let (pa, _ra) = d_a.device_ptr(s);
        let (pb, _rb) = d_b.device_ptr(s);
        let (pd, _rd) = d_d.device_ptr_mut(s);
        // SAFETY: buffers of the shape's sizes, kept live by the records
        // until the stream passes this point.
        unsafe { gemm_ex(blas, shape, (pa, pb, pd), d_type)? };
    }
    let out = module.download(&d_d)?;
    s.synchronize().map_err(driver("cuStreamSynchronize"))?;
    Ok(out)
}

/// Sets the handle's math mode for `reduction`: the default, or the default
/// with `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION` (a flag ORed onto
/// `CUBLAS_DEFAULT_MATH = 0`, so the flag's own value).
fn set_reduction(blas: &CudaBlas, reduction: VendorReduction) -> Result<(), GpuError> {
    let mode = match reduction {
        VendorReduction::Library => sys::cublasMath_t::CUBLAS_DEFAULT_MATH,
        VendorReduction::ComputeType => {
            sys::cublasMath_t::CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
        }
    };
    // SAFETY: the handle is live (owned by `blas`); the mode is a valid value.
    unsafe { sys::cublasSetMathMode(*blas.handle(), mode) }
        .result()
        .map_err(cublas_error("cublasSetMathMode"))
}

/// See [`super::cublas_gemm_ex`] (arguments already checked).
pub(super) fn cublas_gemm_ex(
    a: &[f64],
    b: &[f64],
    (m, k, t): (usize, usize, usize),
    fp16_output: bool,
    reduction: VendorReduction,
) -> Result<Vec<f64>, GpuError> {
    let shape = (as_int("m", m)?, as_int("k", k)?, as_int("t", t)?);
    let module = module()?;
    guard::catch(|| {
        let blas = module.cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)?;
        set_reduction(&blas, reduction)?;
        let d_a = module.upload(&f16_bits(a))?;
        let d_b = module.upload(&f16_bits(b))?;
        let operands = (&d_a, &d_b);
        Ok(if fp16_output {
            run_into::<u16>(
                module,
                &blas,
                operands,
                shape,
                m * t,
                sys::cudaDataType::CUDA_R_16F,
            )?
            .into_iter()
            .map(|x| half::f16::from_bits(x).to_f64())
            .collect()
        } else {
            run_into::<f32>(
                module,
                &blas,
                operands,
                shape,
                m * t,
                sys::cudaDataType::CUDA_R_32F,
            )?
            .into_iter()
            .map(f64::from)
            .collect()
        })
    })
}

/// Seconds per `GemmEx` (fp32 `D`) on device-resident fp16 operands, as
/// [`seconds_per_run`] measures our kernel.
pub(super) fn time_gemm_ex(
    module: &KernelModule,
    (d_a, d_b): (&CudaSlice<u16>, &CudaSlice<u16>),
    (m, k, t): (usize, usize, usize),
    reps: usize,
) -> Result<f64, GpuError> {
    let shape = (as_int("m", m)?, as_int("k", k)?, as_int("t", t)?);
    let s = &module.stream;
    let blas = module.cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)?;
    let mut d_d = module.zeros::<f32>(m * t)?;
    seconds_per_run(module, reps, || {
        let (pa, _ra) = d_a.device_ptr(s);
        let (pb, _rb) = d_b.device_ptr(s);
        let (pd, _rd) = d_d.device_ptr_mut(s);
        // SAFETY: buffers of the shape's sizes, live while enqueued.
        unsafe { gemm_ex(&blas, shape, (pa, pb, pd), sys::cudaDataType::CUDA_R_32F) }
    })
}
