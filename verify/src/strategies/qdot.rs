//! The input distributions of the qdot paper (Diffenderfer, Osei-Kuffuor,
//! Menon 2021, §4.1) as shrinkable proptest strategies, and exponent-range
//! edge cases for quantized dot products.
//!
//! - Distribution A: `s 2^p`, `s` in `[0.5, 1)`, `p` a uniform integer in
//!   `[-t/2, t/2]`;
//! - Distribution B: the same with `p` from a discretised normal of standard
//!   deviation `t/2` (the paper's `N(0, 0.5 t)`; we read `0.5 t` as the
//!   standard deviation).
//!
//! Both are positive as printed; `signed = true` flips signs at random.
//!
//! ```
//! use boundgate_verify::format::Format;
//! use boundgate_verify::strategies::qdot::{distribution_a, edge_pairs, paper_pairs};
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! let mut runner = TestRunner::deterministic();
//! // Distribution A with t = 20: exponents in [-10, 10], significands in [0.5, 1).
//! let x = distribution_a(Format::FP64, 20, false, 50..=50).new_tree(&mut runner).unwrap().current();
//! assert!(x.iter().all(|&v| v >= 0.5 * 2f64.powi(-10) && v < 2f64.powi(10)));
//! // Pairs from A or B as in the paper's Fig. 1 and 2, and edge cases with zeros.
//! let (x, y) = paper_pairs(Format::FP64, 1..=64).new_tree(&mut runner).unwrap().current();
//! assert_eq!(x.len(), y.len());
//! let (x, y) = edge_pairs(Format::FP32, 1..=64).new_tree(&mut runner).unwrap().current();
//! assert!(x.iter().chain(&y).all(|&v| Format::FP32.is_representable(v)));
//! ```

use super::{any_dot_inputs, scaled_significand};
use crate::format::{Format, RoundingMode, ldexp};
use proptest::prelude::*;
use std::ops::RangeInclusive;

/// `s 2^p` with `s` a random `p`-bit significand in `[0.5, 1)` of
/// `format` and `p` from `exponents`, optionally signed: the paper's
/// distributions A (uniform `p`) and B (`exponents` concentrated) as
/// shrinkable strategies.
///
/// # Example
/// ```
/// use boundgate_verify::format::Format;
/// use boundgate_verify::strategies::qdot::paper_values;
/// use proptest::strategy::{Just, Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// let mut runner = TestRunner::deterministic();
/// // Exponent fixed at 3: bf16 values s 2^3 with s in [0.5, 1), i.e. the bf16
/// // numbers of [4, 8), multiples of 2^(3 - 8).
/// let strategy = paper_values(Format::BF16, Just(3).boxed(), true, 64..=64);
/// let x = strategy.new_tree(&mut runner).unwrap().current();
/// assert_eq!(x.len(), 64);
/// assert!(x.iter().all(|v| (4.0..8.0).contains(&v.abs()) && (v * 32.0).fract() == 0.0));
/// assert!(x.iter().any(|&v| v < 0.0) && x.iter().any(|&v| v > 0.0)); // signed
/// ```
pub fn paper_values(
    format: Format,
    exponents: BoxedStrategy<i32>,
    signed: bool,
    len: RangeInclusive<usize>,
) -> BoxedStrategy<Vec<f64>> {
    let p = format.precision();
    let top = 1u64 << (p - 1);
    let value = (top..2 * top, exponents, any::<bool>()).prop_map(move |(m, e, neg)| {
        // m 2^-p in [0.5, 1), times 2^e, rounded into the format's range.
        // ldexp, not powi (0 below 2^-1023 at run time).
        let v = format.round(ldexp(m as f64, e - p as i32), RoundingMode::NearestEven);
        let v = v.min(format.max_finite());
        if signed && neg { -v } else { v }
    });
    prop::collection::vec(value, len).boxed()
}

