//! Exact oracles for triangular solves `T x = b`: the exact residual of a
//! computed solution, its backward errors, and a rigorous enclosure of its
//! forward error.
//!
//! The exact solution `x = T^{-1} b` of a system with binary floating-point
//! entries is a rational number, not a dyadic one, so it cannot be held by an
//! [`ExactSum`]. What is dyadic, and computed here without any error, is the
//! residual `r = b - T x^` of a computed `x^`: one exact sum of products per
//! row. Everything else is derived from exact residuals:
//!
//! - **Backward errors** ([`backward_error`]): the componentwise backward error
//!   of Oettli and Prager, `omega = max_i |r_i| / (|T| |x^|)_i` (Higham 2002,
//!   Theorem 7.3, with `E = |T|`, `f = 0`: the perturbations of Higham's
//!   Theorem 8.5 for substitution), and the normwise one of Rigal and Gaches,
//!   `eta = ||r||_inf / (||T||_inf ||x^||_inf)` (Higham 2002, Theorem 7.1, with
//!   `E = T`, `f = 0`), both rounded up from the exact residual.
//! - **Forward errors** ([`solution_errors`]): `x - x^ = T^{-1} r`. Iterative
//!   refinement with exact residuals (Higham 2002, §12.1, with the residual
//!   computed exactly) gives corrections `d_1, d_2, ...` in `f64` whose exact
//!   sum `D` approaches `x - x^`; the remainder `T^{-1} r_k` of the last exact
//!   residual `r_k = b - T (x^ + D)` is bounded with the comparison matrix:
//!   `|T^{-1}| <= M(T)^{-1}`, where `M(T)` has `|t_ii|` on the diagonal and
//!   `-|t_ij|` off it (Higham 2002, §8.3, eq. (8.11) and the lemma before it),
//!   and `M(T)^{-1} v` for `v >= 0` is computed by substitution with only
//!   additions, multiplications and divisions of non-negative numbers, rounded
//!   upward ([`comparison_solve_up`]), hence an upper bound. So
//!   `|x_i - x^_i - D_i| <= z_i := (M(T)^{-1} |r_k|)_i`, rigorously.
//! - **Exact solutions** by fraction-free substitution in integers
//!   ([`solve_exact`]), where the refinement does not reach a tight enclosure
//!   and the solve fits a budget; and in plain rational arithmetic
//!   ([`solve_exact_rational`]), a slow, simple and trusted reference for both.
//!
//! Conventions (BLAS `xTRSV`): `T` is a square row-major matrix of which only
//! the lower ([`Uplo::Lower`]) or upper ([`Uplo::Upper`]) triangle is read;
//! with [`Diag::Unit`] the diagonal is not read and taken as 1.
//!
//! # Example
//! ```
//! use boundgate_verify::oracle::Matrix;
//! use boundgate_verify::oracle::trsv::{residual, solution_errors, Diag, Triangular, Uplo};
//! // [[3, 0], [1, 3]] x = [1, 1]: x = [1/3, 2/9].
//! let data = [3.0, 99.0, 1.0, 3.0]; // 99 is above the diagonal: never read
//! let t = Triangular::new(Matrix::new(2, 2, &data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
//! let x_hat = [1.0 / 3.0, 2.0 / 9.0];
//! let r = residual(&t, &[1.0, 1.0], &x_hat).unwrap();
//! assert!(!r[0].is_zero()); // 3 * fl(1/3) != 1
//! let e = solution_errors(&t, &[1.0, 1.0], &x_hat).unwrap();
//! // |1/3 - fl(1/3)| = 2^-54 / 3, enclosed from above.
//! let err = e[0].absolute_up().unwrap();
//! assert!(err >= 2f64.powi(-54) / 3.0 && err < 2f64.powi(-54) / 3.0 * (1.0 + 1e-12));
//! ```

use super::accumulator::{ExactSum, abs_fixed};
use super::matrix::Matrix;
use super::measure::{ErrorMeasure, relative_bound_up};
use crate::bounds::directed::{add_down, add_up, div_up, mul_up, sub_down, sub_up};
use crate::error::{Result, VerifyError, require_finite, require_nonempty, require_same_len};
use crate::format::{Format, RoundingMode};
use rug::Rational;
use serde::Serialize;

mod exact;
pub use exact::{solve_cost_bits, solve_exact};

/// Which triangle of the matrix holds `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Uplo {
    /// `t_ij = 0` for `j > i`: solved top to bottom.
    Lower,
    /// `t_ij = 0` for `j < i`: solved bottom to top.
    Upper,
}

/// Whether the diagonal is read or taken as 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Diag {
    /// The diagonal is read from the matrix.
    NonUnit,
    /// The diagonal is 1 and not read (as in BLAS).
    Unit,
}

/// A validated triangular view of a square row-major matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangular<'a> {
    t: Matrix<'a>,
    uplo: Uplo,
    diag: Diag,
}

impl<'a> Triangular<'a> {
    /// A triangular view of a square, non-empty matrix.
    ///
    /// # Errors
    /// [`VerifyError::Empty`] for a 0 x 0 matrix, [`VerifyError::LengthMismatch`]
    /// for a matrix that is not square.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let square = Matrix::new(2, 2, &[1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert!(Triangular::new(square, Uplo::Upper, Diag::NonUnit).is_ok());
    /// let wide = Matrix::new(1, 2, &[1.0, 2.0]).unwrap();
    /// assert!(matches!(Triangular::new(wide, Uplo::Upper, Diag::NonUnit), Err(VerifyError::LengthMismatch { .. })));
    /// let empty = Matrix::new(0, 0, &[]).unwrap();
    /// assert!(matches!(Triangular::new(empty, Uplo::Lower, Diag::Unit), Err(VerifyError::Empty { .. })));
    /// ```
    pub fn new(t: Matrix<'a>, uplo: Uplo, diag: Diag) -> Result<Self> {
        if t.rows() == 0 {
            return Err(VerifyError::Empty {
                what: "triangular matrix".into(),
            });
        }
        require_same_len(
            "rows and columns of the triangular matrix",
            t.rows(),
            t.cols(),
        )?;
        Ok(Triangular { t, uplo, diag })
    }

