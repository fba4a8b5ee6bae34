//! The state of the `tail` screen and its pure update function.
//!
//! Everything the screen shows is derived from [`App`]; [`App::update`] is
//! the only way it changes, and it takes time as an input ([`AppEvent::Tick`])
//! so that tests replay a session deterministically. Memory is bounded: the
//! change list is a ring, alerts are de-duplicated and capped, totals are
//! counted rather than stored.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::engine::event::{CapturedEvent, ChangeEvent, FieldRef, Image};
use crate::engine::finding::Finding;
use crate::engine::metrics::{CaptureStatus, EngineMessage, MiningState, RedoDetail};

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

/// Lag thresholds for the gauges' colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub time_warn_s: u64,
    pub time_crit_s: u64,
    pub scn_warn: u64,
    pub scn_crit: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            time_warn_s: 10,
            time_crit_s: 60,
            scn_warn: 100_000,
            scn_crit: 1_000_000,
        }
    }
}

/// How bad a lag is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Warn,
    Crit,
}

impl Thresholds {
    pub fn time_level(&self, lag_s: u64) -> Level {
        level(lag_s, self.time_warn_s, self.time_crit_s)
    }

    pub fn scn_level(&self, lag: u64) -> Level {
        level(lag, self.scn_warn, self.scn_crit)
    }
}

fn level(v: u64, warn: u64, crit: u64) -> Level {
    if v >= crit {
        Level::Crit
    } else if v >= warn {
        Level::Warn
    } else {
        Level::Ok
    }
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

/// Where an alert came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertKind {
    Finding,
    SourceError,
}

/// A finding or source error, de-duplicated by code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub kind: AlertKind,
    /// `ORA-01291`, `partial_before_image`, ...
    pub code: String,
    pub message: String,
    pub advice: Option<String>,
    pub count: u64,
    pub first_at: Duration,
    pub last_at: Duration,
    /// The database's clock when the alert was first raised (the operator
    /// compares it with the database's logs, not with the screen's uptime).
    pub raised_at: Option<chrono::NaiveDateTime>,
    /// The engine said it will retry by itself.
    pub retrying: bool,
    /// The engine went back to mining after this error.
    pub resolved: bool,
}

impl Alert {
    /// The alert as one sentence: the code, unless the message starts with
    /// it (ORA- messages do) or there is none.
    pub fn text(&self) -> String {
        if self.code.is_empty() || self.message.starts_with(&self.code) {
            self.message.clone()
        } else {
            format!("{} {}", self.code, self.message)
        }
    }

    /// An error that stopped capture and needs an operator.
    pub fn is_fatal(&self) -> bool {
        self.kind == AlertKind::SourceError && !self.retrying && !self.resolved
    }
}

/// A change in the list, with the text the list shows computed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Position in arrival order; identifies the entry while it is in the ring.
    pub seq: u64,
    pub event: CapturedEvent,
    pub key: String,
    /// The changed columns, worked out when first shown: at tens of
    /// thousands of changes a second most entries leave the ring unseen.
    changed: std::cell::OnceCell<String>,
    /// `SQL_REDO` and `USERNAME` of the change, once the engine sent them.
    pub redo: Option<RedoDetail>,
}

impl Entry {
    fn new(seq: u64, event: CapturedEvent, keys: &BTreeMap<String, Vec<String>>) -> Self {
        let key = match &event {
            CapturedEvent::Change(c) => {
                let table = format!("{}.{}", c.source.schema, c.source.table);
                key_text(c, keys.get(&table))
            }
            CapturedEvent::Ddl(_) => String::new(),
        };
        Entry {
            seq,
            event,
            key,
            changed: std::cell::OnceCell::new(),
            redo: None,
        }
    }

    /// The changed columns of a change (`STATUS,UPDATED_AT`), or a DDL's
    /// statement on one line.
    pub fn changed(&self) -> &str {
        self.changed.get_or_init(|| match &self.event {
            CapturedEvent::Change(c) => changed_text(c),
            CapturedEvent::Ddl(d) => one_line(&d.ddl),
        })
    }

    /// `c`, `u`, `d`, `r` or `ddl`.
    pub fn op_label(&self) -> &'static str {
        match &self.event {
            CapturedEvent::Change(c) => c.op.code(),
            CapturedEvent::Ddl(_) => "ddl",
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn field_text(f: FieldRef<'_>) -> String {
    match f {
        FieldRef::Null => "NULL".into(),
        FieldRef::Text(t) | FieldRef::Binary(t) => t.to_string(),
        FieldRef::Unavailable | FieldRef::UnavailableBinary => "?".into(),
    }
}

fn key_text(c: &ChangeEvent, key_columns: Option<&Vec<String>>) -> String {
    let Some(image) = c.after.as_ref().or(c.before.as_ref()) else {
        return String::new();
    };
    let pick = |col: &str| {
        // A key missing from the after image (a partial update) is in the before image.
        image
            .get(col)
            .or_else(|| c.before.as_ref().and_then(|b| b.get(col)))
            .map(field_text)
    };
    match key_columns.filter(|k| !k.is_empty()) {
        Some(cols) => cols
            .iter()
            .map(|col| pick(col).unwrap_or_else(|| "?".into()))
            .collect::<Vec<_>>()
            .join(","),
        None => image
            .iter()
            .next()
            .map(|(_, v)| field_text(v))
            .unwrap_or_default(),
    }
}

/// Columns whose value differs between the images (updates), or the
/// non-null columns written (inserts) or removed (deletes).
pub fn changed_columns(c: &ChangeEvent) -> Vec<String> {
    match (&c.before, &c.after) {
        (Some(before), Some(after)) => after
            .iter()
            .filter(|(col, v)| before.get(col) != Some(*v))
            .map(|(col, _)| col.to_string())
            .collect(),
        (None, Some(img)) | (Some(img), None) => img
            .iter()
            .filter(|(_, v)| *v != FieldRef::Null)
            .map(|(col, _)| col.to_string())
            .collect(),
        (None, None) => Vec::new(),
    }
}

fn changed_text(c: &ChangeEvent) -> String {
    changed_columns(c).join(",")
}

/// Events per second over the last N whole seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throughput {
    capacity: usize,
    history: VecDeque<u64>,
    current: u64,
    current_sec: u64,
}

impl Throughput {
    fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            history: VecDeque::new(),
            current: 0,
            current_sec: 0,
        }
    }

    fn record(&mut self, n: u64) {
        self.current = self.current.saturating_add(n);
    }

    fn advance(&mut self, now: Duration) {
        let sec = now.as_secs();
        if sec <= self.current_sec {
            return;
        }
        let gap = sec - self.current_sec;
        self.history.push_back(std::mem::take(&mut self.current));
        // Seconds without any event still count as zero.
        let zeros = (gap - 1).min(self.capacity as u64);
        for _ in 0..zeros {
            self.history.push_back(0);
        }
        while self.history.len() > self.capacity {
            self.history.pop_front();
        }
        self.current_sec = sec;
    }

    /// Complete seconds, oldest first.
    pub fn history(&self) -> &VecDeque<u64> {
        &self.history
    }

    /// Events in the last complete second.
    pub fn last(&self) -> u64 {
        self.history.back().copied().unwrap_or(0)
    }

    /// Highest second in the history.
    pub fn peak(&self) -> u64 {
        self.history.iter().copied().max().unwrap_or(0)
    }

    /// Mean over the last `n` complete seconds.
    pub fn average(&self, n: usize) -> u64 {
        let n = n.min(self.history.len());
        if n == 0 {
            return 0;
        }
        self.history.iter().rev().take(n).sum::<u64>() / n as u64
    }
}

