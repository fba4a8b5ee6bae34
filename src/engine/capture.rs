//! The capture engine shared by `tail` and `run`: plans a LogMiner session
//! for the next window, reads `V$LOGMNR_CONTENTS`, feeds the transaction
//! buffer, and hands committed events to a sink in commit order. The
//! threads that drive it are the daemon's (`crate::daemon`).
//!
//! Each LogMiner session starts at the buffer's restart SCN (the oldest
//! open transaction's start) while its query asks only for rows past those
//! already read, so LogMiner knows every open transaction's start. A first
//! start reads V$TRANSACTION and mines the transactions under way from
//! their own start; a checkpoint records the database incarnation, and a
//! different one stops capture.
//!
//! Recovery is by position, not by hope: after a transient source error the
//! loop reconnects and re-mines from the buffer's restart SCN, and the
//! checkpoint filter drops what was already emitted, so nothing is lost and
//! nothing repeats. Errors that mean data cannot be trusted (a gap, a missing
//! log, an unparseable row) stop the loop with the evidence.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::engine::port::{
    flushed_redo_end, ContentsQuery, Dialect, Incarnation, LogInventory, RedoSource, RedoThread,
    SourceError, TableName, TablePattern,
};

use super::checkpoint::Checkpoint;
use super::detail::RedoBook;
use super::emit::SinkError;
use super::event::{CapturedEvent, ChangeEvent, Field, FieldRef, Op};
use super::finding::Finding;
use super::inflight;
use super::metrics::{CaptureStatus, MinedLog, MiningState, MissingArchive};
use super::row::{LogMinerRow, OperationCode, Scn};
use super::session::{self, PlanError, PlannerConfig, SessionPlan};
use super::txn::{BufferConfig, TxnBuffer, TxnError, TxnFinding, TxnWarning};

/// Where capture begins.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // built once per capture
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
    /// How often the source is asked and how long sessions live.
    pub polling: PollConfig,
    /// LOB and XMLType columns of the captured tables, from the catalog.
    /// An UPDATE or DELETE image lacking one gets the unavailable marker
    /// for it (and a finding, once per table and column).
    pub lob_columns: BTreeMap<TableName, Vec<String>>,
    /// RAW, LONG RAW and BLOB columns of the captured tables: their values
    /// are bytes, written in the envelope's binary form.
    pub binary_columns: BTreeMap<TableName, Vec<String>>,
}

/// The cost a poll puts on the source: how long to wait when there is
/// nothing to read, which windows are too small to be worth a session, and
/// when a reused LogMiner session is ended to give its memory back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollConfig {
    /// The first pause after a poll that read nothing; each further empty
    /// poll doubles it, up to `max_idle_pause`.
    pub min_idle_pause: Duration,
    pub max_idle_pause: Duration,
    /// A window narrower than this many SCNs waits one poll for more redo
    /// (when the redo end has not moved since, it is mined as it is).
    pub min_window_scns: u64,
    /// A LogMiner session reused for this long (database time) is ended and
    /// started afresh: its PGA grows while it lives (ORA-04036).
    pub max_session_age: Duration,
}

impl Default for PollConfig {
    fn default() -> Self {
        Self {
            min_idle_pause: Duration::from_millis(100),
            max_idle_pause: Duration::from_secs(3),
            min_window_scns: 4,
            max_session_age: Duration::from_secs(30 * 60),
        }
    }
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
            polling: PollConfig::default(),
            lob_columns: BTreeMap::new(),
            binary_columns: BTreeMap::new(),
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
    #[error(
        "the database is in another incarnation than the checkpoint: checkpoint {stored}, database \
         {current} (OPEN RESETLOGS after FLASHBACK DATABASE or an incomplete recovery); SCNs past \
         the RESETLOGS point name different changes now"
    )]
    IncarnationChanged {
        stored: Incarnation,
        current: Incarnation,
    },
}

impl CaptureError {
    /// The capture stopped because data could not be trusted (parse failure,
    /// missing log, gap) rather than because the source was unreachable.
    pub fn is_untrusted_data(&self) -> bool {
        match self {
            CaptureError::Txn(TxnError::Sink(_)) => false,
            CaptureError::Txn(_) | CaptureError::Plan(_) => true,
            CaptureError::IncarnationChanged { .. } => true,
            CaptureError::Source(e) => {
                matches!(
                    e,
                    SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. }
                ) || matches!(e.ora_code(), Some(1291 | 1284 | 310))
            }
        }
    }

    /// The missing sequences when capture stopped on an archive gap:
    /// (thread, first sequence, last sequence).
    pub fn archive_gap(&self) -> Option<(u16, u64, u64)> {
        match self {
            CaptureError::Source(SourceError::ArchiveGap {
                thread,
                missing_from,
                missing_to,
            }) => Some((*thread, *missing_from, *missing_to)),
            CaptureError::Plan(PlanError::SequenceGap { thread, from, to }) => {
                Some((*thread, *from, *to))
            }
            _ => None,
        }
    }

    pub fn ora_code(&self) -> Option<u32> {
        match self {
            CaptureError::Source(e) => e.ora_code(),
            CaptureError::Plan(p) => p.to_source_error().ora_code(),
            CaptureError::Txn(_) | CaptureError::IncarnationChanged { .. } => None,
        }
    }

    pub fn advice(&self) -> Option<String> {
        match self {
            CaptureError::Source(e) => e.advice().map(std::borrow::Cow::into_owned),
            CaptureError::Plan(p) => p.to_source_error().advice().map(std::borrow::Cow::into_owned),
            CaptureError::Txn(TxnError::Parse { .. }) => Some(
                "the row is shown above; report it with `cdcctl redo parse`, or rerun with \
                 --on-parse-error warn to send such rows to the dead-letter file"
                    .into(),
            ),
            CaptureError::Txn(_) => None,
            CaptureError::IncarnationChanged { .. } => Some(
                "changes emitted from the old incarnation past its RESETLOGS SCN may never have \
                 happened on the new one: re-snapshot the captured tables, then remove the checkpoint \
                 file and start again"
                    .into(),
            ),
        }
    }
}

