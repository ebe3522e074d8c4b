//! Forward error bounds for dot products and sums evaluated in floating point,
//! for a given summation order.
//!
//! Notation: the kernel computes `s^ ~ s = sum_i x_i y_i` in a format with unit
//! roundoff `u`. `S = sum_i |x_i y_i|`. The *depth* of an order is the largest
//! number of roundings any single term passes through on its way to the result
//! (product rounding included when products are rounded): `n` for recursive
//! summation (with or without FMA), `ceil(log2 n) + 1` for pairwise summation
//! of rounded products, and so on for blocked and tree orders.
//!
//! Two families:
//! - **Published** (as printed): `|s^ - s| <= gamma_depth S` (Higham 2002, §3.1,
//!   eq. (3.5) for the recursive order; §3.1 and §4.2 for pairwise summation,
//!   where `n` becomes `ceil(log2 n) + 1`; Bhola & Duraisamy, Lemma 2.1, DBEA).
//!   Their rounding model `fl(z) = z (1 + delta)` (Bhola-Duraisamy eq. (3);
//!   Higham eq. (2.4)) assumes no underflow, so they can fail when a product or
//!   an FMA result is subnormal. That is a finding, not a bug: see
//!   `docs/findings/dot.md`.
//! - **Rigorous**: with gradual underflow every operation satisfies
//!   `fl(z) = z (1 + delta) + eta`, `|delta| <= u`, `|eta| <= eta_min`,
//!   `delta eta = 0`, where `eta_min` is half the subnormal spacing (nearest)
//!   or the spacing (directed) (Higham 2002, §2.1, eq. (2.8)); additions and
//!   subtractions are exact when their result is subnormal (Higham 2002, §2.1,
//!   citing Hauser 1996), so with subnormals only multiplications and FMAs have
//!   an `eta`. Unrolling the order gives
//!   `s^ - s = sum_i x_i y_i theta_i + sum_k eta_k prod_{j after k} (1 + delta_j)`
//!   with `|theta_i| <= g_depth` and at most `depth - 1` factors after any
//!   `eta_k`, hence
//!   `|s^ - s| <= g_depth S + m (1 + g_depth) eta_min`,
//!   `m` = number of operations that can underflow (`n` products or FMAs with
//!   subnormals; every operation without them). Here `g_d` is the smaller of
//!   `gamma_d` (Lemma 3.1 of Higham 2002, where `d u < 1`) and
//!   `(1 + u)^d - 1`, the quantity Lemma 3.1's proof bounds, which holds for
//!   every `d` ([`super::gamma::theta_bound`]). This needs no overflow: if
//!   `(1 + u)^depth (S + m eta_min) <= max_finite`, every exact intermediate
//!   value is at most that in magnitude, so no rounding overflows (checked as
//!   a hypothesis).
//! - **Rigorous, left to right in round to nearest** ([`recursive_rigorous`]):
//!   rounded products `p_i = fl(x_i y_i)` summed left to right. Rump (2012,
//!   BIT 52, "Error estimation of floating-point summation and dot product")
//!   proved `|fl(sum p_i) - sum p_i| <= (n - 1) u sum |p_i|` for recursive
//!   summation of floating-point numbers in round to nearest, with no
//!   restriction on `n` (its abstract: "for summation there is no restriction
//!   on the number of summands"; Jeannerod and Rump 2013, SIMAX 34(2),
//!   extend it to `n u |x|^T |y|` for inner products without underflow).
//!   Its proof uses only that a rounded sum is the nearest number of the
//!   format, so sums landing in the subnormal range (exact) keep it. The
//!   products are rounded once each: `|p_i - x_i y_i| <= u |x_i y_i| + eta_min`
//!   (`u` above the underflow threshold, `eta_min` below), so with
//!   `E = u S + n eta_min >= sum |p_i - x_i y_i|` and `sum |p_i| <= S + E`,
//!   `|s^ - s| <= (n - 1) u (S + E) + E`, for every `n`. It is below the
//!   depth-`n` bound above (`n u S` to first order against `gamma_n S`).
//!
//!   Rump's induction needs only two facts about a step
//!   `s_k = fl(s_{k-1} + p_k)` with error `e_k`: `|e_k| <= |p_k|` (round to
//!   nearest, and `s_{k-1}` is a number of the format) and
//!   `|e_k| <= u |s_{k-1} + p_k|`. Let `S_k = sum_{j <= k} |p_j|` and suppose
//!   `|s_{k-1} - sum_{j < k} p_j| <= c u S_{k-1}`. If `|p_k| <= u S_{k-1}`,
//!   the first fact gives `|e_k| <= u S_{k-1}`; otherwise the second gives
//!   `|e_k| <= u (1 + c u) S_{k-1} + u |p_k| < u S_{k-1} + (c + 1) u |p_k|`.
//!   Either way the error after step `k` is at most `(c + 1) u S_k`. Summing
//!   numbers of the format, `s_1 = p_1` is exact (`c = 0` after step 1),
//!   hence `(n - 1) u`; an FMA chain, whose `p_k = x_k y_k` are exact
//!   products, rounds already at step 1 (`c = 1`), hence
//!   `|s^ - s| <= n u S`, for every `n`. With gradual
//!   underflow the first fact still holds; the second fails only for a
//!   result in the subnormal range, where `|e_k| <= eta_min` instead, so
//!   with `A_k` the added terms, `A_k <= (1 + u) A_{k-1} + eta_min` and
//!   `|s^ - s| <= n u S + eta_min ((1 + u)^n - 1) / u` (FMA chains, with
//!   subnormals; an exact simulation in 2-, 3- and 4-bit formats,
//!   `scripts/sim/rump_dot.py`, found no case above either bound).
//!
//! Representation error. When the kernel rounds its inputs to a storage format
//! first (`x~ = fl(x)`, `y~ = fl(y)`), the error with respect to the inputs as
//! given adds `|x~ . y~ - x . y| <= sum_i |x~_i y~_i - x_i y_i|`, and with
//! `x~ = x (1 + a) + e`, `|a| <= u_s`, `|e| <= eta_s`, `a e = 0`:
//! `|x~ y~ - x y| <= (2 u_s + u_s^2)|x y| + eta_s (1 + u_s)(|x| + |y|) + eta_s^2`
//! ([`representation_error_up`]).
//!
//! All numbers are evaluated with upward rounding ([`super::directed`]).

