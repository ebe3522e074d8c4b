//! Findings about the published qdot bounds (docs/findings/qdot.md).
//!
//! Each regression test below is a counterexample found by the search at the
//! end of this file (proptest shrinking over the paper's distributions and
//! the exponent-range edge cases) or derived from it, kept with its exact
//! numbers: the published bound is violated while the corrected rigorous
//! bound holds. Run the search itself with
//! `cargo test -p boundgate --test qdot_findings -- --ignored --nocapture`.

use boundgate::generate::PROPTEST_SEED;
use boundgate::kernels::qdot::bounds::{QdotBounds, evaluate};
use boundgate::kernels::qdot::compute::compute;
use boundgate::kernels::qdot::config::{HalfMode, QdotConfig, Score, Tolerance};
use boundgate::kernels::qdot::distributions::strategies::{edge_pairs, paper_pairs};
use boundgate::kernels::qdot::select::select;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::Bound;
use boundgate_verify::bounds::qdot::{Binning, Fexp};
use boundgate_verify::format::Format;
use boundgate_verify::oracle::{self, ExactSum};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestError, TestRunner};

/// One qdot run and everything needed to judge it.
struct Run {
    z: f64,
    exact: ExactSum,
    bounds: QdotBounds,
}

impl Run {
    fn new(x: &[f64], y: &[f64], c: &QdotConfig, eps: f64) -> Run {
        let eps = Tolerance::new(eps).unwrap();
        let s = select(x, y, eps, c).unwrap();
        let z = compute(x, y, &s, c).unwrap().value;
        let exact = oracle::dot(x, y).unwrap();
        let bounds = evaluate(x, y, &s, c, eps, &exact).unwrap();
        Run { z, exact, bounds }
    }
    fn error(&self) -> f64 {
        self.exact.error_of(self.z).absolute_up().expect("finite")
    }
    fn relative_error(&self) -> f64 {
        self.exact
            .error_of(self.z)
            .relative_up()
            .expect("nonzero result")
    }
    fn get(&self, which: Theorem) -> &Result<Bound, VerifyError> {
        match which {
            Theorem::T32 => &self.bounds.thm_3_2,
            Theorem::T33 => &self.bounds.thm_3_3,
            Theorem::T34 => &self.bounds.thm_3_4,
            Theorem::T35 => &self.bounds.thm_3_5,
        }
    }
    /// The published bound's value (absolute form).
    fn published(&self, which: Theorem) -> f64 {
        self.get(which).as_ref().expect("the theorem applies").value
    }
    fn rigorous(&self) -> f64 {
        self.bounds
            .rigorous
            .as_ref()
            .expect("rigorous has a value")
            .value
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Theorem {
    T32,
    T33,
    T34,
    T35,
}

fn config(half: HalfMode, fexp: Fexp, tile: usize, early_exit: bool) -> QdotConfig {
    let mut c = QdotConfig::new(Format::FP64).unwrap();
    c.half = half;
    c.fexp = fexp;
    c.tile = tile;
    c.early_exit = early_exit;
    c
}

/// Finding 3's input (found by the search over the edge cases), used twice.
const FINDING_3_X: [f64; 10] = [
    1.0,
    1.0,
    0.015625,
    0.0,
    8.0,
    1.0,
    1.0,
    0.015625,
    1.6030796170234682,
    8.0,
];
const FINDING_3_Y: [f64; 10] = [
    1.0,
    1.0,
    0.25,
    0.0232832720503211,
    64.0,
    -1.0,
    -1.0,
    -0.25,
    -0.023283272050321102,
    -64.00000000000001,
];

/// Finding 1: Theorem 3.2 fails on one element. `x = y = 2 - 2^-11 + 2^-30`
/// (bin exponent 0, so the proof's `|x y| < 2^(u + 1) = 2` is false: x y is
/// almost 4) is put in a half bin by (3.9) for eps = 2^-9; both factors round
/// up to 2 in fp16, so qdot returns 4 and the error is about 2^-9, twice the
/// printed bound `M 2^(u+1) eps(half) = 2^-10`.
#[test]
fn thm_3_2_fails_on_a_single_element_half_bin() {
    let v = 2.0 - 2f64.powi(-11) + 2f64.powi(-30);
    let (x, y) = ([v], [v]);
    for half in [HalfMode::Fp16Fp32, HalfMode::Fp16] {
        let run = Run::new(&x, &y, &config(half, Fexp::Ieee, 64, false), 2f64.powi(-9));
        assert_eq!(run.z, 4.0);
        assert_eq!(run.published(Theorem::T32), 2f64.powi(-10));
        let error = run.error();
        assert!(error > 1.99 * 2f64.powi(-10), "error {error:e}");
        assert!(error > run.published(Theorem::T32));
        assert!(error <= run.rigorous());
        // The relative forms hold here: 3.3 has room since |x^T y| ~ 4 > 2^e_max.
        assert!(error <= run.published(Theorem::T33));
    }
}

/// Gap (b) alone, on an input where Algorithm 3.2's bins (by `fexp(x) +
/// fexp(y)`) and the theorems' bins (Def. 3.1 on `x ⊙ y`, by `fexp(x y)`)
/// coincide: x = y = 1.41357421875 + 2^-30, both factors rounded up to fp16,
/// the product just below 2, bin 0 either way. Theorem 3.2 as printed fails
/// by the factor (1 + eps)^2 - 1 ~ 2 eps of two rounded factors (ratio 1.41;
/// under eps(k) = 2^-p, docs/findings/qdot.md). Found by review, 2026-11-25,
/// which also showed that findings 1-3 and 5 rest on the two binnings
/// differing (docs/findings/qdot.md, "Which bins").
#[test]
fn thm_3_2_fails_on_bins_that_both_definitions_share() {
    let v = 1.41357421875 + 2f64.powi(-30);
    let (x, y) = ([v], [v]);
    let product = v * v;
    assert!(
        (1.0..2.0).contains(&product),
        "fexp(x y) = 0 = fexp(x) + fexp(y)"
    );
    for binning in Binning::ALL {
        let c = QdotConfig {
            binning,
            ..config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true)
        };
        let run = Run::new(&x, &y, &c, 2f64.powi(-9));
        assert_eq!(run.bounds.bins.bins[0].exponent, 0, "{binning}");
        assert_eq!(run.z, 1.99957275390625);
        let ratio = violates(
            &format!("thm 3.2, shared bins, {binning}"),
            &run,
            Theorem::T32,
        );
        assert!(ratio > 1.4, "ratio {ratio}");
    }
}

/// A finding's input under both binnings: name, `x`, `y`, configuration, eps,
/// theorem, the ratio it exceeds on Algorithm 3.2's bins and the one it stays
/// below on Def. 3.1's.
type BinningCase = (
    &'static str,
    Vec<f64>,
    Vec<f64>,
    QdotConfig,
    f64,
    Theorem,
    f64,
    f64,
);

/// A counterexample on Def. 3.1's bins: name, `x`, `y`, eps, theorem, and the
/// ratio error / bound it exceeds.
type OwnBinsCase = (&'static str, Vec<f64>, Vec<f64>, f64, Theorem, f64);

/// Findings 1, 2, 3 and 5 evaluate the printed bounds on Algorithm 3.2's bins
/// (by `fexp(x) + fexp(y)`). On the theorems' own bins (Def. 3.1 on `x ⊙ y`,
/// `binning = product`: the selection, the computation and the bounds all on
/// those bins) the same inputs meet the theorems: the table of "Which bins" in
/// docs/findings/qdot.md, with the kernel's result unchanged on each.
#[test]
fn findings_1_to_3_and_5_hold_on_the_theorems_own_bins() {
    let v = 2.0 - 2f64.powi(-11) + 2f64.powi(-30);

    let ieee = config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true);
    let cases: [BinningCase; 5] = [
        (
            "1 minimal",
            vec![v],
            vec![v],
            QdotConfig {
                early_exit: false,
                ..ieee
            },
            2f64.powi(-9),
            Theorem::T32,
            1.999,
            0.9999,
        ),
        (
            "1 default",
            vec![0.35640989642187004, 2.527921218472206],
            vec![19.225108538373703, 0.9739935375479745],
            default_config(),
            2f64.powi(-24),
            Theorem::T32,
            1.107,
            0.924,
        ),
        (
            "2",
            vec![1.0, 0.3355246335268021],
            vec![16.303294355841473, 0.4229691177606583],
            default_config(),
            2f64.powi(-28),
            Theorem::T33,
            1.934,
            0.968,
        ),
        (
            "3",
            FINDING_3_X.to_vec(),
            FINDING_3_Y.to_vec(),
            default_config(),
            2f64.powi(-28),
            Theorem::T34,
            1.139,
            0.685,
        ),
        (
            "5",
            vec![0.27537114549268144, 1.776676064212141],
            vec![0.26356173082153955, 0.029506056467803826],
            config(HalfMode::Fp16Fp32, Fexp::Paper, 64, true),
            2f64.powi(-22),
            Theorem::T33,
            1.053,
            0.264,
        ),
    ];
    for (name, x, y, c, eps, theorem, over, under) in cases {
        let sums = Run::new(&x, &y, &c, eps);
        let products = Run::new(
            &x,
            &y,
            &QdotConfig {
                binning: Binning::Product,
                ..c
            },
            eps,
        );
        assert_eq!(sums.z, products.z, "finding {name}: same result");
        let ratio = |r: &Run| r.error() / r.published(theorem);
        println!(
            "finding {name}, {theorem:?}: ratio {:.5} on Alg. 3.2's bins, {:.5} on Def. 3.1's",
            ratio(&sums),
            ratio(&products)
        );
        assert!(ratio(&sums) > over, "finding {name}");
        assert!(ratio(&products) < under, "finding {name}");
        assert!(products.error() <= products.rigorous());
    }
}

/// Finding 6: on the theorems' own bins (Def. 3.1 on `x ⊙ y`, `binning =
/// product`) and at tolerances the input precision can meet, Theorems 3.2-3.4
/// still fail in the default configuration: the proof's (3.3) takes the
/// result as the exact sum of the rounded products, but Algorithm 3.1 adds
/// them in floating point, inside each bin and across bins (gap (c)). Found
/// by `search_published_violations` (product bins, eps >= 2^-40), shrunk.
/// In (c), every product is exact (`y = 1`, fp64 bins) and the error is
/// nonzero, which (3.3) says cannot happen.
#[test]
fn theorems_3_2_to_3_4_fail_on_their_own_bins() {
    let repeated = |first: f64, rest: f64, n: usize| {
        let mut v = vec![rest; n];
        v[0] = first;
        v
    };
    let mut d = repeated(-1.0, 0.00787003937253021, 26);
    d[10] = 0.0;
    let cases: [OwnBinsCase; 5] = [
        (
            "(a) fp64 bins, the cross-bin sum rounds",
            vec![0.1913678124547005, 11.4753321647517],
            vec![0.026711597240857574, 22.30863776517821],
            2f64.powi(-37),
            Theorem::T32,
            1.12,
        ),
        (
            "(b) an fp32 bin of 23 equal values",
            repeated(0.5, 0.016015395251256642, 24),
            vec![1.0; 24],
            2f64.powi(-9),
            Theorem::T32,
            1.07,
        ),
        (
            "(c) an fp64 bin of 24 exact products",
            repeated(0.25, 0.016432577629963693, 25),
            vec![1.0; 25],
            3.725290298461915e-9,
            Theorem::T32,
            2.5,
        ),
        (
            "(c) the same, relative (hypothesis e_max <= fexp(x^T y) holds)",
            repeated(0.25, 0.016432577629963693, 25),
            vec![1.0; 25],
            3.725290298461915e-9,
            Theorem::T33,
            1.008,
        ),
        (
            "(d) cancellation, an fp32 bin",
            d,
            vec![1.0; 26],
            2f64.powi(-22),
            Theorem::T34,
            1.08,
        ),
    ];
    let own = QdotConfig {
        binning: Binning::Product,
        ..default_config()
    };
    for (name, x, y, eps, theorem, ratio) in cases {
        let run = Run::new(&x, &y, &own, eps);
        assert!(violates(name, &run, theorem) > ratio, "{name}");
    }
}

/// Checks a counterexample: the published bound `which` is violated, the
/// rigorous bound holds; prints the numbers docs/findings/qdot.md quotes.
fn violates(name: &str, run: &Run, which: Theorem) -> f64 {
    let error = run.error();
    let published = run.published(which);
    let rigorous = run.rigorous();
    println!(
        "{name}: z = {:e}, exact = {:e}, error = {error:e} (relative {:e}), {which:?} = {published:e} (ratio {:.3}), rigorous = {rigorous:e}",
        run.z,
        run.exact.to_f64(),
        run.relative_error(),
        error / published
    );
    assert!(error > published, "{name}: {error:e} <= {published:e}");
    assert!(
        error <= rigorous,
        "{name}: rigorous {rigorous:e} < {error:e}"
    );
    error / published
}

fn default_config() -> QdotConfig {
    QdotConfig::new(Format::FP64).unwrap()
}

/// Finding 1 in the default configuration (found by the search): two
/// elements, eps = 2^-24.
#[test]
fn thm_3_2_fails_in_the_default_configuration() {
    let x = [0.35640989642187004, 2.527921218472206];
    let y = [19.225108538373703, 0.9739935375479745];
    let run = Run::new(&x, &y, &default_config(), 2f64.powi(-24));
    assert!(violates("thm 3.2, default", &run, Theorem::T32) > 1.1);
}

/// Finding 2: Theorem 3.3 (relative, its hypothesis `e_max <= fexp(x^T y)`
/// holds) fails in the default configuration (found by the search).
#[test]
fn thm_3_3_fails_in_the_default_configuration() {
    let x = [1.0, 0.3355246335268021];
    let y = [16.303294355841473, 0.4229691177606583];
    let run = Run::new(&x, &y, &default_config(), 2f64.powi(-28));
    assert!(
        run.bounds
            .thm_3_3
            .as_ref()
            .unwrap()
            .hypotheses
            .iter()
            .any(|h| h.statement.contains("e_max"))
    );
    assert!(violates("thm 3.3, default", &run, Theorem::T33) > 1.9);
}

/// Finding 3: Theorem 3.4 (relative, `e_max > fexp(x^T y)`: cancellation)
/// fails in the default configuration (found by the search over edge cases).
#[test]
fn thm_3_4_fails_under_cancellation() {
    let (x, y) = (FINDING_3_X, FINDING_3_Y);
    let run = Run::new(&x, &y, &default_config(), 2f64.powi(-28));
    assert!(violates("thm 3.4, default", &run, Theorem::T34) > 1.1);
}

/// Finding 4a: Theorem 3.5 at the tolerance of the paper's Fig. 1,
/// eps = 1e-16, below the fp64 unit roundoff: one product rounded once in
/// fp64 already exceeds `N_bins eps = eps`.
#[test]
fn thm_3_5_fails_below_the_input_unit_roundoff() {
    let (x, y) = ([0.8225672575100866], [0.6480362940931907]);
    let run = Run::new(&x, &y, &default_config(), 1e-16);
    assert!(violates("thm 3.5, eps = 1e-16", &run, Theorem::T35) > 1.0);
    assert!(run.relative_error() > 1e-16);
    // The bin's score (55 >= 53) has no case in (3.9) as printed: the bound
    // says which reading it takes (review, 2026-11-26).
    let bound = run.bounds.thm_3_5.as_ref().unwrap();
    assert!(
        bound
            .hypotheses
            .iter()
            .any(|h| h.statement.contains("read as the input precision")),
        "{:?}",
        bound.hypotheses
    );
}

/// Finding 4b: Theorem 3.5 with pure fp16 half bins (no tensor cores) in a
/// sequential order: 4096 products 2^-25 under a dominant 1 are put in a half
/// bin (score 9 < 11) and the fp16 sum of 4096 ones stops at 2048, so half
/// the bin is lost: the error is 64 times the printed `eps` (eps = 2^-20,
/// `eps / N_bins` in the score).
#[test]
fn thm_3_5_fails_with_pure_fp16_accumulation() {
    let mut x = vec![2f64.powi(-25); 4097];
    x[0] = 1.0;
    let y = vec![1.0; 4097];
    let run = Run::new(
        &x,
        &y,
        &config(HalfMode::Fp16, Fexp::Ieee, 0, true),
        2f64.powi(-20),
    );
    assert_eq!(run.z, 1.0 + 2048.0 * 2f64.powi(-25));
    assert!(violates("thm 3.5, pure fp16", &run, Theorem::T35) > 60.0);
    // The bins are powers of two, the same for both binnings: on the
    // theorems' own bins, Theorems 3.2 and 3.3 fail too, by 256 (the printed
    // bound counts one rounding of a product, not 4095 fp16 additions).
    let own = QdotConfig {
        binning: Binning::Product,
        ..config(HalfMode::Fp16, Fexp::Ieee, 0, true)
    };
    let run = Run::new(&x, &y, &own, 2f64.powi(-20));
    assert_eq!(run.z, 1.0 + 2048.0 * 2f64.powi(-25));
    assert!(violates("thm 3.2, pure fp16, Def. 3.1 bins", &run, Theorem::T32) > 255.0);
    assert!(violates("thm 3.3, pure fp16, Def. 3.1 bins", &run, Theorem::T33) > 255.0);
    assert!(violates("thm 3.5, pure fp16, Def. 3.1 bins", &run, Theorem::T35) > 60.0);
    // With fp32 accumulation (tensor cores) or the tiled order the same input is fine.
    for c in [
        config(HalfMode::Fp16Fp32, Fexp::Ieee, 0, true),
        default_config(),
    ] {
        let run = Run::new(&x, &y, &c, 2f64.powi(-20));
        assert!(run.error() <= run.published(Theorem::T35));
    }
}

/// Finding 5: the two `fexp` definitions. Under eq. (1.1), `fexp(x^T y)` is
/// the ceiling for `|x^T y| < 1`, so Theorem 3.3's hypothesis
/// `e_max <= fexp(x^T y)` accepts inputs with `|x^T y| < 2^E`, where the
/// proof's step `|x^T y| >= 2^E` is false. On this input (found by
/// `search_fexp_difference`) Theorem 3.3 with (1.1) is violated, while with
/// the IEEE exponent the theorem that applies holds.
#[test]
fn thm_3_3_fails_with_the_fexp_of_eq_1_1_only() {
    let x = [0.27537114549268144, 1.776676064212141];
    let y = [0.26356173082153955, 0.029506056467803826];
    let eps = 2f64.powi(-22);
    let paper = Run::new(
        &x,
        &y,
        &config(HalfMode::Fp16Fp32, Fexp::Paper, 64, true),
        eps,
    );
    let e = paper.bounds.dot_fexp.expect("nonzero");
    let magnitude = paper.exact.to_f64().abs();
    println!(
        "fexp (1.1) of x^T y = {e}, |x^T y| = {magnitude:e}, 2^E = {:e}",
        2f64.powi(e as i32)
    );
    assert!(
        magnitude < 2f64.powi(e as i32),
        "the proof's |x^T y| >= 2^E fails"
    );
    violates("thm 3.3, fexp (1.1)", &paper, Theorem::T33);
    let ieee = Run::new(
        &x,
        &y,
        &config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true),
        eps,
    );
    let holds = [&ieee.bounds.thm_3_3, &ieee.bounds.thm_3_4]
        .iter()
        .filter_map(|b| b.as_ref().ok())
        .any(|b| ieee.error() <= b.value);
    assert!(holds, "with the IEEE exponent the applicable theorem holds");
}

