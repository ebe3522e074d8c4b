//! Bounds for fused multiply-add (FMA), mixed-precision FMA (MPFMA) and
//! tensor-core matrix multiplication.
//!
//! Source: S. Bhola and K. Duraisamy, *Deterministic and Probabilistic Rounding
//! Error Analysis for Mixed-Precision Arithmetic on Modern Computing Units*
//! (seed `dbea-vibea-bhola-duraisamy.txt`): Lemmas 3.1-3.3 (§3.1, FMA),
//! Lemmas 3.4-3.6 (§3.2, MPFMA, eq. (5) and (6)), Theorems 3.7-3.10 (§3.3,
//! Algorithm 1 on tensor cores, eq. (7)). One function per published result,
//! named after it ([`lemma_3_1`] ... [`thm_3_10`]), each evaluated EXACTLY as
//! printed ([`super::Rigor::Published`]), and beside them the
//! corrected forms that are rigorous ([`super::Rigor::Rigorous`]):
//!
//! - `fma`: the MAC-level lemmas; [`mac_rigorous`] accounts every rounding
//!   step of a MAC (casts, product, accumulation, output) with the underflow
//!   term of Higham 2002 eq. (2.8) and a checked no-overflow hypothesis.
//! - `gemm`: Theorems 3.7-3.10 with the probability expression of 3.9/3.10
//!   (flagged vacuous when <= 0), and [`alg1_rigorous`] for Algorithm 1 as the
//!   paper models it (a rounding after every addition) including underflow.
//! - `block`: the arithmetic real tensor cores perform (block FMA: exact
//!   products, alignment to the largest exponent, truncation to a fixed
//!   number of fractional bits, one rounding per block; Fasi, Higham,
//!   Mikaitis and Pranesh 2021; Khattak and Mikaitis; Xie et al., MMA-Sim,
//!   arXiv 2511.10909), which Theorems 3.7-3.10 do not model: an a-priori and
//!   an a-posteriori rigorous bound for it.
//! - `any_order`: the block FMA summed in any order (any split of the inner
//!   dimension, any reduction tree): the bound a vendor GEMM whose order is
//!   unknown is held to ([`block_fma_any_order`]).
//!
//! # Conventions
//!
//! The paper states its MAC and GEMM results as relative forward errors,
//! `|z^ - z| / |z| <= K(a, b, c) / |a b + c|` and
//! `|D^ - D| / |D| <= zeta |A||B| / |A B|` (componentwise). Every function here
//! returns the same inequality multiplied by `|z|` (resp. `|D_ij|`): an
//! ABSOLUTE error bound ([`Quantity::AbsoluteError`](super::Quantity)), which
//! is the form the check loop compares, and which stays meaningful where the
//! exact result is zero. [`relative`] divides by `|z|` to give the printed form.
//! The constants are exactly the printed ones.
//!
//! Unit roundoffs follow Table 2 of the paper: `u_low` (inputs `A`, `B` /
//! `a`, `b`), `u_high` (the accumulator input `C` / `c`), `u~` (products),
//! `u_bar` (accumulation), `u_FMA` (output of each MPFMA / block) ([`Roundoffs`]).
//!
//! Every returned number is rounded upward and every probability downward
//! ([`super::directed`]).

mod any_order;
mod block;
mod fma;
mod gemm;
mod pb;

pub use any_order::{
    ANY_ORDER_SOURCE, block_fma_any_order, block_fma_any_order_constant,
    block_fma_any_order_reducing, block_fma_any_order_split_reducing,
};
pub use block::{
    BLOCK_FMA_SOURCE, BlockFmaSpec, block_fma_a_posteriori, block_fma_a_priori, block_fma_constant,
};
pub use fma::{
    MacStep, MacSteps, lemma_3_1, lemma_3_2, lemma_3_3, lemma_3_4, lemma_3_4_eq6, lemma_3_5,
    lemma_3_6, mac_no_fma, mac_no_fma_vibea, mac_rigorous,
};
pub use gemm::{
    Alg1Arithmetic, GemmShape, ThmConstant, alg1_rigorous, paired_deviation, paired_probability,
    thm_3_7, thm_3_7_constant, thm_3_8, thm_3_8_constant, thm_3_9, thm_3_9_probability, thm_3_10,
    vibea_lambda,
};
pub use pb::PbTable;

