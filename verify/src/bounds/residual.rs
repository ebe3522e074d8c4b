//! Bounds of the residual-compensated quantized GEMM of Gu, *A method for
//! accelerating low precision operations by sparse matrix multiplication*
//! (preprint; seed `residual-sparse-gemm-gu.txt`), and the exact integer
//! oracle its integer products are checked against.
//!
//! # The computation being bounded
//!
//! `C = A B` with `A` (`m x k`) and `B` (`k x n`) given as `f64`. The kernel
//! quantizes `A` and `B` to integers `Aq`, `Bq` with scales `lambda` (a value
//! `x` is represented by `q / lambda`; Gu eq. (1)-(3)), one scale per row of
//! `A` and per column of `B` (vector-wise, Gu §3.2) or one per matrix. It then
//! forms residuals, quantizes them to `RAq`, `RBq` (Algorithm 1, lines 4-6),
//! keeps a subset of the entries of `A` and `B` (masks `KA`, `KB`: Algorithm 1,
//! line 8) and computes the integer products (exact)
//!
//! ```text
//! P0 = Aq Bq,   P1 = (KA o Aq) RBq,   P2 = RAq (KB o Bq)
//! ```
//!
//! and, in a floating-point format `F` with round to nearest even,
//!
//! ```text
//! y_t = fl(fl(fl(P_t) / lambda_hi) / lambda_lo),   D = fl(fl(y0 + y1) + y2)
//! ```
//!
//! with `lambda_hi = max(lambda_row, lambda_col)` and `lambda_lo` the other
//! (dequantization, Gu §3.2 `C_fp = C_int / (lambda_a_i lambda_b_j)`, divided
//! one scale at a time so that no product of scales can overflow or
//! underflow, the larger scale first so that the intermediate is at most
//! `max(|P_t|, |P_t| / (lambda_row lambda_col))` and cannot overflow where
//! neither the integer nor the result does; then Algorithm 1, line 17). Direct quantization is `KA = KB = 0`, the full
//! residual (the first three terms of Gu eq. (7)) is `KA = KB = 1`.
//!
//! # The rigorous bound ([`rigorous`])
//!
//! Write `A^ = Aq / lambda_A`, `RA^ = RAq / lambda_RA` (exact reals, scale per
//! row), likewise `B^`, `RB^` (scale per column), and let `EA = A - A^`,
//! `qA = EA - RA^` (everything the quantized residual misses: the storage
//! rounding of `A`, the rounding of the dequantization and of the subtraction
//! that formed the residual, and the residual's own quantization), and the same
//! for `B`. The identity of the issue, `AB - (A'B' + A^r RB + RA B^r) =
//! (A - A^r) RB + RA (B - B^r) - RA RB`, written for the quantities the kernel
//! really multiplies, is (expand `A = A^ + RA^ + qA`, `B = B^ + RB^ + qB`)
//!
//! ```text
//! AB - (T0 + T1 + T2) = ((1 - KA) o A^) RB^ + RA^ ((1 - KB) o B^)      [dropped entries]
//!                       + A^ qB + qA B^                               [residual quantization]
//!                       + EA EB                                       [residual x residual]
//! ```
//!
//! with `T0 = A^ B^`, `T1 = (KA o A^) RB^`, `T2 = RA^ (KB o B^)`. Per element,
//! with `|.|` taken entrywise:
//!
//! - dropped: `(1/la_i)(1/lrb_j) sum_k (1 - KA_ik)|Aq_ik||RBq_kj| + (1/lra_i)(1/lb_j) sum_k |RAq_ik|(1 - KB_kj)|Bq_kj|`,
//!   the sums exact integers;
//! - residual quantization: `(1/la_i) (sum_k |Aq_ik|) bB_j + bA_i (1/lb_j) sum_k |Bq_kj|`,
//!   where `bA_i >= max_k |qA_ik|` is evaluated a posteriori, entry by entry,
//!   from `a_ik`, `Aq_ik`, `RAq_ik` and the scales with directed rounding (so it
//!   holds whatever rounding rule, scale rule or saturation produced them);
//! - residual x residual: `|EA||EB| <= (|RA^| + bA)(|RB^| + bB)` summed over k,
//!   or `k eA_i eB_j` with `eA_i >= max_k |EA_ik|`, whichever is smaller;
//! - floating point: `fl(P)` is `P (1 + d)`; each division is `z (1 + d) + e`
//!   with `|d| <= u`, `|e| <= eta` (Higham 2002, §2.1, eq. (2.8), gradual
//!   underflow), so `|y_t - T_t| <= gamma_3 X_t + eta (1 + u)/lambda_lo + eta`
//!   with `X_t >= |T_t|`; additions are exact when subnormal (Higham 2002, §2.1)
//!   and otherwise `|fl(z) - z| <= u |z|`, so the two additions add
//!   `u (Y0 + Y1) + u ((1 + u)(Y0 + Y1) + Y2)` with `Y_t = X_t + |y_t - T_t|`
//!   (an addition of an exact zero is exact and adds nothing). The
//!   magnitudes are `X_t = |P_t| / (lambda_row lambda_col)` with `P_t` the
//!   exact (signed) integer products, not estimates from row sums and column
//!   maxima or from absolute products, which can be larger by any factor
//!   (fp32, `A = [[1e38, 1e38]]`, `B = [[1e10], [-1e10]]`: every `P_t` is 0,
//!   the row-sum estimate of `X_0` is 2e48 and reported a possible overflow).
//!
//! Hypotheses checked: finite inputs and scales, `F` has subnormals, and, per
//! element, no intermediate of the dequantize-and-add can overflow `F` and the
//! bound is finite in binary64. An element where either fails has no bound
//! (`+inf` in a partial [`ElementBounds`]: the check judges the others and
//! calls the output a hypothesis not met only if they hold). Every number is
//! evaluated with upward rounding ([`super::directed`]).
//!
//! # The published results
//!
//! - [`eq8_first_order`]: Gu eq. (8) with eq. (12) (`|ra| <= 1/lambda`): to
//!   first order the error is `sum_k ra_ik b_kj + sum_k a_ik rb_kj` over the
//!   entries the method does not compensate (the `Es` of §3.2), bounded by
//!   `(1/la_i) sum_k (1 - KB_kj)|b_kj| + (1/lb_j) sum_k (1 - KA_ik)|a_ik|`.
//!   It omits `RA RB` (`Er`) and the residual quantization (`Eq`): for the full
//!   residual it is 0. As printed it has no absolute values (a signed sum over
//!   `c_ij` is no bound for data of both signs); we take magnitudes, the most
//!   favourable reading.
//! - [`threshold_claim`]: §3.1 "we expect the relative error ... to be at most
//!   2M" with `M` the threshold (and §5.2: the threshold serves "as an upper
//!   limit for residual correction errors"), i.e. `|d_ij - c_ij| <= 2 M |c_ij|`.

use super::directed::{add_down, add_up, div_down, div_up, mul_up, product3_up, sub_down, sub_up};
use super::gamma::gamma_value;
use super::{Bound, Quantity, Rigor, Source, require};
use crate::check::ElementBounds;
use crate::error::{Result, VerifyError, require_finite, require_same_len};
use crate::format::{Format, OverflowPolicy, RoundingMode};
use crate::oracle::Matrix;

const GU: &str =
    "Gu, A method for accelerating low precision operations by sparse matrix multiplication";

const RIGOROUS: Source = Source::new(
    "boundgate (Gu's Algorithm 1 with the residual identity; derivation in bounds::residual)",
    "rigorous residual-GEMM bound",
    None,
);
const GU_EQ8: Source = Source::new(
    GU,
    "Section 3.1, first-order residual with eq. (12)",
    Some("(8)"),
);
const GU_THRESHOLD: Source = Source::new(
    GU,
    "Section 3.1 (relative error at most 2M) and Section 5.2",
    Some("(13)"),
);

/// How the scales of a quantized matrix are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleAxis {
    /// One scale for the whole matrix (per tensor).
    Tensor,
    /// One scale per row (vector-wise quantization of `A`, Gu §3.2).
    Rows,
    /// One scale per column (vector-wise quantization of `B`, Gu §3.2).
    Columns,
}

/// A quantized matrix as a kernel used it: integers `q` and scales `lambda`,
/// standing for the reals `q / lambda` (Gu eq. (1)-(3)). Row-major.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
/// let q = QuantizedView::new(2, 2, &[127, -3, 0, 64], &[127.0, 2.0], ScaleAxis::Rows).unwrap();
/// assert_eq!(q.scale(1, 0), 2.0);
/// assert!(QuantizedView::new(2, 2, &[1, 2, 3, 4], &[0.0, 1.0], ScaleAxis::Rows).is_err());
/// assert!(QuantizedView::new(2, 2, &[1, 2, 3, 4], &[1.0], ScaleAxis::Rows).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizedView<'a> {
    rows: usize,
    cols: usize,
    ints: &'a [i8],
    scales: &'a [f64],
    axis: ScaleAxis,
}

