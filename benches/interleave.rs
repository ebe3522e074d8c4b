//! One HotSpot3D iteration of each CPU model (float, half emulated bit for
//! bit, looperf) and one lockstep iteration with the binary64 ground truth,
//! on 128x128x8, in one run: ratios to `float` are the price of emulation
//! and of the exact loss. GPU runtimes cannot be measured here (no GPU).
//!
//! `cargo bench --bench interleave` (release).

use boundgate::kernels::interleave::clock::Clock;
use boundgate::kernels::interleave::grid::Grid3;
use boundgate::kernels::interleave::hotspot::HotSpot3D;
use boundgate::kernels::interleave::runner::{BranchSpec, RunOptions, run_lockstep};
use boundgate::kernels::interleave::stencil::advance;
use boundgate::kernels::interleave::version::Version;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn models(c: &mut Criterion) {
    let grid = Grid3::new(128, 128, 8).unwrap();
    let app = HotSpot3D::synthetic(grid, 1).unwrap();
    let mut group = c.benchmark_group("hotspot3d_iteration");
    group.throughput(Throughput::Elements(grid.cells() as u64));
    for version in [Version::Float, Version::Half, Version::Looperf] {
        let mut state = app.initial_state(version).unwrap();
        let mut scratch = Vec::new();
        group.bench_function(BenchmarkId::new("model", version.name()), |b| {
            b.iter(|| black_box(advance(&app, version, &mut state, &mut scratch)))
        });
    }
    for ground_truth in [false, true] {
        let options = RunOptions {
            iterations: 1,
            clock: Clock::DEFAULT,
            ground_truth,
            limits: vec![],
        };
        let name = if ground_truth {
            "half+float+fp64"
        } else {
            "half+float"
        };
        group.bench_function(BenchmarkId::new("lockstep", name), |b| {
            b.iter(|| {
                black_box(
                    run_lockstep(&app, &[BranchSpec::single(Version::Half)], &options).unwrap(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, models);
criterion_main!(benches);
