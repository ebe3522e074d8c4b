//! The Matrix Market reader on arbitrary text (hostile banners, size lines
//! declaring huge counts, malformed entries): a typed error naming the file
//! and its line, or a matrix whose entries lie inside its shape, are finite,
//! number what the symmetry implies and convert to CSR, never a panic, a
//! huge allocation or a time quadratic in the file.
//!
//! Half the inputs are taken as the whole file; the other half get a valid
//! banner picked by their first byte (every supported format, field and
//! symmetry, and the refused `complex`), so that the fuzzer spends its time
//! on size lines and entries instead of rediscovering `%%MatrixMarket`.
#![no_main]

use boundgate::kernels::accessor::mtx::{Symmetry, parse_mtx};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

const FORMATS: [&str; 2] = ["coordinate", "array"];
const FIELDS: [&str; 4] = ["real", "integer", "pattern", "complex"];
const SYMMETRIES: [&str; 3] = ["general", "symmetric", "skew-symmetric"];

fn file_text(data: &[u8]) -> Option<String> {
    let (&first, rest) = data.split_first()?;
    let body = std::str::from_utf8(rest).ok()?;
    if first & 0x80 != 0 {
        return std::str::from_utf8(data).ok().map(str::to_owned);
    }
    let pick = usize::from(first);
    let banner = format!(
        "%%MatrixMarket matrix {} {} {}\n",
        FORMATS[pick % 2],
        FIELDS[(pick / 2) % 4],
        SYMMETRIES[(pick / 8) % 3]
    );
    Some(banner + body)
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = file_text(data) else {
        return;
    };
    match parse_mtx(Path::new("fuzz.mtx"), &text) {
        Ok(m) => {
            for &(i, j, v) in &m.entries {
                assert!(i < m.rows && j < m.cols && v.is_finite(), "({i}, {j}, {v})");
            }
            let off_diagonal = m.entries.iter().filter(|&&(i, j, _)| i != j).count();
            match m.symmetry {
                Symmetry::General => {}
                // Each given off-diagonal entry is mirrored once.
                Symmetry::Symmetric => assert_eq!(off_diagonal % 2, 0),
                Symmetry::SkewSymmetric => assert_eq!(off_diagonal, m.entries.len()),
            }
            // CSR allocates a row pointer per declared row: memory in the
            // declared shape, which the reader bounds by the limit of every
            // input (2^28, so up to 2 GiB for a 60-byte file declaring 2^28
            // empty rows, as a 2^28-row vector would take anyway); converted
            // here only where that stays small, so that the fuzzer's malloc
            // limit catches what grows with the declared *entries* instead.
            if m.rows <= 1 << 20 {
                let csr = m.to_csr().expect("parse_mtx checked every index");
                assert_eq!(csr.nnz(), m.entries.len());
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.mtx"), "{e}"),
    }
});
