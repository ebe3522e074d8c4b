//! Bit patterns: encoding format values to their interchange encodings and back.
//!
//! Layout is sign | biased exponent | trailing significand, as in IEEE 754 §3.4,
//! in the low `1 + w + t` bits of a `u64`. TF32 is given as its 19-bit logical
//! pattern (in an fp32 container it sits in the top 19 bits: `bits << 13`).
//! The OCP 8-bit E4M3 format (OCP 8-bit Floating Point Specification, 2023,
//! §4.1, "E4M3") has no infinities: its all-ones exponent holds normal numbers
//! and only S.1111.111 is NaN.

use super::{Format, RoundingMode, exponent_of, pow2};
use crate::error::{Result, VerifyError};
use serde::Serialize;

/// How the all-ones exponent field is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EncodingKind {
    /// IEEE 754: all-ones exponent encodes infinities (zero significand) and NaNs.
    Ieee,
    /// Finite and NaN only (OCP "fn"): all-ones exponent is normal, except the
    /// all-ones significand, which is NaN.
    FiniteNanOnly,
}

/// The bit layout of a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Encoding {
    /// Width `w` of the biased exponent field.
    pub exponent_bits: u32,
    /// Width `t = p - 1` of the trailing significand field.
    pub mantissa_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Use of the all-ones exponent.
    pub kind: EncodingKind,
}

impl Encoding {
    /// Total width in bits, sign included.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Format;
    /// let width = |f: Format| f.encoding().unwrap().width();
    /// assert_eq!([Format::FP64, Format::FP32, Format::TF32, Format::FP16, Format::E4M3].map(width), [64, 32, 19, 16, 8]);
    /// ```
    pub fn width(&self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }
    fn exponent_mask(&self) -> u64 {
        (1u64 << self.exponent_bits) - 1
    }
    fn mantissa_mask(&self) -> u64 {
        (1u64 << self.mantissa_bits) - 1
    }
}

impl Format {
    /// Width of the bit encoding, if the format has one.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Format;
    /// assert_eq!((Format::BF16.bit_width(), Format::E5M2.bit_width()), (Some(16), Some(8)));
    /// // Without subnormals fp16 has no IEEE encoding.
    /// assert_eq!(Format::FP16.without_subnormals().bit_width(), None);
    /// ```
    pub fn bit_width(&self) -> Option<u32> {
        self.encoding.map(|e| e.width())
    }

    /// Encodes a number of this format as its bit pattern. NaN gives the
    /// canonical quiet NaN (all-ones exponent, top significand bit set; for
    /// E4M3 the single NaN pattern with sign 0).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Format;
    /// assert_eq!(Format::FP16.encode(1.0).unwrap(), 0x3c00);
    /// assert_eq!(Format::BF16.encode(-2.0).unwrap(), 0xc000);
    /// assert_eq!(Format::E4M3.encode(448.0).unwrap(), 0x7e);
    /// assert!(Format::FP16.encode(0.1).is_err()); // not an fp16 number
    /// assert!(Format::E4M3.encode(f64::INFINITY).is_err());
    /// ```
    pub fn encode(&self, x: f64) -> Result<u64> {
        let enc = self.encoding.ok_or_else(|| VerifyError::NoEncoding {
            format: self.to_string(),
        })?;
        let t = enc.mantissa_bits;
        let sign = (x.is_sign_negative() as u64) << (enc.exponent_bits + t);
        let all_ones = enc.exponent_mask();
        if x.is_nan() {
            return Ok(match enc.kind {
                EncodingKind::Ieee => (all_ones << t) | (1u64 << (t - 1)),
                EncodingKind::FiniteNanOnly => (all_ones << t) | enc.mantissa_mask(),
            });
        }
        let not_representable = || VerifyError::NotRepresentable {
            format: self.to_string(),
            value: x,
        };
        if x.is_infinite() {
            return match enc.kind {
                EncodingKind::Ieee => Ok(sign | (all_ones << t)),
                EncodingKind::FiniteNanOnly => Err(not_representable()),
            };
        }
        if self.round(x, RoundingMode::TowardZero) != x {
            return Err(not_representable());
        }
        let magnitude = x.abs();
        if magnitude == 0.0 {
            return Ok(sign);
        }
        if magnitude < self.min_positive_normal() {
            // Subnormal: biased exponent 0, significand in units of 2^(emin - t).
            let field = (magnitude / pow2(self.emin - t as i32)) as u64;
            return Ok(sign | field);
        }
        let e = exponent_of(magnitude);
        let biased = (e + enc.bias) as u64;
        let significand = (magnitude / pow2(e - t as i32)) as u64;
        Ok(sign | (biased << t) | (significand & enc.mantissa_mask()))
    }

    /// Decodes a bit pattern of this format.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::format::Format;
    /// assert_eq!(Format::FP16.decode(0x0001).unwrap(), 2f64.powi(-24));
    /// assert_eq!(Format::E5M2.decode(0x7c).unwrap(), f64::INFINITY);
    /// assert!(Format::E4M3.decode(0x7f).unwrap().is_nan());
    /// assert_eq!(Format::E4M3.decode(0x78).unwrap(), 256.0);
    /// assert!(Format::FP16.decode(0x1_0000).is_err());
    /// ```
    pub fn decode(&self, bits: u64) -> Result<f64> {
        let enc = self.encoding.ok_or_else(|| VerifyError::NoEncoding {
            format: self.to_string(),
        })?;
        let width = enc.width();
        if width < 64 && bits >> width != 0 {
            return Err(VerifyError::InvalidBitPattern {
                format: self.to_string(),
                bits,
                width,
            });
        }
        let t = enc.mantissa_bits;
        let negative = (bits >> (enc.exponent_bits + t)) & 1 == 1;
        let biased = (bits >> t) & enc.exponent_mask();
        let field = bits & enc.mantissa_mask();
        let magnitude = if biased == enc.exponent_mask()
            && (enc.kind == EncodingKind::Ieee || field == enc.mantissa_mask())
        {
            if enc.kind == EncodingKind::Ieee && field == 0 {
                f64::INFINITY
            } else {
                return Ok(f64::NAN);
            }
        } else if biased == 0 {
            field as f64 * pow2(self.emin - t as i32)
        } else {
            let e = biased as i32 - enc.bias;
            ((1u64 << t) | field) as f64 * pow2(e - t as i32)
        };
        Ok(if negative { -magnitude } else { magnitude })
    }
}
