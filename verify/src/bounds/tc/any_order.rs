//! A rigorous bound for a block-FMA dot product evaluated in ANY order: the
//! bound a vendor GEMM (cuBLAS, cuBLASLt) can be held to without knowing how it
//! splits, orders and reduces the inner dimension.
//!
//! [`super::block_fma_a_priori`] assumes one chain of block steps over the
//! inner dimension, in order. A vendor library may instead split it (split-K),
//! run the slices as separate chains, and add the partial results in a
//! reduction; the slices, their order and the reduction tree are the
//! library's choice, and cuBLAS `GemmEx` does not report them. What stays
//! fixed is the arithmetic of each operation.
//!
//! # The model
//!
//! Each output is computed by a tree of operations. The leaves are the `k'`
//! nonzero exact products `p_j = a_j b_j` of numbers of the input format
//! (the values the unit reads; checked) (each enters once; a product with a
//! flushed subnormal factor enters as 0). Each internal node `v` combines `N_v`
//! nonzero operands (products and earlier results) as the block FMA of
//! [`super`] does: every operand is truncated to a multiple of `2^(E - F)`,
//! `E` the largest operand exponent (products: `e_a + e_b` with the input's
//! `emin` clamp; earlier results: the accumulator's), the truncated values
//! are added exactly and rounded once to the accumulator format. A plain
//! addition rounded to the accumulator format (a split-K reduction) is such a
//! node with no truncation. A node with one nonzero operand that is an earlier
//! result passes it through exactly; one whose only operand is a product
//! rounds it once.
//!
//! # The bound
//!
//! With `eps = 2^-F + u_acc`, `m_j = max(|a_j|, 2^emin_in) max(|b_j|,
//! 2^emin_in) >= |p_j|`, `S' = sum_j m_j`, `floor = 2^emin_acc` and `eta` the
//! accumulator's underflow error:
//!
//! `|s^ - s| <= ((1 + eps)^k' - 1) S' + (1 + eps)^k' ((k' - 1) 2^-F floor + (2 k' - 1) eta)`
//!
//! plus `sum |p_j|` over the flushed products. Proof: at a node with operands
//! `w` (bounds `B_w >= |s^_w|`), the largest operand is exact (its fractional
//! bits fit `F`: [`super::BlockFmaSpec::validate`]), each of the other `N - 1`
//! loses less than `2^(E - F) <= 2^-F (max_w B_w + floor)`, and the rounding
//! adds at most `u_acc sum_w B_w + eta` (Higham 2002, eq. (2.8)). So the node's
//! new error is at most `(N - 1) eps sum_w B_w + (N - 1) 2^-F floor + eta`.
//! By induction over the tree, with `L_v` the leaves under `v`,
//! `e_v <= ((1 + eps)^(L_v - 1) - 1) S'_v + X_v`, because
//! `(1 + eps)^(L_w - 1) (1 + (N - 1) eps) <= (1 + eps)^(L_v - 1)` for each
//! operand (`L_v - 1 = sum_w (L_w - 1) + N - 1`), and the extras `X_v` gather
//! `(N_v - 1) 2^-F floor + eta` per node, each grown by at most
//! `(1 + eps)^(k' - 1)`; `sum_v (N_v - 1) = k' - 1`, and there are at most
//! `k' - 1` combining nodes. Leaves that are rounded alone (at most `k'`) add
//! one more factor `1 + u_acc <= 1 + eps` and `eta` each. This is the
//! classical bound for summation in any order (Higham 2002, §4.2: the error of
//! a sum evaluated by any tree is at most `gamma` of the longest path times
//! the sum of the magnitudes), with the block FMA's truncation folded into the
//! per-operation constant and `k'` as the longest path a tree of `k'` leaves
//! can have.
//!
//! It is looser than a single chain ([`super::block_fma_constant`]:
//! `(1 + b 2^-F + u_acc)^q - 1` for `q = k / b` blocks) because a tree may put
//! one product under `k' - 1` operations where a chain puts it under `q`
//! block steps, each of which loses at most `b 2^-F + u_acc`: the growth
//! `k' (2^-F + u_acc)` against `q (b 2^-F + u_acc)`, a ratio of
//! `(2^-F + u_acc) / (2^-F + u_acc / b)`, at most `b` (4 for the sm90 fp16
//! record, [`block_fma_any_order_constant`]; against the data-dependent chain
//! bound a review measured 8 to 9 times at k = 64 and 4096, 2026-11-26): the
//! price of not knowing the order. That holds from one full block on: below
//! it (`k < b`) the chain's one step still counts a whole block's truncation,
//! `b 2^-F`, and can exceed the any-order growth `k (2^-F + u_acc)` (sm90 fp8,
//! k = 10: 4.03e-3 against 2.44e-3; both are bounds).
//!
//! The reductions are taken to round to the record's accumulator format:
//! for a record whose accumulator keeps fewer bits than binary32 (sm90 fp8,
//! 13 fraction bits), a reduction in binary32 whose result fed a later block
//! FMA as its largest operand would lose bits to the alignment, which the
//! argument above does not count (noted by review, 2026-11-26; there is no
//! vendor path for fp8 here, and no violation was constructed).
//!
//! # Split-K reductions in a narrower format
//!
//! [`block_fma_any_order_reducing`] lets every operation round to the output
//! format too, since cuBLAS does not say which do. Where the library reports
//! its split (cuBLASLt's `CUBLASLT_ALGO_CONFIG_SPLITK_NUM = p`: "SPLITK_NUM
//! parts ... computed in parallel, and the results accumulated according to
//! the reduction scheme"), only the reduction of the `p` partial results can:
//! [`block_fma_any_order_split_reducing`]. Each partial is a tree as above
//! (accumulator roundings, at most `k'` on a path, with `eps`); on its way to
//! the result it passes at most `p + 1` operations that may round to the
//! accumulator, to the output format or to both in turn (its conversion to
//! the output format, at most `p - 1` additions, the final conversion), each
//! with `u_r = u_acc + u_red + u_acc u_red`, and at most `2 p` such operations
//! exist. The same induction gives, with `G = (1 + eps)^k' (1 + u_r)^(p + 1)`,
//!
//! `|s^ - s| <= (G - 1) S' + G ((k' - 1) 2^-F floor + (2 k' - 1) eta + 2 p eta_r)`
//!
//! plus the flushed products, where `eta_r = (1 + u_red) eta_acc + eta_red`;
//! no intermediate above the smaller largest value. Where `p` is small
//! against `k'` this is about `k' eps + p u_red` relative, against
//! `k' (eps + u_red)` for the reducing bound (at `k = 2^15` the latter's
//! growth factor reaches fp16's largest value, so it has no value at all).
//! The bound is only as good as `p`: a split the library makes inside one
//! kernel without reporting it, and reduces in the output format, is not
//! counted (a second review of the derivation and 21 910 simulated splits
//! found no violation, 2026-11-26; that the count covers every such split
//! awaits a device run).

