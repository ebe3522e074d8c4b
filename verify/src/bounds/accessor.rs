//! Bounds of the memory-accessor kernels (Grützmacher, Anzt and Quintana-Ortí,
//! *Using Ginkgo's memory accessor for improving the accuracy of memory-bound
//! low precision BLAS*, Softw. Pract. Exper. 2021): low-precision storage,
//! high-precision arithmetic, for the summation order the kernels really use.
//!
//! The paper gives no error bound (its §4 reports "average relative errors"
//! against an fp64 kernel). The bounds here are the standard ones of Higham
//! (2002), evaluated for the real order of each kernel, plus the terms the
//! standard model leaves out:
//!
//! - **Order.** A term of a sum passes through at most `depth` roundings on its
//!   way to the result; for a sum evaluated in any order, `s^ = sum_i t_i (1 +
//!   theta_i)` with `|theta_i| <= gamma_depth` (Higham 2002, Lemma 3.1 and the
//!   remark after eq. (3.5): "n" is the number of roundings a term undergoes,
//!   `ceil(log2 n) + 1` for pairwise summation). The accessor kernels reduce
//!   with FMA chains and warp or block trees, so `depth` is chain length plus
//!   tree levels, not `n` ([`padded_tree_depth`] for trees padded with zeros).
//! - **Exact products.** A product of two storage numbers is exact in the
//!   arithmetic format when `2 p_S <= p_A` and its exponent range fits
//!   ([`products_exact`]): fp32 x fp32 in fp64, fp16 x fp16 in fp32. Then an
//!   FMA `fl(x y + c)` rounds once, and (with subnormals in the arithmetic
//!   format) its exact result is a multiple of the smallest subnormal, so it is
//!   exact whenever it lands in the subnormal range (as additions are: Higham
//!   2002, §2.1, citing Hauser 1996): no underflow term at all.
//! - **Underflow.** Otherwise every operation obeys `fl(z) = z (1 + delta) +
//!   eta`, `|eta| <= eta_min` (Higham 2002, eq. (2.8)); an `eta` created by an
//!   operation is later multiplied by at most `depth` factors `(1 + delta)` and
//!   by the scalars applied after it (`alpha` in `alpha A x`), so the sum of
//!   those scalars' magnitudes over all operations, the *eta weight* `w`, gives
//!   the term `(1 + gamma_depth) w eta_min` ([`rigorous_accumulation`]).
//! - **The final store.** Writing a result `y^` to the storage format adds
//!   `|w(y^) - y^| <= u_S |y^| + eta_S` for a floating-point storage format
//!   ([`StoreModel`], [`after_store`]); scaled integer storage has its own model.
//! - **Overflow** is a checked hypothesis: `(1 + u)^depth (S + w eta) <= max`.
//!
//! For triangular solves the kernel follows the paper (§4.3, after Hogg 2013):
//! diagonal blocks are inverted and each block of the solution is a product of
//! the inverse with the updated right-hand side. [`blocked_inverse_residual`]
//! bounds its residual componentwise from the computed intermediates, and
//! [`blocked_inverse_forward`] turns that into a per-component forward error
//! bound through `|T^{-1}| <= M(T)^{-1}` (derivations in their docs and in
//! docs/bounds-accessor.md). [`higham_thm_8_5`] is the published backward error
//! of substitution, which the blocked-inverse algorithm need not satisfy.
//!
//! All numbers are rounded upward ([`super::directed`]).

use super::directed::{add_down, add_up, div_up, exp_up, ln1p_up, mul_down, mul_up};
use super::gamma::{gamma_value, u64_up};
use super::{Bound, Quantity, Rigor, Source, require};
use crate::check::ElementBounds;
use crate::error::{Result, VerifyError, require_finite, require_same_len};
use crate::format::{Format, OverflowPolicy, RoundingMode};
use crate::oracle::trsv::{Diag, InverseBound, Triangular, Uplo};

const HIGHAM_3_5: Source = Source::new(
    "Higham 2002, Accuracy and Stability of Numerical Algorithms (2nd ed.)",
    "Section 3.1 (n = roundings on a term's path)",
    Some("(3.5)"),
);
const HIGHAM_THM_8_5: Source = Source::new(
    "Higham 2002, Accuracy and Stability of Numerical Algorithms (2nd ed.)",
    "Theorem 8.5 (substitution: (T + dT) x^ = b, |dT| <= gamma_n |T|)",
    None,
);
const RIGOROUS_ACCUMULATION: Source = Source::new(
    "boundgate (Higham 2002 eq. (2.8) model with underflow, for the kernel's order; bounds::accessor)",
    "rigorous accumulation bound",
    None,
);
const RIGOROUS_STORE: Source = Source::new(
    "boundgate (accessor write model; bounds::accessor)",
    "rigorous bound after the store to the storage format",
    None,
);
const RIGOROUS_TRSV_BACKWARD: Source = Source::new(
    "boundgate (blocked TRSV with inverted diagonal blocks; bounds::accessor) with Higham 2002, Theorem 7.1 (Rigal-Gaches)",
    "normwise backward error <= ||rho||_inf / (||T||_inf ||x^||_inf)",
    None,
);
const RIGOROUS_TRSV: Source = Source::new(
    "boundgate (blocked TRSV with inverted diagonal blocks, Grützmacher et al. 2021 §4.3 / Hogg 2013; bounds::accessor)",
    "residual bound, then |x - x^| <= |T^{-1}| |r| (oracle::trsv::InverseBound)",
    None,
);

/// `ceil(log2 m)` for `m >= 1`, and 0 for `m <= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::ceil_log2;
/// assert_eq!(ceil_log2(0), 0);
/// assert_eq!(ceil_log2(1), 0);
/// assert_eq!(ceil_log2(5), 3);
/// assert_eq!(ceil_log2(32), 5);
/// ```
pub fn ceil_log2(m: usize) -> u64 {
    if m <= 1 {
        0
    } else {
        (usize::BITS - (m - 1).leading_zeros()) as u64
    }
}

/// The number of levels of a halving tree (`v[t] += v[t + s]` for `t < s`,
/// `s = P/2, ..., 1`, over `P` slots) at which a term can meet a nonzero
/// partner, when only the first `m` slots can hold nonzero values and the rest
/// are zero padding: `ceil(log2 m)`. At level `s`, slot `t` holds the slots
/// `t + 2 s k`; its partner holds `t + s + 2 s k`, which contains a real slot
/// only if `t + s < m`, so only levels `s < m` can round (adding an exact zero
/// is exact).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::padded_tree_depth;
/// // A warp tree (32 lanes) over 8 warp sums padded with 24 zeros: 3 levels round.
/// assert_eq!(padded_tree_depth(8), 3);
/// assert_eq!(padded_tree_depth(1), 0);
/// ```
pub fn padded_tree_depth(m: usize) -> u64 {
    ceil_log2(m)
}

