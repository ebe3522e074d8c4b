//! The corrected, rigorous bound of qdot as computed ([`rigorous`],
//! derivation in the module docs of `bounds::qdot`), and Theorem 3.2 made
//! rigorous in its own terms ([`corrected_thm_3_2`]).

use super::*;
use crate::bounds::directed::{add_down, add_product_enclosure, sub_down};
use crate::bounds::gamma::{product_growth, u64_up};

/// The fixed evaluation order of the kernel: the vector is cut into tiles of
/// `tile` consecutive indices; within a tile each bin is a recursive chain
/// (FMA, or rounded product then sum), and the tile results of a bin are
/// summed by a pairwise tree (`kernels/qdot.cu`, `kernels::qdot::compute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TileOrder {
    /// The vector length `n`.
    pub n: usize,
    /// Indices per tile (`0` or `>= n`: one tile, a sequential order).
    pub tile: usize,
}

impl TileOrder {
    /// The effective tile length (at least 1).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::TileOrder;
    /// assert_eq!(TileOrder { n: 1000, tile: 64 }.tile_len(), 64);
    /// // 0 or a tile of at least n: one tile of n.
    /// assert_eq!(TileOrder { n: 1000, tile: 0 }.tile_len(), 1000);
    /// assert_eq!(TileOrder { n: 1000, tile: 4096 }.tile_len(), 1000);
    /// assert_eq!(TileOrder { n: 0, tile: 0 }.tile_len(), 1);
    /// ```
    pub fn tile_len(&self) -> usize {
        if self.tile == 0 || self.tile >= self.n {
            self.n.max(1)
        } else {
            self.tile
        }
    }
    /// The number of tiles.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::TileOrder;
    /// assert_eq!(TileOrder { n: 1024, tile: 64 }.tiles(), 16);
    /// assert_eq!(TileOrder { n: 1025, tile: 64 }.tiles(), 17); // ceil(n / tile)
    /// assert_eq!(TileOrder { n: 1000, tile: 0 }.tiles(), 1);
    /// assert_eq!(TileOrder { n: 0, tile: 64 }.tiles(), 1);
    /// ```
    pub fn tiles(&self) -> usize {
        self.n.div_ceil(self.tile_len()).max(1)
    }
    /// The longest chain of roundings a term of a bin of `count` elements goes
    /// through: `min(count, tile) + ceil(log2 tiles)`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::TileOrder;
    /// let order = TileOrder { n: 1000, tile: 64 }; // 16 tiles
    /// assert_eq!(order.depth(10), 10 + 4);
    /// assert_eq!(order.depth(500), 64 + 4);
    /// assert_eq!(TileOrder { n: 1000, tile: 0 }.depth(500), 500);
    /// ```
    pub fn depth(&self, count: u64) -> u64 {
        count.min(self.tile_len() as u64) + ceil_log2(self.tiles())
    }
}

/// How `A_k` is obtained.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Magnitudes {
    /// From the data (`ExponentBin::scaled_abs_sum`).
    Data,
    /// A priori, `4 M_k` ([`Binning::Factors`]) or `2 M_k` ([`Binning::Product`]).
    APriori,
}

/// The corrected, rigorous absolute bound of qdot as computed (module
/// documentation): representation error of both factors, accumulation inside
/// and across bins, scaling and conversion, with `A_k` from the data.
/// Hypotheses checked: no overflow anywhere, subnormal sums exact.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] unless there is one precision per bin;
/// [`VerifyError::HypothesisNotMet`] if `input` has no subnormals, a bin's
/// arithmetic does not fit the bins (scaled values not normal in its format, an
/// accumulator less precise or without subnormals, products not multiples of
/// its smallest subnormal), or a bin's accumulation, conversion, rescaling or
/// the sum across bins may overflow, or the bound itself is not finite in
/// binary64.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{rigorous, BinArithmetic, BinPrecision, ExponentBins, Fexp, TileOrder};
/// use boundgate_verify::format::Format;
/// let x = [1.0, 1.0 + 2f64.powi(-12), 2f64.powi(-30)];
/// let y = [1.0; 3];
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// let half = BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP32 });
/// let b = rigorous(&bins, &[BinPrecision::Perforate, half], Format::FP64, TileOrder { n: 3, tile: 0 }).unwrap();
/// // at least the perforated 2^-30 and the cast error of 1 + 2^-12 in fp16
/// assert!(b.value >= 2f64.powi(-30) + 2f64.powi(-12));
/// // dominated by the cast term (2 u_F + u_F^2) A_k ~ 2^-10 (2 + 2^-12) ~ 1.95e-3
/// assert!(b.value < 2.0e-3);
/// ```
pub fn rigorous(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
) -> Result<Bound> {
    evaluate(bins, precisions, input, order, Magnitudes::Data, RIGOROUS)
}

