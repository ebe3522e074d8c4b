//! The format module against MPFR, bit for bit.
//!
//! MPFR (through `rug`) is the reference for every rounding here. A format with
//! subnormals is emulated the way the MPFR manual prescribes for IEEE formats
//! (§5.13, `mpfr_subnormalize`): round to `p` bits with MPFR's huge exponent
//! range, then `subnormalize` with MPFR's minimum normal exponent `emin + 1`
//! (MPFR writes `x = 0.1b... * 2^E`, IEEE `1.b... * 2^e`, so `E = e + 1`).
//! A format without subnormals uses MPFR's own exponent range instead
//! (`mpfr_set_emin`/`mpfr_set_emax` + `mpfr_check_range`), which has no
//! subnormals by construction. Overflow is then applied by the definition of
//! IEEE 754-2019 §7.4 (the value rounded with an unbounded exponent exceeds the
//! largest finite number) and the format's [`OverflowPolicy`].
//!
//! What is covered:
//! 1. every pair of consecutive values of fp16, bf16, e4m3, e5m2 (and
//!    fp16 without subnormals): the two values, their midpoint and its two f64
//!    neighbours, with the grid continued past the largest finite value as an
//!    unbounded exponent would; fp32 and tf32 over every binade; fp64 with
//!    200-bit MPFR numbers just around its midpoints;
//! 2. random f64 inputs (uniform bit patterns, underflow range, near the
//!    overflow threshold, near midpoints), checking also the error bounds
//!    `unit_roundoff` and `underflow_abs_error` against the exact error;
//! 3. `round_float` on random MPFR numbers of precision 60..300;
//! 4. `add`, `sub`, `mul`, `fma` with proptest against the exact result rounded
//!    once (special operands, signed zeros, overflow, underflow, operands that
//!    are not numbers of the format);
//! 5. formats without subnormals and random custom formats;
//! 6. stochastic rounding: the exact probability of rounding up and the mean.
//!
//! Random tests use fixed seeds, printed in every failure message.
//!
//! Heavy run (10^7 random conversions in all, 100x the proptest cases), in
//! release mode:
//! `BOUNDGATE_HEAVY=1 cargo test --release -p boundgate-verify --test format_vs_mpfr`

use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use gmp_mpfr_sys::mpfr;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence, RngSeed};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::float::Round;
use rug::{Float, Integer};
use std::cmp::Ordering;

const MODES: [RoundingMode; 4] = RoundingMode::ALL;

fn heavy() -> bool {
    std::env::var_os("BOUNDGATE_HEAVY").is_some()
}

/// Same value and same sign of zero; any NaN equals any NaN.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// `2^e` for -1074 <= e <= 1023, exactly.
fn pow2(e: i32) -> f64 {
    assert!((-1074..=1023).contains(&e), "2^{e} is not an f64");
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// `x 2^k`, rounded as f64 multiplication rounds (only used to make inputs).
fn ldexp(mut x: f64, mut k: i32) -> f64 {
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    x * pow2(k)
}

// ---------------------------------------------------------------------------
// The MPFR reference.
// ---------------------------------------------------------------------------

/// The MPFR direction for a mode, written out here rather than taken from
/// `RoundingMode::to_rug`, which is code under test.
fn rug_round(mode: RoundingMode) -> Round {
    match mode {
        RoundingMode::NearestEven => Round::Nearest,
        RoundingMode::TowardZero => Round::Zero,
        RoundingMode::Up => Round::Up,
        RoundingMode::Down => Round::Down,
    }
}

fn mpfr_rnd(mode: RoundingMode) -> mpfr::rnd_t {
    match mode {
        RoundingMode::NearestEven => mpfr::rnd_t::RNDN,
        RoundingMode::TowardZero => mpfr::rnd_t::RNDZ,
        RoundingMode::Up => mpfr::rnd_t::RNDU,
        RoundingMode::Down => mpfr::rnd_t::RNDD,
    }
}

/// MPFR's ternary value: the sign of (rounded - exact).
fn ternary(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// Sets MPFR's exponent range for this thread and restores it on drop.
/// The range is thread-local only in a thread-safe MPFR build (gmp-mpfr-sys
/// configures `--enable-thread-safe`; `mpfr_buildopt_tls_p` confirms it at run
/// time), so tests running in parallel cannot see each other's range.
struct ExponentRange {
    saved_emin: mpfr::exp_t,
    saved_emax: mpfr::exp_t,
}

impl ExponentRange {
    fn set(emin: i64, emax: i64) -> ExponentRange {
        // SAFETY: plain calls into MPFR's thread-local exponent range; the values
        // are inside MPFR's allowed range, checked by the return codes.
        unsafe {
            assert_ne!(
                mpfr::buildopt_tls_p(),
                0,
                "MPFR is not thread-safe: its exponent range is global"
            );
            let saved = ExponentRange {
                saved_emin: mpfr::get_emin(),
                saved_emax: mpfr::get_emax(),
            };
            assert_eq!(mpfr::set_emin(emin as mpfr::exp_t), 0);
            assert_eq!(mpfr::set_emax(emax as mpfr::exp_t), 0);
            saved
        }
    }
}

impl Drop for ExponentRange {
    fn drop(&mut self) {
        // SAFETY: restores values read from MPFR itself.
        unsafe {
            mpfr::set_emin(self.saved_emin);
            mpfr::set_emax(self.saved_emax);
        }
    }
}

/// IEEE 754 §7.4: the overflow result is infinity when the mode carries the
/// value away from zero (nearest, or the directed mode in the value's
/// direction), else the largest finite value; then the format's policy:
/// `Saturate` always gives the largest finite value, `Nan` gives NaN where IEEE
/// gives infinity (OCP OFP8 §5, non-saturating E4M3 conversion).
fn overflow_result(format: &Format, negative: bool, mode: RoundingMode) -> f64 {
    let to_infinity = match mode {
        RoundingMode::NearestEven => true,
        RoundingMode::TowardZero => false,
        RoundingMode::Up => !negative,
        RoundingMode::Down => negative,
    };
    let magnitude = match (to_infinity, format.overflow_policy()) {
        (false, _) | (true, OverflowPolicy::Saturate) => format.max_finite(),
        (true, OverflowPolicy::Infinity) => f64::INFINITY,
        (true, OverflowPolicy::Nan) => return f64::NAN,
    };
    if negative { -magnitude } else { magnitude }
}

/// An infinite input is exact, not an overflow. A saturating conversion clamps
/// it to the largest finite value (CUDA `__NV_SATFINITE` does so for E4M3 and
/// E5M2 alike: `cuda_fp8.hpp`, `__nv_cvt_double_to_fp8`); otherwise it stays
/// infinite where the format has infinities and is NaN where it has none
/// (OCP OFP8 §5, non-saturating E4M3).
fn infinite_input(format: &Format, negative: bool) -> f64 {
    let magnitude = if format.overflow_policy() == OverflowPolicy::Saturate {
        format.max_finite()
    } else if format.has_infinity() {
        f64::INFINITY
    } else {
        return f64::NAN;
    };
    if negative { -magnitude } else { magnitude }
}

/// The largest value `(2^p - 1) 2^(emax - p + 1)` of an IEEE-shaped format,
/// which is also MPFR's largest number at precision p with emax + 1.
fn ieee_max(format: &Format) -> f64 {
    let p = format.precision() as i32;
    ((1u64 << p) - 1) as f64 * pow2(format.emax() - (p - 1))
}

/// `x` rounded into `format` by MPFR.
fn mpfr_round(format: &Format, x: &Float, mode: RoundingMode) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        return infinite_input(format, x.is_sign_negative());
    }
    let round = rug_round(mode);
    let (mut rounded, direction) = Float::with_val_round(format.precision(), x, round);
    if format.has_subnormals() {
        rounded.subnormalize_round(format.emin() + 1, direction, round);
    } else {
        // MPFR has no subnormals: its range [2^(emin-1), 2^emax) in its own
        // convention is the format's normal range. Its overflow is used only
        // where its largest number is the format's.
        let emax = if format.max_finite() == ieee_max(format) {
            format.emax() as i64 + 1
        } else {
            // SAFETY: reads the thread's current range.
            unsafe { mpfr::get_emax() as i64 }
        };
        let _range = ExponentRange::set(format.emin() as i64 + 1, emax);
        // SAFETY: `rounded` is a valid, initialised MPFR number; check_range
        // assumes it is the correct rounding of x in `mode` with an unbounded
        // exponent and `direction` its ternary value, which it is.
        unsafe {
            mpfr::check_range(rounded.as_raw_mut(), ternary(direction), mpfr_rnd(mode));
        }
    }
    let negative = rounded.is_sign_negative();
    if rounded.is_infinite() {
        // Only MPFR's own overflow (no-subnormal path) gets here.
        return overflow_result(format, negative, mode);
    }
    if rounded.cmp_abs(&Float::with_val(53, format.max_finite())) == Some(Ordering::Greater) {
        return overflow_result(format, negative, mode);
    }
    // A number of the format, hence exactly an f64.
    rounded.to_f64()
}

