//! Experiment `mpfma-blockfma-vs-thm37`: do Theorems 3.7 and 3.8, which
//! assume a rounding after every addition (eq. (7)), bound the block-FMA
//! arithmetic real tensor cores perform?
//!
//! For every record: random inner products (uniform and wide-exponent data,
//! subnormal factors included) and two constructed witnesses of length `b`:
//!
//! - [`normal_witness`]: `1 * 1` plus `b - 1` products just below two
//!   alignment quanta `2^-F` (each loses almost one quantum to truncation);
//! - [`subnormal_witness`]: the same where the largest EXPONENT belongs to a
//!   product with a subnormal factor, whose VALUE is `2^(p-1)` times smaller
//!   than its exponent says, so the quantum is huge relative to `sum |a_j b_j|`.
//!
//! The observed error against Theorem 3.7's bound (with Table 2's unit
//! roundoffs; for fp8 the paper's reading "accumulation in at least single
//! precision", i.e. `u_bar = u_FMA = u32`) is reported as a ratio; a ratio
//! above 1 is a counterexample, kept in `tests/mpfma_findings.rs` and
//! docs/findings/mpfma.md. The rigorous block-FMA bounds are checked on every
//! case and gate the audit.

use super::alg1::Alg1;
use super::blockfma::BlockFma;
use super::common::U_GIVEN_F64;
use super::gemm::GemmConfig;
use super::record::TcRecord;
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, elements_within, non_empty,
    product_within,
};
use crate::error::{Error, Result};
use boundgate_verify::bounds::tc::{
    GemmShape, block_fma_a_posteriori, block_fma_a_priori, thm_3_7, thm_3_8,
};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{self, ErrorMeasure};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// The `mpfma-blockfma-vs-thm37` experiment.
pub struct BlockFmaVsThm37;

/// `(1 - 2^-p) 2^(e+1)`: the largest significand of a format at exponent `e`.
fn top_of_binade(format: Format, e: i32) -> f64 {
    (2.0 - 2f64.powi(1 - format.precision() as i32)) * 2f64.powi(e)
}

/// `1 * 1` and `b - 1` products `(2 - ulp) 2^-F` (just below two quanta of the
/// alignment to `2^0`), as operand vectors of length `b`.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// use boundgate::kernels::mpfma::validity::normal_witness;
/// let r = TcRecord::lookup(Arch::Sm90, TcInput::E4m3, TcOutput::Fp32).unwrap();
/// let (x, y) = normal_witness(&r);
/// assert_eq!(x.len(), 32);
/// assert!(x.iter().chain(&y).all(|v| r.input.operand().is_representable(*v)));
/// ```
pub fn normal_witness(record: &TcRecord) -> (Vec<f64>, Vec<f64>) {
    let fmt = record.input.operand();
    let f = record.fraction_bits as i32;
    let (ex, ey) = (-(f / 2), -(f - f / 2));
    let mut x = vec![top_of_binade(fmt, ex); record.block];
    let mut y = vec![2f64.powi(ey); record.block];
    x[0] = 1.0;
    y[0] = 1.0;
    (x, y)
}

/// A product whose largest exponent comes from a subnormal factor (`x_0` the
/// smallest subnormal, exponent `emin`, significand `2^(1-p)`), and `b - 1`
/// products `(2 - ulp) 2^(E - F)` just below two quanta of that alignment.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// use boundgate::kernels::mpfma::validity::subnormal_witness;
/// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let (x, y) = subnormal_witness(&r);
/// assert_eq!(x[0], 2f64.powi(-24)); // the smallest fp16 subnormal
/// assert!(x.iter().chain(&y).all(|v| r.input.operand().is_representable(*v)));
/// ```
pub fn subnormal_witness(record: &TcRecord) -> (Vec<f64>, Vec<f64>) {
    let fmt = record.input.operand();
    let f = record.fraction_bits as i32;
    let e_y0 = fmt.emax().min(4);
    let e_max = fmt.emin() + e_y0; // the exponent of x_0 y_0
    let mut x = vec![top_of_binade(fmt, fmt.emin()); record.block];
    let mut y = vec![2f64.powi(e_max - f - fmt.emin()); record.block];
    x[0] = fmt.min_positive();
    y[0] = 2f64.powi(e_y0);
    (x, y)
}

