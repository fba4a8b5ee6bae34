//! Change events: what the engine emits in commit order (row changes and
//! DDL), where each came from, and the images and values they carry. Their
//! wire format, a Debezium-compatible envelope, is [`envelope`]'s.

mod columns;
mod connect;
pub mod envelope;
mod field;
mod forms;
mod hex;
pub(crate) mod image;
pub mod json;

use std::borrow::Cow;
use std::sync::Arc;

use super::port::Dialect;
use super::row::Scn;
pub use columns::{ColumnKinds, ColumnType, TableColumnTypes};
pub use connect::{column_schema, key_with_schema, payload_of, schema_change_key_with_schema};
pub use field::{Field, FieldRef, UNAVAILABLE_VALUE};
pub use forms::{
    is_binary_data_type, BinaryHandling, ColumnKind, DecimalHandling, EnvelopeForm, TimePrecision,
    ValueForms,
};
pub(crate) use hex::decode_hex;
pub use hex::hex_lower;
pub use image::Image;

/// The `source.version` field.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Create,
    Update,
    Delete,
    /// A row read by a snapshot.
    Read,
    /// Every row of the table removed at once (TRUNCATE TABLE): no image.
    Truncate,
}

impl Op {
    pub fn code(self) -> &'static str {
        match self {
            Op::Create => "c",
            Op::Update => "u",
            Op::Delete => "d",
            Op::Read => "r",
            Op::Truncate => "t",
        }
    }
}

/// Where a change came from: the `source` block of the envelope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SourcePosition {
    /// `source.name`: the logical server name (topic prefix).
    pub name: String,
    /// `source.db`: the PDB (or database) the change was made in.
    pub db: String,
    pub schema: String,
    pub table: String,
    /// Transaction id, as 16 hex digits.
    pub xid: String,
    /// SCN of the change itself.
    pub scn: Scn,
    /// SCN of the transaction's COMMIT.
    pub commit_scn: Scn,
    /// Redo time of the change, ms since the epoch.
    pub change_ts_ms: i64,
    pub rs_id: Option<String>,
    pub ssn: u64,
    pub thread: u16,
    pub row_id: Option<String>,
    /// `source.connector`: the database family (`oracle`, `dm`).
    pub dialect: Dialect,
    /// `source.user_name`: who ran the transaction, as its START row
    /// names them; `None` where LogMiner could not tell (`UNKNOWN`).
    pub user_name: Option<Arc<str>>,
    /// `source.start_scn`: SCN of the transaction's START row; `None` for
    /// a snapshot read and a transaction that began before capture.
    pub start_scn: Option<Scn>,
    /// `source.start_ts_ms`: redo time of the START row, ms since the epoch.
    pub start_ts_ms: Option<i64>,
}

impl SourcePosition {
    /// `source.txId` and `transaction.id`: the XID in lower-case hex, as
    /// Debezium writes it (it hex-encodes the RAW(8) itself).
    pub fn tx_id(&self) -> Cow<'_, str> {
        if self.xid.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(self.xid.to_ascii_lowercase())
        } else {
            Cow::Borrowed(&self.xid)
        }
    }

    /// `source.rs_id` without the spaces LogMiner pads RS_ID with, as
    /// Debezium trims it.
    pub fn rs_id_trimmed(&self) -> Option<&str> {
        self.rs_id.as_deref().map(str::trim)
    }
}

/// A time in ms since the epoch in µs (`ts_us`), saturating where a year
/// far beyond any redo's would overflow.
pub(crate) fn ms_to_us(ms: i64) -> i64 {
    ms.saturating_mul(1_000)
}

/// A time in ms since the epoch in ns (`ts_ns`), saturating past 2262.
pub(crate) fn ms_to_ns(ms: i64) -> i64 {
    ms.saturating_mul(1_000_000)
}

/// A committed row change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChangeEvent {
    pub op: Op,
    pub before: Option<Image>,
    pub after: Option<Image>,
    pub source: SourcePosition,
    /// `source.snapshot`: a streamed change, or where a read row stands
    /// in the snapshot.
    pub snapshot: SnapshotMark,
    /// The transaction began before capture could see it (its START row
    /// was never read): its earlier changes are missing. Serialised as
    /// `transaction.partial = true`, and only then.
    pub partial: bool,
    /// Commit time of the transaction, ms since the epoch.
    pub commit_ts_ms: i64,
    /// 0-based position of this change among the emitted changes of its
    /// transaction; with (commit SCN, XID) it identifies the event for
    /// de-duplication after a restart.
    pub index: u32,
    /// 1-based position among the transaction's changes to the same table.
    pub table_order: u32,
}

/// What `source.snapshot` says of an event, in Debezium's vocabulary. A
/// row that is both the first and the last of something takes the later
/// place: `last` must appear, since consumers wait on it to know the
/// snapshot ended, and a table's end says more than its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SnapshotMark {
    /// A change streamed from the redo: `"false"`.
    #[default]
    Stream,
    /// A read row with no place worth marking: `"true"`.
    Row,
    /// The snapshot's first row: `"first"`.
    First,
    /// The first row of a table after the first: `"first_in_data_collection"`.
    FirstInTable,
    /// The last row of a table before the last: `"last_in_data_collection"`.
    LastInTable,
    /// The snapshot's final row: `"last"`.
    Last,
    /// A read row of a snapshot marked as Debezium marks its incremental
    /// (interleaved, chunked) snapshots: `"incremental"`.
    Incremental,
}

impl SnapshotMark {
    /// The value of `source.snapshot`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Stream => "false",
            Self::Row => "true",
            Self::First => "first",
            Self::FirstInTable => "first_in_data_collection",
            Self::LastInTable => "last_in_data_collection",
            Self::Last => "last",
            Self::Incremental => "incremental",
        }
    }

    /// Whether the event is a row a snapshot read (`op: "r"`).
    pub fn is_read(self) -> bool {
        self != Self::Stream
    }
}

/// The XID a snapshot row's position carries for de-duplication after a
/// restart: above every hexadecimal XID, so a row read at SCN `s` sorts
/// after every change committed at `s`, which the read includes.
pub const SNAPSHOT_XID: &str = "~snapshot";

impl ChangeEvent {
    /// Identity used to drop duplicates after a restart.
    pub fn dedup_key(&self) -> (Scn, &str, u32) {
        (self.source.commit_scn, &self.source.xid, self.index)
    }
}

/// A DDL statement seen in the redo (OPERATION_CODE 5), passed through in
/// commit order like a change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DdlEvent {
    pub source: SourcePosition,
    pub ddl: String,
    pub commit_ts_ms: i64,
}

/// Anything the engine emits in commit order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CapturedEvent {
    Change(ChangeEvent),
    Ddl(DdlEvent),
}

impl CapturedEvent {
    pub fn source(&self) -> &SourcePosition {
        match self {
            CapturedEvent::Change(c) => &c.source,
            CapturedEvent::Ddl(d) => &d.source,
        }
    }
}
