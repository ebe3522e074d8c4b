//! The fast exact oracles against the MPFR reference, bit for bit.
//!
//! Property tests: `oracle::dot` / `oracle::sum` (the superaccumulator) and
//! `oracle::mpfr::dot` / `oracle::mpfr::sum` must give the same exact value,
//! the same rounding in every format and mode, the same IEEE special value and
//! the same error measures, on inputs built to stress an exact accumulator:
//! exponents over the whole range (products from 2^-2148 to 2^2046), massive
//! cancellation, subnormal products, exact ties in the final rounding,
//! intermediate sums beyond f64 that come back into range, and NaN/infinities.
//! Unit tests check gemv, gemm and spmv against naive MPFR loops.
//!
//! Seeds are fixed and printed; proptest failures are kept in
//! tests/proptest-regressions/oracle_vs_mpfr.txt and replayed first.
//! `BOUNDGATE_HEAVY=1` multiplies the case counts.

use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use boundgate_verify::oracle::{
    Csr, Ell, EllLayout, ErrorMeasure, ExactOp, ExactSum, Gemm, Gemv, Matrix, Sparse, Spmv,
    Transpose, abs_dot_up, dot, mpfr, sum,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use std::cmp::Ordering;

mod common;
use common::blas::{csr_arrays, ell_arrays, gemm_operands, op_matrix, row_operands};
use common::exact::same;

const SEED: u64 = 0x0bad_5eed_0f0d_d5e5;

fn heavy() -> bool {
    std::env::var_os("BOUNDGATE_HEAVY").is_some()
}

fn config(cases: u32) -> Config {
    let cases = if heavy() { cases * 16 } else { cases };
    eprintln!("proptest: seed {SEED:#x}, {cases} cases");
    Config {
        cases,
        rng_seed: RngSeed::Fixed(SEED),
        max_shrink_iters: 2000,
        // Failures are kept here and replayed first on every run.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/proptest-regressions/oracle_vs_mpfr.txt"
        )))),
        ..Config::default()
    }
}

/// Every format the comparison rounds into.
fn formats() -> Vec<Format> {
    let mut f = Format::NAMED.to_vec();
    f.push(Format::FP16.without_subnormals());
    f.push(
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    );
    f.push(Format::custom(20, -300, 300, true, OverflowPolicy::Infinity).unwrap());
    f
}

// ----- strategies ---------------------------------------------------------

/// Any finite f64, exponent field uniform over 0..=2046 (subnormals included).
fn full_range() -> impl Strategy<Value = f64> + Clone {
    (any::<bool>(), 0u64..2047, any::<u64>())
        .prop_map(|(s, e, m)| f64::from_bits((s as u64) << 63 | e << 52 | (m & ((1 << 52) - 1))))
}

/// A number with a short significand (so that cancellation is likely) and an
/// exponent in `lo..hi`.
fn short(lo: i32, hi: i32) -> impl Strategy<Value = f64> + Clone {
    (any::<bool>(), lo..hi, 0u64..16).prop_map(|(s, e, m)| {
        let v = (1.0 + m as f64 / 16.0) * 2f64.powi(e.clamp(-1022, 1023));
        if s { -v } else { v }
    })
}

fn subnormal() -> impl Strategy<Value = f64> + Clone {
    (any::<bool>(), 1u64..(1 << 52)).prop_map(|(s, m)| f64::from_bits((s as u64) << 63 | m))
}

/// Finite values of every kind.
fn wide() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        4 => full_range(),
        2 => short(-60, 60),
        1 => subnormal(),
        1 => Just(0.0),
        1 => Just(-0.0),
        1 => prop_oneof![Just(f64::MAX), Just(-f64::MAX), Just(f64::MIN_POSITIVE), Just(f64::from_bits(1))],
    ]
}

fn with_specials() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        12 => wide(),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