/// Distribution A with parameter `t` (uniform integer exponents in `[-t/2, t/2]`).
///
/// # Example
/// ```
/// use boundgate_verify::format::Format;
/// use boundgate_verify::strategies::qdot::distribution_a;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// let mut runner = TestRunner::deterministic();
/// // t = 8: s 2^p with p uniform in [-4, 4], so every value is in [2^-5, 2^4).
/// let x = distribution_a(Format::FP16, 8, false, 2000..=2000).new_tree(&mut runner).unwrap().current();
/// assert!(x.iter().all(|&v| (2f64.powi(-5)..16.0).contains(&v) && Format::FP16.is_representable(v)));
/// // All nine binades are drawn, each about 1/9 of the time.
/// for p in -4..=4 {
///     let share = x.iter().filter(|&&v| v >= 2f64.powi(p - 1) && v < 2f64.powi(p)).count();
///     assert!((150..300).contains(&share), "2^{p}: {share}");
/// }
/// ```
pub fn distribution_a(
    format: Format,
    t: i32,
    signed: bool,
    len: RangeInclusive<usize>,
) -> BoxedStrategy<Vec<f64>> {
    // A negative t is t = 0, as in distribution_b (-t/2..=t/2 was an empty
    // range, a proptest panic; review 2026-11-29).
    let half = t.max(0) / 2;
    paper_values(format, (-half..=half).boxed(), signed, len)
}

/// Distribution B with parameter `t`: exponents from a discretised normal
/// of standard deviation `t/2` (a sum of uniform draws, which shrinks
/// toward 0).
///
/// # Example
/// ```
/// use boundgate_verify::format::Format;
/// use boundgate_verify::strategies::qdot::distribution_b;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// let mut runner = TestRunner::deterministic();
/// // t = 20: exponents p with standard deviation 10 (the rounded sum of 12
/// // uniforms: variance 100 + 1/12), symmetric about 0.
/// let x = distribution_b(Format::FP64, 20, false, 4000..=4000).new_tree(&mut runner).unwrap().current();
/// // v = s 2^p with s in [0.5, 1): p is one more than v's binary exponent.
/// let p: Vec<f64> = x.iter().map(|v| (((v.to_bits() >> 52) & 0x7ff) as i32 - 1022) as f64).collect();
/// let mean = p.iter().sum::<f64>() / p.len() as f64;
/// let sd = (p.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (p.len() - 1) as f64).sqrt();
/// assert!(mean.abs() < 0.5, "{mean}");
/// assert!((sd - 10.0).abs() < 0.5, "{sd}");
/// // A sum of 12 uniforms on [-1/2, 1/2] stays within 6: |p| <= 60.
/// assert!(p.iter().all(|e| e.abs() <= 60.0));
/// ```
pub fn distribution_b(
    format: Format,
    t: i32,
    signed: bool,
    len: RangeInclusive<usize>,
) -> BoxedStrategy<Vec<f64>> {
    // Sum of 12 uniforms on [-1/2, 1/2] has variance 1: scale by t/2.
    let sd = f64::from(t.max(0)) / 2.0;
    let e = prop::collection::vec(-0.5f64..0.5, 12)
        .prop_map(move |u| (u.iter().sum::<f64>() * sd).round() as i32)
        .boxed();
    paper_values(format, e, signed, len)
}

/// Pairs `(x, y)` of one length from A or B with random `t` (A: 10..=100,
/// B: 2..=30 as in Fig. 1, or small `t` as in Fig. 2), signed or not.
///
/// # Example
/// ```
/// use boundgate_verify::format::Format;
/// use boundgate_verify::strategies::qdot::paper_pairs;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// let mut runner = TestRunner::deterministic();
/// let strategy = paper_pairs(Format::FP32, 1..=32);
/// for _ in 0..100 {
///     let (x, y) = strategy.new_tree(&mut runner).unwrap().current();
///     assert!(x.len() == y.len() && (1..=32).contains(&x.len()));
///     // A: |p| <= 50; B: |p| <= 6 * 15: nonzero fp32 numbers within 2^+-91.
///     assert!(x.iter().chain(&y).all(|&v| {
///         Format::FP32.is_representable(v) && (2f64.powi(-91)..2f64.powi(90)).contains(&v.abs())
///     }));
/// }
/// ```
pub fn paper_pairs(
    format: Format,
    len: RangeInclusive<usize>,
) -> BoxedStrategy<(Vec<f64>, Vec<f64>)> {
    (len, 0u8..3, 2i32..=100, any::<bool>())
        .prop_flat_map(move |(n, which, t, signed)| {
            let n = n..=n;
            match which {
                0 => {
                    let t = t.max(10);
                    (
                        distribution_a(format, t, signed, n.clone()),
                        distribution_a(format, t, signed, n),
                    )
                }
                1 => {
                    let t = 2 + t % 29;
                    (
                        distribution_b(format, t, signed, n.clone()),
                        distribution_b(format, t, signed, n),
                    )
                }
                _ => {
                    let t = 4 + t % 11;
                    (
                        distribution_b(format, t, signed, n.clone()),
                        distribution_a(format, t, signed, n),
                    )
                }
            }
        })
        .boxed()
}

