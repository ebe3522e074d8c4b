//! The kernels under test, as CPU models (and GPU kernels where built), behind
//! one interface: [`Kernel`].
//!
//! The `run` contract (issue "Foundation", CLI): a kernel takes named inputs
//! (1-D vectors, 2-D C-order matrices of `f64`) and `key=value` parameters with
//! sensible defaults; it returns its output, and per output element a
//! **rigorous** absolute error bound with respect to the exact result on the
//! inputs as given (so storage and representation error are inside it), plus
//! the published bounds and the errors measured by the exact oracle, both on
//! the inputs as given and on the values the kernel actually read.

pub mod accessor;
pub mod baseline;
pub mod interleave;
pub mod mpfma;
pub mod params;
pub mod qdot;
pub mod registry;
pub mod residual;

pub use params::Params;

use crate::error::{Error, Result};
use crate::io::Tensor;
use boundgate_verify::VerifyError;
use boundgate_verify::check::{ElementBounds, Verdict, check};
use boundgate_verify::oracle::ErrorMeasure;
use serde::Serialize;
use std::collections::BTreeMap;

/// Shape of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A 1-D array.
    Vector,
    /// A 2-D C-order array.
    Matrix,
}

/// An input a kernel needs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct InputSpec {
    /// Its name on the command line (`--input NAME=FILE`).
    pub name: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// What it is.
    pub help: &'static str,
}

/// What values a parameter takes (checked when parameters are parsed).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A format name.
    Format,
    /// A rounding mode name.
    Mode,
    /// `true` or `false`.
    Bool,
    /// A non-negative integer.
    Count,
    /// A probability in (0, 1).
    Probability,
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
}

/// A parameter a kernel accepts.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParamSpec {
    /// Its key (`--param KEY=VALUE`).
    pub key: &'static str,
    /// Its default value, as text.
    pub default: &'static str,
    /// The values it takes.
    pub kind: ParamKind,
    /// What it does.
    pub help: &'static str,
}

/// Which exact result a bound is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// The exact result on the inputs as given (the f64 values in the files).
    AsGiven,
    /// The exact result on the values the kernel read (after rounding to its storage format).
    AsStored,
}

/// One bound to check, with its label and reference.
#[derive(Clone, Debug)]
pub struct BoundCheck {
    /// Short label, e.g. "rigorous" or "published: Higham 2002 (3.5)".
    pub label: String,
    /// Which exact result it bounds the distance to.
    pub reference: Reference,
    /// The per-element bounds, or why the bound has no value here.
    pub bounds: Result<ElementBounds, VerifyError>,
}

impl BoundCheck {
    /// The kernel's rigorous bound: about the exact result on the inputs as
    /// given (storage and representation error inside it), the one `run`
    /// writes to `--bound-output` and whose violation is exit code 1.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::{BoundCheck, Reference};
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = Bound::deterministic(1e-6, Quantity::AbsoluteError, Source::new("ex", "Lemma 1", None), Rigor::Rigorous);
    /// let check = BoundCheck::rigorous(Ok(ElementBounds::uniform(b, 2)));
    /// assert_eq!((check.label.as_str(), check.reference), ("rigorous", Reference::AsGiven));
    /// ```
    pub fn rigorous(bounds: Result<ElementBounds, VerifyError>) -> BoundCheck {
        BoundCheck {
            label: "rigorous".into(),
            reference: Reference::AsGiven,
            bounds,
        }
    }

    /// A published bound, labelled: about the exact result on the values the
    /// kernel read (the papers assume their inputs are representable).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::{BoundCheck, Reference};
    /// use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
    /// use boundgate_verify::check::ElementBounds;
    /// let b = Bound::deterministic(1e-6, Quantity::AbsoluteError, Source::new("ex", "Thm 1", None), Rigor::Published);
    /// let check = BoundCheck::published("published: Thm 1", Ok(ElementBounds::uniform(b, 1)));
    /// assert_eq!(check.reference, Reference::AsStored);
    /// ```
    pub fn published(
        label: impl Into<String>,
        bounds: Result<ElementBounds, VerifyError>,
    ) -> BoundCheck {
        BoundCheck {
            label: label.into(),
            reference: Reference::AsStored,
            bounds,
        }
    }
}

