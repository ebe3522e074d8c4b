//! Algorithm 1 of Bhola and Duraisamy (§3.3) as the paper models it: a CPU
//! model with the block size `b` and the format of every rounding step.
//!
//! `A~ = fl_{u_low}(A)`, `B~ = fl_{u_low}(B)`; each output block
//! `D_ij = 0; for k = 1..q: D_ij = fl_{u_FMA}(D_ij + A~_ik B~_kj)`, and one block
//! step is eq. (7): the products rounded to `t~` (exact when they fit), added
//! left to right to the previous `D_ij` in `t_bar` (a rounding after every
//! addition), the block's result rounded to `t_FMA`. The output-block sizes
//! `b1 x b2` do not change any element's arithmetic, so only `b` is a
//! parameter; every element is computed independently.
//!
//! This is the arithmetic Theorems 3.7-3.10 are about. Real tensor cores do
//! something else ([`super::blockfma`]).

use super::record::{TcInput, TcOutput};
use crate::kernels::shape_len;
use boundgate_verify::bounds::tc::{Alg1Arithmetic, Roundoffs};
use boundgate_verify::error::{Result, require_same_len};
use boundgate_verify::format::{Format, RoundingMode};
use serde::Serialize;

/// The formats and rounding modes of Algorithm 1.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::alg1::Alg1;
/// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
/// let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp32, 4);
/// // fp32 accumulation with a rounding after every addition (eq. (7)); the
/// // products are exact in fp32. 1 + 2^-24 is a tie that rounds to even, so
/// // both 2^-24 terms are lost: the exact sum is 1 + 2^-23, Algorithm 1 gives 1.
/// let x = [1.0, 2f64.powi(-12), 2f64.powi(-12)];
/// assert_eq!(alg.dot(&x, &x).unwrap(), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Alg1 {
    /// Format of the inputs (`t_low`).
    pub low: Format,
    /// Format of the products (`t~`).
    pub tilde: Format,
    /// Format of the accumulation (`t_bar`).
    pub bar: Format,
    /// Rounding of the accumulation.
    pub bar_mode: RoundingMode,
    /// Format of each block result (`t_FMA`).
    pub fma: Format,
    /// Rounding of each block result.
    pub fma_mode: RoundingMode,
    /// Inner block size `b`.
    pub block: usize,
}

impl Alg1 {
    /// Table 2 of the paper: products in fp32, accumulation and output in the
    /// accumulator format, round to nearest even.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let alg = Alg1::table2(TcInput::Tf32, TcOutput::Fp32, 8);
    /// assert_eq!((alg.low, alg.tilde, alg.bar, alg.fma), (Format::TF32, Format::FP32, Format::FP32, Format::FP32));
    /// assert_eq!((alg.bar_mode, alg.fma_mode), (RoundingMode::NearestEven, RoundingMode::NearestEven));
    /// let half = Alg1::table2(TcInput::Fp16, TcOutput::Fp16, 0);
    /// assert_eq!((half.tilde, half.bar, half.block), (Format::FP32, Format::FP16, 1)); // block 0 -> 1
    /// ```
    pub fn table2(input: TcInput, output: TcOutput, block: usize) -> Alg1 {
        let acc = match output {
            TcOutput::Fp32 => Format::FP32,
            TcOutput::Fp16 => Format::FP16,
        };
        Alg1 {
            low: input.operand(),
            tilde: Format::FP32,
            bar: acc,
            bar_mode: RoundingMode::NearestEven,
            fma: acc,
            fma_mode: RoundingMode::NearestEven,
            block: block.max(1),
        }
    }

