//! The probabilistic bounds as statistical claims, tested by simulation.
//!
//! Model simulation: `delta_i` iid uniform on `[-u, u]`, `theta_n =
//! prod (1 + delta_i)^rho_i - 1` for three sign patterns (`rho_i = +1`, `-1`,
//! alternating). Each constant claims `P(|theta_n| <= gamma~) >= p`; over `N`
//! independent trials the violation count is judged with the one-sided
//! Clopper-Pearson test of `stats.rs` at 99.9% confidence.
//!
//! `theta_n` is not formed: `|theta_n| > gamma~` iff the exponent
//! `s = sum rho_i ln(1 + delta_i)` is above `ln(1 + gamma~)` or below
//! `ln(1 - gamma~)`, thresholds computed with directed rounding. `s` is summed
//! in f64 from `f64::ln_1p`; with `|ln(1 + delta)| <= L = -ln(1 - u)`, its error
//! is at most `n L 2^-51` (ln_1p within 2 ulps, generously) plus `n^2 L 2^-53`
//! (recursive summation, Higham 2002 (4.4)); we double that. For
//! `u >= 2^-24` and `n <= 10^4` it is below 1e-9 of the thresholds'
//! distance from 0 (`t = lambda sqrt(n) u`), and a trial whose `s` lies within
//! it of a threshold is counted as "ambiguous": as a violation when testing
//! that a bound holds, as a non-violation when testing that it fails (so both
//! kinds of assertion are conservative). No ambiguous trial occurred at the
//! committed seeds.
//!
//! Set BOUNDGATE_HEAVY=1 for 20 times more trials and n up to 10^4.
//!
//! Real-rounding simulation: recursive fp16 summation of U[0, 1) data with
//! correctly rounded fp16 additions, measuring each operation's relative
//! error, to see whether the iid mean-zero model is plausible there.

use boundgate_verify::bounds::directed::{ln1p_down, ln1p_up};
use boundgate_verify::bounds::probabilistic::{
    bhola_lambda, higham_mary_gamma, higham_mary_lambda, vibea_gamma, vibea_gamma_authors_centred,
    vibea_gamma_first_order,
};
use boundgate_verify::bounds::{Bound, Kind};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::stats::{StatVerdict, judge_violations};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CONFIDENCE: f64 = 0.999;

fn heavy() -> bool {
    std::env::var_os("BOUNDGATE_HEAVY").is_some()
}

/// `delta` uniform on `[-u, u]`: `u k 2^-53` for an odd `k` in `(-2^53, 2^53)`,
/// all equally likely. Exact in f64, symmetric, mean exactly zero; it differs
/// from the continuous uniform by at most `u 2^-53` in distribution.
fn uniform_delta(rng: &mut ChaCha8Rng, u: f64) -> f64 {
    let m = (rng.random::<u64>() >> 11) as i64;
    let k = 2 * m + 1 - (1i64 << 53);
    u * (k as f64) * 2f64.powi(-53)
}

/// The exponents `s = sum rho_i ln(1 + delta_i)` of one trial, for
/// `rho = +1` (index 0), `rho = -1` (1) and alternating signs (2).
fn trial_exponents(rng: &mut ChaCha8Rng, u: f64, n: u64) -> [f64; 3] {
    let (mut plus, mut alternating) = (0.0f64, 0.0f64);
    for i in 0..n {
        let l = uniform_delta(rng, u).ln_1p();
        plus += l;
        alternating += if i % 2 == 0 { l } else { -l };
    }
    [plus, -plus, alternating]
}

const PATTERNS: [&str; 3] = ["rho=+1", "rho=-1", "rho=+-1"];

/// Violation counts of one constant: certain violations and ambiguous trials.
#[derive(Default, Clone, Copy)]
struct Count {
    certain: u64,
    ambiguous: u64,
}

/// `ln(1 + gamma)` and `ln(1 - gamma)`, each rounded both ways: `|theta_n| > gamma`
/// iff the exponent is above the first or below the second.
#[derive(Clone, Copy)]
struct Thresholds {
    upper: (f64, f64),
    lower: (f64, f64),
}

