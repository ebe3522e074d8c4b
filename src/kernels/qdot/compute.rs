//! The computation phase, Algorithm 3.1, in a fixed order that the GPU kernel
//! (`kernels/qdot.cu`) reproduces bit for bit.
//!
//! **Per bin** (precision `pi_k`, arithmetic: cast format `F`, accumulator `C`):
//! 1. scaling (§3.2): `a_j = x_j 2^-fexp(x_j)`, `b_j = y_j 2^-(u_k - fexp(x_j))`,
//!    exact, so `x_j y_j = a_j b_j 2^(u_k)` (exact binning). With Algorithm
//!    3.2's bins `u_k - fexp(x_j) = fexp(y_j)`, so both lie in `[1/2, 2)`;
//!    with Def. 3.1's bins of the products (`Binning::Product`) `b_j` lies
//!    in `[1/4, 4)`, normal in every format here;
//! 2. cast: `a^_j = fl_F(a_j)`, `b^_j = fl_F(b_j)` (round to nearest even);
//! 3. tiles: the vector is cut into `m = ceil(n / T)` tiles of at most `T`
//!    indices: `T` consecutive indices each ([`TileLayout::Contiguous`], the
//!    default), or the indices `t, t + m, t + 2m, ...` for tile `t`
//!    ([`TileLayout::Interleaved`], coalesced on a GPU); within a
//!    tile the bin's elements are accumulated in ascending index order,
//!    `s = fl_C(s + a^_j b^_j)` with one rounding (an FMA in `C`), except for
//!    pure fp16 where the product is rounded to fp16 first; the chain starts
//!    from 0, so its first step is the rounded product;
//! 4. tree: the tile results `t_0 .. t_{m-1}` of the bin, one per tile of the
//!    whole vector (0 where the tile holds none of its elements), are summed
//!    in `C` level by level: `t'_i = t_{2i} + t_{2i+1}`, an odd last element
//!    carried up unchanged, until one is left (`m = ceil(n / T)`);
//! 5. the bin sum is rounded to the input precision `I`, then multiplied by
//!    `2^(u_k)` in `I` (one rounding, exact unless the result is subnormal).
//!
//! **Across bins** (line 7): the results of the computed bins are summed in
//! `I` in ascending exponent order, `z = ((z_1 + z_2) + z_3) + ...`;
//! perforated bins are skipped.
//!
//! **Early exit** (Theorem 3.6): the original kernel, steps 3-4 on the
//! unscaled inputs over all indices in the input level's arithmetic, then one
//! rounding to `I` ([`original_dot`]).
//!
//! **GPU lanes.** The GPU computes pure-fp16 bins on fp16x2 with this same
//! order: the two lanes of a packed accumulator are the chains of two
//! adjacent tiles (`2p`, `2p + 1`), each step one `mul.rn.f16x2` and one
//! `add.rn.f16x2` (the step 3 of each lane's own chain), a lane outside the
//! bin left unchanged; the tree then starts from those tile results. Tiles are
//! independent, so no lane-specific order is needed here
//! (`tests/qdot_half2.rs` replays the lane schedule against [`compute`]).
//! fp16 with fp32 accumulation is what tensor cores compute (exact fp16
//! products, fp32 sums); the GPU does it with fp32 FMAs in this order.
//!
//! fp16 and bfloat16 products of scaled values (`a` in `[1/2, 2)`, `b` in
//! `[1/4, 4)`, products in `[1/8, 8]` with at most 22 significant bits) are exact in fp32, so
//! `fl_32(s + a b)` is computed as an fp32 addition of the fp32 product; fp32
//! and fp64 chains use the hardware FMA (`mul_add`, correctly rounded); other
//! combinations go through `Format::fma` (correct rounding into any format).

use super::config::{Level, QdotConfig, TileLayout};
use super::select::Selection;
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{BinArithmetic, Fexp, TileOrder};
use boundgate_verify::error::{Result, require_same_len};
use boundgate_verify::format::{Fixed, Format, RoundingMode};

const RNE: RoundingMode = RoundingMode::NearestEven;

