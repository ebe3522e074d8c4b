//! The HPCCG problem (Heroux & Moessbauer, Mantevo HPCCG, `generate_matrix.cpp`,
//! the CG benchmark of the qdot paper's §4.2): a 27-point stencil on an
//! `nx x ny x nz` grid, 27 on the diagonal and -1 for each neighbour inside the
//! grid, right-hand side `b_i = 27 - (nnz_i - 1)` so that the solution is all
//! ones, initial guess 0. Rows are ordered `iz, iy, ix` (x fastest), the
//! neighbours of a row `sz, sy, sx` from -1 to 1.

use crate::sparse::CsrMatrix;
use boundgate_verify::{Result as VResult, VerifyError};

/// A generated HPCCG problem.
#[derive(Clone, Debug)]
pub struct Hpccg {
    /// The matrix.
    pub a: CsrMatrix,
    /// The right-hand side.
    pub b: Vec<f64>,
    /// The exact solution (all ones).
    pub x_exact: Vec<f64>,
}

/// The `nx x ny x nz` problem.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::hpccg::generate;
/// let p = generate(3, 3, 3).unwrap();
/// assert_eq!(p.a.rows(), 27);
/// assert_eq!(p.a.row(13).0.len(), 27); // the centre has every neighbour
/// assert_eq!(p.b[13], 1.0);
/// let mut ax = vec![0.0; 27];
/// p.a.spmv(&p.x_exact, &mut ax);
/// assert_eq!(ax, p.b);
/// assert!(generate(0, 3, 3).is_err());
/// ```
pub fn generate(nx: usize, ny: usize, nz: usize) -> VResult<Hpccg> {
    if nx == 0 || ny == 0 || nz == 0 {
        return Err(VerifyError::invalid(
            "hpccg",
            format!("{nx}x{ny}x{nz}"),
            "every dimension must be at least 1",
        ));
    }
    let (Some(n), Some(nnz)) = (
        nx.checked_mul(ny).and_then(|a| a.checked_mul(nz)),
        nonzeros(nx, ny, nz),
    ) else {
        return Err(VerifyError::invalid(
            "hpccg",
            format!("{nx}x{ny}x{nz}"),
            "too many unknowns",
        ));
    };
    let mut row_ptr = Vec::with_capacity(n + 1);
    let mut col_idx = Vec::with_capacity(nnz);
    let mut values = Vec::with_capacity(nnz);
    let mut b = Vec::with_capacity(n);
    row_ptr.push(0);
    for iz in 0..nz {
        for iy in 0..ny {
            for ix in 0..nx {
                let row = iz * nx * ny + iy * nx + ix;
                let mut nnz = 0usize;
                for sz in -1i64..=1 {
                    for sy in -1i64..=1 {
                        for sx in -1i64..=1 {
                            let (z, y, x) = (iz as i64 + sz, iy as i64 + sy, ix as i64 + sx);
                            if z < 0
                                || y < 0
                                || x < 0
                                || z >= nz as i64
                                || y >= ny as i64
                                || x >= nx as i64
                            {
                                continue;
                            }
                            let col = (z as usize) * nx * ny + (y as usize) * nx + x as usize;
                            col_idx.push(col);
                            values.push(if col == row { 27.0 } else { -1.0 });
                            nnz += 1;
                        }
                    }
                }
                b.push(27.0 - (nnz as f64 - 1.0));
                row_ptr.push(col_idx.len());
            }
        }
    }
    Ok(Hpccg {
        a: CsrMatrix::new(n, n, row_ptr, col_idx, values)?,
        b,
        x_exact: vec![1.0; n],
    })
}

/// The nonzeros of the `nx x ny x nz` problem's matrix, `(3 nx - 2)(3 ny -
/// 2)(3 nz - 2)` (per axis, the pairs of cells at most one apart), or `None`
/// if a dimension is 0 or the count overflows. Below `27 nx ny nz` by the
/// missing neighbours of the boundary cells: 2.5 x 10^8 against 2.7 x 10^8
/// for the paper's 1000x1000x10.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::hpccg::{generate, nonzeros};
/// for (x, y, z) in [(1, 1, 1), (3, 3, 3), (2, 5, 1), (4, 1, 3)] {
///     assert_eq!(nonzeros(x, y, z), Some(generate(x, y, z).unwrap().a.nnz()));
/// }
/// assert_eq!(nonzeros(1000, 1000, 10), Some(2998 * 2998 * 28));
/// assert_eq!(nonzeros(0, 3, 3), None);
/// assert_eq!(nonzeros(usize::MAX, 3, 3), None);
/// ```
pub fn nonzeros(nx: usize, ny: usize, nz: usize) -> Option<usize> {
    let per_axis = |d: usize| d.checked_mul(3)?.checked_sub(2);
    per_axis(nx)?
        .checked_mul(per_axis(ny)?)?
        .checked_mul(per_axis(nz)?)
}

/// Parses `NXxNYxNZ`, e.g. `100x100x10`.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::hpccg::parse_dims;
/// assert_eq!(parse_dims("100x100x10"), Ok((100, 100, 10)));
/// for bad in ["100x100", "0x1x1", "1x1x1x1", "axbxc", "-1x2x3", ""] {
///     assert!(parse_dims(bad).unwrap_err().starts_with(&format!("`{bad}`")));
/// }
/// ```
pub fn parse_dims(s: &str) -> Result<(usize, usize, usize), String> {
    let parts: Vec<_> = s.split('x').map(str::parse::<usize>).collect();
    match parts[..] {
        [Ok(a), Ok(b), Ok(c)] if a > 0 && b > 0 && c > 0 => Ok((a, b, c)),
        _ => Err(format!(
            "`{s}`: expected NXxNYxNZ with positive integers, e.g. 100x100x10"
        )),
    }
}
