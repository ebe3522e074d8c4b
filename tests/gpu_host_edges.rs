//! The host side of the GPU path, on a machine without a GPU (these tests
//! need no device and run everywhere; where a device is present the ones
//! about a missing driver return early):
//! - validation before any device work: empty, mismatched, non-finite and
//!   unrepresentable inputs, formats and geometries the kernels lack, refused
//!   with typed errors;
//! - the `cuda` feature on a machine without a driver: every entry point
//!   answers with a typed error (never a panic), `auto` falls back to the
//!   CPU model;
//! - launch geometry and sizes: grids, partial counts and shared memory at
//!   n = 0, 1, non-multiples of the block, 2^31 and 2^32;
//! - what `machine_code::ptxas_report` reads from a real ptxas log (the
//!   guard of tests/nvrtc_compile.rs against stack frames and spills).

#![cfg(feature = "cuda")]

use boundgate::gpu::machine_code::ptxas_report;
use boundgate::gpu::tree_dot::TreeDotConfig;
use boundgate::gpu::{
    Backend, DotPrecision, GpuError, RanOn, dot, dot_with_config, probe, run_dot,
};
use boundgate::kernels::accessor::gpu::{AccessorGpu, GpuPair};
use boundgate::kernels::accessor::order::GridConfig;
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate::kernels::mpfma::gpu::{
    GemmKernel, LtSplitK, cublas_gemm_ex, cublaslt_matmul, gemm_on_device_with, time_gemm_with,
};
use boundgate::kernels::mpfma::record::{Arch, TcInput, TcOutput, TcRecord};
use boundgate::kernels::qdot::config::{QdotConfig, Tolerance};
use boundgate::kernels::qdot::gpu::{fused_block, fused_pairs_block, qdot_gpu, qdot_gpu_f32};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::qdot::Binning;
use boundgate_verify::format::{Format, RoundingMode};

/// A machine without a device (the tests about the missing driver skip
/// themselves elsewhere).
fn no_device() -> bool {
    !probe().is_available()
}

/// The errors a machine without a usable device may give: no driver, no
/// device behind it, or (with a driver but no NVRTC) no compiler.
fn is_no_device(e: &GpuError) -> bool {
    matches!(
        e,
        GpuError::NoDriver { .. }
            | GpuError::DriverTooOld { .. }
            | GpuError::Driver { .. }
            | GpuError::NoNvrtc { .. }
            | GpuError::NvrtcTooOld { .. }
    )
}

fn input_error(r: Result<impl std::fmt::Debug, GpuError>) -> VerifyError {
    match r {
        Err(GpuError::Input(e)) => e,
        other => panic!("expected a typed input error, got {other:?}"),
    }
}

// ------------------------------------------------------------ validation

#[test]
fn the_tree_dot_refuses_bad_input_before_looking_for_a_device() {
    for p in DotPrecision::ALL {
        assert!(matches!(
            input_error(dot(&[], &[], p)),
            VerifyError::Empty { .. }
        ));
        assert!(matches!(
            input_error(dot(&[1.0, 2.0], &[1.0], p)),
            VerifyError::LengthMismatch { .. }
        ));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                input_error(dot(&[1.0, bad], &[1.0, 1.0], p)),
                VerifyError::NonFinite { .. }
            ));
        }
    }
    // 2^-25 is an fp32 value but below fp16's subnormals; 0.1 is neither.
    assert!(matches!(
        input_error(dot(&[2f64.powi(-25)], &[1.0], DotPrecision::Fp16Fp32)),
        VerifyError::NotRepresentable { .. }
    ));
    assert!(matches!(
        input_error(dot(&[0.1], &[1.0], DotPrecision::Fp32)),
        VerifyError::NotRepresentable { .. }
    ));
    // Geometries the kernel cannot run: T not a power of two or above 1024,
    // B = 0 or above the final block's 1024 threads.
    for (t, b) in [(0, 1), (96, 1), (2048, 1), (256, 0), (256, 1025)] {
        let config = TreeDotConfig {
            threads_per_block: t,
            blocks: b,
        };
        assert!(matches!(
            input_error(dot_with_config(&[1.0], &[1.0], DotPrecision::Fp64, config)),
            VerifyError::InvalidParameter { .. }
        ));
    }
    // `gpu` checks the input before the device too.
    assert!(matches!(
        run_dot(&[1.0], &[f64::NAN], DotPrecision::Fp32, Backend::Gpu),
        Err(GpuError::Input(VerifyError::NonFinite { .. }))
    ));
}

