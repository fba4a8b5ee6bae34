//! Catalog facts: what preflight and `partitions` know of a database, in the
//! terms of Oracle's views. Every source fills the same structs, and the
//! offline evidence file is their JSON form, so a live run and an evidence
//! run evaluate identical facts.
//!
//! Fields a source could not read stay `None` (or empty), and rules turn that
//! into a `skip` with the reason rather than a guess.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::engine::port::normalize_ident;
use crate::engine::row::Scn;
// These names are the engine port's; they keep their `source::catalog` path.
pub use crate::engine::port::{
    like, split_qualified, Dialect, OpenTransaction, SessionTransaction, TableName, TablePattern,
    TransactionSession,
};

/// A row of `V$PDBS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct PdbFacts {
    pub name: String,
    pub con_id: u32,
    /// `READ WRITE`, `READ ONLY`, `MOUNTED`, `MIGRATE`.
    pub open_mode: String,
    pub restricted: bool,
    pub application_root: bool,
    pub application_pdb: bool,
}

/// A row of `V$SERVICES`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ServiceFacts {
    pub name: String,
    pub network_name: Option<String>,
    /// The PDB the service belongs to (`CDB$ROOT` for the root's).
    pub pdb: Option<String>,
}

/// `V$RECOVERY_FILE_DEST`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RecoveryArea {
    pub name: String,
    pub space_limit: u64,
    pub space_used: u64,
    pub space_reclaimable: u64,
    pub number_of_files: u64,
    /// `V$RECOVERY_AREA_USAGE.PERCENT_SPACE_RECLAIMABLE` for ARCHIVED LOG.
    pub archived_log_reclaimable_pct: Option<f64>,
}

/// Undo configuration and history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct UndoFacts {
    pub tablespace: Option<String>,
    /// `DBA_TABLESPACES.RETENTION = 'GUARANTEE'`.
    pub retention_guarantee: bool,
    /// Any datafile of the undo tablespace is autoextensible.
    pub autoextensible: bool,
    /// `MAX(TUNED_UNDORETENTION)` of `V$UNDOSTAT` over the last hour, seconds.
    pub tuned_undoretention_s: Option<u64>,
    /// `SUM(SSOLDERRCNT)` of `V$UNDOSTAT` (ORA-01555 occurrences).
    pub snapshot_too_old_errors: u64,
    /// `SUM(NOSPACEERRCNT)` of `V$UNDOSTAT`.
    pub no_space_errors: u64,
}

/// Log switches per hour from `V$LOG_HISTORY` over the last seven days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SwitchHistory {
    pub peak_per_hour: u32,
    pub hours_observed: u32,
}

/// DM8-specific facts (`V$DM_INI`, `V$DM_ARCH_INI`, packages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct DmFacts {
    pub arch_ini: Option<String>,
    pub rlog_append_logic: Option<String>,
    pub logmnr_package_installed: Option<bool>,
    pub mpp: Option<bool>,
    pub arch_destinations: Vec<DmArchDest>,
    /// Rows of `V$DSC_EP_INFO`: the instances of a DMDSC shared-storage
    /// cluster (none on a single instance); `None` when it was not read.
    pub dsc_nodes: Option<u32>,
}

/// A row of DM8's `V$DM_ARCH_INI`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct DmArchDest {
    pub arch_name: String,
    pub arch_type: String,
    pub arch_dest: String,
    pub arch_space_limit: u64,
    pub arch_is_valid: bool,
}

/// YashanDB-specific facts (YStream).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct YashanFacts {
    pub stream_pool_size: Option<String>,
    pub servers: Vec<YstreamServer>,
}

/// A row of YashanDB's `V$YSTREAM_SERVER`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct YstreamServer {
    pub server_name: String,
    pub status: String,
    pub connect_user: Option<String>,
    pub start_scn: Option<Scn>,
    pub error: Option<String>,
}