    /// The order `n`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let t = Triangular::new(Matrix::new(3, 3, &[1.0; 9]).unwrap(), Uplo::Lower, Diag::Unit).unwrap();
    /// assert_eq!(t.n(), 3);
    /// ```
    pub fn n(&self) -> usize {
        self.t.rows()
    }
    /// Which triangle.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let t = Triangular::new(Matrix::new(2, 2, &[1.0; 4]).unwrap(), Uplo::Upper, Diag::Unit).unwrap();
    /// assert_eq!(t.uplo(), Uplo::Upper);
    /// assert_eq!(t.off_diagonal(0), (1, &[1.0][..])); // row 0 reads to the right
    /// ```
    pub fn uplo(&self) -> Uplo {
        self.uplo
    }
    /// Unit or non-unit diagonal.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let t = Triangular::new(Matrix::new(1, 1, &[5.0]).unwrap(), Uplo::Lower, Diag::Unit).unwrap();
    /// assert_eq!(t.diag(), Diag::Unit);
    /// assert_eq!(t.diagonal(0), 1.0); // the stored 5 is not read
    /// ```
    pub fn diag(&self) -> Diag {
        self.diag
    }
    /// The underlying matrix (both triangles).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let data = [3.0, 99.0, 1.0, 3.0];
    /// let t = Triangular::new(Matrix::new(2, 2, &data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// // The unread upper triangle is still there in the matrix.
    /// assert_eq!(t.matrix().get(0, 1), 99.0);
    /// assert_eq!(t.matrix().data(), &data);
    /// ```
    pub fn matrix(&self) -> Matrix<'a> {
        self.t
    }

    /// `t_ii` as the solve uses it (1 for a unit diagonal).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let m = Matrix::new(2, 2, &[0.0, 0.0, 7.0, -4.0]).unwrap();
    /// let t = Triangular::new(m, Uplo::Lower, Diag::NonUnit).unwrap();
    /// assert_eq!((t.diagonal(0), t.diagonal(1)), (0.0, -4.0));
    /// let unit = Triangular::new(m, Uplo::Lower, Diag::Unit).unwrap();
    /// assert_eq!((unit.diagonal(0), unit.diagonal(1)), (1.0, 1.0)); // stored 0 and -4 not read
    /// ```
    pub fn diagonal(&self, i: usize) -> f64 {
        match self.diag {
            Diag::Unit => 1.0,
            Diag::NonUnit => self.t.get(i, i),
        }
    }

    /// The entries of row `i` strictly off the diagonal inside the triangle,
    /// as a contiguous slice of the row and the column of its first entry.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    /// let m = Matrix::new(3, 3, &data).unwrap();
    /// let lower = Triangular::new(m, Uplo::Lower, Diag::NonUnit).unwrap();
    /// assert_eq!(lower.off_diagonal(2), (0, &[7.0, 8.0][..]));
    /// assert_eq!(lower.off_diagonal(0), (0, &[][..])); // the first row has none
    /// let upper = Triangular::new(m, Uplo::Upper, Diag::NonUnit).unwrap();
    /// assert_eq!(upper.off_diagonal(1), (2, &[6.0][..]));
    /// ```
    pub fn off_diagonal(&self, i: usize) -> (usize, &'a [f64]) {
        let row = self.t.row(i);
        match self.uplo {
            Uplo::Lower => (0, &row[..i]),
            Uplo::Upper => (i + 1, &row[i + 1..]),
        }
    }

    /// Every entry of the triangle (off-diagonal ones and the diagonal as read)
    /// must be finite, and the diagonal nonzero.
    ///
    /// # Errors
    /// [`VerifyError::NonFinite`] naming the first non-finite entry (its
    /// row-major index), [`VerifyError::InvalidParameter`] for a zero on the
    /// diagonal (the system is singular).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
    /// let lower = |data| Triangular::new(Matrix::new(2, 2, data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// assert!(lower(&[1.0, f64::NAN, 2.0, 1.0]).require_nonsingular().is_ok()); // NaN not read
    /// assert_eq!(
    ///     lower(&[1.0, 0.0, f64::INFINITY, 1.0]).require_nonsingular(),
    ///     Err(VerifyError::NonFinite { what: "triangular matrix (row-major index)".into(), index: 2, value: f64::INFINITY })
    /// );
    /// let singular = [1.0, 0.0, 2.0, 0.0];
    /// assert!(matches!(lower(&singular).require_nonsingular(), Err(VerifyError::InvalidParameter { .. })));
    /// // With a unit diagonal the stored zero is not read.
    /// let unit = Triangular::new(Matrix::new(2, 2, &singular).unwrap(), Uplo::Lower, Diag::Unit).unwrap();
    /// assert!(unit.require_nonsingular().is_ok());
    /// ```
    pub fn require_nonsingular(&self) -> Result<()> {
        for i in 0..self.n() {
            self.require_finite_row(i)?;
            let d = self.diagonal(i);
            if d == 0.0 {
                return Err(VerifyError::invalid(
                    &format!("T[{i}][{i}]"),
                    d,
                    "zero on the diagonal: the triangular system is singular",
                ));
            }
        }
        Ok(())
    }

    /// Every entry of row `i` of the triangle (the diagonal as read) must be
    /// finite: [`VerifyError::NonFinite`] naming the first that is not.
    fn require_finite_row(&self, i: usize) -> Result<()> {
        let n = self.n();
        let (start, off) = self.off_diagonal(i);
        if let Some(k) = off.iter().position(|v| !v.is_finite()) {
            return Err(VerifyError::NonFinite {
                what: "triangular matrix (row-major index)".into(),
                index: i * n + start + k,
                value: off[k],
            });
        }
        let d = self.diagonal(i);
        if !d.is_finite() {
            return Err(VerifyError::NonFinite {
                what: "triangular matrix (row-major index)".into(),
                index: i * n + i,
                value: d,
            });
        }
        Ok(())
    }

    /// Row indices in solve order (top down for lower, bottom up for upper).
    fn solve_order(&self) -> Box<dyn Iterator<Item = usize>> {
        match self.uplo {
            Uplo::Lower => Box::new(0..self.n()),
            Uplo::Upper => Box::new((0..self.n()).rev()),
        }
    }

    /// `||T||_inf` (the triangle only, unit diagonal as 1), rounded down.
    fn norm_inf_down(&self) -> f64 {
        (0..self.n())
            .map(|i| {
                let (_, off) = self.off_diagonal(i);
                off.iter()
                    .fold(self.diagonal(i).abs(), |s, v| add_down(s, v.abs()))
            })
            .fold(0.0, f64::max)
    }
}

