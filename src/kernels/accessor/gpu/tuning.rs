//! Tuning knobs of `kernels/accessor_blas.cu`: the `#define`s that change how
//! the accessor kernels batch, stage and schedule their loads, which thread
//! holds which of a sum's lanes, and how many registers ptxas may give them,
//! never which operations run or in what order. Every setting of them
//! therefore gives the same bits, the CPU models' (the device tests check it
//! for settings other than the default), and only the speed differs. One knob
//! is the exception: [`Knob::TrsvChainWays`] picks the order of the TRSV's
//! product with each block's inverse, and the CPU model takes it as a
//! parameter ([`accessor_trsv_ordered`](crate::kernels::accessor::trsv::accessor_trsv_ordered);
//! [`AccessorTuning::trsv_chain_ways`]), so that each setting still has a
//! model to equal bit for bit.
//!
//! [`AccessorGpu::open_tuned`](super::AccessorGpu::open_tuned) compiles the
//! kernel file with a setting passed to NVRTC as `-D` options, so that one
//! device call compares settings from one binary (`ACCESSOR_BENCH_TUNINGS` in
//! `benches/accessor_gpu.rs`) instead of building a second one from another
//! checkout. The kernel file keeps each default in `#ifndef` and checks the
//! ranges accepted here with `static_assert`s.
//!
//! The text form is the knobs' macro names: `CSR_GROUPS_PER_WARP=1,CSR_MIN_BLOCKS=5`
//! (`default` for none).

use boundgate_verify::VerifyError;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// One tuning knob of `kernels/accessor_blas.cu` (its `#define`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Knob {
    /// `DOT_BATCH`: terms per thread whose loads DOT issues together.
    DotBatch,
    /// `DOT_MIN_BLOCKS`: blocks of 256 per SM DOT's launch bounds ask for.
    DotMinBlocks,
    /// `GEMV_T_MIN_BLOCKS`: blocks of 1024 per SM GEMV^T's launch bounds ask for.
    GemvTMinBlocks,
    /// `GEMV_T_STAGE_X`: whether GEMV^T converts x once per warp into shared
    /// memory (1) or in every lane (0).
    GemvTStageX,
    /// `GEMV_T_STAGED_BATCH`: rows per batch of loads on GEMV^T's staged path.
    GemvTStagedBatch,
    /// `CSR_GROUPS_PER_WARP`: row groups the CSR grid gives each warp (it
    /// sizes the launcher's grid; the kernel covers every row whatever it is).
    CsrGroupsPerWarp,
    /// `CSR_MIN_BLOCKS`: blocks of 256 per SM the CSR launch bounds ask for.
    CsrMinBlocks,
    /// `CSR_MIN_BLOCKS_F64`: the same for binary64 storage (`CSR_MIN_BLOCKS`
    /// covers the other formats).
    CsrMinBlocksF64,
    /// `CSR_SPLIT_LANES`: whether each half-warp of the CSR kernel takes two
    /// of a group's rows, a thread holding two of a row's 32 lanes (1), or
    /// each lane one lane of all four rows (0); the same chains and trees.
    CsrSplitLanes,
    /// `CSR_PIPELINE_DEPTH`: row groups whose first entries each CSR warp
    /// keeps in flight while it reduces one (1 to 3).
    CsrPipelineDepth,
    /// `CSR_STREAM_BATCH`: entries of a chunk each thread of the CSR-stream
    /// kernel loads (1 to 8; a chunk is 256 times as many).
    CsrStreamBatch,
    /// `CSR_STREAM_MIN_BLOCKS`: blocks of 256 per SM the CSR-stream launch
    /// bounds ask for.
    CsrStreamMinBlocks,
    /// `ELL_MIN_BLOCKS`: blocks of 256 per SM the ELL launch bounds ask for.
    EllMinBlocks,
    /// `TRSV_STAGE_X`: whether the pipelined TRSV loads each chunk of x once
    /// per block (1) or once per warp (0).
    TrsvStageX,
    /// `TRSV_CHAIN_WAYS`: the interleaved FMA chains of the TRSV's product
    /// with each block's inverse (1 to 8): **changes the order**, which the
    /// CPU model follows ([`TRSV_CHAIN_WAYS`](crate::kernels::accessor::trsv::TRSV_CHAIN_WAYS)).
    TrsvChainWays,
    /// `TRSV_Y_REGISTERS`: whether warp 0 of the pipelined TRSV reads its rows
    /// of the block's inverse into registers before the trees (1) or from
    /// shared memory in the product (0); the same words in the same order.
    TrsvYRegisters,
}

