//! HotSpot3D schedules on the GPU (feature `cuda`): `kernels/hotspot3d.cu`
//! built by NVRTC for the device, the state converted on the device only
//! where the format changes, perforated launches skipped on the host, and
//! the kernels timed with CUDA events.
//!
//! The kernels follow the order of [`super::stencil`], so the final state is
//! compared bit for bit with the CPU model (tests/interleave_gpu.rs, ignored
//! without a GPU). Run on a lent H100 on 2026-11-24 (record
//! `docs/gpu/2026-11-24-h100.md`): the test's schedule matched the CPU model
//! bit for bit.
//!
//! [`time_schedules`] times whole schedules against the `float`-only run
//! (the thesis's speedup, Freytag 2023, §5.2: runtime of the exact kernel
//! over that of the schedule, conversions included) and measures the final
//! state's loss against the `float` run's; `benches/interleave_gpu.rs`
//! replays the schedules of `plans/interleave-gpu/` with it (H100,
//! 2026-11-26: docs/gpu/2026-11-26-h100.md).

use super::hotspot::HotSpot3D;
use super::loss::{LossMeasure, accuracy_loss};
use super::schedule::Schedule;
use super::version::Version;
use crate::gpu::module::driver;
use crate::gpu::sources::{self, KernelSource};
use crate::gpu::timing::{median, require_repetitions};
use crate::gpu::{GpuError, KernelModule};
use boundgate_verify::VerifyError;
use boundgate_verify::format::Format;
use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, sys};

/// The kernel source, embedded like the other `kernels/*.cu`.
pub const SOURCE: KernelSource = sources::HOTSPOT3D;

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
    /// Kernel time per iteration (ms), conversions included. A skipped
    /// perforated iteration launches no stencil: its entry times only its
    /// conversion, if any, else two back-to-back events (near 0, not exactly).
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

/// HotSpot3D on device 0: the module built once, the buffers allocated once,
/// so that schedules can be run (and timed) one after another.
pub struct GpuHotSpot {
    dev: KernelModule,
    f32_kernel: CudaFunction,
    f16_kernel: CudaFunction,
    to16: CudaFunction,
    to32: CudaFunction,
    initial: Vec<f32>,
    d_p32: CudaSlice<f32>,
    d_p16: CudaSlice<u16>,
    a32: CudaSlice<f32>,
    b32: CudaSlice<f32>,
    a16: CudaSlice<u16>,
    b16: CudaSlice<u16>,
    k32: Coefficients32,
    k16: Coefficients16,
    dims: (u32, u32, u32),
    cells: usize,
    /// [`HotSpot3D::half_power_overflow`]: schedules running `half` are refused.
    half_power_overflow: Option<(usize, f64)>,
}

/// Refuses a schedule that runs `half` on a problem with a power beyond
/// binary16's range (`overflow`, [`HotSpot3D::half_power_overflow`]): the
/// half kernel stores the powers in binary16, so the device would run on
/// infinite powers and return an infinite or NaN state without a sign, where
/// the CPU model ends the run ([`super::runner::Ending::PowerOverflow`]).
fn require_half_powers(
    overflow: Option<(usize, f64)>,
    schedule: &Schedule,
) -> Result<(), GpuError> {
    match overflow {
        Some((index, value)) if schedule.count(Version::Half) > 0 => Err(VerifyError::invalid(
            "power",
            format!("{value:e} (cell {index})"),
            "overflows binary16, where the half kernel stores the powers: a schedule running half cannot run on this problem",
        )
        .into()),
        _ => Ok(()),
    }
}

