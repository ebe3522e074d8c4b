//! Review of the triangular-solve oracle (`oracle::trsv`): edge inputs
//! checked against exact rational arithmetic (`rug::Rational`). Fixed seeds,
//! printed.

use boundgate_verify::VerifyError;
use boundgate_verify::oracle::ErrorMeasure;
use boundgate_verify::oracle::trsv::{
    Diag, Uplo, backward_error, solution_errors_within, solve_exact_rational,
};
use rug::Rational;

mod common;
use common::exact::q;
use common::rng::XorShift;
use common::trsv::{assert_exact_solves_agree, shapes, triangular};

/// Whether `v` (possibly +inf) is at least `x`.
fn at_least(v: f64, x: &Rational) -> bool {
    v == f64::INFINITY || (v.is_finite() && q(v) >= *x)
}

/// A zero on the diagonal does not stop `backward_error` (a residual can be
/// measured), but it must not stop the other entries from being validated: a
/// NaN in a later row was never read by the validation, and the NaN residual
/// it made vanished in `f64::max`, so a system with a NaN came out with
/// backward errors of exactly 0.
#[test]
fn backward_error_rejects_a_nan_after_a_zero_diagonal() {
    let data = [0.0, 0.0, f64::NAN, 1.0];
    for uplo in [Uplo::Lower, Uplo::Upper] {
        // Upper reads row 0's (0, 1) entry: put the NaN there too.
        let upper_data = [0.0, f64::NAN, 0.0, 1.0];
        let d: &[f64] = if uplo == Uplo::Lower {
            &data
        } else {
            &upper_data
        };
        let t = triangular(d, 2, uplo, Diag::NonUnit);
        let result = backward_error(&t, &[0.0, 1.0], &[1.0, 1.0]);
        assert!(
            matches!(result, Err(VerifyError::NonFinite { .. })),
            "{uplo:?}: {result:?}"
        );
    }
    // A zero diagonal alone is still measured.
    let t = triangular(&[0.0, 0.0, 1.0, 1.0], 2, Uplo::Lower, Diag::NonUnit);
    let be = backward_error(&t, &[0.0, 2.0], &[1.0, 1.0]).unwrap();
    assert_eq!(be.componentwise, 0.0);
}

/// `(|T| |x^|)_i` was summed in f64 rounded down; a product that underflows
/// rounded down to -2^-1074 (mul_down steps below an underflowed 0), so the
/// "lower bound" of a positive denominator was negative and the backward
/// errors came out negative or zero instead of an upper bound of the exact
/// ones (here exactly 1: `r = -t x`, `|T||x^| = t x`).
#[test]
fn backward_errors_bound_the_exact_ones_when_products_underflow() {
    let cases: [(&[f64], &[f64], &[f64]); 3] = [
        (&[1e-200], &[0.0], &[1e-200]),
        (&[1e-200], &[0.0], &[-3e-170]),
        // Two rows, the second all underflowing products.
        (&[1.0, 0.0, 1e-200, 2e-200], &[1.0, 0.0], &[1.0, 1e-200]),
    ];
    for (data, b, x_hat) in cases {
        let n = b.len();
        let t = triangular(data, n, Uplo::Lower, Diag::NonUnit);
        let be = backward_error(&t, b, x_hat).unwrap();
        // The exact values, in rationals.
        let mut omega = Rational::new();
        let mut r_norm = Rational::new();
        let mut t_norm = Rational::new();
        for i in 0..n {
            let (start, off) = t.off_diagonal(i);
            let mut r = q(b[i]) - q(t.diagonal(i)) * q(x_hat[i]);
            let mut d = (q(t.diagonal(i)) * q(x_hat[i])).abs();
            let mut row = q(t.diagonal(i)).abs();
            for (k, a) in off.iter().enumerate() {
                r -= q(*a) * q(x_hat[start + k]);
                d += (q(*a) * q(x_hat[start + k])).abs();
                row += q(*a).abs();
            }
            let r = r.abs();
            if r != 0 {
                assert!(d != 0);
                omega = omega.max(r.clone() / d);
            }
            r_norm = r_norm.max(r);
            t_norm = t_norm.max(row);
        }
        let x_norm = x_hat.iter().map(|v| q(*v).abs()).max().unwrap();
        let eta = r_norm.clone() / (t_norm * x_norm);
        assert!(
            q(be.componentwise) >= omega,
            "{data:?} {x_hat:?}: componentwise {} < {} ({be:?})",
            be.componentwise,
            omega.to_f64()
        );
        assert!(
            q(be.normwise_inf) >= eta,
            "{data:?} {x_hat:?}: normwise {} < {}",
            be.normwise_inf,
            eta.to_f64()
        );
        // And finite: the denominators are positive.
        assert!(be.componentwise.is_finite() && be.normwise_inf.is_finite());
        assert!(q(be.residual_inf) >= r_norm);
    }
}

