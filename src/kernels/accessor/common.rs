//! What the accessor kernels share: their parameters, the assembly of
//! per-element bounds (arithmetic, representation, store) and of a run.

use super::storage::{AccessorSpec, IntOverflow, IntRounding, ScaleRule, StorageKind, Stored};
use crate::error::{Error, Result};
use crate::kernels::{ParamKind, ParamSpec, Params};
use boundgate_verify::bounds::Bound;
use boundgate_verify::bounds::accessor::{
    Accumulation, InnerSum, StoreModel, after_store, higham_3_5_published, rigorous_accumulation,
};
use boundgate_verify::bounds::directed::{add_up, mul_up, sub_up};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::{Result as VResult, VerifyError};

/// What the accessor kernels do with NaN or infinite inputs.
pub const NON_FINITE: crate::kernels::NonFiniteInputs =
    crate::kernels::NonFiniteInputs::PropagatedUnless(
        "refused (exit 2) with integer storage, since an integer has no NaN or infinity and the absmax \
         scale is not defined for them; and, as in BLAS, GEMV and SpMV read neither A nor x when \
         alpha = 0, nor y when beta = 0, and TRSV reads only its triangle, so a NaN there does not \
         reach the output; AXPY computes fma(alpha, x, y) whatever alpha, as its GPU kernel does, so \
         at alpha = 0 a NaN or infinite x still reaches y (reference BLAS returns y unchanged)",
    );

/// `storage`: what memory holds.
pub const STORAGE: ParamSpec = ParamSpec {
    key: "storage",
    default: "fp32",
    kind: ParamKind::Choice(StorageKind::NAMES),
    help: "storage format: fp64, fp32, fp16, bf16, or int8/int16/int32 times a power-of-two scale",
};
/// `arithmetic`: what registers compute in.
pub const ARITHMETIC: ParamSpec = ParamSpec {
    key: "arithmetic",
    default: "fp64",
    kind: ParamKind::Choice(&["fp64", "fp32"]),
    help: "arithmetic format (must contain the storage format: reads widen exactly)",
};
/// `write`: rounding of writes to floating-point storage.
pub const WRITE: ParamSpec = ParamSpec {
    key: "write",
    default: "rne",
    kind: ParamKind::Mode,
    help: "rounding of writes to floating-point storage (inputs and the output): rne, rtz, rup, rdn",
};
/// `ftz`: flush subnormal writes to zero.
pub const FTZ: ParamSpec = ParamSpec {
    key: "ftz",
    default: "false",
    kind: ParamKind::Bool,
    help: "floating-point writes flush subnormal results to zero",
};
/// `scale`: the scale rule of integer storage.
pub const SCALE: ParamSpec = ParamSpec {
    key: "scale",
    default: "auto",
    kind: ParamKind::Choice(&["auto", "none", "absmax"]),
    help: "integer storage: absmax (least power of two s with max|v| <= K s, per array; auto) or none (s = 1)",
};
/// `int_rounding`: truncate or round integer writes.
pub const INT_ROUNDING: ParamSpec = ParamSpec {
    key: "int_rounding",
    default: "truncate",
    kind: ParamKind::Choice(&["truncate", "nearest"]),
    help: "integer writes: truncate toward zero (C++ static_cast, Ginkgo) or round to nearest even",
};
/// `int_overflow`: refuse or saturate out-of-range integer writes.
pub const INT_OVERFLOW: ParamSpec = ParamSpec {
    key: "int_overflow",
    default: "error",
    kind: ParamKind::Choice(&["error", "saturate"]),
    help: "integer writes out of range: error (Ginkgo does not saturate) or saturate",
};
/// `store`: write the output to the storage format.
pub const STORE: ParamSpec = ParamSpec {
    key: "store",
    default: "true",
    kind: ParamKind::Bool,
    help: "true: the output is written to the storage format (as in memory); false: the arithmetic result before the store",
};
/// The values `alpha` takes (ParamKind has no free number kind).
pub const ALPHAS: &[&str] = &["1", "-1", "2", "0.5", "-0.5", "0.25", "3", "0"];
/// The values `beta` takes.
pub const BETAS: &[&str] = &["0", "1", "-1", "0.5", "2", "-2"];
/// `alpha`.
pub const ALPHA: ParamSpec = ParamSpec {
    key: "alpha",
    default: "1",
    kind: ParamKind::Choice(ALPHAS),
    help: "the scalar alpha",
};
/// `beta`.
pub const BETA: ParamSpec = ParamSpec {
    key: "beta",
    default: "0",
    kind: ParamKind::Choice(BETAS),
    help: "the scalar beta (the input y is read only when beta != 0)",
};

