//! Gu's Algorithm 1 as a CPU model: quantize, exact integer GEMM, dequantize,
//! residuals and their quantization, reduction, density switch, sparse or
//! dense compensation products, dequantize and add; and the two baselines,
//! direct quantization (eq. (4)) and the full residual (the first three terms
//! of eq. (7)).
//!
//! Every floating-point step is one correctly rounded operation of the
//! working format ([`Working`](super::quant::Working)) in a fixed order, so the model is bit-exact
//! for any implementation doing the same operations (`kernels/residual.cu`):
//!
//! ```text
//! a~ = fl(a)                      (storage in the working format)
//! lambda = fl(num / max|a~|)      (per row of A / column of B, or per tensor)
//! Aq = clamp(Q(fl(lambda a~)))    (quant.rs)
//! RA = fl(a~ - fl(Aq / lambda))   ;  RAq, lambda_RA likewise from RA
//! P0 = Aq Bq                      (exact, int32)
//! y0 = dq(P0; lambda_A_i, lambda_B_j)               = D_F
//! keep = reduce(a~, b~, D_F, M)   (reduce.rs)
//! P1 = (keep_A o Aq) RBq by CSR SpMM if density(A^r) < eta, else Aq RBq (dense)
//! P2 = RAq (keep_B o Bq) by SpMM if density(B^r) < eta, else RAq Bq   (exact)
//! y1 = dq(P1; lambda_A_i, lambda_RB_j), y2 = dq(P2; lambda_RA_i, lambda_B_j)
//! D = fl(fl(y0 + y1) + y2)
//!
//! dq(P; l1, l2) = fl(fl(fl(P) / max(l1, l2)) / min(l1, l2))
//! ```
//!
//! The dequantization divides by the larger scale first ([`dequantize`]).
//!
//! The density switch is per product, as in the authors' code (rxigemm,
//! `rcxigemm`: `if (sp2 <= SPARSITY)` for `A`, `if (sp <= SPARSITY)` for `B`);
//! Algorithm 1, line 11 writes it as `{sp_A, sp_B} < s` like its other
//! element-wise pairs. A product above `eta` falls back to the full residual's
//! dense product for that side. The reduced matrices keep `A_int`'s own
//! integers (Algorithm 1, line 10 "in the same way"; the worked example's
//! `A'_int`); the code re-quantizes them with a new per-tensor scale instead.
//!
//! Algorithm 1 returns `alpha D + beta C`; the BLAS epilogue is not part of
//! the method and is not modelled (`alpha = 1`, `beta = 0`).

use super::csr::CsrI8;
use super::intgemm::{int_gemm, spmm_csr_dense, spmm_dense_csr};
use super::quant::{Granularity, QuantizedMatrix, Quantizer, residual, store};
use super::reduce::{ReduceRule, abs_means, reduce_mask};
use crate::error::Result;
use crate::kernels::shape_len;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::residual::{Operands, QuantizedView, ScaleAxis};
use boundgate_verify::oracle::Matrix;
use serde::Serialize;
use std::sync::OnceLock;

/// Which product is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Gu's Algorithm 1: compensation by the reduced (sparse) residual products.
    Sparse,
    /// The full residual: `A' B' + A' RB + RA B'` (eq. (7) without its last term).
    Full,
    /// Direct quantization: `A_int B_int / (lambda_A lambda_B)` (eq. (4)).
    Direct,
}

impl Method {
    /// Parameter name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::Method;
    /// assert_eq!(Method::Sparse.name(), "sparse");
    /// assert_eq!(Method::Direct.name(), "direct");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Method::Sparse => "sparse",
            Method::Full => "full",
            Method::Direct => "direct",
        }
    }
    /// From its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::Method;
    /// for m in [Method::Sparse, Method::Full, Method::Direct] {
    ///     assert_eq!(Method::by_name(m.name()), Some(m));
    /// }
    /// assert_eq!(Method::by_name("dense"), None);
    /// ```
    pub fn by_name(name: &str) -> Option<Method> {
        [Method::Sparse, Method::Full, Method::Direct]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// Which path a run took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Path {
    /// No compensation.
    Direct,
    /// Dense compensation products over all entries (the full residual).
    Dense,
    /// Sparse compensation products over the kept entries.
    Sparse,
    /// One product sparse, the other dense (one density above `eta`).
    Mixed,
}

