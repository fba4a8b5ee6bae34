//! What a LogMiner session is asked for: the files and SCN range it starts
//! with, its `START_LOGMNR` options, and the `WHERE` of a query over
//! `V$LOGMNR_CONTENTS`.

use crate::engine::row::Scn;

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
