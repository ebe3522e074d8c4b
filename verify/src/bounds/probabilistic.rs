//! Probabilistic bounds on `theta_n`, where `prod_{i=1}^n (1 + delta_i)^rho_i = 1 + theta_n`
//! and `rho_i = +-1`.
//!
//! # Higham and Mary (Hoeffding)
//!
//! Higham and Mary 2019 ("A new approach to probabilistic rounding error
//! analysis", SIAM J. Sci. Comput. 41(5), A2815-A2835), Theorem 2.4: if the
//! `delta_i` are independent, of mean zero and `|delta_i| <= u`, then for
//! `lambda > 0`,
//! `|theta_n| <= gamma~_n(lambda) = exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1`
//! with probability at least `P(lambda) = 1 - 2 exp(-lambda^2 (1 - u)^2 / 2)`.
//! (Hoeffding's inequality on `sum rho_i log(1 + delta_i)`, whose terms lie in
//! an interval of width `log((1+u)/(1-u)) <= 2u/(1-u)` and whose mean is at
//! most `u^2/(1-u)` in magnitude.)
//!
//! # Bhola and Duraisamy (Bernstein)
//!
//! Bhola and Duraisamy, Lemma 2.2 (VIBEA; from their arXiv 2404.12556,
//! Theorem 3.4): for `delta_i` iid uniform on `[-u, u]` and `lambda >= 0`,
//! `|theta~_n| <= gamma~_n(lambda)` with probability at least
//! `p_b(lambda, u, n) = 1 - 2 exp(-lambda^2 n u^2 / (2 (sigma^2 + lambda sqrt(n) u^2 / (3 (1 - u)))))`,
//! `sigma^2 = n (4u^2 + kappa (log(1-u)^2 - 2 log(1-u) log(1+u) + log(1+u)^2)) / (4u^2)`,
//! `kappa = u^2 - 1`.
//!
//! `p_b` is Bernstein's inequality for the centred sum
//! `S = sum rho_i (log(1 + delta_i) - mu)`, `mu = E log(1 + delta)`, with
//! deviation `t = lambda sqrt(n) u`, variance `sigma^2 = n Var[log(1 + delta)]`
//! (the printed closed form equals exactly that) and almost-sure range
//! `|log(1 + delta) - mu| <= M = u / (1 - u)` ([`vibea_range_bound`]).
//!
//! ## The pairing (our choice)
//!
//! The paper does not define `gamma~_n(lambda)` for Lemma 2.2. Bernstein bounds
//! the CENTRED sum: `|S| < t` with probability at least `p_b`. The uncentred
//! sum differs from `S` by `mu sum rho_i`, at most `n |mu|` in magnitude
//! (`mu < 0`, about `-u^2/6`), so on that event
//! `|sum rho_i log(1 + delta_i)| < t + n |mu|` and
//! `|theta_n| <= exp(t + n |mu|) - 1`, because `|e^x - 1| <= e^|x| - 1`.
//! [`vibea_gamma`] returns exactly that constant, `gamma~_b(lambda) =
//! exp(lambda sqrt(n) u + n |mu|) - 1`, with probability `p_b`: it is rigorous
//! under the lemma's model. The authors' code pairs `p_b` with
//! `exp(lambda sqrt(n) u) - 1` (drops `n |mu|`;
//! [`vibea_gamma_authors_centred`]) and, in its arXiv v1 version, with the
//! first-order `lambda sqrt(n) u` ([`vibea_gamma_first_order`]); both are
//! kept as [`Rigor::Published`] so reports can show them beside ours.
//! `tests/probabilistic_simulation.rs` shows by simulation that both are
//! violated far more often than `1 - p_b` allows (the first-order one once
//! `lambda sqrt(n) u` is of order 1, e.g. u = 2^-3, n = 100; the centred one
//! once the drift `n |mu|` is comparable to the spread `sqrt(n/3) u`, e.g.
//! u = 2^-4, n = 10^4, or bf16 with n = 2^20), while ours holds in the same
//! trials.
//!
//! # Evaluation
//!
//! Every returned constant is rounded up and every probability down
//! ([`super::directed`]). `sigma^2` and `mu` cancel catastrophically in their
//! closed forms (`sigma^2 / n = 1 - (1 - u^2) L^2 / (4 u^2)` with
//! `L = log((1+u)/(1-u))`, i.e. about `u^2/3` as a difference of numbers near
//! 1), so they are evaluated in MPFR with every operation rounded in the
//! direction that keeps the result an upper (or lower) bound, at a precision
//! of `64 + 4 log2(1/u)` bits, doubled until the two directions agree to one
//! `f64` ulp.

