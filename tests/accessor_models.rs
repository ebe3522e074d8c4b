//! The CPU models of the accessor kernels follow the GPU kernels' order bit
//! for bit: each is compared here with the kernel written out thread by
//! thread, lane by lane, with explicit shuffles (as `kernels/accessor_blas.cu`
//! does it), in native `f32`/`f64` arithmetic. Also: writes round once, as the
//! checker's `Format::round` (itself tested against MPFR).

use boundgate::kernels::accessor::axpy::accessor_axpy;
use boundgate::kernels::accessor::gemv::{GemvOp, accessor_gemv};
use boundgate::kernels::accessor::sparse::CsrMatrix;
use boundgate::kernels::accessor::spmv::{SparseFormat, accessor_spmv};
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate::kernels::accessor::trsv::{accessor_trsv, accessor_trsv_ordered};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::Transpose;
use boundgate_verify::oracle::trsv::{Diag, Uplo};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RNE: RoundingMode = RoundingMode::NearestEven;

/// Native arithmetic, for the thread-by-thread versions.
trait Native: Copy + Default + PartialEq + std::fmt::Debug {
    fn of(v: f64) -> Self;
    fn f64(self) -> f64;
    fn fma(a: Self, b: Self, c: Self) -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
}
impl Native for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    fn div(a: f64, b: f64) -> f64 {
        a / b
    }
}
impl Native for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    fn add(a: f32, b: f32) -> f32 {
        a + b
    }
    fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    fn mul(a: f32, b: f32) -> f32 {
        a * b
    }
    fn div(a: f32, b: f32) -> f32 {
        a / b
    }
}

/// `__shfl_down_sync` tree over a warp: all 32 lanes add at once; a lane
/// beyond the warp reads its own value.
fn shuffle_tree<A: Native>(lanes: &mut [A; 32]) -> A {
    let mut off = 16;
    while off > 0 {
        let before = *lanes;
        for l in 0..32 {
            let other = if l + off < 32 {
                before[l + off]
            } else {
                before[l]
            };
            lanes[l] = A::add(before[l], other);
        }
        off /= 2;
    }
    lanes[0]
}

/// One warp computing a dot product: lane l strides the terms.
fn warp_by_lanes<A: Native>(len: usize, term: impl Fn(usize) -> (A, A)) -> A {
    let mut lanes = [A::default(); 32];
    for (l, lane) in lanes.iter_mut().enumerate() {
        let mut k = l;
        while k < len {
            let (a, b) = term(k);
            *lane = A::fma(a, b, *lane);
            k += 32;
        }
    }
    shuffle_tree(&mut lanes)
}

fn values(rng: &mut ChaCha8Rng, n: usize, spread: i32) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let m: f64 = rng.random_range(-1.0..1.0);
            Format::FP32.round(m * 2f64.powi(rng.random_range(-spread..=spread)), RNE)
        })
        .collect()
}

/// `kernels/accessor_blas.cu`'s `finish`: at `alpha = 0` the sum is not
/// used (BLAS leaves `A` and `x` unreferenced), at `beta = 0` neither is `y0`.
fn finish<A: Native>(s: A, alpha: f64, beta: f64, y0: f64) -> A {
    match (alpha == 0.0, beta == 0.0) {
        (true, true) => A::of(0.0),
        (true, false) => A::mul(A::of(beta), A::of(y0)),
        (false, true) => A::mul(A::of(alpha), s),
        (false, false) => A::fma(A::of(alpha), s, A::mul(A::of(beta), A::of(y0))),
    }
}

