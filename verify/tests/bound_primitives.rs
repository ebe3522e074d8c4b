//! The bound primitives: gamma_n (Higham 2002, Lemma 3.1), Higham-Mary's
//! gamma~_n(lambda) (2019, Theorem 2.4), and Bhola-Duraisamy's sigma^2, p_b
//! and the three constants paired with p_b (Lemma 2.2). Checked against exact
//! or 300-bit MPFR values (the returned numbers must be upper bounds, one or
//! two ulps tight), against an independent quadrature (sigma^2), and shown in
//! an insta snapshot.

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::gamma::{gamma, gamma_for_format, gamma_value};
use boundgate_verify::bounds::probabilistic::{
    bhola_lambda, bhola_pb, bhola_sigma2, higham_mary_gamma, higham_mary_lambda,
    uniform_log_mean_abs, vibea_gamma, vibea_gamma_authors_centred, vibea_gamma_first_order,
    vibea_range_bound,
};
use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor};
use boundgate_verify::format::{Format, RoundingMode};
use proptest::prelude::*;
use rug::{Float, Rational};
use std::fmt::Write;

const PREC: u32 = 300;

fn big(x: f64) -> Float {
    Float::with_val(PREC, x)
}

fn probability(b: &Bound) -> f64 {
    match b.kind {
        Kind::Probabilistic { probability } => probability,
        Kind::Deterministic => panic!("expected a probabilistic bound: {b:?}"),
    }
}

/// `got` is an upper bound of `exact` and at most `ulps` ulps above it.
fn assert_tight_upper(got: f64, exact: &Float, ulps: u32, what: &str) {
    assert!(*exact <= got, "{what}: {got:e} is below the exact {exact}");
    let mut limit = exact.to_f64_round(rug::float::Round::Up);
    for _ in 0..ulps {
        limit = limit.next_up();
    }
    assert!(
        got <= limit,
        "{what}: {got:e} is more than {ulps} ulps above {exact}"
    );
}

/// `got` is a lower bound of `exact` and at most `ulps` ulps below it.
fn assert_tight_lower(got: f64, exact: &Float, ulps: u32, what: &str) {
    assert!(*exact >= got, "{what}: {got:e} is above the exact {exact}");
    let mut limit = exact.to_f64_round(rug::float::Round::Down);
    for _ in 0..ulps {
        limit = limit.next_down();
    }
    assert!(
        got >= limit,
        "{what}: {got:e} is more than {ulps} ulps below {exact}"
    );
}

fn is_hypothesis_failure<T: std::fmt::Debug>(r: Result<T, VerifyError>) -> bool {
    matches!(r, Err(VerifyError::HypothesisNotMet { .. }))
}

fn is_invalid<T: std::fmt::Debug>(r: Result<T, VerifyError>) -> bool {
    matches!(r, Err(VerifyError::InvalidParameter { .. }))
}

// ---------------------------------------------------------------- gamma_n

/// gamma_n exactly, as a rational.
fn exact_gamma(n: u64, u: f64) -> Float {
    let nu = Rational::from(n) * Rational::from_f64(u).unwrap();
    let g = &nu / (Rational::from(1) - &nu);
    Float::with_val(PREC, &g)
}

proptest! {
    #[test]
    fn gamma_is_a_tight_upper_bound(n in 1u64..(1u64 << 50), p in 1i32..60, mantissa in 1.0f64..2.0) {
        let u = mantissa * 2f64.powi(-p - 1);
        let nu = Rational::from(n) * Rational::from_f64(u).unwrap();
        match gamma_value(n, u) {
            Ok(g) => {
                prop_assert!(nu < 1);
                prop_assert!(exact_gamma(n, u) <= g, "gamma_{} (u = {:e}) = {:e} is below the exact value", n, u, g);
                // Tight: at most a few ulps above gamma evaluated exactly at n u
                // rounded up (the only widening besides the final roundings).
                let nu_up = Float::with_val(PREC, &nu).to_f64_round(rug::float::Round::Up);
                let at_nu_up = Rational::from_f64(nu_up).unwrap();
                let widest = Float::with_val(PREC, &(&at_nu_up / (Rational::from(1) - &at_nu_up)));
                assert_tight_upper(g, &widest, 2, &format!("gamma_{n}(u = {u:e})"));
            }
            Err(e) => {
                // Refused only when n u rounded up reaches 1.
                prop_assert!(matches!(e, VerifyError::HypothesisNotMet { .. }), "unexpected error {}", e);
                let nu_up = Float::with_val(PREC, &nu).to_f64_round(rug::float::Round::Up);
                prop_assert!(nu_up >= 1.0, "refused with n u = {}", nu.to_f64());
            }
        }
    }
}

