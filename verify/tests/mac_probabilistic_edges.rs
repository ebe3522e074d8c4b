//! Edge cases of the MAC-level bounds (`bounds::tc::fma`), the probabilistic
//! primitives (`bounds::probabilistic`) and the qdot parameter selection
//! (`bounds::qdot::selection`), on inputs the other suites do not reach:
//!
//! - `mac_rigorous` against the exact error (MPFR, every step rounded by
//!   `Format::round_float` from the exact value) where underflow decides:
//!   operands aimed at the subnormal range of every format in the chain,
//!   fp64's own subnormals, formats without subnormals (flush to the nearest
//!   of 0 and 2^emin), e5m2, cancelling `c`, and values next to the overflow
//!   threshold;
//! - `p_b`, the paired `gamma~` and Higham-Mary's bound at extreme parameters
//!   (`n` up to `u64::MAX`, `u` down to the smallest subnormal and up to the
//!   largest `f64` below 1, huge `lambda`) against the printed formulas
//!   evaluated in MPFR: values never below, probabilities never above;
//! - the hypotheses of Lemmas 3.4-3.6 and (6) on `Roundoffs` built directly
//!   (its fields are public), which must not yield negative or NaN bounds.

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::Kind;
use boundgate_verify::bounds::probabilistic::{
    bhola_lambda, bhola_pb, higham_mary_gamma, higham_mary_lambda, uniform_log_mean_abs,
    vibea_gamma,
};
use boundgate_verify::bounds::qdot::{bin_score, floor_log2_tolerance, precision_3_9, thm_3_6};
use boundgate_verify::bounds::tc::{
    GammaTilde, MacStep, MacSteps, Roundoffs, lemma_3_4, lemma_3_4_eq6, lemma_3_5, lemma_3_6,
    mac_rigorous,
};
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use rug::float::Round;
use rug::ops::Pow;

/// Enough bits for `a b + c` exactly with `f64` operands (exponents from
/// -2148 to 2048 and 106-bit products).
const EXACT: u32 = 4400;
const PREC: u32 = 400;

fn exact(x: f64) -> Float {
    Float::with_val(EXACT, x)
}

// ---------------------------------------------------------------- mac_rigorous

/// The MAC of `steps`, every rounding applied by `round_float` to the exact
/// value of its operation (an independent path from `Format::fma`/`add`/`mul`).
fn compute_exactly(steps: &MacSteps, a: f64, b: f64, c: f64) -> f64 {
    let cast = |x: f64, s: Option<MacStep>| s.map_or(x, |s| s.format.round(x, s.mode));
    let (a, b, c) = (
        cast(a, steps.cast_ab),
        cast(b, steps.cast_ab),
        cast(c, steps.cast_c),
    );
    let product = Float::with_val(EXACT, &exact(a) * &exact(b));
    let p = match steps.product {
        None => product,
        Some(s) => exact(s.format.round_float(&product, s.mode)),
    };
    let sum = Float::with_val(EXACT, &p + &exact(c));
    let acc = steps.accumulate;
    let d = acc.format.round_float(&sum, acc.mode);
    steps
        .output
        .map_or(d, |o| o.format.round_float(&exact(d), o.mode))
}

fn formats() -> Vec<Format> {
    vec![
        Format::FP16,
        Format::FP16.without_subnormals(),
        Format::BF16,
        Format::BF16.without_subnormals(),
        Format::TF32,
        Format::FP32,
        Format::FP32.without_subnormals(),
        Format::E5M2,
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
        Format::FP64,
    ]
}

fn random_steps(rng: &mut ChaCha8Rng, formats: &[Format]) -> MacSteps {
    let step = |rng: &mut ChaCha8Rng| MacStep {
        format: formats[rng.random_range(0..formats.len())],
        mode: RoundingMode::ALL[rng.random_range(0..4usize)],
    };
    let maybe = |rng: &mut ChaCha8Rng| {
        if rng.random_range(0..2u32) == 0 {
            None
        } else {
            Some(step(rng))
        }
    };
    let cast_ab = maybe(rng);
    let cast_c = maybe(rng);
    let product = maybe(rng);
    let output = maybe(rng);
    MacSteps {
        cast_ab,
        cast_c,
        product,
        accumulate: step(rng),
        output,
    }
}

