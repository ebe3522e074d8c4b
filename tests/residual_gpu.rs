//! `kernels/residual.cu` against its CPU model (feature `cuda`, ignored without
//! a GPU): integers, `P0`, `D_F`, the path, the densities and the output must
//! agree bit for bit, and the GPU output must satisfy the rigorous bound, with
//! either int8 GEMM (`dp4a` or the tensor cores' `mma.sync`) for the dense
//! products.
//!
//! On a device: build with `cargo test --release --features cuda --test residual_gpu --no-run`,
//! carry the binary, run it with `--ignored` (docs/gpu/README.md).

#![cfg(feature = "cuda")]

use boundgate::kernels::residual::dist::PaperDistribution;
use boundgate::kernels::residual::gpu::{Int8Gemm, run_gpu_with};
use boundgate::kernels::residual::kernel::{RunConfig, assemble};
use boundgate::kernels::residual::method::{Method, Output, Path, Prepared, Reduction};
use boundgate::kernels::residual::quant::{
    Bits, Granularity, Quantizer, Rounding, ScaleRule, Working,
};
use boundgate::kernels::residual::reduce::ReduceRule;

fn configs() -> Vec<RunConfig> {
    let mut out = Vec::new();
    for method in [Method::Direct, Method::Full, Method::Sparse] {
        for bits in [Bits::Int8, Bits::Int4] {
            for granularity in [Granularity::Vector, Granularity::Tensor] {
                for rounding in [Rounding::Nearest, Rounding::Floor, Rounding::TowardZero] {
                    // The rule matters only to the sparse method; eq. (14)'s
                    // readings run the means kernels, the code's rule skips them.
                    let rules: &[ReduceRule] = if method == Method::Sparse {
                        &[ReduceRule::Mean, ReduceRule::Rows, ReduceRule::Signed]
                    } else {
                        &[ReduceRule::Mean]
                    };
                    for &rule in rules {
                        out.push(RunConfig {
                            method,
                            quantizer: Quantizer {
                                bits,
                                scale: ScaleRule::Absmax,
                                rounding,
                                working: Working::Fp32,
                            },
                            granularity,
                            reduction: Reduction {
                                threshold: 0.5,
                                rule,
                                eta: 1.0,
                            },
                        });
                    }
                }
            }
        }
    }
    out
}

/// The dense products by `dp4a` (run on the H100, 2026-11-24).
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn dp4a_gemm_path_matches_the_cpu_model_bit_for_bit() {
    matches_the_cpu_model(Int8Gemm::Dp4a);
}

/// The dense products on the int8 tensor cores (`residual_gemm_imma`). A
/// test of its own so that compute-sanitizer can take each GEMM separately.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn imma_gemm_path_matches_the_cpu_model_bit_for_bit() {
    matches_the_cpu_model(Int8Gemm::Imma);
}

fn matches_the_cpu_model(kind: Int8Gemm) {
    let mut checked = 0;
    for (m, k, n) in [(1, 1, 1), (5, 7, 3), (64, 130, 33), (256, 256, 256)] {
        for dist in [
            PaperDistribution::Uniform,
            PaperDistribution::ZeroMeanNormal,
        ] {
            let a = dist.sample(1, 0, m * k);
            let b = dist.sample(1, 1, k * n);
            for cfg in configs() {
                let cpu = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
                let what = format!("{m}x{k}x{n} {dist:?} {} {cfg:?}", kind.name());
                assert_gpu_matches(kind, &cpu, (&a, &b), (m, k, n), &cfg, &what);
                checked += 1;
            }
        }
    }
    println!(
        "{checked} GPU runs ({}) identical to the CPU model",
        kind.name()
    );
}

/// One GPU run of `cfg` against the CPU model `cpu` of the same operands:
/// integers, `P0`, `D_F`, path, densities and `D` bit for bit, and the GPU
/// output within the rigorous bound. Returns the path taken.
fn assert_gpu_matches(
    kind: Int8Gemm,
    cpu: &Prepared,
    (a, b): (&[f64], &[f64]),
    (m, k, n): (usize, usize, usize),
    cfg: &RunConfig,
    what: &str,
) -> Path {
    let want = cpu.run(cfg.method, cfg.reduction).unwrap();
    let got = run_gpu_with(kind, a, b, (m, k, n), cfg).unwrap();
    assert_eq!(got.aq, cpu.aq.ints, "A_int {what}");
    assert_eq!(got.bq, cpu.bq.ints, "B_int {what}");
    assert_eq!(got.raq, cpu.raq.ints, "RA_int {what}");
    assert_eq!(got.rbq, cpu.rbq.ints, "RB_int {what}");
    assert_eq!(got.p0, cpu.p0, "P0 {what}");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got.d_f), bits(&cpu.d_f), "D_F {what}");
    assert_eq!(got.path, want.path, "path {what}");
    assert_eq!(bits(&got.d), bits(&want.d), "D {what}");
    if cfg.method == Method::Sparse {
        assert_eq!(
            got.densities,
            want.density_a.zip(want.density_b),
            "densities {what}"
        );
    }
    let path = want.path;
    // The GPU output against the rigorous bound.
    let out = Output {
        d: got.d.clone(),
        ..want
    };
    let run = assemble(cpu, &out, cfg).unwrap();
    assert!(run.verdicts().unwrap()[0].verdict.is_pass(), "{what}");
    path
}

