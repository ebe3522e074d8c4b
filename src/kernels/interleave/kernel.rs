//! `boundgate run hotspot3d`: HotSpot3D iterations in one kernel version on
//! `.npy` inputs, with a rigorous per-element error bound.
//!
//! Inputs: `temp` and `power`, each a `(layers * rows) x cols` matrix in
//! C order (layer `z`, row `y`, column `x` at row `z rows + y`, column `x`:
//! the layout of Rodinia's arrays, index `x + y nx + z nx ny`).
//!
//! The rigorous bound is the running bound of [`super::bound`] against exact
//! arithmetic on the inputs as given (binary64 coefficients, the `f64`
//! temperatures and powers), so storage, coefficient and arithmetic rounding
//! are all inside it. For `looperf` the exact result is that of the
//! perforated algorithm (the same iterations skipped): the bound is about
//! rounding, the accuracy loss of skipping is what `boundgate interleave`
//! measures.
//!
//! The errors are measured against
//! - `oracle=exact`: the exact trajectory in rational arithmetic (refused
//!   above `cells x iterations^2 = 2e8`, where it becomes too slow), or
//! - `oracle=certified` (default): the binary64 trajectory `G` with a
//!   rigorous radius `R >= max |G - X|`, so `|x^ - X| <= |x^ - G| + R` is
//!   reported as the error bound (`exact` in the report is `G`).

use super::bound::{
    RunningBound, Start, abs_diff_down, abs_diff_up, exact_trajectory, stored_inputs,
};
use super::error::InterleaveError;
use super::grid::Grid3;
use super::hotspot::{Coefficients, HotSpot3D};
use super::schedule::MAX_ITERATIONS;
use super::stencil::{Step, advance, scan, scan64, sweep64};
use super::version::Version;
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::{
    BoundCheck, InputSpec, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Params,
    Reference, Shape, input,
};
use boundgate_verify::VerifyError;
use boundgate_verify::bounds::{Bound, Quantity, Rigor, Source};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::oracle::ErrorMeasure;
use serde_json::json;

/// The `hotspot3d` kernel.
pub struct HotSpot3DKernel;

const INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "temp",
        shape: Shape::Matrix,
        help: "initial temperatures, (layers * rows) x cols",
    },
    InputSpec {
        name: "power",
        shape: Shape::Matrix,
        help: "power per cell, same shape as temp",
    },
];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "version",
        default: "float",
        kind: ParamKind::Choice(&["float", "half", "looperf", "double"]),
        help: "kernel version: float (binary32), half (binary16), looperf (binary32, every 6th iteration skipped), double",
    },
    ParamSpec {
        key: "iterations",
        default: "500",
        kind: ParamKind::Count,
        help: "iterations to run (the thesis's HotSpot3D runs use 500 and 1000)",
    },
    ParamSpec {
        key: "layers",
        default: "8",
        kind: ParamKind::Count,
        help: "layers nz: the inputs have nz * ny rows",
    },
    ParamSpec {
        key: "oracle",
        default: "certified",
        kind: ParamKind::Choice(&["certified", "exact"]),
        help: "certified: binary64 run with a rigorous radius; exact: rational arithmetic (small problems only)",
    },
];

const INFO: KernelInfo = KernelInfo {
    name: "hotspot3d",
    summary: "Rodinia HotSpot3D stencil iterations (fixed FMA-chain order) in float, half, looperf or double",
    inputs: INPUTS,
    params: PARAMS,
    non_finite: crate::kernels::NonFiniteInputs::Refused(
        "the accuracy loss ||A^ - A||_F / ||A||_F is not defined for a non-finite state (NaN arising mid-run is a verdict)",
    ),
};

/// Largest `cells x iterations^2` the exact oracle accepts.
pub const EXACT_ORACLE_LIMIT: f64 = 2e8;

const RIGOROUS: Source = Source::new(
    "boundgate running bound for HotSpot3D (Rodinia 3.1 3D.cu update rule; derivation in kernels::interleave::bound)",
    "E_{k+1} = W E_k + local_k, local_k from the rigorous dot bound of a depth-9 FMA chain",
    None,
);

/// The grid of `(layers * rows) x cols` inputs.
fn grid_of(temp: &Tensor, layers: usize) -> Result<Grid3> {
    let (rows, cols) = temp
        .dims2()
        .ok_or_else(|| Error::usage("temp must be a matrix"))?;
    if layers == 0 || rows % layers != 0 {
        return Err(Error::usage(format!(
            "temp has {rows} rows, which is not layers = {layers} times a row count"
        )));
    }
    Ok(Grid3::new(cols, rows / layers, layers)?)
}

