//! Throughput of the mpfma family's CPU models, as ratios in one run.
//!
//! `cargo bench --bench mpfma_model` (release, one thread). Every benchmark
//! computes the same `D = A B` (A 64 x 4096, B 4096 x 8: 2^21 multiply-adds,
//! Fig. 6's shape at 1/128 of its size), so criterion's element throughput is
//! multiply-adds per second per core:
//! - `blockfma_*`: the bit-exact tensor-core model of a record (target >= 1e8/s);
//! - `alg1_fp32`: Algorithm 1 emulated with correctly rounded fp32 steps;
//! - `native_f32_fma`: the same chain in native f32 FMAs (what a CPU does);
//! - `exact_oracle`: the exact result (the verifier's superaccumulator).

use boundgate::kernels::mpfma::alg1::Alg1;
use boundgate::kernels::mpfma::blockfma::BlockFma;
use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
use boundgate_verify::format::RoundingMode;
use boundgate_verify::oracle::{Matrix, gemm};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

const M: usize = 64;
const K: usize = 4096;
const T: usize = 8;

fn operands(record: &TcRecord) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let fmt = record.input.operand();
    let mut draw = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| fmt.round(rng.random_range(-1.0..1.0), RoundingMode::NearestEven))
            .collect()
    };
    (draw(M * K), draw(K * T))
}

fn models(c: &mut Criterion) {
    let mut group = c.benchmark_group("mpfma_gemm_64x4096x8");
    group.throughput(Throughput::Elements((M * K * T) as u64));
    group.sample_size(20);
    for (name, arch, input, output) in [
        (
            "blockfma_sm90_fp16",
            Arch::Sm90,
            TcInput::Fp16,
            TcOutput::Fp32,
        ),
        (
            "blockfma_sm80_fp16",
            Arch::Sm80,
            TcInput::Fp16,
            TcOutput::Fp32,
        ),
        (
            "blockfma_sm90_e4m3",
            Arch::Sm90,
            TcInput::E4m3,
            TcOutput::Fp32,
        ),
        (
            "blockfma_sm90_fp16_to_fp16",
            Arch::Sm90,
            TcInput::Fp16,
            TcOutput::Fp16,
        ),
    ] {
        let record = TcRecord::lookup(arch, input, output).unwrap();
        let unit = BlockFma::new(&record);
        let (a, b) = operands(&record);
        group.bench_function(name, |bench| {
            bench.iter(|| unit.gemm(black_box(&a), black_box(&b), M, K, T).unwrap())
        });
    }
    let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let (a, b) = operands(&record);
    let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp32, 16);
    group.bench_function("alg1_fp32", |bench| {
        bench.iter(|| alg.gemm(black_box(&a), black_box(&b), M, K, T).unwrap())
    });
    let (af, bf): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&v| v as f32).collect(),
        b.iter().map(|&v| v as f32).collect(),
    );
    group.bench_function("native_f32_fma", |bench| {
        bench.iter(|| {
            let (a, b) = (black_box(&af), black_box(&bf));
            let mut d = vec![0f32; M * T];
            for i in 0..M {
                for j in 0..T {
                    let mut s = 0f32;
                    for k in 0..K {
                        s = a[i * K + k].mul_add(b[k * T + j], s);
                    }
                    d[i * T + j] = s;
                }
            }
            d
        })
    });
    let (am, bm) = (
        Matrix::new(M, K, &a).unwrap(),
        Matrix::new(K, T, &b).unwrap(),
    );
    group.bench_function("exact_oracle", |bench| {
        bench.iter(|| gemm(black_box(&am), black_box(&bm)).unwrap().len())
    });
    group.finish();
}

criterion_group!(benches, models);
criterion_main!(benches);
