//! Accuracy-loss profiles (step 1 of the thesis's pipeline, Freytag 2023,
//! §4.2.1): one row per iteration, and their CSV files.
//!
//! # The CSV format
//!
//! The thesis's columns (Fig. 4.4), in this order:
//! `kernel,iteration,start_timestamp,end_timestamp,runtime,accuracy_loss`
//! (runtime in milliseconds, the loss as a ratio: 0.01 is 1 %), optionally
//! followed by this crate's columns
//! `loss_lower,loss_upper,error_vs_fp64,reference_error_vs_fp64,fp64_radius`:
//! the exact enclosure of the loss, the relative Frobenius error of this run
//! and of the `float` reference against the binary64 ground truth, and a
//! rigorous bound on the ground truth's own relative distance to the exact
//! trajectory. With `e = error_vs_fp64` and `r = fp64_radius`, the error
//! against exact arithmetic `||A^ - X|| / ||X||` lies in
//! `[(e - r) / (1 + r), (e + r) / (1 - r)]` (triangle inequality, and
//! `||X||` within `r ||G||` of `||G||`), up to the rounding of `e`, which is
//! written rounded to nearest; `r` is rounded up. (Not `e +- r`: that
//! normalises by `||G||`, and an exact counterexample falls outside it by an
//! ulp; review, 2026-11-25.)
//!
//! A profile is a run of consecutive iterations. Its first row is its
//! starting point: iteration 0 (the conversion-only row "before iteration 1",
//! §4.2.1) for a run from the start, or, for a run forked from another at
//! iteration `t` (step 3), that run's row `t`. Fields may be padded with
//! spaces (the thesis's figure prints ` , `).

use super::error::{InterleaveError, Result};
use super::version::Version;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// The thesis's columns (Freytag 2023, Fig. 4.4).
pub const THESIS_COLUMNS: [&str; 6] = [
    "kernel",
    "iteration",
    "start_timestamp",
    "end_timestamp",
    "runtime",
    "accuracy_loss",
];

/// This crate's extra columns.
pub const EXTRA_COLUMNS: [&str; 5] = [
    "loss_lower",
    "loss_upper",
    "error_vs_fp64",
    "reference_error_vs_fp64",
    "fp64_radius",
];

/// The measurements beyond the thesis (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GroundTruth {
    /// Lower bound of the exact loss.
    pub loss_lower: f64,
    /// Upper bound of the exact loss.
    pub loss_upper: f64,
    /// `||A^ - G|| / ||G||`, `G` the binary64 ground truth, rounded to
    /// nearest (see the module docs for what it says of the exact error).
    pub error_vs_fp64: f64,
    /// `||A - G|| / ||G||` of the `float` reference.
    pub reference_error_vs_fp64: f64,
    /// Rigorous bound on `||G - X|| / ||G||`, `X` the exact trajectory.
    pub fp64_radius: f64,
}

/// One row of a profile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The kernel version that ran this iteration (for row 0: the run's first kernel).
    pub kernel: Version,
    /// Iterations completed (0 before the first).
    pub iteration: usize,
    /// Start of the iteration (ns; modelled or since the Unix epoch).
    pub start_timestamp: u64,
    /// End of the iteration (ns).
    pub end_timestamp: u64,
    /// Runtime of the iteration in milliseconds (conversions included).
    pub runtime_ms: f64,
    /// `||A^ - A||_F / ||A||_F` after this iteration.
    pub accuracy_loss: f64,
    /// The crate's extra columns, when measured.
    pub ground_truth: Option<GroundTruth>,
}

/// A profile: consecutive rows (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    rows: Vec<Row>,
}

