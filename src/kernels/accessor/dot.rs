//! `accessor-dot`: the dot product through the memory accessor (Grützmacher et
//! al. 2021, §4.2), in the order of `kernels/accessor_blas.cu`
//! ([`grid_dot`]: grid-stride FMA chains in the arithmetic format, warp and
//! block trees, a final block over the partial sums).
//!
//! Bounds (`boundgate_verify::bounds::accessor`): before the store,
//! `|s^ - s~| <= gamma_depth S~ + (1 + gamma_depth) w eta_A` with `depth` from
//! [`GridConfig::depth`] and `w = 0` when the products of stored values are
//! exact in the arithmetic format (fp32 storage, fp64 arithmetic), else `n`;
//! plus the representation error of the stored inputs with respect to the
//! inputs as given, plus, when the result is stored, `u_S |s^| + eta_S`.

use super::arith::{Arith, to_arith};
use super::common::{
    self, ACCESSOR_PARAMS, abs_sum_up, element_bound, products_representation_up, require_stored,
    with_arith,
};
use super::order::{GridConfig, grid_dot};
use super::storage::{Accessor, AccessorSpec, Stored, fma_exact};
use crate::error::Result;
use crate::io::Tensor;
use crate::kernels::BoundCheck;
use crate::kernels::baseline::DOT_INPUTS;
use crate::kernels::{Inputs, Kernel, KernelInfo, KernelRun, ParamSpec, input};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::accessor::{Accumulation, higham_3_5_published};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::oracle;
use serde_json::json;

/// What one accessor dot product computed.
#[derive(Clone, Debug)]
pub struct DotComputation {
    /// The accessor of `x` and of `y`.
    pub accessors: (Accessor, Accessor),
    /// `x` and `y` as stored and read.
    pub stored: (Stored, Stored),
    /// The result in the arithmetic format, before the store.
    pub before_store: f64,
    /// The output: the stored result read back, or `before_store`.
    pub output: f64,
    /// The accessor the output was written with (scale from the result).
    pub output_accessor: Option<Accessor>,
    /// The launch geometry.
    pub config: GridConfig,
    /// Most roundings on a term's path.
    pub depth: u64,
    /// Whether the FMA chains are free of underflow errors.
    pub exact_products: bool,
}

/// Runs the accessor dot product: stores `x` and `y`, computes in the GPU
/// order, and stores the result if `store`.
///
/// # Errors
/// Empty or mismatched inputs; integer storage that cannot hold a value.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::dot::accessor_dot;
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate_verify::format::Format;
/// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
/// // 2^24 + 1 + 1: fp32 arithmetic loses both ones in a row; fp64 keeps them,
/// // and the sum 2^24 + 2 is an fp32 number.
/// let x = [16_777_216.0, 1.0, 1.0];
/// let out = accessor_dot(&spec, &x, &[1.0; 3], true).unwrap();
/// assert_eq!(out.output, 16_777_218.0);
/// ```
pub fn accessor_dot(
    spec: &AccessorSpec,
    x: &[f64],
    y: &[f64],
    store: bool,
) -> Result<DotComputation> {
    require_nonempty("x", x)?;
    require_same_len("x and y", x.len(), y.len())?;
    let (ax, ay) = (spec.for_data(x)?, spec.for_data(y)?);
    let (sx, sy) = (ax.store(x)?, ay.store(y)?);
    let (before_store, config) = with_arith!(spec.arithmetic, A => {
        let (v, c) = grid_dot::<A>(&to_arith(&sx.values), &to_arith(&sy.values));
        (v.to_f64(), c)
    });
    let (output, output_accessor) = if store {
        let acc = spec.for_data(&[before_store]).ok();
        match acc {
            Some(acc) => (acc.read(acc.write_ieee(before_store)?), Some(acc)),
            // A non-finite result cannot be scaled for integer storage.
            None => (before_store, None),
        }
    } else {
        (before_store, None)
    };
    Ok(DotComputation {
        depth: config.depth(x.len()),
        exact_products: fma_exact(&ax, &ay, spec.arithmetic),
        accessors: (ax, ay),
        stored: (sx, sy),
        before_store,
        output,
        output_accessor,
        config,
    })
}