use super::super::directed::{add_up, expm1_up, ln1p_up, mul_up};
use super::super::gamma::u64_up;
use super::super::{Bound, Quantity, Rigor, Source, require};
use super::BlockFmaSpec;
use crate::error::{Result, VerifyError, require_same_len};
use crate::format::{Format, RoundingMode};

/// The source of [`block_fma_any_order`] (derivation in the module documentation).
pub const ANY_ORDER_SOURCE: Source = Source::new(
    "boundgate (block FMA in any order: Higham 2002 §4.2 with the block-FMA arithmetic of Fasi, Higham, Mikaitis and Pranesh 2021)",
    "rigorous block-FMA bound for any summation order",
    None,
);

/// The rigorous bound on `|fl(x . y) - x . y|` for ANY evaluation of the dot
/// product by `spec`'s block FMAs and additions rounded to its accumulator:
/// any split of the inner dimension, any order, any reduction tree (module
/// documentation).
///
/// # Errors
/// As [`super::block_fma_a_priori`]: different lengths, an invalid spec,
/// non-finite inputs, and [`crate::error::VerifyError::HypothesisNotMet`] when an
/// intermediate could overflow the accumulator or an input is not a number of
/// `spec.input` (the unit reads its operands in that format: the bound is on
/// its result for those values).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_a_priori, block_fma_any_order, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// let x = vec![1.0; 64];
/// let any = block_fma_any_order(&h100, &x, &x).unwrap();
/// // 64 products under 63 operations at most: about 64 (2^-25 + 2^-23) 64.
/// let eps = 2f64.powi(-25) + 2f64.powi(-23);
/// assert!(any.value >= 64.0 * eps * 64.0 && any.value < 64.0 * eps * 64.0 * 1.001);
/// // Never below the single-chain bound.
/// assert!(any.value >= block_fma_a_priori(&h100, &x, &x).unwrap().value);
/// ```
pub fn block_fma_any_order(spec: &BlockFmaSpec, x: &[f64], y: &[f64]) -> Result<Bound> {
    let (u_acc, eta_acc) = spec.output_errors();
    let node = NodeRounding {
        u: u_acc,
        eta: eta_acc,
        max: spec.accumulator.max_finite(),
        reduction: None,
        splits: None,
    };
    any_order(spec, x, y, &node)
}

