//! Edge cases of `stats`, the block-FMA bounds, `PbTable`, `gamma` and qdot's
//! exponent binning (review, 2026-11-29):
//!
//! - the block-FMA bounds against a direct simulation of the block-FMA model
//!   of `bounds::tc::block` (exact products, alignment to the largest exponent,
//!   truncation to `F` fractional bits, one rounding per block), on inputs
//!   near the accumulator's overflow threshold, in every rounding mode;
//! - `PbTable` for unit roundoffs whose square underflows, against Lemma 2.2
//!   of Bhola and Duraisamy evaluated in MPFR;
//! - `gamma_n`, `(1 + u)^n - 1` for subnormal `u` and `n` up to `u64::MAX`;
//! - the exact binomial test: its size computed EXACTLY (not simulated) over
//!   every violation count, and each verdict against the tail summed in MPFR;
//! - qdot's Definition 3.1 binning by `fexp(x_i y_i)` against MPFR.

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::gamma::{gamma_value, product_growth, theta_bound};
use boundgate_verify::bounds::probabilistic::bhola_pb;
use boundgate_verify::bounds::qdot::{Binning, ExponentBins, Fexp};
use boundgate_verify::bounds::tc::{
    BlockFmaSpec, PbTable, block_fma_a_posteriori, block_fma_a_priori,
};
use boundgate_verify::format::{Format, RoundingMode, exponent_of};
use boundgate_verify::stats::{binomial_tail, judge_violations};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::ops::PowAssign;
use rug::{Float, Integer};

const PREC: u32 = 4096;

fn big(x: f64) -> Float {
    Float::with_val(PREC, x)
}

fn p2(e: i32) -> f64 {
    boundgate_verify::format::ldexp(1.0, e)
}

// ---------------------------------------------------------------------------
// Block FMA: a direct simulation of the model.

/// The block-FMA model of `bounds::tc::block` step by step: returns the block
/// results `s^_1, ..., s^_q` (stopping after a non-finite one).
fn simulate(spec: &BlockFmaSpec, x: &[f64], y: &[f64]) -> Vec<f64> {
    let (inp, acc) = (spec.input, spec.accumulator);
    let scale = |v: f64, f: Format| exponent_of(v.abs()).max(f.emin());
    let mut c = 0.0f64;
    let mut partials = Vec::new();
    for (xs, ys) in x.chunks(spec.block).zip(y.chunks(spec.block)) {
        let mut terms: Vec<(f64, i32)> = Vec::new();
        if c != 0.0 {
            terms.push((c, scale(c, acc)));
        }
        let mut products = 0;
        for (&a, &b) in xs.iter().zip(ys) {
            if a != 0.0 && b != 0.0 {
                // Exact in f64: at most 2 x 11 significant bits, no over/underflow here.
                terms.push((a * b, scale(a, inp) + scale(b, inp)));
                products += 1;
            }
        }
        if products == 0 {
            partials.push(c);
            continue;
        }
        let e = terms.iter().map(|t| t.1).max().unwrap();
        let q = p2(e - spec.fraction_bits as i32);
        // Multiples of Q below 2^(E + 7) in magnitude: every partial sum is exact.
        let sum: f64 = terms.iter().map(|&(v, _)| (v / q).trunc() * q).sum();
        let s = acc.round(sum, spec.output_mode);
        partials.push(s);
        if !s.is_finite() {
            break;
        }
        c = s;
    }
    partials
}

fn exact_dot(x: &[f64], y: &[f64]) -> Float {
    let mut s = big(0.0);
    for (&a, &b) in x.iter().zip(y) {
        s += big(a) * big(b);
    }
    s
}

/// A random number of `format` (subnormals included), sign random, exponent
/// in `emin_draw..=emax_draw`.
fn draw(rng: &mut ChaCha8Rng, format: Format, emin_draw: i32, emax_draw: i32) -> f64 {
    if rng.random_range(0..10) == 0 {
        return 0.0;
    }
    let e = rng.random_range(emin_draw..=emax_draw);
    let m = 1.0 + rng.random_range(0.0..1.0);
    let sign = if rng.random_range(0..2) == 0 {
        -1.0
    } else {
        1.0
    };
    let v = format.round(sign * m * p2(e), RoundingMode::NearestEven);
    if v.is_finite() { v } else { 0.0 }
}

