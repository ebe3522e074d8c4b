//! Judging a per-element claim over trials: "each output element violates its
//! bound with probability at most `q`", whatever the dependence between the
//! elements of one output.
//!
//! A trial-level test needs the probability that a whole output holds, which
//! for `m` elements is only `1 - m q` by a union bound: vacuous as soon as
//! `m q >= 1` (a 1024 x 8 GEMM with `q = 1e-3`). The per-element claim can
//! still be tested. In trial `t`, let `X_t = V_t / m_t` be the fraction of
//! its `m_t` elements that violate (`m_t` the output's size, fixed by its
//! shape; an element that cannot be judged counts as holding). By linearity `E[X_t] <= q` whatever
//! the dependence inside the trial, `X_t` lies in `[0, 1]`, and trials are
//! independent (distinct seeds). Hoeffding's inequality for bounded
//! variables (Hoeffding 1963, "Probability inequalities for sums of bounded
//! random variables", JASA 58(301), Theorem 1, eq. (2.1)) then gives, for a
//! mean fraction `x > q` over `T` trials,
//!
//! ```text
//! P[ mean X >= x ] <= exp(-T KL(x || q)),  KL(x || q) = x ln(x / q) + (1 - x) ln((1 - x) / (1 - q))
//! ```
//!
//! (for a fixed `x`, `KL(x || mu)` decreases as the true mean `mu` rises
//! towards `x`, so the bound is largest at the largest mean the claim allows
//! and `E[X_t] <= q` suffices). That is
//! the p-value bound used here; it is conservative (when every trial's
//! elements violate together it is the Chernoff bound of the binomial test).
//! Its power grows with the number of trials, not of elements, and must: if
//! the elements may fail all together, `T` trials are only `T` draws. With 20
//! trials it rejects once about one element in ten violates, both for
//! `q = 1e-3` at 99.9% confidence and for `q = 1e-2` at 95%. A claim is
//! rejected only when the p-value bound is below `1 - c` by more than the
//! [`TAIL_RELATIVE_ERROR`](super::TAIL_RELATIVE_ERROR) margin. For that
//! margin to cover the arithmetic, the bound is evaluated in MPFR
//! ([`P_VALUE_PREC`] bits) at the exact mean of the fractions, each rounded
//! once toward zero (so the mean used is never above the exact one, and the
//! bound, which decreases as the mean grows, never below), and rounded up:
//! near the boundary the two terms of `KL` cancel to about
//! `(x - q)^2 / (2 q (1 - q))`, which in binary64 amplified the rounding of
//! `ln(x / q)` to a relative error of 9e-11 in the p-value at `2^22` trials
//! and rejected a true claim on the boundary (review, 2026-11-26; a running
//! f64 sum of the fractions had the same effect before, 2026-11-25).

use super::{TAIL_RELATIVE_ERROR, check_confidence};
use crate::error::{Result, VerifyError};
use crate::oracle::ExactSum;
use rug::Float;
use rug::float::Round;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The judgement of a per-element claim over independent trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElementRateVerdict {
    /// Trials judged.
    pub trials: u64,
    /// Output elements, over all trials.
    pub elements: u64,
    /// Violating elements, over all trials.
    pub violating: u64,
    /// The per-element probability the bound claims (the smallest over trials).
    pub claimed_probability: f64,
    /// The per-element violation rate it allows, `q = min(1, 1 - claimed_probability)`.
    pub allowed_rate: f64,
    /// Confidence of the test.
    pub confidence: f64,
    /// The mean over trials of the fraction of violating elements.
    pub mean_fraction: f64,
    /// Hoeffding's bound on `P[mean fraction >= observed]` under the claim
    /// (1 when the observed mean is at most `q`).
    pub p_value_bound: f64,
    /// The claim says nothing (`claimed_probability <= 0`).
    pub vacuous: bool,
    /// The observed fractions are consistent with the claim:
    /// `p_value_bound >= 1 - confidence` (always true for a vacuous claim).
    pub consistent: bool,
}

impl fmt::Display for ElementRateVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} elements violate in {} trials (mean fraction {:.3e}) vs allowed {:.3e} per element: Hoeffding p <= {:.3e}, {}",
            self.violating,
            self.elements,
            self.trials,
            self.mean_fraction,
            self.allowed_rate,
            self.p_value_bound,
            match (self.vacuous, self.consistent) {
                (true, _) => "vacuous claim",
                (false, true) => "consistent",
                (false, false) => "REJECTED",
            }
        )
    }
}