/// Adds `sum_j t_ij v_j` over row `i` of the triangle (diagonal included) to
/// `acc`, exactly (callers subtract by passing `-v`).
fn add_row_products(acc: &mut ExactSum, t: &Triangular<'_>, i: usize, v: &[f64]) {
    let (start, off) = t.off_diagonal(i);
    super::large::add_products::<false>(acc, off, &v[start..start + off.len()]);
    match t.diag {
        Diag::Unit => acc.add(v[i]),
        Diag::NonUnit => acc.add_product(t.t.get(i, i), v[i]),
    }
}

/// Adds `sum_j |t_ij v_j|` over row `i` of the triangle (diagonal included)
/// to `acc`, exactly.
fn add_row_products_abs(acc: &mut ExactSum, t: &Triangular<'_>, i: usize, v: &[f64]) {
    let (start, off) = t.off_diagonal(i);
    super::large::add_products::<true>(acc, off, &v[start..start + off.len()]);
    acc.add_product(t.diagonal(i).abs(), v[i].abs());
}

fn negated(v: &[f64]) -> Vec<f64> {
    v.iter().map(|a| -a).collect()
}

/// The exact residual `r = b - T x^`, one exact sum per row. NaN and
/// infinities follow IEEE 754 ([`ExactSum::non_finite`]).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `b` or `x_hat` does not have `n` entries.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{residual, Diag, Triangular, Uplo};
/// let t = Triangular::new(Matrix::new(2, 2, &[1.0, 1e15, 0.0, 1.0]).unwrap(), Uplo::Upper, Diag::Unit).unwrap();
/// // x1 = 1, x0 = 1 - 1e15: b = [x0 + 1e15 x1, x1] = [1, 1] exactly.
/// let r = residual(&t, &[1.0, 1.0], &[1.0 - 1e15, 1.0]).unwrap();
/// assert_eq!(r[0].to_f64(), 0.0); // 1 - 1e15 is exact in f64
/// assert_eq!(r[1].to_f64(), 0.0);
/// ```
pub fn residual(t: &Triangular<'_>, b: &[f64], x_hat: &[f64]) -> Result<Vec<ExactSum>> {
    let n = t.n();
    require_same_len("b and the order of T", b.len(), n)?;
    require_same_len("x^ and the order of T", x_hat.len(), n)?;
    let neg_x = negated(x_hat);
    Ok((0..n)
        .map(|i| {
            let mut r = ExactSum::new();
            r.add(b[i]);
            add_row_products(&mut r, t, i, &neg_x);
            r
        })
        .collect())
}

/// Backward errors of a computed solution, as rigorous upper bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BackwardError {
    /// Oettli-Prager: `max_i |r_i| / (|T| |x^|)_i`, the smallest `eps` with
    /// `(T + dT) x^ = b`, `|dT| <= eps |T|` (Higham 2002, Theorem 7.3 with
    /// `E = |T|`, `f = 0`). Infinite where a row has `r_i != 0` but
    /// `(|T||x^|)_i = 0` (no such `dT` exists).
    pub componentwise: f64,
    /// Rigal-Gaches: `||r||_inf / (||T||_inf ||x^||_inf)`, the smallest `eps`
    /// with `(T + dT) x^ = b`, `||dT||_inf <= eps ||T||_inf` (Higham 2002,
    /// Theorem 7.1 with `E = T`, `f = 0`). Infinite if `r != 0` and `x^ = 0`
    /// (or `T = 0`, a singular system [`backward_error`] still measures).
    pub normwise_inf: f64,
    /// `||r||_inf`, rounded up.
    pub residual_inf: f64,
}

/// The backward errors of `x_hat` (rounded up from the exact residual).
///
/// # Errors
/// As [`residual`]; [`VerifyError::NonFinite`] for a non-finite entry of `b`,
/// `x_hat` or the triangle.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{backward_error, Diag, Triangular, Uplo};
/// let t = Triangular::new(Matrix::new(1, 1, &[3.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let be = backward_error(&t, &[1.0], &[1.0 / 3.0]).unwrap();
/// // 1 - 3 fl(1/3) = 2^-54 and |T||x^| = 3 fl(1/3) = 1 - 2^-54.
/// assert!(be.componentwise >= 2f64.powi(-54) && be.componentwise < 2f64.powi(-53));
/// ```
pub fn backward_error(t: &Triangular<'_>, b: &[f64], x_hat: &[f64]) -> Result<BackwardError> {
    require_finite("b", b)?;
    require_finite("x^", x_hat)?;
    // A zero diagonal does not stop a residual from being measured, but every
    // entry must be checked. (Until 2026-11-29 the check stopped at the first
    // zero diagonal, so a NaN in a later row went unread and its NaN residual
    // vanished in `f64::max`: backward errors of 0 for a system with a NaN.)
    for i in 0..t.n() {
        t.require_finite_row(i)?;
    }
    let r = residual(t, b, x_hat)?;
    let mut componentwise: f64 = 0.0;
    let mut residual_inf: f64 = 0.0;
    let mut row_abs = ExactSum::new();
    for (i, ri) in r.iter().enumerate() {
        residual_inf = residual_inf.max(abs_up(ri));
        // (|T| |x^|)_i exactly, and the quotient rounded up from the exact
        // values. (Summed in f64 rounded down, a product that underflowed
        // gave a negative "lower bound", -2^-1074, and a negative or zero
        // backward error; review, 2026-11-29.)
        row_abs.clear();
        add_row_products_abs(&mut row_abs, t, i, x_hat);
        let ratio = match (ri.normalized().to_fixed(), row_abs.normalized().to_fixed()) {
            (None, _) => 0.0,
            (Some(_), None) => f64::INFINITY,
            (Some(r_i), Some(d)) => relative_bound_up(abs_fixed(r_i), d),
        };
        componentwise = componentwise.max(ratio);
    }
    let x_norm = x_hat.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let t_norm = t.norm_inf_down();
    // Two upward divisions, not a product rounded down (which underflowed
    // to a negative lower bound, as above).
    let normwise_inf = if residual_inf == 0.0 {
        0.0
    } else if t_norm == 0.0 || x_norm == 0.0 {
        f64::INFINITY
    } else {
        div_up(div_up(residual_inf, t_norm), x_norm)
    };
    Ok(BackwardError {
        componentwise,
        normwise_inf,
        residual_inf,
    })
}

