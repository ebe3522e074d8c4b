//! A rigorous running error bound for HotSpot3D runs, and an exact oracle.
//!
//! # The bound
//!
//! Let `X_k` be the exact trajectory (exact arithmetic, the binary64
//! coefficients `w` and the inputs as the bound's caller defines them) and
//! `x^_k` a computed one (stored coefficients `w^`, stored powers `p^`, one
//! rounding per operation of the chain of [`super::stencil`]). With
//! `E_k >= max_c |x^_k(c) - X_k(c)|`, for every cell
//!
//! `|x^_{k+1} - X_{k+1}| <= |fl(chain(w^, x^_k)) - chain(w^, x^_k)|`
//! `                      + |chain(w^, x^_k) - chain(w, x^_k)| + |chain(w, x^_k) - chain(w, X_k)|`
//!
//! and the three terms are bounded by
//! 1. the rigorous dot-product bound of a recursive 9-term FMA chain
//!    (`boundgate_verify::bounds::dot::rigorous`, depth 9, with underflow and
//!    a checked no-overflow hypothesis) at `S = sum |w^_j| M + |sdc^| max|p^| + |ct^| amb`,
//!    `M = max |x^_k|`, which bounds every cell's `sum |terms|`;
//! 2. `sum_j |w^_j - w_j| M + |sdc^ - sdc| max|p^| + |sdc| max|p^ - p| + |ct^ - ct| amb`
//!    `+ |ct| |amb^ - amb|` (representation of coefficients and powers);
//! 3. `W E_k`, `W = sum_j |w_j|` (the weights of the 7 state terms).
//!
//! So `E_{k+1} = W E_k + local_k` is a bound, computed with upward rounding
//! ([`boundgate_verify::bounds::directed`]). A perforated iteration that is
//! skipped leaves both trajectories unchanged: `E_{k+1} = E_k`. The bound is
//! a posteriori in `M` (the computed state's magnitude), which the runner
//! measures every iteration.
//!
//! # The oracle
//!
//! [`exact_trajectory`] runs the same iterations in exact rational arithmetic
//! (`rug::Rational`): affordable for small grids and iteration counts, it is
//! the ground truth the tests compare the bound and the binary64 run with.

use super::error::{InterleaveError, Result, require_finite};
use super::hotspot::{Coefficients, HotSpot3D, store};
use super::version::Version;
use boundgate_verify::bounds::directed::{add_up, mul_up, sub_down, sub_up};
use boundgate_verify::bounds::dot::{rigorous, underflow_ops};
use boundgate_verify::format::{Format, RoundingMode};
use rug::Rational;
use serde::Serialize;

/// Number of roundings on the longest path of the chain (one multiplication,
/// eight FMAs): the depth of a recursive FMA dot product of 9 terms.
pub const CHAIN_DEPTH: u64 = 9;

/// Which exact trajectory a bound is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// Exact arithmetic on the inputs as given (the `f64` temperatures and powers).
    AsGiven,
    /// Exact arithmetic on the binary32 data the application reads (the
    /// pipeline's runs all start there).
    Binary32Data,
    /// Exact arithmetic on the values the version stored (coefficients,
    /// powers and initial temperatures after rounding).
    AsStored,
}

/// An upper bound on `|a - b|`.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::bound::abs_diff_up;
/// assert!(abs_diff_up(1.0, -1e-30) > 1.0);
/// ```
pub fn abs_diff_up(a: f64, b: f64) -> f64 {
    sub_up(a, b).max(-sub_down(a, b))
}

/// A lower bound on `|a - b|`.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::bound::abs_diff_down;
/// assert_eq!(abs_diff_down(-1e-30, 1.0), 1.0); // 1 + 1e-30, rounded down
/// assert_eq!(abs_diff_down(3.0, 1.0), 2.0);
/// ```
pub fn abs_diff_down(a: f64, b: f64) -> f64 {
    if a >= b {
        sub_down(a, b)
    } else {
        sub_down(b, a)
    }
}

