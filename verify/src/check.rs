//! The check loop: a kernel's output, the exact oracle and a bound give a
//! [`Verdict`]; verdicts of repeated trials of a probabilistic bound give a
//! [`TrialsVerdict`].
//!
//! Errors come from the oracle already rounded up ([`ErrorMeasure`]), bounds
//! are rounded up by construction, so `error <= bound` is decided exactly
//! against an exact oracle. Against an enclosure oracle (the exact result
//! known within an interval) an error whose interval straddles its bound is
//! [`Outcome::Undecided`]: a violation is reported only when proven.
//! Relative errors are reported under their names: componentwise
//! (`max_i |e_i| / |y_i|`) and normwise in the infinity norm
//! (`||e||_inf / ||y||_inf`), both rounded up.

use crate::bounds::directed::{div_up, mul_up, sub_down, sub_up};
use crate::bounds::gamma::u64_up;
use crate::bounds::{Bound, Kind, Rigor};
use crate::error::{Result, VerifyError, require_same_len};
use crate::oracle::ErrorMeasure;
use crate::stats::{
    ElementCounts, ElementRateSums, ElementRateVerdict, StatVerdict, check_confidence,
    judge_violations,
};
use serde::Serialize;

/// Per-element bounds that share one provenance.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::ElementBounds;
/// let b = Bound::deterministic(1e-6, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
/// let eb = ElementBounds::uniform(b, 3);
/// assert_eq!(eb.values(), &[1e-6, 1e-6, 1e-6]);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ElementBounds {
    /// Provenance, kind, rigor and hypotheses; its `value` is the largest element bound.
    pub bound: Bound,
    #[serde(skip)]
    values: Vec<f64>,
    /// Why the elements whose value is `+inf` have no bound, when some have
    /// none ([`ElementBounds::partial`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    unbounded: Option<String>,
}

impl ElementBounds {
    /// The same bound for each of `n` elements. A published or probabilistic
    /// value of NaN (a formula evaluated on a non-finite quantity) is no
    /// bound, and neither is a rigorous `+inf`: the elements are marked
    /// without a bound (a published NaN reached the report as 'VIOLATED,
    /// bound NaN'; review, 2026-11-26). A rigorous NaN stays, and [`check`]
    /// calls it a violation: it is a bug in the bound, not a hypothesis.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = |v| Bound::deterministic(v, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Published);
    /// assert_eq!(ElementBounds::uniform(b(1.0), 2).bounded(1), Some(1.0));
    /// let nan = ElementBounds::uniform(b(f64::NAN), 2);
    /// assert_eq!(nan.bounded(0), None);
    /// assert!(nan.unbounded().unwrap().contains("NaN"));
    /// ```
    pub fn uniform(bound: Bound, n: usize) -> ElementBounds {
        let (value, unbounded) = if bound.value.is_nan() && bound.rigor != Rigor::Rigorous {
            (
                f64::INFINITY,
                Some(format!("{}: the bound evaluates to NaN", bound.source)),
            )
        } else {
            let infinite = bound.rigor == Rigor::Rigorous && bound.value == f64::INFINITY;
            (
                bound.value,
                infinite.then(|| format!("{}: the bound is +inf, not finite", bound.source)),
            )
        };
        ElementBounds {
            bound,
            values: vec![value; n],
            unbounded,
        }
    }

    /// One bound per element, where `+inf` marks an element the bound says
    /// nothing about, for `reason` (a hypothesis that fails there only: a
    /// term that overflows binary64, a result that overflows its storage).
    /// [`check`] judges the other elements, so a violation among them is
    /// still found, and calls the output [`Outcome::HypothesisNotMet`] when
    /// they hold. `bound.value` becomes the largest finite value. Without an
    /// infinite value this is [`ElementBounds::new`].
    ///
    /// # Errors
    /// As [`ElementBounds::new`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{check, ElementBounds, Outcome};
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// let b = Bound::deterministic(0.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let eb = ElementBounds::partial(b, vec![1e-6, f64::INFINITY], "a term overflows").unwrap();
    /// assert_eq!(eb.bound.value, 1e-6);
    /// let error = |e: f64| ErrorMeasure::Finite { absolute_up: e, absolute_down: None, relative_up: Some(e), exact: 1.0 };
    /// // Element 0 is judged: a violation there is found all the same.
    /// let errors = [error(1e-3), error(1.0)];
    /// assert!(check(&errors, Ok(eb.clone())).unwrap().is_violation());
    /// let errors = [error(0.0), error(1.0)];
    /// let v = check(&errors, Ok(eb)).unwrap();
    /// assert!(matches!(v.outcome, Outcome::HypothesisNotMet { .. }));
    /// assert_eq!((v.judged_elements, v.unbounded_elements), (1, 1));
    /// ```
    pub fn partial(
        bound: Bound,
        values: Vec<f64>,
        reason: impl Into<String>,
    ) -> Result<ElementBounds> {
        let mut bounds = ElementBounds::new(bound, values)?;
        if bounds.values.contains(&f64::INFINITY) {
            bounds.bound.value = largest_finite(&bounds.values);
            bounds.unbounded = Some(reason.into());
        }
        Ok(bounds)
    }

    /// Per-element bounds from per-element results: an element whose bound
    /// failed a hypothesis ([`VerifyError::HypothesisNotMet`]: its own sum may
    /// overflow, its result does not fit the storage) gets none, and the
    /// others are kept ([`ElementBounds::partial`], the first failure's reason
    /// and element named). The first successful bound is the template.
    ///
    /// # Errors
    /// The first error that is not a failed hypothesis; the first failed
    /// hypothesis when no element has a bound; [`VerifyError::Empty`] for no
    /// elements.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// use boundgate_verify::VerifyError;
    /// let ok = Bound::deterministic(1e-6, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let overflow = VerifyError::HypothesisNotMet {
    ///     source_ref: "ex".into(),
    ///     hypothesis: "no overflow".into(),
    ///     detail: "1e39 > 3.4e38".into(),
    /// };
    /// let eb = ElementBounds::collect([Ok(ok.clone()), Err(overflow.clone())]).unwrap();
    /// assert_eq!(eb.values(), &[1e-6, f64::INFINITY]);
    /// assert_eq!(eb.unbounded(), Some("ex: no overflow (1e39 > 3.4e38), first at element 1"));
    /// assert!(ElementBounds::collect([Err::<Bound, _>(overflow)]).is_err());
    /// ```
    pub fn collect(results: impl IntoIterator<Item = Result<Bound>>) -> Result<ElementBounds> {
        let mut template = None;
        let mut first_failure = None;
        let mut values = Vec::new();
        for (element, result) in results.into_iter().enumerate() {
            match result {
                Ok(b) => {
                    values.push(b.value);
                    template.get_or_insert(b);
                }
                Err(e @ VerifyError::HypothesisNotMet { .. }) => {
                    values.push(f64::INFINITY);
                    first_failure.get_or_insert((element, e));
                }
                Err(other) => return Err(other),
            }
        }
        match (template, first_failure) {
            (Some(t), None) => ElementBounds::new(t, values),
            (Some(t), Some((element, e))) => {
                let VerifyError::HypothesisNotMet {
                    source_ref,
                    hypothesis,
                    detail,
                } = e
                else {
                    unreachable!("only failed hypotheses are kept")
                };
                ElementBounds::partial(
                    t,
                    values,
                    format!("{source_ref}: {hypothesis} ({detail}), first at element {element}"),
                )
            }
            (None, Some((_, e))) => Err(e),
            (None, None) => Err(VerifyError::Empty {
                what: "output".into(),
            }),
        }
    }

    /// Element `i`'s bound, or `None` if it has none ([`ElementBounds::partial`]).
    /// Read this, not [`ElementBounds::values`]' `+inf`, where an element
    /// without a bound must not count as bounded (an infinite error is within
    /// an infinite bound).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let src = || Source::new("ex", "Lemma 1", None);
    /// let b = Bound::deterministic(0.0, Quantity::AbsoluteError, src(), Rigor::Rigorous);
    /// let eb = ElementBounds::partial(b, vec![1e-6, f64::INFINITY], "a term overflows").unwrap();
    /// assert_eq!(eb.values(), &[1e-6, f64::INFINITY]);
    /// assert_eq!((eb.bounded(0), eb.bounded(1), eb.bounded(2)), (Some(1e-6), None, None));
    /// // A published formula that overflowed keeps its +inf as a value.
    /// let p = Bound::deterministic(0.0, Quantity::AbsoluteError, src(), Rigor::Published);
    /// let eb = ElementBounds::new(p, vec![f64::INFINITY]).unwrap();
    /// assert_eq!(eb.bounded(0), Some(f64::INFINITY));
    /// ```
    pub fn bounded(&self, i: usize) -> Option<f64> {
        let v = *self.values.get(i)?;
        (self.unbounded.is_none() || v != f64::INFINITY).then_some(v)
    }