/// Everything one run of a kernel produced.
#[derive(Clone, Debug)]
pub struct KernelRun {
    /// The kernel's output.
    pub output: Tensor,
    /// The rigorous bound (reference: inputs as given). Its hypotheses may fail
    /// (e.g. possible overflow); then there is no finite bound.
    pub rigorous: BoundCheck,
    /// Published and probabilistic bounds, reported beside it.
    pub others: Vec<BoundCheck>,
    /// Errors against the exact result on the inputs as given.
    pub errors_as_given: Vec<ErrorMeasure>,
    /// Errors against the exact result on the values the kernel read.
    pub errors_as_stored: Vec<ErrorMeasure>,
    /// Kernel-specific facts for the JSON report (parameters used, depth, ...).
    pub details: serde_json::Value,
}

/// A bound check's verdict, labelled.
#[derive(Clone, Debug, Serialize)]
pub struct LabelledVerdict {
    /// The bound's label.
    pub label: String,
    /// Which exact result it bounds.
    pub reference: Reference,
    /// The verdict.
    pub verdict: Verdict,
}

impl KernelRun {
    /// The per-element rigorous bounds, +inf where the bound has no value.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// use boundgate::kernels::{Inputs, Params, registry};
    /// use boundgate_verify::VerifyError;
    /// let k = registry::find("qdot").unwrap();
    /// let mut inputs = Inputs::new();
    /// inputs.insert("x".into(), Tensor::vector(vec![1.0, 2.0]));
    /// inputs.insert("y".into(), Tensor::vector(vec![3.0, 4.0]));
    /// let mut run = k.run(&inputs, &Params::defaults(k)).unwrap();
    /// // One bound per output element, finite here (exact result 11).
    /// let bound = run.rigorous_values();
    /// assert!(bound.len() == 1 && bound[0].is_finite() && bound[0] >= 0.0);
    /// // A bound without a value counts as +inf.
    /// run.rigorous.bounds = Err(VerifyError::UndefinedRelativeError);
    /// assert_eq!(run.rigorous_values(), [f64::INFINITY]);
    /// ```
    pub fn rigorous_values(&self) -> Vec<f64> {
        match &self.rigorous.bounds {
            Ok(b) => b.values().to_vec(),
            Err(_) => vec![f64::INFINITY; self.output.data().len()],
        }
    }

    /// Checks every bound against the oracle's errors.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// use boundgate::kernels::{Inputs, Params, Reference, registry};
    /// use boundgate_verify::check::Outcome;
    /// let k = registry::find("qdot").unwrap();
    /// let mut inputs = Inputs::new();
    /// inputs.insert("x".into(), Tensor::vector(vec![1.0, 0.1]));
    /// inputs.insert("y".into(), Tensor::vector(vec![3.0, 4.0]));
    /// let run = k.run(&inputs, &Params::defaults(k)).unwrap();
    /// let verdicts = run.verdicts().unwrap();
    /// // The rigorous bound first, then the others, in order.
    /// assert_eq!(verdicts.len(), 1 + run.others.len());
    /// assert_eq!((verdicts[0].label.as_str(), verdicts[0].reference), ("rigorous", Reference::AsGiven));
    /// assert_eq!(verdicts[0].verdict.outcome, Outcome::Pass);
    /// ```
    pub fn verdicts(&self) -> Result<Vec<LabelledVerdict>> {
        std::iter::once(&self.rigorous)
            .chain(&self.others)
            .map(|bc| {
                let errors = match bc.reference {
                    Reference::AsGiven => &self.errors_as_given,
                    Reference::AsStored => &self.errors_as_stored,
                };
                Ok(LabelledVerdict {
                    label: bc.label.clone(),
                    reference: bc.reference,
                    verdict: check(errors, bc.bounds.clone())?,
                })
            })
            .collect()
    }
}

/// Named inputs.
pub type Inputs = BTreeMap<String, Tensor>;

