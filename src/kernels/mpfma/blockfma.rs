//! The bit-exact tensor-core model: chained block FMAs on integers.
//!
//! One block step (the semantics of MMA-Sim's `nv_fused_dot_add`, Xie et al.,
//! arXiv 2511.10909, `mmasim/simulator/functions.py`; Fasi et al. 2021; the
//! derivation of its error bound is in `boundgate_verify::bounds::tc`):
//!
//! 1. every factor `x` of the input format (precision `p`, minimum exponent
//!    `emin`) is split as `x = s 2^(e - p + 1)`, `e = max(floor(log2|x|), emin)`,
//!    `s` an integer below `2^p`; a product `a b` is the exact integer
//!    `s_a s_b` at exponent `e_a + e_b` with `2 (p - 1)` fractional bits; `c`
//!    likewise in the accumulator format; zeros take no part;
//! 2. with `E` the largest exponent, every term is shifted to `F` fractional
//!    bits below `2^E` and truncated toward zero (an integer shift of its
//!    magnitude);
//! 3. the integers are summed exactly (each term is below `2^(F+2)`, `F <= 60`;
//!    in an `i64` where the block and `c` fit it, in an `i128` otherwise)
//!    and `sum 2^(E - F)` is rounded once to the accumulator format (through
//!    `f64` while the sum has at most 53 bits, through MPFR beyond, never
//!    twice): toward zero for fp32 (and for Hopper fp8's 13-bit fp32), to
//!    nearest even for fp16;
//!    a magnitude at or above `2^(emax + 1)` gives infinity (MMA-Sim converts
//!    with `torch.tensor`), an exact zero gives `+0`, and so does a nonzero
//!    sum that rounds to zero (MMA-Sim rounds with Python integers, whose
//!    zero has no sign; the tensor cores' sign there is not measured yet).
//!
//! NaN and infinity follow MMA-Sim: if the binary64 sum of the block's
//! products and `c` is NaN or infinite, so is the result.
//!
//! A GEMM chains the steps along the inner dimension from `c = 0`, one output
//! element at a time: `D_ij = step(step(...step(0, block 1)..., block q-1), block q)`,
//! which is Algorithm 1's order and the order of `kernels/mpfma_gemm.cu`.
//! The inner dimension need not be a multiple of the block: the last block
//! is shorter, which is exactly the same as padding with zeros (a zero term
//! takes no part in the alignment).

use super::record::TcRecord;
use crate::kernels::shape_len;
use boundgate_verify::error::{Result, require_same_len};
use boundgate_verify::format::{Format, RoundingMode};
use rug::Float;

/// Exponent given to zero terms: far below every real exponent, so they never
/// set the alignment, and their (zero) significands shift to zero.
const ZERO_EXP: i32 = -(1 << 24);
/// Any block whose largest exponent is below this has only zero terms.
const ALL_ZERO: i32 = -(1 << 23);
/// The most fractional bits a unit keeps (`BlockFmaSpec::validate`'s limit):
/// every aligned term is then below `2^62`, so its shifts stay inside a `u64`.
const MAX_FRACTION_BITS: u32 = 60;

/// `floor(log2 |x|)` for finite nonzero `x`.
#[inline]
fn floor_log2(x: f64) -> i32 {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        let m = bits & ((1u64 << 52) - 1);
        -1074 + (63 - m.leading_zeros() as i32)
    } else {
        field - 1023
    }
}

