//! The exact solution of a triangular system with binary floating-point
//! entries, by fraction-free substitution in integers.
//!
//! Plain rational substitution ([`super::solve_exact_rational`]) reduces every
//! intermediate by a gcd; its cost grew so fast with the order that
//! [`super::solution_errors`] only fell back to it up to order 128, and above
//! that kept the enclosure however loose it was. Here no fraction is formed
//! until the end:
//!
//! 1. Every row `i` (its read off-diagonal entries, its diagonal as read and
//!    `b_i`) is multiplied by the power of two `2^-s_i` that makes all of them
//!    integers (`s_i` the least exponent of the row's odd mantissas). That
//!    leaves `x` unchanged: row `i` is the equation `sum_j t_ij x_j = b_i`.
//! 2. With `d_j` the scaled diagonal and `D_i` the product of the `d_j` solved
//!    up to and including row `i`, `y_i = x_i D_i` is an integer (Cramer's rule
//!    on the leading block; the classical fraction-free substitution, as in
//!    Bareiss's elimination, Math. Comp. 22, 1968, specialised to a triangle):
//!    `y_i = b_i D_prev - sum_j t_ij y_j prod_{k solved after j, before i} d_k`,
//!    where `D_prev` is the product of the diagonals solved before row `i`.
//!    The sum is evaluated by Horner's rule over the solve order,
//!    `acc <- acc d_j + t_ij y_j`, so each row costs one pass over the
//!    earlier `y_j`, with integers only.
//! 3. `x_i = y_i / D_i`, reduced once.
//!
//! The integers grow linearly with the position in the solve order (Hadamard's
//! bound: `y_i` is a determinant of an `i x i` integer matrix), so the whole
//! solve costs about `sum_q S_q (n - q)` bit operations, `S_q` the bits of the
//! `q`-th `y` ([`solve_cost_bits`]): order 600 with fp32 entries takes 0.1 s
//! on one core (about 1.7e9 of these bit operations; the
//! `an_exact_zero_above_order_128_is_judged_exactly` system of order 300,
//! 0.02 s).

use super::Triangular;
use crate::error::{Result, require_finite, require_same_len};
use rug::{Integer, Rational};

/// `v` as `m 2^e` with `m` an odd integer (or `(0, 0)` for zero); `v` finite.
fn odd_mantissa(v: f64) -> (i64, i32) {
    if v == 0.0 {
        return (0, 0);
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i64;
    // Subnormals have no implicit bit and the exponent of the smallest normal.
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    (if v < 0.0 { -m } else { m }, e)
}

/// Row `i` of the system in integers: the common exponent and the values.
struct ScaledRow {
    /// The exponent `s_i` of the row's least significant bit.
    shift: i32,
    /// Bits of the row's largest scaled value (its magnitude's bit length).
    bits: u32,
}

impl ScaledRow {
    fn of(values: impl Iterator<Item = f64> + Clone) -> ScaledRow {
        let nonzero = values.filter(|v| *v != 0.0).map(odd_mantissa);
        let shift = nonzero.clone().map(|(_, e)| e).min().unwrap_or(0);
        let bits = nonzero
            .map(|(m, e)| (64 - m.unsigned_abs().leading_zeros()) + (e - shift) as u32)
            .max()
            .unwrap_or(0);
        ScaledRow { shift, bits }
    }

    /// `v 2^-shift`, an integer since `v`'s odd mantissa's exponent is at least `shift`.
    fn integer(&self, v: f64) -> Integer {
        let (m, e) = odd_mantissa(v);
        Integer::from(m) << (e - self.shift) as u32
    }
}

/// The values row `i` of the solve reads: its off-diagonal entries, its
/// diagonal (1 for a unit one) and `b_i`.
fn row_values<'t>(
    t: &'t Triangular<'_>,
    b: &'t [f64],
    i: usize,
) -> impl Iterator<Item = f64> + Clone + 't {
    let (_, off) = t.off_diagonal(i);
    off.iter().copied().chain([t.diagonal(i), b[i]])
}

/// An estimate of the bit operations [`solve_exact`] spends on `T x = b`: row
/// `q` of the solve order makes one Horner step per later row on an integer of
/// at most `S_q` bits, where `S_q` sums each solved row's bit length plus the
/// `log2` of its length (Hadamard's bound on `y_q`). [`super::solution_errors`]
/// solves exactly only within a budget of this quantity.
///
/// # Errors
/// As [`solve_exact`] (wrong lengths, non-finite entries, a zero on the
/// diagonal).
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solve_cost_bits, Diag, Triangular, Uplo};
/// let data = [2.0, 0.0, 1.0, 3.0];
/// let t = Triangular::new(Matrix::new(2, 2, &data).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
/// // Row 0's y has at most 3 bits (2 and 1 scaled: 2 bits, plus one for its
/// // two values), read once more by row 1.
/// assert_eq!(solve_cost_bits(&t, &[1.0, 1.0]).unwrap(), 3.0);
/// assert!(solve_cost_bits(&t, &[1.0]).is_err());
/// ```
pub fn solve_cost_bits(t: &Triangular<'_>, b: &[f64]) -> Result<f64> {
    require_system(t, b)?;
    let n = t.n();
    let mut cumulative = 0.0;
    let mut cost = 0.0;
    for (position, i) in t.solve_order().enumerate() {
        let row = ScaledRow::of(row_values(t, b, i));
        let length = (t.off_diagonal(i).1.len() + 2) as f64;
        cumulative += row.bits as f64 + length.log2().ceil();
        cost += cumulative * (n - 1 - position) as f64;
    }
    Ok(cost)
}

