//! The thesis's pipeline (Freytag 2023, §4.2) as pure functions: every
//! choice made where the thesis is ambiguous (docs/interleave.md) is pinned
//! here on hand-made profiles with known answers, and the simulation's
//! guarantees are checked as properties.

use boundgate::generate::proptest_config;
use boundgate::kernels::interleave::error::{InterleaveError, require_threshold};
use boundgate::kernels::interleave::phases::{intersections, mean_iteration, select};
use boundgate::kernels::interleave::profile::{Profile, Row};
use boundgate::kernels::interleave::schedule::Schedule;
use boundgate::kernels::interleave::sections::SectionGrid;
use boundgate::kernels::interleave::simulate::{Policy, simulate};
use boundgate::kernels::interleave::stats::{
    ProfileRole, Statistics, Targets, check_step1_profile, check_step1_profiles,
};
use boundgate::kernels::interleave::version::Version::{self, Float, Half, Looperf};
use proptest::prelude::*;
use std::path::Path;

fn row(kernel: Version, iteration: usize, loss: f64, ms: f64) -> Row {
    Row {
        kernel,
        iteration,
        start_timestamp: iteration as u64 * 10,
        end_timestamp: iteration as u64 * 10 + 10,
        runtime_ms: ms,
        accuracy_loss: loss,
        ground_truth: None,
    }
}

/// A profile from `first` on, one kernel after the starting row.
fn profile(first: usize, start_loss: f64, kernel: Version, losses: &[f64], ms: f64) -> Profile {
    let mut rows = vec![row(
        kernel,
        first,
        start_loss,
        if first == 0 { 0.0 } else { ms },
    )];
    for (k, &l) in losses.iter().enumerate() {
        rows.push(row(kernel, first + k + 1, l, ms));
    }
    Profile::new(rows).unwrap()
}

/// A linear approximate profile: loss `rate * i`, N iterations.
fn linear(n: usize, rate: f64) -> Profile {
    let losses: Vec<f64> = (1..=n).map(|i| rate * i as f64).collect();
    profile(0, 0.0, Half, &losses, 1.0)
}

#[test]
fn mean_iteration_rounds_half_up() {
    assert_eq!(mean_iteration(&[1, 2]), Some(2));
    assert_eq!(mean_iteration(&[5]), Some(5));
    assert_eq!(mean_iteration(&[1, 2, 3, 4]), Some(3));
    assert_eq!(mean_iteration(&[7, 8, 9]), Some(8));
}

#[test]
fn grid_spans_the_approximate_profile_and_its_largest_loss() {
    // A non-monotone profile: L_max is the largest loss, not the final one.
    let p = profile(0, 0.0, Half, &[0.1, 0.4, 0.3, 0.2], 1.0);
    let g = SectionGrid::from_profile(&p, 2).unwrap();
    assert_eq!((g.iterations(), g.max_loss()), (4, 0.4));
    // The conversion row does not count (it is not a kernel iteration).
    let cells = intersections(&p, &g);
    assert_eq!(cells.values().map(Vec::len).sum::<usize>(), 4);
}

#[test]
fn phase_one_forks_at_the_mean_iteration_of_each_intersected_cell() {
    let p = linear(8, 0.01); // losses 0.01 .. 0.08, grid 2x2 over [0,8] x [0,0.08]
    let g = SectionGrid::from_profile(&p, 2).unwrap();
    let points = select(std::slice::from_ref(&p), &g);
    // Cell 0 (i < 4, L < 0.04): iterations 1..3 -> mean 2.
    // Cell 2 (i < 4, L >= 0.04): none.  Cell 3 (i >= 4, L >= 0.04): 4..8 -> 6, but 8 = N is dropped only if chosen.
    let got: Vec<(usize, usize)> = points.iter().map(|t| (t.cell, t.iteration)).collect();
    assert_eq!(got, vec![(0, 2), (3, 6)]);
}

#[test]
fn later_phases_take_the_curve_closest_to_the_cell_centre() {
    let g = SectionGrid::new(2, 10, 1.0).unwrap();
    // Both curves cross cell 1 (i in [5, 10), L < 0.5), centre (7.5, 0.25).
    let far = profile(4, 0.0, Float, &[0.45, 0.45, 0.45, 0.45, 0.45, 0.45], 1.0);
    let near = profile(4, 0.0, Float, &[0.2, 0.26, 0.3, 0.3, 0.3, 0.3], 1.0);
    let points = select(&[far.clone(), near.clone()], &g);
    let cell1 = points.iter().find(|t| t.cell == 1).unwrap();
    assert_eq!(cell1.curve, 1);
    // A tie goes to the earlier curve.
    let points = select(&[near.clone(), near], &g);
    assert_eq!(points.iter().find(|t| t.cell == 1).unwrap().curve, 0);
}