fn pairs(
    element: impl Strategy<Value = f64> + Clone,
    len: std::ops::Range<usize>,
) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    prop::collection::vec((element.clone(), element), len).prop_map(|v| v.into_iter().unzip())
}

/// `(x, y)` and `(-x, y)` shuffled together, plus a few small terms: the big
/// terms cancel exactly and the small ones decide the result.
fn cancelling() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (pairs(wide(), 1..24), pairs(short(-1000, -900), 0..4))
        .prop_flat_map(|((x, y), (sx, sy))| {
            let mut terms: Vec<(f64, f64)> = x.iter().copied().zip(y.iter().copied()).collect();
            terms.extend(x.iter().map(|v| -v).zip(y.iter().copied()));
            terms.extend(sx.into_iter().zip(sy));
            Just(terms).prop_shuffle()
        })
        .prop_map(|terms| terms.into_iter().unzip())
}

/// Random terms followed by minus their naively computed sum, in pieces:
/// what is left is the rounding error of the naive sum (near-cancellation).
fn near_cancelling() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    pairs(short(-30, 30), 2..40).prop_map(|(mut x, mut y)| {
        let naive: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
        let compensated: f64 = x.iter().zip(&y).fold(0.0, |s, (a, b)| a.mul_add(*b, s));
        x.extend([-naive, -compensated, naive]);
        y.extend([1.0, 0.5, 0.5]);
        (x, y)
    })
}

/// Factors around 2^-537, so that products fall around and below 2^-1074,
/// and subnormal factors times large ones.
fn subnormal_products() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    let around = (any::<bool>(), 440u64..540, any::<u64>())
        .prop_map(|(s, e, m)| f64::from_bits((s as u64) << 63 | e << 52 | (m & ((1 << 52) - 1))));
    let big = (any::<bool>(), 1023u64..1100, any::<u64>())
        .prop_map(|(s, e, m)| f64::from_bits((s as u64) << 63 | e << 52 | (m & ((1 << 52) - 1))));
    prop_oneof![
        pairs(around, 1..24),
        (
            prop::collection::vec(subnormal(), 1..16),
            prop::collection::vec(big, 16)
        )
            .prop_map(|(x, y)| {
                let n = x.len();
                (x, y[..n].to_vec())
            }),
    ]
}

/// Sums that are exactly a tie (or within a hair of one) in one of the
/// formats: `a + ulp(a)/2 (+- 2^-2148)` plus cancelling pairs.
fn ties() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    let formats = [
        (53, -1022),
        (24, -126),
        (11, -14),
        (8, -126),
        (4, -6),
        (3, -14),
    ];
    (
        0..formats.len(),
        any::<u64>(),
        -20i32..20,
        any::<bool>(),
        0u8..3,
        pairs(short(-10, 40), 0..6),
    )
        .prop_map(move |(f, m, e, negative, nudge, (px, py))| {
            let (p, emin) = formats[f];
            // a = M 2^(e - p + 1) with p significant bits; half an ulp is 2^(e - p).
            let e = e.max(emin);
            let significand = (m >> (64 - p)) | (1 << (p - 1));
            let a = significand as f64 * 2f64.powi(e - p + 1);
            let half = 2f64.powi(e - p);
            let mut x = vec![a, half];
            let mut y = vec![1.0, 1.0];
            match nudge {
                1 => {
                    x.push(f64::from_bits(1));
                    y.push(f64::from_bits(1));
                } // + 2^-2148
                2 => {
                    x.push(-f64::from_bits(1));
                    y.push(f64::from_bits(1));
                }
                _ => {}
            }
            for (a, b) in px.iter().zip(&py) {
                x.extend([*a, -*a]);
                y.extend([*b, *b]);
            }
            if negative {
                x.iter_mut().for_each(|v| *v = -*v);
            }
            (x, y)
        })
}

