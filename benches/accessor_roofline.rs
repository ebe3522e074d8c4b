//! The memory accessor on the CPU, as ratios in one run:
//!
//! - `roofline/<flops>`: the experimental-roofline kernel (read through the
//!   accessor, `flops/2` multiply-adds per value, write back) on 2^22 values for
//!   fp64, accessor<fp64,fp64>, fp32 and accessor<fp64,fp32>: the paper's claim
//!   (§3) is accessor<fp64,fp32> at fp32 speed while memory-bound (low FLOPs per
//!   value) and at fp64 speed when compute-bound.
//! - `models/<kernel>`: the CPU models of the GPU kernels (dot in the GPU grid
//!   order, GEMV a warp per row) in accessor<fp64,fp32>, fp32 and fp64, storage
//!   and read included. These are models of GPU kernels, not CPU kernels: the
//!   ratio says what checking costs, not what a GPU achieves (no GPU here).
//!
//! `cargo bench --bench accessor_roofline` (release). Results: docs/accessor.md.

use boundgate::kernels::accessor::dot::accessor_dot;
use boundgate::kernels::accessor::gemv::{GemvOp, accessor_gemv};
use boundgate::kernels::accessor::roofline::{accessor_kernel, plain_f32, plain_f64};
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate_verify::format::Format;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const VALUES: usize = 1 << 22;

fn roofline(c: &mut Criterion) {
    let x64: Vec<f64> = (0..VALUES).map(|i| (i % 3) as f64).collect();
    let x32: Vec<f32> = (0..VALUES).map(|i| (i % 3) as f32).collect();
    let mut y64 = vec![0.0f64; VALUES];
    let mut y32 = vec![0.0f32; VALUES];
    for flops in [0usize, 8, 64] {
        let k = flops / 2;
        let mut group = c.benchmark_group(format!("roofline/{flops}"));
        group.throughput(Throughput::Elements(VALUES as u64));
        group.sample_size(20);
        group.bench_function("fp64", |b| {
            b.iter(|| plain_f64(black_box(&x64), &mut y64, k))
        });
        group.bench_function("accessor<fp64,fp64>", |b| {
            b.iter(|| accessor_kernel::<f64, f64>(black_box(&x64), &mut y64, k))
        });
        group.bench_function("fp32", |b| {
            b.iter(|| plain_f32(black_box(&x32), &mut y32, k))
        });
        group.bench_function("accessor<fp64,fp32>", |b| {
            b.iter(|| accessor_kernel::<f32, f64>(black_box(&x32), &mut y32, k))
        });
        group.finish();
    }
}

fn models(c: &mut Criterion) {
    let variants = [
        ("accessor<fp64,fp32>", StorageKind::Fp32, Format::FP64),
        ("fp32", StorageKind::Fp32, Format::FP32),
        ("fp64", StorageKind::Fp64, Format::FP64),
    ];
    let n = 1 << 16;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 / 999.0 - 0.5)
        .collect();
    let mut group = c.benchmark_group("models/dot");
    group.throughput(Throughput::Elements(n as u64));
    for (label, s, a) in variants {
        let spec = AccessorSpec::new(s, a).unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(label), &spec, |b, spec| {
            b.iter(|| {
                accessor_dot(spec, black_box(&x), black_box(&x), true)
                    .unwrap()
                    .output
            })
        });
    }
    group.finish();
    let m = 256;
    let a: Vec<f64> = (0..m * m)
        .map(|i| ((i * 7919) % 1000) as f64 / 999.0 - 0.5)
        .collect();
    let v = &a[..m];
    let mut group = c.benchmark_group("models/gemv");
    group.throughput(Throughput::Elements((m * m) as u64));
    for (label, s, ar) in variants {
        let spec = AccessorSpec::new(s, ar).unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(label), &spec, |b, spec| {
            b.iter(|| {
                accessor_gemv(spec, GemvOp::PLAIN, black_box(&a), (m, m), v, None, true)
                    .unwrap()
                    .output
            })
        });
    }
    group.finish();
}

criterion_group!(benches, roofline, models);
criterion_main!(benches);
