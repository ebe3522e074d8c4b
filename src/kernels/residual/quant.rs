//! Symmetric absmax quantizers to int8 and int4 (Gu eq. (1)-(3), §3.2), per
//! tensor or vector-wise, with the scale and rounding rules stated.
//!
//! A line (a row of `A`, a column of `B`, or the whole matrix) with
//! `amax = max |x|` gets the scale `lambda = num / amax` (eq. (1): the integer
//! is `Q(lambda x)`; eq. (3): it stands for `q / lambda`), computed in the
//! working format [`Working`]:
//!
//! | [`ScaleRule`] | `num` | source |
//! |---|---|---|
//! | `Absmax` (default) | `2^(N-1) - 1` (127, 7) | §2.3 text and its example `V = [1, 2.5, 4]`, `lambda = 31.75` |
//! | `Half` | `2^(N-2)` (64, 4) | the §3 worked example: `lambda_A = 40.5027 = 64 / 1.58014` |
//! | `Eq2` | `2^N - 1` (255, 15) | eq. (2) as printed: overflows the signed range, so it saturates |
//!
//! The integer is `Q(fl(lambda x))` with `Q` one of [`Rounding`]: to nearest
//! with ties to even (default; what `cvt.rni`/`__float2int_rn` do on the GPU),
//! floor (eq. (9), "to make it easier to understand"), or toward zero (what
//! the worked example's integers show: `-0.1588 * 40.5 = -6.43 -> -6`). The
//! result is clamped to `[-(2^(N-1) - 1), 2^(N-1) - 1]` (symmetric; only `Eq2`,
//! or floor at `-amax`, can reach the clamp) and the clamped count reported.
//!
//! Degenerate lines: an all-zero line gets `lambda = 1` (its integers are 0, no
//! inf or NaN); a line so small that `num / amax` overflows the working format
//! gets the largest power of two of the format (a coarser step, still finite;
//! the bounds are a-posteriori in `lambda`, so any finite positive scale is
//! valid).

use crate::error::Result;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
use serde::Serialize;

/// Integer width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bits {
    /// int8, values in `[-127, 127]`.
    Int8,
    /// int4, values in `[-7, 7]`.
    Int4,
}

impl Bits {
    /// `N`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Bits;
    /// assert_eq!(Bits::Int8.bits(), 8);
    /// assert_eq!(Bits::Int4.bits(), 4);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            Bits::Int8 => 8,
            Bits::Int4 => 4,
        }
    }
    /// The largest magnitude of the symmetric range, `2^(N-1) - 1`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Bits;
    /// assert_eq!(Bits::Int8.qmax(), 127);
    /// assert_eq!(Bits::Int4.qmax(), 7);
    /// ```
    pub fn qmax(self) -> i32 {
        (1 << (self.bits() - 1)) - 1
    }
    /// From `8` or `4`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Bits;
    /// assert_eq!(Bits::from_bits(4), Some(Bits::Int4));
    /// assert_eq!(Bits::from_bits(8), Some(Bits::Int8));
    /// assert_eq!(Bits::from_bits(16), None);
    /// ```
    pub fn from_bits(bits: u32) -> Option<Bits> {
        match bits {
            8 => Some(Bits::Int8),
            4 => Some(Bits::Int4),
            _ => None,
        }
    }
}

/// How the scale is derived from `max |x|` (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScaleRule {
    /// `lambda = (2^(N-1) - 1) / max |x|`.
    Absmax,
    /// `lambda = 2^(N-2) / max |x|` (the worked example).
    Half,
    /// `lambda = (2^N - 1) / max |x|`, eq. (2) literally; saturates.
    Eq2,
}