/// Whether every product of two numbers of `storage` is a number of
/// `arithmetic` (so an FMA on them rounds only its sum): `2 p_S <= p_A`, the
/// largest product `max_S^2` is finite in `arithmetic`, and no product falls
/// off `arithmetic`'s grid: with subnormals in `arithmetic`, the product's
/// lowest possible bit `2^(2 (emin_S - p_S + 1))` is at or above
/// `2^(emin_A - p_A + 1)`; without them, the smallest product `min_S^2` is at
/// least `2^emin_A`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::products_exact;
/// use boundgate_verify::format::Format;
/// assert!(products_exact(Format::FP32, Format::FP64));
/// assert!(products_exact(Format::FP16, Format::FP32));
/// assert!(!products_exact(Format::BF16, Format::FP32)); // bf16 subnormal products underflow fp32
/// assert!(!products_exact(Format::FP64, Format::FP64));
/// ```
pub fn products_exact(storage: Format, arithmetic: Format) -> bool {
    let ps = storage.precision() as i32;
    let pa = arithmetic.precision() as i32;
    let largest = storage.max_finite() * storage.max_finite();
    let on_grid = if arithmetic.has_subnormals() {
        2 * (storage.emin() - ps + 1) > arithmetic.emin() - pa
    } else {
        2.0 * storage.min_positive().log2() >= arithmetic.emin() as f64
    };
    2 * ps <= pa && largest.is_finite() && largest <= arithmetic.max_finite() && on_grid
}

/// Whether an FMA chain on products of `storage` numbers in `arithmetic` has
/// no underflow error at all: the products are exact ([`products_exact`]) and
/// `arithmetic` has subnormals, so an FMA result in the subnormal range is a
/// multiple of the smallest subnormal and thus exact (module docs).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::fma_chain_underflow_free;
/// use boundgate_verify::format::Format;
/// assert!(fma_chain_underflow_free(Format::FP32, Format::FP64));
/// assert!(!fma_chain_underflow_free(Format::FP32, Format::FP64.without_subnormals()));
/// ```
pub fn fma_chain_underflow_free(storage: Format, arithmetic: Format) -> bool {
    products_exact(storage, arithmetic) && arithmetic.has_subnormals()
}

/// A rounded sum: every term passes through at most `depth` roundings; `S`
/// bounds `sum |terms|`; `eta_weight` is the sum, over the operations that can
/// suffer an absolute underflow error, of the magnitude of the scalar that
/// multiplies their result afterwards (1 for most; `|alpha|` for the chain of
/// `alpha A x`; 0 where [`fma_chain_underflow_free`] holds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accumulation {
    /// Most roundings on any term's path.
    pub depth: u64,
    /// An upper bound on `sum |terms|`.
    pub sum_abs: f64,
    /// Weighted count of operations with an underflow term.
    pub eta_weight: f64,
    /// The sum `s` formed before a scaling, when the result is `fl(alpha s)`
    /// or `fma(alpha, s, fl(beta y))` with `alpha != 1`: its partial sums are
    /// not partial sums of the scaled terms, and with `|alpha| < 1` they can
    /// overflow while the result could not (`None` when the terms are summed
    /// as they are).
    pub inner: Option<InnerSum>,
}

/// The unscaled sum behind an [`Accumulation`] (see its `inner`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{rigorous_accumulation, Accumulation, InnerSum};
/// use boundgate_verify::format::{Format, RoundingMode};
/// // alpha = 0.5 times a sum of two terms 2^127: the result fits fp32, the sum does not.
/// let terms = 2.0 * 2f64.powi(127);
/// let inner = InnerSum { depth: 1, sum_abs: terms, eta_weight: 0.0 };
/// let acc = Accumulation { depth: 2, sum_abs: 0.5 * terms, eta_weight: 0.0, inner: Some(inner) };
/// assert!(rigorous_accumulation(Format::FP32, RoundingMode::NearestEven, &acc).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnerSum {
    /// Most roundings on any term's path within `s`.
    pub depth: u64,
    /// An upper bound on `sum |terms of s|`.
    pub sum_abs: f64,
    /// Operations of `s` with an underflow term.
    pub eta_weight: f64,
}

fn check_nonnegative(name: &str, v: f64) -> Result<()> {
    if v.is_nan() || v < 0.0 {
        return Err(VerifyError::invalid(
            name,
            v,
            "must be a non-negative number",
        ));
    }
    Ok(())
}

/// The rigorous bound for a sum evaluated in `arithmetic` (rounding `mode`) in
/// an order of the given depth: `|s^ - s| <= gamma_depth S + (1 + gamma_depth)
/// w eta_min` (module docs; Higham 2002, Lemma 3.1 and eq. (2.8)). Hypotheses
/// checked: `depth u < 1`, no overflow (`(1 + u)^depth (S + w eta_min) <= max`,
/// and the same for the unscaled sum `inner`, if any: every intermediate of
/// the evaluation is a partial sum of one of the two).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs` or
/// `eta_weight` (of `acc` or of its `inner` sum);
/// [`VerifyError::HypothesisNotMet`] if `depth u >= 1`, or if a partial sum may
/// overflow (`(1 + u)^depth (S + w eta_min)` above the largest finite value).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{rigorous_accumulation, Accumulation};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// // fp32 storage, fp64 arithmetic, exact products: no underflow term.
/// let acc = Accumulation { depth: 20, sum_abs: 1000.0, eta_weight: 0.0, inner: None };
/// let b = rigorous_accumulation(Format::FP64, rne, &acc).unwrap();
/// assert!(b.value >= 20.0 * 2f64.powi(-53) * 1000.0 && b.value < 21.0 * 2f64.powi(-53) * 1000.0);
/// let huge = Accumulation { depth: 4, sum_abs: f64::MAX, eta_weight: 0.0, inner: None };
/// assert!(rigorous_accumulation(Format::FP64, rne, &huge).is_err()); // may overflow
/// ```
pub fn rigorous_accumulation(
    arithmetic: Format,
    mode: RoundingMode,
    acc: &Accumulation,
) -> Result<Bound> {
    check_nonnegative("sum_abs", acc.sum_abs)?;
    check_nonnegative("eta_weight", acc.eta_weight)?;
    let u = arithmetic.unit_roundoff(mode);
    let gamma = gamma_value(acc.depth, u).map_err(|e| retag(e, &RIGOROUS_ACCUMULATION))?;
    let eta = arithmetic.underflow_abs_error(mode);
    let weighted_eta = mul_up(acc.eta_weight, eta);
    // Every partial sum of a sum with at most `depth` roundings per path is at
    // most (1 + u)^depth (S + w eta_min) in magnitude. (`inner.depth` has no
    // `gamma` check, so it may be past 2^53: rounded up, 2026-11-29.)
    let largest_partial = |depth: u64, sum_abs: f64, eta_weight: f64| {
        let growth = exp_up(mul_up(u64_up(depth), ln1p_up(u)));
        mul_up(growth, add_up(sum_abs, mul_up(eta_weight, eta)))
    };
    let mut largest = largest_partial(acc.depth, acc.sum_abs, acc.eta_weight);
    if let Some(inner) = &acc.inner {
        check_nonnegative("inner.sum_abs", inner.sum_abs)?;
        check_nonnegative("inner.eta_weight", inner.eta_weight)?;
        largest = largest.max(largest_partial(
            inner.depth,
            inner.sum_abs,
            inner.eta_weight,
        ));
    }
    require(
        largest <= arithmetic.max_finite(),
        &RIGOROUS_ACCUMULATION,
        "no overflow: (1 + u)^depth (S + w eta_min) <= max_finite, for the sum and its unscaled inner sum",
        || format!("{largest:e} > {:e}", arithmetic.max_finite()),
    )?;
    let value = add_up(
        mul_up(gamma, acc.sum_abs),
        mul_up(add_up(1.0, gamma), weighted_eta),
    );
    Ok(Bound::deterministic(
        value,
        Quantity::AbsoluteError,
        RIGOROUS_ACCUMULATION,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "depth u < 1",
        format!("depth {}, u = 2^{}", acc.depth, u.log2()),
    )
    .with_hypothesis(
        "no overflow",
        format!("{largest:e} <= {:e}", arithmetic.max_finite()),
    )
    .with_hypothesis(
        "fl(z) = z(1 + delta) + eta, |eta| <= eta_min",
        format!("eta weight {}, eta_min = {eta:e}", acc.eta_weight),
    ))
}