/// The arithmetic of a chain, specialised where native types are exact.
#[derive(Clone, Copy, Debug)]
enum Arith {
    /// fp64 values, fp64 FMA.
    F64,
    /// fp32 values, fp32 FMA.
    F32,
    /// fp16 or bf16 values (`format`), fp32 accumulation.
    NarrowF32(Format),
    /// fp16 values, fp16 products, fp16 sums.
    F16,
    /// Anything else: `accumulator.fma` on values of `format`.
    Generic(BinArithmetic),
}

impl Arith {
    fn of(a: BinArithmetic) -> Arith {
        let (f, c) = (a.format, a.accumulator);
        if f == Format::FP64 && c == Format::FP64 {
            Arith::F64
        } else if f == Format::FP32 && c == Format::FP32 {
            Arith::F32
        } else if (f == Format::FP16 || f == Format::BF16) && c == Format::FP32 {
            Arith::NarrowF32(f)
        } else if f == Format::FP16 && c == Format::FP16 {
            Arith::F16
        } else {
            Arith::Generic(a)
        }
    }

    fn accumulator(self) -> Format {
        match self {
            Arith::F64 => Format::FP64,
            Arith::F32 | Arith::NarrowF32(_) => Format::FP32,
            Arith::F16 => Format::FP16,
            Arith::Generic(a) => a.accumulator,
        }
    }

    /// Rounds a value to the chain's format (the cast, step 2).
    #[inline]
    fn cast(self, v: f64) -> f64 {
        match self {
            Arith::F64 => v,
            Arith::F32 => v as f32 as f64,
            Arith::NarrowF32(f) => f.round(v, RNE),
            Arith::F16 => Format::FP16.round(v, RNE),
            Arith::Generic(a) => a.format.round(v, RNE),
        }
    }

    /// One chain step `s <- fl(s + a b)` on cast values (step 3).
    #[inline]
    fn step(self, s: f64, a: f64, b: f64) -> f64 {
        match self {
            Arith::F64 => a.mul_add(b, s),
            Arith::F32 => (a as f32).mul_add(b as f32, s as f32) as f64,
            // The product of two narrow values may fall outside the fp32 range
            // only for unscaled bf16 (early exit): the FMA is then required.
            Arith::NarrowF32(_) => (a as f32).mul_add(b as f32, s as f32) as f64,
            Arith::F16 => {
                let p = Format::FP16.mul(a, b, RNE);
                Format::FP16.add(s, p, RNE)
            }
            Arith::Generic(g) => g.accumulator.fma(a, b, s, RNE),
        }
    }

    /// A step on scaled values (`a` in `[1/2, 2)`, `b` in `[1/4, 4)` before the
    /// cast), where narrow products are exact in fp32 and need no FMA.
    #[inline]
    fn step_scaled(self, s: f64, a: f64, b: f64) -> f64 {
        match self {
            Arith::NarrowF32(_) => (s as f32 + (a as f32) * (b as f32)) as f64,
            other => other.step(s, a, b),
        }
    }

    /// A tree addition in the accumulator (step 4).
    #[inline]
    fn add(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::F64 => a + b,
            Arith::F32 | Arith::NarrowF32(_) => (a as f32 + b as f32) as f64,
            Arith::F16 => Format::FP16.add(a, b, RNE),
            Arith::Generic(g) => g.accumulator.add(a, b, RNE),
        }
    }
}

/// The level-by-level pairwise tree of step 4, computed in a stream with
/// `O(log m)` state: a binary counter of complete subtrees, merged from the
/// smallest at the end, which pairs exactly as the levels do.
struct Tree {
    arith: Arith,
    stack: Vec<(f64, usize)>,
}

impl Tree {
    fn new(arith: Arith) -> Tree {
        Tree {
            arith,
            stack: Vec::with_capacity(40),
        }
    }

    #[inline]
    fn push(&mut self, v: f64) {
        let mut node = (v, 1usize);
        while let Some(&(top, size)) = self.stack.last() {
            if size != node.1 {
                break;
            }
            self.stack.pop();
            node = (self.arith.add(top, node.0), 2 * size);
        }
        self.stack.push(node);
    }

    fn finish(mut self) -> f64 {
        let Some((mut r, _)) = self.stack.pop() else {
            return 0.0;
        };
        while let Some((left, _)) = self.stack.pop() {
            r = self.arith.add(left, r);
        }
        r
    }
}