use super::directed::{add_up, div_down, div_up, exp_up, ln1p_up, mul_up, sub_down, sub_up};
use super::gamma::{gamma_value, product_growth, theta_bound, u64_up};
use super::probabilistic::{higham_mary_gamma, higham_mary_lambda};
use super::{Bound, Quantity, Rigor, Source, require};
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, RoundingMode};

const HIGHAM_DOT: Source = Source::new(
    "Higham 2002, Accuracy and Stability of Numerical Algorithms (2nd ed.)",
    "Section 3.1",
    Some("(3.5)"),
);
const HIGHAM_PAIRWISE: Source = Source::new(
    "Higham 2002, Accuracy and Stability of Numerical Algorithms (2nd ed.)",
    "Sections 3.1 and 4.2 (pairwise summation)",
    None,
);
const HIGHAM_MARY_DOT: Source = Source::new(
    "Higham & Mary 2019, A new approach to probabilistic rounding error analysis, SISC 41(5)",
    "Theorem 3.1",
    None,
);
const RIGOROUS_DOT: Source = Source::new(
    "boundgate (Higham 2002 eq. (2.8) model with underflow; derivation in bounds::dot)",
    "rigorous dot-product bound",
    None,
);
/// The source of [`recursive_rigorous`] in round to nearest (and of
/// [`recursive_nearest_growth`]).
pub const RIGOROUS_RECURSIVE_NEAREST: Source = Source::new(
    "boundgate (Rump 2012, BIT 52: the induction of its recursive-summation bound in round to nearest, on the rounded products or the FMA steps, with underflow; derivation in bounds::dot)",
    "rigorous left-to-right dot-product bound, any n",
    None,
);

/// Depth of recursive summation of `n` rounded products, or of an FMA chain
/// `s_k = fl(s_{k-1} + x_k y_k)`: the first term is rounded `n` times.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::recursive_depth;
/// assert_eq!(recursive_depth(1), 1);
/// assert_eq!(recursive_depth(100), 100);
/// ```
pub fn recursive_depth(n: usize) -> u64 {
    n.max(1) as u64
}

/// Depth of pairwise summation of `n` rounded products: `ceil(log2 n) + 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::pairwise_depth;
/// assert_eq!(pairwise_depth(1), 1);
/// assert_eq!(pairwise_depth(2), 2);
/// assert_eq!(pairwise_depth(1000), 11);
/// ```
pub fn pairwise_depth(n: usize) -> u64 {
    ceil_log2(n.max(1)) + 1
}

/// `ceil(log2 n)` for n >= 1, and 0 for n = 0 (as `accessor::ceil_log2`;
/// it was a debug assertion, and 64 in release builds).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::ceil_log2;
/// assert_eq!(ceil_log2(1), 0);
/// assert_eq!(ceil_log2(2), 1);
/// assert_eq!(ceil_log2(1000), 10);
/// assert_eq!(ceil_log2(1024), 10);
/// assert_eq!(ceil_log2(1025), 11);
/// assert_eq!(ceil_log2(0), 0);
/// ```
pub fn ceil_log2(n: usize) -> u64 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()) as u64
}