impl ScaleRule {
    /// The numerator for `bits`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::{Bits, ScaleRule};
    /// assert_eq!(ScaleRule::Absmax.numerator(Bits::Int8), 127.0);
    /// // the worked example: lambda_A = 64 / 1.58014 = 40.5027
    /// assert_eq!(ScaleRule::Half.numerator(Bits::Int8), 64.0);
    /// assert_eq!(ScaleRule::Half.numerator(Bits::Int4), 4.0);
    /// assert_eq!(ScaleRule::Eq2.numerator(Bits::Int4), 15.0);
    /// ```
    pub fn numerator(self, bits: Bits) -> f64 {
        let n = bits.bits() as i32;
        match self {
            ScaleRule::Absmax => f64::from(bits.qmax()),
            ScaleRule::Half => 2f64.powi(n - 2),
            ScaleRule::Eq2 => 2f64.powi(n) - 1.0,
        }
    }
    /// Parameter name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::ScaleRule;
    /// assert_eq!(ScaleRule::Eq2.name(), "eq2");
    /// assert_eq!(ScaleRule::Half.name(), "half");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ScaleRule::Absmax => "absmax",
            ScaleRule::Half => "half",
            ScaleRule::Eq2 => "eq2",
        }
    }
    /// From its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::ScaleRule;
    /// for r in [ScaleRule::Absmax, ScaleRule::Half, ScaleRule::Eq2] {
    ///     assert_eq!(ScaleRule::by_name(r.name()), Some(r));
    /// }
    /// assert_eq!(ScaleRule::by_name("Absmax"), None); // names are lower case
    /// ```
    pub fn by_name(name: &str) -> Option<ScaleRule> {
        [ScaleRule::Absmax, ScaleRule::Half, ScaleRule::Eq2]
            .into_iter()
            .find(|r| r.name() == name)
    }
}

/// How `lambda x` becomes an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// To nearest, ties to even.
    Nearest,
    /// Toward -infinity (eq. (9)).
    Floor,
    /// Toward zero (the worked example).
    TowardZero,
}

impl Rounding {
    /// Parameter name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Rounding;
    /// assert_eq!(Rounding::TowardZero.name(), "trunc");
    /// assert_eq!(Rounding::Nearest.name(), "nearest");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Nearest => "nearest",
            Rounding::Floor => "floor",
            Rounding::TowardZero => "trunc",
        }
    }
    /// From its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Rounding;
    /// for r in [Rounding::Nearest, Rounding::Floor, Rounding::TowardZero] {
    ///     assert_eq!(Rounding::by_name(r.name()), Some(r));
    /// }
    /// assert_eq!(Rounding::by_name("toward_zero"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<Rounding> {
        [Rounding::Nearest, Rounding::Floor, Rounding::TowardZero]
            .into_iter()
            .find(|r| r.name() == name)
    }
    /// Applies the rule to a finite value.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Rounding;
    /// assert_eq!(Rounding::Nearest.apply(2.5), 2.0); // ties to even
    /// assert_eq!(Rounding::Nearest.apply(-3.5), -4.0);
    /// // the worked example: -0.1588 * 40.5 = -6.43
    /// assert_eq!(Rounding::Floor.apply(-6.43), -7.0);
    /// assert_eq!(Rounding::TowardZero.apply(-6.43), -6.0);
    /// ```
    pub fn apply(self, t: f64) -> f64 {
        match self {
            Rounding::Nearest => t.round_ties_even(),
            Rounding::Floor => t.floor(),
            Rounding::TowardZero => t.trunc(),
        }
    }
}

/// Scales per matrix or per row of `A` and column of `B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// One scale per matrix.
    Tensor,
    /// One per row of `A`, one per column of `B` (Gu §3.2).
    Vector,
}

impl Granularity {
    /// The scale axis of `A` (`left`) or `B`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Granularity;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// assert_eq!(Granularity::Vector.axis(true), ScaleAxis::Rows);
    /// assert_eq!(Granularity::Vector.axis(false), ScaleAxis::Columns);
    /// assert_eq!(Granularity::Tensor.axis(true), ScaleAxis::Tensor);
    /// assert_eq!(Granularity::Tensor.axis(false), ScaleAxis::Tensor);
    /// ```
    pub fn axis(self, left: bool) -> ScaleAxis {
        match (self, left) {
            (Granularity::Tensor, _) => ScaleAxis::Tensor,
            (Granularity::Vector, true) => ScaleAxis::Rows,
            (Granularity::Vector, false) => ScaleAxis::Columns,
        }
    }
}

/// The floating-point format of every non-integer step (scales, quantization
/// products, residuals, dequantization, the final additions), round to
/// nearest even, IEEE with subnormals: native `f32`/`f64` operations, which
/// are correctly rounded (Rust never contracts or flushes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Working {
    /// binary32, the paper's `T_F` (its reference is SGEMM).
    Fp32,
    /// binary64.
    Fp64,
}

