//! Launchers of `kernels/qdot.cu` (feature `cuda`): qdot on binary64 (or binary32) inputs
//! on the GPU, in the fixed order of the CPU model ([`super::compute`]), so
//! that the result can be compared bit for bit (`tests/qdot_gpu.rs`, ignored
//! without a device).
//!
//! 1. `qdot_exponents_f64`: the exponent histogram over every possible sum
//!    of binary64 exponents, `[-2148, 2046]`, in shared memory (one pass, no
//!    sort, warp-aggregated counts), and `e_i` per index when asked (the
//!    tested path compares them with the CPU's; the tile kernels recompute
//!    `e_i`, so the timed selection writes none); the host reads the 4195 counts and runs
//!    [`select_from_histogram`] (Algorithm 3.2 lines 4-8 and Theorem 3.6:
//!    the same code as the CPU selection).
//! 2. `qdot_tiles_f64` (or `qdot_original_tiles_f64` after an early exit):
//!    one thread per tile, one accumulator per computed bin ("slot"), in
//!    shared memory, blocks of [`fused_block`] tiles running the tree's first
//!    levels ([`super::compute::tree_blocked`]). When a
//!    slot is a pure-fp16 half bin (`half=fp16`, code [`HALF2_CODE`]),
//!    `qdot_tiles_half2_f64` instead ([`tiles_kernel`]): one thread per PAIR
//!    of tiles (blocks of [`fused_pairs_block`] pairs, the same fused tree), the fp16 slots in packed fp16x2 accumulators (lane 0 = tile
//!    `2p`, lane 1 = tile `2p + 1`) updated with `mul.rn.f16x2` and
//!    `add.rn.f16x2` (what `cuda_fp16.h`'s `__hmul2_rn`/`__hadd2_rn` emit,
//!    written as inline PTX so the file needs no header); a lane whose index
//!    is not in the slot keeps its bits. Each lane is exactly the CPU model's
//!    chain of its tile, so the CPU order is unchanged and still matched bit
//!    for bit. The fp16-fp32 mode stays on `__fmaf_rn` chains (exact fp16
//!    products, fp32 accumulation: the tensor-core arithmetic, in a fixed
//!    IEEE order).
//! 3. `qdot_tree_level_f64`, launched until one value per slot is left.
//! 4. `qdot_finish_f64`: rescale by `2^u_k` and sum in ascending exponent.
//!
//! Binary32 inputs (`input = fp32`, [`qdot_gpu_f32`] or binary32 values in
//! `f64` slices): the same selection, tiles and tree (they depend on the bins'
//! formats only); the early exit runs `qdot_original_tiles_f32in` (binary32
//! FMA chains) and the finish is `qdot_finish_f32in` (`fl32(fl32(S_k) 2^u_k)`,
//! summed in binary32), the CPU model's step 5 and line 7 for fp32 inputs.
//! The device still reads binary64 arrays (widened exactly on the host).
//!
//! Run on a lent H100 on 2026-11-24 (record `docs/gpu/2026-11-24-h100.md`):
//! `tests/qdot_gpu.rs` bit-identical to the CPU model (1664 binary64-input
//! and 384 binary32-input runs, also within the rigorous bound; 48 fp16x2
//! runs); `time_qdot` against `cublasDdot`: efficiency (2.5) 0.25-0.37,
//! speedup (2.6) 0.024-0.095 (docs/qdot.md). A machine without a driver gets
//! the probe's typed error (never a panic); a panic inside the bindings is
//! caught and returned as [`GpuError::Internal`].

use super::config::{QdotConfig, TileLayout, Tolerance};
use super::select::{Selection, select_from_histogram};
use crate::gpu::guard::catch;
use crate::gpu::module::driver;
use crate::gpu::sources;
use crate::gpu::timing::{median_seconds, require_repetitions};
use crate::gpu::{GpuError, KernelModule};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::{BinArithmetic, Binning, Fexp, TileOrder};
use boundgate_verify::error::{require_finite, require_same_len};
use boundgate_verify::format::Format;
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

/// The kernel source, embedded like the other `kernels/*.cu`.
pub const SOURCE: &str = sources::QDOT.source;

/// The exponent of `counts[0]` in the device histogram (`-QDOT_HIST_OFFSET`).
pub const HISTOGRAM_FIRST: i32 = -2148;
/// The histogram's length (`QDOT_HIST_SIZE`).
pub const HISTOGRAM_LEN: usize = 4195;
/// The most computed bins one launch handles (`QDOT_MAX_SLOTS`).
pub const MAX_SLOTS: usize = 128;