impl Knob {
    /// Every knob, in the kernel file's order.
    pub const ALL: [Knob; 16] = [
        Knob::DotBatch,
        Knob::DotMinBlocks,
        Knob::GemvTMinBlocks,
        Knob::GemvTStageX,
        Knob::GemvTStagedBatch,
        Knob::CsrGroupsPerWarp,
        Knob::CsrMinBlocks,
        Knob::CsrMinBlocksF64,
        Knob::CsrSplitLanes,
        Knob::CsrPipelineDepth,
        Knob::CsrStreamBatch,
        Knob::CsrStreamMinBlocks,
        Knob::EllMinBlocks,
        Knob::TrsvStageX,
        Knob::TrsvChainWays,
        Knob::TrsvYRegisters,
    ];

    /// The macro name in `kernels/accessor_blas.cu`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::Knob;
    /// assert_eq!(Knob::CsrStreamBatch.macro_name(), "CSR_STREAM_BATCH");
    /// ```
    pub fn macro_name(self) -> &'static str {
        match self {
            Knob::DotBatch => "DOT_BATCH",
            Knob::DotMinBlocks => "DOT_MIN_BLOCKS",
            Knob::GemvTMinBlocks => "GEMV_T_MIN_BLOCKS",
            Knob::GemvTStageX => "GEMV_T_STAGE_X",
            Knob::GemvTStagedBatch => "GEMV_T_STAGED_BATCH",
            Knob::CsrGroupsPerWarp => "CSR_GROUPS_PER_WARP",
            Knob::CsrMinBlocks => "CSR_MIN_BLOCKS",
            Knob::CsrMinBlocksF64 => "CSR_MIN_BLOCKS_F64",
            Knob::CsrSplitLanes => "CSR_SPLIT_LANES",
            Knob::CsrPipelineDepth => "CSR_PIPELINE_DEPTH",
            Knob::CsrStreamBatch => "CSR_STREAM_BATCH",
            Knob::CsrStreamMinBlocks => "CSR_STREAM_MIN_BLOCKS",
            Knob::EllMinBlocks => "ELL_MIN_BLOCKS",
            Knob::TrsvStageX => "TRSV_STAGE_X",
            Knob::TrsvChainWays => "TRSV_CHAIN_WAYS",
            Knob::TrsvYRegisters => "TRSV_Y_REGISTERS",
        }
    }

    /// The value the kernel file defines when none is given (the measured
    /// kernels' or, where the comment beside it says so, a change awaiting a
    /// device).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::Knob;
    /// assert!(Knob::ALL.iter().all(|k| k.range().contains(&k.default_value())));
    /// ```
    pub fn default_value(self) -> u32 {
        match self {
            Knob::DotBatch => 4,
            Knob::DotMinBlocks => 8,
            Knob::GemvTMinBlocks => 1,
            Knob::GemvTStageX => 1,
            Knob::GemvTStagedBatch => 16,
            Knob::CsrGroupsPerWarp => 8,
            Knob::CsrMinBlocks => 4,
            Knob::CsrMinBlocksF64 => 4,
            Knob::CsrSplitLanes => 1,
            Knob::CsrPipelineDepth => 1,
            Knob::CsrStreamBatch => 8,
            Knob::CsrStreamMinBlocks => 5,
            Knob::EllMinBlocks => 5,
            Knob::TrsvStageX => 1,
            Knob::TrsvChainWays => crate::kernels::accessor::trsv::TRSV_CHAIN_WAYS as u32,
            Knob::TrsvYRegisters => 0,
        }
    }

    /// The values accepted, the kernel file's `static_assert`s: blocks per
    /// SM within 2048 threads per SM (sm_80, sm_90), switches 0 or 1, DOT's
    /// batch from 2 (its last, partial batch holds `DOT_BATCH - 1` terms).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::Knob;
    /// assert_eq!(Knob::CsrPipelineDepth.range(), 1..=3);
    /// assert_eq!(Knob::TrsvYRegisters.range(), 0..=1);
    /// ```
    pub fn range(self) -> RangeInclusive<u32> {
        match self {
            Knob::DotBatch => 2..=16,
            Knob::DotMinBlocks
            | Knob::CsrMinBlocks
            | Knob::CsrMinBlocksF64
            | Knob::CsrStreamMinBlocks
            | Knob::CsrStreamBatch
            | Knob::EllMinBlocks => 1..=8,
            Knob::GemvTMinBlocks => 1..=2,
            Knob::GemvTStageX | Knob::CsrSplitLanes | Knob::TrsvStageX | Knob::TrsvYRegisters => {
                0..=1
            }
            Knob::GemvTStagedBatch => 1..=32,
            Knob::CsrPipelineDepth => 1..=3,
            Knob::TrsvChainWays => 1..=crate::kernels::accessor::order::MAX_CHAIN_WAYS as u32,
            Knob::CsrGroupsPerWarp => 1..=1024,
        }
    }

    /// The knob whose macro name is `name`.
    ///
    /// # Errors
    /// An unknown name, with the known ones in the message.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::Knob;
    /// assert_eq!(Knob::from_macro_name("TRSV_CHAIN_WAYS").unwrap(), Knob::TrsvChainWays);
    /// let e = Knob::from_macro_name("TRSV_WAYS").unwrap_err();
    /// assert!(e.to_string().contains("TRSV_CHAIN_WAYS"), "{e}");
    /// ```
    pub fn from_macro_name(name: &str) -> Result<Knob, VerifyError> {
        Knob::ALL
            .into_iter()
            .find(|k| k.macro_name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Knob::ALL.iter().map(|k| k.macro_name()).collect();
                VerifyError::invalid(
                    "tuning knob",
                    name,
                    format!("not one of {}", known.join(", ")),
                )
            })
    }
}

