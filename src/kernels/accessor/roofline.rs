//! Experiment `accessor-roofline`: the experimental roofline of the memory
//! accessor (Grützmacher et al. 2021, §3, mixbench-like), on the CPU.
//!
//! Each configuration streams `n` values: read `x_i` through the accessor,
//! apply `k` times `v = v a + b` (2 FLOPs each: a multiplication and an
//! addition, so `2k` FLOPs per value, the "arithmetic intensity" in FLOPs per
//! value as in the paper's figures), write `y_i` through the accessor. As in
//! the paper, the conversion is not counted as FLOPs. Configurations (the
//! paper's four, plus binary16 storage):
//! `fp64` (plain `f64` slices), `accessor<fp64,fp64>`, `fp32` (plain `f32`),
//! `accessor<fp64,fp32>`, `accessor<fp64,fp16>`, `accessor<fp32,fp16>`.
//!
//! Values are processed in groups of [`LANES`] independent chains so the
//! compiler can vectorise and pipeline them (a single chain would measure the
//! latency of one multiply-add, not throughput). One thread; the paper's CPU
//! runs used OpenMP on all cores. Reported: GFLOP/s and GB/s (bytes read and
//! written), best of `repeats` runs.

use super::arith::Arith;
use super::native::{Accessor, StorageType};
use crate::audit::experiment::{
    Experiment, ExperimentContext, ExperimentReport, Params, Table, non_empty, product_within,
};
use crate::error::{Error, Result};
use crate::plot::{Chart, Series};
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// Independent chains per group.
pub const LANES: usize = 8;

/// The multiplier `a` of `f(v) = v a + b`: with [`ADDEND`], `f` keeps
/// `|v| <= 2` bounded (the GPU kernel `accessor_roofline_*` takes the same).
pub const MULTIPLIER: f64 = 0.5;
/// The addend `b` of `f(v) = v a + b`.
pub const ADDEND: f64 = 0.25;
const A: f64 = MULTIPLIER;
const B: f64 = ADDEND;

/// The roofline kernel through `Accessor<S, A>`: `y_i = w(f^k(r(x_i)))` with
/// `f(v) = v a + b`. `x.len()` must be a multiple of [`LANES`] (the rest is
/// not processed).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::roofline::accessor_kernel;
/// let x = vec![1.0f32; 8];
/// let mut y = vec![0.0f32; 8];
/// accessor_kernel::<f32, f64>(&x, &mut y, 2);
/// assert_eq!(y[0], 0.625); // (1 * 0.5 + 0.25) * 0.5 + 0.25
/// ```
#[inline(never)]
pub fn accessor_kernel<S: StorageType, Ar: Arith>(x: &[S], y: &mut [S], k: usize) {
    let (a, b) = (Ar::of(A), Ar::of(B));
    for (xs, ys) in x.chunks_exact(LANES).zip(y.chunks_exact_mut(LANES)) {
        let mut v = [Ar::ZERO; LANES];
        for l in 0..LANES {
            v[l] = Accessor::<S, Ar>::read(xs[l]);
        }
        for _ in 0..k {
            for vl in v.iter_mut() {
                *vl = Ar::add(Ar::mul(*vl, a), b);
            }
        }
        for l in 0..LANES {
            ys[l] = Accessor::<S, Ar>::write(v[l]);
        }
    }
}

/// The same kernel on plain `f64` slices (no accessor).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::roofline::plain_f64;
/// let mut y = [0.0; 8];
/// plain_f64(&[1.0; 8], &mut y, 1);
/// assert_eq!(y, [0.75; 8]); // 1 * 0.5 + 0.25
/// ```
#[inline(never)]
pub fn plain_f64(x: &[f64], y: &mut [f64], k: usize) {
    for (xs, ys) in x.chunks_exact(LANES).zip(y.chunks_exact_mut(LANES)) {
        let mut v = [0.0f64; LANES];
        v.copy_from_slice(xs);
        for _ in 0..k {
            for vl in v.iter_mut() {
                *vl = *vl * A + B;
            }
        }
        ys.copy_from_slice(&v);
    }
}

