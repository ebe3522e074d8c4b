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
