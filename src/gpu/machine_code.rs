//! What ptxas made of a kernel, without a GPU: its resource report (registers,
//! stack, spills, shared memory, from an NVRTC log built with
//! [`BuildOptions::with_ptxas_report`](super::nvrtc::BuildOptions::with_ptxas_report))
//! and the shape of its machine code (`cuobjdump -sass` of the CUBIN: opcodes in
//! program order, and the longest run of global loads with no FMA between them,
//! the measure by which `tests/accessor_sass.rs` keeps the accessor kernels'
//! batched loads ahead of their FMAs).
//!
//! The tests (`tests/nvrtc_compile.rs`, `tests/accessor_sass.rs`) and the
//! `nvrtc_ptxas` example (the tables of docs/accessor.md) read them through
//! this module, so that a table and the test that guards it count the same way.

use super::GpuError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the cuobjdump to use, when not the one of
/// `scripts/install-cuda-nvrtc.sh` or of a CUDA toolkit.
pub const CUOBJDUMP_ENV: &str = "BOUNDGATE_CUOBJDUMP";

/// One entry point's resources as ptxas reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of stack frame (a local array, or spilled values).
    pub stack_bytes: u64,
    /// Bytes of spill stores.
    pub spill_store_bytes: u64,
    /// Bytes of spill loads.
    pub spill_load_bytes: u64,
    /// Bytes of static shared memory.
    pub shared_bytes: u64,
}

impl Resources {
    /// Bytes of spill stores plus spill loads: 0 for a kernel that keeps its
    /// values in registers.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::machine_code::Resources;
    /// let r = Resources { spill_store_bytes: 24, spill_load_bytes: 16, stack_bytes: 40, ..Resources::default() };
    /// assert_eq!(r.spill_bytes(), 24 + 16);
    /// assert_eq!(Resources::default().spill_bytes(), 0);
    /// ```
    pub fn spill_bytes(&self) -> u64 {
        self.spill_store_bytes + self.spill_load_bytes
    }
}

/// ptxas's `-v` report per entry point, from an NVRTC log. Its lines:
/// `Compiling entry function 'NAME' for 'sm_90'`, then
/// `N bytes stack frame, S bytes spill stores, L bytes spill loads` and
/// `Used R registers, ..., M bytes smem` for that entry. An entry without
/// those lines keeps zeros.
///
/// # Example
/// ```
/// use boundgate::gpu::machine_code::ptxas_report;
/// let log = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
///            ptxas info    : Function properties for k\n\
///                8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
///            ptxas info    : Used 48 registers, used 1 barriers, 1024 bytes smem";
/// let report = ptxas_report(log);
/// let k = report["k"];
/// assert_eq!((k.registers, k.stack_bytes, k.shared_bytes), (48, 8, 1024));
/// assert_eq!((k.spill_store_bytes, k.spill_load_bytes, k.spill_bytes()), (4, 4, 8));
/// ```
pub fn ptxas_report(log: &str) -> BTreeMap<String, Resources> {
    let number_before = |line: &str, unit: &str| -> Option<u64> {
        let at = line.find(unit)?;
        line[..at].split_whitespace().last()?.parse().ok()
    };
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    // Whose `Function properties for NAME` block the next stack/spill line
    // belongs to: ptxas also reports every non-inlined callee (after the
    // entries), and until this review that callee's line overwrote the entry
    // last compiled, so a 320-byte frame of an entry calling a `__noinline__`
    // function read as 0 (tests/gpu_host_edges.rs,
    // ptxas_report_keeps_an_entrys_frame_when_a_callee_is_reported).
    let mut properties_of_current = true;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            out.insert(name.clone(), Resources::default());
            current = Some(name);
            properties_of_current = true;
            continue;
        }
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            properties_of_current = current.as_deref() == Some(rest.trim());
            continue;
        }
        let Some(entry) = current.as_ref().and_then(|name| out.get_mut(name)) else {
            continue;
        };
        if line.contains("spill stores") && properties_of_current {
            entry.stack_bytes = number_before(line, " bytes stack frame").unwrap_or(0);
            entry.spill_store_bytes = number_before(line, " bytes spill stores").unwrap_or(0);
            entry.spill_load_bytes = number_before(line, " bytes spill loads").unwrap_or(0);
        }
        if line.contains("Used ") && line.contains(" registers") {
            entry.registers = number_before(line, " registers").unwrap_or(0) as u32;
            entry.shared_bytes = number_before(line, " bytes smem").unwrap_or(0);
        }
    }
    out
}

/// `$BOUNDGATE_CUOBJDUMP`, else [`cuda_binary`](super::cuda_binary)`("cuobjdump")`
/// (the install script's, else a CUDA toolkit's); each only with nvdisasm
/// beside it, which it runs.
///
/// # Example
/// ```
/// use boundgate::gpu::machine_code::cuobjdump;
/// // Only a cuobjdump with its nvdisasm beside it is returned.
/// if let Some(tool) = cuobjdump() {
///     assert!(tool.is_file() && tool.with_file_name("nvdisasm").is_file());
/// }
/// ```
pub fn cuobjdump() -> Option<PathBuf> {
    std::env::var_os(CUOBJDUMP_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| super::cuda_binary("cuobjdump"))
        .filter(|path| path.is_file() && path.with_file_name("nvdisasm").is_file())
}