impl Working {
    /// Parameter name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// assert_eq!(Working::Fp32.name(), "fp32");
    /// assert_eq!(Working::Fp64.name(), "fp64");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Working::Fp32 => "fp32",
            Working::Fp64 => "fp64",
        }
    }
    /// The checker's description of it.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// let f = Working::Fp32.format();
    /// assert_eq!(f.name(), "fp32");
    /// assert_eq!(f.max_finite(), f64::from(f32::MAX));
    /// assert_eq!(Working::Fp64.format().max_finite(), f64::MAX);
    /// ```
    pub fn format(self) -> boundgate_verify::format::Format {
        match self {
            Working::Fp32 => boundgate_verify::format::Format::FP32,
            Working::Fp64 => boundgate_verify::format::Format::FP64,
        }
    }
    /// Rounds to the format (nearest even).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// assert_eq!(Working::Fp32.round(0.1), f64::from(0.1f32));
    /// assert_ne!(Working::Fp32.round(0.1), 0.1);
    /// assert_eq!(Working::Fp64.round(0.1), 0.1);
    /// // 1 + 2^-24 is halfway between two binary32 values: to the even one
    /// assert_eq!(Working::Fp32.round(1.0 + 2f64.powi(-24)), 1.0);
    /// ```
    #[inline]
    pub fn round(self, x: f64) -> f64 {
        match self {
            Working::Fp32 => f64::from(x as f32),
            Working::Fp64 => x,
        }
    }
    /// `fl(a * b)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: exact in binary64, a tie in binary32
    /// let x = 1.0 + 2f64.powi(-12);
    /// assert_eq!(Working::Fp64.mul(x, x), 1.0 + 2f64.powi(-11) + 2f64.powi(-24));
    /// assert_eq!(Working::Fp32.mul(x, x), 1.0 + 2f64.powi(-11));
    /// ```
    #[inline]
    pub fn mul(self, a: f64, b: f64) -> f64 {
        match self {
            Working::Fp32 => f64::from(a as f32 * b as f32),
            Working::Fp64 => a * b,
        }
    }
    /// `fl(a / b)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// assert_eq!(Working::Fp32.div(127.0, 4.0), 31.75); // Gu §2.3's lambda
    /// assert_eq!(Working::Fp32.div(1.0, 3.0), f64::from(1.0f32 / 3.0));
    /// assert_ne!(Working::Fp32.div(1.0, 3.0), 1.0 / 3.0);
    /// ```
    #[inline]
    pub fn div(self, a: f64, b: f64) -> f64 {
        match self {
            Working::Fp32 => f64::from(a as f32 / b as f32),
            Working::Fp64 => a / b,
        }
    }
    /// `fl(a - b)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// let tiny = 2f64.powi(-30);
    /// assert_eq!(Working::Fp32.sub(1.0, tiny), 1.0); // below half an ulp
    /// assert_eq!(Working::Fp64.sub(1.0, tiny), 1.0 - tiny);
    /// ```
    #[inline]
    pub fn sub(self, a: f64, b: f64) -> f64 {
        match self {
            Working::Fp32 => f64::from(a as f32 - b as f32),
            Working::Fp64 => a - b,
        }
    }
    /// `fl(a + b)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// assert_eq!(Working::Fp32.add(1.0, 2f64.powi(-24)), 1.0); // a tie, to even
    /// assert_eq!(Working::Fp32.add(1.0, 2f64.powi(-23)), 1.0 + 2f64.powi(-23));
    /// assert_eq!(Working::Fp64.add(1.0, 2f64.powi(-24)), 1.0 + 2f64.powi(-24));
    /// ```
    #[inline]
    pub fn add(self, a: f64, b: f64) -> f64 {
        match self {
            Working::Fp32 => f64::from(a as f32 + b as f32),
            Working::Fp64 => a + b,
        }
    }
    /// `fl(i)` for an integer (exact below `2^24` / `2^53`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// assert_eq!(Working::Fp32.from_int(16_777_216), 16_777_216.0);
    /// assert_eq!(Working::Fp32.from_int(16_777_217), 16_777_216.0); // 2^24 + 1 rounds
    /// assert_eq!(Working::Fp64.from_int(16_777_217), 16_777_217.0);
    /// ```
    #[inline]
    pub fn from_int(self, i: i32) -> f64 {
        match self {
            Working::Fp32 => f64::from(i as f32),
            Working::Fp64 => f64::from(i),
        }
    }
    /// The largest power of two of the format (the scale of lines too small
    /// for `num / amax`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::Working;
    /// let p = Working::Fp32.max_pow2();
    /// assert_eq!(p, 2f64.powi(127));
    /// assert!((p as f32).is_finite() && !((2.0 * p) as f32).is_finite());
    /// let p = Working::Fp64.max_pow2();
    /// assert!(p.is_finite() && (2.0 * p).is_infinite());
    /// ```
    pub fn max_pow2(self) -> f64 {
        match self {
            Working::Fp32 => 2f64.powi(127),
            Working::Fp64 => 2f64.powi(1023),
        }
    }
}

