//! The kernels `boundgate run` and `boundgate audit` know, by name.

use super::Kernel;
use super::baseline::pairwise::PairwiseDot;
use super::baseline::recursive::RecursiveDot;
use super::baseline::tree::TreeDot;
use crate::error::{Error, Result};

static KERNELS: &[&dyn Kernel] = &[&RecursiveDot, &PairwiseDot, &TreeDot];

/// Every registered kernel, in listing order.
///
/// # Example
/// ```
/// let names: Vec<_> = boundgate::kernels::registry::all().iter().map(|k| k.name()).collect();
/// assert!(names.contains(&"dot-recursive"));
/// ```
pub fn all() -> &'static [&'static dyn Kernel] {
    KERNELS
}

/// The kernel with this name.
pub fn find(name: &str) -> Result<&'static dyn Kernel> {
    KERNELS
        .iter()
        .copied()
        .find(|k| k.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = KERNELS.iter().map(|k| k.name()).collect();
            Error::usage(format!(
                "unknown kernel `{name}` (kernels: {}; see `boundgate run --list`)",
                names.join(", ")
            ))
        })
}
