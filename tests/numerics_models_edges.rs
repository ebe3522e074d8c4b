//! Edge cases of the numerical models, each against an independent exact
//! computation written here with `rug`:
//!
//! - the block-FMA model (`kernels::mpfma::blockfma`): wide exponent ranges
//!   (alignment shifts of 64 bits and more, in both directions between `c`
//!   and the products), the fast GEMM path against the chain, and hand-made
//!   records with many fractional bits (`F` up to the 60 that
//!   `BlockFmaSpec::validate` accepts), where the integer sum outgrew what the
//!   model could round exactly;
//! - the exact triangular-solve oracle (`oracle::trsv::solve_exact`) on rows
//!   spanning the whole binary64 range, zeros, and singular or non-finite
//!   systems (typed errors, no panic);
//! - the accessor arithmetic (`kernels::accessor::arith`) and the binary16
//!   arithmetic (`kernels::interleave::fp16`) on cases built to expose a
//!   double rounding.
//!
//! Every random draw uses a fixed seed, printed.

use boundgate::kernels::accessor::arith::Arith;
use boundgate::kernels::interleave::fp16::{fma16, mul16, round16};
use boundgate::kernels::mpfma::blockfma::BlockFma;
use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::Matrix;
use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo, solve_exact};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::{Integer, Rational};

fn pow2(e: i32) -> Rational {
    if e >= 0 {
        Rational::from(Integer::from(1) << e as u32)
    } else {
        Rational::from((Integer::from(1), Integer::from(1) << (-e) as u32))
    }
}

/// `floor(log2 |v|)` of a nonzero rational, by comparison with powers of two.
fn floor_log2(v: &Rational) -> i32 {
    let a = Rational::from(v.abs_ref());
    let (num, den) = (
        a.numer().significant_bits() as i32,
        a.denom().significant_bits() as i32,
    );
    // 2^(num - den - 1) < a < 2^(num - den + 1).
    let mut e = num - den;
    while pow2(e) > a {
        e -= 1;
    }
    while pow2(e + 1) <= a {
        e += 1;
    }
    e
}

/// `x = s 2^e` with `e = max(floor(log2 |x|), emin)` and `s` exact.
fn split(x: f64, emin: i32) -> (Rational, i32) {
    let v = Rational::from_f64(x).expect("finite");
    if v == 0 {
        return (v, i32::MIN / 4);
    }
    let e = floor_log2(&v).max(emin);
    (v * pow2(-e), e)
}

