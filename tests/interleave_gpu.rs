//! kernels/hotspot3d.cu on a GPU against the CPU model, bit for bit (the
//! order of kernels::interleave::stencil). Ignored without a GPU; passed on a
//! lent H100 on 2026-11-24 (docs/gpu/2026-11-24-h100.md).
#![cfg(feature = "cuda")]

use boundgate::kernels::interleave::gpu::{run_schedule, time_schedules};
use boundgate::kernels::interleave::grid::Grid3;
use boundgate::kernels::interleave::hotspot::HotSpot3D;
use boundgate::kernels::interleave::loss::accuracy_loss;
use boundgate::kernels::interleave::schedule::Schedule;
use boundgate::kernels::interleave::stencil::advance;
use boundgate::kernels::interleave::version::Version::{Float, Half, Looperf};

/// Every version on grids with 4, 2 and 1 layers (the kernels keep a
/// column's bottom, centre and top in registers: the first, last and only
/// layer are the edge cases) and odd widths (the fp16x2 kernel's unpaired
/// last cell).
#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn gpu_schedules_match_the_cpu_model_bit_for_bit() {
    for (nx, ny, nz) in [(67, 33, 4), (10, 6, 2), (9, 5, 1)] {
        let app = HotSpot3D::synthetic(Grid3::new(nx, ny, nz).unwrap(), 1).unwrap();
        let s = Schedule::new(40, vec![(0, Half), (9, Float), (17, Looperf), (30, Half)]).unwrap();
        let gpu = run_schedule(&app, &s).expect("a GPU");
        println!(
            "{nx}x{ny}x{nz}, {}: {:.4} ms, {} conversions",
            gpu.device, gpu.total_ms, gpu.conversions
        );
        assert_eq!(gpu.conversions, 3);
        let cpu: Vec<u32> = cpu_final(&app, &s).iter().map(|v| v.to_bits()).collect();
        let dev: Vec<u32> = gpu.state.iter().map(|v| v.to_bits()).collect();
        assert_eq!(cpu, dev, "{nx}x{ny}x{nz}");
    }
}

/// The CPU model's final state after `s`.
fn cpu_final(app: &HotSpot3D, s: &Schedule) -> Vec<f32> {
    let mut state = app.initial_state(s.version_at(1)).unwrap();
    let mut scratch = Vec::new();
    for i in 1..=s.iterations() {
        let v = s.version_at(i);
        state = state.converted(v, i - 1).unwrap();
        advance(app, v, &mut state, &mut scratch);
    }
    state.values
}

#[test]
#[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
fn timed_schedules_report_the_cpu_models_final_loss() {
    // The timing path reruns the buffers it allocated once: every run must
    // start from the initial state again, so each final loss against the
    // float run is exactly the CPU model's.
    let app = HotSpot3D::synthetic(Grid3::new(40, 24, 3).unwrap(), 2).unwrap();
    let schedules = [
        Schedule::single(30, Half).unwrap(),
        Schedule::new(30, vec![(0, Float), (7, Half), (19, Looperf)]).unwrap(),
    ];
    let t = time_schedules(&app, &schedules, 2).expect("a GPU");
    let float = cpu_final(&app, &Schedule::single(30, Float).unwrap());
    assert_eq!(t.float.final_loss.upper, 0.0);
    for (s, timing) in schedules.iter().zip(&t.schedules) {
        let cpu = accuracy_loss(&cpu_final(&app, s), &float).unwrap();
        assert_eq!(timing.final_loss, cpu, "{s:?}");
        assert_eq!(timing.runs_ms.len(), 2);
        assert!(timing.median_ms > 0.0);
    }
}
