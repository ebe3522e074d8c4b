//! The accessor SpMV kernels (CSR, CSR-stream and ELL), compiled as host C++,
//! against the CPU model, bit for bit, without a GPU: reads the products
//! `scripts/emulate/accessor_kernels_main dump FILE` wrote (`spmv_csr`,
//! `spmv_csr_stream` and `spmv_ell` of `kernels/accessor_blas.cu`, with whatever tuning the header
//! was built with), computes each with [`accessor_spmv`] and compares both
//! outputs (the arithmetic format's and the stored one). Exits 1 at the first
//! difference, 2 for a file it cannot read.
//!
//! `scripts/emulate-accessor-kernels.sh` compares the kernels with a reference
//! version read from the git history, which a shallow clone lacks; this check
//! needs none (`scripts/emulate-accessor-models.sh` runs it).
//!
//!     cargo run --example accessor_spmv_emulation -- FILE

#[path = "emulation/records.rs"]
mod records;

use boundgate::kernels::accessor::spmv::{SparseFormat, accessor_spmv};
use boundgate::sparse::CsrMatrix;
use records::{Lines, same_bits, spec_of};
use std::process::ExitCode;

/// One product and what the emulated kernel computed for it.
struct Product {
    format: SparseFormat,
    pair: String,
    a: CsrMatrix,
    scalars: (f64, f64),
    x: Vec<f64>,
    y0: Vec<f64>,
    y: Vec<f64>,
    stored: Vec<f64>,
}

fn parse(text: &str) -> Result<Vec<Product>, String> {
    let mut lines = Lines::new(text);
    let mut products = Vec::new();
    while let Some(head) = lines.head() {
        let ["spmv", format, pair, rows, cols] = head[..] else {
            return Err(format!("expected an spmv line, found {head:?}"));
        };
        let format =
            SparseFormat::from_name(format).ok_or_else(|| format!("unknown format {format}"))?;
        let num = |s: &str| s.parse::<usize>().map_err(|e| format!("{head:?}: {e}"));
        let scalars = lines.values("scalars")?;
        let [alpha, beta] = scalars[..] else {
            return Err(format!("{head:?}: two scalars expected"));
        };
        let (ptr, col, val) = (
            lines.indices("ptr")?,
            lines.indices("col")?,
            lines.values("val")?,
        );
        let a = CsrMatrix::new(num(rows)?, num(cols)?, ptr, col, val).map_err(|e| e.to_string())?;
        products.push(Product {
            format,
            pair: pair.to_string(),
            a,
            scalars: (alpha, beta),
            x: lines.values("x")?,
            y0: lines.values("y0")?,
            y: lines.values("y")?,
            stored: lines.values("ys")?,
        });
    }
    Ok(products)
}

/// `Ok(values compared)`, or the first difference.
fn check(p: &Product) -> Result<usize, String> {
    let what = format!(
        "{:?} {} rows={} alpha={:e} beta={:e}",
        p.format,
        p.pair,
        p.a.rows(),
        p.scalars.0,
        p.scalars.1
    );
    let y0 = (p.scalars.1 != 0.0).then_some(&p.y0[..]);
    let model = accessor_spmv(
        &spec_of(&p.pair)?,
        &p.a,
        p.format,
        p.scalars,
        &p.x,
        y0,
        true,
    )
    .map_err(|e| format!("{what}: the model refused the product: {e}"))?;
    Ok(same_bits(&format!("{what}: y"), &p.y, &model.before_store)?
        + same_bits(&format!("{what}: stored y"), &p.stored, &model.output)?)
}

fn main() -> ExitCode {
    records::run(
        std::env::args().nth(1),
        parse,
        check,
        "products (CSR, CSR-stream and ELL)",
    )
}
