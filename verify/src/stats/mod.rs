//! Confidence tests for probabilistic bounds.
//!
//! A probabilistic bound claims that each independent trial violates it with
//! probability at most `q = 1 - p`. Over `n` trials with `k` violations the
//! claim is judged by the exact one-sided binomial test: it is REJECTED at
//! confidence `c` when `P[Bin(n, q) >= k] < 1 - c`, which is the same as the
//! one-sided Clopper-Pearson lower bound on the violation rate exceeding `q`
//! (Clopper and Pearson 1934, "The use of confidence or fiducial limits
//! illustrated in the case of the binomial", Biometrika 26(4)). A single
//! violation in a single trial rejects only a claim of `p > c` (then
//! `q < 1 - c`). The tail is computed with a bound on its error (below:
//! about 1e-13 relative for up to 10^7 trials, growing with the length of
//! the sum beyond); a claim is rejected only when its p-value is below
//! `1 - c` by more than that bound and by [`TAIL_RELATIVE_ERROR`], so that
//! rounding never turns a claim on the boundary into a finding (one
//! violation in one trial with `p = c = 0.99` was rejected until
//! 2026-11-25, its p-value computed 5e-16 low; a claim at 2^36 trials, its
//! p-value 2e-12 relative low, until 2026-11-26; reviews). So "rejected" and
//! "the Clopper-Pearson lower bound exceeds `q`" agree except where the
//! p-value is within that margin of `1 - c`.
//!
//! The Clopper-Pearson bounds are Beta quantiles,
//! `lower = Beta^-1(1 - c; k, n - k + 1)` and `upper = Beta^-1(c; k + 1, n - k)`,
//! because `P[Bin(n, x) >= k] = I_x(k, n - k + 1)` (regularized incomplete
//! beta). They are computed here by bisection on the binomial tail itself,
//! not with statrs' `inv_beta_reg`/`beta_reg`: in statrs 0.19.1
//! `inv_beta_reg(1, 1e7, 0.95)` does not return (statrs issue #435) and
//! `beta_reg` loses accuracy for shapes above about 1e4 (issue #434), and
//! check campaigns reach such trial counts. Each step of the bisection
//! compares whichever tail is summed directly (the one away from the mean)
//! with its own level, `1 - c` or `c`, never a complement `1 - tail` with the
//! other: the complement is accurate only to `2^-54` absolute, which put an
//! upper bound at `c = 1 - 1e-12` off by 2e-6 relative (review, 2026-11-29).
//! The tail is a sum of binomial
//! probabilities, the first from `ln Gamma` in MPFR (so large `n` loses no
//! accuracy) and the rest by the exact ratio recurrence, summed away from
//! the mean (relative accuracy about 1e-13 in the tail that matters). These
//! are statistics, not bounds: no directed rounding.
//!
//! A claim about each element of an output, where the union bound over the
//! elements leaves the trial-level claim vacuous, is judged by
//! [`judge_element_rate`] (Hoeffding's inequality on the fraction of
//! violating elements).

use crate::error::{Result, VerifyError};
use rug::Float;

mod element_rate;
pub use element_rate::{ElementCounts, ElementRateSums, ElementRateVerdict, judge_element_rate};
use serde::Serialize;
use std::fmt;

/// The smallest relative margin a p-value must fall below `1 - c` by before
/// a claim is rejected (module docs); the tail's computed error bound is
/// used where it is larger (long sums).
pub const TAIL_RELATIVE_ERROR: f64 = 1e-12;

/// Precision of the `ln Gamma` evaluations: `ln Gamma(n + 1)` for `n` up to
/// 2^64 is below 2^70, so 128 bits leave 2^-58 absolute error in a log-pmf.
const LN_GAMMA_PREC: u32 = 128;

/// `ln C(n, j)` in MPFR.
fn ln_choose(n: u64, j: u64) -> Float {
    let ln_factorial = |x: u64| {
        let mut f = Float::with_val(LN_GAMMA_PREC, x);
        f += 1u32;
        f.ln_gamma()
    };
    let mut s = ln_factorial(n);
    s -= ln_factorial(j);
    s -= ln_factorial(n - j);
    s
}

