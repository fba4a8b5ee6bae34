//! The state of the `tail` screen and its pure update function.
//!
//! Everything the screen shows is derived from [`App`]; [`App::update`] is
//! the only way it changes, and it takes time as an input ([`AppEvent::Tick`])
//! so that tests replay a session deterministically. Memory is bounded: the
//! change list is a ring, alerts are de-duplicated and capped, totals are
//! counted rather than stored.
//!
//! What the keys do lives in `keys`, the alerts the engine's reports raise
//! in `alerting`; both are `impl App` blocks over the same private state.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crossterm::event::KeyEvent;

use crate::engine::event::CapturedEvent;
use crate::engine::metrics::{CaptureStatus, EngineMessage, MiningState, RedoDetail};

use super::alerts::{finding_advice, ora_code_of, without_retry_suffix};
pub use super::alerts::{Alert, AlertKind};
use super::entry::one_line;
pub use super::entry::{changed_columns, Entry, Filter};
pub use super::lag::{time_lag_s, Level, Thresholds};
use super::throughput::Throughput;

/// What the header says about the source; filled once by whoever starts the
/// engine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderInfo {
    /// `sim:demo`, `oracle://cdc@db1:1521/ORCLPDB1`, ...
    pub source: String,
    /// Banner version, e.g. `Oracle 19.21.0.0.0`.
    pub version: String,
    /// The container mined from (`ORCLPDB1`, `CDB$ROOT`, or empty for a non-CDB).
    pub container: String,
    pub user: String,
    /// The tables as resolved (`APP.ORDERS` for a typed `ORDERS`).
    pub tables: String,
    /// The scenario when the source is the built-in simulator: the header
    /// then says SIMULATOR, so no one takes it for a database.
    pub simulator: Option<String>,
    /// The database's open transactions (`V$TRANSACTION` joined to
    /// `V$SESSION`), oldest first, with the database time of the reading:
    /// read when tail started, then again on the engine's slow timer.
    pub db_transactions: Vec<crate::source::SessionTransaction>,
    pub db_transactions_at: Option<chrono::NaiveDateTime>,
    /// Why the database's open transactions could not be read.
    pub db_transactions_error: Option<String>,
    /// Key columns per `SCHEMA.TABLE`, used for the list's key column; a
    /// table without an entry shows its first column.
    pub key_columns: BTreeMap<String, Vec<String>>,
}

/// Settings of the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewConfig {
    pub thresholds: Thresholds,
    /// How many recent changes the list keeps.
    pub ring_capacity: usize,
    /// Seconds of throughput history kept for the sparkline.
    pub throughput_secs: usize,
    /// A status older than this marks the header stale.
    pub stale_after: Duration,
    /// Most alerts kept (the oldest go first).
    pub max_alerts: usize,
    /// An open transaction with this many buffered changes is flagged.
    pub big_txn_events: u64,
    /// An open transaction this old (database clock) is flagged.
    pub old_txn_s: i64,
}

impl Default for ViewConfig {
    fn default() -> Self {
        Self {
            thresholds: Thresholds::default(),
            ring_capacity: 10_000,
            throughput_secs: 120,
            stale_after: Duration::from_secs(5),
            max_alerts: 200,
            big_txn_events: 50_000,
            old_txn_s: 3_600,
        }
    }
}

/// Everything that changes the screen's state.
#[derive(Debug, Clone)]
pub enum AppEvent {
    Engine(EngineMessage),
    Key(KeyEvent),
    Resize(u16, u16),
    /// Time since the screen started; drives throughput, ages and staleness.
    Tick(Duration),
    /// The keyboard can no longer be read (the terminal went away): nobody
    /// could ever quit, so the screen ends.
    InputClosed,
}

/// What the keyboard is talking to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a filter; the text so far.
    FilterInput(String),
    Help,
    /// The full-screen list of open transactions (key `t`).
    Transactions,
}

