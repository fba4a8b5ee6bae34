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
//! - A transaction [`TxnBuffer::drop_ended`] took as rolled back (the
//!   database stopped listing it open) that writes or commits again is a
//!   finding; its later events come out marked partial.
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
//!   UNSUPPORTED (255), and any code cdcctl does not know (`Other` that is
//!   no LOB/XML piece), becomes a finding at commit. LOB rows
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

mod commit;
mod config;
mod decode;
mod images;
mod open;
mod pieces;
mod report;
mod reported;
mod rowkey;
mod spill;
mod truncate;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chrono::NaiveDateTime;

use super::checkpoint::{Checkpoint, ReplayFilter};
use super::emit::Sink;
use super::metrics::{CaptureStatus, OpCounts, OpenTxnSummary};
use super::port::{Dialect, OpenTransaction};
use super::redo::csf::CsfAssembler;
use super::redo::lob;
use super::row::{LogMinerRow, OperationCode, Scn};
pub use config::{BufferConfig, OnParseError};
use open::Txn;
pub use pieces::LobMode;
pub use report::{BufferStats, DeadLetter, LongRunning, TxnError, TxnFinding, TxnWarning};
use reported::ReportedOnce;

fn is_lob_like(op: OperationCode) -> bool {
    op.is_lob_piece() || matches!(op, OperationCode::Other(_))
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
    /// Transactions dropped because the database stopped listing them
    /// open ([`TxnBuffer::drop_ended`]): a later row of one is a finding.
    ended_by_listing: RecentXids,
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
            ended_by_listing: RecentXids::default(),
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
    pub fn starting_after(config: BufferConfig, scn: Scn, in_flight: &[OpenTransaction]) -> Self {
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
                    t.learn_username(&row);
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
            op if op.is_dml() && row.rollback && self.config.dialect == Dialect::Dm => {
                // DM8's ROLL_BACK = 1 marks the rolled-back change itself
                // (Dameng's Logmnr interface documentation: "whether this
                // record was rolled back", filled with COMMIT_SCN once the
                // transaction's end is found); DM8 writes no undo row, so
                // the row is dropped and takes nothing else back.
                self.counts.partial_rollbacks += 1;
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
            // Without a START row of its own the new transaction is partial.
            self.reappeared(&row.xid, row.scn);
            let txn = Txn::new(&row.xid, row.scn, row.timestamp);
            self.open.insert(row.xid.clone(), txn);
        }
        let Some(txn) = self.open.get_mut(&row.xid) else {
            return Ok(());
        };
        txn.learn_username(&row);
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
            self.ended_by_listing.insert(xid.clone());
        }
        ended.len()
    }

    /// Reports a row of a transaction [`Self::drop_ended`] took as rolled
    /// back: the list was wrong (the transaction was still open), and what
    /// was dropped cannot be had back.
    pub(super) fn reappeared(&mut self, xid: &str, scn: Scn) {
        if self.ended_by_listing.remove(xid) {
            self.stats.findings += 1;
            self.findings.push(TxnFinding {
                xid: xid.to_string(),
                scn,
                finding: super::finding::Finding::ReappearedTransaction {
                    xid: xid.to_string(),
                },
            });
        }
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
        status.mining.abandoned_transactions = self.stats.abandoned;
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

/// The last XIDs a buffer dropped as ended, bounded: DM8's XIDs only grow,
/// so a transaction that reappears does so soon, and the set must not grow
/// with every rollback of a long run.
#[derive(Default)]
struct RecentXids {
    set: FastSet<String>,
    order: std::collections::VecDeque<String>,
}

impl RecentXids {
    const LIMIT: usize = 65_536;

    fn insert(&mut self, xid: String) {
        if self.set.insert(xid.clone()) {
            self.order.push_back(xid);
        }
        while self.order.len() > Self::LIMIT {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
    }

    fn remove(&mut self, xid: &str) -> bool {
        // The order queue keeps the XID until it ages out; a stale entry
        // there only evicts nothing.
        self.set.remove(xid)
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

fn age(now: NaiveDateTime, start: NaiveDateTime) -> Duration {
    (now - start).to_std().unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests;