/// The parameters every accessor kernel takes.
pub const ACCESSOR_PARAMS: [ParamSpec; 8] = [
    STORAGE,
    ARITHMETIC,
    WRITE,
    FTZ,
    SCALE,
    INT_ROUNDING,
    INT_OVERFLOW,
    STORE,
];

/// The parameters of a kernel with `alpha` and `beta` (GEMV, SpMV): every
/// accessor parameter, then `alpha`, `beta`, the kernel's own `last`
/// (`trans`, `sparse`) and `backend` (both have a CUDA kernel:
/// [`super::device`]).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::{ACCESSOR_PARAMS, params_with_scalars};
/// use boundgate::kernels::accessor::gemv::TRANS;
/// let p = params_with_scalars(TRANS);
/// assert_eq!(p[..8].iter().map(|s| s.key).collect::<Vec<_>>(),
///            ACCESSOR_PARAMS.iter().map(|s| s.key).collect::<Vec<_>>());
/// assert_eq!([p[8].key, p[9].key, p[10].key, p[11].key], ["alpha", "beta", "trans", "backend"]);
/// ```
pub const fn params_with_scalars(last: ParamSpec) -> [ParamSpec; 12] {
    let mut p = [last; 12];
    let mut i = 0;
    while i < ACCESSOR_PARAMS.len() {
        p[i] = ACCESSOR_PARAMS[i];
        i += 1;
    }
    p[8] = ALPHA;
    p[9] = BETA;
    p[11] = super::device::BACKEND;
    p
}

/// The accessor configuration from the parameters.
///
/// # Errors
/// [`Error::Usage`] for an unknown storage or arithmetic, or a pair whose
/// reads do not widen exactly.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::spec;
/// use boundgate::kernels::accessor::dot::AccessorDot;
/// use boundgate::kernels::accessor::storage::StorageKind;
/// use boundgate::kernels::Params;
/// let p = Params::parse(&AccessorDot, &["storage=bf16".into(), "ftz=true".into()]).unwrap();
/// let s = spec(&p).unwrap();
/// assert_eq!((s.storage, s.ftz), (StorageKind::Bf16, true));
/// let bad = Params::parse(&AccessorDot, &["storage=fp64".into(), "arithmetic=fp32".into()]).unwrap();
/// assert!(spec(&bad).is_err());
/// ```
pub fn spec(params: &Params) -> Result<AccessorSpec> {
    let storage = StorageKind::parse(params.text("storage")?)?;
    let arithmetic = Format::by_name(params.text("arithmetic")?)?;
    let mut spec = AccessorSpec::new(storage, arithmetic)?;
    spec.write_mode = params.mode("write")?;
    spec.ftz = params.bool("ftz")?;
    spec.scale = match params.text("scale")? {
        "none" => ScaleRule::None,
        "absmax" => ScaleRule::Absmax,
        _ => ScaleRule::Auto,
    };
    spec.int_rounding = match params.text("int_rounding")? {
        "nearest" => IntRounding::Nearest,
        _ => IntRounding::Truncate,
    };
    spec.int_overflow = match params.text("int_overflow")? {
        "saturate" => IntOverflow::Saturate,
        _ => IntOverflow::Error,
    };
    spec.validate()?;
    Ok(spec)
}

/// A scalar parameter (`alpha`, `beta`), which must be a number of the
/// arithmetic format.
///
/// # Errors
/// [`Error::Usage`] for a value that is not a number of `arithmetic`.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::scalar;
/// use boundgate::kernels::accessor::gemv::AccessorGemv;
/// use boundgate::kernels::Params;
/// use boundgate_verify::format::Format;
/// let p = Params::parse(&AccessorGemv, &["alpha=0.25".into()]).unwrap();
/// assert_eq!(scalar(&p, "alpha", Format::FP32).unwrap(), 0.25);
/// // The kernels offer only such numbers (ALPHAS, BETAS), so the check
/// // guards a future choice that is not one.
/// assert!(Params::parse(&AccessorGemv, &["alpha=0.1".into()]).is_err());
/// ```
pub fn scalar(params: &Params, key: &str, arithmetic: Format) -> Result<f64> {
    let v = params.f64(key)?;
    if !arithmetic.is_representable(v) {
        return Err(Error::usage(format!(
            "parameter {key}={v} is not a number of the arithmetic format {arithmetic}"
        )));
    }
    Ok(v)
}

