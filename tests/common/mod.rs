//! Helpers shared by several test binaries. Each binary that declares
//! `mod common;` compiles all of them and uses some, hence the allowances.

#[allow(dead_code)]
pub mod audit;
#[allow(dead_code)]
pub mod cli;
#[allow(dead_code)]
pub mod npy;
#[cfg(feature = "cuda")]
#[allow(dead_code)]
pub mod nvrtc;
#[allow(dead_code)]
pub mod qdot;
#[allow(dead_code)]
pub mod residual;
