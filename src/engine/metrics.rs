//! What the capture engine reports about itself while it runs: positions,
//! lag, open transactions, the logs being mined, counts. `tail` draws it and
//! `run` exports it; both read the same snapshot type.

use std::time::Instant;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::row::Scn;

/// Where the mining loop is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum MiningState {
    #[default]
    Connecting,
    /// A session over a window is being read.
    Mining,
    /// Caught up with the current SCN; waiting for more redo.
    Idle,
    /// A transient error; the engine will retry.
    Retrying {
        attempt: u32,
        error: String,
        advice: Option<String>,
        /// The database's code (`ORA-03113`, `DM-6852`), the label the
        /// metrics count the error under.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Stopped on an error that needs an operator.
    Stopped {
        error: String,
        advice: Option<String>,
    },
    /// Reached the requested end (`--until-scn`, `--count`).
    Finished,
}

/// A log file in the current session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MinedLog {
    pub thread: u16,
    pub sequence: u64,
    pub online: bool,
    pub name: String,
}

/// An open transaction, as the buffer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenTxnSummary {
    pub xid: String,
    pub start_scn: Scn,
    pub start_time: Option<NaiveDateTime>,
    pub events: u64,
    pub bytes: u64,
    pub spilled: bool,
}

/// Totals by operation since the engine started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct OpCounts {
    pub inserts: u64,
    pub updates: u64,
    pub deletes: u64,
    /// TRUNCATE TABLE statements, each emitted as one `op: "t"` event.
    pub truncates: u64,
    pub ddl: u64,
    pub commits: u64,
    pub rollbacks: u64,
    pub partial_rollbacks: u64,
}

impl OpCounts {
    pub fn changes(&self) -> u64 {
        self.inserts + self.updates + self.deletes + self.truncates
    }
}

/// A snapshot of the engine's state.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CaptureStatus {
    pub state: MiningState,
    /// Database `CURRENT_SCN` and time at the last poll.
    pub current_scn: Scn,
    pub current_time: Option<NaiveDateTime>,
    /// When the last poll read `current_time`, on this process's clock. A
    /// window reaches the SCN read at its poll, so when it is done the
    /// mined position equals that reading however long reading it took:
    /// the database's time has moved on by that long, and the lag a screen
    /// shows must count it ([`Self::time_lag_s_at`]).
    #[serde(skip)]
    pub polled_at: Option<Instant>,
    /// Highest SCN read from `V$LOGMNR_CONTENTS`.
    pub mined_scn: Scn,
    /// Redo timestamp of the last row read.
    pub mined_time: Option<NaiveDateTime>,
    /// Where a restart would begin (oldest open transaction − 1).
    pub restart_scn: Scn,
    /// Highest commit SCN emitted.
    pub commit_scn: Scn,
    pub window: (Scn, Scn),
    pub logs: Vec<MinedLog>,
    pub open_transactions: usize,
    pub oldest_open: Option<OpenTxnSummary>,
    pub largest_open: Option<OpenTxnSummary>,
    pub counts: OpCounts,
    pub rows_read: u64,
    pub findings: u64,
    /// Every open transaction the buffer holds, oldest first, when a screen
    /// asked for them (`RunOptions::detail`); not part of `run`'s export.
    #[serde(skip)]
    pub buffered: Vec<OpenTxnSummary>,
    /// Archived logs past the read position that the database no longer
    /// has (deleted, or gone from V$ARCHIVED_LOG): capture stops with
    /// ORA-01291 when it reaches them unless they are restored first.
    pub archives_missing_ahead: Vec<MissingArchive>,
    /// Where the time of the windows goes, and the redo logs' behaviour.
    pub mining: MiningFigures,
}

/// The mining side's figures: the last window's timings, how busy the
/// engine is, what the session re-reads for the oldest open transaction,
/// and the redo logs as last listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MiningFigures {
    /// Windows mined since the start (a window is counted once however
    /// many times its status is sent).
    pub windows: u64,
    pub last_window: Option<super::lag_cause::WindowTimings>,
    /// The recent windows blended (about the last five): what the lag's
    /// cause weighs, so one short window after a long one does not say
    /// "keeping up" while the lag grows.
    #[serde(default)]
    pub recent_windows: Option<super::lag_cause::WindowTimings>,
    /// Share of recent wall time spent mining rather than waiting (0 to 1).
    pub busy_share: Option<f64>,
    /// Logs the last session read only because the oldest open
    /// transaction began in them.
    pub held_logs: u32,
    pub redo: RedoFigures,
    /// Transactions the buffer dropped after `--abandon-after`.
    pub abandoned_transactions: u64,
    /// The mining session's PGA, where the source can say.
    #[serde(default)]
    pub session_memory: Option<super::port::SessionMemory>,
}

/// The redo logs as the last inventory showed them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct RedoFigures {
    pub switches_per_hour: Option<f64>,
    /// Size of the online redo logs (the largest).
    pub log_bytes: Option<u64>,
    /// Online logs written and not archived yet (CURRENT excluded), on the
    /// thread with most.
    pub online_not_archived: u32,
    /// Online log groups per thread.
    pub groups: u32,
}