    /// The same bounds with each bounded element's value replaced by
    /// `f(element, value)`; elements without a bound keep none, with their
    /// reason (building anew with [`ElementBounds::new`] would turn their
    /// `+inf` into a bound that every error meets).
    ///
    /// An element where `f` fails a hypothesis of its own
    /// ([`VerifyError::HypothesisNotMet`]) is left without a bound, as in
    /// [`ElementBounds::collect`], and the others keep theirs (one element
    /// whose fp16 conversion may overflow voided every element's verdict
    /// until 2026-11-26).
    ///
    /// # Errors
    /// The first other error of `f`; a NaN or negative new value.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = Bound::deterministic(0.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let eb = ElementBounds::partial(b, vec![1.0, f64::INFINITY, 3.0], "overflow").unwrap();
    /// let more = eb.map_bounded(|i, v| if i == 2 {
    ///     Err(VerifyError::HypothesisNotMet {
    ///         source_ref: "ex".into(), hypothesis: "v < 3".into(), detail: format!("v = {v}"),
    ///     })
    /// } else {
    ///     Ok(v + 1.0)
    /// }).unwrap();
    /// assert_eq!((more.bounded(0), more.bounded(1), more.bounded(2)), (Some(2.0), None, None));
    /// assert_eq!(more.unbounded(), Some("overflow; ex: v < 3 (v = 3), first at element 2"));
    /// ```
    pub fn map_bounded(
        self,
        mut f: impl FnMut(usize, f64) -> Result<f64>,
    ) -> Result<ElementBounds> {
        let mut failure = None;
        let mut values = Vec::with_capacity(self.values.len());
        for i in 0..self.values.len() {
            let value = match self.bounded(i) {
                None => f64::INFINITY,
                Some(v) => match f(i, v) {
                    Ok(x) => x,
                    Err(VerifyError::HypothesisNotMet {
                        source_ref,
                        hypothesis,
                        detail,
                    }) => {
                        failure.get_or_insert_with(|| {
                            format!("{source_ref}: {hypothesis} ({detail}), first at element {i}")
                        });
                        f64::INFINITY
                    }
                    Err(other) => return Err(other),
                },
            };
            values.push(value);
        }
        let reason = match (self.unbounded, failure) {
            (Some(old), Some(new)) => Some(format!("{old}; {new}")),
            (old, new) => old.or(new),
        };
        match reason {
            Some(reason) => ElementBounds::partial(self.bound, values, reason),
            None => ElementBounds::new(self.bound, values),
        }
    }

    /// Why some elements have no bound ([`ElementBounds::partial`]), if any do.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = |v| Bound::deterministic(v, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// assert_eq!(ElementBounds::uniform(b(1e-6), 2).unbounded(), None);
    /// let eb = ElementBounds::partial(b(0.0), vec![1e-6, f64::INFINITY], "a term overflows").unwrap();
    /// assert_eq!(eb.unbounded(), Some("a term overflows"));
    /// // A rigorous +inf is no bound: marked, with its source.
    /// let inf = ElementBounds::uniform(b(f64::INFINITY), 2);
    /// assert!(inf.unbounded().unwrap().starts_with("ex, Lemma 1: "));
    /// assert_eq!(inf.bounded(0), None);
    /// ```
    pub fn unbounded(&self) -> Option<&str> {
        self.unbounded.as_deref()
    }

    /// One bound per element; `bound.value` becomes their maximum. NaN or
    /// negative values are refused.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for a NaN or negative value, naming
    /// the first such element.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// use boundgate_verify::VerifyError;
    /// let b = || Bound::deterministic(0.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let eb = ElementBounds::new(b(), vec![1e-6, 3e-6, 2e-6]).unwrap();
    /// assert_eq!(eb.bound.value, 3e-6);
    /// assert_eq!(eb.unbounded(), None);
    /// // A rigorous +inf marks its element unbounded; the value is the largest finite one.
    /// let eb = ElementBounds::new(b(), vec![1e-6, f64::INFINITY]).unwrap();
    /// assert_eq!((eb.bound.value, eb.bounded(1)), (1e-6, None));
    /// let err = ElementBounds::new(b(), vec![1e-6, -1e-6]).unwrap_err();
    /// assert!(matches!(err, VerifyError::InvalidParameter { ref reason, .. } if reason.starts_with("element 1:")));
    /// assert!(ElementBounds::new(b(), vec![f64::NAN]).is_err());
    /// ```
    pub fn new(mut bound: Bound, values: Vec<f64>) -> Result<ElementBounds> {
        if let Some(i) = values.iter().position(|v| v.is_nan() || *v < 0.0) {
            return Err(VerifyError::invalid(
                "bound",
                values[i],
                format!("element {i}: a bound must be a non-negative number"),
            ));
        }
        // A rigorous bound of +inf is no bound (it would hold for an infinite
        // error): such elements are marked, not judged, whichever code built
        // the values (a safety net: a later term once rebuilt partial bounds
        // this way; review, 2026-11-26). A published formula that overflows
        // keeps its +inf as evaluated.
        let unbounded = (bound.rigor == Rigor::Rigorous)
            .then(|| values.iter().position(|v| *v == f64::INFINITY))
            .flatten()
            .map(|i| {
                format!(
                    "{}: the bound is +inf at element {i}, not finite",
                    bound.source
                )
            });
        bound.value = if unbounded.is_some() {
            largest_finite(&values)
        } else {
            values.iter().copied().fold(0.0, f64::max)
        };
        Ok(ElementBounds {
            bound,
            values,
            unbounded,
        })
    }

    /// The per-element values.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = |v| Bound::deterministic(v, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Published);
    /// let eb = ElementBounds::new(b(0.0), vec![0.5, 0.25]).unwrap();
    /// assert_eq!(eb.values(), &[0.5, 0.25]);
    /// // A published NaN is no bound: its elements read +inf (and have no bound).
    /// let nan = ElementBounds::uniform(b(f64::NAN), 2);
    /// assert_eq!(nan.values(), &[f64::INFINITY, f64::INFINITY]);
    /// ```
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

/// The largest finite value (0 if none): an output's bound over the
/// elements that have one.
fn largest_finite(values: &[f64]) -> f64 {
    values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// Observed errors of one output, under their names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorSummary {
    /// Number of output elements.
    pub elements: usize,
    /// `max_i |computed_i - exact_i|`, rounded up.
    pub max_absolute: f64,
    /// `max_i |computed_i - exact_i| / |exact_i|` over elements whose exact value
    /// is nonzero, rounded up; `None` if there is none.
    pub componentwise_relative: Option<f64>,
    /// Elements with a nonzero error whose relative error has no upper bound:
    /// the exact value is zero (undefined), or an enclosure of it contains
    /// zero (unbounded; TRSV). Counted, never reported as a number.
    pub undefined_relative: usize,
    /// `||computed - exact||_inf / ||exact||_inf`, rounded up; `None` if the exact output is zero.
    pub normwise_relative_inf: Option<f64>,
}

/// What a check concluded.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Every element's error is within its bound.
    Pass,
    /// Some element's error is proven to exceed its bound; the worst one
    /// (largest ratio) is named.
    Violation {
        /// Index of the worst element.
        element: usize,
        /// Its error (rounded up).
        error: f64,
        /// Its bound.
        bound: f64,
    },
    /// No element is proven to exceed its bound, but the worst one's error
    /// is known only within an interval that straddles it: the oracle gave an
    /// enclosure of the exact result ([`ErrorMeasure::Finite`]'s
    /// `absolute_down`), too wide to decide. Neither a pass nor a violation.
    Undecided {
        /// Index of the worst undecided element.
        element: usize,
        /// The least error its enclosure allows (rounded down), at most `bound`.
        error_down: f64,
        /// The largest error its enclosure allows (rounded up), above `bound`.
        error_up: f64,
        /// Its bound.
        bound: f64,
    },
    /// The bound has no value on this input.
    HypothesisNotMet {
        /// The hypothesis that failed, with its source and evidence.
        reason: String,
    },
    /// The exact result is itself NaN or infinite (non-finite inputs): no error
    /// can be measured. `agree` says whether the kernel produced the same IEEE value.
    /// The element reported is one that disagrees if any does; where the
    /// bound has no value, a non-finite result whose exact value is finite
    /// comes first (its `exact` is then finite).
    NonFinite {
        /// The element reported.
        element: usize,
        /// The kernel's value (in JSON a number, or `"nan"`, `"inf"`,
        /// `"-inf"`: serde writes every non-finite `f64` as `null`, so NaN
        /// and the two infinities read alike; review, 2026-11-29).
        #[serde(serialize_with = "ieee_json")]
        computed: f64,
        /// The IEEE value of the exact computation (in JSON as `computed`).
        #[serde(serialize_with = "ieee_json")]
        exact: f64,
        /// Whether they are the same (both NaN, or the same infinity).
        agree: bool,
    },
}

/// An IEEE value in JSON: a number when finite, else `"nan"`, `"inf"` or
/// `"-inf"` (JSON has no such numbers, and serde writes them all as `null`).
fn ieee_json<S: serde::Serializer>(x: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    match *x {
        x if x.is_finite() => s.serialize_f64(x),
        x if x.is_nan() => s.serialize_str("nan"),
        x if x > 0.0 => s.serialize_str("inf"),
        _ => s.serialize_str("-inf"),
    }
}

/// The verdict on one output against one bound.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The observed errors.
    pub errors: ErrorSummary,
    /// The bound (its value is the largest element bound), if it has one.
    pub bound: Option<Bound>,
    /// `max_i error_i / bound_i`: how much of the bound the worst element uses
    /// (> 1 is a violation; +inf if an error is nonzero where the bound is 0).
    pub ratio: Option<f64>,
    /// The conclusion.
    pub outcome: Outcome,
    /// Elements judged against their bound: those with a finite exact value
    /// (0 when the bound has no value).
    pub judged_elements: usize,
    /// Of those, the elements whose error is proven to exceed their bound
    /// (the count behind the per-element judgement of probabilistic bounds).
    pub violated_elements: usize,
    /// Of those, the elements whose error may or may not exceed their bound
    /// (an enclosure oracle's interval straddles it).
    pub undecided_elements: usize,
    /// Elements the bound says nothing about: those whose own hypothesis
    /// failed ([`ElementBounds::partial`]), or every element when the whole
    /// bound failed one. Not judged, and the reason the outcome is
    /// [`Outcome::HypothesisNotMet`] when no judged element fails. Where no
    /// element has a bound, `bound` is `None` either way (a partial bound's
    /// value, the largest finite element bound, would read as 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unbounded_elements: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Verdict {
    /// True for [`Outcome::Violation`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{check, ElementBounds};
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// let b = Bound::deterministic(1.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let exact = |e: f64| ErrorMeasure::Finite { absolute_up: e, absolute_down: None, relative_up: Some(e), exact: 1.0 };
    /// let verdict = |e| check(&[e], Ok(ElementBounds::uniform(b.clone(), 1))).unwrap();
    /// // An error exactly at the bound holds; one ulp above violates.
    /// assert!(!verdict(exact(1.0)).is_violation());
    /// assert!(verdict(exact(1f64.next_up())).is_violation());
    /// // An enclosure straddling the bound is undecided: not proven a violation.
    /// let straddling = ErrorMeasure::Finite { absolute_up: 1.5, absolute_down: Some(0.5), relative_up: Some(1.5), exact: 1.0 };
    /// assert!(!verdict(straddling).is_violation());
    /// ```
    pub fn is_violation(&self) -> bool {
        matches!(self.outcome, Outcome::Violation { .. })
    }
    /// True for [`Outcome::Pass`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{check, ElementBounds};
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// let b = Bound::deterministic(1.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let verdict = |e| check(&[e], Ok(ElementBounds::uniform(b.clone(), 1))).unwrap();
    /// let enclosed = |down, up| ErrorMeasure::Finite { absolute_up: up, absolute_down: Some(down), relative_up: Some(up), exact: 1.0 };
    /// assert!(verdict(enclosed(0.5, 1.0)).is_pass());
    /// // Undecided is neither a pass nor a violation.
    /// let v = verdict(enclosed(0.5, 1.5));
    /// assert!(!v.is_pass() && !v.is_violation());
    /// ```
    pub fn is_pass(&self) -> bool {
        matches!(self.outcome, Outcome::Pass)
    }
}

