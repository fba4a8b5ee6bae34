//! `Catalog` for a live Oracle database: instance, session, tables and open
//! transactions, read with the statements of [`super::sql`].
//!
//! A fact the connected user may not read (ORA-00942, ORA-01031) or that
//! this release does not have (ORA-00904) stays unset, and for the session
//! it is recorded in `SessionFacts.inaccessible_objects`, so preflight can
//! say "cannot check" instead of the whole run aborting.

use std::collections::BTreeMap;

use crate::source::{
    Catalog, ColumnFacts, IndexFacts, InstanceFacts, KeyConstraint, LogGroupFacts, LogInventory,
    OpenTransaction, PartitionFacts, PartitioningFacts, PdbFacts, ProfileFacts, RecoveryArea,
    RedoSource, ServiceFacts, SessionFacts, SessionTransaction, SourceError, SwitchHistory,
    TableFacts, TableName, TablePattern, TransactionSession, UndoFacts,
};

use super::rows::Reader;
use super::sql::{self, BindValue, BoundSql};
use super::{OracleSource, NO_LOGMINER_SESSION};

type TextRows = Vec<Vec<Option<String>>>;

/// ORA- codes meaning "this fact cannot be read here".
const MISSING_FACT_CODES: &[u32] = &[
    942,  // table or view does not exist (or no privilege)
    904,  // invalid identifier: the column is newer than this release
    1031, // insufficient privileges
    2030, // can only select from fixed tables/views
];

/// `Ok(None)` for an error that only means the fact is unavailable.
fn optional<T>(result: Result<T, SourceError>) -> Result<Option<T>, SourceError> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(e) if missing_code(&e).is_some() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Like [`optional`], and notes the unreadable object in the session facts.
fn or_record<T>(
    inaccessible: &mut BTreeMap<String, u32>,
    object: &str,
    result: Result<T, SourceError>,
) -> Result<Option<T>, SourceError> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(e) => match missing_code(&e) {
            Some(code) => {
                inaccessible.insert(object.to_string(), code);
                Ok(None)
            }
            None => Err(e),
        },
    }
}

/// Records a probe that could not read its object. Other database errors
/// mean the object is there (`V$LOGMNR_CONTENTS` raises ORA-01306 outside a
/// LogMiner session, which proves the grant works); a dropped connection
/// is an error.
fn probe_result<T>(
    inaccessible: &mut BTreeMap<String, u32>,
    object: &str,
    result: Result<T, SourceError>,
) -> Result<(), SourceError> {
    match result {
        Ok(_) => Ok(()),
        Err(e) => match (missing_code(&e), e.ora_code()) {
            (Some(code), _) => {
                inaccessible.insert(object.to_string(), code);
                Ok(())
            }
            (None, Some(_)) => Ok(()),
            (None, None) => Err(e),
        },
    }
}

/// ORA-06550: the PL/SQL block did not compile (with PLS-00201, the
/// package is not visible to the user).
const PLSQL_COMPILE_ERROR: u32 = 6550;

/// Reads the outcome of [`sql::PROBE_DBMS_LOGMNR`]: the ORA- code that
/// shows the package cannot be executed, or `None` when the call ran.
fn logmnr_probe_code(result: Result<(), SourceError>) -> Result<Option<u32>, SourceError> {
    match result {
        Ok(()) => Ok(None),
        Err(e) => match e.ora_code() {
            Some(NO_LOGMINER_SESSION) => Ok(None),
            Some(code @ (PLSQL_COMPILE_ERROR | 1031)) => Ok(Some(code)),
            Some(code) if MISSING_FACT_CODES.contains(&code) => Ok(Some(code)),
            _ => Err(e),
        },
    }
}

fn missing_code(e: &SourceError) -> Option<u32> {
    e.ora_code().filter(|c| MISSING_FACT_CODES.contains(c))
}

fn bound(text: impl Into<String>, binds: &[(&str, &str)]) -> BoundSql {
    BoundSql {
        text: text.into(),
        binds: binds
            .iter()
            .map(|(n, v)| (n.to_string(), BindValue::Text(v.to_string())))
            .collect(),
    }
}

