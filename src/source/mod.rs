//! The sources: `sim` (the built-in simulator), `oracle` (the real
//! database through the `oracle` crate), `dm` (Dameng DM8 through the
//! pure-Rust `dm-pure` crate) and `evidence` (catalog facts collected
//! offline), and the `Catalog` trait preflight reads through.
//!
//! `Catalog` answers what preflight and `partitions` need; `RedoSource`,
//! what the capture engine mines, is the engine's own port
//! (`crate::engine::port`), re-exported here with its vocabulary. Both
//! speak in rows of Oracle's views so the real backend stays a thin layer
//! of SQL and the simulator has to behave like Oracle rather than like the
//! engine's wishes.
//!
//! `yashandb` reads YashanDB's catalog through ODBC (the `yashandb-odbc`
//! build feature) and maps its rows as `evidence` maps a collected file.

pub mod address;
pub mod catalog;
pub mod dm;
pub mod evidence;
pub mod oracle;
pub mod replay;
pub mod sim;
pub mod yashandb;

pub use catalog::*;
// The log inventory's rows keep their `source::inventory` path too.
pub use crate::engine::port::inventory::{self, *};
pub use crate::engine::port::{
    ContentsQuery, MiningOptions, OraCode, RedoSource, ScnTime, SessionRequest, SnapshotChunk,
    SourceError,
};

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