/// The published bound of Higham (2002, §3.1, eq. (3.5)) with `n` replaced by
/// the number of roundings on a term's path in the kernel's order:
/// `|s^ - s| <= gamma_depth S`, as printed (no underflow, no store). With
/// exact products and subnormals this is also rigorous (module docs); with
/// inexact products it can fail under underflow (a finding, not a bug).
/// Depth 0 (no rounding) gives 0, whatever `sum_abs`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a negative or NaN `sum_abs`;
/// [`VerifyError::HypothesisNotMet`] if `depth u >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::higham_3_5_depth;
/// use boundgate_verify::bounds::Rigor;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let b = higham_3_5_depth(Format::FP64, RoundingMode::NearestEven, 13, 2.0).unwrap();
/// assert_eq!(b.rigor, Rigor::Published);
/// assert!(b.value >= 26.0 * 2f64.powi(-53));
/// ```
pub fn higham_3_5_depth(
    arithmetic: Format,
    mode: RoundingMode,
    depth: u64,
    sum_abs: f64,
) -> Result<Bound> {
    check_nonnegative("sum_abs", sum_abs)?;
    let u = arithmetic.unit_roundoff(mode);
    let gamma = gamma_value(depth, u).map_err(|e| retag(e, &HIGHAM_3_5))?;
    // Depth 0: no rounding, no error (0 x inf was NaN until 2026-11-29).
    let value = if gamma == 0.0 {
        0.0
    } else {
        mul_up(gamma, sum_abs)
    };
    Ok(
        Bound::deterministic(value, Quantity::AbsoluteError, HIGHAM_3_5, Rigor::Published)
            .with_hypothesis("depth u < 1", format!("depth {depth}, u = 2^{}", u.log2()))
            .with_hypothesis(
                "fl(z) = z(1 + delta), |delta| <= u (no underflow)",
                "assumed by the source, not checked",
            ),
    )
}

/// How a write to storage rounds: `|w(v) - v| <= relative |v| + absolute` for
/// every `|v| <= max` (beyond `max` the write overflows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoreModel {
    /// The relative part (`u_S` for a floating-point format).
    pub relative: f64,
    /// The absolute part (`eta_S` for a floating-point format; the scale for
    /// truncating scaled integers).
    pub absolute: f64,
    /// The largest magnitude that is stored without overflow.
    pub max: f64,
}

impl StoreModel {
    /// Rounding to a floating-point format in `mode`: `u_S`, `eta_S`, and the
    /// format's largest finite value (values beyond it are treated as overflow,
    /// which is conservative for round to nearest).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::accessor::StoreModel;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let m = StoreModel::float(Format::FP32, RoundingMode::NearestEven);
    /// assert_eq!(m.relative, 2f64.powi(-24));
    /// assert_eq!(m.absolute, 2f64.powi(-150));
    /// ```
    pub fn float(storage: Format, mode: RoundingMode) -> StoreModel {
        StoreModel {
            relative: storage.unit_roundoff(mode),
            absolute: storage.underflow_abs_error(mode),
            max: storage.max_finite(),
        }
    }

    /// The error bound of storing `v`, or `None` if it may overflow.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::accessor::StoreModel;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let rne = RoundingMode::NearestEven;
    /// let m = StoreModel::float(Format::FP16, rne);
    /// // u_S |v| + eta_S = 2^-11 + 2^-25 for v = 1, exactly.
    /// assert_eq!(m.error_up(1.0), Some(2f64.powi(-11) + 2f64.powi(-25)));
    /// // It bounds the real error of every store, subnormal results included.
    /// for v in [0.1, -1.0 / 3.0, 1e-6, 6e-8, 65504.0] {
    ///     let stored = Format::FP16.round(v, rne);
    ///     assert!((stored - v).abs() <= m.error_up(v).unwrap(), "{v}");
    /// }
    /// // Beyond the largest finite fp16 value the store may overflow: no bound.
    /// assert_eq!(m.error_up(65520.0), None);
    /// ```
    pub fn error_up(&self, v: f64) -> Option<f64> {
        (v.abs() <= self.max).then(|| add_up(mul_up(self.relative, v.abs()), self.absolute))
    }
}

/// The rigorous bound after storing the computed `y^` (before the store) with
/// `model`: `before + relative |y^| + absolute`, since `|w(y^) - y| <= |y^ - y|
/// + |w(y^) - y^|`. Hypothesis: `|y^| <= model.max` (the store does not overflow).
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] if `|computed|` is above `model.max` or
/// NaN (the store may overflow).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{after_store, rigorous_accumulation, Accumulation, StoreModel};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let before = rigorous_accumulation(Format::FP64, rne, &Accumulation { depth: 3, sum_abs: 3.0, eta_weight: 0.0, inner: None }).unwrap();
/// let model = StoreModel::float(Format::FP32, rne);
/// let after = after_store(&before, &model, 2.5).unwrap();
/// assert!(after.value >= before.value + 2.5 * 2f64.powi(-24));
/// assert!(after_store(&before, &model, 1e39).is_err()); // overflows fp32
/// ```
pub fn after_store(before: &Bound, model: &StoreModel, computed: f64) -> Result<Bound> {
    let store = model.error_up(computed);
    require(
        store.is_some(),
        &RIGOROUS_STORE,
        "the result fits the storage format",
        || format!("|y^| = {:e} > {:e}", computed.abs(), model.max),
    )?;
    let store = store.expect("checked");
    let mut bound = before.clone();
    bound.value = add_up(bound.value, store);
    bound.source = RIGOROUS_STORE;
    Ok(bound.with_hypothesis(
        "|w(v) - v| <= relative |v| + absolute",
        format!(
            "relative {:e}, absolute {:e}: {store:e} added",
            model.relative, model.absolute
        ),
    ))
}

