//! The engine's port: what capture asks of a database, in Oracle's own
//! terms. [`RedoSource`] is the redo side of a database (SCN clock, log
//! inventory, LogMiner, snapshot reads); the files beside it hold the
//! vocabulary it speaks in. The sources (the simulator, Oracle and
//! DM8 under `source`) implement it, so the engine depends on none of them.

pub mod dm_codes;
mod error;
pub mod inventory;
mod mining;
mod names;
pub mod ora_codes;
mod transactions;

use chrono::NaiveDateTime;

use super::row::{LogMinerRow, Scn};

pub use error::{sequence_range, OraCode, SourceError};
pub use inventory::{
    flushed_redo_end, ArchiveDestStatus, ArchivedLog, Incarnation, LogInventory, OnlineLog,
    RedoThread,
};
pub use mining::{ContentsQuery, MiningOptions, SessionRequest};
pub(crate) use names::normalize_ident;
pub use names::{like, split_qualified, Dialect, TableName, TablePattern};
pub use transactions::{OpenTransaction, SessionTransaction, TransactionSession};

/// One chunk of a consistent snapshot read (`AS OF SCN`, ordered by key).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SnapshotChunk {
    pub columns: Vec<String>,
    /// Rows in key order, values as the engine's canonical text (None = NULL).
    pub rows: Vec<Vec<Option<String>>>,
    /// Key of the last row, to pass as `after_key` for the next chunk;
    /// `None` when the table is exhausted.
    pub last_key: Option<Vec<String>>,
}

/// Current SCN with the database time it was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScnTime {
    pub scn: Scn,
    pub time: NaiveDateTime,
}

/// The memory of the capture's own session, where LogMiner keeps its
/// state: the PGA of its server process (`V$PROCESS`) and its UGA
/// (`V$SESSTAT`), in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SessionMemory {
    pub used: u64,
    pub allocated: u64,
    /// The most it has allocated since the session began.
    pub max: u64,
    /// The session's UGA ('session uga memory'), where `V$SESSTAT` is
    /// granted.
    #[serde(default)]
    pub uga: Option<u64>,
}

/// One redo thread's log switches over the last hour (`V$LOG_HISTORY`
/// rows whose log began then) and the seconds since the first of those
/// logs began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RecentSwitches {
    pub thread: u16,
    pub switches: u32,
    pub span_s: u64,
}

/// The redo side of a database: SCN clock, logs, LogMiner, snapshot reads.
pub trait RedoSource: Send {
    /// A short description for headers and logs ("sim:demo", "oracle://host/svc").
    fn describe(&self) -> String;

    /// The database family whose LogMiner this is: DM8 mines archived logs
    /// only and prints its own SQL_REDO literals, so the engine plans and
    /// reports by it.
    fn dialect(&self) -> Dialect {
        Dialect::Oracle
    }

    /// `SELECT CURRENT_SCN FROM V$DATABASE` with `SYSDATE`.
    fn current_scn(&mut self) -> Result<ScnTime, SourceError>;

    /// `V$LOG`, `V$LOGFILE`, `V$ARCHIVED_LOG`, `V$ARCHIVE_DEST_STATUS`, `V$THREAD`.
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError>;

    /// The current incarnation (`V$DATABASE`), which a checkpoint records.
    fn incarnation(&mut self) -> Result<Incarnation, SourceError>;

    /// Transactions open now (`V$TRANSACTION`; `GV$TRANSACTION` on RAC),
    /// oldest first: at a first start, the ones begun before the start
    /// point are mined from their own start.
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError>;

