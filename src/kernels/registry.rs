//! The kernels `boundgate run` knows and the experiments `boundgate audit`
//! knows, by name, gathered from the kernel families.

use super::Kernel;
use super::{accessor, baseline, interleave, mpfma, qdot, residual};
use crate::audit::experiment::Experiment;
use crate::error::{Error, Result};
use std::sync::OnceLock;

/// Every registered kernel, in listing order (family by family).
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::registry::all().iter().map(|k| k.name()).collect();
/// assert!(names.contains(&"dot-recursive"));
/// ```
pub fn all() -> &'static [&'static dyn Kernel] {
    static KERNELS: OnceLock<Vec<&'static dyn Kernel>> = OnceLock::new();
    KERNELS.get_or_init(|| {
        [
            baseline::kernels(),
            qdot::kernels(),
            accessor::kernels(),
            mpfma::kernels(),
            residual::kernels(),
            interleave::kernels(),
        ]
        .concat()
    })
}

/// Every registered experiment.
///
/// # Example
/// ```
/// use boundgate::kernels::registry;
/// let names: Vec<_> = registry::experiments().iter().map(|e| e.name()).collect();
/// assert!(names.contains(&"qdot-fig1") && names.contains(&"qdot-apm"));
/// // Names are unique (find_experiment takes the first).
/// let mut unique = names.clone();
/// unique.sort();
/// unique.dedup();
/// assert_eq!(unique.len(), names.len());
/// ```
pub fn experiments() -> &'static [&'static dyn Experiment] {
    static EXPERIMENTS: OnceLock<Vec<&'static dyn Experiment>> = OnceLock::new();
    EXPERIMENTS.get_or_init(|| {
        [
            baseline::experiments(),
            qdot::experiments(),
            accessor::experiments(),
            mpfma::experiments(),
            residual::experiments(),
            interleave::experiments(),
        ]
        .concat()
    })
}

/// The kernel with this name.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::registry;
/// assert_eq!(registry::find("qdot").unwrap().name(), "qdot");
/// let err = registry::find("qdott").err().unwrap();
/// assert!(matches!(err, Error::Usage(m) if m.starts_with("unknown kernel `qdott` (kernels: ")));
/// ```
pub fn find(name: &str) -> Result<&'static dyn Kernel> {
    all()
        .iter()
        .copied()
        .find(|k| k.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = all().iter().map(|k| k.name()).collect();
            Error::usage(format!(
                "unknown kernel `{name}` (kernels: {}; see `boundgate run --list`)",
                names.join(", ")
            ))
        })
}

/// The experiment with this name.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::kernels::registry;
/// assert_eq!(registry::find_experiment("qdot-fig2").unwrap().name(), "qdot-fig2");
/// let err = registry::find_experiment("qdot-fig3").err().unwrap();
/// assert!(matches!(err, Error::Usage(m) if m.starts_with("unknown experiment `qdot-fig3`")));
/// ```
pub fn find_experiment(name: &str) -> Result<&'static dyn Experiment> {
    experiments()
        .iter()
        .copied()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = experiments().iter().map(|e| e.name()).collect();
            Error::usage(format!(
                "unknown experiment `{name}` (experiments: {}; see `boundgate audit --list`)",
                if names.is_empty() {
                    "none yet".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })
}
