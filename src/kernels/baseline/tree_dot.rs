//! CPU model of the GPU baseline dot product (`kernels/dot.cu`): the same
//! operations, in the same order, with the same roundings, so that its result
//! equals the GPU's bit for bit.
//!
//! The order, for `T` threads per block and `B` blocks (see the header of
//! `kernels/dot.cu`, which this module mirrors line for line):
//!
//! 1. thread `t` of block `b` starts from `+0` and, for `k = 0, 1, ...` while
//!    `i = b T + t + k T B < n`, computes `acc = fma(x[i], y[i], acc)`;
//! 2. each block sums its `T` accumulators with a pairwise tree
//!    (`s = T/2, T/4, ..., 1`: `sh[t] = sh[t] + sh[t + s]` for `t < s`);
//! 3. one final block sums the `B` block results, padded with `+0` to the
//!    least power of two `P >= B`, with the same tree.
//!
//! Arithmetic: every `fma` and addition is rounded once, to nearest-even, in the
//! accumulation format, through [`Format::fma`] and [`Format::add`] (correctly
//! rounded, with subnormals; for fp32 and fp64 this is IEEE 754 `fusedMultiplyAdd`
//! and `addition`, i.e. exactly what the GPU's `__fmaf_rn`/`__fadd_rn`/`__fma_rn`/
//! `__dadd_rn` compute without flush-to-zero). Using `Format` rather than native
//! `f32` arithmetic lets the same model run in any format (bf16, tf32, ...) for
//! what-if studies; the unit tests check it against native `f32`/`f64` arithmetic.
//!
//! Error analysis: a term `x_i y_i` passes through at most
//! [`TreeDotConfig::depth`] roundings (`ceil(n / (T B))` fmas, `log2 T` block-tree
//! additions, `log2 P` final-tree additions). Each rounding is `(1 + d)` with
//! `|d| <= u` (an fma rounds once: Bhola and Duraisamy, DBEA/VIBEA, Lemma 3.1),
//! so the computed sum is `sum x_i y_i (1 + theta_i)` with `|theta_i| <=
//! gamma_depth` (Higham 2002, Lemma 3.1; the inner-product analysis of §3.1
//! holds for any order of evaluation, with `n` replaced by the number of
//! roundings on a term's path), hence `|fl(x^T y) - x^T y| <= gamma_depth sum
//! |x_i y_i|` while nothing underflows. With underflow, each of the `n` fmas
//! may add an absolute error `eta` (the model `fl(v) = v(1 + d) + eta` of
//! [`Format::underflow_abs_error`]), later multiplied by at most
//! `1 + gamma_depth`: `n eta (1 + gamma_depth)` more. The tree additions add
//! nothing: with gradual underflow a sum that lands in the subnormal range is
//! exact (Hauser, ACM TOPLAS 18(2), 1996).

use boundgate_verify::error::{require_finite, require_nonempty, require_same_len};
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use boundgate_verify::{Result, VerifyError};
use serde::Serialize;

/// Threads per block of the GPU launcher (`boundgate::gpu::dot`).
pub const GPU_THREADS_PER_BLOCK: usize = 256;

/// Most blocks the GPU launcher uses; beyond `GPU_THREADS_PER_BLOCK *
/// GPU_MAX_BLOCKS` terms, threads accumulate several terms each.
pub const GPU_MAX_BLOCKS: usize = 1024;

/// CUDA's limit on threads per block. It bounds `T`, and also `B`, because the
/// final tree runs in one block of `P >= B` threads.
pub const MAX_THREADS_PER_BLOCK: usize = 1024;

/// Launch geometry of the tree dot: `T` threads per block, `B` blocks.
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
/// let config = TreeDotConfig::new(256, 5).unwrap();
/// assert_eq!(config.padded_blocks(), 8);
/// // 3000 terms over 256 * 5 threads: 3 fmas, then 8 + 3 tree levels.
/// assert_eq!(config.depth(3000), 3 + 8 + 3);
/// assert!(TreeDotConfig::new(100, 5).is_err()); // T must be a power of two
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TreeDotConfig {
    /// `T`: a power of two, at most [`MAX_THREADS_PER_BLOCK`].
    pub threads_per_block: usize,
    /// `B`: between 1 and [`MAX_THREADS_PER_BLOCK`].
    pub blocks: usize,
}

