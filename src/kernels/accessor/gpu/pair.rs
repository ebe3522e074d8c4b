//! The storage/arithmetic pairs `kernels/accessor_blas.cu` instantiates: their
//! entry-point names, the encoding of stored values as bit patterns, and the
//! scalars the kernels take by value.

use super::*;

/// The storage/arithmetic pairs `kernels/accessor_blas.cu` instantiates, in
/// the order of its `ACCESSOR_KERNELS` lines: (storage, fp64 arithmetic?).
pub(super) const PAIRS: [(StorageKind, bool); 7] = [
    (StorageKind::Fp64, true),
    (StorageKind::Fp32, true),
    (StorageKind::Fp32, false),
    (StorageKind::Fp16, true),
    (StorageKind::Fp16, false),
    (StorageKind::Bf16, true),
    (StorageKind::Bf16, false),
];

/// The kernel `accessor_<k>_<storage>_<arith>` for every pair, in [`PAIRS`] order.
macro_rules! kernel_names {
    ($k:literal) => {
        [
            concat!("accessor_", $k, "_f64_f64"),
            concat!("accessor_", $k, "_f32_f64"),
            concat!("accessor_", $k, "_f32_f32"),
            concat!("accessor_", $k, "_f16_f64"),
            concat!("accessor_", $k, "_f16_f32"),
            concat!("accessor_", $k, "_bf16_f64"),
            concat!("accessor_", $k, "_bf16_f32"),
        ]
    };
}

pub(super) const DOT_BLOCKS: [&str; 7] = kernel_names!("dot_blocks");
pub(super) const DOT_FINAL: [&str; 7] = kernel_names!("dot_final");
pub(super) const GEMV_N: [&str; 7] = kernel_names!("gemv_n");
pub(super) const GEMV_T: [&str; 7] = kernel_names!("gemv_t");
pub(super) const SPMV_CSR: [&str; 7] = kernel_names!("spmv_csr");
pub(super) const SPMV_ELL: [&str; 7] = kernel_names!("spmv_ell");
pub(super) const SPMV_CSR_STREAM: [&str; 7] = kernel_names!("spmv_csr_stream");
pub(super) const TRSV_INVERT: [&str; 7] = kernel_names!("trsv_invert");
pub(super) const TRSV_SOLVE: [&str; 7] = kernel_names!("trsv_solve");
pub(super) const TRSV_ROWS: [&str; 7] = kernel_names!("trsv_rows");
pub(super) const ROOFLINE: [&str; 7] = kernel_names!("roofline");

/// A storage/arithmetic pair the kernel file instantiates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuPair {
    pub(super) index: usize,
}

impl GpuPair {
    /// The pair of `spec`, if the GPU kernels implement it: floating-point
    /// storage contained in fp64 or fp32 arithmetic, round-to-nearest-even
    /// writes, no flush to zero.
    ///
    /// # Errors
    /// [`GpuError::Input`] with [`VerifyError::InvalidParameter`] naming the
    /// field the kernels do not implement (integer storage, another write
    /// mode, `ftz`), or the spec's own validation error.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::GpuPair;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    /// assert_eq!(GpuPair::of(&spec).unwrap().suffix(), "f16_f32");
    /// let int8 = AccessorSpec::new(StorageKind::Int8, Format::FP64).unwrap();
    /// assert!(GpuPair::of(&int8).is_err());
    /// ```
    pub fn of(spec: &AccessorSpec) -> Result<GpuPair, GpuError> {
        spec.validate()?;
        if spec.storage.float_format().is_none() {
            return Err(VerifyError::invalid(
                "storage",
                spec.storage.name(),
                "the GPU kernels implement floating-point storage only (fp64, fp32, fp16, bf16)",
            )
            .into());
        }
        if spec.write_mode != RoundingMode::NearestEven {
            return Err(VerifyError::invalid(
                "write",
                format!("{:?}", spec.write_mode),
                "the GPU kernels write with round to nearest even only",
            )
            .into());
        }
        if spec.ftz {
            return Err(VerifyError::invalid(
                "ftz",
                true,
                "the GPU kernels keep subnormals (no flush to zero)",
            )
            .into());
        }
        let f64_arith = spec.arithmetic == Format::FP64;
        PAIRS
            .iter()
            .position(|&(s, a)| s == spec.storage && a == f64_arith)
            .map(|index| GpuPair { index })
            .ok_or_else(|| {
                VerifyError::invalid(
                    "storage",
                    spec.storage.name(),
                    format!("no GPU kernel for arithmetic {}", spec.arithmetic.name()),
                )
                .into()
            })
    }

