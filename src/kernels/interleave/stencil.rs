//! One HotSpot3D iteration in each version, in a fixed order of operations
//! that `kernels/hotspot3d.cu` follows too.
//!
//! # The order (per cell)
//!
//! Rodinia's `opt1.cu` evaluates
//! `cc*C + cw*W + ce*E + cs*S + cn*N + cb*B + ct*T + sdc*P + ct*amb` left to
//! right, and nvcc (with its default `--fmad=true`) contracts it into one
//! multiplication and a chain of fused multiply-adds. This crate fixes that
//! chain, one rounding per operation:
//!
//! ```text
//! acc = cc * C
//! acc = fma(cw, W, acc);  acc = fma(ce, E, acc);  acc = fma(cs, S, acc)
//! acc = fma(cn, N, acc);  acc = fma(cb, B, acc);  acc = fma(ct, T, acc)
//! acc = fma(sdc, P, acc); T'  = fma(ct, amb, acc)
//! ```
//!
//! in binary64 (`double`), binary32 (`float`, `looperf`) or binary16
//! (`half`: `__hmul_rn`, `__hfma`, bit for bit [`super::fp16`]). It is a
//! recursive dot product of 9 terms with FMA, so each rounding error bound of
//! `boundgate_verify::bounds::dot` with depth 9 applies to one cell
//! ([`super::bound`]).
//!
//! Loop perforation (`looperf`) skips the whole iteration on every 6th call
//! (Freytag 2023, Fig. 5.2), leaving the state as it is.

use super::fp16::{fma16, mul16};
use super::grid::Grid3;
use super::hotspot::{Coefficients, HotSpot3D, State};
use super::version::Version;

/// Arithmetic of one version on values carried as `T`.
pub trait Arith {
    /// The carrier type.
    type T: Copy;
    /// `a * b`, rounded once.
    fn mul(a: Self::T, b: Self::T) -> Self::T;
    /// `a * b + c`, rounded once.
    fn fma(a: Self::T, b: Self::T, c: Self::T) -> Self::T;
}

/// binary64 arithmetic.
pub struct Binary64;
/// binary32 arithmetic.
pub struct Binary32;
/// binary16 arithmetic on values carried in `f32`.
pub struct Binary16;