/// A setting of the accessor kernels' tuning knobs: the default value of
/// every knob not given.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
/// let t: AccessorTuning = "CSR_GROUPS_PER_WARP=1,CSR_MIN_BLOCKS=5".parse().unwrap();
/// assert_eq!(t.value(Knob::CsrGroupsPerWarp), 1);
/// assert_eq!(t.value(Knob::TrsvStageX), 1); // not given: the default
/// assert_eq!(t.to_string(), "CSR_GROUPS_PER_WARP=1,CSR_MIN_BLOCKS=5");
/// assert!("CSR_MIN_BLOCKS=9".parse::<AccessorTuning>().is_err());
/// assert!(AccessorTuning::default().is_default());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessorTuning {
    /// The knobs given, each with a value in its range and unlike its default.
    given: BTreeMap<Knob, u32>,
}

impl AccessorTuning {
    /// The same setting with `knob` at `value` (a value equal to the default
    /// is the default: it is not listed).
    ///
    /// # Errors
    /// A value outside [`Knob::range`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
    /// let t = AccessorTuning::default().with(Knob::CsrPipelineDepth, 3).unwrap();
    /// assert_eq!(t.to_string(), "CSR_PIPELINE_DEPTH=3");
    /// let back = t.with(Knob::CsrPipelineDepth, Knob::CsrPipelineDepth.default_value()).unwrap();
    /// assert!(back.is_default());
    /// assert!(AccessorTuning::default().with(Knob::CsrPipelineDepth, 4).is_err());
    /// ```
    pub fn with(mut self, knob: Knob, value: u32) -> Result<AccessorTuning, VerifyError> {
        let range = knob.range();
        if !range.contains(&value) {
            return Err(VerifyError::invalid(
                knob.macro_name(),
                value,
                format!("must be {} to {}", range.start(), range.end()),
            ));
        }
        if value == knob.default_value() {
            self.given.remove(&knob);
        } else {
            self.given.insert(knob, value);
        }
        Ok(self)
    }

