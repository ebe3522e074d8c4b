//! Gu's worked 3x3 example (§3.1 B, Table 2), reproduced three ways.
//!
//! The paper prints 4-digit inputs, the scales `lambda_A = 40.5027`,
//! `lambda_B = 16.2916` (= 64 / max: `max_A = 1.58014`, `max_B = 3.9284`, so
//! the scale numerator is 64 = `2^(N-2)`, not eq. (2)'s 255 nor §2.3's 127),
//! the integers (which match truncation toward zero, not eq. (9)'s floor:
//! `-0.1588 * 40.5 = -6.43 -> -6`), `C_quant`, the reduced `A^r`, `B^r` (which
//! match a signed comparison with `M` in `(0.2414, 0.3539)`), `C'_quant`, and
//! Table 2: `E_r` 0.144 / 0.799 and `E_delta` 0.011 / 0.035 (compensated /
//! direct). [`worked_example`] gives:
//!
//! 1. **model**: our Algorithm 1 on the printed 4-digit inputs (fp32, per
//!    tensor, `Half` scale, truncation, signed reduction, `M = 0.3`, always
//!    sparse). It reproduces `A_int` exactly and `B_int` except `B_00`: 64 here,
//!    63 in the paper (`16.2916 * 3.9284 = 63.9999...` truncates to 63 with the
//!    printed 4-digit scale; in fp32 `fl(fl(64 / 3.9284) * 3.9284) = 64`). Its
//!    masks are the paper's `A^r`, `B^r` exactly.
//! 2. **printed integers**: the same pipeline started from the printed
//!    `A_int`, `B_int` and scales: direct `E_delta` = 0.0357 (Table 2: 0.035).
//! 3. **printed matrices**: `E_delta` of the printed `C_quant` and `C'_quant`
//!    against the exact product of the printed inputs: 0.0357 and 0.0111, which
//!    is Table 2's `E_delta` column. Its `E_r` column (0.799, 0.144) does not
//!    follow from these matrices (0.138, 0.0430).

use super::method::{Method, Prepared, Reduction, relative_frobenius};
use super::quant::{Bits, Granularity, QuantizedMatrix, Quantizer, Rounding, ScaleRule, Working};
use super::reduce::ReduceRule;
use crate::error::Result;
use boundgate_verify::bounds::residual::ScaleAxis;
use boundgate_verify::oracle::{Matrix, gemm};
use serde::Serialize;

/// The printed `A` (§3.1 B).
pub const A: [f64; 9] = [
    0.2735, -0.1588, 0.1218, 0.0953, 1.5801, -0.4861, -0.2394, 0.1602, 0.4294,
];
/// The printed `B`.
pub const B: [f64; 9] = [
    3.9284, -0.0195, -0.3836, -0.3288, 2.2353, -0.1895, -0.1376, 0.0545, -0.3641,
];
/// The printed `A_int8`.
pub const A_INT: [i8; 9] = [11, -6, 4, 3, 64, -19, -9, 6, 17];
/// The printed `B_int8`.
pub const B_INT: [i8; 9] = [63, 0, -6, -5, 36, -3, -2, 0, -5];
/// The printed scales `lambda_A`, `lambda_B`.
pub const LAMBDAS: (f64, f64) = (40.5027, 16.2916);
/// The printed `C_quant` (direct quantization).
pub const C_QUANT: [f64; 9] = [
    1.0836, -0.3273, -0.1031, -0.1409, 3.4917, -0.1743, -0.9563, 0.3273, -0.0743,
];
/// The printed `C'_quant` (after the residual correction).
pub const C_COMPENSATED: [f64; 9] = [
    1.1077, -0.3573, -0.1070, -0.0878, 3.5311, -0.1819, -1.0356, 0.3817, -0.0987,
];
/// The printed reduced `A^r` pattern.
pub const A_KEPT: [bool; 9] = [true, false, false, false, true, false, false, true, true];
/// The printed reduced `B^r` pattern.
pub const B_KEPT: [bool; 9] = [true, false, false, false, true, false, false, false, false];
/// Table 2: `(E_r, E_delta)` of the residual improvement and of direct quantization.
pub const TABLE_2: [(f64, f64); 2] = [(0.144, 0.011), (0.799, 0.035)];

/// The example's configuration: int8, per tensor, 64 / max, truncation.
pub const QUANTIZER: Quantizer = Quantizer {
    bits: Bits::Int8,
    scale: ScaleRule::Half,
    rounding: Rounding::TowardZero,
    working: Working::Fp32,
};

/// The example's reduction: signed comparison, `M = 0.3`, always sparse.
pub const REDUCTION: Reduction = Reduction {
    threshold: 0.3,
    rule: ReduceRule::Signed,
    eta: 1.0,
};

