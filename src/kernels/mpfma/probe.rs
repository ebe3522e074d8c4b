//! Probes of a matrix unit's arithmetic, after Fasi, Higham, Mikaitis and
//! Pranesh ("Numerical behavior of NVIDIA tensor cores", 2021; their suite
//! `tensor-cores-numerical-behavior/tc_test_numerics-*.cu`) and an order test
//! after FPRev (Xie et al., `peichenxie/FPRev`): each probe feeds crafted
//! inputs to `d = c + x . y` and reads one feature off the result.
//!
//! | probe | inputs | reads |
//! |---|---|---|
//! | `exact-products` | `(1 + ulp)^2 - (1 + 2 ulp)` | `ulp^2` survives: products are not rounded |
//! | `fraction-bits` | `2^14 + 2^(14-k) - 2^14`, k = 1, 2, ... | the largest k kept = `F` (fractional bits after alignment) |
//! | `alignment-rounding` | `2^14 +- 1.75 q - 2^14`, `q = 2^(14-F)` | `+-q`: truncation, `+-2q`: nearest, ... |
//! | `output-rounding` | `c = +-(2 - 2^-f)`, `+-2^(2-f)` | `2 + 1.5 ulp` rounds to `1` or `2` ulps: RZ, RNE, RU, RD |
//! | `block-size` | `2^14 - 2^14 + 2^(12-F)` at position j | the first j where the small term survives = `b` |
//! | `subnormal-inputs` | smallest subnormal times `2^e` | kept or flushed |
//! | `subnormal-outputs` | `c` = smallest subnormal of the accumulator | kept or flushed |
//! | `carry-out` | `b` products `(2 - ulp)^2` | the sum is exact up to the output rounding |
//! | `accumulation-order` | `+M` at i, `-M` at j, ones elsewhere, every pair | the table identifies a chain of fused blocks |
//!
//! [`MatrixUnit`] is what is probed: the CPU model of a record
//! ([`ModelUnit`]) or a GPU (`super::gpu`). On the model every probe must agree
//! with the record it implements (a test and the `mpfma-probe` experiment
//! check that); on a device the probes measure the hardware.

use super::blockfma::BlockFma;
use super::record::{TcInput, TcRecord};
use crate::audit::experiment::{Experiment, ExperimentContext, ExperimentReport, Params, Table};
use crate::error::{Error, Result};
use boundgate_verify::format::{Format, RoundingMode};
use serde::Serialize;
use serde_json::json;

/// A matrix unit computing `d = c + x . y` (`x`, `y` values of its input
/// format, any length: it chains its fused blocks along them).
pub trait MatrixUnit {
    /// What it is (for reports).
    fn describe(&self) -> String;
    /// The input format.
    fn input(&self) -> TcInput;
    /// The accumulator format (of `c` and `d`).
    fn accumulator(&self) -> Format;
    /// `d = c + x . y`.
    ///
    /// # Errors
    /// A GPU failure.
    fn dot(&self, x: &[f64], y: &[f64], c: f64) -> Result<f64>;
}

/// The CPU model of a record as a [`MatrixUnit`].
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::probe::{MatrixUnit, ModelUnit};
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let unit = ModelUnit::new(TcRecord::lookup(Arch::Sm80, TcInput::Fp16, TcOutput::Fp32).unwrap());
/// assert_eq!(unit.dot(&[1.0, 2.0], &[3.0, 4.0], 0.5).unwrap(), 11.5);
/// ```
pub struct ModelUnit {
    unit: BlockFma,
}

impl ModelUnit {
    /// The model of `record`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::probe::{MatrixUnit, ModelUnit};
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// use boundgate_verify::format::Format;
    /// let record = |arch| TcRecord::lookup(arch, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// let h100 = ModelUnit::new(record(Arch::Sm90));
    /// assert_eq!(h100.describe(), "CPU model of the sm90 fp16->fp32 record");
    /// assert_eq!((h100.input(), h100.accumulator()), (TcInput::Fp16, Format::FP32));
    /// // 1 - 1 + 2^-25 (as 2^-12 2^-13): kept with H100's 25 fractional bits, not A100's 24.
    /// let (x, y) = ([1.0, -1.0, 2f64.powi(-12)], [1.0, 1.0, 2f64.powi(-13)]);
    /// assert_eq!(h100.dot(&x, &y, 0.0).unwrap(), 2f64.powi(-25));
    /// assert_eq!(ModelUnit::new(record(Arch::Sm80)).dot(&x, &y, 0.0).unwrap(), 0.0);
    /// ```
    pub fn new(record: TcRecord) -> ModelUnit {
        ModelUnit {
            unit: BlockFma::new(&record),
        }
    }
}

