//! The residual-compensated quantized GEMM (Gu): the worked example as a
//! snapshot, exactness of the integer products, the quantizers' stated
//! rules, the rigorous bound against the exact oracle over the public
//! strategies and the paper's distributions, every "Bad input" of the issue,
//! the findings about the published estimates, and the pipeline catching
//! wrong kernels.
//!
//! Seeded (`boundgate::generate::PROPTEST_SEED`, override with
//! PROPTEST_RNG_SEED); `BOUNDGATE_HEAVY=1` runs 10^5 cases of the bound
//! property instead of 192.

use boundgate::generate::{proptest_config, strategies::scaled_significand};
use boundgate::io::Tensor;
use boundgate::kernels::residual::csr::CsrI8;
use boundgate::kernels::residual::dist::PaperDistribution;
use boundgate::kernels::residual::example::{self, worked_example};
use boundgate::kernels::residual::intgemm::{int_gemm, spmm_csr_dense, spmm_dense_csr};
use boundgate::kernels::residual::kernel::{ResidualGemm, RunConfig, assemble};
use boundgate::kernels::residual::method::{Path, Prepared, Reduction};
use boundgate::kernels::residual::quant::{
    Bits, Granularity, Quantizer, Rounding, ScaleRule, Working,
};
use boundgate::kernels::residual::reduce::ReduceRule;
use boundgate::kernels::{Inputs, Kernel, KernelRun, Params};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::residual::{ScaleAxis, int_gemm_i64};
use boundgate_verify::check::Outcome;
use boundgate_verify::format::Format;
use boundgate_verify::oracle::ErrorMeasure;
use proptest::prelude::*;

mod common;
use common::residual::run_config;

const Q8: Quantizer = Quantizer {
    bits: Bits::Int8,
    scale: ScaleRule::Absmax,
    rounding: Rounding::Nearest,
    working: Working::Fp32,
};

fn reduction(threshold: f64) -> Reduction {
    Reduction {
        threshold,
        rule: ReduceRule::Mean,
        eta: 1.0,
    }
}

fn inputs(a: Vec<f64>, m: usize, k: usize, b: Vec<f64>, n: usize) -> Inputs {
    let mut i = Inputs::new();
    i.insert("a".into(), Tensor::matrix(m, k, a).unwrap());
    i.insert("b".into(), Tensor::matrix(k, n, b).unwrap());
    i
}

fn params(pairs: &[&str]) -> Params {
    let pairs: Vec<String> = pairs.iter().map(|s| s.to_string()).collect();
    Params::parse(&ResidualGemm, &pairs).unwrap()
}

fn outcome(run: &KernelRun, label_part: &str) -> Outcome {
    run.verdicts()
        .unwrap()
        .into_iter()
        .find(|v| v.label.contains(label_part))
        .unwrap_or_else(|| panic!("no verdict labelled {label_part}"))
        .verdict
        .outcome
}

// ---------------------------------------------------------------- worked example

#[test]
fn worked_example_snapshot() {
    let ex = worked_example().unwrap();
    insta::assert_yaml_snapshot!("worked_example", ex);
}

#[test]
fn worked_example_reproduces_what_is_reproducible() {
    let ex = worked_example().unwrap();
    let m = &ex.model;
    // The printed A_int exactly; B_int except B_00 (64 here, 63 printed).
    assert_eq!(m.a_int, example::A_INT.to_vec());
    let mut b = example::B_INT.to_vec();
    b[0] = 64;
    assert_eq!(m.b_int, b);
    // The printed reduced patterns exactly (signed rule, M = 0.3).
    assert_eq!(m.kept.0, example::A_KEPT.to_vec());
    assert_eq!(m.kept.1, example::B_KEPT.to_vec());
    // lambda_B as printed (to 4 decimals); lambda_A = 64 / 1.5801 (printed: 64 / 1.58014).
    assert!((m.lambdas.1 - 16.2916).abs() < 5e-5);
    assert!((m.lambdas.0 - 64.0 / 1.5801).abs() < 1e-4);
    // The paper's C_row, C_col to 4 decimals (they are the means of |C_quant|).
    let printed_rows = [0.5047, 1.2690, 0.4526];
    let printed_cols = [0.7269, 1.3821, 0.1172];
    let p = &ex.printed_integers;
    for (x, y) in p.row_means.iter().zip(printed_rows) {
        assert!((x - y).abs() < 1e-4, "{x} vs {y}");
    }
    for (x, y) in p.col_means.iter().zip(printed_cols) {
        assert!((x - y).abs() < 1e-4, "{x} vs {y}");
    }
    // From the printed integers: direct E_delta = 0.0357 (Table 2: 0.035), and
    // C_quant as printed to 4 decimals.
    assert!((p.direct.1 - 0.0357).abs() < 5e-5, "{}", p.direct.1);
    for (x, y) in p.c_quant.iter().zip(example::C_QUANT) {
        assert!((x - y).abs() < 6e-5, "{x} vs {y}");
    }
    // The printed matrices give Table 2's E_delta column ...
    assert!((ex.printed_c_quant.1 - 0.0357).abs() < 5e-5);
    assert!((ex.printed_c_compensated.1 - 0.0111).abs() < 5e-5);
    // ... but not its E_r column (0.799 and 0.144 printed).
    assert!((ex.printed_c_quant.0 - 0.138).abs() < 1e-3);
    assert!((ex.printed_c_compensated.0 - 0.0430).abs() < 1e-3);
    // Our model: compensation cuts the error by about 3x, the full residual by 30x.
    assert!((m.direct.1 - 0.0322).abs() < 1e-4, "{}", m.direct.1);
    assert!(
        (m.compensated.1 - 0.0104).abs() < 1e-4,
        "{}",
        m.compensated.1
    );
    assert!(m.full.1 < m.compensated.1 / 5.0);
}

