//! Audit reports: JSON for machines (schema `boundgate.audit/2`), a Markdown
//! page and a terminal summary table for people.
//!
//! The JSON is deterministic for a given plan and build: timings live in their
//! own section, and everything else depends only on the plan and the seeds,
//! except the results of the units listed in `timings.timed_units`
//! (experiments that measure wall-clock time).

use super::experiment::ExperimentReport;
use super::plan::{Plan, Seeds};
use super::shard::Shard;
use crate::error::ExitCode;
use crate::error::{Error, Result};
use boundgate_verify::bounds::Rigor;
use boundgate_verify::check::{Outcome, TrialsVerdict, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Version tag of the JSON report.
pub const SCHEMA: &str = "boundgate.audit/2";

/// How many trials ended in each outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    /// Error within the bound.
    pub pass: u64,
    /// Error above the bound.
    pub violation: u64,
    /// Neither proven within nor proven above the bound: the oracle's
    /// enclosure of the exact result straddles it (absent in reports written
    /// before 2026-11-25: 0).
    #[serde(default)]
    pub undecided: u64,
    /// The bound had no value (a hypothesis failed).
    pub hypothesis_not_met: u64,
    /// The exact result was NaN or infinite.
    pub non_finite: u64,
}

impl OutcomeCounts {
    /// The rigorous verdicts that were not judged (undecided, hypothesis
    /// not met, non-finite): what `--strict` fails on.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::OutcomeCounts;
    /// let k = OutcomeCounts { pass: 5, violation: 1, undecided: 2, hypothesis_not_met: 3, non_finite: 4 };
    /// // 2 + 3 + 4: neither passes nor violations count
    /// assert_eq!(k.not_judged(), 9);
    /// assert_eq!(OutcomeCounts { pass: 7, violation: 7, ..Default::default() }.not_judged(), 0);
    /// // saturating: hand-built counts cannot overflow or wrap
    /// let k = OutcomeCounts { undecided: u64::MAX, non_finite: 1, ..Default::default() };
    /// assert_eq!(k.not_judged(), u64::MAX);
    /// ```
    pub fn not_judged(&self) -> u64 {
        // Saturating, as `ViolationCauses::add`: the fields are public, and
        // `u64::MAX` undecided plus one more overflowed (a panic in debug
        // builds, a wrap to a small count in release ones).
        self.undecided
            .saturating_add(self.hypothesis_not_met)
            .saturating_add(self.non_finite)
    }

    fn add(&mut self, o: &OutcomeCounts) {
        self.pass = self.pass.saturating_add(o.pass);
        self.violation = self.violation.saturating_add(o.violation);
        self.undecided = self.undecided.saturating_add(o.undecided);
        self.hypothesis_not_met = self.hypothesis_not_met.saturating_add(o.hypothesis_not_met);
        self.non_finite = self.non_finite.saturating_add(o.non_finite);
    }
}

/// Why a non-gating bound was violated, judged from the same trial's rigorous
/// verdict. Published models leave out effects the rigorous bounds include
/// (underflow in the dot-product bounds, conversion or alignment error in
/// matrix units, ...): a violation with a possible overflow, or one the
/// rigorous bound still covers, is explained by such a model gap (the
/// kernel's findings document say which); anything else is not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViolationCauses {
    /// An intermediate could overflow (or did: the result was not finite).
    pub overflow: u64,
    /// The rigorous bound held: a term the published bound omits (underflow,
    /// conversion, alignment ... see the kernel family's findings) explains it.
    pub model_gap: u64,
    /// Neither: a violation the known model limits do not explain.
    pub unexplained: u64,
}

impl ViolationCauses {
    /// Classifies one violation of a non-gating bound. A rigorous one beside
    /// the gate (mpfma-gemm's other-order bound) leaves out no term: its
    /// violation is never a model gap (a bug, or for a vendor GEMM an order
    /// that is not the one it assumes), so it counts as unexplained.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::ViolationCauses;
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{ElementBounds, Outcome, check};
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// // an error of 2 against a published bound of 1: a violation
    /// let error = [ErrorMeasure::Finite { absolute_up: 2.0, absolute_down: None, relative_up: None, exact: 1.0 }];
    /// let bound = Bound::deterministic(1.0, Quantity::AbsoluteError, Source::new("p", "r", None), Rigor::Published);
    /// let v = check(&error, Ok(ElementBounds::uniform(bound, 1))).unwrap();
    /// let cause = |rigorous: Outcome| ViolationCauses::classify(&v, &rigorous);
    /// assert_eq!(cause(Outcome::Pass), ViolationCauses { model_gap: 1, ..Default::default() });
    /// let overflow = Outcome::HypothesisNotMet { reason: "a partial sum may overflow".into() };
    /// assert_eq!(cause(overflow), ViolationCauses { overflow: 1, ..Default::default() });
    /// let violated = Outcome::Violation { element: 0, error: 2.0, bound: 1.5 };
    /// assert_eq!(cause(violated), ViolationCauses { unexplained: 1, ..Default::default() });
    /// ```
    pub fn classify(violation: &Verdict, rigorous: &Outcome) -> ViolationCauses {
        let overflowed = matches!(violation.outcome, Outcome::Violation { error, .. } if error.is_infinite())
            || matches!(rigorous, Outcome::HypothesisNotMet { reason } if reason.contains("overflow"));
        let rigorous_itself = violation
            .bound
            .as_ref()
            .is_some_and(|b| b.rigor == boundgate_verify::bounds::Rigor::Rigorous);
        let mut c = ViolationCauses::default();
        if overflowed {
            c.overflow = 1;
        } else if matches!(rigorous, Outcome::Pass) && !rigorous_itself {
            c.model_gap = 1;
        } else {
            c.unexplained = 1;
        }
        c
    }

