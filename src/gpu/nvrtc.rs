//! NVRTC builds of the `kernels/*.cu` sources.
//!
//! Two kinds of output:
//! - [`Target::Cubin`] (`--gpu-architecture=sm_XY`): machine code for one
//!   architecture. This is what the launchers load: under CUDA's minor-version
//!   compatibility, a CUBIN from NVRTC 13.x loads on any CUDA 13 driver (the
//!   lent devices run driver 580, CUDA 13.0), whereas PTX from a newer NVRTC
//!   (13.5 writes PTX ISA 9.5) is refused by an older driver's JIT.
//! - [`Target::Ptx`] (`--gpu-architecture=compute_XY`): PTX for a virtual
//!   architecture, which the driver compiles at load time. Used to check that
//!   the sources compile for an architecture without needing its machine code.
//!
//! Each in an architecture-specific form too ([`Target::CubinArchSpecific`],
//! [`Target::PtxArchSpecific`]: `sm_90a`, `compute_90a`), for a file that
//! uses instructions of that architecture alone (`kernels/mpfma_wgmma.cu`).
//!
//! Every build uses `--fmad=false --ftz=false --prec-div=true --prec-sqrt=true`:
//! the kernels' order and rounding are part of their specification (their CPU
//! models reproduce them bit for bit), so the compiler may not contract a
//! multiply and an add into an fma or flush subnormals.
//!
//! The compile itself needs NVRTC only, no driver and no GPU; without the
//! `cuda` feature [`compile`] returns [`GpuError::NotBuilt`].

use super::{GpuError, paths};
use std::fmt;
use std::path::PathBuf;

/// What NVRTC produces, for which architecture `(major, minor)`.
///
/// The `*ArchSpecific` targets (`compute_90a`, `sm_90a`) add features that
/// are not carried forward to later architectures (Hopper's `wgmma`): code
/// built for them runs on that compute capability only.
///
/// # Example
/// ```
/// use boundgate::gpu::nvrtc::Target;
/// assert_eq!(Target::Cubin(9, 0).arch_option(), "--gpu-architecture=sm_90");
/// assert_eq!(Target::Ptx(8, 0).to_string(), "compute_80 (PTX)");
/// assert_eq!(Target::CubinArchSpecific(9, 0).arch(), "sm_90a");
/// assert_eq!(Target::PtxArchSpecific(9, 0).to_string(), "compute_90a (PTX)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// PTX for `compute_<major><minor>`.
    Ptx(u32, u32),
    /// Machine code for `sm_<major><minor>`.
    Cubin(u32, u32),
    /// PTX for `compute_<major><minor>a`.
    PtxArchSpecific(u32, u32),
    /// Machine code for `sm_<major><minor>a`.
    CubinArchSpecific(u32, u32),
}

impl Target {
    /// The architecture name NVRTC takes: `compute_90`, `sm_90`, `sm_90a`.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::Target;
    /// assert_eq!(Target::Ptx(9, 0).arch(), "compute_90");
    /// assert_eq!(Target::Cubin(8, 6).arch(), "sm_86");
    /// assert_eq!(Target::PtxArchSpecific(9, 0).arch(), "compute_90a");
    /// ```
    pub fn arch(self) -> String {
        match self {
            Target::Ptx(major, minor) => format!("compute_{major}{minor}"),
            Target::Cubin(major, minor) => format!("sm_{major}{minor}"),
            Target::PtxArchSpecific(major, minor) => format!("compute_{major}{minor}a"),
            Target::CubinArchSpecific(major, minor) => format!("sm_{major}{minor}a"),
        }
    }

    /// Machine code (ptxas runs), not PTX.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::Target;
    /// assert!(Target::Cubin(9, 0).is_cubin() && Target::CubinArchSpecific(9, 0).is_cubin());
    /// assert!(!Target::Ptx(9, 0).is_cubin() && !Target::PtxArchSpecific(9, 0).is_cubin());
    /// ```
    pub fn is_cubin(self) -> bool {
        matches!(self, Target::Cubin(..) | Target::CubinArchSpecific(..))
    }