/// The running bound `E_k` of one run (module docs).
#[derive(Clone, Debug, Serialize)]
pub struct RunningBound {
    #[serde(skip)]
    format: Format,
    /// `W = sum |w_j|`, rounded up.
    pub weight_sum: f64,
    /// `sum |w^_j|`, rounded up.
    stored_weight_sum: f64,
    /// `sum |w^_j - w_j|`, rounded up.
    weight_error: f64,
    /// `|sdc^| max|p^| + |ct^| amb`, rounded up.
    constant_terms: f64,
    /// `|sdc^ - sdc| max|p^| + |sdc| max|p^ - p| + |ct^ - ct| amb`, rounded up.
    constant_error: f64,
    /// The current bound `E_k`.
    pub value: f64,
    /// Iterations bounded so far.
    pub iterations: usize,
}

impl RunningBound {
    /// The bound for runs of `version` on `app` against the exact trajectory
    /// from `start`, with `E_0` computed from the initial values.
    ///
    /// # Errors
    /// A non-finite stored value (overflow of the format).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{bound::{RunningBound, Start}, error::InterleaveError,
    ///     grid::Grid3, hotspot::HotSpot3D, version::Version};
    /// let g = Grid3::new(2, 2, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.1; 4], vec![1.0; 4]).unwrap();
    /// // E_0 = max |x^_0 - X_0|: zero when both start from the binary32 data
    /// let b = RunningBound::new(&app, Version::Float, Start::Binary32Data).unwrap();
    /// assert_eq!((b.value, b.iterations), (0.0, 0));
    /// // f32(320.1) = 320.100006103515625 against 320.1 as given (exact difference)
    /// let given = RunningBound::new(&app, Version::Float, Start::AsGiven).unwrap();
    /// assert_eq!(given.value, f64::from(320.1f32) - 320.1);
    /// // binary16 stores 320 (spacing 0.25 there)
    /// let half = RunningBound::new(&app, Version::Half, Start::Binary32Data).unwrap();
    /// assert_eq!(half.value, f64::from(320.1f32) - 320.0);
    /// // powers beyond binary16: the half version has no bound
    /// let hot = HotSpot3D::new(g, vec![320.0; 4], vec![1e5; 4]).unwrap();
    /// let refused = RunningBound::new(&hot, Version::Half, Start::AsStored);
    /// assert!(matches!(refused, Err(InterleaveError::InvalidParameter { .. })));
    /// ```
    pub fn new(app: &HotSpot3D, version: Version, start: Start) -> Result<RunningBound> {
        let (k_hat, p_hat, mut x0_hat) = stored_inputs(app, version)?;
        if start == Start::Binary32Data && version == Version::Double {
            // The pipeline's binary64 run (the ground truth) starts from the
            // binary32 data, as every run there does, not from the
            // temperatures as given: E_0 is then 0, not |t - f32(t)| (review,
            // 2026-11-25: 4.7e-8 at row 0 for decimal temperatures).
            x0_hat = app.initial64()?;
        }
        let (k_ref, p_ref, x0_ref) = match start {
            Start::AsGiven => (
                *app.coefficients(),
                app.power().to_vec(),
                app.temp().to_vec(),
            ),
            Start::Binary32Data => (*app.coefficients(), app.power().to_vec(), app.initial64()?),
            Start::AsStored => (k_hat, p_hat.clone(), x0_hat.clone()),
        };
        RunningBound::from_parts(
            version.storage(),
            (&k_hat, &p_hat, &x0_hat),
            (&k_ref, &p_ref, &x0_ref),
        )
    }