impl TreeDotConfig {
    /// A checked geometry.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
    /// use boundgate_verify::VerifyError;
    /// let c = TreeDotConfig::new(1024, 1024).unwrap(); // CUDA's limits, both
    /// assert_eq!((c.threads_per_block, c.blocks), (1024, 1024));
    /// let bad = |t, b| matches!(TreeDotConfig::new(t, b), Err(VerifyError::InvalidParameter { .. }));
    /// assert!(bad(96, 4) && bad(2048, 4) && bad(0, 4)); // T: a power of two, at most 1024
    /// assert!(bad(256, 0) && bad(256, 1025)); // B: 1 to 1024
    /// ```
    pub fn new(threads_per_block: usize, blocks: usize) -> Result<TreeDotConfig> {
        let config = TreeDotConfig {
            threads_per_block,
            blocks,
        };
        config.validate()?;
        Ok(config)
    }

    /// The geometry the GPU launcher uses for `n` terms: `T` =
    /// [`GPU_THREADS_PER_BLOCK`] and one block per `T` terms, at most
    /// [`GPU_MAX_BLOCKS`]. It depends on `n` only (not on the device), so a
    /// result is the same on every GPU.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
    /// assert_eq!(TreeDotConfig::for_gpu(1000).blocks, 4);
    /// assert_eq!(TreeDotConfig::for_gpu(10_000_000).blocks, 1024);
    /// ```
    pub fn for_gpu(n: usize) -> TreeDotConfig {
        TreeDotConfig {
            threads_per_block: GPU_THREADS_PER_BLOCK,
            blocks: n.div_ceil(GPU_THREADS_PER_BLOCK).clamp(1, GPU_MAX_BLOCKS),
        }
    }

    /// Checks `T` (a power of two in `1..=1024`) and `B` (in `1..=1024`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
    /// // The fields are public: a geometry built by hand is checked here.
    /// assert!(TreeDotConfig { threads_per_block: 1, blocks: 1 }.validate().is_ok());
    /// assert!(TreeDotConfig { threads_per_block: 3, blocks: 1 }.validate().is_err());
    /// assert!(TreeDotConfig { threads_per_block: 1024, blocks: 1025 }.validate().is_err());
    /// assert!(TreeDotConfig::for_gpu(1 << 30).validate().is_ok()); // the launcher's, even at 2^30 terms
    /// ```
    pub fn validate(&self) -> Result<()> {
        let t = self.threads_per_block;
        if !t.is_power_of_two() || t > MAX_THREADS_PER_BLOCK {
            return Err(VerifyError::invalid(
                "threads_per_block",
                t,
                format!("must be a power of two between 1 and {MAX_THREADS_PER_BLOCK}"),
            ));
        }
        if self.blocks == 0 || self.blocks > MAX_THREADS_PER_BLOCK {
            return Err(VerifyError::invalid(
                "blocks",
                self.blocks,
                format!(
                    "must be between 1 and {MAX_THREADS_PER_BLOCK} (the final tree runs in one block)"
                ),
            ));
        }
        Ok(())
    }

    /// `P`: the least power of two `>= B`, the width of the final tree.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
    /// let p = |b| TreeDotConfig::new(256, b).unwrap().padded_blocks();
    /// assert_eq!((p(1), p(5), p(8), p(1000)), (1, 8, 8, 1024));
    /// ```
    pub fn padded_blocks(&self) -> usize {
        self.blocks.next_power_of_two()
    }

