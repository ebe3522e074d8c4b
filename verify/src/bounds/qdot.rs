//! Bounds of qdot, the error-bounded quantized dot product (Diffenderfer,
//! Osei-Kuffuor & Menon 2021, seed `qdot-diffenderfer-2021.txt`), and a
//! corrected bound that is rigorous.
//!
//! # The setting (paper §1.1, §3)
//!
//! `fexp` (eq. (1.1)) is `floor(log2|x|)` for `|x| >= 1` and `ceil(log2|x|)`
//! for `|x| < 1`; the paper adds "when x is representable, fexp(x) is the
//! unbiased exponent", which is `floor(log2|x|)`. The two disagree for every
//! `|x| < 1` that is not a power of two (`fexp(0.75) = 0` by (1.1), the IEEE
//! exponent is -1). Both are here ([`Fexp`]); the implementation of the paper
//! (§3.2, "bitmask and bitshift") uses the IEEE exponent, which is our default.
//!
//! Algorithm 3.2 bins index `i` by `e_i = fexp(x_i) + fexp(y_i)` with *exact
//! binning*: one bin `(u_k - 1, u_k]` per exponent value `u_k` in
//! `[e_min, e_max]` (§3.2). `fexp(0)` is undefined; we define the binning to
//! leave out every index with `x_i y_i = 0` (its product is exactly zero, so
//! neither the dot product nor any bound changes). [`ExponentBins`] computes
//! this binning from the data, independently of the kernel under test.
//!
//! # The published results, as printed
//!
//! With `M_k` the size of bin `k`, `eps(k)` the machine precision of its
//! precision `pi_k` (1 for *perforate*), `E = fexp(x^T y)`:
//! - [`thm_3_2`]: `|x^T y - k~| <= sum_k M_k 2^(u_k + 1) eps(k)` (eq. (3.1));
//! - [`thm_3_3`]: if `e_max <= E`, relative error `<= sum_k M_k 2^(u_k - e_max + 1) eps(k)` (eq. (3.5));
//! - [`thm_3_4`]: if `e_max > E`, relative error `<= sum_k M_k 2^(u_k - E + 1) eps(k)` (eq. (3.7));
//! - [`thm_3_5`]: with the precisions of (3.9) for tolerance `eps`, relative
//!   error `<= N_bins eps` (eq. (3.12), (3.16)); with `eps / N_bins` in the
//!   bin score (3.10), as the experiments of §4.1 do, the bound is `eps`;
//! - [`thm_3_6`]: the early exit: if `e_max - e_min <= -floor(log2 eps) - mu^`
//!   every bin keeps the input precision (a statement about (3.9), not a bound).
//!
//! **Machine precision.** The proof of Theorem 3.2 cites "the fundamental
//! axiom of floating point arithmetic [19]" (Trefethen & Bau), whose
//! `eps_machine` is the unit roundoff `2^-p`; the proof of Theorem 3.5 writes
//! `eps(k) = 2^(-mu_k)` with `mu_k` the "number of mantissa bits". We read both
//! as `p`, the precision with the implicit bit (53, 24, 11; 8 for bfloat16), so
//! `eps(k) = u = 2^-p` (the C `DBL_EPSILON = 2^(1-p)` would double every
//! printed bound; `docs/bounds-qdot.md` says where that matters).
//!
//! **What the proofs leave out** (docs/findings/qdot.md has the
//! counterexamples): (a) with bins of `fexp(x) + fexp(y)` a product is below
//! `2^(u_k + 2)`, not `2^(u_k + 1)` as the proof of Theorem 3.2 uses; (b) both
//! factors are rounded to `pi_k` before the product (errors `(1 + d1)(1 + d2)`)
//! and the product may be rounded again; (c) the accumulation inside a bin
//! (`M_k - 1` roundings) and across bins is not counted at all; (d) with
//! (1.1), `|x^T y| >= 2^E` fails for `|x^T y| < 1`, which the proof of
//! Theorem 3.3 uses.
//!
//! # The corrected bound ([`rigorous`])
//!
//! The kernel (boundgate's CPU model and `kernels/qdot.cu`) computes bin `k`
//! on scaled values `a_j = x_j 2^-fexp(x_j)`, `b_j = y_j 2^-fexp(y_j)` (exact,
//! in `[1/2, 2)`), so `x_j y_j = a_j b_j 2^(u_k)`. With `A_k >= sum |a_j b_j|`,
//! a computed bin casts to format `F` (unit roundoff `u_F`), accumulates in
//! `F`'s accumulator `C` (`u_C`) along chains of at most `d_k` roundings (the
//! tiled order: `d_k = min(M_k, T) + ceil(log2(ceil(n / T)))`), converts the
//! bin sum to the input format `I` and rescales it by `2^(u_k)`; the bin
//! results are summed in `I` in ascending exponent order (`q` computed bins).
//! Then, all hypotheses below checked:
//!
//! ```text
//! |x^T y - z| <= sum_{perforated k} 2^(u_k) A_k
//!             + sum_{computed k} [ 2^(u_k) ((2 u_F + u_F^2) A_k + theta_{d_k}(u_C) A^_k + c_k) + eta_I ]
//!             + theta_{q-1}(u_I) sum_{computed k} Z_k
//! ```
//! with `A^_k = (1 + u_F)^2 A_k` (bounds `sum |a^_j b^_j|` after the casts),
//! `theta_d(u) = (1 + u)^d - 1` (the `|theta|` of `d` roundings before Lemma
//! 3.1 of Higham 2002 turns it into `gamma_d`, which needs `d u < 1`),
//! `T_k = (1 + theta_{d_k}) A^_k` (bounds the bin sum), `c_k = u_I T_k + eta_I`
//! if converting the accumulator to `I` can round (else 0), and
//! `Z_k = 2^(u_k) ((1 + u_I) T_k + eta_I) + eta_I` (bounds `|z_k|`).
//! Why: the casts are relative roundings in the normal range (`[1/2, 2)` is
//! normal in every format here); the bin sum is a dot product of the cast
//! values in the order of depth `d_k`, with no underflow term because every
//! product is a multiple of `2^(-2 p_F)`, a multiple of the accumulator's
//! smallest subnormal, so sums in the subnormal range are exact (Higham 2002,
//! §2.1); the conversion is one rounding `(1 + d) v + eta`; the rescale by a
//! power of two is exact unless the result is subnormal (`|error| <= eta_I`);
//! the cross-bin sum is a recursive sum of `q` terms in `I`, whose subnormal
//! sums are exact. No intermediate overflows: checked for each bin
//! (`(1 + u_C)^(d_k) A^_k <= max(C)`) and for the cross-bin sum.
//!
//! [`corrected_thm_3_2`] is the same bound with `A_k` replaced by its a-priori
//! value `4 M_k` (a product of a bin is below `2^(u_k + 2)` for both `fexp`
//! definitions): the printed Theorem 3.2 made rigorous, in its own terms.

