//! Offline catalog facts. `cdcctl collect` prints a SQL*Plus script that
//! spools the rows of the catalog's named queries into one JSON file:
//!
//! ```json
//! {"format": "cdcctl-evidence", "version": 1, "collected_at": "2026-01-31T12:00:00",
//!  "dialect": "oracle",
//!  "queries": {"database": [{"LOG_MODE": "ARCHIVELOG", ...}], "pdbs": [...],
//!              "wallet": {"error": "ORA-00942"}}}
//! ```
//!
//! Keys of a row are the upper-case output column names of the query; a
//! query the database refused is `{"error": "ORA-nnnnn"}`. This module maps
//! those rows into the catalog fact structs ([`EvidenceCatalog`], which
//! implements `Catalog`) and, for `collect --from-source`, renders facts
//! back into the same rows ([`rows_from_facts`]) so that both directions go
//! through one mapping.

mod catalog;
mod file;
mod instance;
mod read;
mod spool;
mod tables;

pub use catalog::{open_offline, EvidenceCatalog, FactsSnapshot, SnapshotTransaction};
pub use file::{repair_lines, EvidenceFile, QueryRows, Row, FORMAT, REQUIRED_OBJECTS, VERSION};
pub use spool::rows_from_facts;

#[cfg(test)]
mod tests;