    /// Adds another count.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::ViolationCauses;
    /// let mut c = ViolationCauses { overflow: 1, model_gap: 2, unexplained: 3 };
    /// c.add(&ViolationCauses { overflow: 10, model_gap: 20, unexplained: 30 });
    /// assert_eq!(c, ViolationCauses { overflow: 11, model_gap: 22, unexplained: 33 });
    /// // saturating: counts read from a file cannot wrap to 0
    /// c.add(&ViolationCauses { overflow: u64::MAX, ..Default::default() });
    /// assert_eq!(c.overflow, u64::MAX);
    /// ```
    pub fn add(&mut self, other: &ViolationCauses) {
        // Saturating: counts read back by `merge` are not ours to trust
        // (2^63 twice wrapped to 0 in release builds; review, 2026-11-26).
        self.overflow = self.overflow.saturating_add(other.overflow);
        self.model_gap = self.model_gap.saturating_add(other.model_gap);
        self.unexplained = self.unexplained.saturating_add(other.unexplained);
    }

    /// All causes together, or None where they overflow a `u64`.
    fn total(&self) -> Option<u64> {
        self.overflow
            .checked_add(self.model_gap)?
            .checked_add(self.unexplained)
    }
}

/// One bound's results over the trials of a cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundSummary {
    /// The bound's label.
    pub label: String,
    /// Whether this is the kernel's rigorous bound (its violations fail the audit).
    pub gating: bool,
    /// Rigorous or published (None if it never had a value).
    pub rigor: Option<Rigor>,
    /// For non-gating bounds: why their violations happened.
    pub violation_causes: ViolationCauses,
    /// Outcomes.
    pub counts: OutcomeCounts,
    /// Largest observed error / bound (tightness; > 1 is a violation).
    pub max_ratio: Option<f64>,
    /// The first violation, with its seed.
    pub first_violation: Option<String>,
    /// The first undecided trial, with its seed (absent before 2026-11-25).
    #[serde(default)]
    pub first_undecided: Option<String>,
    /// Why the bound had no value (up to three distinct reasons).
    pub hypothesis_reasons: Vec<String>,
    /// For probabilistic bounds: the binomial judgement over the trials.
    pub statistics: Option<TrialsVerdict>,
}

impl BoundSummary {
    fn is_rigorous(&self) -> bool {
        self.gating
    }

    /// The statistical judgement of a probabilistic bound beside the gate:
    /// what the totals count as consistent or not, and the summary as judged.
    fn probabilistic(&self) -> Option<&TrialsVerdict> {
        if self.is_rigorous() {
            None
        } else {
            self.statistics.as_ref()
        }
    }
}

/// The results of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellReport {
    /// Position of this cell among the plan's units (cells, then experiments).
    pub unit: usize,
    /// Kernel name.
    pub kernel: String,
    /// Parameters.
    pub params: BTreeMap<String, String>,
    /// Problem size.
    pub size: usize,
    /// Distribution label.
    pub distribution: String,
    /// Number of trials.
    pub trials: u64,
    /// First seed (trials use first, first + 1, ...).
    pub first_seed: u64,
    /// Per bound.
    pub bounds: Vec<BoundSummary>,
}

impl CellReport {
    /// The cell for people: kernel, parameters, size and distribution. The
    /// parameters tell apart cells that differ only in them (four default-plan
    /// qdot cells were listed alike until 2026-11-25; review).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::CellReport;
    /// let c = CellReport {
    ///     unit: 0,
    ///     kernel: "qdot".into(),
    ///     params: [("t".to_string(), "9".to_string())].into(),
    ///     size: 16,
    ///     distribution: "U(-1,1)".into(),
    ///     trials: 1,
    ///     first_seed: 1,
    ///     bounds: vec![],
    /// };
    /// assert_eq!(c.describe(), "qdot t=9 n=16 U(-1,1)");
    /// ```
    pub fn describe(&self) -> String {
        describe_cell(
            &self.kernel,
            self.params.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            self.size,
            &self.distribution,
        )
    }
}

/// `kernel k=v ... n=size distribution`: a cell as [`CellReport::describe`]
/// and the runner's errors name it.
pub(crate) fn describe_cell<'a>(
    kernel: &str,
    params: impl IntoIterator<Item = (&'a str, &'a str)>,
    size: usize,
    distribution: &str,
) -> String {
    let mut out = kernel.to_string();
    for (k, v) in params {
        let _ = write!(out, " {k}={v}");
    }
    let _ = write!(out, " n={size} {distribution}");
    out
}

/// Totals over the whole plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Cells run.
    pub cells: usize,
    /// Trials run.
    pub trials: u64,
    /// Outcomes of the rigorous bounds (these gate the exit code).
    pub rigorous: OutcomeCounts,
    /// Violations of published deterministic bounds (findings), by cause.
    pub published_violations: ViolationCauses,
    /// Probabilistic bounds whose violation counts are inconsistent with their
    /// stated probability at the plan's confidence (findings).
    pub probabilistic_inconsistent: u64,
    /// Experiments run.
    pub experiments: usize,
    /// Rigorous-bound violations reported by experiments (these gate the exit code too).
    pub experiment_violations: u64,
    /// Findings reported by experiments.
    pub experiment_findings: usize,
}

impl Totals {
    /// Sums the cells and experiments.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::experiment::ExperimentReport;
    /// use boundgate::audit::report::{ExperimentEntry, Totals};
    /// let mut e = ExperimentReport::new("x", "X", "");
    /// e.rigorous_violations = 2;
    /// e.findings.push("a finding".into());
    /// let entries = [ExperimentEntry { unit: 0, report: e.clone() }, ExperimentEntry { unit: 1, report: e }];
    /// let t = Totals::of(&[], &entries);
    /// assert_eq!((t.cells, t.trials, t.experiments), (0, 0, 2));
    /// assert_eq!((t.experiment_violations, t.experiment_findings), (4, 2)); // 2 + 2, 1 + 1
    /// ```
    pub fn of(cells: &[CellReport], experiments: &[ExperimentEntry]) -> Totals {
        let mut t = Totals {
            cells: cells.len(),
            experiments: experiments.len(),
            experiment_violations: experiments
                .iter()
                .fold(0u64, |a, e| a.saturating_add(e.report.rigorous_violations)),
            experiment_findings: experiments.iter().map(|e| e.report.findings.len()).sum(),
            ..Totals::default()
        };
        for c in cells {
            t.trials = t.trials.saturating_add(c.trials);
            for b in &c.bounds {
                if b.is_rigorous() {
                    t.rigorous.add(&b.counts);
                } else if let Some(s) = b.probabilistic() {
                    t.probabilistic_inconsistent += u64::from(!s.consistent());
                } else {
                    t.published_violations.add(&b.violation_causes);
                }
            }
        }
        t
    }
}

