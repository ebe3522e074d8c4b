//! The `backend` parameter of the accessor kernels that have a CUDA kernel
//! (`accessor-dot`, `accessor-gemv`, `accessor-spmv`, `accessor-trsv`): run
//! the kernel of `kernels/accessor_blas.cu` on the device beside its CPU
//! model, and require the two to agree bit for bit (before the store, after
//! it, and TRSV's inverted diagonal blocks) before any verdict is given.
//!
//! The model's order is the kernel's (DESIGN.md, "Kernels"), so the model's
//! rigorous bounds, a-posteriori ones included (TRSV's is built from the
//! inverses and `v`, which the device does not return), are bounds for the
//! device's result exactly when the results are the same. A difference is a
//! bug in the kernel or the model: [`GpuError::ModelMismatch`], one line
//! naming the value, and no verdict. NaN results compare equal whatever their
//! payloads (the device's NaN payloads are its own: 2026-11-24 record).
//!
//! `gpu` insists on a device (without one, or for a configuration the CUDA
//! kernels do not implement, the run stops with one line saying why); `auto`
//! runs the model instead, saying why in the report's `ran_on` and once on
//! stderr; `cpu`, the default, runs the model only.

use super::gemv::GemvOp;
use super::sparse::CsrMatrix;
use super::spmv::SparseFormat;
use super::storage::AccessorSpec;
use crate::error::Result;
use crate::gpu::{Backend, GpuError, RanOn, Selected};
use crate::kernels::{ParamKind, ParamSpec, Params};
use boundgate_verify::oracle::trsv::{Diag, Uplo};

/// The `backend` parameter.
pub const BACKEND: ParamSpec = ParamSpec {
    key: "backend",
    default: "cpu",
    kind: ParamKind::Choice(&["cpu", "gpu", "auto"]),
    help: "cpu: the CPU model; gpu: also the CUDA kernel (kernels/accessor_blas.cu), whose results must equal the model's bit for bit before any verdict (an error without a usable GPU, or for integer storage, a write mode other than nearest, ftz); auto: gpu where it can run, else the CPU model, saying why",
};

/// The operands of one launch, as the kernel's CPU model took them.
#[derive(Clone, Copy, Debug)]
pub enum Launch<'a> {
    /// `x^T y`.
    Dot {
        /// `x`.
        x: &'a [f64],
        /// `y`.
        y: &'a [f64],
    },
    /// `alpha op(A) x + beta y`.
    Gemv {
        /// The operation.
        op: GemvOp,
        /// `A`, row-major.
        a: &'a [f64],
        /// Rows and columns of `A`.
        shape: (usize, usize),
        /// `x`.
        x: &'a [f64],
        /// `y`, when `beta != 0`.
        y: Option<&'a [f64]>,
    },
    /// `alpha A x + beta y`, sparse `A`.
    Spmv {
        /// `A`.
        a: &'a CsrMatrix,
        /// CSR or ELL.
        format: SparseFormat,
        /// `(alpha, beta)`.
        scalars: (f64, f64),
        /// `x`.
        x: &'a [f64],
        /// `y`, when `beta != 0`.
        y: Option<&'a [f64]>,
    },
    /// `T x = b`.
    Trsv {
        /// The `n x n` matrix whose triangle is `T`.
        a: &'a [f64],
        /// `n`.
        n: usize,
        /// `b`.
        b: &'a [f64],
        /// Which triangle.
        uplo: Uplo,
        /// Unit or non-unit diagonal.
        diag: Diag,
        /// The FMA chains of the product with each block's inverse (the
        /// model's order; the device is built with the same `TRSV_CHAIN_WAYS`).
        chain_ways: usize,
    },
}

/// What the CPU model computed, for the comparison.
#[derive(Clone, Copy, Debug)]
pub struct ModelResults<'a> {
    /// The results in the arithmetic format, before the store.
    pub before_store: &'a [f64],
    /// The results written through the accessor (`None` when the run does
    /// not store: the kernel's stored output is then not compared).
    pub stored: Option<&'a [f64]>,
    /// TRSV's inverted diagonal blocks (empty for the other kernels).
    pub inverses: &'a [Vec<f64>],
}

/// Where a run's results come from, as [`run_dot`](crate::gpu::run_dot)
/// says it: on the CPU model or on a device (whose results then equal the
/// model's bit for bit), with why not the device when one was asked for
/// (`auto`) and the model ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Ran {
    /// The CPU model or the device.
    pub on: RanOn,
    /// Why the model ran although a device was asked for (only with
    /// [`RanOn::Cpu`]).
    pub note: Option<String>,
}

