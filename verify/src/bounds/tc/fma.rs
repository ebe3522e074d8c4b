//! The MAC-level results: FMA (Lemmas 3.1-3.3, §3.1) and MPFMA (Lemmas
//! 3.4-3.6, §3.2, eq. (5), (6)), the unfused MAC of §4.1 (Fig. 5), and a
//! rigorous step-by-step bound for any of them ([`mac_rigorous`]).
//!
//! All published forms assume the rounding model of eq. (3),
//! `fl(z) = z (1 + delta)`, which excludes underflow and overflow; they are
//! evaluated here exactly as printed, as absolute bounds (the printed relative
//! bound times `|a b + c|`, see the parent module).

use super::super::directed::{add_up, mul_up};
use super::super::gamma::gamma_value;
use super::super::probabilistic::bhola_pb;
use super::super::{Bound, Quantity, Rigor, Source, require};
use super::{GammaTilde, Roundoffs, abs_prod_up, require_finite_values, source};
use crate::error::{Result, VerifyError};
use crate::format::{Format, RoundingMode};

const NO_UNDERFLOW: &str =
    "fl(z) = z(1 + delta), |delta| <= u (eq. (3): no underflow, no overflow)";
const ASSUMED: &str = "assumed by the source, not checked";
const VIBEA_MODEL: &str = "rounding errors of the casts iid uniform on [-u, u] (Lemma 2.2)";

fn check_u(name: &str, u: f64) -> Result<()> {
    if u.is_finite() && u > 0.0 && u < 1.0 {
        Ok(())
    } else {
        Err(VerifyError::invalid(
            name,
            u,
            "a unit roundoff must satisfy 0 < u < 1",
        ))
    }
}

fn finite_abc(a: f64, b: f64, c: f64) -> Result<()> {
    require_finite_values(&[("a", a), ("b", b), ("c", c)])
}

/// `x |a||b| + y |c|`, rounded up.
fn combine(x: f64, y: f64, a: f64, b: f64, c: f64) -> f64 {
    add_up(mul_up(x, abs_prod_up(a, b)), mul_up(y, c.abs()))
}

