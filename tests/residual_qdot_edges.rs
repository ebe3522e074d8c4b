//! Edge cases of the residual-GEMM kernel's report and rigorous bound in
//! binary64, and of the qdot experiments' `trial`, found or checked in
//! review (2026-11-29).
//!
//! Property tests are seeded (`boundgate_verify::strategies::PROPTEST_SEED`,
//! printed below; override with PROPTEST_RNG_SEED).

use boundgate::io::Tensor;
use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
use boundgate::kernels::qdot::experiments::trial;
use boundgate::kernels::residual::kernel::{ResidualGemm, RunConfig, assemble};
use boundgate::kernels::residual::method::{Prepared, relative_frobenius};
use boundgate::kernels::residual::quant::Working;
use boundgate::kernels::{Inputs, Kernel, Params};
use boundgate_verify::check::Outcome;
use boundgate_verify::format::Format;
use boundgate_verify::strategies::{PROPTEST_SEED, proptest_config, scaled_significand};
use proptest::prelude::*;
use rug::Float;

mod common;
use common::residual::run_config;

fn inputs(a: &[f64], m: usize, k: usize, b: &[f64], n: usize) -> Inputs {
    let mut i = Inputs::new();
    i.insert("a".into(), Tensor::matrix(m, k, a.to_vec()).unwrap());
    i.insert("b".into(), Tensor::matrix(k, n, b.to_vec()).unwrap());
    i
}

fn params(pairs: &[&str]) -> Params {
    let pairs: Vec<String> = pairs.iter().map(|s| s.to_string()).collect();
    Params::parse(&ResidualGemm, &pairs).unwrap()
}

/// `||D - AB||_F / ||AB||_F` with `AB` exact, in MPFR at 4000 bits (every
/// product and sum below is exact there for the inputs used).
fn e_delta_mpfr(d: &[f64], a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize)) -> f64 {
    const P: u32 = 4000;
    let (mut num, mut den) = (Float::with_val(P, 0), Float::with_val(P, 0));
    for i in 0..m {
        for j in 0..n {
            let mut c = Float::with_val(P, 0);
            for kk in 0..k {
                c += Float::with_val(P, a[i * k + kk]) * b[kk * n + j];
            }
            let diff = Float::with_val(P, d[i * n + j]) - &c;
            num += Float::with_val(P, &diff * &diff);
            den += Float::with_val(P, &c * &c);
        }
    }
    (num / den).sqrt().to_f64()
}

/// `e_delta_as_stored` squared binary64 values unscaled: with `format=fp64`,
/// `A B` near 1e200 squared to inf and the inexact outputs gave
/// (inf / inf) = NaN, written as `null`; near 1e-170 the squares of `C`
/// underflowed to 0 and the ratio was called undefined (`null`) for a
/// nonzero `C`. Gu §3.1 defines `E_delta = ||X - X*||_F / ||X||_F`, which is
/// about 1e-3 here at any magnitude.
#[test]
fn e_delta_is_reported_for_binary64_products_beyond_the_range_of_squares() {
    let (m, k, n) = (2, 3, 2);
    let a0 = [1.0, 0.3, -0.7, 0.45, -0.91, 0.123];
    let b0 = [1.0, 0.25, 1.3, -0.6, 0.7, 0.77];
    for scale in [1e100, 1e-85, 1.0] {
        let a: Vec<f64> = a0.iter().map(|x| x * scale).collect();
        let b: Vec<f64> = b0.iter().map(|x| x * scale).collect();
        for method in ["direct", "full", "sparse"] {
            let run = ResidualGemm
                .run(
                    &inputs(&a, m, k, &b, n),
                    &params(&["format=fp64", &format!("method={method}")]),
                )
                .unwrap();
            let got = run.details["e_delta_as_stored"].as_f64();
            let want = e_delta_mpfr(run.output.data(), &a, &b, (m, k, n));
            assert!(want > 1e-6 && want < 0.1, "{want}");
            let got = got.unwrap_or_else(|| panic!("scale {scale:e}, {method}: null"));
            assert!(
                (got / want - 1.0).abs() < 1e-9,
                "scale {scale:e}, {method}: {got} vs {want}"
            );
        }
    }
}

/// Where the plain sums of squares neither overflow nor underflow, the scaled
/// `E_delta` is the plain one bit for bit (the power-of-two scaling is exact).
#[test]
fn e_delta_is_the_plain_formula_bit_for_bit_within_range() {
    let d = [1.0 + 1e-9, -2.5, 3.0e-3, 7.25e4, -0.1];
    let c = [1.0, -2.5 + 3e-12, 3.1e-3, 7.2e4, 0.0];
    let plain = {
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (x, y) in d.iter().zip(&c) {
            num += (x - y) * (x - y);
            den += y * y;
        }
        (num / den).sqrt()
    };
    assert_eq!(
        relative_frobenius(&d, &c).map(f64::to_bits),
        Some(plain.to_bits())
    );
    for s in [2f64.powi(-1000), 2f64.powi(900), 2f64.powi(-1060)] {
        let ds: Vec<f64> = d
            .iter()
            .map(|x| x * 2f64.powi(-30) * s / 2f64.powi(-30))
            .collect();
        let cs: Vec<f64> = c.iter().map(|x| x * s).collect();
        let want = e_delta_mpfr_pairs(&ds, &cs);
        let got = relative_frobenius(&ds, &cs).unwrap();
        assert!((got / want - 1.0).abs() < 1e-6, "{s:e}: {got} vs {want}");
    }
    assert_eq!(relative_frobenius(&[1.0, 2.0], &[0.0, -0.0]), None);
    assert_eq!(relative_frobenius(&[f64::NAN], &[1.0]), None);
    assert_eq!(relative_frobenius(&[1.0], &[f64::INFINITY]), None);
}

