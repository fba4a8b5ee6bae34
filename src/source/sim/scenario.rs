//! Scenario files: the TOML that describes a simulated instance, its tables,
//! workload and faults, and the built-in scenarios embedded in the binary.
//!
//! Every section denies unknown keys, so a typo is an error with its line,
//! never a silently ignored setting.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::NaiveDateTime;
use serde::Deserialize;
use toml::Spanned;

use super::value::ColType;

/// A built-in scenario: name, one-line description, TOML text.
pub struct Builtin {
    pub name: &'static str,
    pub description: &'static str,
    pub text: &'static str,
}

macro_rules! builtin {
    ($name:literal, $desc:literal) => {
        Builtin {
            name: $name,
            description: $desc,
            text: include_str!(concat!("scenarios/", $name, ".toml")),
        }
    };
}

/// Every built-in scenario, in the order `cdcctl sim scenarios` lists them.
pub const BUILTINS: &[Builtin] = &[
    builtin!("demo", "healthy 19c CDB: PDB ORCLPDB1, C##CDCCTL in CDB$ROOT, APP.ORDERS, APP.DOCS and the interval-partitioned APP.ORDER_HIS"),
    builtin!("noarchivelog", "19c CDB in NOARCHIVELOG mode: online logs are overwritten and nothing is archived"),
    builtin!("no-supplemental-logging", "19c CDB without supplemental logging: updates carry only changed columns and ROWID"),
    builtin!("missing-grants", "19c CDB whose capture user lacks LOGMINING, SELECT ANY TRANSACTION and FLASHBACK"),
    builtin!("wrong-container", "19c CDB connected to the PDB with a local user: START_LOGMNR raises ORA-65040"),
    builtin!("undo-too-small", "19c CDB with UNDO_RETENTION of 60 s under a busy workload: snapshots hit ORA-01555"),
    builtin!("fra-nearly-full", "19c CDB whose recovery area is 96% used with nothing reclaimable"),
    builtin!("archive-gap", "19c CDB where a cleanup job deletes archived logs before capture reads them (ORA-01291)"),
    builtin!("interval-partition-churn", "the ORA-08103 incident: APP.ORDER_HIS gains interval partitions and is truncated and moved during a snapshot"),
    builtin!("snapshot-under-fire", "an initial snapshot under fire: interval partitions created, truncated, exchanged, moved and dropped, undo overwritten, a table dropped and the connection lost while APP.ORDER_HIS is read"),
    builtin!("long-transaction", "19c CDB with a transaction left open for hours, pinning the restart SCN"),
    builtin!("big-transaction", "19c CDB with a 60,000-change transaction among normal traffic"),
    builtin!("oracle11g", "non-CDB 11.2.0.4 in ARCHIVELOG with minimal supplemental logging and a DBA user"),
    builtin!("rac", "two-node RAC 19c CDB: two redo threads, node 2 quiet for minutes at a time"),
    builtin!("lobs", "19c CDB with MAX_STRING_SIZE = EXTENDED: CLOB/BLOB (EMPTY_LOB inserts, dbms_lob rewrites), XMLType and 32k VARCHAR2 values in their LOB, XML DOC and 32K rows"),
    builtin!("redo-forms", "21c CDB in ZHS16GBK: table aliases, TIMESTAMP(0) under a SS.FF format, native JSON, character data LogMiner prints as HEXTORAW"),
    builtin!("dm8", "healthy Dameng DM8: ARCH on, RLOG_APPEND_LOGIC = 2, DBMS_LOGMNR installed, a table of every DM8 column type with long LOBs as OUT_CLOB"),
    builtin!("dm8-append-logic-0", "DM8 with RLOG_APPEND_LOGIC = 0: files are archived but V$LOGMNR_CONTENTS comes back empty"),
    builtin!("dm8-no-arch", "DM8 with archiving off: no archived file for DBMS_LOGMNR to mine"),
    builtin!("example", "the fully commented example scenario (every key with its default)"),
];

/// A scenario file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error("unknown scenario `{name}`: the built-in scenarios are {builtins}; or give the path of a .toml file")]
    UnknownBuiltin { name: String, builtins: String },
    #[error("cannot read scenario file {path}: {message}; check the path, or name a built-in scenario (cdcctl sim scenarios)")]
    Io { path: String, message: String },
    #[error("{origin}, line {line}, column {column}, key `{key}`: {message}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        key: String,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

/// Database- or table-level supplemental logging.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SuppLevel {
    /// No supplemental logging at all.
    None,
    /// `ADD SUPPLEMENTAL LOG DATA` (minimal).
    #[default]
    Min,
    /// `(PRIMARY KEY) COLUMNS`.
    Pk,
    /// `(ALL) COLUMNS`.
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum LogMode {
    #[default]
    #[serde(rename = "ARCHIVELOG")]
    Archivelog,
    #[serde(rename = "NOARCHIVELOG")]
    Noarchivelog,
}

fn default_seed() -> u64 {
    42
}
fn default_start_time() -> Spanned<String> {
    Spanned::new(0..0, "2025-03-01T09:00:00".to_string())
}
fn yes() -> bool {
    true
}

