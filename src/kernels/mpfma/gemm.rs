//! `mpfma-gemm`: `D = A B` on a tensor-core model (the bit-exact block FMA of
//! a record, or Algorithm 1 as the paper models it), with Theorems 3.7-3.10
//! and the rigorous bounds per element.
//!
//! Shapes: `A` is `m x n`, `B` is `n x t` (any sizes >= 1). The inner
//! dimension need not be a multiple of the block `b`: it is padded with zeros
//! to `q b`, which changes no result (a zero product takes no part in a block
//! FMA's alignment and adds no rounding error in Algorithm 1), and the
//! theorems are evaluated for `q b`. `m` and `t` are free: output blocks do
//! not change any element's arithmetic.

use super::alg1::Alg1;
use super::blockfma::BlockFma;
use super::common::{
    U_GIVEN_F64, add_each, add_to, element_bounds, representation_up, scaled, transpose,
};
use super::gpu::{GemmKernel, Vendor, VendorReduction};
use super::record::{Arch, TcInput, TcOutput, TcRecord};
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{
    BoundCheck, InputSpec, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params,
    Reference, Shape, input, shape_len,
};
use boundgate_verify::bounds::directed::{add_up, mul_up};
use boundgate_verify::bounds::tc::{
    BlockFmaSpec, GammaTilde, GemmShape, Roundoffs, ThmConstant, alg1_rigorous,
    block_fma_a_posteriori, block_fma_a_priori, block_fma_any_order, block_fma_any_order_reducing,
    block_fma_any_order_split_reducing, block_fma_constant, thm_3_7, thm_3_8, thm_3_9, thm_3_10,
    vibea_lambda,
};
use boundgate_verify::bounds::{Bound, Kind};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::require_same_len;
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle::{self, Matrix};
use boundgate_verify::{Result as VResult, VerifyError};
use serde_json::json;

/// `mpfma-gemm`: the tensor-core GEMM kernel.
pub struct MpfmaGemm;

const INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "a",
        shape: Shape::Matrix,
        help: "left matrix A, m x n",
    },
    InputSpec {
        name: "b",
        shape: Shape::Matrix,
        help: "right matrix B, n x t",
    },
];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "model",
        default: "tc",
        kind: ParamKind::Choice(&["tc", "alg1"]),
        help: "tc: the bit-exact block FMA of the record; alg1: Algorithm 1 as the paper models it (a rounding after every addition)",
    },
    ParamSpec {
        key: "arch",
        default: "sm90",
        kind: ParamKind::Choice(&["sm80", "sm90"]),
        help: "the record's architecture: sm80 (A100) or sm90 (H100/H200)",
    },
    ParamSpec {
        key: "input",
        default: "fp16",
        kind: ParamKind::Choice(&["fp16", "bf16", "tf32", "e4m3", "e5m2"]),
        help: "format of A and B (inputs are rounded to it, nearest even; tf32 is stored as fp32 and truncated by the unit)",
    },
    ParamSpec {
        key: "output",
        default: "fp32",
        kind: ParamKind::Choice(&["fp32", "fp16", "fp32-fp16"]),
        help: "accumulator: fp32, fp16, or fp32 converted to fp16 at the end (cuBLAS GemmEx with fp16 C and 32F compute, the paper's Listing 1)",
    },
    ParamSpec {
        key: "block",
        default: "0",
        kind: ParamKind::Count,
        help: "inner block size b (at most 4096); 0 = the record's",
    },
    ParamSpec {
        key: "probability",
        default: "0.9999",
        kind: ParamKind::Probability,
        help: "per-element probability the VIBEA bounds (Theorems 3.9, 3.10) are evaluated at (lambda solved for it; the audit's union over m t elements then claims 1 - m t (1 - p))",
    },
    ParamSpec {
        key: "backend",
        default: "cpu",
        kind: ParamKind::Choice(&["cpu", "gpu", "auto", "gemmex", "cublaslt"]),
        help: "cpu: the model; gpu: our GEMM named by `kernel` (needs a device matching the record, model tc, fp16/bf16/tf32); auto: gpu when possible; gemmex, cublaslt: the vendor GEMM on the device (model tc, fp32 accumulation; GemmEx fp16 inputs only), held to the any-order rigorous bound (its split and order are the library's)",
    },
    ParamSpec {
        key: "kernel",
        default: "simple",
        kind: ParamKind::Choice(&["simple", "pipelined", "wide", "wgmma"]),
        help: "backend gpu or auto only: which of our GEMMs runs, all the block-FMA model's order bit for bit. simple: any input and accumulation; pipelined: the same, 16-byte loads; wide: 128 x 128 tiles, fp16/bf16 inputs; wgmma: Hopper's warpgroup MMA (sm_90 only), fp16/bf16 inputs, fp32 accumulation, the fastest",
    },
    ParamSpec {
        key: "reduction",
        default: "library",
        kind: ParamKind::Choice(&["library", "compute-type"]),
        help: "vendor backends only: where split-K partials are reduced. library: the library's choice (with an fp16 D possibly in fp16; the any-order bound allows it); compute-type: fp32 only (cuBLAS CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, cuBLASLt reduction scheme COMPUTE_TYPE), held to the any-order bound without fp16 reductions",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "mpfma-gemm",
    summary: "D = A B on a tensor-core model (block FMA of an sm80/sm90 record, or Algorithm 1), Theorems 3.7-3.10",
    inputs: INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Propagated,
};

/// What a run computes: the record, the model, the epilogue.
#[derive(Clone, Copy, Debug)]
pub struct GemmConfig {
    /// The tensor-core record (its block possibly overridden).
    pub record: TcRecord,
    /// Algorithm 1 instead of the block FMA.
    pub alg1: bool,
    /// The fp32 result is converted to fp16 at the end.
    pub fp16_epilogue: bool,
}

/// The largest inner block `b` accepted (published block-FMA units: 4 to 64).
pub const MAX_BLOCK: usize = 4096;

