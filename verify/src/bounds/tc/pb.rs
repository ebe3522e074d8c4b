//! `p_b(lambda, u, n)` of Lemma 2.2 for many `n` at once.
//!
//! The probability of Theorems 3.9 and 3.10 sums `p_b` over every term of an
//! inner product (2^15 terms for the paper's Fig. 6), and solving for the
//! `lambda` that reaches a target probability evaluates that sum dozens of
//! times. [`bhola_pb`](crate::bounds::probabilistic::bhola_pb) recomputes
//! `Var[log(1 + delta)]` in MPFR on every call; [`PbTable`] computes that
//! ratio once per `u` and then evaluates the SAME expression with the SAME
//! directed roundings (tested to agree with `bhola_pb` bit for bit).

use super::super::directed::{
    add_up, div_down, div_up, exp_up, mul_down, mul_up, sqrt_up, sub_down,
};
use super::super::gamma::{u64_down, u64_up};
use super::super::probabilistic::bhola_sigma2;
use crate::error::{Result, VerifyError};
use std::collections::HashMap;

/// The smallest `u` for which `Var[log(1 + delta)] / u^2` is recovered from
/// `bhola_sigma2(u, 1) / u^2` (`2^-450`: `u^2 = 2^-900` is normal and above
/// the range where the directed products move outward).
const SMALLEST_SCALED_U: f64 = f64::from_bits((1023 - 450) << 52);

/// An upper bound of `Var[log(1 + delta)] / u^2`, `delta ~ U[-u, u]`, for
/// `0 < u <= 1/2`, rounded up: `(1 + u)^2 / 3`. Proof: `Var <= E[log^2(1 + delta)]`,
/// `0 <= log(1 + d) <= d` for `d >= 0`, and `-log(1 - t) = t (1 + t/2 + t^2/3 + ...)
/// <= t (1 + t)` for `0 <= t <= 1/2`; so `log^2(1 + delta) <= (1 + u)^2 delta^2`
/// and `E[delta^2] = u^2 / 3`. The true ratio is `1/3 + 7 u^2 / 45 + O(u^4)`,
/// so for every `u < 2^-450`, where this is used, both round up to the same
/// `f64` (`(2 u + u^2) / 3` is far below the distance from 1/3 to the next
/// `f64` above it): [`PbTable::pb`] stays equal to `bhola_pb`.
fn tiny_u_ratio_up(u: f64) -> f64 {
    use rug::Float;
    use rug::float::Round;
    use rug::ops::DivAssignRound;
    // 1 + u is exact at 1200 bits (u >= 2^-1074), its square at 2400.
    let mut v = Float::with_val(2400, 1);
    v += u;
    v.square_mut();
    v.div_assign_round(3u32, Round::Up);
    v.to_f64_round(Round::Up)
}

/// `p_b(lambda, u, n)` (rounded down) for one `u` and `lambda` and any `n`, memoised.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::probabilistic::bhola_pb;
/// use boundgate_verify::bounds::tc::PbTable;
/// let u = 2f64.powi(-24);
/// let mut table = PbTable::new(u, 4.0).unwrap();
/// for n in [1, 7, 1000, 1 << 20] {
///     assert_eq!(table.pb(n), bhola_pb(4.0, u, n).unwrap());
/// }
/// ```
#[derive(Clone, Debug)]
pub struct PbTable {
    u: f64,
    lambda: f64,
    /// `sigma^2 / (n u^2)` rounded up (`Var[log(1 + delta)] / u^2`).
    ratio_up: f64,
    memo: HashMap<u64, f64>,
}

