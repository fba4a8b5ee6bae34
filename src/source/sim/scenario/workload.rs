//! `[workload]` and `[[faults]]`: the changes the simulated application
//! makes (rates, mixes, long and big transactions, partition maintenance)
//! and the faults injected into the instance.

use serde::Deserialize;

fn d_rate() -> f64 {
    20.0
}
fn d_ins() -> u32 {
    50
}
fn d_upd() -> u32 {
    35
}
fn d_del() -> u32 {
    15
}
fn d_size() -> [u32; 2] {
    [1, 5]
}
fn d_conc() -> u32 {
    3
}
fn d_user() -> String {
    "APP".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Row changes per second of database time.
    #[serde(default = "d_rate")]
    pub rate: f64,
    #[serde(default = "d_ins")]
    pub insert: u32,
    #[serde(default = "d_upd")]
    pub update: u32,
    #[serde(default = "d_del")]
    pub delete: u32,
    /// Changes per transaction, inclusive range.
    #[serde(default = "d_size")]
    pub txn_size: [u32; 2],
    /// Transactions open at once.
    #[serde(default = "d_conc")]
    pub concurrency: u32,
    /// Percent of transactions that end in ROLLBACK.
    #[serde(default)]
    pub rollback_pct: f64,
    /// Percent of transactions that roll back to a savepoint before committing.
    #[serde(default)]
    pub savepoint_pct: f64,
    /// Percent of statements that fail and are rolled back on their own
    /// (statement-level rollback) while their transaction goes on.
    #[serde(default)]
    pub statement_rollback_pct: f64,
    /// Percent of updates that rewrite a CLOB or BLOB through `dbms_lob`
    /// instead (LOB rows with no DML row), on tables that have one.
    #[serde(default)]
    pub lob_update_pct: f64,
    /// Percent of VARCHAR2, CHAR and NVARCHAR2 values that hold a control
    /// character, which LogMiner cannot show as text: it prints them as
    /// `HEXTORAW` of their bytes in the column's character set.
    #[serde(default)]
    pub nondisplayable_text_pct: f64,
    /// The user the application connects as (`USERNAME`).
    #[serde(default = "d_user")]
    pub username: String,
    #[serde(default)]
    pub long_transactions: Vec<LongTxnSpec>,
    #[serde(default)]
    pub big_transactions: Vec<BigTxnSpec>,
    #[serde(default)]
    pub maintenance: Vec<MaintenanceSpec>,
}

impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            rate: d_rate(),
            insert: d_ins(),
            update: d_upd(),
            delete: d_del(),
            txn_size: d_size(),
            concurrency: d_conc(),
            rollback_pct: 0.0,
            savepoint_pct: 0.0,
            statement_rollback_pct: 0.0,
            lob_update_pct: 0.0,
            nondisplayable_text_pct: 0.0,
            username: d_user(),
            long_transactions: Vec::new(),
            big_transactions: Vec::new(),
            maintenance: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongTxnSpec {
    /// Seconds after the start (warm-up included) when it begins.
    pub at_s: u64,
    /// How long it stays open.
    pub duration_s: u64,
    pub changes: u32,
    /// `OWNER.TABLE` it writes to (default: any).
    #[serde(default)]
    pub table: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BigTxnSpec {
    pub at_s: u64,
    pub changes: u32,
    #[serde(default)]
    pub table: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaintenanceAction {
    TruncatePartition,
    DropPartition,
    MovePartition,
    /// `EXCHANGE PARTITION ... WITH TABLE` an empty table of the same
    /// shape (the archive-out pattern): the partition's rows leave the
    /// table without row redo and its segment gets a new data object id.
    ExchangePartition,
    /// `TRUNCATE TABLE`: every row leaves without row redo and each
    /// segment gets a new data object id; a capture emits a truncate event.
    TruncateTable,
    /// `ALTER TABLE ... MOVE` (or `SHRINK SPACE COMPACT` into a new
    /// segment): every segment of the table gets a new data object id and
    /// its rows new ROWIDs; no row redo.
    MoveTable,
    /// `ALTER TABLE ... ADD` the `column` of the entry (DM8 only): rows
    /// mined after it render with the new column set, also those written
    /// before it.
    AddColumn,
    DropTable,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceSpec {
    pub at_s: u64,
    /// `OWNER.TABLE`.
    pub table: String,
    pub action: MaintenanceAction,
    /// The partition (default: the oldest).
    #[serde(default)]
    pub partition: Option<String>,
    /// Repeat every this many seconds.
    #[serde(default)]
    pub every_s: Option<u64>,
    /// The column `add_column` adds.
    #[serde(default)]
    pub column: Option<super::tables::ColumnSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The next call raises ORA-03113; `reconnect()` heals it.
    ConnectionDrop,
    /// The newest archived log (or `sequence`) is deleted.
    ArchiveDeleted,
    /// Undo older than the fault is overwritten: earlier `AS OF` reads raise ORA-01555.
    UndoOverwritten,
    /// The archives of the next `count` log switches are deleted as soon as written.
    ArchiveGap,
    /// FLASHBACK DATABASE (or an incomplete recovery) and OPEN RESETLOGS: a
    /// new incarnation, with a new RESETLOGS_CHANGE# and RESETLOGS_TIME.
    Resetlogs,
    /// The first member of every multiplexed online group turns INVALID
    /// (`V$LOGFILE.STATUS`): opening it raises ORA-00313.
    MemberInvalid,
}

impl FaultKind {
    /// The name a scenario file gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::ConnectionDrop => "connection_drop",
            FaultKind::ArchiveDeleted => "archive_deleted",
            FaultKind::UndoOverwritten => "undo_overwritten",
            FaultKind::ArchiveGap => "archive_gap",
            FaultKind::Resetlogs => "resetlogs",
            FaultKind::MemberInvalid => "member_invalid",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    pub kind: FaultKind,
    /// Seconds after the start (warm-up included).
    #[serde(default)]
    pub at_s: Option<u64>,
    /// Or when the SCN reaches this.
    #[serde(default)]
    pub at_scn: Option<u64>,
    #[serde(default)]
    pub sequence: Option<u64>,
    #[serde(default)]
    pub count: Option<u32>,
    /// `connection_drop` only: the listener stays down this long, so each
    /// reconnect meanwhile raises ORA-12541 (an outage, not a blip).
    #[serde(default)]
    pub duration_s: Option<u64>,
}