/// Wall-clock timings, kept apart so the rest of the report is deterministic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Whole run, seconds (for a merged report: the sum over its shards).
    pub total_seconds: f64,
    /// Units whose results are wall-clock measurements (experiments that
    /// time kernels): their content varies from run to run.
    #[serde(default)]
    pub timed_units: Vec<usize>,
}

/// Where and with what a report was produced: enough to reproduce it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// boundgate's version.
    pub boundgate: String,
    /// boundgate-verify's version (the checker).
    pub boundgate_verify: String,
    /// The MPFR library behind the oracles.
    pub mpfr: String,
    /// The GMP library behind MPFR.
    pub gmp: String,
    /// The compiler that built this binary.
    pub rustc: String,
    /// The commit this binary was built from (`git rev-parse --short=12`),
    /// `-dirty` when tracked files differed from it, `unknown` outside a
    /// checkout; empty in reports written before 2026-11-26.
    #[serde(default)]
    pub commit: String,
    /// Target architecture and OS.
    pub target: String,
    /// Where kernels asking for `backend = auto` or `gpu` would run: the GPU's
    /// name, or why there is none (kernels then run their CPU models).
    pub device: String,
    /// `BOUNDGATE_HEAVY=1`: experiments ran their opt-in heavy sizes. It
    /// changes their results, so shards that differ in it do not merge
    /// (review, 2026-11-26: they merged, and nothing said so).
    #[serde(default)]
    pub heavy: bool,
}

impl Environment {
    /// The commit as shown in reports: `unknown` where none was recorded.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::Environment;
    /// let mut env = Environment::current();
    /// env.commit = String::new();
    /// assert_eq!(env.commit_label(), "unknown");
    /// ```
    pub fn commit_label(&self) -> &str {
        if self.commit.is_empty() {
            "unknown"
        } else {
            &self.commit
        }
    }

    /// This process's environment.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::Environment;
    /// let env = Environment::current();
    /// assert_eq!(env.boundgate, env!("CARGO_PKG_VERSION"));
    /// assert_eq!(env.target, format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS));
    /// assert!(env.mpfr.starts_with(|c: char| c.is_ascii_digit()) && !env.gmp.is_empty());
    /// assert!(!env.rustc.is_empty() && !env.commit.is_empty()); // "unknown" where not found
    /// assert_eq!(env.heavy, std::env::var_os("BOUNDGATE_HEAVY").is_some_and(|v| v != "0"));
    /// // nothing in it varies between calls: reports of one build compare equal
    /// assert_eq!(env, Environment::current());
    /// ```
    pub fn current() -> Environment {
        let (mpfr, gmp) = boundgate_verify::oracle::mpfr::library_versions();
        Environment {
            boundgate: env!("CARGO_PKG_VERSION").to_string(),
            boundgate_verify: boundgate_verify::VERSION.to_string(),
            mpfr,
            gmp,
            rustc: env!("BOUNDGATE_RUSTC").to_string(),
            commit: env!("BOUNDGATE_COMMIT").to_string(),
            target: format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
            device: crate::gpu::probe().to_string(),
            heavy: crate::generate::heavy(),
        }
    }
}

/// An experiment's report with its position among the plan's units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentEntry {
    /// Position among the plan's units (cells first, then experiments).
    pub unit: usize,
    /// The report.
    #[serde(flatten)]
    pub report: ExperimentReport,
}

/// A whole audit.
///
/// Everything except [`AuditReport::timings`] and the units it lists as
/// timed depends only on the plan, the seeds and the build
/// ([`AuditReport::environment`]): the same plan and seeds give
/// byte-identical JSON apart from these, and the merge of a sharded run
/// ([`super::shard`]) equals the unsharded report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// `boundgate.audit/2`.
    pub schema: String,
    /// Plan name.
    pub plan: String,
    /// Plan description.
    pub description: String,
    /// A digest of the plan as parsed (shards of different plans never merge).
    pub plan_digest: String,
    /// The plan's seeds (cells and experiments may override them; each cell
    /// records its own first seed and count).
    pub seeds: Seeds,
    /// Confidence of the statistical judgements.
    pub confidence: f64,
    /// Versions, target and device.
    pub environment: Environment,
    /// Which shard of the plan this report covers (`None`: all of it).
    pub shard: Option<Shard>,
    /// Number of units (cells + experiments) in the whole plan.
    pub units: usize,
    /// Totals.
    pub totals: Totals,
    /// Per cell.
    pub cells: Vec<CellReport>,
    /// Per experiment.
    pub experiments: Vec<ExperimentEntry>,
    /// Timings (not deterministic).
    pub timings: Timings,
}

