//! The fp16x2 schedule of `kernels/qdot.cu` (`qdot_tiles_half2_f64`) on the
//! CPU: half bins of the pure-fp16 mode (`half=fp16`) computed two tiles at
//! a time, lane 0 = tile `2p`, lane 1 = tile `2p + 1`, each lane one
//! correctly rounded fp16 product and one correctly rounded fp16 sum per
//! step, a lane outside the slot keeping its bits. This file replays that
//! schedule index by index (the kernel's loop, written with `Format`
//! arithmetic only) and checks that it is the CPU model's order
//! (`compute::compute`) bit for bit, so the model needs no lane variant; and
//! that the pure-fp16 results stay within the rigorous bound against the
//! exact oracle. The GPU itself is compared in `tests/qdot_gpu.rs` (ignored
//! without a device).

mod common;
use common::qdot::{fp64_config, one_binade};

use boundgate::kernels::qdot::bounds::evaluate;
use boundgate::kernels::qdot::compute::{compute, scale_round, tree_levels};
use boundgate::kernels::qdot::config::{HalfMode, Ladder, QdotConfig, TileLayout, Tolerance};
use boundgate::kernels::qdot::distributions::PaperDistribution;
use boundgate::kernels::qdot::select::{NO_EXPONENT, Selection, select};
use boundgate_verify::bounds::qdot::{BinArithmetic, Fexp, TileOrder};
use boundgate_verify::format::{Format, RoundingMode};
use boundgate_verify::oracle;

const RNE: RoundingMode = RoundingMode::NearestEven;

/// A packed fp16x2 value: `[lane 0, lane 1]`.
type Half2 = [f64; 2];

/// `add.rn.f16x2(acc, mul.rn.f16x2(a, b))`, then the lanes not in `mask`
/// restored (the kernel's bit select).
fn half2_step(acc: Half2, a: Half2, b: Half2, mask: [bool; 2]) -> Half2 {
    let f16 = Format::FP16;
    let mut out = acc;
    for l in 0..2 {
        let r = f16.add(acc[l], f16.mul(a[l], b[l], RNE), RNE);
        if mask[l] {
            out[l] = r;
        }
    }
    out
}

/// `x 2^-fexp(x)` (exact).
fn scaled(v: f64, fexp: Fexp) -> f64 {
    scale_round(v, -fexp.of(v).unwrap_or(0), Format::FP64)
}