use super::directed::{
    add_up, div_down, div_up, exp_up, expm1_up, ln_up, mul_down, mul_up, sqrt_up, sub_down,
};
use super::gamma::{check_unit_roundoff, u64_down, u64_up};
use super::{Bound, Quantity, Rigor, Source};
use crate::error::{Result, VerifyError};
use rug::Float;
use rug::float::Round;

/// Higham and Mary 2019, Theorem 2.4.
pub const HIGHAM_MARY_THM_2_4: Source = Source::new("Higham and Mary 2019", "Theorem 2.4", None);

/// Bhola and Duraisamy, Lemma 2.2, with the constant paired to `p_b` here
/// (module documentation, docs/bounds.md).
pub const VIBEA_PAIRED: Source = Source::new(
    "Bhola and Duraisamy",
    "Lemma 2.2 (p_b), paired with gamma~ = exp(lambda sqrt(n) u + n |mu|) - 1 (derived here)",
    None,
);

/// Bhola and Duraisamy, Lemma 2.2, with the constant of the authors' code.
pub const VIBEA_AUTHORS_CENTRED: Source = Source::new(
    "Bhola and Duraisamy",
    "Lemma 2.2 (p_b), with the authors' code's gamma~ = exp(lambda sqrt(n) u) - 1",
    None,
);

/// Bhola and Duraisamy, Lemma 2.2, with the constant of the arXiv v1 code.
pub const VIBEA_FIRST_ORDER: Source = Source::new(
    "Bhola and Duraisamy",
    "Lemma 2.2 (p_b), with the arXiv v1 code's gamma~ = lambda sqrt(n) u",
    None,
);

const HM_MODEL: &str = "delta_i independent, mean zero, |delta_i| <= u";
const VIBEA_MODEL: &str = "delta_i iid uniform on [-u, u]";
const ASSUMED: &str = "the rounding model; assumed, not checked here";

fn check_lambda(lambda: f64, strictly_positive: bool) -> Result<()> {
    let ok = lambda.is_finite()
        && if strictly_positive {
            lambda > 0.0
        } else {
            lambda >= 0.0
        };
    if ok {
        Ok(())
    } else if strictly_positive {
        Err(VerifyError::invalid(
            "lambda",
            lambda,
            "must be finite and > 0",
        ))
    } else {
        Err(VerifyError::invalid(
            "lambda",
            lambda,
            "must be finite and >= 0",
        ))
    }
}

fn check_probability(probability: f64) -> Result<()> {
    if (0.0..1.0).contains(&probability) {
        Ok(())
    } else {
        Err(VerifyError::invalid(
            "probability",
            probability,
            "a target probability must satisfy 0 <= p < 1",
        ))
    }
}

/// `lambda sqrt(n) u`, rounded up.
fn deviation_up(n: u64, u: f64, lambda: f64) -> f64 {
    mul_up(mul_up(lambda, sqrt_up(u64_up(n))), u)
}

/// `ln(2 / (1 - p))`, rounded up: the `A` with `1 - 2 exp(-A) = p`.
fn log_two_over_failure_up(probability: f64) -> f64 {
    ln_up(div_up(2.0, sub_down(1.0, probability)))
}