/// The `tail` screen's state.
#[derive(Debug, Clone)]
pub struct App {
    pub header: HeaderInfo,
    pub config: ViewConfig,
    pub status: CaptureStatus,
    /// When the last status arrived (screen time); `None` before the first.
    pub status_at: Option<Duration>,
    pub now: Duration,
    ring: VecDeque<Entry>,
    /// Where entries that left the ring go to be freed (see `retire`).
    retired: Option<std::sync::mpsc::Sender<Vec<Entry>>>,
    /// Arrived while paused; joins the ring on resume.
    pending: VecDeque<Entry>,
    next_seq: u64,
    /// Events received (changes and DDL), including those the ring dropped.
    pub received: u64,
    pub throughput: Throughput,
    pub alerts: Vec<Alert>,
    pub paused: bool,
    pub filter: Option<Filter>,
    /// `seq`s of the ring's entries the filter matches, oldest first; kept
    /// as entries come and go so a frame does not rescan the ring.
    matches: VecDeque<u64>,
    /// Open transactions flagged as large or old: their commit is an alert
    /// too, since that is when their changes reach the sink at once.
    flagged_txns: Vec<String>,
    /// Archived logs already alerted on as missing ahead of the read position.
    reported_missing: std::collections::BTreeSet<(u16, u64)>,
    /// Changes per `SCHEMA.TABLE` since the screen started (not only the ring's).
    pub per_table: BTreeMap<String, u64>,
    pub mode: Mode,
    /// The selected entry's `seq`; `None` follows the newest.
    pub selected: Option<u64>,
    pub show_detail: bool,
    /// A followed `cdcctl run` checkpoint's snapshot while it runs.
    pub snapshot: Option<Box<crate::engine::snapshot::SnapshotProgress>>,
    /// Lines the detail pane is scrolled down by (PgUp/PgDn while it is
    /// open); back to the top when another change is selected.
    pub detail_scroll: u16,
    /// How far the detail pane can scroll, as last drawn: a wide row at
    /// 80×24 needs more lines than the pane has.
    pub detail_overflow: std::cell::Cell<u16>,
    pub size: (u16, u16),
    pub engine_stopped: bool,
    pub should_quit: bool,
    /// The source error a status's state just raised: the engine sends the
    /// same error as a message right after, which is the same occurrence.
    state_error: Option<String>,
    /// The database time to stamp an alert with when it is not the
    /// status's (an alert a change calls for carries the change's time).
    raising_at: Option<chrono::NaiveDateTime>,
}

/// The open transactions in brief, for the panel and the stats line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSummary {
    pub count: usize,
    pub oldest_xid: Option<String>,
    pub oldest_age_s: Option<i64>,
}

impl App {
    pub fn new(header: HeaderInfo, config: ViewConfig) -> Self {
        let throughput = Throughput::new(config.throughput_secs);
        Self {
            header,
            config,
            status: CaptureStatus::default(),
            status_at: None,
            now: Duration::ZERO,
            ring: VecDeque::new(),
            retired: None,
            pending: VecDeque::new(),
            next_seq: 0,
            received: 0,
            throughput,
            alerts: Vec::new(),
            paused: false,
            filter: None,
            matches: VecDeque::new(),
            flagged_txns: Vec::new(),
            reported_missing: std::collections::BTreeSet::new(),
            per_table: BTreeMap::new(),
            mode: Mode::Normal,
            selected: None,
            show_detail: false,
            snapshot: None,
            detail_scroll: 0,
            detail_overflow: std::cell::Cell::new(0),
            size: (80, 24),
            engine_stopped: false,
            should_quit: false,
            state_error: None,
            raising_at: None,
        }
    }

    /// Applies one event. Pure: no I/O, no clock.
    pub fn update(&mut self, ev: AppEvent) {
        match ev {
            AppEvent::Engine(msg) => self.on_engine(msg),
            AppEvent::Key(key) => self.on_key(key),
            AppEvent::Resize(w, h) => self.size = (w, h),
            AppEvent::InputClosed => self.should_quit = true,
            AppEvent::Tick(now) => {
                if now > self.now {
                    self.now = now;
                }
                self.throughput.advance(self.now);
            }
        }
    }