/// The reduction and the density switch (Algorithm 1, lines 7-14).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Reduction {
    /// The threshold `M` (`theta` in Algorithm 1), finite and positive.
    pub threshold: f64,
    /// Which entries are kept.
    pub rule: ReduceRule,
    /// The density `eta` below which a reduced product is sparse, in `[0, 1]`.
    pub eta: f64,
}

impl Reduction {
    /// Checks the threshold and `eta`.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] naming the parameter.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::residual::method::Reduction;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// use boundgate_verify::VerifyError;
    /// let ok = Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 };
    /// assert!(ok.validate().is_ok());
    /// for bad in [
    ///     Reduction { threshold: 0.0, ..ok },
    ///     Reduction { threshold: f64::NAN, ..ok },
    ///     Reduction { eta: 1.5, ..ok },
    ///     Reduction { eta: -0.1, ..ok },
    /// ] {
    ///     assert!(matches!(bad.validate(), Err(Error::Verify(VerifyError::InvalidParameter { .. }))));
    /// }
    /// ```
    pub fn validate(&self) -> Result<()> {
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err(VerifyError::invalid(
                "threshold",
                self.threshold,
                "must be finite and positive (Gu's M > 0)",
            )
            .into());
        }
        if !(0.0..=1.0).contains(&self.eta) {
            return Err(
                VerifyError::invalid("eta", self.eta, "must be a density in [0, 1]").into(),
            );
        }
        Ok(())
    }
}

/// One computed product and how it was computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Output {
    /// `D`, row-major `m x n`.
    #[serde(skip)]
    pub d: Vec<f64>,
    /// The path taken.
    pub path: Path,
    /// The entries of `A` used in the compensation (all false for direct, all
    /// true for the dense path).
    #[serde(skip)]
    pub keep_a: Vec<bool>,
    /// The entries of `B` used in the compensation.
    #[serde(skip)]
    pub keep_b: Vec<bool>,
    /// Density of the reduced `A^r` (sparse method only, whichever path it took).
    pub density_a: Option<f64>,
    /// Density of the reduced `B^r`.
    pub density_b: Option<f64>,
}

/// Everything the compensation variants share: stored inputs, the four
/// quantized matrices, `P0`, `D_F`, the means of `|D_F|`; the dense
/// compensation products are computed once, on first use.
#[derive(Debug)]
pub struct Prepared {
    /// Rows of `A`.
    pub m: usize,
    /// Columns of `A`, rows of `B`.
    pub k: usize,
    /// Columns of `B`.
    pub n: usize,
    /// The quantizer.
    pub quantizer: Quantizer,
    /// Per tensor or vector-wise.
    pub granularity: Granularity,
    /// `A` as given.
    pub a: Vec<f64>,
    /// `B` as given.
    pub b: Vec<f64>,
    /// `A` in the working format.
    pub a_stored: Vec<f64>,
    /// `B` in the working format.
    pub b_stored: Vec<f64>,
    /// `A_int`.
    pub aq: QuantizedMatrix,
    /// `B_int`.
    pub bq: QuantizedMatrix,
    /// `RA_int`.
    pub raq: QuantizedMatrix,
    /// `RB_int`.
    pub rbq: QuantizedMatrix,
    /// `P0 = A_int B_int`.
    pub p0: Vec<i32>,
    /// `D_F`, the dequantized `P0`.
    pub d_f: Vec<f64>,
    /// Row means of `|D_F|`.
    pub row_means: Vec<f64>,
    /// Column means of `|D_F|`.
    pub col_means: Vec<f64>,
    full_p1: OnceLock<Vec<i32>>,
    full_p2: OnceLock<Vec<i32>>,
}

