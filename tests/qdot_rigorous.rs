//! The corrected qdot bound (`boundgate_verify::bounds::qdot::rigorous`) is
//! never violated: over the paper's distributions A and B (signed or not, any
//! `t`), the exponent-range edge cases, every input precision, both `fexp`
//! definitions, both binnings (Algorithm 3.2's and Def. 3.1's), both half-bin arithmetics, both ladders, both score
//! tolerances, several tile lengths in both tile layouts, with and without the early exit, and
//! tolerances from 1e-16 to 0.5. The error is measured with the exact oracle.
//! Where the bound's hypotheses fail (possible overflow) it must say so
//! (`HypothesisNotMet`), never return a number that does not hold.
//!
//! Seeded (`boundgate::generate::PROPTEST_SEED`, override with
//! PROPTEST_RNG_SEED); `BOUNDGATE_HEAVY=1` runs the opt-in campaign
//! (100 000 cases of the first, the exponent-range edges and the cancelling
//! products; 2 000 and 5 000 of the large-bin and kernel-interface ones).

use boundgate::generate::proptest_config;
use boundgate::io::Tensor;
use boundgate::kernels::qdot::bounds::evaluate;
use boundgate::kernels::qdot::compute::compute;
use boundgate::kernels::qdot::config::{
    HalfMode, Ladder, QdotConfig, Score, TileLayout, Tolerance,
};
use boundgate::kernels::qdot::distributions::strategies::{edge_pairs, paper_pairs};
use boundgate::kernels::qdot::select::select;
use boundgate::kernels::{Inputs, Params, registry};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{Binning, Fexp};
use boundgate_verify::check::Outcome;
use boundgate_verify::format::Format;
use boundgate_verify::oracle::{self, ErrorMeasure};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = QdotConfig> {
    (
        prop::sample::select(vec![Format::FP64, Format::FP32, Format::FP16, Format::BF16]),
        prop::sample::select(Fexp::ALL.to_vec()),
        prop::sample::select(vec![HalfMode::Fp16Fp32, HalfMode::Fp16]),
        prop::sample::select(vec![Ladder::Paper, Ladder::Bf16]),
        prop::sample::select(vec![Score::EpsOverNbins, Score::Eps]),
        prop::sample::select(vec![0usize, 1, 3, 8, 64]),
        any::<bool>(),
        prop::sample::select(vec![TileLayout::Contiguous, TileLayout::Interleaved]),
        prop::sample::select(Binning::ALL.to_vec()),
    )
        .prop_map(
            |(input, fexp, half, ladder, score, tile, early_exit, layout, binning)| {
                let mut c = QdotConfig::new(input).expect("a qdot input format");
                c.fexp = fexp;
                c.binning = binning;
                c.half = half;
                c.ladder = ladder;
                c.score = score;
                c.tile = tile;
                c.layout = layout;
                c.early_exit = early_exit;
                c
            },
        )
}

fn tolerance() -> impl Strategy<Value = Tolerance> {
    prop_oneof![
        (-16i32..=-1).prop_map(|k| 10f64.powi(k)),
        (-53i32..=-1).prop_map(|k| 2f64.powi(k)),
        (1e-16f64..0.5),
    ]
    .prop_map(|e| Tolerance::new(e).expect("in (0, 1)"))
}

/// Runs qdot on values of the input precision and checks the rigorous bound
/// against the exact error. Returns whether the bound had a value.
fn rigorous_holds(
    x: &[f64],
    y: &[f64],
    c: &QdotConfig,
    eps: Tolerance,
) -> Result<bool, TestCaseError> {
    let selection = select(x, y, eps, c).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let z = compute(x, y, &selection, c).unwrap().value;
    let exact = oracle::dot(x, y).expect("same lengths");
    let bounds = evaluate(x, y, &selection, c, eps, &exact)
        .map_err(|e| TestCaseError::fail(format!("checker refused the run: {e}")))?;
    match bounds.rigorous {
        Ok(bound) => match exact.error_of(z) {
            ErrorMeasure::Finite { absolute_up, .. } => {
                prop_assert!(
                    absolute_up <= bound.value,
                    "rigorous bound violated: error {absolute_up:e} > {:e}\nconfig {c}, eps {}\nz = {z:e}, exact {:e}\nbins {:?}",
                    bound.value,
                    eps.value(),
                    exact.to_f64(),
                    selection.bins
                );
                Ok(true)
            }
            ErrorMeasure::NonFinite { computed, exact } => Err(TestCaseError::fail(format!(
                "non-finite result {computed} (exact {exact}) where the rigorous bound claims {:e}",
                bound.value
            ))),
        },
        Err(VerifyError::HypothesisNotMet { .. }) => Ok(false),
        Err(other) => Err(TestCaseError::fail(format!("unexpected error {other}"))),
    }
}

