//! MAC units (§3.1, §3.2): `d = a b + c` without FMA, with FMA, and with a
//! mixed-precision FMA (MPFMA), parametrised by the formats behind
//! `(u_low, u_high, u~, u_bar, u_FMA)`.
//!
//! - unfused: `d = fl(fl(a b) + c)` in one format (§4.1, "MAC without FMA");
//! - FMA: `d = fl(a b + c)` in one format (§3.1, eq. (3.1));
//! - MPFMA: `a, b` in `t_low`, `c` in `t_high`, `p = fl_{t~}(a b)` (exact when
//!   it fits), `s = fl_{t_bar}(p + c)`, `d = fl_{t_FMA}(s)` (§3.2, Fig. 2).
//!
//! Inputs are cast to their formats with round to nearest even; every
//! arithmetic step is correctly rounded by `boundgate_verify::format`.

use boundgate_verify::bounds::tc::{MacStep, MacSteps, Roundoffs};
use boundgate_verify::format::{Exact, Format, RoundingMode};
use serde::Serialize;

/// Which MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MacOp {
    /// `fl(fl(a b) + c)`.
    NoFma,
    /// `fl(a b + c)`.
    Fma,
    /// The mixed-precision FMA.
    Mpfma,
}

/// A MAC unit: the operation and the format of every step.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::unit::MacUnit;
/// // Fig. 5's MPFMA: fp32 a, b cast to fp16; fp32 c; fp32 product, sum and output.
/// let unit = MacUnit::fig5_mpfma();
/// let (a, b, c) = unit.stored(1.0 + 2f64.powi(-20), 1.5, 1.25);
/// assert_eq!(a, 1.0); // the cast to fp16 rounds 2^-20 away
/// assert_eq!(unit.compute(a, b, c), 2.75);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MacUnit {
    /// The operation.
    pub op: MacOp,
    /// Format of `a`, `b` (`t_low`).
    pub low: Format,
    /// Format of `c` (`t_high`).
    pub high: Format,
    /// Format of the product (`t~`).
    pub tilde: Format,
    /// Format of the sum (`t_bar`).
    pub bar: Format,
    /// Format of the output (`t_FMA`).
    pub out: Format,
    /// Rounding mode of the arithmetic (casts are always to nearest even).
    pub mode: RoundingMode,
}

impl MacUnit {
    /// The unfused MAC in one format.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::{MacOp, MacUnit};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let unit = MacUnit::no_fma(Format::FP16, RoundingMode::NearestEven);
    /// assert_eq!((unit.op, unit.low, unit.out), (MacOp::NoFma, Format::FP16, Format::FP16));
    /// // a b = (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9 in fp16, so a b + c cancels to 0
    /// // (exactly: 2^-20).
    /// let a = 1.0 + 2f64.powi(-10);
    /// assert_eq!(unit.compute(a, a, -(1.0 + 2f64.powi(-9))), 0.0);
    /// ```
    pub fn no_fma(format: Format, mode: RoundingMode) -> MacUnit {
        MacUnit::uniform(MacOp::NoFma, format, mode)
    }

    /// The FMA in one format.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::{MacOp, MacUnit};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let unit = MacUnit::fma(Format::FP16, RoundingMode::NearestEven);
    /// assert_eq!(unit.op, MacOp::Fma);
    /// // (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20, a subnormal fp16 value: one rounding, exact
    /// // (the unfused MAC gives 0).
    /// let a = 1.0 + 2f64.powi(-10);
    /// assert_eq!(unit.compute(a, a, -(1.0 + 2f64.powi(-9))), 2f64.powi(-20));
    /// ```
    pub fn fma(format: Format, mode: RoundingMode) -> MacUnit {
        MacUnit::uniform(MacOp::Fma, format, mode)
    }

    fn uniform(op: MacOp, format: Format, mode: RoundingMode) -> MacUnit {
        MacUnit {
            op,
            low: format,
            high: format,
            tilde: format,
            bar: format,
            out: format,
            mode,
        }
    }

