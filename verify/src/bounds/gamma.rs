//! The deterministic constant `gamma_n = n u / (1 - n u)`.
//!
//! Higham 2002 (*Accuracy and Stability of Numerical Algorithms*, 2nd ed.),
//! Lemma 3.1: if `|delta_i| <= u`, `rho_i = +-1` and `n u < 1`, then
//! `prod_{i=1}^n (1 + delta_i)^rho_i = 1 + theta_n` with
//! `|theta_n| <= gamma_n = n u / (1 - n u)`. Bhola and Duraisamy restate it
//! as their Lemma 2.1 (DBEA) and build every deterministic bound on it.
//!
//! The value is evaluated with upward rounding: `n u` up, `1 - n u` down, the
//! quotient up, so the returned `f64` is never below the real `gamma_n`. The
//! hypothesis `n u < 1` is checked on `n u` rounded UP, so that a product
//! that is only just below 1 in real arithmetic but not provably so in
//! floating point is refused rather than given a huge or wrong value.

use super::directed::{div_up, expm1_up, ln1p_up, mul_up, sub_down};
use super::{Bound, Quantity, Rigor, Source, require};
use crate::error::{Result, VerifyError};
use crate::format::{Format, RoundingMode};

/// Higham 2002, Lemma 3.1 (the same statement is Bhola and Duraisamy, Lemma 2.1).
pub const HIGHAM_LEMMA_3_1: Source = Source::new(
    "Higham 2002",
    "Lemma 3.1 (= Bhola and Duraisamy, Lemma 2.1)",
    None,
);

/// The rounding-error model Lemma 3.1 assumes; not checkable from `n` and `u`.
const MODEL: &str = "|delta_i| <= u, rho_i = +-1";

/// `n` as an `f64`, rounded up (exact for `n <= 2^53`): every count that
/// multiplies a bound goes through it (`as` rounds to nearest).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::u64_up;
/// assert_eq!(u64_up(1 << 53), 2f64.powi(53));
/// assert_eq!(u64_up((1 << 53) + 1), 2f64.powi(53) + 2.0);
/// assert_eq!(u64_up(u64::MAX), 2f64.powi(64));
/// ```
pub fn u64_up(n: u64) -> f64 {
    let x = n as f64;
    // `as` rounds to nearest, which can land below n; 2^64 does not fit a u64,
    // hence the comparison in u128.
    if (x as u128) < u128::from(n) {
        x.next_up()
    } else {
        x
    }
}

/// `n` as an `f64`, rounded down.
pub(crate) fn u64_down(n: u64) -> f64 {
    let x = n as f64;
    if (x as u128) > u128::from(n) {
        x.next_down()
    } else {
        x
    }
}

/// Checks that `u` is a unit roundoff: finite and in the open interval (0, 1).
pub(crate) fn check_unit_roundoff(u: f64) -> Result<()> {
    if u.is_finite() && u > 0.0 && u < 1.0 {
        Ok(())
    } else {
        Err(VerifyError::invalid(
            "u",
            u,
            "a unit roundoff must satisfy 0 < u < 1",
        ))
    }
}

/// `gamma_n = n u / (1 - n u)` (Higham 2002, Lemma 3.1), rounded up, as a
/// deterministic bound on `|theta_n|`.
///
/// `n = 0` gives `gamma_0 = 0` (the empty product is exactly 1).
///
/// # Errors
/// - [`VerifyError::InvalidParameter`] if `u` is not in (0, 1) (NaN included).
/// - [`VerifyError::HypothesisNotMet`] if `n u < 1` cannot be established
///   (checked with `n u` rounded up).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::gamma;
/// use boundgate_verify::bounds::{Kind, Quantity};
/// let u = 2f64.powi(-11); // fp16, round to nearest
/// let g = gamma(1000, u).unwrap();
/// assert_eq!(g.kind, Kind::Deterministic);
/// assert_eq!(g.quantity, Quantity::Theta);
/// // 1000 u / (1 - 1000 u) = 1000 / 1048
/// assert!(g.value >= 1000.0 / 1048.0 && g.value <= (1000.0f64 / 1048.0).next_up());
/// // 2048 u = 1: refused.
/// assert!(gamma(2048, u).is_err());
/// ```
pub fn gamma(n: u64, u: f64) -> Result<Bound> {
    let value = gamma_value(n, u)?;
    let nu = mul_up(u64_up(n), u);
    Ok(
        Bound::deterministic(value, Quantity::Theta, HIGHAM_LEMMA_3_1, Rigor::Rigorous)
            .with_hypothesis(MODEL, "the rounding model; assumed, not checked here")
            .with_hypothesis("n u < 1", format!("n = {n}, u = {u:e}, n u <= {nu:e}")),
    )
}

