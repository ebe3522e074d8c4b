//! `mpfma-mac`: element-wise `d_i = a_i b_i + c_i` through a MAC unit
//! (unfused, FMA or MPFMA), with Lemmas 3.1-3.6 per element.

use super::common::{U_GIVEN_F64, element_bounds};
use super::unit::{MacOp, MacUnit};
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{
    BoundCheck, InputSpec, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params,
    Reference, Shape, input,
};
use boundgate_verify::bounds::probabilistic::bhola_lambda;
use boundgate_verify::bounds::tc::{
    GammaTilde, lemma_3_1, lemma_3_2, lemma_3_3, lemma_3_4, lemma_3_5, lemma_3_6, mac_no_fma,
    mac_no_fma_vibea, mac_rigorous,
};
use boundgate_verify::error::{require_nonempty, require_same_len};
use boundgate_verify::format::RoundingMode;
use boundgate_verify::oracle::{ErrorMeasure, ExactSum};
use serde_json::json;

/// `mpfma-mac`: the MAC unit kernel.
pub struct MpfmaMac;

const INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "a",
        shape: Shape::Vector,
        help: "first factors",
    },
    InputSpec {
        name: "b",
        shape: Shape::Vector,
        help: "second factors, same length",
    },
    InputSpec {
        name: "c",
        shape: Shape::Vector,
        help: "addends, same length",
    },
];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "op",
        default: "mpfma",
        kind: ParamKind::Choice(&["mac", "fma", "mpfma"]),
        help: "mac: fl(fl(ab)+c); fma: fl(ab+c); mpfma: a, b in `low`, c in `high`, product in `tilde`, sum in `bar`, output in `out`",
    },
    ParamSpec {
        key: "format",
        default: "fp32",
        kind: ParamKind::Format,
        help: "format of every step of mac and fma",
    },
    ParamSpec {
        key: "low",
        default: "fp16",
        kind: ParamKind::Format,
        help: "mpfma: format of a and b (t_low)",
    },
    ParamSpec {
        key: "high",
        default: "fp32",
        kind: ParamKind::Format,
        help: "mpfma: format of c (t_high)",
    },
    ParamSpec {
        key: "tilde",
        default: "fp32",
        kind: ParamKind::Format,
        help: "mpfma: format of the product (t~)",
    },
    ParamSpec {
        key: "bar",
        default: "fp32",
        kind: ParamKind::Format,
        help: "mpfma: format of the sum (t_bar)",
    },
    ParamSpec {
        key: "out",
        default: "fp32",
        kind: ParamKind::Format,
        help: "mpfma: format of the output (t_FMA)",
    },
    ParamSpec {
        key: "mode",
        default: "rne",
        kind: ParamKind::Mode,
        help: "rounding of the arithmetic (casts are to nearest even)",
    },
    ParamSpec {
        key: "probability",
        default: "0.99",
        kind: ParamKind::Probability,
        help: "target p_b of the VIBEA lemmas (lambda chosen for it)",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "mpfma-mac",
    summary: "d_i = a_i b_i + c_i through an unfused MAC, an FMA or a mixed-precision FMA (Lemmas 3.1-3.6)",
    inputs: INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Propagated,
};

/// The unit a kernel run asks for.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::Params;
/// use boundgate::kernels::mpfma::gemm::MpfmaGemm;
/// use boundgate::kernels::mpfma::mac::{MpfmaMac, unit_from};
/// use boundgate::kernels::mpfma::unit::MacUnit;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let pairs = ["op=fma".to_string(), "format=bf16".to_string(), "mode=rtz".to_string()];
/// let unit = unit_from(&Params::parse(&MpfmaMac, &pairs).unwrap()).unwrap();
/// assert_eq!(unit, MacUnit::fma(Format::BF16, RoundingMode::TowardZero));
/// // The defaults are Fig. 5's MPFMA.
/// assert_eq!(unit_from(&Params::defaults(&MpfmaMac)).unwrap(), MacUnit::fig5_mpfma());
/// // Another kernel's parameters have no `op`.
/// assert!(matches!(unit_from(&Params::defaults(&MpfmaGemm)), Err(Error::Usage(_))));
/// ```
pub fn unit_from(params: &Params) -> Result<MacUnit> {
    let mode = params.mode("mode")?;
    Ok(match params.text("op")? {
        "mac" => MacUnit::no_fma(params.format("format")?, mode),
        "fma" => MacUnit::fma(params.format("format")?, mode),
        _ => MacUnit::mpfma(
            params.format("low")?,
            params.format("high")?,
            params.format("tilde")?,
            params.format("bar")?,
            params.format("out")?,
            mode,
        ),
    })
}

fn exact_mac(a: f64, b: f64, c: f64) -> ExactSum {
    let mut s = ExactSum::new();
    s.add_product(a, b);
    s.add(c);
    s
}

