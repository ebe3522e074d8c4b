//! The qdot kernel: Algorithm 3.2's selection against the checker's own
//! binning, Algorithm 3.1's computation bit for bit against a slow reference
//! written from the documented order with `Format` arithmetic only, and every
//! "Bad input" line of the issue (zeros, all-zero vectors, NaN and infinity,
//! subnormals, bad tolerances, n = 0 and n = 1, bins that would overflow fp16
//! without scaling), each a typed error or an explicit verdict.

use boundgate::Error;
use boundgate::generate::proptest_config;
use boundgate::io::Tensor;
use boundgate::kernels::qdot::compute::{
    compute, original_dot, original_dot_in, scale_round, tree_levels,
};
use boundgate::kernels::qdot::config::{
    HalfMode, Ladder, QdotConfig, Score, TileLayout, Tolerance,
};
use boundgate::kernels::qdot::distributions::strategies::{edge_pairs, paper_pairs};
use boundgate::kernels::qdot::select::{select, select_from_histogram};
use boundgate::kernels::{Inputs, KernelRun, Params, registry};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{BinArithmetic, Binning, ExponentBins, Fexp, TileOrder};
use boundgate_verify::check::Outcome;
use boundgate_verify::format::{Format, RoundingMode};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RNE: RoundingMode = RoundingMode::NearestEven;

fn run(x: &[f64], y: &[f64], params: &[&str]) -> Result<KernelRun, Error> {
    let k = registry::find("qdot").unwrap();
    let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
    let p = Params::parse(k, &params)?;
    let mut inputs = Inputs::new();
    inputs.insert("x".into(), Tensor::vector(x.to_vec()));
    inputs.insert("y".into(), Tensor::vector(y.to_vec()));
    k.run(&inputs, &p)
}

fn rigorous_outcome(r: &KernelRun) -> Outcome {
    r.verdicts().unwrap()[0].verdict.outcome.clone()
}

// ---------------------------------------------------------------------------
// The slow reference of Algorithm 3.1 (the order documented in compute.rs).

fn reference_fexp(x: f64, d: Fexp) -> i32 {
    // floor(log2 |x|) by repeated halving/doubling, then (1.1)'s ceiling.
    let mut a = x.abs();
    let mut e = 0i32;
    while a >= 2.0 {
        a /= 2.0;
        e += 1;
    }
    while a < 1.0 {
        a *= 2.0;
        e -= 1;
    }
    if d == Fexp::Paper && e < 0 && a != 1.0 {
        e + 1
    } else {
        e
    }
}

/// The bin exponent of index `(x, y)` under `c`'s binning: the exponent sum,
/// or `fexp` of the exact product (MPFR, 106 bits hold it).
fn reference_bin_exponent(x: f64, y: f64, c: &QdotConfig) -> i32 {
    match c.binning {
        Binning::Factors => reference_fexp(x, c.fexp) + reference_fexp(y, c.fexp),
        Binning::Product => {
            let p = rug::Float::with_val(128, x) * y;
            // p = m 2^exp with 1/2 <= |m| < 1.
            let exp = p.get_exp().unwrap();
            let floor = exp - 1;
            let power_of_two = (p.clone().abs() >> exp) == 0.5;
            if c.fexp == Fexp::Paper && floor < 0 && !power_of_two {
                floor + 1
            } else {
                floor
            }
        }
    }
}

/// `v / 2^e`, exact for a normal result (two steps: `2^e` may overflow).
fn div_pow2(v: f64, e: i32) -> f64 {
    v / 2f64.powi(e / 2) / 2f64.powi(e - e / 2)
}

fn reference_chain(arith: BinArithmetic, s: f64, a: f64, b: f64) -> f64 {
    if arith.format == Format::FP16 && arith.accumulator == Format::FP16 {
        Format::FP16.add(s, Format::FP16.mul(a, b, RNE), RNE)
    } else {
        arith.accumulator.fma(a, b, s, RNE)
    }
}

