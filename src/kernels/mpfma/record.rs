//! One parameter record per architecture and input format: what a tensor
//! core's block FMA does, as the published measurements describe it.
//!
//! Sources (read in their public copies; values cross-checked between them):
//! - Xie et al., MMA-Sim (arXiv 2511.10909; `microsoft/MMA-Sim`,
//!   `mmasim/simulator/nv.py`): `arch_accum_fractional_bits` (Ampere 24,
//!   Hopper 25), `is_split_k` (Ampere `m16n8k16` f16/bf16 and `m16n8k8` tf32
//!   are two fused halves of `k`), `WGMMASim` (Hopper fp8: 13 fractional bits,
//!   fp32 results kept with 13 fractional bits, "f32_e8m13"); and
//!   `functions.py` (`nv_fused_dot_add`: truncation after alignment, fp32
//!   output toward zero, fp16 output to nearest even; `truncate_to_tf32`).
//! - Khattak and Mikaitis, MATLAB-tensor-core (`models/A100TC.m`: FMA size 8,
//!   4 for tf32, 1 extra alignment bit; `models/H100TC.m` and `H200TC.m`:
//!   FMA size 16, 8 for tf32, 32 for fp8, 2 extra bits, -10 for fp8; final
//!   rounding toward zero, to nearest for fp16 output; subnormals in and out).
//! - Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
//!   cores" (PeerJ Comput. Sci. 7:e330, 2021): exact products, alignment to the
//!   largest exponent with truncation, fp32 results rounded toward zero,
//!   subnormal inputs and outputs supported (V100, T4, A100).
//!
//! These are measurements by others, not by boundgate: `boundgate probe`
//! measures them again on a device (docs/mpfma.md records what was run).

use crate::error::{Error, Result};
use boundgate_verify::bounds::tc::BlockFmaSpec;
use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A GPU architecture with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Arch {
    /// Ampere, compute capability 8.0 (A100).
    Sm80,
    /// Hopper, compute capability 9.0 (H100, H200).
    Sm90,
}

impl Arch {
    /// Both architectures.
    pub const ALL: [Arch; 2] = [Arch::Sm80, Arch::Sm90];

    /// `sm80` or `sm90`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::Arch;
    /// assert_eq!((Arch::Sm80.name(), Arch::Sm90.name()), ("sm80", "sm90"));
    /// // The name parses back, and is what `Display` writes.
    /// for arch in Arch::ALL {
    ///     assert_eq!(arch.name().parse::<Arch>().unwrap(), arch);
    ///     assert_eq!(arch.to_string(), arch.name());
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm80",
            Arch::Sm90 => "sm90",
        }
    }

    /// The architecture of a compute capability (8.x is modelled as sm80,
    /// 9.x as sm90), if there is a record for it.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::Arch;
    /// assert_eq!(Arch::of_compute_capability(8), Some(Arch::Sm80)); // A100 (8.0), also 8.6, 8.9
    /// assert_eq!(Arch::of_compute_capability(9), Some(Arch::Sm90)); // H100, H200
    /// assert_eq!(Arch::of_compute_capability(7), None); // V100: no record
    /// assert_eq!(Arch::of_compute_capability(10), None);
    /// ```
    pub fn of_compute_capability(major: u32) -> Option<Arch> {
        match major {
            8 => Some(Arch::Sm80),
            9 => Some(Arch::Sm90),
            _ => None,
        }
    }
}

