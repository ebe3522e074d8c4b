//! `accessor-axpy`: `y := alpha x + y` through the memory accessor, one FMA per
//! element in the arithmetic format (`fl(alpha x_i + y_i)`, one rounding), then
//! the store. The paper has no AXPY; it is the simplest accessor kernel and
//! isolates the store: before it the error is at most `u_A |alpha x_i + y_i|`
//! (plus an underflow term), after it `u_S |y^_i|` more.

use super::arith::Arith;
use super::common::{
    self, ACCESSOR_PARAMS, ALPHA, abs_diff_up, element_bound, require_stored, with_arith,
};
use super::storage::{Accessor, AccessorSpec, Stored};
use crate::error::Result;
use crate::io::Tensor;
use crate::kernels::BoundCheck;
use crate::kernels::baseline::DOT_INPUTS;
use crate::kernels::{Inputs, Kernel, KernelInfo, KernelRun, ParamSpec, input};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::accessor::{Accumulation, higham_3_5_published};
use boundgate_verify::bounds::directed::{add_up, mul_up};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::oracle::{ErrorMeasure, ExactSum};
use serde_json::json;

/// What one accessor AXPY computed.
#[derive(Clone, Debug)]
pub struct AxpyComputation {
    /// The accessors of `x` and `y`.
    pub accessors: (Accessor, Accessor),
    /// `x` and `y` as stored and read.
    pub stored: (Stored, Stored),
    /// `fl(alpha x_i + y_i)` in the arithmetic format.
    pub before_store: Vec<f64>,
    /// The output (stored and read back, or `before_store`).
    pub output: Vec<f64>,
    /// The accessor of the output.
    pub output_accessor: Option<Accessor>,
}

/// Runs `alpha x + y` through the accessor.
///
/// # Errors
/// Empty or mismatched inputs, `alpha` outside the arithmetic format, integer
/// storage that cannot hold a value.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::axpy::accessor_axpy;
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate_verify::format::Format;
/// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
/// let out = accessor_axpy(&spec, 2.0, &[1.0, 0.5], &[1.0, -1.0], true).unwrap();
/// assert_eq!(out.output, vec![3.0, 0.0]);
/// ```
pub fn accessor_axpy(
    spec: &AccessorSpec,
    alpha: f64,
    x: &[f64],
    y: &[f64],
    store: bool,
) -> Result<AxpyComputation> {
    require_nonempty("x", x)?;
    require_same_len("x and y", x.len(), y.len())?;
    spec.arithmetic.require_values(&[alpha])?;
    let (ax, ay) = (spec.for_data(x)?, spec.for_data(y)?);
    let (sx, sy) = (ax.store(x)?, ay.store(y)?);
    let before_store: Vec<f64> = with_arith!(spec.arithmetic, A => {
        let a = A::of(alpha);
        sx.values
            .iter()
            .zip(&sy.values)
            .map(|(&xi, &yi)| A::fma(a, A::of(xi), A::of(yi)).to_f64())
            .collect()
    });
    let (output, output_accessor) = store_all(spec, &before_store, store)?;
    Ok(AxpyComputation {
        accessors: (ax, ay),
        stored: (sx, sy),
        before_store,
        output,
        output_accessor,
    })
}

/// Writes a computed vector through an accessor scaled for it (IEEE writes),
/// and reads it back; or returns it as computed when `store` is false (or a
/// non-finite result cannot be scaled for integer storage).
pub(crate) fn store_all(
    spec: &AccessorSpec,
    values: &[f64],
    store: bool,
) -> Result<(Vec<f64>, Option<Accessor>)> {
    if !store {
        return Ok((values.to_vec(), None));
    }
    let Ok(acc) = spec.for_data(values) else {
        return Ok((values.to_vec(), None));
    };
    let mut out = Vec::with_capacity(values.len());
    for &v in values {
        if v.is_finite() || spec.storage.float_format().is_some() {
            out.push(acc.read(acc.write_ieee(v)?));
        } else {
            out.push(v);
        }
    }
    Ok((out, Some(acc)))
}

