//! Building the inputs of the BLAS oracles (`Gemm`, `Spmv` over `Csr` and
//! `Ell`) from plain data.

use boundgate_verify::oracle::{ELL_PADDING, EllLayout, Matrix, Transpose};

/// The stored matrix whose `op` (by `trans`) is `rows x cols`.
pub fn op_matrix(data: &[f64], rows: usize, cols: usize, trans: Transpose) -> Matrix<'_> {
    if trans == Transpose::No {
        Matrix::new(rows, cols, data)
    } else {
        Matrix::new(cols, rows, data)
    }
    .unwrap()
}

/// The operands of each output of `op(A) op(B)` (`m x n` by rows, inner
/// dimension `k`): row `i` of `op(A)` and column `j` of `op(B)`, from their
/// entries `op_a(i, l)` and `op_b(l, j)`.
pub fn gemm_operands(
    (m, n, k): (usize, usize, usize),
    op_a: impl Fn(usize, usize) -> f64,
    op_b: impl Fn(usize, usize) -> f64,
) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut operands = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let row: Vec<f64> = (0..k).map(|l| op_a(i, l)).collect();
            let col: Vec<f64> = (0..k).map(|l| op_b(l, j)).collect();
            operands.push((row, col));
        }
    }
    operands
}

/// The values of a sparse row (`(column, value)` entries) and the entries of
/// `x` they multiply.
pub fn row_operands(row: &[(usize, f64)], x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let a: Vec<f64> = row.iter().map(|e| e.1).collect();
    let b: Vec<f64> = row.iter().map(|e| x[e.0]).collect();
    (a, b)
}

/// The CSR arrays `(row_ptr, col_idx, values)` of rows of `(column, value)`
/// entries.
pub fn csr_arrays(entries: &[Vec<(usize, f64)>]) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let mut row_ptr = vec![0];
    let (mut col_idx, mut values) = (Vec::new(), Vec::new());
    for row in entries {
        col_idx.extend(row.iter().map(|e| e.0));
        values.extend(row.iter().map(|e| e.1));
        row_ptr.push(col_idx.len());
    }
    (row_ptr, col_idx, values)
}

/// The ELL arrays `(columns, values)` of rows of `(column, value)` entries,
/// `width` slots a row in `layout`: the entries of each row, in order, go to
/// the slots `slots()` gives for it (called once a row, in order); the other
/// slots are padding (value NaN, never read).
pub fn ell_arrays(
    entries: &[Vec<(usize, f64)>],
    width: usize,
    layout: EllLayout,
    mut slots: impl FnMut() -> Vec<usize>,
) -> (Vec<usize>, Vec<f64>) {
    let rows = entries.len();
    let mut ell_cols = vec![ELL_PADDING; rows * width];
    let mut ell_values = vec![f64::NAN; rows * width];
    for (i, row) in entries.iter().enumerate() {
        for (&slot, &(c, v)) in slots().iter().zip(row) {
            let at = match layout {
                EllLayout::RowMajor => i * width + slot,
                EllLayout::ColumnMajor => slot * rows + i,
            };
            ell_cols[at] = c;
            ell_values[at] = v;
        }
    }
    (ell_cols, ell_values)
}
