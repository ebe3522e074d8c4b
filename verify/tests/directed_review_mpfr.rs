//! Review of `bounds::directed` against MPFR (`rug`): every `_up` result is
//! at least the exact real result and every `_down` at most it, for random
//! and edge inputs over the whole finite `f64` range (subnormals, zeros of
//! both signs, values near overflow, the `TINY` guard of the module), and
//! each is the correctly rounded value or, where the module moves outward
//! without deciding, one ulp beyond it. An `_up` of an exact result above
//! `f64::MAX` is `+inf` and a `_down` of it `f64::MAX` (and symmetrically).
//! Fixed seeds, printed on failure.

use boundgate_verify::bounds::directed::{
    add_down, add_product_enclosure, add_up, div_down, div_up, exp_down, exp_up, expm1_down,
    expm1_up, ln_down, ln_up, ln1p_down, ln1p_up, mul_down, mul_up, product3_up, sqrt_down,
    sqrt_up, sub_down, sub_up,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use rug::float::Round;
use rug::ops::DivAssignRound;
use std::cmp::Ordering;

/// Enough bits to hold any sum or product of two `f64` exactly
/// (exponents from 2^-2148 to 2^2048).
const EXACT: u32 = 4400;
/// Working precision for quotients, roots and transcendental functions:
/// the result rounded up (down) in it is above (below) the exact value.
const WIDE: u32 = 400;

const SEED: u64 = 0x5eed_d1ec_7ed0_0001;

fn f(x: f64) -> Float {
    Float::with_val(EXACT, x)
}

/// Values at the edges: zeros, subnormals, the normal boundary, the module's
/// guard `TINY = 1e-290` and scale `2^600`, and the overflow threshold.
fn edges() -> Vec<f64> {
    let p2 = |e: i32| 2f64.powi(e);
    let mut v = vec![
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(3),
        f64::from_bits((1 << 52) - 1),
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE.next_up(),
        1e-290,
        1e-290f64.next_down(),
        1e-290f64.next_up(),
        p2(-963),
        p2(-537),
        p2(-511),
        p2(-474),
        1.0 / 3.0,
        0.1,
        1.0,
        1f64.next_up(),
        1f64.next_down(),
        2.0,
        3.0,
        p2(52) + 1.0,
        p2(53) - 1.0,
        p2(511),
        p2(600),
        1e300,
        p2(970),
        3.0 * p2(970),
        p2(1023),
        f64::MAX,
        f64::MAX.next_down(),
        127.0 / f64::MAX,
    ];
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// A random finite `f64`: uniform bit patterns (every exponent equally
/// likely, so subnormals and huge values are frequent), values near 1, and
/// neighbours of an edge value.
fn random_f64(rng: &mut ChaCha8Rng, edges: &[f64]) -> f64 {
    loop {
        let kind = rng.next_u64() % 4;
        let x = match kind {
            0 => f64::from_bits(rng.next_u64()),
            1 => {
                let e = (rng.next_u64() % 120) as i32 - 60;
                let m = 1.0 + (rng.next_u64() >> 12) as f64 * 2f64.powi(-52);
                let s = if rng.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                s * m * 2f64.powi(e)
            }
            2 => {
                let base = edges[(rng.next_u64() % edges.len() as u64) as usize];
                let steps = rng.next_u64() % 5;
                let mut x = base;
                for _ in 0..steps {
                    x = if rng.next_u64().is_multiple_of(2) {
                        x.next_up()
                    } else {
                        x.next_down()
                    };
                }
                x
            }
            _ => {
                // A subnormal or a value just above the guard.
                let m = rng.next_u64() >> 11;
                if rng.next_u64().is_multiple_of(2) {
                    f64::from_bits(m >> 1)
                } else {
                    f64::from_bits(m) * 2f64.powi(-900)
                }
            }
        };
        if x.is_finite() {
            return x;
        }
    }
}

/// Checks `down <= exact <= up` (`lo`, `hi` bracket the exact value: equal to
/// it when it is exact, else its roundings up and down in a wide precision)
/// and that each is the correctly rounded `f64` or, with `slack`, at most
/// one ulp beyond it.
fn check(what: &str, up: f64, down: f64, lo: &Float, hi: &Float, slack: bool, ctx: &str) {
    assert!(!up.is_nan() && !down.is_nan(), "{what}({ctx}): NaN");
    assert!(
        f(up) >= *hi,
        "{what}_up({ctx}) = {up:e} is below the exact {hi:e}"
    );
    assert!(
        f(down) <= *lo,
        "{what}_down({ctx}) = {down:e} is above the exact {lo:e}"
    );
    let ru = hi.to_f64_round(Round::Up);
    let rd = lo.to_f64_round(Round::Down);
    // An exact value beyond the largest f64 rounds up to +inf, down to MAX.
    if *hi > f(f64::MAX) {
        assert_eq!(ru, f64::INFINITY);
        assert_eq!(up, f64::INFINITY, "{what}_up({ctx}) overflowed to {up:e}");
    }
    if *lo > f(f64::MAX) {
        assert_eq!(down, f64::MAX, "{what}_down({ctx}) = {down:e}, not MAX");
    }
    if *lo < f(-f64::MAX) {
        assert_eq!(down, f64::NEG_INFINITY, "{what}_down({ctx}) = {down:e}");
    }
    if *hi < f(-f64::MAX) {
        assert_eq!(up, -f64::MAX, "{what}_up({ctx}) = {up:e}, not -MAX");
    }
    if slack {
        assert!(
            up == ru || up == ru.next_up(),
            "{what}_up({ctx}) = {up:e}, correctly rounded {ru:e}"
        );
        assert!(
            down == rd || down == rd.next_down(),
            "{what}_down({ctx}) = {down:e}, correctly rounded {rd:e}"
        );
    } else {
        assert_eq!(up, ru, "{what}_up({ctx}) not correctly rounded");
        assert_eq!(down, rd, "{what}_down({ctx}) not correctly rounded");
    }
}

/// `op` of `a` (and `b`) in `WIDE` bits, rounded up and down.
fn bracket(op: impl Fn(Round) -> Float) -> (Float, Float) {
    (op(Round::Down), op(Round::Up))
}

fn pairs(seed: u64, n: usize) -> Vec<(f64, f64)> {
    let edges = edges();
    let mut out = Vec::new();
    for &a in &edges {
        for &b in &edges {
            out.push((a, b));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..n {
        let a = random_f64(&mut rng, &edges);
        // Half the pairs close in magnitude (cancellation, quotients near 1).
        let b = if rng.next_u64().is_multiple_of(2) {
            random_f64(&mut rng, &edges)
        } else {
            let s = if rng.next_u64().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
            let r =
                1.0 + (rng.next_u64() >> 11) as f64 * 2f64.powi(-53 - (rng.next_u64() % 8) as i32);
            s * a * r
        };
        if b.is_finite() {
            out.push((a, b));
        }
    }
    out
}

#[test]
fn sums_and_differences_are_correctly_rounded_outward() {
    for (a, b) in pairs(SEED, 60_000) {
        let ctx = format!("{a:e}, {b:e}; seed {SEED:#x}");
        let s = f(a) + f(b);
        check("add", add_up(a, b), add_down(a, b), &s, &s, false, &ctx);
        let d = f(a) - f(b);
        check("sub", sub_up(a, b), sub_down(a, b), &d, &d, false, &ctx);
    }
}

#[test]
fn products_bracket_the_exact_product() {
    let seed = SEED + 1;
    for (a, b) in pairs(seed, 60_000) {
        let ctx = format!("{a:e}, {b:e}; seed {seed:#x}");
        let p = f(a) * f(b);
        // Below the guard the module moves outward without deciding: one ulp of slack.
        check("mul", mul_up(a, b), mul_down(a, b), &p, &p, true, &ctx);
        let (lo, hi) = add_product_enclosure((a, a), b, 0.75);
        let e = f(a) + f(b) * f(0.75);
        assert!(f(lo) <= e && e <= f(hi), "enclosure({ctx})");
    }
}

#[test]
fn quotients_bracket_the_exact_quotient() {
    let seed = SEED + 2;
    for (a, b) in pairs(seed, 60_000) {
        if b == 0.0 {
            continue;
        }
        let ctx = format!("{a:e} / {b:e}; seed {seed:#x}");
        let (lo, hi) = bracket(|r| {
            let mut q = Float::with_val(WIDE, a);
            q.div_assign_round(&Float::with_val(WIDE, b), r);
            q
        });
        check("div", div_up(a, b), div_down(a, b), &lo, &hi, true, &ctx);
    }
}

#[test]
fn roots_bracket_the_exact_root() {
    let seed = SEED + 3;
    let edges = edges();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut xs: Vec<f64> = edges.iter().map(|x| x.abs()).collect();
    xs.extend((0..100_000).map(|_| random_f64(&mut rng, &edges).abs()));
    // Perfect squares of every size, and their neighbours.
    for _ in 0..2000 {
        let r = random_f64(&mut rng, &edges).abs().sqrt();
        let sq = r * r;
        if sq.is_finite() {
            xs.extend([sq, sq.next_up(), sq.next_down()]);
        }
    }
    for a in xs.into_iter().filter(|&a| a >= 0.0) {
        let ctx = format!("{a:e}; seed {seed:#x}");
        let (lo, hi) = bracket(|r| {
            let mut s = Float::with_val(WIDE, a);
            s.sqrt_round(r);
            s
        });
        check("sqrt", sqrt_up(a), sqrt_down(a), &lo, &hi, true, &ctx);
    }
}

/// `exp`, `expm1`, `ln`, `ln1p` go through MPFR at 53 bits and then to an
/// `f64` in the same direction: exactly the correctly rounded values, also in
/// the subnormal range (double rounding in one direction is harmless) and
/// beyond the largest `f64` (`exp_down(1000) = MAX`, not +inf).
#[test]
fn transcendental_functions_are_correctly_rounded_outward() {
    let seed = SEED + 4;
    let edges = edges();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut xs = edges.clone();
    xs.extend([
        709.782712893384,
        709.7827128933841,
        710.0,
        1000.0,
        1e10,
        -745.1332191019411,
        -745.1332191019412,
        -746.0,
        -1e10,
        -708.3964185322641,
        -1.0,
        -1f64.next_up(),
        -0.5,
        1e-20,
        -1e-20,
    ]);
    xs.extend((0..30_000).map(|_| random_f64(&mut rng, &edges)));
    xs.extend((0..30_000).map(|_| {
        let u = (rng.next_u64() >> 11) as f64 * 2f64.powi(-53);
        1500.0 * u - 750.0
    }));
    for x in xs {
        let ctx = format!("{x:e}; seed {seed:#x}");
        let wide = |g: fn(&mut Float, Round) -> Ordering| {
            bracket(|r| {
                let mut v = Float::with_val(WIDE, x);
                g(&mut v, r);
                v
            })
        };
        let (lo, hi) = wide(|v, r| v.exp_round(r));
        check("exp", exp_up(x), exp_down(x), &lo, &hi, false, &ctx);
        let (lo, hi) = wide(|v, r| v.exp_m1_round(r));
        check("expm1", expm1_up(x), expm1_down(x), &lo, &hi, false, &ctx);
        if x > 0.0 {
            let (lo, hi) = wide(|v, r| v.ln_round(r));
            check("ln", ln_up(x), ln_down(x), &lo, &hi, false, &ctx);
        }
        if x > -1.0 {
            let (lo, hi) = wide(|v, r| v.ln_1p_round(r));
            check("ln1p", ln1p_up(x), ln1p_down(x), &lo, &hi, false, &ctx);
        }
    }
    // The edges the callers meet: exact values stay exact, infinities where exact.
    assert_eq!((exp_up(0.0), exp_down(-0.0)), (1.0, 1.0));
    assert_eq!((ln_up(1.0), ln_down(1.0)), (0.0, 0.0));
    assert_eq!(
        (ln_down(0.0), ln_up(0.0)),
        (f64::NEG_INFINITY, f64::NEG_INFINITY)
    );
    assert_eq!(ln1p_down(-1.0), f64::NEG_INFINITY);
    assert_eq!(exp_down(1e10), f64::MAX);
    assert_eq!(exp_up(1e10), f64::INFINITY);
    assert_eq!((exp_down(-1e10), exp_up(-1e10)), (0.0, f64::from_bits(1)));
}

/// `product3_up` of non-negative factors: at least the exact product, and
/// finite whenever the exact product is comfortably below the largest `f64`.
#[test]
fn three_factor_products_are_upper_bounds_without_spurious_overflow() {
    let seed = SEED + 5;
    let edges = edges();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..100_000 {
        let [a, b, c] = [0; 3].map(|_| random_f64(&mut rng, &edges).abs());
        let ctx = format!("{a:e}, {b:e}, {c:e}; seed {seed:#x}");
        let exact = f(a) * f(b) * f(c);
        let p = product3_up(a, b, c);
        assert!(f(p) >= exact, "product3_up({ctx}) = {p:e}");
        if exact < f(f64::MAX * (1.0 - 1e-15)) {
            assert!(p.is_finite(), "product3_up({ctx}) overflowed");
        }
        // Tight (three roundings up) away from the underflow range, where
        // moving outward by a subnormal ulp is loose but sound.
        if exact < f(f64::MAX * (1.0 - 1e-15)) && a.min(b).min(c) > 1e-100 && exact > f(1e-200) {
            assert!(
                f(p) <= exact.clone() * f(1.0 + 4.0 * f64::EPSILON) + f(f64::from_bits(2)),
                "product3_up({ctx}) = {p:e} is loose"
            );
        }
    }
}
