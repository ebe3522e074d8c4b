//! cuBLAS's `Sdot`/`Ddot`/`Sgemv`/`Dgemv`/`Strsv`/`Dtrsv` as the vendor
//! baseline of the accessor kernels' throughput (issue 4, item 4; feature `cuda`): the same
//! operands, uploaded once through the same correctly rounded store as
//! [`AccessorGpu::time`] uses, timed the same way (one untimed call, then
//! `repetitions` calls between two CUDA events), so that the ratio of the two
//! times is the ratio of throughputs on the same device in the same run.
//!
//! Bytes are cuBLAS's own traffic (operands read once, `y` read when
//! `beta != 0`, the result written once in the working precision); the
//! accessor kernels also write the pre-store value, which [`AccessorGpu::time`]
//! counts, so compare times (or elements per second), not GB/s, across the two.
//!
//! Our matrices are row-major; cuBLAS is column-major, so a row-major `m x n`
//! `A` is passed as the column-major `n x m` matrix `A^T` with `lda = n`, and
//! `op(A) = A` becomes `CUBLAS_OP_T` (and `A^T` becomes `CUBLAS_OP_N`); a
//! row-major lower (upper) triangle is a column-major upper (lower) one,
//! solved with `CUBLAS_OP_T`. SpMV has no cuBLAS counterpart here (cuSPARSE
//! is not bound): it is refused with a typed error.

use super::gpu::{AccessorGpu, GpuPair, Timing, Workload};
use super::storage::{AccessorSpec, StorageKind};
use crate::gpu::GpuError;
use crate::gpu::guard::catch;
use crate::gpu::module::as_int;
use crate::gpu::module::cublas_error;
use crate::gpu::timing::require_repetitions;
use boundgate_verify::VerifyError;
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::Transpose;
use boundgate_verify::oracle::trsv::{Diag, Uplo};
use cudarc::cublas::sys;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use std::ffi::c_int;

/// The BLAS precision: binary32 (`S`) or binary64 (`D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Precision {
    Single,
    Double,
}

impl Precision {
    fn of(format: Format) -> Result<Precision, GpuError> {
        if format == Format::FP32 {
            Ok(Precision::Single)
        } else if format == Format::FP64 {
            Ok(Precision::Double)
        } else {
            Err(VerifyError::invalid(
                "precision",
                format.name(),
                "cuBLAS Sdot/Ddot/Sgemv/Dgemv: fp32 or fp64",
            )
            .into())
        }
    }

    /// Plain storage in the precision itself (the store rounds correctly
    /// and refuses values that overflow it).
    fn spec(self) -> Result<AccessorSpec, GpuError> {
        Ok(match self {
            Precision::Single => AccessorSpec::new(StorageKind::Fp32, Format::FP32)?,
            Precision::Double => AccessorSpec::new(StorageKind::Fp64, Format::FP64)?,
        })
    }

    fn bytes(self) -> u64 {
        match self {
            Precision::Single => 4,
            Precision::Double => 8,
        }
    }
}

impl AccessorGpu {
    /// Times cuBLAS on `workload` in `precision` (fp32: `Sdot`/`Sgemv`/`Strsv`,
    /// fp64: `Ddot`/`Dgemv`/`Dtrsv`): one untimed call, then `repetitions`
    /// calls between CUDA events; mean seconds per call. TRSV solves in place,
    /// so each call after the first solves with the previous solution as its
    /// right-hand side (the same work: cuBLAS's TRSV does not branch on the
    /// values; the dominant systems of the bench keep them finite).
    ///
    /// # Errors
    /// A precision other than fp32/fp64, SpMV or the roofline, zero repetitions,
    /// empty or mismatched operands, sizes beyond cuBLAS's `int` (all before
    /// the device is touched); values that overflow fp32 (the store's error,
    /// before that operand is uploaded); cuBLAS and driver errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::{AccessorGpu, Workload};
    /// use boundgate_verify::format::Format;
    /// let gpu = AccessorGpu::open().unwrap();
    /// let x = vec![0.5; 1 << 20];
    /// let t = gpu.time_cublas(Format::FP64, &Workload::Dot { x: &x, y: &x }, 20).unwrap();
    /// println!("cublasDdot: {:.1} GB/s", t.gb_per_s);
    /// ```
    pub fn time_cublas(
        &self,
        precision: Format,
        workload: &Workload<'_>,
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        let precision = Precision::of(precision)?;
        require_repetitions(repetitions)?;
        match *workload {
            Workload::Dot { x, y } => self.time_blas_dot(precision, x, y, repetitions),
            Workload::Gemv { a, shape, x, op, y } => {
                let (rows, cols) = shape;
                let size = rows.checked_mul(cols).ok_or_else(|| {
                    VerifyError::invalid("rows x cols", format!("{rows} x {cols}"), "overflows")
                })?;
                require_same_len("A and rows x cols", a.len(), size)?;
                require_nonempty("A", a)?;
                let (inner, outer) = match op.trans {
                    Transpose::No => (cols, rows),
                    Transpose::Yes => (rows, cols),
                };
                require_same_len("x and the columns of op(A)", x.len(), inner)?;
                if op.beta != 0.0 {
                    let y = y.ok_or_else(|| {
                        VerifyError::invalid("y", "none", "beta != 0 reads y: give it")
                    })?;
                    require_same_len("y and the rows of op(A)", y.len(), outer)?;
                }
                let gemv = BlasGemv {
                    a,
                    rows: as_int("rows", rows)?,
                    cols: as_int("cols", cols)?,
                    x,
                    y: if op.beta != 0.0 { y } else { None },
                    outer,
                    alpha: op.alpha,
                    beta: op.beta,
                    trans: op.trans,
                };
                self.time_blas_gemv(precision, &gemv, repetitions)
            }
            Workload::Trsv {
                a, n, b, uplo, diag, ..
            } => {
                let size = n.checked_mul(n).ok_or_else(|| {
                    VerifyError::invalid("n", n, "n x n overflows")
                })?;
                require_nonempty("b", b)?;
                require_same_len("A and n x n", a.len(), size)?;
                require_same_len("b and n", b.len(), n)?;
                let trsv = BlasTrsv {
                    a,
                    n: as_int("n", n)?,
                    b,
                    uplo,
                    diag,
                };
                self.time_blas_trsv(precision, &trsv, repetitions)
            }
            Workload::Spmv { .. } | Workload::Roofline { .. } => Err(VerifyError::invalid(
                "workload",
                "spmv/roofline",
                "the cuBLAS baseline covers dot, gemv and trsv (cuSPARSE is not bound; the roofline is ours)",
            )
            .into()),
        }
    }