/// `ln P[Bin(n, q) = j]` from `ln C(n, j)`, for `0 < q < 1`.
fn ln_pmf(ln_choose_j: &Float, j: u64, n: u64, q: f64) -> f64 {
    let ln_q = Float::with_val(LN_GAMMA_PREC, q).ln();
    let mut ln_1mq = Float::with_val(LN_GAMMA_PREC, -q);
    ln_1mq.ln_1p_mut();
    let mut s = ln_choose_j.clone();
    s += ln_q * j;
    s += ln_1mq * (n - j);
    s.to_f64()
}

/// A computed tail probability and a bound on its absolute error.
#[derive(Clone, Copy, Debug)]
struct Tail {
    value: f64,
    error: f64,
}

/// The unit roundoff of binary64.
const U64: f64 = f64::EPSILON / 2.0;

/// `exp(ln_first) * sum`, where `sum` adds the terms `t_0 = 1`,
/// `t_{i+1} = t_i * ratio(i)` while they are not negligible. `ratio` must be
/// decreasing in `i` and below 1 from the start (terms summed away from the
/// mode), so the remainder after a term `t` is at most `t r / (1 - r)`.
///
/// The error bound counts, to first order, the roundings of the
/// recurrence (a ratio is at most 6 roundings: two conversions of counts,
/// a division, the product or quotient by the odds, the odds' own two; one
/// more into the term; so term `i` is off by `7 i u` relatively), the sum's
/// additions (`u` each, so `8 u` per step in all, of which the `2 x 7 u`
/// below leaves a factor 1.75 for the second order), the truncation, the
/// conversion of `ln_first` to binary64 (`u |ln_first|` absolute in the
/// exponent), the logarithm, the addition and the exponential. The chain's
/// share grows with the steps: at `n = 2^36` trials a tail of 10^5 steps was
/// off by 9e-12, beyond the fixed 1e-12 margin this replaces as the only one
/// (review, 2026-11-26).
fn geometric_tail(ln_first: f64, steps: u64, ratio: impl Fn(u64) -> f64) -> Tail {
    let mut term = 1.0f64;
    let mut sum = 1.0f64;
    let mut taken = 0u64;
    for i in 0..steps {
        let r = ratio(i);
        term *= r;
        sum += term;
        taken += 1;
        if r < 1.0 && term * r / (1.0 - r) <= 1e-17 * sum {
            break;
        }
    }
    let ln_sum = sum.ln();
    let exponent = ln_first + ln_sum;
    let value = exponent.exp();
    let taken = taken as f64;
    let relative =
        2.0 * (U64 * (7.0 * taken + ln_first.abs() + ln_sum.abs() + exponent.abs() + 3.0) + 1e-17);
    Tail {
        value,
        error: value * relative,
    }
}

/// `P[Bin(n, q) >= k]`, the upper tail of the binomial distribution.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `k > n` or `q` is not in [0, 1].
///
/// # Example
/// ```
/// use boundgate_verify::stats::binomial_tail;
/// // P[Bin(10, 1/2) >= 8] = (45 + 10 + 1) / 1024
/// assert!((binomial_tail(8, 10, 0.5).unwrap() - 56.0 / 1024.0).abs() < 1e-15);
/// assert_eq!(binomial_tail(0, 10, 0.3).unwrap(), 1.0);
/// ```
pub fn binomial_tail(k: u64, n: u64, q: f64) -> Result<f64> {
    if k > n {
        return Err(VerifyError::invalid(
            "k",
            k,
            format!("more successes than trials ({n})"),
        ));
    }
    if !(0.0..=1.0).contains(&q) {
        return Err(VerifyError::invalid(
            "q",
            q,
            "a probability must be in [0, 1]",
        ));
    }
    Ok(tail_ge(k, n, q))
}

fn tail_ge(k: u64, n: u64, q: f64) -> f64 {
    BinomialTail::new(k, n).with_error(q).value
}