/// Calls `$body` with `$a` bound to the native type of the arithmetic format.
macro_rules! with_arith {
    ($format:expr, $a:ident => $body:expr) => {
        if $format == boundgate_verify::format::Format::FP32 {
            type $a = f32;
            $body
        } else {
            type $a = f64;
            $body
        }
    };
}
pub(crate) use with_arith;

/// `|a - b|` rounded up; infinite if either is not finite.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::abs_diff_up;
/// let d = abs_diff_up(1.0, -1e-30); // 1 + 1e-30 is not an f64: the next one up
/// assert_eq!(d, 1.0 + f64::EPSILON);
/// assert_eq!(abs_diff_up(f64::NAN, 0.0), f64::INFINITY);
/// ```
pub fn abs_diff_up(a: f64, b: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) {
        return f64::INFINITY;
    }
    sub_up(a.max(b), a.min(b))
}

/// `sum_k |a~_k x~_k - a_k x_k|` rounded up, from `a~ x~ - a x = (a~ - a) x~ +
/// a (x~ - x)`: the representation error of a sum of products whose factors
/// were stored (`a`, `x` as given; `a~`, `x~` as read).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::products_representation_up;
/// // a = 0.1 stored as its fp32 neighbour, x = 2 stored exactly.
/// let a = [(0.1, 0.1f32 as f64)];
/// let x = [(2.0, 2.0)];
/// let r = products_representation_up(a.into_iter(), x.into_iter());
/// assert!(r >= 2.0 * (0.1f32 as f64 - 0.1) && r <= 2.0 * (0.1f32 as f64 - 0.1) * (1.0 + 1e-15));
/// ```
pub fn products_representation_up(
    a: impl Iterator<Item = (f64, f64)>,
    x: impl Iterator<Item = (f64, f64)>,
) -> f64 {
    a.zip(x).fold(0.0, |s, ((ag, ar), (xg, xr))| {
        let da = abs_diff_up(ag, ar);
        let dx = abs_diff_up(xg, xr);
        let mut t = 0.0;
        if da != 0.0 {
            t = add_up(t, mul_up(da, xr.abs()));
        }
        if dx != 0.0 {
            t = add_up(t, mul_up(ag.abs(), dx));
        }
        add_up(s, t)
    })
}

/// The hypothesis every bound on stored data needs: the inputs fit the storage.
///
/// # Errors
/// [`VerifyError::HypothesisNotMet`] naming the first input that overflowed.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::require_stored;
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate_verify::format::Format;
/// let fp16 = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap().for_data(&[]).unwrap();
/// assert!(require_stored("x", &fp16.store(&[1.0]).unwrap(), StorageKind::Fp16).is_ok());
/// let e = require_stored("x", &fp16.store(&[1.0, 1e5]).unwrap(), StorageKind::Fp16).unwrap_err();
/// assert!(e.to_string().contains("x[1]"), "{e}");
/// ```
pub fn require_stored(name: &str, stored: &Stored, storage: StorageKind) -> VResult<()> {
    if let Some((index, value)) = stored.overflow {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "every accessor bound".into(),
            hypothesis: format!("every input is finite in {}", storage.name()),
            detail: format!("{name}[{index}] = {value:e} overflows it"),
        });
    }
    if let Some(index) = stored.values.iter().position(|v| !v.is_finite()) {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "every accessor bound".into(),
            hypothesis: "finite inputs".into(),
            detail: format!("{name}[{index}] = {}", stored.values[index]),
        });
    }
    Ok(())
}

