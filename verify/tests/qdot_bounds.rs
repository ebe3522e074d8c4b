//! The checker's qdot pieces against independent definitions: `fexp` (both
//! definitions) and `floor(log2 eps / d)` against MPFR, exact binning against
//! a map-based reference, (3.9) against its defining inequalities, Theorem
//! 3.6 as a property of (3.9), the printed theorems against their formulas
//! evaluated exactly, and every hypothesis check.

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::Rigor;
use boundgate_verify::bounds::qdot::{
    BinArithmetic, BinPrecision, ExponentBins, Fexp, ScoreTolerance, TileOrder, bin_score,
    corrected_thm_3_2, floor_log2_tolerance, precision_3_9, rigorous, thm_3_2, thm_3_3, thm_3_4,
    thm_3_5, thm_3_6,
};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::dot;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rug::{Float, Rational};
use std::collections::BTreeMap;

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x00b0_0da7_e5ee_d001),
        ..Config::default()
    }
}

/// Any finite nonzero f64, subnormals included.
fn any_nonzero() -> impl Strategy<Value = f64> {
    prop_oneof![
        (1u64..0x7ff0_0000_0000_0000).prop_map(f64::from_bits),
        (1u64..(1 << 52)).prop_map(f64::from_bits),
        (-60i32..60, 0.5f64..1.0).prop_map(|(e, s)| s * 2f64.powi(e)),
    ]
    .prop_flat_map(|v| prop_oneof![Just(v), Just(-v)])
}

/// fexp by its definition on the exact value (MPFR).
fn fexp_mpfr(x: f64, d: Fexp) -> i64 {
    let f = Float::with_val(64, x).abs();
    // Largest k with 2^k <= |x|, and smallest k with |x| <= 2^k.
    let floor = i64::from(f.get_exp().unwrap()) - 1;
    let ceil = if f == Float::with_val(64, Float::i_exp(1, floor as i32)) {
        floor
    } else {
        floor + 1
    };
    match d {
        Fexp::Ieee => floor,
        Fexp::Paper if f >= 1 => floor,
        Fexp::Paper => ceil,
    }
}