/// The list filter: every term must match.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    pub text: String,
    ops: Vec<&'static str>,
    terms: Vec<String>,
}

impl Filter {
    /// `op:u`, `insert`/`update`/`delete`/`ddl` select operations; any other
    /// word matches the table, XID, column names or values, ignoring case.
    pub fn parse(text: &str) -> Self {
        let mut ops = Vec::new();
        let mut terms = Vec::new();
        for word in text.split_whitespace() {
            let lower = word.to_lowercase();
            let op = match lower.strip_prefix("op:") {
                Some("c" | "i" | "insert" | "create") => Some("c"),
                Some("u" | "update") => Some("u"),
                Some("d" | "delete") => Some("d"),
                Some("r" | "read") => Some("r"),
                Some("ddl") => Some("ddl"),
                Some(_) => None,
                None => match lower.as_str() {
                    "insert" => Some("c"),
                    "update" => Some("u"),
                    "delete" => Some("d"),
                    "ddl" => Some("ddl"),
                    _ => None,
                },
            };
            match op {
                Some(op) => ops.push(op),
                None => terms.push(lower),
            }
        }
        Filter {
            text: text.trim().to_string(),
            ops,
            terms,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.terms.is_empty()
    }

    pub fn matches(&self, e: &Entry) -> bool {
        if !self.ops.is_empty() && !self.ops.contains(&e.op_label()) {
            return false;
        }
        self.terms.iter().all(|t| entry_contains(e, t))
    }
}

fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    // The filter runs over the whole ring on every frame: no allocation on
    // the common all-ASCII path.
    if hay.is_ascii() && needle_lower.is_ascii() {
        let n = needle_lower.as_bytes();
        return n.is_empty()
            || hay
                .as_bytes()
                .windows(n.len())
                .any(|w| w.eq_ignore_ascii_case(n));
    }
    hay.to_lowercase().contains(needle_lower)
}

fn image_contains(img: &Option<Image>, t: &str) -> bool {
    img.iter()
        .flatten()
        .any(|(col, v)| contains_ci(col, t) || v.as_str().is_some_and(|s| contains_ci(s, t)))
}