/// The error of `computed` against `X`, known to lie within `radius` of `g`.
fn certified_measure(computed: f64, g: f64, radius: f64) -> ErrorMeasure {
    if !computed.is_finite() || !g.is_finite() {
        return ErrorMeasure::NonFinite { computed, exact: g };
    }
    ErrorMeasure::enclosed(
        (abs_diff_down(computed, g), abs_diff_up(computed, g)),
        radius,
        (g, g.abs()),
    )
}

/// A binary64 run on given coefficients, powers and start, with its radius.
fn certified_run(
    grid: Grid3,
    k: &Coefficients<f64>,
    p: &[f64],
    x0: &[f64],
    iterations: usize,
    perforated: bool,
) -> std::result::Result<(Vec<f64>, f64), VerifyError> {
    let mut bound = RunningBound::from_parts(
        boundgate_verify::format::Format::FP64,
        (k, p, x0),
        (k, p, x0),
    )
    .map_err(to_verify)?;
    let mut x = x0.to_vec();
    let mut scratch = vec![0.0; x.len()];
    let mut counter = 0u8;
    for _ in 0..iterations {
        if perforated {
            if counter == 5 {
                counter = 0;
                bound.step(0.0, false).map_err(to_verify)?;
                continue;
            }
            counter += 1;
        }
        let (max, _) = scan64(&x);
        sweep64(grid, k, p, &x, &mut scratch);
        std::mem::swap(&mut x, &mut scratch);
        bound.step(max, true).map_err(to_verify)?;
    }
    Ok((x, bound.value))
}

fn to_verify(e: InterleaveError) -> VerifyError {
    match e {
        InterleaveError::Verify(v) => v,
        other => VerifyError::invalid("hotspot3d", "", other.to_string()),
    }
}

impl Kernel for HotSpot3DKernel {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn audit_shapes(&self, size: usize) -> Vec<(&'static str, Vec<usize>)> {
        vec![
            ("temp", vec![8 * size, size]),
            ("power", vec![8 * size, size]),
        ]
    }