/// Products far beyond f64 whose sum comes back into range.
fn overflowing() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    let huge = (any::<bool>(), 1800u64..2047, any::<u64>())
        .prop_map(|(s, e, m)| f64::from_bits((s as u64) << 63 | e << 52 | (m & ((1 << 52) - 1))));
    (pairs(huge, 1..10), pairs(short(-50, 50), 0..6)).prop_map(|((x, y), (sx, sy))| {
        let mut xs = x.clone();
        let mut ys = y.clone();
        xs.extend([f64::MAX, f64::MAX]);
        ys.extend([2.0, 2.0]);
        xs.extend(sx);
        ys.extend(sy);
        xs.extend(x.iter().map(|v| -v));
        ys.extend(y);
        xs.extend([-f64::MAX, -f64::MAX]);
        ys.extend([2.0, 2.0]);
        (xs, ys)
    })
}

// ----- comparisons --------------------------------------------------------

fn check(
    fast: &ExactSum,
    reference: &mpfr::MpfrResult,
    computed: &[f64],
) -> Result<(), TestCaseError> {
    match (fast.non_finite(), reference.non_finite()) {
        (None, None) => {}
        (Some(a), Some(b)) => prop_assert!(same(a, b), "non-finite: fast {a} vs MPFR {b}"),
        (a, b) => prop_assert!(false, "non-finite: fast {a:?} vs MPFR {b:?}"),
    }
    prop_assert_eq!(fast.is_finite(), reference.exact().is_some());
    let exact = fast.to_float();
    prop_assert_eq!(exact.as_ref(), reference.exact(), "exact values differ");
    if let Some(e) = reference.exact() {
        let expected = e.cmp0().unwrap_or(Ordering::Equal);
        prop_assert_eq!(fast.signum(), expected);
        prop_assert_eq!(fast.is_zero(), e.is_zero());
    }
    for format in formats() {
        for mode in RoundingMode::ALL {
            let f = fast.round(format, mode);
            let r = reference.round(format, mode);
            prop_assert!(
                same(f, r),
                "{} {}: fast {:e} ({:#x}) vs MPFR {:e} ({:#x})",
                format,
                mode,
                f,
                f.to_bits(),
                r,
                r.to_bits()
            );
        }
    }
    prop_assert!(same(fast.to_f64(), reference.to_f64()));
    let mut candidates = computed.to_vec();
    let nearest = reference.to_f64();
    candidates.extend([
        nearest,
        nearest.next_up(),
        nearest.next_down(),
        0.0,
        1.0,
        Format::FP16.round(nearest, RoundingMode::NearestEven),
    ]);
    for c in candidates {
        check_error(fast.error_of(c), reference.error_of(c), c)?;
    }
    Ok(())
}

fn check_error(fast: ErrorMeasure, reference: ErrorMeasure, c: f64) -> Result<(), TestCaseError> {
    match (fast, reference) {
        (
            ErrorMeasure::Finite {
                absolute_up: a1,
                absolute_down: None,
                relative_up: r1,
                exact: e1,
            },
            ErrorMeasure::Finite {
                absolute_up: a2,
                absolute_down: None,
                relative_up: r2,
                exact: e2,
            },
        ) => {
            prop_assert!(
                same(a1, a2),
                "absolute error of {c:e}: fast {a1:e} vs MPFR {a2:e}"
            );
            prop_assert!(same(e1, e2));
            match (r1, r2) {
                (None, None) => {}
                // MPFR's is the ratio rounded up; ours may be one ulp above it.
                (Some(p), Some(q)) => prop_assert!(
                    p >= q && p <= q.next_up(),
                    "relative error of {c:e}: fast {p:e} vs MPFR {q:e}"
                ),
                other => prop_assert!(false, "relative error of {c:e}: {other:?}"),
            }
        }
        (
            ErrorMeasure::NonFinite {
                computed: c1,
                exact: e1,
            },
            ErrorMeasure::NonFinite {
                computed: c2,
                exact: e2,
            },
        ) => {
            prop_assert!(same(c1, c2) && same(e1, e2));
        }
        other => prop_assert!(false, "error measures of {c:e} differ: {other:?}"),
    }
    Ok(())
}

