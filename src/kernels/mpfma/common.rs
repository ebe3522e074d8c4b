//! Helpers shared by the family's kernels and experiments: per-element bounds,
//! representation errors, transposes.

use boundgate_verify::bounds::directed::{add_up, mul_up, sub_down, sub_up};
use boundgate_verify::bounds::{Bound, Rigor};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::{Result as VResult, VerifyError};

/// `2^-53`: the unit roundoff of inputs given as binary64 (`u'` of Lemmas 3.2,
/// 3.3, 3.5, 3.6 and Theorems 3.8, 3.10).
pub const U_GIVEN_F64: f64 = 1.1102230246251565e-16;

/// Per-element bounds from a fallible per-element evaluation: the first
/// element's bound is the template (provenance, hypotheses); the first
/// failure is the result. A non-finite input is an unmet hypothesis (the
/// verdict then reports the non-finite exact result), not a hard error.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::element_bounds;
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::VerifyError;
/// let b = |v| Bound::deterministic(v, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
/// let eb = element_bounds(3, |i| match i {
///     1 => Err(VerifyError::NonFinite { what: "x".into(), index: 1, value: f64::NAN }),
///     _ => Ok(b(i as f64 + 0.5)),
/// })
/// .unwrap();
/// // The NaN input leaves its element without a bound (a hypothesis, not a hard error).
/// assert_eq!((eb.bounded(0), eb.bounded(1), eb.bounded(2)), (Some(0.5), None, Some(2.5)));
/// assert!(eb.unbounded().unwrap().contains("finite inputs"));
/// // Any other error is the result.
/// let bad = element_bounds(2, |_| Err(VerifyError::Empty { what: "x".into() }));
/// assert!(matches!(bad, Err(VerifyError::Empty { .. })));
/// ```
pub fn element_bounds(
    n: usize,
    mut bound_of: impl FnMut(usize) -> VResult<Bound>,
) -> VResult<ElementBounds> {
    ElementBounds::collect((0..n).map(|i| bound_of(i).map_err(non_finite_as_hypothesis)))
}

/// A bound whose value is a constant times a per-element quantity: evaluated
/// once with quantity 1 (so `template.value` is the constant) and scaled.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::scaled;
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::VerifyError;
/// let src = Source::new("ex", "Theorem 1", None);
/// let constant = Bound::deterministic(0.25, Quantity::AbsoluteError, src, Rigor::Published);
/// // 0.25 S per element: exact for these S.
/// let eb = scaled(Ok(constant), &[4.0, 2.0, 0.0]).unwrap();
/// assert_eq!(eb.values(), &[1.0, 0.5, 0.0]);
/// assert_eq!(eb.bound.value, 1.0); // the largest
/// assert!(scaled(Err(VerifyError::Empty { what: "x".into() }), &[1.0]).is_err());
/// ```
pub fn scaled(template: VResult<Bound>, per_element: &[f64]) -> VResult<ElementBounds> {
    let template = template?;
    let constant = template.value;
    let values = per_element.iter().map(|&s| mul_up(constant, s)).collect();
    ElementBounds::new(template, values)
}

/// `NonFinite` input errors become `HypothesisNotMet` (an explicit verdict).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::non_finite_as_hypothesis;
/// use boundgate_verify::VerifyError;
/// let e = non_finite_as_hypothesis(VerifyError::NonFinite { what: "a".into(), index: 3, value: f64::INFINITY });
/// assert!(matches!(e, VerifyError::HypothesisNotMet { ref hypothesis, ref detail, .. }
///     if hypothesis == "finite inputs" && detail == "a[3] = inf"));
/// // Other errors pass unchanged.
/// let other = non_finite_as_hypothesis(VerifyError::Empty { what: "x".into() });
/// assert!(matches!(other, VerifyError::Empty { ref what } if what == "x"));
/// ```
pub fn non_finite_as_hypothesis(e: VerifyError) -> VerifyError {
    match e {
        VerifyError::NonFinite { what, index, value } => VerifyError::HypothesisNotMet {
            source_ref: "every bound of the mpfma family".into(),
            hypothesis: "finite inputs".into(),
            detail: format!("{what}[{index}] = {value}"),
        },
        other => other,
    }
}

