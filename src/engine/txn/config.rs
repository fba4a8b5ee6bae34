//! How the transaction buffer behaves: the names its events carry, what a
//! parse failure does, LOB reassembly, spilling and retention.

use std::path::PathBuf;
use std::time::Duration;

use super::pieces::LobMode;

/// What to do with a DML row the parser rejects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnParseError {
    /// Stop with [`TxnError::Parse`].
    #[default]
    Fail,
    /// Record it in the dead-letter list, count it, and go on.
    Warn,
}

/// How the buffer behaves.
#[derive(Debug, Clone)]
pub struct BufferConfig {
    /// `source.name` of the events (the logical server name).
    pub server_name: String,
    /// `source.db` when a row has no SRC_CON_NAME.
    pub db_name: String,
    pub on_parse_error: OnParseError,
    /// Recover string values holding a quote LogMiner did not double, from
    /// the statement's shape, with a finding for each (see
    /// [`crate::engine::redo::ParseOptions`]).
    pub relaxed_quotes: bool,
    /// Character sets and column types, to decode character data LogMiner
    /// printed as `HEXTORAW`; without it such values stay hex, flagged.
    pub charsets: Option<std::sync::Arc<crate::engine::charset::CharsetDictionary>>,
    /// A transaction whose buffered rows pass this many bytes spills to disk.
    pub spill_txn_bytes: Option<u64>,
    /// When all in-memory transactions together pass this, the largest spills.
    pub spill_total_bytes: Option<u64>,
    /// Where spill files go (the system temp dir when `None`).
    pub spill_dir: Option<PathBuf>,
    /// Abandon transactions open longer than this, in redo time.
    pub abandon_after: Option<Duration>,
    /// Reassemble LOB and XMLType values, or give them as the unavailable
    /// marker (extended strings are reassembled either way).
    pub lob: LobMode,
    /// The source's database family, named in each event's
    /// `source.connector`; the capture sets it from its source.
    pub dialect: crate::engine::port::Dialect,
}

impl Default for BufferConfig {
    fn default() -> Self {
        Self {
            server_name: "cdcctl".into(),
            db_name: String::new(),
            on_parse_error: OnParseError::Fail,
            relaxed_quotes: false,
            charsets: None,
            spill_txn_bytes: Some(64 << 20),
            spill_total_bytes: Some(512 << 20),
            spill_dir: None,
            abandon_after: None,
            lob: LobMode::Placeholder,
            dialect: crate::engine::port::Dialect::Oracle,
        }
    }
}
