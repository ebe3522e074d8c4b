//! `kernels/accessor_blas.cu` does exactly the arithmetic its CPU models
//! assume: its PTX has only round-to-nearest `fma`, `add`, `sub`, `mul`, `div`
//! (and exact negations and conversions), no flush-to-zero and no atomics, and
//! it defines every kernel for every storage/arithmetic pair. NVRTC needs no
//! GPU: run with
//! `eval "$(scripts/install-cuda-nvrtc.sh)" && cargo test --features cuda --test accessor_gpu`.
//! (tests/nvrtc_compile.rs also builds the file for sm_80/sm_90 with warnings
//! as errors.)

mod common;

#[cfg(feature = "cuda")]
mod with_nvrtc {
    use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
    use std::collections::BTreeSet;

    fn ptx() -> Option<String> {
        if !super::common::nvrtc::nvrtc_available() {
            return None;
        }
        // The source embedded in the library, as the launchers compile it:
        // a path fixed at build time is not there on the device, which runs
        // the staged binary from another checkout (review, 2026-11-26).
        let kernel = boundgate::gpu::sources::ACCESSOR_BLAS;
        let built = nvrtc::compile(
            kernel.path,
            kernel.source,
            &BuildOptions::new(Target::Ptx(9, 0)).strict(),
        )
        .expect("compiles");
        Some(String::from_utf8_lossy(&built.image).into_owned())
    }

    /// No atomic takes part in a sum (results must not depend on scheduling):
    /// the only atomics are the pipelined TRSV's integer counters (its
    /// tickets and the count of block rows published), which order the work.
    #[test]
    fn ptx_has_only_round_to_nearest_arithmetic_and_atomics_only_on_counters() {
        let Some(ptx) = ptx() else { return };
        let mut arithmetic = BTreeSet::new();
        let mut entry = String::new();
        let mut counters = 0;
        for line in ptx.lines() {
            if let Some(rest) = line.split(".entry ").nth(1) {
                entry = rest
                    .split('(')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
            }
            let Some(op) = line.split_whitespace().next() else {
                continue;
            };
            if op.starts_with("atom") || op.starts_with("red.") {
                assert!(
                    entry.starts_with("accessor_trsv_rows_") && op.ends_with(".add.u32"),
                    "atomic outside the TRSV counters, in {entry}: {line}"
                );
                counters += 1;
            }
            assert!(!op.contains(".ftz"), "flush-to-zero: {line}");
            let float_op = op.ends_with(".f32") || op.ends_with(".f64");
            if float_op
                && ["fma", "add", "sub", "mul", "div"]
                    .iter()
                    .any(|a| op.starts_with(a))
            {
                arithmetic.insert(op.to_string());
            }
        }
        let allowed: BTreeSet<String> = [
            "fma.rn.f32",
            "fma.rn.f64",
            "add.rn.f32",
            "add.rn.f64",
            "sub.rn.f32",
            "sub.rn.f64",
            "mul.rn.f32",
            "mul.rn.f64",
            "div.rn.f32",
            "div.rn.f64",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let extra: Vec<_> = arithmetic.difference(&allowed).collect();
        assert!(extra.is_empty(), "unexpected arithmetic: {extra:?}");
        assert!(arithmetic.contains("fma.rn.f64") && arithmetic.contains("fma.rn.f32"));
        // Two per pair (take a ticket, publish a block row), seven pairs.
        assert_eq!(counters, 14, "the TRSV counters' atomics");
    }

    #[test]
    fn every_kernel_exists_for_every_pair() {
        let Some(ptx) = ptx() else { return };
        let kernels = [
            "dot_blocks",
            "dot_final",
            "axpy",
            "gemv_n",
            "gemv_t",
            "spmv_csr",
            "spmv_ell",
            "spmv_csr_stream",
            "trsv_invert",
            "trsv_solve",
            "trsv_rows",
        ];
        let pairs = [
            ("f64", "f64"),
            ("f32", "f64"),
            ("f32", "f32"),
            ("f16", "f64"),
            ("f16", "f32"),
            ("bf16", "f64"),
            ("bf16", "f32"),
        ];
        for k in kernels {
            for (s, a) in pairs {
                let name = format!(".entry accessor_{k}_{s}_{a}(");
                assert!(ptx.contains(&name), "{name} missing");
            }
        }
    }
}

/// What can be checked of the launchers without a device: the pairs they
/// accept, and that opening without one is a typed error, never a panic.
#[cfg(feature = "cuda")]
mod launchers {
    use boundgate::kernels::accessor::gpu::{AccessorGpu, GpuPair};
    use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    use boundgate_verify::format::{Format, RoundingMode};

    #[test]
    fn every_valid_float_pair_has_kernels_and_nothing_else_does() {
        let mut accepted = Vec::new();
        for storage in StorageKind::ALL {
            for arithmetic in [Format::FP64, Format::FP32] {
                let Ok(spec) = AccessorSpec::new(storage, arithmetic) else {
                    continue;
                };
                match GpuPair::of(&spec) {
                    Ok(pair) => {
                        assert_eq!(pair.storage(), storage);
                        assert_eq!(pair.arithmetic(), arithmetic);
                        accepted.push(pair.suffix());
                    }
                    Err(e) => {
                        assert!(storage.float_format().is_none(), "{spec:?}: {e}");
                        assert!(e.to_string().contains("storage"), "{e}");
                    }
                }
            }
        }
        accepted.sort_unstable();
        assert_eq!(
            accepted,
            [
                "bf16_f32", "bf16_f64", "f16_f32", "f16_f64", "f32_f32", "f32_f64", "f64_f64"
            ]
        );
    }