#[test]
fn the_accessor_kernels_name_what_they_do_not_implement() {
    let refused = |spec: AccessorSpec, field: &str| match GpuPair::of(&spec) {
        Err(GpuError::Input(VerifyError::InvalidParameter { name, .. })) => {
            assert_eq!(name, field, "{spec:?}")
        }
        other => panic!("{spec:?}: {other:?}"),
    };
    for kind in [StorageKind::Int8, StorageKind::Int16] {
        if let Ok(spec) = AccessorSpec::new(kind, Format::FP64) {
            refused(spec, "storage");
        }
    }
    let mut ftz = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    ftz.ftz = true;
    refused(ftz, "ftz");
    for mode in [
        RoundingMode::TowardZero,
        RoundingMode::Up,
        RoundingMode::Down,
    ] {
        let mut spec = AccessorSpec::new(StorageKind::Bf16, Format::FP64).unwrap();
        spec.write_mode = mode;
        refused(spec, "write");
    }
    // Every pair the file instantiates is accepted.
    for (kind, arith) in [
        (StorageKind::Fp64, Format::FP64),
        (StorageKind::Fp32, Format::FP64),
        (StorageKind::Fp32, Format::FP32),
        (StorageKind::Fp16, Format::FP64),
        (StorageKind::Fp16, Format::FP32),
        (StorageKind::Bf16, Format::FP64),
        (StorageKind::Bf16, Format::FP32),
    ] {
        let pair = GpuPair::of(&AccessorSpec::new(kind, arith).unwrap()).unwrap();
        assert_eq!((pair.storage(), pair.arithmetic()), (kind, arith));
    }
}

#[test]
fn qdot_on_the_device_refuses_bad_input_before_the_device() {
    let eps = Tolerance::new(1e-8).unwrap();
    let fp64 = QdotConfig::new(Format::FP64).unwrap();
    assert!(matches!(
        input_error(qdot_gpu(&[1.0, 2.0], &[1.0], eps, &fp64)),
        VerifyError::LengthMismatch { .. }
    ));
    assert!(matches!(
        input_error(qdot_gpu(&[1.0], &[f64::INFINITY], eps, &fp64)),
        VerifyError::NonFinite { .. }
    ));
    let product = QdotConfig {
        binning: Binning::Product,
        ..fp64
    };
    assert!(matches!(
        input_error(qdot_gpu(&[1.0], &[1.0], eps, &product)),
        VerifyError::InvalidParameter { ref name, .. } if name == "binning"
    ));
    let fp32 = QdotConfig::new(Format::FP32).unwrap();
    assert!(matches!(
        input_error(qdot_gpu(&[0.1], &[1.0], eps, &fp32)),
        VerifyError::NotRepresentable { .. }
    ));
    assert!(matches!(
        input_error(qdot_gpu_f32(&[1.0], &[1.0], eps, &fp64)),
        VerifyError::InvalidParameter { ref name, .. } if name == "input"
    ));
}

#[test]
fn the_gemms_refuse_bad_shapes_before_the_device() {
    let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    for kernel in [
        GemmKernel::Simple,
        GemmKernel::Pipelined,
        GemmKernel::Wide,
        GemmKernel::Warpgroup,
    ] {
        let gemm =
            |a: &[f64], b: &[f64], shape| gemm_on_device_with(kernel, &record, a, b, None, shape);
        assert!(matches!(gemm(&[], &[], (0, 1, 1)), Err(GpuError::Input(_))));
        assert!(matches!(
            gemm(&[1.0], &[1.0, 2.0], (1, 1, 1)),
            Err(GpuError::Input(_))
        ));
        // Padded operands beyond the kernels' 32-bit offsets (65536 x 16 A is
        // fine; 65536 x 65536 D is not).
        let a = vec![0.0; 65_536];
        let b = vec![0.0; 65_536];
        assert!(matches!(
            gemm(&a, &b, (65_536, 1, 65_536)),
            Err(GpuError::Unsupported(_))
        ));
    }
    // cuBLAS: fp16 output only for fp16 inputs.
    assert!(matches!(
        cublaslt_matmul(
            TcInput::Bf16,
            &[1.0],
            &[1.0],
            (1, 1, 1),
            true,
            LtSplitK::Allowed
        ),
        Err(GpuError::Unsupported(_))
    ));
    assert!(matches!(
        cublas_gemm_ex(&[1.0, 2.0], &[1.0], (1, 1, 1), false),
        Err(GpuError::Input(_))
    ));
}