impl Prepared {
    /// Quantizes `A` (`m x k`) and `B` (`k x n`), their residuals, and computes
    /// `P0` and `D_F` (Algorithm 1, lines 1-7).
    ///
    /// # Errors
    /// [`VerifyError::Empty`] for an empty dimension, [`VerifyError::InvalidParameter`]
    /// for a shape whose product (`m * k` or `k * n`) overflows `usize`,
    /// [`VerifyError::LengthMismatch`]
    /// for data that does not fit the shape, [`VerifyError::NonFinite`] and
    /// [`VerifyError::Overflow`] for values that are not finite or do not fit
    /// the working format, [`VerifyError::Overflow`] for an `int32` overflow.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::Prepared;
    /// use boundgate::kernels::residual::quant::*;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// assert_eq!(p.aq.ints, vec![127, 64]); // 0.5 * 127 = 63.5 -> 64 (ties to even)
    /// assert_eq!(p.direct().d.len(), 1);
    /// ```
    pub fn new(
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        quantizer: Quantizer,
        granularity: Granularity,
    ) -> Result<Prepared> {
        for (what, d) in [("rows of A", m), ("columns of A", k), ("columns of B", n)] {
            if d == 0 {
                return Err(VerifyError::Empty { what: what.into() }.into());
            }
        }
        let (mk, kn) = (shape_len("A", m, k)?, shape_len("B", k, n)?);
        boundgate_verify::error::require_same_len("A and m * k", a.len(), mk)?;
        boundgate_verify::error::require_same_len("B and k * n", b.len(), kn)?;
        let w = quantizer.working;
        let a_stored = store("A", a, w)?;
        let b_stored = store("B", b, w)?;
        let (axis_a, axis_b) = (granularity.axis(true), granularity.axis(false));
        let aq = quantizer.quantize("A", &a_stored, m, k, axis_a)?;
        let bq = quantizer.quantize("B", &b_stored, k, n, axis_b)?;
        Prepared::with_quantized(a, b, (m, k, n), quantizer, granularity, aq, bq)
    }