impl AuditReport {
    /// The overall verdict in words, as the exit codes decide it (the strict
    /// gate's wording: "held" only where `--strict` passes too).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// // fp16 products of numbers near 2^8 reach 2^16 > 65504: no rigorous bound (possible overflow)
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "scaled-significand", exp_min = 8, exp_max = 8 }] }]"#;
    /// let mut report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// assert_eq!(report.verdict_text(), "PASS: no rigorous bound violated; 2 verdicts not judged (--strict fails)");
    /// report.totals.rigorous.hypothesis_not_met = 0;
    /// assert_eq!(report.verdict_text(), "PASS: every rigorous bound held");
    /// report.totals.rigorous.violation = 1;
    /// assert_eq!(report.verdict_text(), "FAIL: a rigorous bound was violated");
    /// ```
    pub fn verdict_text(&self) -> String {
        let not_judged = self.totals.rigorous.not_judged();
        match self.strict_exit_code() {
            ExitCode::Ok => "PASS: every rigorous bound held".into(),
            ExitCode::Unjudged => format!(
                "PASS: no rigorous bound violated; {not_judged} verdicts not judged (--strict fails)"
            ),
            _ => "FAIL: a rigorous bound was violated".into(),
        }
    }

    /// " Experiments: n run, v rigorous violations, f findings." (empty
    /// without experiments): an experiment's violation gates the exit code
    /// as a cell's does, and the totals line read "0 VIOLATED" beside it
    /// (review, 2026-11-26).
    fn experiments_summary(&self) -> String {
        let t = &self.totals;
        if t.experiments == 0 {
            return String::new();
        }
        format!(
            " Experiments: {} run, {} rigorous violations, {} findings.",
            t.experiments, t.experiment_violations, t.experiment_findings
        )
    }

    /// "k of K probabilistic bounds inconsistent at confidence c", with what
    /// chance alone gives: each cell's bound is its own test at `c`, with no
    /// correction for their number, so where every claim is true about
    /// `K (1 - c)` of them still read inconsistent (review, 2026-11-26).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// confidence = 0.9
    /// campaign = [{ kernel = "dot-recursive", sizes = [16, 32], params = { format = ["fp16"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"#;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// // one probabilistic bound (Higham-Mary) per cell, two cells: 2 x (1 - 0.9) = 0.2 by chance
    /// assert_eq!(
    ///     report.probabilistic_summary(),
    ///     "0 of 2 probabilistic bounds inconsistent at confidence 0.9 \
    ///      (each judged on its own: about 0.20 expected by chance if every claim is true)"
    /// );
    /// ```
    pub fn probabilistic_summary(&self) -> String {
        let judged = self
            .cells
            .iter()
            .flat_map(|c| &c.bounds)
            .filter(|b| b.probabilistic().is_some())
            .count();
        let inconsistent = self.totals.probabilistic_inconsistent;
        let chance = judged as f64 * (1.0 - self.confidence);
        format!(
            "{inconsistent} of {judged} probabilistic bounds inconsistent at confidence {} \
             (each judged on its own: about {chance:.2} expected by chance if every claim is true)",
            self.confidence
        )
    }

    /// "violations of non-gating bounds ...; k of K probabilistic bounds
    /// inconsistent ...": the findings clause of the totals, one wording for
    /// the text summary, the Markdown and the HTML.
    pub(crate) fn findings_summary(&self) -> String {
        let p = &self.totals.published_violations;
        format!(
            "violations of non-gating bounds (published, or rigorous beside the gate): {} with \
             possible overflow, {} within the rigorous model (a term the published bound omits), \
             {} unexplained; {}",
            p.overflow,
            p.model_gap,
            p.unexplained,
            self.probabilistic_summary()
        )
    }

    /// Assembles a report of `plan` (or of one shard of it).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::report::{AuditReport, SCHEMA, Timings};
    /// use boundgate::audit::Plan;
    /// let plan = Plan::default_plan().unwrap();
    /// let timings = Timings { total_seconds: 1.5, timed_units: vec![] };
    /// let r = AuditReport::new(&plan, None, vec![], vec![], timings).unwrap();
    /// assert_eq!((r.schema.as_str(), r.plan.as_str()), (SCHEMA, "default"));
    /// assert_eq!((r.plan_digest, r.seeds, r.confidence), (plan.digest(), plan.seeds, plan.confidence));
    /// // the units are the whole plan's; the totals are those of the cells given (none)
    /// assert_eq!(r.units, plan.units().unwrap());
    /// assert_eq!((r.totals.cells, r.totals.trials), (0, 0));
    /// ```
    pub fn new(
        plan: &Plan,
        shard: Option<Shard>,
        cells: Vec<CellReport>,
        experiments: Vec<ExperimentEntry>,
        timings: Timings,
    ) -> Result<AuditReport> {
        let totals = Totals::of(&cells, &experiments);
        Ok(AuditReport {
            schema: SCHEMA.to_string(),
            plan: plan.name.clone(),
            description: plan.description.clone(),
            plan_digest: plan.digest(),
            seeds: plan.seeds,
            confidence: plan.confidence,
            environment: Environment::current(),
            shard,
            units: plan.units()?,
            totals,
            cells,
            experiments,
            timings,
        })
    }

    /// The JSON report, without the timings: byte-identical for the same
    /// plan, seeds and build (except the units listed in
    /// `timings.timed_units`, experiments that measure wall-clock time).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-pairwise", sizes = [16], params = { format = ["bf16"] }, distributions = [{ kind = "normal", mean = 0.0, std_dev = 1.0 }] }]"#;
    /// let plan = Plan::from_toml(text, "doc.toml".as_ref()).unwrap();
    /// let (a, mut b) = (run_plan(&plan, RunOptions::default()).unwrap(), run_plan(&plan, RunOptions::default()).unwrap());
    /// b.timings.total_seconds += 1.0; // another run's wall clock
    /// assert_eq!(a.deterministic_json(), b.deterministic_json()); // byte for byte
    /// assert_ne!(a.to_json(), b.to_json());
    /// assert!(!a.deterministic_json().contains("\"timings\""));
    /// ```
    pub fn deterministic_json(&self) -> String {
        let mut value = serde_json::to_value(self).expect("reports serialize");
        if let Some(map) = value.as_object_mut() {
            map.remove("timings");
        }
        serde_json::to_string_pretty(&value).expect("reports serialize")
    }

    /// Reads a JSON report (e.g. a shard's), checking its schema.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::audit::{AuditReport, Plan, RunOptions, run_plan};
    /// use std::path::Path;
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"#;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// let path = Path::new("report.json");
    /// assert_eq!(AuditReport::from_json(&report.to_json(), path).unwrap(), report); // every f64 bit kept
    /// // another schema, and a report whose counts cannot be boundgate's, are refused
    /// let old = report.to_json().replace("boundgate.audit/2", "boundgate.audit/1");
    /// assert!(matches!(AuditReport::from_json(&old, path), Err(Error::Report { .. })));
    /// let edited = report.to_json().replace("\"units\": 1", "\"units\": 2");
    /// let err = AuditReport::from_json(&edited, path).unwrap_err();
    /// assert!(matches!(&err, Error::Report { reason, .. } if reason.starts_with("units: ")));
    /// ```
    pub fn from_json(text: &str, path: &Path) -> Result<AuditReport> {
        let bad = |reason: String| Error::Report {
            path: path.to_path_buf(),
            reason,
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => {
                return Err(bad(format!(
                    "schema {other}: this boundgate reads {SCHEMA}"
                )));
            }
            None => return Err(bad("no \"schema\" field: not a boundgate report".into())),
        }
        let report: AuditReport =
            serde_json::from_value(value).map_err(|e| bad(format!("malformed report: {e}")))?;
        report.check_consistent().map_err(bad)?;
        Ok(report)
    }

    /// Why a report read from a file cannot be one boundgate wrote: a file
    /// may say anything, and `merge` and the renderers trust these fields
    /// (a shard count of 2^63 aborted `merge` on allocation, a seed count of
    /// 0 panicked the Markdown page; review of 2026-11-25). The reason names
    /// the field.
    fn check_consistent(&self) -> std::result::Result<(), String> {
        if let Some(reason) = self.seeds.problem() {
            return Err(format!("seeds: {reason}"));
        }
        if let Some(s) = self.shard
            && (s.count == 0 || s.index == 0 || s.index > s.count)
        {
            return Err(format!(
                "shard: {}/{} is not a shard I/N with I in 1..=N",
                s.index, s.count
            ));
        }
        let held = self.cells.len() + self.experiments.len();
        if let Some(s) = self.shard {
            // Shard I/N runs every N-th unit from I - 1: exactly
            // ceil((units - I + 1) / N) of them.
            let owned = self.units.saturating_sub(s.index - 1).div_ceil(s.count);
            if held != owned {
                return Err(format!(
                    "units: {} units in the plan give shard {s} {owned}, but it holds {held}",
                    self.units
                ));
            }
        } else if held != self.units {
            return Err(format!(
                "units: {} units, but the report holds {held} cells and experiments",
                self.units
            ));
        }
        let units = self
            .cells
            .iter()
            .map(|c| c.unit)
            .chain(self.experiments.iter().map(|e| e.unit));
        for (i, unit) in units.enumerate() {
            if unit >= self.units {
                return Err(format!(
                    "unit {unit} (entry {i}) is beyond the plan's {} units",
                    self.units
                ));
            }
            if let Some(s) = self.shard
                && !s.owns(unit)
            {
                return Err(format!("unit {unit} does not belong to shard {s}"));
            }
        }
        for (i, c) in self.cells.iter().enumerate() {
            let seeds = Seeds {
                first: c.first_seed,
                count: c.trials,
            };
            if let Some(reason) = seeds.problem() {
                return Err(format!("cells[{i}].trials: {reason}"));
            }
            // The kernel's rigorous bound comes first, gates, and has a
            // verdict in every trial; no other bound gates (the exit code,
            // JUnit and the tables read it there: an edited report with a
            // second gating bound exited 1 with JUnit at 0 failures).
            match c.bounds.first() {
                None => {
                    return Err(format!(
                        "cells[{i}].bounds: empty (the rigorous bound comes first)"
                    ));
                }
                Some(b) if !b.gating => {
                    return Err(format!(
                        "cells[{i}].bounds[0]: the rigorous bound must gate"
                    ));
                }
                _ => {}
            }
            if let Some(j) = c.bounds.iter().skip(1).position(|b| b.gating) {
                return Err(format!(
                    "cells[{i}].bounds[{}]: only the first bound gates",
                    j + 1
                ));
            }
            for (j, b) in c.bounds.iter().enumerate() {
                let k = &b.counts;
                let sum = [
                    k.pass,
                    k.violation,
                    k.undecided,
                    k.hypothesis_not_met,
                    k.non_finite,
                ]
                .iter()
                .try_fold(0u64, |a, &x| a.checked_add(x));
                if sum.is_none_or(|s| s > c.trials) {
                    return Err(format!(
                        "cells[{i}].bounds[{j}].counts: the outcomes add up to more than the cell's {} trials",
                        c.trials
                    ));
                }
                if j == 0 && sum != Some(c.trials) {
                    return Err(format!(
                        "cells[{i}].bounds[0].counts: the rigorous bound has a verdict in each of the cell's {} trials",
                        c.trials
                    ));
                }
                // Every violation has one cause.
                if b.violation_causes.total() != Some(k.violation) {
                    return Err(format!(
                        "cells[{i}].bounds[{j}].violation_causes: they do not add up to its {} violations",
                        k.violation
                    ));
                }
                if b.max_ratio.is_some_and(|r| r.is_nan() || r < 0.0) {
                    return Err(format!(
                        "cells[{i}].bounds[{j}].max_ratio: a ratio of an error to a bound is not negative"
                    ));
                }
            }
        }
        let t = &self.timings;
        if !(t.total_seconds.is_finite() && t.total_seconds >= 0.0) {
            return Err(format!(
                "timings.total_seconds: {} is not a duration",
                t.total_seconds
            ));
        }
        if let Some(u) = t.timed_units.iter().find(|&&u| u >= self.units) {
            return Err(format!(
                "timings.timed_units: unit {u} is beyond the plan's {} units",
                self.units
            ));
        }
        Ok(())
    }

    /// 1 ([`ExitCode::Violation`]) when a cell's rigorous bound or an
    /// experiment was violated, else 0: unjudged verdicts and findings about
    /// published or probabilistic bounds do not fail (see
    /// [`AuditReport::strict_exit_code`] for the former).
    ///
    /// # Example
    /// ```
    /// use boundgate::ExitCode;
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"#;
    /// let mut report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// assert_eq!(report.exit_code(), ExitCode::Ok);
    /// // findings (published or probabilistic) do not fail; a rigorous violation does, a cell's or an experiment's
    /// report.totals.published_violations.unexplained = 3;
    /// assert_eq!(report.exit_code(), ExitCode::Ok);
    /// report.totals.experiment_violations = 1;
    /// assert_eq!(report.exit_code(), ExitCode::Violation);
    /// assert_eq!(ExitCode::Violation as i32, 1);
    /// ```
    pub fn exit_code(&self) -> ExitCode {
        if self.totals.rigorous.violation > 0 || self.totals.experiment_violations > 0 {
            ExitCode::Violation
        } else {
            ExitCode::Ok
        }
    }

    /// [`AuditReport::exit_code`], except that a report without violations
    /// but with rigorous verdicts that are not passes (undecided, hypothesis
    /// not met, non-finite exact results) gives [`ExitCode::Unjudged`] (`--strict`).
    ///
    /// # Example
    /// ```
    /// use boundgate::ExitCode;
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// // fp16 products of numbers near 2^8 reach 2^16 > 65504: no rigorous bound (possible overflow)
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "scaled-significand", exp_min = 8, exp_max = 8 }] }]"#;
    /// let mut report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// assert_eq!(report.totals.rigorous.hypothesis_not_met, 2);
    /// assert_eq!((report.exit_code(), report.strict_exit_code()), (ExitCode::Ok, ExitCode::Unjudged));
    /// // a violation outranks the unjudged verdicts
    /// report.totals.rigorous.violation = 1;
    /// assert_eq!(report.strict_exit_code(), ExitCode::Violation);
    /// ```
    pub fn strict_exit_code(&self) -> ExitCode {
        let rigorous = &self.totals.rigorous;
        match self.exit_code() {
            ExitCode::Ok if rigorous.not_judged() > 0 => ExitCode::Unjudged,
            code => code,
        }
    }

    /// The JSON report.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 5, count = 3 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp32"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"#;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// let v: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    /// assert_eq!(v["schema"], "boundgate.audit/2");
    /// assert_eq!((v["totals"]["cells"].as_u64(), v["totals"]["trials"].as_u64()), (Some(1), Some(3)));
    /// assert_eq!(v["cells"][0]["first_seed"], 5);
    /// assert_eq!(v["cells"][0]["bounds"][0]["gating"], true); // the rigorous bound comes first
    /// assert!(v["timings"]["total_seconds"].as_f64().unwrap() >= 0.0);
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    /// The summary table: headers and one row per cell.
    pub(crate) fn rows(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let headers = vec![
            "kernel",
            "params",
            "n",
            "inputs",
            "trials",
            "rigorous pass/viol/undec/hyp/nonfin",
            "max err/bound",
            "published viol",
            "probabilistic",
        ];
        let rows = self
            .cells
            .iter()
            .map(|c| {
                let rigorous = c.bounds.iter().find(|b| b.is_rigorous());
                let mut published = ViolationCauses::default();
                for b in c
                    .bounds
                    .iter()
                    .filter(|b| !b.is_rigorous() && b.statistics.is_none())
                {
                    published.add(&b.violation_causes);
                }
                let published = if published == ViolationCauses::default() {
                    "0".to_string()
                } else {
                    format!(
                        "{} ovf/{} gap/{} ?",
                        published.overflow, published.model_gap, published.unexplained
                    )
                };
                let probabilistic: Vec<String> = c
                    .bounds
                    .iter()
                    .filter_map(|b| b.statistics.as_ref())
                    .map(|s| {
                        let verdict = |consistent: bool| {
                            if consistent {
                                "consistent"
                            } else {
                                "INCONSISTENT"
                            }
                        };
                        let trials = match &s.statistics {
                            None => "n/a".to_string(),
                            Some(st) => format!(
                                "{}/{} viol, p>={}: {}",
                                st.violations,
                                s.judged,
                                // Not to nearest: 0.99996 read "p>=1.000".
                                crate::decimal::probability(s.claimed_probability),
                                if st.vacuous {
                                    "vacuous"
                                } else {
                                    verdict(st.consistent)
                                }
                            ),
                        };
                        match &s.per_element {
                            None => trials,
                            // The per-element claim as the rate it allows:
                            // p = 0.99999 would print as 1.000.
                            Some(e) => format!(
                                "{trials}; {}/{} elements, <= {:.1e} each: {}",
                                e.violating,
                                e.elements,
                                e.allowed_rate,
                                verdict(e.consistent)
                            ),
                        }
                    })
                    .collect();
                vec![
                    c.kernel.clone(),
                    // Every parameter, probability too: two cells differing
                    // only in it read the same (review, 2026-11-26).
                    c.params
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    c.size.to_string(),
                    c.distribution.clone(),
                    c.trials.to_string(),
                    rigorous.map_or("-".into(), |b| {
                        let k = b.counts;
                        format!(
                            "{}/{}/{}/{}/{}",
                            k.pass, k.violation, k.undecided, k.hypothesis_not_met, k.non_finite
                        )
                    }),
                    rigorous
                        .and_then(|b| b.max_ratio)
                        .map_or("-".into(), |r| format!("{r:.2e}")),
                    published,
                    if probabilistic.is_empty() {
                        "-".into()
                    } else {
                        probabilistic.join("; ")
                    },
                ]
            })
            .collect();
        (headers, rows)
    }

    /// The terminal summary: a table of cells, one of experiments, the
    /// totals, and each cell whose rigorous bound was violated or left
    /// undecided, with the first seed at which it was (unit, cell, seed,
    /// element; up to 20 lines).
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "scaled-significand", exp_min = 8, exp_max = 8 }] }]"#;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// let table = report.summary_table();
    /// let lines: Vec<&str> = table.lines().collect();
    /// assert!(lines[0].starts_with("kernel ") && lines[1].starts_with("---"));
    /// // one row: both trials without a rigorous bound (pass/viol/undec/hyp/nonfin)
    /// assert!(lines[2].starts_with("dot-recursive ") && lines[2].contains(" 0/0/0/2/0 "));
    /// assert!(table.contains("1 cells, 2 trials. Rigorous bounds: 0 pass, 0 VIOLATED, 0 undecided, 2 hypothesis not met, 0 non-finite."));
    /// ```
    pub fn summary_table(&self) -> String {
        let (headers, rows) = self.rows();
        let mut out = if rows.is_empty() {
            String::new()
        } else {
            render_table(&headers, &rows)
        };
        if !self.experiments.is_empty() {
            let rows: Vec<Vec<String>> = self
                .experiments
                .iter()
                .map(|x| &x.report)
                .map(|e| {
                    vec![
                        e.name.clone(),
                        e.title.clone(),
                        e.rigorous_violations.to_string(),
                        e.findings.len().to_string(),
                    ]
                })
                .collect();
            out.push('\n');
            out.push_str(&render_table(
                &["experiment", "title", "rigorous violations", "findings"],
                &rows,
            ));
        }
        let t = &self.totals;
        let _ = writeln!(
            out,
            "\n{} cells, {} trials. Rigorous bounds: {} pass, {} VIOLATED, {} undecided, {} hypothesis not met, {} non-finite.{}",
            t.cells,
            t.trials,
            t.rigorous.pass,
            t.rigorous.violation,
            t.rigorous.undecided,
            t.rigorous.hypothesis_not_met,
            t.rigorous.non_finite,
            self.experiments_summary()
        );
        let _ = writeln!(out, "Findings: {}.", self.findings_summary());
        // The cells that fail the gate (or `--strict`), each with the seed
        // of its first such trial: a gate run without report files printed
        // "1 VIOLATED" and nothing to reproduce it by (review, 2026-11-29).
        let failing: Vec<String> = self
            .cells
            .iter()
            .flat_map(|c| {
                let b = c.bounds.first().filter(|b| b.gating);
                let kinds = b.map(|b| {
                    [
                        ("violation", b.counts.violation, &b.first_violation),
                        ("undecided", b.counts.undecided, &b.first_undecided),
                    ]
                });
                kinds
                    .into_iter()
                    .flatten()
                    .filter(|(_, count, _)| *count > 0)
                    .map(|(kind, count, first)| {
                        format!(
                            "{kind} ({count} of {} trials), first: {}",
                            c.trials,
                            first.as_deref().unwrap_or("not recorded")
                        )
                    })
                    .map(move |what| format!("  unit {} {}: {what}", c.unit, c.describe()))
            })
            .collect();
        if !failing.is_empty() {
            let _ = writeln!(
                out,
                "Rigorous bounds violated or undecided (rerun the cell at the seed to reproduce):"
            );
            const SHOWN: usize = 20;
            for line in failing.iter().take(SHOWN) {
                let _ = writeln!(out, "{line}");
            }
            if failing.len() > SHOWN {
                let _ = writeln!(
                    out,
                    "  ... and {} more (the JSON, Markdown, HTML and JUnit reports list each)",
                    failing.len() - SHOWN
                );
            }
        }
        out
    }

    /// Writes the Markdown page to `path` and each experiment chart as an SVG
    /// file beside it (`<stem>-<unit>-<experiment>-<k>.svg`, the experiment's
    /// name with every character but ASCII letters, digits, `-`, `_` and `.`
    /// as `_`: a report read back by `merge` may name it anything, and
    /// `../x` or `a/b` made the write fail or land outside the folder; review,
    /// 2026-11-29).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// let text = r#"name = "doc"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"#;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// let path = std::env::temp_dir().join(format!("boundgate-doc-report-{}.md", std::process::id()));
    /// report.write_markdown(&path).unwrap();
    /// let written = std::fs::read_to_string(&path).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// assert_eq!(written, report.to_markdown()); // no experiment: no chart files
    /// let nowhere = path.with_file_name("no-such-dir").join("r.md");
    /// assert!(matches!(report.write_markdown(&nowhere), Err(Error::Io { path, .. }) if path == nowhere));
    /// ```
    pub fn write_markdown(&self, path: &Path) -> Result<()> {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("report")
            .to_string();
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut charts = Vec::new();
        for x in &self.experiments {
            let e = &x.report;
            for (k, chart) in e.charts.iter().enumerate() {
                // The unit keeps two experiments of one name apart (the
                // second overwrote the first's charts until 2026-11-25).
                let file = format!("{stem}-{}-{}-{k}.svg", x.unit, file_safe(&e.name));
                let target = dir.join(&file);
                std::fs::write(&target, chart.to_svg()?).map_err(|source| Error::Io {
                    path: target,
                    source,
                })?;
                charts.push(file);
            }
        }
        std::fs::write(path, self.to_markdown_with(&charts)).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// A Markdown page: totals, the table, and every hypothesis failure and violation.
    ///
    /// # Example
    /// ```
    /// use boundgate::audit::{Plan, RunOptions, run_plan};
    /// // a plan name with Markdown syntax in it
    /// let text = r##"name = "# a|b"
    /// seeds = { first = 1, count = 2 }
    /// campaign = [{ kernel = "dot-recursive", sizes = [16], params = { format = ["fp16"] }, distributions = [{ kind = "uniform", low = -1.0, high = 1.0 }] }]"##;
    /// let report = run_plan(&Plan::from_toml(text, "doc.toml".as_ref()).unwrap(), RunOptions::default()).unwrap();
    /// let md = report.to_markdown();
    /// // the name stays text: no second heading, no table cell separator
    /// assert!(md.starts_with("# boundgate audit: \\# a\\|b\n"));
    /// assert!(md.contains("**Verdict: PASS: every rigorous bound held.** **1 cells, 2 trials.**"));
    /// assert!(md.contains("seeds 1..=2, confidence 0.999."));
    /// ```
    pub fn to_markdown(&self) -> String {
        self.to_markdown_with(&[])
    }

    /// The Markdown page, linking the experiments' charts to the given files (in order).
    fn to_markdown_with(&self, chart_files: &[String]) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# boundgate audit: {}\n\n{}\n",
            super::experiment::markdown_text(&self.plan, true),
            super::experiment::markdown_text(&self.description, false)
        );
        let env = &self.environment;
        let _ = writeln!(
            out,
            "boundgate {} (commit {}, checker {}, MPFR {}, GMP {}, {}, {}), device: {}{}. Schema `{}`, seeds {}..={}, confidence {}.\n",
            env.boundgate,
            env.commit_label(),
            env.boundgate_verify,
            env.mpfr,
            env.gmp,
            env.rustc,
            env.target,
            env.device,
            if env.heavy {
                ", heavy sizes (BOUNDGATE_HEAVY=1)"
            } else {
                ""
            },
            self.schema,
            self.seeds.first,
            self.seeds.last(),
            self.confidence
        );
        let (headers, rows) = self.rows();
        let _ = writeln!(out, "{}", super::experiment::markdown_row(&headers));
        let _ = writeln!(out, "|{}|", vec!["---"; headers.len()].join("|"));
        for r in &rows {
            let _ = writeln!(out, "{}", super::experiment::markdown_row(r));
        }
        let t = &self.totals;
        let _ = writeln!(
            out,
            "\n**Verdict: {}.** **{} cells, {} trials.** Rigorous bounds: {} pass, {} violated, {} undecided, {} hypothesis not met, {} non-finite.{} \
             Findings: {}.\n",
            self.verdict_text(),
            t.cells,
            t.trials,
            t.rigorous.pass,
            t.rigorous.violation,
            t.rigorous.undecided,
            t.rigorous.hypothesis_not_met,
            t.rigorous.non_finite,
            self.experiments_summary(),
            self.findings_summary()
        );
        let _ = writeln!(out, "## Violations and unmet hypotheses\n");
        for c in &self.cells {
            for b in &c.bounds {
                if b.first_violation.is_none()
                    && b.first_undecided.is_none()
                    && b.hypothesis_reasons.is_empty()
                {
                    continue;
                }
                let _ = writeln!(out, "- {} [{}]:", c.describe(), b.label);
                if let Some(v) = &b.first_violation {
                    let _ = writeln!(
                        out,
                        "  - violation ({} of {} trials), first: {v}",
                        b.counts.violation, c.trials
                    );
                }
                if let Some(u) = &b.first_undecided {
                    let _ = writeln!(
                        out,
                        "  - undecided ({} of {} trials: the oracle's enclosure straddles the bound), first: {u}",
                        b.counts.undecided, c.trials
                    );
                }
                for r in &b.hypothesis_reasons {
                    let _ = writeln!(out, "  - hypothesis not met: {r}");
                }
            }
        }
        let mut files = chart_files.iter();
        for e in self.experiments.iter().map(|x| &x.report) {
            let _ = writeln!(
                out,
                "\n## Experiment `{}`: {}\n\n{}\n",
                e.name, e.title, e.description
            );
            let _ = writeln!(
                out,
                "Rigorous-bound violations: {}.\n",
                e.rigorous_violations
            );
            for f in &e.findings {
                let _ = writeln!(out, "- **Finding:** {f}");
            }
            for t in &e.tables {
                let _ = writeln!(out, "\n{}", t.to_markdown());
            }
            for chart in &e.charts {
                match files.next() {
                    Some(file) => {
                        let _ = writeln!(out, "![{}]({file})\n", chart.title);
                    }
                    None => {
                        let _ = writeln!(out, "(chart: {})\n", chart.title);
                    }
                }
            }
        }
        out
    }
}