impl Ran {
    /// For the report's `ran_on`.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{DeviceInfo, RanOn};
    /// use boundgate::kernels::accessor::device::Ran;
    /// assert_eq!(Ran { on: RanOn::Cpu, note: None }.describe(), "cpu model");
    /// let info = DeviceInfo {
    ///     name: "NVIDIA H100 80GB HBM3".into(),
    ///     compute_capability: (9, 0),
    ///     driver_version: (13, 0),
    /// };
    /// let gpu = Ran { on: RanOn::Gpu(info), note: None };
    /// assert!(gpu.describe().starts_with("gpu (NVIDIA H100 80GB HBM3"));
    /// ```
    pub fn describe(&self) -> String {
        match (&self.on, &self.note) {
            (RanOn::Cpu, None) => "cpu model".into(),
            (RanOn::Cpu, Some(note)) => format!("cpu model ({note})"),
            (RanOn::Gpu(info), _) => {
                format!("gpu ({}; bit-identical to the CPU model)", info.name)
            }
        }
    }
}

/// Runs `launch` on the device when `params`' `backend` selects it, and
/// checks its results against `model`'s.
///
/// # Errors
/// An unknown backend; `gpu` without a usable device, or for a `spec` the
/// CUDA kernels do not implement; a device error; a result that differs
/// from the model's ([`GpuError::ModelMismatch`]).
///
/// # Example
/// ```
/// use boundgate::gpu::RanOn;
/// use boundgate::kernels::accessor::device::{Launch, ModelResults, Ran, run};
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate::kernels::{Params, registry};
/// use boundgate_verify::format::Format;
/// let kernel = registry::find("accessor-dot").unwrap();
/// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
/// let (x, y) = ([1.0, 2.0], [3.0, 4.0]);
/// let model = ModelResults { before_store: &[11.0], stored: Some(&[11.0]), inverses: &[] };
/// // The default backend runs the model only.
/// let cpu = Params::parse(kernel, &[]).unwrap();
/// let ran = run(&cpu, &spec, Launch::Dot { x: &x, y: &y }, model).unwrap();
/// assert_eq!(ran, Ran { on: RanOn::Cpu, note: None });
/// ```
pub fn run(
    params: &Params,
    spec: &AccessorSpec,
    launch: Launch<'_>,
    model: ModelResults<'_>,
) -> Result<Ran> {
    let backend: Backend = params.text("backend")?.parse()?;
    let ran = match backend.select()? {
        Selected::Cpu { reason } => Ran {
            on: RanOn::Cpu,
            note: reason,
        },
        Selected::Gpu(info) => match on_device(spec, launch, backend)? {
            OnDevice::Ran(device) => {
                compare(&device, &model)?;
                Ran {
                    on: RanOn::Gpu(info),
                    note: None,
                }
            }
            OnDevice::Declined(why) => Ran {
                on: RanOn::Cpu,
                note: Some(why),
            },
        },
    };
    // Once per process: an audit runs the kernel per trial.
    static NOTED: std::sync::Once = std::sync::Once::new();
    if let Some(note) = &ran.note {
        NOTED.call_once(|| eprintln!("note: {note}"));
    }
    Ok(ran)
}

/// The device's results, in the model's layout.
struct DeviceResults {
    before_store: Vec<f64>,
    stored: Vec<f64>,
    inverses: Vec<Vec<f64>>,
}

/// What [`on_device`] did (only a `cuda` build constructs it).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
enum OnDevice {
    /// Ran the kernel.
    Ran(DeviceResults),
    /// Declined under `auto`: the CUDA kernels lack the configuration (why).
    Declined(String),
}

/// The launch on the device. When `spec` has no CUDA kernel: under `auto`
/// [`OnDevice::Declined`] with the kernels' reason (the caller runs the
/// model), under `gpu` that reason as the error.
#[cfg(feature = "cuda")]
fn on_device(spec: &AccessorSpec, launch: Launch<'_>, backend: Backend) -> Result<OnDevice> {
    use super::gpu::{AccessorGpu, GpuPair};
    match GpuPair::of(spec) {
        Err(e) if backend == Backend::Auto => {
            return Ok(OnDevice::Declined(format!("{e}: running the CPU model")));
        }
        Err(e) => return Err(e.into()),
        Ok(_) => {}
    }
    // TRSV's chains pick its order: a setting other than the default builds the kernel file
    // with it (the one tuning knob that changes an order), so that the device computes the
    // model's values.
    let gpu = match launch {
        Launch::Trsv { chain_ways, .. } if chain_ways != super::trsv::TRSV_CHAIN_WAYS => {
            use super::gpu::tuning::{AccessorTuning, Knob};
            let ways = u32::try_from(chain_ways).unwrap_or(u32::MAX);
            AccessorGpu::open_tuned(AccessorTuning::default().with(Knob::TrsvChainWays, ways)?)?
        }
        _ => AccessorGpu::open()?,
    };
    let vector = |v: super::gpu::GpuVector| DeviceResults {
        before_store: v.before_store,
        stored: v.output,
        inverses: Vec::new(),
    };
    Ok(OnDevice::Ran(match launch {
        Launch::Dot { x, y } => {
            let d = gpu.dot(spec, x, y)?;
            DeviceResults {
                before_store: vec![d.before_store],
                stored: vec![d.output],
                inverses: Vec::new(),
            }
        }
        Launch::Gemv { op, a, shape, x, y } => vector(gpu.gemv(spec, op, a, shape, x, y)?),
        Launch::Spmv {
            a,
            format,
            scalars,
            x,
            y,
        } => vector(gpu.spmv(spec, a, format, scalars, x, y)?),
        Launch::Trsv {
            a,
            n,
            b,
            uplo,
            diag,
            chain_ways: _,
        } => {
            let t = gpu.trsv(spec, a, n, b, uplo, diag)?;
            DeviceResults {
                before_store: t.before_store,
                stored: t.output,
                inverses: t.inverses,
            }
        }
    }))
}