    #[test]
    fn write_modes_and_ftz_the_kernels_lack_are_refused() {
        let base = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
        let rtz = AccessorSpec {
            write_mode: RoundingMode::TowardZero,
            ..base
        };
        assert!(GpuPair::of(&rtz).unwrap_err().to_string().contains("write"));
        let ftz = AccessorSpec { ftz: true, ..base };
        assert!(GpuPair::of(&ftz).unwrap_err().to_string().contains("ftz"));
        // A spec built around `new` is validated again.
        let narrowing = AccessorSpec {
            storage: StorageKind::Fp64,
            ..base
        };
        assert!(GpuPair::of(&narrowing).is_err());
    }

    #[test]
    fn opening_without_a_device_is_an_error_not_a_panic() {
        match AccessorGpu::open() {
            Ok(_) => println!("a device is present: opened"),
            Err(e) => {
                println!("no device: {e}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

/// On the device (`--ignored`): every kernel bit for bit against its CPU model
/// on random inputs (fixed seeds, printed), and the rigorous bound against the
/// exact oracle on the GPU's output. The same cases run without a device with
/// the CPU model standing in for the GPU (`*_hold_for_the_cpu_model`), so
/// that the checks themselves are known to pass: on the device only a GPU
/// result that differs from its model can fail them.
#[cfg(feature = "cuda")]
mod device {
    use boundgate::generate::Distribution;
    use boundgate::kernels::accessor::accuracy::lu_factors;
    use boundgate::kernels::accessor::dot::accessor_dot;
    use boundgate::kernels::accessor::gemv::{GemvOp, accessor_gemv};
    use boundgate::kernels::accessor::gpu::{
        AccessorGpu, GpuDot, GpuTrsv, GpuVector, TrsvSchedule, Workload,
    };
    use boundgate::kernels::accessor::sparse::CsrMatrix;
    use boundgate::kernels::accessor::spmv::{SparseFormat, accessor_spmv, spmv_errors};
    use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    use boundgate::kernels::accessor::trsv::{
        TRSV_CHAIN_WAYS, accessor_trsv, accessor_trsv_ordered, trsv_errors,
    };
    use boundgate_verify::check::check;
    use boundgate_verify::format::Format;
    use boundgate_verify::oracle::trsv::{Diag, Triangular, Uplo, backward_error};
    use boundgate_verify::oracle::{self, ExactOp, Gemv, Matrix, Transpose};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// What computes the kernels: the GPU, or the CPU model standing in for it.
    trait Device {
        fn dot(&self, spec: &AccessorSpec, x: &[f64], y: &[f64]) -> Result<GpuDot, String>;
        fn gemv(
            &self,
            spec: &AccessorSpec,
            op: GemvOp,
            a: &[f64],
            shape: (usize, usize),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String>;
        #[allow(clippy::too_many_arguments)]
        fn spmv(
            &self,
            spec: &AccessorSpec,
            a: &CsrMatrix,
            format: SparseFormat,
            scalars: (f64, f64),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String>;
        #[allow(clippy::too_many_arguments)]
        fn trsv(
            &self,
            spec: &AccessorSpec,
            a: &[f64],
            n: usize,
            b: &[f64],
            uplo: Uplo,
            diag: Diag,
            schedule: TrsvSchedule,
        ) -> Result<GpuTrsv, String>;
        /// The TRSV schedules worth running: both on the device; one for the
        /// model, which computes the same values for either.
        fn trsv_schedules(&self) -> &'static [TrsvSchedule];
        /// The FMA chains of the TRSV's products with the inverses: the
        /// device's tuning (`TRSV_CHAIN_WAYS`), the one knob that changes an
        /// order, so the model the results must equal is built with it.
        fn trsv_chain_ways(&self) -> usize;
    }

    impl Device for AccessorGpu {
        fn dot(&self, spec: &AccessorSpec, x: &[f64], y: &[f64]) -> Result<GpuDot, String> {
            AccessorGpu::dot(self, spec, x, y).map_err(|e| e.to_string())
        }
        fn gemv(
            &self,
            spec: &AccessorSpec,
            op: GemvOp,
            a: &[f64],
            shape: (usize, usize),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String> {
            AccessorGpu::gemv(self, spec, op, a, shape, x, y).map_err(|e| e.to_string())
        }
        fn spmv(
            &self,
            spec: &AccessorSpec,
            a: &CsrMatrix,
            format: SparseFormat,
            scalars: (f64, f64),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String> {
            AccessorGpu::spmv(self, spec, a, format, scalars, x, y).map_err(|e| e.to_string())
        }
        fn trsv(
            &self,
            spec: &AccessorSpec,
            a: &[f64],
            n: usize,
            b: &[f64],
            uplo: Uplo,
            diag: Diag,
            schedule: TrsvSchedule,
        ) -> Result<GpuTrsv, String> {
            AccessorGpu::trsv_scheduled(self, spec, a, n, b, (uplo, diag), schedule)
                .map_err(|e| e.to_string())
        }
        fn trsv_schedules(&self) -> &'static [TrsvSchedule] {
            &[TrsvSchedule::Pipelined, TrsvSchedule::OneBlock]
        }
        fn trsv_chain_ways(&self) -> usize {
            self.tuning().trsv_chain_ways()
        }
    }

    /// The CPU models, returning what the launchers return.
    struct CpuModel;

    impl Device for CpuModel {
        fn dot(&self, spec: &AccessorSpec, x: &[f64], y: &[f64]) -> Result<GpuDot, String> {
            let c = accessor_dot(spec, x, y, true).map_err(|e| e.to_string())?;
            Ok(GpuDot {
                before_store: c.before_store,
                output: c.output,
                config: c.config,
            })
        }
        fn gemv(
            &self,
            spec: &AccessorSpec,
            op: GemvOp,
            a: &[f64],
            shape: (usize, usize),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String> {
            let c = accessor_gemv(spec, op, a, shape, x, y, true).map_err(|e| e.to_string())?;
            Ok(GpuVector {
                before_store: c.before_store,
                output: c.output,
            })
        }
        fn spmv(
            &self,
            spec: &AccessorSpec,
            a: &CsrMatrix,
            format: SparseFormat,
            scalars: (f64, f64),
            x: &[f64],
            y: Option<&[f64]>,
        ) -> Result<GpuVector, String> {
            let c =
                accessor_spmv(spec, a, format, scalars, x, y, true).map_err(|e| e.to_string())?;
            Ok(GpuVector {
                before_store: c.before_store,
                output: c.output,
            })
        }
        fn trsv(
            &self,
            spec: &AccessorSpec,
            a: &[f64],
            n: usize,
            b: &[f64],
            uplo: Uplo,
            diag: Diag,
            // Both schedules compute the model's values in its order.
            _schedule: TrsvSchedule,
        ) -> Result<GpuTrsv, String> {
            let c = accessor_trsv(spec, a, n, b, uplo, diag, true).map_err(|e| e.to_string())?;
            Ok(GpuTrsv {
                inverses: c.inverses,
                before_store: c.before_store,
                output: c.output,
            })
        }
        fn trsv_schedules(&self) -> &'static [TrsvSchedule] {
            &[TrsvSchedule::Pipelined]
        }
        fn trsv_chain_ways(&self) -> usize {
            TRSV_CHAIN_WAYS
        }
    }

    /// Every pair the kernel file instantiates.
    fn specs() -> Vec<AccessorSpec> {
        [
            (StorageKind::Fp64, Format::FP64),
            (StorageKind::Fp32, Format::FP64),
            (StorageKind::Fp32, Format::FP32),
            (StorageKind::Fp16, Format::FP64),
            (StorageKind::Fp16, Format::FP32),
            (StorageKind::Bf16, Format::FP64),
            (StorageKind::Bf16, Format::FP32),
        ]
        .into_iter()
        .map(|(s, a)| AccessorSpec::new(s, a).unwrap())
        .collect()
    }

    fn label(spec: &AccessorSpec) -> String {
        format!("{}/{}", spec.storage.name(), spec.arithmetic.name())
    }

    /// The distributions, U[-1,1] and N(0,1).
    const DISTRIBUTIONS: [Distribution; 2] = [
        Distribution::Uniform {
            low: -1.0,
            high: 1.0,
        },
        Distribution::Normal {
            mean: 0.0,
            std_dev: 1.0,
        },
    ];

    fn sample(d: &Distribution, seed: u64, stream: u64, len: usize) -> Vec<f64> {
        d.sample(seed, stream, len).expect("valid distribution")
    }

    fn open() -> AccessorGpu {
        AccessorGpu::open().unwrap_or_else(|e| {
            panic!("needs an NVIDIA GPU: run with --ignored on the device: {e}")
        })
    }

    /// Bit for bit, except that a NaN matches any NaN: IEEE 754 leaves the
    /// payload of an invalid operation's default NaN to the implementation,
    /// and the two differ (x86 SSE gives the negative quiet NaN
    /// 0xFFF8000000000000; NVIDIA GPUs the canonical binary32 NaN 0x7FFFFFFF,
    /// which widens to 0x7FFFFFFFE0000000). Seen on the H100 on an LU-factor
    /// system whose fp32 solve overflows (trsv n=257 Upper Unit, inf - inf);
    /// where the NaNs are must still agree.
    fn same_bits(device: &[f64], model: &[f64], what: &str) {
        assert_eq!(device.len(), model.len(), "{what}: lengths");
        for (i, (g, c)) in device.iter().zip(model).enumerate() {
            if g.is_nan() && c.is_nan() {
                continue;
            }
            assert_eq!(
                g.to_bits(),
                c.to_bits(),
                "{what}: element {i}: device {g:e} vs CPU model {c:e}"
            );
        }
    }

    fn dot_cases(dev: &impl Device) {
        let seed = 0xd07_6e0;
        println!("seed {seed:#x}");
        // 300_000 > 256 x 1024: several terms per thread of the grid.
        for (stream, n) in [1usize, 5, 31, 256, 257, 1000, 70_000, 300_000]
            .into_iter()
            .enumerate()
        {
            for d in &DISTRIBUTIONS {
                let x = sample(d, seed, 2 * stream as u64, n);
                let y = sample(d, seed, 2 * stream as u64 + 1, n);
                let exact = oracle::dot(&x, &y).unwrap();
                for spec in specs() {
                    let what = format!("dot n={n} {} {}", d.label(), label(&spec));
                    let cpu = accessor_dot(&spec, &x, &y, true).unwrap();
                    let g = dev.dot(&spec, &x, &y).unwrap();
                    assert_eq!(g.config, cpu.config, "{what}");
                    same_bits(&[g.before_store], &[cpu.before_store], &what);
                    same_bits(&[g.output], &[cpu.output], &what);
                    let verdict =
                        check(&[exact.error_of(g.output)], cpu.rigorous(&x, &y, true)).unwrap();
                    assert!(verdict.is_pass(), "{what}: {:?}", verdict.outcome);
                }
            }
        }
    }

    fn gemv_cases(dev: &impl Device) {
        let seed = 0x6e_7700;
        println!("seed {seed:#x}");
        let shapes = [
            (1, 1),
            (3, 70),
            (70, 3),
            (33, 64),
            (64, 33),
            (100, 257),
            (300, 200),
            // Transposed: several 8-row batches per thread of the 32 groups.
            (1000, 40),
            // Transposed: each group's rows staged 32 at a time (x converted once per warp
            // for the pairs whose storage is not their arithmetic) three times, the last
            // partial; 33 columns: a second block whose lanes past column 32 read column 32.
            (2100, 33),
        ];
        for (stream, (m, n)) in shapes.into_iter().enumerate() {
            let d = &DISTRIBUTIONS[stream % 2];
            let a = sample(d, seed, 3 * stream as u64, m * n);
            for trans in [Transpose::No, Transpose::Yes] {
                let (inner, outer) = match trans {
                    Transpose::No => (n, m),
                    Transpose::Yes => (m, n),
                };
                let x = sample(d, seed, 3 * stream as u64 + 1, inner);
                let y = sample(d, seed, 3 * stream as u64 + 2, outer);
                // alpha = 0: BLAS leaves the sum unused (`blas_epilogue`).
                for (alpha, beta) in [(1.0, 0.0), (-0.5, 2.0), (3.0, -1.0), (0.0, 2.0), (0.0, 0.0)]
                {
                    let op = GemvOp { alpha, beta, trans };
                    let y_in = (beta != 0.0).then_some(y.as_slice());
                    let exact =
                        Gemv::new(alpha, Matrix::new(m, n, &a).unwrap(), trans, &x, beta, y_in)
                            .unwrap();
                    for spec in specs() {
                        let what = format!(
                            "gemv {m}x{n} {trans:?} alpha={alpha} beta={beta} {} {}",
                            d.label(),
                            label(&spec)
                        );
                        let cpu = accessor_gemv(&spec, op, &a, (m, n), &x, y_in, true).unwrap();
                        let g = dev.gemv(&spec, op, &a, (m, n), &x, y_in).unwrap();
                        same_bits(&g.before_store, &cpu.before_store, &what);
                        same_bits(&g.output, &cpu.output, &what);
                        let verdict = check(
                            &exact.errors(&g.output).unwrap(),
                            cpu.rigorous(&a, &x, y_in, true),
                        )
                        .unwrap();
                        assert!(verdict.is_pass(), "{what}: {:?}", verdict.outcome);
                    }
                }
            }
        }
    }

    /// A random sparse matrix: density `p`, one row longer than a warp,
    /// some empty rows, repeated columns kept as separate entries.
    fn sparse(rng: &mut ChaCha8Rng, rows: usize, cols: usize, p: f64) -> CsrMatrix {
        let mut triplets = Vec::new();
        for i in 0..rows {
            if i % 7 == 3 {
                continue; // an empty row
            }
            let long = i == rows / 2;
            for j in 0..cols {
                if long || rng.random_bool(p) {
                    triplets.push((i, j, rng.random_range(-1.0..1.0)));
                }
            }
            if i % 11 == 5 {
                triplets.push((i, 0, rng.random_range(-1.0..1.0)));
            }
        }
        CsrMatrix::from_triplets(rows, cols, &triplets).unwrap()
    }

    fn spmv_cases(dev: &impl Device) {
        let seed = 0x5b_3700;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Rows longer than a warp (each lane chains several entries) and row
        // counts that are not multiples of the CSR kernel's 4 rows per warp;
        // for the CSR-stream kernel (256 rows per block, chunks of 2048
        // entries at its default batch, 256 at batch 1), blocks of several
        // chunks with rows across their edges (1000 x 100) and long rows
        // (row rows / 2 is full) over two chunks (5 x 3000) and over three,
        // in the second of three blocks (600 x 5000).
        for (rows, cols, p) in [
            (1, 1, 1.0),
            (40, 30, 0.2),
            (300, 500, 0.02),
            (1000, 100, 0.1),
            (70, 200, 0.5),
            (5, 3000, 0.05),
            (600, 5000, 0.002),
        ] {
            let a = sparse(&mut rng, rows, cols, p);
            let x: Vec<f64> = (0..cols).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f64> = (0..rows).map(|_| rng.random_range(-1.0..1.0)).collect();
            for format in SparseFormat::ALL {
                for scalars in [(1.0, 0.0), (-0.5, 2.0), (0.0, 2.0)] {
                    let y_in = (scalars.1 != 0.0).then_some(y.as_slice());
                    for spec in specs() {
                        let what = format!(
                            "spmv {rows}x{cols} nnz={} {format:?} {scalars:?} {}",
                            a.nnz(),
                            label(&spec)
                        );
                        let cpu =
                            accessor_spmv(&spec, &a, format, scalars, &x, y_in, true).unwrap();
                        let g = dev.spmv(&spec, &a, format, scalars, &x, y_in).unwrap();
                        same_bits(&g.before_store, &cpu.before_store, &what);
                        same_bits(&g.output, &cpu.output, &what);
                        let verdict = check(
                            &spmv_errors(&a, scalars, &x, y_in, &g.output).unwrap(),
                            cpu.rigorous(&a, &x, y_in, true),
                        )
                        .unwrap();
                        assert!(verdict.is_pass(), "{what}: {:?}", verdict.outcome);
                    }
                }
            }
        }
    }

    /// A triangular system: diagonally dominant (`lu = false`) or the factor
    /// of an LU with partial pivoting of a random matrix, as the paper's
    /// experiments use.
    fn system(rng: &mut ChaCha8Rng, n: usize, uplo: Uplo, lu: bool) -> Vec<f64> {
        if lu {
            let m: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let (l, u) = lu_factors(&m, n);
            return match uplo {
                Uplo::Lower => l,
                Uplo::Upper => u,
            };
        }
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = if i == j {
                    let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                    sign * rng.random_range(1.0..2.0)
                } else {
                    rng.random_range(-1.0..1.0) / n as f64
                };
            }
        }
        a
    }

    fn trsv_cases(dev: &impl Device) {
        let seed = 0x7_25f0;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for n in [1usize, 5, 31, 32, 33, 100, 257] {
            for uplo in [Uplo::Lower, Uplo::Upper] {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    for lu in [false, true] {
                        let a = system(&mut rng, n, uplo, lu);
                        let b: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                        for spec in specs() {
                            for &schedule in dev.trsv_schedules() {
                                let what = format!(
                                    "trsv n={n} {uplo:?} {diag:?} lu={lu} {} {schedule:?}",
                                    label(&spec)
                                );
                                let case = (uplo, diag, lu, schedule);
                                trsv_case(dev, &spec, (&a, n, &b), case, &what);
                            }
                        }
                    }
                }
            }
        }
    }

    fn trsv_case(
        dev: &impl Device,
        spec: &AccessorSpec,
        (a, n, b): (&[f64], usize, &[f64]),
        (uplo, diag, lu, schedule): (Uplo, Diag, bool, TrsvSchedule),
        what: &str,
    ) {
        let ways = dev.trsv_chain_ways();
        let Ok(cpu) = accessor_trsv_ordered(spec, a, n, b, (uplo, diag), true, ways) else {
            // A diagonal entry that underflows the storage format: both refuse.
            assert!(
                dev.trsv(spec, a, n, b, uplo, diag, schedule).is_err(),
                "{what}"
            );
            return;
        };
        let g = dev.trsv(spec, a, n, b, uplo, diag, schedule).unwrap();
        assert_eq!(g.inverses.len(), cpu.inverses.len(), "{what}");
        for (k, (gy, cy)) in g.inverses.iter().zip(&cpu.inverses).enumerate() {
            same_bits(gy, cy, &format!("{what}: inverse of block {k}"));
        }
        same_bits(&g.before_store, &cpu.before_store, what);
        same_bits(&g.output, &cpu.output, what);
        // Forward errors of the stored solution: never a violation; a pass on
        // the diagonally dominant systems (LU factors of random matrices may
        // leave a hypothesis unmet).
        let errors = trsv_errors(a, n, b, uplo, diag, &g.output).unwrap();
        let verdict = check(&errors, cpu.rigorous(a, b, true)).unwrap();
        assert!(!verdict.is_violation(), "{what}: {:?}", verdict.outcome);
        if !lu {
            assert!(verdict.is_pass(), "{what}: {:?}", verdict.outcome);
        }
        // Normwise backward error of the solution before the store, on the
        // stored system, against the rigorous bound.
        let finite = g.before_store.iter().all(|v| v.is_finite());
        if let (Ok(bound), true) = (cpu.normwise_backward_bound(), finite) {
            let t = Triangular::new(Matrix::new(n, n, &cpu.stored.0.values).unwrap(), uplo, diag)
                .unwrap();
            let be = backward_error(&t, &cpu.stored.1.values, &g.before_store).unwrap();
            assert!(
                be.normwise_inf <= bound.value,
                "{what}: backward error {:e} > bound {:e}",
                be.normwise_inf,
                bound.value
            );
        } else {
            assert!(lu, "{what}: no backward bound on a dominant system");
        }
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn dot_equals_its_cpu_model_and_stays_in_the_rigorous_bound() {
        dot_cases(&open());
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn gemv_equals_its_cpu_model_and_stays_in_the_rigorous_bound() {
        gemv_cases(&open());
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn spmv_equals_its_cpu_model_and_stays_in_the_rigorous_bound() {
        spmv_cases(&open());
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn trsv_equals_its_cpu_model_and_stays_in_the_rigorous_bounds() {
        trsv_cases(&open());
    }

    /// `cases` on the kernels built with every tuning knob at the low end of
    /// its range, then at the high end (`AccessorTuning::extremes`).
    fn at_either_end_of_every_knob(cases: impl Fn(&AccessorGpu)) {
        use boundgate::kernels::accessor::gpu::tuning::AccessorTuning;
        for tuning in AccessorTuning::extremes() {
            println!("tuning {tuning}");
            let gpu = AccessorGpu::open_tuned(tuning).unwrap_or_else(|e| {
                panic!("needs an NVIDIA GPU: run with --ignored on the device: {e}")
            });
            cases(&gpu);
        }
    }

    // The tuning knobs change the speed, never the bits
    // (`kernels::accessor::gpu::tuning`): with every knob at the low end of
    // its range, then at the high end (CSR_GROUPS_PER_WARP = 1024: a few
    // warps each taking many row groups grid-stride; CSR_PIPELINE_DEPTH 1 and
    // 3; CSR_STREAM_BATCH 1 and 8; TRSV_STAGE_X and TRSV_Y_REGISTERS 0 and 1;
    // DOT_BATCH 2 and 16; TRSV_CHAIN_WAYS 1 and 8, each against the model of
    // its order), every kernel still equals its CPU model bit for bit and
    // stays in its bounds, in the cases the default kernels pass. One test per
    // kernel family (until 2026-11-28 one for all, over 64 s on the H200), so
    // that a device call can run the one its change touches; the filter
    // `every_tuning_knob` still runs all three.

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn every_tuning_knob_at_either_end_keeps_the_cpu_models_bits_in_dot_and_gemv() {
        at_either_end_of_every_knob(|gpu| {
            dot_cases(gpu);
            gemv_cases(gpu);
        });
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn every_tuning_knob_at_either_end_keeps_the_cpu_models_bits_in_spmv() {
        at_either_end_of_every_knob(spmv_cases);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn every_tuning_knob_at_either_end_keeps_the_cpu_models_bits_in_trsv() {
        at_either_end_of_every_knob(trsv_cases);
    }

    /// The pipelined solve with warp 0's rows of each block's inverse in
    /// registers (`TRSV_Y_REGISTERS=1`, written without a device on
    /// 2026-11-28, not the default): the same words in the same order, so the
    /// model's bits in every case. A test of its own, matched by `device::trsv`,
    /// so that memcheck and racecheck run this setting too (block row 0 reads
    /// its rows after a barrier of its own, which racecheck can see).
    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn trsv_with_the_inverse_rows_in_registers_equals_its_cpu_model() {
        use boundgate::kernels::accessor::gpu::tuning::AccessorTuning;
        let tuning: AccessorTuning = "TRSV_Y_REGISTERS=1".parse().expect("a valid setting");
        let gpu = AccessorGpu::open_tuned(tuning).unwrap_or_else(|e| {
            panic!("needs an NVIDIA GPU: run with --ignored on the device: {e}")
        });
        trsv_cases(&gpu);
    }

    /// The pipelined solve with more block rows than the device holds at once:
    /// n = 17 000 is 532 block rows, and `accessor_trsv_rows_f32_f64` (58
    /// registers x 256 threads on sm_90, NVRTC 13) fits 4 blocks per SM, 528
    /// on an H100's or H200's 132 SMs. The later blocks start only as earlier
    /// ones finish; the ticket order keeps every waiting block behind one that
    /// runs (a hang here is a scheduling bug), and the results must still be
    /// the model's bit for bit.
    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn trsv_with_more_block_rows_than_fit_at_once_equals_its_cpu_model() {
        let gpu = open();
        let seed = 0x7_25f1;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 17_000;
        let a = system(&mut rng, n, Uplo::Lower, false);
        let b: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
        let cpu = accessor_trsv(&spec, &a, n, &b, Uplo::Lower, Diag::NonUnit, true).unwrap();
        let g = gpu
            .trsv_scheduled(
                &spec,
                &a,
                n,
                &b,
                (Uplo::Lower, Diag::NonUnit),
                TrsvSchedule::Pipelined,
            )
            .unwrap();
        let what = format!("trsv n={n} pipelined");
        same_bits(&g.before_store, &cpu.before_store, &what);
        same_bits(&g.output, &cpu.output, &what);
    }

    /// The CPU roofline kernel (`roofline::accessor_kernel`, typed per pair)
    /// on `x` stored through `spec`: the stored outputs as `f64` (padded to a
    /// multiple of its lanes, cropped).
    fn roofline_model(spec: &AccessorSpec, x: &[f64], k: usize) -> Vec<f64> {
        use boundgate::kernels::accessor::arith::Arith;
        use boundgate::kernels::accessor::native::StorageType;
        use boundgate::kernels::accessor::roofline::{LANES, accessor_kernel};
        fn typed<S: StorageType, Ar: Arith>(x: &[f64], k: usize) -> Vec<f64> {
            let padded = x.len().div_ceil(LANES) * LANES;
            let mut xs: Vec<S> = x.iter().map(|&v| S::from_f64(v)).collect();
            xs.resize(padded, S::default());
            let mut ys = vec![S::default(); padded];
            accessor_kernel::<S, Ar>(&xs, &mut ys, k);
            ys[..x.len()].iter().map(|v| v.to_f64()).collect()
        }
        match (spec.storage, spec.arithmetic == Format::FP64) {
            (StorageKind::Fp64, _) => typed::<f64, f64>(x, k),
            (StorageKind::Fp32, true) => typed::<f32, f64>(x, k),
            (StorageKind::Fp32, false) => typed::<f32, f32>(x, k),
            (StorageKind::Fp16, true) => typed::<half::f16, f64>(x, k),
            (StorageKind::Fp16, false) => typed::<half::f16, f32>(x, k),
            (StorageKind::Bf16, true) => typed::<half::bf16, f64>(x, k),
            (StorageKind::Bf16, false) => typed::<half::bf16, f32>(x, k),
            (other, _) => panic!("no roofline model for {other:?}"),
        }
    }

    /// The GPU roofline kernel (issue 4, item 5) equals the CPU one bit for
    /// bit for every pair, several FLOPs per value and sizes beyond one grid
    /// (the grid-stride loop).
    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn roofline_equals_its_cpu_model_bit_for_bit() {
        let gpu = open();
        let seed = 0x600f;
        println!("seed {seed:#x}");
        for (stream, n) in [1usize, 7, 1000, 300_000].into_iter().enumerate() {
            let x = sample(&DISTRIBUTIONS[stream % 2], seed, stream as u64, n);
            for spec in specs() {
                for k in [0, 1, 3, 64] {
                    let what = format!("roofline n={n} k={k} {}", label(&spec));
                    let g = gpu.roofline(&spec, &x, k).unwrap();
                    same_bits(&g, &roofline_model(&spec, &x, k), &what);
                }
            }
        }
    }

    /// With `k = 0` the model is the accessor's round trip (store, read,
    /// store): the stored input, for every pair.
    #[test]
    fn the_roofline_model_with_no_flops_is_the_stored_input() {
        let x = sample(&DISTRIBUTIONS[1], 0x600f, 9, 100);
        for spec in specs() {
            let stored = spec.for_data(&x).unwrap().store(&x).unwrap().values;
            same_bits(&roofline_model(&spec, &x, 0), &stored, &label(&spec));
        }
    }

    #[test]
    fn dot_cases_hold_for_the_cpu_model() {
        dot_cases(&CpuModel);
    }

    #[test]
    fn gemv_cases_hold_for_the_cpu_model() {
        gemv_cases(&CpuModel);
    }

    #[test]
    fn spmv_cases_hold_for_the_cpu_model() {
        spmv_cases(&CpuModel);
    }

    #[test]
    fn trsv_cases_hold_for_the_cpu_model() {
        trsv_cases(&CpuModel);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn launchers_refuse_bad_input_with_typed_errors() {
        let gpu = open();
        let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
        assert!(gpu.dot(&spec, &[], &[]).is_err());
        assert!(gpu.dot(&spec, &[1.0], &[1.0, 2.0]).is_err());
        let op = GemvOp {
            alpha: 1.0,
            beta: 1.0,
            trans: Transpose::No,
        };
        // beta != 0 without y; then a shape mismatch.
        assert!(
            gpu.gemv(&spec, op, &[1.0; 4], (2, 2), &[1.0; 2], None)
                .is_err()
        );
        let plain = GemvOp::PLAIN;
        assert!(
            gpu.gemv(&spec, plain, &[1.0; 4], (2, 2), &[1.0; 3], None)
                .is_err()
        );
        // alpha not a number of the fp32 arithmetic.
        let f32_spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
        let odd = GemvOp {
            alpha: 0.1,
            ..GemvOp::PLAIN
        };
        assert!(
            gpu.gemv(&f32_spec, odd, &[1.0; 4], (2, 2), &[1.0; 2], None)
                .is_err()
        );
        // Singular: a zero on the diagonal as given, and one as stored in fp16.
        let (lower, non_unit) = (Uplo::Lower, Diag::NonUnit);
        let b = [2.0, 9.0];
        let singular = gpu.trsv(&spec, &[0.0, 0.0, 1.0, 4.0], 2, &b, lower, non_unit);
        assert!(singular.unwrap_err().to_string().contains("singular"));
        let underflow = gpu.trsv(&f32_spec, &[1e-30, 0.0, 1.0, 4.0], 2, &b, lower, non_unit);
        assert!(underflow.unwrap_err().to_string().contains("singular"));
        let int8 = AccessorSpec::new(StorageKind::Int8, Format::FP64).unwrap();
        assert!(gpu.dot(&int8, &[1.0], &[1.0]).is_err());
        // An empty output launches nothing and returns nothing.
        let empty = gpu
            .gemv(&spec, plain, &[], (0, 3), &[1.0; 3], None)
            .unwrap();
        assert!(empty.output.is_empty() && empty.before_store.is_empty());
    }

    /// `boundgate run accessor-{dot,gemv,spmv,trsv} --param backend=gpu` end
    /// to end (the `Kernel` API the CLI and the audit call): each ran on the
    /// device, its results equal to the model's (checked inside the run,
    /// which errs otherwise), and the rigorous bound passes on the device's
    /// output; integer storage is refused under `gpu` and falls back under
    /// `auto`, naming the storage; TRSV with one and eight chains runs a
    /// kernel built with that order.
    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn the_kernels_with_backend_gpu_run_on_the_device_and_pass() {
        use boundgate::io::Tensor;
        use boundgate::kernels::{Inputs, Params, registry};
        open();
        let seed = 0x7_25f2;
        println!("seed {seed:#x}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 70;
        let a = system(&mut rng, n, Uplo::Lower, false);
        let v: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (a, v) = (Tensor::matrix(n, n, a).unwrap(), Tensor::vector(v));
        let cases: [(&str, [(&str, &Tensor); 2]); 4] = [
            ("accessor-dot", [("x", &v), ("y", &v)]),
            ("accessor-gemv", [("a", &a), ("x", &v)]),
            ("accessor-spmv", [("a", &a), ("x", &v)]),
            ("accessor-trsv", [("a", &a), ("b", &v)]),
        ];
        for (name, operands) in cases {
            let kernel = registry::find(name).unwrap();
            let mut inputs = Inputs::new();
            for (key, t) in operands {
                inputs.insert(key.to_string(), t.clone());
            }
            for (backend, storage) in [("gpu", "fp32"), ("gpu", "fp16"), ("auto", "int8")] {
                let pairs = [format!("backend={backend}"), format!("storage={storage}")];
                let params = Params::parse(kernel, &pairs).unwrap();
                let run = kernel
                    .run(&inputs, &params)
                    .unwrap_or_else(|e| panic!("{name} {pairs:?}: {e}"));
                let ran_on = run.details["ran_on"].as_str().unwrap().to_string();
                println!("{name} {pairs:?}: ran on {ran_on}");
                if storage == "int8" {
                    assert!(ran_on.starts_with("cpu model ("), "{ran_on}");
                    assert!(ran_on.contains("storage"), "{ran_on}");
                } else {
                    assert!(ran_on.starts_with("gpu ("), "{name} {pairs:?}: {ran_on}");
                }
                let verdicts = run.verdicts().unwrap();
                assert!(
                    verdicts[0].verdict.is_pass(),
                    "{name} {pairs:?}: {:?}",
                    verdicts[0].verdict
                );
            }
            let refused = ["backend=gpu".to_string(), "storage=int8".to_string()];
            let params = Params::parse(kernel, &refused).unwrap();
            let e = kernel.run(&inputs, &params).unwrap_err().to_string();
            assert!(e.contains("storage"), "{name}: {e}");
        }
        // TRSV in another order than the default: the device built with the same
        // TRSV_CHAIN_WAYS, its results the model's in that order.
        let kernel = registry::find("accessor-trsv").unwrap();
        let mut inputs = Inputs::new();
        inputs.insert("a".to_string(), a.clone());
        inputs.insert("b".to_string(), v.clone());
        for ways in [1, 8] {
            let pairs = ["backend=gpu".to_string(), format!("chain_ways={ways}")];
            let params = Params::parse(kernel, &pairs).unwrap();
            let run = kernel
                .run(&inputs, &params)
                .unwrap_or_else(|e| panic!("accessor-trsv {pairs:?}: {e}"));
            assert_eq!(run.details["chain_ways"], ways);
            let ran_on = run.details["ran_on"].as_str().unwrap();
            assert!(ran_on.starts_with("gpu ("), "{pairs:?}: {ran_on}");
            assert!(run.verdicts().unwrap()[0].verdict.is_pass(), "{pairs:?}");
        }
        // SpMV with the CSR-stream kernel (sparse=csr_stream): its own entry
        // point on the device, ELL's order in the model.
        let kernel = registry::find("accessor-spmv").unwrap();
        let mut inputs = Inputs::new();
        inputs.insert("a".to_string(), a);
        inputs.insert("x".to_string(), v);
        let pairs = ["backend=gpu".to_string(), "sparse=csr_stream".to_string()];
        let params = Params::parse(kernel, &pairs).unwrap();
        let run = kernel
            .run(&inputs, &params)
            .unwrap_or_else(|e| panic!("accessor-spmv {pairs:?}: {e}"));
        assert_eq!(run.details["format"], "csr_stream");
        let ran_on = run.details["ran_on"].as_str().unwrap();
        assert!(ran_on.starts_with("gpu ("), "{pairs:?}: {ran_on}");
        assert!(run.verdicts().unwrap()[0].verdict.is_pass(), "{pairs:?}");
    }

    /// The timing helper runs every workload and counts the bytes as
    /// documented (no speed is asserted: a test never judges timings).
    #[test]
    #[ignore = "needs an NVIDIA GPU: run with --ignored on the device"]
    fn timing_helper_measures_every_workload() {
        let gpu = open();
        let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
        let n = 1 << 16;
        let x = vec![0.5; n];
        let t = gpu.time(&spec, &Workload::Dot { x: &x, y: &x }, 3).unwrap();
        assert_eq!(t.bytes, 2 * n as u64 * 4);
        let (m, k) = (256, 128);
        let a = vec![0.25; m * k];
        let gemv = Workload::Gemv {
            a: &a,
            shape: (m, k),
            x: &x[..k],
            op: GemvOp::PLAIN,
            y: None,
        };
        let g = gpu.time(&spec, &gemv, 3).unwrap();
        assert_eq!(g.bytes, (m * k + k) as u64 * 4 + m as u64 * (4 + 8));
        let csr = CsrMatrix::from_dense(m, k, &a).unwrap();
        let mut all = vec![t, g];
        for format in SparseFormat::ALL {
            let w = Workload::Spmv {
                a: &csr,
                format,
                x: &x[..k],
                scalars: (1.0, 0.0),
                y: None,
            };
            all.push(gpu.time(&spec, &w, 3).unwrap());
        }
        let tri: Vec<f64> = (0..m * m)
            .map(|i| if i / m == i % m { 2.0 } else { 0.001 })
            .collect();
        for schedule in [TrsvSchedule::Pipelined, TrsvSchedule::OneBlock] {
            let w = Workload::Trsv {
                a: &tri,
                n: m,
                b: &x[..m],
                uplo: Uplo::Lower,
                diag: Diag::NonUnit,
                schedule,
            };
            all.push(gpu.time(&spec, &w, 3).unwrap());
            if schedule == TrsvSchedule::Pipelined {
                // cuBLAS's Strsv/Dtrsv on the same system: the triangle, x
                // read and written.
                for (format, e) in [(Format::FP32, 4u64), (Format::FP64, 8)] {
                    let t = gpu.time_cublas(format, &w, 3).unwrap();
                    let n = m as u64;
                    assert_eq!(t.bytes, n * (n + 1) / 2 * e + 2 * n * e);
                    all.push(t);
                }
            }
        }
        all.push(gpu.copy_bandwidth(1 << 24, 3).unwrap());
        for t in &all {
            println!("{t:?}");
            assert!(t.seconds > 0.0 && t.gb_per_s.is_finite(), "{t:?}");
        }
    }
}