/// The level-by-level tree of step 4 written out (the GPU's form): pairs
/// `(t_{2i}, t_{2i+1})`, an odd last element carried up.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::tree_levels;
/// // fp16: ((2048 + 1) + 1) is 2048 twice over; (2048 + (1 + 1)) = 2050.
/// let t = [2048.0, 1.0, 1.0];
/// let add = |a: f64, b: f64| boundgate_verify::format::Format::FP16.add(a, b, boundgate_verify::format::RoundingMode::NearestEven);
/// assert_eq!(tree_levels(&t, add), 2048.0);
/// ```
pub fn tree_levels(values: &[f64], add: impl Fn(f64, f64) -> f64) -> f64 {
    let mut level = values.to_vec();
    if level.is_empty() {
        return 0.0;
    }
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|c| if c.len() == 2 { add(c[0], c[1]) } else { c[0] })
            .collect();
    }
    level[0]
}

/// The tree of step 4 as `qdot_tiles_f64` and `qdot_tree_level_f64` run it
/// together: blocks of `width` consecutive tiles (`width` a power of two)
/// each run the first `log2(width)` levels in place (at stride `h`, the pair
/// `(2i, 2i + 1)` sits at positions `2ih` and `(2i + 1)h`; an odd last
/// element stays where it is), then the block results go through
/// [`tree_levels`]. Equal to [`tree_levels`] for every `width`: a block is an
/// aligned group of `width` tiles, so its first levels pair exactly what the
/// global levels pair (tested below with a non-associative `add`). This is
/// the Rust statement of the kernel's loop, kept beside the tree it must
/// equal; the device test compares the kernel with the CPU model bit for bit.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::{tree_blocked, tree_levels};
/// let t: Vec<f64> = (1..=11).map(f64::from).collect();
/// let add = |a: f64, b: f64| 2.0 * a + 3.0 * b; // records the pairing
/// assert_eq!(tree_blocked(&t, 4, add), tree_levels(&t, add));
/// ```
pub fn tree_blocked(values: &[f64], width: usize, add: impl Fn(f64, f64) -> f64) -> f64 {
    let width = width.max(1);
    let mut partials = Vec::with_capacity(values.len().div_ceil(width));
    for block in values.chunks(width) {
        let mut row = block.to_vec();
        row.resize(width, 0.0);
        let (mut live, mut stride) = (block.len(), 1);
        while stride < width {
            for i in 0..live / 2 {
                row[2 * i * stride] = add(row[2 * i * stride], row[(2 * i + 1) * stride]);
            }
            live = live.div_ceil(2);
            stride <<= 1;
        }
        partials.push(row[0]);
    }
    tree_levels(&partials, add)
}

/// `v 2^e` correctly rounded into `format` (step 5's rescale; `e` may lie
/// outside the `f64` exponent range).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::scale_round;
/// use boundgate_verify::format::Format;
/// // 1.5 * 2^-1074 is a tie between 1 and 2 subnormal ulps: to even
/// assert_eq!(scale_round(1.5, -1074, Format::FP64), f64::from_bits(2));
/// assert_eq!(scale_round(1.5, -1075, Format::FP64), f64::from_bits(1)); // 0.75 ulp
/// assert_eq!(scale_round(3.0, 10, Format::FP64), 3072.0);
/// assert_eq!(scale_round(1.0, -30, Format::FP16), 0.0); // below half the smallest fp16 subnormal
/// assert_eq!(scale_round(1.5, 1024, Format::FP64), f64::INFINITY);
/// ```
pub fn scale_round(v: f64, e: i32, format: Format) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    if (-1022..=1023).contains(&e) {
        let r = v * f64::from_bits(((e + 1023) as u64) << 52);
        // Exact (so correctly rounded) when the result is a normal number of the format.
        if r.is_finite()
            && r.abs() >= format.min_positive_normal()
            && r.abs() <= format.max_finite()
        {
            return r;
        }
    }
    let f = Fixed::from_f64(v);
    match Fixed::from_parts(
        f.negative(),
        f.mantissa(),
        f.exponent().saturating_add(e),
        false,
    ) {
        Some(scaled) => format.round_fixed(scaled, RNE),
        // Unreachable: a value without a sticky bit is always accepted.
        None => f64::NAN,
    }
}

