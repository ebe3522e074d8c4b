//! Rounding of any f64 to every named format, in every mode, against MPFR.
#![no_main]

use boundgate_verify::format::{Format, RoundingMode};
use libfuzzer_sys::fuzz_target;
use rug::Float;

/// MPFR's rounding of `x` to `format` (subnormals emulated, IEEE overflow by definition).
fn mpfr_round(format: Format, x: f64, mode: RoundingMode) -> f64 {
    let round = mode.to_rug();
    let (mut f, o) = Float::with_val_round(format.precision(), x, round);
    f.subnormalize_round(format.emin() + 1, o, round);
    let r = f.to_f64();
    if r.abs() > format.max_finite() {
        let to_infinity = match mode {
            RoundingMode::NearestEven => true,
            RoundingMode::TowardZero => false,
            RoundingMode::Up => r > 0.0,
            RoundingMode::Down => r < 0.0,
        };
        let magnitude = if to_infinity {
            if format.has_infinity() { f64::INFINITY } else { f64::NAN }
        } else {
            format.max_finite()
        };
        return magnitude.copysign(r);
    }
    r
}

fuzz_target!(|bits: u64| {
    let x = f64::from_bits(bits);
    if !x.is_finite() {
        return;
    }
    for format in Format::NAMED {
        for mode in RoundingMode::ALL {
            let ours = format.round(x, mode);
            let theirs = mpfr_round(format, x, mode);
            assert!(
                ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                "{format} {mode} x = {x:e} ({bits:#x}): ours {ours:e}, MPFR {theirs:e}"
            );
        }
    }
});
