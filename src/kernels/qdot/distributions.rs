//! The input distributions of the paper's experiments (§4.1), seeded, and
//! proptest strategies built on them and on exponent-range edge cases.
//!
//! - Distribution A, uniformly distributed exponents: `s 2^p`,
//!   `s ~ U[0.5, 1)`, `p` a uniform integer in `[-t/2, t/2]`;
//! - Distribution B, normally distributed exponents: `s 2^p`,
//!   `s ~ U[0.5, 1)`, `p ~ N(0, t/2)` rounded to the nearest integer. The paper
//!   writes `N(0, 0.5 t)` without saying whether `0.5 t` is the variance or the
//!   standard deviation; we take the standard deviation.
//!
//! Both are positive, as printed (so `x^T y` has no cancellation); the
//! `signed` variants flip each sign with probability 1/2.

use boundgate_verify::format::ldexp;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution as _, Normal};
use serde::Serialize;

/// Draws the exponent `p` of one value.
type ExponentSampler = Box<dyn Fn(&mut ChaCha8Rng) -> i32>;

/// One of the paper's two distributions with its parameter `t`.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::distributions::PaperDistribution;
/// let a = PaperDistribution::A { t: 10, signed: false };
/// let v = a.sample(7, 0, 1000);
/// assert!(v.iter().all(|&x| x >= 0.5 * 2f64.powi(-5) && x < 2f64.powi(5)));
/// assert_eq!(v, a.sample(7, 0, 1000)); // seeded
/// assert_eq!(a.label(), "A(t=10)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PaperDistribution {
    /// Uniform integer exponents in `[-t/2, t/2]`.
    A {
        /// The exponent range parameter.
        t: u32,
        /// Random signs (not in the paper).
        signed: bool,
    },
    /// Normal exponents, standard deviation `t/2`.
    B {
        /// The exponent spread parameter.
        t: u32,
        /// Random signs (not in the paper).
        signed: bool,
    },
}

impl PaperDistribution {
    /// A short label, e.g. `A(t=10)` or `B(t=4, signed)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::distributions::PaperDistribution;
    /// assert_eq!(PaperDistribution::A { t: 10, signed: false }.label(), "A(t=10)");
    /// assert_eq!(PaperDistribution::B { t: 4, signed: true }.label(), "B(t=4, signed)");
    /// ```
    pub fn label(&self) -> String {
        let (name, t, signed) = match *self {
            PaperDistribution::A { t, signed } => ("A", t, signed),
            PaperDistribution::B { t, signed } => ("B", t, signed),
        };
        if signed {
            format!("{name}(t={t}, signed)")
        } else {
            format!("{name}(t={t})")
        }
    }

    /// `len` values from a generator seeded by `(seed, stream)`: `s 2^p`, `s`
    /// uniform in `[0.5, 1)`, `p` from the distribution, rounded once where
    /// `2^p` leaves the normal range.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::distributions::PaperDistribution;
    /// let a = PaperDistribution::A { t: 10, signed: false };
    /// let v = a.sample(1, 0, 1000);
    /// assert!(v.iter().all(|&x| (0.5 * 2f64.powi(-5)..2f64.powi(5)).contains(&x)));
    /// assert_eq!(v, a.sample(1, 0, 1000)); // seeded
    /// // p in [-1070, 1070]: subnormals and infinities where 2^p leaves the
    /// // normal range, but never 0 (s 2^-1070 >= 2^-1071 is a subnormal).
    /// let wide = PaperDistribution::A { t: 2140, signed: false }.sample(2, 0, 20_000);
    /// assert!(wide.iter().any(|&x| x < f64::MIN_POSITIVE));
    /// assert!(wide.iter().any(|&x| x.is_infinite()));
    /// assert!(wide.iter().all(|&x| x > 0.0));
    /// ```
    pub fn sample(&self, seed: u64, stream: u64, len: usize) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        let (signed, exponent): (bool, ExponentSampler) = match *self {
            PaperDistribution::A { t, signed } => {
                let half = (t / 2) as i32;
                (signed, Box::new(move |r| r.random_range(-half..=half)))
            }
            PaperDistribution::B { t, signed } => {
                // t = 0 degenerates to p = 0.
                let normal = Normal::new(0.0, f64::from(t) / 2.0).ok();
                (
                    signed,
                    Box::new(move |r| {
                        normal
                            .map(|n| n.sample(r).round().clamp(-1000.0, 1000.0) as i32)
                            .unwrap_or(0)
                    }),
                )
            }
        };
        (0..len)
            .map(|_| {
                let s: f64 = rng.random_range(0.5..1.0);
                let p = exponent(&mut rng);
                // ldexp, not powi: `2f64.powi(p)` is 0 for p <= -1024 and
                // +inf for p >= 1024 (it computes 1 / 2^-p), and `sample` is
                // public with any `t` (the experiments cap t at MAX_T = 200).
                let v = ldexp(s, p);
                if signed && rng.random::<bool>() {
                    -v
                } else {
                    v
                }
            })
            .collect()
    }
}

/// Proptest strategies for qdot inputs (defined in the checker,
/// `boundgate_verify::strategies::qdot`, so user crates can use them with
/// `boundgate-verify` alone).
pub mod strategies {
    pub use boundgate_verify::strategies::qdot::*;
}
