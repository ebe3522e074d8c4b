//! The MPFR reference: exact sums and dot products computed with MPFR (`rug`)
//! at a precision large enough that nothing is rounded before the final
//! rounding, which MPFR itself performs (`mpfr_get_d`, through
//! [`Float::to_f64_round`]). It shares no code with the fast accumulator
//! ([`super::ExactSum`]) and is the ground truth it is tested against.
//!
//! Precision: each term is exact in MPFR (an `f64` in 53 bits, a product of
//! two in 106). If every nonzero term lies in `[2^lo, 2^hi)` with its last bit
//! at or above `2^lo`, every partial sum of `n` terms is a multiple of `2^lo`
//! below `n 2^hi`, so it fits in `hi - lo + ceil(log2 n)` bits; two more are
//! added as margin. Each addition is then exact, which is asserted through
//! MPFR's ternary value. Special values follow MPFR, which follows IEEE 754
//! (NaN propagates, `0 * inf` and `inf - inf` are NaN), and the sign of an
//! exact zero follows the rule MPFR documents for `mpfr_sum`: the terms are
//! added in order, starting from the first term, in the requested rounding
//! direction (so toward -infinity is computed separately for a zero sum).

use super::measure::ErrorMeasure;
use crate::error::{Result, require_same_len};
use crate::format::{Format, RoundingMode};
use rug::Float;
use rug::float::Round;
use rug::ops::{AddAssignRound, AssignRound, MulAssignRound};
use std::cmp::Ordering;

/// An exact result computed with MPFR.
///
/// # Example
/// ```
/// use boundgate_verify::format::RoundingMode;
/// use boundgate_verify::oracle::mpfr;
/// let tiny = f64::from_bits(1); // 2^-1074 (`2f64.powi(-1074)` is 0 in debug builds)
/// let r = mpfr::dot(&[1e300, -1e300, 3.0], &[1e300, 1e300, tiny]).unwrap();
/// assert_eq!(r.round_f64(RoundingMode::NearestEven), f64::from_bits(3)); // 3 * 2^-1074
/// assert!(r.exact().is_some());
/// ```
#[derive(Clone, Debug)]
pub struct MpfrResult {
    /// The exact value (or NaN / an infinity). An exact zero carries the sign
    /// of rounding to nearest.
    value: Float,
    /// For an exact zero: whether rounding toward -infinity gives -0.
    zero_negative_down: bool,
}

impl MpfrResult {
    /// The exact value, or `None` if it is NaN or infinite.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::mpfr;
    /// // 1e300 * 1e300 overflows f64 but is exact here.
    /// let r = mpfr::dot(&[1e300], &[1e300]).unwrap();
    /// let x = rug::Float::with_val(53, 1e300);
    /// assert_eq!(r.exact().unwrap(), &rug::Float::with_val(106, &x * &x)); // 106 bits: exact
    /// assert!(r.exact().unwrap().to_f64().is_infinite());
    /// assert!(mpfr::sum(&[1.0, f64::INFINITY]).unwrap().exact().is_none());
    /// ```
    pub fn exact(&self) -> Option<&Float> {
        if self.value.is_finite() {
            Some(&self.value)
        } else {
            None
        }
    }

    /// NaN or the infinity, if the result is not finite.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::mpfr;
    /// assert_eq!(mpfr::dot(&[f64::INFINITY, 1e300], &[1.0, -1e300]).unwrap().non_finite(), Some(f64::INFINITY));
    /// assert!(mpfr::dot(&[f64::INFINITY], &[0.0]).unwrap().non_finite().unwrap().is_nan()); // 0 * inf
    /// assert_eq!(mpfr::sum(&[f64::MAX, f64::MAX]).unwrap().non_finite(), None); // exact, finite
    /// ```
    pub fn non_finite(&self) -> Option<f64> {
        if self.value.is_finite() {
            None
        } else {
            Some(self.value.to_f64())
        }
    }

    /// The result rounded to `f64` by MPFR (`mpfr_get_d`) in `mode`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::RoundingMode;
    /// use boundgate_verify::oracle::mpfr;
    /// // 1 + 2^-60 lies strictly between 1 and its successor.
    /// let r = mpfr::sum(&[1.0, 2f64.powi(-60)]).unwrap();
    /// assert_eq!(r.round_f64(RoundingMode::NearestEven), 1.0);
    /// assert_eq!(r.round_f64(RoundingMode::Down), 1.0);
    /// assert_eq!(r.round_f64(RoundingMode::Up), 1.0f64.next_up());
    /// // An exact zero from cancellation is -0 toward -infinity, +0 otherwise.
    /// let z = mpfr::sum(&[1.0, -1.0]).unwrap();
    /// assert!(z.round_f64(RoundingMode::Down).is_sign_negative());
    /// assert!(z.round_f64(RoundingMode::Up).is_sign_positive());
    /// ```
    pub fn round_f64(&self, mode: RoundingMode) -> f64 {
        if self.value.is_zero() {
            return self.zero(mode);
        }
        self.value.to_f64_round(mode.to_rug())
    }

