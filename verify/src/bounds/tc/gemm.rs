//! Theorems 3.7-3.10 (§3.3): matrix multiplication by Algorithm 1 on tensor
//! cores, and the rigorous form of Theorem 3.7 for Algorithm 1's own model.
//!
//! Algorithm 1 computes each output block `D_ij = fl_{u_FMA}(D_ij + A~_ik B~_kj)`
//! for `k = 1..q` over blocks of `b` inner terms (`n = q b`); eq. (7) models
//! one block step as left-to-right additions in `t_bar` followed by one
//! rounding to `t_FMA`. For one output element with `S = (|A||B|)_ij`:
//!
//! - Thm 3.7: `|D^ - D| <= zeta S`, `zeta = gamma_{n-1}^{u_bar} + gamma_q^{u_FMA}
//!   + gamma_{n-1}^{u_bar} gamma_q^{u_FMA}` (inputs already in `t_low`);
//! - Thm 3.8: `|D^ - D| <= (2 u_low + u^2 + zeta (1 + u_low)^2) S` (inputs cast
//!   to `t_low` first; the printed `u^2` is `u_low^2` by the derivation above it);
//! - Thm 3.9 / 3.10: the same with `gamma~` (probabilistic), holding with
//!   probability at least `1 - m t sum_{i=1}^q sum_{j=(i-1)b+1}^{ib}
//!   (2 - p_b(lambda, u_bar, c1) - p_b(lambda, u_FMA, c2))`,
//!   `c1 = b - ((j-1) mod b) + b (q - max(2, i) + 1)`, `c2 = q - i + 1`.
//!   Their printed statements keep `gamma` (no tilde); the derivation uses
//!   `gamma~` ([`ThmConstant`] chooses).
//!
//! When `n` is not a multiple of `b`, the inner dimension is taken as padded
//! with zeros to `q b`, `q = ceil(n / b)`: a zero product adds no rounding
//! error (`fl(s + 0) = s`), so the bound for `q b` covers `n` ([`GemmShape`]).

use super::super::directed::{
    add_up, div_up, exp_up, ln1p_up, mul_down, mul_up, sqrt_down, sub_down, sub_up,
};
use super::super::gamma::{gamma_value, u64_down, u64_up};
use super::super::probabilistic::uniform_log_mean_abs;
use super::super::{Bound, Kind, Quantity, Rigor, Source, require};
use super::{GammaTilde, PbTable, Roundoffs, source};
use crate::error::{Result, VerifyError};
use crate::format::{Format, RoundingMode};
use serde::Serialize;

const NO_UNDERFLOW: &str =
    "fl(z) = z(1 + delta), |delta| <= u (eq. (3): no underflow, no overflow)";
const ASSUMED: &str = "assumed by the source, not checked";
const ROUND_EVERY_ADDITION: &str =
    "eq. (7): a rounding in t_bar after every addition, one in t_FMA per block";

/// The shape parameters of Theorems 3.7-3.10 for `D = A B`, `A` m x n, `B` n x t.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::GemmShape;
/// let s = GemmShape::new(8, 100, 16).unwrap();
/// assert_eq!((s.q(), s.padded_inner()), (7, 112));
/// assert!(GemmShape::new(1, 0, 16).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GemmShape {
    /// Number of output elements the probability is taken over (`m t`; 1 for
    /// a per-element claim).
    pub outputs: u64,
    /// Inner dimension `n`.
    pub inner: u64,
    /// Block size `b` of the inner dimension.
    pub block: u64,
}

impl GemmShape {
    /// Validates: `inner >= 1`, `block >= 1`, `outputs >= 1`.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] naming the offending size.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::GemmShape;
    /// let s = GemmShape::new(64, 1024, 4).unwrap();
    /// assert_eq!((s.outputs, s.inner, s.block), (64, 1024, 4));
    /// for (outputs, inner, block) in [(0, 1, 1), (1, 0, 1), (1, 1, 0)] {
    ///     assert!(GemmShape::new(outputs, inner, block).is_err());
    /// }
    /// ```
    pub fn new(outputs: u64, inner: u64, block: u64) -> Result<GemmShape> {
        for (name, v) in [("outputs", outputs), ("inner", inner), ("block", block)] {
            if v == 0 {
                return Err(VerifyError::invalid(name, v, "must be at least 1"));
            }
        }
        Ok(GemmShape {
            outputs,
            inner,
            block,
        })
    }

    /// `q = ceil(n / b)`, the number of block steps.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::GemmShape;
    /// assert_eq!(GemmShape::new(1, 96, 16).unwrap().q(), 6);
    /// assert_eq!(GemmShape::new(1, 97, 16).unwrap().q(), 7); // ceil(n / b)
    /// assert_eq!(GemmShape::new(1, 3, 16).unwrap().q(), 1);
    /// ```
    pub fn q(&self) -> u64 {
        self.inner.div_ceil(self.block)
    }