impl GpuHotSpot {
    /// Builds the kernels for device 0 and uploads `app`'s inputs.
    ///
    /// # Errors
    /// No device ([`crate::gpu::probe`] says why), an NVRTC or driver
    /// failure, bad problem data.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::interleave::{gpu::GpuHotSpot, grid::Grid3, hotspot::HotSpot3D,
    ///     schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(64, 32, 4).unwrap(), 1).unwrap();
    /// let mut gpu = GpuHotSpot::new(&app).expect("a GPU");
    /// // built once, run many times: every run starts again from the initial state
    /// let s = Schedule::new(20, vec![(0, Version::Half), (10, Version::Float)]).unwrap();
    /// let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    /// let first = bits(gpu.run(&s, false).unwrap().state);
    /// assert_eq!(bits(gpu.run(&s, false).unwrap().state), first);
    /// ```
    ///
    /// Bad problem data is refused before a device is looked for:
    /// ```
    /// use boundgate::gpu::GpuError;
    /// use boundgate::kernels::interleave::{gpu::GpuHotSpot, grid::Grid3, hotspot::HotSpot3D};
    /// // 1e39 is a finite binary64 temperature but overflows binary32
    /// let hot = HotSpot3D::new(Grid3::new(2, 1, 1).unwrap(), vec![1e39, 300.0], vec![1.0; 2]).unwrap();
    /// assert!(matches!(GpuHotSpot::new(&hot), Err(GpuError::Internal(_))));
    /// // A grid taller than CUDA's 65535 blocks of 8 rows is refused too.
    /// let tall = HotSpot3D::synthetic(Grid3::new(1, 8 * 65535 + 1, 1).unwrap(), 1).unwrap();
    /// assert!(matches!(GpuHotSpot::new(&tall), Err(GpuError::Unsupported(_))));
    /// ```
    pub fn new(app: &HotSpot3D) -> Result<GpuHotSpot, GpuError> {
        let initial = app
            .initial32()
            .map_err(|e| GpuError::Internal(e.to_string()))?;
        let grid = app.grid();
        // The stencils launch a block of 8 rows per grid `y` index, and CUDA
        // takes at most 65535 there: `Grid3` allows 1 x 2^28 x 1, whose
        // launch the driver refused only after the upload (review,
        // 2026-11-29). Refused here, before a device is looked for.
        crate::gpu::grid::check_grid(
            "HotSpot3D on the GPU",
            &format!(
                "{} x {} cells in blocks of 32 x 8 (ny <= 524280)",
                grid.nx(),
                grid.ny()
            ),
            (grid.nx().div_ceil(32), grid.ny().div_ceil(8)),
        )?;
        let dev = KernelModule::open(&SOURCE)?;
        let cells = grid.cells();
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
        let p16: Vec<u16> = app.power16().iter().map(|&v| bits16(v)).collect();
        Ok(GpuHotSpot {
            f32_kernel: dev.function("hotspot_f32")?,
            f16_kernel: dev.function("hotspot_f16x2")?,
            to16: dev.function("convert_f32_to_f16")?,
            to32: dev.function("convert_f16_to_f32")?,
            d_p32: dev.upload(app.power32())?,
            d_p16: dev.upload(&p16)?,
            a32: dev.zeros::<f32>(cells)?,
            b32: dev.zeros::<f32>(cells)?,
            a16: dev.zeros::<u16>(cells)?,
            b16: dev.zeros::<u16>(cells)?,
            dev,
            initial,
            k32,
            k16,
            dims: (grid.nx() as u32, grid.ny() as u32, grid.nz() as u32),
            cells,
            half_power_overflow: app.half_power_overflow(),
        })
    }

    /// The device, in words.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::interleave::{gpu::GpuHotSpot, grid::Grid3, hotspot::HotSpot3D,
    ///     schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(16, 16, 2).unwrap(), 1).unwrap();
    /// let mut gpu = GpuHotSpot::new(&app).expect("a GPU");
    /// let name = gpu.device(); // e.g. "NVIDIA H100 80GB HBM3 (sm_90, driver 13.0)"
    /// assert!(name.contains(" (sm_") && name.contains(", driver "));
    /// // every run names the device it ran on
    /// let s = Schedule::single(3, Version::Float).unwrap();
    /// assert_eq!(gpu.run(&s, false).unwrap().device, name);
    /// ```
    pub fn device(&self) -> String {
        let info = &self.dev.device;
        format!(
            "{} (sm_{}{}, driver {}.{})",
            info.name,
            info.compute_capability.0,
            info.compute_capability.1,
            info.driver_version.0,
            info.driver_version.1
        )
    }