    /// The bound for a chain computed in `format` on the stored coefficients,
    /// powers and initial values `computed`, against exact arithmetic on
    /// `exact` (coefficients, powers, initial values).
    ///
    /// # Errors
    /// [`InterleaveError::Verify`] (a length mismatch) when the two sides'
    /// powers or initial values differ in length;
    /// [`InterleaveError::NonFinite`] when a coefficient, power or initial
    /// value is a NaN or an infinity (a `max` would skip a NaN and give a
    /// bound that does not hold).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{bound::RunningBound, grid::Grid3, hotspot::Coefficients};
    /// use boundgate_verify::format::Format;
    /// let k = Coefficients::rodinia(Grid3::new(512, 512, 8).unwrap());
    /// let (p, x0) = ([1.0, 2.0], [300.0, 310.0]);
    /// let same = RunningBound::from_parts(Format::FP32, (&k, &p, &x0), (&k, &p, &x0)).unwrap();
    /// assert_eq!((same.value, same.iterations), (0.0, 0));
    /// // E_0 = max_c |x^_0(c) - X_0(c)| = 0.5 (exact)
    /// let off = RunningBound::from_parts(Format::FP32, (&k, &p, &[300.5, 310.0]), (&k, &p, &x0)).unwrap();
    /// assert_eq!(off.value, 0.5);
    /// // W = sum |w_j|, rounded up, is at least |sum w_j| = 1 - ct
    /// assert!(same.weight_sum >= 1.0 - k.ct);
    /// // a NaN start, or one cell too few, has no bound
    /// assert!(RunningBound::from_parts(Format::FP32, (&k, &p, &[f64::NAN, 310.0]), (&k, &p, &x0)).is_err());
    /// assert!(RunningBound::from_parts(Format::FP32, (&k, &p, &[300.0]), (&k, &p, &x0)).is_err());
    /// ```
    pub fn from_parts(
        format: Format,
        computed: (&Coefficients<f64>, &[f64], &[f64]),
        exact: (&Coefficients<f64>, &[f64], &[f64]),
    ) -> Result<RunningBound> {
        let (k_hat, p_hat, x0_hat) = computed;
        let (k_ref, p_ref, x0_ref) = exact;
        use boundgate_verify::error::require_same_len;
        require_same_len("computed and exact powers", p_hat.len(), p_ref.len())?;
        require_same_len(
            "computed and exact initial values",
            x0_hat.len(),
            x0_ref.len(),
        )?;
        let coefficients = |k: &Coefficients<f64>| {
            let mut all = k.weights().to_vec();
            all.extend([k.sdc, k.amb]);
            all
        };
        for (what, values) in [
            ("computed coefficients", &coefficients(k_hat)[..]),
            ("exact coefficients", &coefficients(k_ref)[..]),
            ("computed powers", p_hat),
            ("exact powers", p_ref),
            ("computed initial values", x0_hat),
            ("exact initial values", x0_ref),
        ] {
            require_finite(what, values)?;
        }
        let up_sum = |v: [f64; 7]| v.iter().fold(0.0, |acc, w| add_up(acc, w.abs()));
        let weight_sum = up_sum(k_ref.weights());
        let stored_weight_sum = up_sum(k_hat.weights());
        let weight_error = k_hat
            .weights()
            .iter()
            .zip(k_ref.weights())
            .fold(0.0, |acc, (a, b)| add_up(acc, abs_diff_up(*a, b)));
        let max_p_hat = p_hat.iter().fold(0.0f64, |m, p| m.max(p.abs()));
        let max_dp = p_hat
            .iter()
            .zip(p_ref)
            .fold(0.0f64, |m, (a, b)| m.max(abs_diff_up(*a, *b)));
        let amb = k_hat.amb.abs();
        let constant_terms = add_up(
            mul_up(k_hat.sdc.abs(), max_p_hat),
            mul_up(k_hat.ct.abs(), amb),
        );
        let constant_error = add_up(
            add_up(
                mul_up(abs_diff_up(k_hat.sdc, k_ref.sdc), max_p_hat),
                mul_up(k_ref.sdc.abs(), max_dp),
            ),
            add_up(
                mul_up(abs_diff_up(k_hat.ct, k_ref.ct), amb),
                mul_up(k_ref.ct.abs(), abs_diff_up(k_hat.amb, k_ref.amb)),
            ),
        );
        let value = x0_hat
            .iter()
            .zip(x0_ref)
            .fold(0.0f64, |m, (a, b)| m.max(abs_diff_up(*a, *b)));
        Ok(RunningBound {
            format,
            weight_sum,
            stored_weight_sum,
            weight_error,
            constant_terms,
            constant_error,
            value,
            iterations: 0,
        })
    }

