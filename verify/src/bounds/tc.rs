//! Bounds for FMA, MPFMA and tensor-core GEMM (Bhola and Duraisamy): not implemented yet.
