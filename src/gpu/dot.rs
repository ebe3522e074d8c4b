//! The baseline dot product on the GPU (`kernels/dot.cu`), its exact CPU model,
//! and the choice between them.

use super::tree_dot::{TreeDotConfig, TreeDotOutput, tree_dot};
use super::{Backend, DeviceInfo, GpuError, Selected};
use boundgate_verify::VerifyError;
use boundgate_verify::error::{require_finite, require_nonempty, require_same_len};
use boundgate_verify::format::Format;
use std::fmt;
use std::str::FromStr;

/// Input storage and arithmetic of the dot.
///
/// # Example
/// ```
/// use boundgate::gpu::DotPrecision;
/// use boundgate_verify::format::Format;
/// let p: DotPrecision = "fp16-fp32".parse().unwrap();
/// assert_eq!((p.storage(), p.accumulator()), (Format::FP16, Format::FP32));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DotPrecision {
    /// binary64 inputs, binary64 fma and additions.
    Fp64,
    /// binary32 inputs, binary32 fma and additions.
    Fp32,
    /// binary16 inputs widened exactly to binary32, binary32 fma and additions.
    Fp16Fp32,
}

impl DotPrecision {
    /// All precisions the kernel has.
    pub const ALL: [DotPrecision; 3] = [
        DotPrecision::Fp64,
        DotPrecision::Fp32,
        DotPrecision::Fp16Fp32,
    ];

    /// The name the CLI uses: `fp64`, `fp32`, `fp16-fp32`.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::DotPrecision;
    /// assert_eq!(DotPrecision::Fp16Fp32.name(), "fp16-fp32");
    /// for p in DotPrecision::ALL {
    ///     assert_eq!(p.name().parse::<DotPrecision>().unwrap(), p);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DotPrecision::Fp64 => "fp64",
            DotPrecision::Fp32 => "fp32",
            DotPrecision::Fp16Fp32 => "fp16-fp32",
        }
    }

    /// The format the inputs are stored in (every input must be one of its values).
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{dot_model, DotPrecision, GpuError};
    /// use boundgate_verify::{VerifyError, format::Format};
    /// assert_eq!(DotPrecision::Fp16Fp32.storage(), Format::FP16);
    /// // 1 + 2^-11 is a binary32 value but not a binary16 one.
    /// let x = [1.0 + 2f64.powi(-11)];
    /// assert!(dot_model(&x, &[1.0], DotPrecision::Fp32).is_ok());
    /// let err = dot_model(&x, &[1.0], DotPrecision::Fp16Fp32).unwrap_err();
    /// assert!(matches!(err, GpuError::Input(VerifyError::NotRepresentable { .. })));
    /// ```
    pub fn storage(self) -> Format {
        match self {
            DotPrecision::Fp64 => Format::FP64,
            DotPrecision::Fp32 => Format::FP32,
            DotPrecision::Fp16Fp32 => Format::FP16,
        }
    }

    /// The format of every fma and addition.
    ///
    /// # Example
    /// ```
    /// use boundgate::gpu::{dot_model, DotPrecision};
    /// use boundgate_verify::format::Format;
    /// assert_eq!(DotPrecision::Fp16Fp32.accumulator(), Format::FP32);
    /// // 2048 + 1 = 2049 needs 12 bits: exact in the fp32 accumulator (an fp16
    /// // sum would round it to 2048), though the inputs are fp16 values.
    /// let out = dot_model(&[2048.0, 1.0], &[1.0, 1.0], DotPrecision::Fp16Fp32).unwrap();
    /// assert_eq!(out.value, 2049.0);
    /// ```
    pub fn accumulator(self) -> Format {
        match self {
            DotPrecision::Fp64 => Format::FP64,
            DotPrecision::Fp32 | DotPrecision::Fp16Fp32 => Format::FP32,
        }
    }
}

impl FromStr for DotPrecision {
    type Err = GpuError;
    fn from_str(name: &str) -> Result<DotPrecision, GpuError> {
        let wanted = name.trim().to_ascii_lowercase();
        DotPrecision::ALL
            .into_iter()
            .find(|p| p.name() == wanted)
            .ok_or_else(|| GpuError::UnknownPrecision(name.to_string()))
    }
}

