//! Exact residuals of triangular solves: not implemented yet.