fn mpfr_round_f64(format: &Format, x: f64, mode: RoundingMode) -> f64 {
    mpfr_round(format, &Float::with_val(53, x), mode)
}

/// IEEE 754 §7.4 overflow: the finite `x` rounded to p bits with an unbounded
/// exponent range (MPFR's default range is unbounded for these values) exceeds
/// the largest finite number.
fn mpfr_overflows(format: &Format, x: &Float, mode: RoundingMode) -> bool {
    if !x.is_finite() {
        return false;
    }
    let (unbounded, _) = Float::with_val_round(format.precision(), x, rug_round(mode));
    unbounded.cmp_abs(&Float::with_val(53, format.max_finite())) == Some(Ordering::Greater)
}

/// Checks `round` and `round_float` on an f64 input against MPFR.
fn check_f64(format: &Format, x: f64, mode: RoundingMode, context: &dyn Fn() -> String) {
    let expected = mpfr_round_f64(format, x, mode);
    let ours = format.round(x, mode);
    assert!(
        same(ours, expected),
        "{format} {mode} round({x:e} = {:#018x}) = {ours:e}, MPFR {expected:e} [{}]",
        x.to_bits(),
        context()
    );
    let exact = Float::with_val(53, x);
    let via_float = format.round_float(&exact, mode);
    assert!(
        same(via_float, expected),
        "{format} {mode} round_float({x:e}) = {via_float:e}, MPFR {expected:e} [{}]",
        context()
    );
    let overflows = mpfr_overflows(format, &exact, mode);
    assert_eq!(
        format.overflows(x, mode),
        overflows,
        "{format} {mode} overflows({x:e}) [{}]",
        context()
    );
    // The strict conversion refuses exactly the non-finite and overflowing inputs.
    match format.convert(x, mode) {
        Ok(converted) => assert!(
            x.is_finite() && !overflows && same(converted, expected),
            "{format} {mode} convert({x:e}) = {converted:e} [{}]",
            context()
        ),
        Err(error) => assert!(
            !x.is_finite() || overflows,
            "{format} {mode} convert({x:e}) refused: {error} [{}]",
            context()
        ),
    }
}

/// Formats and policies exercised throughout.
fn formats_under_test() -> Vec<Format> {
    let mut formats = Format::NAMED.to_vec();
    formats.push(
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    );
    formats.push(
        Format::FP16
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    );
    formats.push(Format::E5M2.with_overflow(OverflowPolicy::Nan).unwrap());
    formats.push(Format::FP16.without_subnormals());
    formats.push(Format::BF16.without_subnormals());
    formats.push(Format::custom(11, -14, 15, false, OverflowPolicy::Infinity).unwrap());
    formats
}

#[test]
fn mpfr_exponent_range_is_thread_local() {
    // SAFETY: a query of MPFR's build options.
    assert_ne!(unsafe { mpfr::buildopt_tls_p() }, 0);
    let before = unsafe { (mpfr::get_emin(), mpfr::get_emax()) };
    {
        let _range = ExponentRange::set(-13, 16);
        let other = std::thread::spawn(|| unsafe { (mpfr::get_emin(), mpfr::get_emax()) })
            .join()
            .unwrap();
        assert_ne!(
            other,
            (-13, 16),
            "another thread sees this thread's exponent range"
        );
    }
    assert_eq!(unsafe { (mpfr::get_emin(), mpfr::get_emax()) }, before);
}

// ---------------------------------------------------------------------------
// 1. Midpoints.
// ---------------------------------------------------------------------------

/// The grid value after `v > 0` with an unbounded exponent above `emin`.
fn grid_next(format: &Format, v: f64) -> f64 {
    let p = format.precision() as i32;
    let e = v.log2().floor() as i32;
    v + pow2(e.max(format.emin()) - (p - 1))
}

/// The non-negative finite values of an encoded format in increasing order,
/// then the two grid values an unbounded exponent adds above the largest.
fn ladder(format: &Format) -> Vec<f64> {
    let width = format.bit_width().unwrap();
    let mut values: Vec<f64> = (0..1u64 << (width - 1))
        .map(|b| format.decode(b).unwrap())
        .filter(|x| x.is_finite())
        .collect();
    for _ in 0..2 {
        let top = *values.last().unwrap();
        values.push(grid_next(format, top));
    }
    values
}