    /// As [`Prepared::new`] but with `A_int` and `B_int` given (e.g. the
    /// integers printed in the paper's worked example); the residuals and
    /// everything after are computed as usual.
    ///
    /// # Errors
    /// As [`Prepared::new`]; [`VerifyError::LengthMismatch`] if the quantized
    /// matrices do not have the shapes of `A` and `B`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::Prepared;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate_verify::bounds::residual::ScaleAxis;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// let (a, b) = ([1.0, 0.5], [2.0, -1.0]);
    /// let aq = q.quantize("A", &a, 1, 2, ScaleAxis::Rows).unwrap();
    /// let bq = q.quantize("B", &b, 2, 1, ScaleAxis::Columns).unwrap();
    /// let given = Prepared::with_quantized(&a, &b, (1, 2, 1), q, Granularity::Vector, aq.clone(), bq.clone()).unwrap();
    /// let fresh = Prepared::new(&a, &b, 1, 2, 1, q, Granularity::Vector).unwrap();
    /// assert_eq!((&given.raq, &given.rbq, &given.d_f), (&fresh.raq, &fresh.rbq, &fresh.d_f));
    /// // a scale that is not a binary32 value is refused
    /// let mut bad = aq.clone();
    /// bad.scales = vec![0.1];
    /// assert!(Prepared::with_quantized(&a, &b, (1, 2, 1), q, Granularity::Vector, bad, bq.clone()).is_err());
    /// // so is B scaled per row
    /// let mut bad = bq.clone();
    /// bad.axis = ScaleAxis::Rows;
    /// bad.scales = vec![bq.scales[0]; 2];
    /// assert!(Prepared::with_quantized(&a, &b, (1, 2, 1), q, Granularity::Vector, aq, bad).is_err());
    /// ```
    pub fn with_quantized(
        a: &[f64],
        b: &[f64],
        (m, k, n): (usize, usize, usize),
        quantizer: Quantizer,
        granularity: Granularity,
        aq: QuantizedMatrix,
        bq: QuantizedMatrix,
    ) -> Result<Prepared> {
        for (what, d) in [("rows of A", m), ("columns of A", k), ("columns of B", n)] {
            if d == 0 {
                return Err(VerifyError::Empty { what: what.into() }.into());
            }
        }
        let (mk, kn) = (shape_len("A", m, k)?, shape_len("B", k, n)?);
        boundgate_verify::error::require_same_len("A and m * k", a.len(), mk)?;
        boundgate_verify::error::require_same_len("B and k * n", b.len(), kn)?;
        boundgate_verify::error::require_same_len("A_int and m * k", aq.ints.len(), mk)?;
        boundgate_verify::error::require_same_len("B_int and k * n", bq.ints.len(), kn)?;
        crate::kernels::require_output_fits(m, n)?;
        let w = quantizer.working;
        // Given integers are validated as the checker will see them (shape,
        // one finite positive scale per line), and their scales must be values
        // of the working format: the dequantization divides by the scale
        // rounded to it, the bound by the scale as given. An empty or short
        // scale vector indexed out of bounds (panic) until found by review.
        for (what, q, rows, cols, bad) in [
            ("A_int", &aq, m, k, ScaleAxis::Columns),
            ("B_int", &bq, k, n, ScaleAxis::Rows),
        ] {
            boundgate_verify::error::require_same_len(&format!("rows of {what}"), q.rows, rows)?;
            boundgate_verify::error::require_same_len(&format!("columns of {what}"), q.cols, cols)?;
            if q.axis == bad {
                return Err(VerifyError::invalid(
                    &format!("{what} scales"),
                    format!("{bad:?}"),
                    "A is scaled per row or per tensor, B per column or per tensor",
                )
                .into());
            }
            QuantizedView::new(q.rows, q.cols, &q.ints, &q.scales, q.axis)?;
            if let Some(s) = q.scales.iter().find(|s| w.round(**s) != **s) {
                return Err(VerifyError::invalid(
                    &format!("{what} scale"),
                    s,
                    format!("is not a value of the working format {}", w.name()),
                )
                .into());
            }
        }
        let a_stored = store("A", a, w)?;
        let b_stored = store("B", b, w)?;
        let (axis_a, axis_b) = (aq.axis, bq.axis);
        let raq = quantizer.quantize("RA", &residual(&a_stored, &aq, w)?, m, k, axis_a)?;
        let rbq = quantizer.quantize("RB", &residual(&b_stored, &bq, w)?, k, n, axis_b)?;
        let p0 = int_gemm(&aq.ints, &bq.ints, m, k, n)?;
        let d_f = dequantize(&p0, m, n, &aq, &bq, quantizer);
        let row_means = abs_means(&d_f, m, n, true)?;
        let col_means = abs_means(&d_f, m, n, false)?;
        Ok(Prepared {
            m,
            k,
            n,
            quantizer,
            granularity,
            a: a.to_vec(),
            b: b.to_vec(),
            a_stored,
            b_stored,
            aq,
            bq,
            raq,
            rbq,
            p0,
            d_f,
            row_means,
            col_means,
            full_p1: OnceLock::new(),
            full_p2: OnceLock::new(),
        })
    }

    /// Direct quantization: `D = D_F`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// // lambda_A = 127, lambda_B = 63.5: A_int = [127, 64], B_int = [127, -64]
    /// assert_eq!(p.p0, vec![127 * 127 - 64 * 64]);
    /// let out = p.direct();
    /// assert_eq!(out.path, Path::Direct);
    /// assert!(out.keep_a.iter().chain(&out.keep_b).all(|k| !k));
    /// // fl(fl(P0 / 127) / 63.5) in binary32, the larger scale first
    /// assert_eq!(out.d, vec![f64::from(12033f32 / 127.0 / 63.5)]);
    /// assert!((out.d[0] - 1.5).abs() < 0.01);
    /// ```
    pub fn direct(&self) -> Output {
        Output {
            d: self.d_f.clone(),
            path: Path::Direct,
            keep_a: vec![false; self.m * self.k],
            keep_b: vec![false; self.k * self.n],
            density_a: None,
            density_b: None,
        }
    }

