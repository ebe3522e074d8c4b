//! The accuracy-loss metric `||A^ - A||_F / ||A||_F` (Freytag 2023, §3.1,
//! Fig. 3.1), computed from exact sums of squares.
//!
//! The thesis accumulates `pow(Aapprox[i] - A[i], 2)` and `pow(A[i], 2)` in
//! `double` (Fig. 3.1). Here both sums are exact ([`ExactSum`]): each
//! difference `a^ - a` is split exactly into `s + e` (TwoSum), so
//! `(a^ - a)^2 = s^2 + 2 s e + e^2` enters as three exact products (one when
//! `e = 0`, as always for two values within a factor 2 of each other,
//! Sterbenz's lemma). The quotient and square root are then enclosed with
//! directed rounding: [`LossMeasure::lower`] `<= loss <= `[`LossMeasure::upper`],
//! and whether the loss exceeds a limit `L` is decided exactly
//! (`D > L^2 R` on the exact sums: [`LossSums::exceeds`]).
//!
//! `||A|| = 0`: if also `A^ = A` the loss is 0 (identical results); otherwise
//! it is undefined and the metric says so ([`InterleaveError::UndefinedLoss`]),
//! never a NaN or an infinity.

use super::error::{InterleaveError, Result};
use boundgate_verify::bounds::directed::{div_down, div_up, sqrt_down, sqrt_up};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::ExactSum;
use rug::Float;
use serde::Serialize;

/// An enclosure of the accuracy loss (a ratio, not a percentage).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LossMeasure {
    /// `sqrt(D / R)` with `D` and `R` rounded to nearest `f64` (within a few
    /// ulps of the exact loss, inside `[lower, upper]`).
    pub value: f64,
    /// A lower bound of the exact loss.
    pub lower: f64,
    /// An upper bound of the exact loss.
    pub upper: f64,
}

/// The exact sums of one comparison: `D = sum (a^_i - a_i)^2`, `R = sum a_i^2`.
#[derive(Clone, Debug, Default)]
pub struct LossSums {
    /// `sum (a^_i - a_i)^2`, exactly.
    pub diff: ExactSum,
    /// `sum a_i^2`, exactly.
    pub reference: ExactSum,
}

const CHUNK: usize = 1024;

/// Exact `sum (a_i - b_i)^2` of two equally long slices, added to `acc`.
/// Non-finite values make the sum non-finite (see [`ExactSum::non_finite`]).
///
/// # Errors
/// [`InterleaveError::Verify`] (a length mismatch) when `a` and `b` differ
/// in length; `acc` is then left unchanged.
///
/// Fast path: when the exact difference `s` is a binary32 number (always, by
/// Sterbenz's lemma, for two binary32 values within a factor 2), `s^2` has
/// at most 48 significant bits and is exact in `f64`, so it is added as one
/// value; otherwise `s^2` (and the TwoSum remainder's terms) enter as exact
/// products.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::loss::add_squared_differences;
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// let mut acc = ExactSum::new();
/// add_squared_differences(&mut acc, &[1.0f32, 3.0], &[0.0f32, 1.0]).unwrap();
/// assert_eq!(acc.to_f64(), 5.0); // 1^2 + 2^2
/// assert!(add_squared_differences(&mut acc, &[1.0f32], &[0.0f32, 1.0]).is_err());
/// // 1 - 2^-60 rounds to 1 in f64; the TwoSum remainder keeps the exact
/// // (1 - 2^-60)^2 = 1 - 2^-59 + 2^-120, just below 1
/// let tiny = f64::from_bits(0x3C30_0000_0000_0000); // 2^-60
/// let mut acc = ExactSum::new();
/// add_squared_differences(&mut acc, &[1.0f64], &[tiny]).unwrap();
/// assert!(acc.round(Format::FP64, RoundingMode::Down) < 1.0);
/// assert_eq!(acc.round(Format::FP64, RoundingMode::Up), 1.0);
/// ```
pub fn add_squared_differences<T: Copy + Into<f64>, U: Copy + Into<f64>>(
    acc: &mut ExactSum,
    a: &[T],
    b: &[U],
) -> Result<()> {
    boundgate_verify::error::require_same_len("squared differences", a.len(), b.len())?;
    let mut squares = [0.0f64; CHUNK];
    let mut factors = [0.0f64; CHUNK];
    for (ca, cb) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        let (mut ns, mut nf) = (0, 0);
        for (&x, &y) in ca.iter().zip(cb) {
            let (x, y): (f64, f64) = (x.into(), -y.into());
            let s = x + y;
            let bb = s - x;
            let e = (x - (s - bb)) + (y - bb);
            if e == 0.0 && f64::from(s as f32) == s {
                squares[ns] = s * s;
                ns += 1;
            } else {
                factors[nf] = s;
                nf += 1;
                if e != 0.0 && s.is_finite() {
                    acc.add_product(2.0 * s, e);
                    acc.add_product(e, e);
                }
            }
        }
        acc.add_slice(&squares[..ns]);
        // `add_products` takes the fast path of the accumulator.
        acc.add_products(&factors[..nf], &factors[..nf])
            .expect("equal lengths");
    }
    Ok(())
}