/// Lemma 3.1, eq. (4) (FMA without representation error): `fma(a, b, c) =
/// fl_u(a b + c)` satisfies `|z^ - z| <= u (|a||b| + |c|)` (printed as
/// `|z^ - z| / |z| <= u (|a||b| + |c|) / |a b + c|`). As printed; its model
/// excludes underflow ([`mac_rigorous`] is the corrected form).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for `u` outside (0, 1),
/// [`VerifyError::NonFinite`] for a NaN or infinite input.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::lemma_3_1;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let (a, b, c) = (1.1f32 as f64, 1.7f32 as f64, 1.3f32 as f64);
/// let z = Format::FP32.fma(a, b, c, RoundingMode::NearestEven);
/// let bound = lemma_3_1(2f64.powi(-24), a, b, c).unwrap();
/// assert!((z - (a * b + c)).abs() <= bound.value); // a*b+c is exact in f64 here
/// ```
pub fn lemma_3_1(u: f64, a: f64, b: f64, c: f64) -> Result<Bound> {
    check_u("u", u)?;
    finite_abc(a, b, c)?;
    Ok(Bound::deterministic(
        combine(u, u, a, b, c),
        Quantity::AbsoluteError,
        source("Lemma 3.1", Some("(4)")),
        Rigor::Published,
    )
    .with_hypothesis("a, b, c in F (unit roundoff u)", "the caller's values")
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Lemma 3.2 (FMA with representation error): `a, b, c` given with unit
/// roundoff `u' < u`, cast to the FMA's format, then `fma`:
/// `|z^ - z| <= (u + gamma_2 + u gamma_2)|a||b| + (2u + u^2)|c|`. As printed.
///
/// # Errors
/// As [`lemma_3_1`]; [`VerifyError::HypothesisNotMet`] unless `u_given < u`
/// or if `gamma_2` has no value (`2u >= 1`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::lemma_3_2;
/// let u = 2f64.powi(-11);
/// assert!(lemma_3_2(u, 2f64.powi(-24), 1.0, 1.0, 1.0).unwrap().value > 4.0 * u);
/// assert!(lemma_3_2(u, u, 1.0, 1.0, 1.0).is_err()); // needs u' < u
/// ```
pub fn lemma_3_2(u: f64, u_given: f64, a: f64, b: f64, c: f64) -> Result<Bound> {
    check_u("u", u)?;
    check_u("u_given", u_given)?;
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.2", None);
    require(u_given < u, &src, "u' < u", || {
        format!("u' = {u_given:e}, u = {u:e}")
    })?;
    let g2 = gamma_value(2, u)?;
    let ab = add_up(add_up(u, g2), mul_up(u, g2));
    let cc = add_up(2.0 * u, mul_up(u, u));
    Ok(Bound::deterministic(
        combine(ab, cc, a, b, c),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    )
    .with_hypothesis("u' < u", format!("u' = {u_given:e}, u = {u:e}"))
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Lemma 3.3 (FMA with representation error, VIBEA): Lemma 3.2 with
/// `gamma~_2(lambda)` for the cast of `a, b`, holding with probability at
/// least `p_b(lambda, u, 2)`. The paper leaves `gamma~` undefined: `constant`
/// chooses it ([`GammaTilde`]); the result is rigorous (under the model) only
/// with [`GammaTilde::Paired`].
///
/// # Errors
/// As [`lemma_3_2`], plus [`VerifyError::InvalidParameter`] for a bad `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_3, GammaTilde};
/// use boundgate_verify::bounds::Kind;
/// let u = 2f64.powi(-11);
/// let b = lemma_3_3(u, 2f64.powi(-24), 3.0, GammaTilde::Paired, 1.0, 1.0, 1.0).unwrap();
/// // p_b(3, 2^-11, 2) = 0.97349...: the lemma holds with probability about 97.3%.
/// assert!(matches!(b.kind, Kind::Probabilistic { probability } if (0.973..0.974).contains(&probability)));
/// ```
pub fn lemma_3_3(
    u: f64,
    u_given: f64,
    lambda: f64,
    constant: GammaTilde,
    a: f64,
    b: f64,
    c: f64,
) -> Result<Bound> {
    check_u("u", u)?;
    check_u("u_given", u_given)?;
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.3", None);
    require(u_given < u, &src, "u' < u", || {
        format!("u' = {u_given:e}, u = {u:e}")
    })?;
    let g2 = constant.value(2, u, lambda)?;
    let probability = bhola_pb(lambda, u, 2)?;
    let ab = add_up(add_up(u, g2), mul_up(u, g2));
    let cc = add_up(2.0 * u, mul_up(u, u));
    Ok(Bound::probabilistic(
        combine(ab, cc, a, b, c),
        probability,
        Quantity::AbsoluteError,
        src,
        constant.rigor(),
    )
    .with_hypothesis("u' < u", format!("u' = {u_given:e}, u = {u:e}"))
    .with_hypothesis(VIBEA_MODEL, "assumed; judged statistically over trials")
    .with_hypothesis("gamma~_2(lambda)", constant.name())
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Checks that every unit roundoff of `r` is in (0, 1), as
/// [`Roundoffs::new`] does: the fields are public, so a `Roundoffs` built
/// directly reaches the lemmas unchecked. Without this, a negative `u_bar`
/// and `u_FMA` passed every hypothesis of Lemma 3.4 and gave a negative
/// bound, and `u = +inf` gave NaN in (6) for `a = b = c = 0` (review).
fn check_roundoffs(r: &Roundoffs) -> Result<()> {
    Roundoffs::new(r.u_low, r.u_high, r.u_tilde, r.u_bar, r.u_fma).map(|_| ())
}

/// Checks the MPFMA hypotheses of Lemmas 3.4-3.6 on the unit roundoffs.
fn mpfma_hypotheses(r: &Roundoffs, src: &Source) -> Result<Vec<(String, String)>> {
    check_roundoffs(r)?;
    // "u~ <= u_high" and "the significand of a b fits t~": a product of two
    // p_low-bit significands has 2 p_low bits, which fit a p~-bit format iff
    // u~ <= u_low^2 (u = 2^-p).
    require(r.u_tilde <= r.u_high, src, "u~ <= u_high", || {
        format!("u~ = {:e}, u_high = {:e}", r.u_tilde, r.u_high)
    })?;
    require(
        r.u_tilde <= r.u_low * r.u_low,
        src,
        "the product a b is exact in t~ (u~ <= u_low^2)",
        || format!("u~ = {:e}, u_low^2 = {:e}", r.u_tilde, r.u_low * r.u_low),
    )?;
    // Printed: u_FMA > u_bar. The paper's own Table 2 (fp16 in, fp32 out) has
    // u_FMA = u_bar; the proof (one rounding with |delta| <= u_bar, one with
    // |eta| <= u_FMA) does not use the strict inequality, so equality is accepted.
    require(
        r.u_fma >= r.u_bar,
        src,
        "u_FMA > u_bar (printed; equality accepted)",
        || format!("u_FMA = {:e}, u_bar = {:e}", r.u_fma, r.u_bar),
    )?;
    Ok(vec![
        (
            "u~ <= u_high, a b exact in t~ (u~ <= u_low^2)".into(),
            format!(
                "u~ = {:e}, u_high = {:e}, u_low = {:e}",
                r.u_tilde, r.u_high, r.u_low
            ),
        ),
        (
            "u_FMA >= u_bar".into(),
            format!("u_FMA = {:e}, u_bar = {:e}", r.u_fma, r.u_bar),
        ),
    ])
}

fn with_all(mut bound: Bound, hypotheses: Vec<(String, String)>) -> Bound {
    for (s, d) in hypotheses {
        bound = bound.with_hypothesis(s, d);
    }
    bound
}

/// Lemma 3.4, eq. (5) (MPFMA without representation error):
/// `|z^ - z| <= (u_bar + u_FMA + u_bar u_FMA)(|a||b| + |c|)`. As printed.
///
/// # Errors
/// [`VerifyError::NonFinite`] for a non-finite input;
/// [`VerifyError::InvalidParameter`] for a unit roundoff outside (0, 1);
/// [`VerifyError::HypothesisNotMet`] unless `u~ <= u_high`, the product is
/// exact in `t~` and `u_FMA >= u_bar`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_4, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let b = lemma_3_4(&r, 1.0, 1.0, 1.0).unwrap();
/// assert!(b.value >= 2.0 * r.zeta());
/// ```
pub fn lemma_3_4(r: &Roundoffs, a: f64, b: f64, c: f64) -> Result<Bound> {
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.4", Some("(5)"));
    let hyps = mpfma_hypotheses(r, &src)?;
    let zeta = r.zeta();
    let bound = Bound::deterministic(
        combine(zeta, zeta, a, b, c),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    );
    Ok(with_all(bound, hyps).with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Lemma 3.4's special case, eq. (6): when `u~ = u_bar = u_FMA = u_high`
/// there is a single rounding and `|z^ - z| <= u_high (|a||b| + |c|)`.
///
/// The special case keeps Lemma 3.4's hypotheses, in particular that the
/// product `a b` is exact in `t~` (its proof's "assume that the significand
/// of the product ... can be entirely represented"): only then is the
/// rounding of `a b + c` the single one. Until a review found it they
/// were not checked here, and an fp16 MAC with an fp16 product
/// (`u_low = u~ = u_bar = u_FMA = u_high = 2^-11`, two roundings) was given
/// (6): `a = 1 + 2^-10`, `b = 1 - 2^-11`, `c = 2^-11` computes 1 for the
/// exact `1 + 2^-10 - 2^-21`, an error of about `2 u` against (6)'s `u`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a unit roundoff outside (0, 1);
/// [`VerifyError::HypothesisNotMet`] unless the four unit roundoffs are
/// equal and Lemma 3.4's hypotheses hold (as [`lemma_3_4`]).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_4_eq6, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// assert!(lemma_3_4_eq6(&r, 1.0, 1.0, 1.0).unwrap().value >= 2.0 * r.u_high);
/// assert!(lemma_3_4_eq6(&Roundoffs::table2_fp16(), 1.0, 1.0, 1.0).is_err());
/// // All fp16, products rounded to fp16: not exact, not a single rounding.
/// let u16 = 2f64.powi(-11);
/// let all16 = Roundoffs::new(u16, u16, u16, u16, u16).unwrap();
/// assert!(lemma_3_4_eq6(&all16, 1.0, 1.0, 1.0).is_err());
/// ```
pub fn lemma_3_4_eq6(r: &Roundoffs, a: f64, b: f64, c: f64) -> Result<Bound> {
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.4", Some("(6)"));
    let hyps = mpfma_hypotheses(r, &src)?;
    let equal = r.u_tilde == r.u_bar && r.u_bar == r.u_fma && r.u_fma == r.u_high;
    require(equal, &src, "u~ = u_bar = u_FMA = u_high", || {
        format!("{r:?}")
    })?;
    let bound = Bound::deterministic(
        combine(r.u_high, r.u_high, a, b, c),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    );
    Ok(with_all(bound, hyps)
        .with_hypothesis("u~ = u_bar = u_FMA = u_high", format!("{:e}", r.u_high))
        .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

fn lemma_3_5_value(r: &Roundoffs, g2: f64, a: f64, b: f64, c: f64) -> f64 {
    let zeta = r.zeta();
    let ab = add_up(g2, mul_up(zeta, add_up(1.0, g2)));
    let cc = add_up(r.u_high, mul_up(zeta, add_up(1.0, r.u_high)));
    combine(ab, cc, a, b, c)
}

/// Lemma 3.5 (MPFMA with representation error): inputs given with unit
/// roundoff `u' < u_high`, `a, b` cast to `t_low`, `c` to `t_high`:
/// `|z^ - z| <= [gamma_2^{u_low} + zeta (1 + gamma_2^{u_low})]|a||b| +
/// [u_high + zeta (1 + u_high)]|c|`, `zeta = u_bar + u_FMA + u_bar u_FMA`. As printed.
///
/// # Errors
/// As [`lemma_3_4`], plus [`VerifyError::HypothesisNotMet`] unless `u_given < u_high`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_5, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let b = lemma_3_5(&r, 2f64.powi(-53), 1.5, 1.5, 1.0).unwrap();
/// assert!(b.value > 2.0 * r.u_low * 2.25);
/// ```
pub fn lemma_3_5(r: &Roundoffs, u_given: f64, a: f64, b: f64, c: f64) -> Result<Bound> {
    check_u("u_given", u_given)?;
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.5", None);
    let hyps = mpfma_hypotheses(r, &src)?;
    require(u_given < r.u_high, &src, "u' < u_high", || {
        format!("u' = {u_given:e}, u_high = {:e}", r.u_high)
    })?;
    let g2 = gamma_value(2, r.u_low)?;
    let bound = Bound::deterministic(
        lemma_3_5_value(r, g2, a, b, c),
        Quantity::AbsoluteError,
        src,
        Rigor::Published,
    );
    Ok(with_all(bound, hyps)
        .with_hypothesis("u' < u_high", format!("u' = {u_given:e}"))
        .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// Lemma 3.6 (MPFMA with representation error, VIBEA): Lemma 3.5 with
/// `gamma~_2^{u_low}(lambda)`, probability at least `p_b(lambda, u_low, 2)`.
/// `constant` chooses `gamma~` ([`GammaTilde`]).
///
/// # Errors
/// As [`lemma_3_5`], plus a bad `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_5, lemma_3_6, GammaTilde, Roundoffs};
/// let r = Roundoffs::table2_fp32();
/// let d = lemma_3_5(&r, 2f64.powi(-53), 1.5, 1.5, 1.0).unwrap();
/// let p = lemma_3_6(&r, 2f64.powi(-53), 3.0, GammaTilde::Paired, 1.5, 1.5, 1.0).unwrap();
/// assert!(p.value > d.value); // for n = 2, VIBEA is looser than DBEA (the paper's Fig. 5)
/// ```
pub fn lemma_3_6(
    r: &Roundoffs,
    u_given: f64,
    lambda: f64,
    constant: GammaTilde,
    a: f64,
    b: f64,
    c: f64,
) -> Result<Bound> {
    check_u("u_given", u_given)?;
    finite_abc(a, b, c)?;
    let src = source("Lemma 3.6", None);
    let hyps = mpfma_hypotheses(r, &src)?;
    require(u_given < r.u_high, &src, "u' < u_high", || {
        format!("u' = {u_given:e}, u_high = {:e}", r.u_high)
    })?;
    let g2 = constant.value(2, r.u_low, lambda)?;
    let probability = bhola_pb(lambda, r.u_low, 2)?;
    let bound = Bound::probabilistic(
        lemma_3_5_value(r, g2, a, b, c),
        probability,
        Quantity::AbsoluteError,
        src,
        constant.rigor(),
    );
    Ok(with_all(bound, hyps)
        .with_hypothesis("u' < u_high", format!("u' = {u_given:e}"))
        .with_hypothesis(VIBEA_MODEL, "assumed; judged statistically over trials")
        .with_hypothesis("gamma~_2(lambda)", constant.name())
        .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// The unfused MAC of §4.1 (Fig. 5, "without FMA"), `d = fl(fl(a b) + c)`:
/// by Lemma 2.1, `d = a b (1 + theta_2) + c (1 + delta)`, so
/// `|d^ - d| <= gamma_2 |a||b| + u |c|`. The paper plots this DBEA bound
/// without printing it; the formula is the standard one, kept as published.
///
/// # Errors
/// As [`lemma_3_1`]; `gamma_2` needs `2u < 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::mac_no_fma;
/// let u = 2f64.powi(-24);
/// assert!(mac_no_fma(u, 1.0, 1.0, 1.0).unwrap().value >= 3.0 * u);
/// ```
pub fn mac_no_fma(u: f64, a: f64, b: f64, c: f64) -> Result<Bound> {
    check_u("u", u)?;
    finite_abc(a, b, c)?;
    let g2 = gamma_value(2, u)?;
    Ok(Bound::deterministic(
        combine(g2, u, a, b, c),
        Quantity::AbsoluteError,
        source("Section 4.1, Fig. 5 (MAC without FMA, via Lemma 2.1)", None),
        Rigor::Published,
    )
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// The VIBEA counterpart of [`mac_no_fma`] (Fig. 5): `gamma~_2(lambda) |a||b| + u |c|`
/// with probability at least `p_b(lambda, u, 2)`.
///
/// # Errors
/// As [`mac_no_fma`], plus a bad `lambda`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{mac_no_fma_vibea, GammaTilde};
/// let u = 2f64.powi(-24);
/// assert!(mac_no_fma_vibea(u, 3.0, GammaTilde::Paired, 1.0, 1.0, 1.0).is_ok());
/// ```
pub fn mac_no_fma_vibea(
    u: f64,
    lambda: f64,
    constant: GammaTilde,
    a: f64,
    b: f64,
    c: f64,
) -> Result<Bound> {
    check_u("u", u)?;
    finite_abc(a, b, c)?;
    let g2 = constant.value(2, u, lambda)?;
    let probability = bhola_pb(lambda, u, 2)?;
    Ok(Bound::probabilistic(
        combine(g2, u, a, b, c),
        probability,
        Quantity::AbsoluteError,
        source("Section 4.1, Fig. 5 (MAC without FMA, via Lemma 2.2)", None),
        constant.rigor(),
    )
    .with_hypothesis(
        "rounding errors of the product and the sum iid uniform on [-u, u] (Lemma 2.2)",
        "assumed; judged statistically over trials",
    )
    .with_hypothesis("gamma~_2(lambda)", constant.name())
    .with_hypothesis(NO_UNDERFLOW, ASSUMED))
}

/// One rounding of a MAC: into `format`, in `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacStep {
    /// The format rounded into.
    pub format: Format,
    /// The rounding mode.
    pub mode: RoundingMode,
}

impl MacStep {
    /// Round to nearest even into `format`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::{mac_rigorous, MacStep, MacSteps};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// use boundgate_verify::oracle::ExactSum;
    /// let rne = RoundingMode::NearestEven;
    /// assert_eq!(MacStep::nearest(Format::FP16), MacStep { format: Format::FP16, mode: rne });
    /// // An MPFMA: a, b cast to fp16, exact product, one rounding of a b + c to fp32.
    /// let steps = MacSteps { cast_ab: Some(MacStep::nearest(Format::FP16)), cast_c: None, product: None,
    ///                        accumulate: MacStep::nearest(Format::FP32), output: None };
    /// let (a, b, c) = (0.1, 0.3, 1.0);
    /// let (ah, bh) = (Format::FP16.round(a, rne), Format::FP16.round(b, rne));
    /// let d = Format::FP32.fma(ah, bh, c, rne);
    /// let mut exact = ExactSum::new();
    /// exact.add_product(a, b);
    /// exact.add(c);
    /// let err = exact.error_of(d).absolute_up().unwrap();
    /// assert!(err > 0.0 && err <= mac_rigorous(&steps, a, b, c).unwrap().value);
    /// ```
    pub const fn nearest(format: Format) -> MacStep {
        MacStep {
            format,
            mode: RoundingMode::NearestEven,
        }
    }

    /// `(u, eta)`: relative and absolute (underflow) error of this rounding.
    fn errors(&self) -> (f64, f64) {
        (
            self.format.unit_roundoff(self.mode),
            self.format.underflow_abs_error(self.mode),
        )
    }
}

/// How a MAC `d = a b + c` is evaluated, step by step (§3.1, §3.2): optional
/// casts of `a, b` (to `t_low`) and of `c` (to `t_high`), an optional rounding
/// of the product (to `t~`; `None` when the product is kept exactly, as in an
/// FMA), the rounding of the sum (to `t_bar`) and an optional output rounding
/// (to `t_FMA`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{MacStep, MacSteps};
/// use boundgate_verify::format::Format;
/// // fp32 inputs cast to fp16, MPFMA with fp32 products, accumulation and output (Fig. 5).
/// let mpfma = MacSteps {
///     cast_ab: Some(MacStep::nearest(Format::FP16)),
///     cast_c: None,
///     product: None,
///     accumulate: MacStep::nearest(Format::FP32),
///     output: None,
/// };
/// assert!(mpfma.accumulate.format == Format::FP32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacSteps {
    /// Rounding of `a` and `b` before use (representation), if any.
    pub cast_ab: Option<MacStep>,
    /// Rounding of `c` before use, if any.
    pub cast_c: Option<MacStep>,
    /// Rounding of the product, if any (`None`: exact, as in an FMA).
    pub product: Option<MacStep>,
    /// Rounding of the sum.
    pub accumulate: MacStep,
    /// Rounding of the result to the output format, if any.
    pub output: Option<MacStep>,
}

const RIGOROUS_MAC: Source = Source::new(
    "boundgate (every rounding of Bhola and Duraisamy's MAC, FMA and MPFMA with the underflow model of Higham 2002 eq. (2.8))",
    "rigorous MAC bound",
    None,
);

/// The rigorous bound for a MAC evaluated as `steps`, with respect to the
/// exact `a b + c` on the inputs AS GIVEN (representation error included).
///
/// Every rounding satisfies `fl(x) = x (1 + delta) + eta`, `|delta| <= u`,
/// `|eta| <= eta_min` (Higham 2002, §2.1, eq. (2.8)), which holds with
/// gradual underflow and in the directed modes as long as nothing overflows.
/// With `a~ = fl(a)` etc., the errors add up:
/// `|a~ b~ - a b| <= |a~| (u_s |b| + eta_s) + |b| (u_s |a| + eta_s)`,
/// `|c~ - c| <= u_c |c| + eta_c`, the product rounding adds
/// `u~ |a~||b~| + eta~`, the sum `u_bar (|p| + |c~|) + eta_bar` and the output
/// `u_FMA |s| + eta_FMA`, each magnitude bounded by the previous step's bound.
/// Hypothesis checked: no rounding overflows (each magnitude bound is at most
/// the largest finite value of its format). This is Lemma 3.1 (no casts, no
/// product rounding), Lemma 3.2, Lemma 3.4/3.5 (casts, exact product, two
/// roundings) and the unfused MAC, corrected for underflow.
///
/// # Errors
/// [`VerifyError::NonFinite`] for a non-finite input,
/// [`VerifyError::HypothesisNotMet`] if a rounding may overflow.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{mac_rigorous, MacStep, MacSteps};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let fma = MacSteps { cast_ab: None, cast_c: None, product: None,
///                      accumulate: MacStep::nearest(Format::FP16), output: None };
/// // fp16 FMA whose exact result 2^-26 is below half the smallest subnormal: it rounds to 0.
/// let (a, b, c) = (2f64.powi(-13), 2f64.powi(-13), 0.0);
/// let z = Format::FP16.fma(a, b, c, RoundingMode::NearestEven);
/// assert_eq!(z, 0.0);
/// let bound = mac_rigorous(&fma, a, b, c).unwrap();
/// assert!((z - a * b).abs() <= bound.value); // Lemma 3.1 alone would give 2^-37
/// assert!(mac_rigorous(&fma, 60000.0, 2.0, 0.0).is_err()); // may overflow fp16
/// ```
pub fn mac_rigorous(steps: &MacSteps, a: f64, b: f64, c: f64) -> Result<Bound> {
    finite_abc(a, b, c)?;
    let mut overflow_checks: Vec<(&'static str, f64, Format)> = Vec::new();
    let (aa, bb, cc) = (a.abs(), b.abs(), c.abs());
    // Casts of a and b.
    let (a_mag, b_mag, rep_ab) = match steps.cast_ab {
        None => (aa, bb, 0.0),
        Some(step) => {
            overflow_checks.push(("cast of a", aa, step.format));
            overflow_checks.push(("cast of b", bb, step.format));
            let (u, eta) = step.errors();
            let err_a = add_up(mul_up(u, aa), eta);
            let err_b = add_up(mul_up(u, bb), eta);
            let a_mag = add_up(aa, err_a);
            let b_mag = add_up(bb, err_b);
            (
                a_mag,
                b_mag,
                add_up(mul_up(a_mag, err_b), mul_up(bb, err_a)),
            )
        }
    };
    let (c_mag, rep_c) = match steps.cast_c {
        None => (cc, 0.0),
        Some(step) => {
            overflow_checks.push(("cast of c", cc, step.format));
            let (u, eta) = step.errors();
            let err = add_up(mul_up(u, cc), eta);
            (add_up(cc, err), err)
        }
    };
    // The product.
    let exact_product = mul_up(a_mag, b_mag);
    let (p_mag, product_err) = match steps.product {
        None => (exact_product, 0.0),
        Some(step) => {
            overflow_checks.push(("product", exact_product, step.format));
            let (u, eta) = step.errors();
            let err = add_up(mul_up(u, exact_product), eta);
            (add_up(exact_product, err), err)
        }
    };
    // The sum.
    let sum_mag = add_up(p_mag, c_mag);
    overflow_checks.push(("sum", sum_mag, steps.accumulate.format));
    let (u, eta) = steps.accumulate.errors();
    let sum_err = add_up(mul_up(u, sum_mag), eta);
    let s_mag = add_up(sum_mag, sum_err);
    // The output.
    let out_err = match steps.output {
        None => 0.0,
        Some(step) => {
            overflow_checks.push(("output", s_mag, step.format));
            let (u, eta) = step.errors();
            add_up(mul_up(u, s_mag), eta)
        }
    };
    for (what, magnitude, format) in &overflow_checks {
        require(
            *magnitude <= format.max_finite(),
            &RIGOROUS_MAC,
            "no overflow",
            || {
                format!(
                    "{what}: magnitude up to {magnitude:e} > {:e} ({format})",
                    format.max_finite()
                )
            },
        )?;
    }
    let value = [rep_ab, rep_c, product_err, sum_err, out_err]
        .into_iter()
        .fold(0.0, add_up);
    Ok(Bound::deterministic(
        value,
        Quantity::AbsoluteError,
        RIGOROUS_MAC,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "fl(x) = x(1 + delta) + eta, |delta| <= u, |eta| <= eta_min (every step)",
        "holds with gradual underflow and without overflow",
    )
    .with_hypothesis("no overflow", "checked on every step's magnitude bound"))
}