/// The kernel code of a pure-fp16 half bin (`qdot_step` code 3), computed on
/// fp16x2 by `qdot_tiles_half2_f64`.
pub const HALF2_CODE: i8 = 3;

/// The tile kernel a launch uses for its slots' codes: the fp16x2 pair kernel
/// when a slot is a pure-fp16 half bin, else one thread per tile.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::gpu::tiles_kernel;
/// assert_eq!(tiles_kernel(&[2, 1, 0]), "qdot_tiles_f64");
/// assert_eq!(tiles_kernel(&[3, 1, 0]), "qdot_tiles_half2_f64");
/// ```
pub fn tiles_kernel(codes: &[i8]) -> &'static str {
    if codes.contains(&HALF2_CODE) {
        "qdot_tiles_half2_f64"
    } else {
        "qdot_tiles_f64"
    }
}

/// What the GPU computed.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuQdot {
    /// The result `z`.
    pub value: f64,
    /// The selection the host made from the device histogram.
    pub selection: Selection,
    /// `e_i` per index as the device computed them (`-32768` for zero products).
    pub exponents: Vec<i16>,
    /// The tile kernel that ran ([`tiles_kernel`], `qdot_original_tiles_f64`
    /// after an early exit), or `None` when no bin was computed.
    pub tile_kernel: Option<&'static str>,
}

/// The kernel code of a bin arithmetic (`qdot_cast`/`qdot_step` in the .cu).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::gpu::code_of;
/// use boundgate_verify::bounds::qdot::BinArithmetic;
/// use boundgate_verify::format::Format;
/// let half = BinArithmetic { format: Format::FP16, accumulator: Format::FP32 };
/// assert_eq!(code_of(half), Some(2));
/// let e4m3 = BinArithmetic { format: Format::E4M3, accumulator: Format::FP32 };
/// assert_eq!(code_of(e4m3), None);
/// ```
pub fn code_of(a: BinArithmetic) -> Option<i8> {
    let (f, c) = (a.format, a.accumulator);
    if f == Format::FP64 && c == Format::FP64 {
        Some(0)
    } else if f == Format::FP32 && c == Format::FP32 {
        Some(1)
    } else if f == Format::FP16 && c == Format::FP32 {
        Some(2)
    } else if f == Format::FP16 && c == Format::FP16 {
        Some(3)
    } else if f == Format::BF16 && c == Format::FP32 {
        Some(4)
    } else {
        None
    }
}

/// Threads per block of `qdot_tiles_f64` for `slots` computed bins: the
/// largest power of two from 32 to 256 whose `slots x threads` binary64
/// accumulators fit the 48 KiB of shared memory a launch gets without opting
/// in. A power of two, so that a block's tiles are an aligned group of the
/// tree (`kernels/qdot.cu`: the block runs the tree's first levels).
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::gpu::fused_block;
/// assert_eq!(fused_block(17), 256);
/// assert_eq!(fused_block(40), 128);
/// assert_eq!(fused_block(64), 64);
/// assert_eq!(fused_block(128), 32);
/// ```
pub fn fused_block(slots: usize) -> u32 {
    largest_fitting_block(slots * F64_SLOT_BYTES, 256, 32)
}

/// Shared memory per thread and slot of `qdot_tiles_f64`: one binary64.
const F64_SLOT_BYTES: usize = 8;
/// Of `qdot_tiles_half2_f64`: two binary64 (one per lane) and one fp16x2 word.
const HALF2_SLOT_BYTES: usize = 20;

/// The largest power of two from `most` down to `least` threads whose
/// `bytes_per_thread` each fit the 48 KiB of shared memory a launch gets
/// without opting in (`least` when none does).
fn largest_fitting_block(bytes_per_thread: usize, most: u32, least: u32) -> u32 {
    const SHARED: usize = 48 * 1024;
    let mut threads = most;
    while threads > least && bytes_per_thread * threads as usize > SHARED {
        threads /= 2;
    }
    threads
}

/// Threads per block of `qdot_tiles_half2_f64` (each owning a pair of
/// tiles) for `slots` computed bins: the largest power of two from 16 to 128
/// whose accumulators (`slots x threads` x (two binary64 + one fp16x2 word),
/// 20 bytes) fit 48 KiB of shared memory.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::gpu::fused_pairs_block;
/// assert_eq!(fused_pairs_block(17), 128);
/// assert_eq!(fused_pairs_block(64), 32);
/// assert_eq!(fused_pairs_block(128), 16);
/// ```
pub fn fused_pairs_block(slots: usize) -> u32 {
    largest_fitting_block(slots * HALF2_SLOT_BYTES, 128, 16)
}

