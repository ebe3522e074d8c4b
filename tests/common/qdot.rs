//! The qdot configuration the GPU tests and the fp16x2 replay test both draw
//! their grids from (`tests/qdot_gpu.rs`, `tests/qdot_half2.rs`).

use boundgate::kernels::qdot::config::{HalfMode, Ladder, QdotConfig, Score, TileLayout};
use boundgate_verify::bounds::qdot::Fexp;
use boundgate_verify::format::Format;

/// A binary64-input configuration; the score is the paper's `eps` for tiles
/// of one index (the sequential chain) and the experiments' `eps / N_bins`
/// otherwise.
pub fn fp64_config(
    fexp: Fexp,
    half: HalfMode,
    ladder: Ladder,
    (tile, early_exit): (usize, bool),
    layout: TileLayout,
) -> QdotConfig {
    let mut c = QdotConfig::new(Format::FP64).expect("fp64");
    (c.fexp, c.half, c.ladder, c.tile, c.early_exit) = (fexp, half, ladder, tile, early_exit);
    c.layout = layout;
    c.score = if tile == 1 {
        Score::Eps
    } else {
        Score::EpsOverNbins
    };
    c
}
