//! Validated views of the matrices the oracles read: dense row-major
//! [`Matrix`], compressed sparse rows [`Csr`] and ELLPACK [`Ell`]. Constructors
//! check every structural invariant and return typed errors, so the oracles
//! themselves never index out of bounds.

use crate::error::{Result, VerifyError, require_same_len};

/// A dense row-major matrix view: element `(i, j)` is `data[i * cols + j]`.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let a = Matrix::new(2, 3, &data).unwrap();
/// assert_eq!(a.get(1, 0), 4.0);
/// assert_eq!(a.row(0), &[1.0, 2.0, 3.0]);
/// assert!(Matrix::new(4, 2, &data).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matrix<'a> {
    rows: usize,
    cols: usize,
    data: &'a [f64],
}

impl<'a> Matrix<'a> {
    /// A view of `data` as `rows x cols`; `rows * cols` must equal `data.len()`.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] if it does not;
    /// [`VerifyError::InvalidParameter`] if `rows * cols` overflows `usize`
    /// (documented as a length mismatch until 2026-11-29, which it never was).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::Matrix;
    /// let data = [0.0; 6];
    /// assert!(Matrix::new(3, 2, &data).is_ok());
    /// assert!(matches!(Matrix::new(3, 3, &data), Err(VerifyError::LengthMismatch { .. })));
    /// // rows * cols overflows.
    /// assert!(matches!(Matrix::new(usize::MAX, 2, &data), Err(VerifyError::InvalidParameter { .. })));
    /// ```
    pub fn new(rows: usize, cols: usize, data: &'a [f64]) -> Result<Self> {
        let len = rows.checked_mul(cols).ok_or_else(|| {
            VerifyError::invalid("rows * cols", format!("{rows} * {cols}"), "overflows usize")
        })?;
        require_same_len("rows * cols and data", len, data.len())?;
        Ok(Matrix { rows, cols, data })
    }
    /// Number of rows.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// assert_eq!(Matrix::new(2, 3, &[0.0; 6]).unwrap().rows(), 2);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// assert_eq!(Matrix::new(2, 3, &[0.0; 6]).unwrap().cols(), 3);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The row-major data.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// let a = Matrix::new(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// // Element (i, j) is data[i * cols + j].
    /// assert_eq!(a.data()[1 * a.cols() + 2], a.get(1, 2));
    /// assert_eq!(a.data()[1 * a.cols() + 2], 6.0);
    /// ```
    pub fn data(&self) -> &'a [f64] {
        self.data
    }
    /// Row `i` (panics if `i >= rows` and the matrix has columns, like slice
    /// indexing; with no columns every row is the empty slice).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// let a = Matrix::new(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// assert_eq!(a.row(1), &[4.0, 5.0, 6.0]);
    /// assert!(std::panic::catch_unwind(|| a.row(2)).is_err());
    /// ```
    pub fn row(&self, i: usize) -> &'a [f64] {
        // Checked before `i * cols`, which wraps without overflow checks
        // (review 2026-11-29: `row(2^63)` of a 2 x 2 matrix was row 0 in
        // release builds).
        assert!(
            i < self.rows || self.cols == 0,
            "row {i} out of range ({} rows)",
            self.rows
        );
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
    /// Element `(i, j)` (panics if out of range, like slice indexing).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Matrix;
    /// let a = Matrix::new(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// assert_eq!(a.get(0, 2), 3.0);
    /// // Column 3 is out of range even though data[3] exists (it is (1, 0)).
    /// assert!(std::panic::catch_unwind(|| a.get(0, 3)).is_err());
    /// ```
    pub fn get(&self, i: usize, j: usize) -> f64 {
        // Both checked before `i * cols + j`, which could wrap (see `row`).
        assert!(
            i < self.rows && j < self.cols,
            "element ({i}, {j}) out of range ({} x {})",
            self.rows,
            self.cols
        );
        self.data[i * self.cols + j]
    }
    /// Copies column `j` into `out` (cleared first).
    pub(crate) fn column_into(&self, j: usize, out: &mut Vec<f64>) {
        // Past the last column, `skip(j)` would read the next rows' elements.
        debug_assert!(j < self.cols, "column {j} out of range");
        out.clear();
        out.extend(
            self.data
                .iter()
                .skip(j)
                .step_by(self.cols.max(1))
                .take(self.rows),
        );
    }
}

/// A compressed-sparse-row matrix view: row `i` has the entries
/// `row_ptr[i]..row_ptr[i + 1]` of `col_idx` and `values`. Columns within a
/// row need not be sorted; repeated columns are summed.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Csr;
/// // [[1, 0, 2], [0, 0, 0], [0, 3, 0]]
/// let a = Csr::new(3, 3, &[0, 2, 2, 3], &[0, 2, 1], &[1.0, 2.0, 3.0]).unwrap();
/// assert_eq!(a.nnz(), 3);
/// assert_eq!(a.row(0), (&[0usize, 2][..], &[1.0, 2.0][..]));
/// assert!(Csr::new(3, 3, &[0, 2, 1, 3], &[0, 2, 1], &[1.0, 2.0, 3.0]).is_err()); // decreasing
/// assert!(Csr::new(3, 3, &[0, 2, 2, 3], &[0, 3, 1], &[1.0, 2.0, 3.0]).is_err()); // column 3
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Csr<'a> {
    rows: usize,
    cols: usize,
    row_ptr: &'a [usize],
    col_idx: &'a [usize],
    values: &'a [f64],
}