#[test]
fn gamma_hypothesis_is_checked_with_n_u_rounded_up() {
    let u16 = Format::FP16.unit_roundoff(RoundingMode::NearestEven);
    assert!(gamma(2047, u16).is_ok());
    let err = gamma(2048, u16).unwrap_err();
    assert!(err.to_string().contains("n u < 1"), "{err}");
    assert!(err.to_string().contains("Higham 2002, Lemma 3.1"), "{err}");
    // u = fl(1/3) < 1/3, so 3u = 1 - 2^-54 < 1 exactly; but 3u is not provably
    // below 1 in f64 (it rounds up to 1): refused rather than gamma ~ 2^54.
    let third = 1.0f64 / 3.0;
    assert!(Rational::from(3) * Rational::from_f64(third).unwrap() < 1);
    assert!(is_hypothesis_failure(gamma(3, third)));
    assert!(is_hypothesis_failure(gamma(u64::MAX, 2f64.powi(-60))));
    let b = gamma(u64::MAX, 2f64.powi(-80)).unwrap();
    assert_tight_upper(
        b.value,
        &exact_gamma(u64::MAX, 2f64.powi(-80)),
        3,
        "gamma_{2^64-1}",
    );
}

#[test]
fn gamma_rejects_invalid_unit_roundoffs_and_handles_n_zero() {
    for u in [
        0.0,
        -0.1,
        1.0,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        assert!(is_invalid(gamma(10, u)), "u = {u}");
        assert!(is_invalid(gamma_value(0, u)), "u = {u}");
    }
    let zero = gamma(0, 0.5).unwrap();
    assert_eq!(zero.value, 0.0);
    assert_eq!(
        (zero.kind, zero.quantity, zero.rigor),
        (Kind::Deterministic, Quantity::Theta, Rigor::Rigorous)
    );
}

#[test]
fn gamma_is_monotone_and_uses_the_modes_unit_roundoff() {
    let u = 2f64.powi(-24);
    let mut last = 0.0;
    for n in (0..2000u64).step_by(7) {
        let g = gamma_value(n, u).unwrap();
        assert!(g >= last);
        last = g;
    }
    for format in Format::NAMED {
        for mode in RoundingMode::ALL {
            let want = if mode.is_directed() {
                2f64.powi(1 - format.precision() as i32)
            } else {
                2f64.powi(-(format.precision() as i32))
            };
            let b = gamma_for_format(3, format, mode);
            match gamma_value(3, want) {
                Ok(v) => assert_eq!(b.unwrap().value, v, "{format} {mode}"),
                Err(_) => assert!(b.is_err(), "{format} {mode}"),
            }
        }
    }
}

// ---------------------------------------------------------------- Higham-Mary

fn exact_higham_mary(n: u64, u: f64, lambda: f64) -> (Float, Float) {
    let (u, l, nn) = (big(u), big(lambda), Float::with_val(PREC, n));
    let one_minus_u = Float::with_val(PREC, 1 - &u);
    let mut e = Float::with_val(PREC, &l * Float::with_val(PREC, nn.sqrt_ref()));
    e *= &u;
    e += Float::with_val(PREC, &nn * Float::with_val(PREC, u.square_ref())) / &one_minus_u;
    let value = e.exp_m1();
    let a = Float::with_val(PREC, &l * &one_minus_u);
    let p = 1 - 2 * (-(a.square() / 2u32)).exp();
    (value, Float::with_val(PREC, p))
}

