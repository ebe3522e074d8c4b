//! Review (2026-11-29) of the exact BLAS oracles (`oracle::blas`: `Gemv`,
//! `Gemm`, `Spmv` over `Csr` and `Ell`) and of the matrix views
//! (`oracle::matrix`), against a reference written from scratch with
//! `rug::Rational` (`common::exact`): the exact value of `alpha op(A) x + beta y0`, the IEEE
//! special values and signed zeros by the documented conventions (reference
//! BLAS: `alpha = 0` does not read `A` and `x`, `beta = 0` does not read
//! `y0`; an exact zero takes the sign of the terms `alpha a x` and `beta y0`
//! by the `mpfr_sum` rule), and the correct rounding into fp64 and fp32 in
//! every mode by bracketing between neighbouring floating-point numbers (no
//! MPFR rounding involved). Inputs are adversarial: cancellation, exponent
//! spans from subnormal products to `f64::MAX^3`, alpha and beta at the edges,
//! NaN and infinities. Seeds are fixed and printed on failure.

use boundgate_verify::VerifyError;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{
    Csr, ELL_PADDING, Ell, EllLayout, ExactOp, ExactSum, Gemm, Gemv, Matrix, Sparse, Spmv,
    Transpose,
};

mod common;
use common::blas::{csr_arrays, ell_arrays, gemm_operands, op_matrix, row_operands};
use common::exact::{
    Reference, RelativeUp, assert_same, check_error, check_errors_near, check_value, q, reference,
    round_rational_f32, round_rational_f64, same,
};
use common::rng::SplitMix;

// ----- the reference ----------------------------------------------------

/// Checks one accumulator against the reference: exact value, special value,
/// roundings into fp64 and fp32 in every mode, and error measures.
fn check_one(fast: &ExactSum, reference: &Reference, context: &str) {
    check_value(
        fast.non_finite(),
        || {
            fast.to_float()
                .expect("finite")
                .to_rational()
                .expect("finite")
        },
        reference,
        context,
    );
    for format in [Format::FP64, Format::FP32] {
        for mode in RoundingMode::ALL {
            assert_same(
                fast.round(format, mode),
                reference.round(format, mode),
                &format!("{context}: {format} {mode}: oracle vs reference"),
            );
        }
    }
    // Error measures of a few candidate computed values.
    check_errors_near(
        |c| fast.error_of(c),
        reference,
        &[0.0, -1.5, f64::MAX],
        RelativeUp::WithinOneUlp,
        context,
    );
}

fn check_op(op: &dyn ExactOp, expected: &[Vec<Vec<f64>>], context: &str) {
    assert_eq!(op.outputs(), expected.len(), "{context}: output count");
    let references: Vec<Reference> = expected.iter().map(|t| reference(t)).collect();
    let exact = op.exact();
    for (i, (fast, r)) in exact.iter().zip(&references).enumerate() {
        check_one(fast, r, &format!("{context}, output {i}"));
    }
    for mode in RoundingMode::ALL {
        let rounded = op.rounded(Format::FP64, mode);
        for (i, (f, r)) in rounded.iter().zip(&references).enumerate() {
            let r = r.round(Format::FP64, mode);
            assert!(
                same(*f, r),
                "{context}, output {i}, rounded {mode}: {f:e} vs {r:e}"
            );
        }
    }
    let computed: Vec<f64> = references
        .iter()
        .map(|r| r.round(Format::FP32, RoundingMode::NearestEven))
        .collect();
    let errors = op.errors(&computed).unwrap();
    for (i, ((e, r), &c)) in errors.iter().zip(&references).zip(&computed).enumerate() {
        let nearest = r.round(Format::FP64, RoundingMode::NearestEven);
        check_error(
            *e,
            r,
            nearest,
            c,
            RelativeUp::WithinOneUlp,
            &format!("{context}, output {i}, errors()"),
        );
    }
    assert!(matches!(
        op.errors(&vec![0.0; computed.len() + 1]),
        Err(VerifyError::LengthMismatch { .. })
    ));
}