impl<'a> QuantizedView<'a> {
    /// A validated view: `rows * cols` integers, one scale per row, per column
    /// or in all, each finite and positive.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] for wrong lengths,
    /// [`VerifyError::InvalidParameter`] for a scale that is not finite and positive.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// use boundgate_verify::error::VerifyError;
    /// // Per-column scales of a 2 x 3 B: 3 scales.
    /// let q = QuantizedView::new(2, 3, &[1, 2, 3, 4, 5, 6], &[1.0, 2.0, 4.0], ScaleAxis::Columns).unwrap();
    /// assert_eq!((q.rows(), q.cols(), q.scale(1, 2)), (2, 3, 4.0));
    /// // Wrong lengths and non-positive or non-finite scales are refused.
    /// let rows = QuantizedView::new(2, 3, &[1, 2, 3, 4, 5, 6], &[1.0, 2.0, 4.0], ScaleAxis::Rows);
    /// assert!(matches!(rows, Err(VerifyError::LengthMismatch { .. })));
    /// assert!(QuantizedView::new(2, 3, &[1, 2, 3], &[1.0], ScaleAxis::Tensor).is_err());
    /// for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
    ///     let scale = [bad];
    ///     let r = QuantizedView::new(1, 1, &[1], &scale, ScaleAxis::Tensor);
    ///     assert!(matches!(r, Err(VerifyError::InvalidParameter { .. })));
    /// }
    /// ```
    pub fn new(
        rows: usize,
        cols: usize,
        ints: &'a [i8],
        scales: &'a [f64],
        axis: ScaleAxis,
    ) -> Result<Self> {
        let len = rows.checked_mul(cols).ok_or_else(|| {
            VerifyError::invalid("rows * cols", format!("{rows} * {cols}"), "overflows usize")
        })?;
        require_same_len("rows * cols and the integers", len, ints.len())?;
        let expected = match axis {
            ScaleAxis::Tensor => 1,
            ScaleAxis::Rows => rows,
            ScaleAxis::Columns => cols,
        };
        require_same_len("the scales and the scaled axis", scales.len(), expected)?;
        if let Some(i) = scales.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(VerifyError::invalid(
                &format!("scale[{i}]"),
                scales[i],
                "a scale must be finite and positive",
            ));
        }
        Ok(QuantizedView {
            rows,
            cols,
            ints,
            scales,
            axis,
        })
    }

    /// Number of rows.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// let q = QuantizedView::new(4, 2, &[0; 8], &[1.0; 4], ScaleAxis::Rows).unwrap();
    /// assert_eq!(q.rows(), 4);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// let q = QuantizedView::new(4, 2, &[0; 8], &[1.0; 2], ScaleAxis::Columns).unwrap();
    /// assert_eq!(q.cols(), 2);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The integers, row-major.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// let ints = [127, -128, 0, 5];
    /// let q = QuantizedView::new(2, 2, &ints, &[1.0], ScaleAxis::Tensor).unwrap();
    /// assert_eq!(q.ints(), &[127, -128, 0, 5]); // row-major, as given
    /// ```
    pub fn ints(&self) -> &'a [i8] {
        self.ints
    }
    /// The scale layout.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// let q = QuantizedView::new(2, 2, &[1, 2, 3, 4], &[3.0, 5.0], ScaleAxis::Rows).unwrap();
    /// assert_eq!(q.axis(), ScaleAxis::Rows);
    /// ```
    pub fn axis(&self) -> ScaleAxis {
        self.axis
    }
    /// The scale of element `(i, j)`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{QuantizedView, ScaleAxis};
    /// let ints = [1, 2, 3, 4];
    /// let rows = QuantizedView::new(2, 2, &ints, &[3.0, 5.0], ScaleAxis::Rows).unwrap();
    /// let cols = QuantizedView::new(2, 2, &ints, &[3.0, 5.0], ScaleAxis::Columns).unwrap();
    /// let tensor = QuantizedView::new(2, 2, &ints, &[7.0], ScaleAxis::Tensor).unwrap();
    /// // Element (1, 0): row 1, column 0.
    /// assert_eq!((rows.scale(1, 0), cols.scale(1, 0), tensor.scale(1, 0)), (5.0, 3.0, 7.0));
    /// ```
    pub fn scale(&self, i: usize, j: usize) -> f64 {
        match self.axis {
            ScaleAxis::Tensor => self.scales[0],
            ScaleAxis::Rows => self.scales[i],
            ScaleAxis::Columns => self.scales[j],
        }
    }
}

/// Everything of a residual-compensated GEMM that its bounds need: the inputs
/// as given, the four quantized matrices and the arithmetic format.
#[derive(Clone, Copy, Debug)]
pub struct Operands<'a> {
    /// `A` as given (`m x k`).
    pub a: Matrix<'a>,
    /// `B` as given (`k x n`).
    pub b: Matrix<'a>,
    /// `Aq` with its scales (per tensor or per row).
    pub aq: QuantizedView<'a>,
    /// `Bq` with its scales (per tensor or per column).
    pub bq: QuantizedView<'a>,
    /// The quantized residual of `A` (per tensor or per row).
    pub raq: QuantizedView<'a>,
    /// The quantized residual of `B` (per tensor or per column).
    pub rbq: QuantizedView<'a>,
    /// The format of the dequantize-and-add arithmetic (round to nearest even).
    pub format: Format,
}

impl<'a> Operands<'a> {
    /// Validates shapes, scale layouts and finiteness.
    ///
    /// # Errors
    /// [`VerifyError::Empty`] for an empty dimension, [`VerifyError::LengthMismatch`]
    /// for inconsistent shapes, [`VerifyError::InvalidParameter`] for a scale
    /// layout that does not fit the operand (a per-column `A` scale, ...),
    /// [`VerifyError::NonFinite`] for a NaN or infinite input.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{Operands, QuantizedView, ScaleAxis};
    /// use boundgate_verify::error::VerifyError;
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle::Matrix;
    /// let (a, b) = ([0.5, 0.25], [2.0, -1.0]); // A 1 x 2, B 2 x 1
    /// let (ints, s) = ([1i8, 1], [2.0]);
    /// let q = QuantizedView::new(1, 2, &ints, &s, ScaleAxis::Tensor).unwrap();
    /// let qb = QuantizedView::new(2, 1, &ints, &s, ScaleAxis::Tensor).unwrap();
    /// fn mat(r: usize, c: usize, v: &[f64]) -> Matrix<'_> {
    ///     Matrix::new(r, c, v).unwrap()
    /// }
    /// assert!(Operands::new(mat(1, 2, &a), mat(2, 1, &b), q, qb, q, qb, Format::FP32).is_ok());
    /// // B's views with A's shape: 1 x 2 is not 2 x 1.
    /// assert!(matches!(Operands::new(mat(1, 2, &a), mat(2, 1, &b), q, q, q, qb, Format::FP32),
    ///                  Err(VerifyError::LengthMismatch { .. })));
    /// // A scaled per column is refused (A is scaled per row or per tensor).
    /// let s2 = [2.0, 2.0];
    /// let per_col = QuantizedView::new(1, 2, &ints, &s2, ScaleAxis::Columns).unwrap();
    /// assert!(matches!(Operands::new(mat(1, 2, &a), mat(2, 1, &b), per_col, qb, q, qb, Format::FP32),
    ///                  Err(VerifyError::InvalidParameter { .. })));
    /// // A NaN input.
    /// let nan = [f64::NAN, 0.25];
    /// assert!(matches!(Operands::new(mat(1, 2, &nan), mat(2, 1, &b), q, qb, q, qb, Format::FP32),
    ///                  Err(VerifyError::NonFinite { .. })));
    /// ```
    pub fn new(
        a: Matrix<'a>,
        b: Matrix<'a>,
        aq: QuantizedView<'a>,
        bq: QuantizedView<'a>,
        raq: QuantizedView<'a>,
        rbq: QuantizedView<'a>,
        format: Format,
    ) -> Result<Self> {
        for (what, len) in [("A", a.data().len()), ("B", b.data().len())] {
            if len == 0 {
                return Err(VerifyError::Empty { what: what.into() });
            }
        }
        require_same_len("columns of A and rows of B", a.cols(), b.rows())?;
        for (what, q, rows, cols) in [
            ("Aq", &aq, a.rows(), a.cols()),
            ("RAq", &raq, a.rows(), a.cols()),
            ("Bq", &bq, b.rows(), b.cols()),
            ("RBq", &rbq, b.rows(), b.cols()),
        ] {
            require_same_len(&format!("rows of {what}"), q.rows(), rows)?;
            require_same_len(&format!("columns of {what}"), q.cols(), cols)?;
        }
        for (what, q, bad) in [
            ("Aq", &aq, ScaleAxis::Columns),
            ("RAq", &raq, ScaleAxis::Columns),
            ("Bq", &bq, ScaleAxis::Rows),
            ("RBq", &rbq, ScaleAxis::Rows),
        ] {
            if q.axis() == bad {
                return Err(VerifyError::invalid(
                    &format!("{what} scales"),
                    format!("{bad:?}"),
                    "A is scaled per row or per tensor, B per column or per tensor",
                ));
            }
        }
        require_finite("A", a.data())?;
        require_finite("B", b.data())?;
        Ok(Operands {
            a,
            b,
            aq,
            bq,
            raq,
            rbq,
            format,
        })
    }

    fn dims(&self) -> (usize, usize, usize) {
        (self.a.rows(), self.a.cols(), self.b.cols())
    }
}

/// `i64` to `f64`, rounded up (exact below 2^53; inputs are non-negative sums).
fn up(v: i64) -> f64 {
    let f = v as f64;
    if (f as i64) < v || f.abs() > 9_007_199_254_740_992.0 {
        f.next_up()
    } else {
        f
    }
}

