//! The accessor TRSV on the device: the diagonal blocks inverted, then the
//! blocked solve, as [`accessor_trsv`](crate::kernels::accessor::trsv::accessor_trsv) orders it.

use super::*;

/// How the device schedules the blocked solve. Both compute the same values in
/// the same order ([`accessor_trsv`](crate::kernels::accessor::trsv::accessor_trsv)'s),
/// so their results are the same bit for bit; only the time differs.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::gpu::TrsvSchedule;
/// assert_eq!(TrsvSchedule::default(), TrsvSchedule::Pipelined);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrsvSchedule {
    /// `accessor_trsv_rows_*`: a block of [`TRSV_WARPS`] warps per block row of
    /// [`TRSV_BLOCK`] positions, every block row at once; a warp waits for a
    /// chunk of `x` only when it reads it (Hogg, SIAM J. Sci. Comput. 35(3),
    /// 2013, the schedule Grützmacher et al. 2021, §4.3, cite). Block rows are
    /// taken in ticket order, so no residency is assumed.
    #[default]
    Pipelined,
    /// `accessor_trsv_solve_*`: one block of [`TRSV_WARPS`] warps solves the
    /// block rows one after another (one SM: 5 GB/s at n = 8192 on the H100,
    /// 2026-11-26); kept as the reference the pipelined schedule is timed and
    /// compared against.
    OneBlock,
}

impl TrsvSchedule {
    /// The kernel of `pair`.
    pub(super) fn kernel_of(self, pair: GpuPair) -> &'static str {
        match self {
            TrsvSchedule::Pipelined => TRSV_ROWS[pair.index],
            TrsvSchedule::OneBlock => TRSV_SOLVE[pair.index],
        }
    }
}

pub(super) struct TrsvLaunch {
    invert_fn: CudaFunction,
    solve_fn: CudaFunction,
    schedule: TrsvSchedule,
    blocks: usize,
    n: u64,
    upper: i32,
    unit: i32,
    a: CudaSlice<u8>,
    b: CudaSlice<u8>,
    inv: CudaSlice<u8>,
    x: CudaSlice<u8>,
    x_stored: CudaSlice<u8>,
    /// `trsv_rows`' counters: tickets taken, block rows published.
    sync: CudaSlice<u32>,
}

