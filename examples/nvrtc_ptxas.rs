//! Registers, spills and machine-code shape of kernels, without a GPU or a CUDA
//! toolkit: compiles a `kernels/*.cu` file with the NVRTC the tests use (the
//! pinned one of `scripts/install-cuda-nvrtc.sh`, so the same ptxas) and the
//! options the launchers use (`BuildOptions`: `--fmad=false` and the rest of
//! the fixed arithmetic), and prints for each entry point whose name matches
//! ENTRY (a regular expression) what ptxas reports (registers, spill stores,
//! stack frame) and, from `cuobjdump -sass` of the CUBIN, the static
//! instruction count and the longest run of global loads with no FMA between
//! them (the measure of `tests/accessor_sass.rs`). The ptxas tables of
//! docs/accessor.md come from it.
//!
//!     eval "$(scripts/install-cuda-nvrtc.sh)"
//!     cargo run --quiet --features cuda --example nvrtc_ptxas -- kernels/accessor_blas.cu sm_90 \
//!         'accessor_spmv_csr_(f32_f32|f32_f64|f64_f64)$' -DCSR_PIPELINE_DEPTH=2 -DCSR_MIN_BLOCKS=3
//!
//! Arguments after ENTRY are macro definitions, `-DNAME=VALUE`. ARCH is `sm_XY`
//! or `sm_XYa`. Exits 2 for bad arguments or a failed build.

use boundgate::gpu::machine_code::{cuobjdump, longest_load_run, ptxas_report, sass_opcodes};
use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
use regex::Regex;
use std::process::ExitCode;

const USAGE: &str = "usage: nvrtc_ptxas FILE.cu sm_XY[a] ENTRY_REGEX [-DNAME=VALUE ...]";

/// `sm_90` or `sm_90a` as a machine-code target.
fn target(arch: &str) -> Result<Target, String> {
    let digits = arch
        .strip_prefix("sm_")
        .ok_or_else(|| format!("{arch}: not sm_XY or sm_XYa"))?;
    let (digits, specific) = match digits.strip_suffix('a') {
        Some(d) => (d, true),
        None => (digits, false),
    };
    let number: u32 = digits
        .parse()
        .map_err(|_| format!("{arch}: not sm_XY or sm_XYa"))?;
    let (major, minor) = (number / 10, number % 10);
    Ok(if specific {
        Target::CubinArchSpecific(major, minor)
    } else {
        Target::Cubin(major, minor)
    })
}

/// `-DNAME=VALUE` as `(NAME, VALUE)`.
fn define(arg: &str) -> Result<(String, String), String> {
    arg.strip_prefix("-D")
        .and_then(|d| d.split_once('='))
        .filter(|(name, value)| !name.is_empty() && !value.is_empty())
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .ok_or_else(|| format!("{arg}: not -DNAME=VALUE"))
}

fn run(args: &[String]) -> Result<(), String> {
    let [path, arch, entries, defines @ ..] = args else {
        return Err(USAGE.to_string());
    };
    let target = target(arch)?;
    let pattern = Regex::new(entries).map_err(|e| format!("{entries}: {e}"))?;
    let defines = defines
        .iter()
        .map(|d| define(d))
        .collect::<Result<Vec<_>, _>>()?;
    let source = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let options = BuildOptions::new(target)
        .with_ptxas_report()
        .with_defines(&defines);
    let built = nvrtc::compile(path, &source, &options).map_err(|e| e.to_string())?;
    let report = ptxas_report(&built.log);
    let tool = cuobjdump();
    let cubin = std::env::temp_dir().join(format!("nvrtc_ptxas_{}.cubin", std::process::id()));
    std::fs::write(&cubin, &built.image).map_err(|e| format!("{}: {e}", cubin.display()))?;
    let setting: Vec<String> = defines.iter().map(|(n, v)| format!("-D{n}={v}")).collect();
    println!(
        "{:40} {:>9} {:>7} {:>6} {:>6} {:>8}  ({}, {})",
        "entry",
        "registers",
        "spills",
        "stack",
        "SASS",
        "load run",
        target.arch(),
        if setting.is_empty() {
            "defaults".to_string()
        } else {
            setting.join(" ")
        }
    );
    let mut shown = 0;
    for (entry, r) in report.iter().filter(|(e, _)| pattern.is_match(e)) {
        let (count, run) = match &tool {
            Some(tool) => {
                let ops = sass_opcodes(tool, &cubin, entry).map_err(|e| e.to_string())?;
                (ops.len().to_string(), longest_load_run(&ops).to_string())
            }
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{entry:40} {:>9} {:>6}B {:>5}B {count:>6} {run:>8}",
            r.registers, r.spill_store_bytes, r.stack_bytes
        );
        shown += 1;
    }
    std::fs::remove_file(&cubin).ok();
    if tool.is_none() {
        eprintln!("nvrtc_ptxas: no cuobjdump (with nvdisasm beside it): SASS columns left out");
    }
    if shown == 0 {
        return Err(format!("no entry point of {path} matches {entries}"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nvrtc_ptxas: {e}");
            ExitCode::from(2)
        }
    }
}
