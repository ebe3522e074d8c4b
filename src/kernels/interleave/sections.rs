//! Step 2: the subsections (Freytag 2023, §4.2.2, Fig. 4.5): the plane of
//! iterations `[0, N]` (x) and accuracy loss `[0, L_max]` (y) split into
//! `n x n` cells, `L_max` being the largest loss of the approximate profile.
//!
//! Choices where the thesis is silent (documented in docs/interleave.md):
//! - `L_max` is the *largest* loss of the approximate profile's measured
//!   rows (§4.2.2 "the maximum loss of accuracy reached during the
//!   execution"), not its final one.
//! - Cell `(col, row)` covers `x_col <= i < x_{col+1}` and
//!   `y_row <= L < y_{row+1}`, with `x_k = k N / n` and `y_k = k L_max / n`
//!   (binary64, as written in the sections file; `y_n` is `L_max` exactly); the last column and row
//!   include their upper edge. Points beyond `[0, N] x [0, L_max]` belong to
//!   no cell ([`SectionGrid::locate`]); the simulation clamps them into the
//!   grid ([`SectionGrid::locate_clamped`]).
//! - Cells are numbered row by row from the bottom left (id 0, where every
//!   simulation starts: "the first subsection, which is always located at
//!   the bottom left", §4.2.6).
//! - At most `n <= N` parts per axis (a narrower column holds no iteration)
//!   and `n^2 <=` [`MAX_CELLS`] cells, and `N <=`
//!   [`MAX_ITERATIONS`]: the thesis uses
//!   4 to 36 cells, and a count from a sections file or `--sections` must
//!   be refused before anything is allocated for it (a header claiming
//!   200000 parts aborted on a 2.9 TB allocation until 2026-11-25; review).

use super::error::{InterleaveError, Result};
use super::profile::Profile;
use super::schedule::MAX_ITERATIONS;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// The most cells (`n^2`) a subsection grid may have.
///
/// The thesis samples 2 to 6 parts per axis (4 to 36 cells), and step 3
/// forks at least one run per cell the approximate profile crosses, so a
/// few hundred parts per axis is already more sampling than anyone runs;
/// 2^16 cells (256 per axis) keeps the sections file, the statistics and
/// the forks small while leaving ample room above the thesis.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::sections::{MAX_CELLS, SectionGrid};
/// assert_eq!(MAX_CELLS, 256 * 256);
/// assert!(SectionGrid::new(256, 1000, 0.1).is_ok());
/// assert!(SectionGrid::new(257, 1000, 0.1).is_err());
/// ```
pub const MAX_CELLS: usize = 1 << 16;

/// The column line of the sections file.
const CSV_COLUMNS: &str = "id,x_start,x_end,y_start,y_end,x_center,y_center";

/// One subsection.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Section {
    /// Identifier: `row * n + col`.
    pub id: usize,
    /// Column (iterations axis).
    pub col: usize,
    /// Row (loss axis).
    pub row: usize,
    /// Iterations from.
    pub x_start: f64,
    /// Iterations to.
    pub x_end: f64,
    /// Loss from.
    pub y_start: f64,
    /// Loss to.
    pub y_end: f64,
    /// Centre, iterations.
    pub x_center: f64,
    /// Centre, loss.
    pub y_center: f64,
}

/// The `n x n` subsections of `[0, N] x [0, L_max]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SectionGrid {
    n: usize,
    iterations: usize,
    max_loss: f64,
    x: Vec<f64>,
    y: Vec<f64>,
}

