//! Conjugate gradients with qdot for its dot products: ACG, Algorithm 4.1 of
//! the paper, as HPCCG runs it (`||r_k||` is `sqrt(c_k)`, the dot product of
//! the residual with itself, so with ACG the stopping test sees qdot's value).
//!
//! ```text
//! r_0 = b - A x_0, p_0 = r_0, c_0 = dot(r_0, r_0)
//! while sqrt(c_k) > tau and k < max_iter:
//!     q_k = A p_k;  alpha_k = c_k / dot(p_k, q_k)
//!     x_{k+1} = x_k + alpha_k p_k;  r_{k+1} = r_k - alpha_k q_k
//!     c_{k+1} = dot(r_{k+1}, r_{k+1});  beta_k = c_{k+1} / c_k
//!     p_{k+1} = r_{k+1} + beta_k p_k
//! ```
//! A non-finite or non-positive `c_k` or `dot(p, q)` ends the run as a breakdown.

use super::dots::DotProvider;
use crate::error::Result;
use crate::sparse::CsrMatrix;
use boundgate_verify::error::require_same_len;
use serde::Serialize;

/// How a CG run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CgOutcome {
    /// Iterations taken.
    pub iterations: usize,
    /// Whether `sqrt(c_k) <= tau` was reached.
    pub converged: bool,
    /// Whether it stopped on a non-finite or non-positive denominator.
    pub breakdown: bool,
    /// `||b - A x||_2 / ||b||_2` of the final iterate, in fp64; for `b = 0`
    /// (where that is 0/0) the absolute residual `||A x||_2` (0: `x = 0`).
    pub true_relative_residual: f64,
    /// The solution.
    #[serde(skip)]
    pub x: Vec<f64>,
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// Solves `A x = b` from `x_0 = 0` with the given dot products.
///
/// # Errors
/// [`VerifyError::LengthMismatch`](boundgate_verify::VerifyError::LengthMismatch) unless `A` is square of the length of `b`;
/// the errors of the dot products.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::{acg::cg, hpccg::generate, PlainDot};
/// let p = generate(5, 5, 1).unwrap();
/// let out = cg(&p.a, &p.b, 1e-8, 200, &mut PlainDot { tile: 64 }).unwrap();
/// assert!(out.converged && out.true_relative_residual < 1e-8);
/// // a right-hand side of another length is refused
/// assert!(cg(&p.a, &p.b[1..], 1e-8, 200, &mut PlainDot { tile: 64 }).is_err());
/// ```
pub fn cg(
    a: &CsrMatrix,
    b: &[f64],
    tau: f64,
    max_iter: usize,
    dots: &mut dyn DotProvider,
) -> Result<CgOutcome> {
    let n = b.len();
    require_same_len("rows of A and b", a.rows(), n)?;
    require_same_len("columns of A and b", a.cols(), n)?;
    let mut x = vec![0.0; n];
    let mut r = b.to_vec();
    let mut p = r.clone();
    let mut q = vec![0.0; n];
    let mut c = dots.dot(&r, &r)?;
    let mut k = 0;
    let mut breakdown = !(c.is_finite() && c >= 0.0);
    while !breakdown && c.sqrt() > tau && k < max_iter {
        a.spmv(&p, &mut q);
        let pq = dots.dot(&p, &q)?;
        if !(pq.is_finite() && pq > 0.0) {
            breakdown = true;
            break;
        }
        let alpha = c / pq;
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        let c_next = dots.dot(&r, &r)?;
        k += 1;
        if !(c_next.is_finite() && c_next >= 0.0) || c == 0.0 {
            breakdown = true;
            break;
        }
        let beta = c_next / c;
        c = c_next;
        for i in 0..n {
            p[i] = r[i] + beta * p[i];
        }
    }
    let mut ax = vec![0.0; n];
    a.spmv(&x, &mut ax);
    let residual: Vec<f64> = b.iter().zip(&ax).map(|(bi, ai)| bi - ai).collect();
    Ok(CgOutcome {
        iterations: k,
        converged: !breakdown && c.sqrt() <= tau,
        breakdown,
        true_relative_residual: match norm(b) {
            0.0 => norm(&residual),
            nb => norm(&residual) / nb,
        },
        x,
    })
}