    /// The unit roundoffs `(u_low, u_high, u~, u_bar, u_FMA)` (`u_high` of `t_FMA`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// // The two rows of the paper's Table 2.
    /// assert_eq!(Alg1::table2(TcInput::Fp16, TcOutput::Fp32, 4).roundoffs(), Roundoffs::table2_fp32());
    /// assert_eq!(Alg1::table2(TcInput::Fp16, TcOutput::Fp16, 4).roundoffs(), Roundoffs::table2_fp16());
    /// assert_eq!(Alg1::table2(TcInput::Bf16, TcOutput::Fp32, 4).roundoffs().u_low, 2f64.powi(-8));
    /// ```
    pub fn roundoffs(&self) -> Roundoffs {
        let rne = RoundingMode::NearestEven;
        Roundoffs {
            u_low: self.low.unit_roundoff(rne),
            u_high: self.fma.unit_roundoff(self.fma_mode),
            u_tilde: self.tilde.unit_roundoff(rne),
            u_bar: self.bar.unit_roundoff(self.bar_mode),
            u_fma: self.fma.unit_roundoff(self.fma_mode),
        }
    }

    /// The arithmetic the rigorous bound needs.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// use boundgate_verify::bounds::tc::{alg1_rigorous, Alg1Arithmetic, GemmShape};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp16, 2);
    /// let rne = RoundingMode::NearestEven;
    /// assert_eq!(alg.arithmetic(), Alg1Arithmetic { tilde: Format::FP32, bar: Format::FP16, bar_mode: rne, fma: Format::FP16, fma_mode: rne });
    /// // The rigorous bound for it holds: [2048, 1, 1] . [1, 1, 1] gives 2048, exact 2050.
    /// let x = [2048.0, 1.0, 1.0];
    /// let shape = GemmShape::new(1, 3, 2).unwrap();
    /// let bound = alg1_rigorous(&alg.arithmetic(), &shape, alg.products_exact(&x, &[1.0; 3]), 2050.0).unwrap();
    /// assert!((alg.dot(&x, &[1.0; 3]).unwrap() - 2050.0).abs() <= bound.value);
    /// ```
    pub fn arithmetic(&self) -> Alg1Arithmetic {
        Alg1Arithmetic {
            tilde: self.tilde,
            bar: self.bar,
            bar_mode: self.bar_mode,
            fma: self.fma,
            fma_mode: self.fma_mode,
        }
    }

    /// Whether no product `x_i y_i` is rounded in `t~`: each is exact there,
    /// or overflows it. An overflow is not a rounding error; the bound's
    /// no-overflow hypothesis (`S` at most the largest finite value,
    /// [`boundgate_verify::bounds::tc::alg1_rigorous`]) refuses such a sum.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp32, 4);
    /// // fp16 x fp16 needs at most 22 significant bits: exact in fp32.
    /// let h = 1.0 + 2f64.powi(-10);
    /// assert!(alg.products_exact(&[h, 65504.0], &[h, 65504.0]));
    /// // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 needs 47 bits: not exact in fp32.
    /// let s = 1.0 + 2f64.powi(-23);
    /// assert!(!alg.products_exact(&[1.0, s], &[1.0, s]));
    /// // 2^100 x 2^100 overflows fp32: not a rounding, and the bound refuses the sum.
    /// let big = 2f64.powi(100);
    /// assert!(alg.products_exact(&[big], &[big]));
    /// let shape = boundgate_verify::bounds::tc::GemmShape::new(1, 1, 4).unwrap();
    /// assert!(boundgate_verify::bounds::tc::alg1_rigorous(&alg.arithmetic(), &shape, true, big * big).is_err());
    /// ```
    pub fn products_exact(&self, x: &[f64], y: &[f64]) -> bool {
        x.iter().zip(y).all(|(&a, &b)| {
            let p = self.tilde.mul(a, b, RoundingMode::NearestEven);
            // The operands have at most 24-bit significands: a * b is exact in f64.
            p == a * b || !p.is_finite()
        })
    }