impl SectionGrid {
    /// `n` parts per axis over `iterations` iterations and losses up to `max_loss`.
    ///
    /// # Errors
    /// [`InterleaveError::InvalidParameter`] naming the parameter: `n = 0`,
    /// `n` above `iterations` or `n^2` above [`MAX_CELLS`], `iterations = 0`
    /// or above [`MAX_ITERATIONS`], or `max_loss` not positive and finite
    /// (an approximate kernel without loss gives nothing to interleave).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(2, 100, 0.04).unwrap();
    /// assert_eq!(g.locate(0, 0.0), Some(0));
    /// assert_eq!(g.locate(50, 0.0), Some(1));
    /// assert_eq!(g.locate(100, 0.04), Some(3)); // upper edges belong to the last cells
    /// assert_eq!(g.locate(10, 0.05), None);
    /// assert_eq!(g.locate_clamped(10, 0.05), 2);
    /// ```
    pub fn new(n: usize, iterations: usize, max_loss: f64) -> Result<SectionGrid> {
        if n == 0 {
            return Err(InterleaveError::parameter(
                "sections",
                n,
                "at least 1 part per axis",
            ));
        }
        if iterations == 0 || iterations > MAX_ITERATIONS {
            return Err(InterleaveError::parameter(
                "iterations",
                iterations,
                format!("must be in 1..={MAX_ITERATIONS}"),
            ));
        }
        // Checked before anything is allocated: `n + 1` edges per axis, and
        // `n^2` cells in the file, the statistics and the sampling.
        if n > iterations {
            return Err(InterleaveError::parameter(
                "sections",
                n,
                format!(
                    "more parts per axis than the {iterations} iterations (a column would hold no iteration)"
                ),
            ));
        }
        if n.checked_mul(n).is_none_or(|cells| cells > MAX_CELLS) {
            return Err(InterleaveError::parameter(
                "sections",
                n,
                format!("n^2 cells must not exceed {MAX_CELLS} (at most 256 parts per axis)"),
            ));
        }
        if !(max_loss.is_finite() && max_loss > 0.0) {
            return Err(InterleaveError::parameter(
                "max_loss",
                max_loss,
                "the approximate profile's largest loss must be positive and finite",
            ));
        }
        let x = (0..=n)
            .map(|k| (k * iterations) as f64 / n as f64)
            .collect();
        // y_n is L_max itself: `n * L_max / n` can round 1 ulp below it
        // (n = 180, L_max = 0.44544265533539595), which would leave the
        // largest loss above the written top edge of its own cell.
        let y = (0..=n)
            .map(|k| {
                if k == n {
                    max_loss
                } else {
                    k as f64 * max_loss / n as f64
                }
            })
            .collect();
        Ok(SectionGrid {
            n,
            iterations,
            max_loss,
            x,
            y,
        })
    }

    /// The grid over an approximate profile: `N` its last iteration,
    /// `L_max` its largest loss.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, profile::{Profile, Row}};
    /// use boundgate::kernels::interleave::{sections::SectionGrid, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // the loss peaks at 0.5 (iteration 2), before the end
    /// let p = Profile::new(vec![row(0, 0.0), row(1, 0.25), row(2, 0.5), row(3, 0.375)]).unwrap();
    /// let g = SectionGrid::from_profile(&p, 3).unwrap();
    /// assert_eq!((g.n(), g.iterations(), g.max_loss()), (3, 3, 0.5));
    /// // an approximate kernel without loss leaves nothing to interleave
    /// let flat = Profile::new(vec![row(0, 0.0), row(1, 0.0)]).unwrap();
    /// assert!(matches!(SectionGrid::from_profile(&flat, 1),
    ///     Err(InterleaveError::InvalidParameter { name, .. }) if name == "max_loss"));
    /// ```
    pub fn from_profile(profile: &Profile, n: usize) -> Result<SectionGrid> {
        SectionGrid::new(n, profile.last_iteration(), profile.max_loss())
    }