/// The launch of a tile kernel (`half2`: `qdot_tiles_half2_f64`, else
/// `qdot_tiles_f64`) for `slots` bins over `tiles` tiles, and the number of
/// blocks, which is the number of partials per slot it leaves: a block owns
/// a power-of-two group of tiles and runs the tree's first levels on them.
fn tile_launch(half2: bool, slots: usize, tiles: usize) -> Result<(LaunchConfig, usize), GpuError> {
    let (threads, tiles_per_block, slot_bytes) = if half2 {
        let pairs = fused_pairs_block(slots);
        (pairs, 2 * pairs as usize, HALF2_SLOT_BYTES)
    } else {
        let width = fused_block(slots);
        (width, width as usize, F64_SLOT_BYTES)
    };
    let blocks = tiles.div_ceil(tiles_per_block);
    let mut launch = grid(blocks * threads as usize, threads)?;
    launch.shared_mem_bytes = (slots * threads as usize * slot_bytes) as u32;
    Ok((launch, blocks))
}

/// One thread per item (the tile and tree kernels have no grid-stride loop:
/// the x dimension of a grid holds up to 2^31 - 1 blocks).
fn grid(count: usize, threads: u32) -> Result<LaunchConfig, GpuError> {
    let blocks = u32::try_from(count.div_ceil(threads as usize).max(1))
        .ok()
        .filter(|&b| b <= i32::MAX as u32)
        .ok_or_else(|| VerifyError::invalid("n", count, "too many tiles for one launch"))?;
    Ok(LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// `kernels/qdot.cu` on device 0 (the shared launcher's module and stream).
type Device = KernelModule;

/// qdot of `x`, `y` on the GPU with the configuration's input precision
/// (fp64, or fp32: `x`, `y` then hold binary32 values), `fexp`, ladder, half
/// arithmetic, score, tile and early exit.
///
/// # Errors
/// [`GpuError::Input`] for bad input (checked before any device is touched:
/// lengths, NaN/inf, an input precision other than fp64/fp32, fp32 input
/// values not representable in binary32, a binning other than Algorithm
/// 3.2's; once the device's histogram is read back: more than [`MAX_SLOTS`]
/// computed bins), the probe's error without a device, driver and NVRTC errors.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::qdot::{config::*, gpu::qdot_gpu};
/// use boundgate_verify::{VerifyError, bounds::qdot::Binning, format::Format};
/// let (eps, fp64) = (Tolerance::new(1e-8).unwrap(), QdotConfig::new(Format::FP64).unwrap());
/// // Bad input is refused before any device is touched, so on any machine:
/// let bad = |x: &[f64], c: &QdotConfig| match qdot_gpu(x, &[1.0], eps, c) {
///     Err(GpuError::Input(e)) => e,
///     other => panic!("{other:?}"),
/// };
/// assert!(matches!(bad(&[1.0, 2.0], &fp64), VerifyError::LengthMismatch { .. }));
/// assert!(matches!(bad(&[f64::NAN], &fp64), VerifyError::NonFinite { .. }));
/// assert!(matches!(bad(&[0.1], &QdotConfig::new(Format::FP32).unwrap()), VerifyError::NotRepresentable { .. }));
/// assert!(matches!(bad(&[1.0], &QdotConfig::new(Format::FP16).unwrap()), VerifyError::InvalidParameter { .. }));
/// let product = QdotConfig { binning: Binning::Product, ..fp64 };
/// assert!(matches!(bad(&[1.0], &product), VerifyError::InvalidParameter { ref name, .. } if name == "binning"));
/// ```
///
/// On a device, the result is the CPU model's, bit for bit:
/// ```no_run
/// use boundgate::kernels::qdot::{compute::compute, config::*, gpu::qdot_gpu, select::select};
/// use boundgate_verify::format::Format;
/// let (eps, c) = (Tolerance::new(1e-8).unwrap(), QdotConfig::new(Format::FP64).unwrap());
/// let x: Vec<f64> = (0..10_000).map(|i| (1.0 + (i % 97) as f64) * 2f64.powi(-(i % 50))).collect();
/// let y: Vec<f64> = (0..10_000).map(|i| if i % 3 == 0 { -1.5 } else { 0.75 }).collect();
/// let gpu = qdot_gpu(&x, &y, eps, &c)?;
/// let cpu = select(&x, &y, eps, &c)?;
/// assert_eq!(gpu.selection.bins, cpu.bins);
/// assert_eq!(gpu.value.to_bits(), compute(&x, &y, &cpu, &c).unwrap().value.to_bits());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn qdot_gpu(
    x: &[f64],
    y: &[f64],
    eps: Tolerance,
    config: &QdotConfig,
) -> Result<GpuQdot, GpuError> {
    require_same_len("x and y", x.len(), y.len())?;
    require_histogram_len(x.len())?;
    require_finite("x", x)?;
    require_finite("y", y)?;
    if config.input == Format::FP32 {
        Format::FP32.require_values(x)?;
        Format::FP32.require_values(y)?;
    } else if config.input != Format::FP64 {
        return Err(VerifyError::invalid(
            "input",
            config.input,
            "kernels/qdot.cu takes binary64 and binary32 inputs only",
        )
        .into());
    }
    if config.binning != Binning::Factors {
        // The device bins as the paper's implementation does (Algorithm 3.2,
        // line 3, read off the bits); Def. 3.1's bins of the products are a
        // CPU-model setting (the checker's reading of Theorems 3.2-3.5).
        return Err(VerifyError::invalid(
            "binning",
            config.binning,
            "kernels/qdot.cu bins by fexp(x_i) + fexp(y_i) (Algorithm 3.2) only",
        )
        .into());
    }
    if let Some(level) = config
        .levels()
        .iter()
        .find(|l| code_of(l.arithmetic).is_none())
    {
        return Err(VerifyError::invalid(
            "ladder",
            level.name,
            "kernels/qdot.cu has no code for this bin arithmetic",
        )
        .into());
    }
    catch(|| run(x, y, eps, config))
}

/// The device histogram counts each bin in an `unsigned int`
/// (`qdot_exponents_f64`): with `2^32` or more indices a bin's count can wrap,
/// and the host would select from wrong counts (and a wrong number of zero
/// products). The CPU model ([`select`](super::select::select)) refuses the
/// same lengths; until this review the device path did not, and went on to
/// the device with them.
fn require_histogram_len(n: usize) -> Result<(), VerifyError> {
    if n > u32::MAX as usize {
        return Err(VerifyError::invalid(
            "n",
            n,
            "kernels/qdot.cu counts the exponent histogram in 32 bits: at most 2^32 - 1 elements",
        ));
    }
    Ok(())
}

/// [`qdot_gpu`] on binary32 vectors (`config.input` must be fp32): the values
/// are widened to binary64 exactly on the host (the device reads them as
/// binary64; a binary32 load path is not written).
///
/// # Errors
/// As [`qdot_gpu`]; a configuration whose input is not fp32 is refused.
///
/// # Example
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::qdot::{config::*, gpu::qdot_gpu_f32};
/// use boundgate_verify::{VerifyError, format::Format};
/// let eps = Tolerance::new(1e-6).unwrap();
/// // A configuration for fp64 inputs is refused before any device is touched.
/// let fp64 = QdotConfig::new(Format::FP64).unwrap();
/// let err = qdot_gpu_f32(&[1.0], &[2.0], eps, &fp64).unwrap_err();
/// assert!(matches!(err, GpuError::Input(VerifyError::InvalidParameter { ref name, .. }) if name == "input"));
/// ```
///
/// On a device, as [`qdot_gpu`] on the widened values:
/// ```no_run
/// use boundgate::kernels::qdot::{config::*, gpu::{qdot_gpu, qdot_gpu_f32}};
/// use boundgate_verify::format::Format;
/// let (eps, c) = (Tolerance::new(1e-6).unwrap(), QdotConfig::new(Format::FP32).unwrap());
/// let x: Vec<f32> = (0..4096).map(|i| 1.0 / (1 + i % 13) as f32).collect();
/// let wide: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
/// let narrow = qdot_gpu_f32(&x, &x, eps, &c)?;
/// assert_eq!(narrow.value.to_bits(), qdot_gpu(&wide, &wide, eps, &c)?.value.to_bits());
/// # Ok::<(), boundgate::gpu::GpuError>(())
/// ```
pub fn qdot_gpu_f32(
    x: &[f32],
    y: &[f32],
    eps: Tolerance,
    config: &QdotConfig,
) -> Result<GpuQdot, GpuError> {
    if config.input != Format::FP32 {
        return Err(VerifyError::invalid(
            "input",
            config.input,
            "qdot_gpu_f32 needs a configuration with input fp32",
        )
        .into());
    }
    let wide = |v: &[f32]| v.iter().map(|&a| f64::from(a)).collect::<Vec<f64>>();
    qdot_gpu(&wide(x), &wide(y), eps, config)
}

fn run(x: &[f64], y: &[f64], eps: Tolerance, config: &QdotConfig) -> Result<GpuQdot, GpuError> {
    let dev = Device::open(&sources::QDOT)?;
    let inputs = Inputs::upload(&dev, x, y, config)?;
    let (selection, d_e) = select_on_device(&dev, &inputs, eps, config, true)?;
    let d_e = d_e.ok_or_else(|| GpuError::Internal("the exponents were not kept".into()))?;
    let mut exponents = dev.download(&d_e)?;
    exponents.truncate(inputs.n);
    let (value, tile_kernel) = compute_on_device(&dev, &inputs, &selection, config)?;
    Ok(GpuQdot {
        value,
        selection,
        exponents,
        tile_kernel,
    })
}

/// The operands on the device and what every phase needs to know of them.
struct Inputs {
    x: CudaSlice<f64>,
    y: CudaSlice<f64>,
    n: usize,
    fexp_paper: i32,
    fp32: bool,
}

impl Inputs {
    fn upload(dev: &Device, x: &[f64], y: &[f64], config: &QdotConfig) -> Result<Inputs, GpuError> {
        Ok(Inputs {
            x: dev.upload(x)?,
            y: dev.upload(y)?,
            n: x.len(),
            fexp_paper: i32::from(config.fexp == Fexp::Paper),
            fp32: config.input == Format::FP32,
        })
    }
}

/// Algorithm 3.2 on the device: the exponent histogram in one pass
/// (`qdot_exponents_f64`), the 4195 counts read back, and the host's
/// selection from them ([`select_from_histogram`], the CPU code). Returns the
/// selection and, when `keep_exponents`, the device's `e_i` (to compare with
/// the CPU's; the tile kernels recompute `e_i` from `x_i` and `y_i`, so the
/// timed selection writes none).
fn select_on_device(
    dev: &Device,
    inputs: &Inputs,
    eps: Tolerance,
    config: &QdotConfig,
    keep_exponents: bool,
) -> Result<(Selection, Option<CudaSlice<i16>>), GpuError> {
    let n = inputs.n;
    let n64 = n as u64;
    let mut d_e = if keep_exponents {
        Some(dev.zeros::<i16>(n)?)
    } else {
        None
    };
    let mut d_hist = dev.zeros::<u32>(HISTOGRAM_LEN)?;
    let exponents_fn = dev.function("qdot_exponents_f64")?;
    let blocks = n.div_ceil(256).clamp(1, 1024);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0, // the histogram is static shared memory
    };
    let null: u64 = 0;
    // SAFETY: the arguments match qdot_exponents_f64(const double*, const
    // double*, index_t, int, short*, unsigned int*); e has n entries or is
    // null (the kernel then writes none), hist 4195.
    unsafe {
        let mut builder = dev.stream.launch_builder(&exponents_fn);
        builder
            .arg(&inputs.x)
            .arg(&inputs.y)
            .arg(&n64)
            .arg(&inputs.fexp_paper);
        match d_e.as_mut() {
            Some(e) => builder.arg(e),
            None => builder.arg(&null),
        };
        builder
            .arg(&mut d_hist)
            .launch(cfg)
            .map_err(driver("launch qdot_exponents_f64"))?;
    }
    let hist: Vec<u64> = dev.download(&d_hist)?.into_iter().map(u64::from).collect();
    let binned: u64 = hist.iter().sum();
    // More binned products than indices is a kernel bug: a typed error, not
    // the overflow panic (or, in a release build, the wrapped count) of `n -
    // binned` it was until this review.
    let zeros = usize::try_from(binned)
        .ok()
        .and_then(|binned| n.checked_sub(binned))
        .ok_or_else(|| {
            GpuError::Internal(format!(
                "the device histogram counts {binned} nonzero products among {n} indices"
            ))
        })?;
    let selection = select_from_histogram(HISTOGRAM_FIRST, &hist, zeros, eps, config)?;
    Ok((selection, d_e))
}

