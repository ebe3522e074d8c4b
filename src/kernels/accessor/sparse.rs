//! Owned sparse matrices for the SpMV kernels: CSR ([`CsrMatrix`], the
//! crate's, rows of column indices and values) and ELL (every row padded to
//! the same width, stored column-major as GPU ELL kernels read it: slot `k` of
//! row `i` at `k * rows + i`).

pub use crate::sparse::CsrMatrix;
use boundgate_verify::oracle::{ELL_PADDING, Ell, EllLayout};

/// An ELLPACK matrix, column-major slots (module docs).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
/// let csr = CsrMatrix::from_dense(2, 2, &[1.0, 2.0, 0.0, 3.0]).unwrap();
/// let ell = EllMatrix::from_csr(&csr);
/// assert_eq!(ell.width(), 2);
/// assert_eq!(ell.slot(1, 0), Some((1, 3.0)));
/// assert_eq!(ell.slot(1, 1), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EllMatrix {
    rows: usize,
    cols: usize,
    width: usize,
    col_idx: Vec<usize>,
    values: Vec<f64>,
}

impl EllMatrix {
    /// The ELL form of a CSR matrix: width = the longest row, padding with
    /// [`ELL_PADDING`] and value 0.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
    /// let csr = CsrMatrix::from_dense(3, 3, &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0]).unwrap();
    /// let ell = EllMatrix::from_csr(&csr);
    /// assert_eq!((ell.rows(), ell.width()), (3, 3)); // the longest row
    /// assert_eq!(ell.slot(2, 0), Some((0, 4.0)));
    /// assert_eq!(ell.slot(1, 0), None); // an empty row is all padding
    /// ```
    pub fn from_csr(a: &CsrMatrix) -> EllMatrix {
        let (rows, width) = (a.rows(), a.max_row_len());
        let mut col_idx = vec![ELL_PADDING; width * rows];
        let mut values = vec![0.0; width * rows];
        for i in 0..rows {
            let (cols, vals) = a.row(i);
            for (k, (&c, &v)) in cols.iter().zip(vals).enumerate() {
                col_idx[k * rows + i] = c;
                values[k * rows + i] = v;
            }
        }
        EllMatrix {
            rows,
            cols: a.cols(),
            width,
            col_idx,
            values,
        }
    }
    /// Rows.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
    /// let ell = EllMatrix::from_csr(&CsrMatrix::from_dense(2, 1, &[0.0, 5.0]).unwrap());
    /// assert_eq!((ell.rows(), ell.width()), (2, 1));
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Slots per row: the longest row's entries.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
    /// let ell = EllMatrix::from_csr(&CsrMatrix::from_dense(2, 3, &[1.0, 1.0, 1.0, 0.0, 0.0, 1.0]).unwrap());
    /// assert_eq!(ell.width(), 3);
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }
    /// Slot `k` of row `i`, or `None` for padding.
    ///
    /// # Panics
    /// For `i >= rows()` or `k >= width()`, as slice indexing does.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
    /// let ell = EllMatrix::from_csr(&CsrMatrix::from_dense(1, 3, &[0.0, 7.0, 8.0]).unwrap());
    /// assert_eq!((ell.slot(0, 0), ell.slot(0, 1)), (Some((1, 7.0)), Some((2, 8.0))));
    /// ```
    pub fn slot(&self, i: usize, k: usize) -> Option<(usize, f64)> {
        let at = k * self.rows + i;
        let c = self.col_idx[at];
        (c != ELL_PADDING).then(|| (c, self.values[at]))
    }
    /// The checker's view (`boundgate_verify::oracle::Ell`, column-major).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::sparse::{CsrMatrix, EllMatrix};
    /// let ell = EllMatrix::from_csr(&CsrMatrix::from_dense(2, 2, &[1.0, 2.0, 0.0, 3.0]).unwrap());
    /// assert_eq!((ell.view().rows(), ell.view().width()), (2, 2));
    /// ```
    pub fn view(&self) -> Ell<'_> {
        Ell::new(
            self.rows,
            self.cols,
            self.width,
            EllLayout::ColumnMajor,
            &self.col_idx,
            &self.values,
        )
        .expect("an EllMatrix is valid by construction")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_keep_their_order_and_duplicates() {
        let a =
            CsrMatrix::from_triplets(2, 2, &[(1, 1, 4.0), (0, 1, 2.0), (1, 1, 5.0), (1, 0, 3.0)])
                .unwrap();
        assert_eq!(a.row(0), (&[1usize][..], &[2.0][..]));
        assert_eq!(a.row(1), (&[1usize, 1, 0][..], &[4.0, 5.0, 3.0][..]));
        assert!(CsrMatrix::from_triplets(2, 2, &[(2, 0, 1.0)]).is_err());
        let ell = EllMatrix::from_csr(&a);
        assert_eq!(ell.width(), 3);
        assert_eq!(ell.slot(0, 1), None);
        assert_eq!(ell.slot(1, 2), Some((0, 3.0)));
    }
}
