//! The triangular-solve oracle and the accessor bounds against independent
//! references: MPFR for residuals, exact rational arithmetic (`rug::Rational`)
//! for solutions, backward errors and `|T^{-1}|`, and an independent
//! implementation of the blocked solve with inverted diagonal blocks for the
//! residual bound. Fixed seeds, printed.

use boundgate_verify::bounds::accessor::{
    Accumulation, BlockedInverseTrsv, StoreModel, after_store, blocked_inverse_normwise_backward,
    blocked_inverse_residual, ceil_log2, products_exact, rigorous_accumulation,
};
use boundgate_verify::bounds::dot::abs_dot_up;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::trsv::{
    Diag, InverseBound, Triangular, Uplo, backward_error, residual, solution_errors,
    solution_errors_within, solve_exact, solve_exact_rational,
};
use boundgate_verify::oracle::{Matrix, mpfr};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::{Float, Rational};

mod common;
use common::exact::q;
use common::trsv::{ByPosition, assert_exact_solves_agree, shapes, tree_dot};

const RNE: RoundingMode = RoundingMode::NearestEven;

fn nearest(r: &Rational) -> f64 {
    Float::with_val(53, r).to_f64()
}

/// A random triangular system of order n in fp32 values: `kind` 0 = diagonally
/// weighted, 1 = random entries (ill-conditioned), 2 = unit diagonal with small
/// off-diagonal entries.
fn system(rng: &mut ChaCha8Rng, n: usize, kind: usize) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let v: f64 = rng.random_range(-1.0..1.0);
            a[i * n + j] = Format::FP32.round(
                match (kind, i == j) {
                    (0, true) => v.signum() * (1.0 + v.abs()),
                    (0, false) => v / n as f64,
                    (2, false) => v / 4.0,
                    _ => v,
                },
                RNE,
            );
        }
    }
    a
}

#[test]
fn residuals_equal_mpfr() {
    let seed = 0x7e51d;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [1, 5, 40] {
        let a = system(&mut rng, n, 1);
        let b: Vec<f64> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let x: Vec<f64> = (0..n)
            .map(|_| rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-60..60)))
            .collect();
        for (uplo, diag) in shapes() {
            let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
            let r = residual(&t, &b, &x).unwrap();
            for i in 0..n {
                // b_i - sum_j t_ij x_j over the triangle, as one MPFR dot product.
                let mut f = vec![b[i]];
                let mut g = vec![1.0];
                for j in 0..n {
                    let inside = match uplo {
                        Uplo::Lower => j < i,
                        Uplo::Upper => j > i,
                    };
                    if inside {
                        f.push(a[i * n + j]);
                        g.push(-x[j]);
                    }
                }
                f.push(t.diagonal(i));
                g.push(-x[i]);
                let m = mpfr::dot(&f, &g).unwrap();
                assert_eq!(
                    r[i].to_float().unwrap(),
                    *m.exact().unwrap(),
                    "n={n} {uplo:?} {diag:?} row {i}"
                );
            }
        }
    }
}

#[test]
fn forward_error_enclosures_contain_the_exact_error_and_are_tight() {
    let seed = 0x5011;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tight = 0;
    for n in [1, 2, 7, 20, 40] {
        for kind in 0..3 {
            let a = system(&mut rng, n, kind);
            let b: Vec<f64> = (0..n)
                .map(|_| Format::FP32.round(rng.random_range(-1.0..1.0), RNE))
                .collect();
            for (uplo, diag) in shapes() {
                let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
                let exact = solve_exact_rational(&t, &b).unwrap();
                // A computed solution: the exact one rounded to fp32, perturbed.
                let x_hat: Vec<f64> = exact
                    .iter()
                    .map(|x| {
                        Format::FP32.round(nearest(x), RNE) * (1.0 + rng.random_range(-1e-6..1e-6))
                    })
                    .collect();
                let e = solution_errors(&t, &b, &x_hat).unwrap();
                for i in 0..n {
                    let err = (q(x_hat[i]) - &exact[i]).abs();
                    let up = e[i].absolute_up().unwrap();
                    assert!(
                        err <= q(up),
                        "n={n} kind={kind} {uplo:?} {diag:?} x[{i}]: {} > {up:e}",
                        err.to_f64()
                    );
                    if err.to_f64() > 0.0 && up <= err.to_f64() * (1.0 + 1e-12) {
                        tight += 1;
                    }
                    if kind != 1 {
                        // Well conditioned: the enclosure pins x down to its nearest f64.
                        assert_eq!(e[i].exact(), nearest(&exact[i]), "n={n} kind={kind} x[{i}]");
                        if let Some(rel) = e[i].relative_up() {
                            assert!(q(rel) * exact[i].clone().abs() >= err);
                        }
                    }
                }
            }
        }
    }
    assert!(tight > 200, "{tight} tight enclosures");
}