// ---------------------------------------------------------------- integer products

fn ints(len: usize, q: i8) -> impl Strategy<Value = Vec<i8>> {
    proptest::collection::vec(-q..=q, len)
}

proptest! {
    #![proptest_config(proptest_config(256, 10_000))]

    #[test]
    fn integer_products_are_exact(
        (m, k, n, a, b, mask_a, mask_b) in (1usize..9, 1usize..17, 1usize..9).prop_flat_map(|(m, k, n)| (
            Just(m), Just(k), Just(n), ints(m * k, 127), ints(k * n, 127),
            proptest::collection::vec(any::<bool>(), m * k),
            proptest::collection::vec(any::<bool>(), k * n),
        ))
    ) {
        let exact = int_gemm_i64(&a, &b, m, k, n).unwrap();
        let c = int_gemm(&a, &b, m, k, n).unwrap();
        prop_assert_eq!(c.iter().map(|&v| i64::from(v)).collect::<Vec<_>>(), exact);
        // CSR x dense and dense x CSR against the masked dense products.
        let masked = |x: &[i8], keep: &[bool]| -> Vec<i8> {
            x.iter().zip(keep).map(|(&q, &k)| if k { q } else { 0 }).collect()
        };
        let left = spmm_csr_dense(&CsrI8::from_mask(m, k, &a, &mask_a).unwrap(), &b, n).unwrap();
        let want = int_gemm_i64(&masked(&a, &mask_a), &b, m, k, n).unwrap();
        prop_assert_eq!(left.iter().map(|&v| i64::from(v)).collect::<Vec<_>>(), want);
        let right = spmm_dense_csr(&a, m, &CsrI8::from_mask(k, n, &b, &mask_b).unwrap()).unwrap();
        let want = int_gemm_i64(&a, &masked(&b, &mask_b), m, k, n).unwrap();
        prop_assert_eq!(right.iter().map(|&v| i64::from(v)).collect::<Vec<_>>(), want);
    }
}

#[test]
fn int32_overflow_is_a_typed_error_and_the_limit_is_exact() {
    let k = 133_144;
    let a = vec![127i8; k];
    assert_eq!(
        int_gemm(&a, &a, 1, k, 1).unwrap(),
        vec![k as i32 * 127 * 127]
    );
    let a = vec![127i8; k + 1];
    let err = int_gemm(&a, &a, 1, k + 1, 1).unwrap_err();
    assert!(
        matches!(err, boundgate::Error::Verify(VerifyError::Overflow { .. })),
        "{err}"
    );
    // Beyond the a-priori limit but with sums that fit: exact, no error.
    let mut b = vec![127i8; k + 1];
    b[0] = -127;
    assert_eq!(
        int_gemm(&a, &b, 1, k + 1, 1).unwrap(),
        vec![(k as i32 - 1) * 127 * 127]
    );
    // Through the kernel: K = 133,145 all-max inputs.
    let run = ResidualGemm.run(
        &inputs(vec![1.0; k + 1], 1, k + 1, vec![1.0; k + 1], 1),
        &params(&["method=direct"]),
    );
    assert!(matches!(
        run,
        Err(boundgate::Error::Verify(VerifyError::Overflow { .. }))
    ));
}

// ---------------------------------------------------------------- quantizers

proptest! {
    #![proptest_config(proptest_config(256, 10_000))]

    #[test]
    fn quantizers_follow_their_stated_rules(
        values in proptest::collection::vec(scaled_significand(Format::FP32, -30..=30), 1..40),
        bits in prop_oneof![Just(Bits::Int8), Just(Bits::Int4)],
        rounding in prop_oneof![Just(Rounding::Nearest), Just(Rounding::Floor), Just(Rounding::TowardZero)],
        scale in prop_oneof![Just(ScaleRule::Absmax), Just(ScaleRule::Half), Just(ScaleRule::Eq2)],
    ) {
        let q = Quantizer { bits, scale, rounding, working: Working::Fp32 };
        let n = values.len();
        let out = q.quantize("x", &values, 1, n, ScaleAxis::Tensor).unwrap();
        let lambda = out.scales[0];
        let qmax = bits.qmax();
        let mut clamped = 0;
        for (&x, &i) in values.iter().zip(&out.ints) {
            prop_assert!(i32::from(i).abs() <= qmax);
            let t = f64::from(lambda as f32 * x as f32);
            let expect = match rounding {
                Rounding::Nearest => t.round_ties_even(),
                Rounding::Floor => t.floor(),
                Rounding::TowardZero => t.trunc(),
            };
            if expect.abs() > f64::from(qmax) { clamped += 1; }
            prop_assert_eq!(f64::from(i), expect.clamp(-f64::from(qmax), f64::from(qmax)));
        }
        prop_assert_eq!(out.saturated, clamped);
        // Only eq. (2), or floor at -max, can saturate.
        if scale != ScaleRule::Eq2 {
            prop_assert!(clamped == 0 || rounding == Rounding::Floor);
        }
    }
}

