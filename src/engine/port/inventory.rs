//! The log inventory: rows of `V$LOG`, `V$LOGFILE`, `V$ARCHIVED_LOG`,
//! `V$ARCHIVE_DEST_STATUS` and `V$THREAD`, plus the incarnation from
//! `V$DATABASE`. The session planner chooses logs from it; preflight reads
//! retention, gaps and destinations from it.

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::engine::row::Scn;

/// A row of `V$LOG` joined with its first member from `V$LOGFILE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct OnlineLog {
    pub group: u32,
    pub thread: u16,
    pub sequence: u64,
    pub bytes: u64,
    pub members: u32,
    /// `CURRENT`, `ACTIVE`, `INACTIVE`, `UNUSED`, `CLEARING`.
    pub status: String,
    /// `ARCHIVED = 'YES'`.
    pub archived: bool,
    pub first_change: Scn,
    /// `NEXT_CHANGE#`; Oracle shows the maximum SCN for the CURRENT log.
    pub next_change: Option<Scn>,
    pub first_time: Option<NaiveDateTime>,
    /// File names of the members (`V$LOGFILE.MEMBER`).
    pub member_files: Vec<String>,
}

/// A row of `V$ARCHIVED_LOG`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ArchivedLog {
    /// `NAME`; NULL once the file was deleted through RMAN.
    pub name: Option<String>,
    pub dest_id: u32,
    pub thread: u16,
    pub sequence: u64,
    pub first_change: Scn,
    pub next_change: Scn,
    pub first_time: Option<NaiveDateTime>,
    pub next_time: Option<NaiveDateTime>,
    /// `A` available, `D` deleted, `U` unavailable, `X` expired.
    pub status: String,
    pub deleted: bool,
    pub archived: bool,
    pub resetlogs_change: Scn,
    pub bytes: u64,
}

impl ArchivedLog {
    /// Usable by LogMiner: named, archived, available, not deleted.
    pub fn is_available(&self) -> bool {
        self.name.is_some() && self.archived && self.status == "A" && !self.deleted
    }
}

/// A row of `V$ARCHIVE_DEST_STATUS` (with `V$ARCHIVE_DEST.DESTINATION`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ArchiveDestStatus {
    pub dest_id: u32,
    pub dest_name: String,
    /// `VALID`, `INACTIVE`, `DEFERRED`, `ERROR`, `FULL`, ...
    pub status: String,
    /// `LOCAL` or a standby type.
    pub dest_type: String,
    pub destination: Option<String>,
}

/// A row of `V$THREAD`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RedoThread {
    pub thread: u16,
    /// `OPEN` or `CLOSED`.
    pub status: String,
    /// `PUBLIC`, `PRIVATE` or `DISABLED`.
    pub enabled: String,
    pub current_sequence: u64,
    /// `LAST_REDO_CHANGE#`: the SCN of the last redo the thread's log writer
    /// put on disk. Redo still in the instance's log buffer is above it and
    /// invisible to LogMiner.
    pub last_redo_scn: Scn,
    /// `ENABLE_CHANGE#`: the thread has no redo below this SCN (a RAC node
    /// added later).
    #[serde(default)]
    pub enable_change: Scn,
    /// `DISABLE_CHANGE#`: a disabled thread has no redo at or above this SCN
    /// (0 while enabled).
    #[serde(default)]
    pub disable_change: Scn,
    /// `CHECKPOINT_CHANGE#`: a CLOSED thread wrote everything below it.
    #[serde(default)]
    pub checkpoint_change: Scn,
}

impl RedoThread {
    /// An open instance whose log writer may still hold redo in memory.
    pub fn is_open(&self) -> bool {
        self.status == "OPEN" && self.is_public()
    }

    /// Enabled for every instance. A PRIVATE thread belongs to one instance's
    /// private use and carries no redo capture has to read.
    pub fn is_public(&self) -> bool {
        self.enabled == "PUBLIC"
    }

    /// Whether the thread can hold redo with SCNs in `(from_scn, to_scn]`.
    pub fn has_redo_between(&self, from_scn: Scn, to_scn: Scn) -> bool {
        if self.enabled == "PRIVATE" {
            return false;
        }
        let starts_after = self.enable_change > to_scn;
        let disabled_before =
            self.enabled == "DISABLED" && self.disable_change <= from_scn.saturating_add(1);
        // A cleanly closed instance wrote its last redo at its final checkpoint.
        let closed_before = self.status == "CLOSED"
            && self.checkpoint_change > 0
            && self.checkpoint_change <= from_scn;
        !starts_after && !disabled_before && !closed_before
    }
}

/// The SCN up to which every thread's redo is on disk: one below the lowest
/// `LAST_REDO_CHANGE#` of the open threads. Redo at that SCN itself may not
/// be complete (several records share an SCN and the rest may still be in
/// the log buffer). `None` when no thread is open.
pub fn flushed_redo_end(threads: &[RedoThread]) -> Option<Scn> {
    threads
        .iter()
        .filter(|t| t.is_open())
        .map(|t| t.last_redo_scn.saturating_sub(1))
        .min()
}

/// The database incarnation (`V$DATABASE.RESETLOGS_CHANGE#` and
/// `RESETLOGS_TIME`): an OPEN RESETLOGS (after FLASHBACK DATABASE or an
/// incomplete recovery) starts a new one, whose redo from its RESETLOGS
/// SCN on is a different history from the old one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incarnation {
    pub resetlogs_change: Scn,
    pub resetlogs_time: NaiveDateTime,
}

impl std::fmt::Display for Incarnation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RESETLOGS_CHANGE# {} at {}",
            self.resetlogs_change,
            self.resetlogs_time.format("%Y-%m-%d %H:%M:%S")
        )
    }
}

/// Everything the planner and preflight know of the redo logs at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LogInventory {
    /// `V$DATABASE.RESETLOGS_CHANGE#` of the current incarnation.
    pub resetlogs_change: Scn,
    pub online: Vec<OnlineLog>,
    pub archived: Vec<ArchivedLog>,
    pub destinations: Vec<ArchiveDestStatus>,
    pub threads: Vec<RedoThread>,
}

impl LogInventory {
    /// The CURRENT online log of a thread.
    pub fn current_log(&self, thread: u16) -> Option<&OnlineLog> {
        self.online
            .iter()
            .find(|l| l.thread == thread && l.status == "CURRENT")
    }

    /// Threads that are enabled (RAC instances whose redo must be read).
    pub fn enabled_threads(&self) -> impl Iterator<Item = &RedoThread> {
        self.threads.iter().filter(|t| t.enabled != "DISABLED")
    }

    /// Threads whose redo a window `(from_scn, to_scn]` must read: not
    /// PRIVATE, enabled at or before `to_scn`, not disabled before `from_scn`.
    pub fn threads_with_redo(
        &self,
        from_scn: Scn,
        to_scn: Scn,
    ) -> impl Iterator<Item = &RedoThread> {
        self.threads
            .iter()
            .filter(move |t| t.has_redo_between(from_scn, to_scn))
    }
}