impl FromStr for Arch {
    type Err = Error;
    fn from_str(s: &str) -> Result<Arch> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sm80" | "sm_80" | "a100" | "ampere" => Ok(Arch::Sm80),
            "sm90" | "sm_90" | "h100" | "h200" | "hopper" => Ok(Arch::Sm90),
            _ => Err(Error::usage(format!(
                "unknown architecture `{s}` (known: sm80, sm90)"
            ))),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The input format of `A` and `B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TcInput {
    /// IEEE binary16.
    Fp16,
    /// bfloat16.
    Bf16,
    /// TensorFloat-32: stored as fp32, truncated to 10 fraction bits by the unit.
    Tf32,
    /// OCP fp8 E4M3.
    E4m3,
    /// OCP fp8 E5M2.
    E5m2,
}

impl TcInput {
    /// All input formats.
    pub const ALL: [TcInput; 5] = [
        TcInput::Fp16,
        TcInput::Bf16,
        TcInput::Tf32,
        TcInput::E4m3,
        TcInput::E5m2,
    ];

    /// The CLI name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::TcInput;
    /// let names: Vec<_> = TcInput::ALL.iter().map(|i| i.name()).collect();
    /// assert_eq!(names, ["fp16", "bf16", "tf32", "e4m3", "e5m2"]);
    /// // Each name parses back (case and spaces ignored).
    /// assert!(TcInput::ALL.iter().all(|&i| i.name().parse::<TcInput>().unwrap() == i));
    /// assert_eq!(" BF16 ".parse::<TcInput>().unwrap(), TcInput::Bf16);
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TcInput::Fp16 => "fp16",
            TcInput::Bf16 => "bf16",
            TcInput::Tf32 => "tf32",
            TcInput::E4m3 => "e4m3",
            TcInput::E5m2 => "e5m2",
        }
    }

    /// The format the operands are stored in (tf32 operands are fp32 in memory).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::TcInput;
    /// use boundgate_verify::format::Format;
    /// assert_eq!(TcInput::Tf32.storage(), Format::FP32); // tf32 operands live in fp32 memory
    /// assert_eq!(TcInput::Fp16.storage(), Format::FP16);
    /// assert_eq!(TcInput::E5m2.storage(), Format::E5M2);
    /// ```
    pub fn storage(self) -> Format {
        match self {
            TcInput::Fp16 => Format::FP16,
            TcInput::Bf16 => Format::BF16,
            TcInput::Tf32 => Format::FP32,
            TcInput::E4m3 => Format::E4M3,
            TcInput::E5m2 => Format::E5M2,
        }
    }

    /// The format the unit multiplies.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::TcInput;
    /// use boundgate_verify::format::Format;
    /// // Only tf32 multiplies another format than it stores (fp32 storage, 11-bit significands).
    /// assert_eq!((TcInput::Tf32.storage(), TcInput::Tf32.operand()), (Format::FP32, Format::TF32));
    /// assert!(TcInput::ALL.iter().filter(|&&i| i != TcInput::Tf32).all(|i| i.operand() == i.storage()));
    /// ```
    pub fn operand(self) -> Format {
        match self {
            TcInput::Tf32 => Format::TF32,
            other => other.storage(),
        }
    }

    /// A stored value as the unit reads it: tf32 keeps the top 10 fraction bits
    /// of an fp32 value (truncation, MMA-Sim `truncate_to_tf32`); the other
    /// formats are read as stored.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::TcInput;
    /// // 1 + 2^-10 + 2^-11 + 2^-12 (an fp32 value): nearest would give 1 + 2^-9,
    /// // truncation to 10 fraction bits keeps 1 + 2^-10, on both signs.
    /// let v = 1.0 + 2f64.powi(-10) + 2f64.powi(-11) + 2f64.powi(-12);
    /// assert_eq!(TcInput::Tf32.read(v), 1.0 + 2f64.powi(-10));
    /// assert_eq!(TcInput::Tf32.read(-v), -(1.0 + 2f64.powi(-10)));
    /// // The other formats are read as stored (the caller rounded them already).
    /// assert_eq!(TcInput::Fp16.read(v), v);
    /// ```
    pub fn read(self, stored: f64) -> f64 {
        match self {
            TcInput::Tf32 => Format::TF32.round(stored, RoundingMode::TowardZero),
            _ => stored,
        }
    }
}

impl FromStr for TcInput {
    type Err = Error;
    fn from_str(s: &str) -> Result<TcInput> {
        let lower = s.trim().to_ascii_lowercase();
        TcInput::ALL
            .into_iter()
            .find(|i| i.name() == lower)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown tensor-core input format `{s}` (known: fp16, bf16, tf32, e4m3, e5m2)"
                ))
            })
    }
}

