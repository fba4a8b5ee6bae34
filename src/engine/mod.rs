//! The capture engine that `tail` and `run` both drive: LogMiner session
//! planning, the SQL_REDO parser, the transaction buffer, checkpoints, change
//! events and metrics. It reads a database through its own port
//! (`port::RedoSource`), which the sources implement, and depends on no UI
//! crate.

mod block;
pub mod capture;
pub mod charset;
pub mod checkpoint;
pub mod contents_csv;
pub mod detail;
pub mod emit;
pub mod event;
pub mod finding;
pub mod inflight;
pub mod lag_cause;
pub mod lob_memory;
pub mod metrics;
pub mod port;
pub mod redo;
pub mod row;
pub mod rowid;
pub mod session;
pub mod snapshot;
pub mod txn;