#[test]
fn higham_mary_gamma_and_probability_are_rounded_outward() {
    for (n, u, lambda) in [
        (1u64, 2f64.powi(-53), 1.0),
        (100, 2f64.powi(-11), 3.0),
        (1 << 20, 2f64.powi(-24), 5.5),
        (10, 0.125, 0.5),
        (1000, 2f64.powi(-8), 2.0),
    ] {
        let b = higham_mary_gamma(n, u, lambda).unwrap();
        let (value, p) = exact_higham_mary(n, u, lambda);
        let what = format!("HM n={n} u={u:e} lambda={lambda}");
        assert_tight_upper(b.value, &value, 8, &what);
        assert_tight_lower(probability(&b), &p, 8, &what);
        assert_eq!((b.quantity, b.rigor), (Quantity::Theta, Rigor::Rigorous));
    }
}

#[test]
fn higham_mary_lambda_reaches_the_target_probability() {
    for u in [2f64.powi(-3), 2f64.powi(-11), 2f64.powi(-53)] {
        for target in [0.0, 0.5, 0.9, 0.99, 0.999_999] {
            let lambda = higham_mary_lambda(target, u).unwrap();
            let p = probability(&higham_mary_gamma(10, u, lambda).unwrap());
            assert!(p >= target - 1e-15, "u {u:e} target {target}: P = {p}");
            let smaller = probability(&higham_mary_gamma(10, u, lambda * (1.0 - 1e-9)).unwrap());
            assert!(smaller < target + 1e-12, "lambda is not tight: {smaller}");
        }
    }
    for bad in [-0.1, 1.0, f64::NAN] {
        assert!(is_invalid(higham_mary_lambda(bad, 0.01)), "{bad}");
    }
    for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(is_invalid(higham_mary_gamma(10, 0.01, lambda)), "{lambda}");
    }
}

// ---------------------------------------------------------------- sigma^2 and mu

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the three-term
/// recurrence; accurate to a few ulps for m <= 100).
fn gauss_legendre(m: usize) -> Vec<(f64, f64)> {
    let mut rule = Vec::with_capacity(m);
    for i in 0..m {
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (m as f64 + 0.5)).cos();
        let mut derivative = 0.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, x);
            for k in 2..=m {
                let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                p0 = p1;
                p1 = p2;
            }
            derivative = m as f64 * (x * p1 - p0) / (x * x - 1.0);
            let step = p1 / derivative;
            x -= step;
            if step.abs() < 1e-17 {
                break;
            }
        }
        rule.push((x, 2.0 / ((1.0 - x * x) * derivative * derivative)));
    }
    rule
}

/// mu = E log(1 + delta) = -sum_{j>=1} u^(2j) / (2j (2j + 1)), in f64.
fn mean_by_series(u: f64) -> f64 {
    let mut sum = 0.0;
    let mut power = u * u;
    for j in 1..200 {
        let term = power / (2.0 * j as f64 * (2.0 * j as f64 + 1.0));
        sum += term;
        if term < 1e-20 * sum {
            break;
        }
        power *= u * u;
    }
    -sum
}

/// Var[log(1 + delta)], delta ~ U[-u, u]: (1/2) int_{-1}^{1} (log1p(u x) - mu)^2 dx
/// by 40-point Gauss-Legendre, in f64 with ln_1p (independent of the closed form).
fn variance_by_quadrature(u: f64) -> f64 {
    let mu = mean_by_series(u);
    gauss_legendre(40)
        .iter()
        .map(|&(x, w)| w * ((u * x).ln_1p() - mu).powi(2))
        .sum::<f64>()
        / 2.0
}

#[test]
fn sigma2_closed_form_matches_independent_quadrature() {
    for p in [3, 8, 11, 24, 53] {
        let u = 2f64.powi(-p);
        let closed = bhola_sigma2(u, 1).unwrap();
        let quadrature = variance_by_quadrature(u);
        let rel = (closed - quadrature).abs() / quadrature;
        println!(
            "u = 2^-{p}: sigma^2/n = {closed:e} (closed form), {quadrature:e} (quadrature), relative difference {rel:e}"
        );
        assert!(rel <= 1e-12, "u = 2^-{p}: {closed:e} vs {quadrature:e}");
        for n in [1u64, 7, 1000, 1 << 40] {
            let s = bhola_sigma2(u, n).unwrap();
            assert!(
                s >= closed * n as f64 && s <= (closed * n as f64) * (1.0 + 1e-15),
                "n = {n}"
            );
        }
    }
    // mpmath (300 bits) for u = 2^-11: the closed form and mpmath.quad agree.
    let reference = Float::with_val(PREC, Float::parse("7.947286854283168159664425e-8").unwrap());
    assert_tight_upper(
        bhola_sigma2(2f64.powi(-11), 1).unwrap(),
        &reference,
        1,
        "sigma^2(2^-11)",
    );
}

