//! Throughput of the baseline CPU models, as ratios to native loops in the same run.
//!
//! `cargo bench --bench kernels` (release). The emulated formats round every
//! operation with `Format::add/mul/fma` (correct rounding into any format); the
//! native loops are what the hardware does for fp32/fp64, so the ratio is the
//! price of bit-exact emulation.

use boundgate::kernels::baseline::pairwise::pairwise_dot;
use boundgate::kernels::baseline::recursive::recursive_dot;
use boundgate_verify::format::{Format, RoundingMode};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const N: usize = 10_000;

fn inputs(format: Format) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut draw = || format.round(rng.random_range(-1.0..1.0), RoundingMode::NearestEven);
    let x = (0..N).map(|_| draw()).collect();
    let y = (0..N).map(|_| draw()).collect();
    (x, y)
}

fn baseline_models(c: &mut Criterion) {
    let mut group = c.benchmark_group("dot_models");
    group.throughput(Throughput::Elements(N as u64));
    let rne = RoundingMode::NearestEven;
    let (x64, y64) = inputs(Format::FP64);
    group.bench_function("native_f64_loop", |b| {
        b.iter(|| {
            black_box(&x64)
                .iter()
                .zip(black_box(&y64))
                .fold(0.0f64, |s, (a, b)| s + a * b)
        })
    });
    let (x32, y32) = inputs(Format::FP32);
    let (xf, yf): (Vec<f32>, Vec<f32>) = (
        x32.iter().map(|&v| v as f32).collect(),
        y32.iter().map(|&v| v as f32).collect(),
    );
    group.bench_function("native_f32_loop", |b| {
        b.iter(|| {
            black_box(&xf)
                .iter()
                .zip(black_box(&yf))
                .fold(0.0f32, |s, (a, b)| s + a * b)
        })
    });
    for format in [Format::FP64, Format::FP32, Format::BF16, Format::FP16] {
        let (x, y) = inputs(format);
        group.bench_with_input(
            BenchmarkId::new("recursive", format.name()),
            &format,
            |b, &f| b.iter(|| recursive_dot(black_box(&x), black_box(&y), f, rne, false)),
        );
        group.bench_with_input(
            BenchmarkId::new("recursive_fma", format.name()),
            &format,
            |b, &f| b.iter(|| recursive_dot(black_box(&x), black_box(&y), f, rne, true)),
        );
        group.bench_with_input(
            BenchmarkId::new("pairwise", format.name()),
            &format,
            |b, &f| b.iter(|| pairwise_dot(black_box(&x), black_box(&y), f, rne)),
        );
    }
    group.finish();
}

criterion_group!(benches, baseline_models);
criterion_main!(benches);