/// `sum_i |x_i y_i|`, rounded up (+inf if it overflows).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `x` and `y` differ in length.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::abs_dot_up;
/// assert_eq!(abs_dot_up(&[1.0, -2.0], &[3.0, 4.0]).unwrap(), 11.0);
/// assert!(abs_dot_up(&[1.0], &[1.0, 2.0]).is_err());
/// ```
pub fn abs_dot_up(x: &[f64], y: &[f64]) -> Result<f64> {
    require_same_len("x and y", x.len(), y.len())?;
    Ok(x.iter()
        .zip(y)
        .fold(0.0, |acc, (a, b)| add_up(acc, mul_up(a.abs(), b.abs()))))
}

fn check_sum_abs(sum_abs: f64) -> Result<()> {
    if sum_abs.is_nan() || sum_abs < 0.0 {
        return Err(VerifyError::invalid(
            "sum_abs",
            sum_abs,
            "must be a non-negative upper bound on sum |x_i y_i|",
        ));
    }
    Ok(())
}

/// The published DBEA bound for recursive summation (with or without FMA):
/// `|s^ - s| <= gamma_n S`, as printed (Higham 2002, §3.1, eq. (3.5);
/// Bhola-Duraisamy Lemma 2.1). Checks `n u < 1`. The no-underflow assumption of
/// its rounding model is not checkable a priori and is recorded as assumed.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs`;
/// [`VerifyError::HypothesisNotMet`] if `n u >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::recursive_published;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let b = recursive_published(Format::FP32, RoundingMode::NearestEven, 100, 50.0).unwrap();
/// assert!(b.value > 100.0 * 2f64.powi(-24) * 50.0);
/// assert!(recursive_published(Format::FP16, RoundingMode::NearestEven, 4096, 1.0).is_err());
/// ```
pub fn recursive_published(
    format: Format,
    mode: RoundingMode,
    n: usize,
    sum_abs: f64,
) -> Result<Bound> {
    published(format, mode, recursive_depth(n), sum_abs, HIGHAM_DOT)
}

/// The published bound for pairwise summation of rounded products:
/// `|s^ - s| <= gamma_{ceil(log2 n) + 1} S` (Higham 2002, §3.1 and §4.2).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs`;
/// [`VerifyError::HypothesisNotMet`] if `(ceil(log2 n) + 1) u >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::mul_up;
/// use boundgate_verify::bounds::dot::{abs_dot_up, pairwise_published};
/// use boundgate_verify::bounds::gamma::gamma_value;
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::dot;
/// // Pairwise summation in fp32 of the rounded products of fp32 vectors.
/// fn pairwise(p: &[f32]) -> f32 {
///     if p.len() == 1 { p[0] } else { pairwise(&p[..p.len() / 2]) + pairwise(&p[p.len() / 2..]) }
/// }
/// let n = 1000;
/// let x: Vec<f64> = (0..n).map(|i| f64::from((i * 37 % 101) as f32 / 101.0)).collect();
/// let y: Vec<f64> = (0..n).map(|i| f64::from(1.0f32 / (1 + i % 13) as f32)).collect();
/// let p: Vec<f32> = x.iter().zip(&y).map(|(a, b)| *a as f32 * *b as f32).collect();
/// let s_hat = f64::from(pairwise(&p));
/// let s = abs_dot_up(&x, &y).unwrap();
/// let b = pairwise_published(Format::FP32, RoundingMode::NearestEven, n, s).unwrap();
/// // Depth ceil(log2 1000) + 1 = 11: the bound is gamma_11 S, rounded up.
/// assert_eq!(b.value, mul_up(gamma_value(11, 2f64.powi(-24)).unwrap(), s));
/// let err = dot(&x, &y).unwrap().error_of(s_hat).absolute_up().unwrap();
/// assert!(err <= b.value);
/// assert!(pairwise_published(Format::FP32, RoundingMode::NearestEven, n, -1.0).is_err());
/// ```
pub fn pairwise_published(
    format: Format,
    mode: RoundingMode,
    n: usize,
    sum_abs: f64,
) -> Result<Bound> {
    published(format, mode, pairwise_depth(n), sum_abs, HIGHAM_PAIRWISE)
}

fn published(
    format: Format,
    mode: RoundingMode,
    depth: u64,
    sum_abs: f64,
    source: Source,
) -> Result<Bound> {
    check_sum_abs(sum_abs)?;
    let u = format.unit_roundoff(mode);
    let gamma = gamma_value(depth, u).map_err(|e| retag(e, &source))?;
    Ok(Bound::deterministic(
        mul_up(gamma, sum_abs),
        Quantity::AbsoluteError,
        source,
        Rigor::Published,
    )
    .with_hypothesis("n u < 1", format!("depth {depth}, u = 2^{}", u.log2()))
    .with_hypothesis(
        "fl(z) = z(1 + delta), |delta| <= u (no underflow)",
        "assumed by the source, not checked",
    ))
}