impl Profile {
    /// A profile from rows, checked like a file.
    ///
    /// # Errors
    /// As [`Profile::parse`], with `<profile>` for the file name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// assert_eq!(Profile::new(vec![row(0, 0.0), row(1, 0.01)]).unwrap().last_iteration(), 1);
    /// // iteration 2 after 0: the second row, line 3 of the file it would be
    /// let gap = Profile::new(vec![row(0, 0.0), row(2, 0.01)]);
    /// assert!(matches!(gap, Err(InterleaveError::File { line: Some(3), ref field, .. }) if field == "iteration"));
    /// assert!(Profile::new(vec![row(0, 0.0), row(1, -0.01)]).is_err()); // a negative loss
    /// assert!(Profile::new(vec![]).is_err());
    /// ```
    pub fn new(rows: Vec<Row>) -> Result<Profile> {
        check_rows(&rows, Path::new("<profile>"))?;
        Ok(Profile { rows })
    }

    /// The rows.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.rows().len(), 3);
    /// assert_eq!(p.rows().iter().map(|r| r.iteration).collect::<Vec<_>>(), [4, 5, 6]);
    /// ```
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
    /// The starting row.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.start(), &row(4, 0.5));
    /// assert_eq!(p.start(), &p.rows()[0]);
    /// ```
    pub fn start(&self) -> &Row {
        &self.rows[0]
    }
    /// The first iteration (of the starting row).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.first_iteration(), 4);
    /// ```
    pub fn first_iteration(&self) -> usize {
        self.rows[0].iteration
    }
    /// The last iteration.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.last_iteration(), 6);
    /// // a single row: the start is also the last
    /// assert_eq!(Profile::new(vec![row(0, 0.0)]).unwrap().last_iteration(), 0);
    /// ```
    pub fn last_iteration(&self) -> usize {
        self.rows[self.rows.len() - 1].iteration
    }
    /// The row of iteration `i`, if the profile has it.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.row(5).map(|r| r.accuracy_loss), Some(0.125));
    /// assert_eq!(p.row(3), None); // before the fork point
    /// assert_eq!(p.row(7), None); // after the last row
    /// ```
    pub fn row(&self, i: usize) -> Option<&Row> {
        i.checked_sub(self.first_iteration())
            .and_then(|k| self.rows.get(k))
    }
    /// The measured rows: every row after the starting one.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.measured(), &[row(5, 0.125), row(6, 0.25)]);
    /// assert!(Profile::new(vec![row(0, 0.0)]).unwrap().measured().is_empty());
    /// ```
    pub fn measured(&self) -> &[Row] {
        &self.rows[1..]
    }
    /// The largest loss over the measured rows (the starting row when there is none).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// // the starting row's 0.5 is the parent's, not measured here
    /// assert_eq!(p.max_loss(), 0.25);
    /// assert_eq!(Profile::new(vec![row(4, 0.5)]).unwrap().max_loss(), 0.5);
    /// ```
    pub fn max_loss(&self) -> f64 {
        self.rows
            .iter()
            .skip(usize::from(self.rows.len() > 1))
            .map(|r| r.accuracy_loss)
            .fold(0.0, f64::max)
    }
    /// The points `(iteration, loss)` of the measured rows.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// // a run forked at iteration 4: its starting row, then two measured rows
    /// let p = Profile::new(vec![row(4, 0.5), row(5, 0.125), row(6, 0.25)]).unwrap();
    /// assert_eq!(p.points(), vec![(5, 0.125), (6, 0.25)]);
    /// ```
    pub fn points(&self) -> Vec<(usize, f64)> {
        self.measured()
            .iter()
            .map(|r| (r.iteration, r.accuracy_loss))
            .collect()
    }