impl PbTable {
    /// The table for unit roundoff `u` and `lambda`.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for `u` outside (0, 1) or a negative
    /// or non-finite `lambda`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::PbTable;
    /// let u = 2f64.powi(-11);
    /// assert!(PbTable::new(u, 3.0).is_ok());
    /// assert!(PbTable::new(u, -1.0).is_err()); // lambda >= 0
    /// assert!(PbTable::new(u, f64::INFINITY).is_err());
    /// assert!(PbTable::new(1.0, 3.0).is_err()); // u < 1
    /// ```
    pub fn new(u: f64, lambda: f64) -> Result<PbTable> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return Err(VerifyError::invalid(
                "lambda",
                lambda,
                "must be finite and >= 0",
            ));
        }
        let sigma2 = bhola_sigma2(u, 1)?;
        // sigma2 = (ratio u^2) rounded up; dividing by u^2 (rounded down) gives an
        // upper bound of the ratio, and the ratio itself when u is a power of two
        // (then both steps are exact scalings). Only while u^2 is far from the
        // underflow range: below it `sigma2` is a subnormal or the smallest one,
        // and `mul_down(u, u)` is the NEGATIVE subnormal (the rounded-down
        // product of a zero), so for u <= 2^-540 the ratio came out as -1 and
        // `pb` claimed p_b(4, 2^-600, 1) = 1 - 2e^-24 where Lemma 2.2 gives
        // 0.9836 (review, 2026-11-29). There the ratio is bounded instead.
        let ratio_up = if u >= SMALLEST_SCALED_U {
            div_up(sigma2, mul_down(u, u))
        } else {
            tiny_u_ratio_up(u)
        };
        Ok(PbTable {
            u,
            lambda,
            ratio_up,
            memo: HashMap::new(),
        })
    }

    /// The unit roundoff.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::PbTable;
    /// assert_eq!(PbTable::new(2f64.powi(-24), 4.0).unwrap().u(), 2f64.powi(-24));
    /// ```
    pub fn u(&self) -> f64 {
        self.u
    }

    /// `p_b(lambda, u, n)`, rounded down; 1 for `n = 0` (as `bhola_pb`).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::probabilistic::bhola_pb;
    /// use boundgate_verify::bounds::tc::PbTable;
    /// let u = 2f64.powi(-11);
    /// // lambda = 0: p_b = 1 - 2 exp(0) = -1 exactly (vacuous).
    /// assert_eq!(PbTable::new(u, 0.0).unwrap().pb(10), -1.0);
    /// let mut table = PbTable::new(u, 3.0).unwrap();
    /// assert_eq!(table.pb(0), 1.0); // an empty sum
    /// // The same directed evaluation as `bhola_pb`, bit for bit, memoised or not.
    /// assert_eq!(table.pb(100), bhola_pb(3.0, u, 100).unwrap());
    /// assert_eq!(table.pb(100), bhola_pb(3.0, u, 100).unwrap());
    /// ```
    pub fn pb(&mut self, n: u64) -> f64 {
        if n == 0 {
            return 1.0;
        }
        if let Some(&p) = self.memo.get(&n) {
            return p;
        }
        // The expression and rounding directions of `bhola_pb`: the exponent's
        // magnitude is a lower bound (numerator down, denominator up).
        let (lambda, u) = (self.lambda, self.u);
        let num = mul_down(mul_down(lambda, lambda), u64_down(n));
        let range_term = div_up(
            mul_up(lambda, sqrt_up(u64_up(n))),
            mul_down(3.0, sub_down(1.0, u)),
        );
        let p = self.bernstein(n, num, range_term);
        self.memo.insert(n, p);
        p
    }

    /// Bernstein's inequality for the centred sum of `n` rounding errors and a
    /// deviation of `tau u`, rounded down:
    /// `1 - 2 exp(-tau^2 / (2 (n sigma^2 / (n u^2) + tau / (3 (1 - u)))))`.
    /// [`pb`](Self::pb) is this with `tau = lambda sqrt(n)`; Lemma 2.2's proof
    /// gives the same inequality for any deviation, and (by Doob's maximal
    /// inequality on `exp(theta S_k)`) for the largest of the partial sums
    /// `S_1, ..., S_n` too, which the paired probability of Theorems 3.9/3.10
    /// needs (`tc::paired_probability`).
    ///
    /// Pass a lower bound of `tau`: the exponent grows with `tau`, so a smaller
    /// one gives a smaller, still valid, probability. `tau <= 0` (no deviation
    /// can be promised), `tau = +inf` and `n = 0` (an empty sum is exactly 0)
    /// are handled: -1 (vacuous), 1 and 1.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::PbTable;
    /// let mut table = PbTable::new(2f64.powi(-11), 3.0).unwrap();
    /// // With tau = lambda sqrt(n) it is p_b itself, up to the rounding of tau.
    /// let tau = 3.0 * 64f64.sqrt();
    /// assert!((table.pb_deviation(64, tau) - table.pb(64)).abs() < 1e-12);
    /// // The same deviation spread over fewer roundings is more likely kept.
    /// assert!(table.pb_deviation(32, tau) > table.pb(64));
    /// ```
    pub fn pb_deviation(&self, n: u64, tau: f64) -> f64 {
        if n == 0 {
            return 1.0;
        }
        if tau.is_nan() || tau <= 0.0 {
            return -1.0;
        }
        if tau == f64::INFINITY {
            // No deviation exceeds an infinite one. Evaluated, it was NaN
            // (inf / inf in the exponent; review, 2026-11-29).
            return 1.0;
        }
        // tau^2 >= 0: a product rounded down below the underflow range is the
        // negative subnormal, which made the probability fall below -1.
        let num = mul_down(tau, tau).max(0.0);
        let range_term = div_up(tau, mul_down(3.0, sub_down(1.0, self.u)));
        self.bernstein(n, num, range_term)
    }

    /// `1 - 2 exp(-num / (2 (n ratio + range_term)))` rounded down, given the
    /// numerator rounded down and the range term rounded up.
    fn bernstein(&self, n: u64, num: f64, range_term: f64) -> f64 {
        let den = 2.0 * add_up(mul_up(u64_up(n), self.ratio_up), range_term);
        let e = div_down(num, den);
        sub_down(1.0, 2.0 * exp_up(-e))
    }
}