impl Thresholds {
    fn new(gamma: f64) -> Thresholds {
        // Below ln(1 - gamma) only matters when gamma < 1 (theta > -1 always).
        let lower = if gamma < 1.0 {
            (ln1p_down(-gamma), ln1p_up(-gamma))
        } else {
            (f64::NEG_INFINITY, f64::NEG_INFINITY)
        };
        Thresholds {
            upper: (ln1p_down(gamma), ln1p_up(gamma)),
            lower,
        }
    }

    /// Classifies `|theta_n| > gamma` from the exponent `s` known within `err`.
    fn classify(&self, s: f64, err: f64, count: &mut Count) {
        let certainly_violates = s - err > self.upper.1 || s + err < self.lower.0;
        let certainly_holds = s + err <= self.upper.0 && s - err >= self.lower.1;
        if certainly_violates {
            count.certain += 1;
        } else if !certainly_holds {
            count.ambiguous += 1;
        }
    }
}

fn probability(b: &Bound) -> f64 {
    match b.kind {
        Kind::Probabilistic { probability } => probability,
        Kind::Deterministic => 1.0,
    }
}

struct Claim {
    name: &'static str,
    bound: Bound,
    thresholds: Thresholds,
    counts: [Count; 3],
}

struct CaseResult {
    u: f64,
    n: u64,
    target: f64,
    trials: u64,
    claims: Vec<Claim>,
}

impl CaseResult {
    /// Judged with ambiguous trials counted as violations (testing that a bound holds).
    fn judge_holds(&self, claim: &Claim, pattern: usize) -> StatVerdict {
        let c = claim.counts[pattern];
        judge_violations(
            c.certain + c.ambiguous,
            self.trials,
            probability(&claim.bound),
            CONFIDENCE,
        )
        .unwrap()
    }

    /// Judged with ambiguous trials counted as holding (testing that a bound fails).
    fn judge_fails(&self, claim: &Claim, pattern: usize) -> StatVerdict {
        let c = claim.counts[pattern];
        judge_violations(
            c.certain,
            self.trials,
            probability(&claim.bound),
            CONFIDENCE,
        )
        .unwrap()
    }

    fn claim(&self, name: &str) -> &Claim {
        self.claims.iter().find(|c| c.name == name).unwrap()
    }

    fn print(&self) {
        for claim in &self.claims {
            for (pattern, name) in PATTERNS.iter().enumerate() {
                let c = claim.counts[pattern];
                println!(
                    "u=2^{} n={} target={} {:<14} gamma~={:.6e} {:<7} ambiguous={} | {}",
                    self.u.log2(),
                    self.n,
                    self.target,
                    claim.name,
                    claim.bound.value,
                    name,
                    c.ambiguous,
                    self.judge_fails(claim, pattern)
                );
            }
        }
    }
}

/// Simulates `trials` trials of `n` uniform rounding errors and counts, for
/// each target probability, the violations of the four constants.
fn simulate(seed: u64, u: f64, n: u64, trials: u64, targets: &[f64]) -> Vec<CaseResult> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ln_bound = -(-u).ln_1p();
    let nf = n as f64;
    let err = 2.0 * (nf * ln_bound * 2f64.powi(-51) + nf * nf * ln_bound * 2f64.powi(-53));
    let mut results: Vec<CaseResult> = targets
        .iter()
        .map(|&target| {
            let lambda_b = bhola_lambda(target, u, n).unwrap();
            let lambda_hm = higham_mary_lambda(target, u).unwrap();
            let claim = |name, bound: Bound| Claim {
                name,
                thresholds: Thresholds::new(bound.value),
                bound,
                counts: [Count::default(); 3],
            };
            CaseResult {
                u,
                n,
                target,
                trials,
                claims: vec![
                    claim("ours", vibea_gamma(n, u, lambda_b).unwrap()),
                    claim(
                        "authors",
                        vibea_gamma_authors_centred(n, u, lambda_b).unwrap(),
                    ),
                    claim(
                        "first-order",
                        vibea_gamma_first_order(n, u, lambda_b).unwrap(),
                    ),
                    claim("higham-mary", higham_mary_gamma(n, u, lambda_hm).unwrap()),
                ],
            }
        })
        .collect();
    for _ in 0..trials {
        let exponents = trial_exponents(&mut rng, u, n);
        for result in &mut results {
            for claim in &mut result.claims {
                for (pattern, &s) in exponents.iter().enumerate() {
                    claim
                        .thresholds
                        .classify(s, err, &mut claim.counts[pattern]);
                }
            }
        }
    }
    results
}