/// Where the search draws inputs from.
#[derive(Clone, Copy, Debug)]
enum Inputs {
    Paper,
    Edges,
}

/// Searches for a violation of `theorem` with proptest and prints the shrunk
/// counterexample (or that none was found).
fn search(
    theorem: Theorem,
    c: QdotConfig,
    inputs: Inputs,
    cases: u32,
    smallest_eps: i32,
) -> Option<String> {
    let mut runner = TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(PROPTEST_SEED),
        failure_persistence: None,
        ..Config::default()
    });
    let pairs = match inputs {
        Inputs::Paper => paper_pairs(Format::FP64, 1..=64),
        Inputs::Edges => edge_pairs(Format::FP64, 1..=32),
    };
    // Tolerances from 2^smallest_eps to 1/2: powers of two and 10^k.
    let eps = prop_oneof![
        (smallest_eps..=-1).prop_map(|k| 2f64.powi(k)),
        (smallest_eps..=-1).prop_map(|k| 10f64.powf(f64::from(k) * 2f64.log10())),
    ];
    let result = runner.run(&(pairs, eps), |((x, y), eps)| {
        let run = Run::new(&x, &y, &c, eps);
        if let (Ok(b), Some(error)) = (run.get(theorem), run.exact.error_of(run.z).absolute_up()) {
            prop_assert!(error <= b.value, "error {error:e} > bound {:e}", b.value);
        }
        Ok(())
    });
    match result {
        Ok(()) => None,
        Err(TestError::Fail(reason, ((x, y), eps))) => Some(format!(
            "{reason}\n      x = {x:?}\n      y = {y:?}\n      eps = {eps:e}"
        )),
        Err(TestError::Abort(reason)) => Some(format!("aborted: {reason}")),
    }
}