impl Kernel for MpfmaMac {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let a = input(inputs, &INPUTS[0])?.data().to_vec();
        let b = input(inputs, &INPUTS[1])?.data().to_vec();
        let c = input(inputs, &INPUTS[2])?.data().to_vec();
        require_nonempty("a", &a)?;
        require_same_len("a and b", a.len(), b.len())?;
        require_same_len("a and c", a.len(), c.len())?;
        let unit = unit_from(params)?;
        let probability = params.f64("probability")?;
        let n = a.len();
        let stored: Vec<(f64, f64, f64)> = (0..n).map(|i| unit.stored(a[i], b[i], c[i])).collect();
        let d: Vec<f64> = stored
            .iter()
            .map(|&(x, y, z)| unit.compute(x, y, z))
            .collect();
        let errors_as_given: Vec<ErrorMeasure> = (0..n)
            .map(|i| exact_mac(a[i], b[i], c[i]).error_of(d[i]))
            .collect();
        let errors_as_stored: Vec<ErrorMeasure> = stored
            .iter()
            .zip(&d)
            .map(|(&(x, y, z), &v)| exact_mac(x, y, z).error_of(v))
            .collect();
        let rigorous = element_bounds(n, |i| {
            mac_rigorous(&unit.steps(a[i], b[i], c[i]), a[i], b[i], c[i])
        });
        let r = unit.roundoffs();
        let u = r.u_bar;
        let lambda_for = |u: f64| bhola_lambda(probability, u, 2);
        let st = |i: usize| stored[i];
        let mut others = Vec::new();
        let check = |label: &str, reference, bounds| BoundCheck {
            label: label.to_string(),
            reference,
            bounds,
        };
        match unit.op {
            MacOp::NoFma => {
                others.push(check(
                    "published: unfused MAC, Lemma 2.1 (Fig. 5 DBEA)",
                    Reference::AsStored,
                    element_bounds(n, |i| mac_no_fma(u, st(i).0, st(i).1, st(i).2)),
                ));
                for kind in [GammaTilde::Paired, GammaTilde::AuthorsCentred] {
                    let bounds = lambda_for(u).and_then(|lambda| {
                        element_bounds(n, |i| {
                            mac_no_fma_vibea(u, lambda, kind, st(i).0, st(i).1, st(i).2)
                        })
                    });
                    others.push(check(
                        &format!(
                            "probabilistic: unfused MAC, Lemma 2.2 (Fig. 5 VIBEA), {}",
                            kind.name()
                        ),
                        Reference::AsStored,
                        bounds,
                    ));
                }
            }
            MacOp::Fma => {
                others.push(check(
                    "published: Lemma 3.1 (FMA)",
                    Reference::AsStored,
                    element_bounds(n, |i| lemma_3_1(u, st(i).0, st(i).1, st(i).2)),
                ));
                others.push(check(
                    "published: Lemma 3.2 (FMA, inputs as given)",
                    Reference::AsGiven,
                    element_bounds(n, |i| lemma_3_2(u, U_GIVEN_F64, a[i], b[i], c[i])),
                ));
                for kind in [GammaTilde::Paired, GammaTilde::AuthorsCentred] {
                    let bounds = lambda_for(u).and_then(|lambda| {
                        element_bounds(n, |i| {
                            lemma_3_3(u, U_GIVEN_F64, lambda, kind, a[i], b[i], c[i])
                        })
                    });
                    others.push(check(
                        &format!("probabilistic: Lemma 3.3, {}", kind.name()),
                        Reference::AsGiven,
                        bounds,
                    ));
                }
            }
            MacOp::Mpfma => {
                others.push(check(
                    "published: Lemma 3.4, eq. (5) (MPFMA)",
                    Reference::AsStored,
                    element_bounds(n, |i| lemma_3_4(&r, st(i).0, st(i).1, st(i).2)),
                ));
                others.push(check(
                    "published: Lemma 3.5 (MPFMA, inputs as given)",
                    Reference::AsGiven,
                    element_bounds(n, |i| lemma_3_5(&r, U_GIVEN_F64, a[i], b[i], c[i])),
                ));
                for kind in [GammaTilde::Paired, GammaTilde::AuthorsCentred] {
                    let bounds = lambda_for(r.u_low).and_then(|lambda| {
                        element_bounds(n, |i| {
                            lemma_3_6(&r, U_GIVEN_F64, lambda, kind, a[i], b[i], c[i])
                        })
                    });
                    others.push(check(
                        &format!("probabilistic: Lemma 3.6, {}", kind.name()),
                        Reference::AsGiven,
                        bounds,
                    ));
                }
            }
        }
        let details = json!({
            "unit": unit,
            "roundoffs": r,
            "probability": probability,
            "mode": params.mode("mode").map(RoundingMode::name).map_err(|e: Error| e.to_string()).unwrap_or_default(),
        });
        Ok(KernelRun {
            output: Tensor::vector(d),
            rigorous: BoundCheck::rigorous(rigorous),
            others,
            errors_as_given,
            errors_as_stored,
            details,
        })
    }
}
