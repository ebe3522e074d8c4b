//! Helpers shared by several test binaries of the checker. Each binary that
//! declares `mod common;` compiles all of them and uses some, hence the
//! allowances.

#[allow(dead_code)]
pub mod blas;
#[allow(dead_code)]
pub mod exact;
#[allow(dead_code)]
pub mod rng;
#[allow(dead_code)]
pub mod trsv;