/// The checks both [`solve_cost_bits`] and [`solve_exact`] need before
/// reading the system.
fn require_system(t: &Triangular<'_>, b: &[f64]) -> Result<()> {
    require_same_len("b and the order of T", b.len(), t.n())?;
    require_finite("b", b)?;
    t.require_nonsingular()
}

/// The exact solution of `T x = b`, by fraction-free substitution in integers
/// (module docs); equal to [`super::solve_exact_rational`], far faster at
/// large orders.
///
/// # Errors
/// As [`super::solution_errors`].
///
/// # Example
/// ```
/// use boundgate_verify::oracle::Matrix;
/// use boundgate_verify::oracle::trsv::{solve_exact, Diag, Triangular, Uplo};
/// use rug::Rational;
/// // [[3, 0.5], [0, 0.75]] x = [1, 1]: x1 = 4/3, x0 = (1 - 2/3) / 3 = 1/9.
/// let t = Triangular::new(Matrix::new(2, 2, &[3.0, 0.5, 9.0, 0.75]).unwrap(), Uplo::Upper, Diag::NonUnit).unwrap();
/// let x = solve_exact(&t, &[1.0, 1.0]).unwrap();
/// assert_eq!(x, vec![Rational::from((1, 9)), Rational::from((4, 3))]);
/// ```
pub fn solve_exact(t: &Triangular<'_>, b: &[f64]) -> Result<Vec<Rational>> {
    require_system(t, b)?;
    let n = t.n();
    // y_j and the scaled diagonal d_j by row; `solved` in solve order.
    let mut y = vec![Integer::new(); n];
    let mut d = vec![Integer::new(); n];
    let mut solved: Vec<usize> = Vec::with_capacity(n);
    let mut diagonal_product = Integer::from(1);
    let mut x = vec![Rational::new(); n];
    for i in t.solve_order() {
        let row = ScaledRow::of(row_values(t, b, i));
        let (start, off) = t.off_diagonal(i);
        let mut acc = Integer::new();
        for &j in &solved {
            if acc != 0 {
                acc *= &d[j];
            }
            let t_ij = off[j - start];
            if t_ij != 0.0 {
                acc += row.integer(t_ij) * &y[j];
            }
        }
        let mut y_i = row.integer(b[i]) * &diagonal_product;
        y_i -= acc;
        d[i] = row.integer(t.diagonal(i));
        diagonal_product *= &d[i];
        x[i] = Rational::from((y_i.clone(), diagonal_product.clone()));
        y[i] = y_i;
        solved.push(i);
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_mantissas_give_back_the_value() {
        let values = [
            1.0,
            0.75,
            -6.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            -f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_fff0),
            1.0 / 3.0,
        ];
        for v in values {
            let (m, e) = odd_mantissa(v);
            assert!(m % 2 != 0, "{v:e}: {m} is even");
            // m 2^e = m 2^1100 / 2^(1100 - e), e >= -1074.
            let power = |k: i32| Integer::from(1) << k as u32;
            let back = Rational::from(m) * Rational::from((power(1100), power(1100 - e)));
            assert_eq!(back, Rational::from_f64(v).unwrap(), "{v:e}");
        }
        assert_eq!(odd_mantissa(0.0), (0, 0));
        assert_eq!(odd_mantissa(-0.0), (0, 0));
        assert_eq!(odd_mantissa(0.75), (3, -2));
        assert_eq!(odd_mantissa(-f64::from_bits(1)), (-1, -1074));
    }

    #[test]
    fn a_row_scales_to_integers_from_its_least_bit() {
        // 2^-1074 and 2^1023 in one row: 2098 bits.
        let row = ScaledRow::of([f64::from_bits(1), 0.0, 2f64.powi(1023)].into_iter());
        assert_eq!((row.shift, row.bits), (-1074, 2098));
        assert_eq!(row.integer(f64::from_bits(1)), 1);
        assert_eq!(row.integer(2f64.powi(1023)), Integer::from(1) << 2097u32);
        assert_eq!(row.integer(0.0), 0);
    }
}