#[cfg(not(feature = "cuda"))]
fn on_device(_: &AccessorSpec, _: Launch<'_>, _: Backend) -> Result<OnDevice> {
    // `Backend::select` never selects a device in a build without `cuda`.
    Err(GpuError::NotBuilt.into())
}

/// The device's results against the model's, value by value.
fn compare(device: &DeviceResults, model: &ModelResults<'_>) -> Result<()> {
    same("before the store", &device.before_store, model.before_store)?;
    if let Some(stored) = model.stored {
        same("stored", &device.stored, stored)?;
    }
    if device.inverses.len() != model.inverses.len() {
        return Err(mismatch(format!(
            "the device inverted {} diagonal blocks, the CPU model {}",
            device.inverses.len(),
            model.inverses.len()
        )));
    }
    for (k, (d, m)) in device.inverses.iter().zip(model.inverses).enumerate() {
        same(&format!("inverse of diagonal block {k}"), d, m)?;
    }
    Ok(())
}

fn same(what: &str, device: &[f64], model: &[f64]) -> Result<()> {
    if device.len() != model.len() {
        return Err(mismatch(format!(
            "{what}: the device returned {} values, the CPU model {}",
            device.len(),
            model.len()
        )));
    }
    let differs = |(d, m): &(&f64, &f64)| d.to_bits() != m.to_bits() && !(d.is_nan() && m.is_nan());
    match device
        .iter()
        .zip(model)
        .enumerate()
        .find(|(_, pair)| differs(pair))
    {
        None => Ok(()),
        Some((i, (d, m))) => Err(mismatch(format!(
            "{what}, element {i}: the device computed {d:e} ({:#018x}), the CPU model {m:e} ({:#018x}); \
             the kernel left its model's order, so no bound of that order holds for it (a bug in the kernel or the model)",
            d.to_bits(),
            m.to_bits()
        ))),
    }
}

fn mismatch(text: String) -> crate::error::Error {
    GpuError::ModelMismatch(text).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results<'a>(before: &'a [f64], stored: Option<&'a [f64]>) -> ModelResults<'a> {
        ModelResults {
            before_store: before,
            stored,
            inverses: &[],
        }
    }

    fn device(before: Vec<f64>, stored: Vec<f64>) -> DeviceResults {
        DeviceResults {
            before_store: before,
            stored,
            inverses: Vec::new(),
        }
    }

    #[test]
    fn equal_bits_and_any_two_nans_agree() {
        let nan_payload = f64::from_bits(f64::NAN.to_bits() | 1);
        let d = device(vec![1.5, nan_payload, -0.0], vec![1.5, f64::NAN, -0.0]);
        compare(
            &d,
            &results(&[1.5, f64::NAN, -0.0], Some(&[1.5, f64::NAN, -0.0])),
        )
        .unwrap();
    }

    #[test]
    fn a_different_bit_a_signed_zero_or_a_length_is_a_mismatch_naming_the_value() {
        let one_ulp = f64::from_bits(1.5f64.to_bits() + 1);
        let e = compare(&device(vec![one_ulp], vec![1.5]), &results(&[1.5], None)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("GPU: before the store, element 0:"),
            "{text}"
        );
        assert!(text.contains("no bound of that order holds"), "{text}");
        let e = compare(
            &device(vec![0.0], vec![0.0]),
            &results(&[0.0], Some(&[-0.0])),
        );
        assert!(e.unwrap_err().to_string().contains("stored, element 0"));
        let e = compare(&device(vec![0.0, 1.0], vec![]), &results(&[0.0], None));
        assert!(e.unwrap_err().to_string().contains("2 values"));
    }

    #[test]
    fn without_a_store_the_stored_values_are_not_compared() {
        compare(&device(vec![2.0], vec![7.0]), &results(&[2.0], None)).unwrap();
    }

    #[test]
    fn the_inverses_are_compared_block_by_block() {
        let model_inverses = vec![vec![0.5, 0.0, 0.25, 1.0]];
        let mut d = device(vec![1.0], vec![1.0]);
        d.inverses = vec![vec![0.5, 0.0, 0.25, 1.0 + f64::EPSILON]];
        let m = ModelResults {
            before_store: &[1.0],
            stored: Some(&[1.0]),
            inverses: &model_inverses,
        };
        let e = compare(&d, &m).unwrap_err();
        assert!(
            e.to_string()
                .contains("inverse of diagonal block 0, element 3"),
            "{e}"
        );
        d.inverses.clear();
        assert!(
            compare(&d, &m)
                .unwrap_err()
                .to_string()
                .contains("inverted 0 diagonal blocks")
        );
    }
}