/// The exact integer product `a b` of row-major `m x k` and `k x n` integer
/// matrices, accumulated in `i64` (exact for `k < 2^48`): the oracle the
/// kernels' `i32` accumulation is checked against.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for lengths that do not match the shape.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::int_gemm_i64;
/// let c = int_gemm_i64(&[127, 127], &[127, 127], 1, 2, 1).unwrap();
/// assert_eq!(c, vec![2 * 127 * 127]);
/// // A shape whose product overflows is an error, not a panic.
/// assert!(int_gemm_i64(&[], &[], usize::MAX, 2, 0).is_err());
/// ```
pub fn int_gemm_i64(a: &[i8], b: &[i8], m: usize, k: usize, n: usize) -> Result<Vec<i64>> {
    let product = |what: &str, p: usize, q: usize| {
        p.checked_mul(q)
            .ok_or_else(|| VerifyError::invalid(what, format!("{p} * {q}"), "overflows usize"))
    };
    let (mk, kn, mn) = (
        product("m * k", m, k)?,
        product("k * n", k, n)?,
        product("m * n", m, n)?,
    );
    require_same_len("A and m * k", a.len(), mk)?;
    require_same_len("B and k * n", b.len(), kn)?;
    let mut c = vec![0i64; mn];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for (kk, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            if x == 0 {
                continue;
            }
            let x = i64::from(x);
            for (acc, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *acc += x * i64::from(y);
            }
        }
    }
    Ok(c)
}

/// The largest inner dimension `k` for which an `i32` accumulation of `k`
/// products of integers bounded by `qa` and `qb` in magnitude cannot overflow:
/// `floor((2^31 - 1) / (qa qb))` (133,144 for int8 with `q <= 127`; the issue's
/// exactness condition `k (2^(N-1) - 1)^2 <= 2^31 - 1`).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::int32_max_k;
/// assert_eq!(int32_max_k(127, 127), 133_144);
/// assert_eq!(int32_max_k(7, 7), 43_826_196);
/// ```
pub fn int32_max_k(qa: u32, qb: u32) -> u64 {
    (i32::MAX as u64)
        .checked_div(u64::from(qa) * u64::from(qb))
        .unwrap_or(u64::MAX)
}

/// `sum_k x_ik y_kj` for all `(i, j)`, exactly, for integers of magnitude at
/// most 128 (`i8`, or the `u8` magnitudes of `i8`s): `i32` accumulation when
/// it provably cannot overflow (`k 128^2 <= 2^31 - 1`), else `i64`.
fn exact_gemm<T: Copy + Into<i32>>(x: &[T], y: &[T], m: usize, k: usize, n: usize) -> Vec<i64> {
    let mut out = vec![0i64; m * n];
    if (k as u64) * 128 * 128 <= i32::MAX as u64 {
        let mut acc = vec![0i32; n];
        for i in 0..m {
            acc.iter_mut().for_each(|v| *v = 0);
            for (kk, &v) in x[i * k..(i + 1) * k].iter().enumerate() {
                let v: i32 = v.into();
                if v == 0 {
                    continue;
                }
                for (a, &w) in acc.iter_mut().zip(&y[kk * n..(kk + 1) * n]) {
                    *a += v * Into::<i32>::into(w);
                }
            }
            for (o, a) in out[i * n..(i + 1) * n].iter_mut().zip(&acc) {
                *o = i64::from(*a);
            }
        }
    } else {
        for i in 0..m {
            let row = &mut out[i * n..(i + 1) * n];
            for (kk, &v) in x[i * k..(i + 1) * k].iter().enumerate() {
                let v = i64::from(Into::<i32>::into(v));
                for (a, &w) in row.iter_mut().zip(&y[kk * n..(kk + 1) * n]) {
                    *a += v * i64::from(Into::<i32>::into(w));
                }
            }
        }
    }
    out
}

/// `sum_k |x_ik| |y_kj|` for all `(i, j)`, exactly: the absolute-value integer
/// GEMM the bound is built on.
fn abs_gemm(x: &[i8], y: &[i8], m: usize, k: usize, n: usize) -> Vec<i64> {
    let xa: Vec<u8> = x.iter().map(|v| v.unsigned_abs()).collect();
    let ya: Vec<u8> = y.iter().map(|v| v.unsigned_abs()).collect();
    exact_gemm(&xa, &ya, m, k, n)
}

/// `sum_k mask_ik |x_ik| |y_kj|` (`mask_on_left`) or `sum_k |x_ik| mask_kj |y_kj|`,
/// and the same sums of the signed products `x_ik y_kj`, visiting only the
/// entries where `mask == select`.
fn masked_gemms(
    x: &[i8],
    y: &[i8],
    dims: (usize, usize, usize),
    mask: &[bool],
    mask_on_left: bool,
    select: bool,
) -> Products {
    let (m, k, n) = dims;
    let mut abs = vec![0i64; m * n];
    let mut signed = vec![0i64; m * n];
    for i in 0..m {
        let row = i * n..(i + 1) * n;
        let (abs_row, signed_row) = (&mut abs[row.clone()], &mut signed[row]);
        for kk in 0..k {
            let v = i64::from(x[i * k + kk]);
            if v == 0 || (mask_on_left && mask[i * k + kk] != select) {
                continue;
            }
            let ys = &y[kk * n..(kk + 1) * n];
            // A mask on the right is k x n: row kk selects the columns.
            let ms = (!mask_on_left).then(|| &mask[kk * n..(kk + 1) * n]);
            for (j, &w) in ys.iter().enumerate() {
                if ms.is_none_or(|ms| ms[j] == select) {
                    let p = v * i64::from(w);
                    abs_row[j] += p.abs();
                    signed_row[j] += p;
                }
            }
        }
    }
    Products { abs, signed }
}

/// An integer GEMM's exact products, summed in magnitude and with signs.
struct Products {
    /// `sum_k |x_ik y_kj|`.
    abs: Vec<i64>,
    /// `sum_k x_ik y_kj`.
    signed: Vec<i64>,
}

impl Products {
    fn of(x: &[i8], y: &[i8], m: usize, k: usize, n: usize) -> Products {
        Products {
            abs: abs_gemm(x, y, m, k, n),
            signed: exact_gemm(x, y, m, k, n),
        }
    }

    /// The kept and the dropped part of the full products `self`, from the
    /// part `visited` (the kept one if `kept_visited`, else the dropped one).
    fn split(&self, visited: Products, kept_visited: bool) -> (Products, Products) {
        let minus =
            |full: &[i64], part: &[i64]| full.iter().zip(part).map(|(f, p)| f - p).collect();
        let rest = Products {
            abs: minus(&self.abs, &visited.abs),
            signed: minus(&self.signed, &visited.signed),
        };
        if kept_visited {
            (visited, rest)
        } else {
            (rest, visited)
        }
    }
}

/// An upper bound on `|x - sum_t q_t / lambda_t|`, evaluated by interval
/// arithmetic with directed rounding (each quotient enclosed by its downward
/// and upward roundings).
fn gap_up(x: f64, terms: &[(i8, f64)]) -> f64 {
    let (mut lo, mut hi) = (x, x);
    for &(q, lambda) in terms {
        let q = f64::from(q);
        hi = sub_up(hi, div_down(q, lambda));
        lo = sub_down(lo, div_up(q, lambda));
    }
    hi.abs().max(lo.abs())
}

/// Per-row (or per-column) maxima of the a-posteriori bounds on `|EA|` and `|qA|`.
struct Gaps {
    /// `>= max |x - q / lambda|` over the line.
    total: Vec<f64>,
    /// `>= max |x - q / lambda - rq / rlambda|` over the line.
    after_residual: Vec<f64>,
}

/// Gaps along rows (`by_rows`) or columns of a matrix and its two quantizations.
fn gaps(x: &Matrix<'_>, q: &QuantizedView<'_>, r: &QuantizedView<'_>, by_rows: bool) -> Gaps {
    let lines = if by_rows { x.rows() } else { x.cols() };
    let mut g = Gaps {
        total: vec![0.0; lines],
        after_residual: vec![0.0; lines],
    };
    for i in 0..x.rows() {
        for j in 0..x.cols() {
            let line = if by_rows { i } else { j };
            let (total, after) = entry_gaps(x, q, r, i, j);
            g.total[line] = g.total[line].max(total);
            g.after_residual[line] = g.after_residual[line].max(after);
        }
    }
    g
}

/// The gaps of entry `(i, j)`: upper bounds on `|x - q / lambda|` and on
/// `|x - q / lambda - rq / rlambda|`.
fn entry_gaps(
    x: &Matrix<'_>,
    q: &QuantizedView<'_>,
    r: &QuantizedView<'_>,
    i: usize,
    j: usize,
) -> (f64, f64) {
    let at = i * x.cols() + j;
    let v = x.data()[at];
    let (lq, lr) = (q.scale(i, j), r.scale(i, j));
    (
        gap_up(v, &[(q.ints()[at], lq)]),
        gap_up(v, &[(q.ints()[at], lq), (r.ints()[at], lr)]),
    )
}

/// Sums of `|q|` along rows or columns.
fn line_abs(q: &QuantizedView<'_>, by_rows: bool) -> Vec<i64> {
    let lines = if by_rows { q.rows() } else { q.cols() };
    let mut sum = vec![0i64; lines];
    for i in 0..q.rows() {
        for j in 0..q.cols() {
            let line = if by_rows { i } else { j };
            sum[line] += i64::from(q.ints()[i * q.cols() + j].unsigned_abs());
        }
    }
    sum
}

