//! HotSpot3D schedules on the GPU (feature `cuda`): `kernels/hotspot3d.cu`
//! built by NVRTC for the device, the state converted on the device only
//! where the format changes, perforated launches skipped on the host, and
//! the kernels timed with CUDA events.
//!
//! The kernels follow the order of [`super::stencil`], so the final state is
//! compared bit for bit with the CPU model (tests/interleave_gpu.rs, ignored
//! without a GPU). Run on a lent H100 on 2026-11-24 (record
//! `docs/gpu/2026-11-24-h100.md`): the test's schedule matched the CPU model
//! bit for bit. No GPU speedup of a schedule has been measured.

use super::hotspot::HotSpot3D;
use super::schedule::Schedule;
use super::version::Version;
use crate::gpu::nvrtc::{BuildOptions, Target, compile};
use crate::gpu::{DeviceStatus, GpuError, probe};
use boundgate_verify::format::Format;
use cudarc::driver::{CudaContext, DeviceRepr, LaunchConfig, PushKernelArg, sys};

/// The CUDA source, embedded.
pub const SOURCE: &str = include_str!("../../../kernels/hotspot3d.cu");
/// Its name for NVRTC.
pub const PATH: &str = "kernels/hotspot3d.cu";

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Coefficients32 {
    cc: f32,
    cw: f32,
    ce: f32,
    cs: f32,
    cn: f32,
    cb: f32,
    ct: f32,
    sdc: f32,
    amb: f32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Coefficients16 {
    cc: u16,
    cw: u16,
    ce: u16,
    cs: u16,
    cn: u16,
    cb: u16,
    ct: u16,
    sdc: u16,
    amb: u16,
}

// SAFETY: plain-old-data structs laid out as the C structs of
// kernels/hotspot3d.cu (#[repr(C)], the same field types and order).
unsafe impl DeviceRepr for Coefficients32 {}
// SAFETY: as above.
unsafe impl DeviceRepr for Coefficients16 {}

/// What a schedule's run on the device produced.
#[derive(Clone, Debug)]
pub struct GpuRun {
    /// The final state, as binary32 values (binary16 ones widened exactly).
    pub state: Vec<f32>,
    /// Kernel time per iteration (ms; 0 for a skipped perforated one), conversions included.
    pub iteration_ms: Vec<f32>,
    /// Time of the whole loop (ms), from CUDA events.
    pub total_ms: f32,
    /// Conversions performed.
    pub conversions: usize,
    /// The device.
    pub device: String,
}

fn bits16(v: f32) -> u16 {
    Format::FP16
        .encode(f64::from(v))
        .map(|b| b as u16)
        .unwrap_or(0x7e00)
}

fn driver(call: &str) -> impl Fn(cudarc::driver::DriverError) -> GpuError + '_ {
    move |e| GpuError::Driver {
        call: call.to_string(),
        message: format!("{e:?}"),
    }
}