/// `gamma~_n(lambda) = exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1` (rounded up),
/// holding with probability at least `P(lambda) = 1 - 2 exp(-lambda^2 (1-u)^2 / 2)`
/// (rounded down): Higham and Mary 2019, Theorem 2.4.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1) or `lambda` is
/// not finite and positive.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::higham_mary_gamma;
/// use boundgate_verify::bounds::Kind;
/// let u = 2f64.powi(-24);
/// let b = higham_mary_gamma(10_000, u, 3.0).unwrap();
/// // about 3 sqrt(n) u, far below gamma_n = n u / (1 - n u)
/// assert!(b.value > 300.0 * u && b.value < 301.0 * u);
/// let Kind::Probabilistic { probability } = b.kind else { unreachable!() };
/// assert!((probability - (1.0 - 2.0 * (-4.5f64).exp())).abs() < 1e-6);
/// ```
pub fn higham_mary_gamma(n: u64, u: f64, lambda: f64) -> Result<Bound> {
    check_unit_roundoff(u)?;
    check_lambda(lambda, true)?;
    let one_minus_u_down = sub_down(1.0, u);
    // Theorem 2.4: exponent lambda sqrt(n) u + n u^2 / (1 - u).
    let mean_term = div_up(mul_up(u64_up(n), mul_up(u, u)), one_minus_u_down);
    let value = expm1_up(add_up(deviation_up(n, u, lambda), mean_term));
    // P(lambda) = 1 - 2 exp(-lambda^2 (1-u)^2 / 2): a smaller lambda (1 - u)
    // gives a smaller probability, so round it down.
    let a = mul_down(lambda, one_minus_u_down);
    let half_a2 = mul_down(a, a) / 2.0;
    let probability = sub_down(1.0, 2.0 * exp_up(-half_a2));
    Ok(Bound::probabilistic(
        value,
        probability,
        Quantity::Theta,
        HIGHAM_MARY_THM_2_4,
        Rigor::Rigorous,
    )
    .with_hypothesis(HM_MODEL, ASSUMED)
    .with_hypothesis("lambda > 0", format!("lambda = {lambda}"))
    .with_hypothesis("u < 1", format!("u = {u:e}")))
}

/// The `lambda` for which Higham and Mary's `P(lambda)` equals `probability`:
/// `lambda = sqrt(2 ln(2 / (1 - probability))) / (1 - u)`, rounded up (so
/// `P(lambda) >= probability`).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `probability` is not in [0, 1) or `u` not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::{higham_mary_gamma, higham_mary_lambda};
/// use boundgate_verify::bounds::Kind;
/// let u = 2f64.powi(-11);
/// let lambda = higham_mary_lambda(0.99, u).unwrap();
/// let Kind::Probabilistic { probability } = higham_mary_gamma(100, u, lambda).unwrap().kind else { unreachable!() };
/// assert!(probability >= 0.99 - 1e-12);
/// ```
pub fn higham_mary_lambda(probability: f64, u: f64) -> Result<f64> {
    check_probability(probability)?;
    check_unit_roundoff(u)?;
    let a = log_two_over_failure_up(probability);
    Ok(div_up(sqrt_up(2.0 * a), sub_down(1.0, u)))
}

/// The almost-sure range bound of Bernstein's inequality in Lemma 2.2:
/// `M = u / (1 - u)`, rounded up.
///
/// It bounds `|log(1 + delta) - mu|` for `|delta| <= u`: the deviation is at
/// most `max(log(1+u) + |mu|, -log(1-u) - |mu|)`; the second is below
/// `-log(1-u) = sum u^k / k <= sum u^k = u/(1-u)`, the first below
/// `u + u^2/(6 (1 - u^2)) <= u + u^2/(1-u) = u/(1-u)`. (The authors' later code
/// uses `M = log(1 + u)`, which is smaller than `-log(1-u) - |mu|` and so not
/// an almost-sure bound.)
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::vibea_range_bound;
/// assert!(vibea_range_bound(0.125).unwrap() >= 0.125 / 0.875);
/// ```
pub fn vibea_range_bound(u: f64) -> Result<f64> {
    check_unit_roundoff(u)?;
    Ok(div_up(u, sub_down(1.0, u)))
}

fn direction(up: bool) -> Round {
    if up { Round::Up } else { Round::Down }
}

/// `ln(1 + x)` for an exact `x`, rounded in direction `up`.
fn ln_1p_directed(prec: u32, x: f64, up: bool) -> Float {
    let mut v = Float::with_val(prec, x);
    v.ln_1p_round(direction(up));
    v
}