    /// The CSV text (thesis columns, plus the extra ones if every row has them).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::profile::{GroundTruth, Profile, Row};
    /// use boundgate::kernels::interleave::version::Version;
    /// use std::path::Path;
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Half, iteration: i, start_timestamp: 10 * i as u64,
    ///     end_timestamp: 10 * i as u64 + 10, runtime_ms: 0.5, accuracy_loss: loss, ground_truth: None };
    /// let p = Profile::new(vec![row(0, 0.0), row(1, 0.1 + 0.2)]).unwrap();
    /// let text = p.to_csv();
    /// assert_eq!(text, "kernel,iteration,start_timestamp,end_timestamp,runtime,accuracy_loss\n\
    ///                   half,0,0,10,0.5,0\nhalf,1,10,20,0.5,0.30000000000000004\n");
    /// assert_eq!(Profile::parse(&text, Path::new("p.csv")).unwrap(), p); // every bit back
    /// // the extra columns only when every row has them
    /// let g = GroundTruth { loss_lower: 0.0, loss_upper: 0.0, error_vs_fp64: 0.1,
    ///     reference_error_vs_fp64: 1e-7, fp64_radius: 1e-15 };
    /// let half_measured = Profile::new(vec![Row { ground_truth: Some(g), ..row(0, 0.0) }, row(1, 0.3)]).unwrap();
    /// assert_eq!(half_measured.to_csv().lines().next().unwrap().split(',').count(), 6);
    /// ```
    pub fn to_csv(&self) -> String {
        let extended = self.rows.iter().all(|r| r.ground_truth.is_some());
        let mut out = THESIS_COLUMNS.join(",");
        if extended {
            out.push(',');
            out.push_str(&EXTRA_COLUMNS.join(","));
        }
        out.push('\n');
        for r in &self.rows {
            let _ = write!(
                out,
                "{},{},{},{},{},{}",
                r.kernel,
                r.iteration,
                r.start_timestamp,
                r.end_timestamp,
                r.runtime_ms,
                r.accuracy_loss
            );
            if let (true, Some(g)) = (extended, r.ground_truth) {
                let _ = write!(
                    out,
                    ",{},{},{},{},{}",
                    g.loss_lower,
                    g.loss_upper,
                    g.error_vs_fp64,
                    g.reference_error_vs_fp64,
                    g.fp64_radius
                );
            }
            out.push('\n');
        }
        out
    }

