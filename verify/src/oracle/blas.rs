//! Exact oracles for matrix kernels: gemv, gemm and spmv (CSR and ELL), each
//! in the BLAS form `alpha op(A) x + beta y0`, built on the fast exact dot.
//!
//! Every output element is exact before its one final rounding. The sum
//! `S = sum_k a_ik x_k` is accumulated exactly; `alpha S` is not a sum of
//! two-factor products, so it is formed by multiplying the accumulator itself
//! by `alpha`'s integer significand (every 32-bit chunk times 53 bits, placed at
//! the shifted position), which is exact because the accumulator's range
//! extends down to `2^-3264` (see [`ExactSum`]); `beta y0_i` is one
//! more exact product.
//!
//! BLAS conventions (reference BLAS `dgemv`, `dgemm`): when `alpha = 0`,
//! `A` and `x` are not read (NaN there does not propagate); when `beta = 0`,
//! `y0` is not read and may be omitted. `alpha` and `beta` must be finite.
//! An exactly zero output takes its sign from the terms `alpha a_ik x_k` and
//! `beta y0_i` (those read) by the rule of [`ExactSum::round`]: -0 only if every
//! term is -0, else +0 (-0 toward -infinity). This is not always the sign a
//! BLAS loop gives: reference `dgemv` with `beta = 0` starts from `y = +0`, so
//! `alpha = -1`, `A = [1]`, `x = [+0]` gives +0 there and -0 here (noted in
//! review, 2026-11-29; error measures do not depend on it).
//!
//! Results come three ways, all through [`ExactOp`]: every accumulator
//! ([`ExactOp::exact`], about 1.7 KB per output element, for small outputs),
//! the correctly rounded outputs ([`ExactOp::rounded`]) or the error of a
//! computed output ([`ExactOp::errors`]); the last two keep one accumulator
//! alive at a time, so their memory is that of the output (plus, for gemm, a
//! copy of one column of `op(B)` and, if `A` is transposed, a transposed copy of `A`).

use super::accumulator::ExactSum;
use super::large::add_products;
use super::matrix::{Csr, Ell, Matrix};
use super::measure::ErrorMeasure;
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, RoundingMode};
use std::borrow::Cow;

/// Whether an operand is used as stored or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    /// `op(A) = A`.
    No,
    /// `op(A) = A^T`.
    Yes,
}

/// A computation whose every output element is an exact sum.
pub trait ExactOp {
    /// Number of output elements.
    fn outputs(&self) -> usize;

    /// Calls `visit(index, exact)` once for every output element, in an
    /// order of the implementation's choosing.
    fn for_each_output(&self, visit: &mut dyn FnMut(usize, &ExactSum));

    /// Every output's accumulator (about 1.7 KB each: for small outputs).
    fn exact(&self) -> Vec<ExactSum> {
        let mut out = vec![ExactSum::new(); self.outputs()];
        self.for_each_output(&mut |i, s| out[i] = s.clone());
        out
    }

    /// Every output correctly rounded into `format` in `mode`.
    fn rounded(&self, format: Format, mode: RoundingMode) -> Vec<f64> {
        let mut out = vec![0.0; self.outputs()];
        self.for_each_output(&mut |i, s| out[i] = s.round(format, mode));
        out
    }

    /// The error of every element of a computed output, in the output's order.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] if `computed` has the wrong length.
    fn errors(&self, computed: &[f64]) -> Result<Vec<ErrorMeasure>> {
        require_same_len(
            "computed output and expected output",
            computed.len(),
            self.outputs(),
        )?;
        let placeholder = ErrorMeasure::NonFinite {
            computed: f64::NAN,
            exact: f64::NAN,
        };
        let mut out = vec![placeholder; self.outputs()];
        self.for_each_output(&mut |i, s| out[i] = s.error_of(computed[i]));
        Ok(out)
    }
}

/// `alpha S + beta y0` around an exact sum `S`.
#[derive(Clone, Copy, Debug)]
struct Scaling<'a> {
    alpha: f64,
    beta: f64,
    y0: Option<&'a [f64]>,
}