/// The probabilistic bound of Higham & Mary (2019, Theorem 3.1) for the
/// recursive dot product: `|s^ - s| <= gamma~_n(lambda) S` with probability at
/// least `Q(lambda, n) = 1 - n (1 - P(lambda))`, where `gamma~_n` and `P` are
/// those of their Theorem 2.4. `lambda` is chosen so that `Q` reaches
/// `target_probability`. The model (rounding errors independent, mean zero)
/// needs round to nearest and is otherwise not checkable on an input: it is
/// recorded as assumed, and the audit judges the claim statistically.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs`, or a
/// `target_probability` outside (0, 1) or so close to 1 that the per-product
/// probability it needs rounds to 1; [`VerifyError::HypothesisNotMet`] for a
/// mode other than round to nearest, or if the sum may overflow
/// ([`require_no_overflow_recursive_nearest`]).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::recursive_higham_mary;
/// use boundgate_verify::bounds::Kind;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let b = recursive_higham_mary(Format::FP16, RoundingMode::NearestEven, 10_000, 1.0, 0.99).unwrap();
/// // Q reaches the target up to the directed rounding of its evaluation.
/// assert!(matches!(b.kind, Kind::Probabilistic { probability } if probability >= 0.9899));
/// assert!(recursive_higham_mary(Format::FP16, RoundingMode::TowardZero, 10, 1.0, 0.99).is_err());
/// ```
pub fn recursive_higham_mary(
    format: Format,
    mode: RoundingMode,
    n: usize,
    sum_abs: f64,
    target_probability: f64,
) -> Result<Bound> {
    check_sum_abs(sum_abs)?;
    if !(target_probability > 0.0 && target_probability < 1.0) {
        return Err(VerifyError::invalid(
            "probability",
            target_probability,
            "must be in (0, 1)",
        ));
    }
    require(
        mode == RoundingMode::NearestEven,
        &HIGHAM_MARY_DOT,
        "rounding errors of mean zero (round to nearest)",
        || format!("mode {mode}"),
    )?;
    let n = n.max(1) as u64;
    let u = format.unit_roundoff(mode);
    // The model excludes overflow (and underflow): refuse inputs that could overflow.
    require_no_overflow_recursive_nearest(
        format,
        n,
        underflow_ops(format, n as usize),
        sum_abs,
        &HIGHAM_MARY_DOT,
    )?;
    // Per-product probability P such that 1 - n (1 - P) = target.
    let per_term = sub_up(1.0, div_down(sub_down(1.0, target_probability), u64_up(n)));
    if per_term >= 1.0 {
        // Named by the probability asked for: the per-term one is ours
        // (an error saying "probability = 1" for p = 1 - 2^-53 misled).
        return Err(VerifyError::invalid(
            "probability",
            target_probability,
            format!(
                "the per-product probability 1 - (1 - p)/{n} it needs rounds to 1 in binary64; take p further from 1"
            ),
        ));
    }
    let lambda = higham_mary_lambda(per_term, u)?;
    let theta = higham_mary_gamma(n, u, lambda)?;
    let p = match theta.kind {
        super::Kind::Probabilistic { probability } => probability,
        super::Kind::Deterministic => 1.0,
    };
    let q = sub_down(1.0, mul_up(u64_up(n), sub_up(1.0, p)));
    Ok(Bound::probabilistic(
        mul_up(theta.value, sum_abs),
        q,
        Quantity::AbsoluteError,
        HIGHAM_MARY_DOT,
        Rigor::Published,
    )
    .with_hypothesis(
        "lambda chosen for the target probability",
        format!("lambda = {lambda}, Q = {q}"),
    )
    .with_hypothesis(
        "delta_i independent with mean zero, |delta_i| <= u (Higham-Mary Model 2.1), no underflow",
        "assumed, judged statistically over trials",
    ))
}

/// Moves a gamma failure under the theorem that needed it.
fn retag(err: VerifyError, source: &Source) -> VerifyError {
    match err {
        VerifyError::HypothesisNotMet {
            hypothesis, detail, ..
        } => VerifyError::HypothesisNotMet {
            source_ref: source.to_string(),
            hypothesis,
            detail,
        },
        other => other,
    }
}

