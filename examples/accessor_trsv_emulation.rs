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

#[path = "emulation/records.rs"]
mod records;

use boundgate::kernels::accessor::trsv::accessor_trsv_ordered;
use boundgate_verify::oracle::trsv::{Diag, Uplo};
use records::{Lines, same_bits, spec_of};
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
    /// By position.
    x: Vec<f64>,
    /// By row.
    stored: Vec<f64>,
}

fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut lines = Lines::new(text);
    let mut cases = Vec::new();
    while let Some(head) = lines.head() {
        let ["case", pair, n, upper, unit, ways] = head[..] else {
            return Err(format!("expected a case line, found {head:?}"));
        };
        let num = |s: &str| s.parse::<usize>().map_err(|e| format!("{head:?}: {e}"));
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
            a: lines.values("a")?,
            b: lines.values("b")?,
            inverses: lines.values("inv")?,
            x: lines.values("x")?,
            stored: lines.values("xs")?,
        });
    }
    Ok(cases)
}

/// `Ok(values compared)`, or the first difference.
fn check(case: &Case) -> Result<usize, String> {
    let what = format!(
        "{} n={} {:?} {:?} ways={}",
        case.pair, case.n, case.uplo, case.diag, case.ways
    );
    let model = accessor_trsv_ordered(
        &spec_of(&case.pair)?,
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
        compared += same_bits(
            &format!("{what}: inverse of block {k} (row-major)"),
            &kernel,
            y,
        )?;
    }
    // The kernel's x is by position; the model's by row.
    let x_by_row: Vec<f64> = (0..case.n)
        .map(|i| match case.uplo {
            Uplo::Lower => case.x[i],
            Uplo::Upper => case.x[case.n - 1 - i],
        })
        .collect();
    compared += same_bits(&format!("{what}: x"), &x_by_row, &model.before_store)?;
    compared += same_bits(&format!("{what}: stored x"), &case.stored, &model.output)?;
    Ok(compared)
}

fn main() -> ExitCode {
    records::run(
        std::env::args().nth(1),
        parse,
        check,
        "systems (inverses, x, stored x)",
    )
}