    /// The open transactions with the sessions holding them (`V$SESSION`
    /// joined on `SADDR = SES_ADDR`, and on the instance on RAC). A source
    /// without sessions answers with none.
    fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        Ok(self
            .open_transactions()?
            .into_iter()
            .map(|transaction| SessionTransaction {
                transaction,
                session: None,
            })
            .collect())
    }

    /// `V$THREAD` alone: cheap, read on every poll to learn where the redo
    /// on disk ends and whether a thread switched logs.
    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        Ok(self.log_inventory()?.threads)
    }

    /// The inventory without `V$ARCHIVED_LOG` (incarnation, online logs,
    /// destinations); `threads` may be left empty, the caller has them.
    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        let mut inventory = self.log_inventory()?;
        inventory.archived.clear();
        Ok(inventory)
    }

    /// `V$ARCHIVED_LOG` rows of the current incarnation at destination
    /// `dest_id` holding SCNs above `from_scn` (`NEXT_CHANGE# > from_scn`).
    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        let mut archived = self.log_inventory()?.archived;
        archived.retain(|a| a.dest_id == dest_id && a.next_change > from_scn);
        Ok(archived)
    }

    /// `ADD_LOGFILE` for each file, then `START_LOGMNR`.
    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError>;

    /// Opens a query over `V$LOGMNR_CONTENTS` of the running session.
    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError>;

    /// Appends up to `max_rows` rows of the open query to `out`, in the
    /// order the view returns them. Returns how many were appended; 0 means
    /// the query is exhausted.
    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError>;

    /// `END_LOGMNR`.
    fn end_session(&mut self) -> Result<(), SourceError>;

    /// `SELECT ... FROM owner.table AS OF SCN :scn WHERE key > :after ORDER BY key`,
    /// at most `limit` rows.
    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError>;

    /// The key of the `n`-th row past `after_key` `AS OF SCN` in key
    /// order, `None` when fewer rows follow: where the chunk after the
    /// next `n` rows starts, so that readers can read consecutive chunks
    /// of one table at one SCN side by side. A database answers from the
    /// key's index alone; this default reads the rows.
    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        Ok(self
            .snapshot_chunk(table, as_of_scn, after_key, n)?
            .last_key)
    }

    /// Another session on the same database, for snapshot reads beside
    /// the stream's mining; `None` where the source has no second session
    /// (a replayed file), and reads then share the stream's.
    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        Ok(None)
    }

    /// Drops what is remembered about the segments of `table` (extents,
    /// partitions), after ORA-08103 said one of them changed: the next
    /// snapshot read looks them up again.
    fn forget_segments(&mut self, table: &TableName) {
        let _ = table;
    }

    /// The data object ids of the segments holding `table`'s rows now
    /// (the table's, or its partitions' and subpartitions'), in ascending
    /// order. A snapshot read by ROWID checks them before each chunk: a
    /// ROWID names a place in one segment, and a MOVE, SHRINK into a new
    /// segment, TRUNCATE or partition maintenance replaces it. `None` where
    /// the source cannot say.
    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        let _ = table;
        Ok(None)
    }

    /// The memory of the session mining redo, where granted; `None`
    /// where the source cannot say (no grant on the views, not modelled).
    fn session_memory(&mut self) -> Result<Option<SessionMemory>, SourceError> {
        Ok(None)
    }

    /// Each redo thread's log switches over the last hour, from the
    /// database's own history (not the logs ahead of the reader); `None`
    /// where the source cannot say.
    fn recent_log_switches(&mut self) -> Result<Option<Vec<RecentSwitches>>, SourceError> {
        Ok(None)
    }

    /// Re-establishes the connection after `SourceError::is_transient` errors.
    fn reconnect(&mut self) -> Result<(), SourceError>;
}

impl<T: RedoSource + ?Sized> RedoSource for Box<T> {
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn dialect(&self) -> Dialect {
        (**self).dialect()
    }
    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        (**self).current_scn()
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        (**self).log_inventory()
    }
    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        (**self).incarnation()
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        (**self).open_transactions()
    }
    fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        (**self).session_transactions()
    }
    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        (**self).redo_threads()
    }
    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        (**self).online_inventory()
    }
    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        (**self).archived_logs_from(from_scn, dest_id)
    }
    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        (**self).start_session(request)
    }
    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        (**self).query_contents(query)
    }
    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        (**self).fetch(max_rows, out)
    }
    fn end_session(&mut self) -> Result<(), SourceError> {
        (**self).end_session()
    }
    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        (**self).snapshot_chunk(table, as_of_scn, after_key, limit)
    }
    fn forget_segments(&mut self, table: &TableName) {
        (**self).forget_segments(table)
    }
    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        (**self).snapshot_key_after(table, as_of_scn, after_key, n)
    }
    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        (**self).another_session()
    }
    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        (**self).segment_ids(table)
    }
    fn session_memory(&mut self) -> Result<Option<SessionMemory>, SourceError> {
        (**self).session_memory()
    }
    fn recent_log_switches(&mut self) -> Result<Option<Vec<RecentSwitches>>, SourceError> {
        (**self).recent_log_switches()
    }
    fn reconnect(&mut self) -> Result<(), SourceError> {
        (**self).reconnect()
    }
}