/// A significand in [1, 2): full, or with few bits (ties and exact cases).
fn significand(rng: &mut ChaCha8Rng) -> f64 {
    let bits = [1u32, 2, 3, 12, 25, 53][rng.random_range(0..6usize)];
    let m = rng.random_range(0..(1u64 << (bits - 1)));
    1.0 + m as f64 * 2f64.powi(1 - bits as i32)
}

/// An exponent aimed at a threshold of one of the formats of `steps`: the
/// bottom of its subnormals, its `emin`, its `emax`, or 0.
fn target_exponent(rng: &mut ChaCha8Rng, steps: &MacSteps) -> i32 {
    let mut used = vec![steps.accumulate.format];
    used.extend(
        [steps.cast_ab, steps.cast_c, steps.product, steps.output]
            .into_iter()
            .flatten()
            .map(|s| s.format),
    );
    let f = used[rng.random_range(0..used.len())];
    let p = f.precision() as i32;
    let centre = match rng.random_range(0..4u32) {
        0 => f.emin() - p,
        1 => f.emin(),
        2 => f.emax(),
        _ => 0,
    };
    centre + rng.random_range(-3..=3)
}

fn signed(rng: &mut ChaCha8Rng, x: f64) -> f64 {
    if rng.random_range(0..2u32) == 0 {
        x
    } else {
        -x
    }
}

/// A random signed value with exponent `e`.
fn value(rng: &mut ChaCha8Rng, e: i32) -> f64 {
    let m = significand(rng);
    signed(rng, m * 2f64.powi(e))
}

fn random_mac_inputs(rng: &mut ChaCha8Rng, steps: &MacSteps) -> (f64, f64, f64) {
    // The product aims at a threshold: a and b split its exponent.
    let e = target_exponent(rng, steps);
    let ea = e.div_euclid(2) + rng.random_range(-2..=2);
    let eb = e - ea;
    let a = value(rng, ea);
    let b = value(rng, eb);
    let c = match rng.random_range(0..3u32) {
        0 => 0.0,
        // Cancelling: c near -a b.
        1 => -(a * b) * (1.0 + rng.random_range(-8..=8) as f64 * 2f64.powi(-12)),
        _ => {
            let e = target_exponent(rng, steps);
            value(rng, e)
        }
    };
    (a, b, c)
}

/// `mac_rigorous` against the exact error of the MAC it describes, on
/// operands aimed at the underflow and overflow thresholds of every format in
/// the chain (fp64 subnormals, flush-to-nearest formats without subnormals,
/// fp8), every rounding mode.
#[test]
fn mac_rigorous_holds_at_the_underflow_and_overflow_thresholds() {
    let formats = formats();
    let mut rng = ChaCha8Rng::seed_from_u64(0x6d61_6372);
    let (mut checked, mut underflowing) = (0u32, 0u32);
    for _ in 0..60_000 {
        let steps = random_steps(&mut rng, &formats);
        let (a, b, c) = random_mac_inputs(&mut rng, &steps);
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            continue;
        }
        let Ok(bound) = mac_rigorous(&steps, a, b, c) else {
            continue;
        };
        let d = compute_exactly(&steps, a, b, c);
        assert!(
            d.is_finite(),
            "{steps:?} {a:e} {b:e} {c:e}: overflow not refused"
        );
        let z = Float::with_val(EXACT, &exact(a) * &exact(b)) + exact(c);
        let err = Float::with_val(EXACT, exact(d) - &z).abs();
        assert!(
            err <= bound.value,
            "{steps:?} a={a:e} b={b:e} c={c:e}: d={d:e}, error {} > bound {:e}",
            err.to_f64(),
            bound.value
        );
        checked += 1;
        // Count the cases where eq. (3) alone (no underflow term) fails.
        let u_only = {
            let rel = |s: Option<MacStep>| s.map_or(0.0, |s| s.format.unit_roundoff(s.mode));
            let g = rel(steps.cast_ab)
                + rel(steps.cast_c)
                + rel(steps.product)
                + steps.accumulate.format.unit_roundoff(steps.accumulate.mode)
                + rel(steps.output);
            // A generous first-order relative bound: 4 g (|a b| + |c|).
            4.0 * g * (a.abs() * b.abs() + c.abs())
        };
        if err > u_only {
            underflowing += 1;
        }
    }
    // The generator must reach the inputs the test is about.
    assert!(checked > 20_000, "{checked}");
    assert!(underflowing > 1_000, "{underflowing} of {checked}");
}