    fn on_engine(&mut self, msg: EngineMessage) {
        match msg {
            EngineMessage::Events(events) => self.on_events(events),
            EngineMessage::Status(status) => self.on_status(*status),
            EngineMessage::Finding(f) => {
                let advice = finding_advice(&f).map(str::to_string);
                self.raise(
                    AlertKind::Finding,
                    f.code().to_string(),
                    f.message(),
                    advice,
                    false,
                );
            }
            EngineMessage::Warning { code, message } => {
                self.raise(AlertKind::Finding, code.to_string(), message, None, false);
            }
            EngineMessage::SourceError {
                error,
                ora_code,
                advice,
                retrying,
                gap,
            } => self.on_source_error(error, ora_code, advice, retrying, gap),
            EngineMessage::Stopped => self.engine_stopped = true,
            EngineMessage::DbTransactions(reading) => {
                self.header.db_transactions_error = reading.error;
                if self.header.db_transactions_error.is_none() {
                    self.header.db_transactions = reading.transactions;
                }
                if reading.read_at.is_some() {
                    self.header.db_transactions_at = reading.read_at;
                }
            }
            EngineMessage::RedoDetail(details) => self.on_redo_detail(details),
            EngineMessage::Snapshot(progress) => self.snapshot = progress,
        }
    }

    /// Gives the changes in the list (or waiting while paused) their
    /// SQL_REDO and USERNAME; the details follow the events they belong to.
    fn on_redo_detail(&mut self, details: Vec<RedoDetail>) {
        let mut by_id: std::collections::HashMap<(u64, String, u32), RedoDetail> = details
            .into_iter()
            .map(|d| ((d.commit_scn, d.xid.clone(), d.index), d))
            .collect();
        for entry in self
            .pending
            .iter_mut()
            .rev()
            .chain(self.ring.iter_mut().rev())
        {
            if by_id.is_empty() {
                break;
            }
            if let CapturedEvent::Change(c) = &entry.event {
                let id = (c.source.commit_scn, c.source.xid.clone(), c.index);
                if let Some(d) = by_id.remove(&id) {
                    entry.redo = Some(d);
                }
            }
        }
    }

    fn on_events(&mut self, events: Vec<CapturedEvent>) {
        self.alerts_from_events(&events);
        self.throughput.record(events.len() as u64);
        self.received = self.received.saturating_add(events.len() as u64);
        for e in &events {
            let src = e.source();
            *self
                .per_table
                .entry(format!("{}.{}", src.schema, src.table))
                .or_default() += 1;
        }
        let cap = self.config.ring_capacity.max(1);
        for event in events {
            let entry = Entry::new(self.next_seq, event, &self.header.key_columns);
            self.next_seq += 1;
            if self.paused {
                self.pending.push_back(entry);
                if self.pending.len() > cap {
                    self.pending.pop_front();
                }
            } else {
                self.admit(entry);
                if self.ring.len() > cap {
                    self.trim_ring();
                }
            }
        }
        if !self.paused {
            self.trim_ring();
        }
    }

    /// Appends to the ring, noting whether the filter matches.
    fn admit(&mut self, entry: Entry) {
        if self.filter.as_ref().is_some_and(|f| f.matches(&entry)) {
            self.matches.push_back(entry.seq);
        }
        self.ring.push_back(entry);
    }

    fn trim_ring(&mut self) {
        let cap = self.config.ring_capacity.max(1);
        let excess = self.ring.len().saturating_sub(cap);
        if excess > 0 {
            let old: Vec<Entry> = self.ring.drain(..excess).collect();
            self.retire(old);
        }
        if let Some(front) = self.ring.front().map(|e| e.seq) {
            while self.matches.front().is_some_and(|&s| s < front) {
                self.matches.pop_front();
            }
        }
        // A selection that fell out of the ring moves to the oldest entry.
        if let (Some(sel), Some(front)) = (self.selected, self.ring.front()) {
            if sel < front.seq {
                self.selected = Some(front.seq);
            }
        }
    }