/// The paired constant (ours) and Higham-Mary's hold at their stated
/// probability for fp8-, bf16- and fp16-sized u, n = 10..1000 (10^4 heavy),
/// p = 0.9 and 0.99, every sign pattern: the violation counts are consistent
/// with the claims at 99.9% confidence (ambiguous trials counted as violations).
#[test]
fn paired_constant_and_higham_mary_hold_at_their_probability() {
    let trials = if heavy() { 200_000 } else { 10_000 };
    let sizes: &[u64] = if heavy() {
        &[10, 100, 1000, 10_000]
    } else {
        &[10, 100, 1000]
    };
    let mut total_ambiguous = 0;
    for (i, p) in [3, 4, 8, 11].into_iter().enumerate() {
        let u = 2f64.powi(-p);
        for (j, &n) in sizes.iter().enumerate() {
            let seed = 0xb0_0000 + 16 * i as u64 + j as u64;
            println!("seed {seed:#x}: u = 2^-{p}, n = {n}, {trials} trials");
            for result in simulate(seed, u, n, trials, &[0.9, 0.99]) {
                result.print();
                for name in ["ours", "higham-mary"] {
                    let claim = result.claim(name);
                    for (pattern, pattern_name) in PATTERNS.iter().enumerate() {
                        total_ambiguous += claim.counts[pattern].ambiguous;
                        let verdict = result.judge_holds(claim, pattern);
                        assert!(
                            verdict.consistent,
                            "{name} violated at u = 2^-{p}, n = {n}, target {}, {}: {verdict}",
                            result.target, pattern_name
                        );
                    }
                }
            }
        }
    }
    println!("ambiguous trials in total: {total_ambiguous}");
}

/// Simulates the cases and asserts that `constant` is rejected at 99.9%
/// confidence for `rho_i = -1` at each target (ambiguous trials counted as
/// holding, so the rejection is conservative), while our paired constant holds
/// in the same trials.
fn assert_constant_fails(constant: &str, targets: &[f64], cases: &[(u64, f64, u64, u64)]) {
    for &(seed, u, n, trials) in cases {
        let trials = if heavy() { 10 * trials } else { trials };
        println!("seed {seed:#x}: u = {u}, n = {n}, {trials} trials");
        for result in simulate(seed, u, n, trials, targets) {
            result.print();
            let verdict = result.judge_fails(result.claim(constant), 1);
            println!(
                "FINDING u = {u}, n = {n}, p_b = {}, rho = -1: {constant} {verdict}",
                result.target
            );
            assert!(
                !verdict.consistent,
                "expected {constant} to fail: {verdict}"
            );
            assert!(result.judge_holds(result.claim("ours"), 1).consistent);
        }
    }
}

/// FINDING: the first-order constant `lambda sqrt(n) u` that the authors'
/// arXiv v1 code pairs with `p_b` is violated far more often than `1 - p_b`
/// allows once `lambda sqrt(n) u` is not small: e5m2/e4m3-sized u = 2^-3 and
/// 2^-4 with n = 100 and 1000, `rho_i = -1` (division-like factors, where the
/// missing `exp(t) - 1 - t` and `n |mu|` terms act on the upper side).
#[test]
fn finding_first_order_constant_is_violated_beyond_one_minus_p_b() {
    assert_constant_fails(
        "first-order",
        &[0.9, 0.99],
        &[
            (0xf1_0001, 0.125, 100, 10_000),
            (0xf1_0002, 0.0625, 1000, 10_000),
        ],
    );
}

