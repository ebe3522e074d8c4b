//! Experiment `qdot-acg`: ACG (Algorithm 4.1) on HPCCG 27-point problems,
//! the paper's §4.2 and Fig. 4: iterations against the qdot tolerance from
//! 1e-16 to 1e3, the largest tolerance with the fp64 CG iteration count, and
//! at that tolerance the share of components per precision at each
//! iteration, for `r^T r` and `p^T q`. The paper's largest tolerances:
//! 1e0 for 100x100x1 and 1e2 for 100x100x10 (and 1e3, 1e2 for the 1000x1000
//! problems, opt-in here through `problems`).

use super::{CONFIG_KEYS, config_of, decades, eps_and_tol, max_iter, sci};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, elements_within, non_empty,
};
use crate::error::{Error, Result};
use crate::kernels::qdot::apps::acg::cg;
use crate::kernels::qdot::apps::dots::{CLASSES, CallStats, PlainDot, QdotDot};
use crate::kernels::qdot::apps::hpccg::{generate, parse_dims};
use crate::kernels::qdot::config::Tolerance;
use crate::plot::{Chart, Series};
use serde_json::json;

/// The `qdot-acg` experiment.
pub struct Acg;

/// The paper's largest tolerance with CG's iteration count (§4.2).
fn paper_value(dims: (usize, usize, usize)) -> Option<f64> {
    match dims {
        (100, 100, 1) => Some(1e0),
        (1000, 1000, 1) => Some(1e3),
        (100, 100, 10) | (1000, 1000, 10) => Some(1e2),
        _ => None,
    }
}

/// Percentage series per precision class over calls (skipping classes never used).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::CallStats;
/// use boundgate::kernels::qdot::experiments::acg::breakdown_chart;
/// let a = CallStats { components: [1, 0, 1, 0, 0], ..CallStats::default() };
/// let b = CallStats { components: [0, 0, 1, 0, 3], ..CallStats::default() };
/// let chart = breakdown_chart("r^T r".into(), &[&a, &b]);
/// // bf16 and single are never used: no series for them.
/// let labels: Vec<_> = chart.series.iter().map(|s| s.label.as_str()).collect();
/// assert_eq!(labels, ["perforate", "half", "double"]);
/// // (call, % of components): half is 1 of 2, then 1 of 4.
/// assert_eq!(chart.series[1].points, [(0.0, 50.0), (1.0, 25.0)]);
/// ```
pub fn breakdown_chart(title: String, calls: &[&CallStats]) -> Chart {
    let mut chart = Chart::new(title, "iteration", "% of components");
    for (c, class) in CLASSES.iter().enumerate() {
        let points: Vec<(f64, f64)> = calls
            .iter()
            .enumerate()
            .map(|(i, s)| (i as f64, s.percentages()[c]))
            .collect();
        if points.iter().any(|p| p.1 > 0.0) {
            chart = chart.with(Series::line(*class, points));
        }
    }
    chart
}

struct Config {
    /// Names and dimensions.
    problems: Vec<(String, (usize, usize, usize))>,
    eps: Vec<f64>,
    tol: f64,
    max_iter: usize,
    check: bool,
    qdot: crate::kernels::qdot::config::QdotConfig,
}

/// The parameters, checked: what `check_params` accepts is what `run` uses.
fn config(p: &Params) -> std::result::Result<Config, String> {
    let mut known = vec!["problems", "eps", "tol", "max_iter", "check_bounds"];
    known.extend(CONFIG_KEYS);
    p.only(&known)?;
    let mut problems = Vec::new();
    let mut largest = 0;
    for name in non_empty(
        "problems",
        p.str_list_or("problems", &["100x100x1", "100x100x10"])?,
    )? {
        let (nx, ny, nz) = parse_dims(&name).map_err(|e| format!("params.problems: {e}"))?;
        // The matrix's entries, the largest array of the run: 3 d - 2 per
        // axis (`hpccg::nonzeros`); 100000x100000x100000 asked for 2^64.
        let axis = |d: usize| d.saturating_mul(3) - 2;
        let entries = elements_within("problems", &[axis(nx), axis(ny), axis(nz)])
            .map_err(|e| format!("{e} (`{name}`: the 27-point matrix's entries)"))?;
        largest = largest.max(entries);
        problems.push((name, (nx, ny, nz)));
    }
    let (eps, tol) = eps_and_tol(p, &decades(-16, 3), 1e-8)?;
    Ok(Config {
        problems,
        eps,
        tol,
        max_iter: max_iter(p, 1000, largest)?,
        check: p.bool_or("check_bounds", true)?,
        qdot: config_of(p)?,
    })
}