/// `x 2^-e`, exact when the result is normal (the scalings of step 1).
#[inline]
fn scaled(x: f64, fexp: i32) -> f64 {
    if (-1022..=1022).contains(&fexp) {
        x * f64::from_bits(((1023 - fexp) as u64) << 52)
    } else {
        // 2^-fexp is outside the normal range: two exact steps.
        let half = fexp / 2;
        (x * f64::from_bits(((1023 - half) as u64) << 52))
            * f64::from_bits(((1023 - (fexp - half)) as u64) << 52)
    }
}

/// One bin of the selection: its exponent `u_k` and indices (ascending, as
/// the selection's binning keeps them).
#[derive(Clone, Copy)]
struct BinIndices<'a> {
    exponent: i32,
    indices: &'a [u32],
}

/// Step 1-4 for one bin: its sum in the accumulator (as an `f64`).
fn bin_sum(
    x: &[f64],
    y: &[f64],
    bin: BinIndices<'_>,
    arith: Arith,
    fexp: Fexp,
    order: TileOrder,
    layout: TileLayout,
) -> Result<f64> {
    let indices = bin.indices;
    let term = |i: usize| {
        // [`Selection::check_computable`] checks the bins, not each entry of
        // the (public) order: an entry edited past `n` is refused here, by the
        // bounds check indexing would do anyway (no extra scan), where it
        // used to panic (review, 2026-11-29;
        // `tests::an_order_entry_edited_past_n_is_an_error_not_a_panic`).
        let (Some(&a), Some(&b)) = (x.get(i), y.get(i)) else {
            return Err(VerifyError::invalid(
                "selection order entry",
                i,
                format!("the values number {}", x.len()),
            ));
        };
        // Nonzero and finite: the selection checked.
        let fa = fexp.of(a).unwrap_or(0);
        Ok((
            arith.cast(scaled(a, fa)),
            arith.cast(scaled(b, bin.exponent - fa)),
        ))
    };
    let tile = order.tile_len();
    let tiles = order.tiles();
    // The chains of the tiles that hold elements of the bin, by tile: the
    // others are +0, which the tree's additions pass through exactly (no
    // chain is -0: the scaled products are at least 1/4 in magnitude and an
    // exact cancellation gives +0), so the tree runs over these alone
    // (`sparse_tree`), in O(M_k log tiles) instead of O(tiles) per bin (a
    // review measured 5.0 s against 0.3 s for n = 10^6 at tile 1 against 64).
    let mut chains: Vec<(usize, f64)> = Vec::new();
    match layout {
        TileLayout::Contiguous => {
            // Ascending indices: the tiles come in order, one chain open at a time.
            for &i in indices {
                let i = i as usize;
                let t = i / tile;
                let (a, b) = term(i)?;
                match chains.last_mut() {
                    Some((last, chain)) if *last == t => *chain = arith.step_scaled(*chain, a, b),
                    _ => chains.push((t, arith.step_scaled(0.0, a, b))),
                }
            }
        }
        TileLayout::Interleaved => {
            // Ascending indices visit the tiles round-robin: a tile's
            // elements are still in ascending order, so a stable sort by tile
            // keeps each chain's order.
            let mut by_tile: Vec<(usize, usize)> = indices
                .iter()
                .map(|&i| (layout.tile_of(i as usize, tile, tiles), i as usize))
                .collect();
            by_tile.sort_by_key(|&(t, _)| t);
            for (t, i) in by_tile {
                let (a, b) = term(i)?;
                match chains.last_mut() {
                    Some((last, chain)) if *last == t => *chain = arith.step_scaled(*chain, a, b),
                    _ => chains.push((t, arith.step_scaled(0.0, a, b))),
                }
            }
        }
    }
    Ok(sparse_tree(chains, |a, b| arith.add(a, b)))
}