fn naive_dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn check_dot(x: &[f64], y: &[f64]) -> Result<(), TestCaseError> {
    let fast = dot(x, y).unwrap();
    let reference = mpfr::dot(x, y).unwrap();
    check(&fast, &reference, &[naive_dot(x, y)])?;
    // One product at a time, and two halves merged, give the same accumulator.
    let mut one_by_one = ExactSum::new();
    for (&a, &b) in x.iter().zip(y) {
        one_by_one.add_product(a, b);
    }
    check(&one_by_one, &reference, &[])?;
    let half = x.len() / 2;
    let mut left = dot(&x[..half], &y[..half]).unwrap();
    left.merge(&dot(&x[half..], &y[half..]).unwrap()).unwrap();
    check(&left, &reference, &[])
}

fn check_sum(x: &[f64]) -> Result<(), TestCaseError> {
    let fast = sum(x).unwrap();
    let reference = mpfr::sum(x).unwrap();
    check(&fast, &reference, &[x.iter().sum()])
}

// ----- property tests -----------------------------------------------------

proptest! {
    #![proptest_config(config(4096))]

    #[test]
    fn dot_wide_exponents((x, y) in pairs(wide(), 0..40)) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn dot_massive_cancellation((x, y) in cancelling()) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn dot_near_cancellation((x, y) in near_cancelling()) {
        check_dot(&x, &y)?;
    }

    #[test]
    fn dot_subnormal_products((x, y) in subnormal_products()) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn dot_exact_ties((x, y) in ties()) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn dot_overflowing_intermediates((x, y) in overflowing()) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn dot_with_nan_and_infinities((x, y) in pairs(with_specials(), 0..12)) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn abs_dot_is_the_upward_rounded_sum_of_magnitudes((x, y) in pairs(wide(), 1..30)) {
        let terms: Vec<Float> = x.iter().zip(&y).map(|(a, b)| mpfr::product(&[a.abs(), b.abs()])).collect();
        let reference = mpfr::sum_of_terms(&terms).round_f64(RoundingMode::Up);
        prop_assert!(same(abs_dot_up(&x, &y).unwrap(), reference));
    }
}

proptest! {
    // Long inputs take the large-accumulator path (1024 terms and more).
    #![proptest_config(Config { max_shrink_iters: 50, ..config(64) })]

    #[test]
    fn long_dot_wide_exponents((x, y) in pairs(wide(), 1024..2600)) {
        check_dot(&x, &y)?;
        check_sum(&x)?;
    }

    #[test]
    fn long_dot_massive_cancellation((x, y) in pairs(short(-40, 40), 600..1400)) {
        let mut xs = x.clone();
        let mut ys = y.clone();
        xs.extend(x.iter().map(|v| -v));
        ys.extend(&y);
        xs.push(2f64.powi(-1074));
        ys.push(0.75);
        check_dot(&xs, &ys)?;
        check_sum(&xs)?;
    }

    #[test]
    fn long_dot_with_specials((x, y) in pairs(with_specials(), 1024..1500)) {
        check_dot(&x, &y)?;
    }
}

#[test]
fn same_exponent_runs_fill_and_transfer_bins() {
    // 10^4 terms of one exponent: the large accumulator's bins fill (4096
    // additions) and are transferred mid-stream.
    let n = 10_000;
    let x: Vec<f64> = (0..n)
        .map(|i| 1.0 + (i % 97) as f64 * f64::EPSILON)
        .collect();
    // Unequal counts per sign, so that a wrong implicit-bit count cannot cancel.
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 3 == 0 { 1.5 } else { -1.25 })
        .collect();
    let fast = dot(&x, &y).unwrap();
    let reference = mpfr::dot(&x, &y).unwrap();
    check(&fast, &reference, &[naive_dot(&x, &y)]).unwrap();
}