#[test]
fn zero_lines_tiny_lines_and_the_paper_vector() {
    // Gu §2.3: V = [1, 2.5, 4], lambda = 31.75, floor(79.375) = 79, residual 0.0118.
    let q = Quantizer {
        rounding: Rounding::Floor,
        ..Q8
    };
    let v = q
        .quantize("V", &[1.0, 2.5, 4.0], 1, 3, ScaleAxis::Tensor)
        .unwrap();
    assert_eq!((v.scales[0], v.ints.clone()), (31.75, vec![31, 79, 127]));
    let r =
        boundgate::kernels::residual::quant::residual(&[1.0, 2.5, 4.0], &v, Working::Fp32).unwrap();
    let printed = [0.0236, 0.0118, 0.0];
    for (x, y) in r.iter().zip(printed) {
        assert!((x - y).abs() < 1e-4, "{x} vs {y}");
    }
    // An all-zero row gets lambda = 1 and zeros; a row too small for
    // 127 / max in fp32 gets the largest power of two; no inf, no NaN.
    let rows = [0.0, 0.0, 1e-40, -2e-45, 1.0, 0.5];
    let out = Q8.quantize("A", &rows, 3, 2, ScaleAxis::Rows).unwrap();
    assert_eq!(out.scales[0], 1.0);
    assert_eq!(out.scales[1], 2f64.powi(127));
    assert!(out.scales.iter().all(|s| s.is_finite() && *s > 0.0));
    assert_eq!(&out.ints[..2], &[0, 0]);
}

// ---------------------------------------------------------------- the rigorous bound

/// A run configuration drawn from every option.
fn any_config() -> impl Strategy<Value = RunConfig> {
    run_config(
        prop_oneof![Just(Working::Fp32), Just(Working::Fp64)],
        prop_oneof![Just(0.05), Just(0.2), Just(0.5), Just(1.0), Just(5.0)],
    )
}

/// Matrices: fp32 values over a moderate or a wide exponent range, or the
/// paper's distributions (and N(0, 1)) with an optional outlier.
fn any_operands() -> impl Strategy<Value = (usize, usize, usize, Vec<f64>, Vec<f64>)> {
    (1usize..7, 1usize..12, 1usize..7, 0u8..4).prop_flat_map(|(m, k, n, kind)| {
        let values = move |len: usize, stream: u64| -> BoxedStrategy<Vec<f64>> {
            match kind {
                0 => {
                    proptest::collection::vec(scaled_significand(Format::FP32, -8..=8), len).boxed()
                }
                1 => proptest::collection::vec(scaled_significand(Format::FP32, -140..=60), len)
                    .boxed(),
                _ => (0usize..6, any::<u64>(), any::<bool>(), 0..len.max(1))
                    .prop_map(move |(d, seed, outlier, at)| {
                        let mut v = PaperDistribution::ALL[d].sample(seed, stream, len);
                        if outlier && kind == 3 {
                            v[at] *= 1e6; // the paper's stated failure case
                        }
                        v
                    })
                    .boxed(),
            }
        };
        (
            Just(m),
            Just(k),
            Just(n),
            values(m * k, 0),
            values(k * n, 1),
        )
    })
}

proptest! {
    #![proptest_config(proptest_config(192, 100_000))]

    #[test]
    fn the_rigorous_bound_is_never_violated(cfg in any_config(), (m, k, n, a, b) in any_operands()) {
        let prepared = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
        let out = prepared.run(cfg.method, cfg.reduction).unwrap();
        let run = assemble(&prepared, &out, &cfg).unwrap();
        match outcome(&run, "rigorous") {
            Outcome::Pass => {}
            Outcome::HypothesisNotMet { reason } => prop_assert!(false, "no bound: {}", reason),
            other => prop_assert!(false, "{:?} for {:?}", other, cfg),
        }
    }
}

#[test]
fn the_bound_is_not_vacuous() {
    // int8, vector-wise, 32 x 64 x 32 uniform data: the bound is within a
    // small factor of the largest error for every method.
    let (m, k, n) = (32, 64, 32);
    let a = PaperDistribution::Uniform.sample(3, 0, m * k);
    let b = PaperDistribution::Uniform.sample(3, 1, k * n);
    for method in ["direct", "full", "sparse"] {
        let run = ResidualGemm
            .run(
                &inputs(a.clone(), m, k, b.clone(), n),
                &params(&[&format!("method={method}")]),
            )
            .unwrap();
        let v = &run.verdicts().unwrap()[0].verdict;
        assert!(v.is_pass());
        let ratio = v.ratio.unwrap();
        assert!(ratio > 0.02, "{method}: error / bound = {ratio}");
        println!("{method}: max error / rigorous bound = {ratio:.3}");
    }
}

// ---------------------------------------------------------------- bad input

#[test]
fn all_zero_matrices_give_zero_and_a_zero_bound() {
    let run = ResidualGemm
        .run(&inputs(vec![0.0; 6], 2, 3, vec![0.0; 12], 4), &params(&[]))
        .unwrap();
    assert!(run.output.data().iter().all(|&d| d == 0.0));
    assert!(run.rigorous_values().iter().all(|&b| b == 0.0));
    assert_eq!(outcome(&run, "rigorous"), Outcome::Pass);
    // E_delta is undefined, not NaN.
    assert!(run.details["e_delta_as_stored"].is_null());
}