/// The a-posteriori bound trusted finite block results, but rounding toward
/// zero turns an overflow into `+-max_finite`, which is finite: with bf16
/// factors and an fp32 accumulator, `2^127 2 + 2^127 2 = 2^129` gave
/// `f32::MAX` and a bound of `3 2^103` for an error of `2^128 + 2^104`. The
/// result is now refused (module documentation of `tc::block`: "Both need no
/// overflow"), while a block sum that really is `f32::MAX` keeps its bound.
#[test]
fn a_posteriori_refuses_a_result_saturated_by_an_overflow() {
    let spec = BlockFmaSpec::new(2, 25, Format::BF16, Format::FP32, RoundingMode::TowardZero);
    let (x, y) = ([p2(127), p2(127)], [2.0, 2.0]);
    let partials = simulate(&spec, &x, &y);
    assert_eq!(partials, [f64::from(f32::MAX)]);
    let r = block_fma_a_posteriori(&spec, &x, &y, &partials);
    assert!(
        matches!(r, Err(VerifyError::HypothesisNotMet { .. })),
        "{r:?}: error {:e}",
        (exact_dot(&x, &y) - partials[0]).to_f64()
    );
    // The a-priori bound already refused it.
    assert!(block_fma_a_priori(&spec, &x, &y).is_err());

    // f32::MAX = 255 2^120 + 255 2^112 + 255 2^104 exactly: no overflow, bound kept.
    let spec4 = BlockFmaSpec { block: 4, ..spec };
    let x = [255.0 * p2(120), 255.0 * p2(112), 255.0 * p2(104)];
    let y = [1.0; 3];
    let partials = simulate(&spec4, &x, &y);
    assert_eq!(partials, [f64::from(f32::MAX)]);
    let b = block_fma_a_posteriori(&spec4, &x, &y, &partials).unwrap();
    assert!(b.value >= 0.0 && b.value.is_finite());
    // The same magnitude negated under round toward +inf (which saturates
    // negative overflows) is accepted; under round toward -inf, -MAX is an
    // infinity's place and never a saturation, so it is not questioned.
    for mode in [RoundingMode::Up, RoundingMode::Down] {
        let spec = BlockFmaSpec {
            output_mode: mode,
            ..spec4
        };
        let neg: Vec<f64> = x.iter().map(|v| -v).collect();
        let partials = simulate(&spec, &neg, &y);
        assert_eq!(partials, [-f64::from(f32::MAX)], "{mode:?}");
        assert!(block_fma_a_posteriori(&spec, &neg, &y, &partials).is_ok());
    }
    // Toward +inf, 2 2^127 + 2 2^127 negated: a saturated negative overflow.
    let up = BlockFmaSpec {
        output_mode: RoundingMode::Up,
        ..spec
    };
    let (x, y) = ([-p2(127), -p2(127)], [2.0, 2.0]);
    let partials = simulate(&up, &x, &y);
    assert_eq!(partials, [-f64::from(f32::MAX)]);
    assert!(block_fma_a_posteriori(&up, &x, &y, &partials).is_err());
}