impl AccessorGpu {
    pub(super) fn prepare_trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        (uplo, diag): (Uplo, Diag),
        schedule: TrsvSchedule,
    ) -> Result<TrsvLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_nonempty("b", b)?;
        let size = n
            .checked_mul(n)
            .ok_or_else(|| VerifyError::invalid("n", n, "n x n overflows"))?;
        require_same_len("A and n x n", a.len(), size)?;
        require_same_len("b and n", b.len(), n)?;
        let acc = spec.for_data(a)?;
        if diag == Diag::NonUnit {
            // As the CPU model: a zero on the diagonal, as given or as stored,
            // is a singular system (the kernel would divide by it).
            for i in 0..n {
                let v = a[i * n + i];
                if v == 0.0 || acc.write_ieee(v)? == 0.0 {
                    return Err(VerifyError::invalid(
                        &format!("a[{i}][{i}]"),
                        v,
                        "zero on the diagonal (as given or as stored): the triangular system is singular",
                    )
                    .into());
                }
            }
        }
        let blocks = blocks_for(n, TRSV_BLOCK)?;
        Ok(TrsvLaunch {
            invert_fn: self.dev.function(TRSV_INVERT[pair.index])?,
            solve_fn: self.dev.function(schedule.kernel_of(pair))?,
            schedule,
            blocks,
            n: n as u64,
            upper: i32::from(uplo == Uplo::Upper),
            unit: i32::from(diag == Diag::Unit),
            a: self.store(spec, pair, a)?,
            b: self.store(spec, pair, b)?,
            inv: self
                .dev
                .zeros::<u8>(blocks * TRSV_BLOCK * TRSV_BLOCK * pair.arith_bytes())?,
            x: self.dev.zeros::<u8>(n * pair.arith_bytes())?,
            x_stored: self.dev.zeros::<u8>(n * pair.storage_bytes())?,
            sync: self.dev.zeros::<u32>(2)?,
        })
    }

    pub(super) fn launch_trsv(&self, t: &mut TrsvLaunch) -> Result<(), GpuError> {
        if t.schedule == TrsvSchedule::Pipelined {
            // trsv_rows' counters start at zero on every launch (a timed run
            // launches again on the same buffers); stream-ordered.
            self.dev
                .stream
                .memset_zeros(&mut t.sync)
                .map_err(driver("cuMemsetD8Async"))?;
        }
        // SAFETY: the argument lists match accessor_trsv_invert_* (index_t n;
        // a[n x n]; int upper, unit; A::T inv[blocks x 32 x 32]) with one warp
        // per diagonal block, accessor_trsv_solve_* (index_t n; a; b[n];
        // int upper; inv; A::T x[n]; x_stored[n]) with one block of
        // TRSV_WARPS warps, and accessor_trsv_rows_* (the same and
        // unsigned int sync[2], zeroed above) with a block of
        // TRSV_WARPS warps per block row; the solve follows the inversion on
        // the same stream.
        unsafe {
            self.dev
                .stream
                .launch_builder(&t.invert_fn)
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.upper)
                .arg(&t.unit)
                .arg(&mut t.inv)
                .launch(config(t.blocks, (WARP as u32, 1)))
                .map_err(driver("launch accessor_trsv_invert"))?;
            let mut solve = self.dev.stream.launch_builder(&t.solve_fn);
            solve
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.b)
                .arg(&t.upper)
                .arg(&t.inv)
                .arg(&mut t.x)
                .arg(&mut t.x_stored);
            let blocks = match t.schedule {
                TrsvSchedule::OneBlock => 1,
                TrsvSchedule::Pipelined => {
                    solve.arg(&mut t.sync);
                    t.blocks
                }
            };
            solve
                .launch(config(blocks, ((TRSV_WARPS * WARP) as u32, 1)))
                .map_err(driver("launch the TRSV solve"))?;
        }
        Ok(())
    }

    /// The blocked TRSV kernels (invert the diagonal blocks, then solve block
    /// by block, [`TrsvSchedule::Pipelined`]) on `T` and `b` stored through
    /// `spec`; the CPU model is
    /// [`accessor_trsv`](crate::kernels::accessor::trsv::accessor_trsv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; `n = 0`, shape mismatches; a zero on the diagonal
    /// (non-unit), as given or as stored; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// use boundgate::kernels::accessor::trsv::accessor_trsv;
    /// use boundgate_verify::oracle::trsv::{Diag, Uplo};
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64)?;
    /// let n = 1000;
    /// let a: Vec<f64> = (0..n * n)
    ///     .map(|k| match (k / n, k % n) { (i, j) if i == j => 4.0, (i, j) if j > i => 0.01, _ => 0.0 })
    ///     .collect();
    /// let b = vec![1.0; n];
    /// let gpu = AccessorGpu::open()?.trsv(&spec, &a, n, &b, Uplo::Upper, Diag::NonUnit)?;
    /// let cpu = accessor_trsv(&spec, &a, n, &b, Uplo::Upper, Diag::NonUnit, true)?;
    /// assert_eq!(gpu.output, cpu.output);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        uplo: Uplo,
        diag: Diag,
    ) -> Result<GpuTrsv, GpuError> {
        self.trsv_scheduled(spec, a, n, b, (uplo, diag), TrsvSchedule::default())
    }

    /// [`trsv`](Self::trsv) with the solve scheduled as `schedule` (the same
    /// results for both).
    ///
    /// # Errors
    /// As [`trsv`](Self::trsv).
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// use boundgate::kernels::accessor::gpu::TrsvSchedule;
    /// use boundgate_verify::oracle::trsv::{Diag, Uplo};
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32)?;
    /// let (a, b) = (vec![2.0, 0.0, 1.0, 4.0], vec![2.0, 9.0]);
    /// let gpu = AccessorGpu::open()?;
    /// let run = |s| gpu.trsv_scheduled(&spec, &a, 2, &b, (Uplo::Lower, Diag::NonUnit), s);
    /// assert_eq!(run(TrsvSchedule::Pipelined)?.output, run(TrsvSchedule::OneBlock)?.output);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn trsv_scheduled(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        (uplo, diag): (Uplo, Diag),
        schedule: TrsvSchedule,
    ) -> Result<GpuTrsv, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut t = self.prepare_trsv(spec, a, n, b, (uplo, diag), schedule)?;
            self.launch_trsv(&mut t)?;
            self.sync()?;
            let inv = pair.decode_arith(&self.dev.download(&t.inv)?);
            let x_pos = pair.decode_arith(&self.dev.download(&t.x)?);
            let x_stored = pair.decode_storage(&self.dev.download(&t.x_stored)?);
            let row = |p: usize| match uplo {
                Uplo::Lower => p,
                Uplo::Upper => n - 1 - p,
            };
            let mut before_store = vec![0.0; n];
            for p in 0..n {
                before_store[row(p)] = x_pos[p];
            }
            // The kernel keeps each block's inverse at a stride of 32; the CPU
            // model packs it as m x m.
            let inverses = (0..n.div_ceil(TRSV_BLOCK))
                .map(|k| {
                    let m = TRSV_BLOCK.min(n - k * TRSV_BLOCK);
                    let base = k * TRSV_BLOCK * TRSV_BLOCK;
                    let mut y = vec![0.0; m * m];
                    for r in 0..m {
                        for c in 0..=r {
                            y[r * m + c] = inv[base + r * TRSV_BLOCK + c];
                        }
                    }
                    y
                })
                .collect();
            Ok(GpuTrsv {
                inverses,
                before_store,
                output: x_stored[..n].to_vec(),
            })
        })
    }

    // ------------------------------------------------------------- ROOFLINE
}