/// A computed solution so wrong that its residual overflows f64 (x^_0 =
/// 1e308 where x_0 = 0.5): the refinement read the residual as inf, made no
/// correction, and the enclosure was infinite for every component that
/// depends on it, so none was judged (exact NaN) however large its error.
/// The exact errors are known: with the budget 0 (enclosure only) every
/// component must still be judged and enclose its error.
#[test]
fn a_residual_beyond_f64_is_still_refined() {
    let seed = 0x0e5f_0001u64;
    println!("seed {seed:#x}");
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for n in [1usize, 2, 5, 12] {
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..i {
                a[i * n + j] = next();
            }
            a[i * n + i] = 2.0 + next();
        }
        let b: Vec<f64> = (0..n).map(|_| next()).collect();
        let t = triangular(&a, n, Uplo::Lower, Diag::NonUnit);
        let exact = solve_exact_rational(&t, &b).unwrap();
        let mut x_hat: Vec<f64> = exact.iter().map(|x| x.to_f64()).collect();
        x_hat[0] = 1e308;
        let e = solution_errors_within(&t, &b, &x_hat, 0.0).unwrap();
        for i in 0..n {
            let err = (q(x_hat[i]) - &exact[i]).abs();
            let ErrorMeasure::Finite {
                absolute_up,
                absolute_down,
                ..
            } = e[i]
            else {
                panic!("n = {n}, component {i} not judged: {:?}", e[i]);
            };
            assert!(q(absolute_up) >= err, "n = {n}, component {i}: {:?}", e[i]);
            if let Some(down) = absolute_down {
                assert!(q(down) <= err, "n = {n}, component {i}: {:?}", e[i]);
            }
        }
        // Component 0's error, about 1e308, is proven.
        let ErrorMeasure::Finite {
            absolute_down: down,
            absolute_up: up,
            ..
        } = e[0]
        else {
            unreachable!()
        };
        assert!(down.unwrap_or(up) > 1e307, "n = {n}: {:?}", e[0]);
    }
}

/// Rows with a positive least exponent (all entries multiples of 2^10) and a
/// zero right-hand side: the zero's scaled integer is formed with a shift of
/// `0 - shift` (negative, as u32).
#[test]
fn exact_solve_of_zero_right_hand_sides_in_scaled_rows() {
    let data = [1024.0, 0.0, 3072.0, 2048.0];
    for (uplo, diag) in [
        (Uplo::Lower, Diag::NonUnit),
        (Uplo::Upper, Diag::NonUnit),
        (Uplo::Lower, Diag::Unit),
    ] {
        let t = triangular(&data, 2, uplo, diag);
        for b in [[0.0, 0.0], [0.0, 4096.0], [-0.0, 1.0]] {
            assert_exact_solves_agree(&t, &b, &format!("{uplo:?} {diag:?} {b:?}"));
        }
    }
}