#[test]
fn sigma2_and_mu_are_upper_bounds_of_the_closed_forms_at_300_bits() {
    // Powers of two and u with full 53-bit significands (whose squares need 106 bits).
    let units = [2, 3, 8, 11, 24, 53, 64]
        .map(|p| 2f64.powi(-p))
        .into_iter()
        .chain([0.1, 0.3, 1.0 / 3.0, 0.7, 0.999]);
    for u in units {
        let p = -u.log2();
        let uf = big(u);
        let kappa = Float::with_val(PREC, uf.square_ref()) - 1u32;
        let l1 = Float::with_val(PREC, 1 - &uf).ln();
        let l2 = Float::with_val(PREC, 1 + &uf).ln();
        let bracket = Float::with_val(PREC, l1.square_ref())
            - Float::with_val(PREC, &l1 * &l2) * 2u32
            + Float::with_val(PREC, l2.square_ref());
        let four_u2 = Float::with_val(PREC, uf.square_ref()) * 4u32;
        let printed = (Float::with_val(PREC, &four_u2) + kappa * bracket) / four_u2;
        assert_tight_upper(
            bhola_sigma2(u, 1).unwrap(),
            &printed,
            1,
            &format!("sigma^2, u = 2^-{p}"),
        );
        // |mu| = 1 - ((1+u) log(1+u) - (1-u) log(1-u)) / (2u), at 300 bits.
        let f = (Float::with_val(PREC, 1 + &uf) * &l2 - Float::with_val(PREC, 1 - &uf) * &l1)
            / Float::with_val(PREC, &uf * 2u32);
        assert_tight_upper(
            uniform_log_mean_abs(u).unwrap(),
            &(1 - f),
            1,
            &format!("|mu|, u = 2^-{p}"),
        );
    }
}

#[test]
fn log_mean_matches_its_series_and_the_range_bound_holds() {
    for p in [2, 3, 4, 8, 11, 24, 53] {
        let u = 2f64.powi(-p);
        let m = uniform_log_mean_abs(u).unwrap();
        let series = -mean_by_series(u);
        assert!(
            m >= series * (1.0 - 1e-15) && m <= series * (1.0 + 1e-13),
            "u = 2^-{p}: {m:e} vs {series:e}"
        );
        // M = u/(1-u) bounds |log(1 + delta) - mu| on both ends of [-u, u] (the
        // extremes; log is monotone), at 300 bits.
        let mu = -big(m);
        let top = Float::with_val(PREC, 1 + big(u)).ln() - &mu;
        let bottom = -(Float::with_val(PREC, 1 - big(u)).ln() - &mu);
        let range = vibea_range_bound(u).unwrap();
        assert!(top <= range && bottom <= range, "u = 2^-{p}");
        // The authors' later code's M = log(1 + u) is below the deviation at delta = -u.
        assert!(
            bottom > Float::with_val(PREC, 1 + big(u)).ln(),
            "u = 2^-{p}"
        );
    }
}

// ---------------------------------------------------------------- p_b and the paired constants

/// p_b as printed, at 300 bits.
fn pb_printed(lambda: f64, u: f64, n: u64) -> Float {
    let (l, uf, nf) = (big(lambda), big(u), Float::with_val(PREC, n));
    let u2 = Float::with_val(PREC, uf.square_ref());
    let kappa = Float::with_val(PREC, &u2 - 1u32);
    let l1 = Float::with_val(PREC, 1 - &uf).ln();
    let l2 = Float::with_val(PREC, 1 + &uf).ln();
    let bracket = Float::with_val(PREC, l1.square_ref()) - Float::with_val(PREC, &l1 * &l2) * 2u32
        + Float::with_val(PREC, l2.square_ref());
    let four_u2 = Float::with_val(PREC, &u2 * 4u32);
    let sigma2 = Float::with_val(
        PREC,
        &nf * ((Float::with_val(PREC, &four_u2) + kappa * bracket) / four_u2),
    );
    let sqrt_n = Float::with_val(PREC, nf.sqrt_ref());
    let range = Float::with_val(PREC, &l * sqrt_n) * &u2 / (Float::with_val(PREC, 1 - &uf) * 3u32);
    let exponent = Float::with_val(PREC, l.square_ref()) * &nf * &u2 / ((sigma2 + range) * 2u32);
    1 - 2 * (-exponent).exp()
}