#[test]
fn nan_and_inf_inputs_are_typed_errors() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut a = vec![1.0; 4];
        a[2] = bad;
        let err = ResidualGemm
            .run(&inputs(a, 2, 2, vec![1.0; 4], 2), &params(&[]))
            .unwrap_err();
        assert!(
            matches!(
                err,
                boundgate::Error::Verify(VerifyError::NonFinite { index: 2, .. })
            ),
            "{err}"
        );
    }
    // Finite but beyond fp32: an overflow of the working format.
    let err = ResidualGemm
        .run(&inputs(vec![1e39; 4], 2, 2, vec![1.0; 4], 2), &params(&[]))
        .unwrap_err();
    assert!(
        matches!(err, boundgate::Error::Verify(VerifyError::Overflow { .. })),
        "{err}"
    );
    // ... which fp64 accepts.
    assert!(
        ResidualGemm
            .run(
                &inputs(vec![1e39; 4], 2, 2, vec![1.0; 4], 2),
                &params(&["format=fp64"])
            )
            .is_ok()
    );
}

#[test]
fn shapes_are_checked() {
    let mut i = Inputs::new();
    i.insert("a".into(), Tensor::matrix(2, 2, vec![1.0; 4]).unwrap());
    i.insert("b".into(), Tensor::matrix(3, 2, vec![1.0; 6]).unwrap());
    let err = ResidualGemm.run(&i, &params(&[])).unwrap_err();
    assert!(
        matches!(
            err,
            boundgate::Error::Verify(VerifyError::LengthMismatch { .. })
        ),
        "{err}"
    );
    i.insert("b".into(), Tensor::vector(vec![1.0; 2]));
    assert!(matches!(
        ResidualGemm.run(&i, &params(&[])),
        Err(boundgate::Error::Usage(_))
    ));
    let empty = inputs(vec![], 0, 2, vec![1.0; 4], 2);
    let err = ResidualGemm.run(&empty, &params(&[])).unwrap_err();
    assert!(
        matches!(err, boundgate::Error::Verify(VerifyError::Empty { .. })),
        "{err}"
    );
}

#[test]
fn thresholds_at_or_below_zero_and_bad_densities_are_refused() {
    for t in [0.0, -0.5, f64::NAN, f64::INFINITY] {
        let r = Reduction {
            threshold: t,
            rule: ReduceRule::Mean,
            eta: 0.3,
        };
        assert!(matches!(
            r.validate(),
            Err(boundgate::Error::Verify(
                VerifyError::InvalidParameter { .. }
            ))
        ));
    }
    for eta in [-0.1, 1.5, f64::NAN] {
        let r = Reduction {
            threshold: 0.5,
            rule: ReduceRule::Mean,
            eta,
        };
        assert!(r.validate().is_err());
    }
    for bad in [
        "threshold=0",
        "threshold=-1",
        "threshold=abc",
        "eta=2",
        "bits=16",
    ] {
        let err = Params::parse(&ResidualGemm, &[bad.to_string()]).unwrap_err();
        assert!(
            err.to_string().contains(bad.split('=').next().unwrap()),
            "{err}"
        );
    }
}

#[test]
fn densities_zero_and_one_reduce_to_the_baselines_bit_for_bit() {
    let (m, k, n) = (8, 16, 8);
    let a = PaperDistribution::ZeroMeanNormal.sample(5, 0, m * k);
    let b = PaperDistribution::ZeroMeanNormal.sample(5, 1, k * n);
    let p = Prepared::new(&a, &b, m, k, n, Q8, Granularity::Vector).unwrap();
    // A threshold so large that nothing is kept: density 0, sparse path, = direct.
    let none = p.sparse(reduction(1e6)).unwrap();
    assert_eq!((none.density_a, none.density_b), (Some(0.0), Some(0.0)));
    assert_eq!(none.path, Path::Sparse);
    assert_eq!(none.d, p.direct().d);
    // So small that everything is kept: density 1, never below eta = 1: the full residual.
    let all = p.sparse(reduction(1e-9)).unwrap();
    assert_eq!((all.density_a, all.density_b), (Some(1.0), Some(1.0)));
    assert_eq!(all.path, Path::Dense);
    assert_eq!(all.d, p.full().unwrap().d);
    // eta = 0: never sparse, whatever the density.
    let dense = p
        .sparse(Reduction {
            eta: 0.0,
            ..reduction(1e6)
        })
        .unwrap();
    assert_eq!(dense.path, Path::Dense);
    // The sparse products over a proper subset equal the dense ones over the
    // same masks (sparse path forced with eta = 1).
    let some = p.sparse(reduction(0.3)).unwrap();
    assert_eq!(some.path, Path::Sparse);
    assert!(some.density_a.unwrap() > 0.0 && some.density_a.unwrap() < 1.0);
}