    /// `q b`, the inner dimension padded to a multiple of the block.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::GemmShape;
    /// assert_eq!(GemmShape::new(1, 96, 16).unwrap().padded_inner(), 96);
    /// assert_eq!(GemmShape::new(1, 97, 16).unwrap().padded_inner(), 112); // q b = 7 x 16
    /// assert_eq!(GemmShape::new(1, 3, 4).unwrap().padded_inner(), 4);
    /// ```
    pub fn padded_inner(&self) -> u64 {
        self.q() * self.block
    }

    fn padding_note(&self) -> (String, String) {
        (
            "n = q b".into(),
            if self.inner == self.padded_inner() {
                format!("n = {} = {} x {}", self.inner, self.q(), self.block)
            } else {
                format!(
                    "n = {} padded with zeros to q b = {} x {} (zero products add no rounding error)",
                    self.inner,
                    self.q(),
                    self.block
                )
            },
        )
    }
}

/// Re-labels a gamma failure with the theorem that needed it.
fn retag(err: VerifyError, src: &Source) -> VerifyError {
    match err {
        VerifyError::HypothesisNotMet {
            hypothesis, detail, ..
        } => VerifyError::HypothesisNotMet {
            source_ref: src.to_string(),
            hypothesis,
            detail,
        },
        other => other,
    }
}

fn check_products_exact(r: &Roundoffs, src: &Source) -> Result<()> {
    require(
        r.u_tilde <= r.u_low * r.u_low,
        src,
        "the products are exact in t~ (u~ <= u_low^2)",
        || format!("u~ = {:e}, u_low = {:e}", r.u_tilde, r.u_low),
    )
}

/// `g1 + g2 + g1 g2`, rounded up.
fn combine(g1: f64, g2: f64) -> f64 {
    add_up(add_up(g1, g2), mul_up(g1, g2))
}

/// Theorem 3.7's constant `zeta = gamma_{n-1}^{u_bar} + gamma_q^{u_FMA} +
/// gamma_{n-1}^{u_bar} gamma_q^{u_FMA}` (with `n = q b`), rounded up.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] if `(n - 1) u_bar >= 1` or `q u_FMA >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_7_constant, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let zeta = thm_3_7_constant(&r, &GemmShape::new(1, 1 << 15, 16).unwrap()).unwrap();
/// let u = 2f64.powi(-24);
/// assert!(zeta > ((1u64 << 15) - 1 + 2048) as f64 * u);
/// ```
pub fn thm_3_7_constant(r: &Roundoffs, shape: &GemmShape) -> Result<f64> {
    let src = source("Theorem 3.7", None);
    let n = shape.padded_inner();
    let g1 = gamma_value(n - 1, r.u_bar).map_err(|e| retag(e, &src))?;
    let g2 = gamma_value(shape.q(), r.u_fma).map_err(|e| retag(e, &src))?;
    Ok(combine(g1, g2))
}

fn check_abs(name: &str, v: f64) -> Result<()> {
    if v.is_nan() || v < 0.0 {
        return Err(VerifyError::invalid(
            name,
            v,
            "must be a non-negative upper bound on (|A||B|)_ij",
        ));
    }
    Ok(())
}