proptest! {
    #![proptest_config(proptest_config(256, 100_000))]

    #[test]
    fn rigorous_bound_holds_on_the_paper_distributions(
        (c, (x, y)) in config().prop_flat_map(|c| (Just(c), paper_pairs(c.input, 1..=64))),
        eps in tolerance(),
    ) {
        rigorous_holds(&x, &y, &c, eps)?;
    }
}

proptest! {
    #![proptest_config(proptest_config(256, 100_000))]

    #[test]
    fn rigorous_bound_holds_on_exponent_range_edges(
        (c, (x, y)) in config().prop_flat_map(|c| (Just(c), edge_pairs(c.input, 1..=48))),
        eps in tolerance(),
    ) {
        rigorous_holds(&x, &y, &c, eps)?;
    }
}

proptest! {
    #![proptest_config(proptest_config(12, 2_000))]

    /// Bins of thousands of elements: the accumulation inside a bin dominates.
    #[test]
    fn rigorous_bound_holds_with_large_bins(
        (c, (x, y)) in config().prop_flat_map(|c| (Just(c), paper_pairs(c.input, 500..=3000))),
        eps in tolerance(),
    ) {
        rigorous_holds(&x, &y, &c, eps)?;
    }
}

proptest! {
    #![proptest_config(proptest_config(64, 5_000))]

    /// Through the kernel interface, on `f64` inputs that the kernel rounds
    /// to its input precision: the bound with respect to the inputs as given
    /// (representation error included) holds, or says why it has no value.
    #[test]
    fn kernel_rigorous_bound_holds_as_given(
        x in prop::collection::vec(-1e3f64..1e3, 1..40),
        seed in any::<u64>(),
        input in prop::sample::select(vec!["fp64", "fp32", "fp16", "bf16"]),
        half in prop::sample::select(vec!["fp16-fp32", "fp16"]),
        fexp in prop::sample::select(vec!["ieee", "paper"]),
        eps in prop::sample::select(vec!["1e-12", "1e-6", "1e-3", "0.25"]),
    ) {
        let y: Vec<f64> = x.iter().enumerate().map(|(i, v)| v * (1.0 + ((seed >> (i % 60)) & 7) as f64 * 0.37) - i as f64).collect();
        let k = registry::find("qdot").unwrap();
        let params = Params::parse(k, &[
            format!("eps={eps}"), format!("input={input}"), format!("half={half}"), format!("fexp={fexp}"),
        ]).unwrap();
        let mut inputs = Inputs::new();
        inputs.insert("x".into(), Tensor::vector(x.clone()));
        inputs.insert("y".into(), Tensor::vector(y));
        let run = k.run(&inputs, &params).unwrap();
        let verdicts = run.verdicts().unwrap();
        let rigorous = &verdicts[0];
        prop_assert!(
            matches!(rigorous.verdict.outcome, Outcome::Pass | Outcome::HypothesisNotMet { .. }),
            "{:?}", rigorous.verdict
        );
    }
}

/// Pairs of products that cancel, with magnitudes near the top of the input
/// format (`x_i y_i` up to about `2^(emax + 2)`), beside a few small terms:
/// the overflow checks read enclosures of the signed bin results since
/// 2026-11-26 (the magnitudes called such inputs a possible overflow), so
/// the bound must hold wherever it claims a value, and say "no bound" where a
/// step may overflow.
fn cancelling_pairs(input: Format) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    let half_top = (input.emax() + 1) / 2;
    let value = move |e: std::ops::RangeInclusive<i32>| {
        (1u32..2048, e, any::<bool>()).prop_map(move |(m, e, negative)| {
            let v = input.round(
                (1.0 + f64::from(m) / 2048.0) * 2f64.powi(e),
                boundgate_verify::format::RoundingMode::NearestEven,
            );
            if negative { -v } else { v }
        })
    };
    (
        prop::collection::vec(
            (
                value(half_top - 3..=half_top),
                value(half_top - 3..=half_top),
            ),
            1..6,
        ),
        prop::collection::vec((value(-4..=4), value(-4..=4)), 0..4),
    )
        .prop_map(|(big, small)| {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for (a, b) in big {
                x.extend([a, a]);
                y.extend([b, -b]);
            }
            for (a, b) in small {
                x.push(a);
                y.push(b);
            }
            (x, y)
        })
}

proptest! {
    #![proptest_config(proptest_config(256, 100_000))]

    #[test]
    fn rigorous_bound_holds_on_cancelling_products_near_the_top(
        (c, (x, y)) in config().prop_flat_map(|c| (Just(c), cancelling_pairs(c.input))),
        eps in tolerance(),
    ) {
        rigorous_holds(&x, &y, &c, eps)?;
    }
}
