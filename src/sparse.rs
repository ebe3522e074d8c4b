//! An owned compressed-sparse-row matrix, shared by the accessor SpMV kernels
//! (which also build ELL from it) and the qdot applications (HPCCG, graph
//! Laplacians).
//!
//! Entries are kept exactly as given: explicit zeros from a file stay entries,
//! repeated `(i, j)` positions stay separate entries (each is one product in
//! the kernel; the exact oracle sums them as the kernel does).

use crate::error::{Error, Result};
use boundgate_verify::Result as VResult;
use boundgate_verify::oracle::Csr;

/// A compressed-sparse-row matrix.
///
/// # Example
/// ```
/// use boundgate::sparse::CsrMatrix;
/// let a = CsrMatrix::from_dense(2, 3, &[1.0, 0.0, 2.0, 0.0, 0.0, 3.0]).unwrap();
/// assert_eq!(a.nnz(), 3);
/// assert_eq!(a.row(0), (&[0usize, 2][..], &[1.0, 2.0][..]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix {
    rows: usize,
    cols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
    values: Vec<f64>,
}

impl CsrMatrix {
    /// A matrix from its parts, validated by the oracle's [`Csr::new`]
    /// (`row_ptr` of `rows + 1` non-decreasing entries from 0, column
    /// indices below `cols`, one value per index).
    ///
    /// # Errors
    /// As [`Csr::new`].
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // [[2, -1], [-1, 2]]
    /// let a = CsrMatrix::new(2, 2, vec![0, 2, 4], vec![0, 1, 0, 1], vec![2.0, -1.0, -1.0, 2.0]).unwrap();
    /// assert_eq!(a.row(1), (&[0usize, 1][..], &[-1.0, 2.0][..]));
    /// assert!(CsrMatrix::new(2, 2, vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]).is_err());
    /// ```
    pub fn new(
        rows: usize,
        cols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<usize>,
        values: Vec<f64>,
    ) -> VResult<CsrMatrix> {
        Csr::new(rows, cols, &row_ptr, &col_idx, &values)?;
        Ok(CsrMatrix {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// The nonzero entries of a dense row-major matrix (exact zeros dropped,
    /// NaN kept).
    ///
    /// # Errors
    /// [`Error::Usage`] if `data` does not have `rows * cols` values, or if
    /// the `rows + 1` row pointers cannot be allocated (`rows` near
    /// `usize::MAX` with `cols = 0`).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::sparse::CsrMatrix;
    /// // [[1, 0], [0, NaN]]: the exact zeros go, the NaN stays an entry.
    /// let a = CsrMatrix::from_dense(2, 2, &[1.0, 0.0, -0.0, f64::NAN]).unwrap();
    /// assert_eq!(a.row_ptr(), &[0, 1, 2]);
    /// assert_eq!(a.col_idx(), &[0, 1]);
    /// assert!(a.values()[1].is_nan());
    /// // 2 x 2 needs 4 values
    /// assert!(matches!(CsrMatrix::from_dense(2, 2, &[1.0; 3]), Err(Error::Usage(_))));
    /// // usize::MAX x 0 has no values, but no room for its row pointers either
    /// assert!(matches!(CsrMatrix::from_dense(usize::MAX, 0, &[]), Err(Error::Usage(_))));
    /// ```
    pub fn from_dense(rows: usize, cols: usize, data: &[f64]) -> Result<CsrMatrix> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::usage(format!(
                "a {rows}x{cols} matrix needs {} values, got {}",
                rows.saturating_mul(cols),
                data.len()
            )));
        }
        let mut row_ptr = row_ptr_buffer(rows)?;
        let (mut col_idx, mut values) = (Vec::new(), Vec::new());
        row_ptr.push(0);
        for i in 0..rows {
            for (j, &v) in data[i * cols..(i + 1) * cols].iter().enumerate() {
                if v != 0.0 {
                    col_idx.push(j);
                    values.push(v);
                }
            }
            row_ptr.push(values.len());
        }
        Ok(CsrMatrix {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// From `(row, column, value)` triplets (0-based), kept in row order and,
    /// within a row, in the given order.
    ///
    /// # Errors
    /// [`Error::Usage`] for an index out of range, or if the `rows + 1` row
    /// pointers cannot be allocated.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::sparse::CsrMatrix;
    /// // Rows sorted, order within a row kept, the repeated (1, 0) kept twice.
    /// let a = CsrMatrix::from_triplets(2, 3, &[(1, 2, 5.0), (0, 1, 4.0), (1, 0, 6.0), (1, 0, 7.0)]).unwrap();
    /// assert_eq!(a.row(0), (&[1usize][..], &[4.0][..]));
    /// assert_eq!(a.row(1), (&[2usize, 0, 0][..], &[5.0, 6.0, 7.0][..]));
    /// // column 3 is outside a 2 x 3 matrix
    /// assert!(matches!(CsrMatrix::from_triplets(2, 3, &[(0, 3, 1.0)]), Err(Error::Usage(_))));
    /// assert!(matches!(CsrMatrix::from_triplets(usize::MAX, 3, &[]), Err(Error::Usage(_))));
    /// ```
    pub fn from_triplets(
        rows: usize,
        cols: usize,
        triplets: &[(usize, usize, f64)],
    ) -> Result<CsrMatrix> {
        let mut counts = row_ptr_buffer(rows)?;
        counts.resize(rows + 1, 0);
        for (k, &(i, j, _)) in triplets.iter().enumerate() {
            if i >= rows || j >= cols {
                return Err(Error::usage(format!(
                    "entry {k}: ({i}, {j}) is outside the {rows}x{cols} matrix"
                )));
            }
            counts[i + 1] += 1;
        }
        for i in 0..rows {
            counts[i + 1] += counts[i];
        }
        let row_ptr = counts.clone();
        let mut next = counts;
        let mut col_idx = vec![0; triplets.len()];
        let mut values = vec![0.0; triplets.len()];
        for &(i, j, v) in triplets {
            col_idx[next[i]] = j;
            values[next[i]] = v;
            next[i] += 1;
        }
        Ok(CsrMatrix {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// Rows.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_triplets(3, 5, &[]).unwrap();
    /// assert_eq!((a.rows(), a.cols(), a.nnz()), (3, 5, 0));
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // a 2 x 4 matrix whose last column holds nothing still has 4 columns
    /// let a = CsrMatrix::from_dense(2, 4, &[1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]).unwrap();
    /// assert_eq!(a.cols(), 4);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Stored entries.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // An explicit zero given as a triplet is stored; from_dense drops it.
    /// assert_eq!(CsrMatrix::from_triplets(1, 2, &[(0, 0, 0.0), (0, 1, 3.0)]).unwrap().nnz(), 2);
    /// assert_eq!(CsrMatrix::from_dense(1, 2, &[0.0, 3.0]).unwrap().nnz(), 1);
    /// ```
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
    /// The values, row by row.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // [[0, 1], [2, 3]]: row by row, zeros dropped
    /// let a = CsrMatrix::from_dense(2, 2, &[0.0, 1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(a.values(), &[1.0, 2.0, 3.0]);
    /// ```
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    /// Column indices and values of row `i`.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // [[0, 0], [5, 7]]: row 0 is empty
    /// let a = CsrMatrix::from_dense(2, 2, &[0.0, 0.0, 5.0, 7.0]).unwrap();
    /// assert_eq!(a.row(0), (&[][..], &[][..]));
    /// assert_eq!(a.row(1), (&[0usize, 1][..], &[5.0, 7.0][..]));
    /// ```
    pub fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.values[r])
    }
    /// Entries of row `i`.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(3, 3, &[1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 4.0, 5.0]).unwrap();
    /// assert_eq!([a.row_len(0), a.row_len(1), a.row_len(2)], [2, 0, 3]);
    /// ```
    pub fn row_len(&self, i: usize) -> usize {
        self.row_ptr[i + 1] - self.row_ptr[i]
    }
    /// The row pointers.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// // row lengths 2, 0, 1 -> offsets 0, 2, 2, 3
    /// let a = CsrMatrix::from_dense(3, 2, &[1.0, 2.0, 0.0, 0.0, 0.0, 3.0]).unwrap();
    /// assert_eq!(a.row_ptr(), &[0, 2, 2, 3]);
    /// ```
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }
    /// The column indices.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(2, 3, &[0.0, 1.0, 2.0, 3.0, 0.0, 0.0]).unwrap();
    /// assert_eq!(a.col_idx(), &[1, 2, 0]);
    /// ```
    pub fn col_idx(&self) -> &[usize] {
        &self.col_idx
    }
    /// The same structure with other values (one per entry).
    ///
    /// # Errors
    /// [`Error::Usage`] for a wrong number of values.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(2, 2, &[1.0, 0.0, 2.0, 3.0]).unwrap();
    /// let b = a.with_values(vec![-1.0, -2.0, -3.0]).unwrap();
    /// assert_eq!((b.row_ptr(), b.col_idx()), (a.row_ptr(), a.col_idx()));
    /// assert_eq!(b.row(1), (&[0usize, 1][..], &[-2.0, -3.0][..]));
    /// // 3 entries need 3 values
    /// assert!(matches!(a.with_values(vec![1.0; 2]), Err(Error::Usage(_))));
    /// ```
    pub fn with_values(&self, values: Vec<f64>) -> Result<CsrMatrix> {
        if values.len() != self.values.len() {
            return Err(Error::usage(format!(
                "{} values for {} entries",
                values.len(),
                self.values.len()
            )));
        }
        Ok(CsrMatrix {
            values,
            ..self.clone()
        })
    }
    /// The checker's view.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(2, 3, &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0]).unwrap();
    /// let v = a.view();
    /// assert_eq!((v.rows(), v.cols(), v.nnz()), (2, 3, 3));
    /// assert_eq!(v.row(0), a.row(0));
    /// assert_eq!(v.row(1), (&[1usize][..], &[3.0][..]));
    /// ```
    pub fn view(&self) -> Csr<'_> {
        Csr::new(
            self.rows,
            self.cols,
            &self.row_ptr,
            &self.col_idx,
            &self.values,
        )
        .expect("a CsrMatrix is valid by construction")
    }
    /// The most entries in a row.
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(3, 3, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0]).unwrap();
    /// assert_eq!(a.max_row_len(), 3);
    /// // no rows at all: 0
    /// assert_eq!(CsrMatrix::from_triplets(0, 4, &[]).unwrap().max_row_len(), 0);
    /// ```
    pub fn max_row_len(&self) -> usize {
        (0..self.rows).map(|i| self.row_len(i)).max().unwrap_or(0)
    }

    /// `y = A x` in fp64, each row summed left to right (the plain product
    /// of the qdot applications; the accessor kernels have their own orders).
    /// Only the first `min(y.len(), rows)` rows are written.
    ///
    /// # Panics
    /// When a column index of an entry in those rows is `>= x.len()` (`x`
    /// shorter than `cols`).
    ///
    /// # Example
    /// ```
    /// use boundgate::sparse::CsrMatrix;
    /// let a = CsrMatrix::from_dense(2, 2, &[2.0, -1.0, -1.0, 2.0]).unwrap();
    /// let mut y = vec![0.0; 2];
    /// a.spmv(&[1.0, 1.0], &mut y);
    /// assert_eq!(y, [1.0, 1.0]);
    /// ```
    pub fn spmv(&self, x: &[f64], y: &mut [f64]) {
        for (i, out) in y.iter_mut().enumerate().take(self.rows) {
            let (cols, vals) = self.row(i);
            *out = cols.iter().zip(vals).fold(0.0, |s, (&c, &v)| s + v * x[c]);
        }
    }
}

/// An empty buffer for `rows + 1` row pointers, refused (not a capacity
/// overflow panic or an allocation abort) when it cannot be had.
fn row_ptr_buffer(rows: usize) -> Result<Vec<usize>> {
    let refuse = || Error::usage(format!("{rows} rows: no room for rows + 1 row pointers"));
    let len = rows.checked_add(1).ok_or_else(refuse)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| refuse())?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_refuse_a_row_count_with_no_room_for_row_pointers() {
        for rows in [usize::MAX, usize::MAX / 2] {
            assert!(matches!(
                CsrMatrix::from_dense(rows, 0, &[]),
                Err(Error::Usage(_))
            ));
            assert!(matches!(
                CsrMatrix::from_triplets(rows, 1, &[]),
                Err(Error::Usage(_))
            ));
        }
        let a = CsrMatrix::from_triplets(2, 2, &[(1, 0, 3.0)]).unwrap();
        assert_eq!(a.row_ptr(), &[0, 0, 1]);
        assert_eq!(CsrMatrix::from_dense(0, 5, &[]).unwrap().row_ptr(), &[0]);
    }
}