impl<'a> Scaling<'a> {
    fn new(alpha: f64, beta: f64, y0: Option<&'a [f64]>, outputs: usize) -> Result<Self> {
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !v.is_finite() {
                return Err(VerifyError::NonFinite {
                    what: name.to_string(),
                    index: 0,
                    value: v,
                });
            }
        }
        match y0 {
            Some(y0) => require_same_len("y0 and the output", y0.len(), outputs)?,
            None if beta != 0.0 => {
                return Err(VerifyError::invalid(
                    "beta",
                    beta,
                    "is nonzero, so the initial output y0 is needed",
                ));
            }
            None => {}
        }
        Ok(Scaling { alpha, beta, y0 })
    }

    fn reads_products(&self) -> bool {
        self.alpha != 0.0
    }

    /// Visits output `i` = `alpha products + beta y0[i]`, using `scratch`.
    fn finish(
        &self,
        i: usize,
        products: &ExactSum,
        scratch: &mut ExactSum,
        visit: &mut dyn FnMut(usize, &ExactSum),
    ) {
        let y0_term = match self.y0 {
            Some(y0) if self.beta != 0.0 => Some(y0[i]),
            _ => None,
        };
        if self.alpha == 1.0 && y0_term.is_none() {
            visit(i, products);
            return;
        }
        scratch.clear();
        if self.alpha != 0.0 {
            scratch
                .add_multiple(products, self.alpha)
                .expect("a sum of two-factor products times a finite scalar is in range");
        }
        if let Some(y) = y0_term {
            scratch.add_product(self.beta, y);
        }
        visit(i, scratch);
    }
}

/// `y = alpha op(A) x + beta y0`, exactly.
///
/// # Example
/// ```
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::{ExactOp, Gemv, Matrix, Transpose};
/// let a = Matrix::new(2, 2, &[1.0, 2.0, 3.0, 4.0]).unwrap();
/// let y0 = [1.0, -1.0];
/// let op = Gemv::new(0.1, a, Transpose::Yes, &[1.0, 1.0], 2.0, Some(&y0)).unwrap();
/// // 0.1 * (1 + 3) + 2 = 2.4 and 0.1 * (2 + 4) - 2 = -1.4, each rounded once
/// // (0.1 is the double nearest 1/10, so these are not the decimals).
/// assert_eq!(op.rounded(Format::FP64, RoundingMode::NearestEven), vec![2.4, -1.4]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Gemv<'a> {
    a: Matrix<'a>,
    trans: Transpose,
    x: &'a [f64],
    scaling: Scaling<'a>,
}

impl<'a> Gemv<'a> {
    /// Validates shapes: `x` has `op(A)`'s column count, `y0` (needed iff
    /// `beta != 0`) its row count.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] for a shape mismatch,
    /// [`VerifyError::NonFinite`] for a non-finite `alpha` or `beta`,
    /// [`VerifyError::InvalidParameter`] for `beta != 0` without `y0`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::{ExactOp, Gemv, Matrix, Transpose};
    /// let a = Matrix::new(2, 3, &[1.0; 6]).unwrap();
    /// // op(A) = A^T is 3 x 2: x has 2 entries and the output 3.
    /// let op = Gemv::new(1.0, a, Transpose::Yes, &[1.0, 2.0], 0.0, None).unwrap();
    /// assert_eq!(op.outputs(), 3);
    /// assert!(matches!(
    ///     Gemv::new(1.0, a, Transpose::No, &[1.0, 2.0], 0.0, None),
    ///     Err(VerifyError::LengthMismatch { .. })
    /// ));
    /// assert!(matches!(
    ///     Gemv::new(f64::INFINITY, a, Transpose::Yes, &[1.0, 2.0], 0.0, None),
    ///     Err(VerifyError::NonFinite { .. })
    /// ));
    /// assert!(matches!(
    ///     Gemv::new(1.0, a, Transpose::Yes, &[1.0, 2.0], 0.5, None),
    ///     Err(VerifyError::InvalidParameter { .. })
    /// ));
    /// // alpha = 0: A and x are not read, so a NaN in x does not propagate.
    /// let y0 = [1.0, 2.0, 3.0];
    /// let op = Gemv::new(0.0, a, Transpose::Yes, &[f64::NAN, 1.0], 2.0, Some(&y0)).unwrap();
    /// let y: Vec<f64> = op.exact().iter().map(|s| s.to_f64()).collect();
    /// assert_eq!(y, vec![2.0, 4.0, 6.0]);
    /// ```
    pub fn new(
        alpha: f64,
        a: Matrix<'a>,
        trans: Transpose,
        x: &'a [f64],
        beta: f64,
        y0: Option<&'a [f64]>,
    ) -> Result<Self> {
        let (rows, cols) = match trans {
            Transpose::No => (a.rows(), a.cols()),
            Transpose::Yes => (a.cols(), a.rows()),
        };
        require_same_len("x and the columns of op(A)", x.len(), cols)?;
        let scaling = Scaling::new(alpha, beta, y0, rows)?;
        Ok(Gemv {
            a,
            trans,
            x,
            scaling,
        })
    }
}

