//! Why capture is behind: one ranked cause, with one line of advice and the
//! evidence behind it, from the figures the engine, the sink and the source
//! already report ([`LagFacts`]). A pure function ([`diagnose`]) so every
//! screen, the status document and the metrics name the same cause.

use serde::{Deserialize, Serialize};

mod facts;
#[cfg(test)]
mod tests;

pub use facts::{from_status, snapshot_hold};

/// Time lag (seconds) from which capture counts as behind.
pub const BEHIND_LAG_S: i64 = 30;
/// Stream lag (seconds) from which a snapshot chunk being read is named as
/// holding the stream: the snapshot's promise is a stream lag under 5 s.
pub const SNAPSHOT_HOLD_LAG_S: i64 = 5;
/// Logs a session re-reads only for the oldest open transaction from which
/// that transaction holds the window back.
pub const PINNED_LOGS: u32 = 2;
/// Log switches per hour above which the redo logs are too small: Oracle's
/// guidance is a switch every 15 to 20 minutes, LogMiner starts a session
/// over a new log set at every switch.
pub const SWITCH_STORM_PER_HOUR: f64 = 30.0;
/// Seconds the engine must have waited on the sink, in one wait, for the
/// sink to be named while no window ends.
pub const SINK_STALL_S: f64 = 5.0;
/// Lag (seconds) from which windows slower than their redo count as
/// falling behind: below it, a busy capture's short windows, whose redo
/// times have a resolution of one second, flip between slower and faster.
pub const FALLING_LAG_S: i64 = 5;
/// How much longer than their redo the recent windows must take to count
/// as falling behind: a capture just keeping up has windows as long as
/// their redo, longer or shorter by turns, and is not named behind.
pub const FALLING_MARGIN: f64 = 1.1;
/// Share of a window a stage must take to be named as the one that dominates.
const DOMINANT_SHARE: f64 = 0.5;

/// Where the time of the last mined window went, in seconds of wall time.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct WindowTimings {
    /// `ADD_LOGFILE` and `START_LOGMNR` (zero when the session was reused).
    pub session_start_s: f64,
    /// The `V$LOGMNR_CONTENTS` query until it was open.
    pub contents_query_s: f64,
    /// Fetching the query's rows.
    pub fetch_s: f64,
    /// Parsing SQL_REDO and buffering transactions.
    pub parse_s: f64,
    /// Handing committed events to the sink (waiting on a full queue).
    pub sink_s: f64,
    /// The whole window, the poll included.
    pub total_s: f64,
    /// Database time the window's redo spans (redo time of its last row
    /// less that of the window before), when the rows carried times.
    pub redo_s: Option<f64>,
    pub scns: u64,
    pub logs: u32,
    pub rows: u64,
    /// Rows of LOB pieces among them (SELECT_LOB_LOCATOR, LOB_WRITE,
    /// LOB_TRIM, LOB_ERASE).
    #[serde(default)]
    pub lob_rows: u64,
}

impl WindowTimings {
    /// Time LogMiner took: session start, contents query, fetch.
    pub fn source_s(&self) -> f64 {
        self.session_start_s + self.contents_query_s + self.fetch_s
    }

    fn share_of_rows(&self, part: u64) -> f64 {
        if self.rows > 0 {
            part as f64 / self.rows as f64
        } else {
            0.0
        }
    }

    fn share(&self, part: f64) -> f64 {
        if self.total_s > 0.0 {
            part / self.total_s
        } else {
            0.0
        }
    }
}

/// The oldest open transaction, as the buffer and the database see it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct PinningTxn {
    pub xid: String,
    pub start_scn: u64,
    pub age_s: Option<i64>,
    pub events: u64,
    pub bytes: u64,
    /// Logs the session reads only because this transaction began in them.
    pub held_logs: u32,
    pub username: Option<String>,
    pub program: Option<String>,
    pub machine: Option<String>,
}

/// A source error the engine is retrying.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RetriedError {
    pub code: Option<String>,
    pub attempts: u32,
    pub message: String,
    pub advice: Option<String>,
}

/// A snapshot chunk being read on the engine's thread while the stream waits.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SnapshotHold {
    pub table: String,
    /// Rows of the table read so far.
    pub rows_read: u64,
}

/// The largest open transaction, once its rows spill to disk: every row
/// it adds is written out, and read back at its commit.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SpillingTxn {
    pub xid: String,
    pub events: u64,
    pub bytes: u64,
}

/// The sink's side.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SinkFacts {
    /// Mean time of recent durable commits.
    pub commit_s: Option<f64>,
    pub in_flight: u64,
    /// How long the engine has been waiting, now, on a full queue to the
    /// sink: no window ends meanwhile, so no window's timings show it.
    pub waiting_s: Option<f64>,
}