/// The instance as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct InstanceFacts {
    pub dialect: Dialect,
    /// `V$INSTANCE.VERSION_FULL` (or `VERSION` before 18c), e.g. `19.22.0.0.0`.
    pub version: String,
    /// `V$VERSION.BANNER` (first line).
    pub banner: String,
    pub db_name: String,
    pub instance_name: String,
    /// `V$DATABASE.CDB = 'YES'`.
    pub cdb: bool,
    pub pdbs: Vec<PdbFacts>,
    /// `ARCHIVELOG` or `NOARCHIVELOG` (DM8: `ARCH_MODE` `Y` maps to `ARCHIVELOG`).
    pub log_mode: String,
    /// `YES`, `NO` or `IMPLICIT`.
    pub supplemental_log_data_min: String,
    pub supplemental_log_data_pk: bool,
    pub supplemental_log_data_ui: bool,
    pub supplemental_log_data_all: bool,
    pub force_logging: bool,
    /// `PRIMARY`, `PHYSICAL STANDBY`, ...
    pub database_role: String,
    /// `READ WRITE`, `READ ONLY`, `MOUNTED`.
    pub open_mode: String,
    /// `V$PARAMETER` name (lower case) → value, for the parameters checks read.
    pub parameters: BTreeMap<String, String>,
    /// `NLS_CHARACTERSET` (e.g. `AL32UTF8`); empty when unknown.
    pub nls_characterset: String,
    /// `NLS_NCHAR_CHARACTERSET` (e.g. `AL16UTF16`); empty when unknown.
    pub nls_nchar_characterset: String,
    pub recovery_area: Option<RecoveryArea>,
    /// Destinations in state `FULL` or `ERROR` from `V$ARCHIVE_DEST`.
    pub failed_archive_dests: Vec<String>,
    pub undo: UndoFacts,
    /// `V$ENCRYPTION_WALLET.STATUS`.
    pub wallet_status: Option<String>,
    pub encrypted_tablespaces: Vec<String>,
    pub services: Vec<ServiceFacts>,
    pub switch_history: Option<SwitchHistory>,
    pub current_scn: Scn,
    pub now: Option<NaiveDateTime>,
    pub dm: Option<DmFacts>,
    pub yashan: Option<YashanFacts>,
}

impl InstanceFacts {
    /// Major release: 11, 12, 18, 19, 21, 23.
    pub fn major_version(&self) -> Option<u32> {
        self.version.split('.').next()?.parse().ok()
    }

    /// Minor release (the `2` of 12.2).
    pub fn minor_version(&self) -> Option<u32> {
        self.version.split('.').nth(1)?.parse().ok()
    }

    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// `DBA_PROFILES` limits and account state of the connector user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ProfileFacts {
    pub profile: String,
    pub idle_time: Option<String>,
    pub connect_time: Option<String>,
    pub password_life_time: Option<String>,
    pub account_status: Option<String>,
    pub expiry_date: Option<NaiveDateTime>,
}

/// The connected session and the user behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionFacts {
    pub user: String,
    /// `SYS_CONTEXT('USERENV','CON_NAME')`.
    pub con_name: String,
    /// `DBA_USERS.COMMON = 'YES'`.
    pub common_user: bool,
    /// `SESSION_PRIVS`.
    pub privileges: Vec<String>,
    /// `SESSION_ROLES`.
    pub roles: Vec<String>,
    /// `CDB_CONTAINER_DATA`: `ALL` or the containers listed for the user.
    pub container_data: Vec<String>,
    pub default_tablespace: Option<String>,
    /// Has a quota (or UNLIMITED TABLESPACE) on its default tablespace.
    pub has_quota: Option<bool>,
    pub profile: Option<ProfileFacts>,
    /// Views and packages a probe could not use, with the ORA- code it got
    /// (`V$LOGMNR_CONTENTS` → 942).
    pub inaccessible_objects: BTreeMap<String, u32>,
    /// The service the session connected through.
    pub service_name: Option<String>,
}

impl SessionFacts {
    pub fn has_privilege(&self, privilege: &str) -> bool {
        self.privileges
            .iter()
            .any(|p| p.eq_ignore_ascii_case(privilege))
    }

    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r.eq_ignore_ascii_case(role))
    }
}

/// A `--pdb` name as Oracle reads an identifier: unquoted names in upper
/// case, a double-quoted one exactly as written. `None` for an empty or
/// malformed name (wildcards included: a PDB is named, not matched).
pub fn normalize_pdb_name(text: &str) -> Option<String> {
    let name = normalize_ident(text)?;
    let quoted = text.trim().starts_with('"');
    (quoted || !name.contains('%')).then_some(name)
}

/// A PDB capture can read: open, and not the seed.
fn open_for_capture(p: &PdbFacts) -> bool {
    p.name != "PDB$SEED" && p.open_mode.starts_with("READ")
}

