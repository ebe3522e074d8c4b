//! CPU throughput of the residual-compensated quantized GEMM (issue 6, item 5):
//! plain int8 (direct quantization), the full residual, and Gu's Algorithm 1
//! at reduced densities 0.3 .. 0.001, in one run, so that their ratios are
//! comparable (Gu Table 4 is the CPU analogue: density 0.3 .. 0.01).
//!
//! `cargo bench --bench residual` (release). Inputs: U(0, 1) (the paper's speed
//! test), int8, vector-wise, fp32 working format. Each timed call is the whole
//! method from the f64 inputs: quantization (of the residuals too), the integer
//! products, dequantization and additions. The threshold for a target density
//! is the quantile of `|x| / (2 mean_nnz|X|)` over both matrices (the default
//! reduction rule), so that both reduced matrices have about that density; the
//! sparse path is forced (`eta = 1`).
//!
//! Group `nonzero_mean` (2^24 values): the limit of the default rule, exactly
//! rounded (`exact_mean.rs`, what the CPU model and the device compute since
//! 2026-11-24) against the sequential binary64 sum it replaced, so that the
//! price of exactness on the host is a ratio in one run.

use boundgate::kernels::residual::dist::PaperDistribution;
use boundgate::kernels::residual::intgemm::int_gemm;
use boundgate::kernels::residual::method::{Path, Prepared, Reduction};
use boundgate::kernels::residual::quant::{
    Bits, Granularity, Quantizer, Rounding, ScaleRule, Working,
};
use boundgate::kernels::residual::reduce::{ReduceRule, nonzero_mean};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const Q8: Quantizer = Quantizer {
    bits: Bits::Int8,
    scale: ScaleRule::Absmax,
    rounding: Rounding::Nearest,
    working: Working::Fp32,
};

/// The threshold at which about `density` of the entries of A and B are kept
/// by the default rule (`|x| >= 2 M mean_nnz|X|`): the quantile of
/// `|x| / (2 mean_nnz|X|)` over both matrices.
fn threshold_for(p: &Prepared, density: f64) -> f64 {
    let (ma, mb) = (nonzero_mean(&p.a_stored), nonzero_mean(&p.b_stored));
    let mut ratios: Vec<f64> = p.a_stored.iter().map(|x| x.abs() / (2.0 * ma)).collect();
    ratios.extend(p.b_stored.iter().map(|x| x.abs() / (2.0 * mb)));
    ratios.sort_by(f64::total_cmp);
    let at = ((1.0 - density) * ratios.len() as f64) as usize;
    ratios[at.min(ratios.len() - 1)]
}

fn residual_gemm(c: &mut Criterion) {
    let sizes: Vec<usize> = match std::env::var("BOUNDGATE_BENCH_SIZES") {
        Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) => vec![256, 512],
    };
    for n in sizes {
        let a = PaperDistribution::Uniform.sample(1, 0, n * n);
        let b = PaperDistribution::Uniform.sample(1, 1, n * n);
        let mut group = c.benchmark_group(format!("residual_gemm_{n}"));
        group.sample_size(10);
        // Operations of one dense n^3 product (multiply and add).
        group.throughput(Throughput::Elements(2 * (n * n * n) as u64));
        let prepared = Prepared::new(&a, &b, n, n, n, Q8, Granularity::Vector).unwrap();
        group.bench_function("int8_gemm_only", |bench| {
            bench.iter(|| {
                int_gemm(
                    black_box(&prepared.aq.ints),
                    black_box(&prepared.bq.ints),
                    n,
                    n,
                    n,
                )
            })
        });
        group.bench_function("direct", |bench| {
            bench.iter(|| {
                Prepared::new(
                    black_box(&a),
                    black_box(&b),
                    n,
                    n,
                    n,
                    Q8,
                    Granularity::Vector,
                )
                .unwrap()
                .direct()
            })
        });
        group.bench_function("full_residual", |bench| {
            bench.iter(|| {
                Prepared::new(
                    black_box(&a),
                    black_box(&b),
                    n,
                    n,
                    n,
                    Q8,
                    Granularity::Vector,
                )
                .unwrap()
                .full()
                .unwrap()
            })
        });
        for density in [0.3, 0.1, 0.01, 0.001] {
            let reduction = Reduction {
                threshold: threshold_for(&prepared, density),
                rule: ReduceRule::Mean,
                eta: 1.0,
            };
            let probe = prepared.sparse(reduction).unwrap();
            assert_eq!(probe.path, Path::Sparse);
            println!(
                "n = {n}, target density {density}: M = {:.4}, densities A^r {:.4}, B^r {:.4}",
                reduction.threshold,
                probe.density_a.unwrap(),
                probe.density_b.unwrap()
            );
            group.bench_with_input(
                BenchmarkId::new("sparse", density),
                &reduction,
                |bench, r| {
                    bench.iter(|| {
                        Prepared::new(
                            black_box(&a),
                            black_box(&b),
                            n,
                            n,
                            n,
                            Q8,
                            Granularity::Vector,
                        )
                        .unwrap()
                        .sparse(*r)
                        .unwrap()
                    })
                },
            );
        }
        group.finish();
    }
}

fn nonzero_means(c: &mut Criterion) {
    let n = 1usize << 24;
    let x = PaperDistribution::Uniform.sample(3, 0, n);
    let mut group = c.benchmark_group("nonzero_mean");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("exactly_rounded", |b| {
        b.iter(|| nonzero_mean(black_box(&x)))
    });
    group.bench_function("sequential_f64_sum", |b| {
        b.iter(|| {
            let (mut sum, mut count) = (0.0f64, 0usize);
            for &v in black_box(&x) {
                if v != 0.0 {
                    sum += v.abs();
                    count += 1;
                }
            }
            if count == 0 { 0.0 } else { sum / count as f64 }
        })
    });
    group.finish();
}

criterion_group!(benches, residual_gemm, nonzero_means);
criterion_main!(benches);
