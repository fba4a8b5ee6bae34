//! The capture loop shared by `tail` and `run`: plans a LogMiner session for
//! the next window, reads `V$LOGMNR_CONTENTS`, feeds the transaction buffer,
//! and hands committed events to a sink in commit order.
//!
//! Recovery is by position, not by hope: after a transient source error the
//! loop reconnects and re-mines from the buffer's restart SCN, and the
//! checkpoint filter drops what was already emitted, so nothing is lost and
//! nothing repeats. Errors that mean data cannot be trusted (a gap, a missing
//! log, an unparseable row) stop the loop with the evidence.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::source::{ContentsQuery, RedoSource, SourceError, TableName, TablePattern};

use super::checkpoint::Checkpoint;
use super::event::{image_get, CapturedEvent, ChangeEvent, Field, Op};
use super::finding::Finding;
use super::metrics::{CaptureStatus, EngineMessage, MinedLog, MiningState};
use super::row::{LogMinerRow, OperationCode, Scn};
use super::session::{self, PlanError, PlannerConfig, SessionPlan};
use super::txn::{BufferConfig, SinkError, TxnBuffer, TxnError, TxnFinding, TxnWarning};

/// Where capture begins.
#[derive(Debug, Clone, PartialEq)]
pub enum StartAt {
    /// The database's current SCN: only changes from now on.
    Now,
    /// Changes with an SCN above this one.
    Scn(Scn),
    /// Resume a previous run: nothing it emitted is emitted again.
    Checkpoint(Checkpoint),
}

/// How the capture loop behaves.
#[derive(Debug, Clone)]
pub struct CaptureConfig {
    pub buffer: BufferConfig,
    pub planner: PlannerConfig,
    /// Tables to capture; empty means every table the query returns.
    pub tables: Vec<TablePattern>,
    /// `SRC_CON_NAME` filter when mining a PDB from CDB$ROOT.
    pub pdb: Option<String>,
    pub start: StartAt,
    /// Stop once every change at or below this SCN was emitted.
    pub until_scn: Option<Scn>,
    /// Rows per fetch from `V$LOGMNR_CONTENTS`; safe to be large because
    /// every query is bounded by an end SCN.
    pub fetch_rows: usize,
    /// Consecutive transient errors tolerated before giving up.
    pub max_retries: u32,
    /// Key columns (primary key, else a unique key) of the captured tables,
    /// from the catalog. With them the engine tells a before image that
    /// lacks its key — the table's supplemental logging is missing — even
    /// when the redo carries no ROWID to give it away.
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// LOB and XMLType columns of the captured tables, from the catalog.
    /// An UPDATE or DELETE image lacking one gets the unavailable marker
    /// for it (and a finding, once per table and column).
    pub lob_columns: BTreeMap<TableName, Vec<String>>,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        Self {
            buffer: BufferConfig::default(),
            planner: PlannerConfig::default(),
            tables: Vec::new(),
            pdb: None,
            start: StartAt::Now,
            until_scn: None,
            fetch_rows: 10_000,
            max_retries: 5,
            key_columns: BTreeMap::new(),
            lob_columns: BTreeMap::new(),
        }
    }
}

/// Why capture stopped.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Txn(#[from] TxnError),
}

impl CaptureError {
    /// The capture stopped because data could not be trusted (parse failure,
    /// missing log, gap) rather than because the source was unreachable.
    pub fn is_untrusted_data(&self) -> bool {
        match self {
            CaptureError::Txn(TxnError::Sink(_)) => false,
            CaptureError::Txn(_) | CaptureError::Plan(_) => true,
            CaptureError::Source(e) => {
                matches!(
                    e,
                    SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. }
                ) || matches!(e.ora_code(), Some(1291 | 1284 | 310))
            }
        }
    }

    pub fn ora_code(&self) -> Option<u32> {
        match self {
            CaptureError::Source(e) => e.ora_code(),
            CaptureError::Plan(p) => p.to_source_error().ora_code(),
            CaptureError::Txn(_) => None,
        }
    }

    pub fn advice(&self) -> Option<String> {
        match self {
            CaptureError::Source(e) => e.advice().map(str::to_string),
            CaptureError::Plan(p) => p.to_source_error().advice().map(str::to_string),
            CaptureError::Txn(TxnError::Parse { .. }) => Some(
                "the row is shown above; report it with `cdcctl redo parse`, or rerun with \
                 --on-parse-error warn to send such rows to the dead-letter file"
                    .into(),
            ),
            CaptureError::Txn(_) => None,
        }
    }
}