/// The terms of output `alpha sum_k a_k b_k + beta y0` by the BLAS reading
/// rules: nothing of `A` or `x` when alpha is zero, no `y0` when beta is.
fn blas_terms(alpha: f64, a: &[f64], b: &[f64], beta: f64, y0: f64) -> Vec<Vec<f64>> {
    let mut terms = Vec::new();
    if alpha != 0.0 {
        terms.extend(a.iter().zip(b).map(|(&u, &v)| vec![alpha, u, v]));
    }
    if beta != 0.0 {
        terms.push(vec![beta, y0]);
    }
    terms
}

// ----- inputs -----------------------------------------------------------

/// An `y0` element that (nearly) cancels `alpha s` (s given by its terms).
fn cancelling_y0(rng: &mut SplitMix, alpha: f64, products: &[Vec<f64>], beta: f64) -> f64 {
    let r = reference(
        &products
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.insert(0, alpha);
                t
            })
            .collect::<Vec<_>>(),
    );
    let Reference::Finite { value, .. } = r else {
        return rng.value(false);
    };
    if value == 0 || beta == 0.0 {
        return rng.value(false);
    }
    let target = -value / q(beta);
    let mode = RoundingMode::ALL[rng.below(4) as usize];
    let y = round_rational_f64(&target, mode);
    if y.is_finite() { y } else { rng.value(false) }
}

/// `y0` as the operation is given it: always where `beta` is nonzero, else
/// (it is not read) given or not, at random.
fn given_y0<'a>(rng: &mut SplitMix, beta: f64, y0: &'a [f64]) -> Option<&'a [f64]> {
    if beta != 0.0 || rng.below(2) == 0 {
        Some(y0)
    } else {
        None
    }
}

/// Cases per test (`BOUNDGATE_HEAVY=1`: 16 times as many).
fn cases() -> u64 {
    if std::env::var_os("BOUNDGATE_HEAVY").is_some() {
        24_000
    } else {
        1500
    }
}

/// The reference rounding (bracketing) agrees with MPFR's `mpfr_get_d` and
/// `mpfr_get_flt` on random dyadic rationals across the whole range.
#[test]
fn bracketing_reference_agrees_with_mpfr() {
    use rug::Float;
    let mut rng = SplitMix(0x6e6d_6272);
    for _ in 0..20_000 {
        let terms: Vec<Vec<f64>> = (0..1 + rng.below(3))
            .map(|_| (0..1 + rng.below(3)).map(|_| rng.value(false)).collect())
            .collect();
        let Reference::Finite { value, .. } = reference(&terms) else {
            unreachable!()
        };
        if value == 0 {
            continue;
        }
        let (exact, o) = Float::with_val_round(20_000, &value, rug::float::Round::Nearest);
        assert_eq!(o, std::cmp::Ordering::Equal);
        for mode in RoundingMode::ALL {
            let expected = exact.to_f64_round(mode.to_rug());
            let got = round_rational_f64(&value, mode);
            assert!(
                same(got, expected),
                "{terms:?} {mode}: {got:e} vs {expected:e}"
            );
            let expected = exact.to_f32_round(mode.to_rug()) as f64;
            let got = round_rational_f32(&value, mode);
            assert!(
                same(got, expected),
                "{terms:?} {mode} f32: {got:e} vs {expected:e}"
            );
        }
    }
}