/// The pair kernel's partials `[slot][tile]`, then the tree and the finish
/// of the launcher, all on the CPU.
fn half2_schedule(x: &[f64], y: &[f64], s: &Selection, c: &QdotConfig) -> f64 {
    assert!(
        !s.early_exit,
        "the pair kernel runs after the selection only"
    );
    let levels = c.levels();
    // Slots: the computed bins in ascending exponent.
    let slots: Vec<(i32, BinArithmetic)> = s
        .bins
        .iter()
        .filter_map(|b| b.level.map(|l| (b.exponent, levels[l].arithmetic)))
        .collect();
    let slot_of = |i: usize| -> Option<usize> {
        let e = s.exponents[i];
        if e == NO_EXPONENT {
            return None;
        }
        let k = s.bins.iter().position(|b| b.exponent == i32::from(e))?;
        s.bins[k].level?;
        slots.iter().position(|&(ex, _)| ex == i32::from(e))
    };
    let is_half = |a: BinArithmetic| a.format == Format::FP16 && a.accumulator == Format::FP16;
    let order = TileOrder {
        n: x.len(),
        tile: c.tile,
    };
    let (tile, tiles, n) = (order.tile_len(), order.tiles(), x.len());
    let mut partials = vec![vec![0.0; tiles]; slots.len()];
    for p in 0..tiles.div_ceil(2) {
        let (t0, t1) = (2 * p, 2 * p + 1);
        let mut acc = vec![[0.0f64; 2]; slots.len()];
        let mut acc2 = vec![[0.0f64; 2]; slots.len()];
        // kernels/qdot.cu's qdot_span: [first, end) in steps of `step`.
        let span = |t: usize| match c.layout {
            TileLayout::Contiguous => (t * tile, 1, (t * tile + tile).min(n)),
            TileLayout::Interleaved => (t, tiles, n),
        };
        let (begin0, step, end0) = span(t0);
        let (begin1, _, end1) = span(t1);
        let end1 = if t1 < tiles { end1 } else { begin1 };
        let mut j = 0;
        while begin0 + j * step < end0 {
            let (i0, i1) = (begin0 + j * step, begin1 + j * step);
            let s0 = slot_of(i0);
            let s1 = if i1 < end1 { slot_of(i1) } else { None };
            let half_of = |v: f64| Format::FP16.round(scaled(v, c.fexp), RNE);
            let lane = |sl: usize, i: usize, acc: f64| -> f64 {
                let a = slots[sl].1;
                let xa = a.format.round(scaled(x[i], c.fexp), RNE);
                let yb = a.format.round(scaled(y[i], c.fexp), RNE);
                a.accumulator.fma(xa, yb, acc, RNE)
            };
            match (s0, s1) {
                (Some(a), Some(b)) if a == b && is_half(slots[a].1) => {
                    acc2[a] = half2_step(
                        acc2[a],
                        [half_of(x[i0]), half_of(x[i1])],
                        [half_of(y[i0]), half_of(y[i1])],
                        [true, true],
                    );
                }
                _ => {
                    if let Some(a) = s0 {
                        if is_half(slots[a].1) {
                            let (hx, hy) = (half_of(x[i0]), half_of(y[i0]));
                            acc2[a] = half2_step(acc2[a], [hx, 0.0], [hy, 0.0], [true, false]);
                        } else {
                            acc[a][0] = lane(a, i0, acc[a][0]);
                        }
                    }
                    if let Some(b) = s1 {
                        if is_half(slots[b].1) {
                            let (hx, hy) = (half_of(x[i1]), half_of(y[i1]));
                            acc2[b] = half2_step(acc2[b], [0.0, hx], [0.0, hy], [false, true]);
                        } else {
                            acc[b][1] = lane(b, i1, acc[b][1]);
                        }
                    }
                }
            }
            j += 1;
        }
        for (sl, &(_, a)) in slots.iter().enumerate() {
            let v = if is_half(a) { acc2[sl] } else { acc[sl] };
            partials[sl][t0] = v[0];
            if t1 < tiles {
                partials[sl][t1] = v[1];
            }
        }
    }
    let mut z: Option<f64> = None;
    for (sl, &(exponent, a)) in slots.iter().enumerate() {
        let sum = tree_levels(&partials[sl], |u, v| a.accumulator.add(u, v, RNE));
        let zk = scale_round(c.input.round(sum, RNE), exponent, c.input);
        z = Some(z.map_or(zk, |acc| c.input.add(acc, zk, RNE)));
    }
    z.unwrap_or(0.0)
}

fn fp16_configs() -> Vec<QdotConfig> {
    let mut out = Vec::new();
    for fexp in Fexp::ALL {
        for ladder in [Ladder::Paper, Ladder::Bf16] {
            for tile in [0, 1, 2, 3, 7, 64] {
                for layout in [TileLayout::Contiguous, TileLayout::Interleaved] {
                    out.push(fp64_config(
                        fexp,
                        HalfMode::Fp16,
                        ladder,
                        (tile, false),
                        layout,
                    ));
                }
            }
        }
    }
    out
}

fn inputs() -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let mut out = Vec::new();
    for (i, d) in [
        PaperDistribution::A {
            t: 40,
            signed: true,
        },
        PaperDistribution::B {
            t: 9,
            signed: false,
        },
        PaperDistribution::B { t: 3, signed: true },
    ]
    .into_iter()
    .enumerate()
    {
        for n in [1usize, 2, 17, 129, 2000] {
            let seed = 300 + i as u64;
            out.push((
                format!("{d:?} n={n}"),
                d.sample(seed, 0, n),
                d.sample(seed, 1, n),
            ));
        }
    }
    // One bin, both lanes always in it (the fp16x2 path proper); a long
    // positive chain that stagnates; zeros between.
    let x: Vec<f64> = (0..3001).map(|i| 1.0 + (i % 97) as f64 / 97.0).collect();
    let y: Vec<f64> = (0..3001).map(|i| 1.0 + (i % 89) as f64 / 89.0).collect();
    out.push(("one bin".into(), x.clone(), y.clone()));
    let mut xz = x;
    for (i, v) in xz.iter_mut().enumerate() {
        if i % 5 == 0 {
            *v = 0.0;
        }
    }
    out.push(("one bin with zeros".into(), xz, y));
    out
}

