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
//! command). The cuBLAS Sdot/Ddot/Sgemv/Dgemv comparison the issue names is
//! not part of it (no cuBLAS BLAS-1/2 launcher yet).

use boundgate::kernels::accessor::gemv::GemvOp;
use boundgate::kernels::accessor::gpu::{AccessorGpu, Timing, Workload};
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::Transpose;

/// Timed launches per measurement (after one warm-up).
const REPETITIONS: usize = 20;

/// The three configurations compared, as (label, storage, arithmetic).
const PAIRS: [(&str, StorageKind, Format); 3] = [
    ("fp32", StorageKind::Fp32, Format::FP32),
    ("acc<f64,f32>", StorageKind::Fp32, Format::FP64),
    ("fp64", StorageKind::Fp64, Format::FP64),
];

/// Deterministic values in [-1, 1) (the timing does not depend on them).
fn values(n: usize, seed: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let h = (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
            (h as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Times `workload` for each pair; prints GB/s, the share of copy bandwidth
/// and the accessor's ratio to plain fp32.
fn compare(gpu: &AccessorGpu, label: &str, workload: &Workload<'_>) {
    let mut timings: Vec<(&str, Timing)> = Vec::new();
    for (name, storage, arithmetic) in PAIRS {
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
    let rate = |wanted: &str| {
        timings
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, t)| t.gb_per_s)
    };
    // Same bytes moved per element of storage, so the ratio of GB/s is the
    // ratio of elements per second (the target's measure).
    if let (Some(plain), Some(accessor)) = (rate("fp32"), rate("acc<f64,f32>")) {
        println!(
            "{label:<24} accessor/fp32 throughput {:.3} (target >= 0.97)",
            accessor / plain
        );
    }
}

fn main() {
    let gpu = match AccessorGpu::open() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("accessor_gpu: skipped ({e})");
            return;
        }
    };
    println!("accessor_gpu: {REPETITIONS} launches per measurement after one warm-up");
    for log2 in [20u32, 24, 26] {
        let n = 1usize << log2;
        let (x, y) = (values(n, 1), values(n, 2));
        compare(
            &gpu,
            &format!("dot n=2^{log2}"),
            &Workload::Dot { x: &x, y: &y },
        );
    }
    for n in [4096usize, 16384] {
        let a = values(n * n, 3);
        let x = values(n, 4);
        let transposed = GemvOp {
            trans: Transpose::Yes,
            ..GemvOp::PLAIN
        };
        for (op_name, op) in [("gemv", GemvOp::PLAIN), ("gemv^T", transposed)] {
            compare(
                &gpu,
                &format!("{op_name} {n}x{n}"),
                &Workload::Gemv {
                    a: &a,
                    shape: (n, n),
                    x: &x,
                    op,
                    y: None,
                },
            );
        }
    }
}
