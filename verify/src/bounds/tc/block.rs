//! Rigorous bounds for the arithmetic tensor cores actually perform: the
//! block fused multiply-add (block FMA).
//!
//! # The model
//!
//! Measured on V100, T4 and A100 by Fasi, Higham, Mikaitis and Pranesh
//! ("Numerical behavior of NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330,
//! 2021), parametrised by Khattak and Mikaitis (MATLAB-tensor-core,
//! `models/tools/Generic_BFMA_TC.m`: block size, extra alignment bits) and
//! simulated bit for bit by Xie et al. (MMA-Sim, arXiv 2511.10909,
//! `mmasim/simulator/functions.py: fused_sum, nv_fused_dot_add`). One block
//! step computes `c' = fl_acc(c + sum_{j=1}^b a_j b_j)`:
//!
//! 1. each factor `x` is written `s 2^e` with `e = max(floor(log2 |x|), emin)`
//!    (a subnormal keeps the exponent `emin` and a significand below 1); a
//!    product gets the exponent `e_a + e_b` and is exact; `c` likewise with
//!    the accumulator format's `emin`; zero terms take no part;
//! 2. every term is truncated toward zero to a multiple of `Q = 2^(E - F)`,
//!    `E` the largest exponent in the block, `F` the number of fractional bits
//!    kept (23 + extra alignment bits: 24 on Ampere, 25 on Hopper, 13 for
//!    Hopper fp8);
//! 3. the truncated terms are summed exactly and the sum is rounded once to
//!    the accumulator format (toward zero for fp32, to nearest for fp16).
//!
//! Theorems 3.7-3.10 model a rounding after every ADDITION instead, and the
//! two disagree (docs/findings/mpfma.md has counterexamples).
//!
//! # The rigorous bound
//!
//! For block `i` with `N_i` nonzero terms, the term with the largest exponent
//! is exact (its fractional bits fit `F`: checked in [`BlockFmaSpec::validate`]),
//! every other loses less than `Q_i`, and the rounding of the sum `x_i`
//! adds at most `u_acc |x_i| + eta_acc` (Higham 2002 eq. (2.8); `u_acc` of the
//! output mode, `2^(1-p)` toward zero). The next block takes `c` as computed,
//! so the errors ADD: `|s^ - s| <= sum_i ((N_i - 1) Q_i + u_acc |x_i| + eta_acc)`.
//!
//! - A PRIORI ([`block_fma_a_priori`]): `2^e <= max(|x|, 2^emin)` for every
//!   factor, so `Q_i <= 2^-F max(max_j m_j, max(R_{i-1}, 2^emin_acc))`,
//!   `m_j = max(|a_j|, 2^emin) max(|b_j|, 2^emin)`, with `R_i` a bound on
//!   `|c_i|`: `R_0 = 0`, `R_i = R_{i-1} + P_i + u_acc (R_{i-1} + P_i) + eta_acc`,
//!   `P_i = sum_{j in block i} |a_j b_j|`, and `|x_i| <= R_{i-1} + P_i`.
//!   Without subnormal factors this is at most `((1 + beta)^q - 1) S`,
//!   `beta = b 2^-F + u_acc` ([`block_fma_constant`]).
//! - A POSTERIORI ([`block_fma_a_posteriori`]), from the computed block
//!   results `s^_i` (observable: run the product with `K = b, 2b, ...`):
//!   `E_i` exactly, and `|x_i - s^_i| <= ulp(s^_i)` (toward zero) or
//!   `ulp(s^_i) / 2` (to nearest).
//!
//! Both need no overflow: `R_{i-1} + P_i <= max_finite` of the accumulator
//! (a priori) or finite partials (a posteriori), where a partial equal to
//! `+-max_finite` that a directed or saturating rounding may have made of an
//! overflow is accepted only if `|s^_{i-1}| + P_i` is within one rounding of it.

use super::super::directed::{add_up, expm1_up, ln1p_up, mul_up};
use super::super::gamma::u64_up;
use super::super::{Bound, Quantity, Rigor, Source, require};
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, OverflowPolicy, RoundingMode, exponent_of, pow2};
use serde::Serialize;

/// The source of the block-FMA bounds (derivation in the module documentation).
pub const BLOCK_FMA_SOURCE: Source = Source::new(
    "boundgate (block-FMA arithmetic of Fasi, Higham, Mikaitis and Pranesh 2021; Khattak and Mikaitis; Xie et al., MMA-Sim, arXiv 2511.10909)",
    "rigorous block-FMA bound",
    None,
);