    /// Parses CSV text; `path` names it in errors.
    ///
    /// # Errors
    /// [`InterleaveError::File`] naming the line and field: a header other than
    /// the thesis's columns (optionally followed by the extra ones), a row with
    /// the wrong number of fields, a field that is not a number of the right
    /// kind, an unknown kernel, no rows, iterations that are not consecutive,
    /// an end before its start, a runtime or loss that is negative or not
    /// finite, a loss outside its enclosure.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::profile::Profile;
    /// use std::path::Path;
    /// let text = "kernel,iteration,start_timestamp,end_timestamp,runtime,accuracy_loss\n\
    ///             half , 0 , 0 , 10 , 0.00001 , 0.0001\n\
    ///             half , 1 , 10 , 25 , 0.000015 , 0.00145\n";
    /// let p = Profile::parse(text, Path::new("half.csv")).unwrap();
    /// assert_eq!(p.last_iteration(), 1);
    /// let skipped = text.replace("half , 1", "half , 2");
    /// let err = Profile::parse(&skipped, Path::new("half.csv")).unwrap_err();
    /// assert!(err.to_string().contains("half.csv:3"));
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Profile> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| InterleaveError::file(path, None, "header", "the file is empty"))?;
        let columns: Vec<&str> = header.split(',').map(str::trim).collect();
        let extended = if columns == THESIS_COLUMNS {
            false
        } else if columns.len() == THESIS_COLUMNS.len() + EXTRA_COLUMNS.len()
            && columns[..6] == THESIS_COLUMNS
            && columns[6..] == EXTRA_COLUMNS
        {
            true
        } else {
            return Err(InterleaveError::file(
                path,
                Some(1),
                "header",
                format!(
                    "expected `{}` (optionally followed by `,{}`), found `{header}`",
                    THESIS_COLUMNS.join(","),
                    EXTRA_COLUMNS.join(",")
                ),
            ));
        };
        let width = if extended { 11 } else { 6 };
        let mut rows = Vec::new();
        let mut row_lines = Vec::new();
        for (index, line) in lines {
            let number = index + 1;
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != width {
                return Err(InterleaveError::file(
                    path,
                    Some(number),
                    "row",
                    format!("{} fields, expected {width}", fields.len()),
                ));
            }
            let bad = |column: usize, what: &str| {
                InterleaveError::file(
                    path,
                    Some(number),
                    if column < 6 {
                        THESIS_COLUMNS[column]
                    } else {
                        EXTRA_COLUMNS[column - 6]
                    },
                    format!("`{}` is not {what}", fields[column]),
                )
            };
            let int = |c: usize| {
                fields[c]
                    .parse::<u64>()
                    .map_err(|_| bad(c, "a non-negative integer"))
            };
            let num = |c: usize| {
                fields[c]
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| bad(c, "a finite non-negative number"))
            };
            let kernel = Version::schedulable(fields[0]).map_err(|_| {
                InterleaveError::file(
                    path,
                    Some(number),
                    "kernel",
                    format!(
                        "unknown kernel version `{}` (known: float, half, looperf)",
                        fields[0]
                    ),
                )
            })?;
            let iteration = usize::try_from(int(1)?).map_err(|_| bad(1, "an iteration"))?;
            let (start_timestamp, end_timestamp) = (int(2)?, int(3)?);
            let (runtime_ms, accuracy_loss) = (num(4)?, num(5)?);
            let ground_truth = if extended {
                Some(GroundTruth {
                    loss_lower: num(6)?,
                    loss_upper: num(7)?,
                    error_vs_fp64: num(8)?,
                    reference_error_vs_fp64: num(9)?,
                    fp64_radius: num(10)?,
                })
            } else {
                None
            };
            rows.push(Row {
                kernel,
                iteration,
                start_timestamp,
                end_timestamp,
                runtime_ms,
                accuracy_loss,
                ground_truth,
            });
            row_lines.push(number);
        }
        check_rows_at(&rows, path, &row_lines)?;
        Ok(Profile { rows })
    }

    /// Reads a CSV file.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, profile::Profile};
    /// let path = std::env::temp_dir().join(format!("boundgate-profile-read-{}.csv", std::process::id()));
    /// std::fs::write(&path, "kernel,iteration,start_timestamp,end_timestamp,runtime,accuracy_loss\n\
    ///                        float,0,0,0,0,0\nfloat,1,0,24,0.024,0\n").unwrap();
    /// let p = Profile::read(&path).unwrap();
    /// assert_eq!((p.last_iteration(), p.rows()[1].runtime_ms), (1, 0.024));
    /// std::fs::remove_file(&path).unwrap();
    /// assert!(matches!(Profile::read(&path), Err(InterleaveError::Io { .. })));
    /// ```
    pub fn read(path: &Path) -> Result<Profile> {
        let text = std::fs::read_to_string(path).map_err(|e| InterleaveError::io(path, e))?;
        Profile::parse(&text, path)
    }

    /// Writes a CSV file.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{profile::{Profile, Row}, version::Version};
    /// let row = |i: usize, loss: f64| Row { kernel: Version::Looperf, iteration: i, start_timestamp: 0,
    ///     end_timestamp: 0, runtime_ms: 0.024, accuracy_loss: loss, ground_truth: None };
    /// let p = Profile::new(vec![row(0, 0.0), row(1, 1.0 / 3.0)]).unwrap();
    /// let path = std::env::temp_dir().join(format!("boundgate-profile-write-{}.csv", std::process::id()));
    /// p.write(&path).unwrap();
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), p.to_csv());
    /// assert_eq!(Profile::read(&path).unwrap(), p); // 1/3 comes back bit for bit
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_csv()).map_err(|e| InterleaveError::io(path, e))
    }
}