/// `|s|` rounded up to an `f64` (infinite if it overflows).
fn abs_up(s: &ExactSum) -> f64 {
    let up = s.round(Format::FP64, RoundingMode::Up);
    let down = s.round(Format::FP64, RoundingMode::Down);
    up.abs().max(down.abs())
}

/// `|s|` rounded down to an `f64`.
fn abs_down(s: &ExactSum) -> f64 {
    let tz = s.round(Format::FP64, RoundingMode::TowardZero);
    tz.abs()
}

/// `z = M(T)^{-1} v` for `v >= 0`, rounded up: an upper bound of `|T^{-1}| v`
/// (Higham 2002, §8.3: `|T^{-1}| <= M(T)^{-1}` for triangular `T`, where the
/// comparison matrix `M(T)` has `|t_ii|` on the diagonal and `-|t_ij|` off it).
/// The substitution `z_i = (v_i + sum_j |t_ij| z_j) / |t_ii|` uses only
/// non-negative operands, so rounding each operation upward gives an upper
/// bound of the exact `z`. Infinite entries mean the bound overflowed.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for a wrong length, [`VerifyError::InvalidParameter`]
/// for a negative or NaN `v_i`, and the errors of [`Triangular::require_nonsingular`].
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{comparison_solve_up, Diag, Triangular, Uplo};
/// // T = [[1, 0], [-2, 1]]: T^{-1} = [[1, 0], [2, 1]], M(T)^{-1} = the same here.
/// let t = Triangular::new(Matrix::new(2, 2, &[1.0, 0.0, -2.0, 1.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// assert_eq!(comparison_solve_up(&t, &[1.0, 1.0]).unwrap(), vec![1.0, 3.0]);
/// ```
pub fn comparison_solve_up(t: &Triangular<'_>, v: &[f64]) -> Result<Vec<f64>> {
    require_same_len("v and the order of T", v.len(), t.n())?;
    // NaN is refused too: `a >= 0` is false for it.
    if let Some(i) = v.iter().position(|a| a.is_nan() || *a < 0.0) {
        return Err(VerifyError::invalid(
            &format!("v[{i}]"),
            v[i],
            "must be a non-negative number",
        ));
    }
    t.require_nonsingular()?;
    let mut z = vec![0.0; t.n()];
    for i in t.solve_order() {
        let (start, off) = t.off_diagonal(i);
        let mut s = v[i];
        for (a, zj) in off.iter().zip(&z[start..start + off.len()]) {
            // 0 * inf would be NaN: a zero entry contributes nothing.
            if *a != 0.0 && *zj != 0.0 {
                s = add_up(s, mul_up(a.abs(), *zj));
            }
        }
        z[i] = div_up(s, t.diagonal(i).abs());
    }
    Ok(z)
}

/// A rigorous upper bound of `|T^{-1}| v` for any `v >= 0`, from two
/// estimates, of which the smaller is used componentwise:
///
/// - the comparison matrix: `|T^{-1}| v <= M(T)^{-1} v` ([`comparison_solve_up`]),
///   cheap but exponentially pessimistic when `T` has large off-diagonal
///   entries (e.g. `U` factors of random matrices);
/// - an approximate inverse `X` (columns of `T^{-1}` by substitution in `f64`)
///   with a rigorous bound on `R = I - T X`: with `||R||_inf < 1`,
///   `T^{-1} = X (I - R)^{-1} = X sum_j R^j`, so `|T^{-1}| v <= |X| sum_j |R|^j v
///   <= |X| (v + c 1)` with `c = ||R||_inf ||v||_inf / (1 - ||R||_inf)` (Neumann
///   series; the verification idea of Rump, *Verification methods*, Acta Numerica
///   19, 2010, §10). `|R|` is bounded as `|fl(I - T X)| + gamma_{n+1}(|I| + |T||X|)`
///   plus an underflow term (Higham 2002, §3.5, eq. (3.13), and eq. (2.8)).
///
/// Building it costs `O(n^3)` (`X`, `T X` and `|T||X|` for triangular
/// matrices: about `n^3 / 2` multiply-adds), applying it `O(n^2)`.
#[derive(Clone, Debug)]
pub struct InverseBound<'a> {
    t: Triangular<'a>,
    /// The approximate inverse, row-major, zero outside the triangle.
    x: Vec<f64>,
    /// An upper bound of `||R||_inf`, or infinity when unusable.
    r_norm: f64,
}

