//! Executable theorems: one function per published result, each returning a
//! [`Bound`] whose hypotheses were checked on the input, or
//! [`crate::VerifyError::HypothesisNotMet`]
//! naming the hypothesis that failed.
//!
//! Every number a bound returns is an upper bound computed with upward
//! rounding ([`directed`]), so a bound evaluated in floating point is never
//! smaller than the mathematical bound it stands for. Probabilities are
//! rounded down for the same reason.
//!
//! Published bounds are kept exactly as printed ([`Rigor::Published`]); where
//! a printed bound is not rigorous (its model ignores underflow, representation
//! error, or a term of the derivation), a corrected bound sits beside it
//! ([`Rigor::Rigorous`]) and says so in its source.

pub mod accessor;
pub mod directed;
pub mod dot;
pub mod gamma;
pub mod probabilistic;
pub mod qdot;
pub mod residual;
pub mod tc;

use crate::error::{Result, VerifyError};
use serde::Serialize;
use std::fmt;

/// Where a bound comes from: paper, result and equation.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::Source;
/// let s = Source::new("Higham 2002", "Lemma 3.1", Some("(3.4)"));
/// assert_eq!(s.to_string(), "Higham 2002, Lemma 3.1, eq. (3.4)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The paper or book, short form (full references in docs/bounds.md).
    pub paper: &'static str,
    /// The result: "Lemma 3.1", "Theorem 3.7", "Section 3.1".
    pub result: &'static str,
    /// The equation number, if the bound is a numbered equation.
    pub equation: Option<&'static str>,
}

impl Source {
    /// Builds a source reference.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::Source;
    /// // A `const fn`: sources are built at compile time.
    /// const THM: Source = Source::new("Higham 2002", "Theorem 8.5", None);
    /// assert_eq!(THM.to_string(), "Higham 2002, Theorem 8.5");
    /// assert_eq!(THM.equation, None);
    /// let eq = Source::new("Higham 2002", "Section 3.1", Some("(3.5)"));
    /// assert_eq!(eq.to_string(), "Higham 2002, Section 3.1, eq. (3.5)");
    /// ```
    pub const fn new(
        paper: &'static str,
        result: &'static str,
        equation: Option<&'static str>,
    ) -> Source {
        Source {
            paper,
            result,
            equation,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", self.paper, self.result)?;
        if let Some(eq) = self.equation {
            write!(f, ", eq. {eq}")?;
        }
        Ok(())
    }
}

/// Whether a bound always holds or holds with a stated probability.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// Holds for every input satisfying the hypotheses.
    Deterministic,
    /// Holds with probability at least `probability` under the stated model
    /// of rounding errors (the model is one of the hypotheses).
    Probabilistic {
        /// Lower bound on the probability that the bound holds (rounded down).
        /// May be <= 0, in which case the bound is vacuous.
        probability: f64,
    },
}

impl Kind {
    /// A probabilistic bound whose probability is <= 0 says nothing.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::probabilistic::higham_mary_gamma;
    /// use boundgate_verify::bounds::Kind;
    /// let u = 2f64.powi(-24);
    /// // Higham-Mary's P(lambda) = 1 - 2 exp(-lambda^2 (1 - u)^2 / 2) is about
    /// // 1 - 2 e^(-1/2) = -0.21 for lambda = 1: a bound that says nothing.
    /// assert!(higham_mary_gamma(100, u, 1.0).unwrap().kind.is_vacuous());
    /// // lambda = 3: 1 - 2 e^(-4.5) = 0.978.
    /// assert!(!higham_mary_gamma(100, u, 3.0).unwrap().kind.is_vacuous());
    /// assert!(!Kind::Deterministic.is_vacuous());
    /// assert!(Kind::Probabilistic { probability: 0.0 }.is_vacuous());
    /// ```
    pub fn is_vacuous(&self) -> bool {
        matches!(self, Kind::Probabilistic { probability } if *probability <= 0.0)
    }
}

/// Whether a bound is proven to hold or is reproduced as printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rigor {
    /// Proven here (derivation in the doc comment and docs/bounds.md): a
    /// violation is a bug in the kernel or in this crate.
    Rigorous,
    /// Exactly as printed in the source: a violation is a finding about the paper.
    Published,
}

/// What the bound's number bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// A bound on `|theta_n|` where `prod (1 + delta_i)^(+-1) = 1 + theta_n`.
    Theta,
    /// An absolute error `|computed - exact|` (per element for vector outputs).
    AbsoluteError,
    /// A relative error `|computed - exact| / |exact|`.
    RelativeError,
    /// A componentwise relative error `max_i |computed_i - exact_i| / |exact_i|`.
    ComponentwiseRelativeError,
    /// A normwise relative error `||computed - exact|| / ||exact||` (norm named by the bound).
    NormwiseRelativeError,
    /// A normwise backward error.
    BackwardError,
}

/// One hypothesis of a result, as checked on the input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hypothesis {
    /// The hypothesis as stated in the source, e.g. "n u < 1".
    pub statement: String,
    /// The evidence, e.g. "n u = 0.0049".
    pub detail: String,
}

/// An evaluated bound.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor, Source};
/// let b = Bound::deterministic(0.5, Quantity::AbsoluteError, Source::new("example", "Lemma 1", None), Rigor::Rigorous);
/// assert!(b.holds_for(0.5));
/// assert!(!b.holds_for(0.5000001));
/// assert_eq!(b.kind, Kind::Deterministic);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bound {
    /// The bound, rounded up (may be +inf, which holds trivially).
    pub value: f64,
    /// Deterministic or probabilistic.
    pub kind: Kind,
    /// What it bounds.
    pub quantity: Quantity,
    /// Where it comes from.
    pub source: Source,
    /// Proven or as printed.
    pub rigor: Rigor,
    /// The hypotheses that were checked and hold on this input.
    pub hypotheses: Vec<Hypothesis>,
}

