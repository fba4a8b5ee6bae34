//! Redo generation and the log writer (LGWR): redo records with their SCN,
//! RS_ID and thread, the online redo log groups of each thread, and the log
//! switch that hands a full log to the archiver.

use std::collections::VecDeque;
use std::ops::RangeFrom;
use std::sync::Arc;

use chrono::NaiveDateTime;

use crate::engine::row::Scn;
use crate::source::sim::scenario::{LogMode, Scenario};
use crate::source::sim::value::Value;

use super::archive::ClosedLog;
use super::Model;

/// `NEXT_CHANGE#` Oracle shows for the CURRENT log.
pub const MAX_NEXT_CHANGE: Scn = 281_474_976_710_655;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmlOp {
    Insert,
    Update,
    Delete,
}

impl DmlOp {
    /// The `OPERATION_CODE` LogMiner shows for it.
    pub fn operation_code(self) -> crate::engine::row::OperationCode {
        use crate::engine::row::OperationCode;
        match self {
            DmlOp::Insert => OperationCode::Insert,
            DmlOp::Update => OperationCode::Update,
            DmlOp::Delete => OperationCode::Delete,
        }
    }
}

/// What a redo record holds.
#[derive(Debug, Clone)]
pub enum Body {
    Start,
    Commit {
        start_scn: Scn,
    },
    Rollback {
        start_scn: Scn,
    },
    Dml {
        table: usize,
        obj: u64,
        objd: u64,
        op: DmlOp,
        rollback: bool,
        rowid: Arc<str>,
        before: Option<Arc<Vec<Value>>>,
        after: Option<Arc<Vec<Value>>>,
        changed: Vec<usize>,
    },
    LobLocator {
        table: usize,
        obj: u64,
        objd: u64,
        column: usize,
        rowid: Arc<str>,
        row: Arc<Vec<Value>>,
    },
    LobWrite {
        table: usize,
        obj: u64,
        objd: u64,
        column: usize,
        rowid: Arc<str>,
        /// Text (CLOB) or hex (BLOB) of this piece.
        data: String,
        offset: u64,
    },
    /// A row carrying part of a value LogMiner does not print in DML text
    /// (LOB_TRIM, XML DOC BEGIN/WRITE/END, 32K BEGIN/WRITE/END), its
    /// SQL_REDO already rendered.
    Piece {
        table: usize,
        obj: u64,
        objd: u64,
        rowid: Arc<str>,
        code: u16,
        sql: Option<String>,
    },
    Ddl {
        table: usize,
        sql: String,
    },
    /// A GoldenGate replication marker (OPERATION_CODE 27): with
    /// `enable_goldengate_replication`, Oracle writes transactions holding
    /// only a START and a marker, whose COMMIT LogMiner never shows.
    ReplicationMarker,
}

/// Who wrote a record: its transaction, user and container, the same for
/// every record of a transaction and so shared by them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnTag {
    pub xid: Arc<str>,
    pub username: Arc<str>,
    pub pdb: Option<Arc<str>>,
}

impl TxnTag {
    pub fn new(xid: Arc<str>, username: Arc<str>, pdb: Option<Arc<str>>) -> Arc<TxnTag> {
        Arc::new(TxnTag { xid, username, pdb })
    }
}

/// One redo record (one row of V$LOGMNR_CONTENTS before CSF splitting).
///
/// The simulator holds every record of every log still on disk (see
/// `Model::bound_memory`), a million and more at a soak's rate, so a record
/// keeps only what cannot be derived: its RS_ID is printed from the log
/// sequence and redo block when shown, and the transaction's identity is
/// one shared [`TxnTag`].
#[derive(Debug, Clone)]
pub struct Rec {
    pub scn: Scn,
    pub seq: u64,
    pub txn: Arc<TxnTag>,
    pub time: NaiveDateTime,
    /// Redo block of the record in its log (RS_ID's second part).
    pub block: u32,
    pub thread: u16,
    pub body: Body,
}

impl Rec {
    /// `RS_ID` as LogMiner prints it.
    pub fn rs_id(&self) -> String {
        rs_id_at(self.seq, u64::from(self.block))
    }

    pub fn xid(&self) -> &Arc<str> {
        &self.txn.xid
    }

    pub fn username(&self) -> &Arc<str> {
        &self.txn.username
    }

    pub fn pdb(&self) -> &Option<Arc<str>> {
        &self.txn.pdb
    }
}

/// Where [`Model::emit`] put a record: most callers need only its SCN, so
/// its RS_ID is printed only when asked for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Emitted {
    pub scn: Scn,
    seq: u64,
    block: u32,
}

