//! The two traits the engine and preflight read through, in Oracle's own
//! terms, and their implementations: `sim` (the built-in simulator),
//! `oracle` (the real database through the `oracle` crate), `dm` (Dameng
//! DM8 through the pure-Rust `dm-pure` crate) and `evidence`
//! (catalog facts collected offline).
//!
//! `Catalog` answers what preflight and `partitions` need; `RedoSource` is
//! what the capture engine mines. Both speak in rows of Oracle's views so the
//! real backend stays a thin layer of SQL and the simulator has to behave like
//! Oracle rather than like the engine's wishes.
//!
//! `yashandb` reads YashanDB's catalog through ODBC (the `yashandb-odbc`
//! build feature) and maps its rows as `evidence` maps a collected file.

pub mod address;
pub mod catalog;
pub mod dm;
pub mod error;
pub mod evidence;
pub mod inventory;
pub mod oracle;
pub mod replay;
pub mod sim;
pub mod yashandb;

pub use catalog::*;
pub use error::{OraCode, SourceError};
pub use inventory::*;

use chrono::NaiveDateTime;

use crate::engine::row::{LogMinerRow, Scn};

/// Catalog facts for preflight and `partitions`.
pub trait Catalog {
    /// `V$DATABASE`, `V$INSTANCE`, `V$PARAMETER`, `V$PDBS`, recovery area,
    /// undo, services: the instance as a whole.
    fn instance(&mut self) -> Result<InstanceFacts, SourceError>;

    /// The connected session: user, container, privileges, roles, profile.
    fn session(&mut self) -> Result<SessionFacts, SourceError>;

    /// Tables matching any of the patterns (`%` wildcards), with columns,
    /// keys, log groups, partitions and grants. An empty pattern list means
    /// every non-Oracle-maintained schema.
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError>;

    /// Open transactions (`V$TRANSACTION`), oldest first.
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError>;

    /// The open transactions with the sessions holding them (`V$SESSION`,
    /// `GV$SESSION` on RAC), oldest first: what an operator needs to ask
    /// for a commit or to kill the session. A source that knows no
    /// sessions answers with the transactions alone.
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        Ok(self
            .open_transactions()?
            .into_iter()
            .map(|transaction| SessionTransaction {
                transaction,
                session: None,
            })
            .collect())
    }

    /// Online and archived logs, destinations and threads.
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError>;

    /// The PDB whose tables [`Catalog::tables`] (and, for a live source,
    /// snapshot reads) see, for a session in CDB$ROOT: each container has
    /// its own dictionary, so the root's `ALL_*` views do not show a PDB's
    /// tables. `name` is a `V$PDBS.NAME`; `None` reads the connected
    /// container. Offline facts were read already, in whatever container
    /// their collection ran, so they take no notice of it.
    fn set_pdb(&mut self, name: Option<&str>) -> Result<(), SourceError> {
        let _ = name;
        Ok(())
    }
}

/// Options of `DBMS_LOGMNR.START_LOGMNR` the engine may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MiningOptions {
    pub dict_from_online_catalog: bool,
    pub no_rowid_in_stmt: bool,
    pub committed_data_only: bool,
    /// Desupported from 19c: asking for it there raises ORA-44609.
    pub continuous_mine: bool,
}

/// What a LogMiner session is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRequest {
    /// Log file names, in the order they are added (the first with `NEW`).
    pub log_files: Vec<String>,
    pub start_scn: Scn,
    /// Inclusive upper bound passed as `ENDSCN`.
    pub end_scn: Scn,
    pub options: MiningOptions,
}

/// The `WHERE` of a `V$LOGMNR_CONTENTS` query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContentsQuery {
    /// `SCN > from_scn`.
    pub from_scn: Scn,
    /// `SCN <= to_scn`.
    pub to_scn: Scn,
    /// Owners whose DML and DDL rows are wanted, as `LIKE` patterns (`%`
    /// and `_` are wildcards); empty means all but Oracle's own.
    pub owners: Vec<String>,
    /// `SRC_CON_NAME = :pdb` when mining a PDB from CDB$ROOT.
    pub pdb: Option<String>,
}

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

    /// Drops what is remembered about the segments of `table` (extents,
    /// partitions), after ORA-08103 said one of them changed: the next
    /// snapshot read looks them up again.
    fn forget_segments(&mut self, table: &TableName) {
        let _ = table;
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
    fn reconnect(&mut self) -> Result<(), SourceError> {
        (**self).reconnect()
    }
}