fn reference_compute(x: &[f64], y: &[f64], c: &QdotConfig, eps: Tolerance) -> f64 {
    let selection = select(x, y, eps, c).unwrap();
    let order = TileOrder {
        n: x.len(),
        tile: c.tile,
    };
    let tile = order.tile_len();
    let levels = c.levels();
    if selection.early_exit {
        let arith = c.input_level().arithmetic;
        let partials: Vec<f64> = (0..order.tiles())
            .map(|t| {
                (t * tile..((t + 1) * tile).min(x.len()))
                    .fold(0.0, |s, i| reference_chain(arith, s, x[i], y[i]))
            })
            .collect();
        let sum = tree_levels(&partials, |a, b| arith.accumulator.add(a, b, RNE));
        return c.input.round(sum, RNE);
    }
    let mut z: Option<f64> = None;
    for bin in &selection.bins {
        let Some(level) = bin.level else { continue };
        let arith = levels[level].arithmetic;
        let mut partials = vec![0.0; order.tiles()];
        for i in 0..x.len() {
            if x[i] == 0.0 || y[i] == 0.0 {
                continue;
            }
            if reference_bin_exponent(x[i], y[i], c) != bin.exponent {
                continue;
            }
            let fa = reference_fexp(x[i], c.fexp);
            let a = arith.format.round(div_pow2(x[i], fa), RNE);
            let b = arith.format.round(div_pow2(y[i], bin.exponent - fa), RNE);
            let t = i / tile;
            partials[t] = reference_chain(arith, partials[t], a, b);
        }
        let s = tree_levels(&partials, |a, b| arith.accumulator.add(a, b, RNE));
        let zk = scale_round(c.input.round(s, RNE), bin.exponent, c.input);
        z = Some(z.map_or(zk, |acc| c.input.add(acc, zk, RNE)));
    }
    z.unwrap_or(0.0)
}

fn configs() -> impl Strategy<Value = QdotConfig> {
    (
        prop::sample::select(vec![Format::FP64, Format::FP32, Format::FP16, Format::BF16]),
        prop::sample::select(Fexp::ALL.to_vec()),
        prop::sample::select(vec![HalfMode::Fp16Fp32, HalfMode::Fp16]),
        prop::sample::select(vec![Ladder::Paper, Ladder::Bf16]),
        prop::sample::select(vec![Score::EpsOverNbins, Score::Eps]),
        prop::sample::select(vec![0usize, 1, 2, 5, 64]),
        any::<bool>(),
        prop::sample::select(Binning::ALL.to_vec()),
    )
        .prop_map(
            |(input, fexp, half, ladder, score, tile, early_exit, binning)| {
                let mut c = QdotConfig::new(input).unwrap();
                (c.fexp, c.half, c.ladder, c.score, c.tile, c.early_exit) =
                    (fexp, half, ladder, score, tile, early_exit);
                c.binning = binning;
                c
            },
        )
}

proptest! {
    #![proptest_config(proptest_config(256, 20_000))]

    /// Algorithm 3.1 as implemented (native fp32/fp64 fast paths, streamed
    /// tree) equals the slow reference bit for bit; the selection's bins are
    /// the checker's exact binning, every nonzero index in exactly one.
    #[test]
    fn computation_matches_the_reference_bit_for_bit(
        (c, (x, y)) in configs().prop_flat_map(|c| {
            let pairs = prop_oneof![paper_pairs(c.input, 1..=80), edge_pairs(c.input, 1..=40)];
            (Just(c), pairs)
        }),
        eps in (-40i32..=-1).prop_map(|k| 2f64.powi(k) * 1.3),
    ) {
        let eps = Tolerance::new(eps).unwrap();
        let selection = select(&x, &y, eps, &c).unwrap();
        let got = compute(&x, &y, &selection, &c).unwrap().value;
        let want = reference_compute(&x, &y, &c, eps);
        prop_assert_eq!(got.to_bits(), want.to_bits(), "{} vs {}", got, want);
        let checker = ExponentBins::binned(&x, &y, c.fexp, c.binning).unwrap();
        prop_assert_eq!(checker.zeros as usize, selection.zeros);
        if !selection.early_exit {
            let ours: Vec<(i32, u64)> = selection.bins.iter().map(|b| (b.exponent, b.count as u64)).collect();
            let theirs: Vec<(i32, u64)> = checker.bins.iter().map(|b| (b.exponent, b.count)).collect();
            prop_assert_eq!(ours, theirs);
        }
    }
}

