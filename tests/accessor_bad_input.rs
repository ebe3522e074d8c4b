//! Every "Bad input" line of the accessor issue gets a typed error or an
//! explicit verdict, never a panic or a silent NaN:
//! - values that overflow the storage format on store (inputs and outputs);
//! - NaN and infinities;
//! - subnormals under flush-to-zero;
//! - empty and singular triangular systems (zero on the diagonal, given or stored);
//! - malformed Matrix Market files (errors naming the file and the line);
//! - mismatched shapes; storage wider than the arithmetic.

use boundgate::error::Error;
use boundgate::io::Tensor;
use boundgate::kernels::accessor::mtx::{MtxErrorKind, read_mtx};
use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate::kernels::{Inputs, KernelRun, Params, registry};
use boundgate_verify::VerifyError;
use boundgate_verify::check::Outcome;
use boundgate_verify::format::Format;

fn run(kernel: &str, inputs: Vec<(&str, Tensor)>, params: &[&str]) -> Result<KernelRun, Error> {
    let k = registry::find(kernel).unwrap();
    let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
    let p = Params::parse(k, &params)?;
    let inputs: Inputs = inputs
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    k.run(&inputs, &p)
}

fn v(values: &[f64]) -> Tensor {
    Tensor::vector(values.to_vec())
}

fn rigorous(r: &KernelRun) -> Outcome {
    r.verdicts().unwrap()[0].verdict.outcome.clone()
}

fn is_hypothesis(o: &Outcome, needle: &str) -> bool {
    matches!(o, Outcome::HypothesisNotMet { reason } if reason.contains(needle))
}

#[test]
fn an_input_that_overflows_the_storage_is_an_unmet_hypothesis() {
    let r = run(
        "accessor-dot",
        vec![("x", v(&[1e5, 1.0])), ("y", v(&[1.0, 1.0]))],
        &["storage=fp16", "arithmetic=fp32"],
    )
    .unwrap();
    let o = rigorous(&r);
    assert!(is_hypothesis(&o, "overflows"), "{o:?}");
    // The kernel computed with the stored infinity, as the GPU would.
    assert_eq!(r.output.data()[0], f64::INFINITY);
}

#[test]
fn a_result_that_overflows_the_storage_on_store_is_an_unmet_hypothesis() {
    // 300 * 300 = 90000 > 65504: fine in fp32 arithmetic, overflows the fp16 store.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[300.0])), ("y", v(&[300.0]))],
        &["storage=fp16", "arithmetic=fp32"],
    )
    .unwrap();
    assert_eq!(r.output.data()[0], f64::INFINITY);
    let o = rigorous(&r);
    assert!(is_hypothesis(&o, "fits the storage format"), "{o:?}");
    // Without the store the result is finite and the bound holds.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[300.0])), ("y", v(&[300.0]))],
        &["storage=fp16", "arithmetic=fp32", "store=false"],
    )
    .unwrap();
    assert_eq!(r.output.data()[0], 90000.0);
    assert_eq!(rigorous(&r), Outcome::Pass);
    // The accessor's own write refuses it with a typed error.
    let acc = AccessorSpec::new(StorageKind::Fp16, Format::FP32)
        .unwrap()
        .for_data(&[])
        .unwrap();
    assert!(matches!(
        acc.write(90000.0),
        Err(VerifyError::Overflow { .. })
    ));
    // The same for GEMV outputs, per element.
    let r = run(
        "accessor-gemv",
        vec![
            ("a", Tensor::matrix(2, 1, vec![300.0, 1.0]).unwrap()),
            ("x", v(&[300.0])),
        ],
        &["storage=fp16", "arithmetic=fp32"],
    )
    .unwrap();
    assert_eq!(r.output.data(), &[f64::INFINITY, 300.0]);
    assert!(is_hypothesis(&rigorous(&r), "fits the storage format"));
}