/// The same kernel on plain `f32` slices (no accessor).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::roofline::{accessor_kernel, plain_f32};
/// let x = [0.1f32; 16];
/// let (mut plain, mut through) = ([0.0f32; 16], [0.0f32; 16]);
/// plain_f32(&x, &mut plain, 3);
/// accessor_kernel::<f32, f32>(&x, &mut through, 3);
/// assert_eq!(plain, through); // the accessor<fp32,fp32> is the plain kernel
/// ```
#[inline(never)]
pub fn plain_f32(x: &[f32], y: &mut [f32], k: usize) {
    let (a, b) = (A as f32, B as f32);
    for (xs, ys) in x.chunks_exact(LANES).zip(y.chunks_exact_mut(LANES)) {
        let mut v = [0.0f32; LANES];
        v.copy_from_slice(xs);
        for _ in 0..k {
            for vl in v.iter_mut() {
                *vl = *vl * a + b;
            }
        }
        ys.copy_from_slice(&v);
    }
}

/// The configurations, by name.
pub const CONFIGS: &[&str] = &[
    "fp64",
    "accessor<fp64,fp64>",
    "fp32",
    "accessor<fp64,fp32>",
    "accessor<fp64,fp16>",
    "accessor<fp32,fp16>",
];

/// One measured point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RooflinePoint {
    /// The configuration.
    pub config: String,
    /// FLOPs per value (`2k`).
    pub flops_per_value: usize,
    /// Best time over the repeats.
    pub seconds: f64,
    /// GFLOP/s.
    pub gflops: f64,
    /// GB/s (bytes read and written).
    pub gbytes_per_s: f64,
}

fn best_of<T: Copy + Default + From<u8>>(
    n: usize,
    repeats: usize,
    run: impl Fn(&[T], &mut [T]),
) -> f64 {
    let x: Vec<T> = (0..n).map(|i| T::from((i % 3) as u8)).collect();
    let mut y = vec![T::default(); n];
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        run(&x, &mut y);
        best = best.min(start.elapsed().as_secs_f64());
    }
    std::hint::black_box(&y);
    best
}

/// Wraps half types so that `best_of` can build inputs.
fn measure(config: &str, n: usize, k: usize, repeats: usize) -> Result<(f64, usize)> {
    let n = n - n % LANES;
    Ok(match config {
        "fp64" => (best_of::<f64>(n, repeats, |x, y| plain_f64(x, y, k)), 8),
        "accessor<fp64,fp64>" => (
            best_of::<f64>(n, repeats, |x, y| accessor_kernel::<f64, f64>(x, y, k)),
            8,
        ),
        "fp32" => (best_of::<f32>(n, repeats, |x, y| plain_f32(x, y, k)), 4),
        "accessor<fp64,fp32>" => (
            best_of::<f32>(n, repeats, |x, y| accessor_kernel::<f32, f64>(x, y, k)),
            4,
        ),
        "accessor<fp64,fp16>" => (half_best::<f64>(n, repeats, k), 2),
        "accessor<fp32,fp16>" => (half_best::<f32>(n, repeats, k), 2),
        other => {
            return Err(Error::usage(format!(
                "params.configs: unknown configuration `{other}` (known: {})",
                CONFIGS.join(", ")
            )));
        }
    })
}

fn half_best<Ar: Arith>(n: usize, repeats: usize, k: usize) -> f64 {
    let x: Vec<half::f16> = (0..n)
        .map(|i| half::f16::from_f32((i % 3) as f32))
        .collect();
    let mut y = vec![half::f16::default(); n];
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        accessor_kernel::<half::f16, Ar>(&x, &mut y, k);
        best = best.min(start.elapsed().as_secs_f64());
    }
    std::hint::black_box(&y);
    best
}