/// A quantizer: width, scale rule, rounding rule, working format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Quantizer {
    /// int8 or int4.
    pub bits: Bits,
    /// Scale from `max |x|`.
    pub scale: ScaleRule,
    /// `lambda x` to an integer.
    pub rounding: Rounding,
    /// The format of the floating-point steps.
    pub working: Working,
}

/// A quantized matrix: integers (row-major) and their scales (`x ~ q / lambda`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuantizedMatrix {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// The integers, row-major, each in `[-qmax, qmax]`.
    pub ints: Vec<i8>,
    /// The scales `lambda` (values of the working format): 1, `rows` or `cols` of them.
    pub scales: Vec<f64>,
    /// Their layout.
    #[serde(skip)]
    pub axis: ScaleAxis,
    /// How many integers were clamped to `+-qmax`.
    pub saturated: usize,
}

impl QuantizedMatrix {
    /// The scale of element `(i, j)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // rows [1, 2] and [4, -8]: lambda = 127 / 2 = 63.5 and 127 / 8 = 15.875
    /// let x = q.quantize("X", &[1.0, 2.0, 4.0, -8.0], 2, 2, ScaleAxis::Rows).unwrap();
    /// assert_eq!(x.scale(0, 1), 63.5);
    /// assert_eq!(x.scale(1, 0), 15.875);
    /// ```
    #[inline]
    pub fn scale(&self, i: usize, j: usize) -> f64 {
        match self.axis {
            ScaleAxis::Tensor => self.scales[0],
            ScaleAxis::Rows => self.scales[i],
            ScaleAxis::Columns => self.scales[j],
        }
    }

    /// The checker's view of it.
    ///
    /// # Errors
    /// As [`QuantizedView::new`]: [`VerifyError::LengthMismatch`] or
    /// [`VerifyError::InvalidParameter`] if the public fields were changed so
    /// that the integers or scales no longer fit the shape, or a scale is not
    /// finite and positive (never for a matrix built by [`Quantizer::quantize`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // rows [1, 2] and [4, -8]: lambda = 127 / 2 = 63.5 and 127 / 8 = 15.875
    /// let x = q.quantize("X", &[1.0, 2.0, 4.0, -8.0], 2, 2, ScaleAxis::Rows).unwrap();
    /// let v = x.view().unwrap();
    /// assert_eq!((v.rows(), v.cols(), v.axis()), (2, 2, ScaleAxis::Rows));
    /// assert_eq!(v.ints(), &x.ints[..]);
    /// assert_eq!(v.scale(1, 1), 15.875);
    /// // a hand-edited matrix whose scales no longer fit its axis is refused
    /// let mut bad = x.clone();
    /// bad.scales.pop();
    /// assert!(bad.view().is_err());
    /// ```
    pub fn view(&self) -> Result<QuantizedView<'_>> {
        Ok(QuantizedView::new(
            self.rows,
            self.cols,
            &self.ints,
            &self.scales,
            self.axis,
        )?)
    }

    /// The largest `|q|`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // rows [1, 2] and [4, -8]: lambda = 127 / 2 = 63.5 and 127 / 8 = 15.875
    /// let x = q.quantize("X", &[1.0, 2.0, 4.0, -8.0], 2, 2, ScaleAxis::Rows).unwrap();
    /// // 63.5 -> 64 (ties to even), 127, 63.5 -> 64, -127
    /// assert_eq!(x.ints, vec![64, 127, 64, -127]);
    /// assert_eq!(x.max_abs(), 127);
    /// ```
    pub fn max_abs(&self) -> u32 {
        self.ints
            .iter()
            .map(|q| u32::from(q.unsigned_abs()))
            .max()
            .unwrap_or(0)
    }

    /// The dequantized values `fl(q / lambda)` in the working format.
    ///
    /// # Errors
    /// As [`QuantizedMatrix::view`] (only for a matrix whose public fields
    /// were changed inconsistently).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // rows [1, 2] and [4, -8]: lambda = 127 / 2 = 63.5 and 127 / 8 = 15.875
    /// let x = q.quantize("X", &[1.0, 2.0, 4.0, -8.0], 2, 2, ScaleAxis::Rows).unwrap();
    /// let d = x.dequantize(Working::Fp32).unwrap();
    /// assert_eq!(d, vec![f64::from(64f32 / 63.5), 2.0, f64::from(64f32 / 15.875), -8.0]);
    /// // within half a step 1 / (2 lambda), plus one binary32 rounding, of the value
    /// assert!((d[0] - 1.0).abs() <= 0.5 / 63.5 + f64::from(f32::EPSILON));
    /// ```
    pub fn dequantize(&self, working: Working) -> Result<Vec<f64>> {
        self.view()?;
        let mut out = Vec::with_capacity(self.ints.len());
        for i in 0..self.rows {
            for j in 0..self.cols {
                let q = self.ints[i * self.cols + j];
                out.push(working.div(f64::from(q), self.scale(i, j)));
            }
        }
        Ok(out)
    }
}