#[test]
fn integer_storage_out_of_range_is_a_typed_error_without_saturation() {
    // scale=none: s = 1, and 200 does not fit int8; Ginkgo would not saturate.
    let e = run(
        "accessor-dot",
        vec![("x", v(&[200.0])), ("y", v(&[1.0]))],
        &["storage=int8", "scale=none"],
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::Verify(VerifyError::Overflow { .. })),
        "{e}"
    );
    // Saturation is available on request, and then no bound can hold the clamp.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[200.0])), ("y", v(&[1.0]))],
        &[
            "storage=int8",
            "scale=none",
            "int_overflow=saturate",
            "store=false",
        ],
    )
    .unwrap();
    assert_eq!(r.output.data()[0], 127.0);
    // absmax scales every array to fit: no error.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[200.0, -3.0])), ("y", v(&[1.0, 1.0]))],
        &["storage=int8"],
    )
    .unwrap();
    assert!(!r.verdicts().unwrap()[0].verdict.is_violation());
}

#[test]
fn nan_and_infinite_inputs_give_non_finite_verdicts_or_typed_errors() {
    for bad in [f64::NAN, f64::INFINITY] {
        let r = run(
            "accessor-dot",
            vec![("x", v(&[1.0, bad])), ("y", v(&[1.0, 1.0]))],
            &[],
        )
        .unwrap();
        assert!(
            matches!(rigorous(&r), Outcome::NonFinite { agree: true, .. }),
            "{:?}",
            rigorous(&r)
        );
        let r = run(
            "accessor-axpy",
            vec![("x", v(&[bad])), ("y", v(&[1.0]))],
            &[],
        )
        .unwrap();
        assert!(matches!(rigorous(&r), Outcome::NonFinite { .. }));
        let r = run(
            "accessor-gemv",
            vec![
                ("a", Tensor::matrix(1, 2, vec![1.0, bad]).unwrap()),
                ("x", v(&[1.0, 1.0])),
            ],
            &[],
        )
        .unwrap();
        assert!(matches!(rigorous(&r), Outcome::NonFinite { .. }));
        let r = run(
            "accessor-spmv",
            vec![
                ("a", Tensor::matrix(1, 2, vec![1.0, bad]).unwrap()),
                ("x", v(&[1.0, 1.0])),
            ],
            &["sparse=ell"],
        )
        .unwrap();
        assert!(matches!(rigorous(&r), Outcome::NonFinite { .. }));
        let r = run(
            "accessor-trsv",
            vec![
                ("a", Tensor::matrix(2, 2, vec![1.0, 0.0, bad, 1.0]).unwrap()),
                ("b", v(&[1.0, 1.0])),
            ],
            &[],
        )
        .unwrap();
        assert!(
            matches!(rigorous(&r), Outcome::NonFinite { .. }),
            "{:?}",
            rigorous(&r)
        );
        // Integer storage cannot hold them: a typed error.
        let e = run(
            "accessor-dot",
            vec![("x", v(&[bad])), ("y", v(&[1.0]))],
            &["storage=int16", "arithmetic=fp32"],
        )
        .unwrap_err();
        assert!(
            matches!(e, Error::Verify(VerifyError::NonFinite { .. })),
            "{e}"
        );
    }
    // NaN above the diagonal of a lower system is never read.
    let r = run(
        "accessor-trsv",
        vec![
            (
                "a",
                Tensor::matrix(2, 2, vec![2.0, f64::NAN, 1.0, 4.0]).unwrap(),
            ),
            ("b", v(&[2.0, 9.0])),
        ],
        &[],
    )
    .unwrap();
    assert_eq!(r.output.data(), &[1.0, 2.0]);
    assert_eq!(rigorous(&r), Outcome::Pass);
}

#[test]
fn subnormals_under_flush_to_zero_are_flushed_and_bounded() {
    // 2^-20 is subnormal in fp16: with ftz it is stored as 0.
    let tiny = 2f64.powi(-20);
    let x = [tiny, 1.0];
    let y = [1.0, 2f64.powi(-12)];
    let r = run(
        "accessor-dot",
        vec![("x", v(&x)), ("y", v(&y))],
        &["storage=fp16", "arithmetic=fp32", "ftz=true"],
    )
    .unwrap();
    // Exact: 2^-20 + 2^-12; stored inputs: 0 and 2^-12 (normal); the store of
    // 2^-12 is exact. The error 2^-20 is inside the bound.
    assert_eq!(r.output.data()[0], 2f64.powi(-12));
    assert_eq!(rigorous(&r), Outcome::Pass);
    // A result in fp16's subnormal range is flushed on the store.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[2f64.powi(-10)])), ("y", v(&[2f64.powi(-10)]))],
        &["storage=fp16", "arithmetic=fp32", "ftz=true"],
    )
    .unwrap();
    assert_eq!(r.output.data()[0], 0.0);
    assert_eq!(rigorous(&r), Outcome::Pass);
    // Without ftz the same value is a subnormal, kept.
    let r = run(
        "accessor-dot",
        vec![("x", v(&[2f64.powi(-10)])), ("y", v(&[2f64.powi(-10)]))],
        &["storage=fp16", "arithmetic=fp32"],
    )
    .unwrap();
    assert_eq!(r.output.data()[0], 2f64.powi(-20));
}