    /// `A_int RB_int`, computed once.
    fn full_p1(&self) -> Result<&Vec<i32>> {
        if let Some(p) = self.full_p1.get() {
            return Ok(p);
        }
        let p = int_gemm(&self.aq.ints, &self.rbq.ints, self.m, self.k, self.n)?;
        Ok(self.full_p1.get_or_init(|| p))
    }

    /// `RA_int B_int`, computed once.
    fn full_p2(&self) -> Result<&Vec<i32>> {
        if let Some(p) = self.full_p2.get() {
            return Ok(p);
        }
        let p = int_gemm(&self.raq.ints, &self.bq.ints, self.m, self.k, self.n)?;
        Ok(self.full_p2.get_or_init(|| p))
    }

    /// The full residual: `D = fl(fl(D_F + dq(A_int RB_int)) + dq(RA_int B_int))`.
    ///
    /// # Errors
    /// [`VerifyError::Overflow`] for an `int32` overflow.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// let full = p.full().unwrap();
    /// assert_eq!(full.path, Path::Dense);
    /// assert!(full.keep_a.iter().chain(&full.keep_b).all(|&k| k));
    /// // the compensation removes most of direct quantization's error
    /// let (e_full, e_direct) = ((full.d[0] - 1.5).abs(), (p.direct().d[0] - 1.5).abs());
    /// assert!(e_full < e_direct / 10.0);
    /// ```
    pub fn full(&self) -> Result<Output> {
        Ok(Output {
            d: self.combine(self.full_p1()?, self.full_p2()?),
            path: Path::Dense,
            keep_a: vec![true; self.m * self.k],
            keep_b: vec![true; self.k * self.n],
            density_a: None,
            density_b: None,
        })
    }