/// Operands and configurations where the density switch sends one product
/// to the GEMM and the other to the reduced matrix's CSR (`Path::Mixed`),
/// both ways round: `eta` halfway between the two reduced matrices'
/// densities, which the CPU model gives first (int8, vector-wise, nearest,
/// the code's reduction rule at threshold 0.5). The other tests run with
/// `eta = 1`, where every run takes the sparse path.
/// Each case: shape, A, B, the configuration, a label, and whether A's
/// product is the sparse one.
#[allow(clippy::type_complexity)]
fn mixed_cases() -> Vec<(
    (usize, usize, usize),
    Vec<f64>,
    Vec<f64>,
    RunConfig,
    String,
    bool,
)> {
    use PaperDistribution::{Uniform, ZeroMeanNormal};
    let mut cases = Vec::new();
    for (m, k, n) in [(64, 130, 33), (256, 256, 256)] {
        for (dist_a, dist_b) in [(Uniform, ZeroMeanNormal), (ZeroMeanNormal, Uniform)] {
            let a = dist_a.sample(2, 0, m * k);
            let b = dist_b.sample(2, 1, k * n);
            let mut cfg = configs()
                .into_iter()
                .find(|c| {
                    c.method == Method::Sparse
                        && c.quantizer.bits == Bits::Int8
                        && c.granularity == Granularity::Vector
                        && c.quantizer.rounding == Rounding::Nearest
                        && c.reduction.rule == ReduceRule::Mean
                })
                .unwrap();
            let cpu = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
            let probe = cpu.run(Method::Sparse, cfg.reduction).unwrap();
            let (da, db) = (probe.density_a.unwrap(), probe.density_b.unwrap());
            assert_ne!(
                da, db,
                "{m}x{k}x{n}: equal densities leave no eta between them"
            );
            cfg.reduction.eta = (da + db) / 2.0;
            let want = cpu.run(cfg.method, cfg.reduction).unwrap();
            let what = format!(
                "{m}x{k}x{n} A {dist_a:?} B {dist_b:?} eta {} (densities {da}, {db})",
                cfg.reduction.eta
            );
            assert_eq!(want.path, Path::Mixed, "{what}");
            cases.push(((m, k, n), a, b, cfg, what, da < db));
        }
    }
    cases
}

/// The construction of the mixed-path device test, on the CPU model alone:
/// every case takes `Path::Mixed`, A sparse in one order and B in the other.
#[test]
fn the_mixed_cases_take_the_mixed_path_on_the_cpu_model() {
    let sides: Vec<bool> = mixed_cases().into_iter().map(|case| case.5).collect();
    assert_eq!(sides.len(), 4);
    assert!(sides.contains(&true) && sides.contains(&false), "{sides:?}");
}

/// The mixed path on the device, with each GEMM for the dense product
/// ([`mixed_cases`]). Added 2026-11-27, after `residual_combine` began to
/// take each product dense or as a CSR; not yet run on a device.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn the_mixed_path_matches_the_cpu_model_bit_for_bit() {
    let mut checked = 0;
    for kind in Int8Gemm::ALL {
        for (shape, a, b, cfg, what, _) in mixed_cases() {
            let (m, k, n) = shape;
            let cpu = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
            let what = format!("{what} {}", kind.name());
            let path = assert_gpu_matches(kind, &cpu, (&a, &b), shape, &cfg, &what);
            assert_eq!(path, Path::Mixed, "{what}");
            checked += 1;
        }
    }
    println!("{checked} mixed-path GPU runs identical to the CPU model");
}

#[test]
fn timing_refuses_bad_input_before_any_device_is_touched() {
    use boundgate::gpu::GpuError;
    use boundgate::kernels::residual::gpu::time_gpu;
    let mut cfg = configs()[0];
    let ones = vec![1.0; 4];
    // No repetitions; an A that does not hold m x k values; NaN; a value that
    // overflows binary32; the binary64 working format (the kernels compute in fp32).
    let nan = vec![1.0, f64::NAN, 1.0, 1.0];
    let huge = vec![1.0, 1e300, 1.0, 1.0];
    for (a, shape, reps) in [
        (&ones, (2, 2, 2), 0),
        (&ones, (3, 2, 2), 3),
        // m * k overflows usize (a panic in debug builds before)
        (&ones, (usize::MAX, 2, 2), 3),
        (&nan, (2, 2, 2), 3),
        (&huge, (2, 2, 2), 3),
    ] {
        let got = time_gpu(a, &ones, shape, &cfg, reps);
        assert!(matches!(got, Err(GpuError::Input(_))), "{shape:?} {got:?}");
    }
    cfg.quantizer.working = Working::Fp64;
    let got = time_gpu(&ones, &ones, (2, 2, 2), &cfg, 3);
    assert!(matches!(got, Err(GpuError::Input(_))), "{got:?}");
}