/// An enclosure `[lo, hi]` of the computed `y^_t = fl(fl(P_t / lambda_hi) /
/// lambda_lo)`: the sign of `P_t`, and a magnitude within `e` (its rounding
/// bound) of the exact `|P_t| / (lambda_r lambda_c)`, which lies between the
/// downward quotients and `x_up`.
fn signed_enclosure(p: i64, (row, col): (f64, f64), x_up: f64, e: f64) -> (f64, f64) {
    if p == 0 {
        return (0.0, 0.0);
    }
    let x_down = div_down(div_down(p.unsigned_abs() as f64, row), col);
    // |P| as f64 rounded down: below 2^53 it is exact; above, the cast
    // rounds to nearest, so one step down keeps it below.
    let x_down = if p.unsigned_abs() > 1 << 53 {
        x_down.next_down().max(0.0)
    } else {
        x_down
    };
    let (lo, hi) = (sub_down(x_down, e), add_up(x_up, e));
    if p > 0 { (lo, hi) } else { (-hi, -lo) }
}

/// `v` rounded to nearest in `f`, or `None` where that overflows: an
/// infinity or NaN, or in a saturating format a `v` beyond the largest value
/// (its clamp is no rounding `|d| <= u` covers).
fn round_or_overflow(f: &Format, v: f64) -> Option<f64> {
    let r = f.round(v, RoundingMode::NearestEven);
    let clamped = f.overflow_policy() == OverflowPolicy::Saturate && v.abs() > f.max_finite();
    (r.is_finite() && !clamped).then_some(r)
}

/// An enclosure `[lo, hi]` of `fl(z)` from one of `z`: rounding to nearest
/// is monotone, so `fl(lo) <= fl(z) <= fl(hi)`; `None` where an end overflows.
fn round_enclosure(f: &Format, (lo, hi): (f64, f64)) -> Option<(f64, f64)> {
    Some((round_or_overflow(f, lo)?, round_or_overflow(f, hi)?))
}

/// The exact integer `p` enclosed by binary64 values (`p` itself below 2^53).
fn i64_enclosure(p: i64) -> (f64, f64) {
    let f = p as f64;
    match (f as i128).cmp(&i128::from(p)) {
        std::cmp::Ordering::Equal => (f, f),
        std::cmp::Ordering::Greater => (f.next_down(), f),
        std::cmp::Ordering::Less => (f, f.next_up()),
    }
}

/// The largest magnitude an intermediate of the kernel's dequantize-and-add
/// of one element can take in `f`, or `None` if one can overflow `f`. The
/// kernel computes `y^_t = fl(fl(fl(P_t) / lambda_hi) / lambda_lo)` (the larger
/// of the row and column scales first) and `fl(fl(y^_0 + y^_1) + y^_2)`; each
/// operation is evaluated on enclosures (the exact result with directed
/// binary64 rounding, then rounded to nearest in `f`, which is monotone), so
/// the enclosures hold for the computed values whatever their rounding
/// errors, and an end that rounds to infinity is the only way the operation
/// can overflow. Unlike `(1 + u)` times a magnitude bound compared with the
/// largest value, this leaves an output within a rounding of the top of the
/// format its bound (fp32, `A = [[MAX32]]`, `B = [[1]]`, exact, was "no bound"
/// until 2026-11-26).
fn dequantize_reach(f: &Format, p: [i64; 3], scales: [(f64, f64); 3]) -> Option<f64> {
    let reach = |(lo, hi): (f64, f64)| f64::max(lo.abs(), hi.abs());
    let mut largest: f64 = 0.0;
    let mut y = [(0.0, 0.0); 3];
    for t in 0..3 {
        if p[t] == 0 {
            continue; // fl(0) / lambda = 0 exactly
        }
        let (row, col) = scales[t];
        let (hi, lo) = (row.max(col), row.min(col));
        let whole = round_enclosure(f, i64_enclosure(p[t]))?;
        let first = round_enclosure(f, (div_down(whole.0, hi), div_up(whole.1, hi)))?;
        y[t] = round_enclosure(f, (div_down(first.0, lo), div_up(first.1, lo)))?;
        largest = largest.max(reach(whole)).max(reach(first)).max(reach(y[t]));
    }
    let s1 = round_enclosure(f, (add_down(y[0].0, y[1].0), add_up(y[0].1, y[1].1)))?;
    let s2 = round_enclosure(f, (add_down(s1.0, y[2].0), add_up(s1.1, y[2].1)))?;
    Some(largest.max(reach(s1)).max(reach(s2)))
}

/// Upper bounds of `|y^_0 + y^_1|` and `|fl(y^_0 + y^_1) + y^_2|` from
/// enclosures of the `y^_t` (interval sums rounded outward; the first sum
/// widened by its rounding `u |.|` when `first_rounded`, i.e. where `y^_1` is
/// not zero; the last sum's rounding is the caller's).
fn sum_reaches(y: [(f64, f64); 3], first_rounded: bool, u: f64) -> [f64; 2] {
    let reach = |(lo, hi): (f64, f64)| f64::max(lo.abs(), hi.abs());
    let first = (add_down(y[0].0, y[1].0), add_up(y[0].1, y[1].1));
    let m1 = reach(first);
    let widen = if first_rounded { mul_up(u, m1) } else { 0.0 };
    let second = (
        add_down(sub_down(first.0, widen), y[2].0),
        add_up(add_up(first.1, widen), y[2].1),
    );
    [m1, reach(second)]
}

/// Upward `1 / lambda` along the rows (of an `A`-side view) or columns (`B` side).
fn inverse_scales(q: &QuantizedView<'_>, by_rows: bool) -> Vec<f64> {
    let lines = if by_rows { q.rows() } else { q.cols() };
    (0..lines)
        .map(|l| {
            let lambda = if by_rows {
                q.scale(l, 0)
            } else {
                q.scale(0, l)
            };
            div_up(1.0, lambda)
        })
        .collect()
}

/// The mask-independent part of the rigorous bound, computed once for a set of
/// operands and reused for every mask (threshold) evaluated on them: exact
/// integer GEMMs (`P0`, `Aq RBq` and `RAq Bq` signed and in magnitudes,
/// `|RAq| |RBq|`) and the a-posteriori residual gaps.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::{Operands, Prepared, QuantizedView, ScaleAxis};
/// use boundgate_verify::format::Format;
/// use boundgate_verify::oracle::Matrix;
/// // 1x1: a = 0.3, b = 0.7, int8 per tensor with lambda = 127 / max.
/// let (a, b) = ([0.3], [0.7]);
/// let (la, lb) = ([127.0 / 0.3], [127.0 / 0.7]);
/// let aq = QuantizedView::new(1, 1, &[127], &la, ScaleAxis::Tensor).unwrap();
/// let bq = QuantizedView::new(1, 1, &[127], &lb, ScaleAxis::Tensor).unwrap();
/// let zero = QuantizedView::new(1, 1, &[0], &[1.0], ScaleAxis::Tensor).unwrap();
/// let ops = Operands::new(
///     Matrix::new(1, 1, &a).unwrap(), Matrix::new(1, 1, &b).unwrap(),
///     aq, bq, zero, zero, Format::FP64,
/// ).unwrap();
/// let bound = Prepared::new(&ops).unwrap().rigorous(&[false], &[false]).unwrap();
/// assert!(bound.values()[0] < 1e-15); // 127/lambda reproduces a up to rounding
/// ```
pub struct Prepared<'a> {
    ops: Operands<'a>,
    /// `Aq RBq`, in magnitudes and signed.
    g_a_rb: Products,
    /// `RAq Bq`, in magnitudes and signed.
    g_ra_b: Products,
    /// `sum_k |RAq_ik| |RBq_kj|`.
    g_ra_rb: Vec<i64>,
    gaps_a: Gaps,
    gaps_b: Gaps,
    /// `P0 = Aq Bq`.
    p0: Vec<i64>,
    abs_a: Vec<i64>,
    abs_b: Vec<i64>,
    abs_ra: Vec<i64>,
    abs_rb: Vec<i64>,
    inv: [Vec<f64>; 4],
}