/// Renders rows as an aligned text table.
///
/// # Example
/// ```
/// use boundgate::audit::report::render_table;
/// let rows = [vec!["10".to_string(), "0.5".to_string()], vec!["1000".to_string(), "x".to_string()]];
/// // columns as wide as their widest cell, two spaces apart, no trailing spaces
/// assert_eq!(
///     render_table(&["n", "value"], &rows),
///     "n     value\n----  -----\n10    0.5\n1000  x\n"
/// );
/// ```
pub fn render_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = line(headers.to_vec());
    out.push('\n');
    out.push_str(&line(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect(),
    ));
    out.push('\n');
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

/// `name` as part of one file-name component: ASCII letters, digits, `-`,
/// `_` and `.` kept, anything else (path separators included) as `_`. Dots
/// are harmless: the result is always embedded between a prefix and a
/// suffix, so it is never `.` or `..` itself.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn chart_file_names_stay_in_their_folder() {
        assert_eq!(file_safe("qdot-fig1"), "qdot-fig1");
        assert_eq!(file_safe("../../etc/x"), ".._.._etc_x");
        assert_eq!(file_safe("a/b\\c d\u{0}é"), "a_b_c_d__");
        for hostile in ["../x", "/abs", "a/../../b", "..", "x\\..\\y"] {
            let name = format!("r-0-{}-0.svg", file_safe(hostile));
            let path = std::path::Path::new(&name);
            assert_eq!(path.components().count(), 1, "{hostile} -> {name}");
        }
    }

    use super::*;

    #[test]
    fn totals_of_hand_built_counts_saturate_instead_of_overflowing() {
        let k = OutcomeCounts {
            undecided: u64::MAX,
            hypothesis_not_met: 1,
            non_finite: 1,
            ..Default::default()
        };
        assert_eq!(k.not_judged(), u64::MAX);
        let cell = |unit| CellReport {
            unit,
            kernel: "qdot".into(),
            params: BTreeMap::new(),
            size: 1,
            distribution: "U(-1,1)".into(),
            trials: u64::MAX,
            first_seed: 1,
            bounds: vec![],
        };
        let t = Totals::of(&[cell(0), cell(1)], &[]);
        assert_eq!((t.cells, t.trials), (2, u64::MAX));
        let mut a = k;
        a.add(&k);
        assert_eq!((a.undecided, a.non_finite), (u64::MAX, 2));
    }

    /// A violated published bound beside a passing gate is a model gap; a
    /// violated rigorous one (mpfma-gemm's other-order bound) is not.
    #[test]
    fn a_violated_rigorous_bound_beside_the_gate_is_unexplained() {
        use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
        use boundgate_verify::check::{ElementBounds, check};
        use boundgate_verify::oracle::ErrorMeasure;
        let error = [ErrorMeasure::Finite {
            absolute_up: 2.0,
            absolute_down: None,
            relative_up: None,
            exact: 1.0,
        }];
        let violated = |rigor| {
            let b = Bound::deterministic(
                1.0,
                Quantity::AbsoluteError,
                Source::new("t", "t", None),
                rigor,
            );
            check(&error, Ok(ElementBounds::uniform(b, 1))).unwrap()
        };
        let published = ViolationCauses::classify(&violated(Rigor::Published), &Outcome::Pass);
        assert_eq!((published.model_gap, published.unexplained), (1, 0));
        let rigorous = ViolationCauses::classify(&violated(Rigor::Rigorous), &Outcome::Pass);
        assert_eq!((rigorous.model_gap, rigorous.unexplained), (0, 1));
    }

    #[test]
    fn a_rigorous_violation_exits_1_and_published_ones_do_not() {
        let plan = Plan::default_plan().unwrap();
        let timings = Timings {
            total_seconds: 0.0,
            timed_units: Vec::new(),
        };
        let mut report = AuditReport::new(&plan, None, Vec::new(), Vec::new(), timings).unwrap();
        report.totals.published_violations.overflow = 5;
        report.totals.probabilistic_inconsistent = 2;
        assert_eq!(report.exit_code(), ExitCode::Ok);
        report.totals.rigorous.violation = 1;
        assert_eq!(report.exit_code(), ExitCode::Violation);
        report.totals.rigorous.violation = 0;
        report.totals.experiment_violations = 1;
        assert_eq!(report.exit_code(), ExitCode::Violation);
        assert_eq!(ExitCode::Violation as i32, 1);
        assert_eq!(ExitCode::BadInput as i32, 2);
    }
}
