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
    pub fn new(u: f64, lambda: f64) -> Result<PbTable> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return Err(VerifyError::invalid(
                "lambda",
                lambda,
                "must be finite and >= 0",
            ));
        }
        let sigma2 = bhola_sigma2(u, 1)?;
        // sigma2 = (ratio u^2) rounded up; dividing by u^2 (rounded up) gives an
        // upper bound of the ratio, and the ratio itself when u is a power of two
        // (then both steps are exact scalings).
        let ratio_up = div_up(sigma2, mul_down(u, u));
        Ok(PbTable {
            u,
            lambda,
            ratio_up,
            memo: HashMap::new(),
        })
    }

    /// The unit roundoff.
    pub fn u(&self) -> f64 {
        self.u
    }

    /// `p_b(lambda, u, n)`, rounded down; 1 for `n = 0` (as `bhola_pb`).
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
        let den = 2.0 * add_up(mul_up(u64_up(n), self.ratio_up), range_term);
        let e = div_down(num, den);
        let p = sub_down(1.0, 2.0 * exp_up(-e));
        self.memo.insert(n, p);
        p
    }
}