/// The search behind the findings: every printed theorem, four
/// configurations, both binnings, both input sources. Prints what it finds.
#[test]
#[ignore = "a search: run with --ignored --nocapture; its counterexamples are the tests above"]
fn search_published_violations() {
    let cases = 4000;
    let configs = [
        (
            "default (fp16-fp32, ieee fexp, tile 64)",
            config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true),
        ),
        (
            "pure fp16, sequential",
            config(HalfMode::Fp16, Fexp::Ieee, 0, true),
        ),
        (
            "paper fexp (1.1)",
            config(HalfMode::Fp16Fp32, Fexp::Paper, 64, true),
        ),
        ("score eps (as printed)", {
            let mut c = config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true);
            c.score = Score::Eps;
            c
        }),
    ];
    // Every tolerance down to 2^-54 (below the fp64 unit roundoff, as the
    // paper's Fig. 1 uses), then only tolerances the fp64 accumulation can
    // meet (>= 2^-40).
    // Both binnings: Algorithm 3.2's (the default) and the theorems' own
    // Def. 3.1 bins of x ⊙ y ("Which bins" in docs/findings/qdot.md).
    for binning in Binning::ALL {
        for smallest in [-54, -40] {
            for theorem in [Theorem::T32, Theorem::T33, Theorem::T34, Theorem::T35] {
                for (name, c) in &configs {
                    let c = QdotConfig { binning, ..*c };
                    for inputs in [Inputs::Paper, Inputs::Edges] {
                        let what = format!(
                            "{binning} bins / {theorem:?} / {name} / {inputs:?} / eps >= 2^{smallest}"
                        );
                        match search(theorem, c, inputs, cases, smallest) {
                            None => println!("{what}: none in {cases} cases"),
                            Some(found) => println!("{what}: VIOLATED\n      {found}"),
                        }
                    }
                }
            }
        }
    }
}