/// One output element's rigorous bound with respect to the exact result on
/// the inputs as given: the accumulation bound, plus the representation
/// error, plus (when the output is stored) the store's error.
///
/// # Errors
/// The accumulation bound's hypotheses (no overflow, depth within
/// `gamma`'s range).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::element_bound;
/// use boundgate_verify::bounds::accessor::Accumulation;
/// use boundgate_verify::format::Format;
/// let acc = Accumulation { depth: 10, sum_abs: 1.0, eta_weight: 0.0, inner: None };
/// let alone = element_bound(Format::FP64, &acc, 0.0, None).unwrap().value;
/// assert!(alone >= 10.0 * 2f64.powi(-53) && alone < 11.0 * 2f64.powi(-53));
/// // The representation error adds to it.
/// assert!(element_bound(Format::FP64, &acc, 1e-9, None).unwrap().value >= alone + 1e-9);
/// ```
pub fn element_bound(
    arithmetic: Format,
    accumulation: &Accumulation,
    representation: f64,
    store: Option<(&StoreModel, f64)>,
) -> VResult<Bound> {
    let mut bound = rigorous_accumulation(arithmetic, RoundingMode::NearestEven, accumulation)?;
    if representation != 0.0 {
        bound.value = add_up(bound.value, representation);
        bound = bound.with_hypothesis(
            "inputs written to the storage format",
            format!("representation error <= {representation:e} added"),
        );
    }
    match store {
        Some((model, computed)) => after_store(&bound, model, computed),
        None => Ok(bound),
    }
}

/// The accumulation of a BLAS output `fl(alpha s) ` (or `fma(alpha, s,
/// fl(beta y))` when `beta != 0`), where the sum `s` has depth `sum_depth`:
/// product terms get one more rounding when `alpha != 1` or `beta != 0`, the
/// term `beta y` two; the chain's underflow terms (`chain_ops` of them, 0 for
/// exact products) are scaled by `|alpha|`, and the final operations add up
/// to 2 more. `sum_abs` bounds `sum |a x|` of the stored values, `y_abs` is `|y~|`.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::blas_accumulation;
/// let acc = blas_accumulation(10, 0.0, 1.0, 0.0, 5.0, 0.0);
/// assert_eq!((acc.depth, acc.sum_abs, acc.eta_weight), (10, 5.0, 0.0));
/// let acc = blas_accumulation(10, 4.0, -2.0, 1.0, 5.0, 3.0);
/// assert_eq!((acc.depth, acc.sum_abs, acc.eta_weight), (11, 13.0, 10.0));
/// ```
pub fn blas_accumulation(
    sum_depth: u64,
    chain_ops: f64,
    alpha: f64,
    beta: f64,
    sum_abs: f64,
    y_abs: f64,
) -> Accumulation {
    if alpha == 0.0 {
        // The sum is not read (`blas_epilogue`): `fl(beta y0)` or 0. Nor are
        // `sum_depth`, `chain_ops` and `sum_abs` (which may then be NaN).
        let ops = u64::from(beta != 0.0);
        return Accumulation {
            depth: ops,
            sum_abs: mul_up(beta.abs(), y_abs),
            eta_weight: ops as f64,
            inner: None,
        };
    }
    let extra = u64::from(alpha != 1.0 || beta != 0.0);
    let final_ops = (extra + u64::from(beta != 0.0)) as f64;
    Accumulation {
        depth: (sum_depth + extra).max(if beta != 0.0 { 2 } else { 0 }),
        sum_abs: add_up(mul_up(alpha.abs(), sum_abs), mul_up(beta.abs(), y_abs)),
        eta_weight: add_up(mul_up(alpha.abs(), chain_ops), final_ops),
        // The sum is formed before alpha scales it: with |alpha| < 1 it can
        // overflow while alpha s could not (found by review, 2026-11-25).
        inner: (alpha != 1.0).then_some(InnerSum {
            depth: sum_depth,
            sum_abs,
            eta_weight: chain_ops,
        }),
    }
}

/// Output `i` of GEMV and SpMV from the sum `s = (op(A) x)_i` in the
/// arithmetic `A`, as BLAS defines the epilogue: `y0` (the initial `y_i`) is
/// read only when `beta != 0`, and the sum only when `alpha != 0` (reference
/// BLAS leaves `A` and `x` unreferenced then: a NaN in them does not reach
/// `y`, and the exact oracle, `oracle::blas`, skips them too). Otherwise
/// `fl(alpha s)` or `fma(alpha, s, fl(beta y0))`. `kernels/accessor_blas.cu`'s
/// `finish` is the same.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::blas_epilogue;
/// assert_eq!(blas_epilogue::<f64>(0.0, 2.0, f64::NAN, Some(3.0)), 6.0);
/// assert_eq!(blas_epilogue::<f64>(0.0, 0.0, f64::NAN, None).to_bits(), 0);
/// assert_eq!(blas_epilogue::<f64>(2.0, 1.0, 1.5, Some(1.0)), 4.0);
/// ```
pub fn blas_epilogue<A: super::arith::Arith>(alpha: f64, beta: f64, s: A, y0: Option<f64>) -> f64 {
    let y0 = y0
        .filter(|_| beta != 0.0)
        .map(|y| A::mul(A::of(beta), A::of(y)));
    match (alpha == 0.0, y0) {
        (true, None) => 0.0,
        (true, Some(by)) => by.to_f64(),
        (false, None) => A::mul(A::of(alpha), s).to_f64(),
        (false, Some(by)) => A::fma(A::of(alpha), s, by).to_f64(),
    }
}