/// `q -> P[Bin(n, q) >= k]` for fixed `k` and `n`, with the binomial
/// coefficients (the costly `ln Gamma`s) computed once.
struct BinomialTail {
    k: u64,
    n: u64,
    /// `ln C(n, k)` and `ln C(n, k - 1)` (the first terms of the two sums).
    ln_choose: Option<(Float, Float)>,
}

impl BinomialTail {
    fn new(k: u64, n: u64) -> BinomialTail {
        let ln_choose = (k >= 1).then(|| {
            let at_k = ln_choose(n, k);
            // C(n, k-1) = C(n, k) k / (n - k + 1)
            let mut below = at_k.clone();
            below += Float::with_val(LN_GAMMA_PREC, k).ln();
            below -= Float::with_val(LN_GAMMA_PREC, n - k + 1).ln();
            (at_k, below)
        });
        BinomialTail { k, n, ln_choose }
    }

    fn with_error(&self, q: f64) -> Tail {
        let tail = match self.summed(q) {
            Summed::Upper(tail) => tail,
            Summed::Lower(below) => Tail {
                value: 1.0 - below.value,
                error: below.error + U64,
            },
        };
        Tail {
            value: tail.value.clamp(0.0, 1.0),
            error: tail.error,
        }
    }

    /// Whether `P[X >= k] >= upper` at `q`, where `lower` is `1 - upper`
    /// (each given as accurately as the caller has it): decided on the sum
    /// that is computed directly, the upper tail against `upper` or the lower
    /// tail against `lower`, never on a complement `1 - sum`. A complement
    /// rounds to `2^-54` absolute, which is a large relative error in a level
    /// near 0 (a Clopper-Pearson bound at a confidence near 1, where the
    /// level of the lower tail is `1 - c`; review, 2026-11-29).
    fn reaches(&self, q: f64, upper: f64, lower: f64) -> bool {
        match self.summed(q) {
            Summed::Upper(tail) => tail.value >= upper,
            Summed::Lower(below) => below.value <= lower,
        }
    }

    /// The sum of binomial probabilities away from the mean at `q`: the
    /// upper tail `P[X >= k]` when `k` is above the mean, else the lower
    /// tail `P[X <= k - 1]` (accurate relatively, each of them, where the
    /// complement is only accurate absolutely).
    fn summed(&self, q: f64) -> Summed {
        let (k, n) = (self.k, self.n);
        let exact = |value| Summed::Upper(Tail { value, error: 0.0 });
        let Some((ln_choose_k, ln_choose_below)) = &self.ln_choose else {
            return exact(1.0); // k = 0
        };
        if q == 1.0 {
            return exact(1.0);
        }
        if q == 0.0 {
            return exact(0.0);
        }
        let odds = q / (1.0 - q);
        if (k as f64) > n as f64 * q {
            // Above the mean: sum P[X = j], j = k, k+1, ... (decreasing terms).
            Summed::Upper(geometric_tail(ln_pmf(ln_choose_k, k, n, q), n - k, |i| {
                let j = k + i;
                (n - j) as f64 / (j + 1) as f64 * odds
            }))
        } else {
            // At or below the mean: P[X <= k-1], summed j = k-1, k-2, ...
            Summed::Lower(geometric_tail(
                ln_pmf(ln_choose_below, k - 1, n, q),
                k - 1,
                |i| {
                    let j = k - 1 - i;
                    j as f64 / (n - j + 1) as f64 / odds
                },
            ))
        }
    }
}

/// Which tail [`BinomialTail::summed`] computed directly.
enum Summed {
    /// `P[X >= k]`.
    Upper(Tail),
    /// `P[X <= k - 1]`.
    Lower(Tail),
}

