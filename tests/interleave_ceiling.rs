//! Why no schedule of HotSpot3D reaches the 1.3x at `L_max / 4`
//! (docs/findings/interleave.md, "A ceiling at L_max/4"): the loss a half
//! iteration adds is not healed by later float iterations, so a limit caps
//! the number `H` of half iterations whatever their placement, and `N`
//! iterations of which `H` run at `r` times a float iteration's cost take at
//! least `N - H (1 - r)` float iterations' time (conversions only add).
//!
//! Executed, not simulated: `execute_many` runs the CPU model, the device's
//! arithmetic bit for bit (tests/interleave_gpu.rs). The default test uses a
//! 64x64x8 grid and 200 iterations (seconds); `rodinia_size_ceiling` (ignored:
//! minutes on two cores, `--ignored`) measures Rodinia's 512x512x8 and 500.

use boundgate::kernels::interleave::ceiling::{Placement, ceiling, ceilings, stretch};
use boundgate::kernels::interleave::clock::Clock;
use boundgate::kernels::interleave::execute::{Execution, execute_many};
use boundgate::kernels::interleave::grid::Grid3;
use boundgate::kernels::interleave::hotspot::HotSpot3D;
use boundgate::kernels::interleave::schedule::Schedule;
use boundgate::kernels::interleave::version::Version::{self, Float, Half};

/// `half` iterations of half, `float` of float, repeated from iteration 0.
fn periodic(n: usize, half: usize, float: usize) -> Schedule {
    let mut switches = Vec::new();
    let mut i = 0;
    while i < n {
        switches.push((i, Half));
        i += half;
        if i < n {
            switches.push((i, Float));
            i += float;
        }
    }
    Schedule::new(n, switches).unwrap()
}

fn half_iterations(s: &Schedule) -> usize {
    (1..=s.iterations())
        .filter(|&i| s.version_at(i) == Half)
        .count()
}

fn run(app: &HotSpot3D, schedules: &[Schedule], limit: f64) -> Vec<Execution> {
    let items: Vec<(Schedule, f64)> = schedules.iter().map(|s| (s.clone(), limit)).collect();
    execute_many(app, &items, Clock::DEFAULT, false).unwrap()
}

/// The speedup of `n` iterations of which `h` cost `r` times a float one,
/// conversions free: an upper bound on any schedule with `h` half iterations.
fn speedup_bound(n: usize, h: usize, r: f64) -> f64 {
    n as f64 / (n as f64 - h as f64 * (1.0 - r))
}

struct Measured {
    limit: f64,
    longest_head: usize,
    longest_tail: usize,
}

/// `L_max` (the half-only run's largest loss), the limit `L_max / 4`, and the
/// longest half stretch within it at the start and at the end of the run.
fn measure(app: &HotSpot3D, n: usize) -> Measured {
    let half_only = run(app, &[Schedule::single(n, Version::Half).unwrap()], 1.0);
    let limit = half_only[0].max_loss() / 4.0;
    let c = ceiling(app, Half, n, limit, Clock::DEFAULT).unwrap();
    let (longest_head, longest_tail) = (c.longest[0].len, c.longest[1].len);
    println!(
        "L_max {:.5}, limit {limit:.5}; longest half stretch within: {longest_head} at the start, \
         {longest_tail} at the end, of {n}",
        half_only[0].max_loss()
    );
    Measured {
        limit,
        longest_head,
        longest_tail,
    }
}

/// The 1.3x the issue asks for needs `h >= 0.23 n` even if half iterations
/// were free (`r = 0`), and `0.46 n` at `r = 1/2` (a memory-bound kernel
/// moving half the bytes); what the limit allows is checked against both.
fn assert_out_of_reach(n: usize, longest: usize) {
    for r in [0.0, 0.5, 0.608] {
        let c = speedup_bound(n, longest, r);
        println!("ceiling at r = {r}: {c:.3} ({longest} of {n} half iterations)");
        assert!(c < 1.3, "r = {r}: {c}");
    }
}

#[test]
fn float_stretches_do_not_heal_and_the_limit_caps_the_speedup_below_1_3() {
    let n = 200;
    let app = HotSpot3D::synthetic(Grid3::new(64, 64, 8).unwrap(), 1).unwrap();
    let m = measure(&app, n);
    // Splitting the half iterations by float stretches does not buy more of
    // them: every periodic schedule with more half iterations than the
    // longest single stretch exceeds the limit, and its loss per half
    // iteration stays near a single stretch's.
    let longest = m.longest_head.max(m.longest_tail);
    let per_iteration =
        run(&app, &[stretch(n, Half, 0, longest).unwrap()], m.limit)[0].max_loss() / longest as f64;
    let schedules = [
        periodic(n, 5, 5),
        periodic(n, 10, 10),
        periodic(n, 20, 5),
        periodic(n, 5, 20),
        periodic(n, 40, 40),
    ];
    for (s, e) in schedules.iter().zip(run(&app, &schedules, m.limit)) {
        let h = half_iterations(s);
        println!(
            "{:?}...: {h} half, max loss {:.5} ({:.2e} per half iteration)",
            &s.switches()[..3],
            e.max_loss(),
            e.max_loss() / h as f64
        );
        assert!(h > longest, "{h} half iterations");
        assert!(!e.respects_limit(), "{:?}: {}", s.switches(), e.max_loss());
        assert!(
            e.max_loss() >= 0.75 * per_iteration * h as f64,
            "{:?}: {} for {h} half iterations",
            s.switches(),
            e.max_loss()
        );
    }
    assert_out_of_reach(n, longest);
}

