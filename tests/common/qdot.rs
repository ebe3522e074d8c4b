//! The qdot configuration the GPU tests and the fp16x2 replay test both draw
//! their grids and their one-binade input from (`tests/qdot_gpu.rs`,
//! `tests/qdot_half2.rs`).

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

/// The one-binade input of the fp16x2 device test: x in [1, 2) (every 11th
/// zero), y in (-2, -1] or [1, 2), and for n > 7 one large x[7] = 2^big
/// (big = max(8, bit length of n - 1)), which makes the many-element bin a
/// half bin at eps = 0.01 (selection checked in tests/qdot_half2.rs; the GPU run in tests/qdot_gpu.rs).
pub fn one_binade(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut x: Vec<f64> = (0..n)
        .map(|i| {
            if i % 11 == 5 {
                0.0
            } else {
                1.0 + (i % 97) as f64 / 97.0
            }
        })
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| (if i % 3 == 0 { -1.0 } else { 1.0 }) * (1.0 + (i % 89) as f64 / 89.0))
        .collect();
    if n > 7 {
        let big = (usize::BITS - n.leading_zeros()) as i32 - 1;
        x[7] = 2f64.powi(big.max(8));
    }
    (x, y)
}