/// `2^e` for `-1022 <= e <= 1023`.
#[inline]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `x = sig 2^(exp - p + 1)` with `exp = max(floor(log2|x|), emin)`; zero gives
/// `(0, ZERO_EXP)`. Exact for every value of a format with precision `p`
/// (other values are truncated toward zero), over the whole `f64` range: the
/// significand is shifted out of `x`'s bits, where a scaling by
/// `2^(p - 1 - exp)` left `f64`'s exponent range below `2^-971` with a
/// binary64 accumulator (`pow2(1049)` is no power of two: `c = 1e-300`
/// decoded to 0; 2026-11-29, tests/numerics_models_edges.rs).
#[inline]
fn decode(x: f64, precision: u32, emin: i32) -> (i64, i32) {
    if x == 0.0 {
        return (0, ZERO_EXP);
    }
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    // |x| = m 2^q exactly.
    let (m, q) = if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), field - 1075)
    };
    let e = floor_log2(x).max(emin);
    // sig = trunc(|x| / 2^(e - p + 1)) = trunc(m 2^(q - (e - p + 1))), below 2^p.
    let down = e - precision as i32 + 1 - q;
    let sig = if down >= 64 {
        0
    } else if down >= 0 {
        (m >> down) as i64
    } else {
        (m << -down) as i64
    };
    (if x < 0.0 { -sig } else { sig }, e)
}

/// The block-FMA arithmetic of one record, ready to run.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::blockfma::BlockFma;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let unit = BlockFma::new(&TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap());
/// // [1, -1, 2^-13] . [1, 1, 2^-13]: an fp32 FMA chain gives 1, 0, then 2^-26 exactly;
/// // the block FMA aligns 2^-26 to 2^0 with 25 fractional bits and truncates it away.
/// let a = [1.0, -1.0, 2f64.powi(-13)];
/// let b = [1.0, 1.0, 2f64.powi(-13)];
/// assert_eq!(unit.step(&a, &b, 0.0).unwrap(), 0.0);
/// let chain = a.iter().zip(&b).fold(0.0f32, |s, (x, y)| (*x as f32).mul_add(*y as f32, s));
/// assert_eq!(chain as f64, 2f64.powi(-26));
/// ```
#[derive(Clone, Debug)]
pub struct BlockFma {
    record: TcRecord,
    operand: Format,
    accumulator: Format,
    /// Left shift of a product's integer to `F` fractional bits.
    shift_product: u32,
    /// Left shift of `c`'s integer to `F` fractional bits.
    shift_c: u32,
    fraction_bits: i32,
    /// Fast fp32-range truncation: the number of fraction bits kept, if applicable.
    truncate_bits: Option<u32>,
    /// Whether a block of the record's size and `c` sum inside an `i64`
    /// (`(block + 1) 2^(F+2) <= 2^63`): the fast path's cheaper accumulator.
    narrow_blocks: bool,
}

