//! `boundgate run KERNEL`: run a kernel's CPU model on .npy inputs and write
//! its result and, per element, the rigorous absolute error bound with respect
//! to the exact result on the inputs as given.

use crate::error::{Error, ExitCode, Result};
use crate::io::{Tensor, read_npy, write_npy};
use crate::kernels::{Inputs, ParamKind, Params, registry, reject_unknown_inputs};
use crate::kernels::{Kernel, LabelledVerdict};
use boundgate_verify::check::Outcome;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

// The usage line written out: `KERNEL` and `--output` are required unless
// `--list`, which clap's generated line showed as `[KERNEL]` with `--output`
// among the options (review, 2026-11-29).
#[derive(Debug, Args)]
#[command(
    override_usage = "boundgate run <KERNEL> --input NAME=FILE... --output <OUTPUT> [OPTIONS]\n       boundgate run --list"
)]
pub struct RunArgs {
    /// Kernel name (see --list).
    #[arg(required_unless_present = "list")]
    kernel: Option<String>,
    /// List the kernels, their inputs and parameters.
    #[arg(long)]
    list: bool,
    /// An input, NAME=FILE.npy (repeat for each input).
    #[arg(long = "input", value_name = "NAME=FILE")]
    inputs: Vec<String>,
    /// A parameter, KEY=VALUE (repeatable; unlisted keys keep their defaults).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// Where to write the kernel's output (.npy, float64); required unless --list.
    #[arg(long, required_unless_present = "list")]
    output: Option<PathBuf>,
    /// Where to write the per-element rigorous absolute error bounds (.npy; +inf where no bound holds).
    #[arg(long)]
    bound_output: Option<PathBuf>,
    /// Where to write a JSON report (parameters, bounds, verdicts against the exact oracle).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Exit 3 when the rigorous verdict is not a pass without being a
    /// violation (a hypothesis failed, the exact result is not finite, or an
    /// enclosure oracle left it undecided).
    #[arg(long)]
    strict: bool,
}

/// Runs `boundgate run KERNEL` (or lists the kernels): the kernel on the
/// `.npy` inputs, its output and bounds written, its verdicts printed; the
/// exit code is the rigorous verdict's.
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
/// let path = |name: &str| std::env::temp_dir().join(format!("boundgate-doc-run-{name}-{}.npy", std::process::id())).display().to_string();
/// write_npy(path("x").as_ref(), &Tensor::vector(vec![1.0, 2.0, 3.0])).unwrap();
/// let (x, y, out, bound) = (format!("x={}", path("x")), format!("y={}", path("x")), path("s"), path("b"));
/// let ran = boundgate(&["run", "dot-recursive", "--input", &x, "--input", &y, "--param", "format=fp16",
///     "--output", &out, "--bound-output", &bound]).status.code();
/// let (s, b) = (read_npy(out.as_ref()).unwrap(), read_npy(bound.as_ref()).unwrap());
/// let unknown = boundgate(&["run", "dot-magic", "--input", &x, "--output", &out]).status.code();
/// for name in ["x", "s", "b"] { std::fs::remove_file(path(name)).unwrap(); }
/// // x . x = 14, exact in fp16; rigorous bound ((n - 1) u (1 + u) + u) 14 for n = 3, u = 2^-11,
/// // plus fp16's underflow terms (below 2^-23)
/// let u = 2f64.powi(-11);
/// let every_n = 14.0 * (2.0 * u * (1.0 + u) + u);
/// assert_eq!((ran, s.data()), (Some(0), &[14.0][..]));
/// assert!(b.data()[0] >= every_n && b.data()[0] <= every_n + 2f64.powi(-23));
/// assert_eq!(unknown, Some(2)); // no such kernel
/// ```
pub fn execute(args: RunArgs) -> Result<ExitCode> {
    if args.list {
        print!("{}", list());
        return Ok(ExitCode::Ok);
    }
    let name = args
        .kernel
        .as_deref()
        .expect("clap requires a kernel without --list");
    let kernel = registry::find(name)?;
    distinct_outputs(&args)?;
    let inputs = read_inputs(&args.inputs)?;
    reject_unknown_inputs(kernel, &inputs)?;
    let params = Params::parse(kernel, &args.params)?;
    let run = kernel.run(&inputs, &params)?;

    let output_path = args
        .output
        .as_ref()
        .expect("clap requires --output without --list");
    let bounds = run.rigorous_values();
    let verdicts = run.verdicts()?;
    let report = args.json.as_ref().map(|_| {
        json!({
            "schema": "boundgate.run/1",
            "version": env!("CARGO_PKG_VERSION"),
            "kernel": kernel.name(),
            "params": params.as_map(),
            "inputs": inputs.iter().map(|(k, t)| (k.clone(), t.shape().to_vec())).collect::<std::collections::BTreeMap<_, _>>(),
            "output_shape": run.output.shape(),
            "details": run.details,
            // Over the elements that have a bound (+inf marks those that do
            // not); null when none has.
            "rigorous_bound_max": bounds.iter().copied().filter(|v| v.is_finite()).reduce(f64::max),
            "verdicts": verdicts,
        })
    });
    let written = write_outputs(&args, output_path, &run.output, &bounds, report.as_ref());
    let rigorous = &verdicts[0];
    println!("{}", describe(kernel.name(), rigorous));
    for v in &verdicts[1..] {
        println!("  {}", describe(&v.label, v));
    }
    let verdict = if rigorous.verdict.is_violation() {
        ExitCode::Violation
    } else if args.strict && !rigorous.verdict.is_pass() {
        ExitCode::Unjudged
    } else {
        ExitCode::Ok
    };
    super::verdict_despite_write(verdict, written)
}

