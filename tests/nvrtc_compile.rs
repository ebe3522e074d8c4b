//! Every `kernels/*.cu` compiles with NVRTC, for compute_80 and compute_90 (PTX)
//! and sm_80 and sm_90 (CUBIN, what the launchers load), or for compute_90a and
//! sm_90a alone where the file uses Hopper-only instructions
//! (`kernels/mpfma_wgmma.cu`; `KernelSource::check_targets`), without a single
//! warning, with no include folder (our own headers, `kernels/include/*.cuh`,
//! reach NVRTC in memory). NVRTC needs no driver and no GPU, so this runs in CI.
//!
//! CI contract: NVRTC comes from `scripts/install-cuda-nvrtc.sh`. Without it the
//! NVRTC tests FAIL, saying so, unless BOUNDGATE_SKIP_NVRTC=1 is set explicitly.
//!
//! Run: `scripts/install-cuda-nvrtc.sh && cargo test --features cuda --test nvrtc_compile`

mod common;

use boundgate::gpu::sources;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `folder/*.ext` files of the repository, sorted, found at run time so
/// that new files are covered.
fn files_in(folder: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files in {}", dir.display());
    files
}

/// The path in the repository, as the embedded sources name it (`kernels/<file>.cu`).
fn repo_path(file: &Path) -> String {
    file.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .expect("a file of the repository")
        .to_string_lossy()
        .into_owned()
}

/// The `folder/*.ext` files on disk are exactly the embedded ones
/// (`(path, source)`), each with the same text.
fn assert_embedded_as_on_disk(folder: &str, ext: &str, embedded: &[(&str, &str)]) {
    let on_disk: BTreeSet<String> = files_in(folder, ext).iter().map(|f| repo_path(f)).collect();
    let names: BTreeSet<String> = embedded.iter().map(|(path, _)| path.to_string()).collect();
    assert_eq!(
        on_disk, names,
        "{folder}/*.{ext} and the embedded files differ"
    );
    for (path, source) in embedded {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let text = std::fs::read_to_string(&file).expect("readable file");
        assert_eq!(&text, source, "{path} differs from its embedded copy");
    }
}

#[test]
fn every_kernel_file_is_embedded_as_it_is_on_disk() {
    let embedded: Vec<_> = sources::ALL.iter().map(|k| (k.path, k.source)).collect();
    assert_embedded_as_on_disk("kernels", "cu", &embedded);
}

/// Every `kernels/include/*.cuh` is embedded as it is on disk (NVRTC gets the
/// embedded copy in memory), and every one is included by some kernel.
#[test]
fn every_header_is_embedded_as_it_is_on_disk_and_used() {
    let embedded: Vec<_> = sources::HEADERS
        .iter()
        .map(|h| (h.path, h.source))
        .collect();
    assert_embedded_as_on_disk("kernels/include", "cuh", &embedded);
    for header in sources::HEADERS {
        assert!(header.path.ends_with(header.name), "{}", header.path);
        let include = format!("#include \"{}\"", header.name);
        assert!(
            sources::ALL.iter().any(|k| k.source.contains(&include)),
            "no kernel includes {}",
            header.name
        );
    }
}

#[cfg(feature = "cuda")]
mod with_nvrtc {
    use super::{files_in, repo_path};
    use std::path::PathBuf;

    /// The `.cu` files in `kernels/`.
    fn kernel_files() -> Vec<PathBuf> {
        files_in("kernels", "cu")
    }
    use boundgate::gpu::GpuError;
    use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
    use boundgate::kernels::mpfma::gpu::GemmKernel;

    use super::common::nvrtc::nvrtc_available;

    /// The targets `name` is checked for: its embedded source's
    /// `check_targets` (sm_80 and sm_90 for a portable file, sm_90a for
    /// `kernels/mpfma_wgmma.cu`).
    fn targets_of(name: &str) -> Vec<Target> {
        boundgate::gpu::sources::ALL
            .iter()
            .find(|k| k.path == name)
            .unwrap_or_else(|| panic!("{name} is not embedded"))
            .check_targets()
    }