/// The parameters of a block-FMA arithmetic that the bounds depend on.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::BlockFmaSpec;
/// use boundgate_verify::format::{Format, RoundingMode};
/// // H100, fp16 inputs, fp32 accumulation (MMA-Sim: 25 fractional bits, blocks of 16).
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// assert!(h100.validate().is_ok());
/// let bad = BlockFmaSpec::new(16, 12, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// assert!(bad.validate().is_err()); // fp16 products have 20 fractional bits
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BlockFmaSpec {
    /// Products per block step (`b`).
    pub block: usize,
    /// Fractional bits kept after alignment to the largest exponent (`F`).
    pub fraction_bits: u32,
    /// Format of the factors `a_j`, `b_j` (its `emin` clamps their exponents).
    pub input: Format,
    /// Format of `c` and of every block result.
    pub accumulator: Format,
    /// Rounding of every block result.
    pub output_mode: RoundingMode,
    /// Subnormal factors are flushed to zero before the products.
    pub flush_inputs: bool,
    /// Subnormal block results are flushed to zero.
    pub flush_outputs: bool,
}

impl BlockFmaSpec {
    /// A spec with subnormals kept in and out.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::BlockFmaSpec;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// // A `const fn`: an arithmetic can be a constant.
    /// const A100: BlockFmaSpec = BlockFmaSpec::new(8, 24, Format::FP16, Format::FP32, RoundingMode::TowardZero);
    /// assert_eq!((A100.block, A100.fraction_bits), (8, 24));
    /// assert!(!A100.flush_inputs && !A100.flush_outputs); // subnormals kept
    /// assert!(A100.validate().is_ok());
    /// ```
    pub const fn new(
        block: usize,
        fraction_bits: u32,
        input: Format,
        accumulator: Format,
        output_mode: RoundingMode,
    ) -> BlockFmaSpec {
        BlockFmaSpec {
            block,
            fraction_bits,
            input,
            accumulator,
            output_mode,
            flush_inputs: false,
            flush_outputs: false,
        }
    }

    /// Checks the hypotheses of the bounds: `block >= 1`, `F <= 60`, and that
    /// a product's and the accumulator's fractional bits fit `F`
    /// (`2 (p_in - 1) <= F`, `p_acc - 1 <= F`), so the largest-exponent term
    /// is never truncated.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] naming the field.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::tc::BlockFmaSpec;
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let spec = |block, f| BlockFmaSpec::new(block, f, Format::FP16, Format::FP32, RoundingMode::TowardZero);
    /// // fp16 products have 2 (11 - 1) = 20 fractional bits, fp32 values 23: F = 23 is the least.
    /// assert!(spec(16, 23).validate().is_ok());
    /// assert!(spec(16, 22).validate().is_err());
    /// assert!(spec(16, 61).validate().is_err()); // F <= 60
    /// assert!(spec(0, 25).validate().is_err()); // block >= 1
    /// ```
    pub fn validate(&self) -> Result<()> {
        if self.block == 0 {
            return Err(VerifyError::invalid("block", 0, "must be at least 1"));
        }
        if self.fraction_bits > 60 {
            return Err(VerifyError::invalid(
                "fraction_bits",
                self.fraction_bits,
                "must be at most 60",
            ));
        }
        let product_bits = 2 * (self.input.precision() - 1);
        if product_bits > self.fraction_bits {
            return Err(VerifyError::invalid(
                "fraction_bits",
                self.fraction_bits,
                format!(
                    "a product of two {} numbers has {product_bits} fractional bits, more than F",
                    self.input
                ),
            ));
        }
        if self.accumulator.precision() - 1 > self.fraction_bits {
            return Err(VerifyError::invalid(
                "fraction_bits",
                self.fraction_bits,
                format!(
                    "the accumulator {} has more fractional bits than F",
                    self.accumulator
                ),
            ));
        }
        Ok(())
    }

    /// `u` and `eta` of the rounding of a block result.
    pub(super) fn output_errors(&self) -> (f64, f64) {
        let u = self.accumulator.unit_roundoff(self.output_mode);
        let eta = if self.flush_outputs {
            self.accumulator.min_positive_normal()
        } else {
            self.accumulator.underflow_abs_error(self.output_mode)
        };
        (u, eta)
    }

