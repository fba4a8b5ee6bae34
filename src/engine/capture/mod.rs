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
//! log, an unparseable row) stop the loop with the evidence. A DM8 source
//! that cannot list its open transactions (V$TRX) stops it too, with the
//! grant to give: DM8 ends a rollback with no row, and only that list tells
//! a rolled-back transaction from one still open.

mod checks;
mod drift;
mod error;
#[cfg(test)]
mod tests;
mod timing;
mod window;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use super::checkpoint::Checkpoint;
use super::detail::RedoBook;
use super::emit::SinkError;
use super::event::{CapturedEvent, Op};
use super::finding::Finding;
use super::inflight;
use super::metrics::{CaptureStatus, MinedLog, MiningState};
use super::port::{
    flushed_redo_end, ContentsQuery, Dialect, Incarnation, LogInventory, RedoSource, SourceError,
    TableName, TablePattern,
};
use super::row::{LogMinerRow, OperationCode, Scn};
use super::session::{PlannerConfig, SessionPlan};
use super::txn::{BufferConfig, TxnBuffer, TxnFinding, TxnWarning};
use checks::{check_change, Dictionary};
pub use error::CaptureError;

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
    /// Consecutive transient errors tolerated before giving up; with the
    /// pauses between them ([`Capture::retry_pause`]) the default of 10
    /// rides out some three minutes of outage (a listener restart, a
    /// service moving to another RAC instance).
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
    /// Every column of the captured tables, from the catalog: an UPDATE or
    /// DELETE image lacking one that is not a LOB gets the unavailable
    /// marker too (a `column_unavailable` finding, once per column), so no
    /// event leaves a column out.
    pub columns: BTreeMap<TableName, Vec<String>>,
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
            max_retries: 10,
            key_columns: BTreeMap::new(),
            polling: PollConfig::default(),
            lob_columns: BTreeMap::new(),
            columns: BTreeMap::new(),
            binary_columns: BTreeMap::new(),
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
    /// The last reconnect failed: the next poll begins with another, whose
    /// error (ORA-12541 while the listener is down) is the one reported
    /// rather than the "not connected" of the first call without it.
    reconnect_due: bool,
    rows: Vec<LogMinerRow>,
    findings: Vec<TxnFinding>,
    /// DM8 only: changes mined after a DDL they precede.
    drift: drift::DriftWatch,
    /// When the session's memory was last asked for.
    memory_at: Option<Instant>,
    switches_at: Option<Instant>,
    /// Switches per hour from the log history, when the source has one:
    /// the logs ahead of the reader tell little while it keeps up.
    switch_rate: Option<f64>,
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
    /// Columns already reported as unavailable (reported once).
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
    /// Windows end at or below this SCN: a snapshot chunk read there waits
    /// for the stream to reach it, and no further.
    hold_scn: Option<Scn>,
    /// Times the stages of the window being mined.
    clock: timing::WindowClock,
    /// Rows the poll's window read; `None` while it mined none.
    window_rows: Option<u64>,
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
                    Err(e) if source.dialect() == Dialect::Dm && !e.is_transient() => {
                        return Err(unlisted(e));
                    }
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
            reconnect_due: false,
            rows: Vec::new(),
            findings: Vec::new(),
            drift: drift::DriftWatch::default(),
            memory_at: None,
            switches_at: None,
            switch_rate: None,
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
            hold_scn: None,
            clock: timing::WindowClock::default(),
            window_rows: None,
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

    /// How long to wait before the next attempt after a transient error:
    /// 1 s, doubling with each failure in a row up to 30 s, so a short
    /// blip costs a second and a long outage is not hammered.
    pub fn retry_pause(&self) -> Duration {
        let doublings = self.retries.saturating_sub(1).min(5);
        Duration::from_secs(1u64 << doublings).min(MAX_RETRY_PAUSE)
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

    /// The SCN a snapshot chunk is read at now: the newest the database
    /// had at the last poll (not past `--until-scn`), so its undo need only
    /// last the read, whatever the stream's lag. `None` while there is no
    /// consistent SCN.
    pub fn snapshot_read_scn(&self) -> Option<Scn> {
        let consistent = self.consistent_scn()?;
        let newest = match self.config.until_scn {
            Some(until) => self.status.current_scn.min(until),
            None => self.status.current_scn,
        };
        Some(newest.max(consistent))
    }

    /// Keeps windows at or below `scn` (or lets them go on with `None`).
    pub fn hold_at(&mut self, scn: Option<Scn>) {
        self.hold_scn = scn;
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
                    code: e.code_label(),
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
        let _ = self.source.end_session();
        self.reconnect_due = self.source.reconnect().is_err();
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
        if self.reconnect_due {
            self.source.reconnect()?;
            self.reconnect_due = false;
        }
        self.clock.begin();
        self.window_rows = None;
        let redo_from = self.status.mined_time;
        let progress = self.mine_window(sink)?;
        let window = self.last_plan.as_ref().zip(self.window_rows);
        let timings = self.clock.end(window);
        let m = &mut self.status.mining;
        m.busy_share = self.clock.busy_share();
        if let Some(mut t) = timings {
            t.redo_s = match (redo_from, self.status.mined_time) {
                (Some(a), Some(b)) => Some((b - a).num_milliseconds().max(0) as f64 / 1000.0),
                _ => None,
            };
            m.windows += 1;
            m.last_window = Some(t);
            m.recent_windows = Some(timing::blend(m.recent_windows, &t));
        }
        Ok(progress)
    }

    fn mine_window(
        &mut self,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<Progress, CaptureError> {
        // Every transaction started at or below the SCN read by the last
        // poll is either listed now or over.
        let listed_from = self.status.current_scn;
        let listed = self.list_open_transactions()?;
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
        let dm = self.source.dialect() == Dialect::Dm;
        if let Some(until) = self.config.until_scn {
            if self.mined_scn >= until {
                return Ok(Progress::Finished);
            }
            // DM8's window reads on past `until` for the rows that prove
            // the ACTIVE file readable that far (see `readable_end`); the
            // rows past it are not fed.
            if !dm {
                upper = upper.min(until);
            }
        }
        if let Some(hold) = self.hold_scn {
            upper = upper.min(hold.max(self.mined_scn));
        }
        // Only redo the log writers have put on disk can be mined; the
        // window never reaches past it, on one instance or many.
        let threads = self.source.redo_threads()?;
        if let Some(flushed) = flushed_redo_end(&threads) {
            upper = upper.min(flushed);
        }
        // Held by a snapshot read below the redo on disk, the stream is
        // not caught up: its redo clock stays where mining stopped, and
        // the lag grows while the read goes on.
        let held = self.hold_scn.is_some_and(|h| h < now.scn);
        if self.window_is_idle(upper) {
            self.status.state = MiningState::Idle;
            // Caught up with the redo on disk: the redo clock is the database's.
            if !held {
                self.status.mined_time = Some(now.time);
            }
            return Ok(Progress::Idle);
        }
        let plan = self.plan_window(&threads, upper)?;
        if plan.is_empty() {
            self.status.state = MiningState::Idle;
            if !held {
                self.status.mined_time = Some(now.time);
            }
            return Ok(Progress::Idle);
        }
        let at = Instant::now();
        let plan = self.start_session(plan, now.time)?;
        self.clock.session_start = at.elapsed();
        self.show_window(&plan);
        let query = ContentsQuery {
            from_scn: plan.from_scn,
            to_scn: plan.end_scn,
            owners: self.owners.clone(),
            pdb: self.config.pdb.clone(),
        };
        timing::timed(&mut self.clock.contents_query, || {
            self.source.query_contents(&query)
        })?;
        if dm {
            self.drift.begin(now.scn);
        }
        let at = Instant::now();
        let mut sink_time = Duration::ZERO;
        let mut timed_sink = |e: CapturedEvent| timing::timed(&mut sink_time, || sink(e));
        let (read, last_row) = self.mine_rows(&mut timed_sink)?;
        let end = readable_end(&plan, last_row, dm, self.config.until_scn);
        self.buffer.finish_window(end, &mut timed_sink)?;
        self.drift.mined_to(end);
        self.clock.sink = sink_time;
        self.clock.rows = at.elapsed();
        // After the clock: the query is not the window's parsing.
        self.sample_session_memory();
        self.sample_switch_rate();
        self.window_rows = Some(read);
        self.status.mining.held_logs = timing::held_logs(&plan);
        if let Some(check) = self.ended_check.take_if(|c| end >= c.listed_by) {
            self.buffer.drop_ended(&check.open, check.listed_from);
        }
        self.warnings.extend(self.buffer.abandon_expired());
        tracing::trace!(rows = read, to = end, "window mined");
        self.mined_scn = end;
        self.status.rows_read += read;
        self.status.mined_scn = end;
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

    /// The switch rate from the database's log history, at most every
    /// [`MEMORY_EVERY`]: the busiest thread's, once its logs of the last
    /// hour span five minutes. A figure only, as the session's memory is.
    fn sample_switch_rate(&mut self) {
        if self.switches_at.is_some_and(|t| t.elapsed() < MEMORY_EVERY) {
            return;
        }
        self.switches_at = Some(Instant::now());
        if let Ok(Some(threads)) = self.source.recent_log_switches() {
            self.switch_rate = threads
                .iter()
                .filter(|t| t.span_s >= 300)
                .map(|t| f64::from(t.switches) * 3600.0 / t.span_s as f64)
                .max_by(f64::total_cmp);
            if self.switch_rate.is_some() {
                self.status.mining.redo.switches_per_hour = self.switch_rate;
            }
        }
    }

    /// The mining session's memory, at most every [`MEMORY_EVERY`]. A
    /// figure only: a failed read leaves it unknown, and the next window
    /// meets any real trouble with the connection.
    fn sample_session_memory(&mut self) {
        if self.memory_at.is_some_and(|t| t.elapsed() < MEMORY_EVERY) {
            return;
        }
        self.memory_at = Some(Instant::now());
        self.status.mining.session_memory = self.source.session_memory().ok().flatten();
    }

    /// DM8's open transactions (V$TRX), asked only while some are buffered
    /// and no earlier list waits to be applied.
    fn list_open_transactions(
        &mut self,
    ) -> Result<Option<Vec<crate::engine::port::OpenTransaction>>, CaptureError> {
        Ok(
            if self.source.dialect() == Dialect::Dm
                && self.ended_check.is_none()
                && self.buffer.open_count() > 0
            {
                match self.source.open_transactions() {
                    Ok(open) => Some(open),
                    Err(e) if e.is_transient() => return Err(e.into()),
                    Err(e) => return Err(unlisted(e)),
                }
            } else {
                None
            },
        )
    }

    /// Shows the window about to be mined in the status.
    fn show_window(&mut self, plan: &SessionPlan) {
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
    }

    /// Fetches the window's rows and pushes the wanted ones (none past
    /// `until_scn`) through the buffer; returns how many rows were read and
    /// the highest SCN among them.
    fn mine_rows(
        &mut self,
        sink: &mut dyn FnMut(CapturedEvent) -> Result<(), SinkError>,
    ) -> Result<(u64, Option<Scn>), CaptureError> {
        let dialect = self.source.dialect();
        let until = self.config.until_scn.unwrap_or(Scn::MAX);
        let mut read = 0u64;
        let mut last_row = None;
        loop {
            self.rows.clear();
            let n = timing::timed(&mut self.clock.fetch, || {
                self.source.fetch(self.config.fetch_rows, &mut self.rows)
            })?;
            if n == 0 {
                break;
            }
            read += n as u64;
            for row in self.rows.drain(..) {
                last_row = last_row.max(Some(row.scn));
                if row.operation_code.is_lob_piece() {
                    self.clock.lob_rows += 1;
                }
                if row.scn > until {
                    continue;
                }
                self.redo_bytes += row.sql_redo.as_ref().map_or(0, |r| r.len() as u64);
                self.status.mined_scn = self.status.mined_scn.max(row.scn);
                if row.timestamp.is_some() {
                    self.status.mined_time = row.timestamp;
                }
                if !wanted(&self.config.tables, &row) {
                    continue;
                }
                if dialect == Dialect::Dm {
                    watch_drift(&mut self.drift, &mut self.findings, &row);
                }
                if let Some(book) = self.book.as_mut() {
                    book.record(&row);
                }
                let end = self.book.is_some().then(|| row.clone());
                let book = &mut self.book;
                let mut checked = |mut e: CapturedEvent| {
                    if truncates_another_table(&self.config.tables, &e) {
                        return Ok(());
                    }
                    if let CapturedEvent::Change(c) = &mut e {
                        if let Some(book) = book.as_mut() {
                            book.emitted(c);
                        }
                        check_change(
                            Dictionary {
                                keys: &self.config.key_columns,
                                lobs: &self.config.lob_columns,
                                columns: &self.config.columns,
                                binary: &self.config.binary_columns,
                            },
                            dialect,
                            &mut self.partial_reported,
                            &mut self.lob_reported,
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
        Ok((read, last_row))
    }

    fn refresh_status(&mut self) {
        self.buffer.fill_status(&mut self.status);
        self.status.findings += self.findings.len() as u64;
        if let Some(book) = self.book.as_mut() {
            self.status.buffered = self.buffer.open_transactions();
            book.retain_open(self.status.buffered.iter().map(|t| t.xid.as_str()));
        }
    }
}

/// Where a window's mining really ended. A DM8 window over the ACTIVE
/// archive file (the plan's online log) ends at the last row it returned,
/// or where the switched files before it end: `V$ARCH_FILE.CLSN` of the
/// ACTIVE file is not known to be readable yet (the file is appended in LSN
/// order, so what LogMiner returns is a prefix), and rows it could not read
/// yet come in the next window instead of being passed over for good. An
/// Oracle window ends at its end: the online log is read to the flushed end.
fn readable_end(plan: &SessionPlan, last_row: Option<Scn>, dm: bool, until: Option<Scn>) -> Scn {
    let active = plan.logs.iter().find(|l| l.online).filter(|_| dm);
    let end = match active {
        None => plan.end_scn,
        Some(log) => plan
            .from_scn
            .max(log.first_change.saturating_sub(1))
            .max(last_row.unwrap_or(0))
            .min(plan.end_scn),
    };
    until.map_or(end, |u| end.min(u))
}

/// The longest pause between attempts after transient errors.
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(30);
/// How often the mining session's memory and the switch rate are read.
const MEMORY_EVERY: Duration = Duration::from_secs(30);

/// Counts a DM8 change for [`drift::DriftWatch`], or reports the
/// changes a DDL row precedes that were mined after it.
fn watch_drift(watch: &mut drift::DriftWatch, findings: &mut Vec<TxnFinding>, row: &LogMinerRow) {
    let (Some(owner), Some(table)) = (row.seg_owner.as_deref(), row.table_name.as_deref()) else {
        return;
    };
    if row.operation_code.is_dml() {
        watch.change(owner, table);
    } else if row.operation_code == OperationCode::Ddl {
        if let Some(changes) = watch.ddl(owner, table, row.scn) {
            findings.push(TxnFinding {
                xid: row.xid.clone(),
                scn: row.scn,
                finding: Finding::DictionaryDrift {
                    schema: owner.to_string(),
                    table: table.to_string(),
                    changes,
                },
            });
        }
    }
}

/// A DM8 source that cannot list its open transactions: DM8 writes no row
/// when a transaction rolls back, so without the list a rollback cannot be
/// told from a transaction still open. Capture stops with the grant to give
/// rather than buffer such transactions for ever.
fn unlisted(error: SourceError) -> CaptureError {
    CaptureError::OpenTransactionsUnlisted { error }
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
/// A truncate event of a table the capture does not take: its DDL row
/// passes (DDL of every table does), its row event must not.
fn truncates_another_table(tables: &[TablePattern], e: &CapturedEvent) -> bool {
    // Every event passes here: the names are cloned for truncates only.
    let CapturedEvent::Change(c) = e else {
        return false;
    };
    if c.op != Op::Truncate || tables.is_empty() {
        return false;
    }
    let name = TableName {
        owner: c.source.schema.clone(),
        table: c.source.table.clone(),
    };
    !tables.iter().any(|p| p.matches(&name))
}

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
            let name = TableName {
                owner: owner.clone(),
                table: table.clone(),
            };
            tables.iter().any(|p| p.matches(&name))
        }
    }
}