/// Summarises per-element error measures.
///
/// # Example
/// ```
/// use boundgate_verify::check::summarize;
/// use boundgate_verify::oracle::ErrorMeasure;
/// let s = summarize(&[
///     ErrorMeasure::Finite { absolute_up: 1e-3, absolute_down: None, relative_up: Some(1e-3), exact: 1.0 },
///     // A nonzero error where the exact value is 0: no relative error, counted.
///     ErrorMeasure::Finite { absolute_up: 2e-3, absolute_down: None, relative_up: None, exact: 0.0 },
/// ]);
/// assert_eq!((s.elements, s.max_absolute), (2, 2e-3));
/// assert_eq!((s.componentwise_relative, s.undefined_relative), (Some(1e-3), 1));
/// // ||e|| / ||y|| = 2e-3 / 1, divided by the exact norm one ulp down and
/// // rounded up: one ulp above 2e-3.
/// assert_eq!(s.normwise_relative_inf, Some(2e-3f64.next_up()));
/// // A non-finite element makes the absolute error infinite.
/// let s = summarize(&[ErrorMeasure::NonFinite { computed: f64::NAN, exact: f64::INFINITY }]);
/// assert_eq!((s.max_absolute, s.normwise_relative_inf), (f64::INFINITY, None));
/// ```
pub fn summarize(errors: &[ErrorMeasure]) -> ErrorSummary {
    let mut max_absolute: f64 = 0.0;
    let mut componentwise: Option<f64> = None;
    let mut undefined_relative = 0;
    let mut max_exact: f64 = 0.0;
    for e in errors {
        match *e {
            ErrorMeasure::Finite {
                absolute_up,
                relative_up,
                exact,
                ..
            } => {
                max_absolute = max_absolute.max(absolute_up);
                max_exact = max_exact.max(exact.abs());
                match relative_up {
                    Some(r) => componentwise = Some(componentwise.map_or(r, |c: f64| c.max(r))),
                    None if absolute_up > 0.0 => undefined_relative += 1,
                    None => {}
                }
            }
            ErrorMeasure::NonFinite { .. } => max_absolute = f64::INFINITY,
        }
    }
    // The exact values are rounded to nearest; step one ulp down so that the
    // quotient is an upper bound on the true normwise relative error.
    // (A zero error is a zero relative error even when the step down reaches 0.)
    let normwise_relative_inf = (max_exact > 0.0).then(|| {
        if max_absolute == 0.0 {
            0.0
        } else {
            div_up(max_absolute, max_exact.next_down())
        }
    });
    ErrorSummary {
        elements: errors.len(),
        max_absolute,
        componentwise_relative: componentwise,
        undefined_relative,
        normwise_relative_inf,
    }
}

/// Checks one output: per-element errors (from the oracle) against per-element
/// bounds. A bound that failed a hypothesis gives [`Outcome::HypothesisNotMet`];
/// other bound errors (bad input) are returned as errors.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::{check, ElementBounds};
/// use boundgate_verify::oracle::ErrorMeasure;
/// let b = Bound::deterministic(1e-3, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
/// let errors = [ErrorMeasure::Finite { absolute_up: 2e-3, absolute_down: None, relative_up: Some(1e-3), exact: 2.0 }];
/// let v = check(&errors, Ok(ElementBounds::uniform(b, 1))).unwrap();
/// assert!(v.is_violation());
/// assert_eq!(v.ratio, Some(2.0));
/// ```
pub fn check(errors: &[ErrorMeasure], bounds: Result<ElementBounds>) -> Result<Verdict> {
    let summary = summarize(errors);
    // An element whose exact value is NaN or infinite (non-finite inputs) has
    // no error to judge, whatever the bound says; the other elements are
    // judged all the same, and a violation among them decides the outcome.
    // Reported, a disagreeing element before an agreeing one (the first
    // agreeing one hid NaN results elsewhere; review, 2026-11-26).
    let non_finite_where = |exact_finite: bool| {
        let of = |(element, e): (usize, &ErrorMeasure)| match *e {
            ErrorMeasure::NonFinite { computed, exact } if exact.is_finite() == exact_finite => {
                let agree = (computed.is_nan() && exact.is_nan()) || computed == exact;
                Some(Outcome::NonFinite {
                    element,
                    computed,
                    exact,
                    agree,
                })
            }
            _ => None,
        };
        let all: Vec<Outcome> = errors.iter().enumerate().filter_map(of).collect();
        let disagreeing = all
            .iter()
            .position(|o| matches!(o, Outcome::NonFinite { agree: false, .. }));
        disagreeing
            .or((!all.is_empty()).then_some(0))
            .map(|i| all[i].clone())
    };
    let non_finite = non_finite_where(false);
    let bounds = match bounds {
        Ok(b) => b,
        // Non-finite inputs: a bound without a value (whatever the reason)
        // leaves the non-finite element to report, as before any judging; a
        // non-finite result where the exact one is finite first, if any.
        Err(e) if non_finite.is_some() => {
            let reported = match non_finite_where(true) {
                Some(worse) => worse,
                None => non_finite.expect("checked"),
            };
            let failed_hypothesis = matches!(e, VerifyError::HypothesisNotMet { .. });
            return Ok(Verdict {
                errors: summary,
                bound: None,
                ratio: None,
                outcome: reported,
                judged_elements: 0,
                violated_elements: 0,
                undecided_elements: 0,
                unbounded_elements: if failed_hypothesis { errors.len() } else { 0 },
            });
        }
        Err(VerifyError::HypothesisNotMet {
            source_ref,
            hypothesis,
            detail,
        }) => {
            return Ok(Verdict {
                errors: summary,
                bound: None,
                ratio: None,
                outcome: Outcome::HypothesisNotMet {
                    reason: format!("{source_ref}: {hypothesis} ({detail})"),
                },
                judged_elements: 0,
                violated_elements: 0,
                undecided_elements: 0,
                unbounded_elements: errors.len(),
            });
        }
        Err(other) => return Err(other),
    };
    require_same_len("errors and bounds", errors.len(), bounds.values.len())?;

    // The worst element: a violated one before any other, then an undecided
    // one, then by ratio. The outcome is decided on every element, not on the
    // ratio alone: an infinite error under an infinite bound holds (ratio 1,
    // not inf/inf = NaN, which compared below everything and once let a later
    // violation pass; found by review, 2026-11-25).
    #[derive(Clone, Copy, PartialEq, PartialOrd)]
    enum Standing {
        Holds,
        Undecided,
        Violated,
    }
    struct Judged {
        element: usize,
        error: f64,
        error_down: f64,
        bound: f64,
        ratio: f64,
        standing: Standing,
    }
    let mut worst: Option<Judged> = None;
    let (mut judged_elements, mut violated_elements, mut undecided_elements) = (0usize, 0, 0);
    let mut unbounded_elements = 0usize;
    for (element, e) in errors.iter().enumerate() {
        let Some(bound) = bounds.bounded(element) else {
            unbounded_elements += 1;
            continue;
        };
        // `error_down` proves `error > bound` when above it (see `absolute_down`).
        let (error, error_down) = match *e {
            ErrorMeasure::Finite {
                absolute_up,
                absolute_down,
                ..
            } => (absolute_up, absolute_down),
            ErrorMeasure::NonFinite { exact, .. } if !exact.is_finite() => continue,
            // The exact value is finite but the kernel's is not: unbounded error.
            ErrorMeasure::NonFinite { .. } => (f64::INFINITY, None),
        };
        judged_elements += 1;
        let ratio = if error == 0.0 {
            0.0
        } else if bound == 0.0 {
            f64::INFINITY
        } else if error.is_infinite() && bound.is_infinite() {
            1.0
        } else {
            error / bound
        };
        // NaN compares false: a NaN bound (or error) is a violation.
        let exceeds = error > bound || error.is_nan() || bound.is_nan();
        let standing = match error_down {
            _ if !exceeds => Standing::Holds,
            Some(down) if down <= bound && !bound.is_nan() => Standing::Undecided,
            _ => Standing::Violated,
        };
        violated_elements += usize::from(standing == Standing::Violated);
        undecided_elements += usize::from(standing == Standing::Undecided);
        let beats = |w: &Judged| {
            standing > w.standing || (standing == w.standing && ratio.total_cmp(&w.ratio).is_gt())
        };
        if worst.as_ref().is_none_or(beats) {
            worst = Some(Judged {
                element,
                error,
                error_down: error_down.unwrap_or(error),
                bound,
                ratio,
                standing,
            });
        }
    }
    let ratio = worst.as_ref().map(|w| w.ratio);
    // No element has a bound: reported as when the whole bound failed a
    // hypothesis (no bound, every element counted without one).
    let every_unbounded = unbounded_elements > 0 && unbounded_elements == errors.len();
    let outcome = match worst {
        Some(w) if w.standing == Standing::Violated => Outcome::Violation {
            element: w.element,
            error: w.error,
            bound: w.bound,
        },
        Some(w) if w.standing == Standing::Undecided => Outcome::Undecided {
            element: w.element,
            error_down: w.error_down,
            error_up: w.error,
            bound: w.bound,
        },
        // A non-finite exact result is reported first, as when the whole
        // bound has no value.
        _ => match non_finite {
            Some(outcome) => outcome,
            None if every_unbounded => Outcome::HypothesisNotMet {
                reason: format!(
                    "{} (no element has a bound)",
                    bounds.unbounded.as_deref().unwrap_or_default()
                ),
            },
            None if unbounded_elements > 0 => Outcome::HypothesisNotMet {
                reason: format!(
                    "{} ({unbounded_elements} of {} elements without a bound; the \
                     {judged_elements} judged hold)",
                    bounds.unbounded.as_deref().unwrap_or_default(),
                    errors.len()
                ),
            },
            None => Outcome::Pass,
        },
    };
    // A pass must mean every element passed, not just the worst by ratio. A
    // non-finite result against a finite exact value has an infinite error,
    // within only an infinite bound (a published formula that overflowed);
    // the assertion said "never" until the fuzzer met one (2026-11-25).
    debug_assert!(
        !matches!(outcome, Outcome::Pass)
            || errors.iter().zip(&bounds.values).all(|(e, b)| match e {
                ErrorMeasure::Finite { absolute_up, .. } => absolute_up <= b,
                ErrorMeasure::NonFinite { exact, .. } => {
                    exact.is_finite() && *b == f64::INFINITY
                }
            })
    );
    Ok(Verdict {
        errors: summary,
        bound: (!every_unbounded).then_some(bounds.bound),
        ratio,
        outcome,
        judged_elements,
        violated_elements,
        undecided_elements,
        unbounded_elements,
    })
}