/// `|x~ - x|` rounded up (exact in most cases by Sterbenz's lemma; directed anyway).
fn diff_up(read: f64, given: f64) -> f64 {
    sub_up(read, given).abs().max(sub_down(read, given).abs())
}

/// An upper bound on `sum_i |x~_i y~_i - x_i y_i|`, the representation error of a
/// dot product whose inputs `x, y` were read as `x~, y~`:
/// `|x~ y~ - x y| <= |x~| |y~ - y| + |y| |x~ - x|`.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::representation_up;
/// let (x, y) = ([0.1], [0.3]);
/// let (xs, ys) = ([0.0999755859375], [0.300048828125]); // fp16 values
/// let b = representation_up(&x, &xs, &y, &ys);
/// assert!((xs[0] * ys[0] - x[0] * y[0]).abs() <= b);
/// ```
pub fn representation_up(x: &[f64], x_read: &[f64], y: &[f64], y_read: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let term = add_up(
            mul_up(x_read[i].abs(), diff_up(y_read[i], y[i])),
            mul_up(y[i].abs(), diff_up(x_read[i], x[i])),
        );
        total = add_up(total, term);
    }
    total
}

/// Adds a per-element quantity to a rigorous bound, recording why.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `extra` does not hold one value per
/// element of `bounds`.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::add_to;
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::ElementBounds;
/// let b = Bound::deterministic(0.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
/// let eb = ElementBounds::partial(b, vec![1.0, 2.0, f64::INFINITY], "overflow").unwrap();
/// let more = add_to(eb, &[0.5, 0.25, 1.0], "representation", "added".into()).unwrap();
/// // 1 + 0.5 and 2 + 0.25 (exact); the element without a bound keeps none.
/// assert_eq!((more.bounded(0), more.bounded(1), more.bounded(2)), (Some(1.5), Some(2.25), None));
/// assert_eq!(more.bound.hypotheses.last().unwrap().statement, "representation");
/// // One extra value per element.
/// let short = add_to(more, &[0.5], "representation", "added".into());
/// assert!(matches!(short, Err(boundgate_verify::VerifyError::LengthMismatch { .. })));
/// ```
pub fn add_to(
    bounds: ElementBounds,
    extra: &[f64],
    statement: &str,
    detail: String,
) -> VResult<ElementBounds> {
    boundgate_verify::error::require_same_len(
        "extra values and element bounds",
        extra.len(),
        bounds.values().len(),
    )?;
    add_each(bounds, |i, b| Ok(add_up(b, extra[i])), statement, detail)
}

/// Replaces each bounded element's value `b` by `f(i, b)` (an added term),
/// recording why; an element without a bound keeps none (review,
/// 2026-11-26: rebuilding the values turned its `+inf` into a bound that an
/// infinite output met).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::add_each;
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// use boundgate_verify::check::ElementBounds;
/// let b = Bound::deterministic(0.0, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
/// let eb = ElementBounds::partial(b, vec![1.0, f64::INFINITY, 3.0], "overflow").unwrap();
/// // Add 2^-i to element i's bound.
/// let more = add_each(eb, |i, v| Ok(v + 0.5f64.powi(i as i32)), "a term", "2^-i".into()).unwrap();
/// assert_eq!((more.bounded(0), more.bounded(1), more.bounded(2)), (Some(2.0), None, Some(3.25)));
/// assert_eq!(more.unbounded(), Some("overflow"));
/// assert_eq!(more.bound.hypotheses[0].detail, "2^-i");
/// ```
pub fn add_each(
    mut bounds: ElementBounds,
    f: impl FnMut(usize, f64) -> VResult<f64>,
    statement: &str,
    detail: String,
) -> VResult<ElementBounds> {
    bounds.bound = bounds.bound.with_hypothesis(statement, detail);
    debug_assert_eq!(bounds.bound.rigor, Rigor::Rigorous);
    bounds.map_bounded(f)
}

/// The transpose of a row-major `rows x cols` matrix.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::common::transpose;
/// let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3
/// assert_eq!(transpose(&m, 2, 3), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]); // 3 x 2
/// assert_eq!(transpose(&transpose(&m, 2, 3), 3, 2), m.to_vec());
/// ```
pub fn transpose(data: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}