/// The rigorous bound for any summation order of depth `depth` in which at
/// most `underflow_ops` operations can have an absolute underflow error:
/// `|s^ - s| <= g_depth S + underflow_ops (1 + g_depth) eta_min` with
/// `g_depth = min(gamma_depth, (1 + u)^depth - 1)` (derivation in the module
/// documentation; no `depth u < 1` needed). Hypothesis checked: no overflow.
/// `sum_abs` must be an upper bound on `S`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs`;
/// [`VerifyError::HypothesisNotMet`] if an intermediate may overflow
/// ([`require_no_overflow`]).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::{rigorous, recursive_depth};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let n = 8;
/// let b = rigorous(Format::FP16, rne, recursive_depth(n), n as u64, 3.0).unwrap();
/// // gamma_8 * 3 plus 8 (1 + gamma_8) times half the smallest fp16 subnormal
/// assert!(b.value >= 8.0 * 2f64.powi(-11) * 3.0 + 8.0 * 2f64.powi(-25));
/// // 65400 (1 + 2^-11)^4 > 65504: an fp16 sum this large may overflow.
/// assert!(rigorous(Format::FP16, rne, 4, 4, 65400.0).is_err());
/// assert!(rigorous(Format::FP16, rne, 4, 4, 65000.0).is_ok());
/// ```
pub fn rigorous(
    format: Format,
    mode: RoundingMode,
    depth: u64,
    underflow_ops: u64,
    sum_abs: f64,
) -> Result<Bound> {
    check_sum_abs(sum_abs)?;
    let u = format.unit_roundoff(mode);
    let gamma = theta_bound(depth, u)?;
    let one_plus_gamma = add_up(1.0, gamma);
    let eta = format.underflow_abs_error(mode);
    let underflow = mul_up(mul_up(u64_up(underflow_ops), one_plus_gamma), eta);
    let value = add_up(mul_up(gamma, sum_abs), underflow);
    let largest_intermediate =
        require_no_overflow(format, mode, depth, underflow_ops, sum_abs, &RIGOROUS_DOT)?;
    Ok(Bound::deterministic(
        value,
        Quantity::AbsoluteError,
        RIGOROUS_DOT,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "|theta_depth| <= min(gamma_depth, (1 + u)^depth - 1)",
        format!(
            "depth {depth}, u = 2^{}: {gamma:e}{}",
            u.log2(),
            if mul_up(depth as f64, u) < 1.0 {
                ""
            } else {
                " (depth u >= 1: no gamma_depth)"
            }
        ),
    )
    .with_hypothesis(
        "no overflow",
        format!(
            "(1 + u)^depth (S + m eta_min) = {largest_intermediate:e} <= {:e}",
            format.max_finite()
        ),
    )
    .with_hypothesis(
        "fl(z) = z(1 + delta) + eta, |eta| <= eta_min, at most m operations with eta != 0",
        format!(
            "m = {underflow_ops}, eta_min = {eta:e} ({} subnormals)",
            if format.has_subnormals() {
                "with"
            } else {
                "without"
            }
        ),
    ))
}

/// The rigorous bound of a LEFT-TO-RIGHT dot product of `n` terms
/// (`s_k = fl(s_{k-1} + fl(x_k y_k))`, or FMAs with `fma`) computed in
/// `format` with rounding `mode`. In round to nearest with gradual underflow
/// it is Rump's summation bound on the rounded products,
/// `(n - 1) u (S + E) + E` with `E = u S + n eta_min`, or for an FMA chain
/// `n u S + eta_min ((1 + u)^n - 1) / u` (module documentation), valid for
/// every `n` and below the depth-`n` form; otherwise (a directed mode, or a
/// format that flushes subnormals, where a step can lose more than `|p_k|`)
/// it is [`rigorous`] with depth `n`.
/// Hypotheses checked: no overflow (for round to nearest by
/// [`require_no_overflow_recursive_nearest`], valid for every `n`).
///
/// # Errors
/// As [`rigorous`]; in round to nearest with subnormals, the overflow check is
/// [`require_no_overflow_recursive_nearest`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::{recursive_depth, recursive_rigorous, rigorous, underflow_ops};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// // fp16, n = 10 000, n u = 4.9: gamma_n does not exist, Rump's bound does:
/// // 9 999 u (S + E) + E with S = 1 is about 4.9 (S + E).
/// let b = recursive_rigorous(Format::FP16, rne, 10_000, false, 1.0).unwrap();
/// assert!(b.value > 4.88 && b.value < 4.9 * 1.01);
/// // The depth form with (1 + u)^n - 1 = 130 is far looser.
/// let depth = rigorous(Format::FP16, rne, recursive_depth(10_000), underflow_ops(Format::FP16, 10_000), 1.0).unwrap();
/// assert!(depth.value > 130.0);
/// // An FMA chain: n u S plus the underflow terms, 4.9 too.
/// let fma = recursive_rigorous(Format::FP16, rne, 10_000, true, 1.0).unwrap();
/// assert!(fma.value > 4.88 && fma.value < 4.9);
/// // A directed mode: the depth form.
/// let rtz = RoundingMode::TowardZero;
/// let depth_rtz = rigorous(Format::FP16, rtz, recursive_depth(10_000), underflow_ops(Format::FP16, 10_000), 1.0).unwrap();
/// assert_eq!(recursive_rigorous(Format::FP16, rtz, 10_000, false, 1.0).unwrap().value, depth_rtz.value);
/// ```
pub fn recursive_rigorous(
    format: Format,
    mode: RoundingMode,
    n: usize,
    fma: bool,
    sum_abs: f64,
) -> Result<Bound> {
    if mode != RoundingMode::NearestEven || !format.has_subnormals() {
        return rigorous(
            format,
            mode,
            recursive_depth(n),
            underflow_ops(format, n),
            sum_abs,
        );
    }
    check_sum_abs(sum_abs)?;
    let u = format.unit_roundoff(mode);
    let eta = format.underflow_abs_error(mode);
    let terms = n.max(1) as u64;
    let largest = require_no_overflow_recursive_nearest(
        format,
        terms,
        terms,
        sum_abs,
        &RIGOROUS_RECURSIVE_NEAREST,
    )?;
    let (value, steps, underflow) = if fma {
        // n u S + eta_min ((1 + u)^n - 1) / u.
        let underflow = mul_up(eta, div_up(product_growth(terms, u)?, u));
        (
            add_up(mul_up(mul_up(u64_up(terms), u), sum_abs), underflow),
            "FMA steps in round to nearest: |s^ - s| <= n u S + eta_min ((1 + u)^n - 1) / u (Rump 2012's induction), any n",
            "|e_k| <= |x_k y_k| always, <= u |s_{k-1} + x_k y_k| above the underflow threshold, <= eta_min below",
        )
    } else {
        // E >= sum |fl(x_i y_i) - x_i y_i|: u |x_i y_i| above the underflow
        // threshold, eta_min below it.
        let products = add_up(mul_up(u, sum_abs), mul_up(u64_up(terms), eta));
        let additions = mul_up(mul_up(u64_up(terms - 1), u), add_up(sum_abs, products));
        (
            add_up(additions, products),
            "recursive summation of the rounded products in round to nearest: |s^ - sum p_i| <= (n - 1) u sum |p_i| (Rump 2012), any n",
            "products rounded once: |p_i - x_i y_i| <= u |x_i y_i| + eta_min; sums in the subnormal range exact",
        )
    };
    Ok(Bound::deterministic(
        value,
        Quantity::AbsoluteError,
        RIGOROUS_RECURSIVE_NEAREST,
        Rigor::Rigorous,
    )
    .with_hypothesis(steps, format!("n = {n}, u = 2^{}", u.log2()))
    .with_hypothesis(
        underflow,
        format!("{format} with subnormals, eta_min = {eta:e}"),
    )
    .with_hypothesis(
        "no overflow",
        format!(
            "every partial sum <= {largest:e} <= {:e}",
            format.max_finite()
        ),
    ))
}