impl GemmConfig {
    /// From a kernel's parameters.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::Params;
    /// use boundgate::kernels::mpfma::gemm::{GemmConfig, MpfmaGemm};
    /// use boundgate::kernels::mpfma::record::TcOutput;
    /// let params = |p: &[&str]| Params::parse(&MpfmaGemm, &p.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    /// let c = GemmConfig::from_params(&params(&["output=fp32-fp16", "block=8"])).unwrap();
    /// // fp32 accumulation converted to fp16 at the end; the sm90 record's block 16 overridden.
    /// assert_eq!((c.record.output, c.fp16_epilogue, c.record.block, c.alg1), (TcOutput::Fp32, true, 8, false));
    /// assert!(GemmConfig::from_params(&params(&["model=alg1"])).unwrap().alg1);
    /// // Beyond MAX_BLOCK, and combinations without a record, are refused.
    /// assert!(matches!(GemmConfig::from_params(&params(&["block=5000"])), Err(Error::Usage(_))));
    /// assert!(matches!(GemmConfig::from_params(&params(&["input=bf16", "output=fp16"])), Err(Error::Usage(_))));
    /// ```
    pub fn from_params(params: &Params) -> Result<GemmConfig> {
        let arch: Arch = params.text("arch")?.parse()?;
        let input: TcInput = params.text("input")?.parse()?;
        let (acc, fp16_epilogue) = match params.text("output")? {
            "fp16" => (TcOutput::Fp16, false),
            "fp32-fp16" => (TcOutput::Fp32, true),
            _ => (TcOutput::Fp32, false),
        };
        let mut record = TcRecord::lookup(arch, input, acc)?;
        let block = params.usize("block")?;
        // Published block-FMA units add 4 to 64 products at once; the model
        // and its bounds cost O(block) per output (and pad the inner
        // dimension to a multiple of it), so an absurd block ran for ever on
        // a 4x4 product (review, 2026-11-25): refused beyond MAX_BLOCK.
        if block > MAX_BLOCK {
            return Err(Error::usage(format!(
                "block = {block}: at most {MAX_BLOCK} (0 for the record's)"
            )));
        }
        if block != 0 {
            record = record.with_block(block);
        }
        Ok(GemmConfig {
            record,
            alg1: params.text("model")? == "alg1",
            fp16_epilogue,
        })
    }

    /// Algorithm 1 with Table 2's formats and the record's block.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::alg1::Alg1;
    /// use boundgate::kernels::mpfma::gemm::config_from_pairs;
    /// use boundgate::kernels::mpfma::record::{TcInput, TcOutput};
    /// let c = config_from_pairs(&["input=bf16", "block=4"]).unwrap();
    /// assert_eq!(c.alg1_model(), Alg1::table2(TcInput::Bf16, TcOutput::Fp32, 4));
    /// // The record's block by default: 8 for tf32 on sm90.
    /// assert_eq!(config_from_pairs(&["input=tf32"]).unwrap().alg1_model().block, 8);
    /// ```
    pub fn alg1_model(&self) -> Alg1 {
        Alg1::table2(self.record.input, self.record.output, self.record.block)
    }

    /// The unit roundoffs the paper's theorems take: Table 2 (products in
    /// fp32, accumulation and output in the accumulator format, to nearest).
    /// An fp32 accumulator counts as fp32 even where the record keeps fewer
    /// bits (Hopper fp8): that is the paper's reading of the PTX guide.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gemm::config_from_pairs;
    /// use boundgate_verify::bounds::tc::Roundoffs;
    /// let r = |p: &[&str]| config_from_pairs(p).unwrap().roundoffs();
    /// assert_eq!(r(&[]), Roundoffs::table2_fp32()); // fp16 -> fp32
    /// assert_eq!(r(&["output=fp16"]), Roundoffs::table2_fp16());
    /// // Hopper fp8: u_low of e4m3 (2^-4); the fp32 accumulator counts as fp32 (2^-24),
    /// // although the record keeps 13 fraction bits.
    /// let fp8 = r(&["input=e4m3"]);
    /// assert_eq!((fp8.u_low, fp8.u_bar, fp8.u_fma), (2f64.powi(-4), 2f64.powi(-24), 2f64.powi(-24)));
    /// ```
    pub fn roundoffs(&self) -> Roundoffs {
        let acc = match self.record.output {
            TcOutput::Fp32 => Format::FP32,
            TcOutput::Fp16 => Format::FP16,
        };
        // Round-to-nearest: `of_formats` refuses formats only for a directed mode.
        Roundoffs::of_formats(
            [self.record.input.operand(), acc, Format::FP32, acc, acc],
            RoundingMode::NearestEven,
        )
        .expect("round-to-nearest roundoffs are always accepted")
    }
}

/// The operands of a run: as given, stored, and read by the unit.
pub struct GemmOperands {
    /// Rows of `A`.
    pub m: usize,
    /// Inner dimension.
    pub k: usize,
    /// Columns of `B`.
    pub t: usize,
    /// `A` and `B` as given.
    pub a: Vec<f64>,
    /// `B` as given.
    pub b: Vec<f64>,
    /// `A` as the unit reads it.
    pub a_read: Vec<f64>,
    /// `B` as the unit reads it.
    pub b_read: Vec<f64>,
}