    /// Runs `schedule` from the initial state. With `per_iteration`, every
    /// iteration is bracketed by CUDA events ([`GpuRun::iteration_ms`]);
    /// without, only the whole loop is (what [`time_schedules`] uses, so the
    /// events do not perturb the timing), and `iteration_ms` is empty.
    ///
    /// # Errors
    /// [`GpuError::Input`] for a schedule that runs `half` when a power of
    /// the problem overflows binary16 ([`HotSpot3D::half_power_overflow`]);
    /// driver failures. A schedule for another grid size is impossible (the
    /// schedule only counts iterations). A temperature that leaves binary16's
    /// range during a `half` iteration is not an error here: the state comes
    /// back as the device left it (infinite or NaN), where the CPU model ends
    /// the run ([`super::runner::Ending`]); [`time_schedules`] refuses such
    /// a state, and a caller comparing runs should check `state` too.
    ///
    /// # Example
    /// ```no_run
    /// use boundgate::kernels::interleave::{gpu::GpuHotSpot, grid::Grid3, hotspot::HotSpot3D,
    ///     schedule::Schedule, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(64, 32, 4).unwrap(), 1).unwrap();
    /// let mut gpu = GpuHotSpot::new(&app).expect("a GPU");
    /// // float data -> half at the start, half -> float at 6; float and looperf share binary32
    /// let s = Schedule::new(12, vec![(0, Version::Half), (6, Version::Float), (9, Version::Looperf)]).unwrap();
    /// let timed = gpu.run(&s, true).unwrap();
    /// assert_eq!((timed.conversions, timed.iteration_ms.len()), (2, 12));
    /// assert!(timed.total_ms > 0.0);
    /// let untimed = gpu.run(&s, false).unwrap();
    /// assert!(untimed.iteration_ms.is_empty());
    /// assert_eq!(untimed.state.len(), app.grid().cells());
    /// ```
    pub fn run(&mut self, schedule: &Schedule, per_iteration: bool) -> Result<GpuRun, GpuError> {
        let done = self.launch(schedule, per_iteration)?;
        Ok(GpuRun {
            state: self.final_state(done.half)?,
            iteration_ms: done.iteration_ms,
            total_ms: done.total_ms,
            conversions: done.conversions,
            device: self.device(),
        })
    }