impl ExactOp for Gemv<'_> {
    fn outputs(&self) -> usize {
        match self.trans {
            Transpose::No => self.a.rows(),
            Transpose::Yes => self.a.cols(),
        }
    }

    fn for_each_output(&self, visit: &mut dyn FnMut(usize, &ExactSum)) {
        let mut products = ExactSum::new();
        let mut scratch = ExactSum::new();
        let mut column = Vec::new();
        for i in 0..self.outputs() {
            products.clear();
            if self.scaling.reads_products() {
                let row = match self.trans {
                    Transpose::No => self.a.row(i),
                    Transpose::Yes => {
                        self.a.column_into(i, &mut column);
                        &column[..]
                    }
                };
                add_products::<false>(&mut products, row, self.x);
            }
            self.scaling.finish(i, &products, &mut scratch, visit);
        }
    }
}

/// `A x`, exactly, one accumulator per row.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x.len() != a.cols()`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{gemv, Matrix};
/// let a = Matrix::new(1, 3, &[1e300, 1.0, -1e300]).unwrap();
/// assert_eq!(gemv(&a, &[1e10, 0.5, 1e10]).unwrap()[0].to_f64(), 0.5);
/// ```
pub fn gemv(a: &Matrix<'_>, x: &[f64]) -> Result<Vec<ExactSum>> {
    Ok(Gemv::new(1.0, *a, Transpose::No, x, 0.0, None)?.exact())
}

/// `A^T x`, exactly, one accumulator per column of `A`.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x.len() != a.rows()`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{gemv_t, Matrix};
/// // A = [[1e300, 1], [-1e300, 1]]: column 0 cancels exactly, column 1 is 2 x.
/// let a = Matrix::new(2, 2, &[1e300, 1.0, -1e300, 1.0]).unwrap();
/// let y = gemv_t(&a, &[1e10, 1e10]).unwrap();
/// assert!(y[0].is_zero()); // 1e310 - 1e310, beyond f64 yet exact
/// assert_eq!(y[1].to_f64(), 2e10);
/// assert!(gemv_t(&a, &[1.0, 1.0, 1.0]).is_err());
/// ```
pub fn gemv_t(a: &Matrix<'_>, x: &[f64]) -> Result<Vec<ExactSum>> {
    Ok(Gemv::new(1.0, *a, Transpose::Yes, x, 0.0, None)?.exact())
}

