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

/// Runs `boundgate round`: every value of `--input` rounded to `--format`
/// in `--mode`, written to `--output` (float64, same shape). IEEE semantics:
/// a finite value beyond the format's range becomes an infinity (or its
/// largest value, by the mode and the format's saturation), and the summary
/// line counts those overflows.
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
/// use boundgate::io::{Tensor, read_npy, write_npy};
/// let path = |name: &str| std::env::temp_dir().join(format!("boundgate-doc-round-{name}-{}.npy", std::process::id()));
/// let (input, output) = (path("in"), path("out"));
/// let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
/// write_npy(&input, &Tensor::vector(vec![0.1, 1.0 + 2f64.powi(-11), 70000.0])).unwrap();
/// let ok = boundgate(&["round", "--format", "fp16", "--input", i, "--output", o]).status.code();
/// let rounded = read_npy(&output).unwrap();
/// std::fs::remove_file(&input).unwrap();
/// std::fs::remove_file(&output).unwrap();
/// // fp16: 0.1 -> 1638 * 2^-14 (ulp 2^-14), 1 + 2^-11 ties to even 1, 70000 > 65504 -> inf
/// assert_eq!((ok, rounded.data()), (Some(0), &[1638.0 / 16384.0, 1.0, f64::INFINITY][..]));
/// // refused, exit 2: an input that does not exist (now), a format that does not
/// assert_eq!(boundgate(&["round", "--format", "fp16", "--input", i, "--output", o]).status.code(), Some(2));
/// assert_eq!(boundgate(&["round", "--format", "fp12", "--input", i, "--output", o]).status.code(), Some(2));
/// ```
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
    // IEEE rounding overflows to an infinity (or saturates, by the mode and
    // the format's policy): correct, but never silent. Said in the summary.
    // e4m3 has no infinity: its overflow (round to nearest) and an infinite
    // input become NaN, which the summary called "overflowed to an
    // infinity" or did not mention at all (review, 2026-11-29).
    let count = |f: &dyn Fn(f64, f64) -> bool| {
        input
            .data()
            .iter()
            .zip(&rounded)
            .filter(|&(&a, &b)| f(a, b))
            .count()
    };
    let to_infinity = count(&|a, b| a.is_finite() && b.is_infinite());
    let to_nan = count(&|a, b| a.is_finite() && b.is_nan());
    let infinite_to_nan = count(&|a, b| a.is_infinite() && b.is_nan());
    let nan_inputs = count(&|a, _| a.is_nan());
    let out = match input.dims2() {
        Some((r, c)) => Tensor::matrix(r, c, rounded)?,
        None if input.ndim() == 0 => Tensor::scalar(rounded[0]),
        None => Tensor::vector(rounded),
    };
    write_npy(&args.output, &out)?;
    let mut notes = String::new();
    if to_infinity > 0 {
        notes.push_str(&format!(
            ", {to_infinity} of them overflowed to an infinity"
        ));
    }
    if to_nan > 0 {
        notes.push_str(&format!(
            ", {to_nan} of them overflowed to NaN ({} has no infinity)",
            args.format
        ));
    }
    if infinite_to_nan > 0 {
        notes.push_str(&format!(
            ", {infinite_to_nan} infinite input(s) became NaN ({} has no infinity)",
            args.format
        ));
    }
    if nan_inputs > 0 {
        notes.push_str(&format!(", {nan_inputs} NaN input(s) stay NaN"));
    }
    println!(
        "rounded {} values to {} ({}): {} changed{}; wrote {}",
        input.data().len(),
        args.format,
        args.mode,
        changed,
        notes,
        args.output.display()
    );
    Ok(ExitCode::Ok)
}