    #[test]
    fn every_kernel_compiles_without_errors_or_warnings() {
        if !nvrtc_available() {
            return;
        }
        let mut problems = Vec::new();
        let mut builds = 0;
        for file in kernel_files() {
            let name = repo_path(&file);
            let source = std::fs::read_to_string(&file).expect("readable kernel");
            for target in targets_of(&name) {
                // Strict: any log at all (a warning) fails the build. No include
                // folder: a device may have no CUDA headers, and our own
                // (kernels/include) reach NVRTC in memory.
                let mut options = BuildOptions::new(target).strict();
                options.include_dirs.clear();
                match nvrtc::compile(&name, &source, &options) {
                    Ok(built) if built.log.is_empty() && !built.image.is_empty() => builds += 1,
                    Ok(built) if built.log.is_empty() => {
                        problems.push(format!("{name} for {target}: empty image"))
                    }
                    Ok(built) => problems.push(format!(
                        "{name} for {target}: compiler messages:\n{}",
                        built.log
                    )),
                    Err(error) => problems.push(error.to_string()),
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n\n"));
        println!("{builds} clean builds");
    }

    /// The accessor kernels compile cleanly (strict, sm_80 and sm_90 CUBIN:
    /// what `AccessorGpu::open_tuned` loads) with every tuning knob at the
    /// low and at the high end of its range, and a value outside the range
    /// is the kernel file's `static_assert`, naming the knob: the ranges
    /// `AccessorTuning` accepts are the ones the file builds with.
    #[test]
    fn accessor_kernels_compile_with_every_knob_at_both_ends_of_its_range() {
        use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
        if !nvrtc_available() {
            return;
        }
        let kernel = boundgate::gpu::sources::ACCESSOR_BLAS;
        for tuning in AccessorTuning::extremes() {
            for target in [Target::Cubin(8, 0), Target::Cubin(9, 0)] {
                let options = BuildOptions::new(target)
                    .strict()
                    .with_defines(&tuning.defines());
                let built = nvrtc::compile(kernel.path, kernel.source, &options)
                    .unwrap_or_else(|e| panic!("{tuning} for {target}: {e}"));
                assert!(!built.image.is_empty(), "{tuning} for {target}");
            }
        }
        for knob in Knob::ALL {
            let outside = knob.range().end() + 1;
            let options = BuildOptions::new(Target::Cubin(9, 0))
                .with_define(knob.macro_name(), &outside.to_string());
            match nvrtc::compile(kernel.path, kernel.source, &options) {
                Err(GpuError::Compile { log, .. }) => assert!(
                    log.contains("static assertion failed") && log.contains(knob.macro_name()),
                    "{}={outside}: {log}",
                    knob.macro_name()
                ),
                other => panic!("{}={outside} built: {other:?}", knob.macro_name()),
            }
        }
    }

    #[test]
    fn a_broken_kernel_is_an_error_with_the_compiler_log() {
        if !nvrtc_available() {
            return;
        }
        let broken = "extern \"C\" __global__ void k(float* out) { out[0] = undeclared_name; }";
        let options = BuildOptions::new(Target::Ptx(9, 0));
        match nvrtc::compile("broken.cu", broken, &options) {
            Err(GpuError::Compile { kernel, log, .. }) => {
                assert_eq!(kernel, "broken.cu");
                assert!(log.contains("undeclared_name"), "log: {log}");
            }
            other => panic!("expected a compile error, got {other:?}"),
        }
    }

    #[test]
    fn a_warning_fails_the_strict_build_and_is_logged_otherwise() {
        if !nvrtc_available() {
            return;
        }
        let warns = "extern \"C\" __global__ void k(float* out) { int unused; out[0] = 1.0f; }";
        let relaxed = nvrtc::compile("warns.cu", warns, &BuildOptions::new(Target::Ptx(9, 0)))
            .expect("compiles");
        assert!(
            relaxed.log.contains("unused"),
            "the warning should be in the log: {:?}",
            relaxed.log
        );
        let strict = nvrtc::compile(
            "warns.cu",
            warns,
            &BuildOptions::new(Target::Ptx(9, 0)).strict(),
        );
        assert!(
            matches!(strict, Err(GpuError::Compile { .. })),
            "{strict:?}"
        );
    }

    /// The dot kernel's PTX does exactly the arithmetic its CPU model assumes:
    /// only fma.rn and add.rn in f32/f64 (no separate multiply, no contraction
    /// left to the compiler, no flush-to-zero) and no atomics.
    #[test]
    fn dot_ptx_has_only_round_to_nearest_fma_and_add_and_no_atomics() {
        if !nvrtc_available() {
            return;
        }
        let kernel = boundgate::gpu::sources::DOT;
        let built = nvrtc::compile(
            kernel.path,
            kernel.source,
            &BuildOptions::new(Target::Ptx(9, 0)).strict(),
        )
        .expect("compiles");
        let ptx = String::from_utf8_lossy(&built.image);
        let mut arithmetic = std::collections::BTreeSet::new();
        for line in ptx.lines() {
            let Some(op) = line.split_whitespace().next() else {
                continue;
            };
            assert!(
                !op.starts_with("atom") && !op.starts_with("red."),
                "atomic in the dot kernel: {line}"
            );
            assert!(
                !op.contains(".ftz"),
                "flush-to-zero in the dot kernel: {line}"
            );
            let float_op = op.ends_with(".f32") || op.ends_with(".f64");
            if float_op
                && [
                    "fma", "add", "sub", "mul", "div", "neg", "abs", "min", "max",
                ]
                .iter()
                .any(|a| op.starts_with(a))
            {
                arithmetic.insert(op.to_string());
            }
        }
        let expected: std::collections::BTreeSet<String> =
            ["add.rn.f32", "add.rn.f64", "fma.rn.f32", "fma.rn.f64"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        assert_eq!(arithmetic, expected);
    }

    /// No entry point of any kernel spills registers or keeps a stack frame
    /// on sm_80 or sm_90 (sm_90a for the wgmma GEMM): both live in local memory, and a run-time-indexed
    /// local array (the qdot tile kernels' accumulators until 2026-11-25, a
    /// 1024- and a 2560-byte frame) turns every step into a scattered load and
    /// store through L1 to L2. And the
    /// tensor-core GEMMs' 256-thread blocks (the wide mpfma GEMM, the residual
    /// IMMA GEMM) fit two to an SM (<= 128 registers per thread, two blocks'
    /// static and dynamic shared memory within sm_80's 164 KiB): what their
    /// design counts on to hide the latency of their loads. The wgmma GEMM is
    /// one block per SM by design (two warpgroups' accumulators, four 48 KiB
    /// stages): its shared memory within sm_90's 227 KiB per block.
    #[test]
    fn no_kernel_uses_local_memory_and_the_tensor_core_gemms_fit_two_blocks_per_sm() {
        if !nvrtc_available() {
            return;
        }
        let mut problems = Vec::new();
        let mut wide = 0;
        let mut warpgroup = 0;
        for file in kernel_files() {
            let name = repo_path(&file);
            let source = std::fs::read_to_string(&file).expect("readable kernel");
            for target in targets_of(&name).into_iter().filter(|t| t.is_cubin()) {
                let built = nvrtc::compile(
                    &name,
                    &source,
                    &BuildOptions::new(target).with_ptxas_report(),
                )
                .expect("compiles");
                let report = boundgate::gpu::machine_code::ptxas_report(&built.log);
                assert!(
                    !report.is_empty(),
                    "{name} for {target}: no ptxas report in the log:\n{}",
                    built.log
                );
                for (entry, r) in &report {
                    println!(
                        "{target} {entry}: {} registers, {} B shared, {} B stack, {} B spilled",
                        r.registers,
                        r.shared_bytes,
                        r.stack_bytes,
                        r.spill_bytes()
                    );
                    if r.spill_bytes() > 0 {
                        problems.push(format!(
                            "{entry} ({target}) spills {} bytes",
                            r.spill_bytes()
                        ));
                    }
                    if r.stack_bytes > 0 {
                        problems.push(format!(
                            "{entry} ({target}) has a {}-byte stack frame (a local array)",
                            r.stack_bytes
                        ));
                    }
                    if entry.starts_with("mpfma_gemm_wgmma_") {
                        // One block per SM by design: two warpgroups, 2 x 64 fp32
                        // accumulators a thread, four 48 KiB stages.
                        // (ptxas caps registers at 255: spills, checked above, are
                        // the real limit; 0 would mean the report was not read.)
                        warpgroup += 1;
                        if r.registers == 0 {
                            problems.push(format!("{entry} ({target}): no register count"));
                        }
                        let shared = r.shared_bytes
                            + u64::from(GemmKernel::Warpgroup.dynamic_shared_bytes());
                        if shared > 227 * 1024 {
                            problems.push(format!("{entry} ({target}): {shared} B shared"));
                        }
                    }
                    if entry.starts_with("mpfma_gemm_wide_") || entry == "residual_gemm_imma" {
                        wide += 1;
                        if r.registers == 0 || r.registers > 128 {
                            problems.push(format!("{entry} ({target}): {} registers", r.registers));
                        }
                        // Static (ptxas) plus the dynamic shared memory the launcher
                        // asks for: two blocks within sm_80's 164 KiB per SM (sm_90
                        // has 228 KiB).
                        let dynamic = if entry.starts_with("mpfma_gemm_wide_") {
                            u64::from(GemmKernel::Wide.dynamic_shared_bytes())
                        } else {
                            0
                        };
                        let shared = r.shared_bytes + dynamic;
                        if shared == 0 || 2 * shared > 164 * 1024 {
                            problems.push(format!("{entry} ({target}): {shared} B shared"));
                        }
                    }
                }
            }
        }
        assert_eq!(wide, 8, "three wide GEMMs and the IMMA GEMM, two targets");
        assert_eq!(warpgroup, 2, "two wgmma GEMMs, sm_90a");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