/// The error of every element of a computed `A x`.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for a shape mismatch.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{gemv_errors, Matrix};
/// let a = Matrix::new(2, 1, &[0.1, 0.2]).unwrap();
/// let errors = gemv_errors(&a, &[3.0], &[0.1 * 3.0, 0.2 * 3.0]).unwrap();
/// assert!(errors.iter().all(|e| e.relative_up().unwrap() <= 2f64.powi(-53)));
/// ```
pub fn gemv_errors(a: &Matrix<'_>, x: &[f64], computed: &[f64]) -> Result<Vec<ErrorMeasure>> {
    Gemv::new(1.0, *a, Transpose::No, x, 0.0, None)?.errors(computed)
}

/// `C = alpha op(A) op(B) + beta C0`, exactly; output `(i, j)` is element
/// `i * n + j` (row-major, `n` = columns of `op(B)`).
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{ExactOp, Gemm, Matrix, Transpose};
/// let a = Matrix::new(2, 2, &[1.0, 2.0, 3.0, 4.0]).unwrap();
/// let b = Matrix::new(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
/// let c0 = [1.0; 4];
/// let op = Gemm::new(2.0, a, Transpose::Yes, b, Transpose::No, -1.0, Some(&c0)).unwrap();
/// let c: Vec<f64> = op.exact().iter().map(|s| s.to_f64()).collect();
/// assert_eq!(c, vec![1.0, 5.0, 3.0, 7.0]); // 2 A^T - 1
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Gemm<'a> {
    a: Matrix<'a>,
    trans_a: Transpose,
    b: Matrix<'a>,
    trans_b: Transpose,
    scaling: Scaling<'a>,
}

impl<'a> Gemm<'a> {
    /// Validates shapes: `op(A)` is `m x k`, `op(B)` is `k x n`, `c0` (needed
    /// iff `beta != 0`) has `m n` elements, row-major.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] for a shape mismatch,
    /// [`VerifyError::NonFinite`] for a non-finite `alpha` or `beta`,
    /// [`VerifyError::InvalidParameter`] for `beta != 0` without `c0`, or if
    /// `m n` overflows `usize` (possible with `k = 0`: the operands are empty).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::{ExactOp, Gemm, Matrix, Transpose};
    /// let a = Matrix::new(2, 3, &[1.0; 6]).unwrap();
    /// let b = Matrix::new(2, 4, &[1.0; 8]).unwrap();
    /// // op(A) = A^T (3 x 2) times op(B) = B (2 x 4): a 3 x 4 output.
    /// let op = Gemm::new(1.0, a, Transpose::Yes, b, Transpose::No, 0.0, None).unwrap();
    /// assert_eq!(op.outputs(), 12);
    /// assert!(op.exact().iter().all(|s| s.to_f64() == 2.0));
    /// // A (2 x 3) times B (2 x 4): inner dimensions 3 and 2 differ.
    /// assert!(matches!(
    ///     Gemm::new(1.0, a, Transpose::No, b, Transpose::No, 0.0, None),
    ///     Err(VerifyError::LengthMismatch { .. })
    /// ));
    /// // c0 must have m n = 12 elements.
    /// assert!(matches!(
    ///     Gemm::new(1.0, a, Transpose::Yes, b, Transpose::No, 1.0, Some(&[0.0; 8])),
    ///     Err(VerifyError::LengthMismatch { .. })
    /// ));
    /// assert!(matches!(
    ///     Gemm::new(1.0, a, Transpose::Yes, b, Transpose::No, f64::NAN, None),
    ///     Err(VerifyError::NonFinite { .. })
    /// ));
    /// ```
    #[allow(clippy::too_many_arguments)] // the BLAS signature
    pub fn new(
        alpha: f64,
        a: Matrix<'a>,
        trans_a: Transpose,
        b: Matrix<'a>,
        trans_b: Transpose,
        beta: f64,
        c0: Option<&'a [f64]>,
    ) -> Result<Self> {
        let op = |m: &Matrix<'_>, t| match t {
            Transpose::No => (m.rows(), m.cols()),
            Transpose::Yes => (m.cols(), m.rows()),
        };
        let (m, k) = op(&a, trans_a);
        let (k_b, n) = op(&b, trans_b);
        require_same_len("columns of op(A) and rows of op(B)", k, k_b)?;
        let outputs = m.checked_mul(n).ok_or_else(|| {
            VerifyError::invalid("m * n", format!("{m} * {n}"), "overflows usize")
        })?;
        let scaling = Scaling::new(alpha, beta, c0, outputs)?;
        Ok(Gemm {
            a,
            trans_a,
            b,
            trans_b,
            scaling,
        })
    }

    fn shape(&self) -> (usize, usize) {
        let m = match self.trans_a {
            Transpose::No => self.a.rows(),
            Transpose::Yes => self.a.cols(),
        };
        let n = match self.trans_b {
            Transpose::No => self.b.cols(),
            Transpose::Yes => self.b.rows(),
        };
        (m, n)
    }
}

