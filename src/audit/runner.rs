//! Runs a plan: every cell, every seed; collects verdicts into a report.

use super::experiment::{ExperimentContext, Params as ExperimentParams};
use super::plan::{Cell, Plan};
use super::report::{
    AuditReport, BoundSummary, CellReport, ExperimentEntry, OutcomeCounts, Timings, ViolationCauses,
};
use super::shard::Shard;
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{Inputs, LabelledVerdict, registry};
use boundgate_verify::bounds::Kind;
use boundgate_verify::check::{Outcome, Verdict, judge_trials};
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
        reports.push(run_cell(unit, cell, plan.confidence, &bar)?);
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
pub fn trial_inputs(cell: &Cell, seed: u64) -> Result<Inputs> {
    let mut inputs = Inputs::new();
    for (stream, (name, shape)) in cell.kernel.audit_shapes(cell.size).into_iter().enumerate() {
        let len = shape.iter().product();
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

/// One bound's verdicts over a cell's trials (seed, verdict), and the causes of its violations.
type LabelledTrials = (String, Vec<(u64, Verdict)>, ViolationCauses);

fn run_cell(unit: usize, cell: &Cell, confidence: f64, bar: &ProgressBar) -> Result<CellReport> {
    // Per bound label, in the kernel's order (the rigorous bound first).
    let mut by_label: Vec<LabelledTrials> = Vec::new();
    for seed in cell.seeds.first..cell.seeds.first + cell.seeds.count {
        let inputs = trial_inputs(cell, seed)?;
        let run = cell.kernel.run(&inputs, &cell.params)?;
        let verdicts = run.verdicts()?;
        let rigorous_outcome = verdicts[0].verdict.outcome.clone();
        for LabelledVerdict { label, verdict, .. } in verdicts {
            let cause = verdict
                .is_violation()
                .then(|| ViolationCauses::classify(&verdict, &rigorous_outcome));
            let entry = match by_label.iter_mut().position(|(l, _, _)| *l == label) {
                Some(i) => &mut by_label[i],
                None => {
                    by_label.push((label, Vec::new(), ViolationCauses::default()));
                    by_label.last_mut().expect("just pushed")
                }
            };
            entry.1.push((seed, verdict));
            if let Some(cause) = cause {
                entry.2.add(&cause);
            }
        }
        bar.inc(1);
    }
    let mut bounds = Vec::with_capacity(by_label.len());
    for (index, (label, verdicts, causes)) in by_label.into_iter().enumerate() {
        bounds.push(summarize_bound(
            label,
            index == 0,
            &verdicts,
            causes,
            confidence,
        )?);
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

fn summarize_bound(
    label: String,
    gating: bool,
    verdicts: &[(u64, Verdict)],
    violation_causes: ViolationCauses,
    confidence: f64,
) -> Result<BoundSummary> {
    let mut counts = OutcomeCounts::default();
    let mut max_ratio: Option<f64> = None;
    let mut first_violation = None;
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
        Some(judge_trials(&list, confidence)?)
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
        hypothesis_reasons: reasons,
        statistics,
    })
}