    /// The MPFMA with the given formats.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::{MacOp, MacUnit};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let (h, s) = (Format::FP16, Format::FP32);
    /// // Table 2, second row: fp16 a, b, c, sum and output; fp32 products.
    /// let unit = MacUnit::mpfma(h, h, s, h, h, RoundingMode::NearestEven);
    /// assert_eq!((unit.op, unit.tilde, unit.bar), (MacOp::Mpfma, s, h));
    /// // The product 1 + 2^-9 + 2^-20 is exact in fp32; + 2048 rounds once in fp16 (spacing 2).
    /// let a = 1.0 + 2f64.powi(-10);
    /// assert_eq!(unit.compute(a, a, -(1.0 + 2f64.powi(-9))), 2f64.powi(-20));
    /// assert_eq!(unit.compute(a, a, 2048.0), 2050.0); // 2049.001...: nearest is 2050
    /// ```
    pub fn mpfma(
        low: Format,
        high: Format,
        tilde: Format,
        bar: Format,
        out: Format,
        mode: RoundingMode,
    ) -> MacUnit {
        MacUnit {
            op: MacOp::Mpfma,
            low,
            high,
            tilde,
            bar,
            out,
            mode,
        }
    }

    /// Fig. 5's MPFMA: Table 2, first row (fp16 `a, b`; fp32 everything else).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::MacUnit;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let (h, s) = (Format::FP16, Format::FP32);
    /// assert_eq!(MacUnit::fig5_mpfma(), MacUnit::mpfma(h, s, s, s, s, RoundingMode::NearestEven));
    /// ```
    pub fn fig5_mpfma() -> MacUnit {
        let s = Format::FP32;
        MacUnit::mpfma(Format::FP16, s, s, s, s, RoundingMode::NearestEven)
    }

    /// The inputs as the unit stores them (round to nearest even).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::MacUnit;
    /// let unit = MacUnit::fig5_mpfma();
    /// // a, b to fp16, c to fp32, all to nearest even.
    /// let (a, b, c) = unit.stored(0.1, 3.0, 0.1);
    /// assert_eq!((a, b, c), (0.0999755859375, 3.0, 0.1f32 as f64));
    /// assert_eq!(unit.stored(1e5, 1.0, 0.0).0, f64::INFINITY); // beyond fp16's 65504
    /// ```
    pub fn stored(&self, a: f64, b: f64, c: f64) -> (f64, f64, f64) {
        let rne = RoundingMode::NearestEven;
        (
            self.low.round(a, rne),
            self.low.round(b, rne),
            self.high.round(c, rne),
        )
    }

    /// `d` from stored inputs.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::MacUnit;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let a = 1.0 + 2f64.powi(-10);
    /// let c = -(1.0 + 2f64.powi(-9));
    /// // a a + c = 2^-20 exactly; the unfused fp16 MAC rounds the product first and loses it.
    /// let rne = RoundingMode::NearestEven;
    /// assert_eq!(MacUnit::no_fma(Format::FP16, rne).compute(a, a, c), 0.0);
    /// assert_eq!(MacUnit::fma(Format::FP16, rne).compute(a, a, c), 2f64.powi(-20));
    /// assert_eq!(MacUnit::fig5_mpfma().compute(a, a, c), 2f64.powi(-20));
    /// // Toward zero: 1 + 2^-24 (exact 1 + 2^-11 2^-13) truncates to 1 in fp32.
    /// let rz = MacUnit::fma(Format::FP32, RoundingMode::TowardZero);
    /// assert_eq!(rz.compute(2f64.powi(-11), 2f64.powi(-13), 1.0), 1.0);
    /// ```
    pub fn compute(&self, a: f64, b: f64, c: f64) -> f64 {
        match self.op {
            MacOp::NoFma => self.bar.add(self.tilde.mul(a, b, self.mode), c, self.mode),
            MacOp::Fma => self.bar.fma(a, b, c, self.mode),
            MacOp::Mpfma => {
                let p = self.tilde.mul(a, b, self.mode);
                let s = self.bar.add(p, c, self.mode);
                self.out.round(s, self.mode)
            }
        }
    }