/// Theorem 3.2 corrected: [`rigorous`] with an a-priori magnitude in place of
/// the data's `A_k`: `4 M_k` for Algorithm 3.2's bins (a product of bin `k` is
/// below `2^(u_k + 2)` whichever `fexp` is used), `2 M_k` for Def. 3.1's bins
/// of the products (below `2^(u_k + 1)`, the proof's own fact). So, like the
/// printed bound, it needs only `M_k`, `u_k` and the precisions. Never below
/// [`rigorous`].
///
/// # Errors
/// As [`rigorous`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{corrected_thm_3_2, rigorous, thm_3_2, BinArithmetic, BinPrecision, ExponentBins, Fexp, TileOrder};
/// use boundgate_verify::format::Format;
/// let x = [1.9, 1.7, 1.3];
/// let bins = ExponentBins::new(&x, &x, Fexp::Ieee).unwrap();
/// let half = [BinPrecision::Compute(BinArithmetic { format: Format::FP16, accumulator: Format::FP16 })];
/// let order = TileOrder { n: 3, tile: 0 };
/// let corrected = corrected_thm_3_2(&bins, &half, Format::FP64, order).unwrap().value;
/// assert!(corrected >= rigorous(&bins, &half, Format::FP64, order).unwrap().value);
/// assert!(corrected > 2.0 * thm_3_2(&bins, &half, Format::FP64).unwrap().value);
/// ```
pub fn corrected_thm_3_2(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
) -> Result<Bound> {
    evaluate(
        bins,
        precisions,
        input,
        order,
        Magnitudes::APriori,
        CORRECTED_3_2,
    )
}