    /// Advances the bound over one iteration whose input state had largest
    /// magnitude `max_state` (`computed`: false for a skipped perforated one).
    ///
    /// # Errors
    /// [`boundgate_verify::VerifyError::HypothesisNotMet`] when the chain
    /// could overflow (or the state is infinite): then there is no bound;
    /// [`boundgate_verify::VerifyError::InvalidParameter`] for a NaN `max_state`.
    /// A refused step leaves the bound (value and iteration count) unchanged.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{bound::{RunningBound, Start, exact_trajectory},
    ///     error::InterleaveError, grid::Grid3, hotspot::HotSpot3D, stencil::advance,
    ///     version::Version};
    /// use boundgate_verify::VerifyError;
    /// use rug::Rational;
    /// let app = HotSpot3D::synthetic(Grid3::new(3, 2, 2).unwrap(), 1).unwrap();
    /// let mut b = RunningBound::new(&app, Version::Float, Start::Binary32Data).unwrap();
    /// let (mut state, mut scratch) = (app.initial_state(Version::Float).unwrap(), Vec::new());
    /// for _ in 0..3 {
    ///     let m = state.values.iter().fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
    ///     b.step(m, true).unwrap();
    ///     advance(&app, Version::Float, &mut state, &mut scratch);
    /// }
    /// // the bound holds against the exact (rational) trajectory in every cell
    /// let exact = exact_trajectory(&app, Version::Float, Start::Binary32Data, 3).unwrap();
    /// for (x, e) in state.values.iter().zip(&exact) {
    ///     assert!((Rational::from_f32(*x).unwrap() - e).abs() <= Rational::from_f64(b.value).unwrap());
    /// }
    /// assert!(b.value > 0.0);
    /// // a skipped perforated iteration leaves the bound as it is
    /// let e3 = b.value;
    /// b.step(400.0, false).unwrap();
    /// assert_eq!((b.value, b.iterations), (e3, 4));
    /// // a half state at 65504: the chain's sum, grown by its 9 roundings, could
    /// // pass binary16's largest value, so there is no bound
    /// let mut h = RunningBound::new(&app, Version::Half, Start::Binary32Data).unwrap();
    /// let start = h.value;
    /// let overflow = h.step(65504.0, true);
    /// assert!(matches!(overflow, Err(InterleaveError::Verify(VerifyError::HypothesisNotMet { .. }))));
    /// assert_eq!((h.value, h.iterations), (start, 0)); // a refused step changes nothing
    /// assert!(h.step(400.0, true).is_ok());
    /// let (inf, nan) = (b.step(f64::INFINITY, true), b.step(f64::NAN, true));
    /// assert!(matches!(inf, Err(InterleaveError::Verify(VerifyError::HypothesisNotMet { .. }))));
    /// assert!(matches!(nan, Err(InterleaveError::Verify(VerifyError::InvalidParameter { .. }))));
    /// ```
    pub fn step(&mut self, max_state: f64, computed: bool) -> Result<()> {
        if !computed {
            self.iterations += 1;
            return Ok(());
        }
        let format = self.format;
        let s = add_up(
            mul_up(self.stored_weight_sum, max_state),
            self.constant_terms,
        );
        let arith = rigorous(
            format,
            RoundingMode::NearestEven,
            CHAIN_DEPTH,
            underflow_ops(format, CHAIN_DEPTH as usize),
            s,
        )?
        .value;
        let representation = add_up(mul_up(self.weight_error, max_state), self.constant_error);
        let local = add_up(arith, representation);
        self.value = add_up(mul_up(self.weight_sum, self.value), local);
        // Counted only once it succeeded: a refused step leaves the bound,
        // value and count alike, as it was.
        self.iterations += 1;
        Ok(())
    }
}

