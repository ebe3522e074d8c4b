//! boundgate: kernels under test and the tool.
