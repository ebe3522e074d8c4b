//! `kernels/accessor_blas.cu` does exactly the arithmetic its CPU models
//! assume: its PTX has only round-to-nearest `fma`, `add`, `sub`, `mul`, `div`
//! (and exact negations and conversions), no flush-to-zero and no atomics, and
//! it defines every kernel for every storage/arithmetic pair. NVRTC needs no
//! GPU: run with
//! `eval "$(scripts/install-cuda-nvrtc.sh)" && cargo test --features cuda --test accessor_gpu`.
//! (tests/nvrtc_compile.rs also builds the file for sm_80/sm_90 with warnings
//! as errors.)

#[cfg(feature = "cuda")]
mod with_nvrtc {
    use boundgate::gpu::nvrtc::{self, BuildOptions, Target};
    use std::collections::BTreeSet;

    fn ptx() -> Option<String> {
        if let Err(e) = nvrtc::version() {
            if std::env::var("BOUNDGATE_SKIP_NVRTC").is_ok_and(|v| v == "1") {
                println!("SKIPPED (BOUNDGATE_SKIP_NVRTC=1): {e}");
                return None;
            }
            panic!(
                "NVRTC is not available: {e}; run scripts/install-cuda-nvrtc.sh or set BOUNDGATE_SKIP_NVRTC=1"
            );
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/accessor_blas.cu");
        let source = std::fs::read_to_string(path).expect("readable kernel");
        let built = nvrtc::compile(
            "kernels/accessor_blas.cu",
            &source,
            &BuildOptions::new(Target::Ptx(9, 0)).strict(),
        )
        .expect("compiles");
        Some(String::from_utf8_lossy(&built.image).into_owned())
    }

    #[test]
    fn ptx_has_only_round_to_nearest_arithmetic_and_no_atomics() {
        let Some(ptx) = ptx() else { return };
        let mut arithmetic = BTreeSet::new();
        for line in ptx.lines() {
            let Some(op) = line.split_whitespace().next() else {
                continue;
            };
            assert!(
                !op.starts_with("atom") && !op.starts_with("red."),
                "atomic: {line}"
            );
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
            "trsv_invert",
            "trsv_solve",
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