impl<'a> Csr<'a> {
    /// A validated CSR view.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] if `row_ptr` does not have `rows + 1`
    /// entries or `col_idx` and `values` differ in length or from
    /// `row_ptr[rows]`; [`VerifyError::InvalidParameter`] if `row_ptr[0] != 0`,
    /// `row_ptr` decreases, or a column index is `>= cols`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::Csr;
    /// let (col_idx, values) = ([0, 1], [1.0, 2.0]);
    /// assert!(Csr::new(2, 2, &[0, 1, 2], &col_idx, &values).is_ok());
    /// // row_ptr needs rows + 1 entries.
    /// assert!(matches!(Csr::new(2, 2, &[0, 2], &col_idx, &values), Err(VerifyError::LengthMismatch { .. })));
    /// // row_ptr must start at 0.
    /// assert!(matches!(Csr::new(2, 2, &[1, 1, 2], &col_idx, &values), Err(VerifyError::InvalidParameter { .. })));
    /// // row_ptr[rows] must be the number of entries.
    /// assert!(matches!(Csr::new(2, 2, &[0, 1, 1], &col_idx, &values), Err(VerifyError::LengthMismatch { .. })));
    /// ```
    pub fn new(
        rows: usize,
        cols: usize,
        row_ptr: &'a [usize],
        col_idx: &'a [usize],
        values: &'a [f64],
    ) -> Result<Self> {
        require_same_len(
            "row_ptr and rows + 1",
            row_ptr.len(),
            rows.saturating_add(1),
        )?;
        require_same_len("col_idx and values", col_idx.len(), values.len())?;
        if row_ptr[0] != 0 {
            return Err(VerifyError::invalid("row_ptr[0]", row_ptr[0], "must be 0"));
        }
        if let Some(i) = row_ptr.windows(2).position(|w| w[1] < w[0]) {
            return Err(VerifyError::invalid(
                &format!("row_ptr[{}]", i + 1),
                row_ptr[i + 1],
                format!("is below row_ptr[{i}] = {}", row_ptr[i]),
            ));
        }
        require_same_len("row_ptr[rows] and col_idx", row_ptr[rows], col_idx.len())?;
        if let Some(k) = col_idx.iter().position(|&c| c >= cols) {
            return Err(VerifyError::invalid(
                &format!("col_idx[{k}]"),
                col_idx[k],
                format!("is not below cols = {cols}"),
            ));
        }
        Ok(Csr {
            rows,
            cols,
            row_ptr,
            col_idx,
            values,
        })
    }
    /// Number of rows.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Csr;
    /// // An empty 3 x 4 matrix: rows + 1 row pointers, no entries.
    /// assert_eq!(Csr::new(3, 4, &[0; 4], &[], &[]).unwrap().rows(), 3);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Csr;
    /// assert_eq!(Csr::new(3, 4, &[0; 4], &[], &[]).unwrap().cols(), 4);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Number of stored entries.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Csr;
    /// // Stored entries count even when repeated (column 0 twice) or zero.
    /// let a = Csr::new(1, 2, &[0, 3], &[0, 0, 1], &[1.0, 2.0, 0.0]).unwrap();
    /// assert_eq!(a.nnz(), 3);
    /// ```
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
    /// Column indices and values of row `i` (panics if `i >= rows`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::Csr;
    /// // [[0, 0], [5, 7]]: row 0 is empty.
    /// let a = Csr::new(2, 2, &[0, 0, 2], &[1, 0], &[7.0, 5.0]).unwrap();
    /// assert_eq!(a.row(0), (&[][..], &[][..]));
    /// assert_eq!(a.row(1), (&[1usize, 0][..], &[7.0, 5.0][..])); // stored order
    /// assert!(std::panic::catch_unwind(|| a.row(2)).is_err());
    /// ```
    pub fn row(&self, i: usize) -> (&'a [usize], &'a [f64]) {
        let range = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[range.clone()], &self.values[range])
    }
}

/// Column index marking an ELL padding slot; its value is never read (it may
/// hold anything, NaN included).
pub const ELL_PADDING: usize = usize::MAX;

/// Where slot `k` of row `i` of an ELL matrix is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EllLayout {
    /// `i * width + k`: each row's slots together.
    RowMajor,
    /// `k * rows + i`: slot `k` of all rows together (the usual GPU layout).
    ColumnMajor,
}