impl GemmOperands {
    /// Rounds `a` (`m x k`) and `b` (`k x t`) to the record's storage (nearest
    /// even) and reads them as the unit does.
    ///
    /// # Errors
    /// [`VerifyError::Empty`] for an empty dimension, [`VerifyError::LengthMismatch`]
    /// if the inner dimensions differ or `a`, `b` do not hold `m k`, `k t`
    /// elements, [`VerifyError::InvalidParameter`] for an
    /// output of more than 2^28 elements ([`crate::kernels::require_output_fits`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gemm::GemmOperands;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// use boundgate_verify::VerifyError;
    /// let fp16 = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// let ops = GemmOperands::new(&fp16, vec![0.1, 2.0], (1, 2), vec![3.0, 0.5], (2, 1)).unwrap();
    /// assert_eq!(ops.a_read, vec![0.0999755859375, 2.0]); // 0.1 to nearest fp16
    /// assert_eq!((ops.a[0], ops.m, ops.k, ops.t), (0.1, 1, 2, 1));
    /// // tf32: stored as fp32 (nearest), then truncated to 10 fraction bits by the unit.
    /// let tf32 = TcRecord::lookup(Arch::Sm90, TcInput::Tf32, TcOutput::Fp32).unwrap();
    /// let v = 1.0 + 2f64.powi(-10) + 2f64.powi(-11) + 2f64.powi(-12);
    /// let ops = GemmOperands::new(&tf32, vec![v], (1, 1), vec![1.0], (1, 1)).unwrap();
    /// assert_eq!(ops.a_read, vec![1.0 + 2f64.powi(-10)]);
    /// assert!(matches!(GemmOperands::new(&fp16, vec![], (0, 1), vec![1.0], (1, 1)), Err(VerifyError::Empty { .. })));
    /// let mismatch = GemmOperands::new(&fp16, vec![1.0; 2], (1, 2), vec![1.0; 3], (3, 1));
    /// assert!(matches!(mismatch, Err(VerifyError::LengthMismatch { .. })));
    /// // a slice that does not hold its shape
    /// let short = GemmOperands::new(&fp16, vec![1.0], (2, 2), vec![1.0; 4], (2, 2));
    /// assert!(matches!(short, Err(VerifyError::LengthMismatch { .. })));
    /// ```
    pub fn new(
        record: &TcRecord,
        a: Vec<f64>,
        (m, k): (usize, usize),
        b: Vec<f64>,
        (k_b, t): (usize, usize),
    ) -> VResult<GemmOperands> {
        for (name, v) in [("rows of A", m), ("columns of A", k), ("columns of B", t)] {
            if v == 0 {
                return Err(VerifyError::Empty { what: name.into() });
            }
        }
        require_same_len("columns of A and rows of B", k, k_b)?;
        crate::kernels::require_output_fits(m, t)?;
        // The slices must hold exactly the shapes given: the model indexes
        // them as m x k and k x t and would otherwise read out of bounds.
        for (what, rows, cols, len) in [
            ("elements of A (m k)", m, k, a.len()),
            ("elements of B (k t)", k, t, b.len()),
        ] {
            let expected = shape_len(what, rows, cols)?;
            require_same_len(what, expected, len)?;
        }
        let read = |v: &[f64]| -> Vec<f64> {
            let storage = record.input.storage();
            v.iter()
                .map(|&x| {
                    record
                        .input
                        .read(storage.round(x, RoundingMode::NearestEven))
                })
                .collect()
        };
        Ok(GemmOperands {
            m,
            k,
            t,
            a_read: read(&a),
            b_read: read(&b),
            a,
            b,
        })
    }

    /// The first input that is finite as given but not as read (it overflowed the input format).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gemm::GemmOperands;
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// let ops = |a: Vec<f64>, b: Vec<f64>| GemmOperands::new(&r, a, (1, 2), b, (2, 1)).unwrap();
    /// // 65519 rounds to fp16's 65504; 7e4 rounds to infinity.
    /// assert_eq!(ops(vec![65519.0, 1.0], vec![1.0, 7e4]).first_overflow(), Some(('B', 1, 7e4)));
    /// assert_eq!(ops(vec![65519.0, 1.0], vec![1.0, 1.0]).first_overflow(), None);
    /// // An infinity given is not an overflow of the format.
    /// assert_eq!(ops(vec![f64::INFINITY, 1.0], vec![1.0, 1.0]).first_overflow(), None);
    /// ```
    pub fn first_overflow(&self) -> Option<(char, usize, f64)> {
        let find = |name, given: &[f64], read: &[f64]| {
            given
                .iter()
                .zip(read)
                .position(|(g, r)| g.is_finite() && !r.is_finite())
                .map(|i| (name, i, given[i]))
        };
        find('A', &self.a, &self.a_read).or_else(|| find('B', &self.b, &self.b_read))
    }
}

/// The result of the model and the per-element quantities the bounds need.
#[derive(Clone, Debug)]
pub struct GemmRun {
    /// `D`, row-major `m x t` (after the epilogue).
    pub d: Vec<f64>,
    /// Per element: the a-posteriori block-FMA bound (model `tc`), or its failure.
    pub a_posteriori: Vec<VResult<f64>>,
    /// Where it ran ("cpu model" or the device).
    pub ran_on: String,
    /// The split-K parts a vendor library reported (cuBLASLt's `SPLITK_NUM`),
    /// if it did.
    pub split_k: Option<u64>,
}

/// Runs the CPU model (block FMA or Algorithm 1) on the operands.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, config_from_pairs, run_model};
/// let small = 2f64.powi(-12);
/// let run = |pairs: &[&str]| {
///     let config = config_from_pairs(pairs).unwrap();
///     // [1, -1, 2^-12] . [1, 1, 2^-13] = 2^-25 exactly.
///     let ops = GemmOperands::new(&config.record, vec![1.0, -1.0, small], (1, 3), vec![1.0, 1.0, small / 2.0], (3, 1)).unwrap();
///     run_model(&config, &ops).unwrap()
/// };
/// // A100's block FMA keeps 24 fractional bits below 2^0: 2^-25 is truncated away.
/// let tc = run(&["arch=sm80"]);
/// assert_eq!((tc.d[0], tc.ran_on.as_str()), (0.0, "cpu model"));
/// assert!(*tc.a_posteriori[0].as_ref().unwrap() >= 2f64.powi(-25)); // and its bound knows it
/// // Algorithm 1 rounds after every addition: 1 - 1 = 0, then 2^-25 exactly.
/// let alg1 = run(&["arch=sm80", "model=alg1"]);
/// assert_eq!(alg1.d, vec![2f64.powi(-25)]);
/// assert!(alg1.a_posteriori.is_empty()); // the a-posteriori bound is the block FMA's
/// ```
pub fn run_model(config: &GemmConfig, ops: &GemmOperands) -> Result<GemmRun> {
    let (m, k, t) = (ops.m, ops.k, ops.t);
    // The fields are public: operands edited by hand are checked before
    // `transpose` indexes them (it panicked until 2026-11-29).
    require_same_len(
        "A as read and m x k",
        ops.a_read.len(),
        shape_len("A", m, k)?,
    )?;
    require_same_len(
        "B as read and k x t",
        ops.b_read.len(),
        shape_len("B", k, t)?,
    )?;
    let mut a_posteriori = Vec::with_capacity(shape_len("D", m, t)?);
    let mut d = if config.alg1 {
        config
            .alg1_model()
            .gemm(&ops.a_read, &ops.b_read, m, k, t)?
    } else {
        let unit = BlockFma::new(&config.record);
        let spec = config.record.spec();
        let bt = transpose(&ops.b_read, k, t);
        let mut d = Vec::with_capacity(m * t);
        unit.gemm_visit(&ops.a_read, &ops.b_read, m, k, t, |i, j, v, partials| {
            d.push(v);
            a_posteriori.push(
                block_fma_a_posteriori(
                    &spec,
                    &ops.a_read[i * k..(i + 1) * k],
                    &bt[j * k..(j + 1) * k],
                    partials,
                )
                .map(|b| b.value),
            );
        })?;
        d
    };
    if config.fp16_epilogue {
        for v in &mut d {
            *v = Format::FP16.round(*v, RoundingMode::NearestEven);
        }
    }
    Ok(GemmRun {
        d,
        a_posteriori,
        ran_on: "cpu model".into(),
        split_k: None,
    })
}

