//! The applications of §4.2-4.3: conjugate gradients on the HPCCG 27-point
//! problem with qdot for its dot products (ACG, Algorithm 4.1) and the power
//! method on a random graph Laplacian (APM, Algorithm 4.2), with the dot
//! products behind [`DotProvider`] so the same solver runs in plain fp64 and
//! with qdot, recording per call which precision each component got.

pub mod acg;
pub mod apm;
pub mod dots;
pub mod hpccg;
pub mod laplacian;

pub use crate::sparse::CsrMatrix;
pub use dots::{CallStats, DotProvider, PlainDot, QdotDot};
