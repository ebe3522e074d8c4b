//! The mpfma family on a GPU.
//!
//! Without a device (CI, development machines) only the NVRTC check runs: the
//! PTX of `kernels/mpfma_gemm.cu` has exactly the tensor-core instructions its
//! CPU model assumes, no atomics and no other floating-point arithmetic. The
//! rest needs an NVIDIA GPU (`--ignored` on the device, feature `cuda`):
//! bit-for-bit comparison of the kernel with the block-FMA model of the
//! device's record on random and adversarial inputs, the probes, and cuBLAS
//! `GemmEx` (the paper's Listing 1) against the bounds. Timings are in the
//! bench `mpfma_gpu`, not here. Results go to docs/mpfma.md (section GPU).

#![cfg(feature = "cuda")]

use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
use boundgate::kernels::mpfma::blockfma::BlockFma;
use boundgate::kernels::mpfma::gpu::{
    GEMM_PATH, GEMM_SOURCE, cublas_gemm_ex, device_arch, gemm_on_device, probe_unit,
};
use boundgate::kernels::mpfma::probe::run_probes;
use boundgate::kernels::mpfma::record::{TcInput, TcOutput, TcRecord};
use boundgate::kernels::mpfma::validity::{normal_witness, subnormal_witness};
use boundgate_verify::format::{Format, RoundingMode};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn nvrtc_available() -> bool {
    match nvrtc::version() {
        Ok(_) => true,
        Err(e) if std::env::var("BOUNDGATE_SKIP_NVRTC").is_ok_and(|v| v == "1") => {
            println!("SKIPPED (BOUNDGATE_SKIP_NVRTC=1): {e}");
            false
        }
        Err(e) => panic!(
            "NVRTC is not available: {e}; run scripts/install-cuda-nvrtc.sh or set BOUNDGATE_SKIP_NVRTC=1"
        ),
    }
}

#[test]
fn gemm_ptx_has_only_the_tensor_core_steps_of_the_model() {
    if !nvrtc_available() {
        return;
    }
    for target in [Target::Ptx(8, 0), Target::Ptx(9, 0)] {
        let built = nvrtc::compile(GEMM_PATH, GEMM_SOURCE, &BuildOptions::new(target).strict())
            .expect("compiles");
        let ptx = String::from_utf8_lossy(&built.image);
        for needle in [
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        ] {
            assert!(ptx.contains(needle), "{target}: no {needle}");
        }
        for line in ptx.lines() {
            let Some(op) = line.split_whitespace().next() else {
                continue;
            };
            assert!(
                !op.starts_with("atom") && !op.starts_with("red."),
                "atomic: {line}"
            );
            let float_arith =
                (op.ends_with(".f32") || op.ends_with(".f16") || op.ends_with(".f64"))
                    && ["add", "sub", "mul", "fma", "div"]
                        .iter()
                        .any(|a| op.starts_with(a));
            assert!(!float_arith, "{target}: arithmetic outside the mma: {line}");
        }
    }
}

/// The device's records that `kernels/mpfma_gemm.cu` implements.
fn device_records() -> Vec<TcRecord> {
    let arch = device_arch().expect("a GPU with a record (run with --ignored on the device)");
    TcRecord::all()
        .into_iter()
        .filter(|r| {
            r.arch == arch && matches!(r.input, TcInput::Fp16 | TcInput::Bf16 | TcInput::Tf32)
        })
        .collect()
}