impl Emitted {
    pub fn rs_id(&self) -> Arc<str> {
        Arc::from(rs_id_at(self.seq, u64::from(self.block)))
    }
}

/// Records a chunk of [`Records`] holds.
const CHUNK: usize = 4096;

/// The redo records held, oldest first and in SCN order, in chunks of
/// [`CHUNK`]. A single deque of a million records grows by doubling: after
/// each growth it holds room for twice what it needs, and it copies every
/// record to get there while a reader waits on the simulator's lock.
/// Chunks grow one at a time and are freed as their records go.
#[derive(Debug, Default)]
pub struct Records {
    chunks: VecDeque<VecDeque<Rec>>,
    len: usize,
}

impl Records {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn front(&self) -> Option<&Rec> {
        self.chunks.front()?.front()
    }

    pub fn push_back(&mut self, rec: Rec) {
        match self.chunks.back_mut() {
            Some(last) if last.len() < CHUNK => last.push_back(rec),
            _ => {
                let mut chunk = VecDeque::with_capacity(CHUNK);
                chunk.push_back(rec);
                self.chunks.push_back(chunk);
            }
        }
        self.len += 1;
    }

    pub fn pop_front(&mut self) -> Option<Rec> {
        let first = self.chunks.front_mut()?;
        let rec = first.pop_front();
        if first.is_empty() {
            self.chunks.pop_front();
        }
        if rec.is_some() {
            self.len -= 1;
        }
        rec
    }

    /// Index of the first record of chunk `c`: only the first chunk is
    /// short at its front and only the last at its back, so every chunk
    /// between holds exactly [`CHUNK`].
    fn chunk_start(&self, c: usize) -> usize {
        match c {
            0 => 0,
            _ => self.chunks.front().map_or(0, VecDeque::len) + (c - 1) * CHUNK,
        }
    }

    /// Chunk and position in it of record `i` (past the end: one past the
    /// last chunk).
    fn locate(&self, i: usize) -> (usize, usize) {
        if i >= self.len {
            return (self.chunks.len(), 0);
        }
        let first = self.chunks.front().map_or(0, VecDeque::len);
        if i < first {
            (0, i)
        } else {
            let j = i - first;
            (1 + j / CHUNK, j % CHUNK)
        }
    }

    /// Like `slice::partition_point`: the records are in SCN order, so a
    /// predicate on the SCN is true for a prefix of them.
    pub fn partition_point(&self, pred: impl Fn(&Rec) -> bool) -> usize {
        let c = self
            .chunks
            .partition_point(|ch| ch.back().is_some_and(&pred));
        match self.chunks.get(c) {
            Some(ch) => self.chunk_start(c) + ch.partition_point(&pred),
            None => self.len,
        }
    }

    /// The records from index `from.start` on.
    pub fn range(&self, from: RangeFrom<usize>) -> impl Iterator<Item = &Rec> {
        let (c, k) = self.locate(from.start);
        self.chunks
            .range(c.min(self.chunks.len())..)
            .enumerate()
            .flat_map(move |(n, ch)| ch.range(if n == 0 { k } else { 0 }..))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Rec> {
        self.chunks.iter().flatten()
    }

    /// Records there is room for without allocating.
    pub fn capacity(&self) -> usize {
        self.chunks.iter().map(VecDeque::capacity).sum()
    }
}

#[derive(Debug, Clone)]
pub struct Group {
    pub number: u32,
    pub seq: Option<u64>,
    pub first_change: Scn,
    pub next_change: Scn,
    pub first_time: Option<NaiveDateTime>,
    pub status: &'static str,
    pub archived: bool,
    pub members: Vec<String>,
    /// Members `V$LOGFILE` shows as INVALID: they cannot be opened.
    pub invalid_members: Vec<String>,
}

impl Group {
    /// The members a client can read (`V$LOGFILE.STATUS` not INVALID).
    pub fn readable_members(&self) -> Vec<String> {
        self.members
            .iter()
            .filter(|m| !self.invalid_members.contains(m))
            .cloned()
            .collect()
    }
}

#[derive(Debug, Clone)]
pub struct ThreadLogs {
    pub thread: u16,
    pub groups: Vec<Group>,
    pub current: usize,
    pub seq: u64,
    pub bytes_used: u64,
    /// `V$THREAD.LAST_REDO_CHANGE#`: the SCN of the last redo LGWR wrote to
    /// the online log. LogMiner reads files, so it sees nothing above it.
    pub last_redo_scn: Scn,
    /// Redo block counter inside the current log (for RS_ID).
    pub block: u64,
    /// SCN of the newest redo generated on this thread, written or not.
    pub generated_scn: Scn,
    /// Bytes of redo in the log buffer that LGWR has not written yet.
    pub buffered_bytes: u64,
    /// Database time (ms) of the oldest redo still in the log buffer.
    pub buffered_since_ms: Option<i64>,
    /// `ENABLE_CHANGE#`; `None` while the thread is not enabled yet.
    pub enable_change: Option<Scn>,
    /// When a thread that starts DISABLED is enabled (ms of database time).
    pub enabled_at_ms: Option<i64>,
    /// `[from, to)` ms of database time with no new transaction here.
    pub quiet_ms: Vec<(i64, i64)>,
}

/// LGWR writes at least every three seconds while redo waits in the buffer.
const LGWR_TIMEOUT_MS: i64 = 3_000;
/// LGWR also writes once this much redo waits, whatever the buffer's size.
const LGWR_WRITE_BYTES: u64 = 1024 * 1024;

impl ThreadLogs {
    /// Enabled and open: new transactions may run here.
    pub fn is_enabled(&self) -> bool {
        self.enable_change.is_some()
    }