    pub(super) fn flushes(&self, x: f64) -> bool {
        self.flush_inputs && x != 0.0 && x.abs() < self.input.min_positive_normal()
    }

    /// `2^-F`.
    pub(super) fn quantum_scale(&self) -> f64 {
        pow2(-(self.fraction_bits as i32))
    }
}

/// `2^e` with `e = max(floor(log2 |x|), emin)` for nonzero finite `x`.
fn exponent_scale(x: f64, format: Format) -> f64 {
    pow2(exponent_of(x).max(format.emin()))
}

/// Whether the block result `s` may be an overflow that the rounding turned
/// into `+-max_finite` rather than an infinity: toward zero both signs, toward
/// +inf the negative one, toward -inf the positive one (IEEE 754-2019 §7.4;
/// `OverflowPolicy::Nan` formats do the same where IEEE gives a finite value),
/// and any sign and mode for a saturating format.
fn may_have_saturated(spec: &BlockFmaSpec, s: f64) -> bool {
    let acc = spec.accumulator;
    if s.abs() != acc.max_finite() {
        return false;
    }
    if acc.overflow_policy() == OverflowPolicy::Saturate {
        return true;
    }
    match spec.output_mode {
        RoundingMode::NearestEven => false,
        RoundingMode::TowardZero => true,
        RoundingMode::Up => s < 0.0,
        RoundingMode::Down => s > 0.0,
    }
}

/// Every input finite and a number of `spec.input`, else
/// [`VerifyError::HypothesisNotMet`] of `source`. The models' products are
/// those of the values the unit reads, so a value outside the format is not
/// what it computes with. Found by review (2026-11-29): 0.1 given to an fp16
/// spec was accepted by the any-order bound, and the unit's reading of it,
/// 0.0999755859375, alone exceeded the bound returned (2.4e-5 against
/// 1.5e-8); the a-priori and a-posteriori bounds took such values too.
pub(super) fn readable_inputs(
    spec: &BlockFmaSpec,
    x: &[f64],
    y: &[f64],
    source: &Source,
) -> Result<()> {
    for (name, v) in [("A", x), ("B", y)] {
        if let Some(i) = v.iter().position(|a| !a.is_finite()) {
            return Err(VerifyError::HypothesisNotMet {
                source_ref: source.to_string(),
                hypothesis: "finite inputs".into(),
                detail: format!("{name}[{i}] = {}", v[i]),
            });
        }
    }
    for (name, v) in [("A", x), ("B", y)] {
        if let Some(i) = v.iter().position(|&a| !is_number_of(spec.input, a)) {
            return Err(VerifyError::HypothesisNotMet {
                source_ref: source.to_string(),
                hypothesis: format!(
                    "inputs are {} numbers (the values the unit reads)",
                    spec.input
                ),
                detail: format!("{name}[{i}] = {:e} is not", v[i]),
            });
        }
    }
    Ok(())
}

/// [`Format::is_representable`] for a finite `v`, without rounding (the
/// check runs once per input in a GEMM's bound, where rounding each value
/// cost five times the rest of the bound): `v` is within the range and a
/// multiple of the format's spacing at `v`. `|v| / ulp` lies in `[1, 2^p]`,
/// so the division by a power of two is exact.
pub(super) fn is_number_of(format: Format, v: f64) -> bool {
    let a = v.abs();
    if a == 0.0 {
        return true;
    }
    if a > format.max_finite() || a < format.min_positive() {
        return false;
    }
    (a / format.ulp(a)).fract() == 0.0
}

