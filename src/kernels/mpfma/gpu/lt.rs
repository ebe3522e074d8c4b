//! cuBLASLt `cublasLtMatmul` (feature `cuda`): the library frameworks
//! call, audited with the algorithm its heuristic picks (optionally without
//! split-K, the order the rigorous block-FMA bound assumes). Row-major
//! operands are passed as their column-major transposes (`D^T = B^T A^T`).

use super::device::{bf16_bits, f16_bits, f32s, module, seconds_per_run, timing_operands};
use super::{LtAlgo, LtRun, LtSplitK};
use crate::gpu::module::{cublas_error, driver};
use crate::gpu::{GpuError, KernelModule, guard};
use crate::kernels::mpfma::record::TcInput;
use core::ffi::c_void;
use cudarc::cublaslt::{result as lt, sys as ltsys};
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};
use std::sync::Arc;

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

impl LtPlan {
    /// Descriptors for `D^T = B^T A^T` (column-major views of row-major
    /// `A` (`m x k`), `B` (`k x t`), `D` (`m x t`)), and the heuristic's first algorithm.
    fn new(
        s: &Arc<CudaStream>,
        input: TcInput,
        fp16_output: bool,
        (m, k, t): (usize, usize, usize),
        split_k: LtSplitK,
    ) -> Result<LtPlan, GpuError> {
        use ltsys::cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
        use ltsys::cudaDataType_t::{CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F};
        let (in_type, compute) = match input {
            TcInput::Fp16 => (CUDA_R_16F, CUBLAS_COMPUTE_32F),
            TcInput::Bf16 => (CUDA_R_16BF, CUBLAS_COMPUTE_32F),
            TcInput::Tf32 => (CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32),
            other => {
                return Err(GpuError::Unsupported(format!(
                    "cuBLASLt launcher has no {other} variant"
                )));
            }
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
        plan.handle = lt::create_handle().map_err(cublas_error("cublasLtCreate"))?;
        // fp32 scale type: alpha, beta are f32 (cuBLAS's table of
        // supported cublasLtMatmul types: 32F compute, 32F scale, 16F/16BF A, B).
        plan.desc = lt::create_matmul_desc(compute, CUDA_R_32F)
            .map_err(cublas_error("cublasLtMatmulDescCreate"))?;
        let (m, k, t) = (m as u64, k as u64, t as u64);
        for (i, (ty, rows, cols)) in [(in_type, t, k), (in_type, k, m), (out_type, t, m)]
            .into_iter()
            .enumerate()
        {
            plan.layouts[i] = lt::create_matrix_layout(ty, rows, cols, rows as i64)
                .map_err(cublas_error("cublasLtMatrixLayoutCreate"))?;
        }
        plan.pref =
            lt::create_matmul_pref().map_err(cublas_error("cublasLtMatmulPreferenceCreate"))?;
        let max_workspace = LT_WORKSPACE as u64;
        // SAFETY: the attribute takes a uint64_t; the preference is live.
        unsafe {
            lt::set_matmul_pref_attribute(
                plan.pref,
                ltsys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                (&max_workspace) as *const u64 as *const c_void,
                std::mem::size_of::<u64>(),
            )
            .map_err(cublas_error("max workspace"))?;
        }
        let mask = match split_k {
            LtSplitK::Allowed => None,
            LtSplitK::Forbidden => {
                Some(ltsys::cublasLtReductionScheme_t::CUBLASLT_REDUCTION_SCHEME_NONE as u32)
            }
            LtSplitK::ComputeTypeReduction => Some(
                ltsys::cublasLtReductionScheme_t::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE as u32,
            ),
        };
        if let Some(mask) = mask {
            // SAFETY: the attribute takes a uint32_t mask; the preference is live.
            unsafe {
                lt::set_matmul_pref_attribute(
                    plan.pref,
                    ltsys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                    (&mask) as *const u32 as *const c_void,
                    std::mem::size_of::<u32>(),
                )
                .map_err(cublas_error("reduction scheme mask"))?;
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
        .map_err(cublas_error("cublasLtMatmulAlgoGetHeuristic"))?;
        plan.heuristic = Some(heuristic);
        plan.workspace = Some(
            s.alloc_zeros::<u8>(LT_WORKSPACE)
                .map_err(driver("cuMemAlloc (cuBLASLt workspace)"))?,
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
    ) -> Result<(), GpuError> {
        let (Some(h), Some(ws)) = (self.heuristic.as_ref(), self.workspace.as_ref()) else {
            return Err(GpuError::Internal(
                "cuBLASLt plan without an algorithm or workspace".into(),
            ));
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
        .map_err(cublas_error("cublasLtMatmul"))
    }
}

/// Uploads `A`, `B`, runs the plan and downloads `D` as `f64`.
fn lt_execute<I: DeviceRepr, O: DeviceRepr + ValidAsZeroBits + Default + Clone>(
    module: &KernelModule,
    plan: &LtPlan,
    (a, b): (&[I], &[I]),
    len_d: usize,
    to_f64: impl Fn(O) -> f64,
) -> Result<Vec<f64>, GpuError> {
    let s = &module.stream;
    let d_a = module.upload(a)?;
    let d_b = module.upload(b)?;
    let mut d_d = module.zeros::<O>(len_d)?;
    {
        let (pa, _ra) = d_a.device_ptr(s);
        let (pb, _rb) = d_b.device_ptr(s);
        let (pd, _rd) = d_d.device_ptr_mut(s);
        // SAFETY: the buffers have the sizes of the plan's shape and the
        // records keep them live until the stream passes this point.
        unsafe { plan.launch(s, pb, pa, pd)? };
    }
    let host = module.download(&d_d)?;
    s.synchronize().map_err(driver("cuStreamSynchronize"))?;
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
) -> Result<LtRun, GpuError> {
    let module = module()?;
    guard::catch(|| {
        let plan = LtPlan::new(&module.stream, input, fp16_output, (m, k, t), split_k)?;
        let len_d = m * t;
        let half_out = |x: u16| half::f16::from_bits(x).to_f64();
        let d = match (input, fp16_output) {
            (TcInput::Fp16, true) => {
                lt_execute(module, &plan, (&f16_bits(a), &f16_bits(b)), len_d, half_out)?
            }
            (TcInput::Fp16, false) => lt_execute::<_, f32>(
                module,
                &plan,
                (&f16_bits(a), &f16_bits(b)),
                len_d,
                f64::from,
            )?,
            (TcInput::Bf16, _) => lt_execute::<_, f32>(
                module,
                &plan,
                (&bf16_bits(a), &bf16_bits(b)),
                len_d,
                f64::from,
            )?,
            // tf32 values (checked) stored as fp32: exact, the unit's
            // conversion to tf32 leaves them unchanged.
            _ => lt_execute::<_, f32>(module, &plan, (&f32s(a), &f32s(b)), len_d, f64::from)?,
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
) -> Result<(f64, LtAlgo), GpuError> {
    let module = module()?;
    guard::catch(|| {
        let s = &module.stream;
        let plan = LtPlan::new(s, TcInput::Fp16, false, (m, k, t), LtSplitK::Allowed)?;
        let (a, b) = timing_operands((m, k, t));
        let d_a = module.upload(&a)?;
        let d_b = module.upload(&b)?;
        let mut d_d = module.zeros::<f32>(m * t)?;
        let seconds = seconds_per_run(module, reps, || {
            let (pa, _ra) = d_a.device_ptr(s);
            let (pb, _rb) = d_b.device_ptr(s);
            let (pd, _rd) = d_d.device_ptr_mut(s);
            // SAFETY: buffers of the plan's shape and types, live while enqueued.
            unsafe { plan.launch(s, pb, pa, pd) }
        })?;
        Ok((seconds, plan.algo()))
    })
}