/// What one poll did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A window was mined.
    Advanced { rows: u64 },
    /// Nothing new: the window is caught up with the current SCN.
    Idle,
    /// A transient error; reconnected and will re-mine from the restart SCN.
    Retrying,
    /// `until_scn` reached.
    Finished,
}

/// The capture engine over one source.
pub struct Capture<S: RedoSource> {
    source: S,
    config: CaptureConfig,
    buffer: TxnBuffer,
    /// Every row at or below this SCN has been fed to the buffer.
    mined_scn: Scn,
    owners: Vec<String>,
    /// The plan of the running LogMiner session, if one is running.
    last_plan: Option<SessionPlan>,
    status: CaptureStatus,
    retries: u32,
    rows: Vec<LogMinerRow>,
    findings: Vec<TxnFinding>,
    warnings: Vec<TxnWarning>,
    /// Tables already reported with a partial before image (reported once).
    partial_reported: BTreeSet<TableName>,
    /// LOB columns already reported as unavailable (reported once).
    lob_reported: BTreeSet<(TableName, String)>,
}

impl<S: RedoSource> Capture<S> {
    /// Resolves the start position and prepares the buffer.
    pub fn new(mut source: S, config: CaptureConfig) -> Result<Self, CaptureError> {
        let (buffer, mined_scn) = match &config.start {
            StartAt::Now => (
                TxnBuffer::new(config.buffer.clone()),
                source.current_scn()?.scn,
            ),
            StartAt::Scn(scn) => (TxnBuffer::new(config.buffer.clone()), *scn),
            StartAt::Checkpoint(cp) => {
                (TxnBuffer::resume(config.buffer.clone(), cp), cp.restart_scn)
            }
        };
        let owners = owners_of(&config.tables);
        let status = CaptureStatus {
            mined_scn,
            restart_scn: mined_scn,
            ..CaptureStatus::default()
        };
        Ok(Self {
            source,
            config,
            buffer,
            mined_scn,
            owners,
            last_plan: None,
            status,
            retries: 0,
            rows: Vec::new(),
            findings: Vec::new(),
            warnings: Vec::new(),
            partial_reported: BTreeSet::new(),
            lob_reported: BTreeSet::new(),
        })
    }

    pub fn status(&self) -> &CaptureStatus {
        &self.status
    }

    /// Where a restart would resume without loss or repetition.
    pub fn checkpoint(&self) -> Checkpoint {
        self.buffer.checkpoint()
    }

    /// Findings since the last call: the buffer's (parser, STATUS=2) and the
    /// engine's own dictionary checks.
    pub fn take_findings(&mut self) -> Vec<TxnFinding> {
        let mut all = self.buffer.take_findings();
        all.append(&mut self.findings);
        all
    }

    /// Warnings since the last call (abandoned transactions, unmatched
    /// partial rollbacks, ignored late commits).
    pub fn take_warnings(&mut self) -> Vec<TxnWarning> {
        let mut all = self.buffer.take_warnings();
        all.append(&mut self.warnings);
        all
    }

    /// Dead letters since the last call (`OnParseError::Warn`).
    pub fn take_dead_letters(&mut self) -> Vec<super::txn::DeadLetter> {
        self.buffer.take_dead_letters()
    }

    /// Ends capture and hands the source back (a restart reuses the connection).
    pub fn into_source(self) -> S {
        self.source
    }