/// The published bound of one element of an accessor kernel: Higham 2002
/// (3.5) with `n` = `depth` ([`higham_3_5_depth`], the arithmetic rounding to
/// nearest, as the accessor kernels do), and with `store` the store as one
/// more rounding ([`higham_3_5_stored`]; `storage` is the storage format and
/// its write mode, `None` for integer storage, which has no relative
/// rounding model, so no published form after the store). (3.5) assumes no
/// overflow: a `computed` value (the arithmetic's result, before the store)
/// that is not finite fails that hypothesis; it was reported as a violation
/// (error inf), or, after the store, as a NaN bound that refused the whole
/// run (review, 2026-11-26).
///
/// The store's unit roundoff is that of the write mode: `2^(1-p)` for a
/// directed write, `2^-p` to nearest (Higham 2002, §2.1). Until 2026-11-29 it
/// was always the latter, and a run with `write=rtz` reported the published
/// bound VIOLATED: a false finding about Higham, our own bug.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] for a non-finite `computed` or integer
/// storage with `store`; as [`higham_3_5_depth`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::higham_3_5_published;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let (fp64, fp32) = (Format::FP64, Format::FP32);
/// let rne = Some((fp32, RoundingMode::NearestEven));
/// let stored = higham_3_5_published(fp64, rne, true, 5, 4.0, 1.0).unwrap();
/// let plain = higham_3_5_published(fp64, rne, false, 5, 4.0, 1.0).unwrap();
/// assert!(stored.value > plain.value);
/// // A store toward zero errs up to 2^-23 |y^|, twice the nearest store's 2^-24.
/// let rtz = higham_3_5_published(fp64, Some((fp32, RoundingMode::TowardZero)), true, 5, 4.0, 1.0);
/// assert!(rtz.unwrap().value - plain.value >= 2f64.powi(-23));
/// assert!(higham_3_5_published(fp64, rne, false, 5, 4.0, f64::NAN).is_err());
/// assert!(higham_3_5_published(fp64, None, true, 5, 4.0, 1.0).is_err());
/// ```
pub fn higham_3_5_published(
    arithmetic: Format,
    storage: Option<(Format, RoundingMode)>,
    store: bool,
    depth: u64,
    sum_abs: f64,
    computed: f64,
) -> Result<Bound> {
    require_no_overflow(computed)?;
    let rne = RoundingMode::NearestEven;
    match (store, storage) {
        (true, Some(storage)) => {
            higham_3_5_stored((arithmetic, rne), storage, depth, sum_abs, computed)
        }
        (true, None) => Err(VerifyError::HypothesisNotMet {
            source_ref: HIGHAM_3_5.to_string(),
            hypothesis: "floating-point storage".into(),
            detail: "integer storage has no relative rounding model".into(),
        }),
        (false, _) => higham_3_5_depth(arithmetic, rne, depth, sum_abs),
    }
}

/// (3.5)'s hypothesis of no overflow: the computed value (before the store)
/// is finite.
fn require_no_overflow(computed: f64) -> Result<()> {
    require(
        computed.is_finite(),
        &HIGHAM_3_5,
        "no overflow (the computed value is finite)",
        || format!("y^ = {computed}"),
    )
}

/// The published form after the store, first order as the standard model
/// gives it: `gamma_depth S + u_S |y^|` (Higham 2002, eq. (3.5) with the store
/// as one more rounding `fl(y^) = y^ (1 + delta)`, eq. (2.4)); no underflow term.
/// `arithmetic` and `storage` are each a format and its rounding mode: the
/// arithmetic's in `gamma_depth`, the store's (the write mode) in `u_S`.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] for a non-finite `computed` (no
/// overflow); as [`higham_3_5_depth`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::higham_3_5_stored;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let b = higham_3_5_stored((Format::FP64, rne), (Format::FP32, rne), 5, 4.0, 1.0).unwrap();
/// assert!(b.value >= 2f64.powi(-24));
/// ```
pub fn higham_3_5_stored(
    (arithmetic, mode): (Format, RoundingMode),
    (storage, write): (Format, RoundingMode),
    depth: u64,
    sum_abs: f64,
    computed: f64,
) -> Result<Bound> {
    // A NaN `computed` gave a NaN bound until 2026-11-29.
    require_no_overflow(computed)?;
    let before = higham_3_5_depth(arithmetic, mode, depth, sum_abs)?;
    let store = mul_up(storage.unit_roundoff(write), computed.abs());
    let mut bound = before;
    bound.value = add_up(bound.value, store);
    Ok(bound.with_hypothesis(
        "the store rounds once: fl(y^) = y^(1 + delta), |delta| <= u_S",
        format!("u_S |y^| = {store:e} added ({write:?})"),
    ))
}

/// The published componentwise backward error of substitution (Higham 2002,
/// Theorem 8.5): the computed solution of `T x = b` satisfies `(T + dT) x^ =
/// b` with `|dT| <= gamma_n |T|`; the value is `gamma_n`, to compare with the
/// Oettli-Prager backward error `max_i |b - T x^|_i / (|T| |x^|)_i`
/// ([`crate::oracle::trsv::backward_error`]). Theorem 8.5 is about
/// substitution; a blocked solve with inverted diagonal blocks is a different
/// algorithm, for which its violation is a finding about that algorithm.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] if `n u >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::higham_thm_8_5;
/// use boundgate_verify::bounds::Quantity;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let b = higham_thm_8_5(Format::FP64, RoundingMode::NearestEven, 100).unwrap();
/// assert_eq!(b.quantity, Quantity::BackwardError);
/// assert!(b.value > 100.0 * 2f64.powi(-53));
/// ```
pub fn higham_thm_8_5(arithmetic: Format, mode: RoundingMode, n: usize) -> Result<Bound> {
    let u = arithmetic.unit_roundoff(mode);
    let gamma = gamma_value(n as u64, u).map_err(|e| retag(e, &HIGHAM_THM_8_5))?;
    Ok(Bound::deterministic(
        gamma,
        Quantity::BackwardError,
        HIGHAM_THM_8_5,
        Rigor::Published,
    )
    .with_hypothesis("n u < 1", format!("n = {n}, u = 2^{}", u.log2()))
    .with_hypothesis(
        "fl(z) = z(1 + delta), no underflow; the algorithm is substitution",
        "assumed by the source, not checked",
    ))
}