use super::directed::{add_up, div_up, exp_up, expm1_up, ln1p_up, mul_up};
use super::dot::ceil_log2;
use super::{Bound, Quantity, Rigor, Source, require};
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, RoundingMode, exponent_of};
use crate::oracle::ExactSum;
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The paper, short form (full reference in docs/bounds-qdot.md).
pub const PAPER: &str = "Diffenderfer, Osei-Kuffuor & Menon 2021, qdot (arXiv, LLNL-JRNL-820357)";

const THM_3_2: Source = Source::new(PAPER, "Theorem 3.2", Some("(3.1)"));
const THM_3_3: Source = Source::new(PAPER, "Theorem 3.3", Some("(3.5)"));
const THM_3_4: Source = Source::new(PAPER, "Theorem 3.4", Some("(3.7)"));
const THM_3_5: Source = Source::new(PAPER, "Theorem 3.5", Some("(3.12), (3.16)"));
const RIGOROUS: Source = Source::new(
    "boundgate (qdot Alg. 3.1 as computed, Higham 2002 §2.1 rounding model; derivation in bounds::qdot)",
    "rigorous qdot bound",
    None,
);
const CORRECTED_3_2: Source = Source::new(
    "boundgate (Theorem 3.2 of Diffenderfer et al. 2021, corrected; derivation in bounds::qdot)",
    "corrected Theorem 3.2",
    None,
);

const RNE: RoundingMode = RoundingMode::NearestEven;

/// Which definition of `fexp` (paper eq. (1.1) versus the IEEE exponent).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::Fexp;
/// assert_eq!(Fexp::Ieee.of(0.75), Some(-1));
/// assert_eq!(Fexp::Paper.of(0.75), Some(0)); // ceil(log2 0.75)
/// assert_eq!(Fexp::Paper.of(0.5), Some(-1)); // powers of two agree
/// assert_eq!(Fexp::Paper.of(3.0), Some(1)); // |x| >= 1: floor for both
/// assert_eq!(Fexp::Ieee.of(0.0), None); // undefined
/// assert_eq!(Fexp::Ieee.of(f64::from_bits(1)), Some(-1074)); // subnormals: the true exponent
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fexp {
    /// `floor(log2|x|)`: the IEEE unbiased exponent (for subnormals, that of
    /// the leading bit), what the paper's implementation extracts (§3.2).
    Ieee,
    /// Eq. (1.1): `floor(log2|x|)` for `|x| >= 1`, `ceil(log2|x|)` for `|x| < 1`.
    Paper,
}

impl Fexp {
    /// Both definitions.
    pub const ALL: [Fexp; 2] = [Fexp::Ieee, Fexp::Paper];

    /// Its name: `ieee` or `paper`.
    pub fn name(self) -> &'static str {
        match self {
            Fexp::Ieee => "ieee",
            Fexp::Paper => "paper",
        }
    }

    /// `fexp(x)`; `None` for 0 (undefined) and for NaN and infinities.
    #[inline]
    pub fn of(self, x: f64) -> Option<i32> {
        if x == 0.0 || !x.is_finite() {
            return None;
        }
        let floor = exponent_of(x.abs());
        Some(match self {
            Fexp::Paper if floor < 0 && !is_power_of_two(x) => floor + 1,
            _ => floor,
        })
    }

    /// `fexp` of an exact value (e.g. the exact `x^T y` from the oracle), which
    /// may lie outside the `f64` range; `None` for zero or a non-finite sum.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Fexp;
    /// use boundgate_verify::oracle::dot;
    /// let s = dot(&[0.5, 0.25], &[1.0, 1.0]).unwrap(); // 0.75
    /// assert_eq!(Fexp::Ieee.of_exact(&s), Some(-1));
    /// assert_eq!(Fexp::Paper.of_exact(&s), Some(0));
    /// let tiny = dot(&[2f64.powi(-1000)], &[2f64.powi(-1000)]).unwrap(); // 2^-2000
    /// assert_eq!(Fexp::Paper.of_exact(&tiny), Some(-2000));
    /// ```
    pub fn of_exact(self, s: &ExactSum) -> Option<i64> {
        let f = s.to_float()?;
        if f.is_zero() {
            return None;
        }
        // f = m 2^exp with 1/2 <= |m| < 1, so floor(log2 |f|) = exp - 1.
        let exp = i64::from(f.get_exp()?);
        let floor = exp - 1;
        let power_of_two = (f.abs() >> (exp as i32)) == 0.5;
        Some(match self {
            Fexp::Paper if floor < 0 && !power_of_two => floor + 1,
            _ => floor,
        })
    }
}

impl fmt::Display for Fexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fexp {
    type Err = VerifyError;
    fn from_str(s: &str) -> Result<Fexp> {
        match s {
            "ieee" => Ok(Fexp::Ieee),
            "paper" => Ok(Fexp::Paper),
            other => Err(VerifyError::invalid(
                "fexp",
                other,
                "expected `ieee` or `paper`",
            )),
        }
    }
}

/// Whether a finite nonzero `x` is a power of two (normal: no fraction bits;
/// subnormal: a single bit).
fn is_power_of_two(x: f64) -> bool {
    let bits = x.to_bits() & !(1u64 << 63);
    let fraction = bits & ((1u64 << 52) - 1);
    if bits >> 52 == 0 {
        fraction.is_power_of_two()
    } else {
        fraction == 0
    }
}

/// `2^e` rounded up to an `f64`: `+inf` above the range, the smallest
/// subnormal below it (an upper bound of the true value).
fn pow2_up(e: i64) -> f64 {
    if e > 1023 {
        f64::INFINITY
    } else if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else if e >= -1074 {
        f64::from_bits(1u64 << (e + 1074))
    } else {
        f64::from_bits(1)
    }
}

/// `n` as an `f64`, rounded up.
fn count_up(n: u64) -> f64 {
    let f = n as f64;
    // `f as u64` saturates at u64::MAX, which is below 2^64 = f when n is near it.
    if f >= 18_446_744_073_709_551_616.0 || (f as u64) >= n {
        f
    } else {
        f.next_up()
    }
}