/// One run of the pipeline on the example.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// `lambda_A`, `lambda_B`.
    pub lambdas: (f64, f64),
    /// `A_int`.
    pub a_int: Vec<i8>,
    /// `B_int`.
    pub b_int: Vec<i8>,
    /// `C_quant = D_F`.
    pub c_quant: Vec<f64>,
    /// Row means of `|C_quant|` (the paper's `C_row`).
    pub row_means: Vec<f64>,
    /// Column means (`C_col`).
    pub col_means: Vec<f64>,
    /// `RA_int`, `RB_int` and their scales.
    pub ra_int: Vec<i8>,
    /// `RB_int`.
    pub rb_int: Vec<i8>,
    /// `lambda_RA`, `lambda_RB`.
    pub residual_lambdas: (f64, f64),
    /// Kept entries of `A` and `B`.
    pub kept: (Vec<bool>, Vec<bool>),
    /// `C'_quant`.
    pub c_compensated: Vec<f64>,
    /// `(E_r, E_delta)` of direct quantization.
    pub direct: (f64, f64),
    /// `(E_r, E_delta)` of the compensated result.
    pub compensated: (f64, f64),
    /// `(E_r, E_delta)` of the full residual.
    pub full: (f64, f64),
}

/// All three reproductions (module docs).
#[derive(Clone, Debug, Serialize)]
pub struct WorkedExample {
    /// The exact product of the printed inputs, rounded to `f64`.
    pub exact: Vec<f64>,
    /// Our model on the printed inputs.
    pub model: Run,
    /// Our pipeline from the printed integers and scales.
    pub printed_integers: Run,
    /// `(E_r, E_delta)` of the printed `C_quant`.
    pub printed_c_quant: (f64, f64),
    /// `(E_r, E_delta)` of the printed `C'_quant`.
    pub printed_c_compensated: (f64, f64),
}

fn errors(d: &[f64], exact: &[f64]) -> (f64, f64) {
    let norm = exact.iter().map(|c| c * c).sum::<f64>().sqrt();
    let rel = relative_frobenius(d, exact).expect("the example's product is nonzero");
    (rel * norm, rel)
}

fn run(p: &Prepared, exact: &[f64]) -> Result<Run> {
    let direct = p.direct();
    let sparse = p.run(Method::Sparse, REDUCTION)?;
    let full = p.full()?;
    Ok(Run {
        lambdas: (p.aq.scales[0], p.bq.scales[0]),
        a_int: p.aq.ints.clone(),
        b_int: p.bq.ints.clone(),
        c_quant: p.d_f.clone(),
        row_means: p.row_means.clone(),
        col_means: p.col_means.clone(),
        ra_int: p.raq.ints.clone(),
        rb_int: p.rbq.ints.clone(),
        residual_lambdas: (p.raq.scales[0], p.rbq.scales[0]),
        kept: (sparse.keep_a.clone(), sparse.keep_b.clone()),
        c_compensated: sparse.d.clone(),
        direct: errors(&direct.d, exact),
        compensated: errors(&sparse.d, exact),
        full: errors(&full.d, exact),
    })
}

/// Runs the worked example (module docs).
///
/// # Errors
/// None in practice (the inputs are fixed); the pipeline's errors are passed on.
///
/// # Example
/// ```
/// let ex = boundgate::kernels::residual::example::worked_example().unwrap();
/// assert!((ex.printed_integers.direct.1 - 0.0357).abs() < 5e-5);
/// assert!((ex.printed_c_compensated.1 - 0.0111).abs() < 5e-5);
/// ```
pub fn worked_example() -> Result<WorkedExample> {
    let exact: Vec<f64> = gemm(&Matrix::new(3, 3, &A)?, &Matrix::new(3, 3, &B)?)?
        .iter()
        .map(|s| s.to_f64())
        .collect();
    let model = Prepared::new(&A, &B, 3, 3, 3, QUANTIZER, Granularity::Tensor)?;
    let given = |ints: [i8; 9], lambda: f64| QuantizedMatrix {
        rows: 3,
        cols: 3,
        ints: ints.to_vec(),
        scales: vec![f64::from(lambda as f32)],
        axis: ScaleAxis::Tensor,
        saturated: 0,
    };
    let printed = Prepared::with_quantized(
        &A,
        &B,
        (3, 3, 3),
        QUANTIZER,
        Granularity::Tensor,
        given(A_INT, LAMBDAS.0),
        given(B_INT, LAMBDAS.1),
    )?;
    Ok(WorkedExample {
        model: run(&model, &exact)?,
        printed_integers: run(&printed, &exact)?,
        printed_c_quant: errors(&C_QUANT, &exact),
        printed_c_compensated: errors(&C_COMPENSATED, &exact),
        exact,
    })
}