    /// The reduced masks for a threshold and rule (Algorithm 1, line 8).
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] only if the public fields were changed
    /// so that `a_stored`, `b_stored` or the means no longer fit `m`, `k`, `n`
    /// (never for a `Prepared` as built).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// // the code's rule: mean |A| = 0.75 and mean |B| = 1.5, limits 2 * 0.5 * mean
    /// assert_eq!(p.masks(0.5, ReduceRule::Mean).unwrap(), (vec![true, false], vec![true, false]));
    /// // eq. (14) with magnitudes: limit 0.5 * |D_F| (about 0.746) for both
    /// assert_eq!(p.masks(0.5, ReduceRule::Rows).unwrap(), (vec![true, false], vec![true, true]));
    /// // the signed reading drops b = -1
    /// assert_eq!(p.masks(0.5, ReduceRule::Signed).unwrap(), (vec![true, false], vec![true, false]));
    /// ```
    pub fn masks(&self, threshold: f64, rule: ReduceRule) -> Result<(Vec<bool>, Vec<bool>)> {
        let keep_a = reduce_mask(
            &self.a_stored,
            self.m,
            self.k,
            &self.row_means,
            true,
            threshold,
            rule,
        )?;
        let keep_b = reduce_mask(
            &self.b_stored,
            self.k,
            self.n,
            &self.col_means,
            false,
            threshold,
            rule,
        )?;
        Ok((keep_a, keep_b))
    }

    /// Gu's Algorithm 1 (lines 8-17): reduce, then for each compensation
    /// product a CSR SpMM over the kept entries if the reduced matrix's
    /// density is below `eta`, else the full residual's dense product.
    ///
    /// # Errors
    /// [`VerifyError::InvalidParameter`] for a bad threshold or `eta`;
    /// [`VerifyError::Overflow`] for an `int32` overflow.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// let r = Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 1.0 };
    /// let out = p.sparse(r).unwrap();
    /// assert_eq!(out.path, Path::Sparse);
    /// assert_eq!((out.density_a, out.density_b), (Some(0.5), Some(0.5)));
    /// assert_eq!((out.keep_a.clone(), out.keep_b.clone()), p.masks(0.5, ReduceRule::Mean).unwrap());
    /// // eta = 0: no density is below it, so both products are the full residual's
    /// let dense = p.sparse(Reduction { eta: 0.0, ..r }).unwrap();
    /// assert_eq!(dense.path, Path::Dense);
    /// assert_eq!(dense.d, p.full().unwrap().d);
    /// assert!(p.sparse(Reduction { threshold: -1.0, ..r }).is_err());
    /// ```
    pub fn sparse(&self, reduction: Reduction) -> Result<Output> {
        reduction.validate()?;
        let (keep_a, keep_b) = self.masks(reduction.threshold, reduction.rule)?;
        let csr_a = CsrI8::from_mask(self.m, self.k, &self.aq.ints, &keep_a)?;
        let csr_b = CsrI8::from_mask(self.k, self.n, &self.bq.ints, &keep_b)?;
        let (density_a, density_b) = (csr_a.density(), csr_b.density());
        let (sparse_a, sparse_b) = (density_a < reduction.eta, density_b < reduction.eta);
        let p1 = if sparse_a {
            spmm_csr_dense(&csr_a, &self.rbq.ints, self.n)?
        } else {
            self.full_p1()?.clone()
        };
        let p2 = if sparse_b {
            spmm_dense_csr(&self.raq.ints, self.m, &csr_b)?
        } else {
            self.full_p2()?.clone()
        };
        Ok(Output {
            d: self.combine(&p1, &p2),
            path: match (sparse_a, sparse_b) {
                (true, true) => Path::Sparse,
                (false, false) => Path::Dense,
                _ => Path::Mixed,
            },
            keep_a: if sparse_a {
                keep_a
            } else {
                vec![true; self.m * self.k]
            },
            keep_b: if sparse_b {
                keep_b
            } else {
                vec![true; self.k * self.n]
            },
            density_a: Some(density_a),
            density_b: Some(density_b),
        })
    }

    /// Runs a method.
    ///
    /// # Errors
    /// As [`Prepared::sparse`] and [`Prepared::full`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// let r = Reduction { threshold: 0.5, rule: ReduceRule::Mean, eta: 0.3 };
    /// assert_eq!(p.run(Method::Direct, r).unwrap(), p.direct());
    /// assert_eq!(p.run(Method::Full, r).unwrap(), p.full().unwrap());
    /// assert_eq!(p.run(Method::Sparse, r).unwrap(), p.sparse(r).unwrap());
    /// // the reduction is checked only where it is used
    /// let bad = Reduction { eta: 2.0, ..r };
    /// assert!(p.run(Method::Sparse, bad).is_err());
    /// assert!(p.run(Method::Direct, bad).is_ok());
    /// ```
    pub fn run(&self, method: Method, reduction: Reduction) -> Result<Output> {
        match method {
            Method::Direct => Ok(self.direct()),
            Method::Full => self.full(),
            Method::Sparse => self.sparse(reduction),
        }
    }

    /// `D = fl(fl(y0 + y1) + y2)` (Algorithm 1, lines 16-17).
    fn combine(&self, p1: &[i32], p2: &[i32]) -> Vec<f64> {
        let w = self.quantizer.working;
        let y1 = dequantize(p1, self.m, self.n, &self.aq, &self.rbq, self.quantizer);
        let y2 = dequantize(p2, self.m, self.n, &self.raq, &self.bq, self.quantizer);
        self.d_f
            .iter()
            .zip(y1)
            .zip(y2)
            .map(|((&y0, y1), y2)| w.add(w.add(y0, y1), y2))
            .collect()
    }

    /// The checker's view of the operands.
    ///
    /// # Errors
    /// The errors of [`Matrix::new`] and [`QuantizedMatrix::view`], only for
    /// public fields changed so that they no longer fit `m`, `k`, `n`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// use boundgate_verify::bounds::residual::rigorous;
    /// let ops = p.operands().unwrap();
    /// let out = p.full().unwrap();
    /// // the rigorous bound holds against the exact error |D - 1.5|
    /// let bound = rigorous(&ops, &out.keep_a, &out.keep_b).unwrap();
    /// let b = bound.bounded(0).unwrap();
    /// assert!((out.d[0] - 1.5).abs() <= b);
    /// ```
    pub fn operands(&self) -> Result<Operands<'_>> {
        Ok(Operands::new(
            Matrix::new(self.m, self.k, &self.a)?,
            Matrix::new(self.k, self.n, &self.b)?,
            self.aq.view()?,
            self.bq.view()?,
            self.raq.view()?,
            self.rbq.view()?,
            self.quantizer.working.format(),
        )?)
    }

    /// Whether storing in the working format changed any input.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::residual::method::*;
    /// use boundgate::kernels::residual::quant::*;
    /// use boundgate::kernels::residual::reduce::ReduceRule;
    /// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
    /// // A = [1, 0.5] (1 x 2), B = [2, -1] (2 x 1): A B = 1.5 exactly
    /// let p = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// assert!(p.stored_exactly());
    /// let p = Prepared::new(&[0.1, 0.5], &[2.0, -1.0], 1, 2, 1, q, Granularity::Vector).unwrap();
    /// assert!(!p.stored_exactly()); // 0.1 is not a binary32 value
    /// let q64 = Quantizer { working: Working::Fp64, ..q };
    /// let p = Prepared::new(&[0.1, 0.5], &[2.0, -1.0], 1, 2, 1, q64, Granularity::Vector).unwrap();
    /// assert!(p.stored_exactly());
    /// ```
    pub fn stored_exactly(&self) -> bool {
        let same = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits());
        same(&self.a, &self.a_stored) && same(&self.b, &self.b_stored)
    }
}