use super::directed::{add_up, div_up, mul_up};
use super::probabilistic::{vibea_gamma, vibea_gamma_authors_centred, vibea_gamma_first_order};
use super::{Bound, Quantity, Rigor, Source};
use crate::error::{Result, VerifyError};
use crate::format::{Format, RoundingMode};
use serde::Serialize;

/// The paper, short form (full reference in the module documentation).
pub const PAPER: &str = "Bhola and Duraisamy";

/// The unit roundoffs of an MPFMA unit or a tensor core (Bhola and Duraisamy,
/// §3.2 and Table 2): `u_low` of the inputs `a, b` (`A, B`), `u_high` of the
/// accumulator input `c` (`C`), `u~` of the products, `u_bar` of the
/// accumulation and `u_FMA` of the output.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::Roundoffs;
/// let r = Roundoffs::table2_fp32();
/// assert_eq!(r.u_low, 2f64.powi(-11));
/// assert_eq!(r.u_bar, 2f64.powi(-24));
/// assert!(Roundoffs::new(0.5, 0.1, 0.1, 0.1, 1.5).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Roundoffs {
    /// Unit roundoff of the inputs `a`, `b` (format `t_low`).
    pub u_low: f64,
    /// Unit roundoff of the accumulator input `c` (format `t_high`).
    pub u_high: f64,
    /// Unit roundoff of the products (format `t~`).
    pub u_tilde: f64,
    /// Unit roundoff of the accumulation (format `t_bar`).
    pub u_bar: f64,
    /// Unit roundoff of the output (format `t_FMA`).
    pub u_fma: f64,
}