/// Everything [`diagnose`] weighs.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LagFacts {
    pub lag_s: Option<i64>,
    /// Share of recent wall time the engine spent mining rather than
    /// waiting for redo (0 to 1).
    pub busy_share: Option<f64>,
    pub window: Option<WindowTimings>,
    pub pinning: Option<PinningTxn>,
    pub sink: SinkFacts,
    pub log_switches_per_hour: Option<f64>,
    pub redo_log_bytes: Option<u64>,
    /// Online logs written and not yet archived (the CURRENT one excluded).
    pub online_not_archived: u32,
    /// Redo groups per thread.
    pub redo_groups: u32,
    pub snapshot: Option<SnapshotHold>,
    pub retrying: Option<RetriedError>,
    pub spilling: Option<SpillingTxn>,
}

/// The causes, in the order [`diagnose`] ranks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    SourceErrors,
    SnapshotChunk,
    SlowSink,
    LongTransaction,
    LogSwitchStorm,
    SlowLogminer,
    /// The engine's time goes to a transaction spilling to disk.
    Spilling,
    /// Most of the window's rows are LOB pieces.
    LobHeavy,
    Overloaded,
    ArchiverBehind,
    /// Behind, with no window timed yet to say where the time goes.
    Unexplained,
    KeepingUp,
}

impl Cause {
    pub const ALL: [Cause; 12] = [
        Cause::SourceErrors,
        Cause::SnapshotChunk,
        Cause::SlowSink,
        Cause::LongTransaction,
        Cause::LogSwitchStorm,
        Cause::SlowLogminer,
        Cause::Spilling,
        Cause::LobHeavy,
        Cause::Overloaded,
        Cause::ArchiverBehind,
        Cause::Unexplained,
        Cause::KeepingUp,
    ];

    /// The label of `cdcctl_lag_cause` and the JSON value.
    pub fn label(self) -> &'static str {
        match self {
            Cause::SourceErrors => "source_errors",
            Cause::SnapshotChunk => "snapshot_chunk",
            Cause::SlowSink => "slow_sink",
            Cause::LongTransaction => "long_transaction",
            Cause::LogSwitchStorm => "log_switch_storm",
            Cause::SlowLogminer => "slow_logminer",
            Cause::Spilling => "spilling",
            Cause::LobHeavy => "lob_heavy",
            Cause::Overloaded => "overloaded",
            Cause::ArchiverBehind => "archiver_behind",
            Cause::Unexplained => "unexplained",
            Cause::KeepingUp => "keeping_up",
        }
    }

    /// What an operator reads.
    pub fn title(self) -> &'static str {
        match self {
            Cause::SourceErrors => "source errors retried",
            Cause::SnapshotChunk => "a snapshot chunk holds the stream",
            Cause::SlowSink => "the sink is slow",
            Cause::LongTransaction => "a long transaction pins the restart SCN",
            Cause::LogSwitchStorm => "log-switch storm",
            Cause::SlowLogminer => "LogMiner is slow",
            Cause::Spilling => "a huge transaction spills to disk",
            Cause::LobHeavy => "LOB writes fill the redo",
            Cause::Overloaded => "redo arrives faster than the engine parses it",
            Cause::ArchiverBehind => "the archiver is behind",
            Cause::Unexplained => "behind, no window timed yet",
            Cause::KeepingUp => "keeping up",
        }
    }
}

/// One cause, its advice and its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub cause: Cause,
    pub title: String,
    pub advice: String,
    pub evidence: String,
}

impl Diagnosis {
    fn new(cause: Cause, advice: impl Into<String>, evidence: impl Into<String>) -> Self {
        Self {
            cause,
            title: cause.title().into(),
            advice: advice.into(),
            evidence: evidence.into(),
        }
    }

    /// `cause: evidence`, the line screens show.
    pub fn line(&self) -> String {
        if self.evidence.is_empty() {
            self.title.clone()
        } else {
            format!("{} ({})", self.title, self.evidence)
        }
    }
}