/// The coefficient of `S = sum |x_i y_i|` in [`recursive_rigorous`]'s bound
/// for round to nearest with subnormals, without its underflow terms (the
/// bound catalogue's form, like `gamma_n`): `(n - 1) u (1 + u) + u` for the
/// rounded products (Rump 2012's `(n - 1) u (S + E) + E` with `E = u S`),
/// `n u` for an FMA chain. Valid for every `n`; rounded up.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::{recursive_nearest_growth, recursive_rigorous};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let u = 2f64.powi(-11);
/// // fp16, n = 10 000: about 4.9, where gamma_n does not exist.
/// let g = recursive_nearest_growth(u, 10_000, false);
/// assert!(g > 4.88 && g < 4.89);
/// assert_eq!(recursive_nearest_growth(u, 10_000, true), 10_000.0 * u);
/// // The full bound adds only underflow terms.
/// let s = 1e4;
/// let full = recursive_rigorous(Format::FP16, RoundingMode::NearestEven, 10_000, false, s).unwrap();
/// assert!(full.value >= g * s && full.value <= g * s * (1.0 + 1e-6));
/// ```
pub fn recursive_nearest_growth(u: f64, n: u64, fma: bool) -> f64 {
    let n = n.max(1);
    if fma {
        mul_up(u64_up(n), u)
    } else {
        add_up(mul_up(mul_up(u64_up(n - 1), u), add_up(1.0, u)), u)
    }
}

/// Checks that no intermediate result of a summation of depth `depth` can
/// overflow, and returns the a-priori bound on them: every computed partial
/// result is `sum_i x_i y_i prod (1 + delta) + sum_k eta_k prod (1 + delta)`,
/// so at most `(1 + u)^depth (S + m eta_min)` in magnitude (valid for any depth,
/// also where `depth u >= 1`). If that does not exceed the largest finite value,
/// no exact intermediate does either, so no rounding overflows.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`], under `source`, if
/// `(1 + u)^depth (S + m eta_min)` is above the largest finite value.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{dot::require_no_overflow, Source};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let src = Source::new("example", "Lemma 1", None);
/// let rne = RoundingMode::NearestEven;
/// assert!(require_no_overflow(Format::FP16, rne, 10, 10, 1000.0, &src).is_ok());
/// assert!(require_no_overflow(Format::FP16, rne, 10, 10, 65400.0, &src).is_err());
/// ```
pub fn require_no_overflow(
    format: Format,
    mode: RoundingMode,
    depth: u64,
    underflow_ops: u64,
    sum_abs: f64,
    source: &Source,
) -> Result<f64> {
    let largest = depth_growth_bound(format, mode, depth, underflow_ops, sum_abs);
    require_at_most_max(
        format,
        largest,
        source,
        "no overflow: (1 + u)^depth (S + m eta_min) <= max_finite",
    )
}

