//! The exact accumulator used statefully
//! (`add`, `add_product`, `add_slice`, `add_products`, `merge`, `clear`, long
//! runs through the carry budget) against MPFR's sum of the same terms, on
//! values placed at the accumulator's 32-bit chunk boundaries (`LOW_EXP =
//! -3264` is a multiple of 32, so these are the exponents that are multiples
//! of 32), where carries, negative tops and the "-1 top" reduction happen.
//!
//! `tests/oracle_vs_mpfr.rs` compares fresh accumulators built by one call;
//! this file checks that an accumulator stays exact across any sequence of
//! operations, including after `clear` (its reuse pattern in the BLAS
//! oracles). The seed is fixed and printed; failures are shrunk and kept in
//! `tests/proptest-regressions/exact_sum_stateful.txt`; `BOUNDGATE_HEAVY=1`
//! runs 16 times the cases.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{ExactSum, mpfr};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
use rug::Float;
use std::cmp::Ordering;

const SEED: u64 = 0x5eed_0fc1_ea20_3200;

fn config(cases: u32) -> Config {
    let heavy = std::env::var_os("BOUNDGATE_HEAVY").is_some_and(|v| v != "0");
    let cases = if heavy { cases * 16 } else { cases };
    eprintln!("proptest: seed {SEED:#x}, {cases} cases");
    Config {
        cases,
        rng_seed: RngSeed::Fixed(SEED),
        // Failures are kept here and replayed first on every run.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/proptest-regressions/exact_sum_stateful.txt"
        )))),
        ..Config::default()
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// `m 2^e` for a significand `m` in `[1, 2)` given by its 52 fraction bits,
/// as an `f64` (subnormal or zero below 2^-1022: exactly, by bits).
fn scaled(fraction: u64, e: i32) -> f64 {
    let fraction = fraction & ((1 << 52) - 1);
    if e > 1023 {
        f64::INFINITY
    } else if e >= -1022 {
        f64::from_bits((((e + 1023) as u64) << 52) | fraction)
    } else {
        // Subnormal: keep the bits that are at or above 2^-1074.
        let shift = (-1022 - e) as u32;
        if shift > 52 {
            return f64::from_bits(1);
        }
        f64::from_bits(((1u64 << 52) | fraction) >> shift)
    }
}

/// Values near chunk boundaries: exponents 32 k + d, significands 1,
/// 1 + 2^-52, 2 - 2^-52 or random; both signs; a few zeros.
fn edgy() -> impl Strategy<Value = f64> + Clone {
    let fraction = prop_oneof![Just(0u64), Just(1u64), Just((1u64 << 52) - 1), any::<u64>()];
    // Leading bit at a chunk boundary (d near 0), or lowest bit of a normal
    // significand there (d near 52 - 32 = 20).
    let offset = prop_oneof![-2i32..=1, 18i32..=21];
    // Half of the time near 1, so that terms overlap and cancel.
    let k = prop_oneof![-34i32..=31, -1i32..=1];
    let exponent = (k, offset).prop_map(|(k, d)| (32 * k + d).clamp(-1074, 1023));
    prop_oneof![
        20 => (fraction, exponent, any::<bool>()).prop_map(|(f, e, negative)| {
            let v = scaled(f, e);
            if negative { -v } else { v }
        }),
        1 => Just(0.0),
        1 => Just(-0.0),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Add(f64),
    AddProduct(f64, f64),
    AddSlice(Vec<f64>),
    AddProducts(Vec<f64>, Vec<f64>),
    /// Merges an accumulator built one product at a time (left unnormalized).
    Merge(Vec<(f64, f64)>),
    /// The same value `n` times, one `add` each (through the carry budget).
    Repeat(f64, usize),
    /// `v` and `-next_up(v)`: adds `-ulp(v)`, often exactly `-2^(32 k)`
    /// whose lowest written chunk is `k + 102`.
    CancelUlp(f64),
    Clear,
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    let v = edgy();
    prop_oneof![
        6 => v.clone().prop_map(Op::Add),
        6 => (v.clone(), v.clone()).prop_map(|(a, b)| Op::AddProduct(a, b)),
        2 => prop::collection::vec(v.clone(), 0..300).prop_map(Op::AddSlice),
        // An empty slice: only normalizes in place.
        2 => Just(Op::AddSlice(Vec::new())),
        2 => prop::collection::vec((v.clone(), v.clone()), 0..300)
            .prop_map(|p| Op::AddProducts(p.iter().map(|t| t.0).collect(), p.iter().map(|t| t.1).collect())),
        2 => prop::collection::vec((v.clone(), v.clone()), 0..6).prop_map(Op::Merge),
        1 => (v.clone(), 1usize..2200).prop_map(|(a, n)| Op::Repeat(a, n)),
        3 => v.prop_map(Op::CancelUlp),
        2 => Just(Op::Clear),
        3 => Just(Op::Check),
    ]
}

/// Compares the accumulator with MPFR's exact sum of the same terms.
fn check(s: &ExactSum, terms: &[Float]) -> Result<(), TestCaseError> {
    let reference = mpfr::sum_of_terms(terms);
    let exact = s.to_float();
    prop_assert_eq!(exact.as_ref(), reference.exact(), "exact values differ");
    if let Some(e) = reference.exact() {
        prop_assert_eq!(s.signum(), e.cmp0().unwrap_or(Ordering::Equal));
        prop_assert_eq!(s.is_zero(), e.is_zero());
    }
    for format in [Format::FP64, Format::FP32, Format::FP16, Format::BF16] {
        for mode in RoundingMode::ALL {
            let f = s.round(format, mode);
            let r = reference.round(format, mode);
            prop_assert!(
                same(f, r),
                "{format} {mode}: fast {f:e} ({:#x}) vs MPFR {r:e} ({:#x})",
                f.to_bits(),
                r.to_bits()
            );
        }
    }
    Ok(())
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut s = ExactSum::new();
    let mut terms: Vec<Float> = Vec::new();
    for op in ops {
        match op {
            Op::Add(a) => {
                s.add(*a);
                terms.push(Float::with_val(53, *a));
            }
            Op::AddProduct(a, b) => {
                s.add_product(*a, *b);
                terms.push(mpfr::product(&[*a, *b]));
            }
            Op::AddSlice(x) => {
                s.add_slice(x);
                terms.extend(x.iter().map(|&a| Float::with_val(53, a)));
            }
            Op::AddProducts(x, y) => {
                s.add_products(x, y).unwrap();
                terms.extend(x.iter().zip(y).map(|(&a, &b)| mpfr::product(&[a, b])));
            }
            Op::Merge(pairs) => {
                let mut other = ExactSum::new();
                for &(a, b) in pairs {
                    other.add_product(a, b);
                    terms.push(mpfr::product(&[a, b]));
                }
                s.merge(&other).unwrap();
            }
            Op::Repeat(a, n) => {
                for _ in 0..*n {
                    s.add(*a);
                }
                terms.extend(std::iter::repeat_n(Float::with_val(53, *a), *n));
            }
            Op::CancelUlp(v) => {
                let w = -v.next_up();
                if w.is_finite() {
                    s.add(*v);
                    s.add(w);
                    terms.push(Float::with_val(53, *v));
                    terms.push(Float::with_val(53, w));
                }
            }
            Op::Clear => {
                s.clear();
                terms.clear();
            }
            Op::Check => check(&s, &terms)?,
        }
    }
    check(&s, &terms)
}

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn stateful_accumulator_matches_mpfr(ops in prop::collection::vec(op(), 1..16)) {
        run(&ops)?;
    }
}