impl Bound {
    /// A deterministic bound with no hypotheses recorded yet.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor, Source};
    /// use boundgate_verify::bounds::gamma::gamma_value;
    /// // gamma_2 for binary64 is 2u / (1 - 2u), u = 2^-53.
    /// let g = gamma_value(2, 2f64.powi(-53)).unwrap();
    /// let b = Bound::deterministic(g, Quantity::Theta, Source::new("Higham 2002", "Lemma 3.1", None), Rigor::Rigorous);
    /// assert_eq!(b.kind, Kind::Deterministic);
    /// assert_eq!(b.value, g);
    /// assert!(b.hypotheses.is_empty());
    /// // (1 + 2^-53)^2 - 1 = 2^-52 + 2^-106 is within gamma_2, as Lemma 3.1 says.
    /// assert!(b.holds_for(2f64.powi(-52) + 2f64.powi(-106)));
    /// ```
    pub fn deterministic(value: f64, quantity: Quantity, source: Source, rigor: Rigor) -> Bound {
        Bound {
            value,
            kind: Kind::Deterministic,
            quantity,
            source,
            rigor,
            hypotheses: Vec::new(),
        }
    }

    /// A probabilistic bound holding with probability at least `probability`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Kind, Quantity, Rigor, Source};
    /// let b = Bound::probabilistic(1e-6, 0.99, Quantity::RelativeError, Source::new("example", "Theorem 1", None), Rigor::Published);
    /// assert_eq!(b.kind, Kind::Probabilistic { probability: 0.99 });
    /// assert!(!b.kind.is_vacuous());
    /// // A probability <= 0 is kept, and marks the bound vacuous.
    /// let v = Bound::probabilistic(1e-6, -0.2, Quantity::RelativeError, Source::new("example", "Theorem 1", None), Rigor::Published);
    /// assert!(v.kind.is_vacuous());
    /// ```
    pub fn probabilistic(
        value: f64,
        probability: f64,
        quantity: Quantity,
        source: Source,
        rigor: Rigor,
    ) -> Bound {
        Bound {
            value,
            kind: Kind::Probabilistic { probability },
            quantity,
            source,
            rigor,
            hypotheses: Vec::new(),
        }
    }

    /// Records a hypothesis that was checked and holds.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// let b = Bound::deterministic(0.25, Quantity::AbsoluteError, Source::new("example", "Lemma 1", None), Rigor::Rigorous)
    ///     .with_hypothesis("n u < 1", "n u = 0.5")
    ///     .with_hypothesis("no underflow", "assumed");
    /// // Recorded in order, statement and evidence as given; the value is unchanged.
    /// assert_eq!(b.hypotheses.len(), 2);
    /// assert_eq!((b.hypotheses[0].statement.as_str(), b.hypotheses[0].detail.as_str()), ("n u < 1", "n u = 0.5"));
    /// assert_eq!(b.hypotheses[1].statement, "no underflow");
    /// assert_eq!(b.value, 0.25);
    /// ```
    pub fn with_hypothesis(
        mut self,
        statement: impl Into<String>,
        detail: impl Into<String>,
    ) -> Bound {
        self.hypotheses.push(Hypothesis {
            statement: statement.into(),
            detail: detail.into(),
        });
        self
    }

    /// Whether an observed (already upward-rounded) error is within the bound.
    /// NaN errors never hold.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::bounds::directed::mul_up;
    /// use boundgate_verify::bounds::dot::abs_dot_up;
    /// use boundgate_verify::bounds::gamma::gamma_value;
    /// use boundgate_verify::oracle::ExactSum;
    /// // Recursive summation of 3 terms: |s^ - s| <= gamma_2 sum |x_i| (Higham 2002, (4.4)).
    /// let x = [0.1, 0.2, 0.3];
    /// let naive = x[0] + x[1] + x[2];
    /// let mut s = ExactSum::new();
    /// s.add_slice(&x);
    /// let err = s.error_of(naive).absolute_up().unwrap();
    /// assert!(err > 0.0); // 0.1 + 0.2 + 0.3 is not exact in binary64
    /// let g = gamma_value(2, 2f64.powi(-53)).unwrap();
    /// let sum_abs = abs_dot_up(&x, &[1.0; 3]).unwrap(); // sum |x_i|, rounded up
    /// let b = Bound::deterministic(mul_up(g, sum_abs), Quantity::AbsoluteError,
    ///                              Source::new("Higham 2002", "Section 4.2", None), Rigor::Rigorous);
    /// assert!(b.holds_for(err));
    /// assert!(!b.holds_for(f64::NAN)); // NaN never holds
    /// ```
    pub fn holds_for(&self, observed: f64) -> bool {
        observed <= self.value
    }
}

/// Checks a hypothesis: `Ok(())` if `holds`, else the error naming it.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] naming `source`, `hypothesis` and the
/// `detail` when `holds` is false.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{require, Source};
/// let src = Source::new("Higham 2002", "Lemma 3.1", None);
/// assert!(require(true, &src, "n u < 1", || "n u = 0.5".into()).is_ok());
/// let err = require(false, &src, "n u < 1", || "n u = 2".into()).unwrap_err();
/// assert!(err.to_string().contains("n u < 1"));
/// ```
pub fn require(
    holds: bool,
    source: &Source,
    hypothesis: &str,
    detail: impl FnOnce() -> String,
) -> Result<()> {
    if holds {
        Ok(())
    } else {
        Err(VerifyError::HypothesisNotMet {
            source_ref: source.to_string(),
            hypothesis: hypothesis.to_string(),
            detail: detail(),
        })
    }
}
