//! Exact integer products with `int32` accumulation, as on the hardware
//! (IMMA without `.satfinite`, `dp4a`): dense GEMM, CSR x dense and
//! dense x CSR (Gu Algorithm 1, lines 2, 12 and 14).
//!
//! Two's-complement `int32` addition is associative modulo `2^32`, so whatever
//! order a GPU sums in, its result equals the exact sum if and only if the
//! exact sum fits in `int32`. The overflow check is therefore on the exact
//! sums: when the a-priori bound `k * max|x| * max|y| <= 2^31 - 1` holds
//! ([`int32_max_k`]: `k <= 133,144` for int8) no sum can overflow and the
//! products accumulate in `i32`; otherwise they accumulate in `i64` and every
//! result is checked, an overflow being [`VerifyError::Overflow`] (the
//! hardware would silently wrap).

use super::csr::CsrI8;
use crate::error::Result;
use crate::kernels::shape_len;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::residual::int32_max_k;
use std::ops::{AddAssign, Mul};

/// An accumulator type.
trait Acc: Copy + Default + AddAssign + Mul<Output = Self> + From<i8> + Into<i64> {}
impl Acc for i32 {}
impl Acc for i64 {}

/// Whether `k` products of magnitudes at most `qa` and `qb` provably fit `i32`.
fn fits_i32(k: usize, qa: u32, qb: u32) -> bool {
    (k as u64) <= int32_max_k(qa, qb)
}

fn max_abs(x: &[i8]) -> u32 {
    x.iter()
        .map(|v| u32::from(v.unsigned_abs()))
        .max()
        .unwrap_or(0)
}

/// Narrows exact `i64` sums to `i32`, refusing any that does not fit.
fn narrow(sums: Vec<i64>, n: usize) -> Result<Vec<i32>> {
    sums.iter()
        .enumerate()
        .map(|(at, &v)| {
            i32::try_from(v).map_err(|_| {
                VerifyError::Overflow {
                    format: format!(
                        "int32 accumulator (element ({}, {}))",
                        at / n.max(1),
                        at % n.max(1)
                    ),
                    value: v as f64,
                    max: f64::from(i32::MAX),
                }
                .into()
            })
        })
        .collect()
}

fn widen<T: Acc>(out: Vec<T>) -> Vec<i64> {
    out.into_iter().map(Into::into).collect()
}

fn dense<T: Acc>(a: &[i8], b: &[i8], m: usize, k: usize, n: usize) -> Vec<T> {
    let mut c = vec![T::default(); m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for (kk, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = T::from(x);
            for (acc, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *acc += x * T::from(y);
            }
        }
    }
    c
}

/// `C = A B` for row-major int8 (or int4 in int8) matrices, exact, `int32` results.
///
/// # Errors
/// [`VerifyError::Overflow`] if an exact element does not fit in `int32`;
/// [`VerifyError::LengthMismatch`] if `a` does not hold `m * k` entries or
/// `b` not `k * n`; [`VerifyError::InvalidParameter`] if a shape product
/// (`m * k`, `k * n` or `m * n`) overflows `usize`.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::intgemm::int_gemm;
/// assert_eq!(int_gemm(&[1, -2], &[3, 4], 1, 2, 1).unwrap(), vec![-5]);
/// // 133,145 products of 127 * 127 exceed 2^31 - 1.
/// let k = 133_145;
/// assert!(int_gemm(&vec![127; k], &vec![127; k], 1, k, 1).is_err());
/// // so is a matrix that does not have its stated shape
/// assert!(int_gemm(&[1, -2], &[3, 4], 1, 3, 1).is_err());
/// ```
pub fn int_gemm(a: &[i8], b: &[i8], m: usize, k: usize, n: usize) -> Result<Vec<i32>> {
    boundgate_verify::error::require_same_len("A and m * k", a.len(), shape_len("A", m, k)?)?;
    boundgate_verify::error::require_same_len("B and k * n", b.len(), shape_len("B", k, n)?)?;
    shape_len("C", m, n)?;
    if fits_i32(k, max_abs(a), max_abs(b)) {
        Ok(dense::<i32>(a, b, m, k, n))
    } else {
        narrow(widen(dense::<i64>(a, b, m, k, n)), n)
    }
}