impl fmt::Display for TcInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The accumulator (`C`, `D`) format of the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TcOutput {
    /// fp32 accumulation (`.f32`).
    Fp32,
    /// fp16 accumulation (`.f16`).
    Fp16,
}

impl TcOutput {
    /// The CLI name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::TcOutput;
    /// assert_eq!((TcOutput::Fp32.name(), TcOutput::Fp16.name()), ("fp32", "fp16"));
    /// assert_eq!("fp16".parse::<TcOutput>().unwrap(), TcOutput::Fp16);
    /// assert_eq!("f32".parse::<TcOutput>().unwrap(), TcOutput::Fp32); // PTX spelling
    /// assert!("bf16".parse::<TcOutput>().is_err());
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TcOutput::Fp32 => "fp32",
            TcOutput::Fp16 => "fp16",
        }
    }
}

impl FromStr for TcOutput {
    type Err = Error;
    fn from_str(s: &str) -> Result<TcOutput> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fp32" | "f32" => Ok(TcOutput::Fp32),
            "fp16" | "f16" => Ok(TcOutput::Fp16),
            _ => Err(Error::usage(format!(
                "unknown accumulator format `{s}` (known: fp32, fp16)"
            ))),
        }
    }
}

/// fp32's exponent range with 13 fraction bits: what Hopper's fp8 `wgmma`
/// keeps of an fp32 accumulator (MMA-Sim's "f32_e8m13").
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::record::e8m13;
/// use boundgate_verify::format::{Format, RoundingMode};
/// let f = e8m13();
/// // fp32's exponent range, 13 fraction bits (precision 14).
/// assert_eq!((f.precision(), f.emin(), f.emax()), (14, Format::FP32.emin(), Format::FP32.emax()));
/// assert!(f.is_representable(1.0 + 2f64.powi(-13)));
/// assert!(!f.is_representable(1.0 + 2f64.powi(-14))); // an fp32 value it cannot hold
/// assert_eq!(f.round(1.0 + 2f64.powi(-13) + 2f64.powi(-14), RoundingMode::TowardZero), 1.0 + 2f64.powi(-13));
/// ```
pub fn e8m13() -> Format {
    Format::custom(14, -126, 127, true, OverflowPolicy::Infinity).expect("a valid custom format")
}

/// What one tensor-core configuration does, per the published measurements.
///
/// # Example
/// ```
/// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
/// let h100 = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
/// assert_eq!((h100.block, h100.fraction_bits), (16, 25));
/// let a100 = TcRecord::lookup(Arch::Sm80, TcInput::Tf32, TcOutput::Fp32).unwrap();
/// assert_eq!((a100.block, a100.fraction_bits, a100.split_k), (4, 24, true));
/// assert!(TcRecord::lookup(Arch::Sm80, TcInput::E4m3, TcOutput::Fp32).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TcRecord {
    /// The architecture.
    pub arch: Arch,
    /// Format of `A` and `B`.
    pub input: TcInput,
    /// Format of `C` and `D`.
    pub output: TcOutput,
    /// The instruction measured (PTX).
    pub instruction: &'static str,
    /// `k` of one instruction.
    pub instruction_k: usize,
    /// Whether the instruction's `k` is computed as two fused halves (MMA-Sim `is_split_k`).
    pub split_k: bool,
    /// Products per fused block (`instruction_k`, halved when split).
    pub block: usize,
    /// Fractional bits kept after alignment to the largest exponent (`23 +` extra alignment bits).
    pub fraction_bits: u32,
    /// Format each block result is rounded to (fp32, fp32 with 13 fraction bits, fp16).
    pub accumulator: Format,
    /// Rounding of each block result.
    pub output_mode: RoundingMode,
    /// Subnormal inputs take part (not flushed).
    pub subnormal_inputs: bool,
    /// Subnormal results are produced (not flushed).
    pub subnormal_outputs: bool,
    /// Where the numbers come from.
    pub sources: &'static str,
}

