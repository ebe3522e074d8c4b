//! `kernels/qdot.cu` against its CPU model (feature `cuda`, ignored without a
//! GPU): the exponents, the selection made from the device histogram and the
//! result must agree bit for bit with `select` + `compute`, and the GPU result
//! must satisfy the rigorous bound (exact oracle).
//!
//! On a device: build with `cargo test --release --features cuda --test qdot_gpu --no-run`,
//! carry the binary, run it with `--ignored` (docs/gpu/README.md). Not run in
//! the development session of this family (no GPU was lent to it).

#![cfg(feature = "cuda")]

use boundgate::kernels::qdot::bounds::evaluate;
use boundgate::kernels::qdot::compute::compute;
use boundgate::kernels::qdot::config::{HalfMode, Ladder, QdotConfig, Score, Tolerance};
use boundgate::kernels::qdot::distributions::PaperDistribution;
use boundgate::kernels::qdot::gpu::qdot_gpu;
use boundgate::kernels::qdot::select::select;
use boundgate_verify::bounds::qdot::Fexp;
use boundgate_verify::format::Format;
use boundgate_verify::oracle;

fn configs() -> Vec<QdotConfig> {
    let mut out = Vec::new();
    for fexp in Fexp::ALL {
        for half in [HalfMode::Fp16Fp32, HalfMode::Fp16] {
            for ladder in [Ladder::Paper, Ladder::Bf16] {
                for (tile, early_exit) in [(64, true), (1, false), (0, false), (1000, true)] {
                    let mut c = QdotConfig::new(Format::FP64).expect("fp64");
                    (c.fexp, c.half, c.ladder, c.tile, c.early_exit) =
                        (fexp, half, ladder, tile, early_exit);
                    c.score = if tile == 1 {
                        Score::Eps
                    } else {
                        Score::EpsOverNbins
                    };
                    out.push(c);
                }
            }
        }
    }
    out
}

fn inputs() -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let mut out = Vec::new();
    for (i, d) in [
        PaperDistribution::A {
            t: 40,
            signed: true,
        },
        PaperDistribution::B {
            t: 9,
            signed: false,
        },
        PaperDistribution::B {
            t: 30,
            signed: true,
        },
    ]
    .into_iter()
    .enumerate()
    {
        for n in [1usize, 17, 1000, 100_003] {
            let seed = 100 + i as u64;
            out.push((
                format!("{d:?} n={n}"),
                d.sample(seed, 0, n),
                d.sample(seed, 1, n),
            ));
        }
    }
    // Zeros, subnormals and the ends of the exponent range.
    let mut x = vec![
        0.0,
        f64::from_bits(1),
        1e-310,
        f64::MAX / 4.0,
        -0.75,
        3.0,
        2f64.powi(-1000),
    ];
    let mut y = vec![5.0, 2f64.powi(1000), 3.0, 0.5, 0.3, 0.0, 2f64.powi(-60)];
    x.extend((0..500).map(|i| (i as f64 - 250.0) / 7.0));
    y.extend((0..500).map(|i| 1.0 / (1.0 + i as f64)));
    out.push(("edges".into(), x, y));
    out
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn gpu_matches_the_cpu_model_bit_for_bit_and_the_bound() {
    let mut checked = 0;
    for c in configs() {
        for eps in [1e-15, 1e-8, 1e-3, 0.25] {
            let eps = Tolerance::new(eps).expect("in (0, 1)");
            for (name, x, y) in inputs() {
                let what = format!("{name}, eps {:e}, {c}", eps.value());
                let cpu_sel = select(&x, &y, eps, &c).expect("finite");
                let cpu = compute(&x, &y, &cpu_sel, &c).value;
                let gpu = qdot_gpu(&x, &y, eps, &c).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(gpu.exponents, cpu_sel.exponents, "{what}: exponents");
                assert_eq!(gpu.selection.bins, cpu_sel.bins, "{what}: bins");
                assert_eq!(
                    gpu.selection.early_exit, cpu_sel.early_exit,
                    "{what}: early exit"
                );
                assert_eq!(
                    gpu.value.to_bits(),
                    cpu.to_bits(),
                    "{what}: gpu {:e} cpu {cpu:e}",
                    gpu.value
                );
                let exact = oracle::dot(&x, &y).expect("same lengths");
                let bounds = evaluate(&x, &y, &cpu_sel, &c, eps, &exact).expect("checker");
                if let (Ok(b), Some(err)) =
                    (&bounds.rigorous, exact.error_of(gpu.value).absolute_up())
                {
                    assert!(
                        err <= b.value,
                        "{what}: rigorous bound {:e} < error {err:e}",
                        b.value
                    );
                }
                checked += 1;
            }
        }
    }
    println!("{checked} runs bit-identical to the CPU model and within the rigorous bound");
}

#[test]
fn bad_input_is_refused_before_any_device_is_touched() {
    let c = QdotConfig::new(Format::FP64).expect("fp64");
    let eps = Tolerance::new(1e-8).expect("in (0, 1)");
    for (x, y) in [
        (vec![1.0, f64::NAN], vec![1.0, 1.0]),
        (vec![1.0], vec![1.0, 2.0]),
    ] {
        assert!(matches!(
            qdot_gpu(&x, &y, eps, &c),
            Err(boundgate::gpu::GpuError::Input(_))
        ));
    }
    let fp32 = QdotConfig::new(Format::FP32).expect("fp32");
    assert!(matches!(
        qdot_gpu(&[1.0], &[1.0], eps, &fp32),
        Err(boundgate::gpu::GpuError::Input(_))
    ));
}