    fn run(&self, inputs: &Inputs, params: &Params) -> Result<KernelRun> {
        let version: Version = params.text("version")?.parse()?;
        let iterations = params.usize("iterations")?;
        // The interleave pipeline's cap, for the same reason: a count that
        // would run for ever is refused (review, 2026-11-25: 2^64 - 1 hung).
        if iterations > MAX_ITERATIONS {
            return Err(Error::usage(format!(
                "iterations = {iterations}: at most {MAX_ITERATIONS}"
            )));
        }
        let layers = params.usize("layers")?;
        let oracle = params.text("oracle")?;
        let temp = input(inputs, &INPUTS[0])?;
        let power = input(inputs, &INPUTS[1])?;
        if temp.shape() != power.shape() {
            return Err(VerifyError::LengthMismatch {
                what: "temp and power shapes".into(),
                left: temp.data().len(),
                right: power.data().len(),
            }
            .into());
        }
        let grid = grid_of(temp, layers)?;
        let app = HotSpot3D::new(grid, temp.data().to_vec(), power.data().to_vec())?;
        let cells = grid.cells();
        if oracle == "exact" {
            let work = cells as f64 * (iterations as f64).powi(2);
            if work > EXACT_ORACLE_LIMIT {
                return Err(Error::usage(format!(
                    "oracle=exact: cells x iterations^2 = {work:e} exceeds {EXACT_ORACLE_LIMIT:e}; use oracle=certified"
                )));
            }
        }

        // The computed run and its rigorous bound (as given and as stored).
        let mut given = RunningBound::new(&app, version, Start::AsGiven)?;
        let mut stored = RunningBound::new(&app, version, Start::AsStored)?;
        let (k_hat, p_hat, x0_hat) = stored_inputs(&app, version)?;
        let mut failure: Option<VerifyError> = None;
        let (output, computed_its, skipped_its) = if version == Version::Double {
            let mut x = x0_hat.clone();
            let mut scratch = vec![0.0; cells];
            for _ in 0..iterations {
                let (max, _) = scan64(&x);
                sweep64(grid, &k_hat, &p_hat, &x, &mut scratch);
                std::mem::swap(&mut x, &mut scratch);
                for b in [&mut given, &mut stored] {
                    if let Err(e) = b.step(max, true) {
                        failure.get_or_insert(to_verify(e));
                    }
                }
            }
            (x, iterations, 0)
        } else {
            let mut state = app.initial_state(version)?;
            let mut scratch = Vec::new();
            let (mut computed, mut skipped) = (0, 0);
            for _ in 0..iterations {
                let (max, _) = scan(&state.values);
                let step = advance(&app, version, &mut state, &mut scratch);
                match step {
                    Step::Computed => computed += 1,
                    Step::Skipped => skipped += 1,
                }
                for b in [&mut given, &mut stored] {
                    if let Err(e) = b.step(max, step == Step::Computed) {
                        failure.get_or_insert(to_verify(e));
                    }
                }
            }
            (
                state
                    .values
                    .iter()
                    .map(|&v| f64::from(v))
                    .collect::<Vec<f64>>(),
                computed,
                skipped,
            )
        };
        let bound_of = |b: &RunningBound| -> std::result::Result<ElementBounds, VerifyError> {
            match &failure {
                Some(e) => Err(e.clone()),
                None if !b.value.is_finite() => Err(VerifyError::HypothesisNotMet {
                    source_ref: RIGOROUS.to_string(),
                    hypothesis: "a finite state".into(),
                    detail: "the state overflowed".into(),
                }),
                None => Ok(ElementBounds::uniform(
                    Bound::deterministic(
                        b.value,
                        Quantity::AbsoluteError,
                        RIGOROUS,
                        Rigor::Rigorous,
                    )
                    .with_hypothesis("no overflow in any chain", "checked every iteration")
                    .with_hypothesis(
                        "the computed state's magnitude M_k",
                        "measured every iteration (a posteriori bound)",
                    ),
                    cells,
                )),
            }
        };

        // The oracle.
        let perforated = version == Version::Looperf;
        let (errors_as_given, errors_as_stored, radius) = if oracle == "exact" {
            let xg = exact_trajectory(&app, version, Start::AsGiven, iterations)?;
            let xs = exact_trajectory(&app, version, Start::AsStored, iterations)?;
            let eg = output
                .iter()
                .zip(&xg)
                .map(|(&c, x)| ErrorMeasure::of_rational(c, x))
                .collect();
            let es = output
                .iter()
                .zip(&xs)
                .map(|(&c, x)| ErrorMeasure::of_rational(c, x))
                .collect();
            (eg, es, 0.0)
        } else {
            let k = app.coefficients();
            let (g, rg) = certified_run(grid, k, app.power(), app.temp(), iterations, perforated)?;
            let (s, rs) = certified_run(grid, &k_hat, &p_hat, &x0_hat, iterations, perforated)?;
            let eg = output
                .iter()
                .zip(&g)
                .map(|(&c, &x)| certified_measure(c, x, rg))
                .collect();
            let es = output
                .iter()
                .zip(&s)
                .map(|(&c, &x)| certified_measure(c, x, rs))
                .collect();
            (eg, es, rg.max(rs))
        };
        let nonfinite = scan64(&output).1;
        let details = json!({
            "version": version.name(),
            "grid": grid.to_string(),
            "iterations": iterations,
            "computed_iterations": computed_its,
            "skipped_iterations": skipped_its,
            "oracle": oracle,
            "oracle_radius": radius,
            // No number where the verdict has no bound (a step's hypothesis
            // failed: the running value stopped there), and a non-finite value
            // as text (JSON has no inf or NaN; serde wrote null).
            "rigorous_bound": if failure.is_none() && given.value.is_finite() { json!(given.value) } else { json!(null) },
            "first_non_finite": nonfinite.map(|(i, v)| json!({"index": i, "value": v.to_string()})),
            "order": "acc = cc*C; fma(cw,W); fma(ce,E); fma(cs,S); fma(cn,N); fma(cb,B); fma(ct,T); fma(sdc,P); fma(ct,amb)",
        });
        let rows = temp.dims2().expect("checked").0;
        Ok(KernelRun {
            output: Tensor::matrix(rows, grid.nx(), output)?,
            rigorous: BoundCheck::rigorous(bound_of(&given)),
            others: vec![BoundCheck {
                label: "rigorous (as stored: rounded coefficients, powers, temperatures)".into(),
                reference: Reference::AsStored,
                bounds: bound_of(&stored),
            }],
            errors_as_given,
            errors_as_stored,
            details,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certified_value_gives_both_ends_of_the_error() {
        // X lies within 2^-40 of g = 1; computed 1 + 2^-20.
        let m = certified_measure(1.0 + 2f64.powi(-20), 1.0, 2f64.powi(-40));
        let ErrorMeasure::Finite {
            absolute_up,
            absolute_down: Some(down),
            relative_up: Some(relative),
            exact,
        } = m
        else {
            panic!("{m:?}");
        };
        assert_eq!(exact, 1.0);
        assert_eq!(absolute_up, 2f64.powi(-20) + 2f64.powi(-40));
        assert_eq!(down, 2f64.powi(-20) - 2f64.powi(-40));
        assert!(relative >= absolute_up / (1.0 - 2f64.powi(-40)));
        // An enclosure reaching zero bounds no relative error.
        let m = certified_measure(1e-3, 1e-9, 1e-8);
        assert_eq!(m.relative_up(), None);
        // Radius 0: g is X.
        let ErrorMeasure::Finite { absolute_down, .. } = certified_measure(2.0, 1.0, 0.0) else {
            panic!("finite");
        };
        assert_eq!(absolute_down, None);
    }
}