impl Quantizer {
    /// Quantizes a row-major `rows x cols` matrix of working-format values
    /// with one scale per `axis` line (Gu eq. (1) with the scale rule).
    ///
    /// # Errors
    /// [`VerifyError::NonFinite`] for a NaN or infinite value (named by `what`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// // Gu §2.3: V = [1, 2.5, 4], int8, lambda = 127 / 4 = 31.75, floor: 2.5 -> 79.
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Floor, working: Working::Fp32 };
    /// let v = q.quantize("V", &[1.0, 2.5, 4.0], 1, 3, ScaleAxis::Tensor).unwrap();
    /// assert_eq!(v.scales, vec![31.75]);
    /// assert_eq!(v.ints, vec![31, 79, 127]);
    /// ```
    pub fn quantize(
        &self,
        what: &str,
        values: &[f64],
        rows: usize,
        cols: usize,
        axis: ScaleAxis,
    ) -> Result<QuantizedMatrix> {
        boundgate_verify::error::require_finite(what, values)?;
        if rows.checked_mul(cols) != Some(values.len()) {
            return Err(VerifyError::invalid(
                what,
                values.len() as f64,
                format!(
                    "{} values cannot form a {rows} x {cols} matrix",
                    values.len()
                ),
            )
            .into());
        }
        let lines = match axis {
            ScaleAxis::Tensor => 1,
            ScaleAxis::Rows => rows,
            ScaleAxis::Columns => cols,
        };
        let line_of = |i: usize, j: usize| match axis {
            ScaleAxis::Tensor => 0,
            ScaleAxis::Rows => i,
            ScaleAxis::Columns => j,
        };
        let mut amax = vec![0.0f64; lines];
        for i in 0..rows {
            for j in 0..cols {
                let l = line_of(i, j);
                amax[l] = amax[l].max(values[i * cols + j].abs());
            }
        }
        let num = self.scale.numerator(self.bits);
        let scales: Vec<f64> = amax
            .iter()
            .map(|&m| {
                if m == 0.0 {
                    return 1.0;
                }
                let lambda = self.working.div(num, m);
                if lambda.is_finite() {
                    lambda
                } else {
                    self.working.max_pow2()
                }
            })
            .collect();
        let qmax = f64::from(self.bits.qmax());
        let mut ints = Vec::with_capacity(values.len());
        let mut saturated = 0;
        for i in 0..rows {
            for j in 0..cols {
                let t = self
                    .working
                    .mul(scales[line_of(i, j)], values[i * cols + j]);
                let q = self.rounding.apply(t);
                let clamped = q.clamp(-qmax, qmax);
                if clamped != q {
                    saturated += 1;
                }
                ints.push(clamped as i8);
            }
        }
        Ok(QuantizedMatrix {
            rows,
            cols,
            ints,
            scales,
            axis,
            saturated,
        })
    }
}