    /// The result rounded to nearest `f64`, ties to even.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::mpfr;
    /// // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even wins.
    /// assert_eq!(mpfr::sum(&[1.0, 2f64.powi(-53)]).unwrap().to_f64(), 1.0);
    /// // Just above the tie rounds up.
    /// assert_eq!(mpfr::sum(&[1.0, 2f64.powi(-53), 2f64.powi(-100)]).unwrap().to_f64(), 1.0 + f64::EPSILON);
    /// ```
    pub fn to_f64(&self) -> f64 {
        self.round_f64(RoundingMode::NearestEven)
    }

    /// The result rounded into `format`: by MPFR for fp64, else by
    /// [`Format::round_float`] on the exact value (IEEE semantics for NaN and
    /// infinities as in [`Format::round`]).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// use boundgate_verify::oracle::mpfr;
    /// // 1 + 2^-24 + 2^-60: a hair above the fp32 tie between 1 and 1 + 2^-23.
    /// let r = mpfr::sum(&[1.0, 2f64.powi(-24), 2f64.powi(-60)]).unwrap();
    /// assert_eq!(r.round(Format::FP32, RoundingMode::NearestEven), 1.0 + 2f64.powi(-23));
    /// assert_eq!(r.round(Format::FP32, RoundingMode::TowardZero), 1.0);
    /// // fp32 has no 1e300: it overflows to infinity, or saturates toward zero.
    /// let big = mpfr::sum(&[1e300]).unwrap();
    /// assert_eq!(big.round(Format::FP32, RoundingMode::NearestEven), f64::INFINITY);
    /// assert_eq!(big.round(Format::FP32, RoundingMode::TowardZero), f32::MAX as f64);
    /// ```
    pub fn round(&self, format: Format, mode: RoundingMode) -> f64 {
        if format == Format::FP64 {
            return self.round_f64(mode);
        }
        if let Some(special) = self.non_finite() {
            return format.round(special, mode);
        }
        if self.value.is_zero() {
            return self.zero(mode);
        }
        format.round_float(&self.value, mode)
    }

    /// The error of `computed`, computed with MPFR: the same quantities as
    /// [`ExactSum::error_of`](super::ExactSum::error_of), except that
    /// `relative_up` is exactly the ratio rounded up.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::oracle::{ErrorMeasure, mpfr};
    /// // The exact sum is 1 + 2^-60; a kernel that returns 1 is off by 2^-60.
    /// let r = mpfr::sum(&[1.0, 2f64.powi(-60)]).unwrap();
    /// let ErrorMeasure::Finite { absolute_up, relative_up, exact, .. } = r.error_of(1.0) else {
    ///     unreachable!()
    /// };
    /// assert_eq!(absolute_up, 2f64.powi(-60));
    /// // 2^-60 / (1 + 2^-60) is just below 2^-60: rounded up, it is 2^-60.
    /// assert_eq!(relative_up, Some(2f64.powi(-60)));
    /// assert_eq!(exact, 1.0);
    /// assert!(!r.error_of(f64::NAN).is_finite());
    /// ```
    pub fn error_of(&self, computed: f64) -> ErrorMeasure {
        let exact_rounded = self.non_finite().unwrap_or_else(|| self.to_f64());
        if !computed.is_finite() || !exact_rounded.is_finite() {
            return ErrorMeasure::NonFinite {
                computed,
                exact: exact_rounded,
            };
        }
        let precision = difference_precision(&self.value, computed);
        let difference = Float::with_val(precision, &self.value - computed).abs();
        let absolute_up = difference.to_f64_round(Round::Up);
        let relative_up = if self.value.is_zero() {
            None
        } else {
            let magnitude = Float::with_val(self.value.prec(), self.value.abs_ref());
            // Rounding up to 53 bits with MPFR's unbounded exponent and then up
            // to f64 is one rounding up to f64: f64's numbers are a subset.
            let (ratio, _) = Float::with_val_round(53, &difference / &magnitude, Round::Up);
            Some(ratio.to_f64_round(Round::Up))
        };
        ErrorMeasure::Finite {
            absolute_up,
            absolute_down: None,
            relative_up,
            exact: exact_rounded,
        }
    }

    fn zero(&self, mode: RoundingMode) -> f64 {
        let negative = if mode == RoundingMode::Down {
            self.zero_negative_down
        } else {
            self.value.is_sign_negative()
        };
        if negative { -0.0 } else { 0.0 }
    }
}