impl Experiment for Acg {
    fn name(&self) -> &'static str {
        "qdot-acg"
    }
    fn summary(&self) -> &'static str {
        "qdot in CG (Alg. 4.1) on HPCCG 27-point problems: iterations and precisions against the tolerance"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params).map(|_| ())
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Draws nothing from the seeds.
        Ok(0)
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let u = Error::usage;
        let Config {
            problems,
            eps: eps_list,
            tol,
            max_iter,
            check,
            qdot,
        } = config(params).map_err(u)?;
        let mut report = ExperimentReport::new(
            self.name(),
            "ACG: CG with qdot dot products on HPCCG problems (Alg. 4.1, Fig. 4)",
            format!(
                "HPCCG 27-point problems {problems:?} (27 on the diagonal, -1 per neighbour, b so that \
                 x = 1), x_0 = 0, CG tolerance tau = {tol:e} on sqrt(r^T r) (HPCCG's norm, so qdot's value \
                 decides when to stop), at most {max_iter} iterations. qdot: {qdot}. 'CG' uses the fp64 \
                 dot product in the same tiled order. Every qdot call is {}checked against the rigorous \
                 bound with the exact oracle. Paper (GPU, cuBLAS orders): largest tolerance with CG's \
                 iteration count 1e0 for 100x100x1, 1e2 for 100x100x10.",
                if check { "" } else { "not " }
            ),
        );
        let mut table = Table::new(
            "iterations against the qdot tolerance",
            &[
                "problem",
                "n",
                "eps",
                "iterations",
                "CG iterations",
                "converged",
                "true ||b - Ax|| / ||b||",
            ],
        );
        let mut summary = Table::new(
            "largest tolerance with CG's iteration count",
            &["problem", "CG iterations", "largest eps (ours)", "paper"],
        );
        let mut data = Vec::new();
        for (name, dims) in &problems {
            let dims = *dims;
            let p = generate(dims.0, dims.1, dims.2)?;
            ctx.progress.set_message(format!("qdot-acg {name} CG"));
            let base = cg(&p.a, &p.b, tol, max_iter, &mut PlainDot { tile: qdot.tile })?;
            let mut series = Vec::new();
            let mut best: Option<(f64, QdotDot)> = None;
            for &e in &eps_list {
                ctx.progress
                    .set_message(format!("qdot-acg {name} eps={e:e}"));
                let mut dots = QdotDot::new(qdot, Tolerance::loose(e)?, check);
                let out = cg(&p.a, &p.b, tol, max_iter, &mut dots)?;
                report.rigorous_violations += dots.violations;
                table.row(vec![
                    name.clone(),
                    p.b.len().to_string(),
                    format!("{e:.0e}"),
                    out.iterations.to_string(),
                    base.iterations.to_string(),
                    out.converged.to_string(),
                    sci(out.true_relative_residual),
                ]);
                data.push(json!({
                    "problem": name, "eps": e, "iterations": out.iterations, "converged": out.converged,
                    "breakdown": out.breakdown, "true_relative_residual": out.true_relative_residual,
                    "cg_iterations": base.iterations, "qdot_calls": dots.calls.len(),
                    "rigorous_checked": dots.checked, "rigorous_violations": dots.violations,
                }));
                series.push((e, out.iterations as f64));
                if out.converged && out.iterations == base.iterations {
                    best = Some((e, dots));
                }
            }
            let paper = paper_value(dims);
            summary.row(vec![
                name.clone(),
                base.iterations.to_string(),
                best.as_ref()
                    .map_or("none".into(), |b| format!("{:.0e}", b.0)),
                paper.map_or("-".into(), |v| format!("{v:.0e}")),
            ]);
            report.charts.push(
                Chart::new(
                    format!("{name}: ACG iterations"),
                    "qdot tolerance eps",
                    "iterations",
                )
                .log_x()
                .with(Series::line("ACG", series))
                .with(Series::reference(
                    "CG (fp64)",
                    vec![
                        (eps_list[0], base.iterations as f64),
                        (*eps_list.last().unwrap_or(&1.0), base.iterations as f64),
                    ],
                )),
            );
            if let Some((e, dots)) = &best {
                // Calls: c_0 = r^T r, then per iteration p^T q and r^T r.
                let rr: Vec<&CallStats> = dots.calls.iter().step_by(2).collect();
                let pq: Vec<&CallStats> = dots.calls.iter().skip(1).step_by(2).collect();
                report.charts.push(breakdown_chart(
                    format!("{name}, eps = {e:.0e}: precisions in r^T r"),
                    &rr,
                ));
                report.charts.push(breakdown_chart(
                    format!("{name}, eps = {e:.0e}: precisions in p^T q"),
                    &pq,
                ));
            }
        }
        report.tables.push(summary);
        report.tables.push(table);
        report.data = json!({ "tol": tol, "rows": data });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, params, refused};

    #[test]
    fn params_that_would_exhaust_memory_or_report_nothing_are_refused() {
        assert!(accepts_defaults_and_shipped(&Acg) >= 2);
        // The paper's largest problem fits (2.5 x 10^8 entries), 9 times more does not.
        Acg.check_params(&params("problems = [\"1000x1000x10\"]"))
            .unwrap();
        let e = refused(&Acg, "problems = [\"100000x100000x100000\"]", "problems");
        assert!(
            e.contains(
                "299998 x 299998 x 299998 = 26999460003599992 elements exceed the limit of 2^28"
            ),
            "{e}"
        );
        refused(
            &Acg,
            "problems = [\"10x10x10\", \"3000x3000x10\"]",
            "problems",
        );
        for key in ["problems", "eps"] {
            let e = refused(&Acg, &format!("{key} = []"), key);
            assert!(e.ends_with("must not be empty"), "{e}");
        }
        refused(&Acg, "max_iter = 0", "max_iter");
        refused(&Acg, "max_iter = 100001", "max_iter");
        let e = refused(
            &Acg,
            "problems = [\"1000x1000x10\"]\nmax_iter = 10000",
            "max_iter",
        );
        assert!(e.contains("matrix entries read by a solve"), "{e}");
        // The run reads the same defaults the check accepted.
        let c = config(&params("")).unwrap();
        assert_eq!(c.problems.len(), 2);
        assert_eq!(c.eps.len(), 20);
    }
}
