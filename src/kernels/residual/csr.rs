//! Compressed sparse rows of int8 values: the storage of the reduced quantized
//! matrices `A^r_int`, `B^r_int` (Gu §5.1: "the sparse matrix is represented
//! in Compressed Sparse Row (CSR) format").

use crate::error::Result;
use boundgate_verify::VerifyError;
use serde::Serialize;

/// A CSR matrix of `i8` values: row `i` holds the entries
/// `row_ptr[i]..row_ptr[i + 1]` of `col_idx` and `values`, columns ascending.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::csr::CsrI8;
/// // keep (0, 1) and (1, 0) of [[1, 2], [3, 4]]
/// let a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[false, true, true, false]).unwrap();
/// assert_eq!(a.row(0), (&[1usize][..], &[2i8][..]));
/// assert_eq!(a.nnz(), 2);
/// assert_eq!(a.density(), 0.5);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsrI8 {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// `rows + 1` offsets.
    pub row_ptr: Vec<usize>,
    /// Column of each stored entry.
    pub col_idx: Vec<usize>,
    /// Value of each stored entry.
    pub values: Vec<i8>,
}

impl CsrI8 {
    /// The entries of the row-major `dense` where `mask` is true (stored even
    /// when the integer is 0, so that `nnz` counts the kept entries).
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] if `rows * cols` overflows `usize`;
    /// [`VerifyError::LengthMismatch`] if `dense` or `mask` does not hold
    /// `rows * cols` entries.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// use boundgate_verify::VerifyError;
    /// // [[1, 0, -2], [3, 4, 5]], keeping (0, 0), (0, 1) and (1, 2): the kept 0 is stored.
    /// let a = CsrI8::from_mask(2, 3, &[1, 0, -2, 3, 4, 5], &[true, true, false, false, false, true]).unwrap();
    /// assert_eq!(a.row_ptr, vec![0, 2, 3]);
    /// assert_eq!(a.col_idx, vec![0, 1, 2]);
    /// assert_eq!(a.values, vec![1, 0, 5]);
    /// // a mask that does not cover the matrix is refused
    /// assert!(matches!(
    ///     CsrI8::from_mask(2, 3, &[1, 0, -2, 3, 4, 5], &[true, true]),
    ///     Err(Error::Verify(VerifyError::LengthMismatch { .. }))
    /// ));
    /// ```
    pub fn from_mask(rows: usize, cols: usize, dense: &[i8], mask: &[bool]) -> Result<CsrI8> {
        let len = crate::kernels::shape_len("CSR shape", rows, cols)?;
        boundgate_verify::error::require_same_len("dense and rows * cols", dense.len(), len)?;
        boundgate_verify::error::require_same_len("mask and rows * cols", mask.len(), len)?;
        let mut row_ptr = Vec::with_capacity(rows + 1);
        row_ptr.push(0);
        let mut col_idx = Vec::new();
        let mut values = Vec::new();
        for i in 0..rows {
            for j in 0..cols {
                if mask[i * cols + j] {
                    col_idx.push(j);
                    values.push(dense[i * cols + j]);
                }
            }
            row_ptr.push(col_idx.len());
        }
        Ok(CsrI8 {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// Checks the structure of a CSR matrix built by hand (the fields are
    /// public): `rows + 1` nondecreasing offsets from 0 to `nnz`, as many
    /// columns as values, every column below `cols`. [`CsrI8::from_mask`]
    /// always builds a valid one.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] for offsets or columns of the wrong
    /// count, [`VerifyError::InvalidParameter`] for offsets that decrease or
    /// do not end at `nnz`, or for a column out of range.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let mut a = CsrI8::from_mask(1, 2, &[1, 2], &[true, true]).unwrap();
    /// assert!(a.validate().is_ok());
    /// a.col_idx[1] = 2; // column out of range
    /// assert!(a.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        boundgate_verify::error::require_same_len(
            "CSR row offsets and rows + 1",
            self.row_ptr.len(),
            self.rows.saturating_add(1),
        )?;
        boundgate_verify::error::require_same_len(
            "CSR columns and values",
            self.col_idx.len(),
            self.values.len(),
        )?;
        if self.row_ptr.first() != Some(&0)
            || self.row_ptr.last() != Some(&self.values.len())
            || self.row_ptr.windows(2).any(|w| w[1] < w[0])
        {
            return Err(VerifyError::invalid(
                "CSR row offsets",
                format!("{:?}", self.row_ptr),
                format!("must rise from 0 to nnz = {}", self.values.len()),
            )
            .into());
        }
        if let Some(&j) = self.col_idx.iter().find(|&&j| j >= self.cols) {
            return Err(VerifyError::invalid(
                "CSR column",
                j,
                format!("is out of range for {} columns", self.cols),
            )
            .into());
        }
        Ok(())
    }

    /// Columns and values of row `i`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let a = CsrI8::from_mask(3, 2, &[1, 2, 3, 4, 5, 6], &[false, true, false, false, true, true]).unwrap();
    /// assert_eq!(a.row(0), (&[1usize][..], &[2i8][..]));
    /// assert_eq!(a.row(1), (&[][..], &[][..])); // nothing kept
    /// assert_eq!(a.row(2), (&[0usize, 1][..], &[5i8, 6][..]));
    /// ```
    #[inline]
    pub fn row(&self, i: usize) -> (&[usize], &[i8]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.values[r])
    }

    /// Stored entries.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// // A kept zero counts; a dropped nonzero does not.
    /// let a = CsrI8::from_mask(1, 3, &[0, 7, 9], &[true, true, false]).unwrap();
    /// assert_eq!(a.nnz(), 2);
    /// ```
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// `nnz / (rows * cols)` (0 for an empty shape).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let a = CsrI8::from_mask(2, 4, &[1; 8], &[true, false, false, false, false, false, true, false]).unwrap();
    /// assert_eq!(a.density(), 0.25);
    /// // an empty shape has density 0, not NaN
    /// assert_eq!(CsrI8::from_mask(0, 3, &[], &[]).unwrap().density(), 0.0);
    /// ```
    pub fn density(&self) -> f64 {
        match self.rows.checked_mul(self.cols) {
            Some(0) => 0.0,
            Some(total) => self.nnz() as f64 / total as f64,
            // only a hand-built shape (public fields): no panic on overflow
            None => self.nnz() as f64 / (self.rows as f64 * self.cols as f64),
        }
    }

    /// The largest number of entries in a row.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let a = CsrI8::from_mask(3, 3, &[1; 9], &[true, false, false, true, true, true, false, false, false]).unwrap();
    /// assert_eq!(a.max_row_nnz(), 3);
    /// assert_eq!(CsrI8::from_mask(0, 0, &[], &[]).unwrap().max_row_nnz(), 0);
    /// ```
    pub fn max_row_nnz(&self) -> usize {
        self.row_ptr
            .windows(2)
            .map(|w| w[1].saturating_sub(w[0]))
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn from_mask_refuses_a_mask_of_the_wrong_length() {
        for mask in [&[true; 3][..], &[true; 5][..]] {
            let got = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], mask);
            assert!(
                matches!(got, Err(Error::Verify(VerifyError::LengthMismatch { .. }))),
                "{got:?}"
            );
        }
    }

    #[test]
    fn from_mask_refuses_dense_values_of_the_wrong_length() {
        let got = CsrI8::from_mask(2, 2, &[1, 2, 3], &[true; 4]);
        assert!(
            matches!(got, Err(Error::Verify(VerifyError::LengthMismatch { .. }))),
            "{got:?}"
        );
    }

    #[test]
    fn from_mask_refuses_a_shape_whose_product_overflows() {
        let got = CsrI8::from_mask(usize::MAX, 2, &[], &[]);
        assert!(
            matches!(
                got,
                Err(Error::Verify(VerifyError::InvalidParameter { .. }))
            ),
            "{got:?}"
        );
    }

    #[test]
    fn validate_refuses_malformed_hand_built_matrices() {
        let good = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[true, false, true, true]).unwrap();
        assert!(good.validate().is_ok());
        let mut bad = good.clone();
        bad.row_ptr.pop();
        assert!(bad.validate().is_err());
        let mut bad = good.clone();
        bad.row_ptr = vec![0, 2, 1];
        assert!(bad.validate().is_err());
        let mut bad = good.clone();
        bad.col_idx[0] = 2;
        assert!(bad.validate().is_err());
        let mut bad = good;
        bad.values.pop();
        assert!(bad.validate().is_err());
    }

    #[test]
    fn density_and_max_row_nnz_do_not_panic_on_hand_built_fields() {
        let a = CsrI8 {
            rows: usize::MAX,
            cols: 2,
            row_ptr: vec![0, 2, 1],
            col_idx: vec![0, 1],
            values: vec![1, 1],
        };
        assert!(a.density().is_finite());
        assert_eq!(a.max_row_nnz(), 2);
    }
}