/// Bits needed for `value - computed` exactly (both finite).
fn difference_precision(value: &Float, computed: f64) -> u32 {
    let computed_top = mpfr_exponent(computed).unwrap_or(-1074);
    let (value_top, value_low) = match value.get_exp() {
        Some(e) => (e, e - value.prec() as i32),
        None => (computed_top, -1074),
    };
    let top = value_top.max(computed_top) as i64;
    let low = value_low.min(-1074) as i64;
    (top - low + 2) as u32
}

/// The MPFR exponent of a finite nonzero `f64` (`|x|` in `[2^(E-1), 2^E)`),
/// read from its bits.
fn mpfr_exponent(x: f64) -> Option<i32> {
    if x == 0.0 || !x.is_finite() {
        return None;
    }
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        let fraction = bits & ((1 << 52) - 1);
        Some(-1074 + (64 - fraction.leading_zeros() as i32))
    } else {
        Some(field - 1022)
    }
}

/// Exponent range of the nonzero finite terms: `|term| < 2^top`, last bit at
/// or above `2^low`.
#[derive(Clone, Copy, Default)]
struct Span {
    range: Option<(i64, i64)>,
}

impl Span {
    fn include(&mut self, top: i64, low: i64) {
        self.range = Some(match self.range {
            None => (top, low),
            Some((t, l)) => (t.max(top), l.min(low)),
        });
    }

    /// `(top - low) + ceil(log2 n) + 2` bits (the highest bit is `top - 1`, so
    /// this is one more than "highest bit - lowest bit + ceil(log2 n) + 2").
    fn precision(&self, n: usize) -> u32 {
        let log2n = n.max(1).next_power_of_two().trailing_zeros() as i64;
        match self.range {
            None => 53,
            Some((top, low)) => ((top - low) + log2n + 2).max(106) as u32,
        }
    }
}

/// Sums `n` terms (written into a buffer of `term_precision` bits by `term`)
/// at `precision` bits in direction `round`, asserting that nothing rounds.
fn accumulate(
    n: usize,
    precision: u32,
    term_precision: u32,
    round: Round,
    mut term: impl FnMut(usize, &mut Float),
) -> Float {
    let mut acc = Float::new(precision);
    let mut buffer = Float::new(term_precision);
    for i in 0..n {
        term(i, &mut buffer);
        let direction = if i == 0 {
            // Starting from the first term (not from +0) keeps a lone -0 sign.
            acc.assign_round(&buffer, Round::Nearest)
        } else {
            acc.add_assign_round(&buffer, round)
        };
        assert!(
            direction == Ordering::Equal || !acc.is_finite(),
            "MPFR reference rounded a partial sum: precision {precision} is too small"
        );
    }
    acc
}

/// Sums with rounding to nearest, and again toward -infinity if the sum is an
/// exact zero (only the sign of zero can differ).
fn exact_result(
    n: usize,
    precision: u32,
    term_precision: u32,
    mut term: impl FnMut(usize, &mut Float),
) -> MpfrResult {
    let value = accumulate(n, precision, term_precision, Round::Nearest, &mut term);
    let zero_negative_down = if value.is_zero() {
        accumulate(n, precision, term_precision, Round::Down, &mut term).is_sign_negative()
    } else {
        false
    };
    MpfrResult {
        value,
        zero_negative_down,
    }
}

/// The exact dot product `sum x[i] y[i]`, computed with MPFR. An empty dot
/// product is +0.
///
/// # Errors
/// [`VerifyError::LengthMismatch`](crate::VerifyError::LengthMismatch) if the lengths differ.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::mpfr;
/// let r = mpfr::dot(&[1e16, 1.0, -1e16], &[3.0, 0.5, 3.0]).unwrap();
/// assert_eq!(r.to_f64(), 0.5);
/// assert!(mpfr::dot(&[1.0], &[]).is_err());
/// ```
pub fn dot(x: &[f64], y: &[f64]) -> Result<MpfrResult> {
    require_same_len("x and y", x.len(), y.len())?;
    let mut span = Span::default();
    for (&a, &b) in x.iter().zip(y) {
        if let (Some(ea), Some(eb)) = (mpfr_exponent(a), mpfr_exponent(b)) {
            // |a b| < 2^(ea + eb); each significand ends at or above 2^(e - 53).
            let top = (ea + eb) as i64;
            span.include(top, top - 106);
        }
    }
    let precision = span.precision(x.len());
    Ok(exact_result(x.len(), precision, 106, |i, buffer| {
        buffer.assign_round(x[i], Round::Nearest);
        let direction = buffer.mul_assign_round(y[i], Round::Nearest);
        debug_assert!(direction == Ordering::Equal || !buffer.is_finite());
    }))
}