#[test]
fn pb_matches_the_printed_formula_and_is_rounded_down() {
    for (lambda, u, n) in [
        (2.0, 0.3, 10u64),
        (1.0, 0.125, 10u64),
        (2.0, 0.0625, 100),
        (1.5, 2f64.powi(-8), 1000),
        (3.0, 2f64.powi(-8), 2),
        (0.5, 0.25, 1),
    ] {
        let got = bhola_pb(lambda, u, n).unwrap();
        let printed = pb_printed(lambda, u, n);
        assert!(
            printed >= got && Float::with_val(PREC, &printed - got) <= 1e-14,
            "lambda {lambda} u {u} n {n}: {got} vs {printed}"
        );
    }
    assert_eq!(bhola_pb(0.0, 0.01, 10).unwrap(), -1.0);
    assert_eq!(bhola_pb(3.0, 0.01, 0).unwrap(), 1.0);
    let mut last = -1.0;
    for i in 0..60 {
        let p = bhola_pb(i as f64 / 10.0, 2f64.powi(-11), 100).unwrap();
        assert!(p >= last, "p_b must increase with lambda");
        last = p;
    }
    for lambda in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(is_invalid(bhola_pb(lambda, 0.01, 10)), "{lambda}");
    }
    assert!(is_invalid(bhola_pb(1.0, 1.0, 10)));
    assert!(is_invalid(bhola_sigma2(0.0, 10)));
    assert!(is_invalid(bhola_lambda(0.9, 0.01, 0)));
    assert!(is_invalid(bhola_lambda(1.0, 0.01, 10)));
}

#[test]
fn bhola_lambda_reaches_the_target_probability() {
    for u in [0.125, 2f64.powi(-11), 2f64.powi(-24), 2f64.powi(-53)] {
        for n in [1u64, 10, 1000, 1 << 30] {
            for target in [0.5, 0.9, 0.99, 0.999_999] {
                let lambda = bhola_lambda(target, u, n).unwrap();
                let p = bhola_pb(lambda, u, n).unwrap();
                assert!(
                    p >= target - 1e-14,
                    "u {u:e} n {n} target {target}: p_b = {p}"
                );
                let smaller = bhola_pb(lambda * (1.0 - 1e-9), u, n).unwrap();
                assert!(smaller < target + 1e-12, "lambda is not tight: {smaller}");
            }
        }
    }
}

#[test]
fn paired_constants_are_ordered_and_share_p_b() {
    for (n, u, lambda) in [
        (10u64, 0.125, 1.8),
        (1000, 2f64.powi(-11), 2.0),
        (1 << 20, 2f64.powi(-24), 4.0),
        (2, 2f64.powi(-53), 1.0),
    ] {
        let ours = vibea_gamma(n, u, lambda).unwrap();
        let centred = vibea_gamma_authors_centred(n, u, lambda).unwrap();
        let first = vibea_gamma_first_order(n, u, lambda).unwrap();
        assert!(
            first.value < centred.value && centred.value < ours.value,
            "n {n} u {u:e}"
        );
        let p = bhola_pb(lambda, u, n).unwrap();
        for b in [&ours, &centred, &first] {
            assert_eq!(probability(b), p);
            assert_eq!(b.quantity, Quantity::Theta);
        }
        assert_eq!(ours.rigor, Rigor::Rigorous);
        assert_eq!(
            (centred.rigor, first.rigor),
            (Rigor::Published, Rigor::Published)
        );
        // ours = exp(lambda sqrt(n) u + n |mu|) - 1 with |mu| from the series, at 300 bits.
        let mut e = big(lambda) * Float::with_val(PREC, n).sqrt() * big(u);
        e += Float::with_val(PREC, n) * big(-mean_by_series(u));
        let exact = e.exp_m1();
        let rel = (Float::with_val(PREC, ours.value - &exact) / &exact).to_f64();
        assert!(
            (-1e-15..=1e-13).contains(&rel),
            "n {n} u {u:e}: relative {rel:e}"
        );
    }
}

