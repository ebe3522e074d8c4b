//! A small owned CSR matrix with a fixed-order fp64 product (rows left to
//! right), checked by the oracle's [`Csr`] view.

use boundgate_verify::Result as VResult;
use boundgate_verify::oracle::Csr;

/// A square or rectangular sparse matrix in compressed sparse row form.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::CsrMatrix;
/// // [[2, -1], [-1, 2]]
/// let a = CsrMatrix::new(2, 2, vec![0, 2, 4], vec![0, 1, 0, 1], vec![2.0, -1.0, -1.0, 2.0]).unwrap();
/// let mut y = vec![0.0; 2];
/// a.spmv(&[1.0, 1.0], &mut y);
/// assert_eq!(y, [1.0, 1.0]);
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
    /// A matrix, validated by the oracle's [`Csr::new`].
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

    /// The oracle's view (for exact products).
    pub fn view(&self) -> Csr<'_> {
        Csr::new(
            self.rows,
            self.cols,
            &self.row_ptr,
            &self.col_idx,
            &self.values,
        )
        .expect("validated at construction")
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
    /// Columns and values of row `i`.
    pub fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.values[r])
    }

    /// `y = A x` in fp64, each row summed left to right.
    pub fn spmv(&self, x: &[f64], y: &mut [f64]) {
        for (i, out) in y.iter_mut().enumerate().take(self.rows) {
            let (cols, vals) = self.row(i);
            *out = cols.iter().zip(vals).fold(0.0, |s, (&c, &v)| s + v * x[c]);
        }
    }
}
