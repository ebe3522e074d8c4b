//! HotSpot3D in the lockstep runner and the executor (Freytag 2023, §4.2.1,
//! Fig. 4.3/4.9): profile rows, the binary64 ground truth against exact
//! rational arithmetic, conversions only where the format changes, the
//! executed trajectory checked every iteration, and the bad inputs of the
//! issue (fp16 overflow of the state, non-finite values, zero grids).

use boundgate::kernels::interleave::bound::{Start, exact_trajectory};
use boundgate::kernels::interleave::clock::Clock;
use boundgate::kernels::interleave::error::InterleaveError;
use boundgate::kernels::interleave::execute::{Verdict, execute};
use boundgate::kernels::interleave::grid::Grid3;
use boundgate::kernels::interleave::hotspot::HotSpot3D;
use boundgate::kernels::interleave::profile::Profile;
use boundgate::kernels::interleave::runner::{BranchSpec, Ending, RunOptions, run_lockstep};
use boundgate::kernels::interleave::schedule::Schedule;
use boundgate::kernels::interleave::version::Version::{Float, Half, Looperf};
use std::path::Path;

const SEED: u64 = 1;

fn app(nx: usize, ny: usize, nz: usize) -> HotSpot3D {
    HotSpot3D::synthetic(Grid3::new(nx, ny, nz).unwrap(), SEED).unwrap()
}

fn options(iterations: usize, ground_truth: bool, limits: Vec<f64>) -> RunOptions {
    RunOptions {
        iterations,
        clock: Clock::DEFAULT,
        ground_truth,
        limits,
    }
}

#[test]
fn profiles_have_the_conversion_row_and_the_ground_truth_columns() {
    println!("seed {SEED}");
    let a = app(16, 16, 4);
    let run = run_lockstep(&a, &[BranchSpec::single(Half)], &options(30, true, vec![])).unwrap();
    let half = run.branches[0].profile().unwrap();
    assert_eq!(run.branches[0].ending, Ending::Completed);
    let rows = half.rows();
    assert_eq!(rows.len(), 31);
    // Row 0: the conversion before iteration 1 (binary32 data -> binary16), with its cost.
    assert_eq!((rows[0].iteration, rows[0].kernel), (0, Half));
    assert!(rows[0].runtime_ms > 0.0);
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r.iteration, k);
        let g = r.ground_truth.expect("ground truth requested");
        // The exact loss's enclosure contains the computed one.
        assert!(
            g.loss_lower <= r.accuracy_loss && r.accuracy_loss <= g.loss_upper,
            "{r:?}"
        );
    }
    assert!(rows[30].accuracy_loss > 0.0);
    // The float reference's own error against binary64 is visible (and smaller than half's).
    let last = rows[30].ground_truth.unwrap();
    assert!(last.reference_error_vs_fp64 > 0.0);
    assert!(last.reference_error_vs_fp64 < last.error_vs_fp64);
    // The profile CSV round-trips.
    assert_eq!(
        Profile::parse(&half.to_csv(), Path::new("p.csv")).unwrap(),
        half
    );
}

#[test]
fn the_rigorous_bound_holds_against_exact_rational_arithmetic() {
    // `boundgate run hotspot3d` with oracle=exact: the running bound of
    // kernels::interleave::bound against the exact trajectory, every version.
    use boundgate::io::Tensor;
    use boundgate::kernels::interleave::kernel::HotSpot3DKernel;
    use boundgate::kernels::{Inputs, Params};
    use boundgate_verify::check::Outcome;
    let g = Grid3::new(5, 4, 2).unwrap();
    let a = HotSpot3D::synthetic(g, SEED).unwrap();
    let mut inputs = Inputs::new();
    inputs.insert(
        "temp".into(),
        Tensor::matrix(8, 5, a.temp().to_vec()).unwrap(),
    );
    inputs.insert(
        "power".into(),
        Tensor::matrix(8, 5, a.power().to_vec()).unwrap(),
    );
    for (version, oracle) in [
        ("float", "exact"),
        ("half", "exact"),
        ("looperf", "exact"),
        ("double", "exact"),
        ("half", "certified"),
    ] {
        let pairs: Vec<String> = vec![
            format!("version={version}"),
            "iterations=13".into(),
            "layers=2".into(),
            format!("oracle={oracle}"),
        ];
        let params = Params::parse(&HotSpot3DKernel, &pairs).unwrap();
        let run = boundgate::kernels::Kernel::run(&HotSpot3DKernel, &inputs, &params).unwrap();
        for v in run.verdicts().unwrap() {
            assert_eq!(
                v.verdict.outcome,
                Outcome::Pass,
                "{version} {oracle} {}: {:?}",
                v.label,
                v.verdict
            );
        }
    }
    // The exact oracle agrees with the rational trajectory of the bound module.
    let x = exact_trajectory(&a, Float, Start::AsGiven, 3).unwrap();
    assert_eq!(x.len(), g.cells());
}