/// Edge cases of the exponent range for qdot: the adversarial dot inputs
/// of [`super::any_dot_inputs`] (wide exponents, cancellation, subnormal
/// products, overflow edge), significands just below 2 (largest cast
/// errors; where the two `fexp` definitions differ below 1), many equal
/// elements in one bin under a dominant one (accumulation error), and
/// zeros anywhere.
///
/// # Example
/// ```
/// use boundgate_verify::format::Format;
/// use boundgate_verify::strategies::qdot::edge_pairs;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// let mut runner = TestRunner::deterministic();
/// let strategy = edge_pairs(Format::BF16, 2..=16);
/// let mut zeros = 0;
/// for _ in 0..200 {
///     let (x, y) = strategy.new_tree(&mut runner).unwrap().current();
///     assert!(x.len() == y.len() && (2..=16).contains(&x.len()));
///     assert!(x.iter().chain(&y).all(|&v| Format::BF16.is_representable(v) && v.is_finite()));
///     zeros += x.iter().chain(&y).filter(|&&v| v == 0.0).count();
/// }
/// assert!(zeros > 0); // zeros are drawn (fexp(0) is undefined)
/// ```
pub fn edge_pairs(
    format: Format,
    len: RangeInclusive<usize>,
) -> BoxedStrategy<(Vec<f64>, Vec<f64>)> {
    let lo = format.emin() - format.precision() as i32 + 1;
    let hi = format.emax();
    let near_two = {
        let p = format.precision() as i32;
        let exps = (lo.max(-60))..=((hi - 1).min(60));
        (
            prop::collection::vec((0u32..8, exps.clone(), any::<bool>()), len.clone()),
            prop::collection::vec((0u32..8, exps, any::<bool>()), len.clone()),
        )
            .prop_map(move |(a, b)| {
                let make = |v: Vec<(u32, i32, bool)>| -> Vec<f64> {
                    v.into_iter()
                        .map(|(k, e, neg)| {
                            // 2 - k ulp: largest significands, then scaled.
                            let s = 2.0 - f64::from(k) * 2f64.powi(1 - p);
                            let v = format
                                .round(ldexp(s, e), RoundingMode::NearestEven)
                                .min(format.max_finite());
                            if neg { -v } else { v }
                        })
                        .collect()
                };
                let (x, y) = (make(a), make(b));
                let n = x.len().min(y.len());
                (x[..n].to_vec(), y[..n].to_vec())
            })
    };
    let repeated = (
        scaled_significand(format, -4..=4),
        scaled_significand(format, -30..=-5),
        // At least one entry (x[0] is the big one): 0..=0 indexed an empty
        // vector (review 2026-11-29).
        (*len.start()).max(1)..=(*len.end()).max(1),
    )
        .prop_map(|(big, small, n)| {
            let mut x = vec![small; n];
            x[0] = big;
            (x, vec![1.0; n])
        });
    let base = prop_oneof![
        4 => any_dot_inputs(format, len.clone()),
        3 => near_two,
        2 => repeated,
    ];
    (base, any::<u64>())
        .prop_map(|((mut x, mut y), zero_mask)| {
            // Zero out a few entries (fexp(0) is undefined).
            for (i, (a, b)) in x.iter_mut().zip(y.iter_mut()).enumerate() {
                match (zero_mask >> (2 * (i % 32))) & 0b11 {
                    0 if i % 7 == 3 => *a = 0.0,
                    1 if i % 11 == 5 => *b = 0.0,
                    _ => {}
                }
            }
            (x, y)
        })
        .boxed()
}
