//! The knobs of qdot: input precision, `fexp` definition, the arithmetic of
//! half bins, the ladder of precision levels of (3.9), the tolerance of the
//! bin score (3.10), the evaluation order and the early exit of Theorem 3.6.

use crate::error::{Error, Result};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{BinArithmetic, Binning, Fexp};
use boundgate_verify::format::Format;
use serde::Serialize;
use std::fmt;

/// Which indices form a tile of the evaluation order ([`super::compute`]).
/// Both layouts have `T = ceil(n / tile)` tiles of at most `tile` indices, so
/// every bound that depends on the order (chain length `min(count, tile)`
/// plus the tree's `ceil(log2 T)`) holds for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TileLayout {
    /// Tile `t` holds the consecutive indices `t tile .. (t + 1) tile` (the
    /// default; what the H100 run of 2026-11-24 measured).
    Contiguous,
    /// Tile `t` holds the indices `t, t + T, t + 2T, ...`: on the GPU the
    /// threads of a warp then read consecutive addresses (coalesced), where
    /// the contiguous layout puts a warp's loads a tile apart.
    Interleaved,
}

impl TileLayout {
    /// The names the kernel parameter takes.
    pub const NAMES: &'static [&'static str] = &["contiguous", "interleaved"];

    /// Parses `contiguous` or `interleaved`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::TileLayout;
    /// assert_eq!(TileLayout::parse("interleaved").unwrap(), TileLayout::Interleaved);
    /// assert!(TileLayout::parse("strided").is_err());
    /// ```
    pub fn parse(name: &str) -> Result<TileLayout> {
        match name {
            "contiguous" => Ok(TileLayout::Contiguous),
            "interleaved" => Ok(TileLayout::Interleaved),
            other => Err(Error::usage(format!(
                "tile layout `{other}`: expected contiguous or interleaved"
            ))),
        }
    }

    /// Its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::TileLayout;
    /// assert_eq!(TileLayout::Interleaved.name(), "interleaved");
    /// // Every name the parameter takes parses back to a layout of that name.
    /// for &name in TileLayout::NAMES {
    ///     assert_eq!(TileLayout::parse(name).unwrap().name(), name);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TileLayout::Contiguous => "contiguous",
            TileLayout::Interleaved => "interleaved",
        }
    }

    /// The tile of index `i` when there are `tiles` tiles of `tile` indices.
    ///
    /// A `tile` (contiguous) or `tiles` (interleaved) of 0 means one tile, as
    /// `tile = 0` does in [`TileOrder`](boundgate_verify::bounds::qdot::TileOrder):
    /// the result is tile 0, not a division by zero.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::TileLayout;
    /// // n = 10, tile = 4: T = ceil(10 / 4) = 3 tiles. Index 5 lies in 4..8
    /// // (contiguous tile 1) and 5 mod 3 = 2 (interleaved tile 2).
    /// assert_eq!(TileLayout::Contiguous.tile_of(5, 4, 3), 1);
    /// assert_eq!(TileLayout::Interleaved.tile_of(5, 4, 3), 2);
    /// // Tile sizes: 0..4, 4..8, 8..10 against {0,3,6,9}, {1,4,7}, {2,5,8}.
    /// for (layout, want) in [(TileLayout::Contiguous, [4, 4, 2]), (TileLayout::Interleaved, [4, 3, 3])] {
    ///     let mut sizes = [0; 3];
    ///     (0..10).for_each(|i| sizes[layout.tile_of(i, 4, 3)] += 1);
    ///     assert_eq!(sizes, want);
    /// }
    /// // no tile size or count: one tile
    /// assert_eq!(TileLayout::Contiguous.tile_of(5, 0, 0), 0);
    /// assert_eq!(TileLayout::Interleaved.tile_of(5, 0, 0), 0);
    /// ```
    #[inline]
    pub fn tile_of(self, i: usize, tile: usize, tiles: usize) -> usize {
        match self {
            TileLayout::Contiguous => i.checked_div(tile).unwrap_or(0),
            TileLayout::Interleaved => i.checked_rem(tiles).unwrap_or(0),
        }
    }
}

/// How half-precision bins are computed (Algorithm 3.1 with the paper's
/// implementation notes, §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HalfMode {
    /// fp16 values, products exact in fp32, fp32 accumulation: what the paper
    /// ran on tensor cores (`cublasGemmStridedBatchedEx`), modelled with IEEE
    /// round-to-nearest fp32 additions (`fmaf` on fp16 operands).
    Fp16Fp32,
    /// fp16 values, products rounded to fp16, fp16 accumulation (what
    /// overflowed for large bins without tensor cores, §3.3).
    Fp16,
}

