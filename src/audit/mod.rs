//! Audit campaigns: plans (TOML), the runner, sharding and merging, and
//! reports (JSON, Markdown, HTML, JUnit XML, terminal table).

pub mod experiment;
pub mod html;
pub mod junit;
pub mod plan;
pub mod report;
pub mod runner;
pub mod shard;

pub use plan::{Plan, Seeds};
pub use report::AuditReport;
pub use runner::{RunOptions, run_plan};
pub use shard::{Shard, merge};