/// The opcodes of `entry`'s SASS in the CUBIN at `cubin`, in program order:
/// the mnemonic without its modifiers and without a predicate (`DFMA`, `LDG`,
/// ...), from `cuobjdump -sass -fun entry` run with the cuobjdump at `tool`.
///
/// # Errors
/// [`GpuError::Tool`] when cuobjdump cannot run or fails, or prints no
/// instruction for `entry`.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::gpu::machine_code::{cuobjdump, sass_opcodes};
/// use boundgate::gpu::nvrtc::{compile, BuildOptions, Target};
/// use std::path::Path;
/// let missing = sass_opcodes(Path::new("/nonexistent/cuobjdump"), Path::new("k.cubin"), "k");
/// assert!(matches!(missing, Err(GpuError::Tool(ref m)) if m.starts_with("cannot run")));
/// // With NVRTC and cuobjdump: a * b + c under --fmad=false is a DMUL then a DADD.
/// let source = r#"extern "C" __global__ void k(double* o, const double* a) { o[0] = a[0] * a[1] + a[2]; }"#;
/// if let (Some(tool), Ok(built)) = (cuobjdump(), compile("k.cu", source, &BuildOptions::new(Target::Cubin(9, 0)))) {
///     let cubin = std::env::temp_dir().join(format!("boundgate-doc-sass-{}.cubin", std::process::id()));
///     std::fs::write(&cubin, &built.image).unwrap();
///     let ops = sass_opcodes(&tool, &cubin, "k");
///     std::fs::remove_file(&cubin).unwrap();
///     let ops = ops.unwrap();
///     assert!(ops.iter().any(|o| o == "DMUL") && !ops.iter().any(|o| o == "DFMA"));
/// }
/// ```
pub fn sass_opcodes(tool: &Path, cubin: &Path, entry: &str) -> Result<Vec<String>, GpuError> {
    // cuobjdump runs nvdisasm, looked for on the PATH or in NVDISASM_PATH: the one beside it.
    let folder = tool.parent().map(PathBuf::from).unwrap_or_default();
    let out = Command::new(tool)
        .env("NVDISASM_PATH", folder)
        .args(["-sass", "-fun", entry])
        .arg(cubin)
        .output()
        .map_err(|e| GpuError::Tool(format!("cannot run {}: {e}", tool.display())))?;
    if !out.status.success() {
        return Err(GpuError::Tool(format!(
            "cuobjdump -sass -fun {entry}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let opcodes = opcodes_of_listing(&String::from_utf8_lossy(&out.stdout));
    if opcodes.is_empty() {
        return Err(GpuError::Tool(format!(
            "no SASS for {entry} in {}",
            cubin.display()
        )));
    }
    Ok(opcodes)
}

/// The opcodes of a `cuobjdump -sass` listing, in program order.
///
/// # Example
/// ```
/// use boundgate::gpu::machine_code::opcodes_of_listing;
/// let listing = "        /*0070*/  @!P0 LDG.E.CONSTANT R0, desc[UR6][R2.64] ;  /* 0x0 */\n\
///                                                                          /* 0x1 */\n\
///                         /*0080*/       DFMA R2, R4, R6, R2 ;";
/// assert_eq!(opcodes_of_listing(listing), ["LDG", "DFMA"]);
/// ```
pub fn opcodes_of_listing(listing: &str) -> Vec<String> {
    listing
        .lines()
        // Instruction lines: `/*0070*/  @!P0 LDG.E.CONSTANT R0, desc[UR6][R2.64] ;`; the
        // encoding lines below them hold only a comment.
        .filter_map(|line| line.trim_start().strip_prefix("/*")?.split_once("*/"))
        .filter_map(|(_, rest)| {
            rest.split_whitespace()
                .find(|word| !word.starts_with('@'))
                .filter(|word| !word.starts_with("/*"))
                .map(|word| word.split('.').next().unwrap_or(word).to_string())
        })
        .collect()
}

/// The longest run of global loads (`LDG`) with no FMA (`FFMA`, `DFMA`)
/// between them; other instructions, branches included, do not break a run.
///
/// # Example
/// ```
/// use boundgate::gpu::machine_code::longest_load_run;
/// let ops: Vec<&str> = "LDG LDG DFMA LDG BRA LDG LDG FFMA".split(' ').collect();
/// assert_eq!(longest_load_run(&ops), 3);
/// assert_eq!(longest_load_run(&["DFMA", "IADD3"]), 0);
/// ```
pub fn longest_load_run<S: AsRef<str>>(opcodes: &[S]) -> usize {
    let (mut best, mut run) = (0, 0);
    for op in opcodes {
        match op.as_ref() {
            "LDG" => {
                run += 1;
                best = best.max(run);
            }
            "DFMA" | "FFMA" => run = 0,
            _ => {}
        }
    }
    best
}
