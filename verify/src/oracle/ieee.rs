//! The IEEE 754 special cases of an exact sum: which non-finite terms were
//! added, and which sign an exactly zero sum takes.
//!
//! The exact accumulators keep finite terms exactly, so a finite product that
//! would overflow in `f64` stays finite here; infinities and NaN come only from
//! non-finite inputs. How they combine follows IEEE 754-2019: NaN propagates
//! (§6.2), `0 * inf` and `inf + (-inf)` are invalid and give NaN (§7.2 a, b),
//! and otherwise an infinity dominates the finite terms (§6.1).

use crate::format::RoundingMode;

/// Non-finite terms seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Specials {
    nan: bool,
    positive_infinity: bool,
    negative_infinity: bool,
}

impl Specials {
    /// Records a non-finite term (NaN or an infinity).
    pub(crate) fn add_value(&mut self, x: f64) {
        if x.is_nan() {
            self.nan = true;
        } else if x == f64::INFINITY {
            self.positive_infinity = true;
        } else if x == f64::NEG_INFINITY {
            self.negative_infinity = true;
        }
    }

    /// Records the product of factors of which at least one is not finite:
    /// NaN if a factor is NaN or if an infinity meets a zero (IEEE 754-2019
    /// §7.2 a), else an infinity whose sign is the product of the signs.
    pub(crate) fn add_product(&mut self, factors: &[f64]) {
        let any_nan = factors.iter().any(|f| f.is_nan());
        let any_infinite = factors.iter().any(|f| f.is_infinite());
        let any_zero = factors.contains(&0.0); // -0.0 == 0.0
        if any_nan || (any_infinite && any_zero) {
            self.nan = true;
        } else if any_infinite {
            let negative = factors.iter().filter(|f| f.is_sign_negative()).count() % 2 == 1;
            if negative {
                self.negative_infinity = true;
            } else {
                self.positive_infinity = true;
            }
        }
    }

    /// Whether nothing non-finite was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        !(self.nan || self.positive_infinity || self.negative_infinity)
    }

    /// The IEEE result of the whole sum if a non-finite term was added:
    /// NaN, or `+inf + (-inf)` = NaN (§7.2 b), or the one infinity.
    pub(crate) fn value(&self) -> Option<f64> {
        if self.nan || (self.positive_infinity && self.negative_infinity) {
            Some(f64::NAN)
        } else if self.positive_infinity {
            Some(f64::INFINITY)
        } else if self.negative_infinity {
            Some(f64::NEG_INFINITY)
        } else {
            None
        }
    }

    /// The specials of `factor * self` for a finite nonzero `factor`.
    pub(crate) fn scaled(self, factor: f64) -> Specials {
        if factor.is_sign_negative() {
            Specials {
                nan: self.nan,
                positive_infinity: self.negative_infinity,
                negative_infinity: self.positive_infinity,
            }
        } else {
            self
        }
    }

    /// The specials of the sum of two sums.
    pub(crate) fn merge(&mut self, other: Specials) {
        self.nan |= other.nan;
        self.positive_infinity |= other.positive_infinity;
        self.negative_infinity |= other.negative_infinity;
    }
}

/// What an exactly zero sum rounds to, by the rule MPFR documents for
/// `mpfr_sum` and IEEE 754-2019 §6.3 gives for a chain of additions: the sum
/// of no terms is +0; if every term is a zero of one sign, that sign; otherwise
/// (zeros of both signs, or nonzero terms that cancel) +0, except -0 when
/// rounding toward -infinity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ZeroSign {
    /// No term yet.
    #[default]
    Empty,
    /// Only +0 terms.
    Positive,
    /// Only -0 terms.
    Negative,
    /// Zeros of both signs, or some nonzero term.
    Mixed,
}

impl ZeroSign {
    /// Records a zero term.
    pub(crate) fn note_zero(&mut self, negative: bool) {
        let term = if negative {
            ZeroSign::Negative
        } else {
            ZeroSign::Positive
        };
        *self = self.merged(term);
    }

    /// Records a nonzero term.
    pub(crate) fn note_nonzero(&mut self) {
        *self = ZeroSign::Mixed;
    }

    /// The state of the concatenation of two sequences of terms.
    pub(crate) fn merged(self, other: ZeroSign) -> ZeroSign {
        match (self, other) {
            (ZeroSign::Empty, s) | (s, ZeroSign::Empty) => s,
            (a, b) if a == b => a,
            _ => ZeroSign::Mixed,
        }
    }

    /// The state of `factor * (terms)` for a finite nonzero `factor`: a
    /// negative factor swaps the signs of the zero terms.
    pub(crate) fn scaled(self, factor: f64) -> ZeroSign {
        match (self, factor.is_sign_negative()) {
            (ZeroSign::Positive, true) => ZeroSign::Negative,
            (ZeroSign::Negative, true) => ZeroSign::Positive,
            (s, _) => s,
        }
    }

    /// The signed zero an exactly zero sum rounds to in `mode`.
    pub(crate) fn zero(self, mode: RoundingMode) -> f64 {
        let negative = match self {
            ZeroSign::Empty | ZeroSign::Positive => false,
            ZeroSign::Negative => true,
            ZeroSign::Mixed => mode == RoundingMode::Down,
        };
        if negative { -0.0 } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_products_and_sums_are_nan() {
        let mut s = Specials::default();
        s.add_product(&[f64::INFINITY, 0.0]);
        assert!(s.value().unwrap().is_nan());
        let mut s = Specials::default();
        s.add_value(f64::INFINITY);
        s.add_product(&[f64::INFINITY, -2.0]);
        assert!(s.value().unwrap().is_nan());
        let mut s = Specials::default();
        s.add_product(&[f64::NEG_INFINITY, -2.0]);
        assert_eq!(s.value(), Some(f64::INFINITY));
        assert_eq!(s.scaled(-3.0).value(), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn zero_signs() {
        let mut z = ZeroSign::default();
        assert!(z.zero(RoundingMode::Down).is_sign_positive());
        z.note_zero(true);
        assert!(z.zero(RoundingMode::NearestEven).is_sign_negative());
        assert_eq!(z.scaled(-1.0), ZeroSign::Positive);
        z.note_zero(false);
        assert_eq!(z, ZeroSign::Mixed);
        assert!(z.zero(RoundingMode::Up).is_sign_positive());
        assert!(z.zero(RoundingMode::Down).is_sign_negative());
    }
}