/// `Var[log(1 + delta)] / u^2` for `delta ~ U[-u, u]`, from the closed form of
/// Lemma 2.2: `(1 - (1 - u^2) L^2 / (4 u^2)) / u^2`, where the seed's bracket
/// `log(1-u)^2 - 2 log(1-u) log(1+u) + log(1+u)^2` is `L^2`,
/// `L = log(1+u) - log(1-u)`, and `kappa = -(1 - u^2)`. Rounded up if `up`, else down.
fn variance_over_u2(prec: u32, u: f64, up: bool) -> Float {
    // The subtracted term w = (1 - u^2) L^2 / (4 u^2) must be rounded against `up`.
    let w_dir = direction(!up);
    let uf = Float::with_val(prec, u);
    let u2 = Float::with_val(prec, uf.square_ref()); // exact: prec >= 128
    let one_minus_u2 = Float::with_val_round(prec, 1 - &u2, w_dir).0;
    let l_plus = ln_1p_directed(prec, u, !up);
    let l_minus = ln_1p_directed(prec, -u, up);
    let l = Float::with_val_round(prec, &l_plus - &l_minus, w_dir).0;
    let l2 = Float::with_val_round(prec, l.square_ref(), w_dir).0;
    let num = Float::with_val_round(prec, &one_minus_u2 * &l2, w_dir).0;
    let four_u2 = Float::with_val(prec, &u2 * 4u32); // exact
    let w = Float::with_val_round(prec, &num / &four_u2, w_dir).0;
    let var = Float::with_val_round(prec, 1 - &w, direction(up)).0;
    Float::with_val_round(prec, &var / &u2, direction(up)).0
}

/// `|mu| / u^2`, `mu = E log(1 + delta) = ((1+u) log(1+u) - (1-u) log(1-u)) / (2u) - 1`
/// for `delta ~ U[-u, u]` (integrate `log(1 + d)` over `[-u, u]`). Rounded up if `up`.
fn mean_abs_over_u2(prec: u32, u: f64, up: bool) -> Float {
    // |mu| = 1 - F with F = ((1+u) log(1+u) + (1-u) (-log(1-u))) / (2u); F against `up`.
    let f_dir = direction(!up);
    let uf = Float::with_val(prec, u);
    let one_plus_u = Float::with_val_round(prec, 1 + &uf, f_dir).0;
    let one_minus_u = Float::with_val_round(prec, 1 - &uf, f_dir).0;
    let a = ln_1p_directed(prec, u, !up);
    let b = -ln_1p_directed(prec, -u, up);
    let left = Float::with_val_round(prec, &one_plus_u * &a, f_dir).0;
    let right = Float::with_val_round(prec, &one_minus_u * &b, f_dir).0;
    let sum = Float::with_val_round(prec, &left + &right, f_dir).0;
    let two_u = Float::with_val(prec, &uf * 2u32); // exact
    let f = Float::with_val_round(prec, &sum / &two_u, f_dir).0;
    let mu = Float::with_val_round(prec, 1 - &f, direction(up)).0;
    let u2 = Float::with_val(prec, uf.square_ref());
    Float::with_val_round(prec, &mu / &u2, direction(up)).0
}

/// Evaluates a cancelling quantity as a rigorous upper bound, refining the
/// precision until its lower and upper bounds agree to one `f64` ulp.
/// Returns `(lower, upper)`.
fn bracketed(u: f64, eval: fn(u32, f64, bool) -> Float) -> (f64, f64) {
    // About 2 log2(1/u) bits cancel; start with twice that plus 64 guard bits,
    // and never below 128 bits, where u^2, 2u and 4u^2 (u has 53 bits) are exact.
    let bits_of_u = (-u.log2()).ceil().max(1.0) as u32;
    let mut prec = (64 + 4 * bits_of_u).max(128);
    loop {
        let hi = eval(prec, u, true).to_f64_round(Round::Up);
        let lo = eval(prec, u, false).to_f64_round(Round::Down);
        if lo.next_up() >= hi || prec >= 1 << 16 {
            return (lo, hi);
        }
        prec *= 2;
    }
}

/// `Var[log(1 + delta)] / u^2` for `delta ~ U[-u, u]`, bracketed.
fn variance_ratio(u: f64) -> (f64, f64) {
    bracketed(u, variance_over_u2)
}