/// [`tree_levels`] over leaves that are `+0` except at the given positions
/// (ascending): at each level the pair `(2i, 2i + 1)` is added where both
/// are present, and a single one is carried up, which is what adding `+0`
/// to it does exactly. Equal to [`tree_levels`] on the dense leaves for any
/// `add` with `add(x, +0) = add(+0, x) = x` (tested below).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::{sparse_tree, tree_levels};
/// let add = |a: f64, b: f64| if a == 0.0 { b } else if b == 0.0 { a } else { 2.0 * a + 3.0 * b };
/// let dense = [0.0, 5.0, 0.0, 0.0, 7.0, 1.0, 0.0, 2.0, 3.0];
/// let sparse: Vec<(usize, f64)> = dense.iter().copied().enumerate().filter(|p| p.1 != 0.0).collect();
/// assert_eq!(sparse_tree(sparse, add), tree_levels(&dense, add));
/// ```
pub fn sparse_tree(mut nodes: Vec<(usize, f64)>, add: impl Fn(f64, f64) -> f64) -> f64 {
    while nodes.len() > 1 || nodes.first().is_some_and(|n| n.0 > 0) {
        let mut next = Vec::with_capacity(nodes.len().div_ceil(2));
        let mut k = 0;
        while k < nodes.len() {
            let (p, v) = nodes[k];
            match nodes.get(k + 1) {
                Some(&(q, w)) if p % 2 == 0 && q == p + 1 => {
                    next.push((p / 2, add(v, w)));
                    k += 2;
                }
                _ => {
                    next.push((p / 2, v));
                    k += 1;
                }
            }
        }
        nodes = next;
    }
    nodes.first().map_or(0.0, |n| n.1)
}

/// The result of the computation phase, with the bin results for reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    /// The approximate dot product `z`.
    pub value: f64,
    /// `z_k` per bin of the selection (0 for perforated bins).
    pub bin_results: Vec<f64>,
}

/// Algorithm 3.1 on the selection's bins (or the original kernel after an
/// early exit). `x`, `y` are the values the selection was made on.
///
/// # Errors
/// [`VerifyError::LengthMismatch`](boundgate_verify::VerifyError) for `x`
/// and `y` of different lengths, and [`Selection::check_computable`]'s
/// errors for a selection that cannot drive the computation on them (made on
/// another length, from a histogram, or with a level `config` lacks): each
/// zipped, sliced or indexed out of range (a panic) until 2026-11-29; and
/// [`VerifyError::InvalidParameter`](boundgate_verify::VerifyError) for an
/// entry of the selection's (public) order past `x`'s length.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
/// use boundgate::kernels::qdot::{compute::compute, select::select};
/// use boundgate_verify::format::Format;
/// let c = QdotConfig::new(Format::FP64).unwrap();
/// let x = [1.0, 2f64.powi(-60), 0.5];
/// let y = [1.0, 1.0, 0.5];
/// let s = select(&x, &y, Tolerance::new(1e-10).unwrap(), &c).unwrap();
/// // 2^-60 is perforated, 1 and 0.25 are computed exactly.
/// assert_eq!(compute(&x, &y, &s, &c).unwrap().value, 1.25);
/// assert!(compute(&x[..2], &y[..2], &s, &c).is_err()); // s was made on 3 values
/// ```
pub fn compute(
    x: &[f64],
    y: &[f64],
    selection: &Selection,
    config: &QdotConfig,
) -> Result<Computed> {
    require_same_len("qdot x and y", x.len(), y.len())?;
    selection.check_computable(x.len(), config.levels().len())?;
    let order = TileOrder {
        n: x.len(),
        tile: config.tile,
    };
    if selection.early_exit {
        return Ok(Computed {
            value: original_dot_in(
                x,
                y,
                config.input_level(),
                config.input,
                order,
                config.layout,
            )?,
            bin_results: Vec::new(),
        });
    }
    let levels = config.levels();
    let input = config.input;
    let mut z: Option<f64> = None;
    let mut bin_results = Vec::with_capacity(selection.n_bins());
    for (k, bin) in selection.bins.iter().enumerate() {
        let Some(level) = bin.level else {
            bin_results.push(0.0);
            continue;
        };
        let arith = Arith::of(levels[level].arithmetic);
        let bin_indices = BinIndices {
            exponent: bin.exponent,
            indices: selection.indices(k),
        };
        let s = bin_sum(x, y, bin_indices, arith, config.fexp, order, config.layout)?;
        let zk = scale_round(input.round(s, RNE), bin.exponent, input);
        bin_results.push(zk);
        z = Some(match z {
            None => zk,
            Some(acc) => input.add(acc, zk, RNE),
        });
    }
    Ok(Computed {
        value: z.unwrap_or(0.0),
        bin_results,
    })
}