impl MatrixUnit for ModelUnit {
    fn describe(&self) -> String {
        format!("CPU model of the {} record", self.unit.record().label())
    }
    fn input(&self) -> TcInput {
        self.unit.record().input
    }
    fn accumulator(&self) -> Format {
        self.unit.record().accumulator
    }
    fn dot(&self, x: &[f64], y: &[f64], c: f64) -> Result<f64> {
        Ok(self.unit.chain(x, y, c)?.0)
    }
}

/// What one probe found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeResult {
    /// The probe's name.
    pub name: &'static str,
    /// What it measures.
    pub question: &'static str,
    /// The measured answer.
    pub measured: String,
    /// What the record says.
    pub expected: String,
    /// Whether they agree.
    pub agrees: bool,
}

fn result(
    name: &'static str,
    question: &'static str,
    measured: String,
    expected: String,
) -> ProbeResult {
    let agrees = measured == expected;
    ProbeResult {
        name,
        question,
        measured,
        expected,
        agrees,
    }
}

/// `2^e` as a product `2^(e - e/2) * 2^(e/2)` of two input values, if both are representable.
fn power_as_product(format: Format, e: i32) -> Option<(f64, f64)> {
    let (hi, lo) = (e - e.div_euclid(2), e.div_euclid(2));
    let (a, b) = (2f64.powi(hi), 2f64.powi(lo));
    (format.is_representable(a) && format.is_representable(b) && a.is_finite() && b.is_finite())
        .then_some((a, b))
}

fn mode_name(mode: RoundingMode) -> &'static str {
    match mode {
        RoundingMode::NearestEven => "to nearest",
        RoundingMode::TowardZero => "toward zero",
        RoundingMode::Up => "toward +inf",
        RoundingMode::Down => "toward -inf",
    }
}

