//! The accessor SpMV on the device (CSR: four rows per warp, 32 lanes and a
//! tree per row; CSR-stream: a block of 256 rows through shared memory, a
//! thread per row; ELL: a thread per row), as
//! [`accessor_spmv`](crate::kernels::accessor::spmv::accessor_spmv) orders it.

use super::*;

/// The entry points (one per pair) of `format`'s kernel.
pub(super) fn spmv_kernel_names(format: SparseFormat) -> &'static [&'static str; 7] {
    match format {
        SparseFormat::Csr => &SPMV_CSR,
        SparseFormat::CsrStream => &SPMV_CSR_STREAM,
        SparseFormat::Ell => &SPMV_ELL,
    }
}

pub(super) struct SpmvLaunch {
    function: CudaFunction,
    format: SparseFormat,
    rows: u64,
    width: u64,
    row_ptr: CudaSlice<i32>,
    col_idx: CudaSlice<i32>,
    values: CudaSlice<u8>,
    x: CudaSlice<u8>,
    out: VectorOutputs,
}

impl AccessorGpu {
    pub(super) fn prepare_spmv(
        &self,
        spec: &AccessorSpec,
        a: &CsrMatrix,
        format: SparseFormat,
        scalars: (f64, f64),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<SpmvLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_same_len("x and the columns of A", x.len(), a.cols())?;
        let rows = a.rows();
        // The values go through the accessor in CSR order; ELL reorders the
        // stored values into its column-major slots (padding: index -1, value 0).
        let stored = spec.for_data(a.values())?.store(a.values())?.values;
        let col_int = to_int("column index", a.col_idx())?;
        let (row_ptr, col_idx, values, width) = match format {
            SparseFormat::Csr | SparseFormat::CsrStream => {
                (to_int("row pointer", a.row_ptr())?, col_int, stored, 0)
            }
            SparseFormat::Ell => {
                let width = a.max_row_len();
                let slots = rows.checked_mul(width).ok_or_else(|| {
                    VerifyError::invalid("rows x width", format!("{rows} x {width}"), "overflows")
                })?;
                let mut cols = vec![-1i32; slots];
                let mut vals = vec![0.0; slots];
                for i in 0..rows {
                    let start = a.row_ptr()[i];
                    for k in 0..a.row_len(i) {
                        cols[k * rows + i] = col_int[start + k];
                        vals[k * rows + i] = stored[start + k];
                    }
                }
                (Vec::new(), cols, vals, width)
            }
        };
        let bytes = pair.encode(&values);
        Ok(SpmvLaunch {
            function: self.dev.function(spmv_kernel_names(format)[pair.index])?,
            format,
            rows: rows as u64,
            width: width as u64,
            row_ptr: self.upload_ints(&row_ptr)?,
            col_idx: self.upload_ints(&col_idx)?,
            values: if bytes.is_empty() {
                self.dev.zeros::<u8>(pair.storage_bytes())?
            } else {
                self.dev.upload(&bytes)?
            },
            x: self.store(spec, pair, x)?,
            out: self.outputs(spec, pair, scalars, y, rows)?,
        })
    }

    pub(super) fn launch_spmv(&self, s: &mut SpmvLaunch) -> Result<(), GpuError> {
        if s.out.len == 0 {
            return Ok(());
        }
        let mut builder = self.dev.stream.launch_builder(&s.function);
        let cfg = match s.format {
            SparseFormat::Csr => {
                builder.arg(&s.rows).arg(&s.row_ptr).arg(&s.col_idx);
                config(
                    blocks_for(
                        s.out.len,
                        ROW_WARPS
                            * CSR_ROWS_PER_WARP
                            * self.tuning.value(Knob::CsrGroupsPerWarp) as usize,
                    )?,
                    ((ROW_WARPS * WARP) as u32, 1),
                )
            }
            SparseFormat::CsrStream => {
                builder.arg(&s.rows).arg(&s.row_ptr).arg(&s.col_idx);
                config(
                    blocks_for(s.out.len, CSR_STREAM_THREADS)?,
                    (CSR_STREAM_THREADS as u32, 1),
                )
            }
            SparseFormat::Ell => {
                builder.arg(&s.rows).arg(&s.width).arg(&s.col_idx);
                config(blocks_for(s.out.len, ELL_THREADS)?, (ELL_THREADS as u32, 1))
            }
        };
        builder.arg(&s.values).arg(&s.x);
        push_scalar(&mut builder, &s.out.alpha);
        push_scalar(&mut builder, &s.out.beta);
        builder
            .arg(&s.out.y0)
            .arg(&mut s.out.y_arith)
            .arg(&mut s.out.y);
        // SAFETY: the argument lists match accessor_spmv_csr_* and
        // accessor_spmv_csr_stream_* (index_t rows; int row_ptr[rows + 1],
        // col_idx[nnz]; values[nnz]; ...) and
        // accessor_spmv_ell_* (index_t rows, width; int col_idx[width x rows],
        // -1 for padding; values[width x rows]; ...), then x (cols storage
        // elements), A::T alpha, beta, y0, y_arith, y (rows each); every column
        // index is below cols; CSR: 8 warps per block, each taking groups of
        // CSR_ROWS_PER_WARP rows grid-stride until the last row (a row's
        // entries over the warp's lanes), so any grid covers every row;
        // CSR-stream: a block per CSR_STREAM_THREADS rows (ceil(rows / 256)
        // blocks, the kernel's assumption: every block has a first row); ELL: a
        // thread per row.
        unsafe { builder.launch(cfg) }.map_err(driver("launch accessor_spmv"))?;
        Ok(())
    }

    /// The SpMV kernel (CSR: a warp per group of four rows, several groups per
    /// warp; CSR-stream: a thread per row, a block's entries through shared
    /// memory; ELL: a thread per row) on `A`'s
    /// values, `x` and `y` stored through `spec`; the CPU model is
    /// [`accessor_spmv`](crate::kernels::accessor::spmv::accessor_spmv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; shape mismatches; scalars outside the arithmetic
    /// format; a missing `y` with `beta != 0`; indices beyond `int`; device
    /// errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::accuracy::laplacian_2d;
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// use boundgate::kernels::accessor::spmv::{accessor_spmv, SparseFormat};
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64)?;
    /// let a = laplacian_2d(100);
    /// let x: Vec<f64> = (0..a.cols()).map(|i| (i as f64).sqrt()).collect();
    /// let gpu = AccessorGpu::open()?;
    /// for format in SparseFormat::ALL {
    ///     let device = gpu.spmv(&spec, &a, format, (1.0, 0.0), &x, None)?;
    ///     let model = accessor_spmv(&spec, &a, format, (1.0, 0.0), &x, None, true)?;
    ///     assert_eq!(device.output, model.output, "{}", format.name());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn spmv(
        &self,
        spec: &AccessorSpec,
        a: &CsrMatrix,
        format: SparseFormat,
        scalars: (f64, f64),
        x: &[f64],
        y: Option<&[f64]>,
    ) -> Result<GpuVector, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut s = self.prepare_spmv(spec, a, format, scalars, x, y)?;
            self.launch_spmv(&mut s)?;
            self.read_outputs(pair, &s.out)
        })
    }

    // ------------------------------------------------------------------ TRSV
}