/// Both block-FMA bounds hold on the simulated model over random inputs,
/// many of them near the accumulator's overflow threshold (fp32 with bf16
/// factors, fp16 with fp16 factors), in every rounding mode; whenever a
/// bound is given, the error is within it. (Without the saturation check the
/// a-posteriori bound failed here under round toward zero.)
#[test]
fn block_fma_bounds_hold_on_the_simulated_model_near_overflow() {
    let seed = 0x5eed_b10c;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let setups = [
        (Format::BF16, Format::FP32, 25u32, -133, 127),
        (Format::BF16, Format::FP32, 24, 100, 127),
        (Format::FP16, Format::FP16, 23, 3, 15),
        (Format::FP16, Format::FP32, 24, -24, 15),
    ];
    let modes = [
        RoundingMode::TowardZero,
        RoundingMode::NearestEven,
        RoundingMode::Up,
        RoundingMode::Down,
    ];
    let (mut checked, mut refused_post) = (0u32, 0u32);
    for trial in 0..6000 {
        let (inp, acc, f, lo, hi) = setups[trial % setups.len()];
        let mode = modes[(trial / setups.len()) % modes.len()];
        let block = [1usize, 2, 4, 8, 16][rng.random_range(0..5)];
        let spec = BlockFmaSpec::new(block, f, inp, acc, mode);
        let n: usize = rng.random_range(1..40);
        let x: Vec<f64> = (0..n).map(|_| draw(&mut rng, inp, lo, hi)).collect();
        let y: Vec<f64> = (0..n).map(|_| draw(&mut rng, inp, lo, hi)).collect();
        let partials = simulate(&spec, &x, &y);
        let s = *partials.last().unwrap();
        if !s.is_finite() || partials.len() != n.div_ceil(block) {
            continue;
        }
        let err = (big(s) - exact_dot(&x, &y)).abs();
        if let Ok(b) = block_fma_a_priori(&spec, &x, &y) {
            assert!(
                err <= b.value,
                "a priori, seed {seed:#x} trial {trial}: {spec:?} x {x:?} y {y:?}"
            );
        }
        match block_fma_a_posteriori(&spec, &x, &y, &partials) {
            Ok(b) => {
                checked += 1;
                assert!(
                    err <= b.value,
                    "a posteriori, seed {seed:#x} trial {trial}: error {:e} > {:e}, {spec:?} x {x:?} y {y:?} partials {partials:?}",
                    err.to_f64(),
                    b.value
                );
            }
            Err(VerifyError::HypothesisNotMet { .. }) => refused_post += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    println!("checked {checked}, refused {refused_post}");
    assert!(
        checked > 1500 && refused_post > 50,
        "{checked} {refused_post}"
    );
}

// ---------------------------------------------------------------------------
// PbTable for tiny u.

/// Lemma 2.2's `p_b` in MPFR with `Var[log(1 + delta)] / u^2` replaced by
/// its upper bound `(1 + u)^2 / 3` (so a LOWER bound of the printed `p_b`).
fn pb_lower_for_tiny_u(lambda: f64, u: f64, n: u64) -> Float {
    let one_plus_u = big(1.0) + big(u);
    let ratio = Float::with_val(PREC, &one_plus_u * &one_plus_u) / 3u32;
    let nf = big(n as f64);
    let num = big(lambda) * big(lambda) * &nf;
    let range =
        big(lambda) * nf.clone().sqrt() / (Float::with_val(PREC, 3u32) * (big(1.0) - big(u)));
    let den = (nf * ratio + range) * 2u32;
    let e = (-(num / den)).exp();
    big(1.0) - e * 2u32
}

/// `PbTable` divided `sigma^2 = RU(ratio u^2)` by `RD(u^2)`: below u = 2^-537
/// that is a subnormal over the negative subnormal, a ratio of -1, and
/// `pb(1)` at lambda = 4 and u = 2^-600 was 1 - 2e^-24 where Lemma 2.2 gives
/// 0.9836 (an overconfident probability). It now agrees with `bhola_pb` bit
/// for bit and stays below the printed formula.
#[test]
fn pb_table_for_a_unit_roundoff_whose_square_underflows() {
    for e in [
        -440, -449, -450, -451, -500, -530, -537, -540, -600, -1000, -1074,
    ] {
        let u = p2(e);
        assert!(u > 0.0);
        for lambda in [0.5, 3.0, 4.0, 30.0] {
            let mut table = PbTable::new(u, lambda).unwrap();
            for n in [1u64, 2, 99, 100, 1 << 20, u64::MAX >> 11] {
                let got = table.pb(n);
                let want = bhola_pb(lambda, u, n).unwrap();
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "u = 2^{e}, lambda {lambda}, n {n}"
                );
                let printed = pb_lower_for_tiny_u(lambda, u, n);
                assert!(
                    big(got) <= printed,
                    "u = 2^{e}, lambda {lambda}, n {n}: {got}"
                );
                assert!(
                    printed - got <= 1e-13,
                    "tight: u = 2^{e}, lambda {lambda}, n {n}"
                );
            }
        }
    }
    let mut t = PbTable::new(p2(-600), 4.0).unwrap();
    assert!(t.pb(1) < 0.984, "{}", t.pb(1));
}

/// `pb_deviation` over the whole range of `tau`: never NaN, in [-1, 1] (a
/// tiny `tau` gave -1 - 4e-16: `tau^2` rounded down to the negative
/// subnormal), non-decreasing in `tau` while `tau^2` is finite (beyond, the
/// saturated `tau^2` still gives a valid, smaller, lower bound), 1 for an
/// infinite deviation (it was NaN: inf / inf in the exponent).
#[test]
fn pb_deviation_is_a_probability_for_every_tau() {
    for u in [p2(-11), p2(-24), p2(-600)] {
        let table = PbTable::new(u, 3.0).unwrap();
        for n in [1u64, 64, 1 << 40, u64::MAX] {
            assert_eq!(table.pb_deviation(n, f64::INFINITY), 1.0, "u {u:e} n {n}");
            assert_eq!(table.pb_deviation(n, f64::NAN), -1.0);
            assert_eq!(table.pb_deviation(n, -1.0), -1.0);
            let mut last = -1.0f64;
            for tau in [1e-300, 1e-3, 1.0, 8.0, 1e3, 1e10, 1e150, 1e300, f64::MAX] {
                let p = table.pb_deviation(n, tau);
                assert!((-1.0..=1.0).contains(&p), "u {u:e} n {n} tau {tau:e}: {p}");
                if tau < 1e150 {
                    assert!(p >= last, "u {u:e} n {n} tau {tau:e}: {p} < {last}");
                }
                last = p;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// gamma_n at the extremes.

#[test]
fn gamma_at_subnormal_u_and_huge_n() {
    let exact_gamma = |n: u64, u: f64| {
        let nu = Float::with_val(PREC, n) * big(u);
        let den = big(1.0) - &nu;
        nu / den
    };
    let exact_growth = |n: u64, u: f64| {
        let mut g = big(1.0) + big(u);
        g.pow_assign(&Integer::from(n));
        g - 1u32
    };
    let subnormal = f64::from_bits(1);
    for (n, u) in [
        (1u64, subnormal),
        (u64::MAX, subnormal),
        (u64::MAX, f64::from_bits(12345)),
        (u64::MAX, p2(-80)),
        (u64::MAX - 1, 2f64.powi(-65)),
        ((1 << 52) - 1, p2(-52)),
        (3, 0.3),
        (1_000_003, 1.0 / 3.0 * 1e-7),
    ] {
        let g = gamma_value(n, u).unwrap();
        let exact = exact_gamma(n, u);
        assert!(big(g) >= exact, "gamma({n}, {u:e}) = {g:e}");
        // Within a few ulps (absolute ones for subnormal u: `mul_up` moves a
        // product below 1e-290 outward even when it is exact).
        let ulps = f64::from_bits(4);
        assert!(
            big(g) <= exact.clone() * (1.0 + 1e-13) + ulps,
            "tight: gamma({n}, {u:e})"
        );
        let growth = product_growth(n, u).unwrap();
        let exact_g = exact_growth(n, u);
        assert!(big(growth) >= exact_g, "(1+u)^n-1, n {n}, u {u:e}");
        assert!(big(growth) <= exact_g.clone() * (1.0 + 1e-13) + ulps);
        let theta = theta_bound(n, u).unwrap();
        assert!(big(theta) >= exact_g && theta <= g);
    }
    // n u >= 1 in exact arithmetic: refused; (1 + u)^n - 1 remains, +inf if it
    // exceeds the f64 range (never below the true value).
    assert!(gamma_value(1 << 52, p2(-52)).is_err());
    assert!(gamma_value(u64::MAX, p2(-64)).is_err()); // n u = 1 - 2^-64, n rounded up
    assert_eq!(product_growth(u64::MAX, 0.5).unwrap(), f64::INFINITY);
    assert_eq!(theta_bound(u64::MAX, 0.5).unwrap(), f64::INFINITY);
    for bad in [
        0.0,
        -0.0,
        1.0,
        -1e-3,
        f64::NAN,
        f64::INFINITY,
        -f64::MIN_POSITIVE,
    ] {
        assert!(matches!(
            gamma_value(5, bad),
            Err(VerifyError::InvalidParameter { .. })
        ));
        assert!(product_growth(5, bad).is_err() && theta_bound(5, bad).is_err());
    }
}

// ---------------------------------------------------------------------------
// The binomial test, exactly.

/// `P[Bin(n, q) = j]` for j = 0..=n in MPFR (4096 bits: exact for the test's purposes).
fn pmfs(n: u64, q: &Float) -> Vec<Float> {
    let one_minus = big(1.0) - q;
    (0..=n)
        .map(|j| {
            let c = Integer::from(Integer::binomial_u(n as u32, j as u32));
            let mut a = q.clone();
            a.pow_assign(j as u32);
            let mut b = one_minus.clone();
            b.pow_assign((n - j) as u32);
            Float::with_val(PREC, c) * a * b
        })
        .collect()
}

/// For a claim `p` the true violation rate is `1 - p` (real); for every
/// count `k` the verdict must be "consistent" when `P[Bin(n, 1 - p) >= k]
/// >= 1 - c` and "rejected" when it is below `(1 - c)(1 - 1e-9)`; the
/// probability of rejecting a TRUE claim (computed exactly, summing the pmf
/// over the rejected counts) is then at most `1 - c`, and rejection is
/// monotone in `k`.
#[test]
fn judgement_size_is_at_most_the_significance_exactly() {
    let cases: [(u64, f64, f64); 10] = [
        (1, 0.99, 0.99),
        (7, 0.5, 0.95),
        (60, 0.9, 0.9),
        (200, 0.99, 0.999),
        (300, 0.999_999, 0.95),
        (300, 0.75, 0.999_999),
        (400, 0.999, 0.99),
        (123, 1.0 - 1e-12, 0.5),
        (50, 1e-300, 0.99),
        (250, 0.3, 0.9),
    ];
    for (n, p, c) in cases {
        let q = big(1.0) - big(p);
        let pm = pmfs(n, &q);
        let alpha = big(1.0) - big(c);
        let mut tail = big(0.0);
        let mut tails = vec![big(0.0); n as usize + 2];
        for k in (0..=n as usize).rev() {
            tail += &pm[k];
            tails[k] = tail.clone();
        }
        let mut size = big(0.0);
        let mut rejected_before = false;
        for k in 0..=n {
            let v = judge_violations(k, n, p, c).unwrap();
            let t = &tails[k as usize];
            if *t >= alpha {
                assert!(v.consistent, "n {n} p {p} c {c} k {k}: tail {t} >= 1 - c");
            }
            if *t < alpha.clone() * (1.0 - 1e-9) {
                assert!(!v.consistent, "n {n} p {p} c {c} k {k}: tail {t} < 1 - c");
            }
            // The computed p-value is the tail (relative 1e-10 here).
            assert!(
                (big(v.p_value) - t).abs() <= t.clone() * 1e-10 + 1e-300,
                "p-value n {n} p {p} k {k}: {} vs {t}",
                v.p_value
            );
            if rejected_before {
                assert!(!v.consistent, "rejection not monotone at n {n} p {p} k {k}");
            }
            if !v.consistent {
                rejected_before = true;
                size += &pm[k as usize];
            }
        }
        assert!(size <= alpha, "size {size} > {alpha} at n {n} p {p} c {c}");
    }
}

/// `binomial_tail` against the MPFR sums at the count edges (k = 0, 1, n,
/// n - 1) and q at 0, 1 and subnormal.
#[test]
fn binomial_tail_at_the_edges() {
    for n in [1u64, 2, 17, 300] {
        for q in [0.0, 1.0, f64::from_bits(1), 1e-200, 0.5, 1.0 - f64::EPSILON] {
            let pm = pmfs(n, &big(q));
            for k in [0, 1, n - 1, n] {
                let exact: Float = pm[k as usize..].iter().fold(big(0.0), |s, t| s + t);
                let got = binomial_tail(k, n, q).unwrap();
                let tol = exact.clone() * 1e-12 + 1e-320; // below the subnormals: 0
                assert!(
                    (big(got) - &exact).abs() <= tol,
                    "P[Bin({n}, {q:e}) >= {k}] = {got:e}, exact {}",
                    exact.to_f64()
                );
            }
        }
        assert!(binomial_tail(n + 1, n, 0.5).is_err());
        for q in [f64::NAN, -0.0 - 1e-300, 1.0 + f64::EPSILON, f64::INFINITY] {
            assert!(binomial_tail(0, n, q).is_err(), "{q}");
        }
    }
    // A claim of certainty is refuted by one violation and kept by none, at
    // any trial count; a vacuous claim is never rejected.
    for trials in [1u64, 1000, 1 << 40] {
        assert!(
            !judge_violations(1, trials, 1.0, 0.999_999)
                .unwrap()
                .consistent
        );
        assert!(judge_violations(0, trials, 1.0, 0.5).unwrap().consistent);
        let v = judge_violations(trials, trials, f64::NEG_INFINITY, 0.9).unwrap();
        assert!(v.vacuous && v.consistent && v.allowed_rate == 1.0);
    }
}

// ---------------------------------------------------------------------------
// qdot: Definition 3.1 binning of the exact products.

/// `fexp` of `a b` in MPFR under both definitions.
fn fexp_exact(a: f64, b: f64, d: Fexp) -> i32 {
    let p = (big(a) * big(b)).abs();
    let e = p.get_exp().unwrap() - 1; // floor(log2 p)
    let pow = (p.clone() >> e) == 1;
    e + i32::from(d == Fexp::Paper && e < 0 && !pow)
}

#[test]
fn product_binning_matches_mpfr_with_subnormals_and_extremes() {
    let seed = 0xb1_5e;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let special = [
        f64::from_bits(1),
        f64::from_bits(3),
        -f64::MIN_POSITIVE,
        f64::MAX,
        -1.0,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON / 2.0,
        0.75,
        0.0,
    ];
    for round in 0..300 {
        let n: usize = rng.random_range(1..40);
        let mut pick = || {
            if rng.random_range(0..4) == 0 {
                special[rng.random_range(0..special.len())]
            } else {
                let bits =
                    rng.random::<u64>() & !(0x7ffu64 << 52) | (rng.random_range(0..2047u64) << 52);
                f64::from_bits(bits)
            }
        };
        let x: Vec<f64> = (0..n).map(|_| pick()).collect();
        let y: Vec<f64> = (0..n).map(|_| pick()).collect();
        for d in Fexp::ALL {
            let bins = ExponentBins::binned(&x, &y, d, Binning::Product).unwrap();
            let mut map = std::collections::BTreeMap::<i32, (u64, Float, Float)>::new();
            let mut zeros = 0;
            for (&a, &b) in x.iter().zip(&y) {
                if a == 0.0 || b == 0.0 {
                    zeros += 1;
                    assert_eq!(Binning::Product.exponent(a, b, d), None);
                    continue;
                }
                let e = fexp_exact(a, b, d);
                assert_eq!(
                    Binning::Product.exponent(a, b, d),
                    Some(e),
                    "{a:e} {b:e} {d:?}"
                );
                let scaled = Float::with_val(PREC, big(a) * big(b)) >> e;
                let entry = map.entry(e).or_insert((0, big(0.0), big(0.0)));
                entry.0 += 1;
                entry.1 += scaled.clone().abs();
                entry.2 += scaled;
            }
            assert_eq!(bins.zeros, zeros, "round {round}");
            assert_eq!(bins.n, n);
            assert_eq!(bins.bins.len(), map.len());
            for (bin, (e, (count, abs_sum, sum))) in bins.bins.iter().zip(&map) {
                assert_eq!((bin.exponent, bin.count), (*e, *count));
                assert!(big(bin.scaled_abs_sum) >= *abs_sum);
                assert!(big(bin.scaled_abs_sum) <= abs_sum.clone() * (1.0 + 1e-13));
                // Definition 3.1: every product of bin u lies in (2^(u-1), 2^(u+1)).
                assert!(bin.scaled_abs_sum <= 2.0 * *count as f64);
                let (lo, hi) = bin.scaled_sum;
                assert!(big(lo) <= *sum && *sum <= big(hi), "round {round} bin {e}");
            }
        }
    }
}