fn evaluate(
    bins: &ExponentBins,
    precisions: &[BinPrecision],
    input: Format,
    order: TileOrder,
    magnitudes: Magnitudes,
    source: Source,
) -> Result<Bound> {
    require_same_len("bins and precisions", bins.bins.len(), precisions.len())?;
    require(
        input.has_subnormals(),
        &source,
        "the input format has subnormals (sums in its subnormal range are exact)",
        || format!("{input} has none"),
    )?;
    let u_i = input.unit_roundoff(RNE);
    let eta_i = input.underflow_abs_error(RNE);
    // theta_{q-1}(u_I) of the sum across the q computed bins, known before
    // the loop so that its term is added bin by bin, theta Z_k, each scaled
    // by 2^(u_k) as the last step: sum Z_k itself overflows binary64 for a
    // bin at 2^1024 or above whose products cancel (review, 2026-11-29).
    let q = precisions
        .iter()
        .filter(|p| matches!(p, BinPrecision::Compute(_)))
        .count() as u64;
    let cross_depth = q.saturating_sub(1);
    let gamma_cross = product_growth(cross_depth, u_i)?;
    let mut cross = 0.0; // theta_{q-1}(u_I) sum Z_k
    let mut total = 0.0;
    let mut z_sum = 0.0; // sum of the bounds Z_k on |z_k|
    let mut computed = 0u64;
    let mut deepest = 0u64;
    // With the data's magnitudes, the conversions and the cross-bin sum are
    // checked for overflow on enclosures of the signed results; a priori
    // (Theorem 3.2 corrected) on the magnitudes.
    let mut reach = (magnitudes == Magnitudes::Data).then(|| CrossBinReach::new(input));
    for (b, p) in bins.bins.iter().zip(precisions) {
        let a = match magnitudes {
            Magnitudes::Data => b.scaled_abs_sum,
            Magnitudes::APriori => match bins.binning {
                Binning::Factors => mul_up(4.0, count_up(b.count)),
                Binning::Product => mul_up(2.0, count_up(b.count)),
            },
        };
        // v 2^(u_k) rounded up, finite wherever that product is: rounding
        // 2^(u_k) up first made every term of a bin at u_k >= 1024 infinite
        // (review, 2026-11-29).
        let scale = |v: f64| ldexp_outward(v, b.exponent, true);
        let BinPrecision::Compute(arith) = *p else {
            total = add_up(total, scale(a));
            continue;
        };
        let (f, c) = (arith.format, arith.accumulator);
        check_arithmetic(arith, bins.binning, &source)?;
        let u_f = f.unit_roundoff(RNE);
        let u_c = c.unit_roundoff(RNE);
        let depth = order.depth(b.count);
        deepest = deepest.max(depth);
        let one_plus_uf = add_up(1.0, u_f);
        let a_hat = mul_up(mul_up(one_plus_uf, one_plus_uf), a);
        let gamma = product_growth(depth, u_c)?;
        // T_k = (1 + theta_{d_k}) A^_k = (1 + u_C)^(d_k) A^_k bounds the bin
        // sum and, no overflow inside the bin, every partial sum. (The
        // overflow check computed (1 + u_C)^(d_k) again from `depth as f64`,
        // rounded to nearest past 2^53; theta is from the depth rounded up.)
        let t = mul_up(add_up(1.0, gamma), a_hat);
        require(
            t <= c.max_finite(),
            &source,
            "no overflow inside a bin: (1 + u_C)^d_k A^_k <= max(C)",
            || {
                format!(
                    "bin {} (M = {}) in {}: {t:e} > {:e}",
                    b.exponent,
                    b.count,
                    c,
                    c.max_finite()
                )
            },
        )?;
        let cast = mul_up(add_up(mul_up(2.0, u_f), mul_up(u_f, u_f)), a);
        let accumulate = mul_up(gamma, a_hat);
        let converts_exactly = c.precision() <= input.precision()
            && c.emax() <= input.emax()
            && c.min_positive() >= input.min_positive();
        if let Some(reach) = reach.as_mut() {
            // The accumulated value is within cast + accumulate of the exact
            // scaled sum.
            let off = add_up(cast, accumulate);
            let scaled = (sub_down(b.scaled_sum.0, off), add_up(b.scaled_sum.1, off));
            require(
                reach.add(scaled, b.exponent),
                &source,
                "no overflow in the bin results' conversion, rescaling and sum (enclosures of the signed results)",
                || {
                    format!(
                        "bin {}: the scaled result lies in [{:e}, {:e}] (rescaled by 2^{}), the \
                         running sum in {:?}; {} can overflow",
                        b.exponent, scaled.0, scaled.1, b.exponent, reach.running, input
                    )
                },
            )?;
        }
        let convert = if converts_exactly {
            0.0
        } else {
            if reach.is_none() {
                let v = mul_up(add_up(1.0, u_i), t);
                require(
                    v <= input.max_finite(),
                    &source,
                    "the bin sum converts to the input format without overflow",
                    || format!("bin {}: {v:e} > {:e}", b.exponent, input.max_finite()),
                )?;
            }
            add_up(mul_up(u_i, t), eta_i)
        };
        let error = add_up(scale(add_up(add_up(cast, accumulate), convert)), eta_i);
        total = add_up(total, error);
        let before_rescale = add_up(mul_up(add_up(1.0, u_i), t), eta_i);
        let z = add_up(scale(before_rescale), eta_i);
        z_sum = add_up(z_sum, z);
        if cross_depth > 0 {
            // theta Z_k = 2^(u_k) (theta B_k) + theta eta_I
            let theta_z = add_up(
                scale(mul_up(gamma_cross, before_rescale)),
                mul_up(gamma_cross, eta_i),
            );
            cross = add_up(cross, theta_z);
        }
        computed += 1;
    }
    let growth = add_up(1.0, gamma_cross);
    let largest = match &reach {
        Some(reach) => reach.largest,
        None => {
            let largest = mul_up(growth, z_sum);
            require(
                largest <= input.max_finite(),
                &source,
                "no overflow in the rescaled bin results and their sum: (1 + u_I)^(q-1) sum Z_k <= max(I)",
                || format!("{largest:e} > {:e}", input.max_finite()),
            )?;
            largest
        }
    };
    // One computed bin adds nothing across bins (cross = 0).
    total = add_up(total, cross);
    // The bound's own arithmetic can overflow binary64 (bins near 2^1023
    // whose results cancel pass the enclosure check): an infinite or NaN
    // value is no bound.
    require(
        total.is_finite(),
        &source,
        "the bound is finite in binary64",
        || format!("{total:e} (bins up to 2^{})", bins.e_max().unwrap_or(0)),
    )?;
    Ok(Bound::deterministic(total, Quantity::AbsoluteError, source, Rigor::Rigorous)
        .with_hypothesis(
            format!(
                "exact binning by {}; scaled values {}",
                bins.binning.rule(),
                scaled_range(bins.binning).1
            ),
            format!(
                "{} fexp, {} bins ({} computed), input {input}",
                bins.fexp,
                bins.n_bins(),
                computed
            ),
        )
        .with_hypothesis(
            "tiled order: chains of at most min(M_k, T) + ceil(log2 tiles) roundings",
            format!(
                "n = {}, T = {}, {} tiles, deepest chain {deepest}, {computed} bin results summed",
                order.n,
                order.tile_len(),
                order.tiles()
            ),
        )
        .with_hypothesis(
            "no overflow",
            match reach {
                Some(_) => format!(
                    "bin results, rescaled and summed, reach at most {largest:e} <= {:e} (enclosures)",
                    input.max_finite()
                ),
                None => format!(
                    "(1 + u_I)^(q-1) sum Z_k = {largest:e} <= {:e}",
                    input.max_finite()
                ),
            },
        ))
}