/// One exponent bin of exact binning: the indices `i` with
/// `fexp(x_i) + fexp(y_i) = exponent`, i.e. the bin `(exponent - 1, exponent]`
/// of Definition 3.1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExponentBin {
    /// `u_k` (and `l_k = u_k - 1`).
    pub exponent: i32,
    /// `M_k`, the number of indices in the bin.
    pub count: u64,
    /// An upper bound (rounded up) of `sum |x_j y_j| 2^(-u_k)` over the bin,
    /// the sum of the scaled products `|a_j b_j|`; below `4 M_k`.
    pub scaled_abs_sum: f64,
}

/// Exact binning of `x ⊙ y` by `fexp(x_i) + fexp(y_i)` (Algorithm 3.2 lines
/// 3-6 with the exact-binning strategy), computed from the data for the
/// checker: nonempty bins in ascending exponent order.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
/// let x = [1.5, 0.75, 0.0, 3.0];
/// let y = [1.0, 1.0, 5.0, 0.5];
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// // e = [0, -1, (zero), 1 + -1 = 0]
/// assert_eq!(bins.zeros, 1);
/// assert_eq!((bins.e_min(), bins.e_max()), (Some(-1), Some(0)));
/// assert_eq!(bins.bins.iter().map(|b| (b.exponent, b.count)).collect::<Vec<_>>(), vec![(-1, 1), (0, 2)]);
/// // Under (1.1), fexp(0.75) = 0: both nonzero... three products share exponent 0.
/// let paper = ExponentBins::new(&x, &y, Fexp::Paper).unwrap();
/// assert_eq!(paper.bins.len(), 1);
/// assert!(ExponentBins::new(&[f64::NAN], &[1.0], Fexp::Ieee).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExponentBins {
    /// The `fexp` definition used.
    pub fexp: Fexp,
    /// The nonempty bins, ascending.
    pub bins: Vec<ExponentBin>,
    /// Indices left out because `x_i y_i = 0`.
    pub zeros: u64,
    /// The vector length `n` (zeros included).
    pub n: usize,
}