    /// The value of `knob` in this setting.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
    /// let t: AccessorTuning = "DOT_BATCH=8".parse().unwrap();
    /// assert_eq!((t.value(Knob::DotBatch), t.value(Knob::DotMinBlocks)), (8, Knob::DotMinBlocks.default_value()));
    /// ```
    pub fn value(&self, knob: Knob) -> u32 {
        self.given
            .get(&knob)
            .copied()
            .unwrap_or_else(|| knob.default_value())
    }

    /// Every knob at the low end of its range, then every knob at the high
    /// end: the two settings the build and device tests try.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
    /// let [low, high] = AccessorTuning::extremes();
    /// assert_eq!((low.value(Knob::DotBatch), high.value(Knob::DotBatch)), (2, 16));
    /// ```
    pub fn extremes() -> [AccessorTuning; 2] {
        let at = |end: fn(&RangeInclusive<u32>) -> u32| AccessorTuning {
            given: Knob::ALL
                .into_iter()
                .map(|k| (k, end(&k.range())))
                .filter(|&(k, v)| v != k.default_value())
                .collect(),
        };
        [at(|r| *r.start()), at(|r| *r.end())]
    }

    /// The FMA chains of the TRSV's product with each block's inverse in this
    /// setting: the order the CPU model must follow to equal the kernels
    /// ([`accessor_trsv_ordered`](crate::kernels::accessor::trsv::accessor_trsv_ordered)).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::AccessorTuning;
    /// use boundgate::kernels::accessor::trsv::TRSV_CHAIN_WAYS;
    /// assert_eq!(AccessorTuning::default().trsv_chain_ways(), TRSV_CHAIN_WAYS);
    /// let one: AccessorTuning = "TRSV_CHAIN_WAYS=1".parse().unwrap();
    /// assert_eq!(one.trsv_chain_ways(), 1);
    /// ```
    pub fn trsv_chain_ways(&self) -> usize {
        self.value(Knob::TrsvChainWays) as usize
    }

    /// Whether every knob has its default value.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::AccessorTuning;
    /// assert!(AccessorTuning::default().is_default());
    /// assert!(!"ELL_MIN_BLOCKS=2".parse::<AccessorTuning>().unwrap().is_default());
    /// ```
    pub fn is_default(&self) -> bool {
        self.given.is_empty()
    }

    /// The `(macro, value)` pairs to define for NVRTC: every knob, so that the
    /// build does not depend on the kernel file's defaults agreeing with
    /// [`Knob::default_value`] (a unit test checks that they do).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gpu::tuning::{AccessorTuning, Knob};
    /// let d = "DOT_BATCH=8".parse::<AccessorTuning>().unwrap().defines();
    /// assert_eq!(d.len(), Knob::ALL.len());
    /// assert!(d.contains(&("DOT_BATCH".to_string(), "8".to_string())));
    /// ```
    pub fn defines(&self) -> Vec<(String, String)> {
        Knob::ALL
            .iter()
            .map(|&k| (k.macro_name().to_string(), self.value(k).to_string()))
            .collect()
    }
}

impl fmt::Display for AccessorTuning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_default() {
            return f.write_str("default");
        }
        let parts: Vec<String> = self
            .given
            .iter()
            .map(|(k, v)| format!("{}={v}", k.macro_name()))
            .collect();
        f.write_str(&parts.join(","))
    }
}

impl FromStr for AccessorTuning {
    type Err = VerifyError;

