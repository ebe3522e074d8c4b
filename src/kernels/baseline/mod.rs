//! The baseline kernel family: dot products in one format, in three orders.
//!
//! - [`recursive`]: `s_k = fl(s_{k-1} + fl(x_k y_k))`, or with FMA
//!   `s_k = fl(s_{k-1} + x_k y_k)`, left to right (Higham 2002, §3.1).
//! - [`pairwise`]: rounded products summed by recursive halving (Higham 2002, §4.2).
//! - [`tree_dot`]: the order of the GPU baseline kernel (`kernels/dot.cu`).
//!
//! Each kernel reads its inputs rounded to its format (round to nearest even)
//! and computes in that format with a chosen rounding mode; [`dot_run`] then
//! measures the error with the exact oracle and evaluates the bounds.

pub mod pairwise;
pub mod recursive;
pub mod tightness;
pub mod tree;
pub mod tree_dot;

use super::{BoundCheck, InputSpec, Inputs, Kernel, KernelRun, ParamKind, ParamSpec, Shape, input};
use crate::audit::experiment::Experiment;
use crate::error::Result;
use crate::io::Tensor;
use boundgate_verify::bounds::Bound;
use boundgate_verify::bounds::directed::add_up;
use boundgate_verify::bounds::dot::{abs_dot_up, representation_error_up};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle;
use boundgate_verify::{Result as VResult, VerifyError};

/// The baseline family's kernels.
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![
        &recursive::RecursiveDot,
        &pairwise::PairwiseDot,
        &tree::TreeDot,
    ]
}

/// The baseline family's experiments.
pub fn experiments() -> Vec<&'static dyn Experiment> {
    vec![&tightness::DotTightness]
}

/// The two inputs of every dot kernel.
pub const DOT_INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "x",
        shape: Shape::Vector,
        help: "first vector",
    },
    InputSpec {
        name: "y",
        shape: Shape::Vector,
        help: "second vector, same length",
    },
];

/// The `format` parameter of the one-format kernels (storage and arithmetic).
pub const FORMAT_PARAM: ParamSpec = ParamSpec {
    key: "format",
    default: "fp32",
    kind: ParamKind::Format,
    help: "storage and arithmetic format: fp64, fp32, tf32, bf16, fp16, e4m3, e5m2",
};

/// The `mode` parameter: rounding of the arithmetic.
pub const MODE_PARAM: ParamSpec = ParamSpec {
    key: "mode",
    default: "rne",
    kind: ParamKind::Mode,
    help: "rounding of the arithmetic: rne, rtz, rup, rdn (inputs are always rounded to nearest)",
};

/// A dot product's inputs as given and as stored in the kernel's format.
#[derive(Clone, Debug)]
pub struct DotOperands {
    /// x as given.
    pub x: Vec<f64>,
    /// y as given.
    pub y: Vec<f64>,
    /// x rounded to the storage format (nearest even).
    pub x_stored: Vec<f64>,
    /// y rounded to the storage format.
    pub y_stored: Vec<f64>,
    /// The storage format.
    pub storage: Format,
}

impl DotOperands {
    /// Takes `x` and `y` from the inputs and rounds them to `storage`.
    pub fn from_inputs(inputs: &Inputs, storage: Format) -> Result<DotOperands> {
        let x = input(inputs, &DOT_INPUTS[0])?.data().to_vec();
        let y = input(inputs, &DOT_INPUTS[1])?.data().to_vec();
        DotOperands::new(x, y, storage).map_err(Into::into)
    }

    /// Validates lengths and rounds to `storage`.
    pub fn new(x: Vec<f64>, y: Vec<f64>, storage: Format) -> VResult<DotOperands> {
        require_nonempty("x", &x)?;
        require_same_len("x and y", x.len(), y.len())?;
        let round = |v: &[f64]| -> Vec<f64> {
            v.iter()
                .map(|&a| storage.round(a, RoundingMode::NearestEven))
                .collect()
        };
        Ok(DotOperands {
            x_stored: round(&x),
            y_stored: round(&y),
            x,
            y,
            storage,
        })
    }