/// The only open PDB of a CDB, where application tables must then be.
pub fn sole_open_pdb(pdbs: &[PdbFacts]) -> Option<String> {
    let mut open = pdbs.iter().filter(|p| open_for_capture(p));
    match (open.next(), open.next()) {
        (Some(only), None) => Some(only.name.clone()),
        _ => None,
    }
}

/// Checks a `--pdb` against the rows of `V$PDBS` and returns the name as
/// the view spells it. The error lists the open PDBs.
pub fn resolve_pdb(requested: &str, pdbs: &[PdbFacts]) -> Result<String, String> {
    let open: Vec<&str> = pdbs
        .iter()
        .filter(|p| open_for_capture(p))
        .map(|p| p.name.as_str())
        .collect();
    let listing = if open.is_empty() {
        "no PDB is open".to_string()
    } else {
        format!("open PDBs: {}", open.join(", "))
    };
    let Some(name) = normalize_pdb_name(requested) else {
        return Err(format!("`{requested}` is not a PDB name ({listing})"));
    };
    match pdbs.iter().find(|p| p.name == name) {
        Some(p) if open_for_capture(p) => Ok(p.name.clone()),
        Some(p) => Err(format!(
            "PDB {} is not open for capture (OPEN_MODE {}; {listing})",
            p.name, p.open_mode
        )),
        None => Err(format!("no PDB named {name} in V$PDBS ({listing})")),
    }
}

/// A row of `ALL_TAB_COLS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ColumnFacts {
    pub name: String,
    pub data_type: String,
    /// `DATA_TYPE_OWNER`: set for object types.
    pub data_type_owner: Option<String>,
    pub nullable: bool,
    pub data_length: Option<u32>,
    pub data_precision: Option<u32>,
    pub data_scale: Option<i32>,
    pub hidden: bool,
    pub virtual_column: bool,
}

/// A primary-key or unique constraint (`ALL_CONSTRAINTS` + `ALL_CONS_COLUMNS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct KeyConstraint {
    pub name: String,
    /// `P` or `U`.
    pub constraint_type: String,
    pub columns: Vec<String>,
    pub enabled: bool,
}

/// An index (`ALL_INDEXES` + `ALL_IND_COLUMNS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct IndexFacts {
    pub name: String,
    pub unique: bool,
    pub columns: Vec<String>,
    /// `LOCAL` partitioned index.
    pub local: bool,
    /// `VALID`, `UNUSABLE`, `N/A` (partitioned).
    pub status: String,
    /// Local index partitions whose `STATUS = 'UNUSABLE'`.
    pub unusable_partitions: Vec<String>,
}

/// A row of `ALL_LOG_GROUPS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct LogGroupFacts {
    pub name: String,
    /// `ALL COLUMN LOGGING`, `PRIMARY KEY LOGGING`, `UNIQUE KEY LOGGING`,
    /// `FOREIGN KEY LOGGING`, `USER LOG GROUP`.
    pub log_group_type: String,
    pub always: bool,
}

/// One partition (`ALL_TAB_PARTITIONS` joined with `ALL_OBJECTS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct PartitionFacts {
    pub name: String,
    pub position: u32,
    /// `HIGH_VALUE` text, e.g. `TO_DATE(' 2025-02-01 00:00:00', ...)`.
    pub high_value: String,
    pub num_rows: Option<u64>,
    pub bytes: Option<u64>,
    pub object_id: u64,
    pub data_object_id: Option<u64>,
    pub created: Option<NaiveDateTime>,
    pub last_ddl_time: Option<NaiveDateTime>,
    /// Created by the database for an interval (`INTERVAL = 'YES'`).
    pub interval: bool,
    pub subpartition_count: u32,
}

/// `ALL_PART_TABLES` and `ALL_PART_KEY_COLUMNS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct PartitioningFacts {
    /// `RANGE`, `LIST`, `HASH`, `REFERENCE`, `SYSTEM`.
    pub partitioning_type: String,
    pub subpartitioning_type: Option<String>,
    pub key_columns: Vec<String>,
    /// `INTERVAL` expression, e.g. `NUMTOYMINTERVAL(1, 'MONTH')`.
    pub interval: Option<String>,
    pub partitions: Vec<PartitionFacts>,
}