/// The bound on the final conversion to fp16 (`output = fp32-fp16`), given a
/// bound `magnitude` on the fp32 result: `u16 |d| + eta16`; the conversion may
/// overflow beyond 65504.
fn epilogue_up(magnitude: f64) -> VResult<f64> {
    let fp16 = Format::FP16;
    if magnitude > fp16.max_finite() {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "fp16 epilogue".into(),
            hypothesis: "no overflow of the fp16 result".into(),
            detail: format!("|D_ij| may reach {magnitude:e} > 65504"),
        });
    }
    Ok(fp16_conversion_error_up(magnitude))
}

/// The error of converting an fp32 value of magnitude at most `magnitude`
/// to fp16 (nearest even) where it stays finite: `u16 magnitude + eta16`,
/// rounded up. [`epilogue_up`] adds the no-overflow hypothesis;
/// `mpfma-fig6` uses it for device results that are finite.
pub(super) fn fp16_conversion_error_up(magnitude: f64) -> f64 {
    let fp16 = Format::FP16;
    let rne = RoundingMode::NearestEven;
    add_up(
        mul_up(fp16.unit_roundoff(rne), magnitude),
        fp16.underflow_abs_error(rne),
    )
}

/// Per-element sums `(|A||B|)_ij` of two row-major operands, rounded up.
fn abs_products(a: &[f64], bt: &[f64], m: usize, k: usize, t: usize) -> VResult<Vec<f64>> {
    let mut out = Vec::with_capacity(m * t);
    for i in 0..m {
        for j in 0..t {
            out.push(oracle::abs_dot_up(
                &a[i * k..(i + 1) * k],
                &bt[j * k..(j + 1) * k],
            )?);
        }
    }
    Ok(out)
}

/// The order of the inner dimension a rigorous bound assumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InnerOrder {
    /// One chain of block steps per element, in order: the model and our
    /// GPU kernel (bit-identical to it), [`block_fma_a_priori`].
    Chain,
    /// Any split, order and reduction tree of block FMAs and additions: a
    /// vendor GEMM, which does not say how it splits the inner dimension
    /// ([`block_fma_any_order`]; the chain bound does not hold for split-K
    /// orders, `tests/mpfma_model.rs`). With an fp16 `D`, split-K partials
    /// may be reduced in fp16 (the library's default).
    Any,
    /// As [`InnerOrder::Any`], with every reduction of partial results in the
    /// accumulator format (fp32): a vendor GEMM told not to reduce in the
    /// output type ([`VendorReduction::ComputeType`]).
    /// The same bound as `Any` for an fp32 `D`.
    AnyAccumulatorReduction,
    /// As [`InnerOrder::Any`], split into at most this many parts whose
    /// results alone may be reduced in the output type: a cuBLASLt run, which
    /// reports its split. With an fp16 `D` the smaller of the reducing bound
    /// and [`block_fma_any_order_split_reducing`] (about `p u16` instead of
    /// `k (u32 + u16)` relative: the reducing bound has no value at the
    /// paper's inner dimension 2^15; review, 2026-11-26).
    AnySplit(u64),
}

impl InnerOrder {
    /// Whether the bound covers vendor splits and orders (both `Any` forms).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gemm::InnerOrder;
    /// assert!(!InnerOrder::Chain.is_any());
    /// assert!(InnerOrder::Any.is_any() && InnerOrder::AnyAccumulatorReduction.is_any());
    /// assert!(InnerOrder::AnySplit(4).is_any());
    /// ```
    pub fn is_any(self) -> bool {
        self != InnerOrder::Chain
    }
}

/// The block-FMA bound of one element of a vendor GEMM, whose split-K, order
/// and reduction are its own ([`InnerOrder::Any`]): [`block_fma_any_order`],
/// or with an fp16 `D` [`block_fma_any_order_reducing`], since the vendor may
/// then reduce split-K partials in fp16 (cuBLASLt's INPLACE and OUTPUT_TYPE
/// schemes, cuBLAS's reduced-precision reductions; found by review).
///
/// # Errors
/// As [`block_fma_any_order`].
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::blockfma::BlockFma;
/// use boundgate::kernels::mpfma::gemm::any_order_bound;
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// use boundgate_verify::bounds::tc::block_fma_a_priori;
/// use boundgate_verify::oracle;
/// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let (spec, unit) = (r.spec(), BlockFma::new(&r));
/// let x: Vec<f64> = (0..64).map(|i| 1.0 + i as f64 * 2f64.powi(-10)).collect(); // fp16 values
/// let y = vec![1.0 + 2f64.powi(-10); 64];
/// let any = any_order_bound(&spec, false, &x, &y).unwrap().value;
/// // Split-K in two halves, the halves added in fp32: not one chain, still within the bound.
/// let half = |s: std::ops::Range<usize>| unit.chain(&x[s.clone()], &y[s], 0.0).unwrap().0;
/// let split = (half(0..32) as f32 + half(32..64) as f32) as f64;
/// let err = |d| oracle::dot(&x, &y).unwrap().error_of(d).absolute_up().unwrap();
/// assert!(err(split) <= any && err(unit.chain(&x, &y, 0.0).unwrap().0) <= any);
/// assert!(block_fma_a_priori(&spec, &x, &y).unwrap().value <= any); // the chain's is tighter
/// assert!(any_order_bound(&spec, true, &x, &y).unwrap().value > any); // fp16 reductions allowed
/// ```
pub fn any_order_bound(
    spec: &BlockFmaSpec,
    fp16_output: bool,
    x: &[f64],
    y: &[f64],
) -> VResult<Bound> {
    if fp16_output {
        block_fma_any_order_reducing(spec, Format::FP16, RoundingMode::NearestEven, x, y)
    } else {
        block_fma_any_order(spec, x, y)
    }
}

