//! Throughput of the accessor BLAS kernels (`kernels/accessor_blas.cu`) on the
//! device, in GB/s over the bytes each launch must move
//! (`AccessorGpu::time`), for issue 4's targets: accessor<fp32 storage, fp64
//! arithmetic> at >= 0.97x our plain fp32 kernel's throughput and >= 90 % of
//! the device's copy bandwidth (a device-to-device copy of the same number of
//! bytes) at large sizes. Plain fp64 is printed beside them.
//!
//! A plain program (criterion does not time GPUs):
//! `cargo bench --features cuda --bench accessor_gpu`; it prints "skipped"
//! without a GPU. Record its output in docs/gpu/ (device, driver, date,
//! command). `ACCESSOR_BENCH_GROUPS="spmv gemv"` runs only those groups (of
//! dot, gemv, spmv, trsv, roofline; unset: all), for a device call short on
//! time; a word that is none of them stops the program with one line.
//!
//! DOT, GEMV and the pipelined TRSV are also timed through cuBLAS
//! (`Sdot`/`Ddot`/`Sgemv`/`Dgemv`/`Strsv`/`Dtrsv`,
//! `AccessorGpu::time_cublas`, the same operands and the same event timing):
//! the lines "vs cuBLAS" give the accessor's time over cuBLAS's in fp32 and
//! fp64 (below 1: faster). SpMV (CSR and ELL, a 27-point stencil matrix as in
//! HPCCG; no cuBLAS counterpart here) and TRSV (lower, non-unit, diagonally
//! dominant; both schedules, with the pipelined one's speed-up over the
//! one-block solve of the same run) are timed for the three configurations.
//! Last, the experimental roofline (issue 4, item 5): GFLOP/s and GB/s
//! against FLOPs per value for five configurations.
//!
//! `ACCESSOR_BENCH_TUNINGS="CSR_GROUPS_PER_WARP=1,CSR_MIN_BLOCKS=5; TRSV_STAGE_X=0"`
//! also compiles the kernel file with each setting of its tuning knobs
//! (`AccessorTuning`, settings separated by `;`) and times every workload
//! with each right after the default kernels, printing each pair's time
//! over the default's (below 1: the setting is faster): an A/B of kernel
//! variants in one run of one binary, where the unchanged kernels show the
//! comparison's noise. A setting that does not parse stops the program with
//! one line, before any device work. `ACCESSOR_BENCH_HALF=1` adds the
//! binary16 and bfloat16 storage pairs (acc<f64,f16>, acc<f64,bf16>,
//! acc<f32,f16>, acc<f32,bf16>), each with its speed-up over plain fp32 in
//! elements per second. `ACCESSOR_BENCH_LARGEST=1` times only the largest
//! size of each group (the sizes the targets name), for an A/B short on
//! device time. Each group ends with a line giving its wall time, host work
//! (building the operands, converting them to each storage format) included,
//! so that a device call can be sized.

use boundgate::kernels::accessor::gemv::GemvOp;
use boundgate::kernels::accessor::gpu::tuning::AccessorTuning;
use boundgate::kernels::accessor::gpu::{AccessorGpu, Timing, TrsvSchedule, Workload};
use boundgate::kernels::accessor::sparse::CsrMatrix;
use boundgate::kernels::accessor::spmv::SparseFormat;
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::Transpose;
use boundgate_verify::oracle::trsv::{Diag, Uplo};

/// Timed launches per measurement (after one warm-up).
const REPETITIONS: usize = 20;