impl Arith for Binary64 {
    type T = f64;
    #[inline(always)]
    fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    #[inline(always)]
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

impl Arith for Binary32 {
    type T = f32;
    #[inline(always)]
    fn mul(a: f32, b: f32) -> f32 {
        a * b
    }
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

impl Arith for Binary16 {
    type T = f32;
    #[inline(always)]
    fn mul(a: f32, b: f32) -> f32 {
        mul16(a, b)
    }
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        fma16(a, b, c)
    }
}

/// The new value of one cell from its neighbours, in the documented order.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{hotspot::Coefficients, stencil::{cell, Binary16, Binary64}};
/// // distinct weights: each neighbour meets its own (1 + 4 + 32 + 128 = 165; amb = 0)
/// let k = Coefficients { cc: 1.0, cw: 2.0, ce: 4.0, cs: 8.0, cn: 16.0, cb: 32.0, ct: 64.0, sdc: 128.0, amb: 0.0 };
/// assert_eq!(cell::<Binary64>(&k, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0), 165.0);
/// // binary16: cc C + ct amb = 2048 + 1 is a tie at spacing 2, rounded to even 2048
/// let k = Coefficients { cc: 1.0f32, cw: 0.0, ce: 0.0, cs: 0.0, cn: 0.0, cb: 0.0, ct: 1.0, sdc: 0.0, amb: 1.0 };
/// assert_eq!(cell::<Binary16>(&k, 2048.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0), 2048.0);
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn cell<A: Arith>(
    k: &Coefficients<A::T>,
    c: A::T,
    w: A::T,
    e: A::T,
    s: A::T,
    n: A::T,
    b: A::T,
    t: A::T,
    p: A::T,
) -> A::T {
    let mut acc = A::mul(k.cc, c);
    acc = A::fma(k.cw, w, acc);
    acc = A::fma(k.ce, e, acc);
    acc = A::fma(k.cs, s, acc);
    acc = A::fma(k.cn, n, acc);
    acc = A::fma(k.cb, b, acc);
    acc = A::fma(k.ct, t, acc);
    acc = A::fma(k.sdc, p, acc);
    A::fma(k.ct, k.amb, acc)
}

/// The start of row `(y, z)` of a `grid` state and the five rows a sweep
/// reads for it: centre, north (`y - 1`), south (`y + 1`), bottom (`z - 1`),
/// top (`z + 1`), a neighbour past the boundary being the row itself
/// (Rodinia's clamped indices, `cuda/hotspot3D/3D.cu`).
#[inline(always)]
fn rows_around<T>(grid: Grid3, tin: &[T], y: usize, z: usize) -> (usize, [&[T]; 5]) {
    let nx = grid.nx();
    let (yn, ys) = (
        y.saturating_sub(1),
        if y + 1 == grid.ny() { y } else { y + 1 },
    );
    let (zb, zt) = (
        z.saturating_sub(1),
        if z + 1 == grid.nz() { z } else { z + 1 },
    );
    let row = |yy: usize, zz: usize| {
        let s = grid.index(0, yy, zz);
        &tin[s..s + nx]
    };
    (
        grid.index(0, y, z),
        [row(y, z), row(yn, z), row(ys, z), row(y, zb), row(y, zt)],
    )
}

/// One iteration over the whole grid: `tout` from `tin` (same length as the grid).
///
/// # Panics
/// When `power`, `tin` or `tout` does not hold exactly `grid.cells()` values
/// (a hot loop with no error path; the callers size the buffers from the grid).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::Coefficients, stencil::{sweep, Binary64}};
/// let grid = Grid3::new(3, 1, 1).unwrap();
/// let zero = Coefficients { cc: 0.0, cw: 0.0, ce: 0.0, cs: 0.0, cn: 0.0, cb: 0.0, ct: 0.0, sdc: 0.0, amb: 0.0 };
/// let (tin, power, mut tout) = ([1.0, 2.0, 3.0], [0.0; 3], [0.0; 3]);
/// // west weight only: each cell takes its west neighbour, x = 0 itself
/// sweep::<Binary64>(grid, &Coefficients { cw: 1.0, ..zero }, &power, &tin, &mut tout);
/// assert_eq!(tout, [1.0, 1.0, 2.0]);
/// sweep::<Binary64>(grid, &Coefficients { ce: 1.0, ..zero }, &power, &tin, &mut tout);
/// assert_eq!(tout, [2.0, 3.0, 3.0]);
/// ```
#[inline(always)]
pub fn sweep<A: Arith>(
    grid: Grid3,
    k: &Coefficients<A::T>,
    power: &[A::T],
    tin: &[A::T],
    tout: &mut [A::T],
) {
    let (nx, ny, nz) = (grid.nx(), grid.ny(), grid.nz());
    assert!(tin.len() == grid.cells() && tout.len() == grid.cells() && power.len() == grid.cells());
    for z in 0..nz {
        for y in 0..ny {
            let (start, [cen, nor, sou, bot, top]) = rows_around(grid, tin, y, z);
            let p = &power[start..start + nx];
            let out = &mut tout[start..start + nx];
            if nx == 1 {
                out[0] = cell::<A>(
                    k, cen[0], cen[0], cen[0], sou[0], nor[0], bot[0], top[0], p[0],
                );
                continue;
            }
            out[0] = cell::<A>(
                k, cen[0], cen[0], cen[1], sou[0], nor[0], bot[0], top[0], p[0],
            );
            let last = nx - 1;
            for x in 1..last {
                out[x] = cell::<A>(
                    k,
                    cen[x],
                    cen[x - 1],
                    cen[x + 1],
                    sou[x],
                    nor[x],
                    bot[x],
                    top[x],
                    p[x],
                );
            }
            out[last] = cell::<A>(
                k,
                cen[last],
                cen[last - 1],
                cen[last],
                sou[last],
                nor[last],
                bot[last],
                top[last],
                p[last],
            );
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn sweep32_fma(grid: Grid3, k: &Coefficients<f32>, power: &[f32], tin: &[f32], tout: &mut [f32]) {
    sweep::<Binary32>(grid, k, power, tin, tout)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn sweep64_fma(grid: Grid3, k: &Coefficients<f64>, power: &[f64], tin: &[f64], tout: &mut [f64]) {
    sweep::<Binary64>(grid, k, power, tin, tout)
}

/// Whether this CPU has hardware FMA (then the binary32 and binary64 sweeps
/// use it; without it `mul_add` calls the C library's correctly rounded
/// `fma`, so the results are the same bits, only slower).
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One binary32 iteration.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
/// use boundgate::kernels::interleave::stencil::{sweep, sweep32, Binary32};
/// let app = HotSpot3D::synthetic(Grid3::new(5, 3, 2).unwrap(), 7).unwrap();
/// let t = app.initial32().unwrap();
/// let (mut fast, mut generic) = (vec![0.0f32; 30], vec![0.0f32; 30]);
/// sweep32(app.grid(), app.coefficients32(), app.power32(), &t, &mut fast);
/// sweep::<Binary32>(app.grid(), app.coefficients32(), app.power32(), &t, &mut generic);
/// // hardware or library fma: the same bits
/// assert!(fast.iter().zip(&generic).all(|(a, b)| a.to_bits() == b.to_bits()));
/// assert!(fast.iter().zip(&t).any(|(a, b)| a != b)); // and the state did move
/// ```
pub fn sweep32(grid: Grid3, k: &Coefficients<f32>, power: &[f32], tin: &[f32], tout: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU supports fma and avx2 (checked just above).
        unsafe { sweep32_fma(grid, k, power, tin, tout) };
        return;
    }
    sweep::<Binary32>(grid, k, power, tin, tout)
}

/// One binary64 iteration.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
/// use boundgate::kernels::interleave::stencil::{cell, sweep64, Binary64};
/// // one cell: every neighbour outside the grid is the cell itself
/// let app = HotSpot3D::new(Grid3::new(1, 1, 1).unwrap(), vec![330.0], vec![0.5]).unwrap();
/// let (k, t) = (app.coefficients(), 330.0);
/// let mut out = [0.0];
/// sweep64(app.grid(), k, app.power(), &[t], &mut out);
/// assert_eq!(out[0].to_bits(), cell::<Binary64>(k, t, t, t, t, t, t, t, 0.5).to_bits());
/// assert!(out[0] < t); // it cools toward the ambient 80
/// ```
pub fn sweep64(grid: Grid3, k: &Coefficients<f64>, power: &[f64], tin: &[f64], tout: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU supports fma and avx2 (checked just above).
        unsafe { sweep64_fma(grid, k, power, tin, tout) };
        return;
    }
    sweep::<Binary64>(grid, k, power, tin, tout)
}

/// One binary16 iteration (values carried in `f32`): the same chain as
/// [`sweep`]`::<Binary16>`, bit for bit, evaluated one operation at a time
/// across a whole row so that the fast path vectorizes ([`fma16_lanes`]).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{fp16::round16, grid::Grid3, hotspot::HotSpot3D, version::Version};
/// use boundgate::kernels::interleave::stencil::{sweep, sweep16, Binary16};
/// let app = HotSpot3D::synthetic(Grid3::new(9, 4, 2).unwrap(), 1).unwrap();
/// let s = app.initial_state(Version::Half).unwrap();
/// let (mut rows, mut cells) = (vec![0.0f32; 72], vec![0.0f32; 72]);
/// sweep16(app.grid(), app.coefficients16(), app.power16(), &s.values, &mut rows);
/// sweep::<Binary16>(app.grid(), app.coefficients16(), app.power16(), &s.values, &mut cells);
/// assert!(rows.iter().zip(&cells).all(|(a, b)| a.to_bits() == b.to_bits()));
/// assert!(rows.iter().all(|&v| round16(f64::from(v)) == v)); // binary16 numbers
/// ```
pub fn sweep16(grid: Grid3, k: &Coefficients<f32>, power: &[f32], tin: &[f32], tout: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_fma() {
        // SAFETY: the CPU supports fma and avx2 (checked just above).
        unsafe { sweep16_rows_avx2(grid, k, power, tin, tout) };
        return;
    }
    sweep16_rows(grid, k, power, tin, tout)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn sweep16_rows_avx2(
    grid: Grid3,
    k: &Coefficients<f32>,
    power: &[f32],
    tin: &[f32],
    tout: &mut [f32],
) {
    sweep16_rows(grid, k, power, tin, tout)
}

/// One chain step across a row: `out[x] = fma16(a, v[x], acc[x])` (or
/// `mul16(a, v[x])` when `acc` is `None`). The fast path rounds the exact
/// `f64` value on the bits without branches; lanes it cannot handle (an
/// inexact `f64` sum, a result outside binary16's normal range, a zero, a
/// special value) are flagged and recomputed with [`fma16`]/[`mul16`].
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{fp16::fma16, stencil::fma16_lanes};
/// let (v, acc) = ([0.5f32, 1.0, 0.0, 256.0], [1.0f32, 2048.0, -0.0, 65504.0]);
/// let (mut out, mut flags) = ([0.0f32; 4], [0u8; 4]);
/// fma16_lanes(3.0, &v, Some(&acc), &mut out, &mut flags);
/// // 2.5 exact; 2051 a tie at spacing 2, to even 2052; a zero and an overflow take the slow path
/// assert_eq!(out, [2.5, 2052.0, 0.0, f32::INFINITY]);
/// assert_eq!(flags, [0, 0, 1, 1]);
/// assert!((0..4).all(|x| out[x].to_bits() == fma16(3.0, v[x], acc[x]).to_bits()));
/// fma16_lanes(3.0, &v, None, &mut out, &mut flags); // products alone
/// assert_eq!(out, [1.5, 3.0, 0.0, 768.0]);
/// ```
#[inline(always)]
pub fn fma16_lanes(a: f32, v: &[f32], acc: Option<&[f32]>, out: &mut [f32], flags: &mut [u8]) {
    const DROP: u32 = 42;
    let a64 = f64::from(a);
    let n = out.len();
    let (v, flags) = (&v[..n], &mut flags[..n]);
    let mut any = 0u8;
    for x in 0..n {
        let c = acc.map_or(0.0, |acc| f64::from(acc[x]));
        let p = a64 * f64::from(v[x]);
        let s = p + c;
        let bb = s - p;
        let e = (p - (s - bb)) + (c - bb);
        let bits = s.to_bits();
        let biased = (bits >> 52) & 0x7ff;
        let rounded =
            (bits + (1u64 << (DROP - 1)) - 1 + ((bits >> DROP) & 1)) & !((1u64 << DROP) - 1);
        let r = f64::from_bits(rounded);
        let ok = (1023 - 14..=1023 + 15).contains(&biased) & (e == 0.0) & (r.abs() <= 65504.0);
        out[x] = r as f32;
        flags[x] = u8::from(!ok);
        any |= flags[x];
    }
    if any != 0 {
        for x in 0..n {
            if flags[x] != 0 {
                out[x] = match acc {
                    Some(acc) => fma16(a, v[x], acc[x]),
                    None => mul16(a, v[x]),
                };
            }
        }
    }
}

#[inline(always)]
fn sweep16_rows(grid: Grid3, k: &Coefficients<f32>, power: &[f32], tin: &[f32], tout: &mut [f32]) {
    let (nx, ny, nz) = (grid.nx(), grid.ny(), grid.nz());
    assert!(tin.len() == grid.cells() && tout.len() == grid.cells() && power.len() == grid.cells());
    let (mut west, mut east) = (vec![0.0f32; nx], vec![0.0f32; nx]);
    let (mut acc, mut next) = (vec![0.0f32; nx], vec![0.0f32; nx]);
    let mut flags = vec![0u8; nx];
    // The last operand of the chain is the ambient temperature in every cell.
    let ambient = vec![k.amb; nx];
    for z in 0..nz {
        for y in 0..ny {
            let (start, [cen, nor, sou, bot, top]) = rows_around(grid, tin, y, z);
            west[0] = cen[0];
            west[1..].copy_from_slice(&cen[..nx - 1]);
            east[..nx - 1].copy_from_slice(&cen[1..]);
            east[nx - 1] = cen[nx - 1];
            let p = &power[start..start + nx];
            fma16_lanes(k.cc, cen, None, &mut acc, &mut flags);
            for (w, v) in [
                (k.cw, &west[..]),
                (k.ce, &east[..]),
                (k.cs, sou),
                (k.cn, nor),
                (k.cb, bot),
                (k.ct, top),
                (k.sdc, p),
            ] {
                fma16_lanes(w, v, Some(&acc), &mut next, &mut flags);
                std::mem::swap(&mut acc, &mut next);
            }
            fma16_lanes(
                k.ct,
                &ambient,
                Some(&acc),
                &mut tout[start..start + nx],
                &mut flags,
            );
        }
    }
}

/// What one call of a kernel version did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The stencil ran.
    Computed,
    /// Loop perforation skipped this iteration.
    Skipped,
}

/// Runs one iteration of `version` on `state` (which must be in the
/// version's format: see [`State::converted`]), using `scratch` as the
/// output buffer. `double` is not a state version: use [`sweep64`].
/// A perforation counter above 5 (only a hand-built [`State`] has one) is
/// treated as 5: the iteration is skipped and the counter reset to 0.
///
/// # Panics
/// When `state.values` (a public field) does not hold one value per cell of
/// `app`'s grid (see [`sweep`]).
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D, version::Version};
/// use boundgate::kernels::interleave::stencil::{advance, Step};
/// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
/// let mut s = app.initial_state(Version::Looperf).unwrap();
/// let mut scratch = Vec::new();
/// let steps: Vec<Step> = (0..7).map(|_| advance(&app, Version::Looperf, &mut s, &mut scratch)).collect();
/// assert_eq!(steps[5], Step::Skipped);
/// assert_eq!(steps.iter().filter(|s| **s == Step::Skipped).count(), 1);
/// ```
pub fn advance(
    app: &HotSpot3D,
    version: Version,
    state: &mut State,
    scratch: &mut Vec<f32>,
) -> Step {
    debug_assert!(!state.needs_conversion(version), "convert before advancing");
    if version == Version::Looperf {
        // Fig. 5.2: `if (5 == count) count = 0; else { compute; count++ }`.
        // `>=`: a hand-built state's counter beyond 5 (the field is public)
        // resets like 5 instead of counting up to a `u8` overflow.
        if state.perforation >= 5 {
            state.perforation = 0;
            return Step::Skipped;
        }
        state.perforation += 1;
    }
    scratch.resize(state.values.len(), 0.0);
    let grid = app.grid();
    match version {
        Version::Half => sweep16(
            grid,
            app.coefficients16(),
            app.power16(),
            &state.values,
            scratch,
        ),
        Version::Float | Version::Looperf | Version::Double => sweep32(
            grid,
            app.coefficients32(),
            app.power32(),
            &state.values,
            scratch,
        ),
    }
    std::mem::swap(&mut state.values, scratch);
    Step::Computed
}

/// The largest magnitude of a state and its first non-finite value, if any.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::stencil::scan;
/// assert_eq!(scan(&[1.0, -3.5, 2.0]), (3.5, None)); // the largest magnitude
/// assert_eq!(scan(&[]), (0.0, None));
/// let (max, bad) = scan(&[1.0, f32::NAN, f32::INFINITY]);
/// assert_eq!(max, f64::INFINITY);
/// assert!(matches!(bad, Some((1, v)) if v.is_nan())); // the first non-finite one
/// ```
pub fn scan(values: &[f32]) -> (f64, Option<(usize, f64)>) {
    let mut max = 0.0f32;
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() {
            return (f64::INFINITY, Some((i, f64::from(v))));
        }
        max = max.max(v.abs());
    }
    (f64::from(max), None)
}

/// [`scan`] for binary64 values.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::stencil::scan64;
/// assert_eq!(scan64(&[-1e300, 2.0]), (1e300, None));
/// assert_eq!(scan64(&[0.0, f64::NEG_INFINITY, f64::NAN]), (f64::INFINITY, Some((1, f64::NEG_INFINITY))));
/// ```
pub fn scan64(values: &[f64]) -> (f64, Option<(usize, f64)>) {
    let mut max = 0.0f64;
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() {
            return (f64::INFINITY, Some((i, v)));
        }
        max = max.max(v.abs());
    }
    (max, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boundgate_verify::format::{Format, RoundingMode};

    /// The chain, evaluated with the checker's correctly rounded operations.
    fn reference_cell(f: Format, k: &Coefficients<f64>, v: [f64; 8]) -> f64 {
        let rne = RoundingMode::NearestEven;
        let mut acc = f.mul(k.cc, v[0], rne);
        for (w, x) in [k.cw, k.ce, k.cs, k.cn, k.cb, k.ct, k.sdc, k.ct]
            .into_iter()
            .zip([v[1], v[2], v[3], v[4], v[5], v[6], v[7], k.amb])
        {
            acc = f.fma(w, x, acc, rne);
        }
        acc
    }

    #[test]
    fn advance_resets_a_perforation_counter_beyond_five() {
        let app = HotSpot3D::synthetic(Grid3::new(4, 4, 1).unwrap(), 1).unwrap();
        let mut s = app.initial_state(Version::Looperf).unwrap();
        s.perforation = u8::MAX;
        let mut scratch = Vec::new();
        assert_eq!(
            advance(&app, Version::Looperf, &mut s, &mut scratch),
            Step::Skipped
        );
        assert_eq!(s.perforation, 0);
        assert_eq!(
            advance(&app, Version::Looperf, &mut s, &mut scratch),
            Step::Computed
        );
    }

    #[test]
    fn sweeps_follow_the_documented_chain_with_the_checkers_arithmetic() {
        let grid = Grid3::new(5, 3, 3).unwrap();
        let app = HotSpot3D::synthetic(grid, 7).unwrap();
        for (version, format) in [
            (Version::Float, Format::FP32),
            (Version::Half, Format::FP16),
        ] {
            let s = app.initial_state(version).unwrap();
            let mut out = vec![0.0; grid.cells()];
            let k = if version == Version::Half {
                app.coefficients16()
            } else {
                app.coefficients32()
            };
            let p = if version == Version::Half {
                app.power16()
            } else {
                app.power32()
            };
            let f = if version == Version::Half {
                sweep16
            } else {
                sweep32
            };
            f(grid, k, p, &s.values, &mut out);
            let k64 = k.map(f64::from);
            for z in 0..3 {
                for y in 0..3 {
                    for x in 0..5 {
                        let at = |xx: usize, yy: usize, zz: usize| {
                            f64::from(s.values[grid.index(xx, yy, zz)])
                        };
                        let c = grid.index(x, y, z);
                        let v = [
                            at(x, y, z),
                            at(x.saturating_sub(1), y, z),
                            at((x + 1).min(4), y, z),
                            at(x, (y + 1).min(2), z),
                            at(x, y.saturating_sub(1), z),
                            at(x, y, z.saturating_sub(1)),
                            at(x, y, (z + 1).min(2)),
                            f64::from(p[c]),
                        ];
                        let want = reference_cell(format, &k64, v);
                        assert_eq!(
                            f64::from(out[c]).to_bits(),
                            want.to_bits(),
                            "{version} cell {c}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn row_wise_binary16_sweep_equals_the_cell_wise_chain() {
        for (grid, seed) in [("9x4x3", 1u64), ("1x3x2", 2), ("2x1x1", 3), ("33x5x2", 4)] {
            let grid: Grid3 = grid.parse().unwrap();
            let app = HotSpot3D::synthetic(grid, seed).unwrap();
            let mut s = app.initial_state(Version::Half).unwrap();
            // Exercise the slow lanes too: zeros, subnormals, huge values.
            s.values[0] = 0.0;
            s.values[grid.cells() - 1] = 3.0e-6;
            if grid.cells() > 3 {
                s.values[2] = 60000.0;
            }
            let (mut a, mut b) = (vec![0.0; grid.cells()], vec![0.0; grid.cells()]);
            sweep16(grid, app.coefficients16(), app.power16(), &s.values, &mut a);
            sweep::<Binary16>(grid, app.coefficients16(), app.power16(), &s.values, &mut b);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{grid}");
        }
    }

    #[test]
    fn hardware_and_library_fma_give_the_same_bits() {
        let grid = Grid3::new(9, 4, 2).unwrap();
        let app = HotSpot3D::synthetic(grid, 3).unwrap();
        let s = app.initial_state(Version::Float).unwrap();
        let (mut a, mut b) = (vec![0.0; grid.cells()], vec![0.0; grid.cells()]);
        sweep32(grid, app.coefficients32(), app.power32(), &s.values, &mut a);
        sweep::<Binary32>(grid, app.coefficients32(), app.power32(), &s.values, &mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn degenerate_grids_use_the_cell_itself_as_neighbour() {
        let grid = Grid3::new(1, 1, 1).unwrap();
        let app = HotSpot3D::new(grid, vec![300.0], vec![0.0]).unwrap();
        let s = app.initial_state(Version::Float).unwrap();
        let mut out = vec![0.0];
        sweep32(
            grid,
            app.coefficients32(),
            app.power32(),
            &s.values,
            &mut out,
        );
        let k = app.coefficients32().map(f64::from);
        let want = reference_cell(
            Format::FP32,
            &k,
            [300.0, 300.0, 300.0, 300.0, 300.0, 300.0, 300.0, 0.0],
        );
        assert_eq!(f64::from(out[0]), want);
    }
}
