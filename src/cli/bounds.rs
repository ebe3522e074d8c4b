//! `boundgate bounds`: the bound catalogue evaluated at given parameters.
//!
//! Every printed value is rounded up and every printed probability down
//! (the decimal rendering included: a table read by people is a claim too).

use crate::audit::report::render_table;
use crate::decimal::{probability, scientific_up};
use crate::error::{Error, ExitCode, Result};
use crate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::directed::{mul_up, sub_down, sub_up};
use boundgate_verify::bounds::dot::{
    RIGOROUS_RECURSIVE_NEAREST, pairwise_depth, recursive_depth, recursive_nearest_growth,
};
use boundgate_verify::bounds::gamma::{gamma, u64_up};
use boundgate_verify::bounds::probabilistic::{
    HIGHAM_MARY_THM_2_4, VIBEA_AUTHORS_CENTRED, VIBEA_FIRST_ORDER, VIBEA_PAIRED, higham_mary_gamma,
    vibea_gamma, vibea_gamma_authors_centred, vibea_gamma_first_order,
};
use boundgate_verify::bounds::tc::{
    ANY_ORDER_SOURCE, BLOCK_FMA_SOURCE, block_fma_any_order_constant, block_fma_constant,
};
use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor, Source, require};
use boundgate_verify::error::readable_f64;
use boundgate_verify::format::{Format, RoundingMode};
use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct BoundsArgs {
    /// Number of terms (inner dimension), at least 1.
    // allow_negative_numbers: `--n -1` and `--lambda -1` were "unexpected
    // argument '-1' found", as if the value were missing; now the value is
    // refused as a value, naming the option (review, 2026-11-29).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    n: u64,
    /// Formats to evaluate (repeatable); default: all named formats.
    #[arg(long = "format")]
    formats: Vec<Format>,
    /// Rounding mode (sets u).
    #[arg(long, default_value = "rne")]
    mode: RoundingMode,
    /// lambda of the probabilistic bounds.
    // allow_hyphen_values, not only allow_negative_numbers: clap's test for
    // a negative number knows no exponent sign nor leading point, so
    // `--lambda -1e-3` and `--lambda -.5` were still "unexpected argument
    // '-1' found" (review, 2026-11-29). Any value after `--lambda` is its
    // value now, and one that is not a number is refused as such.
    #[arg(long, default_value_t = 3.0, allow_hyphen_values = true)]
    lambda: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One row of the catalogue: its name, and its bound or why it has none.
struct Row {
    name: String,
    bound: std::result::Result<Bound, String>,
}

impl Row {
    /// A bound whose value overflowed binary64 says nothing; it is shown as
    /// a row without a value (JSON has no +inf: it wrote `null`).
    fn new(name: String, bound: VResult<Bound>) -> Row {
        let bound = match bound {
            Ok(b) if b.value.is_finite() => Ok(b),
            Ok(_) => Err("its value overflows binary64 (+inf): it says nothing here".into()),
            Err(e) => Err(e.to_string()),
        };
        Row { name, bound }
    }

    /// For a probabilistic `|theta_n|` bound, the probability that it bounds
    /// a recursive dot product of `n` terms as a coefficient of
    /// `sum |x_i y_i|`, rounded down: `1 - n (1 - p)`, the union over the `n`
    /// terms' `theta`s (each of at most `n` roundings). That is Higham and
    /// Mary 2019, Theorem 3.1 (`Q(lambda, n)`) for their `gamma~`; for the
    /// Lemma 2.2 constants a term of `j <= n` roundings meets the same
    /// deviation `lambda sqrt(n) u` with a smaller variance in Bernstein's
    /// inequality, so its failure is at most `1 - p_b(lambda, u, n)` too.
    /// May be negative: vacuous.
    fn dot_probability(&self, n: u64) -> Option<f64> {
        match self.bound.as_ref().ok()?.kind {
            Kind::Probabilistic { probability } => {
                Some(sub_down(1.0, mul_up(u64_up(n), sub_up(1.0, probability))))
            }
            Kind::Deterministic => None,
        }
    }
}

/// The probabilistic models (rounding errors of mean zero; iid uniform on
/// `[-u, u]`) describe round to nearest: under a directed mode every error
/// of a positive result has one sign, and the bounds do not apply.
fn nearest_only(
    mode: RoundingMode,
    source: &Source,
    model: &str,
    bound: impl FnOnce() -> VResult<Bound>,
) -> VResult<Bound> {
    require(mode == RoundingMode::NearestEven, source, model, || {
        format!("mode {mode}: every rounding error of a positive result has one sign")
    })?;
    bound()
}

/// The every-`n` left-to-right bound exists in round to nearest with
/// subnormals (elsewhere a step can lose more than `|p_k|`: `gamma_n` rows).
fn every_n(format: Format, mode: RoundingMode, n: u64, fma: bool) -> VResult<Bound> {
    require(
        mode == RoundingMode::NearestEven && format.has_subnormals(),
        &RIGOROUS_RECURSIVE_NEAREST,
        "round to nearest with subnormals",
        || format!("mode {mode}, {format}"),
    )?;
    let u = format.unit_roundoff(mode);
    Ok(Bound::deterministic(
        recursive_nearest_growth(u, n, fma),
        Quantity::Theta,
        RIGOROUS_RECURSIVE_NEAREST,
        Rigor::Rigorous,
    ))
}

/// The catalogue's rows for one format.
fn entries(format: Format, args: &BoundsArgs) -> Vec<Row> {
    let mode = args.mode;
    let u = format.unit_roundoff(mode);
    let (n, lambda) = (args.n, args.lambda);
    let terms: usize = n.try_into().unwrap_or(usize::MAX);
    let pairwise = pairwise_depth(terms);
    const MEAN_ZERO: &str = "rounding errors independent, of mean zero (round to nearest)";
    const UNIFORM: &str = "rounding errors iid uniform on [-u, u] (round to nearest)";
    type Probabilistic = fn(u64, f64, f64) -> VResult<Bound>;
    let probabilistic: [(&str, &Source, &str, Probabilistic); 4] = [
        (
            "Higham-Mary gamma~_n(lambda)",
            &HIGHAM_MARY_THM_2_4,
            MEAN_ZERO,
            higham_mary_gamma,
        ),
        (
            "Bhola-Duraisamy VIBEA gamma~_n(lambda), rigorous pairing",
            &VIBEA_PAIRED,
            UNIFORM,
            vibea_gamma,
        ),
        (
            "VIBEA, authors' centred exp(lambda sqrt(n) u) - 1",
            &VIBEA_AUTHORS_CENTRED,
            UNIFORM,
            vibea_gamma_authors_centred,
        ),
        (
            "VIBEA, authors' first order lambda sqrt(n) u",
            &VIBEA_FIRST_ORDER,
            UNIFORM,
            vibea_gamma_first_order,
        ),
    ];
    let mut list = vec![
        Row::new(
            "gamma_n (recursive dot, DBEA)".into(),
            gamma(recursive_depth(terms), u),
        ),
        Row::new(
            "recursive dot of rounded products, every n: (n - 1) u (1 + u) + u".into(),
            every_n(format, mode, n, false),
        ),
        Row::new(
            "FMA chain, every n: n u".into(),
            every_n(format, mode, n, true),
        ),
        Row::new(
            format!("gamma_d, d = ceil(log2 n) + 1 = {pairwise} (pairwise dot)"),
            gamma(pairwise, u),
        ),
    ];
    list.extend(probabilistic.map(|(name, source, model, bound)| {
        Row::new(
            name.into(),
            nearest_only(mode, source, model, || bound(n, u, lambda)),
        )
    }));
    list.extend(tensor_core_entries(format, n));
    list
}

/// The block-FMA growth factors of the tensor-core records whose operands are
/// `format` (fp32 accumulation, each record's own rounding, not `--mode`):
/// one chain of `ceil(n / b)` block steps, and any split, order and
/// reduction ([`block_fma_any_order_constant`]), coefficients of
/// `sum max(|a|, 2^emin) max(|b|, 2^emin)` without the underflow terms.
fn tensor_core_entries(format: Format, n: u64) -> Vec<Row> {
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
            list.push(Row::new(
                format!(
                    "block FMA, one chain, {} (b = {b}, F = {}): (1 + b 2^-F + u_acc)^ceil(n/b) - 1",
                    record.label(),
                    record.fraction_bits
                ),
                bound(block_fma_constant(&spec, n.div_ceil(b)), BLOCK_FMA_SOURCE),
            ));
            list.push(Row::new(
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

/// "p >= ..." for a probability, "(vacuous)" when it is not positive.
fn probability_text(p: f64) -> String {
    if p <= 0.0 {
        format!("p >= {} (vacuous)", probability(p))
    } else {
        format!("p >= {}", probability(p))
    }
}

/// The table's value, holds and rigor cells.
fn text(row: &Row, n: u64) -> [String; 3] {
    match &row.bound {
        Ok(b) => {
            let holds = match b.kind {
                Kind::Deterministic => "always".into(),
                Kind::Probabilistic { probability } => format!(
                    "|theta_n|: {}; a dot: {}",
                    probability_text(probability),
                    probability_text(row.dot_probability(n).expect("probabilistic"))
                ),
            };
            let rigor = match b.rigor {
                Rigor::Rigorous => "rigorous",
                Rigor::Published => "published",
            };
            [scientific_up(b.value), holds, rigor.into()]
        }
        Err(why) => ["-".into(), why.clone(), String::new()],
    }
}

/// Runs `boundgate bounds`: the catalogue at `--n` for each format, as a
/// table or (`--json`) JSON.
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
/// let out = boundgate(&["bounds", "--n", "16", "--format", "fp16", "--json"]);
/// let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
/// let fp16 = &v["formats"][0];
/// assert_eq!((out.status.code(), fp16["u"].as_f64()), (Some(0), Some(2f64.powi(-11))));
/// // gamma_16 = 16 u / (1 - 16 u) = (1/128) / (127/128) = 1/127 for u = 2^-11, rounded up
/// assert_eq!(fp16["bounds"][0]["name"], "gamma_n (recursive dot, DBEA)");
/// let gamma = fp16["bounds"][0]["bound"]["value"].as_f64().unwrap();
/// assert!(gamma >= 1.0 / 127.0 && gamma <= (1.0 / 127.0) * (1.0 + 4.0 * f64::EPSILON));
/// // refused, exit 2: lambda must be positive (checked here), n at least 1 (by the parser)
/// assert_eq!(boundgate(&["bounds", "--lambda", "0"]).status.code(), Some(2));
/// assert_eq!(boundgate(&["bounds", "--n", "0"]).status.code(), Some(2));
/// ```
pub fn execute(args: BoundsArgs) -> Result<ExitCode> {
    // Bad usage, not a per-row "no value" (review, 2026-11-25).
    if !(args.lambda.is_finite() && args.lambda > 0.0) {
        return Err(Error::usage(format!(
            "--lambda {}: must be a positive number",
            readable_f64(args.lambda)
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
                    .map(|row| match (&row.bound, row.dot_probability(args.n)) {
                        (Ok(b), Some(dot)) => {
                            json!({ "name": row.name, "bound": b, "dot_probability": dot })
                        }
                        (Ok(b), None) => json!({ "name": row.name, "bound": b }),
                        (Err(why), _) => json!({ "name": row.name, "no_value": why }),
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
        for row in entries(*f, &args) {
            let [value, holds, rigor] = text(&row, args.n);
            let source = row
                .bound
                .as_ref()
                .map_or(String::new(), |b| b.source.to_string());
            rows.push(vec![
                f.to_string(),
                format!("{:e}", f.unit_roundoff(args.mode)),
                row.name,
                value,
                holds,
                rigor,
                source,
            ]);
        }
    }
    // Not `Display`: `--lambda 1e300` wrote 301 digits (review, 2026-11-29).
    println!(
        "n = {}, mode = {}, lambda = {}",
        args.n,
        args.mode,
        readable_f64(args.lambda)
    );
    println!(
        "value: a bound on |theta_n|, the coefficient of sum|x_i y_i| in a dot product's error \
         (rounded up); probabilistic rows hold for one theta_n with the first probability and \
         for a dot product of n terms with the second (the union over its terms), both rounded down"
    );
    print!(
        "{}",
        render_table(
            &["format", "u", "bound", "value", "holds", "rigor", "source"],
            &rows
        )
    );
    Ok(ExitCode::Ok)
}