#[test]
fn an_extreme_outlier_switches_the_compensation_off_with_an_explicit_verdict() {
    // Gu §5.2: "due to the scaling of the mean, the error may exceed the threshold
    // in the presence of some singular values". One entry of A 10^4 times the
    // rest inflates mean|A|, so no other entry of A passes the reduction
    // (density of A^r = 1/64) and the A^r RB compensation vanishes for every
    // other row: there the sparse result keeps most of the direct error. The
    // rigorous bound still holds; the run reports the density.
    let (m, k, n) = (8, 8, 8);
    let mut a = PaperDistribution::Uniform.sample(11, 0, m * k);
    let b = PaperDistribution::Uniform.sample(11, 1, k * n);
    a[3] = 1e4;
    let i = inputs(a, m, k, b, n);
    let run = |method: &str| {
        ResidualGemm
            .run(
                &i,
                &params(&[&format!("method={method}"), "threshold=0.5", "eta=1"]),
            )
            .unwrap()
    };
    let (sparse, direct, full) = (run("sparse"), run("direct"), run("full"));
    assert_eq!(outcome(&sparse, "rigorous"), Outcome::Pass);
    assert_eq!(sparse.details["density_a"], 1.0 / 64.0);
    // Largest error over rows 1.. (row 0 holds the outlier).
    let worst = |r: &KernelRun| {
        r.errors_as_given[n..]
            .iter()
            .map(|e| e.absolute_up().unwrap())
            .fold(0.0, f64::max)
    };
    assert!(
        worst(&sparse) > 0.3 * worst(&direct),
        "{} vs {}",
        worst(&sparse),
        worst(&direct)
    );
    assert!(
        worst(&sparse) > 10.0 * worst(&full),
        "{} vs {}",
        worst(&sparse),
        worst(&full)
    );
}

#[test]
fn dequantization_divides_by_the_larger_scale_first() {
    // Found by review (2026-11-25): in fp32, A = [[1e38]], B = [[1e-30]] give
    // P0 = 127^2 with lambda_A = 1.27e-36 and lambda_B = 1.27e32; dividing by
    // the row scale first overflowed (1.3e40) and the output was inf against
    // an exact 1e8, with "no bound". The larger scale first keeps the quotient
    // at 1.3e-28.
    let run = |a: f64, b: f64| {
        ResidualGemm
            .run(&inputs(vec![a], 1, 1, vec![b], 1), &params(&[]))
            .unwrap()
    };
    let given = run(1e38, 1e-30);
    let d = given.output.data()[0];
    assert!((d / 1e8 - 1.0).abs() < 1e-6, "D = {d:e}");
    assert_eq!(outcome(&given, "rigorous"), Outcome::Pass);
    // The transposed problem has the same scales swapped: the order does not
    // depend on which side is which, so the output is the same bit for bit.
    let swapped = run(1e-30, 1e38);
    assert_eq!(swapped.output.data()[0].to_bits(), d.to_bits());
    assert_eq!(outcome(&swapped, "rigorous"), Outcome::Pass);
}

#[test]
fn the_bound_takes_the_integer_products_exactly_not_from_row_sums() {
    // fp32, A = [[1e38, 1e38]], B = [[1e10], [-1e10]]: Aq = [127, 127],
    // Bq = [127, -127], so P0 = 0, and the residuals cancel the same way
    // (P1 = P2 = 0); the exact product is 0. The bound estimated |P0| by
    // sum|Aq| max|Bq| = 254 * 127, which divided by the scales is 2e48, and
    // reported a possible overflow of fp32 ("no bound"; found by review,
    // 2026-11-25). The exact integer products give a bound for every method.
    for method in ["direct", "full", "sparse"] {
        let run = ResidualGemm
            .run(
                &inputs(vec![1e38, 1e38], 1, 2, vec![1e10, -1e10], 1),
                &params(&[&format!("method={method}")]),
            )
            .unwrap();
        assert_eq!(run.output.data(), &[0.0], "{method}");
        assert_eq!(outcome(&run, "rigorous"), Outcome::Pass, "{method}");
    }
    // In binary64, A = [[1e308, 1e-308]], B = [[1e-308], [1e308]]: P0 = 0 too,
    // so no intermediate overflows now; and the residual-quantization term,
    // which per line pairs row 0's integer sum (127, from 1e308) with column
    // 0's largest residual gap (2e292, from the other entry, 1e308) and
    // overflows binary64, is taken entry by entry there: a bound, and a
    // tight one (the error is one such entry's gap times 1e308).
    let run = ResidualGemm
        .run(
            &inputs(vec![1e308, 1e-308], 1, 2, vec![1e-308, 1e308], 1),
            &params(&["format=fp64"]),
        )
        .unwrap();
    assert_eq!(outcome(&run, "rigorous"), Outcome::Pass);
    let bound = run.rigorous_values()[0];
    let ErrorMeasure::Finite { absolute_up, .. } = run.errors_as_given[0] else {
        panic!("finite")
    };
    assert!(
        absolute_up > 0.2 && bound < 1.01 * absolute_up,
        "{absolute_up} vs {bound}"
    );
}

/// An entry equal to f64::MAX has the reciprocal scale 127 / MAX, below the
/// directed division's guard for tiny divisors, which moved the correct
/// upward quotient MAX to +inf: "no bound" for an exact output (found by
/// review, 2026-11-26; `directed::div_up` scales such divisors now).
#[test]
fn an_entry_equal_to_max_finite_has_a_bound() {
    for (a, b, k) in [
        (vec![f64::MAX], vec![0.5], 1),
        (vec![-f64::MAX, 1.0], vec![1e-300, 1.0], 2),
    ] {
        let run = ResidualGemm
            .run(&inputs(a.clone(), 1, k, b, 1), &params(&["format=fp64"]))
            .unwrap();
        assert_eq!(outcome(&run, "rigorous"), Outcome::Pass, "{a:?}");
        assert!(run.rigorous_values()[0].is_finite());
    }
}

