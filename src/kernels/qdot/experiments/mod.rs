//! The experiments of the paper's §4 as audit-plan experiments:
//! - `qdot-fig1`: Fig. 1, bound minus relative error over distributions A and B;
//! - `qdot-fig2`: Fig. 2, effectiveness over tolerances 1e-15..1e-1, `t` in {5, 9, 13};
//! - `qdot-efficiency`: the efficiency (2.5) and speedup (2.6) of the CPU model (timed);
//! - `qdot-acg`: ACG on HPCCG 27-point problems (Algorithm 4.1, Fig. 4);
//! - `qdot-apm`: APM on a random graph Laplacian (Algorithm 4.2, Figs. 6-7).
//!
//! Every qdot call of the first two and of the applications (optionally) is
//! checked against the rigorous bound with the exact oracle; a violation
//! counts in the report's `rigorous_violations` and fails the audit.

pub mod acg;
pub mod apm;
pub mod efficiency;
pub mod fig1;
pub mod fig2;

use super::bounds::evaluate;
use super::compute::{compute, original_dot};
use super::config::{HalfMode, QdotConfig, Tolerance};
use super::select::select;
use crate::audit::experiment::{Params, list_within, non_empty, product_within};
use crate::error::Result;
use boundgate_verify::bounds::qdot::{Binning, Fexp, TileOrder};
use boundgate_verify::format::Format;
use boundgate_verify::oracle;

/// What one qdot trial measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// `|x^T y - z| / |x^T y|` against the exact result (None if it is zero).
    pub relerr: Option<f64>,
    /// `|k(X) - z| / |k(X)|` against the fp64 dot `k(X)` (the paper's measure,
    /// with `cublasDdot` as `k`; None if `k(X)` is zero or not finite).
    pub relerr_fp64: Option<f64>,
    /// Theorem 3.5's relative bound (`eps` with `eps / N_bins` in the score;
    /// None where it has no value or the exact dot is zero or beyond binary64).
    pub bound: Option<f64>,
    /// The rigorous bound had a value and the error exceeded it.
    pub rigorous_violated: bool,
    /// Components per precision class (`apps::dots::CLASSES`).
    pub components: [usize; 5],
}

/// Runs qdot on one pair and measures it.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::{QdotConfig, Score, Tolerance};
/// use boundgate::kernels::qdot::experiments::trial;
/// use boundgate_verify::format::Format;
/// let c = QdotConfig::new(Format::FP64).unwrap();
/// let eps = Tolerance::new(2f64.powi(-20)).unwrap();
/// // z = 1: relative error 2^-40 / (1 + 2^-40).
/// let t = trial(&[1.0, 2f64.powi(-40)], &[1.0, 1.0], &c, eps).unwrap();
/// let relerr = t.relerr.unwrap();
/// assert!(relerr > 0.0 && relerr <= 2f64.powi(-40));
/// assert!(relerr <= t.bound.unwrap() && !t.rigorous_violated);
/// // Bin 2^0 needs 0 - floor(log2(eps / 2)) = 21 bits: single; 2^-40 is perforated.
/// assert_eq!(t.components, [1, 0, 0, 1, 0]);
/// ```
pub fn trial(x: &[f64], y: &[f64], config: &QdotConfig, eps: Tolerance) -> Result<Trial> {
    let selection = select(x, y, eps, config)?;
    let z = compute(x, y, &selection, config)?.value;
    let exact = oracle::dot(x, y)?;
    let bounds = evaluate(x, y, &selection, config, eps, &exact)?;
    let reference = original_dot(
        x,
        y,
        config.input_level(),
        config.input,
        TileOrder {
            n: x.len(),
            tile: config.tile,
        },
    )?;
    let error = exact.error_of(z);
    let magnitude = exact.to_f64().abs();
    let rigorous_violated = match &bounds.rigorous {
        Ok(b) => error.absolute_up().is_none_or(|e| e > b.value),
        Err(_) => false,
    };
    let levels = config.levels();
    let mut components = [0usize; 5];
    let class = |name: &str| {
        super::apps::dots::CLASSES
            .iter()
            .position(|c| *c == name)
            .unwrap_or(0)
    };
    if selection.early_exit {
        components[class(config.input_level().name)] = x.len() - selection.zeros;
    }
    for b in &selection.bins {
        components[class(b.level.map_or("perforate", |l| levels[l].name))] += b.count;
    }
    // A relative measure needs a finite nonzero divisor: where the exact dot
    // or the fp64 one overflows (x = y = [1e308, 1e308]) the quotients were
    // inf / inf = NaN, reported as Some(NaN) (review, 2026-11-29).
    Ok(Trial {
        relerr: error.relative_up(),
        relerr_fp64: (reference.is_finite() && reference != 0.0)
            .then(|| ((reference - z) / reference).abs())
            .filter(|r| !r.is_nan()),
        bound: bounds
            .thm_3_5
            .as_ref()
            .ok()
            .filter(|_| magnitude > 0.0 && magnitude.is_finite())
            .map(|b| b.value / magnitude)
            .filter(|r| !r.is_nan()),
        rigorous_violated,
        components,
    })
}