/// `x u^2 n`, rounded up, computed exactly before the final rounding (no
/// intermediate underflow).
fn scale_up(x: f64, u: f64, n: u64) -> f64 {
    let prec = 256; // 53 + 53 + 53 + 64 bits: every product below is exact
    let mut v = Float::with_val(prec, x);
    v *= u;
    v *= u;
    v *= n;
    v.to_f64_round(Round::Up)
}

/// `sigma^2` of Bhola and Duraisamy's Lemma 2.2, rounded up:
/// `n (4u^2 + kappa (log(1-u)^2 - 2 log(1-u) log(1+u) + log(1+u)^2)) / (4u^2)`,
/// `kappa = u^2 - 1`, which is `n Var[log(1 + delta)]` for `delta ~ U[-u, u]`
/// (about `n u^2 / 3`).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::bhola_sigma2;
/// let u = 2f64.powi(-11);
/// let s = bhola_sigma2(u, 1).unwrap();
/// // Var[log(1 + delta)] = 7.9472868542831681597e-8 (mpmath, 60 digits)
/// assert!((s - 7.9472868542831681597e-8).abs() <= 2e-16 * s);
/// assert!(bhola_sigma2(u, 100).unwrap() >= 100.0 * s * (1.0 - 1e-15));
/// ```
pub fn bhola_sigma2(u: f64, n: u64) -> Result<f64> {
    check_unit_roundoff(u)?;
    Ok(scale_up(variance_ratio(u).1, u, n))
}

/// `|mu| = |E log(1 + delta)|` for `delta ~ U[-u, u]`, rounded up
/// (`mu = -sum_{j>=1} u^(2j) / (2j (2j+1))`, about `-u^2/6`).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::uniform_log_mean_abs;
/// let u = 2f64.powi(-24);
/// let m = uniform_log_mean_abs(u).unwrap();
/// assert!((m / (u * u) - 1.0 / 6.0).abs() < 1e-14);
/// ```
pub fn uniform_log_mean_abs(u: f64) -> Result<f64> {
    check_unit_roundoff(u)?;
    Ok(scale_up(bracketed(u, mean_abs_over_u2).1, u, 1))
}

/// `p_b(lambda, u, n) = 1 - 2 exp(-lambda^2 n u^2 / (2 (sigma^2 + lambda sqrt(n) u^2 / (3 (1 - u)))))`
/// of Bhola and Duraisamy's Lemma 2.2, ROUNDED DOWN (a lower bound on a
/// probability). It may be negative, i.e. vacuous (e.g. `lambda = 0` gives -1);
/// the value is returned as is.
///
/// Evaluated as `1 - 2 exp(-lambda^2 n / (2 (n r + lambda sqrt(n) / (3 (1 - u)))))`
/// with `r = sigma^2 / (n u^2)`, which is the same number without the
/// underflow of `u^2` for tiny `u`. `n = 0` returns 1: the empty product is
/// exactly 1, so any `gamma~ >= 0` holds surely (the formula is 0/0 there).
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1) or `lambda` is not finite and >= 0.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::bhola_pb;
/// let u = 2f64.powi(-11);
/// let p = bhola_pb(2.0, u, 100).unwrap();
/// assert!(p > 0.98 && p < 0.99); // 1 - 2 exp(-5) to first order
/// assert_eq!(bhola_pb(0.0, u, 100).unwrap(), -1.0);
/// // lambda^2 underflows: still -1, the formula's least value.
/// assert_eq!(bhola_pb(1e-200, u, 100).unwrap(), -1.0);
/// ```
pub fn bhola_pb(lambda: f64, u: f64, n: u64) -> Result<f64> {
    check_unit_roundoff(u)?;
    check_lambda(lambda, false)?;
    if n == 0 {
        return Ok(1.0);
    }
    let r_up = variance_ratio(u).1;
    // The exponent's magnitude E must be a lower bound: numerator down, denominator up.
    let num = mul_down(mul_down(lambda, lambda), u64_down(n));
    let range_term = div_up(
        mul_up(lambda, sqrt_up(u64_up(n))),
        mul_down(3.0, sub_down(1.0, u)),
    );
    let den = 2.0 * add_up(mul_up(u64_up(n), r_up), range_term);
    let e = div_down(num, den);
    // `e >= 0`, so the exact value is at least `1 - 2 = -1`; `exp_up` of a
    // tiny `-e` rounds up to `1 + 2^-52` and gave `-1 - 2^-52` (review,
    // 2026-11-29: a lower bound still, but below the formula's range).
    Ok(sub_down(1.0, 2.0 * exp_up(-e)).max(-1.0))
}

