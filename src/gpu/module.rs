//! One NVRTC-built kernel file on device 0, with the stream to launch on:
//! what every family's launcher needs (open, look up a function, copy data
//! in and out). Errors are typed [`GpuError`]s naming the driver call.

use super::nvrtc::{BuildOptions, compile};
use super::sources::KernelSource;
use super::{DeviceInfo, DeviceStatus, GpuError, probe};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError,
    ValidAsZeroBits,
};
use std::sync::Arc;

/// Maps a driver error to a [`GpuError::Driver`] naming the call.
///
/// # Example
/// ```
/// use boundgate::gpu::{GpuError, module::driver, probe};
/// use cudarc::driver::{DriverError, sys::CUresult};
/// // Formatting a DriverError asks the driver for its text: only with a driver.
/// if probe().is_available() {
///     let err = driver("cuMemAlloc")(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
///     assert!(matches!(err, GpuError::Driver { ref call, ref message }
///         if call == "cuMemAlloc" && message.contains("CUDA_ERROR_OUT_OF_MEMORY")));
/// }
/// ```
pub fn driver(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e| GpuError::Driver {
        call: call.to_string(),
        message: format!("{e:?}"),
    }
}

/// Maps a cuBLAS or cuBLASLt error (any library status printed by `Debug`,
/// e.g. `CublasError(CUBLAS_STATUS_NOT_SUPPORTED)`) to a [`GpuError::Driver`]
/// naming the call.
///
/// # Example
/// ```
/// use boundgate::gpu::{GpuError, module::cublas_error};
/// use cudarc::cublas::{result::CublasError, sys::cublasStatus_t};
/// let err = cublas_error("cublasDdot_v2")(CublasError(cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED));
/// assert_eq!(err, GpuError::Driver {
///     call: "cublasDdot_v2".into(),
///     message: "CublasError(CUBLAS_STATUS_NOT_SUPPORTED)".into(),
/// });
/// ```
pub fn cublas_error<E: std::fmt::Debug>(call: &'static str) -> impl Fn(E) -> GpuError {
    move |e| GpuError::Driver {
        call: call.to_string(),
        message: format!("{e:?}"),
    }
}

/// `v` as the 32-bit `int` a kernel argument or a cuBLAS dimension takes.
///
/// # Errors
/// [`GpuError::Input`] naming `what` when `v` exceeds `2^31 - 1`.
///
/// # Example
/// ```
/// use boundgate::gpu::module::as_int;
/// assert_eq!(as_int("n", 4096).unwrap(), 4096);
/// assert!(as_int("n", 1usize << 31).is_err());
/// ```
pub fn as_int(what: &str, v: usize) -> Result<std::ffi::c_int, GpuError> {
    std::ffi::c_int::try_from(v).map_err(|_| {
        boundgate_verify::VerifyError::invalid(what, v, "at most 2^31 - 1 fits a 32-bit int").into()
    })
}

/// A kernel file compiled for device 0's architecture and loaded there.
pub struct KernelModule {
    /// The stream launches and copies go to.
    pub stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    /// The device it was built for and loaded on.
    pub device: DeviceInfo,
}

impl KernelModule {
    /// Probes the device, compiles `source` for its compute capability
    /// (cubin; [`KernelSource::cubin_for`]), loads it and creates a stream.
    ///
    /// # Errors
    /// No device, an architecture-specific file on another architecture
    /// ([`GpuError::Unsupported`]), a compile or driver failure.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// // Built for the device it was loaded on.
    /// let (major, minor) = dev.device.compute_capability;
    /// println!("kernels/qdot.cu on {} (sm_{major}{minor})", dev.device.name);
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn open(source: &KernelSource) -> Result<KernelModule, GpuError> {
        KernelModule::open_with_defines(source, &[])
    }

