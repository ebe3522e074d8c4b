//! Runs a plan: every cell, every seed; collects verdicts into a report.

use super::experiment::{ExperimentContext, Params as ExperimentParams};
use super::plan::{Cell, Plan};
use super::report::{
    AuditReport, BoundSummary, CellReport, ExperimentEntry, OutcomeCounts, Timings,
    ViolationCauses, describe_cell,
};
use super::shard::Shard;
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{Inputs, LabelledVerdict, registry};
use boundgate_verify::bounds::{Kind, Rigor};
use boundgate_verify::check::{Outcome, TrialsJudge, Verdict};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

/// Options of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Run only this shard's units.
    pub shard: Option<Shard>,
}

/// Runs every cell of the plan and returns the report.
///
/// # Example
/// ```
/// use boundgate::audit::{Plan, RunOptions, Shard, run_plan};
/// use std::path::Path;
/// let text = "name = \"doc\"\nseeds = { first = 1, count = 3 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 16], params = { format = [\"fp16\"] }, distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }] }]";
/// let plan = Plan::from_toml(text, Path::new("doc.toml")).unwrap();
/// let report = run_plan(&plan, RunOptions::default()).unwrap();
/// assert_eq!((report.totals.cells, report.totals.trials), (2, 6)); // 2 sizes, 3 seeds each
/// // fp16 dot products of 8 and 16 terms in [-1, 1): every rigorous bound holds
/// assert_eq!(report.totals.rigorous.pass, 6);
/// // shard 2/2 runs unit 1 only
/// let shard = Some("2/2".parse::<Shard>().unwrap());
/// let half = run_plan(&plan, RunOptions { shard, ..Default::default() }).unwrap();
/// assert_eq!(half.cells.iter().map(|c| (c.unit, c.size)).collect::<Vec<_>>(), [(1, 16)]);
/// ```
pub fn run_plan(plan: &Plan, options: RunOptions) -> Result<AuditReport> {
    let started = Instant::now();
    let all_cells = plan.cells()?;
    let owned = |unit: usize| options.shard.is_none_or(|s| s.owns(unit));
    let cells: Vec<(usize, &Cell)> = all_cells
        .iter()
        .enumerate()
        .filter(|(unit, _)| owned(*unit))
        .collect();
    let specs: Vec<(usize, &super::plan::ExperimentSpec)> = plan
        .experiments
        .iter()
        .enumerate()
        .map(|(j, spec)| (all_cells.len() + j, spec))
        .filter(|(unit, _)| owned(*unit))
        .collect();
    let total: u64 = cells.iter().map(|(_, c)| c.seeds.count).sum::<u64>() + specs.len() as u64;
    let bar = if options.progress {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} trials  {msg}",
            )
            .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut reports = Vec::with_capacity(cells.len());
    for &(unit, cell) in &cells {
        bar.set_message(format!(
            "{} n={} {}",
            cell.kernel.name(),
            cell.size,
            cell.distribution.label()
        ));
        reports.push(
            run_cell(unit, cell, plan.confidence, &bar).map_err(|(seed, e)| {
                // One line naming the plan, the cell and the seed: the kernel's
                // message alone ("x[0] = ... overflows fp32") named none of
                // them (review of 2026-11-25).
                Error::usage(format!(
                    "{}: unit {unit} ({}) seed {seed}: {}",
                    plan.source.display(),
                    describe(cell),
                    e.to_string().replace('\n', " ")
                ))
            })?,
        );
    }
    let mut experiments = Vec::with_capacity(specs.len());
    let mut timed_units = Vec::new();
    for (unit, spec) in specs {
        bar.set_message(spec.name.clone());
        let experiment = registry::find_experiment(&spec.name)?;
        let context = ExperimentContext {
            seeds: spec.seeds.unwrap_or(plan.seeds),
            confidence: plan.confidence,
            heavy: crate::generate::heavy(),
            progress: &bar,
        };
        let report = experiment.run(&ExperimentParams::new(spec.params.clone()), &context)?;
        if experiment.measures_time() {
            timed_units.push(unit);
        }
        experiments.push(ExperimentEntry { unit, report });
        bar.inc(1);
    }
    bar.finish_and_clear();
    AuditReport::new(
        plan,
        options.shard,
        reports,
        experiments,
        Timings {
            total_seconds: started.elapsed().as_secs_f64(),
            timed_units,
        },
    )
}

