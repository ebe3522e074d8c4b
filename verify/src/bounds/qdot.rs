//! Bounds of the qdot paper (Diffenderfer et al. 2021): not implemented yet.
