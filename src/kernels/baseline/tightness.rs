//! Experiment `dot-tightness`: how tight are the dot-product bounds?
//!
//! For the recursive dot product in each format and size, over the plan's
//! seeds: the observed error divided by `S = sum |x_i y_i|` (largest and
//! median over the trials), next to the deterministic coefficient `gamma_n`
//! (Higham 2002 (3.5)) and the probabilistic `gamma~_n(lambda)` of Higham &
//! Mary (2019, Theorem 3.1, at probability 0.99). The deterministic bound grows
//! like `n u`, observed errors like `sqrt(n) u` on random data: the plot shows
//! by how much the worst-case analysis overestimates. Every trial is also
//! checked against the rigorous bound; a violation fails the audit.

use super::recursive::recursive_dot;
use super::{DotOperands, rigorous_as_given};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, non_empty, uniform_range,
};
use crate::error::{Error, Result};
use crate::generate::Distribution;
use crate::plot::{Chart, Series};
use boundgate_verify::bounds::dot::{
    abs_dot_up, recursive_depth, recursive_higham_mary, recursive_rigorous,
};
use boundgate_verify::bounds::gamma::gamma_value;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{self, ErrorMeasure};
use serde_json::json;

/// The `dot-tightness` experiment.
pub struct DotTightness;

struct Config {
    formats: Vec<Format>,
    sizes: Vec<usize>,
    fma: bool,
    low: f64,
    high: f64,
}