impl<'a> Prepared<'a> {
    /// Computes the mask-independent parts.
    ///
    /// # Errors
    /// [`VerifyError::HypothesisNotMet`] if the format has no subnormals (the
    /// exactness of subnormal additions is used).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{int_gemm_i64, Operands, QuantizedView, ScaleAxis};
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle::{dot, Matrix};
    /// // C = A B, A 2 x 3, B 3 x 2, int8 with one scale per tensor (lambda = 127 / max).
    /// let (m, k, n) = (2, 3, 2);
    /// let a = [0.3, -1.2, 0.05, 0.9, 0.11, -0.7];
    /// let b = [0.7, 0.1, -0.4, 2.0, 1.3, -0.25];
    /// let quantize = |v: &[f64]| {
    ///     let l = 127.0 / v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    ///     let q: Vec<i8> = v.iter().map(|x| (x * l).round() as i8).collect();
    ///     let r: Vec<f64> = v.iter().zip(&q).map(|(x, &i)| x - f64::from(i) / l).collect();
    ///     ([l], q, r)
    /// };
    /// let (la, aq, ra) = quantize(&a);
    /// let (lra, raq, _) = quantize(&ra);
    /// let (lb, bq, rb) = quantize(&b);
    /// let (lrb, rbq, _) = quantize(&rb);
    /// fn view<'a>(r: usize, c: usize, q: &'a [i8], l: &'a [f64]) -> QuantizedView<'a> {
    ///     QuantizedView::new(r, c, q, l, ScaleAxis::Tensor).unwrap()
    /// }
    /// let ops = Operands::new(
    ///     Matrix::new(m, k, &a).unwrap(), Matrix::new(k, n, &b).unwrap(),
    ///     view(m, k, &aq, &la), view(k, n, &bq, &lb), view(m, k, &raq, &lra), view(k, n, &rbq, &lrb),
    ///     Format::FP64,
    /// ).unwrap();
    /// // Algorithm 1 in binary64 with masks KA, KB: P0 = Aq Bq, P1 = (KA o Aq) RBq,
    /// // P2 = RAq (KB o Bq), each divided by the larger scale first, then added.
    /// let kernel = |keep_a: &[bool], keep_b: &[bool]| -> Vec<f64> {
    ///     let masked = |q: &[i8], keep: &[bool]| -> Vec<i8> {
    ///         q.iter().zip(keep).map(|(&v, &kept)| if kept { v } else { 0 }).collect()
    ///     };
    ///     let p = |x: &[i8], y: &[i8]| int_gemm_i64(x, y, m, k, n).unwrap();
    ///     let (p0, p1, p2) = (p(&aq, &bq), p(&masked(&aq, keep_a), &rbq), p(&raq, &masked(&bq, keep_b)));
    ///     let deq = |p: i64, s: f64, t: f64| p as f64 / s.max(t) / s.min(t);
    ///     (0..m * n)
    ///         .map(|e| deq(p0[e], la[0], lb[0]) + deq(p1[e], la[0], lrb[0]) + deq(p2[e], lra[0], lb[0]))
    ///         .collect()
    /// };
    /// // |D - A B| against the exact A B (oracle), element by element.
    /// let errors = |d: &[f64]| -> Vec<f64> {
    ///     (0..m * n)
    ///         .map(|e| {
    ///             let (i, j) = (e / n, e % n);
    ///             let col: Vec<f64> = (0..k).map(|kk| b[kk * n + j]).collect();
    ///             dot(&a[i * k..(i + 1) * k], &col).unwrap().error_of(d[e]).absolute_up().unwrap()
    ///         })
    ///         .collect()
    /// };
    /// use boundgate_verify::bounds::residual::{rigorous, Prepared};
    /// // One preparation serves every mask, with the same bounds as `rigorous`.
    /// let prepared = Prepared::new(&ops).unwrap();
    /// for keep in [[true; 6], [false; 6]] {
    ///     let bounds = prepared.rigorous(&keep, &keep).unwrap();
    ///     assert_eq!(bounds.values(), rigorous(&ops, &keep, &keep).unwrap().values());
    ///     let err = errors(&kernel(&keep, &keep));
    ///     assert!(err.iter().zip(bounds.values()).all(|(e, v)| e <= v));
    /// }
    /// // The bound uses the exactness of subnormal additions: a format that flushes is refused.
    /// let flush = Operands { format: Format::FP64.without_subnormals(), ..ops };
    /// assert!(Prepared::new(&flush).is_err());
    /// ```
    pub fn new(ops: &Operands<'a>) -> Result<Prepared<'a>> {
        require(
            ops.format.has_subnormals(),
            &RIGOROUS,
            "the arithmetic format has gradual underflow",
            || format!("{} flushes subnormals", ops.format),
        )?;
        let (m, k, n) = ops.dims();
        let g_a_rb = Products::of(ops.aq.ints(), ops.rbq.ints(), m, k, n);
        let g_ra_b = Products::of(ops.raq.ints(), ops.bq.ints(), m, k, n);
        let g_ra_rb = abs_gemm(ops.raq.ints(), ops.rbq.ints(), m, k, n);
        Ok(Prepared {
            gaps_a: gaps(&ops.a, &ops.aq, &ops.raq, true),
            gaps_b: gaps(&ops.b, &ops.bq, &ops.rbq, false),
            p0: exact_gemm(ops.aq.ints(), ops.bq.ints(), m, k, n),
            abs_a: line_abs(&ops.aq, true),
            abs_b: line_abs(&ops.bq, false),
            abs_ra: line_abs(&ops.raq, true),
            abs_rb: line_abs(&ops.rbq, false),
            inv: [
                inverse_scales(&ops.aq, true),
                inverse_scales(&ops.bq, false),
                inverse_scales(&ops.raq, true),
                inverse_scales(&ops.rbq, false),
            ],
            g_a_rb,
            g_ra_b,
            g_ra_rb,
            ops: *ops,
        })
    }

    /// The rigorous per-element bound on `|D - A B|` (inputs as given) for the
    /// output `D` computed with the entries `keep_a` of `A` (`m x k`, row-major)
    /// and `keep_b` of `B` (`k x n`) in the compensation products (module docs).
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`] for masks of the wrong size. An
    /// element where an intermediate of the dequantize-and-add could overflow
    /// the format, or whose bound overflows binary64, is `+inf` in a partial
    /// [`ElementBounds`] ([`ElementBounds::partial`]), not an error.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::residual::{int_gemm_i64, Operands, QuantizedView, ScaleAxis};
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle::{dot, Matrix};
    /// // C = A B, A 2 x 3, B 3 x 2, int8 with one scale per tensor (lambda = 127 / max).
    /// let (m, k, n) = (2, 3, 2);
    /// let a = [0.3, -1.2, 0.05, 0.9, 0.11, -0.7];
    /// let b = [0.7, 0.1, -0.4, 2.0, 1.3, -0.25];
    /// let quantize = |v: &[f64]| {
    ///     let l = 127.0 / v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    ///     let q: Vec<i8> = v.iter().map(|x| (x * l).round() as i8).collect();
    ///     let r: Vec<f64> = v.iter().zip(&q).map(|(x, &i)| x - f64::from(i) / l).collect();
    ///     ([l], q, r)
    /// };
    /// let (la, aq, ra) = quantize(&a);
    /// let (lra, raq, _) = quantize(&ra);
    /// let (lb, bq, rb) = quantize(&b);
    /// let (lrb, rbq, _) = quantize(&rb);
    /// fn view<'a>(r: usize, c: usize, q: &'a [i8], l: &'a [f64]) -> QuantizedView<'a> {
    ///     QuantizedView::new(r, c, q, l, ScaleAxis::Tensor).unwrap()
    /// }
    /// let ops = Operands::new(
    ///     Matrix::new(m, k, &a).unwrap(), Matrix::new(k, n, &b).unwrap(),
    ///     view(m, k, &aq, &la), view(k, n, &bq, &lb), view(m, k, &raq, &lra), view(k, n, &rbq, &lrb),
    ///     Format::FP64,
    /// ).unwrap();
    /// // Algorithm 1 in binary64 with masks KA, KB: P0 = Aq Bq, P1 = (KA o Aq) RBq,
    /// // P2 = RAq (KB o Bq), each divided by the larger scale first, then added.
    /// let kernel = |keep_a: &[bool], keep_b: &[bool]| -> Vec<f64> {
    ///     let masked = |q: &[i8], keep: &[bool]| -> Vec<i8> {
    ///         q.iter().zip(keep).map(|(&v, &kept)| if kept { v } else { 0 }).collect()
    ///     };
    ///     let p = |x: &[i8], y: &[i8]| int_gemm_i64(x, y, m, k, n).unwrap();
    ///     let (p0, p1, p2) = (p(&aq, &bq), p(&masked(&aq, keep_a), &rbq), p(&raq, &masked(&bq, keep_b)));
    ///     let deq = |p: i64, s: f64, t: f64| p as f64 / s.max(t) / s.min(t);
    ///     (0..m * n)
    ///         .map(|e| deq(p0[e], la[0], lb[0]) + deq(p1[e], la[0], lrb[0]) + deq(p2[e], lra[0], lb[0]))
    ///         .collect()
    /// };
    /// // |D - A B| against the exact A B (oracle), element by element.
    /// let errors = |d: &[f64]| -> Vec<f64> {
    ///     (0..m * n)
    ///         .map(|e| {
    ///             let (i, j) = (e / n, e % n);
    ///             let col: Vec<f64> = (0..k).map(|kk| b[kk * n + j]).collect();
    ///             dot(&a[i * k..(i + 1) * k], &col).unwrap().error_of(d[e]).absolute_up().unwrap()
    ///         })
    ///         .collect()
    /// };
    /// use boundgate_verify::bounds::residual::Prepared;
    /// // Compensate only the entries of magnitude at least 0.5 (a threshold as in Gu §3.1).
    /// let keep_a: Vec<bool> = a.iter().map(|v| v.abs() >= 0.5).collect();
    /// let keep_b: Vec<bool> = b.iter().map(|v| v.abs() >= 0.5).collect();
    /// let bounds = Prepared::new(&ops).unwrap().rigorous(&keep_a, &keep_b).unwrap();
    /// let err = errors(&kernel(&keep_a, &keep_b));
    /// for e in 0..m * n {
    ///     assert!(err[e] <= bounds.values()[e], "{e}: {:e} > {:e}", err[e], bounds.values()[e]);
    /// }
    /// assert!(Prepared::new(&ops).unwrap().rigorous(&keep_a[..5], &keep_b).is_err()); // mask size
    /// ```
    pub fn rigorous(&self, keep_a: &[bool], keep_b: &[bool]) -> Result<ElementBounds> {
        self.evaluate(keep_a, keep_b, false)
    }

    /// [`Prepared::rigorous`] with the residual-quantization and
    /// residual-x-residual terms taken entry by entry for every element
    /// (`sum_k (|A^_ik| bB_kj + bA_ik |B^_kj|)` and `sum_k eA_ik eB_kj`),
    /// which in real arithmetic are never above the per-line forms: as tight
    /// or tighter, at `O(m n k)` directed operations instead of `O(m n)`.
    /// [`Prepared::rigorous`] takes them only for the elements whose per-line
    /// form overflows binary64.
    ///
    /// # Errors
    /// As [`Prepared::rigorous`].
    ///
    /// # Example
    /// ```
    /// # use boundgate_verify::bounds::residual::{int_gemm_i64, Operands, QuantizedView, ScaleAxis};
    /// # use boundgate_verify::format::Format;
    /// # use boundgate_verify::oracle::{dot, Matrix};
    /// # // C = A B, A 2 x 3, B 3 x 2, int8 with one scale per tensor (lambda = 127 / max).
    /// # let (m, k, n) = (2, 3, 2);
    /// # let a = [0.3, -1.2, 0.05, 0.9, 0.11, -0.7];
    /// # let b = [0.7, 0.1, -0.4, 2.0, 1.3, -0.25];
    /// # let quantize = |v: &[f64]| {
    /// #     let l = 127.0 / v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
    /// #     let q: Vec<i8> = v.iter().map(|x| (x * l).round() as i8).collect();
    /// #     let r: Vec<f64> = v.iter().zip(&q).map(|(x, &i)| x - f64::from(i) / l).collect();
    /// #     ([l], q, r)
    /// # };
    /// # let (la, aq, ra) = quantize(&a);
    /// # let (lra, raq, _) = quantize(&ra);
    /// # let (lb, bq, rb) = quantize(&b);
    /// # let (lrb, rbq, _) = quantize(&rb);
    /// # fn view<'a>(r: usize, c: usize, q: &'a [i8], l: &'a [f64]) -> QuantizedView<'a> {
    /// #     QuantizedView::new(r, c, q, l, ScaleAxis::Tensor).unwrap()
    /// # }
    /// # let ops = Operands::new(
    /// #     Matrix::new(m, k, &a).unwrap(), Matrix::new(k, n, &b).unwrap(),
    /// #     view(m, k, &aq, &la), view(k, n, &bq, &lb), view(m, k, &raq, &lra), view(k, n, &rbq, &lrb),
    /// #     Format::FP64,
    /// # ).unwrap();
    /// # // Algorithm 1 in binary64 with masks KA, KB: P0 = Aq Bq, P1 = (KA o Aq) RBq,
    /// # // P2 = RAq (KB o Bq), each divided by the larger scale first, then added.
    /// # let kernel = |keep_a: &[bool], keep_b: &[bool]| -> Vec<f64> {
    /// #     let masked = |q: &[i8], keep: &[bool]| -> Vec<i8> {
    /// #         q.iter().zip(keep).map(|(&v, &kept)| if kept { v } else { 0 }).collect()
    /// #     };
    /// #     let p = |x: &[i8], y: &[i8]| int_gemm_i64(x, y, m, k, n).unwrap();
    /// #     let (p0, p1, p2) = (p(&aq, &bq), p(&masked(&aq, keep_a), &rbq), p(&raq, &masked(&bq, keep_b)));
    /// #     let deq = |p: i64, s: f64, t: f64| p as f64 / s.max(t) / s.min(t);
    /// #     (0..m * n)
    /// #         .map(|e| deq(p0[e], la[0], lb[0]) + deq(p1[e], la[0], lrb[0]) + deq(p2[e], lra[0], lb[0]))
    /// #         .collect()
    /// # };
    /// # // |D - A B| against the exact A B (oracle), element by element.
    /// # let errors = |d: &[f64]| -> Vec<f64> {
    /// #     (0..m * n)
    /// #         .map(|e| {
    /// #             let (i, j) = (e / n, e % n);
    /// #             let col: Vec<f64> = (0..k).map(|kk| b[kk * n + j]).collect();
    /// #             dot(&a[i * k..(i + 1) * k], &col).unwrap().error_of(d[e]).absolute_up().unwrap()
    /// #         })
    /// #         .collect()
    /// # };
    /// use boundgate_verify::bounds::residual::Prepared;
    /// // (Setup as in `rigorous`: a 2 x 3 by 3 x 2 int8 GEMM with residuals; `kernel`
    /// // runs Algorithm 1, `errors` measures against the exact product.)
    /// let prepared = Prepared::new(&ops).unwrap();
    /// for keep in [[true; 6], [false; 6]] {
    ///     let bounds = prepared.rigorous_entrywise(&keep, &keep).unwrap();
    ///     let err = errors(&kernel(&keep, &keep));
    ///     assert!(err.iter().zip(bounds.values()).all(|(e, v)| e <= v));
    /// }
    /// ```
    pub fn rigorous_entrywise(&self, keep_a: &[bool], keep_b: &[bool]) -> Result<ElementBounds> {
        self.evaluate(keep_a, keep_b, true)
    }

    fn evaluate(&self, keep_a: &[bool], keep_b: &[bool], entrywise: bool) -> Result<ElementBounds> {
        let ops = &self.ops;
        let (m, k, n) = ops.dims();
        require_same_len("keep_a and m * k", keep_a.len(), m * k)?;
        require_same_len("keep_b and k * n", keep_b.len(), k * n)?;
        let kept_a = keep_a.iter().filter(|&&x| x).count();
        let kept_b = keep_b.iter().filter(|&&x| x).count();
        // Kept and dropped parts of Aq RBq (P1 is the kept one) and RAq Bq
        // (P2): visit the smaller set, subtract from the full products (exact
        // integers).
        let small_a = kept_a <= m * k / 2;
        let visited_a = masked_gemms(
            ops.aq.ints(),
            ops.rbq.ints(),
            (m, k, n),
            keep_a,
            true,
            small_a,
        );
        let (p1, dropped_a) = self.g_a_rb.split(visited_a, small_a);
        let small_b = kept_b <= k * n / 2;
        let visited_b = masked_gemms(
            ops.raq.ints(),
            ops.bq.ints(),
            (m, k, n),
            keep_b,
            false,
            small_b,
        );
        let (p2, dropped_b) = self.g_ra_b.split(visited_b, small_b);
        let (d1, d2) = (&dropped_a.abs, &dropped_b.abs);

        let f = ops.format;
        let u = f.unit_roundoff(RoundingMode::NearestEven);
        let eta = f.underflow_abs_error(RoundingMode::NearestEven);
        let gamma3 = gamma_value(3, u)?;
        let one_u = add_up(1.0, u);
        let [ia, ib, ira, irb] = &self.inv;
        let (sum_a, sum_b) = (&self.abs_a, &self.abs_b);
        let kf = up(k as i64);
        let mut values = Vec::with_capacity(m * n);
        let mut largest: f64 = 0.0;
        // The first element whose intermediates may overflow the format, and
        // the first whose bound overflows binary64: those elements have no
        // bound (+inf in a partial ElementBounds), the others are judged.
        let (mut kernel_overflow, mut bound_overflow) = (None, None);
        for i in 0..m {
            let (ba, ea) = (self.gaps_a.after_residual[i], self.gaps_a.total[i]);
            for j in 0..n {
                let at = i * n + j;
                let (bb, eb) = (self.gaps_b.after_residual[j], self.gaps_b.total[j]);
                // Every term is a product of three factors, two of them may
                // be reciprocals of tiny scales (entries near the top of the
                // format give 1/lambda near 1e306 in binary64) beside a small
                // or zero integer sum: multiplied left to right, two such
                // reciprocals overflow to +inf, and inf * 0 is NaN.
                // product3_up multiplies smallest times largest first and
                // gives 0 for a zero factor.
                let scale2 = |x: f64, y: f64, s: i64| product3_up(x, y, up(s));
                // Entries left out of the compensation.
                let dropped = add_up(scale2(ia[i], irb[j], d1[at]), scale2(ira[i], ib[j], d2[at]));
                // The quantized residuals miss qA, qB.
                let quant = add_up(
                    product3_up(ia[i], up(sum_a[i]), bb),
                    product3_up(ba, ib[j], up(sum_b[j])),
                );
                // EA EB, two ways.
                let expanded = add_up(
                    add_up(
                        scale2(ira[i], irb[j], self.g_ra_rb[at]),
                        product3_up(ira[i], up(self.abs_ra[i]), bb),
                    ),
                    add_up(
                        product3_up(ba, irb[j], up(self.abs_rb[j])),
                        product3_up(kf, ba, bb),
                    ),
                );
                let crude = product3_up(kf, ea, eb);
                let second = expanded.min(crude);
                // The three exact integer products' magnitudes.
                let p_abs = [self.p0[at].abs(), p1.signed[at].abs(), p2.signed[at].abs()];
                // Divided by the larger scale first (the smaller upward
                // inverse: div_up(1, .) is monotone, and equal scales give
                // equal inverses), then by the other.
                let inverses = [(ia[i], ib[j]), (ia[i], irb[j]), (ira[i], ib[j])];
                let p_signed = [self.p0[at], p1.signed[at], p2.signed[at]];
                let row_scale = |q: &QuantizedView<'_>| q.scale(i, 0);
                let col_scale = |q: &QuantizedView<'_>| q.scale(0, j);
                let scales = [
                    (row_scale(&ops.aq), col_scale(&ops.bq)),
                    (row_scale(&ops.aq), col_scale(&ops.rbq)),
                    (row_scale(&ops.raq), col_scale(&ops.bq)),
                ];
                let mut enclosures = [(0.0, 0.0); 3];
                let mut x = [0.0; 3];
                let mut rounding = 0.0;
                for t in 0..3 {
                    if p_abs[t] == 0 {
                        continue; // P_t = 0: y_t = 0 exactly
                    }
                    let (row_inv, col_inv) = inverses[t];
                    let (hi_inv, lo_inv) = (row_inv.min(col_inv), row_inv.max(col_inv));
                    x[t] = product3_up(up(p_abs[t]), hi_inv, lo_inv);
                    let e = add_up(
                        mul_up(gamma3, x[t]),
                        add_up(mul_up(mul_up(eta, one_u), lo_inv), eta),
                    );
                    rounding = add_up(rounding, e);
                    enclosures[t] = signed_enclosure(p_signed[t], scales[t], x[t], e);
                }
                // The two additions, with the signs of the P_t: a sum whose
                // terms cancel neither reaches nor rounds like the sum of
                // their magnitudes, which flagged exact outputs near the top
                // of the format as possible overflows (review, 2026-11-26).
                let [m1, m2] = sum_reaches(enclosures, x[1] != 0.0, u);
                if x[1] != 0.0 {
                    rounding = add_up(rounding, mul_up(u, m1));
                }
                if x[2] != 0.0 {
                    rounding = add_up(rounding, mul_up(u, m2));
                }
                let mut value = add_up(add_up(dropped, quant), add_up(second, rounding));
                if entrywise || !value.is_finite() {
                    // The same terms entry by entry (O(k) for this element;
                    // by default only where the per-line maxima overflowed).
                    let (quant, second) = self.per_entry_terms(i, j);
                    value = add_up(add_up(dropped, quant), add_up(second, rounding));
                }
                // Whether an intermediate can overflow the format: every
                // operation on enclosures, each term alone and the sums with
                // their signs (a sum whose terms cancel neither reaches nor
                // rounds like the sum of their magnitudes, which flagged exact
                // outputs near the top of the format; review, 2026-11-26).
                match dequantize_reach(&f, p_signed, scales) {
                    None => {
                        kernel_overflow.get_or_insert(at);
                        value = f64::INFINITY;
                    }
                    // A term can overflow binary64 although no intermediate
                    // of the kernel does (a reciprocal scale near 1e306 times
                    // a large integer sum): an infinite value would pass every
                    // error; it is no bound.
                    Some(_) if !value.is_finite() => {
                        bound_overflow.get_or_insert(at);
                        value = f64::INFINITY;
                    }
                    Some(reach) => largest = largest.max(reach),
                }
                values.push(value);
            }
        }
        // (hypothesis, detail) of each kind of element without a bound.
        let mut unbounded: Vec<(&str, String)> = Vec::new();
        if let Some(at) = kernel_overflow {
            unbounded.push((
                "no overflow in the dequantize-and-add",
                format!(
                    "an intermediate of element ({}, {}) may round beyond {:e} ({f})",
                    at / n,
                    at % n,
                    f.max_finite()
                ),
            ));
        }
        if let Some(at) = bound_overflow {
            unbounded.push((
                "the bound is finite in binary64",
                format!(
                    "at element ({}, {}) a term overflows binary64 (a reciprocal scale times an \
                     integer sum, or an entry's gap)",
                    at / n,
                    at % n
                ),
            ));
        }
        if !unbounded.is_empty() && values.iter().all(|v| *v == f64::INFINITY) {
            // No element has a bound: the output's hypothesis fails.
            let (hypothesis, detail) = unbounded.swap_remove(0);
            return Err(VerifyError::HypothesisNotMet {
                source_ref: RIGOROUS.to_string(),
                hypothesis: hypothesis.into(),
                detail,
            });
        }
        let bound = Bound::deterministic(0.0, Quantity::AbsoluteError, RIGOROUS, Rigor::Rigorous)
            .with_hypothesis(
                "exact integer products (int32 accumulation checked by the kernel)",
                format!("k = {k}"),
            )
            .with_hypothesis(
                "fl(z) = z(1 + d) + e in the dequantization, exact subnormal additions",
                format!(
                    "{f}, round to nearest even, u = 2^{}, eta = {eta:e}",
                    u.log2()
                ),
            )
            .with_hypothesis(
                "no overflow",
                format!("intermediates <= {largest:e} <= {:e}", f.max_finite()),
            )
            .with_hypothesis(
                "compensation masks",
                format!(
                    "{kept_a} of {} entries of A kept, {kept_b} of {} of B",
                    m * k,
                    k * n
                ),
            );
        if unbounded.is_empty() {
            ElementBounds::new(bound, values)
        } else {
            let reasons: Vec<String> = unbounded
                .iter()
                .map(|(hypothesis, detail)| format!("{hypothesis} ({detail})"))
                .collect();
            ElementBounds::partial(bound, values, format!("{RIGOROUS}: {}", reasons.join("; ")))
        }
    }
}

impl Prepared<'_> {
    /// The residual-quantization and residual-x-residual terms of element
    /// `(i, j)` with the gaps taken entry by entry:
    /// `sum_k (|A^_ik| bB_kj + bA_ik |B^_kj|)` and `sum_k eA_ik eB_kj`, each
    /// entry's gap enclosed as in [`gaps`]. The per-line forms pair a row's
    /// sum with the column's largest gap, which these are never above; they
    /// cost `O(k)` per element, so they are taken only where the per-line
    /// forms overflow binary64 (one entry near `f64::MAX` beside a tiny one:
    /// `A = [[1e308, 1e-308]]`, `B = [[1e-308], [1e308]]` gave "no bound"
    /// until 2026-11-26).
    fn per_entry_terms(&self, i: usize, j: usize) -> (f64, f64) {
        let ops = &self.ops;
        let (_, k, n) = ops.dims();
        let (mut quant, mut second) = (0.0, 0.0);
        for kk in 0..k {
            let (total_a, after_a) = entry_gaps(&ops.a, &ops.aq, &ops.raq, i, kk);
            let (total_b, after_b) = entry_gaps(&ops.b, &ops.bq, &ops.rbq, kk, j);
            let a_hat = div_up(
                f64::from(ops.aq.ints()[i * k + kk].unsigned_abs()),
                ops.aq.scale(i, kk),
            );
            let b_hat = div_up(
                f64::from(ops.bq.ints()[kk * n + j].unsigned_abs()),
                ops.bq.scale(kk, j),
            );
            quant = add_up(
                quant,
                add_up(
                    product3_up(a_hat, after_b, 1.0),
                    product3_up(after_a, b_hat, 1.0),
                ),
            );
            second = add_up(second, product3_up(total_a, total_b, 1.0));
        }
        (quant, second)
    }
}