impl BlockFma {
    /// The arithmetic of `record`.
    ///
    /// # Panics
    /// Never for the records of [`TcRecord::lookup`]; a hand-made record
    /// whose fractional bits cannot hold a product, or that has more than 60
    /// of them, is a programming error (its `spec().validate()` fails first
    /// where records come from users).
    /// A hand-made record with `block` 0 is taken with block 1
    /// ([`TcRecord::with_block`]): a block holds at least one product.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let rec = |arch| TcRecord::lookup(arch, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// let (a100, h100) = (BlockFma::new(&rec(Arch::Sm80)), BlockFma::new(&rec(Arch::Sm90)));
    /// // 1 - 1 + 2^-12 2^-13: aligned to 2^0, the 2^-25 needs 25 fractional bits.
    /// let (x, y) = ([1.0, -1.0, 2f64.powi(-12)], [1.0, 1.0, 2f64.powi(-13)]);
    /// assert_eq!(a100.step(&x, &y, 0.0).unwrap(), 0.0); // F = 24: truncated away
    /// assert_eq!(h100.step(&x, &y, 0.0).unwrap(), 2f64.powi(-25)); // F = 25: kept
    /// // A hand-made record with block 0 computes in blocks of 1.
    /// let zero = BlockFma::new(&TcRecord { block: 0, ..rec(Arch::Sm90) });
    /// assert_eq!(zero.record().block, 1);
    /// assert_eq!(zero.chain(&[1.0; 3], &[1.0; 3], 0.0).unwrap(), (3.0, vec![1.0, 2.0, 3.0]));
    /// ```
    /// A record whose `F` cannot hold a product is refused:
    /// ```should_panic
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let mut r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// r.fraction_bits = 12; // fp16 products have 20 fractional bits
    /// BlockFma::new(&r);
    /// ```
    pub fn new(record: &TcRecord) -> BlockFma {
        // `chain` splits by the block and `chain_fast` steps by it: a block
        // of 0 panicked there, or looped forever.
        let record = &record.with_block(record.block);
        let operand = record.input.operand();
        let accumulator = record.accumulator;
        let product_bits = 2 * (operand.precision() - 1);
        let acc_bits = accumulator.precision() - 1;
        assert!(
            record.fraction_bits >= product_bits && record.fraction_bits >= acc_bits,
            "record {}: F = {} cannot hold the operands",
            record.label(),
            record.fraction_bits
        );
        // Above 60 the aligned terms no longer fit the shifts' `u64` (a
        // hand-made F = 64 overflowed a shift inside `step`, not here).
        assert!(
            record.fraction_bits <= MAX_FRACTION_BITS,
            "record {}: F = {} cannot exceed {MAX_FRACTION_BITS}",
            record.label(),
            record.fraction_bits
        );
        let fp32_range = accumulator.emin() == -126 && accumulator.emax() == 127;
        let truncate_bits = (fp32_range
            && record.output_mode == RoundingMode::TowardZero
            && record.subnormal_outputs)
            .then_some(acc_bits);
        BlockFma {
            record: *record,
            operand,
            accumulator,
            shift_product: record.fraction_bits - product_bits,
            shift_c: record.fraction_bits - acc_bits,
            fraction_bits: record.fraction_bits as i32,
            truncate_bits,
            narrow_blocks: ((record.block as u128 + 1) << (record.fraction_bits + 2)) <= 1 << 63,
        }
    }

    /// The record.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let r = TcRecord::lookup(Arch::Sm80, TcInput::Bf16, TcOutput::Fp32).unwrap().with_block(4);
    /// let unit = BlockFma::new(&r);
    /// assert_eq!(unit.record(), &r);
    /// assert_eq!(unit.chain(&[1.0; 10], &[1.0; 10], 0.0).unwrap().1.len(), 3); // blocks of the record's 4
    /// ```
    pub fn record(&self) -> &TcRecord {
        &self.record
    }

    /// Decodes an operand (a value of the input format, as the unit reads it).
    #[inline]
    fn decode_operand(&self, x: f64) -> (i64, i32) {
        let x = if !self.record.subnormal_inputs && x.abs() < self.operand.min_positive_normal() {
            0.0
        } else {
            x
        };
        decode(x, self.operand.precision(), self.operand.emin())
    }

    #[inline]
    fn decode_acc(&self, c: f64) -> (i64, i32) {
        decode(c, self.accumulator.precision(), self.accumulator.emin())
    }

    /// Rounds `acc 2^(e_max - F)` to the accumulator format; a result that
    /// rounds to zero is `+0`, whatever the sign of the sum.
    #[inline]
    fn finish(&self, acc: i128, e_max: i32) -> f64 {
        let rounded = self.round_to_accumulator(acc, e_max);
        // MMA-Sim normalises with Python integers (`round(s * 2.0**10)` for
        // fp16, `math.trunc(s * 2.0**23)` for fp32: `nv_fused_dot_add`), whose
        // zero has no sign, so a negative sum below the output's least
        // subnormal gives +0, where IEEE rounding keeps -0. The model gave -0
        // until 2026-11-29 (found by the heavy run of
        // tests/mpfma_model.rs::block_step_matches_the_exact_reference: sm90
        // fp16->fp16, a*b = -8.7e-13 from c = +0). Which sign the tensor cores
        // give is not measured yet: tests/mpfma_gpu.rs
        // `the_sign_of_a_result_that_rounds_to_zero_matches_the_model` asks
        // the device. The sign of a zero never changes an error.
        if rounded == 0.0 { 0.0 } else { rounded }
    }