impl HalfMode {
    /// The names the kernel parameter takes.
    pub const NAMES: &'static [&'static str] = &["fp16-fp32", "fp16"];

    /// Parses `fp16-fp32` or `fp16`.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::qdot::config::HalfMode;
    /// assert_eq!(HalfMode::parse("fp16").unwrap(), HalfMode::Fp16);
    /// assert_eq!(HalfMode::parse("fp16-fp32").unwrap(), HalfMode::Fp16Fp32);
    /// assert!(matches!(HalfMode::parse("fp32"), Err(Error::Usage(_))));
    /// ```
    pub fn parse(name: &str) -> Result<HalfMode> {
        match name {
            "fp16-fp32" => Ok(HalfMode::Fp16Fp32),
            "fp16" => Ok(HalfMode::Fp16),
            other => Err(Error::usage(format!(
                "half mode `{other}`: expected fp16-fp32 or fp16"
            ))),
        }
    }

    /// The arithmetic of a half bin.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::HalfMode;
    /// use boundgate_verify::format::Format;
    /// // Tensor cores: fp16 values, fp32 accumulation; pure fp16 accumulates in fp16.
    /// let tc = HalfMode::Fp16Fp32.arithmetic();
    /// assert_eq!((tc.format, tc.accumulator), (Format::FP16, Format::FP32));
    /// let pure = HalfMode::Fp16.arithmetic();
    /// assert_eq!((pure.format, pure.accumulator), (Format::FP16, Format::FP16));
    /// ```
    pub fn arithmetic(self) -> BinArithmetic {
        BinArithmetic {
            format: Format::FP16,
            accumulator: match self {
                HalfMode::Fp16Fp32 => Format::FP32,
                HalfMode::Fp16 => Format::FP16,
            },
        }
    }

    /// Its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::HalfMode;
    /// assert_eq!(HalfMode::Fp16Fp32.name(), "fp16-fp32");
    /// for &name in HalfMode::NAMES {
    ///     assert_eq!(HalfMode::parse(name).unwrap().name(), name);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            HalfMode::Fp16Fp32 => "fp16-fp32",
            HalfMode::Fp16 => "fp16",
        }
    }
}

/// The levels (3.9) chooses from below the input precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ladder {
    /// half (11 bits), single (24), double (53): the paper's (3.9).
    Paper,
    /// bfloat16 (8 bits, fp32 accumulation) below half: (3.9) generalised by
    /// mantissa bits, as the paper suggests after (3.11).
    Bf16,
}

impl Ladder {
    /// The names the kernel parameter takes.
    pub const NAMES: &'static [&'static str] = &["paper", "bf16"];

    /// Parses `paper` or `bf16`.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::qdot::config::Ladder;
    /// assert_eq!(Ladder::parse("paper").unwrap(), Ladder::Paper);
    /// assert_eq!(Ladder::parse("bf16").unwrap(), Ladder::Bf16);
    /// assert!(matches!(Ladder::parse("fp8"), Err(Error::Usage(_))));
    /// ```
    pub fn parse(name: &str) -> Result<Ladder> {
        match name {
            "paper" => Ok(Ladder::Paper),
            "bf16" => Ok(Ladder::Bf16),
            other => Err(Error::usage(format!(
                "ladder `{other}`: expected paper or bf16"
            ))),
        }
    }

    /// Its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::Ladder;
    /// assert_eq!(Ladder::Bf16.name(), "bf16");
    /// for &name in Ladder::NAMES {
    ///     assert_eq!(Ladder::parse(name).unwrap().name(), name);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Ladder::Paper => "paper",
            Ladder::Bf16 => "bf16",
        }
    }
}

/// The tolerance in the bin score (3.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Score {
    /// `eps` as printed in (3.10): Theorem 3.5 then bounds the relative error by `N_bins eps`.
    Eps,
    /// `eps / N_bins`, as in the experiments of §4.1: the bound becomes `eps`.
    EpsOverNbins,
}