#[test]
fn gemv_against_rational_reference() {
    for case in 0..cases() {
        let seed = 0x6e6d_7600 ^ case;
        let mut rng = SplitMix(seed);
        let specials = rng.below(4) == 0;
        let (m, n) = (rng.below(6) as usize, rng.below(7) as usize);
        let a_data = rng.vec(m * n, specials);
        let a = Matrix::new(m, n, &a_data).unwrap();
        let trans = rng.transpose();
        let (rows, cols) = if trans == Transpose::No {
            (m, n)
        } else {
            (n, m)
        };
        let x = rng.vec(cols, specials);
        let (alpha, beta) = (rng.scalar(), rng.scalar());
        let op_row = |i: usize| -> Vec<f64> {
            (0..cols)
                .map(|j| {
                    if trans == Transpose::No {
                        a_data[i * n + j]
                    } else {
                        a_data[j * n + i]
                    }
                })
                .collect()
        };
        let mut y0 = rng.vec(rows, specials);
        if rng.below(2) == 0 {
            for (i, y) in y0.iter_mut().enumerate() {
                let products: Vec<Vec<f64>> = op_row(i)
                    .iter()
                    .zip(&x)
                    .map(|(&u, &v)| vec![u, v])
                    .collect();
                *y = cancelling_y0(&mut rng, alpha, &products, beta);
            }
        }
        if beta == 0.0 && rng.below(2) == 0 {
            // beta = 0: y0 is not read, NaN there included.
            y0.fill(f64::NAN);
        }
        let y0_arg = given_y0(&mut rng, beta, &y0);
        let op = Gemv::new(alpha, a, trans, &x, beta, y0_arg).unwrap();
        let expected: Vec<Vec<Vec<f64>>> = (0..rows)
            .map(|i| blas_terms(alpha, &op_row(i), &x, beta, y0[i]))
            .collect();
        check_op(
            &op,
            &expected,
            &format!("gemv seed {seed:#x} ({m}x{n} {trans:?}, alpha {alpha:e}, beta {beta:e})"),
        );
    }
}

#[test]
fn gemm_against_rational_reference() {
    for case in 0..cases() / 2 {
        let seed = 0x6e6d_6d00 ^ case;
        let mut rng = SplitMix(seed);
        let specials = rng.below(4) == 0;
        let (m, n, k) = (
            rng.below(5) as usize,
            rng.below(5) as usize,
            rng.below(6) as usize,
        );
        let (ta, tb) = (rng.transpose(), rng.transpose());
        let a_data = rng.vec(m * k, specials);
        let b_data = rng.vec(k * n, specials);
        let a = op_matrix(&a_data, m, k, ta);
        let b = op_matrix(&b_data, k, n, tb);
        let op_a = |i: usize, l: usize| {
            if ta == Transpose::No {
                a_data[i * k + l]
            } else {
                a_data[l * m + i]
            }
        };
        let op_b = |l: usize, j: usize| {
            if tb == Transpose::No {
                b_data[l * n + j]
            } else {
                b_data[j * k + l]
            }
        };
        let (alpha, beta) = (rng.scalar(), rng.scalar());
        let mut c0 = rng.vec(m * n, specials);
        let cancel = rng.below(2) == 0;
        for i in 0..m {
            for j in 0..n {
                if cancel {
                    let products: Vec<Vec<f64>> =
                        (0..k).map(|l| vec![op_a(i, l), op_b(l, j)]).collect();
                    c0[i * n + j] = cancelling_y0(&mut rng, alpha, &products, beta);
                }
            }
        }
        if beta == 0.0 && rng.below(2) == 0 {
            c0.fill(f64::NAN);
        }
        let c0_arg = given_y0(&mut rng, beta, &c0);
        let op = Gemm::new(alpha, a, ta, b, tb, beta, c0_arg).unwrap();
        let expected: Vec<_> = gemm_operands((m, n, k), op_a, op_b)
            .iter()
            .zip(&c0)
            .map(|((row, col), &c)| blas_terms(alpha, row, col, beta, c))
            .collect();
        check_op(
            &op,
            &expected,
            &format!(
                "gemm seed {seed:#x} ({m}x{k}x{n} {ta:?} {tb:?}, alpha {alpha:e}, beta {beta:e})"
            ),
        );
    }
}

