//! The MAC unit, the accessor summation orders, the baseline
//! tree dot and the bit encodings, each against a reference written here that
//! shares no code with the model:
//!
//! - `MacUnit` (no FMA, FMA, MPFMA) against MPFR: every step rounded by
//!   `Float::with_val_round` at the format's precision and
//!   `subnormalize_round` at its least exponent, overflow by IEEE 754 §7.4
//!   (or the format's saturation / NaN), in every mode, on random values of
//!   the formats and on signed zeros, subnormals, infinities and NaN;
//! - `split_chain_dot` against the device function written out (its depth,
//!   `split_chain_depth`, is checked in `accessor::order`'s unit tests);
//! - `tree_dot` in fp16 and bf16 (its "any format" what-if use) against the
//!   kernel's order written out with MPFR roundings;
//! - `Format::encode` / `decode` of fp32 and fp64 against `to_bits`.

use boundgate::kernels::accessor::order::{MAX_CHAIN_WAYS, split_chain_dot};
use boundgate::kernels::baseline::tree_dot::{TreeDotConfig, tree_dot};
use boundgate::kernels::mpfma::unit::{MacOp, MacUnit};
use boundgate_verify::VerifyError;
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use rug::float::Round;

/// Precision that holds every exact sum and product of f64 values.
const EXACT: u32 = 4400;

fn round_of(mode: RoundingMode) -> Round {
    match mode {
        RoundingMode::NearestEven => Round::Nearest,
        RoundingMode::TowardZero => Round::Zero,
        RoundingMode::Up => Round::Up,
        RoundingMode::Down => Round::Down,
    }
}

/// The largest finite value, from the format's parameters (E4M3's top code
/// S.1111.111 is NaN, so its largest significand is 1.110b).
fn max_finite(f: Format) -> f64 {
    let p = f.precision() as i32;
    let top = if f.name() == "e4m3" {
        (1u64 << p) - 2
    } else {
        (1u64 << p) - 1
    };
    top as f64 * 2f64.powi(f.emax() - p + 1)
}

/// `x` rounded into `f` in `mode` by MPFR (IEEE 754 §4.3, §7.4).
fn mpfr_round(x: &Float, f: Format, mode: RoundingMode) -> f64 {
    assert!(f.has_subnormals());
    let max = max_finite(f);
    let saturate = f.overflow_policy() == OverflowPolicy::Saturate;
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        let v = x.to_f64();
        return if saturate {
            max.copysign(v)
        } else if f.has_infinity() {
            v
        } else {
            f64::NAN
        };
    }
    let r = round_of(mode);
    let (mut y, dir) = Float::with_val_round(f.precision(), x, r);
    // MPFR's exponent is one more than IEEE's: 2^emin is 0.1b * 2^(emin + 1).
    y.subnormalize_round(f.emin() + 1, dir, r);
    let v = y.to_f64();
    if v.abs() > max {
        let negative = v < 0.0;
        let to_infinity = match mode {
            RoundingMode::NearestEven => true,
            RoundingMode::TowardZero => false,
            RoundingMode::Up => !negative,
            RoundingMode::Down => negative,
        };
        let magnitude = if !to_infinity || saturate {
            max
        } else if f.has_infinity() {
            f64::INFINITY
        } else {
            f64::NAN
        };
        return if negative { -magnitude } else { magnitude };
    }
    v
}

fn exact(x: f64) -> Float {
    Float::with_val(EXACT, x)
}

/// `a b` rounded into `f` (the exact product first, signed zeros by IEEE).
fn mpfr_mul(f: Format, a: f64, b: f64, mode: RoundingMode) -> f64 {
    let (p, _) = Float::with_val_round(EXACT, &exact(a) * &exact(b), round_of(mode));
    mpfr_round(&p, f, mode)
}

/// `a + b` rounded into `f`; an exact zero sum takes its sign from `mode` as
/// IEEE 754 §6.3 says (MPFR's addition in that mode does so).
fn mpfr_add(f: Format, a: f64, b: f64, mode: RoundingMode) -> f64 {
    let (s, _) = Float::with_val_round(EXACT, &exact(a) + &exact(b), round_of(mode));
    mpfr_round(&s, f, mode)
}

/// `a b + c` rounded once into `f`.
fn mpfr_fma(f: Format, a: f64, b: f64, c: f64, mode: RoundingMode) -> f64 {
    let (s, _) = Float::with_val_round(EXACT, &exact(a) * &exact(b) + &exact(c), round_of(mode));
    mpfr_round(&s, f, mode)
}