    /// The `--gpu-architecture=` option.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::Target;
    /// assert_eq!(Target::PtxArchSpecific(9, 0).arch_option(), "--gpu-architecture=compute_90a");
    /// assert_eq!(Target::Cubin(10, 0).arch_option(), "--gpu-architecture=sm_100");
    /// ```
    pub fn arch_option(self) -> String {
        format!("--gpu-architecture={}", self.arch())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_cubin() { "CUBIN" } else { "PTX" };
        write!(f, "{} ({kind})", self.arch())
    }
}

/// The options of one NVRTC build.
///
/// # Example
/// ```
/// use boundgate::gpu::nvrtc::{BuildOptions, Target};
/// let args = BuildOptions::new(Target::Ptx(9, 0)).strict().to_args();
/// assert!(args.contains(&"--fmad=false".to_string()));
/// // Warnings as errors are judged on NVRTC's log, not by an option (below).
/// assert!(!args.iter().any(|a| a.contains("Werror")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Output kind and architecture.
    pub target: Target,
    /// Folders for `#include` (`--include-path=`); by default [`paths::include_dirs`].
    pub include_dirs: Vec<PathBuf>,
    /// Make every warning an error: a build whose NVRTC log is not empty
    /// fails with [`GpuError::Compile`]. Judged on the log rather than with
    /// `-Werror=all-warnings`, which only newer NVRTC releases accept: the
    /// CUDA 13.0 NVRTC of the lent H100 (driver 580.159) answered
    /// `NVRTC_ERROR_INVALID_OPTION` ("unrecognized option -Werror=all-warnings"),
    /// while the PyPI 13.5 NVRTC of CI takes it. The log works on both.
    pub warnings_as_errors: bool,
    /// Ask ptxas for its resource report (`--ptxas-options=-v`): registers,
    /// spills, stack and shared memory per entry point, in the log. Only
    /// meaningful for machine code ([`Target::is_cubin`]; PTX builds run no ptxas); the report
    /// fills the log, so it does not go with [`BuildOptions::strict`].
    pub ptxas_report: bool,
    /// Macros defined before the source (`--define-macro=NAME=VALUE`), in
    /// order: how a file's `#ifndef` defaults are overridden (the accessor
    /// kernels' tuning knobs, `AccessorTuning`).
    pub defines: Vec<(String, String)>,
}

/// Options that fix the arithmetic (module docs).
const ARITHMETIC_OPTIONS: [&str; 4] = [
    "--fmad=false",
    "--ftz=false",
    "--prec-div=true",
    "--prec-sqrt=true",
];

impl BuildOptions {
    /// The default build for `target`: the include folders found by
    /// [`paths::include_dirs`], warnings allowed.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::{BuildOptions, Target};
    /// let o = BuildOptions::new(Target::Ptx(9, 0));
    /// assert_eq!(o.include_dirs, boundgate::gpu::include_dirs());
    /// assert!(!o.warnings_as_errors && !o.ptxas_report && o.defines.is_empty());
    /// ```
    pub fn new(target: Target) -> BuildOptions {
        BuildOptions {
            target,
            include_dirs: paths::include_dirs(),
            warnings_as_errors: false,
            ptxas_report: false,
            defines: Vec::new(),
        }
    }

    /// The same build with warnings as errors (what the CI compile test uses).
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{GpuError, nvrtc::{compile, BuildOptions, Target}};
    /// let options = BuildOptions::new(Target::Ptx(9, 0));
    /// // Judged on the log: the arguments do not change.
    /// assert_eq!(options.clone().strict().to_args(), options.to_args());
    /// // With NVRTC: an unused variable's warning fails a strict build.
    /// let source = r#"extern "C" __global__ void k(float* out) { int unused; out[0] = 1.0f; }"#;
    /// match compile("k.cu", source, &options.strict()) {
    ///     Err(GpuError::Compile { log, .. }) => assert!(log.contains("unused")),
    ///     Err(GpuError::NotBuilt | GpuError::NoNvrtc { .. }) => {}
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn strict(mut self) -> BuildOptions {
        self.warnings_as_errors = true;
        self
    }