    /// [`KernelModule::open`] with the macros `defines` (`(name, value)`)
    /// defined before the source ([`BuildOptions::with_define`]): how a file's
    /// `#ifndef` tuning defaults are overridden.
    ///
    /// # Errors
    /// As [`KernelModule::open`]; a value the file's `static_assert`s refuse
    /// is a compile error.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let defines = [("CSR_MIN_BLOCKS".to_string(), "5".to_string())];
    /// let dev = KernelModule::open_with_defines(&sources::ACCESSOR_BLAS, &defines)?;
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn open_with_defines(
        source: &KernelSource,
        defines: &[(String, String)],
    ) -> Result<KernelModule, GpuError> {
        let info = match probe() {
            DeviceStatus::Available(info) => info,
            DeviceStatus::Unavailable { reason } => return Err(reason),
        };
        let target = source.cubin_for(info.compute_capability)?;
        let context = CudaContext::new(0).map_err(driver("open device 0"))?;
        keep_freed_memory_in_the_pool(&context)?;
        let options = BuildOptions::new(target).with_defines(defines);
        let built = compile(source.path, source.source, &options)?;
        let module = context
            .load_module(cudarc::nvrtc::Ptx::from_binary(built.image))
            .map_err(driver("cuModuleLoadData"))?;
        let stream = context.new_stream().map_err(driver("cuStreamCreate"))?;
        Ok(KernelModule {
            stream,
            module,
            device: info,
        })
    }