/// The MAC as its module documents it, every step by MPFR.
fn mac_reference(unit: &MacUnit, a: f64, b: f64, c: f64) -> (f64, f64, f64, f64) {
    let rne = RoundingMode::NearestEven;
    let (a, b, c) = (
        mpfr_round(&exact(a), unit.low, rne),
        mpfr_round(&exact(b), unit.low, rne),
        mpfr_round(&exact(c), unit.high, rne),
    );
    let m = unit.mode;
    let d = match unit.op {
        MacOp::NoFma => mpfr_add(unit.bar, mpfr_mul(unit.tilde, a, b, m), c, m),
        MacOp::Fma => mpfr_fma(unit.bar, a, b, c, m),
        MacOp::Mpfma => {
            let p = mpfr_mul(unit.tilde, a, b, m);
            let s = mpfr_add(unit.bar, p, c, m);
            mpfr_round(&exact(s), unit.out, m)
        }
    };
    (a, b, c, d)
}

fn same(x: f64, y: f64) -> bool {
    (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
}

/// A value of `f` (or near its range limits, or special) with random sign.
fn value_of(rng: &mut ChaCha8Rng, f: Format) -> f64 {
    let p = f.precision() as i32;
    let sign = if rng.random() { -1.0 } else { 1.0 };
    let v = match rng.random_range(0..12u32) {
        0 => 0.0,
        1 => f64::INFINITY,
        2 => {
            if rng.random_range(0..4u32) == 0 {
                f64::NAN
            } else {
                max_finite(f)
            }
        }
        // Subnormal or near the least normal.
        3 | 4 => {
            let k = rng.random_range(1..(1u64 << (p - 1).min(20)) + 4);
            k as f64 * 2f64.powi(f.emin() - p + 1)
        }
        // Near the top of the range.
        5 => {
            let m = rng.random_range(1u64 << (p - 1)..1u64 << p);
            m as f64 * 2f64.powi(f.emax() - rng.random_range(0..3) - p + 1)
        }
        // Anywhere in the range, or a little beyond it.
        _ => {
            let m = rng.random_range(1u64 << (p - 1)..1u64 << p);
            let e = rng.random_range(f.emin() - 3..=f.emax() + 1);
            m as f64 * 2f64.powi(e - p + 1)
        }
    };
    // Representable in f64 (the formats embed in it); may not be in f.
    sign * v
}

fn units() -> Vec<MacUnit> {
    let formats = [
        Format::FP64,
        Format::FP32,
        Format::TF32,
        Format::BF16,
        Format::FP16,
        Format::E5M2,
        Format::E4M3,
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
        Format::FP16
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    ];
    let (h, s) = (Format::FP16, Format::FP32);
    let mut units = Vec::new();
    for mode in RoundingMode::ALL {
        for f in formats {
            units.push(MacUnit::no_fma(f, mode));
            units.push(MacUnit::fma(f, mode));
        }
        // Table 2's two rows, and mixes with narrow products, sums or outputs.
        units.push(MacUnit::mpfma(h, s, s, s, s, mode));
        units.push(MacUnit::mpfma(h, h, s, h, h, mode));
        units.push(MacUnit::mpfma(Format::E4M3, h, s, s, Format::BF16, mode));
        units.push(MacUnit::mpfma(
            Format::E5M2,
            Format::BF16,
            Format::BF16,
            s,
            Format::E4M3,
            mode,
        ));
        units.push(MacUnit::mpfma(
            Format::BF16,
            s,
            Format::TF32,
            Format::FP64,
            h,
            mode,
        ));
        units.push(MacUnit::mpfma(s, s, Format::FP64, s, Format::E5M2, mode));
    }
    units
}

#[test]
fn mac_unit_rounds_every_step_as_mpfr_does() {
    let seed = 0x3ac_0001;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut checked = 0u64;
    for unit in units() {
        for case in 0..400 {
            // Inputs from the storage formats, or from another one (casts).
            let src = |rng: &mut ChaCha8Rng, f: Format| {
                if rng.random_range(0..4u32) == 0 {
                    Format::NAMED[rng.random_range(0..Format::NAMED.len())]
                } else {
                    f
                }
            };
            let (fa, fb, fc) = (
                src(&mut rng, unit.low),
                src(&mut rng, unit.low),
                src(&mut rng, unit.high),
            );
            let (a, b) = (value_of(&mut rng, fa), value_of(&mut rng, fb));
            let c = match rng.random_range(0..4u32) {
                // c near -a b: cancellation (exact zero sums, signs of zero).
                0 if (a * b).is_finite() => -(a * b),
                1 if (a * b).is_finite() => unit.high.round(-(a * b), RoundingMode::NearestEven),
                _ => value_of(&mut rng, fc),
            };
            let (ra, rb, rc, rd) = mac_reference(&unit, a, b, c);
            let (sa, sb, sc) = unit.stored(a, b, c);
            assert!(
                same(sa, ra) && same(sb, rb) && same(sc, rc),
                "{unit:?} case {case}: stored({a:e}, {b:e}, {c:e}) = ({sa:e}, {sb:e}, {sc:e}), MPFR ({ra:e}, {rb:e}, {rc:e})"
            );
            let d = unit.compute(sa, sb, sc);
            assert!(
                same(d, rd),
                "{unit:?} case {case}: compute({sa:e}, {sb:e}, {sc:e}) = {d:e} ({:#x}), MPFR {rd:e} ({:#x})",
                d.to_bits(),
                rd.to_bits()
            );
            checked += 1;
        }
    }
    assert!(checked > 30_000, "{checked}");
}

/// Signed zeros through each MAC: `-0` products meet `+0` and `-0` addends.
#[test]
fn mac_unit_signs_of_zero_follow_ieee() {
    for unit in units() {
        for (a, b, c) in [
            (-1.0, 0.0, 0.0),
            (-1.0, 0.0, -0.0),
            (1.0, 0.0, -0.0),
            (-0.0, -0.0, -0.0),
            (1.0, -1.0, 1.0),
            (2.0, 0.5, -1.0),
        ] {
            let (sa, sb, sc) = unit.stored(a, b, c);
            let (_, _, _, rd) = mac_reference(&unit, a, b, c);
            let d = unit.compute(sa, sb, sc);
            assert!(same(d, rd), "{unit:?} ({a}, {b}, {c}): {d:?} vs {rd:?}");
        }
    }
}

/// The split chains written out for f32 (chain `w` over `k = w, w + ways,
/// ...`, then `part[w] += part[w + s]` for `s = 1, 2, 4`), as
/// `trsv_apply_inverse` in kernels/accessor_blas.cu, for every `ways`.
#[test]
fn split_chain_dot_equals_the_device_function_written_out() {
    let seed = 0x5c4a;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for ways in 1..=MAX_CHAIN_WAYS {
        for len in [0usize, 1, 2, 3, 5, 7, 8, 9, 31, 32] {
            let a: Vec<f32> = (0..len).map(|_| rng.random_range(-1.0..1.0)).collect();
            let b: Vec<f32> = (0..len)
                .map(|_| rng.random_range(-1.0..1.0) * 2f32.powi(rng.random_range(-30..30)))
                .collect();
            let mut part = vec![0.0f32; ways];
            for c in 0..len {
                part[c % ways] = a[c].mul_add(b[c], part[c % ways]);
            }
            let mut s = 1;
            while s < ways {
                let mut w = 0;
                while w + s < ways {
                    part[w] += part[w + s];
                    w += 2 * s;
                }
                s *= 2;
            }
            let model = split_chain_dot(ways, len, |k| (a[k], b[k]));
            assert_eq!(model.to_bits(), part[0].to_bits(), "ways {ways} len {len}");
        }
    }
}

/// `kernels/dot.cu`'s order with every fma and addition rounded by MPFR.
fn tree_dot_reference(x: &[f64], y: &[f64], f: Format, t: usize, b: usize) -> f64 {
    let rne = RoundingMode::NearestEven;
    let n = x.len();
    let tree = |mut sh: Vec<f64>| -> f64 {
        let mut s = sh.len() / 2;
        while s > 0 {
            for i in 0..s {
                sh[i] = mpfr_add(f, sh[i], sh[i + s], rne);
            }
            s /= 2;
        }
        sh[0]
    };
    let mut partials = vec![0.0; b.next_power_of_two()];
    for (block, partial) in partials.iter_mut().enumerate().take(b) {
        let sh: Vec<f64> = (0..t)
            .map(|thread| {
                let mut acc = 0.0;
                let mut i = block * t + thread;
                while i < n {
                    acc = mpfr_fma(f, x[i], y[i], acc, rne);
                    i += t * b;
                }
                acc
            })
            .collect();
        *partial = tree(sh);
    }
    tree(partials)
}

#[test]
fn tree_dot_in_narrow_formats_equals_the_order_rounded_by_mpfr() {
    let seed = 0x7d07;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for f in [Format::FP16, Format::BF16, Format::TF32] {
        for (t, b) in [(1, 1), (2, 3), (4, 5), (8, 1), (16, 7)] {
            for n in [1, 2, 3, 17, 100, 301] {
                let p = f.precision() as i32;
                let gen_value = |rng: &mut ChaCha8Rng| {
                    let m = rng.random_range(-(1i64 << (p - 1))..(1i64 << (p - 1)));
                    // Products near 1 and near the subnormal range.
                    let e = if rng.random_range(0..4u32) == 0 {
                        f.emin() / 2 - p
                    } else {
                        -p - 2
                    };
                    m as f64 * 2f64.powi(e + rng.random_range(0..4))
                };
                let x: Vec<f64> = (0..n).map(|_| gen_value(&mut rng)).collect();
                let y: Vec<f64> = (0..n).map(|_| gen_value(&mut rng)).collect();
                let config = TreeDotConfig::new(t, b).unwrap();
                let model = tree_dot(&x, &y, f, config).unwrap();
                let reference = tree_dot_reference(&x, &y, f, t, b);
                assert!(
                    same(model.value, reference),
                    "{f} T={t} B={b} n={n}: {:e} vs MPFR {reference:e}",
                    model.value
                );
            }
        }
    }
}

#[test]
fn encode_and_decode_of_fp32_and_fp64_are_the_native_bit_patterns() {
    let seed = 0xb175;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let special32 = [
        0u32,
        1,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x3f80_0000,
    ];
    let special64 = [
        0u64,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
    ];
    let mut bits32: Vec<u32> = special32.iter().flat_map(|&b| [b, b | 1 << 31]).collect();
    bits32.extend((0..200_000).map(|_| rng.next_u32()));
    for bits in bits32 {
        let x = f32::from_bits(bits);
        let decoded = Format::FP32.decode(u64::from(bits)).unwrap();
        assert!(same(decoded, f64::from(x)), "{bits:#x}");
        let encoded = Format::FP32.encode(f64::from(x)).unwrap();
        if x.is_nan() {
            assert_eq!(encoded, 0x7fc0_0000, "{bits:#x}");
        } else {
            assert_eq!(encoded, u64::from(bits), "{bits:#x}");
        }
    }
    let mut bits64: Vec<u64> = special64.iter().flat_map(|&b| [b, b | 1 << 63]).collect();
    bits64.extend((0..200_000).map(|_| rng.next_u64()));
    // Exponents spread evenly, the subnormal range included.
    bits64.extend((0..50_000).map(|_| {
        let e = rng.random_range(0..0x800u64);
        (rng.next_u64() & 0x800f_ffff_ffff_ffff) | e << 52
    }));
    for bits in bits64 {
        let x = f64::from_bits(bits);
        assert!(same(Format::FP64.decode(bits).unwrap(), x), "{bits:#x}");
        let encoded = Format::FP64.encode(x).unwrap();
        if x.is_nan() {
            assert_eq!(encoded, 0x7ff8_0000_0000_0000, "{bits:#x}");
        } else {
            assert_eq!(encoded, bits, "{bits:#x}");
        }
    }
}

/// Regression (review): `tree_dot` promises a typed error for an
/// intermediate result that overflows, but with a saturating format
/// (`Format::with_overflow(OverflowPolicy::Saturate)`) the overflowing sum
/// was clamped to the largest finite value and returned as the result, an
/// error far beyond the `gamma_depth` bound the output's depth stands for.
#[test]
fn tree_dot_refuses_overflow_in_a_saturating_format() {
    let sat = Format::FP16
        .with_overflow(OverflowPolicy::Saturate)
        .unwrap();
    let max = sat.max_finite();
    // The products fit; their sum in the tree (T = 2) does not.
    let out = tree_dot(
        &[max, max],
        &[1.0, 1.0],
        sat,
        TreeDotConfig::new(2, 1).unwrap(),
    );
    assert!(matches!(out, Err(VerifyError::Overflow { .. })), "{out:?}");
    // An fma chain (T = 1) that overflows.
    let out = tree_dot(
        &[max, max],
        &[1.0, 1.0],
        sat,
        TreeDotConfig::new(1, 1).unwrap(),
    );
    assert!(matches!(out, Err(VerifyError::Overflow { .. })), "{out:?}");
    let e4m3 = Format::E4M3
        .with_overflow(OverflowPolicy::Saturate)
        .unwrap();
    let out = tree_dot(&[448.0], &[2.0], e4m3, TreeDotConfig::for_gpu(1));
    assert!(matches!(out, Err(VerifyError::Overflow { .. })), "{out:?}");
    // Up to the largest finite value it computes as before.
    let out = tree_dot(
        &[max, 1.0, -max],
        &[1.0, 1.0, 1.0],
        sat,
        TreeDotConfig::new(4, 1).unwrap(),
    );
    assert_eq!(out.unwrap().value, 1.0);
    let out = tree_dot(
        &[224.0, 224.0],
        &[1.0, 1.0],
        e4m3,
        TreeDotConfig::new(2, 1).unwrap(),
    );
    assert_eq!(out.unwrap().value, 448.0);
    // x + 0.5 ulp below the overflow threshold still rounds to max in RNE.
    let out = tree_dot(
        &[max, 8.0],
        &[1.0, 1.0],
        sat,
        TreeDotConfig::new(2, 1).unwrap(),
    );
    assert_eq!(out.unwrap().value, max);
}