impl ExponentBins {
    /// Bins `x` and `y` (the values the kernel reads).
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`], or [`VerifyError::NonFinite`] for a NaN
    /// or an infinity (`fexp` is undefined there).
    pub fn new(x: &[f64], y: &[f64], fexp: Fexp) -> Result<ExponentBins> {
        require_same_len("x and y", x.len(), y.len())?;
        let mut exponents = Vec::with_capacity(x.len());
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
            for (what, v) in [("x", a), ("y", b)] {
                if !v.is_finite() {
                    return Err(VerifyError::NonFinite {
                        what: what.into(),
                        index: i,
                        value: v,
                    });
                }
            }
            let e = match (fexp.of(a), fexp.of(b)) {
                (Some(fa), Some(fb)) => Some((fa, fb)),
                _ => None,
            };
            if let Some((fa, fb)) = e {
                lo = lo.min(fa + fb);
                hi = hi.max(fa + fb);
            }
            exponents.push(e);
        }
        let zeros = exponents.iter().filter(|e| e.is_none()).count() as u64;
        let mut bins = Vec::new();
        if lo <= hi {
            let mut count = vec![0u64; (hi - lo + 1) as usize];
            let mut sums = vec![0.0f64; count.len()];
            for (i, e) in exponents.iter().enumerate() {
                let Some((fa, fb)) = *e else { continue };
                let k = (fa + fb - lo) as usize;
                count[k] += 1;
                // Exact scalings by powers of two (results in [1/2, 2)).
                let a = scale(x[i].abs(), -fa);
                let b = scale(y[i].abs(), -fb);
                sums[k] = add_up(sums[k], mul_up(a, b));
            }
            for (k, (&c, &s)) in count.iter().zip(&sums).enumerate() {
                if c > 0 {
                    bins.push(ExponentBin {
                        exponent: lo + k as i32,
                        count: c,
                        scaled_abs_sum: s,
                    });
                }
            }
        }
        Ok(ExponentBins {
            fexp,
            bins,
            zeros,
            n: x.len(),
        })
    }

    /// `e_min` (None without nonzero products).
    pub fn e_min(&self) -> Option<i32> {
        self.bins.first().map(|b| b.exponent)
    }
    /// `e_max` (None without nonzero products).
    pub fn e_max(&self) -> Option<i32> {
        self.bins.last().map(|b| b.exponent)
    }
    /// `N_bins`, the number of nonempty bins.
    pub fn n_bins(&self) -> usize {
        self.bins.len()
    }
}

/// `v 2^e` for finite `v` and a result known to be a normal `f64` (`e` may be
/// outside the `f64` exponent range, so scale in steps).
fn scale(v: f64, e: i32) -> f64 {
    let mut v = v;
    let mut e = e;
    while e > 1000 {
        v *= pow2_up(1000);
        e -= 1000;
    }
    while e < -1000 {
        v *= pow2_up(-1000);
        e += 1000;
    }
    v * pow2_up(i64::from(e))
}

/// How a computed (not perforated) bin is evaluated: its values cast to
/// `format` (the bin precision `pi_k` of Algorithm 3.1), the dot product
/// accumulated in `accumulator` (e.g. fp16 with fp32 accumulation, as on
/// tensor cores).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BinArithmetic {
    /// The format the bin's (scaled) values are rounded to, `pi_k`.
    pub format: Format,
    /// The format of the products' accumulation.
    pub accumulator: Format,
}

/// The precision of one bin (Algorithm 3.1's `pi_k`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BinPrecision {
    /// Left out of the computation (a 0-bit representation, `eps(k) = 1`).
    Perforate,
    /// Computed in the given arithmetic.
    Compute(BinArithmetic),
}

impl BinPrecision {
    /// The paper's `eps(k)`: the unit roundoff `2^-p` of `pi_k`, 1 for perforate.
    pub fn eps(&self) -> f64 {
        match self {
            BinPrecision::Perforate => 1.0,
            BinPrecision::Compute(a) => a.format.unit_roundoff(RNE),
        }
    }
    /// `-log2 eps(k)`: the precision `p` of `pi_k` (0 for perforate).
    pub fn bits(&self) -> u32 {
        match self {
            BinPrecision::Perforate => 0,
            BinPrecision::Compute(a) => a.format.precision(),
        }
    }
}

/// `floor(log2(eps / divisor))`, exactly: the `floor(log2 eps)` of the bin
/// score (3.10), with `divisor = N_bins` for the `eps / N_bins` variant of the
/// experiments (§4.1) and 1 for the printed one.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] unless `eps` is finite and positive and
/// `divisor >= 1`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::floor_log2_tolerance;
/// assert_eq!(floor_log2_tolerance(1e-16, 1).unwrap(), -54);
/// assert_eq!(floor_log2_tolerance(0.5, 1).unwrap(), -1);
/// assert_eq!(floor_log2_tolerance(0.5, 3).unwrap(), -3); // 1/6
/// assert_eq!(floor_log2_tolerance(1e3, 1).unwrap(), 9);
/// assert!(floor_log2_tolerance(0.0, 1).is_err());
/// ```
pub fn floor_log2_tolerance(eps: f64, divisor: u64) -> Result<i64> {
    if !(eps.is_finite() && eps > 0.0) {
        return Err(VerifyError::invalid(
            "eps",
            eps,
            "the qdot tolerance must be finite and positive",
        ));
    }
    if divisor == 0 {
        return Err(VerifyError::invalid("divisor", 0, "must be at least 1"));
    }
    // eps = m 2^q with m < 2^53 an integer; floor(log2(eps / d)) is the
    // largest k with d 2^k <= m 2^q, decided exactly on integers.
    let (m, q) = integer_significand(eps);
    let fits = |k: i64| -> bool {
        let shift = k - q;
        if shift >= 0 {
            // d 2^shift <= m < 2^53
            shift < 64 && (u128::from(divisor) << shift) <= u128::from(m)
        } else {
            // d <= m 2^-shift; beyond 64 bits of shift the right side exceeds any u64
            -shift >= 64 || u128::from(divisor) <= (u128::from(m) << -shift)
        }
    };
    let mut k = i64::from(exponent_of(eps)) - ceil_log2(divisor as usize) as i64 - 1;
    while fits(k + 1) {
        k += 1;
    }
    while !fits(k) {
        k -= 1;
    }
    Ok(k)
}

/// `x = m 2^q` for finite positive `x`, `m < 2^53` an integer.
fn integer_significand(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// The bin score (3.10): `ceil(log2 M_k) + u_k - e_max - floor(log2 eps) + 1`
/// for a nonempty bin (the paper's `-inf` for empty bins is the caller's
/// `None`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::bin_score;
/// // the top bin, one element, eps = 2^-20: 0 + 0 - (-20) + 1
/// assert_eq!(bin_score(1, 0, 0, -20), 21);
/// assert_eq!(bin_score(5, -30, 0, -20), 3 - 30 + 20 + 1);
/// ```
pub fn bin_score(count: u64, exponent: i64, e_max: i64, floor_log2_eps: i64) -> i64 {
    debug_assert!(count >= 1);
    ceil_log2(count as usize) as i64 + exponent - e_max - floor_log2_eps + 1
}

/// The Precision function (3.9), generalised to a ladder of levels by their
/// mantissa bits (`m_half = 11`, `m_single = 24`, `m_double = 53`, and for
/// the bfloat16 generalisation `8`): `None` (perforate) for `sigma < 0`, else
/// the first level `i` with `sigma < ladder[i]`, else the last level, the
/// input's precision `mu` (for `sigma >= mu` (3.9) has no case; the proof of
/// Theorem 3.6 reads it as the input precision, and so do we). `ladder` is
/// ascending and ends with `mu`; the condition `mu >= m` of (3.9) is that the
/// ladder stops at `mu`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::precision_3_9;
/// let ladder = [11, 24, 53]; // half, single, double; fp64 inputs
/// assert_eq!(precision_3_9(-1, &ladder), None);
/// assert_eq!(precision_3_9(0, &ladder), Some(0));
/// assert_eq!(precision_3_9(10, &ladder), Some(0));
/// assert_eq!(precision_3_9(11, &ladder), Some(1));
/// assert_eq!(precision_3_9(52, &ladder), Some(2));
/// assert_eq!(precision_3_9(80, &ladder), Some(2));
/// assert_eq!(precision_3_9(20, &[11]), Some(0)); // fp16 inputs
/// ```
pub fn precision_3_9(score: i64, ladder: &[u32]) -> Option<usize> {
    if score < 0 {
        return None;
    }
    let last = ladder.len().checked_sub(1)?;
    Some(
        ladder
            .iter()
            .position(|&m| score < i64::from(m))
            .unwrap_or(last),
    )
}

/// Theorem 3.6: whether `e_max - e_min <= -floor(log2 eps) - mu_hat`, in which
/// case (3.9) gives every bin the input precision (`mu_hat`: the mantissa bits
/// of the level directly below the input's).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::thm_3_6;
/// // fp64 inputs (mu^ = 24), eps = 1e-16 (floor log2 = -54): a range of 30 exits early.
/// assert!(thm_3_6(-10, 20, -54, 24));
/// assert!(!thm_3_6(-10, 21, -54, 24));
/// ```
pub fn thm_3_6(e_min: i64, e_max: i64, floor_log2_eps: i64, mu_hat: u32) -> bool {
    e_max - e_min <= -floor_log2_eps - i64::from(mu_hat)
}

/// Checks what every printed theorem assumes of the parameters: one precision
/// per bin, each no finer than the input's (`eps(k) >= eps_machine`).
fn check_parameters(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    source: &Source,
) -> Result<()> {
    require_same_len("bins and precisions", bins.bins.len(), precisions.len())?;
    if let Some(k) = precisions.iter().position(|p| p.bits() > input.precision()) {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: source.to_string(),
            hypothesis: "eps(k) >= eps_machine for every bin".into(),
            detail: format!(
                "bin {} has {} bits, the input {} has {}",
                bins.bins[k].exponent,
                precisions[k].bits(),
                input,
                input.precision()
            ),
        });
    }
    Ok(())
}

/// `sum_k M_k 2^(u_k + shift) eps(k)`, rounded up.
fn printed_sum(bins: &ExponentBins, precisions: &[BinPrecision], shift: i64) -> f64 {
    bins.bins.iter().zip(precisions).fold(0.0, |acc, (b, p)| {
        let e = i64::from(b.exponent) + shift - i64::from(p.bits());
        add_up(acc, mul_up(count_up(b.count), pow2_up(e)))
    })
}

fn published(value: f64, quantity: Quantity, source: Source, bins: &ExponentBins) -> Bound {
    Bound::deterministic(value, quantity, source, Rigor::Published)
        .with_hypothesis(
            "{(l_k, u_k)} partitions [e_min(x ⊙ y), e_max(x ⊙ y)]",
            format!(
                "exact binning by fexp(x_i) + fexp(y_i) ({} fexp), {} nonempty bins, {} zero products left out",
                bins.fexp,
                bins.n_bins(),
                bins.zeros
            ),
        )
        .with_hypothesis(
            "x_j y_j - x_j ⊗ y_j = -x_j y_j eps_j, |eps_j| <= eps(k) (the proof's model)",
            "assumed by the source, not checked (no cast, accumulation or scaling error)",
        )
}

