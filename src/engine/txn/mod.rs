//! The transaction buffer: rows of `V$LOGMNR_CONTENTS` (mined without
//! COMMITTED_DATA_ONLY) in, committed change events out, in commit order.
//!
//! - Rows are grouped by XID. START (6) or the first row of an unknown XID
//!   opens a transaction at that row's SCN: without COMMITTED_DATA_ONLY
//!   Oracle leaves START_SCN/COMMIT_SCN NULL on DML rows, so they are not
//!   read. COMMIT (7) emits, ROLLBACK (36) drops, a DML row with
//!   `ROLLBACK = 1` removes the most recent earlier change of the same
//!   transaction with the same ROW_ID. LogMiner gives such undo rows of a
//!   transaction that began before its session the XID's undo segment and
//!   slot with sequence FFFFFFFF; they go to the one open transaction on
//!   that slot (a warning when several are open there).
//! - A transaction whose START row was never read (it began before capture
//!   could see it) is emitted with every event marked `partial`. At a first
//!   start, the transactions V$TRANSACTION lists as under way are read from
//!   their own start instead ([`TxnBuffer::starting_after`]).
//! - Parsing happens at COMMIT, so rolled-back work is never parsed. A parse
//!   failure stops the buffer with the raw SQL, SCN, XID and byte position,
//!   unless [`OnParseError::Warn`] sends it to the dead-letter list. A
//!   `STATUS = 2` row (LogMiner could not rebuild it) is a finding, never an
//!   event; parser findings (partial before image, dictionary mismatch)
//!   travel next to the event they concern.
//! - Resumed from a checkpoint, rows at or below its restart SCN are skipped
//!   and events it records as emitted, by (commit SCN, XID, index), are not
//!   emitted again.
//! - DDL (5) is emitted at its transaction's COMMIT; a DDL whose COMMIT has
//!   not come when the window ends auto-commits at its own SCN, as in Oracle.
//! - MISSING_SCN (34) is an error: a log is missing from the session.
//!   UNSUPPORTED (255) becomes a finding at commit. LOB rows
//!   (SELECT_LOB_LOCATOR, LOB_WRITE, LOB_TRIM, LOB_ERASE) and XML /
//!   extended-string pieces are buffered with their transaction and counted,
//!   but not reassembled: a LOB column inserted as `EMPTY_CLOB()` stays
//!   `Unavailable` in the event. INTERNAL and SELECT_FOR_UPDATE rows are
//!   counted and dropped; a replication marker (GoldenGate, code 27) also
//!   closes its transaction when that holds no change, since such marker
//!   transactions never show a COMMIT.
//! - A transaction past [`BufferConfig::spill_txn_bytes`] (or the largest one
//!   when all together pass [`BufferConfig::spill_total_bytes`]) moves its
//!   rows to an unlinked temporary file and streams them back at COMMIT. A
//!   16-byte ROW_ID key per change stays in memory so partial rollbacks still
//!   remove the right change, on disk or not. Events are handed to the sink
//!   one by one: a big transaction is never materialised as events.
//! - Restart SCN: the oldest open transaction's start SCN − 1, else the last
//!   SCN known to be completely read (the last commit SCN when the window
//!   ends on a commit). It never moves backwards.
//!
//! Driving it (what `run`, `tail` and `redo replay` do):
//!
//! ```text
//! let mut buf = TxnBuffer::new(config);       // or TxnBuffer::resume(config, &checkpoint)
//! for row in window_rows { buf.push(row, &mut sink)?; }   // sink: FnMut(CapturedEvent)
//! buf.finish_window(window_upper_scn, &mut sink)?;
//! warnings = buf.abandon_expired();           // and buf.long_running(age) for alerts
//! buf.fill_status(&mut status);
//! store.save(&buf.checkpoint())?;             // only once the sink made the events durable
//! ```
//!
//! After an error the buffer must not be fed further: restart from the
//! last checkpoint saved.
//!
//! Limits:
//! - Abandoned XIDs are remembered in memory only: after a restart from a
//!   checkpoint taken past the abandonment, later rows of such a transaction
//!   form a new, partial transaction. Keep the retention well above the
//!   longest legitimate transaction.

mod decode;
mod pieces;
mod rowkey;
mod spill;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use chrono::NaiveDateTime;

use super::checkpoint::{Checkpoint, ReplayFilter};
use super::emit::{Sink, SinkError};
use super::event::{CapturedEvent, ChangeEvent, DdlEvent, Field, FieldRef, Op, SourcePosition};
use super::finding::Finding;
use super::metrics::{CaptureStatus, OpCounts, OpenTxnSummary};
use super::redo::csf::{CsfAssembler, CsfError};
use super::redo::{lob, DmlKind};
use super::row::{LogMinerRow, OperationCode, Scn};
pub use pieces::LobMode;
use pieces::{Assembly, Pending, Placement};
use spill::{SpillFile, SpillReader};

/// One transaction's emission under way.
/// Changes emitted so far per table within one transaction. A transaction
/// touches few tables, so a short list looked up by `&str` beats a map
/// keyed by owned names, which cost two allocations per event to look up.
#[derive(Default)]
struct TableOrders(Vec<(String, String, u32)>);

impl TableOrders {
    /// The 1-based position of the next change to `schema.table`.
    fn next(&mut self, schema: &str, table: &str) -> u32 {
        if let Some((_, _, n)) = self
            .0
            .iter_mut()
            .find(|(s, t, _)| s == schema && t == table)
        {
            *n += 1;
            return *n;
        }
        self.0.push((schema.to_string(), table.to_string(), 1));
        1
    }
}

struct EmitCtx {
    xid: String,
    commit_scn: Scn,
    commit_ts_ms: i64,
    partial: bool,
    /// The next event's index.
    index: u32,
    table_orders: TableOrders,
    /// The last change, until the rows after it show whether pieces follow.
    pending: Option<Pending>,
    assembly: Assembly,
}

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