/// The smallest `x` in [0, 1] where `reached(x)` holds, for `reached`
/// false then true as `x` grows (true at 1); bisection on the ordered bit
/// patterns of non-negative `f64`s, so the answer is resolved to one ulp
/// whatever its magnitude.
fn smallest_reaching(reached: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (0u64, 1.0f64.to_bits());
    if reached(0.0) {
        return 0.0;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if reached(f64::from_bits(mid)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    f64::from_bits(hi)
}

fn check_counts(k: u64, n: u64) -> Result<()> {
    if n == 0 {
        return Err(VerifyError::invalid(
            "trials",
            n,
            "at least one trial is needed",
        ));
    }
    if k > n {
        return Err(VerifyError::invalid(
            "violations",
            k,
            format!("more than the {n} trials"),
        ));
    }
    Ok(())
}

/// Refuses a confidence outside (0, 1).
pub(crate) fn check_confidence(confidence: f64) -> Result<()> {
    if confidence > 0.0 && confidence < 1.0 {
        Ok(())
    } else {
        Err(VerifyError::invalid(
            "confidence",
            confidence,
            "must be in the open interval (0, 1)",
        ))
    }
}

/// One-sided Clopper-Pearson upper confidence bound on a binomial proportion:
/// the rate `x` with `P[Bin(n, x) <= k] = 1 - confidence` (1 when `k = n`);
/// equivalently `Beta^-1(confidence; k + 1, n - k)`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `n = 0`, `k > n` or `confidence` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::stats::clopper_pearson_upper;
/// // No event in 10 trials: the 95% upper bound is 1 - 0.05^(1/10).
/// let up = clopper_pearson_upper(0, 10, 0.95).unwrap();
/// assert!((up - (1.0 - 0.05f64.powf(0.1))).abs() < 1e-14);
/// ```
pub fn clopper_pearson_upper(k: u64, n: u64, confidence: f64) -> Result<f64> {
    check_counts(k, n)?;
    check_confidence(confidence)?;
    if k == n {
        return Ok(1.0);
    }
    // P[X <= k] = 1 - c  <=>  P[X >= k + 1] = c, increasing in x; decided
    // on P[X <= k] <= 1 - c where that sum is the one computed (near the
    // bound for c >= 1/2), so a confidence near 1 keeps its accuracy.
    let tail = BinomialTail::new(k + 1, n);
    let alpha = 1.0 - confidence; // exact for c >= 1/2 (Sterbenz)
    Ok(smallest_reaching(|x| tail.reaches(x, confidence, alpha)))
}

/// One-sided Clopper-Pearson lower confidence bound on a binomial proportion:
/// the rate `x` with `P[Bin(n, x) >= k] = 1 - confidence` (0 when `k = 0`);
/// equivalently `Beta^-1(1 - confidence; k, n - k + 1)`.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `n = 0`, `k > n` or `confidence` is not in (0, 1).
///
/// # Example
/// ```
/// use boundgate_verify::stats::clopper_pearson_lower;
/// // All 10 trials are events: the 95% lower bound is 0.05^(1/10).
/// let lo = clopper_pearson_lower(10, 10, 0.95).unwrap();
/// assert!((lo - 0.05f64.powf(0.1)).abs() < 1e-14);
/// assert_eq!(clopper_pearson_lower(0, 10, 0.95).unwrap(), 0.0);
/// ```
pub fn clopper_pearson_lower(k: u64, n: u64, confidence: f64) -> Result<f64> {
    check_counts(k, n)?;
    check_confidence(confidence)?;
    if k == 0 {
        return Ok(0.0);
    }
    // P[X >= k] >= 1 - c, or P[X <= k - 1] <= c where that sum is the one
    // computed (near the bound only for c near 0).
    let tail = BinomialTail::new(k, n);
    Ok(smallest_reaching(|x| {
        tail.reaches(x, 1.0 - confidence, confidence)
    }))
}

/// The judgement of a probabilistic claim from a violation count.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct StatVerdict {
    /// Trials that violated the bound.
    pub violations: u64,
    /// Independent trials.
    pub trials: u64,
    /// The claimed lower bound on the probability that a trial holds.
    pub claimed_probability: f64,
    /// The violation rate the claim allows, `q = min(1, 1 - claimed_probability)`.
    pub allowed_rate: f64,
    /// Confidence of the test and of the two one-sided bounds below.
    pub confidence: f64,
    /// `violations / trials`.
    pub observed_rate: f64,
    /// One-sided Clopper-Pearson lower bound on the violation rate at `confidence`.
    pub rate_lower: f64,
    /// One-sided Clopper-Pearson upper bound on the violation rate at `confidence`.
    pub rate_upper: f64,
    /// `P[Bin(trials, allowed_rate) >= violations]`: how surprising the count
    /// is if the claim holds with equality.
    pub p_value: f64,
    /// The claim says nothing (`claimed_probability <= 0`).
    pub vacuous: bool,
    /// The count is consistent with the claim: `p_value >= 1 - confidence`
    /// (always true for a vacuous claim).
    pub consistent: bool,
}

// Each end is a one-sided bound at `confidence`; as an interval the pair
// covers only `2 confidence - 1`, so it is not printed as one (review,
// 2026-11-29).
impl fmt::Display for StatVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} violations in {} trials (rate {:.3e}; {}% one-sided CP bounds: above {:.3e}, below {:.3e}) vs allowed {:.3e}: p = {:.3e}, {}",
            self.violations,
            self.trials,
            self.observed_rate,
            self.confidence * 100.0,
            self.rate_lower,
            self.rate_upper,
            self.allowed_rate,
            self.p_value,
            match (self.vacuous, self.consistent) {
                (true, _) => "vacuous claim",
                (false, true) => "consistent",
                (false, false) => "REJECTED",
            }
        )
    }
}