fn check_rows(rows: &[Row], path: &Path) -> Result<()> {
    let lines: Vec<usize> = (0..rows.len()).map(|i| i + 2).collect();
    check_rows_at(rows, path, &lines)
}

/// The consistency rules of a profile; `lines[k]` is the line of row `k`.
fn check_rows_at(rows: &[Row], path: &Path, lines: &[usize]) -> Result<()> {
    if rows.is_empty() {
        return Err(InterleaveError::file(
            path,
            None,
            "rows",
            "the profile has no rows",
        ));
    }
    for (k, r) in rows.iter().enumerate() {
        let at = |field: &str, reason: String| {
            InterleaveError::file(path, Some(lines[k]), field, reason)
        };
        if k > 0 && r.iteration != rows[k - 1].iteration + 1 {
            return Err(at(
                "iteration",
                format!(
                    "iteration {} follows {}: iterations must be consecutive",
                    r.iteration,
                    rows[k - 1].iteration
                ),
            ));
        }
        if r.end_timestamp < r.start_timestamp {
            return Err(at(
                "end_timestamp",
                format!(
                    "{} is before the start {}",
                    r.end_timestamp, r.start_timestamp
                ),
            ));
        }
        for (field, v) in [
            ("runtime", r.runtime_ms),
            ("accuracy_loss", r.accuracy_loss),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(at(
                    field,
                    format!("{v} is not a finite non-negative number"),
                ));
            }
        }
        if let Some(g) = r.ground_truth
            && !(g.loss_lower <= r.accuracy_loss && r.accuracy_loss <= g.loss_upper)
        {
            return Err(at(
                "accuracy_loss",
                format!(
                    "{} is outside its enclosure [{}, {}]",
                    r.accuracy_loss, g.loss_lower, g.loss_upper
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize, loss: f64) -> Row {
        Row {
            kernel: Version::Half,
            iteration: i,
            start_timestamp: 10 * i as u64,
            end_timestamp: 10 * i as u64 + 10,
            runtime_ms: 1e-5,
            accuracy_loss: loss,
            ground_truth: Some(GroundTruth {
                loss_lower: loss,
                loss_upper: loss,
                error_vs_fp64: 0.1,
                reference_error_vs_fp64: 1e-7,
                fp64_radius: 1e-15,
            }),
        }
    }

    #[test]
    fn csv_round_trips_exactly() {
        let p = Profile::new(vec![row(0, 1e-4), row(1, 0.1 + 0.2), row(2, 1.0 / 3.0)]).unwrap();
        let q = Profile::parse(&p.to_csv(), Path::new("p.csv")).unwrap();
        assert_eq!(p, q);
    }

    #[test]
    fn malformed_files_name_line_and_field() {
        let good = Profile::new(vec![row(0, 0.0), row(1, 0.5)])
            .unwrap()
            .to_csv();
        let cases = [
            ("", "header"),
            ("kernel,iteration\n", "header"),
            (&good.replace("half,1", "quarter,1"), "kernel"),
            (&good.replace(",0.5,", ",-0.5,"), "accuracy_loss"),
            (&good.replace(",0.5,", ",NaN,"), "accuracy_loss"),
            (
                &good.replace("half,1,10,20", "half,1,30,20"),
                "end_timestamp",
            ),
            (&good.replace("half,1,", "half,3,"), "iteration"),
            (&good.replace("half,1,", "half,x,"), "iteration"),
            (
                &good.replace(",0.5,0.5,0.5,", ",0.5,0.6,0.7,"),
                "accuracy_loss",
            ),
            (&format!("{good}half,2\n"), "row"),
            (good.lines().next().unwrap(), "rows"),
        ];
        for (text, field) in cases {
            let err = Profile::parse(text, Path::new("bad.csv")).unwrap_err();
            match &err {
                InterleaveError::File { field: f, .. } => assert_eq!(f, field, "{err}"),
                other => panic!("expected a file error, got {other}"),
            }
        }
    }
}