/// What a kernel is: its name, what it computes, its inputs and parameters.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct KernelInfo {
    /// Its name (`boundgate run NAME`).
    pub name: &'static str,
    /// One line saying what it computes and in which order.
    pub summary: &'static str,
    /// The inputs it needs.
    pub inputs: &'static [InputSpec],
    /// The parameters it accepts.
    pub params: &'static [ParamSpec],
    /// What it does with NaN or infinite inputs.
    pub non_finite: NonFiniteInputs,
}

/// What a kernel does with NaN or infinite inputs (`boundgate run --list`
/// says it per kernel; `tests/cli.rs` checks every kernel against it).
///
/// # Example
/// ```
/// use boundgate::kernels::{registry, NonFiniteInputs};
/// let qdot = registry::find("qdot").unwrap();
/// assert!(matches!(qdot.info().non_finite, NonFiniteInputs::Refused(_)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonFiniteInputs {
    /// The kernel runs, IEEE arithmetic carries them to the output, and the
    /// exact result is not finite: the verdict says so ("non-finite", exit 0,
    /// or 3 with `--strict`).
    Propagated,
    /// As [`Propagated`](Self::Propagated), except where the parameters
    /// choose an algorithm not defined on them (then as
    /// [`Refused`](Self::Refused)) or one that does not read the input (the
    /// cases and the reasons).
    PropagatedUnless(&'static str),
    /// The kernel's algorithm is not defined on them (the reason): a typed
    /// error naming the first one (exit 2).
    Refused(&'static str),
}

impl std::fmt::Display for NonFiniteInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NonFiniteInputs::Propagated => write!(
                f,
                "propagated: the output is judged non-finite (exit 0, 3 with --strict)"
            ),
            NonFiniteInputs::PropagatedUnless(why) => {
                write!(f, "{}; except: {why}", NonFiniteInputs::Propagated)
            }
            NonFiniteInputs::Refused(why) => write!(f, "refused (exit 2): {why}"),
        }
    }
}

/// A kernel under test: a [`KernelInfo`] and a way to run it.
pub trait Kernel: Sync {
    /// Its name, summary, inputs and parameters.
    fn info(&self) -> &'static KernelInfo;

    /// Runs the CPU model (or the GPU kernel, where the parameters select it).
    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun>;

    /// Its name (`boundgate run NAME`).
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One line saying what it computes and in which order.
    fn summary(&self) -> &'static str {
        self.info().summary
    }
    /// The inputs it needs.
    fn inputs(&self) -> &'static [InputSpec] {
        self.info().inputs
    }
    /// The parameters it accepts.
    fn params(&self) -> &'static [ParamSpec] {
        self.info().params
    }
    /// The shapes of its inputs for an audit of the given size: by default
    /// every vector has length `size` and every matrix is `size x size`.
    fn audit_shapes(&self, size: usize) -> Vec<(&'static str, Vec<usize>)> {
        self.inputs()
            .iter()
            .map(|i| match i.shape {
                Shape::Vector => (i.name, vec![size]),
                Shape::Matrix => (i.name, vec![size, size]),
            })
            .collect()
    }
}

/// The most elements of a matrix product's output (`m * n`):
/// [`MAX_INPUT_ELEMENTS`](crate::audit::plan::MAX_INPUT_ELEMENTS) (2^28), the
/// audit's cap on one input. A product holds several `m x n` arrays and the
/// oracle one exact value per element, so an outer product of two small
/// inputs (`A` of 2^20 x 1 and `B` of 1 x 2^20, 8 MiB each) asked for 2^40
/// elements and aborted on allocation (`residual-gemm` and `mpfma-gemm`;
/// found by review).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] naming the shape.
///
/// # Example
/// ```
/// use boundgate::kernels::require_output_fits;
/// assert!(require_output_fits(1 << 14, 1 << 14).is_ok());
/// assert!(require_output_fits(1 << 14, (1 << 14) + 1).is_err());
/// assert!(require_output_fits(usize::MAX, 2).is_err());
/// ```
pub fn require_output_fits(m: usize, n: usize) -> std::result::Result<(), VerifyError> {
    let max = crate::audit::plan::MAX_INPUT_ELEMENTS;
    match m.checked_mul(n) {
        Some(len) if len <= max => Ok(()),
        _ => Err(VerifyError::invalid(
            "output D (rows of A x columns of B)",
            format!("{m} x {n}"),
            format!("more than {max} (2^28) elements"),
        )),
    }
}