/// Generates the inputs of one trial.
///
/// # Example
/// ```
/// use boundgate::audit::Plan;
/// use boundgate::audit::runner::trial_inputs;
/// use std::path::Path;
/// let text = "name = \"doc\"\nseeds = { first = 1, count = 1 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [5], distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }] }]";
/// let cell = &Plan::from_toml(text, Path::new("doc.toml")).unwrap().cells().unwrap()[0];
/// let inputs = trial_inputs(cell, 42).unwrap();
/// // x is stream 0 of the seed, y stream 1, each of the cell's size
/// assert_eq!(inputs["x"].data(), cell.distribution.sample(42, 0, 5).unwrap());
/// assert_eq!(inputs["y"].data(), cell.distribution.sample(42, 1, 5).unwrap());
/// assert_ne!(inputs["x"], inputs["y"]);
/// assert_eq!(inputs, trial_inputs(cell, 42).unwrap()); // reproducible
/// ```
pub fn trial_inputs(cell: &Cell, seed: u64) -> Result<Inputs> {
    // Checked before the shapes are built: a plan validates its sizes
    // against MAX_INPUT_ELEMENTS, but a `Cell` can be built without one
    // (`size * size` overflowed for sizes of 2^32 until 2026-11-25; review).
    super::plan::input_elements(cell.kernel, cell.size).map_err(Error::usage)?;
    let mut inputs = Inputs::new();
    for (stream, (name, shape)) in cell.kernel.audit_shapes(cell.size).into_iter().enumerate() {
        let len = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::usage(format!("input {name}: the element count overflows")))?;
        let values = cell
            .distribution
            .sample(seed, stream as u64, len)
            .map_err(Error::usage)?;
        let tensor = match shape[..] {
            [_] => Tensor::vector(values),
            [r, c] => Tensor::matrix(r, c, values)?,
            _ => {
                return Err(Error::usage(format!(
                    "kernel {} asked for a {}-D input",
                    cell.kernel.name(),
                    shape.len()
                )));
            }
        };
        inputs.insert(name.to_string(), tensor);
    }
    Ok(inputs)
}

/// A cell for people: kernel, parameters, size and distribution.
fn describe(cell: &Cell) -> String {
    let params = cell.params.as_map().iter().map(|(k, v)| (*k, v.as_str()));
    let label = describe_cell(
        cell.kernel.name(),
        params,
        cell.size,
        &cell.distribution.label(),
    );
    format!("kernel {label}")
}

/// Runs one cell; an error comes with the seed of the trial that raised it.
fn run_cell(
    unit: usize,
    cell: &Cell,
    confidence: f64,
    bar: &ProgressBar,
) -> std::result::Result<CellReport, (u64, Error)> {
    // Per bound label, in the kernel's order (the rigorous bound first),
    // summarized trial by trial: nothing is kept per trial.
    let mut by_label: Vec<BoundAccumulator> = Vec::new();
    for seed in cell.seeds.first..cell.seeds.first + cell.seeds.count {
        let at = |e: Error| (seed, e);
        let inputs = trial_inputs(cell, seed).map_err(at)?;
        let run = cell.kernel.run(&inputs, &cell.params).map_err(at)?;
        let verdicts = run.verdicts().map_err(at)?;
        let rigorous_outcome = &verdicts[0].verdict.outcome;
        for LabelledVerdict { label, verdict, .. } in &verdicts {
            let i = match by_label.iter().position(|b| b.label == *label) {
                Some(i) => i,
                None => {
                    by_label.push(BoundAccumulator::new(label.clone()));
                    by_label.len() - 1
                }
            };
            by_label[i].add(seed, verdict, rigorous_outcome);
        }
        bar.inc(1);
    }
    let mut bounds = Vec::with_capacity(by_label.len());
    for (index, accumulator) in by_label.into_iter().enumerate() {
        bounds.push(
            accumulator
                .finish(index == 0, confidence)
                .map_err(|e| (cell.seeds.first, e))?,
        );
    }
    Ok(CellReport {
        unit,
        kernel: cell.kernel.name().to_string(),
        params: cell
            .params
            .as_map()
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        size: cell.size,
        distribution: cell.distribution.label(),
        trials: cell.seeds.count,
        first_seed: cell.seeds.first,
        bounds,
    })
}