/// The rigorous per-element bound on `|D - A B|` for a residual-compensated
/// GEMM (module docs): [`Prepared::new`] then [`Prepared::rigorous`].
///
/// # Errors
/// As [`Prepared::new`] and [`Prepared::rigorous`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::{int_gemm_i64, Operands, QuantizedView, ScaleAxis};
/// use boundgate_verify::format::Format;
/// use boundgate_verify::oracle::{dot, Matrix};
/// // C = A B, A 2 x 3, B 3 x 2, int8 with one scale per tensor (lambda = 127 / max).
/// let (m, k, n) = (2, 3, 2);
/// let a = [0.3, -1.2, 0.05, 0.9, 0.11, -0.7];
/// let b = [0.7, 0.1, -0.4, 2.0, 1.3, -0.25];
/// let quantize = |v: &[f64]| {
///     let l = 127.0 / v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
///     let q: Vec<i8> = v.iter().map(|x| (x * l).round() as i8).collect();
///     let r: Vec<f64> = v.iter().zip(&q).map(|(x, &i)| x - f64::from(i) / l).collect();
///     ([l], q, r)
/// };
/// let (la, aq, ra) = quantize(&a);
/// let (lra, raq, _) = quantize(&ra);
/// let (lb, bq, rb) = quantize(&b);
/// let (lrb, rbq, _) = quantize(&rb);
/// fn view<'a>(r: usize, c: usize, q: &'a [i8], l: &'a [f64]) -> QuantizedView<'a> {
///     QuantizedView::new(r, c, q, l, ScaleAxis::Tensor).unwrap()
/// }
/// let ops = Operands::new(
///     Matrix::new(m, k, &a).unwrap(), Matrix::new(k, n, &b).unwrap(),
///     view(m, k, &aq, &la), view(k, n, &bq, &lb), view(m, k, &raq, &lra), view(k, n, &rbq, &lrb),
///     Format::FP64,
/// ).unwrap();
/// // Algorithm 1 in binary64 with masks KA, KB: P0 = Aq Bq, P1 = (KA o Aq) RBq,
/// // P2 = RAq (KB o Bq), each divided by the larger scale first, then added.
/// let kernel = |keep_a: &[bool], keep_b: &[bool]| -> Vec<f64> {
///     let masked = |q: &[i8], keep: &[bool]| -> Vec<i8> {
///         q.iter().zip(keep).map(|(&v, &kept)| if kept { v } else { 0 }).collect()
///     };
///     let p = |x: &[i8], y: &[i8]| int_gemm_i64(x, y, m, k, n).unwrap();
///     let (p0, p1, p2) = (p(&aq, &bq), p(&masked(&aq, keep_a), &rbq), p(&raq, &masked(&bq, keep_b)));
///     let deq = |p: i64, s: f64, t: f64| p as f64 / s.max(t) / s.min(t);
///     (0..m * n)
///         .map(|e| deq(p0[e], la[0], lb[0]) + deq(p1[e], la[0], lrb[0]) + deq(p2[e], lra[0], lb[0]))
///         .collect()
/// };
/// // |D - A B| against the exact A B (oracle), element by element.
/// let errors = |d: &[f64]| -> Vec<f64> {
///     (0..m * n)
///         .map(|e| {
///             let (i, j) = (e / n, e % n);
///             let col: Vec<f64> = (0..k).map(|kk| b[kk * n + j]).collect();
///             dot(&a[i * k..(i + 1) * k], &col).unwrap().error_of(d[e]).absolute_up().unwrap()
///         })
///         .collect()
/// };
/// use boundgate_verify::bounds::residual::rigorous;
/// // Full residual (every entry kept) and direct quantization (none kept).
/// let full = rigorous(&ops, &[true; 6], &[true; 6]).unwrap();
/// let direct = rigorous(&ops, &[false; 6], &[false; 6]).unwrap();
/// let (err_full, err_direct) = (errors(&kernel(&[true; 6], &[true; 6])), errors(&kernel(&[false; 6], &[false; 6])));
/// for e in 0..m * n {
///     assert!(err_full[e] <= full.values()[e]);
///     assert!(err_direct[e] <= direct.values()[e]);
///     // The compensation pays: its bound is below the direct one.
///     assert!(full.values()[e] < direct.values()[e]);
/// }
/// ```
pub fn rigorous(ops: &Operands<'_>, keep_a: &[bool], keep_b: &[bool]) -> Result<ElementBounds> {
    Prepared::new(ops)?.rigorous(keep_a, keep_b)
}