/// The rigorous bound of the original kernel that the early exit of
/// Theorem 3.6 runs instead of Algorithm 3.1: the dot product of the unscaled
/// inputs (values of `input`) in the tiled order, in the input level's
/// arithmetic `arith` (cast to `arith.format`, accumulated in
/// `arith.accumulator`), the result rounded to `input` if the accumulator is
/// wider. [`crate::bounds::dot::rigorous`] with depth `min(n, T) + ceil(log2 tiles)`
/// and `n` operations that may underflow, plus `u_I W + eta_I` for the final
/// conversion, `W` the a-priori bound on the accumulated value.
///
/// # Errors
/// [`VerifyError::LengthMismatch`] for `x` and `y` of different lengths;
/// [`VerifyError::NonFinite`] for a NaN or an infinity;
/// [`VerifyError::HypothesisNotMet`] if the inputs are not values of
/// `input`, or `input`'s values are not all values of `arith.format` (it is
/// narrower than `input`), or if the accumulation or the final conversion may
/// overflow.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{rigorous_plain, BinArithmetic, TileOrder};
/// use boundgate_verify::format::Format;
/// let arith = BinArithmetic { format: Format::FP64, accumulator: Format::FP64 };
/// let b = rigorous_plain(&[1.0, 2.0], &[3.0, 4.0], Format::FP64, arith, TileOrder { n: 2, tile: 0 }).unwrap();
/// assert!(b.value > 0.0 && b.value < 1e-14);
/// ```
pub fn rigorous_plain(
    x: &[f64],
    y: &[f64],
    input: Format,
    arith: BinArithmetic,
    order: TileOrder,
) -> Result<Bound> {
    require_same_len("x and y", x.len(), y.len())?;
    crate::error::require_finite("x", x)?;
    crate::error::require_finite("y", y)?;
    let (f, c) = (arith.format, arith.accumulator);
    require(
        f.precision() >= input.precision() && f.emax() >= input.emax() && f.emin() <= input.emin(),
        &RIGOROUS,
        "the inputs are values of the input level's format (no cast error)",
        || format!("input {input}, level {f}"),
    )?;
    // The original kernel reads x and y as they are (the fp32 chain casts
    // them with `as f32`, the bf16 one to fp32 only): the bound has no cast
    // term, so every value must be one of `input`, hence of `f`. Only the
    // formats were compared until 2026-11-29: x = y = 1 + 2^-24 - 2^-52 with
    // fp32 inputs gave an error of 2^-23 against a bound of 2^-24 (review,
    // tests/qdot_review_rigorous.rs).
    if let Some((what, i, v)) = [("x", x), ("y", y)].iter().find_map(|&(what, v)| {
        v.iter()
            .position(|&a| !input.is_representable(a))
            .map(|i| (what, i, v[i]))
    }) {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: RIGOROUS.to_string(),
            hypothesis: format!("the inputs are values of the input precision {input}"),
            detail: format!("{what}[{i}] = {v:e} is not (the kernel would cast it)"),
        });
    }
    let n = x.len();
    let sum_abs = crate::bounds::dot::abs_dot_up(x, y)?;
    let depth = order.depth(n as u64);
    let ops = crate::bounds::dot::underflow_ops(c, n);
    let u_c = c.unit_roundoff(RNE);
    let eta = c.underflow_abs_error(RNE);
    // Higham 2002 (2.8) with (1 + u)^d - 1 for gamma_d: see bounds::dot.
    let theta = product_growth(depth, u_c)?;
    let w = crate::bounds::dot::require_no_overflow(c, RNE, depth, ops, sum_abs, &RIGOROUS)?;
    let value = add_up(
        mul_up(theta, sum_abs),
        mul_up(mul_up(u64_up(ops), add_up(1.0, theta)), eta),
    );
    let mut bound = Bound::deterministic(value, Quantity::AbsoluteError, RIGOROUS, Rigor::Rigorous)
        .with_hypothesis(
            "fl(z) = z(1 + delta) + eta (Higham 2002 (2.8)), at most m operations with eta != 0",
            format!("m = {ops}, eta_min = {eta:e}, (1 + u)^d - 1 = {theta:e}"),
        )
        .with_hypothesis(
            "no overflow",
            format!("(1 + u)^d (S + m eta) = {w:e} <= {:e}", c.max_finite()),
        );
    let converts_exactly = c.precision() <= input.precision()
        && c.emax() <= input.emax()
        && c.min_positive() >= input.min_positive();
    if !converts_exactly {
        let u_i = input.unit_roundoff(RNE);
        // The accumulated value is within `value` of the exact dot product
        // (enclosed with directed rounding): that, not the magnitudes' `w`,
        // is what is converted (cancelling products near the top of the
        // input format were "no bound"; review, 2026-11-26).
        let exact = signed_dot_enclosure(x, y);
        let accumulated = (sub_down(exact.0, bound.value), add_up(exact.1, bound.value));
        require(
            enclose_rounded(input, accumulated).is_some(),
            &RIGOROUS,
            "the accumulated value converts to the input format without overflow",
            || {
                format!(
                    "it lies in [{:e}, {:e}], beyond {:e}",
                    accumulated.0,
                    accumulated.1,
                    input.max_finite()
                )
            },
        )?;
        bound.value = add_up(
            bound.value,
            add_up(mul_up(u_i, w), input.underflow_abs_error(RNE)),
        );
        bound = bound.with_hypothesis(
            "one rounding of the accumulated value to the input format",
            format!("{c} to {input}"),
        );
    }
    Ok(bound
        .with_hypothesis(
            "the inputs are values of the input precision (no cast error)",
            format!("all {} values checked in {input}", 2 * n),
        )
        .with_hypothesis(
            "Theorem 3.6 early exit: the original kernel on the unscaled inputs",
            format!("n = {n}, T = {}, depth {depth}", order.tile_len()),
        ))
}