/// [`block_fma_any_order`] where the reduction may also round to `reduction`
/// (in `mode`), a narrower output format: cuBLASLt's `INPLACE` and
/// `OUTPUT_TYPE` reduction schemes add split-K partials "in the output data
/// type", and cuBLAS allows reduced-precision reductions unless told not to,
/// so with an fp16 `D` partials may be rounded to fp16 and added there.
/// Every operation is then taken to round to the accumulator, to
/// `reduction`, or to both in turn (a conversion of its result, merged into
/// the operation that produced it): `u = u_acc + u_red + u_acc u_red`,
/// `eta = (1 + u_red) eta_acc + eta_red`, and no intermediate may exceed the
/// smaller format's largest value. The final conversion of the result to
/// `reduction` is such a rounding too. Found by review (2026-11-26): with one
/// fp16 rounding at the end only, a split-K reduction in fp16 exceeded the
/// bound by up to 1.99 times in an exact simulation.
///
/// # Errors
/// As [`block_fma_any_order`].
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_any_order, block_fma_any_order_reducing, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// // The review's case: two split-K partials rounded to fp16, then added in fp16.
/// let x = [1.0; 4];
/// let y = [1.0, 2f64.powi(-11) + 2f64.powi(-20), 1.0, 3.0 * 2f64.powi(-11) + 2f64.powi(-20)];
/// let exact: f64 = y.iter().sum();
/// let computed = 513.0 / 256.0;
/// let b = block_fma_any_order_reducing(&h100, Format::FP16, rne, &x, &y).unwrap();
/// assert!((computed - exact).abs() <= b.value);
/// assert!(b.value > block_fma_any_order(&h100, &x, &y).unwrap().value);
/// ```
pub fn block_fma_any_order_reducing(
    spec: &BlockFmaSpec,
    reduction: Format,
    mode: RoundingMode,
    x: &[f64],
    y: &[f64],
) -> Result<Bound> {
    let (u_acc, eta_acc) = spec.output_errors();
    let (u_red, eta_red) = (
        reduction.unit_roundoff(mode),
        reduction.underflow_abs_error(mode),
    );
    let node = NodeRounding {
        u: add_up(add_up(u_acc, u_red), mul_up(u_acc, u_red)),
        eta: add_up(mul_up(add_up(1.0, u_red), eta_acc), eta_red),
        max: spec.accumulator.max_finite().min(reduction.max_finite()),
        reduction: Some((reduction, mode)),
        splits: None,
    };
    any_order(spec, x, y, &node)
}

