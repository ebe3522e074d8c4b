//! The fast exact dot product against the MPFR reference, bit for bit.
#![no_main]

use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|words: Vec<u64>| {
    let values: Vec<f64> = words.iter().map(|&b| f64::from_bits(b)).filter(|v| v.is_finite()).collect();
    let n = values.len() / 2;
    let (x, y) = (&values[..n], &values[n..2 * n]);
    let fast = oracle::dot(x, y).unwrap();
    let reference = oracle::mpfr::dot(x, y).unwrap();
    assert_eq!(fast.to_float().as_ref(), reference.exact(), "x = {x:?}, y = {y:?}");
    for mode in RoundingMode::ALL {
        for format in [Format::FP64, Format::FP32, Format::FP16] {
            let a = fast.round(format, mode);
            let b = reference.round(format, mode);
            assert!(a.to_bits() == b.to_bits(), "{format} {mode}: {a:e} vs {b:e}; x = {x:?}, y = {y:?}");
        }
    }
});
