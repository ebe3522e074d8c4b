//! Experiment `qdot-efficiency`: the approximation efficiency (2.5),
//! `T(k) / (T(Theta) + T(k))`, and speedup (2.6), `T(k) / T(k~)`, of the CPU
//! model, timed with `std::time::Instant` (best of `repeats` runs): `k` is
//! the original fp64 kernel in the same tiled order, `Theta` the selection
//! (Algorithm 3.2, one counting pass), `k~` the computation (Algorithm 3.1).
//!
//! Timings are measurements, not deterministic results: this experiment is
//! kept out of the default plan and out of every snapshot; criterion's
//! `benches/qdot.rs` measures the same ratios with statistics. The paper
//! measured an efficiency of about 1/40 = 0.025 on a GPU (sort-bound); its
//! Fig. 3 shows speedups above 1 for the GPU computation phase.

use super::{CONFIG_KEYS, MAX_T, config_of, seed_for};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, non_empty, product_within,
};
use crate::error::{Error, Result};
use crate::kernels::qdot::compute::{compute, original_dot};
use crate::kernels::qdot::config::Tolerance;
use crate::kernels::qdot::distributions::PaperDistribution;
use crate::kernels::qdot::select::select;
use boundgate_verify::bounds::qdot::TileOrder;
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The `qdot-efficiency` experiment.
pub struct Efficiency;