// ---------------------------------------------------------------- snapshot

fn cell(r: Result<Bound, VerifyError>) -> String {
    match r {
        Ok(b) => match b.kind {
            Kind::Deterministic => format!("{:e}", b.value),
            Kind::Probabilistic { probability } => format!("{:e} (p >= {probability:.6})", b.value),
        },
        Err(e) => format!("refused: {e}"),
    }
}

#[test]
fn snapshot_of_the_primitives() {
    let rne = RoundingMode::NearestEven;
    let mut out = String::new();
    writeln!(
        out,
        "## gamma_n = n u / (1 - n u), rounded up (Higham 2002, Lemma 3.1), round to nearest even"
    )
    .unwrap();
    writeln!(out, "| format | u | n | gamma_n |").unwrap();
    writeln!(out, "|---|---|---|---|").unwrap();
    let formats = [
        Format::FP64,
        Format::FP32,
        Format::TF32,
        Format::BF16,
        Format::FP16,
        Format::E4M3,
        Format::E5M2,
    ];
    for format in formats {
        let u = format.unit_roundoff(rne);
        for n in [1u64, 10, 100, 1000, 1 << 20] {
            writeln!(
                out,
                "| {format} | 2^{} | {n} | {} |",
                u.log2(),
                cell(gamma_for_format(n, format, rne))
            )
            .unwrap();
        }
    }

    writeln!(out, "\n## Higham-Mary gamma~_n(lambda) = exp(lambda sqrt(n) u + n u^2/(1-u)) - 1, P = 1 - 2 exp(-lambda^2 (1-u)^2/2)").unwrap();
    writeln!(out, "| format | n | lambda | gamma~ (P) |").unwrap();
    writeln!(out, "|---|---|---|---|").unwrap();
    for format in [Format::FP32, Format::FP16, Format::BF16] {
        let u = format.unit_roundoff(rne);
        for n in [100u64, 1 << 20] {
            for lambda in [1.0, 3.0, 5.0] {
                writeln!(
                    out,
                    "| {format} | {n} | {lambda} | {} |",
                    cell(higham_mary_gamma(n, u, lambda))
                )
                .unwrap();
            }
        }
    }
    for target in [0.9, 0.99, 0.999_999] {
        writeln!(
            out,
            "lambda for P = {target} at fp16: {:e}",
            higham_mary_lambda(target, Format::FP16.unit_roundoff(rne)).unwrap()
        )
        .unwrap();
    }

    writeln!(
        out,
        "\n## Bhola-Duraisamy Lemma 2.2: sigma^2, |mu|, p_b and the constants paired with it"
    )
    .unwrap();
    writeln!(out, "| u | n | lambda | sigma^2 | n abs(mu) | p_b | ours exp(t + n abs(mu)) - 1 | authors exp(t) - 1 | v1 t = lambda sqrt(n) u |").unwrap();
    writeln!(out, "|---|---|---|---|---|---|---|---|---|").unwrap();
    for (u, n, lambda) in [
        (2f64.powi(-3), 100u64, 2.0),
        (2f64.powi(-4), 1000, 1.5),
        (2f64.powi(-8), 1000, 2.0),
        (2f64.powi(-11), 2, 1.0),
        (2f64.powi(-11), 1000, 3.0),
        (2f64.powi(-24), 1 << 20, 4.0),
        (2f64.powi(-53), 1 << 30, 5.0),
    ] {
        let value = |b: Result<Bound, VerifyError>| format!("{:e}", b.unwrap().value);
        writeln!(
            out,
            "| 2^{} | {n} | {lambda} | {:e} | {:e} | {:.9} | {} | {} | {} |",
            u.log2(),
            bhola_sigma2(u, n).unwrap(),
            n as f64 * uniform_log_mean_abs(u).unwrap(),
            bhola_pb(lambda, u, n).unwrap(),
            value(vibea_gamma(n, u, lambda)),
            value(vibea_gamma_authors_centred(n, u, lambda)),
            value(vibea_gamma_first_order(n, u, lambda)),
        )
        .unwrap();
    }
    for target in [0.9, 0.99] {
        for (u, n) in [(2f64.powi(-3), 100u64), (2f64.powi(-11), 1000)] {
            writeln!(
                out,
                "lambda for p_b = {target} at u = 2^{}, n = {n}: {:e}",
                u.log2(),
                bhola_lambda(target, u, n).unwrap()
            )
            .unwrap();
        }
    }
    insta::assert_snapshot!("bound_primitives", out);
}