/// Exact `sum a_i^2`, added to `acc` (binary32 values square exactly in
/// `f64`; others enter as exact products).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::loss::add_squares;
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle::ExactSum;
/// let mut acc = ExactSum::new();
/// add_squares(&mut acc, &[3.0f32, -4.0]);
/// assert_eq!(acc.to_f64(), 25.0); // 9 + 16
/// // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104 is not an f64: the sum keeps the 2^-104,
/// // so rounding down and up give neighbouring values
/// let mut acc = ExactSum::new();
/// add_squares(&mut acc, &[1.0 + f64::EPSILON]);
/// let (lo, hi) = (acc.round(Format::FP64, RoundingMode::Down), acc.round(Format::FP64, RoundingMode::Up));
/// assert_eq!(lo, 1.0 + 2.0 * f64::EPSILON);
/// assert_eq!(hi, 1.0 + 3.0 * f64::EPSILON);
/// ```
pub fn add_squares<T: Copy + Into<f64>>(acc: &mut ExactSum, a: &[T]) {
    let mut squares = [0.0f64; CHUNK];
    let mut factors = [0.0f64; CHUNK];
    for c in a.chunks(CHUNK) {
        let (mut ns, mut nf) = (0, 0);
        for &v in c {
            let v: f64 = v.into();
            if f64::from(v as f32) == v {
                squares[ns] = v * v;
                ns += 1;
            } else {
                factors[nf] = v;
                nf += 1;
            }
        }
        acc.add_slice(&squares[..ns]);
        acc.add_products(&factors[..nf], &factors[..nf])
            .expect("equal lengths");
    }
}

impl LossSums {
    /// The sums comparing `approx` with `reference`.
    ///
    /// # Errors
    /// Length mismatch.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, loss::LossSums};
    /// let s = LossSums::of(&[2.0f64, 4.0], &[1.0, 2.0]).unwrap();
    /// assert_eq!(s.diff.to_f64(), 5.0); // 1^2 + 2^2
    /// assert_eq!(s.reference.to_f64(), 5.0); // 1^2 + 2^2: the loss is exactly 1
    /// assert_eq!(s.measure().unwrap().value, 1.0);
    /// assert!(matches!(LossSums::of(&[1.0f64], &[1.0, 2.0]), Err(InterleaveError::Verify(_))));
    /// ```
    pub fn of<T: Copy + Into<f64>>(approx: &[T], reference: &[T]) -> Result<LossSums> {
        boundgate_verify::error::require_same_len(
            "approximate and reference states",
            approx.len(),
            reference.len(),
        )?;
        let mut sums = LossSums::default();
        add_squared_differences(&mut sums.diff, approx, reference)?;
        add_squares(&mut sums.reference, reference);
        Ok(sums)
    }

    /// The sums comparing `approx` with a reference whose `sum a_i^2` is
    /// already known (the lockstep runner computes it once per iteration).
    ///
    /// # Errors
    /// [`InterleaveError::Verify`] (a length mismatch) when `approx` and
    /// `reference` differ in length.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::loss::{LossSums, add_squares};
    /// use boundgate_verify::oracle::ExactSum;
    /// let reference = [1.0f64, 2.0, 2.0];
    /// let mut squares = ExactSum::new();
    /// add_squares(&mut squares, &reference); // 9, computed once
    /// // a binary32 approximation against the binary64 reference
    /// let s = LossSums::against(&[1.0f32, 2.0, 5.0], &reference, &squares).unwrap();
    /// assert_eq!(s.diff.to_f64(), 9.0); // (5 - 2)^2
    /// assert_eq!(s.measure().unwrap().value, 1.0); // sqrt(9 / 9)
    /// let same = LossSums::of(&[1.0f64, 2.0, 5.0], &reference).unwrap();
    /// assert_eq!(s.measure().unwrap(), same.measure().unwrap());
    /// assert!(LossSums::against(&[1.0f32, 2.0], &reference, &squares).is_err());
    /// ```
    pub fn against<T: Copy + Into<f64>, U: Copy + Into<f64>>(
        approx: &[T],
        reference: &[U],
        squares: &ExactSum,
    ) -> Result<LossSums> {
        let mut diff = ExactSum::new();
        add_squared_differences(&mut diff, approx, reference)?;
        Ok(LossSums {
            diff,
            reference: squares.clone(),
        })
    }