/// `fl(fl(fl(P) / lambda_hi) / lambda_lo)` for every element, with
/// `lambda_hi = max(lambda_row_i, lambda_col_j)` and `lambda_lo` the other
/// (Gu §3.2: `C_fp = C_int / (lambda_a_i lambda_b_j)`, one scale at a time, so
/// that the product of the scales, which can overflow or underflow, is never
/// formed). The larger scale goes first: then the intermediate is at most
/// `max(|P|, |P| / (lambda_row lambda_col))` (if `lambda_hi >= 1` it is at most
/// `|P|`, else both scales are below 1 and it is at most the result), so it
/// cannot overflow where neither the integer nor the result does. Dividing by
/// the row scale first overflowed fp32 for `A = [[1e38]]`, `B = [[1e-30]]`
/// (`P0 / lambda_A = 1.3e40`, output `inf` against an exact `1e8`; found by
/// review, 2026-11-25). Equal scales give the same result in either order.
///
/// # Example
/// ```
/// use boundgate::kernels::residual::method::dequantize;
/// use boundgate::kernels::residual::quant::*;
/// use boundgate_verify::bounds::residual::ScaleAxis;
/// let q = Quantizer { bits: Bits::Int8, scale: ScaleRule::Absmax, rounding: Rounding::Nearest, working: Working::Fp32 };
/// let a = q.quantize("A", &[1e38], 1, 1, ScaleAxis::Rows).unwrap();
/// let b = q.quantize("B", &[1e-30], 1, 1, ScaleAxis::Columns).unwrap();
/// // P0 = 127 * 127: 16129 / 1.27e-36 would overflow fp32; 16129 / 1.27e32 first does not.
/// let d = dequantize(&[127 * 127], 1, 1, &a, &b, q);
/// assert!((d[0] / 1e8 - 1.0).abs() < 1e-6, "{d:?}");
/// ```
pub fn dequantize(
    p: &[i32],
    m: usize,
    n: usize,
    left: &QuantizedMatrix,
    right: &QuantizedMatrix,
    quantizer: Quantizer,
) -> Vec<f64> {
    let w = quantizer.working;
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        let row_scale = left.scale(i, 0);
        for j in 0..n {
            let col_scale = right.scale(0, j);
            let (hi, lo) = (row_scale.max(col_scale), row_scale.min(col_scale));
            out.push(w.div(w.div(w.from_int(p[i * n + j]), hi), lo));
        }
    }
    out
}