fn random_operands(record: &TcRecord, rng: &mut ChaCha8Rng, len: usize, wide: bool) -> Vec<f64> {
    let fmt = record.input.operand();
    (0..len)
        .map(|_| {
            let v: f64 = if wide {
                let e = rng.random_range(fmt.emin() - fmt.precision() as i32..=4);
                rng.random_range(1.0..2.0) * 2f64.powi(e)
            } else {
                rng.random_range(-1.0..1.0)
            };
            let sign = if rng.random::<bool>() { -1.0 } else { 1.0 };
            fmt.round(sign * v, RoundingMode::NearestEven)
        })
        .collect()
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn gpu_gemm_matches_the_model_bit_for_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for record in device_records() {
        let unit = BlockFma::new(&record);
        let mut total = 0usize;
        for (m, k, t, wide) in [
            (64, 64, 64, false),
            (100, 300, 70, false),
            (64, 256, 64, true),
            (17, 1000, 9, true),
        ] {
            let a = random_operands(&record, &mut rng, m * k, wide);
            let b = random_operands(&record, &mut rng, k * t, wide);
            let model = unit.gemm(&a, &b, m, k, t);
            let gpu = gemm_on_device(&record, &a, &b, None, (m, k, t)).expect("runs");
            let differ: Vec<usize> = (0..m * t)
                .filter(|&e| {
                    model[e].to_bits() != gpu[e].to_bits()
                        && !(model[e].is_nan() && gpu[e].is_nan())
                })
                .collect();
            assert!(
                differ.is_empty(),
                "{} {m}x{k}x{t}: {} of {} elements differ, first at {}: model {} gpu {}",
                record.label(),
                differ.len(),
                m * t,
                differ[0],
                model[differ[0]],
                gpu[differ[0]]
            );
            total += m * t;
        }
        for (x, y) in [normal_witness(&record), subnormal_witness(&record)] {
            let model = unit.chain(&x, &y, 0.0).0;
            let gpu = gemm_on_device(&record, &x, &y, None, (1, x.len(), 1)).expect("runs")[0];
            assert_eq!(model.to_bits(), gpu.to_bits(), "{} witness", record.label());
        }
        println!(
            "{}: {total} random elements and 2 witnesses bit-identical",
            record.label()
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn probes_on_the_device_measure_its_record() {
    for record in device_records() {
        let unit = probe_unit(&record).expect("a probe unit");
        let results = run_probes(unit.as_ref(), &record).expect("probes run");
        for r in &results {
            println!(
                "{} {}: {} (record: {})",
                record.label(),
                r.name,
                r.measured,
                r.expected
            );
        }
        assert!(results.iter().all(|r| r.agrees), "{}", record.label());
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn cublas_listing_1_against_the_model_and_the_bounds() {
    // The paper's call at a reduced size: fp16 A, B, 32F compute, fp32 and fp16 C.
    let record = TcRecord::lookup(device_arch().unwrap(), TcInput::Fp16, TcOutput::Fp32).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let (m, k, t) = (256, 4096, 8);
    let a = random_operands(&record, &mut rng, m * k, false);
    let b = random_operands(&record, &mut rng, k * t, false);
    let model = BlockFma::new(&record).gemm(&a, &b, m, k, t);
    for fp16 in [false, true] {
        let d = cublas_gemm_ex(&a, &b, (m, k, t), fp16).expect("cuBLAS runs");
        let model_out: Vec<f64> = model
            .iter()
            .map(|&v| {
                if fp16 {
                    Format::FP16.round(v, RoundingMode::NearestEven)
                } else {
                    v
                }
            })
            .collect();
        let same = d
            .iter()
            .zip(&model_out)
            .filter(|(x, y)| x.to_bits() == y.to_bits())
            .count();
        println!(
            "cuBLAS GemmEx ({} C): {same} of {} elements equal the chained-block model (cuBLAS's order is not documented)",
            if fp16 { "fp16" } else { "fp32" },
            m * t
        );
        let av = boundgate_verify::oracle::Matrix::new(m, k, &a).unwrap();
        let bv = boundgate_verify::oracle::Matrix::new(k, t, &b).unwrap();
        let errors = boundgate_verify::oracle::gemm_errors(&av, &bv, &d).unwrap();
        let worst = errors
            .iter()
            .filter_map(|e| e.relative_up())
            .fold(0.0, f64::max);
        println!("  max componentwise relative error {worst:.3e}");
    }
}