impl Roundoffs {
    /// Checks that every unit roundoff is in (0, 1).
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] naming the first one that is not.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// let (u16, u32) = (2f64.powi(-11), 2f64.powi(-24));
    /// let r = Roundoffs::new(u16, u32, u32, u32, u32).unwrap();
    /// assert_eq!(r, Roundoffs::table2_fp32());
    /// // Every unit roundoff must lie in (0, 1).
    /// assert!(Roundoffs::new(u16, u32, u32, u32, 1.0).is_err());
    /// assert!(Roundoffs::new(0.0, u32, u32, u32, u32).is_err());
    /// assert!(Roundoffs::new(u16, f64::NAN, u32, u32, u32).is_err());
    /// ```
    pub fn new(u_low: f64, u_high: f64, u_tilde: f64, u_bar: f64, u_fma: f64) -> Result<Self> {
        for (name, u) in [
            ("u_low", u_low),
            ("u_high", u_high),
            ("u_tilde", u_tilde),
            ("u_bar", u_bar),
            ("u_fma", u_fma),
        ] {
            if !(u.is_finite() && u > 0.0 && u < 1.0) {
                return Err(VerifyError::invalid(
                    name,
                    u,
                    "a unit roundoff must satisfy 0 < u < 1",
                ));
            }
        }
        Ok(Roundoffs {
            u_low,
            u_high,
            u_tilde,
            u_bar,
            u_fma,
        })
    }

    /// Table 2, first row: `A, B` fp16, `C, D` fp32 (`u_low = u16`, all others `u32`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// // A, B fp16; C, D fp32: the roundoffs of (fp16, fp32, fp32, fp32, fp32) in round to nearest.
    /// let (h, s) = (Format::FP16, Format::FP32);
    /// assert_eq!(Roundoffs::table2_fp32(), Roundoffs::of_formats([h, s, s, s, s], RoundingMode::NearestEven).unwrap());
    /// assert_eq!(Roundoffs::table2_fp32().u_fma, 2f64.powi(-24));
    /// ```
    pub fn table2_fp32() -> Roundoffs {
        let (u16, u32) = (2f64.powi(-11), 2f64.powi(-24));
        Roundoffs {
            u_low: u16,
            u_high: u32,
            u_tilde: u32,
            u_bar: u32,
            u_fma: u32,
        }
    }

    /// Table 2, second row: `A, B, C, D` fp16 (`u~ = u32`, all others `u16`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// // A, B, C, D fp16, exact fp16 x fp16 products in fp32 (u~ = u32).
    /// let (h, s) = (Format::FP16, Format::FP32);
    /// let r = Roundoffs::table2_fp16();
    /// assert_eq!(r, Roundoffs::of_formats([h, h, s, h, h], RoundingMode::NearestEven).unwrap());
    /// assert!(r.u_tilde <= r.u_low * r.u_low); // the products are exact in t~
    /// ```
    pub fn table2_fp16() -> Roundoffs {
        let (u16, u32) = (2f64.powi(-11), 2f64.powi(-24));
        Roundoffs {
            u_low: u16,
            u_high: u16,
            u_tilde: u32,
            u_bar: u16,
            u_fma: u16,
        }
    }

    /// The unit roundoffs of five formats (`t_low, t_high, t~, t_bar, t_FMA`),
    /// all rounded in `mode`.
    ///
    /// The theorems read "the products `a b` are exact in `t~`" as
    /// `u~ <= u_low^2` (Table 2 and Lemma 3.4's hypothesis), which is
    /// `p~ >= 2 p_low` for round-to-nearest (`u = 2^-p`). A directed mode has
    /// `u = 2^(1-p)`, where the same test admits `p~ = 2 p_low - 1`: a
    /// product of two `p_low`-bit significands has up to `2 p_low` bits and
    /// is not exact there. Such formats are refused, so that the test the
    /// theorems apply to the returned roundoffs stays true of the formats.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for a directed `mode` whose `t~`
    /// passes `u~ <= u_low^2` with fewer than `2 p_low` bits.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
    /// let (h, s) = (Format::FP16, Format::FP32);
    /// let r = Roundoffs::of_formats([h, s, s, s, s], RoundingMode::NearestEven).unwrap();
    /// assert_eq!(r, Roundoffs::table2_fp32());
    /// // Truncation: fp16 x fp16 products (22 bits) are exact in fp32 (24 bits) ...
    /// assert!(Roundoffs::of_formats([h, s, s, s, s], RoundingMode::TowardZero).is_ok());
    /// // ... not in a 21-bit format, which u~ = 2^-20 <= u_low^2 = 2^-20 would admit.
    /// let p21 = Format::custom(21, -126, 127, true, OverflowPolicy::Infinity).unwrap();
    /// assert!(Roundoffs::of_formats([h, s, p21, s, s], RoundingMode::TowardZero).is_err());
    /// ```
    pub fn of_formats(formats: [Format; 5], mode: RoundingMode) -> Result<Roundoffs> {
        let [low, high, tilde, bar, fma] = formats.map(|f| f.unit_roundoff(mode));
        let (p_low, p_tilde) = (formats[0].precision(), formats[2].precision());
        if tilde <= low * low && p_tilde < 2 * p_low {
            return Err(VerifyError::invalid(
                "product format t~",
                format!("{p_tilde} bits in {mode:?}"),
                format!(
                    "u~ <= u_low^2 would read the products as exact, but two {p_low}-bit \
                     significands need {} bits (the test assumes round-to-nearest unit roundoffs)",
                    2 * p_low
                ),
            ));
        }
        Ok(Roundoffs {
            u_low: low,
            u_high: high,
            u_tilde: tilde,
            u_bar: bar,
            u_fma: fma,
        })
    }

    /// `zeta = u_bar + u_FMA + u_bar u_FMA` (Lemma 3.5), rounded up.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// // zeta = u_bar + u_FMA + u_bar u_FMA: 2^-23 + 2^-48 for fp32, exactly.
    /// assert_eq!(Roundoffs::table2_fp32().zeta(), 2f64.powi(-23) + 2f64.powi(-48));
    /// assert_eq!(Roundoffs::table2_fp16().zeta(), 2f64.powi(-10) + 2f64.powi(-22));
    /// ```
    pub fn zeta(&self) -> f64 {
        add_up(
            add_up(self.u_bar, self.u_fma),
            mul_up(self.u_bar, self.u_fma),
        )
    }
}

/// Which `gamma~_n(lambda)` a probabilistic bound pairs with Lemma 2.2's
/// probability `p_b(lambda, u, n)`. The paper does not define `gamma~` for
/// Lemma 2.2 (docs/findings/vibea-pairing.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GammaTilde {
    /// `exp(lambda sqrt(n) u + n |mu|) - 1` (`probabilistic::vibea_gamma`):
    /// rigorous under the lemma's model.
    Paired,
    /// `exp(lambda sqrt(n) u) - 1`, the authors' code (published).
    AuthorsCentred,
    /// `lambda sqrt(n) u`, the authors' arXiv v1 code (published).
    FirstOrder,
}