/// One trial's count for [`judge_element_rate`]: `violating` of the output's
/// `elements` exceeded their bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementCounts {
    /// The output's size (at least 1), fixed by its shape. Elements that
    /// could not be judged (a non-finite exact value) count as holding: the
    /// fraction must not be taken over the judged ones, whose number depends
    /// on the data (2 elements, `q = 0.1`: if in one trial in five one element
    /// has no finite exact value and the other violates, each element
    /// violates with probability 0.1, but `violating / judged` averages 0.2;
    /// review, 2026-11-25).
    pub elements: u64,
    /// The elements that violate.
    pub violating: u64,
}

/// Precision of the Hoeffding p-value's evaluation: the cancellation in `KL`
/// near the boundary costs at most about `-log2((x - q)^2)` bits, under 130
/// for means and rates that are `f64` fractions of counts below 2^64.
pub const P_VALUE_PREC: u32 = 256;

/// `KL(x || q)` between Bernoulli distributions, for `0 <= x <= 1`,
/// `0 < q < 1` (`0 ln 0 = 0`), in MPFR at the precision of `x`.
fn bernoulli_kl(x: &Float, q: f64) -> Float {
    let prec = x.prec();
    let mut kl = Float::with_val(prec, 0);
    if *x > 0 {
        let ratio = Float::with_val(prec, x / q);
        kl += Float::with_val(prec, x * ratio.ln());
    }
    if *x < 1 {
        let ln1p_x = Float::with_val(prec, -x).ln_1p();
        let ln1p_q = Float::with_val(prec, -q).ln_1p();
        let one_minus_x = Float::with_val(prec, 1 - x);
        kl += one_minus_x * (ln1p_x - ln1p_q);
    }
    kl
}

/// Hoeffding's `exp(-T KL(x || q))` for the exact mean `x` (at most 1),
/// evaluated at [`P_VALUE_PREC`] bits and rounded up to `f64`.
fn hoeffding_p_value(mean: &Float, q: f64, trials: u64) -> f64 {
    let x = Float::with_val(P_VALUE_PREC, mean).min(&Float::with_val(P_VALUE_PREC, 1));
    let exponent = -(bernoulli_kl(&x, q) * trials);
    Float::with_val(P_VALUE_PREC, exponent.exp()).to_f64_round(Round::Up)
}

/// Judges "each element violates with probability at most
/// `q = 1 - claimed_probability`" from the counts of independent trials, by
/// Hoeffding's inequality on the mean fraction of violating elements (module
/// documentation). A claim with `claimed_probability <= 0` is vacuous and
/// always consistent; with `claimed_probability = 1` any violation rejects it.
/// [`ElementRateSums`] judges the same counts given one trial at a time.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for no trials, a trial with no elements
/// or more violating than it has, `confidence` outside (0, 1), or a
/// `claimed_probability` that is NaN or above 1.
///
/// # Example
/// ```
/// use boundgate_verify::stats::{ElementCounts, judge_element_rate};
/// // 20 trials of 8192 elements, each element claimed within its bound with
/// // probability 0.999: about 8 violating elements per trial is expected.
/// let fine = [ElementCounts { elements: 8192, violating: 9 }; 20];
/// assert!(judge_element_rate(&fine, 0.999, 0.999).unwrap().consistent);
/// // One element in ten is a hundred times the claim, and 20 trials show it.
/// // (One in a hundred would not: a test valid under any dependence between
/// // the elements sees 20 trials as 20 draws, module documentation.)
/// let bad = [ElementCounts { elements: 8192, violating: 820 }; 20];
/// let v = judge_element_rate(&bad, 0.999, 0.999).unwrap();
/// assert!(!v.consistent && v.p_value_bound < 1e-3);
/// ```
pub fn judge_element_rate(
    counts: &[ElementCounts],
    claimed_probability: f64,
    confidence: f64,
) -> Result<ElementRateVerdict> {
    let mut sums = ElementRateSums::new();
    for &c in counts {
        sums.add(c);
    }
    sums.judge(claimed_probability, confidence)
}

