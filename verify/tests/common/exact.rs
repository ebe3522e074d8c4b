//! An exact reference written from scratch with `rug::Rational`: the IEEE
//! result of a sum of products (special values and signed zeros by the
//! `mpfr_sum` rule), its correct rounding into fp64 and fp32 in every mode by
//! bracketing between neighbouring floating-point numbers (no MPFR rounding
//! involved), and the checks of an oracle's results and error measures
//! against it.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::ErrorMeasure;
use rug::Rational;

/// `x` as a rational (finite values only).
pub fn q(x: f64) -> Rational {
    Rational::from_f64(x).expect("finite")
}

/// The same f64, bit for bit (any NaN matches any NaN).
pub fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// The IEEE result of a sum of products, each product given by its factors.
#[derive(Clone, Debug)]
pub enum Reference {
    Nan,
    Infinity { negative: bool },
    Finite { value: Rational, zero: Zeros },
}

/// Which signed zero an exactly zero sum takes (the `mpfr_sum` rule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Zeros {
    Empty,
    Positive,
    Negative,
    Mixed,
}

/// The reference result of the sum of the products `terms`.
pub fn reference(terms: &[Vec<f64>]) -> Reference {
    let (mut nan, mut pos_inf, mut neg_inf) = (false, false, false);
    let mut value = Rational::new();
    let mut zeros = Zeros::Empty;
    for t in terms {
        let negative = t.iter().filter(|f| f.is_sign_negative()).count() % 2 == 1;
        if t.iter().any(|f| !f.is_finite()) {
            if t.iter().any(|f| f.is_nan()) || t.contains(&0.0) {
                nan = true;
            } else if negative {
                neg_inf = true;
            } else {
                pos_inf = true;
            }
            continue;
        }
        let p = t.iter().fold(Rational::from(1), |acc, &f| acc * q(f));
        if p == 0 {
            let z = if negative {
                Zeros::Negative
            } else {
                Zeros::Positive
            };
            zeros = match zeros {
                Zeros::Empty => z,
                s if s == z => s,
                _ => Zeros::Mixed,
            };
        } else {
            zeros = Zeros::Mixed;
        }
        value += p;
    }
    if nan || (pos_inf && neg_inf) {
        Reference::Nan
    } else if pos_inf || neg_inf {
        Reference::Infinity { negative: neg_inf }
    } else {
        Reference::Finite { value, zero: zeros }
    }
}

macro_rules! bracket_round {
    ($name:ident, $t:ty) => {
        /// `r` (nonzero) correctly rounded to `$t` in `mode`, found by
        /// bracketing `r` between neighbouring values (IEEE overflow rules).
        pub fn $name(r: &Rational, mode: RoundingMode) -> f64 {
            let qt = |x: $t| q(x as f64);
            let mut g: $t = r.to_f64() as $t;
            if g.is_infinite() || g.is_nan() {
                g = if *r > 0 { <$t>::MAX } else { <$t>::MIN };
            }
            // lo: the largest value <= r (-inf if none), hi: the smallest >= r.
            let lo: $t = if qt(g) <= *r {
                loop {
                    let n = g.next_up();
                    if n.is_infinite() || qt(n) > *r {
                        break g;
                    }
                    g = n;
                }
            } else {
                loop {
                    let n = g.next_down();
                    if n.is_infinite() {
                        break n;
                    }
                    if qt(n) <= *r {
                        break n;
                    }
                    g = n;
                }
            };
            let mut lo = lo;
            let mut hi: $t = if lo.is_finite() && qt(lo) == *r {
                lo
            } else {
                lo.next_up()
            };
            // A nonzero result that rounds to zero keeps its sign.
            if *r > 0 && lo == 0.0 {
                lo = 0.0;
            }
            if *r < 0 && hi == 0.0 {
                hi = -0.0;
            }
            if lo == hi {
                return lo as f64;
            }
            let beyond = Rational::from(1) << (<$t>::MAX_EXP as u32); // 2^emax+1
            let to_q = |x: $t| {
                if x == <$t>::INFINITY {
                    beyond.clone()
                } else if x == <$t>::NEG_INFINITY {
                    -beyond.clone()
                } else {
                    qt(x)
                }
            };
            let pick = match mode {
                RoundingMode::Down => lo,
                RoundingMode::Up => hi,
                RoundingMode::TowardZero => {
                    if *r > 0 {
                        lo
                    } else {
                        hi
                    }
                }
                RoundingMode::NearestEven => {
                    let below = Rational::from(r - to_q(lo));
                    let above = Rational::from(to_q(hi) - r);
                    match below.cmp(&above) {
                        std::cmp::Ordering::Less => lo,
                        std::cmp::Ordering::Greater => hi,
                        std::cmp::Ordering::Equal => {
                            // An infinity stands for 2^(emax+1), whose
                            // significand is even.
                            let even = |x: $t| x.is_infinite() || x.to_bits() & 1 == 0;
                            if even(lo) { lo } else { hi }
                        }
                    }
                }
            };
            pick as f64
        }
    };
}
bracket_round!(round_rational_f64, f64);
bracket_round!(round_rational_f32, f32);

