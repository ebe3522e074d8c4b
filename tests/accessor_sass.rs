//! The machine code ptxas makes of the accessor kernels keeps each batch's loads
//! ahead of its FMAs. The batches (DOT: 4 terms, GEMV^T: 8 rows with their x,
//! or 16 rows with x from shared memory where storage and arithmetic differ,
//! SpMV CSR: 4 rows, SpMV ELL: 8 slots) exist so that a thread has many loads in flight on
//! a memory-bound kernel; ptxas is free to interleave them with the FMAs when it
//! keeps fewer registers, and on 2026-11-27 the SASS showed it did exactly that
//! for binary64 arithmetic (GEMV^T: each row's FMA right after its own two
//! loads; CSR: each row's FMA before the next row's gather), which fits the
//! device measurements where acc<f64,f32> trailed our fp32 kernel (GEMV^T 0.858x
//! and CSR 0.807x on the H200). The launch bounds in kernels/accessor_blas.cu
//! (`DOT_MIN_BLOCKS`, `GEMV_T_MIN_BLOCKS`, `CSR_MIN_BLOCKS`, `ELL_MIN_BLOCKS`)
//! and ELL's unconditional loads restore the batches; this test keeps them.
//!
//! It compiles the embedded kernels/accessor_blas.cu with NVRTC for sm_80 and
//! sm_90 (the pinned NVRTC of scripts/install-cuda-nvrtc.sh, so the same ptxas
//! every run), prints each entry point's SASS with `cuobjdump -sass` (installed,
//! with the nvdisasm it runs, by the same script) and requires, for the pairs the bench measures (fp32,
//! acc<f64,f32>) and the 16-bit ones, a run of at least the batch's load count
//! of LDG instructions with no FMA between them (other instructions, branches
//! included, do not break a run). binary64 storage is left out: ptxas puts one
//! FMA into some of its batches (DOT, CSR, ELL), with the same launch bounds.
//!
//! The same listings show what the pipelined TRSV's block row waits behind
//! before it publishes: the shared-memory loads between its last barrier and
//! its fence, which `TRSV_Y_REGISTERS=1` cuts to v's.
//!
//! Like the NVRTC tests it FAILS when NVRTC or cuobjdump is missing, unless
//! BOUNDGATE_SKIP_NVRTC=1 is set. No GPU is needed.
//!
//! Run: `eval "$(scripts/install-cuda-nvrtc.sh)" && cargo test --features cuda --test accessor_sass`
#![cfg(feature = "cuda")]

use boundgate::gpu::machine_code::{cuobjdump, longest_load_run, sass_opcodes};
use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
use boundgate::gpu::sources;
use std::path::{Path, PathBuf};

mod common;

use common::nvrtc::present_or_skip;

/// NVRTC and cuobjdump, or the CI contract's skip or failure (tests/common/nvrtc.rs).
fn tools() -> Option<PathBuf> {
    let missing = match (nvrtc::version(), cuobjdump()) {
        (Ok(_), Some(tool)) => return Some(tool),
        (Err(error), _) => format!("NVRTC is not available: {error}"),
        (Ok(_), None) => "cuobjdump (with nvdisasm beside it) is not available".to_string(),
    };
    present_or_skip(Some(missing));
    None
}

/// The opcodes of `entry`'s SASS in `cubin` (the test fails where cuobjdump does).
fn opcodes(tool: &Path, cubin: &Path, entry: &str) -> Vec<String> {
    sass_opcodes(tool, cubin, entry).unwrap_or_else(|e| panic!("{e}"))
}

/// The pairs whose batches are checked: the ones the bench measures (fp32,
/// acc<f64,f32>) and the 16-bit storage ones.
const PAIRS: [&str; 6] = [
    "f32_f32", "f32_f64", "f16_f32", "f16_f64", "bf16_f32", "bf16_f64",
];

/// The machine-code targets every check here covers.
const TARGETS: [Target; 2] = [Target::Cubin(8, 0), Target::Cubin(9, 0)];