#[test]
fn spmv_against_rational_reference() {
    for case in 0..cases() / 2 {
        let seed = 0x6e6d_7300 ^ case;
        let mut rng = SplitMix(seed);
        let specials = rng.below(4) == 0;
        let (rows, cols) = (rng.below(6) as usize, rng.below(6) as usize);
        let width = if cols == 0 { 0 } else { rng.below(5) as usize };
        let entries: Vec<Vec<(usize, f64)>> = (0..rows)
            .map(|_| {
                let len = rng.below(width as u64 + 1) as usize;
                (0..len)
                    .map(|_| (rng.below(cols as u64) as usize, rng.value(specials)))
                    .collect()
            })
            .collect();
        let x = rng.vec(cols, specials);
        let (alpha, beta) = (rng.scalar(), rng.scalar());
        let mut y0 = rng.vec(rows, specials);
        if beta == 0.0 {
            y0.fill(f64::NAN);
        }
        let y0_arg = given_y0(&mut rng, beta, &y0);
        let expected: Vec<Vec<Vec<f64>>> = entries
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let (a, b) = row_operands(row, &x);
                blas_terms(alpha, &a, &b, beta, y0[i])
            })
            .collect();
        let (row_ptr, col_idx, values) = csr_arrays(&entries);
        let csr = Csr::new(rows, cols, &row_ptr, &col_idx, &values).unwrap();
        let op = Spmv::new(alpha, Sparse::Csr(csr), &x, beta, y0_arg).unwrap();
        let context =
            format!("spmv seed {seed:#x} ({rows}x{cols}, alpha {alpha:e}, beta {beta:e})");
        check_op(&op, &expected, &format!("{context} csr"));
        for layout in [EllLayout::RowMajor, EllLayout::ColumnMajor] {
            // Padding anywhere in the row, not only at its end.
            let (ell_cols, ell_values) = ell_arrays(&entries, width, layout, || {
                let mut slots: Vec<usize> = (0..width).collect();
                for s in (1..slots.len()).rev() {
                    slots.swap(s, rng.below(s as u64 + 1) as usize);
                }
                slots
            });
            let ell = Ell::new(rows, cols, width, layout, &ell_cols, &ell_values).unwrap();
            let op = Spmv::new(alpha, Sparse::Ell(ell), &x, beta, y0_arg).unwrap();
            check_op(&op, &expected, &format!("{context} ell {layout:?}"));
        }
    }
}

// ----- targeted edges ---------------------------------------------------

#[test]
fn extreme_scalings_stay_exact() {
    let tiny = f64::from_bits(1);
    let max = f64::MAX;
    // (alpha, a, x, beta, y0)
    type Case<'a> = (f64, &'a [f64], &'a [f64], f64, f64);
    let cases: &[Case<'_>] = &[
        // S = MAX (MAX - pred(MAX)) = MAX 2^971 (its products overflow f64,
        // their sum does too), alpha S is about 2^3019.
        (max, &[max, max], &[max, -max.next_down()], 0.0, 0.0),
        // S = 2^2047 (beyond f64), alpha = 2^-1074: finite, representable.
        (tiny, &[max, max], &[max, max], 0.0, 0.0),
        // Three subnormal factors: 2^-3222, far below f64, rounds to 0 or tiny.
        (tiny, &[tiny], &[tiny], 0.0, 0.0),
        (-tiny, &[tiny, tiny], &[tiny, -tiny], 1.0, tiny),
        // alpha S cancels beta y0 down to the lowest bit of both.
        (3.0, &[1.0 / 3.0], &[3.0], -1.0, 3.0),
        (0.1, &[0.1, -0.1], &[10.0, 10.0], -1.0, 0.0),
        (max, &[2f64.powi(-1074)], &[2f64.powi(-1000)], -tiny, 1.0),
        // Huge alpha S against huge beta y0.
        (max, &[max], &[1.0], -max, max),
        (-max, &[max, tiny], &[1.0, tiny], -max, max),
    ];
    for (n, &(alpha, a, x, beta, y0)) in cases.iter().enumerate() {
        let m = Matrix::new(1, a.len(), a).unwrap();
        let y = [y0];
        let op = Gemv::new(alpha, m, Transpose::No, x, beta, Some(&y)).unwrap();
        check_op(
            &op,
            &[blas_terms(alpha, a, x, beta, y0)],
            &format!("extreme case {n}"),
        );
    }
}