/// One case's outcome: the error and the bounds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseOutcome {
    /// `|s^ - s|`, rounded up.
    pub error: f64,
    /// Theorem 3.7's bound, if it has one.
    pub thm_3_7: Option<f64>,
    /// Theorem 3.8's bound (inputs as given = as read), if it has one.
    pub thm_3_8: Option<f64>,
    /// The rigorous a-priori block-FMA bound.
    pub a_priori: Option<f64>,
    /// The rigorous a-posteriori block-FMA bound.
    pub a_posteriori: Option<f64>,
    /// Whether Algorithm 1's own arithmetic (a rounding after every addition,
    /// Table 2's formats) also violates Theorem 3.7 on this input: then the
    /// theorem fails by its own model's hypotheses (underflow), not because of
    /// the block FMA.
    pub alg1_violates: bool,
}

impl CaseOutcome {
    /// `error / Theorem 3.7` (0 if the error is 0; `None` without a bound).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::validity::CaseOutcome;
    /// let case = |error, thm_3_7| CaseOutcome { error, thm_3_7, thm_3_8: None, a_priori: None, a_posteriori: None, alg1_violates: false };
    /// assert_eq!(case(2f64.powi(-20), Some(2f64.powi(-18))).ratio_3_7(), Some(0.25));
    /// assert_eq!(case(0.0, Some(0.0)).ratio_3_7(), Some(0.0)); // no error: 0 even against 0
    /// assert_eq!(case(1e-9, Some(0.0)).ratio_3_7(), Some(f64::INFINITY));
    /// assert_eq!(case(1e-9, None).ratio_3_7(), None);
    /// ```
    pub fn ratio_3_7(&self) -> Option<f64> {
        self.thm_3_7.map(|b| ratio(self.error, b))
    }
    /// Whether a rigorous bound is violated (a bug).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::validity::CaseOutcome;
    /// let case = |a_priori, a_posteriori| CaseOutcome { error: 2.0, thm_3_7: Some(0.5), thm_3_8: None, a_priori, a_posteriori, alg1_violates: false };
    /// assert!(!case(Some(2.0), Some(3.0)).rigorous_violated()); // Theorem 3.7 is not rigorous
    /// assert!(case(Some(2.0), Some(1.5)).rigorous_violated());
    /// assert!(case(Some(1.0), None).rigorous_violated());
    /// assert!(!case(None, None).rigorous_violated()); // no bound, nothing violated
    /// ```
    pub fn rigorous_violated(&self) -> bool {
        self.a_priori.is_some_and(|b| self.error > b)
            || self.a_posteriori.is_some_and(|b| self.error > b)
    }
}

fn ratio(error: f64, bound: f64) -> f64 {
    if error == 0.0 {
        0.0
    } else if bound == 0.0 {
        f64::INFINITY
    } else {
        error / bound
    }
}

/// Runs one inner product (operand values) on the record's block FMA and
/// evaluates Theorems 3.7, 3.8 and the rigorous bounds.
///
/// # Errors
/// Oracle errors (mismatched lengths).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// use boundgate::kernels::mpfma::validity::{evaluate, subnormal_witness};
/// let r = TcRecord::lookup(Arch::Sm80, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// // Aligned to a subnormal factor's product, the b - 1 small products are truncated:
/// // the block FMA errs far beyond Theorem 3.7 (no underflow term), within the
/// // rigorous bounds, where Algorithm 1's own arithmetic stays within the theorem.
/// let (x, y) = subnormal_witness(&r);
/// let case = evaluate(&r, &x, &y).unwrap();
/// assert!(case.ratio_3_7().unwrap() > 100.0);
/// assert!(!case.rigorous_violated() && !case.alg1_violates);
/// // Exact for small integers: no error at all.
/// let exact = evaluate(&r, &[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
/// assert_eq!((exact.error, exact.ratio_3_7()), (0.0, Some(0.0)));
/// assert!(evaluate(&r, &[1.0, 2.0], &[1.0]).is_err()); // mismatched lengths
/// ```
pub fn evaluate(record: &TcRecord, x: &[f64], y: &[f64]) -> Result<CaseOutcome> {
    let unit = BlockFma::new(record);
    let (d, partials) = unit.chain(x, y, 0.0)?;
    let error = match oracle::dot(x, y)?.error_of(d) {
        ErrorMeasure::Finite { absolute_up, .. } => absolute_up,
        ErrorMeasure::NonFinite { .. } => f64::INFINITY,
    };
    let config = GemmConfig {
        record: *record,
        alg1: false,
        fp16_epilogue: false,
    };
    let r = config.roundoffs();
    let s = oracle::abs_dot_up(x, y)?;
    let shape = GemmShape::new(1, x.len() as u64, record.block as u64)?;
    let spec = record.spec();
    let alg1 = Alg1::table2(record.input, record.output, record.block);
    let alg1_error = match oracle::dot(x, y)?.error_of(alg1.dot(x, y)?) {
        ErrorMeasure::Finite { absolute_up, .. } => absolute_up,
        ErrorMeasure::NonFinite { .. } => f64::INFINITY,
    };
    let thm = thm_3_7(&r, &shape, s).ok().map(|b| b.value);
    Ok(CaseOutcome {
        alg1_violates: thm.is_some_and(|b| alg1_error > b),
        error,
        thm_3_7: thm,
        thm_3_8: thm_3_8(&r, &shape, U_GIVEN_F64, s).ok().map(|b| b.value),
        a_priori: block_fma_a_priori(&spec, x, y).ok().map(|b| b.value),
        a_posteriori: block_fma_a_posteriori(&spec, x, y, &partials)
            .ok()
            .map(|b| b.value),
    })
}