#[test]
fn reused_after_clear_at_every_chunk_boundary() {
    // A sum of exactly -2^(32 k) whose terms are written from chunk k + 102 up
    // (LOW_EXP = -3264 = -102 * 32) normalizes to -2^32 in the chunk below all
    // written ones; the accumulator must still be empty after `clear`, even
    // if later terms were written above that chunk before it.
    for k in -33..=31 {
        let e = 32 * k;
        let unit = scaled(0, e);
        // m 2^(e - 52) with m = 2^52 and 2^52 + 1: their difference is 2^(e - 52).
        let base = scaled(0, e + 52);
        let above = scaled(1, e + 52);
        if !above.is_finite() {
            continue;
        }
        assert_eq!(above - base, unit);
        let mut s = ExactSum::new();
        s.add_slice(&[base, -above]);
        assert_eq!(s.to_float().unwrap(), -Float::with_val(53, unit), "2^{e}");
        s.add(scaled(0, (e + 200).min(1023)));
        s.clear();
        s.add(base);
        assert_eq!(s.to_float().unwrap(), base, "2^{e}: a term survived clear");
        assert!(s.round(Format::FP64, RoundingMode::NearestEven) == base);
    }
}

#[test]
fn rounding_boundaries_match_mpfr_get_d_and_get_flt() {
    // Sums at the rounding boundaries of fp64 and fp32 (overflow threshold,
    // ties at the top, at zero, between subnormals and at the normal range),
    // nudged by +-2^-2148 (a product of two subnormals, thirty-odd chunks
    // below) or not, in both signs: `ExactSum::round` must agree with MPFR's
    // own correctly rounded conversions (mpfr_get_d, mpfr_get_flt) of the
    // exact value, independently of `Format`'s rounding code.
    let tiny = f64::from_bits(1);
    let p2 = |e: i32| Float::with_val(53, Float::i_exp(1, e)).to_f64();
    // (format, largest finite, half its ulp, smallest subnormal, smallest normal)
    let targets = [
        (Format::FP64, f64::MAX, p2(970), tiny, f64::MIN_POSITIVE),
        (
            Format::FP32,
            f32::MAX as f64,
            p2(103),
            p2(-149),
            f32::MIN_POSITIVE as f64,
        ),
    ];
    for (format, max, half_ulp, min_sub, min_normal) in targets {
        let bases: [&[f64]; 9] = [
            &[max],
            &[max, half_ulp],
            &[max, half_ulp, half_ulp],
            &[max, max],
            &[min_sub / 2.0],
            &[min_sub, min_sub / 2.0],
            &[min_normal, -min_sub / 2.0],
            &[min_normal, -min_sub],
            &[],
        ];
        for base in bases {
            for nudge in [-1.0, 0.0, 1.0] {
                for negative in [false, true] {
                    let sign = if negative { -1.0 } else { 1.0 };
                    let mut s = ExactSum::new();
                    for &v in base {
                        s.add(sign * v);
                    }
                    if nudge != 0.0 {
                        s.add_product(sign * nudge * tiny, tiny);
                    }
                    let exact = s.to_float().unwrap();
                    if exact.is_zero() {
                        continue;
                    }
                    for mode in RoundingMode::ALL {
                        let round = match mode {
                            RoundingMode::NearestEven => rug::float::Round::Nearest,
                            RoundingMode::TowardZero => rug::float::Round::Zero,
                            RoundingMode::Up => rug::float::Round::Up,
                            RoundingMode::Down => rug::float::Round::Down,
                        };
                        let expected = if format == Format::FP64 {
                            exact.to_f64_round(round)
                        } else {
                            exact.to_f32_round(round) as f64
                        };
                        let got = s.round(format, mode);
                        assert!(
                            same(got, expected),
                            "{format} {mode}: {base:?} * {sign} + {nudge} 2^-2148: \
                             {got:e} vs MPFR {expected:e}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn carry_budget_from_a_negative_top_chunk() {
    // The most negative normalized chunk is a top chunk of -2^32 (the sum
    // -2^(32 k) after the "-1 top" reduction). Full 53-bit significands whose
    // upper piece (m >> 1, just below 2^52) lands in that chunk, added one by
    // one well past the carry budget (2^11 - 1 additions): every chunk must
    // stay below 2^63 in magnitude (overflow checks are on in tests) and the
    // sum exact. Both signs, so that the top chunk also grows from 2^32 - 1.
    for k in [-20, 0, 20] {
        let e = 32 * k;
        let base = scaled(0, e + 52);
        let above = scaled(1, e + 52);
        // Bit 0 of v's integer significand at 2^(32 k - 33): position 31 of
        // chunk k + 100, so its upper 52 bits go to chunk k + 101.
        let v = scaled((1 << 52) - 1, e - 33 + 52);
        for sign in [-1.0, 1.0] {
            let mut s = ExactSum::new();
            let mut terms = vec![Float::with_val(53, base), Float::with_val(53, -above)];
            s.add_slice(&[base, -above]);
            for _ in 0..5000 {
                s.add(sign * v);
            }
            terms.extend(std::iter::repeat_n(Float::with_val(53, sign * v), 5000));
            let reference = mpfr::sum_of_terms(&terms);
            assert_eq!(
                s.to_float().as_ref(),
                reference.exact(),
                "k = {k}, sign {sign}"
            );
            for mode in RoundingMode::ALL {
                assert!(same(s.round(Format::FP64, mode), reference.round_f64(mode)));
            }
        }
    }
}

/// A sum merged into copies of itself grows without limit; `merge` refuses
/// the first result outside `[-2^3328, 2^3328)` (it panicked at `2^3392` in the
/// carry propagation until 2026-11-29), leaves the sum as it was, and the
/// sum then takes more terms, merges that shrink it, and rounds, all exactly
/// (against MPFR), on both signs.
#[test]
fn merges_beyond_the_range_are_refused_and_leave_the_sum_usable() {
    for sign in [1.0, -1.0] {
        let mut s = ExactSum::new();
        s.add(sign * 2f64.powi(1023));
        let mut doublings = 0;
        while s.merge(&s.clone()).is_ok() {
            doublings += 1;
        }
        // The last power of two in range: 2^3327, or -2^3328.
        let last: u32 = if sign > 0.0 { 3327 } else { 3328 };
        assert_eq!(doublings, last - 1023, "sign {sign}");
        // 4500 bits hold 2^3328 plus any multiple of 2^971 exactly.
        let top = Float::with_val(4500, sign) << last;
        assert_eq!(
            s.to_float().unwrap(),
            top,
            "sign {sign}: unchanged by the refusal"
        );
        // 2^11 terms of f64::MAX: carries into the top chunks, no panic.
        let mut reference = top.clone();
        for _ in 0..(1 << 11) {
            s.add(sign * f64::MAX);
            reference += sign * f64::MAX;
        }
        assert_eq!(s.to_float().unwrap(), reference, "sign {sign}");
        assert!(
            s.merge(&s.clone()).is_err(),
            "sign {sign}: still too large to double"
        );
        // A merge of the negated sum of the added terms brings it back.
        let mut back = ExactSum::new();
        for _ in 0..(1 << 11) {
            back.add(-sign * f64::MAX);
        }
        s.merge(&back).unwrap();
        assert_eq!(s.to_float().unwrap(), top, "sign {sign}");
        assert_eq!(
            s.round(Format::FP64, RoundingMode::TowardZero),
            sign * f64::MAX
        );
        assert_eq!(s.to_f64(), sign * f64::INFINITY);
    }
}