/// Writes the output, the per-element bounds and the JSON report asked for
/// (after the verdict is known, so that a failed write cannot hide a
/// violation); stops at the first that fails.
fn write_outputs(
    args: &RunArgs,
    output_path: &std::path::Path,
    output: &Tensor,
    bounds: &[f64],
    report: Option<&serde_json::Value>,
) -> Result<()> {
    write_npy(output_path, output)?;
    if let Some(path) = &args.bound_output {
        write_npy(path, &reshape_like(output, bounds.to_vec())?)?;
    }
    if let (Some(path), Some(report)) = (&args.json, report) {
        std::fs::write(
            path,
            serde_json::to_string_pretty(report).expect("serializable"),
        )
        .map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

fn describe(name: &str, v: &LabelledVerdict) -> String {
    let e = v.verdict.errors.max_absolute;
    match &v.verdict.outcome {
        Outcome::Pass => format!(
            "{name}: holds (max error {e:.3e} <= bound {:.3e})",
            v.verdict.bound.as_ref().map_or(f64::NAN, |b| b.value)
        ),
        Outcome::Violation {
            element,
            error,
            bound,
        } => {
            format!("{name}: VIOLATED at element {element} (error {error:.3e} > bound {bound:.3e})")
        }
        Outcome::Undecided {
            element,
            error_down,
            error_up,
            bound,
        } => format!(
            "{name}: undecided at element {element} (error in [{error_down:.3e}, {error_up:.3e}] straddles bound {bound:.3e}: the exact result is known only within an enclosure)"
        ),
        Outcome::HypothesisNotMet { reason } => format!("{name}: no bound ({reason})"),
        Outcome::NonFinite {
            element,
            computed,
            exact,
            agree,
        } => format!(
            "{name}: non-finite values at element {element} (computed {computed}, exact {exact}, {}): no error to judge",
            if *agree { "agree" } else { "differ" }
        ),
    }
}

/// Refuses two outputs named by the same path: the later write replaced the
/// earlier one without a word (`--output r.npy --json r.npy` left a JSON
/// file where the kernel's output was asked for; review, 2026-11-29).
fn distinct_outputs(args: &RunArgs) -> Result<()> {
    let named = [
        ("--output", args.output.as_ref()),
        ("--bound-output", args.bound_output.as_ref()),
        ("--json", args.json.as_ref()),
    ];
    for (i, (flag, path)) in named.iter().enumerate() {
        let Some(path) = path else { continue };
        for (other, other_path) in &named[i + 1..] {
            if other_path.is_some_and(|p| same_file(p, path)) {
                return Err(Error::usage(format!(
                    "{flag} and {other} both name {}: each output needs its own file",
                    path.display()
                )));
            }
        }
    }
    Ok(())
}

/// The same file: the same path as written, or one folder (resolved, links
/// included) and the same name (`r.npy` and `./r.npy`, existing or not).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    let resolved = |p: &std::path::Path| {
        let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
        let folder = std::fs::canonicalize(folder.unwrap_or(".".as_ref())).ok()?;
        Some(folder.join(p.file_name()?))
    };
    a == b
        || matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

fn read_inputs(pairs: &[String]) -> Result<Inputs> {
    let mut inputs = Inputs::new();
    for pair in pairs {
        let (name, file) = pair
            .split_once('=')
            .ok_or_else(|| Error::usage(format!("--input `{pair}` is not NAME=FILE")))?;
        // An empty file name was reported as ": No such file or directory",
        // naming neither the input nor the file (review, 2026-11-29).
        if file.is_empty() {
            return Err(Error::usage(format!(
                "--input `{pair}`: no file after `=` (NAME=FILE)"
            )));
        }
        if inputs
            .insert(name.to_string(), read_npy(&PathBuf::from(file))?)
            .is_some()
        {
            return Err(Error::usage(format!("input `{name}` given twice")));
        }
    }
    Ok(inputs)
}

/// The values a parameter takes, for `--list`, where its help does not
/// already name each of them: `alpha`, `beta`, `threshold` and `eta` take
/// only listed numbers, which `--list` did not say (`alpha=1e-3` was refused
/// with a list the user could not have seen first; review, 2026-11-29).
fn choices(p: &crate::kernels::ParamSpec) -> String {
    match p.kind {
        ParamKind::Choice(words) if !words.iter().all(|w| mentions(p.help, w)) => {
            format!(" (one of: {})", words.join(", "))
        }
        _ => String::new(),
    }
}

/// Whether `word` appears in `text` as a whole token (not inside another
/// word or number: `1` is not in `0.1` nor in `-1`; a full stop after it
/// ends a sentence, not a number).
fn mentions(text: &str, word: &str) -> bool {
    let token = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let mut rest = text[i + word.len()..].chars();
        let after = match rest.next() {
            Some('.') => rest.next().is_some_and(|c| c.is_ascii_digit()),
            c => c.is_some_and(token),
        };
        !before.is_some_and(token) && !after
    })
}

fn reshape_like(like: &Tensor, data: Vec<f64>) -> Result<Tensor> {
    Ok(match like.dims2() {
        Some((r, c)) => Tensor::matrix(r, c, data)?,
        None if like.ndim() == 0 => Tensor::scalar(data[0]),
        None => Tensor::vector(data),
    })
}

fn list() -> String {
    let mut out = String::new();
    for k in registry::all() {
        out.push_str(&describe_kernel(*k));
    }
    out
}

fn describe_kernel(k: &dyn Kernel) -> String {
    let mut s = format!("{}: {}\n", k.name(), k.summary());
    for i in k.inputs() {
        s.push_str(&format!(
            "    input {} ({:?}): {}\n",
            i.name, i.shape, i.help
        ));
    }
    for p in k.params() {
        s.push_str(&format!(
            "    param {}={} : {}{}\n",
            p.key,
            p.default,
            p.help,
            choices(p)
        ));
    }
    s.push_str(&format!("    NaN/inf inputs: {}\n", k.info().non_finite));
    s
}
