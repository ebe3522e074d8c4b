//! CPU cost of qdot (Diffenderfer et al. 2021) against the baseline the issue
//! names, the plain fp64 dot product (the role of `cublasDdot`), in one run so
//! that the ratios are comparable: the paper's efficiency (2.5),
//! `T(k) / (T(Theta) + T(k))`, and speedup (2.6), `T(k) / T(k~)`.
//!
//! `cargo bench --bench qdot` (release). Per `n`: `k` = the original fp64
//! kernel in the fixed tiled order (`compute::original_dot`, tile 64), `dot` =
//! a sequential fp64 FMA loop (the fastest plain CPU dot here), `Theta` =
//! selection (Algorithm 3.2: exponent pass, counting pass, scores, (3.9)),
//! `k~` = computation (Algorithm 3.1 on the CPU model: fp16 casts emulated in
//! software, fp32/fp64 native) at three tolerances. Inputs: distribution B
//! of the paper (t = 9, unsigned), fixed seeds. The early exit is off so that
//! every tolerance times the binned path.

use boundgate::kernels::qdot::compute::{compute, original_dot};
use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
use boundgate::kernels::qdot::distributions::PaperDistribution;
use boundgate::kernels::qdot::select::select;
use boundgate_verify::bounds::qdot::TileOrder;
use boundgate_verify::format::Format;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
const TOLERANCES: [f64; 3] = [1e-15, 1e-8, 1e-3];

fn inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let d = PaperDistribution::B {
        t: 9,
        signed: false,
    };
    (d.sample(7, 0, n), d.sample(7, 1, n))
}

fn config() -> QdotConfig {
    let mut c = QdotConfig::new(Format::FP64).expect("fp64 is a qdot input");
    c.early_exit = false;
    c
}

fn bench_qdot(c: &mut Criterion) {
    let qdot = config();
    let mut group = c.benchmark_group("qdot");
    group.sample_size(20);
    for n in SIZES {
        let (x, y) = inputs(n);
        group.throughput(Throughput::Elements(n as u64));
        let order = TileOrder { n, tile: qdot.tile };
        group.bench_with_input(BenchmarkId::new("k (fp64, tiled)", n), &n, |b, _| {
            b.iter(|| {
                original_dot(
                    black_box(&x),
                    black_box(&y),
                    qdot.input_level(),
                    qdot.input,
                    order,
                )
            })
        });
        group.bench_with_input(BenchmarkId::new("dot (fp64, sequential)", n), &n, |b, _| {
            b.iter(|| {
                black_box(&x)
                    .iter()
                    .zip(black_box(&y))
                    .fold(0.0f64, |s, (&a, &b)| a.mul_add(b, s))
            })
        });
        for e in TOLERANCES {
            let eps = Tolerance::new(e).expect("in (0, 1)");
            let selection = select(&x, &y, eps, &qdot).expect("finite inputs");
            group.bench_with_input(
                BenchmarkId::new(format!("Theta (select, eps {e:e})"), n),
                &n,
                |b, _| {
                    b.iter(|| select(black_box(&x), black_box(&y), eps, &qdot).map(|s| s.n_bins()))
                },
            );
            group.bench_with_input(
                BenchmarkId::new(format!("k~ (compute, eps {e:e})"), n),
                &n,
                |b, _| {
                    b.iter(|| {
                        compute(black_box(&x), black_box(&y), &selection, &qdot)
                            .unwrap()
                            .value
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench_qdot);
criterion_main!(benches);