/// An ELLPACK matrix view: every row has `width` slots; a slot holds a column
/// index and a value, or is padding ([`ELL_PADDING`]).
///
/// # Example
/// ```
/// use boundgate_verify::oracle::{Ell, EllLayout, ELL_PADDING};
/// // [[1, 0, 2], [0, 3, 0]], width 2, row-major slots.
/// let p = ELL_PADDING;
/// let (col_idx, values) = ([0, 2, 1, p], [1.0, 2.0, 3.0, f64::NAN]);
/// let a = Ell::new(2, 3, 2, EllLayout::RowMajor, &col_idx, &values).unwrap();
/// assert_eq!(a.slot(1, 0), Some((1, 3.0)));
/// assert_eq!(a.slot(1, 1), None);
/// assert!(Ell::new(2, 3, 2, EllLayout::RowMajor, &[0, 2, 7, p], &[1.0; 4]).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ell<'a> {
    rows: usize,
    cols: usize,
    width: usize,
    layout: EllLayout,
    col_idx: &'a [usize],
    values: &'a [f64],
}

impl<'a> Ell<'a> {
    /// A validated ELL view.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] unless `col_idx` and `values` both have
    /// `rows * width` entries; [`VerifyError::InvalidParameter`] if
    /// `rows * width` overflows `usize`, or for a column index `>= cols` that
    /// is not [`ELL_PADDING`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::oracle::{Ell, EllLayout, ELL_PADDING};
    /// let p = ELL_PADDING;
    /// assert!(Ell::new(2, 3, 2, EllLayout::ColumnMajor, &[0, 1, p, 2], &[1.0; 4]).is_ok());
    /// // rows * width = 4 slots are needed.
    /// assert!(matches!(
    ///     Ell::new(2, 3, 2, EllLayout::ColumnMajor, &[0, 1, p], &[1.0; 3]),
    ///     Err(VerifyError::LengthMismatch { .. })
    /// ));
    /// // Column 3 of a 3-column matrix.
    /// assert!(matches!(
    ///     Ell::new(2, 3, 2, EllLayout::ColumnMajor, &[0, 1, p, 3], &[1.0; 4]),
    ///     Err(VerifyError::InvalidParameter { .. })
    /// ));
    /// ```
    pub fn new(
        rows: usize,
        cols: usize,
        width: usize,
        layout: EllLayout,
        col_idx: &'a [usize],
        values: &'a [f64],
    ) -> Result<Self> {
        let len = rows.checked_mul(width).ok_or_else(|| {
            VerifyError::invalid(
                "rows * width",
                format!("{rows} * {width}"),
                "overflows usize",
            )
        })?;
        require_same_len("rows * width and col_idx", len, col_idx.len())?;
        require_same_len("col_idx and values", col_idx.len(), values.len())?;
        if let Some(k) = col_idx.iter().position(|&c| c >= cols && c != ELL_PADDING) {
            return Err(VerifyError::invalid(
                &format!("col_idx[{k}]"),
                col_idx[k],
                format!("is neither below cols = {cols} nor ELL_PADDING"),
            ));
        }
        Ok(Ell {
            rows,
            cols,
            width,
            layout,
            col_idx,
            values,
        })
    }
    /// Number of rows.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{Ell, EllLayout};
    /// let a = Ell::new(2, 5, 1, EllLayout::RowMajor, &[4, 0], &[1.0, 2.0]).unwrap();
    /// assert_eq!(a.rows(), 2);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{Ell, EllLayout};
    /// let a = Ell::new(2, 5, 1, EllLayout::RowMajor, &[4, 0], &[1.0, 2.0]).unwrap();
    /// assert_eq!(a.cols(), 5);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Slots per row.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{Ell, EllLayout, ELL_PADDING};
    /// let p = ELL_PADDING;
    /// let (col_idx, values) = ([4, p, p, 0, 1, p], [1.0; 6]);
    /// let a = Ell::new(2, 5, 3, EllLayout::RowMajor, &col_idx, &values).unwrap();
    /// assert_eq!(a.width(), 3);
    /// assert_eq!((0..a.width()).filter_map(|k| a.slot(1, k)).count(), 2);
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }
    /// Slot `k` of row `i`: `(column, value)`, or `None` for padding
    /// (panics if `i >= rows` or `k >= width`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{Ell, EllLayout, ELL_PADDING};
    /// // [[1, 0, 2], [0, 3, 0]], width 2, column-major: slot 0 of both rows first.
    /// let p = ELL_PADDING;
    /// let (col_idx, values) = ([0, 1, 2, p], [1.0, 3.0, 2.0, 0.0]);
    /// let a = Ell::new(2, 3, 2, EllLayout::ColumnMajor, &col_idx, &values).unwrap();
    /// assert_eq!(a.slot(0, 1), Some((2, 2.0)));
    /// assert_eq!(a.slot(1, 0), Some((1, 3.0)));
    /// assert_eq!(a.slot(1, 1), None);
    /// assert!(std::panic::catch_unwind(|| a.slot(0, 2)).is_err());
    /// ```
    pub fn slot(&self, i: usize, k: usize) -> Option<(usize, f64)> {
        assert!(
            i < self.rows && k < self.width,
            "slot ({i}, {k}) out of range"
        );
        let at = match self.layout {
            EllLayout::RowMajor => i * self.width + k,
            EllLayout::ColumnMajor => k * self.rows + i,
        };
        let col = self.col_idx[at];
        (col != ELL_PADDING).then(|| (col, self.values[at]))
    }
}