/// [`block_fma_any_order_reducing`] when the inner dimension is split into at
/// most `splits` parts whose partial results alone may be reduced in
/// `reduction` (module documentation, "Split-K reductions in a narrower
/// format"): each part a tree of block FMAs and accumulator additions, the
/// parts' results converted to `reduction`, added in any order rounding to
/// the accumulator, to `reduction` or both, and the result converted to
/// `reduction`. Much tighter than the reducing bound where `splits` is small
/// against the inner dimension: cuBLASLt reports its split
/// (`CUBLASLT_ALGO_CONFIG_SPLITK_NUM`); cuBLAS `GemmEx` does not.
///
/// # Errors
/// As [`block_fma_any_order`]; [`crate::error::VerifyError::InvalidParameter`]
/// for `splits = 0`.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_any_order_reducing, block_fma_any_order_split_reducing, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let rne = RoundingMode::NearestEven;
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// let x = vec![0.5; 4096];
/// // Four partials reduced in fp16: about (4096 (2^-25 + 2^-23) + 5 * 2^-11) S.
/// let split = block_fma_any_order_split_reducing(&h100, Format::FP16, rne, 4, &x, &x).unwrap();
/// let every = block_fma_any_order_reducing(&h100, Format::FP16, rne, &x, &x).unwrap();
/// assert!(split.value < 0.01 * 1024.0 && every.value > 100.0 * split.value);
/// assert!(block_fma_any_order_split_reducing(&h100, Format::FP16, rne, 0, &x, &x).is_err());
/// ```
pub fn block_fma_any_order_split_reducing(
    spec: &BlockFmaSpec,
    reduction: Format,
    mode: RoundingMode,
    splits: u64,
    x: &[f64],
    y: &[f64],
) -> Result<Bound> {
    if splits == 0 {
        return Err(VerifyError::invalid(
            "splits",
            splits,
            "at least one part (1: no split)",
        ));
    }
    let (u_acc, eta_acc) = spec.output_errors();
    let (u_red, eta_red) = (
        reduction.unit_roundoff(mode),
        reduction.underflow_abs_error(mode),
    );
    let node = NodeRounding {
        u: u_acc,
        eta: eta_acc,
        max: spec.accumulator.max_finite().min(reduction.max_finite()),
        reduction: Some((reduction, mode)),
        splits: Some(SplitReduction {
            parts: splits,
            u: add_up(add_up(u_acc, u_red), mul_up(u_acc, u_red)),
            eta: add_up(mul_up(add_up(1.0, u_red), eta_acc), eta_red),
        }),
    };
    any_order(spec, x, y, &node)
}

/// The growth factor of [`block_fma_any_order`], `(1 + eps)^n - 1` with
/// `eps = 2^-F + u_acc`, rounded up: its coefficient of `S'` for `n`
/// nonzero products, without the underflow terms (for catalogues and
/// comparisons with [`super::block_fma_constant`], the one-chain factor).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::tc::{block_fma_any_order_constant, block_fma_constant, BlockFmaSpec};
/// use boundgate_verify::format::{Format, RoundingMode};
/// let h100 = BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero);
/// let any = block_fma_any_order_constant(&h100, 4096);
/// // About 4096 (2^-25 + 2^-23): 4 times the chain's 256 (16 2^-25 + 2^-23),
/// // (2^-F + u) / (2^-F + u / b) for F = 25, u = 2^-23, b = 16.
/// assert!(any > 4096.0 * (2f64.powi(-25) + 2f64.powi(-23)));
/// let ratio = any / block_fma_constant(&h100, 256);
/// assert!(ratio > 4.0 && ratio < 4.01, "{ratio}");
/// ```
pub fn block_fma_any_order_constant(spec: &BlockFmaSpec, n: u64) -> f64 {
    let (u_acc, _) = spec.output_errors();
    let eps = add_up(spec.quantum_scale(), u_acc);
    // n above 2^53 rounds up, as every count in a bound does.
    expm1_up(mul_up(u64_up(n), ln1p_up(eps)))
}

/// How one operation of the tree rounds its exact (truncated) sum.
struct NodeRounding {
    /// Relative error.
    u: f64,
    /// Absolute (underflow) error.
    eta: f64,
    /// The largest value an intermediate may take.
    max: f64,
    /// The narrower format reductions may round to, if any.
    reduction: Option<(Format, RoundingMode)>,
    /// Where only the reduction of split-K parts rounds to `reduction`: the
    /// tree's nodes then round as `u`, `eta` say, and these operations come
    /// on top.
    splits: Option<SplitReduction>,
}