#[test]
fn forks_give_the_same_bits_as_fresh_runs() {
    let a = app(12, 10, 3);
    let fork = BranchSpec::new(vec![(0, Half), (7, Float), (12, Half)]).unwrap();
    let together = run_lockstep(
        &a,
        &[BranchSpec::single(Half), fork.clone()],
        &options(20, false, vec![]),
    )
    .unwrap();
    let alone = run_lockstep(&a, &[fork], &options(20, false, vec![])).unwrap();
    let l1: Vec<f64> = together.branches[1]
        .path
        .iter()
        .map(|r| r.accuracy_loss)
        .collect();
    let l2: Vec<f64> = alone.branches[0]
        .path
        .iter()
        .map(|r| r.accuracy_loss)
        .collect();
    assert_eq!(l1, l2);
}

#[test]
fn conversions_happen_only_where_the_format_changes() {
    let a = app(8, 8, 2);
    // half -> looperf (binary32 storage) -> float: two conversions (0 and 10), none at 20.
    let s = Schedule::new(30, vec![(0, Half), (10, Looperf), (20, Float)]).unwrap();
    let e = execute(&a, &s, 1.0, Clock::DEFAULT, false).unwrap();
    let at: Vec<usize> = e.conversions().iter().map(|c| c.iteration).collect();
    assert_eq!(at, vec![0, 10]);
    assert!(e.respects_limit());
    // A float-only schedule converts nothing and has speedup 1.
    let f = execute(
        &a,
        &Schedule::single(30, Float).unwrap(),
        1.0,
        Clock::DEFAULT,
        false,
    )
    .unwrap();
    assert!(f.conversions().is_empty());
    assert_eq!(f.speedup, Some(1.0));
}

#[test]
fn the_executor_names_every_iteration_over_the_limit() {
    let a = app(16, 16, 4);
    let s = Schedule::single(40, Half).unwrap();
    let free = execute(&a, &s, 1.0, Clock::DEFAULT, false).unwrap();
    let losses: Vec<f64> = free.run.path.iter().map(|r| r.accuracy_loss).collect();
    // Between two profile values, so that the exact decision and the rounded
    // losses agree (at a printed value itself the exact loss may lie above it).
    let limit = 0.5 * (losses[20] + losses[21]);
    assert!(losses[20] < losses[21]);
    let e = execute(&a, &s, limit, Clock::DEFAULT, true).unwrap();
    let want: Vec<usize> = (0..=40).filter(|&i| losses[i] > limit).collect();
    assert!(!want.is_empty());
    match &e.verdict {
        Verdict::Exceeded {
            iterations,
            max_loss,
        } => {
            assert_eq!(iterations, &want);
            assert_eq!(*max_loss, losses.iter().copied().fold(0.0, f64::max));
        }
        v => panic!("expected Exceeded, got {v:?}"),
    }
    let rows = e.side_by_side(None);
    assert_eq!(
        rows.iter()
            .filter(|r| r.over)
            .map(|r| r.iteration)
            .collect::<Vec<_>>(),
        want
    );
    // Thresholds <= 0 are typed errors.
    for bad in [0.0, -1.0, f64::NAN] {
        assert!(matches!(
            execute(&a, &s, bad, Clock::DEFAULT, false),
            Err(InterleaveError::InvalidThreshold { .. })
        ));
    }
}

#[test]
fn fp16_overflow_of_the_state_ends_the_run_with_an_explicit_verdict() {
    // Temperatures above binary16's 65504: the conversion to half overflows.
    let g = Grid3::new(6, 5, 2).unwrap();
    let mut temp = vec![300.0; g.cells()];
    temp[7] = 70000.0;
    let a = HotSpot3D::new(g, temp, vec![1.0; g.cells()]).unwrap();
    let run = run_lockstep(
        &a,
        &[BranchSpec::single(Half), BranchSpec::single(Float)],
        &options(5, false, vec![]),
    )
    .unwrap();
    assert!(
        matches!(
            run.branches[0].ending,
            Ending::ConversionOverflow { index: 7, .. }
        ),
        "{:?}",
        run.branches[0].ending
    );
    assert_eq!(run.branches[1].ending, Ending::Completed);
    let e = execute(
        &a,
        &Schedule::single(5, Half).unwrap(),
        0.5,
        Clock::DEFAULT,
        false,
    )
    .unwrap();
    assert!(matches!(
        e.verdict,
        Verdict::Ended {
            ending: Ending::ConversionOverflow { .. },
            ..
        }
    ));
    assert!(!e.respects_limit());
    // A run that ended before its last iteration has no speedup (its runtime
    // covers only the iterations before the end; it once printed -inf).
    assert_eq!(e.speedup, None);
}