/// An enclosure in `f` of any rounding to nearest (once, or twice through
/// binary64) of a value in `[lo, hi]`: `[RD(lo), RU(hi)]`, since every such
/// rounding of `v` lies between `RD(v)` and `RU(v)` and both are monotone;
/// `None` where an end lies beyond `f`'s largest value (a rounding may
/// overflow).
fn enclose_rounded(f: Format, (lo, hi): (f64, f64)) -> Option<(f64, f64)> {
    let max = f.max_finite();
    (lo >= -max && hi <= max).then(|| {
        (
            f.round(lo, RoundingMode::Down),
            f.round(hi, RoundingMode::Up),
        )
    })
}

/// `v 2^e` rounded outward to binary64 (toward `-inf` when `up` is false):
/// [`ldexp`](crate::format::ldexp) is exact unless the result is subnormal
/// or overflows, and rounds to nearest then.
fn ldexp_outward(v: f64, e: i32, up: bool) -> f64 {
    let r = crate::format::ldexp(v, e);
    // `saturating_neg`: `-e` overflowed for a hand-built bin at `i32::MIN`
    // (a panic; review, 2026-11-29); `ldexp` clamps such exponents anyway.
    if !r.is_finite() || crate::format::ldexp(r, e.saturating_neg()) == v {
        r
    } else if up {
        r.next_up()
    } else {
        r.next_down()
    }
}