/// The block-FMA bound of one element of a vendor GEMM with an fp16 `D` that
/// reported splitting the inner dimension into `parts`: the smaller of the
/// reducing bound (every operation may round to fp16) and the split-K one
/// (only the reduction of the parts' results may), both rigorous for such a
/// run; an element where both fail a hypothesis has none.
///
/// # Errors
/// As [`block_fma_any_order_split_reducing`].
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::blockfma::BlockFma;
/// use boundgate::kernels::mpfma::gemm::{any_order_bound, split_any_order_bound};
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// use boundgate_verify::format::{Format, RoundingMode};
/// use boundgate_verify::oracle;
/// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// let (spec, unit) = (r.spec(), BlockFma::new(&r));
/// let x: Vec<f64> = (0..64).map(|i| 1.0 + i as f64 * 2f64.powi(-10)).collect(); // fp16 values
/// let y = vec![1.0 + 2f64.powi(-10); 64];
/// let split = split_any_order_bound(&spec, 2, &x, &y).unwrap().value;
/// assert!(split <= any_order_bound(&spec, true, &x, &y).unwrap().value); // the smaller of two
/// // Two chains whose results are reduced in fp16 (an fp16 D), as a split-K library may.
/// let (h, rne) = (Format::FP16, RoundingMode::NearestEven);
/// let half = |s: std::ops::Range<usize>| h.round(unit.chain(&x[s.clone()], &y[s], 0.0).unwrap().0, rne);
/// let d = h.add(half(0..32), half(32..64), rne);
/// assert!(oracle::dot(&x, &y).unwrap().error_of(d).absolute_up().unwrap() <= split);
/// ```
pub fn split_any_order_bound(
    spec: &BlockFmaSpec,
    parts: u64,
    x: &[f64],
    y: &[f64],
) -> VResult<Bound> {
    let rne = RoundingMode::NearestEven;
    let split = block_fma_any_order_split_reducing(spec, Format::FP16, rne, parts, x, y);
    match (split, any_order_bound(spec, true, x, y)) {
        (Ok(s), Ok(every)) => Ok(if every.value < s.value { every } else { s }),
        (Ok(b), Err(_)) | (Err(_), Ok(b)) => Ok(b),
        (Err(e), Err(_)) => Err(e),
    }
}

/// The per-element rigorous bound of `mpfma-gemm`: the arithmetic's bound
/// for `order` (block FMA) or Algorithm 1's, plus the representation error
/// of the inputs and the fp16 epilogue.
///
/// # Errors
/// A hypothesis that does not hold (an input that overflows its format, a
/// possible overflow of the accumulator), or [`VerifyError::InvalidParameter`]
/// for Algorithm 1 in [`InnerOrder::Any`] (it has one order by definition),
/// [`VerifyError::LengthMismatch`] if `s_read` does not hold one value per
/// element of `D` (`m t`).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, InnerOrder, config_from_pairs, rigorous_bounds, run_model};
/// use boundgate_verify::{oracle, VerifyError};
/// let config = config_from_pairs(&["arch=sm80"]).unwrap();
/// let (a, b) = (vec![1.0, -1.0, 0.1], vec![1.0, 1.0, 2f64.powi(-13)]); // 0.1 is no fp16 value
/// let ops = GemmOperands::new(&config.record, a, (1, 3), b, (3, 1)).unwrap();
/// let s_read = Ok(vec![oracle::abs_dot_up(&ops.a_read, &ops.b_read).unwrap()]); // B has one column
/// let bounds = rigorous_bounds(&config, &ops, &s_read, InnerOrder::Chain).unwrap();
/// // The error against the inputs as given (representation error included) is within it.
/// let d = run_model(&config, &ops).unwrap().d[0];
/// let err = oracle::dot(&ops.a, &ops.b).unwrap().error_of(d).absolute_up().unwrap();
/// assert!(err > 0.0 && err <= bounds.values()[0]);
/// // Algorithm 1 has one order; an input beyond fp16 fails the hypotheses.
/// let alg1 = config_from_pairs(&["arch=sm80", "model=alg1"]).unwrap();
/// assert!(matches!(rigorous_bounds(&alg1, &ops, &s_read, InnerOrder::Any), Err(VerifyError::InvalidParameter { .. })));
/// let big = GemmOperands::new(&config.record, vec![1e5], (1, 1), vec![1.0], (1, 1)).unwrap();
/// let e = rigorous_bounds(&config, &big, &Ok(vec![1e5]), InnerOrder::Chain);
/// assert!(matches!(e, Err(VerifyError::HypothesisNotMet { .. })));
/// // S must hold one value per element of D.
/// let e = rigorous_bounds(&config, &ops, &Ok(vec![]), InnerOrder::Chain);
/// assert!(matches!(e, Err(VerifyError::LengthMismatch { .. })));
/// ```
pub fn rigorous_bounds(
    config: &GemmConfig,
    ops: &GemmOperands,
    s_read: &VResult<Vec<f64>>,
    order: InnerOrder,
) -> VResult<ElementBounds> {
    if config.alg1 && order.is_any() {
        return Err(VerifyError::invalid(
            "model",
            "alg1",
            "Algorithm 1 has one order; the any-order bound is the block FMA's",
        ));
    }
    if let Some((name, index, value)) = ops.first_overflow() {
        return Err(VerifyError::HypothesisNotMet {
            source_ref: "every mpfma-gemm bound".into(),
            hypothesis: format!("every input is finite in {}", config.record.input),
            detail: format!("{name}[{index}] = {value:e} overflows it"),
        });
    }
    let s_read = s_read.as_ref().map_err(Clone::clone)?;
    let (m, k, t) = (ops.m, ops.k, ops.t);
    // One S per element of D: a shorter vector was indexed out of bounds.
    boundgate_verify::error::require_same_len(
        "S per element and elements of D (m t)",
        s_read.len(),
        m * t,
    )?;
    let bt_read = transpose(&ops.b_read, k, t);
    let bt = transpose(&ops.b, k, t);
    let arithmetic = if config.alg1 {
        let alg = config.alg1_model();
        let shape = GemmShape::new(1, k as u64, alg.block as u64)?;
        element_bounds(m * t, |e| {
            let (i, j) = (e / t, e % t);
            let exact = alg.products_exact(
                &ops.a_read[i * k..(i + 1) * k],
                &bt_read[j * k..(j + 1) * k],
            );
            alg1_rigorous(&alg.arithmetic(), &shape, exact, s_read[e])
        })?
    } else {
        let spec = config.record.spec();
        element_bounds(m * t, |e| {
            let (i, j) = (e / t, e % t);
            let (x, y) = (
                &ops.a_read[i * k..(i + 1) * k],
                &bt_read[j * k..(j + 1) * k],
            );
            match order {
                InnerOrder::Chain => block_fma_a_priori(&spec, x, y),
                InnerOrder::Any => any_order_bound(&spec, config.fp16_epilogue, x, y),
                InnerOrder::AnyAccumulatorReduction => any_order_bound(&spec, false, x, y),
                InnerOrder::AnySplit(parts) if config.fp16_epilogue => {
                    split_any_order_bound(&spec, parts, x, y)
                }
                InnerOrder::AnySplit(_) => any_order_bound(&spec, false, x, y),
            }
        })?
    };
    let representation: Vec<f64> = (0..m * t)
        .map(|e| {
            let (i, j) = (e / t, e % t);
            representation_up(
                &ops.a[i * k..(i + 1) * k],
                &ops.a_read[i * k..(i + 1) * k],
                &bt[j * k..(j + 1) * k],
                &bt_read[j * k..(j + 1) * k],
            )
        })
        .collect();
    let mut bounds = add_to(
        arithmetic,
        &representation,
        "inputs rounded to the input format (representation error added)",
        "sum |a~ b~ - a b| <= sum |a~| |b~ - b| + |b| |a~ - a|".into(),
    )?;
    // The reducing and split-K bounds count the final conversion to fp16 among
    // their roundings already (adding it again was safe but loose; review,
    // 2026-11-26).
    let conversion_counted = matches!(order, InnerOrder::Any | InnerOrder::AnySplit(_));
    if config.fp16_epilogue && !conversion_counted {
        bounds = add_each(
            bounds,
            |e, b| Ok(add_up(b, epilogue_up(add_up(s_read[e], b))?)),
            "final conversion to fp16 (nearest even)",
            "u16 (S + bound) + eta16".into(),
        )?;
    }
    Ok(bounds)
}

