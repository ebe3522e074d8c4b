//! The roofline kernel on the device: `2k` FLOPs per value in the
//! arithmetic format between one read and one write through the accessor
//! ([`crate::kernels::accessor::roofline`]).

use super::*;

pub(super) struct RooflineLaunch {
    function: CudaFunction,
    n: u64,
    n_usize: usize,
    k: u32,
    a: Scalar,
    b: Scalar,
    x: CudaSlice<u8>,
    y: CudaSlice<u8>,
}

impl AccessorGpu {
    pub(super) fn prepare_roofline(
        &self,
        spec: &AccessorSpec,
        x: &[f64],
        k: usize,
    ) -> Result<RooflineLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        if x.is_empty() {
            return Err(
                VerifyError::invalid("x", 0, "the roofline needs at least one value").into(),
            );
        }
        let k = u32::try_from(k).map_err(|_| {
            GpuError::Input(VerifyError::invalid(
                "k",
                k,
                "at most 2^32 - 1 multiply-adds per value",
            ))
        })?;
        Ok(RooflineLaunch {
            function: self.dev.function(ROOFLINE[pair.index])?,
            n: x.len() as u64,
            n_usize: x.len(),
            k,
            a: pair.scalar(crate::kernels::accessor::roofline::MULTIPLIER)?,
            b: pair.scalar(crate::kernels::accessor::roofline::ADDEND)?,
            x: self.store(spec, pair, x)?,
            y: self.dev.zeros::<u8>(x.len() * pair.storage_bytes())?,
        })
    }

    pub(super) fn launch_roofline(&self, r: &mut RooflineLaunch) -> Result<(), GpuError> {
        // A grid-stride loop: at most 1024 blocks of 256 threads.
        let cfg = config(blocks_for(r.n_usize, 256)?.min(1024), (256, 1));
        let mut builder = self.dev.stream.launch_builder(&r.function);
        builder.arg(&r.x).arg(&mut r.y).arg(&r.n).arg(&r.k);
        push_scalar(&mut builder, &r.a);
        push_scalar(&mut builder, &r.b);
        // SAFETY: the argument list matches accessor_roofline_* (x, y, index_t n,
        // unsigned int k, A::T a, A::T b); x and y hold n storage elements.
        unsafe { builder.launch(cfg) }.map_err(driver("launch accessor_roofline"))?;
        Ok(())
    }

    /// The roofline kernel (`y_i = w(f^k(r(x_i)))`, `f(v) = fl(fl(v a) + b)`,
    /// a thread per value) on `x` stored through `spec`: the stored outputs,
    /// read back. The CPU model is [`accessor_kernel`](crate::kernels::accessor::roofline::accessor_kernel),
    /// bit for bit (the same two roundings per step).
    ///
    /// # Errors
    /// As [`GpuPair::of`]; an empty `x`; `k >= 2^32`; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32)?;
    /// let y = AccessorGpu::open()?.roofline(&spec, &[1.0; 1024], 2)?;
    /// assert!(y.iter().all(|&v| v == 0.625)); // (1 * 0.5 + 0.25) * 0.5 + 0.25
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn roofline(&self, spec: &AccessorSpec, x: &[f64], k: usize) -> Result<Vec<f64>, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut r = self.prepare_roofline(spec, x, k)?;
            self.launch_roofline(&mut r)?;
            self.sync()?;
            let mut out = pair.decode_storage(&self.dev.download(&r.y)?);
            out.truncate(r.n_usize);
            Ok(out)
        })
    }

    // ---------------------------------------------------------------- timing
}
