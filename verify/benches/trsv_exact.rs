//! The exact solution of a triangular system: fraction-free substitution in
//! integers (`oracle::trsv::solve_exact`, the TRSV oracle's fallback) against
//! plain rational substitution (`solve_exact_rational`, the trusted reference
//! and the fallback up to order 128 before 2026-11-26), at orders 64 and 128,
//! and the fraction-free solve alone at 300 and 600 (results: docs/perf.md).
//!
//! Inputs: lower triangular, diagonal `±(1 + U[0, 1))`, off-diagonal
//! `U[-1, 1) / n`, right-hand side `U[-1, 1)`, all rounded to fp32 (fixed
//! seed), as `verify/tests/accessor_oracle.rs`'s diagonally weighted systems.
//!
//! Run: `cargo bench -p boundgate-verify --bench trsv_exact`.

use boundgate_verify::oracle::Matrix;
use boundgate_verify::oracle::trsv::{
    Diag, Triangular, Uplo, solve_cost_bits, solve_exact, solve_exact_rational,
};
use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Duration;

const SEED: u64 = 0x7e5_e1ac;

fn system(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ n as u64);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..i {
            a[i * n + j] = (rng.random_range(-1.0..1.0) / n as f64) as f32 as f64;
        }
        let v: f64 = rng.random_range(-1.0..1.0);
        a[i * n + i] = (v.signum() * (1.0 + v.abs())) as f32 as f64;
    }
    let b = (0..n)
        .map(|_| rng.random_range(-1.0..1.0) as f32 as f64)
        .collect();
    (a, b)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("trsv_exact");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for n in [64usize, 128, 300, 600] {
        let (a, b) = system(n);
        let t =
            Triangular::new(Matrix::new(n, n, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
        println!(
            "order {n}: cost estimate {:.3e} bit operations",
            solve_cost_bits(&t, &b).unwrap()
        );
        group.bench_with_input(BenchmarkId::new("fraction_free", n), &n, |bench, _| {
            bench.iter(|| solve_exact(black_box(&t), black_box(&b)).unwrap())
        });
        if n <= 128 {
            group.bench_with_input(BenchmarkId::new("rational", n), &n, |bench, _| {
                bench.iter(|| solve_exact_rational(black_box(&t), black_box(&b)).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