/// fp64 accumulation of products in fp64's own subnormal range (the
/// underflow term is 2^-1074, not 2^-1075: the half is not an f64).
#[test]
fn mac_rigorous_covers_fp64_subnormal_results() {
    let steps = MacSteps {
        cast_ab: None,
        cast_c: None,
        product: Some(MacStep::nearest(Format::FP64)),
        accumulate: MacStep::nearest(Format::FP64),
        output: None,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1074);
    for _ in 0..20_000 {
        let (ea, eb) = (rng.random_range(-545..=-530), rng.random_range(-545..=-530));
        let ec = rng.random_range(-1074..=-1060);
        let (a, b, c) = (
            value(&mut rng, ea),
            value(&mut rng, eb),
            value(&mut rng, ec),
        );
        let bound = mac_rigorous(&steps, a, b, c).unwrap();
        let d = compute_exactly(&steps, a, b, c);
        let z = Float::with_val(EXACT, &exact(a) * &exact(b)) + exact(c);
        let err = Float::with_val(EXACT, exact(d) - &z).abs();
        assert!(err <= bound.value, "{a:e} {b:e} {c:e}");
    }
}

/// No overflow is hidden: a MAC whose rounding may overflow (or saturate) is
/// refused, including at exactly the largest finite value plus one ulp of
/// the sum.
#[test]
fn mac_rigorous_refuses_every_possible_overflow() {
    for f in formats() {
        let max = f.max_finite();
        let fma = MacSteps {
            cast_ab: None,
            cast_c: None,
            product: None,
            accumulate: MacStep::nearest(f),
            output: None,
        };
        // The exact sum is the largest finite value: no overflow.
        assert!(mac_rigorous(&fma, max, 1.0, 0.0).is_ok(), "{f}");
        assert!(matches!(
            mac_rigorous(&fma, max, 2.0, 0.0),
            Err(VerifyError::HypothesisNotMet { .. })
        ));
        assert!(matches!(
            mac_rigorous(&fma, max, 1.0, max),
            Err(VerifyError::HypothesisNotMet { .. })
        ));
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                mac_rigorous(&fma, x, 1.0, 0.0),
                Err(VerifyError::NonFinite { .. })
            ));
            assert!(matches!(
                mac_rigorous(&fma, 1.0, 1.0, x),
                Err(VerifyError::NonFinite { .. })
            ));
        }
    }
}

// ---------------------------------------------------------------- Lemmas 3.4-3.6 on raw Roundoffs