#[test]
fn the_original_kernel_is_the_tiled_dot() {
    let c = QdotConfig::new(Format::FP64).unwrap();
    let x: Vec<f64> = (0..300).map(|i| 1.0 / (i as f64 + 1.0)).collect();
    let y: Vec<f64> = (0..300).map(|i| (i as f64).sin()).collect();
    let order = TileOrder { n: 300, tile: 64 };
    let got = original_dot(&x, &y, c.input_level(), Format::FP64, order).unwrap();
    let partials: Vec<f64> = x
        .chunks(64)
        .zip(y.chunks(64))
        .map(|(a, b)| a.iter().zip(b).fold(0.0, |s, (p, q)| p.mul_add(*q, s)))
        .collect();
    assert_eq!(got, tree_levels(&partials, |a, b| a + b));
}

/// `v` permuted so that the interleaved tiles of `m` tiles of `len` indices
/// (index `t + j m` in tile `t`, place `j`) become contiguous tiles
/// (position `t len + j`). Needs `v.len() = m len`.
fn interleaved_to_contiguous(v: &[f64], m: usize, len: usize) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for t in 0..m {
        for j in 0..len {
            out[t * len + j] = v[t + j * m];
        }
    }
    out
}

proptest! {
    #![proptest_config(proptest_config(64, 4096))]

    /// The interleaved layout is the contiguous one on permuted vectors, bit
    /// for bit (when every tile is full): the binning is a function of each
    /// index's exponents, and ascending indices within an interleaved tile are
    /// ascending places within the contiguous one.
    #[test]
    fn the_interleaved_layout_is_the_contiguous_one_on_permuted_inputs(
        (input, tile, m) in (
            prop::sample::select(vec![Format::FP64, Format::FP32, Format::FP16]),
            1usize..9,
            1usize..12,
        ),
        half in prop::sample::select(vec![HalfMode::Fp16Fp32, HalfMode::Fp16]),
        early_exit in any::<bool>(),
        seed in any::<u64>(),
        eps in (-40i32..=-1).prop_map(|k| 2f64.powi(k) * 1.3),
    ) {
        let n = tile * m;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let value = |rng: &mut ChaCha8Rng| {
            // Exponents within fp16's range, so that every input format holds them.
            let v = rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-10..10));
            input.round(v, RoundingMode::NearestEven)
        };
        let x: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let y: Vec<f64> = (0..n).map(|_| value(&mut rng)).collect();
        let mut c = QdotConfig::new(input).unwrap();
        (c.tile, c.half, c.early_exit) = (tile, half, early_exit);
        let eps = Tolerance::new(eps).unwrap();
        let contiguous = {
            let (px, py) = (interleaved_to_contiguous(&x, m, tile), interleaved_to_contiguous(&y, m, tile));
            let s = select(&px, &py, eps, &c).unwrap();
            compute(&px, &py, &s, &c).unwrap()
        };
        c.layout = TileLayout::Interleaved;
        let s = select(&x, &y, eps, &c).unwrap();
        let interleaved = compute(&x, &y, &s, &c).unwrap();
        prop_assert_eq!(interleaved.value.to_bits(), contiguous.value.to_bits());
        let bits = |v: &[f64]| v.iter().map(|z| z.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&interleaved.bin_results), bits(&contiguous.bin_results));
        // The original kernel likewise.
        let order = TileOrder { n, tile };
        let level = c.input_level();
        let (px, py) = (interleaved_to_contiguous(&x, m, tile), interleaved_to_contiguous(&y, m, tile));
        prop_assert_eq!(
            original_dot_in(&x, &y, level, input, order, TileLayout::Interleaved).unwrap().to_bits(),
            original_dot(&px, &py, level, input, order).unwrap().to_bits()
        );
    }
}