/// A folder of its own for a check's CUBINs (the tests of this file run at
/// the same time), named after this process and `tag`.
fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("boundgate-sass-{}{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// The kernel file compiled for `target` with `defines`, written as a CUBIN
/// into `dir` (one file per target and setting) for cuobjdump.
fn cubin(dir: &Path, target: Target, defines: &[(&str, &str)]) -> PathBuf {
    let built = nvrtc::compile(
        sources::ACCESSOR_BLAS.path,
        sources::ACCESSOR_BLAS.source,
        &BuildOptions::new(target).with_defines(defines),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let setting: String = defines.iter().map(|(n, v)| format!("-{n}{v}")).collect();
    let cubin = dir.join(format!("accessor_blas_{}{setting}.cubin", target.arch()));
    std::fs::write(&cubin, &built.image).expect("the CUBIN written");
    cubin
}

/// Compiles the kernel file for sm_80 and sm_90 with `defines` and returns a
/// line for each `(kernel, loads per batch)` entry point of [`PAIRS`] whose
/// longest run of loads is shorter than its batch.
fn short_load_runs(
    tool: &Path,
    defines: &[(&str, &str)],
    batches: &[(&str, usize)],
) -> Vec<String> {
    let setting: String = defines.iter().map(|(n, v)| format!("-{n}{v}")).collect();
    let dir = scratch_dir(&setting);
    let mut problems = Vec::new();
    for target in TARGETS {
        let cubin = cubin(&dir, target, defines);
        for &(kernel, loads) in batches {
            for pair in PAIRS {
                let entry = format!("accessor_{kernel}_{pair}");
                let run = longest_load_run(&opcodes(tool, &cubin, &entry));
                println!(
                    "{target} {defines:?} {entry}: {run} loads in a row (a batch has {loads})"
                );
                if run < loads {
                    problems.push(format!(
                        "{target} {defines:?} {entry}: at most {run} loads without an FMA \
                         between them, fewer than a batch's {loads}"
                    ));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    problems
}

#[test]
fn batched_loads_stay_ahead_of_their_fmas() {
    let Some(tool) = tools() else {
        return;
    };
    // (entry point, loads per batch): DOT 4 terms x (x, y); GEMV^T 8 rows x (A, x), or
    // 16 rows of A where x is staged (GEMV_T_STAGE_X: every pair here but fp32/fp32);
    // CSR 4 rows x (column index, value, x); ELL 8 slots x (column index, value, x).
    let batches = [
        ("dot_blocks", 8),
        ("gemv_t", 16),
        ("spmv_csr", 12),
        ("spmv_ell", 24),
    ];
    let problems = short_load_runs(&tool, &[], &batches);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The CSR kernel without split lanes (`CSR_SPLIT_LANES=0`, lane l of the
/// warp lane l of all four rows; the default until 2026-11-28) keeps its
/// four chains' loads together too.
#[test]
fn one_lane_per_row_csr_keeps_its_batches() {
    let Some(tool) = tools() else {
        return;
    };
    let problems = short_load_runs(&tool, &[("CSR_SPLIT_LANES", "0")], &[("spmv_csr", 12)]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The CSR kernel with deeper pipelines (`CSR_PIPELINE_DEPTH` 2 at the default
/// blocks per SM, 3 at 2 blocks: no spills for these pairs; not the default,
/// awaiting a device) keeps its four chains' loads together too.
#[test]
fn deeper_csr_pipelines_keep_their_batches() {
    let Some(tool) = tools() else {
        return;
    };
    let mut problems = short_load_runs(&tool, &[("CSR_PIPELINE_DEPTH", "2")], &[("spmv_csr", 12)]);
    problems.extend(short_load_runs(
        &tool,
        &[("CSR_PIPELINE_DEPTH", "3"), ("CSR_MIN_BLOCKS", "2")],
        &[("spmv_csr", 12)],
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The shared-memory loads (`LDS`) a block row's publication waits behind:
/// those between the last barrier (`BAR`) before the kernel's last fence
/// (`MEMBAR`, the publication's `__threadfence`) and that fence, i.e. the
/// product of `trsv_rows` with the block's inverse.
fn shared_loads_before_the_publication(ops: &[String]) -> usize {
    let fence = ops
        .iter()
        .rposition(|op| op == "MEMBAR")
        .expect("trsv_rows publishes behind a fence");
    let barrier = ops[..fence]
        .iter()
        .rposition(|op| op == "BAR")
        .expect("a barrier before the product");
    ops[barrier..fence].iter().filter(|op| *op == "LDS").count()
}

/// With `TRSV_Y_REGISTERS=1` the pipelined TRSV reads at most v (32
/// broadcast loads) from shared memory between the barrier and the
/// publication: warp 0's rows of the block's inverse are in registers by then.
/// By default it reads its row there too, at least 31 loads more (ptxas may
/// pair two binary32 words): the cycles on every block row's critical path the
/// setting exists to take off it (kernels/accessor_blas.cu, `TRSV_Y_REGISTERS`;
/// not the default until a device times it).
#[test]
fn trsv_rows_in_registers_leave_only_v_behind_the_barrier() {
    let Some(tool) = tools() else {
        return;
    };
    let dir = scratch_dir("-trsv");
    let mut problems = Vec::new();
    for target in TARGETS {
        let by_default = cubin(&dir, target, &[("TRSV_Y_REGISTERS", "0")]);
        let in_registers = cubin(&dir, target, &[("TRSV_Y_REGISTERS", "1")]);
        let loads = |cubin: &Path, entry: &str| {
            shared_loads_before_the_publication(&opcodes(&tool, cubin, entry))
        };
        for pair in PAIRS.iter().chain(&["f64_f64"]) {
            let entry = format!("accessor_trsv_rows_{pair}");
            let (shared, registers) = (loads(&by_default, &entry), loads(&in_registers, &entry));
            println!(
                "{target} {entry}: {shared} shared loads behind the barrier, \
                 {registers} with TRSV_Y_REGISTERS=1"
            );
            if registers > 32 {
                problems.push(format!(
                    "{target} {entry}: {registers} shared loads behind the barrier with the \
                     rows in registers, more than v's 32"
                ));
            }
            if shared < registers + 31 {
                problems.push(format!(
                    "{target} {entry}: {shared} shared loads by default against {registers} \
                     with the rows in registers: the row's 31 or 32 are not among them"
                ));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The global loads (`LDG`) before the first shared-memory store (`STS`).
fn loads_before_the_first_shared_store(ops: &[String]) -> usize {
    let first_store = ops
        .iter()
        .position(|op| op == "STS")
        .expect("spmv_csr_stream stores its chunk to shared memory");
    ops[..first_store].iter().filter(|op| *op == "LDG").count()
}

/// The CSR-stream kernel issues a chunk's loads (its batch of column indices
/// and values, then their x) before it stores any of them to shared memory: a
/// store waits for its value's load, and the warp issues in order, so a store
/// among the loads would hold the gathers behind it (kernels/accessor_blas.cu,
/// `spmv_csr_stream`). The loads before the first store are the row bounds
/// (four) and the chunk's, at least 3 x `CSR_STREAM_BATCH` (as the listing of
/// 2026-11-28 has them: 28 for the default batch of 8); checked at the
/// default batch and at 4, binary64 storage included.
#[test]
fn csr_stream_issues_a_chunks_loads_before_storing_them() {
    let Some(tool) = tools() else {
        return;
    };
    let dir = scratch_dir("-stream");
    let mut problems = Vec::new();
    for target in TARGETS {
        for batch in [8usize, 4] {
            let text = batch.to_string();
            let cubin = cubin(&dir, target, &[("CSR_STREAM_BATCH", text.as_str())]);
            for pair in PAIRS.iter().chain(&["f64_f64"]) {
                let entry = format!("accessor_spmv_csr_stream_{pair}");
                let loads = loads_before_the_first_shared_store(&opcodes(&tool, &cubin, &entry));
                println!(
                    "{target} CSR_STREAM_BATCH={batch} {entry}: {loads} loads before the first store"
                );
                if loads < 3 * batch {
                    problems.push(format!(
                        "{target} CSR_STREAM_BATCH={batch} {entry}: {loads} loads before the \
                         first shared store, fewer than the chunk's {}",
                        3 * batch
                    ));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
