//! Input generators: seeded distributions for audits, and public proptest
//! strategies that hunt the inputs on which bounds are tight or fail.
//! (DESIGN.md calls this `gen.rs`; `gen` is a reserved keyword in Rust 2024.)
//!
//! Strategies produce values *of a format* (already rounded), so that a
//! failing case shrinks to numbers the kernel really reads:
//! - [`strategies::scaled_significand`]: `s * 2^e` with a random significand
//!   of the format's precision and `e` uniform in a range, the construction of
//!   the qdot paper's experiments (Diffenderfer et al. 2021, §5) and of many
//!   exponent-range tests;
//! - [`strategies::dot_inputs`] with a [`DotCase`]: wide exponent ranges,
//!   massive cancellation, products in the subnormal range, and products near
//!   the overflow threshold.

use boundgate_verify::format::{Format, RoundingMode};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution as _, Normal};
use serde::{Deserialize, Serialize};

/// A distribution of input values for audits.
///
/// # Example
/// ```
/// use boundgate::generate::Distribution;
/// let d: Distribution = toml::from_str("kind = \"uniform\"\nlow = -1.0\nhigh = 1.0").unwrap();
/// let v = d.sample(42, 0, 5).unwrap();
/// assert_eq!(v.len(), 5);
/// assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
/// assert_eq!(v, d.sample(42, 0, 5).unwrap()); // seeded: reproducible
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Distribution {
    /// Uniform on `[low, high)`.
    Uniform {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
    },
    /// Normal with the given mean and standard deviation.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation (> 0).
        std_dev: f64,
    },
    /// `+-s 2^e`, `s` uniform in `[1, 2)`, `e` uniform in `exp_min..=exp_max`,
    /// random sign.
    ScaledSignificand {
        /// Smallest exponent.
        exp_min: i32,
        /// Largest exponent.
        exp_max: i32,
    },
}

impl Distribution {
    /// A short label for reports, e.g. `U(-1,1)`.
    pub fn label(&self) -> String {
        match self {
            Distribution::Uniform { low, high } => format!("U({low},{high})"),
            Distribution::Normal { mean, std_dev } => format!("N({mean},{std_dev})"),
            Distribution::ScaledSignificand { exp_min, exp_max } => {
                format!("s*2^[{exp_min},{exp_max}]")
            }
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Distribution::Uniform { low, high }
                if !(low.is_finite() && high.is_finite() && low < high) =>
            {
                Err(format!(
                    "uniform needs finite low < high, got [{low}, {high})"
                ))
            }
            Distribution::Normal { mean, std_dev }
                if !(mean.is_finite() && std_dev.is_finite() && std_dev > 0.0) =>
            {
                Err(format!(
                    "normal needs a finite mean and std_dev > 0, got ({mean}, {std_dev})"
                ))
            }
            Distribution::ScaledSignificand { exp_min, exp_max }
                if !(exp_min <= exp_max && exp_min >= -1074 && exp_max <= 1023) =>
            {
                Err(format!(
                    "scaled-significand needs -1074 <= exp_min <= exp_max <= 1023, got [{exp_min}, {exp_max}]"
                ))
            }
            _ => Ok(()),
        }
    }

    /// `len` values drawn with a generator seeded by `(seed, stream)`; the
    /// stream separates the inputs of one trial (x is stream 0, y stream 1, ...).
    pub fn sample(&self, seed: u64, stream: u64, len: usize) -> Result<Vec<f64>, String> {
        self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Ok(match *self {
            Distribution::Uniform { low, high } => {
                (0..len).map(|_| rng.random_range(low..high)).collect()
            }
            Distribution::Normal { mean, std_dev } => {
                let normal = Normal::new(mean, std_dev).map_err(|e| e.to_string())?;
                (0..len).map(|_| normal.sample(&mut rng)).collect()
            }
            Distribution::ScaledSignificand { exp_min, exp_max } => (0..len)
                .map(|_| {
                    let s: f64 = rng.random_range(1.0..2.0);
                    let e = rng.random_range(exp_min..=exp_max);
                    let sign = if rng.random::<bool>() { -1.0 } else { 1.0 };
                    sign * s * 2f64.powi(e)
                })
                .collect(),
        })
    }
}

/// The kinds of adversarial dot-product inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DotCase {
    /// Factors with exponents over the whole usable range of the format.
    WideExponent,
    /// `x = [a, a]`, `y = [b, -b']` with `b'` a slightly perturbed `b`: the
    /// exact result is tiny compared with `sum |x_i y_i|`.
    Cancellation,
    /// Products in and around the format's subnormal range.
    SubnormalProducts,
    /// Products (and their sums) near the format's overflow threshold.
    OverflowEdge,
}

impl DotCase {
    /// All cases.
    pub const ALL: [DotCase; 4] = [
        DotCase::WideExponent,
        DotCase::Cancellation,
        DotCase::SubnormalProducts,
        DotCase::OverflowEdge,
    ];
}

/// Public proptest strategies.
pub mod strategies {
    use super::DotCase;
    use boundgate_verify::format::{Format, RoundingMode};
    use proptest::prelude::*;
    use std::ops::RangeInclusive;

