//! The execution configuration ("schedule") file (Freytag 2023, §4.2.6 and
//! Fig. 4.9): the first line holds the total number of iterations, each
//! following line `<iteration> <kernel>`: from loop index `iteration` on
//! (0-based; i.e. after `iteration` completed iterations) run `kernel`. The
//! first entry is at 0.
//!
//! The thesis's reader (Fig. 4.9) accepts anything; this one refuses
//! malformed and inconsistent files with the line and the reason: a missing
//! or non-positive count, a line that is not `<integer> <kernel>`, an unknown
//! kernel (or `double`), a first entry not at 0, entries not strictly
//! increasing, an entry at or beyond the count, an entry that switches to the
//! kernel already running.

use super::error::{InterleaveError, Result};
use super::runner::BranchSpec;
use super::version::Version;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// An execution configuration.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{schedule::Schedule, version::Version};
/// use std::path::Path;
/// let s = Schedule::parse("500\n0 half\n120 float\n200 half\n", Path::new("s.txt")).unwrap();
/// assert_eq!(s.version_at(120), Version::Half);  // iteration 120 is the last half one
/// assert_eq!(s.version_at(121), Version::Float);
/// assert_eq!(s.count(Version::Half), 120 + 300);
/// assert_eq!(Schedule::parse(&s.to_text(), Path::new("s.txt")).unwrap(), s);
/// assert!(Schedule::parse("500\n0 half\n120 half\n", Path::new("s.txt")).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Schedule {
    iterations: usize,
    switches: Vec<(usize, Version)>,
}

/// The most iterations a schedule or run may have: far above any HotSpot3D
/// run here (Rodinia's 500, the heavy variant's 1000), and a refusal instead
/// of a run that never ends or an overflowing count (a schedule file of
/// 2^64 - 1 iterations ran without end until 2026-11-25; found by review).
pub const MAX_ITERATIONS: usize = 1 << 24;

impl Schedule {
    /// A schedule over `iterations` iterations.
    ///
    /// # Errors
    /// As [`Schedule::parse`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, schedule::Schedule, version::Version::*};
    /// let s = Schedule::new(10, vec![(0, Half), (4, Float)]).unwrap();
    /// assert_eq!((s.version_at(4), s.version_at(5)), (Half, Float));
    /// // refusals name the field and the line the entry would have in a file
    /// let late = Schedule::new(10, vec![(1, Half)]);
    /// assert!(matches!(late, Err(InterleaveError::File { line: Some(2), ref field, .. }) if field == "iteration"));
    /// assert!(matches!(Schedule::new(0, vec![(0, Half)]), Err(InterleaveError::File { line: Some(1), .. })));
    /// assert!(matches!(Schedule::new(10, vec![]), Err(InterleaveError::File { line: None, .. })));
    /// ```
    pub fn new(iterations: usize, switches: Vec<(usize, Version)>) -> Result<Schedule> {
        let label = Path::new("<schedule>");
        if iterations == 0 || iterations > MAX_ITERATIONS {
            return Err(InterleaveError::file(
                label,
                Some(1),
                "iterations",
                format!("must be in 1..={MAX_ITERATIONS}, got {iterations}"),
            ));
        }
        for (k, &(i, v)) in switches.iter().enumerate() {
            check_entry(
                label,
                k + 2,
                k,
                i,
                v,
                iterations,
                k.checked_sub(1).map(|p| switches[p]),
            )?;
        }
        if switches.is_empty() {
            return Err(InterleaveError::file(
                label,
                None,
                "entries",
                "no `0 <kernel>` entry",
            ));
        }
        Ok(Schedule {
            iterations,
            switches,
        })
    }

    /// Every iteration in one kernel version.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version};
    /// let s = Schedule::single(5, Version::Float).unwrap();
    /// assert_eq!(s.switches(), &[(0, Version::Float)]);
    /// assert_eq!(s.count(Version::Float), 5);
    /// // the ground truth is not a schedulable kernel
    /// assert!(Schedule::single(5, Version::Double).is_err());
    /// ```
    pub fn single(iterations: usize, version: Version) -> Result<Schedule> {
        Schedule::new(iterations, vec![(0, version)])
    }