fn left_sparse<T: Acc>(a: &CsrI8, b: &[i8], n: usize) -> Vec<T> {
    let mut c = vec![T::default(); a.rows * n];
    for i in 0..a.rows {
        let row = &mut c[i * n..(i + 1) * n];
        let (cols, values) = a.row(i);
        for (&kk, &x) in cols.iter().zip(values) {
            let x = T::from(x);
            for (acc, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *acc += x * T::from(y);
            }
        }
    }
    c
}

/// `C = A B` with `A` in CSR (`m x k`) and `B` dense row-major (`k x n`): the
/// SpMM of Algorithm 1, line 12 (`A^r_int RB_int`), exact.
///
/// # Errors
/// [`VerifyError::Overflow`] as [`int_gemm`]; [`VerifyError::LengthMismatch`]
/// if `b` does not hold `a.cols * n` entries; [`VerifyError::InvalidParameter`]
/// if `a.cols * n` or `a.rows * n` overflows `usize`; and the errors of
/// [`CsrI8::validate`] for a malformed (hand-built) `a`.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::residual::csr::CsrI8;
/// use boundgate::kernels::residual::intgemm::{int_gemm, spmm_csr_dense};
/// use boundgate_verify::VerifyError;
/// // the diagonal of [[1, 2], [3, 4]] times [[5, 6], [7, 8]]
/// let a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[true, false, false, true]).unwrap();
/// let b = [5, 6, 7, 8];
/// let c = spmm_csr_dense(&a, &b, 2).unwrap();
/// assert_eq!(c, vec![5, 6, 28, 32]);
/// assert_eq!(c, int_gemm(&[1, 0, 0, 4], &b, 2, 2, 2).unwrap());
/// // 133,145 products of 127 * 127 in one row exceed 2^31 - 1.
/// let k = 133_145;
/// let a = CsrI8::from_mask(1, k, &vec![127; k], &vec![true; k]).unwrap();
/// assert!(matches!(
///     spmm_csr_dense(&a, &vec![127; k], 1),
///     Err(Error::Verify(VerifyError::Overflow { .. }))
/// ));
/// ```
pub fn spmm_csr_dense(a: &CsrI8, b: &[i8], n: usize) -> Result<Vec<i32>> {
    a.validate()?;
    boundgate_verify::error::require_same_len("B and k * n", b.len(), shape_len("B", a.cols, n)?)?;
    shape_len("C", a.rows, n)?;
    let most = a.max_row_nnz();
    if fits_i32(most, max_abs(&a.values), max_abs(b)) {
        Ok(left_sparse::<i32>(a, b, n))
    } else {
        narrow(widen(left_sparse::<i64>(a, b, n)), n)
    }
}

fn right_sparse<T: Acc>(a: &[i8], m: usize, b: &CsrI8) -> Vec<T> {
    let (k, n) = (b.rows, b.cols);
    let mut c = vec![T::default(); m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for (kk, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = T::from(x);
            let (cols, values) = b.row(kk);
            for (&j, &y) in cols.iter().zip(values) {
                row[j] += x * T::from(y);
            }
        }
    }
    c
}

