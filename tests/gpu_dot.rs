//! The GPU baseline dot (`kernels/dot.cu`) against its CPU model, bit for bit,
//! and both against the exact value and the gamma_depth bound; and, on machines
//! without a GPU, that the GPU path says so cleanly instead of panicking.
//!
//! On a GPU machine: `cargo test --release --features cuda --test gpu_dot -- --ignored`
//! (built here, run there: see docs/gpu/).

use boundgate::gpu::{Backend, DeviceStatus, GpuError, RanOn, Selected, dot, probe, run_dot};
use boundgate::gpu::{DotPrecision, dot_model};

/// Without a GPU every entry point answers with the same one-line reason.
/// (On a GPU machine there is nothing to check here; the ignored test runs.)
#[test]
fn without_a_gpu_probe_is_unavailable_with_a_clear_reason() {
    let reason = match probe() {
        DeviceStatus::Available(info) => {
            println!("GPU present ({info:?}): the no-GPU checks do not apply");
            return;
        }
        DeviceStatus::Unavailable { reason } => reason,
    };
    let message = reason.to_string();
    println!("probe: {message}");
    assert!(
        !message.is_empty() && !message.contains('\n'),
        "one line: {message:?}"
    );
    if cfg!(feature = "cuda") {
        // No driver library at all (this machine, CI), or one without a device.
        assert!(
            matches!(
                reason,
                GpuError::NoDriver { .. } | GpuError::Driver { .. } | GpuError::DriverTooOld { .. }
            ),
            "{reason:?}"
        );
        if let GpuError::NoDriver { library } = &reason {
            assert_eq!(message, format!("no CUDA driver ({library} not found)"));
        }
    } else {
        assert_eq!(reason, GpuError::NotBuilt);
        assert_eq!(message, "built without the `cuda` feature");
    }

    // Asking again gives the same answer (cached, still no panic).
    assert_eq!(
        probe(),
        DeviceStatus::Unavailable {
            reason: reason.clone()
        }
    );
    // `gpu` refuses with that reason; `auto` runs the CPU model and says why.
    assert_eq!(Backend::Gpu.select(), Err(reason.clone()));
    assert_eq!(
        Backend::Auto.select(),
        Ok(Selected::Cpu {
            reason: Some(format!("{message}: running the CPU model"))
        })
    );
    assert_eq!(dot(&[1.0], &[2.0], DotPrecision::Fp32), Err(reason.clone()));
    let run = run_dot(&[1.0, 2.0], &[3.0, 4.0], DotPrecision::Fp32, Backend::Auto)
        .expect("the CPU model runs");
    assert_eq!((run.value, run.ran_on), (11.0, RanOn::Cpu));
    assert_eq!(run.note, Some(format!("{message}: running the CPU model")));
    assert_eq!(
        run_dot(&[1.0], &[2.0], DotPrecision::Fp32, Backend::Gpu),
        Err(reason)
    );
}

#[test]
fn bad_input_is_reported_before_the_missing_device() {
    let result = dot(&[1.0, 2.0], &[1.0], DotPrecision::Fp64);
    assert!(matches!(result, Err(GpuError::Input(_))), "{result:?}");
}

mod on_the_device {
    use super::*;
    use boundgate::gpu::dot_with_config;
    use boundgate::kernels::baseline::tree_dot::{TreeDotConfig, tree_dot};
    use boundgate_verify::bounds::dot::{abs_dot_up, rigorous, underflow_ops};
    use boundgate_verify::format::{Format, RoundingMode};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rug::Float;

    const RNE: RoundingMode = RoundingMode::NearestEven;
    const NEEDS_GPU: &str = "needs an NVIDIA GPU: run with --ignored on the device";

    fn require_gpu() {
        match probe() {
            DeviceStatus::Available(info) => println!(
                "device: {info:?}; NVRTC {:?}",
                boundgate::gpu::nvrtc::version()
            ),
            DeviceStatus::Unavailable { reason } => panic!("this test {NEEDS_GPU}; here: {reason}"),
        }
    }