    /// Mines the next window. Transient source errors are retried (up to
    /// `max_retries` in a row) by reconnecting and re-mining from the
    /// restart SCN.
    pub fn poll(
        &mut self,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Progress, CaptureError> {
        match self.poll_once(sink) {
            Ok(p) => {
                self.retries = 0;
                if p == Progress::Finished {
                    self.status.state = MiningState::Finished;
                }
                Ok(p)
            }
            Err(CaptureError::Source(e))
                if e.is_transient() && self.retries < self.config.max_retries =>
            {
                self.retries += 1;
                self.status.state = MiningState::Retrying {
                    attempt: self.retries,
                    error: e.to_string(),
                    advice: e.advice().map(str::to_string),
                };
                self.recover();
                Ok(Progress::Retrying)
            }
            Err(e) => {
                self.status.state = MiningState::Stopped {
                    error: e.to_string(),
                    advice: e.advice(),
                };
                Err(e)
            }
        }
    }

    fn recover(&mut self) {
        // A failed reconnect surfaces on the next poll as another transient error.
        let _ = self.source.end_session();
        let _ = self.source.reconnect();
        let cp = self.buffer.checkpoint();
        self.buffer = TxnBuffer::resume(self.config.buffer.clone(), &cp);
        self.mined_scn = cp.restart_scn;
        self.last_plan = None;
    }

    fn poll_once(
        &mut self,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Progress, CaptureError> {
        let now = self.source.current_scn()?;
        self.status.current_scn = now.scn;
        self.status.current_time = Some(now.time);
        let mut upper = now.scn;
        if let Some(until) = self.config.until_scn {
            if self.mined_scn >= until {
                return Ok(Progress::Finished);
            }
            upper = upper.min(until);
        }
        if self.mined_scn >= upper {
            self.status.state = MiningState::Idle;
            // With nothing to read, the redo clock is the database's.
            self.status.mined_time = self.status.mined_time.or(Some(now.time));
            return Ok(Progress::Idle);
        }
        let inventory = self.source.log_inventory()?;
        let plan = session::plan(&inventory, self.mined_scn, upper, &self.config.planner)?;
        self.status.state = MiningState::Mining;
        self.status.window = (plan.from_scn, plan.end_scn);
        self.status.logs = plan
            .logs
            .iter()
            .map(|l| MinedLog {
                thread: l.thread,
                sequence: l.sequence,
                online: l.online,
                name: l.name.clone(),
            })
            .collect();
        // Reuse the running session while the log set stays the same: only
        // the SCN range changes. A new set means END_LOGMNR and new files.
        let reuse = self.last_plan.as_ref().is_some_and(|p| p.same_logs(&plan));
        if !reuse && self.last_plan.take().is_some() {
            self.source.end_session()?;
        }
        self.source.start_session(&plan.request())?;
        self.last_plan = Some(plan.clone());
        let query = ContentsQuery {
            from_scn: plan.from_scn,
            to_scn: plan.end_scn,
            owners: self.owners.clone(),
            pdb: self.config.pdb.clone(),
        };
        self.source.query_contents(&query)?;
        let mut read = 0u64;
        loop {
            self.rows.clear();
            let n = self.source.fetch(self.config.fetch_rows, &mut self.rows)?;
            if n == 0 {
                break;
            }
            read += n as u64;
            for row in self.rows.drain(..) {
                self.status.mined_scn = self.status.mined_scn.max(row.scn);
                if row.timestamp.is_some() {
                    self.status.mined_time = row.timestamp;
                }
                if !wanted(&self.config.tables, &row) {
                    continue;
                }
                let mut checked = |mut e: CapturedEvent| {
                    if let CapturedEvent::Change(c) = &mut e {
                        fill_unlogged_lobs(
                            &self.config.lob_columns,
                            &mut self.lob_reported,
                            &mut self.findings,
                            c,
                        );
                        check_before_image(
                            &self.config.key_columns,
                            &mut self.partial_reported,
                            &mut self.findings,
                            c,
                        );
                    }
                    sink(e)
                };
                self.buffer.push(row, &mut checked)?;
            }
        }
        self.buffer.finish_window(plan.end_scn, sink)?;
        self.warnings.extend(self.buffer.abandon_expired());
        self.mined_scn = plan.end_scn;
        self.status.rows_read += read;
        self.status.mined_scn = plan.end_scn;
        self.refresh_status();
        if self.config.until_scn.is_some_and(|u| self.mined_scn >= u) {
            return Ok(Progress::Finished);
        }
        Ok(Progress::Advanced { rows: read })
    }

    fn refresh_status(&mut self) {
        self.buffer.fill_status(&mut self.status);
        self.status.findings += self.findings.len() as u64;
    }
}

/// Puts the unavailable marker in UPDATE and DELETE images for the LOB
/// columns the redo did not carry (LogMiner logs a LOB apart from the row),
/// so a consumer never reads the missing field as NULL.
fn fill_unlogged_lobs(
    lobs: &BTreeMap<TableName, Vec<String>>,
    reported: &mut BTreeSet<(TableName, String)>,
    findings: &mut Vec<TxnFinding>,
    change: &mut ChangeEvent,
) {
    if !matches!(change.op, Op::Update | Op::Delete) || lobs.is_empty() {
        return;
    }
    let name = TableName {
        owner: change.source.schema.clone(),
        table: change.source.table.clone(),
    };
    let Some(columns) = lobs.get(&name) else {
        return;
    };
    for column in columns {
        let mut filled = false;
        for image in [change.before.as_mut(), change.after.as_mut()]
            .into_iter()
            .flatten()
        {
            if image_get(image, column).is_none() {
                image.push((column.clone(), Field::Unavailable));
                filled = true;
            }
        }
        if filled && reported.insert((name.clone(), column.clone())) {
            findings.push(TxnFinding {
                xid: change.source.xid.clone(),
                scn: change.source.scn,
                finding: Finding::LobUnavailable {
                    schema: name.owner.clone(),
                    table: name.table.clone(),
                    column: column.clone(),
                },
            });
        }
    }
}

/// Reports, once per table, an UPDATE or DELETE whose before image lacks a
/// key column the dictionary says the table has: only minimal supplemental
/// logging reached the redo, so before images hold just what changed.
fn check_before_image(
    keys: &BTreeMap<TableName, Vec<String>>,
    reported: &mut BTreeSet<TableName>,
    findings: &mut Vec<TxnFinding>,
    change: &ChangeEvent,
) {
    if !matches!(change.op, Op::Update | Op::Delete) {
        return;
    }
    let name = TableName {
        owner: change.source.schema.clone(),
        table: change.source.table.clone(),
    };
    let Some(key) = keys.get(&name) else {
        return;
    };
    let Some(before) = &change.before else {
        return;
    };
    if key.is_empty() || key.iter().all(|k| image_get(before, k).is_some()) {
        return;
    }
    if reported.insert(name) {
        findings.push(TxnFinding {
            xid: change.source.xid.clone(),
            scn: change.source.scn,
            finding: Finding::PartialBeforeImage {
                schema: change.source.schema.clone(),
                table: change.source.table.clone(),
                row_id: change.source.row_id.clone(),
            },
        });
    }
}

/// Owners to filter on in the query: only when every pattern names its
/// owner exactly (a wildcard owner needs every row).
fn owners_of(tables: &[TablePattern]) -> Vec<String> {
    if tables.is_empty() || tables.iter().any(|t| t.owner.contains(['%', '_'])) {
        return Vec::new();
    }
    let mut owners: Vec<String> = tables.iter().map(|t| t.owner.clone()).collect();
    owners.sort();
    owners.dedup();
    owners
}

/// Keeps transaction control rows, DDL, rows LogMiner could not name
/// (they must surface as dictionary findings) and rows of wanted tables.
fn wanted(tables: &[TablePattern], row: &LogMinerRow) -> bool {
    if tables.is_empty() {
        return true;
    }
    match row.operation_code {
        OperationCode::Start
        | OperationCode::Commit
        | OperationCode::Rollback
        | OperationCode::Ddl
        | OperationCode::MissingScn => true,
        _ => {
            let (Some(owner), Some(table)) = (&row.seg_owner, &row.table_name) else {
                return true;
            };
            if owner == "UNKNOWN" || table.starts_with("OBJ# ") {
                return true;
            }
            let name = crate::source::TableName {
                owner: owner.clone(),
                table: table.clone(),
            };
            tables.iter().any(|p| p.matches(&name))
        }
    }
}

/// How the engine thread paces itself.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Sleep between polls when caught up.
    pub idle_sleep: Duration,
    /// Send a status at least this often.
    pub status_every: Duration,
    /// Events per `EngineMessage::Events` batch.
    pub batch: usize,
    /// Stop after this many events (the status then says `Finished`).
    pub max_events: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            idle_sleep: Duration::from_millis(500),
            status_every: Duration::from_millis(250),
            batch: 512,
            max_events: None,
        }
    }
}