impl<'a> InverseBound<'a> {
    /// Builds the bound for `t`.
    ///
    /// # Errors
    /// The errors of [`Triangular::require_nonsingular`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{InverseBound, Diag, Triangular, Uplo};
    /// // T = [[1, 0], [-2, 1]]: |T^{-1}| = [[1, 0], [2, 1]].
    /// let t = Triangular::new(Matrix::new(2, 2, &[1.0, 0.0, -2.0, 1.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// let bound = InverseBound::new(t).unwrap();
    /// assert!(bound.residual_norm() < 1e-14); // X is exact; the bound allows for rounding
    /// assert_eq!(bound.apply_up(&[1.0, 1.0]).unwrap(), vec![1.0, 3.0]);
    /// ```
    pub fn new(t: Triangular<'a>) -> Result<InverseBound<'a>> {
        t.require_nonsingular()?;
        let n = t.n();
        // Column j of X: substitution on e_j.
        let mut x = vec![0.0; n * n];
        let mut e = vec![0.0; n];
        for j in 0..n {
            e.iter_mut().for_each(|v| *v = 0.0);
            e[j] = 1.0;
            let col = substitution_f64(&t, &e);
            for (i, v) in col.iter().enumerate() {
                x[i * n + j] = *v;
            }
        }
        let r_norm = if x.iter().all(|v| v.is_finite()) {
            residual_norm_up(&t, &x)
        } else {
            f64::INFINITY
        };
        Ok(InverseBound { t, x, r_norm })
    }

    /// The bound on `||I - T X||_inf` (infinite when unusable).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{InverseBound, Diag, Triangular, Uplo};
    /// let ok = Triangular::new(Matrix::new(2, 2, &[2.0, 0.0, 1.0, 4.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// let r = InverseBound::new(ok).unwrap().residual_norm();
    /// // X = T^{-1} exactly here, but the bound allows for the rounding of T X.
    /// assert!(r > 0.0 && r < 1e-14);
    /// // T^{-1} has an entry -1e400: X overflows and the bound is unusable.
    /// let tiny = Triangular::new(Matrix::new(2, 2, &[1e-200, 0.0, 1.0, 1e-200]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// assert_eq!(InverseBound::new(tiny).unwrap().residual_norm(), f64::INFINITY);
    /// ```
    pub fn residual_norm(&self) -> f64 {
        self.r_norm
    }

    /// An upper bound of `|T^{-1}| v` for `v >= 0` (type docs).
    ///
    /// # Errors
    /// As [`comparison_solve_up`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// use boundgate_verify::oracle::trsv::{comparison_solve_up, InverseBound, Diag, Triangular, Uplo};
    /// // T = [[1, 0, 0], [1, 1, 0], [1, 1, 1]]: T^{-1} = [[1, 0, 0], [-1, 1, 0], [0, -1, 1]],
    /// // so |T^{-1}| e_0 = [1, 1, 0], while M(T)^{-1} e_0 = [1, 1, 2].
    /// let data = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0];
    /// let t = Triangular::new(Matrix::new(3, 3, &data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    /// let v = [1.0, 0.0, 0.0];
    /// assert_eq!(comparison_solve_up(&t, &v).unwrap(), vec![1.0, 1.0, 2.0]);
    /// let z = InverseBound::new(t).unwrap().apply_up(&v).unwrap();
    /// assert!(z[0] >= 1.0 && z[1] >= 1.0 && z[1] < 1.0 + 1e-14); // still upper bounds
    /// assert!(z[2] < 1e-14); // the approximate inverse removes the pessimism
    /// assert!(InverseBound::new(t).unwrap().apply_up(&[-1.0, 0.0, 0.0]).is_err());
    /// ```
    pub fn apply_up(&self, v: &[f64]) -> Result<Vec<f64>> {
        let mut z = comparison_solve_up(&self.t, v)?;
        if self.r_norm < 1.0 {
            let n = self.t.n();
            let v_norm = v.iter().fold(0.0_f64, |m, a| m.max(*a));
            let c = div_up(mul_up(self.r_norm, v_norm), sub_down(1.0, self.r_norm));
            let q: Vec<f64> = v.iter().map(|a| add_up(*a, c)).collect();
            for (i, zi) in z.iter_mut().enumerate() {
                let row = &self.x[i * n..(i + 1) * n];
                let w = row.iter().zip(&q).fold(0.0, |s, (xij, qj)| {
                    if *xij == 0.0 || *qj == 0.0 {
                        s
                    } else {
                        add_up(s, mul_up(xij.abs(), *qj))
                    }
                });
                if w < *zi {
                    *zi = w;
                }
            }
        }
        Ok(z)
    }
}

/// An upper bound of `||I - T X||_inf` for a triangular `X` with `T`'s shape
/// (type docs of [`InverseBound`]); infinite if it is not below 1.
fn residual_norm_up(t: &Triangular<'_>, x: &[f64]) -> f64 {
    let n = t.n();
    let u = 2f64.powi(-53);
    let eta = f64::from_bits(1);
    let gamma = {
        let nu = mul_up((n + 1) as f64, u);
        if nu >= 1.0 {
            return f64::INFINITY;
        }
        div_up(nu, sub_down(1.0, nu))
    };
    let mut norm: f64 = 0.0;
    for i in 0..n {
        let (start, off) = t.off_diagonal(i);
        // T's row i as (column, value), diagonal included.
        let mut row: Vec<(usize, f64)> = off
            .iter()
            .enumerate()
            .map(|(k, v)| (start + k, *v))
            .collect();
        row.push((i, t.diagonal(i)));
        let mut row_sum = 0.0;
        // R = I - T X has T's shape: outside the triangle it is exactly 0.
        let columns = match t.uplo() {
            Uplo::Lower => 0..i + 1,
            Uplo::Upper => i..n,
        };
        for j in columns {
            // Plain f64 for speed; both sums are then bounded rigorously:
            // s (an fma chain) has |s - exact| <= gamma_m sum|t x| + m (1 + gamma) eta,
            // and the fma chain `abs` over non-negative terms is at least
            // (1 - gamma_m) sum|t x| - m eta, so sum|t x| <= (abs + m eta) / (1 - gamma).
            let mut s = 0.0;
            let mut abs = 0.0;
            for &(k, tik) in &row {
                let xkj = x[k * n + j];
                s = tik.mul_add(xkj, s);
                abs = tik.abs().mul_add(xkj.abs(), abs);
            }
            let m_eta = mul_up(row.len() as f64, eta);
            let abs_up = div_up(add_up(abs, m_eta), sub_down(1.0, gamma));
            let delta: f64 = if i == j { 1.0 } else { 0.0 };
            let error = add_up(mul_up(gamma, abs_up), mul_up(m_eta, add_up(1.0, gamma)));
            let computed = sub_up(delta.max(s), delta.min(s));
            row_sum = add_up(row_sum, add_up(computed, error));
        }
        norm = norm.max(row_sum);
    }
    if norm < 1.0 { norm } else { f64::INFINITY }
}

/// Plain `f64` substitution (any rounding errors are fine here: the result is
/// only a correction whose effect is measured exactly afterwards, or an
/// approximate inverse that is verified).
fn substitution_f64(t: &Triangular<'_>, rhs: &[f64]) -> Vec<f64> {
    substitution_with(t, rhs, |v| v)
}

/// [`substitution_f64`] with `finish` applied to each component as it is
/// solved (before later components use it).
fn substitution_with(t: &Triangular<'_>, rhs: &[f64], finish: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut x = vec![0.0; t.n()];
    for i in t.solve_order() {
        let (start, off) = t.off_diagonal(i);
        let s = off
            .iter()
            .zip(&x[start..start + off.len()])
            .fold(rhs[i], |s, (a, xj)| s - a * xj);
        x[i] = finish(s / t.diagonal(i));
    }
    x
}

/// Most refinement steps of [`solution_errors`].
pub const MAX_REFINEMENTS: usize = 6;

/// A rigorous enclosure of the forward error of every component of a computed
/// solution `x_hat` of `T x = b` (module docs): `absolute_up >= |x_i - x^_i|`,
/// `relative_up >= |x_i - x^_i| / |x_i|` where the enclosure keeps `x_i` away
/// from zero (else `None`), and `exact` is the enclosure's midpoint rounded to
/// nearest, which is `x_i` rounded to nearest whenever the enclosure is narrower
/// than the distance to the next rounding boundary (the refinement runs until
/// its radius is below `2^-64 |x_i|`, at most [`MAX_REFINEMENTS`] steps).
/// When it does not get there (an exact component beyond `f64`'s range, or an
/// exact zero, say) and the exact solve costs at most [`EXACT_SOLVE_BUDGET`]
/// ([`solve_cost_bits`]: an order of about 1200 with 53-bit entries), the
/// system is solved exactly instead ([`solve_exact`]) and the measures are
/// exact (rounded up). [`solution_errors_within`] takes another budget.
///
/// # Errors
/// [`VerifyError::NonFinite`] for a non-finite entry of `b`, `x_hat` or the
/// triangle, [`VerifyError::InvalidParameter`] for a zero on the diagonal,
/// [`VerifyError::LengthMismatch`] for wrong lengths.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solution_errors, Diag, Triangular, Uplo};
/// let t = Triangular::new(Matrix::new(2, 2, &[2.0, 1.0, 0.0, 4.0]).unwrap(), Uplo::Upper, Diag::NonUnit).unwrap();
/// // x = [0.375, 0.25] exactly (b = [1, 1]).
/// let e = solution_errors(&t, &[1.0, 1.0], &[0.375, 0.5]).unwrap();
/// assert_eq!(e[0].absolute_up(), Some(0.0));
/// assert_eq!(e[1].absolute_up(), Some(0.25));
/// assert_eq!(e[1].exact(), 0.25);
/// ```
pub fn solution_errors(t: &Triangular<'_>, b: &[f64], x_hat: &[f64]) -> Result<Vec<ErrorMeasure>> {
    solution_errors_within(t, b, x_hat, EXACT_SOLVE_BUDGET)
}

/// [`solution_errors`] with `exact_budget` (in [`solve_cost_bits`]'s bit
/// operations) in place of [`EXACT_SOLVE_BUDGET`]: 0 keeps the enclosure
/// whatever its width (except at order 1, whose exact solve, one division,
/// costs 0 there), `f64::INFINITY` always solves exactly where the
/// enclosure is not tight.
///
/// # Errors
/// As [`solution_errors`].
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solution_errors_within, Diag, Triangular, Uplo};
/// // [[3, 0], [3, 1]] x = [1, 1]: x = [1/3, 0]. No refinement encloses the
/// // exact zero within 2^-64 of itself, so only the exact solve gives the
/// // error of x^_1 = 2^-60 exactly.
/// let t = Triangular::new(Matrix::new(2, 2, &[3.0, 0.0, 3.0, 1.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let x_hat = [1.0 / 3.0, 2f64.powi(-60)];
/// let exact = solution_errors_within(&t, &[1.0, 1.0], &x_hat, f64::INFINITY).unwrap();
/// assert_eq!(exact[1].absolute_up(), Some(2f64.powi(-60)));
/// assert_eq!(exact[1].exact(), 0.0);
/// let enclosed = solution_errors_within(&t, &[1.0, 1.0], &x_hat, 0.0).unwrap();
/// assert!(enclosed[1].absolute_up().unwrap() >= 2f64.powi(-60));
/// ```
pub fn solution_errors_within(
    t: &Triangular<'_>,
    b: &[f64],
    x_hat: &[f64],
    exact_budget: f64,
) -> Result<Vec<ErrorMeasure>> {
    require_nonempty("b", b)?;
    require_finite("b", b)?;
    require_finite("x^", x_hat)?;
    t.require_nonsingular()?;
    let n = t.n();
    let mut r = residual(t, b, x_hat)?;
    let mut corrections: Vec<ExactSum> = vec![ExactSum::new(); n];
    let inverse = InverseBound::new(*t)?;
    let mut z = remainder_bound(&inverse, &r)?;
    for _ in 0..MAX_REFINEMENTS {
        if converged(x_hat, &corrections, &z) {
            break;
        }
        // The residual scaled by 2^-scale, so that it is finite in f64 even
        // where r is not (a grossly wrong x^; review, 2026-11-29: read as
        // inf, such a residual made no correction and left every component
        // depending on it unjudged).
        let (rhs, scale) = scaled_residual(&r);
        // A component whose correction overflows f64 (an exact solution
        // beyond its range) is left uncorrected; the others still refine:
        // any d keeps x = x^ + D + T^{-1} r exact, as r is updated with it.
        // (Giving up on all of them left a loose enclosure, up to 9 times
        // the error, which the fuzzer once took for a violation of TRSV's
        // bound, 2026-11-25.)
        // Zeroed as it is solved, so that the components solved after it
        // do not turn into inf or NaN through it (found by review).
        let fits = |v: f64| times_power_of_two(v, scale).is_finite();
        let d: Vec<f64> = substitution_with(t, &rhs, |v| if fits(v) { v } else { 0.0 })
            .into_iter()
            .map(|v| times_power_of_two(v, scale))
            .collect();
        if d.iter().all(|&v| v == 0.0) {
            break;
        }
        let neg_d = negated(&d);
        for i in 0..n {
            corrections[i].add(d[i]);
            add_row_products(&mut r[i], t, i, &neg_d);
        }
        z = remainder_bound(&inverse, &r)?;
    }
    if !converged(x_hat, &corrections, &z) && solve_cost_bits(t, b)? <= exact_budget {
        // Not tight: the system is solved exactly instead, so that an error
        // above a bound is a proven violation, not the enclosure's slack.
        return solution_errors_exact(t, b, x_hat);
    }
    Ok((0..n)
        .map(|i| enclosure_measure(x_hat[i], &corrections[i], z[i]))
        .collect())
}