/// Algorithm 3.1 on the device for a selection: the tile kernel, the tree of
/// partial sums per slot, and the finish (rescale and sum in ascending
/// exponent). Returns `z` (read back, so the call ends synchronised) and the
/// tile kernel that ran.
fn compute_on_device(
    dev: &Device,
    inputs: &Inputs,
    selection: &Selection,
    config: &QdotConfig,
) -> Result<(f64, Option<&'static str>), GpuError> {
    let (n, n64, fexp_paper, fp32) = (inputs.n, inputs.n as u64, inputs.fexp_paper, inputs.fp32);
    let (original_name, finish_name) = if fp32 {
        ("qdot_original_tiles_f32in", "qdot_finish_f32in")
    } else {
        ("qdot_original_tiles_f64", "qdot_finish_f64")
    };
    let order = TileOrder {
        n,
        tile: config.tile,
    };
    let (tile, tiles) = (order.tile_len() as u64, order.tiles());
    let interleaved = i32::from(config.layout == TileLayout::Interleaved);
    // Slots: the computed bins, ascending exponent (or the original kernel).
    let levels = config.levels();
    let (codes, slot_exponents, slot_of_bin, e_min, range): (
        Vec<i8>,
        Vec<i32>,
        Vec<i32>,
        i32,
        i32,
    ) = if selection.early_exit {
        // The original kernel's one slot, in the input's arithmetic.
        (vec![if fp32 { 1 } else { 0 }], vec![0], vec![-1], 0, 1)
    } else {
        let e_min = selection.e_min.unwrap_or(0);
        let range = selection.e_max.map_or(1, |hi| hi - e_min + 1);
        let mut slot_of_bin = vec![-1i32; range as usize];
        let (mut codes, mut exps) = (Vec::new(), Vec::new());
        for b in &selection.bins {
            if let Some(l) = b.level {
                slot_of_bin[(b.exponent - e_min) as usize] = codes.len() as i32;
                codes.push(code_of(levels[l].arithmetic).unwrap_or(0));
                exps.push(b.exponent);
            }
        }
        (codes, exps, slot_of_bin, e_min, range)
    };
    let slots = codes.len();
    if slots == 0 {
        // Every bin perforated (or every product zero): z = 0, as the CPU model.
        return Ok((0.0, None));
    }
    if slots > MAX_SLOTS {
        return Err(VerifyError::invalid(
            "bins",
            slots,
            format!("kernels/qdot.cu computes at most {MAX_SLOTS} bins per launch"),
        )
        .into());
    }
    let d_codes = dev.upload(&codes)?;
    let d_exps = dev.upload(&slot_exponents)?;
    // The launch and the partials per slot the tile kernel leaves: one per
    // tile after an early exit, one per block of tiles otherwise (both tile
    // kernels run the tree's first levels).
    let (launch, first_level) = if selection.early_exit {
        (grid(tiles, 128)?, tiles)
    } else {
        tile_launch(tiles_kernel(&codes) == "qdot_tiles_half2_f64", slots, tiles)?
    };
    // SAFETY: the tile kernels write every (slot, block) partial, the original
    // kernels every tile's (slots <= MAX_SLOTS was checked above).
    let mut partials = unsafe { dev.uninit::<f64>(slots * first_level) }?;
    let tiles64 = tiles as u64;
    // SAFETY: the argument lists match the kernels in kernels/qdot.cu; partials
    // holds slots x first_level values (one per tile, or per block of a tile
    // kernel, whose dynamic shared memory tile_launch sizes), slot_of_bin
    // `range` entries, codes `slots`.
    unsafe {
        if selection.early_exit {
            let f = dev.function(original_name)?;
            dev.stream
                .launch_builder(&f)
                .arg(&inputs.x)
                .arg(&inputs.y)
                .arg(&n64)
                .arg(&tile)
                .arg(&mut partials)
                .arg(&tiles64)
                .arg(&interleaved)
                .launch(launch)
                .map_err(driver("launch the original kernel"))?;
        } else {
            // Both tile kernels take the same arguments ([`tile_launch`]).
            let name = tiles_kernel(&codes);
            let f = dev.function(name)?;
            let d_slot_of_bin = dev.upload(&slot_of_bin)?;
            let slots32 = slots as i32;
            dev.stream
                .launch_builder(&f)
                .arg(&inputs.x)
                .arg(&inputs.y)
                .arg(&n64)
                .arg(&tile)
                .arg(&e_min)
                .arg(&range)
                .arg(&d_slot_of_bin)
                .arg(&d_codes)
                .arg(&slots32)
                .arg(&fexp_paper)
                .arg(&mut partials)
                .arg(&tiles64)
                .arg(&interleaved)
                .launch(launch)
                .map_err(driver("launch the tile kernel"))?;
        }
    }
    // The tree, level by level, ping-ponging between two buffers, from the
    // partials the tile kernel left.
    let tree_fn = dev.function("qdot_tree_level_f64")?;
    let slots32 = slots as i32;
    let mut m = first_level;
    let mut current = partials;
    while m > 1 {
        let m_out = m.div_ceil(2);
        // SAFETY: qdot_tree_level_f64 writes every (slot, i < m_out) value.
        let mut next = unsafe { dev.uninit::<f64>(slots * m_out) }?;
        let (m_in64, m_out64) = (m as u64, m_out as u64);
        // SAFETY: qdot_tree_level_f64(const double*, double*, index_t, index_t,
        // const signed char*, int); in has slots x m, out slots x m_out values.
        unsafe {
            dev.stream
                .launch_builder(&tree_fn)
                .arg(&current)
                .arg(&mut next)
                .arg(&m_in64)
                .arg(&m_out64)
                .arg(&d_codes)
                .arg(&slots32)
                .launch(grid(slots * m_out, 256)?)
                .map_err(driver("launch qdot_tree_level_f64"))?;
        }
        current = next;
        m = m_out;
    }
    let finish_fn = dev.function(finish_name)?;
    let mut d_out = dev.upload(&[f64::NAN])?;
    // SAFETY: qdot_finish_f64 and qdot_finish_f32in take (const double*,
    // const int*, int, double*); sums
    // holds one value per slot, out one value.
    unsafe {
        dev.stream
            .launch_builder(&finish_fn)
            .arg(&current)
            .arg(&d_exps)
            .arg(&slots32)
            .arg(&mut d_out)
            .launch(grid(1, 1)?)
            .map_err(driver("launch the finish kernel"))?;
    }
    let out = dev.download(&d_out)?;
    dev.stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize (kernel execution)"))?;
    let value = out
        .first()
        .copied()
        .ok_or_else(|| GpuError::Internal("the result buffer came back empty".into()))?;
    let tile_kernel = Some(if selection.early_exit {
        original_name
    } else {
        tiles_kernel(&codes)
    });
    Ok((value, tile_kernel))
}