    /// Frees entries that left the ring on a thread of their own: at tens
    /// of thousands of changes a second, freeing their images and strings
    /// was a third of the UI thread's time, and the screen need not wait
    /// for it. Without that thread they are freed here.
    fn retire(&mut self, old: Vec<Entry>) {
        if self.retired.is_none() {
            let (tx, rx) = std::sync::mpsc::channel::<Vec<Entry>>();
            let spawned = std::thread::Builder::new()
                .name("tui-free".into())
                .spawn(move || rx.into_iter().for_each(drop));
            self.retired = spawned.ok().map(|_| tx);
        }
        if let Some(tx) = &self.retired {
            if let Err(std::sync::mpsc::SendError(old)) = tx.send(old) {
                self.retired = None;
                drop(old);
            }
        }
    }

    fn on_status(&mut self, status: CaptureStatus) {
        self.state_error = None;
        if matches!(status.state, MiningState::Mining | MiningState::Idle) {
            for a in &mut self.alerts {
                if a.kind == AlertKind::SourceError && a.retrying {
                    a.resolved = true;
                }
            }
        }
        // The state may carry an error the engine did not also send as a
        // message; it must show all the same, once.
        let from_state = match &status.state {
            MiningState::Stopped { error, advice } => Some((error.clone(), advice.clone(), false)),
            MiningState::Retrying { error, advice, .. } => {
                Some((error.clone(), advice.clone(), true))
            }
            _ => None,
        };
        // The alert is stamped with this status's database time.
        let keep_time = self.status.current_time;
        self.status = status;
        if self.status.current_time.is_none() {
            self.status.current_time = keep_time;
        }
        self.status_at = Some(self.now);
        // Alerts raised before the database's clock was known get the
        // first time the status tells.
        if let Some(t) = self.status.current_time {
            for a in self.alerts.iter_mut().filter(|a| a.raised_at.is_none()) {
                a.raised_at = Some(t);
            }
        }
        self.alerts_from_status();
        if let Some((error, advice, retrying)) = from_state {
            let error_line = one_line(without_retry_suffix(&error));
            let known = self.alerts.iter().any(|a| {
                a.kind == AlertKind::SourceError && a.message == error_line && !a.resolved
            });
            if !known {
                self.raise(
                    AlertKind::SourceError,
                    ora_code_of(&error_line).unwrap_or_default(),
                    error_line.clone(),
                    advice,
                    retrying,
                );
                self.state_error = Some(error_line);
            }
        }
    }

    /// The entries the list shows (filtered), oldest first.
    pub fn visible(&self) -> Vec<&Entry> {
        match &self.filter {
            Some(_) => self
                .matches
                .iter()
                .filter_map(|seq| {
                    let i = self.ring.binary_search_by_key(seq, |e| e.seq).ok()?;
                    self.ring.get(i)
                })
                .collect(),
            None => self.ring.iter().collect(),
        }
    }

    /// Index of the selection in `visible`.
    pub fn selected_index(&self, visible: &[&Entry]) -> Option<usize> {
        if visible.is_empty() {
            return None;
        }
        match self.selected {
            None => Some(visible.len() - 1),
            Some(seq) => Some(match visible.binary_search_by_key(&seq, |e| e.seq) {
                Ok(i) => i,
                // Filtered out: the nearest older one.
                Err(i) => i.saturating_sub(1),
            }),
        }
    }

    /// The entry the detail pane shows.
    pub fn selected_entry(&self) -> Option<&Entry> {
        let visible = self.visible();
        let i = self.selected_index(&visible)?;
        visible.get(i).copied()
    }

    /// Changes waiting while paused.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Entries in the ring.
    pub fn ring_len(&self) -> usize {
        self.ring.len()
    }

    /// The status is older than `stale_after`, or none came in that long
    /// since the screen started: the engine is not reporting.
    pub fn stale_for(&self) -> Option<Duration> {
        let age = self
            .now
            .saturating_sub(self.status_at.unwrap_or(Duration::ZERO));
        (age >= self.config.stale_after && !self.engine_stopped).then_some(age)
    }