    /// The enclosure of the loss.
    ///
    /// # Errors
    /// [`InterleaveError::UndefinedLoss`] when `||A|| = 0` and `A^ != A`;
    /// [`InterleaveError::NonFinite`] when a state holds a NaN or an infinity.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::loss::LossSums;
    /// let m = LossSums::of(&[3.0f64, 4.0], &[0.0, 5.0]).unwrap().measure().unwrap();
    /// // ||(3, -1)|| / ||(0, 5)|| = sqrt(10) / 5
    /// assert!(m.lower <= 10f64.sqrt() / 5.0 && 10f64.sqrt() / 5.0 <= m.upper);
    /// assert!(LossSums::of(&[1.0f64], &[0.0]).unwrap().measure().is_err());
    /// assert_eq!(LossSums::of(&[0.0f64], &[0.0]).unwrap().measure().unwrap().upper, 0.0);
    /// ```
    pub fn measure(&self) -> Result<LossMeasure> {
        self.require_finite()?;
        let rd = RoundingMode::Down;
        let ru = RoundingMode::Up;
        if self.diff.is_zero() {
            return Ok(LossMeasure {
                value: 0.0,
                lower: 0.0,
                upper: 0.0,
            });
        }
        if self.reference.is_zero() {
            return Err(InterleaveError::UndefinedLoss);
        }
        let (d_lo, d_hi) = (
            self.diff.round(Format::FP64, rd),
            self.diff.round(Format::FP64, ru),
        );
        let (r_lo, r_hi) = (
            self.reference.round(Format::FP64, rd),
            self.reference.round(Format::FP64, ru),
        );
        let normal = |x: f64| x.is_finite() && x >= f64::MIN_POSITIVE;
        if !(normal(d_lo) && normal(d_hi) && normal(r_lo) && normal(r_hi)) {
            // A sum of squares beyond binary64's range (|a| above ~1e154 or
            // below ~1e-154): the binary64 quotient would be 0/0, inf/inf or
            // a subnormal-rounded enclosure. MPFR's exponent range holds both
            // exact sums, so the quotient is enclosed there instead.
            return self.measure_in_mpfr();
        }
        let lower = if r_hi.is_finite() {
            sqrt_down(div_down(d_lo, r_hi))
        } else {
            0.0
        };
        let upper = if r_lo > 0.0 {
            sqrt_up(div_up(d_hi, r_lo))
        } else {
            f64::INFINITY
        };
        let value = (self.diff.to_f64() / self.reference.to_f64()).sqrt();
        let value = if value.is_finite() {
            value.clamp(lower, upper)
        } else {
            upper
        };
        Ok(LossMeasure {
            value,
            lower,
            upper,
        })
    }

    /// [`LossSums::measure`] for sums outside binary64's normal range:
    /// `sqrt(D / R)` from the exact sums, each of the two roundings (quotient,
    /// square root) directed, then rounded to `f64` in the same direction.
    fn measure_in_mpfr(&self) -> Result<LossMeasure> {
        use rug::float::Round;
        let d = self.diff.to_float().ok_or(InterleaveError::UndefinedLoss)?;
        let r = self
            .reference
            .to_float()
            .ok_or(InterleaveError::UndefinedLoss)?;
        let enclose = |round: Round| {
            let (mut q, _) = Float::with_val_round(53, &d / &r, round);
            q.sqrt_round(round);
            q.to_f64_round(round)
        };
        let (lower, upper) = (enclose(Round::Down), enclose(Round::Up));
        let nearest = Float::with_val(113, &d / &r).sqrt().to_f64();
        Ok(LossMeasure {
            value: nearest.clamp(lower, upper),
            lower,
            upper,
        })
    }

    /// Whether the loss exceeds `limit` (strictly), decided exactly:
    /// `D > limit^2 R` on the exact sums.
    ///
    /// # Errors
    /// As [`LossSums::measure`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::loss::LossSums;
    /// let s = LossSums::of(&[1.5f64], &[1.0]).unwrap(); // loss exactly 0.5
    /// assert!(!s.exceeds(0.5).unwrap());
    /// assert!(s.exceeds(0.5f64.next_down()).unwrap());
    /// ```
    pub fn exceeds(&self, limit: f64) -> Result<bool> {
        let m = self.measure()?;
        if m.lower > limit {
            return Ok(true);
        }
        if m.upper <= limit {
            return Ok(false);
        }
        // Within an ulp or two of the limit: compare the exact rationals.
        let d = self.diff.to_float().ok_or(InterleaveError::UndefinedLoss)?;
        let r = self
            .reference
            .to_float()
            .ok_or(InterleaveError::UndefinedLoss)?;
        let l2 = Float::with_val(106, limit) * Float::with_val(53, limit);
        let rhs = Float::with_val(r.prec() + 106 + 2, &l2 * &r);
        Ok(d > rhs)
    }