/// The reduction of at most `parts` partial results: at most `parts + 1`
/// operations on a path, at most `2 parts` in all, each rounding as `u`, `eta`.
struct SplitReduction {
    parts: u64,
    u: f64,
    eta: f64,
}

fn any_order(spec: &BlockFmaSpec, x: &[f64], y: &[f64], node: &NodeRounding) -> Result<Bound> {
    spec.validate()?;
    require_same_len("x and y", x.len(), y.len())?;
    super::block::readable_inputs(spec, x, y, &ANY_ORDER_SOURCE)?;
    let (u, eta) = (node.u, node.eta);
    let floor_in = spec.input.min_positive_normal();
    let floor_acc = spec.accumulator.min_positive_normal();
    let quantum = spec.quantum_scale();
    let (mut magnitudes, mut flushed, mut leaves) = (0.0f64, 0.0f64, 0u64);
    for (&a, &b) in x.iter().zip(y) {
        if a == 0.0 || b == 0.0 {
            continue;
        }
        if spec.flushes(a) || spec.flushes(b) {
            flushed = add_up(flushed, mul_up(a.abs(), b.abs()));
            continue;
        }
        magnitudes = add_up(
            magnitudes,
            mul_up(a.abs().max(floor_in), b.abs().max(floor_in)),
        );
        leaves += 1;
    }
    if leaves == 0 {
        return Ok(bound(flushed, spec, 0.0, node));
    }
    let eps = add_up(quantum, u);
    let k = leaves as f64;
    // The split-K reduction's operations on a path and in all, if any.
    let (path_log, reduction_eta) = match &node.splits {
        None => (0.0, 0.0),
        Some(r) => {
            let parts = r.parts as f64;
            (
                mul_up(add_up(parts, 1.0), ln1p_up(r.u)),
                mul_up(mul_up(2.0, parts), r.eta),
            )
        }
    };
    // (1 + eps)^k' - 1 and (1 + eps)^k', rounded up (times (1 + u_r)^(p + 1)
    // with a split-K reduction).
    let growth = expm1_up(add_up(mul_up(k, ln1p_up(eps)), path_log));
    let grown = add_up(growth, 1.0);
    let per_node = add_up(
        add_up(
            mul_up(mul_up(k - 1.0, quantum), floor_acc),
            mul_up(add_up(mul_up(2.0, k), -1.0), eta),
        ),
        reduction_eta,
    );
    let extras = mul_up(grown, per_node);
    let largest = add_up(mul_up(grown, magnitudes), extras);
    require(
        largest <= node.max,
        &ANY_ORDER_SOURCE,
        "no overflow: every intermediate below max_finite of the formats it is rounded to",
        || format!("(1 + eps)^k' S' + extras = {largest:e} > {:e}", node.max),
    )?;
    let error = add_up(add_up(mul_up(growth, magnitudes), extras), flushed);
    Ok(bound(error, spec, eps, node))
}