/// The a-priori rigorous bound (module documentation) on `|s^ - sum_j x_j y_j|`
/// for one inner product computed by chained block FMAs from `c = 0`, with
/// `x`, `y` the values the unit reads (already in its input format).
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for different lengths, an invalid spec,
/// [`VerifyError::HypothesisNotMet`] for non-finite inputs or a possible overflow.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_a_priori, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let spec = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// let x = vec![1.0; 64];
/// let b = block_fma_a_priori(&spec, &x, &x).unwrap();
/// // 4 blocks: at most 16 truncations of 2^(E-25) and one fp32 rounding (toward zero) each
/// assert!(b.value < 4.0 * (16.0 * 64.0 * 2f64.powi(-25) + 64.0 * 2f64.powi(-22)));
/// ```
pub fn block_fma_a_priori(spec: &BlockFmaSpec, x: &[f64], y: &[f64]) -> Result<Bound> {
    spec.validate()?;
    require_same_len("x and y", x.len(), y.len())?;
    readable_inputs(spec, x, y, &BLOCK_FMA_SOURCE)?;
    let (u_acc, eta_acc) = spec.output_errors();
    let acc = spec.accumulator;
    let floor_in = spec.input.min_positive_normal();
    let floor_acc = acc.min_positive_normal();
    let scale = spec.quantum_scale();
    let mut r = 0.0f64; // bound on |c_{i-1}|
    let mut error = 0.0f64;
    let mut largest: f64 = 0.0;
    for (xs, ys) in x.chunks(spec.block).zip(y.chunks(spec.block)) {
        let (mut p, mut m, mut nnz, mut flushed) = (0.0f64, 0.0f64, 0usize, 0.0f64);
        for (&a, &b) in xs.iter().zip(ys) {
            if a == 0.0 || b == 0.0 {
                continue;
            }
            let prod = mul_up(a.abs(), b.abs());
            if spec.flushes(a) || spec.flushes(b) {
                flushed = add_up(flushed, prod); // the product is lost entirely
                continue;
            }
            p = add_up(p, prod);
            m = m.max(mul_up(a.abs().max(floor_in), b.abs().max(floor_in)));
            nnz += 1;
        }
        error = add_up(error, flushed);
        if nnz == 0 {
            continue; // c passes through exactly
        }
        let c_nonzero = r > 0.0;
        let c_scale = if c_nonzero { r.max(floor_acc) } else { 0.0 };
        let quantum = mul_up(scale, m.max(c_scale));
        let inexact = nnz + usize::from(c_nonzero) - 1;
        let sum_mag = add_up(r, p);
        largest = largest.max(sum_mag);
        let out = add_up(mul_up(u_acc, sum_mag), eta_acc);
        error = add_up(error, add_up(mul_up(inexact as f64, quantum), out));
        r = add_up(sum_mag, out);
    }
    require(
        largest <= acc.max_finite(),
        &BLOCK_FMA_SOURCE,
        "no overflow: |c| + sum |a_j b_j| <= max_finite of the accumulator in every block",
        || format!("up to {largest:e} > {:e} ({acc})", acc.max_finite()),
    )?;
    Ok(Bound::deterministic(
        error,
        Quantity::AbsoluteError,
        BLOCK_FMA_SOURCE,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "block FMA: exact products, alignment to the largest exponent, truncation to F fractional bits, one rounding per block",
        format!(
            "b = {}, F = {}, inputs {}, accumulator {} ({})",
            spec.block, spec.fraction_bits, spec.input, acc, spec.output_mode
        ),
    )
    .with_hypothesis("no overflow", format!("block sums <= {largest:e}")))
}

