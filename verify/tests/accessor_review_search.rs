//! Adversarial searches of the `bounds::accessor` bounds against exact
//! references (review, 2026-11-29), in small formats where rounding,
//! underflow and overflow are frequent, in all four rounding modes, with and
//! without subnormals, and with saturating overflow. Fixed seeds, printed.
//!
//! - The TRSV residual bound against the exact residual (`oracle::trsv::residual`)
//!   of an independent blocked solve (warp-like lanes and a tree for the update,
//!   `ways` interleaved chains for the product with the inverse). Before the
//!   fixes of 2026-11-29 it failed at seed 0 (4-bit format, round toward zero,
//!   row 6: exact 0.3359375 > rho 8.88790289560954e-2); a wider scratch run
//!   found violations in all three directed modes and with saturation, every
//!   one with an overflow rounded to the largest finite number, none in
//!   round to nearest (`accessor_review_edges.rs`).
//! - The forward bound against the exact solution of the system as given.
//! - `rigorous_accumulation` for FMA chains and trees with exact and inexact
//!   products, underflow and all modes.
//! - `products_exact` against brute force over every pair of small formats.
//! - `StoreModel::float` against `Format::round`.

use boundgate_verify::bounds::accessor::{
    Accumulation, BlockedInverseTrsv, StoreModel, blocked_inverse_forward,
    blocked_inverse_residual, ceil_log2, fma_chain_underflow_free, higham_3_5_depth,
    products_exact, rigorous_accumulation,
};
use boundgate_verify::bounds::directed::{add_up, mul_up};
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use boundgate_verify::oracle::trsv::{Triangular, residual, solution_errors};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::{Float, Rational};

mod common;
use common::exact::q;
use common::trsv::{ByPosition, shapes, tree_dot, triangular};

const RNE: RoundingMode = RoundingMode::NearestEven;
const MODES: [RoundingMode; 4] = [
    RoundingMode::NearestEven,
    RoundingMode::Up,
    RoundingMode::Down,
    RoundingMode::TowardZero,
];

fn custom(p: u32, emin: i32, emax: i32, subnormals: bool, overflow: OverflowPolicy) -> Format {
    Format::custom(p, emin, emax, subnormals, overflow).unwrap()
}

/// The order of one blocked solve: block size, chains of the product with
/// the inverse, lanes of the update (chains summed by a halving tree).
#[derive(Clone, Copy, Debug)]
struct Order {
    nb: usize,
    ways: usize,
    lanes: usize,
}

impl Order {
    /// A random order: blocks of 1 to 4, 1 to 3 chains (at most the block),
    /// 1 to 4 lanes.
    fn random(rng: &mut ChaCha8Rng) -> Order {
        let nb = rng.random_range(1..5usize);
        Order {
            nb,
            ways: rng.random_range(1..=nb.min(3)),
            lanes: rng.random_range(1..5usize),
        }
    }
}

/// The depth of [`tree_dot`] over `m` terms.
fn tree_depth(lanes: usize, m: usize) -> u64 {
    m.div_ceil(lanes) as u64 + ceil_log2(lanes.min(m))
}

/// The blocked solve with inverted diagonal blocks, written independently
/// of the kernels: (inverses, v, x) by position.
#[allow(clippy::type_complexity)]
fn blocked_solve(
    t: &Triangular<'_>,
    b: &[f64],
    order: Order,
    f: Format,
    mode: RoundingMode,
) -> (Vec<Vec<f64>>, Vec<f64>, Vec<f64>) {
    let n = t.n();
    let by = ByPosition::new(t);
    let div = |a: f64, b: f64| f.round_float(&(Float::with_val(300, a) / b), mode);
    let (mut inverses, mut v, mut x) = (Vec::new(), vec![0.0; n], vec![0.0; n]);
    let mut s = 0;
    while s < n {
        let m = order.nb.min(n - s);
        let y = by.inverse_block((s, m), (f, mode), div);
        for p in s..s + m {
            v[p] = if s == 0 {
                b[by.row(p)]
            } else {
                let terms: Vec<(f64, f64)> = (0..s).map(|q| (by.entry(p, q), x[q])).collect();
                f.sub(b[by.row(p)], tree_dot(f, mode, order.lanes, &terms), mode)
            };
        }
        for r in 0..m {
            let terms: Vec<(f64, f64)> = (0..=r).map(|c| (y[r * m + c], v[s + c])).collect();
            x[s + r] = tree_dot(f, mode, order.ways, &terms);
        }
        inverses.push(y);
        s += order.nb;
    }
    (inverses, v, x)
}

