//! Regression tests from the review of `bounds::accessor` (2026-11-29): each
//! one failed before its fix (the failing output is quoted in the test's
//! comment). Exact references: `oracle::trsv::residual` (an exact sum).

use boundgate_verify::VerifyError;
use boundgate_verify::bounds::accessor::{
    BlockedInverseTrsv, blocked_inverse_forward, blocked_inverse_normwise_backward,
    blocked_inverse_residual, higham_3_5_depth, higham_3_5_stored,
};
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use boundgate_verify::oracle::Matrix;
use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo, residual};
use rug::Float;

const RNE: RoundingMode = RoundingMode::NearestEven;

/// `|b - T x^|_i`, exactly (rounded to nearest: the comparisons below are
/// far from ties).
fn exact_residual(t: &Triangular<'_>, b: &[f64], x: &[f64]) -> Vec<f64> {
    residual(t, b, x)
        .unwrap()
        .iter()
        .map(|r| r.to_float().unwrap().abs().to_f64())
        .collect()
}

/// A one-by-one system solved as the blocked kernel does (`y = fl(1/a)`,
/// `x = fl(y b)`) in `f` with `mode`.
fn solve_1x1(f: Format, mode: RoundingMode, a: f64, b: f64) -> (f64, f64) {
    let y = f.round_float(&(Float::with_val(200, 1) / a), mode);
    (y, f.fma(y, b, 0.0, mode))
}

