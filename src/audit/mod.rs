//! Audit campaigns: plans (TOML), the runner, and reports (JSON, Markdown,
//! terminal table).

pub mod experiment;
pub mod plan;
pub mod report;
pub mod runner;

pub use plan::Plan;
pub use report::AuditReport;
pub use runner::{RunOptions, run_plan};
