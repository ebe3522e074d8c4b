//! The input distributions of Gu's precision test (§4.1 A, Fig. 6 caption):
//! uniform on `[0, 1)`, normal with mean 10 and variance 3, exponential with
//! `lambda = 4`, Poisson with `lambda = 10`, chi-square with 1 degree of
//! freedom; and one the paper did not try, the zero-mean standard normal
//! (every other one is, in practice, non-negative, so the results `c_ij` are
//! far from zero and relative errors well defined).
//!
//! `boundgate::generate::Distribution` (the audit campaigns') has no
//! exponential, Poisson or chi-square, so they live here, seeded the same way
//! (ChaCha8, seed and stream).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{ChiSquared, Distribution, Exp, Normal, Poisson};
use serde::Serialize;

/// One of the precision test's distributions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaperDistribution {
    /// U(0, 1) ("uniform").
    Uniform,
    /// N(10, variance 3) ("Normal").
    Normal,
    /// Exp(lambda = 4) ("Esp").
    Exponential,
    /// Poisson(lambda = 10) ("Poison").
    Poisson,
    /// chi-square(1) ("Kar").
    ChiSquare,
    /// N(0, 1): zero mean, not in the paper.
    ZeroMeanNormal,
}

impl PaperDistribution {
    /// All six, the paper's five first.
    pub const ALL: [PaperDistribution; 6] = [
        PaperDistribution::Uniform,
        PaperDistribution::Normal,
        PaperDistribution::Exponential,
        PaperDistribution::Poisson,
        PaperDistribution::ChiSquare,
        PaperDistribution::ZeroMeanNormal,
    ];

    /// Its name in plans.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::dist::PaperDistribution;
    /// assert_eq!(PaperDistribution::Exponential.name(), "exp");
    /// assert_eq!(PaperDistribution::ZeroMeanNormal.name(), "normal0");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PaperDistribution::Uniform => "uniform",
            PaperDistribution::Normal => "normal",
            PaperDistribution::Exponential => "exp",
            PaperDistribution::Poisson => "poisson",
            PaperDistribution::ChiSquare => "chi2",
            PaperDistribution::ZeroMeanNormal => "normal0",
        }
    }

    /// A label for reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::dist::PaperDistribution;
    /// assert_eq!(PaperDistribution::Normal.label(), "N(10, var 3)");
    /// assert_eq!(PaperDistribution::ZeroMeanNormal.label(), "N(0,1) (not in the paper)");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            PaperDistribution::Uniform => "U(0,1)",
            PaperDistribution::Normal => "N(10, var 3)",
            PaperDistribution::Exponential => "Exp(4)",
            PaperDistribution::Poisson => "Poisson(10)",
            PaperDistribution::ChiSquare => "chi2(1)",
            PaperDistribution::ZeroMeanNormal => "N(0,1) (not in the paper)",
        }
    }

    /// From its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::dist::PaperDistribution;
    /// for d in PaperDistribution::ALL {
    ///     assert_eq!(PaperDistribution::by_name(d.name()), Some(d));
    /// }
    /// assert_eq!(PaperDistribution::by_name("chi2"), Some(PaperDistribution::ChiSquare));
    /// // the paper's own spelling ("Kar") is not a name
    /// assert_eq!(PaperDistribution::by_name("Kar"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<PaperDistribution> {
        PaperDistribution::ALL
            .into_iter()
            .find(|d| d.name() == name)
    }

    /// `len` values from the generator seeded with `(seed, stream)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::dist::PaperDistribution;
    /// let v = PaperDistribution::Poisson.sample(1, 0, 100);
    /// assert!(v.iter().all(|x| *x >= 0.0 && x.fract() == 0.0));
    /// assert_eq!(v, PaperDistribution::Poisson.sample(1, 0, 100));
    /// ```
    pub fn sample(self, seed: u64, stream: u64, len: usize) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        // The parameters are constants, valid for every constructor.
        match self {
            PaperDistribution::Uniform => (0..len).map(|_| rng.random_range(0.0..1.0)).collect(),
            PaperDistribution::Normal => {
                let d = Normal::new(10.0, 3f64.sqrt()).expect("valid");
                (0..len).map(|_| d.sample(&mut rng)).collect()
            }
            PaperDistribution::Exponential => {
                let d = Exp::new(4.0).expect("valid");
                (0..len).map(|_| d.sample(&mut rng)).collect()
            }
            PaperDistribution::Poisson => {
                let d = Poisson::new(10.0).expect("valid");
                (0..len).map(|_| d.sample(&mut rng)).collect()
            }
            PaperDistribution::ChiSquare => {
                let d = ChiSquared::new(1.0).expect("valid");
                (0..len).map(|_| d.sample(&mut rng)).collect()
            }
            PaperDistribution::ZeroMeanNormal => {
                let d = Normal::new(0.0, 1.0).expect("valid");
                (0..len).map(|_| d.sample(&mut rng)).collect()
            }
        }
    }
}