/// Gu eq. (8) with eq. (12), as printed but with magnitudes (module docs): per
/// element `(1/la_i) sum_k (1 - KB_kj)|b_kj| + (1/lb_j) sum_k (1 - KA_ik)|a_ik|`,
/// the first-order error of the entries the method leaves uncompensated.
/// Published, first order: it omits `RA RB` and the residual quantization.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for masks of the wrong size.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::{eq8_first_order, Operands, QuantizedView, ScaleAxis};
/// use boundgate_verify::format::Format;
/// use boundgate_verify::oracle::Matrix;
/// let (a, b) = ([0.5], [2.0]);
/// let q = QuantizedView::new(1, 1, &[1], &[2.0], ScaleAxis::Tensor).unwrap();
/// let qb = QuantizedView::new(1, 1, &[2], &[1.0], ScaleAxis::Tensor).unwrap();
/// let z = QuantizedView::new(1, 1, &[0], &[1.0], ScaleAxis::Tensor).unwrap();
/// let ops = Operands::new(Matrix::new(1, 1, &a).unwrap(), Matrix::new(1, 1, &b).unwrap(),
///                         q, qb, z, z, Format::FP32).unwrap();
/// // Nothing compensated: (1/2) * 2 + (1/1) * 0.5 = 1.5.
/// assert_eq!(eq8_first_order(&ops, &[false], &[false]).unwrap().values(), &[1.5]);
/// // Everything compensated: first order says 0.
/// assert_eq!(eq8_first_order(&ops, &[true], &[true]).unwrap().values(), &[0.0]);
/// ```
pub fn eq8_first_order(
    ops: &Operands<'_>,
    keep_a: &[bool],
    keep_b: &[bool],
) -> Result<ElementBounds> {
    let (m, k, n) = ops.dims();
    require_same_len("keep_a and m * k", keep_a.len(), m * k)?;
    require_same_len("keep_b and k * n", keep_b.len(), k * n)?;
    let mut dropped_a = vec![0.0f64; m];
    for i in 0..m {
        for kk in 0..k {
            if !keep_a[i * k + kk] {
                dropped_a[i] = add_up(dropped_a[i], ops.a.get(i, kk).abs());
            }
        }
    }
    let mut dropped_b = vec![0.0f64; n];
    for kk in 0..k {
        for j in 0..n {
            if !keep_b[kk * n + j] {
                dropped_b[j] = add_up(dropped_b[j], ops.b.get(kk, j).abs());
            }
        }
    }
    let ia = inverse_scales(&ops.aq, true);
    let ib = inverse_scales(&ops.bq, false);
    let mut values = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            values.push(add_up(
                mul_up(ia[i], dropped_b[j]),
                mul_up(ib[j], dropped_a[i]),
            ));
        }
    }
    let bound = Bound::deterministic(0.0, Quantity::AbsoluteError, GU_EQ8, Rigor::Published)
        .with_hypothesis(
            "|ra_ik| <= 1/lambda_a, |rb_kj| <= 1/lambda_b (eq. (12))",
            "assumed by the source, not checked",
        )
        .with_hypothesis(
            "first order: RA RB and the residual quantization omitted",
            "as printed",
        );
    ElementBounds::new(bound, values)
}