/// Theorem 3.2 (eq. (3.1)), as printed: `|x^T y - k~| <= sum_k M_k 2^(u_k + 1) eps(k)`,
/// an absolute bound.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_2, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 0.25], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate, BinPrecision::Perforate];
/// // 1 * 2^(-2 + 1) + 1 * 2^(0 + 1)
/// assert_eq!(thm_3_2(&bins, &p, Format::FP64).unwrap().value, 2.5);
/// ```
pub fn thm_3_2(bins: &ExponentBins, precisions: &[BinPrecision], input: Format) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_2)?;
    Ok(published(
        printed_sum(bins, precisions, 1),
        Quantity::AbsoluteError,
        THM_3_2,
        bins,
    ))
}

/// `e_max` and `E = fexp(x^T y)`, or the failed hypothesis.
fn exponents(bins: &ExponentBins, dot_fexp: Option<i64>, source: &Source) -> Result<(i64, i64)> {
    let e_max = bins.e_max().ok_or_else(|| VerifyError::HypothesisNotMet {
        source_ref: source.to_string(),
        hypothesis: "e_max(x ⊙ y) exists".into(),
        detail: "every product x_i y_i is zero".into(),
    })?;
    let e = dot_fexp.ok_or_else(|| VerifyError::HypothesisNotMet {
        source_ref: source.to_string(),
        hypothesis: "fexp(x^T y) exists".into(),
        detail: "x^T y = 0, where fexp is undefined and the relative error too".into(),
    })?;
    Ok((i64::from(e_max), e))
}

/// Theorem 3.3 (eq. (3.5)), as printed: if `e_max(x ⊙ y) <= fexp(x^T y)`, the
/// relative error is at most `sum_k M_k 2^(u_k - e_max + 1) eps(k)`.
/// `dot_fexp` is `fexp(x^T y)` of the exact result under the binning's
/// definition ([`Fexp::of_exact`]); `e_max` is that of the binning (Algorithm
/// 3.2, line 4). Returns a [`Quantity::RelativeError`]; see [`times_abs_exact`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_3, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 0.25], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate; 2];
/// assert_eq!(thm_3_3(&bins, &p, Format::FP64, Some(0)).unwrap().value, 2.5);
/// assert!(thm_3_3(&bins, &p, Format::FP64, Some(-1)).is_err()); // e_max = 0 > -1
/// assert!(thm_3_3(&bins, &p, Format::FP64, None).is_err()); // x^T y = 0
/// ```
pub fn thm_3_3(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_3)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_3)?;
    require(
        e_max <= e,
        &THM_3_3,
        "e_max(x ⊙ y) <= fexp(x^T y)",
        || format!("e_max = {e_max} > fexp(x^T y) = {e}"),
    )?;
    Ok(published(
        printed_sum(bins, precisions, 1 - e_max),
        Quantity::RelativeError,
        THM_3_3,
        bins,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) <= fexp(x^T y)",
        format!("e_max = {e_max} <= {e} ({} fexp)", bins.fexp),
    ))
}

/// Theorem 3.4 (eq. (3.7)), as printed: if `e_max(x ⊙ y) > E = fexp(x^T y)`,
/// the relative error is at most `sum_k M_k 2^(u_k - E + 1) eps(k)`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_4, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, -0.75], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let p = [BinPrecision::Perforate; 2];
/// // x^T y = 0.25: E = -2 < e_max = 0
/// assert_eq!(thm_3_4(&bins, &p, Format::FP64, Some(-2)).unwrap().value, 2.0 * 2.0 + 2.0 * 4.0);
/// assert!(thm_3_4(&bins, &p, Format::FP64, Some(0)).is_err());
/// ```
pub fn thm_3_4(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_4)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_4)?;
    require(e_max > e, &THM_3_4, "e_max(x ⊙ y) > fexp(x^T y)", || {
        format!("e_max = {e_max} <= fexp(x^T y) = {e}")
    })?;
    Ok(published(
        printed_sum(bins, precisions, 1 - e),
        Quantity::RelativeError,
        THM_3_4,
        bins,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) > E = fexp(x^T y)",
        format!("e_max = {e_max} > E = {e} ({} fexp)", bins.fexp),
    ))
}

/// The tolerance of the bin score (3.10): `eps / divisor`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScoreTolerance {
    /// The qdot tolerance `eps`.
    pub eps: f64,
    /// 1 for the printed (3.10); `N_bins` for the experiments' `eps / N_bins`.
    pub divisor: u64,
}

/// Theorem 3.5 (eqs. (3.12), (3.16)), as printed: with the precisions that
/// (3.9) gives for the bin score of tolerance `t = eps / divisor`, and
/// `e_max(x ⊙ y) <= fexp(x^T y)`, the relative error is at most `N_bins t`
/// (so `eps` for the experiments' `divisor = N_bins`). The precisions must be
/// those of [`precision_3_9`] on `ladder` (checked bin by bin).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_5, BinArithmetic, BinPrecision, ExponentBins, Fexp, ScoreTolerance};
/// use boundgate_verify::format::Format;
/// let bins = ExponentBins::new(&[1.0, 2f64.powi(-40)], &[1.0, 1.0], Fexp::Ieee).unwrap();
/// let double = BinPrecision::Compute(BinArithmetic { format: Format::FP64, accumulator: Format::FP64 });
/// // eps = 2^-20: the small bin scores 0 - 40 + 20 + 1 < 0 (perforate), the top 21 (< 24: single).
/// let single = BinPrecision::Compute(BinArithmetic { format: Format::FP32, accumulator: Format::FP32 });
/// let t = ScoreTolerance { eps: 2f64.powi(-20), divisor: 1 };
/// let b = thm_3_5(&bins, &[BinPrecision::Perforate, single], Format::FP64, Some(0), &[11, 24, 53], t).unwrap();
/// assert_eq!(b.value, 2.0 * 2f64.powi(-20));
/// // Other precisions are not the ones (3.9) gives: the theorem says nothing.
/// assert!(thm_3_5(&bins, &[BinPrecision::Perforate, double], Format::FP64, Some(0), &[11, 24, 53], t).is_err());
/// ```
pub fn thm_3_5(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    dot_fexp: Option<i64>,
    ladder: &[u32],
    tolerance: ScoreTolerance,
) -> Result<Bound> {
    check_parameters(bins, precisions, input, &THM_3_5)?;
    let (e_max, e) = exponents(bins, dot_fexp, &THM_3_5)?;
    require(
        e_max <= e,
        &THM_3_5,
        "e_max(x ⊙ y) <= fexp(x^T y)",
        || format!("e_max = {e_max} > fexp(x^T y) = {e}"),
    )?;
    if ladder.last() != Some(&input.precision()) {
        return Err(VerifyError::invalid(
            "ladder",
            format!("{ladder:?}"),
            format!(
                "must be ascending and end with the input precision {}",
                input.precision()
            ),
        ));
    }
    let floor = floor_log2_tolerance(tolerance.eps, tolerance.divisor)?;
    for (b, p) in bins.bins.iter().zip(precisions) {
        let score = bin_score(b.count, i64::from(b.exponent), e_max, floor);
        let wanted = precision_3_9(score, ladder).map_or(0, |i| ladder[i]);
        require(
            p.bits() == wanted,
            &THM_3_5,
            "precisions given by (3.9) with the score (3.10)",
            || {
                format!(
                    "bin {} (M = {}, sigma = {score}) has {} bits, (3.9) gives {wanted}",
                    b.exponent,
                    b.count,
                    p.bits()
                )
            },
        )?;
    }
    let t = div_up(tolerance.eps, count_up(tolerance.divisor));
    Ok(Bound::deterministic(
        mul_up(count_up(bins.n_bins() as u64), t),
        Quantity::RelativeError,
        THM_3_5,
        Rigor::Published,
    )
    .with_hypothesis(
        "e_max(x ⊙ y) <= fexp(x^T y)",
        format!("e_max = {e_max} <= {e} ({} fexp)", bins.fexp),
    )
    .with_hypothesis(
        "(3.9) with tolerance t in (3.10)",
        format!(
            "t = eps / {} = {t:e}, floor(log2 t) = {floor}, N_bins = {}",
            tolerance.divisor,
            bins.n_bins()
        ),
    )
    .with_hypothesis(
        "Theorem 3.3's model (one rounding of eps(k) per product)",
        "assumed by the source, not checked",
    ))
}