/// The whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Database time when the simulation starts (`YYYY-MM-DDTHH:MM:SS`).
    #[serde(default = "default_start_time")]
    pub start_time: Spanned<String>,
    /// Seconds of workload generated before the first call, so that logs
    /// have switched and archives exist.
    #[serde(default)]
    pub warmup_s: u64,
    pub instance: InstanceSpec,
    pub connection: ConnectionSpec,
    #[serde(default)]
    pub redo: RedoSpec,
    #[serde(default)]
    pub tables: Vec<TableSpec>,
    #[serde(default)]
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub logminer: LogMinerSpec,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// The DM8 settings of an `instance.dialect = "dm"` scenario.
    #[serde(default)]
    pub dm: DmSpec,
}

/// What DM8 writes for a transaction that ends in ROLLBACK when mining
/// without COMMITTED_DATA_ONLY: DM8's documentation does not say, so the
/// simulator models both forms and the engine must be right under each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DmRollbackRows {
    /// Nothing after the transaction's DML: no undo rows, no end row.
    #[default]
    None,
    /// Undo rows flagged `ROLL_BACK = 1`, still no end row.
    Flagged,
}

fn d_append_logic() -> u8 {
    2
}

/// `[dm]`: the DM8 instance settings (`V$DM_INI`, packages, topology).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DmSpec {
    /// `ARCH_INI = 1`: archiving configured in dmarch.ini.
    #[serde(default = "yes")]
    pub arch_ini: bool,
    /// `RLOG_APPEND_LOGIC`: 0 logs nothing for LogMiner, 1 the key in
    /// before images, 2 the full before image.
    #[serde(default = "d_append_logic")]
    pub rlog_append_logic: u8,
    /// `MPP_INI = 1`: an MPP cluster, which DBMS_LOGMNR does not support.
    #[serde(default)]
    pub mpp: bool,
    /// `SF_CHECK_SYSTEM_PACKAGE('DBMS_LOGMNR')`.
    #[serde(default = "yes")]
    pub logmnr_package: bool,
    /// `LOGMNR_PARSE_LOB = 1`: long LOBs print `OUT_CLOB(LOB_ID: n)`.
    #[serde(default)]
    pub parse_lob: bool,
    /// What a rolled-back transaction leaves in `V$LOGMNR_CONTENTS`.
    #[serde(default)]
    pub rollback_rows: DmRollbackRows,
    /// `ENABLE_FLASHBACK`.
    #[serde(default)]
    pub enable_flashback: bool,
}

impl Default for DmSpec {
    fn default() -> Self {
        DmSpec {
            arch_ini: true,
            rlog_append_logic: d_append_logic(),
            mpp: false,
            logmnr_package: true,
            parse_lob: false,
            rollback_rows: DmRollbackRows::None,
            enable_flashback: false,
        }
    }
}

fn d_timestamp_format() -> String {
    "YYYY-MM-DD HH24:MI:SS.FF9".into()
}

/// How the mining session prints SQL_REDO, beyond what the data decides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogMinerSpec {
    /// Percent of UPDATE and DELETE rows printed with a table alias
    /// (`update "S"."T" a set a."C" = … where a."K" = …`), as Oracle's
    /// XMLType example and users' plain DML show it.
    #[serde(default)]
    pub table_alias_pct: f64,
    /// The session's `NLS_TIMESTAMP_FORMAT` (and, with ` TZH:TZM`, its
    /// `NLS_TIMESTAMP_TZ_FORMAT`): `…SS.FF9` as cdcctl sets it, or `…SS.FF`
    /// as another tool's session may have it, printing a TIMESTAMP(p) value
    /// with p fraction digits (an empty fraction for TIMESTAMP(0)).
    #[serde(default = "d_timestamp_format")]
    pub nls_timestamp_format: String,
}

impl Default for LogMinerSpec {
    fn default() -> Self {
        LogMinerSpec {
            table_alias_pct: 0.0,
            nls_timestamp_format: d_timestamp_format(),
        }
    }
}

