//! Host-clock timing of device work for the GPU benches: one untimed run
//! (module load, allocator pool and clocks settle), then `repetitions` timed
//! runs, each ended synchronised with the device by the caller's closure; the
//! median is reported. Host time is the honest measure where a run reads data
//! back mid-way (qdot's histogram, the residual method's row counts).

use super::GpuError;
use boundgate_verify::VerifyError;
use std::time::Instant;

/// Refuses zero repetitions (callers check before touching a device).
pub(crate) fn require_repetitions(repetitions: usize) -> Result<(), GpuError> {
    if repetitions == 0 {
        return Err(VerifyError::invalid("repetitions", 0, "must be at least 1").into());
    }
    Ok(())
}

/// Runs `run` once untimed, then `repetitions` times on the host clock; returns
/// the untimed run's value and the median seconds. `run` must return only once
/// the device work it started has finished (a stream synchronisation).
pub(crate) fn median_seconds<T>(
    repetitions: usize,
    mut run: impl FnMut() -> Result<T, GpuError>,
) -> Result<(T, f64), GpuError> {
    require_repetitions(repetitions)?;
    let first = run()?;
    let mut samples = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let start = Instant::now();
        drop(run()?);
        samples.push(start.elapsed().as_secs_f64());
    }
    Ok((first, median(&samples)))
}

/// The middle sample (the upper one of an even count); `samples` not empty.
pub(crate) fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_the_timed_runs_and_the_first_runs_value() {
        let mut calls = 0;
        let (first, seconds) = median_seconds(3, || {
            calls += 1;
            Ok(calls)
        })
        .unwrap();
        assert_eq!((first, calls), (1, 4));
        assert!(seconds >= 0.0);
        assert!(matches!(
            median_seconds(0, || Ok(())),
            Err(GpuError::Input(_))
        ));
    }

    #[test]
    fn the_median_is_the_middle_sample() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0]), 4.0);
        assert_eq!(median(&[4.0, 1.0]), 4.0);
    }
}