#[test]
fn backward_errors_are_rounded_up_from_the_exact_ones() {
    let seed = 0xbac4;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [1, 9, 33] {
        let a = system(&mut rng, n, 0);
        let b: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        for (uplo, diag) in shapes() {
            let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
            let exact = solve_exact_rational(&t, &b).unwrap();
            let x_hat: Vec<f64> = exact
                .iter()
                .map(|x| Format::FP32.round(nearest(x), RNE))
                .collect();
            let be = backward_error(&t, &b, &x_hat).unwrap();
            let r = residual(&t, &b, &x_hat).unwrap();
            let mut omega = Rational::new();
            let mut r_norm = Rational::new();
            for i in 0..n {
                let ri = r[i].to_float().unwrap().to_rational().unwrap().abs();
                let (start, off) = t.off_diagonal(i);
                let mut d = q(t.diagonal(i)).abs() * q(x_hat[i]).abs();
                for (k, tij) in off.iter().enumerate() {
                    d += q(*tij).abs() * q(x_hat[start + k]).abs();
                }
                if d != 0 && ri.clone() / &d > omega {
                    omega = ri.clone() / d;
                }
                if ri > r_norm {
                    r_norm = ri;
                }
            }
            assert!(q(be.componentwise) >= omega, "{uplo:?} {diag:?} n={n}");
            assert!(q(be.componentwise) <= omega.clone() * q(1.000_001) + q(1e-300));
            assert!(q(be.residual_inf) >= r_norm);
        }
    }
}

#[test]
fn inverse_bounds_dominate_the_exact_absolute_inverse() {
    let seed = 0x1a7;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [1, 6, 30] {
        for kind in 0..3 {
            let a = system(&mut rng, n, kind);
            for (uplo, diag) in shapes() {
                let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
                // |T^{-1}| column by column, exactly.
                let columns: Vec<Vec<Rational>> = (0..n)
                    .map(|j| {
                        let e: Vec<f64> = (0..n).map(|i| f64::from(u8::from(i == j))).collect();
                        solve_exact_rational(&t, &e).unwrap()
                    })
                    .collect();
                let v: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
                let bound = InverseBound::new(t).unwrap();
                let z = bound.apply_up(&v).unwrap();
                for i in 0..n {
                    let exact: Rational =
                        (0..n).map(|j| columns[j][i].clone().abs() * q(v[j])).sum();
                    assert!(
                        q(z[i]) >= exact,
                        "n={n} kind={kind} {uplo:?} {diag:?} row {i}"
                    );
                    if kind == 0 {
                        // Well conditioned: the approximate inverse makes it tight.
                        assert!(
                            q(z[i]) <= exact * Rational::from_f64(1.0 + 1e-9).unwrap() + q(1e-300)
                        );
                    }
                }
            }
        }
    }
}

/// The blocked solve with inverted diagonal blocks, written independently of
/// the kernels (recursive sums instead of warp trees, so the update depth is
/// the number of terms), the product with each inverse over `ways`
/// interleaved FMA chains summed pairwise (chain `w` takes the columns
/// `c = w mod ways`): returns (inverses, v, x) by position.
#[allow(clippy::type_complexity)]
fn blocked_solve(
    t: &Triangular<'_>,
    b: &[f64],
    (nb, ways): (usize, usize),
    f: Format,
) -> (Vec<Vec<f64>>, Vec<f64>, Vec<f64>) {
    let n = t.n();
    let by = ByPosition::new(t);
    let (mut inverses, mut v, mut x) = (Vec::new(), vec![0.0; n], vec![0.0; n]);
    let mut s = 0;
    while s < n {
        let m = nb.min(n - s);
        let y = by.inverse_block((s, m), (f, RNE), |a, d| {
            f.round_float(&(Float::with_val(200, a) / d), RNE)
        });
        for p in s..s + m {
            let acc = x[..s]
                .iter()
                .enumerate()
                .fold(0.0, |acc, (qq, xq)| f.fma(by.entry(p, qq), *xq, acc, RNE));
            v[p] = f.sub(b[by.row(p)], acc, RNE);
        }
        for r in 0..m {
            let terms: Vec<(f64, f64)> = (0..=r).map(|c| (y[r * m + c], v[s + c])).collect();
            x[s + r] = tree_dot(f, RNE, ways, &terms);
        }
        inverses.push(y);
        s += nb;
    }
    (inverses, v, x)
}

