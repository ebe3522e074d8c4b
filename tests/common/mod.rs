//! Helpers shared by several test binaries (each includes what it uses).

pub mod qdot;