fn gemv_by_threads<A: Native>(
    op: GemvOp,
    a: &[f64],
    m: usize,
    n: usize,
    x: &[f64],
    y: &[f64],
) -> Vec<f64> {
    match op.trans {
        Transpose::No => (0..m)
            .map(|i| {
                let s = warp_by_lanes(n, |j| (A::of(a[i * n + j]), A::of(x[j])));
                finish(s, op.alpha, op.beta, y[i]).f64()
            })
            .collect(),
        Transpose::Yes => (0..n)
            .map(|j| {
                // blockDim.y = 32 row groups (8 until 2026-11-26).
                let mut sh = [A::default(); 32];
                for (g, acc) in sh.iter_mut().enumerate() {
                    let mut i = g;
                    while i < m {
                        *acc = A::fma(A::of(a[i * n + j]), A::of(x[i]), *acc);
                        i += 32;
                    }
                }
                for s in [16, 8, 4, 2, 1] {
                    let before = sh;
                    for g in 0..s {
                        sh[g] = A::add(before[g], before[g + s]);
                    }
                }
                finish(sh[0], op.alpha, op.beta, y[j]).f64()
            })
            .collect(),
    }
}

#[test]
fn gemv_equals_the_kernel_thread_by_thread() {
    let seed = 0x6e_77;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for (m, n) in [
        (1, 1),
        (3, 70),
        (70, 3),
        (33, 64),
        (64, 33),
        (100, 257),
        (300, 40),
    ] {
        let a = values(&mut rng, m * n, 10);
        for trans in [Transpose::No, Transpose::Yes] {
            let (inner, outer) = if trans == Transpose::No {
                (n, m)
            } else {
                (m, n)
            };
            let x = values(&mut rng, inner, 10);
            let y = values(&mut rng, outer, 10);
            for (alpha, beta) in [(1.0, 0.0), (-0.5, 2.0), (3.0, -1.0), (0.0, 2.0), (0.0, 0.0)] {
                let op = GemvOp { alpha, beta, trans };
                for arith in [Format::FP64, Format::FP32] {
                    let spec = AccessorSpec::new(StorageKind::Fp32, arith).unwrap();
                    let model = accessor_gemv(&spec, op, &a, (m, n), &x, Some(&y), false).unwrap();
                    let threads = if arith == Format::FP64 {
                        gemv_by_threads::<f64>(op, &a, m, n, &x, &y)
                    } else {
                        gemv_by_threads::<f32>(op, &a, m, n, &x, &y)
                    };
                    for (p, q) in model.before_store.iter().zip(&threads) {
                        assert_eq!(
                            p.to_bits(),
                            q.to_bits(),
                            "{m}x{n} {trans:?} {alpha} {beta} {arith}"
                        );
                    }
                    if alpha == 0.0 {
                        // A and x are not read: a NaN in them changes nothing.
                        let mut poisoned = a.clone();
                        poisoned[0] = f64::NAN;
                        let p = accessor_gemv(&spec, op, &poisoned, (m, n), &x, Some(&y), false)
                            .unwrap();
                        assert_eq!(
                            p.before_store, model.before_store,
                            "{m}x{n} {trans:?} NaN in A"
                        );
                    }
                    // The store is one correctly rounded conversion.
                    let stored = accessor_gemv(&spec, op, &a, (m, n), &x, Some(&y), true).unwrap();
                    for (s, p) in stored.output.iter().zip(&model.before_store) {
                        assert_eq!(s.to_bits(), Format::FP32.round(*p, RNE).to_bits());
                    }
                }
            }
        }
    }
}