/// `|alpha| r` rounded up, `r` the representation error of the products
/// `alpha` scales (GEMV, SpMV); 0 for `alpha = 0`, whose products are not
/// read ([`blas_epilogue`]), so `r` is not evaluated then (a NaN in `A` or
/// `x` would make it NaN).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::scaled_products_up;
/// assert_eq!(scaled_products_up(-2.0, || 0.5), 1.0);
/// assert_eq!(scaled_products_up(0.0, || f64::NAN), 0.0); // not evaluated
/// ```
pub fn scaled_products_up(alpha: f64, r: impl FnOnce() -> f64) -> f64 {
    if alpha == 0.0 {
        0.0
    } else {
        mul_up(alpha.abs(), r())
    }
}

/// The published bounds (Higham 2002 (3.5), [`higham_3_5_published`]) of
/// the rows of a GEMV or SpMV: row `i`'s accumulation and its computed value
/// before the store, one bound per row (a row that fails the no-overflow
/// hypothesis has none; the others are judged).
///
/// # Errors
/// Other errors of [`higham_3_5_published`].
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::published_rows;
/// use boundgate_verify::bounds::accessor::Accumulation;
/// use boundgate_verify::format::Format;
/// let rows = [1.0, 3.0];
/// let b = published_rows((Format::FP32, None), false, &rows, |i| Accumulation {
///     depth: 4, sum_abs: rows[i], eta_weight: 0.0, inner: None,
/// }).unwrap();
/// // Linear in each row's sum of magnitudes.
/// assert_eq!(b.values()[1], 3.0 * b.values()[0]);
/// ```
pub fn published_rows(
    (arithmetic, storage): (Format, Option<(Format, RoundingMode)>),
    store: bool,
    before_store: &[f64],
    accumulation: impl Fn(usize) -> Accumulation,
) -> VResult<ElementBounds> {
    ElementBounds::collect(before_store.iter().enumerate().map(|(i, &computed)| {
        let acc = accumulation(i);
        higham_3_5_published(arithmetic, storage, store, acc.depth, acc.sum_abs, computed)
    }))
}

/// `sum_k |a_k x_k|` rounded up over stored values.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::common::abs_sum_up;
/// assert_eq!(abs_sum_up([(-2.0, 3.0), (0.5, -0.5)].into_iter()), 6.25);
/// // 1 + 2^-60 rounded up is the next f64 above 1.
/// assert_eq!(abs_sum_up([(1.0, 1.0), (2f64.powi(-30), 2f64.powi(-30))].into_iter()), 1.0 + f64::EPSILON);
/// ```
pub fn abs_sum_up(terms: impl Iterator<Item = (f64, f64)>) -> f64 {
    terms.fold(0.0, |s, (a, x)| add_up(s, mul_up(a.abs(), x.abs())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn representation_bound_holds_exactly_on_a_small_case() {
        let rne = RoundingMode::NearestEven;
        let a = [0.1, -0.7, 1e-30];
        let x = [0.3, 2.0 / 3.0, 5.0];
        let ar: Vec<f64> = a.iter().map(|&v| Format::FP16.round(v, rne)).collect();
        let xr: Vec<f64> = x.iter().map(|&v| Format::FP16.round(v, rne)).collect();
        let bound = products_representation_up(
            a.iter().copied().zip(ar.iter().copied()),
            x.iter().copied().zip(xr.iter().copied()),
        );
        let exact: rug::Rational = (0..3)
            .map(|k| {
                let q = |v: f64| rug::Rational::from_f64(v).unwrap();
                (q(ar[k]) * q(xr[k]) - q(a[k]) * q(x[k])).abs()
            })
            .sum();
        assert!(exact <= rug::Rational::from_f64(bound).unwrap());
    }
}
