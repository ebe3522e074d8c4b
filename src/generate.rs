//! Input generators: seeded distributions for audits, and public proptest
//! strategies that hunt the inputs on which bounds are tight or fail.
//! (DESIGN.md calls this `gen.rs`; `gen` is a reserved keyword in Rust 2024.)
//!
//! The proptest strategies themselves live in `boundgate_verify::strategies`
//! (so that a user crate needs only the checker) and are re-exported here:
//! [`strategies::scaled_significand`], [`strategies::dot_inputs`] with a
//! [`DotCase`], [`strategies::any_dot_inputs`], and [`proptest_config`].

use boundgate_verify::format::{Format, RoundingMode, ldexp};
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
    ///
    /// # Example
    /// ```
    /// use boundgate::generate::Distribution;
    /// // f64 Display: -1.0 prints as -1
    /// assert_eq!(Distribution::Uniform { low: -1.0, high: 1.0 }.label(), "U(-1,1)");
    /// assert_eq!(Distribution::Normal { mean: 0.0, std_dev: 1.5 }.label(), "N(0,1.5)");
    /// assert_eq!(Distribution::ScaledSignificand { exp_min: -3, exp_max: 4 }.label(), "s*2^[-3,4]");
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::generate::Distribution;
    /// assert!(Distribution::Uniform { low: 0.0, high: 1.0 }.validate().is_ok());
    /// // empty range; finite ends whose width high - low overflows
    /// assert!(Distribution::Uniform { low: 1.0, high: 1.0 }.validate().is_err());
    /// assert!(Distribution::Uniform { low: -1e308, high: 1e308 }.validate().is_err());
    /// assert!(Distribution::Normal { mean: 0.0, std_dev: 0.0 }.validate().is_err());
    /// // exponents down to the smallest subnormal's, -1074, are allowed; below are not
    /// assert!(Distribution::ScaledSignificand { exp_min: -1074, exp_max: 1023 }.validate().is_ok());
    /// assert!(Distribution::ScaledSignificand { exp_min: -1075, exp_max: 0 }.validate().is_err());
    /// assert!(Distribution::ScaledSignificand { exp_min: 2, exp_max: 1 }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            // The sampler draws low + (high - low) u: the width must be finite
            // too ([-1e308, 1e308) panicked in the sampler until 2026-11-25).
            Distribution::Uniform { low, high }
                if !(low.is_finite()
                    && high.is_finite()
                    && low < high
                    && (high - low).is_finite()) =>
            {
                Err(format!(
                    "uniform needs finite low < high with a finite width high - low, got [{low}, {high})"
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
    /// Every value returned is finite.
    ///
    /// # Errors
    /// Parameters that [`Distribution::validate`] refuses; a normal
    /// distribution whose draw overflows `f64` (a mean or standard deviation
    /// near `f64::MAX`).
    ///
    /// # Example
    /// ```
    /// use boundgate::generate::Distribution;
    /// // e = 3 only: |v| = s 2^3 with s in [1, 2), so 8 <= |v| < 16
    /// let d = Distribution::ScaledSignificand { exp_min: 3, exp_max: 3 };
    /// let x = d.sample(7, 0, 100).unwrap();
    /// assert!(x.iter().all(|v| (8.0..16.0).contains(&v.abs())));
    /// assert!(x.iter().any(|v| *v < 0.0) && x.iter().any(|v| *v > 0.0));
    /// // the same (seed, stream) repeats bit for bit; another stream differs
    /// assert_eq!(x, d.sample(7, 0, 100).unwrap());
    /// assert_ne!(x, d.sample(7, 1, 100).unwrap());
    /// // invalid parameters are refused, not sampled
    /// assert!(Distribution::Normal { mean: 0.0, std_dev: -1.0 }.sample(7, 0, 1).is_err());
    /// // finite parameters whose draws overflow
    /// assert!(Distribution::Normal { mean: 0.0, std_dev: f64::MAX }.sample(7, 0, 100).is_err());
    /// ```
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
                let v: Vec<f64> = (0..len).map(|_| normal.sample(&mut rng)).collect();
                // `mean + std_dev z` overflows for finite parameters near
                // f64::MAX: refused, not returned as an infinity.
                if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                    return Err(format!(
                        "normal ({mean}, {std_dev}) drew {} at index {i}: its values overflow f64",
                        v[i]
                    ));
                }
                v
            }
            Distribution::ScaledSignificand { exp_min, exp_max } => (0..len)
                .map(|_| {
                    let s: f64 = rng.random_range(1.0..2.0);
                    let e = rng.random_range(exp_min..=exp_max);
                    let sign = if rng.random::<bool>() { -1.0 } else { 1.0 };
                    // ldexp, not powi: 2f64.powi(e) is 0 for e <= -1024 at
                    // run time (exponents down to -1074 are allowed).
                    sign * ldexp(s, e)
                })
                .collect(),
        })
    }
}