fn d_db() -> String {
    "ORCLCDB".into()
}
fn d_undo_ret() -> u64 {
    900
}
fn d_undo_ts() -> String {
    "UNDOTBS1".into()
}
fn d_undo_mb() -> u64 {
    256
}
fn d_fra_size() -> u64 {
    20 << 30
}
fn d_fra_used() -> u64 {
    2 << 30
}
fn d_threads() -> u16 {
    1
}
fn d_start_scn() -> u64 {
    13_000_000
}
fn d_resetlogs() -> u64 {
    1_920_977
}
fn d_charset() -> String {
    "AL32UTF8".into()
}
fn d_nchar_charset() -> String {
    "AL16UTF16".into()
}
fn d_role() -> String {
    "PRIMARY".into()
}
fn d_open() -> String {
    "READ WRITE".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstanceSpec {
    /// `oracle` (the default) or `dm`: a Dameng DM8 instance, whose
    /// settings are in `[dm]`, whose column types are DM8's and whose
    /// LogMiner prints DM8's rows.
    #[serde(default)]
    pub dialect: crate::source::Dialect,
    /// `11.2`, `12.2`, `19c`, `21c`, `23ai`, or a full `19.22.0.0.0`; a
    /// DM8 instance gives its own (`8.1.4.6`).
    pub version: Spanned<String>,
    #[serde(default = "d_db")]
    pub db_name: String,
    #[serde(default)]
    pub instance_name: Option<String>,
    #[serde(default)]
    pub cdb: bool,
    #[serde(default)]
    pub pdbs: Vec<String>,
    #[serde(default)]
    pub log_mode: LogMode,
    #[serde(default)]
    pub supplemental_logging: SuppLevel,
    #[serde(default)]
    pub force_logging: bool,
    #[serde(default = "d_undo_ret")]
    pub undo_retention_s: u64,
    #[serde(default = "d_undo_ts")]
    pub undo_tablespace: String,
    /// Size of the undo tablespace, MiB (autoextended as far as it may
    /// go). Committed undo is kept for `undo_retention_s` only while it
    /// fits: beyond it the oldest is overwritten and `AS OF` reads that need
    /// it raise ORA-01555, as without RETENTION GUARANTEE. It also bounds
    /// the simulator's memory at high change rates.
    #[serde(default = "d_undo_mb")]
    pub undo_tablespace_mb: u64,
    #[serde(default)]
    pub undo_retention_guarantee: bool,
    #[serde(default = "yes")]
    pub undo_autoextensible: bool,
    #[serde(default)]
    pub snapshot_too_old_errors: u64,
    /// Rows an `AS OF SCN` read returns per second of database time (0:
    /// reads take no time). With the virtual clock the workload runs on
    /// while a chunk is read, so DDL and undo loss can land mid-read.
    #[serde(default)]
    pub read_rows_per_s: u64,
    #[serde(default = "d_fra_size")]
    pub recovery_area_size: u64,
    /// Bytes used by files other than the archives the simulation writes.
    #[serde(default = "d_fra_used")]
    pub recovery_area_used: u64,
    /// Bytes of that usage that are reclaimable.
    #[serde(default)]
    pub recovery_area_reclaimable: u64,
    #[serde(default = "d_threads")]
    pub threads: u16,
    /// Per-thread behaviour of a RAC database: quiet periods, a node added later.
    #[serde(default)]
    pub thread_schedule: Vec<ThreadSpec>,
    #[serde(default = "d_start_scn")]
    pub start_scn: u64,
    #[serde(default = "d_resetlogs")]
    pub resetlogs_change: u64,
    #[serde(default = "d_role")]
    pub database_role: String,
    #[serde(default = "d_open")]
    pub open_mode: String,
    #[serde(default)]
    pub wallet_status: Option<String>,
    /// `NLS_CHARACTERSET`: the encoding of CHAR/VARCHAR2/CLOB bytes, which
    /// LogMiner prints as `HEXTORAW` when it cannot show them as text.
    #[serde(default = "d_charset")]
    pub characterset: String,
    /// `NLS_NCHAR_CHARACTERSET`, for NCHAR/NVARCHAR2/NCLOB.
    #[serde(default = "d_nchar_charset")]
    pub nchar_characterset: String,
    /// Extra or overriding `V$PARAMETER` values (lower-case names).
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// How one redo thread (RAC instance) behaves over time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadSpec {
    /// `THREAD#`, 1 to `instance.threads`.
    pub thread: u16,
    /// `[from_s, to_s)` periods of database time in which no transaction
    /// starts on this instance: its log writer has nothing to write.
    #[serde(default)]
    pub quiet: Vec<[u64; 2]>,
    /// The thread is enabled (ALTER DATABASE ENABLE PUBLIC THREAD) and its
    /// instance opened at this time; before it the thread is DISABLED.
    #[serde(default)]
    pub enabled_at_s: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    pub user: String,
    /// `CDB$ROOT`, a PDB name, or the database name for a non-CDB.
    #[serde(default)]
    pub container: Option<String>,
    /// Privileges (`SESSION_PRIVS`); absent means what cdcctl's setup script grants.
    #[serde(default)]
    pub privileges: Option<Vec<String>>,
    #[serde(default)]
    pub roles: Vec<String>,
    /// Packages the user holds a direct EXECUTE grant on (`DBMS_LOGMNR`);
    /// EXECUTE_CATALOG_ROLE and DBA cover them without one.
    #[serde(default)]
    pub execute_on: Vec<String>,
    #[serde(default)]
    pub container_data: Option<Vec<String>>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub account_status: Option<String>,
    #[serde(default)]
    pub idle_time: Option<String>,
    #[serde(default)]
    pub password_life_time: Option<String>,
    #[serde(default)]
    pub default_tablespace: Option<String>,
    #[serde(default = "yes")]
    pub has_quota: bool,
    #[serde(default)]
    pub service_name: Option<String>,
}

fn d_groups() -> u32 {
    3
}
fn d_group_bytes() -> u64 {
    8 << 20
}
fn d_members() -> u32 {
    1
}
fn d_seq() -> u64 {
    100
}
fn d_format() -> String {
    "%t_%s_%r.dbf".into()
}
fn d_dests() -> Vec<DestSpec> {
    vec![DestSpec {
        id: 1,
        name: None,
        destination: "USE_DB_RECOVERY_FILE_DEST".into(),
        status: d_valid(),
    }]
}
fn d_valid() -> String {
    "VALID".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedoSpec {
    #[serde(default = "d_groups")]
    pub groups: u32,
    #[serde(default = "d_group_bytes")]
    pub group_bytes: u64,
    #[serde(default = "d_members")]
    pub members: u32,
    #[serde(default = "d_seq")]
    pub start_sequence: u64,
    #[serde(default = "d_format")]
    pub log_archive_format: String,
    #[serde(default = "d_dests")]
    pub destinations: Vec<DestSpec>,
    /// Archived logs older than this are deleted (RMAN DELETE ... COMPLETED BEFORE).
    #[serde(default)]
    pub archive_retention_s: Option<u64>,
    /// Redo records the simulator keeps in memory; past this, the oldest
    /// archived logs are deleted (and shown deleted) as a retention job would.
    /// Online logs are never given up, so a reader within the online logs
    /// never meets the cap; the default (about 300 bytes a record, some
    /// 600 MB) holds about 35 s of redo at 50,000 row changes/s, so a
    /// reader may fall some 20 s behind there before an archive it still
    /// needs goes.
    #[serde(default = "d_memory_records")]
    pub memory_records: usize,
    /// `LOG_BUFFER`: LGWR writes when a third of it is full (or 1 MB of redo
    /// is waiting), on every commit, and every three seconds.
    #[serde(default = "d_log_buffer")]
    pub log_buffer_bytes: u64,
}

fn d_log_buffer() -> u64 {
    16 * 1024 * 1024
}

fn d_memory_records() -> usize {
    2_000_000
}

impl Default for RedoSpec {
    fn default() -> Self {
        RedoSpec {
            groups: d_groups(),
            group_bytes: d_group_bytes(),
            members: d_members(),
            start_sequence: d_seq(),
            log_archive_format: d_format(),
            destinations: d_dests(),
            archive_retention_s: None,
            memory_records: d_memory_records(),
            log_buffer_bytes: d_log_buffer(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DestSpec {
    pub id: u32,
    #[serde(default)]
    pub name: Option<String>,
    pub destination: String,
    #[serde(default = "d_valid")]
    pub status: String,
}

fn d_rows() -> u64 {
    100
}
fn d_weight() -> f64 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub owner: String,
    pub name: String,
    /// The PDB holding the table (default: the first PDB).
    #[serde(default)]
    pub pdb: Option<String>,
    /// Table-level supplemental log group.
    #[serde(default)]
    pub supplemental_logging: Option<SuppLevel>,
    /// Rows loaded before the simulation starts.
    #[serde(default = "d_rows")]
    pub rows: u64,
    /// Share of the workload's changes.
    #[serde(default = "d_weight")]
    pub weight: f64,
    pub columns: Vec<ColumnSpec>,
    #[serde(default)]
    pub primary_key: Vec<String>,
    #[serde(default)]
    pub partitioning: Option<PartitioningSpec>,
    /// Object privileges the connected user holds on it.
    #[serde(default)]
    pub grants: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    #[serde(default = "yes")]
    pub nullable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartitionKind {
    Range,
    Interval,
    List,
    Hash,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitioningSpec {
    #[serde(rename = "type")]
    pub kind: PartitionKind,
    pub column: String,
    /// Months per interval partition (interval partitioning on a DATE).
    #[serde(default)]
    pub interval_months: Option<u32>,
    /// Number of hash partitions.
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default)]
    pub partitions: Vec<PartitionSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    pub name: String,
    /// Range: `2025-02-01` (DATE key), a number, or `MAXVALUE`.
    #[serde(default)]
    pub high_value: Option<String>,
    /// List: the values, or `DEFAULT`.
    #[serde(default)]
    pub values: Vec<String>,
}

/// Rows a table may start with.
const MAX_ROWS: u64 = 10_000_000;
/// Database time simulated before the first answer.
const MAX_WARMUP_S: u64 = 86_400;
/// Workload actions (row changes and commits) per second of database time:
/// enough for a 50k changes/s soak, finite so a typo cannot spin for ever.
const MAX_RATE: f64 = 100_000.0;
/// Changes in one generated transaction.
const MAX_TXN_SIZE: u32 = 1_000_000;

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
}

/// Version aliases a scenario may use and the `VERSION_FULL` they stand for.
pub const VERSIONS: &[(&str, &str)] = &[
    ("11.2", "11.2.0.4.0"),
    ("12.2", "12.2.0.1.0"),
    ("19c", "19.22.0.0.0"),
    ("21c", "21.3.0.0.0"),
    ("23ai", "23.5.0.24.07"),
];

/// Line and column (1-based) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}

/// The key on a line (`key = value`) or the table header (`[x]`).
fn key_on_line(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    let line = text[start..end].trim();
    if let Some(h) = line.strip_prefix('[') {
        return h.trim_matches(|c| c == '[' || c == ']').trim().to_string();
    }
    // The error may point at a key itself (unknown field): `key = ...`.
    let here = &text[offset..end];
    let ident_len = here
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        .count();
    if ident_len > 0 && here[ident_len..].trim_start().starts_with('=') {
        return here[..ident_len].to_string();
    }
    // Inline tables: take the key nearest before the offset.
    let upto = &text[start..offset];
    let segment = upto.rsplit([',', '{']).next().unwrap_or(upto);
    let cand = segment.split('=').next().unwrap_or("").trim();
    if !cand.is_empty() && !segment.trim_start().starts_with('"') && segment.contains('=') {
        return cand.to_string();
    }
    line.split('=').next().unwrap_or(line).trim().to_string()
}

impl Scenario {
    /// Parses scenario text; `origin` names it in errors (a path or `built-in demo`).
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let mut s: Scenario = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |r| r.start);
            let (line, column) = line_col(text, offset);
            ScenarioError::Syntax {
                origin: origin.to_string(),
                line,
                column,
                key: key_on_line(text, offset),
                message: e.message().trim().to_string(),
            }
        })?;
        s.validate(text, origin)?;
        Ok(s)
    }

    fn spanned_error(
        text: &str,
        origin: &str,
        span: std::ops::Range<usize>,
        key: &str,
        message: String,
    ) -> ScenarioError {
        let (line, column) = line_col(text, span.start);
        ScenarioError::Syntax {
            origin: origin.to_string(),
            line,
            column,
            key: key.to_string(),
            message,
        }
    }

    fn validate(&mut self, text: &str, origin: &str) -> Result<(), ScenarioError> {
        let invalid = |message: String| ScenarioError::Invalid {
            origin: origin.to_string(),
            message,
        };
        if self.instance.dialect == crate::source::Dialect::Yashandb {
            return Err(invalid(
                "instance.dialect: the simulator models `oracle` and `dm` instances, not yashandb"
                    .into(),
            ));
        }
        if self.is_dm() && self.version_full().is_none() {
            return Err(Self::spanned_error(
                text,
                origin,
                self.instance.version.span(),
                "instance.version",
                format!(
                    "`{}` is not a DM8 version (write four numbers starting with 8, such as 8.1.4.6)",
                    self.instance.version.get_ref()
                ),
            ));
        }
        if self.is_dm() {
            self.validate_dm(origin)?;
            // DM8 has no incarnations: every position is of the one log.
            self.instance.resetlogs_change = 0;
        }
        if self.version_full().is_none() {
            let allowed: Vec<&str> = VERSIONS.iter().map(|v| v.0).collect();
            return Err(Self::spanned_error(
                text,
                origin,
                self.instance.version.span(),
                "instance.version",
                format!(
                    "`{}` is not a version cdcctl simulates (allowed: {}, or a full version such as 19.22.0.0.0)",
                    self.instance.version.get_ref(),
                    allowed.join(", ")
                ),
            ));
        }
        for (key, name) in [
            ("instance.characterset", &self.instance.characterset),
            (
                "instance.nchar_characterset",
                &self.instance.nchar_characterset,
            ),
        ] {
            if let Err(e) = crate::engine::charset::Charset::from_oracle_name(name) {
                return Err(invalid(format!(
                    "{key}: {e} (e.g. AL32UTF8, UTF8, AL16UTF16, ZHS16GBK, WE8MSWIN1252, WE8ISO8859P1)"
                )));
            }
        }
        if super::value::Fraction::from_format(&self.logminer.nls_timestamp_format).is_none() {
            return Err(invalid(format!(
                "logminer.nls_timestamp_format: `{}` is not a format the simulator prints (allowed: {})",
                self.logminer.nls_timestamp_format,
                super::value::Fraction::ALLOWED
            )));
        }
        for (key, pct) in [
            ("logminer.table_alias_pct", self.logminer.table_alias_pct),
            (
                "workload.nondisplayable_text_pct",
                self.workload.nondisplayable_text_pct,
            ),
        ] {
            if !(0.0..=100.0).contains(&pct) {
                return Err(invalid(format!(
                    "{key}: {pct} is not a percentage (0 to 100)"
                )));
            }
        }
        if parse_time(self.start_time.get_ref()).is_none() {
            return Err(Self::spanned_error(
                text,
                origin,
                self.start_time.span(),
                "start_time",
                format!(
                    "`{}` is not a time (allowed: YYYY-MM-DDTHH:MM:SS)",
                    self.start_time.get_ref()
                ),
            ));
        }
        for t in &self.tables {
            if t.columns.is_empty() {
                return Err(invalid(format!(
                    "table {}.{} has no columns",
                    t.owner, t.name
                )));
            }
            if t.primary_key.len() > 1 {
                return Err(invalid(format!(
                    "table {}.{}: primary_key must be one NUMBER column (the simulator generates keys in sequence)",
                    t.owner, t.name
                )));
            }
            for k in &t.primary_key {
                let ty = t
                    .columns
                    .iter()
                    .find(|c| &c.name == k)
                    .map(|c| ColType::parse_in(c.ty.get_ref(), self.instance.dialect));
                if let Some(Ok(ty)) = ty {
                    if !ty.is_integral_key() {
                        return Err(invalid(format!(
                            "table {}.{}: primary_key column {k} must be a NUMBER (DM8: INT, BIGINT or DECIMAL; the simulator generates keys in sequence)",
                            t.owner, t.name
                        )));
                    }
                }
            }
            if let Some(p) = &t.partitioning {
                let ty = t
                    .columns
                    .iter()
                    .find(|c| c.name == p.column)
                    .map(|c| ColType::parse_in(c.ty.get_ref(), self.instance.dialect));
                if p.kind == PartitionKind::Interval && !matches!(ty, Some(Ok(ColType::Date))) {
                    return Err(invalid(format!(
                        "table {}.{}: interval partitioning needs a DATE column (interval_months); {} is not one",
                        t.owner, t.name, p.column
                    )));
                }
            }
            let extended = self
                .instance
                .parameters
                .get("max_string_size")
                .is_some_and(|v| v.eq_ignore_ascii_case("EXTENDED"));
            let json_type = self
                .version_full()
                .and_then(|v| v.split('.').next()?.parse::<u32>().ok())
                .is_some_and(|major| major >= 21);
            let dialect = self.instance.dialect;
            for c in &t.columns {
                match ColType::parse_in(c.ty.get_ref(), dialect) {
                    Err(m) => {
                        return Err(Self::spanned_error(text, origin, c.ty.span(), "type", m));
                    }
                    Ok(ColType::Json) if !json_type => {
                        let m = format!(
                            "JSON is a column type from Oracle 21c; instance.version is {}",
                            self.instance.version.get_ref()
                        );
                        return Err(Self::spanned_error(text, origin, c.ty.span(), "type", m));
                    }
                    Ok(ColType::Varchar2(n)) if n > 32_767 || (n > 4000 && !extended) => {
                        let m = format!(
                            "VARCHAR2({n}) is longer than the database allows: 4000 bytes, or 32767 with \
                             instance.parameters.max_string_size = \"EXTENDED\""
                        );
                        return Err(Self::spanned_error(text, origin, c.ty.span(), "type", m));
                    }
                    Ok(_) => {}
                }
            }
            for k in &t.primary_key {
                if !t.columns.iter().any(|c| &c.name == k) {
                    return Err(invalid(format!(
                        "table {}.{}: primary_key column {k} is not among its columns",
                        t.owner, t.name
                    )));
                }
            }
            if let Some(p) = &t.partitioning {
                if !t.columns.iter().any(|c| c.name == p.column) {
                    return Err(invalid(format!(
                        "table {}.{}: partitioning column {} is not among its columns",
                        t.owner, t.name, p.column
                    )));
                }
                let ok = match p.kind {
                    PartitionKind::Hash => p.count.unwrap_or(p.partitions.len() as u32) > 0,
                    PartitionKind::Interval => {
                        p.interval_months.is_some_and(|m| m > 0) && !p.partitions.is_empty()
                    }
                    _ => !p.partitions.is_empty(),
                };
                if !ok {
                    return Err(invalid(format!(
                        "table {}.{}: {:?} partitioning needs {}",
                        t.owner,
                        t.name,
                        p.kind,
                        match p.kind {
                            PartitionKind::Hash => "count > 0 or listed partitions",
                            PartitionKind::Interval =>
                                "interval_months > 0 and at least one partition",
                            _ => "at least one partition",
                        }
                    )));
                }
            }
            if let Some(pdb) = &t.pdb {
                if self.instance.cdb && !self.instance.pdbs.contains(pdb) {
                    return Err(invalid(format!(
                        "table {}.{}: pdb {pdb} is not in instance.pdbs ({})",
                        t.owner,
                        t.name,
                        self.instance.pdbs.join(", ")
                    )));
                }
            }
        }
        // Bounds that keep the simulator finite: it generates every row and
        // transaction in memory, and warms up before answering.
        let mut names = std::collections::BTreeSet::new();
        for t in &self.tables {
            if !names.insert((t.owner.as_str(), t.name.as_str())) {
                return Err(invalid(format!(
                    "table {}.{} is listed twice",
                    t.owner, t.name
                )));
            }
            if t.rows > MAX_ROWS {
                return Err(invalid(format!(
                    "table {}.{}: rows must be at most {MAX_ROWS} (got {})",
                    t.owner, t.name, t.rows
                )));
            }
        }
        if self.warmup_s > MAX_WARMUP_S {
            return Err(invalid(format!(
                "warmup_s must be at most {MAX_WARMUP_S} (a day; got {})",
                self.warmup_s
            )));
        }
        if self.instance.undo_tablespace_mb == 0 {
            return Err(invalid(
                "instance.undo_tablespace_mb must be at least 1".into(),
            ));
        }
        let w = &self.workload;
        if w.rate > MAX_RATE {
            return Err(invalid(format!(
                "workload.rate must be at most {MAX_RATE} changes per second (got {})",
                w.rate
            )));
        }
        if !(0.0..=100.0).contains(&w.rollback_pct) {
            return Err(invalid(format!(
                "workload.rollback_pct must be between 0 and 100 (got {})",
                w.rollback_pct
            )));
        }
        if !(0.0..=100.0).contains(&w.lob_update_pct) {
            return Err(invalid(format!(
                "workload.lob_update_pct must be between 0 and 100 (got {})",
                w.lob_update_pct
            )));
        }
        if w.txn_size[1] > MAX_TXN_SIZE {
            return Err(invalid(format!(
                "workload.txn_size must be at most {MAX_TXN_SIZE} changes (got {})",
                w.txn_size[1]
            )));
        }
        if !(w.rate > 0.0 && w.rate.is_finite()) {
            return Err(invalid(format!(
                "workload.rate must be above 0 (got {})",
                w.rate
            )));
        }
        if w.insert + w.update + w.delete == 0 {
            return Err(invalid(
                "workload: insert, update and delete weights are all 0".into(),
            ));
        }
        if w.txn_size[0] == 0 || w.txn_size[0] > w.txn_size[1] {
            return Err(invalid(
                "workload.txn_size must be [min, max] with 1 <= min <= max".into(),
            ));
        }
        if self.instance.cdb && self.instance.pdbs.is_empty() {
            return Err(invalid(
                "instance.cdb is true but instance.pdbs is empty".into(),
            ));
        }
        if self.redo.groups < 2 {
            return Err(invalid(
                "redo.groups must be at least 2 (Oracle needs two online log groups)".into(),
            ));
        }
        if self.redo.group_bytes < 64 * 1024 {
            return Err(invalid("redo.group_bytes must be at least 65536".into()));
        }
        if !(1..=16).contains(&self.instance.threads) {
            return Err(invalid("instance.threads must be 1 to 16".into()));
        }
        for t in &self.instance.thread_schedule {
            if !(1..=self.instance.threads).contains(&t.thread) {
                return Err(invalid(format!(
                    "instance.thread_schedule: thread {} is not one of the {} threads",
                    t.thread, self.instance.threads
                )));
            }
            if t.thread == 1 && t.enabled_at_s.is_some() {
                return Err(invalid(
                    "instance.thread_schedule: thread 1 is the instance itself and is enabled from the start".into(),
                ));
            }
            if let Some([from, to]) = t.quiet.iter().find(|[from, to]| from >= to) {
                return Err(invalid(format!(
                    "instance.thread_schedule: quiet period [{from}, {to}] of thread {} is empty",
                    t.thread
                )));
            }
        }
        if self.redo.memory_records < 10_000 {
            return Err(invalid("redo.memory_records must be at least 10000".into()));
        }
        for f in &self.faults {
            if f.at_s.is_none() && f.at_scn.is_none() {
                return Err(invalid(format!("fault {:?} needs at_s or at_scn", f.kind)));
            }
        }
        let names: Vec<String> = self
            .tables
            .iter()
            .map(|t| format!("{}.{}", t.owner, t.name))
            .collect();
        let check = |what: &str, t: &Option<String>| -> Result<(), ScenarioError> {
            match t {
                Some(t) if !names.contains(t) => Err(invalid(format!(
                    "{what}: table {t} is not defined (tables: {})",
                    names.join(", ")
                ))),
                _ => Ok(()),
            }
        };
        for l in &self.workload.long_transactions {
            check("workload.long_transactions", &l.table)?;
        }
        for b in &self.workload.big_transactions {
            check("workload.big_transactions", &b.table)?;
        }
        for m in &self.workload.maintenance {
            check("workload.maintenance", &Some(m.table.clone()))?;
        }
        Ok(())
    }

    /// What a DM8 scenario may not ask for: Oracle-only settings, and
    /// behaviour of DM8 nobody has verified (partial rollbacks to a
    /// savepoint or of one failed statement, whose redo form is unknown).
    fn validate_dm(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = |message: String| ScenarioError::Invalid {
            origin: origin.to_string(),
            message,
        };
        let w = &self.workload;
        for (key, pct) in [
            ("workload.savepoint_pct", w.savepoint_pct),
            ("workload.statement_rollback_pct", w.statement_rollback_pct),
            ("workload.lob_update_pct", w.lob_update_pct),
            ("logminer.table_alias_pct", self.logminer.table_alias_pct),
        ] {
            if pct != 0.0 {
                return Err(invalid(format!(
                    "{key}: a DM8 scenario cannot set it (how DM8 logs it is not verified, or it is Oracle's form); leave it 0"
                )));
            }
        }
        if !self.faults.is_empty() || !w.maintenance.is_empty() {
            return Err(invalid(
                "faults and workload.maintenance raise Oracle's errors and DDL; the DM8 mode does not model them".into(),
            ));
        }
        if let Some(t) = self.tables.iter().find(|t| t.partitioning.is_some()) {
            return Err(invalid(format!(
                "table {}.{}: the DM8 mode does not model partitioned tables",
                t.owner, t.name
            )));
        }
        if self.instance.cdb || self.instance.threads != 1 {
            return Err(invalid(
                "a DM8 instance is single-node without containers: instance.cdb = false, instance.threads = 1".into(),
            ));
        }
        if self.dm.rlog_append_logic > 4 {
            return Err(invalid(format!(
                "dm.rlog_append_logic: {} is not a value DM8 takes (0 to 4)",
                self.dm.rlog_append_logic
            )));
        }
        Ok(())
    }

    /// Whether the scenario simulates a Dameng DM8 instance.
    pub fn is_dm(&self) -> bool {
        self.instance.dialect == crate::source::Dialect::Dm
    }

    /// `VERSION_FULL` for the scenario's version.
    pub fn version_full(&self) -> Option<String> {
        let v = self.instance.version.get_ref().trim();
        if self.is_dm() {
            // DM8 versions read `8.1.4.6`: four numbers, the first 8.
            let parts: Vec<&str> = v.split('.').collect();
            let ok = parts.len() == 4
                && parts[0] == "8"
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            return ok.then(|| v.to_string());
        }
        if let Some((_, full)) = VERSIONS.iter().find(|(a, _)| a.eq_ignore_ascii_case(v)) {
            return Some((*full).to_string());
        }
        let parts: Vec<&str> = v.split('.').collect();
        let ok = parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let major: u32 = parts.first()?.parse().ok()?;
        (ok && [11, 12, 18, 19, 21, 23].contains(&major)).then(|| v.to_string())
    }

    pub fn start(&self) -> NaiveDateTime {
        parse_time(self.start_time.get_ref()).unwrap_or_default()
    }

    /// Loads a built-in by name or a scenario file by path.
    pub fn load(spec: &str) -> Result<Scenario, ScenarioError> {
        let spec = spec.trim();
        let spec = if spec.is_empty() { "demo" } else { spec };
        if let Some(b) = BUILTINS.iter().find(|b| b.name == spec) {
            let mut s = Scenario::parse(b.text, &format!("built-in scenario {}", b.name))?;
            if s.name.is_empty() {
                s.name = b.name.to_string();
            }
            return Ok(s);
        }
        let looks_like_path = spec.ends_with(".toml") || spec.contains('/') || spec.contains('\\');
        if !looks_like_path {
            return Err(ScenarioError::UnknownBuiltin {
                name: spec.to_string(),
                builtins: BUILTINS
                    .iter()
                    .map(|b| b.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let path = Path::new(spec);
        let text = crate::limits::read_text(path, crate::limits::CONFIG_BYTES).map_err(|e| {
            ScenarioError::Io {
                path: spec.to_string(),
                message: e.to_string(),
            }
        })?;
        let mut s = Scenario::parse(&text, spec)?;
        if s.name.is_empty() {
            s.name = path
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.to_string());
        }
        Ok(s)
    }
}

pub fn parse_time(text: &str) -> Option<NaiveDateTime> {
    let t = text.trim();
    NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S"))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses() {
        for b in BUILTINS {
            if let Err(e) = Scenario::load(b.name) {
                panic!("built-in {} does not load: {e}", b.name);
            }
        }
    }

    #[test]
    fn unknown_builtin_lists_the_builtins() {
        let e = Scenario::load("nope").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("demo") && text.contains("oracle11g"),
            "{text}"
        );
    }

    #[test]
    fn unknown_key_reports_line_key_and_allowed_keys() {
        let text = "[instance]\nversion = \"19c\"\ncdb = true\npdbs = [\"P1\"]\nlog_moed = \"ARCHIVELOG\"\n[connection]\nuser = \"U\"\n";
        let e = Scenario::parse(text, "t.toml").unwrap_err();
        match &e {
            ScenarioError::Syntax {
                line, key, message, ..
            } => {
                assert_eq!(*line, 5);
                assert_eq!(key, "log_moed");
                assert!(message.contains("log_mode"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_character_set_cdcctl_cannot_decode_is_refused_naming_the_key() {
        let text = "[instance]\nversion = \"19c\"\ncharacterset = \"XX8NOSUCH\"\n[connection]\nuser = \"U\"\n";
        let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
        assert!(
            s.contains("instance.characterset")
                && s.contains("XX8NOSUCH")
                && s.contains("ZHS16GBK"),
            "{s}"
        );
        let gbk = "[instance]\nversion = \"19c\"\ncharacterset = \"ZHS16GBK\"\n[connection]\nuser = \"U\"\n";
        let parsed = Scenario::parse(gbk, "t.toml").expect("GBK is decodable");
        assert_eq!(parsed.instance.characterset, "ZHS16GBK");
    }

    #[test]
    fn bad_enum_value_lists_the_allowed_values() {
        let text =
            "[instance]\nversion = \"19c\"\nlog_mode = \"ARCHIVE\"\n[connection]\nuser = \"U\"\n";
        let e = Scenario::parse(text, "t.toml").unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("line 3") && s.contains("log_mode") && s.contains("NOARCHIVELOG"),
            "{s}"
        );
    }

    #[test]
    fn bad_column_type_reports_its_line_and_the_allowed_types() {
        let text = "[instance]\nversion = \"19c\"\n[connection]\nuser = \"U\"\n[[tables]]\nowner = \"A\"\nname = \"T\"\ncolumns = [\n  { name = \"X\", type = \"VARCHAR\" },\n]\n";
        let e = Scenario::parse(text, "t.toml").unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("line 9") && s.contains("`type`") && s.contains("VARCHAR2(n)"),
            "{s}"
        );
    }

    #[test]
    fn unknown_key_inside_an_inline_table_is_named() {
        let text = "[instance]\nversion = \"19c\"\n[connection]\nuser = \"U\"\n[[tables]]\nowner = \"A\"\nname = \"T\"\ncolumns = [\n  { name = \"X\", typ = \"NUMBER\" },\n]\n";
        let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
        assert!(
            s.contains("line 9") && s.contains("key `typ`") && s.contains("`type`"),
            "{s}"
        );
    }

    #[test]
    fn bad_version_lists_the_versions() {
        let text = "[instance]\nversion = \"10g\"\n[connection]\nuser = \"U\"\n";
        let s = Scenario::parse(text, "t.toml").unwrap_err().to_string();
        assert!(
            s.contains("line 2") && s.contains("19c") && s.contains("23ai"),
            "{s}"
        );
    }
}