#[test]
fn worst_case_repeated_terms_respect_capacities() {
    // Full 53-bit significands at every chunk alignment, 20000 times each: one
    // by one they exercise the carry budget of the small accumulator (2^11 - 1
    // additions of up to 2^52 per chunk), in bulk the capacity of a large bin
    // (4096 fraction fields of 52 ones).
    for shift in [0, 1, 17, 31] {
        let field = 1023 + 32 * 3 - (1023 + 2189) % 32 + shift;
        let v = f64::from_bits(((field as u64) << 52) | ((1 << 52) - 1));
        let x = vec![v; 20_000];
        let reference = mpfr::sum(&x).unwrap();
        let mut one_by_one = ExactSum::new();
        for &t in &x {
            one_by_one.add(t);
        }
        check(&one_by_one, &reference, &[]).unwrap();
        check(&sum(&x).unwrap(), &reference, &[]).unwrap();
        let y = vec![-1.0; 20_000];
        check(&dot(&x, &y).unwrap(), &mpfr::dot(&x, &y).unwrap(), &[]).unwrap();
    }
}

#[test]
fn empty_inputs_are_exact_zeros() {
    let fast = dot(&[], &[]).unwrap();
    let reference = mpfr::dot(&[], &[]).unwrap();
    check(&fast, &reference, &[]).unwrap();
    assert!(fast.is_zero());
    assert!(dot(&[1.0], &[]).is_err());
}

// ----- matrix oracles against naive MPFR loops ----------------------------

fn random_value(rng: &mut ChaCha8Rng) -> f64 {
    match rng.random_range(0..20) {
        0 => 0.0,
        1 => f64::from_bits(rng.random_range(1..1u64 << 52)),
        2..=4 => f64::from_bits(
            rng.random::<u64>() & !(0x7ffu64 << 52) | (rng.random_range(0..2047u64) << 52),
        ),
        _ => {
            let v = rng.random_range(-8.0..8.0) * 2f64.powi(rng.random_range(-20..20));
            Format::FP32.round(v, RoundingMode::NearestEven)
        }
    }
}

fn random_scalar(rng: &mut ChaCha8Rng) -> f64 {
    match rng.random_range(0..6) {
        0 => 0.0,
        1 => 1.0,
        2 => -1.0,
        _ => random_value(rng),
    }
}

fn random_vec(rng: &mut ChaCha8Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| random_value(rng)).collect()
}

/// Compares an oracle's outputs with MPFR sums of the given exact terms.
fn check_outputs(op: &dyn ExactOp, expected_terms: &[Vec<Float>], context: &str) {
    let expected: Vec<mpfr::MpfrResult> = expected_terms
        .iter()
        .map(|t| mpfr::sum_of_terms(t))
        .collect();
    assert_eq!(op.outputs(), expected.len(), "{context}");
    let exact = op.exact();
    for (i, (fast, reference)) in exact.iter().zip(&expected).enumerate() {
        check(fast, reference, &[]).unwrap_or_else(|e| panic!("{context}, output {i}: {e}"));
    }
    for mode in RoundingMode::ALL {
        let rounded = op.rounded(Format::FP32, mode);
        for (i, (r, reference)) in rounded.iter().zip(&expected).enumerate() {
            assert!(
                same(*r, reference.round(Format::FP32, mode)),
                "{context}, output {i}, {mode}"
            );
        }
    }
    let computed: Vec<f64> = expected
        .iter()
        .map(|r| Format::BF16.round(r.to_f64(), RoundingMode::NearestEven))
        .collect();
    let errors = op.errors(&computed).unwrap();
    for (i, ((fast, reference), c)) in errors.iter().zip(&expected).zip(&computed).enumerate() {
        check_error(*fast, reference.error_of(*c), *c)
            .unwrap_or_else(|e| panic!("{context}, output {i}: {e}"));
    }
    if !computed.is_empty() {
        assert!(
            op.errors(&computed[1..]).is_err(),
            "{context}: short computed output accepted"
        );
    }
}