/// The coefficients, powers and initial temperatures as `version` stores them.
///
/// # Errors
/// [`InterleaveError::InvalidParameter`] for a power that overflows the
/// version's format; as [`HotSpot3D::initial_state`].
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{bound::stored_inputs, error::InterleaveError,
///     grid::Grid3, hotspot::HotSpot3D, version::Version};
/// let g = Grid3::new(2, 1, 1).unwrap();
/// let app = HotSpot3D::new(g, vec![320.1, 300.0], vec![0.1, 1e5]).unwrap();
/// let (k, p, x0) = stored_inputs(&app, Version::Float).unwrap();
/// assert_eq!(k, app.coefficients().stored(Version::Float));
/// assert_eq!(p, [f64::from(0.1f32), 1e5]);
/// assert_eq!(x0, [f64::from(320.1f32), 300.0]);
/// // double starts from the temperatures as given
/// assert_eq!(stored_inputs(&app, Version::Double).unwrap().2, [320.1, 300.0]);
/// // half cannot store the power 1e5 (> 65504)
/// let half = stored_inputs(&app, Version::Half);
/// assert!(matches!(half, Err(InterleaveError::InvalidParameter { name, .. }) if name == "power[1]"));
/// ```
pub fn stored_inputs(
    app: &HotSpot3D,
    version: Version,
) -> Result<(Coefficients<f64>, Vec<f64>, Vec<f64>)> {
    let k_hat = app.coefficients().stored(version);
    let p_hat: Vec<f64> = app.power().iter().map(|&p| store(p, version)).collect();
    let x0: Vec<f64> = match version {
        Version::Double => app.temp().to_vec(),
        v => app
            .initial_state(v)?
            .values
            .into_iter()
            .map(f64::from)
            .collect(),
    };
    if let Some(i) = p_hat.iter().position(|v| !v.is_finite()) {
        let storage = version.storage();
        return Err(InterleaveError::InvalidParameter {
            name: format!("power[{i}]"),
            value: format!("{:e}", app.power()[i]),
            reason: format!(
                "overflows {storage}, where the {} version stores the powers (largest finite {:e})",
                version.name(),
                storage.max_finite()
            ),
        });
    }
    Ok((k_hat, p_hat, x0))
}

/// The exact trajectory after `iterations` iterations of `version`'s
/// algorithm (perforation included, counter starting at 0) from `start`,
/// in rational arithmetic.
///
/// # Errors
/// As [`stored_inputs`].
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{bound::{Start, exact_trajectory}, grid::Grid3,
///     hotspot::HotSpot3D, version::Version};
/// use rug::Rational;
/// let q = |v: f64| Rational::from_f64(v).unwrap();
/// // one cell: all six neighbours are the cell itself, so
/// // T' = (cc + cw + ce + cs + cn + cb + ct) T + sdc P + ct amb, exactly
/// let one = HotSpot3D::new(Grid3::new(1, 1, 1).unwrap(), vec![300.0], vec![2.0]).unwrap();
/// let k = one.coefficients();
/// let w: Rational = k.weights().iter().map(|&w| q(w)).sum();
/// let expected = w * q(300.0) + q(k.sdc) * q(2.0) + q(k.ct) * q(k.amb);
/// assert_eq!(exact_trajectory(&one, Version::Double, Start::AsGiven, 1).unwrap(), [expected]);
/// // looperf skips its 6th call: 6 looperf iterations are 5 float ones
/// let app = HotSpot3D::synthetic(Grid3::new(3, 2, 2).unwrap(), 1).unwrap();
/// let perforated = exact_trajectory(&app, Version::Looperf, Start::AsGiven, 6).unwrap();
/// assert_eq!(perforated, exact_trajectory(&app, Version::Float, Start::AsGiven, 5).unwrap());
/// ```
pub fn exact_trajectory(
    app: &HotSpot3D,
    version: Version,
    start: Start,
    iterations: usize,
) -> Result<Vec<Rational>> {
    let (k, p, x0) = match start {
        Start::AsGiven => (
            *app.coefficients(),
            app.power().to_vec(),
            app.temp().to_vec(),
        ),
        Start::Binary32Data => (*app.coefficients(), app.power().to_vec(), app.initial64()?),
        Start::AsStored => stored_inputs(app, version)?,
    };
    let q = |v: f64| Rational::from_f64(v).expect("finite");
    let kq = k.map(q);
    let pq: Vec<Rational> = p.into_iter().map(q).collect();
    let constant: Vec<Rational> = pq
        .iter()
        .map(|pc| Rational::from(&kq.sdc * pc) + Rational::from(&kq.ct * &kq.amb))
        .collect();
    let mut x: Vec<Rational> = x0.into_iter().map(q).collect();
    let grid = app.grid();
    let mut counter = 0u8;
    for _ in 0..iterations {
        if version == Version::Looperf {
            if counter == 5 {
                counter = 0;
                continue;
            }
            counter += 1;
        }
        let mut next = Vec::with_capacity(x.len());
        for z in 0..grid.nz() {
            for y in 0..grid.ny() {
                for xx in 0..grid.nx() {
                    let at = |a: usize, b: usize, c: usize| &x[grid.index(a, b, c)];
                    let c = grid.index(xx, y, z);
                    let terms = [
                        (&kq.cc, at(xx, y, z)),
                        (&kq.cw, at(xx.saturating_sub(1), y, z)),
                        (&kq.ce, at((xx + 1).min(grid.nx() - 1), y, z)),
                        (&kq.cs, at(xx, (y + 1).min(grid.ny() - 1), z)),
                        (&kq.cn, at(xx, y.saturating_sub(1), z)),
                        (&kq.cb, at(xx, y, z.saturating_sub(1))),
                        (&kq.ct, at(xx, y, (z + 1).min(grid.nz() - 1))),
                    ];
                    let mut v = constant[c].clone();
                    for (w, t) in terms {
                        v += Rational::from(w * t);
                    }
                    next.push(v);
                }
            }
        }
        x = next;
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::interleave::grid::Grid3;

    #[test]
    fn from_parts_refuses_non_finite_or_mismatched_inputs() {
        let k = Coefficients::rodinia(Grid3::new(4, 4, 1).unwrap());
        let (p, x0) = ([1.0, 2.0], [300.0, 310.0]);
        let parts = |xh: &[f64], pr: &[f64]| {
            RunningBound::from_parts(Format::FP32, (&k, &p, xh), (&k, pr, &x0))
        };
        assert!(parts(&x0, &p).is_ok());
        // a NaN used to be skipped by `max`: E_0 = 0 for a NaN start
        assert!(matches!(
            parts(&[f64::NAN, 310.0], &p),
            Err(InterleaveError::NonFinite { index: 0, .. })
        ));
        assert!(matches!(
            parts(&x0, &[1.0, f64::INFINITY]),
            Err(InterleaveError::NonFinite { index: 1, .. })
        ));
        // a cell short used to be dropped by `zip`
        assert!(matches!(
            parts(&[300.0], &p),
            Err(InterleaveError::Verify(_))
        ));
        assert!(matches!(
            parts(&x0, &[1.0]),
            Err(InterleaveError::Verify(_))
        ));
        let bad = Coefficients { cc: f64::NAN, ..k };
        assert!(RunningBound::from_parts(Format::FP32, (&bad, &p, &x0), (&k, &p, &x0)).is_err());
    }

    #[test]
    fn the_pipelines_binary64_run_starts_without_error() {
        // 320.1 is not a binary32 number; every run of the pipeline starts
        // from its binary32 value, the binary64 ground truth included.
        let grid = Grid3::new(2, 2, 1).unwrap();
        let app = HotSpot3D::new(grid, vec![320.1; 4], vec![1.0; 4]).unwrap();
        for version in [Version::Double, Version::Float, Version::Half] {
            let b = RunningBound::new(&app, version, Start::Binary32Data).unwrap();
            let expected = if version == Version::Half {
                // f32(320.1) rounded to binary16 (spacing 0.25 there).
                (f64::from(320.1f32) - 320.0).abs()
            } else {
                0.0
            };
            assert_eq!(b.value, expected, "{version:?}");
        }
        // A double run from the temperatures as given also starts exactly.
        assert_eq!(
            RunningBound::new(&app, Version::Double, Start::AsGiven)
                .unwrap()
                .value,
            0.0
        );
    }
}