/// A relative bound turned into the absolute one it states, `|x^T y| coefficient`
/// (eqs. (3.5), (3.7) and (3.12) are printed that way), with `|x^T y|` from the
/// exact oracle rounded up.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{thm_3_3, times_abs_exact, BinPrecision, ExponentBins, Fexp};
/// use boundgate_verify::bounds::Quantity;
/// use boundgate_verify::format::Format;
/// use boundgate_verify::oracle::dot;
/// let (x, y) = ([3.0], [1.0]);
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// let exact = dot(&x, &y).unwrap();
/// let rel = thm_3_3(&bins, &[BinPrecision::Perforate], Format::FP64, Fexp::Ieee.of_exact(&exact)).unwrap();
/// let abs = times_abs_exact(rel, &exact).unwrap();
/// assert_eq!((abs.quantity, abs.value), (Quantity::AbsoluteError, 6.0));
/// ```
pub fn times_abs_exact(bound: Bound, exact: &ExactSum) -> Result<Bound> {
    if bound.quantity != Quantity::RelativeError {
        return Err(VerifyError::invalid(
            "bound",
            format!("{:?}", bound.quantity),
            "must be a relative error bound",
        ));
    }
    if !exact.is_finite() {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: bound.source.to_string(),
            hypothesis: "finite x^T y".into(),
            detail: "the exact result is not finite".into(),
        });
    }
    let magnitude = match exact.signum() {
        Ordering::Less => -exact.round(Format::FP64, RoundingMode::Down),
        _ => exact.round(Format::FP64, RoundingMode::Up),
    };
    let mut b = bound;
    b.value = mul_up(b.value, magnitude);
    b.quantity = Quantity::AbsoluteError;
    Ok(b.with_hypothesis(
        "absolute form |x^T y| * (relative bound)",
        format!("|x^T y| <= {magnitude:e} (exact oracle, rounded up)"),
    ))
}

/// The fixed evaluation order of the kernel: the vector is cut into tiles of
/// `tile` consecutive indices; within a tile each bin is a recursive chain
/// (FMA, or rounded product then sum), and the tile results of a bin are
/// summed by a pairwise tree (`kernels/qdot.cu`, `kernels::qdot::compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TileOrder {
    /// The vector length `n`.
    pub n: usize,
    /// Indices per tile (`0` or `>= n`: one tile, a sequential order).
    pub tile: usize,
}

impl TileOrder {
    /// The effective tile length (at least 1).
    pub fn tile_len(&self) -> usize {
        if self.tile == 0 || self.tile >= self.n {
            self.n.max(1)
        } else {
            self.tile
        }
    }
    /// The number of tiles.
    pub fn tiles(&self) -> usize {
        self.n.div_ceil(self.tile_len()).max(1)
    }
    /// The longest chain of roundings a term of a bin of `count` elements goes
    /// through: `min(count, tile) + ceil(log2 tiles)`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::TileOrder;
    /// let order = TileOrder { n: 1000, tile: 64 }; // 16 tiles
    /// assert_eq!(order.depth(10), 10 + 4);
    /// assert_eq!(order.depth(500), 64 + 4);
    /// assert_eq!(TileOrder { n: 1000, tile: 0 }.depth(500), 500);
    /// ```
    pub fn depth(&self, count: u64) -> u64 {
        count.min(self.tile_len() as u64) + ceil_log2(self.tiles())
    }
}

/// How `A_k` is obtained.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Magnitudes {
    /// From the data (`ExponentBin::scaled_abs_sum`).
    Data,
    /// A priori, `4 M_k`.
    APriori,
}

/// The corrected, rigorous absolute bound of qdot as computed (module
/// documentation): representation error of both factors, accumulation inside
/// and across bins, scaling and conversion, with `A_k` from the data.
/// Hypotheses checked: no overflow anywhere, subnormal sums exact.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{rigorous, BinArithmetic, BinPrecision, ExponentBins, Fexp, TileOrder};
/// use boundgate_verify::format::Format;
/// let x = [1.0, 1.0 + 2f64.powi(-12), 2f64.powi(-30)];
/// let y = [1.0; 3];
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// let half = BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP32 });
/// let b = rigorous(&bins, &[BinPrecision::Perforate, half], Format::FP64, TileOrder { n: 3, tile: 0 }).unwrap();
/// // at least the perforated 2^-30 and the cast error of 1 + 2^-12 in fp16
/// assert!(b.value >= 2f64.powi(-30) + 2f64.powi(-12));
/// // dominated by the cast term (2 u_F + u_F^2) A_k ~ 2^-10 (2 + 2^-12) ~ 1.95e-3
/// assert!(b.value < 2.0e-3);
/// ```
pub fn rigorous(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
) -> Result<Bound> {
    evaluate(bins, precisions, input, order, Magnitudes::Data, RIGOROUS)
}