#[test]
fn empty_and_singular_triangular_systems_are_typed_errors() {
    let e = run(
        "accessor-trsv",
        vec![("a", Tensor::matrix(0, 0, vec![]).unwrap()), ("b", v(&[]))],
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, Error::Verify(VerifyError::Empty { .. })), "{e}");
    let singular = Tensor::matrix(2, 2, vec![1.0, 0.0, 3.0, 0.0]).unwrap();
    let e = run(
        "accessor-trsv",
        vec![("a", singular.clone()), ("b", v(&[1.0, 1.0]))],
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("singular"), "{e}");
    assert!(e.to_string().contains("a[1][1]"), "{e}");
    // A unit diagonal is not read: no error.
    assert!(
        run(
            "accessor-trsv",
            vec![("a", singular), ("b", v(&[1.0, 1.0]))],
            &["diag=unit"]
        )
        .is_ok()
    );
    // Upper: the zero at [0][0] is read.
    let upper = Tensor::matrix(2, 2, vec![0.0, 1.0, 0.0, 1.0]).unwrap();
    assert!(
        run(
            "accessor-trsv",
            vec![("a", upper), ("b", v(&[1.0, 1.0]))],
            &["uplo=upper"]
        )
        .is_err()
    );
    // A diagonal that underflows to zero in the storage format: singular as stored.
    let tiny = Tensor::matrix(2, 2, vec![1e-10, 0.0, 1.0, 1.0]).unwrap();
    let e = run(
        "accessor-trsv",
        vec![("a", tiny.clone()), ("b", v(&[1.0, 1.0]))],
        &["storage=fp16", "arithmetic=fp32"],
    )
    .unwrap_err();
    // It names the given value and the storage (it read as if the given
    // diagonal were 0; review, 2026-11-26).
    assert!(
        e.to_string().contains("a[0][0] = 0.0000000001")
            && e.to_string().contains("stored in fp16 it becomes 0"),
        "{e}"
    );
    assert!(
        run(
            "accessor-trsv",
            vec![("a", tiny), ("b", v(&[1.0, 1.0]))],
            &["storage=fp32"]
        )
        .is_ok()
    );
    // Empty dot products and AXPYs.
    for k in ["accessor-dot", "accessor-axpy"] {
        let e = run(k, vec![("x", v(&[])), ("y", v(&[]))], &[]).unwrap_err();
        assert!(
            matches!(e, Error::Verify(VerifyError::Empty { .. })),
            "{k}: {e}"
        );
    }
}

/// A kernel, its inputs and its parameters.
type Case = (&'static str, Vec<(&'static str, Tensor)>, Vec<&'static str>);

