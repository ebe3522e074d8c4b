//! Decimal renderings of bounds and probabilities with a direction: a
//! bound printed for people is rounded up, a probability that a bound holds
//! rounded down, so that the text never claims more than the number
//! (review, 2026-11-26: to nearest, 1 - 3e-8 printed as "p >= 1.000000").

use rug::float::Round;
use rug::{Float, Integer};

/// `v` to five significant digits, rounded up (`d.dddde[+-]x`).
///
/// # Example
/// ```
/// use boundgate::decimal::scientific_up;
/// assert_eq!(scientific_up(1.110223e-15), "1.1103e-15");
/// ```
pub fn scientific_up(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let (negative, digits, exponent) =
        Float::with_val(53, v).to_sign_string_exp_round(10, Some(5), Round::Up);
    let exponent = exponent.expect("a finite nonzero value has an exponent") - 1;
    let sign = if negative { "-" } else { "" };
    format!("{sign}{}.{}e{exponent}", &digits[..1], &digits[1..])
}

/// `p` to `places` decimals, rounded down (a probability is a lower bound).
///
/// # Example
/// ```
/// use boundgate::decimal::fixed_down;
/// assert_eq!(fixed_down(1.0 - 3e-8, 6), "0.999999");
/// ```
pub fn fixed_down(p: f64, places: u32) -> String {
    if !p.is_finite() {
        return format!("{p}");
    }
    // 53 bits times 10^places (< 2^4 per decimal) are exact at 128 bits.
    let scaled = Float::with_val(128, p) * Integer::from(10u64.pow(places));
    let floor = scaled
        .floor()
        .to_integer()
        .expect("a finite probability has an integer floor");
    let sign = if floor < 0 { "-" } else { "" };
    let digits = format!("{:0>width$}", floor.abs(), width = places as usize + 1);
    let (whole, fraction) = digits.split_at(digits.len() - places as usize);
    format!("{sign}{whole}.{fraction}")
}

/// A probability for people: its shortest decimal where that is its exact
/// value with at most six decimals (`0.5`, `0.25`), else six decimals
/// rounded down (three for a vacuous `p <= 0`). The shortest round-trip
/// decimal is not used otherwise: it may lie above the value (0.99 is
/// 0.98999999999999999112 in binary64, printed here as 0.989999; review,
/// 2026-11-26).
///
/// # Example
/// ```
/// use boundgate::decimal::probability;
/// assert_eq!(probability(0.5), "0.5");
/// assert_eq!(probability(0.99), "0.989999");
/// assert_eq!(probability(0.9776844815128396), "0.977684");
/// assert_eq!(probability(1.0 - 3e-8), "0.999999");
/// assert_eq!(probability(-21.316123456), "-21.317");
/// assert_eq!(probability(-2034899313477427712.0), "-2034899313477427712.000");
/// ```
pub fn probability(p: f64) -> String {
    let shortest = format!("{p}");
    let decimals = shortest.split_once('.').map_or(0, |(_, f)| f.len());
    // The decimal's own value, to 256 bits: equal to `p` only where the
    // decimal is exact (a decimal that is not a binary fraction rounds to
    // something else at 256 bits than at 53).
    let exact = p.is_finite()
        && !shortest.contains('e')
        && decimals <= 6
        && Float::parse(&shortest).is_ok_and(|d| Float::with_val(256, d) == p);
    if exact {
        return shortest;
    }
    fixed_down(p, if p > 0.0 { 6 } else { 3 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printed decimals are directed: values up, probabilities down.
    #[test]
    fn printed_values_round_up_and_probabilities_down() {
        // 1.110223e-15 (gamma_10 in fp64) printed to nearest read 1.1102e-15.
        assert_eq!(scientific_up(1.110223e-15), "1.1103e-15");
        assert_eq!(scientific_up(0.25), "2.5000e-1");
        // The binary64 nearest 0.004 is above it: up is the next decimal.
        assert_eq!(scientific_up(4.0e-3), "4.0001e-3");
        assert_eq!(scientific_up(-0.25), "-2.5000e-1");
        assert_eq!(scientific_up(0.99999999), "1.0000e0");
        assert_eq!(scientific_up(0.0), "0");
        // 1 - 3e-8 printed to nearest read as certainty.
        assert_eq!(fixed_down(1.0 - 3e-8, 6), "0.999999");
        assert_eq!(fixed_down(0.9616856563, 6), "0.961685");
        assert_eq!(fixed_down(1.0, 6), "1.000000");
        assert_eq!(fixed_down(-21.3216, 3), "-21.322");
        assert_eq!(fixed_down(-0.0001, 3), "-0.001");
        assert_eq!(fixed_down(0.0, 3), "0.000");
        assert_eq!(fixed_down(f64::NAN, 3), "NaN");
        assert_eq!(scientific_up(f64::INFINITY), "inf");
    }
}
