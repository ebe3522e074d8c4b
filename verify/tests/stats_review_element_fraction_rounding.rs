//! The per-element judgement's p-value bound must not fall below Hoeffding's
//! bound at the EXACT mean fraction (review, 2026-11-29).
//!
//! Hoeffding (1963, "Probability inequalities for sums of bounded random
//! variables", JASA 58(301), Theorem 1, eq. (2.1)) bounds
//! `P[mean X >= x] <= exp(-T KL(x || q))` for independent `X_t` in [0, 1]
//! with mean at most `q < x`. The bound decreases as `x` grows, so a mean
//! computed ABOVE the exact `sum_t (V_t / m_t) / T` gives a p-value below the
//! rigorous one. Each fraction `V_t / m_t` was rounded to nearest: up by as
//! much as half an ulp. With every trial alike the computed mean is that
//! rounded fraction, and the p-value at it is lower by about
//! `T KL'(x) u`, which grows with `T`: 4e-12 relative at 2^22 trials for a
//! claim of 0.01 (`q = 0.99`), beyond the 1e-12 margin that is there to
//! cover the arithmetic, so a claim consistent with the exact data was
//! rejected. The reference here is the exact rational mean, the KL and the
//! exponential in 512-bit MPFR.

use boundgate_verify::stats::{ElementCounts, ElementRateSums};
use rug::float::Round;
use rug::{Float, Rational};

const PREC: u32 = 512;

/// `KL(x || q)` between Bernoulli distributions in MPFR, for `0 < x < 1`.
fn kl(x: &Float, q: f64) -> Float {
    let first = Float::with_val(PREC, x * Float::with_val(PREC, x / q).ln());
    let ln1mx = Float::with_val(PREC, -x).ln_1p();
    let ln1mq = Float::with_val(PREC, -q).ln_1p();
    first + Float::with_val(PREC, 1 - x) * (ln1mx - ln1mq)
}

#[test]
fn fractions_rounded_up_do_not_reject_a_claim_the_exact_mean_keeps() {
    let elements: u64 = 1_000_000_007; // prime: no fraction V / m is a dyadic
    for (claimed, trials_log2) in [(0.01f64, 22), (0.1, 24)] {
        let trials = 1u64 << trials_log2;
        // A mean above q by about the 1e-3 boundary:
        // T (x - q)^2 / (2 q (1 - q)) = ln 1000.
        let q = 1.0 - claimed;
        let excess = (2.0 * q * (1.0 - q) * 1000f64.ln() / trials as f64).sqrt();
        let centre = ((q + excess) * elements as f64) as u64;
        // The count nearby whose fraction rounds to nearest upwards the most
        // (deterministic: a scan of 4000 counts, exactly in rug).
        let (violating, up) = (centre - 2000..centre + 2000)
            .map(|v| {
                let exact = Rational::from((v, elements));
                let nearest = Float::with_val(53, &exact);
                (v, nearest.to_rational().unwrap() - exact)
            })
            .max_by(|a, b| a.1.cmp(&b.1))
            .unwrap();
        assert!(up > 0, "the scan found a fraction rounded up");
        let mut sums = ElementRateSums::new();
        for _ in 0..trials {
            sums.add(ElementCounts {
                elements,
                violating,
            });
        }
        // Hoeffding at the exact mean (every trial alike: V / m itself).
        let probe = sums.judge(claimed, 0.5).unwrap();
        let x = Float::with_val(PREC, Rational::from((violating, elements)));
        let exact_p = Float::with_val(PREC, -(kl(&x, probe.allowed_rate) * trials)).exp();
        // The confidence whose 1 - c is just at or below the exact p-value
        // (1 - c is exact for c >= 1/2), so the claim is consistent.
        let (confidence, _) = Float::with_val_round(53, 1 - exact_p.clone(), Round::Up);
        let confidence = confidence.to_f64();
        assert!(1.0 - confidence <= exact_p && 1.0 - confidence > 0.5e-3);
        let v = sums.judge(claimed, confidence).unwrap();
        assert!(v.consistent, "{claimed}, 2^{trials_log2} trials: {v}");
        assert!(
            v.p_value_bound >= exact_p.to_f64_round(Round::Down),
            "{claimed}, 2^{trials_log2} trials: p-value bound {:e} below Hoeffding's at the exact mean {:e} (relative {:e})",
            v.p_value_bound,
            exact_p.to_f64(),
            v.p_value_bound / exact_p.to_f64() - 1.0
        );
        // ... and it is not loose: at most one ulp of each fraction away.
        assert!(
            v.p_value_bound <= exact_p.to_f64() * (1.0 + 1e-10),
            "{:e} vs {:e}",
            v.p_value_bound,
            exact_p.to_f64()
        );
    }
}