/// Judges the claim "each trial violates with probability at most
/// `q = 1 - claimed_probability`" from `violations` out of `trials`
/// independent trials, by the one-sided exact binomial test at `confidence`.
/// The claim is rejected when `P[Bin(trials, q) >= violations] < 1 - confidence`,
/// i.e. when the Clopper-Pearson lower bound on the rate exceeds `q`.
/// A claim with `claimed_probability <= 0` is vacuous and always consistent.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] if `trials = 0`, `violations > trials`,
/// `confidence` is not in (0, 1), or `claimed_probability` is NaN or above 1.
///
/// # Example
/// ```
/// use boundgate_verify::stats::judge_violations;
/// // A bound holding with probability >= 0.99: 15 violations in 1000 trials
/// // is still plausible at 99.9% confidence, 30 is not.
/// assert!(judge_violations(15, 1000, 0.99, 0.999).unwrap().consistent);
/// let v = judge_violations(30, 1000, 0.99, 0.999).unwrap();
/// assert!(!v.consistent && v.rate_lower > 0.01);
/// assert!(judge_violations(1000, 1000, -0.5, 0.999).unwrap().vacuous);
/// ```
pub fn judge_violations(
    violations: u64,
    trials: u64,
    claimed_probability: f64,
    confidence: f64,
) -> Result<StatVerdict> {
    check_counts(violations, trials)?;
    check_confidence(confidence)?;
    if claimed_probability.is_nan() || claimed_probability > 1.0 {
        return Err(VerifyError::invalid(
            "claimed_probability",
            claimed_probability,
            "a probability must not be NaN or above 1",
        ));
    }
    let vacuous = claimed_probability <= 0.0;
    // Rounded up: the claim gets the benefit of the last bit.
    let allowed_rate = crate::bounds::directed::sub_up(1.0, claimed_probability).min(1.0);
    let tail = BinomialTail::new(violations, trials).with_error(allowed_rate);
    let p_value = tail.value;
    // Rejected only when the p-value is below 1 - c by more than both its
    // computed error bound and the fixed margin.
    let margin = tail.error.max(p_value * TAIL_RELATIVE_ERROR);
    Ok(StatVerdict {
        violations,
        trials,
        claimed_probability,
        allowed_rate,
        confidence,
        observed_rate: violations as f64 / trials as f64,
        rate_lower: clopper_pearson_lower(violations, trials, confidence)?,
        rate_upper: clopper_pearson_upper(violations, trials, confidence)?,
        p_value,
        vacuous,
        consistent: vacuous || p_value + margin >= 1.0 - confidence,
    })
}