fn first_column(rows: &TextRows) -> Vec<String> {
    rows.iter()
        .filter_map(|r| r.first().cloned().flatten())
        .collect()
}

/// Fills the instance facts from the `V$DATABASE` row of [`sql::INSTANCE_DATABASE`].
pub fn apply_database_row(
    facts: &mut InstanceFacts,
    row: &[Option<String>],
) -> Result<(), SourceError> {
    let row = row.to_vec();
    let r = Reader::new(&row, "V$DATABASE");
    facts.db_name = r.text_or_empty(0)?;
    facts.log_mode = r.text_or_empty(1)?;
    facts.supplemental_log_data_min = r.text_or_empty(2)?;
    facts.supplemental_log_data_pk = r.flag(3)?;
    facts.supplemental_log_data_ui = r.flag(4)?;
    facts.supplemental_log_data_all = r.flag(5)?;
    facts.force_logging = r.flag(6)?;
    facts.database_role = r.text_or_empty(7)?;
    facts.open_mode = r.text_or_empty(8)?;
    facts.current_scn = r.u64_or_zero(9, "CURRENT_SCN")?;
    facts.now = r.datetime(10, "SYSDATE")?;
    Ok(())
}

/// Rows of [`sql::PDBS`].
pub fn pdbs_from_rows(rows: &TextRows) -> Result<Vec<PdbFacts>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "V$PDBS");
            Ok(PdbFacts {
                name: r.text_or_empty(0)?,
                con_id: r.small(1, "CON_ID")?,
                open_mode: r.text_or_empty(2)?,
                restricted: r.flag(3)?,
                application_root: r.flag(4)?,
                application_pdb: r.flag(5)?,
            })
        })
        .collect()
}

/// Folds `ALL_TAB_COLS` rows of [`sql::TABLE_COLUMNS`].
pub fn columns_from_rows(rows: &TextRows) -> Result<Vec<ColumnFacts>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "ALL_TAB_COLS");
            Ok(ColumnFacts {
                name: r.text(0, "COLUMN_NAME")?,
                data_type: r.text_or_empty(1)?,
                data_type_owner: r.opt_text(2)?,
                nullable: r.opt_text(3)?.as_deref() != Some("N"),
                data_length: r.opt_small(4, "DATA_LENGTH")?,
                data_precision: r.opt_small(5, "DATA_PRECISION")?,
                data_scale: r.opt_i32(6, "DATA_SCALE")?,
                hidden: r.flag(7)?,
                virtual_column: r.flag(8)?,
            })
        })
        .collect()
}

/// Folds constraint rows (one per column) of [`sql::TABLE_KEYS`].
pub fn constraints_from_rows(rows: &TextRows) -> Result<Vec<KeyConstraint>, SourceError> {
    let mut out: Vec<KeyConstraint> = Vec::new();
    for row in rows {
        let r = Reader::new(row, "ALL_CONSTRAINTS");
        let name = r.text(0, "CONSTRAINT_NAME")?;
        let column = r.text(3, "COLUMN_NAME")?;
        if let Some(c) = out.last_mut().filter(|c| c.name == name) {
            c.columns.push(column);
            continue;
        }
        out.push(KeyConstraint {
            name,
            constraint_type: r.text_or_empty(1)?,
            enabled: r.opt_text(2)?.as_deref() == Some("ENABLED"),
            columns: vec![column],
        });
    }
    Ok(out)
}