/// The terms of `alpha sum_k a_k b_k + beta y0` as reference BLAS reads them.
fn blas_terms(alpha: f64, a: &[f64], b: &[f64], beta: f64, y0: Option<f64>) -> Vec<Float> {
    let mut terms = Vec::new();
    if alpha != 0.0 {
        terms.extend(
            a.iter()
                .zip(b)
                .map(|(&u, &v)| mpfr::product(&[alpha, u, v])),
        );
    }
    if beta != 0.0 {
        terms.push(mpfr::product(&[beta, y0.expect("y0 with beta")]));
    }
    terms
}

#[test]
fn gemv_matches_naive_mpfr() {
    let seed = SEED ^ 1;
    eprintln!("gemv: seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..if heavy() { 8000 } else { 500 } {
        let (m, n) = (rng.random_range(0..7), rng.random_range(0..9));
        let a_data = random_vec(&mut rng, m * n);
        let a = Matrix::new(m, n, &a_data).unwrap();
        let trans = if rng.random() {
            Transpose::Yes
        } else {
            Transpose::No
        };
        let (rows, cols) = if trans == Transpose::No {
            (m, n)
        } else {
            (n, m)
        };
        let x = random_vec(&mut rng, cols);
        let (alpha, beta) = (random_scalar(&mut rng), random_scalar(&mut rng));
        let y0 = random_vec(&mut rng, rows);
        let y0_arg = if beta != 0.0 || rng.random() {
            Some(&y0[..])
        } else {
            None
        };
        let op = Gemv::new(alpha, a, trans, &x, beta, y0_arg).unwrap();
        let expected: Vec<Vec<Float>> = (0..rows)
            .map(|i| {
                let row: Vec<f64> = (0..cols)
                    .map(|j| {
                        if trans == Transpose::No {
                            a.get(i, j)
                        } else {
                            a.get(j, i)
                        }
                    })
                    .collect();
                blas_terms(alpha, &row, &x, beta, Some(y0[i]))
            })
            .collect();
        check_outputs(
            &op,
            &expected,
            &format!("gemv case {case} ({m}x{n}, {trans:?}, alpha {alpha:e}, beta {beta:e})"),
        );
    }
}

#[test]
fn gemm_matches_naive_mpfr() {
    let seed = SEED ^ 2;
    eprintln!("gemm: seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..if heavy() { 4000 } else { 250 } {
        let (m, n, k) = (
            rng.random_range(0..5),
            rng.random_range(0..5),
            rng.random_range(0..7),
        );
        let trans_a = if rng.random() {
            Transpose::Yes
        } else {
            Transpose::No
        };
        let trans_b = if rng.random() {
            Transpose::Yes
        } else {
            Transpose::No
        };
        let a_data = random_vec(&mut rng, m * k);
        let b_data = random_vec(&mut rng, k * n);
        let a = op_matrix(&a_data, m, k, trans_a);
        let b = op_matrix(&b_data, k, n, trans_b);
        let op_a = |i: usize, l: usize| {
            if trans_a == Transpose::No {
                a.get(i, l)
            } else {
                a.get(l, i)
            }
        };
        let op_b = |l: usize, j: usize| {
            if trans_b == Transpose::No {
                b.get(l, j)
            } else {
                b.get(j, l)
            }
        };
        let (alpha, beta) = (random_scalar(&mut rng), random_scalar(&mut rng));
        let c0 = random_vec(&mut rng, m * n);
        let c0_arg = if beta != 0.0 { Some(&c0[..]) } else { None };
        let op = Gemm::new(alpha, a, trans_a, b, trans_b, beta, c0_arg).unwrap();
        let expected: Vec<_> = gemm_operands((m, n, k), op_a, op_b)
            .iter()
            .zip(&c0)
            .map(|((row, col), &c)| blas_terms(alpha, row, col, beta, Some(c)))
            .collect();
        check_outputs(
            &op,
            &expected,
            &format!("gemm case {case} ({m}x{k}x{n}, {trans_a:?} {trans_b:?})"),
        );
    }
}