impl fmt::Display for DotPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The CPU model of exactly what [`dot`] computes: [`tree_dot`] in the
/// precision's accumulation format with the launcher's geometry
/// ([`TreeDotConfig::for_gpu`]), after the same input checks.
///
/// # Example
/// ```
/// use boundgate::gpu::{dot_model, DotPrecision};
/// let out = dot_model(&[1.0, 2.0], &[3.0, 4.0], DotPrecision::Fp16Fp32).unwrap();
/// assert_eq!(out.value, 11.0);
/// ```
pub fn dot_model(x: &[f64], y: &[f64], precision: DotPrecision) -> Result<TreeDotOutput, GpuError> {
    check_inputs(x, y, precision)?;
    Ok(tree_dot(
        x,
        y,
        precision.accumulator(),
        TreeDotConfig::for_gpu(x.len()),
    )?)
}

/// The dot product of `x` and `y` on the GPU, with the launcher's geometry
/// ([`TreeDotConfig::for_gpu`]); [`dot_model`] reproduces it bit for bit.
///
/// Inputs are checked first (typed [`GpuError::Input`]: empty, mismatched,
/// non-finite, or not a value of [`DotPrecision::storage`]); then the device
/// ([`GpuError::NoDriver`] on a machine without one, [`GpuError::NotBuilt`]
/// without the `cuda` feature). A result that overflowed is
/// [`VerifyError::Overflow`], as in the model.
///
/// # Example
/// ```
/// use boundgate::gpu::{dot, GpuError, DotPrecision};
/// match dot(&[1.0, 2.0], &[3.0, 4.0], DotPrecision::Fp32) {
///     Ok(value) => assert_eq!(value, 11.0),
///     Err(GpuError::NotBuilt | GpuError::NoDriver { .. }) => {} // no GPU here
///     Err(other) => panic!("{other}"),
/// }
/// ```
pub fn dot(x: &[f64], y: &[f64], precision: DotPrecision) -> Result<f64, GpuError> {
    dot_with_config(x, y, precision, TreeDotConfig::for_gpu(x.len()))
}

/// [`dot`] with an explicit geometry (for tests of the order itself).
///
/// # Example
/// ```
/// use boundgate::gpu::{dot_with_config, DotPrecision, GpuError};
/// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
/// use boundgate_verify::VerifyError;
/// // A geometry the kernel cannot run (3 threads: not a power of two) is
/// // refused before any device is touched.
/// let odd = TreeDotConfig { threads_per_block: 3, blocks: 1 };
/// let err = dot_with_config(&[1.0], &[1.0], DotPrecision::Fp64, odd).unwrap_err();
/// assert!(matches!(err, GpuError::Input(VerifyError::InvalidParameter { .. })));
/// match dot_with_config(&[1.0, 2.0], &[3.0, 4.0], DotPrecision::Fp64, TreeDotConfig::new(32, 2).unwrap()) {
///     Ok(value) => assert_eq!(value, 11.0),
///     Err(GpuError::NotBuilt | GpuError::NoDriver { .. }) => {} // no GPU here
///     Err(other) => panic!("{other}"),
/// }
/// ```
pub fn dot_with_config(
    x: &[f64],
    y: &[f64],
    precision: DotPrecision,
    config: TreeDotConfig,
) -> Result<f64, GpuError> {
    check_inputs(x, y, precision)?;
    config.validate()?;
    launch(x, y, precision, config)
}

#[cfg(feature = "cuda")]
fn launch(
    x: &[f64],
    y: &[f64],
    precision: DotPrecision,
    config: TreeDotConfig,
) -> Result<f64, GpuError> {
    let value = super::launch::dot(x, y, precision, config)?;
    if value.is_finite() {
        Ok(value)
    } else {
        let format = precision.accumulator();
        Err(VerifyError::Overflow {
            format: format.name().to_string(),
            value,
            max: format.max_finite(),
        }
        .into())
    }
}

#[cfg(not(feature = "cuda"))]
fn launch(_: &[f64], _: &[f64], _: DotPrecision, _: TreeDotConfig) -> Result<f64, GpuError> {
    Err(GpuError::NotBuilt)
}

/// Where a [`run_dot`] ran.
#[derive(Clone, Debug, PartialEq)]
pub enum RanOn {
    /// The CPU model.
    Cpu,
    /// This GPU.
    Gpu(DeviceInfo),
}