impl DotComputation {
    /// The rigorous bound with respect to the exact dot product of `x` and `y`
    /// as given.
    ///
    /// # Errors
    /// Hypotheses the bound needs: the stored values read back from the
    /// storage format, a finite result when `store`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::dot::accessor_dot;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::check::check;
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    /// let (x, y) = ([0.1, -0.7, 1.3, 2.9], [3.3, 0.25, -1.1, 0.6]);
    /// let out = accessor_dot(&spec, &x, &y, true).unwrap();
    /// // Against the exact dot of the inputs as given (before their store to fp16).
    /// let error = oracle::dot(&x, &y).unwrap().error_of(out.output);
    /// let verdict = check(&[error], out.rigorous(&x, &y, true)).unwrap();
    /// assert!(verdict.is_pass());
    /// ```
    pub fn rigorous(&self, x: &[f64], y: &[f64], store: bool) -> VResult<ElementBounds> {
        let (sx, sy) = &self.stored;
        require_stored("x", sx, self.accessors.0.spec().storage)?;
        require_stored("y", sy, self.accessors.1.spec().storage)?;
        let n = x.len();
        let accumulation = Accumulation {
            depth: self.depth,
            sum_abs: abs_sum_up(sx.values.iter().copied().zip(sy.values.iter().copied())),
            eta_weight: if self.exact_products { 0.0 } else { n as f64 },
            inner: None,
        };
        let representation = products_representation_up(
            x.iter().copied().zip(sx.values.iter().copied()),
            y.iter().copied().zip(sy.values.iter().copied()),
        );
        let model = self.output_accessor.map(|a| a.store_model());
        let store = match (store, &model) {
            (true, Some(m)) => Some((m, self.before_store)),
            (true, None) => {
                return Err(boundgate_verify::VerifyError::HypothesisNotMet {
                    source_ref: "accessor store".into(),
                    hypothesis: "a finite result to store".into(),
                    detail: format!("result {}", self.before_store),
                });
            }
            (false, _) => None,
        };
        let arithmetic = self.accessors.0.arithmetic();
        ElementBounds::collect(vec![element_bound(
            arithmetic,
            &accumulation,
            representation,
            store,
        )])
    }

    /// The published bound (Higham 2002 (3.5) with `n` = depth), on the
    /// stored values; with the store as one more first-order rounding.
    ///
    /// # Errors
    /// As [`DotComputation::rigorous`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::dot::accessor_dot;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
    /// let x = [0.5, -0.25, 3.0];
    /// let out = accessor_dot(&spec, &x, &x, false).unwrap();
    /// // First order: about depth x u_64 x sum |x_i y_i| = 9.3125.
    /// let b = out.published(false).unwrap().values()[0];
    /// assert!(b > 0.0 && b < 1e-13);
    /// ```
    pub fn published(&self, store: bool) -> VResult<ElementBounds> {
        let (sx, sy) = &self.stored;
        require_stored("x", sx, self.accessors.0.spec().storage)?;
        require_stored("y", sy, self.accessors.1.spec().storage)?;
        let sum_abs = abs_sum_up(sx.values.iter().copied().zip(sy.values.iter().copied()));
        let bound = higham_3_5_published(
            self.accessors.0.arithmetic(),
            self.accessors.0.storage_write(),
            store,
            self.depth,
            sum_abs,
            self.before_store,
        )?;
        Ok(ElementBounds::uniform(bound, 1))
    }
}

/// `accessor-dot`.
pub struct AccessorDot;

const INFO: KernelInfo = KernelInfo {
    name: "accessor-dot",
    summary: "dot product through the memory accessor (storage format in memory, arithmetic format in registers); GPU order: grid-stride FMA chains, warp and block trees",
    inputs: DOT_INPUTS,
    params: &PARAMS,
    non_finite: super::common::NON_FINITE,
};

/// The accessor parameters and `backend` ([`super::device`]).
const PARAMS: [ParamSpec; 9] = {
    let mut p = [super::device::BACKEND; 9];
    let mut i = 0;
    while i < ACCESSOR_PARAMS.len() {
        p[i] = ACCESSOR_PARAMS[i];
        i += 1;
    }
    p
};

impl Kernel for AccessorDot {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &crate::kernels::Params) -> Result<KernelRun> {
        let spec = common::spec(params)?;
        let store = params.bool("store")?;
        let x = input(inputs, &DOT_INPUTS[0])?.data();
        let y = input(inputs, &DOT_INPUTS[1])?.data();
        let c = accessor_dot(&spec, x, y, store)?;
        let ran_on = super::device::run(
            params,
            &spec,
            super::device::Launch::Dot { x, y },
            super::device::ModelResults {
                before_store: &[c.before_store],
                stored: store.then_some(&[c.output][..]),
                inverses: &[],
            },
        )?;
        let as_given = oracle::dot(x, y)?.error_of(c.output);
        let as_stored = oracle::dot(&c.stored.0.values, &c.stored.1.values)?.error_of(c.output);
        let details = json!({
            "order": "grid-stride FMA chains, warp trees, block tree, final block (kernels/accessor_blas.cu)",
            "accessor": spec,
            "scales": [c.accessors.0.scale(), c.accessors.1.scale()],
            "threads_per_block": c.config.threads,
            "blocks": c.config.blocks,
            "depth": c.depth,
            "exact_products": c.exact_products,
            "before_store": c.before_store,
            "store": store,
            "ran_on": ran_on.describe(),
        });
        Ok(KernelRun {
            output: Tensor::scalar(c.output),
            rigorous: BoundCheck::rigorous(c.rigorous(x, y, store)),
            others: vec![BoundCheck::published(
                if store {
                    "published: Higham 2002 (3.5), n = depth, + u_S|s^| for the store"
                } else {
                    "published: Higham 2002 (3.5), n = depth"
                },
                c.published(store),
            )],
            errors_as_given: vec![as_given],
            errors_as_stored: vec![as_stored],
            details,
        })
    }
}