/// The judgement of a probabilistic bound over independent trials.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct TrialsVerdict {
    /// Trials counted: those with at least one judged element (one with a
    /// bound, its hypotheses held, and a finite exact value), and an empty
    /// output's (nothing to violate). Elements without a bound count as
    /// holding in the per-element test (conservative: its size stays below
    /// `1 - c`, at some cost in power).
    pub judged: u64,
    /// Trials skipped because no element could be judged: the whole bound's
    /// hypothesis failed, every element's did, or no exact value was finite
    /// (all decided by the inputs, never by the violations).
    pub skipped: u64,
    /// Per-trial probability that the bound holds, after a union bound over
    /// the output elements (`1 - m (1 - p)`), minimised over trials.
    pub claimed_probability: f64,
    /// Judged trials with no proven violation but an [undecided](Outcome::Undecided)
    /// element (an enclosure oracle too wide to decide). They, and their
    /// undecided elements, are counted as violations, so that a consistent
    /// verdict is still proven; an inconsistent one with `undecided > 0` may
    /// be an artefact of the oracle's width.
    #[serde(default)]
    pub undecided: u64,
    /// The binomial judgement of the trial claim (Clopper-Pearson), if any
    /// trial was judged.
    pub statistics: Option<StatVerdict>,
    /// The judgement of the per-element claim `p` (Hoeffding on the fraction
    /// of violating elements), for outputs of more than one element: the test
    /// that still says something when the union bound makes the trial claim
    /// vacuous. Absent in reports written before 2026-11-25.
    #[serde(default)]
    pub per_element: Option<ElementRateVerdict>,
}

impl TrialsVerdict {
    /// True when the counts are consistent with the claim (or nothing was
    /// judged): the trial test and, for multi-element outputs, the
    /// per-element test, each at half the significance (Bonferroni) unless the
    /// trial claim is vacuous, so that a true claim is rejected with
    /// probability at most `1 - confidence` ([`judge_trials`]).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{check, judge_trials, ElementBounds};
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// // One-element outputs, each claimed within 1.0 with probability 0.9.
    /// let b = Bound::probabilistic(1.0, 0.9, Quantity::AbsoluteError, Source::new("ex", "Thm", None), Rigor::Published);
    /// let trial = |e: f64| {
    ///     let e = ErrorMeasure::Finite { absolute_up: e, absolute_down: None, relative_up: None, exact: 0.0 };
    ///     check(&[e], Ok(ElementBounds::uniform(b.clone(), 1))).unwrap()
    /// };
    /// let trials = |violating: usize| -> Vec<_> {
    ///     (0..100).map(|t| trial(if t < violating { 2.0 } else { 0.5 })).collect()
    /// };
    /// // 5 violations in 100 trials are consistent with a 10% rate; 30 are not.
    /// assert!(judge_trials(&trials(5), 0.99).unwrap().consistent());
    /// assert!(!judge_trials(&trials(30), 0.99).unwrap().consistent());
    /// // Nothing judged: consistent.
    /// assert!(judge_trials(&[], 0.99).unwrap().consistent());
    /// ```
    pub fn consistent(&self) -> bool {
        self.statistics.as_ref().is_none_or(|s| s.consistent)
            && self.per_element.as_ref().is_none_or(|s| s.consistent)
    }
}

/// The confidence of each of [`judge_trials`]' two tests when both run,
/// `(1 + confidence) / 2` (Bonferroni).
///
/// # Errors
/// A confidence outside (0, 1), or too close to 1 for its split to stay
/// below 1: only `1 - 2^-53`, the largest `f64` below 1, splits to 1 itself,
/// which was reported as "confidence = 1" (review, 2026-11-25).
///
/// # Example
/// ```
/// use boundgate_verify::check::split_confidence;
/// assert_eq!(split_confidence(0.99).unwrap(), 0.995);
/// assert!(split_confidence(1.0 - 2f64.powi(-53)).is_err());
/// ```
pub fn split_confidence(confidence: f64) -> Result<f64> {
    check_confidence(confidence)?;
    let each = (1.0 + confidence) / 2.0;
    if each >= 1.0 {
        return Err(VerifyError::invalid(
            "confidence",
            confidence,
            "too close to 1 to split between the trial and per-element tests; at most 1 - 2^-52",
        ));
    }
    Ok(each)
}

/// Judges a probabilistic bound over trials: each verdict is one independent
/// trial.
///
/// - **Trial claim.** A trial violates if any element violates. For an output
///   of `m` elements each bounded with probability `p`, a trial holds with
///   probability at least `1 - m (1 - p)` (union bound). The violation count
///   must be consistent with that (one-sided exact binomial test).
/// - **Per-element claim**, for outputs of more than one element: each element
///   violates with probability at most `1 - p`, whatever the dependence inside
///   an output; the mean fraction of violating elements (over the whole
///   output: an element that cannot be judged counts as holding) must be
///   consistent with that ([`judge_element_rate`](crate::stats::judge_element_rate)). This test still has power when
///   `m (1 - p) >= 1` makes the trial claim vacuous (a GEMM of thousands of
///   elements).
///
/// Whether the second test runs depends on the output sizes and on which
/// trials are skipped (their inputs), never on the violations. When both run
/// and the trial claim is not vacuous, each runs at confidence
/// `(1 + confidence) / 2`, so the pair rejects a true claim with probability
/// at most `1 - confidence`; a vacuous trial claim cannot be rejected, and the
/// per-element test then runs at `confidence` itself.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::{check, judge_trials, ElementBounds};
/// use boundgate_verify::oracle::ErrorMeasure;
/// // A 100-element output, each element claimed within 1e-3 with probability
/// // 0.99: the union claim 1 - 100 * 0.01 = 0 is vacuous.
/// let b = Bound::probabilistic(1e-3, 0.99, Quantity::AbsoluteError, Source::new("ex", "Thm", None), Rigor::Published);
/// let trial = |violating: usize| {
///     let errors: Vec<ErrorMeasure> = (0..100)
///         .map(|i| ErrorMeasure::Finite { absolute_up: if i < violating { 2e-3 } else { 0.0 }, absolute_down: None, relative_up: None, exact: 0.0 })
///         .collect();
///     check(&errors, Ok(ElementBounds::uniform(b.clone(), 100))).unwrap()
/// };
/// let fine: Vec<_> = (0..20).map(|_| trial(1)).collect();
/// assert!(judge_trials(&fine, 0.99).unwrap().consistent());
/// // Half of every output violates: the trial test cannot tell, the per-element one can.
/// let bad: Vec<_> = (0..20).map(|_| trial(50)).collect();
/// let v = judge_trials(&bad, 0.99).unwrap();
/// assert!(v.statistics.as_ref().unwrap().vacuous);
/// assert_eq!(v.per_element.as_ref().unwrap().confidence, 0.99); // no Bonferroni share for a vacuous claim
/// assert!(v.statistics.as_ref().unwrap().consistent && !v.per_element.as_ref().unwrap().consistent);
/// assert!(!v.consistent());
/// ```
pub fn judge_trials(verdicts: &[Verdict], confidence: f64) -> Result<TrialsVerdict> {
    let mut judge = TrialsJudge::new();
    for v in verdicts {
        judge.add(v);
    }
    judge.finish(confidence)
}