    /// Values of `format`: random sign and mantissa, magnitude 2^-8 .. 2^8.
    fn values(rng: &mut ChaCha8Rng, n: usize, format: Format) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let mantissa: f64 = rng.random_range(-1.0..1.0);
                format.round(mantissa * 2f64.powi(rng.random_range(-8..=8)), RNE)
            })
            .collect()
    }

    /// The exact dot product, rounded to nearest f64, and the exact |error| of
    /// `computed` rounded up. MPFR at a precision covering every product's bits
    /// and the carries of n additions, so no addition rounds.
    fn exact_error(x: &[f64], y: &[f64], computed: f64) -> (f64, f64) {
        let exponents = x
            .iter()
            .zip(y)
            .filter(|(a, b)| **a != 0.0 && **b != 0.0)
            .map(|(a, b)| {
                let top = a.abs().log2().floor() as i64 + b.abs().log2().floor() as i64 + 2;
                (top, top - 2 * 53 - 2)
            });
        let (high, low) =
            exponents.fold((i64::MIN, i64::MAX), |(h, l), (t, b)| (h.max(t), l.min(b)));
        let bits = if high == i64::MIN {
            64
        } else {
            (high - low) as u32 + 64 - x.len().leading_zeros() + 8
        };
        let mut sum = Float::with_val(bits, 0);
        for (a, b) in x.iter().zip(y) {
            sum += Float::with_val(106, a) * Float::with_val(106, b);
        }
        let exact = sum.to_f64();
        let error = (Float::with_val(bits + 64, computed) - &sum).abs();
        (exact, error.to_f64_round(rug::float::Round::Up))
    }

    /// The checker's rigorous bound for the kernel's depth:
    /// gamma_depth sum |x_i y_i| + n eta (1 + gamma_depth), rounded up
    /// (boundgate_verify `bounds::dot::rigorous`; src/kernels/baseline/tree_dot.rs).
    fn bound(x: &[f64], y: &[f64], format: Format, depth: u64) -> f64 {
        let sum_abs = abs_dot_up(x, y).unwrap();
        rigorous(format, RNE, depth, underflow_ops(format, x.len()), sum_abs)
            .unwrap_or_else(|e| panic!("no bound for depth {depth}: {e}"))
            .value
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn gpu_dot_equals_its_model_bit_for_bit_and_meets_the_bound() {
        require_gpu();
        // Sizes around the block and grid edges, and past T * B_max = 2^18
        // (several terms per thread).
        let sizes = [
            1,
            2,
            255,
            256,
            257,
            1000,
            65_539,
            262_144,
            262_145,
            1_000_003,
            3 << 20,
        ];
        for precision in DotPrecision::ALL {
            for (k, &n) in sizes.iter().enumerate() {
                let seed = 0x6d07_0000 + k as u64;
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let x = values(&mut rng, n, precision.storage());
                let y = values(&mut rng, n, precision.storage());
                let gpu = dot(&x, &y, precision)
                    .unwrap_or_else(|e| panic!("{precision} n={n} seed {seed:#x}: {e}"));
                let model = dot_model(&x, &y, precision).unwrap();
                let (exact, error) = exact_error(&x, &y, gpu);
                let limit = bound(&x, &y, precision.accumulator(), model.depth);
                println!(
                    "{precision:>9} n={n:>8} seed {seed:#x}: gpu {gpu:e} model {:e} exact {exact:e} error {error:.3e} bound {limit:.3e} (depth {})",
                    model.value, model.depth
                );
                assert_eq!(
                    gpu.to_bits(),
                    model.value.to_bits(),
                    "{precision} n={n} seed {seed:#x}: GPU differs from the model"
                );
                assert!(
                    error <= limit,
                    "{precision} n={n} seed {seed:#x}: error {error:e} > bound {limit:e}"
                );
            }
        }
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn gpu_follows_the_model_for_other_geometries() {
        require_gpu();
        let geometries = [(1, 1), (2, 3), (32, 5), (64, 1024), (1024, 1), (1024, 1024)];
        for (k, (t, b)) in geometries.into_iter().enumerate() {
            let config = TreeDotConfig::new(t, b).unwrap();
            for precision in DotPrecision::ALL {
                let seed = 0x6e0_0000 + k as u64;
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let n = 10_007;
                let x = values(&mut rng, n, precision.storage());
                let y = values(&mut rng, n, precision.storage());
                let gpu = dot_with_config(&x, &y, precision, config).unwrap();
                let model = tree_dot(&x, &y, precision.accumulator(), config).unwrap();
                assert_eq!(
                    gpu.to_bits(),
                    model.value.to_bits(),
                    "{precision} T={t} B={b} seed {seed:#x}"
                );
            }
        }
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn gpu_overflow_and_subnormals_behave_like_the_model() {
        require_gpu();
        let max = Format::FP32.max_finite();
        let overflow = dot(&[max, max], &[2.0, 2.0], DotPrecision::Fp32);
        assert!(matches!(overflow, Err(GpuError::Input(_))), "{overflow:?}");
        // Products in fp32's subnormal range: no flush to zero on either side.
        let tiny = [2f64.powi(-75), -(2f64.powi(-74)), 3.0 * 2f64.powi(-76)];
        let gpu = dot(&tiny, &tiny, DotPrecision::Fp32).unwrap();
        let model = dot_model(&tiny, &tiny, DotPrecision::Fp32).unwrap();
        assert_eq!(gpu.to_bits(), model.value.to_bits());
        assert!(gpu > 0.0);
    }
}