pub use boundgate_verify::strategies::{DotCase, PROPTEST_SEED, heavy, proptest_config};

/// Public proptest strategies (defined in `boundgate_verify::strategies`, so a
/// user crate can gate its own kernels with `boundgate-verify` alone).
pub mod strategies {
    pub use boundgate_verify::strategies::{any_dot_inputs, dot_inputs, scaled_significand};
}

/// Rounds every value to `format` (nearest even).
///
/// # Example
/// ```
/// use boundgate::generate::round_all;
/// use boundgate_verify::format::Format;
/// // fp16 near 0.1 has ulp 2^-14: 0.1 * 2^14 = 1638.4 rounds to 1638.
/// // 1 + 2^-11 ties between 1 and 1 + 2^-10: to even, 1. 70000 > 65504: inf.
/// let r = round_all(&[0.1, 1.0 + 2f64.powi(-11), 70000.0, -0.0], Format::FP16);
/// assert_eq!(r[..3], [1638.0 / 16384.0, 1.0, f64::INFINITY]);
/// assert!(r[3] == 0.0 && r[3].is_sign_negative());
/// ```
pub fn round_all(values: &[f64], format: Format) -> Vec<f64> {
    values
        .iter()
        .map(|&v| format.round(v, RoundingMode::NearestEven))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Distribution;

    /// A uniform range whose width overflows is refused by `validate` (the
    /// sampler panicked on it; found by review, 2026-11-25).
    #[test]
    fn a_uniform_range_with_an_infinite_width_is_refused() {
        let wide = Distribution::Uniform {
            low: -1e308,
            high: 1e308,
        };
        assert!(wide.validate().is_err());
        assert!(wide.sample(1, 0, 4).is_err());
        let fine = Distribution::Uniform {
            low: -1e307,
            high: 1e307,
        };
        assert_eq!(fine.sample(1, 0, 4).unwrap().len(), 4);
    }

    /// The bottom of the allowed exponent range gives subnormals, not zeros
    /// (`2f64.powi(e)` is 0 for `e <= -1024` at run time; until 2026-11-25).
    #[test]
    fn a_normal_whose_draws_overflow_is_refused() {
        let huge = Distribution::Normal {
            mean: 0.0,
            std_dev: f64::MAX,
        };
        assert!(huge.validate().is_ok());
        assert!(huge.sample(1, 0, 100).is_err());
        let near_max = Distribution::Normal {
            mean: f64::MAX,
            std_dev: 1e307,
        };
        assert!(near_max.sample(1, 0, 100).is_err());
        let fine = Distribution::Normal {
            mean: 0.0,
            std_dev: 1e300,
        };
        assert!(
            fine.sample(1, 0, 100)
                .unwrap()
                .iter()
                .all(|x| x.is_finite())
        );
    }

    #[test]
    fn the_smallest_exponents_give_subnormals() {
        let tiny = Distribution::ScaledSignificand {
            exp_min: -1074,
            exp_max: -1030,
        };
        let v = tiny.sample(1, 0, 1000).unwrap();
        // s 2^e >= 2^-1074, the smallest subnormal: none rounds to 0.
        assert!(v.iter().all(|x| *x != 0.0));
        assert!(v.iter().all(|x| x.abs() < 2f64.powi(-1029)));
    }
}