/// Measures one configuration at `flops_per_value` (even) over `n` values.
///
/// # Errors
/// [`Error::Usage`] for an unknown configuration or an odd FLOP count.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::roofline::measure_point;
/// let p = measure_point("accessor<fp64,fp32>", 1024, 8, 1).unwrap();
/// assert_eq!(p.flops_per_value, 8);
/// assert!(p.seconds > 0.0 && p.gflops > 0.0 && p.gbytes_per_s > 0.0);
/// assert!(measure_point("accessor<fp64,fp32>", 1024, 7, 1).is_err());
/// assert!(measure_point("fp8", 1024, 8, 1).is_err());
/// ```
pub fn measure_point(
    config: &str,
    n: usize,
    flops_per_value: usize,
    repeats: usize,
) -> Result<RooflinePoint> {
    if !flops_per_value.is_multiple_of(2) {
        return Err(Error::usage(format!(
            "params.flops: {flops_per_value} is odd (each step is a multiply and an add: 2 FLOPs)"
        )));
    }
    let (seconds, bytes) = measure(config, n, flops_per_value / 2, repeats)?;
    let n = (n - n % LANES) as f64;
    Ok(RooflinePoint {
        config: config.to_string(),
        flops_per_value,
        seconds,
        gflops: n * flops_per_value as f64 / seconds / 1e9,
        gbytes_per_s: n * 2.0 * bytes as f64 / seconds / 1e9,
    })
}

#[derive(Debug)]
struct Config {
    flops: Vec<usize>,
    n: usize,
    repeats: usize,
    configs: Vec<String>,
}

/// The most multiply-adds of one measured point, `repeats x n x max(1,
/// flops / 2)`: 2^36, a minute or so of one thread, where the shipped sweep's
/// largest point is about 2^32.3 (5 x 2^23 values x 128 steps) and `flops`
/// and `n` at 2^28 each would have been 2^55 per repeat (months).
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::accessor::roofline::MAX_POINT_STEPS_LOG2, 36);
/// ```
pub const MAX_POINT_STEPS_LOG2: u32 = 36;

fn config(p: &Params) -> std::result::Result<Config, String> {
    p.only(&["flops", "n", "repeats", "configs"])?;
    let flops = non_empty(
        "flops",
        p.usize_list_or("flops", &[0, 2, 4, 8, 16, 32, 64, 128])?,
    )?;
    if let Some(f) = flops.iter().find(|f| !f.is_multiple_of(2)) {
        return Err(format!("params.flops: {f} is odd (each step is 2 FLOPs)"));
    }
    let n = p.usize_or("n", 1 << 22)?;
    if n < LANES {
        return Err(format!("params.n: needs at least {LANES} values"));
    }
    let configs = non_empty("configs", p.str_list_or("configs", CONFIGS)?)?;
    if let Some(c) = configs.iter().find(|c| !CONFIGS.contains(&c.as_str())) {
        return Err(format!(
            "params.configs: unknown configuration `{c}` (known: {})",
            CONFIGS.join(", ")
        ));
    }
    // 0 runs once, as 1 (best of one).
    let repeats = p.usize_or("repeats", 3)?.max(1);
    let steps = flops.iter().map(|f| (f / 2).max(1)).max().unwrap_or(1);
    // Named after the parameter that tips it: per run, then over the repeats.
    for (key, factors) in [
        ("flops", vec![n, steps]),
        ("repeats", vec![repeats, n, steps]),
    ] {
        product_within(
            key,
            &factors,
            MAX_POINT_STEPS_LOG2,
            "multiply-adds per point",
        )?;
    }
    Ok(Config {
        flops,
        n,
        repeats,
        configs,
    })
}

/// The `accessor-roofline` experiment.
pub struct AccessorRoofline;