    /// The same build with ptxas's resource report in the log
    /// ([`BuildOptions::ptxas_report`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{GpuError, machine_code::ptxas_report, nvrtc::{compile, BuildOptions, Target}};
    /// let options = BuildOptions::new(Target::Cubin(9, 0)).with_ptxas_report();
    /// assert!(options.to_args().contains(&"--ptxas-options=-v".to_string()));
    /// // With NVRTC: the log holds ptxas's report for the entry point.
    /// let source = r#"extern "C" __global__ void k(float* out) { out[0] = 1.0f; }"#;
    /// match compile("k.cu", source, &options) {
    ///     Ok(built) => assert!(ptxas_report(&built.log)["k"].registers > 0),
    ///     Err(GpuError::NotBuilt | GpuError::NoNvrtc { .. }) => {}
    ///     Err(other) => panic!("{other}"),
    /// }
    /// ```
    pub fn with_ptxas_report(mut self) -> BuildOptions {
        self.ptxas_report = true;
        self
    }

    /// The same build with the macro `name` defined as `value`
    /// ([`BuildOptions::defines`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::{BuildOptions, Target};
    /// let args = BuildOptions::new(Target::Cubin(9, 0))
    ///     .with_define("CSR_MIN_BLOCKS", "5")
    ///     .to_args();
    /// assert!(args.contains(&"--define-macro=CSR_MIN_BLOCKS=5".to_string()));
    /// ```
    pub fn with_define(mut self, name: &str, value: &str) -> BuildOptions {
        self.defines.push((name.to_string(), value.to_string()));
        self
    }

    /// The same build with each `(name, value)` of `defines` defined, in
    /// order ([`BuildOptions::with_define`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::{BuildOptions, Target};
    /// let defines = [("A".to_string(), "1".to_string()), ("B".to_string(), "0".to_string())];
    /// let options = BuildOptions::new(Target::Ptx(9, 0)).with_defines(&defines);
    /// assert_eq!(options.defines, defines);
    /// ```
    pub fn with_defines<N: AsRef<str>, V: AsRef<str>>(self, defines: &[(N, V)]) -> BuildOptions {
        defines.iter().fold(self, |o, (name, value)| {
            o.with_define(name.as_ref(), value.as_ref())
        })
    }

    /// The exact argument list handed to `nvrtcCompileProgram`.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::nvrtc::{BuildOptions, Target};
    /// let mut options = BuildOptions::new(Target::Cubin(9, 0)).with_ptxas_report().with_define("N", "4");
    /// options.include_dirs = vec!["/opt/cuda/include".into()];
    /// assert_eq!(options.to_args(), [
    ///     "--gpu-architecture=sm_90", "--std=c++17",
    ///     "--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
    ///     "--ptxas-options=-v", "--define-macro=N=4", "--include-path=/opt/cuda/include",
    /// ]);
    /// ```
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![self.target.arch_option(), "--std=c++17".to_string()];
        args.extend(ARITHMETIC_OPTIONS.iter().map(|s| s.to_string()));
        if self.ptxas_report {
            args.push("--ptxas-options=-v".to_string());
        }
        args.extend(
            self.defines
                .iter()
                .map(|(name, value)| format!("--define-macro={name}={value}")),
        );
        args.extend(
            self.include_dirs
                .iter()
                .map(|dir| format!("--include-path={}", dir.display())),
        );
        args
    }
}

/// A successful build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The program name (the kernel file's path).
    pub name: String,
    /// What was built.
    pub target: Target,
    /// PTX text (NUL-terminated) or CUBIN bytes.
    pub image: Vec<u8>,
    /// NVRTC's program log: empty for a clean build, warnings otherwise.
    pub log: String,
}

/// Compiles `source` (named `name` in messages) with `options`.
///
/// A compile error is [`GpuError::Compile`] with NVRTC's log; warnings do not
/// fail the build (unless [`BuildOptions::warnings_as_errors`]) but are kept in
/// [`Compiled::log`].
///
/// # Example
/// ```
/// use boundgate::gpu::{GpuError, nvrtc::{compile, BuildOptions, Target}};
/// let source = r#"extern "C" __global__ void k(float* out) { out[0] = 1.0f; }"#;
/// match compile("k.cu", source, &BuildOptions::new(Target::Ptx(9, 0))) {
///     Ok(built) => assert!(built.log.is_empty()),
///     // Without the `cuda` feature or without NVRTC installed:
///     Err(GpuError::NotBuilt | GpuError::NoNvrtc { .. }) => {}
///     Err(other) => panic!("{other}"),
/// }
/// ```
pub fn compile(name: &str, source: &str, options: &BuildOptions) -> Result<Compiled, GpuError> {
    #[cfg(feature = "cuda")]
    {
        ffi::compile(name, source, options)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (name, source, options);
        Err(GpuError::NotBuilt)
    }
}