/// Theorem 3.2 corrected: [`rigorous`] with the a-priori magnitude `4 M_k` in
/// place of the data's `A_k` (a product of bin `k` is below `2^(u_k + 2)`
/// whichever `fexp` is used), so, like the printed bound, it needs only
/// `M_k`, `u_k` and the precisions. Never below [`rigorous`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{corrected_thm_3_2, rigorous, thm_3_2, BinArithmetic, BinPrecision, ExponentBins, Fexp, TileOrder};
/// use boundgate_verify::format::Format;
/// let x = [1.9, 1.7, 1.3];
/// let bins = ExponentBins::new(&x, &x, Fexp::Ieee).unwrap();
/// let half = [BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP16 })];
/// let order = TileOrder { n: 3, tile: 0 };
/// let corrected = corrected_thm_3_2(&bins, &half, Format::FP64, order).unwrap().value;
/// assert!(corrected >= rigorous(&bins, &half, Format::FP64, order).unwrap().value);
/// assert!(corrected > 2.0 * thm_3_2(&bins, &half, Format::FP64).unwrap().value);
/// ```
pub fn corrected_thm_3_2(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
) -> Result<Bound> {
    evaluate(
        bins,
        precisions,
        input,
        order,
        Magnitudes::APriori,
        CORRECTED_3_2,
    )
}

fn evaluate(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
    magnitudes: Magnitudes,
    source: Source,
) -> Result<Bound> {
    require_same_len("bins and precisions", bins.bins.len(), precisions.len())?;
    require(
        input.has_subnormals(),
        &source,
        "the input format has subnormals (sums in its subnormal range are exact)",
        || format!("{input} has none"),
    )?;
    let u_i = input.unit_roundoff(RNE);
    let eta_i = input.underflow_abs_error(RNE);
    let mut total = 0.0;
    let mut z_sum = 0.0; // sum of the bounds Z_k on |z_k|
    let mut computed = 0u64;
    let mut deepest = 0u64;
    for (b, p) in bins.bins.iter().zip(precisions) {
        let a = match magnitudes {
            Magnitudes::Data => b.scaled_abs_sum,
            Magnitudes::APriori => mul_up(4.0, count_up(b.count)),
        };
        let scale = pow2_up(i64::from(b.exponent));
        let BinPrecision::Compute(arith) = *p else {
            total = add_up(total, mul_up(scale, a));
            continue;
        };
        let (f, c) = (arith.format, arith.accumulator);
        check_arithmetic(arith, &source)?;
        let u_f = f.unit_roundoff(RNE);
        let u_c = c.unit_roundoff(RNE);
        let depth = order.depth(b.count);
        deepest = deepest.max(depth);
        let one_plus_uf = add_up(1.0, u_f);
        let a_hat = mul_up(mul_up(one_plus_uf, one_plus_uf), a);
        let gamma = theta_up(depth, u_c);
        // No overflow inside the bin: every partial sum is at most (1 + u_C)^depth A^.
        let growth = exp_up(mul_up(depth as f64, ln1p_up(u_c)));
        let largest = mul_up(growth, a_hat);
        require(
            largest <= c.max_finite(),
            &source,
            "no overflow inside a bin: (1 + u_C)^d_k A^_k <= max(C)",
            || {
                format!(
                    "bin {} (M = {}) in {}: {largest:e} > {:e}",
                    b.exponent,
                    b.count,
                    c,
                    c.max_finite()
                )
            },
        )?;
        let t = mul_up(add_up(1.0, gamma), a_hat);
        let cast = mul_up(add_up(mul_up(2.0, u_f), mul_up(u_f, u_f)), a);
        let accumulate = mul_up(gamma, a_hat);
        let converts_exactly = c.precision() <= input.precision()
            && c.emax() <= input.emax()
            && c.min_positive() >= input.min_positive();
        let convert = if converts_exactly {
            0.0
        } else {
            let v = mul_up(add_up(1.0, u_i), t);
            require(
                v <= input.max_finite(),
                &source,
                "the bin sum converts to the input format without overflow",
                || format!("bin {}: {v:e} > {:e}", b.exponent, input.max_finite()),
            )?;
            add_up(mul_up(u_i, t), eta_i)
        };
        let error = add_up(
            mul_up(scale, add_up(add_up(cast, accumulate), convert)),
            eta_i,
        );
        total = add_up(total, error);
        let before_rescale = add_up(mul_up(add_up(1.0, u_i), t), eta_i);
        let z = add_up(mul_up(scale, before_rescale), eta_i);
        z_sum = add_up(z_sum, z);
        computed += 1;
    }
    let cross_depth = computed.saturating_sub(1);
    let gamma_cross = theta_up(cross_depth, u_i);
    let growth = exp_up(mul_up(cross_depth as f64, ln1p_up(u_i)));
    let largest = mul_up(growth, z_sum);
    require(
        largest <= input.max_finite(),
        &source,
        "no overflow in the rescaled bin results and their sum: (1 + u_I)^(q-1) sum Z_k <= max(I)",
        || format!("{largest:e} > {:e}", input.max_finite()),
    )?;
    total = add_up(total, mul_up(gamma_cross, z_sum));
    Ok(Bound::deterministic(total, Quantity::AbsoluteError, source, Rigor::Rigorous)
        .with_hypothesis(
            "exact binning by fexp(x_i) + fexp(y_i); scaled values in [1/2, 2)",
            format!(
                "{} fexp, {} bins ({} computed), input {input}",
                bins.fexp,
                bins.n_bins(),
                computed
            ),
        )
        .with_hypothesis(
            "tiled order: chains of at most min(M_k, T) + ceil(log2 tiles) roundings",
            format!(
                "n = {}, T = {}, {} tiles, deepest chain {deepest}, {computed} bin results summed",
                order.n,
                order.tile_len(),
                order.tiles()
            ),
        )
        .with_hypothesis(
            "no overflow",
            format!("(1 + u_I)^(q-1) sum Z_k = {largest:e} <= {:e}", input.max_finite()),
        ))
}