fn best_of<T>(repeats: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..repeats.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The most values one timing may process, `repeats x n`: 2^32. The shipped
/// plan times 5 x 10^6 (about 2^22); at a few nanoseconds per value 2^32 is
/// tens of seconds per timing, of which there are three per size and
/// tolerance, where `repeats = 2^28` at `n = 2^28` would have been years.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::qdot::experiments::efficiency::MAX_TIMED_VALUES_LOG2, 32);
/// ```
pub const MAX_TIMED_VALUES_LOG2: u32 = 32;

struct Config {
    sizes: Vec<usize>,
    eps: Vec<f64>,
    t: u32,
    repeats: usize,
    qdot: crate::kernels::qdot::config::QdotConfig,
}

fn config(p: &Params) -> std::result::Result<Config, String> {
    let mut known = vec!["sizes", "eps", "t", "repeats"];
    known.extend(CONFIG_KEYS);
    p.only(&known)?;
    let sizes = non_empty("sizes", p.usize_list_or("sizes", &[100_000, 1_000_000])?)?;
    if sizes.contains(&0) {
        return Err("params.sizes: needs sizes > 0".into());
    }
    let eps = non_empty("eps", p.f64_list_or("eps", &[1e-15, 1e-8, 1e-3])?)?;
    for &e in &eps {
        Tolerance::new(e).map_err(|err| format!("params.eps: {err}"))?;
    }
    let t = p.usize_or("t", 9)?;
    if t > MAX_T {
        return Err(format!("params.t: {t} exceeds the limit of {MAX_T}"));
    }
    // 0 runs once, as 1 (best of one).
    let repeats = p.usize_or("repeats", 5)?.max(1);
    let largest = sizes.iter().copied().max().unwrap_or(1);
    product_within(
        "repeats",
        &[repeats, largest],
        MAX_TIMED_VALUES_LOG2,
        "values per timing",
    )?;
    Ok(Config {
        sizes,
        eps,
        t: t as u32, // at most MAX_T
        repeats,
        qdot: config_of(p)?,
    })
}

impl Experiment for Efficiency {
    fn measures_time(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "qdot-efficiency"
    }
    fn summary(&self) -> &'static str {
        "qdot efficiency (2.5) and speedup (2.6) of the CPU model, timed (not deterministic)"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params).map(|_| ())
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Runs the first seed only (seeds.count does not matter to it).
        Ok(0)
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let Config {
            sizes,
            eps: eps_list,
            t,
            repeats,
            qdot,
        } = config(params).map_err(Error::usage)?;
        let mut report = ExperimentReport::new(
            self.name(),
            "qdot efficiency and speedup on the CPU (eqs. 2.5, 2.6)",
            format!(
                "Distribution B (t = {t}), best of {repeats} runs, {qdot}. T(k): the fp64 dot in the \
                 tiled order; T(Theta): selection (Alg. 3.2, counting pass, no sort); T(k~): computation \
                 (Alg. 3.1, emulated fp16 casts, native fp32/fp64). Efficiency (2.5) = T(k) / (T(Theta) + \
                 T(k)); speedup (2.6) = T(k) / T(k~). The paper: efficiency about 0.025 on its GPU \
                 (sort-bound). These numbers are timings of this machine, not deterministic."
            ),
        );
        let mut table = Table::new(
            "times in microseconds",
            &[
                "n",
                "eps",
                "T(k)",
                "T(Theta)",
                "T(k~)",
                "efficiency (2.5)",
                "speedup (2.6)",
                "early exit",
            ],
        );
        let mut data = Vec::new();
        for &n in &sizes {
            let d = PaperDistribution::B { t, signed: false };
            let seed = seed_for(ctx.seeds.first, &[n as u64]);
            let (x, y) = (d.sample(seed, 0, n), d.sample(seed, 1, n));
            let order = TileOrder { n, tile: qdot.tile };
            let level = qdot.input_level();
            // Checked once here, so that the timed closures' results are
            // known to be values (their `Result`s are only black-boxed).
            original_dot(&x, &y, level, qdot.input, order)?;
            let t_k = best_of(repeats, || original_dot(&x, &y, level, qdot.input, order));
            for &e in &eps_list {
                ctx.progress
                    .set_message(format!("qdot-efficiency n={n} eps={e:e}"));
                let eps = Tolerance::new(e)?;
                let selection = select(&x, &y, eps, &qdot)?;
                let t_sel = best_of(repeats, || select(&x, &y, eps, &qdot));
                compute(&x, &y, &selection, &qdot)?;
                let t_comp = best_of(repeats, || compute(&x, &y, &selection, &qdot));
                let us = |d: Duration| d.as_secs_f64() * 1e6;
                let efficiency = us(t_k) / (us(t_sel) + us(t_k));
                let speedup = us(t_k) / us(t_comp);
                table.row(vec![
                    n.to_string(),
                    format!("{e:.0e}"),
                    format!("{:.1}", us(t_k)),
                    format!("{:.1}", us(t_sel)),
                    format!("{:.1}", us(t_comp)),
                    format!("{efficiency:.3}"),
                    format!("{speedup:.3}"),
                    selection.early_exit.to_string(),
                ]);
                data.push(json!({
                    "n": n, "eps": e, "t_k_us": us(t_k), "t_select_us": us(t_sel),
                    "t_compute_us": us(t_comp), "efficiency": efficiency, "speedup": speedup,
                }));
            }
        }
        report.tables.push(table);
        report.data = json!({ "timings_are_nondeterministic": true, "rows": data });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::experiment::testing::{accepts_defaults_and_shipped, params, refused};

    #[test]
    fn params_that_would_time_nothing_or_for_years_are_refused() {
        assert!(accepts_defaults_and_shipped(&Efficiency) >= 1);
        for key in ["sizes", "eps"] {
            let e = refused(&Efficiency, &format!("{key} = []"), key);
            assert!(e.ends_with("must not be empty"), "{e}");
        }
        refused(&Efficiency, "sizes = [0]", "sizes");
        refused(&Efficiency, "t = 201", "t");
        assert_eq!(
            refused(&Efficiency, "sizes = [1000000]\nrepeats = 5000", "repeats"),
            "params.repeats: 5000 x 1000000 = 5000000000 values per timing exceed the limit of 2^32"
        );
        let p = params("sizes = [1000]\nrepeats = 0");
        assert_eq!(config(&p).unwrap().repeats, 1);
    }
}