/// The exact sum of `x`, computed with MPFR. An empty sum is +0.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::mpfr;
/// assert_eq!(mpfr::sum(&[1e100, 1.0, -1e100]).unwrap().to_f64(), 1.0);
/// ```
pub fn sum(x: &[f64]) -> Result<MpfrResult> {
    let mut span = Span::default();
    for &a in x {
        if let Some(e) = mpfr_exponent(a) {
            span.include(e as i64, e as i64 - 53);
        }
    }
    let precision = span.precision(x.len());
    Ok(exact_result(x.len(), precision, 53, |i, buffer| {
        buffer.assign_round(x[i], Round::Nearest);
    }))
}

/// The exact sum of the given exact terms (MPFR numbers of any precision),
/// e.g. products from [`product`]: a naive reference for the matrix oracles.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::mpfr;
/// let terms = [mpfr::product(&[3.0, 1e300, 1e300]), mpfr::product(&[-3.0, 1e300, 1e300]), mpfr::product(&[0.5])];
/// assert_eq!(mpfr::sum_of_terms(&terms).to_f64(), 0.5);
/// ```
pub fn sum_of_terms(terms: &[Float]) -> MpfrResult {
    let mut span = Span::default();
    let mut term_precision = 53;
    for t in terms {
        term_precision = term_precision.max(t.prec());
        if let (Some(e), false) = (t.get_exp(), t.is_zero()) {
            span.include(e as i64, e as i64 - t.prec() as i64);
        }
    }
    let precision = span.precision(terms.len()).max(term_precision);
    exact_result(terms.len(), precision, term_precision, |i, buffer| {
        buffer.assign_round(&terms[i], Round::Nearest);
    })
}

/// The exact product of `f64` factors (53 bits per factor; the empty product
/// is 1). IEEE special values as MPFR computes them.
///
/// # Example
/// ```
/// use boundgate_verify::oracle::mpfr;
/// let p = mpfr::product(&[1.0 + f64::EPSILON, 1.0 + f64::EPSILON, 1e-300]);
/// assert_eq!(p.prec(), 159);
/// assert!(mpfr::product(&[f64::INFINITY, 0.0]).is_nan());
/// ```
pub fn product(factors: &[f64]) -> Float {
    let precision = 53 * (factors.len().max(1) as u32);
    let mut p = Float::with_val(precision, 1);
    for &f in factors {
        let direction = p.mul_assign_round(f, Round::Nearest);
        debug_assert!(direction == Ordering::Equal || !p.is_finite());
    }
    p
}

/// The versions of the MPFR and GMP libraries this build links (as they
/// report themselves at run time), for the provenance section of reports.
///
/// # Example
/// ```
/// let (mpfr, gmp) = boundgate_verify::oracle::mpfr::library_versions();
/// assert!(mpfr.starts_with('4') && gmp.starts_with('6'), "{mpfr} {gmp}");
/// ```
pub fn library_versions() -> (String, String) {
    // SAFETY: both libraries return pointers to static NUL-terminated strings
    // (mpfr_get_version and the gmp_version variable) that live for the program.
    unsafe {
        let mpfr = std::ffi::CStr::from_ptr(gmp_mpfr_sys::mpfr::get_version());
        let gmp = std::ffi::CStr::from_ptr(gmp_mpfr_sys::gmp::version);
        (
            mpfr.to_string_lossy().into_owned(),
            gmp.to_string_lossy().into_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_from_bits_match_mpfr() {
        for x in [
            1.0,
            0.75,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0xfffff),
            -3.0e-310,
        ] {
            assert_eq!(mpfr_exponent(x), Float::with_val(53, x).get_exp(), "{x:e}");
        }
    }

    #[test]
    fn zero_signs_follow_the_mpfr_sum_rule() {
        let r = sum(&[-0.0, -0.0]).unwrap();
        assert!(r.to_f64().is_sign_negative());
        let r = sum(&[1.0, -1.0]).unwrap();
        assert!(r.to_f64().is_sign_positive());
        assert!(r.round_f64(RoundingMode::Down).is_sign_negative());
        let r = dot(&[0.0, -0.0], &[-1.0, -1.0]).unwrap(); // -0 + +0
        assert!(r.to_f64().is_sign_positive());
        assert!(r.round_f64(RoundingMode::Down).is_sign_negative());
        assert!(
            sum(&[])
                .unwrap()
                .round_f64(RoundingMode::Down)
                .is_sign_positive()
        );
    }

    #[test]
    fn wide_ranges_are_exact() {
        let tiny = f64::from_bits(1);
        let r = dot(&[f64::MAX, tiny, -f64::MAX], &[f64::MAX, tiny, f64::MAX]).unwrap();
        assert_eq!(r.exact().unwrap().get_exp(), Some(-2147));
        assert_eq!(r.round_f64(RoundingMode::Up), tiny);
        assert_eq!(r.round_f64(RoundingMode::NearestEven), 0.0);
    }
}