impl ExactOp for Gemm<'_> {
    fn outputs(&self) -> usize {
        let (m, n) = self.shape();
        m * n
    }

    fn for_each_output(&self, visit: &mut dyn FnMut(usize, &ExactSum)) {
        let (m, n) = self.shape();
        // Rows of op(A) must be contiguous: transpose A once if needed.
        let k = match self.trans_a {
            Transpose::No => self.a.cols(),
            Transpose::Yes => self.a.rows(),
        };
        let op_a: Cow<'_, [f64]> = match self.trans_a {
            Transpose::No => Cow::Borrowed(self.a.data()),
            Transpose::Yes => {
                let mut t = Vec::with_capacity(m * k);
                let mut column = Vec::new();
                for i in 0..m {
                    self.a.column_into(i, &mut column);
                    t.extend_from_slice(&column);
                }
                Cow::Owned(t)
            }
        };
        let mut products = ExactSum::new();
        let mut scratch = ExactSum::new();
        let mut column = Vec::new();
        for j in 0..n {
            let op_b_column: &[f64] = match self.trans_b {
                Transpose::No => {
                    self.b.column_into(j, &mut column);
                    &column
                }
                Transpose::Yes => self.b.row(j),
            };
            for i in 0..m {
                products.clear();
                if self.scaling.reads_products() {
                    add_products::<false>(&mut products, &op_a[i * k..(i + 1) * k], op_b_column);
                }
                self.scaling
                    .finish(i * n + j, &products, &mut scratch, visit);
            }
        }
    }
}

/// `A B`, exactly, one accumulator per element (row-major).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `a.cols() != b.rows()`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{gemm, Matrix};
/// let a = Matrix::new(1, 2, &[1.0, 2.0]).unwrap();
/// let b = Matrix::new(2, 2, &[3.0, 4.0, 5.0, 6.0]).unwrap();
/// let c: Vec<f64> = gemm(&a, &b).unwrap().iter().map(|s| s.to_f64()).collect();
/// assert_eq!(c, vec![13.0, 16.0]);
/// ```
pub fn gemm(a: &Matrix<'_>, b: &Matrix<'_>) -> Result<Vec<ExactSum>> {
    Ok(Gemm::new(1.0, *a, Transpose::No, *b, Transpose::No, 0.0, None)?.exact())
}

/// The error of every element of a computed `A B` (row-major), keeping one
/// accumulator alive at a time.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for a shape mismatch.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{gemm_errors, Matrix};
/// let a = Matrix::new(1, 2, &[1.0, 1e-20]).unwrap();
/// let b = Matrix::new(2, 1, &[1.0, 1.0]).unwrap();
/// // The exact product is 1 + 1e-20 (as doubles): 1.0 is its nearest f64, off by 1e-20.
/// let e = gemm_errors(&a, &b, &[1.0]).unwrap();
/// assert_eq!(e[0].exact(), 1.0);
/// assert_eq!(e[0].absolute_up(), Some(1e-20)); // the error is exactly the double 1e-20
/// assert!(gemm_errors(&a, &b, &[1.0, 2.0]).is_err()); // one output, two given
/// ```
pub fn gemm_errors(a: &Matrix<'_>, b: &Matrix<'_>, computed: &[f64]) -> Result<Vec<ErrorMeasure>> {
    Gemm::new(1.0, *a, Transpose::No, *b, Transpose::No, 0.0, None)?.errors(computed)
}