/// The `lambda` at which `p_b(lambda, u, n)` equals `probability`, rounded up
/// (so `p_b(lambda) >= probability`). Solves
/// `lambda^2 n = 2 A (n r + lambda sqrt(n) / (3 (1-u)))`, `A = ln(2 / (1 - probability))`,
/// `r = sigma^2 / (n u^2)`, for its positive root.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `probability` is not in [0, 1), `u` not
/// in (0, 1), or `n = 0`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::{bhola_lambda, bhola_pb};
/// let u = 2f64.powi(-8);
/// let lambda = bhola_lambda(0.9, u, 100).unwrap();
/// let p = bhola_pb(lambda, u, 100).unwrap();
/// assert!(p >= 0.9 - 1e-12 && p < 0.9 + 1e-9);
/// ```
pub fn bhola_lambda(probability: f64, u: f64, n: u64) -> Result<f64> {
    check_probability(probability)?;
    check_unit_roundoff(u)?;
    if n == 0 {
        return Err(VerifyError::invalid("n", n, "p_b needs n >= 1"));
    }
    // The root grows with A, r and the linear coefficient: round them all up.
    let a = log_two_over_failure_up(probability);
    let r_up = variance_ratio(u).1;
    let n_up = u64_up(n);
    let b = div_up(
        mul_up(2.0 * a, sqrt_up(n_up)),
        mul_down(3.0, sub_down(1.0, u)),
    );
    let disc = add_up(
        mul_up(b, b),
        mul_up(mul_up(8.0 * a, n_up), mul_up(n_up, r_up)),
    );
    Ok(div_up(add_up(b, sqrt_up(disc)), 2.0 * u64_down(n)))
}

/// The Lemma 2.2 bound with OUR pairing (module documentation):
/// `gamma~_b(lambda) = exp(lambda sqrt(n) u + n |mu|) - 1`, rounded up, with
/// probability `p_b(lambda, u, n)` ([`bhola_pb`], rounded down), [`Rigor::Rigorous`].
///
/// Why this constant: Bernstein's inequality behind `p_b` bounds the centred
/// sum `sum rho_i (log(1 + delta_i) - mu)` by `t = lambda sqrt(n) u`; the
/// product's exponent `sum rho_i log(1 + delta_i)` is that plus
/// `mu sum rho_i`, at most `n |mu|` (`|mu| ~ u^2/6`) in magnitude, so
/// `|theta_n| <= exp(t + n |mu|) - 1` on the event. Dropping `n |mu|`
/// ([`vibea_gamma_authors_centred`]) or linearising
/// ([`vibea_gamma_first_order`]) is not justified by the lemma.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `u` is not in (0, 1) or `lambda` is not finite and >= 0.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::{vibea_gamma, vibea_gamma_authors_centred, vibea_gamma_first_order};
/// use boundgate_verify::bounds::Rigor;
/// let u = 2f64.powi(-11);
/// let ours = vibea_gamma(1000, u, 2.0).unwrap();
/// let centred = vibea_gamma_authors_centred(1000, u, 2.0).unwrap();
/// let first = vibea_gamma_first_order(1000, u, 2.0).unwrap();
/// assert!(first.value < centred.value && centred.value < ours.value);
/// assert_eq!(ours.rigor, Rigor::Rigorous);
/// assert_eq!(first.rigor, Rigor::Published);
/// assert_eq!(ours.kind, first.kind); // the same p_b
/// ```
pub fn vibea_gamma(n: u64, u: f64, lambda: f64) -> Result<Bound> {
    let probability = bhola_pb(lambda, u, n)?;
    let mean_drift = mul_up(u64_up(n), uniform_log_mean_abs(u)?);
    let value = expm1_up(add_up(deviation_up(n, u, lambda), mean_drift));
    Ok(vibea_bound(
        value,
        probability,
        VIBEA_PAIRED,
        Rigor::Rigorous,
        n,
        u,
        lambda,
    ))
}