/// The outcome of [`run_dot`].
#[derive(Clone, Debug, PartialEq)]
pub struct DotRun {
    /// The dot product (identical on both backends).
    pub value: f64,
    /// The most roundings any term went through (for the `gamma_depth` bound).
    pub depth: u64,
    /// The geometry whose order was followed.
    pub config: TreeDotConfig,
    /// Where it ran.
    pub ran_on: RanOn,
    /// Why the CPU ran when `auto` wanted the GPU.
    pub note: Option<String>,
}

/// The dot on the chosen backend: the GPU kernel, or its CPU model, which gives
/// the same bits. `auto` without a GPU runs the model and says why in
/// [`DotRun::note`].
///
/// # Example
/// ```
/// use boundgate::gpu::{run_dot, Backend, DotPrecision, RanOn};
/// let run = run_dot(&[1.0, 2.0], &[3.0, 4.0], DotPrecision::Fp64, Backend::Cpu).unwrap();
/// assert_eq!((run.value, run.ran_on), (11.0, RanOn::Cpu));
/// ```
pub fn run_dot(
    x: &[f64],
    y: &[f64],
    precision: DotPrecision,
    backend: Backend,
) -> Result<DotRun, GpuError> {
    // Bad input is reported before anything touches a device.
    check_inputs(x, y, precision)?;
    let config = TreeDotConfig::for_gpu(x.len());
    let depth = config.depth(x.len());
    match backend.select()? {
        Selected::Gpu(info) => Ok(DotRun {
            value: dot_with_config(x, y, precision, config)?,
            depth,
            config,
            ran_on: RanOn::Gpu(info),
            note: None,
        }),
        Selected::Cpu { reason } => {
            let out = dot_model(x, y, precision)?;
            Ok(DotRun {
                value: out.value,
                depth: out.depth,
                config: out.config,
                ran_on: RanOn::Cpu,
                note: reason,
            })
        }
    }
}

fn check_inputs(x: &[f64], y: &[f64], precision: DotPrecision) -> Result<(), VerifyError> {
    require_nonempty("x", x)?;
    require_same_len("x and y", x.len(), y.len())?;
    require_finite("x", x)?;
    require_finite("y", y)?;
    precision.storage().require_values(x)?;
    precision.storage().require_values(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_names_round_trip() {
        for p in DotPrecision::ALL {
            assert_eq!(p.name().parse::<DotPrecision>().unwrap(), p);
            assert_eq!(p.to_string(), p.name());
        }
        assert!(matches!(
            "fp8".parse::<DotPrecision>(),
            Err(GpuError::UnknownPrecision(_))
        ));
    }

    #[test]
    fn inputs_are_checked_against_the_storage_format() {
        // 1 + 2^-11 is an fp32 number but not an fp16 one.
        let x = [1.0 + 2f64.powi(-11)];
        assert!(dot_model(&x, &[1.0], DotPrecision::Fp32).is_ok());
        assert!(matches!(
            dot_model(&x, &[1.0], DotPrecision::Fp16Fp32),
            Err(GpuError::Input(VerifyError::NotRepresentable { .. }))
        ));
        // The GPU entry point checks before looking for a device.
        assert!(matches!(
            dot(&x, &[1.0], DotPrecision::Fp16Fp32),
            Err(GpuError::Input(_))
        ));
        assert!(matches!(
            dot(&[], &[], DotPrecision::Fp32),
            Err(GpuError::Input(VerifyError::Empty { .. }))
        ));
        assert!(matches!(
            run_dot(&[1.0], &[f64::NAN], DotPrecision::Fp64, Backend::Gpu),
            Err(GpuError::Input(_))
        ));
    }

    #[test]
    fn auto_and_cpu_agree_with_the_model() {
        let x = [1.5, -2.25, 1024.0, 3.0];
        let y = [0.5, 4.0, 1.0 / 1024.0, -1.0];
        for p in DotPrecision::ALL {
            let model = dot_model(&x, &y, p).unwrap();
            for backend in [Backend::Cpu, Backend::Auto] {
                let run = run_dot(&x, &y, p, backend).unwrap();
                assert_eq!(run.value.to_bits(), model.value.to_bits());
                assert_eq!(run.depth, model.depth);
            }
        }
    }
}