/// [`judge_trials`], one trial at a time: [`add`](TrialsJudge::add) each
/// verdict as it comes, then [`finish`](TrialsJudge::finish). It keeps the
/// counts, the claimed probabilities and the per-element sums
/// ([`ElementRateSums`]), a few words whatever the number of trials, and
/// gives the same [`TrialsVerdict`] (to the bit) as [`judge_trials`] on the
/// same verdicts in the same order; [`judge_trials`] is this loop.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::{check, judge_trials, ElementBounds, TrialsJudge};
/// use boundgate_verify::oracle::ErrorMeasure;
/// let b = Bound::probabilistic(1e-3, 0.99, Quantity::AbsoluteError, Source::new("ex", "Thm", None), Rigor::Published);
/// let trial = |error: f64| {
///     let e = ErrorMeasure::Finite { absolute_up: error, absolute_down: None, relative_up: None, exact: 0.0 };
///     check(&[e], Ok(ElementBounds::uniform(b.clone(), 1))).unwrap()
/// };
/// let mut judge = TrialsJudge::new();
/// let mut kept = Vec::new(); // only to compare: the judge needs no list
/// for t in 0..1000 {
///     let v = trial(if t % 100 == 0 { 2e-3 } else { 1e-4 });
///     judge.add(&v);
///     kept.push(v);
/// }
/// let streamed = judge.finish(0.999).unwrap();
/// assert_eq!(streamed, judge_trials(&kept, 0.999).unwrap());
/// assert_eq!((streamed.judged, streamed.statistics.as_ref().unwrap().violations), (1000, 10));
/// assert!(streamed.consistent());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TrialsJudge {
    judged: u64,
    skipped: u64,
    violations: u64,
    undecided: u64,
    /// The trial claim `1 - m (1 - p)`, minimised over the judged trials.
    claimed: f64,
    /// The per-element claim `p`, minimised over the judged trials.
    claimed_per_element: f64,
    /// Some judged trial's output has more than one element: the
    /// per-element test runs.
    several_elements: bool,
    element_rate: ElementRateSums,
    /// The first claimed probability that is NaN or above 1 (a bug in a
    /// bound): [`finish`](TrialsJudge::finish) refuses it.
    invalid_probability: Option<f64>,
}

impl Default for TrialsJudge {
    fn default() -> TrialsJudge {
        TrialsJudge::new()
    }
}

impl TrialsJudge {
    /// No trials yet.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::check::TrialsJudge;
    /// let v = TrialsJudge::new().finish(0.99).unwrap();
    /// assert_eq!((v.judged, v.skipped), (0, 0));
    /// assert!(v.statistics.is_none() && v.consistent());
    /// ```
    pub fn new() -> TrialsJudge {
        TrialsJudge {
            judged: 0,
            skipped: 0,
            violations: 0,
            undecided: 0,
            claimed: 1.0,
            claimed_per_element: 1.0,
            several_elements: false,
            element_rate: ElementRateSums::new(),
            invalid_probability: None,
        }
    }

    /// Adds one trial's verdict (the next in trial order).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::{check, ElementBounds, TrialsJudge};
    /// use boundgate_verify::error::VerifyError;
    /// use boundgate_verify::oracle::ErrorMeasure;
    /// let b = Bound::probabilistic(1e-3, 0.99, Quantity::AbsoluteError, Source::new("ex", "Thm", None), Rigor::Published);
    /// let e = ErrorMeasure::Finite { absolute_up: 1e-4, absolute_down: None, relative_up: None, exact: 0.0 };
    /// let mut judge = TrialsJudge::new();
    /// judge.add(&check(&[e], Ok(ElementBounds::uniform(b, 1))).unwrap());
    /// // A bound without a value on its input (a hypothesis failed): skipped.
    /// let refused = Err(VerifyError::HypothesisNotMet { source_ref: "ex".into(), hypothesis: "n u < 1".into(), detail: "n u = 2".into() });
    /// judge.add(&check(&[e], refused).unwrap());
    /// let v = judge.finish(0.99).unwrap();
    /// assert_eq!((v.judged, v.skipped), (1, 1));
    /// ```
    pub fn add(&mut self, v: &Verdict) {
        let probability = match v.bound.as_ref().map(|b| b.kind) {
            Some(Kind::Probabilistic { probability }) => probability,
            Some(Kind::Deterministic) => 1.0,
            None => {
                self.skipped += 1;
                return;
            }
        };
        // `min` below would pass over a NaN and cap a value above 1 at 1,
        // judging the bound as deterministic (review, 2026-11-26).
        if probability.is_nan() || probability > 1.0 {
            self.invalid_probability.get_or_insert(probability);
        }
        match v.outcome {
            Outcome::Pass => {}
            Outcome::Violation { .. } => self.violations += 1,
            // Counted against the claim: `consistent` stays a proof; an
            // `inconsistent` verdict with `undecided > 0` is not one.
            Outcome::Undecided { .. } => {
                self.violations += 1;
                self.undecided += 1;
            }
            // Some exact values are not finite, and every element that could
            // be judged held. Skipping the trial would drop only trials
            // without a violation (a trial with one is a Violation whatever
            // else it holds) and bias the count against the claim.
            // Likewise where some elements have no bound (a hypothesis of
            // their own failed) and the judged ones hold: a violation among
            // those is a Violation, so skipping only these trials biased the
            // count against the claim (review, 2026-11-26: half the elements
            // without a bound took the rejection rate of a true claim from
            // 1% to 82%).
            Outcome::NonFinite { .. } | Outcome::HypothesisNotMet { .. }
                if v.judged_elements > 0 => {}
            Outcome::HypothesisNotMet { .. } | Outcome::NonFinite { .. } => {
                self.skipped += 1;
                return;
            }
        }
        self.judged += 1;
        self.claimed = self
            .claimed
            .min(trial_claim(v.errors.elements, probability));
        self.claimed_per_element = self.claimed_per_element.min(probability);
        if v.errors.elements > 0 {
            self.several_elements |= v.errors.elements > 1;
            self.element_rate.add(ElementCounts {
                elements: v.errors.elements as u64,
                violating: (v.violated_elements + v.undecided_elements) as u64,
            });
        }
    }

    /// The judgement of the trials added so far at `confidence`
    /// ([`judge_trials`] describes the two tests).
    ///
    /// # Errors
    /// As [`judge_trials`]: a confidence outside (0, 1), or one too close to
    /// 1 to split ([`split_confidence`]) when both tests run.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::check::TrialsJudge;
    /// assert!(TrialsJudge::new().finish(1.0).is_err());
    /// ```
    pub fn finish(&self, confidence: f64) -> Result<TrialsVerdict> {
        check_confidence(confidence)?;
        if let Some(p) = self.invalid_probability {
            return Err(VerifyError::invalid(
                "claimed probability",
                p,
                "a bound's probability must not be NaN or above 1",
            ));
        }
        let several_elements = self.several_elements;
        let claimed = self.claimed;
        // A vacuous trial claim can never be rejected, so the per-element test
        // then needs no share of the significance (vacuity follows from p and m).
        let each = if several_elements && claimed > 0.0 {
            split_confidence(confidence)?
        } else {
            confidence
        };
        let statistics = if self.judged > 0 {
            Some(judge_violations(
                self.violations,
                self.judged,
                claimed,
                each,
            )?)
        } else {
            None
        };
        let per_element = if several_elements {
            Some(self.element_rate.judge(self.claimed_per_element, each)?)
        } else {
            None
        };
        Ok(TrialsVerdict {
            judged: self.judged,
            skipped: self.skipped,
            claimed_probability: claimed,
            undecided: self.undecided,
            statistics,
            per_element,
        })
    }
}

