//! Experiment `qdot-fig2`: the paper's Fig. 2, approximation effectiveness
//! (2.4), `eps - relerr`, for tolerances 1e-15 to 1e-1 (decades), distribution
//! parameters `t` in {5, 9, 13}, distributions A and B, each size; with the
//! share of components per precision. Pairs per point come from the plan's
//! seeds (`count`; the paper used 50).

use super::{CONFIG_KEYS, config_of, decades, dot_sizes, sci, seed_for, t_values, trial};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, non_empty,
};
use crate::error::{Error, Result};
use crate::kernels::qdot::apps::dots::CLASSES;
use crate::kernels::qdot::config::Tolerance;
use crate::kernels::qdot::distributions::PaperDistribution;
use crate::plot::{Chart, Series};
use serde_json::json;

/// The `qdot-fig2` experiment.
pub struct Fig2;

struct Config {
    sizes: Vec<usize>,
    eps: Vec<f64>,
    ts: Vec<usize>,
    dists: Vec<String>,
    qdot: crate::kernels::qdot::config::QdotConfig,
}

fn config(p: &Params, heavy: bool) -> std::result::Result<Config, String> {
    let mut known = vec!["sizes", "heavy_sizes", "eps", "t", "distributions"];
    known.extend(CONFIG_KEYS);
    p.only(&known)?;
    let sizes = dot_sizes(p, heavy, &[100_000, 1_000_000], &[10_000_000])?;
    let eps = non_empty("eps", p.f64_list_or("eps", &decades(-15, -1))?)?;
    for &e in &eps {
        Tolerance::new(e).map_err(|err| format!("params.eps: {err}"))?;
    }
    let dists = non_empty(
        "distributions",
        p.str_list_or("distributions", &["A", "B"])?,
    )?;
    if let Some(d) = dists.iter().find(|d| *d != "A" && *d != "B") {
        return Err(format!("params.distributions: `{d}` is not A or B"));
    }
    Ok(Config {
        sizes,
        eps,
        ts: t_values(p, "t", &[5, 9, 13])?,
        dists,
        qdot: config_of(p)?,
    })
}