    /// No new transaction starts on this instance at `now_ms`.
    pub fn is_quiet(&self, now_ms: i64) -> bool {
        self.quiet_ms
            .iter()
            .any(|&(from, to)| from <= now_ms && now_ms < to)
    }
}

/// `RS_ID` as LogMiner prints it: log sequence, block, offset, with the
/// leading and trailing blank.
pub fn rs_id(seq: u64, block: u64, offset: u64) -> String {
    format!(" 0x{seq:06x}.{block:08x}.{offset:04x} ")
}

/// The RS_ID of the record the log writer puts at `block` of log `seq`:
/// its offset in the block follows from the block number.
fn rs_id_at(seq: u64, block: u64) -> String {
    let offset = block * 512 % 0x10000;
    rs_id(seq, block, 0x10 + offset % 0x1f0)
}

/// The online redo log groups of every thread, sequence `start_sequence`
/// CURRENT in the first group of each.
pub(super) fn build_threads(scenario: &Scenario, start: NaiveDateTime) -> Vec<ThreadLogs> {
    let mut threads = Vec::new();
    let db = scenario.instance.db_name.clone();
    for t in 1..=scenario.instance.threads {
        let schedule = scenario
            .instance
            .thread_schedule
            .iter()
            .find(|s| s.thread == t);
        let enabled_at_ms = schedule.and_then(|s| s.enabled_at_s).map(super::secs_ms);
        let quiet_ms = schedule
            .map(|s| {
                s.quiet
                    .iter()
                    .map(|[from, to]| (super::secs_ms(*from), super::secs_ms(*to)))
                    .collect()
            })
            .unwrap_or_default();
        let mut groups = Vec::new();
        for g in 0..scenario.redo.groups {
            let number = u32::from(t - 1) * scenario.redo.groups + g + 1;
            let members = (0..scenario.redo.members.max(1))
                .map(|m| {
                    let suffix = if m == 0 {
                        String::new()
                    } else {
                        ((b'a' + m as u8) as char).to_string()
                    };
                    if scenario.is_dm() {
                        // What DM8 mines is the archive file still being
                        // written (V$ARCH_FILE.STATUS = 'ACTIVE').
                        format!("/dm8/arch/ARCHIVE_LOCAL1_ACTIVE{number:02}{suffix}.log")
                    } else {
                        format!("/u01/app/oracle/oradata/{db}/redo{number:02}{suffix}.log")
                    }
                })
                .collect();
            groups.push(Group {
                number,
                seq: None,
                first_change: 0,
                next_change: 0,
                first_time: None,
                status: "UNUSED",
                archived: false,
                members,
                invalid_members: Vec::new(),
            });
        }
        let seq = scenario.redo.start_sequence;
        let enabled = enabled_at_ms.is_none();
        if enabled {
            open_first_log(&mut groups, seq, scenario.instance.start_scn, start);
        }
        threads.push(ThreadLogs {
            thread: t,
            groups,
            current: 0,
            seq,
            bytes_used: 0,
            last_redo_scn: if enabled {
                scenario.instance.start_scn
            } else {
                0
            },
            block: 2,
            generated_scn: scenario.instance.start_scn,
            buffered_bytes: 0,
            buffered_since_ms: None,
            enable_change: enabled.then_some(scenario.instance.start_scn),
            enabled_at_ms,
            quiet_ms,
        });
    }
    threads
}

/// The first log of a thread becomes CURRENT at `scn`.
fn open_first_log(groups: &mut [Group], seq: u64, scn: Scn, time: NaiveDateTime) {
    if let Some(g) = groups.first_mut() {
        g.seq = Some(seq);
        g.status = "CURRENT";
        g.first_change = scn;
        g.next_change = MAX_NEXT_CHANGE;
        g.first_time = Some(time);
    }
}

impl Model {
    /// LGWR of one thread writes its log buffer to the online log: the redo
    /// becomes visible to LogMiner and `LAST_REDO_CHANGE#` moves.
    pub(super) fn flush_log_buffer(&mut self, ti: usize) {
        if let Some(lt) = self.threads.get_mut(ti) {
            if lt.buffered_since_ms.is_some() {
                lt.last_redo_scn = lt.generated_scn;
            }
            lt.buffered_bytes = 0;
            lt.buffered_since_ms = None;
        }
    }