impl Score {
    /// The names the kernel parameter takes.
    pub const NAMES: &'static [&'static str] = &["eps-over-nbins", "eps"];

    /// Parses `eps` or `eps-over-nbins`.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::qdot::config::Score;
    /// assert_eq!(Score::parse("eps").unwrap(), Score::Eps);
    /// assert_eq!(Score::parse("eps-over-nbins").unwrap(), Score::EpsOverNbins);
    /// assert!(matches!(Score::parse("eps/nbins"), Err(Error::Usage(_))));
    /// ```
    pub fn parse(name: &str) -> Result<Score> {
        match name {
            "eps" => Ok(Score::Eps),
            "eps-over-nbins" => Ok(Score::EpsOverNbins),
            other => Err(Error::usage(format!(
                "score `{other}`: expected eps or eps-over-nbins"
            ))),
        }
    }

    /// Its name.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::Score;
    /// assert_eq!(Score::EpsOverNbins.name(), "eps-over-nbins");
    /// for &name in Score::NAMES {
    ///     assert_eq!(Score::parse(name).unwrap().name(), name);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Score::Eps => "eps",
            Score::EpsOverNbins => "eps-over-nbins",
        }
    }
}

/// The qdot tolerance `eps`, validated.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::Tolerance;
/// assert!(Tolerance::new(1e-8).is_ok());
/// for bad in [0.0, -1.0, 1.0, 2.0, f64::NAN, f64::INFINITY] {
///     assert!(Tolerance::new(bad).is_err());
/// }
/// // The applications of §4.2 sweep tolerances up to 1e3: allowed explicitly.
/// assert_eq!(Tolerance::loose(1e3).unwrap().value(), 1e3);
/// assert!(Tolerance::loose(0.0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerance(f64);

impl Tolerance {
    /// A relative error tolerance in `(0, 1)`: the guarantee of Theorem 3.5
    /// says nothing for `eps >= 1` (the result 0 would be within it).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::Tolerance;
    /// use boundgate_verify::VerifyError;
    /// // The open interval's ends: the smallest subnormal and the double below 1.
    /// assert!(Tolerance::new(f64::from_bits(1)).is_ok());
    /// assert!(Tolerance::new(1.0 - f64::EPSILON / 2.0).is_ok());
    /// for bad in [1.0, 0.0, -1e-8, f64::NAN] {
    ///     let err = Tolerance::new(bad).unwrap_err();
    ///     assert!(matches!(err, VerifyError::InvalidParameter { ref name, .. } if name == "eps"));
    /// }
    /// ```
    pub fn new(eps: f64) -> std::result::Result<Tolerance, VerifyError> {
        if eps.is_finite() && eps > 0.0 && eps < 1.0 {
            Ok(Tolerance(eps))
        } else {
            Err(VerifyError::invalid(
                "eps",
                eps,
                "the qdot tolerance must be in (0, 1)",
            ))
        }
    }

    /// Any finite positive tolerance, `>= 1` included, as the CG experiments
    /// of §4.2 use (up to 1e3); the relative-error guarantee is then vacuous.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::Tolerance;
    /// use boundgate_verify::VerifyError;
    /// // 1 is refused by `new` (the guarantee is vacuous there) but not here.
    /// assert!(Tolerance::new(1.0).is_err());
    /// assert_eq!(Tolerance::loose(1.0).unwrap().value(), 1.0);
    /// for bad in [0.0, -1e-8, f64::INFINITY, f64::NAN] {
    ///     assert!(matches!(Tolerance::loose(bad), Err(VerifyError::InvalidParameter { .. })));
    /// }
    /// ```
    pub fn loose(eps: f64) -> std::result::Result<Tolerance, VerifyError> {
        if eps.is_finite() && eps > 0.0 {
            Ok(Tolerance(eps))
        } else {
            Err(VerifyError::invalid(
                "eps",
                eps,
                "the qdot tolerance must be finite and positive",
            ))
        }
    }

    /// The value.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::Tolerance;
    /// // The value given, bit for bit.
    /// let eps = 1e-8;
    /// assert_eq!(Tolerance::new(eps).unwrap().value().to_bits(), eps.to_bits());
    /// ```
    pub fn value(self) -> f64 {
        self.0
    }
}

/// One precision level of (3.9): its name, mantissa bits `m` and arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Level {
    /// `half`, `single`, `double` or `bf16`.
    pub name: &'static str,
    /// `m`: the precision in bits, implicit bit included (11, 24, 53, 8).
    pub bits: u32,
    /// How a bin at this level is computed.
    pub arithmetic: BinArithmetic,
}

