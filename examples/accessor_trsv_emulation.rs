//! The accessor TRSV kernels, compiled as host C++, against the CPU model, bit
//! for bit, without a GPU: reads the systems `scripts/emulate/accessor_trsv_main
//! dump FILE` wrote (the inverses from `trsv_invert`, the solution from the
//! pipelined `trsv_rows` of `kernels/accessor_blas.cu`, built with the
//! `TRSV_CHAIN_WAYS` each case names), solves each with
//! [`accessor_trsv_ordered`] in that order, and compares the inverses, the
//! solution in the arithmetic format and the stored solution. Exits 1 at the
//! first difference, 2 for a file it cannot read.
//!
//! The emulation's other check (the pipelined solve against the one-block one)
//! cannot see a change to what both kernels share, such as the product with
//! the inverse (`trsv_apply_inverse`): this one can, and it is how a new order
//! of that product is tied to the model before a device runs it.
//!
//!     scripts/emulate-accessor-trsv.sh   # runs it
//!     cargo run --example accessor_trsv_emulation -- FILE

use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
use boundgate::kernels::accessor::trsv::accessor_trsv_ordered;
use boundgate_verify::format::Format;
use boundgate_verify::oracle::trsv::{Diag, Uplo};
use std::process::ExitCode;

/// One system and what the emulated kernels computed for it.
struct Case {
    pair: String,
    n: usize,
    uplo: Uplo,
    diag: Diag,
    ways: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    /// Every block's 32 x 32 inverse, row-major (the kernel's layout).
    inverses: Vec<f64>,
    x: Vec<f64>,
    stored: Vec<f64>,
}

fn words(line: Option<&str>, tag: &str) -> Result<Vec<f64>, String> {
    let line = line.ok_or_else(|| format!("missing the line {tag}"))?;
    let mut fields = line.split_ascii_whitespace();
    if fields.next() != Some(tag) {
        return Err(format!("expected the line {tag}, found {:.40}", line));
    }
    fields
        .map(|w| {
            u64::from_str_radix(w, 16)
                .map(f64::from_bits)
                .map_err(|e| format!("{tag}: {w}: {e}"))
        })
        .collect()
}

fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut lines = text.lines();
    let mut cases = Vec::new();
    while let Some(head) = lines.next() {
        let f: Vec<&str> = head.split_ascii_whitespace().collect();
        let [tag, pair, n, upper, unit, ways] = f[..] else {
            return Err(format!("expected a case line, found {head:.60}"));
        };
        if tag != "case" {
            return Err(format!("expected a case line, found {head:.60}"));
        }
        let num = |s: &str| s.parse::<usize>().map_err(|e| format!("{head}: {e}"));
        cases.push(Case {
            pair: pair.to_string(),
            n: num(n)?,
            uplo: if num(upper)? == 1 {
                Uplo::Upper
            } else {
                Uplo::Lower
            },
            diag: if num(unit)? == 1 {
                Diag::Unit
            } else {
                Diag::NonUnit
            },
            ways: num(ways)?,
            a: words(lines.next(), "a")?,
            b: words(lines.next(), "b")?,
            inverses: words(lines.next(), "inv")?,
            x: words(lines.next(), "x")?,
            stored: words(lines.next(), "xs")?,
        });
    }
    Ok(cases)
}

fn spec_of(pair: &str) -> Result<AccessorSpec, String> {
    let (storage, arithmetic) = match pair {
        "fp64/fp64" => (StorageKind::Fp64, Format::FP64),
        "fp32/fp64" => (StorageKind::Fp32, Format::FP64),
        "fp32/fp32" => (StorageKind::Fp32, Format::FP32),
        _ => return Err(format!("unknown pair {pair}")),
    };
    AccessorSpec::new(storage, arithmetic).map_err(|e| e.to_string())
}

/// The first index where `got` and `want` differ in any bit.
fn first_difference(got: &[f64], want: &[f64]) -> Option<usize> {
    if got.len() != want.len() {
        return Some(got.len().min(want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g.to_bits() != w.to_bits())
}

/// `Ok(values compared)`, or the first difference.
fn check(case: &Case) -> Result<usize, String> {
    let what = format!(
        "{} n={} {:?} {:?} ways={}",
        case.pair, case.n, case.uplo, case.diag, case.ways
    );
    let spec = spec_of(&case.pair)?;
    let model = accessor_trsv_ordered(
        &spec,
        &case.a,
        case.n,
        &case.b,
        (case.uplo, case.diag),
        true,
        case.ways,
    )
    .map_err(|e| format!("{what}: the model refused the system: {e}"))?;
    let mut compared = 0;
    for (k, y) in model.inverses.iter().enumerate() {
        let m = case.n.min(32 * (k + 1)) - 32 * k;
        let kernel: Vec<f64> = (0..m * m)
            .map(|e| case.inverses[k * 32 * 32 + (e / m) * 32 + e % m])
            .collect();
        if let Some(i) = first_difference(&kernel, y) {
            return Err(format!(
                "{what}: inverse of block {k}, entry ({}, {}): kernel {:e}, model {:e}",
                i / m,
                i % m,
                kernel[i],
                y[i]
            ));
        }
        compared += m * m;
    }
    // The kernel's x is by position; the model's by row.
    let x_by_row: Vec<f64> = (0..case.n)
        .map(|i| match case.uplo {
            Uplo::Lower => case.x[i],
            Uplo::Upper => case.x[case.n - 1 - i],
        })
        .collect();
    for (name, got, want) in [
        ("x", &x_by_row, &model.before_store),
        ("stored x", &case.stored, &model.output),
    ] {
        if let Some(i) = first_difference(got, want) {
            return Err(format!(
                "{what}: {name}[{i}]: kernel {:e}, model {:e}",
                got.get(i).copied().unwrap_or(f64::NAN),
                want.get(i).copied().unwrap_or(f64::NAN)
            ));
        }
        compared += got.len();
    }
    Ok(compared)
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: accessor_trsv_emulation FILE (written by accessor_trsv_main dump FILE)");
        return ExitCode::from(2);
    };
    let cases = match std::fs::read_to_string(&path)
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| parse(&text))
    {
        Ok(cases) if !cases.is_empty() => cases,
        Ok(_) => {
            eprintln!("{path}: no systems");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut values = 0;
    for case in &cases {
        match check(case) {
            Ok(n) => values += n,
            Err(e) => {
                println!("MISMATCH {e}");
                return ExitCode::from(1);
            }
        }
    }
    println!(
        "{} systems, {values} values (inverses, x, stored x): the emulated kernels equal the CPU model bit for bit (ways {})",
        cases.len(),
        cases[0].ways
    );
    ExitCode::SUCCESS
}