/// Runs every probe on `unit` and compares with `record`.
///
/// # Errors
/// A GPU failure, or inputs the format cannot represent (a probe that cannot
/// be built says so in its result instead).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::probe::{ModelUnit, run_probes};
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let results = run_probes(&ModelUnit::new(record), &record).unwrap();
/// assert!(results.iter().all(|r| r.agrees), "{results:?}");
/// ```
pub fn run_probes(unit: &dyn MatrixUnit, record: &TcRecord) -> Result<Vec<ProbeResult>> {
    let fmt = unit.input().operand();
    let acc = unit.accumulator();
    let p = fmt.precision() as i32;
    let f_expected = record.fraction_bits as i32;
    let mut out = Vec::new();

    // Exact products.
    let v = 1.0 + 2f64.powi(1 - p);
    let d = unit.dot(&[v], &[v], -(1.0 + 2f64.powi(2 - p)))?;
    out.push(result(
        "exact-products",
        "are products kept exactly?",
        if d == 2f64.powi(2 - 2 * p) {
            "exact"
        } else {
            "rounded"
        }
        .into(),
        "exact".into(),
    ));

    // Fractional bits after alignment.
    let (big_a, big_b) =
        power_as_product(fmt, 14).ok_or_else(|| Error::usage("2^7 is not an input value"))?;
    let mut kept = 0;
    for k in 1..=40 {
        let Some((sa, sb)) = power_as_product(fmt, 14 - k) else {
            break;
        };
        let d = unit.dot(&[big_a, sa, -big_a], &[big_b, sb, big_b], 0.0)?;
        if d == 0.0 {
            break;
        }
        kept = k;
    }
    out.push(result(
        "fraction-bits",
        "fractional bits F kept after alignment to the largest exponent (23 + extra bits)",
        kept.to_string(),
        f_expected.to_string(),
    ));

    // Rounding of the aligned terms.
    let q_exp = 14 - kept.max(1);
    let alignment = match power_as_product(fmt, q_exp) {
        Some((qa, qb)) => {
            let q = 2f64.powi(q_exp);
            let mut units = [0.0; 2];
            for (slot, sign) in [(0, 1.0), (1, -1.0)] {
                let d = unit.dot(&[big_a, sign * 1.75 * qa, -big_a], &[big_b, qb, big_b], 0.0)?;
                units[slot] = d / q;
            }
            match (units[0], units[1]) {
                (1.0, -1.0) => "truncation (toward zero)".to_string(),
                (1.0, -2.0) => "toward -inf".into(),
                (2.0, -1.0) => "toward +inf".into(),
                (2.0, -2.0) => "to nearest".into(),
                (a, b) => format!("unrecognised ({a} q, {b} q)"),
            }
        }
        None => "not measurable in this format".into(),
    };
    out.push(result(
        "alignment-rounding",
        "how terms below the alignment quantum are dropped",
        alignment,
        "truncation (toward zero)".into(),
    ));

    // Rounding of the result.
    let f = acc.precision() as i32 - 1;
    let output = match power_as_product(fmt, 2 - f) {
        Some((pa, pb)) => {
            let ulp = 2f64.powi(1 - f);
            let c = 2.0 - 2f64.powi(-f);
            let pos = (unit.dot(&[pa], &[pb], c)? - 2.0) / ulp;
            let neg = (-unit.dot(&[-pa], &[pb], -c)? - 2.0) / ulp;
            match (pos, neg) {
                (1.0, 1.0) => mode_name(RoundingMode::TowardZero).to_string(),
                (2.0, 2.0) => mode_name(RoundingMode::NearestEven).to_string(),
                (2.0, 1.0) => mode_name(RoundingMode::Up).to_string(),
                (1.0, 2.0) => mode_name(RoundingMode::Down).to_string(),
                (a, b) => format!("unrecognised ({a}, {b} ulps)"),
            }
        }
        None => "not measurable in this format".into(),
    };
    out.push(result(
        "output-rounding",
        "rounding of each block's result to the accumulator format",
        output,
        mode_name(record.output_mode).into(),
    ));

    // Block size.
    let small = power_as_product(fmt, 12 - kept.max(1));
    let block = match small {
        Some((sa, sb)) => {
            let mut found = None;
            for j in 2..=128usize {
                let mut x = vec![0.0; j + 1];
                let mut y = vec![0.0; j + 1];
                (x[0], y[0], x[1], y[1], x[j], y[j]) = (big_a, big_b, -big_a, big_b, sa, sb);
                if unit.dot(&x, &y, 0.0)? != 0.0 {
                    found = Some(j);
                    break;
                }
            }
            found.map_or("more than 128".into(), |j| j.to_string())
        }
        None => "not measurable in this format".into(),
    };
    out.push(result(
        "block-size",
        "products fused per block (the first position whose term is aligned separately)",
        block,
        record.block.to_string(),
    ));

    // Subnormal inputs.
    let e = fmt.emax().min(30);
    let tiny = fmt.min_positive();
    let d = unit.dot(&[tiny], &[2f64.powi(e)], 0.0)?;
    out.push(result(
        "subnormal-inputs",
        "are subnormal inputs used (or flushed to zero)?",
        if d == tiny * 2f64.powi(e) {
            "kept"
        } else if d == 0.0 {
            "flushed"
        } else {
            "other"
        }
        .into(),
        if record.subnormal_inputs {
            "kept"
        } else {
            "flushed"
        }
        .into(),
    ));

    // Subnormal outputs.
    let c = acc.min_positive();
    let d = unit.dot(&[0.0], &[0.0], c)?;
    out.push(result(
        "subnormal-outputs",
        "are subnormal results produced (or flushed to zero)?",
        if d == c {
            "kept"
        } else if d == 0.0 {
            "flushed"
        } else {
            "other"
        }
        .into(),
        if record.subnormal_outputs {
            "kept"
        } else {
            "flushed"
        }
        .into(),
    ));

    // Carry-out: b products of (2 - ulp)^2.
    let top = 2.0 - 2f64.powi(1 - p);
    let x = vec![top; record.block];
    let exact = record.block as f64 * top * top; // exact in f64 (at most 2p + 6 bits)
    let expected = acc.round(exact, record.output_mode);
    let d = unit.dot(&x, &x, 0.0)?;
    out.push(result(
        "carry-out",
        "is a full block of the largest products summed without losing carry bits?",
        if d == expected {
            "no bits lost"
        } else {
            "bits lost"
        }
        .into(),
        "no bits lost".into(),
    ));

    // Accumulation order (FPRev-style): the table of +M at i, -M at j, ones elsewhere.
    out.push(accumulation_order(unit, record)?);
    Ok(out)
}