/// What one poll did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A window was mined.
    Advanced { rows: u64 },
    /// Nothing new: every thread's redo on disk was read.
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
    /// The start point of a first start while the transactions under way
    /// there are still to be read from their own start.
    first_start: Option<Scn>,
    /// The database incarnation capture started in; checkpoints record it.
    incarnation: Incarnation,
    /// The inventory of the last plan, valid while no thread switched logs.
    inventory: Option<CachedInventory>,
    /// Database time the running LogMiner session's files were added.
    session_since: Option<NaiveDateTime>,
    /// Polls in a row that read no row (they lengthen the pause).
    empty_polls: u32,
    /// The redo end a short window last waited at.
    waited_at: Option<Scn>,
    /// LOB columns already reported as unavailable (reported once).
    lob_reported: BTreeSet<(TableName, String)>,
    /// Commits at or below this SCN are not the capture's to emit (a first
    /// start's start point); [`Self::consistent_scn`] waits for it.
    start_scn: Scn,
    /// Bytes of SQL_REDO text read since the start.
    redo_bytes: u64,
    /// SQL_REDO and USERNAME of buffered rows, when a screen wants them.
    book: Option<RedoBook>,
    /// The mined SCN the archives ahead were last checked at.
    archives_checked: Option<Scn>,
    /// LOB columns already handed out as `LobUnavailable`, by either source.
    lob_told: BTreeSet<(String, String, String)>,
    /// A source whose rollbacks leave no end row (DM8): the transactions it
    /// listed open, see [`EndedCheck`].
    ended_check: Option<EndedCheck>,
    /// The source refused to list its open transactions (told once).
    ended_unlisted: bool,
}

/// The open transactions a DM8 source listed (`V$TRX`): once the redo up to
/// `listed_by` is read, a buffered transaction started at or below
/// `listed_from` and not listed has ended without a COMMIT row: it rolled
/// back.
struct EndedCheck {
    listed_from: Scn,
    listed_by: Scn,
    open: std::collections::HashSet<String>,
}

/// The log inventory as last read, with what it was read for.
struct CachedInventory {
    /// Per thread: number, CURRENT sequence, status, enabled. A change in any
    /// (a log switch, an instance opening or closing) means new files.
    key: Vec<(u16, u64, String, String)>,
    /// Archived logs were read for windows starting after this SCN.
    from_scn: Scn,
    inventory: LogInventory,
}

fn threads_key(threads: &[RedoThread]) -> Vec<(u16, u64, String, String)> {
    threads
        .iter()
        .map(|t| {
            (
                t.thread,
                t.current_sequence,
                t.status.clone(),
                t.enabled.clone(),
            )
        })
        .collect()
}

impl<S: RedoSource> Capture<S> {
    /// Resolves the start position and prepares the buffer.
    pub fn new(mut source: S, mut config: CaptureConfig) -> Result<Self, CaptureError> {
        config.buffer.dialect = source.dialect();
        let mut warnings = Vec::new();
        let mut first_start = None;
        let incarnation = source.incarnation()?;
        let mut start_scn = 0;
        let (buffer, mined_scn) = match &config.start {
            StartAt::Checkpoint(cp) => {
                if let Some(stored) = cp.incarnation.filter(|s| *s != incarnation) {
                    return Err(CaptureError::IncarnationChanged {
                        stored,
                        current: incarnation,
                    });
                }
                (TxnBuffer::resume(config.buffer.clone(), cp), cp.restart_scn)
            }
            start => {
                let scn = match start {
                    StartAt::Scn(scn) => *scn,
                    _ => source.current_scn()?.scn,
                };
                let in_flight = match inflight::open_transactions(&mut source) {
                    Ok(open) => inflight::in_flight_at(&open, scn, config.pdb.as_deref()),
                    // Without V$TRANSACTION the transactions under way come
                    // out marked partial instead of whole.
                    Err(e) if matches!(e.ora_code(), Some(942 | 1031)) => {
                        warnings.push(TxnWarning::OpenTransactionsUnreadable {
                            error: e.to_string(),
                        });
                        Vec::new()
                    }
                    Err(e) => return Err(e.into()),
                };
                if !in_flight.is_empty() {
                    first_start = Some(scn);
                }
                start_scn = scn;
                let buffer = TxnBuffer::starting_after(config.buffer.clone(), scn, &in_flight);
                let from = buffer.restart_scn();
                (buffer, from)
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
            warnings,
            partial_reported: BTreeSet::new(),
            first_start,
            incarnation,
            inventory: None,
            session_since: None,
            empty_polls: 0,
            waited_at: None,
            lob_reported: BTreeSet::new(),
            start_scn,
            redo_bytes: 0,
            book: None,
            archives_checked: None,
            lob_told: BTreeSet::new(),
            ended_check: None,
            ended_unlisted: false,
        })
    }

    /// Keeps what a screen shows beyond the envelope: each change's
    /// SQL_REDO and USERNAME (up to `max_bytes` of redo text held for open
    /// transactions) and the list of every open transaction in the status.
    pub fn keep_detail(&mut self, max_bytes: usize) {
        self.book = Some(RedoBook::new(max_bytes));
    }

    /// SQL_REDO and USERNAME of the changes emitted since the last call.
    pub fn take_redo_detail(&mut self) -> Vec<super::metrics::RedoDetail> {
        self.book.as_mut().map(RedoBook::take).unwrap_or_default()
    }