#[test]
fn blocked_inverse_residual_bounds_the_exact_residual() {
    let seed = 0xb10c;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for f in [Format::FP64, Format::FP32, Format::BF16] {
        for n in [1, 4, 9, 23] {
            for kind in 0..3 {
                let a = system(&mut rng, n, kind);
                let a: Vec<f64> = a.iter().map(|v| Format::BF16.round(*v, RNE)).collect();
                let b: Vec<f64> = (0..n)
                    .map(|_| Format::BF16.round(rng.random_range(-1.0..1.0), RNE))
                    .collect();
                let with_ways = shapes()
                    .into_iter()
                    .flat_map(|shape| (1..=4).map(move |ways| (shape, ways)));
                for ((uplo, diag), ways) in with_ways {
                    let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
                    let nb = 4;
                    let (inverses, v, x_pos) = blocked_solve(&t, &b, (nb, ways), f);
                    let x = ByPosition::new(&t).by_row(&x_pos);
                    if x.iter().any(|v| !v.is_finite()) {
                        continue;
                    }
                    let blocks = n.div_ceil(nb);
                    let depths: Vec<u64> = (0..blocks).map(|k| (k * nb) as u64).collect();
                    let record = BlockedInverseTrsv {
                        system: t,
                        b: &b,
                        block: nb,
                        inverses: &inverses,
                        v_hat: &v,
                        x_hat: &x,
                        update_depths: &depths,
                        update_ops: &depths,
                        // ceil(nb / ways) FMAs and ceil(log2 min(nb, ways)) adds.
                        apply_depth: nb.div_ceil(ways) as u64 + ceil_log2(ways.min(nb)),
                    };
                    let Ok(rho) = blocked_inverse_residual(f, RNE, &record) else {
                        continue; // depth u >= 1 in bf16
                    };
                    let r = residual(&t, &b, &x).unwrap();
                    for i in 0..n {
                        let exact = r[i].to_float().unwrap().abs();
                        assert!(
                            exact <= rho[i],
                            "{f} n={n} kind={kind} {uplo:?} {diag:?} ways={ways} row {i}: {} > {:e}",
                            exact.to_f64(),
                            rho[i]
                        );
                    }
                    // The normwise backward error (exact, rounded up by the
                    // oracle) never exceeds the a-posteriori bound from rho.
                    let bound = blocked_inverse_normwise_backward(f, RNE, &record).unwrap();
                    let be = backward_error(&t, &b, &x).unwrap();
                    assert!(
                        be.normwise_inf <= bound.value,
                        "{f} n={n} kind={kind} {uplo:?} {diag:?}: normwise backward error {:e} > bound {:e}",
                        be.normwise_inf,
                        bound.value
                    );
                }
            }
        }
    }
}

#[test]
fn accumulation_bounds_hold_for_tree_sums_with_exact_products() {
    // fp16 values, fp32 arithmetic (products exact): a 32-lane warp tree of FMA
    // chains, compared exactly with the bound for its depth and eta weight 0.
    let seed = 0xacc;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    assert!(products_exact(Format::FP16, Format::FP32));
    for n in [1, 31, 64, 500] {
        for spread in [2, 14] {
            let vals = |rng: &mut ChaCha8Rng| -> Vec<f64> {
                (0..n)
                    .map(|_| {
                        Format::FP16.round(
                            rng.random_range(-1.0..1.0)
                                * 2f64.powi(rng.random_range(-spread..=spread)),
                            RNE,
                        )
                    })
                    .collect()
            };
            let (x, y) = (vals(&mut rng), vals(&mut rng));
            let f = Format::FP32;
            let mut lanes = [0.0f64; 32];
            for k in 0..n {
                lanes[k % 32] = f.fma(x[k], y[k], lanes[k % 32], RNE);
            }
            let mut off = 16;
            while off > 0 {
                for l in 0..off {
                    lanes[l] = f.add(lanes[l], lanes[l + off], RNE);
                }
                off /= 2;
            }
            let depth = n.div_ceil(32) as u64 + ceil_log2(n.min(32));
            let s = abs_dot_up(&x, &y).unwrap();
            let bound = rigorous_accumulation(
                f,
                RNE,
                &Accumulation {
                    depth,
                    sum_abs: s,
                    eta_weight: 0.0,
                    inner: None,
                },
            )
            .unwrap();
            let exact: Rational = x.iter().zip(&y).map(|(a, b)| q(*a) * q(*b)).sum();
            let err = (q(lanes[0]) - &exact).abs();
            assert!(err <= q(bound.value), "n={n} spread={spread}");
            // And after a store to fp16.
            let stored = Format::FP16.round(lanes[0], RNE);
            match after_store(&bound, &StoreModel::float(Format::FP16, RNE), lanes[0]) {
                Ok(after) => assert!((q(stored) - &exact).abs() <= q(after.value)),
                // Beyond fp16's range the store overflows: refused, never a number.
                Err(_) => assert!(lanes[0].abs() > Format::FP16.max_finite()),
            }
        }
    }
}

