//! `boundgate oracle dot`: the exact dot product, correctly rounded.

use super::hex_float;
use crate::error::{ExitCode, Result};
use crate::io::read_npy;
use boundgate_verify::oracle;
use clap::Subcommand;
use serde_json::json;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum OracleCommand {
    /// The exact dot product of two vectors, correctly rounded to float64 (nearest even).
    ///
    /// Infinite or NaN inputs give IEEE's result (inf, -inf or NaN; the JSON
    /// says `exact_is_finite: false`), and an exact value beyond float64's
    /// range rounds to an infinity; both exit 0.
    Dot {
        /// First vector (.npy).
        #[arg(long)]
        x: PathBuf,
        /// Second vector (.npy).
        #[arg(long)]
        y: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `boundgate oracle dot`: the exact dot product of the vectors `--x`
/// and `--y`, correctly rounded to float64, as text or (`--json`) JSON.
///
/// # Example
/// ```standalone_crate
/// // `execute` is private to the CLI: the command runs through
/// // `boundgate::cli::main` in a child process (this test, run again).
/// if std::env::var_os("BOUNDGATE_DOCTEST_CHILD").is_some() {
///     std::process::exit(boundgate::cli::main());
/// }
/// let boundgate = |args: &[&str]| std::process::Command::new(std::env::current_exe().unwrap())
///     .args(args).env("BOUNDGATE_DOCTEST_CHILD", "1").output().unwrap();
/// use boundgate::io::{Tensor, write_npy};
/// let path = |name: &str| std::env::temp_dir().join(format!("boundgate-doc-oracle-{name}-{}.npy", std::process::id()));
/// let (x, y) = (path("x"), path("y"));
/// let args = ["oracle", "dot", "--x", x.to_str().unwrap(), "--y", y.to_str().unwrap(), "--json"];
/// // 1e16 + 1 - 1e16: 0 summed left to right in float64, exactly 1
/// write_npy(&x, &Tensor::vector(vec![1e16, 1.0, -1e16])).unwrap();
/// write_npy(&y, &Tensor::vector(vec![1.0; 3])).unwrap();
/// let exact = boundgate(&args);
/// write_npy(&y, &Tensor::matrix(1, 3, vec![1.0; 3]).unwrap()).unwrap();
/// let matrix = boundgate(&args).status.code();
/// std::fs::remove_file(&x).unwrap();
/// std::fs::remove_file(&y).unwrap();
/// let v: serde_json::Value = serde_json::from_slice(&exact.stdout).unwrap();
/// assert_eq!((exact.status.code(), v["value"].as_f64(), v["hex"].as_str()), (Some(0), Some(1.0), Some("0x1p+0")));
/// assert_eq!(matrix, Some(2)); // a 1 x 3 matrix is not a vector
/// ```
pub fn execute(cmd: OracleCommand) -> Result<ExitCode> {
    let OracleCommand::Dot { x, y, json } = cmd;
    let (xs, ys) = (read_vector(&x)?, read_vector(&y)?);
    let exact = oracle::dot(xs.data(), ys.data())?;
    let value = exact.to_f64();
    let hex = hex_float(value);
    if json {
        let object = json!({
            "value": if value.is_finite() { json!(value) } else { serde_json::Value::Null },
            "hex": hex,
            "n": xs.data().len(),
            "finite": value.is_finite(),
            "exact_is_finite": exact.is_finite(),
            "rounding": "nearest-even, float64",
        });
        println!("{object}");
    } else {
        println!("{value:e} ({hex})");
    }
    Ok(ExitCode::Ok)
}

/// A 1-D `.npy` (the README's rule for vectors; `run` refuses other shapes,
/// and this command flattened them: review, 2026-11-25).
fn read_vector(path: &std::path::Path) -> Result<crate::io::Tensor> {
    let t = read_npy(path)?;
    if t.shape().len() != 1 {
        return Err(crate::error::Error::usage(format!(
            "{}: a vector must be 1-D, got shape {:?}",
            path.display(),
            t.shape()
        )));
    }
    Ok(t)
}