fn entry_contains(e: &Entry, t: &str) -> bool {
    let src = e.event.source();
    if contains_ci(&src.table, t)
        || contains_ci(&src.schema, t)
        || (t.contains('.') && contains_ci(&format!("{}.{}", src.schema, src.table), t))
        || contains_ci(&src.xid, t)
        || contains_ci(&e.key, t)
    {
        return true;
    }
    match &e.event {
        CapturedEvent::Change(c) => image_contains(&c.before, t) || image_contains(&c.after, t),
        CapturedEvent::Ddl(d) => contains_ci(&d.ddl, t),
    }
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

    /// Alerts the changes themselves call for: partition DDL that gives a
    /// segment a new data object id, and the commit of a flagged transaction.
    fn alerts_from_events(&mut self, events: &[CapturedEvent]) {
        for event in events {
            let src = event.source();
            self.raising_at =
                chrono::DateTime::from_timestamp_millis(src.change_ts_ms).map(|t| t.naive_utc());
            if let Some(pos) = self.flagged_txns.iter().position(|x| *x == src.xid) {
                let xid = self.flagged_txns.remove(pos);
                // Raised by the commit, not by the transaction's first change.
                let commit_ms = match event {
                    CapturedEvent::Change(c) => c.commit_ts_ms,
                    CapturedEvent::Ddl(d) => d.commit_ts_ms,
                };
                self.raising_at =
                    chrono::DateTime::from_timestamp_millis(commit_ms).map(|t| t.naive_utc());
                self.raise(
                    AlertKind::Finding,
                    "flagged_txn_committed".into(),
                    format!(
                        "transaction {xid}, flagged while open, committed at SCN {}",
                        src.commit_scn
                    ),
                    Some("its changes reach the sink together now; watch the sink's lag".into()),
                    false,
                );
            }
            if let CapturedEvent::Ddl(d) = event {
                if let Some(action) = partition_ddl_action(&d.ddl) {
                    self.raise(
                        AlertKind::Finding,
                        "partition_ddl".into(),
                        format!(
                            "{}.{}: {action} PARTITION {}",
                            src.schema,
                            src.table,
                            if action == "DROP" {
                                "removes a segment"
                            } else {
                                "gives the segment a new data object id"
                            }
                        ),
                        Some(
                            "a snapshot or chunk reading the old segment fails with ORA-08103: \
                             restart that chunk, and run `cdcctl partitions` on the table"
                                .into(),
                        ),
                        false,
                    );
                }
            }
        }
        self.raising_at = None;
    }

    /// A source error the engine reported. The same occurrence may already
    /// be on screen from the status's state; a retry of the same error is
    /// counted on its alert; a stop on an archive gap replaces the alert
    /// that warned those logs were deleted ahead.
    fn on_source_error(
        &mut self,
        error: String,
        ora_code: Option<u32>,
        advice: Option<String>,
        retrying: bool,
        gap: Option<(u16, u64, u64)>,
    ) {
        let message = one_line(without_retry_suffix(&error));
        let code = ora_code
            .map(|c| format!("ORA-{c:05}"))
            .or_else(|| ora_code_of(&message))
            .unwrap_or_default();
        if self.state_error.take().as_deref() == Some(message.as_str()) {
            if let Some(a) =
                self.alerts.iter_mut().rev().find(|a| {
                    a.kind == AlertKind::SourceError && a.message == message && !a.resolved
                })
            {
                if a.code.is_empty() {
                    a.code = code;
                }
                if advice.is_some() {
                    a.advice = advice.map(|x| one_line(&x));
                }
                a.retrying = retrying;
            }
        } else {
            self.raise(AlertKind::SourceError, code, message, advice, retrying);
        }
        if let (Some((thread, from, to)), false) = (gap, retrying) {
            let foretold = self
                .reported_missing
                .iter()
                .any(|(t, s)| *t == thread && (from..=to).contains(s));
            if foretold {
                self.alerts.retain(|a| {
                    !(a.kind == AlertKind::Finding && a.code == "archive_deleted_ahead")
                });
            }
        }
    }

    /// Flags the oldest and the largest open transaction once each when
    /// they pass the thresholds.
    fn alerts_from_status(&mut self) {
        let age = self.status.oldest_open.as_ref().and_then(|o| {
            Some(
                (self.status.current_time? - o.start_time?)
                    .num_seconds()
                    .max(0),
            )
        });
        let mut flags = Vec::new();
        if let (Some(o), Some(age)) = (&self.status.oldest_open, age) {
            if age >= self.config.old_txn_s && !self.flagged_txns.contains(&o.xid) {
                flags.push((
                    o.xid.clone(),
                    "old_transaction",
                    format!(
                        "transaction {} open for {} (since SCN {}): the restart SCN cannot move past it",
                        o.xid,
                        super::widgets::duration_s(age as u64),
                        o.start_scn
                    ),
                ));
            }
        }
        if let Some(l) = &self.status.largest_open {
            if l.events >= self.config.big_txn_events
                && !self.flagged_txns.contains(&l.xid)
                && !flags.iter().any(|f| f.0 == l.xid)
            {
                let spill = if l.spilled {
                    format!(", {} spilled to disk", super::widgets::bytes(l.bytes))
                } else {
                    format!(", {} in memory", super::widgets::bytes(l.bytes))
                };
                flags.push((
                    l.xid.clone(),
                    "large_transaction",
                    format!(
                        "transaction {} holds {} changes{spill}",
                        l.xid,
                        super::widgets::thousands(l.events)
                    ),
                ));
            }
        }
        self.alert_missing_archives();
        for (xid, code, message) in flags {
            self.flagged_txns.push(xid);
            self.raise(
                AlertKind::Finding,
                code.into(),
                message,
                Some("find the session in V$TRANSACTION joined to V$SESSION (USERNAME, PROGRAM, MACHINE) and ask its owner to commit or roll back".into()),
                false,
            );
        }
    }

    /// One alert when archived logs capture still needs disappear ahead of
    /// the read position, raised again only when another one goes.
    fn alert_missing_archives(&mut self) {
        let missing = &self.status.archives_missing_ahead;
        if missing
            .iter()
            .all(|m| self.reported_missing.contains(&(m.thread, m.sequence)))
        {
            return;
        }
        self.reported_missing
            .extend(missing.iter().map(|m| (m.thread, m.sequence)));
        let mut by_thread: BTreeMap<u16, Vec<(u64, &str)>> = BTreeMap::new();
        for m in missing {
            by_thread
                .entry(m.thread)
                .or_default()
                .push((m.sequence, m.state));
        }
        let mining: BTreeMap<u16, u64> = self
            .status
            .logs
            .iter()
            .map(|l| (l.thread, l.sequence))
            .collect();
        let mut parts = Vec::new();
        let mut restore = Vec::new();
        for (thread, seqs) in &by_thread {
            let list: Vec<String> = seqs
                .iter()
                .map(|(s, state)| format!("{s} ({})", state.to_lowercase()))
                .collect();
            let at = mining
                .get(thread)
                .map(|s| format!(", reading sequence {s}"))
                .unwrap_or_default();
            parts.push(format!("thread {thread} sequence {}{at}", list.join(", ")));
            let (lo, hi) = (
                seqs.first().map_or(0, |s| s.0),
                seqs.last().map_or(0, |s| s.0),
            );
            restore.push(format!(
                "RMAN> RESTORE ARCHIVELOG SEQUENCE BETWEEN {lo} AND {hi} THREAD {thread};"
            ));
        }
        self.raise(
            AlertKind::Finding,
            "archive_deleted_ahead".into(),
            format!(
                "archived logs deleted ahead of the read position: {}",
                parts.join("; ")
            ),
            Some(format!(
                "restore them before capture reaches them ({}), or capture stops with ORA-01291",
                restore.join(" ")
            )),
            false,
        );
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

    fn raise(
        &mut self,
        kind: AlertKind,
        code: String,
        message: String,
        advice: Option<String>,
        retrying: bool,
    ) {
        let now = self.now;
        // Driver messages can span lines; an alert is one line plus advice.
        let message = one_line(&message);
        let advice = advice.map(|a| one_line(&a));
        // A source error is one alert whether or not its code was known
        // when it was first seen.
        if let Some(pos) = self.alerts.iter().position(|a| {
            a.kind == kind
                && a.message == message
                && (a.code == code || kind == AlertKind::SourceError)
        }) {
            let mut a = self.alerts.remove(pos);
            a.count += 1;
            a.last_at = now;
            a.retrying = retrying;
            a.resolved = false;
            if advice.is_some() {
                a.advice = advice;
            }
            if a.code.is_empty() {
                a.code = code;
            }
            self.alerts.push(a);
        } else {
            self.alerts.push(Alert {
                kind,
                code,
                message,
                advice,
                count: 1,
                first_at: now,
                last_at: now,
                raised_at: self.raising_at.or(self.status.current_time),
                retrying,
                resolved: false,
            });
        }
        let max = self.config.max_alerts.max(1);
        if self.alerts.len() > max {
            let excess = self.alerts.len() - max;
            self.alerts.drain(..excess);
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.should_quit = true;
            return;
        }
        match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::FilterInput(mut text) => match key.code {
                KeyCode::Enter => {
                    let f = Filter::parse(&text);
                    self.matches = self
                        .ring
                        .iter()
                        .filter(|e| f.matches(e))
                        .map(|e| e.seq)
                        .collect();
                    self.filter = (!f.is_empty()).then_some(f);
                    self.selected = None;
                }
                KeyCode::Esc => {}
                KeyCode::Backspace => {
                    text.pop();
                    self.mode = Mode::FilterInput(text);
                }
                KeyCode::Char(c) => {
                    text.push(c);
                    self.mode = Mode::FilterInput(text);
                }
                _ => self.mode = Mode::FilterInput(text),
            },
            Mode::Transactions => match key.code {
                KeyCode::Char('q') => self.should_quit = true,
                KeyCode::Char('t') | KeyCode::Esc => {}
                _ => self.mode = Mode::Transactions,
            },
            Mode::Help => {
                // Any key closes the help; q also quits.
                if key.code == KeyCode::Char('q') {
                    self.should_quit = true;
                }
            }
            Mode::Normal => self.on_normal_key(key),
        }
    }

    fn on_normal_key(&mut self, key: KeyEvent) {
        let page = self.page_rows() as isize;
        let before = (self.selected, self.show_detail);
        self.on_list_key(key, page);
        if (self.selected, self.show_detail) != before {
            self.detail_scroll = 0;
        }
    }

    fn on_list_key(&mut self, key: KeyEvent, page: isize) {
        let detail_page = (self.size.1 / 3).max(1);
        match key.code {
            KeyCode::Char('q') => self.should_quit = true,
            // Esc steps back (the pane, then the filter) and never quits:
            // one key too many must not end an incident view.
            KeyCode::Esc => {
                if self.show_detail {
                    self.show_detail = false;
                } else if self.filter.take().is_some() {
                    self.matches.clear();
                    self.selected = None;
                }
            }
            KeyCode::Char('p') | KeyCode::Char(' ') => self.toggle_pause(),
            KeyCode::Char('/') => {
                let current = self
                    .filter
                    .as_ref()
                    .map(|f| f.text.clone())
                    .unwrap_or_default();
                self.mode = Mode::FilterInput(current);
            }
            KeyCode::Char('?') => self.mode = Mode::Help,
            KeyCode::Char('t') => self.mode = Mode::Transactions,
            KeyCode::Enter => self.show_detail = !self.show_detail,
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            // With the detail open, paging reads the change: a row wider
            // than the pane must be readable at 80×24.
            KeyCode::PageUp if self.show_detail => {
                self.detail_scroll = self.detail_scroll.saturating_sub(detail_page);
            }
            KeyCode::PageDown if self.show_detail => {
                self.detail_scroll =
                    (self.detail_scroll + detail_page).min(self.detail_overflow.get());
            }
            KeyCode::PageUp => self.move_by(-page),
            KeyCode::PageDown => self.move_by(page),
            KeyCode::Home | KeyCode::Char('g') => self.move_to_first(),
            KeyCode::End | KeyCode::Char('G') => self.selected = None,
            _ => {}
        }
    }

    fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        if !self.paused {
            for entry in std::mem::take(&mut self.pending) {
                self.admit(entry);
            }
            self.trim_ring();
        }
    }

    /// Rows a page of the list scrolls by.
    fn page_rows(&self) -> usize {
        (self.size.1 as usize).saturating_sub(18).max(1)
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

    fn move_by(&mut self, delta: isize) {
        let visible = self.visible();
        let Some(i) = self.selected_index(&visible) else {
            return;
        };
        let last = visible.len() - 1;
        let j = (i as isize + delta).clamp(0, last as isize) as usize;
        self.selected = if j == last && delta > 0 {
            None
        } else {
            Some(visible[j].seq)
        };
    }

    fn move_to_first(&mut self) {
        let first = self.visible().first().map(|e| e.seq);
        if first.is_some() {
            self.selected = first;
        }
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

/// The engine numbers each retry of an error (`… (retry 2)`); the alert
/// counts them instead.
fn without_retry_suffix(message: &str) -> &str {
    match message.rfind(" (retry ") {
        Some(i)
            if message.ends_with(')')
                && message[i + 8..message.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
        {
            &message[..i]
        }
        _ => message,
    }
}

/// `ORA-01291` from a message that starts with it.
fn ora_code_of(message: &str) -> Option<String> {
    let code = message.get(..9)?;
    (code.starts_with("ORA-") && code[4..].bytes().all(|b| b.is_ascii_digit()))
        .then(|| code.to_string())
}

/// Time lag as the screen shows it: zero while the engine is caught up
/// (idle), since then no redo is waiting however old the last row is;
/// otherwise as of now, counting the time since the engine's last poll, so
/// that a reader falling behind shows its backlog while it reads a window
/// and when it is done with it.
pub fn time_lag_s(status: &CaptureStatus) -> Option<u64> {
    if status.state == MiningState::Idle {
        return Some(0);
    }
    status.time_lag_s().map(|s| s.max(0) as u64)
}

/// What to do about a finding, where its message does not say it already.
pub fn finding_advice(f: &Finding) -> Option<&'static str> {
    match f {
        Finding::PartialBeforeImage { .. } => None,
        Finding::DictionaryMismatch { .. } => Some(
            "rebuild the LogMiner dictionary (EXECUTE DBMS_LOGMNR_D.BUILD) or mine with the online catalog once the DDL has settled",
        ),
        Finding::Unreconstructable { .. } => {
            Some("check supplemental logging on the table and that its column types are ones LogMiner supports")
        }
        Finding::UnsupportedType { .. } => {
            Some("exclude the column, or read it by snapshot: LogMiner cannot mine this type")
        }
        Finding::LobUnavailable { .. } | Finding::LobNotLogged { .. } => {
            Some("read the LOB column by snapshot where its value is needed")
        }
        Finding::CharacterHex { .. } => Some(
            "give the dictionary's character sets and column types so character data decodes to text",
        ),
        Finding::UnescapedQuote { .. } => {
            Some("compare the recovered value with the row in the table")
        }
        Finding::JsonUndecoded { .. } => {
            Some("read the JSON column by snapshot where the full value is needed")
        }
        // The message names the parameter to set.
        Finding::KeyOnlyBeforeImage { .. } => None,
    }
}

/// The partition maintenance in a DDL statement that replaces a segment
/// (a new data object id), if any.
pub fn partition_ddl_action(ddl: &str) -> Option<&'static str> {
    let up = ddl.to_uppercase();
    let words: Vec<&str> = up.split_whitespace().collect();
    if words.first() != Some(&"ALTER") {
        return None;
    }
    words.windows(2).find_map(|w| {
        let action = match w[0] {
            "TRUNCATE" => "TRUNCATE",
            "MOVE" => "MOVE",
            "EXCHANGE" => "EXCHANGE",
            "DROP" => "DROP",
            "SPLIT" => "SPLIT",
            "MERGE" => "MERGE",
            _ => return None,
        };
        matches!(w[1], "PARTITION" | "SUBPARTITION" | "PARTITIONS").then_some(action)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::Op;
    use crate::tui::feed;

    fn key(c: KeyCode) -> AppEvent {
        AppEvent::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    fn app_with(n: usize) -> App {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::Events(
            (0..n).map(|i| feed::sample_change(i as u64)).collect(),
        )));
        app
    }

    fn partition_truncate(i: u64) -> CapturedEvent {
        let mut e = feed::sample_ddl(i);
        if let CapturedEvent::Ddl(d) = &mut e {
            d.ddl = "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\"".into();
        }
        e
    }

    #[test]
    fn partition_ddl_raises_one_alert_that_counts_repeats() {
        let mut app = app_with(0);
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            feed::sample_ddl(1),
            partition_truncate(2),
        ])));
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            partition_truncate(3),
        ])));
        let alerts: Vec<&Alert> = app
            .alerts
            .iter()
            .filter(|a| a.code == "partition_ddl")
            .collect();
        assert_eq!(alerts.len(), 1, "{:?}", app.alerts);
        assert_eq!(alerts[0].count, 2);
        assert!(
            alerts[0].message.contains("TRUNCATE PARTITION"),
            "{}",
            alerts[0].message
        );
        assert!(alerts[0]
            .advice
            .as_deref()
            .is_some_and(|a| a.contains("ORA-08103")));
        assert_eq!(partition_ddl_action("ALTER TABLE T ADD (C NUMBER)"), None);
        assert_eq!(
            partition_ddl_action("alter table t exchange partition p with table x"),
            Some("EXCHANGE")
        );
    }

    #[test]
    fn an_old_transaction_is_flagged_once_and_its_commit_is_an_alert() {
        let mut app = app_with(0);
        let mut st = feed::steady_status(10);
        let xid = match &mut st.oldest_open {
            Some(o) => {
                o.start_time = st.current_time.map(|t| t - chrono::Duration::hours(2));
                o.xid.clone()
            }
            None => panic!("the steady status has an open transaction"),
        };
        for _ in 0..3 {
            app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
                st.clone(),
            ))));
        }
        let old: Vec<&Alert> = app
            .alerts
            .iter()
            .filter(|a| a.code == "old_transaction")
            .collect();
        assert_eq!(old.len(), 1);
        assert_eq!(old[0].count, 1, "flagged once, not on every status");
        assert!(
            old[0].message.contains(&xid) && old[0].message.contains("2h"),
            "{}",
            old[0].message
        );
        assert!(old[0].raised_at.is_some(), "stamped with the database time");
        let mut commit = feed::sample_change(5);
        // Its first change was made two hours before the commit.
        let commit_ms = 1_740_820_000_000;
        if let CapturedEvent::Change(c) = &mut commit {
            c.source.xid = xid.clone();
            c.commit_ts_ms = commit_ms;
            c.source.change_ts_ms = commit_ms - 7_200_000;
        }
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            commit.clone(),
            commit,
        ])));
        let done: Vec<&Alert> = app
            .alerts
            .iter()
            .filter(|a| a.code == "flagged_txn_committed")
            .collect();
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].count, 1, "one alert per commit, not per change");
        assert_eq!(
            done[0].raised_at,
            chrono::DateTime::from_timestamp_millis(commit_ms).map(|t| t.naive_utc()),
            "stamped with the commit's time, not the first change's"
        );
    }

    #[test]
    fn a_large_transaction_alert_carries_its_spill_figure() {
        let mut app = app_with(0);
        let mut st = feed::steady_status(10);
        if let Some(l) = &mut st.largest_open {
            l.events = 60_000;
            l.bytes = 96 << 20;
            l.spilled = true;
        }
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
        let big = app.alerts.iter().find(|a| a.code == "large_transaction");
        assert!(
            big.is_some_and(|a| a
                .message
                .contains("60,000 changes, 96.0 MiB spilled to disk")),
            "{:?}",
            app.alerts
        );
    }

    #[test]
    fn archives_deleted_ahead_raise_one_alert_and_again_only_for_another() {
        use crate::engine::metrics::MissingArchive;
        let mut app = app_with(0);
        let gone = |seqs: &[u64]| {
            let mut st = feed::steady_status(10);
            st.archives_missing_ahead = seqs
                .iter()
                .map(|&sequence| MissingArchive {
                    thread: 1,
                    sequence,
                    state: "DELETED",
                })
                .collect();
            AppEvent::Engine(EngineMessage::Status(Box::new(st)))
        };
        for _ in 0..3 {
            app.update(gone(&[1845]));
        }
        let count = |app: &App| {
            app.alerts
                .iter()
                .filter(|a| a.code == "archive_deleted_ahead")
                .count()
        };
        assert_eq!(count(&app), 1);
        let a = app
            .alerts
            .iter()
            .find(|a| a.code == "archive_deleted_ahead");
        assert!(
            a.is_some_and(|a| a.message.contains("thread 1 sequence 1845 (deleted)")
                && a.message.contains("reading sequence 1843")
                && a.advice
                    .as_deref()
                    .is_some_and(|v| v
                        .contains("RESTORE ARCHIVELOG SEQUENCE BETWEEN 1845 AND 1845 THREAD 1"))),
            "{:?}",
            app.alerts
        );
        app.update(gone(&[1845, 1846]));
        assert_eq!(count(&app), 2, "another log gone is news");
    }

    #[test]
    fn redo_detail_reaches_the_change_it_belongs_to() {
        let mut app = app_with(4);
        app.update(AppEvent::Engine(EngineMessage::RedoDetail(vec![
            feed::sample_redo(2),
            feed::sample_redo(99),
        ])));
        let with: Vec<u64> = app
            .visible()
            .iter()
            .filter(|e| e.redo.is_some())
            .map(|e| e.seq)
            .collect();
        assert_eq!(with, [2]);
        let redo = app.visible()[2].redo.clone();
        assert!(redo.is_some_and(|r| r.username.as_deref() == Some("APP")
            && r.sql_redo
                .is_some_and(|s| s.starts_with("delete from \"APP\".\"ORDER_LINES\""))));
    }

    #[test]
    fn a_new_reading_of_the_database_replaces_the_open_transactions() {
        let mut app = app_with(0);
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            feed::steady_status(3),
        ))));
        let mut reading = crate::engine::metrics::DbTransactions {
            read_at: None,
            transactions: app.header.db_transactions[..1].to_vec(),
            error: None,
        };
        app.update(AppEvent::Engine(EngineMessage::DbTransactions(
            reading.clone(),
        )));
        assert_eq!(app.header.db_transactions.len(), 1);
        assert_eq!(
            app.open_rows().len(),
            4,
            "the three the buffer holds stay listed beside the database's one"
        );
        reading.error = Some("ORA-03113".into());
        app.update(AppEvent::Engine(EngineMessage::DbTransactions(reading)));
        assert_eq!(
            app.header.db_transactions_error.as_deref(),
            Some("ORA-03113")
        );
        assert_eq!(
            app.header.db_transactions.len(),
            1,
            "a failed reading keeps the last list"
        );
    }

    #[test]
    fn a_transaction_only_the_database_reading_lists_is_aged_as_of_that_reading() {
        let mut app = app_with(0);
        let mut status = feed::steady_status(3);
        status.buffered.clear();
        status.oldest_open = None;
        status.largest_open = None;
        let now = status.current_time.expect("status time");
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(status))));
        let mut listed = app.header.db_transactions[..1].to_vec();
        let read_at = now - chrono::Duration::seconds(13);
        listed[0].transaction.start_time = Some(read_at - chrono::Duration::seconds(2));
        app.update(AppEvent::Engine(EngineMessage::DbTransactions(
            crate::engine::metrics::DbTransactions {
                read_at: Some(read_at),
                transactions: listed,
                error: None,
            },
        )));
        let rows = app.open_rows();
        assert_eq!(rows.len(), 1);
        // Two seconds old when the database listed it, 13 s ago.
        assert_eq!(app.txn_age_s(&rows[0]), Some(2));
        assert_eq!(app.open_summary().oldest_age_s, Some(2));
        // Once capture buffers it, it is open as of the newest status.
        let mut buffered = rows[0].clone();
        buffered.buffered = Some(crate::engine::metrics::OpenTxnSummary {
            xid: buffered.xid.clone(),
            start_scn: buffered.start_scn,
            start_time: buffered.start_time,
            events: 1,
            bytes: 100,
            spilled: false,
        });
        assert_eq!(app.txn_age_s(&buffered), Some(15));
    }

    #[test]
    fn ring_keeps_the_newest_and_counts_all() {
        let mut app = App::new(
            feed::demo_header(),
            ViewConfig {
                ring_capacity: 5,
                ..ViewConfig::default()
            },
        );
        app.update(AppEvent::Engine(EngineMessage::Events(
            (0..12).map(feed::sample_change).collect(),
        )));
        assert_eq!(app.ring_len(), 5);
        assert_eq!(app.received, 12);
        assert_eq!(app.visible().first().map(|e| e.seq), Some(7));
    }

    #[test]
    fn pause_freezes_the_list_and_resume_appends_what_arrived() {
        let mut app = app_with(3);
        app.update(key(KeyCode::Char('p')));
        assert!(app.paused);
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            feed::sample_change(3),
        ])));
        assert_eq!(app.ring_len(), 3);
        assert_eq!(app.pending_count(), 1);
        assert_eq!(app.received, 4);
        app.update(key(KeyCode::Char('p')));
        assert_eq!(app.ring_len(), 4);
        assert_eq!(app.pending_count(), 0);
    }

    #[test]
    fn selection_follows_newest_until_moved() {
        let mut app = app_with(5);
        assert_eq!(app.selected_entry().map(|e| e.seq), Some(4));
        app.update(key(KeyCode::Char('k')));
        assert_eq!(app.selected_entry().map(|e| e.seq), Some(3));
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            feed::sample_change(5),
        ])));
        assert_eq!(app.selected_entry().map(|e| e.seq), Some(3));
        app.update(key(KeyCode::Char('G')));
        assert_eq!(app.selected_entry().map(|e| e.seq), Some(5));
        app.update(key(KeyCode::Char('g')));
        assert_eq!(app.selected_entry().map(|e| e.seq), Some(0));
    }

    #[test]
    fn filter_applies_on_enter_and_esc_cancels() {
        let mut app = app_with(9);
        app.update(key(KeyCode::Char('/')));
        for c in "op:d".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        app.update(key(KeyCode::Esc));
        assert!(app.filter.is_none());
        assert!(!app.should_quit);
        app.update(key(KeyCode::Char('/')));
        for c in "op:d".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        app.update(key(KeyCode::Enter));
        let visible = app.visible();
        assert!(!visible.is_empty());
        assert!(visible.iter().all(|e| e.op_label() == "d"));
    }

    #[test]
    fn filtered_view_follows_new_events_eviction_and_resume() {
        let mut app = App::new(
            feed::demo_header(),
            ViewConfig {
                ring_capacity: 6,
                ..ViewConfig::default()
            },
        );
        app.update(AppEvent::Engine(EngineMessage::Events(
            (0..6).map(feed::sample_change).collect(),
        )));
        app.update(key(KeyCode::Char('/')));
        for c in "delete".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        app.update(key(KeyCode::Enter));
        let seqs = |app: &App| app.visible().iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(&app), [2, 5]);
        app.update(AppEvent::Engine(EngineMessage::Events(
            (6..9).map(feed::sample_change).collect(),
        )));
        assert_eq!(seqs(&app), [5, 8]);
        app.update(key(KeyCode::Char('p')));
        app.update(AppEvent::Engine(EngineMessage::Events(
            (9..12).map(feed::sample_change).collect(),
        )));
        assert_eq!(seqs(&app), [5, 8]);
        app.update(key(KeyCode::Char('p')));
        assert_eq!(seqs(&app), [8, 11]);
    }

    #[test]
    fn filter_text_matches_column_values_ignoring_case() {
        let app = app_with(9);
        let f = Filter::parse("shipped");
        let hits: Vec<_> = app.visible().into_iter().filter(|e| f.matches(e)).collect();
        assert!(!hits.is_empty());
        let f = Filter::parse("no-such-value");
        assert!(app.visible().into_iter().all(|e| !f.matches(e)));
    }

    #[test]
    fn filter_matches_qualified_names_and_non_ascii_values() {
        let app = app_with(3);
        assert_eq!(
            app.visible()
                .into_iter()
                .filter(|e| Filter::parse("app.order_lines").matches(e))
                .count(),
            1
        );
        assert!(contains_ci("Straße 5", "straße"));
        assert!(contains_ci("订单已发货", "发货"));
        assert!(!contains_ci("SHIPPED", "shipper"));
    }

    #[test]
    fn ddl_is_listed_with_its_statement_and_selectable_by_filter() {
        let mut app = app_with(2);
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            feed::sample_ddl(2),
        ])));
        let ddl = app
            .visible()
            .into_iter()
            .filter(|e| Filter::parse("ddl").matches(e))
            .collect::<Vec<_>>();
        assert_eq!(ddl.len(), 1);
        assert_eq!(ddl[0].op_label(), "ddl");
        assert_eq!(
            ddl[0].changed(),
            "ALTER TABLE \"APP\".\"ORDERS\" ADD (\"CHANNEL\" VARCHAR2(16))"
        );
    }

    #[test]
    fn multi_line_errors_become_one_line_alerts() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::SourceError {
            error: "ORA-00604: error at recursive SQL level 1\nORA-01555: snapshot too old".into(),
            ora_code: Some(604),
            advice: None,
            retrying: false,
            gap: None,
        }));
        assert_eq!(
            app.alerts[0].message,
            "ORA-00604: error at recursive SQL level 1 ORA-01555: snapshot too old"
        );
    }

    #[test]
    fn lost_keyboard_ends_the_screen() {
        let mut app = app_with(1);
        app.update(AppEvent::InputClosed);
        assert!(app.should_quit);
    }

    #[test]
    fn esc_closes_detail_before_quitting() {
        let mut app = app_with(1);
        app.update(key(KeyCode::Enter));
        assert!(app.show_detail);
        app.update(key(KeyCode::Esc));
        assert!(!app.show_detail && !app.should_quit);
        app.update(key(KeyCode::Esc));
        assert!(!app.should_quit, "only q quits");
        app.update(key(KeyCode::Char('q')));
        assert!(app.should_quit);
    }

    #[test]
    fn repeated_findings_are_one_alert_with_a_count() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        for _ in 0..3 {
            app.update(AppEvent::Engine(EngineMessage::Finding(
                feed::partial_image_finding(),
            )));
        }
        assert_eq!(app.alerts.len(), 1);
        assert_eq!(app.alerts[0].count, 3);
    }

    /// The engine reports a retried error twice, in the status's state and
    /// as a message numbered `(retry N)`: one alert, counting the drops.
    #[test]
    fn a_retried_drop_is_one_alert_counting_each_drop() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        let error = "ORA-03113: end-of-file on communication channel";
        for drop in 0..3 {
            let mut st = feed::steady_status(drop);
            st.state = MiningState::Retrying {
                attempt: 1,
                error: error.into(),
                advice: Some("cdcctl reconnects".into()),
            };
            app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
            app.update(AppEvent::Engine(EngineMessage::SourceError {
                error: format!("{error} (retry 1)"),
                ora_code: None,
                advice: Some("cdcctl reconnects".into()),
                retrying: true,
                gap: None,
            }));
            app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
                feed::steady_status(drop),
            ))));
        }
        assert_eq!(app.alerts.len(), 1, "{:?}", app.alerts);
        assert_eq!(app.alerts[0].code, "ORA-03113");
        assert_eq!(app.alerts[0].message, error);
        assert_eq!(app.alerts[0].count, 3);
    }

    #[test]
    fn issue11_a_buffer_warning_is_a_finding_that_a_reconnect_does_not_resolve() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::Warning {
            code: "ambiguous_undo_xid",
            message: "undo row at SCN 5 matches several open transactions; it was not applied"
                .into(),
        }));
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            feed::steady_status(1),
        ))));
        assert_eq!(app.alerts.len(), 1);
        let a = &app.alerts[0];
        assert_eq!((a.kind, a.resolved), (AlertKind::Finding, false));
        assert_eq!(a.code, "ambiguous_undo_xid");
    }

    /// A stop on an archive gap is reported by the status and by a message,
    /// after an alert that the same logs were deleted ahead: one alert.
    #[test]
    fn a_stop_on_an_archive_gap_is_one_alert_without_a_code_prefix() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.reported_missing.extend([(1, 101), (1, 102)]);
        app.raise(
            AlertKind::Finding,
            "archive_deleted_ahead".into(),
            "archived logs deleted ahead".into(),
            None,
            false,
        );
        let error = "archive gap on thread 1: sequences 101–102 are neither archived (available) nor online";
        let mut st = feed::steady_status(1);
        st.state = MiningState::Stopped {
            error: error.into(),
            advice: None,
        };
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
        app.update(AppEvent::Engine(EngineMessage::SourceError {
            error: error.into(),
            ora_code: None,
            advice: Some("RMAN> RESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;".into()),
            retrying: false,
            gap: Some((1, 101, 102)),
        }));
        assert_eq!(app.alerts.len(), 1, "{:?}", app.alerts);
        let a = &app.alerts[0];
        assert!(a.is_fatal() && a.count == 1);
        assert_eq!(a.text(), error);
        assert!(a
            .advice
            .as_deref()
            .is_some_and(|x| x.contains("BETWEEN 101 AND 102")));
    }

    #[test]
    fn an_alert_raised_before_the_first_status_gets_a_time() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::Finding(
            feed::partial_image_finding(),
        )));
        assert_eq!(app.alerts[0].raised_at, None);
        let st = feed::steady_status(1);
        let t = st.current_time;
        assert!(t.is_some());
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
        assert_eq!(app.alerts[0].raised_at, t);
        // An alert a change calls for carries the change's time.
        app.update(AppEvent::Engine(EngineMessage::Events(vec![
            partition_truncate(1),
        ])));
        let ddl = app.alerts.iter().find(|a| a.code == "partition_ddl");
        assert!(
            ddl.is_some_and(|a| a.raised_at.is_some()),
            "{:?}",
            app.alerts
        );
    }

    #[test]
    fn retrying_error_is_resolved_when_mining_resumes() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(feed::connection_dropped(true)));
        assert!(app.alerts[0].retrying && !app.alerts[0].resolved);
        assert!(app.fatal_error().is_none());
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            feed::steady_status(0),
        ))));
        assert!(app.alerts[0].resolved);
    }

    #[test]
    fn time_lag_counts_the_time_since_the_engine_polled_while_it_reads_a_window() {
        // At the end of a window the mined position is the SCN its poll
        // read; the 6 s the window took to read are redo waiting now.
        let mut st = feed::status_with_lag(5, 100, 0, 0);
        st.state = MiningState::Mining;
        assert_eq!(time_lag_s(&st), Some(0));
        st.polled_at = std::time::Instant::now().checked_sub(std::time::Duration::from_secs(6));
        assert!(st.polled_at.is_some());
        assert!(time_lag_s(&st).is_some_and(|s| s >= 6));
    }

    #[test]
    fn idle_engine_has_no_time_lag_however_old_the_last_row() {
        let mut st = feed::status_with_lag(5, 100, 300, 10);
        assert_eq!(time_lag_s(&st), Some(300));
        st.state = MiningState::Idle;
        assert_eq!(time_lag_s(&st), Some(0));
    }

    #[test]
    fn headline_alert_prefers_a_stopped_capture_over_newer_findings() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(feed::missing_log_error()));
        app.update(AppEvent::Engine(EngineMessage::Finding(
            feed::dictionary_finding(),
        )));
        assert_eq!(
            app.headline_alert().map(|a| a.code.as_str()),
            Some("ORA-01291")
        );
    }

    #[test]
    fn retrying_state_without_an_error_message_still_raises_one_alert() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        let mut st = feed::steady_status(3);
        st.state = MiningState::Retrying {
            attempt: 1,
            error: "ORA-03135: connection lost contact".into(),
            advice: Some("check firewalls' idle timeouts".into()),
        };
        for _ in 0..3 {
            app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
                st.clone(),
            ))));
        }
        assert_eq!(app.alerts.len(), 1);
        assert_eq!(app.alerts[0].code, "ORA-03135");
        assert!(app.alerts[0].retrying);
    }

    #[test]
    fn error_without_retry_is_fatal() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(feed::missing_log_error()));
        assert_eq!(
            app.fatal_error().map(|a| a.code.as_str()),
            Some("ORA-01291")
        );
    }

    #[test]
    fn throughput_counts_per_second_and_fills_idle_seconds_with_zero() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::Events(
            (0..7).map(feed::sample_change).collect(),
        )));
        app.update(AppEvent::Tick(Duration::from_millis(1_100)));
        app.update(AppEvent::Tick(Duration::from_millis(4_000)));
        let h: Vec<u64> = app.throughput.history().iter().copied().collect();
        assert_eq!(h, [7, 0, 0, 0]);
        assert_eq!(app.throughput.peak(), 7);
    }

    #[test]
    fn status_older_than_the_limit_is_stale() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            feed::steady_status(0),
        ))));
        app.update(AppEvent::Tick(Duration::from_secs(2)));
        assert_eq!(app.stale_for(), None);
        app.update(AppEvent::Tick(Duration::from_secs(9)));
        assert_eq!(app.stale_for(), Some(Duration::from_secs(9)));
    }

    #[test]
    fn no_status_at_all_is_stale_too() {
        let mut app = App::new(feed::demo_header(), ViewConfig::default());
        app.update(AppEvent::Tick(Duration::from_secs(2)));
        assert_eq!(app.stale_for(), None);
        app.update(AppEvent::Tick(Duration::from_secs(12)));
        assert_eq!(app.stale_for(), Some(Duration::from_secs(12)));
    }

    #[test]
    fn update_changed_columns_are_those_whose_value_differs() {
        let CapturedEvent::Change(c) = feed::sample_change(1) else {
            panic!("sample 1 is a change");
        };
        assert_eq!(c.op, Op::Update);
        assert_eq!(changed_columns(&c), ["STATUS", "UPDATED_AT"]);
    }
}