/// Folds index rows (one per column) of [`sql::TABLE_INDEXES`].
pub fn indexes_from_rows(rows: &TextRows) -> Result<Vec<IndexFacts>, SourceError> {
    let mut out: Vec<IndexFacts> = Vec::new();
    for row in rows {
        let r = Reader::new(row, "ALL_INDEXES");
        let name = r.text(0, "INDEX_NAME")?;
        let column = r.text_or_empty(4)?;
        if let Some(i) = out.last_mut().filter(|i| i.name == name) {
            i.columns.push(column);
            continue;
        }
        let unusable = r
            .opt_text(5)?
            .map(|s| {
                s.split(',')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        out.push(IndexFacts {
            name,
            unique: r.opt_text(1)?.as_deref() == Some("UNIQUE"),
            columns: vec![column],
            local: r.opt_text(6)?.as_deref() == Some("LOCAL"),
            status: r.text_or_empty(3)?,
            unusable_partitions: unusable,
        });
    }
    Ok(out)
}

/// Adds the rows of [`sql::TABLE_UNUSABLE_INDEX_PARTITIONS`] to their indexes.
pub fn apply_unusable_partitions(
    indexes: &mut [IndexFacts],
    rows: &TextRows,
) -> Result<(), SourceError> {
    for row in rows {
        let r = Reader::new(row, "ALL_IND_PARTITIONS");
        let index = r.text(0, "INDEX_NAME")?;
        let partition = r.text(1, "PARTITION_NAME")?;
        if let Some(i) = indexes.iter_mut().find(|i| i.name == index) {
            i.unusable_partitions.push(partition);
        }
    }
    Ok(())
}

/// Adds the rows of [`sql::PARTITION_SEGMENT_BYTES`] to their partitions.
pub fn apply_partition_bytes(
    partitions: &mut [PartitionFacts],
    rows: &TextRows,
) -> Result<(), SourceError> {
    for row in rows {
        let r = Reader::new(row, "DBA_SEGMENTS");
        let name = r.text(0, "PARTITION_NAME")?;
        let bytes = r.opt_u64(1, "BYTES")?;
        if let Some(p) = partitions.iter_mut().find(|p| p.name == name) {
            p.bytes = bytes;
        }
    }
    Ok(())
}

/// Rows of [`sql::TABLE_PARTITIONS`].
pub fn partitions_from_rows(rows: &TextRows) -> Result<Vec<PartitionFacts>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "ALL_TAB_PARTITIONS");
            Ok(PartitionFacts {
                name: r.text(0, "PARTITION_NAME")?,
                position: r.small(1, "PARTITION_POSITION")?,
                high_value: r.text_or_empty(2)?,
                num_rows: r.opt_u64(3, "NUM_ROWS")?,
                bytes: None,
                object_id: r.u64_or_zero(4, "OBJECT_ID")?,
                data_object_id: r.opt_u64(5, "DATA_OBJECT_ID")?,
                created: r.datetime(6, "CREATED")?,
                last_ddl_time: r.datetime(7, "LAST_DDL_TIME")?,
                interval: r.flag(8)?,
                subpartition_count: r.small(9, "SUBPARTITION_COUNT")?,
            })
        })
        .collect()
}

/// The open-transaction query of a release: CON_ID_TO_CON_NAME from 18c,
/// V$CONTAINERS on 12.x, no container before.
pub fn open_transactions_sql(major_version: u32) -> &'static str {
    match major_version {
        18.. => sql::OPEN_TRANSACTIONS,
        12..=17 => sql::OPEN_TRANSACTIONS_12,
        _ => sql::OPEN_TRANSACTIONS_NO_CON,
    }
}

/// Rows of [`sql::OPEN_TRANSACTIONS`]: the transaction, and its session
/// when the outer join found one (a NULL SID means it did not).
pub fn transactions_from_rows(rows: &TextRows) -> Result<Vec<SessionTransaction>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "V$TRANSACTION");
            let transaction = OpenTransaction {
                xid: r.text_or_empty(0)?.to_ascii_uppercase(),
                start_scn: r.u64_or_zero(1, "START_SCN")?,
                start_time: r.datetime(2, "START_DATE")?,
                used_urec: r.u64_or_zero(3, "USED_UREC")?,
                username: r.opt_text(4)?,
                con_name: r.opt_text(5)?,
            };
            let s = Reader::new(row, "V$SESSION");
            let sid = s.opt_text(8)?.and_then(|v| v.trim().parse().ok());
            let session = match sid {
                Some(sid) => Some(TransactionSession {
                    sid: Some(sid),
                    serial: s.opt_text(9)?.and_then(|v| v.trim().parse().ok()),
                    username: transaction.username.clone(),
                    program: s.opt_text(6)?,
                    machine: s.opt_text(7)?,
                    inst_id: s
                        .opt_u64(10, "INST_ID")?
                        .and_then(|i| u32::try_from(i).ok()),
                }),
                None => None,
            };
            Ok(SessionTransaction {
                transaction,
                session,
            })
        })
        .collect()
}

