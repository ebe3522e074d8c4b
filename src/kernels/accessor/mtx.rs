//! A Matrix Market reader (and a small writer) for the SpMV experiments.
//!
//! Format (NIST, *The Matrix Market Exchange Formats: Initial Design*, Boisvert,
//! Pozo and Remington, 1996): a banner `%%MatrixMarket matrix <format> <field>
//! <symmetry>`, comment lines starting with `%`, a size line, then entries.
//! Supported: format `coordinate` (size line `rows cols nnz`, entries `i j
//! value`, 1-based) and `array` (size line `rows cols`, values column by
//! column); field `real`, `integer` or `pattern` (coordinate only; every
//! value is 1); symmetry `general`, `symmetric` (the lower triangle is given;
//! each off-diagonal entry also stands for its mirror) or `skew-symmetric`
//! (mirror negated, no diagonal). `complex` and `hermitian` are refused.
//!
//! Every malformed input is a [`MtxError`] naming the file and the 1-based
//! line: a bad banner, a missing or malformed size line, an index out of
//! range, a value that is not a finite number, too few or too many entries,
//! extra tokens on a line. Values are parsed as `f64` with Rust's correctly
//! rounded decimal conversion; explicit zeros are kept as entries.

use super::sparse::CsrMatrix;
use crate::error::Error;
use std::fmt;
use std::path::{Path, PathBuf};

/// What is wrong with a Matrix Market file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MtxErrorKind {
    /// The file could not be read.
    Io,
    /// The banner line is missing or malformed.
    Banner,
    /// The banner names something this reader does not support.
    Unsupported,
    /// The size line is missing or malformed.
    Size,
    /// An entry line is malformed (tokens, index, value).
    Entry,
    /// The number of entries differs from the size line.
    Count,
}

/// A malformed Matrix Market file: the file, the line (1-based, when there is
/// one) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MtxError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, when the problem is on one.
    pub line: Option<usize>,
    /// The kind of problem.
    pub kind: MtxErrorKind,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for MtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for MtxError {}

impl From<MtxError> for Error {
    fn from(e: MtxError) -> Error {
        Error::usage(format!("Matrix Market: {e}"))
    }
}

/// Symmetry of a Matrix Market matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry is given.
    General,
    /// `a_ji = a_ij`; only the lower triangle is given.
    Symmetric,
    /// `a_ji = -a_ij`, zero diagonal; only the strictly lower triangle is given.
    SkewSymmetric,
}

/// A matrix read from a Matrix Market file, expanded to all its entries.
#[derive(Clone, Debug, PartialEq)]
pub struct MtxMatrix {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// The symmetry the file declared.
    pub symmetry: Symmetry,
    /// Every entry (0-based), mirrored entries after the given ones.
    pub entries: Vec<(usize, usize, f64)>,
}

impl MtxMatrix {
    /// As a CSR matrix (entries in file order within each row).
    ///
    /// # Errors
    /// [`Error::Usage`] for an entry outside `rows x cols`: never for a
    /// matrix [`parse_mtx`] returned (it checks every index), but the fields
    /// are public, so a matrix built or edited by hand is checked again.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::mtx::{MtxMatrix, Symmetry};
    /// let m = MtxMatrix { rows: 2, cols: 2, symmetry: Symmetry::General, entries: vec![(1, 0, 3.0)] };
    /// assert_eq!(m.to_csr().unwrap().row(1), (&[0usize][..], &[3.0][..]));
    /// let outside = MtxMatrix { entries: vec![(2, 0, 1.0)], ..m };
    /// assert!(outside.to_csr().is_err());
    /// ```
    pub fn to_csr(&self) -> crate::error::Result<CsrMatrix> {
        CsrMatrix::from_triplets(self.rows, self.cols, &self.entries)
    }
}

/// Reads a Matrix Market file.
///
/// # Errors
/// [`MtxError`] naming the file and line (module docs).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::mtx::{read_mtx, write_mtx, MtxErrorKind};
/// let dir = std::env::temp_dir().join(format!("boundgate-read-mtx-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("a.mtx");
/// write_mtx(&path, 2, 3, &[(0, 2, 0.1), (1, 0, -2.5)]).unwrap();
/// assert_eq!(read_mtx(&path).unwrap().entries, vec![(0, 2, 0.1), (1, 0, -2.5)]);
/// let missing = read_mtx(&dir.join("missing.mtx")).unwrap_err();
/// assert_eq!(missing.kind, MtxErrorKind::Io);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_mtx(path: &Path) -> Result<MtxMatrix, MtxError> {
    let text = std::fs::read_to_string(path).map_err(|e| MtxError {
        path: path.to_path_buf(),
        line: None,
        kind: MtxErrorKind::Io,
        reason: e.to_string(),
    })?;
    parse_mtx(path, &text)
}

