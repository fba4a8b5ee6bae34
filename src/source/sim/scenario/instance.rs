//! The instance's sections of a scenario: `[instance]` (version, logging,
//! undo, recovery area, RAC threads, character sets), `[connection]`,
//! `[redo]`, `[logminer]` and `[dm]`.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

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

pub(super) fn yes() -> bool {
    true
}

/// What DM8 writes for work rolled back (a whole transaction, or back to a
/// savepoint) when mining without COMMITTED_DATA_ONLY. No public test
/// shows it, so the simulator models each reading of `ROLL_BACK = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DmRollbackRows {
    /// Nothing after the transaction's DML: no undo rows, no end row.
    /// Allows no savepoint rollback (its redo would be invisible).
    #[default]
    None,
    /// Oracle's reading: an undo row per change taken back, flagged
    /// `ROLL_BACK = 1`, written when the rollback happens; no end row.
    #[serde(alias = "flagged")]
    Compensation,
    /// Dameng's interface documentation's reading ("whether this record
    /// was rolled back", filled once the transaction's end is found, like
    /// COMMIT_SCN): the original DML row itself shows `ROLL_BACK = 1` once
    /// the rollback is in the redo, and no undo row is written.
    Original,
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
    /// Percent of transactions committed as XA branches: they end in an
    /// XA_COMMIT row (code 38) and never in a COMMIT (7).
    #[serde(default)]
    pub xa_pct: f64,
    /// Percent of transactions whose updates DM8 logs as BATCH_UPDATE
    /// (code 4) rather than UPDATE (3); SQL_REDO is the same statement.
    #[serde(default)]
    pub batch_update_pct: f64,
    /// Percent of open transactions `V$TRX` lists in status `LOCK WAIT`
    /// (waiting for a row another transaction holds) instead of `ACTIVE`.
    #[serde(default)]
    pub lock_wait_pct: f64,
    /// LSNs by which the readable content of the ACTIVE archive file trails
    /// its `CLSN` in `V$ARCH_FILE`: a row that close to the file's end is
    /// not returned by `V$LOGMNR_CONTENTS` until more is written or the
    /// file is switched. Whether DM8 does this under load is unverified
    /// (no public test measured it); 0 reads up to `CLSN`.
    #[serde(default)]
    pub active_file_lag: u64,
    /// Instances of a DMDSC shared-storage cluster (`V$DSC_EP_INFO` rows);
    /// 0 for a single instance. Each node writes and archives its own redo.
    #[serde(default)]
    pub dsc_nodes: u32,
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
            xa_pct: 0.0,
            batch_update_pct: 0.0,
            lock_wait_pct: 0.0,
            active_file_lag: 0,
            dsc_nodes: 0,
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
    /// Rows `V$LOGMNR_CONTENTS` returns per second (0: as fast as the
    /// simulator renders them): a LogMiner slower than the redo it reads.
    #[serde(default)]
    pub mine_rows_per_s: u64,
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
    /// Seconds the archiver takes to copy one closed online log (0: at the
    /// switch). Until its copy is done a group shows ARCHIVED = NO in
    /// V$LOG, and a switch that would reuse it waits (`log file switch
    /// (archiving needed)`), generating no redo meanwhile.
    #[serde(default)]
    pub archive_copy_s: f64,
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
            archive_copy_s: 0.0,
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