/// The configuration of a qdot run.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::config::QdotConfig;
/// use boundgate_verify::format::Format;
/// let c = QdotConfig::new(Format::FP64).unwrap();
/// let names: Vec<_> = c.levels().iter().map(|l| l.name).collect();
/// assert_eq!(names, ["half", "single", "double"]);
/// let fp32 = QdotConfig::new(Format::FP32).unwrap();
/// assert_eq!(fp32.levels().iter().map(|l| l.bits).collect::<Vec<_>>(), [11, 24]);
/// assert!(QdotConfig::new(Format::E4M3).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QdotConfig {
    /// The precision of `x` and `y` (fp64, fp32, fp16 or bf16); bin results
    /// are summed in it.
    pub input: Format,
    /// Which `fexp` the selection uses.
    pub fexp: Fexp,
    /// What the selection bins by: Algorithm 3.2's `fexp(x_i) + fexp(y_i)`
    /// (the default) or Def. 3.1's `fexp(x_i y_i)` (the theorems' bins).
    pub binning: Binning,
    /// How half bins are computed.
    pub half: HalfMode,
    /// The levels below the input precision.
    pub ladder: Ladder,
    /// The tolerance of the bin score.
    pub score: Score,
    /// Indices per tile of the evaluation order (0: one tile, sequential).
    pub tile: usize,
    /// Which indices form a tile.
    pub layout: TileLayout,
    /// Run the original kernel when Theorem 3.6 says every bin keeps the input precision.
    pub early_exit: bool,
}

impl QdotConfig {
    /// The inputs qdot accepts.
    pub const INPUTS: [Format; 4] = [Format::FP64, Format::FP32, Format::FP16, Format::BF16];

    /// The defaults for inputs in `input`: IEEE `fexp` and Algorithm 3.2's
    /// binning (the paper's implementation), half bins as on tensor cores, the paper's ladder, the
    /// experiments' `eps / N_bins`, tiles of 64, early exit on.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{HalfMode, Ladder, QdotConfig, Score, TileLayout};
    /// use boundgate_verify::VerifyError;
    /// use boundgate_verify::bounds::qdot::{Binning, Fexp};
    /// use boundgate_verify::format::Format;
    /// let c = QdotConfig::new(Format::BF16).unwrap();
    /// assert_eq!((c.input, c.fexp, c.binning), (Format::BF16, Fexp::Ieee, Binning::Factors));
    /// assert_eq!((c.half, c.ladder, c.score), (HalfMode::Fp16Fp32, Ladder::Paper, Score::EpsOverNbins));
    /// assert_eq!((c.tile, c.layout, c.early_exit), (64, TileLayout::Contiguous, true));
    /// // tf32 is not a qdot input.
    /// let err = QdotConfig::new(Format::TF32).unwrap_err();
    /// assert!(matches!(err, VerifyError::InvalidParameter { ref name, .. } if name == "input"));
    /// ```
    pub fn new(input: Format) -> std::result::Result<QdotConfig, VerifyError> {
        if !Self::INPUTS.contains(&input) {
            return Err(VerifyError::invalid(
                "input",
                input,
                "qdot inputs are fp64, fp32, fp16 or bf16",
            ));
        }
        Ok(QdotConfig {
            input,
            fexp: Fexp::Ieee,
            binning: Binning::Factors,
            half: HalfMode::Fp16Fp32,
            ladder: Ladder::Paper,
            score: Score::EpsOverNbins,
            tile: 64,
            layout: TileLayout::Contiguous,
            early_exit: true,
        })
    }

    /// The levels of (3.9), ascending: those of the ladder with fewer bits than
    /// the input, then the input's own level (the ladder stops at `mu`, the
    /// condition `mu >= m` of (3.9)).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{Ladder, QdotConfig};
    /// use boundgate_verify::format::Format;
    /// let mut c = QdotConfig::new(Format::FP64).unwrap();
    /// c.ladder = Ladder::Bf16;
    /// let levels: Vec<_> = c.levels().iter().map(|l| (l.name, l.bits)).collect();
    /// assert_eq!(levels, [("bf16", 8), ("half", 11), ("single", 24), ("double", 53)]);
    /// // fp16 inputs (mu = 11): only bf16 stays below, then the input's own level.
    /// c.input = Format::FP16;
    /// assert_eq!(c.levels().iter().map(|l| l.name).collect::<Vec<_>>(), ["bf16", "half"]);
    /// ```
    pub fn levels(&self) -> Vec<Level> {
        let mut below = Vec::new();
        if self.ladder == Ladder::Bf16 {
            below.push(Level {
                name: "bf16",
                bits: 8,
                arithmetic: BinArithmetic {
                    format: Format::BF16,
                    accumulator: Format::FP32,
                },
            });
        }
        below.push(Level {
            name: "half",
            bits: 11,
            arithmetic: self.half.arithmetic(),
        });
        below.push(Level {
            name: "single",
            bits: 24,
            arithmetic: BinArithmetic {
                format: Format::FP32,
                accumulator: Format::FP32,
            },
        });
        let mu = self.input.precision();
        let mut levels: Vec<Level> = below.into_iter().filter(|l| l.bits < mu).collect();
        levels.push(self.input_level());
        levels
    }