#[test]
fn spmv_equals_the_kernels_thread_by_thread() {
    let seed = 0x5b_77;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for (rows, cols, density) in [(50, 40, 0.3), (10, 200, 0.9), (64, 64, 0.05)] {
        let mut dense = values(&mut rng, rows * cols, 8);
        for v in dense.iter_mut() {
            if rng.random::<f64>() > density {
                *v = 0.0;
            }
        }
        let a = CsrMatrix::from_dense(rows, cols, &dense).unwrap();
        let x = values(&mut rng, cols, 8);
        let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32).unwrap();
        let csr = accessor_spmv(&spec, &a, SparseFormat::Csr, (1.0, 0.0), &x, None, false).unwrap();
        let ell = accessor_spmv(&spec, &a, SparseFormat::Ell, (1.0, 0.0), &x, None, false).unwrap();
        let stream = accessor_spmv(
            &spec,
            &a,
            SparseFormat::CsrStream,
            (1.0, 0.0),
            &x,
            None,
            false,
        )
        .unwrap();
        for i in 0..rows {
            let (c, v) = a.row(i);
            let warp = warp_by_lanes(c.len(), |k| (v[k] as f32, x[c[k]] as f32));
            let mut thread = 0.0f32;
            for k in 0..c.len() {
                thread = (v[k] as f32).mul_add(x[c[k]] as f32, thread);
            }
            assert_eq!(
                csr.before_store[i].to_bits(),
                f64::from(warp).to_bits(),
                "csr row {i}"
            );
            assert_eq!(
                ell.before_store[i].to_bits(),
                f64::from(thread).to_bits(),
                "ell row {i}"
            );
            // CSR-stream: the same thread's chain, its entries read from
            // shared memory instead of ELL slots.
            assert_eq!(
                stream.before_store[i].to_bits(),
                f64::from(thread).to_bits(),
                "csr-stream row {i}"
            );
        }
    }
}

/// The blocked TRSV written plainly: inverses column by column, then block by
/// block, with explicit lanes for the updates and, as `trsv_apply_inverse`
/// writes it, `ways` accumulators for the product with the inverse (column `c`
/// into accumulator `c % ways`), then `part[w] += part[w + s]` for `s = 1, 2,
/// 4`.
#[allow(clippy::needless_range_loop)] // indices as in the CUDA code
fn trsv_by_threads<A: Native>(
    a: &[f64],
    n: usize,
    b: &[f64],
    (uplo, diag): (Uplo, Diag),
    ways: usize,
) -> Vec<f64> {
    let row = |p: usize| if uplo == Uplo::Lower { p } else { n - 1 - p };
    let l = |p: usize, q: usize| A::of(a[row(p) * n + row(q)]);
    let unit = diag == Diag::Unit;
    let mut x = vec![A::default(); n];
    let mut s = 0;
    while s < n {
        let m = 32.min(n - s);
        let mut y = vec![vec![A::default(); m]; m];
        for c in 0..m {
            y[c][c] = if unit {
                A::of(1.0)
            } else {
                A::div(A::of(1.0), l(s + c, s + c))
            };
            for r in c + 1..m {
                let mut acc = A::default();
                for p in c..r {
                    acc = A::fma(l(s + r, s + p), y[p][c], acc);
                }
                let neg = A::of(-acc.f64());
                y[r][c] = if unit {
                    neg
                } else {
                    A::div(neg, l(s + r, s + r))
                };
            }
        }
        let v: Vec<A> = (0..m)
            .map(|r| {
                let bp = A::of(b[row(s + r)]);
                if s == 0 {
                    bp
                } else {
                    A::sub(bp, warp_by_lanes(s, |q| (l(s + r, q), x[q])))
                }
            })
            .collect();
        for r in 0..m {
            let mut part = vec![A::default(); ways];
            for c in 0..32 {
                if c <= r {
                    part[c % ways] = A::fma(y[r][c], v[c], part[c % ways]);
                }
            }
            let mut stride = 1;
            while stride < ways {
                let mut w = 0;
                while w + stride < ways {
                    part[w] = A::add(part[w], part[w + stride]);
                    w += 2 * stride;
                }
                stride *= 2;
            }
            x[s + r] = part[0];
        }
        s += 32;
    }
    let mut out = vec![0.0; n];
    for p in 0..n {
        out[row(p)] = x[p].f64();
    }
    out
}