    /// How long to wait before the next poll: nothing after a window that
    /// returned rows, then a pause that doubles with each poll that read
    /// nothing, up to `PollConfig::max_idle_pause`.
    pub fn pause(&self) -> Duration {
        let p = &self.config.polling;
        if self.empty_polls == 0 {
            return Duration::ZERO;
        }
        let doublings = (self.empty_polls - 1).min(16);
        p.min_idle_pause
            .saturating_mul(1 << doublings)
            .min(p.max_idle_pause)
    }

    /// The source, for callers that drive a simulator's clock between polls.
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    pub fn status(&self) -> &CaptureStatus {
        &self.status
    }

    /// Bytes of SQL_REDO text read since the start (the load on the
    /// source and the parser).
    pub fn redo_bytes(&self) -> u64 {
        self.redo_bytes
    }

    /// Bytes written to spill files since the start.
    pub fn spilled_bytes(&self) -> u64 {
        self.buffer.stats().spilled_bytes
    }

    /// Where a restart would resume without loss or repetition.
    pub fn checkpoint(&self) -> Checkpoint {
        self.buffer
            .checkpoint()
            .with_incarnation(Some(self.incarnation))
    }

    /// Findings since the last call: the buffer's (parser, STATUS=2) and the
    /// engine's own dictionary checks.
    pub fn take_findings(&mut self) -> Vec<TxnFinding> {
        let mut all = self.buffer.take_findings();
        all.append(&mut self.findings);
        // The buffer reports a LOB column of an insert or of LOB rows, the
        // engine one missing from an update image: once per column in all.
        // DM8's OUT_CLOB columns come on every change of the row, so they
        // are told once too (a source is Oracle or DM8, never both, so the
        // two kinds never share a column).
        let told = &mut self.lob_told;
        all.retain(|f| match &f.finding {
            Finding::LobUnavailable {
                schema,
                table,
                column,
            }
            | Finding::LobNotLogged {
                schema,
                table,
                column,
            } => told.insert((schema.clone(), table.clone(), column.clone())),
            _ => true,
        });
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

    /// The SCN every commit up to which was emitted, and none above: a
    /// snapshot read `AS OF` it joins the stream without a gap or a repeat.
    /// `None` while a first start still reads the transactions that were
    /// under way at its start point, below that point.
    pub fn consistent_scn(&self) -> Option<Scn> {
        (self.mined_scn >= self.start_scn).then_some(self.mined_scn)
    }

    /// Reconnects after someone else using the source saw the connection
    /// drop, and re-mines from the restart SCN as after its own errors.
    pub fn reconnect(&mut self) {
        self.recover();
    }

    /// Ends capture and hands the source back (a restart reuses the connection).
    pub fn into_source(self) -> S {
        self.source
    }

    /// Marks the capture finished: its caller reached the end it was asked
    /// for (an event count), which the status then shows.
    pub fn mark_finished(&mut self) {
        self.status.state = MiningState::Finished;
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
                match p {
                    Progress::Advanced { rows } if rows > 0 => self.empty_polls = 0,
                    Progress::Advanced { .. } | Progress::Idle => {
                        self.empty_polls = self.empty_polls.saturating_add(1)
                    }
                    Progress::Retrying | Progress::Finished => {}
                }
                if p == Progress::Finished {
                    self.status.state = MiningState::Finished;
                }
                Ok(p)
            }
            Err(CaptureError::Source(e))
                if e.is_transient() && self.retries < self.config.max_retries =>
            {
                self.retries += 1;
                tracing::info!(attempt = self.retries, error = %e, "reconnecting");
                self.status.state = MiningState::Retrying {
                    attempt: self.retries,
                    error: e.to_string(),
                    advice: e.advice().map(std::borrow::Cow::into_owned),
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
        let mut fresh = TxnBuffer::resume(self.config.buffer.clone(), &cp);
        fresh.carry_totals_from(&self.buffer);
        self.buffer = fresh;
        // Before its first complete window the buffer knows no position
        // (restart SCN 0): mining restarts where it started.
        if cp.restart_scn > 0 {
            self.mined_scn = cp.restart_scn;
        }
        self.last_plan = None;
        self.session_since = None;
        self.inventory = None;
        // Rows are mined again from the restart SCN: their text with them.
        if let Some(book) = self.book.as_mut() {
            book.retain_open(std::iter::empty());
        }
    }

    fn poll_once(
        &mut self,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Progress, CaptureError> {
        // Every transaction started at or below the SCN read by the last
        // poll is either listed now or over.
        let listed_from = self.status.current_scn;
        let listed = if self.source.dialect() == Dialect::Dm
            && self.ended_check.is_none()
            && self.buffer.open_count() > 0
        {
            match self.source.open_transactions() {
                Ok(open) => Some(open),
                Err(e) if e.is_transient() => return Err(e.into()),
                // Without the list a rolled-back transaction stays buffered:
                // nothing is lost, the restart SCN waits at its start.
                Err(e) => {
                    if !self.ended_unlisted {
                        self.ended_unlisted = true;
                        tracing::warn!(error = %e, "cannot list open transactions (V$TRX): DM8 rollbacks keep the restart SCN at their start");
                    }
                    None
                }
            }
        } else {
            None
        };
        let now = self.source.current_scn()?;
        if let Some(open) = listed {
            self.ended_check = Some(EndedCheck {
                listed_from,
                listed_by: now.scn,
                open: open.into_iter().map(|t| t.xid).collect(),
            });
        }
        self.status.current_scn = now.scn;
        self.status.current_time = Some(now.time);
        self.status.polled_at = Some(Instant::now());
        let mut upper = now.scn;
        if let Some(until) = self.config.until_scn {
            if self.mined_scn >= until {
                return Ok(Progress::Finished);
            }
            upper = upper.min(until);
        }
        // Only redo the log writers have put on disk can be mined; the
        // window never reaches past it, on one instance or many.
        let threads = self.source.redo_threads()?;
        if let Some(flushed) = flushed_redo_end(&threads) {
            upper = upper.min(flushed);
        }
        if self.window_is_idle(upper) {
            self.status.state = MiningState::Idle;
            // Caught up with the redo on disk: the redo clock is the database's.
            self.status.mined_time = Some(now.time);
            return Ok(Progress::Idle);
        }
        let plan = self.plan_window(&threads, upper)?;
        if plan.is_empty() {
            self.status.state = MiningState::Idle;
            self.status.mined_time = Some(now.time);
            return Ok(Progress::Idle);
        }
        let plan = self.start_session(plan, now.time)?;
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
        let query = ContentsQuery {
            from_scn: plan.from_scn,
            to_scn: plan.end_scn,
            owners: self.owners.clone(),
            pdb: self.config.pdb.clone(),
        };
        self.source.query_contents(&query)?;
        let dialect = self.source.dialect();
        let mut read = 0u64;
        loop {
            self.rows.clear();
            let n = self.source.fetch(self.config.fetch_rows, &mut self.rows)?;
            if n == 0 {
                break;
            }
            read += n as u64;
            for row in self.rows.drain(..) {
                self.redo_bytes += row.sql_redo.as_ref().map_or(0, |r| r.len() as u64);
                self.status.mined_scn = self.status.mined_scn.max(row.scn);
                if row.timestamp.is_some() {
                    self.status.mined_time = row.timestamp;
                }
                if !wanted(&self.config.tables, &row) {
                    continue;
                }
                if let Some(book) = self.book.as_mut() {
                    book.record(&row);
                }
                let end = self.book.is_some().then(|| row.clone());
                let book = &mut self.book;
                let mut checked = |mut e: CapturedEvent| {
                    if let CapturedEvent::Change(c) = &mut e {
                        if let Some(book) = book.as_mut() {
                            book.emitted(c);
                        }
                        fill_unlogged_lobs(
                            &self.config.lob_columns,
                            &mut self.lob_reported,
                            &mut self.findings,
                            c,
                        );
                        mark_binary_columns(&self.config.binary_columns, c);
                        check_before_image(
                            &self.config.key_columns,
                            dialect,
                            &mut self.partial_reported,
                            &mut self.findings,
                            c,
                        );
                    }
                    sink(e)
                };
                self.buffer.push(row, &mut checked)?;
                if let (Some(book), Some(end)) = (self.book.as_mut(), end) {
                    book.after(&end);
                }
            }
        }
        self.buffer.finish_window(plan.end_scn, sink)?;
        if let Some(check) = self.ended_check.take_if(|c| plan.end_scn >= c.listed_by) {
            self.buffer.drop_ended(&check.open, check.listed_from);
        }
        self.warnings.extend(self.buffer.abandon_expired());
        tracing::trace!(rows = read, to = plan.end_scn, "window mined");
        self.mined_scn = plan.end_scn;
        self.status.rows_read += read;
        self.status.mined_scn = plan.end_scn;
        if read == 0 {
            // The window held nothing for us: the redo up to its end is read,
            // so capture is as current as the poll, not as the last row.
            self.status.mined_time = Some(now.time);
        }
        self.refresh_status();
        if self.config.until_scn.is_some_and(|u| self.mined_scn >= u) {
            return Ok(Progress::Finished);
        }
        Ok(Progress::Advanced { rows: read })
    }

    /// Where the next session starts reading: the buffer's restart SCN
    /// (the oldest open transaction's start), never above what was mined.
    fn session_floor(&self) -> Scn {
        self.buffer.restart_scn().min(self.mined_scn)
    }

    /// The session starts after the buffer's restart SCN (the oldest open
    /// transaction's start) while `SCN > mined_scn` keeps rows already read
    /// out, so LogMiner sees each open transaction's start and gives its
    /// undo rows their full XID. When the logs back there are gone, the
    /// session starts at the window and the buffer matches such undo rows
    /// by undo segment and slot.
    ///
    /// At a first start, the transactions already under way are read from
    /// their start; when their logs are gone the window starts at the start
    /// point and their events come out marked partial.
    fn plan(
        &mut self,
        inventory: &crate::engine::port::LogInventory,
        upper: Scn,
    ) -> Result<SessionPlan, PlanError> {
        let cfg = &self.config.planner;
        let restart = self.session_floor();
        let planned = session::plan_from(inventory, restart, self.mined_scn, upper, cfg);
        let gone = matches!(
            planned,
            Err(PlanError::StartScnNotCovered { .. } | PlanError::SequenceGap { .. })
        );
        match self.first_start.take() {
            Some(start) if gone => {
                self.buffer.forget_in_flight();
                self.mined_scn = self.mined_scn.max(start);
                self.warnings
                    .push(TxnWarning::InFlightLogsMissing { start_scn: start });
                session::plan(inventory, self.mined_scn, upper, cfg)
            }
            _ if gone && restart < self.mined_scn => {
                session::plan(inventory, self.mined_scn, upper, cfg)
            }
            _ => planned,
        }
    }

    /// Whether the window up to `upper` is not worth a session: empty or
    /// inverted (START_LOGMNR would raise ORA-01281), or narrower than
    /// `min_window_scns` the first time the redo end is seen there.
    fn window_is_idle(&mut self, upper: Scn) -> bool {
        if upper <= self.mined_scn {
            return true;
        }
        let narrow = upper - self.mined_scn < self.config.polling.min_window_scns
            && Some(upper) != self.config.until_scn;
        if narrow && self.waited_at != Some(upper) {
            self.waited_at = Some(upper);
            return true;
        }
        self.waited_at = None;
        false
    }

    /// Plans `(mined_scn, upper]` from the cached inventory when no thread
    /// switched logs since it was read, else from a fresh one. A plan that
    /// fails on a cached inventory is tried once more on a fresh one before
    /// the failure counts.
    fn plan_window(
        &mut self,
        threads: &[RedoThread],
        upper: Scn,
    ) -> Result<SessionPlan, CaptureError> {
        let key = threads_key(threads);
        let cached = self
            .inventory
            .as_ref()
            .is_some_and(|c| c.key == key && c.from_scn <= self.session_floor());
        if !cached {
            self.refresh_inventory(threads)?;
        }
        let planned = self.plan_from_cache(threads, upper);
        match planned {
            Err(_) if cached => {
                self.refresh_inventory(threads)?;
                self.plan_from_cache(threads, upper)
            }
            other => other,
        }
    }

    fn plan_from_cache(
        &mut self,
        threads: &[RedoThread],
        upper: Scn,
    ) -> Result<SessionPlan, CaptureError> {
        let Some(cache) = self.inventory.as_mut() else {
            return Err(CaptureError::Source(SourceError::Invalid(
                "no log inventory was read".into(),
            )));
        };
        cache.inventory.threads = threads.to_vec();
        if cache.inventory.resetlogs_change != self.incarnation.resetlogs_change {
            return Err(CaptureError::IncarnationChanged {
                stored: self.incarnation,
                current: self.source.incarnation()?,
            });
        }
        // `plan` needs the whole capture; the cache is put back afterwards.
        let Some(cache) = self.inventory.take() else {
            return Err(CaptureError::Source(SourceError::Invalid(
                "no log inventory was read".into(),
            )));
        };
        let planned = self.plan(&cache.inventory, upper);
        self.inventory = Some(cache);
        Ok(planned?)
    }

    /// Reads the inventory for sessions starting after the restart SCN:
    /// V$ARCHIVED_LOG only from the chosen destination and above the SCN.
    fn refresh_inventory(&mut self, threads: &[RedoThread]) -> Result<(), CaptureError> {
        self.inventory = None;
        let from_scn = self.session_floor();
        let mut inventory = self.source.online_inventory()?;
        inventory.threads = threads.to_vec();
        match session::choose_destination(&inventory, &self.config.planner) {
            Ok(Some(dest_id)) => {
                inventory.archived = self.source.archived_logs_from(from_scn, dest_id)?;
            }
            Ok(None) => {}
            // No usable destination: whether that matters depends on every
            // archived row, so read them all to let the planner say why.
            Err(_) => inventory = self.source.log_inventory()?,
        }
        self.note_archives_ahead(&inventory);
        self.inventory = Some(CachedInventory {
            key: threads_key(threads),
            from_scn,
            inventory,
        });
        Ok(())
    }

    /// Starts (or reuses) the LogMiner session for `plan`. A session whose
    /// files changed, or that has lived `max_session_age`, is ended first.
    /// A log gone between reading the inventory and START_LOGMNR (archiver
    /// or RMAN racing us: ORA-01291, ORA-00310, ORA-01284) is retried once
    /// on a fresh inventory.
    fn start_session(
        &mut self,
        plan: SessionPlan,
        now: NaiveDateTime,
    ) -> Result<SessionPlan, CaptureError> {
        match self.try_start(&plan, now) {
            Err(CaptureError::Source(e)) if matches!(e.ora_code(), Some(1291 | 310 | 1284)) => {
                let _ = self.source.end_session();
                self.last_plan = None;
                self.session_since = None;
                let threads = self.source.redo_threads()?;
                self.refresh_inventory(&threads)?;
                let upper = plan.end_scn;
                let plan = self.plan_from_cache(&threads, upper)?;
                if plan.is_empty() {
                    return Err(CaptureError::Source(e));
                }
                self.try_start(&plan, now)?;
                Ok(plan)
            }
            Err(e) => Err(e),
            Ok(()) => Ok(plan),
        }
    }

    fn try_start(&mut self, plan: &SessionPlan, now: NaiveDateTime) -> Result<(), CaptureError> {
        let max_age = chrono::Duration::from_std(self.config.polling.max_session_age)
            .unwrap_or(chrono::Duration::MAX);
        let young = self
            .session_since
            .is_some_and(|since| now - since < max_age);
        // Reuse the running session while the log set stays the same: only
        // the SCN range changes. A new set means END_LOGMNR and new files.
        let reuse = young && self.last_plan.as_ref().is_some_and(|p| p.same_logs(plan));
        if !reuse && self.last_plan.take().is_some() {
            self.source.end_session()?;
        }
        if !reuse {
            self.session_since = Some(now);
        }
        tracing::debug!(
            reuse,
            start = plan.session_start,
            from = plan.from_scn,
            to = plan.end_scn,
            logs = %plan
                .logs
                .iter()
                .map(|l| format!("t{}#{}", l.thread, l.sequence))
                .collect::<Vec<_>>()
                .join(","),
            "mining session"
        );
        self.source.start_session(&plan.request())?;
        self.last_plan = Some(plan.clone());
        Ok(())
    }

    fn refresh_status(&mut self) {
        self.buffer.fill_status(&mut self.status);
        self.status.findings += self.findings.len() as u64;
        if let Some(book) = self.book.as_mut() {
            self.status.buffered = self.buffer.open_transactions();
            book.retain_open(self.status.buffered.iter().map(|t| t.xid.as_str()));
        }
    }

    /// Looks for archived logs past the read position that the database
    /// no longer has, from a fresh V$ARCHIVED_LOG reading; the status lists
    /// them. Capture itself goes on: it stops only when it reaches one.
    pub fn check_archives_ahead(&mut self) -> Result<(), SourceError> {
        let threads = self.source.redo_threads()?;
        let mut inventory = self.source.online_inventory()?;
        inventory.threads = threads;
        match session::choose_destination(&inventory, &self.config.planner) {
            Ok(Some(dest_id)) => {
                inventory.archived = self.source.archived_logs_from(self.mined_scn, dest_id)?;
            }
            Ok(None) => {}
            Err(_) => inventory = self.source.log_inventory()?,
        }
        self.note_archives_ahead(&inventory);
        Ok(())
    }

    fn note_archives_ahead(&mut self, inventory: &LogInventory) {
        self.status.archives_missing_ahead = missing_ahead(inventory, self.mined_scn);
        self.archives_checked = Some(self.mined_scn);
    }
}

/// Archived logs past the one holding `mined_scn` that the database no
/// longer has: per thread, each sequence from the one being mined up to
/// the oldest online log must have an available row in V$ARCHIVED_LOG
/// (of the current incarnation). A sequence with only deleted or
/// unavailable rows, or with no row at all, is missing.
pub fn missing_ahead(inventory: &LogInventory, mined_scn: Scn) -> Vec<MissingArchive> {
    let current = |a: &&crate::engine::port::ArchivedLog| {
        inventory.resetlogs_change == 0 || a.resetlogs_change == inventory.resetlogs_change
    };
    let mut out = Vec::new();
    let mut threads: BTreeSet<u16> = inventory.archived.iter().map(|a| a.thread).collect();
    threads.extend(inventory.online.iter().map(|o| o.thread));
    for thread in threads {
        let rows: Vec<&crate::engine::port::ArchivedLog> = inventory
            .archived
            .iter()
            .filter(current)
            .filter(|a| a.thread == thread)
            .collect();
        let Some(online_min) = inventory
            .online
            .iter()
            .filter(|o| o.thread == thread && o.status != "UNUSED")
            .map(|o| o.sequence)
            .min()
        else {
            continue;
        };
        // The log being mined: the one holding the read position, else
        // the oldest listed that is still needed.
        let mining = rows
            .iter()
            .filter(|a| a.first_change <= mined_scn && mined_scn < a.next_change)
            .map(|a| a.sequence)
            .min()
            .or_else(|| {
                rows.iter()
                    .filter(|a| a.next_change > mined_scn)
                    .map(|a| a.sequence)
                    .min()
            });
        let Some(mining) = mining else {
            continue;
        };
        for seq in mining + 1..online_min {
            let copies: Vec<&&crate::engine::port::ArchivedLog> =
                rows.iter().filter(|a| a.sequence == seq).collect();
            if copies.iter().any(|a| a.is_available()) {
                continue;
            }
            let state = if copies.is_empty() {
                "NOT LISTED"
            } else if copies.iter().any(|a| a.deleted || a.status == "D") {
                "DELETED"
            } else {
                "UNAVAILABLE"
            };
            out.push(MissingArchive {
                thread,
                sequence: seq,
                state,
            });
        }
    }
    out
}

/// Marks the values of binary columns as bytes. The parser cannot tell a
/// RAW value from character data LogMiner printed as hex, nor an unlogged
/// BLOB from an unlogged CLOB; the dictionary can.
fn mark_binary_columns(binary: &BTreeMap<TableName, Vec<String>>, change: &mut ChangeEvent) {
    if binary.is_empty() {
        return;
    }
    let name = TableName {
        owner: change.source.schema.clone(),
        table: change.source.table.clone(),
    };
    let Some(columns) = binary.get(&name) else {
        return;
    };
    for image in [change.before.as_mut(), change.after.as_mut()]
        .into_iter()
        .flatten()
    {
        image.update(|column, field| {
            // Values already binary (HEXTORAW) or NULL stay as they are:
            // most values of a RAW column, so no copy is made for them.
            if matches!(
                field,
                FieldRef::Binary(_) | FieldRef::Null | FieldRef::UnavailableBinary
            ) || !columns.iter().any(|c| c == column)
            {
                return None;
            }
            let binary = field.to_field().into_binary();
            (binary != field).then_some(binary)
        });
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
            if !image.contains(column) {
                image.push(column, &Field::Unavailable);
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
    dialect: Dialect,
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
    let has_key = key.iter().all(|k| before.contains(k));
    // On DM8 the WHERE carries the whole before image or, at
    // RLOG_APPEND_LOGIC = 1, the key alone. (A table of key columns only
    // is reported too: no finer test tells the two apart from the row.)
    if dialect == Dialect::Dm && !key.is_empty() && has_key && before.len() == key.len() {
        if reported.insert(name) {
            findings.push(TxnFinding {
                xid: change.source.xid.clone(),
                scn: change.source.scn,
                finding: Finding::KeyOnlyBeforeImage {
                    schema: change.source.schema.clone(),
                    table: change.source.table.clone(),
                },
            });
        }
        return;
    }
    if key.is_empty() || has_key {
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

/// Owner patterns for the query's owner filter (`%` and `_` keep their
/// `LIKE` meaning there, as in [`wanted`]); none when a pattern matches
/// every owner.
fn owners_of(tables: &[TablePattern]) -> Vec<String> {
    if tables.is_empty() || tables.iter().any(|t| t.owner.chars().all(|c| c == '%')) {
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
            let name = crate::engine::port::TableName {
                owner: owner.clone(),
                table: table.clone(),
            };
            tables.iter().any(|p| p.matches(&name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::port::{
        ArchiveDestStatus, LogInventory, OnlineLog, OpenTransaction, RedoThread, ScnTime,
        SessionRequest, SnapshotChunk, TableName,
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
        /// (STARTSCN, query's `SCN >` bound) of each window.
        windows: Vec<(Scn, Scn)>,
        /// What `V$TRANSACTION` answers.
        open: Vec<OpenTransaction>,
        /// START_LOGMNR calls (1-based) that fail with ORA-01291.
        fail_on_start: Vec<u32>,
        /// Reads of the log inventory (V$THREAD alone not counted).
        inventories: u32,
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
                windows: Vec::new(),
                open: Vec::new(),
                fail_on_start: Vec::new(),
                inventories: 0,
            }
        }

        fn thread(&self) -> RedoThread {
            RedoThread {
                thread: 1,
                status: "OPEN".into(),
                enabled: "PUBLIC".into(),
                current_sequence: 1,
                last_redo_scn: self.now,
                ..RedoThread::default()
            }
        }
    }

    impl RedoSource for ScriptedSource {
        fn describe(&self) -> String {
            "scripted".into()
        }
        fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
            // Redo up to 120 is on disk once LAST_REDO_CHANGE# reaches 121.
            self.now = (self.now + self.step).min(121);
            // One second of database time per SCN; the rows were written at SCN 100's time.
            Ok(ScnTime {
                scn: self.now,
                time: ts() + chrono::Duration::seconds(self.now as i64 - 100),
            })
        }
        fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
            Ok(vec![self.thread()])
        }
        fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
            self.inventories += 1;
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
                threads: vec![self.thread()],
            })
        }
        fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
            Ok(self.open.clone())
        }
        fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
            Ok(Incarnation {
                resetlogs_change: 1,
                resetlogs_time: ts(),
            })
        }
        fn start_session(&mut self, r: &SessionRequest) -> Result<(), SourceError> {
            assert!(!r.options.continuous_mine);
            self.starts += 1;
            self.windows.push((r.start_scn, 0));
            if self.fail_on_start.contains(&self.starts) {
                return Err(SourceError::oracle(1291, "missing logfile"));
            }
            Ok(())
        }
        fn query_contents(&mut self, q: &ContentsQuery) -> Result<(), SourceError> {
            self.query = Some((q.from_scn, q.to_scn));
            if let Some(w) = self.windows.last_mut() {
                w.1 = q.from_scn;
            }
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
        capture_with(source, StartAt::Scn(100), PollConfig::default())
    }

    fn capture_from(source: ScriptedSource, start: StartAt) -> (Vec<String>, ScriptedSource) {
        capture_with(source, start, PollConfig::default())
    }

    fn capture_with(
        source: ScriptedSource,
        start: StartAt,
        polling: PollConfig,
    ) -> (Vec<String>, ScriptedSource) {
        let config = CaptureConfig {
            start,
            until_scn: Some(120),
            // Every window the clock allows, however narrow.
            polling: PollConfig {
                min_window_scns: 1,
                ..polling
            },
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut ids = Vec::new();
        for _ in 0..200 {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if let CapturedEvent::Change(c) = e {
                    let after = c.after.unwrap_or_default();
                    let id = after
                        .get("ORDER_ID")
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
    fn dm8_out_clob_column_is_told_once_across_changes() {
        let update = |scn: Scn, n: u32| {
            row(
                scn,
                "05",
                OperationCode::Update,
                &format!(
                    "UPDATE \"APP\".\"ORDERS\" SET \"NOTE\" = OUT_CLOB(LOB_ID: {n}) \
                     WHERE \"ORDER_ID\" = 1 AND \"NOTE\" = OUT_CLOB"
                ),
            )
        };
        let mut source = ScriptedSource::new(20);
        source.rows = vec![
            row(101, "05", OperationCode::Start, "START"),
            update(102, 1),
            update(103, 2),
            row(104, "05", OperationCode::Commit, "COMMIT"),
        ];
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            until_scn: Some(120),
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut notes = Vec::new();
        let mut findings = Vec::new();
        for _ in 0..50 {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if let CapturedEvent::Change(c) = e {
                    let after = c.after.unwrap_or_default();
                    notes.push(after.get("NOTE").map(FieldRef::to_field));
                }
                Ok(())
            };
            let progress = cap.poll(&mut sink).expect("poll");
            findings.extend(cap.take_findings().into_iter().map(|f| f.finding));
            if matches!(progress, Progress::Finished) {
                break;
            }
        }
        assert_eq!(notes, [Some(Field::Unavailable), Some(Field::Unavailable)]);
        assert_eq!(
            findings,
            [Finding::LobNotLogged {
                schema: "APP".into(),
                table: "ORDERS".into(),
                column: "NOTE".into(),
            }]
        );
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
    fn session_starts_at_the_oldest_open_transaction_and_reads_only_new_rows() {
        let (ids, source) = capture_all(ScriptedSource::new(1));
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
        // 02 starts at 103 and commits at 111: windows in between start
        // their session at 103 but ask only for rows past what was read.
        let inside: Vec<_> = source
            .windows
            .iter()
            .filter(|(_, from)| (107..111).contains(from))
            .collect();
        assert!(!inside.is_empty(), "{:?}", source.windows);
        assert!(inside.iter().all(|(start, _)| *start == 103), "{inside:?}");
        assert!(source
            .windows
            .iter()
            .all(|(start, from)| start <= &(from + 1)));
        let (start, from) = source.windows.last().copied().unwrap_or_default();
        assert_eq!(start, from + 1, "nothing open at the end");
    }

    #[test]
    fn start_now_inside_open_transactions_mines_them_from_their_start() {
        let open = |xid: &str, start_scn| OpenTransaction {
            xid: xid.into(),
            start_scn,
            start_time: None,
            used_urec: 1,
            username: None,
            con_name: None,
        };
        // "Now" is SCN 105: 01 (from 101) and 02 (from 103) are under way.
        let mut source = ScriptedSource::new(5);
        source.open = vec![open("01", 101), open("02", 103)];
        let (ids, source) = capture_from(source, StartAt::Now);
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
        assert_eq!(source.windows.first().map(|w| w.0), Some(101));
        // Without V$TRANSACTION's answer only rows after the start point
        // (SCN 105) are read.
        let (ids, _) = capture_from(ScriptedSource::new(5), StartAt::Now);
        assert_eq!(ids, ["02:5", "04:6"]);
    }

    #[test]
    fn inventory_is_read_once_while_no_thread_switches_logs() {
        let (_, source) = capture_all(ScriptedSource::new(2));
        assert!(source.starts > 5, "{} windows", source.starts);
        // One read of the logs and destinations plus one of V$ARCHIVED_LOG.
        assert_eq!(source.inventories, 2);
    }

    #[test]
    fn archiver_race_at_start_logmnr_is_retried_once_on_a_fresh_inventory() {
        let mut source = ScriptedSource::new(3);
        source.fail_on_start = vec![2];
        let (ids, source) = capture_all(source);
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
        assert_eq!(source.reconnects, 0, "no reconnect for a log race");
        assert_eq!(source.inventories, 4, "the inventory was read again");
    }

    #[test]
    fn a_second_missing_log_in_a_row_stops_capture_with_ora_01291() {
        let mut source = ScriptedSource::new(3);
        source.fail_on_start = vec![2, 3];
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            until_scn: Some(120),
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
        let err = (0..50)
            .find_map(|_| cap.poll(&mut sink).err())
            .expect("a log missing twice stops capture");
        assert_eq!(err.ora_code(), Some(1291));
    }

    #[test]
    fn an_old_session_is_ended_and_its_files_added_again() {
        // Database time runs one second per SCN: a session may live 5 s.
        let polling = PollConfig {
            max_session_age: Duration::from_secs(5),
            ..PollConfig::default()
        };
        let (ids, source) = capture_with(ScriptedSource::new(2), StartAt::Scn(100), polling);
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
        assert!(source.ends >= 2, "{} END_LOGMNR", source.ends);
        assert!(source.ends < source.starts);
    }

    #[test]
    fn issue8_lag_does_not_grow_while_windows_advance_without_rows() {
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            polling: PollConfig {
                min_window_scns: 1,
                ..PollConfig::default()
            },
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(ScriptedSource::new(2), config).expect("start");
        let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
        for _ in 0..40 {
            cap.poll(&mut sink).expect("poll");
        }
        // The last row was written at SCN 114, seven seconds before the
        // clock stopped at 121; every window since read nothing new.
        assert_eq!(cap.status().mined_scn, 120);
        assert_eq!(cap.status().time_lag_s(), Some(0));
    }

    #[test]
    fn idle_pause_doubles_up_to_its_bound_and_resets_on_rows() {
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            polling: PollConfig {
                min_idle_pause: Duration::from_millis(100),
                max_idle_pause: Duration::from_millis(700),
                min_window_scns: 1,
                ..PollConfig::default()
            },
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(ScriptedSource::new(30), config).expect("start");
        let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
        assert_eq!(
            cap.poll(&mut sink).expect("poll"),
            Progress::Advanced { rows: 14 }
        );
        assert_eq!(cap.pause(), Duration::ZERO);
        let mut pauses = Vec::new();
        for _ in 0..5 {
            cap.poll(&mut sink).expect("poll");
            pauses.push(cap.pause().as_millis());
        }
        assert_eq!(pauses, [100, 200, 400, 700, 700]);
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
    fn issue11_operation_counts_survive_a_reconnect() {
        let mut source = ScriptedSource::new(20);
        source.fail_on_fetch = vec![8, 9];
        let config = CaptureConfig {
            start: StartAt::Scn(100),
            until_scn: Some(120),
            polling: PollConfig {
                min_window_scns: 1,
                ..PollConfig::default()
            },
            ..CaptureConfig::default()
        };
        let mut cap = Capture::new(source, config).expect("start");
        let mut emitted = 0u64;
        for _ in 0..200 {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if matches!(e, CapturedEvent::Change(_)) {
                    emitted += 1;
                }
                Ok(())
            };
            if matches!(cap.poll(&mut sink), Ok(Progress::Finished)) {
                break;
            }
        }
        let c = cap.status().counts;
        assert_eq!(cap.source.reconnects, 2);
        assert_eq!(c.inserts + c.updates + c.deletes, emitted);
        assert_eq!(emitted, 5);
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
    fn archives_deleted_or_unlisted_ahead_of_the_read_position_are_named() {
        use crate::engine::port::ArchivedLog;
        let arch = |seq: u64, first: Scn, status: &str| ArchivedLog {
            name: (status == "A").then(|| format!("/arch/1_{seq}.arc")),
            dest_id: 1,
            thread: 1,
            sequence: seq,
            first_change: first,
            next_change: first + 100,
            status: status.into(),
            deleted: status == "D",
            archived: true,
            ..ArchivedLog::default()
        };
        let inventory = LogInventory {
            archived: vec![
                arch(10, 1_000, "A"),
                arch(11, 1_100, "A"),
                arch(12, 1_200, "D"),
                // 13 has no row at all.
                arch(14, 1_400, "A"),
            ],
            online: vec![OnlineLog {
                thread: 1,
                sequence: 15,
                status: "CURRENT".into(),
                ..OnlineLog::default()
            }],
            ..LogInventory::default()
        };
        let missing = missing_ahead(&inventory, 1_050);
        let got: Vec<(u64, &str)> = missing.iter().map(|m| (m.sequence, m.state)).collect();
        assert_eq!(got, [(12, "DELETED"), (13, "NOT LISTED")]);
        assert!(
            missing_ahead(&inventory, 1_450).is_empty(),
            "behind the read position they are history"
        );
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

    #[test]
    fn owners_with_underscores_or_wildcards_are_still_pushed_down() {
        let pats = [
            TablePattern::parse("APP_DATA.ORDERS").expect("pattern"),
            TablePattern::parse("HR%.EMP").expect("pattern"),
        ];
        assert_eq!(owners_of(&pats), ["APP_DATA", "HR%"]);
    }
}