    /// A value of `format`: random sign, random `p`-bit significand, exponent
    /// uniform in `exponents` (clamped to the format; values below `2^emin`
    /// are rounded to the format's subnormals).
    ///
    /// # Example
    /// ```
    /// use boundgate::generate::strategies::scaled_significand;
    /// use boundgate_verify::format::Format;
    /// use proptest::strategy::{Strategy, ValueTree};
    /// use proptest::test_runner::TestRunner;
    /// let mut runner = TestRunner::deterministic();
    /// let x = scaled_significand(Format::FP16, -20..=10).new_tree(&mut runner).unwrap().current();
    /// assert!(Format::FP16.is_representable(x));
    /// ```
    pub fn scaled_significand(
        format: Format,
        exponents: RangeInclusive<i32>,
    ) -> impl Strategy<Value = f64> + Clone {
        let p = format.precision();
        let lo = (*exponents.start()).max(format.emin() - p as i32 + 1);
        let hi = (*exponents.end()).min(format.emax()).max(lo);
        let top = 1u64 << (p - 1);
        (any::<bool>(), top..2 * top, lo..=hi).prop_map(move |(negative, significand, e)| {
            let magnitude = significand as f64 * 2f64.powi(e - (p as i32 - 1));
            let v = format
                .round(magnitude, RoundingMode::NearestEven)
                .min(format.max_finite());
            if negative { -v } else { v }
        })
    }

    /// Dot-product inputs `(x, y)` of one kind, with lengths in `len`.
    pub fn dot_inputs(
        format: Format,
        case: DotCase,
        len: RangeInclusive<usize>,
    ) -> BoxedStrategy<(Vec<f64>, Vec<f64>)> {
        let emin = format.emin();
        let emax = format.emax();
        let p = format.precision() as i32;
        match case {
            DotCase::WideExponent => {
                // Each factor over half the range, so products span subnormal to near max.
                let e = (emin - p) / 2..=emax / 2;
                pair(format, e.clone(), e, len)
            }
            DotCase::SubnormalProducts => {
                // e_x + e_y around emin - p .. emin: products at and below 2^emin.
                let ex = (emin - p) / 2 - 2..=(emin / 2) + 1;
                pair(format, ex.clone(), ex, len)
            }
            DotCase::OverflowEdge => {
                // e_x + e_y around emax - log2(len) .. emax: sums straddle the threshold.
                let half = emax / 2;
                pair(format, half - 3..=half, half - 3..=half + 1, len)
            }
            DotCase::Cancellation => {
                let half_len = (*len.start()).div_ceil(2).max(1)..=(*len.end() / 2).max(1);
                let e = -8..=8;
                (
                    prop::collection::vec(scaled_significand(format, e.clone()), half_len.clone()),
                    prop::collection::vec(scaled_significand(format, e), half_len),
                    any::<u64>(),
                )
                    .prop_map(move |(a, b, perturb)| {
                        let k = a.len().min(b.len());
                        let (a, b) = (&a[..k], &b[..k]);
                        let mut x = a.to_vec();
                        x.extend_from_slice(a);
                        let mut y = b.to_vec();
                        // The second half cancels the first, except some entries nudged by one ulp.
                        y.extend(b.iter().enumerate().map(|(i, &v)| {
                            let nudged = if (perturb >> (i % 64)) & 1 == 1 {
                                format.round(v + format.ulp(v), RoundingMode::NearestEven)
                            } else {
                                v
                            };
                            -nudged
                        }));
                        (x, y)
                    })
                    .boxed()
            }
        }
    }

    fn pair(
        format: Format,
        ex: RangeInclusive<i32>,
        ey: RangeInclusive<i32>,
        len: RangeInclusive<usize>,
    ) -> BoxedStrategy<(Vec<f64>, Vec<f64>)> {
        len.prop_flat_map(move |n| {
            (
                prop::collection::vec(scaled_significand(format, ex.clone()), n),
                prop::collection::vec(scaled_significand(format, ey.clone()), n),
            )
        })
        .boxed()
    }

    /// Any of the [`DotCase`]s.
    pub fn any_dot_inputs(
        format: Format,
        len: RangeInclusive<usize>,
    ) -> BoxedStrategy<(Vec<f64>, Vec<f64>)> {
        prop_oneof![
            dot_inputs(format, DotCase::WideExponent, len.clone()),
            dot_inputs(format, DotCase::Cancellation, len.clone()),
            dot_inputs(format, DotCase::SubnormalProducts, len.clone()),
            dot_inputs(format, DotCase::OverflowEdge, len),
        ]
        .boxed()
    }
}

/// Rounds every value to `format` (nearest even).
pub fn round_all(values: &[f64], format: Format) -> Vec<f64> {
    values
        .iter()
        .map(|&v| format.round(v, RoundingMode::NearestEven))
        .collect()
}

/// Whether the opt-in heavy campaigns are enabled (`BOUNDGATE_HEAVY=1`).
pub fn heavy() -> bool {
    std::env::var_os("BOUNDGATE_HEAVY").is_some_and(|v| v != "0")
}

/// The seed boundgate's property tests use unless `PROPTEST_RNG_SEED` overrides it.
pub const PROPTEST_SEED: u64 = 0x00b0_0da7_e5ee_d001;

/// A proptest configuration with a fixed seed ([`PROPTEST_SEED`], or the
/// `PROPTEST_RNG_SEED` environment variable), `cases` cases by default and
/// `heavy_cases` with `BOUNDGATE_HEAVY=1`. Failures are shrunk and persisted
/// under `proptest-regressions/` next to the test file.
///
/// # Example
/// ```
/// let config = boundgate::generate::proptest_config(64, 100_000);
/// assert!(config.cases == 64 || boundgate::generate::heavy());
/// ```
pub fn proptest_config(cases: u32, heavy_cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, RngSeed};
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(PROPTEST_SEED);
    Config {
        cases: if heavy() { heavy_cases } else { cases },
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}
