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
///
/// # Example
/// ```
/// use boundgate::kernels::{baseline, registry};
/// let names: Vec<_> = baseline::kernels().iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["dot-recursive", "dot-pairwise", "dot-tree"]);
/// assert!(names.iter().all(|n| registry::find(n).is_ok())); // registered
/// ```
pub fn kernels() -> Vec<&'static dyn Kernel> {
    vec![
        &recursive::RecursiveDot,
        &pairwise::PairwiseDot,
        &tree::TreeDot,
    ]
}

/// The baseline family's experiments.
///
/// # Example
/// ```
/// use boundgate::kernels::baseline;
/// let names: Vec<_> = baseline::experiments().iter().map(|e| e.name()).collect();
/// assert_eq!(names, ["dot-tightness"]);
/// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::io::Tensor;
    /// use boundgate::kernels::Inputs;
    /// use boundgate::kernels::baseline::DotOperands;
    /// use boundgate_verify::format::Format;
    /// let mut inputs = Inputs::new();
    /// inputs.insert("x".into(), Tensor::vector(vec![0.1, 2.0]));
    /// inputs.insert("y".into(), Tensor::vector(vec![1.0, 3.0]));
    /// let ops = DotOperands::from_inputs(&inputs, Format::FP16).unwrap();
    /// assert_eq!(ops.x_stored, vec![0.0999755859375, 2.0]); // 0.1 to nearest fp16
    /// // A matrix where a vector is expected, or a missing input, is bad usage.
    /// inputs.insert("y".into(), Tensor::matrix(1, 2, vec![1.0, 3.0]).unwrap());
    /// assert!(matches!(DotOperands::from_inputs(&inputs, Format::FP16), Err(Error::Usage(_))));
    /// inputs.remove("y");
    /// assert!(matches!(DotOperands::from_inputs(&inputs, Format::FP16), Err(Error::Usage(_))));
    /// ```
    pub fn from_inputs(inputs: &Inputs, storage: Format) -> Result<DotOperands> {
        let x = input(inputs, &DOT_INPUTS[0])?.data().to_vec();
        let y = input(inputs, &DOT_INPUTS[1])?.data().to_vec();
        DotOperands::new(x, y, storage).map_err(Into::into)
    }

    /// Validates lengths and rounds to `storage`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::DotOperands;
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::VerifyError;
    /// let ops = DotOperands::new(vec![0.1, 1.0], vec![3.0, 1e-9], Format::FP16).unwrap();
    /// assert_eq!(ops.x_stored, vec![0.0999755859375, 1.0]);
    /// assert_eq!(ops.y_stored, vec![3.0, 0.0]); // 1e-9 is below half fp16's least subnormal 2^-24
    /// assert_eq!(ops.x, vec![0.1, 1.0]); // as given, kept
    /// assert!(matches!(DotOperands::new(vec![], vec![], Format::FP16), Err(VerifyError::Empty { .. })));
    /// let e = DotOperands::new(vec![1.0], vec![1.0, 2.0], Format::FP16);
    /// assert!(matches!(e, Err(VerifyError::LengthMismatch { .. })));
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::DotOperands;
    /// use boundgate_verify::format::Format;
    /// let ops = |x: f64| DotOperands::new(vec![x, 0.25], vec![1.0, -3.0], Format::FP16).unwrap();
    /// assert!(ops(0.5).stored_exactly());
    /// assert!(!ops(0.1).stored_exactly());
    /// assert!(ops(-0.0).stored_exactly()); // the sign of zero is kept
    /// ```
    pub fn stored_exactly(&self) -> bool {
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits());
        same(&self.x, &self.x_stored) && same(&self.y, &self.y_stored)
    }

    /// The first input that does not fit the storage format: finite, and its
    /// rounding to nearest overflows (stored as an infinity, a NaN, or, in a
    /// saturating format, the largest finite value: finite but not within
    /// the representation error bound).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::DotOperands;
    /// use boundgate_verify::format::{Format, OverflowPolicy};
    /// let ops = |x: f64, y: f64| DotOperands::new(vec![1.0, x], vec![y, 1.0], Format::FP16).unwrap();
    /// // fp16's largest value is 65504; to nearest, 65519 rounds down to it, 65520 overflows.
    /// assert_eq!(ops(65519.0, 1.0).first_storage_overflow(), None);
    /// assert_eq!(ops(65520.0, 1.0).first_storage_overflow(), Some(('x', 1, 65520.0)));
    /// assert_eq!(ops(1.0, -1e6).first_storage_overflow(), Some(('y', 0, -1e6)));
    /// assert_eq!(ops(f64::INFINITY, 1.0).first_storage_overflow(), None); // not finite as given
    /// // e4m3 (largest 448) stores NaN for 1000; a saturating fp16 stores 65504 for 1e5:
    /// // finite, but an overflow all the same.
    /// let e4m3 = DotOperands::new(vec![1000.0], vec![1.0], Format::E4M3).unwrap();
    /// assert!(e4m3.x_stored[0].is_nan() && e4m3.first_storage_overflow() == Some(('x', 0, 1000.0)));
    /// let sat = Format::custom(11, -14, 15, true, OverflowPolicy::Saturate).unwrap();
    /// let ops = DotOperands::new(vec![1e5], vec![1.0], sat).unwrap();
    /// assert_eq!((ops.x_stored[0], ops.first_storage_overflow()), (65504.0, Some(('x', 0, 1e5))));
    /// ```
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
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::{DotOperands, stored_sum_abs};
/// use boundgate_verify::format::Format;
/// use boundgate_verify::VerifyError;
/// let ops = DotOperands::new(vec![0.1, -2.0], vec![3.0, 0.5], Format::FP16).unwrap();
/// // |0.0999755859375 * 3| + |-2 * 0.5| = 0.2999267578125 + 1, exact.
/// assert_eq!(stored_sum_abs(&ops).unwrap(), 1.2999267578125);
/// // 1e5 is stored as fp16 infinity: the hypothesis of every bound fails.
/// let big = DotOperands::new(vec![1e5], vec![1.0], Format::FP16).unwrap();
/// assert!(matches!(stored_sum_abs(&big), Err(VerifyError::HypothesisNotMet { .. })));
/// ```
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
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::{DotOperands, rigorous_as_given};
/// use boundgate_verify::bounds::dot::recursive_rigorous;
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::{oracle, VerifyError};
/// let (h, rne) = (Format::FP16, RoundingMode::NearestEven);
/// let arith = |s| recursive_rigorous(h, rne, 3, false, s);
/// // Stored exactly: the arithmetic's bound alone (S = 1 + 2 + 3 = 6).
/// let exact = DotOperands::new(vec![1.0, 2.0, 3.0], vec![1.0; 3], h).unwrap();
/// assert_eq!(rigorous_as_given(&exact, arith).unwrap().bound.value, arith(6.0).unwrap().value);
/// // 0.1 is stored as an fp16 value: the representation error is added, and the bound
/// // holds for a left-to-right fp16 dot against the exact result on the inputs as given.
/// let ops = DotOperands::new(vec![0.1, 0.2, 0.3], vec![3.0, 3.0, 3.0], h).unwrap();
/// let bound = rigorous_as_given(&ops, arith).unwrap().bound;
/// let (x, y) = (&ops.x_stored, &ops.y_stored);
/// let d = (0..3).fold(0.0, |s, i| h.add(s, h.mul(x[i], y[i], rne), rne));
/// assert!(oracle::dot(&ops.x, &ops.y).unwrap().error_of(d).absolute_up().unwrap() <= bound.value);
/// assert!(bound.hypotheses.iter().any(|hyp| hyp.statement.contains("storage format")));
/// let big = DotOperands::new(vec![1e5], vec![1.0], h).unwrap();
/// assert!(matches!(rigorous_as_given(&big, arith), Err(VerifyError::HypothesisNotMet { .. })));
/// ```
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
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::{DotOperands, dot_run, rigorous_as_given};
/// use boundgate_verify::bounds::dot::recursive_rigorous;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let ops = DotOperands::new(vec![0.1, 1.0], vec![1.0, 0.5], Format::FP16).unwrap();
/// let rigorous = rigorous_as_given(&ops, |s| recursive_rigorous(Format::FP16, RoundingMode::NearestEven, 2, false, s));
/// // The exact dot product of the stored values: 0.0999755859375 + 0.5.
/// let computed = 0.5999755859375;
/// let run = dot_run(&ops, computed, rigorous, vec![], serde_json::json!({})).unwrap();
/// assert_eq!(run.output.data(), &[computed]);
/// assert_eq!(run.errors_as_stored[0].absolute_up(), Some(0.0)); // exact on what was read
/// // On the inputs as given: 0.1's representation error, 0.1 - 0.0999755859375 = 2^-12 / 10
/// // (plus binary64's 0.1 - 1/10 = 5.6e-18), within the rigorous bound.
/// let given = run.errors_as_given[0].absolute_up().unwrap();
/// assert!(given > 2.44140625e-5 && given < 2.4414063e-5);
/// assert!(given <= run.rigorous_values()[0]);
/// ```
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
///
/// # Example
/// ```
/// use boundgate::kernels::Reference;
/// use boundgate::kernels::baseline::published_check;
/// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
/// let b = Bound::deterministic(0.25, Quantity::AbsoluteError, Source::new("ex", "(3.5)", None), Rigor::Published);
/// let check = published_check("published: (3.5)", Ok(b));
/// // About the stored values, one element.
/// assert_eq!((check.label.as_str(), check.reference), ("published: (3.5)", Reference::AsStored));
/// assert_eq!(check.bounds.unwrap().values(), &[0.25]);
/// ```
pub fn published_check(label: &str, bound: VResult<boundgate_verify::bounds::Bound>) -> BoundCheck {
    BoundCheck::published(label, bound.map(|b| ElementBounds::uniform(b, 1)))
}