impl Experiment for AccessorRoofline {
    fn measures_time(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "accessor-roofline"
    }
    fn summary(&self) -> &'static str {
        "experimental roofline of the memory accessor on the CPU (Grützmacher et al. 2021, §3): GFLOP/s over FLOPs per value"
    }
    fn check_params(&self, params: &Params) -> std::result::Result<(), String> {
        config(params).map(|_| ())
    }

    fn results_per_seed(&self, _: &Params) -> std::result::Result<u64, String> {
        // Draws nothing from the seeds.
        Ok(0)
    }

    fn run(&self, params: &Params, ctx: &ExperimentContext<'_>) -> Result<ExperimentReport> {
        let cfg = config(params).map_err(Error::usage)?;
        let mut report = ExperimentReport::new(
            self.name(),
            "Experimental roofline of the memory accessor (CPU)",
            format!(
                "{} values streamed per configuration, k multiply-adds per value (2k FLOPs), best of {} runs, one thread. \
                 The paper (Fig. 5, Xeon Gold 6230) finds accessor<fp64,fp32> on the fp32 roofline in the memory-bound \
                 region and on the fp64 one beyond the machine balance; conversions are not counted as FLOPs.",
                cfg.n, cfg.repeats
            ),
        );
        let mut headers = vec!["FLOPs/value".to_string()];
        headers.extend(cfg.configs.iter().map(|c| format!("{c} GFLOP/s (GB/s)")));
        let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut table = Table::new("GFLOP/s (GB/s) by arithmetic intensity", &header_refs);
        let mut points = Vec::new();
        for &f in &cfg.flops {
            ctx.progress
                .set_message(format!("accessor-roofline {f} FLOPs/value"));
            let mut row = vec![f.to_string()];
            for c in &cfg.configs {
                let p = measure_point(c, cfg.n, f, cfg.repeats)?;
                row.push(format!("{:.2} ({:.1})", p.gflops, p.gbytes_per_s));
                points.push(p);
            }
            table.row(row);
        }
        let mut chart = Chart::new(
            "experimental roofline (CPU, one thread)",
            "FLOPs per value",
            "GFLOP/s",
        )
        .log_y();
        for c in &cfg.configs {
            let series: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| &p.config == c && p.flops_per_value > 0)
                .map(|p| (p.flops_per_value as f64, p.gflops))
                .collect();
            chart = chart.with(Series::line(c.clone(), series));
        }
        report.tables.push(table);
        report.charts.push(chart.log_x());
        report.data = json!({ "n": cfg.n, "repeats": cfg.repeats, "points": points });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_configuration_computes_the_same_thing() {
        let k = 5;
        let x: Vec<f64> = (0..64).map(|i| (i % 7) as f64 * 0.25).collect();
        let mut y64 = vec![0.0; 64];
        plain_f64(&x, &mut y64, k);
        let mut ya = vec![0.0; 64];
        accessor_kernel::<f64, f64>(&x, &mut ya, k);
        assert_eq!(y64, ya);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut y32 = vec![0.0f32; 64];
        plain_f32(&x32, &mut y32, k);
        let mut y3264 = vec![0.0f32; 64];
        accessor_kernel::<f32, f64>(&x32, &mut y3264, k);
        // Dyadic inputs and constants: every configuration is exact here.
        for i in 0..64 {
            assert_eq!(f64::from(y32[i]), y64[i]);
            assert_eq!(f64::from(y3264[i]), y64[i]);
        }
        assert!(measure_point("fp32", 64, 3, 1).is_err());
        assert!(measure_point("fp8", 64, 2, 1).is_err());
    }

    #[test]
    fn params_are_checked() {
        let bad = Params::new(toml::from_str("flops = [3]").unwrap());
        assert!(config(&bad).unwrap_err().contains("params.flops"));
        let bad = Params::new(toml::from_str("configs = [\"fp8\"]").unwrap());
        assert!(config(&bad).unwrap_err().contains("params.configs"));
        let bad = Params::new(toml::from_str("colour = 1").unwrap());
        assert!(config(&bad).unwrap_err().contains("params.colour"));
    }

    #[test]
    fn params_that_would_measure_nothing_or_for_months_are_refused() {
        use crate::audit::experiment::testing::{accepts_defaults_and_shipped, refused};
        let e = &AccessorRoofline;
        assert!(accepts_defaults_and_shipped(e) >= 1);
        for key in ["flops", "configs"] {
            let err = refused(e, &format!("{key} = []"), key);
            assert!(err.ends_with("must not be empty"), "{err}");
        }
        assert_eq!(
            refused(e, "flops = [0, 268435456]\nn = 268435456", "flops"),
            "params.flops: 268435456 x 134217728 = 36028797018963968 multiply-adds per point exceed the limit of 2^36"
        );
        refused(e, "n = 8388608\nrepeats = 10000", "repeats");
    }
}
