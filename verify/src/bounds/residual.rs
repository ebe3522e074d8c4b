//! Bounds of the residual-compensated quantized GEMM (Gu): not implemented yet.