/// The errors of `x^` against the exact solution ([`solve_exact`]): exact,
/// with no enclosure's slack, at the exact solve's cost ([`solve_cost_bits`];
/// a caller whose bound an enclosure straddles takes this to decide, as
/// `accessor-trsv` does within [`EXACT_SOLVE_BUDGET`]).
///
/// A non-finite `x^_i` gives [`ErrorMeasure::NonFinite`] for that component.
///
/// # Errors
/// As [`solve_exact`]; [`VerifyError::LengthMismatch`] if `x_hat` does not
/// have `n` entries.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solution_errors_exact, Diag, Triangular, Uplo};
/// let t = Triangular::new(Matrix::new(1, 1, &[3.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let e = solution_errors_exact(&t, &[1.0], &[0.0]).unwrap();
/// // |1/3 - 0| rounded up, with no width to straddle a bound.
/// assert_eq!(e[0].absolute_up(), Some((1.0f64 / 3.0).next_up()));
/// assert!(matches!(e[0], boundgate_verify::oracle::ErrorMeasure::Finite { absolute_down: None, .. }));
/// ```
pub fn solution_errors_exact(
    t: &Triangular<'_>,
    b: &[f64],
    x_hat: &[f64],
) -> Result<Vec<ErrorMeasure>> {
    // (Until 2026-11-29 a wrong length was zipped away: a shorter list.)
    require_same_len("x^ and the order of T", x_hat.len(), t.n())?;
    let exact = solve_exact(t, b)?;
    Ok(x_hat
        .iter()
        .zip(&exact)
        .map(|(&computed, x)| ErrorMeasure::of_rational(computed, x))
        .collect())
}