/// What [`judge_element_rate`] needs of a sequence of [`ElementCounts`],
/// accumulated one trial at a time: the number of trials, the total elements
/// and violating elements, and the exact sum of the per-trial fractions (each
/// rounded once toward zero), so the mean fraction is rounded once whatever
/// the number and order of the trials. (A running `f64` sum drifted by up to
/// `T u` relative: 2^24 trials moved a boundary p-value by about 5e-7
/// relative, far beyond the [`TAIL_RELATIVE_ERROR`] margin.) It holds a fixed
/// size whatever the number of trials (the audit runner streams a cell's
/// trials through it); [`judge_element_rate`] is a loop over it.
///
/// # Example
/// ```
/// use boundgate_verify::stats::{ElementCounts, ElementRateSums, judge_element_rate};
/// let counts = [
///     ElementCounts { elements: 8192, violating: 9 },
///     ElementCounts { elements: 8192, violating: 820 },
/// ];
/// let mut sums = ElementRateSums::new();
/// for &c in &counts {
///     sums.add(c);
/// }
/// assert_eq!(sums.trials(), 2);
/// assert_eq!(
///     sums.judge(0.999, 0.999).unwrap(),
///     judge_element_rate(&counts, 0.999, 0.999).unwrap()
/// );
/// ```
#[derive(Clone, Debug, Default)]
pub struct ElementRateSums {
    trials: u64,
    elements: u64,
    violating: u64,
    /// `sum RD(violating / elements)` over the trials, exactly (`RD`:
    /// rounded toward zero to binary64).
    fraction_sum: ExactSum,
    /// The first count with no elements or more violating than elements: the
    /// error [`ElementRateSums::judge`] reports (such counts are not summed).
    first_invalid: Option<ElementCounts>,
}

/// Equal counts and exactly equal fraction sums.
impl PartialEq for ElementRateSums {
    fn eq(&self, other: &ElementRateSums) -> bool {
        (
            self.trials,
            self.elements,
            self.violating,
            self.first_invalid,
        ) == (
            other.trials,
            other.elements,
            other.violating,
            other.first_invalid,
        ) && self.fraction_sum.to_float() == other.fraction_sum.to_float()
    }
}

/// `violating / elements` rounded toward zero to binary64, in one rounding
/// (MPFR divides the exact 64-bit count; `as f64` would round counts above
/// 2^53 first). Rounded down, not to nearest, so that the mean of the
/// fractions never exceeds the exact mean: Hoeffding's bound decreases as
/// the mean grows, and a fraction rounded up by half an ulp in every trial
/// lowered the p-value by about `T KL'(x) u` relative, 4e-12 at 2^22 trials
/// for `q = 0.99`, past the [`TAIL_RELATIVE_ERROR`] margin, rejecting a
/// claim the exact mean keeps (review, 2026-11-29).
fn fraction_down(violating: u64, elements: u64) -> f64 {
    let count = Float::with_val(64, violating); // exact: 64 bits hold any u64
    Float::with_val_round(53, &count / elements, Round::Down)
        .0
        .to_f64()
}

impl ElementRateSums {
    /// No trials yet.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::stats::ElementRateSums;
    /// let sums = ElementRateSums::new();
    /// assert_eq!(sums.trials(), 0);
    /// assert!(sums.judge(0.9, 0.99).is_err()); // no trials to judge
    /// ```
    pub fn new() -> ElementRateSums {
        ElementRateSums::default()
    }

    /// Adds one trial's counts.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::stats::{ElementCounts, ElementRateSums};
    /// let mut sums = ElementRateSums::new();
    /// sums.add(ElementCounts { elements: 10, violating: 1 });
    /// assert_eq!(sums.trials(), 1);
    /// ```
    pub fn add(&mut self, counts: ElementCounts) {
        self.trials += 1;
        if counts.elements == 0 || counts.violating > counts.elements {
            self.first_invalid.get_or_insert(counts);
            return;
        }
        // Totals only reported; saturating rather than wrapping for counts
        // beyond 2^64 (the audit's are below 2^52).
        self.elements = self.elements.saturating_add(counts.elements);
        self.violating = self.violating.saturating_add(counts.violating);
        self.fraction_sum
            .add(fraction_down(counts.violating, counts.elements));
    }

    /// The exact sum of the fractions over the trials, rounded once to
    /// nearest (`0` before any trial).
    fn mean_fraction(&self) -> f64 {
        // A mean of fractions in [2^-64, 1] over fewer than 2^64 trials is a
        // normal f64, so the conversion of the 53-bit quotient is exact.
        self.exact_mean_over(53, Round::Nearest).to_f64()
    }

