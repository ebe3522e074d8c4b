//! The accessor DOT on the device: two launches (block partials, then the
//! final sum), as [`accessor_dot`](crate::kernels::accessor::dot::accessor_dot) orders it.

use super::*;

/// Device buffers and functions of one DOT.
pub(super) struct DotLaunch {
    blocks_fn: CudaFunction,
    final_fn: CudaFunction,
    x: CudaSlice<u8>,
    y: CudaSlice<u8>,
    n: u64,
    config: GridConfig,
    partials: CudaSlice<u8>,
    out: CudaSlice<u8>,
    out_stored: CudaSlice<u8>,
}

impl AccessorGpu {
    pub(super) fn prepare_dot(
        &self,
        spec: &AccessorSpec,
        x: &[f64],
        y: &[f64],
    ) -> Result<DotLaunch, GpuError> {
        let pair = GpuPair::of(spec)?;
        require_nonempty("x", x)?;
        require_same_len("x and y", x.len(), y.len())?;
        let config = GridConfig::for_len(x.len());
        Ok(DotLaunch {
            blocks_fn: self.dev.function(DOT_BLOCKS[pair.index])?,
            final_fn: self.dev.function(DOT_FINAL[pair.index])?,
            x: self.store(spec, pair, x)?,
            y: self.store(spec, pair, y)?,
            n: x.len() as u64,
            config,
            partials: self.dev.zeros::<u8>(config.blocks * pair.arith_bytes())?,
            out: self.dev.zeros::<u8>(pair.arith_bytes())?,
            out_stored: self.dev.zeros::<u8>(pair.storage_bytes())?,
        })
    }

    pub(super) fn launch_dot(&self, d: &mut DotLaunch) -> Result<(), GpuError> {
        let count = d.config.blocks as u32;
        // SAFETY: the argument lists match accessor_dot_blocks_* and
        // accessor_dot_final_* in kernels/accessor_blas.cu (storage pointers
        // are raw byte buffers of n elements of the storage type, 256-byte
        // aligned device allocations); partials holds one arithmetic value per
        // block of the first launch, out one, out_stored one storage element;
        // the final launch has DOT_FINAL_THREADS >= blocks threads (the kernel
        // pads the partials beyond `count` with zeros), as order::grid_dot
        // models it.
        unsafe {
            self.dev
                .stream
                .launch_builder(&d.blocks_fn)
                .arg(&d.x)
                .arg(&d.y)
                .arg(&d.n)
                .arg(&mut d.partials)
                .launch(config(d.config.blocks, (DOT_THREADS as u32, 1)))
                .map_err(driver("launch accessor_dot_blocks"))?;
            self.dev
                .stream
                .launch_builder(&d.final_fn)
                .arg(&d.partials)
                .arg(&count)
                .arg(&mut d.out)
                .arg(&mut d.out_stored)
                .launch(config(1, (DOT_FINAL_THREADS as u32, 1)))
                .map_err(driver("launch accessor_dot_final"))?;
        }
        Ok(())
    }

    /// The DOT kernels on `x` and `y` stored through `spec` (the CPU model is
    /// [`accessor_dot`](crate::kernels::accessor::dot::accessor_dot) with `store = true`).
    ///
    /// # Errors
    /// As [`GpuPair::of`]; empty or mismatched inputs; device errors.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::accessor::dot::accessor_dot;
    /// use boundgate::kernels::accessor::gpu::AccessorGpu;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32)?;
    /// let x: Vec<f64> = (0..10_000).map(|i| (i as f64).sin()).collect();
    /// let gpu = AccessorGpu::open()?.dot(&spec, &x, &x)?;
    /// let cpu = accessor_dot(&spec, &x, &x, true)?;
    /// assert_eq!(gpu.output.to_bits(), cpu.output.to_bits()); // the same order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dot(&self, spec: &AccessorSpec, x: &[f64], y: &[f64]) -> Result<GpuDot, GpuError> {
        catch(|| {
            let pair = GpuPair::of(spec)?;
            let mut d = self.prepare_dot(spec, x, y)?;
            self.launch_dot(&mut d)?;
            self.sync()?;
            Ok(GpuDot {
                before_store: pair.decode_arith(&self.dev.download(&d.out)?)[0],
                output: pair.decode_storage(&self.dev.download(&d.out_stored)?)[0],
                config: d.config,
            })
        })
    }

    // ----------------------------------------------------------- GEMV, SPMV
}