#[test]
fn trsv_equals_the_kernels_thread_by_thread() {
    let seed = 0x7257;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [1, 2, 31, 32, 33, 70, 100] {
        let mut a = values(&mut rng, n * n, 2);
        for i in 0..n {
            a[i * n + i] = Format::FP32.round(2.0 + rng.random::<f64>(), RNE);
        }
        let b = values(&mut rng, n, 4);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            for diag in [Diag::NonUnit, Diag::Unit] {
                for (arith, ways) in [Format::FP64, Format::FP32]
                    .into_iter()
                    .flat_map(|f| (1..=8).map(move |w| (f, w)))
                {
                    let spec = AccessorSpec::new(StorageKind::Fp32, arith).unwrap();
                    let shape = (uplo, diag);
                    let model =
                        accessor_trsv_ordered(&spec, &a, n, &b, shape, false, ways).unwrap();
                    assert_eq!(model.chain_ways, ways);
                    let threads = if arith == Format::FP64 {
                        trsv_by_threads::<f64>(&a, n, &b, shape, ways)
                    } else {
                        trsv_by_threads::<f32>(&a, n, &b, shape, ways)
                    };
                    for (i, (p, q)) in model.before_store.iter().zip(&threads).enumerate() {
                        assert_eq!(
                            p.to_bits(),
                            q.to_bits(),
                            "n={n} {uplo:?} {diag:?} {arith} ways={ways} x[{i}]"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn upper_solves_are_reversed_lower_solves() {
    // Reversing rows and columns maps an upper system to a lower one; the
    // kernel's positions do exactly that, so the bits agree.
    let seed = 0x0e7e;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = 45;
    let mut a = values(&mut rng, n * n, 2);
    for i in 0..n {
        a[i * n + i] = 3.0;
    }
    let b = values(&mut rng, n, 2);
    let reversed: Vec<f64> = (0..n * n).map(|k| a[(n * n - 1) - k]).collect();
    let b_rev: Vec<f64> = b.iter().rev().copied().collect();
    let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    let upper = accessor_trsv(&spec, &a, n, &b, Uplo::Upper, Diag::NonUnit, true).unwrap();
    let lower = accessor_trsv(
        &spec,
        &reversed,
        n,
        &b_rev,
        Uplo::Lower,
        Diag::NonUnit,
        true,
    )
    .unwrap();
    let back: Vec<f64> = lower.output.iter().rev().copied().collect();
    assert_eq!(upper.output, back);
}

#[test]
fn axpy_is_one_fma_and_one_store() {
    let seed = 0xa497;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = values(&mut rng, 500, 20);
    let y = values(&mut rng, 500, 20);
    for (storage, arith) in [
        (StorageKind::Fp16, Format::FP32),
        (StorageKind::Bf16, Format::FP64),
        (StorageKind::Fp32, Format::FP64),
    ] {
        let spec = AccessorSpec::new(storage, arith).unwrap();
        let out = accessor_axpy(&spec, -0.5, &x, &y, true).unwrap();
        let s = storage.float_format().unwrap();
        for i in 0..500 {
            let (xs, ys) = (s.round(x[i], RNE), s.round(y[i], RNE));
            let expected = s.round(arith.fma(-0.5, xs, ys, RNE), RNE);
            assert_eq!(
                out.output[i].to_bits(),
                expected.to_bits(),
                "{storage:?} {arith} {i}"
            );
        }
    }
}

#[test]
fn writes_round_once_even_where_a_double_rounding_would_not() {
    // -64080.00000004587 lies just beyond the fp16 midpoint -64080: via fp32 it
    // would land on the midpoint and tie to even (-64064); once: -64096.
    let v = -64080.00000004587;
    let acc = AccessorSpec::new(StorageKind::Fp16, Format::FP64)
        .unwrap()
        .for_data(&[])
        .unwrap();
    assert_eq!(acc.write(v).unwrap(), -64096.0);
    assert_eq!(acc.write(v).unwrap(), Format::FP16.round(v, RNE));
}

/// The default order is four chains (`TRSV_CHAIN_WAYS`), and the number of
/// chains changes the bits: the parameter reaches the arithmetic.
#[test]
fn trsv_chain_ways_pick_the_order() {
    use boundgate::kernels::accessor::trsv::TRSV_CHAIN_WAYS;
    let seed = 0x7258;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = 100;
    let mut a = values(&mut rng, n * n, 2);
    for i in 0..n {
        a[i * n + i] = Format::FP32.round(2.0 + rng.random::<f64>(), RNE);
    }
    let b = values(&mut rng, n, 4);
    let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32).unwrap();
    let shape = (Uplo::Lower, Diag::NonUnit);
    let solve = |ways| {
        accessor_trsv_ordered(&spec, &a, n, &b, shape, false, ways)
            .unwrap()
            .before_store
    };
    let default = accessor_trsv(&spec, &a, n, &b, shape.0, shape.1, false).unwrap();
    assert_eq!(default.chain_ways, TRSV_CHAIN_WAYS);
    assert_eq!(default.before_store, solve(TRSV_CHAIN_WAYS));
    assert_ne!(solve(1), solve(TRSV_CHAIN_WAYS));
    for ways in [0, 9] {
        assert!(accessor_trsv_ordered(&spec, &a, n, &b, shape, false, ways).is_err());
    }
}

/// `split_chain_dot` stays within the rigorous bound of its depth
/// (`split_chain_depth`, what the TRSV bound uses for the product with the
/// inverse), against the exact sum, for 1 to 8 chains: fp16 values in fp32
/// arithmetic (products exact), random and adversarial. The adversarial sum,
/// `1` then 31 terms just above half an ulp of `[1, 2)`, makes one chain err by
/// about 31 u: more than four chains' depth (10) allows, so the depth belongs
/// to the order and a model or kernel with the wrong number of chains would
/// fail its bound, not merely differ in bits.
#[test]
fn split_chain_sums_stay_within_the_bound_of_their_depth() {
    use boundgate::kernels::accessor::order::{split_chain_depth, split_chain_dot};
    use boundgate_verify::bounds::accessor::{Accumulation, rigorous_accumulation};
    use boundgate_verify::bounds::dot::abs_dot_up;
    use rug::Rational;
    let q = |v: f64| Rational::from_f64(v).expect("finite");
    let seed = 0x5c4a;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // (x, y, and for the adversarial case the least error of one chain, in units of u)
    let mut cases: Vec<(Vec<f64>, Vec<f64>, Option<f64>)> = Vec::new();
    for len in [1, 5, 32, 33, 100] {
        for spread in [2, 12] {
            let draw = |rng: &mut ChaCha8Rng| -> Vec<f64> {
                (0..len)
                    .map(|_| {
                        let m: f64 = rng.random_range(-1.0..1.0);
                        Format::FP16.round(m * 2f64.powi(rng.random_range(-spread..=spread)), RNE)
                    })
                    .collect()
            };
            cases.push((draw(&mut rng), draw(&mut rng), None));
        }
    }
    let t = 2f64.powi(-24) * (1.0 + 2f64.powi(-10)); // exact in fp16's 11 bits
    let mut y = vec![t; 32];
    y[0] = 1.0;
    cases.push((vec![1.0; 32], y, Some(30.0)));
    let u = 2f64.powi(-24);
    for (x, y, adversarial) in &cases {
        let len = x.len();
        let sum_abs = abs_dot_up(x, y).unwrap();
        let exact: Rational = x.iter().zip(y).map(|(a, b)| q(*a) * q(*b)).sum();
        for ways in 1..=8 {
            let s = split_chain_dot(ways, len, |k| (x[k] as f32, y[k] as f32));
            let depth = split_chain_depth(len, ways);
            let bound = |depth| {
                let sum = Accumulation {
                    depth,
                    sum_abs,
                    eta_weight: 0.0,
                    inner: None,
                };
                rigorous_accumulation(Format::FP32, RNE, &sum)
                    .unwrap()
                    .value
            };
            let error = (q(f64::from(s)) - &exact).abs();
            assert!(
                error <= q(bound(depth)),
                "len={len} ways={ways}: error {} > the bound of depth {depth}",
                error.to_f64()
            );
            if let (Some(at_least), 1) = (adversarial, ways) {
                assert!(error.to_f64() >= at_least * u, "{}", error.to_f64() / u);
                assert!(
                    error > q(bound(split_chain_depth(len, 4))),
                    "one chain's error fits four chains' depth: the test lost its edge"
                );
            }
        }
    }
}