/// The probability that a trial of `elements` outputs holds everywhere, from
/// a per-element claim `probability` by the union bound: `1 - m (1 - p)`
/// (`m = max(elements, 1)`), rounded down, so that the allowed violation rate
/// `m (1 - p)` is rounded up and a claim is never judged stricter than it
/// is. Rounded to nearest it came out up to half an ulp above the union
/// bound, which shifts a p-value by about `k` ulps relative at `k` observed
/// violations, past the judging margin (review, 2026-11-29).
fn trial_claim(elements: usize, probability: f64) -> f64 {
    let m = u64_up(elements.max(1) as u64);
    sub_down(1.0, mul_up(m, sub_up(1.0, probability)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`trial_claim`] is never above the exact `1 - m (1 - p)` (exact
    /// rationals; seed 29, 20 000 draws of `p` and `m`, printed on failure),
    /// and equal to it where that is a binary64 number.
    #[test]
    fn trial_claims_are_rounded_down() {
        use rand::{RngExt, SeedableRng};
        use rug::Rational;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let mut below_nearest = 0;
        for _ in 0..20_000 {
            let p = 1.0 - rng.random::<f64>() * 10f64.powi(-rng.random_range(1..12));
            let m: usize = rng.random_range(1..1_000_000);
            let got = trial_claim(m, p);
            let exact = Rational::from(1)
                - Rational::from(m) * (Rational::from(1) - Rational::from_f64(p).unwrap());
            let got_exact = Rational::from_f64(got).unwrap();
            assert!(
                got_exact <= exact,
                "p = {p:e}, m = {m}: {got:e} above the union bound"
            );
            if Rational::from_f64(1.0 - m as f64 * (1.0 - p)).unwrap() > exact {
                below_nearest += 1;
            }
        }
        // The old rounding to nearest was above the bound in many draws.
        assert!(below_nearest > 1000, "{below_nearest}");
        assert_eq!(trial_claim(4, 0.75), 0.0);
        assert_eq!(trial_claim(0, 0.5), 0.5);
    }

    /// JSON tells NaN from the two infinities in a non-finite verdict: all
    /// three were `null` until 2026-11-29.
    #[test]
    fn non_finite_values_are_named_in_json() {
        let outcome = |computed, exact| Outcome::NonFinite {
            element: 0,
            computed,
            exact,
            agree: false,
        };
        let json = |o: &Outcome| serde_json::to_value(o).unwrap();
        let o = json(&outcome(f64::NAN, f64::INFINITY));
        assert_eq!(
            (o["computed"].as_str(), o["exact"].as_str()),
            (Some("nan"), Some("inf"))
        );
        let o = json(&outcome(f64::NEG_INFINITY, 2.5));
        assert_eq!(o["computed"].as_str(), Some("-inf"));
        assert_eq!(o["exact"].as_f64(), Some(2.5));
    }
    use crate::bounds::{Quantity, Rigor, Source};
    use crate::stats::judge_element_rate;

    fn bound(value: f64) -> Bound {
        Bound::deterministic(
            value,
            Quantity::AbsoluteError,
            Source::new("t", "t", None),
            Rigor::Rigorous,
        )
    }

    /// A deterministic published bound (an overflowed formula keeps its +inf).
    fn published(value: f64) -> Bound {
        Bound::deterministic(
            value,
            Quantity::AbsoluteError,
            Source::new("t", "t", None),
            Rigor::Published,
        )
    }

    /// A published bound holding with probability `p`.
    fn probabilistic(value: f64, p: f64) -> Bound {
        Bound::probabilistic(
            value,
            p,
            Quantity::AbsoluteError,
            Source::new("t", "t", None),
            Rigor::Published,
        )
    }

    fn finite(abs: f64, exact: f64) -> ErrorMeasure {
        ErrorMeasure::Finite {
            absolute_up: abs,
            absolute_down: None,
            relative_up: (exact != 0.0).then(|| abs / exact.abs()),
            exact,
        }
    }

    /// Elements without a bound are not judged; the others are, and decide
    /// a violation or an undecided element; when they hold the output is a
    /// hypothesis not met, naming the count; a non-finite exact result is
    /// reported first; without an infinite value `partial` is `new`.
    #[test]
    fn partial_bounds_judge_the_bounded_elements() {
        let inf = f64::INFINITY;
        let partial = |values: Vec<f64>| ElementBounds::partial(bound(0.0), values, "why").unwrap();
        let v = check(
            &[finite(1.0, 1.0), finite(5.0, 1.0), finite(0.5, 1.0)],
            Ok(partial(vec![2.0, inf, 0.25])),
        )
        .unwrap();
        assert!(v.is_violation(), "{v:?}");
        assert_eq!(
            (v.judged_elements, v.violated_elements, v.unbounded_elements),
            (2, 1, 1)
        );
        assert_eq!(v.bound.as_ref().unwrap().value, 2.0);
        let v = check(
            &[finite(1.0, 1.0), finite(5.0, 1.0)],
            Ok(partial(vec![2.0, inf])),
        )
        .unwrap();
        let Outcome::HypothesisNotMet { reason } = &v.outcome else {
            panic!("{v:?}")
        };
        assert!(
            reason.contains("why (1 of 2 elements without a bound; the 1 judged hold)"),
            "{reason}"
        );
        assert_eq!(v.ratio, Some(0.5));
        let enclosed = ErrorMeasure::Finite {
            absolute_up: 3.0,
            absolute_down: Some(1.0),
            relative_up: None,
            exact: 1.0,
        };
        let v = check(&[enclosed, finite(0.0, 1.0)], Ok(partial(vec![2.0, inf]))).unwrap();
        assert!(matches!(v.outcome, Outcome::Undecided { .. }), "{v:?}");
        let nan = ErrorMeasure::NonFinite {
            computed: f64::NAN,
            exact: f64::NAN,
        };
        let v = check(&[nan, finite(1.0, 1.0)], Ok(partial(vec![1.0, inf]))).unwrap();
        assert!(matches!(v.outcome, Outcome::NonFinite { .. }), "{v:?}");
        let all = check(&[finite(1.0, 1.0)], Ok(partial(vec![inf]))).unwrap();
        assert!(matches!(all.outcome, Outcome::HypothesisNotMet { .. }));
        assert_eq!((all.judged_elements, all.ratio), (0, None));
        // No element with a bound reads as a bound that failed its hypothesis
        // as a whole: no bound (its value would be the largest finite element
        // bound, 0), every element counted (2026-11-26; it was 'bound 0').
        let all = check(
            &[finite(1.0, 1.0), finite(0.0, 1.0)],
            Ok(partial(vec![inf, inf])),
        )
        .unwrap();
        let whole = check(
            &[finite(1.0, 1.0), finite(0.0, 1.0)],
            Err(VerifyError::HypothesisNotMet {
                source_ref: "s".into(),
                hypothesis: "h".into(),
                detail: "d".into(),
            }),
        )
        .unwrap();
        for v in [&all, &whole] {
            assert_eq!(v.bound, None, "{v:?}");
            assert_eq!((v.judged_elements, v.unbounded_elements), (0, 2), "{v:?}");
        }
        let Outcome::HypothesisNotMet { reason } = &all.outcome else {
            panic!("{all:?}")
        };
        assert_eq!(reason, "why (no element has a bound)");
        let none = partial(vec![1.0, 2.0]);
        assert_eq!(
            none,
            ElementBounds::new(bound(0.0), vec![1.0, 2.0]).unwrap()
        );
        assert!(none.unbounded().is_none());
        assert!(ElementBounds::partial(bound(0.0), vec![f64::NAN], "why").is_err());
        // The JSON of a verdict without unbounded elements is unchanged.
        let json =
            serde_json::to_string(&check(&[finite(0.0, 1.0), finite(0.0, 1.0)], Ok(none)).unwrap())
                .unwrap();
        assert!(!json.contains("unbounded"), "{json}");
    }

    #[test]
    fn pass_needs_every_element() {
        let errors = [finite(1.0, 10.0), finite(3.0, 10.0)];
        let eb = ElementBounds::new(bound(0.0), vec![100.0, 2.0]).unwrap();
        let v = check(&errors, Ok(eb)).unwrap();
        assert_eq!(
            v.outcome,
            Outcome::Violation {
                element: 1,
                error: 3.0,
                bound: 2.0
            }
        );
        assert_eq!(v.bound.unwrap().value, 100.0);
    }

    #[test]
    fn exact_zero_result_has_no_relative_error() {
        let errors = [finite(1e-20, 0.0), finite(0.0, 0.0)];
        let s = summarize(&errors);
        assert_eq!(s.componentwise_relative, None);
        assert_eq!(s.undefined_relative, 1);
        assert_eq!(s.normwise_relative_inf, None);
    }

    #[test]
    fn kernel_overflow_against_finite_exact_is_a_violation() {
        let errors = [ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: 1.0,
        }];
        let v = check(&errors, Ok(ElementBounds::uniform(bound(1e300), 1))).unwrap();
        assert!(v.is_violation());
    }

    /// The element reported is the worst: one that disagrees before one
    /// that agrees, and without a bound a non-finite result whose exact
    /// value is finite before either (the first agreeing NaN hid a NaN
    /// against an exact 1; review, 2026-11-26).
    #[test]
    fn the_non_finite_element_reported_is_the_worst() {
        let nan = |exact| ErrorMeasure::NonFinite {
            computed: f64::NAN,
            exact,
        };
        let errors = [nan(f64::NAN), nan(f64::INFINITY), nan(1.0)];
        let no_bound = || {
            Err(VerifyError::HypothesisNotMet {
                source_ref: "t".into(),
                hypothesis: "h".into(),
                detail: "d".into(),
            })
        };
        let v = check(&errors, no_bound()).unwrap();
        assert!(
            matches!(
                v.outcome,
                Outcome::NonFinite {
                    element: 2,
                    agree: false,
                    ..
                }
            ),
            "{:?}",
            v.outcome
        );
        let v = check(&errors[..2], no_bound()).unwrap();
        assert!(
            matches!(
                v.outcome,
                Outcome::NonFinite {
                    element: 1,
                    agree: false,
                    ..
                }
            ),
            "{:?}",
            v.outcome
        );
    }

    #[test]
    fn non_finite_exact_is_reported_not_judged() {
        let errors = [ErrorMeasure::NonFinite {
            computed: f64::NAN,
            exact: f64::NAN,
        }];
        let v = check(&errors, Ok(ElementBounds::uniform(bound(1.0), 1))).unwrap();
        assert!(matches!(v.outcome, Outcome::NonFinite { agree: true, .. }));
    }

    #[test]
    fn hypothesis_failure_is_a_verdict_other_errors_are_errors() {
        let errors = [finite(0.0, 1.0)];
        let failed = Err(VerifyError::HypothesisNotMet {
            source_ref: "s".into(),
            hypothesis: "n u < 1".into(),
            detail: "n u = 2".into(),
        });
        let v = check(&errors, failed).unwrap();
        assert!(matches!(v.outcome, Outcome::HypothesisNotMet { .. }));
        assert!(check(&errors, Err(VerifyError::UndefinedRelativeError)).is_err());
    }

    /// An infinite error under an infinite bound (ratio inf/inf) first, a
    /// violation after it: the violation is the outcome (it passed in release
    /// builds until 2026-11-25: the NaN ratio compared below everything;
    /// found by review).
    #[test]
    fn an_infinite_error_under_an_infinite_bound_hides_no_violation() {
        for first in [
            finite(f64::INFINITY, 1.0),
            ErrorMeasure::NonFinite {
                computed: f64::INFINITY,
                exact: 1.0,
            },
        ] {
            let errors = [first, finite(5.0, 1.0)];
            let eb = ElementBounds::new(published(0.0), vec![f64::INFINITY, 1.0]).unwrap();
            let v = check(&errors, Ok(eb)).unwrap();
            assert_eq!(
                v.outcome,
                Outcome::Violation {
                    element: 1,
                    error: 5.0,
                    bound: 1.0
                }
            );
            assert_eq!(v.ratio, Some(5.0));
        }
        let alone = [finite(f64::INFINITY, 1.0)];
        let v = check(
            &alone,
            Ok(ElementBounds::uniform(published(f64::INFINITY), 1)),
        )
        .unwrap();
        assert_eq!((v.outcome, v.ratio), (Outcome::Pass, Some(1.0)));
        // A rigorous bound of +inf is no bound: not judged, whichever way the
        // values were built.
        for eb in [
            ElementBounds::uniform(bound(f64::INFINITY), 1),
            ElementBounds::new(bound(0.0), vec![f64::INFINITY]).unwrap(),
        ] {
            assert!(eb.unbounded().is_some());
            let v = check(&alone, Ok(eb)).unwrap();
            assert!(
                matches!(v.outcome, Outcome::HypothesisNotMet { .. }),
                "{v:?}"
            );
            assert_eq!(v.judged_elements, 0);
        }
        let errors = [finite(f64::INFINITY, 1.0), finite(5.0, 1.0)];
        let eb = ElementBounds::new(bound(0.0), vec![f64::INFINITY, 1.0]).unwrap();
        assert_eq!(eb.bound.value, 1.0);
        assert!(check(&errors, Ok(eb)).unwrap().is_violation());
    }

    /// One element with a non-finite exact value does not hide a violation
    /// elsewhere in the output (it did until 2026-11-25; review); without a
    /// violation the outcome is still NonFinite.
    #[test]
    fn a_non_finite_element_hides_no_violation_elsewhere() {
        let inf = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: f64::INFINITY,
        };
        let b = ElementBounds::uniform(bound(1e-3), 2);
        let v = check(&[finite(5.0, 1.0), inf], Ok(b.clone())).unwrap();
        assert_eq!(
            v.outcome,
            Outcome::Violation {
                element: 0,
                error: 5.0,
                bound: 1e-3
            }
        );
        let v = check(&[finite(1e-4, 1.0), inf], Ok(b)).unwrap();
        assert!(matches!(
            v.outcome,
            Outcome::NonFinite {
                element: 1,
                agree: true,
                ..
            }
        ));
    }

    /// The fuzzer's case (residual GEMM, 2026-11-25): Gu's eq. (8) evaluated
    /// to +inf where the computed result overflowed to -inf: within, as an
    /// infinite error under an infinite bound is; in a debug build the
    /// consistency assertion panicked on it.
    #[test]
    fn an_overflowed_result_under_an_overflowed_bound_holds() {
        let overflow = ErrorMeasure::NonFinite {
            computed: f64::NEG_INFINITY,
            exact: 1.0,
        };
        let b = ElementBounds::new(published(0.0), vec![f64::INFINITY, 1.0]).unwrap();
        let v = check(&[overflow, finite(0.5, 1.0)], Ok(b)).unwrap();
        assert_eq!(v.outcome, Outcome::Pass);
        assert_eq!(v.ratio, Some(1.0));
        let b = ElementBounds::new(published(0.0), vec![1e308, 1.0]).unwrap();
        assert!(
            check(&[overflow, finite(0.5, 1.0)], Ok(b))
                .unwrap()
                .is_violation()
        );
    }

    #[test]
    fn every_judged_element_is_counted() {
        let inf = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: f64::INFINITY,
        };
        // The kernel overflowed where the exact value is finite: judged, violating.
        let overflow = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: 1.0,
        };
        let errors = [
            finite(5.0, 1.0),
            inf,
            finite(1e-4, 1.0),
            overflow,
            finite(2e-3, 1.0),
        ];
        let v = check(&errors, Ok(ElementBounds::uniform(bound(1e-3), 5))).unwrap();
        assert_eq!((v.judged_elements, v.violated_elements), (4, 3));
        let none = check(
            &errors,
            Err(VerifyError::HypothesisNotMet {
                source_ref: "t".into(),
                hypothesis: "h".into(),
                detail: "d".into(),
            }),
        )
        .unwrap();
        assert_eq!((none.judged_elements, none.violated_elements), (0, 0));
    }

    #[test]
    fn per_element_judging_runs_for_multi_element_outputs_only() {
        let p = probabilistic(1e-3, 0.9);
        let one = check(
            &[finite(0.0, 1.0)],
            Ok(ElementBounds::uniform(p.clone(), 1)),
        )
        .unwrap();
        let single = judge_trials(&vec![one; 10], 0.99).unwrap();
        assert!(single.per_element.is_none());
        assert_eq!(single.statistics.unwrap().confidence, 0.99);
        let two = check(
            &[finite(0.0, 1.0), finite(2e-3, 1.0)],
            Ok(ElementBounds::uniform(p, 2)),
        )
        .unwrap();
        let pair = judge_trials(&vec![two; 20], 0.99).unwrap();
        let e = pair.per_element.as_ref().unwrap();
        assert_eq!((e.violating, e.elements, e.confidence), (20, 40, 0.995));
        // Half of the elements violate against a claim of one in ten, in every trial.
        assert!(!e.consistent && !pair.consistent());
    }

    #[test]
    fn a_trial_with_a_non_finite_element_still_counts_its_passes() {
        let inf = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: f64::INFINITY,
        };
        let p = probabilistic(1e-3, 0.9);
        let b = ElementBounds::uniform(p, 2);
        let holds = check(&[finite(1e-4, 1.0), inf], Ok(b.clone())).unwrap();
        assert!(matches!(holds.outcome, Outcome::NonFinite { .. }));
        let fails = check(&[finite(5.0, 1.0), inf], Ok(b.clone())).unwrap();
        assert!(fails.is_violation());
        let nothing = check(&[inf, inf], Ok(b)).unwrap();
        // Skipping `holds` would leave one violation in one trial.
        let t = judge_trials(&[holds, fails, nothing], 0.99).unwrap();
        assert_eq!((t.judged, t.skipped), (2, 1));
        assert_eq!(t.statistics.unwrap().violations, 1);
        assert_eq!(t.per_element.unwrap().elements, 4);
    }

    /// The review's counterexample (2026-11-25): two elements, each claimed
    /// within its bound with probability 0.9. In one trial in five one element
    /// has no finite exact value and the other violates: each element
    /// violates with probability 0.1 exactly, the claim is true. Taken over
    /// the judged elements the mean fraction was 0.2 and 200 such trials
    /// rejected the claim (p ~ 1e-4); over the whole output it is 0.1.
    #[test]
    fn elements_that_cannot_be_judged_count_as_holding() {
        let inf = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: f64::INFINITY,
        };
        let b = ElementBounds::uniform(probabilistic(1e-3, 0.9), 2);
        let odd = check(&[inf, finite(5.0, 1.0)], Ok(b.clone())).unwrap();
        let even = check(&[finite(0.0, 1.0), finite(0.0, 1.0)], Ok(b)).unwrap();
        let trials: Vec<Verdict> = (0..200)
            .map(|t| {
                if t % 5 == 0 {
                    odd.clone()
                } else {
                    even.clone()
                }
            })
            .collect();
        let v = judge_trials(&trials, 0.99).unwrap();
        let e = v.per_element.as_ref().unwrap();
        assert_eq!((e.violating, e.elements), (40, 400));
        // The trial claim 1 - 2 (1 - 0.9) = 0.8 says something: Bonferroni.
        assert_eq!(e.confidence, 0.995);
        assert_eq!(e.mean_fraction, 0.1);
        assert!(e.consistent, "{e}");
    }

    /// A trial whose bound leaves some elements without a value is judged on
    /// the others, whether they hold or not: skipping it only when they hold
    /// (a violation among them is a Violation) biased the count against the
    /// claim (review, 2026-11-26). Only a trial with no judged element is
    /// skipped, which its inputs decide.
    #[test]
    fn a_trial_with_unbounded_elements_is_judged_on_the_others() {
        let inf = f64::INFINITY;
        let partial = ElementBounds::partial(
            probabilistic(1e-3, 0.9),
            vec![1e-3, inf],
            "element 1 may overflow",
        )
        .unwrap();
        let holds = check(&[finite(0.0, 1.0), finite(0.0, 1.0)], Ok(partial.clone())).unwrap();
        let fails = check(&[finite(1.0, 1.0), finite(0.0, 1.0)], Ok(partial.clone())).unwrap();
        let none = check(
            &[finite(0.0, 1.0), finite(0.0, 1.0)],
            Ok(ElementBounds::partial(probabilistic(1e-3, 0.9), vec![inf, inf], "all").unwrap()),
        )
        .unwrap();
        assert!(matches!(holds.outcome, Outcome::HypothesisNotMet { .. }));
        assert!(fails.is_violation());
        let v = judge_trials(&[holds.clone(), fails, holds, none], 0.99).unwrap();
        assert_eq!((v.judged, v.skipped), (3, 1), "{v:?}");
        assert_eq!(v.statistics.as_ref().unwrap().violations, 1);
        let e = v.per_element.as_ref().unwrap();
        assert_eq!((e.violating, e.elements), (1, 6));
    }

    /// A claimed probability that is NaN or above 1 is a bug in a bound:
    /// refused, not judged as a deterministic claim (`min` passed over it).
    #[test]
    fn an_invalid_claimed_probability_is_refused() {
        for p in [f64::NAN, 1.5, f64::INFINITY] {
            let b = ElementBounds::uniform(probabilistic(1e-3, p), 1);
            let v = check(&[finite(1.0, 1.0)], Ok(b)).unwrap();
            assert!(judge_trials(&[v], 0.99).is_err(), "{p}");
        }
    }

    /// `judge_trials` as it was before it streamed (it collected every
    /// trial's `ElementCounts`, then judged the list): the reference the
    /// streamed form must match to the bit.
    fn collected_judge_trials(verdicts: &[Verdict], confidence: f64) -> Result<TrialsVerdict> {
        let mut judged = 0u64;
        let mut skipped = 0u64;
        let mut violations = 0u64;
        let mut undecided = 0u64;
        let mut claimed = 1.0f64;
        let mut claimed_per_element = 1.0f64;
        let mut counts = Vec::new();
        for v in verdicts {
            let probability = match v.bound.as_ref().map(|b| b.kind) {
                Some(Kind::Probabilistic { probability }) => probability,
                Some(Kind::Deterministic) => 1.0,
                None => {
                    skipped += 1;
                    continue;
                }
            };
            match v.outcome {
                Outcome::Pass => {}
                Outcome::Violation { .. } => violations += 1,
                Outcome::Undecided { .. } => {
                    violations += 1;
                    undecided += 1;
                }
                Outcome::NonFinite { .. } | Outcome::HypothesisNotMet { .. }
                    if v.judged_elements > 0 => {}
                Outcome::HypothesisNotMet { .. } | Outcome::NonFinite { .. } => {
                    skipped += 1;
                    continue;
                }
            }
            judged += 1;
            claimed = claimed.min(trial_claim(v.errors.elements, probability));
            claimed_per_element = claimed_per_element.min(probability);
            if v.errors.elements > 0 {
                counts.push(ElementCounts {
                    elements: v.errors.elements as u64,
                    violating: (v.violated_elements + v.undecided_elements) as u64,
                });
            }
        }
        check_confidence(confidence)?;
        let several_elements = counts.iter().any(|c| c.elements > 1);
        let each = if several_elements && claimed > 0.0 {
            split_confidence(confidence)?
        } else {
            confidence
        };
        let statistics = if judged > 0 {
            Some(judge_violations(violations, judged, claimed, each)?)
        } else {
            None
        };
        let per_element = if several_elements {
            Some(judge_element_rate(&counts, claimed_per_element, each)?)
        } else {
            None
        };
        Ok(TrialsVerdict {
            judged,
            skipped,
            claimed_probability: claimed,
            undecided,
            statistics,
            per_element,
        })
    }

    /// The streamed judgement, `judge_trials` and the collected reference
    /// agree to the bit (Debug prints every f64 exactly), errors included;
    /// returns the streamed one.
    fn judged_three_ways(verdicts: &[Verdict], confidence: f64) -> Result<TrialsVerdict> {
        let mut judge = TrialsJudge::new();
        for v in verdicts {
            judge.add(v);
        }
        let streamed = judge.finish(confidence);
        let show = |r: &Result<TrialsVerdict>| format!("{r:?}");
        assert_eq!(show(&streamed), show(&judge_trials(verdicts, confidence)));
        assert_eq!(
            show(&streamed),
            show(&collected_judge_trials(verdicts, confidence))
        );
        streamed
    }

    #[test]
    fn streamed_trials_are_judged_as_the_slice_is() {
        let inf = ErrorMeasure::NonFinite {
            computed: f64::INFINITY,
            exact: f64::INFINITY,
        };
        let refused = || {
            Err(VerifyError::HypothesisNotMet {
                source_ref: "t".into(),
                hypothesis: "h".into(),
                detail: "d".into(),
            })
        };
        let p = probabilistic(1.0, 0.9);
        let one = |e: ErrorMeasure| check(&[e], Ok(ElementBounds::uniform(p.clone(), 1))).unwrap();
        let two = |a: ErrorMeasure, b: ErrorMeasure| {
            check(&[a, b], Ok(ElementBounds::uniform(p.clone(), 2))).unwrap()
        };
        // Undecided, violating and passing one-element trials.
        let undecided: Vec<Verdict> = (0..100)
            .map(|t| match t % 10 {
                0..=2 => one(enclosed(0.5, 1.5)),
                3 => one(finite(2.0, 1.0)),
                _ => one(finite(0.5, 1.0)),
            })
            .collect();
        let v = judged_three_ways(&undecided, 0.99).unwrap();
        assert_eq!((v.judged, v.undecided), (100, 30));
        // Skipped trials: a hypothesis failed, nothing finite; a non-finite
        // element beside a judged one still counts.
        let skipped = vec![
            one(finite(0.5, 1.0)),
            check(&[finite(0.5, 1.0)], refused()).unwrap(),
            two(inf, inf),
            two(finite(0.5, 1.0), inf),
            two(finite(5.0, 1.0), enclosed(0.5, 1.5)),
            check(&[finite(0.5, 1.0), inf], refused()).unwrap(),
        ];
        let v = judged_three_ways(&skipped, 0.99).unwrap();
        assert_eq!((v.judged, v.skipped), (3, 3));
        assert!(v.per_element.is_some());
        // Nothing judged at all.
        let v = judged_three_ways(&skipped[1..3], 0.99).unwrap();
        assert!(v.statistics.is_none() && v.per_element.is_none());
        assert!(judged_three_ways(&[], 0.99).unwrap().statistics.is_none());
        // A vacuous trial claim (100 elements at p = 0.99), per-element test
        // at the whole confidence; deterministic trials mixed in.
        let wide = probabilistic(1e-3, 0.99);
        let hundred = |violating: usize| {
            let errors: Vec<ErrorMeasure> = (0..100)
                .map(|i| finite(if i < violating { 2e-3 } else { 0.0 }, 1.0))
                .collect();
            check(&errors, Ok(ElementBounds::uniform(wide.clone(), 100))).unwrap()
        };
        let vacuous: Vec<Verdict> = (0..40)
            .map(|t| match t % 4 {
                0 => hundred(50),
                1 => check(
                    &[finite(0.5, 1.0)],
                    Ok(ElementBounds::uniform(bound(1.0), 1)),
                )
                .unwrap(),
                _ => hundred(t % 7),
            })
            .collect();
        let v = judged_three_ways(&vacuous, 0.999).unwrap();
        assert!(v.statistics.as_ref().unwrap().vacuous);
        assert_eq!(v.per_element.as_ref().unwrap().confidence, 0.999);
        // Per-element judgement with Bonferroni, rejected and not.
        let pair: Vec<Verdict> = (0..20)
            .map(|t| {
                if t % 3 == 0 {
                    two(finite(0.0, 1.0), finite(2.0, 1.0))
                } else {
                    two(finite(0.0, 1.0), finite(0.5, 1.0))
                }
            })
            .collect();
        let v = judged_three_ways(&pair, 0.99).unwrap();
        assert_eq!(v.per_element.as_ref().unwrap().confidence, 0.995);
        // Errors: a confidence of 1, and one too close to 1 to split.
        assert!(judged_three_ways(&pair, 1.0).is_err());
        assert!(judged_three_ways(&pair, 1.0 - 2f64.powi(-53)).is_err());
        // (No split for one-element trials: whatever it gives, both agree.)
        let _ = judged_three_ways(&undecided, 1.0 - 2f64.powi(-53));
        // The order of the trials is kept (the per-element sum is in trial order).
        let mut reversed = vacuous.clone();
        reversed.reverse();
        judged_three_ways(&reversed, 0.999).unwrap();
    }

    #[test]
    fn a_zero_error_has_a_zero_normwise_relative_error() {
        let s = summarize(&[finite(0.0, f64::from_bits(1))]);
        assert_eq!(s.normwise_relative_inf, Some(0.0));
    }

    #[test]
    fn mismatched_lengths_are_refused() {
        let errors = [finite(0.0, 1.0)];
        assert!(check(&errors, Ok(ElementBounds::uniform(bound(1.0), 2))).is_err());
    }

    /// An enclosure's error interval `[down, up]`, exact value 1.
    fn enclosed(down: f64, up: f64) -> ErrorMeasure {
        ErrorMeasure::Finite {
            absolute_up: up,
            absolute_down: Some(down),
            relative_up: Some(up),
            exact: 1.0,
        }
    }

    #[test]
    fn an_enclosure_straddling_its_bound_is_undecided_not_a_violation() {
        let eb = || ElementBounds::uniform(bound(1.0), 2);
        // [0.5, 1.5] straddles 1: the error may be 0.9 or 1.1.
        let v = check(&[finite(0.1, 1.0), enclosed(0.5, 1.5)], Ok(eb())).unwrap();
        assert_eq!(
            v.outcome,
            Outcome::Undecided {
                element: 1,
                error_down: 0.5,
                error_up: 1.5,
                bound: 1.0
            }
        );
        assert!(!v.is_violation() && !v.is_pass());
        assert_eq!((v.violated_elements, v.undecided_elements), (0, 1));
        assert_eq!(v.ratio, Some(1.5));
        // Down exactly at the bound: error >= 1 does not prove error > 1.
        let v = check(&[enclosed(1.0, 1.5), finite(0.0, 1.0)], Ok(eb())).unwrap();
        assert!(matches!(v.outcome, Outcome::Undecided { element: 0, .. }));
        // Entirely above: proven, and a proven violation outranks an
        // undecided element with a larger ratio.
        let v = check(&[enclosed(0.5, 9.0), enclosed(1.25, 1.5)], Ok(eb())).unwrap();
        assert_eq!(
            v.outcome,
            Outcome::Violation {
                element: 1,
                error: 1.5,
                bound: 1.0
            }
        );
        assert_eq!((v.violated_elements, v.undecided_elements), (1, 1));
        // Entirely below: a pass.
        assert!(
            check(&[enclosed(0.5, 1.0), enclosed(0.0, 0.0)], Ok(eb()))
                .unwrap()
                .is_pass()
        );
    }

    #[test]
    fn an_exact_error_one_rounding_above_the_bound_is_a_violation() {
        // An exact oracle's error in (1, next_up(1)) rounds up to next_up(1)
        // and down to 1: the exact oracle decides from `absolute_up` alone.
        let v = check(
            &[finite(1f64.next_up(), 1.0)],
            Ok(ElementBounds::uniform(bound(1.0), 1)),
        )
        .unwrap();
        assert!(v.is_violation());
    }

    #[test]
    fn undecided_trials_count_against_a_probabilistic_claim() {
        let b = probabilistic(1.0, 0.9);
        let trial =
            |e: ErrorMeasure| check(&[e], Ok(ElementBounds::uniform(b.clone(), 1))).unwrap();
        // 30 undecided trials of 100 against a 10% claim: inconsistent when
        // counted as violations (a gate never passes on them), and said so.
        let trials: Vec<Verdict> = (0..100)
            .map(|t| {
                trial(if t < 30 {
                    enclosed(0.5, 1.5)
                } else {
                    finite(0.5, 1.0)
                })
            })
            .collect();
        let v = judge_trials(&trials, 0.99).unwrap();
        assert_eq!(v.undecided, 30);
        assert_eq!(v.statistics.as_ref().unwrap().violations, 30);
        assert!(!v.consistent());
        // The same trials decided below the bound are consistent.
        let trials: Vec<Verdict> = (0..100).map(|_| trial(finite(0.5, 1.0))).collect();
        let v = judge_trials(&trials, 0.99).unwrap();
        assert_eq!(v.undecided, 0);
        assert!(v.consistent());
    }

    #[test]
    fn a_confidence_that_cannot_be_split_is_refused_as_given() {
        let b = probabilistic(1.0, 0.9);
        let two = check(
            &[finite(0.5, 1.0), finite(0.5, 1.0)],
            Ok(ElementBounds::uniform(b, 2)),
        )
        .unwrap();
        let e = judge_trials(std::slice::from_ref(&two), 1.0 - 2f64.powi(-53))
            .unwrap_err()
            .to_string();
        assert!(e.contains("too close to 1"), "{e}");
        assert!(judge_trials(&[two], 1.0 - 2f64.powi(-52)).is_ok());
    }
}