    /// `default`, or `NAME=value` pairs separated by commas (whitespace
    /// around each ignored); a knob given twice is an error.
    fn from_str(text: &str) -> Result<AccessorTuning, VerifyError> {
        let text = text.trim();
        if text == "default" {
            return Ok(AccessorTuning::default());
        }
        let mut tuning = AccessorTuning::default();
        let mut seen = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            let (name, value) = part.split_once('=').ok_or_else(|| {
                VerifyError::invalid("tuning", part, "expected NAME=value or `default`")
            })?;
            let knob = Knob::from_macro_name(name.trim())?;
            if seen.contains(&knob) {
                return Err(VerifyError::invalid(
                    "tuning",
                    knob.macro_name(),
                    "given twice",
                ));
            }
            seen.push(knob);
            let value: u32 = value.trim().parse().map_err(|_| {
                VerifyError::invalid(knob.macro_name(), value.trim(), "not a whole number")
            })?;
            tuning = tuning.with(knob, value)?;
        }
        Ok(tuning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sources::ACCESSOR_BLAS;

    /// The defaults here are the kernel file's, each in its `#ifndef`, and
    /// each kernel-file range is the one accepted here.
    #[test]
    fn defaults_and_ranges_are_the_kernel_files() {
        let src = ACCESSOR_BLAS.source;
        for knob in Knob::ALL {
            let name = knob.macro_name();
            let guarded = format!(
                "#ifndef {name}\n#define {name} {}\n#endif\n",
                knob.default_value()
            );
            assert!(src.contains(&guarded), "kernel file lacks `{guarded}`");
            let (lo, hi) = knob.range().into_inner();
            let assertion = format!("static_assert({name} >= {lo} && {name} <= {hi},");
            assert!(src.contains(&assertion), "kernel file lacks `{assertion}`");
            assert!(knob.range().contains(&knob.default_value()), "{name}");
        }
    }

    #[test]
    fn text_round_trips_and_defaults_are_not_listed() {
        let t: AccessorTuning = " TRSV_STAGE_X = 0 , CSR_GROUPS_PER_WARP=8,DOT_BATCH=2"
            .parse()
            .unwrap();
        // CSR_GROUPS_PER_WARP=8 is the default: not listed; knobs in file order.
        assert_eq!(t.to_string(), "DOT_BATCH=2,TRSV_STAGE_X=0");
        assert_eq!(t.to_string().parse::<AccessorTuning>().unwrap(), t);
        assert_eq!(t.value(Knob::TrsvStageX), 0);
        assert_eq!(t.value(Knob::CsrGroupsPerWarp), 8);
        assert_eq!(
            "default".parse::<AccessorTuning>().unwrap(),
            AccessorTuning::default()
        );
        assert_eq!(AccessorTuning::default().to_string(), "default");
    }

    #[test]
    fn extremes_put_every_knob_at_one_end_of_its_range() {
        let [low, high] = AccessorTuning::extremes();
        for knob in Knob::ALL {
            assert_eq!(low.value(knob), *knob.range().start(), "{knob:?}");
            assert_eq!(high.value(knob), *knob.range().end(), "{knob:?}");
        }
        // Built through `with`, the same settings (defaults not listed).
        let through_with = |end: fn(&Knob) -> u32| {
            Knob::ALL.iter().fold(AccessorTuning::default(), |t, k| {
                t.with(*k, end(k)).expect("in range")
            })
        };
        assert_eq!(low, through_with(|k| *k.range().start()));
        assert_eq!(high, through_with(|k| *k.range().end()));
    }

    #[test]
    fn defines_name_every_knob_with_its_value() {
        let t = AccessorTuning::default()
            .with(Knob::CsrMinBlocks, 5)
            .unwrap();
        let defines = t.defines();
        assert_eq!(defines.len(), Knob::ALL.len());
        assert!(defines.contains(&("CSR_MIN_BLOCKS".into(), "5".into())));
        assert!(defines.contains(&("ELL_MIN_BLOCKS".into(), "5".into())));
        assert!(defines.contains(&("DOT_BATCH".into(), "4".into())));
    }

    #[test]
    fn bad_text_is_a_typed_error_naming_the_problem() {
        for (text, says) in [
            ("CSR_MIN_BLOCKS=0", "must be 1 to 8"),
            ("CSR_MIN_BLOCKS=9", "must be 1 to 8"),
            ("TRSV_STAGE_X=2", "must be 0 to 1"),
            ("CSR_GROUPS_PER_WARP=1025", "must be 1 to 1024"),
            ("NO_SUCH_KNOB=1", "not one of DOT_BATCH"),
            ("DOT_BATCH", "expected NAME=value"),
            ("", "expected NAME=value"),
            ("DOT_BATCH=-1", "not a whole number"),
            ("DOT_BATCH=x", "not a whole number"),
            ("DOT_BATCH=2,DOT_BATCH=3", "given twice"),
            ("DOT_BATCH=2,", "expected NAME=value"),
        ] {
            let e = text.parse::<AccessorTuning>().unwrap_err().to_string();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