/// A sparse matrix in one of the supported formats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sparse<'a> {
    /// Compressed sparse rows.
    Csr(Csr<'a>),
    /// ELLPACK.
    Ell(Ell<'a>),
}

impl Sparse<'_> {
    fn rows(&self) -> usize {
        match self {
            Sparse::Csr(a) => a.rows(),
            Sparse::Ell(a) => a.rows(),
        }
    }
    fn cols(&self) -> usize {
        match self {
            Sparse::Csr(a) => a.cols(),
            Sparse::Ell(a) => a.cols(),
        }
    }
}

/// `y = alpha A x + beta y0` for a sparse `A`, exactly.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{Csr, ExactOp, Sparse, Spmv};
/// let a = Csr::new(2, 2, &[0, 1, 2], &[1, 0], &[2.0, 3.0]).unwrap();
/// let op = Spmv::new(1.0, Sparse::Csr(a), &[10.0, 100.0], 0.0, None).unwrap();
/// let errors = op.errors(&[200.0, 31.0]).unwrap();
/// assert_eq!(errors[0].absolute_up(), Some(0.0));
/// assert_eq!(errors[1].absolute_up(), Some(1.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Spmv<'a> {
    a: Sparse<'a>,
    x: &'a [f64],
    scaling: Scaling<'a>,
}

impl<'a> Spmv<'a> {
    /// Validates shapes: `x` has `A`'s column count, `y0` (needed iff
    /// `beta != 0`) its row count.
    ///
    /// # Errors
    /// As [`Gemv::new`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::{Csr, ExactOp, Sparse, Spmv};
    /// // [[2, 0, 0], [0, 0, 3]], 2 x 3.
    /// let a = Sparse::Csr(Csr::new(2, 3, &[0, 1, 2], &[0, 2], &[2.0, 3.0]).unwrap());
    /// let y0 = [0.5, -1.0];
    /// let op = Spmv::new(-1.0, a, &[1.0, f64::NAN, 4.0], 2.0, Some(&y0)).unwrap();
    /// // Column 1 is empty, so x[1] = NaN is never multiplied.
    /// assert_eq!(op.exact().iter().map(|s| s.to_f64()).collect::<Vec<_>>(), vec![-1.0, -14.0]);
    /// assert!(matches!(Spmv::new(1.0, a, &[1.0, 2.0], 0.0, None), Err(VerifyError::LengthMismatch { .. })));
    /// assert!(matches!(Spmv::new(1.0, a, &[1.0; 3], 1.0, None), Err(VerifyError::InvalidParameter { .. })));
    /// ```
    pub fn new(
        alpha: f64,
        a: Sparse<'a>,
        x: &'a [f64],
        beta: f64,
        y0: Option<&'a [f64]>,
    ) -> Result<Self> {
        require_same_len("x and the columns of A", x.len(), a.cols())?;
        let scaling = Scaling::new(alpha, beta, y0, a.rows())?;
        Ok(Spmv { a, x, scaling })
    }
}

impl ExactOp for Spmv<'_> {
    fn outputs(&self) -> usize {
        self.a.rows()
    }

    fn for_each_output(&self, visit: &mut dyn FnMut(usize, &ExactSum)) {
        let mut products = ExactSum::new();
        let mut scratch = ExactSum::new();
        let mut values = Vec::new();
        let mut gathered = Vec::new();
        for i in 0..self.outputs() {
            products.clear();
            if self.scaling.reads_products() {
                values.clear();
                gathered.clear();
                match &self.a {
                    Sparse::Csr(a) => {
                        let (cols, vals) = a.row(i);
                        values.extend_from_slice(vals);
                        gathered.extend(cols.iter().map(|&c| self.x[c]));
                    }
                    Sparse::Ell(a) => {
                        for (col, value) in (0..a.width()).filter_map(|k| a.slot(i, k)) {
                            values.push(value);
                            gathered.push(self.x[col]);
                        }
                    }
                }
                add_products::<false>(&mut products, &values, &gathered);
            }
            self.scaling.finish(i, &products, &mut scratch, visit);
        }
    }
}

