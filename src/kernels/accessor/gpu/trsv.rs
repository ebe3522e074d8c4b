//! The accessor TRSV on the device: the diagonal blocks inverted, then the
//! blocked solve, as [`accessor_trsv`](crate::kernels::accessor::trsv::accessor_trsv) orders it.

use super::*;

pub(super) struct TrsvLaunch {
    invert_fn: CudaFunction,
    solve_fn: CudaFunction,
    n: u64,
    n_usize: usize,
    upper: i32,
    unit: i32,
    a: CudaSlice<u8>,
    b: CudaSlice<u8>,
    inv: CudaSlice<u8>,
    x: CudaSlice<u8>,
    x_stored: CudaSlice<u8>,
}

impl AccessorGpu {
    pub(super) fn prepare_trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        uplo: Uplo,
        diag: Diag,
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
        let blocks = n.div_ceil(TRSV_BLOCK);
        Ok(TrsvLaunch {
            invert_fn: self.dev.function(TRSV_INVERT[pair.index])?,
            solve_fn: self.dev.function(TRSV_SOLVE[pair.index])?,
            n: n as u64,
            n_usize: n,
            upper: i32::from(uplo == Uplo::Upper),
            unit: i32::from(diag == Diag::Unit),
            a: self.store(spec, pair, a)?,
            b: self.store(spec, pair, b)?,
            inv: self
                .dev
                .zeros::<u8>(blocks * TRSV_BLOCK * TRSV_BLOCK * pair.arith_bytes())?,
            x: self.dev.zeros::<u8>(n * pair.arith_bytes())?,
            x_stored: self.dev.zeros::<u8>(n * pair.storage_bytes())?,
        })
    }

    pub(super) fn launch_trsv(&self, t: &mut TrsvLaunch) -> Result<(), GpuError> {
        // SAFETY: the argument lists match accessor_trsv_invert_* (index_t n;
        // a[n x n]; int upper, unit; A::T inv[blocks x 32 x 32]) with one warp
        // per diagonal block, and accessor_trsv_solve_* (index_t n; a; b[n];
        // int upper; inv; A::T x[n]; x_stored[n]) with one block of
        // TRSV_WARPS warps; the solve follows the inversion on the same stream.
        unsafe {
            self.dev
                .stream
                .launch_builder(&t.invert_fn)
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.upper)
                .arg(&t.unit)
                .arg(&mut t.inv)
                .launch(config(blocks_for(t.n_usize, TRSV_BLOCK)?, (WARP as u32, 1)))
                .map_err(driver("launch accessor_trsv_invert"))?;
            self.dev
                .stream
                .launch_builder(&t.solve_fn)
                .arg(&t.n)
                .arg(&t.a)
                .arg(&t.b)
                .arg(&t.upper)
                .arg(&t.inv)
                .arg(&mut t.x)
                .arg(&mut t.x_stored)
                .launch(config(1, ((TRSV_WARPS * WARP) as u32, 1)))
                .map_err(driver("launch accessor_trsv_solve"))?;
        }
        Ok(())
    }

    /// The blocked TRSV kernels (invert the diagonal blocks, then solve block
    /// by block) on `T` and `b` stored through `spec`; the CPU model is
    /// [`accessor_trsv`](crate::kernels::accessor::trsv::accessor_trsv) with `store = true`.
    ///
    /// # Errors
    /// As [`GpuPair::of`]; `n = 0`, shape mismatches; a zero on the diagonal
    /// (non-unit), as given or as stored; device errors.
    pub fn trsv(
        &self,
        spec: &AccessorSpec,
        a: &[f64],
        n: usize,
        b: &[f64],
        uplo: Uplo,
        diag: Diag,
    ) -> Result<GpuTrsv, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut t = self.prepare_trsv(spec, a, n, b, uplo, diag)?;
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
