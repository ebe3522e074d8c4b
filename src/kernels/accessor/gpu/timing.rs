//! Throughput of the accessor kernels and of a device-to-device copy, timed
//! with CUDA events (Grützmacher et al. 2021, §4: memory-bound kernels, so
//! GB/s is their measure).

use super::spmv::spmv_kernel_names;
use super::*;

impl AccessorGpu {
    pub(in crate::kernels::accessor) fn time_launches(
        &self,
        kernel: String,
        repetitions: usize,
        bytes: u64,
        mut launch: impl FnMut() -> Result<(), GpuError>,
    ) -> Result<Timing, GpuError> {
        crate::gpu::timing::require_repetitions(repetitions)?;
        // One untimed launch: module loading, caches and clocks settle.
        launch()?;
        self.sync()?;
        // Timing events (the default flags of cudarc disable timing).
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self
            .dev
            .stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        for _ in 0..repetitions {
            launch()?;
        }
        let end = self
            .dev
            .stream
            .record_event(flags)
            .map_err(driver("cuEventRecord"))?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(driver("cuEventElapsedTime"))?;
        let seconds = f64::from(ms) / 1e3 / repetitions as f64;
        Ok(Timing {
            kernel,
            repetitions,
            seconds,
            bytes,
            gb_per_s: bytes as f64 / seconds / 1e9,
        })
    }

    /// Times `repetitions` launches of the workload's kernel(s) on operands
    /// stored through `spec` (uploaded once, outside the timing) with CUDA
    /// events, after one warm-up launch. `bytes` counts every value the
    /// kernels must move once: the stored operands read (ELL: padding
    /// included; CSR: values, column indices and row pointers; TRSV: the
    /// triangle, diagonal included, and `b`), `y` read when `beta != 0`, and
    /// the outputs written (both the arithmetic-format result and the stored
    /// one, as the kernels write both); `x` of SpMV counted once. Partial sums
    /// of DOT and the inverses of TRSV are not counted.
    ///
    /// # Errors
    /// As the workload's launcher; `repetitions = 0`; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::{AccessorGpu, Workload};
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let gpu = AccessorGpu::open().unwrap();
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
    /// let x = vec![0.5; 1 << 24];
    /// let t = gpu.time(&spec, &Workload::Dot { x: &x, y: &x }, 20).unwrap();
    /// println!("{} GB/s", t.gb_per_s);
    /// ```
    pub fn time(
        &self,
        spec: &AccessorSpec,
        workload: &Workload<'_>,
        repetitions: usize,
    ) -> Result<Timing, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let (s, ar) = (pair.storage_bytes() as u64, pair.arith_bytes() as u64);
            match *workload {
                Workload::Dot { x, y } => {
                    let mut d = self.prepare_dot(spec, x, y)?;
                    let bytes = 2 * x.len() as u64 * s;
                    let name = DOT_BLOCKS[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_dot(&mut d))
                }
                Workload::Gemv { a, shape, x, op, y } => {
                    let mut g = self.prepare_gemv(spec, op, a, shape, x, y)?;
                    let outer = g.out.len as u64;
                    let y_read = if op.beta != 0.0 { outer * s } else { 0 };
                    let bytes = (a.len() + x.len()) as u64 * s + y_read + outer * (s + ar);
                    let names = match op.trans {
                        Transpose::No => &GEMV_N,
                        Transpose::Yes => &GEMV_T,
                    };
                    let name = names[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_gemv(&mut g))
                }
                Workload::Spmv {
                    a,
                    format,
                    x,
                    scalars,
                    y,
                } => {
                    let mut sp = self.prepare_spmv(spec, a, format, scalars, x, y)?;
                    let rows = a.rows() as u64;
                    let matrix = match format {
                        SparseFormat::Csr | SparseFormat::CsrStream => {
                            a.nnz() as u64 * (s + 4) + (rows + 1) * 4
                        }
                        SparseFormat::Ell => rows * a.max_row_len() as u64 * (s + 4),
                    };
                    let name = spmv_kernel_names(format)[pair.index];
                    let y_read = if scalars.1 != 0.0 { rows * s } else { 0 };
                    let bytes = matrix + x.len() as u64 * s + y_read + rows * (s + ar);
                    self.time_launches(name.to_string(), repetitions, bytes, || {
                        self.launch_spmv(&mut sp)
                    })
                }
                Workload::Roofline { x, k } => {
                    let mut r = self.prepare_roofline(spec, x, k)?;
                    // x read and y written once, in the storage format.
                    let bytes = 2 * x.len() as u64 * s;
                    let name = ROOFLINE[pair.index].to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_roofline(&mut r))
                }
                Workload::Trsv {
                    a,
                    n,
                    b,
                    uplo,
                    diag,
                    schedule,
                } => {
                    let mut t = self.prepare_trsv(spec, a, n, b, (uplo, diag), schedule)?;
                    let n64 = n as u64;
                    let bytes = n64 * (n64 + 1) / 2 * s + n64 * s + n64 * (s + ar);
                    let name = schedule.kernel_of(pair).to_string();
                    self.time_launches(name, repetitions, bytes, || self.launch_trsv(&mut t))
                }
            }
        })
    }

    /// The device's copy bandwidth: `repetitions` device-to-device copies of
    /// `bytes` bytes (`cuMemcpyDtoDAsync`), timed with CUDA events; a copy
    /// reads and writes, so it moves `2 bytes`.
    ///
    /// # Errors
    /// `bytes = 0` or `repetitions = 0`; device errors (out of memory).
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// let copy = AccessorGpu::open()?.copy_bandwidth(1 << 30, 20)?;
    /// println!("{:.0} GB/s ({} bytes per copy)", copy.gb_per_s, copy.bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy_bandwidth(&self, bytes: usize, repetitions: usize) -> Result<Timing, GpuError> {
        catch(|| {
            if bytes == 0 {
                return Err(VerifyError::invalid("bytes", 0, "must be at least 1").into());
            }
            let src = self.dev.zeros::<u8>(bytes)?;
            let mut dst = self.dev.zeros::<u8>(bytes)?;
            let stream = self.dev.stream.clone();
            self.time_launches("copy".into(), repetitions, 2 * bytes as u64, || {
                stream
                    .memcpy_dtod(&src, &mut dst)
                    .map_err(driver("cuMemcpyDtoDAsync"))
            })
        })
    }
}