/// Runs the blocked solve and hands its record to `judge` (with `x^` by row).
fn with_record<R>(
    t: Triangular<'_>,
    b: &[f64],
    order: Order,
    (f, mode): (Format, RoundingMode),
    judge: impl FnOnce(&BlockedInverseTrsv<'_>) -> R,
) -> R {
    let n = t.n();
    let (inverses, v, x_pos) = blocked_solve(&t, b, order, f, mode);
    let x = ByPosition::new(&t).by_row(&x_pos);
    let blocks = n.div_ceil(order.nb);
    let depths: Vec<u64> = (0..blocks)
        .map(|k| {
            if k == 0 {
                0
            } else {
                tree_depth(order.lanes, k * order.nb)
            }
        })
        .collect();
    let ops: Vec<u64> = (0..blocks).map(|k| (k * order.nb) as u64).collect();
    judge(&BlockedInverseTrsv {
        system: t,
        b,
        block: order.nb,
        inverses: &inverses,
        v_hat: &v,
        x_hat: &x,
        update_depths: &depths,
        update_ops: &ops,
        apply_depth: tree_depth(order.ways, order.nb),
    })
}

/// The residual bound holds wherever it is given: in every mode, with and
/// without subnormals and saturation (where it is refused since 2026-11-29),
/// for data spread over the whole range (overflow) or near the underflow
/// threshold, zeros included.
#[test]
fn trsv_residual_bound_holds_wherever_it_is_given() {
    let formats = [
        custom(4, -6, 6, true, OverflowPolicy::Infinity),
        custom(6, -10, 10, true, OverflowPolicy::Infinity),
        Format::BF16,
        custom(4, -6, 6, false, OverflowPolicy::Infinity),
        custom(6, -10, 10, true, OverflowPolicy::Saturate),
    ];
    let (mut judged, mut refused) = (0u64, 0u64);
    let mut worst = 0.0f64;
    for seed in 0..1000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let near_underflow = seed % 2 == 1;
        for f in formats {
            for mode in MODES {
                let n = rng.random_range(1..10usize);
                let order = Order::random(&mut rng);
                let (lo, hi) = if near_underflow {
                    (f.emin() - 2, f.emin() + 3)
                } else {
                    (f.emin() - f.precision() as i32 - 2, 2)
                };
                let val = |rng: &mut ChaCha8Rng| {
                    f.round(
                        rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(lo..=hi)),
                        mode,
                    )
                };
                let mut a: Vec<f64> = (0..n * n).map(|_| val(&mut rng)).collect();
                if rng.random_range(0..3) == 0 {
                    for v in a.iter_mut() {
                        if rng.random_range(0..3) == 0 {
                            *v = 0.0;
                        }
                    }
                }
                for i in 0..n {
                    if a[i * n + i] == 0.0 {
                        a[i * n + i] = 1.0;
                    }
                }
                let b: Vec<f64> = (0..n).map(|_| val(&mut rng)).collect();
                for (uplo, diag) in shapes() {
                    let t = triangular(&a, n, uplo, diag);
                    with_record(t, &b, order, (f, mode), |record| {
                        let Ok(rho) = blocked_inverse_residual(f, mode, record) else {
                            refused += 1;
                            return;
                        };
                        let r = residual(&t, &b, record.x_hat).unwrap();
                        for i in 0..n {
                            let exact = r[i].to_float().unwrap().abs();
                            judged += 1;
                            if rho[i] > 0.0 {
                                worst = worst.max(exact.to_f64() / rho[i]);
                            }
                            assert!(
                                exact <= rho[i],
                                "seed {seed} {f:?} {mode:?} n={n} {order:?} {uplo:?} {diag:?} row {i}: \
                                 {} > {:e}\n a = {a:?}\n b = {b:?}",
                                exact.to_f64(),
                                rho[i]
                            );
                        }
                    });
                }
            }
        }
    }
    println!(
        "residual: {judged} rows judged, {refused} solves refused, worst exact / bound {worst}"
    );
    assert!(judged > 20_000, "{judged}");
}