#[test]
fn interleaved_tiles_are_round_robin_and_partial_tiles_are_short() {
    // n = 10, tile 4: 3 tiles {0, 3, 6, 9}, {1, 4, 7}, {2, 5, 8}.
    let c = QdotConfig::new(Format::FP64).unwrap();
    let x: Vec<f64> = (0..10).map(|i| 1.0 / (i as f64 + 3.0)).collect();
    let y: Vec<f64> = (0..10).map(|i| (i as f64 + 0.5).cos()).collect();
    let order = TileOrder { n: 10, tile: 4 };
    let chain = |idx: &[usize]| idx.iter().fold(0.0, |s, &i| x[i].mul_add(y[i], s));
    let partials = [chain(&[0, 3, 6, 9]), chain(&[1, 4, 7]), chain(&[2, 5, 8])];
    assert_eq!(
        original_dot_in(
            &x,
            &y,
            c.input_level(),
            Format::FP64,
            order,
            TileLayout::Interleaved
        )
        .unwrap(),
        tree_levels(&partials, |a, b| a + b)
    );
    assert_eq!(TileLayout::Interleaved.tile_of(9, 4, 3), 0);
    assert_eq!(TileLayout::Contiguous.tile_of(9, 4, 3), 2);
}

// ---------------------------------------------------------------------------
// Bad input, line by line.

#[test]
fn zero_products_get_no_bin_and_change_nothing() {
    // fexp(0) is undefined: indices with x_i y_i = 0 are left out of the binning.
    let x = [1.5, 0.0, 0.75, -0.0, 3.0];
    let y = [2.0, 7.0, 0.0, 1.0, 0.25];
    let r = run(&x, &y, &["eps=1e-6", "early_exit=false"]).unwrap();
    assert_eq!(r.output.data(), &[3.75]);
    assert_eq!(r.details["zero_products"], 3);
    let counted: u64 = r.details["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 2);
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
}

#[test]
fn all_zero_vectors_give_zero_and_no_relative_bound() {
    let r = run(&[0.0; 4], &[1.0, 2.0, 3.0, 4.0], &["eps=1e-3"]).unwrap();
    assert_eq!(r.output.data(), &[0.0]);
    assert_eq!(r.details["n_bins"], 0);
    assert_eq!(r.details["e_max"], serde_json::Value::Null);
    let verdicts = r.verdicts().unwrap();
    assert_eq!(verdicts[0].verdict.outcome, Outcome::Pass);
    assert_eq!(verdicts[0].verdict.bound.as_ref().unwrap().value, 0.0);
    // Theorem 3.2 (absolute) is 0 and holds; 3.3-3.5 need fexp(x^T y): no value.
    for v in &verdicts[1..] {
        match v.label.as_str() {
            l if l.contains("3.2") => assert_eq!(v.verdict.outcome, Outcome::Pass, "{l}"),
            l => assert!(
                matches!(&v.verdict.outcome, Outcome::HypothesisNotMet { reason } if reason.contains("x^T y = 0") || reason.contains("every product")),
                "{l}: {:?}",
                v.verdict.outcome
            ),
        }
    }
}

/// The computation phase on inputs its selection was not made for: typed
/// errors, each a panic (slice or index out of range) or, for `x` and `y` of
/// different lengths, a silently truncated zip until 2026-11-29.
#[test]
fn a_selection_that_cannot_drive_the_computation_is_a_typed_error() {
    let mut c = QdotConfig::new(Format::FP64).unwrap();
    c.early_exit = false;
    let eps = Tolerance::new(1e-8).unwrap();
    let (x, y) = ([2.0, 1.0, 0.0, 0.5], [1.0; 4]);
    let s = select(&x, &y, eps, &c).unwrap();
    assert_eq!(compute(&x, &y, &s, &c).unwrap().value, 3.5);
    let mismatch = |r| matches!(r, Err(VerifyError::LengthMismatch { .. }));
    // x and y of different lengths; a selection made on another length.
    assert!(mismatch(compute(&x, &y[..3], &s, &c)));
    assert!(mismatch(compute(&x[..3], &y[..3], &s, &c)));
    // The GPU's selection (counts per exponent) orders no indices on the host.
    let gpu = select_from_histogram(-1, &[1, 1, 1], 1, eps, &c).unwrap();
    assert!(matches!(
        compute(&x, &y, &gpu, &c),
        Err(VerifyError::InvalidParameter { .. })
    ));
    // A level the configuration lacks.
    let mut edited = s.clone();
    edited.bins[0].level = Some(c.levels().len());
    assert!(matches!(
        compute(&x, &y, &edited, &c),
        Err(VerifyError::InvalidParameter { .. })
    ));
    // A bin past the end of the order.
    let mut edited = s.clone();
    edited.bins[0].start = usize::MAX;
    assert!(matches!(
        compute(&x, &y, &edited, &c),
        Err(VerifyError::InvalidParameter { .. })
    ));
    // The original kernel likewise refuses x and y of different lengths.
    let order = TileOrder { n: 4, tile: 2 };
    assert!(original_dot(&x, &y[..3], c.input_level(), Format::FP64, order).is_err());
}

#[test]
fn nan_and_infinity_are_typed_errors() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = run(&[1.0, bad], &[1.0, 1.0], &["eps=1e-3"]).unwrap_err();
        assert!(
            matches!(e, Error::Verify(VerifyError::NonFinite { index: 1, .. })),
            "{e}"
        );
        let e = run(&[1.0, 1.0], &[bad, 1.0], &["eps=1e-3"]).unwrap_err();
        assert!(
            matches!(e, Error::Verify(VerifyError::NonFinite { index: 0, .. })),
            "{e}"
        );
    }
    // The library entry point says the same.
    let c = QdotConfig::new(Format::FP64).unwrap();
    let e = select(&[f64::NAN], &[1.0], Tolerance::new(0.1).unwrap(), &c).unwrap_err();
    assert!(matches!(e, VerifyError::NonFinite { .. }));
}