    /// How many transactions are open and which is the oldest (its age
    /// from the database's clock), from the list the screen shows, so the
    /// count, the oldest and the table always agree. One merge per call.
    pub fn open_summary(&self) -> OpenSummary {
        let rows = self.open_rows();
        let oldest = rows.first();
        OpenSummary {
            count: rows.len(),
            oldest_age_s: oldest.and_then(|r| self.txn_age_s(r)),
            oldest_xid: oldest.map(|r| r.xid.clone()),
        }
    }

    /// A listed transaction's age on the database's clock. One that only
    /// the database's last reading lists is aged as of that reading:
    /// nothing since says it is still open, and at thousands of commits a
    /// second most of a reading's transactions end within milliseconds;
    /// aged to now they would show as open and growing older until the
    /// next reading. One capture buffers is open as of the newest status.
    pub fn txn_age_s(&self, r: &super::txns::TxnRow) -> Option<i64> {
        let (status, reading) = (self.status.current_time, self.header.db_transactions_at);
        let now = if r.in_database && r.buffered.is_none() {
            reading.or(status)
        } else {
            status.or(reading)
        };
        Some((now? - r.start_time?).num_seconds().max(0))
    }

    /// The open transactions: the database's last reading merged with
    /// what the engine buffers (its whole list when it sends one, else the
    /// oldest and the largest the status names).
    pub fn open_rows(&self) -> Vec<super::txns::TxnRow> {
        let fallback: Vec<_>;
        let buffered = if self.status.buffered.is_empty() {
            fallback = [&self.status.oldest_open, &self.status.largest_open]
                .into_iter()
                .flatten()
                .fold(Vec::new(), |mut v: Vec<_>, o| {
                    if !v
                        .iter()
                        .any(|x: &crate::engine::metrics::OpenTxnSummary| x.xid == o.xid)
                    {
                        v.push(o.clone());
                    }
                    v
                });
            &fallback
        } else {
            &self.status.buffered
        };
        super::txns::merge(&self.header.db_transactions, buffered)
    }

    /// The lag's cause as of now; the transaction pinning the restart SCN
    /// is named with the session the database's last reading shows for it.
    pub fn diagnosis(&self) -> crate::engine::lag_cause::Diagnosis {
        use crate::engine::lag_cause;
        let mut facts = lag_cause::from_status(&self.status, std::time::Instant::now());
        if self.status.state == MiningState::Idle {
            facts.lag_s = Some(0);
        }
        if let Some(p) = facts.pinning.as_mut() {
            let session = self
                .header
                .db_transactions
                .iter()
                .find(|t| t.transaction.xid.eq_ignore_ascii_case(&p.xid))
                .and_then(|t| t.session.as_ref());
            if let Some(s) = session {
                p.username.clone_from(&s.username);
                p.program.clone_from(&s.program);
                p.machine.clone_from(&s.machine);
            }
        }
        lag_cause::diagnose(&facts)
    }

    /// Alerts in the order the panel lists them: stopped capture first, then
    /// retries, findings and resolved errors; newest first within each.
    pub fn alerts_by_urgency(&self) -> Vec<&Alert> {
        let rank = |a: &Alert| match (a.kind, a.retrying, a.resolved) {
            (AlertKind::SourceError, false, false) => 0,
            (AlertKind::SourceError, true, false) => 1,
            (AlertKind::Finding, _, _) => 2,
            (AlertKind::SourceError, _, true) => 3,
        };
        let mut v: Vec<(usize, &Alert)> = self.alerts.iter().enumerate().collect();
        v.sort_by_key(|&(i, a)| (rank(a), std::cmp::Reverse(i)));
        v.into_iter().map(|(_, a)| a).collect()
    }

    /// The alert the status line repeats: the newest of the most urgent kind.
    pub fn headline_alert(&self) -> Option<&Alert> {
        self.alerts_by_urgency().into_iter().next()
    }

    /// The last source error that stopped capture, if capture stopped on one.
    pub fn fatal_error(&self) -> Option<&Alert> {
        self.alerts.iter().rev().find(|a| a.is_fatal())
    }
}

mod alerting;
mod keys;

#[cfg(test)]
mod tests;