#[test]
fn a_test_point_at_the_last_iteration_is_dropped() {
    let p = profile(0, 0.0, Half, &[0.0, 0.0, 1.0], 1.0);
    let g = SectionGrid::from_profile(&p, 1).unwrap();
    // One cell; iterations 1, 2, 3: mean 2 < N = 3, kept.
    assert_eq!(select(std::slice::from_ref(&p), &g)[0].iteration, 2);
    let g = SectionGrid::new(3, 3, 1.0).unwrap();
    // Cell of (3, 1.0): column 2, row 2, only iteration 3 = N: dropped.
    assert!(select(&[p], &g).iter().all(|t| t.iteration < 3));
}

#[test]
fn statistics_attribute_measurements_to_their_start_cell_and_average_averages() {
    let g = SectionGrid::new(2, 10, 1.0).unwrap();
    let base = profile(
        0,
        0.0,
        Half,
        &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        1.0,
    );
    // Two exact measurements starting in cell 2 (i < 5, L >= 0.5)? No: starts at (4, 0.4) -> cell 0.
    let m1 = profile(4, 0.4, Float, &[0.38, 0.36, 0.34], 2.0); // rates -0.02 while in cell 0 (start (4, .4) only)
    let m2 = profile(3, 0.3, Float, &[0.2, 0.1, 0.1, 0.1], 4.0); // starts (3, .3): its iterations starting in cell 0 are 4 and 5
    let st = Statistics::new(&g, &base, &[m1, m2]).unwrap();
    let c0 = st.cells[0].exact.unwrap();
    // m1: only iteration 5 starts in cell 0 (start (4, 0.4)); (5, 0.38) is in column 1.
    // m2: iterations 4 (from (3,.3)) and 5 (from (4,.2)) start in cell 0: mean (-0.1 + -0.1)/2 = -0.1.
    // Average of averages: (-0.02 + -0.1) / 2.
    assert!((c0.rate - (-0.06)).abs() < 1e-12, "{c0:?}");
    assert_eq!(c0.measurements, 2);
    assert!((c0.runtime_ms - 3.0).abs() < 1e-12);
    // The baseline counts in every cell it crosses: cell 0 holds iterations 1..5 (start points 0..4).
    let b0 = st.cells[0].baseline.unwrap();
    assert!((b0.rate - 0.1).abs() < 1e-12 && b0.iterations == 5);
    // No exact measurement in cell 3: the nearest cell with one (cell 0 via 1 or 2, ties to the lower id).
    let (s, source) = st.lookup(true, 3).unwrap();
    assert_eq!(source, 0);
    assert_eq!(s, c0);
}

#[test]
fn missing_statistics_and_mixed_measurements_are_typed_errors() {
    let g = SectionGrid::new(2, 4, 1.0).unwrap();
    let base = linear(4, 0.25);
    let st = Statistics::new(&g, &base, &[]).unwrap();
    assert!(matches!(
        st.lookup(true, 0),
        Err(InterleaveError::NoStatistics { .. })
    ));
    let mixed = Profile::new(vec![
        row(Half, 1, 0.1, 1.0),
        row(Half, 2, 0.2, 1.0),
        row(Float, 3, 0.1, 1.0),
    ])
    .unwrap();
    assert!(Statistics::new(&g, &base, &[mixed]).is_err());
}

#[test]
fn targets_follow_the_thesis_formula_and_need_consistent_profiles() {
    let a = profile(0, 0.0, Half, &[0.0; 4], 1.0);
    let e = profile(0, 0.0, Float, &[0.0; 4], 3.0);
    let t = Targets::new(&a, &e).unwrap();
    for k in 1..=4 {
        for i in 0..=4 {
            let want = i as f64 + k as f64 / 4.0 * (3.0 * i as f64 - i as f64);
            assert_eq!(t.target(k, i), want);
        }
    }
    let short = profile(0, 0.0, Float, &[0.0; 3], 3.0);
    assert!(Targets::new(&a, &short).is_err());
    let late = profile(1, 0.0, Float, &[0.0; 3], 3.0);
    assert!(Targets::new(&a, &late).is_err());
}

/// The field of a file error, or a panic naming what came instead.
fn file_field<T: std::fmt::Debug>(result: Result<T, InterleaveError>) -> String {
    match result {
        Err(InterleaveError::File { field, .. }) => field,
        other => panic!("expected a file error, got {other:?}"),
    }
}