/// FINDING: the constant the authors' current code pairs with `p_b`,
/// `exp(lambda sqrt(n) u) - 1` (centred: it drops the mean drift `n |mu|`,
/// `|mu| ~ u^2/6`), is also violated beyond `1 - p_b` once `n |mu|` is
/// comparable to the spread `sqrt(n/3) u` of the exponent, i.e. `sqrt(n) u`
/// of order 1: u = 2^-3 with n = 3000 and u = 2^-4 with n = 10^4, `rho_i = -1`
/// (where the drift `+n |mu|` pushes `theta_n` up).
#[test]
fn finding_authors_centred_constant_is_violated_for_large_n() {
    assert_constant_fails(
        "authors",
        &[0.9, 0.99],
        &[
            (0xce_0001, 0.125, 3000, 3000),
            (0xce_0002, 0.0625, 10_000, 2000),
        ],
    );
}

/// The same finding for bf16 (u = 2^-8) with n = 2^20 at p_b = 0.99
/// (BOUNDGATE_HEAVY=1 only: 5000 trials of 2^20 terms). At p_b = 0.9 the
/// excess is too small to see with 5000 trials (510 violations, 10.2%).
#[test]
fn finding_authors_centred_constant_bf16_heavy() {
    if !heavy() {
        println!("skipped: set BOUNDGATE_HEAVY=1");
        return;
    }
    assert_constant_fails(
        "authors",
        &[0.99],
        &[(0xce_0003, 2f64.powi(-8), 1 << 20, 500)],
    );
}

// ---------------------------------------------------------------- real fp16 rounding

/// Relative errors of each addition in a recursive fp16 sum of `n` values
/// drawn from U[0, 1) and rounded to fp16, plus the forward relative error.
struct Fp16Sum {
    /// Sum of delta / u over the additions, and of (delta / u)^2.
    sum: f64,
    sum_sq: f64,
    exact_ops: u64,
    ops: u64,
    forward_relative_error: f64,
}

fn fp16_recursive_sum(rng: &mut ChaCha8Rng, n: u64) -> Fp16Sum {
    let (fp16, rne) = (Format::FP16, RoundingMode::NearestEven);
    let u = fp16.unit_roundoff(rne);
    let mut computed = fp16.round(rng.random::<f64>(), rne);
    let mut exact = computed; // fp16 values up to 2^16 in count: the f64 sum is exact
    let mut stats = Fp16Sum {
        sum: 0.0,
        sum_sq: 0.0,
        exact_ops: 0,
        ops: 0,
        forward_relative_error: 0.0,
    };
    for _ in 1..n {
        let x = fp16.round(rng.random::<f64>(), rne);
        let operation_exact = computed + x; // exact: two fp16 values
        let next = fp16.add(computed, x, rne);
        // next - operation_exact is exact (a rounding error of a 40-bit sum).
        let delta = (next - operation_exact) / operation_exact;
        stats.sum += delta / u;
        stats.sum_sq += (delta / u).powi(2);
        stats.exact_ops += u64::from(delta == 0.0);
        stats.ops += 1;
        computed = next;
        exact += x;
    }
    stats.forward_relative_error = (computed - exact).abs() / exact;
    stats
}

/// Half-width of a two-sided confidence interval at `1 - alpha` for the mean
/// of iid values in `[-1, 1]`: the empirical Bernstein bound of Maurer and
/// Pontil 2009 ("Empirical Bernstein bounds and sample variance
/// penalization", COLT, Theorem 4), applied to `(x + 1)/2` in [0, 1] on both
/// sides with `alpha / 2` each:
/// `sqrt(2 V ln(4/alpha) / T) + 14 ln(4/alpha) / (3 (T - 1))`, `V` the unbiased
/// sample variance. Rigorous (no normal approximation).
fn empirical_bernstein_half_width(values: &[f64], alpha: f64) -> f64 {
    let t = values.len() as f64;
    let mean = values.iter().sum::<f64>() / t;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (t - 1.0);
    let log_term = (4.0 / alpha).ln();
    (2.0 * variance * log_term / t).sqrt() + 14.0 * log_term / (3.0 * (t - 1.0))
}