    /// The unit roundoffs `(u_low, u_high, u~, u_bar, u_FMA)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::MacUnit;
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// assert_eq!(MacUnit::fig5_mpfma().roundoffs(), Roundoffs::table2_fp32());
    /// // Toward zero doubles the arithmetic's roundoffs; casts stay to nearest.
    /// let r = MacUnit::fma(Format::FP32, RoundingMode::TowardZero).roundoffs();
    /// assert_eq!((r.u_low, r.u_high, r.u_bar), (2f64.powi(-24), 2f64.powi(-24), 2f64.powi(-23)));
    /// ```
    pub fn roundoffs(&self) -> Roundoffs {
        let rne = RoundingMode::NearestEven;
        Roundoffs {
            u_low: self.low.unit_roundoff(rne),
            u_high: self.high.unit_roundoff(rne),
            u_tilde: self.tilde.unit_roundoff(self.mode),
            u_bar: self.bar.unit_roundoff(self.mode),
            u_fma: self.out.unit_roundoff(self.mode),
        }
    }

    /// The rounding steps for the rigorous bound, on inputs as given: casts
    /// only where they change a value.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::unit::MacUnit;
    /// use boundgate_verify::bounds::tc::{mac_rigorous, MacStep};
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle::ExactSum;
    /// let unit = MacUnit::fig5_mpfma();
    /// // fp16 a, b and fp32 c: no casts, an exact product, one rounding of the sum (out = bar).
    /// let s = unit.steps(1.5, 2.0, 0.25);
    /// assert_eq!((s.cast_ab, s.cast_c, s.product, s.output), (None, None, None, None));
    /// assert_eq!(s.accumulate, MacStep::nearest(Format::FP32));
    /// // 0.1 is neither: both casts are counted, and the bound covers them.
    /// let s = unit.steps(0.1, 3.0, 0.1);
    /// assert_eq!((s.cast_ab, s.cast_c), (Some(MacStep::nearest(Format::FP16)), Some(MacStep::nearest(Format::FP32))));
    /// let (a, b, c) = unit.stored(0.1, 3.0, 0.1);
    /// let mut exact = ExactSum::new(); // 0.1 * 3 + 0.1 on the inputs as given
    /// exact.add_product(0.1, 3.0);
    /// exact.add(0.1);
    /// let err = exact.error_of(unit.compute(a, b, c)).absolute_up().unwrap();
    /// assert!(err > 0.0 && err <= mac_rigorous(&s, 0.1, 3.0, 0.1).unwrap().value);
    /// ```
    pub fn steps(&self, a: f64, b: f64, c: f64) -> MacSteps {
        let cast_ab = (!(self.low.is_representable(a) && self.low.is_representable(b)))
            .then_some(MacStep::nearest(self.low));
        let cast_c = (!self.high.is_representable(c)).then_some(MacStep::nearest(self.high));
        let step = |format: Format| MacStep {
            format,
            mode: self.mode,
        };
        // A product that is exact in t~ (fp16 x fp16 in fp32) has no rounding.
        let (sa, sb, _) = self.stored(a, b, c);
        let p = self.tilde.mul(sa, sb, self.mode);
        let exact_product =
            p.is_finite() && Exact::product(sa, sb).add(Exact::from_f64(-p)).is_zero();
        let product = (!exact_product).then_some(step(self.tilde));
        match self.op {
            MacOp::NoFma => MacSteps {
                cast_ab,
                cast_c,
                product,
                accumulate: step(self.bar),
                output: None,
            },
            MacOp::Fma => MacSteps {
                cast_ab,
                cast_c,
                product: None,
                accumulate: step(self.bar),
                output: None,
            },
            MacOp::Mpfma => MacSteps {
                cast_ab,
                cast_c,
                product,
                accumulate: step(self.bar),
                output: (self.out != self.bar).then_some(step(self.out)),
            },
        }
    }
}
