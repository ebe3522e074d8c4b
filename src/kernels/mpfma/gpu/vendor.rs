//! The vendor GEMMs boundgate audits (cuBLAS `GemmEx`, cuBLASLt
//! `cublasLtMatmul`), what a cuBLASLt run reports, and the checks every
//! vendor call passes before it touches a device.

use super::super::record::TcInput;
use crate::error::{Error, Result as CrateResult};
use crate::gpu::GpuError;
use boundgate_verify::VerifyError;
use boundgate_verify::format::RoundingMode;

/// A vendor GEMM to audit: cuBLAS `GemmEx` (the paper's Listing 1) or
/// cuBLASLt `cublasLtMatmul` (the library frameworks call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// cuBLAS `cublasGemmEx`, `CUBLAS_GEMM_DEFAULT_TENSOR_OP` (fp16 inputs only here).
    GemmEx,
    /// cuBLASLt `cublasLtMatmul` with the heuristic's first algorithm.
    Lt,
}

impl Vendor {
    /// Both vendors.
    pub const ALL: [Vendor; 2] = [Vendor::GemmEx, Vendor::Lt];

    /// The name used in options and reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::Vendor;
    /// assert_eq!((Vendor::GemmEx.name(), Vendor::Lt.name()), ("gemmex", "cublaslt"));
    /// for v in Vendor::ALL {
    ///     assert_eq!(v.name().parse::<Vendor>().unwrap(), v); // the name parses back
    ///     assert_eq!(v.to_string(), v.name());
    /// }
    /// assert!("cublas".parse::<Vendor>().is_err());
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Vendor::GemmEx => "gemmex",
            Vendor::Lt => "cublaslt",
        }
    }
}

impl std::str::FromStr for Vendor {
    type Err = Error;
    fn from_str(s: &str) -> CrateResult<Vendor> {
        let lower = s.trim().to_ascii_lowercase();
        Vendor::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| Error::usage(format!("unknown vendor `{s}` (known: gemmex, cublaslt)")))
    }
}

impl std::fmt::Display for Vendor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which cuBLASLt algorithms the heuristic may pick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtSplitK {
    /// Any (the library's default: what an application gets).
    Allowed,
    /// Only algorithms without a split-K reduction
    /// (`CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = CUBLASLT_REDUCTION_SCHEME_NONE`),
    /// so every element is one chain of block FMAs, the order the rigorous
    /// block-FMA bound assumes.
    Forbidden,
    /// Split-K allowed, its partial results reduced in the compute type only
    /// (`CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK =
    /// CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE`): the INPLACE and OUTPUT_TYPE
    /// schemes, which keep partials in the output type (fp16 for an fp16
    /// `D`), are excluded.
    ComputeTypeReduction,
}

/// Where a vendor GEMM may reduce its split-K partial results. With an fp32
/// `D` both are the same; with an fp16 `D` the library may keep partials in
/// fp16, which the any-order bound then has to allow
/// ([`block_fma_any_order_reducing`](boundgate_verify::bounds::tc::block_fma_any_order_reducing)).
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::gpu::VendorReduction;
/// let r: VendorReduction = "compute-type".parse().unwrap();
/// assert_eq!(r, VendorReduction::ComputeType);
/// assert_eq!(VendorReduction::Library.name(), "library");
/// assert!("fp16".parse::<VendorReduction>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VendorReduction {
    /// The library's choice (what an application gets by default): cuBLAS
    /// may reduce in the output type ("reduced precision reductions"),
    /// cuBLASLt may pick an INPLACE or OUTPUT_TYPE reduction scheme.
    #[default]
    Library,
    /// Reductions in the compute type (fp32) only: cuBLAS math mode
    /// `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION` ("forces any
    /// reductions during matrix multiplications to use the accumulator type
    /// ... and not the output type", cuBLAS guide, `cublasMath_t`), cuBLASLt
    /// [`LtSplitK::ComputeTypeReduction`].
    ComputeType,
}

impl VendorReduction {
    /// Both choices.
    pub const ALL: [VendorReduction; 2] = [VendorReduction::Library, VendorReduction::ComputeType];

    /// The name used in options and reports.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::VendorReduction;
    /// assert_eq!(VendorReduction::ComputeType.name(), "compute-type");
    /// assert!(VendorReduction::ALL.iter().all(|&r| r.name().parse::<VendorReduction>().unwrap() == r));
    /// assert_eq!(VendorReduction::default().name(), "library");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            VendorReduction::Library => "library",
            VendorReduction::ComputeType => "compute-type",
        }
    }

    /// The cuBLASLt heuristic restriction that asks for this reduction.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::{LtSplitK, VendorReduction};
    /// assert_eq!(VendorReduction::Library.lt_split_k(), LtSplitK::Allowed);
    /// assert_eq!(VendorReduction::ComputeType.lt_split_k(), LtSplitK::ComputeTypeReduction);
    /// ```
    pub fn lt_split_k(self) -> LtSplitK {
        match self {
            VendorReduction::Library => LtSplitK::Allowed,
            VendorReduction::ComputeType => LtSplitK::ComputeTypeReduction,
        }
    }
}