/// Theorems 3.8 and 3.10 model the cast of the given inputs to `t_low` as one
/// rounding with unit roundoff `u_low` (`|Delta A| <= u_low |A|`). A tf32 unit
/// does not round: the fp64 data are rounded to the fp32 storage (nearest,
/// `u32`) and the unit truncates fp32 to tf32 (MMA-Sim `truncate_to_tf32`;
/// [`TcInput::read`]), relative error below `2^-10 = 2 u_tf32`. So the cast's
/// unit roundoff is `(1 + u32)(1 + 2^-10) - 1`, rounded up; other inputs are
/// cast to nearest and keep Table 2's `u_low`. Returns the roundoffs and a
/// label suffix naming the change (empty when there is none).
fn cast_roundoffs(config: &GemmConfig, r: &Roundoffs) -> (Roundoffs, &'static str) {
    if config.record.input != TcInput::Tf32 {
        return (*r, "");
    }
    let (u32_, trunc) = (
        Format::FP32.unit_roundoff(RoundingMode::NearestEven),
        2f64.powi(-10),
    );
    let u_cast = add_up(add_up(u32_, trunc), mul_up(u32_, trunc));
    (
        Roundoffs {
            u_low: u_cast,
            ..*r
        },
        ", u_low of the truncating tf32 cast",
    )
}