    fn require_finite(&self) -> Result<()> {
        for (what, s) in [
            ("approximate - reference", &self.diff),
            ("reference", &self.reference),
        ] {
            if let Some(v) = s.non_finite() {
                return Err(InterleaveError::NonFinite {
                    what: what.to_string(),
                    index: 0,
                    value: v,
                });
            }
        }
        Ok(())
    }
}

/// The loss of `approx` against `reference`, measured exactly (see the module docs).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::loss::accuracy_loss;
/// let m = accuracy_loss(&[1.0f32, 2.0], &[1.0, 2.0]).unwrap();
/// assert_eq!((m.lower, m.upper), (0.0, 0.0));
/// ```
pub fn accuracy_loss<T: Copy + Into<f64>>(approx: &[T], reference: &[T]) -> Result<LossMeasure> {
    LossSums::of(approx, reference)?.measure()
}

/// The thesis's own evaluation (Freytag 2023, Fig. 3.1): both sums of squares
/// accumulated left to right in `double`, then `sqrt(sumSqC) / sqrt(sumSqA)`.
/// Kept to compare with the exact enclosure.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::loss::{LossSums, thesis_loss};
/// // sqrt(3^2 + 1^2) / sqrt(0^2 + 5^2) = sqrt(10) / 5
/// assert_eq!(thesis_loss(&[3.0f64, 4.0], &[0.0, 5.0]), 10f64.sqrt() / 5.0);
/// // Its `double` sums overflow where the exact ones do not: the loss of
/// // 2e200 against 1e200 is exactly 1, and `exceeds` decides so.
/// assert!(thesis_loss(&[2e200f64], &[1e200]).is_nan()); // inf / inf
/// let exact = LossSums::of(&[2e200f64], &[1e200]).unwrap();
/// assert!(!exact.exceeds(1.0).unwrap() && exact.exceeds(1f64.next_down()).unwrap());
/// ```
pub fn thesis_loss<T: Copy + Into<f64>>(approx: &[T], reference: &[T]) -> f64 {
    let (mut c, mut a) = (0.0f64, 0.0f64);
    for (&x, &y) in approx.iter().zip(reference) {
        let (x, y): (f64, f64) = (x.into(), y.into());
        c += (x - y).powi(2);
        a += y.powi(2);
    }
    c.sqrt() / a.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rug::Rational;

    #[test]
    fn squared_differences_refuse_slices_of_different_lengths() {
        let mut acc = ExactSum::new();
        let err = add_squared_differences(&mut acc, &[1.0f64, 2.0, 3.0], &[1.0f64]);
        assert!(matches!(err, Err(InterleaveError::Verify(_))), "{err:?}");
        assert!(acc.is_zero());
        let mut squares = ExactSum::new();
        add_squares(&mut squares, &[1.0f64]);
        assert!(matches!(
            LossSums::against(&[1.0f32, 2.0], &[1.0f64], &squares),
            Err(InterleaveError::Verify(_))
        ));
    }

    #[test]
    fn sums_beyond_binary64_still_give_a_tight_enclosure() {
        const TINY: f64 = f64::from_bits(453 << 52); // 2^(453 - 1023)
        // Each loss is exactly 1 or exactly 1/2, but the sums of squares
        // (4e400 and 1e400, 4e-400 and 1e-400, ...) overflow or underflow
        // binary64: the enclosure must still be the exact value.
        for (approx, reference, exact) in [
            (vec![2e200f64], vec![1e200f64], 1.0),
            (vec![2e-200], vec![1e-200], 1.0),
            // t = 2^-570: differences (t, 2t) against (2t, 4t), 5t^2 / 20t^2
            (
                vec![3.0 * TINY, 6.0 * TINY],
                vec![2.0 * TINY, 4.0 * TINY],
                0.5,
            ),
            (vec![f64::MAX], vec![f64::MAX / 2.0], 1.0),
            (
                vec![3.0 * f64::from_bits(1)],
                vec![2.0 * f64::from_bits(1)],
                0.5,
            ),
        ] {
            let m = accuracy_loss(&approx, &reference).unwrap();
            assert_eq!(
                (m.lower, m.value, m.upper),
                (exact, exact, exact),
                "{approx:?}"
            );
        }
        // Any other loss is enclosed within an ulp: lower^2 <= D/R <= upper^2
        // on exact rationals.
        let (x, y) = (3e200f64, 7e199f64);
        let m = accuracy_loss(&[x], &[y]).unwrap();
        let exact = (Rational::from_f64(x).unwrap() - Rational::from_f64(y).unwrap()).square()
            / Rational::from_f64(y).unwrap().square();
        let lo = Rational::from_f64(m.lower).unwrap().square();
        let hi = Rational::from_f64(m.upper).unwrap().square();
        assert!(lo <= exact && exact <= hi, "{m:?}");
        assert!(m.upper <= m.lower.next_up() && (m.lower..=m.upper).contains(&m.value));
        // A loss beyond binary64 itself: a valid, infinite upper bound.
        let m = accuracy_loss(&[1e300f64, 0.0], &[0.0, 1e-300]).unwrap();
        assert_eq!((m.lower, m.upper), (f64::MAX, f64::INFINITY));
    }

    fn exact_ratio_sq(a: &[f64], b: &[f64]) -> Rational {
        let mut d = Rational::new();
        let mut r = Rational::new();
        for (&x, &y) in a.iter().zip(b) {
            let diff = Rational::from_f64(x).unwrap() - Rational::from_f64(y).unwrap();
            d += diff.clone() * diff;
            let y = Rational::from_f64(y).unwrap();
            r += y.clone() * y;
        }
        d / r
    }

    #[test]
    fn enclosure_contains_the_exact_loss() {
        let seed = 11;
        println!("seed {seed}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for trial in 0..300 {
            let n = rng.random_range(1..50);
            let scale = 2f64.powi(rng.random_range(-300..300));
            let b: Vec<f64> = (0..n)
                .map(|_| rng.random_range(-1.0..1.0) * scale)
                .collect();
            let a: Vec<f64> = b
                .iter()
                .map(|&y| {
                    if trial % 3 == 0 {
                        y * 1e-30
                    } else {
                        y * (1.0 + rng.random_range(-1e-3..1e-3))
                    }
                })
                .collect();
            let m = accuracy_loss(&a, &b).unwrap();
            let exact = exact_ratio_sq(&a, &b);
            let lo = Rational::from_f64(m.lower).unwrap();
            let hi = Rational::from_f64(m.upper).unwrap();
            assert!(
                lo.clone() * &lo <= exact && exact <= hi.clone() * &hi,
                "trial {trial}"
            );
            assert!(m.lower <= m.value && m.value <= m.upper);
            assert!(m.upper - m.lower <= 1e-14 * m.upper.max(1e-300));
        }
    }

    #[test]
    fn exceeds_is_exact_at_the_boundary() {
        // loss = 3/5 exactly? sqrt(D/R) with D = 9, R = 25.
        let s = LossSums::of(&[3.0f64, 0.0], &[0.0, 5.0]).unwrap();
        // D = 9 + 25 = 34, R = 25: loss = sqrt(34)/5 ~ 1.1662
        let loss = (34f64).sqrt() / 5.0;
        let below = loss.next_down().next_down();
        assert!(s.exceeds(below).unwrap());
        assert!(!s.exceeds(loss.next_up().next_up()).unwrap());
        let half = LossSums::of(&[2.0f64], &[4.0]).unwrap(); // exactly 0.5
        assert!(!half.exceeds(0.5).unwrap());
        assert!(half.exceeds(0.5f64.next_down()).unwrap());
    }

    #[test]
    fn non_finite_states_are_reported() {
        let s = LossSums::of(&[f64::NAN, 1.0], &[1.0, 1.0]).unwrap();
        assert!(matches!(
            s.measure(),
            Err(InterleaveError::NonFinite { .. })
        ));
        let s = LossSums::of(&[1.0, 1.0], &[f64::INFINITY, 1.0]).unwrap();
        assert!(matches!(
            s.measure(),
            Err(InterleaveError::NonFinite { .. })
        ));
    }

    #[test]
    fn thesis_double_loss_is_close_on_ordinary_data() {
        let b: Vec<f32> = (0..1000).map(|i| 300.0 + i as f32 * 0.01).collect();
        let a: Vec<f32> = b.iter().map(|&v| v + 0.25).collect();
        let m = accuracy_loss(&a, &b).unwrap();
        let t = thesis_loss(&a, &b);
        assert!((t - m.value).abs() <= 1e-12 * m.value);
    }
}