    /// The launches of [`GpuHotSpot::run`], timed, without reading the state back.
    fn launch(&mut self, schedule: &Schedule, per_iteration: bool) -> Result<Launched, GpuError> {
        require_half_powers(self.half_power_overflow, schedule)?;
        let (nx, ny, nz) = self.dims;
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
            grid_dim: ((self.cells as u32).div_ceil(256), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let count = self.cells as u32;
        let stream = self.dev.stream.clone();
        stream
            .memcpy_htod(&self.initial, &mut self.a32)
            .map_err(driver("copy temp"))?;
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = stream
            .record_event(timing)
            .map_err(driver("cuEventRecord"))?;
        let mut half = false;
        let mut counter = 0u8;
        let mut conversions = 0;
        let mut iteration_ms = Vec::with_capacity(if per_iteration {
            schedule.iterations()
        } else {
            0
        });
        for i in 1..=schedule.iterations() {
            let version = schedule.version_at(i);
            let before = if per_iteration {
                Some(
                    stream
                        .record_event(timing)
                        .map_err(driver("cuEventRecord"))?,
                )
            } else {
                None
            };
            let want_half = version == Version::Half;
            // SAFETY (all launches): the argument lists match the kernels'
            // signatures in kernels/hotspot3d.cu, every buffer holds the grid's
            // n cells, and the launch geometry covers nx x ny (x2 for f16x2) or n.
            if want_half != half {
                conversions += 1;
                unsafe {
                    if want_half {
                        stream
                            .launch_builder(&self.to16)
                            .arg(&self.a32)
                            .arg(&mut self.a16)
                            .arg(&count)
                            .launch(linear)
                    } else {
                        stream
                            .launch_builder(&self.to32)
                            .arg(&self.a16)
                            .arg(&mut self.a32)
                            .arg(&count)
                            .launch(linear)
                    }
                }
                .map_err(driver("launch convert"))?;
                half = want_half;
            }
            // Rodinia's perforation: every sixth looperf iteration is skipped
            // (the order of super::stencil).
            let skip = version == Version::Looperf && {
                let s = counter == 5;
                counter = if s { 0 } else { counter + 1 };
                s
            };
            if !skip {
                unsafe {
                    if half {
                        stream
                            .launch_builder(&self.f16_kernel)
                            .arg(&self.d_p16)
                            .arg(&self.a16)
                            .arg(&mut self.b16)
                            .arg(&self.k16)
                            .arg(&nx)
                            .arg(&ny)
                            .arg(&nz)
                            .launch(stencil16)
                    } else {
                        stream
                            .launch_builder(&self.f32_kernel)
                            .arg(&self.d_p32)
                            .arg(&self.a32)
                            .arg(&mut self.b32)
                            .arg(&self.k32)
                            .arg(&nx)
                            .arg(&ny)
                            .arg(&nz)
                            .launch(stencil32)
                    }
                }
                .map_err(driver("launch hotspot"))?;
                if half {
                    std::mem::swap(&mut self.a16, &mut self.b16);
                } else {
                    std::mem::swap(&mut self.a32, &mut self.b32);
                }
            }
            if let Some(before) = before {
                let after = stream
                    .record_event(timing)
                    .map_err(driver("cuEventRecord"))?;
                iteration_ms.push(
                    before
                        .elapsed_ms(&after)
                        .map_err(driver("cuEventElapsedTime"))?,
                );
            }
        }
        let end = stream
            .record_event(timing)
            .map_err(driver("cuEventRecord"))?;
        let total_ms = start
            .elapsed_ms(&end)
            .map_err(driver("cuEventElapsedTime"))?;
        Ok(Launched {
            iteration_ms,
            total_ms,
            conversions,
            half,
        })
    }

    /// The current state as binary32 values (binary16 ones widened exactly):
    /// `a16` when the last kernel ran in half, else `a32`.
    fn final_state(&self, half: bool) -> Result<Vec<f32>, GpuError> {
        let stream = &self.dev.stream;
        let state = if half {
            let bits = stream.clone_dtoh(&self.a16).map_err(driver("copy back"))?;
            bits.iter()
                .map(|&b| {
                    Format::FP16
                        .decode(u64::from(b))
                        .map(|v| v as f32)
                        .unwrap_or(f32::NAN)
                })
                .collect()
        } else {
            stream.clone_dtoh(&self.a32).map_err(driver("copy back"))?
        };
        stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))?;
        Ok(state)
    }
}

/// What one launch sequence of a schedule did.
struct Launched {
    iteration_ms: Vec<f32>,
    total_ms: f32,
    conversions: usize,
    /// Whether the state ends in binary16.
    half: bool,
}