#[test]
fn subnormals_are_binned_by_their_true_exponent_and_bounded() {
    let tiny = f64::from_bits(3); // 3 * 2^-1074
    let x = [tiny, 1e-310, 1.0, f64::MIN_POSITIVE];
    let y = [1e300, 1e300, 1.0, 0.5];
    for fexp in ["ieee", "paper"] {
        let r = run(
            &x,
            &y,
            &["eps=1e-6", "early_exit=false", &format!("fexp={fexp}")],
        )
        .unwrap();
        assert_eq!(rigorous_outcome(&r), Outcome::Pass, "{fexp}");
        let exps: Vec<i64> = r.details["bins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["exponent"].as_i64().unwrap())
            .collect();
        // fexp(3 * 2^-1074) = -1073 (ieee) or -1072 ((1.1)); fexp(1e300) = 996.
        assert!(
            exps.contains(
                &(if fexp == "ieee" {
                    -1073 + 996
                } else {
                    -1072 + 996
                })
            ),
            "{exps:?}"
        );
    }
    // Products far below the f64 range: the rescale underflows, the bound accounts for it.
    let x = [1e-300, 1.0];
    let y = [1e-300, 1e-200];
    let r = run(&x, &y, &["eps=1e-12", "early_exit=false"]).unwrap();
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
}

#[test]
fn bad_tolerances_are_refused() {
    let k = registry::find("qdot").unwrap();
    for bad in ["0", "-1e-3", "1", "1.5", "NaN", "inf", "abc"] {
        let e = Params::parse(k, &[format!("eps={bad}")]).unwrap_err();
        assert!(e.to_string().contains("eps"), "{bad}: {e}");
    }
    for bad in [0.0, -1.0, 1.0, 7.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Tolerance::new(bad),
            Err(VerifyError::InvalidParameter { .. })
        ));
    }
}

#[test]
fn empty_mismatched_and_single_inputs() {
    assert!(matches!(
        run(&[], &[], &["eps=1e-3"]).unwrap_err(),
        Error::Verify(VerifyError::Empty { .. })
    ));
    assert!(matches!(
        run(&[1.0, 2.0], &[1.0], &["eps=1e-3"]).unwrap_err(),
        Error::Verify(VerifyError::LengthMismatch { .. })
    ));
    // n = 1: one bin, e_max = e_min. For eps = 1e-12 Theorem 3.6 applies
    // (0 <= 40 - 24) and the plain fp64 product runs.
    let r = run(&[3.0], &[0.1], &["eps=1e-12"]).unwrap();
    assert_eq!(r.output.data(), &[3.0 * 0.1]);
    assert_eq!(r.details["early_exit"], true);
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
    // For eps = 1e-3 it does not (0 > 10 - 24): the score 0 + 10 + 1 = 11 gives single.
    let r = run(&[3.0], &[0.1], &["eps=1e-3"]).unwrap();
    assert_eq!(r.details["early_exit"], false);
    assert_eq!(r.details["bins"][0]["precision"], "single");
    assert_eq!(r.output.data(), &[f64::from(3.0f32 * 0.1f32)]);
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
    let r = run(&[3.0], &[0.1], &["eps=0.25"]).unwrap();
    assert_eq!(r.details["bins"][0]["precision"], "half");
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
}

