//! `boundgate interleave`: not implemented yet.

use crate::error::{Error, ExitCode, Result};
use clap::Args;

/// Arguments of `boundgate interleave`.
#[derive(Debug, Args)]
pub struct InterleaveArgs {}

/// Runs `boundgate interleave`.
pub fn execute(_args: InterleaveArgs) -> Result<ExitCode> {
    Err(Error::usage("boundgate interleave is not implemented yet"))
}