proptest! {
    #![proptest_config(config(4096))]

    #[test]
    fn fexp_is_eq_1_1_or_the_ieee_exponent(x in any_nonzero()) {
        for d in Fexp::ALL {
            prop_assert_eq!(d.of(x).map(i64::from), Some(fexp_mpfr(x, d)), "{:e} {}", x, d);
            prop_assert_eq!(d.of_exact(&dot(&[x], &[1.0]).unwrap()), Some(fexp_mpfr(x, d)));
        }
        // They differ exactly for |x| < 1 that are not powers of two.
        let differ = Fexp::Ieee.of(x) != Fexp::Paper.of(x);
        let floor = fexp_mpfr(x, Fexp::Ieee) as i32;
        let power_of_two = Float::with_val(64, x).abs() == Float::with_val(64, Float::i_exp(1, floor));
        prop_assert_eq!(differ, x.abs() < 1.0 && !power_of_two);
    }

    #[test]
    fn fexp_of_exact_sums_beyond_the_f64_range(a in any_nonzero(), b in any_nonzero(), c in any_nonzero()) {
        let s = dot(&[a, c], &[b, 1.0]).unwrap();
        let Some(exact) = s.to_float() else { unreachable!() };
        for d in Fexp::ALL {
            let want = if exact.is_zero() {
                None
            } else {
                let f = exact.clone().abs();
                let floor = i64::from(f.get_exp().unwrap()) - 1;
                let pow = f.clone() == Float::with_val(f.prec(), Float::i_exp(1, floor as i32));
                Some(if d == Fexp::Paper && floor < 0 && !pow { floor + 1 } else { floor })
            };
            prop_assert_eq!(d.of_exact(&s), want);
        }
    }

    #[test]
    fn floor_log2_of_the_score_tolerance_is_exact(eps in any_nonzero(), divisor in 1u64..100_000) {
        let eps = eps.abs();
        let k = floor_log2_tolerance(eps, divisor).unwrap();
        // d 2^k <= eps < d 2^(k+1), exactly.
        let d = Rational::from(divisor);
        let e = Rational::from_f64(eps).unwrap();
        let pow = |k: i64| -> Rational {
            if k >= 0 { Rational::from(rug::Integer::from(1) << k as u32) } else { Rational::from((1, rug::Integer::from(1) << (-k) as u32)) }
        };
        prop_assert!(d.clone() * pow(k) <= e);
        prop_assert!(d * pow(k + 1) > e);
    }

    #[test]
    fn exact_binning_matches_a_map_of_exponent_sums(
        pairs in prop::collection::vec((any_nonzero(), any_nonzero(), 0u8..8), 0..60),
    ) {
        let x: Vec<f64> = pairs.iter().map(|p| if p.2 == 0 { 0.0 } else { p.0 }).collect();
        let y: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        for d in Fexp::ALL {
            let bins = ExponentBins::new(&x, &y, d).unwrap();
            let mut map: BTreeMap<i64, (u64, Float)> = BTreeMap::new();
            let mut zeros = 0;
            for (a, b) in x.iter().zip(&y) {
                if *a == 0.0 {
                    zeros += 1;
                    continue;
                }
                let (fa, fb) = (fexp_mpfr(*a, d), fexp_mpfr(*b, d));
                let scaled = (Float::with_val(200, a.abs()) >> fa as i32) * (Float::with_val(200, b.abs()) >> fb as i32);
                prop_assert!(scaled >= 0.25 && scaled < 4);
                let e = map.entry(fa + fb).or_insert((0, Float::with_val(200, 0)));
                e.0 += 1;
                e.1 += scaled;
            }
            prop_assert_eq!(bins.zeros, zeros);
            prop_assert_eq!(bins.bins.len(), map.len());
            for (bin, (e, (count, sum))) in bins.bins.iter().zip(&map) {
                prop_assert_eq!(i64::from(bin.exponent), *e);
                prop_assert_eq!(bin.count, *count);
                // An upper bound, and tight.
                prop_assert!(Float::with_val(200, bin.scaled_abs_sum) >= *sum);
                prop_assert!(Float::with_val(200, bin.scaled_abs_sum) <= sum.clone() * (1.0 + 1e-13));
                prop_assert!(bin.scaled_abs_sum < 4.0 * *count as f64);
            }
        }
    }

    #[test]
    fn precision_3_9_is_its_defining_inequalities(score in -100i64..100) {
        for ladder in [&[11u32, 24, 53][..], &[11, 24], &[11], &[8, 11, 24, 53]] {
            match precision_3_9(score, ladder).unwrap() {
                None => prop_assert!(score < 0),
                Some(i) => {
                    prop_assert!(score >= 0);
                    let below = if i == 0 { 0 } else { i64::from(ladder[i - 1]) };
                    prop_assert!(score >= below);
                    prop_assert!(score < i64::from(ladder[i]) || i == ladder.len() - 1);
                }
            }
        }
    }

    /// Theorem 3.6: when `e_max - e_min <= -floor(log2 eps) - mu^`, (3.9)
    /// gives every bin the input precision, with `eps` or `eps / N_bins`.
    #[test]
    fn thm_3_6_early_exit_is_true_of_3_9(
        exponents in prop::collection::btree_map(-80i64..80, 1u64..5000, 1..12),
        eps_log in -60i32..-1,
        divisor_is_bins in any::<bool>(),
    ) {
        let e_min = *exponents.keys().next().unwrap();
        let e_max = *exponents.keys().last().unwrap();
        let eps = 2f64.powi(eps_log) * 1.7;
        for ladder in [&[11u32, 24, 53][..], &[11, 24], &[11], &[8, 11, 24, 53]] {
            let mu_hat = if ladder.len() >= 2 { ladder[ladder.len() - 2] } else { 0 };
            if !thm_3_6(e_min, e_max, floor_log2_tolerance(eps, 1).unwrap(), mu_hat) {
                continue;
            }
            let d = if divisor_is_bins { exponents.len() as u64 } else { 1 };
            let floor = floor_log2_tolerance(eps, d).unwrap();
            for (&u, &m) in &exponents {
                let level = precision_3_9(bin_score(m, u, e_max, floor), ladder).unwrap();
                prop_assert_eq!(level, Some(ladder.len() - 1));
            }
        }
    }

    /// The printed sums are upward-rounded evaluations of their formulas.
    #[test]
    fn printed_theorems_evaluate_their_formulas(
        values in prop::collection::vec((-300i32..300, 0.5f64..1.0, 0u8..4), 1..30),
    ) {
        let x: Vec<f64> = values.iter().map(|v| v.1 * 2f64.powi(v.0)).collect();
        let y = vec![1.0; x.len()];
        let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
        let choose = |k: usize| match values[k % values.len()].2 {
            0 => BinPrecision::Perforate,
            1 => BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP32 }),
            2 => BinPrecision::Compute(BinArithmetic { format: Format::FP32, accumulator: Format::FP32 }),
            _ => BinPrecision::Compute(BinArithmetic { format: Format::FP64, accumulator: Format::FP64 }),
        };
        let precisions: Vec<_> = (0..bins.n_bins()).map(choose).collect();
        let exact = |shift: i64| -> Rational {
            bins.bins.iter().zip(&precisions).fold(Rational::new(), |acc, (b, p)| {
                let e = i64::from(b.exponent) + shift - i64::from(p.bits());
                let pow = if e >= 0 { Rational::from(rug::Integer::from(1) << e as u32) } else { Rational::from((1, rug::Integer::from(1) << (-e) as u32)) };
                acc + pow * b.count
            })
        };
        let t32 = thm_3_2(&bins, &precisions, Format::FP64).unwrap();
        prop_assert_eq!(t32.rigor, Rigor::Published);
        let want = exact(1);
        prop_assert!(Rational::from_f64(t32.value).unwrap() >= want || t32.value == f64::INFINITY);
        prop_assert!(t32.value <= want.to_f64() * (1.0 + 1e-12) || want.to_f64() < 1e-300);
        let e_max = i64::from(bins.e_max().unwrap());
        let t33 = thm_3_3(&bins, &precisions, Format::FP64, Some(e_max)).unwrap();
        let want = exact(1 - e_max);
        prop_assert!(Rational::from_f64(t33.value).unwrap() >= want || t33.value == f64::INFINITY);
        let t34 = thm_3_4(&bins, &precisions, Format::FP64, Some(e_max - 3)).unwrap();
        prop_assert!(Rational::from_f64(t34.value).unwrap() >= exact(4 - e_max) || t34.value == f64::INFINITY);
        // Hypotheses of the relative forms.
        let refused = |r: Result<_, VerifyError>| matches!(r, Err(VerifyError::HypothesisNotMet { .. }));
        prop_assert!(refused(thm_3_3(&bins, &precisions, Format::FP64, Some(e_max - 1))));
        prop_assert!(refused(thm_3_4(&bins, &precisions, Format::FP64, Some(e_max))));
        prop_assert!(refused(thm_3_3(&bins, &precisions, Format::FP64, None)));
        // eps(k) >= eps_machine: a double bin under fp32 inputs is refused.
        if precisions.iter().any(|p| p.bits() == 53) {
            prop_assert!(refused(thm_3_2(&bins, &precisions, Format::FP32)));
        }
        // The corrected bounds: data-driven below a priori, both rigorous.
        let order = TileOrder { n: x.len(), tile: 4 };
        if let (Ok(r), Ok(c)) = (rigorous(&bins, &precisions, Format::FP64, order), corrected_thm_3_2(&bins, &precisions, Format::FP64, order)) {
            prop_assert!(r.value <= c.value);
            prop_assert_eq!(r.rigor, Rigor::Rigorous);
        }
    }
}