/// The forward bound w.r.t. the system as given (binary64 data stored in a
/// small format), before and after the store of `x^`.
#[test]
fn trsv_forward_bound_holds_against_the_exact_solution() {
    let pairs = [
        (Format::FP16, Format::FP32),
        (Format::BF16, Format::FP32),
        (
            custom(4, -6, 6, true, OverflowPolicy::Infinity),
            custom(9, -14, 14, true, OverflowPolicy::Infinity),
        ),
        (Format::FP32, Format::FP64),
    ];
    let (mut judged, mut worst) = (0u64, 0.0f64);
    for seed in 0..200u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (s, f) in pairs {
            let n = rng.random_range(1..9usize);
            let order = Order::random(&mut rng);
            let mut a: Vec<f64> = (0..n * n)
                .map(|_| rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-6..3)))
                .collect();
            for i in 0..n {
                a[i * n + i] = a[i * n + i].signum() * (0.5 + a[i * n + i].abs());
            }
            let b: Vec<f64> = (0..n)
                .map(|_| rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-8..3)))
                .collect();
            let a_s: Vec<f64> = a.iter().map(|v| s.round(*v, RNE)).collect();
            let b_s: Vec<f64> = b.iter().map(|v| s.round(*v, RNE)).collect();
            for (uplo, diag) in shapes() {
                let t = triangular(&a_s, n, uplo, diag);
                let given = triangular(&a, n, uplo, diag);
                if (0..n).any(|i| t.diagonal(i) == 0.0) {
                    continue;
                }
                with_record(t, &b_s, order, (f, RNE), |record| {
                    for store in [false, true] {
                        let model = StoreModel::float(s, RNE);
                        let Ok(bounds) = blocked_inverse_forward(
                            f,
                            RNE,
                            &given,
                            &b,
                            record,
                            store.then_some(&model),
                        ) else {
                            continue;
                        };
                        let out: Vec<f64> = record
                            .x_hat
                            .iter()
                            .map(|v| if store { s.round(*v, RNE) } else { *v })
                            .collect();
                        let Ok(errors) = solution_errors(&given, &b, &out) else {
                            continue; // a stored x^ that overflowed: no bound was claimed
                        };
                        for (i, (error, &bound)) in errors.iter().zip(bounds.values()).enumerate() {
                            let Some(e) = error.absolute_up() else {
                                continue;
                            };
                            judged += 1;
                            if bound.is_finite() && bound > 0.0 {
                                worst = worst.max(e / bound);
                            }
                            assert!(
                                e <= bound,
                                "seed {seed} {s:?}/{f:?} n={n} {order:?} {uplo:?} {diag:?} store={store} \
                                 x[{i}]: {e:e} > {bound:e}"
                            );
                        }
                    }
                });
            }
        }
    }
    println!("forward: {judged} components judged, worst error / bound {worst}");
    assert!(judged > 10_000, "{judged}");
}

/// `rigorous_accumulation` for chains summed by a tree: eta weight 0 where
/// [`fma_chain_underflow_free`] holds (and then the published form holds
/// too), the number of FMAs with subnormals, every operation without.
#[test]
fn accumulation_bound_holds_for_chains_and_trees_in_every_mode() {
    let pairs = [
        (
            custom(3, -2, 3, true, OverflowPolicy::Infinity),
            custom(6, -6, 10, true, OverflowPolicy::Infinity),
        ),
        (
            custom(3, -2, 3, true, OverflowPolicy::Infinity),
            custom(5, -4, 10, true, OverflowPolicy::Infinity),
        ),
        (
            custom(3, -2, 3, true, OverflowPolicy::Infinity),
            custom(6, -6, 10, false, OverflowPolicy::Infinity),
        ),
        (Format::BF16, Format::FP32),
        (Format::FP16, Format::FP32),
        (
            custom(4, -3, 4, false, OverflowPolicy::Infinity),
            custom(8, -7, 12, true, OverflowPolicy::Infinity),
        ),
    ];
    let (mut judged, mut worst) = (0u64, 0.0f64);
    for seed in 0..2000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (s, a) in pairs {
            for mode in MODES {
                let n = rng.random_range(1..40usize);
                let lanes = rng.random_range(1..9usize);
                let lo = s.emin() - s.precision() as i32 - 1;
                let hi = if seed % 2 == 0 {
                    s.emin() + 2
                } else {
                    s.emax()
                };
                let val = |rng: &mut ChaCha8Rng| {
                    s.round(
                        rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(lo..=hi)),
                        RNE,
                    )
                };
                let terms: Vec<(f64, f64)> =
                    (0..n).map(|_| (val(&mut rng), val(&mut rng))).collect();
                let computed = tree_dot(a, mode, lanes, &terms);
                if !computed.is_finite() {
                    continue;
                }
                let depth = tree_depth(lanes, n);
                let sum_abs = terms
                    .iter()
                    .fold(0.0, |t, (x, y)| add_up(t, mul_up(x.abs(), y.abs())));
                let adds = lanes.min(n) - 1;
                let eta_weight = if fma_chain_underflow_free(s, a) {
                    0.0
                } else if a.has_subnormals() {
                    n as f64
                } else {
                    (n + adds) as f64
                };
                let acc = Accumulation {
                    depth,
                    sum_abs,
                    eta_weight,
                    inner: None,
                };
                let Ok(bound) = rigorous_accumulation(a, mode, &acc) else {
                    continue;
                };
                let exact: Rational = terms.iter().map(|(x, y)| q(*x) * q(*y)).sum();
                let err = (q(computed) - &exact).abs();
                judged += 1;
                if bound.value > 0.0 {
                    worst = worst.max(err.to_f64() / bound.value);
                }
                let at = format!("seed {seed} {s:?}/{a:?} {mode:?} n={n} lanes={lanes}");
                assert!(
                    err <= q(bound.value),
                    "{at}: {} > {:e}",
                    err.to_f64(),
                    bound.value
                );
                if fma_chain_underflow_free(s, a) {
                    let published = higham_3_5_depth(a, mode, depth, sum_abs).unwrap();
                    assert!(err <= q(published.value), "{at}: published");
                }
            }
        }
    }
    println!("accumulation: {judged} sums judged, worst error / bound {worst}");
    assert!(judged > 30_000, "{judged}");
}