/// Median wall-clock times of the GPU qdot's phases against cuBLAS on the
/// same device vectors, for the paper's metrics (Diffenderfer et al. 2021,
/// Sec. 2): approximation efficiency (2.5) `T(k) / (T(Theta) + T(k))` and
/// speedup (2.6) `T(k) / T(k~)`, with `k` = `cublasDdot` (the original
/// kernel), `Theta` = the selection and `k~` = the computation.
#[derive(Clone, Debug, PartialEq)]
pub struct QdotTiming {
    /// Vector length.
    pub n: usize,
    /// `T(Theta)`: exponents and histogram kernel, histogram read back, host
    /// selection (seconds).
    pub selection_s: f64,
    /// `T(k~)`: tile kernel, tree and finish, result read back (seconds).
    pub computation_s: f64,
    /// `T(k)`: `cublasDdot_v2` with the result left on the device, then a
    /// stream synchronisation (seconds).
    pub ddot_s: f64,
    /// The tile kernel that ran (None when every bin was perforated).
    pub tile_kernel: Option<&'static str>,
    /// How many bins were computed (slots).
    pub computed_bins: usize,
}

impl QdotTiming {
    /// Approximation efficiency, eq. (2.5): `T(k) / (T(Theta) + T(k))`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::gpu::QdotTiming;
    /// let t = QdotTiming { n: 1 << 20, selection_s: 0.75, computation_s: 0.125, ddot_s: 0.25, tile_kernel: None, computed_bins: 0 };
    /// // T(k) / (T(Theta) + T(k)) = 0.25 / (0.75 + 0.25)
    /// assert_eq!(t.efficiency(), 0.25);
    /// ```
    pub fn efficiency(&self) -> f64 {
        self.ddot_s / (self.selection_s + self.ddot_s)
    }