/// Runs the capture loop on its own thread, sending events, status,
/// findings and errors over `tx`. The thread ends when `stop` is set, when
/// the receiver hangs up, at `until_scn`, or on an error it cannot retry.
pub fn spawn<S: RedoSource + 'static>(
    mut capture: Capture<S>,
    tx: SyncSender<EngineMessage>,
    stop: Arc<AtomicBool>,
    options: RunOptions,
) -> std::io::Result<JoinHandle<Option<CaptureError>>> {
    std::thread::Builder::new()
        .name("cdcctl-engine".into())
        .spawn(move || run_loop(&mut capture, &tx, &stop, &options))
}

fn run_loop<S: RedoSource>(
    capture: &mut Capture<S>,
    tx: &SyncSender<EngineMessage>,
    stop: &AtomicBool,
    options: &RunOptions,
) -> Option<CaptureError> {
    let mut failure = None;
    let mut last_status = Instant::now() - options.status_every;
    let mut batch: Vec<CapturedEvent> = Vec::with_capacity(options.batch);
    let mut hung_up = false;
    let mut emitted: u64 = 0;
    let limit = options.max_events.unwrap_or(u64::MAX);
    while !stop.load(Ordering::Relaxed) && !hung_up {
        let result = {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if emitted >= limit {
                    return Err("event limit reached".into());
                }
                batch.push(e);
                emitted += 1;
                if batch.len() >= options.batch {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(options.batch));
                    tx.send(EngineMessage::Events(full))
                        .map_err(|_| -> SinkError { "the consumer stopped".into() })?;
                }
                Ok(())
            };
            capture.poll(&mut sink)
        };
        if !batch.is_empty() {
            let full = std::mem::take(&mut batch);
            hung_up |= tx.send(EngineMessage::Events(full)).is_err();
        }
        for f in capture.take_findings() {
            hung_up |= tx.send(EngineMessage::Finding(f.finding)).is_err();
        }
        for w in capture.take_warnings() {
            hung_up |= tx
                .send(EngineMessage::SourceError {
                    error: w.message(),
                    ora_code: None,
                    advice: None,
                    retrying: true,
                })
                .is_err();
        }
        let limit_reached = emitted >= limit;
        let status_due = last_status.elapsed() >= options.status_every;
        match result {
            Ok(progress) => {
                if limit_reached {
                    capture.status.state = MiningState::Finished;
                }
                if status_due || progress != Progress::Idle || limit_reached {
                    hung_up |= tx
                        .send(EngineMessage::Status(Box::new(capture.status().clone())))
                        .is_err();
                    last_status = Instant::now();
                }
                if limit_reached {
                    break;
                }
                match progress {
                    Progress::Finished => break,
                    Progress::Retrying => {
                        if let MiningState::Retrying {
                            error,
                            advice,
                            attempt,
                        } = &capture.status().state
                        {
                            hung_up |= tx
                                .send(EngineMessage::SourceError {
                                    error: format!("{error} (retry {attempt})"),
                                    ora_code: None,
                                    advice: advice.clone(),
                                    retrying: true,
                                })
                                .is_err();
                        }
                        sleep_unless_stopped(stop, options.idle_sleep);
                    }
                    Progress::Idle => sleep_unless_stopped(stop, options.idle_sleep),
                    Progress::Advanced { .. } => {}
                }
            }
            Err(CaptureError::Txn(TxnError::Sink(_))) => {
                if limit_reached {
                    capture.status.state = MiningState::Finished;
                    let _ = tx.send(EngineMessage::Status(Box::new(capture.status().clone())));
                }
                break;
            }
            Err(e) => {
                let _ = tx.send(EngineMessage::Status(Box::new(capture.status().clone())));
                let _ = tx.send(EngineMessage::SourceError {
                    error: e.to_string(),
                    ora_code: e.ora_code(),
                    advice: e.advice(),
                    retrying: false,
                });
                failure = Some(e);
                break;
            }
        }
    }
    let _ = tx.send(EngineMessage::Stopped);
    failure
}