    /// The most roundings any term of an `n`-term dot undergoes:
    /// `ceil(n / (T B)) + log2 T + log2 P` (the first term of thread 0 of block
    /// 0 meets every fma of its thread, then every level of both trees). Additions
    /// of the zero padding are exact but counted, so this is an upper bound for
    /// every term and exact for that first one.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::baseline::tree_dot::TreeDotConfig;
    /// // T = 256 (8 tree levels), B = 3 (padded to 4: 2 levels).
    /// let c = TreeDotConfig::new(256, 3).unwrap();
    /// assert_eq!(c.depth(1), 1 + 8 + 2);
    /// assert_eq!(c.depth(768), 1 + 8 + 2); // one fma per thread
    /// assert_eq!(c.depth(769), 2 + 8 + 2); // thread 0 of block 0 takes a second term
    /// assert_eq!(TreeDotConfig::new(1, 1).unwrap().depth(10), 10); // one chain of fmas
    /// ```
    pub fn depth(&self, n: usize) -> u64 {
        let fmas = n.div_ceil(self.threads_per_block * self.blocks) as u64;
        fmas + u64::from(self.threads_per_block.trailing_zeros())
            + u64::from(self.padded_blocks().trailing_zeros())
    }
}

/// What the model computed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TreeDotOutput {
    /// The dot product, a value of the accumulation format.
    pub value: f64,
    /// [`TreeDotConfig::depth`] for this `n`: the `k` of the bound `gamma_k`.
    pub depth: u64,
    /// The geometry used.
    pub config: TreeDotConfig,
}

/// The GPU tree dot of `x` and `y` in `format`, computed on the CPU in the GPU's
/// exact order (module docs).
///
/// Every input must be a finite value of `format` (the GPU reads them from
/// memory of that format); anything else is a typed error, as is an empty or
/// mismatched input, an invalid geometry, or an intermediate result that
/// overflows (the GPU would return infinity or NaN there; in a saturating
/// format the clamp to the largest finite value counts as overflow too).
///
/// # Example
/// ```
/// use boundgate::kernels::baseline::tree_dot::{tree_dot, TreeDotConfig};
/// use boundgate_verify::format::Format;
/// let x = [1.0, 2.0, 3.0, 4.0];
/// let y = [1.0, 1.0, 1.0, 1.0];
/// let out = tree_dot(&x, &y, Format::FP32, TreeDotConfig::new(2, 2).unwrap()).unwrap();
/// assert_eq!(out.value, 10.0);
/// assert_eq!(out.depth, 1 + 1 + 1);
/// // 0.1 is not an fp32 number.
/// assert!(tree_dot(&[0.1], &[1.0], Format::FP32, TreeDotConfig::for_gpu(1)).is_err());
/// ```
pub fn tree_dot(
    x: &[f64],
    y: &[f64],
    format: Format,
    config: TreeDotConfig,
) -> Result<TreeDotOutput> {
    require_nonempty("x", x)?;
    require_same_len("x and y", x.len(), y.len())?;
    require_finite("x", x)?;
    require_finite("y", y)?;
    format.require_values(x)?;
    format.require_values(y)?;
    config.validate()?;
    // A saturating format would clamp an overflowing result to its largest
    // finite value and go on (a result far outside the gamma_depth bound,
    // where the GPU's IEEE arithmetic gives infinity): computed with NaN on
    // overflow instead, which `checked` refuses. Every other result is the
    // same. Until this review a saturating format's overflow went unreported.
    let arith = if format.overflow_policy() == OverflowPolicy::Saturate {
        format.with_overflow(OverflowPolicy::Nan)?
    } else {
        format
    };

    let threads = config.threads_per_block;
    let all_threads = threads * config.blocks;
    // accumulators[b T + t] is thread t of block b. Term i belongs to thread
    // i mod (T B), and visiting i in increasing order visits each thread's terms
    // in its own order k = 0, 1, ..., so one sequential pass reproduces every
    // thread's fma chain.
    let mut accumulators = vec![0.0_f64; all_threads];
    for (i, (&xi, &yi)) in x.iter().zip(y).enumerate() {
        let acc = &mut accumulators[i % all_threads];
        *acc = checked(format, arith.fma(xi, yi, *acc, RNE), || {
            xi.mul_add(yi, *acc)
        })?;
    }

    let mut partials = vec![0.0_f64; config.padded_blocks()];
    for (partial, block) in partials
        .iter_mut()
        .zip(accumulators.chunks_exact_mut(threads))
    {
        *partial = tree_sum(format, arith, block)?;
    }
    let value = tree_sum(format, arith, &mut partials)?;
    Ok(TreeDotOutput {
        value,
        depth: config.depth(x.len()),
        config,
    })
}