    /// Approximation speedup, eq. (2.6): `T(k) / T(k~)`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::qdot::gpu::QdotTiming;
    /// let t = QdotTiming { n: 1 << 20, selection_s: 0.75, computation_s: 0.125, ddot_s: 0.25, tile_kernel: None, computed_bins: 0 };
    /// // T(k) / T(k~) = 0.25 / 0.125: the computation alone is twice as fast as cuBLAS.
    /// assert_eq!(t.speedup(), 2.0);
    /// ```
    pub fn speedup(&self) -> f64 {
        self.ddot_s / self.computation_s
    }
}

/// Times [`qdot_gpu`]'s selection and computation phases and `cublasDdot` on
/// the same vectors (uploaded once, outside the timing): one untimed run of
/// each, then `repetitions` runs, each ended by a stream synchronisation and
/// timed on the host clock (the selection reads its histogram back to the
/// host, so host time is the honest measure; launch overheads are inside
/// every number alike). Reports the medians.
///
/// # Errors
/// As [`qdot_gpu`]; `repetitions = 0`; cuBLAS errors.
///
/// # Example
/// ```no_run
/// use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
/// use boundgate::kernels::qdot::gpu::time_qdot;
/// let x: Vec<f64> = (0..1_000_000).map(|i| 1.0 + (i % 97) as f64 / 97.0).collect();
/// let config = QdotConfig::new(boundgate_verify::format::Format::FP64).unwrap();
/// let t = time_qdot(&x, &x, Tolerance::new(1e-8).unwrap(), &config, 20).unwrap();
/// println!("efficiency {:.3}, speedup {:.2}", t.efficiency(), t.speedup());
/// ```
pub fn time_qdot(
    x: &[f64],
    y: &[f64],
    eps: Tolerance,
    config: &QdotConfig,
    repetitions: usize,
) -> Result<QdotTiming, GpuError> {
    require_repetitions(repetitions)?;
    if config.input != Format::FP64 {
        return Err(VerifyError::invalid(
            "input",
            config.input,
            "time_qdot compares with cublasDdot: binary64 inputs only",
        )
        .into());
    }
    require_same_len("x and y", x.len(), y.len())?;
    require_finite("x", x)?;
    require_finite("y", y)?;
    let n_int = i32::try_from(x.len())
        .map_err(|_| VerifyError::invalid("n", x.len(), "cublasDdot takes at most 2^31 - 1"))?;
    catch(|| {
        let dev = Device::open(&sources::QDOT)?;
        let inputs = Inputs::upload(&dev, x, y, config)?;
        let sync = || {
            dev.stream
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))
        };
        let timed = |f: &mut dyn FnMut() -> Result<(), GpuError>| -> Result<f64, GpuError> {
            median_seconds(repetitions, || {
                f()?;
                sync()
            })
            .map(|((), seconds)| seconds)
        };
        let (selection, _) = select_on_device(&dev, &inputs, eps, config, false)?;
        let selection_s =
            timed(&mut || select_on_device(&dev, &inputs, eps, config, false).map(|_| ()))?;
        let mut tile_kernel = None;
        let computation_s = timed(&mut || {
            tile_kernel = compute_on_device(&dev, &inputs, &selection, config)?.1;
            Ok(())
        })?;

        use crate::gpu::module::cublas_error;
        use cudarc::cublas::sys;
        use cudarc::driver::{DevicePtr, DevicePtrMut};
        // The result stays on the device, as qdot's partial sums do, so that
        // cuBLAS is not charged a blocking copy per call.
        let blas = dev.cublas(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)?;
        let mut d_result = dev.zeros::<f64>(1)?;
        let ddot_s = timed(&mut || {
            let (px, _rx) = inputs.x.device_ptr(&dev.stream);
            let (py, _ry) = inputs.y.device_ptr(&dev.stream);
            let (pr, _rr) = d_result.device_ptr_mut(&dev.stream);
            // SAFETY: x and y hold n doubles on this stream's device; the
            // result pointer is a device double (pointer mode DEVICE).
            unsafe {
                sys::cublasDdot_v2(
                    *blas.handle(),
                    n_int,
                    px as *const f64,
                    1,
                    py as *const f64,
                    1,
                    pr as *mut f64,
                )
            }
            .result()
            .map_err(cublas_error("cublasDdot_v2"))
        })?;
        Ok(QdotTiming {
            n: inputs.n,
            selection_s,
            computation_s,
            ddot_s,
            tile_kernel,
            computed_bins: selection.bins.iter().filter(|b| b.level.is_some()).count(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device's 32-bit histogram counts: lengths the CPU model refuses
    /// are refused here too, before the device (a 2^32-element input cannot
    /// be built in a test, so the check is tested on its own).
    #[test]
    fn lengths_beyond_the_32_bit_histogram_are_refused() {
        assert!(require_histogram_len(0).is_ok());
        assert!(require_histogram_len(u32::MAX as usize).is_ok());
        assert!(matches!(
            require_histogram_len(u32::MAX as usize + 1),
            Err(VerifyError::InvalidParameter { ref name, .. }) if name == "n"
        ));
    }
}
