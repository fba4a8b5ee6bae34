//! What the transaction buffer reports besides events: why it stopped,
//! what it warns of, findings tied to their change, dead letters, long
//! open transactions and its counts.

use std::time::Duration;

use crate::engine::emit::SinkError;
use crate::engine::finding::Finding;
use crate::engine::metrics::OpenTxnSummary;
use crate::engine::redo::csf::CsfError;
use crate::engine::row::Scn;

/// Why the buffer stopped.
#[derive(Debug, thiserror::Error)]
pub enum TxnError {
    #[error(
        "cannot parse SQL_REDO at SCN {scn}, XID {xid}: {message} at byte {position}; raw text: {}",
        clip(.raw)
    )]
    Parse {
        scn: Scn,
        xid: String,
        message: String,
        position: usize,
        raw: String,
    },
    #[error(
        "MISSING_SCN at SCN {scn} (thread {thread}, sequence {sequence}): a redo log is missing from the \
         mining session; restore the archived log or restart from an earlier checkpoint"
    )]
    MissingScn {
        scn: Scn,
        thread: u16,
        sequence: u64,
    },
    #[error(
        "COMMIT of XID {xid} at SCN {scn} came after a COMMIT at SCN {last}: rows are not in SCN order; \
         do not reorder V$LOGMNR_CONTENTS"
    )]
    CommitOutOfOrder { xid: String, scn: Scn, last: Scn },
    #[error("spill file for XID {xid}: {source}; check free space and permissions of the spill directory")]
    Spill {
        xid: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Csf(#[from] CsfError),
    #[error("event sink failed: {0}")]
    Sink(#[source] SinkError),
}

/// Something the operator should know that does not stop the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxnWarning {
    /// Open longer than the retention: its buffered changes were dropped.
    Abandoned {
        xid: String,
        start_scn: Scn,
        age: Duration,
        events: u64,
        bytes: u64,
    },
    /// The COMMIT of an abandoned transaction: its changes are lost.
    LateCommitIgnored { xid: String, scn: Scn },
    /// A `ROLLBACK = 1` row with no earlier change of that ROW_ID to undo.
    UnmatchedPartialRollback {
        xid: String,
        scn: Scn,
        row_id: Option<String>,
    },
    /// `V$TRANSACTION` could not be read at a first start: transactions
    /// already under way are emitted marked partial.
    OpenTransactionsUnreadable { error: String },
    /// The logs holding the start of transactions under way at a first
    /// start are gone: those transactions are emitted marked partial.
    InFlightLogsMissing { start_scn: Scn },
    /// An undo row whose XID has sequence FFFFFFFF matched several open
    /// transactions on the same undo segment and slot; none was changed.
    AmbiguousUndoXid {
        xid: String,
        scn: Scn,
        candidates: Vec<String>,
    },
}

impl TxnWarning {
    /// A stable name for the kind, as screens and metrics file it.
    pub fn code(&self) -> &'static str {
        match self {
            TxnWarning::Abandoned { .. } => "abandoned_transaction",
            TxnWarning::LateCommitIgnored { .. } => "late_commit_ignored",
            TxnWarning::UnmatchedPartialRollback { .. } => "unmatched_partial_rollback",
            TxnWarning::OpenTransactionsUnreadable { .. } => "open_transactions_unreadable",
            TxnWarning::InFlightLogsMissing { .. } => "in_flight_logs_missing",
            TxnWarning::AmbiguousUndoXid { .. } => "ambiguous_undo_xid",
        }
    }

    pub fn message(&self) -> String {
        match self {
            TxnWarning::Abandoned {
                xid,
                start_scn,
                age,
                events,
                bytes,
            } => format!(
                "abandoned transaction {xid} (start SCN {start_scn}, open {}s in redo time, {events} changes, \
                 {bytes} bytes): its changes will not be emitted",
                age.as_secs()
            ),
            TxnWarning::LateCommitIgnored { xid, scn } => format!(
                "COMMIT of abandoned transaction {xid} at SCN {scn} ignored: its changes were dropped; \
                 raise the retention or re-snapshot the tables it touched"
            ),
            TxnWarning::UnmatchedPartialRollback { xid, scn, row_id } => format!(
                "ROLLBACK=1 row at SCN {scn} in {xid} matches no earlier change of ROW_ID {}",
                row_id.as_deref().unwrap_or("(none)")
            ),
            TxnWarning::OpenTransactionsUnreadable { error } => format!(
                "cannot read the open transactions ({error}): changes of transactions already under way \
                 at the start are emitted marked partial"
            ),
            TxnWarning::InFlightLogsMissing { start_scn } => format!(
                "the logs holding the start of transactions under way at SCN {start_scn} are no longer \
                 available: their changes are emitted marked partial"
            ),
            TxnWarning::AmbiguousUndoXid {
                xid,
                scn,
                candidates,
            } => format!(
                "undo row at SCN {scn} with XID {xid} (sequence unknown to LogMiner) matches several \
                 open transactions on its undo slot ({}); it was not applied",
                candidates.join(", ")
            ),
        }
    }
}

/// A finding tied to the change it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnFinding {
    pub xid: String,
    pub scn: Scn,
    pub finding: Finding,
}

/// A DML row the parser rejected while `OnParseError::Warn` was set.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeadLetter {
    pub scn: Scn,
    pub commit_scn: Scn,
    pub xid: String,
    pub message: String,
    pub position: usize,
    pub raw: String,
}

/// An open transaction past the age asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongRunning {
    pub summary: OpenTxnSummary,
    /// Redo time since its first row.
    pub age: Duration,
}

/// Counts beyond [`OpCounts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferStats {
    pub rows: u64,
    /// LOB / XML / extended-string rows buffered (not reassembled).
    pub lob_rows: u64,
    /// INTERNAL, SELECT_FOR_UPDATE, replication markers and rows below the
    /// resume point.
    pub ignored_rows: u64,
    pub spilled_transactions: u64,
    pub spilled_bytes: u64,
    pub dead_letters: u64,
    pub findings: u64,
    pub abandoned: u64,
    /// Events not emitted again because the checkpoint says they were.
    pub skipped_as_emitted: u64,
}

/// Raw statements can be megabytes (joined CSF pieces): an error message
/// shows the start; the error value keeps the whole text.
const RAW_SHOWN: usize = 2000;

fn clip(raw: &str) -> String {
    if raw.len() <= RAW_SHOWN {
        return raw.to_string();
    }
    let mut end = RAW_SHOWN;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &raw[..end], raw.len())
}