/// The intermediates of a blocked triangular solve with inverted diagonal
/// blocks, as the kernel computed them (all values of the arithmetic format).
///
/// Positions: the solve runs over *positions* `p = 0, ..., n - 1`, the row
/// `p` for a lower triangle and `n - 1 - p` for an upper one, so that in
/// positions the matrix is always lower triangular. Block `k` holds positions
/// `k nb .. min((k + 1) nb, n)`.
#[derive(Clone, Copy, Debug)]
pub struct BlockedInverseTrsv<'a> {
    /// The system as the kernel read it (values of the storage format).
    pub system: Triangular<'a>,
    /// The right-hand side as read, by row.
    pub b: &'a [f64],
    /// The block size `nb`.
    pub block: usize,
    /// The computed inverse `Y^_k` of each diagonal block (in positions),
    /// row-major, `m_k x m_k` with `m_k` the block's size; entries above the
    /// diagonal are zero.
    pub inverses: &'a [Vec<f64>],
    /// `v^`: the updated right-hand side of every position (`b` minus the
    /// update from earlier blocks, as computed).
    pub v_hat: &'a [f64],
    /// The computed solution before any store, by row.
    pub x_hat: &'a [f64],
    /// The depth of the update sum `sum_j l_pj x^_j` of each block (chain plus
    /// tree levels; 0 for block 0, which has no update).
    pub update_depths: &'a [u64],
    /// The number of operations of the update sum of each block that can
    /// suffer an underflow error (per row).
    pub update_ops: &'a [u64],
    /// The depth of each product `x^_I = fl(Y^ v^)` with a block's inverse:
    /// the most roundings any term `y_rc v_c` passes through, `nb` for one
    /// FMA chain, `ceil(nb / W) + ceil(log2 W)` for `W` interleaved chains
    /// summed as a tree (the kernel's `split_chain_depth`); at most `nb` and
    /// at least 1.
    pub apply_depth: u64,
}

impl BlockedInverseTrsv<'_> {
    fn row_of(&self, p: usize) -> usize {
        match self.system.uplo() {
            Uplo::Lower => p,
            Uplo::Upper => self.system.n() - 1 - p,
        }
    }

    /// `l_pq` in positions (the diagonal as the solve uses it).
    fn l(&self, p: usize, q: usize) -> f64 {
        if p == q {
            self.system.diagonal(self.row_of(p))
        } else {
            self.system.matrix().get(self.row_of(p), self.row_of(q))
        }
    }

    fn validate(&self) -> Result<usize> {
        let n = self.system.n();
        require_same_len("b and the order of T", self.b.len(), n)?;
        // The system and right-hand side as read are numbers (the derivation's
        // `l_rr`, `b_p`; an infinite entry made a NaN or meaningless rho).
        self.system.require_nonsingular()?;
        require_finite("b (as read)", self.b)?;
        require_same_len("v^ and the order of T", self.v_hat.len(), n)?;
        require_same_len("x^ and the order of T", self.x_hat.len(), n)?;
        if self.block == 0 {
            return Err(VerifyError::invalid("block", 0, "must be positive"));
        }
        let blocks = n.div_ceil(self.block);
        require_same_len("inverses and blocks", self.inverses.len(), blocks)?;
        require_same_len("update depths and blocks", self.update_depths.len(), blocks)?;
        require_same_len(
            "update operation counts and blocks",
            self.update_ops.len(),
            blocks,
        )?;
        for (k, y) in self.inverses.iter().enumerate() {
            let m = self.block.min(n - k * self.block);
            require_same_len(&format!("inverse of block {k}"), y.len(), m * m)?;
        }
        if self.apply_depth == 0 || self.apply_depth > self.block as u64 {
            return Err(VerifyError::invalid(
                "apply_depth",
                self.apply_depth,
                format!("must be 1 to the block size {}", self.block),
            ));
        }
        Ok(blocks)
    }
}

