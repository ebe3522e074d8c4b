#![allow(dead_code)] // each example uses only the part it reads
//! What the emulation examples share: reading the records the host-compiled
//! kernels write (`scripts/emulate/records.h`: a tag, then the elements;
//! floating-point values as the hexadecimal bits of their binary64 widening,
//! integers in decimal), the storage/arithmetic pairs the drivers name, and
//! the bit-for-bit comparison.

use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate_verify::format::Format;

/// The lines of a record file, read in order.
pub struct Lines<'a>(std::str::Lines<'a>);

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        Lines(text.lines())
    }

    /// The next line's fields after its tag, which must be `tag`.
    fn fields(&mut self, tag: &str) -> Result<std::str::SplitAsciiWhitespace<'a>, String> {
        let line = self
            .0
            .next()
            .ok_or_else(|| format!("missing the line {tag}"))?;
        let mut fields = line.split_ascii_whitespace();
        if fields.next() != Some(tag) {
            return Err(format!("expected the line {tag}, found {line:.40}"));
        }
        Ok(fields)
    }

    /// The floating-point values of the next line, tagged `tag`.
    pub fn values(&mut self, tag: &str) -> Result<Vec<f64>, String> {
        self.fields(tag)?
            .map(|w| {
                u64::from_str_radix(w, 16)
                    .map(f64::from_bits)
                    .map_err(|e| format!("{tag}: {w}: {e}"))
            })
            .collect()
    }

    /// The non-negative integers of the next line, tagged `tag`.
    pub fn indices(&mut self, tag: &str) -> Result<Vec<usize>, String> {
        self.fields(tag)?
            .map(|w| w.parse().map_err(|e| format!("{tag}: {w}: {e}")))
            .collect()
    }

    /// The fields of the next record's head line, or `None` at the end.
    pub fn head(&mut self) -> Option<Vec<&'a str>> {
        self.0.next().map(|l| l.split_ascii_whitespace().collect())
    }
}

/// The accessor of a driver's pair name (`fp64/fp64`, `fp32/fp64`, `fp32/fp32`).
pub fn spec_of(pair: &str) -> Result<AccessorSpec, String> {
    let (storage, arithmetic) = match pair {
        "fp64/fp64" => (StorageKind::Fp64, Format::FP64),
        "fp32/fp64" => (StorageKind::Fp32, Format::FP64),
        "fp32/fp32" => (StorageKind::Fp32, Format::FP32),
        _ => return Err(format!("unknown pair {pair}")),
    };
    AccessorSpec::new(storage, arithmetic).map_err(|e| e.to_string())
}

/// `Err` naming the first element where `got` (the kernel's) and `want` (the
/// model's) differ in any bit, or their lengths.
pub fn same_bits(what: &str, got: &[f64], want: &[f64]) -> Result<usize, String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} values from the kernel, {} from the model",
            got.len(),
            want.len()
        ));
    }
    match got
        .iter()
        .zip(want)
        .position(|(g, w)| g.to_bits() != w.to_bits())
    {
        Some(i) => Err(format!(
            "{what}[{i}]: kernel {:e}, model {:e}",
            got[i], want[i]
        )),
        None => Ok(got.len()),
    }
}

/// Reads `path` and checks each record with `check` (values compared, or the
/// first difference); prints the summary and returns the exit code: 0 when all
/// agree, 1 at the first difference, 2 for a file it cannot read.
pub fn run<R>(
    path: Option<String>,
    parse: impl Fn(&str) -> Result<Vec<R>, String>,
    check: impl Fn(&R) -> Result<usize, String>,
    what: &str,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let Some(path) = path else {
        eprintln!("usage: FILE (written by a driver's `dump FILE`)");
        return ExitCode::from(2);
    };
    let records = match std::fs::read_to_string(&path)
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| parse(&text))
    {
        Ok(records) if !records.is_empty() => records,
        Ok(_) => {
            eprintln!("{path}: no records");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut values = 0;
    for record in &records {
        match check(record) {
            Ok(n) => values += n,
            Err(e) => {
                println!("MISMATCH {e}");
                return ExitCode::from(1);
            }
        }
    }
    println!(
        "{} {what}, {values} values: the emulated kernels equal the CPU model bit for bit",
        records.len()
    );
    ExitCode::SUCCESS
}
