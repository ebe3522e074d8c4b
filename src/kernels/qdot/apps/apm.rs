//! The power method with qdot for its dot products: APM, Algorithm 4.2 of the
//! paper. As printed, line 8 sets `lambda_{k+1} = qdot(x_k, x_{k+1}) / c` with
//! `x_{k+1}` already normalised, which is `x_k^T A x_k / c^(3/2)`, not an
//! eigenvalue estimate; we read it as the Rayleigh quotient of the unit
//! iterate, `lambda_{k+1} = qdot(x_k, A x_k)`, which keeps the two dot
//! products per iteration the paper counts:
//!
//! ```text
//! x_0 = v / ||v||  (v seeded random; ||.|| in fp64)
//! repeat: w = A x_k; lambda_{k+1} = dot(x_k, w); c = dot(w, w); x_{k+1} = w / sqrt(c)
//! until |lambda_{k+1} - lambda_k| <= tau or max_iter iterations
//! ```

use super::dots::DotProvider;
use crate::error::Result;
use crate::sparse::CsrMatrix;
use boundgate_verify::error::require_same_len;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// How a power-method run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PowerOutcome {
    /// Iterations taken.
    pub iterations: usize,
    /// Whether `|lambda_{k+1} - lambda_k| <= tau` was reached.
    pub converged: bool,
    /// The last eigenvalue estimate.
    pub eigenvalue: f64,
    /// Whether a non-finite or non-positive `c` ended it.
    pub breakdown: bool,
}

/// The seeded unit start vector of length `n`.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::apm::start_vector;
/// let v = start_vector(100, 3);
/// assert_eq!(v.len(), 100);
/// // A unit vector (its norm in fp64, up to rounding), seeded.
/// let norm2: f64 = v.iter().map(|a| a * a).sum();
/// assert!((norm2 - 1.0).abs() < 1e-14);
/// assert_eq!(v, start_vector(100, 3));
/// assert_ne!(v, start_vector(100, 4));
/// ```
pub fn start_vector(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    v.iter().map(|a| a / norm).collect()
}

/// Runs the power method from `x0` (a unit vector).
///
/// # Errors
/// [`VerifyError::LengthMismatch`](boundgate_verify::VerifyError::LengthMismatch) unless `A` is square of the length of
/// `x0`; the errors of the dot products.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::{apm::{power, start_vector}, laplacian::random_laplacian, PlainDot};
/// let l = random_laplacian(200, 3, 7).unwrap();
/// let out = power(&l, &start_vector(200, 1), 1e-6, 2000, &mut PlainDot { tile: 64 }).unwrap();
/// assert!(out.converged && out.eigenvalue > 3.0);
/// // a start vector of another length is refused
/// assert!(power(&l, &start_vector(199, 1), 1e-6, 2000, &mut PlainDot { tile: 64 }).is_err());
/// ```
pub fn power(
    a: &CsrMatrix,
    x0: &[f64],
    tau: f64,
    max_iter: usize,
    dots: &mut dyn DotProvider,
) -> Result<PowerOutcome> {
    let n = x0.len();
    require_same_len("rows of A and x0", a.rows(), n)?;
    require_same_len("columns of A and x0", a.cols(), n)?;
    let mut x = x0.to_vec();
    let mut w = vec![0.0; n];
    let mut previous: Option<f64> = None;
    let mut lambda = f64::NAN;
    for k in 1..=max_iter {
        a.spmv(&x, &mut w);
        lambda = dots.dot(&x, &w)?;
        let c = dots.dot(&w, &w)?;
        if !(c.is_finite() && c > 0.0 && lambda.is_finite()) {
            return Ok(PowerOutcome {
                iterations: k,
                converged: false,
                eigenvalue: lambda,
                breakdown: true,
            });
        }
        let scale = c.sqrt();
        for (xi, wi) in x.iter_mut().zip(&w) {
            *xi = wi / scale;
        }
        if previous.is_some_and(|p| (lambda - p).abs() <= tau) {
            return Ok(PowerOutcome {
                iterations: k,
                converged: true,
                eigenvalue: lambda,
                breakdown: false,
            });
        }
        previous = Some(lambda);
    }
    Ok(PowerOutcome {
        iterations: max_iter,
        converged: false,
        eigenvalue: lambda,
        breakdown: false,
    })
}