/// The rigorous bound of the original kernel that the early exit of
/// Theorem 3.6 runs instead of Algorithm 3.1: the dot product of the unscaled
/// inputs (values of `input`) in the tiled order, in the input level's
/// arithmetic `arith` (cast to `arith.format`, accumulated in
/// `arith.accumulator`), the result rounded to `input` if the accumulator is
/// wider. [`super::dot::rigorous`] with depth `min(n, T) + ceil(log2 tiles)`
/// and `n` operations that may underflow, plus `u_I W + eta_I` for the final
/// conversion, `W` the a-priori bound on the accumulated value.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{rigorous_plain, BinArithmetic, TileOrder};
/// use boundgate_verify::format::Format;
/// let arith = BinArithmetic { format: Format::FP64, accumulator: Format::FP64 };
/// let b = rigorous_plain(&[1.0, 2.0], &[3.0, 4.0], Format::FP64, arith, TileOrder { n: 2, tile: 0 }).unwrap();
/// assert!(b.value > 0.0 && b.value < 1e-14);
/// ```
pub fn rigorous_plain(
    x: &[f64],
    y: &[f64],
    input: Format,
    arith: BinArithmetic,
    order: TileOrder,
) -> Result<Bound> {
    require_same_len("x and y", x.len(), y.len())?;
    let (f, c) = (arith.format, arith.accumulator);
    require(
        f.precision() >= input.precision() && f.emax() >= input.emax() && f.emin() <= input.emin(),
        &RIGOROUS,
        "the inputs are values of the input level's format (no cast error)",
        || format!("input {input}, level {f}"),
    )?;
    let n = x.len();
    let sum_abs = super::dot::abs_dot_up(x, y)?;
    let depth = order.depth(n as u64);
    let ops = super::dot::underflow_ops(c, n);
    let u_c = c.unit_roundoff(RNE);
    let eta = c.underflow_abs_error(RNE);
    // Higham 2002 (2.8) with (1 + u)^d - 1 for gamma_d: see bounds::dot.
    let theta = theta_up(depth, u_c);
    let w = super::dot::require_no_overflow(c, RNE, depth, ops, sum_abs, &RIGOROUS)?;
    let value = add_up(
        mul_up(theta, sum_abs),
        mul_up(mul_up(ops as f64, add_up(1.0, theta)), eta),
    );
    let mut bound = Bound::deterministic(value, Quantity::AbsoluteError, RIGOROUS, Rigor::Rigorous)
        .with_hypothesis(
            "fl(z) = z(1 + delta) + eta (Higham 2002 (2.8)), at most m operations with eta != 0",
            format!("m = {ops}, eta_min = {eta:e}, (1 + u)^d - 1 = {theta:e}"),
        )
        .with_hypothesis(
            "no overflow",
            format!("(1 + u)^d (S + m eta) = {w:e} <= {:e}", c.max_finite()),
        );
    let converts_exactly = c.precision() <= input.precision()
        && c.emax() <= input.emax()
        && c.min_positive() >= input.min_positive();
    if !converts_exactly {
        let u_i = input.unit_roundoff(RNE);
        let v = mul_up(add_up(1.0, u_i), w);
        require(
            v <= input.max_finite(),
            &RIGOROUS,
            "the accumulated value converts to the input format without overflow",
            || format!("{v:e} > {:e}", input.max_finite()),
        )?;
        bound.value = add_up(
            bound.value,
            add_up(mul_up(u_i, w), input.underflow_abs_error(RNE)),
        );
        bound = bound.with_hypothesis(
            "one rounding of the accumulated value to the input format",
            format!("{c} to {input}"),
        );
    }
    Ok(bound.with_hypothesis(
        "Theorem 3.6 early exit: the original kernel on the unscaled inputs",
        format!("n = {n}, T = {}, depth {depth}", order.tile_len()),
    ))
}

/// `(1 + u)^d - 1`, rounded up: the bound on `|theta|` for a product of `d`
/// factors `(1 + delta_i)`, `|delta_i| <= u` (Higham 2002, §3.1, before
/// Lemma 3.1 turns it into `gamma_d`); unlike `gamma_d` it exists for every
/// `d` (a recursive fp16 sum of 4096 terms has one).
fn theta_up(d: u64, u: f64) -> f64 {
    if d == 0 {
        0.0
    } else {
        expm1_up(mul_up(d as f64, ln1p_up(u)))
    }
}

/// The hypotheses on one computed bin's arithmetic (module documentation).
fn check_arithmetic(arith: BinArithmetic, source: &Source) -> Result<()> {
    let (f, c) = (arith.format, arith.accumulator);
    require(
        f.emin() <= -1 && f.max_finite() >= 2.0,
        source,
        "scaled values in [1/2, 2) are normal numbers of the bin format",
        || format!("{f}: emin {}, max {:e}", f.emin(), f.max_finite()),
    )?;
    require(
        c.precision() >= f.precision() && c.has_subnormals(),
        source,
        "the accumulator is at least as precise as the bin format and has subnormals",
        || format!("{f} accumulated in {c}"),
    )?;
    // Products of cast values are multiples of 2^(-2 p_F); if the accumulator's
    // smallest subnormal divides that, its subnormal-range results are exact.
    let granularity = -2 * f.precision() as i32;
    let smallest = c.emin() - c.precision() as i32 + 1;
    require(
        granularity >= smallest,
        source,
        "products are multiples of the accumulator's smallest subnormal",
        || format!("2^{granularity} versus 2^{smallest} in {c}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fexp_definitions_agree_exactly_where_expected() {
        for &x in &[1.0, 2.0, 3.5, 1e300, 0.5, 0.25, 2f64.powi(-1074), f64::MAX] {
            assert_eq!(Fexp::Ieee.of(x), Fexp::Paper.of(x), "{x}");
            assert_eq!(Fexp::Ieee.of(-x), Fexp::Ieee.of(x));
        }
        for &x in &[0.75, 0.3, 3.0 * 2f64.powi(-1074), 0.999_999] {
            assert_eq!(Fexp::Paper.of(x), Fexp::Ieee.of(x).map(|e| e + 1), "{x}");
        }
    }

    #[test]
    fn pow2_up_covers_every_range() {
        assert_eq!(pow2_up(0), 1.0);
        assert_eq!(pow2_up(-1074), f64::from_bits(1));
        assert_eq!(pow2_up(-3000), f64::from_bits(1));
        assert_eq!(pow2_up(1024), f64::INFINITY);
        assert_eq!(pow2_up(-1030), 2f64.powi(-1030));
    }

    #[test]
    fn count_up_is_an_upper_bound() {
        assert_eq!(count_up(3), 3.0);
        let n = (1u64 << 53) + 1;
        assert!(count_up(n) >= n as f64 && count_up(n) as u64 >= n);
        assert!(count_up(u64::MAX) >= 1.8e19);
    }

    #[test]
    fn floor_log2_tolerance_is_exact() {
        for (eps, d, want) in [
            (1.0, 1, 0),
            (1.0, 2, -1),
            (1.0, 3, -2),
            (0.75, 1, -1),
            (3.0, 3, 0),
            (2f64.powi(-1074), 1, -1074),
            (1e-16, 4, -56),
        ] {
            assert_eq!(floor_log2_tolerance(eps, d).unwrap(), want, "{eps} / {d}");
        }
    }
}