    /// The mean of the fractions at [`P_VALUE_PREC`] bits: the exact sum
    /// (an MPFR number) over the trials, rounded once to that precision,
    /// toward zero like the fractions (the p-value is taken at a mean never
    /// above the exact one, [`fraction_down`]).
    fn exact_mean(&self) -> Float {
        self.exact_mean_over(P_VALUE_PREC, Round::Down)
    }

    fn exact_mean_over(&self, prec: u32, round: Round) -> Float {
        match self.fraction_sum.to_float() {
            Some(sum) if self.trials > 0 => {
                Float::with_val_round(prec, &sum / self.trials, round).0
            }
            _ => Float::with_val(prec, 0),
        }
    }

    /// The trials added so far.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::stats::{ElementCounts, ElementRateSums};
    /// let mut sums = ElementRateSums::new();
    /// sums.add(ElementCounts { elements: 3, violating: 0 });
    /// sums.add(ElementCounts { elements: 3, violating: 3 });
    /// assert_eq!(sums.trials(), 2);
    /// ```
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Judges the trials added so far, as [`judge_element_rate`] judges them
    /// given as a slice (same verdict, same errors).
    ///
    /// # Errors
    /// As [`judge_element_rate`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::stats::{ElementCounts, ElementRateSums};
    /// let mut sums = ElementRateSums::new();
    /// for _ in 0..20 {
    ///     sums.add(ElementCounts { elements: 8192, violating: 820 });
    /// }
    /// assert!(!sums.judge(0.999, 0.999).unwrap().consistent);
    /// ```
    pub fn judge(&self, claimed_probability: f64, confidence: f64) -> Result<ElementRateVerdict> {
        check_confidence(confidence)?;
        if self.trials == 0 {
            return Err(VerifyError::invalid(
                "trials",
                0,
                "at least one trial is needed",
            ));
        }
        if let Some(c) = self.first_invalid {
            return Err(VerifyError::invalid(
                "element counts",
                format!("{} of {}", c.violating, c.elements),
                "a trial needs elements, and no more violating than it has",
            ));
        }
        if claimed_probability.is_nan() || claimed_probability > 1.0 {
            return Err(VerifyError::invalid(
                "claimed_probability",
                claimed_probability,
                "a probability must not be NaN or above 1",
            ));
        }
        let trials = self.trials;
        let (elements, violating) = (self.elements, self.violating);
        let mean_fraction = self.mean_fraction();
        let vacuous = claimed_probability <= 0.0;
        // Rounded up: the claim gets the benefit of the last bit.
        let allowed_rate = crate::bounds::directed::sub_up(1.0, claimed_probability).min(1.0);
        // Compared at the precision the p-value is computed at: a mean just
        // below q that rounds above it in 53 bits would give Hoeffding an
        // x < q, outside its range (review, 2026-11-26).
        let mean = self.exact_mean();
        let p_value_bound = if mean <= allowed_rate || vacuous {
            1.0
        } else if allowed_rate == 0.0 {
            0.0 // a deterministic claim and a violation
        } else {
            hoeffding_p_value(&mean, allowed_rate, trials)
        };
        Ok(ElementRateVerdict {
            trials,
            elements,
            violating,
            claimed_probability,
            allowed_rate,
            confidence,
            mean_fraction,
            p_value_bound,
            vacuous,
            consistent: vacuous || p_value_bound * (1.0 + TAIL_RELATIVE_ERROR) >= 1.0 - confidence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(elements: u64, violating: &[u64]) -> Vec<ElementCounts> {
        violating
            .iter()
            .map(|&v| ElementCounts {
                elements,
                violating: v,
            })
            .collect()
    }

    #[test]
    fn kl_matches_its_definition() {
        let kl = |x: f64, q: f64| bernoulli_kl(&Float::with_val(P_VALUE_PREC, x), q).to_f64();
        let (x, q) = (0.3f64, 0.1f64);
        let want = x * (x / q).ln() + (1.0 - x) * ((1.0 - x) / (1.0 - q)).ln();
        assert!((kl(x, q) - want).abs() < 1e-15);
        assert_eq!(kl(0.1, 0.1), 0.0);
        // Endpoints: KL(0 || q) = -ln(1 - q), KL(1 || q) = -ln q.
        assert!((kl(0.0, 0.25) + 0.75f64.ln()).abs() < 1e-15);
        assert!((kl(1.0, 0.25) + 0.25f64.ln()).abs() < 1e-15);
    }

    /// Found by review (2026-11-26): 2^24 trials of 2^28 elements, a claim
    /// of 0.9 at confidence 0.999, whose p-value at the exact mean is
    /// 1.00000000005435e-3 (256-bit MPFR, the reviewer's): consistent. The
    /// binary64 KL gave 9.999999999035e-4, 1e-10 low, beyond the 1e-12
    /// margin, and rejected it. The same at 2^22 trials (exact
    /// 1.00000000003186e-3, binary64 9.9999999999037e-4).
    #[test]
    fn a_claim_on_the_boundary_is_not_rejected_by_cancellation_in_kl() {
        for (trials_log2, usual, last, exact) in [
            (24, 26_916_651, 55_872_574, 1.00000000005435e-3),
            (22, 26_989_817, 34_255_744, 1.00000000003186e-3),
        ] {
            let mut sums = ElementRateSums::new();
            for _ in 1..(1u64 << trials_log2) {
                sums.add(ElementCounts {
                    elements: 1 << 28,
                    violating: usual,
                });
            }
            sums.add(ElementCounts {
                elements: 1 << 28,
                violating: last,
            });
            let v = sums.judge(0.9, 0.999).unwrap();
            assert!(v.consistent, "2^{trials_log2} trials: {v}");
            // The bound is the exact one rounded up (to the digits given).
            assert!(
                (v.p_value_bound / exact - 1.0).abs() < 1e-13,
                "{:e}",
                v.p_value_bound
            );
        }
    }

    #[test]
    fn whole_outputs_failing_together_reduce_to_the_chernoff_bound() {
        // Every element of a trial violates together: X_t is Bernoulli, and
        // all T trials failing has probability q^T exactly, which is the bound.
        let v = judge_element_rate(&counts(50, &[50; 3]), 0.9, 0.999).unwrap();
        assert!(
            (v.p_value_bound - 1e-3).abs() < 1e-15,
            "{}",
            v.p_value_bound
        );
        assert!(v.consistent, "p = 1e-3 is not below 1 - c = 1e-3");
        let v = judge_element_rate(&counts(50, &[50; 4]), 0.9, 0.999).unwrap();
        assert!(!v.consistent);
    }

    #[test]
    fn rates_at_or_below_the_claim_are_consistent() {
        let v = judge_element_rate(&counts(1000, &[1, 0, 2, 1]), 0.999, 0.999).unwrap();
        assert_eq!((v.violating, v.elements, v.p_value_bound), (4, 4000, 1.0));
        assert!(v.consistent);
    }

    #[test]
    fn deterministic_and_vacuous_claims() {
        let one = judge_element_rate(&counts(10, &[0, 1]), 1.0, 0.999).unwrap();
        assert!(!one.consistent && one.p_value_bound == 0.0);
        let none = judge_element_rate(&counts(10, &[10, 10]), -3.0, 0.999).unwrap();
        assert!(none.vacuous && none.consistent);
    }

    /// Both forms, verdicts and errors alike.
    fn both_ways(counts: &[ElementCounts], claimed: f64, confidence: f64) -> (String, String) {
        let mut sums = ElementRateSums::new();
        for &c in counts {
            sums.add(c);
        }
        let show = |r: Result<ElementRateVerdict>| match r {
            // Debug prints every f64 to the bit (shortest round-trip form).
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        };
        (
            show(judge_element_rate(counts, claimed, confidence)),
            show(sums.judge(claimed, confidence)),
        )
    }

    #[test]
    fn streamed_sums_judge_as_the_slice_does() {
        let mixed = [
            ElementCounts {
                elements: 7,
                violating: 3,
            },
            ElementCounts {
                elements: 1,
                violating: 0,
            },
            ElementCounts {
                elements: 1000,
                violating: 999,
            },
            ElementCounts {
                elements: 3,
                violating: 1,
            },
        ];
        let cases: [(&[ElementCounts], f64, f64); 12] = [
            (&mixed, 0.9, 0.99),
            (&mixed, 0.999, 0.999),
            (&mixed, 1.0, 0.999),
            (&mixed, -2.0, 0.999),
            (&mixed, f64::NAN, 0.99),
            (&mixed, 0.9, 1.0),
            (&counts(1000, &[0; 5]), 0.999, 0.99),
            (&counts(50, &[50; 4]), 0.9, 0.999),
            (&counts(8192, &[820; 20]), 0.999, 0.999),
            (&[], 0.9, 0.99),
            (&counts(3, &[1, 4, 5]), 0.9, 0.99),
            (&counts(0, &[0]), 0.9, 0.99),
        ];
        for (counts, claimed, confidence) in cases {
            let (slice, streamed) = both_ways(counts, claimed, confidence);
            assert_eq!(slice, streamed, "{counts:?} p = {claimed} c = {confidence}");
        }
        // Thirty inexact fractions: both sum them exactly.
        let thirds: Vec<_> = (1..=30)
            .map(|v| ElementCounts {
                elements: 31,
                violating: v,
            })
            .collect();
        let (slice, streamed) = both_ways(&thirds, 0.5, 0.99);
        assert_eq!(slice, streamed);
        let mut sums = ElementRateSums::new();
        for &c in &thirds {
            sums.add(c);
        }
        let v = sums.judge(0.5, 0.99).unwrap();
        assert_eq!(
            v.mean_fraction.to_bits(),
            judge_element_rate(&thirds, 0.5, 0.99)
                .unwrap()
                .mean_fraction
                .to_bits()
        );
    }

    #[test]
    fn the_mean_fraction_is_rounded_once_whatever_the_number_of_trials() {
        // 10^6 trials of 1 in 3: the exact mean of fl(1/3) is fl(1/3). A
        // running f64 sum drifts (the test shows it does), and the drift
        // grows with the trials.
        let third = ElementCounts {
            elements: 3,
            violating: 1,
        };
        let trials = 1_000_000u32;
        let naive = (0..trials).fold(0.0f64, |s, _| s + 1.0 / 3.0) / f64::from(trials);
        assert_ne!(naive, 1.0 / 3.0);
        let mut sums = ElementRateSums::new();
        for _ in 0..trials {
            sums.add(third);
        }
        let v = sums.judge(0.5, 0.99).unwrap();
        assert_eq!(v.mean_fraction.to_bits(), (1.0f64 / 3.0).to_bits());
        // Order does not matter either: 1/7 and 6/7 alternately average 1/2
        // only up to the two roundings of the fractions, exactly once summed.
        // (1/3, 1/7 and 6/7 all round to nearest downwards, so the binary64
        // quotients below are also the fractions rounded toward zero.)
        let mut sums = ElementRateSums::new();
        for k in 0..1000u64 {
            sums.add(ElementCounts {
                elements: 7,
                violating: if k % 2 == 0 { 1 } else { 6 },
            });
        }
        let exact = (1.0f64 / 7.0 + 6.0 / 7.0) / 2.0;
        assert_eq!(sums.judge(0.5, 0.99).unwrap().mean_fraction, exact);
    }

    /// `fraction_down` is the quotient rounded toward zero, for counts
    /// beyond 2^53 too (where `as f64` rounds the counts first): checked
    /// exactly with rug's rationals, on counts from a fixed-seed SplitMix64.
    #[test]
    fn fractions_are_rounded_toward_zero_exactly() {
        let mut next = crate::splitmix64(0x5eed_0003);
        for i in 0..20_000 {
            let elements = (next() >> (i % 64)).max(1);
            let violating = (next() % elements.saturating_add(1)).min(elements);
            let got = fraction_down(violating, elements);
            let exact = rug::Rational::from((violating, elements));
            let below = rug::Rational::from_f64(got).unwrap();
            let above = rug::Rational::from_f64(got.next_up()).unwrap();
            assert!(
                below <= exact && exact < above,
                "{violating} / {elements}: {got:e}"
            );
        }
        assert_eq!(fraction_down(u64::MAX, u64::MAX), 1.0);
        assert_eq!(fraction_down(u64::MAX - 1, u64::MAX), 1f64.next_down());
    }

    #[test]
    fn bad_counts_are_refused() {
        assert!(judge_element_rate(&[], 0.9, 0.99).is_err());
        assert!(judge_element_rate(&counts(0, &[0]), 0.9, 0.99).is_err());
        assert!(judge_element_rate(&counts(3, &[4]), 0.9, 0.99).is_err());
        assert!(judge_element_rate(&counts(3, &[1]), f64::NAN, 0.99).is_err());
        assert!(judge_element_rate(&counts(3, &[1]), 0.9, 1.0).is_err());
    }
}