/// Parses Matrix Market text; `path` only names the source in errors.
///
/// # Errors
/// [`MtxError`] naming `path` and the line.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::mtx::parse_mtx;
/// use std::path::Path;
/// let text = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n2 2 2\n1 1 4.0\n2 1 -1.5\n";
/// let m = parse_mtx(Path::new("a.mtx"), text).unwrap();
/// assert_eq!(m.entries, vec![(0, 0, 4.0), (1, 0, -1.5), (0, 1, -1.5)]);
/// let bad = "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n";
/// let err = parse_mtx(Path::new("b.mtx"), bad).unwrap_err();
/// assert_eq!(err.to_string(), "b.mtx:3: row index 3 is outside 1..=2");
/// ```
pub fn parse_mtx(path: &Path, text: &str) -> Result<MtxMatrix, MtxError> {
    let err = |line: Option<usize>, kind: MtxErrorKind, reason: String| MtxError {
        path: path.to_path_buf(),
        line,
        kind,
        reason,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (banner_line, banner) = lines.next().ok_or_else(|| {
        err(
            None,
            MtxErrorKind::Banner,
            "empty file (no %%MatrixMarket banner)".into(),
        )
    })?;
    let words: Vec<String> = banner.split_whitespace().map(str::to_lowercase).collect();
    if words.len() != 5 || words[0] != "%%matrixmarket" {
        return Err(err(
            Some(banner_line),
            MtxErrorKind::Banner,
            "expected `%%MatrixMarket matrix <format> <field> <symmetry>`".into(),
        ));
    }
    if words[1] != "matrix" {
        return Err(err(
            Some(banner_line),
            MtxErrorKind::Unsupported,
            format!("object `{}` is not supported (only `matrix`)", words[1]),
        ));
    }
    let coordinate = match words[2].as_str() {
        "coordinate" => true,
        "array" => false,
        other => {
            return Err(err(
                Some(banner_line),
                MtxErrorKind::Unsupported,
                format!("format `{other}` is not supported (coordinate, array)"),
            ));
        }
    };
    let pattern = match words[3].as_str() {
        "real" | "integer" | "double" => false,
        "pattern" if coordinate => true,
        other => {
            return Err(err(
                Some(banner_line),
                MtxErrorKind::Unsupported,
                format!("field `{other}` is not supported (real, integer, pattern)"),
            ));
        }
    };
    let symmetry = match words[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        other => {
            return Err(err(
                Some(banner_line),
                MtxErrorKind::Unsupported,
                format!("symmetry `{other}` is not supported (general, symmetric, skew-symmetric)"),
            ));
        }
    };
    // Skip comments and blank lines up to the size line.
    let mut data = lines.filter(|(_, l)| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('%')
    });
    let (size_line, size_text) = data
        .next()
        .ok_or_else(|| err(None, MtxErrorKind::Size, "missing size line".into()))?;
    let sizes: Vec<&str> = size_text.split_whitespace().collect();
    let expected = if coordinate { 3 } else { 2 };
    let parse_size = |t: &str| t.parse::<usize>().ok();
    let parsed: Option<Vec<usize>> = sizes.iter().map(|t| parse_size(t)).collect();
    let Some(sizes) = parsed.filter(|s| s.len() == expected) else {
        return Err(err(
            Some(size_line),
            MtxErrorKind::Size,
            format!(
                "expected {} non-negative integers ({}), got `{}`",
                expected,
                if coordinate {
                    "rows cols entries"
                } else {
                    "rows cols"
                },
                size_text.trim()
            ),
        ));
    };
    let (rows, cols) = (sizes[0], sizes[1]);
    if symmetry != Symmetry::General && rows != cols {
        return Err(err(
            Some(size_line),
            MtxErrorKind::Size,
            format!("a {} matrix must be square, got {rows}x{cols}", words[4]),
        ));
    }
    // The limit every generated input has (2^28 values): on rows, columns
    // and stored entries, checked before anything is allocated. A size line
    // of 10^14 entries aborted on a 2.4 PB allocation, an array's rows times
    // columns overflowed usize (a panic), and 10^9 rows allocated 8 GB
    // (review, 2026-11-26).
    let limit = crate::audit::plan::MAX_INPUT_ELEMENTS;
    let too_large = |what: &str, n: u128| {
        err(
            Some(size_line),
            MtxErrorKind::Size,
            format!("{what} = {n} exceeds the limit of 2^28"),
        )
    };
    for (what, n) in [("rows", rows), ("columns", cols)] {
        if n > limit {
            return Err(too_large(what, n as u128));
        }
    }
    let (r, c) = (rows as u128, cols as u128);
    let count = if coordinate {
        sizes[2] as u128
    } else {
        match symmetry {
            Symmetry::General => r * c,
            Symmetry::Symmetric => r * (r + 1) / 2,
            Symmetry::SkewSymmetric => r * r.saturating_sub(1) / 2,
        }
    };
    if count > limit as u128 {
        return Err(too_large("entries", count));
    }
    let count = count as usize;
    let parse_value = |line: usize, t: &str| -> Result<f64, MtxError> {
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(err(
                Some(line),
                MtxErrorKind::Entry,
                format!("value `{t}` is not a finite number"),
            )),
        }
    };
    let parse_index = |line: usize, t: &str, what: &str, max: usize| -> Result<usize, MtxError> {
        match t.parse::<usize>() {
            Ok(v) if (1..=max).contains(&v) => Ok(v - 1),
            Ok(v) => Err(err(
                Some(line),
                MtxErrorKind::Entry,
                format!("{what} index {v} is outside 1..={max}"),
            )),
            Err(_) => Err(err(
                Some(line),
                MtxErrorKind::Entry,
                format!("{what} index `{t}` is not a positive integer"),
            )),
        }
    };
    // Reserve only what the text can supply: every entry takes a line of at
    // least two bytes (a token and its line break), so a 46-byte file that
    // declares 2^28 entries reserves a few words, not 6.4 GB, before it
    // fails the count check (review, 2026-11-28).
    let mut given = Vec::with_capacity(reservable_entries(count, text));
    let mut last_line = size_line;
    // Array format: the position of the next value, column by column. Column
    // j of a symmetric (skew-symmetric) array holds rows j.. (j+1..) of the
    // lower triangle. A cursor, so reading n values costs O(n); recomputing
    // each position from its index walked the columns every time, O(n^1.5)
    // for a symmetric array (review, 2026-11-28).
    let first_row = usize::from(symmetry == Symmetry::SkewSymmetric);
    let mut array_cursor = (first_row, 0usize);
    let mut next_array_position = || -> (usize, usize) {
        let here = array_cursor;
        let (mut i, mut j) = here;
        i += 1;
        if i == rows {
            j += 1;
            i = match symmetry {
                Symmetry::General => 0,
                _ => j + first_row,
            };
        }
        array_cursor = (i, j);
        here
    };
    for (line, text) in data {
        last_line = line;
        if given.len() == count {
            return Err(err(
                Some(line),
                MtxErrorKind::Count,
                format!("more entries than the {count} the size line declares"),
            ));
        }
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let want = if coordinate {
            if pattern { 2 } else { 3 }
        } else {
            1
        };
        if tokens.len() != want {
            return Err(err(
                Some(line),
                MtxErrorKind::Entry,
                format!(
                    "expected {want} tokens, got {}: `{}`",
                    tokens.len(),
                    text.trim()
                ),
            ));
        }
        let (i, j, v) = if coordinate {
            let i = parse_index(line, tokens[0], "row", rows)?;
            let j = parse_index(line, tokens[1], "column", cols)?;
            let v = if pattern {
                1.0
            } else {
                parse_value(line, tokens[2])?
            };
            (i, j, v)
        } else {
            let (i, j) = next_array_position();
            (i, j, parse_value(line, tokens[0])?)
        };
        match symmetry {
            Symmetry::Symmetric if j > i => {
                return Err(err(
                    Some(line),
                    MtxErrorKind::Entry,
                    format!(
                        "entry ({}, {}) is above the diagonal of a symmetric matrix",
                        i + 1,
                        j + 1
                    ),
                ));
            }
            Symmetry::SkewSymmetric if j >= i => {
                return Err(err(
                    Some(line),
                    MtxErrorKind::Entry,
                    format!(
                        "entry ({}, {}) is not below the diagonal of a skew-symmetric matrix",
                        i + 1,
                        j + 1
                    ),
                ));
            }
            _ => {}
        }
        given.push((i, j, v));
    }
    if given.len() != count {
        return Err(err(
            Some(last_line),
            MtxErrorKind::Count,
            format!(
                "{} entries, but the size line declares {count}",
                given.len()
            ),
        ));
    }
    let mut entries = given.clone();
    for &(i, j, v) in &given {
        match symmetry {
            Symmetry::Symmetric if i != j => entries.push((j, i, v)),
            Symmetry::SkewSymmetric => entries.push((j, i, -v)),
            _ => {}
        }
    }
    Ok(MtxMatrix {
        rows,
        cols,
        symmetry,
        entries,
    })
}