struct Config {
    trials: usize,
    lengths: Vec<usize>,
}

/// The most operand values drawn per record, `trials x` the longest length
/// `x` the largest block (32): 2^28, one input's limit
/// ([`MAX_INPUT_ELEMENTS`](crate::audit::plan::MAX_INPUT_ELEMENTS)). Every
/// value goes through the block FMA, Algorithm 1, the exact oracle and two
/// rigorous bounds, for each of the records; the shipped plans draw at most
/// 300 x 8 x 32 (about 2^16.5) and a length of 2^28 blocks alone asked
/// for 2^33 values in one case.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::mpfma::validity::MAX_VALUES_LOG2, 28);
/// ```
pub const MAX_VALUES_LOG2: u32 = 28;

fn config(p: &Params) -> std::result::Result<Config, String> {
    p.only(&["trials", "lengths"])?;
    let lengths = non_empty("lengths", p.usize_list_or("lengths", &[1, 2, 8])?)?;
    if lengths.contains(&0) {
        return Err("params.lengths: multiples of the block, each >= 1".into());
    }
    let block = TcRecord::all().iter().map(|r| r.block).max().unwrap_or(1);
    let longest = lengths.iter().copied().max().unwrap_or(1);
    elements_within("lengths", &[longest, block])?;
    // Without random cases the table showed a maximum ratio of 0 over none.
    let trials = p.usize_or("trials", 300)?;
    if trials == 0 {
        return Err("params.trials: needs at least one trial".into());
    }
    product_within(
        "trials",
        &[trials, longest, block],
        MAX_VALUES_LOG2,
        "operand values per record",
    )?;
    Ok(Config { trials, lengths })
}

/// Random operands: uniform `(-1, 1)` or wide exponents reaching the subnormals.
fn random_case(record: &TcRecord, rng: &mut ChaCha8Rng, n: usize) -> (Vec<f64>, Vec<f64>) {
    let fmt = record.input.operand();
    let rne = RoundingMode::NearestEven;
    let wide = rng.random::<bool>();
    let draw = |rng: &mut ChaCha8Rng| {
        let v = if wide {
            let e = rng.random_range(fmt.emin() - fmt.precision() as i32..=3);
            rng.random_range(1.0..2.0) * 2f64.powi(e)
        } else {
            rng.random_range(-1.0..1.0)
        };
        let sign = if rng.random::<bool>() { -1.0 } else { 1.0 };
        fmt.round(sign * v, rne)
    };
    let x = (0..n).map(|_| draw(rng)).collect();
    let y = (0..n).map(|_| draw(rng)).collect();
    (x, y)
}