    /// [`Self::finish`] before the sign of a zero result is settled.
    #[inline]
    fn round_to_accumulator(&self, acc: i128, e_max: i32) -> f64 {
        if acc == 0 {
            return 0.0;
        }
        let scale = e_max - self.fraction_bits;
        if acc.unsigned_abs() >= 1 << 53 || scale < -1022 || self.accumulator.emax() > 1022 {
            return self.round_wide(acc, e_max);
        }
        // Exact: |acc| < 2^53 and the scale is a power of two in range.
        let r = (acc as i64) as f64 * pow2(scale);
        let acc_fmt = self.accumulator;
        let a = r.abs();
        if a >= pow2(acc_fmt.emax() + 1) {
            return f64::INFINITY.copysign(r);
        }
        if let Some(bits) = self.truncate_bits {
            if a >= pow2(acc_fmt.emin()) {
                let mask = (1u64 << (52 - bits)) - 1;
                return f64::from_bits(r.to_bits() & !mask);
            }
            let quantum = pow2(acc_fmt.emin() - bits as i32);
            return (r / quantum).trunc() * quantum;
        }
        let rounded = acc_fmt.round(r, self.record.output_mode);
        if !self.record.subnormal_outputs && rounded.abs() < acc_fmt.min_positive_normal() {
            return 0.0;
        }
        rounded
    }

    /// [`Self::round_to_accumulator`] for a sum of more than 53 bits (a
    /// hand-made `F` above about 45, or a step over some 2^26 products), or
    /// a scale or range that `f64`'s normal powers of two do not reach (a
    /// hand-made binary64 accumulator):
    /// `acc as f64` rounded it to nearest before the accumulator's rounding,
    /// a double rounding (`F = 50`: `2^54 - 1` units of `2^-48` gave 64
    /// where fp32 toward zero is `64 - 2^-18`; found 2026-11-29,
    /// tests/numerics_models_edges.rs). MPFR holds it exactly and the
    /// format rounds it once.
    #[cold]
    fn round_wide(&self, acc: i128, e_max: i32) -> f64 {
        let exact = Float::with_val(128, acc) << (e_max - self.fraction_bits);
        let acc_fmt = self.accumulator;
        let limit = Float::with_val(2, 1) << (acc_fmt.emax() + 1);
        if exact.cmp_abs(&limit) != Some(std::cmp::Ordering::Less) {
            return f64::INFINITY.copysign(exact.to_f64());
        }
        let rounded = acc_fmt.round_float(&exact, self.record.output_mode);
        if !self.record.subnormal_outputs && rounded.abs() < acc_fmt.min_positive_normal() {
            return 0.0;
        }
        rounded
    }

    /// One block step `fl(c + sum_j a_j b_j)` on operand values (any length;
    /// the hardware's is the record's block). NaN and infinities as MMA-Sim.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`](boundgate_verify::error::VerifyError)
    /// when `a` and `b` differ in length (a zip dropped the longer one's
    /// tail until 2026-11-29).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let unit = BlockFma::new(&TcRecord::lookup(Arch::Sm80, TcInput::Fp16, TcOutput::Fp32).unwrap());
    /// // fp32 output toward zero: 1 + 2^-24 (kept by the 24 fractional bits) truncates to 1.
    /// assert_eq!(unit.step(&[1.0, 2f64.powi(-12)], &[1.0, 2f64.powi(-12)], 0.0).unwrap(), 1.0);
    /// assert!(unit.step(&[f64::INFINITY], &[0.0], 1.0).unwrap().is_nan());
    /// assert!(unit.step(&[1.0, 2.0], &[1.0], 0.0).is_err());
    /// ```
    pub fn step(&self, a: &[f64], b: &[f64], c: f64) -> Result<f64> {
        require_same_len("block-FMA operands a and b", a.len(), b.len())?;
        Ok(self.step_same_len(a, b, c))
    }

