//! `boundgate probe`: not implemented yet.

use crate::error::{Error, ExitCode, Result};
use clap::Args;

/// Arguments of `boundgate probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {}

/// Runs `boundgate probe`.
pub fn execute(_args: ProbeArgs) -> Result<ExitCode> {
    Err(Error::usage("boundgate probe is not implemented yet"))
}