    /// The kernel `name` (an `extern "C"` function of the file).
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{GpuError, module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// let _histogram = dev.function("qdot_exponents_f64")?;
    /// // A name the file does not define is the driver's error, naming the call.
    /// assert!(matches!(dev.function("no_such_kernel"),
    ///     Err(GpuError::Driver { ref call, .. }) if call == "cuModuleGetFunction"));
    /// # Ok::<(), GpuError>(())
    /// ```
    pub fn function(&self, name: &'static str) -> Result<CudaFunction, GpuError> {
        self.module
            .load_function(name)
            .map_err(driver("cuModuleGetFunction"))
    }

    /// How many blocks of `block` threads (and `shared` bytes of dynamic
    /// shared memory) of `f` the whole device holds at once: the driver's
    /// occupancy per multiprocessor times the multiprocessor count. A
    /// grid-stride kernel launched with this many blocks runs in one wave;
    /// with a fixed cap above it the last wave runs on a fraction of the
    /// device (the residual histograms' 1024 blocks were 1.3 waves on the
    /// H100, 6 blocks of 256 per SM on 132 SMs).
    ///
    /// # Errors
    /// Driver errors of the two queries.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::RESIDUAL)?;
    /// let bins = dev.function("residual_abs_bins_f32")?;
    /// let blocks = dev.resident_blocks(&bins, 256, 0)?;
    /// assert!(blocks >= 1);
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn resident_blocks(
        &self,
        f: &CudaFunction,
        block: u32,
        shared: usize,
    ) -> Result<u32, GpuError> {
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(block, shared, None)
            .map_err(driver("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
        let sms = self
            .stream
            .context()
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map_err(driver("cuDeviceGetAttribute"))?;
        Ok((per_sm.max(1)).saturating_mul(u32::try_from(sms).unwrap_or(1).max(1)))
    }

    /// A cuBLAS handle on this module's stream, scalars and results passed
    /// as `mode` says (host or device pointers): the vendor baseline the
    /// timings compare with.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// use cudarc::cublas::sys::cublasPointerMode_t;
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// let blas = dev.cublas(cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)?;
    /// // Results of cuBLAS calls on `blas` are written to device memory, on dev.stream.
    /// # let _ = blas;
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn cublas(
        &self,
        mode: cudarc::cublas::sys::cublasPointerMode_t,
    ) -> Result<cudarc::cublas::CudaBlas, GpuError> {
        let blas = cudarc::cublas::CudaBlas::new(self.stream.clone())
            .map_err(cublas_error("cublasCreate"))?;
        blas.set_pointer_mode(mode)
            .map_err(cublas_error("cublasSetPointerMode"))?;
        Ok(blas)
    }

    /// Copies `data` to a new device buffer.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// let data = [1.5f64, -0.0, f64::MIN_POSITIVE / 4.0];
    /// let d = dev.upload(&data)?;
    /// // The round trip keeps every bit (a negative zero and a subnormal included).
    /// let back = dev.download(&d)?;
    /// assert!(back.iter().zip(&data).all(|(a, b)| a.to_bits() == b.to_bits()));
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .clone_htod(data)
            .map_err(driver("copy to the device"))
    }

    /// A zeroed device buffer of `len` elements (at least one).
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// assert_eq!(dev.download(&dev.zeros::<u32>(4195)?)?, vec![0u32; 4195]);
    /// // At least one element, even for 0.
    /// assert_eq!(dev.zeros::<f64>(0)?.len(), 1);
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .alloc_zeros(len.max(1))
            .map_err(driver("cuMemAlloc"))
    }

    /// A device buffer of `len` elements (at least one) with unspecified
    /// contents, for an output that the next kernel writes in full: zeroing
    /// it first would cost a pass over memory for nothing (at 16384^2 a
    /// gigabyte per int32 or float matrix).
    ///
    /// # Safety
    /// No element may be read (by a kernel or a download) before a kernel
    /// has written it; `T` must be valid for any bit pattern.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// // SAFETY: never read before written (here: a copy writes every element).
    /// let mut out = unsafe { dev.uninit::<f64>(3)? };
    /// dev.stream.memcpy_htod(&[1.0, 2.0, 3.0], &mut out).unwrap();
    /// assert_eq!(dev.download(&out)?, [1.0, 2.0, 3.0]);
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub unsafe fn uninit<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>, GpuError> {
        // SAFETY: forwarded to the caller (the contents are never read unwritten).
        unsafe { self.stream.alloc(len.max(1)) }.map_err(driver("cuMemAlloc"))
    }

    /// Copies a device buffer back.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::gpu::{module::KernelModule, sources};
    /// let dev = KernelModule::open(&sources::QDOT)?;
    /// let d = dev.upload(&[7i16, -32768, 2046])?;
    /// assert_eq!(dev.download(&d)?, [7, -32768, 2046]);
    /// # Ok::<(), boundgate::gpu::GpuError>(())
    /// ```
    pub fn download<T: DeviceRepr + Default + Clone>(
        &self,
        d: &CudaSlice<T>,
    ) -> Result<Vec<T>, GpuError> {
        self.stream
            .clone_dtoh(d)
            .map_err(driver("copy to the host"))
    }
}

/// Sets the release threshold of device 0's default memory pool to its
/// maximum, so that memory freed on a stream (cudarc frees with
/// `cuMemFreeAsync` where the device has memory pools) stays in the pool
/// for the next `cuMemAllocAsync` instead of going back to the driver at
/// every synchronisation (the default threshold, 0) and being mapped again.
/// The launchers allocate their intermediates per run, and the residual
/// method's sparse path synchronises mid-run (it reads its row counts back),
/// so without this every timed run after a synchronisation remapped tens of
/// MB. CUDA Programming Guide, "Stream Ordered Memory Allocator", physical
/// page caching behaviour. A device without memory pools allocates with
/// `cuMemAlloc` and is left alone.
fn keep_freed_memory_in_the_pool(context: &CudaContext) -> Result<(), GpuError> {
    use cudarc::driver::sys;
    if !context.has_async_alloc() {
        return Ok(());
    }
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold: u64 = u64::MAX;
    // SAFETY: pool is written by the driver for a valid device handle; the
    // attribute takes a pointer to a cuuint64_t, which threshold is.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, context.cu_device())
            .result()
            .map_err(driver("cuDeviceGetDefaultMemPool"))?;
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        )
        .result()
        .map_err(driver("cuMemPoolSetAttribute"))?;
    }
    Ok(())
}