/// The one cause that explains the lag (or the risk) now. Errors and a
/// snapshot chunk stop the stream whatever else goes on; while capture is
/// behind, the stage that takes most of the window names the cause; a
/// transaction holding the window back is named even when capture keeps
/// up, since every session re-reads its logs and a restart begins there.
pub fn diagnose(f: &LagFacts) -> Diagnosis {
    if let Some(e) = &f.retrying {
        return source_errors(e);
    }
    let behind = is_behind(f);
    let held = behind || f.lag_s.unwrap_or(0) >= SNAPSHOT_HOLD_LAG_S;
    if let (Some(s), true) = (&f.snapshot, held) {
        return snapshot_chunk(s, f.lag_s);
    }
    if f.sink.waiting_s.is_some_and(|w| w >= SINK_STALL_S) {
        return sink_stalled(&f.sink, f.lag_s);
    }
    if behind {
        return dominant_stage(f).unwrap_or_else(|| {
            Diagnosis::new(
                Cause::Unexplained,
                "the next windows' timings will tell (cdcctl_window_seconds and its stages)",
                format!("lag {}s", f.lag_s.unwrap_or(0)),
            )
        });
    }
    if let Some(p) = f.pinning.as_ref().filter(|p| p.held_logs >= PINNED_LOGS) {
        return long_transaction(p);
    }
    if f.redo_groups > 1 && f.online_not_archived + 1 >= f.redo_groups {
        return archiver_behind(f);
    }
    if f.log_switches_per_hour
        .is_some_and(|s| s >= 2.0 * SWITCH_STORM_PER_HOUR)
    {
        return log_switch_storm(f);
    }
    Diagnosis::new(
        Cause::KeepingUp,
        "nothing to do",
        f.lag_s.map(|l| format!("lag {l}s")).unwrap_or_default(),
    )
}

/// Behind: the lag is past [`BEHIND_LAG_S`], or the recent windows took
/// clearly longer to read than the redo they cover ([`FALLING_MARGIN`])
/// while the engine never waited.
pub fn is_behind(f: &LagFacts) -> bool {
    let lag = f.lag_s.unwrap_or(0);
    let falling = f.window.is_some_and(|w| {
        w.redo_s.is_some_and(|r| w.total_s > r * FALLING_MARGIN)
            && f.busy_share.is_some_and(|b| b >= 0.9)
    });
    lag >= BEHIND_LAG_S || (falling && lag >= FALLING_LAG_S)
}

/// While behind: the sink, LogMiner (a pinned restart SCN or a log-switch
/// storm behind it, when either is there) or the engine's own parsing.
fn dominant_stage(f: &LagFacts) -> Option<Diagnosis> {
    let w = f.window?;
    if w.share(w.sink_s) >= DOMINANT_SHARE {
        return Some(slow_sink(&w, &f.sink));
    }
    if w.share(w.source_s()) >= DOMINANT_SHARE {
        if let Some(p) = f.pinning.as_ref().filter(|p| p.held_logs >= PINNED_LOGS) {
            return Some(long_transaction(p));
        }
        if f.log_switches_per_hour
            .is_some_and(|s| s >= SWITCH_STORM_PER_HOUR)
        {
            return Some(log_switch_storm(f));
        }
        return Some(slow_logminer(&w));
    }
    if let Some(t) = &f.spilling {
        return Some(spilling(t, &w));
    }
    if w.rows > 0 && w.share_of_rows(w.lob_rows) >= DOMINANT_SHARE {
        return Some(lob_heavy(&w));
    }
    Some(overloaded(f, &w))
}

fn pct(part: f64, w: &WindowTimings) -> String {
    format!("{:.0}%", 100.0 * w.share(part))
}

fn source_errors(e: &RetriedError) -> Diagnosis {
    let code = e.code.as_deref().unwrap_or("error");
    let message = e
        .message
        .strip_prefix(code)
        .map_or(e.message.as_str(), |m| m.trim_start_matches([':', ' ']));
    Diagnosis::new(
        Cause::SourceErrors,
        e.advice
            .clone()
            .unwrap_or_else(|| "check the database's alert log and the network".into()),
        format!(
            "{code} retried {}: {message}",
            plural(u64::from(e.attempts), "time", "times")
        ),
    )
}

fn snapshot_chunk(s: &SnapshotHold, lag: Option<i64>) -> Diagnosis {
    Diagnosis::new(
        Cause::SnapshotChunk,
        "the stream catches up once the snapshot ends; give --snapshot-chunk-rows a smaller value to interleave sooner",
        format!(
            "reading {} ({} rows so far), lag {}s",
            s.table,
            s.rows_read,
            lag.unwrap_or(0)
        ),
    )
}

/// ", commits take N ms" once a commit was timed.
fn commit_time(s: &SinkFacts) -> String {
    s.commit_s
        .map(|c| format!(", commits take {:.0} ms", c * 1000.0))
        .unwrap_or_default()
}

fn slow_sink(w: &WindowTimings, s: &SinkFacts) -> Diagnosis {
    let commit = commit_time(s);
    Diagnosis::new(
        Cause::SlowSink,
        SLOW_SINK_ADVICE,
        format!(
            "sink {} of the window, {} in flight{commit}",
            pct(w.sink_s, w),
            s.in_flight
        ),
    )
}