/// Every number of a small format.
fn all_values(f: Format) -> Vec<f64> {
    let p = f.precision() as i32;
    let mut v = vec![0.0];
    for e in f.emin()..=f.emax() {
        for m in (1u64 << (p - 1))..(1u64 << p) {
            let x = m as f64 * 2f64.powi(e - p + 1);
            v.extend([x, -x]);
        }
    }
    if f.has_subnormals() {
        for m in 1..(1u64 << (p - 1)) {
            let x = m as f64 * 2f64.powi(f.emin() - p + 1);
            v.extend([x, -x]);
        }
    }
    v
}

/// `products_exact` equals the truth (every product of two storage numbers
/// is an arithmetic number) on 1260 pairs of small formats.
#[test]
fn products_exact_equals_brute_force_on_small_formats() {
    let mut pairs = 0;
    for ps in 2..5u32 {
        for (emin, emax) in [(-2, 3), (-4, 4), (-1, 2)] {
            for subnormals in [true, false] {
                let s = custom(ps, emin, emax, subnormals, OverflowPolicy::Infinity);
                let values = all_values(s);
                for pa in 3..10u32 {
                    for (amin, amax) in [(-3, 8), (-6, 10), (-8, 6), (-12, 12), (-2, 12)] {
                        for asub in [true, false] {
                            let a = custom(pa, amin, amax, asub, OverflowPolicy::Infinity);
                            let truth = values
                                .iter()
                                .all(|x| values.iter().all(|y| a.is_representable(x * y)));
                            assert_eq!(products_exact(s, a), truth, "{s:?} x {s:?} in {a:?}");
                            pairs += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(pairs, 1260);
}

/// `StoreModel::float` bounds every store below its `max`, in every mode,
/// with and without subnormals, saturating formats and fp8 included.
#[test]
fn the_float_store_model_bounds_every_rounding() {
    let seed = 0x5707e;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let formats = [
        custom(3, -2, 3, true, OverflowPolicy::Infinity),
        custom(3, -2, 3, false, OverflowPolicy::Infinity),
        Format::FP16,
        Format::BF16,
        Format::E4M3,
        Format::E5M2,
        Format::FP16.without_subnormals(),
        custom(4, -3, 4, true, OverflowPolicy::Saturate),
    ];
    for f in formats {
        for mode in MODES {
            let model = StoreModel::float(f, mode);
            let (lo, hi) = (f.emin() - f.precision() as i32 - 3, f.emax() + 1);
            for _ in 0..50_000 {
                let v = rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(lo..=hi));
                if let Some(bound) = model.error_up(v) {
                    let stored = f.round(v, mode);
                    assert!(
                        (stored - v).abs() <= bound,
                        "{f:?} {mode:?} v = {v:e}: {stored:e}"
                    );
                }
            }
        }
    }
}