/// A table in scope: columns, keys, logging, partitioning, grants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct TableFacts {
    pub name: TableName,
    pub object_id: Option<u64>,
    pub data_object_id: Option<u64>,
    pub columns: Vec<ColumnFacts>,
    pub constraints: Vec<KeyConstraint>,
    pub indexes: Vec<IndexFacts>,
    pub log_groups: Vec<LogGroupFacts>,
    /// `ALL_TABLES.LOGGING = 'YES'`.
    pub logging: bool,
    pub temporary: bool,
    /// `IOT`, `IOT_OVERFLOW` or none.
    pub iot_type: Option<String>,
    pub nested: bool,
    /// Hybrid columnar compression level (`COMPRESS_FOR`) if any.
    pub compress_for: Option<String>,
    pub num_rows: Option<u64>,
    /// `SUM(DBA_SEGMENTS.BYTES)` over the table's segments.
    pub segment_bytes: Option<u64>,
    pub last_ddl_time: Option<NaiveDateTime>,
    pub partitioning: Option<PartitioningFacts>,
    /// Object privileges the session user holds on the table (`SELECT`, `FLASHBACK`).
    pub granted: Vec<String>,
    /// ORA- code of `SELECT 1 FROM t AS OF SCN :cur WHERE ROWNUM = 1`, if it failed.
    pub flashback_probe_error: Option<u32>,
    /// Tablespace is encrypted.
    pub encrypted: bool,
}

impl TableFacts {
    pub fn primary_key(&self) -> Option<&KeyConstraint> {
        self.constraints
            .iter()
            .find(|c| c.constraint_type == "P" && c.enabled)
    }

    /// The columns that identify a row: the primary key, else the first
    /// enabled unique key whose columns are all NOT NULL. Empty when none.
    pub fn key_columns(&self) -> Vec<String> {
        if let Some(pk) = self.primary_key() {
            return pk.columns.clone();
        }
        self.constraints
            .iter()
            .filter(|c| c.constraint_type == "U" && c.enabled)
            .find(|c| {
                c.columns
                    .iter()
                    .all(|col| self.column(col).is_some_and(|f| !f.nullable))
            })
            .map(|c| c.columns.clone())
            .unwrap_or_default()
    }

    pub fn has_log_group(&self, log_group_type: &str) -> bool {
        self.log_groups
            .iter()
            .any(|g| g.log_group_type == log_group_type)
    }

    pub fn column(&self, name: &str) -> Option<&ColumnFacts> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdb_names_upper_case_unless_quoted_and_must_exist() {
        let pdb = |name: &str, mode: &str| PdbFacts {
            name: name.into(),
            open_mode: mode.into(),
            ..Default::default()
        };
        let pdbs = [
            pdb("PDB$SEED", "READ ONLY"),
            pdb("ORCLPDB1", "READ WRITE"),
            pdb("Sales", "READ WRITE"),
            pdb("OLD", "MOUNTED"),
        ];
        assert_eq!(sole_open_pdb(&pdbs), None, "two are open");
        assert_eq!(sole_open_pdb(&pdbs[..2]), Some("ORCLPDB1".into()));
        assert_eq!(resolve_pdb("orclpdb1", &pdbs), Ok("ORCLPDB1".to_string()));
        assert_eq!(
            resolve_pdb("\"ORCLPDB1\"", &pdbs),
            Ok("ORCLPDB1".to_string())
        );
        assert_eq!(resolve_pdb("\"Sales\"", &pdbs), Ok("Sales".to_string()));
        let err = resolve_pdb("sales", &pdbs).unwrap_err();
        assert!(err.contains("no PDB named SALES"), "{err}");
        assert!(err.contains("open PDBs: ORCLPDB1, Sales"), "{err}");
        let err = resolve_pdb("old", &pdbs).unwrap_err();
        assert!(err.contains("MOUNTED"), "{err}");
        assert!(
            resolve_pdb("ORCL%", &pdbs).is_err(),
            "a PDB is named, not matched"
        );
        assert!(resolve_pdb("\"x", &pdbs).is_err());
    }

    #[test]
    fn version_parts_come_from_version_full() {
        let i = InstanceFacts {
            version: "19.22.0.0.0".into(),
            ..Default::default()
        };
        assert_eq!(i.major_version(), Some(19));
        let i = InstanceFacts {
            version: "11.2.0.4.0".into(),
            ..Default::default()
        };
        assert_eq!((i.major_version(), i.minor_version()), (Some(11), Some(2)));
    }
}