/// `m = 2^22` rows (`k = 1`, padded to 16; `t = 1`, padded to 64) passes the
/// kernels' offset check (a padded A of 2^26 elements, D of 2^28), but one
/// block per 64 rows is a grid of 65536 blocks in `y`, one more than CUDA
/// launches. Until this review that was found by `cuLaunchKernel`, after the
/// operands had been padded and uploaded (and here, without a device, the
/// missing driver was reported instead); now the shape is refused first.
#[test]
fn a_gemm_taller_than_the_grid_is_refused_before_the_device() {
    let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let m = 1 << 22;
    let a = vec![0.0; m];
    let refused = |r: Result<(), GpuError>| match r {
        Err(GpuError::Unsupported(text)) => assert!(text.contains("grid"), "{text}"),
        other => panic!("expected Unsupported (grid), got {other:?}"),
    };
    refused(
        gemm_on_device_with(GemmKernel::Simple, &record, &a, &[0.0], None, (m, 1, 1)).map(|_| ()),
    );
    // The timing path launches the same grid: (2^22, 16, 64) is whole tiles.
    refused(time_gemm_with(GemmKernel::Simple, (m, 16, 64), 1).map(|_| ()));
    // The wide kernel's blocks are 128 rows: 2^23 rows are 65536 of them.
    // (The wgmma kernel's 128-row blocks cannot get there: 2^23 rows of its
    // 256-wide D pass 2^31 elements, which the offset check refuses.)
    refused(time_gemm_with(GemmKernel::Wide, (1 << 23, 16, 128), 1).map(|_| ()));
}

// ------------------------------------------------- no driver: typed errors

#[test]
fn without_a_driver_every_entry_point_gives_a_typed_error() {
    if !no_device() {
        return;
    }
    let no_device_error = |what: &str, e: GpuError| {
        assert!(is_no_device(&e), "{what}: {e:?}");
    };
    for p in DotPrecision::ALL {
        no_device_error("dot", dot(&[1.0, 2.0], &[3.0, 4.0], p).unwrap_err());
        no_device_error(
            "run_dot gpu",
            run_dot(&[1.0], &[1.0], p, Backend::Gpu).unwrap_err(),
        );
        let auto = run_dot(&[1.0, 2.0], &[3.0, 4.0], p, Backend::Auto).unwrap();
        assert_eq!((auto.value, auto.ran_on), (11.0, RanOn::Cpu));
        assert!(auto.note.is_some());
    }
    no_device_error("AccessorGpu::open", AccessorGpu::open().err().unwrap());
    let eps = Tolerance::new(1e-8).unwrap();
    let fp64 = QdotConfig::new(Format::FP64).unwrap();
    no_device_error(
        "qdot_gpu",
        qdot_gpu(&[1.0, 0.5], &[2.0, 0.25], eps, &fp64).unwrap_err(),
    );
    // An empty qdot is valid input (z = 0 on the CPU): the device is still asked.
    no_device_error(
        "qdot_gpu (empty)",
        qdot_gpu(&[], &[], eps, &fp64).unwrap_err(),
    );
    let record = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    for kernel in [GemmKernel::Simple, GemmKernel::Wide, GemmKernel::Warpgroup] {
        no_device_error(
            "gemm_on_device_with",
            gemm_on_device_with(kernel, &record, &[1.0], &[1.0], Some(&[0.5]), (1, 1, 1))
                .unwrap_err(),
        );
    }
    no_device_error(
        "time_gemm_with",
        time_gemm_with(GemmKernel::Simple, (64, 16, 64), 1).unwrap_err(),
    );
    no_device_error(
        "cublas_gemm_ex",
        cublas_gemm_ex(&[1.0], &[1.0], (1, 1, 1), false).unwrap_err(),
    );
    no_device_error(
        "cublaslt_matmul",
        cublaslt_matmul(
            TcInput::Fp16,
            &[1.0],
            &[1.0],
            (1, 1, 1),
            false,
            LtSplitK::Allowed,
        )
        .unwrap_err(),
    );
}