impl Experiment for Fig2 {
    fn name(&self) -> &'static str {
        "qdot-fig2"
    }
    fn summary(&self) -> &'static str {
        "qdot Fig. 2: relative error and effectiveness (2.4) against the tolerance, t in {5, 9, 13}"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params, false).and(config(params, true)).map(|_| ())
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let cfg = config(params, ctx.heavy).map_err(Error::usage)?;
        let pairs = ctx.seeds.count.max(1);
        let mut report = ExperimentReport::new(
            self.name(),
            "qdot effectiveness (Fig. 2 of Diffenderfer et al. 2021)",
            format!(
                "Relative error (exact oracle) of qdot against its tolerance eps, mean / min / max over \
                 {pairs} pairs per point (the paper: 50), for distributions {:?}, t in {:?}, n in {:?}; \
                 {}. Effectiveness (2.4) is eps - relerr (larger is less effective; negative would be \
                 ineffective). The paper found effectiveness driven by t more than by n, approaching \
                 the optimum for wide exponent ranges.",
                cfg.dists, cfg.ts, cfg.sizes, cfg.qdot
            ),
        );
        let mut table = Table::new(
            "relative error against eps, and where the components went",
            &[
                "dist",
                "t",
                "n",
                "eps",
                "mean relerr",
                "min",
                "max",
                "eps - mean",
                "perforate %",
                "half %",
                "single %",
                "double %",
            ],
        );
        let mut data = Vec::new();
        for dist in &cfg.dists {
            for &t in &cfg.ts {
                let mut chart = Chart::new(
                    format!("distribution {dist}, t = {t}: relative error against eps"),
                    "qdot tolerance eps",
                    "relative error",
                )
                .log_x()
                .log_y()
                .with(Series::reference(
                    "eps",
                    vec![
                        (cfg.eps[0], cfg.eps[0]),
                        (
                            *cfg.eps.last().unwrap_or(&1.0),
                            *cfg.eps.last().unwrap_or(&1.0),
                        ),
                    ],
                ));
                for &n in &cfg.sizes {
                    ctx.progress
                        .set_message(format!("qdot-fig2 {dist} t={t} n={n}"));
                    let mut mean_series = Vec::new();
                    let mut max_series = Vec::new();
                    for (k, &e) in cfg.eps.iter().enumerate() {
                        let eps = Tolerance::new(e)?;
                        let (mut sum, mut lo, mut hi, mut count) =
                            (0.0, f64::INFINITY, 0.0f64, 0usize);
                        let mut components = [0usize; 5];
                        for pair in 0..pairs {
                            let seed = seed_for(
                                ctx.seeds.first,
                                &[
                                    dist.as_bytes()[0] as u64,
                                    t as u64,
                                    n as u64,
                                    k as u64,
                                    pair,
                                ],
                            );
                            let d = if dist == "A" {
                                PaperDistribution::A {
                                    t: t as u32,
                                    signed: false,
                                }
                            } else {
                                PaperDistribution::B {
                                    t: t as u32,
                                    signed: false,
                                }
                            };
                            let (x, y) = (d.sample(seed, 0, n), d.sample(seed, 1, n));
                            let tr = trial(&x, &y, &cfg.qdot, eps)?;
                            if tr.rigorous_violated {
                                report.rigorous_violations += 1;
                            }
                            for (c, v) in components.iter_mut().zip(tr.components) {
                                *c += v;
                            }
                            if let Some(r) = tr.relerr {
                                sum += r;
                                lo = lo.min(r);
                                hi = hi.max(r);
                                count += 1;
                            }
                        }
                        // No pair with a defined relative error (an exact
                        // zero dot): no statistic, NaN (`null` in the JSON),
                        // not the fold's start values inf and 0.
                        let (mean, lo, hi) = if count > 0 {
                            (sum / count as f64, lo, hi)
                        } else {
                            (f64::NAN, f64::NAN, f64::NAN)
                        };
                        let total: usize = components.iter().sum();
                        let pct = |name: &str| {
                            let i = CLASSES.iter().position(|c| *c == name).unwrap_or(0);
                            if total == 0 {
                                0.0
                            } else {
                                100.0 * components[i] as f64 / total as f64
                            }
                        };
                        table.row(vec![
                            dist.clone(),
                            t.to_string(),
                            n.to_string(),
                            format!("{e:.0e}"),
                            sci(mean),
                            sci(lo),
                            sci(hi),
                            sci(e - mean),
                            format!("{:.1}", pct("perforate")),
                            format!("{:.1}", pct("half")),
                            format!("{:.1}", pct("single")),
                            format!("{:.1}", pct("double")),
                        ]);
                        data.push(json!({
                            "distribution": dist, "t": t, "n": n, "eps": e, "pairs": count,
                            "mean_relerr": mean, "min_relerr": lo, "max_relerr": hi,
                            "components": components,
                        }));
                        mean_series.push((e, mean));
                        max_series.push((e, hi));
                    }
                    chart = chart
                        .with(Series::line(format!("n = {n}: mean"), mean_series))
                        .with(Series::points(format!("n = {n}: max"), max_series));
                }
                report.charts.push(chart);
            }
        }
        report.tables.push(table);
        report.data = json!({ "pairs": pairs, "rows": data });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, refused};

    #[test]
    fn params_that_would_report_nothing_are_refused() {
        assert!(accepts_defaults_and_shipped(&Fig2) >= 1);
        for key in ["sizes", "eps", "t", "distributions"] {
            let e = refused(&Fig2, &format!("{key} = []"), key);
            assert!(e.ends_with("must not be empty"), "{e}");
        }
        refused(&Fig2, "sizes = [0]", "sizes");
        refused(&Fig2, "heavy_sizes = [0]", "heavy_sizes");
        refused(&Fig2, "distributions = [\"C\"]", "distributions");
        refused(&Fig2, "t = [5, 3000]", "t");
    }
}
