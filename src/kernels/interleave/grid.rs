//! The 3-D grid of a stencil application, laid out as Rodinia's HotSpot3D lays
//! it out: cell `(x, y, z)` at index `x + y nx + z nx ny` (Rodinia 3.1,
//! `cuda/hotspot3D/3D.cu`, `computeTempCPU`: `c = x + y * nx + z * nx * ny`).

use super::error::{InterleaveError, Result};
use std::fmt;
use std::str::FromStr;

/// Grid dimensions: `nx` columns, `ny` rows, `nz` layers, all at least 1.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::grid::Grid3;
/// let g: Grid3 = "512x512x8".parse().unwrap();
/// assert_eq!(g.cells(), 2_097_152);
/// assert_eq!(g.index(1, 2, 3), 1 + 2 * 512 + 3 * 512 * 512);
/// assert!("0x4x4".parse::<Grid3>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grid3 {
    nx: usize,
    ny: usize,
    nz: usize,
}

impl Grid3 {
    /// A grid; every dimension must be at least 1 and the cell count at most
    /// 2^28, the limit of every generated input (which also fits the CUDA
    /// kernels' 32-bit indices): up to `u32::MAX` cells were accepted, and
    /// `60000x60000x1` aborted allocating 28.8 GB (review, 2026-11-26).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, grid::Grid3};
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.cells(), 60); // 3 * 4 * 5
    /// assert!(matches!(Grid3::new(3, 0, 5), Err(InterleaveError::EmptyGrid { .. })));
    /// // 2^28 cells is the most; one more row of 2^14 is refused
    /// assert!(Grid3::new(1 << 14, 1 << 14, 1).is_ok());
    /// assert!(matches!(Grid3::new((1 << 14) + 1, 1 << 14, 1), Err(InterleaveError::EmptyGrid { .. })));
    /// // an overflowing product is refused, not wrapped
    /// assert!(matches!(Grid3::new(usize::MAX, 2, 1), Err(InterleaveError::EmptyGrid { .. })));
    /// ```
    pub fn new(nx: usize, ny: usize, nz: usize) -> Result<Grid3> {
        let refuse = |reason: &str| InterleaveError::EmptyGrid {
            nx,
            ny,
            nz,
            reason: reason.to_string(),
        };
        if nx == 0 || ny == 0 || nz == 0 {
            return Err(refuse("every dimension must be at least 1"));
        }
        let cells = nx
            .checked_mul(ny)
            .and_then(|c| c.checked_mul(nz))
            .ok_or_else(|| refuse("too many cells"))?;
        if cells > crate::audit::plan::MAX_INPUT_ELEMENTS {
            return Err(refuse("more than 2^28 cells"));
        }
        Ok(Grid3 { nx, ny, nz })
    }

    /// Cells along x (columns).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.nx(), 3);
    /// assert_eq!("7x1x1".parse::<Grid3>().unwrap().nx(), 7);
    /// ```
    pub fn nx(&self) -> usize {
        self.nx
    }
    /// Cells along y (rows).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.ny(), 4);
    /// assert_eq!("1x7x1".parse::<Grid3>().unwrap().ny(), 7);
    /// ```
    pub fn ny(&self) -> usize {
        self.ny
    }
    /// Layers (z).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.nz(), 5);
    /// assert_eq!("1x1x7".parse::<Grid3>().unwrap().nz(), 7);
    /// ```
    pub fn nz(&self) -> usize {
        self.nz
    }
    /// Number of cells.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.cells(), 60); // 3 * 4 * 5
    /// // one past the last cell's index
    /// assert_eq!(g.index(2, 3, 4) + 1, g.cells());
    /// ```
    pub fn cells(&self) -> usize {
        self.nx * self.ny * self.nz
    }
    /// Cells in one layer.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// assert_eq!(g.layer(), 12); // 3 * 4
    /// // the stride between layers
    /// assert_eq!(g.index(1, 2, 1) - g.index(1, 2, 0), g.layer());
    /// ```
    pub fn layer(&self) -> usize {
        self.nx * self.ny
    }
    /// Index of cell `(x, y, z)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// let g = Grid3::new(3, 4, 5).unwrap();
    /// // x + y nx + z nx ny = 2 + 1 * 3 + 4 * 12 = 53
    /// assert_eq!(g.index(2, 1, 4), 53);
    /// assert_eq!(g.index(0, 0, 0), 0);
    /// assert_eq!(g.index(1, 0, 0), 1); // x is the fastest index
    /// ```
    pub fn index(&self, x: usize, y: usize, z: usize) -> usize {
        x + y * self.nx + z * self.nx * self.ny
    }
}

impl fmt::Display for Grid3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.nx, self.ny, self.nz)
    }
}

impl FromStr for Grid3 {
    type Err = InterleaveError;
    /// `NXxNYxNZ`, e.g. `512x512x8`.
    fn from_str(text: &str) -> Result<Grid3> {
        let parts: Vec<&str> = text.trim().split('x').collect();
        let bad = || InterleaveError::parameter("grid", text, "expected NXxNYxNZ, e.g. 512x512x8");
        if parts.len() != 3 {
            return Err(bad());
        }
        let dims: Vec<usize> = parts
            .iter()
            .map(|p| p.parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        Grid3::new(dims[0], dims[1], dims[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_dimensions_are_refused() {
        for (x, y, z) in [(0, 1, 1), (1, 0, 1), (1, 1, 0)] {
            assert!(matches!(
                Grid3::new(x, y, z),
                Err(InterleaveError::EmptyGrid { .. })
            ));
        }
        assert!(Grid3::new(usize::MAX, 2, 1).is_err());
        assert!(Grid3::new(1 << 20, 1 << 12, 1).is_err());
        // 2^28 cells is the most (the limit of every generated input).
        assert!(Grid3::new(1 << 14, 1 << 14, 1).is_ok());
        assert!(Grid3::new(60000, 60000, 1).is_err());
        assert!(Grid3::new((1 << 14) + 1, 1 << 14, 1).is_err());
    }

    #[test]
    fn parses_and_prints() {
        let g = Grid3::new(3, 4, 5).unwrap();
        assert_eq!(g.to_string().parse::<Grid3>().unwrap(), g);
        assert!("3x4".parse::<Grid3>().is_err());
        assert!("3x4xa".parse::<Grid3>().is_err());
    }
}