/// `v` rounded to a format of precision `p`, exponents `[emin, emax]`, with
/// subnormals: toward zero or to nearest even; infinity at `2^(emax + 1)` and
/// above (before rounding, as MMA-Sim's `torch.tensor` conversion after a
/// truncation; for nearest, a rounding up to `2^(emax + 1)` too).
fn round_exact(v: &Rational, p: u32, emin: i32, emax: i32, nearest: bool) -> f64 {
    if *v == 0 {
        return 0.0;
    }
    let e = floor_log2(v).max(emin);
    let quantum = pow2(e - p as i32 + 1);
    let scaled = Rational::from(v / &quantum);
    let mut m = Integer::from(scaled.trunc_ref());
    if nearest {
        let rest = Rational::from(&scaled - &m).abs();
        let half = Rational::from((1, 2));
        if rest > half || (rest == half && m.is_odd()) {
            m += if *v < 0 { -1 } else { 1 };
        }
    }
    let r = Rational::from(m) * quantum;
    if Rational::from(r.abs_ref()) >= pow2(emax + 1)
        || Rational::from(v.abs_ref()) >= pow2(emax + 1)
    {
        return if *v < 0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // +0 for a nonzero value that rounds to zero (MMA-Sim's integer zero).
    r.to_f64() + 0.0
}

/// One block step as MMA-Sim's `nv_fused_dot_add` defines it, in exact
/// rationals, for finite operands.
fn block_reference(record: &TcRecord, a: &[f64], b: &[f64], c: f64) -> f64 {
    let operand = record.input.operand();
    let acc = record.accumulator;
    let mut terms = vec![split(c, acc.emin())];
    for (&x, &y) in a.iter().zip(b) {
        let (sx, ex) = split(x, operand.emin());
        let (sy, ey) = split(y, operand.emin());
        terms.push((sx * sy, ex + ey));
    }
    let top = terms.iter().map(|t| t.1).max().unwrap();
    if top < i32::MIN / 8 {
        return 0.0;
    }
    let f = record.fraction_bits as i32;
    let mut sum = Rational::new();
    for (s, e) in terms {
        if s == 0 {
            continue;
        }
        let scaled = s * pow2(f + e - top);
        sum += Rational::from(Integer::from(scaled.trunc_ref()));
    }
    let value = sum * pow2(top - f);
    round_exact(
        &value,
        acc.precision(),
        acc.emin(),
        acc.emax(),
        record.output_mode == RoundingMode::NearestEven,
    )
}

/// A value of `fmt` with exponent drawn from its whole range (subnormals included).
fn any_value(rng: &mut ChaCha8Rng, fmt: Format) -> f64 {
    if rng.random_range(0..10) == 0 {
        return 0.0;
    }
    let lo = fmt.emin() - fmt.precision() as i32 + 1;
    let e = rng.random_range(lo..=fmt.emax());
    let m: f64 = rng.random_range(1.0..2.0);
    let v = fmt.round(m * 2f64.powi(e), RoundingMode::TowardZero);
    if rng.random() { -v } else { v }
}

/// Operands over the full exponent range of bf16, tf32 and fp8 (shifts far
/// beyond 64 bits between the largest term and the others, `c` above or
/// below every product): the model against the exact reference, bit for bit.
/// tests/mpfma_model.rs draws exponents up to 12 only.
#[test]
fn block_steps_over_the_whole_exponent_range_match_the_exact_reference() {
    let seed = 0xb10c_fa11u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for record in TcRecord::all() {
        let unit = BlockFma::new(&record);
        let fmt = record.input.operand();
        let acc = record.accumulator;
        for _ in 0..400 {
            let n = rng.random_range(1..=record.block);
            let a: Vec<f64> = (0..n).map(|_| any_value(&mut rng, fmt)).collect();
            let b: Vec<f64> = (0..n).map(|_| any_value(&mut rng, fmt)).collect();
            let c = any_value(&mut rng, acc);
            let model = unit.step(&a, &b, c).unwrap();
            let exact = block_reference(&record, &a, &b, c);
            assert_eq!(
                model.to_bits(),
                exact.to_bits(),
                "{} a={a:?} b={b:?} c={c:e}: model {model:e}, exact {exact:e}",
                record.label()
            );
        }
    }
}

/// Constructed alignments: `c` 2^100 above one product, a product 2^100
/// above `c`, and a sum whose low product sits exactly 63, 64 and 65 bits
/// below the largest.
#[test]
fn shifts_of_64_bits_and_more_truncate_to_zero_exactly() {
    let record = TcRecord::lookup(Arch::Sm90, TcInput::Bf16, TcOutput::Fp32).unwrap();
    let unit = BlockFma::new(&record);
    let p = 2f64.powi(-50);
    for shift in [40, 62, 63, 64, 65, 100, 200] {
        let big = 2f64.powi(shift - 50);
        let cases: [(Vec<f64>, Vec<f64>, f64); 4] = [
            (vec![p], vec![-1.0], big),
            (vec![big], vec![1.0], -p),
            (vec![big, -p], vec![1.0, 1.0], 0.0),
            (vec![-big, p, p], vec![1.0, -1.0, 1.0], 0.0),
        ];
        for (a, b, c) in cases {
            let c = Format::FP32.round(c, RoundingMode::TowardZero);
            let model = unit.step(&a, &b, c).unwrap();
            let exact = block_reference(&record, &a, &b, c);
            assert_eq!(
                model.to_bits(),
                exact.to_bits(),
                "shift {shift}: {a:?} {b:?} {c:e}"
            );
        }
    }
}

/// `gemm` takes a fast path on pre-decoded integers for finite rows and
/// columns and the chain of steps otherwise: both must agree with the chain,
/// element by element and partial by partial, over the whole exponent range
/// (overflow to infinity inside a chain included) and with non-finite entries.
#[test]
fn the_fast_gemm_path_is_the_chain_over_the_whole_exponent_range() {
    let seed = 0x6e33u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for record in TcRecord::all() {
        let unit = BlockFma::new(&record);
        let fmt = record.input.operand();
        let (m, k, t) = (3, 2 * record.block + 3, 3);
        for round in 0..6 {
            let mut a: Vec<f64> = (0..m * k).map(|_| any_value(&mut rng, fmt)).collect();
            let b: Vec<f64> = (0..k * t).map(|_| any_value(&mut rng, fmt)).collect();
            if round == 5 {
                a[k + 1] = f64::INFINITY; // row 1 takes the slow path
            }
            let mut got = Vec::new();
            unit.gemm_visit(&a, &b, m, k, t, |i, j, d, p| {
                got.push((i, j, d, p.to_vec()))
            })
            .unwrap();
            for (i, j, d, partials) in got {
                let col: Vec<f64> = (0..k).map(|r| b[r * t + j]).collect();
                let (want, want_partials) = unit.chain(&a[i * k..(i + 1) * k], &col, 0.0).unwrap();
                let same =
                    |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                assert!(
                    same(d, want),
                    "{} ({i}, {j}): {d:e} vs {want:e}",
                    record.label()
                );
                assert_eq!(partials.len(), want_partials.len());
                for (x, y) in partials.iter().zip(&want_partials) {
                    assert!(same(*x, *y), "{} ({i}, {j}) partials", record.label());
                }
            }
        }
    }
}

/// A hand-made record with more fractional bits than the measured ones:
/// `BlockFmaSpec::validate` accepts `F` up to 60. The model summed the
/// aligned terms in an `i64` and rounded `acc as f64`, "exact: |acc| < 2^53",
/// which only holds for `F` up to about 45: with `F = 50`, sixteen products
/// of 4 and one of `-2^-48` sum to `acc = 2^54 - 1` units of `2^-48`; the
/// conversion to `f64` rounded it to `2^54` (64) before the fp32 truncation,
/// which then gave 64 instead of `64 - 2^-18` (a double rounding, found in
/// this review, 2026-11-29).
#[test]
fn a_wide_accumulator_is_rounded_once() {
    let base = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let record = TcRecord {
        fraction_bits: 50,
        ..base.with_block(17)
    };
    assert!(record.spec().validate().is_ok());
    let unit = BlockFma::new(&record);
    let tiny = 2f64.powi(-24); // fp16's least subnormal
    let mut a = vec![2.0; 16];
    let mut b = vec![2.0; 16];
    a.push(tiny);
    b.push(-tiny);
    let exact = block_reference(&record, &a, &b, 0.0);
    assert_eq!(exact, 64.0 - 2f64.powi(-18));
    assert_eq!(unit.step(&a, &b, 0.0).unwrap(), exact);
    assert_eq!(unit.chain(&a, &b, 0.0).unwrap().0, exact);
    assert_eq!(unit.gemm(&a, &b, 1, 17, 1).unwrap(), vec![exact]);
}

/// With `F = 60` two products near 4 at the largest exponent are each just
/// below `2^62` units: their sum overflowed the `i64` accumulator (a panic
/// in debug builds, a wrapped sum in release ones). Every record's formats
/// and output rounding (fp32 and fp32-e8m13 toward zero, fp16 to nearest)
/// with `F = 60` and `F = 48`, against the exact reference: the wide path
/// of the rounding in all its modes.
#[test]
fn the_accumulator_does_not_overflow_at_the_largest_valid_f() {
    let seed = 0xf60u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for base in TcRecord::all() {
        for fraction_bits in [48, 60] {
            let record = TcRecord {
                fraction_bits,
                ..base
            };
            assert!(record.spec().validate().is_ok());
            let unit = BlockFma::new(&record);
            let fmt = record.input.operand();
            let acc = record.accumulator;
            // fmt's largest significand: products just below 4 at the top.
            let x = fmt.round(2.0 - 2f64.powi(-20), RoundingMode::TowardZero);
            let mut cases = vec![
                (vec![x; 16], vec![x; 16], 0.0),
                (vec![x; 16], vec![-x; 16], -3.0),
            ];
            for _ in 0..150 {
                let n = rng.random_range(1..=record.block);
                let a: Vec<f64> = (0..n).map(|_| any_value(&mut rng, fmt)).collect();
                let b: Vec<f64> = (0..n).map(|_| any_value(&mut rng, fmt)).collect();
                cases.push((a, b, any_value(&mut rng, acc)));
            }
            for (a, b, c) in cases {
                let c = acc.round(c, RoundingMode::TowardZero);
                let model = unit.step(&a, &b, c).unwrap();
                let exact = block_reference(&record, &a, &b, c);
                assert_eq!(
                    model.to_bits(),
                    exact.to_bits(),
                    "{} F = {fraction_bits}: a={a:?} b={b:?} c={c:e}",
                    record.label()
                );
                // The fast GEMM path (from c = 0) against the chain.
                let n = a.len();
                let fast = unit.gemm(&a, &b, 1, n, 1).unwrap()[0];
                assert_eq!(fast.to_bits(), unit.chain(&a, &b, 0.0).unwrap().0.to_bits());
            }
        }
    }
}

/// A hand-made record with a binary64 accumulator (`F = 52`..`60`, which
/// `validate` accepts): the model decoded `c` by scaling it with
/// `2^(p - 1 - e)`, which leaves `f64`'s range for `|c| < 2^-970`, so
/// `c = 1e-300` (and every smaller `c`) became 0, and it rounded through
/// powers of two below `2^-1022` that do not exist in `f64`.
#[test]
fn a_binary64_accumulator_keeps_tiny_and_huge_values() {
    let base = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let seed = 0xf64u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for (fraction_bits, output_mode) in [
        (52, RoundingMode::TowardZero),
        (60, RoundingMode::NearestEven),
    ] {
        let record = TcRecord {
            fraction_bits,
            accumulator: Format::FP64,
            output_mode,
            ..base
        };
        assert!(record.spec().validate().is_ok());
        let unit = BlockFma::new(&record);
        // c alone comes back exactly.
        for c in [
            1e-300,
            -2f64.powi(-1000),
            5.0 * f64::from_bits(1),
            f64::MIN_POSITIVE,
            1e300,
            -f64::MAX,
        ] {
            assert_eq!(
                unit.step(&[0.0], &[1.0], c).unwrap(),
                c,
                "F = {fraction_bits}"
            );
        }
        for _ in 0..300 {
            let n = rng.random_range(1..=16);
            let a: Vec<f64> = (0..n).map(|_| any_value(&mut rng, Format::FP16)).collect();
            let b: Vec<f64> = (0..n).map(|_| any_value(&mut rng, Format::FP16)).collect();
            let c = match rng.random_range(0..3) {
                0 => any_value(&mut rng, Format::FP64),
                1 => any_value(&mut rng, Format::FP16),
                _ => any_value(&mut rng, Format::FP16) * 2f64.powi(-1040),
            };
            let model = unit.step(&a, &b, c).unwrap();
            let exact = block_reference(&record, &a, &b, c);
            assert_eq!(
                model.to_bits(),
                exact.to_bits(),
                "F = {fraction_bits}: a={a:?} b={b:?} c={c:e}"
            );
        }
    }
}

/// A hand-made record whose `F` exceeds the 60 that `validate` allows is
/// refused when the unit is built (as one that cannot hold a product is),
/// not by a shift overflow in the middle of a GEMM.
#[test]
#[should_panic(expected = "cannot")]
fn an_f_above_60_is_refused_at_construction() {
    let base = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let record = TcRecord {
        fraction_bits: 64,
        ..base
    };
    assert!(record.spec().validate().is_err());
    let _ = BlockFma::new(&record);
}

// --- the exact triangular solve ---------------------------------------------

/// Forward or back substitution in plain rationals.
fn substitution(t: &[f64], n: usize, upper: bool, unit: bool, b: &[f64]) -> Vec<Rational> {
    let q = |v: f64| Rational::from_f64(v).unwrap();
    let mut x = vec![Rational::new(); n];
    let order: Vec<usize> = if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for &i in &order {
        let mut s = q(b[i]);
        for j in 0..n {
            let inside = if upper { j > i } else { j < i };
            if inside {
                s -= q(t[i * n + j]) * &x[j];
            }
        }
        x[i] = if unit { s } else { s / q(t[i * n + i]) };
    }
    x
}

/// Rows mixing `2^-1074` and `2^1023`, zeros in `b` and off the diagonal,
/// negative diagonals, both triangles, unit and non-unit diagonals.
#[test]
fn the_exact_solve_is_exact_over_the_whole_binary64_range() {
    let seed = 0x7125u64;
    println!("seed {seed:#x}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let draw = |rng: &mut ChaCha8Rng| -> f64 {
        match rng.random_range(0..8) {
            0 => 0.0,
            1 => f64::from_bits(rng.random_range(1..1 << 52)), // subnormal
            2 => f64::MAX / rng.random_range(1.0..4.0),
            3 => -2f64.powi(rng.random_range(900..1024)),
            _ => {
                let m: f64 = rng.random_range(-2.0..2.0);
                m * 2f64.powi(rng.random_range(-1074..1000))
            }
        }
    };
    for trial in 0..60 {
        let n = 1 + trial % 7;
        let mut t: Vec<f64> = (0..n * n).map(|_| draw(&mut rng)).collect();
        for i in 0..n {
            while t[i * n + i] == 0.0 {
                t[i * n + i] = draw(&mut rng);
            }
        }
        let b: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
        for (uplo, upper) in [(Uplo::Lower, false), (Uplo::Upper, true)] {
            for (diag, unit) in [(Diag::NonUnit, false), (Diag::Unit, true)] {
                let tri = Triangular::new(Matrix::new(n, n, &t).unwrap(), uplo, diag).unwrap();
                let x = solve_exact(&tri, &b).unwrap();
                assert_eq!(x, substitution(&t, n, upper, unit, &b), "{t:?} {b:?}");
            }
        }
    }
    // A zero right-hand side in a row whose least bit is far above 2^0 (the
    // row's scale is 2^-1000): x = 0.
    let t = [2f64.powi(1000), 0.0, 2f64.powi(1001), 2f64.powi(1002)];
    let tri = Triangular::new(Matrix::new(2, 2, &t).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    let x = solve_exact(&tri, &[0.0, 2f64.powi(1010)]).unwrap();
    assert_eq!(x, vec![Rational::new(), Rational::from(256)]);
}

/// A zero or non-finite diagonal, a non-finite entry or right-hand side and a
/// wrong length are typed errors (never a panic or a division by zero).
#[test]
fn the_exact_solve_refuses_singular_and_non_finite_systems() {
    let cases: [([f64; 4], [f64; 2]); 6] = [
        ([1.0, 0.0, 1.0, 0.0], [1.0, 1.0]),
        ([-0.0, 0.0, 1.0, 1.0], [1.0, 1.0]),
        ([1.0, 0.0, f64::NAN, 1.0], [1.0, 1.0]),
        ([1.0, 0.0, 1.0, f64::INFINITY], [1.0, 1.0]),
        ([1.0, 0.0, 1.0, 1.0], [f64::NEG_INFINITY, 1.0]),
        ([1.0, 0.0, 1.0, 1.0], [1.0, f64::NAN]),
    ];
    for (t, b) in cases {
        let tri =
            Triangular::new(Matrix::new(2, 2, &t).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
        assert!(solve_exact(&tri, &b).is_err(), "{t:?} {b:?}");
    }
    // NaN above the diagonal of a lower triangle is never read.
    let t = [2.0, f64::NAN, 1.0, 4.0];
    let tri = Triangular::new(Matrix::new(2, 2, &t).unwrap(), Uplo::Lower, Diag::NonUnit).unwrap();
    assert_eq!(
        solve_exact(&tri, &[1.0, 1.0]).unwrap(),
        vec![Rational::from((1, 2)), Rational::from((1, 8))]
    );
    // A zero diagonal under Diag::Unit is not read either.
    let tri = Triangular::new(
        Matrix::new(2, 2, &[0.0, 0.0, 3.0, 0.0]).unwrap(),
        Uplo::Lower,
        Diag::Unit,
    )
    .unwrap();
    assert_eq!(
        solve_exact(&tri, &[1.0, 1.0]).unwrap(),
        vec![Rational::from(1), Rational::from(-2)]
    );
    let tri = Triangular::new(
        Matrix::new(2, 2, &[1.0, 0.0, 1.0, 1.0]).unwrap(),
        Uplo::Lower,
        Diag::NonUnit,
    )
    .unwrap();
    assert!(solve_exact(&tri, &[1.0]).is_err());
}

// --- accessor and binary16 arithmetic ----------------------------------------

/// `v` rounded to nearest even at precision `p` with exponent floor `emin`
/// (gradual underflow), in exact rationals; no overflow in these cases.
fn nearest(v: &Rational, p: u32, emin: i32) -> f64 {
    round_exact(v, p, emin, 100_000, true)
}

/// Cases where computing `a b + c` in a wider format and rounding again
/// would differ from one rounding: `fma` in fp32 (including results in its
/// subnormal range) and fp64, and binary16's `fma16`/`mul16`.
#[test]
fn fused_operations_round_once_where_a_double_rounding_differs() {
    let q = |v: f64| Rational::from_f64(v).unwrap();
    let f32_cases: Vec<(f32, f32, f32)> = vec![
        // a b = 1 + 2^-11 + 2^-24 exactly, c = 2^-48: just above a tie.
        (1.0 + 2f32.powi(-12), 1.0 + 2f32.powi(-12), 2f32.powi(-48)),
        (1.0 + 2f32.powi(-12), 1.0 + 2f32.powi(-12), -2f32.powi(-48)),
        // Into fp32's subnormals: a tie at 2^-149 resolved by a far tail.
        (2f32.powi(-75) * 1.5, 2f32.powi(-75), 2f32.powi(-149) * 0.0),
        (2f32.powi(-75) * 1.5, 2f32.powi(-75), 2f32.powi(-126)),
        (3.0 * 2f32.powi(-100), 2f32.powi(-50), -(2f32.powi(-149))),
        (f32::MAX, 2.0, -f32::MAX),
        (f32::MAX, 1.0 + f32::EPSILON, f32::MAX),
    ];
    for (a, b, c) in f32_cases {
        let got = <f32 as Arith>::fma(a, b, c);
        let exact = q(a as f64) * q(b as f64) + q(c as f64);
        let want = if Rational::from(exact.abs_ref()) >= q(2f64.powi(128)) - q(2f64.powi(103)) {
            f64::INFINITY.copysign(exact.to_f64())
        } else {
            nearest(&exact, 24, -126)
        };
        assert_eq!(got as f64, want, "fma({a:e}, {b:e}, {c:e})");
    }
    let f64_cases = [
        (1.0 + 2f64.powi(-27), 1.0 + 2f64.powi(-27), 2f64.powi(-110)),
        (
            1.0 + 2f64.powi(-27),
            1.0 + 2f64.powi(-27),
            -(2f64.powi(-110)),
        ),
        (
            1.5 * 2f64.powi(-537),
            2f64.powi(-537),
            f64::from_bits(1) * 0.0,
        ),
        (1.5 * 2f64.powi(-537), 2f64.powi(-537), -f64::from_bits(1)),
    ];
    for (a, b, c) in f64_cases {
        let got = <f64 as Arith>::fma(a, b, c);
        let exact = q(a) * q(b) + q(c);
        assert_eq!(got, nearest(&exact, 53, -1022), "fma({a:e}, {b:e}, {c:e})");
    }
    // binary16: a b + c spanning more than 53 bits (the general path) and
    // near ties (the fast path).
    let h = |v: f64| Format::FP16.round(v, RoundingMode::NearestEven) as f32;
    let f16_cases = [
        (
            h(1.0 + 2f64.powi(-10)),
            h(1.0 + 2f64.powi(-10)),
            h(2f64.powi(-24)),
        ),
        (
            h(1.0 + 2f64.powi(-6)),
            h(1.0 + 2f64.powi(-6)),
            -h(2f64.powi(-24)),
        ),
        (h(65504.0), h(1.0), h(16.0)),
        (h(65504.0), h(1.0), h(15.99)),
        (h(2f64.powi(-24)), h(0.5), h(0.0)),
        (h(2f64.powi(-24)), h(1.5), h(-0.0)),
        (h(2f64.powi(-24)), h(-2.5), h(0.0)),
    ];
    for (a, b, c) in f16_cases {
        let exact = q(a as f64) * q(b as f64) + q(c as f64);
        let limit = q(65520.0);
        let want = if Rational::from(exact.abs_ref()) >= limit {
            f64::INFINITY.copysign(exact.to_f64())
        } else {
            nearest(&exact, 11, -14)
        };
        let got = fma16(a, b, c) as f64;
        // (The sign of an exact zero is checked by fp16.rs's own tests.)
        assert_eq!(got, want, "fma16({a:e}, {b:e}, {c:e})");
        if exact != 0 {
            assert_eq!(got.to_bits(), want.to_bits(), "fma16({a:e}, {b:e}, {c:e})");
        }
        let product = q(a as f64) * q(b as f64);
        let want = if Rational::from(product.abs_ref()) >= limit {
            f64::INFINITY.copysign(product.to_f64())
        } else {
            nearest(&product, 11, -14)
        };
        assert_eq!(mul16(a, b) as f64, want, "mul16({a:e}, {b:e})");
        // The product is exact in f64: round16 of it is the one rounding.
        assert_eq!(round16(a as f64 * b as f64) as f64, want);
    }
}