/// Bytes the buffer accounts for one row (strings plus a fixed overhead).
fn row_bytes(r: &LogMinerRow) -> u64 {
    let s = |o: &Option<String>| o.as_ref().map_or(0, |s| s.len());
    (std::mem::size_of::<LogMinerRow>()
        + r.xid.len()
        + s(&r.seg_owner)
        + s(&r.table_name)
        + s(&r.row_id)
        + s(&r.username)
        + s(&r.rs_id)
        + s(&r.sql_redo)
        + s(&r.info)
        + s(&r.src_con_name)) as u64
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

fn ts_ms(ts: Option<NaiveDateTime>) -> i64 {
    ts.map_or(0, |t| t.and_utc().timestamp_millis())
}

fn is_lob_like(op: OperationCode) -> bool {
    matches!(
        op,
        OperationCode::SelectLobLocator
            | OperationCode::LobWrite
            | OperationCode::LobTrim
            | OperationCode::LobErase
            | OperationCode::Other(_)
    )
}

struct Txn {
    xid: String,
    start_scn: Scn,
    start_time: Option<NaiveDateTime>,
    /// One key per buffered row, in push order: ROW_ID key, `NONE`, or `DEAD`.
    keys: Vec<u128>,
    /// Every key in `live_end..` is `DEAD`.
    live_end: usize,
    /// Rows `spill.rows()..keys.len()` (all rows while not spilled).
    mem: Vec<LogMinerRow>,
    spill: Option<SpillFile>,
    bytes: u64,
    mem_bytes: u64,
    /// Live DML changes.
    changes: u64,
    ddl: u64,
    /// Its START row was read: no change of it came before capture.
    whole: bool,
}

impl Txn {
    fn new(xid: &str, scn: Scn, time: Option<NaiveDateTime>) -> Self {
        Self {
            xid: xid.to_string(),
            start_scn: scn,
            start_time: time,
            keys: Vec::new(),
            live_end: 0,
            mem: Vec::new(),
            spill: None,
            bytes: 0,
            mem_bytes: 0,
            changes: 0,
            ddl: 0,
            whole: false,
        }
    }

    fn spilled_rows(&self) -> usize {
        self.spill.as_ref().map_or(0, SpillFile::rows)
    }

    fn summary(&self) -> OpenTxnSummary {
        OpenTxnSummary {
            xid: self.xid.clone(),
            start_scn: self.start_scn,
            start_time: self.start_time,
            events: self.changes,
            bytes: self.bytes,
            spilled: self.spill.is_some(),
        }
    }

    /// Moves every in-memory row to the spill file.
    fn spill_out(&mut self, dir: Option<&std::path::Path>) -> std::io::Result<u64> {
        let file = match self.spill.as_mut() {
            Some(f) => f,
            None => self.spill.insert(SpillFile::create(dir)?),
        };
        let before = file.bytes();
        for row in self.mem.drain(..) {
            file.append(&row)?;
        }
        self.mem = Vec::new();
        self.mem_bytes = 0;
        Ok(file.bytes() - before)
    }

    fn push(&mut self, row: LogMinerRow, key: u128) -> std::io::Result<u64> {
        let bytes = row_bytes(&row);
        self.bytes += bytes;
        self.keys.push(key);
        self.live_end = self.keys.len();
        match self.spill.as_mut() {
            Some(file) => {
                let before = file.bytes();
                file.append(&row)?;
                Ok(file.bytes() - before)
            }
            None => {
                self.mem_bytes += bytes;
                self.mem.push(row);
                Ok(0)
            }
        }
    }

    /// Removes the most recent live change with this ROW_ID key.
    fn undo_latest(&mut self, key: u128, row_id: Option<&str>) -> bool {
        if key == rowkey::NONE {
            return false;
        }
        let spilled = self.spilled_rows();
        let mut i = self.live_end;
        while i > 0 {
            i -= 1;
            if self.keys[i] != key {
                continue;
            }
            if rowkey::is_hashed(key)
                && i >= spilled
                && self.mem[i - spilled].row_id.as_deref().map(str::trim) != row_id.map(str::trim)
            {
                continue;
            }
            // The statement's LOB, XML and 32K rows go with it.
            let mut end = i + 1;
            while self.keys.get(end) == Some(&rowkey::PIECE) {
                end += 1;
            }
            for j in i..end {
                self.keys[j] = rowkey::DEAD;
                if j >= spilled {
                    let freed = row_bytes(&self.mem[j - spilled]);
                    self.mem_bytes = self.mem_bytes.saturating_sub(freed);
                    self.mem[j - spilled] = LogMinerRow::default();
                }
            }
            self.changes = self.changes.saturating_sub(1);
            while self.live_end > 0 && self.keys[self.live_end - 1] == rowkey::DEAD {
                self.live_end -= 1;
            }
            return true;
        }
        false
    }

    /// The live rows back, in push order, from disk then memory.
    fn into_rows(self) -> std::io::Result<TxnRows> {
        let reader = self.spill.map(SpillFile::into_reader).transpose()?;
        Ok(TxnRows {
            keys: self.keys,
            pos: 0,
            reader,
            mem: self.mem.into_iter(),
        })
    }
}

struct TxnRows {
    keys: Vec<u128>,
    pos: usize,
    reader: Option<SpillReader>,
    mem: std::vec::IntoIter<LogMinerRow>,
}

impl TxnRows {
    fn next_live(&mut self) -> std::io::Result<Option<LogMinerRow>> {
        while self.pos < self.keys.len() {
            let dead = self.keys[self.pos] == rowkey::DEAD;
            self.pos += 1;
            let row = match self
                .reader
                .as_mut()
                .map(SpillReader::next_row)
                .transpose()?
            {
                Some(Some(row)) => row,
                _ => match self.mem.next() {
                    Some(row) => row,
                    None => return Ok(None),
                },
            };
            if !dead {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }
}

/// A transaction being emitted (so a sink failure leaves a precise mark).
struct Emitting {
    xid: String,
    start_scn: Scn,
    last_index: Option<u32>,
}

/// Maps keyed by XID, looked up for every row: a fast hash (XIDs come from
/// the database, not from someone choosing collisions).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

/// (kind, schema, table, column) of the findings given once per column,
/// found without copying the names of a finding already given: a column
/// kept as hex would otherwise cost three copies per change.
#[derive(Default)]
struct ReportedOnce {
    hasher: foldhash::fast::RandomState,
    seen: FastMap<u64, Vec<(u8, String, String, String)>>,
}

impl ReportedOnce {
    const CHARACTER_HEX: u8 = 0;
    const LOB_UNAVAILABLE: u8 = 1;

    /// The once-per-column key of `f`, if it is such a finding.
    fn key(f: &Finding) -> Option<(u8, &str, &str, &str)> {
        match f {
            Finding::CharacterHex {
                schema,
                table,
                column,
                ..
            } => Some((Self::CHARACTER_HEX, schema, table, column)),
            Finding::LobUnavailable {
                schema,
                table,
                column,
            } => Some((Self::LOB_UNAVAILABLE, schema, table, column)),
            _ => None,
        }
    }

    fn hash(&self, kind: u8, schema: &str, table: &str, column: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one((kind, schema, table, column))
    }

    fn contains(&self, kind: u8, schema: &str, table: &str, column: &str) -> bool {
        self.seen
            .get(&self.hash(kind, schema, table, column))
            .is_some_and(|same| {
                same.iter()
                    .any(|(k, s, t, c)| *k == kind && s == schema && t == table && c == column)
            })
    }

    /// True the first time.
    fn insert(&mut self, kind: u8, schema: &str, table: &str, column: &str) -> bool {
        if self.contains(kind, schema, table, column) {
            return false;
        }
        let hash = self.hash(kind, schema, table, column);
        self.seen
            .entry(hash)
            .or_default()
            .push((kind, schema.into(), table.into(), column.into()));
        true
    }
}

/// The transaction buffer. See the module docs.
pub struct TxnBuffer {
    config: BufferConfig,
    csf: CsfAssembler,
    /// Columns already reported as HEXTORAW kept as hex (0) or as an
    /// unavailable LOB (1).
    reported_once: ReportedOnce,
    open: FastMap<String, Txn>,
    abandoned: FastSet<String>,
    /// DDL transactions auto-committed at window end: their late COMMIT is a no-op.
    auto_committed: FastSet<String>,
    filter: Option<ReplayFilter>,
    /// Rows at or below this SCN were handled before the resume point.
    ignore_through: Option<Scn>,
    /// At a first start, transactions already open at the start point:
    /// their rows below it are read all the same, so they come out whole.
    in_flight: FastSet<String>,
    commit_scn: Scn,
    committed_at_commit_scn: Vec<String>,
    last_commit_seen: Scn,
    emitting: Option<Emitting>,
    /// Highest SCN read, and the highest SCN all of whose rows were read.
    seen_scn: Scn,
    complete_scn: Scn,
    redo_now: Option<NaiveDateTime>,
    abandon_checked_at: Option<NaiveDateTime>,
    mem_bytes: u64,
    counts: OpCounts,
    stats: BufferStats,
    findings: Vec<TxnFinding>,
    dead_letters: Vec<DeadLetter>,
    warnings: Vec<TxnWarning>,
}

impl TxnBuffer {
    pub fn new(config: BufferConfig) -> Self {
        Self {
            reported_once: ReportedOnce::default(),
            config,
            csf: CsfAssembler::new(),
            open: FastMap::default(),
            abandoned: FastSet::default(),
            auto_committed: FastSet::default(),
            filter: None,
            ignore_through: None,
            in_flight: FastSet::default(),
            commit_scn: 0,
            committed_at_commit_scn: Vec::new(),
            last_commit_seen: 0,
            emitting: None,
            seen_scn: 0,
            complete_scn: 0,
            redo_now: None,
            abandon_checked_at: None,
            mem_bytes: 0,
            counts: OpCounts::default(),
            stats: BufferStats::default(),
            findings: Vec::new(),
            dead_letters: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// A buffer for a first start after `scn`: every change committed at or
    /// below it counts as done. Transactions in `in_flight` (open at `scn`,
    /// from `V$TRANSACTION`) are read from their start, so mining begins
    /// below the oldest of them, and other rows at or below `scn` are
    /// skipped; [`TxnBuffer::restart_scn`] is where mining begins.
    pub fn starting_after(
        config: BufferConfig,
        scn: Scn,
        in_flight: &[crate::engine::port::OpenTransaction],
    ) -> Self {
        let mut b = Self::new(config);
        let from = in_flight
            .iter()
            .map(|t| t.start_scn.saturating_sub(1))
            .min()
            .map_or(scn, |s| s.min(scn));
        b.complete_scn = from;
        b.seen_scn = from;
        b.commit_scn = scn;
        b.ignore_through = Some(scn);
        b.in_flight = in_flight.iter().map(|t| t.xid.clone()).collect();
        b
    }

    /// Gives up reading the in-flight transactions from their start (their
    /// logs are gone): mining begins after the start point and their
    /// events come out marked partial.
    pub fn forget_in_flight(&mut self) {
        let Some(scn) = self.ignore_through else {
            return;
        };
        self.in_flight.clear();
        self.complete_scn = self.complete_scn.max(scn);
        self.seen_scn = self.seen_scn.max(scn);
    }

    /// A buffer restarting from a checkpoint: rows at or below its restart
    /// SCN are ignored and nothing it records as emitted is emitted again.
    pub fn resume(config: BufferConfig, checkpoint: &Checkpoint) -> Self {
        let mut b = Self::new(config);
        b.filter = Some(ReplayFilter::new(checkpoint));
        b.ignore_through = Some(checkpoint.restart_scn);
        b.commit_scn = checkpoint.commit_scn;
        b.committed_at_commit_scn = checkpoint.committed_xids_at_commit_scn.clone();
        b.complete_scn = checkpoint.restart_scn;
        b.seen_scn = checkpoint.restart_scn;
        b
    }

    /// Takes over the totals of the buffer this one replaces after a
    /// reconnect: operation counts and row statistics only ever grow, for
    /// the screen as for Prometheus counters.
    pub fn carry_totals_from(&mut self, old: &TxnBuffer) {
        self.counts = old.counts;
        self.stats = old.stats;
    }

    /// Feeds one row of `V$LOGMNR_CONTENTS`, in view order; continuation
    /// pieces (CSF) are joined first. Committed events go to `sink` in commit
    /// order.
    pub fn push(&mut self, row: LogMinerRow, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        self.stats.rows += 1;
        if !row.csf && !self.csf.is_pending() {
            // The usual row: whole as it is, handed on without a pass
            // through the assembler (a move of the whole row each way).
            return self.push_logical(row, sink);
        }
        match self.csf.push(row)? {
            Some(row) => self.push_logical(row, sink),
            None => Ok(()),
        }
    }

    fn push_logical(&mut self, row: LogMinerRow, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        if self.ignore_through.is_some_and(|t| row.scn <= t) && !self.in_flight.contains(&row.xid) {
            self.stats.ignored_rows += 1;
            if row.operation_code == OperationCode::Commit && self.filter.is_none() {
                // Committed at or before the start point: done, also for a
                // resume whose restart SCN lies below the start point.
                self.record_commit(row.scn, row.xid);
            }
            return Ok(());
        }
        if row.scn > self.seen_scn {
            // Rows come in SCN order: every SCN below this one is fully read.
            self.complete_scn = self.complete_scn.max(row.scn - 1);
            self.seen_scn = row.scn;
        }
        if let Some(ts) = row.timestamp {
            self.redo_now = Some(self.redo_now.map_or(ts, |n| n.max(ts)));
        }
        match row.operation_code {
            OperationCode::MissingScn => Err(TxnError::MissingScn {
                scn: row.scn,
                thread: row.thread,
                sequence: row.sequence,
            }),
            OperationCode::Start => {
                if !self.abandoned.contains(&row.xid) {
                    let t = self
                        .open
                        .entry(row.xid.clone())
                        .or_insert_with(|| Txn::new(&row.xid, row.scn, row.timestamp));
                    t.whole |= t.keys.is_empty();
                }
                Ok(())
            }
            OperationCode::Commit => self.commit(row, sink),
            OperationCode::Rollback => {
                let xid = self.undo_owner(&row);
                self.abandoned.remove(&xid);
                if let Some(t) = self.open.remove(&xid) {
                    self.mem_bytes = self.mem_bytes.saturating_sub(t.mem_bytes);
                    self.counts.rollbacks += 1;
                }
                Ok(())
            }
            OperationCode::ReplicationMarker => {
                // GoldenGate marker transactions (START, marker) never show
                // a COMMIT: left open they would pin the restart SCN. One
                // that holds changes is left to its own COMMIT or ROLLBACK.
                self.stats.ignored_rows += 1;
                if self.open.get(&row.xid).is_some_and(|t| t.keys.is_empty()) {
                    self.open.remove(&row.xid);
                }
                Ok(())
            }
            OperationCode::Internal | OperationCode::SelectForUpdate => {
                self.stats.ignored_rows += 1;
                Ok(())
            }
            op if op.is_dml() && row.rollback => {
                self.partial_rollback(&row);
                Ok(())
            }
            op => {
                if is_lob_like(op) {
                    self.stats.lob_rows += 1;
                }
                self.buffer(row)
            }
        }
    }

    fn buffer(&mut self, row: LogMinerRow) -> Result<(), TxnError> {
        if self.abandoned.contains(&row.xid) {
            return Ok(());
        }
        let key = if row.operation_code.is_dml() {
            rowkey::key(row.row_id.as_deref())
        } else if lob::is_piece_code(row.operation_code.code()) {
            rowkey::PIECE
        } else {
            rowkey::NONE
        };
        let op = row.operation_code;
        // Looked up before inserting so the hot path does not copy the XID.
        if !self.open.contains_key(&row.xid) {
            let txn = Txn::new(&row.xid, row.scn, row.timestamp);
            self.open.insert(row.xid.clone(), txn);
        }
        let Some(txn) = self.open.get_mut(&row.xid) else {
            return Ok(());
        };
        let was_spilled = txn.spill.is_some();
        let mem_before = txn.mem_bytes;
        let written = match txn.push(row, key) {
            Ok(w) => w,
            Err(source) => {
                return Err(TxnError::Spill {
                    xid: txn.xid.clone(),
                    source,
                })
            }
        };
        if op.is_dml() {
            txn.changes += 1;
        } else if op == OperationCode::Ddl {
            txn.ddl += 1;
        }
        self.stats.spilled_bytes += written;
        self.mem_bytes = self.mem_bytes + txn.mem_bytes - mem_before;
        let over = !was_spilled
            && self
                .config
                .spill_txn_bytes
                .is_some_and(|l| txn.mem_bytes > l);
        if over {
            let xid = txn.xid.clone();
            self.spill(&xid)?;
        }
        while self
            .config
            .spill_total_bytes
            .is_some_and(|l| self.mem_bytes > l)
        {
            let largest = self
                .open
                .values()
                .filter(|t| t.mem_bytes > 0)
                .max_by_key(|t| t.mem_bytes)
                .map(|t| t.xid.clone());
            match largest {
                Some(x) => self.spill(&x)?,
                None => break,
            }
        }
        Ok(())
    }

    fn spill(&mut self, xid: &str) -> Result<(), TxnError> {
        let Some(txn) = self.open.get_mut(xid) else {
            return Ok(());
        };
        let first = txn.spill.is_none();
        let freed = txn.mem_bytes;
        let written = txn
            .spill_out(self.config.spill_dir.as_deref())
            .map_err(|source| TxnError::Spill {
                xid: xid.to_string(),
                source,
            })?;
        self.mem_bytes = self.mem_bytes.saturating_sub(freed);
        self.stats.spilled_bytes += written;
        if first {
            self.stats.spilled_transactions += 1;
        }
        Ok(())
    }

    /// The open transaction an undo row (ROLLBACK = 1, or ROLLBACK 36)
    /// belongs to. When the transaction started before the LogMiner
    /// session did, LogMiner shows only its undo segment and slot and
    /// FFFFFFFF for the sequence; an undo slot holds one active transaction
    /// at a time, so a single open transaction on that slot is the owner.
    /// Several candidates (a stale one never closed) are reported, not guessed.
    fn undo_owner(&mut self, row: &LogMinerRow) -> String {
        let Some(usn_slot) = unresolved_undo_xid(&row.xid) else {
            return row.xid.clone();
        };
        if self.open.contains_key(&row.xid) {
            return row.xid.clone();
        }
        let mut candidates: Vec<&String> = self
            .open
            .keys()
            .filter(|x| x.get(..8).is_some_and(|p| p.eq_ignore_ascii_case(usn_slot)))
            .collect();
        match candidates.len() {
            0 => row.xid.clone(),
            1 => candidates[0].clone(),
            _ => {
                candidates.sort();
                self.warnings.push(TxnWarning::AmbiguousUndoXid {
                    xid: row.xid.clone(),
                    scn: row.scn,
                    candidates: candidates.into_iter().cloned().collect(),
                });
                row.xid.clone()
            }
        }
    }

    fn partial_rollback(&mut self, row: &LogMinerRow) {
        let key = rowkey::key(row.row_id.as_deref());
        let xid = self.undo_owner(row);
        let undone = match self.open.get_mut(&xid) {
            Some(txn) => {
                let mem_before = txn.mem_bytes;
                let undone = txn.undo_latest(key, row.row_id.as_deref());
                self.mem_bytes = self.mem_bytes + txn.mem_bytes - mem_before;
                undone
            }
            None => false,
        };
        if undone {
            self.counts.partial_rollbacks += 1;
        } else if !self.abandoned.contains(&xid) {
            self.warnings.push(TxnWarning::UnmatchedPartialRollback {
                xid,
                scn: row.scn,
                row_id: row.row_id.clone(),
            });
        }
    }

    fn commit(&mut self, row: LogMinerRow, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        if self.abandoned.remove(&row.xid) {
            self.warnings.push(TxnWarning::LateCommitIgnored {
                xid: row.xid,
                scn: row.scn,
            });
            return Ok(());
        }
        if self.auto_committed.remove(&row.xid) {
            return Ok(());
        }
        if row.scn < self.last_commit_seen {
            return Err(TxnError::CommitOutOfOrder {
                xid: row.xid,
                scn: row.scn,
                last: self.last_commit_seen,
            });
        }
        self.last_commit_seen = row.scn;
        let txn = self.open.remove(&row.xid);
        if let Some(t) = &txn {
            self.mem_bytes = self.mem_bytes.saturating_sub(t.mem_bytes);
        }
        let done = self
            .filter
            .as_ref()
            .is_some_and(|f| f.transaction_done(row.scn, &row.xid));
        if done {
            if let Some(t) = &txn {
                self.stats.skipped_as_emitted += t.changes + t.ddl;
            }
            return Ok(());
        }
        if let Some(txn) = txn {
            self.emit(txn, row.scn, ts_ms(row.timestamp), sink)?;
        }
        self.counts.commits += 1;
        self.record_commit(row.scn, row.xid);
        Ok(())
    }

    fn record_commit(&mut self, scn: Scn, xid: String) {
        if scn > self.commit_scn {
            self.commit_scn = scn;
            self.committed_at_commit_scn.clear();
        }
        if scn == self.commit_scn && !self.committed_at_commit_scn.contains(&xid) {
            self.committed_at_commit_scn.push(xid);
        }
    }

    /// Streams one committed transaction's events to the sink. A change is
    /// held back until the next row that is not one of its pieces, so LOB,
    /// XML and extended-string values reach its after image first.
    fn emit(
        &mut self,
        txn: Txn,
        commit_scn: Scn,
        commit_ts_ms: i64,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let xid = txn.xid.clone();
        self.emitting = Some(Emitting {
            xid: xid.clone(),
            start_scn: txn.start_scn,
            last_index: None,
        });
        let spill_err = |source| TxnError::Spill {
            xid: xid.clone(),
            source,
        };
        let mut ctx = EmitCtx {
            xid: xid.clone(),
            commit_scn,
            commit_ts_ms,
            partial: !txn.whole,
            index: 0,
            table_orders: TableOrders::default(),
            pending: None,
            assembly: Assembly::default(),
        };
        let mut rows = txn.into_rows().map_err(spill_err)?;
        let mut findings = Vec::new();
        while let Some(row) = rows.next_live().map_err(spill_err)? {
            findings.clear();
            match row.operation_code {
                op if op.is_dml() => {
                    self.end_pieces(&mut ctx, sink)?;
                    let e = self.change_event(
                        row,
                        commit_scn,
                        commit_ts_ms,
                        &mut ctx.table_orders,
                        &mut findings,
                    )?;
                    match e {
                        Some(event) => {
                            ctx.pending = Some(Pending {
                                event,
                                findings: std::mem::take(&mut findings),
                            })
                        }
                        None => self.add_findings(findings.drain(..)),
                    }
                }
                OperationCode::Ddl => {
                    self.end_pieces(&mut ctx, sink)?;
                    let ddl = CapturedEvent::Ddl(self.ddl_event(row, commit_scn, commit_ts_ms));
                    self.deliver(ddl, Vec::new(), &mut ctx, sink)?;
                }
                OperationCode::Unsupported => {
                    let f = unsupported_finding(&row);
                    self.add_findings(std::iter::once(f));
                }
                op if lob::is_piece_code(op.code()) => self.piece(row, &mut ctx, sink)?,
                _ => {}
            }
        }
        if let Some((message, row)) = ctx.assembly.unfinished() {
            let raw = row.sql_redo.clone().unwrap_or_default();
            self.reject(&row, commit_scn, message, 0, raw)?;
        }
        self.end_pieces(&mut ctx, sink)?;
        self.emitting = None;
        Ok(())
    }

    /// Places the open LOB's value and hands the pending change on.
    fn end_pieces(&mut self, ctx: &mut EmitCtx, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        let capture = self.config.lob == LobMode::Capture;
        if let Some(p) = ctx.assembly.close_lob(capture) {
            self.place(p, ctx, sink)?;
        }
        match ctx.pending.take() {
            Some(p) => self.deliver(CapturedEvent::Change(p.event), p.findings, ctx, sink),
            None => Ok(()),
        }
    }

    /// One LOB, XML or extended-string row: parsed (an error or a dead
    /// letter when malformed or out of place) and taken into the value it
    /// belongs to.
    fn piece(
        &mut self,
        row: LogMinerRow,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let sql = row.sql_redo.as_deref().unwrap_or("");
        let piece = match lob::parse_piece(row.operation_code.code(), sql) {
            Ok(p) => p,
            Err(e) => return self.reject(&row, ctx.commit_scn, e.message, e.position, e.raw),
        };
        let pending = ctx.pending.as_ref().map(|p| &p.event);
        let placements = match ctx.assembly.take(piece, self.config.lob, pending, &row) {
            Ok(p) => p,
            Err(message) => {
                let raw = sql.to_string();
                return self.reject(&row, ctx.commit_scn, message, 0, raw);
            }
        };
        for p in placements {
            self.place(p, ctx, sink)?;
        }
        Ok(())
    }

    /// Puts a reassembled value where it belongs: the pending change of the
    /// same row, else an UPDATE event of its own. A placeholder marks the
    /// column unavailable and reports it.
    fn place(
        &mut self,
        placement: Placement,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let Placement(target, field, row) = placement;
        let same = ctx
            .pending
            .as_ref()
            .is_some_and(|p| pieces::same_row(&p.event, &target));
        let Some(field) = field else {
            let given = self.reported_once.contains(
                ReportedOnce::LOB_UNAVAILABLE,
                &target.schema,
                &target.table,
                &target.column,
            );
            let finding = (!given).then(|| pieces::unavailable(&row, &target));
            match ctx.pending.as_mut().filter(|_| same) {
                Some(p) => {
                    let current = p.event.after.as_ref().and_then(|a| a.get(&target.column));
                    let carried = matches!(
                        current,
                        Some(FieldRef::Text(_) | FieldRef::Binary(_) | FieldRef::Null)
                    );
                    if !carried {
                        // A BLOB's placeholder stays binary (`EMPTY_BLOB()`).
                        let marker = match current {
                            Some(FieldRef::UnavailableBinary) => Field::UnavailableBinary,
                            _ => Field::Unavailable,
                        };
                        pieces::set_after(&mut p.event, &target.column, marker);
                    }
                    p.findings.extend(finding);
                }
                None => self.add_findings(finding.into_iter()),
            }
            return Ok(());
        };
        if same {
            if let Some(p) = ctx.pending.as_mut() {
                pieces::set_after(&mut p.event, &target.column, field);
            }
            return Ok(());
        }
        // The pending change is handed on: a LOB still open belongs to it.
        let capture = self.config.lob == LobMode::Capture;
        if let Some(open) = ctx.assembly.close_lob(capture) {
            self.place(open, ctx, sink)?;
        }
        if let Some(p) = ctx.pending.take() {
            self.deliver(CapturedEvent::Change(p.event), p.findings, ctx, sink)?;
        }
        let mut event =
            pieces::standalone_update(&target, field, self.position(&row, ctx.commit_scn));
        event.commit_ts_ms = ctx.commit_ts_ms;
        event.table_order = ctx.table_orders.next(&target.schema, &target.table);
        ctx.pending = Some(Pending {
            event,
            findings: Vec::new(),
        });
        Ok(())
    }

    /// Hands one event to the sink, unless the checkpoint says it was.
    fn deliver(
        &mut self,
        mut event: CapturedEvent,
        findings: Vec<TxnFinding>,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let this = ctx.index;
        ctx.index += 1;
        if self
            .filter
            .as_ref()
            .is_some_and(|f| f.already_emitted(ctx.commit_scn, &ctx.xid, this))
        {
            self.stats.skipped_as_emitted += 1;
            return Ok(());
        }
        self.add_findings(findings.into_iter());
        match &mut event {
            CapturedEvent::Change(c) => {
                c.index = this;
                c.partial = ctx.partial;
                match c.op {
                    Op::Create => self.counts.inserts += 1,
                    Op::Update => self.counts.updates += 1,
                    Op::Delete => self.counts.deletes += 1,
                    Op::Read => {}
                }
            }
            CapturedEvent::Ddl(_) => self.counts.ddl += 1,
        }
        sink(event).map_err(TxnError::Sink)?;
        if let Some(e) = self.emitting.as_mut() {
            e.last_index = Some(this);
        }
        Ok(())
    }

    /// A row that cannot be read: an error, or a dead letter under
    /// [`OnParseError::Warn`].
    fn reject(
        &mut self,
        row: &LogMinerRow,
        commit_scn: Scn,
        message: String,
        position: usize,
        raw: String,
    ) -> Result<(), TxnError> {
        match self.config.on_parse_error {
            OnParseError::Fail => Err(TxnError::Parse {
                scn: row.scn,
                xid: row.xid.clone(),
                message,
                position,
                raw,
            }),
            OnParseError::Warn => {
                self.stats.dead_letters += 1;
                self.dead_letters.push(DeadLetter {
                    scn: row.scn,
                    commit_scn,
                    xid: row.xid.clone(),
                    message,
                    position,
                    raw,
                });
                Ok(())
            }
        }
    }

    fn position(&self, row: &LogMinerRow, commit_scn: Scn) -> SourcePosition {
        SourcePosition {
            name: self.config.server_name.clone(),
            db: row
                .src_con_name
                .clone()
                .unwrap_or_else(|| self.config.db_name.clone()),
            schema: row.seg_owner.clone().unwrap_or_default(),
            table: row.table_name.clone().unwrap_or_default(),
            xid: row.xid.clone(),
            scn: row.scn,
            commit_scn,
            change_ts_ms: ts_ms(row.timestamp),
            rs_id: row.rs_id.clone(),
            ssn: row.ssn,
            thread: row.thread,
            row_id: row.row_id.clone(),
            dialect: self.config.dialect,
        }
    }

    /// [`TxnBuffer::position`] of a row no longer needed.
    fn position_of(&self, row: LogMinerRow, commit_scn: Scn) -> SourcePosition {
        SourcePosition {
            name: self.config.server_name.clone(),
            db: row
                .src_con_name
                .unwrap_or_else(|| self.config.db_name.clone()),
            schema: row.seg_owner.unwrap_or_default(),
            table: row.table_name.unwrap_or_default(),
            xid: row.xid,
            scn: row.scn,
            commit_scn,
            change_ts_ms: ts_ms(row.timestamp),
            rs_id: row.rs_id,
            ssn: row.ssn,
            thread: row.thread,
            row_id: row.row_id,
            dialect: self.config.dialect,
        }
    }

    fn change_event(
        &mut self,
        mut row: LogMinerRow,
        commit_scn: Scn,
        commit_ts_ms: i64,
        table_orders: &mut TableOrders,
        findings: &mut Vec<TxnFinding>,
    ) -> Result<Option<ChangeEvent>, TxnError> {
        // The statement's text becomes its images' text: taken, not copied.
        let sql = row.sql_redo.take().unwrap_or_default();
        let tie = |finding| TxnFinding {
            xid: row.xid.clone(),
            scn: row.scn,
            finding,
        };
        if let Some(f) = decode::status_finding(row.status, row.info.as_deref()) {
            findings.push(tie(f));
            return Ok(None);
        }
        let mut decoded = match decode::decode(
            sql,
            self.config.relaxed_quotes,
            self.config.charsets.as_deref(),
            &self.reported_once,
        ) {
            Ok(d) => d,
            Err(e) => {
                self.reject(&row, commit_scn, e.message, e.position, e.raw)?;
                return Ok(None);
            }
        };
        // EMPTY_CLOB()/EMPTY_BLOB(): an empty value whose content, if any,
        // follows in LOB rows.
        for (column, binary) in &decoded.empty_lobs {
            match self.config.lob {
                LobMode::Capture => {
                    if let Some(after) = decoded.after.as_mut() {
                        let empty = if *binary {
                            Field::Binary(String::new())
                        } else {
                            Field::Text(String::new())
                        };
                        after.update(|c, _| (c == column).then(|| empty.clone()));
                    }
                }
                LobMode::Placeholder => {
                    let given = self.reported_once.contains(
                        ReportedOnce::LOB_UNAVAILABLE,
                        &decoded.schema,
                        &decoded.table,
                        column,
                    );
                    if !given {
                        findings.push(tie(Finding::LobUnavailable {
                            schema: decoded.schema.clone(),
                            table: decoded.table.clone(),
                            column: column.clone(),
                        }));
                    }
                }
            }
        }
        findings.extend(decoded.findings.into_iter().map(tie));
        let op = match decoded.kind {
            DmlKind::Insert => Op::Create,
            DmlKind::Update => Op::Update,
            DmlKind::Delete => Op::Delete,
        };
        // The row is spent here: its strings move into the event rather
        // than being copied, and the statement's names replace the row's
        // without copying those first.
        if !decoded.schema.is_empty() {
            row.seg_owner = Some(decoded.schema);
        }
        if !decoded.table.is_empty() {
            row.table_name = Some(decoded.table);
        }
        if row.row_id.is_none() {
            row.row_id = decoded.row_id;
        }
        let source = self.position_of(row, commit_scn);
        let table_order = table_orders.next(&source.schema, &source.table);
        Ok(Some(ChangeEvent {
            op,
            before: decoded.before,
            after: decoded.after,
            table_order,
            source,
            snapshot: false,
            partial: false,
            commit_ts_ms,
            index: 0,
        }))
    }

    fn ddl_event(&self, row: LogMinerRow, commit_scn: Scn, commit_ts_ms: i64) -> DdlEvent {
        let source = self.position(&row, commit_scn);
        DdlEvent {
            source,
            ddl: row.sql_redo.unwrap_or_default(),
            commit_ts_ms,
        }
    }

    fn add_findings(&mut self, findings: impl Iterator<Item = TxnFinding>) {
        for f in findings {
            // Once per column: a RAW column or a LOB column would otherwise
            // repeat the finding on every change.
            if let Some((kind, schema, table, column)) = ReportedOnce::key(&f.finding) {
                if !self.reported_once.insert(kind, schema, table, column) {
                    continue;
                }
            }
            self.stats.findings += 1;
            self.findings.push(f);
        }
    }

    /// Ends a mining window: every row at or below `upper_scn` has been read.
    /// A continuation chain left open is a truncated statement (an error);
    /// DDL transactions still waiting for their COMMIT auto-commit at the
    /// DDL's SCN, as Oracle's DDL does.
    pub fn finish_window(&mut self, upper_scn: Scn, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        self.csf.finish()?;
        self.complete_scn = self.complete_scn.max(upper_scn);
        self.seen_scn = self.seen_scn.max(upper_scn);
        let mut ddl_only: Vec<(Scn, String)> = self
            .open
            .values()
            .filter(|t| t.ddl > 0 && t.changes == 0)
            .map(|t| (t.start_scn, t.xid.clone()))
            .collect();
        ddl_only.sort();
        for (_, xid) in ddl_only {
            let Some(txn) = self.open.remove(&xid) else {
                continue;
            };
            self.mem_bytes = self.mem_bytes.saturating_sub(txn.mem_bytes);
            // The DDL's own SCN is its commit point; it cannot sort before a
            // commit already emitted, so the later of the two is used.
            let scn = self.last_ddl_scn(&txn).max(self.commit_scn);
            let ts = txn.start_time;
            if self
                .filter
                .as_ref()
                .is_some_and(|f| f.transaction_done(scn, &xid))
            {
                continue;
            }
            self.emit(txn, scn, ts_ms(ts), sink)?;
            self.counts.commits += 1;
            self.record_commit(scn, xid.clone());
            self.auto_committed.insert(xid);
        }
        Ok(())
    }

    fn last_ddl_scn(&self, txn: &Txn) -> Scn {
        txn.mem
            .iter()
            .filter(|r| r.operation_code == OperationCode::Ddl)
            .map(|r| r.scn)
            .max()
            .unwrap_or(txn.start_scn)
    }

    /// Abandons transactions open longer than `abandon_after` (redo time);
    /// returns a warning per abandoned XID. Does nothing without a retention.
    pub fn abandon_expired(&mut self) -> Vec<TxnWarning> {
        let (Some(limit), Some(now)) = (self.config.abandon_after, self.redo_now) else {
            return Vec::new();
        };
        // Ages only change when redo time moves: polling per row stays cheap.
        if self.abandon_checked_at == Some(now) {
            return Vec::new();
        }
        self.abandon_checked_at = Some(now);
        let expired: Vec<String> = self
            .open
            .values()
            .filter(|t| t.start_time.is_some_and(|s| age(now, s) > limit))
            .map(|t| t.xid.clone())
            .collect();
        let mut out = Vec::new();
        for xid in expired {
            if let Some(t) = self.open.remove(&xid) {
                self.mem_bytes = self.mem_bytes.saturating_sub(t.mem_bytes);
                self.stats.abandoned += 1;
                let w = TxnWarning::Abandoned {
                    xid: xid.clone(),
                    start_scn: t.start_scn,
                    age: t.start_time.map_or(Duration::ZERO, |s| age(now, s)),
                    events: t.changes,
                    bytes: t.bytes,
                };
                self.abandoned.insert(xid);
                self.warnings.push(w.clone());
                out.push(w);
            }
        }
        out
    }

    /// Drops buffered transactions the database no longer lists open
    /// (`still_open`, read when every transaction started at or below
    /// `listed_from` was either listed or over) once the rows up to the
    /// listing were read: such a transaction ended without a COMMIT row in
    /// that redo, so it rolled back. DM8 writes no end row for a rollback
    /// (dm8-contract), so only this ends it and frees the restart SCN it
    /// pins. Returns how many were dropped.
    pub fn drop_ended(&mut self, still_open: &HashSet<String>, listed_from: Scn) -> usize {
        let ended: Vec<String> = self
            .open
            .values()
            .filter(|t| t.start_scn <= listed_from && !still_open.contains(&t.xid))
            .map(|t| t.xid.clone())
            .collect();
        for xid in &ended {
            if let Some(t) = self.open.remove(xid) {
                self.mem_bytes = self.mem_bytes.saturating_sub(t.mem_bytes);
                self.counts.rollbacks += 1;
            }
        }
        ended.len()
    }

    /// Open transactions older than `older_than` in redo time, oldest first.
    pub fn long_running(&self, older_than: Duration) -> Vec<LongRunning> {
        let Some(now) = self.redo_now else {
            return Vec::new();
        };
        let mut v: Vec<LongRunning> = self
            .open
            .values()
            .filter_map(|t| {
                let a = age(now, t.start_time?);
                (a > older_than).then(|| LongRunning {
                    summary: t.summary(),
                    age: a,
                })
            })
            .collect();
        v.sort_by(|a, b| b.age.cmp(&a.age).then(a.summary.xid.cmp(&b.summary.xid)));
        v
    }

    /// Where a restart must begin mining (rows with SCN above it).
    pub fn restart_scn(&self) -> Scn {
        let oldest = self
            .open
            .values()
            .map(|t| t.start_scn)
            .chain(self.emitting.as_ref().map(|e| e.start_scn))
            .min();
        match oldest {
            Some(s) => s.saturating_sub(1).min(self.complete_scn),
            None => self.complete_scn,
        }
    }

    /// The highest commit SCN whose transaction was fully emitted.
    pub fn commit_scn(&self) -> Scn {
        self.commit_scn
    }

    /// Open transactions, oldest first.
    pub fn open_transactions(&self) -> Vec<OpenTxnSummary> {
        let mut v: Vec<_> = self.open.values().map(Txn::summary).collect();
        v.sort_by(|a, b| a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid)));
        v
    }

    /// Copies the buffer's part of the engine status: positions, open
    /// transactions (oldest and largest), counts and findings.
    pub fn fill_status(&self, status: &mut CaptureStatus) {
        status.restart_scn = self.restart_scn();
        status.commit_scn = self.commit_scn;
        status.open_transactions = self.open.len();
        status.oldest_open = self
            .open
            .values()
            .min_by(|a, b| a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid)))
            .map(Txn::summary);
        status.largest_open = self
            .open
            .values()
            .max_by(|a, b| a.bytes.cmp(&b.bytes).then(b.xid.cmp(&a.xid)))
            .map(Txn::summary);
        status.counts = self.counts;
        status.findings = self.stats.findings;
    }

    /// The latest redo time read (the clock of ages and abandonment).
    pub fn redo_time(&self) -> Option<NaiveDateTime> {
        self.redo_now
    }

    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// Bytes of buffered rows held in memory (spilled rows excluded).
    pub fn memory_bytes(&self) -> u64 {
        self.mem_bytes
    }

    pub fn counts(&self) -> OpCounts {
        self.counts
    }

    pub fn stats(&self) -> BufferStats {
        self.stats
    }

    pub fn take_findings(&mut self) -> Vec<TxnFinding> {
        std::mem::take(&mut self.findings)
    }

    pub fn take_dead_letters(&mut self) -> Vec<DeadLetter> {
        std::mem::take(&mut self.dead_letters)
    }

    pub fn take_warnings(&mut self) -> Vec<TxnWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// The position to store: restart SCN, commit SCN with the XIDs
    /// committed at it, and how far a transaction cut short by a sink
    /// failure got.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint::new(
            self.restart_scn(),
            self.commit_scn,
            self.committed_at_commit_scn.clone(),
            self.emitting
                .as_ref()
                .and_then(|e| e.last_index.map(|i| (e.xid.clone(), i))),
        )
    }
}

/// USN and SLOT (the first 8 hex digits of the RAW(8) XID) when the
/// sequence part (the last 8) is FFFFFFFF: LogMiner's XID for undo rows of
/// a transaction that started before the session.
fn unresolved_undo_xid(xid: &str) -> Option<&str> {
    let xid = xid.trim();
    (xid.len() == 16 && xid.is_ascii() && xid[8..].eq_ignore_ascii_case("FFFFFFFF"))
        .then(|| &xid[..8])
}

fn unsupported_finding(row: &LogMinerRow) -> TxnFinding {
    let info = match row.info.as_deref().filter(|s| !s.is_empty()) {
        Some(i) => i.to_string(),
        None => format!(
            "operation UNSUPPORTED (code 255) on {}.{}; the change is not captured",
            row.seg_owner.as_deref().unwrap_or("?"),
            row.table_name.as_deref().unwrap_or("?")
        ),
    };
    TxnFinding {
        xid: row.xid.clone(),
        scn: row.scn,
        finding: Finding::Unreconstructable { info },
    }
}

fn age(now: NaiveDateTime, start: NaiveDateTime) -> Duration {
    (now - start).to_std().unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests;