    fn time_blas_dot(
        &self,
        precision: Precision,
        x: &[f64],
        y: &[f64],
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        require_nonempty("x", x)?;
        require_same_len("x and y", x.len(), y.len())?;
        let n = as_int("n", x.len())?;
        let spec = precision.spec()?;
        let pair = GpuPair::of(&spec)?;
        catch(|| {
            let stream = self.dev.stream.clone();
            let dx = self.store(&spec, pair, x)?;
            let dy = self.store(&spec, pair, y)?;
            let mut result = self.dev.zeros::<u8>(precision.bytes() as usize)?;
            // The result stays on the device, as the accessor kernel's does,
            // so that cuBLAS is not charged a blocking copy per call.
            let blas = self
                .dev
                .cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)?;
            let (px, _gx) = dx.device_ptr(&stream);
            let (py, _gy) = dy.device_ptr(&stream);
            let (pr, _gr) = result.device_ptr_mut(&stream);
            let handle = *blas.handle();
            let bytes = 2 * x.len() as u64 * precision.bytes();
            let name = match precision {
                Precision::Single => "cublasSdot",
                Precision::Double => "cublasDdot",
            };
            self.time_launches(name.into(), repetitions, bytes, || {
                // SAFETY: x and y hold n values of the precision on this
                // stream's device (stored above), result one; pointer mode
                // DEVICE, so the result pointer is a device pointer.
                unsafe {
                    match precision {
                        Precision::Single => sys::cublasSdot_v2(
                            handle,
                            n,
                            px as *const f32,
                            1,
                            py as *const f32,
                            1,
                            pr as *mut f32,
                        ),
                        Precision::Double => sys::cublasDdot_v2(
                            handle,
                            n,
                            px as *const f64,
                            1,
                            py as *const f64,
                            1,
                            pr as *mut f64,
                        ),
                    }
                }
                .result()
                .map_err(cublas_error(name))
            })
        })
    }

    fn time_blas_gemv(
        &self,
        precision: Precision,
        g: &BlasGemv<'_>,
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        let spec = precision.spec()?;
        let pair = GpuPair::of(&spec)?;
        catch(|| {
            let stream = self.dev.stream.clone();
            let da = self.store(&spec, pair, g.a)?;
            let dx = self.store(&spec, pair, g.x)?;
            let mut dy = match g.y {
                Some(y) => self.store(&spec, pair, y)?,
                None => self
                    .dev
                    .zeros::<u8>(g.outer.max(1) * precision.bytes() as usize)?,
            };
            let blas = self
                .dev
                .cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)?;
            let (pa, _ga) = da.device_ptr(&stream);
            let (px, _gx) = dx.device_ptr(&stream);
            let (py, _gy) = dy.device_ptr_mut(&stream);
            let handle = *blas.handle();
            // Row-major A (rows x cols) is column-major A^T (cols x rows).
            let trans = match g.trans {
                Transpose::No => sys::cublasOperation_t::CUBLAS_OP_T,
                Transpose::Yes => sys::cublasOperation_t::CUBLAS_OP_N,
            };
            let (m, n, lda) = (g.cols, g.rows, g.cols);
            let e = precision.bytes();
            let y_read = if g.y.is_some() { g.outer as u64 * e } else { 0 };
            // At alpha = 0 BLAS reads neither A nor x ("need not be set"), and
            // cuBLAS returns after scaling y: only y's bytes are moved.
            let ax_read = if g.alpha != 0.0 {
                (g.a.len() + g.x.len()) as u64 * e
            } else {
                0
            };
            let bytes = ax_read + y_read + g.outer as u64 * e;
            let name = match precision {
                Precision::Single => "cublasSgemv",
                Precision::Double => "cublasDgemv",
            };
            let (alpha32, beta32) = (g.alpha as f32, g.beta as f32);
            self.time_launches(name.into(), repetitions, bytes, || {
                // SAFETY: A holds rows x cols values (column-major cols x rows,
                // lda = cols), x the columns of op(A), y its rows (or one
                // value when op(A) has none); alpha and beta are host values
                // (pointer mode HOST) that outlive the call.
                unsafe {
                    match precision {
                        Precision::Single => sys::cublasSgemv_v2(
                            handle,
                            trans,
                            m,
                            n,
                            &alpha32,
                            pa as *const f32,
                            lda,
                            px as *const f32,
                            1,
                            &beta32,
                            py as *mut f32,
                            1,
                        ),
                        Precision::Double => sys::cublasDgemv_v2(
                            handle,
                            trans,
                            m,
                            n,
                            &g.alpha,
                            pa as *const f64,
                            lda,
                            px as *const f64,
                            1,
                            &g.beta,
                            py as *mut f64,
                            1,
                        ),
                    }
                }
                .result()
                .map_err(cublas_error(name))
            })
        })
    }
}

