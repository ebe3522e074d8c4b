//! `kernels/qdot.cu` against its CPU model (feature `cuda`, ignored without a
//! GPU): the exponents, the selection made from the device histogram and the
//! result must agree bit for bit with `select` + `compute`, and the GPU result
//! must satisfy the rigorous bound (exact oracle).
//!
//! Pure-fp16 half bins (`half=fp16`) run on fp16x2 (`qdot_tiles_half2_f64`,
//! lanes = pairs of tiles): the device tests check that this kernel ran and
//! matched the model; `fp16x2_ptx_...` (NVRTC only, no device) checks that its
//! PTX holds the round-to-nearest fp16x2 instructions and no fused form.
//!
//! On a device: build with `cargo test --release --features cuda --test qdot_gpu --no-run`,
//! carry the binary, run it with `--ignored` (docs/gpu/README.md;
//! `scripts/gpu-stage.sh` and `scripts/gpu-device.sh` do both). Passed on a
//! lent H100 on 2026-11-24 (docs/gpu/2026-11-24-h100.md).

#![cfg(feature = "cuda")]

mod common;
use common::qdot::{fp64_config, one_binade};

use boundgate::kernels::qdot::bounds::evaluate;
use boundgate::kernels::qdot::compute::compute;
use boundgate::kernels::qdot::config::{HalfMode, Ladder, QdotConfig, TileLayout, Tolerance};
use boundgate::kernels::qdot::distributions::PaperDistribution;
use boundgate::kernels::qdot::gpu::{SOURCE, qdot_gpu, qdot_gpu_f32};
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
                    for layout in [TileLayout::Contiguous, TileLayout::Interleaved] {
                        out.push(fp64_config(fexp, half, ladder, (tile, early_exit), layout));
                    }
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
                let cpu = compute(&x, &y, &cpu_sel, &c).unwrap().value;
                let gpu = qdot_gpu(&x, &y, eps, &c).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(gpu.exponents, cpu_sel.exponents, "{what}: exponents");
                assert_eq!(gpu.selection.bins, cpu_sel.bins, "{what}: bins");
                assert_eq!(
                    gpu.selection.early_exit, cpu_sel.early_exit,
                    "{what}: early exit"
                );
                let levels = c.levels();
                let half_computed = cpu_sel
                    .bins
                    .iter()
                    .any(|b| b.level.is_some_and(|l| levels[l].name == "half"));
                if !cpu_sel.early_exit && half_computed {
                    let want = match c.half {
                        HalfMode::Fp16 => "qdot_tiles_half2_f64",
                        HalfMode::Fp16Fp32 => "qdot_tiles_f64",
                    };
                    assert_eq!(gpu.tile_kernel, Some(want), "{what}: tile kernel");
                }
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