/// `(1 + u)^depth (S + m eta_min)`, rounded up: every partial result of a
/// summation of depth `depth` is at most this in magnitude.
fn depth_growth_bound(
    format: Format,
    mode: RoundingMode,
    depth: u64,
    underflow_ops: u64,
    sum_abs: f64,
) -> f64 {
    let u = format.unit_roundoff(mode);
    let growth = exp_up(mul_up(u64_up(depth), ln1p_up(u)));
    let eta = format.underflow_abs_error(mode);
    mul_up(growth, add_up(sum_abs, mul_up(u64_up(underflow_ops), eta)))
}

/// `largest` if it is at most the format's largest finite value, else the
/// unmet hypothesis `statement`.
fn require_at_most_max(
    format: Format,
    largest: f64,
    source: &Source,
    statement: &str,
) -> Result<f64> {
    require(largest <= format.max_finite(), source, statement, || {
        format!("{largest:e} > {:e}", format.max_finite())
    })?;
    Ok(largest)
}

/// [`require_no_overflow`] for a LEFT-TO-RIGHT dot product (rounded products
/// then additions, or FMAs) rounded to NEAREST, where a sharper bound holds for
/// any `n`: every partial sum is at most `2 P`, `P = min(2 S, (1 + u) S + m eta_min)`
/// (returned as the bound when it is below `(1 + u)^n (S + m eta_min)`).
///
/// Why: rounding to nearest never moves a result farther than any number of
/// the format, and the previous partial sum `s_{k-1}` is one, so
/// `|fl(z_k) - z_k| <= |z_k - s_{k-1}| = |p_k|` for `z_k = s_{k-1} + p_k`
/// (or `x_k y_k + s_{k-1}` for an FMA): `|s_k| <= |s_{k-1}| + 2 |p_k|`, so every
/// partial sum and every exact intermediate is at most `2 sum |p_i|`. A
/// rounded product is within `|x y|` of `x y` (0 is a number of the format)
/// and within `u |x y| + eta_min` of it, so `sum |p_i| <= P`; in an FMA,
/// `p_k = x_k y_k` and `S <= P`. Flushing a tiny result to zero only lowers
/// its magnitude, and a result of magnitude at most the largest finite value
/// rounds to at most it, so by induction no rounding overflows when
/// `2 P <= max_finite`. (`(1 + u)^n` alone refused, e.g., an fp16 dot of
/// 10 000 terms of `U(0, 1)` data, `S` about 2 500, as possibly overflowing.)
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] if neither bound is at most the largest
/// finite value.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{dot::{require_no_overflow, require_no_overflow_recursive_nearest}, Source};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let src = Source::new("example", "Lemma 1", None);
/// let rne = RoundingMode::NearestEven;
/// // (1 + 2^-11)^10000 = 131.6: the depth bound refuses, the sharper one holds.
/// assert!(require_no_overflow(Format::FP16, rne, 10_000, 10_000, 2500.0, &src).is_err());
/// let largest = require_no_overflow_recursive_nearest(Format::FP16, 10_000, 10_000, 2500.0, &src).unwrap();
/// assert!(largest <= 10_001.0);
/// assert!(require_no_overflow_recursive_nearest(Format::FP16, 10_000, 10_000, 40_000.0, &src).is_err());
/// ```
pub fn require_no_overflow_recursive_nearest(
    format: Format,
    n: u64,
    underflow_ops: u64,
    sum_abs: f64,
    source: &Source,
) -> Result<f64> {
    let mode = RoundingMode::NearestEven;
    let u = format.unit_roundoff(mode);
    let eta = format.underflow_abs_error(mode);
    let depth_bound = depth_growth_bound(format, mode, n, underflow_ops, sum_abs);
    let products = mul_up(2.0, sum_abs).min(add_up(
        mul_up(add_up(1.0, u), sum_abs),
        mul_up(u64_up(underflow_ops), eta),
    ));
    require_at_most_max(
        format,
        depth_bound.min(mul_up(2.0, products)),
        source,
        "no overflow: min((1 + u)^n (S + m eta_min), 2 min(2 S, (1 + u) S + m eta_min)) <= max_finite (left to right, round to nearest)",
    )
}