impl AxpyComputation {
    /// Per-element rigorous bounds with respect to `alpha x + y` as given.
    ///
    /// # Errors
    /// Hypotheses the bound needs: the stored values read back from the
    /// storage format, finite results when `store`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::axpy::{accessor_axpy, axpy_errors};
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::check::check;
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Bf16, Format::FP32).unwrap();
    /// let (x, y) = ([0.1, 1e3, -7.77], [2.2, 3.0, 1e-3]);
    /// let out = accessor_axpy(&spec, -0.5, &x, &y, true).unwrap();
    /// let errors = axpy_errors(-0.5, &x, &y, &out.output);
    /// assert!(check(&errors, out.rigorous(-0.5, &x, &y, true)).unwrap().is_pass());
    /// ```
    pub fn rigorous(
        &self,
        alpha: f64,
        x: &[f64],
        y: &[f64],
        store: bool,
    ) -> VResult<ElementBounds> {
        let (sx, sy) = &self.stored;
        require_stored("x", sx, self.accessors.0.spec().storage)?;
        require_stored("y", sy, self.accessors.1.spec().storage)?;
        let arithmetic = self.accessors.0.arithmetic();
        let model = self.output_accessor.map(|a| a.store_model());
        let bounds: Vec<_> = (0..x.len())
            .map(|i| {
                let (xr, yr) = (sx.values[i], sy.values[i]);
                let accumulation = Accumulation {
                    depth: 1,
                    sum_abs: add_up(mul_up(alpha.abs(), xr.abs()), yr.abs()),
                    eta_weight: 1.0,
                    inner: None,
                };
                let representation = add_up(
                    mul_up(alpha.abs(), abs_diff_up(x[i], xr)),
                    abs_diff_up(y[i], yr),
                );
                let store = if store {
                    Some((model.as_ref().ok_or_else(no_store)?, self.before_store[i]))
                } else {
                    None
                };
                element_bound(arithmetic, &accumulation, representation, store)
            })
            .collect();
        ElementBounds::collect(bounds)
    }

    /// Published: one rounding, `u_A |alpha x~ + y~|` as `gamma_1` times the
    /// sum of magnitudes (Higham 2002 (3.5) with n = 1), before the store only.
    ///
    /// # Errors
    /// As [`AxpyComputation::rigorous`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::axpy::accessor_axpy;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32).unwrap();
    /// let out = accessor_axpy(&spec, 2.0, &[1.0, 0.0], &[0.5, 0.0], false).unwrap();
    /// // gamma_1 (|2 x 1| + |0.5|) for the first element; 0 for the zeros.
    /// let b = out.published(2.0).unwrap();
    /// assert!(b.values()[0] > 2.5 * 2f64.powi(-24) && b.values()[0] < 2.5 * 2f64.powi(-23));
    /// assert_eq!(b.values()[1], 0.0);
    /// ```
    pub fn published(&self, alpha: f64) -> VResult<ElementBounds> {
        let (sx, sy) = &self.stored;
        require_stored("x", sx, self.accessors.0.spec().storage)?;
        require_stored("y", sy, self.accessors.1.spec().storage)?;
        let arithmetic = self.accessors.0.arithmetic();
        let bounds: Vec<_> = (0..sx.values.len())
            .map(|i| {
                let s = add_up(mul_up(alpha.abs(), sx.values[i].abs()), sy.values[i].abs());
                higham_3_5_published(arithmetic, None, false, 1, s, self.before_store[i])
            })
            .collect();
        ElementBounds::collect(bounds)
    }
}

fn no_store() -> boundgate_verify::VerifyError {
    boundgate_verify::VerifyError::HypothesisNotMet {
        source_ref: "accessor store".into(),
        hypothesis: "finite results to store".into(),
        detail: "a result is NaN or infinite".into(),
    }
}

/// The exact `alpha x_i + y_i` and the error of each computed element.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::axpy::axpy_errors;
/// use boundgate_verify::oracle::ErrorMeasure;
/// // 3 x 0.1 + 0 in binary64 is 0.30000000000000004, above the exact product.
/// let e = axpy_errors(3.0, &[0.1], &[0.0], &[0.30000000000000004]);
/// let ErrorMeasure::Finite { absolute_up, .. } = e[0] else { panic!() };
/// assert!(absolute_up > 0.0 && absolute_up < 1e-16);
/// ```
pub fn axpy_errors(alpha: f64, x: &[f64], y: &[f64], computed: &[f64]) -> Vec<ErrorMeasure> {
    let mut s = ExactSum::new();
    (0..x.len())
        .map(|i| {
            s.clear();
            s.add_product(alpha, x[i]);
            s.add(y[i]);
            s.error_of(computed[i])
        })
        .collect()
}

/// `accessor-axpy`.
pub struct AccessorAxpy;

const PARAMS: [ParamSpec; 9] = {
    let mut p = [ALPHA; 9];
    let mut i = 0;
    while i < ACCESSOR_PARAMS.len() {
        p[i] = ACCESSOR_PARAMS[i];
        i += 1;
    }
    p
};

const INFO: KernelInfo = KernelInfo {
    name: "accessor-axpy",
    summary: "y := alpha x + y through the memory accessor: one FMA per element in the arithmetic format, then the store",
    inputs: DOT_INPUTS,
    params: &PARAMS,
    non_finite: super::common::NON_FINITE,
};

impl Kernel for AccessorAxpy {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &crate::kernels::Params) -> Result<KernelRun> {
        let spec = common::spec(params)?;
        let store = params.bool("store")?;
        let alpha = common::scalar(params, "alpha", spec.arithmetic)?;
        let x = input(inputs, &DOT_INPUTS[0])?.data();
        let y = input(inputs, &DOT_INPUTS[1])?.data();
        let c = accessor_axpy(&spec, alpha, x, y, store)?;
        let details = json!({
            "order": "one FMA per element (kernels/accessor_blas.cu)",
            "accessor": spec,
            "alpha": alpha,
            "scales": [c.accessors.0.scale(), c.accessors.1.scale()],
            "store": store,
        });
        Ok(KernelRun {
            errors_as_given: axpy_errors(alpha, x, y, &c.output),
            errors_as_stored: axpy_errors(alpha, &c.stored.0.values, &c.stored.1.values, &c.output),
            rigorous: BoundCheck::rigorous(c.rigorous(alpha, x, y, store)),
            others: if store {
                Vec::new()
            } else {
                vec![BoundCheck::published(
                    "published: Higham 2002 (3.5), n = 1",
                    c.published(alpha),
                )]
            },
            output: Tensor::vector(c.output),
            details,
        })
    }
}