#[test]
fn thm_3_5_needs_the_precisions_of_3_9() {
    let x = [1.0, 2f64.powi(-12), 2f64.powi(-30), 2f64.powi(-60)];
    let y = [1.0; 4];
    let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
    let arith = |f: Format, c: Format| {
        BinPrecision::Compute(BinArithmetic {
            format: f,
            accumulator: c,
        })
    };
    let (half, single, double) = (
        arith(Format::FP16, Format::FP32),
        arith(Format::FP32, Format::FP32),
        arith(Format::FP64, Format::FP64),
    );
    let ladder = [11, 24, 53];
    // eps = 2^-20, printed score: sigma = u + 21: -39 (perf.), -9 (perf.), 9 (half), 21 (single).
    let t = ScoreTolerance {
        eps: 2f64.powi(-20),
        divisor: 1,
    };
    let right = [
        BinPrecision::Perforate,
        BinPrecision::Perforate,
        half,
        single,
    ];
    let b = thm_3_5(&bins, &right, Format::FP64, Some(0), &ladder, t).unwrap();
    assert_eq!(b.value, 4.0 * 2f64.powi(-20));
    let wrong = [BinPrecision::Perforate, half, half, double];
    assert!(matches!(
        thm_3_5(&bins, &wrong, Format::FP64, Some(0), &ladder, t),
        Err(VerifyError::HypothesisNotMet { .. })
    ));
    // eps / N_bins: sigma + 2 (-37, -7, 11, 23), and the bound is eps.
    let t4 = ScoreTolerance {
        eps: 2f64.powi(-20),
        divisor: 4,
    };
    let right4 = [
        BinPrecision::Perforate,
        BinPrecision::Perforate,
        single,
        single,
    ];
    let b = thm_3_5(&bins, &right4, Format::FP64, Some(0), &ladder, t4).unwrap();
    assert_eq!(b.value, 2f64.powi(-20));
    assert!(thm_3_5(&bins, &right, Format::FP64, Some(-1), &ladder, t).is_err());
    assert!(thm_3_5(&bins, &right, Format::FP64, Some(0), &[11, 24], t).is_err());
    // An unordered ladder ending with the input precision: (3.9)'s "first
    // level above the score" means nothing there. Until 2026-11-29 it was
    // read in the given order, and these precisions (single for the score-9
    // bin, which (3.9) on [11, 24, 53] gives half) got a bound.
    let single_for_9 = [
        BinPrecision::Perforate,
        BinPrecision::Perforate,
        single,
        single,
    ];
    assert!(matches!(
        thm_3_5(
            &bins,
            &single_for_9,
            Format::FP64,
            Some(0),
            &[24, 11, 53],
            t
        ),
        Err(VerifyError::InvalidParameter { .. })
    ));
}