/// The number of operations of a dot product of length `n` that can suffer an
/// absolute underflow error: the `n` products (or FMAs) when the format has
/// subnormals (sums landing in the subnormal range are then exact), else every
/// operation (`2n - 1` for rounded products and additions).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::underflow_ops;
/// use boundgate_verify::format::Format;
/// // With subnormals only the n products (or FMAs) can underflow ...
/// assert_eq!(underflow_ops(Format::FP32, 100), 100);
/// // ... without them the 99 additions can too.
/// assert_eq!(underflow_ops(Format::FP32.without_subnormals(), 100), 199);
/// assert_eq!(underflow_ops(Format::FP16.without_subnormals(), 0), 0);
/// ```
pub fn underflow_ops(format: Format, n: usize) -> u64 {
    if format.has_subnormals() {
        n as u64
    } else {
        (2 * n).saturating_sub(1) as u64
    }
}

/// An a priori upper bound on `sum_i |fl(x_i) fl(y_i) - x_i y_i|`, the
/// representation error of rounding both factors to `storage` (module docs).
/// It is the general formula and does not look at whether the inputs happen to
/// be values of `storage` already (then the true error is 0).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for `x` and `y` of different lengths;
/// [`VerifyError::HypothesisNotMet`] for an input whose rounding overflows
/// `storage` (to an infinity, a NaN, or saturated to its largest value).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::dot::representation_error_up;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let b = representation_error_up(Format::FP16, RoundingMode::NearestEven, &[0.1], &[0.3]).unwrap();
/// let x = Format::FP16.round(0.1, RoundingMode::NearestEven);
/// let y = Format::FP16.round(0.3, RoundingMode::NearestEven);
/// assert!((x * y - 0.1 * 0.3).abs() <= b);
/// ```
pub fn representation_error_up(
    storage: Format,
    mode: RoundingMode,
    x: &[f64],
    y: &[f64],
) -> Result<f64> {
    require_same_len("x and y", x.len(), y.len())?;
    // fl(v) = v (1 + a) + e holds only without overflow: an infinity, a NaN
    // (e4m3) or, in a saturating format, the largest finite value, whose
    // error the formula does not bound (an e4m3 1000 saturated to 448 gave a
    // bound of 3.5 for an error of 8.6 until 2026-11-25; found by review).
    if let Some((name, i, v)) = [('x', x), ('y', y)].iter().find_map(|(name, v)| {
        v.iter()
            .position(|&a| storage.overflows(a, mode))
            .map(|i| (*name, i, v[i]))
    }) {
        require(
            false,
            &RIGOROUS_DOT,
            "the inputs round to the storage format without overflow",
            || format!("{name}[{i}] = {v:e} overflows {}", storage.name()),
        )?;
    }
    let us = storage.unit_roundoff(mode);
    let eta = storage.underflow_abs_error(mode);
    let relative = add_up(mul_up(2.0, us), mul_up(us, us));
    let eta_factor = mul_up(eta, add_up(1.0, us));
    let eta_sq = mul_up(eta, eta);
    let mut total = 0.0;
    for (a, b) in x.iter().zip(y) {
        let (a, b) = (a.abs(), b.abs());
        let term = add_up(
            add_up(
                mul_up(relative, mul_up(a, b)),
                mul_up(eta_factor, add_up(a, b)),
            ),
            eta_sq,
        );
        total = add_up(total, term);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths() {
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(2), 1);
        assert_eq!(ceil_log2(3), 2);
        assert_eq!(ceil_log2(1024), 10);
        assert_eq!(ceil_log2(1025), 11);
    }

    #[test]
    fn published_fails_where_rigorous_holds_on_an_underflowing_product() {
        // fp16: 2^-13 * 2^-13 = 2^-26 rounds to 0 (below half the smallest subnormal 2^-24).
        let x = [2f64.powi(-13)];
        let rne = RoundingMode::NearestEven;
        let computed = Format::FP16.mul(x[0], x[0], rne);
        assert_eq!(computed, 0.0);
        let error = 2f64.powi(-26);
        let s = abs_dot_up(&x, &x).unwrap();
        let published = recursive_published(Format::FP16, rne, 1, s).unwrap();
        let rigorous = rigorous(Format::FP16, rne, 1, underflow_ops(Format::FP16, 1), s).unwrap();
        assert!(
            error > published.value,
            "the published model ignores underflow"
        );
        assert!(error <= rigorous.value);
    }

    #[test]
    fn a_target_too_close_to_one_is_named_as_given() {
        let rne = RoundingMode::NearestEven;
        let p = 1.0 - f64::EPSILON / 2.0; // 0.9999999999999999
        let e = recursive_higham_mary(Format::FP32, rne, 64, 1.0, p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("probability = 0.9999999999999999") && e.contains("rounds to 1"),
            "{e}"
        );
        // One element: the per-term probability is the target itself.
        let b = recursive_higham_mary(Format::FP32, rne, 1, 1.0, 1.0 - f64::EPSILON).unwrap();
        assert!(matches!(b.kind, crate::bounds::Kind::Probabilistic { .. }));
    }
}