/// `C = A B` with `A` dense row-major (`m x k`) and `B` in CSR (`k x n`): the
/// SpMM of Algorithm 1, line 12 (`RA_int B^r_int`), row `k` of `B` scattered
/// into row `i` of `C` with weight `A_ik`; exact.
///
/// # Errors
/// [`VerifyError::Overflow`] as [`int_gemm`]; [`VerifyError::LengthMismatch`]
/// if `a` does not hold `m * b.rows` entries; [`VerifyError::InvalidParameter`]
/// if `m * b.rows` or `m * b.cols` overflows `usize`; and the errors of
/// [`CsrI8::validate`] for a malformed (hand-built) `b`.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::residual::csr::CsrI8;
/// use boundgate::kernels::residual::intgemm::{int_gemm, spmm_dense_csr};
/// use boundgate_verify::VerifyError;
/// // [[1, 2], [3, 4]] times the diagonal of [[5, 6], [7, 8]]
/// let a = [1, 2, 3, 4];
/// let b = CsrI8::from_mask(2, 2, &[5, 6, 7, 8], &[true, false, false, true]).unwrap();
/// let c = spmm_dense_csr(&a, 2, &b).unwrap();
/// assert_eq!(c, vec![5, 16, 15, 32]);
/// assert_eq!(c, int_gemm(&a, &[5, 0, 0, 8], 2, 2, 2).unwrap());
/// // 133,145 products of 127 * 127 reaching one output exceed 2^31 - 1.
/// let k = 133_145;
/// let b = CsrI8::from_mask(k, 1, &vec![127; k], &vec![true; k]).unwrap();
/// assert!(matches!(
///     spmm_dense_csr(&vec![127; k], 1, &b),
///     Err(Error::Verify(VerifyError::Overflow { .. }))
/// ));
/// ```
pub fn spmm_dense_csr(a: &[i8], m: usize, b: &CsrI8) -> Result<Vec<i32>> {
    b.validate()?;
    boundgate_verify::error::require_same_len("A and m * k", a.len(), shape_len("A", m, b.rows)?)?;
    shape_len("C", m, b.cols)?;
    // At most `k` products reach any output.
    if fits_i32(b.rows, max_abs(a), max_abs(&b.values)) {
        Ok(right_sparse::<i32>(a, m, b))
    } else {
        narrow(widen(right_sparse::<i64>(a, m, b)), b.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn is_mismatch<T: std::fmt::Debug>(r: &Result<T>) -> bool {
        matches!(r, Err(Error::Verify(VerifyError::LengthMismatch { .. })))
    }

    #[test]
    fn int_gemm_refuses_operands_that_do_not_match_the_shape() {
        assert!(is_mismatch(&int_gemm(&[1, 2, 3], &[1, 2], 2, 2, 1)));
        assert!(is_mismatch(&int_gemm(&[1, 2], &[1], 1, 2, 1)));
        // a longer operand is refused too, not silently truncated
        assert!(is_mismatch(&int_gemm(&[1, 2, 3], &[1, 2], 1, 2, 1)));
    }

    #[test]
    fn int_gemm_refuses_a_shape_whose_product_overflows() {
        let got = int_gemm(&[], &[], usize::MAX, 0, 2);
        assert!(
            matches!(
                got,
                Err(Error::Verify(VerifyError::InvalidParameter { .. }))
            ),
            "{got:?}"
        );
        assert!(int_gemm(&[], &[], usize::MAX, 2, 0).is_err());
    }

    #[test]
    fn spmm_refuses_a_dense_operand_of_the_wrong_length() {
        let a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[true, false, false, true]).unwrap();
        assert!(is_mismatch(&spmm_csr_dense(&a, &[5, 6, 7], 2)));
        assert!(is_mismatch(&spmm_dense_csr(&[5, 6, 7], 2, &a)));
    }

    #[test]
    fn spmm_refuses_a_malformed_csr_operand() {
        let mut a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[true, false, false, true]).unwrap();
        a.col_idx[1] = 7;
        assert!(spmm_csr_dense(&a, &[5, 6, 7, 8], 2).is_err());
        assert!(spmm_dense_csr(&[5, 6, 7, 8], 2, &a).is_err());
        let mut a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[true, false, false, true]).unwrap();
        a.row_ptr = vec![0, 1, 3];
        assert!(spmm_csr_dense(&a, &[5, 6, 7, 8], 2).is_err());
        assert!(spmm_dense_csr(&[5, 6, 7, 8], 2, &a).is_err());
    }
}
