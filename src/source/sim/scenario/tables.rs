//! `[[tables]]`: each simulated table's columns, key, partitioning,
//! initial rows and share of the workload.

use serde::Deserialize;
use toml::Spanned;

use super::instance::{yes, SuppLevel};

fn d_rows() -> u64 {
    100
}
fn d_weight() -> f64 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub owner: String,
    pub name: String,
    /// The PDB holding the table (default: the first PDB).
    #[serde(default)]
    pub pdb: Option<String>,
    /// Table-level supplemental log group.
    #[serde(default)]
    pub supplemental_logging: Option<SuppLevel>,
    /// Rows loaded before the simulation starts (all tables together: at
    /// most 1,500,000, which the simulator holds in memory, unless the
    /// scenario's `memory_mb` says more).
    #[serde(default = "d_rows")]
    pub rows: u64,
    /// Share of the workload's changes.
    #[serde(default = "d_weight")]
    pub weight: f64,
    pub columns: Vec<ColumnSpec>,
    #[serde(default)]
    pub primary_key: Vec<String>,
    #[serde(default)]
    pub partitioning: Option<PartitioningSpec>,
    /// Object privileges the connected user holds on it.
    #[serde(default)]
    pub grants: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    #[serde(default = "yes")]
    pub nullable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartitionKind {
    Range,
    Interval,
    List,
    Hash,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitioningSpec {
    #[serde(rename = "type")]
    pub kind: PartitionKind,
    pub column: String,
    /// Months per interval partition (interval partitioning on a DATE).
    #[serde(default)]
    pub interval_months: Option<u32>,
    /// Number of hash partitions.
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default)]
    pub partitions: Vec<PartitionSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    pub name: String,
    /// Range: `2025-02-01` (DATE key), a number, or `MAXVALUE`.
    #[serde(default)]
    pub high_value: Option<String>,
    /// List: the values, or `DEFAULT`.
    #[serde(default)]
    pub values: Vec<String>,
}