/// NVRTC's version `(major, minor)`, e.g. `(13, 5)`; also a cheap check that
/// NVRTC can be loaded.
///
/// # Example
/// ```
/// if let Ok((major, minor)) = boundgate::gpu::nvrtc::version() {
///     println!("NVRTC {major}.{minor}");
/// }
/// ```
pub fn version() -> Result<(u32, u32), GpuError> {
    #[cfg(feature = "cuda")]
    {
        ffi::version()
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}

/// The real architectures this NVRTC can build for, e.g. `[75, 80, ..., 90, ...]`.
///
/// # Example
/// ```
/// if let Ok(archs) = boundgate::gpu::nvrtc::supported_architectures() {
///     assert!(!archs.is_empty());
/// }
/// ```
pub fn supported_architectures() -> Result<Vec<u32>, GpuError> {
    #[cfg(feature = "cuda")]
    {
        ffi::supported_architectures()
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(GpuError::NotBuilt)
    }
}

#[cfg(feature = "cuda")]
mod ffi {
    //! The calls into NVRTC, through cudarc's `result`/`sys` layers rather than
    //! its `compile_ptx_with_opts`: that one discards the log of a successful
    //! build (warnings), cannot return CUBIN, and unwraps on some failures.

    use super::{BuildOptions, Compiled};
    use crate::gpu::sources::HEADERS;
    use crate::gpu::{GpuError, guard, loader};
    use cudarc::nvrtc::{result, sys};
    use std::ffi::{CStr, CString, c_char, c_int};

    pub(super) fn compile(
        name: &str,
        source: &str,
        options: &BuildOptions,
    ) -> Result<Compiled, GpuError> {
        loader::require_nvrtc()?;
        let args = options.to_args();
        let failure = |message: String, log: String| GpuError::Compile {
            kernel: name.to_string(),
            target: options.target.to_string(),
            message,
            log,
        };
        let c_source = CString::new(source)
            .map_err(|_| failure("the source contains a NUL byte".into(), String::new()))?;
        let c_name = CString::new(name)
            .map_err(|_| failure("the name contains a NUL byte".into(), String::new()))?;
        if let Some(arg) = args.iter().find(|arg| arg.contains('\0')) {
            return Err(failure(
                format!("option {arg:?} contains a NUL byte"),
                String::new(),
            ));
        }
        // Our headers, in memory (sources::HEADERS): NVRTC resolves
        // `#include "name"` against them before any include path.
        let headers = HEADERS
            .iter()
            .map(|h| Ok((CString::new(h.source)?, CString::new(h.name)?)))
            .collect::<Result<Vec<_>, std::ffi::NulError>>()
            .map_err(|_| failure("a header contains a NUL byte".into(), String::new()))?;
        let header_sources: Vec<*const c_char> = headers.iter().map(|(s, _)| s.as_ptr()).collect();
        let header_names: Vec<*const c_char> = headers.iter().map(|(_, n)| n.as_ptr()).collect();
        let header_count = c_int::try_from(headers.len())
            .map_err(|_| failure("too many headers".into(), String::new()))?;
        guard::catch(|| {
            let mut raw = std::mem::MaybeUninit::<sys::nvrtcProgram>::uninit();
            // SAFETY: valid NUL-terminated strings and two arrays of
            // `header_count` pointers, all live for the call (NVRTC copies them).
            unsafe {
                sys::nvrtcCreateProgram(
                    raw.as_mut_ptr(),
                    c_source.as_ptr(),
                    c_name.as_ptr(),
                    header_count,
                    header_sources.as_ptr(),
                    header_names.as_ptr(),
                )
            }
            .result()
            .map_err(|e| failure(describe(e), String::new()))?;
            // Declared after c_source, c_name and the headers, so dropped
            // (destroyed) before them.
            // SAFETY: nvrtcCreateProgram succeeded, so it wrote the program.
            let program = Program(unsafe { raw.assume_init() });
            // SAFETY: program.0 is a live program from nvrtcCreateProgram.
            let compiled = unsafe { result::compile_program(program.0, &args) };
            // SAFETY: as above.
            let log = unsafe { result::get_program_log(program.0) }
                .map(|raw| text(&raw))
                .unwrap_or_default();
            compiled.map_err(|e| failure(describe(e), log.clone()))?;
            if options.warnings_as_errors && !log.trim().is_empty() {
                return Err(failure(
                    "warnings in a strict build (warnings are errors)".into(),
                    log,
                ));
            }
            let image = if options.target.is_cubin() {
                // SAFETY: the program compiled for a real architecture.
                unsafe { cubin(program.0) }
            } else {
                // SAFETY: the program compiled; PTX is NUL-terminated text.
                unsafe { result::get_ptx(program.0) }
                    .map(|ptx| ptx.iter().map(|&c| c as u8).collect())
            }
            .map_err(|e| failure(describe(e), log.clone()))?;
            Ok(Compiled {
                name: name.to_string(),
                target: options.target,
                image,
                log,
            })
        })
    }

    pub(super) fn version() -> Result<(u32, u32), GpuError> {
        loader::require_nvrtc()?;
        guard::catch(|| {
            let (mut major, mut minor): (c_int, c_int) = (0, 0);
            // SAFETY: two valid out-pointers.
            unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
                .result()
                .map_err(|e| nvrtc_call("nvrtcVersion", e))?;
            Ok((major.max(0) as u32, minor.max(0) as u32))
        })
    }

    pub(super) fn supported_architectures() -> Result<Vec<u32>, GpuError> {
        loader::require_nvrtc()?;
        guard::catch(|| {
            let mut count: c_int = 0;
            // SAFETY: a valid out-pointer.
            unsafe { sys::nvrtcGetNumSupportedArchs(&mut count) }
                .result()
                .map_err(|e| nvrtc_call("nvrtcGetNumSupportedArchs", e))?;
            let mut archs = vec![0 as c_int; count.max(0) as usize];
            // SAFETY: archs has room for the count NVRTC reported.
            unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
                .result()
                .map_err(|e| nvrtc_call("nvrtcGetSupportedArchs", e))?;
            Ok(archs.into_iter().map(|a| a.max(0) as u32).collect())
        })
    }

    /// Destroys the program however the build ends.
    struct Program(sys::nvrtcProgram);

    impl Drop for Program {
        fn drop(&mut self) {
            // SAFETY: created by nvrtcCreateProgram, destroyed only here. A failure
            // to free is not worth more than the leak it causes.
            let _ = unsafe { result::destroy_program(self.0) };
        }
    }

    /// # Safety
    /// `program` is live and compiled for a real architecture.
    unsafe fn cubin(program: sys::nvrtcProgram) -> Result<Vec<u8>, result::NvrtcError> {
        let mut size: usize = 0;
        // SAFETY: per the contract, with a valid out-pointer.
        unsafe { sys::nvrtcGetCUBINSize(program, &mut size) }.result()?;
        let mut image = vec![0_u8; size];
        // SAFETY: image has the size NVRTC reported.
        unsafe { sys::nvrtcGetCUBIN(program, image.as_mut_ptr().cast::<c_char>()) }.result()?;
        Ok(image)
    }

    fn describe(error: result::NvrtcError) -> String {
        // SAFETY: nvrtcGetErrorString returns a static string for any code.
        let text = unsafe { sys::nvrtcGetErrorString(error.0) };
        if text.is_null() {
            format!("{:?}", error.0)
        } else {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        }
    }

    fn nvrtc_call(call: &str, error: result::NvrtcError) -> GpuError {
        GpuError::Nvrtc {
            call: call.to_string(),
            message: describe(error),
        }
    }

    /// A NUL-terminated C buffer as trimmed text.
    fn text(raw: &[c_char]) -> String {
        let bytes: Vec<u8> = raw
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    impl Compiled {
        /// The image as cudarc's loadable module type.
        pub(crate) fn to_module_image(&self) -> cudarc::nvrtc::Ptx {
            if self.target.is_cubin() {
                cudarc::nvrtc::Ptx::from_binary(self.image.clone())
            } else {
                let end = self
                    .image
                    .iter()
                    .position(|&b| b == 0)
                    .unwrap_or(self.image.len());
                cudarc::nvrtc::Ptx::from_src(
                    String::from_utf8_lossy(&self.image[..end]).into_owned(),
                )
            }
        }
    }
}