/// Within this many bit operations ([`solve_cost_bits`]) [`solution_errors`]
/// solves exactly ([`solve_exact`]) when the refinement does not reach a tight
/// enclosure: 2^34, about a second on one core (an order of about 1200 with
/// 53-bit entries, 0.1 s at order 600; fewer where a row spans many binades).
pub const EXACT_SOLVE_BUDGET: f64 = 17_179_869_184.0;

/// An upper bound of `|T^{-1}| |r|`.
fn remainder_bound(inverse: &InverseBound<'_>, r: &[ExactSum]) -> Result<Vec<f64>> {
    let r_up: Vec<f64> = r.iter().map(abs_up).collect();
    inverse.apply_up(&r_up)
}

/// The residual rounded to nearest `f64` and `0`, or, where a component is
/// beyond `f64`'s range, `r 2^-scale` rounded to nearest and `scale > 0`,
/// which brings the largest component to about `2^1000`.
fn scaled_residual(r: &[ExactSum]) -> (Vec<f64>, u32) {
    let rhs: Vec<f64> = r.iter().map(ExactSum::to_f64).collect();
    if rhs.iter().all(|v| v.is_finite()) {
        return (rhs, 0);
    }
    let exact: Vec<Option<rug::Float>> = r.iter().map(ExactSum::to_float).collect();
    let top = exact
        .iter()
        .filter_map(|v| v.as_ref().and_then(rug::Float::get_exp))
        .max()
        .unwrap_or(0);
    let scale = u32::try_from(top - 1000).unwrap_or(0);
    let rhs = exact
        .into_iter()
        .map(|v| v.map_or(f64::NAN, |v| (v >> scale).to_f64()))
        .collect();
    (rhs, scale)
}

/// `v 2^k`, rounded to nearest (exact unless it overflows).
fn times_power_of_two(v: f64, k: u32) -> f64 {
    let mut v = v;
    let mut k = k;
    while k > 0 {
        let step = k.min(1000);
        v *= 2f64.powi(step as i32);
        k -= step;
    }
    v
}

/// Whether every radius is below `2^-64` of the midpoint's magnitude (or zero).
fn converged(x_hat: &[f64], corrections: &[ExactSum], z: &[f64]) -> bool {
    x_hat.iter().zip(corrections).zip(z).all(|((&x, d), &zi)| {
        if zi == 0.0 {
            return true;
        }
        let mut mid = d.clone();
        mid.add(x);
        zi.is_finite() && zi <= abs_down(&mid) * 2f64.powi(-64)
    })
}

/// The error measure of `x^` given `x - x^ = D + delta`, `|delta| <= z`.
fn enclosure_measure(x_hat: f64, correction: &ExactSum, z: f64) -> ErrorMeasure {
    if !z.is_finite() {
        // No bound on the remainder (the exact component may be beyond f64):
        // the exact value is unknown, so the element is not judged (NaN), rather
        // than judged against an infinite error.
        return ErrorMeasure::NonFinite {
            computed: x_hat,
            exact: f64::NAN,
        };
    }
    // x = (x^ + D) + delta: the error |D + delta| lies within z of |D|.
    let mut mid = correction.clone();
    mid.add(x_hat);
    let exact = mid.to_f64();
    if !exact.is_finite() {
        return ErrorMeasure::NonFinite {
            computed: x_hat,
            exact,
        };
    }
    ErrorMeasure::enclosed(
        (abs_down(correction), abs_up(correction)),
        z,
        (exact, abs_down(&mid)),
    )
}

/// The exact solution in rational arithmetic, by substitution: slow (the
/// numbers grow with `n`), simple, trusted; for tests and small systems.
///
/// # Errors
/// As [`solution_errors`].
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solve_exact_rational, Diag, Triangular, Uplo};
/// let t = Triangular::new(Matrix::new(2, 2, &[3.0, 0.0, 1.0, 3.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let x = solve_exact_rational(&t, &[1.0, 1.0]).unwrap();
/// assert_eq!(x[0], rug::Rational::from((1, 3)));
/// assert_eq!(x[1], rug::Rational::from((2, 9)));
/// ```
pub fn solve_exact_rational(t: &Triangular<'_>, b: &[f64]) -> Result<Vec<Rational>> {
    require_same_len("b and the order of T", b.len(), t.n())?;
    require_finite("b", b)?;
    t.require_nonsingular()?;
    let exact = |v: f64| Rational::from_f64(v).expect("finite");
    let mut x = vec![Rational::new(); t.n()];
    for i in t.solve_order() {
        let (start, off) = t.off_diagonal(i);
        let mut s = exact(b[i]);
        for (k, a) in off.iter().enumerate() {
            if *a != 0.0 {
                s -= exact(*a) * &x[start + k];
            }
        }
        x[i] = s / exact(t.diagonal(i));
    }
    Ok(x)
}