/// The number `gamma_n` alone, rounded up; see [`gamma`] for errors.
///
/// # Errors
/// As [`gamma`]: [`VerifyError::InvalidParameter`] if `u` is not in (0, 1),
/// [`VerifyError::HypothesisNotMet`] if `n u < 1` cannot be established.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::gamma_value;
/// assert_eq!(gamma_value(0, 0.25).unwrap(), 0.0);
/// assert_eq!(gamma_value(2, 0.25).unwrap(), 1.0); // 0.5 / 0.5
/// assert!(gamma_value(4, 0.25).is_err()); // n u = 1
/// assert!(gamma_value(1, f64::NAN).is_err());
/// ```
pub fn gamma_value(n: u64, u: f64) -> Result<f64> {
    check_unit_roundoff(u)?;
    if n == 0 {
        return Ok(0.0);
    }
    let nu = mul_up(u64_up(n), u);
    require(nu < 1.0, &HIGHAM_LEMMA_3_1, "n u < 1", || {
        format!("n = {n}, u = {u:e}: n u = {nu:e} (rounded up) is not below 1")
    })?;
    Ok(div_up(nu, sub_down(1.0, nu)))
}

/// `(1 + u)^n - 1`, rounded up: a bound on `|prod_{i=1}^n (1 + delta_i) - 1|`
/// for `|delta_i| <= u` (products only, `rho_i = +1`), valid for every `n`.
/// It is the quantity Higham 2002's proof of Lemma 3.1 bounds by `gamma_n`
/// (`(1 + u)^n - 1 <= n u / (1 - n u)` when `n u < 1`), so it is never larger
/// than `gamma_n` in real arithmetic and needs no `n u < 1`; the rigorous
/// bounds take the smaller of the two evaluated values ([`theta_bound`]).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::{gamma_value, product_growth};
/// let u = 2f64.powi(-11);
/// assert!(product_growth(1000, u).unwrap() < gamma_value(1000, u).unwrap());
/// // n u = 4.9: no gamma_n, but (1 + u)^n - 1 = e^4.88 - 1 = 130.6 bounds theta.
/// assert!(gamma_value(10_000, u).is_err());
/// let g = product_growth(10_000, u).unwrap();
/// assert!(g > 130.0 && g < 131.0);
/// assert_eq!(product_growth(0, u).unwrap(), 0.0);
/// ```
pub fn product_growth(n: u64, u: f64) -> Result<f64> {
    check_unit_roundoff(u)?;
    Ok(expm1_up(mul_up(u64_up(n), ln1p_up(u))))
}

/// A bound on `|theta_n|` for a product of `n` factors `1 + delta_i`,
/// `|delta_i| <= u`: the smaller of [`gamma_value`] (where `n u < 1`) and
/// [`product_growth`], so it exists for every `n`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::{product_growth, theta_bound};
/// let u = 2f64.powi(-11);
/// assert_eq!(theta_bound(10_000, u).unwrap(), product_growth(10_000, u).unwrap());
/// assert!(theta_bound(1, u).unwrap() >= u);
/// ```
pub fn theta_bound(n: u64, u: f64) -> Result<f64> {
    let growth = product_growth(n, u)?;
    Ok(match gamma_value(n, u) {
        Ok(gamma) => gamma.min(growth),
        Err(VerifyError::HypothesisNotMet { .. }) => growth,
        Err(other) => return Err(other),
    })
}

/// `gamma_n` for a format and rounding mode: `u = 2^-p` for round to nearest,
/// `2^(1-p)` for the directed modes (toward zero, up, down), as
/// [`Format::unit_roundoff`] gives it.
///
/// # Errors
/// As [`gamma`] with `u = format.unit_roundoff(mode)`: [`VerifyError::HypothesisNotMet`]
/// if `n u < 1` cannot be established.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::gamma::{gamma_for_format, gamma_value};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let near = gamma_for_format(10, Format::BF16, RoundingMode::NearestEven).unwrap();
/// let down = gamma_for_format(10, Format::BF16, RoundingMode::TowardZero).unwrap();
/// assert_eq!(near.value, gamma_value(10, 2f64.powi(-8)).unwrap());
/// assert_eq!(down.value, gamma_value(10, 2f64.powi(-7)).unwrap());
/// ```
pub fn gamma_for_format(n: u64, format: Format, mode: RoundingMode) -> Result<Bound> {
    gamma(n, format.unit_roundoff(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_roundings_bracket_the_integer() {
        for n in [
            0u64,
            1,
            (1 << 53) + 1,
            u64::MAX,
            u64::MAX - 1,
            (1 << 60) + 3,
        ] {
            let (lo, hi) = (u64_down(n), u64_up(n));
            assert!((lo as u128) <= u128::from(n) || lo >= 2f64.powi(64), "{n}");
            assert!(
                hi >= n as f64 && (hi.next_down() as u128) < u128::from(n) || hi == 0.0,
                "{n}"
            );
            assert!(lo <= hi);
        }
        assert_eq!(u64_up((1 << 53) + 1), 2f64.powi(53) + 2.0);
        assert_eq!(u64_down((1 << 53) + 1), 2f64.powi(53));
    }
}