/// Binary32 inputs: the same bins and tiles, the early exit's original kernel
/// in binary32 and the finish in binary32 (`qdot_original_tiles_f32in`,
/// `qdot_finish_f32in`), bit for bit against the CPU model with input fp32,
/// and within the rigorous bound.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn gpu_fp32_inputs_match_the_cpu_model_bit_for_bit_and_the_bound() {
    let mut checked = 0;
    for fexp in Fexp::ALL {
        for half in [HalfMode::Fp16Fp32, HalfMode::Fp16] {
            for (tile, early_exit, layout) in [
                (64, true, TileLayout::Contiguous),
                (64, true, TileLayout::Interleaved),
                (1, false, TileLayout::Contiguous),
                (0, false, TileLayout::Contiguous),
                (1000, true, TileLayout::Interleaved),
            ] {
                let mut c = QdotConfig::new(Format::FP32).expect("fp32");
                (c.fexp, c.half, c.tile, c.early_exit) = (fexp, half, tile, early_exit);
                c.layout = layout;
                for eps in [1e-6, 1e-3, 0.25] {
                    let eps = Tolerance::new(eps).expect("in (0, 1)");
                    for (i, d) in [
                        PaperDistribution::A {
                            t: 20,
                            signed: true,
                        },
                        PaperDistribution::B {
                            t: 9,
                            signed: false,
                        },
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        for n in [1usize, 17, 1000, 100_003] {
                            let what = format!("{d:?} n={n}, eps {:e}, {c}", eps.value());
                            let x32: Vec<f32> = d
                                .sample(500 + i as u64, 0, n)
                                .iter()
                                .map(|&v| v as f32)
                                .collect();
                            let y32: Vec<f32> = d
                                .sample(500 + i as u64, 1, n)
                                .iter()
                                .map(|&v| v as f32)
                                .collect();
                            let x: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
                            let y: Vec<f64> = y32.iter().map(|&v| f64::from(v)).collect();
                            let s = select(&x, &y, eps, &c).expect("finite");
                            let cpu = compute(&x, &y, &s, &c).unwrap().value;
                            let gpu = qdot_gpu_f32(&x32, &y32, eps, &c)
                                .unwrap_or_else(|e| panic!("{what}: {e}"));
                            assert_eq!(gpu.selection.bins, s.bins, "{what}: bins");
                            assert_eq!(
                                gpu.value.to_bits(),
                                cpu.to_bits(),
                                "{what}: gpu {:e} cpu {cpu:e}",
                                gpu.value
                            );
                            let exact = oracle::dot(&x, &y).expect("same lengths");
                            let bounds = evaluate(&x, &y, &s, &c, eps, &exact).expect("checker");
                            if let (Ok(b), Some(err)) =
                                (&bounds.rigorous, exact.error_of(gpu.value).absolute_up())
                            {
                                assert!(err <= b.value, "{what}: bound {:e} < {err:e}", b.value);
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    println!(
        "{checked} fp32-input runs bit-identical to the CPU model and within the rigorous bound"
    );
}

/// No device: `qdot_finish_f32in`'s formula, `fl32(fl32(S) 2^u)` with the
/// product exact in binary64, is the CPU model's step 5 for fp32 inputs
/// (`scale_round(fl32(S), u, fp32)`) over the whole exponent range of fp32
/// bins, `u` in [-298, 256], subnormal and infinite results included.
#[test]
fn the_fp32_finish_formula_is_the_models_rescale() {
    use boundgate::kernels::qdot::compute::scale_round;
    use boundgate_verify::format::RoundingMode;
    let mut k = 7u64;
    for u in -298..=256 {
        for j in 0..200u64 {
            k = k
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let scale = if j % 2 == 0 { 4.0 } else { 1.2e-2 };
            let s = (f64::from_bits((k >> 12) | 0x3ff0000000000000) - 1.5) * scale;
            let device = (f64::from(s as f32) * 2f64.powi(u)) as f32;
            let model = scale_round(
                Format::FP32.round(s, RoundingMode::NearestEven),
                u,
                Format::FP32,
            );
            assert_eq!(f64::from(device).to_bits(), model.to_bits(), "{s:e} 2^{u}");
        }
    }
}

/// The fp16x2 kernel where both lanes share one half bin nearly always:
/// products in one binade (one bin, computed in half beside one large
/// product), odd and even tile counts, zeros between.
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn fp16x2_half_bins_match_the_cpu_model_bit_for_bit() {
    let mut checked = 0;
    for n in [1usize, 2, 3, 255, 256, 257, 10_001, 1_000_003] {
        let (x, y) = one_binade(n);
        for (tile, layout) in [0usize, 1, 2, 3, 64, 1000]
            .into_iter()
            .flat_map(|t| [(t, TileLayout::Contiguous), (t, TileLayout::Interleaved)])
        {
            let mut c = QdotConfig::new(Format::FP64).expect("fp64");
            (c.half, c.tile, c.early_exit) = (HalfMode::Fp16, tile, false);
            c.layout = layout;
            let eps = Tolerance::new(0.01).expect("in (0, 1)");
            let what = format!("n {n}, tile {tile}, {}", layout.name());
            let s = select(&x, &y, eps, &c).expect("finite");
            let cpu = compute(&x, &y, &s, &c).unwrap().value;
            let gpu = qdot_gpu(&x, &y, eps, &c).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(gpu.selection.bins, s.bins, "{what}: bins");
            let levels = c.levels();
            // tests/qdot_half2.rs checks that this input has half bins.
            assert!(
                s.bins
                    .iter()
                    .any(|b| b.level.is_some_and(|l| levels[l].name == "half")),
                "{what}"
            );
            assert_eq!(gpu.tile_kernel, Some("qdot_tiles_half2_f64"), "{what}");
            assert_eq!(
                gpu.value.to_bits(),
                cpu.to_bits(),
                "{what}: gpu {:e} cpu {cpu:e}",
                gpu.value
            );
            checked += 1;
        }
    }
    println!("{checked} fp16x2 runs bit-identical to the CPU model");
}

/// No device needed, NVRTC only: the kernel file compiles without any
/// include folder (the fp16x2 path is inline PTX, no cuda_fp16.h), and its
/// PTX has the fp16x2 multiply and add with explicit round-to-nearest (which
/// ptxas may not fuse) and no fp16 fma or flush-to-zero.
#[test]
fn fp16x2_ptx_has_round_to_nearest_mul_and_add_and_no_fma() {
    use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
    if !common::nvrtc::nvrtc_available() {
        return;
    }
    for target in [Target::Ptx(8, 0), Target::Ptx(9, 0), Target::Cubin(9, 0)] {
        let mut options = BuildOptions::new(target).strict();
        options.include_dirs.clear();
        let built = nvrtc::compile("kernels/qdot.cu", SOURCE, &options)
            .unwrap_or_else(|e| panic!("{target} without include folders: {e}"));
        if matches!(target, Target::Cubin(..)) {
            continue;
        }
        let ptx = String::from_utf8_lossy(&built.image);
        assert!(ptx.contains(".entry qdot_tiles_half2_f64"), "{target}");
        let ops: Vec<&str> = ptx
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|op| op.contains("f16"))
            .collect();
        for want in [
            "mul.rn.f16x2",
            "add.rn.f16x2",
            "cvt.rn.f16.f64",
            "cvt.f64.f16",
        ] {
            assert!(ops.contains(&want), "{target}: no {want} in {ops:?}");
        }
        for op in &ops {
            assert!(
                !op.starts_with("fma") && !op.contains(".ftz"),
                "{target}: {op}"
            );
            if op.starts_with("mul") || op.starts_with("add") {
                assert!(op.contains(".rn."), "{target}: {op} without .rn");
            }
        }
    }
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
    // fp32 inputs must hold binary32 values; fp16 inputs have no GPU path;
    // qdot_gpu_f32 needs an fp32 configuration.
    let fp32 = QdotConfig::new(Format::FP32).expect("fp32");
    let fp16 = QdotConfig::new(Format::FP16).expect("fp16");
    for (x, config) in [(0.1, &fp32), (1.0, &fp16)] {
        assert!(matches!(
            qdot_gpu(&[x], &[1.0], eps, config),
            Err(boundgate::gpu::GpuError::Input(_))
        ));
    }
    assert!(matches!(
        qdot_gpu_f32(&[1.0], &[1.0], eps, &c),
        Err(boundgate::gpu::GpuError::Input(_))
    ));
}

#[test]
fn timing_refuses_bad_input_before_any_device_is_touched() {
    use boundgate::gpu::GpuError;
    use boundgate::kernels::qdot::gpu::time_qdot;
    let fp64 = QdotConfig::new(Format::FP64).expect("fp64");
    let fp32 = QdotConfig::new(Format::FP32).expect("fp32");
    let eps = Tolerance::new(1e-8).expect("in (0, 1)");
    let ones = [1.0, 1.0];
    // No repetitions; a configuration cublasDdot cannot be compared with
    // (binary32 inputs); mismatched lengths; NaN.
    for (x, y, config, repetitions) in [
        (&ones[..], &ones[..], &fp64, 0),
        (&ones[..], &ones[..], &fp32, 5),
        (&ones[..1], &ones[..], &fp64, 5),
        (&[1.0, f64::NAN][..], &ones[..], &fp64, 5),
    ] {
        let got = time_qdot(x, y, eps, config, repetitions);
        assert!(matches!(got, Err(GpuError::Input(_))), "{got:?}");
    }
}