/// The overflow check of the dequantize-and-add follows the signs of the
/// integer products: A = [[2^64, 2^63]], B = [[1.25 2^63], [1.25 2^63]], int4,
/// full residual, gives P0 = 77 and P2 = -49, and an exact 3.19e38 just below
/// fp32's 3.40e38; adding the magnitudes of the three terms reached 3.49e38
/// and called it a possible overflow (review, 2026-11-26). Likewise 2^512 and
/// 2^511 in fp64.
#[test]
fn cancelling_terms_near_the_top_of_the_format_have_a_bound() {
    for (e, format) in [(64, "format=fp32"), (512, "format=fp64")] {
        let p = |k: i32| 2f64.powi(k);
        let b = 1.25 * p(e - 1);
        let run = ResidualGemm
            .run(
                &inputs(vec![p(e), p(e - 1)], 1, 2, vec![b, b], 1),
                &params(&[format, "bits=4", "method=full"]),
            )
            .unwrap();
        assert!(run.output.data()[0].is_finite(), "{format}");
        assert_eq!(outcome(&run, "rigorous"), Outcome::Pass, "{format}");
    }
}

/// Outputs within a few units in the last place of the format's largest
/// value have a bound: the overflow check rounds enclosures of every
/// intermediate to the format (monotone) instead of comparing `(1 + u)`
/// times a magnitude bound with the largest value, which called fp32
/// `A = [[MAX32]]`, `B = [[1]]` (exact) a possible overflow until 2026-11-26.
/// Every method, both bit widths, fp32's top value and three ulps below it,
/// and fp64 from 2^-24 below its top (at `f64::MAX` itself the bound's own
/// binary64 arithmetic overflows: `|T| (1 + gamma_3)` is no binary64 number,
/// so that element has no bound, a hypothesis not met, never a pass under
/// `+inf`); the output is finite and the rigorous bound holds.
#[test]
fn outputs_at_the_top_of_the_format_have_a_bound() {
    let below = 1.0 - 2f64.powi(-24);
    for (top, format) in [
        (f32::MAX as f64, "format=fp32"),
        (f64::MAX * below, "format=fp64"),
    ] {
        let mut a = top;
        for _ in 0..4 {
            for method in ["method=direct", "method=sparse", "method=full"] {
                for bits in ["bits=8", "bits=4"] {
                    let pairs = [format, method, bits];
                    let run = ResidualGemm
                        .run(&inputs(vec![a], 1, 1, vec![1.0], 1), &params(&pairs))
                        .unwrap();
                    assert!(run.output.data()[0].is_finite(), "{pairs:?} a = {a:e}");
                    assert_eq!(
                        outcome(&run, "rigorous"),
                        Outcome::Pass,
                        "{pairs:?} a = {a:e}"
                    );
                }
            }
            // One fp32 ulp below (exact in binary64 too, 2^-24 relative).
            a *= below;
        }
    }
    let run = ResidualGemm
        .run(
            &inputs(vec![f64::MAX], 1, 1, vec![1.0], 1),
            &params(&["format=fp64"]),
        )
        .unwrap();
    let Outcome::HypothesisNotMet { reason } = outcome(&run, "rigorous") else {
        panic!("{:?}", outcome(&run, "rigorous"))
    };
    assert!(reason.contains("overflows binary64"), "{reason}");
}

/// An element whose dequantize-and-add may overflow the working format has
/// no bound, but no longer voids the verdict on the others (before
/// 2026-11-26 one such element made the whole output "hypothesis not met"
/// with no element judged, so a violation elsewhere would have gone unseen):
/// fp32, D = [[1e38 * 10], [1 * 10]], 1e39 > 3.4e38 in element 0 only.
#[test]
fn an_overflowing_element_leaves_the_others_judged() {
    let run = ResidualGemm
        .run(&inputs(vec![1e38, 1.0], 2, 1, vec![10.0], 1), &params(&[]))
        .unwrap();
    assert_eq!(run.rigorous_values()[0], f64::INFINITY);
    assert!(run.rigorous_values()[1].is_finite());
    let verdict = run
        .verdicts()
        .unwrap()
        .into_iter()
        .find(|v| v.label == "rigorous")
        .unwrap()
        .verdict;
    let Outcome::HypothesisNotMet { reason } = &verdict.outcome else {
        panic!("{verdict:?}")
    };
    assert!(
        reason.contains("an intermediate of element (0, 0) may round beyond")
            && reason.contains("1 of 2 elements without a bound"),
        "{reason}"
    );
    assert_eq!(
        (verdict.judged_elements, verdict.unbounded_elements),
        (1, 1)
    );
}

// ---------------------------------------------------------------- findings (regressions)