/// Rounds every input to the working format (nearest even).
///
/// # Errors
/// [`VerifyError::NonFinite`] for NaN or infinity, [`VerifyError::Overflow`]
/// for a finite value beyond the format's range.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::residual::quant::{Working, store};
/// use boundgate_verify::VerifyError;
/// assert_eq!(store("x", &[0.1, 2.0], Working::Fp32).unwrap(), vec![f64::from(0.1f32), 2.0]);
/// assert!(matches!(
///     store("x", &[1e300], Working::Fp32),
///     Err(Error::Verify(VerifyError::Overflow { .. }))
/// ));
/// assert!(matches!(
///     store("x", &[f64::NAN], Working::Fp64),
///     Err(Error::Verify(VerifyError::NonFinite { .. }))
/// ));
/// ```
pub fn store(what: &str, values: &[f64], working: Working) -> Result<Vec<f64>> {
    boundgate_verify::error::require_finite(what, values)?;
    values
        .iter()
        .map(|&v| {
            let s = working.round(v);
            if s.is_finite() {
                Ok(s)
            } else {
                let f = working.format();
                Err(VerifyError::Overflow {
                    format: f.name().to_string(),
                    value: v,
                    max: f.max_finite(),
                }
                .into())
            }
        })
        .collect()
}

/// The residual `fl(x - fl(q / lambda))` of every element (Algorithm 1, lines 4-5).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] if `values` and `q` do not have as many
/// elements (a shorter one was silently truncated to before); the errors of
/// [`QuantizedMatrix::dequantize`].
///
/// # Example
/// ```
/// use boundgate::kernels::residual::quant::*;
/// use boundgate_verify::bounds::residual::ScaleAxis;
/// // Gu §2.3: V = [1, 2.5, 4], lambda = 31.75, floor: [31, 79, 127].
/// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Floor, working: Working::Fp32 };
/// let v = [1.0, 2.5, 4.0];
/// let vq = q.quantize("V", &v, 1, 3, ScaleAxis::Tensor).unwrap();
/// let r = residual(&v, &vq, Working::Fp32).unwrap();
/// assert_eq!(r[2], 0.0); // 127 / 31.75 = 4
/// // the subtraction is exact (Sterbenz): r is 2.5 - fl(79 / 31.75) exactly
/// assert_eq!(r[1], 2.5 - f64::from(79f32 / 31.75));
/// // floor leaves a residual in [0, 1 / lambda)
/// assert!(r.iter().all(|&x| (0.0..1.0 / 31.75).contains(&x)));
/// // values that are not those of the quantized matrix are refused
/// assert!(residual(&v[..2], &vq, Working::Fp32).is_err());
/// ```
pub fn residual(values: &[f64], q: &QuantizedMatrix, working: Working) -> Result<Vec<f64>> {
    boundgate_verify::error::require_same_len(
        "values and quantized integers",
        values.len(),
        q.ints.len(),
    )?;
    Ok(values
        .iter()
        .zip(q.dequantize(working)?)
        .map(|(&x, d)| working.sub(x, d))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn q() -> Quantizer {
        Quantizer {
            bits: Bits::Int8,
            scale: ScaleRule::Absmax,
            rounding: Rounding::Nearest,
            working: Working::Fp32,
        }
    }

    #[test]
    fn view_and_dequantize_refuse_hand_edited_fields_instead_of_panicking() {
        let x = q()
            .quantize("X", &[1.0, 2.0, 4.0, -8.0], 2, 2, ScaleAxis::Rows)
            .unwrap();
        let mut short_scales = x.clone();
        short_scales.scales.pop();
        let mut short_ints = x.clone();
        short_ints.ints.pop();
        let mut bad_scale = x;
        bad_scale.scales[0] = f64::NAN;
        for bad in [&short_scales, &short_ints, &bad_scale] {
            assert!(bad.view().is_err());
            assert!(bad.dequantize(Working::Fp32).is_err());
        }
    }

    #[test]
    fn residual_refuses_values_of_another_length() {
        let v = [1.0, 2.5, 4.0];
        let vq = q().quantize("V", &v, 1, 3, ScaleAxis::Tensor).unwrap();
        for values in [&v[..2], &[1.0, 2.5, 4.0, 5.0][..]] {
            let got = residual(values, &vq, Working::Fp32);
            assert!(
                matches!(got, Err(Error::Verify(VerifyError::LengthMismatch { .. }))),
                "{got:?}"
            );
        }
    }
}
