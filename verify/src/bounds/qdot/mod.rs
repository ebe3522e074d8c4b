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
//! `[e_min, e_max]` (§3.2). Theorems 3.2-3.5 are stated for Definition 3.1's
//! bins of `x ⊙ y`, by `e_i = fexp(x_i y_i)`, which the exponent sum can
//! undershoot by one; both are here ([`Binning`]), Algorithm 3.2's the default. `fexp(0)` is undefined; we define the binning to
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
//! axiom of floating point arithmetic \[19\]" (Trefethen & Bau), whose
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
//! on scaled values `a_j = x_j 2^-fexp(x_j)`, `b_j = y_j 2^-(u_k - fexp(x_j))`
//! (exact; `a_j` in `[1/2, 2)`, `b_j` in `[1/2, 2)` for Algorithm 3.2's bins and
//! in `[1/4, 4)` for Def. 3.1's), so `x_j y_j = a_j b_j 2^(u_k)`. With `A_k >= sum |a_j b_j|`,
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
//! product is a multiple of `2^(-2 p_F - 1)` (`a^_j >= 1/2`, `b^_j >= 1/4` are
//! multiples of `2^-p_F` and `2^(-p_F - 1)`), a multiple of the accumulator's
//! smallest subnormal (`2^-24` for fp16, the narrowest, against `2^-23`), so sums in the subnormal range are exact (Higham 2002,
//! §2.1); the conversion is one rounding `(1 + d) v + eta`; the rescale by a
//! power of two is exact unless the result is subnormal (`|error| <= eta_I`);
//! the cross-bin sum is a recursive sum of `q` terms in `I`, whose subnormal
//! sums are exact. No intermediate overflows: checked for each bin
//! (`(1 + u_C)^(d_k) A^_k <= max(C)`) and for the cross-bin sum.
//!
//! [`corrected_thm_3_2`] is the same bound with `A_k` replaced by its a-priori
//! value: `4 M_k` on Algorithm 3.2's bins (a product of a bin is below
//! `2^(u_k + 2)` for both `fexp` definitions), `2 M_k` on Def. 3.1's (below
//! `2^(u_k + 1)`): the printed Theorem 3.2 made rigorous, in its own terms.

use super::directed::{add_up, div_up, mul_up};
use super::dot::ceil_log2;
use super::{Bound, Quantity, Rigor, Source, require};
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, RoundingMode, exponent_of};
use crate::oracle::ExactSum;
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

mod binning;
mod published;
mod rigorous;
mod selection;

pub use binning::*;
pub use published::*;
pub use rigorous::*;
pub use selection::*;

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