    /// The storage kind.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::GpuPair;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let pair = GpuPair::of(&AccessorSpec::new(StorageKind::Bf16, Format::FP32).unwrap()).unwrap();
    /// assert_eq!((pair.storage(), pair.arithmetic()), (StorageKind::Bf16, Format::FP32));
    /// ```
    pub fn storage(self) -> StorageKind {
        PAIRS[self.index].0
    }

    /// The arithmetic format.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::GpuPair;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let pair = GpuPair::of(&AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap()).unwrap();
    /// assert_eq!(pair.arithmetic(), Format::FP64);
    /// ```
    pub fn arithmetic(self) -> Format {
        if PAIRS[self.index].1 {
            Format::FP64
        } else {
            Format::FP32
        }
    }

    /// The kernels' name suffix, e.g. `f32_f64`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::GpuPair;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let pair = GpuPair::of(&AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap()).unwrap();
    /// assert_eq!(pair.suffix(), "f32_f64");
    /// ```
    pub fn suffix(self) -> &'static str {
        DOT_BLOCKS[self.index]
            .strip_prefix("accessor_dot_blocks_")
            .expect("every name has the prefix")
    }

    pub(super) fn storage_bytes(self) -> usize {
        self.storage().bytes()
    }

    pub(super) fn arith_bytes(self) -> usize {
        if PAIRS[self.index].1 { 8 } else { 4 }
    }

    /// Storage bit patterns of values of the storage format (little-endian).
    pub(super) fn encode(self, values: &[f64]) -> Vec<u8> {
        let mut out = Vec::with_capacity(values.len() * self.storage_bytes());
        for &v in values {
            // Every value is a number of the storage format (the accessor
            // stored it), so each conversion below is exact (`half`'s
            // conversions may round twice on inexact values,
            // docs/findings/half-crate.md; these are exact).
            match self.storage() {
                StorageKind::Fp64 => out.extend(v.to_le_bytes()),
                StorageKind::Fp32 => out.extend((v as f32).to_le_bytes()),
                StorageKind::Fp16 => out.extend(half::f16::from_f64(v).to_bits().to_le_bytes()),
                _ => out.extend(half::bf16::from_f64(v).to_bits().to_le_bytes()),
            }
        }
        out
    }

    /// Values of storage bit patterns (exact).
    pub(super) fn decode_storage(self, bytes: &[u8]) -> Vec<f64> {
        let kind = self.storage();
        bytes
            .chunks_exact(self.storage_bytes())
            .map(|c| match kind {
                StorageKind::Fp64 => f64::from_le_bytes(c.try_into().expect("8 bytes")),
                StorageKind::Fp32 => f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))),
                StorageKind::Fp16 => {
                    half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64()
                }
                _ => half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64(),
            })
            .collect()
    }

    /// Values of arithmetic-format bytes (exact).
    pub(super) fn decode_arith(self, bytes: &[u8]) -> Vec<f64> {
        if PAIRS[self.index].1 {
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect()
        } else {
            bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))))
                .collect()
        }
    }

    /// A scalar of the arithmetic format, as the kernels take it by value.
    pub(super) fn scalar(self, v: f64) -> Result<Scalar, GpuError> {
        self.arithmetic().require_values(&[v])?;
        Ok(if PAIRS[self.index].1 {
            Scalar::F64(v)
        } else {
            Scalar::F32(v as f32)
        })
    }
}

/// A kernel argument of type `A::T`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Scalar {
    F64(f64),
    F32(f32),
}

pub(super) fn push_scalar<'a>(builder: &mut LaunchArgs<'a>, s: &'a Scalar) {
    match s {
        Scalar::F64(v) => builder.arg(v),
        Scalar::F32(v) => builder.arg(v),
    };
}