/// The published and probabilistic bounds (Theorems 3.7-3.10) and, for the
/// block-FMA model, the a-posteriori rigorous bound.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::{GemmOperands, InnerOrder, config_from_pairs, other_bounds, run_model};
/// use boundgate_verify::bounds::tc::{thm_3_7, GemmShape};
/// let config = config_from_pairs(&[]).unwrap(); // sm90 fp16 -> fp32, block 16
/// let ops = GemmOperands::new(&config.record, vec![0.5, 0.5], (1, 2), vec![1.0, 1.0], (2, 1)).unwrap();
/// let run = run_model(&config, &ops).unwrap();
/// let s = Ok(vec![1.0]); // sum |a_j b_j| = 1
/// let (checks, details) = other_bounds(&config, &ops, &run, &s, &s, 0.9999, InnerOrder::Chain);
/// assert_eq!(checks[0].label, "published: Theorem 3.7 (DBEA)");
/// // With S = 1 the element's bound is Theorem 3.7's constant for k = 2 padded to b = 16.
/// let thm = thm_3_7(&config.roundoffs(), &GemmShape::new(1, 2, 16).unwrap(), 1.0).unwrap();
/// assert_eq!(checks[0].bounds.as_ref().unwrap().values(), &[thm.value]);
/// assert!(checks.iter().any(|c| c.label == "rigorous a posteriori: block FMA"));
/// assert_eq!(details["roundoffs"]["u_bar"].as_f64(), Some(2f64.powi(-24)));
/// ```
pub fn other_bounds(
    config: &GemmConfig,
    ops: &GemmOperands,
    run: &GemmRun,
    s_read: &VResult<Vec<f64>>,
    s_given: &VResult<Vec<f64>>,
    probability: f64,
    order: InnerOrder,
) -> (Vec<BoundCheck>, serde_json::Value) {
    let r = config.roundoffs();
    let k = ops.k as u64;
    let b = config.record.block as u64;
    let per_element = GemmShape::new(1, k, b);
    let whole = GemmShape::new((ops.m * ops.t) as u64, k, b);
    // Each constant gets the lambda at which its own probability reaches the
    // requested one (the paired constant's is proven, the authors' printed).
    let paired = ThmConstant::Tilde(GammaTilde::Paired);
    let lambda_for = |constant: ThmConstant| {
        per_element
            .clone()
            .and_then(|s| vibea_lambda(&r, &s, probability, constant))
    };
    let (lambda_authors, lambda_paired) = (
        lambda_for(ThmConstant::Tilde(GammaTilde::AuthorsCentred)),
        lambda_for(paired),
    );
    let check = |label: &str, reference, bounds| BoundCheck {
        label: label.to_string(),
        reference,
        bounds,
    };
    let with = |s: &VResult<Vec<f64>>, f: &dyn Fn() -> VResult<Bound>| -> VResult<ElementBounds> {
        let s = s.as_ref().map_err(Clone::clone)?;
        scaled(f(), s)
    };
    // Theorems 3.8 and 3.10 take the cast of the given inputs to t_low as a
    // rounding: an input that overflows it fails their hypothesis (it was
    // reported as a violation, error inf; review, 2026-11-26).
    let cast_fits = || -> VResult<()> {
        match ops.first_overflow() {
            Some((name, index, value)) => Err(VerifyError::HypothesisNotMet {
                source_ref: "Theorems 3.8 and 3.10 (the cast of the given inputs)".into(),
                hypothesis: format!(
                    "the given inputs cast to {} without overflow",
                    config.record.input
                ),
                detail: format!("{name}[{index}] = {value:e}"),
            }),
            None => Ok(()),
        }
    };
    // The paired constant is ours, labelled rigorous under the model: with
    // an fp16 D it adds the final conversion, which the theorems' model (the
    // result in the accumulator) has no term for (review, 2026-11-26: it was
    // routinely exceeded by that conversion alone). The authors' constants
    // stay as printed.
    let with_conversion = |bounds: VResult<ElementBounds>, s: &VResult<Vec<f64>>| {
        if !config.fp16_epilogue {
            return bounds;
        }
        let s = s.as_ref().map_err(Clone::clone)?;
        bounds?.map_bounded(|e, b| Ok(add_up(b, epilogue_up(add_up(s[e], b))?)))
    };
    let conversion_note = if config.fp16_epilogue {
        ", plus the final conversion to fp16"
    } else {
        ""
    };
    let mut others = vec![
        check(
            "published: Theorem 3.7 (DBEA)",
            Reference::AsStored,
            with(s_read, &|| {
                thm_3_7(&r, per_element.as_ref().map_err(Clone::clone)?, 1.0)
            }),
        ),
        check(
            "published: Theorem 3.8 (DBEA, inputs as given)",
            Reference::AsGiven,
            with(s_given, &|| {
                cast_fits()?;
                thm_3_8(
                    &r,
                    per_element.as_ref().map_err(Clone::clone)?,
                    U_GIVEN_F64,
                    1.0,
                )
            }),
        ),
    ];
    for (kind, lambda) in [
        (GammaTilde::AuthorsCentred, &lambda_authors),
        (GammaTilde::Paired, &lambda_paired),
    ] {
        let bounds = with(s_read, &|| {
            let lambda = *lambda.as_ref().map_err(Clone::clone)?;
            thm_3_9(
                &r,
                per_element.as_ref().map_err(Clone::clone)?,
                lambda,
                ThmConstant::Tilde(kind),
                1.0,
            )
        });
        let (bounds, note) = match kind {
            GammaTilde::Paired => (with_conversion(bounds, s_read), conversion_note),
            _ => (bounds, ""),
        };
        others.push(check(
            &format!("probabilistic: Theorem 3.9 (VIBEA), {}{note}", kind.name()),
            Reference::AsStored,
            bounds,
        ));
    }
    // The paired check is the one labelled rigorous under the model, so it
    // takes the cast the unit really performs (`cast_roundoffs`); Theorem 3.8
    // above stays as printed, with Table 2's u_low (docs/findings/mpfma.md, F5).
    let (r_cast, cast_note) = cast_roundoffs(config, &r);
    let paired_given = with(s_given, &|| {
        cast_fits()?;
        let lambda = *lambda_paired.as_ref().map_err(Clone::clone)?;
        thm_3_10(
            &r_cast,
            per_element.as_ref().map_err(Clone::clone)?,
            U_GIVEN_F64,
            lambda,
            paired,
            1.0,
        )
    });
    let label = format!(
        "probabilistic: Theorem 3.10 (VIBEA, inputs as given), paired gamma~{cast_note}{conversion_note}"
    );
    others.push(check(
        &label,
        Reference::AsGiven,
        with_conversion(paired_given, s_given),
    ));
    if !config.alg1 && !run.a_posteriori.is_empty() {
        let template = Bound::deterministic(
            0.0,
            boundgate_verify::bounds::Quantity::AbsoluteError,
            boundgate_verify::bounds::tc::BLOCK_FMA_SOURCE,
            boundgate_verify::bounds::Rigor::Rigorous,
        )
        .with_hypothesis(
            "a posteriori, from the computed block results",
            config.record.label(),
        );
        // Per element: one whose block results overflowed has no bound, the
        // others are judged.
        let bounds = ElementBounds::collect(run.a_posteriori.iter().zip(&run.d).map(|(b, &d)| {
            let b = b.clone()?;
            // An infinite result (the fp16 conversion overflowed) has no
            // bound: its ulp is NaN, which made the whole run a usage error
            // (exit 2, no report; A = [[256], [1]], B = [[256]], fp32-fp16;
            // found by review, 2026-11-26).
            if !d.is_finite() {
                return Err(VerifyError::HypothesisNotMet {
                    source_ref: boundgate_verify::bounds::tc::BLOCK_FMA_SOURCE.to_string(),
                    hypothesis:
                        "a finite result (no overflow in the accumulation or the final conversion)"
                            .into(),
                    detail: format!("D = {d}"),
                });
            }
            // The epilogue's rounding, a posteriori: half an fp16 ulp of the result.
            let value = if config.fp16_epilogue {
                add_up(b, Format::FP16.ulp(d) / 2.0)
            } else {
                b
            };
            let mut bound = template.clone();
            bound.value = value;
            Ok(bound)
        }));
        others.push(check(
            "rigorous a posteriori: block FMA",
            Reference::AsStored,
            bounds,
        ));
    }
    // The rigorous bound of the other order, for comparison: what a vendor
    // GEMM would be held to beside a chain, or whether a vendor GEMM stayed
    // within the bound of one chain in order.
    if !config.alg1 {
        let (label, other) = match order {
            InnerOrder::Chain => (
                "rigorous, any order: block FMA (what a vendor GEMM is held to)",
                InnerOrder::Any,
            ),
            InnerOrder::Any | InnerOrder::AnyAccumulatorReduction | InnerOrder::AnySplit(_) => (
                "rigorous if one chain in order: block FMA a priori",
                InnerOrder::Chain,
            ),
        };
        others.push(check(
            label,
            Reference::AsGiven,
            rigorous_bounds(config, ops, s_read, other),
        ));
    }
    // The paired claim (the proven one) over the whole output at its lambda.
    let whole_probability = match (&whole, &lambda_paired) {
        (Ok(w), Ok(l)) => paired.probability(&r, w, *l).ok(),
        _ => None,
    };
    let q = k.div_ceil(b);
    let details = json!({
        "lambda_paired": lambda_paired.as_ref().ok(),
        "lambda_authors_centred": lambda_authors.as_ref().ok(),
        "vibea_probability_per_element": probability,
        "vibea_probability_whole_matrix": whole_probability,
        "vibea_whole_matrix_vacuous": whole_probability.map(|p| Kind::Probabilistic { probability: p }.is_vacuous()),
        "block_fma_constant": block_fma_constant(&config.record.spec(), q),
        "roundoffs": r,
    });
    (others, details)
}