#[test]
fn products_of_fp16_numbers_are_exact_in_fp32_and_bf16_ones_are_not() {
    let seed = 0xf16;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let random = |rng: &mut ChaCha8Rng, f: Format| -> f64 {
        let bits: u64 = rng.random_range(0..1u64 << 16);
        f.decode(bits).unwrap()
    };
    for _ in 0..200_000 {
        let (a, b) = (
            random(&mut rng, Format::FP16),
            random(&mut rng, Format::FP16),
        );
        if a.is_finite() && b.is_finite() {
            assert_eq!(q(Format::FP32.mul(a, b, RNE)), q(a) * q(b), "{a} * {b}");
        }
    }
    // bf16's smallest numbers: their product underflows fp32.
    let tiny = Format::BF16.min_positive();
    assert_eq!(Format::FP32.mul(tiny, tiny, RNE), 0.0);
    assert!(!products_exact(Format::BF16, Format::FP32));
}

/// Where the refinement cannot reach a tight enclosure (here an exact
/// component just above half the smallest subnormal, 2^-1075 (1 + e)), a small
/// system is solved exactly: the error is exact and the exact value is the
/// correctly rounded one, 2^-1074 (rounding the rational to 53 bits first and
/// then to f64 gave 0). Found by review, 2026-11-25.
#[test]
fn an_exact_solution_in_the_subnormal_range_is_rounded_once() {
    let a = [3.0, 0.0, -2f64.powi(-1070), 2f64.powi(100)];
    let t = Triangular::new(Matrix::new(2, 2, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let b = [1.0, 2f64.powi(-975)];
    let e = solution_errors(&t, &b, &[1.0 / 3.0, 0.0]).unwrap();
    assert_eq!(e[1].exact().to_bits(), 1, "{:?}", e[1]);
    // |0 - x_1| = 2^-1075 (1 + e) rounded up: the smallest subnormal.
    assert_eq!(e[1].absolute_up(), Some(f64::from_bits(1)));
    let exact = solve_exact_rational(&t, &b).unwrap();
    assert!(exact[1] > Rational::from_f64(2f64.powi(-1075)).unwrap());
}

/// Without the exact solve (a budget of 0), a component whose correction
/// overflows f64 (x_0 = 1e600 here) no longer stops the others from refining:
/// the substitution zeroes it as it is solved, so the components solved after
/// it stay finite. Every other component's error is then tight (against the
/// exact rational solution), and component 0, whose enclosure has no finite
/// radius, is left unjudged (exact NaN) instead of getting an infinite error.
/// The reviewer's case, 2026-11-25 (before: enclosures up to 3.5e6 times the
/// error). Within the default budget the same system is solved exactly, and
/// component 0's error is judged too: non-finite, as its exact value is beyond
/// f64.
#[test]
fn an_overflowing_correction_leaves_the_other_components_tight() {
    let n = 130;
    let mut rng = ChaCha8Rng::seed_from_u64(0x7e_5001);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 1..i {
            a[i * n + j] = rng.random_range(-1.0..1.0);
        }
        a[i * n + i] = 4.0 + rng.random_range(0.0..1.0);
    }
    a[0] = 1e-300;
    let b: Vec<f64> = (0..n)
        .map(|i| {
            if i == 0 {
                1e300
            } else {
                rng.random_range(-1.0..1.0)
            }
        })
        .collect();
    let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let exact = solve_exact_rational(&t, &b).unwrap();
    // x^: the exact solution rounded to fp32 (x_0 = 1e600 as 0), so every
    // component has an error to enclose.
    let x_hat: Vec<f64> = exact
        .iter()
        .map(|x| {
            let v = Float::with_val(24, x).to_f64() as f32 as f64;
            if v.is_finite() { v } else { 0.0 }
        })
        .collect();
    let e = solution_errors_within(&t, &b, &x_hat, 0.0).unwrap();
    assert!(e[0].exact().is_nan(), "{:?}", e[0]);
    let solved = solution_errors(&t, &b, &x_hat).unwrap();
    assert_eq!(solved[0].exact(), f64::INFINITY, "{:?}", solved[0]);
    for i in 1..n {
        let true_error = (Rational::from_f64(x_hat[i]).unwrap() - &exact[i]).abs();
        let true_error = Float::with_val(53, &true_error).to_f64();
        let enclosed = e[i].absolute_up().unwrap();
        assert!(
            enclosed >= true_error && enclosed <= true_error * (1.0 + 1e-9) + 1e-300,
            "component {i}: {enclosed:e} vs {true_error:e}"
        );
    }
}

/// A value spanning f64's whole range: zeros, subnormals, values near the
/// overflow threshold and ordinary ones, of either sign.
fn wide_value(rng: &mut ChaCha8Rng) -> f64 {
    let sign = if rng.random_range(0..2) == 0 {
        1.0
    } else {
        -1.0
    };
    sign * match rng.random_range(0..6) {
        0 => 0.0,
        1 => f64::from_bits(rng.random_range(1..1u64 << 52)),
        2 => rng.random_range(1.0..2.0) * 2f64.powi(rng.random_range(-1074..1000)),
        3 => rng.random_range(1.0..2.0) * 2f64.powi(1023),
        _ => rng.random_range(-1.0..1.0),
    }
}

/// The fraction-free integer solve is the rational one, exactly, for every
/// shape, on systems whose rows span f64's range (subnormals, zeros, values
/// near overflow; row scaling by powers of two must not change `x`).
#[test]
fn the_fraction_free_solve_equals_the_rational_one() {
    let seed = 0xf4ee;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..120 {
        let n = 1 + case % 12;
        let wide = case % 3 == 0;
        let mut a = system(&mut rng, n, case % 3);
        let mut b: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        if wide {
            a.iter_mut().for_each(|v| *v = wide_value(&mut rng));
            b.iter_mut().for_each(|v| *v = wide_value(&mut rng));
            for i in 0..n {
                if a[i * n + i] == 0.0 {
                    a[i * n + i] = 2f64.powi(-1074);
                }
            }
        }
        for (uplo, diag) in shapes() {
            let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), uplo, diag).unwrap();
            assert_exact_solves_agree(&t, &b, &format!("case {case}, n = {n}, {uplo:?} {diag:?}"));
        }
    }
}

