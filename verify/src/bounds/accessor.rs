//! Bounds of the memory-accessor kernels (Grützmacher et al. 2021): not implemented yet.
