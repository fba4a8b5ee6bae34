//! The integration tests: one binary that drives the real `cdcctl` binary
//! and the library's public API, one module per command or subsystem.

mod common;
mod config;
mod config_lint;
mod daemon;
mod dm_live;
mod drills;
mod flink;
mod hostile;
mod kafka;
mod lob_images;
mod numbers;
mod operator;
mod oracle_live;
mod preflight;
mod redo_dm8;
mod redo_forms;
mod redo_parse;
mod redo_replay;
mod remediation;
mod run;
mod scenarios;
mod sim;
mod snapshot;
mod snapshot_dm8;
mod snapshot_exact;
mod snapshot_keyless;
mod snapshot_raw_key;
mod tail;
mod truncate;
mod value_forms;
mod window;