/// How many entries to reserve for `declared` entries read from `text`: no
/// more than the text can hold, since every entry line has at least one token
/// and a line break (two bytes; the last line may lack the break).
fn reservable_entries(declared: usize, text: &str) -> usize {
    declared.min(text.len() / 2 + 1)
}

/// Writes a general real coordinate Matrix Market file (values with 17
/// significant digits, so they read back exactly).
///
/// # Errors
/// [`Error::Io`] if the file cannot be written.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::mtx::{parse_mtx, write_mtx};
/// let dir = std::env::temp_dir().join(format!("boundgate-write-mtx-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("third.mtx");
/// // 17 significant digits: the value reads back bit for bit.
/// write_mtx(&path, 1, 1, &[(0, 0, 1.0 / 3.0)]).unwrap();
/// let text = std::fs::read_to_string(&path).unwrap();
/// assert_eq!(parse_mtx(&path, &text).unwrap().entries[0].2, 1.0 / 3.0);
/// assert!(write_mtx(&dir.join("no/such/dir.mtx"), 1, 1, &[]).is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_mtx(
    path: &Path,
    rows: usize,
    cols: usize,
    entries: &[(usize, usize, f64)],
) -> crate::error::Result<()> {
    let mut text = format!(
        "%%MatrixMarket matrix coordinate real general\n% written by boundgate\n{rows} {cols} {}\n",
        entries.len()
    );
    for &(i, j, v) in entries {
        text.push_str(&format!("{} {} {v:.17e}\n", i + 1, j + 1));
    }
    std::fs::write(path, text).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<MtxMatrix, MtxError> {
        parse_mtx(Path::new("t.mtx"), text)
    }

    #[test]
    fn reserves_no_more_entries_than_the_text_can_hold() {
        // A 46-byte file declaring 2^28 entries: the reservation is bounded by
        // the text (it was 2^28 x 24 bytes = 6.4 GB), and reading fails on the
        // count with the declared number in the message.
        let text = "%%MatrixMarket matrix coordinate real general\n16384 16384 268435456\n1 1 1\n";
        assert!(reservable_entries(1 << 28, text) <= text.len() / 2 + 1);
        assert_eq!(reservable_entries(3, text), 3);
        let e = parse(text).unwrap_err();
        assert_eq!(e.kind, MtxErrorKind::Count);
        assert!(e.reason.contains("268435456"), "{e}");
    }

    #[test]
    fn array_values_fill_the_lower_triangle_column_by_column() {
        // 4x4 symmetric: 10 values, columns 0..4 holding rows j..4; skew:
        // 6 values, rows j+1..4. Values are numbered so each position shows
        // which value landed there.
        let values = |n: usize| (1..=n).map(|v| format!("{v}\n")).collect::<String>();
        let m = parse(&format!(
            "%%MatrixMarket matrix array real symmetric\n4 4\n{}",
            values(10)
        ))
        .unwrap();
        let given: Vec<(usize, usize)> = m.entries[..10].iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(
            given,
            vec![
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 0),
                (1, 1),
                (2, 1),
                (3, 1),
                (2, 2),
                (3, 2),
                (3, 3)
            ]
        );
        assert_eq!(m.entries.len(), 16);
        let m = parse(&format!(
            "%%MatrixMarket matrix array real skew-symmetric\n4 4\n{}",
            values(6)
        ))
        .unwrap();
        let given: Vec<(usize, usize, f64)> = m.entries[..6].to_vec();
        assert_eq!(
            given,
            vec![
                (1, 0, 1.0),
                (2, 0, 2.0),
                (3, 0, 3.0),
                (2, 1, 4.0),
                (3, 1, 5.0),
                (3, 2, 6.0)
            ]
        );
        assert_eq!(m.entries.len(), 12);
        // A 3x2 general array is column-major with the cursor wrapping rows.
        let m = parse(&format!(
            "%%MatrixMarket matrix array real general\n3 2\n{}",
            values(6)
        ))
        .unwrap();
        let order: Vec<(usize, usize)> = m.entries.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(order, vec![(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
        // One value too many on a symmetric array is a count error.
        let e = parse(&format!(
            "%%MatrixMarket matrix array real symmetric\n4 4\n{}",
            values(11)
        ))
        .unwrap_err();
        assert_eq!(e.kind, MtxErrorKind::Count);
    }

    #[test]
    fn reads_every_supported_layout() {
        let m =
            parse("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n").unwrap();
        assert_eq!(m.entries, vec![(0, 2, 1.0), (1, 0, 1.0)]);
        let m = parse("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n").unwrap();
        assert_eq!(
            m.entries,
            vec![(0, 0, 1.0), (1, 0, 2.0), (0, 1, 3.0), (1, 1, 4.0)]
        );
        let m = parse("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n").unwrap();
        assert_eq!(
            m.entries,
            vec![(0, 0, 1.0), (1, 0, 2.0), (1, 1, 3.0), (0, 1, 2.0)]
        );
        let m = parse("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 5\n")
            .unwrap();
        assert_eq!(m.entries, vec![(1, 0, 5.0), (0, 1, -5.0)]);
        let m = parse("%%matrixmarket MATRIX Coordinate Real General\n\n%c\n1 1 1\n 1  1  0.1 \n")
            .unwrap();
        assert_eq!(m.entries, vec![(0, 0, 0.1)]);
        let csr =
            parse("%%MatrixMarket matrix coordinate real general\n2 2 3\n2 2 1\n1 2 2\n2 1 3\n")
                .unwrap()
                .to_csr()
                .unwrap();
        assert_eq!(csr.row(1), (&[1usize, 0][..], &[1.0, 3.0][..]));
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases: &[(&str, Option<usize>, MtxErrorKind)] = &[
            ("", None, MtxErrorKind::Banner),
            (
                "%%MatrixMarket matrix coordinate real\n",
                Some(1),
                MtxErrorKind::Banner,
            ),
            ("hello\n", Some(1), MtxErrorKind::Banner),
            (
                "%%MatrixMarket vector coordinate real general\n",
                Some(1),
                MtxErrorKind::Unsupported,
            ),
            (
                "%%MatrixMarket matrix coordinate complex general\n",
                Some(1),
                MtxErrorKind::Unsupported,
            ),
            (
                "%%MatrixMarket matrix coordinate real hermitian\n",
                Some(1),
                MtxErrorKind::Unsupported,
            ),
            (
                "%%MatrixMarket matrix array pattern general\n",
                Some(1),
                MtxErrorKind::Unsupported,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n% only comments\n",
                None,
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 -2 1\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            // Sizes beyond 2^28 values, refused before any allocation (a
            // 2.4 PB allocation abort, a usize overflow panic and an 8 GB
            // allocation until 2026-11-26).
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 100000000000000\n1 1 1.0\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix array real general\n100000000000 100000000000\n1.0\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix array real symmetric\n10000000000 10000000000\n1.0\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 1\n1 1 1.0\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix array real general\n16385 16384\n1.0\n",
                Some(2),
                MtxErrorKind::Size,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e999\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0 7\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1.0\n",
                Some(3),
                MtxErrorKind::Entry,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n",
                Some(3),
                MtxErrorKind::Count,
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n2 2 1.0\n",
                Some(4),
                MtxErrorKind::Count,
            ),
            (
                "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n",
                Some(5),
                MtxErrorKind::Count,
            ),
        ];
        for (text, line, kind) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!((e.line, &e.kind), (*line, kind), "{text:?}: {e}");
            assert!(e.to_string().starts_with("t.mtx"), "{e}");
        }
        let missing = read_mtx(Path::new("/nonexistent/boundgate.mtx")).unwrap_err();
        assert_eq!(missing.kind, MtxErrorKind::Io);
    }

    #[test]
    fn written_files_read_back_exactly() {
        let dir = std::env::temp_dir().join(format!("boundgate-mtx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.mtx");
        let entries = vec![
            (0, 1, 0.1),
            (2, 0, -1e-300),
            (1, 1, 1.0 / 3.0),
            (2, 2, f64::MAX),
        ];
        write_mtx(&path, 3, 3, &entries).unwrap();
        let m = read_mtx(&path).unwrap();
        assert_eq!(m.entries, entries);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
