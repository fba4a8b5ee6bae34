//! The simulated Oracle instance: the `Model` type, its start-up from a
//! scenario, and the database clock (time and SCN) that drives everything
//! else. Each Oracle subsystem the simulator imitates lives in its own file:
//!
//! - `dictionary`: the data dictionary (tables, columns, partitions, object
//!   and data object ids, containers) and where rows are stored;
//! - `redo`: redo records, the log writer, online log groups, threads and
//!   log switches;
//! - `archive`: the archiver (ARCn): archived logs, destinations, deletion;
//! - `undo`: transaction ids, undo retention and `AS OF SCN` reads;
//! - `workload`: user sessions: transactions, their pace, commit/rollback;
//! - `dml`: the row changes a transaction makes, LOB writes, rollback redo;
//! - `faults`: partition maintenance DDL and injected faults;
//! - `truth`: the committed changes a faithful capture must deliver.
//!
//! Generation is incremental: `advance_to` produces workload up to a
//! database time, and redo of logs that no longer exist anywhere is dropped,
//! so memory stays bounded however long the simulation runs.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use chrono::{Duration, NaiveDateTime, Timelike};

use crate::engine::event::CapturedEvent;
use crate::engine::row::Scn;
use crate::source::inventory::ArchivedLog;

use super::rng::Rng;
use super::scenario::Scenario;

mod archive;
mod dictionary;
mod dml;
mod faults;
mod key_order;
mod redo;
mod truth;
mod txn;
mod undo;
mod workload;

pub use dictionary::{
    high_value_text, rowid, Bound, Column, Partition, Partitioning, RowState, Table,
};
pub use redo::{rs_id, Body, DmlOp, Group, Rec, Records, ThreadLogs, TxnTag, MAX_NEXT_CHANGE};
pub use truth::RemovedRow;
pub use txn::Txn;

use workload::Scheduled;

/// The instance.
pub struct Model {
    pub scenario: Scenario,
    /// The character sets values are stored in and the session format
    /// timestamps print in.
    pub nls: super::value::Nls,
    pub version_major: u32,
    rng: Rng,
    pub start: NaiveDateTime,
    /// Database time, ms since `start`.
    pub now_ms: i64,
    pub scn: Scn,
    pub tables: Vec<Table>,
    pub open: Vec<Txn>,
    locks: HashMap<(usize, i64), Arc<str>>,
    pub records: Records,
    pub threads: Vec<ThreadLogs>,
    pub archived: Vec<ArchivedLog>,
    /// Object ids no longer in the dictionary (dropped tables and partitions).
    pub dropped_objects: HashSet<u64>,
    /// DM8: the SCN of each rolled-back change, with the SCN of the undo
    /// that took it back (a ROLLBACK or a rollback to a savepoint).
    pub undone: HashMap<Scn, Scn>,
    next_obj: u64,
    next_sys_part: u32,
    next_usn_slot: u32,
    next_sqn: u32,
    /// Committed changes and DDL in commit order, with their transaction's START SCN.
    pub truth: VecDeque<(Scn, CapturedEvent)>,
    pub truth_dropped: u64,
    pub truth_limit: Option<usize>,
    /// Rows that left a table by partition DDL (TRUNCATE, DROP, EXCHANGE
    /// PARTITION), which writes no row redo: part of the ground truth of
    /// table contents, bounded like `truth`.
    pub ddl_removed: VecDeque<RemovedRow>,
    /// The truth as a capture that reassembles LOB and XMLType values gives
    /// it (`--lob capture`); else those values are unavailable and a LOB
    /// written alone is no event.
    pub lob_capture: bool,
    /// DM8's rows keep DM8's own operation codes, as an export of
    /// `V$LOGMNR_CONTENTS` shows them, instead of the DM source's reading
    /// of them (38 XA_COMMIT as COMMIT, 4 BATCH_UPDATE as UPDATE).
    pub dm_own_codes: bool,
    scheduled: Vec<Scheduled>,
    next_at: Option<i64>,
    scn_faults: Vec<faults::ScnFault>,
    /// Archives of this many coming switches are deleted right away.
    gap_pending: u32,
    /// A connection-drop fault fired and the session has not seen it yet.
    pub connection_dropped: bool,
    /// Connection drops so far: each ends every other session too, which
    /// finds out at its next call (`snapshot_read::ReaderLink`).
    pub connection_drops: u64,
    /// Until then (ms) the listener is down: a reconnect raises ORA-12541.
    pub listener_down_until_ms: Option<i64>,
    pub fra_archive_bytes: u64,
    /// Archive destinations that failed, with the error they show.
    pub dest_errors: BTreeMap<u32, String>,
    /// A log could not be archived and no online log can be reused: the
    /// database generates no redo until space is freed.
    pub archiver_stuck: bool,
    /// A log switch waits for the archiver to finish copying the group it
    /// would reuse; no redo is generated meanwhile.
    pub switch_waiting: bool,
    /// Closed logs the archiver has yet to copy, with the time (ms) each
    /// copy completes.
    archive_queue: std::collections::VecDeque<(i64, archive::ClosedLog)>,
    /// Log switches: the thread and the time of each.
    pub switches: Vec<(u16, NaiveDateTime)>,
    pub rows_generated: u64,
    pub snapshot_too_old_errors: u64,
    /// Bytes of committed undo held (see `undo::prune_undo`).
    undo_bytes: u64,
    /// `V$DATABASE.RESETLOGS_TIME` of the current incarnation (its
    /// RESETLOGS_CHANGE# is `scenario.instance.resetlogs_change`).
    pub resetlogs_time: NaiveDateTime,
}