/// An archived log capture will need that is not there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingArchive {
    pub thread: u16,
    pub sequence: u64,
    /// `DELETED` (V$ARCHIVED_LOG status D or DELETED = YES), `UNAVAILABLE`
    /// (status U or X), or `NOT LISTED` (no row at all).
    pub state: &'static str,
}

impl CaptureStatus {
    /// `CURRENT_SCN − mined SCN`.
    pub fn scn_lag(&self) -> u64 {
        self.current_scn.saturating_sub(self.mined_scn)
    }

    /// `now − redo time of the last mined row`, in seconds, as of now:
    /// what every screen, log line, metric and status file shows.
    pub fn time_lag_s(&self) -> Option<i64> {
        self.time_lag_s_at(Instant::now())
    }

    /// The time lag at `now` on this process's clock: the database time
    /// read at the last poll plus what has passed since, less the redo
    /// time of the last mined row. A window reaches the SCN read at its
    /// poll, so a reader slower than the redo makes each window longer
    /// than the last while the lag as of the poll stays near zero; this
    /// grows with the backlog instead. Without a poll instant (a status
    /// made elsewhere) it is the lag as of the last poll.
    pub fn time_lag_s_at(&self, now: Instant) -> Option<i64> {
        let since = self
            .polled_at
            .map(|p| now.saturating_duration_since(p))
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .unwrap_or_default();
        Some(
            (self.current_time? + since - self.mined_time?)
                .num_seconds()
                .max(0),
        )
    }
}

/// What the engine thread sends to whoever drives it (`tail`'s screen,
/// `run`'s sink loop). Messages are small; events come in batches.
#[derive(Debug, Clone)]
pub enum EngineMessage {
    /// Committed events, in commit order.
    Events(Vec<super::event::CapturedEvent>),
    /// The latest state; sent after every batch and at least once a second.
    Status(Box<CaptureStatus>),
    /// A diagnosis about captured data.
    Finding(super::finding::Finding),
    /// What the transaction buffer did to data on its own judgement (a
    /// transaction abandoned, an undo row it could not place): about the
    /// data, not the source, so nothing a reconnect resolves.
    Warning { code: &'static str, message: String },
    /// A source error: shown with its advice; `retrying` tells whether the
    /// engine will try again by itself.
    SourceError {
        error: String,
        ora_code: Option<u32>,
        advice: Option<String>,
        retrying: bool,
        /// The archived logs missing when the error is an archive gap:
        /// (thread, first sequence, last sequence).
        gap: Option<(u16, u64, u64)>,
    },
    /// The engine stopped (end reached, or a fatal error already reported).
    Stopped,
    /// The snapshot of a `cdcctl run` checkpoint that a screen follows
    /// (`tail --checkpoint`), as last read; `None` when there is none or
    /// it has finished.
    Snapshot(Option<Box<super::snapshot::SnapshotProgress>>),
    /// The database's open transactions with their sessions, read again on
    /// the screen's slow timer (`RunOptions::db_transactions_every`).
    DbTransactions(DbTransactions),
    /// The redo text and user of changes just sent (`RunOptions::detail`),
    /// for a screen's detail pane; never part of the envelope.
    RedoDetail(Vec<RedoDetail>),
}

/// One reading of V$TRANSACTION joined to V$SESSION.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DbTransactions {
    /// The database's clock at the last poll before the reading.
    pub read_at: Option<NaiveDateTime>,
    pub transactions: Vec<crate::engine::port::SessionTransaction>,
    /// Why the views could not be read (the list is then empty).
    pub error: Option<String>,
}

/// `SQL_REDO` and `USERNAME` of one emitted change, keyed like the
/// envelope's identity: (commit SCN, XID, index in the transaction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedoDetail {
    pub commit_scn: Scn,
    pub xid: String,
    pub index: u32,
    pub sql_redo: Option<String>,
    pub username: Option<String>,
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn at(s: &str) -> Option<NaiveDateTime> {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").ok()
    }

    #[test]
    fn time_lag_grows_with_the_time_a_window_takes_to_read() {
        let polled = Instant::now();
        // The window reached the SCN read at its poll: as of that poll,
        // nothing is behind.
        let st = CaptureStatus {
            state: MiningState::Mining,
            current_time: at("2025-03-01 10:00:00"),
            mined_time: at("2025-03-01 10:00:00"),
            polled_at: Some(polled),
            ..CaptureStatus::default()
        };
        assert_eq!(st.time_lag_s(), Some(0));
        assert_eq!(st.time_lag_s_at(polled), Some(0));
        // Reading it took 7 s: that much redo waits now.
        assert_eq!(st.time_lag_s_at(polled + Duration::from_secs(7)), Some(7));
        let behind = CaptureStatus {
            mined_time: at("2025-03-01 09:59:58"),
            ..st
        };
        assert_eq!(
            behind.time_lag_s_at(polled + Duration::from_millis(3500)),
            Some(5)
        );
    }

    #[test]
    fn time_lag_without_a_poll_instant_is_the_lag_at_the_last_poll() {
        let st = CaptureStatus {
            current_time: at("2025-03-01 10:00:09"),
            mined_time: at("2025-03-01 10:00:00"),
            ..CaptureStatus::default()
        };
        assert_eq!(st.time_lag_s_at(Instant::now()), Some(9));
    }
}