/// The FPRev-style table for `n` positions: entry `(i, j)` is `c + x . y` with
/// `+M` at `i`, `-M` at `j` and `1 * 1` everywhere else.
fn order_table(unit: &dyn MatrixUnit, big: (f64, f64), n: usize) -> Result<Vec<f64>> {
    let mut table = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let mut x = vec![1.0; n];
            let y = {
                let mut y = vec![1.0; n];
                y[i] = big.1;
                y[j] = big.1;
                y
            };
            x[i] = big.0;
            x[j] = -big.0;
            table.push(unit.dot(&x, &y, 0.0)?);
        }
    }
    Ok(table)
}

fn accumulation_order(unit: &dyn MatrixUnit, record: &TcRecord) -> Result<ProbeResult> {
    let fmt = unit.input().operand();
    // M as large as the format allows: ones are then truncated in its blocks.
    let e = (2 * fmt.emax()).min(60);
    let big = (1..=e)
        .rev()
        .find_map(|k| power_as_product(fmt, k))
        .ok_or_else(|| Error::usage("no large power of two in the input format"))?;
    let n = 64;
    let measured_table = order_table(unit, big, n)?;
    let mut measured = "not a chain of fused blocks of 1..64".to_string();
    for b in [1usize, 2, 4, 8, 16, 32, 64] {
        let candidate = ModelUnit::new(record.with_block(b));
        if order_table(&candidate, big, n)? == measured_table {
            measured = format!("chain of fused blocks of {b}");
            break;
        }
    }
    Ok(result(
        "accumulation-order",
        "FPRev-style: which order of fused blocks reproduces the +M/-M table",
        measured,
        format!("chain of fused blocks of {}", record.block),
    ))
}

/// Experiment `mpfma-probe`: every probe on the CPU model of every record
/// (each must agree with its record: a disagreement is a bug in the model and
/// fails the audit).
pub struct ProbeExperiment;

impl Experiment for ProbeExperiment {
    fn name(&self) -> &'static str {
        "mpfma-probe"
    }
    fn summary(&self) -> &'static str {
        "Fasi et al.-style probes and an FPRev-style order test on the model of every tensor-core record"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        params.only(&[])
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Draws nothing from the seeds.
        Ok(0)
    }

    fn run(&self, _params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let mut report = ExperimentReport::new(
            self.name(),
            "Probes of the tensor-core models",
            "Every probe of `boundgate probe` on the CPU model of every record; each measured feature \
             must equal the record's. On a GPU, `boundgate probe --backend gpu` runs the same probes on \
             the device (docs/mpfma.md)."
                .to_string(),
        );
        let mut table = Table::new(
            "measured on the model (record) per probe",
            &[
                "record",
                "F",
                "alignment",
                "output",
                "block",
                "subnormals in/out",
                "order",
                "all agree",
            ],
        );
        let mut data = Vec::new();
        for record in TcRecord::all() {
            ctx.progress
                .set_message(format!("mpfma-probe {}", record.label()));
            let results = run_probes(&ModelUnit::new(record), &record)?;
            let get = |name: &str| {
                results
                    .iter()
                    .find(|r| r.name == name)
                    .map_or(String::new(), |r| r.measured.clone())
            };
            let all = results.iter().all(|r| r.agrees);
            if !all {
                report.rigorous_violations += 1;
                report.findings.push(format!(
                    "the model of {} disagrees with its record: {:?}",
                    record.label(),
                    results.iter().filter(|r| !r.agrees).collect::<Vec<_>>()
                ));
            }
            table.row(vec![
                record.label(),
                get("fraction-bits"),
                get("alignment-rounding"),
                get("output-rounding"),
                get("block-size"),
                format!("{} / {}", get("subnormal-inputs"), get("subnormal-outputs")),
                get("accumulation-order"),
                if all { "yes" } else { "NO" }.into(),
            ]);
            data.push(json!({ "record": record.label(), "results": results }));
        }
        report.tables.push(table);
        report.data = json!(data);
        Ok(report)
    }
}