impl Reference {
    /// The reference result rounded into `format` (fp64 or fp32) in `mode`.
    pub fn round(&self, format: Format, mode: RoundingMode) -> f64 {
        match self {
            Reference::Nan => f64::NAN,
            Reference::Infinity { negative: true } => f64::NEG_INFINITY,
            Reference::Infinity { negative: false } => f64::INFINITY,
            Reference::Finite { value, zero } if *value == 0 => {
                let negative = match zero {
                    Zeros::Empty | Zeros::Positive => false,
                    Zeros::Negative => true,
                    Zeros::Mixed => mode == RoundingMode::Down,
                };
                if negative { -0.0 } else { 0.0 }
            }
            Reference::Finite { value, .. } => {
                if format == Format::FP64 {
                    round_rational_f64(value, mode)
                } else {
                    assert_eq!(format, Format::FP32);
                    round_rational_f32(value, mode)
                }
            }
        }
    }
}

/// Checks a result's special value (`non_finite`, `None` when finite) and,
/// for a finite reference, its exact value (`exact`, read only then).
pub fn check_value(
    non_finite: Option<f64>,
    exact: impl FnOnce() -> Rational,
    reference: &Reference,
    context: &str,
) {
    match reference {
        Reference::Nan => assert!(
            non_finite.is_some_and(f64::is_nan),
            "{context}: expected NaN, got {non_finite:?}"
        ),
        Reference::Infinity { negative } => {
            let expected = if *negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            assert_eq!(non_finite, Some(expected), "{context}")
        }
        Reference::Finite { value, .. } => {
            assert_eq!(non_finite, None, "{context}: spurious special value");
            assert_eq!(&exact(), value, "{context}: exact values differ");
        }
    }
}

/// How close a measure's `relative_up` must be to the exact relative error
/// rounded up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RelativeUp {
    /// Equal to it.
    Exact,
    /// Equal to it or to the next f64 up.
    WithinOneUlp,
}

/// Checks the error measure `e` of the computed value `c` against the
/// reference (whose fp64 rounding to nearest is `nearest`): a non-finite
/// measure where the reference or `c` is not finite, else the exact value
/// rounded to nearest, the absolute error rounded up (exactly), and the
/// relative error rounded up (as `relative` says; none for an exact zero).
pub fn check_error(
    e: ErrorMeasure,
    reference: &Reference,
    nearest: f64,
    c: f64,
    relative: RelativeUp,
    context: &str,
) {
    let value = match reference {
        Reference::Finite { value, .. } if nearest.is_finite() && c.is_finite() => value,
        _ => {
            assert!(
                matches!(e, ErrorMeasure::NonFinite { .. }),
                "{context}: computed {c:e}: expected a non-finite measure, got {e:?}"
            );
            return;
        }
    };
    let ErrorMeasure::Finite {
        absolute_up,
        relative_up,
        exact,
        ..
    } = e
    else {
        panic!("{context}: computed {c:e}: non-finite measure {e:?} for a finite case");
    };
    assert!(
        same(exact, nearest),
        "{context}: exact {exact:e} vs {nearest:e}"
    );
    let up = |r: &Rational| {
        if *r == 0 {
            0.0
        } else {
            round_rational_f64(r, RoundingMode::Up)
        }
    };
    let difference = (q(c) - value).abs();
    let expected_abs = up(&difference);
    assert!(
        same(absolute_up, expected_abs),
        "{context}: computed {c:e}: absolute_up {absolute_up:e} vs {expected_abs:e}"
    );
    match relative_up {
        None => assert!(*value == 0, "{context}: relative error missing"),
        Some(r) => {
            assert!(*value != 0, "{context}: relative error of an exact zero");
            let ratio = difference.clone() / Rational::from(value.abs_ref());
            let lower = up(&ratio);
            let within = match relative {
                RelativeUp::Exact => r == lower,
                RelativeUp::WithinOneUlp => r >= lower && r <= lower.next_up(),
            };
            assert!(
                within,
                "{context}: computed {c:e}: relative_up {r:e}, ratio rounded up {lower:e} \
                 ({relative:?})"
            );
        }
    }
}

/// Asserts that `got` is `expected` bit for bit (any NaN for a NaN), printing
/// both with their bits after `what`.
pub fn assert_same(got: f64, expected: f64, what: &str) {
    assert!(
        same(got, expected),
        "{what}: {got:e} ({:#x}) vs {expected:e} ({:#x})",
        got.to_bits(),
        expected.to_bits()
    );
}

/// Checks the error measures `error_of` gives for candidate computed values:
/// the reference rounded to nearest in fp64, its two neighbours, and
/// `others`.
pub fn check_errors_near(
    error_of: impl Fn(f64) -> ErrorMeasure,
    reference: &Reference,
    others: &[f64],
    relative: RelativeUp,
    context: &str,
) {
    let nearest = reference.round(Format::FP64, RoundingMode::NearestEven);
    let candidates = [nearest, nearest.next_up(), nearest.next_down()];
    for c in candidates.into_iter().chain(others.iter().copied()) {
        check_error(error_of(c), reference, nearest, c, relative, context);
    }
}