/// The original kernel `k(X)`: the dot product of the unscaled inputs in the
/// tiled order, in the input level's arithmetic, rounded once to the input
/// precision. This is what the early exit runs, and the "double precision
/// dot product" of the paper's metrics (the role of `cublasDdot`).
///
/// # Errors
/// [`VerifyError::LengthMismatch`](boundgate_verify::VerifyError) for `x`
/// and `y` of different lengths (zipped until 2026-11-29).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::original_dot;
/// use boundgate::kernels::qdot::config::QdotConfig;
/// use boundgate_verify::bounds::qdot::TileOrder;
/// use boundgate_verify::format::Format;
/// let c = QdotConfig::new(Format::FP64).unwrap();
/// let v = original_dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], c.input_level(), Format::FP64, TileOrder { n: 3, tile: 2 });
/// assert_eq!(v.unwrap(), 32.0);
/// assert!(original_dot(&[1.0], &[], c.input_level(), Format::FP64, TileOrder { n: 1, tile: 2 }).is_err());
/// ```
pub fn original_dot(
    x: &[f64],
    y: &[f64],
    level: Level,
    input: Format,
    order: TileOrder,
) -> Result<f64> {
    original_dot_in(x, y, level, input, order, TileLayout::Contiguous)
}

/// [`original_dot`] with the tiles laid out as `layout` says.
///
/// # Errors
/// As [`original_dot`].
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::compute::original_dot_in;
/// use boundgate::kernels::qdot::config::{QdotConfig, TileLayout};
/// use boundgate_verify::bounds::qdot::TileOrder;
/// use boundgate_verify::format::Format;
/// let c = QdotConfig::new(Format::FP64).unwrap();
/// let order = TileOrder { n: 3, tile: 2 }; // tiles {0, 2} and {1}
/// let v = original_dot_in(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], c.input_level(), Format::FP64, order, TileLayout::Interleaved);
/// assert_eq!(v.unwrap(), 32.0);
/// ```
pub fn original_dot_in(
    x: &[f64],
    y: &[f64],
    level: Level,
    input: Format,
    order: TileOrder,
    layout: TileLayout,
) -> Result<f64> {
    require_same_len("qdot x and y", x.len(), y.len())?;
    let arith = Arith::of(level.arithmetic);
    let tile = order.tile_len();
    let mut tree = Tree::new(arith);
    match layout {
        TileLayout::Contiguous => {
            for (xs, ys) in x.chunks(tile).zip(y.chunks(tile)) {
                let chain = xs
                    .iter()
                    .zip(ys)
                    .fold(0.0, |s, (&a, &b)| arith.step(s, a, b));
                tree.push(chain);
            }
        }
        TileLayout::Interleaved => {
            let tiles = order.tiles();
            for t in 0..tiles {
                let chain = (t..x.len())
                    .step_by(tiles)
                    .fold(0.0, |s, i| arith.step(s, x[i], y[i]));
                tree.push(chain);
            }
        }
    }
    let sum = tree.finish();
    Ok(if arith.accumulator() == input {
        sum
    } else {
        input.round(sum, RNE)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The order's entries are public; one edited past `n` (in either tile
    /// layout) is an `InvalidParameter` naming the entry, where `x[i]`
    /// panicked before (review, 2026-11-29).
    #[test]
    fn an_order_entry_edited_past_n_is_an_error_not_a_panic() {
        use super::super::config::Tolerance;
        use super::super::select::select;
        for layout in [TileLayout::Contiguous, TileLayout::Interleaved] {
            let mut c = QdotConfig::new(Format::FP64).unwrap();
            c.early_exit = false;
            c.layout = layout;
            let eps = Tolerance::new(1e-8).unwrap();
            let (x, y) = ([2.0, 1.0, 0.5], [1.0; 3]);
            let mut s = select(&x, &y, eps, &c).unwrap();
            assert!(compute(&x, &y, &s, &c).is_ok(), "{layout:?}");
            let last = s.order.len() - 1;
            s.order[last] = 3;
            match compute(&x, &y, &s, &c) {
                Err(VerifyError::InvalidParameter { name, .. }) => {
                    assert_eq!(name, "selection order entry", "{layout:?}")
                }
                other => panic!("{layout:?}: expected InvalidParameter, got {other:?}"),
            }
            s.order[last] = u32::MAX;
            assert!(compute(&x, &y, &s, &c).is_err(), "{layout:?}");
        }
    }

    /// The sparse tree over the nonzero leaves is the dense tree, for a
    /// non-associative `add` that records the pairing (seed 12, printed on
    /// failure with the leaves).
    #[test]
    fn the_sparse_tree_pairs_exactly_as_the_dense_levels_do() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let add = |a: f64, b: f64| {
            if a == 0.0 {
                b
            } else if b == 0.0 {
                a
            } else {
                2.0 * a + 3.0 * b + 1.0
            }
        };
        for leaves in 1..130 {
            for density in [0.05, 0.3, 0.9, 1.0] {
                let dense: Vec<f64> = (0..leaves)
                    .map(|_| {
                        if rng.random_range(0.0..1.0) < density {
                            rng.random_range(1.0..4.0f64).floor()
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let sparse: Vec<(usize, f64)> = dense
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|p| p.1 != 0.0)
                    .collect();
                assert_eq!(
                    sparse_tree(sparse, add),
                    tree_levels(&dense, add),
                    "seed 12, leaves {dense:?}"
                );
            }
        }
    }

    #[test]
    fn the_streamed_tree_pairs_exactly_as_the_levels_do() {
        // fp16 additions of random values: any difference in pairing shows.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let arith = Arith::F16;
        for m in 1..80 {
            for _ in 0..20 {
                let v: Vec<f64> = (0..m)
                    .map(|_| Format::FP16.round(rng.random_range(-300.0..300.0), RNE))
                    .collect();
                let mut tree = Tree::new(arith);
                for &x in &v {
                    tree.push(x);
                }
                let streamed = tree.finish();
                let levels = tree_levels(&v, |a, b| arith.add(a, b));
                assert_eq!(streamed.to_bits(), levels.to_bits(), "m = {m}: {v:?}");
            }
        }
    }

    #[test]
    fn the_blocked_tree_of_the_gpu_pairs_exactly_as_the_levels_do() {
        // 2a + 3b on small integers is exact in f64 and neither associative
        // nor commutative: any other pairing or order gives another value.
        let add = |a: f64, b: f64| 2.0 * a + 3.0 * b;
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for m in (1..300).chain([511, 512, 513, 1000, 1024, 1025]) {
            let v: Vec<f64> = (0..m)
                .map(|_| f64::from(rng.random_range(-9i8..=9)))
                .collect();
            let levels = tree_levels(&v, add);
            for width in [1, 2, 4, 8, 32, 64, 128, 256] {
                assert_eq!(
                    tree_blocked(&v, width, add).to_bits(),
                    levels.to_bits(),
                    "m = {m}, width = {width}"
                );
            }
        }
    }

    #[test]
    fn scale_round_is_one_correct_rounding() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..2000 {
            let v: f64 = rng.random_range(-4.0..4.0);
            let e: i32 = rng.random_range(-1200..-1000);
            let got = scale_round(v, e, Format::FP64);
            let exact = rug::Float::with_val(60, v) << e;
            let want = Format::FP64.round_float(&exact, RNE);
            assert_eq!(got.to_bits(), want.to_bits(), "{v} 2^{e}");
        }
        assert_eq!(scale_round(1.0, -25, Format::FP16), 0.0); // a tie: to even (0)
        assert_eq!(scale_round(1.5, -25, Format::FP16), 2f64.powi(-24));
        assert_eq!(scale_round(-1.0, 2000, Format::FP64), f64::NEG_INFINITY);
    }

    #[test]
    fn scaling_is_exact_and_in_range() {
        use boundgate_verify::bounds::qdot::Fexp;
        for v in [
            f64::from_bits(1),
            1e-310,
            0.3,
            0.75,
            1.0,
            3.5,
            1e300,
            f64::MAX,
        ] {
            for d in Fexp::ALL {
                let f = d.of(v).unwrap();
                let s = scaled(v, f);
                assert!((0.5..2.0).contains(&s), "{v} {d} -> {s}");
                assert_eq!(
                    rug::Float::with_val(60, s) << f,
                    rug::Float::with_val(60, v),
                    "{v} {d}"
                );
            }
        }
    }
}