/// Runs `schedule` on `app` on device 0.
///
/// # Errors
/// No device ([`probe`] says why), an NVRTC or driver failure.
pub fn run_schedule(app: &HotSpot3D, schedule: &Schedule) -> Result<GpuRun, GpuError> {
    let info = match probe() {
        DeviceStatus::Available(info) => info,
        DeviceStatus::Unavailable { reason } => return Err(reason),
    };
    crate::gpu::nvrtc::version()?;
    let context = CudaContext::new(0).map_err(driver("open device 0"))?;
    let (major, minor) = info.compute_capability;
    let built = compile(
        PATH,
        SOURCE,
        &BuildOptions::new(Target::Cubin(major, minor)),
    )?;
    let module = context
        .load_module(built.to_module_image())
        .map_err(driver("cuModuleLoadData kernels/hotspot3d.cu"))?;
    let f32_kernel = module
        .load_function("hotspot_f32")
        .map_err(driver("load hotspot_f32"))?;
    let f16_kernel = module
        .load_function("hotspot_f16x2")
        .map_err(driver("load hotspot_f16x2"))?;
    let to16 = module
        .load_function("convert_f32_to_f16")
        .map_err(driver("load convert_f32_to_f16"))?;
    let to32 = module
        .load_function("convert_f16_to_f32")
        .map_err(driver("load convert_f16_to_f32"))?;
    let stream = context.new_stream().map_err(driver("cuStreamCreate"))?;

    let grid = app.grid();
    let n = grid.cells();
    let (nx, ny, nz) = (grid.nx() as u32, grid.ny() as u32, grid.nz() as u32);
    let k = app.coefficients32();
    let k32 = Coefficients32 {
        cc: k.cc,
        cw: k.cw,
        ce: k.ce,
        cs: k.cs,
        cn: k.cn,
        cb: k.cb,
        ct: k.ct,
        sdc: k.sdc,
        amb: k.amb,
    };
    let h = app.coefficients16();
    let k16 = Coefficients16 {
        cc: bits16(h.cc),
        cw: bits16(h.cw),
        ce: bits16(h.ce),
        cs: bits16(h.cs),
        cn: bits16(h.cn),
        cb: bits16(h.cb),
        ct: bits16(h.ct),
        sdc: bits16(h.sdc),
        amb: bits16(h.amb),
    };
    let initial = app
        .initial32()
        .map_err(|e| GpuError::Internal(e.to_string()))?;
    let p16: Vec<u16> = app.power16().iter().map(|&v| bits16(v)).collect();
    let d_p32 = stream
        .clone_htod(app.power32())
        .map_err(driver("copy power"))?;
    let d_p16 = stream.clone_htod(&p16).map_err(driver("copy power16"))?;
    let mut a32 = stream.clone_htod(&initial).map_err(driver("copy temp"))?;
    let mut b32 = stream.alloc_zeros::<f32>(n).map_err(driver("alloc"))?;
    let mut a16 = stream.alloc_zeros::<u16>(n).map_err(driver("alloc"))?;
    let mut b16 = stream.alloc_zeros::<u16>(n).map_err(driver("alloc"))?;

    let block = (32u32, 8u32, 1u32);
    let stencil32 = LaunchConfig {
        grid_dim: (nx.div_ceil(block.0), ny.div_ceil(block.1), 1),
        block_dim: block,
        shared_mem_bytes: 0,
    };
    let stencil16 = LaunchConfig {
        grid_dim: (nx.div_ceil(2).div_ceil(block.0), ny.div_ceil(block.1), 1),
        block_dim: block,
        shared_mem_bytes: 0,
    };
    let linear = LaunchConfig {
        grid_dim: ((n as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let count = n as u32;
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream
        .record_event(timing)
        .map_err(driver("cuEventRecord"))?;
    let mut half = false;
    let mut counter = 0u8;
    let mut conversions = 0;
    let mut iteration_ms = Vec::with_capacity(schedule.iterations());
    for i in 1..=schedule.iterations() {
        let version = schedule.version_at(i);
        let before = stream
            .record_event(timing)
            .map_err(driver("cuEventRecord"))?;
        let want_half = version == Version::Half;
        // SAFETY (all launches): the argument lists match the kernels'
        // signatures in kernels/hotspot3d.cu, every buffer holds the grid's
        // n cells, and the launch geometry covers nx x ny (x2 for f16x2) or n.
        if want_half != half {
            conversions += 1;
            unsafe {
                if want_half {
                    stream
                        .launch_builder(&to16)
                        .arg(&a32)
                        .arg(&mut a16)
                        .arg(&count)
                        .launch(linear)
                } else {
                    stream
                        .launch_builder(&to32)
                        .arg(&a16)
                        .arg(&mut a32)
                        .arg(&count)
                        .launch(linear)
                }
            }
            .map_err(driver("launch convert"))?;
            half = want_half;
        }
        let skip = version == Version::Looperf && {
            let s = counter == 5;
            counter = if s { 0 } else { counter + 1 };
            s
        };
        if !skip {
            unsafe {
                if half {
                    stream
                        .launch_builder(&f16_kernel)
                        .arg(&d_p16)
                        .arg(&a16)
                        .arg(&mut b16)
                        .arg(&k16)
                        .arg(&nx)
                        .arg(&ny)
                        .arg(&nz)
                        .launch(stencil16)
                } else {
                    stream
                        .launch_builder(&f32_kernel)
                        .arg(&d_p32)
                        .arg(&a32)
                        .arg(&mut b32)
                        .arg(&k32)
                        .arg(&nx)
                        .arg(&ny)
                        .arg(&nz)
                        .launch(stencil32)
                }
            }
            .map_err(driver("launch hotspot"))?;
            if half {
                std::mem::swap(&mut a16, &mut b16);
            } else {
                std::mem::swap(&mut a32, &mut b32);
            }
        }
        let after = stream
            .record_event(timing)
            .map_err(driver("cuEventRecord"))?;
        iteration_ms.push(
            before
                .elapsed_ms(&after)
                .map_err(driver("cuEventElapsedTime"))?,
        );
    }
    let end = stream
        .record_event(timing)
        .map_err(driver("cuEventRecord"))?;
    let total_ms = start
        .elapsed_ms(&end)
        .map_err(driver("cuEventElapsedTime"))?;
    let state = if half {
        let bits = stream.clone_dtoh(&a16).map_err(driver("copy back"))?;
        bits.iter()
            .map(|&b| {
                Format::FP16
                    .decode(u64::from(b))
                    .map(|v| v as f32)
                    .unwrap_or(f32::NAN)
            })
            .collect()
    } else {
        stream.clone_dtoh(&a32).map_err(driver("copy back"))?
    };
    stream
        .synchronize()
        .map_err(driver("cuStreamSynchronize"))?;
    Ok(GpuRun {
        state,
        iteration_ms,
        total_ms,
        conversions,
        device: format!(
            "{} (sm_{}{}, driver {}.{})",
            info.name, major, minor, info.driver_version.0, info.driver_version.1
        ),
    })
}
