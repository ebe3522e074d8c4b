//! Triangular systems for the tests of the TRSV oracle and of the accessor
//! bounds, and the arithmetic of an independent blocked solve.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::Matrix;
use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo, solve_exact, solve_exact_rational};

/// Every shape of a triangular system.
pub fn shapes() -> [(Uplo, Diag); 4] {
    [
        (Uplo::Lower, Diag::NonUnit),
        (Uplo::Upper, Diag::NonUnit),
        (Uplo::Lower, Diag::Unit),
        (Uplo::Upper, Diag::Unit),
    ]
}

/// The `n x n` triangular system of `data` (row-major) in the shape given.
pub fn triangular(data: &[f64], n: usize, uplo: Uplo, diag: Diag) -> Triangular<'_> {
    Triangular::new(Matrix::new(n, n, data).unwrap(), uplo, diag).unwrap()
}

/// The fraction-free exact solve of `t x = b` equals the rational one.
pub fn assert_exact_solves_agree(t: &Triangular<'_>, b: &[f64], context: &str) {
    assert_eq!(
        solve_exact(t, b).unwrap(),
        solve_exact_rational(t, b).unwrap(),
        "{context}"
    );
}

/// A system read by position, the order a solve takes its rows in: position
/// `p` is row `p` of a lower system and row `n - 1 - p` of an upper one, so
/// that both are lower triangular by position.
pub struct ByPosition<'s, 't> {
    t: &'s Triangular<'t>,
}

impl<'s, 't> ByPosition<'s, 't> {
    pub fn new(t: &'s Triangular<'t>) -> Self {
        ByPosition { t }
    }

    /// The row at position `p`.
    pub fn row(&self, p: usize) -> usize {
        if self.t.uplo() == Uplo::Lower {
            p
        } else {
            self.t.n() - 1 - p
        }
    }

    /// The entry at positions `(p, q)` (the diagonal as the system takes it).
    pub fn entry(&self, p: usize, q: usize) -> f64 {
        if p == q {
            self.t.diagonal(self.row(p))
        } else {
            self.t.matrix().get(self.row(p), self.row(q))
        }
    }

    /// The inverse of the diagonal block of order `m` at position `s`
    /// (row-major by position), by columns: each entry below the diagonal
    /// an FMA chain in `f` with `mode`, divided by the diagonal entry with
    /// `div` (unless the diagonal is unit), as the diagonal entries are.
    pub fn inverse_block(
        &self,
        (s, m): (usize, usize),
        (f, mode): (Format, RoundingMode),
        div: impl Fn(f64, f64) -> f64,
    ) -> Vec<f64> {
        let unit = self.t.diag() == Diag::Unit;
        let l = |p, q| self.entry(p, q);
        let mut y = vec![0.0; m * m];
        for c in 0..m {
            y[c * m + c] = if unit { 1.0 } else { div(1.0, l(s + c, s + c)) };
            for r in c + 1..m {
                let mut acc = 0.0;
                for p in c..r {
                    acc = f.fma(l(s + r, s + p), y[p * m + c], acc, mode);
                }
                y[r * m + c] = if unit {
                    -acc
                } else {
                    div(-acc, l(s + r, s + r))
                };
            }
        }
        y
    }

    /// A vector given by position, by row.
    pub fn by_row(&self, by_position: &[f64]) -> Vec<f64> {
        let mut x = vec![0.0; by_position.len()];
        for (p, v) in by_position.iter().enumerate() {
            x[self.row(p)] = *v;
        }
        x
    }
}

/// `lanes` FMA chains over `terms` (chain `w` takes the terms `k = w mod
/// lanes`), summed by a halving tree, in `f` with `mode`.
pub fn tree_dot(f: Format, mode: RoundingMode, lanes: usize, terms: &[(f64, f64)]) -> f64 {
    let mut part = vec![0.0; lanes];
    for (k, (a, b)) in terms.iter().enumerate() {
        part[k % lanes] = f.fma(*a, *b, part[k % lanes], mode);
    }
    let mut stride = 1;
    while stride < lanes {
        for w in (0..lanes - stride).step_by(2 * stride) {
            part[w] = f.add(part[w], part[w + stride], mode);
        }
        stride *= 2;
    }
    part[0]
}