/// A configuration compared: (label, storage, arithmetic).
type Pair = (&'static str, StorageKind, Format);

/// The three configurations compared, as (label, storage, arithmetic).
const PAIRS: [Pair; 3] = [
    ("fp32", StorageKind::Fp32, Format::FP32),
    ("acc<f64,f32>", StorageKind::Fp32, Format::FP64),
    ("fp64", StorageKind::Fp64, Format::FP64),
];

/// The 16-bit storage pairs `ACCESSOR_BENCH_HALF=1` adds: half the bytes of
/// binary32 storage per element, so their measure is the speed-up in
/// elements per second over plain fp32 (below the share of copy).
const HALF_PAIRS: [Pair; 4] = [
    ("acc<f64,f16>", StorageKind::Fp16, Format::FP64),
    ("acc<f64,bf16>", StorageKind::Bf16, Format::FP64),
    ("acc<f32,f16>", StorageKind::Fp16, Format::FP32),
    ("acc<f32,bf16>", StorageKind::Bf16, Format::FP32),
];

/// The pairs to time: [`PAIRS`], and [`HALF_PAIRS`] with `ACCESSOR_BENCH_HALF=1`.
fn selected_pairs() -> Result<Vec<Pair>, String> {
    Ok(if env_switch("ACCESSOR_BENCH_HALF")? {
        PAIRS.iter().chain(&HALF_PAIRS).copied().collect()
    } else {
        PAIRS.to_vec()
    })
}

/// An environment variable that is `1` (on) or `0` or unset (off).
fn env_switch(name: &str) -> Result<bool, String> {
    match std::env::var(name).as_deref() {
        Err(_) | Ok("0") => Ok(false),
        Ok("1") => Ok(true),
        Ok(other) => Err(format!("{name}: `{other}` is not 0 or 1")),
    }
}

/// What the environment asks this run for; every variable is read before any
/// device work, so that a misspelt one stops the program at once.
struct Settings {
    groups: Vec<&'static str>,
    tunings: Vec<AccessorTuning>,
    pairs: Vec<Pair>,
    largest: bool,
}

impl Settings {
    fn from_env() -> Result<Self, String> {
        Ok(Self {
            groups: selected_groups()?,
            tunings: selected_tunings()?,
            pairs: selected_pairs()?,
            largest: env_switch("ACCESSOR_BENCH_LARGEST")?,
        })
    }
}

/// The sizes of a group to time: all of them, or the last (largest) one.
fn sizes<T: Copy>(all: &[T], largest: bool) -> Vec<T> {
    match all.split_last() {
        Some((last, _)) if largest => vec![*last],
        _ => all.to_vec(),
    }
}

/// Runs `body` when `group` is among `groups`, then prints its wall time.
fn run_group(groups: &[&str], group: &str, body: impl FnOnce()) {
    if groups.contains(&group) {
        let started = std::time::Instant::now();
        body();
        println!(
            "accessor_gpu: group {group} took {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}

/// Deterministic values in [-1, 1) (the timing does not depend on them).
fn values(n: usize, seed: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let h = (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
            (h as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// The 27-point stencil matrix of an `n^3` grid (HPCCG's: 26 on the diagonal,
/// -1 for each neighbour), in row order.
fn stencil27(n: usize) -> CsrMatrix {
    let index = |x: usize, y: usize, z: usize| (z * n + y) * n + x;
    let mut triplets = Vec::with_capacity(n * n * n * 27);
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let row = index(x, y, z);
                for dz in -1i64..=1 {
                    for dy in -1i64..=1 {
                        for dx in -1i64..=1 {
                            let (cx, cy, cz) = (x as i64 + dx, y as i64 + dy, z as i64 + dz);
                            let inside = |c: i64| (0..n as i64).contains(&c);
                            if inside(cx) && inside(cy) && inside(cz) {
                                let col = index(cx as usize, cy as usize, cz as usize);
                                let v = if col == row { 26.0 } else { -1.0 };
                                triplets.push((row, col, v));
                            }
                        }
                    }
                }
            }
        }
    }
    CsrMatrix::from_triplets(n * n * n, n * n * n, &triplets).expect("indices in range")
}

/// A row-major `n x n` matrix whose lower triangle is diagonally dominant
/// (the solve stays bounded; the strict upper triangle is never read).
fn lower_dominant(n: usize) -> Vec<f64> {
    let mut a = values(n * n, 5);
    for (i, v) in a.iter_mut().enumerate() {
        if i / n == i % n {
            *v = 2.0 + n as f64;
        }
    }
    a
}

/// The timing of the pair named `wanted` (none where it failed or was not run).
fn timing_of<'t>(timings: &'t [(&str, Timing)], wanted: &str) -> Option<&'t Timing> {
    timings
        .iter()
        .find(|(name, _)| *name == wanted)
        .map(|(_, t)| t)
}

/// cuBLAS on `workload` in fp32 and fp64, against the accessor kernels'
/// times of the same run.
fn against_cublas(
    gpu: &AccessorGpu,
    label: &str,
    workload: &Workload<'_>,
    ours: &[(&str, Timing)],
) {
    for (format, plain) in [(Format::FP32, "fp32"), (Format::FP64, "fp64")] {
        match gpu.time_cublas(format, workload, REPETITIONS) {
            Err(e) => println!("{label:<24} cuBLAS {plain}: {e}"),
            Ok(t) => {
                let ratio = |name: &str| {
                    timing_of(ours, name)
                        .map_or("-".into(), |s| format!("{:.3}", s.seconds / t.seconds))
                };
                println!(
                    "{label:<24} {:<13} {:>9.1} GB/s  {:>10.3} us  vs cuBLAS: our {plain} {}x, acc<f64,f32> {}x its time",
                    t.kernel,
                    t.gb_per_s,
                    t.seconds * 1e6,
                    ratio(plain),
                    ratio("acc<f64,f32>"),
                );
            }
        }
    }
}

/// Times `workload` for each of `pairs`; prints GB/s, the share of copy
/// bandwidth and the accessor's ratio to plain fp32 (16-bit storage: its
/// speed-up over fp32); returns the timings.
fn compare(
    gpu: &AccessorGpu,
    pairs: &[Pair],
    label: &str,
    workload: &Workload<'_>,
) -> Vec<(&'static str, Timing)> {
    let mut timings: Vec<(&'static str, Timing)> = Vec::new();
    for &(name, storage, arithmetic) in pairs {
        let spec = match AccessorSpec::new(storage, arithmetic) {
            Ok(spec) => spec,
            Err(e) => {
                println!("{label} {name}: {e}");
                continue;
            }
        };
        match gpu.time(&spec, workload, REPETITIONS) {
            Ok(t) => timings.push((name, t)),
            Err(e) => println!("{label} {name}: {e}"),
        }
    }
    for (name, t) in &timings {
        // `copy_bandwidth(b)` moves 2 b bytes (read and write): half of what the kernel moves.
        let copy = gpu.copy_bandwidth(t.bytes.div_ceil(2) as usize, REPETITIONS);
        let share = copy.map_or_else(
            |e| format!("copy: {e}"),
            |c| {
                format!(
                    "{:.1} % of copy ({:.1} GB/s)",
                    100.0 * t.gb_per_s / c.gb_per_s,
                    c.gb_per_s
                )
            },
        );
        println!(
            "{label:<24} {name:<13} {:>9.1} GB/s  {:>10.3} us  {share}",
            t.gb_per_s,
            t.seconds * 1e6
        );
    }
    let rate = |wanted: &str| timing_of(&timings, wanted).map(|t| t.gb_per_s);
    // Same bytes moved per element of storage, so the ratio of GB/s is the
    // ratio of elements per second (the target's measure).
    if let (Some(plain), Some(accessor)) = (rate("fp32"), rate("acc<f64,f32>")) {
        println!(
            "{label:<24} accessor/fp32 throughput {:.3} (target >= 0.97)",
            accessor / plain
        );
    }
    let seconds = |wanted: &str| timing_of(&timings, wanted).map(|t| t.seconds);
    for (name, _, _) in HALF_PAIRS {
        if let (Some(plain), Some(half)) = (seconds("fp32"), seconds(name)) {
            println!(
                "{label:<24} {name:<13} {:.2}x fp32's speed (elements per second)",
                plain / half
            );
        }
    }
    timings
}

/// The default kernels and the tuned ones `ACCESSOR_BENCH_TUNINGS` names,
/// the default first.
struct Variants {
    default: AccessorGpu,
    tuned: Vec<AccessorGpu>,
    pairs: Vec<Pair>,
}

impl Variants {
    /// [`compare`] with the default kernels, then with each tuned module,
    /// each followed by its time over the default's per pair; returns the
    /// default's timings.
    fn compare(&self, label: &str, workload: &Workload<'_>) -> Vec<(&'static str, Timing)> {
        let ours = compare(&self.default, &self.pairs, label, workload);
        for gpu in &self.tuned {
            let tuned_label = format!("{label} [{}]", gpu.tuning());
            let theirs = compare(gpu, &self.pairs, &tuned_label, workload);
            for (name, t) in &theirs {
                if let Some(d) = timing_of(&ours, name) {
                    println!(
                        "{tuned_label} {name:<13} {:.3}x the default's time",
                        t.seconds / d.seconds
                    );
                }
            }
        }
        ours
    }
}

/// The settings `ACCESSOR_BENCH_TUNINGS` names (none when it is unset).
fn selected_tunings() -> Result<Vec<AccessorTuning>, String> {
    let Ok(text) = std::env::var("ACCESSOR_BENCH_TUNINGS") else {
        return Ok(Vec::new());
    };
    text.split(';')
        .filter(|setting| !setting.trim().is_empty())
        .map(|setting| {
            setting
                .parse::<AccessorTuning>()
                .map_err(|e| format!("ACCESSOR_BENCH_TUNINGS: {e}"))
        })
        .collect()
}

/// The benchmark groups, in the order they run.
const GROUPS: [&str; 5] = ["dot", "gemv", "spmv", "trsv", "roofline"];

/// The groups `ACCESSOR_BENCH_GROUPS` names (every group when it is unset).
fn selected_groups() -> Result<Vec<&'static str>, String> {
    let Ok(text) = std::env::var("ACCESSOR_BENCH_GROUPS") else {
        return Ok(GROUPS.to_vec());
    };
    let chosen = text
        .split_whitespace()
        .map(|w| {
            GROUPS.into_iter().find(|g| *g == w).ok_or_else(|| {
                format!(
                    "ACCESSOR_BENCH_GROUPS: `{w}` is not one of {}",
                    GROUPS.join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if chosen.is_empty() {
        return Err("ACCESSOR_BENCH_GROUPS: empty".into());
    }
    Ok(chosen)
}

fn main() {
    let Settings {
        groups,
        tunings,
        pairs,
        largest,
    } = Settings::from_env().unwrap_or_else(|e| {
        eprintln!("accessor_gpu: {e}");
        std::process::exit(2);
    });
    let gpu = match AccessorGpu::open() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("accessor_gpu: skipped ({e})");
            return;
        }
    };
    let mut tuned = Vec::new();
    for tuning in tunings {
        // NVRTC compiles the whole file once per setting: printed, so that a
        // device call can be sized.
        let started = std::time::Instant::now();
        let name = tuning.to_string();
        match AccessorGpu::open_tuned(tuning) {
            Ok(module) => {
                println!(
                    "accessor_gpu: [{name}] compiled and loaded in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
                tuned.push(module);
            }
            Err(e) => println!("accessor_gpu: [{name}] {e}"),
        }
    }
    let variants = Variants {
        default: gpu,
        tuned,
        pairs,
    };
    let gpu = &variants.default;
    println!("accessor_gpu: {REPETITIONS} launches per measurement after one warm-up");
    run_group(&groups, "dot", || {
        for log2 in sizes(&[20u32, 24, 26], largest) {
            let n = 1usize << log2;
            let (x, y) = (values(n, 1), values(n, 2));
            let label = format!("dot n=2^{log2}");
            let workload = Workload::Dot { x: &x, y: &y };
            let ours = variants.compare(&label, &workload);
            against_cublas(gpu, &label, &workload, &ours);
        }
    });
    run_group(&groups, "gemv", || {
        for n in sizes(&[4096usize, 16384], largest) {
            let a = values(n * n, 3);
            let x = values(n, 4);
            let transposed = GemvOp {
                trans: Transpose::Yes,
                ..GemvOp::PLAIN
            };
            for (op_name, op) in [("gemv", GemvOp::PLAIN), ("gemv^T", transposed)] {
                let label = format!("{op_name} {n}x{n}");
                let workload = Workload::Gemv {
                    a: &a,
                    shape: (n, n),
                    x: &x,
                    op,
                    y: None,
                };
                let ours = variants.compare(&label, &workload);
                against_cublas(gpu, &label, &workload, &ours);
            }
        }
    });
    run_group(&groups, "spmv", || {
        for side in sizes(&[64usize, 96], largest) {
            let a = stencil27(side);
            let x = values(a.cols(), 6);
            let mut by_format = Vec::new();
            for format in SparseFormat::ALL {
                let ours = variants.compare(
                    &format!("spmv-{} 27pt {side}^3", format.name()),
                    &Workload::Spmv {
                        a: &a,
                        format,
                        x: &x,
                        scalars: (1.0, 0.0),
                        y: None,
                    },
                );
                by_format.push((format, ours));
            }
            // The two CSR kernels (two orders, the same bytes) in one run.
            let of = |wanted| by_format.iter().find(|(f, _)| *f == wanted).map(|(_, t)| t);
            if let (Some(warps), Some(stream)) =
                (of(SparseFormat::Csr), of(SparseFormat::CsrStream))
            {
                for (name, t) in stream {
                    if let Some(w) = timing_of(warps, name) {
                        println!(
                            "spmv 27pt {side}^3 {name:<13} csr_stream {:.3}x csr's time",
                            t.seconds / w.seconds
                        );
                    }
                }
            }
        }
    });
    run_group(&groups, "trsv", || {
        for n in sizes(&[4096usize, 8192, 16384], largest) {
            let a = lower_dominant(n);
            let b = values(n, 7);
            let mut by_schedule = Vec::new();
            for (schedule_name, schedule) in [
                ("pipelined", TrsvSchedule::Pipelined),
                ("one block", TrsvSchedule::OneBlock),
            ] {
                // The one-block solve takes about 27 ms at 8192 (2026-11-26): not
                // timed at 16384, where it would take most of a short device call.
                if schedule == TrsvSchedule::OneBlock && n > 8192 {
                    continue;
                }
                let label = format!("trsv lower {n} {schedule_name}");
                let workload = Workload::Trsv {
                    a: &a,
                    n,
                    b: &b,
                    uplo: Uplo::Lower,
                    diag: Diag::NonUnit,
                    schedule,
                };
                let ours = variants.compare(&label, &workload);
                if schedule == TrsvSchedule::Pipelined {
                    against_cublas(gpu, &label, &workload, &ours);
                }
                by_schedule.push((schedule_name, ours));
            }
            if let [(_, pipelined), (_, one_block)] = &by_schedule[..] {
                // By configuration name: a configuration that failed in one
                // schedule has no pair.
                for (name, fast) in pipelined {
                    if let Some(slow) = timing_of(one_block, name) {
                        println!(
                            "trsv lower {n} {name:<13} pipelined {:.2}x faster than one block",
                            slow.seconds / fast.seconds
                        );
                    }
                }
            }
        }
    });
    run_group(&groups, "roofline", || roofline(gpu));
}

/// The experimental roofline (issue 4, item 5; Grützmacher et al. 2021, §3):
/// `2k` FLOPs per value for `k` from 1 to 1024 on 2^26 values, GFLOP/s and
/// GB/s per configuration, binary16 storage included. Where the GB/s stop
/// rising with k, the kernel has left the memory roof for the compute roof.
fn roofline(gpu: &AccessorGpu) {
    let n = 1usize << 26;
    let x = values(n, 8);
    let configurations = [
        ("fp64", StorageKind::Fp64, Format::FP64),
        ("fp32", StorageKind::Fp32, Format::FP32),
        ("acc<f64,f32>", StorageKind::Fp32, Format::FP64),
        ("acc<f64,f16>", StorageKind::Fp16, Format::FP64),
        ("acc<f32,f16>", StorageKind::Fp16, Format::FP32),
    ];
    println!("roofline n=2^26: FLOPs/value, then GFLOP/s and GB/s per configuration");
    for k in [1usize, 4, 16, 64, 256, 1024] {
        let mut line = format!("roofline {:>5} FLOPs/value", 2 * k);
        for (label, storage, arith) in configurations {
            let spec = AccessorSpec::new(storage, arith).expect("a supported pair");
            match gpu.time(&spec, &Workload::Roofline { x: &x, k }, REPETITIONS) {
                Ok(t) => line.push_str(&format!(
                    "  {label} {:.1} GFLOP/s {:.1} GB/s",
                    2.0 * k as f64 * n as f64 / t.seconds / 1e9,
                    t.gb_per_s
                )),
                Err(e) => line.push_str(&format!("  {label} {e}")),
            }
        }
        println!("{line}");
    }
}