const SM80_SOURCES: &str = "MMA-Sim nv.py (Ampere: 24 fractional bits, split-K for m16n8k16 f16/bf16 and m16n8k8 tf32); \
MATLAB-tensor-core A100TC.m (FMA size 8, 4 for tf32, 1 extra alignment bit, RZ, RNE for fp16 output); \
Fasi et al. 2021 (A100: truncation after alignment, RZ fp32 output, subnormals supported)";
const SM90_SOURCES: &str = "MMA-Sim nv.py (Hopper: 25 fractional bits; WGMMASim fp8: 13 bits, f32_e8m13 output); \
MATLAB-tensor-core H100TC.m/H200TC.m (FMA size 16, 8 for tf32, 32 for fp8, 2 extra bits, -10 for fp8; RZ, RNE for fp16 output; subnormals in and out)";

impl TcRecord {
    /// The record for an architecture, input and accumulator format.
    ///
    /// # Errors
    /// [`Error::Usage`] for a combination the hardware does not have (fp8 on
    /// sm80; bf16, tf32 with fp16 accumulation).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::mpfma::record::{e8m13, Arch, TcInput, TcOutput, TcRecord};
    /// use boundgate_verify::format::RoundingMode;
    /// // Hopper fp8: k = 32 in one block, 13 fractional bits, fp32 results kept with 13 bits.
    /// let fp8 = TcRecord::lookup(Arch::Sm90, TcInput::E4m3, TcOutput::Fp32).unwrap();
    /// assert_eq!((fp8.block, fp8.fraction_bits, fp8.split_k), (32, 13, false));
    /// assert_eq!((fp8.accumulator, fp8.output_mode), (e8m13(), RoundingMode::TowardZero));
    /// // An fp16 accumulator rounds to nearest even.
    /// let h = TcRecord::lookup(Arch::Sm80, TcInput::Fp16, TcOutput::Fp16).unwrap();
    /// assert_eq!((h.block, h.output_mode), (8, RoundingMode::NearestEven));
    /// // bf16 has no fp16 accumulator; sm80 has no fp8.
    /// assert!(matches!(TcRecord::lookup(Arch::Sm90, TcInput::Bf16, TcOutput::Fp16), Err(Error::Usage(_))));
    /// assert!(matches!(TcRecord::lookup(Arch::Sm80, TcInput::E5m2, TcOutput::Fp32), Err(Error::Usage(_))));
    /// ```
    pub fn lookup(arch: Arch, input: TcInput, output: TcOutput) -> Result<TcRecord> {
        if output == TcOutput::Fp16 && matches!(input, TcInput::Bf16 | TcInput::Tf32) {
            return Err(Error::usage(format!(
                "{input} tensor-core instructions accumulate in fp32 only (no fp16 accumulator)"
            )));
        }
        let (instruction, k, split, fraction_bits, sources) = match (arch, input) {
            (Arch::Sm80, TcInput::E4m3 | TcInput::E5m2) => {
                return Err(Error::usage(
                    "sm80 (A100) has no fp8 tensor-core instructions",
                ));
            }
            (Arch::Sm80, TcInput::Tf32) => {
                ("mma.sync.aligned.m16n8k8 (tf32)", 8, true, 24, SM80_SOURCES)
            }
            (Arch::Sm80, _) => ("mma.sync.aligned.m16n8k16", 16, true, 24, SM80_SOURCES),
            (Arch::Sm90, TcInput::Tf32) => {
                ("wgmma.mma_async m64nNk8 (tf32)", 8, false, 25, SM90_SOURCES)
            }
            (Arch::Sm90, TcInput::E4m3 | TcInput::E5m2) => (
                "wgmma.mma_async m64nNk32 (fp8)",
                32,
                false,
                13,
                SM90_SOURCES,
            ),
            (Arch::Sm90, _) => ("wgmma.mma_async m64nNk16", 16, false, 25, SM90_SOURCES),
        };
        let (accumulator, output_mode) = match output {
            TcOutput::Fp16 => (Format::FP16, RoundingMode::NearestEven),
            TcOutput::Fp32 if fraction_bits < 23 => (e8m13(), RoundingMode::TowardZero),
            TcOutput::Fp32 => (Format::FP32, RoundingMode::TowardZero),
        };
        Ok(TcRecord {
            arch,
            input,
            output,
            instruction,
            instruction_k: k,
            split_k: split,
            block: if split { k / 2 } else { k },
            fraction_bits,
            accumulator,
            output_mode,
            subnormal_inputs: true,
            subnormal_outputs: true,
            sources,
        })
    }