/// One bound's results over a cell's trials, summarized as the trials come
/// (in seed order): what its [`BoundSummary`] needs and nothing per trial.
/// Until 2026-11-25 a cell kept every trial's verdicts until it ended (about
/// 2 KB per trial over its bounds).
struct BoundAccumulator {
    label: String,
    counts: OutcomeCounts,
    max_ratio: Option<f64>,
    /// The first violation in seed order, described.
    first_violation: Option<String>,
    /// The first undecided trial in seed order, described.
    first_undecided: Option<String>,
    /// The first three distinct reasons a hypothesis failed.
    reasons: Vec<String>,
    /// The rigor of the last trial whose bound had a value.
    rigor: Option<Rigor>,
    /// Some trial's bound was probabilistic: the trials are judged.
    probabilistic: bool,
    judge: TrialsJudge,
    causes: ViolationCauses,
}

impl BoundAccumulator {
    fn new(label: String) -> BoundAccumulator {
        BoundAccumulator {
            label,
            counts: OutcomeCounts::default(),
            max_ratio: None,
            first_violation: None,
            first_undecided: None,
            reasons: Vec::new(),
            rigor: None,
            probabilistic: false,
            judge: TrialsJudge::new(),
            causes: ViolationCauses::default(),
        }
    }

    /// Adds the verdict `v` of trial `seed` (trials in seed order);
    /// `rigorous` is the outcome of the kernel's rigorous bound in the same
    /// trial, which classifies a violation's cause.
    fn add(&mut self, seed: u64, v: &Verdict, rigorous: &Outcome) {
        if v.is_violation() {
            self.causes.add(&ViolationCauses::classify(v, rigorous));
        }
        if let Some(b) = &v.bound {
            self.rigor = Some(b.rigor);
            self.probabilistic |= matches!(b.kind, Kind::Probabilistic { .. });
        }
        match &v.outcome {
            Outcome::Pass => self.counts.pass += 1,
            Outcome::Violation {
                element,
                error,
                bound,
            } => {
                self.counts.violation += 1;
                self.first_violation.get_or_insert_with(|| {
                    format!("seed {seed}: element {element}: error {error:e} > bound {bound:e}")
                });
            }
            Outcome::Undecided {
                element,
                error_down,
                error_up,
                bound,
            } => {
                self.counts.undecided += 1;
                self.first_undecided.get_or_insert_with(|| {
                    format!(
                        "seed {seed}: element {element}: error in [{error_down:e}, {error_up:e}], bound {bound:e}"
                    )
                });
            }
            Outcome::HypothesisNotMet { reason } => {
                self.counts.hypothesis_not_met += 1;
                if !self.reasons.contains(reason) && self.reasons.len() < 3 {
                    self.reasons.push(reason.clone());
                }
            }
            Outcome::NonFinite { .. } => self.counts.non_finite += 1,
        }
        if let Some(r) = v.ratio.filter(|r| r.is_finite()) {
            self.max_ratio = Some(self.max_ratio.map_or(r, |m: f64| m.max(r)));
        }
        self.judge.add(v);
    }