#[test]
fn without_a_driver_the_accessor_backend_says_why() {
    use boundgate::kernels::Params;
    use boundgate::kernels::accessor::device::{Launch, ModelResults, run};
    use boundgate::kernels::registry;
    if !no_device() {
        return;
    }
    let kernel = registry::find("accessor-dot").unwrap();
    let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
    let (x, y) = ([1.0, 2.0], [3.0, 4.0]);
    let model = ModelResults {
        before_store: &[11.0],
        stored: Some(&[11.0]),
        inverses: &[],
    };
    let params = |backend: &str| Params::parse(kernel, &[format!("backend={backend}")]).unwrap();
    let auto = run(&params("auto"), &spec, Launch::Dot { x: &x, y: &y }, model).unwrap();
    assert_eq!(auto.on, RanOn::Cpu);
    assert!(auto.note.is_some());
    assert!(run(&params("gpu"), &spec, Launch::Dot { x: &x, y: &y }, model).is_err());
}

// ------------------------------------------------------ geometry, sizes

#[test]
fn the_dot_grids_hold_at_every_size() {
    // n = 0 is refused before any grid; from 1 to 2^32 + 1 the geometry is
    // always launchable and its partials fit the final block.
    for n in [
        1usize,
        2,
        255,
        256,
        257,
        1000,
        256 * 1024 - 1,
        256 * 1024,
        256 * 1024 + 1,
        (1 << 31) - 1,
        1 << 31,
        1 << 32,
        (1 << 32) + 1,
    ] {
        let tree = TreeDotConfig::for_gpu(n);
        tree.validate().unwrap();
        assert_eq!(tree.blocks, n.div_ceil(256).min(1024), "n = {n}");
        assert!(tree.padded_blocks() >= tree.blocks && tree.padded_blocks() <= 1024);
        // Every term is some thread's: threads x blocks x fmas covers n.
        let fmas = tree.depth(n) - 8 - u64::from(tree.padded_blocks().trailing_zeros());
        assert!(fmas as usize * 256 * tree.blocks >= n);
        let grid = GridConfig::for_len(n);
        assert_eq!(
            (grid.threads, grid.blocks),
            (256, n.div_ceil(256).min(1024))
        );
    }
}

#[test]
fn the_qdot_tile_blocks_fit_shared_memory_for_every_slot_count() {
    const SHARED: usize = 48 * 1024;
    for slots in 1..=128usize {
        let t = fused_block(slots) as usize;
        assert!(t.is_power_of_two() && (32..=256).contains(&t));
        assert!(slots * t * 8 <= SHARED, "{slots} slots x {t} threads");
        let p = fused_pairs_block(slots) as usize;
        assert!(p.is_power_of_two() && (16..=128).contains(&p));
        // Two binary64 and one fp16x2 word per pair and slot.
        assert!(slots * p * 20 <= SHARED, "{slots} slots x {p} pairs");
    }
}

// ------------------------------------------------------- ptxas reports

/// A ptxas `-v` log of two entries, `k1` calling a `__noinline__` function
/// with a local array (NVRTC 13.5, sm_90, as printed): the callee's
/// properties come after every entry.
const LOG_WITH_A_CALLEE: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 36.003 ms
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
ptxas         .     320 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 320 bytes cumulative stack size
ptxas info    : Compile time = 35.476 ms
ptxas info    : Function properties for _Z6calleePKdi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
";