#[test]
fn the_fp16x2_pair_schedule_is_the_cpu_models_order_bit_for_bit_and_within_the_bound() {
    let mut checked = 0;
    let mut half_bins = 0;
    for c in fp16_configs() {
        for eps in [1e-8, 1e-3, 0.25] {
            let eps = Tolerance::new(eps).expect("in (0, 1)");
            for (name, x, y) in inputs() {
                let what = format!("{name}, eps {:e}, {c}", eps.value());
                let s = select(&x, &y, eps, &c).expect("finite");
                if s.early_exit {
                    continue;
                }
                let levels = c.levels();
                half_bins += s
                    .bins
                    .iter()
                    .filter(|b| b.level.is_some_and(|l| levels[l].name == "half"))
                    .count();
                let model = compute(&x, &y, &s, &c).unwrap().value;
                let lanes = half2_schedule(&x, &y, &s, &c);
                assert_eq!(
                    lanes.to_bits(),
                    model.to_bits(),
                    "{what}: fp16x2 schedule {lanes:e}, model {model:e}"
                );
                let exact = oracle::dot(&x, &y).expect("same lengths");
                let bounds = evaluate(&x, &y, &s, &c, eps, &exact).expect("checker");
                let bound = bounds.rigorous.expect("the rigorous bound applies");
                let err = exact
                    .error_of(model)
                    .absolute_up()
                    .expect("a finite result");
                assert!(
                    err <= bound.value,
                    "{what}: rigorous bound {:e} < error {err:e}",
                    bound.value
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} runs");
    assert!(half_bins > 200, "only {half_bins} half bins were exercised");
}

/// The masked lane is restored by a bit select, so the schedule does not
/// depend on `x + 0 = x` (which fails for `x = -0`); the model's chain never
/// holds -0 anyway. Here: a lane-only step leaves the other lane's bits,
/// -0 and infinity included.
#[test]
fn a_lane_only_step_keeps_the_other_lane() {
    for other in [-0.0, 0.0, f64::INFINITY, 65504.0, -3.5] {
        let r = half2_step([1.0, other], [1.5, 0.0], [0.75, 0.0], [true, false]);
        assert_eq!(r[0], Format::FP16.round(1.0 + 1.125, RNE));
        assert_eq!(r[1].to_bits(), other.to_bits());
    }
    // The fp16 sum overflows to infinity as add.rn.f16x2 does.
    let r = half2_step([65504.0, 0.0], [2.0, 0.0], [8.0, 0.0], [true, true]);
    assert_eq!(r[0], f64::INFINITY);
}

/// The device test `fp16x2_half_bins_match_the_cpu_model_bit_for_bit`
/// (tests/qdot_gpu.rs) uses this input family (a copy of its generator):
/// check here, without a device, that it selects half bins for every n and
/// tile it runs, so that test exercises the fp16x2 path.
#[test]
fn the_device_tests_one_binade_input_is_computed_in_half() {
    for n in [1usize, 2, 3, 255, 256, 257, 10_001, 1_000_003] {
        let (x, y) = one_binade(n);
        for tile in [0usize, 1, 2, 3, 64, 1000] {
            let mut c = QdotConfig::new(Format::FP64).expect("fp64");
            (c.half, c.tile, c.early_exit) = (HalfMode::Fp16, tile, false);
            let eps = Tolerance::new(0.01).expect("in (0, 1)");
            let s = select(&x, &y, eps, &c).expect("finite");
            let levels = c.levels();
            assert!(
                s.bins
                    .iter()
                    .any(|b| b.level.is_some_and(|l| levels[l].name == "half")),
                "n {n}, tile {tile}: {:?}",
                s.bins
            );
            if n < 100_000 {
                assert_eq!(
                    half2_schedule(&x, &y, &s, &c).to_bits(),
                    compute(&x, &y, &s, &c).unwrap().value.to_bits(),
                    "n {n}, tile {tile}"
                );
            }
        }
    }
}