impl OracleSource {
    /// `V$TRANSACTION` joined to `V$SESSION` (`GV$` on a cluster).
    pub fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.enter_home()?;
        let cluster = self
            .rows(sql::CLUSTER_DATABASE)?
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .is_some_and(|v| v == "TRUE");
        let (text, fallback) = if cluster {
            sql::open_transactions_rac_statements(self.major_version)
        } else {
            (
                open_transactions_sql(self.major_version),
                sql::OPEN_TRANSACTIONS_NO_CON,
            )
        };
        let rows = match self.rows(text) {
            Ok(rows) => rows,
            // A release older than its banner says loses only the name.
            Err(e) if matches!(e.ora_code(), Some(904)) && text != fallback => {
                self.rows(fallback)?
            }
            Err(e) => return Err(e),
        };
        transactions_from_rows(&rows)
    }

    fn rows(&self, text: &str) -> Result<TextRows, SourceError> {
        self.query_text(&bound(text, &[]))
    }

    fn rows_with(&self, text: &str, binds: &[(&str, &str)]) -> Result<TextRows, SourceError> {
        self.query_text(&bound(text, binds))
    }

    fn table_facts(
        &self,
        owner: &str,
        table: &str,
        row: &[Option<String>],
        scn: u64,
    ) -> Result<TableFacts, SourceError> {
        let row = row.to_vec();
        let r = Reader::new(&row, "ALL_TABLES");
        let name = TableName {
            owner: owner.to_string(),
            table: table.to_string(),
        };
        let binds = [("owner", owner), ("table_name", table)];
        let mut facts = TableFacts {
            name,
            logging: r.flag(2)?,
            temporary: r.flag(3)?,
            iot_type: r.opt_text(4)?,
            nested: r.flag(5)?,
            compress_for: r.opt_text(6)?,
            num_rows: r.opt_u64(7, "NUM_ROWS")?,
            object_id: r.opt_u64(8, "OBJECT_ID")?,
            data_object_id: r.opt_u64(9, "DATA_OBJECT_ID")?,
            last_ddl_time: r.datetime(10, "LAST_DDL_TIME")?,
            ..Default::default()
        };
        facts.columns =
            columns_from_rows(&self.rows_with(sql::table_columns(self.major_version), &binds)?)?;
        facts.constraints = constraints_from_rows(&self.rows_with(sql::TABLE_KEYS, &binds)?)?;
        if let Some(rows) = optional(self.rows_with(sql::TABLE_INDEXES, &binds))? {
            facts.indexes = indexes_from_rows(&rows)?;
            if let Some(rows) =
                optional(self.rows_with(sql::TABLE_UNUSABLE_INDEX_PARTITIONS, &binds))?
            {
                apply_unusable_partitions(&mut facts.indexes, &rows)?;
            }
        }
        if let Some(rows) = optional(self.rows_with(sql::TABLE_LOG_GROUPS, &binds))? {
            for row in &rows {
                let r = Reader::new(row, "ALL_LOG_GROUPS");
                facts.log_groups.push(LogGroupFacts {
                    name: r.text_or_empty(0)?,
                    log_group_type: r.text_or_empty(1)?,
                    always: r.opt_text(2)?.as_deref() == Some("ALWAYS"),
                });
            }
        }
        if let Some(rows) = optional(self.rows_with(sql::TABLE_PARTITIONING, &binds))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "ALL_PART_TABLES");
                let partitions_sql = if self.major_version >= 12 {
                    sql::TABLE_PARTITIONS
                } else {
                    sql::TABLE_PARTITIONS_11G
                };
                let mut partitions =
                    partitions_from_rows(&self.rows_with(partitions_sql, &binds)?)?;
                if let Some(rows) = optional(self.rows_with(sql::PARTITION_SEGMENT_BYTES, &binds))?
                {
                    apply_partition_bytes(&mut partitions, &rows)?;
                }
                facts.partitioning = Some(PartitioningFacts {
                    partitioning_type: r.text_or_empty(0)?,
                    subpartitioning_type: r.opt_text(1)?.filter(|s| s != "NONE"),
                    interval: r.opt_text(2)?,
                    key_columns: r
                        .opt_text(3)?
                        .map(|s| s.split(',').map(str::to_string).collect())
                        .unwrap_or_default(),
                    partitions,
                });
            }
        }
        if let Some(rows) = optional(self.rows_with(sql::TABLE_SEGMENT_BYTES, &binds))? {
            if let Some(row) = rows.first() {
                facts.segment_bytes = Reader::new(row, "DBA_SEGMENTS").opt_u64(0, "BYTES")?;
            }
        }
        if let Some(rows) = optional(self.rows_with(sql::TABLE_ENCRYPTED, &binds))? {
            if let Some(row) = rows.first() {
                facts.encrypted = Reader::new(row, "DBA_TABLESPACES").flag(0)?;
            }
        }
        if let Some(rows) = optional(self.rows_with(sql::TABLE_GRANTS, &binds))? {
            facts.granted = first_column(&rows);
        }
        if let Some(probe) = sql::flashback_probe(owner, table) {
            let result = self.query_text(&BoundSql {
                text: probe,
                binds: vec![("scn".to_string(), BindValue::Number(scn))],
            });
            match result {
                Ok(_) => {}
                Err(e) => match e.ora_code() {
                    Some(code) => facts.flashback_probe_error = Some(code),
                    None => return Err(e),
                },
            }
        }
        Ok(facts)
    }
}