    /// Every record, architecture by architecture.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::{Arch, TcRecord};
    /// let all = TcRecord::all();
    /// // sm80: fp16 (fp32, fp16), bf16, tf32; sm90: the same and e4m3, e5m2 (fp32, fp16).
    /// assert_eq!(all.len(), 4 + 8);
    /// assert_eq!(all.iter().filter(|r| r.arch == Arch::Sm80).count(), 4);
    /// assert!(all.iter().all(|r| TcRecord::lookup(r.arch, r.input, r.output).unwrap() == *r));
    /// ```
    pub fn all() -> Vec<TcRecord> {
        let mut out = Vec::new();
        for arch in Arch::ALL {
            for input in TcInput::ALL {
                for output in [TcOutput::Fp32, TcOutput::Fp16] {
                    if let Ok(r) = TcRecord::lookup(arch, input, output) {
                        out.push(r);
                    }
                }
            }
        }
        out
    }

    /// A short label, e.g. `sm90 fp16->fp32`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// assert_eq!(r.label(), "sm90 fp16->fp32");
    /// let r = TcRecord::lookup(Arch::Sm80, TcInput::Tf32, TcOutput::Fp32).unwrap();
    /// assert_eq!(r.label(), "sm80 tf32->fp32");
    /// ```
    pub fn label(&self) -> String {
        format!("{} {}->{}", self.arch, self.input, self.output.name())
    }

    /// Extra alignment bits beyond fp32's 23 (Khattak and Mikaitis' `neab`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let bits = |arch, input| TcRecord::lookup(arch, input, TcOutput::Fp32).unwrap().extra_alignment_bits();
    /// // Khattak and Mikaitis: 1 extra bit on A100, 2 on H100, -10 for Hopper's fp8 (13 = 23 - 10).
    /// assert_eq!(bits(Arch::Sm80, TcInput::Fp16), 1);
    /// assert_eq!(bits(Arch::Sm90, TcInput::Bf16), 2);
    /// assert_eq!(bits(Arch::Sm90, TcInput::E4m3), -10);
    /// ```
    pub fn extra_alignment_bits(&self) -> i32 {
        self.fraction_bits as i32 - 23
    }

    /// The same record with another block size (for experiments; not a measurement).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// let r = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    /// let r4 = r.with_block(4);
    /// assert_eq!((r4.block, r4.fraction_bits, r4.accumulator), (4, r.fraction_bits, r.accumulator));
    /// assert_eq!(r.with_block(0).block, 1); // a block holds at least one product
    /// ```
    pub fn with_block(mut self, block: usize) -> TcRecord {
        self.block = block.max(1);
        self
    }

    /// The parameters of the rigorous block-FMA bounds.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// let r = TcRecord::lookup(Arch::Sm80, TcInput::Tf32, TcOutput::Fp32).unwrap();
    /// let spec = r.spec();
    /// // The operand format (tf32, not the fp32 storage), block 4, F = 24, RZ into fp32.
    /// assert_eq!((spec.block, spec.fraction_bits, spec.input), (4, 24, Format::TF32));
    /// assert_eq!((spec.accumulator, spec.output_mode), (Format::FP32, RoundingMode::TowardZero));
    /// assert!(!spec.flush_inputs && !spec.flush_outputs); // subnormals in and out
    /// assert!(TcRecord::all().iter().all(|r| r.spec().validate().is_ok()));
    /// ```
    pub fn spec(&self) -> BlockFmaSpec {
        let mut spec = BlockFmaSpec::new(
            self.block,
            self.fraction_bits,
            self.input.operand(),
            self.accumulator,
            self.output_mode,
        );
        spec.flush_inputs = !self.subnormal_inputs;
        spec.flush_outputs = !self.subnormal_outputs;
        spec
    }
}