/// Checks the two values, their midpoint and the midpoint's f64 neighbours,
/// with both signs, in every mode.
fn check_pair(format: &Format, a: f64, b: f64) {
    let m = (a + b) / 2.0;
    assert!(
        m > a && m < b && m - a == b - m,
        "{format}: midpoint of {a:e}, {b:e} is not exact"
    );
    for x in [a, b, m, m.next_up(), m.next_down()] {
        for x in [x, -x] {
            for mode in MODES {
                check_f64(format, x, mode, &|| format!("pair {a:e}, {b:e}"));
            }
        }
    }
}

#[test]
fn midpoints_of_every_small_format_pair() {
    let small = [
        Format::FP16,
        Format::BF16,
        Format::E4M3,
        Format::E5M2,
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
        Format::E5M2
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
        Format::FP16.with_overflow(OverflowPolicy::Nan).unwrap(),
    ];
    for format in small {
        let values = ladder(&format);
        for pair in values.windows(2) {
            check_pair(&format, pair[0], pair[1]);
        }
    }
}

#[test]
fn midpoints_of_fp16_without_subnormals() {
    // Same normal numbers as fp16; below 2^-14 only the zeros. The fp16
    // subnormal grid gives many points in the underflow range.
    let no_sub = [
        Format::FP16.without_subnormals(),
        Format::custom(11, -14, 15, false, OverflowPolicy::Infinity).unwrap(),
        Format::custom(11, -14, 15, false, OverflowPolicy::Saturate).unwrap(),
    ];
    let values = ladder(&Format::FP16);
    for format in no_sub {
        for pair in values.windows(2) {
            check_pair(&format, pair[0], pair[1]);
        }
        check_pair(&format, 0.0, format.min_positive());
    }
}

/// fp32 and tf32 values sampled in every binade: the first, last and a few
/// random significands of each exponent field.
#[test]
fn midpoints_of_fp32_and_tf32_in_every_binade() {
    const SEED: u64 = 0x6d69_6470_3332;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    for format in [
        Format::FP32,
        Format::TF32,
        Format::FP32.without_subnormals(),
        Format::TF32
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    ] {
        let t = format.precision() - 1;
        let encoded = if format.encoding().is_some() {
            format
        } else {
            Format::FP32
        };
        let max_bits = encoded.encode(format.max_finite()).unwrap();
        for exponent_field in 0..=254u64 {
            let top = (1u64 << t) - 1;
            let mut trailing = vec![0, 1, 2, 3, top / 2, top / 2 + 1, top - 2, top - 1, top];
            trailing.extend((0..4).map(|_| rng.random_range(0..=top)));
            for field in trailing {
                let bits = (exponent_field << t) | field;
                let a = encoded.decode(bits).unwrap();
                if format.precision() == 24 {
                    assert_eq!(a, f32::from_bits(bits as u32) as f64);
                }
                let b = if bits == max_bits {
                    grid_next(&format, a)
                } else {
                    encoded.decode(bits + 1).unwrap()
                };
                check_pair(&format, a, b);
            }
        }
        // Past the largest value on the unbounded grid.
        let beyond = grid_next(&format, format.max_finite());
        check_pair(&format, beyond, grid_next(&format, beyond));
    }
}

/// fp64: 200-bit MPFR numbers at and just around fp64 midpoints of every binade.
#[test]
fn fp64_midpoints_plus_or_minus_tiny_in_every_binade() {
    const SEED: u64 = 0x6d69_6470_3634;
    const PREC: u32 = 200;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let format = Format::FP64;
    for exponent_field in 0..=2046u64 {
        let top = (1u64 << 52) - 1;
        let mut trailing = vec![0, 1, top - 1, top];
        trailing.extend((0..2).map(|_| rng.random_range(0..=top)));
        for field in trailing {
            let a = f64::from_bits((exponent_field << 52) | field);
            let mut b = Float::with_val(PREC, a.next_up());
            if a == f64::MAX {
                b = Float::with_val(PREC, 1) << 1024;
            }
            let m = Float::with_val(PREC, &b + a) / 2u32;
            let tiny = Float::with_val(PREC, &m >> 120u32);
            let points = [
                m.clone(),
                Float::with_val(PREC, &m + &tiny),
                Float::with_val(PREC, &m - &tiny),
                Float::with_val(PREC, a) + &tiny,
                Float::with_val(PREC, a) - &tiny,
            ];
            for x in points {
                assert_eq!(x.prec(), PREC);
                for x in [x.clone(), -x] {
                    for mode in MODES {
                        let expected = mpfr_round(&format, &x, mode);
                        let ours = format.round_float(&x, mode);
                        assert!(
                            same(ours, expected),
                            "fp64 {mode} round_float({x:e}) = {ours:e}, MPFR {expected:e} (seed {SEED})"
                        );
                    }
                }
            }
        }
    }
}

/// The `half` crate's f64 -> f16 conversion goes through f32 on x86 with F16C
/// and so rounds twice; this input lies just above an fp16 midpoint and the
/// f32 rounding lands on it. Our rounding must be MPFR's, whatever `half` does.
#[test]
fn single_rounding_where_f64_to_f32_to_f16_rounds_twice() {
    let x = -64080.00000004587;
    for mode in MODES {
        check_f64(&Format::FP16, x, mode, &|| {
            "double-rounding regression".into()
        });
    }
    assert_eq!(Format::FP16.round(x, RoundingMode::NearestEven), -64096.0);
    assert_eq!(
        mpfr_round_f64(&Format::FP16, (x as f32) as f64, RoundingMode::NearestEven),
        -64064.0
    );
}

// ---------------------------------------------------------------------------
// 2. Random f64 inputs.
// ---------------------------------------------------------------------------

/// A random number of the format (finite, any sign).
fn random_format_value(rng: &mut ChaCha8Rng, format: &Format) -> f64 {
    let p = format.precision() as i32;
    let e = rng.random_range(format.emin() - (p - 1)..=format.emax());
    let quantum = e.max(format.emin()) - (p - 1);
    let significand = rng.random_range(0..1u64 << p.min(53));
    let x = (significand as f64 * pow2(quantum.clamp(-1074, 1023))).min(format.max_finite());
    let x = format.round(x, RoundingMode::TowardZero);
    if rng.random() { -x } else { x }
}