/// A componentwise bound `rho` (by row) on the residual `b - T x^` of the
/// stored system, for the blocked solve with inverted diagonal blocks.
///
/// Derivation (positions, block `k` with rows `I`, earlier positions `J`,
/// arithmetic unit roundoff `u`, underflow unit `eta`, block size `nb`):
/// 1. The update `v^_p = fl(b_p - fl(sum_{q in J} l_pq x^_q))` is a sum of the
///    terms `b_p` and `-l_pq x^_q` with at most `D = depth_k + 1` roundings:
///    `|v^_p - v_p| <= e_p := gamma_D (|b_p| + sum_q |l_pq x^_q|) + (1 + gamma_D) o_k eta`
///    (`v_p` the exact update; `o_k` = `update_ops[k]`, its FMAs, the operations
///    with an underflow term: with subnormals its additions and the subtraction
///    are exact on underflow, eq. (2.8); `e_p = 0` for block 0, which reads `b` only).
/// 2. The inverse `Y^` of `L = L_II` is computed column by column by
///    substitution (`y_cc = fl(1/l_cc)`, `y_rc = fl(-fl(sum_{c<=p<r} l_rp y_pc) / l_rr)`),
///    so `G = L Y^ - I` satisfies, entry by entry,
///    `|G_rc| <= gamma_nb (|N| |Y^|)_rc + u [r = c] + H_rc`, `N` the strictly lower part
///    of `L`, `H_rc = ((r - c)(1 + gamma_{nb+1}) + |l_rr|) eta` (Higham 2002, Lemma 8.4
///    for one substitution step, with eq. (2.8)'s `eta`; unit diagonal: no division,
///    no `u [r = c]` and no `|l_rr| eta`).
/// 3. `x^_I = fl(Y^ v^) = Y^ v^ + f`, `|f| <= F := gamma_A |Y^| |v^| + nb (1 + gamma_A) eta`,
///    `A` the product's depth (`apply_depth`: every term passes through at most `A`
///    roundings; Higham 2002, eq. (3.4) and Lemma 3.1 for a sum of any order, with an
///    FMA one rounding; at most `nb` FMAs each add at most `eta`, which the later
///    roundings grow by at most `1 + gamma_A`; an addition's underflow is exact, eq. (2.8)).
///    One FMA chain has `A = nb` (the bound until 2026-11-28); `W` chains summed as a tree
///    `ceil(nb / W) + ceil(log2 W)`.
/// 4. `r_I = v_I - L x^_I = -(v^ - v) - G v^ - L f`, hence
///    `|r_I| <= e + |G| |v^| + |L| F =: rho_I`.
///
/// Every quantity is evaluated with upward rounding. Hypotheses checked: all
/// intermediates finite, and `mode` round to nearest in an `arithmetic` that
/// does not saturate (together: no operation overflowed, since an overflow
/// then leaves an infinity or NaN in `Y^`, `v^` or `x^`; a directed rounding
/// or saturation gives the largest finite number instead, so finite
/// intermediates prove nothing: refused since 2026-11-29); `arithmetic` has
/// subnormals (steps 1 and 3; refused without, since 2026-11-29);
/// `(nb + 1) u < 1` and `(depth_k + 1) u < 1`.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for inconsistent shapes;
/// [`VerifyError::NonFinite`] or [`VerifyError::InvalidParameter`] for a
/// stored system with a non-finite entry or a zero on the diagonal, or a
/// non-finite `b`; unmet hypotheses as [`VerifyError::HypothesisNotMet`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{blocked_inverse_residual, BlockedInverseTrsv};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{residual, Diag, Triangular, Uplo};
/// // T x = b, T lower 3 x 3, blocks of nb = 2: positions 0-1, then position 2.
/// let a = [3.0, 0.0, 0.0, 1.0, 7.0, 0.0, 0.5, -2.0, 9.0];
/// let b = [1.0, 2.0, 3.0];
/// let t = Triangular::new(Matrix::new(3, 3, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// // Block 0: invert [[3, 0], [1, 7]] by substitution, then x^ = Y^ v^ (v^ = b there).
/// let (y00, y11) = (1.0 / 3.0, 1.0 / 7.0);
/// let y10 = -(1.0 * y00) / 7.0;
/// let x0 = y00 * b[0];
/// let x1 = y10 * b[0] + y11 * b[1]; // two roundings per term: apply_depth 2
/// // Block 1: the update v^2 = b2 - (l20 x^0 + l21 x^1) (depth 2), then x^2 = fl(1/9) v^2.
/// let v2 = b[2] - (0.5 * x0 + -2.0 * x1);
/// let y22 = 1.0 / 9.0;
/// let (x, v_hat) = ([x0, x1, y22 * v2], [b[0], b[1], v2]);
/// let inverses = vec![vec![y00, 0.0, y10, y11], vec![y22]];
/// let solve = BlockedInverseTrsv {
///     system: t, b: &b, block: 2, inverses: &inverses, v_hat: &v_hat, x_hat: &x,
///     update_depths: &[0, 2], update_ops: &[0, 3], apply_depth: 2,
/// };
/// let rne = RoundingMode::NearestEven;
/// let rho = blocked_inverse_residual(Format::FP64, rne, &solve).unwrap();
/// // The exact residual b - T x^ (oracle) is within rho, component by component.
/// let r = residual(&t, &b, &x).unwrap();
/// for i in 0..3 {
///     let exact = r[i].error_of(0.0).absolute_up().unwrap(); // |r_i|, rounded up
///     assert!(exact <= rho[i], "{i}: {exact:e} > {:e}", rho[i]);
/// }
/// assert!(rho.iter().all(|&p| p < 1e-14));
/// // An overflowed intermediate fails the no-overflow hypothesis; a bad depth is refused.
/// let inf = [x0, x1, f64::INFINITY];
/// assert!(blocked_inverse_residual(Format::FP64, rne, &BlockedInverseTrsv { x_hat: &inf, ..solve }).is_err());
/// assert!(blocked_inverse_residual(Format::FP64, rne, &BlockedInverseTrsv { apply_depth: 3, ..solve }).is_err());
/// ```
pub fn blocked_inverse_residual(
    arithmetic: Format,
    mode: RoundingMode,
    solve: &BlockedInverseTrsv<'_>,
) -> Result<Vec<f64>> {
    let blocks = solve.validate()?;
    let n = solve.system.n();
    // Finite intermediates prove that nothing overflowed only where an
    // overflow gives an infinity (or NaN) that propagates: round to nearest
    // in a format that does not saturate. A directed rounding (or saturation)
    // turns an overflow into the largest finite number, and the solve stays
    // finite with |delta| far above u (review, 2026-11-29: rounding up in a
    // 4-bit format, fl(1/a) = -120 for 1/a = -170.7, exact residual 6.3e-3 >
    // rho 5.7e-3).
    require(
        mode == RoundingMode::NearestEven
            && arithmetic.overflow_policy() != OverflowPolicy::Saturate,
        &RIGOROUS_TRSV,
        "an overflow leaves an infinity or NaN: round to nearest, no saturation",
        || {
            format!(
                "rounding {} in {arithmetic} ({:?} on overflow): an overflow can give the largest \
                 finite number, so finite intermediates do not show that none overflowed",
                mode.name(),
                arithmetic.overflow_policy()
            )
        },
    )?;
    // Steps 1 and 3 take an addition's underflow as exact (eq. (2.8)), which
    // needs subnormals: without them `b_p - update` can lose up to eta more
    // than the counted FMAs allow (review, 2026-11-29: binary32 without
    // subnormals, exact residual 0.97 x 2^emin > rho 0.50 x 2^emin).
    require(
        arithmetic.has_subnormals(),
        &RIGOROUS_TRSV,
        "the arithmetic has subnormals (an addition that underflows is exact)",
        || format!("{arithmetic} without subnormals"),
    )?;
    let finite = solve.v_hat.iter().chain(solve.x_hat).all(|v| v.is_finite())
        && solve.inverses.iter().flatten().all(|v| v.is_finite());
    require(
        finite,
        &RIGOROUS_TRSV,
        "no overflow: every intermediate (Y^, v^, x^) is finite",
        || "an intermediate is infinite or NaN".into(),
    )?;
    let u = arithmetic.unit_roundoff(mode);
    let eta = arithmetic.underflow_abs_error(mode);
    let nb = solve.block;
    let gamma_nb = gamma_value(nb as u64, u).map_err(|e| retag(e, &RIGOROUS_TRSV))?;
    let gamma_nb1 = gamma_value(nb as u64 + 1, u).map_err(|e| retag(e, &RIGOROUS_TRSV))?;
    let gamma_apply = gamma_value(solve.apply_depth, u).map_err(|e| retag(e, &RIGOROUS_TRSV))?;
    let unit = solve.system.diag() == Diag::Unit;
    let mut rho = vec![0.0; n];
    for k in 0..blocks {
        let start = k * nb;
        let m = nb.min(n - start);
        let y = &solve.inverses[k];
        let v = &solve.v_hat[start..start + m];
        // 1. the update error e.
        let mut e = vec![0.0; m];
        if k > 0 {
            let depth = solve.update_depths[k] + 1;
            let gamma = gamma_value(depth, u).map_err(|er| retag(er, &RIGOROUS_TRSV))?;
            let eta_part = mul_up(mul_up(add_up(1.0, gamma), u64_up(solve.update_ops[k])), eta);
            for (r, er) in e.iter_mut().enumerate() {
                let p = start + r;
                let mut s = solve.b[solve.row_of(p)].abs();
                for q in 0..start {
                    let l = solve.l(p, q);
                    if l != 0.0 {
                        s = add_up(s, mul_up(l.abs(), solve.x_hat[solve.row_of(q)].abs()));
                    }
                }
                *er = add_up(mul_up(gamma, s), eta_part);
            }
        }
        // w = |Y^| |v^| (Y^ lower triangular).
        let w: Vec<f64> = (0..m)
            .map(|r| {
                (0..=r).fold(0.0, |s, c| {
                    add_up(s, mul_up(y[r * m + c].abs(), v[c].abs()))
                })
            })
            .collect();
        // 3. F = gamma_A w + nb (1 + gamma_A) eta.
        let f_eta = mul_up(mul_up(u64_up(nb as u64), add_up(1.0, gamma_apply)), eta);
        let f: Vec<f64> = w
            .iter()
            .map(|wr| add_up(mul_up(gamma_apply, *wr), f_eta))
            .collect();
        for r in 0..m {
            let p = start + r;
            let l_rr = solve.l(p, p).abs();
            // 2. (|G| |v^|)_r = gamma_nb (|N| w)_r + u |v_r| + sum_c H_rc |v_c|.
            let mut nw = 0.0;
            let mut h = 0.0;
            let mut lf = mul_up(l_rr, f[r]);
            for c in 0..r {
                let l = solve.l(p, start + c).abs();
                // A zero entry contributes exactly nothing, even where w or F
                // overflowed to +inf (0 x inf made rho NaN until 2026-11-29).
                if l != 0.0 {
                    nw = add_up(nw, mul_up(l, w[c]));
                    lf = add_up(lf, mul_up(l, f[c]));
                }
            }
            for (c, vc) in v.iter().enumerate().take(r + 1) {
                let mut h_rc = mul_up(u64_up((r - c) as u64), add_up(1.0, gamma_nb1));
                if !unit {
                    h_rc = add_up(h_rc, l_rr);
                }
                h = add_up(h, mul_up(mul_up(h_rc, eta), vc.abs()));
            }
            let mut g = add_up(mul_up(gamma_nb, nw), h);
            if !unit {
                g = add_up(g, mul_up(u, v[r].abs()));
            }
            rho[solve.row_of(p)] = add_up(add_up(e[r], g), lf);
        }
    }
    Ok(rho)
}