#[test]
fn step1_profiles_must_run_their_kernel_from_iteration_0_with_finite_runtimes() {
    let approx = profile(0, 0.0, Half, &[0.1, 0.2, 0.3, 0.4], 1.0);
    let exact = profile(0, 0.0, Float, &[0.0; 4], 3.0);
    let (a, e) = (Path::new("approx.csv"), Path::new("exact.csv"));
    assert_eq!(
        check_step1_profiles((&approx, a), (&exact, e)).unwrap(),
        Half
    );
    // Each of these gave targets (and a schedule) until 2026-11-25 (review).
    // An "exact" profile that runs the approximate kernel.
    assert_eq!(file_field(Targets::new(&approx, &approx)), "kernel");
    // An approximate profile that mixes kernels.
    let mut rows = approx.rows().to_vec();
    rows[2].kernel = Looperf;
    let mixed = Profile::new(rows).unwrap();
    assert_eq!(file_field(Targets::new(&mixed, &exact)), "kernel");
    let err = check_step1_profile(&mixed, ProfileRole::Approximate, a).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "approx.csv: kernel: iteration 2 runs looperf where iteration 0 runs half"
        ),
        "{err}"
    );
    // Runtimes whose sum overflows: every target would be infinite.
    let slow = profile(0, 0.0, Float, &[0.0; 4], 1e308);
    assert_eq!(file_field(Targets::new(&approx, &slow)), "runtime");
    // An approximate profile of the exact kernel: the statistics said
    // "a measurement runs one kernel, float or float" until 2026-11-25.
    let float = profile(0, 0.0, Float, &[0.1, 0.2, 0.3, 0.4], 1.0);
    let g = SectionGrid::new(2, 4, 0.4).unwrap();
    assert_eq!(file_field(Statistics::new(&g, &float, &[])), "kernel");
    let err = check_step1_profile(&float, ProfileRole::Approximate, a).unwrap_err();
    assert!(
        err.to_string()
            .contains("the approximate profile runs float: it must run half or looperf"),
        "{err}"
    );
    // A measurement of a third kernel is named by its position.
    let looperf = profile(1, 0.1, Looperf, &[0.2, 0.3], 1.0);
    let err = Statistics::new(&g, &approx, &[looperf]).unwrap_err();
    assert!(
        err.to_string().starts_with("<measurement 0>: kernel"),
        "{err}"
    );
    // Not from iteration 0, or over other iterations.
    let late = profile(1, 0.1, Half, &[0.2, 0.3, 0.4], 1.0);
    assert_eq!(
        file_field(check_step1_profile(&late, ProfileRole::Approximate, a)),
        "iteration"
    );
    let short = profile(0, 0.0, Float, &[0.0; 3], 3.0);
    let err = check_step1_profiles((&approx, a), (&short, e)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("exact.csv: iteration: ends at iteration 3"),
        "{err}"
    );
}

/// Statistics with one cell where the approximate kernel adds `up` per
/// iteration and the exact one `down` (negative: retraction), and the targets
/// of `approx_ms` and `exact_ms` per iteration.
fn uniform_stats(
    n: usize,
    up: f64,
    down: f64,
    approx_ms: f64,
    exact_ms: f64,
) -> (Statistics, Targets) {
    let losses: Vec<f64> = (1..=n).map(|i| up * i as f64).collect();
    let base = profile(0, 0.0, Half, &losses, approx_ms);
    let g = SectionGrid::new(1, n, up * n as f64).unwrap();
    // One exact measurement of one iteration, from a start that keeps the loss >= 0.
    let s0 = (-down).max(0.0);
    let m = Profile::new(vec![
        row(Half, 0, s0, 0.0),
        row(Float, 1, s0 + down, exact_ms),
    ])
    .unwrap();
    let st = Statistics::new(&g, &base, &[m]).unwrap();
    let exact = profile(0, 0.0, Float, &vec![0.0; n], exact_ms);
    (st, Targets::new(&base, &exact).unwrap())
}

// Binary fractions so that the simulated sums are exact.
const UP: f64 = 1.0 / 64.0;
const LIMIT: f64 = 5.0 / 64.0;