#[test]
fn beta_zero_does_not_read_y0_and_alpha_zero_does_not_read_a_or_x() {
    let a_data = [f64::NAN, f64::INFINITY, 1.0, -0.0];
    let a = Matrix::new(2, 2, &a_data).unwrap();
    let x = [f64::INFINITY, f64::NAN];
    let y0 = [f64::NAN, f64::NEG_INFINITY];
    for alpha in [0.0, -0.0] {
        for beta in [0.0, -0.0] {
            for trans in [Transpose::No, Transpose::Yes] {
                for y in [Some(&y0[..]), None] {
                    let op = Gemv::new(alpha, a, trans, &x, beta, y).unwrap();
                    for mode in RoundingMode::ALL {
                        // Reference BLAS sets y = +0 (dgemv: y := 0 when beta = 0).
                        let out = op.rounded(Format::FP64, mode);
                        assert!(out.iter().all(|v| v.to_bits() == 0), "{out:?} {mode}");
                    }
                }
            }
        }
    }
    // alpha = 0, beta = -1: y = -y0 exactly, even -0 from +0.
    let y0 = [0.0, 2.0];
    let op = Gemv::new(0.0, a, Transpose::No, &x, -1.0, Some(&y0)).unwrap();
    for mode in RoundingMode::ALL {
        let out = op.rounded(Format::FP64, mode);
        assert_eq!(out[0].to_bits(), (-0.0f64).to_bits());
        assert_eq!(out[1], -2.0);
    }
}

#[test]
fn shape_errors_are_typed() {
    let data = [1.0; 6];
    let a = Matrix::new(2, 3, &data).unwrap();
    let len =
        |r: Result<Gemv<'_>, VerifyError>| matches!(r, Err(VerifyError::LengthMismatch { .. }));
    let refused =
        |trans, x: &[f64], beta, y0: Option<&[f64]>| len(Gemv::new(1.0, a, trans, x, beta, y0));
    assert!(refused(Transpose::No, &[1.0; 2], 0.0, None));
    assert!(refused(Transpose::Yes, &[1.0; 3], 0.0, None));
    assert!(refused(Transpose::No, &[1.0; 3], 1.0, Some(&[1.0; 3])));
    // A wrong-length y0 is refused even when beta = 0 (it is not read).
    assert!(refused(Transpose::No, &[1.0; 3], 0.0, Some(&[1.0; 3])));
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            Gemv::new(bad, a, Transpose::No, &[1.0; 3], 0.0, None),
            Err(VerifyError::NonFinite { .. })
        ));
        assert!(matches!(
            Gemv::new(1.0, a, Transpose::No, &[1.0; 3], bad, Some(&[1.0; 2])),
            Err(VerifyError::NonFinite { .. })
        ));
    }
    // Empty shapes.
    let empty = Matrix::new(0, 3, &[]).unwrap();
    let op = Gemv::new(1.0, empty, Transpose::No, &[1.0; 3], 0.0, None).unwrap();
    assert_eq!(op.outputs(), 0);
    assert!(op.exact().is_empty());
    let op = Gemv::new(2.0, empty, Transpose::Yes, &[], 0.0, None).unwrap();
    assert_eq!(op.outputs(), 3);
    assert!(op.exact().iter().all(|s| s.is_zero() && s.is_finite()));
    // Gemm: m n overflowing usize with k = 0.
    let tall = Matrix::new(usize::MAX, 0, &[]).unwrap();
    let wide = Matrix::new(0, 2, &[]).unwrap();
    assert!(matches!(
        Gemm::new(1.0, tall, Transpose::No, wide, Transpose::No, 0.0, None),
        Err(VerifyError::InvalidParameter { .. })
    ));
    let flat = Matrix::new(3, 0, &[]).unwrap();
    let op = Gemm::new(
        1.0,
        flat,
        Transpose::No,
        wide,
        Transpose::No,
        2.0,
        Some(&[1.0; 6]),
    )
    .unwrap();
    assert_eq!(op.rounded(Format::FP64, RoundingMode::Up), vec![2.0; 6]);
    // Sparse: x length and y0 length.
    let csr = Csr::new(2, 2, &[0, 1, 1], &[1], &[1.0]).unwrap();
    assert!(matches!(
        Spmv::new(1.0, Sparse::Csr(csr), &[1.0], 0.0, None),
        Err(VerifyError::LengthMismatch { .. })
    ));
    assert!(matches!(
        Spmv::new(1.0, Sparse::Csr(csr), &[1.0; 2], 1.0, Some(&[1.0])),
        Err(VerifyError::LengthMismatch { .. })
    ));
}

