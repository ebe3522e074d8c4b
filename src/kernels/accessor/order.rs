//! The summation orders of the accessor GPU kernels (`kernels/accessor_blas.cu`),
//! written sequentially so that the CPU models produce the GPU's bits, and the
//! depth of each order (the most roundings any term passes through), which
//! the bounds use instead of `n` (`boundgate_verify::bounds::accessor`).
//!
//! Building blocks, each mirrored line for line by a device function in
//! `kernels/accessor_blas.cu`:
//!
//! - [`warp_tree`]: 32 lanes, `v[l] = v[l] + v[l + off]` for `off = 16, 8, 4,
//!   2, 1` and `l < off` (`__shfl_down_sync`; lanes `l >= off` also add, but
//!   nothing reads them again). Lane 0 holds the sum.
//! - [`warp_dot`]: a warp computes one dot product: lane `l` runs an FMA chain
//!   over the terms `k = l, l + 32, ...`, then [`warp_tree`]. Used by GEMV
//!   (one warp per row), CSR SpMV (each row by one warp; the kernel gives a
//!   warp four rows, each in this order) and the TRSV update.
//! - [`block_reduce`]: a block of `W` warps: a [`warp_tree`] per warp, then
//!   warp 0 reduces the `W` warp sums padded with zeros to 32 lanes.
//! - [`split_chain_dot`]: one thread's dot product over `W` interleaved FMA
//!   chains summed as a tree (the TRSV's product with a block's inverse).
//! - [`grid_dot`]: DOT: `B` blocks of 256 threads, grid-stride FMA chains,
//!   [`block_reduce`] per block, then one block of 1024 threads reduces the `B`
//!   partial sums (padded with zeros) with [`block_reduce`].

use super::arith::Arith;
use boundgate_verify::bounds::accessor::padded_tree_depth;
use serde::Serialize;

/// Threads per warp.
pub const WARP: usize = 32;

/// Threads per block of the DOT kernel's first launch.
pub const DOT_THREADS: usize = 256;
/// Most blocks of the DOT kernel (the final launch reduces them in one block).
pub const DOT_MAX_BLOCKS: usize = 1024;
/// Threads of the DOT kernel's final launch.
pub const DOT_FINAL_THREADS: usize = 1024;

/// The warp shuffle tree over 32 lanes (module docs); returns lane 0.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::warp_tree;
/// let mut lanes = [0.0f32; 32];
/// lanes[0] = 16_777_216.0; // 2^24
/// lanes[16] = 1.0;
/// lanes[8] = 1.0;
/// // Level 16 adds lane 16 into lane 0 (2^24 + 1 ties to 2^24), level 8 adds
/// // lane 8: in fp32 the two ones are lost one by one.
/// assert_eq!(warp_tree(&mut lanes), 16_777_216.0);
/// ```
#[inline]
pub fn warp_tree<A: Arith>(lanes: &mut [A; WARP]) -> A {
    let mut off = WARP / 2;
    while off > 0 {
        for l in 0..off {
            lanes[l] = A::add(lanes[l], lanes[l + off]);
        }
        off /= 2;
    }
    lanes[0]
}

/// A warp's dot product of `len` terms `term(k) = (a_k, b_k)`: FMA chains per
/// lane over `k = l, l + 32, ...`, then [`warp_tree`].
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::warp_dot;
/// let a = [1.0f64, 2.0, 3.0];
/// let b = [4.0f64, 5.0, 6.0];
/// assert_eq!(warp_dot(3, |k| (a[k], b[k])), 32.0);
/// ```
#[inline]
pub fn warp_dot<A: Arith>(len: usize, term: impl Fn(usize) -> (A, A)) -> A {
    let mut lanes = [A::ZERO; WARP];
    for k in 0..len {
        let (a, b) = term(k);
        // Term k belongs to lane k mod 32, and increasing k visits each lane's
        // terms in its own order, so one pass reproduces every lane's chain.
        let lane = &mut lanes[k % WARP];
        *lane = A::fma(a, b, *lane);
    }
    warp_tree(&mut lanes)
}