/// Lemma 2.2's `p_b` paired with the authors' code's constant
/// `exp(lambda sqrt(n) u) - 1` (rounded up), which omits the mean drift
/// `n |mu|` of the uncentred sum. Kept as [`Rigor::Published`]; it is
/// violated more often than `1 - p_b` when `sqrt(n) u` is of order 1 (e.g.
/// u = 2^-4, n = 10^4, `rho_i = -1`: 6.4% of trials at `p_b = 0.99`; docs/bounds.md).
///
/// # Errors
/// As [`vibea_gamma`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::vibea_gamma_authors_centred;
/// let b = vibea_gamma_authors_centred(100, 2f64.powi(-11), 2.0).unwrap();
/// assert!(b.value >= (20.0 * 2f64.powi(-11)).exp_m1());
/// ```
pub fn vibea_gamma_authors_centred(n: u64, u: f64, lambda: f64) -> Result<Bound> {
    let probability = bhola_pb(lambda, u, n)?;
    let value = expm1_up(deviation_up(n, u, lambda));
    Ok(vibea_bound(
        value,
        probability,
        VIBEA_AUTHORS_CENTRED,
        Rigor::Published,
        n,
        u,
        lambda,
    ))
}

/// Lemma 2.2's `p_b` paired with the first-order constant `lambda sqrt(n) u`
/// (rounded up) of the authors' arXiv v1 code. Kept as [`Rigor::Published`];
/// it is violated more often than `1 - p_b` for large `u` (see docs/bounds.md).
///
/// # Errors
/// As [`vibea_gamma`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::vibea_gamma_first_order;
/// let b = vibea_gamma_first_order(100, 0.125, 2.0).unwrap();
/// assert_eq!(b.value, 2.5);
/// ```
pub fn vibea_gamma_first_order(n: u64, u: f64, lambda: f64) -> Result<Bound> {
    let probability = bhola_pb(lambda, u, n)?;
    let value = deviation_up(n, u, lambda);
    Ok(vibea_bound(
        value,
        probability,
        VIBEA_FIRST_ORDER,
        Rigor::Published,
        n,
        u,
        lambda,
    ))
}

fn vibea_bound(
    value: f64,
    probability: f64,
    source: Source,
    rigor: Rigor,
    n: u64,
    u: f64,
    lambda: f64,
) -> Bound {
    Bound::probabilistic(value, probability, Quantity::Theta, source, rigor)
        .with_hypothesis(VIBEA_MODEL, ASSUMED)
        .with_hypothesis("lambda >= 0", format!("lambda = {lambda}"))
        .with_hypothesis("u < 1", format!("u = {u:e}, n = {n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_are_tight_and_ordered() {
        for p in [1, 3, 8, 11, 24, 53, 100, 600] {
            let u = 2f64.powi(-p);
            for eval in [
                variance_over_u2 as fn(u32, f64, bool) -> Float,
                mean_abs_over_u2,
            ] {
                let (lo, hi) = bracketed(u, eval);
                assert!(lo <= hi && lo.next_up() >= hi, "p = {p}: {lo} {hi}");
            }
        }
    }

    #[test]
    fn ratios_tend_to_their_series_limits() {
        // Var/u^2 = 1/3 + 7u^2/45 + ..., |mu|/u^2 = 1/6 + u^2/20 + ...: at
        // u = 2^-30 both corrections are below 2e-19, under half an ulp of the
        // limits, so the upward-rounded ratios are the limits or one ulp above.
        let u = 2f64.powi(-30);
        let (_, v) = variance_ratio(u);
        let (_, m) = bracketed(u, mean_abs_over_u2);
        assert!(v == 1.0 / 3.0 || v == (1.0f64 / 3.0).next_up(), "{v:e}");
        assert!(m == 1.0 / 6.0 || m == (1.0f64 / 6.0).next_up(), "{m:e}");
    }
}
