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
    #[inline]
    pub fn row(&self, i: usize) -> (&[usize], &[i8]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.values[r])
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// `nnz / (rows * cols)` (0 for an empty shape).
    pub fn density(&self) -> f64 {
        let total = self.rows * self.cols;
        if total == 0 {
            0.0
        } else {
            self.nnz() as f64 / total as f64
        }
    }

    /// The largest number of entries in a row.
    pub fn max_row_nnz(&self) -> usize {
        self.row_ptr
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }
}