/// The range the kernel's sum of the rescaled bin results can reach: the
/// bins in ascending order, each result enclosed by its exact scaled sum
/// widened by its error before the conversion, converted to the input
/// format, rescaled by `2^u_k`, and added to the running sum in the input
/// format, every step enclosed in the format ([`enclose_rounded`]). `None`
/// where a step may overflow. The magnitudes alone (`sum Z_k`) called
/// cancelling bins a possible overflow: `[200, -200, 1] . [200, 200, 1]` in
/// fp16, exactly 1 (review, 2026-11-26).
struct CrossBinReach {
    input: Format,
    running: Option<(f64, f64)>,
    largest: f64,
}

impl CrossBinReach {
    fn new(input: Format) -> CrossBinReach {
        CrossBinReach {
            input,
            running: None,
            largest: 0.0,
        }
    }

    /// Adds bin `exponent`'s result, whose accumulated (scaled) value lies in
    /// `scaled`; `false` where a step may overflow.
    fn add(&mut self, scaled: (f64, f64), exponent: i32) -> bool {
        let input = self.input;
        let Some(v) = enclose_rounded(input, scaled) else {
            return false;
        };
        let rescaled = (
            ldexp_outward(v.0, exponent, false),
            ldexp_outward(v.1, exponent, true),
        );
        let Some(z) = enclose_rounded(input, rescaled) else {
            return false;
        };
        let sum = match self.running {
            None => Some(z),
            Some(r) => enclose_rounded(input, (add_down(r.0, z.0), add_up(r.1, z.1))),
        };
        let Some(sum) = sum else { return false };
        self.largest = self
            .largest
            .max(v.0.abs())
            .max(v.1.abs())
            .max(z.0.abs())
            .max(z.1.abs())
            .max(sum.0.abs())
            .max(sum.1.abs());
        self.running = Some(sum);
        true
    }
}

/// An enclosure of `sum x_i y_i`, every product and sum rounded outward.
fn signed_dot_enclosure(x: &[f64], y: &[f64]) -> (f64, f64) {
    x.iter()
        .zip(y)
        .fold((0.0, 0.0), |e, (&a, &b)| add_product_enclosure(e, a, b))
}

/// The kernel's scaled values of a bin (module documentation): the binades
/// beyond `[1/2, 2)` they reach on each side, and their range as text. On
/// Def. 3.1's bins of the products `b_j` lies in `[1/4, 4)`.
fn scaled_range(binning: Binning) -> (i32, &'static str) {
    match binning {
        Binning::Factors => (0, "in [1/2, 2)"),
        Binning::Product => (1, "a_j in [1/2, 2), b_j in [1/4, 4)"),
    }
}

/// The hypotheses on one computed bin's arithmetic (module documentation).
fn check_arithmetic(arith: BinArithmetic, binning: Binning, source: &Source) -> Result<()> {
    let (f, c) = (arith.format, arith.accumulator);
    let (widen, range) = scaled_range(binning);
    require(
        f.emin() <= -1 - widen && f.max_finite() >= 2.0 * f64::from(1 + widen),
        source,
        &format!("scaled values {range} are normal numbers of the bin format"),
        || format!("{f}: emin {}, max {:e}", f.emin(), f.max_finite()),
    )?;
    require(
        c.precision() >= f.precision() && c.has_subnormals(),
        source,
        "the accumulator is at least as precise as the bin format and has subnormals",
        || format!("{f} accumulated in {c}"),
    )?;
    // Products of cast values are multiples of 2^(-2 p_F) (2^(-2 p_F - 1) when
    // b_j may be below 1/2); if the accumulator's smallest subnormal divides
    // that, its subnormal-range results are exact.
    let granularity = -2 * f.precision() as i32 - widen;
    let smallest = c.emin() - c.precision() as i32 + 1;
    require(
        granularity >= smallest,
        source,
        "products are multiples of the accumulator's smallest subnormal",
        || format!("2^{granularity} versus 2^{smallest} in {c}"),
    )
}