/// The rigorous per-component forward error bound of the blocked solve with
/// respect to the exact solution of the system **as given** (`given`, `b_given`),
/// after an optional store of `x^` with `store`:
/// `|x - x^| <= |T^{-1}| (rho + |b - b~| + |T - T~| |x^|)` (+ the store term),
/// because `b - T x^ = (b~ - T~ x^) + (b - b~) - (T - T~) x^` and
/// `x - x^ = T^{-1} (b - T x^)`; `|T^{-1}| w` is bounded rigorously by
/// [`InverseBound`] (the comparison matrix `M(T)^{-1}`, Higham 2002 §8.3, or a
/// verified approximate inverse, whichever is smaller).
/// `rho` comes from [`blocked_inverse_residual`] on the stored system
/// `solve.system`, `solve.b`.
///
/// # Errors
/// Shape mismatches, a singular or non-finite given system, a non-finite
/// `b_given` ([`VerifyError::NonFinite`]), and the errors and hypotheses of
/// [`blocked_inverse_residual`] and of the store.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{blocked_inverse_forward, BlockedInverseTrsv, StoreModel};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solution_errors, Diag, Triangular, Uplo};
/// let rne = RoundingMode::NearestEven;
/// // The system as given (binary64), stored in fp32; the solve computes in binary64.
/// let given = [3.0, 0.0, 0.0, 0.1, 7.0, 0.0, 0.5, -2.2, 9.0];
/// let b_given = [1.0, 0.2, 3.0];
/// let fp32 = |v: &f64| Format::FP32.round(*v, rne);
/// let (a, b): (Vec<f64>, Vec<f64>) = (given.iter().map(fp32).collect(), b_given.iter().map(fp32).collect());
/// let t_given = Triangular::new(Matrix::new(3, 3, &given).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let t = Triangular::new(Matrix::new(3, 3, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// // Blocks of 2: invert the first diagonal block by substitution, update, invert the last.
/// let (y00, y11) = (1.0 / a[0], 1.0 / a[4]);
/// let y10 = -(a[3] * y00) / a[4];
/// let (x0, x1) = (y00 * b[0], y10 * b[0] + y11 * b[1]);
/// let v2 = b[2] - (a[6] * x0 + a[7] * x1);
/// let y22 = 1.0 / a[8];
/// let (x, v_hat) = ([x0, x1, y22 * v2], [b[0], b[1], v2]);
/// let inverses = vec![vec![y00, 0.0, y10, y11], vec![y22]];
/// let solve = BlockedInverseTrsv {
///     system: t, b: &b, block: 2, inverses: &inverses, v_hat: &v_hat, x_hat: &x,
///     update_depths: &[0, 2], update_ops: &[0, 3], apply_depth: 2,
/// };
/// let store = StoreModel::float(Format::FP32, rne);
/// let bounds = blocked_inverse_forward(Format::FP64, rne, &t_given, &b_given, &solve, Some(&store)).unwrap();
/// // x^ stored to fp32, against the exact solution of the system as given.
/// let stored: Vec<f64> = x.iter().map(fp32).collect();
/// let errors = solution_errors(&t_given, &b_given, &stored).unwrap();
/// for i in 0..3 {
///     let e = errors[i].absolute_up().unwrap();
///     assert!(e <= bounds.values()[i] && bounds.values()[i] < 1e-6, "{i}: {e:e}");
/// }
/// assert!(blocked_inverse_forward(Format::FP64, rne, &t_given, &b_given[..2], &solve, None).is_err());
/// ```
#[allow(clippy::too_many_arguments)] // the system as given, as stored, and the store
pub fn blocked_inverse_forward(
    arithmetic: Format,
    mode: RoundingMode,
    given: &Triangular<'_>,
    b_given: &[f64],
    solve: &BlockedInverseTrsv<'_>,
    store: Option<&StoreModel>,
) -> Result<ElementBounds> {
    let n = given.n();
    require_same_len("given and stored orders", n, solve.system.n())?;
    require_same_len("b and the order of T", b_given.len(), n)?;
    if given.uplo() != solve.system.uplo() || given.diag() != solve.system.diag() {
        return Err(VerifyError::invalid(
            "system",
            "given vs stored",
            "the given and the stored system must have the same triangle and diagonal",
        ));
    }
    given.require_nonsingular()?;
    // As the given T: a NaN in b vanished in |b - b~| until 2026-11-29.
    require_finite("b (as given)", b_given)?;
    let rho = blocked_inverse_residual(arithmetic, mode, solve)?;
    let mut total = rho.clone();
    for i in 0..n {
        let mut t = add_up(total[i], abs_diff_up(b_given[i], solve.b[i]));
        let (start, off) = given.off_diagonal(i);
        let (_, off_stored) = solve.system.off_diagonal(i);
        for (k, (a, a_s)) in off.iter().zip(off_stored).enumerate() {
            let x = solve.x_hat[start + k].abs();
            if x != 0.0 {
                t = add_up(t, mul_up(abs_diff_up(*a, *a_s), x));
            }
        }
        if given.diag() == Diag::NonUnit {
            let d = abs_diff_up(given.diagonal(i), solve.system.diagonal(i));
            t = add_up(t, mul_up(d, solve.x_hat[i].abs()));
        }
        total[i] = t;
    }
    let mut values = InverseBound::new(*given)?.apply_up(&total)?;
    let mut bound =
        Bound::deterministic(0.0, Quantity::AbsoluteError, RIGOROUS_TRSV, Rigor::Rigorous)
            .with_hypothesis(
                "residual bound of the blocked solve (bounds::accessor::blocked_inverse_residual)",
                format!("max rho = {:e}", rho.iter().copied().fold(0.0, f64::max)),
            )
            .with_hypothesis(
                "|T^{-1}| w bounded by M(T)^{-1} w or a verified approximate inverse",
                "oracle::trsv::InverseBound",
            );
    // A component whose store overflows has no bound after the store; the
    // store is the last step, so the others keep theirs (judged apart).
    let mut unstored = None;
    if let Some(model) = store {
        for (i, z) in values.iter_mut().enumerate() {
            match model.error_up(solve.x_hat[i]) {
                Some(s) => *z = add_up(*z, s),
                None => {
                    unstored.get_or_insert(i);
                    *z = f64::INFINITY;
                }
            }
        }
        bound = bound.with_hypothesis(
            "|w(v) - v| <= relative |v| + absolute",
            format!(
                "relative {:e}, absolute {:e}",
                model.relative, model.absolute
            ),
        );
    }
    match (unstored, store) {
        (Some(i), Some(model)) => ElementBounds::partial(
            bound,
            values,
            format!(
                "{RIGOROUS_STORE}: the result fits the storage format (|x^[{i}]| = {:e} > {:e}, \
                 the first that does not)",
                solve.x_hat[i].abs(),
                model.max
            ),
        ),
        _ => ElementBounds::new(bound, values),
    }
}