    /// Total iterations.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::schedule::Schedule;
    /// use std::path::Path;
    /// let s = Schedule::parse("500\n0 half\n120 float\n", Path::new("s.txt")).unwrap();
    /// assert_eq!(s.iterations(), 500); // the first line, not the last entry
    /// ```
    pub fn iterations(&self) -> usize {
        self.iterations
    }
    /// The entries.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// use std::path::Path;
    /// let s = Schedule::parse("500\n0 half\n120 float\n200 half\n", Path::new("s.txt")).unwrap();
    /// assert_eq!(s.switches(), &[(0, Half), (120, Float), (200, Half)]);
    /// ```
    pub fn switches(&self) -> &[(usize, Version)] {
        &self.switches
    }
    /// As a run's switch points.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// let s = Schedule::new(20, vec![(0, Half), (7, Float), (12, Looperf)]).unwrap();
    /// let spec = s.spec();
    /// assert_eq!(spec.switches(), s.switches());
    /// assert_eq!(spec.fork_point(), 12);
    /// // the run follows the schedule at every iteration
    /// assert!((0..=20).all(|i| spec.version_at(i) == s.version_at(i)));
    /// ```
    pub fn spec(&self) -> BranchSpec {
        BranchSpec::new(self.switches.clone()).expect("a valid schedule is a valid spec")
    }

    /// The version running iteration `i` (1-based; `i = 0` gives the first).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// // entry `3 float`: after 3 completed iterations, i.e. from iteration 4 on
    /// let s = Schedule::new(6, vec![(0, Looperf), (3, Float)]).unwrap();
    /// let run: Vec<_> = (0..=6).map(|i| s.version_at(i)).collect();
    /// assert_eq!(run, [Looperf, Looperf, Looperf, Looperf, Float, Float, Float]);
    /// ```
    pub fn version_at(&self, i: usize) -> Version {
        self.switches
            .iter()
            .rev()
            .find(|(t, _)| *t < i.max(1))
            .map_or(self.switches[0].1, |s| s.1)
    }

    /// How many iterations run `version`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// // iterations 1-3 half, 4-7 float, 8-10 looperf
    /// let s = Schedule::new(10, vec![(0, Half), (3, Float), (7, Looperf)]).unwrap();
    /// assert_eq!((s.count(Half), s.count(Float), s.count(Looperf)), (3, 4, 3));
    /// assert_eq!(s.count(Double), 0);
    /// ```
    pub fn count(&self, version: Version) -> usize {
        (1..=self.iterations)
            .filter(|&i| self.version_at(i) == version)
            .count()
    }

    /// The file's text.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// let s = Schedule::new(10, vec![(0, Half), (3, Float)]).unwrap();
    /// assert_eq!(s.to_text(), "10\n0 half\n3 float\n");
    /// ```
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.iterations);
        for (i, v) in &self.switches {
            let _ = writeln!(out, "{i} {v}");
        }
        out
    }

    /// Parses a schedule file; `path` names it in errors.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, schedule::Schedule, version::Version::*};
    /// use std::path::Path;
    /// let s = Schedule::parse("  10\r\n\r\n0 half\n4   float\n", Path::new("s.txt")).unwrap();
    /// assert_eq!((s.iterations(), s.switches()), (10, &[(0, Half), (4, Float)][..]));
    /// // an entry at the count leaves nothing to run: refused with its line
    /// let err = Schedule::parse("10\n0 half\n10 float\n", Path::new("s.txt")).unwrap_err();
    /// assert!(matches!(err, InterleaveError::File { line: Some(3), .. }));
    /// assert!(err.to_string().starts_with("s.txt:3: iteration:"), "{err}");
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Schedule> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(k, l)| (k + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty());
        let (line, first) = lines
            .next()
            .ok_or_else(|| InterleaveError::file(path, None, "iterations", "the file is empty"))?;
        let iterations: usize = first
            .parse()
            .ok()
            .filter(|&n| n > 0 && n <= MAX_ITERATIONS)
            .ok_or_else(|| {
                InterleaveError::file(
                    path,
                    Some(line),
                    "iterations",
                    format!("`{first}` is not an integer in 1..={MAX_ITERATIONS}"),
                )
            })?;
        let mut switches: Vec<(usize, Version)> = Vec::new();
        for (line, text) in lines {
            let parts: Vec<&str> = text.split_whitespace().collect();
            let [at, kernel] = parts[..] else {
                return Err(InterleaveError::file(
                    path,
                    Some(line),
                    "entry",
                    format!("`{text}` is not `<iteration> <kernel>`"),
                ));
            };
            let at: usize = at.parse().map_err(|_| {
                InterleaveError::file(
                    path,
                    Some(line),
                    "iteration",
                    format!("`{at}` is not a non-negative integer"),
                )
            })?;
            let version = Version::schedulable(kernel).map_err(|_| {
                InterleaveError::file(
                    path,
                    Some(line),
                    "kernel",
                    format!("unknown kernel version `{kernel}` (known: float, half, looperf)"),
                )
            })?;
            check_entry(
                path,
                line,
                switches.len(),
                at,
                version,
                iterations,
                switches.last().copied(),
            )?;
            switches.push((at, version));
        }
        if switches.is_empty() {
            return Err(InterleaveError::file(
                path,
                None,
                "entries",
                "no `0 <kernel>` entry after the count",
            ));
        }
        Ok(Schedule {
            iterations,
            switches,
        })
    }

    /// Reads a schedule file.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, schedule::Schedule, version::Version};
    /// let path = std::env::temp_dir().join(format!("boundgate-schedule-read-{}.txt", std::process::id()));
    /// std::fs::write(&path, "8\n0 half\n5 float\n").unwrap();
    /// let s = Schedule::read(&path).unwrap();
    /// assert_eq!(s.switches(), &[(0, Version::Half), (5, Version::Float)]);
    /// std::fs::remove_file(&path).unwrap();
    /// assert!(matches!(Schedule::read(&path), Err(InterleaveError::Io { .. })));
    /// ```
    pub fn read(path: &Path) -> Result<Schedule> {
        let text = std::fs::read_to_string(path).map_err(|e| InterleaveError::io(path, e))?;
        Schedule::parse(&text, path)
    }

    /// Writes a schedule file.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{schedule::Schedule, version::Version::*};
    /// let path = std::env::temp_dir().join(format!("boundgate-schedule-write-{}.txt", std::process::id()));
    /// let s = Schedule::new(8, vec![(0, Half), (5, Float)]).unwrap();
    /// s.write(&path).unwrap();
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), "8\n0 half\n5 float\n");
    /// assert_eq!(Schedule::read(&path).unwrap(), s);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_text()).map_err(|e| InterleaveError::io(path, e))
    }
}