/// The depth of [`warp_dot`] on `len` terms: `ceil(len / 32)` FMAs and
/// `ceil(log2 min(len, 32))` tree levels that can round.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::warp_dot_depth;
/// assert_eq!(warp_dot_depth(0), 0);
/// assert_eq!(warp_dot_depth(1), 1);
/// assert_eq!(warp_dot_depth(1000), 32 + 5);
/// ```
pub fn warp_dot_depth(len: usize) -> u64 {
    len.div_ceil(WARP) as u64 + padded_tree_depth(len.min(WARP))
}

/// The most accumulators [`split_chain_dot`] takes (`TRSV_CHAIN_WAYS`'s range
/// in `kernels/accessor_blas.cu`).
pub const MAX_CHAIN_WAYS: usize = 8;

/// One thread's dot product of `len` terms `term(k) = (a_k, b_k)` over `ways`
/// (1 to [`MAX_CHAIN_WAYS`]) interleaved FMA chains: chain `w` runs over `k =
/// w, w + ways, ...` in increasing `k` from `+0`; then the chains are summed as
/// a tree, `part[w] = part[w] + part[w + s]` for `s = 1, 2, 4` (`w` a multiple
/// of `2 s`, `w + s < ways`), `part[0]` the sum. `trsv_apply_inverse` in
/// `kernels/accessor_blas.cu` (the TRSV's product with a block's inverse, whose
/// chain is on the pipelined solve's critical path); `ways = 1` is one FMA
/// chain.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::split_chain_dot;
/// let a = [1.0f32, 1.0, 1.0, 1.0, 1.0];
/// let b = [16_777_216.0f32, 1.0, -16_777_216.0, 1.0, 0.0]; // 2^24
/// // One chain: 2^24 + 1 ties to 2^24, and the first one is lost: 1.
/// assert_eq!(split_chain_dot(1, 5, |k| (a[k], b[k])), 1.0);
/// // Two chains: (2^24 - 2^24 + 0) + (1 + 1) = 2.
/// assert_eq!(split_chain_dot(2, 5, |k| (a[k], b[k])), 2.0);
/// ```
#[inline]
pub fn split_chain_dot<A: Arith>(ways: usize, len: usize, term: impl Fn(usize) -> (A, A)) -> A {
    debug_assert!((1..=MAX_CHAIN_WAYS).contains(&ways));
    let mut part = [A::ZERO; MAX_CHAIN_WAYS];
    for k in 0..len {
        let (a, b) = term(k);
        part[k % ways] = A::fma(a, b, part[k % ways]);
    }
    let mut s = 1;
    while s < ways {
        let mut w = 0;
        while w + s < ways {
            part[w] = A::add(part[w], part[w + s]);
            w += 2 * s;
        }
        s *= 2;
    }
    part[0]
}

/// The depth of [`split_chain_dot`] on `len` terms: `ceil(len / ways)` FMAs
/// and `ceil(log2 min(len, ways))` tree levels that can round (slot `w` holds
/// the chains `w .. w + s - 1` at level `s`, so a level meets a chain with a
/// term only if `s < min(len, ways)`; adding the `+0` of an empty chain is
/// exact).
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::split_chain_depth;
/// assert_eq!(split_chain_depth(32, 1), 32);
/// assert_eq!(split_chain_depth(32, 4), 8 + 2);
/// assert_eq!(split_chain_depth(2, 4), 1 + 1);
/// assert_eq!(split_chain_depth(0, 4), 0);
/// ```
pub fn split_chain_depth(len: usize, ways: usize) -> u64 {
    len.div_ceil(ways.max(1)) as u64 + padded_tree_depth(len.min(ways))
}

/// A block's reduction of `values` (one per thread, a multiple of 32, at most
/// 1024): a [`warp_tree`] per warp, then the warp sums, padded with `+0` to 32
/// lanes, through one more [`warp_tree`].
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::block_reduce;
/// let values: Vec<f64> = (0..256).map(f64::from).collect();
/// assert_eq!(block_reduce(&values), 255.0 * 256.0 / 2.0);
/// ```
pub fn block_reduce<A: Arith>(values: &[A]) -> A {
    debug_assert!(values.len().is_multiple_of(WARP) && values.len() <= WARP * WARP);
    let mut sums = [A::ZERO; WARP];
    for (w, chunk) in values.chunks_exact(WARP).enumerate() {
        let mut lanes: [A; WARP] = chunk.try_into().expect("32 lanes");
        sums[w] = warp_tree(&mut lanes);
    }
    warp_tree(&mut sums)
}