/// `Roundoffs` has public fields, so a value that `Roundoffs::new` refuses
/// can still reach the MPFMA lemmas. Before the fix, Lemma 3.4 (eq. (5))
/// returned a NEGATIVE bound for `u_bar = -2^-10, u_FMA = -2^-11` (its other
/// hypotheses, `u~ <= u_high`, `u~ <= u_low^2`, `u_FMA >= u_bar`, all pass),
/// Lemma 3.5 a negative coefficient of `|c|` for `u_high = u~ = -1`, and
/// (6) NaN for `u = +inf` and `a = b = c = 0`. Every unit roundoff of Bhola
/// and Duraisamy's Table 2 lies in (0, 1) (u = 1/2 beta^(1-p), eq. (3)).
#[test]
fn mpfma_lemmas_refuse_invalid_roundoffs() {
    let good = Roundoffs::table2_fp32();
    let negative_bar = Roundoffs {
        u_bar: -(2f64.powi(-10)),
        u_fma: -(2f64.powi(-11)),
        ..good
    };
    let negative_high = Roundoffs {
        u_high: -1.0,
        u_tilde: -1.0,
        ..good
    };
    let nan_low = Roundoffs {
        u_low: f64::NAN,
        ..good
    };
    let inf = Roundoffs {
        u_low: f64::INFINITY,
        u_high: f64::INFINITY,
        u_tilde: f64::INFINITY,
        u_bar: f64::INFINITY,
        u_fma: f64::INFINITY,
    };
    let invalid =
        |r: Result<_, VerifyError>| matches!(r, Err(VerifyError::InvalidParameter { .. }));
    for r in [negative_bar, negative_high, nan_low, inf] {
        assert!(invalid(lemma_3_4(&r, 1.0, 1.0, 1.0)), "{r:?}");
        assert!(invalid(lemma_3_4(&r, 0.0, 0.0, 0.0)), "{r:?}");
        assert!(
            invalid(lemma_3_5(&r, 2f64.powi(-60), 1.0, 1.0, 1.0)),
            "{r:?}"
        );
        assert!(
            invalid(lemma_3_6(
                &r,
                2f64.powi(-60),
                2.0,
                GammaTilde::Paired,
                1.0,
                1.0,
                1.0
            )),
            "{r:?}"
        );
    }
    let negative_equal = Roundoffs {
        u_low: -0.5,
        u_high: -0.5,
        u_tilde: -0.5,
        u_bar: -0.5,
        u_fma: -0.5,
    };
    for r in [negative_equal, inf] {
        assert!(invalid(lemma_3_4_eq6(&r, 0.0, 0.0, 0.0)), "{r:?}");
        assert!(invalid(lemma_3_4_eq6(&r, 1.0, 1.0, 1.0)), "{r:?}");
    }
    // Valid roundoffs are unaffected.
    assert!(lemma_3_4(&good, 1.0, 1.0, 1.0).unwrap().value > 0.0);
}

/// Eq. (6) is Lemma 3.4's special case and keeps its hypothesis that the
/// product is exact in `t~` (Bhola and Duraisamy, §3.2.1, proof of Lemma
/// 3.4: "assume that the significand of the product a x b can be entirely
/// represented by ... t~"; then "there is only a single rounding"). It was
/// not checked: with every unit roundoff 2^-11 (an fp16 MAC whose product is
/// rounded to fp16, two roundings) (6) was returned and is violated by the
/// correctly rounded result. `a = 1 + 2^-10`, `b = 1 - 2^-11`: `a b = 1 +
/// 2^-11 - 2^-21` rounds to 1; `1 + c = 1 + 2^-11` is a tie, rounds to 1;
/// the exact `1 + 2^-10 - 2^-21` is missed by about `2 u`, twice (6).
#[test]
fn eq6_needs_the_exact_product_of_lemma_3_4() {
    let rne = RoundingMode::NearestEven;
    let fp16 = Format::FP16;
    let (a, b, c) = (1.0 + 2f64.powi(-10), 1.0 - 2f64.powi(-11), 2f64.powi(-11));
    let d = fp16.add(fp16.mul(a, b, rne), c, rne);
    assert_eq!(d, 1.0);
    let z = Float::with_val(EXACT, &exact(a) * &exact(b)) + exact(c);
    let err = Float::with_val(EXACT, exact(d) - &z).abs();
    let u16 = fp16.unit_roundoff(rne);
    let all16 = Roundoffs::of_formats([fp16; 5], rne).unwrap();
    assert_eq!(all16, Roundoffs::new(u16, u16, u16, u16, u16).unwrap());
    // What (6) would give: u (|a||b| + |c|), below the error.
    let printed = u16 * (a * b + c);
    assert!(err > printed * 1.9, "{} vs {printed:e}", err.to_f64());
    match lemma_3_4_eq6(&all16, a, b, c) {
        Err(VerifyError::HypothesisNotMet { .. }) => {}
        other => panic!("(6) without an exact product: {other:?}"),
    }
    // Lemma 3.4 itself refuses the same roundoffs, for the same reason.
    assert!(matches!(
        lemma_3_4(&all16, a, b, c),
        Err(VerifyError::HypothesisNotMet { .. })
    ));
    // The rigorous step-by-step bound holds.
    let steps = MacSteps {
        cast_ab: None,
        cast_c: None,
        product: Some(MacStep::nearest(fp16)),
        accumulate: MacStep::nearest(fp16),
        output: None,
    };
    assert!(err <= mac_rigorous(&steps, a, b, c).unwrap().value);
    // Where the product is exact (Table 2, fp16 inputs, fp32 everything
    // else) (6) is still given, and holds on the fused computation.
    let r = Roundoffs::table2_fp32();
    let d32 = Format::FP32.fma(a, b, c, rne);
    let err32 = Float::with_val(EXACT, exact(d32) - &z).abs();
    assert!(err32 <= lemma_3_4_eq6(&r, a, b, c).unwrap().value);
}