/// `|x_i - x^_i|` for every component, exactly, from a rational solution:
/// the trusted reference for [`solution_errors`] in tests.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x` and `x_hat` differ in length,
/// [`VerifyError::NonFinite`] for a non-finite entry of `x_hat`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{exact_errors, solution_errors, solve_exact_rational, Diag, Triangular, Uplo};
/// use rug::Rational;
/// let t = Triangular::new(Matrix::new(2, 2, &[3.0, 0.0, 1.0, 3.0]).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let x = solve_exact_rational(&t, &[1.0, 1.0]).unwrap(); // [1/3, 2/9]
/// let x_hat = [1.0 / 3.0, 2.0 / 9.0];
/// let e = exact_errors(&x, &x_hat).unwrap();
/// // fl(1/3) = (2^54 - 1) / (3 2^54): the error is 1 / (3 2^54), exactly.
/// assert_eq!(e[0], Rational::from((1u64, 3u64 << 54)));
/// // The enclosure of solution_errors bounds it from above.
/// let bounds = solution_errors(&t, &[1.0, 1.0], &x_hat).unwrap();
/// for (b, e) in bounds.iter().zip(&e) {
///     assert!(Rational::from_f64(b.absolute_up().unwrap()).unwrap() >= *e);
/// }
/// assert!(exact_errors(&x, &[0.0]).is_err());
/// assert!(exact_errors(&x, &[0.0, f64::NAN]).is_err());
/// ```
pub fn exact_errors(x: &[Rational], x_hat: &[f64]) -> Result<Vec<Rational>> {
    require_same_len("x and x^", x.len(), x_hat.len())?;
    require_finite("x^", x_hat)?;
    Ok(x.iter()
        .zip(x_hat)
        .map(|(xi, h)| (Rational::from_f64(*h).expect("finite") - xi).abs())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(data: &[f64], n: usize) -> Triangular<'_> {
        Triangular::new(Matrix::new(n, n, data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap()
    }

    #[test]
    fn bad_input_is_typed() {
        assert!(matches!(
            Triangular::new(Matrix::new(0, 0, &[]).unwrap(), Uplo::Lower, Diag::Unit),
            Err(VerifyError::Empty { .. })
        ));
        assert!(matches!(
            Triangular::new(
                Matrix::new(1, 2, &[1.0, 2.0]).unwrap(),
                Uplo::Lower,
                Diag::Unit
            ),
            Err(VerifyError::LengthMismatch { .. })
        ));
        let singular = [1.0, 0.0, 1.0, 0.0];
        let t = lower(&singular, 2);
        assert!(matches!(
            solution_errors(&t, &[1.0, 1.0], &[1.0, 1.0]),
            Err(VerifyError::InvalidParameter { .. })
        ));
        // A unit diagonal does not read the zero.
        let unit = Triangular::new(
            Matrix::new(2, 2, &singular).unwrap(),
            Uplo::Lower,
            Diag::Unit,
        )
        .unwrap();
        assert!(solution_errors(&unit, &[1.0, 1.0], &[1.0, 0.0]).is_ok());
        let nan = [1.0, 0.0, f64::NAN, 1.0];
        assert!(matches!(
            solution_errors(&lower(&nan, 2), &[1.0, 1.0], &[1.0, 1.0]),
            Err(VerifyError::NonFinite { index: 2, .. })
        ));
        // NaN above the diagonal is never read.
        let above = [1.0, f64::NAN, 0.0, 1.0];
        assert!(solution_errors(&lower(&above, 2), &[1.0, 1.0], &[1.0, 1.0]).is_ok());
        assert!(matches!(
            solution_errors(&lower(&[1.0], 1), &[1.0], &[f64::INFINITY]),
            Err(VerifyError::NonFinite { .. })
        ));
        assert!(matches!(
            residual(&lower(&[1.0], 1), &[1.0, 2.0], &[1.0]),
            Err(VerifyError::LengthMismatch { .. })
        ));
        assert!(comparison_solve_up(&lower(&[1.0], 1), &[-1.0]).is_err());
    }

    #[test]
    fn enclosure_is_exact_when_the_error_is_representable() {
        let data = [4.0, 0.0, 0.0, 1.0, 2.0, 0.0, -1.0, 0.5, 8.0];
        let t = lower(&data, 3);
        let x = [1.0, -2.0, 0.25];
        let b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| data[i * 3 + j] * x[j]).sum())
            .collect();
        let x_hat = [1.5, -2.0, 0.0];
        let e = solution_errors(&t, &b, &x_hat).unwrap();
        for i in 0..3 {
            assert_eq!(e[i].absolute_up(), Some((x[i] - x_hat[i]).abs()));
            assert_eq!(e[i].exact(), x[i]);
        }
    }

    #[test]
    fn an_enclosure_gives_both_ends_of_the_error() {
        // x - x^ = D + delta with D = 2^-30 and |delta| <= 2^-40.
        let mut d = ExactSum::new();
        d.add(2f64.powi(-30));
        let ErrorMeasure::Finite {
            absolute_up,
            absolute_down: Some(down),
            ..
        } = enclosure_measure(1.0, &d, 2f64.powi(-40))
        else {
            panic!("an enclosure of positive radius has a lower end");
        };
        assert_eq!(absolute_up, 2f64.powi(-30) + 2f64.powi(-40));
        assert_eq!(down, 2f64.powi(-30) - 2f64.powi(-40));
        // The enclosure contains the exact value: no positive lower end.
        let ErrorMeasure::Finite { absolute_down, .. } = enclosure_measure(1.0, &d, 2f64.powi(-29))
        else {
            panic!("finite");
        };
        assert_eq!(absolute_down, Some(0.0));
        // Radius 0: the exact value is known, and `absolute_up` decides alone.
        let ErrorMeasure::Finite { absolute_down, .. } = enclosure_measure(1.0, &d, 0.0) else {
            panic!("finite");
        };
        assert_eq!(absolute_down, None);
    }
}