/// The depth of [`block_reduce`] when only the first `m` values can be nonzero.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::block_reduce_depth;
/// assert_eq!(block_reduce_depth(256), 5 + 3); // a warp's tree, then 8 warp sums
/// assert_eq!(block_reduce_depth(1024), 5 + 5);
/// assert_eq!(block_reduce_depth(1), 0); // added only to zeros: exact
/// ```
pub fn block_reduce_depth(m: usize) -> u64 {
    padded_tree_depth(m.min(WARP)) + padded_tree_depth(m.div_ceil(WARP))
}

/// The launch geometry of the DOT kernel for `n` terms: 256 threads per block,
/// one block per 256 terms, at most 1024 blocks. It depends on `n` only, so a
/// result is the same on every GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GridConfig {
    /// Threads per block.
    pub threads: usize,
    /// Blocks.
    pub blocks: usize,
}

impl GridConfig {
    /// The geometry for `n` terms.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::order::GridConfig;
    /// assert_eq!(GridConfig::for_len(1000).blocks, 4);
    /// assert_eq!(GridConfig::for_len(100_000_000).blocks, 1024);
    /// ```
    pub fn for_len(n: usize) -> GridConfig {
        GridConfig {
            threads: DOT_THREADS,
            blocks: n.div_ceil(DOT_THREADS).clamp(1, DOT_MAX_BLOCKS),
        }
    }

    /// The depth of [`grid_dot`] on `n` terms: the longest FMA chain
    /// `ceil(n / (T B))`, the block reduction over the threads of block 0
    /// that hold terms (`min(T, n)`), the final reduction over `B` partials.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::order::GridConfig;
    /// let n = 1 << 20;
    /// // 4 FMAs, 5 + 3 levels per block, 5 + 5 levels over 1024 partials.
    /// assert_eq!(GridConfig::for_len(n).depth(n), 4 + 8 + 10);
    /// assert_eq!(GridConfig::for_len(1).depth(1), 1);
    /// ```
    pub fn depth(&self, n: usize) -> u64 {
        let chains = n.div_ceil(self.threads * self.blocks) as u64;
        chains + block_reduce_depth(self.threads.min(n)) + block_reduce_depth(self.blocks)
    }
}