// ---------------------------------------------------------------- probabilistic primitives

fn big(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// `Var[log(1 + delta)] / u^2` for `delta ~ U[-u, u]` by its series
/// `sum_{j>=1} c_j u^(2j-2)` (independent of the closed form), at `PREC`
/// bits; only for `u <= 2^-4`.
fn variance_ratio_series(u: f64) -> Float {
    // E[log(1+d)^2] and E[log(1+d)] as power series in u, from
    // log(1+d) = sum_k (-1)^(k+1) d^k / k and E[d^(2m)] = u^(2m) / (2m + 1).
    let terms = 400usize;
    let uf = big(u);
    // Coefficients of log(1+d): l_k = (-1)^(k+1)/k.
    let l = |k: usize| -> Float {
        let v = Float::with_val(PREC, 1) / Float::with_val(PREC, k as u32);
        if k.is_multiple_of(2) { -v } else { v }
    };
    // E[log(1+d)] = sum over even k of l_k u^k / (k+1).
    let mut mean = Float::with_val(PREC, 0);
    let mut second = Float::with_val(PREC, 0);
    for k in (2..terms).step_by(2) {
        let uk = Float::with_val(PREC, uf.clone().pow(k as u32));
        mean += l(k) * &uk / Float::with_val(PREC, (k + 1) as u32);
    }
    // E[log(1+d)^2] = sum_{i,j>=1, i+j even} l_i l_j u^(i+j) / (i+j+1).
    for s in (2..terms).step_by(2) {
        let mut coef = Float::with_val(PREC, 0);
        for i in 1..s {
            coef += l(i) * l(s - i);
        }
        let us = Float::with_val(PREC, uf.clone().pow(s as u32));
        second += coef * us / Float::with_val(PREC, (s + 1) as u32);
    }
    let var = second - Float::with_val(PREC, mean.square_ref());
    var / Float::with_val(PREC, uf.square_ref())
}

/// `p_b` as printed with `sigma^2 = n u^2 r`, `r` supplied, at `PREC` bits.
fn pb_exact(lambda: f64, u: f64, n: u64, r: &Float) -> Float {
    let (l, uf, nf) = (big(lambda), big(u), Float::with_val(PREC, n));
    let u2 = Float::with_val(PREC, uf.square_ref());
    let sigma2 = Float::with_val(PREC, &nf * &u2) * r;
    let sqrt_n = Float::with_val(PREC, nf.sqrt_ref());
    let range = Float::with_val(PREC, &l * sqrt_n) * &u2 / (Float::with_val(PREC, 1 - &uf) * 3u32);
    let e = Float::with_val(PREC, l.square_ref()) * &nf * &u2 / ((sigma2 + range) * 2u32);
    1 - 2 * (-e).exp()
}

/// `p_b` and the paired `gamma~` at the extremes of `n`, `u` and `lambda`:
/// the probability never above the printed one, the constant never below
/// `exp(lambda sqrt(n) u + n |mu|) - 1`, no NaN, no panic.
#[test]
fn pb_and_paired_gamma_are_conservative_at_extreme_parameters() {
    let units = [
        2f64.powi(-4),
        2f64.powi(-11),
        2f64.powi(-24),
        2f64.powi(-53),
        0.1 / 1024.0,
        2f64.powi(-200),
    ];
    let ns = [1u64, 2, 3, 1 << 40, u64::MAX - 1, u64::MAX];
    let lambdas = [0.0, 1e-300, 0.5, 3.0, 1e6, 1e150, 1e300];
    for &u in &units {
        let r = variance_ratio_series(u);
        // |mu| / u^2 by its series sum_j u^(2j-2) / (2j (2j + 1)).
        let mut mu_ratio = Float::with_val(PREC, 0);
        for j in 1..200u32 {
            mu_ratio += Float::with_val(PREC, big(u).pow(2 * j - 2))
                / Float::with_val(PREC, 2 * j * (2 * j + 1));
        }
        for &n in &ns {
            for &lambda in &lambdas {
                let what = format!("u {u:e} n {n} lambda {lambda:e}");
                let p = bhola_pb(lambda, u, n).unwrap();
                // A lower bound of a number in [-1, 1]; a tiny lambda whose
                // square underflows may give slightly below -1 (conservative).
                assert!(
                    p.is_finite() && (-1.0 - 1e-15..=1.0).contains(&p),
                    "{what}: {p}"
                );
                let exact_p = pb_exact(lambda, u, n, &r);
                assert!(
                    exact_p >= p,
                    "{what}: p_b {p} > printed {}",
                    exact_p.to_f64()
                );
                let g = vibea_gamma(n, u, lambda).unwrap();
                let Kind::Probabilistic { probability } = g.kind else {
                    panic!("{what}")
                };
                assert_eq!(probability.to_bits(), p.to_bits(), "{what}");
                let (uf, nf) = (big(u), Float::with_val(PREC, n));
                let t = big(lambda) * Float::with_val(PREC, nf.sqrt_ref()) * &uf;
                let drift =
                    Float::with_val(PREC, &nf * Float::with_val(PREC, uf.square_ref())) * &mu_ratio;
                let want = Float::with_val(PREC, t + drift).exp_m1();
                assert!(
                    !g.value.is_nan() && want <= g.value,
                    "{what}: {:e} < {}",
                    g.value,
                    want.to_f64()
                );
            }
        }
        // Where the series are exact to PREC bits, the computed ratios are tight.
        let m = uniform_log_mean_abs(u).unwrap();
        let m_want = mu_ratio * Float::with_val(PREC, big(u).square_ref());
        assert!(m_want <= m, "|mu| at u {u:e}");
    }
}

/// `lambda` from a target probability at extreme `n` and `u`: `p_b` and
/// Higham-Mary's `P` evaluated exactly at the returned `lambda` reach the
/// target (rounded up, never short).
#[test]
fn lambdas_reach_their_target_exactly_at_extremes() {
    for u in [
        2f64.powi(-4),
        2f64.powi(-11),
        2f64.powi(-53),
        2f64.powi(-200),
    ] {
        let r = variance_ratio_series(u);
        for n in [1u64, 7, 1 << 52, u64::MAX] {
            for target in [0.0, 0.5, 0.99, 1.0 - 2f64.powi(-40), 1f64.next_down()] {
                let lambda = bhola_lambda(target, u, n).unwrap();
                assert!(lambda.is_finite() && lambda > 0.0);
                let p = pb_exact(lambda, u, n, &r);
                assert!(p >= target, "u {u:e} n {n} target {target}: {}", p.to_f64());
            }
        }
        for target in [0.0, 0.9, 1f64.next_down()] {
            let lambda = higham_mary_lambda(target, u).unwrap();
            let a = Float::with_val(PREC, big(lambda) * Float::with_val(PREC, 1 - big(u)));
            let p = 1 - 2 * Float::with_val(PREC, -(a.square() / 2u32)).exp();
            assert!(p >= target, "HM u {u:e} target {target}");
        }
    }
}

/// Higham-Mary's Theorem 2.4 at extreme parameters: value never below
/// `exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1`, probability never above
/// `1 - 2 exp(-lambda^2 (1 - u)^2 / 2)`, including `u` close to 1, tiny `u`
/// (whose `u^2` underflows in f64) and `n = u64::MAX`.
#[test]
fn higham_mary_is_conservative_at_extreme_parameters() {
    for u in [
        1f64.next_down(),
        0.75,
        2f64.powi(-11),
        2f64.powi(-600),
        f64::from_bits(1),
    ] {
        for n in [0u64, 1, 1 << 53, u64::MAX] {
            for lambda in [1e-300, 1e-160, 0.5, 4.0, 1e200] {
                let what = format!("u {u:e} n {n} lambda {lambda:e}");
                let b = higham_mary_gamma(n, u, lambda).unwrap();
                let Kind::Probabilistic { probability } = b.kind else {
                    panic!("{what}")
                };
                let (uf, nf, l) = (big(u), Float::with_val(PREC, n), big(lambda));
                let one_minus_u = Float::with_val(PREC, 1 - &uf);
                let e = Float::with_val(PREC, &l * Float::with_val(PREC, nf.sqrt_ref())) * &uf
                    + Float::with_val(PREC, &nf * Float::with_val(PREC, uf.square_ref()))
                        / &one_minus_u;
                let value = e.exp_m1();
                assert!(!b.value.is_nan() && value <= b.value, "{what}");
                let a = l * one_minus_u;
                let p = 1 - 2 * Float::with_val(PREC, -(a.square() / 2u32)).exp();
                assert!(
                    p >= probability && probability >= -1.0,
                    "{what}: {probability}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------- qdot selection

/// (3.10) and (3.9) as printed, on the integer scores: the precision chosen
/// for a bin makes `M_k 2^(u_k - e_max + 1) eps(k) <= eps` (the inequality
/// (3.13) the proof of Theorem 3.5 needs), exactly in rationals, whenever the
/// ladder has a level with that many bits; and perforation happens only when
/// `M_k 2^(u_k - e_max + 1) <= eps` (eps(k) = 1).
#[test]
fn precision_3_9_meets_3_13_exactly() {
    let ladder = [8u32, 11, 24, 53];
    let mut rng = ChaCha8Rng::seed_from_u64(313);
    for _ in 0..20_000 {
        let eps = significand(&mut rng) * 2f64.powi(rng.random_range(-70..=10));
        let count = rng.random_range(1..=100_000u64);
        let e_max = rng.random_range(-50..=50i64);
        let exponent = e_max - rng.random_range(0..=90i64);
        let floor = floor_log2_tolerance(eps, 1).unwrap();
        let score = bin_score(count, exponent, e_max, floor);
        let level = precision_3_9(score, &ladder).unwrap();
        // Left side of (3.13) over eps, in exact rationals (PREC-bit floats
        // hold these powers of two and integers exactly).
        let lhs = |bits: i64| {
            Float::with_val(PREC, count)
                * Float::with_val(PREC, Float::i_exp(1, (exponent - e_max + 1 - bits) as i32))
        };
        match level {
            None => assert!(
                lhs(0) <= eps,
                "perforated: M {count} u {exponent} e_max {e_max} eps {eps:e}"
            ),
            Some(i) => {
                let bits = i64::from(ladder[i]);
                if score < bits {
                    assert!(
                        lhs(bits) <= eps,
                        "M {count} u {exponent} e_max {e_max} eps {eps:e}"
                    );
                } else {
                    // Beyond the ladder: (3.9) has no case, the input precision is used.
                    assert_eq!(i, ladder.len() - 1);
                }
            }
        }
    }
}

/// Theorem 3.6 at its edge: `e_max - e_min = -floor(log2 eps) - mu^` exits
/// early, one more does not, and (3.9) gives the input level to a
/// one-element bin at `e_min` in both cases: the theorem is sufficient with
/// one exponent of slack (its proof drops the `+ 1` of (3.10)); two more
/// and the bin at `e_min` drops a level.
#[test]
fn thm_3_6_is_sufficient_with_one_exponent_of_slack() {
    let ladder = [11u32, 24, 53];
    for eps_exp in -60..-30 {
        let eps = 1.5 * 2f64.powi(eps_exp);
        let floor = floor_log2_tolerance(eps, 1).unwrap();
        assert_eq!(floor, i64::from(eps_exp));
        let e_min = -7;
        let e_max = e_min + (-floor - 24);
        assert!(thm_3_6(e_min, e_max, floor, 24));
        assert!(!thm_3_6(e_min, e_max + 1, floor, 24));
        let level = |e_max: i64| precision_3_9(bin_score(1, e_min, e_max, floor), &ladder).unwrap();
        assert_eq!(level(e_max), Some(2));
        assert_eq!(level(e_max + 1), Some(2));
        assert_eq!(level(e_max + 2), Some(1));
    }
}

/// `Float::to_f64_round` is used by the probabilistic module for every
/// directed result, subnormals included: check that rounding up never lands
/// below the value where the result is subnormal.
#[test]
fn mpfr_directed_conversion_to_subnormal_f64_is_directed() {
    for k in [1u32, 3, 5, 7, 100] {
        let x = Float::with_val(PREC, Float::i_exp(k as i32 * 2 + 1, -1080));
        let up = x.to_f64_round(Round::Up);
        let down = x.to_f64_round(Round::Down);
        assert!(big(up) >= x && big(down) <= x, "{k}");
    }
}

/// `floor(log2(eps / d))` at the ends of both ranges (the smallest subnormal
/// and the largest `f64`, `d` up to `u64::MAX`, where the shifted divisor
/// needs more than 64 bits): `d 2^k <= eps < d 2^(k+1)` exactly.
#[test]
fn floor_log2_tolerance_is_exact_at_the_extremes() {
    let epss = [
        f64::from_bits(1),
        f64::from_bits(3),
        f64::MIN_POSITIVE,
        1.0,
        1.0f64.next_down(),
        f64::MAX,
    ];
    let divisors = [1u64, 2, 3, (1 << 53) + 1, u64::MAX - 1, u64::MAX];
    for &eps in &epss {
        for &d in &divisors {
            let k = floor_log2_tolerance(eps, d).unwrap();
            let pow = |k: i64| Float::with_val(EXACT, Float::i_exp(1, k as i32));
            let df = Float::with_val(EXACT, d);
            let e = exact(eps);
            assert!(
                Float::with_val(EXACT, &df * pow(k)) <= e,
                "{eps:e} / {d}: {k}"
            );
            assert!(
                Float::with_val(EXACT, &df * pow(k + 1)) > e,
                "{eps:e} / {d}: {k}"
            );
        }
    }
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            floor_log2_tolerance(bad, 1),
            Err(VerifyError::InvalidParameter { .. })
        ));
    }
    assert!(matches!(
        floor_log2_tolerance(1.0, 0),
        Err(VerifyError::InvalidParameter { .. })
    ));
}

/// `Roundoffs::of_formats` keeps the theorems' exactness test honest: in every
/// mode and for every pair of precisions, when it returns roundoffs that pass
/// `u~ <= u_low^2`, the largest product of two `p_low`-bit significands,
/// `(2^p_low - 1)^2` (odd, `2 p_low` bits), rounds exactly into `t~`. With a
/// directed mode and `p~ = 2 p_low - 1` it used to pass the test and round
/// (review, 2026-11-29).
#[test]
fn of_formats_never_reads_an_inexact_product_as_exact() {
    let format = |p: u32| Format::custom(p, -1000, 1000, true, OverflowPolicy::Infinity).unwrap();
    for mode in RoundingMode::ALL {
        for p_low in 2..=26u32 {
            for p_tilde in p_low..=53 {
                let (low, tilde) = (format(p_low), format(p_tilde));
                let r = match Roundoffs::of_formats([low, tilde, tilde, tilde, tilde], mode) {
                    Ok(r) => r,
                    Err(VerifyError::InvalidParameter { .. }) => {
                        assert!(
                            mode.is_directed() && p_tilde == 2 * p_low - 1,
                            "{mode:?} {p_low} {p_tilde}"
                        );
                        continue;
                    }
                    Err(e) => panic!("{mode:?} {p_low} {p_tilde}: {e}"),
                };
                if r.u_tilde <= r.u_low * r.u_low {
                    let m = (1u64 << p_low) - 1;
                    let product = Float::with_val(128, m) * Float::with_val(128, m);
                    let rounded = Float::with_val(p_tilde, &product);
                    assert_eq!(rounded, product, "{mode:?}: p_low {p_low}, p~ {p_tilde}");
                }
            }
        }
    }
}
