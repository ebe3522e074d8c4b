//! CUDA's grid limits, checked on the host before any device work.
//!
//! A launch whose grid exceeds what the hardware takes (`gridDim.x <= 2^31 - 1`,
//! `gridDim.y <= 65535`: CUDA C++ Programming Guide, "Features and Technical
//! Specifications", table "Technical Specifications per Compute Capability",
//! every capability since 3.0) is refused by `cuLaunchKernel` only after the
//! operands were converted and uploaded. Three launchers found that in review
//! (mpfma's GEMM, residual's int8 GEMM, interleave's HotSpot3D) and each had its
//! own copy of the limit and the message; they share this one now. Launches
//! that stride over rows beyond the limit clamp with [`clamp_grid_y`] instead.

use super::GpuError;

/// CUDA's largest grid `x` dimension, `2^31 - 1`.
pub const MAX_GRID_X: usize = i32::MAX as usize;

/// CUDA's largest grid `y` dimension, 65535.
pub const MAX_GRID_Y: usize = 65_535;

/// Refuses a grid of `x` by `y` blocks that CUDA cannot launch, naming the
/// launcher (`what`) and its problem (`problem`) in the one-line error.
///
/// # Example
/// ```
/// use boundgate::gpu::{GpuError, grid::check_grid};
/// assert!(check_grid("GEMM", "a 32 x 32 D", (1, 65_535)).is_ok());
/// let err = check_grid("GEMM", "a 32 x 32 D", (1, 65_536)).unwrap_err();
/// assert!(matches!(&err, GpuError::Unsupported(t) if t.contains("1 x 65536 blocks")));
/// ```
pub fn check_grid(what: &str, problem: &str, (x, y): (usize, usize)) -> Result<(), GpuError> {
    if x > MAX_GRID_X || y > MAX_GRID_Y {
        return Err(GpuError::Unsupported(format!(
            "{what}: {problem} takes a grid of {x} x {y} blocks; CUDA launches at most \
             2^31 - 1 x {MAX_GRID_Y}"
        )));
    }
    Ok(())
}

/// The grid `y` of a launch whose kernel strides over `blocks` block rows:
/// at least 1 (an empty problem still launches one block, which does nothing),
/// at most [`MAX_GRID_Y`] (the kernel's loop takes the rest).
///
/// # Example
/// ```
/// use boundgate::gpu::grid::clamp_grid_y;
/// assert_eq!(clamp_grid_y(0), 1);
/// assert_eq!(clamp_grid_y(70_000), 65_535);
/// ```
pub fn clamp_grid_y(blocks: usize) -> u32 {
    // Lossless: the clamp keeps it within u16.
    blocks.clamp(1, MAX_GRID_Y) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_are_inclusive_in_both_dimensions() {
        assert!(check_grid("k", "p", (MAX_GRID_X, MAX_GRID_Y)).is_ok());
        assert!(check_grid("k", "p", (MAX_GRID_X + 1, 1)).is_err());
        assert!(check_grid("k", "p", (1, MAX_GRID_Y + 1)).is_err());
        assert!(check_grid("k", "p", (0, 0)).is_ok());
    }

    #[test]
    fn the_message_names_the_launcher_and_the_problem_on_one_line() {
        let Err(GpuError::Unsupported(text)) = check_grid("dp4a GEMM", "7 x 9", (1, 70_000)) else {
            panic!("expected Unsupported");
        };
        assert!(
            text.starts_with("dp4a GEMM: 7 x 9 takes a grid of 1 x 70000 blocks"),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn clamping_keeps_every_count_launchable() {
        for blocks in [
            0,
            1,
            2,
            MAX_GRID_Y - 1,
            MAX_GRID_Y,
            MAX_GRID_Y + 1,
            usize::MAX,
        ] {
            let y = clamp_grid_y(blocks) as usize;
            assert!((1..=MAX_GRID_Y).contains(&y), "{blocks} -> {y}");
            assert_eq!(y, blocks.clamp(1, MAX_GRID_Y));
        }
    }
}