#[test]
fn unsupported_or_overflowing_input_precisions_are_typed_errors() {
    let e = run(&[1.0], &[1.0], &["input=e4m3"]).unwrap_err();
    assert!(e.to_string().contains("fp64, fp32, fp16 or bf16"), "{e}");
    let e = run(&[1e6, 1.0], &[1.0, 1.0], &["input=fp16"]).unwrap_err();
    assert!(
        matches!(e, Error::Verify(VerifyError::Overflow { .. })),
        "{e}"
    );
}

#[test]
fn bins_that_would_overflow_fp16_unscaled_are_computed_scaled() {
    // 1.3 2^100 * 2^100 is far beyond fp16 (65504): scaled to [1/2, 2) first,
    // the half bin (score 1 - 13 + 21 + 1 = 10) is computed and rescaled by
    // 2^200 in fp64.
    let x = [2f64.powi(113), 1.3 * 2f64.powi(100), 1.7 * 2f64.powi(100)];
    let y = [2f64.powi(100); 3];
    let r = run(&x, &y, &["eps=1e-6", "half=fp16"]).unwrap();
    assert_eq!(r.details["bins"][0]["precision"], "half", "{}", r.details);
    assert!(r.output.data()[0].is_finite());
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
    let rel = r.errors_as_given[0].relative_up().unwrap();
    assert!(rel < 1e-3, "relative error {rel:e}");
}

/// Theorem 3.6's early exit runs the original kernel on the unscaled inputs;
/// where that kernel could overflow, the bins are computed scaled instead
/// (review, 2026-11-26: `[300, 300] . [300, -300]` was NaN in pure fp16 and
/// `[2^100, 2^100] . [2^100, -2^100]` inf in fp32 and bf16, all exactly 0).
#[test]
fn the_early_exit_is_not_taken_where_the_unscaled_kernel_could_overflow() {
    let cases: [(&[f64], &[f64], &[&str]); 4] = [
        (
            &[300.0, 300.0],
            &[300.0, -300.0],
            &["input=fp16", "half=fp16"],
        ),
        (
            &[2f64.powi(100); 2],
            &[2f64.powi(100), -2f64.powi(100)],
            &["input=fp32"],
        ),
        (
            &[2f64.powi(100); 2],
            &[2f64.powi(100), -2f64.powi(100)],
            &["input=bf16"],
        ),
        (
            &[2f64.powi(600); 2],
            &[2f64.powi(600), -2f64.powi(600)],
            &["input=fp64"],
        ),
    ];
    for (k, (x, y, params)) in cases.into_iter().enumerate() {
        let r = run(x, y, params).unwrap();
        assert_eq!(r.output.data()[0], 0.0, "{params:?}: {}", r.details);
        assert_eq!(r.details["early_exit"], false, "{params:?}");
        match rigorous_outcome(&r) {
            // [300, 300] . [300, -300]: the bin's result and the sum fit fp16.
            Outcome::Pass if k == 0 => {}
            // Products 2^200 (2^1200): any nonzero bin result, rescaled,
            // overflows the input format; only the exact cancellation keeps
            // it finite, which an a-priori error bound cannot certify.
            Outcome::HypothesisNotMet { reason } if k > 0 => {
                assert!(reason.contains("overflow"), "{params:?}: {reason}")
            }
            other => panic!("{params:?}: {other:?}"),
        }
    }
    // Where the original kernel fits, the early exit is still taken.
    let r = run(&[3.0, 1.0], &[5.0, 1.0], &["input=fp16", "half=fp16"]).unwrap();
    assert_eq!(r.output.data()[0], 16.0);
    assert_eq!(r.details["early_exit"], true, "{}", r.details);
    // No bin was scored: no score tolerance to report.
    assert!(r.details["score_divisor"].is_null(), "{}", r.details);
}