/// The engine blocked on a full queue: whatever the last window said, the
/// sink is what holds capture now.
fn sink_stalled(s: &SinkFacts, lag: Option<i64>) -> Diagnosis {
    let commit = commit_time(s);
    Diagnosis::new(
        Cause::SlowSink,
        SLOW_SINK_ADVICE,
        format!(
            "the engine has waited {:.0}s on the sink's full queue, lag {}s{commit}",
            s.waiting_s.unwrap_or(0.0),
            lag.unwrap_or(0)
        ),
    )
}

const SLOW_SINK_ADVICE: &str =
    "the destination does not keep up: check its disk (fsync) or the Kafka brokers' latency";

fn long_transaction(p: &PinningTxn) -> Diagnosis {
    let who = [&p.username, &p.program, &p.machine]
        .iter()
        .filter_map(|x| x.as_deref())
        .collect::<Vec<_>>()
        .join(" ");
    let age = p.age_s.map(|a| format!(", open {a}s")).unwrap_or_default();
    let who = if who.is_empty() {
        String::new()
    } else {
        format!(" by {who}")
    };
    Diagnosis::new(
        Cause::LongTransaction,
        format!(
            "ask the owner of {} to commit or roll back; until then every session re-reads its logs and a restart begins at SCN {}",
            p.xid, p.start_scn
        ),
        format!(
            "{}{who}{age}, {}, holds {} in the window",
            p.xid,
            plural(p.events, "change", "changes"),
            plural(u64::from(p.held_logs), "log", "logs")
        ),
    )
}

fn log_switch_storm(f: &LagFacts) -> Diagnosis {
    let size = f
        .redo_log_bytes
        .map(|b| match b / (1024 * 1024) {
            0 => format!(" of {} KiB", b / 1024),
            mib => format!(" of {mib} MiB"),
        })
        .unwrap_or_default();
    Diagnosis::new(
        Cause::LogSwitchStorm,
        "make the online redo logs larger (ALTER DATABASE ADD LOGFILE ... SIZE), aiming at a switch every 15 to 20 minutes",
        format!(
            "{:.0} log switches per hour{size}",
            f.log_switches_per_hour.unwrap_or(0.0)
        ),
    )
}

fn slow_logminer(w: &WindowTimings) -> Diagnosis {
    Diagnosis::new(
        Cause::SlowLogminer,
        "LogMiner reads slowly: check the database host's I/O and CPU, and capture fewer schemas or tables",
        format!(
            "session start {:.2}s, contents query {:.2}s, fetch {:.2}s of a {:.2}s window ({} logs)",
            w.session_start_s, w.contents_query_s, w.fetch_s, w.total_s, w.logs
        ),
    )
}

fn spilling(t: &SpillingTxn, w: &WindowTimings) -> Diagnosis {
    Diagnosis::new(
        Cause::Spilling,
        "its rows go through the spill directory until it commits: raise --spill-mb if memory allows, or give --spill-dir a faster disk",
        format!(
            "{}, {}, {} MiB buffered; parse {} of a {:.1}s window",
            t.xid,
            plural(t.events, "change", "changes"),
            t.bytes / (1024 * 1024),
            pct(w.parse_s, w),
            w.total_s
        ),
    )
}

fn lob_heavy(w: &WindowTimings) -> Diagnosis {
    Diagnosis::new(
        Cause::LobHeavy,
        "LOB values come in many small LOB_WRITE rows: --lob placeholder skips their content (updates then carry the marker), or capture the LOB tables in a run of their own",
        format!(
            "{} of the window's {} rows are LOB pieces; parse {} of a {:.1}s window",
            w.lob_rows,
            w.rows,
            pct(w.parse_s, w),
            w.total_s
        ),
    )
}

/// `n` and its noun, in the singular for one.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn overloaded(f: &LagFacts, w: &WindowTimings) -> Diagnosis {
    let busy = f
        .busy_share
        .map(|b| format!("engine busy {:.0}%, ", b * 100.0))
        .unwrap_or_default();
    let redo = w
        .redo_s
        .map(|r| format!(" for {r:.1}s of redo"))
        .unwrap_or_default();
    Diagnosis::new(
        Cause::Overloaded,
        "capture fewer tables, or run cdcctl on a faster host: parsing is the bottleneck",
        format!(
            "{busy}parse {} of a {:.1}s window{redo} ({} rows)",
            pct(w.parse_s, w),
            w.total_s,
            w.rows
        ),
    )
}

fn archiver_behind(f: &LagFacts) -> Diagnosis {
    Diagnosis::new(
        Cause::ArchiverBehind,
        "check the archive destinations (V$ARCHIVE_DEST: ERROR, space): a log reused before it is archived stops capture",
        format!(
            "{} of {} online logs not archived",
            f.online_not_archived, f.redo_groups
        ),
    )
}