/// Runs `schedule` on `app` on device 0, every iteration timed.
///
/// # Errors
/// [`GpuError::Input`] for a schedule that runs `half` when a power of
/// `app` overflows binary16 ([`HotSpot3D::half_power_overflow`]; checked
/// before the device is touched); no device ([`crate::gpu::probe`] says
/// why), an NVRTC or driver failure.
///
/// # Example
/// ```no_run
/// use boundgate::kernels::interleave::{gpu::run_schedule, grid::Grid3, hotspot::HotSpot3D,
///     schedule::Schedule, stencil::advance, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(67, 33, 4).unwrap(), 1).unwrap();
/// let s = Schedule::new(30, vec![(0, Version::Half), (9, Version::Float), (17, Version::Looperf)]).unwrap();
/// let gpu = run_schedule(&app, &s).expect("a GPU");
/// // the CPU model of the same schedule, bit for bit
/// let (mut state, mut scratch) = (app.initial_state(s.version_at(1)).unwrap(), Vec::new());
/// for i in 1..=s.iterations() {
///     state = state.converted(s.version_at(i), i - 1).unwrap();
///     advance(&app, s.version_at(i), &mut state, &mut scratch);
/// }
/// let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
/// assert_eq!(bits(&gpu.state), bits(&state.values));
/// assert_eq!(gpu.iteration_ms.len(), 30); // every iteration timed
/// ```
///
/// A `half` schedule on powers beyond binary16's range is refused before a
/// device is looked for:
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::interleave::{gpu::run_schedule, grid::Grid3, hotspot::HotSpot3D,
///     schedule::Schedule, version::Version};
/// let app = HotSpot3D::new(Grid3::new(2, 1, 1).unwrap(), vec![300.0; 2], vec![1.0, 1e5]).unwrap();
/// let half = Schedule::single(4, Version::Half).unwrap();
/// assert!(matches!(run_schedule(&app, &half), Err(GpuError::Input(_))));
/// ```
pub fn run_schedule(app: &HotSpot3D, schedule: &Schedule) -> Result<GpuRun, GpuError> {
    require_half_powers(app.half_power_overflow(), schedule)?;
    GpuHotSpot::new(app)?.run(schedule, true)
}

/// One schedule's timing on the device.
#[derive(Clone, Debug)]
pub struct ScheduleTiming {
    /// Median of the timed runs (ms, CUDA events around the loop, conversions included).
    pub median_ms: f64,
    /// Every timed run (ms), in the order run.
    pub runs_ms: Vec<f64>,
    /// Conversions per run.
    pub conversions: usize,
    /// The `float` run's median over this one's (the thesis's speedup).
    pub speedup: f64,
    /// The final state's loss against the `float` run's final state (exact enclosure).
    pub final_loss: LossMeasure,
}

/// What [`time_schedules`] measured.
#[derive(Clone, Debug)]
pub struct ScheduleTimings {
    /// The device, in words.
    pub device: String,
    /// Timed runs per schedule.
    pub repetitions: usize,
    /// The `float`-only schedule (speedup 1, loss 0).
    pub float: ScheduleTiming,
    /// The given schedules, in order.
    pub schedules: Vec<ScheduleTiming>,
}

/// Times the `float`-only schedule and each of `schedules` on device 0: one
/// untimed run of each (its final state gives the loss), then `repetitions`
/// rounds in which every schedule runs once (round-robin, so that clock
/// drift affects all alike); medians.
///
/// # Errors
/// [`GpuError::Input`] for zero repetitions, schedules of differing
/// lengths, or one that runs `half` when a power of `app` overflows binary16
/// ([`HotSpot3D::half_power_overflow`]) (checked before the device is
/// touched); no device; driver
/// failures; a state that holds a NaN or an infinity ([`GpuError::Internal`]
/// with the loss's error).
///
/// # Example
/// ```no_run
/// use boundgate::kernels::interleave::{gpu::time_schedules, grid::Grid3, hotspot::HotSpot3D,
///     schedule::Schedule, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(128, 128, 8).unwrap(), 1).unwrap();
/// let half = Schedule::single(50, Version::Half).unwrap();
/// let t = time_schedules(&app, &[half], 3).expect("a GPU");
/// // the float run is the reference: speedup 1, loss 0
/// assert_eq!((t.float.speedup, t.float.final_loss.upper), (1.0, 0.0));
/// assert_eq!(t.schedules[0].runs_ms.len(), 3);
/// assert_eq!(t.schedules[0].speedup, t.float.median_ms / t.schedules[0].median_ms);
/// assert!(t.schedules[0].final_loss.lower > 0.0); // half rounds the state
/// ```
///
/// Bad arguments are refused before a device is looked for:
/// ```
/// use boundgate::gpu::GpuError;
/// use boundgate::kernels::interleave::{gpu::time_schedules, grid::Grid3, hotspot::HotSpot3D,
///     schedule::Schedule, version::Version};
/// let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
/// let (a, b) = (Schedule::single(10, Version::Half).unwrap(), Schedule::single(11, Version::Half).unwrap());
/// assert!(matches!(time_schedules(&app, &[a.clone()], 0), Err(GpuError::Input(_))));
/// assert!(matches!(time_schedules(&app, &[a, b], 3), Err(GpuError::Input(_))));
/// ```
pub fn time_schedules(
    app: &HotSpot3D,
    schedules: &[Schedule],
    repetitions: usize,
) -> Result<ScheduleTimings, GpuError> {
    require_repetitions(repetitions)?;
    let iterations = schedules.first().map_or(0, Schedule::iterations);
    if let Some(s) = schedules.iter().find(|s| s.iterations() != iterations) {
        return Err(VerifyError::invalid(
            "schedules",
            s.iterations(),
            format!("every schedule must have the same length ({iterations} iterations)"),
        )
        .into());
    }
    let overflow = app.half_power_overflow(); // a scan of every cell: once
    for s in schedules {
        require_half_powers(overflow, s)?;
    }
    let iterations = iterations.max(1);
    let float = Schedule::single(iterations, Version::Float)
        .map_err(|e| GpuError::Internal(e.to_string()))?;
    let mut gpu = GpuHotSpot::new(app)?;
    let all: Vec<&Schedule> = std::iter::once(&float).chain(schedules).collect();
    let mut first = Vec::with_capacity(all.len());
    for s in &all {
        first.push(gpu.run(s, false)?);
    }
    let mut runs = vec![Vec::with_capacity(repetitions); all.len()];
    for _ in 0..repetitions {
        for (s, times) in all.iter().zip(&mut runs) {
            // Only the time: the state was read in the untimed run.
            times.push(f64::from(gpu.launch(s, false)?.total_ms));
        }
    }
    let reference = &first[0].state;
    let float_ms = median(&runs[0]);
    let mut timings = first
        .iter()
        .zip(runs)
        .map(|(run, runs_ms)| {
            let median_ms = median(&runs_ms);
            Ok(ScheduleTiming {
                median_ms,
                runs_ms,
                conversions: run.conversions,
                speedup: float_ms / median_ms,
                final_loss: accuracy_loss(&run.state, reference)
                    .map_err(|e| GpuError::Internal(e.to_string()))?,
            })
        })
        .collect::<Result<Vec<_>, GpuError>>()?;
    let float = timings.remove(0);
    Ok(ScheduleTimings {
        device: gpu.device(),
        repetitions,
        float,
        schedules: timings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::interleave::grid::Grid3;

    #[test]
    fn timing_refuses_bad_input_before_touching_a_device() {
        let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
        let a = Schedule::single(10, Version::Half).unwrap();
        let b = Schedule::single(11, Version::Half).unwrap();
        assert!(matches!(
            time_schedules(&app, std::slice::from_ref(&a), 0),
            Err(GpuError::Input(_))
        ));
        assert!(matches!(
            time_schedules(&app, &[a, b], 3),
            Err(GpuError::Input(_))
        ));
    }

    #[test]
    fn half_schedules_on_powers_beyond_binary16_are_refused_before_touching_a_device() {
        // 1e5 > 65504: the half kernel would read an infinite power and
        // return an infinite state (the CPU model ends such a run).
        let grid = Grid3::new(2, 1, 1).unwrap();
        let app = HotSpot3D::new(grid, vec![300.0; 2], vec![1.0, 1e5]).unwrap();
        let mixed = Schedule::new(6, vec![(0, Version::Float), (3, Version::Half)]).unwrap();
        let float = Schedule::single(6, Version::Float).unwrap();
        assert!(matches!(
            run_schedule(&app, &mixed),
            Err(GpuError::Input(VerifyError::InvalidParameter { name, .. })) if name == "power"
        ));
        assert!(matches!(
            time_schedules(&app, &[float.clone(), mixed], 1),
            Err(GpuError::Input(VerifyError::InvalidParameter { name, .. })) if name == "power"
        ));
        // Schedules without half are not refused for it.
        assert_eq!(
            require_half_powers(app.half_power_overflow(), &float),
            Ok(())
        );
    }
}