/// One input from a mix aimed at the format's edges.
fn random_input(rng: &mut ChaCha8Rng, format: &Format) -> f64 {
    let p = format.precision() as i32;
    let sign = if rng.random() { -1.0 } else { 1.0 };
    let random_significand = |rng: &mut ChaCha8Rng| 1.0 + (rng.next_u64() >> 12) as f64 * pow2(-52);
    match rng.random_range(0..7u32) {
        // Uniform bit patterns: every f64 class, NaN and infinities included.
        0 => f64::from_bits(rng.next_u64()),
        // The underflow range and just above it.
        1 => {
            let e = rng.random_range(format.emin() - p - 3..=format.emin() + 1);
            sign * ldexp(random_significand(rng), e)
        }
        // Around the overflow threshold: max + k/16 of the top quantum.
        2 => {
            let top_quantum = pow2(format.emax() - (p - 1));
            let k = rng.random_range(-40..=40i32) as f64;
            let x = format.max_finite() + k * top_quantum / 16.0;
            let nudge = rng.random_range(-2..=2i32);
            let x = (0..nudge.abs()).fold(x, |x, _| {
                if nudge > 0 {
                    x.next_up()
                } else {
                    x.next_down()
                }
            });
            sign * x
        }
        // Near a midpoint of two consecutive numbers of the format.
        3 => {
            let a = random_format_value(rng, format).abs();
            let b = if a >= format.max_finite() {
                a
            } else {
                a + format.ulp(a)
            };
            let m = a + (b - a) / 2.0;
            let nudge = rng.random_range(-3..=3i32);
            let x = (0..nudge.abs()).fold(m, |x, _| {
                if nudge > 0 {
                    x.next_up()
                } else {
                    x.next_down()
                }
            });
            sign * x
        }
        // Any binade of the format's range and a bit beyond.
        4 => {
            let e = rng.random_range(format.emin() - p - 5..=format.emax() + 3);
            sign * ldexp(random_significand(rng), e)
        }
        // Exactly a number of the format.
        5 => random_format_value(rng, format),
        // Small integers: ties and exact values in the integer range.
        _ => sign * rng.random_range(0..1u64 << (p + 3).min(52)) as f64,
    }
}

/// Checks the error bounds the format publishes against the exact error:
/// Higham 2002, Thm 2.2 (|fl(x) - x| <= u|x| in the normal range, u the
/// unit roundoff of the mode) and eq. (2.8) (|fl(x) - x| <= eta below 2^emin).
fn check_error_bounds(format: &Format, x: f64, rounded: f64, mode: RoundingMode, seed: u64) {
    if !x.is_finite() || format.overflows(x, mode) {
        return;
    }
    let error = Float::with_val(2200, rounded - Float::with_val(53, x)).abs();
    if x.abs() >= format.min_positive_normal() {
        let bound = Float::with_val(
            2200,
            x.abs() * Float::with_val(53, format.unit_roundoff(mode)),
        );
        assert!(
            error <= bound,
            "{format} {mode}: |fl({x:e}) - x| = {error:e} > u|x| (seed {seed})"
        );
    } else {
        let eta = format.underflow_abs_error(mode);
        assert!(
            error <= eta,
            "{format} {mode}: |fl({x:e}) - x| = {error:e} > eta = {eta:e} (seed {seed})"
        );
    }
}