    /// The input's own level.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{HalfMode, QdotConfig};
    /// use boundgate_verify::format::Format;
    /// let mut c = QdotConfig::new(Format::FP16).unwrap();
    /// let l = c.input_level();
    /// assert_eq!((l.name, l.bits, l.arithmetic.accumulator), ("half", 11, Format::FP32));
    /// // fp16 inputs follow the half mode.
    /// c.half = HalfMode::Fp16;
    /// assert_eq!(c.input_level().arithmetic.accumulator, Format::FP16);
    /// // bf16 inputs always accumulate in fp32.
    /// let b = QdotConfig::new(Format::BF16).unwrap().input_level();
    /// assert_eq!((b.name, b.bits, b.arithmetic.accumulator), ("bf16", 8, Format::FP32));
    /// ```
    pub fn input_level(&self) -> Level {
        let i = self.input;
        let (name, arithmetic) = if i == Format::FP64 {
            (
                "double",
                BinArithmetic {
                    format: i,
                    accumulator: i,
                },
            )
        } else if i == Format::FP32 {
            (
                "single",
                BinArithmetic {
                    format: i,
                    accumulator: i,
                },
            )
        } else if i == Format::FP16 {
            ("half", self.half.arithmetic())
        } else {
            (
                "bf16",
                BinArithmetic {
                    format: i,
                    accumulator: Format::FP32,
                },
            )
        };
        Level {
            name,
            bits: i.precision(),
            arithmetic,
        }
    }

    /// The mantissa bits of the levels, ascending (the ladder of
    /// `boundgate_verify::bounds::qdot::precision_3_9`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::{Ladder, QdotConfig};
    /// use boundgate_verify::format::Format;
    /// let mut c = QdotConfig::new(Format::FP64).unwrap();
    /// assert_eq!(c.ladder_bits(), [11, 24, 53]);
    /// c.ladder = Ladder::Bf16;
    /// assert_eq!(c.ladder_bits(), [8, 11, 24, 53]);
    /// ```
    pub fn ladder_bits(&self) -> Vec<u32> {
        self.levels().iter().map(|l| l.bits).collect()
    }

    /// `mu^` of Theorem 3.6: the bits of the level below the input's (0 if none:
    /// then only perforation is below).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::config::QdotConfig;
    /// use boundgate_verify::format::Format;
    /// // The level below double is single (24 bits), below single half (11).
    /// assert_eq!(QdotConfig::new(Format::FP64).unwrap().mu_hat(), 24);
    /// assert_eq!(QdotConfig::new(Format::FP32).unwrap().mu_hat(), 11);
    /// // Nothing below half on the paper's ladder: only perforation, 0.
    /// assert_eq!(QdotConfig::new(Format::FP16).unwrap().mu_hat(), 0);
    /// ```
    pub fn mu_hat(&self) -> u32 {
        let levels = self.levels();
        levels.len().checked_sub(2).map_or(0, |i| levels[i].bits)
    }
}

impl fmt::Display for QdotConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "input {}, fexp {}, half {}, ladder {}, score {}, tile {}, early exit {}",
            self.input,
            self.fexp,
            self.half.name(),
            self.ladder.name(),
            self.score.name(),
            self.tile,
            self.early_exit
        )?;
        // Named only when it is not the default, so that existing reports keep their text.
        if self.layout != TileLayout::Contiguous {
            write!(f, ", layout {}", self.layout.name())?;
        }
        if self.binning != Binning::Factors {
            write!(f, ", binning {}", self.binning)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_of_a_zero_tile_size_or_count_is_tile_zero_not_a_panic() {
        for i in [0, 1, 5, usize::MAX] {
            assert_eq!(TileLayout::Contiguous.tile_of(i, 0, 3), 0);
            assert_eq!(TileLayout::Interleaved.tile_of(i, 4, 0), 0);
        }
        // valid sizes are unchanged
        assert_eq!(TileLayout::Contiguous.tile_of(9, 4, 3), 2);
        assert_eq!(TileLayout::Interleaved.tile_of(9, 4, 3), 0);
    }
}
