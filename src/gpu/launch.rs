//! Launching `kernels/dot.cu` (feature `cuda`): copies in, two launches in the
//! documented geometry, one value out.

use super::dot::DotPrecision;
use super::session::{Session, driver, session};
use super::sources;
use super::tree_dot::TreeDotConfig;
use super::{GpuError, guard};
use cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};

/// Runs the two launches of the tree dot; returns the raw result, which may be
/// non-finite if an intermediate overflowed (the caller reports that).
pub(crate) fn dot(
    x: &[f64],
    y: &[f64],
    precision: DotPrecision,
    config: TreeDotConfig,
) -> Result<f64, GpuError> {
    let session = session()?;
    guard::catch(|| match precision {
        DotPrecision::Fp64 => run(session, Kernels::F64, x, y, config, |v| v, |a: f64| a),
        // Exact: the inputs were checked to be values of the storage format.
        DotPrecision::Fp32 => run(
            session,
            Kernels::F32,
            x,
            y,
            config,
            |v| v as f32,
            |a: f32| f64::from(a),
        ),
        // fp16 values are exact in f32, so neither conversion rounds (and `from_f64`,
        // which rounds twice on some CPUs, is avoided: docs/findings/half-crate.md).
        DotPrecision::Fp16Fp32 => run(
            session,
            Kernels::F16_F32,
            x,
            y,
            config,
            |v| half::f16::from_f32(v as f32).to_bits(),
            |a: f32| f64::from(a),
        ),
    })
}

/// The entry points of one precision: first launch, final launch.
struct Kernels {
    blocks: &'static str,
    last: &'static str,
}

impl Kernels {
    const F64: Kernels = Kernels {
        blocks: "dot_f64_blocks",
        last: "dot_f64_final",
    };
    const F32: Kernels = Kernels {
        blocks: "dot_f32_blocks",
        last: "dot_f32_final",
    };
    const F16_F32: Kernels = Kernels {
        blocks: "dot_f16_f32_blocks",
        last: "dot_f32_final",
    };
}

/// `I`: the storage type on the device; `A`: the accumulator type.
fn run<I: DeviceRepr, A: DeviceRepr + Copy + From<f32>>(
    session: &Session,
    kernels: Kernels,
    x: &[f64],
    y: &[f64],
    config: TreeDotConfig,
    to_storage: impl Fn(f64) -> I,
    to_f64: impl Fn(A) -> f64,
) -> Result<f64, GpuError> {
    let blocks_fn = session.function(&sources::DOT, kernels.blocks)?;
    let final_fn = session.function(&sources::DOT, kernels.last)?;
    let stream = session
        .context
        .new_stream()
        .map_err(driver("cuStreamCreate"))?;

    let xs: Vec<I> = x.iter().map(|&v| to_storage(v)).collect();
    let ys: Vec<I> = y.iter().map(|&v| to_storage(v)).collect();
    let d_x = stream
        .clone_htod(&xs)
        .map_err(driver("copy x to the device"))?;
    let d_y = stream
        .clone_htod(&ys)
        .map_err(driver("copy y to the device"))?;
    // Poisoned with NaN: a block result or output the kernels failed to write
    // shows up as NaN instead of a plausible zero.
    let poison = A::from(f32::NAN);
    let mut d_partials = stream
        .clone_htod(&vec![poison; config.blocks])
        .map_err(driver("allocate partials"))?;
    let mut d_out = stream
        .clone_htod(&[poison])
        .map_err(driver("allocate the output"))?;

    let n = x.len() as u64;
    let (threads, blocks, padded) = (
        config.threads_per_block,
        config.blocks,
        config.padded_blocks(),
    );
    let accumulator_bytes = std::mem::size_of::<A>();
    // All three are at most 1024 (TreeDotConfig::validate), so the casts are exact.
    let first = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (threads as u32, 1, 1),
        shared_mem_bytes: (threads * accumulator_bytes) as u32,
    };
    let last = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (padded as u32, 1, 1),
        shared_mem_bytes: (padded * accumulator_bytes) as u32,
    };
    let count = blocks as u32;
    // SAFETY: the argument lists match the kernels' signatures in kernels/dot.cu
    // (pointers to n inputs, u64 n, pointer to B partials; pointer to B
    // partials, u32 B, pointer to one output), the buffers have those sizes, and
    // the shared memory is what the kernels index (blockDim.x accumulators).
    unsafe {
        stream
            .launch_builder(&blocks_fn)
            .arg(&d_x)
            .arg(&d_y)
            .arg(&n)
            .arg(&mut d_partials)
            .launch(first)
            .map_err(driver(&format!("launch {}", kernels.blocks)))?;
        stream
            .launch_builder(&final_fn)
            .arg(&d_partials)
            .arg(&count)
            .arg(&mut d_out)
            .launch(last)
            .map_err(driver(&format!("launch {}", kernels.last)))?;
    }
    let out = stream
        .clone_dtoh(&d_out)
        .map_err(driver("copy the result back"))?;
    stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize (kernel execution)"))?;
    out.first()
        .map(|&value| to_f64(value))
        .ok_or_else(|| GpuError::Internal("the result buffer came back empty".into()))
}