fn ms(t: NaiveDateTime) -> i64 {
    t.and_utc().timestamp_millis()
}

/// Milliseconds of a scenario's seconds, saturating: a moment too far out
/// to be written as milliseconds is never reached, rather than wrapping
/// round to one already past.
pub(super) fn secs_ms(s: u64) -> i64 {
    i64::try_from(s).unwrap_or(i64::MAX).saturating_mul(1000)
}

impl Model {
    pub fn new(scenario: Scenario) -> Model {
        let version_major = scenario
            .version_full()
            .and_then(|v| v.split('.').next().and_then(|m| m.parse().ok()))
            .unwrap_or(19);
        let start = scenario.start();
        let mut rng = Rng::new(scenario.seed);
        let mut next_obj = 74_000u64;
        let mut load_rng = rng.fork();
        let tables = dictionary::build_tables(&scenario, start, &mut next_obj);
        let threads = redo::build_threads(&scenario, start);
        let mut scheduled = workload::schedule(&scenario, &tables);
        let scn_faults = faults::schedule(&scenario, &mut scheduled);
        let nls = super::value::Nls {
            fraction: super::value::Fraction::from_format(&scenario.logminer.nls_timestamp_format)
                .unwrap_or_default(),
            charsets: super::charset::Charsets::from_names(
                &scenario.instance.characterset,
                &scenario.instance.nchar_characterset,
            ),
        };
        let mut m = Model {
            nls,
            version_major,
            start,
            now_ms: 0,
            scn: scenario.instance.start_scn,
            tables,
            open: Vec::new(),
            locks: HashMap::new(),
            records: Records::default(),
            threads,
            archived: Vec::new(),
            dropped_objects: HashSet::new(),
            undone: HashMap::new(),
            next_obj,
            next_sys_part: 6000,
            next_usn_slot: 0,
            next_sqn: 0x3C5D,
            truth: VecDeque::new(),
            truth_dropped: 0,
            truth_limit: Some(200_000),
            ddl_removed: VecDeque::new(),
            lob_capture: false,
            dm_own_codes: false,
            scheduled,
            next_at: None,
            scn_faults,
            gap_pending: 0,
            connection_dropped: false,
            connection_drops: 0,
            listener_down_until_ms: None,
            fra_archive_bytes: 0,
            dest_errors: BTreeMap::new(),
            archiver_stuck: false,
            switch_waiting: false,
            archive_queue: std::collections::VecDeque::new(),
            switches: Vec::new(),
            rows_generated: 0,
            snapshot_too_old_errors: scenario.instance.snapshot_too_old_errors,
            undo_bytes: 0,
            // The incarnation was opened a month before the scenario starts.
            resetlogs_time: start - Duration::days(30),
            rng: Rng::new(0),
            scenario,
        };
        m.rng = rng.fork();
        m.initial_load(&mut load_rng);
        m
    }

    pub fn now(&self) -> NaiveDateTime {
        self.start + Duration::milliseconds(self.now_ms)
    }

    /// A new object id, for a segment DDL creates.
    pub fn alloc_obj(&mut self) -> u64 {
        let id = self.next_obj;
        self.next_obj += 1;
        id
    }

    /// Whether redo names the user who ran a transaction: Oracle writes
    /// the session's user into the transaction's first record only under
    /// (at least minimal) supplemental logging.
    pub fn logs_user(&self) -> bool {
        self.scenario.instance.supplemental_logging != crate::source::sim::scenario::SuppLevel::None
    }

    /// Database time truncated to the second, as redo and V$ views show it.
    fn now_sec(&self) -> NaiveDateTime {
        let t = self.now();
        t.with_nanosecond(0).unwrap_or(t)
    }

    /// Generates workload until database time reaches `target_ms`.
    pub fn advance_to(&mut self, target_ms: i64) {
        loop {
            let at = self.next_action_at();
            if at > target_ms {
                break;
            }
            self.run_next();
        }
        self.now_ms = self.now_ms.max(target_ms);
        self.log_writers_at(self.now_ms);
    }

    /// Generates until at least `n` more redo records exist.
    pub fn generate_records(&mut self, n: u64) {
        let goal = self.rows_generated + n;
        while self.rows_generated < goal {
            self.run_next();
        }
    }

    /// Generates until the SCN reaches `scn`.
    pub fn advance_to_scn(&mut self, scn: Scn) {
        while self.scn < scn {
            self.run_next();
        }
    }
}