    /// Parts per axis.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// assert_eq!(SectionGrid::new(4, 100, 0.04).unwrap().n(), 4);
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }
    /// Total iterations `N`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// assert_eq!(SectionGrid::new(4, 100, 0.04).unwrap().iterations(), 100);
    /// ```
    pub fn iterations(&self) -> usize {
        self.iterations
    }
    /// `L_max`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(4, 100, 0.04).unwrap();
    /// assert_eq!(g.max_loss(), 0.04);
    /// assert_eq!(g.section(g.len() - 1).y_end, 0.04); // the top edge of the top row
    /// ```
    pub fn max_loss(&self) -> f64 {
        self.max_loss
    }
    /// Number of cells.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// assert_eq!(SectionGrid::new(3, 10, 0.3).unwrap().len(), 9); // n^2, not n
    /// assert_eq!(SectionGrid::new(3, 10, 0.3).unwrap().sections().len(), 9);
    /// ```
    pub fn len(&self) -> usize {
        self.n * self.n
    }
    /// Whether there are no cells (never, after [`SectionGrid::new`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(1, 10, 0.3).unwrap();
    /// assert!(!g.is_empty() && g.len() == 1); // the smallest grid has one cell
    /// ```
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Cell `id`.
    ///
    /// # Panics
    /// When `id >= self.len()`, like a slice index ([`SectionGrid::locate`]
    /// only returns ids below it).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(2, 100, 1.0).unwrap();
    /// // id 1 = row 0, col 1: iterations 50..100, losses 0..0.5
    /// let s = g.section(1);
    /// assert_eq!((s.col, s.row), (1, 0));
    /// assert_eq!((s.x_start, s.x_end, s.y_start, s.y_end), (50.0, 100.0, 0.0, 0.5));
    /// assert_eq!((s.x_center, s.y_center), (75.0, 0.25));
    /// ```
    pub fn section(&self, id: usize) -> Section {
        let (row, col) = (id / self.n, id % self.n);
        Section {
            id,
            col,
            row,
            x_start: self.x[col],
            x_end: self.x[col + 1],
            y_start: self.y[row],
            y_end: self.y[row + 1],
            x_center: (self.x[col] + self.x[col + 1]) / 2.0,
            y_center: (self.y[row] + self.y[row + 1]) / 2.0,
        }
    }

    /// Every cell, by id.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(3, 12, 0.75).unwrap();
    /// let all = g.sections();
    /// assert!(all.iter().enumerate().all(|(k, s)| s.id == k && s.id == s.row * 3 + s.col));
    /// // row by row from the bottom left: cell 3 starts the second row
    /// assert_eq!((all[3].col, all[3].row, all[3].x_start, all[3].y_start), (0, 1, 0.0, 0.25));
    /// ```
    pub fn sections(&self) -> Vec<Section> {
        (0..self.len()).map(|id| self.section(id)).collect()
    }

    fn column(&self, i: usize) -> Option<usize> {
        if i > self.iterations {
            return None;
        }
        // x_k = k N / n exactly for the integer comparison i n < (k + 1) N.
        Some((i * self.n / self.iterations).min(self.n - 1))
    }

    fn row_of(&self, loss: f64) -> Option<usize> {
        if !(loss >= 0.0 && loss <= self.max_loss) {
            return None;
        }
        // The last boundary with y_row <= loss.
        let row = self.y[..self.n]
            .iter()
            .rposition(|&y| y <= loss)
            .unwrap_or(0);
        Some(row)
    }

    /// The cell holding the point `(i, loss)`, if any.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(2, 10, 1.0).unwrap();
    /// assert_eq!(g.locate(4, 0.5), Some(2)); // column 0 (4 < 5), row 1 (0.5 is its lower edge)
    /// assert_eq!(g.locate(5, 0.49), Some(1));
    /// assert_eq!(g.locate(10, 1.0), Some(3)); // the upper edges belong to the last cells
    /// assert_eq!(g.locate(11, 0.5), None);
    /// assert_eq!(g.locate(0, -1e-300), None);
    /// assert_eq!(g.locate(0, f64::NAN), None);
    /// ```
    pub fn locate(&self, i: usize, loss: f64) -> Option<usize> {
        Some(self.row_of(loss)? * self.n + self.column(i)?)
    }

    /// The cell holding the point, with `i` clamped to `[0, N]` and the loss
    /// to `[0, L_max]` (a loss above `L_max` is in the top row).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(2, 10, 1.0).unwrap();
    /// assert_eq!(g.locate_clamped(11, 0.25), 1); // past N: last column
    /// assert_eq!(g.locate_clamped(0, 7.0), 2); // above L_max: top row
    /// assert_eq!(g.locate_clamped(99, -3.0), 1);
    /// assert_eq!(g.locate_clamped(3, f64::NAN), 0); // NaN counts as loss 0
    /// assert_eq!(g.locate_clamped(6, 0.75), g.locate(6, 0.75).unwrap());
    /// ```
    pub fn locate_clamped(&self, i: usize, loss: f64) -> usize {
        let loss = if loss.is_nan() {
            0.0
        } else {
            loss.clamp(0.0, self.max_loss)
        };
        let col = self.column(i.min(self.iterations)).expect("clamped");
        let row = self.row_of(loss).expect("clamped");
        row * self.n + col
    }

    /// Distance from `(i, loss)` to a cell's centre, in cell widths and
    /// heights (so both axes weigh alike).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// // cells 50 iterations wide and 0.5 high; cell 0's centre is (25, 0.25)
    /// let g = SectionGrid::new(2, 100, 1.0).unwrap();
    /// assert_eq!(g.centre_distance(0, 25, 0.25), 0.0);
    /// assert_eq!(g.centre_distance(0, 75, 0.25), 1.0); // one width away
    /// assert_eq!(g.centre_distance(0, 225, 1.75), 5.0); // 4 widths and 3 heights
    /// ```
    pub fn centre_distance(&self, id: usize, i: usize, loss: f64) -> f64 {
        let s = self.section(id);
        let dx = (i as f64 - s.x_center) / (s.x_end - s.x_start);
        let dy = (loss - s.y_center) / (s.y_end - s.y_start);
        dx.hypot(dy)
    }

    /// The sections file: `id,x_start,x_end,y_start,y_end,x_center,y_center`
    /// (§4.2.2: "the subsection identifier, start and end points for both
    /// axes, and the center of each subsection"), preceded by a comment line
    /// with `n`, `N` and `L_max`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// let g = SectionGrid::new(2, 4, 0.5).unwrap();
    /// assert_eq!(g.to_csv(), "# sections=2 iterations=4 max_loss=0.5\n\
    ///     id,x_start,x_end,y_start,y_end,x_center,y_center\n\
    ///     0,0,2,0,0.25,1,0.125\n1,2,4,0,0.25,3,0.125\n\
    ///     2,0,2,0.25,0.5,1,0.375\n3,2,4,0.25,0.5,3,0.375\n");
    /// ```
    pub fn to_csv(&self) -> String {
        let mut out = format!(
            "# sections={} iterations={} max_loss={}\n{CSV_COLUMNS}\n",
            self.n, self.iterations, self.max_loss
        );
        for id in 0..self.len() {
            let _ = writeln!(out, "{}", self.csv_row(id));
        }
        out
    }

    /// Line `id` of the sections file (after the comment and column lines).
    fn csv_row(&self, id: usize) -> String {
        let s = self.section(id);
        format!(
            "{},{},{},{},{},{},{}",
            s.id, s.x_start, s.x_end, s.y_start, s.y_end, s.x_center, s.y_center
        )
    }

    /// Parses a sections file written by [`SectionGrid::to_csv`], checking
    /// that every cell is the one `n`, `N` and `L_max` define.
    ///
    /// # Errors
    /// [`InterleaveError::File`] naming the line and field: a first line
    /// without `sections`, `iterations` and `max_loss`, values that
    /// [`SectionGrid::new`] refuses (so a huge count is refused before
    /// anything is allocated), a row other than the expected one, too many
    /// or too few rows.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::sections::SectionGrid;
    /// use std::path::Path;
    /// let g = SectionGrid::new(2, 10, 0.5).unwrap();
    /// assert_eq!(SectionGrid::parse(&g.to_csv(), Path::new("s.csv")).unwrap(), g);
    /// let huge = "# sections=200000 iterations=60 max_loss=0.05\n";
    /// let err = SectionGrid::parse(huge, Path::new("s.csv")).unwrap_err();
    /// assert!(err.to_string().starts_with("s.csv:1: sections: 200000"), "{err}");
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<SectionGrid> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, first) = lines
            .next()
            .ok_or_else(|| InterleaveError::file(path, None, "header", "the file is empty"))?;
        let mut fields = std::collections::BTreeMap::new();
        for part in first.trim_start_matches('#').split_whitespace() {
            if let Some((k, v)) = part.split_once('=') {
                fields.insert(k, v);
            }
        }
        let get = |k: &str| {
            fields.get(k).copied().ok_or_else(|| {
                InterleaveError::file(path, Some(1), k, "missing from the first line")
            })
        };
        let n: usize = get("sections")?
            .parse()
            .map_err(|_| InterleaveError::file(path, Some(1), "sections", "not a count"))?;
        let iterations: usize = get("iterations")?
            .parse()
            .map_err(|_| InterleaveError::file(path, Some(1), "iterations", "not a count"))?;
        let max_loss: f64 = get("max_loss")?
            .parse()
            .map_err(|_| InterleaveError::file(path, Some(1), "max_loss", "not a number"))?;
        let grid = SectionGrid::new(n, iterations, max_loss).map_err(|e| match e {
            InterleaveError::InvalidParameter {
                name,
                value,
                reason,
            } => InterleaveError::file(path, Some(1), name, format!("{value}: {reason}")),
            other => InterleaveError::file(path, Some(1), "sections", other.to_string()),
        })?;
        // The expected lines one at a time, as the file's are compared: a
        // file cut short or edited is refused without building the whole
        // expected text.
        let mut want = std::iter::once(CSV_COLUMNS.to_string())
            .chain((0..grid.len()).map(|id| grid.csv_row(id)));
        for (index, line) in lines {
            match want.next() {
                Some(w) if w == line.trim() => {}
                Some(w) => {
                    return Err(InterleaveError::file(
                        path,
                        Some(index + 1),
                        "row",
                        format!("`{line}` is inconsistent with the first line (expected `{w}`)"),
                    ));
                }
                None => {
                    return Err(InterleaveError::file(
                        path,
                        Some(index + 1),
                        "row",
                        "more rows than cells",
                    ));
                }
            }
        }
        if want.next().is_some() {
            return Err(InterleaveError::file(
                path,
                None,
                "rows",
                format!("fewer than {} cells", grid.len()),
            ));
        }
        Ok(grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_point_of_the_plane_is_in_exactly_one_cell() {
        let g = SectionGrid::new(3, 10, 0.3).unwrap();
        for i in 0..=10 {
            for k in 0..=30 {
                let loss = k as f64 * 0.01;
                let id = g.locate(i, loss.min(0.3)).unwrap();
                let s = g.section(id);
                assert!(s.x_start <= i as f64 && (i as f64) <= s.x_end);
                assert!(s.y_start <= loss.min(0.3) && loss.min(0.3) <= s.y_end);
            }
        }
        assert_eq!(g.locate(11, 0.0), None);
        assert_eq!(g.locate(0, -1e-9), None);
        assert_eq!(g.locate(0, f64::NAN), None);
    }

    #[test]
    fn the_top_edge_is_the_largest_loss_itself() {
        // 180 * (L / 180) rounds 1 ulp below L for this L: the top edge must
        // still be L, so the largest loss lies inside its own cell.
        let max_loss = 0.44544265533539595;
        assert!(180.0 * max_loss / 180.0 < max_loss);
        let g = SectionGrid::new(180, 1000, max_loss).unwrap();
        let top = g.section(g.locate(1000, max_loss).unwrap());
        assert_eq!(top.y_end, max_loss);
        assert!(top.y_start <= max_loss);
    }

    #[test]
    fn file_round_trips_and_rejects_edits() {
        let g = SectionGrid::new(4, 500, 0.044).unwrap();
        let text = g.to_csv();
        assert_eq!(SectionGrid::parse(&text, Path::new("s.csv")).unwrap(), g);
        let edited = text.replacen("\n5,", "\n6,", 1);
        assert!(SectionGrid::parse(&edited, Path::new("s.csv")).is_err());
        let short: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        assert!(SectionGrid::parse(&short, Path::new("s.csv")).is_err());
        assert!(
            SectionGrid::parse("# sections=0 iterations=5 max_loss=1\n", Path::new("s.csv"))
                .is_err()
        );
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(SectionGrid::new(0, 10, 1.0).is_err());
        assert!(SectionGrid::new(2, 0, 1.0).is_err());
        assert!(SectionGrid::new(2, 10, 0.0).is_err());
        assert!(SectionGrid::new(2, 10, f64::INFINITY).is_err());
    }

    fn refused_parameter(result: Result<SectionGrid>) -> String {
        match result {
            Err(InterleaveError::InvalidParameter { name, .. }) => name,
            other => panic!("expected an invalid parameter, got {other:?}"),
        }
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        // Until 2026-11-25 (review) these were accepted, allocating `n + 1`
        // edges (34 GB for 2^32) and, downstream, `n^2` cells.
        assert_eq!(
            refused_parameter(SectionGrid::new(100_000, 60, 0.04)),
            "sections"
        );
        assert_eq!(
            refused_parameter(SectionGrid::new(4_294_967_296, MAX_ITERATIONS, 0.04)),
            "sections"
        );
        assert_eq!(
            refused_parameter(SectionGrid::new(usize::MAX, MAX_ITERATIONS, 0.04)),
            "sections"
        );
        assert_eq!(
            refused_parameter(SectionGrid::new(257, 1000, 0.04)),
            "sections"
        );
        // More parts than iterations: a column would hold no iteration.
        assert_eq!(refused_parameter(SectionGrid::new(4, 3, 0.04)), "sections");
        assert_eq!(
            refused_parameter(SectionGrid::new(2, MAX_ITERATIONS + 1, 0.04)),
            "iterations"
        );
        assert!(SectionGrid::new(256, 256, 0.04).is_ok());
        assert!(SectionGrid::new(3, 3, 0.04).is_ok());
    }

    #[test]
    fn hostile_sections_files_are_refused_with_their_field() {
        let cases = [
            (
                "# sections=200000 iterations=60 max_loss=0.0454\n",
                "sections",
            ),
            (
                "# sections=4294967296 iterations=60 max_loss=0.0454\n",
                "sections",
            ),
            // k N overflowed usize in the edges (a debug-build panic) until 2026-11-25.
            (
                "# sections=2 iterations=18446744073709551615 max_loss=1\n",
                "iterations",
            ),
            // The largest grid allowed, cut short: refused without building its text.
            (
                "# sections=256 iterations=1000 max_loss=1\nid,x_start,x_end,y_start,y_end,x_center,y_center\n",
                "rows",
            ),
        ];
        for (text, want) in cases {
            match SectionGrid::parse(text, Path::new("s.csv")) {
                Err(InterleaveError::File { field, line, .. }) => {
                    assert_eq!(field, want, "{text}");
                    assert_eq!(line, (want != "rows").then_some(1), "{text}");
                }
                other => panic!("{text}: expected a file error, got {other:?}"),
            }
        }
    }
}