/// Theorem 3.7 (tensor cores without representation error), as printed:
/// `|D^ - D| <= zeta (|A||B|)_ij` for one element, `abs_ab` an upper bound on
/// `(|A||B|)_ij` of the values in `t_low` (printed as the componentwise
/// relative bound `zeta |A||B| / |AB|`).
///
/// # Errors
/// As [`thm_3_7_constant`]; [`VerifyError::HypothesisNotMet`] if the products
/// are not exact in `t~`; [`VerifyError::InvalidParameter`] for a negative `abs_ab`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_7, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp16();
/// // fp16 accumulation: (n - 1) u16 >= 1 for n = 4096, so no bound.
/// assert!(thm_3_7(&r, &GemmShape::new(1, 4096, 4).unwrap(), 1.0).is_err());
/// assert!(thm_3_7(&r, &GemmShape::new(1, 64, 4).unwrap(), 1.0).is_ok());
/// ```
pub fn thm_3_7(r: &Roundoffs, shape: &GemmShape, abs_ab: f64) -> Result<Bound> {
    check_abs("abs_ab", abs_ab)?;
    let src = source("Theorem 3.7", None);
    check_products_exact(r, &src)?;
    let zeta = thm_3_7_constant(r, shape)?;
    let (pad, pad_detail) = shape.padding_note();
    Ok(Bound::deterministic(
        mul_up(zeta, abs_ab),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    )
    .with_hypothesis(pad, pad_detail)
    .with_hypothesis("(n - 1) u_bar < 1, q u_FMA < 1", format!("zeta = {zeta:e}"))
    .with_hypothesis(ROUND_EVERY_ADDITION, ASSUMED)
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Theorem 3.8's constant `2 u_low + u_low^2 + zeta (1 + u_low)^2`, rounded up
/// (`zeta` of [`thm_3_7_constant`]; the printed `u^2` is `u_low^2`).
///
/// # Errors
/// As [`thm_3_7_constant`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::directed::{add_up, mul_up};
/// use boundgate_verify::bounds::tc::{thm_3_7_constant, thm_3_8, thm_3_8_constant, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(1, 1024, 4).unwrap();
/// let zeta = thm_3_7_constant(&r, &s).unwrap();
/// // 2 u_low + u_low^2 + zeta (1 + u_low)^2, u_low = 2^-11 (2 u_low + u_low^2 is exact).
/// let u = r.u_low;
/// let one_u = 1.0 + u;
/// let expected = add_up(2.0 * u + u * u, mul_up(zeta, mul_up(one_u, one_u)));
/// assert_eq!(thm_3_8_constant(&r, &s).unwrap(), expected);
/// // Theorem 3.8's bound is that constant times (|A||B|)_ij.
/// assert_eq!(thm_3_8(&r, &s, 2f64.powi(-53), 1.0).unwrap().value, expected);
/// // fp16 accumulation with n = 4096: (n - 1) u16 >= 1, no constant.
/// assert!(thm_3_8_constant(&Roundoffs::table2_fp16(), &GemmShape::new(1, 4096, 4).unwrap()).is_err());
/// ```
pub fn thm_3_8_constant(r: &Roundoffs, shape: &GemmShape) -> Result<f64> {
    let zeta = thm_3_7_constant(r, shape).map_err(|e| retag(e, &source("Theorem 3.8", None)))?;
    Ok(representation_constant(r.u_low, zeta))
}

/// `2 u + u^2 + zeta (1 + u)^2`, rounded up.
fn representation_constant(u_low: f64, zeta: f64) -> f64 {
    let one_plus = add_up(1.0, u_low);
    add_up(
        add_up(2.0 * u_low, mul_up(u_low, u_low)),
        mul_up(zeta, mul_up(one_plus, one_plus)),
    )
}

fn check_given(r: &Roundoffs, u_given: f64, src: &Source) -> Result<()> {
    if !(u_given.is_finite() && u_given > 0.0 && u_given < 1.0) {
        return Err(VerifyError::invalid(
            "u_given",
            u_given,
            "a unit roundoff must satisfy 0 < u < 1",
        ));
    }
    require(u_given < r.u_low, src, "u' < u_low", || {
        format!("u' = {u_given:e}, u_low = {:e}", r.u_low)
    })
}

/// Theorem 3.8 (tensor cores with representation error), as printed:
/// `|D^ - D| <= (2 u_low + u_low^2 + zeta (1 + u_low)^2) (|A||B|)_ij`, `A, B`
/// given with unit roundoff `u' < u_low` and cast to `t_low` (`abs_ab` bounds
/// `(|A||B|)_ij` of the values as given).
///
/// # Errors
/// As [`thm_3_7`], plus [`VerifyError::HypothesisNotMet`] unless `u_given < u_low`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_8, thm_3_7, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(1, 1024, 16).unwrap();
/// let with_cast = thm_3_8(&r, &s, 2f64.powi(-53), 1.0).unwrap();
/// assert!(with_cast.value > thm_3_7(&r, &s, 1.0).unwrap().value + 2.0 * r.u_low);
/// ```
pub fn thm_3_8(r: &Roundoffs, shape: &GemmShape, u_given: f64, abs_ab: f64) -> Result<Bound> {
    check_abs("abs_ab", abs_ab)?;
    let src = source("Theorem 3.8", None);
    check_given(r, u_given, &src)?;
    check_products_exact(r, &src)?;
    let constant = thm_3_8_constant(r, shape)?;
    let (pad, pad_detail) = shape.padding_note();
    Ok(Bound::deterministic(
        mul_up(constant, abs_ab),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    )
    .with_hypothesis(pad, pad_detail)
    .with_hypothesis("u' < u_low", format!("u' = {u_given:e}"))
    .with_hypothesis(
        "|Delta A| <= u_low |A|, |Delta B| <= u_low |B| (the cast, no underflow)",
        ASSUMED,
    )
    .with_hypothesis(ROUND_EVERY_ADDITION, ASSUMED)
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Which constant Theorems 3.9 and 3.10 use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThmConstant {
    /// `gamma` as the statements print it (then the bound is Theorem 3.7's and
    /// holds deterministically; the probability adds nothing).
    PrintedGamma,
    /// `gamma~` as the derivation uses it, with a choice of pairing.
    Tilde(GammaTilde),
}

impl ThmConstant {
    fn gamma(self, n: u64, u: f64, lambda: f64, src: &Source) -> Result<f64> {
        match self {
            ThmConstant::PrintedGamma => gamma_value(n, u).map_err(|e| retag(e, src)),
            ThmConstant::Tilde(kind) => kind.value(n, u, lambda),
        }
    }

    fn rigor(self) -> Rigor {
        match self {
            ThmConstant::PrintedGamma => Rigor::Published,
            ThmConstant::Tilde(kind) => kind.rigor(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            ThmConstant::PrintedGamma => "gamma as printed",
            ThmConstant::Tilde(kind) => kind.name(),
        }
    }

    /// The probability the bound holds with at least: [`paired_probability`]
    /// for the paired `gamma~` (the one with a proof), the printed expression
    /// [`thm_3_9_probability`] for the others (which are published forms).
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for a negative or non-finite `lambda`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::{thm_3_9_probability, GammaTilde, GemmShape, Roundoffs, ThmConstant};
    /// let r = Roundoffs::table2_fp32();
    /// let s = GemmShape::new(1, 256, 16).unwrap();
    /// let printed = ThmConstant::Tilde(GammaTilde::AuthorsCentred).probability(&r, &s, 4.0).unwrap();
    /// assert_eq!(printed, thm_3_9_probability(&r, &s, 4.0).unwrap());
    /// let paired = ThmConstant::Tilde(GammaTilde::Paired).probability(&r, &s, 4.0).unwrap();
    /// assert!(paired > 0.0 && paired < 1.0);
    /// ```
    pub fn probability(self, r: &Roundoffs, shape: &GemmShape, lambda: f64) -> Result<f64> {
        match self {
            ThmConstant::Tilde(GammaTilde::Paired) => paired_probability(r, shape, lambda),
            _ => thm_3_9_probability(r, shape, lambda),
        }
    }
}

/// The probability of Theorems 3.9 and 3.10, exactly as printed, rounded down:
/// `1 - m t sum_{i=1}^q sum_{j=(i-1)b+1}^{ib} (2 - p_b(lambda, u_bar, c1) - p_b(lambda, u_FMA, c2))`
/// with `c1 = b - ((j-1) mod b) + b (q - max(2, i) + 1)` and `c2 = q - i + 1`
/// (`m t = shape.outputs`). It may be negative: the bound is then vacuous.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or non-finite `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_9_probability, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let one = thm_3_9_probability(&r, &GemmShape::new(1, 64, 16).unwrap(), 6.0).unwrap();
/// let many = thm_3_9_probability(&r, &GemmShape::new(1 << 30, 64, 16).unwrap(), 6.0).unwrap();
/// // One output: 0.9844...; a union over 2^30 outputs: negative, i.e. vacuous.
/// assert!(one > 0.98 && many < 0.0);
/// ```
pub fn thm_3_9_probability(r: &Roundoffs, shape: &GemmShape, lambda: f64) -> Result<f64> {
    let mut bar = PbTable::new(r.u_bar, lambda)?;
    let mut fma = PbTable::new(r.u_fma, lambda)?;
    Ok(probability_with(&mut bar, &mut fma, shape))
}

fn probability_with(bar: &mut PbTable, fma: &mut PbTable, shape: &GemmShape) -> f64 {
    let (b, q) = (shape.block, shape.q());
    let mut failure = 0.0f64;
    for i in 1..=q {
        let c2 = q - i + 1;
        // All b terms of block i share c2.
        let f2 = sub_up(1.0, fma.pb(c2));
        failure = add_up(failure, mul_up(u64_up(b), f2));
        for r in 0..b {
            // (j - 1) mod b = r for the r-th term of block i.
            let c1 = b - r + b * (q + 1 - i.max(2));
            failure = add_up(failure, sub_up(1.0, bar.pb(c1)));
        }
    }
    sub_down(1.0, mul_up(u64_up(shape.outputs), failure))
}

/// The probability, proven under Lemma 2.2's model, that Theorems 3.9/3.10
/// hold with the paired constant `gamma~_{n-1}^{u_bar}(lambda)`,
/// `gamma~_q^{u_FMA}(lambda)` (`probabilistic::vibea_gamma`), rounded down.
/// It may be negative: the bound is then vacuous.
///
/// The bound needs, for every term `j`, `|theta_j^{u_bar}| <= gamma~_{n-1}(lambda)`
/// and `|theta_j^{u_FMA}| <= gamma~_q(lambda)`. The printed expression
/// ([`thm_3_9_probability`]) takes the union bound over these `2n` events
/// and credits a term with `c` roundings with `p_b(lambda, u, c)`, the
/// probability of `|theta_c| <= gamma~_c(lambda)`, a different event: for the
/// first term of the first block its `c1` is `n`, and `p_b(lambda, u, n)` is
/// more than the proof gives for `gamma~_{n-1}` (`p_b` grows with `n` at fixed
/// `lambda`), so that credit is unproven; every other term is credited far
/// less than its event has (docs/findings/mpfma.md, F6).
///
/// Here the structure of Algorithm 1 ([`Alg1Arithmetic`], eq. (7)) is used
/// instead. Its additions in `t_bar` form ONE sequence (block step `i`
/// starts from the previous block's result and adds its `b` products left to
/// right), and term `j` passes through every addition from its own on, so its
/// `theta_j^{u_bar}` is a SUFFIX product of that sequence's factors
/// `(1 + delta)`; likewise `theta_j^{u_FMA}` is the suffix of the `q` block
/// roundings from its block on. (The first addition `0 + x_1 y_1` is exact
/// when the products are numbers of `t_bar`, `u~ >= u_bar`: the sequence then
/// has `n - 1` roundings, else `n`.) The centred suffix log-sums are the
/// partial sums of a martingale (the sequence read backwards), and Bernstein's
/// inequality holds for their MAXIMUM with the variance of the whole
/// sequence: `exp(theta S_k)` is a submartingale, so Doob's maximal
/// inequality bounds `P(max_k S_k >= a)` by the same `E exp(theta S_K) / exp(theta a)`
/// that Bernstein's proof bounds for `S_K` alone (Freedman 1975, Ann. Probab.
/// 3(1), Theorem 1.6, is the general form, in its sharp Bennett form: its
/// simplified `exp(-a^2 / (2 (a + b)))` has `M t`, not `M t / 3`). So ONE event per sequence covers
/// every term: with `K` roundings and the smallest deviation any term may
/// use ([`paired_deviation`] with `k = K`), the failure is
/// `1 - P(K, tau)` ([`PbTable::pb_deviation`]) for `t_bar` plus the same for the
/// `q` roundings of `t_FMA`, times `m t` outputs. Cheaper than the printed
/// sum by about the number of terms; at fp32 accumulation the `lambda` a
/// probability of 0.99 needs falls from 6.29 to 2.03 for one element at
/// `n = 2^15` (F6).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or non-finite `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{paired_probability, thm_3_9_probability, GemmShape, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(1, 4096, 16).unwrap();
/// // At lambda = 3 the printed expression says nothing; the proven one says more than 0.999.
/// assert!(thm_3_9_probability(&r, &s, 3.0).unwrap() < 0.0);
/// assert!(paired_probability(&r, &s, 3.0).unwrap() > 0.999);
/// // n = 1: the one addition 0 + x y is exact; only the t_FMA rounding can fail.
/// let one = GemmShape::new(1, 1, 1).unwrap();
/// let fma_only = paired_probability(&r, &one, 3.0).unwrap();
/// assert!(fma_only < 1.0 && fma_only >= thm_3_9_probability(&r, &one, 3.0).unwrap());
/// ```
pub fn paired_probability(r: &Roundoffs, shape: &GemmShape, lambda: f64) -> Result<f64> {
    let bar = PbTable::new(r.u_bar, lambda)?;
    let fma = PbTable::new(r.u_fma, lambda)?;
    let n = shape.padded_inner();
    let q = shape.q();
    // Roundings in t_bar along the one sequence: n additions, the first exact
    // when the products are numbers of t_bar.
    let bar_roundings = n - u64::from(r.u_tilde >= r.u_bar);
    let drift_over_u = div_up(uniform_log_mean_abs(r.u_bar)?, r.u_bar);
    let tau_bar = paired_deviation(lambda, n - 1, bar_roundings, drift_over_u);
    let tau_fma = paired_deviation(lambda, q, q, 0.0);
    let failure_of = |p: f64| sub_up(1.0, p).min(1.0);
    let failure = add_up(
        failure_of(bar.pb_deviation(bar_roundings, tau_bar)),
        failure_of(fma.pb_deviation(q, tau_fma)),
    );
    // The count rounded up: `as f64` rounds to nearest, so above 2^53
    // outputs the union bound could come out low (review, 2026-11-29).
    Ok(sub_down(1.0, mul_up(u64_up(shape.outputs), failure)))
}

/// The deviation `tau` (over `u`) of the CENTRED log-sum of `k` rounding
/// errors, `|sum rho_i (log(1 + delta_i) - mu)| < tau u`, under which
/// `|theta_k| <= gamma~_m(lambda) = exp(lambda sqrt(m) u + m |mu|) - 1`
/// (`probabilistic::vibea_gamma`), rounded down; `drift_over_u` is an upper
/// bound of `|mu| / u`. The uncentred sum is within `k |mu|` of the centred one, so
/// `tau = lambda sqrt(m) + (m - k) |mu| / u` suffices; for `k <= m` the
/// extra `(m - k) |mu|` is dropped (a smaller `tau` is still sufficient), for
/// `k > m` it is paid from the deviation. This is the step from Bernstein's
/// event to the bound in [`paired_probability`] (`m = n - 1` for `t_bar`,
/// `m = q` for `t_FMA`, `k` the longest suffix: the deviation is smallest
/// there, so it serves every term); tested at the boundary in
/// `verify/tests/tc_bounds.rs`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::paired_deviation;
/// assert_eq!(paired_deviation(2.0, 16, 9, 0.01), 8.0);
/// // One rounding beyond gamma~_16 pays its drift, rounded down.
/// let paid = paired_deviation(2.0, 16, 17, 0.01);
/// assert!(paid <= 8.0 - 0.01 && paid > 7.98);
/// ```
pub fn paired_deviation(lambda: f64, m: u64, k: u64, drift_over_u: f64) -> f64 {
    let tau = mul_down(lambda, sqrt_down(u64_down(m)));
    if k <= m {
        tau
    } else {
        sub_down(tau, mul_up(u64_up(k - m), drift_over_u))
    }
}

fn tilde_bound(
    r: &Roundoffs,
    shape: &GemmShape,
    lambda: f64,
    constant: ThmConstant,
    src: &Source,
) -> Result<(f64, f64)> {
    let n = shape.padded_inner();
    let g1 = constant.gamma(n - 1, r.u_bar, lambda, src)?;
    let g2 = constant.gamma(shape.q(), r.u_fma, lambda, src)?;
    let probability = constant.probability(r, shape, lambda)?;
    Ok((combine(g1, g2), probability))
}

fn probabilistic_bound(
    value: f64,
    probability: f64,
    src: Source,
    constant: ThmConstant,
    shape: &GemmShape,
    lambda: f64,
) -> Bound {
    let (pad, pad_detail) = shape.padding_note();
    let vacuous = Kind::Probabilistic { probability }.is_vacuous();
    Bound::probabilistic(
        value,
        probability,
        Quantity::AbsoluteError,
        src,
        constant.rigor(),
    )
    .with_hypothesis(pad, pad_detail)
    .with_hypothesis("constant", constant.name())
    .with_hypothesis(
        "lambda, union over m t outputs",
        format!(
            "lambda = {lambda}, m t = {}, probability {probability:.6}{}",
            shape.outputs,
            if vacuous { " (VACUOUS: <= 0)" } else { "" }
        ),
    )
    .with_hypothesis(
        "rounding errors iid uniform on [-u, u] (Lemma 2.2)",
        "assumed; judged statistically over trials",
    )
    .with_hypothesis(ROUND_EVERY_ADDITION, ASSUMED)
    .with_hypothesis(NO_UNDERFLOW, ASSUMED)
}

/// Theorem 3.9 (tensor cores without representation error, VIBEA):
/// `|D^ - D| <= zeta~ (|A||B|)_ij` with `zeta~ = g_{n-1}^{u_bar} + g_q^{u_FMA} +
/// g_{n-1}^{u_bar} g_q^{u_FMA}` (`g` chosen by `constant`) with probability at
/// least [`thm_3_9_probability`]. A probability <= 0 makes the bound vacuous
/// ([`Kind::is_vacuous`](crate::bounds::Kind::is_vacuous)), and the hypotheses say so.
///
/// # Errors
/// As [`thm_3_7`] (with the printed `gamma`) or a bad `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_7, thm_3_9, GammaTilde, GemmShape, Roundoffs, ThmConstant};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(1, 1 << 15, 16).unwrap();
/// let det = thm_3_7(&r, &s, 1.0).unwrap();
/// let prob = thm_3_9(&r, &s, 6.0, ThmConstant::Tilde(GammaTilde::Paired), 1.0).unwrap();
/// assert!(prob.value < det.value / 10.0); // sqrt(n) against n
/// ```
pub fn thm_3_9(
    r: &Roundoffs,
    shape: &GemmShape,
    lambda: f64,
    constant: ThmConstant,
    abs_ab: f64,
) -> Result<Bound> {
    check_abs("abs_ab", abs_ab)?;
    let src = source("Theorem 3.9", None);
    check_products_exact(r, &src)?;
    let (zeta, probability) = tilde_bound(r, shape, lambda, constant, &src)?;
    Ok(probabilistic_bound(
        mul_up(zeta, abs_ab),
        probability,
        src,
        constant,
        shape,
        lambda,
    ))
}

/// Theorem 3.10 (tensor cores with representation error, VIBEA):
/// `|D^ - D| <= (2 u_low + u_low^2 + zeta~ (1 + u_low)^2) (|A||B|)_ij` with the
/// probability of [`thm_3_9_probability`] (`abs_ab` bounds `(|A||B|)_ij` of
/// the values as given).
///
/// # Errors
/// As [`thm_3_9`], plus [`VerifyError::HypothesisNotMet`] unless `u_given < u_low`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_10, GammaTilde, GemmShape, Roundoffs, ThmConstant};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(1, 256, 16).unwrap();
/// let b = thm_3_10(&r, &s, 2f64.powi(-53), 5.0, ThmConstant::Tilde(GammaTilde::Paired), 1.0).unwrap();
/// assert!(b.value > 2.0 * r.u_low);
/// ```
pub fn thm_3_10(
    r: &Roundoffs,
    shape: &GemmShape,
    u_given: f64,
    lambda: f64,
    constant: ThmConstant,
    abs_ab: f64,
) -> Result<Bound> {
    check_abs("abs_ab", abs_ab)?;
    let src = source("Theorem 3.10", None);
    check_given(r, u_given, &src)?;
    check_products_exact(r, &src)?;
    let (zeta, probability) = tilde_bound(r, shape, lambda, constant, &src)?;
    let value = mul_up(representation_constant(r.u_low, zeta), abs_ab);
    Ok(
        probabilistic_bound(value, probability, src, constant, shape, lambda)
            .with_hypothesis("u' < u_low", format!("u' = {u_given:e}")),
    )
}

/// The smallest `lambda` (to a relative 1e-9, rounded up) at which the
/// probability of Theorems 3.9/3.10 with `constant`
/// ([`ThmConstant::probability`]) reaches `target`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `target` is not in (0, 1) or no
/// `lambda <= 1e6` reaches it.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{thm_3_9_probability, vibea_lambda, GammaTilde, GemmShape, Roundoffs, ThmConstant};
/// let r = Roundoffs::table2_fp32();
/// let s = GemmShape::new(64, 256, 16).unwrap();
/// let printed = ThmConstant::Tilde(GammaTilde::AuthorsCentred);
/// let lambda = vibea_lambda(&r, &s, 0.99, printed).unwrap();
/// assert!(thm_3_9_probability(&r, &s, lambda).unwrap() >= 0.99);
/// assert!(thm_3_9_probability(&r, &s, lambda * 0.99).unwrap() < 0.99);
/// ```
pub fn vibea_lambda(
    r: &Roundoffs,
    shape: &GemmShape,
    target: f64,
    constant: ThmConstant,
) -> Result<f64> {
    if !(target > 0.0 && target < 1.0) {
        return Err(VerifyError::invalid(
            "probability",
            target,
            "must be in (0, 1)",
        ));
    }
    let reaches =
        |lambda: f64| -> Result<bool> { Ok(constant.probability(r, shape, lambda)? >= target) };
    let mut hi = 1.0;
    while !reaches(hi)? {
        hi *= 2.0;
        if hi > 1e6 {
            return Err(VerifyError::invalid(
                "probability",
                target,
                "not reached by any lambda <= 1e6",
            ));
        }
    }
    let mut lo = 0.0;
    while hi - lo > 1e-9 * hi {
        let mid = 0.5 * (lo + hi);
        if reaches(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// The arithmetic of Algorithm 1 as the paper models it (eq. (7)): exact
/// products, additions rounded in `bar` (mode `bar_mode`), each block's result
/// rounded to `fma` (mode `fma_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alg1Arithmetic {
    /// The format `t~` the products are exact in (the caller checks the
    /// values: `products_exact`); whether its numbers are numbers of `t_bar`
    /// decides how many additions round and whether subnormal sums are exact.
    pub tilde: Format,
    /// Accumulation format `t_bar`.
    pub bar: Format,
    /// Its rounding mode.
    pub bar_mode: RoundingMode,
    /// Output format `t_FMA` of every block step.
    pub fma: Format,
    /// Its rounding mode.
    pub fma_mode: RoundingMode,
}

const ALG1_RIGOROUS: Source = Source::new(
    "boundgate (Bhola and Duraisamy, Theorem 3.7, with the underflow model of Higham 2002 eq. (2.8) and a checked no-overflow hypothesis)",
    "rigorous Algorithm 1 bound",
    None,
);

/// The rigorous form of Theorem 3.7 for Algorithm 1's own arithmetic
/// ([`Alg1Arithmetic`], a rounding after every addition), for one element
/// with `sum_abs >= (|A~||B~|)_ij`:
/// `|D^ - D| <= zeta S + (q eta_FMA [t_FMA != t_bar] + n eta_bar [an addition
/// can underflow inexactly]) (1 + zeta)`, `zeta = (1 + gamma_r)(1 + gamma_q) - 1`
/// with `r = n - 1` when the products are numbers of `t_bar` (Theorem 3.7's
/// count: the first addition `0 + p` is exact) and `r = n` otherwise (then it
/// rounds `p`: fp16 accumulation of fp32 products, Table 2). Why the
/// underflow terms: an addition whose exact result is subnormal is exact
/// (Higham 2002, §2.1) when `t_bar` has subnormals and both addends are
/// multiples of its smallest subnormal, i.e. the quanta of `t~` (products)
/// and `t_FMA` (block results) are no finer than `t_bar`'s; otherwise each
/// of the `n` additions can add an absolute `eta_bar`. Until 2026-11-25 the
/// second condition was missing: fp16 products `2^-13 x 2^-13 = 2^-26`
/// accumulated in fp16 vanish, an error of `2^-26` against a bound of
/// `1.2e-10` (found by review). The conversion of each block result to
/// `t_FMA` adds at most `eta_FMA`, and each such error is then multiplied by
/// at most the factors a product term sees, `1 + zeta`. Hypotheses checked: products
/// exact (`products_exact`, the caller's check on the values), `n u < 1`, and
/// no overflow: every exact intermediate is at most
/// `(1 + u_bar)^n (1 + u_FMA)^q (S + underflow)`, required to be at most the
/// largest finite value of both formats.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] for a failed hypothesis;
/// [`VerifyError::InvalidParameter`] for a negative `sum_abs`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{alg1_rigorous, thm_3_7, Alg1Arithmetic, GemmShape, Roundoffs};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let arith = Alg1Arithmetic { tilde: Format::FP32, bar: Format::FP32, bar_mode: rne, fma: Format::FP16, fma_mode: rne };
/// let s = GemmShape::new(1, 64, 8).unwrap();
/// let b = alg1_rigorous(&arith, &s, true, 10.0).unwrap();
/// assert!(b.value > 8.0 * 2f64.powi(-25)); // includes q = 8 fp16 underflow terms
/// assert!(alg1_rigorous(&arith, &s, true, 70000.0).is_err()); // may overflow fp16
/// ```
pub fn alg1_rigorous(
    arith: &Alg1Arithmetic,
    shape: &GemmShape,
    products_exact: bool,
    sum_abs: f64,
) -> Result<Bound> {
    check_abs("sum_abs", sum_abs)?;
    require(
        products_exact,
        &ALG1_RIGOROUS,
        "every product is exact in t~",
        || "a product of stored inputs is not representable in t~".into(),
    )?;
    let u_bar = arith.bar.unit_roundoff(arith.bar_mode);
    let u_fma = arith.fma.unit_roundoff(arith.fma_mode);
    let n = shape.padded_inner();
    let q = shape.q();
    // Exponent of a format's smallest subnormal (the spacing of its lowest
    // binade): every number of the format is a multiple of 2^quantum.
    let quantum = |f: Format| f.emin() - f.precision() as i32 + 1;
    let bar_quantum = quantum(arith.bar);
    let products_in_bar = arith.tilde.precision() <= arith.bar.precision()
        && quantum(arith.tilde) >= bar_quantum
        && arith.tilde.max_finite() <= arith.bar.max_finite();
    let additions_on_bar_grid =
        quantum(arith.tilde) >= bar_quantum && quantum(arith.fma) >= bar_quantum;
    let roundings = if products_in_bar { n - 1 } else { n };
    let g1 = gamma_value(roundings, u_bar).map_err(|e| retag(e, &ALG1_RIGOROUS))?;
    let g2 = gamma_value(q, u_fma).map_err(|e| retag(e, &ALG1_RIGOROUS))?;
    let zeta = combine(g1, g2);
    let conversion = if arith.fma == arith.bar {
        0.0
    } else {
        mul_up(u64_up(q), arith.fma.underflow_abs_error(arith.fma_mode))
    };
    let additions = if arith.bar.has_subnormals() && additions_on_bar_grid {
        0.0
    } else {
        mul_up(u64_up(n), arith.bar.underflow_abs_error(arith.bar_mode))
    };
    let underflow = add_up(conversion, additions);
    let value = add_up(mul_up(zeta, sum_abs), mul_up(underflow, add_up(1.0, zeta)));
    let growth = exp_up(add_up(
        mul_up(u64_up(n), ln1p_up(u_bar)),
        mul_up(u64_up(q), ln1p_up(u_fma)),
    ));
    let largest = mul_up(growth, add_up(sum_abs, underflow));
    let limit = arith.bar.max_finite().min(arith.fma.max_finite());
    require(
        largest <= limit,
        &ALG1_RIGOROUS,
        "no overflow: (1 + u_bar)^n (1 + u_FMA)^q (S + underflow) <= max_finite",
        || format!("{largest:e} > {limit:e}"),
    )?;
    let (pad, pad_detail) = shape.padding_note();
    Ok(Bound::deterministic(
        value,
        Quantity::AbsoluteError,
        ALG1_RIGOROUS,
        Rigor::Rigorous,
    )
    .with_hypothesis(pad, pad_detail)
    .with_hypothesis("products exact in t~", "checked on the stored values")
    .with_hypothesis("no overflow", format!("intermediates <= {largest:e}"))
    .with_hypothesis(
        "fl(x) = x(1 + delta) + eta; subnormal sums exact where the addends lie on t_bar's grid",
        format!(
            "{roundings} roundings in t_bar per term, underflow term {underflow:e} ({})",
            if additions_on_bar_grid && arith.bar.has_subnormals() {
                "additions exact in the subnormal range"
            } else {
                "n eta_bar for the additions"
            }
        ),
    )
    .with_hypothesis(ROUND_EVERY_ADDITION, "the model this bound is about"))
}
