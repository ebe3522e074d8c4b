//! Last line of defence: a panic inside the CUDA bindings becomes
//! [`GpuError::Internal`] instead of unwinding through the caller. The library
//! checks in [`super::loader`] are the first line; this catches what they
//! cannot foresee (a bindings `unwrap` on an unexpected driver answer).

use super::GpuError;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `work`, turning a panic into an error.
pub(crate) fn catch<T>(work: impl FnOnce() -> Result<T, GpuError>) -> Result<T, GpuError> {
    // AssertUnwindSafe: after a panic nothing `work` touched is used again;
    // the caller only sees the error.
    catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|payload| Err(GpuError::Internal(message(payload.as_ref()))))
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error() {
        let result: Result<(), GpuError> = catch(|| panic!("missing symbol cuFoo"));
        assert_eq!(
            result,
            Err(GpuError::Internal("missing symbol cuFoo".into()))
        );
        assert_eq!(catch(|| Ok(3)), Ok(3));
    }
}