#[test]
fn mismatched_precisions_are_refused() {
    let bins = ExponentBins::new(&[1.0, 0.5], &[1.0, 1.0], Fexp::Ieee).unwrap();
    assert!(matches!(
        thm_3_2(&bins, &[BinPrecision::Perforate], Format::FP64),
        Err(VerifyError::LengthMismatch { .. })
    ));
    let order = TileOrder { n: 2, tile: 0 };
    assert!(rigorous(&bins, &[BinPrecision::Perforate], Format::FP64, order).is_err());
}

#[test]
fn rigorous_refuses_what_could_overflow() {
    // Two products near 2^1023: their fp64 sum may overflow.
    let x = [1.5 * 2f64.powi(511), 1.5 * 2f64.powi(511)];
    let y = [1.5 * 2f64.powi(511), 1.9 * 2f64.powi(511)];
    let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
    let d = BinPrecision::Compute(BinArithmetic {
        format: Format::FP64,
        accumulator: Format::FP64,
    });
    let r = rigorous(
        &bins,
        &vec![d; bins.n_bins()],
        Format::FP64,
        TileOrder { n: 2, tile: 0 },
    );
    assert!(
        matches!(r, Err(VerifyError::HypothesisNotMet { .. })),
        "{r:?}"
    );
    // A pure fp16 bin of 20 000 products near 4 in one tile: may overflow fp16.
    let x = vec![1.99; 20_000];
    let bins = ExponentBins::new(&x, &x, Fexp::Ieee).unwrap();
    let h = BinPrecision::Compute(BinArithmetic {
        format: Format::FP16,
        accumulator: Format::FP16,
    });
    let r = rigorous(&bins, &[h], Format::FP64, TileOrder { n: 20_000, tile: 0 });
    assert!(
        matches!(r, Err(VerifyError::HypothesisNotMet { .. })),
        "{r:?}"
    );
}