/// The most iterations of one ACG or APM solve (`max_iter`): 100000, 100
/// times the larger default (1000 for ACG, 300 for APM). A solve that never
/// converges (a loose tolerance can prevent it) runs them all and keeps
/// statistics of both dot products of each (64 bytes apiece), so
/// `max_iter = 2^28` could have filled 32 GB with them in one solve.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::qdot::experiments::MAX_ITER, 100_000);
/// ```
pub const MAX_ITER: usize = 100_000;

/// The most matrix entries one solve may read, `max_iter x` the matrix's
/// entries (one product per iteration, beside two checked dot products): 2^40.
/// The largest problem of the paper, HPCCG 1000x1000x10 (2.5 x 10^8 entries),
/// at the default 1000 iterations reads 2^37.9.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::qdot::experiments::MAX_SOLVE_READS_LOG2, 40);
/// ```
pub const MAX_SOLVE_READS_LOG2: u32 = 40;

/// The applications' tolerance sweep and solver tolerance: `eps` (a
/// non-empty list, each a valid loose qdot tolerance; empty would leave the
/// charts without an eps range) and `tol` (positive and finite).
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// use boundgate::kernels::qdot::experiments::eps_and_tol;
/// let p = Params::new(toml::from_str("eps = [1e-8, 1e-4]").unwrap());
/// assert_eq!(eps_and_tol(&p, &[1.0], 1e-6).unwrap(), (vec![1e-8, 1e-4], 1e-6));
/// let p = Params::new(toml::from_str("tol = 0.0").unwrap());
/// assert!(eps_and_tol(&p, &[1.0], 1e-6).unwrap_err().starts_with("params.tol"));
/// ```
pub fn eps_and_tol(
    p: &Params,
    eps_default: &[f64],
    tol_default: f64,
) -> std::result::Result<(Vec<f64>, f64), String> {
    let eps = non_empty("eps", p.f64_list_or("eps", eps_default)?)?;
    for &e in &eps {
        Tolerance::loose(e).map_err(|err| format!("params.eps: {err}"))?;
    }
    let tol = p.f64_or("tol", tol_default)?;
    if !tol.is_finite() || tol <= 0.0 {
        return Err("params.tol: must be positive".into());
    }
    Ok((eps, tol))
}

/// `max_iter` for a solve on a matrix of `entries` entries: at most
/// [`MAX_ITER`], and `max_iter x entries` at most 2^[`MAX_SOLVE_READS_LOG2`].
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// use boundgate::kernels::qdot::experiments::max_iter;
/// let p = Params::new(toml::from_str("max_iter = 300").unwrap());
/// assert_eq!(max_iter(&p, 1000, 50_000).unwrap(), 300);
/// assert!(max_iter(&p, 1000, 1 << 33).unwrap_err().starts_with("params.max_iter: "));
/// ```
pub fn max_iter(p: &Params, default: usize, entries: usize) -> std::result::Result<usize, String> {
    let max_iter = p.usize_or("max_iter", default)?;
    if max_iter == 0 || max_iter > MAX_ITER {
        return Err(format!(
            "params.max_iter: {max_iter} is not in 1..={MAX_ITER}"
        ));
    }
    product_within(
        "max_iter",
        &[max_iter, entries],
        MAX_SOLVE_READS_LOG2,
        "matrix entries read by a solve",
    )?;
    Ok(max_iter)
}