/// Report-style: the relative errors of recursive fp16 summation of U[0, 1)
/// data. Before the sum reaches 2048 (n = 1000) their mean is zero within a
/// rigorous 99.9% interval (empirical Bernstein over independent trials, each
/// contributing its mean of delta/u in [-1, 1]), their second moment is BELOW
/// the uniform model's u^2/3 (the error is uniform on +-ulp/2 but
/// ulp/2 <= u |sum|), and Higham-Mary's summation bound holds. Past 2048
/// (n = 8192) fp16 stagnates: adding x < 1 to a sum >= 2048 (ulp 2) rounds
/// back to the sum, every delta is negative, the mean-zero assumption fails,
/// and the probabilistic bound `gamma~_{n-1}(lambda)` (union bound over the
/// n - 1 theta's, claim 0.99) is violated in every trial: the model, not the
/// bound, is what real data break.
#[test]
fn real_fp16_rounding_errors_versus_the_model() {
    let seed = 0xf16_0001u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let u = Format::FP16.unit_roundoff(RoundingMode::NearestEven);
    for (n, trials) in [(1000u64, 2000u64), (8192, 500)] {
        let trials = if heavy() { 10 * trials } else { trials };
        // Recursive summation: s^ = sum x_i (1 + theta^(i)), each theta^(i) a
        // product of at most n - 1 factors, so Higham and Mary 2019, Theorem 2.4
        // with a union bound over the n - 1 distinct theta's (as in their
        // Theorem 3.1 for inner products) gives |s^ - s| <= gamma~_{n-1}(lambda)
        // sum |x_i| with probability >= 1 - (n - 1)(1 - P(lambda)).
        let target = 0.99;
        let lambda = higham_mary_lambda(1.0 - (1.0 - target) / (n - 1) as f64, u).unwrap();
        let bound = higham_mary_gamma(n - 1, u, lambda).unwrap();
        let claimed = 1.0 - (n - 1) as f64 * (1.0 - probability(&bound));
        let (mut means, mut second_moment, mut exact_fraction, mut violations) =
            (Vec::new(), 0.0, 0.0, 0);
        for _ in 0..trials {
            let s = fp16_recursive_sum(&mut rng, n);
            means.push(s.sum / s.ops as f64);
            second_moment += s.sum_sq / s.ops as f64 / trials as f64;
            exact_fraction += s.exact_ops as f64 / s.ops as f64 / trials as f64;
            violations += u64::from(s.forward_relative_error > bound.value);
        }
        let mean = means.iter().sum::<f64>() / trials as f64;
        let half_width = empirical_bernstein_half_width(&means, 1.0 - CONFIDENCE);
        let verdict = judge_violations(violations, trials, claimed, CONFIDENCE).unwrap();
        println!(
            "n = {n}, {trials} trials: mean delta/u = {mean:+.5} (99.9% half-width {half_width:.5}), E[(delta/u)^2] = {second_moment:.4} (uniform model 1/3), exact operations {:.3}%, HM gamma~_{} = {:.4e}: {verdict}",
            100.0 * exact_fraction,
            n - 1,
            bound.value
        );
        if n == 1000 {
            assert!(
                mean.abs() <= half_width,
                "mean delta/u = {mean} is not consistent with zero"
            );
            assert!(second_moment < 1.0 / 3.0);
            assert!(verdict.consistent, "{verdict}");
        } else {
            assert!(
                mean < -half_width,
                "stagnation should bias delta negative: {mean}"
            );
            assert!(!verdict.consistent && violations == trials, "{verdict}");
        }
    }
}