/// The largest `|s_k|` and `|z_k|` (partial sums and the exact values they
/// round) of a left-to-right dot product in `format`, round to nearest: with
/// rounded products (`fma = false`) or FMAs, every operation exact in MPFR
/// before its one rounding.
fn recursive_dot_magnitudes(format: Format, x: &[f64], y: &[f64], fma: bool) -> f64 {
    let rne = RoundingMode::NearestEven;
    let (mut s, mut largest) = (0.0f64, 0.0f64);
    for (&a, &b) in x.iter().zip(y) {
        let product = Float::with_val(PREC, a) * b; // exact: 2 x 53 bits < 300
        let z = if fma {
            product + s
        } else {
            Float::with_val(PREC, format.round_float(&product, rne)) + s
        };
        s = format.round_float(&z, rne);
        largest = largest.max(z.to_f64().abs()).max(s.abs());
    }
    largest
}

/// `require_no_overflow_recursive_nearest`: its `2 P` holds on a sequence
/// built to double every partial sum (each term just over half an ulp of the
/// running sum, so every addition rounds up by almost the term itself: the
/// sums reach 1.99 S, so no bound below 2 S could be right), and on random
/// wide-range fp16 data, with and without FMA, wherever it does not refuse.
#[test]
fn recursive_nearest_no_overflow_bound_holds_where_the_factor_2_is_attained() {
    use boundgate_verify::bounds::Source;
    use boundgate_verify::bounds::dot::{require_no_overflow_recursive_nearest, underflow_ops};
    let fp16 = Format::FP16;
    let src = Source::new("test", "recursive no-overflow", None);
    // s in [2^e, 2^(e+1)) has ulp 2^(e-10); the term 2^(e-11) (1 + 2^-10) rounds up to it.
    let mut x = vec![1.0];
    let mut s = 1.0f64;
    while s < 16384.0 {
        let e = s.log2().floor() as i32;
        let term = 2f64.powi(e - 11) * (1.0 + 2f64.powi(-10));
        s = fp16.round(s + term, RoundingMode::NearestEven);
        x.push(term);
    }
    let ones = vec![1.0; x.len()];
    let sum_abs: f64 = x.iter().sum(); // exact: every term a multiple of 2^-12 below 2^15
    for fma in [false, true] {
        let largest = recursive_dot_magnitudes(fp16, &x, &ones, fma);
        let bound = require_no_overflow_recursive_nearest(
            fp16,
            x.len() as u64,
            underflow_ops(fp16, x.len()),
            sum_abs,
            &src,
        )
        .unwrap();
        assert!(largest <= bound, "fma {fma}: {largest} > {bound}");
        assert!(
            largest >= 1.99 * sum_abs,
            "fma {fma}: {largest} vs S = {sum_abs}"
        );
    }
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0x0f_10);
    use rand::RngExt;
    for case in 0..200 {
        let n = rng.random_range(1..3000usize);
        let top = rng.random_range(-14..12);
        let value = |rng: &mut rand_chacha::ChaCha8Rng| {
            let v = rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(top - 10..=top));
            fp16.round(v, RoundingMode::NearestEven)
        };
        let x: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let y: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let sum_abs = x.iter().zip(&y).map(|(a, b)| (a * b).abs()).sum::<f64>() * (1.0 + 1e-12);
        let Ok(bound) = require_no_overflow_recursive_nearest(
            fp16,
            n as u64,
            underflow_ops(fp16, n),
            sum_abs,
            &src,
        ) else {
            continue;
        };
        for fma in [false, true] {
            let largest = recursive_dot_magnitudes(fp16, &x, &y, fma);
            assert!(
                largest <= bound,
                "case {case} (seed 0xf10), fma {fma}: {largest} > {bound}"
            );
        }
    }
}