/// Until this review the callee's `0 bytes stack frame` line overwrote the
/// entry compiled last, so `k1`'s 320-byte frame read as 0: the guard of
/// tests/nvrtc_compile.rs against local memory would have passed a kernel
/// with a `__noinline__` callee whatever its frame.
#[test]
fn ptxas_report_keeps_an_entrys_frame_when_a_callee_is_reported() {
    let report = ptxas_report(LOG_WITH_A_CALLEE);
    assert_eq!(report.len(), 2, "{report:?}");
    let k1 = report["k1"];
    assert_eq!(
        (k1.registers, k1.stack_bytes, k1.spill_bytes()),
        (32, 320, 12)
    );
    let k2 = report["k2"];
    assert_eq!((k2.registers, k2.stack_bytes, k2.spill_bytes()), (8, 0, 0));

    // The same with the log NVRTC prints here (where it is installed).
    use boundgate::gpu::nvrtc::{BuildOptions, Target, compile};
    let source = r#"
__device__ __noinline__ double callee(const double* a, int n) {
    double t[40];
    for (int i = 0; i < 40; ++i) t[i] = a[i % n];
    double s = 0;
    for (int i = 0; i < n; ++i) s += t[(i * 7) % 40];
    return s;
}
extern "C" __global__ void k1(double* o, const double* a, int n) { o[0] = callee(a, n); }
extern "C" __global__ void k2(double* o, const double* a, int n) { o[1] = a[n]; }
"#;
    let Ok(built) = compile(
        "callee.cu",
        source,
        &BuildOptions::new(Target::Cubin(9, 0)).with_ptxas_report(),
    ) else {
        return; // no NVRTC on this machine
    };
    let report = ptxas_report(&built.log);
    assert!(
        report["k1"].stack_bytes > 0,
        "k1 keeps a local array on its stack:\n{}",
        built.log
    );
    assert_eq!(report["k2"].stack_bytes, 0, "{}", built.log);
}

/// `gemm_on_device` converts its `f64` operands to the kernel's bit patterns;
/// those conversions are exact only on values of the formats. Until this
/// review 0.1 went to an fp16 GEMM as fp16(f32(0.1)) (two roundings) and a
/// C of 0.1 to an fp32 one as f32(0.1), so the device computed on other
/// operands than the caller's model; now they are refused before the device,
/// as the vendor calls refuse them.
#[test]
fn gemm_operands_outside_the_input_format_are_refused_before_the_device() {
    let fp16 = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp32).unwrap();
    let named = |r: Result<Vec<f64>, GpuError>, field: &str| match r {
        Err(GpuError::Input(VerifyError::InvalidParameter { name, .. })) => assert_eq!(name, field),
        other => panic!("expected {field} refused, got {other:?}"),
    };
    let gemm = |record: &TcRecord, a: &[f64], b: &[f64], c: Option<&[f64]>| {
        gemm_on_device_with(GemmKernel::Simple, record, a, b, c, (1, 2, 1))
    };
    named(gemm(&fp16, &[1.0, 0.1], &[1.0, 1.0], None), "A[1]");
    named(gemm(&fp16, &[1.0, 1.0], &[65_520.0, 1.0], None), "B[0]");
    named(gemm(&fp16, &[1.0, 1.0], &[1.0, 1.0], Some(&[0.1])), "C[0]");
    // An fp16 C of an fp16 accumulation; tf32 operands (10 fraction bits).
    let half = TcRecord::lookup(Arch::Sm90, TcInput::Fp16, TcOutput::Fp16).unwrap();
    named(
        gemm(
            &half,
            &[1.0, 1.0],
            &[1.0, 1.0],
            Some(&[1.0 + 2f64.powi(-11)]),
        ),
        "C[0]",
    );
    let tf32 = TcRecord::lookup(Arch::Sm90, TcInput::Tf32, TcOutput::Fp32).unwrap();
    named(
        gemm(&tf32, &[1.0 + 2f64.powi(-11), 1.0], &[1.0, 1.0], None),
        "A[0]",
    );
    // Values of the formats pass on to the device.
    if no_device() {
        let r = gemm(
            &tf32,
            &[1.0 + 2f64.powi(-10), 0.5],
            &[1.0, -2.0],
            Some(&[0.1f32 as f64]),
        );
        assert!(is_no_device(&r.unwrap_err()));
    }
}
