//! `boundgate round`: correctly rounded conversion of a .npy array.

use crate::error::{ExitCode, Result};
use crate::io::{Tensor, read_npy, write_npy};
use boundgate_verify::format::{Format, RoundingMode};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RoundArgs {
    /// Target format: fp64, fp32, tf32, bf16, fp16, e4m3, e5m2.
    #[arg(long)]
    format: Format,
    /// Rounding mode: rne, rtz, rup, rdn.
    #[arg(long, default_value = "rne")]
    mode: RoundingMode,
    /// Input .npy (float64, float32 or float16).
    #[arg(long)]
    input: PathBuf,
    /// Output .npy (float64, same shape).
    #[arg(long)]
    output: PathBuf,
}

pub fn execute(args: RoundArgs) -> Result<ExitCode> {
    let input = read_npy(&args.input)?;
    let rounded: Vec<f64> = input
        .data()
        .iter()
        .map(|&x| args.format.round(x, args.mode))
        .collect();
    let changed = input
        .data()
        .iter()
        .zip(&rounded)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    let out = match input.dims2() {
        Some((r, c)) => Tensor::matrix(r, c, rounded)?,
        None if input.ndim() == 0 => Tensor::scalar(rounded[0]),
        None => Tensor::vector(rounded),
    };
    write_npy(&args.output, &out)?;
    println!(
        "rounded {} values to {} ({}): {} changed; wrote {}",
        input.data().len(),
        args.format,
        args.mode,
        changed,
        args.output.display()
    );
    Ok(ExitCode::Ok)
}