    /// [`BlockFma::step`] on operands of equal length.
    fn step_same_len(&self, a: &[f64], b: &[f64], c: f64) -> f64 {
        let mut check = c;
        for (&x, &y) in a.iter().zip(b) {
            check += x * y;
        }
        if !check.is_finite() {
            return check;
        }
        let (c_sig, c_exp) = self.decode_acc(c);
        let terms: Vec<(i64, i64, i32)> = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| {
                let (sx, ex) = self.decode_operand(x);
                let (sy, ey) = self.decode_operand(y);
                (sx, sy, ex + ey)
            })
            .collect();
        let e_max = terms.iter().map(|t| t.2).fold(c_exp, i32::max);
        if e_max < ALL_ZERO {
            return 0.0;
        }
        let mut acc = i128::from(align(c_sig, self.shift_c, e_max - c_exp));
        for &(sx, sy, e) in &terms {
            acc += i128::from(align(sx * sy, self.shift_product, e_max - e));
        }
        self.finish(acc, e_max)
    }

    /// Chains steps over `x . y` in blocks of the record's size from `c = c0`;
    /// returns the result and every block's result (the last is the result).
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`](boundgate_verify::error::VerifyError)
    /// when `x` and `y` differ in length.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let unit = BlockFma::new(&TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap());
    /// let (d, partials) = unit.chain(&[1.0; 40], &[0.5; 40], 0.0).unwrap();
    /// assert_eq!(d, 20.0);
    /// assert_eq!(partials, vec![8.0, 16.0, 20.0]); // blocks of 16, 16, 8
    /// assert!(unit.chain(&[1.0; 40], &[0.5; 39], 0.0).is_err());
    /// ```
    pub fn chain(&self, x: &[f64], y: &[f64], c0: f64) -> Result<(f64, Vec<f64>)> {
        require_same_len("block-FMA operands x and y", x.len(), y.len())?;
        Ok(self.chain_same_len(x, y, c0))
    }

    /// [`BlockFma::chain`] on operands of equal length.
    fn chain_same_len(&self, x: &[f64], y: &[f64], c0: f64) -> (f64, Vec<f64>) {
        let b = self.record.block;
        let mut c = c0;
        let mut partials = Vec::with_capacity(x.len().div_ceil(b));
        for (xs, ys) in x.chunks(b).zip(y.chunks(b)) {
            c = self.step_same_len(xs, ys, c);
            partials.push(c);
        }
        (c, partials)
    }

    /// `D = A B` for operand values `a` (`m x k`, row-major) and `b` (`k x t`,
    /// row-major), each element a chain of block steps from `c = 0`. Calls
    /// `visit(i, j, d_ij, partials)` for every element in row-major order.
    ///
    /// # Errors
    /// [`VerifyError`](boundgate_verify::error::VerifyError) when `a` is not
    /// `m x k` or `b` not `k x t` (or a product overflows `usize`), before
    /// any element is visited; it asserted until 2026-11-29.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let unit = BlockFma::new(&TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap());
    /// let a = [1.0, 2.0, 3.0, 4.0]; // 2 x 2
    /// let b = [5.0, 6.0, 7.0, 8.0]; // 2 x 2
    /// let mut d = vec![];
    /// unit.gemm_visit(&a, &b, 2, 2, 2, |_, _, v, _| d.push(v)).unwrap();
    /// assert_eq!(d, vec![19.0, 22.0, 43.0, 50.0]);
    /// assert!(unit.gemm_visit(&a, &b, 2, 3, 2, |_, _, _, _| {}).is_err()); // a is not 2 x 3
    /// ```
    pub fn gemm_visit(
        &self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        t: usize,
        mut visit: impl FnMut(usize, usize, f64, &[f64]),
    ) -> Result<()> {
        require_same_len(
            "block-FMA GEMM: A and m x k",
            a.len(),
            shape_len("A", m, k)?,
        )?;
        require_same_len(
            "block-FMA GEMM: B and k x t",
            b.len(),
            shape_len("B", k, t)?,
        )?;
        shape_len("D", m, t)?;
        let rows = Decoded::rows(self, a, m, k);
        let mut bt = vec![0.0; k * t];
        for r in 0..k {
            for c in 0..t {
                bt[c * k + r] = b[r * t + c];
            }
        }
        let cols = Decoded::rows(self, &bt, t, k);
        let mut partials = Vec::with_capacity(k.div_ceil(self.record.block));
        for i in 0..m {
            for j in 0..t {
                partials.clear();
                let d = if rows.finite[i] && cols.finite[j] {
                    self.chain_fast(&rows, i, &cols, j, &mut partials)
                } else {
                    let (d, p) =
                        self.chain_same_len(&a[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k], 0.0);
                    partials.extend(p);
                    d
                };
                visit(i, j, d, &partials);
            }
        }
        Ok(())
    }

    /// `D = A B` (see [`BlockFma::gemm_visit`]), row-major `m x t`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::blockfma::BlockFma;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let unit = BlockFma::new(&TcRecord::lookup(Arch::Sm80, TcInput::Fp16, TcOutput::Fp32).unwrap());
    /// let small = 2f64.powi(-12);
    /// let a = [1.0, -1.0, small, 1.0, 1.0, small]; // 2 x 3
    /// let b = [1.0, 1.0, 2f64.powi(-13)]; // 3 x 1
    /// // F = 24 fractional bits below the largest term 2^0: 2^-25 is truncated in both rows.
    /// assert_eq!(unit.gemm(&a, &b, 2, 3, 1).unwrap(), vec![0.0, 2.0]);
    /// assert_eq!(unit.gemm(&a, &b, 2, 3, 1).unwrap()[1], unit.chain(&a[3..], &b, 0.0).unwrap().0);
    /// assert!(unit.gemm(&a, &b[..2], 2, 3, 1).is_err()); // b is not 3 x 1
    /// ```
    ///
    /// # Errors
    /// As [`BlockFma::gemm_visit`].
    pub fn gemm(&self, a: &[f64], b: &[f64], m: usize, k: usize, t: usize) -> Result<Vec<f64>> {
        let mut d = Vec::new();
        self.gemm_visit(a, b, m, k, t, |_, _, v, _| d.push(v))?;
        Ok(d)
    }

    /// The chain for finite operands, on pre-decoded integers.
    #[inline]
    fn chain_fast(
        &self,
        rows: &Decoded,
        i: usize,
        cols: &Decoded,
        j: usize,
        partials: &mut Vec<f64>,
    ) -> f64 {
        let k = rows.k;
        let (sa, ea) = (&rows.sig[i * k..(i + 1) * k], &rows.exp[i * k..(i + 1) * k]);
        let (sb, eb) = (&cols.sig[j * k..(j + 1) * k], &cols.exp[j * k..(j + 1) * k]);
        let b = self.record.block;
        let mut c = 0.0f64;
        let mut start = 0;
        while start < k {
            let end = (start + b).min(k);
            if !c.is_finite() {
                // An overflowed accumulator stays infinite (MMA-Sim's binary64 check).
                partials.push(c);
                start = end;
                continue;
            }
            let (c_sig, c_exp) = self.decode_acc(c);
            let (sa, ea, sb, eb) = (
                &sa[start..end],
                &ea[start..end],
                &sb[start..end],
                &eb[start..end],
            );
            let mut e_max = c_exp;
            for r in 0..sa.len() {
                e_max = e_max.max(ea[r] + eb[r]);
            }
            c = if e_max < ALL_ZERO {
                0.0
            } else {
                let shift = self.shift_product;
                let c_term = align(c_sig, self.shift_c, e_max - c_exp);
                let acc = if self.narrow_blocks {
                    // At most `block + 1` terms below 2^(F+2): no overflow.
                    let mut acc = c_term;
                    for r in 0..sa.len() {
                        acc += product_term(sa[r], sb[r], shift, e_max - ea[r] - eb[r]);
                    }
                    i128::from(acc)
                } else {
                    let mut acc = i128::from(c_term);
                    for r in 0..sa.len() {
                        let down = e_max - ea[r] - eb[r];
                        acc += i128::from(product_term(sa[r], sb[r], shift, down));
                    }
                    acc
                };
                self.finish(acc, e_max)
            };
            partials.push(c);
            start = end;
        }
        c
    }
}