/// `E_delta = ||D - C||_F / ||C||_F` (Gu §3.1), from the computed and the exact
/// values; `None` when `C = 0` (undefined), when the lengths differ, or when a
/// value is not finite.
///
/// Every value is first scaled by one power of two `2^-e`, `e` the exponent
/// of the largest `|d|` or `|c|`: the scaling is exact and cancels in the
/// quotient, so where the plain sums of squares neither overflow nor
/// underflow the result is theirs (bit for bit, unless a value tiny beside
/// the largest lands among the subnormals when scaled, where its square is
/// negligible), and where they do it is still the defined value. The plain
/// sums squared binary64 values unscaled: with the kernel's `fp64` format an
/// output near `1e200` squared to `inf` and the report's `e_delta_as_stored`
/// was `NaN` (written as `null`, "undefined"), and one near `1e-170` squared
/// to 0 and the ratio was called undefined for a nonzero `C` (review,
/// 2026-11-29).
///
/// # Example
/// ```
/// use boundgate::kernels::residual::method::relative_frobenius;
/// assert_eq!(relative_frobenius(&[3.0, 4.0], &[0.0, 4.0]), Some(0.75));
/// assert_eq!(relative_frobenius(&[1.0], &[0.0]), None);
/// // the same ratio at the top and at the bottom of binary64, where the
/// // squares overflow (2^1400) or underflow (2^-2000)
/// for s in [2f64.powi(700), 2f64.powi(-1000)] {
///     assert_eq!(relative_frobenius(&[3.0 * s, 4.0 * s], &[0.0, 4.0 * s]), Some(0.75));
/// }
/// assert_eq!(relative_frobenius(&[f64::INFINITY], &[1.0]), None);
/// assert_eq!(relative_frobenius(&[1.0, 2.0], &[1.0]), None);
/// ```
pub fn relative_frobenius(computed: &[f64], exact: &[f64]) -> Option<f64> {
    let values = || computed.iter().chain(exact);
    if computed.len() != exact.len()
        || values().any(|v| !v.is_finite())
        || exact.iter().all(|&c| c == 0.0)
    {
        return None;
    }
    let top = values().fold(0.0f64, |t, v| t.max(v.abs()));
    // The unbiased exponent of `top` (at least -1022 for a subnormal), kept
    // within [-1022, 1022] so that 2^-e is a normal binary64 number; the
    // scaled values are then below 4 in magnitude.
    let e = (((top.to_bits() >> 52) & 0x7ff) as i32 - 1023).clamp(-1022, 1022);
    let scale = f64::from_bits(((1023 - e) as u64) << 52);
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for (&d, &c) in computed.iter().zip(exact) {
        let (d, c) = (d * scale, c * scale);
        num += (d - c) * (d - c);
        den += c * c;
    }
    (den > 0.0).then(|| (num / den).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::kernels::residual::quant::{Bits, Rounding, ScaleRule, Working};

    #[test]
    fn prepared_refuses_a_shape_whose_product_overflows() {
        let q = Quantizer {
            bits: Bits::Int8,
            scale: ScaleRule::Absmax,
            rounding: Rounding::Nearest,
            working: Working::Fp32,
        };
        for (m, k, n) in [(usize::MAX, 2, 1), (1, 2, usize::MAX)] {
            let got = Prepared::new(&[1.0, 0.5], &[2.0, -1.0], m, k, n, q, Granularity::Vector);
            assert!(
                matches!(
                    got,
                    Err(Error::Verify(VerifyError::InvalidParameter { .. }))
                ),
                "{m} x {k} x {n}: {got:?}"
            );
        }
    }
}