/// Rodinia's size (512x512x8, 500 iterations). On the development machine,
/// 2026-11-25 (6 min 22 s in release): see docs/findings/interleave.md.
#[test]
#[ignore = "minutes: the Rodinia-size measurement behind docs/findings/interleave.md"]
fn rodinia_size_ceiling() {
    let n = 500;
    let app = HotSpot3D::synthetic(Grid3::new(512, 512, 8).unwrap(), 1).unwrap();
    let m = measure(&app, n);
    // Re-entering half costs a fresh rounding of the state each time.
    let schedules = [periodic(n, 10, 10), periodic(n, 25, 75)];
    for (s, e) in schedules.iter().zip(run(&app, &schedules, m.limit)) {
        println!(
            "{:?}: {} half, max loss {:.5}, within {}",
            s.switches().iter().take(3).collect::<Vec<_>>(),
            half_iterations(s),
            e.max_loss(),
            e.respects_limit()
        );
    }
    assert_out_of_reach(n, m.longest_head.max(m.longest_tail));
}

/// `ceiling::ceiling` reports what it executed: the longest stretch at each
/// placement is within the limit and one iteration more is beyond it (both
/// re-executed here), at the start and at the end; the bound for free
/// approximate iterations is never below the executed speedup.
#[test]
fn the_ceiling_reports_a_stretch_within_and_one_longer_beyond() {
    let n = 120;
    let app = HotSpot3D::synthetic(Grid3::new(32, 32, 4).unwrap(), 3).unwrap();
    let half_only = run(&app, &[Schedule::single(n, Half).unwrap()], 1.0);
    for fraction in [0.1, 0.25, 0.5] {
        let limit = half_only[0].max_loss() * fraction;
        let c = ceiling(&app, Half, n, limit, Clock::DEFAULT).unwrap();
        println!(
            "L_max x {fraction}: {} at the start, {} at the end, executed {:.3}, free bound {:.3}",
            c.longest[0].len,
            c.longest[1].len,
            c.best_executed(),
            c.free_bound()
        );
        for (l, placement) in c.longest.iter().zip([Placement::Start, Placement::End]) {
            assert_eq!(l.placement, placement);
            assert!(l.len < n, "the half-only run reaches L_max > limit");
            let start = |len: usize| match placement {
                Placement::Start => 0,
                Placement::End => n - len,
            };
            if l.len > 0 {
                let again = &run(
                    &app,
                    &[stretch(n, Half, start(l.len), l.len).unwrap()],
                    limit,
                )[0];
                assert!(
                    again.respects_limit(),
                    "{fraction} {placement:?}: {}",
                    l.len
                );
            }
            let longer = l.len + 1;
            let again = &run(
                &app,
                &[stretch(n, Half, start(longer), longer).unwrap()],
                limit,
            )[0];
            assert!(
                !again.respects_limit(),
                "{fraction} {placement:?}: {longer}"
            );
        }
        assert!(c.free_bound() >= c.best_executed());
        assert_eq!(
            c.free_bound(),
            speedup_bound(n, c.longest_len(), 0.0),
            "N / (N - H)"
        );
    }
}

/// `ceilings` shares executions between limits and runs a bisection step of
/// every search in one pass; the stretches it finds, and what it executed for
/// them, are those of `ceiling` at each limit alone.
#[test]
fn ceilings_at_several_limits_equal_each_limit_alone() {
    let n = 90;
    let app = HotSpot3D::synthetic(Grid3::new(24, 24, 4).unwrap(), 5).unwrap();
    let l_max = run(&app, &[Schedule::single(n, Half).unwrap()], 1.0)[0].max_loss();
    // The last limit is above L_max: the whole run is within it.
    let limits: Vec<f64> = [0.1, 0.25, 0.5, 0.75, 1.5]
        .iter()
        .map(|f| f * l_max)
        .collect();
    let together = ceilings(&app, Half, n, &limits, Clock::DEFAULT).unwrap();
    assert_eq!(together.len(), limits.len());
    let loss = |e: &Option<Execution>| e.as_ref().map(|e| e.max_loss().to_bits());
    for (c, &limit) in together.iter().zip(&limits) {
        let alone = ceiling(&app, Half, n, limit, Clock::DEFAULT).unwrap();
        assert_eq!(c.limit.to_bits(), limit.to_bits());
        for (a, b) in c.longest.iter().zip(&alone.longest) {
            assert_eq!((a.placement, a.len), (b.placement, b.len), "limit {limit}");
            assert_eq!(loss(&a.within), loss(&b.within), "limit {limit}");
            assert_eq!(loss(&a.beyond), loss(&b.beyond), "limit {limit}");
            if let Some(e) = &a.within {
                assert!(e.respects_limit() && e.limit == limit);
            }
            if let Some(e) = &a.beyond {
                assert!(!e.respects_limit() && e.limit == limit);
            }
        }
    }
    assert_eq!(
        together[4].longest_len(),
        n,
        "1.5 L_max admits the whole run"
    );
    assert!(together[4].longest.iter().all(|l| l.beyond.is_none()));
    assert!(
        ceilings(&app, Half, n, &[], Clock::DEFAULT)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn stretch_refuses_a_start_whose_end_overflows() {
    for (start, len) in [(usize::MAX, 1), (1, usize::MAX), (usize::MAX, usize::MAX)] {
        assert!(stretch(10, Version::Half, start, len).is_err());
    }
    assert!(stretch(10, Version::Half, 9, 1).is_ok());
}