    /// What LGWR does by the clock at `now_ms`: write any redo that has
    /// waited three seconds, and enable the threads due (a RAC node joining).
    pub(super) fn log_writers_at(&mut self, now_ms: i64) {
        for ti in 0..self.threads.len() {
            let due = self.threads[ti]
                .buffered_since_ms
                .is_some_and(|since| now_ms - since >= LGWR_TIMEOUT_MS);
            if due {
                self.flush_log_buffer(ti);
            }
            let enable = self.threads[ti].enable_change.is_none()
                && self.threads[ti]
                    .enabled_at_ms
                    .is_some_and(|at| at <= now_ms);
            if enable {
                self.scn += 1;
                let scn = self.scn;
                let time = self.now_sec();
                let lt = &mut self.threads[ti];
                open_first_log(&mut lt.groups, lt.seq, scn, time);
                lt.enable_change = Some(scn);
                lt.last_redo_scn = scn;
                lt.generated_scn = scn;
            }
        }
    }

    /// Appends a redo record at the next SCN (or the same SCN when
    /// `same_scn`); returns where it went.
    pub(super) fn emit(
        &mut self,
        thread: u16,
        txn: &Arc<TxnTag>,
        body: Body,
        size: u64,
        same_scn: bool,
    ) -> Emitted {
        if !same_scn {
            self.scn += 1 + self.rng.below(3);
        }
        let scn = self.scn;
        let time = self.now_sec();
        let ti = usize::from(thread.saturating_sub(1)).min(self.threads.len().saturating_sub(1));
        let lt = &mut self.threads[ti];
        // RS_ID prints the block in eight hex digits: a block number has 32 bits.
        let block = u32::try_from(lt.block).unwrap_or(u32::MAX);
        lt.block += 1 + size / 512;
        lt.bytes_used += size + 64;
        // The record goes to the log buffer; LGWR writes it later.
        lt.generated_scn = scn;
        lt.buffered_bytes += size + 64;
        lt.buffered_since_ms.get_or_insert(self.now_ms);
        let seq = lt.seq;
        let commit = matches!(body, Body::Commit { .. });
        self.records.push_back(Rec {
            scn,
            seq,
            txn: txn.clone(),
            time,
            block,
            thread,
            body,
        });
        self.rows_generated += 1;
        let third = (self.scenario.redo.log_buffer_bytes / 3).min(LGWR_WRITE_BYTES);
        // A commit waits for LGWR (log file sync); a third of the buffer
        // full (or 1 MB) makes it write too.
        if commit || self.threads[ti].buffered_bytes >= third {
            self.flush_log_buffer(ti);
        }
        if self.threads[ti].bytes_used >= self.scenario.redo.group_bytes {
            self.switch_log(ti);
        }
        Emitted { scn, seq, block }
    }