/// A rigorous bound on the normwise (Rigal-Gaches) backward error of the
/// blocked solve's `x^` (before any store) for the stored system:
/// `eta(x^) = ||b~ - T~ x^||_inf / (||T~||_inf ||x^||_inf) <= ||rho||_inf /
/// (||T~||_inf ||x^||_inf)` with `rho` from [`blocked_inverse_residual`]
/// (Higham 2002, Theorem 7.1 with `E = T`, `f = 0`: `eta` is the smallest
/// `eps` with `(T + dT) x^ = b`, `||dT||_inf <= eps ||T||_inf`). This is the
/// normwise backward-error bound of the algorithm the kernel runs, computed a
/// posteriori from its intermediates; compare [`higham_thm_8_5`], the a priori
/// bound of substitution, which this algorithm need not satisfy.
///
/// Evaluation: `||rho||_inf` rounded up, the denominator rounded down; 0 when
/// `rho = 0`, `+inf` when the denominator is 0 (e.g. `x^ = 0`).
///
/// # Errors
/// As [`blocked_inverse_residual`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::accessor::{blocked_inverse_normwise_backward, BlockedInverseTrsv};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo};
/// // T = [[2, 0], [1, 4]], b = [2, 5]: one block of 2, Y = [[1/2, 0], [-1/8, 1/4]].
/// let a = [2.0, 0.0, 1.0, 4.0];
/// let t = Triangular::new(Matrix::new(2, 2, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// let (b, x) = ([2.0, 5.0], [1.0, 1.0]);
/// let inverses = vec![vec![0.5, 0.0, -0.125, 0.25]];
/// let solve = BlockedInverseTrsv {
///     system: t, b: &b, block: 32, inverses: &inverses, v_hat: &b, x_hat: &x,
///     update_depths: &[0], update_ops: &[0], apply_depth: 32,
/// };
/// let be = blocked_inverse_normwise_backward(Format::FP64, RoundingMode::NearestEven, &solve).unwrap();
/// assert!(be.value > 0.0 && be.value < 1e-14);
/// ```
pub fn blocked_inverse_normwise_backward(
    arithmetic: Format,
    mode: RoundingMode,
    solve: &BlockedInverseTrsv<'_>,
) -> Result<Bound> {
    let rho = blocked_inverse_residual(arithmetic, mode, solve)?;
    let rho_inf = rho.iter().copied().fold(0.0, f64::max);
    let system = &solve.system;
    let t_inf = (0..system.n())
        .map(|i| {
            let (_, off) = system.off_diagonal(i);
            off.iter()
                .fold(system.diagonal(i).abs(), |s, a| add_down(s, a.abs()))
        })
        .fold(0.0, f64::max);
    let x_inf = solve.x_hat.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let denominator = mul_down(t_inf, x_inf);
    let value = if rho_inf == 0.0 {
        0.0
    } else if denominator == 0.0 {
        f64::INFINITY
    } else {
        div_up(rho_inf, denominator)
    };
    Ok(Bound::deterministic(
        value,
        Quantity::BackwardError,
        RIGOROUS_TRSV_BACKWARD,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "residual bound of the blocked solve (bounds::accessor::blocked_inverse_residual)",
        format!("||rho||_inf = {rho_inf:e}"),
    )
    .with_hypothesis(
        "normwise backward error = ||r||_inf / (||T||_inf ||x^||_inf) (Higham 2002, Theorem 7.1)",
        format!("||T||_inf >= {t_inf:e}, ||x^||_inf = {x_inf:e}"),
    ))
}

/// `|a - b|` rounded up (exact when representable); `+inf` if either is not
/// finite (`f64::max` drops a NaN operand: `|NaN - 1|` was 0 until 2026-11-29).
fn abs_diff_up(a: f64, b: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) {
        return f64::INFINITY;
    }
    super::directed::sub_up(a.max(b), a.min(b))
}

/// Moves a gamma failure under the result that needed it.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_product_pairs() {
        assert!(products_exact(Format::FP32, Format::FP64));
        assert!(products_exact(Format::FP16, Format::FP64));
        assert!(products_exact(Format::BF16, Format::FP64));
        assert!(products_exact(Format::FP16, Format::FP32));
        assert!(!products_exact(Format::BF16, Format::FP32));
        assert!(!products_exact(Format::FP32, Format::FP32));
        assert!(products_exact(
            Format::FP16.without_subnormals(),
            Format::FP32
        ));
        // fp16 products are at least 2^-48 >= 2^-126: exact without fp32 subnormals too.
        assert!(products_exact(
            Format::FP16,
            Format::FP32.without_subnormals()
        ));
        // fp32 products reach 2^-298 >= 2^-1022.
        assert!(products_exact(
            Format::FP32,
            Format::FP64.without_subnormals()
        ));
    }

    #[test]
    fn tree_depths() {
        assert_eq!(padded_tree_depth(32), 5);
        assert_eq!(padded_tree_depth(33), 6);
        assert_eq!(padded_tree_depth(2), 1);
    }

    #[test]
    fn store_error_covers_every_fp16_rounding_of_a_few_values() {
        let rne = RoundingMode::NearestEven;
        let model = StoreModel::float(Format::FP16, rne);
        for v in [1e-8, 3e-6, 0.1, 1.0 / 3.0, 1000.1, 65000.0] {
            let stored = Format::FP16.round(v, rne);
            assert!((stored - v).abs() <= model.error_up(v).unwrap(), "{v}");
        }
        assert!(model.error_up(1e6).is_none());
    }
}
