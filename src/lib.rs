//! cdcctl: preflight, partition audit, live tail and capture daemon for
//! log-based change data capture from Oracle (11g–23ai), Dameng DM8 and
//! YashanDB.
//!
//! The library holds everything but the command line: the capture `engine`,
//! the `source`s it reads (simulator, Oracle, offline evidence), `preflight`
//! rules, `sink`s and the `tui`.

pub mod connect;
pub mod daemon;
pub mod engine;
pub mod exit;
pub mod limits;
pub mod output;
pub mod preflight;
pub mod sink;
pub mod source;
pub mod suggest;
pub mod telemetry;
pub mod tui;