    /// One output element: eq. (7) chained over blocks of `b`. A `block` of 0
    /// (the field is public) is taken as 1, as [`Alg1::table2`] does.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`](boundgate_verify::error::VerifyError)
    /// when `x` and `y` differ in length (a zip dropped the longer one's
    /// tail until 2026-11-29).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// // fp16 accumulation (spacing 2 at 2048): 2048 + 1 is a tie, to even 2048.
    /// let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp16, 4);
    /// assert_eq!(alg.dot(&[2048.0, 1.0, 1.0], &[1.0; 3]).unwrap(), 2048.0); // both ones lost
    /// assert_eq!(alg.dot(&[1.0, 1.0, 2048.0], &[1.0; 3]).unwrap(), 2050.0); // 1 + 1 first: exact
    /// assert_eq!(alg.dot(&[], &[]).unwrap(), 0.0);
    /// assert!(alg.dot(&[1.0, 2.0], &[1.0]).is_err());
    /// // A hand-made block of 0 is a block of 1 (no panic).
    /// let zero = Alg1 { block: 0, ..alg };
    /// let (x, y) = ([1.0, 2.0], [1.0, 1.0]);
    /// assert_eq!(zero.dot(&x, &y).unwrap(), Alg1 { block: 1, ..alg }.dot(&x, &y).unwrap());
    /// ```
    pub fn dot(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        require_same_len("Algorithm 1 operands x and y", x.len(), y.len())?;
        Ok(self.dot_same_len(x, y))
    }

    /// [`Alg1::dot`] on operands of equal length.
    fn dot_same_len(&self, x: &[f64], y: &[f64]) -> f64 {
        let mut d = 0.0;
        let block = self.block.max(1);
        for (xs, ys) in x.chunks(block).zip(y.chunks(block)) {
            let mut z = d;
            for (&a, &b) in xs.iter().zip(ys) {
                let p = self.tilde.mul(a, b, RoundingMode::NearestEven);
                z = self.bar.add(z, p, self.bar_mode);
            }
            d = self.fma.round(z, self.fma_mode);
        }
        d
    }

    /// `D = A B` for `a` (`m x k`) and `b` (`k x t`), row-major, values of `t_low`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// let alg = Alg1::table2(TcInput::Fp16, TcOutput::Fp16, 4);
    /// let a = [1.0, 2.0, 3.0, 4.0, 2048.0, 1.0]; // 2 x 3
    /// let b = [1.0, 1.0, 1.0]; // 3 x 1
    /// // Row 0: 1 + 2 + 3 = 6 exactly; row 1: 4 + 2048 = 2052, + 1 ties to even 2052.
    /// assert_eq!(alg.gemm(&a, &b, 2, 3, 1).unwrap(), vec![6.0, 2052.0]);
    /// assert_eq!(alg.gemm(&a, &b, 2, 3, 1).unwrap()[1], alg.dot(&a[3..], &b).unwrap());
    /// assert!(alg.gemm(&a, &b, 3, 3, 1).is_err()); // a is not 3 x 3
    /// ```
    ///
    /// # Errors
    /// [`VerifyError`](boundgate_verify::error::VerifyError) when `a` is not
    /// `m x k` or `b` not `k x t` (or a product overflows `usize`): it
    /// indexed out of bounds (a panic) until 2026-11-29.
    pub fn gemm(&self, a: &[f64], b: &[f64], m: usize, k: usize, t: usize) -> Result<Vec<f64>> {
        require_same_len(
            "Algorithm 1 GEMM: A and m x k",
            a.len(),
            shape_len("A", m, k)?,
        )?;
        require_same_len(
            "Algorithm 1 GEMM: B and k x t",
            b.len(),
            shape_len("B", k, t)?,
        )?;
        let mut column = vec![0.0; k];
        let mut d = vec![0.0; shape_len("D", m, t)?];
        for j in 0..t {
            for (r, slot) in column.iter_mut().enumerate() {
                *slot = b[r * t + j];
            }
            for i in 0..m {
                d[i * t + j] = self.dot_same_len(&a[i * k..(i + 1) * k], &column);
            }
        }
        Ok(d)
    }
}
