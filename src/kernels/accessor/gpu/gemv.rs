//! The accessor GEMV on the device (`op(A) = A`: a warp per row; `A^T`: a
//! thread per column), as [`accessor_gemv`](crate::kernels::accessor::gemv::accessor_gemv) orders it.

use super::*;

pub(super) struct GemvLaunch {
    function: CudaFunction,
    trans: Transpose,
    m: u64,
    n: u64,
    a: CudaSlice<u8>,
    x: CudaSlice<u8>,
    pub(super) out: VectorOutputs,
}

impl AccessorGpu {
    pub(super) fn prepare_gemv(
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

    pub(super) fn launch_gemv(&self, g: &mut GemvLaunch) -> Result<(), GpuError> {
        if g.out.len == 0 {
            return Ok(());
        }
        let cfg = match g.trans {
            // 8 warps per block, a warp per row.
            Transpose::No => config(
                blocks_for(g.out.len, ROW_WARPS)?,
                ((ROW_WARPS * WARP) as u32, 1),
            ),
            // 32 columns x TRANSPOSED_GROUPS (32) row groups per block.
            Transpose::Yes => config(
                blocks_for(g.out.len, WARP)?,
                (
                    WARP as u32,
                    crate::kernels::accessor::gemv::TRANSPOSED_GROUPS as u32,
                ),
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

    /// The GEMV kernel (`op(A) = A`: a warp per row; `A^T`: 32 x 32 threads per
    /// 32 columns) on operands stored through `spec`; the CPU model is
    /// [`accessor_gemv`](crate::kernels::accessor::gemv::accessor_gemv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; shape mismatches; `alpha`/`beta` outside the
    /// arithmetic format; a missing `y` with `beta != 0`; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gemv::{accessor_gemv, GemvOp};
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle::Transpose;
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64)?;
    /// let (m, n) = (300, 200);
    /// let a: Vec<f64> = (0..m * n).map(|k| (k as f64 * 0.37).cos()).collect();
    /// let x: Vec<f64> = (0..m).map(|i| 1.0 / (i as f64 + 1.0)).collect();
    /// let op = GemvOp { trans: Transpose::Yes, ..GemvOp::PLAIN }; // y = A^T x
    /// let gpu = AccessorGpu::open()?.gemv(&spec, op, &a, (m, n), &x, None)?;
    /// let cpu = accessor_gemv(&spec, op, &a, (m, n), &x, None, true)?;
    /// assert_eq!(gpu.output, cpu.output); // bit for bit: the CPU model's order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
}
