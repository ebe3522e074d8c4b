//! Review (2026-11-29) of the MPFR reference (`oracle::mpfr`: `dot`, `sum`,
//! `product`, `sum_of_terms` and `MpfrResult`'s roundings and error
//! measures) against `rug::Rational`: the exact values, the IEEE special
//! values, the signed zeros by the `mpfr_sum` rule, the correct rounding into
//! fp64 and fp32 in every mode by bracketing between neighbouring
//! floating-point numbers, and the error measures (`relative_up` is claimed to
//! be exactly the ratio rounded up). Adversarial inputs: exponent spans from
//! `2^-2148` (products of subnormals) to `2^2048` and beyond for longer
//! products, thousands of terms at the top of the range (the `log2 n` part of
//! the precision argument), cancellation, ties, NaN and infinities. Seeds are
//! fixed and printed on failure.

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{ErrorMeasure, mpfr};
use rug::{Float, Rational};

fn q(x: f64) -> Rational {
    Rational::from_f64(x).expect("finite")
}

/// The IEEE result of a sum of products, each product given by its factors.
#[derive(Clone, Debug)]
enum Reference {
    Nan,
    Infinity { negative: bool },
    Finite { value: Rational, zero: Zeros },
}

/// Which signed zero an exactly zero sum takes (the `mpfr_sum` rule).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Zeros {
    Empty,
    Positive,
    Negative,
    Mixed,
}