#[test]
fn thesis_rule_switches_when_the_limit_is_reached_and_back_at_the_first_target() {
    // Approx +1/64 per iteration (cost 1), exact -1/128 (cost 2), limit 5/64.
    let (st, t) = uniform_stats(40, UP, -UP / 2.0, 1.0, 2.0);
    let sim = simulate(&st, &t, LIMIT, Policy::Thesis, 0.0, 0.0).unwrap();
    let s = sim.schedule.switches();
    // Five approximate iterations reach the limit exactly: switch after 5.
    assert_eq!(&s[..2], &[(0, Half), (5, Float)]);
    // Runtime 5 + 2k against T_1(5 + k) = 1.25 (5 + k): reached at k = 2 with
    // the loss decreased, so back to half after 7 (before the 50 % retraction at k = 5).
    assert_eq!(s[2], (7, Half));
    assert!(sim.trace.iter().any(|x| x.loss >= LIMIT));
}

#[test]
fn thesis_rule_switches_back_once_half_the_limit_has_retracted() {
    // The exact kernel retracts half the limit in one iteration, before any target.
    let (st, t) = uniform_stats(40, UP, -LIMIT / 2.0, 1.0, 2.0);
    let sim = simulate(&st, &t, LIMIT, Policy::Thesis, 0.0, 0.0).unwrap();
    assert_eq!(
        &sim.schedule.switches()[..3],
        &[(0, Half), (5, Float), (6, Half)]
    );
}

#[test]
fn exact_runs_to_the_end_once_the_targets_are_spent_without_retraction() {
    // The exact kernel does not retract at all: T_1..T_4 pass without a decrease.
    let (st, t) = uniform_stats(60, UP, 0.0, 1.0, 2.0);
    let sim = simulate(&st, &t, LIMIT, Policy::Thesis, 0.0, 0.0).unwrap();
    assert_eq!(sim.schedule.switches(), &[(0, Half), (5, Float)]);
}

#[test]
fn predictive_rule_leaves_before_the_limit() {
    let (st, t) = uniform_stats(40, UP, -UP / 2.0, 1.0, 2.0);
    let sim = simulate(&st, &t, LIMIT, Policy::Predictive, 0.0, 0.0).unwrap();
    // The 5th approximate iteration would reach the limit: switch after 4.
    assert_eq!(&sim.schedule.switches()[..2], &[(0, Half), (4, Float)]);
    assert!(sim.trace.iter().all(|x| x.loss < LIMIT));
}

#[test]
fn thresholds_must_be_positive_and_finite() {
    let (st, t) = uniform_stats(10, UP, -UP, 1.0, 2.0);
    for bad in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            simulate(&st, &t, bad, Policy::Thesis, 0.0, 0.0),
            Err(InterleaveError::InvalidThreshold { .. })
        ));
        assert!(require_threshold(bad).is_err());
    }
}

#[test]
fn schedule_files_round_trip_and_name_the_bad_line() {
    let s = Schedule::new(
        500,
        vec![(0, Half), (120, Float), (300, Half), (310, Float)],
    )
    .unwrap();
    assert_eq!(
        Schedule::parse(&s.to_text(), Path::new("s.txt")).unwrap(),
        s
    );
    let err =
        Schedule::parse("500\n0 half\n120 float\n100 half\n", Path::new("bad.txt")).unwrap_err();
    assert!(
        err.to_string().starts_with("bad.txt:4: iteration:"),
        "{err}"
    );
    assert!(Schedule::new(0, vec![(0, Half)]).is_err());
    assert!(Schedule::new(10, vec![]).is_err());
    // 2^64 - 1 iterations: refused, not run without end (until 2026-11-25).
    let err = Schedule::parse("18446744073709551615\n0 half\n", Path::new("huge.txt")).unwrap_err();
    assert!(
        err.to_string().starts_with("huge.txt:1: iterations:"),
        "{err}"
    );
    assert!(Schedule::new(usize::MAX, vec![(0, Half)]).is_err());
}

