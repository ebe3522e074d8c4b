//! The fast exact dot product against a naive `f64` dot product, an FMA loop
//! and the MPFR reference, at n = 16, 10^3, 10^5 and 10^7 (results: docs/perf.md).
//!
//! Inputs: x and y uniform in [-1, 1) with full 53-bit significands (fixed
//! seed), so that almost every product has a nonzero TwoProduct remainder.
//! The exact and MPFR timings include the final rounding to `f64`.
//!
//! Run: `cargo bench -p boundgate-verify --bench exact_dot`.

use boundgate_verify::oracle::{dot, mpfr};
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

const SEED: u64 = 0x5eed_d070;

fn inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ n as u64);
    let mut draw = || {
        (0..n)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect::<Vec<f64>>()
    };
    (draw(), draw())
}

fn naive_dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>()
}

/// The FMA loop, compiled with the `fma` target feature where the CPU has it
/// (otherwise `mul_add` is a libm call and the baseline would be unfair).
fn fma_dot(x: &[f64], y: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "fma")]
        fn with_fma(x: &[f64], y: &[f64]) -> f64 {
            x.iter().zip(y).fold(0.0, |s, (a, b)| a.mul_add(*b, s))
        }
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            return unsafe { with_fma(x, y) };
        }
    }
    x.iter().zip(y).fold(0.0, |s, (a, b)| a.mul_add(*b, s))
}

fn bench_dot(c: &mut Criterion) {
    // n = 16: the cost of one element of a small GEMM (direct path, no bins).
    for n in [16usize, 1_000, 100_000, 10_000_000] {
        let (x, y) = inputs(n);
        let mut group = c.benchmark_group(format!("dot_n{n}"));
        group.throughput(Throughput::Elements(n as u64));
        if n >= 10_000_000 {
            // Milliseconds per call (about a second for MPFR): few, flat samples.
            group
                .sampling_mode(SamplingMode::Flat)
                .sample_size(20)
                .measurement_time(Duration::from_secs(10));
        }
        group.bench_with_input(BenchmarkId::new("naive", n), &n, |b, _| {
            b.iter(|| naive_dot(black_box(&x), black_box(&y)))
        });
        group.bench_with_input(BenchmarkId::new("fma", n), &n, |b, _| {
            b.iter(|| fma_dot(black_box(&x), black_box(&y)))
        });
        group.bench_with_input(BenchmarkId::new("exact", n), &n, |b, _| {
            b.iter(|| dot(black_box(&x), black_box(&y)).unwrap().to_f64())
        });
        if n >= 10_000_000 {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(20));
        }
        group.bench_with_input(BenchmarkId::new("mpfr", n), &n, |b, _| {
            b.iter(|| mpfr::dot(black_box(&x), black_box(&y)).unwrap().to_f64())
        });
        group.finish();
    }
}

criterion_group!(benches, bench_dot);
criterion_main!(benches);