/// A validated TRSV for cuBLAS.
struct BlasTrsv<'a> {
    a: &'a [f64],
    n: c_int,
    b: &'a [f64],
    uplo: Uplo,
    diag: Diag,
}

impl AccessorGpu {
    fn time_blas_trsv(
        &self,
        precision: Precision,
        t: &BlasTrsv<'_>,
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        let spec = precision.spec()?;
        let pair = GpuPair::of(&spec)?;
        catch(|| {
            let stream = self.dev.stream.clone();
            let da = self.store(&spec, pair, t.a)?;
            let mut dx = self.store(&spec, pair, t.b)?;
            let blas = self
                .dev
                .cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)?;
            let (pa, _ga) = da.device_ptr(&stream);
            let (px, _gx) = dx.device_ptr_mut(&stream);
            let handle = *blas.handle();
            // Row-major T is column-major T^T: the other triangle, transposed.
            let fill = match t.uplo {
                Uplo::Lower => sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
                Uplo::Upper => sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            };
            let diag = match t.diag {
                Diag::NonUnit => sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
                Diag::Unit => sys::cublasDiagType_t::CUBLAS_DIAG_UNIT,
            };
            let trans = sys::cublasOperation_t::CUBLAS_OP_T;
            let (n, e) = (t.n as u64, precision.bytes());
            // The triangle and x read once, x written once.
            let bytes = n * (n + 1) / 2 * e + 2 * n * e;
            let name = match precision {
                Precision::Single => "cublasStrsv",
                Precision::Double => "cublasDtrsv",
            };
            self.time_launches(name.into(), repetitions, bytes, || {
                // SAFETY: A holds n x n values of the precision (lda = n), x
                // n values, both on this stream's device; x is solved in place.
                unsafe {
                    match precision {
                        Precision::Single => sys::cublasStrsv_v2(
                            handle,
                            fill,
                            trans,
                            diag,
                            t.n,
                            pa as *const f32,
                            t.n,
                            px as *mut f32,
                            1,
                        ),
                        Precision::Double => sys::cublasDtrsv_v2(
                            handle,
                            fill,
                            trans,
                            diag,
                            t.n,
                            pa as *const f64,
                            t.n,
                            px as *mut f64,
                            1,
                        ),
                    }
                }
                .result()
                .map_err(cublas_error(name))
            })
        })
    }
}

/// A validated GEMV for cuBLAS.
struct BlasGemv<'a> {
    a: &'a [f64],
    rows: c_int,
    cols: c_int,
    x: &'a [f64],
    y: Option<&'a [f64]>,
    outer: usize,
    alpha: f64,
    beta: f64,
    trans: Transpose,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_binary32_and_binary64_name_a_cublas_routine() {
        assert_eq!(Precision::of(Format::FP32).unwrap(), Precision::Single);
        assert_eq!(Precision::of(Format::FP64).unwrap(), Precision::Double);
        assert!(matches!(
            Precision::of(Format::FP16),
            Err(GpuError::Input(_))
        ));
        assert_eq!(Precision::Single.bytes(), 4);
    }

    #[test]
    fn sizes_beyond_cublas_int_are_refused() {
        assert_eq!(as_int("n", 7).unwrap(), 7);
        assert!(matches!(as_int("n", 1usize << 31), Err(GpuError::Input(_))));
    }
}