/// The DOT kernel's result on values already read into the arithmetic format.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::order::grid_dot;
/// let x = vec![0.5f64; 3000];
/// let y = vec![2.0f64; 3000];
/// assert_eq!(grid_dot(&x, &y).0, 3000.0);
/// ```
pub fn grid_dot<A: Arith>(x: &[A], y: &[A]) -> (A, GridConfig) {
    debug_assert_eq!(x.len(), y.len());
    let config = GridConfig::for_len(x.len());
    let all = config.threads * config.blocks;
    // accumulators[b T + t] is thread t of block b; term i belongs to thread
    // i mod (T B), visited in its own order by increasing i.
    let mut accumulators = vec![A::ZERO; all];
    for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
        let acc = &mut accumulators[i % all];
        *acc = A::fma(a, b, *acc);
    }
    let mut partials = vec![A::ZERO; DOT_FINAL_THREADS];
    for (p, block) in partials
        .iter_mut()
        .zip(accumulators.chunks_exact(config.threads))
    {
        *p = block_reduce(block);
    }
    (block_reduce(&partials), config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The DOT kernel written thread by thread with explicit shuffles, as the
    /// CUDA code does, for comparison with the compact model.
    fn dot_thread_by_thread(x: &[f32], y: &[f32]) -> f32 {
        let n = x.len();
        let config = GridConfig::for_len(n);
        let (t_count, b_count) = (config.threads, config.blocks);
        let shfl_reduce = |vals: &mut Vec<f32>| {
            // One warp: every lane adds the lane `off` above it (its own value
            // beyond the warp, as __shfl_down_sync returns), all lanes at once.
            let mut off = 16;
            while off > 0 {
                let before = vals.clone();
                for l in 0..32 {
                    let other = if l + off < 32 {
                        before[l + off]
                    } else {
                        before[l]
                    };
                    vals[l] = before[l] + other;
                }
                off /= 2;
            }
            vals[0]
        };
        let block = |values: &[f32]| -> f32 {
            let warps = values.len() / 32;
            let mut sums = vec![0.0f32; 32];
            for w in 0..warps {
                let mut lanes = values[w * 32..(w + 1) * 32].to_vec();
                sums[w] = shfl_reduce(&mut lanes);
            }
            shfl_reduce(&mut sums)
        };
        let mut partials = vec![0.0f32; DOT_FINAL_THREADS];
        for (b, partial) in partials.iter_mut().enumerate().take(b_count) {
            let mut acc = vec![0.0f32; t_count];
            for (t, a) in acc.iter_mut().enumerate() {
                let mut i = b * t_count + t;
                while i < n {
                    *a = x[i].mul_add(y[i], *a);
                    i += t_count * b_count;
                }
            }
            *partial = block(&acc);
        }
        block(&partials)
    }

    #[test]
    fn grid_dot_equals_the_kernel_written_thread_by_thread() {
        let seed = 0x0d07;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for n in [1, 5, 31, 256, 257, 1000, 70_000, 300_000] {
            let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
            let (model, _) = grid_dot(&x, &y);
            assert_eq!(
                model.to_bits(),
                dot_thread_by_thread(&x, &y).to_bits(),
                "n={n}"
            );
        }
    }

    #[test]
    fn depths_count_the_rounding_levels() {
        assert_eq!(block_reduce_depth(256), 8);
        assert_eq!(block_reduce_depth(1), 0);
        assert_eq!(block_reduce_depth(33), 5 + 1);
        assert_eq!(GridConfig::for_len(300).depth(300), 1 + 8 + 1);
        assert_eq!(warp_dot_depth(32), 1 + 5);
        assert_eq!(warp_dot_depth(33), 2 + 5);
        assert_eq!(warp_dot_depth(5), 1 + 3);
    }

    /// Counts roundings instead of computing: a value is (roundings on the
    /// longest path to it, nonzero?). Adding an exact zero does not round.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Depth(u64, bool);

    impl Arith for Depth {
        const FORMAT: boundgate_verify::format::Format = boundgate_verify::format::Format::FP64;
        const ZERO: Depth = Depth(0, false);
        const ONE: Depth = Depth(0, true);
        fn of(v: f64) -> Depth {
            Depth(0, v != 0.0)
        }
        fn to_f64(self) -> f64 {
            self.0 as f64
        }
        fn fma(a: Depth, b: Depth, c: Depth) -> Depth {
            // The product may be inexact: an FMA with a nonzero product rounds.
            if a.1 && b.1 {
                Depth(a.0.max(b.0).max(c.0) + 1, true)
            } else {
                c
            }
        }
        fn add(a: Depth, b: Depth) -> Depth {
            match (a.1, b.1) {
                (true, true) => Depth(a.0.max(b.0) + 1, true),
                (true, false) => a,
                (false, true) => b,
                (false, false) => Depth::ZERO,
            }
        }
        fn sub(a: Depth, b: Depth) -> Depth {
            Depth::add(a, b)
        }
        fn mul(a: Depth, b: Depth) -> Depth {
            Depth(a.0.max(b.0) + 1, a.1 && b.1)
        }
        fn div(a: Depth, b: Depth) -> Depth {
            Depth::mul(a, b)
        }
        fn neg(a: Depth) -> Depth {
            a
        }
        fn is_finite(self) -> bool {
            true
        }
    }

    #[test]
    fn the_depths_are_the_longest_rounding_paths() {
        for n in [
            1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 8191, 70_000, 262_144, 262_145,
        ] {
            let ones = vec![Depth(0, true); n];
            let (d, config) = grid_dot(&ones, &ones);
            assert_eq!(d.0, config.depth(n), "grid n={n}");
            let w = warp_dot(n, |k| (ones[k], ones[k]));
            assert_eq!(w.0, warp_dot_depth(n), "warp n={n}");
        }
    }

    /// `split_chain_depth` is the longest rounding path of
    /// `split_chain_dot` for every chain count and length up to 70.
    #[test]
    fn split_chain_depth_is_the_longest_rounding_path() {
        for ways in 1..=MAX_CHAIN_WAYS {
            for len in 0..=70 {
                let one = Depth(0, true);
                let d = split_chain_dot(ways, len, |_| (one, one));
                assert_eq!(d.0, split_chain_depth(len, ways), "ways {ways} len {len}");
            }
        }
    }

    /// `warp_tree4` of kernels/accessor_blas.cu (the CSR kernel's four rows
    /// per warp) written shuffle by shuffle: `__shfl_xor_sync(v, m)` gives
    /// lane `l` the value lane `l ^ m` offered, `__shfl_down_sync(v, off)`
    /// lane `l + off`'s (its own past lane 31). Row `r`'s sum lands in lane
    /// `8 r`.
    fn warp_tree4_lane_by_lane<A: Arith>(v: &[[A; WARP]; 4]) -> [A; 4] {
        let lanes = 0..WARP;
        let low = |l: usize| l < 16;
        // Offset 16: each lane offers the two rows its partner keeps.
        let offer_a: Vec<A> = lanes
            .clone()
            .map(|l| if low(l) { v[2][l] } else { v[0][l] })
            .collect();
        let offer_b: Vec<A> = lanes
            .clone()
            .map(|l| if low(l) { v[3][l] } else { v[1][l] })
            .collect();
        let (mut x0, mut x1) = ([A::ZERO; WARP], [A::ZERO; WARP]);
        for l in lanes.clone() {
            let (a, b) = (offer_a[l ^ 16], offer_b[l ^ 16]);
            if low(l) {
                x0[l] = A::add(v[0][l], a);
                x1[l] = A::add(v[1][l], b);
            } else {
                x0[l] = A::add(a, v[2][l]);
                x1[l] = A::add(b, v[3][l]);
            }
        }
        // Offset 8, within each half.
        let first = |l: usize| (l & 15) < 8;
        let offer_c: Vec<A> = lanes
            .clone()
            .map(|l| if first(l) { x1[l] } else { x0[l] })
            .collect();
        let mut y = [A::ZERO; WARP];
        for l in lanes.clone() {
            let c = offer_c[l ^ 8];
            y[l] = if first(l) {
                A::add(x0[l], c)
            } else {
                A::add(c, x1[l])
            };
        }
        for off in [4, 2, 1] {
            let before = y;
            for l in lanes.clone() {
                let down = if l + off < WARP {
                    before[l + off]
                } else {
                    before[l]
                };
                y[l] = A::add(before[l], down);
            }
        }
        [y[0], y[8], y[16], y[24]]
    }

    /// The four trees sharing their shuffles give each row `warp_tree`'s sum
    /// bit for bit, signed zeros included (lanes without entries hold +0;
    /// `-0 + +0` is `+0` either way round), in binary64 and binary32. The
    /// CSR kernel's results rest on this (the device bit-compare,
    /// tests/accessor_gpu.rs, checks them on the H100).
    #[test]
    fn four_trees_sharing_shuffles_are_four_warp_trees() {
        let seed = 0x7ee4;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let value = |rng: &mut ChaCha8Rng| -> f64 {
            match rng.random_range(0..6) {
                0 => 0.0,
                1 => -0.0,
                _ => rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-30..30)),
            }
        };
        for case in 0..5000 {
            let mut v64 = [[0.0f64; WARP]; 4];
            for row in v64.iter_mut() {
                for lane in row.iter_mut() {
                    *lane = value(&mut rng);
                }
            }
            let v32 = v64.map(|row| row.map(|x| x as f32));
            let shared64 = warp_tree4_lane_by_lane(&v64);
            let shared32 = warp_tree4_lane_by_lane(&v32);
            for r in 0..4 {
                let mut lanes64 = v64[r];
                let mut lanes32 = v32[r];
                assert_eq!(
                    shared64[r].to_bits(),
                    warp_tree(&mut lanes64).to_bits(),
                    "case {case} row {r} (binary64)"
                );
                assert_eq!(
                    shared32[r].to_bits(),
                    warp_tree(&mut lanes32).to_bits(),
                    "case {case} row {r} (binary32)"
                );
            }
        }
    }
}