/// The overflow checks of the conversions to the input format and of the
/// bins' sum read enclosures of the signed results, not the magnitudes:
/// `[200, -200, 1] . [200, 200, 1]` in fp16 (`sum |x_i y_i| = 80001 > 65504`,
/// exactly 1) was "no bound" on both paths (review, 2026-11-26).
#[test]
fn cancelling_products_beyond_the_input_range_have_a_bound() {
    let (x, y) = ([200.0, -200.0, 1.0], [200.0, 200.0, 1.0]);
    for early_exit in ["early_exit=true", "early_exit=false"] {
        let r = run(&x, &y, &["input=fp16", early_exit]).unwrap();
        assert_eq!(r.output.data()[0], 1.0, "{early_exit}");
        assert_eq!(rigorous_outcome(&r), Outcome::Pass, "{early_exit}");
    }
    // Magnitudes that do reach beyond fp16 still have no bound: 300 * 300
    // in one product.
    let r = run(&[300.0], &[300.0], &["input=fp16"]).unwrap();
    assert!(
        matches!(rigorous_outcome(&r), Outcome::HypothesisNotMet { reason } if reason.contains("overflow")),
    );
}

#[test]
fn a_pure_fp16_bin_that_overflows_even_scaled_is_an_explicit_verdict() {
    // 40 000 products 2.25 in one pure-fp16 half bin sum past 65504: the kernel
    // returns infinity, the rigorous bound refuses (possible overflow), and
    // the verdict says so instead of a number.
    let n = 40_001;
    let mut x = vec![1.5 * 2f64.powi(-30); n];
    x[0] = 1.0;
    let y = vec![1.5; n];
    // (Sequentially, fp16 stagnates at 8192 instead: 2.25 is below half its
    // spacing; the tiled order adds tile sums and overflows.)
    let r = run(&x, &y, &["eps=1e-6", "half=fp16", "tile=64"]).unwrap();
    assert_eq!(r.output.data()[0], f64::INFINITY);
    assert!(
        matches!(rigorous_outcome(&r), Outcome::HypothesisNotMet { reason } if reason.contains("overflow")),
    );
    // With fp32 accumulation (tensor cores) the same input is fine.
    let r = run(&x, &y, &["eps=1e-6", "half=fp16-fp32", "tile=64"]).unwrap();
    assert!(r.output.data()[0].is_finite());
    assert_eq!(rigorous_outcome(&r), Outcome::Pass);
}

#[test]
fn inputs_not_in_the_input_precision_are_rounded_and_bounded_as_given() {
    let x = [0.1, 0.2, 0.3, 1e-3];
    let y = [3.0, 1.0 / 3.0, 7.0, 0.9];
    for input in ["fp32", "fp16", "bf16"] {
        let r = run(&x, &y, &["eps=1e-3", &format!("input={input}")]).unwrap();
        let v = r.verdicts().unwrap();
        assert_eq!(v[0].verdict.outcome, Outcome::Pass, "{input}");
        let hyps = &v[0].verdict.bound.as_ref().unwrap().hypotheses;
        assert!(
            hyps.iter().any(|h| h.statement.contains("inputs rounded")),
            "{input}"
        );
    }
}

#[test]
fn the_json_details_name_bins_precisions_and_published_bounds() {
    let x: Vec<f64> = (0..50).map(|i| 1.3f64.powi(i - 25)).collect();
    let y = vec![1.0; 50];
    let r = run(&x, &y, &["eps=1e-4", "early_exit=false"]).unwrap();
    let d = &r.details;
    assert!(d["n_bins"].as_u64().unwrap() > 5);
    for b in d["bins"].as_array().unwrap() {
        assert!(
            ["perforate", "half", "single", "double"].contains(&b["precision"].as_str().unwrap())
        );
    }
    let labels: Vec<&str> = d["bounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert!(labels.iter().any(|l| l.contains("Thm 3.5")));
    assert!(labels.iter().any(|l| l.contains("corrected")));
}