/// The sizes `n` of an experiment's dot products: `sizes` (at least one),
/// extended by `heavy_sizes` when `heavy`; both lists are checked either way
/// (a zero among the heavy sizes passed the plan and failed the heavy run),
/// every size at least 1 (each is a vector length, at most 2^28 as read).
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// use boundgate::kernels::qdot::experiments::dot_sizes;
/// let p = Params::new(toml::from_str("sizes = [100]\nheavy_sizes = [0]").unwrap());
/// assert!(dot_sizes(&p, false, &[10], &[]).unwrap_err().starts_with("params.heavy_sizes: "));
/// let p = Params::new(toml::from_str("heavy_sizes = [1000]").unwrap());
/// assert_eq!(dot_sizes(&p, true, &[10], &[]).unwrap(), vec![10, 1000]);
/// ```
pub fn dot_sizes(
    p: &Params,
    heavy: bool,
    default: &[usize],
    heavy_default: &[usize],
) -> std::result::Result<Vec<usize>, String> {
    let mut sizes = non_empty("sizes", p.usize_list_or("sizes", default)?)?;
    // Empty is meaningful here: nothing more under BOUNDGATE_HEAVY.
    let heavy_sizes = list_within(
        "heavy_sizes",
        p.usize_list_or("heavy_sizes", heavy_default)?,
    )?;
    for (key, list) in [("sizes", &sizes), ("heavy_sizes", &heavy_sizes)] {
        if list.contains(&0) {
            return Err(format!("params.{key}: needs sizes > 0"));
        }
    }
    if heavy {
        sizes.extend(heavy_sizes);
    }
    Ok(sizes)
}

/// The largest distribution parameter `t`: 200 (the paper's go up to 100
/// for A and 30 for B). With A the exponents stay within +-100, so products
/// and sums of up to 2^28 of them are finite and normal; with B a product's
/// exponent is 7 standard deviations from overflow. At `t = 3000`, A drew
/// infinite inputs (the run failed after the plan was accepted) and B's rows
/// had an infinite maximum error.
///
/// # Example
/// ```
/// assert_eq!(boundgate::kernels::qdot::experiments::MAX_T, 200);
/// ```
pub const MAX_T: usize = 200;

/// A list of distribution parameters `t` (`key`): at least one, each at most
/// [`MAX_T`].
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// use boundgate::kernels::qdot::experiments::t_values;
/// let p = Params::new(toml::from_str("t = [5, 3000]").unwrap());
/// assert!(t_values(&p, "t", &[5]).unwrap_err().starts_with("params.t: 3000"));
/// assert!(t_values(&Params::default(), "t", &[5, 9]).is_ok());
/// ```
pub fn t_values(
    p: &Params,
    key: &str,
    default: &[usize],
) -> std::result::Result<Vec<usize>, String> {
    let ts = non_empty(key, p.usize_list_or(key, default)?)?;
    match ts.iter().find(|&&t| t > MAX_T) {
        Some(t) => Err(format!("params.{key}: {t} exceeds the limit of {MAX_T}")),
        None => Ok(ts),
    }
}

/// The qdot options every experiment accepts: `fexp`, `binning`, `half`, `tile`.
pub const CONFIG_KEYS: [&str; 4] = ["fexp", "binning", "half", "tile"];