fn config(p: &Params) -> std::result::Result<Config, String> {
    p.only(&["formats", "sizes", "fma", "low", "high"])?;
    let formats = p.str_list_or("formats", &["fp16", "bf16", "fp32"])?;
    let formats = non_empty("formats", formats)?
        .iter()
        .map(|f| Format::by_name(f).map_err(|e| format!("params.formats: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let sizes = non_empty("sizes", p.usize_list_or("sizes", &[10, 100, 1000, 10_000])?)?;
    if sizes.contains(&0) {
        return Err("params.sizes: needs sizes > 0".into());
    }
    let (low, high) = (p.f64_or("low", 0.0)?, p.f64_or("high", 1.0)?);
    uniform_range(low, high)?;
    Ok(Config {
        formats,
        sizes,
        fma: p.bool_or("fma", false)?,
        low,
        high,
    })
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

impl Experiment for DotTightness {
    fn name(&self) -> &'static str {
        "dot-tightness"
    }
    fn summary(&self) -> &'static str {
        "observed error of recursive dot products versus gamma_n and Higham-Mary's gamma~_n, over n"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params).map(|_| ())
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let cfg = config(params).map_err(Error::usage)?;
        let rne = RoundingMode::NearestEven;
        let dist = Distribution::Uniform {
            low: cfg.low,
            high: cfg.high,
        };
        let mut report = ExperimentReport::new(
            self.name(),
            "Tightness of dot-product bounds",
            format!(
                "Recursive dot products{} of x, y ~ {} rounded to each format, {} seeds from {}. \
                 Relative to S = sum |x_i y_i|: the largest and the median observed error, gamma_n \
                 (deterministic, Higham 2002 (3.5), only where n u < 1), the rigorous left-to-right \
                 bound at S = 1 ((n - 1) u (S + E) + E after Rump 2012, or n u S with FMA, plus \
                 underflow terms: it exists for every n) and gamma~_n(lambda) (Higham & Mary 2019, \
                 Thm 3.1, probability 0.99). Each trial is also checked against the rigorous bound.",
                if cfg.fma { " with FMA" } else { "" },
                dist.label(),
                ctx.seeds.count,
                ctx.seeds.first
            ),
        );
        let mut table = Table::new(
            "error / S against the bound coefficients",
            &[
                "format",
                "n",
                "max error/S",
                "median error/S",
                "gamma_n",
                "rigorous left to right (S = 1)",
                "gamma~_n (p=0.99)",
                "gamma_n / max",
            ],
        );
        let mut data = Vec::new();
        for &format in &cfg.formats {
            ctx.progress.set_message(format!("dot-tightness {format}"));
            let (mut max_s, mut med_s, mut gamma_s, mut hm_s, mut rigorous_s) =
                (vec![], vec![], vec![], vec![], vec![]);
            for &n in &cfg.sizes {
                let mut ratios = Vec::with_capacity(ctx.seeds.count as usize);
                for seed in ctx.seeds.first..ctx.seeds.first + ctx.seeds.count {
                    let x = dist.sample(seed, 0, n).map_err(Error::usage)?;
                    let y = dist.sample(seed, 1, n).map_err(Error::usage)?;
                    let ops = DotOperands::new(x, y, format)?;
                    let computed =
                        recursive_dot(&ops.x_stored, &ops.y_stored, format, rne, cfg.fma);
                    let s = abs_dot_up(&ops.x_stored, &ops.y_stored)?;
                    let error = oracle::dot(&ops.x_stored, &ops.y_stored)?.error_of(computed);
                    let rigorous =
                        rigorous_as_given(&ops, |s| recursive_rigorous(format, rne, n, cfg.fma, s));
                    let given = oracle::dot(&ops.x, &ops.y)?.error_of(computed);
                    if let (Ok(b), ErrorMeasure::Finite { absolute_up, .. }) = (&rigorous, given)
                        && absolute_up > b.values()[0]
                    {
                        report.rigorous_violations += 1;
                    }
                    if let ErrorMeasure::Finite { absolute_up, .. } = error
                        && s > 0.0
                    {
                        ratios.push(absolute_up / s);
                    }
                }
                let u = format.unit_roundoff(rne);
                let gamma = gamma_value(recursive_depth(n), u).ok();
                // Its coefficient: the bound for S = 1 (the underflow terms
                // make it slightly more than linear in S).
                let left_to_right = recursive_rigorous(format, rne, n, cfg.fma, 1.0)
                    .ok()
                    .map(|b| b.value);
                let hm = recursive_higham_mary(format, rne, n, 1.0, 0.99)
                    .ok()
                    .map(|b| b.value);
                let max = ratios.iter().copied().fold(0.0, f64::max);
                let med = if ratios.is_empty() {
                    f64::NAN
                } else {
                    median(&mut ratios)
                };
                let fmt = |v: Option<f64>| {
                    v.map_or("no value (n u >= 1)".to_string(), |g| format!("{g:.3e}"))
                };
                table.row(vec![
                    format.to_string(),
                    n.to_string(),
                    format!("{max:.3e}"),
                    format!("{med:.3e}"),
                    fmt(gamma),
                    left_to_right.map_or("-".into(), |b| format!("{b:.3e}")),
                    fmt(hm),
                    gamma.map_or("-".into(), |g| {
                        if max > 0.0 {
                            format!("{:.1}", g / max)
                        } else {
                            "inf".into()
                        }
                    }),
                ]);
                data.push(json!({ "format": format.to_string(), "n": n, "max": max, "median": med, "gamma": gamma, "rigorous_left_to_right": left_to_right, "higham_mary": hm }));
                max_s.push((n as f64, max));
                med_s.push((n as f64, med));
                if let Some(g) = gamma {
                    gamma_s.push((n as f64, g));
                }
                if let Some(b) = left_to_right {
                    rigorous_s.push((n as f64, b));
                }
                if let Some(h) = hm {
                    hm_s.push((n as f64, h));
                }
            }
            report.charts.push(
                Chart::new(
                    format!("recursive dot, {format}: error / sum|x_i y_i|"),
                    "n",
                    "relative to sum |x_i y_i|",
                )
                .log_x()
                .log_y()
                .with(Series::line("gamma_n (deterministic)", gamma_s))
                .with(Series::line("rigorous left to right (S = 1)", rigorous_s))
                .with(Series::line("gamma~_n (Higham-Mary, p=0.99)", hm_s))
                .with(Series::points("max observed", max_s))
                .with(Series::points("median observed", med_s)),
            );
        }
        report.tables.push(table);
        report.data = json!({ "fma": cfg.fma, "distribution": dist.label(), "rows": data });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, refused};

    #[test]
    fn params_that_would_report_nothing_are_refused() {
        assert!(accepts_defaults_and_shipped(&DotTightness) >= 2);
        assert_eq!(
            refused(&DotTightness, "formats = []", "formats"),
            "params.formats: must not be empty"
        );
        refused(&DotTightness, "sizes = []", "sizes");
        refused(&DotTightness, "sizes = [10, 0]", "sizes");
        refused(&DotTightness, "formats = [\"fp7\"]", "formats");
        let long = format!("sizes = [{}]", vec!["1"; 300].join(", "));
        refused(&DotTightness, &long, "sizes");
        // The end at fault is named (both were reported as `low`).
        refused(&DotTightness, "low = 2.0", "high");
        refused(&DotTightness, "high = -1.0", "high");
        refused(&DotTightness, "low = -1e308\nhigh = 1e308", "high");
        refused(&DotTightness, "low = -inf", "low");
    }
}