const RNE: RoundingMode = RoundingMode::NearestEven;

/// The pairwise tree of `kernels/dot.cu`, in place over a power-of-two slice:
/// for `s = len/2, ..., 1`, `sh[t] = sh[t] + sh[t + s]` for `t < s`. Within a
/// level the reads (`t + s >= s`) never meet the writes (`t < s`), so the
/// sequential loop equals the GPU's parallel step. Arithmetic in `arith`,
/// overflow reported as `format`'s.
fn tree_sum(format: Format, arith: Format, sh: &mut [f64]) -> Result<f64> {
    debug_assert!(sh.len().is_power_of_two());
    let mut s = sh.len() / 2;
    while s > 0 {
        for t in 0..s {
            let (a, b) = (sh[t], sh[t + s]);
            sh[t] = checked(format, arith.add(a, b, RNE), || a + b)?;
        }
        s /= 2;
    }
    Ok(sh[0])
}

/// A non-finite result means the operation overflowed; report the unrounded
/// value (estimated in f64, where it is usually still finite).
fn checked(format: Format, rounded: f64, unrounded: impl FnOnce() -> f64) -> Result<f64> {
    if rounded.is_finite() {
        Ok(rounded)
    } else {
        Err(VerifyError::Overflow {
            format: format.name().to_string(),
            value: unrounded(),
            max: format.max_finite(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boundgate_verify::bounds::dot::{abs_dot_up, rigorous, underflow_ops};
    use boundgate_verify::bounds::gamma::gamma_value;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rug::Rational;

    /// The kernel written out as plainly as possible, thread by thread, in
    /// native arithmetic: `F` is `f32` or `f64`, whose `mul_add` is IEEE fma.
    fn straightforward<F: Native>(
        x: &[f64],
        y: &[f64],
        t_count: usize,
        b_count: usize,
    ) -> (f64, u64) {
        let n = x.len();
        let p_count = b_count.next_power_of_two();
        // Each value carries the most roundings any of its terms went through.
        let mut partials = vec![(F::ZERO, 0_u64); p_count];
        for (b, partial) in partials.iter_mut().enumerate().take(b_count) {
            let mut sh = vec![(F::ZERO, 0_u64); t_count];
            for (t, slot) in sh.iter_mut().enumerate() {
                let mut acc = (F::ZERO, 0_u64);
                let mut i = b * t_count + t;
                while i < n {
                    acc = (
                        F::from_f64(x[i]).mul_add(F::from_f64(y[i]), acc.0),
                        acc.1 + 1,
                    );
                    i += t_count * b_count;
                }
                *slot = acc;
            }
            *partial = native_tree(sh);
        }
        let (value, depth) = native_tree(partials);
        (value.to_f64(), depth)
    }

    fn native_tree<F: Native>(mut sh: Vec<(F, u64)>) -> (F, u64) {
        let mut s = sh.len() / 2;
        while s > 0 {
            for t in 0..s {
                sh[t] = (sh[t].0.add(sh[t + s].0), sh[t].1.max(sh[t + s].1) + 1);
            }
            s /= 2;
        }
        sh[0]
    }

    trait Native: Copy {
        const ZERO: Self;
        fn from_f64(v: f64) -> Self;
        fn to_f64(self) -> f64;
        fn mul_add(self, a: Self, b: Self) -> Self;
        fn add(self, other: Self) -> Self;
    }
    impl Native for f32 {
        const ZERO: f32 = 0.0;
        fn from_f64(v: f64) -> f32 {
            v as f32
        }
        fn to_f64(self) -> f64 {
            f64::from(self)
        }
        fn mul_add(self, a: f32, b: f32) -> f32 {
            f32::mul_add(self, a, b)
        }
        fn add(self, other: f32) -> f32 {
            self + other
        }
    }
    impl Native for f64 {
        const ZERO: f64 = 0.0;
        fn from_f64(v: f64) -> f64 {
            v
        }
        fn to_f64(self) -> f64 {
            self
        }
        fn mul_add(self, a: f64, b: f64) -> f64 {
            f64::mul_add(self, a, b)
        }
        fn add(self, other: f64) -> f64 {
            self + other
        }
    }

    /// Values of `format` with random signs and mantissas and magnitudes
    /// spread over about `2^(centre - spread) .. 2^(centre + spread)`.
    fn random_values(
        rng: &mut ChaCha8Rng,
        n: usize,
        format: Format,
        centre: i32,
        spread: i32,
    ) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let mantissa: f64 = rng.random_range(-1.0..1.0);
                let exponent = centre + rng.random_range(-spread..=spread);
                format.round(mantissa * 2f64.powi(exponent), RNE)
            })
            .collect()
    }

    const CONFIGS: [(usize, usize); 9] = [
        (1, 1),
        (1, 3),
        (2, 1),
        (4, 5),
        (32, 8),
        (64, 7),
        (256, 1),
        (256, 4),
        (256, 1024),
    ];

    #[test]
    fn equals_the_kernel_written_out_in_native_arithmetic() {
        let seed = 0x007e_ed07;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for n in [1, 2, 7, 100, 1000, 3001] {
            for (t, b) in CONFIGS {
                let config = TreeDotConfig::new(t, b).unwrap();
                let x = random_values(&mut rng, n, Format::FP32, 0, 20);
                let y = random_values(&mut rng, n, Format::FP32, 0, 20);
                let model = tree_dot(&x, &y, Format::FP32, config).unwrap();
                let (native, depth) = straightforward::<f32>(&x, &y, t, b);
                assert_eq!(
                    model.value.to_bits(),
                    native.to_bits(),
                    "fp32 n={n} T={t} B={b}: {} vs {native}",
                    model.value
                );
                assert_eq!(model.depth, depth, "fp32 depth n={n} T={t} B={b}");

                let x = random_values(&mut rng, n, Format::FP64, 0, 200);
                let y = random_values(&mut rng, n, Format::FP64, 0, 200);
                let model = tree_dot(&x, &y, Format::FP64, config).unwrap();
                let (native, _) = straightforward::<f64>(&x, &y, t, b);
                assert_eq!(
                    model.value.to_bits(),
                    native.to_bits(),
                    "fp64 n={n} T={t} B={b}"
                );
            }
        }
    }

    #[test]
    fn fp32_subnormal_products_match_native_fma() {
        // Products near fp32's subnormal range: the model must not flush them.
        let seed = 0x0005_0b0b;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = random_values(&mut rng, 500, Format::FP32, -70, 4);
        let y = random_values(&mut rng, 500, Format::FP32, -70, 4);
        for (t, b) in CONFIGS {
            let model = tree_dot(&x, &y, Format::FP32, TreeDotConfig::new(t, b).unwrap()).unwrap();
            let (native, _) = straightforward::<f32>(&x, &y, t, b);
            assert_eq!(model.value.to_bits(), native.to_bits(), "T={t} B={b}");
        }
    }

    /// The checker's rigorous bound for an order of this depth (boundgate_verify
    /// `bounds::dot::rigorous`, the derivation in the module docs above), or
    /// `None` where a hypothesis fails (`depth u >= 1`, possible overflow).
    fn error_bound(x: &[f64], y: &[f64], format: Format, depth: u64) -> Option<f64> {
        let sum_abs = abs_dot_up(x, y).unwrap();
        match rigorous(format, RNE, depth, underflow_ops(format, x.len()), sum_abs) {
            Ok(bound) => Some(bound.value),
            Err(VerifyError::HypothesisNotMet { .. }) => None,
            Err(other) => panic!("{other}"),
        }
    }

    fn exact_dot(x: &[f64], y: &[f64]) -> Rational {
        x.iter().zip(y).fold(Rational::new(), |s, (a, b)| {
            s + Rational::from_f64(*a).unwrap() * Rational::from_f64(*b).unwrap()
        })
    }

    /// Checks the bound; returns false where its hypothesis fails (no check made).
    fn check_bound(
        x: &[f64],
        y: &[f64],
        format: Format,
        config: TreeDotConfig,
        what: &str,
    ) -> bool {
        let out = tree_dot(x, y, format, config).unwrap();
        let Some(bound) = error_bound(x, y, format, out.depth) else {
            return false;
        };
        let error = (Rational::from_f64(out.value).unwrap() - exact_dot(x, y)).abs();
        assert!(
            error <= Rational::from_f64(bound).unwrap(),
            "{what} {} n={} T={} B={}: error {} > bound {bound:e}",
            format.name(),
            x.len(),
            config.threads_per_block,
            config.blocks,
            error.to_f64()
        );
        true
    }

    #[test]
    fn error_is_within_gamma_depth_bound() {
        let seed = 0xb00d;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut checked, mut skipped) = (0, 0);
        for n in [1, 10, 257, 4000] {
            for (t, b) in CONFIGS {
                let config = TreeDotConfig::new(t, b).unwrap();
                for format in [Format::FP32, Format::FP64, Format::BF16, Format::FP16] {
                    // |x_i y_i| <= 4: 4000 terms stay below fp16's largest value.
                    let x = random_values(&mut rng, n, format, -4, 5);
                    let y = random_values(&mut rng, n, format, -4, 5);
                    // All terms positive: no cancellation, the error piles up.
                    let xp: Vec<f64> = x.iter().map(|v| v.abs()).collect();
                    let yp: Vec<f64> = y.iter().map(|v| v.abs()).collect();
                    for (x, y, what) in [(&x, &y, "random"), (&xp, &yp, "positive")] {
                        if check_bound(x, y, format, config, what) {
                            checked += 1;
                        } else {
                            skipped += 1; // depth u >= 1 (low precision, long chains)
                        }
                    }
                }
            }
        }
        println!("{checked} bounds checked, {skipped} without a bound (a hypothesis fails)");
        assert!(checked > 250, "{checked}");
    }

    #[test]
    fn error_is_within_bound_when_products_underflow() {
        let seed = 0x000d_df10;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Products of magnitude around 2^(2 centre), below the smallest normal.
        for (format, centre, n) in [
            (Format::FP32, -66, 300),
            (Format::FP16, -10, 300),
            (Format::BF16, -66, 100),
        ] {
            for (t, b) in CONFIGS {
                let x = random_values(&mut rng, n, format, centre, 3);
                let y = random_values(&mut rng, n, format, centre, 3);
                assert!(check_bound(
                    &x,
                    &y,
                    format,
                    TreeDotConfig::new(t, b).unwrap(),
                    "underflow"
                ));
            }
        }
    }

    #[test]
    fn underflow_needs_its_own_term() {
        // 2^-75 * 2^-75 = 2^-150 is half of fp32's smallest subnormal: a tie,
        // rounded to even (0). The whole product is lost, so no multiple of
        // |x y| bounds the error; the eta = 2^-150 term does, with equality.
        let x = [2f64.powi(-75)];
        let out = tree_dot(&x, &x, Format::FP32, TreeDotConfig::for_gpu(1)).unwrap();
        assert_eq!(out.value, 0.0);
        let error = 2f64.powi(-150);
        let gamma = gamma_value(out.depth, Format::FP32.unit_roundoff(RNE)).unwrap();
        assert!(error > gamma * 2f64.powi(-150));
        assert!(error <= error_bound(&x, &x, Format::FP32, out.depth).unwrap());
    }

    #[test]
    fn small_cases_by_hand() {
        // T = 2, B = 3 (P = 4), n = 8: thread (b, t) takes i = 2b + t and i + 6.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let y = [1.0; 8];
        let out = tree_dot(&x, &y, Format::FP64, TreeDotConfig::new(2, 3).unwrap()).unwrap();
        assert_eq!(out.value, 36.0);
        assert_eq!(out.depth, 2 + 1 + 2);
        // A sum where order matters in fp32: 2^24 + 1 + 0 + 1 is 2^24
        // sequentially (each + 1 is a tie, to even), but the tree (T = 4) adds
        // (2^24 + 0) + (1 + 1).
        let big = 2f64.powi(24);
        let x = [big, 1.0, 0.0, 1.0];
        let y = [1.0; 4];
        let tree = tree_dot(&x, &y, Format::FP32, TreeDotConfig::new(4, 1).unwrap()).unwrap();
        assert_eq!(tree.value, big + 2.0);
        let sequential = tree_dot(&x, &y, Format::FP32, TreeDotConfig::new(1, 1).unwrap()).unwrap();
        assert_eq!(sequential.value, big);
    }

    #[test]
    fn negative_zero_products_give_positive_zero() {
        // fma(-1, 0, +0) = -0 + +0 = +0 under round-to-nearest, as on the GPU.
        let out = tree_dot(&[-1.0], &[0.0], Format::FP32, TreeDotConfig::for_gpu(1)).unwrap();
        assert_eq!(out.value.to_bits(), 0.0_f64.to_bits());
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let config = TreeDotConfig::for_gpu(2);
        let fp32 = Format::FP32;
        assert!(matches!(
            tree_dot(&[], &[], fp32, config),
            Err(VerifyError::Empty { .. })
        ));
        assert!(matches!(
            tree_dot(&[1.0], &[1.0, 2.0], fp32, config),
            Err(VerifyError::LengthMismatch { .. })
        ));
        assert!(matches!(
            tree_dot(&[f64::NAN], &[1.0], fp32, config),
            Err(VerifyError::NonFinite { .. })
        ));
        assert!(matches!(
            tree_dot(&[1.0], &[f64::INFINITY], fp32, config),
            Err(VerifyError::NonFinite { .. })
        ));
        assert!(matches!(
            tree_dot(&[0.1], &[1.0], fp32, config),
            Err(VerifyError::NotRepresentable { .. })
        ));
        let max = fp32.max_finite();
        assert!(matches!(
            tree_dot(&[max, max], &[2.0, 2.0], fp32, config),
            Err(VerifyError::Overflow { .. })
        ));
        // Each product fits, their sum in the tree does not.
        let wide = TreeDotConfig::new(2, 1).unwrap();
        assert!(matches!(
            tree_dot(&[max, max], &[1.0, 1.0], fp32, wide),
            Err(VerifyError::Overflow { .. })
        ));
        for (t, b) in [(0, 1), (3, 1), (2048, 1), (256, 0), (256, 1025)] {
            let config = TreeDotConfig {
                threads_per_block: t,
                blocks: b,
            };
            assert!(
                matches!(
                    tree_dot(&[1.0], &[1.0], fp32, config),
                    Err(VerifyError::InvalidParameter { .. })
                ),
                "T={t} B={b}"
            );
        }
    }

    #[test]
    fn gpu_geometry_depends_on_n_only() {
        assert_eq!(TreeDotConfig::for_gpu(0).blocks, 1);
        assert_eq!(TreeDotConfig::for_gpu(1).blocks, 1);
        assert_eq!(TreeDotConfig::for_gpu(256).blocks, 1);
        assert_eq!(TreeDotConfig::for_gpu(257).blocks, 2);
        assert_eq!(
            TreeDotConfig::for_gpu(GPU_THREADS_PER_BLOCK * GPU_MAX_BLOCKS * 3).blocks,
            GPU_MAX_BLOCKS
        );
        for n in [1, 255, 256, 257, 100_000, 10_000_000] {
            TreeDotConfig::for_gpu(n).validate().unwrap();
        }
        // 256 * 1024 = 2^18 threads, 3 terms each: 3 fmas + 8 + 10 tree levels.
        assert_eq!(TreeDotConfig::for_gpu(3 << 18).depth(3 << 18), 3 + 8 + 10);
    }
}
