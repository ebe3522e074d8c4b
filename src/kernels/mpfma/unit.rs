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
    pub fn no_fma(format: Format, mode: RoundingMode) -> MacUnit {
        MacUnit::uniform(MacOp::NoFma, format, mode)
    }

    /// The FMA in one format.
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
    pub fn fig5_mpfma() -> MacUnit {
        let s = Format::FP32;
        MacUnit::mpfma(Format::FP16, s, s, s, s, RoundingMode::NearestEven)
    }

    /// The inputs as the unit stores them (round to nearest even).
    pub fn stored(&self, a: f64, b: f64, c: f64) -> (f64, f64, f64) {
        let rne = RoundingMode::NearestEven;
        (
            self.low.round(a, rne),
            self.low.round(b, rne),
            self.high.round(c, rne),
        )
    }

    /// `d` from stored inputs.
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