proptest! {
    #![proptest_config(proptest_config(64, 4096))]

    /// The predictive policy never lets the simulated loss reach the limit
    /// (the thesis's rule does, by construction), whatever the statistics.
    #[test]
    fn predictive_simulation_stays_below_the_limit(
        n in 5usize..120,
        sections in 1usize..6,
        rates in proptest::collection::vec(-0.02f64..0.03, 1..40),
        exact_rates in proptest::collection::vec(-0.02f64..0.02, 1..40),
        fraction in 0.05f64..1.0,
    ) {
        // A baseline with the given increments (clamped at 0), exact measurements forked from it.
        let mut losses = Vec::with_capacity(n);
        let mut l = 0.0f64;
        for i in 0..n {
            l = (l + rates[i % rates.len()].abs()).max(0.0);
            losses.push(l);
        }
        prop_assume!(l > 0.0);
        let base = profile(0, 0.0, Half, &losses, 1.0);
        let g = SectionGrid::from_profile(&base, sections).unwrap();
        let mut measurements = Vec::new();
        for (k, &r) in exact_rates.iter().enumerate() {
            let t = (k * n) / exact_rates.len();
            let start = if t == 0 { 0.0 } else { losses[t - 1] };
            let rows: Vec<f64> = (1..=(n - t)).map(|j| (start + r * j as f64).max(0.0)).collect();
            if !rows.is_empty() {
                measurements.push(profile(t, start, Float, &rows, 2.0));
            }
        }
        let st = Statistics::new(&g, &base, &measurements).unwrap();
        let exact = profile(0, 0.0, Float, &vec![0.0; n], 2.0);
        let t = Targets::new(&base, &exact).unwrap();
        let limit = fraction * g.max_loss();
        let sim = simulate(&st, &t, limit, Policy::Predictive, 0.0, 0.0).unwrap();
        for x in &sim.trace {
            prop_assert!(x.loss < limit || x.version == Float, "{x:?} at limit {limit}");
        }
        // Wherever the approximate kernel ran, the loss it produced stayed below the limit.
        for w in sim.trace.windows(2) {
            if w[1].version == Half {
                prop_assert!(w[1].loss < limit);
            }
        }
        // The schedule is valid and round-trips through its file.
        let text = sim.schedule.to_text();
        prop_assert_eq!(Schedule::parse(&text, Path::new("p.txt")).unwrap(), sim.schedule.clone());
        prop_assert_eq!(sim.trace.len(), n + 1);
    }
}

#[test]
fn lookup_refuses_a_cell_outside_the_grid() {
    let (mut st, _) = uniform_stats(4, 0.25, -0.25, 1.0, 2.0);
    assert!(st.lookup(false, 0).is_ok());
    for cell in [1, usize::MAX] {
        assert!(matches!(
            st.lookup(false, cell),
            Err(InterleaveError::InvalidParameter { .. })
        ));
    }
    // `grid` is public: a larger grid than the cells measured is refused too
    st.grid = SectionGrid::new(2, 4, 1.0).unwrap();
    assert!(matches!(
        st.lookup(true, 3),
        Err(InterleaveError::InvalidParameter { .. })
    ));
}

#[test]
fn target_of_hand_built_targets_clamps_to_the_shorter_runtimes() {
    let t = Targets {
        approx_cumulative: vec![0.0, 1.0, 2.0],
        exact_cumulative: vec![0.0, 2.0],
    };
    assert_eq!(t.target(4, 9), 2.0); // i clamped to 1
    let empty = Targets {
        approx_cumulative: vec![],
        exact_cumulative: vec![0.0],
    };
    assert_eq!(empty.target(1, 0), 0.0);
}

#[test]
fn simulate_refuses_a_non_finite_start() {
    let (st, t) = uniform_stats(4, 0.25, -0.25, 1.0, 2.0);
    for (loss, ms) in [(f64::NAN, 0.0), (0.0, f64::NAN), (0.0, f64::INFINITY)] {
        assert!(matches!(
            simulate(&st, &t, 0.5, Policy::Thesis, loss, ms),
            Err(InterleaveError::NonFinite { .. })
        ));
    }
}

#[test]
fn schedule_and_execute_refuses_a_sampling_of_another_length() {
    use boundgate::kernels::interleave::clock::Clock;
    use boundgate::kernels::interleave::grid::Grid3;
    use boundgate::kernels::interleave::hotspot::HotSpot3D;
    use boundgate::kernels::interleave::pipeline::{Prepared, schedule_and_execute};
    let app = HotSpot3D::synthetic(Grid3::new(8, 8, 2).unwrap(), 1).unwrap();
    let p12 = Prepared::new(&app, Half, 12, 2, Clock::DEFAULT).unwrap();
    let p20 = Prepared::new(&app, Half, 20, 2, Clock::DEFAULT).unwrap();
    let limit = p12.profiles.approx.max_loss() / 2.0;
    let run = |profiles, sampling| {
        schedule_and_execute(
            &app,
            profiles,
            sampling,
            limit,
            None,
            Policy::Thesis,
            Clock::DEFAULT,
            false,
        )
    };
    // Both ways round: it returned a schedule of the sampling's length, not
    // the profiles'.
    for (profiles, sampling) in [
        (&p12.profiles, &p20.sampling),
        (&p20.profiles, &p12.sampling),
    ] {
        assert!(matches!(
            run(profiles, sampling),
            Err(InterleaveError::InvalidParameter { name, .. }) if name == "sampling"
        ));
    }
    let s = run(&p12.profiles, &p12.sampling).unwrap();
    assert_eq!(s.execution.schedule.iterations(), 12);
}