fn e_delta_mpfr_pairs(d: &[f64], c: &[f64]) -> f64 {
    const P: u32 = 4000;
    let (mut num, mut den) = (Float::with_val(P, 0), Float::with_val(P, 0));
    for (&d, &c) in d.iter().zip(c) {
        let diff = Float::with_val(P, d) - c;
        num += Float::with_val(P, &diff * &diff);
        den += Float::with_val(P, c) * c;
    }
    (num / den).sqrt().to_f64()
}

// ------------------------------------------------- the bound over binary64

/// A run configuration drawn from every option but the working precision,
/// binary64, over three thresholds.
fn fp64_config() -> impl Strategy<Value = RunConfig> {
    run_config(
        Just(Working::Fp64),
        prop_oneof![Just(0.05), Just(0.5), Just(5.0)],
    )
}

/// Binary64 operands outside the fp32 range the existing property draws
/// from: the whole exponent range up to 2^470 (so no product or sum of up to
/// 5 terms overflows), only subnormals and their neighbours, or only large
/// values; a fifth of the entries zero (all-zero rows and columns).
fn fp64_operands() -> impl Strategy<Value = (usize, usize, usize, Vec<f64>, Vec<f64>)> {
    (1usize..5, 1usize..6, 1usize..5, 0u8..3).prop_flat_map(|(m, k, n, kind)| {
        let exponents = match kind {
            0 => -1074..=470,
            1 => -1074..=-1000,
            _ => 200..=470,
        };
        let values = move |len| {
            proptest::collection::vec(
                prop_oneof![
                    4 => scaled_significand(Format::FP64, exponents.clone()),
                    1 => Just(0.0),
                ],
                len,
            )
        };
        (Just(m), Just(k), Just(n), values(m * k), values(k * n))
    })
}

proptest! {
    #![proptest_config(proptest_config(1000, 100_000))]

    /// The rigorous per-element bound holds, with a value for every
    /// element, for binary64 working format over the whole exponent range.
    #[test]
    fn the_rigorous_bound_holds_over_the_binary64_exponent_range(
        cfg in fp64_config(),
        (m, k, n, a, b) in fp64_operands(),
    ) {
        static SEED: std::sync::Once = std::sync::Once::new();
        SEED.call_once(|| eprintln!("proptest seed {PROPTEST_SEED:#x} (PROPTEST_RNG_SEED overrides)"));
        let prepared = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
        let out = prepared.run(cfg.method, cfg.reduction).unwrap();
        let run = assemble(&prepared, &out, &cfg).unwrap();
        let verdicts = run.verdicts().unwrap();
        prop_assert_eq!(&verdicts[0].label, "rigorous");
        prop_assert_eq!(&verdicts[0].verdict.outcome, &Outcome::Pass, "{:?}", cfg);
        prop_assert!(run.rigorous_values().iter().all(|v| v.is_finite()));
    }
}

// ------------------------------------------------- qdot trial

/// `trial`'s relative measures divided by an infinite dot: x = y =
/// [1e308, 1e308] gave `relerr_fp64 = Some(NaN)` (inf / inf) and
/// `bound = Some(NaN)` (Theorem 3.5's absolute bound over |x^T y| = inf).
/// A relative measure needs a finite nonzero divisor, as `relerr` has.
#[test]
fn trial_reports_no_nan_when_the_dot_overflows() {
    let c = QdotConfig::new(Format::FP64).unwrap();
    for eps in [1e-15, 1e-3, 0.5] {
        let t = trial(
            &[1e308, 1e308],
            &[1e308, 1e308],
            &c,
            Tolerance::new(eps).unwrap(),
        )
        .unwrap();
        assert_eq!(
            (t.relerr, t.relerr_fp64, t.bound),
            (None, None, None),
            "{eps}"
        );
        assert!(!t.rigorous_violated);
    }
}

/// An exact zero dot has no relative error (None, never NaN), and a dot
/// whose only nonzero contribution below the tolerance is perforated has
/// relative error 1 within the rigorous bound.
#[test]
fn trial_edges_exact_zero_and_a_perforated_remainder() {
    let c = QdotConfig::new(Format::FP64).unwrap();
    for eps in [1e-15, 1e-3, 0.999] {
        let eps = Tolerance::new(eps).unwrap();
        for (x, y) in [
            (vec![1.0, -1.0], vec![1.0, 1.0]),
            (vec![0.0, 0.0], vec![1.0, 1.0]),
        ] {
            let t = trial(&x, &y, &c, eps).unwrap();
            assert_eq!((t.relerr, t.relerr_fp64, t.bound), (None, None, None));
            assert!(!t.rigorous_violated);
        }
        // x.y = 1e-300 exactly; the 1e-300 component is perforated, z = 0.
        let t = trial(&[1.0, 1e-300, -1.0], &[1.0; 3], &c, eps).unwrap();
        assert_eq!(t.relerr, Some(1.0));
        assert_eq!(t.components[0], 1, "{:?}", t.components);
        assert!(!t.rigorous_violated);
        // one term whose product is exact in binary64
        let t = trial(&[3.0], &[0.5], &c, eps).unwrap();
        assert_eq!((t.relerr, t.relerr_fp64), (Some(0.0), Some(0.0)));
        assert!(t.bound.is_some_and(|b| b.is_finite()));
    }
}