impl std::str::FromStr for VendorReduction {
    type Err = Error;
    fn from_str(s: &str) -> CrateResult<VendorReduction> {
        let lower = s.trim().to_ascii_lowercase();
        VendorReduction::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown reduction `{s}` (known: library, compute-type)"
                ))
            })
    }
}

/// The algorithm cuBLASLt's heuristic chose (`cublasLtMatmulAlgoConfigGetAttribute`;
/// `None` where the library did not answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LtAlgo {
    /// `CUBLASLT_ALGO_CONFIG_ID`.
    pub id: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_TILE_ID`.
    pub tile: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_STAGES_ID`.
    pub stages: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_SPLITK_NUM` (1 or 0: no split).
    pub split_k: Option<u32>,
    /// `CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME` (0: none).
    pub reduction_scheme: Option<u32>,
}

impl LtAlgo {
    /// The inner dimension is not split: each element is one chain (split-K 0 or 1,
    /// no reduction scheme). `false` when the library did not say.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::LtAlgo;
    /// let algo = |split_k, reduction_scheme| LtAlgo { split_k, reduction_scheme, ..LtAlgo::default() };
    /// assert!(algo(Some(1), Some(0)).single_chain());
    /// assert!(algo(Some(0), Some(0)).single_chain()); // 0 also means no split
    /// assert!(!algo(Some(4), Some(0)).single_chain());
    /// assert!(!algo(Some(1), Some(2)).single_chain()); // a reduction scheme: partials reduced
    /// assert!(!algo(None, Some(0)).single_chain() && !LtAlgo::default().single_chain()); // not said
    /// ```
    pub fn single_chain(&self) -> bool {
        matches!(self.split_k, Some(0 | 1)) && self.reduction_scheme == Some(0)
    }

    /// How many parts the inner dimension is split into (`SPLITK_NUM`; 0 and
    /// 1 both mean one part), or `None` where the library did not say.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::gpu::LtAlgo;
    /// let algo = |split_k| LtAlgo { split_k, ..LtAlgo::default() };
    /// assert_eq!(algo(Some(0)).split_parts(), Some(1));
    /// assert_eq!(algo(Some(8)).split_parts(), Some(8));
    /// assert_eq!(algo(None).split_parts(), None);
    /// ```
    pub fn split_parts(&self) -> Option<u64> {
        self.split_k.map(|s| u64::from(s).max(1))
    }
}

impl std::fmt::Display for LtAlgo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |v: Option<u32>| v.map_or("?".to_string(), |v| v.to_string());
        write!(
            f,
            "algo {}, tile {}, stages {}, split-K {}, reduction scheme {}",
            s(self.id),
            s(self.tile),
            s(self.stages),
            s(self.split_k),
            s(self.reduction_scheme)
        )
    }
}

/// The result of a cuBLASLt call: `D` (row-major, as `f64`) and the algorithm.
#[derive(Clone, Debug)]
pub struct LtRun {
    /// `D = A B`, row-major `m x t`.
    pub d: Vec<f64>,
    /// The algorithm that computed it.
    pub algo: LtAlgo,
}

/// Whether `vendor`'s launcher takes `input`: `GemmEx` is wrapped for fp16
/// inputs only (cuBLASLt's formats are checked by [`check_vendor_call`]).
pub(super) fn check_vendor_input(vendor: Vendor, input: TcInput) -> Result<(), GpuError> {
    if vendor == Vendor::GemmEx && input != TcInput::Fp16 {
        return Err(GpuError::Unsupported(format!(
            "the GemmEx launcher takes fp16 inputs, not {input}"
        )));
    }
    Ok(())
}

/// Checks a vendor call (cuBLASLt, or `GemmEx` with fp16 inputs) before any
/// device work: supported formats
/// (fp16 with fp32 or fp16 `D`; bf16, tf32 with fp32 `D`), nonzero
/// dimensions, lengths `m k` and `k t`, and every finite operand exactly a
/// value of the input format (so no conversion happens on the device: tf32
/// values are passed as fp32 and the unit's truncation leaves them unchanged).
pub(super) fn check_vendor_call(
    input: TcInput,
    a: &[f64],
    b: &[f64],
    (m, k, t): (usize, usize, usize),
    fp16_output: bool,
) -> Result<(), GpuError> {
    match (input, fp16_output) {
        (TcInput::Fp16, _) | (TcInput::Bf16 | TcInput::Tf32, false) => {}
        (TcInput::Bf16 | TcInput::Tf32, true) => {
            return Err(GpuError::Unsupported(format!(
                "cuBLASLt: {input} inputs with fp16 D is not a supported combination (fp32 D only)"
            )));
        }
        _ => {
            return Err(GpuError::Unsupported(format!(
                "cuBLASLt launcher has no {input} variant"
            )));
        }
    }
    super::check_shape((a, b, None), (m, k, t))?;
    let format = input.operand();
    for (name, values) in [("A", a), ("B", b)] {
        if let Some(i) = values
            .iter()
            .position(|&x| x.is_finite() && format.round(x, RoundingMode::NearestEven) != x)
        {
            return Err(VerifyError::invalid(
                &format!("{name}[{i}]"),
                format!("{:e}", values[i]),
                format!("not a {input} value"),
            )
            .into());
        }
    }
    Ok(())
}