/// The search behind finding 5: an input on which Theorem 3.3 with the `fexp`
/// of eq. (1.1) is violated while the theorem that applies with the IEEE
/// exponent (3.3 or 3.4) holds.
#[test]
#[ignore = "a search: run with --ignored --nocapture"]
fn search_fexp_difference() {
    let mut runner = TestRunner::new(Config {
        cases: 20_000,
        rng_seed: RngSeed::Fixed(PROPTEST_SEED),
        failure_persistence: None,
        ..Config::default()
    });
    let pairs = prop_oneof![
        paper_pairs(Format::FP64, 1..=6),
        edge_pairs(Format::FP64, 1..=6)
    ];
    let eps = (-30i32..=-2).prop_map(|k| 2f64.powi(k));
    let paper = config(HalfMode::Fp16Fp32, Fexp::Paper, 64, true);
    let ieee = config(HalfMode::Fp16Fp32, Fexp::Ieee, 64, true);
    let result = runner.run(&(pairs, eps), |((x, y), eps)| {
        let p = Run::new(&x, &y, &paper, eps);
        let i = Run::new(&x, &y, &ieee, eps);
        let (Some(ep), Some(ei)) = (
            p.exact.error_of(p.z).absolute_up(),
            i.exact.error_of(i.z).absolute_up(),
        ) else {
            return Ok(());
        };
        let paper_fails = p.bounds.thm_3_3.as_ref().is_ok_and(|b| ep > b.value);
        let ieee_holds = [&i.bounds.thm_3_3, &i.bounds.thm_3_4]
            .iter()
            .any(|b| b.as_ref().is_ok_and(|b| ei <= b.value));
        prop_assert!(!(paper_fails && ieee_holds), "found");
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, ((x, y), eps))) => println!("x = {x:?}\ny = {y:?}\neps = {eps:e}"),
        other => println!("{other:?}"),
    }
}