    /// `ALTER SYSTEM SWITCH LOGFILE` on one thread: archive, advance sequence.
    pub fn switch_log(&mut self, ti: usize) {
        if !self.threads.get(ti).is_some_and(ThreadLogs::is_enabled) {
            return;
        }
        // The switch writes the log buffer to the log being closed.
        self.flush_log_buffer(ti);
        let now = self.now_sec();
        self.scn += 1;
        let switch_scn = self.scn;
        let archivelog = self.scenario.instance.log_mode == LogMode::Archivelog;
        {
            // ARCHIVELOG never overwrites a log that was not archived: with
            // the archiver stuck the database hangs (ORA-00257).
            let lt = &self.threads[ti];
            let next = &lt.groups[(lt.current + 1) % lt.groups.len()];
            if archivelog && next.seq.is_some() && !next.archived {
                // A copy under way makes the switch wait for it (`log file
                // switch (archiving needed)`); none coming hangs the database.
                let group = (lt.current + 1) % lt.groups.len();
                if self.copy_queued(ti, group) {
                    self.switch_waiting = true;
                } else {
                    self.archiver_stuck = true;
                }
                self.scn -= 1;
                return;
            }
        }
        let lt = &mut self.threads[ti];
        let cur = lt.current;
        let old_seq = lt.seq;
        let (first, first_time) = {
            let g = &mut lt.groups[cur];
            g.next_change = switch_scn;
            g.status = "ACTIVE";
            g.archived = false;
            (g.first_change, g.first_time)
        };
        for (i, g) in lt.groups.iter_mut().enumerate() {
            if i != cur && g.status == "ACTIVE" {
                g.status = "INACTIVE";
            }
        }
        let next = (cur + 1) % lt.groups.len();
        lt.seq += 1;
        lt.current = next;
        lt.bytes_used = 0;
        lt.block = 2;
        let g = &mut lt.groups[next];
        g.seq = Some(lt.seq);
        g.status = "CURRENT";
        g.archived = false;
        g.first_change = switch_scn;
        g.next_change = MAX_NEXT_CHANGE;
        g.first_time = Some(now);
        let thread = lt.thread;
        self.switches.push((thread, now));
        if self.switches.len() > 2000 {
            self.switches.drain(..1000);
        }
        if archivelog {
            self.queue_archive(ClosedLog {
                thread_index: ti,
                group: cur,
                thread,
                sequence: old_seq,
                first_change: first,
                first_time,
                next_change: switch_scn,
                next_time: now,
            });
        }
        self.after_archive();
    }

    /// Whether any copy of (thread, seq) can still be read.
    pub fn sequence_available(&self, thread: u16, seq: u64) -> bool {
        let online = self
            .threads
            .iter()
            .any(|t| t.thread == thread && t.groups.iter().any(|g| g.seq == Some(seq)));
        online
            || self
                .archived
                .iter()
                .any(|a| a.thread == thread && a.sequence == seq && a.is_available())
    }

    pub(super) fn prune_records(&mut self) {
        while let Some(r) = self.records.front() {
            if self.sequence_available(r.thread, r.seq) {
                break;
            }
            self.records.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(scn: Scn) -> Rec {
        Rec {
            scn,
            seq: 1,
            txn: TxnTag::new(Arc::from("0A00"), Arc::from("APP"), None),
            time: NaiveDateTime::default(),
            block: 2,
            thread: 1,
            body: Body::Start,
        }
    }

    #[test]
    fn chunked_records_find_and_list_what_a_plain_deque_would() {
        let mut records = Records::default();
        let mut plain: VecDeque<Scn> = VecDeque::new();
        let mut scn = 0;
        // Fill several chunks, free from the front across chunk borders,
        // and fill again, checking the index arithmetic at each stage.
        for (push, pop) in [
            (3 * CHUNK + 17, 0),
            (0, CHUNK + 5),
            (2 * CHUNK, 2 * CHUNK - 9),
        ] {
            for _ in 0..push {
                scn += 2;
                records.push_back(rec(scn));
                plain.push_back(scn);
            }
            for _ in 0..pop {
                assert_eq!(records.pop_front().map(|r| r.scn), plain.pop_front());
            }
            assert_eq!(records.len(), plain.len());
            assert_eq!(records.front().map(|r| r.scn), plain.front().copied());
            let first = plain.front().copied().unwrap_or(0);
            for probe in [
                0,
                first,
                first + 1,
                first + 2 * CHUNK as Scn + 3,
                scn,
                scn + 1,
            ] {
                let at = records.partition_point(|r| r.scn <= probe);
                assert_eq!(at, plain.partition_point(|&s| s <= probe), "probe {probe}");
                let listed: Vec<Scn> = records.range(at..).map(|r| r.scn).collect();
                let expected: Vec<Scn> = plain.range(at..).copied().collect();
                assert_eq!(listed, expected, "from {at}");
            }
            assert!(records.iter().map(|r| r.scn).eq(plain.iter().copied()));
        }
        // Room is at most one chunk beyond what is held.
        assert!(records.capacity() < records.len() + 2 * CHUNK);
    }

    #[test]
    fn a_record_prints_the_rs_id_of_its_log_sequence_and_block() {
        let r = Rec {
            seq: 0x70,
            block: 0x1234,
            ..rec(5)
        };
        assert_eq!(r.rs_id(), " 0x000070.00001234.0160 ");
        let r = Rec { block: 3, ..r };
        assert_eq!(r.rs_id(), rs_id(0x70, 3, 0x10 + 3 * 512 % 0x1f0));
    }
}
