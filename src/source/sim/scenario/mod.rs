//! Scenario files: the TOML that describes a simulated instance, its tables,
//! workload and faults, and the built-in scenarios embedded in the binary.
//!
//! Every section denies unknown keys, so a typo is an error with its line,
//! never a silently ignored setting.

mod builtins;
mod error;
mod instance;
mod parse;
mod spec;
mod tables;
#[cfg(test)]
mod tests;
mod validate;
mod workload;

pub use builtins::{Builtin, BUILTINS};
pub use error::ScenarioError;
pub use instance::{
    ConnectionSpec, DestSpec, DmRollbackRows, DmSpec, InstanceSpec, LogMinerSpec, LogMode,
    RedoSpec, SuppLevel, ThreadSpec,
};
pub use spec::{parse_time, Scenario, VERSIONS};
pub use tables::{ColumnSpec, PartitionKind, PartitionSpec, PartitioningSpec, TableSpec};
pub use workload::{
    BigTxnSpec, FaultKind, FaultSpec, LongTxnSpec, MaintenanceAction, MaintenanceSpec, WorkloadSpec,
};