impl Catalog for OracleSource {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.enter_home()?;
        let mut facts = InstanceFacts::default();
        if let Some(rows) = optional(self.rows(sql::INSTANCE_DATABASE))? {
            if let Some(row) = rows.first() {
                apply_database_row(&mut facts, row)?;
            }
        }
        if self.major_version >= 12 {
            if let Some(rows) = optional(self.rows(sql::INSTANCE_CDB))? {
                facts.cdb = first_column(&rows).first().is_some_and(|v| v == "YES");
            }
        }
        let version_sql = if self.major_version >= 18 {
            sql::INSTANCE_VERSION_FULL
        } else {
            sql::INSTANCE_VERSION
        };
        if let Some(rows) = optional(self.rows(version_sql))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "V$INSTANCE");
                facts.instance_name = r.text_or_empty(0)?;
                facts.version = r.text_or_empty(1)?;
            }
        }
        if let Some(rows) = optional(self.rows(sql::VERSION_BANNER))? {
            facts.banner = first_column(&rows).into_iter().next().unwrap_or_default();
        }
        if let Some(rows) = optional(self.rows(sql::PARAMETERS))? {
            let mut params = BTreeMap::new();
            for row in &rows {
                let r = Reader::new(row, "V$PARAMETER");
                params.insert(
                    r.text_or_empty(0)?.to_ascii_lowercase(),
                    r.text_or_empty(1)?,
                );
            }
            facts.parameters = params;
        }
        if let Some(rows) = optional(self.rows(sql::CHARACTER_SETS))? {
            for row in &rows {
                let r = Reader::new(row, "NLS_DATABASE_PARAMETERS");
                let value = r.text_or_empty(1)?;
                match r.text_or_empty(0)?.as_str() {
                    "NLS_CHARACTERSET" => facts.nls_characterset = value,
                    "NLS_NCHAR_CHARACTERSET" => facts.nls_nchar_characterset = value,
                    _ => {}
                }
            }
        }
        if facts.cdb {
            let pdbs = match self.rows(sql::PDBS) {
                Err(e) if e.ora_code() == Some(904) => self.rows(sql::PDBS_12_1),
                other => other,
            };
            if let Some(rows) = optional(pdbs)? {
                facts.pdbs = pdbs_from_rows(&rows)?;
            }
        }
        if let Some(rows) = optional(self.rows(sql::RECOVERY_AREA))? {
            if let Some(row) = rows
                .first()
                .filter(|r| r.first().is_some_and(Option::is_some))
            {
                let r = Reader::new(row, "V$RECOVERY_FILE_DEST");
                let mut area = RecoveryArea {
                    name: r.text_or_empty(0)?,
                    space_limit: r.u64_or_zero(1, "SPACE_LIMIT")?,
                    space_used: r.u64_or_zero(2, "SPACE_USED")?,
                    space_reclaimable: r.u64_or_zero(3, "SPACE_RECLAIMABLE")?,
                    number_of_files: r.u64_or_zero(4, "NUMBER_OF_FILES")?,
                    archived_log_reclaimable_pct: None,
                };
                if let Some(rows) = optional(self.rows(sql::RECOVERY_AREA_ARCHIVED))? {
                    area.archived_log_reclaimable_pct = first_column(&rows)
                        .first()
                        .and_then(|v| v.trim().parse::<f64>().ok());
                }
                facts.recovery_area = Some(area);
            }
        }
        if let Some(rows) = optional(self.rows(sql::FAILED_ARCHIVE_DESTS))? {
            facts.failed_archive_dests = first_column(&rows);
        }
        let services_sql = if self.major_version >= 12 {
            sql::SERVICES
        } else {
            sql::SERVICES_11G
        };
        if let Some(rows) = optional(self.rows(services_sql))? {
            for row in &rows {
                let r = Reader::new(row, "V$SERVICES");
                facts.services.push(ServiceFacts {
                    name: r.text_or_empty(0)?,
                    network_name: r.opt_text(1)?,
                    pdb: r.opt_text(2)?,
                });
            }
        }
        let mut undo = UndoFacts::default();
        if let Some(rows) = optional(self.rows(sql::UNDO_TABLESPACE))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "DBA_TABLESPACES");
                undo.tablespace = r.opt_text(0)?;
                undo.retention_guarantee = r.opt_text(1)?.as_deref() == Some("GUARANTEE");
                undo.autoextensible = r.flag(2)?;
            }
        }
        if let Some(rows) = optional(self.rows(sql::UNDO_STATS))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "V$UNDOSTAT");
                undo.tuned_undoretention_s = r.opt_u64(0, "TUNED_UNDORETENTION")?;
                undo.snapshot_too_old_errors = r.u64_or_zero(1, "SSOLDERRCNT")?;
                undo.no_space_errors = r.u64_or_zero(2, "NOSPACEERRCNT")?;
            }
        }
        facts.undo = undo;
        if let Some(rows) = optional(self.rows(sql::WALLET_STATUS))? {
            facts.wallet_status = first_column(&rows).into_iter().next();
        }
        if let Some(rows) = optional(self.rows(sql::ENCRYPTED_TABLESPACES))? {
            facts.encrypted_tablespaces = first_column(&rows);
        }
        if let Some(rows) = optional(self.rows(sql::SWITCH_HISTORY))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "V$LOG_HISTORY");
                facts.switch_history = Some(SwitchHistory {
                    peak_per_hour: r.small(0, "COUNT")?,
                    hours_observed: r.small(1, "HOURS")?,
                });
            }
        }
        Ok(facts)
    }

    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.enter_home()?;
        let mut facts = SessionFacts::default();
        let context_sql = if self.major_version >= 12 {
            sql::SESSION_CONTEXT
        } else {
            sql::SESSION_CONTEXT_11G
        };
        if let Some(row) = self.rows(context_sql)?.first() {
            let r = Reader::new(row, "USERENV");
            facts.user = r.text_or_empty(0)?;
            facts.con_name = r.text_or_empty(1)?;
            facts.service_name = r.opt_text(2)?;
        }
        facts.privileges = first_column(&self.rows(sql::SESSION_PRIVS)?);
        facts.roles = first_column(&self.rows(sql::SESSION_ROLES)?);
        let user = facts.user.clone();
        let mut profile = ProfileFacts::default();
        let mut have_account = false;
        if let Some(rows) = optional(self.rows(sql::USER_ACCOUNT))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "USER_USERS");
                facts.default_tablespace = r.opt_text(0)?;
                profile.account_status = r.opt_text(1)?;
                profile.expiry_date = r.datetime(2, "EXPIRY_DATE")?;
                have_account = true;
            }
        }
        let result = self.rows_with(sql::USER_PROFILE, &[("username", &user)]);
        if let Some(rows) = or_record(&mut facts.inaccessible_objects, "DBA_USERS", result)? {
            if let Some(name) = first_column(&rows).into_iter().next() {
                profile.profile = name;
                have_account = true;
            }
        }
        if !profile.profile.is_empty() {
            let result = self.rows_with(sql::PROFILE_LIMITS, &[("profile", &profile.profile)]);
            if let Some(rows) = or_record(&mut facts.inaccessible_objects, "DBA_PROFILES", result)?
            {
                for row in &rows {
                    let r = Reader::new(row, "DBA_PROFILES");
                    let limit = r.opt_text(1)?;
                    match r.text_or_empty(0)?.as_str() {
                        "IDLE_TIME" => profile.idle_time = limit,
                        "CONNECT_TIME" => profile.connect_time = limit,
                        "PASSWORD_LIFE_TIME" => profile.password_life_time = limit,
                        _ => {}
                    }
                }
            }
        }
        if have_account {
            facts.profile = Some(profile);
        }
        if let Some(rows) = optional(self.rows(sql::USER_QUOTA))? {
            facts.has_quota = first_column(&rows).first().map(|v| v == "YES");
        }
        if self.major_version >= 12 {
            if let Some(rows) = optional(self.rows_with(sql::USER_COMMON, &[("username", &user)]))?
            {
                facts.common_user = first_column(&rows).first().is_some_and(|v| v == "YES");
            }
            let result = self.rows_with(sql::CONTAINER_DATA, &[("username", &user)]);
            if let Some(rows) = or_record(
                &mut facts.inaccessible_objects,
                "CDB_CONTAINER_DATA",
                result,
            )? {
                facts.container_data = first_column(&rows);
            }
        }
        for (object, probe) in sql::PROBED_OBJECTS {
            probe_result(&mut facts.inaccessible_objects, object, self.rows(probe))?;
        }
        // Files already added prove EXECUTE, and ending that session here
        // would discard them.
        if self.added_logs.is_empty() {
            let (object, probe) = sql::PROBE_DBMS_LOGMNR;
            let result = self.execute(&bound(probe, &[]));
            if let Some(code) = logmnr_probe_code(result)? {
                facts.inaccessible_objects.insert(object.to_string(), code);
            }
        }
        Ok(facts)
    }

    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let every = TablePattern::every_table();
        let patterns = if patterns.is_empty() {
            std::slice::from_ref(&every)
        } else {
            patterns
        };
        let scn = RedoSource::current_scn(self)?.scn;
        // Each container has its own dictionary: a PDB's tables are seen
        // only from inside it.
        self.enter_pdb()?;
        let mut found: BTreeMap<TableName, Vec<Option<String>>> = BTreeMap::new();
        for p in patterns {
            let rows = self.query_text(&sql::tables_matching(
                &p.owner,
                &p.table,
                &self.oracle_schemas,
            ))?;
            for row in rows {
                let r = Reader::new(&row, "ALL_TABLES");
                let name = TableName {
                    owner: r.text(0, "OWNER")?,
                    table: r.text(1, "TABLE_NAME")?,
                };
                found.entry(name).or_insert(row);
            }
        }
        let mut out = Vec::with_capacity(found.len());
        for (name, row) in &found {
            out.push(self.table_facts(&name.owner, &name.table, row, scn)?);
        }
        Ok(out)
    }

    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        OracleSource::session_transactions(self)
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self
            .session_transactions()?
            .into_iter()
            .map(|t| t.transaction)
            .collect())
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        RedoSource::log_inventory(self)
    }

    fn set_pdb(&mut self, name: Option<&str>) -> Result<(), SourceError> {
        self.use_pdb(name.map(str::to_string))
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