#[test]
fn matrix_structures_are_validated_without_panics() {
    // CSR: every bad structure is a typed error, never a panic.
    assert!(Csr::new(0, 0, &[], &[], &[]).is_err());
    assert!(Csr::new(0, 0, &[0], &[], &[]).is_ok());
    assert!(Csr::new(usize::MAX, 1, &[0], &[], &[]).is_err());
    assert!(Csr::new(2, 2, &[0, 3, 2], &[0, 1], &[1.0, 2.0]).is_err());
    assert!(Csr::new(1, 0, &[0, 1], &[0], &[1.0]).is_err());
    // ELL: rows * width overflowing, bad column, padding accepted anywhere.
    assert!(Ell::new(usize::MAX, 1, 2, EllLayout::RowMajor, &[], &[]).is_err());
    assert!(
        Ell::new(
            1,
            1,
            2,
            EllLayout::RowMajor,
            &[ELL_PADDING, 0],
            &[f64::NAN, 1.0]
        )
        .is_ok()
    );
    assert!(Ell::new(1, 1, 1, EllLayout::RowMajor, &[1], &[1.0]).is_err());
    // Dense.
    assert!(matches!(
        Matrix::new(usize::MAX, 2, &[]),
        Err(VerifyError::InvalidParameter { .. })
    ));
    assert!(Matrix::new(usize::MAX, 0, &[]).is_ok());
}

/// Regression (review 2026-11-29): `Matrix::row` and `Matrix::get` computed
/// `i * cols` unchecked, so in a build without overflow checks (release) a
/// row index past the end whose product with `cols` wraps read another row
/// instead of panicking: `row(2^63)` of a 2 x 2 matrix was row 0.
#[test]
fn out_of_range_rows_panic_instead_of_wrapping() {
    let data = [1.0, 2.0, 3.0, 4.0];
    let a = Matrix::new(2, 2, &data).unwrap();
    let wrapping = 1usize << (usize::BITS - 1); // wrapping * 2 == 0
    let row = std::panic::catch_unwind(|| a.row(wrapping).to_vec());
    assert!(row.is_err(), "row({wrapping}) read {:?}", row.unwrap());
    let get = std::panic::catch_unwind(|| a.get(wrapping, 1));
    assert!(get.is_err(), "get({wrapping}, 1) read {:?}", get.unwrap());
    assert!(std::panic::catch_unwind(|| a.row(2)).is_err());
    assert!(std::panic::catch_unwind(|| a.get(2, 0)).is_err());
    // With no columns every row is the empty slice (documented).
    let flat = Matrix::new(2, 0, &[]).unwrap();
    assert!(flat.row(5).is_empty());
}