    /// The bound's summary; `gating` for the kernel's rigorous bound. The
    /// trials are judged at `confidence` if the bound was probabilistic in
    /// any of them.
    fn finish(self, gating: bool, confidence: f64) -> Result<BoundSummary> {
        let statistics = if self.probabilistic {
            Some(self.judge.finish(confidence)?)
        } else {
            None
        };
        Ok(BoundSummary {
            label: self.label,
            gating,
            rigor: self.rigor,
            violation_causes: self.causes,
            counts: self.counts,
            max_ratio: self.max_ratio,
            first_violation: self.first_violation,
            first_undecided: self.first_undecided,
            hypothesis_reasons: self.reasons,
            statistics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::html::to_html;
    use crate::audit::junit::to_junit;
    use crate::audit::report::{CellReport, Timings};
    use crate::error::ExitCode;
    use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    use boundgate_verify::check::{ElementBounds, check};
    use boundgate_verify::oracle::ErrorMeasure;

    /// A one-element trial whose error lies in `[down, up]` (an enclosure), bound 1.
    fn trial(down: f64, up: f64) -> Verdict {
        let bound = Bound::deterministic(
            1.0,
            Quantity::AbsoluteError,
            Source::new("t", "t", None),
            Rigor::Rigorous,
        );
        let error = ErrorMeasure::Finite {
            absolute_up: up,
            absolute_down: Some(down),
            relative_up: None,
            exact: 0.0,
        };
        check(&[error], Ok(ElementBounds::uniform(bound, 1))).unwrap()
    }

    /// Streams `(seed, verdict)`s through a [`BoundAccumulator`], each
    /// verdict its own rigorous outcome (as for the gating bound).
    fn summarize(
        label: &str,
        gating: bool,
        verdicts: &[(u64, Verdict)],
        confidence: f64,
    ) -> Result<BoundSummary> {
        let mut accumulator = BoundAccumulator::new(label.into());
        for (seed, v) in verdicts {
            accumulator.add(*seed, v, &v.outcome);
        }
        accumulator.finish(gating, confidence)
    }

    /// The summary as the runner made it before it streamed: every verdict
    /// collected, the causes classified as they came, then one pass over the
    /// list and `judge_trials` on a copy of it. The reference for the
    /// streamed form.
    fn collected_summary(
        label: String,
        gating: bool,
        verdicts: &[(u64, Verdict)],
        violation_causes: ViolationCauses,
        confidence: f64,
    ) -> Result<BoundSummary> {
        let mut counts = OutcomeCounts::default();
        let mut max_ratio: Option<f64> = None;
        let mut first_violation = None;
        let mut first_undecided = None;
        let mut reasons: Vec<String> = Vec::new();
        let mut rigor = None;
        let mut probabilistic = false;
        for (seed, v) in verdicts {
            if let Some(b) = &v.bound {
                rigor = Some(b.rigor);
                probabilistic |= matches!(b.kind, Kind::Probabilistic { .. });
            }
            match &v.outcome {
                Outcome::Pass => counts.pass += 1,
                Outcome::Violation {
                    element,
                    error,
                    bound,
                } => {
                    counts.violation += 1;
                    first_violation.get_or_insert_with(|| {
                        format!("seed {seed}: element {element}: error {error:e} > bound {bound:e}")
                    });
                }
                Outcome::Undecided {
                    element,
                    error_down,
                    error_up,
                    bound,
                } => {
                    counts.undecided += 1;
                    first_undecided.get_or_insert_with(|| {
                        format!(
                            "seed {seed}: element {element}: error in [{error_down:e}, {error_up:e}], bound {bound:e}"
                        )
                    });
                }
                Outcome::HypothesisNotMet { reason } => {
                    counts.hypothesis_not_met += 1;
                    if !reasons.contains(reason) && reasons.len() < 3 {
                        reasons.push(reason.clone());
                    }
                }
                Outcome::NonFinite { .. } => counts.non_finite += 1,
            }
            if let Some(r) = v.ratio.filter(|r| r.is_finite()) {
                max_ratio = Some(max_ratio.map_or(r, |m: f64| m.max(r)));
            }
        }
        let statistics = if probabilistic {
            let list: Vec<Verdict> = verdicts.iter().map(|(_, v)| v.clone()).collect();
            Some(boundgate_verify::check::judge_trials(&list, confidence)?)
        } else {
            None
        };
        Ok(BoundSummary {
            label,
            gating,
            rigor,
            violation_causes,
            counts,
            max_ratio,
            first_violation,
            first_undecided,
            hypothesis_reasons: reasons,
            statistics,
        })
    }

    /// A bound's trials summarized as they come and as the collected list
    /// was: the same summary (and the same JSON, to the bit), violation
    /// causes included.
    #[test]
    fn a_streamed_summary_is_the_collected_one() {
        let source = || Source::new("t", "t", None);
        let published = Bound::probabilistic(
            1.0,
            0.9,
            Quantity::AbsoluteError,
            source(),
            Rigor::Published,
        );
        let rigorous =
            Bound::deterministic(4.0, Quantity::AbsoluteError, source(), Rigor::Rigorous);
        let errors = |up: &[f64], down: Option<f64>| -> Vec<ErrorMeasure> {
            up.iter()
                .map(|&u| ErrorMeasure::Finite {
                    absolute_up: u,
                    absolute_down: down.map(|d| d.min(u)),
                    relative_up: None,
                    exact: 0.0,
                })
                .collect()
        };
        let judged = |b: &Bound, e: Vec<ErrorMeasure>| {
            let n = e.len();
            check(&e, Ok(ElementBounds::uniform(b.clone(), n))).unwrap()
        };
        let refused = |why: &str| {
            Err(boundgate_verify::error::VerifyError::HypothesisNotMet {
                source_ref: "t".into(),
                hypothesis: why.into(),
                detail: "d".into(),
            })
        };
        // (published verdict, rigorous verdict) per trial.
        let mut trials: Vec<(u64, Verdict, Verdict)> = Vec::new();
        for t in 0..60u64 {
            let seed = 100 + t;
            let up = 0.01 * t as f64;
            let (p, r) = match t % 12 {
                // Passes, with growing ratios.
                0..=2 => (
                    judged(&published, errors(&[up, 0.5], None)),
                    judged(&rigorous, errors(&[up, 0.5], None)),
                ),
                // A violation the rigorous bound covers (model gap) ...
                3 => (
                    judged(&published, errors(&[1.0 + up, 0.1], None)),
                    judged(&rigorous, errors(&[1.0 + up, 0.1], None)),
                ),
                // ... one it does not (unexplained) ...
                4 => (
                    judged(&published, errors(&[5.0 + up, 0.1], None)),
                    judged(&rigorous, errors(&[5.0 + up, 0.1], None)),
                ),
                // ... and one where the rigorous bound saw an overflow.
                5 => (
                    judged(&published, errors(&[2.0, 0.1], None)),
                    check(&errors(&[2.0, 0.1], None), refused("no overflow")).unwrap(),
                ),
                // Undecided: the enclosure straddles the bound.
                6 | 7 => (
                    judged(&published, errors(&[1.5, up], Some(0.5))),
                    judged(&rigorous, errors(&[1.5, up], Some(0.5))),
                ),
                // Five distinct hypotheses, repeated: three are kept.
                8 | 9 => {
                    let why = format!("h{}", (t / 3) % 5);
                    (
                        check(&errors(&[0.1, 0.1], None), refused(&why)).unwrap(),
                        judged(&rigorous, errors(&[0.1, 0.1], None)),
                    )
                }
                // Non-finite exact values, one judged element beside them.
                10 => {
                    let e = vec![
                        ErrorMeasure::NonFinite {
                            computed: f64::INFINITY,
                            exact: f64::INFINITY,
                        },
                        errors(&[0.2], None)[0],
                    ];
                    (judged(&published, e.clone()), judged(&rigorous, e))
                }
                // An infinite ratio (a nonzero error under a zero bound) is not a maximum.
                _ => {
                    let zero = ElementBounds::new(published.clone(), vec![0.0, 1.0]).unwrap();
                    let e = errors(&[0.0, 0.3], None);
                    (
                        check(&errors(&[1e-3, 0.3], None), Ok(zero)).unwrap(),
                        judged(&rigorous, e),
                    )
                }
            };
            trials.push((seed, p, r));
        }
        let mut rigorous_acc = BoundAccumulator::new("rigorous".into());
        let mut published_acc = BoundAccumulator::new("published".into());
        // The runner classified every label's violations, the rigorous
        // bound's included.
        let (mut causes, mut rigorous_causes) = Default::default();
        for (seed, p, r) in &trials {
            rigorous_acc.add(*seed, r, &r.outcome);
            published_acc.add(*seed, p, &r.outcome);
            for (v, c) in [(p, &mut causes), (r, &mut rigorous_causes)] {
                if v.is_violation() {
                    ViolationCauses::add(c, &ViolationCauses::classify(v, &r.outcome));
                }
            }
        }
        let list = |pick: fn(&(u64, Verdict, Verdict)) -> &Verdict| -> Vec<(u64, Verdict)> {
            trials.iter().map(|t| (t.0, pick(t).clone())).collect()
        };
        let streamed = published_acc.finish(false, 0.999).unwrap();
        let collected =
            collected_summary("published".into(), false, &list(|t| &t.1), causes, 0.999).unwrap();
        assert_eq!(streamed, collected);
        let json = |s: &BoundSummary| serde_json::to_string(s).unwrap();
        assert_eq!(json(&streamed), json(&collected));
        // The sequence reaches every branch.
        let c = &streamed.counts;
        assert!(c.pass > 0 && c.violation > 0 && c.undecided > 0);
        assert!(c.hypothesis_not_met > 0 && c.non_finite > 0);
        assert_eq!(streamed.hypothesis_reasons.len(), 3);
        let v = &streamed.violation_causes;
        assert!(
            v.model_gap > 0 && v.unexplained > 0 && v.overflow > 0,
            "{v:?}"
        );
        assert!(streamed.statistics.as_ref().unwrap().per_element.is_some());
        let streamed = rigorous_acc.finish(true, 0.999).unwrap();
        let collected = collected_summary(
            "rigorous".into(),
            true,
            &list(|t| &t.2),
            rigorous_causes,
            0.999,
        )
        .unwrap();
        assert_eq!(json(&streamed), json(&collected));
        assert!(streamed.statistics.is_none() && streamed.counts.violation > 0);
    }

    #[test]
    fn undecided_trials_are_counted_named_and_unjudged_under_strict() {
        let verdicts = [
            (7, trial(0.1, 0.5)),
            (8, trial(0.5, 1.5)),
            (9, trial(0.9, 1.25)),
        ];
        let summary = summarize("rigorous", true, &verdicts, 0.99).unwrap();
        assert_eq!((summary.counts.pass, summary.counts.undecided), (1, 2));
        assert_eq!(summary.counts.violation, 0);
        assert_eq!(
            summary.first_undecided.as_deref(),
            Some("seed 8: element 0: error in [5e-1, 1.5e0], bound 1e0")
        );
        let cell = CellReport {
            unit: 0,
            kernel: "k".into(),
            params: Default::default(),
            size: 1,
            distribution: "d".into(),
            trials: 3,
            first_seed: 7,
            bounds: vec![summary],
        };
        // A one-unit plan: a report read back must hold as many units as
        // its plan has (AuditReport::from_json checks it).
        let plan = Plan::from_toml(
            "name = \"u\"\nseeds = { first = 7, count = 3 }\n[[campaign]]\nkernel = \"dot-recursive\"\nsizes = [1]\ndistributions = [{ kind = \"uniform\", low = 0.0, high = 1.0 }]\n",
            std::path::Path::new("u.toml"),
        )
        .unwrap();
        let timings = Timings {
            total_seconds: 0.0,
            timed_units: Vec::new(),
        };
        let report = AuditReport::new(&plan, None, vec![cell], Vec::new(), timings).unwrap();
        assert_eq!(report.totals.rigorous.undecided, 2);
        assert_eq!(report.exit_code(), ExitCode::Ok);
        assert_eq!(report.strict_exit_code(), ExitCode::Unjudged);
        let markdown = report.to_markdown();
        assert!(markdown.contains("1/0/2/0/0"), "{markdown}");
        assert!(markdown.contains("2 undecided"), "{markdown}");
        assert!(markdown.contains("undecided (2 of 3 trials"), "{markdown}");
        assert!(
            to_html(&report)
                .unwrap()
                .contains("2 of 3 trials undecided")
        );
        assert!(to_junit(&report).contains("<skipped message=\"2 of 3 trials undecided"));
        // The JSON round trip keeps the count; reports without it read as 0.
        let back =
            AuditReport::from_json(&report.to_json(), std::path::Path::new("r.json")).unwrap();
        assert_eq!(back.totals.rigorous.undecided, 2);
        // (An older report counted those trials elsewhere: the rigorous
        // bound has a verdict in every trial.)
        let old = report
            .to_json()
            .replace("\"undecided\": 2,", "")
            .replace("\"pass\": 1,", "\"pass\": 3,");
        assert!(!old.contains("\"undecided\": 2"));
        let back = AuditReport::from_json(&old, std::path::Path::new("r.json")).unwrap();
        assert_eq!(back.totals.rigorous.undecided, 0);
    }
}