fn check_entry(
    path: &Path,
    line: usize,
    position: usize,
    at: usize,
    version: Version,
    iterations: usize,
    previous: Option<(usize, Version)>,
) -> Result<()> {
    let fail =
        |field: &str, reason: String| Err(InterleaveError::file(path, Some(line), field, reason));
    if version == Version::Double {
        return fail(
            "kernel",
            "`double` is the ground truth, not a schedulable kernel".into(),
        );
    }
    if position == 0 && at != 0 {
        return fail(
            "iteration",
            format!("the first entry must be at iteration 0, not {at}"),
        );
    }
    if at >= iterations {
        return fail(
            "iteration",
            format!("{at} is not below the {iterations} iterations"),
        );
    }
    if let Some((p_at, p_version)) = previous {
        if at <= p_at {
            return fail(
                "iteration",
                format!("{at} does not follow {p_at}: entries must increase strictly"),
            );
        }
        if version == p_version {
            return fail(
                "kernel",
                format!("switches to {version}, which is already running"),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_and_inconsistent_files_are_refused_with_their_line() {
        let cases = [
            ("", "iterations", None),
            ("zero\n0 half\n", "iterations", Some(1)),
            ("0\n0 half\n", "iterations", Some(1)),
            ("10\n", "entries", None),
            ("10\n0\n", "entry", Some(2)),
            ("10\n0 half extra\n", "entry", Some(2)),
            ("10\n1 half\n", "iteration", Some(2)),
            ("10\n0 quarter\n", "kernel", Some(2)),
            ("10\n0 double\n", "kernel", Some(2)),
            ("10\n0 half\n5 float\n5 half\n", "iteration", Some(4)),
            ("10\n0 half\n5 float\n3 half\n", "iteration", Some(4)),
            ("10\n0 half\n10 float\n", "iteration", Some(3)),
            ("10\n0 half\n-1 float\n", "iteration", Some(3)),
            ("10\n0 half\n4 float\n6 float\n", "kernel", Some(4)),
        ];
        for (text, field, line) in cases {
            match Schedule::parse(text, Path::new("s.txt")) {
                Err(InterleaveError::File {
                    field: f, line: l, ..
                }) => {
                    assert_eq!((f.as_str(), l), (field, line), "{text:?}");
                }
                other => panic!("{text:?}: expected a file error, got {other:?}"),
            }
        }
    }

    #[test]
    fn windows_line_ends_and_blank_lines_are_fine() {
        let s = Schedule::parse("10\r\n0 half\r\n\r\n4 float\r\n", Path::new("s.txt")).unwrap();
        assert_eq!(s.switches(), &[(0, Version::Half), (4, Version::Float)]);
    }
}