#[test]
fn a_power_beyond_binary16_stops_only_the_half_version() {
    // Powers of 1e5 fit binary32: float, looperf and double run on them; the
    // half version stores them in binary16, where they overflow (review,
    // 2026-11-25: every version refused them, as a state conversion).
    let g = Grid3::new(4, 4, 2).unwrap();
    let mut power = vec![1.0; g.cells()];
    power[5] = 1e5;
    let a = HotSpot3D::new(g, vec![300.0; g.cells()], power).unwrap();
    assert_eq!(a.half_power_overflow(), Some((5, 1e5)));
    let float_only = execute(
        &a,
        &Schedule::single(6, Float).unwrap(),
        1.0,
        Clock::DEFAULT,
        false,
    )
    .unwrap();
    assert_eq!(float_only.run.ending, Ending::Completed);
    assert_eq!(float_only.speedup, Some(1.0));
    let switch = Schedule::new(6, vec![(0, Float), (3, Half)]).unwrap();
    let e = execute(&a, &switch, 1.0, Clock::DEFAULT, false).unwrap();
    assert_eq!(
        e.run.ending,
        Ending::PowerOverflow {
            iteration: 3,
            index: 5,
            value: 1e5
        }
    );
    assert_eq!(e.speedup, None);
    assert!(
        e.run.ending.to_string().contains("power 5 = 1e5"),
        "{}",
        e.run.ending
    );
}

#[test]
fn overflow_mid_run_is_reported_at_its_iteration() {
    // A state just below 65504 with a large power: the half run overflows to
    // infinity after some iterations (then inf - inf could give NaN): the run
    // ends with NonFinite at that iteration, the float run goes on.
    let g = Grid3::new(64, 64, 2).unwrap();
    let a = HotSpot3D::new(g, vec![60000.0; g.cells()], vec![20000.0; g.cells()]).unwrap();
    let k = a.coefficients();
    // The uniform field's equilibrium amb + (sdc / ct) P lies far above 65504.
    assert!(k.amb + k.sdc / k.ct * 20000.0 > 1e5, "{k:?}");
    let run = run_lockstep(
        &a,
        &[BranchSpec::single(Half), BranchSpec::single(Float)],
        &options(400, false, vec![]),
    )
    .unwrap();
    assert_eq!(run.branches[1].ending, Ending::Completed);
    match run.branches[0].ending {
        Ending::NonFinite {
            iteration, value, ..
        } => {
            assert!(iteration >= 1 && !value.is_finite());
            assert_eq!(run.branches[0].path.len(), iteration);
        }
        ref other => panic!("expected NonFinite, got {other:?}"),
    }
}

#[test]
fn bad_problems_are_typed_errors() {
    assert!(Grid3::new(0, 4, 4).is_err());
    assert!(Grid3::new(4, 4, 0).is_err());
    assert!("512x0x8".parse::<Grid3>().is_err());
    let g = Grid3::new(2, 2, 1).unwrap();
    assert!(matches!(
        HotSpot3D::new(g, vec![1.0, f64::NAN, 1.0, 1.0], vec![0.0; 4]),
        Err(InterleaveError::NonFinite { index: 1, .. })
    ));
    assert!(HotSpot3D::new(g, vec![1.0; 3], vec![0.0; 4]).is_err());
    // A power that overflows binary16 cannot be run in half, but it is a
    // problem the other versions run (a_power_beyond_binary16_stops_only_the_half_version);
    // one beyond binary32, which every run reads, is refused.
    assert!(HotSpot3D::new(g, vec![1.0; 4], vec![1e6; 4]).is_ok());
    assert!(HotSpot3D::new(g, vec![1.0; 4], vec![1e39; 4]).is_err());
    // A pass that would keep more than MAX_ROWS rows (gigabytes) is refused
    // before it runs.
    let long = options(
        boundgate::kernels::interleave::runner::MAX_ROWS,
        false,
        vec![],
    );
    let refused = run_lockstep(&app(1, 1, 1), &[BranchSpec::single(Half)], &long);
    assert!(
        matches!(&refused, Err(InterleaveError::InvalidParameter { reason, .. }) if reason.contains("rows")),
        "{refused:?}"
    );
    // Zero iterations.
    assert!(
        run_lockstep(
            &app(4, 4, 1),
            &[BranchSpec::single(Half)],
            &options(0, false, vec![])
        )
        .is_err()
    );
}

#[test]
fn run_lockstep_refuses_a_cost_model_it_cannot_clock() {
    use boundgate::kernels::interleave::clock::CostModel;
    let a = app(4, 4, 1);
    let base = CostModel::A100_THESIS;
    for m in [
        CostModel {
            float_ns_per_cell: f64::NAN,
            ..base
        },
        CostModel {
            half_ns_per_cell: -1.0,
            ..base
        },
        CostModel {
            convert_ns_per_cell: f64::INFINITY,
            ..base
        },
        // finite, but 1e300 ns per iteration overflowed the u64 virtual clock
        CostModel {
            half_ns_per_cell: 1e300,
            ..base
        },
    ] {
        let o = RunOptions {
            clock: Clock::Model(m),
            ..options(3, false, vec![])
        };
        assert!(matches!(
            run_lockstep(&a, &[BranchSpec::single(Half)], &o),
            Err(InterleaveError::InvalidParameter { .. })
        ));
    }
    let o = RunOptions {
        clock: Clock::Model(base),
        ..options(3, false, vec![])
    };
    assert!(run_lockstep(&a, &[BranchSpec::single(Half)], &o).is_ok());
}