impl Experiment for BlockFmaVsThm37 {
    fn name(&self) -> &'static str {
        "mpfma-blockfma-vs-thm37"
    }
    fn summary(&self) -> &'static str {
        "do Theorems 3.7/3.8 (a rounding after every addition) bound the block-FMA arithmetic of each tensor-core record?"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params).map(|_| ())
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Runs the first seed only (seeds.count does not matter to it).
        Ok(0)
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let cfg = config(params).map_err(Error::usage)?;
        let mut report = ExperimentReport::new(
            self.name(),
            "Theorems 3.7 and 3.8 against the block-FMA arithmetic",
            format!(
                "For every record: {} random inner products (lengths {:?} blocks; uniform or wide-exponent \
                 data with subnormal factors; seed {}) and two constructed witnesses of one block \
                 (normal: 1*1 and b-1 products just below two alignment quanta; subnormal: the largest \
                 exponent set by a product with a subnormal factor). Ratio = observed error / Theorem 3.7 \
                 (Table 2's unit roundoffs; fp32 accumulation counted as fp32). Ratio > 1: a counterexample. \
                 The rigorous block-FMA bounds (a priori, a posteriori) are checked on every case.",
                cfg.trials, cfg.lengths, ctx.seeds.first
            ),
        );
        let mut table = Table::new(
            "error / Theorem 3.7 bound (max over cases)",
            &[
                "record",
                "random: max ratio",
                "random: block-FMA violations",
                "random: underflow (Alg. 1 violates too)",
                "random: max ratio 3.8",
                "normal witness",
                "subnormal witness",
                "rigorous violations",
            ],
        );
        let mut data = Vec::new();
        for record in TcRecord::all() {
            ctx.progress
                .set_message(format!("{}: {}", self.name(), record.label()));
            let mut rng = ChaCha8Rng::seed_from_u64(ctx.seeds.first);
            let (mut worst, mut worst38, mut rigorous) = (0.0f64, 0.0f64, 0u64);
            let (mut model_violations, mut underflow_violations) = (0u64, 0u64);
            let mut worst_case = None;
            for trial in 0..cfg.trials {
                let n = cfg.lengths[trial % cfg.lengths.len()] * record.block;
                let (x, y) = random_case(&record, &mut rng, n);
                let outcome = evaluate(&record, &x, &y)?;
                if outcome.rigorous_violated() {
                    rigorous += 1;
                }
                let r = outcome.ratio_3_7().unwrap_or(0.0);
                if r > 1.0 && outcome.alg1_violates {
                    // Theorem 3.7 fails on its own model here (underflow): not about the block FMA.
                    underflow_violations += 1;
                    continue;
                }
                if r > 1.0 {
                    model_violations += 1;
                }
                if r > worst {
                    worst = r;
                    worst_case = Some((x, y));
                }
                if let Some(b) = outcome.thm_3_8 {
                    worst38 = worst38.max(ratio(outcome.error, b));
                }
            }
            let mut witness_ratios = Vec::new();
            for (name, (x, y)) in [
                ("normal", normal_witness(&record)),
                ("subnormal", subnormal_witness(&record)),
            ] {
                let outcome = evaluate(&record, &x, &y)?;
                if outcome.rigorous_violated() {
                    rigorous += 1;
                }
                let r = outcome.ratio_3_7();
                if r.is_some_and(|r| r > 1.0) {
                    report.findings.push(format!(
                        "{}: Theorem 3.7 is violated by the block FMA ({name} witness, one block of {}): \
                         error {:.3e} > bound {:.3e} (ratio {:.3e}); x = {:?}, y = {:?}",
                        record.label(),
                        record.block,
                        outcome.error,
                        outcome.thm_3_7.unwrap_or(f64::NAN),
                        r.unwrap_or(f64::NAN),
                        x,
                        y
                    ));
                }
                witness_ratios.push(r);
            }
            if worst > 1.0 {
                report.findings.push(format!(
                    "{}: Theorem 3.7 is violated by the block FMA on {model_violations} of {} random cases \
                     where Algorithm 1's own arithmetic satisfies it (max ratio {worst:.3e})",
                    record.label(),
                    cfg.trials
                ));
            }
            report.rigorous_violations += rigorous;
            let show = |r: Option<f64>| r.map_or("no bound".into(), |r| format!("{r:.3e}"));
            table.row(vec![
                record.label(),
                format!("{worst:.3e}"),
                model_violations.to_string(),
                underflow_violations.to_string(),
                format!("{worst38:.3e}"),
                show(witness_ratios[0]),
                show(witness_ratios[1]),
                rigorous.to_string(),
            ]);
            data.push(json!({
                "record": record.label(),
                "random_max_ratio": worst,
                "random_block_fma_violations": model_violations,
                "random_underflow_violations": underflow_violations,
                "random_max_ratio_3_8": worst38,
                "normal_witness_ratio": witness_ratios[0],
                "subnormal_witness_ratio": witness_ratios[1],
                "rigorous_violations": rigorous,
                "worst_random_case": worst_case,
            }));
        }
        report.tables.push(table);
        report.data = json!({ "trials": cfg.trials, "lengths": cfg.lengths, "rows": data });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, params, refused};

    #[test]
    fn params_that_would_exhaust_memory_or_test_nothing_are_refused() {
        assert!(accepts_defaults_and_shipped(&BlockFmaVsThm37) >= 2);
        let e = &BlockFmaVsThm37;
        refused(e, "lengths = []", "lengths");
        refused(e, "lengths = [1, 0]", "lengths");
        assert_eq!(
            refused(e, "lengths = [268435456]", "lengths"),
            "params.lengths: 268435456 x 32 = 8589934592 elements exceed the limit of 2^28"
        );
        refused(e, "trials = 0", "trials");
        let err = refused(e, "trials = 268435456", "trials");
        assert!(err.contains("operand values per record"), "{err}");
        e.check_params(&params("trials = 1000000\nlengths = [8]"))
            .unwrap();
        // The largest block is what the limit assumes.
        assert_eq!(TcRecord::all().iter().map(|r| r.block).max(), Some(32));
    }
}