impl GammaTilde {
    /// `gamma~_n(lambda)` for unit roundoff `u`, rounded up.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for `u` outside (0, 1) or a negative or non-finite `lambda`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::GammaTilde;
    /// let u = 2f64.powi(-11);
    /// let first = GammaTilde::FirstOrder.value(100, u, 2.0).unwrap();
    /// assert_eq!(first, 20.0 * u);
    /// assert!(GammaTilde::Paired.value(100, u, 2.0).unwrap() > first);
    /// ```
    pub fn value(self, n: u64, u: f64, lambda: f64) -> Result<f64> {
        let bound = match self {
            GammaTilde::Paired => vibea_gamma(n, u, lambda)?,
            GammaTilde::AuthorsCentred => vibea_gamma_authors_centred(n, u, lambda)?,
            GammaTilde::FirstOrder => vibea_gamma_first_order(n, u, lambda)?,
        };
        Ok(bound.value)
    }

    /// Rigorous for the paired constant, published for the authors' ones.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::{mac_no_fma_vibea, GammaTilde};
    /// use boundgate_verify::bounds::Rigor;
    /// assert_eq!(GammaTilde::Paired.rigor(), Rigor::Rigorous);
    /// assert_eq!(GammaTilde::AuthorsCentred.rigor(), Rigor::Published);
    /// // A bound built with a constant carries its rigor.
    /// let u = 2f64.powi(-24);
    /// let b = mac_no_fma_vibea(u, 3.0, GammaTilde::FirstOrder, 1.0, 1.0, 1.0).unwrap();
    /// assert_eq!(b.rigor, GammaTilde::FirstOrder.rigor());
    /// assert_eq!(b.rigor, Rigor::Published);
    /// ```
    pub fn rigor(self) -> Rigor {
        match self {
            GammaTilde::Paired => Rigor::Rigorous,
            GammaTilde::AuthorsCentred | GammaTilde::FirstOrder => Rigor::Published,
        }
    }

    /// Short name for reports.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::GammaTilde;
    /// assert_eq!(GammaTilde::FirstOrder.name(), "authors' v1 gamma~ = lambda sqrt(n) u");
    /// assert_eq!(GammaTilde::AuthorsCentred.name(), "authors' gamma~ = exp(lambda sqrt(n) u) - 1");
    /// assert!(GammaTilde::Paired.name().contains("rigorous"));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            GammaTilde::Paired => "paired gamma~ (rigorous under the model)",
            GammaTilde::AuthorsCentred => "authors' gamma~ = exp(lambda sqrt(n) u) - 1",
            GammaTilde::FirstOrder => "authors' v1 gamma~ = lambda sqrt(n) u",
        }
    }
}

/// Turns an absolute error bound into the paper's relative form by dividing
/// by `|z|`, the magnitude of the exact result (pass a lower bound of it).
///
/// # Errors
/// [`VerifyError::UndefinedRelativeError`] if `exact_abs` is zero,
/// [`VerifyError::InvalidParameter`] if it is negative or NaN.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{lemma_3_1, relative};
/// use boundgate_verify::bounds::Quantity;
/// let u = 2f64.powi(-24);
/// let b = lemma_3_1(u, 1.5, 1.25, 1.0).unwrap();
/// let r = relative(&b, 1.5 * 1.25 + 1.0).unwrap();
/// assert_eq!(r.quantity, Quantity::RelativeError);
/// assert!(r.value >= u * (1.5 * 1.25 + 1.0) / 2.875);
/// ```
pub fn relative(bound: &Bound, exact_abs: f64) -> Result<Bound> {
    if exact_abs.is_nan() || exact_abs < 0.0 {
        return Err(VerifyError::invalid(
            "exact_abs",
            exact_abs,
            "must be |z| >= 0",
        ));
    }
    if exact_abs == 0.0 {
        return Err(VerifyError::UndefinedRelativeError);
    }
    let mut out = bound.clone();
    out.value = div_up(bound.value, exact_abs);
    out.quantity = Quantity::RelativeError;
    Ok(out)
}

/// Checks that values are finite, naming the first that is not.
pub(crate) fn require_finite_values(names: &[(&str, f64)]) -> Result<()> {
    match names.iter().find(|(_, v)| !v.is_finite()) {
        None => Ok(()),
        Some(&(name, value)) => Err(VerifyError::NonFinite {
            what: name.to_string(),
            index: 0,
            value,
        }),
    }
}

/// `|a| |b|`, rounded up.
pub(crate) fn abs_prod_up(a: f64, b: f64) -> f64 {
    mul_up(a.abs(), b.abs())
}

/// A published source of this paper.
pub(crate) const fn source(result: &'static str, equation: Option<&'static str>) -> Source {
    Source::new(PAPER, result, equation)
}