#[test]
fn mismatched_shapes_are_typed_errors() {
    let cases: Vec<Case> = vec![
        (
            "accessor-dot",
            vec![("x", v(&[1.0])), ("y", v(&[1.0, 2.0]))],
            vec![],
        ),
        (
            "accessor-axpy",
            vec![("x", v(&[1.0, 2.0])), ("y", v(&[1.0]))],
            vec![],
        ),
        (
            "accessor-gemv",
            vec![
                ("a", Tensor::matrix(2, 3, vec![1.0; 6]).unwrap()),
                ("x", v(&[1.0, 2.0])),
            ],
            vec![],
        ),
        (
            "accessor-gemv",
            vec![
                ("a", Tensor::matrix(2, 3, vec![1.0; 6]).unwrap()),
                ("x", v(&[1.0, 2.0, 3.0])),
            ],
            vec!["trans=true"],
        ),
        (
            "accessor-gemv",
            vec![
                ("a", Tensor::matrix(2, 3, vec![1.0; 6]).unwrap()),
                ("x", v(&[1.0, 2.0, 3.0])),
                ("y", v(&[1.0])),
            ],
            vec!["beta=1"],
        ),
        (
            "accessor-spmv",
            vec![
                ("a", Tensor::matrix(2, 3, vec![1.0; 6]).unwrap()),
                ("x", v(&[1.0])),
            ],
            vec![],
        ),
        (
            "accessor-trsv",
            vec![
                ("a", Tensor::matrix(2, 3, vec![1.0; 6]).unwrap()),
                ("b", v(&[1.0, 2.0])),
            ],
            vec![],
        ),
        (
            "accessor-trsv",
            vec![
                ("a", Tensor::matrix(2, 2, vec![1.0; 4]).unwrap()),
                ("b", v(&[1.0, 2.0, 3.0])),
            ],
            vec![],
        ),
    ];
    for (k, inputs, params) in cases {
        let e = run(k, inputs, &params).unwrap_err();
        assert!(
            matches!(e, Error::Verify(VerifyError::LengthMismatch { .. })),
            "{k} {params:?}: {e}"
        );
    }
    // beta != 0 without y; a vector where a matrix is needed.
    let e = run(
        "accessor-gemv",
        vec![
            ("a", Tensor::matrix(1, 1, vec![1.0]).unwrap()),
            ("x", v(&[1.0])),
        ],
        &["beta=1"],
    )
    .unwrap_err();
    assert!(e.to_string().contains("`y`"), "{e}");
    let e = run(
        "accessor-gemv",
        vec![("a", v(&[1.0])), ("x", v(&[1.0]))],
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("2-D"), "{e}");
}

#[test]
fn storage_wider_than_the_arithmetic_is_refused() {
    for (s, a) in [("fp64", "fp32"), ("int32", "fp32")] {
        let storage = format!("storage={s}");
        let arithmetic = format!("arithmetic={a}");
        let e = run(
            "accessor-dot",
            vec![("x", v(&[1.0])), ("y", v(&[1.0]))],
            &[&storage, &arithmetic],
        )
        .unwrap_err();
        assert!(e.to_string().contains("reads would round"), "{e}");
    }
    let e = run(
        "accessor-dot",
        vec![("x", v(&[1.0])), ("y", v(&[1.0]))],
        &["storage=fp32", "scale=absmax"],
    )
    .unwrap_err();
    assert!(e.to_string().contains("integer storage only"), "{e}");
    let e = run(
        "accessor-dot",
        vec![("x", v(&[1.0])), ("y", v(&[1.0]))],
        &["storage=fp8"],
    )
    .unwrap_err();
    assert!(e.to_string().contains("storage=fp8"), "{e}");
}

#[test]
fn malformed_matrix_market_files_name_the_file_and_line() {
    let dir = std::env::temp_dir().join(format!("boundgate-accessor-mtx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "banner.mtx",
            "%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
            1,
            MtxErrorKind::Banner,
        ),
        (
            "size.mtx",
            "%%MatrixMarket matrix coordinate real general\n% c\n1 one 1\n",
            3,
            MtxErrorKind::Size,
        ),
        (
            "index.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n",
            4,
            MtxErrorKind::Entry,
        ),
        (
            "value.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 inf\n",
            3,
            MtxErrorKind::Entry,
        ),
        (
            "count.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n",
            4,
            MtxErrorKind::Count,
        ),
        (
            "complex.mtx",
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
            1,
            MtxErrorKind::Unsupported,
        ),
    ];
    for (name, text, line, kind) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let e = read_mtx(&path).unwrap_err();
        assert_eq!((e.line, e.kind.clone()), (Some(line), kind), "{name}: {e}");
        let message = e.to_string();
        assert!(
            message.contains(name) && message.contains(&format!(":{line}:")),
            "{message}"
        );
        // Through the crate's error type the file and line stay in the message.
        let as_error: Error = e.into();
        assert!(as_error.to_string().contains(&format!("{name}:{line}")));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