/// Gu's threshold claim (§3.1, §5.2): the compensated result has relative error
/// at most `2 M` for threshold `M`, i.e. `|d_ij - c_ij| <= 2 M |c_ij|`, given the
/// exact `c` (rounded to `f64`; each `|c_ij|` is stepped one ulp up so that the
/// bound is not below `2 M |c_ij|`). The paper itself says it can fail "in the
/// presence of some singular values" (§5.2); for `c_ij = 0` it allows no error.
///
/// # Errors
/// [`VerifyError::InvalidParameter`] for a threshold that is not finite and
/// positive; [`VerifyError::NonFinite`] for a non-finite `c`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::residual::threshold_claim;
/// let b = threshold_claim(0.5, &[2.0, -4.0]).unwrap();
/// assert!(b.values()[0] >= 2.0 && b.values()[1] >= 4.0);
/// assert!(threshold_claim(0.0, &[1.0]).is_err());
/// ```
pub fn threshold_claim(threshold: f64, exact: &[f64]) -> Result<ElementBounds> {
    if !(threshold.is_finite() && threshold > 0.0) {
        return Err(VerifyError::invalid(
            "threshold",
            threshold,
            "must be finite and positive",
        ));
    }
    require_finite("c", exact)?;
    let two_m = mul_up(2.0, threshold);
    let values = exact
        .iter()
        .map(|c| {
            let c = c.abs();
            mul_up(two_m, if c == 0.0 { 0.0 } else { c.next_up() })
        })
        .collect();
    let bound = Bound::deterministic(0.0, Quantity::AbsoluteError, GU_THRESHOLD, Rigor::Published)
        .with_hypothesis(
            "relative error of the compensated result at most 2M",
            format!("M = {threshold}: bound 2M |c_ij| per element"),
        );
    ElementBounds::new(bound, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_encloses_the_exact_difference() {
        // 0.1 - 13/127: exact rational difference computed with MPFR.
        let g = gap_up(0.1, &[(13, 127.0)]);
        let mut q = rug::Float::with_val(200, 13);
        q /= 127;
        let exact: rug::Float = rug::Float::with_val(200, 0.1) - q;
        assert!(rug::Float::with_val(200, g) >= exact.clone().abs());
        // ... and tightly: |0.1 - 13/127| = 2.362e-3 with two directed
        // roundings of magnitude ~0.1 (ulp 2^-56), so within 2 ulps of 0.1.
        let slack = exact.clone().abs() + 2f64.powi(-55);
        assert!(rug::Float::with_val(200, g) <= slack, "{g:e} vs {exact}");
    }

    #[test]
    fn up_never_rounds_down() {
        let big = (1i64 << 60) + 1;
        assert!(up(big) >= big as f64);
        assert!(rug::Float::with_val(64, up(big)) >= big);
        assert_eq!(up(12), 12.0);
    }

    #[test]
    fn abs_gemm_agrees_in_both_accumulators() {
        let x: Vec<i8> = (0..12).map(|v| (v * 37 % 255 - 127) as i8).collect();
        let y: Vec<i8> = (0..12).map(|v| (v * 91 % 255 - 127) as i8).collect();
        let exact = abs_gemm(&x, &y, 3, 4, 3);
        let xa: Vec<i8> = x.iter().map(|v| v.saturating_abs()).collect();
        let ya: Vec<i8> = y.iter().map(|v| v.saturating_abs()).collect();
        assert_eq!(exact, int_gemm_i64(&xa, &ya, 3, 4, 3).unwrap());
    }

    #[test]
    fn exact_gemm_agrees_with_the_i64_oracle_on_both_paths() {
        // k = 4 takes the i32 accumulator; k = 2^17 + 1 (k 128^2 > 2^31 - 1)
        // the i64 one, and there column 0 (x and y all -128) sums to
        // 2^31 + 2^14, past i32::MAX.
        for (m, k, n, every) in [(3, 4, 3, 3), (1, (1 << 17) + 1, 2, 1)] {
            let x: Vec<i8> = (0..m * k)
                .map(|v| {
                    if v % every == 0 {
                        -128
                    } else {
                        (v * 37 % 255) as u8 as i8
                    }
                })
                .collect();
            let y: Vec<i8> = (0..k * n)
                .map(|v| {
                    if v % 2 == 0 {
                        -128
                    } else {
                        (v * 91 % 255) as u8 as i8
                    }
                })
                .collect();
            let want = int_gemm_i64(&x, &y, m, k, n).unwrap();
            assert_eq!(exact_gemm(&x, &y, m, k, n), want, "{m}x{k}x{n}");
            if k > 4 {
                assert_eq!(want[0], (1i64 << 31) + (1 << 14));
            }
        }
    }
}