/// `rows * cols`, the element count of the operand `what`, refusing a
/// product that overflows `usize` (shared by every kernel that checks a
/// slice against its shape).
///
/// # Example
/// ```
/// use boundgate::kernels::shape_len;
/// assert_eq!(shape_len("A", 3, 4).unwrap(), 12);
/// assert!(shape_len("A", usize::MAX, 2).is_err());
/// ```
pub fn shape_len(what: &str, rows: usize, cols: usize) -> std::result::Result<usize, VerifyError> {
    rows.checked_mul(cols).ok_or_else(|| {
        VerifyError::invalid(
            what,
            format!("{rows} x {cols}"),
            "rows * cols overflows usize",
        )
    })
}

/// Fetches a named input and checks its shape.
///
/// # Example
/// ```
/// use boundgate::{Error, io::Tensor};
/// use boundgate::kernels::{input, InputSpec, Inputs, Shape};
/// let spec = InputSpec { name: "x", shape: Shape::Vector, help: "the left vector" };
/// let mut inputs = Inputs::new();
/// assert!(matches!(input(&inputs, &spec), Err(Error::Usage(m)) if m.starts_with("missing input `x`")));
/// inputs.insert("x".into(), Tensor::matrix(1, 2, vec![1.0, 2.0]).unwrap());
/// assert!(matches!(input(&inputs, &spec), Err(Error::Usage(m)) if m.contains("must be a 1-D vector")));
/// inputs.insert("x".into(), Tensor::vector(vec![1.0, 2.0]));
/// assert_eq!(input(&inputs, &spec).unwrap().data(), [1.0, 2.0]);
/// ```
pub fn input<'a>(inputs: &'a Inputs, spec: &InputSpec) -> Result<&'a Tensor> {
    let t = inputs
        .get(spec.name)
        .ok_or_else(|| Error::usage(format!("missing input `{}` ({})", spec.name, spec.help)))?;
    let ok = match spec.shape {
        Shape::Vector => t.ndim() == 1,
        Shape::Matrix => t.ndim() == 2,
    };
    if !ok {
        return Err(Error::usage(format!(
            "input `{}` must be a {} but has shape {:?}",
            spec.name,
            match spec.shape {
                Shape::Vector => "1-D vector",
                Shape::Matrix => "2-D matrix",
            },
            t.shape()
        )));
    }
    Ok(t)
}

/// Refuses inputs the kernel does not know.
///
/// # Example
/// ```
/// use boundgate::{Error, io::Tensor};
/// use boundgate::kernels::{reject_unknown_inputs, registry, Inputs};
/// let k = registry::find("qdot").unwrap();
/// let mut inputs = Inputs::new();
/// inputs.insert("x".into(), Tensor::vector(vec![1.0]));
/// assert!(reject_unknown_inputs(k, &inputs).is_ok()); // a missing `y` is not its concern
/// inputs.insert("z".into(), Tensor::vector(vec![1.0]));
/// let err = reject_unknown_inputs(k, &inputs).unwrap_err();
/// assert!(matches!(err, Error::Usage(m) if m.contains("no input `z`") && m.ends_with("(inputs: x, y)")));
/// ```
pub fn reject_unknown_inputs(kernel: &dyn Kernel, inputs: &Inputs) -> Result<()> {
    for name in inputs.keys() {
        if !kernel.inputs().iter().any(|s| s.name == name) {
            let known: Vec<_> = kernel.inputs().iter().map(|s| s.name).collect();
            return Err(Error::usage(format!(
                "kernel {} has no input `{name}` (inputs: {})",
                kernel.name(),
                known.join(", ")
            )));
        }
    }
    Ok(())
}