/// The a-posteriori rigorous bound (module documentation) from the computed
/// block results `partials` (`s^_1, ..., s^_q`, the last one the result).
///
/// # Errors
/// As [`block_fma_a_priori`], and [`VerifyError::LengthMismatch`] unless
/// there is one partial per block; a non-finite partial is
/// [`VerifyError::HypothesisNotMet`] (no bound after an overflow).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_a_posteriori, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let spec = BlockFmaSpec::new(2, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// // 1 + 2^-30: the small product is truncated away (E = 0, Q = 2^-25), result 1.
/// let x = [1.0, 2f64.powi(-15)];
/// let y = [1.0, 2f64.powi(-15)];
/// let b = block_fma_a_posteriori(&spec, &x, &y, &[1.0]).unwrap();
/// assert_eq!(b.value, 2f64.powi(-25) + 2f64.powi(-23)); // one truncation + one fp32 ulp at 1
/// assert!(b.value >= 2f64.powi(-30));
/// ```
pub fn block_fma_a_posteriori(
    spec: &BlockFmaSpec,
    x: &[f64],
    y: &[f64],
    partials: &[f64],
) -> Result<Bound> {
    spec.validate()?;
    require_same_len("x and y", x.len(), y.len())?;
    readable_inputs(spec, x, y, &BLOCK_FMA_SOURCE)?;
    let blocks = x.len().div_ceil(spec.block);
    require_same_len("partials and blocks", partials.len(), blocks)?;
    if let Some(i) = partials.iter().position(|s| !s.is_finite()) {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: BLOCK_FMA_SOURCE.to_string(),
            hypothesis: "finite block results (no overflow)".into(),
            detail: format!("block {i} gave {}", partials[i]),
        });
    }
    let acc = spec.accumulator;
    let mut c = 0.0f64;
    let mut error = 0.0f64;
    for ((xs, ys), &s) in x.chunks(spec.block).zip(y.chunks(spec.block)).zip(partials) {
        let mut top: Option<f64> = (c != 0.0).then(|| exponent_scale(c, acc));
        let mut terms = usize::from(c != 0.0);
        for (&a, &b) in xs.iter().zip(ys) {
            if a == 0.0 || b == 0.0 {
                continue;
            }
            if spec.flushes(a) || spec.flushes(b) {
                error = add_up(error, mul_up(a.abs(), b.abs()));
                continue;
            }
            let scale = exponent_scale(a, spec.input) * exponent_scale(b, spec.input);
            top = Some(top.map_or(scale, |t| t.max(scale)));
            terms += 1;
        }
        if may_have_saturated(spec, s) {
            // A toward-zero (or saturating) overflow gives +-max_finite, finite:
            // finite partials alone did not exclude it, and the bound then missed
            // the whole excess (bf16 inputs, fp32 toward zero: 2^127 2 + 2^127 2
            // = 2^129 gave f32::MAX and a bound of 3 2^103 for an error of
            // 2^128 + 2^104; review, 2026-11-29). Accept `s` only where the exact
            // block sum is provably within one rounding of it.
            let magnitude = xs
                .iter()
                .zip(ys)
                .filter(|&(&a, &b)| !spec.flushes(a) && !spec.flushes(b))
                .fold(c.abs(), |m, (&a, &b)| add_up(m, mul_up(a.abs(), b.abs())));
            let half = spec.output_mode == RoundingMode::NearestEven;
            let reach = acc.ulp(s) / if half { 2.0 } else { 1.0 };
            let limit = acc.max_finite() + reach; // exact, or +inf beyond f64
            if !(magnitude.is_finite() && magnitude <= limit) {
                return Err(VerifyError::HypothesisNotMet {
                    source_ref: BLOCK_FMA_SOURCE.to_string(),
                    hypothesis: "no overflow (a saturated block result)".into(),
                    detail: format!(
                        "block result {s:e} is the largest finite {acc} value and |c| + sum |a_j b_j| <= {magnitude:e} does not exclude an overflow"
                    ),
                });
            }
        }
        if terms > usize::from(c != 0.0) {
            let quantum = mul_up(top.unwrap_or(0.0), spec.quantum_scale());
            let truncation = mul_up((terms - 1) as f64, quantum);
            let rounding = if spec.flush_outputs && s == 0.0 {
                acc.min_positive_normal()
            } else if spec.output_mode == RoundingMode::NearestEven {
                acc.ulp(s) / 2.0
            } else {
                acc.ulp(s)
            };
            error = add_up(error, add_up(truncation, rounding));
        }
        c = s;
    }
    Ok(Bound::deterministic(
        error,
        Quantity::AbsoluteError,
        BLOCK_FMA_SOURCE,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        "block FMA (a posteriori, from the computed block results)",
        format!(
            "b = {}, F = {}, accumulator {} ({})",
            spec.block, spec.fraction_bits, acc, spec.output_mode
        ),
    ))
}

/// The coefficient `(1 + beta)^q - 1`, `beta = b 2^-F + u_acc`, rounded up:
/// without subnormal factors and underflow, [`block_fma_a_priori`] is at most
/// this times `sum_j |a_j b_j|` over `q` blocks. For comparison with
/// Theorem 3.7's `zeta` (about `(n - 1 + q) u`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_constant, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// let u = 2f64.powi(-24);
/// // q = 2048 blocks of 16: about 2048 (8 + 2) u, against Theorem 3.7's (32767 + 2048) u.
/// let k = block_fma_constant(&h100, 2048);
/// assert!(k > 2048.0 * 10.0 * u && k < 2048.0 * 10.01 * u);
/// ```
pub fn block_fma_constant(spec: &BlockFmaSpec, q: u64) -> f64 {
    let (u_acc, _) = spec.output_errors();
    let beta = add_up(mul_up(spec.block as f64, spec.quantum_scale()), u_acc);
    expm1_up(mul_up(u64_up(q), ln1p_up(beta)))
}