#[test]
fn spmv_csr_and_ell_match_naive_mpfr() {
    let seed = SEED ^ 3;
    eprintln!("spmv: seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..if heavy() { 6000 } else { 400 } {
        let (rows, cols) = (rng.random_range(0..7), rng.random_range(1..9));
        // Row i holds up to `width` entries (repeated columns allowed).
        let width = rng.random_range(0..5);
        let mut entries: Vec<Vec<(usize, f64)>> = Vec::new();
        for _ in 0..rows {
            let len = rng.random_range(0..=width);
            entries.push(
                (0..len)
                    .map(|_| (rng.random_range(0..cols), random_value(&mut rng)))
                    .collect(),
            );
        }
        let x = random_vec(&mut rng, cols);
        let (alpha, beta) = (random_scalar(&mut rng), random_scalar(&mut rng));
        let y0 = random_vec(&mut rng, rows);
        let expected: Vec<Vec<Float>> = entries
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let (a, b) = row_operands(row, &x);
                blas_terms(alpha, &a, &b, beta, Some(y0[i]))
            })
            .collect();
        let y0_arg = if beta != 0.0 { Some(&y0[..]) } else { None };

        let (row_ptr, col_idx, values) = csr_arrays(&entries);
        let csr = Csr::new(rows, cols, &row_ptr, &col_idx, &values).unwrap();
        let op = Spmv::new(alpha, Sparse::Csr(csr), &x, beta, y0_arg).unwrap();
        check_outputs(&op, &expected, &format!("csr case {case}"));

        for layout in [EllLayout::RowMajor, EllLayout::ColumnMajor] {
            // Each row's entries first, then its padding.
            let (ell_cols, ell_values) =
                ell_arrays(&entries, width, layout, || (0..width).collect());
            let ell = Ell::new(rows, cols, width, layout, &ell_cols, &ell_values).unwrap();
            let op = Spmv::new(alpha, Sparse::Ell(ell), &x, beta, y0_arg).unwrap();
            check_outputs(&op, &expected, &format!("ell {layout:?} case {case}"));
        }
    }
}

#[test]
fn matrix_constructors_reject_bad_structure() {
    assert!(Matrix::new(usize::MAX, 2, &[]).is_err());
    assert!(Csr::new(2, 2, &[0, 1], &[0], &[1.0]).is_err()); // row_ptr too short
    assert!(Csr::new(1, 2, &[1, 1], &[], &[]).is_err()); // row_ptr[0] != 0
    assert!(Csr::new(1, 2, &[0, 2], &[0], &[1.0]).is_err()); // row_ptr[rows] != nnz
    assert!(Csr::new(1, 2, &[0, 1], &[0], &[1.0, 2.0]).is_err()); // col_idx vs values
    assert!(Ell::new(2, 2, 1, EllLayout::RowMajor, &[0], &[1.0]).is_err());
    assert!(Ell::new(1, 2, 1, EllLayout::RowMajor, &[2], &[1.0]).is_err());
    let a = Matrix::new(2, 3, &[0.0; 6]).unwrap();
    let b = Matrix::new(2, 3, &[0.0; 6]).unwrap();
    assert!(Gemm::new(1.0, a, Transpose::No, b, Transpose::No, 0.0, None).is_err());
    assert!(Gemm::new(1.0, a, Transpose::No, b, Transpose::Yes, 0.0, None).is_ok());
    assert!(
        Gemm::new(
            1.0,
            a,
            Transpose::No,
            b,
            Transpose::Yes,
            1.0,
            Some(&[0.0; 3])
        )
        .is_err()
    );
}