/// The residual bound took "every intermediate is finite" as proof that no
/// operation overflowed. That holds only where an overflow gives an infinity
/// (round to nearest, a format that does not saturate). Rounding up, `1/a`
/// for `a = -3 x 2^-9` (-170.7) in a 4-bit format whose largest number is 120
/// gives -120, not -inf: the solve stays finite and the bound was violated.
/// Before the fix:
/// `directed Up: exact residual 6.34765625e-3 > rho 5.737595260143281e-3`
/// (found by an adversarial search over small formats and all four modes,
/// seed 299 of `accessor_review_search.rs`). Every such violation in the
/// search had a saturated operation; none without.
#[test]
fn a_saturated_overflow_is_not_taken_for_no_overflow() {
    let small = Format::custom(4, -6, 6, true, OverflowPolicy::Infinity).unwrap();
    let saturating = Format::custom(4, -6, 6, true, OverflowPolicy::Saturate).unwrap();
    let (a, b) = (-0.005859375, -0.025390625);
    for (f, mode, what) in [
        (small, RoundingMode::Up, "directed Up"),
        (small, RoundingMode::TowardZero, "directed TowardZero"),
        (saturating, RNE, "saturating format, nearest"),
    ] {
        let (y, x) = solve_1x1(f, mode, a, b);
        assert!(y.is_finite() && x.is_finite(), "{what}: {y} {x}");
        assert_eq!(
            y.abs(),
            f.max_finite(),
            "{what}: 1/a overflowed to the largest number"
        );
        let av = [a];
        let t =
            Triangular::new(Matrix::new(1, 1, &av).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
        let (bv, xv, inverses) = ([b], [x], vec![vec![y]]);
        let solve = BlockedInverseTrsv {
            system: t,
            b: &bv,
            block: 1,
            inverses: &inverses,
            v_hat: &bv,
            x_hat: &xv,
            update_depths: &[0],
            update_ops: &[0],
            apply_depth: 1,
        };
        match blocked_inverse_residual(f, mode, &solve) {
            Ok(rho) => {
                let exact = exact_residual(&t, &bv, &xv)[0];
                assert!(
                    exact <= rho[0],
                    "{what}: exact residual {exact:e} > rho {:e}",
                    rho[0]
                );
            }
            Err(e) => assert!(
                matches!(e, VerifyError::HypothesisNotMet { .. }),
                "{what}: {e}"
            ),
        }
    }
    // Round to nearest in a format with infinities: the overflow is an
    // infinity, refused as before.
    let (y, x) = solve_1x1(small, RNE, a, b);
    assert!(y.is_infinite() && x.is_infinite());
}

/// A zero entry of `T` times a component bound that overflowed to +inf made
/// `0 x inf = NaN` in `rho` (the true contribution is 0: every quantity
/// bounded is finite). Unit lower `T` with `l_10 = 1`, `l_2j = 0`, `b =
/// [1e308, 1e308, 1]`: `|Y^| |v^|` row 1 is `2e308`, +inf rounded up, and row
/// 2's residual bound was NaN; the forward bound then refused the whole
/// solve. Before the fix: `rho = [3.330669073875472e292, inf, NaN]`, and
/// `blocked_inverse_forward` returned `InvalidParameter { name: "v[2]",
/// value: "NaN", reason: "must be a non-negative number" }`.
#[test]
fn a_zero_entry_times_an_infinite_bound_contributes_nothing() {
    let a = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let t = Triangular::new(Matrix::new(3, 3, &a).unwrap(), Uplo::Lower, Diag::Unit).unwrap();
    let big = 1e308;
    let b = [big, big, 1.0];
    // The blocked solve in binary64: Y = T^{-1}, x = Y b (one FMA chain).
    let inverses = vec![vec![1.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1.0]];
    let x = [big, -big + big, 1.0];
    let solve = BlockedInverseTrsv {
        system: t,
        b: &b,
        block: 3,
        inverses: &inverses,
        v_hat: &b,
        x_hat: &x,
        update_depths: &[0],
        update_ops: &[0],
        apply_depth: 3,
    };
    let rho = blocked_inverse_residual(Format::FP64, RNE, &solve).unwrap();
    assert!(rho.iter().all(|r| !r.is_nan()), "rho = {rho:?}");
    let exact = exact_residual(&t, &b, &x);
    for i in 0..3 {
        assert!(exact[i] <= rho[i], "row {i}: {:e} > {:e}", exact[i], rho[i]);
    }
    // Row 2: the underflow terms H_2c |v_c| (2 eta 1e308 ~ 1e-15) and gamma |v_2|.
    assert!(rho[2].is_finite() && rho[2] < 1e-14, "rho = {rho:?}");
    // Row 2 of T^{-1} is e_2: x_2's forward bound is finite; row 1's is not.
    let fwd = blocked_inverse_forward(Format::FP64, RNE, &t, &b, &solve, None).unwrap();
    assert!(fwd.values()[2] < 1e-14, "{:?}", fwd.values());
    let be = blocked_inverse_normwise_backward(Format::FP64, RNE, &solve).unwrap();
    assert!(!be.value.is_nan());
}

/// A NaN in the right-hand side *as given* vanished: `|NaN - b~|` was
/// computed as `max(NaN, b~) - min(NaN, b~) = 0`, and the forward bound was a
/// small finite number for a solution that is NaN. Before the fix:
/// `Ok([3.6637359812630316e-15, 8.160139230994935e-15])`. A non-finite
/// given `T` was already refused (`NonFinite`); `b` now is too.
#[test]
fn a_non_finite_right_hand_side_as_given_is_refused() {
    let a = [2.0, 0.0, 1.0, 4.0];
    let t = Triangular::new(Matrix::new(2, 2, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let (b, x) = ([2.0, 5.0], [1.0, 1.0]);
    let inverses = vec![vec![0.5, 0.0, -0.125, 0.25]];
    let solve = BlockedInverseTrsv {
        system: t,
        b: &b,
        block: 32,
        inverses: &inverses,
        v_hat: &b,
        x_hat: &x,
        update_depths: &[0],
        update_ops: &[0],
        apply_depth: 32,
    };
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let r = blocked_inverse_forward(Format::FP64, RNE, &t, &[bad, 5.0], &solve, None);
        assert!(
            matches!(r, Err(VerifyError::NonFinite { index: 0, .. })),
            "b = [{bad}, 5]: {r:?}"
        );
    }
    // A stored system or right-hand side that is not finite is refused too
    // (the kernel refuses them before; the public function did not).
    let inf_t = [f64::INFINITY, 0.0, 1.0, 4.0];
    let t_inf = Triangular::new(
        Matrix::new(2, 2, &inf_t).unwrap(),
        Uplo::Lower,
        Diag::NonUnit,
    )
    .unwrap();
    let r = blocked_inverse_residual(
        Format::FP64,
        RNE,
        &BlockedInverseTrsv {
            system: t_inf,
            ..solve
        },
    );
    assert!(matches!(r, Err(VerifyError::NonFinite { .. })), "{r:?}");
}

/// The published forms returned `Ok` with a NaN value on non-finite input:
/// `higham_3_5_stored(.., computed = NaN)` (its caller
/// `higham_3_5_published` checks, the public function did not) and
/// `higham_3_5_depth(.., depth = 0, sum_abs = inf)` (`0 x inf`). Before the
/// fix: `Ok(NaN)` for both.
#[test]
fn the_published_forms_never_return_nan() {
    let (fp64, fp32) = (Format::FP64, Format::FP32);
    for computed in [f64::NAN, f64::INFINITY] {
        let r = higham_3_5_stored((fp64, RNE), (fp32, RNE), 3, 1.0, computed);
        assert!(
            matches!(r, Err(VerifyError::HypothesisNotMet { .. })),
            "computed {computed}: {r:?}"
        );
    }
    // Depth 0: no rounding at all, so no error, whatever the magnitudes.
    let b = higham_3_5_depth(fp64, RNE, 0, f64::INFINITY).unwrap();
    assert_eq!(b.value, 0.0);
    assert!(higham_3_5_depth(fp64, RNE, 0, f64::NAN).is_err());
}

/// The derivation of the residual bound takes an addition's underflow as
/// exact (Higham 2002, eq. (2.8)): true with subnormals only. In a binary32
/// without subnormals the update's subtraction `b_1 - fl(l_10 x_0)` can
/// round away up to `2^(emin-1)` more than the FMAs the bound counts:
/// `fl(l_10 x_0) = fl(33/64 2^emin) = 2^emin`, `v^_1 = fl(31/64 2^emin) = 0`,
/// while `v_1 = 62/64 2^emin`. With `l_11 = 2^-10` the bound's other terms
/// are small. Before the fix: `exact residual 0.96875 2^emin > rho
/// 0.5004885793023636 2^emin` (row 1).
#[test]
fn an_arithmetic_without_subnormals_is_refused_for_trsv() {
    let f = Format::custom(24, -126, 127, false, OverflowPolicy::Infinity).unwrap();
    let m = 2f64.powi(-126);
    let (l10, x0, l11) = (
        (1.0 + 2f64.powi(-5)) * 2f64.powi(-126 + 9),
        2f64.powi(-10),
        2f64.powi(-10),
    );
    let b1 = 95.0 / 64.0 * m;
    let a = [1.0, 0.0, l10, l11];
    let t = Triangular::new(Matrix::new(2, 2, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let b = [x0, b1];
    // Blocks of 1: x_0 = fl(1/1) b_0; v_1 = fl(b_1 - fma(l_10, x_0, 0)); x_1 = fl(2^10 v_1).
    let acc = f.fma(l10, x0, 0.0, RNE);
    let v1 = f.sub(b1, acc, RNE);
    assert_eq!((acc, v1), (m, 0.0));
    let y11 = 1.0 / l11;
    let x = [x0, f.fma(y11, v1, 0.0, RNE)];
    let (v, inverses) = ([x0, v1], vec![vec![1.0], vec![y11]]);
    let solve = BlockedInverseTrsv {
        system: t,
        b: &b,
        block: 1,
        inverses: &inverses,
        v_hat: &v,
        x_hat: &x,
        update_depths: &[0, 1],
        update_ops: &[0, 1],
        apply_depth: 1,
    };
    match blocked_inverse_residual(f, RNE, &solve) {
        Ok(rho) => {
            let exact = exact_residual(&t, &b, &x);
            for i in 0..2 {
                assert!(
                    exact[i] <= rho[i],
                    "row {i}: exact residual {} 2^emin > rho {} 2^emin",
                    exact[i] / m,
                    rho[i] / m
                );
            }
        }
        Err(e) => assert!(matches!(e, VerifyError::HypothesisNotMet { .. }), "{e}"),
    }
    // The same system with subnormals: the subtraction is exact, and the
    // bound holds (it is not refused).
    let g = Format::FP32;
    let acc = g.fma(l10, x0, 0.0, RNE);
    let v1 = g.sub(b1, acc, RNE);
    let x = [x0, g.fma(y11, v1, 0.0, RNE)];
    let v = [x0, v1];
    let rho = blocked_inverse_residual(
        g,
        RNE,
        &BlockedInverseTrsv {
            v_hat: &v,
            x_hat: &x,
            ..solve
        },
    )
    .unwrap();
    let exact = exact_residual(&t, &b, &x);
    assert!((0..2).all(|i| exact[i] <= rho[i]), "{exact:?} {rho:?}");
}