/// Random small systems over f64's whole range, computed solutions from the
/// exact one rounded, perturbed, zero or huge: the enclosure (budget 0) and
/// the exact path both contain the exact error, and the backward errors are
/// upper bounds of the exact ones.
#[test]
fn enclosures_and_backward_errors_over_the_whole_range() {
    let seed = 0x7a11_0e5fu64;
    println!("seed {seed:#x}");
    let mut rng = XorShift(seed);
    let mut judged = 0;
    for case in 0..400 {
        let n = 1 + (case % 6);
        let wide = case % 2 == 0;
        let mut a: Vec<f64> = (0..n * n)
            .map(|_| if wide { rng.wide() } else { rng.unit() - 0.5 })
            .collect();
        for i in 0..n {
            if a[i * n + i] == 0.0 || !wide {
                a[i * n + i] = if wide { rng.wide() } else { 1.0 + rng.unit() };
                if a[i * n + i] == 0.0 {
                    a[i * n + i] = 1.0;
                }
            }
        }
        let b: Vec<f64> = (0..n)
            .map(|_| if wide { rng.wide() } else { rng.unit() })
            .collect();
        for (uplo, diag) in shapes() {
            let t = triangular(&a, n, uplo, diag);
            let exact = solve_exact_rational(&t, &b).unwrap();
            let x_hat: Vec<f64> = exact
                .iter()
                .map(|x| {
                    let v = x.to_f64();
                    let v = if v.is_finite() { v } else { f64::MAX };
                    let v = match rng.below(6) {
                        0 => 0.0,
                        1 => v * (1.0 + (rng.unit() - 0.5) * 1e-6),
                        2 => rng.wide(),
                        _ => v,
                    };
                    if v.is_finite() { v } else { f64::MAX }
                })
                .collect();
            let context = format!("case {case} {uplo:?} {diag:?} a={a:?} b={b:?} x^={x_hat:?}");
            for budget in [0.0, f64::INFINITY] {
                let e = solution_errors_within(&t, &b, &x_hat, budget).unwrap();
                for i in 0..n {
                    let err = (q(x_hat[i]) - &exact[i]).abs();
                    match e[i] {
                        ErrorMeasure::Finite {
                            absolute_up,
                            absolute_down,
                            relative_up,
                            ..
                        } => {
                            judged += 1;
                            assert!(at_least(absolute_up, &err), "{context} [{i}] {:?}", e[i]);
                            if let Some(d) = absolute_down {
                                assert!(q(d) <= err, "{context} [{i}] {:?}", e[i]);
                            }
                            if let Some(rel) = relative_up {
                                assert!(exact[i] != 0, "{context} [{i}]");
                                assert!(
                                    rel == f64::INFINITY || q(rel) * exact[i].clone().abs() >= err,
                                    "{context} [{i}] {:?}",
                                    e[i]
                                );
                            }
                        }
                        ErrorMeasure::NonFinite { exact: ex, .. } => {
                            // Only an exact value beyond f64 (or, for the
                            // enclosure, no finite radius) is not judged.
                            if budget > 0.0 {
                                assert!(
                                    ex.is_infinite() && !exact[i].to_f64().is_finite(),
                                    "{context} [{i}] {:?}",
                                    e[i]
                                );
                            }
                        }
                    }
                }
            }
            // Backward errors against the exact residual.
            let be = backward_error(&t, &b, &x_hat).unwrap();
            let mut omega = Rational::new();
            let mut omega_infinite = false;
            for i in 0..n {
                let (start, off) = t.off_diagonal(i);
                let mut r = q(b[i]) - q(t.diagonal(i)) * q(x_hat[i]);
                let mut d = (q(t.diagonal(i)) * q(x_hat[i])).abs();
                for (k, v) in off.iter().enumerate() {
                    r -= q(*v) * q(x_hat[start + k]);
                    d += (q(*v) * q(x_hat[start + k])).abs();
                }
                let r = r.abs();
                assert!(at_least(be.residual_inf, &r), "{context}");
                if r != 0 {
                    if d == 0 {
                        omega_infinite = true;
                    } else {
                        omega = omega.max(r / d);
                    }
                }
            }
            if omega_infinite {
                assert_eq!(be.componentwise, f64::INFINITY, "{context}");
            } else {
                assert!(at_least(be.componentwise, &omega), "{context} {be:?}");
                // Rounded up from the exact quotient: within two ulps.
                let up = omega.to_f64();
                assert!(
                    be.componentwise <= up.next_up().next_up(),
                    "{context} {be:?} vs {up:e}"
                );
            }
            assert!(be.normwise_inf >= 0.0, "{context} {be:?}");
        }
    }
    assert!(judged > 1000, "{judged}");
}

/// `solution_errors_exact` zipped `x^` with the exact solution: an `x^` of
/// the wrong length gave a shorter (or silently truncated) list of errors
/// instead of an error, where every other entry point of the oracle refuses it.
#[test]
fn exact_errors_refuse_a_solution_of_the_wrong_length() {
    use boundgate_verify::oracle::trsv::solution_errors_exact;
    let t = triangular(&[3.0, 0.0, 1.0, 3.0], 2, Uplo::Lower, Diag::NonUnit);
    for x_hat in [&[0.0][..], &[0.0, 0.0, 0.0][..]] {
        let result = solution_errors_exact(&t, &[1.0, 1.0], x_hat);
        assert!(
            matches!(result, Err(VerifyError::LengthMismatch { .. })),
            "{x_hat:?}: {result:?}"
        );
    }
    assert_eq!(
        solution_errors_exact(&t, &[1.0, 1.0], &[0.0, 0.0])
            .unwrap()
            .len(),
        2
    );
}