/// The aligned term of the product `sa sb` (fast path): its magnitude
/// shifted left by `up` and right by `down >= 0` (toward zero), signed.
#[inline(always)]
fn product_term(sa: i32, sb: i32, up: u32, down: i32) -> i64 {
    let p = i64::from(sa) * i64::from(sb);
    let d = down.min(63) as u32;
    let magnitude = ((p.unsigned_abs() << up) >> d) as i64;
    let sign = p >> 63;
    (magnitude ^ sign) - sign
}

/// `sig` shifted left by `up` and right by `down` (toward zero), signed.
#[inline]
fn align(sig: i64, up: u32, down: i32) -> i64 {
    let down = down.clamp(0, 63) as u32;
    let magnitude = ((sig.unsigned_abs() << up) >> down) as i64;
    if sig < 0 { -magnitude } else { magnitude }
}

/// Operands decoded once: significands and exponents, row by row.
struct Decoded {
    k: usize,
    sig: Vec<i32>,
    exp: Vec<i32>,
    finite: Vec<bool>,
}

impl Decoded {
    fn rows(unit: &BlockFma, values: &[f64], rows: usize, k: usize) -> Decoded {
        let mut sig = Vec::with_capacity(values.len());
        let mut exp = Vec::with_capacity(values.len());
        let mut finite = vec![true; rows];
        for (r, row) in values.chunks(k.max(1)).enumerate().take(rows) {
            for &x in row {
                if x.is_finite() {
                    let (s, e) = unit.decode_operand(x);
                    // Significands of the input formats have at most 11 bits.
                    sig.push(s as i32);
                    exp.push(e);
                } else {
                    finite[r] = false;
                    sig.push(0);
                    exp.push(ZERO_EXP);
                }
            }
        }
        Decoded {
            k,
            sig,
            exp,
            finite,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::mpfma::record::{Arch, TcInput, TcOutput};

    #[test]
    fn decode_is_exact_for_subnormals_and_extremes() {
        let fp16 = Format::FP16;
        for x in [
            2f64.powi(-24),
            65504.0,
            -1.5,
            2f64.powi(-14),
            3.0 * 2f64.powi(-24),
        ] {
            let (s, e) = decode(x, 11, fp16.emin());
            assert_eq!(s as f64 * 2f64.powi(e - 10), x, "{x}");
            assert!(s.unsigned_abs() < 1 << 11);
        }
        assert_eq!(decode(2f64.powi(-24), 11, -14), (1, -14));
    }

    /// MMA-Sim's +0 for a negative sum that rounds to zero (`finish`), in
    /// both output roundings: fp16's to nearest and fp32's toward zero. It
    /// was -0 until 2026-11-29 (the heavy run of tests/mpfma_model.rs).
    #[test]
    fn a_negative_sum_that_rounds_to_zero_gives_plus_zero() {
        let cases = [
            (Arch::Sm90, TcInput::Fp16, TcOutput::Fp16, 2f64.powi(-14)),
            (Arch::Sm80, TcInput::Fp16, TcOutput::Fp16, 2f64.powi(-14)),
            (Arch::Sm90, TcInput::Bf16, TcOutput::Fp32, 2f64.powi(-126)),
            (Arch::Sm80, TcInput::Tf32, TcOutput::Fp32, 2f64.powi(-126)),
        ];
        for (arch, input, output, least) in cases {
            let record = TcRecord::lookup(arch, input, output).unwrap();
            let unit = BlockFma::new(&record);
            for c in [0.0, -0.0] {
                let d = unit.step(&[-least, 0.0], &[least, 1.0], c).unwrap();
                assert_eq!(d.to_bits(), 0, "{} from c = {c:?}: {d:?}", record.label());
            }
            // The sign of a nonzero result is kept.
            let tiny = unit.step(&[-1.0], &[least], 0.0).unwrap();
            assert!(tiny < 0.0, "{}", record.label());
        }
    }

    #[test]
    fn fast_and_slow_chains_agree() {
        for record in TcRecord::all() {
            let unit = BlockFma::new(&record);
            let fmt = record.input.operand();
            let k = 3 * record.block + 5;
            let vals: Vec<f64> = (0..2 * k)
                .map(|i| {
                    let v = ((i * 7919) % 97) as f64 / 13.0 - 3.5;
                    fmt.round(v * 2f64.powi((i % 9) as i32 - 4), RoundingMode::NearestEven)
                })
                .collect();
            let (a, b) = vals.split_at(k);
            let mut fast = Vec::new();
            unit.gemm_visit(a, b, 1, k, 1, |_, _, d, p| fast.push((d, p.to_vec())))
                .unwrap();
            let (d, p) = unit.chain(a, b, 0.0).unwrap();
            assert_eq!(fast[0].0.to_bits(), d.to_bits(), "{}", record.label());
            assert_eq!(fast[0].1, p);
        }
    }

    /// Operands of different lengths, or not of the GEMM's shape, are typed
    /// errors: `step` and `chain` zipped them (dropping the longer tail) and
    /// `gemm_visit` asserted, until 2026-11-29.
    #[test]
    fn mismatched_operands_are_typed_errors() {
        use boundgate_verify::error::VerifyError;
        let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
        let unit = BlockFma::new(&record);
        let mismatch = |r: Result<_>| matches!(r, Err(VerifyError::LengthMismatch { .. }));
        assert!(mismatch(unit.step(&[1.0, 1.0], &[1.0], 0.0).map(|_| ())));
        assert!(mismatch(unit.chain(&[1.0], &[1.0, 1.0], 0.0).map(|_| ())));
        assert!(mismatch(
            unit.gemm(&[1.0; 6], &[1.0; 3], 2, 2, 1).map(|_| ())
        ));
        assert!(mismatch(
            unit.gemm(&[1.0; 4], &[1.0; 3], 2, 2, 1).map(|_| ())
        ));
        let mut visited = 0;
        let overflow = unit.gemm_visit(&[], &[], usize::MAX, 0, 2, |_, _, _, _| visited += 1);
        assert!(overflow.is_err() && visited == 0);
        // Empty inner dimension: D = 0, a valid GEMM.
        assert_eq!(unit.gemm(&[], &[], 2, 0, 1).unwrap(), vec![0.0, 0.0]);
    }

    #[test]
    fn overflow_gives_infinity_and_stays() {
        let record = TcRecord::lookup(Arch::Sm90, TcInput::Bf16, TcOutput::Fp32).unwrap();
        let unit = BlockFma::new(&record);
        let big = 2f64.powi(100);
        let (d, _) = unit.chain(&[big; 20], &[big; 20], 0.0).unwrap();
        assert_eq!(d, f64::INFINITY);
    }

    #[test]
    fn a_hand_made_block_of_zero_computes_in_blocks_of_one() {
        // The record's fields are public: block 0 panicked in `chain`
        // (chunks(0)) and looped forever in `gemm`'s fast path.
        let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
        let zero = BlockFma::new(&TcRecord { block: 0, ..record });
        let one = BlockFma::new(&record.with_block(1));
        let (x, y) = ([1.0, 2.0, 3.0], [1.0, 0.5, 0.25]);
        assert_eq!(zero.record().block, 1);
        assert_eq!(
            zero.chain(&x, &y, 0.0).unwrap(),
            one.chain(&x, &y, 0.0).unwrap()
        );
        assert_eq!(
            zero.gemm(&x, &y, 1, 3, 1).unwrap(),
            one.gemm(&x, &y, 1, 3, 1).unwrap()
        );
    }
}