#[test]
fn finding_eq8_predicts_zero_error_for_the_full_residual() {
    // docs/findings/residual.md, finding 1, the minimal input: int4, a = b = [0.35, 1].
    // 0.35 * 7 = 2.45 -> 2, so EA = EB = 0.35 - 2/7 = 0.0643; the full residual
    // drops RA RB = 0.0041, which eq. (8) (first order) does not see: it says 0.
    let run = ResidualGemm
        .run(
            &inputs(vec![0.35, 1.0], 1, 2, vec![0.35, 1.0], 1),
            &params(&["method=full", "bits=4"]),
        )
        .unwrap();
    assert_eq!(outcome(&run, "rigorous"), Outcome::Pass);
    match outcome(&run, "eq. (8)") {
        Outcome::Violation { error, bound, .. } => {
            assert_eq!(bound, 0.0);
            assert!((error - 0.0041).abs() < 2e-4, "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn finding_threshold_claim_fails_under_cancellation() {
    // docs/findings/residual.md, finding 2: 0.6 * 0.2 - 0.9 * 0.4 + 0.8 * 0.3 = 0
    // in decimal, about 3e-8 in fp32 values, while the quantized product is off by
    // 5e-4 even with the full residual: no relative bound can hold near c = 0.
    let run = ResidualGemm
        .run(
            &inputs(vec![0.6, -0.9, 0.8], 1, 3, vec![0.2, 0.4, 0.3], 1),
            &params(&["bits=4", "threshold=1", "eta=1"]),
        )
        .unwrap();
    assert_eq!(outcome(&run, "rigorous"), Outcome::Pass);
    match outcome(&run, "threshold claim") {
        Outcome::Violation { error, bound, .. } => {
            assert!(error > 1e-4 && bound < 1e-7, "{error} {bound}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn finding_eq2_saturates_and_breaks_eq12() {
    // docs/findings/residual.md, finding 3: lambda = 255 / max puts values
    // above half the maximum out of the int8 range; clamped to 127 their
    // residual is far above 1/lambda, so eq. (8) with eq. (12) fails for the
    // direct product while the rigorous bound holds.
    let run = ResidualGemm
        .run(
            &inputs(vec![1.0, 0.9], 1, 2, vec![1.0, 1.0], 1),
            &params(&["method=direct", "scale=eq2", "scaling=tensor"]),
        )
        .unwrap();
    assert_eq!(outcome(&run, "rigorous"), Outcome::Pass);
    assert_eq!(run.details["saturated"]["a"], 2);
    assert!(matches!(
        outcome(&run, "eq. (8)"),
        Outcome::Violation { .. }
    ));
}

// ---------------------------------------------------------------- the pipeline catches wrong kernels

#[test]
fn wrong_outputs_are_caught_by_the_rigorous_bound() {
    let (m, k, n) = (16, 32, 16);
    let a = PaperDistribution::Uniform.sample(7, 0, m * k);
    let b = PaperDistribution::Uniform.sample(7, 1, k * n);
    let cfg = RunConfig::from_params(&params(&["method=full"])).unwrap();
    let p = Prepared::new(&a, &b, m, k, n, cfg.quantizer, cfg.granularity).unwrap();
    let full = p.full().unwrap();
    assert_eq!(
        assemble(&p, &full, &cfg).unwrap().verdicts().unwrap()[0]
            .verdict
            .outcome,
        Outcome::Pass
    );
    // An all-zero kernel.
    let mut zero = full.clone();
    zero.d.iter_mut().for_each(|d| *d = 0.0);
    assert!(
        assemble(&p, &zero, &cfg).unwrap().verdicts().unwrap()[0]
            .verdict
            .is_violation()
    );
    // A kernel that skips the compensation but claims to have done it.
    let mut skipped = full.clone();
    skipped.d = p.direct().d;
    assert!(
        assemble(&p, &skipped, &cfg).unwrap().verdicts().unwrap()[0]
            .verdict
            .is_violation()
    );
    // A kernel whose dequantization uses fp16 instead of fp32 on one element.
    let mut narrow = full;
    narrow.d[5] = Format::FP16.round(
        narrow.d[5],
        boundgate_verify::format::RoundingMode::NearestEven,
    );
    assert!(
        assemble(&p, &narrow, &cfg).unwrap().verdicts().unwrap()[0]
            .verdict
            .is_violation()
    );
}

// ---------------------------------------------------------------- the experiment

#[test]
fn the_accuracy_experiment_runs_small_and_gates_nothing() {
    use boundgate::audit::experiment::{Experiment, ExperimentContext, Params as EParams};
    use boundgate::audit::plan::Seeds;
    use boundgate::kernels::residual::accuracy::ResidualAccuracy;
    let params = EParams::new(
        toml::from_str("size = 24\nthresholds = [0.3, 1.0]\ndistributions = [\"uniform\", \"chi2\", \"normal0\"]")
            .unwrap(),
    );
    ResidualAccuracy.check_params(&params).unwrap();
    let bar = indicatif::ProgressBar::hidden();
    let ctx = ExperimentContext {
        seeds: Seeds { first: 1, count: 1 },
        confidence: 0.999,
        heavy: false,
        progress: &bar,
    };
    let report = ResidualAccuracy.run(&params, &ctx).unwrap();
    assert_eq!(report.rigorous_violations, 0);
    // 3 distributions x 2 widths x (direct, full, 2 thresholds).
    assert_eq!(report.tables[0].rows.len(), 24);
    assert_eq!(report.charts.len(), 2 * 3 + 2);
    // Compensation helps: for each cell, full <= direct.
    let rows = report.data["rows"].as_array().unwrap();
    for cell in rows.chunks(4) {
        let e = |i: usize| cell[i]["evaluation"]["e_delta"].as_f64().unwrap();
        assert!(e(1) <= e(0), "full {} > direct {}", e(1), e(0));
    }
    for bad in [
        "size = 0",
        "bits = [16]",
        "thresholds = [0.0]",
        "distributions = [\"cauchy\"]",
        "eta = 2.0",
        "colour = 1",
        // size^2 values per matrix: 16385^2 > 2^28 (found by review: size =
        // 2^28 passed the check and aborted on allocating 2^59 bytes).
        "size = 16385",
        "size = 268435456",
    ] {
        let p = EParams::new(toml::from_str(bad).unwrap());
        assert!(
            ResidualAccuracy
                .check_params(&p)
                .unwrap_err()
                .starts_with("params."),
            "{bad}"
        );
    }
}

/// A value count that cannot form the stated shape is a typed error, not an
/// out-of-bounds panic (found while writing the quantizer fuzz target).
#[test]
fn quantize_refuses_a_shape_that_does_not_match_the_values() {
    use boundgate::kernels::residual::quant::{Bits, Quantizer, Rounding, ScaleRule, Working};
    use boundgate_verify::bounds::residual::ScaleAxis;
    let q = Quantizer {
        bits: Bits::Int8,
        scale: ScaleRule::Absmax,
        rounding: Rounding::Nearest,
        working: Working::Fp32,
    };
    let e = q
        .quantize("A", &[1.0, 2.0, 3.0], 2, 2, ScaleAxis::Rows)
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot form a 2 x 2 matrix"), "{e}");
    assert!(
        q.quantize("A", &[1.0, 2.0, 3.0, 4.0], 2, 2, ScaleAxis::Rows)
            .is_ok()
    );
}

/// The fuzzer's first find (`quantizer`, CI fuzz smoke of 2026-11-24, input
/// `[233 x 19, 1, 128]`): int4, absmax, floor, binary64, per tensor, two values
/// `-1.5868539665109664e202`. `fl(7 / amax)` is rounded up, so
/// `fl(lambda x) < -7` by a rounding error and floor gives -8: the clamp to -7
/// the module documents ("floor at -amax can reach the clamp") removes only
/// that excursion, and every value is still recovered within one step
/// `1 / lambda`. The fuzz target had asserted "no saturation except eq. (2)",
/// which contradicts the documented rule; it now checks this property instead.
#[test]
fn floor_at_minus_amax_clamps_only_a_rounding_excursion() {
    let q = Quantizer {
        bits: Bits::Int4,
        scale: ScaleRule::Absmax,
        rounding: Rounding::Floor,
        working: Working::Fp64,
    };
    let x = [-1.5868539665109664e202; 2];
    let m = q.quantize("x", &x, 1, 2, ScaleAxis::Tensor).unwrap();
    let lambda = m.scales[0];
    // The excursion is real: one rounding of lambda puts lambda x below -7.
    assert!(lambda * x[0] < -7.0, "lambda x = {:e}", lambda * x[0]);
    assert!(lambda * x[0] > -7.0 * (1.0 + 4.0 * f64::EPSILON));
    assert_eq!(m.ints, vec![-7, -7]);
    assert_eq!(m.saturated, 2);
    for &v in &x {
        assert!((v - (-7.0) / lambda).abs() <= 1.0 / lambda);
    }
}

/// Integers given to `Prepared::with_quantized` are validated: a scale vector
/// that does not fit its axis indexed out of bounds (panic), and a scale that
/// is not a value of the working format made the bound describe a division
/// the kernel did not do (found by review).
#[test]
fn given_integers_with_bad_scales_are_typed_errors() {
    use boundgate::kernels::residual::quant::QuantizedMatrix;
    let given = |scales: Vec<f64>, axis: ScaleAxis| QuantizedMatrix {
        rows: 1,
        cols: 2,
        ints: vec![127, 64],
        scales,
        axis,
        saturated: 0,
    };
    let col = |scales: Vec<f64>| QuantizedMatrix {
        rows: 2,
        cols: 1,
        ints: vec![127, 64],
        scales,
        axis: ScaleAxis::Tensor,
        saturated: 0,
    };
    let run = |aq: QuantizedMatrix, bq: QuantizedMatrix| {
        Prepared::with_quantized(
            &[1.0, 0.5],
            &[1.0, 0.5],
            (1, 2, 1),
            Q8,
            Granularity::Tensor,
            aq,
            bq,
        )
    };
    // The valid case runs.
    assert!(run(given(vec![127.0], ScaleAxis::Tensor), col(vec![127.0])).is_ok());
    for (aq, bq) in [
        (given(vec![], ScaleAxis::Tensor), col(vec![127.0])),
        (given(vec![127.0], ScaleAxis::Rows), col(vec![])),
        (
            given(vec![127.0, 1.0], ScaleAxis::Columns),
            col(vec![127.0]),
        ),
        (given(vec![0.0], ScaleAxis::Tensor), col(vec![127.0])),
        (given(vec![f64::NAN], ScaleAxis::Tensor), col(vec![127.0])),
        // 0.1 is not a binary32 value.
        (given(vec![0.1], ScaleAxis::Tensor), col(vec![127.0])),
    ] {
        assert!(run(aq, bq).is_err());
    }
}
