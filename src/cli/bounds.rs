//! `boundgate bounds`: the bound catalogue evaluated at given parameters.

use crate::audit::report::render_table;
use crate::error::{Error, ExitCode, Result};
use crate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::dot::{pairwise_depth, recursive_depth};
use boundgate_verify::bounds::gamma::gamma;
use boundgate_verify::bounds::probabilistic::{
    higham_mary_gamma, vibea_gamma, vibea_gamma_authors_centred, vibea_gamma_first_order,
};
use boundgate_verify::bounds::tc::{
    ANY_ORDER_SOURCE, BLOCK_FMA_SOURCE, block_fma_any_order_constant, block_fma_constant,
};
use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor};
use boundgate_verify::format::{Format, RoundingMode};
use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct BoundsArgs {
    /// Number of terms (inner dimension), at least 1.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    n: u64,
    /// Formats to evaluate (repeatable); default: all named formats.
    #[arg(long = "format")]
    formats: Vec<Format>,
    /// Rounding mode (sets u).
    #[arg(long, default_value = "rne")]
    mode: RoundingMode,
    /// lambda of the probabilistic bounds.
    #[arg(long, default_value_t = 3.0)]
    lambda: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One evaluated entry of the catalogue.
fn entries(format: Format, args: &BoundsArgs) -> Vec<(String, VResult<Bound>)> {
    let u = format.unit_roundoff(args.mode);
    let n = args.n;
    let pairwise = pairwise_depth(n.try_into().unwrap_or(usize::MAX));
    let mut list: Vec<(String, VResult<Bound>)> = vec![
        (
            "gamma_n (recursive dot, DBEA)".into(),
            gamma(recursive_depth(n as usize), u),
        ),
        (
            "gamma_{ceil(log2 n)+1} (pairwise dot)".into(),
            gamma(pairwise, u),
        ),
        (
            "Higham-Mary gamma~_n(lambda)".into(),
            higham_mary_gamma(n, u, args.lambda),
        ),
        (
            "Bhola-Duraisamy VIBEA gamma~_n(lambda), rigorous pairing".into(),
            vibea_gamma(n, u, args.lambda),
        ),
        (
            "VIBEA, authors' centred exp(lambda sqrt(n) u) - 1".into(),
            vibea_gamma_authors_centred(n, u, args.lambda),
        ),
        (
            "VIBEA, authors' first order lambda sqrt(n) u".into(),
            vibea_gamma_first_order(n, u, args.lambda),
        ),
    ];
    list.extend(tensor_core_entries(format, n));
    list
}

/// The block-FMA growth factors of the tensor-core records whose operands are
/// `format` (fp32 accumulation, each record's own rounding, not `--mode`):
/// one chain of `ceil(n / b)` block steps, and any split, order and
/// reduction ([`block_fma_any_order_constant`]), coefficients of
/// `sum max(|a|, 2^emin) max(|b|, 2^emin)` without the underflow terms.
fn tensor_core_entries(format: Format, n: u64) -> Vec<(String, VResult<Bound>)> {
    let mut list = Vec::new();
    for arch in Arch::ALL {
        for input in TcInput::ALL {
            if input.operand() != format {
                continue;
            }
            let Ok(record) = TcRecord::lookup(arch, input, TcOutput::Fp32) else {
                continue;
            };
            let spec = record.spec();
            let b = record.block as u64;
            let bound = |value, source| {
                Ok(Bound::deterministic(
                    value,
                    Quantity::Theta,
                    source,
                    Rigor::Rigorous,
                ))
            };
            list.push((
                format!(
                    "block FMA, one chain, {} (b = {b}, F = {}): (1 + b 2^-F + u_acc)^ceil(n/b) - 1",
                    record.label(),
                    record.fraction_bits
                ),
                bound(block_fma_constant(&spec, n.div_ceil(b)), BLOCK_FMA_SOURCE),
            ));
            list.push((
                format!(
                    "block FMA, any order, {}: (1 + 2^-F + u_acc)^n - 1",
                    record.label()
                ),
                bound(block_fma_any_order_constant(&spec, n), ANY_ORDER_SOURCE),
            ));
        }
    }
    list
}

fn text(b: &VResult<Bound>) -> (String, String) {
    match b {
        Ok(b) => (
            format!("{:.4e}", b.value),
            match b.kind {
                Kind::Deterministic => "always".into(),
                Kind::Probabilistic { probability } if probability <= 0.0 => {
                    format!("p >= {probability:.3} (vacuous)")
                }
                Kind::Probabilistic { probability } => format!("p >= {probability:.6}"),
            },
        ),
        Err(e) => ("-".into(), e.to_string()),
    }
}

pub fn execute(args: BoundsArgs) -> Result<ExitCode> {
    // Bad usage, not a per-row "no value" (review, 2026-11-25).
    if !(args.lambda.is_finite() && args.lambda > 0.0) {
        return Err(Error::usage(format!(
            "--lambda {}: must be a positive number",
            args.lambda
        )));
    }
    let formats = if args.formats.is_empty() {
        Format::NAMED.to_vec()
    } else {
        args.formats.clone()
    };
    if args.json {
        let all: Vec<_> = formats
            .iter()
            .map(|f| {
                let list: Vec<_> = entries(*f, &args)
                    .into_iter()
                    .map(|(name, b)| match b {
                        Ok(b) => json!({ "name": name, "bound": b }),
                        Err(e) => json!({ "name": name, "no_value": e.to_string() }),
                    })
                    .collect();
                json!({
                    "format": f.to_string(),
                    "u": f.unit_roundoff(args.mode),
                    "underflow_eta": f.underflow_abs_error(args.mode),
                    "bounds": list,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&json!({ "n": args.n, "mode": args.mode.name(), "lambda": args.lambda, "formats": all })).expect("serializable"));
        return Ok(ExitCode::Ok);
    }
    let mut rows = Vec::new();
    for f in &formats {
        for (name, b) in entries(*f, &args) {
            let (value, holds) = text(&b);
            let source = b.as_ref().map_or(String::new(), |b| b.source.to_string());
            rows.push(vec![
                f.to_string(),
                format!("{:e}", f.unit_roundoff(args.mode)),
                name.to_string(),
                value,
                holds,
                source,
            ]);
        }
    }
    println!(
        "n = {}, mode = {}, lambda = {}",
        args.n, args.mode, args.lambda
    );
    print!(
        "{}",
        render_table(
            &[
                "format",
                "u",
                "bound (coefficient of sum|x_i y_i|)",
                "value",
                "holds",
                "source"
            ],
            &rows
        )
    );
    Ok(ExitCode::Ok)
}
