//! Compressed sparse rows of int8 values: the storage of the reduced quantized
//! matrices `A^r_int`, `B^r_int` (Gu §5.1: "the sparse matrix is represented
//! in Compressed Sparse Row (CSR) format").

use serde::Serialize;

/// A CSR matrix of `i8` values: row `i` holds the entries
/// `row_ptr[i]..row_ptr[i + 1]` of `col_idx` and `values`, columns ascending.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::csr::CsrI8;
/// // keep (0, 1) and (1, 0) of [[1, 2], [3, 4]]
/// let a = CsrI8::from_mask(2, 2, &[1, 2, 3, 4], &[false, true, true, false]);
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
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// // [[1, 0, -2], [3, 4, 5]], keeping (0, 0), (0, 1) and (1, 2): the kept 0 is stored.
    /// let a = CsrI8::from_mask(2, 3, &[1, 0, -2, 3, 4, 5], &[true, true, false, false, false, true]);
    /// assert_eq!(a.row_ptr, vec![0, 2, 3]);
    /// assert_eq!(a.col_idx, vec![0, 1, 2]);
    /// assert_eq!(a.values, vec![1, 0, 5]);
    /// ```
    pub fn from_mask(rows: usize, cols: usize, dense: &[i8], mask: &[bool]) -> CsrI8 {
        debug_assert_eq!(dense.len(), rows * cols);
        debug_assert_eq!(mask.len(), rows * cols);
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
        CsrI8 {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        }
    }

    /// Columns and values of row `i`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let a = CsrI8::from_mask(3, 2, &[1, 2, 3, 4, 5, 6], &[false, true, false, false, true, true]);
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
    /// let a = CsrI8::from_mask(1, 3, &[0, 7, 9], &[true, true, false]);
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
    /// let a = CsrI8::from_mask(2, 4, &[1; 8], &[true, false, false, false, false, false, true, false]);
    /// assert_eq!(a.density(), 0.25);
    /// // an empty shape has density 0, not NaN
    /// assert_eq!(CsrI8::from_mask(0, 3, &[], &[]).density(), 0.0);
    /// ```
    pub fn density(&self) -> f64 {
        let total = self.rows * self.cols;
        if total == 0 {
            0.0
        } else {
            self.nnz() as f64 / total as f64
        }
    }

    /// The largest number of entries in a row.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::csr::CsrI8;
    /// let a = CsrI8::from_mask(3, 3, &[1; 9], &[true, false, false, true, true, true, false, false, false]);
    /// assert_eq!(a.max_row_nnz(), 3);
    /// assert_eq!(CsrI8::from_mask(0, 0, &[], &[]).max_row_nnz(), 0);
    /// ```
    pub fn max_row_nnz(&self) -> usize {
        self.row_ptr
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }
}