#[test]
fn random_f64_inputs_match_mpfr() {
    const SEED: u64 = 0x7261_6e64_6f6d;
    let formats = formats_under_test();
    // 10^7 conversions in all with BOUNDGATE_HEAVY, 10^4 per (format, mode) otherwise.
    let per_case = if heavy() {
        10_000_000 / (formats.len() * MODES.len())
    } else {
        10_000
    };
    for (fi, format) in formats.iter().enumerate() {
        for (mi, &mode) in MODES.iter().enumerate() {
            let seed = SEED ^ ((fi as u64) << 8 | mi as u64);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for case in 0..per_case {
                let x = random_input(&mut rng, format);
                check_f64(format, x, mode, &|| format!("seed {seed:#x}, case {case}"));
                check_error_bounds(format, x, format.round(x, mode), mode, seed);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 3. round_float on MPFR numbers.
// ---------------------------------------------------------------------------

/// A random MPFR number with `prec` significant bits and leading exponent `e`.
fn random_float(rng: &mut ChaCha8Rng, prec: u32, e: i32) -> Float {
    let limbs: Vec<u64> = (0..prec.div_ceil(64)).map(|_| rng.next_u64()).collect();
    let mut significand = Integer::from_digits(&limbs, rug::integer::Order::Lsf);
    significand.keep_bits_mut(prec);
    significand.set_bit(prec - 1, true);
    let mut x = Float::with_val(prec, significand);
    x <<= e - (prec as i32 - 1);
    x
}

fn random_float_input(rng: &mut ChaCha8Rng, format: &Format) -> Float {
    let prec = rng.random_range(60..=300u32);
    let p = format.precision() as i32;
    let x = match rng.random_range(0..6u32) {
        // Anywhere in and around the format's range.
        0 => {
            let e = rng.random_range(format.emin() - p - 4..=format.emax() + 2);
            random_float(rng, prec, e)
        }
        // Far outside any f64 range: underflow to 0 / min, or overflow.
        1 => {
            let e = rng.random_range(1100..=5000i32);
            let e = if rng.random() { e } else { -e - 1074 };
            random_float(rng, prec, e)
        }
        // A midpoint of the format plus or minus 2^-k relative, k up to 200:
        // the 127-bit compression in `Fixed::from_float` must keep the sticky bit.
        2 | 3 => {
            let a = random_format_value(rng, format).abs();
            let b = if a >= format.max_finite() {
                grid_next(format, format.max_finite())
            } else {
                a + format.ulp(a)
            };
            let m = Float::with_val(300, Float::with_val(60, a) + b) / 2u32;
            let k = if rng.random() {
                200
            } else {
                rng.random_range(60..=200u32)
            };
            let tiny = Float::with_val(300, &m >> k);
            match rng.random_range(0..3u32) {
                0 => m,
                1 => m + tiny,
                _ => m - tiny,
            }
        }
        // An f64 midpoint plus or minus 2^-200 relative.
        _ => {
            let a = f64::from_bits(rng.next_u64() & !(1u64 << 63));
            if !a.is_finite() || a == f64::MAX {
                Float::with_val(prec, 1) >> 3u32
            } else {
                let m = Float::with_val(300, Float::with_val(60, a) + a.next_up()) / 2u32;
                let tiny = Float::with_val(300, &m >> 200u32);
                if rng.random() { m + tiny } else { m - tiny }
            }
        }
    };
    if rng.random() { -x } else { x }
}

#[test]
fn round_float_matches_mpfr() {
    const SEED: u64 = 0x0066_6c6f_6174;
    let per_case = if heavy() { 200_000 } else { 2_000 };
    for (fi, format) in formats_under_test().iter().enumerate() {
        for (mi, &mode) in MODES.iter().enumerate() {
            let seed = SEED ^ ((fi as u64) << 8 | mi as u64);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for case in 0..per_case {
                let x = random_float_input(&mut rng, format);
                let expected = mpfr_round(format, &x, mode);
                let ours = format.round_float(&x, mode);
                assert!(
                    same(ours, expected),
                    "{format} {mode} round_float({x:e}, prec {}) = {ours:e}, MPFR {expected:e} (seed {seed:#x}, case {case})",
                    x.prec()
                );
            }
        }
    }
    // Special MPFR values.
    for format in formats_under_test() {
        for mode in MODES {
            for x in [
                Float::with_val(100, rug::float::Special::Nan),
                Float::with_val(100, rug::float::Special::Infinity),
                Float::with_val(100, rug::float::Special::NegInfinity),
                Float::with_val(100, rug::float::Special::Zero),
                Float::with_val(100, rug::float::Special::NegZero),
            ] {
                assert!(
                    same(format.round_float(&x, mode), mpfr_round(&format, &x, mode)),
                    "{format} {mode} {x}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Arithmetic.
// ---------------------------------------------------------------------------

/// Wide enough for any exact sum of f64 numbers and exact products:
/// from 2^2048 down to 2^-2148.
const EXACT_PREC: u32 = 4400;

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
}

/// The exact result as an MPFR number. The mode only chooses the sign of an
/// exact zero sum (IEEE 754 §6.3; MPFR follows it).
fn exact_result(op: Op, a: f64, b: f64, c: f64, mode: RoundingMode) -> Float {
    let (fa, fb, fc) = (
        Float::with_val(53, a),
        Float::with_val(53, b),
        Float::with_val(53, c),
    );
    let round = rug_round(mode);
    let (exact, direction) = match op {
        Op::Add => Float::with_val_round(EXACT_PREC, &fa + &fb, round),
        Op::Sub => Float::with_val_round(EXACT_PREC, &fa - &fb, round),
        Op::Mul => Float::with_val_round(EXACT_PREC, &fa * &fb, round),
        Op::Fma => {
            let (product, exact_product) = Float::with_val_round(110, &fa * &fb, round);
            assert_eq!(exact_product, Ordering::Equal);
            Float::with_val_round(EXACT_PREC, &product + &fc, round)
        }
    };
    assert_eq!(
        direction,
        Ordering::Equal,
        "{op:?} of {a:e}, {b:e}, {c:e} is not exact"
    );
    exact
}

fn ours(format: &Format, op: Op, a: f64, b: f64, c: f64, mode: RoundingMode) -> f64 {
    match op {
        Op::Add => format.add(a, b, mode),
        Op::Sub => format.sub(a, b, mode),
        Op::Mul => format.mul(a, b, mode),
        Op::Fma => format.fma(a, b, c, mode),
    }
}

fn check_op(
    format: &Format,
    op: Op,
    a: f64,
    b: f64,
    c: f64,
    mode: RoundingMode,
) -> Result<(), String> {
    let expected = mpfr_round(format, &exact_result(op, a, b, c, mode), mode);
    let got = ours(format, op, a, b, c, mode);
    if same(got, expected) {
        Ok(())
    } else {
        Err(format!(
            "{format} {mode} {op:?}({a:e}, {b:e}, {c:e}) = {got:e} ({:#018x}), MPFR {expected:e} ({:#018x})",
            got.to_bits(),
            expected.to_bits()
        ))
    }
}

/// Operands for arithmetic in `format`: any f64 (NaN and infinities
/// included), scaled small integers (exact cancellation and ties), numbers
/// at product scale (so that a*b lands in the format's range), numbers of the
/// format, and the special values.
fn operand(format: Format) -> BoxedStrategy<f64> {
    let p = format.precision() as i32;
    let (emin, emax) = (format.emin(), format.emax());
    let int_bits = (p + 2).min(52);
    let small_int = -(1i64 << int_bits)..(1i64 << int_bits);
    let specials = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        format.max_finite(),
        -format.max_finite(),
        format.min_positive(),
        -format.min_positive(),
        format.min_positive_normal(),
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
    ];
    prop_oneof![
        2 => proptest::num::f64::ANY,
        3 => (small_int.clone(), emin - 2 * p - 4..=emax + 2)
            .prop_map(|(m, k)| ldexp(m as f64, k)),
        2 => (small_int, (emin - 2 * p) / 2 - 4..=emax / 2 + 2)
            .prop_map(|(m, k)| ldexp(m as f64, k)),
        2 => (any::<u64>(), emin - p..=emax)
            .prop_map(move |(bits, e)| {
                let significand = 1.0 + (bits >> 12) as f64 * pow2(-52);
                let x = format.round(ldexp(significand, e), RoundingMode::TowardZero);
                if bits & 1 == 1 { -x } else { x }
            }),
        1 => proptest::sample::select(specials),
    ]
    .boxed()
}

/// Fixed seed; failures are kept in tests/proptest-regressions/ and replayed
/// first on every run.
fn arithmetic_config(seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases: if heavy() { 300_000 } else { 10_000 },
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/proptest-regressions/format_vs_mpfr.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// (format, mode, a, b, c) with operands scaled for the format.
fn arithmetic_case() -> impl Strategy<Value = (Format, RoundingMode, f64, f64, f64)> {
    let formats = formats_under_test();
    (0..formats.len(), 0..4usize).prop_flat_map(move |(fi, mi)| {
        let format = formats[fi];
        (
            Just(format),
            Just(MODES[mi]),
            operand(format),
            operand(format),
            operand(format),
        )
    })
}

proptest! {
    #![proptest_config(arithmetic_config(0x0061_6464))]
    #[test]
    fn add_matches_mpfr((format, mode, a, b, _c) in arithmetic_case()) {
        check_op(&format, Op::Add, a, b, 0.0, mode).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(arithmetic_config(0x0073_7562))]
    #[test]
    fn sub_matches_mpfr((format, mode, a, b, _c) in arithmetic_case()) {
        check_op(&format, Op::Sub, a, b, 0.0, mode).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(arithmetic_config(0x006d_756c))]
    #[test]
    fn mul_matches_mpfr((format, mode, a, b, _c) in arithmetic_case()) {
        check_op(&format, Op::Mul, a, b, 0.0, mode).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(arithmetic_config(0x0066_6d61))]
    #[test]
    fn fma_matches_mpfr((format, mode, a, b, c) in arithmetic_case()) {
        check_op(&format, Op::Fma, a, b, c, mode).map_err(TestCaseError::fail)?;
    }
}

/// Products whose f64 rounding error is below 2^-1074 and so not an f64:
/// the error-free TwoProduct (`fma(a, b, -a*b)`) is exact only when
/// e_a + e_b >= emin + p - 1 = -970 (Boldo and Muller, "Exact and approximated
/// error of the FMA", IEEE TC 60(2), 2011, §2). A sweep of product exponents
/// from below the f64 range to well above that threshold, with full 53-bit
/// significands, for `mul` and `fma`, in every format and mode.
#[test]
fn products_near_the_f64_underflow_threshold_match_mpfr() {
    const SEED: u64 = 0x7477_6f70;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let formats = formats_under_test();
    let per_exponent = if heavy() { 400 } else { 8 };
    for product_exponent in -1080..=-900 {
        for case in 0..per_exponent {
            // Full significands, and sparse ones (1 + k 2^-52, 2 - k 2^-52) whose
            // products have a remainder far below the product's last bit.
            let significand = |rng: &mut ChaCha8Rng| match rng.random_range(0..3u32) {
                0 => 1.0 + (rng.next_u64() >> 12) as f64 * pow2(-52),
                1 => 1.0 + rng.random_range(1..8u32) as f64 * pow2(-52),
                _ => 2.0 - rng.random_range(1..8u32) as f64 * pow2(-52),
            };
            let ea = rng.random_range(-540..=-360);
            let a = ldexp(significand(&mut rng), ea);
            let b = ldexp(significand(&mut rng), product_exponent - ea);
            let b = if rng.random() { -b } else { b };
            let c = match rng.random_range(0..4u32) {
                0 => 0.0,
                1 => f64::from_bits(rng.random_range(1..1u64 << 52)),
                2 => -(a * b),
                _ => ldexp(
                    significand(&mut rng),
                    product_exponent + rng.random_range(-60..=60),
                ),
            };
            let format = formats[rng.random_range(0..formats.len())];
            for mode in MODES {
                for op in [Op::Mul, Op::Fma] {
                    if let Err(message) = check_op(&format, op, a, b, c, mode) {
                        panic!(
                            "{message} (seed {SEED:#x}, exponent {product_exponent}, case {case})"
                        );
                    }
                }
            }
        }
    }
}

/// The cases IEEE 754 spells out, in every format and mode: signed zeros
/// (§6.3), invalid operations (§7.2: inf - inf, 0 * inf), infinite operands
/// with finite products that overflow f64, and exact cancellation.
#[test]
fn arithmetic_special_cases_match_mpfr() {
    let big = 1e200;
    let cases: Vec<(f64, f64, f64)> = vec![
        (0.0, 0.0, 0.0),
        (0.0, -0.0, 0.0),
        (-0.0, -0.0, -0.0),
        (-0.0, 0.0, -0.0),
        (1.0, -1.0, 0.0),
        (-1.0, 1.0, -0.0),
        (3.0, 0.0, -0.0),
        (-3.0, 0.0, 0.0),
        (f64::INFINITY, f64::NEG_INFINITY, 1.0),
        (f64::INFINITY, 0.0, 1.0),
        (0.0, f64::INFINITY, f64::NEG_INFINITY),
        (f64::INFINITY, 2.0, f64::NEG_INFINITY),
        (f64::NAN, 0.0, 1.0),
        (1.0, 1.0, f64::NAN),
        // a*b is finite (1e400) but not an f64: fma(a, b, -inf) = -inf.
        (big, big, f64::NEG_INFINITY),
        (big, -big, f64::INFINITY),
        (big, big, f64::INFINITY),
        (big, big, -f64::MAX),
        (f64::MAX, 2.0, -f64::MAX),
        (f64::MAX, f64::MAX, f64::MAX),
        (f64::MIN_POSITIVE, 0.5, -f64::from_bits(1)),
        (f64::from_bits(1), 0.5, 0.0),
        (f64::from_bits(1), -0.5, 0.0),
        (1e-200, 1e-200, -0.0),
        (-1e-200, 1e-200, 0.0),
        (1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0, -1.0),
    ];
    for format in formats_under_test() {
        for mode in MODES {
            for &(a, b, c) in &cases {
                for op in [Op::Add, Op::Sub, Op::Mul, Op::Fma] {
                    if let Err(message) = check_op(&format, op, a, b, c, mode) {
                        panic!("{message}");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 5. Formats without subnormals, custom formats.
// ---------------------------------------------------------------------------

/// The module says a tie between 0 and 2^emin rounds to 0 "as MPFR does".
/// MPFR manual §4.6 (Exceptions, underflow): "In the round-to-nearest mode,
/// the halfway case is rounded toward zero"; `mpfr_check_range`
/// (src/exceptions.c) switches RNDN to RNDZ for |x| = 2^(emin-2) in its
/// convention, our 2^(emin-1). Checked on both sides of the tie.
#[test]
fn tie_below_the_normal_range_goes_to_zero_as_in_mpfr() {
    for format in [
        Format::FP16.without_subnormals(),
        Format::custom(11, -14, 15, false, OverflowPolicy::Infinity).unwrap(),
        Format::BF16.without_subnormals(),
        Format::E4M3.without_subnormals(),
        Format::custom(2, -3, 4, false, OverflowPolicy::Infinity).unwrap(),
    ] {
        let half_min = format.min_positive() / 2.0;
        for x in [half_min, -half_min] {
            let expected = mpfr_round_f64(&format, x, RoundingMode::NearestEven);
            assert!(
                expected == 0.0 && expected.is_sign_negative() == (x < 0.0),
                "MPFR: {expected:e}"
            );
            check_f64(&format, x, RoundingMode::NearestEven, &|| {
                "tie at 2^(emin-1)".into()
            });
            check_f64(&format, x.next_up(), RoundingMode::NearestEven, &|| {
                "above tie".into()
            });
            check_f64(&format, x.next_down(), RoundingMode::NearestEven, &|| {
                "below tie".into()
            });
        }
        assert_eq!(
            format.round(half_min.next_up(), RoundingMode::NearestEven),
            format.min_positive()
        );
    }
    // Same set of numbers, same rounding.
    let a = Format::FP16.without_subnormals();
    let b = Format::custom(11, -14, 15, false, OverflowPolicy::Infinity).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..20_000 {
        let x = random_input(&mut rng, &a);
        for mode in MODES {
            assert!(same(a.round(x, mode), b.round(x, mode)), "{x:e} {mode}");
        }
    }
}

/// A random custom format: precision 2..=53, any exponent range that embeds in
/// f64, with or without subnormals, any overflow policy.
fn random_custom_format(rng: &mut ChaCha8Rng) -> Format {
    let p = rng.random_range(2..=53u32);
    let emax = if rng.random() {
        rng.random_range(1..=1023)
    } else {
        rng.random_range(1..=40)
    };
    let lowest_emin = (-1022).max(-1074 + (p as i32 - 1));
    let emin = if rng.random() {
        (1 - emax).max(lowest_emin)
    } else {
        rng.random_range(lowest_emin..emax)
    };
    let subnormals = rng.random();
    let overflow = match rng.random_range(0..3u32) {
        0 => OverflowPolicy::Infinity,
        1 => OverflowPolicy::Saturate,
        _ => OverflowPolicy::Nan,
    };
    Format::custom(p, emin, emax, subnormals, overflow)
        .unwrap_or_else(|e| panic!("custom({p}, {emin}, {emax}, {subnormals}, {overflow:?}): {e}"))
}

/// `ulp(v)` is the distance from a number v of the format to the next one, and
/// `min_positive`, `min_positive_normal`, `max_finite` are numbers of the
/// format with nothing beyond them (checked by MPFR rounding just past them).
fn check_spacing(format: &Format, rng: &mut ChaCha8Rng) {
    let up = RoundingMode::Up;
    let max = format.max_finite();
    assert!(
        format.is_representable(max) && format.is_representable(format.min_positive()),
        "{format}"
    );
    assert!(
        format.is_representable(format.min_positive_normal()),
        "{format}"
    );
    assert!(
        mpfr_round_f64(format, max.next_up(), RoundingMode::TowardZero) == max,
        "{format}"
    );
    assert!(
        mpfr_round_f64(format, f64::from_bits(1), up) == format.min_positive(),
        "{format}"
    );
    for _ in 0..20 {
        let v = random_format_value(rng, format).abs();
        if v >= max {
            continue;
        }
        let next = mpfr_round_f64(format, v.next_up(), up);
        assert_eq!(format.ulp(v), next - v, "{format}: ulp({v:e})");
    }
}

#[test]
fn random_custom_formats_match_mpfr() {
    const SEED: u64 = 0x6375_7374_6f6d;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let formats = if heavy() { 20_000 } else { 300 };
    for case in 0..formats {
        let format = random_custom_format(&mut rng);
        check_spacing(&format, &mut rng);
        for _ in 0..100 {
            let x = random_input(&mut rng, &format);
            for mode in MODES {
                check_f64(&format, x, mode, &|| {
                    format!("seed {SEED:#x}, format {case}")
                });
                check_error_bounds(&format, x, format.round(x, mode), mode, SEED);
            }
            let y = random_input(&mut rng, &format);
            let mode = MODES[rng.random_range(0..4usize)];
            for op in [Op::Add, Op::Mul, Op::Fma] {
                let z = random_input(&mut rng, &format);
                if let Err(message) = check_op(&format, op, x, y, z, mode) {
                    panic!("{message} (seed {SEED:#x}, format {case})");
                }
            }
        }
    }
}

/// Regression: with no subnormals and `emax - emin < p - 1` the quantum below
/// 2^emin (2^emin itself) is coarser than the top binade's, and the overflow
/// test took that for an overflow: `custom(28, -7, 8, no subnormals)` rounded
/// 8.57e-5 to its largest value (found by `random_custom_formats_match_mpfr`,
/// seed 0x637573746f6d, format 55).
#[test]
fn narrow_format_without_subnormals_does_not_overflow_below_its_range() {
    let cases = [
        (
            Format::custom(28, -7, 8, false, OverflowPolicy::Saturate).unwrap(),
            8.572025045496642e-5,
        ),
        (
            Format::custom(11, -3, 4, false, OverflowPolicy::Infinity).unwrap(),
            pow2(-6),
        ),
        (
            Format::custom(11, -3, 4, false, OverflowPolicy::Infinity).unwrap(),
            0.1,
        ),
        (
            Format::custom(53, -2, 1, false, OverflowPolicy::Nan).unwrap(),
            0.2,
        ),
    ];
    for (format, x) in cases {
        for x in [x, -x] {
            for mode in MODES {
                check_f64(&format, x, mode, &|| "narrow-range regression".into());
                let r = format.round(x, mode);
                assert!(
                    r == 0.0 || r.abs() == format.min_positive(),
                    "{format} {mode} {x:e} -> {r:e}"
                );
            }
        }
    }
}

/// Regression: a saturating format with infinities (fp16, e5m2) kept infinite
/// inputs infinite, while `__NV_SATFINITE` clamps them to the largest finite
/// value for E5M2 as for E4M3 (proptest seed cc 4e74bbd4... in
/// proptest-regressions/format_vs_mpfr.txt).
#[test]
fn saturating_formats_clamp_infinities() {
    for format in [Format::FP16, Format::E5M2, Format::E4M3, Format::BF16] {
        let sat = format.with_overflow(OverflowPolicy::Saturate).unwrap();
        for mode in MODES {
            assert_eq!(
                sat.round(f64::INFINITY, mode),
                sat.max_finite(),
                "{sat} {mode}"
            );
            assert_eq!(
                sat.round(f64::NEG_INFINITY, mode),
                -sat.max_finite(),
                "{sat} {mode}"
            );
            assert_eq!(
                sat.add(f64::INFINITY, 1.0, mode),
                sat.max_finite(),
                "{sat} {mode}"
            );
            assert!(
                sat.add(f64::INFINITY, f64::NEG_INFINITY, mode).is_nan(),
                "{sat} {mode}"
            );
        }
    }
}

/// Regression: fma with finite a, b whose f64 product overflows and an
/// infinite c computed inf - inf = NaN; the exact product is finite, so the
/// result is c.
#[test]
fn fma_of_finite_product_and_infinite_addend_is_the_addend() {
    for format in formats_under_test() {
        for mode in MODES {
            for c in [f64::INFINITY, f64::NEG_INFINITY] {
                let expected = format.round(c, mode);
                assert!(
                    same(format.fma(1e200, 1e200, c, mode), expected),
                    "{format} {mode} {c}"
                );
                assert!(
                    same(format.fma(-1e200, 1e200, c, mode), expected),
                    "{format} {mode} {c}"
                );
            }
            assert!(format.fma(f64::INFINITY, 0.0, 1.0, mode).is_nan());
        }
    }
}

/// `round_fixed` on values known only to a sticky bit: (m + f) 2^e with
/// m >= 2^63 and any 0 < f < 1 must round as MPFR rounds the exact value.
#[test]
fn round_fixed_with_sticky_bit_matches_mpfr() {
    const SEED: u64 = 0x7374_6963_6b79;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let cases = if heavy() { 200_000 } else { 5_000 };
    for case in 0..cases {
        let format = formats_under_test()[rng.random_range(0..formats_under_test().len())];
        let mode = MODES[rng.random_range(0..4usize)];
        let bits = rng.random_range(64..=127u32);
        let mantissa = (((rng.next_u64() as u128) << 64) | rng.next_u64() as u128) >> (128 - bits)
            | (1u128 << (bits - 1));
        // Put the leading bit anywhere from below the format's range to above it.
        let p = format.precision() as i32;
        let top = rng.random_range(format.emin() - p - 3..=format.emax() + 2);
        let exponent = top - (bits as i32 - 1);
        let negative = rng.random();
        let fixed = boundgate_verify::format::Fixed::from_parts(negative, mantissa, exponent, true)
            .unwrap();
        // A stand-in for f: any value strictly between 0 and 1 will do.
        let fraction = Float::with_val(64, rng.next_u64() | 1) >> 64u32;
        let mut exact = Float::with_val(300, Integer::from(mantissa)) + fraction;
        exact <<= exponent;
        if negative {
            exact = -exact;
        }
        let expected = mpfr_round(&format, &exact, mode);
        let got = format.round_fixed(fixed, mode);
        assert!(
            same(got, expected),
            "{format} {mode} {fixed:?}: {got:e}, MPFR {expected:e} (seed {SEED:#x}, case {case})"
        );
    }
}

// ---------------------------------------------------------------------------
// 6. Stochastic rounding.
// ---------------------------------------------------------------------------

/// The number T of `r` in [0, 2^64) for which `round_stochastic(x, r)` rounds
/// away from zero, found by bisection after checking the result is `away` for
/// r < T and `toward` (the truncation) for r >= T at the ends and the boundary.
fn threshold(format: &Format, x: f64, toward: f64, away: f64) -> u128 {
    let at = |r: u64| format.round_stochastic(x, r);
    let is = |v: f64, w: f64| v.to_bits() == w.to_bits();
    if is(at(0), toward) {
        return 0;
    }
    assert!(is(at(0), away), "{format} {x:e}: r = 0 gives {:e}", at(0));
    if is(at(u64::MAX), away) {
        return 1 << 64;
    }
    let (mut lo, mut hi) = (0u64, u64::MAX); // at(lo) = away, at(hi) = toward
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let v = at(mid);
        assert!(
            is(v, away) || is(v, toward),
            "{format} {x:e}: r = {mid} gives {v:e}"
        );
        if is(v, away) { lo = mid } else { hi = mid }
    }
    hi as u128
}

#[test]
fn stochastic_rounding_is_unbiased() {
    const SEED: u64 = 0x7374_6f63;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let formats = [
        Format::FP16,
        Format::BF16,
        Format::E4M3,
        Format::E5M2,
        Format::TF32,
        Format::FP32,
        Format::FP16.without_subnormals(),
    ];
    for format in formats {
        let mut inputs = vec![
            1.0 + pow2(-12),
            -(1.0 + 3.0 * pow2(-12)),
            format.min_positive() / 3.0,
            format.min_positive_normal() * 0.75,
            format.max_finite() * (1.0 - pow2(-(format.precision() as i32) - 1)),
        ];
        for _ in 0..200 {
            let x = random_input(&mut rng, &format);
            if x.is_finite()
                && !format.overflows(x, RoundingMode::Up)
                && !format.overflows(x, RoundingMode::Down)
            {
                inputs.push(x);
            }
        }
        for x in inputs {
            let toward = format.round(x, RoundingMode::TowardZero);
            let away = if x > 0.0 {
                format.round(x, RoundingMode::Up)
            } else {
                format.round(x, RoundingMode::Down)
            };
            if toward == x {
                for r in [0, 1, u64::MAX, rng.next_u64()] {
                    assert!(
                        same(format.round_stochastic(x, r), x),
                        "{format}: representable {x:e}"
                    );
                }
                continue;
            }
            let t = threshold(&format, x, toward, away);
            // P(away) = T / 2^64 must be floor(2^64 (|x| - |toward|) / (|away| - |toward|)).
            let gap = Float::with_val(2200, away - Float::with_val(53, toward)).abs();
            let above = Float::with_val(2200, x - Float::with_val(53, toward)).abs();
            let scaled = Float::with_val(2200, (above << 64u32) / &gap);
            let expected_t = scaled.clone().floor().to_integer().unwrap();
            assert_eq!(
                Integer::from(t),
                expected_t,
                "{format} {x:e}: P(away) * 2^64 (seed {SEED:#x})"
            );
            // Hence the mean over all r is x, up to 2^-64 of the gap when
            // 2^64 (|x| - |toward|) / gap is not an integer.
            let mean = Float::with_val(
                2200,
                Float::with_val(53, toward).abs()
                    + &gap * Float::with_val(200, t) / Float::with_val(200, 1u128 << 64),
            );
            let bias = Float::with_val(2200, &mean - Float::with_val(53, x.abs())).abs();
            let resolution = Float::with_val(2200, &gap >> 64u32);
            assert!(bias < resolution, "{format} {x:e}: |E - x| = {bias:e}");
            if scaled.is_integer() {
                assert_eq!(bias, 0, "{format} {x:e}: E != x");
            }
        }
    }
}

/// With r from ChaCha8 the observed mean of 10^5 roundings is within 5 standard
/// deviations of x (for a correct rounding this fails with probability < 6e-7
/// per value; the seed is fixed, so the outcome is deterministic).
#[test]
fn stochastic_rounding_sample_mean() {
    const SEED: u64 = 0x6d65_616e;
    const N: usize = 100_000;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    for (format, x) in [
        (Format::FP16, 1.0 + pow2(-12)),
        (Format::BF16, -std::f64::consts::PI),
        (Format::E4M3, 0.3),
        (Format::FP16, pow2(-25) * 1.5),
    ] {
        let toward = format.round(x, RoundingMode::TowardZero);
        let gap = format.round(
            x,
            if x > 0.0 {
                RoundingMode::Up
            } else {
                RoundingMode::Down
            },
        ) - toward;
        let f = (x - toward) / gap;
        let sum: f64 = (0..N)
            .map(|_| format.round_stochastic(x, rng.next_u64()) - toward)
            .sum();
        let mean = sum / N as f64;
        let sigma = gap.abs() * (f * (1.0 - f) / N as f64).sqrt();
        assert!(
            (mean - (x - toward)).abs() <= 5.0 * sigma,
            "{format} {x}: mean offset {mean:e}, sigma {sigma:e} (seed {SEED:#x})"
        );
    }
}