impl Kernel for MpfmaGemm {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn audit_shapes(&self, size: usize) -> Vec<(&'static str, Vec<usize>)> {
        // The paper's Fig. 6 shape in miniature: tall A, narrow B, long inner dimension.
        vec![("a", vec![size, 4 * size]), ("b", vec![4 * size, 8])]
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let config = GemmConfig::from_params(params)?;
        let probability = params.f64("probability")?;
        let a = input(inputs, &INPUTS[0])?;
        let b = input(inputs, &INPUTS[1])?;
        let (dims_a, dims_b) = (
            a.dims2().expect("checked matrix"),
            b.dims2().expect("checked matrix"),
        );
        let ops = GemmOperands::new(
            &config.record,
            a.data().to_vec(),
            dims_a,
            b.data().to_vec(),
            dims_b,
        )?;
        let reduction: VendorReduction = params.text("reduction")?.parse()?;
        let backend = params.text("backend")?;
        let kernel: GemmKernel = params.text("kernel")?.parse()?;
        if kernel != GemmKernel::Simple && !matches!(backend, "gpu" | "auto") {
            return Err(Error::usage(format!(
                "kernel = {}: only for backend gpu or auto (our GEMMs), not backend = {backend}",
                kernel.name()
            )));
        }
        let vendor = match backend {
            "gemmex" => Some(Vendor::GemmEx),
            "cublaslt" => Some(Vendor::Lt),
            _ => None,
        };
        let (run, order) = match vendor {
            Some(vendor) => {
                let run = super::gpu::run_vendor(&config, &ops, vendor, reduction)?;
                let order = vendor_order(reduction, run.split_k);
                (run, order)
            }
            // Our model and kernel reduce nothing: one chain per element.
            None if reduction != VendorReduction::Library => {
                return Err(Error::usage(format!(
                    "reduction = {}: only for the vendor backends (gemmex, cublaslt), not backend = {backend}",
                    reduction.name()
                )));
            }
            None if backend == "cpu" => (run_model(&config, &ops)?, InnerOrder::Chain),
            None => (
                super::gpu::run_or_model(&config, &ops, kernel, backend == "gpu")?,
                InnerOrder::Chain,
            ),
        };
        let (m, k, t) = (ops.m, ops.k, ops.t);
        let bt_read = transpose(&ops.b_read, k, t);
        let bt = transpose(&ops.b, k, t);
        let s_read = abs_products(&ops.a_read, &bt_read, m, k, t);
        let s_given = abs_products(&ops.a, &bt, m, k, t);
        let rigorous = rigorous_bounds(&config, &ops, &s_read, order);
        let (others, bound_details) =
            other_bounds(&config, &ops, &run, &s_read, &s_given, probability, order);
        let a_given = Matrix::new(m, k, &ops.a)?;
        let b_given = Matrix::new(k, t, &ops.b)?;
        let a_read = Matrix::new(m, k, &ops.a_read)?;
        let b_read = Matrix::new(k, t, &ops.b_read)?;
        let errors_as_given = oracle::gemm_errors(&a_given, &b_given, &run.d)?;
        let errors_as_stored = oracle::gemm_errors(&a_read, &b_read, &run.d)?;
        let details = json!({
            "record": config.record,
            "model": if config.alg1 { "alg1" } else { "tc" },
            "fp16_epilogue": config.fp16_epilogue,
            "shape": { "m": m, "n": k, "t": t, "block": config.record.block, "q": k.div_ceil(config.record.block) },
            "ran_on": run.ran_on,
            "rigorous_order": match order {
                InnerOrder::Chain => "one chain of block FMAs per element, in order".to_string(),
                InnerOrder::Any => "any split, order and reduction (vendor GEMM; with an fp16 D, reductions possibly in fp16)".into(),
                InnerOrder::AnyAccumulatorReduction => "any split, order and reduction in fp32 (vendor GEMM told not to reduce in the output type)".into(),
                InnerOrder::AnySplit(parts) => format!("any order within the {parts} split-K parts the library reported, their reduction possibly in the output type (vendor GEMM)"),
            },
            "bounds": bound_details,
        });
        Ok(KernelRun {
            output: Tensor::matrix(m, t, run.d)?,
            rigorous: BoundCheck::rigorous(rigorous),
            others,
            errors_as_given,
            errors_as_stored,
            details,
        })
    }
}

/// The order a vendor GEMM's result is held to: any order, with reductions
/// in fp32 where the library was told so, and within the split it reported
/// (cuBLASLt) otherwise.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::{InnerOrder, vendor_order};
/// use boundgate::kernels::mpfma::gpu::VendorReduction::{ComputeType, Library};
/// assert_eq!(vendor_order(Library, None), InnerOrder::Any);
/// assert_eq!(vendor_order(Library, Some(4)), InnerOrder::AnySplit(4));
/// assert_eq!(vendor_order(ComputeType, Some(4)), InnerOrder::AnyAccumulatorReduction);
/// ```
pub fn vendor_order(reduction: VendorReduction, split_k: Option<u64>) -> InnerOrder {
    match (reduction, split_k) {
        (VendorReduction::ComputeType, _) => InnerOrder::AnyAccumulatorReduction,
        (VendorReduction::Library, Some(parts)) => InnerOrder::AnySplit(parts.max(1)),
        (VendorReduction::Library, None) => InnerOrder::Any,
    }
}

/// Parses an `mpfma-gemm` configuration from text pairs (for experiments and tests).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gemm::config_from_pairs;
/// let c = config_from_pairs(&["arch=sm80", "input=tf32"]).unwrap();
/// assert_eq!(c.record.block, 4);
/// assert!(config_from_pairs(&["input=e4m3", "arch=sm80"]).is_err());
/// ```
pub fn config_from_pairs(pairs: &[&str]) -> Result<GemmConfig> {
    let owned: Vec<String> = pairs.iter().map(|s| s.to_string()).collect();
    let params = Params::parse(&MpfmaGemm, &owned)?;
    GemmConfig::from_params(&params).map_err(|e: Error| e)
}