/// Above the order the rational solve was limited to (128), a component
/// whose exact value is zero is now judged exactly: x_0 = 1/3 is never
/// reached by refinement in f64, so the enclosure of x_k = 0 (row k:
/// 3 x_0 + x_k = 1) keeps a radius that cannot fall below 2^-64 |x_k|, and
/// its upper end stays above the error; the exact solve gives x^_k's error,
/// 2^-60, exactly (before, order 300 kept the enclosure).
#[test]
fn an_exact_zero_above_order_128_is_judged_exactly() {
    let seed = 0x2e70;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (n, k) = (300, 250);
    let mut a = system(&mut rng, n, 0);
    let mut b: Vec<f64> = (0..n)
        .map(|_| Format::FP32.round(rng.random_range(-1.0..1.0), RNE))
        .collect();
    a[0] = 3.0;
    b[0] = 1.0;
    a[k * n..k * n + k].iter_mut().for_each(|v| *v = 0.0);
    a[k * n] = 3.0;
    a[k * n + k] = 1.0;
    b[k] = 1.0;
    let t = Triangular::new(Matrix::new(n, n, &a).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let exact = solve_exact(&t, &b).unwrap();
    assert_eq!(exact[k], 0);
    let mut x_hat: Vec<f64> = exact.iter().map(nearest).collect();
    x_hat[k] = 2f64.powi(-60);
    let enclosed = solution_errors_within(&t, &b, &x_hat, 0.0).unwrap();
    // The enclosure holds but is not exact.
    assert!(
        enclosed[k].absolute_up().unwrap() > 2f64.powi(-60),
        "{:?}",
        enclosed[k]
    );
    let e = solution_errors(&t, &b, &x_hat).unwrap();
    assert_eq!(e[k].exact(), 0.0);
    assert_eq!(e[k].absolute_up(), Some(2f64.powi(-60)));
    assert_eq!(e[k].relative_up(), None);
    for i in 0..n {
        let err = (q(x_hat[i]) - &exact[i]).abs();
        let up = e[i].absolute_up().unwrap();
        assert!(
            q(up) >= err && up <= nearest(&err) * (1.0 + 1e-15) + 1e-320,
            "component {i}"
        );
    }
}
