//! `boundgate probe`: measure what a matrix unit's arithmetic does (fractional
//! bits after alignment, rounding of aligned terms and of results, block size,
//! subnormals, carry bits, accumulation order) on the GPU when there is one,
//! else on the CPU model of a record, and compare with the record.
//!
//! Exit codes: 0 every probe agrees with the record; 1 a probe disagrees (the
//! record, and any bound built on it, does not describe this unit); 2 bad usage.

use super::gpu;
use super::probe::{MatrixUnit, ModelUnit, ProbeResult, run_probes};
use super::record::{Arch, TcInput, TcOutput, TcRecord};
use crate::error::{Error, ExitCode, Result};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `boundgate probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to probe: `cpu` (the model of a record), `gpu` (fails without one), `auto` (the GPU when present).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// The architecture whose record is modelled and compared with (`sm80`, `sm90`); a GPU uses its own.
    #[arg(long, default_value = "sm90")]
    arch: String,
    /// Input formats, comma separated (`fp16,bf16,tf32,e4m3,e5m2`), or `all` (those the architecture has).
    #[arg(long, default_value = "all")]
    input: String,
    /// Accumulator formats, comma separated (`fp32,fp16`), or `all`.
    #[arg(long, default_value = "all")]
    output: String,
    /// Write every result as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn parse_list<T>(text: &str, all: &[T], parse: impl Fn(&str) -> Result<T>) -> Result<Vec<T>>
where
    T: Copy,
{
    if text.trim() == "all" {
        return Ok(all.to_vec());
    }
    text.split(',').map(|s| parse(s.trim())).collect()
}

/// Runs `boundgate probe`.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::cli::{execute, ProbeArgs};
/// use boundgate::{Error, ExitCode};
/// use clap::Parser;
/// #[derive(Parser)]
/// struct Probe {
///     #[command(flatten)]
///     args: ProbeArgs,
/// }
/// let args = |a: &[&str]| Probe::try_parse_from([&["probe"], a].concat()).unwrap().args;
/// let json = std::env::temp_dir().join(format!("boundgate-probe-doc-{}.json", std::process::id()));
/// let path = json.to_str().unwrap();
/// // The CPU model of a record agrees with it, probe by probe: exit 0.
/// let cpu = ["--backend", "cpu", "--arch", "sm80", "--input", "fp16", "--output", "fp32", "--json", path];
/// assert_eq!(execute(args(&cpu)).unwrap(), ExitCode::Ok);
/// let report = std::fs::read_to_string(&json).unwrap();
/// std::fs::remove_file(&json).unwrap();
/// assert!(report.contains("\"schema\": \"boundgate.probe/1\""));
/// assert!(report.contains("\"agrees\": true") && !report.contains("\"agrees\": false"));
/// // Bad usage: an unknown backend; a combination sm80 lacks, asked for by name.
/// assert!(matches!(execute(args(&["--backend", "tpu"])), Err(Error::Usage(_))));
/// let fp8 = ["--backend", "cpu", "--arch", "sm80", "--input", "e4m3", "--output", "fp32"];
/// assert!(matches!(execute(args(&fp8)), Err(Error::Usage(_))));
/// ```
pub fn execute(args: ProbeArgs) -> Result<ExitCode> {
    let inputs = parse_list(&args.input, &TcInput::ALL, |s| s.parse())?;
    let outputs = parse_list(&args.output, &[TcOutput::Fp32, TcOutput::Fp16], |s| {
        s.parse()
    })?;
    let requested: Arch = args.arch.parse()?;
    let (arch, device, note) = match args.backend.as_str() {
        "cpu" => (requested, false, None),
        "gpu" | "auto" => match gpu::device_arch() {
            Ok(arch) => (arch, true, None),
            Err(reason) if args.backend == "gpu" => return Err(reason.into()),
            Err(reason) => (
                requested,
                false,
                Some(format!("{reason}: probing the CPU model")),
            ),
        },
        other => {
            return Err(Error::usage(format!(
                "unknown backend `{other}` (known: cpu, gpu, auto)"
            )));
        }
    };
    if let Some(note) = &note {
        eprintln!("{note}");
    }
    let mut all_agree = true;
    let mut report = Vec::new();
    for &input in &inputs {
        for &output in &outputs {
            // Combinations the hardware lacks are skipped when asked for with `all`.
            let Ok(record) = TcRecord::lookup(arch, input, output) else {
                if args.input != "all" && args.output != "all" {
                    TcRecord::lookup(arch, input, output)?;
                }
                continue;
            };
            let unit: Box<dyn MatrixUnit> = if device {
                match gpu::probe_unit(&record) {
                    Ok(unit) => unit,
                    Err(reason) => {
                        println!("{}: skipped on the GPU ({reason})", record.label());
                        continue;
                    }
                }
            } else {
                Box::new(ModelUnit::new(record))
            };
            let results = run_probes(unit.as_ref(), &record)?;
            println!("{} ({}):", record.label(), unit.describe());
            for r in &results {
                println!("  {}", describe(r));
                all_agree &= r.agrees;
            }
            report.push(json!({
                "record": record,
                "unit": unit.describe(),
                "results": results,
            }));
        }
    }
    if report.is_empty() {
        return Err(Error::usage(format!(
            "no record for {arch} with inputs {} and accumulators {}",
            args.input, args.output
        )));
    }
    let verdict = if all_agree {
        ExitCode::Ok
    } else {
        ExitCode::Violation
    };
    // A probe that disagrees with the record keeps its exit 1 when the JSON
    // cannot be written (the write error printed on its own line), as `run`
    // and `audit` do; the `?` here turned it into exit 2 (review, 2026-11-29).
    let written = match &args.json {
        None => Ok(()),
        Some(path) => {
            let text = serde_json::to_string_pretty(&json!({
                "schema": "boundgate.probe/1",
                "backend": if device { "gpu" } else { "cpu model" },
                "note": note,
                "probes": report,
            }))
            .expect("serializable");
            std::fs::write(path, text).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })
        }
    };
    crate::cli::verdict_despite_write(verdict, written)
}

fn describe(r: &ProbeResult) -> String {
    if r.agrees {
        format!("{}: {} (as recorded)", r.name, r.measured)
    } else {
        format!(
            "{}: {} DIFFERS from the record ({})",
            r.name, r.measured, r.expected
        )
    }
}