fn sleep_unless_stopped(stop: &AtomicBool, total: Duration) {
    let deadline = Instant::now() + total;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{
        ArchiveDestStatus, LogInventory, OnlineLog, RedoThread, ScnTime, SessionRequest,
        SnapshotChunk, TableName,
    };
    use chrono::NaiveDate;

    /// A source over a fixed list of rows in one CURRENT online log; the SCN
    /// clock advances by `step` per poll, and errors can be injected.
    struct ScriptedSource {
        rows: Vec<LogMinerRow>,
        now: Scn,
        step: Scn,
        query: Option<(Scn, Scn)>,
        cursor: usize,
        fetches: u32,
        fail_on_fetch: Vec<u32>,
        reconnects: u32,
        starts: u32,
        ends: u32,
    }

    fn ts() -> chrono::NaiveDateTime {
        NaiveDate::from_ymd_opt(2025, 3, 1)
            .and_then(|d| d.and_hms_opt(9, 0, 0))
            .unwrap_or_default()
    }

    fn row(scn: Scn, xid: &str, op: OperationCode, sql: &str) -> LogMinerRow {
        LogMinerRow {
            scn,
            xid: xid.into(),
            operation_code: op,
            seg_owner: op.is_dml().then(|| "APP".into()),
            table_name: op.is_dml().then(|| "ORDERS".into()),
            row_id: op.is_dml().then(|| format!("AAAR3sAAEAAAACX{scn:03}")),
            sql_redo: Some(sql.into()),
            timestamp: Some(ts()),
            rs_id: Some(format!(" 0x000001.{scn:08x}.0010 ")),
            ..LogMinerRow::default()
        }
    }

    fn insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
        row(
            scn,
            xid,
            OperationCode::Insert,
            &format!(
                "insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"STATUS\") values ('{id}','NEW');"
            ),
        )
    }

    /// Two interleaved transactions, one rolled back, one committed later.
    fn script() -> Vec<LogMinerRow> {
        vec![
            row(
                101,
                "01",
                OperationCode::Start,
                "set transaction read write;",
            ),
            insert(102, "01", 1),
            row(
                103,
                "02",
                OperationCode::Start,
                "set transaction read write;",
            ),
            insert(104, "02", 2),
            insert(105, "01", 3),
            row(106, "01", OperationCode::Commit, "commit;"),
            row(
                107,
                "03",
                OperationCode::Start,
                "set transaction read write;",
            ),
            insert(108, "03", 4),
            row(109, "03", OperationCode::Rollback, "rollback;"),
            insert(110, "02", 5),
            row(111, "02", OperationCode::Commit, "commit;"),
            row(
                112,
                "04",
                OperationCode::Start,
                "set transaction read write;",
            ),
            insert(113, "04", 6),
            row(114, "04", OperationCode::Commit, "commit;"),
        ]
    }

    impl ScriptedSource {
        fn new(step: Scn) -> Self {
            Self {
                rows: script(),
                now: 100,
                step,
                query: None,
                cursor: 0,
                fetches: 0,
                fail_on_fetch: Vec::new(),
                reconnects: 0,
                starts: 0,
                ends: 0,
            }
        }
    }

    impl RedoSource for ScriptedSource {
        fn describe(&self) -> String {
            "scripted".into()
        }
        fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
            self.now = (self.now + self.step).min(120);
            Ok(ScnTime {
                scn: self.now,
                time: ts(),
            })
        }
        fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
            Ok(LogInventory {
                resetlogs_change: 1,
                online: vec![OnlineLog {
                    group: 1,
                    thread: 1,
                    sequence: 1,
                    status: "CURRENT".into(),
                    first_change: 1,
                    member_files: vec!["/redo/redo01.log".into()],
                    ..OnlineLog::default()
                }],
                archived: vec![],
                destinations: vec![ArchiveDestStatus {
                    dest_id: 1,
                    dest_name: "LOG_ARCHIVE_DEST_1".into(),
                    status: "VALID".into(),
                    dest_type: "LOCAL".into(),
                    destination: None,
                }],
                threads: vec![RedoThread {
                    thread: 1,
                    status: "OPEN".into(),
                    enabled: "PUBLIC".into(),
                    current_sequence: 1,
                    last_redo_scn: self.now,
                }],
            })
        }
        fn start_session(&mut self, r: &SessionRequest) -> Result<(), SourceError> {
            assert!(!r.options.continuous_mine);
            self.starts += 1;
            Ok(())
        }
        fn query_contents(&mut self, q: &ContentsQuery) -> Result<(), SourceError> {
            self.query = Some((q.from_scn, q.to_scn));
            self.cursor = 0;
            Ok(())
        }
        fn fetch(&mut self, max: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
            self.fetches += 1;
            if self.fail_on_fetch.contains(&self.fetches) {
                return Err(SourceError::oracle(
                    3113,
                    "end-of-file on communication channel",
                ));
            }
            let Some((lo, hi)) = self.query else {
                return Ok(0);
            };
            let matching: Vec<&LogMinerRow> = self
                .rows
                .iter()
                .filter(|r| r.scn > lo && r.scn <= hi)
                .collect();
            // One row per fetch so that failures can land mid-window.
            let take = matching.iter().skip(self.cursor).take(max.min(1));
            let before = out.len();
            out.extend(take.map(|r| (*r).clone()));
            self.cursor += out.len() - before;
            Ok(out.len() - before)
        }
        fn end_session(&mut self) -> Result<(), SourceError> {
            self.ends += 1;
            Ok(())
        }
        fn snapshot_chunk(
            &mut self,
            _: &TableName,
            _: Scn,
            _: Option<&[String]>,
            _: usize,
        ) -> Result<SnapshotChunk, SourceError> {
            Err(SourceError::Unsupported(
                "no snapshots in this source".into(),
            ))
        }
        fn reconnect(&mut self) -> Result<(), SourceError> {
            self.reconnects += 1;
            Ok(())
        }
    }

    fn capture_all(source: ScriptedSource) -> (Vec<String>, ScriptedSource) {
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            until_scn: Some(120),
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut ids = Vec::new();
        for _ in 0..200 {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if let CapturedEvent::Change(c) = e {
                    let after = c.after.unwrap_or_default();
                    let id = crate::engine::event::image_get(&after, "ORDER_ID")
                        .and_then(|f| f.as_str().map(str::to_string))
                        .unwrap_or_default();
                    ids.push(format!("{}:{id}", c.source.xid));
                }
                Ok(())
            };
            match cap.poll(&mut sink).expect("poll") {
                Progress::Finished => break,
                _ => continue,
            }
        }
        (ids, cap.source)
    }

    #[test]
    fn committed_changes_come_out_in_commit_order_without_rolled_back_work() {
        let (ids, _) = capture_all(ScriptedSource::new(3));
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    }

    #[test]
    fn session_is_reused_while_the_log_set_is_unchanged() {
        let (_, source) = capture_all(ScriptedSource::new(2));
        assert!(source.starts > 5, "{} windows", source.starts);
        assert_eq!(
            source.ends, 0,
            "END_LOGMNR between windows over the same log"
        );
    }

    #[test]
    fn disconnect_mid_window_re_mines_without_loss_or_duplicates() {
        let mut source = ScriptedSource::new(20);
        // Fail inside the window, after transaction 01 was emitted.
        source.fail_on_fetch = vec![8, 9];
        let (ids, source) = capture_all(source);
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
        assert_eq!(source.reconnects, 2);
    }

    #[test]
    fn window_size_does_not_change_what_is_captured() {
        for step in [1, 2, 5, 7, 20] {
            let (ids, _) = capture_all(ScriptedSource::new(step));
            assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"], "step {step}");
        }
    }

    #[test]
    fn too_many_consecutive_transient_errors_stop_capture() {
        let mut source = ScriptedSource::new(20);
        source.fail_on_fetch = (1..=50).collect();
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            max_retries: 3,
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
        let mut outcome = None;
        for _ in 0..10 {
            if let Err(e) = cap.poll(&mut sink) {
                outcome = Some(e);
                break;
            }
        }
        let err = outcome.expect("capture must give up");
        assert_eq!(err.ora_code(), Some(3113));
        assert!(matches!(cap.status().state, MiningState::Stopped { .. }));
    }

    #[test]
    fn table_filter_keeps_control_rows_and_unknown_objects() {
        let pats = vec![TablePattern::parse("APP.ORD%").expect("pattern")];
        let mut r = insert(1, "01", 1);
        assert!(wanted(&pats, &r));
        r.table_name = Some("CUSTOMERS".into());
        assert!(!wanted(&pats, &r));
        r.seg_owner = Some("UNKNOWN".into());
        r.table_name = Some("OBJ# 74622".into());
        assert!(wanted(&pats, &r));
        assert!(wanted(
            &pats,
            &row(2, "01", OperationCode::Commit, "commit;")
        ));
        assert_eq!(owners_of(&pats), ["APP"]);
        assert!(owners_of(&[TablePattern::parse("%.X").expect("pattern")]).is_empty());
    }
}
