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