    /// Whether rounding to the storage format changed nothing.
    pub fn stored_exactly(&self) -> bool {
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits());
        same(&self.x, &self.x_stored) && same(&self.y, &self.y_stored)
    }

    /// The first input that does not fit the storage format: finite, and its
    /// rounding to nearest overflows (stored as an infinity, a NaN, or, in a
    /// saturating format, the largest finite value: finite but not within
    /// the representation error bound).
    pub fn first_storage_overflow(&self) -> Option<(char, usize, f64)> {
        let find = |name: char, given: &[f64]| {
            given
                .iter()
                .position(|&g| self.storage.overflows(g, RoundingMode::NearestEven))
                .map(|i| (name, i, given[i]))
        };
        find('x', &self.x).or_else(|| find('y', &self.y))
    }
}

/// `sum_i |x~_i y~_i|` over the stored values, rounded up; every bound needs
/// finite inputs, so a NaN or infinity is an unmet hypothesis (the verdict
/// then reports the non-finite exact result).
pub fn stored_sum_abs(ops: &DotOperands) -> VResult<f64> {
    let finite = |v: &[f64]| v.iter().position(|a| !a.is_finite());
    if let Some((name, i, v)) = finite(&ops.x_stored)
        .map(|i| ('x', i, ops.x[i]))
        .or_else(|| finite(&ops.y_stored).map(|i| ('y', i, ops.y[i])))
    {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "every dot-product bound".into(),
            hypothesis: format!("finite inputs in {}", ops.storage),
            detail: format!("{name}[{i}] = {v:e}"),
        });
    }
    abs_dot_up(&ops.x_stored, &ops.y_stored)
}

/// The rigorous bound, with respect to the exact dot product of the inputs as
/// given, of a dot kernel computing on the stored values: the arithmetic
/// bound `arithmetic` gives for `S = sum |x~_i y~_i|` (of the stored values;
/// [`rigorous`](boundgate_verify::bounds::dot::rigorous) for an order of known depth,
/// [`recursive_rigorous`](boundgate_verify::bounds::dot::recursive_rigorous)
/// left to right) plus, if storage changed the inputs, the representation
/// error bound.
pub fn rigorous_as_given(
    ops: &DotOperands,
    arithmetic: impl FnOnce(f64) -> VResult<Bound>,
) -> VResult<ElementBounds> {
    if let Some((name, index, value)) = ops.first_storage_overflow() {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "boundgate rigorous dot-product bound".into(),
            hypothesis: format!("every input is finite in {}", ops.storage),
            detail: format!("{name}[{index}] = {value:e} overflows it"),
        });
    }
    let mut bound = arithmetic(stored_sum_abs(ops)?)?;
    if !ops.stored_exactly() {
        let representation =
            representation_error_up(ops.storage, RoundingMode::NearestEven, &ops.x, &ops.y)?;
        bound.value = add_up(bound.value, representation);
        bound = bound.with_hypothesis(
            "inputs rounded to the storage format (nearest even)",
            format!("representation error <= {representation:e} added"),
        );
    }
    Ok(ElementBounds::uniform(bound, 1))
}

/// Assembles a dot kernel's run: measures the error of `computed` with the
/// exact oracle (on the inputs as given and as stored) and evaluates the bounds.
pub fn dot_run(
    ops: &DotOperands,
    computed: f64,
    rigorous: VResult<ElementBounds>,
    others: Vec<BoundCheck>,
    details: serde_json::Value,
) -> Result<KernelRun> {
    let as_given = oracle::dot(&ops.x, &ops.y)?.error_of(computed);
    let as_stored = oracle::dot(&ops.x_stored, &ops.y_stored)?.error_of(computed);
    Ok(KernelRun {
        output: Tensor::scalar(computed),
        rigorous: BoundCheck::rigorous(rigorous),
        others,
        errors_as_given: vec![as_given],
        errors_as_stored: vec![as_stored],
        details,
    })
}

/// A published bound on the stored values, as a labelled check.
pub fn published_check(label: &str, bound: VResult<boundgate_verify::bounds::Bound>) -> BoundCheck {
    BoundCheck::published(label, bound.map(|b| ElementBounds::uniform(b, 1)))
}