fn reference(terms: &[Vec<f64>]) -> Reference {
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
        fn $name(r: &Rational, mode: RoundingMode) -> f64 {
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
    fn round(&self, format: Format, mode: RoundingMode) -> f64 {
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

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
    /// Adversarial finite values (and, if `specials`, NaN and infinities).
    fn value(&mut self, specials: bool) -> f64 {
        let kinds = if specials { 18 } else { 15 };
        match self.below(kinds) {
            0 => 0.0,
            1 => -0.0,
            2 => self.sign() * f64::from_bits(1 + self.below((1 << 52) - 1)),
            3 => self.sign() * f64::from_bits((0x7fe << 52) | (self.next() >> 12)),
            4 => self.sign() * f64::from_bits((1 << 52) | (self.next() >> 12)),
            5 => f64::from_bits(self.next() & !(0x7ff << 52) | (self.below(2047) << 52)),
            6 => self.sign() * (self.below(7) + 1) as f64,
            7 => self.sign() * 2f64.powi(self.below(2098) as i32 - 1074),
            8 => self.sign() * f64::MAX,
            9 => self.sign() * f64::from_bits(1),
            12 if specials => f64::NAN,
            13 if specials => f64::INFINITY,
            14 if specials => f64::NEG_INFINITY,
            _ => {
                // Few significant bits, near 1: products cancel and tie.
                let m = self.below(1 << 12) as f64 - 2048.0;
                m * 2f64.powi(self.below(24) as i32 - 12)
            }
        }
    }
    fn vec(&mut self, n: usize, specials: bool) -> Vec<f64> {
        (0..n).map(|_| self.value(specials)).collect()
    }
}

/// Checks an MPFR result against the reference.
fn check(result: &mpfr::MpfrResult, reference: &Reference, context: &str) {
    match reference {
        Reference::Nan => assert!(
            result.non_finite().is_some_and(f64::is_nan),
            "{context}: expected NaN, got {:?}",
            result.non_finite()
        ),
        Reference::Infinity { negative } => {
            let expected = if *negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            assert_eq!(result.non_finite(), Some(expected), "{context}");
            assert!(result.exact().is_none(), "{context}");
        }
        Reference::Finite { value, .. } => {
            assert_eq!(result.non_finite(), None, "{context}");
            let got = result
                .exact()
                .expect("finite")
                .to_rational()
                .expect("finite");
            assert_eq!(&got, value, "{context}: exact values differ");
        }
    }
    for mode in RoundingMode::ALL {
        let f = result.round_f64(mode);
        let r = reference.round(Format::FP64, mode);
        assert!(
            same(f, r),
            "{context}: fp64 {mode}: {f:e} ({:#x}) vs {r:e} ({:#x})",
            f.to_bits(),
            r.to_bits()
        );
        assert!(
            same(result.round(Format::FP64, mode), r),
            "{context}: round(fp64) {mode}"
        );
        let f = result.round(Format::FP32, mode);
        let r = reference.round(Format::FP32, mode);
        assert!(
            same(f, r),
            "{context}: fp32 {mode}: {f:e} ({:#x}) vs {r:e} ({:#x})",
            f.to_bits(),
            r.to_bits()
        );
    }
    assert!(same(
        result.to_f64(),
        reference.round(Format::FP64, RoundingMode::NearestEven)
    ));
    let nearest = reference.round(Format::FP64, RoundingMode::NearestEven);
    for c in [
        nearest,
        nearest.next_up(),
        nearest.next_down(),
        0.0,
        -0.0,
        1.0,
        -f64::MAX,
        f64::from_bits(1),
        f64::NAN,
    ] {
        check_error(result.error_of(c), reference, nearest, c, context);
    }
}

/// `MpfrResult::error_of` is exact: `absolute_up` and `relative_up` are the
/// absolute and relative errors rounded up, no more.
fn check_error(e: ErrorMeasure, reference: &Reference, nearest: f64, c: f64, context: &str) {
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
    let difference = (q(c) - value).abs();
    let up = |r: &Rational| {
        if *r == 0 {
            0.0
        } else {
            round_rational_f64(r, RoundingMode::Up)
        }
    };
    assert!(
        same(absolute_up, up(&difference)),
        "{context}: computed {c:e}: absolute_up {absolute_up:e} vs {:e}",
        up(&difference)
    );
    if *value == 0 {
        assert_eq!(relative_up, None, "{context}");
    } else {
        let ratio = difference.clone() / Rational::from(value.abs_ref());
        assert_eq!(
            relative_up,
            Some(up(&ratio)),
            "{context}: computed {c:e}: relative_up"
        );
    }
}

fn products(x: &[f64], y: &[f64]) -> Vec<Vec<f64>> {
    x.iter().zip(y).map(|(&a, &b)| vec![a, b]).collect()
}

fn singles(x: &[f64]) -> Vec<Vec<f64>> {
    x.iter().map(|&a| vec![a]).collect()
}

#[test]
fn dot_and_sum_against_rational_reference() {
    for case in 0..4000u64 {
        let seed = 0x6d70_6400 ^ case;
        let mut rng = Rng(seed);
        let specials = rng.below(5) == 0;
        let n = rng.below(12) as usize;
        let x = rng.vec(n, specials);
        let mut y = rng.vec(n, specials);
        if n >= 2 && rng.below(2) == 0 {
            // Cancel the first product against the last one.
            y[n - 1] = -y[0];
            let (a, b) = (x[0], x[n - 1]);
            y[n - 1] = if b != 0.0 { -(a * y[0]) / b } else { y[n - 1] };
        }
        let context = format!("seed {seed:#x}: x {x:?}, y {y:?}");
        check(
            &mpfr::dot(&x, &y).unwrap(),
            &reference(&products(&x, &y)),
            &format!("dot {context}"),
        );
        check(
            &mpfr::sum(&x).unwrap(),
            &reference(&singles(&x)),
            &format!("sum {context}"),
        );
    }
    assert!(mpfr::dot(&[1.0], &[]).is_err());
}

#[test]
fn products_and_sums_of_terms_against_rational_reference() {
    for case in 0..3000u64 {
        let seed = 0x6d70_7000 ^ case;
        let mut rng = Rng(seed);
        let specials = rng.below(6) == 0;
        let terms: Vec<Vec<f64>> = (0..rng.below(6))
            .map(|_| {
                let k = rng.below(5) as usize;
                rng.vec(k, specials)
            })
            .collect();
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        for (t, p) in terms.iter().zip(&floats) {
            assert_eq!(
                p.prec(),
                53 * t.len().max(1) as u32,
                "seed {seed:#x}: {t:?}"
            );
            match reference(std::slice::from_ref(t)) {
                Reference::Nan => assert!(p.is_nan(), "seed {seed:#x}: {t:?}"),
                Reference::Infinity { negative } => {
                    assert!(p.is_infinite() && p.is_sign_negative() == negative)
                }
                Reference::Finite { value, zero } => {
                    assert_eq!(p.to_rational().unwrap(), value, "seed {seed:#x}: {t:?}");
                    if value == 0 {
                        assert_eq!(p.is_sign_negative(), zero == Zeros::Negative, "{t:?}");
                    }
                }
            }
        }
        check(
            &mpfr::sum_of_terms(&floats),
            &reference(&terms),
            &format!("sum_of_terms seed {seed:#x}: {terms:?}"),
        );
    }
}

/// Thousands of terms at the top of the range and one at the bottom: the
/// partial sums need the `ceil(log2 n)` bits of the precision argument.
#[test]
fn long_sums_at_the_top_of_the_range_are_exact() {
    let max = f64::MAX;
    let tiny = f64::from_bits(1);
    for n in [2usize, 3, 4, 5, 1023, 1024, 1025, 4097] {
        let mut x = vec![max; n];
        let mut y = vec![max; n];
        x.push(tiny);
        y.push(-tiny);
        let context = format!("{n} x MAX^2 - 2^-2148");
        check(
            &mpfr::dot(&x, &y).unwrap(),
            &reference(&products(&x, &y)),
            &context,
        );
        let mut s = vec![max; n];
        s.push(-tiny);
        check(&mpfr::sum(&s).unwrap(), &reference(&singles(&s)), &context);
        // Products of four factors: n (MAX^4) - 2^-4296.
        let mut terms = vec![vec![max; 4]; n];
        terms.push(vec![tiny, tiny, tiny, -tiny]);
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        check(&mpfr::sum_of_terms(&floats), &reference(&terms), &context);
        // Cancelling back to the bottom bit.
        let mut terms = vec![vec![max, max, max]; n];
        terms.extend(vec![vec![-max, max, max]; n]);
        terms.push(vec![tiny, tiny, tiny]);
        let floats: Vec<Float> = terms.iter().map(|t| mpfr::product(t)).collect();
        check(&mpfr::sum_of_terms(&floats), &reference(&terms), &context);
    }
}

#[test]
fn zero_signs_by_the_mpfr_sum_rule() {
    let cases: &[&[f64]] = &[
        &[],
        &[-0.0],
        &[0.0],
        &[-0.0, -0.0],
        &[-0.0, 0.0],
        &[0.0, -0.0],
        &[1.0, -1.0],
        &[-1.0, 1.0, -0.0],
        &[-0.0, 1.0, -1.0],
        &[f64::from_bits(1), -f64::from_bits(1), -0.0],
    ];
    for &x in cases {
        check(
            &mpfr::sum(x).unwrap(),
            &reference(&singles(x)),
            &format!("sum {x:?}"),
        );
        let ones = vec![-1.0; x.len()];
        check(
            &mpfr::dot(x, &ones).unwrap(),
            &reference(&products(x, &ones)),
            &format!("dot {x:?} . -1"),
        );
    }
}
