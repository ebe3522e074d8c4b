//! The int8/int4 quantizers (residual-compensated GEMM, Gu et al. eq. (1))
//! on arbitrary finite matrices, every scale rule, rounding, working format
//! and granularity: no panic, integers in range, no saturation except under
//! the literal eq. (2) scale, and each value recovered within one step 1/lambda.
#![no_main]

use boundgate::kernels::residual::quant::{Bits, Quantizer, Rounding, ScaleRule, Working};
use boundgate_verify::bounds::residual::ScaleAxis;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [config, shape, rest @ ..] = data else { return };
    let values: Vec<f64> = rest
        .chunks_exact(8)
        .map(|c| f64::from_bits(u64::from_le_bytes(c.try_into().unwrap())))
        .filter(|v| v.is_finite())
        .collect();
    let cols = 1 + usize::from(shape % 8);
    let rows = values.len() / cols;
    let values = &values[..rows * cols];
    let q = Quantizer {
        bits: if config & 1 == 0 { Bits::Int8 } else { Bits::Int4 },
        scale: [ScaleRule::Absmax, ScaleRule::Half, ScaleRule::Eq2][usize::from(config >> 1 & 3) % 3],
        rounding: [Rounding::Nearest, Rounding::Floor, Rounding::TowardZero][usize::from(config >> 3 & 3) % 3],
        working: if config >> 5 & 1 == 0 { Working::Fp32 } else { Working::Fp64 },
    };
    let axis = [ScaleAxis::Tensor, ScaleAxis::Rows, ScaleAxis::Columns][usize::from(config >> 6) % 3];
    // Values the working format cannot hold are the caller's to refuse.
    if q.working == Working::Fp32 && values.iter().any(|v| v.abs() > f64::from(f32::MAX)) {
        return;
    }
    let values: Vec<f64> = values.iter().map(|&v| q.working.round(v)).collect();
    let Ok(m) = q.quantize("fuzz", &values, rows, cols, axis) else { return };
    let qmax = i32::from(q.bits.qmax() as i8);
    assert!(m.ints.iter().all(|&i| i32::from(i).abs() <= qmax));
    // The documented rule (module docs of `quant`, tests/residual.rs): only
    // eq. (2), or floor at -amax (where the rounding of lambda can put
    // fl(lambda x) just below -qmax), reaches the clamp; in the second case the
    // clamp removes only that excursion, so the step check below still holds.
    if q.scale != ScaleRule::Eq2 {
        assert!(
            m.saturated == 0 || q.rounding == Rounding::Floor,
            "{q:?} {axis:?}: saturated on {values:?}"
        );
    }
    let check_steps = m.saturated == 0 || q.scale != ScaleRule::Eq2;
    for i in 0..rows {
        for j in 0..cols {
            let line = match axis {
                ScaleAxis::Tensor => 0,
                ScaleAxis::Rows => i,
                ScaleAxis::Columns => j,
            };
            let (lambda, x) = (m.scales[line], values[i * cols + j]);
            let int = f64::from(m.ints[i * cols + j]);
            if check_steps && lambda.is_finite() && lambda > 0.0 && (lambda * x).is_finite() {
                // One quantization step, plus the working format's rounding of lambda x.
                let step = (1.0 + 1e-6) / lambda + 1e-300;
                assert!((x - int / lambda).abs() <= step, "{q:?}: x = {x:e}, q = {int}, lambda = {lambda:e}");
            }
        }
    }
});