/// The fp64 configuration an experiment's parameters ask for.
///
/// # Example
/// ```
/// use boundgate::audit::experiment::Params;
/// use boundgate::kernels::qdot::config::{HalfMode, QdotConfig};
/// use boundgate::kernels::qdot::experiments::config_of;
/// use boundgate_verify::format::Format;
/// assert_eq!(config_of(&Params::default()).unwrap(), QdotConfig::new(Format::FP64).unwrap());
/// let p = Params::new(toml::from_str("half = \"fp16\"\ntile = 0").unwrap());
/// let c = config_of(&p).unwrap();
/// assert_eq!((c.input, c.half, c.tile), (Format::FP64, HalfMode::Fp16, 0));
/// let p = Params::new(toml::from_str("fexp = \"log2\"").unwrap());
/// assert!(config_of(&p).unwrap_err().starts_with("params.fexp: "));
/// ```
pub fn config_of(p: &Params) -> std::result::Result<QdotConfig, String> {
    let mut c = QdotConfig::new(Format::FP64).map_err(|e| e.to_string())?;
    c.fexp = p
        .str_or("fexp", "ieee")?
        .parse::<Fexp>()
        .map_err(|e| format!("params.fexp: {e}"))?;
    c.binning = p
        .str_or("binning", "factors")?
        .parse::<Binning>()
        .map_err(|e| format!("params.binning: {e}"))?;
    c.half =
        HalfMode::parse(p.str_or("half", "fp16-fp32")?).map_err(|e| format!("params.half: {e}"))?;
    c.tile = p.usize_or("tile", 64)?;
    Ok(c)
}

/// A seed for one sample, mixing the plan's first seed with its coordinates
/// (SplitMix64 steps, so neighbouring coordinates give unrelated streams).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::experiments::seed_for;
/// assert_eq!(seed_for(42, &[]), 42); // no coordinates: the first seed
/// // One step from 0 is SplitMix64's first output for seed 0.
/// assert_eq!(seed_for(0, &[0]), 0xe220_a839_7b1d_cdaf);
/// // The order of the coordinates matters.
/// assert_ne!(seed_for(42, &[1, 2]), seed_for(42, &[2, 1]));
/// ```
pub fn seed_for(first: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(first, |h, &p| {
        let mut z = h ^ p.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// Minimum, quartiles and maximum (`values` is sorted in place); NaN if empty.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::experiments::five_numbers;
/// let mut v = [5.0, 1.0, 4.0, 2.0, 3.0];
/// assert_eq!(five_numbers(&mut v), [1.0, 2.0, 3.0, 4.0, 5.0]);
/// assert_eq!(v, [1.0, 2.0, 3.0, 4.0, 5.0]); // sorted in place
/// // Index round((len - 1) q): for 4 values 0, round(0.75) = 1, round(1.5) = 2, round(2.25) = 2, 3.
/// assert_eq!(five_numbers(&mut [4.0, 3.0, 2.0, 1.0]), [1.0, 2.0, 3.0, 3.0, 4.0]);
/// assert!(five_numbers(&mut []).iter().all(|q| q.is_nan()));
/// ```
pub fn five_numbers(values: &mut [f64]) -> [f64; 5] {
    if values.is_empty() {
        return [f64::NAN; 5];
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    [at(0.0), at(0.25), at(0.5), at(0.75), at(1.0)]
}

/// `1.234e-5` style, or `-` for NaN.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::experiments::sci;
/// assert_eq!(sci(1.234e-5), "1.234e-5");
/// assert_eq!(sci(-12346.0), "-1.235e4"); // three decimals, rounded
/// assert_eq!(sci(f64::NAN), "-");
/// ```
pub fn sci(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else {
        format!("{v:.3e}")
    }
}

/// Tolerances `10^k` for `k` in `lo..=hi`.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::experiments::decades;
/// // Parsed from "1e-2" etc.: the doubles nearest 10^k, as the literals are.
/// assert_eq!(decades(-2, 1), [0.01, 0.1, 1.0, 10.0]);
/// assert!(decades(1, 0).is_empty());
/// ```
pub fn decades(lo: i32, hi: i32) -> Vec<f64> {
    (lo..=hi)
        .map(|k| format!("1e{k}").parse().expect("a number"))
        .collect()
}