fn bound(error: f64, spec: &BlockFmaSpec, eps: f64, node: &NodeRounding) -> Bound {
    let (what, formats) = match node.reduction {
        Some((format, mode)) if node.splits.is_some() => (
            "every output the reduction of at most p split-K parts, each a tree of block FMAs and additions rounded to the accumulator; the parts' results converted to the reduction format, added rounding to the accumulator, to it, or to both in turn, and the result converted (each product entering once)",
            format!(
                "accumulator {} ({}), reduction {format} ({mode}), p = {}",
                spec.accumulator,
                spec.output_mode,
                node.splits.as_ref().map_or(0, |r| r.parts)
            ),
        ),
        None => (
            "every output a tree of block FMAs and additions rounded to the accumulator, each product entering once (any split, order and reduction)",
            format!("accumulator {} ({})", spec.accumulator, spec.output_mode),
        ),
        Some((format, mode)) => (
            "every output a tree of block FMAs and additions rounded to the accumulator, to the reduction format, or to both in turn, each product entering once (any split, order and reduction)",
            format!(
                "accumulator {} ({}), reduction {format} ({mode})",
                spec.accumulator, spec.output_mode
            ),
        ),
    };
    Bound::deterministic(
        error,
        Quantity::AbsoluteError,
        ANY_ORDER_SOURCE,
        Rigor::Rigorous,
    )
    .with_hypothesis(
        what,
        format!(
            "F = {}, inputs {}, {formats}, eps = 2^-F + u = {eps:e}",
            spec.fraction_bits, spec.input
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::VerifyError;

    fn h100() -> BlockFmaSpec {
        BlockFmaSpec::new(16, 25, Format::FP16, Format::FP32, RoundingMode::TowardZero)
    }

    #[test]
    fn no_products_no_error() {
        let b = block_fma_any_order(&h100(), &[0.0, 1.0], &[1.0, 0.0]).unwrap();
        assert_eq!(b.value, 0.0);
    }

    #[test]
    fn one_product_is_rounded_at_most_once() {
        // One leaf: (1 + eps) - 1 of its magnitude, and one eta.
        let spec = h100();
        let b = block_fma_any_order(&spec, &[3.0], &[5.0]).unwrap();
        let eps = spec.quantum_scale() + 2f64.powi(-23);
        assert!(b.value >= 15.0 * eps && b.value <= 15.0 * eps * (1.0 + 1e-12) + 1e-40);
    }

    /// The fast membership test agrees with `Format::is_representable` on
    /// every named format and formats without subnormals, over random bit
    /// patterns, values near each format's numbers and its edges.
    #[test]
    fn the_membership_test_is_is_representable() {
        let mut formats = Format::NAMED.to_vec();
        formats.extend([
            Format::FP16.without_subnormals(),
            Format::custom(3, -6, 7, false, crate::format::OverflowPolicy::Saturate).unwrap(),
            Format::custom(5, 3, 9, true, crate::format::OverflowPolicy::Infinity).unwrap(),
        ]);
        let mut next = crate::splitmix64(0x5eed_0005);
        for format in formats {
            let mut values = vec![
                format.max_finite(),
                format.max_finite().next_up(),
                format.min_positive(),
                format.min_positive().next_down(),
                format.min_positive() / 2.0,
                format.min_positive_normal(),
                f64::from_bits(1),
                f64::MAX,
                1.0,
            ];
            for _ in 0..20_000 {
                let r = f64::from_bits(next());
                if r.is_finite() {
                    values.push(r);
                }
                // A number of the format and its f64 neighbours.
                let e = (next() % 80) as i32 - 40;
                let v = format.round(
                    (next() >> 11) as f64 * 2f64.powi(e - 53),
                    RoundingMode::NearestEven,
                );
                values.extend([v, v.next_up(), v.next_down()]);
            }
            for v in values.into_iter().filter(|v| v.is_finite()) {
                for v in [v, -v] {
                    assert_eq!(
                        super::super::block::is_number_of(format, v),
                        format.is_representable(v),
                        "{format} {v:e}"
                    );
                }
            }
        }
    }

    #[test]
    fn non_finite_and_overflowing_inputs_are_hypotheses() {
        let spec = h100();
        assert!(matches!(
            block_fma_any_order(&spec, &[f64::NAN], &[1.0]),
            Err(VerifyError::HypothesisNotMet { .. })
        ));
        // fp16 accumulation: one product 100 x 100 fits, 1000 reach 1e7 > 65504.
        let fp16_acc =
            BlockFmaSpec::new(8, 22, Format::FP16, Format::FP16, RoundingMode::NearestEven);
        let big = vec![100.0; 1000];
        block_fma_any_order(&fp16_acc, &big[..1], &big[..1]).unwrap();
        assert!(matches!(
            block_fma_any_order(&fp16_acc, &big, &big),
            Err(VerifyError::HypothesisNotMet { .. })
        ));
        assert!(block_fma_any_order(&spec, &[1.0], &[1.0, 2.0]).is_err());
    }
}