/// `A x` for a CSR matrix, exactly, one accumulator per row.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x.len() != a.cols()`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{spmv_csr, Csr};
/// // One row with column 0 stored twice (summed) and column 1 cancelling it.
/// let a = Csr::new(1, 2, &[0, 3], &[0, 1, 0], &[1e300, -1e300, 1.0]).unwrap();
/// let y = spmv_csr(&a, &[1e10, 1e10]).unwrap();
/// assert_eq!(y[0].to_f64(), 1e10); // 1e310 - 1e310 + 1e10, exactly
/// assert!(spmv_csr(&a, &[1.0]).is_err());
/// ```
pub fn spmv_csr(a: &Csr<'_>, x: &[f64]) -> Result<Vec<ExactSum>> {
    Ok(Spmv::new(1.0, Sparse::Csr(*a), x, 0.0, None)?.exact())
}

/// `A x` for an ELL matrix, exactly, one accumulator per row.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x.len() != a.cols()`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{spmv_ell, Ell, EllLayout, ELL_PADDING};
/// // [[0.1, 0.2], [0, 3]], width 2, row-major; the padding value NaN is never read.
/// let p = ELL_PADDING;
/// let (col_idx, values) = ([0, 1, 1, p], [0.1, 0.2, 3.0, f64::NAN]);
/// let a = Ell::new(2, 2, 2, EllLayout::RowMajor, &col_idx, &values).unwrap();
/// let y = spmv_ell(&a, &[1.0, 1.0]).unwrap();
/// assert!(y.iter().all(|s| s.is_finite()));
/// // 0.1 + 0.2 rounded once, as an exact dot product would be.
/// assert_eq!(y[0].to_f64(), 0.30000000000000004);
/// assert_eq!(y[1].to_f64(), 3.0);
/// assert!(spmv_ell(&a, &[1.0; 3]).is_err());
/// ```
pub fn spmv_ell(a: &Ell<'_>, x: &[f64]) -> Result<Vec<ExactSum>> {
    Ok(Spmv::new(1.0, Sparse::Ell(*a), x, 0.0, None)?.exact())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beta_without_y0_is_refused() {
        let a = Matrix::new(1, 1, &[1.0]).unwrap();
        assert!(Gemv::new(1.0, a, Transpose::No, &[1.0], 1.0, None).is_err());
        assert!(Gemv::new(f64::NAN, a, Transpose::No, &[1.0], 0.0, None).is_err());
        assert!(Gemv::new(1.0, a, Transpose::No, &[1.0, 2.0], 0.0, None).is_err());
    }

    #[test]
    fn alpha_zero_does_not_read_a() {
        let a = Matrix::new(1, 1, &[f64::NAN]).unwrap();
        let op = Gemv::new(0.0, a, Transpose::No, &[1.0], 2.0, Some(&[3.0])).unwrap();
        assert_eq!(
            op.rounded(Format::FP64, RoundingMode::NearestEven),
            vec![6.0]
        );
    }

    #[test]
    fn ell_padding_is_not_read() {
        let p = super::super::matrix::ELL_PADDING;
        let col_idx = [0, 1, p, 0];
        let values = [1.0, 2.0, f64::NAN, 4.0];
        let a = Ell::new(
            2,
            2,
            2,
            super::super::matrix::EllLayout::ColumnMajor,
            &col_idx,
            &values,
        )
        .unwrap();
        // Row 0: slots (0, 1.0), padding; row 1: slots (1, 2.0), (0, 4.0).
        let y: Vec<f64> = spmv_ell(&a, &[10.0, 100.0])
            .unwrap()
            .iter()
            .map(|s| s.to_f64())
            .collect();
        assert_eq!(y, vec![10.0, 240.0]);
    }
}
