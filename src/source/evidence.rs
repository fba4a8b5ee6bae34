//! Offline catalog facts. `cdcctl collect` prints a SQL*Plus script that
//! spools the rows of the catalog's named queries into one JSON file:
//!
//! ```json
//! {"format": "cdcctl-evidence", "version": 1, "collected_at": "2026-01-31T12:00:00",
//!  "dialect": "oracle",
//!  "queries": {"database": [{"LOG_MODE": "ARCHIVELOG", ...}], "pdbs": [...],
//!              "wallet": {"error": "ORA-00942"}}}
//! ```
//!
//! Keys of a row are the upper-case output column names of the query; a
//! query the database refused is `{"error": "ORA-nnnnn"}`. This module maps
//! those rows into the catalog fact structs ([`EvidenceCatalog`], which
//! implements `Catalog`) and, for `collect --from-source`, renders facts
//! back into the same rows ([`rows_from_facts`]) so that both directions go
//! through one mapping.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::{
    ArchiveDestStatus, ArchivedLog, Catalog, ColumnFacts, Dialect, DmArchDest, DmFacts, IndexFacts,
    InstanceFacts, KeyConstraint, LogGroupFacts, LogInventory, OnlineLog, OpenTransaction,
    PartitionFacts, PartitioningFacts, PdbFacts, ProfileFacts, RecoveryArea, RedoThread,
    ServiceFacts, SessionFacts, SessionTransaction, SourceError, SwitchHistory, TableFacts,
    TableName, TablePattern, TransactionSession, YashanFacts, YstreamServer,
};

/// The `format` key every evidence file carries.
pub const FORMAT: &str = "cdcctl-evidence";
/// The evidence format version this build reads and writes.
pub const VERSION: u32 = 1;

/// The views and packages a LogMiner client touches.
pub const REQUIRED_OBJECTS: &[&str] = &[
    "V$DATABASE",
    "V$LOG",
    "V$LOG_HISTORY",
    "V$LOGFILE",
    "V$ARCHIVED_LOG",
    "V$ARCHIVE_DEST",
    "V$ARCHIVE_DEST_STATUS",
    "V$TRANSACTION",
    "V$SESSION",
    "V$LOGMNR_LOGS",
    "V$LOGMNR_CONTENTS",
    "V$LOGMNR_PARAMETERS",
    "V$MYSTAT",
    "V$STATNAME",
    "DBMS_LOGMNR",
    "DBMS_LOGMNR_D",
];

/// One row: upper-case column name → JSON value.
pub type Row = BTreeMap<String, Value>;

/// The rows of one query, or the error the database raised for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QueryRows {
    Rows(Vec<Row>),
    Error { error: String },
}

/// An evidence file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceFile {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub collected_at: Option<String>,
    #[serde(default)]
    pub dialect: Dialect,
    /// Where the rows came from (`collect --from-source` fills it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub queries: BTreeMap<String, QueryRows>,
}

impl EvidenceFile {
    /// Parses evidence text, refusing files of other tools and versions.
    pub fn parse(text: &str, path: &str) -> Result<Self, SourceError> {
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => repair_lines(text).ok_or_else(|| {
                SourceError::Invalid(format!(
                    "{path} is not an evidence file: it is not JSON ({e}); produce one with `cdcctl collect`"
                ))
            })?,
        };
        match v.get("format").and_then(Value::as_str) {
            Some(FORMAT) => {}
            other => {
                return Err(SourceError::Invalid(format!(
                    "{path} is not a cdcctl evidence file (format {}); produce one with `cdcctl collect`",
                    other.map(|s| format!("`{s}`")).unwrap_or_else(|| "missing".into())
                )))
            }
        }
        let file: EvidenceFile = serde_json::from_value(v).map_err(|e| {
            SourceError::Invalid(format!("{path}: the evidence file is malformed: {e}"))
        })?;
        if file.version != VERSION {
            return Err(SourceError::Invalid(format!(
                "{path}: evidence version {} is not supported (this cdcctl reads version {VERSION})",
                file.version
            )));
        }
        Ok(file)
    }

    fn rows(&self, name: &str) -> Result<&[Row], String> {
        match self.queries.get(name) {
            Some(QueryRows::Rows(r)) => Ok(r),
            Some(QueryRows::Error { error }) => Err(format!("query `{name}` failed: {error}")),
            None => Err(format!("query `{name}` is not in the evidence file")),
        }
    }

    /// Rows of a query that may be absent or refused: empty then.
    fn rows_or_empty(&self, name: &str) -> &[Row] {
        self.rows(name).unwrap_or(&[])
    }
}

/// Reads a file spooled by the disql or yasql script (`collect
/// --dialect dm|yashandb`), which prints one JSON line per row between a
/// section's `"name":[` and `]` lines. When the database refused a query,
/// the client printed its error text inside that section instead: the
/// section becomes `{"error": text}` and the rest of the file still reads.
/// `None` when the text does not have that layout.
pub fn repair_lines(text: &str) -> Option<Value> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut head = String::new();
    for line in lines.by_ref() {
        if line == "\"queries\":{" {
            break;
        }
        if line.starts_with('{') || line.starts_with('"') {
            head.push_str(line);
        }
    }
    let head: Value = serde_json::from_str(&format!("{}}}", head.trim_end_matches(','))).ok()?;
    let mut file = head.as_object()?.clone();
    file.get("format")?;
    // Only the disql and yasql scripts print this layout; an Oracle spool
    // that is not JSON stays an error.
    if !matches!(
        file.get("dialect").and_then(Value::as_str),
        Some("dm" | "yashandb")
    ) {
        return None;
    }
    let mut queries = serde_json::Map::new();
    let mut section: Option<(String, Vec<String>, Vec<String>)> = None;
    for line in lines {
        match section.as_mut() {
            None => {
                let name = line
                    .trim_start_matches(',')
                    .strip_suffix(":[")
                    .and_then(|n| n.strip_prefix('"'))
                    .and_then(|n| n.strip_suffix('"'));
                if let Some(name) = name {
                    section = Some((name.to_string(), Vec::new(), Vec::new()));
                }
            }
            Some((_, rows, noise)) => {
                if line == "]" {
                    let (name, rows, noise) = section.take()?;
                    queries.insert(name, section_value(&rows, &noise));
                } else if line.starts_with('{') || line.starts_with(",{") {
                    rows.push(line.trim_start_matches(',').to_string());
                } else if !is_echo(line) && !is_chatter(line) {
                    noise.push(line.to_string());
                }
            }
        }
    }
    if let Some((name, rows, mut noise)) = section {
        noise.push("the file ends inside this query's rows".into());
        queries.insert(name, section_value(&rows, &noise));
    }
    file.insert("queries".into(), Value::Object(queries));
    Some(Value::Object(file))
}

/// A statement the client echoed back: not an error.
fn is_echo(line: &str) -> bool {
    let up = line.to_ascii_uppercase();
    up.starts_with("SQL>")
        || up.starts_with("SELECT ")
        || up.starts_with("FROM ")
        || up.starts_with("|| ")
}

/// What disql and yasql print about a statement when their settings do
/// not silence it (row counts, timings, an empty result): not an error.
fn is_chatter(line: &str) -> bool {
    let low = line.to_ascii_lowercase();
    let counted = low.split_once(' ').is_some_and(|(n, rest)| {
        n.chars().all(|c| c.is_ascii_digit())
            && [
                "row fetched",
                "rows fetched",
                "row selected",
                "rows selected",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
    });
    counted
        || low == "no rows selected"
        || low.starts_with("elapsed:")
        || low == "succeed."
        || line.starts_with("未选定行")
        || line.starts_with("行数")
        || line.starts_with("已用时间")
}

fn section_value(rows: &[String], noise: &[String]) -> Value {
    if !noise.is_empty() {
        let error: String = noise.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
        let error: String = error.chars().take(300).collect();
        return serde_json::json!({ "error": error });
    }
    let parsed: Result<Vec<Value>, _> = rows.iter().map(|r| serde_json::from_str(r)).collect();
    match parsed {
        Ok(v) => Value::Array(v),
        Err(e) => serde_json::json!({ "error": format!("a row is not JSON: {e}") }),
    }
}

// ---- cell readers: JSON_OBJECT emits numbers as numbers, but values may be strings.

fn text(r: &Row, col: &str) -> Option<String> {
    match r.get(col)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "YES".into() } else { "NO".into() }),
        other => Some(other.to_string()),
    }
}

fn text_or(r: &Row, col: &str) -> String {
    text(r, col).unwrap_or_default()
}

fn num(r: &Row, col: &str) -> Option<u64> {
    match r.get(col)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Value::String(s) => s.trim().parse::<f64>().ok().map(|f| f.max(0.0) as u64),
        _ => None,
    }
}

fn float(r: &Row, col: &str) -> Option<f64> {
    match r.get(col)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn int(r: &Row, col: &str) -> Option<i64> {
    match r.get(col)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn yes(r: &Row, col: &str) -> bool {
    matches!(
        text(r, col).as_deref().map(str::trim),
        Some("YES" | "Y" | "TRUE" | "true" | "ENABLED" | "ALWAYS" | "1")
    )
}

fn time(r: &Row, col: &str) -> Option<NaiveDateTime> {
    parse_time(&text(r, col)?)
}

fn parse_time(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim().trim_end_matches('Z');
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, f) {
            return Some(t);
        }
    }
    None
}

fn table_key(r: &Row, owner: &str, table: &str) -> TableName {
    TableName {
        owner: text_or(r, owner),
        table: text_or(r, table),
    }
}

// ---- rows → facts

fn instance_from(ev: &EvidenceFile) -> Result<InstanceFacts, String> {
    let mut i = InstanceFacts {
        dialect: ev.dialect,
        ..Default::default()
    };
    match ev.dialect {
        Dialect::Oracle => {
            let db = ev
                .rows("database")?
                .first()
                .ok_or("V$DATABASE returned no row")?;
            i.db_name = text_or(db, "NAME");
            i.log_mode = text_or(db, "LOG_MODE");
            i.supplemental_log_data_min = text_or(db, "SUPPLEMENTAL_LOG_DATA_MIN");
            i.supplemental_log_data_pk = yes(db, "SUPPLEMENTAL_LOG_DATA_PK");
            i.supplemental_log_data_ui = yes(db, "SUPPLEMENTAL_LOG_DATA_UI");
            i.supplemental_log_data_all = yes(db, "SUPPLEMENTAL_LOG_DATA_ALL");
            i.force_logging = yes(db, "FORCE_LOGGING");
            i.database_role = text_or(db, "DATABASE_ROLE");
            i.open_mode = text_or(db, "OPEN_MODE");
            i.cdb = yes(db, "CDB");
            i.current_scn = num(db, "CURRENT_SCN").unwrap_or(0);
            i.now = time(db, "NOW");
        }
        Dialect::Dm => {
            if let Some(db) = ev.rows_or_empty("dm_database").first() {
                i.log_mode = if yes(db, "ARCH_MODE") {
                    "ARCHIVELOG"
                } else {
                    "NOARCHIVELOG"
                }
                .into();
            }
            let ini: BTreeMap<String, String> = ev
                .rows_or_empty("dm_ini")
                .iter()
                .map(|r| (text_or(r, "PARA_NAME"), text_or(r, "PARA_VALUE")))
                .collect();
            i.dm = Some(DmFacts {
                arch_ini: ini.get("ARCH_INI").cloned(),
                rlog_append_logic: ini.get("RLOG_APPEND_LOGIC").cloned(),
                logmnr_package_installed: ev
                    .rows("dm_pkg")
                    .ok()
                    .and_then(|r| r.first())
                    .map(|r| yes(r, "INSTALLED")),
                mpp: ini.get("MPP_INI").map(|v| v.trim() == "1"),
                arch_destinations: ev
                    .rows_or_empty("dm_arch_ini")
                    .iter()
                    .map(|r| DmArchDest {
                        arch_name: text_or(r, "ARCH_NAME"),
                        arch_type: text_or(r, "ARCH_TYPE"),
                        arch_dest: text_or(r, "ARCH_DEST"),
                        arch_space_limit: num(r, "ARCH_SPACE_LIMIT").unwrap_or(0),
                        arch_is_valid: yes(r, "ARCH_IS_VALID"),
                    })
                    .collect(),
            });
        }
        Dialect::Yashandb => {
            if let Some(db) = ev.rows_or_empty("ys_database").first() {
                i.log_mode = text_or(db, "LOG_MODE");
                i.supplemental_log_data_all = yes(db, "SUPPLEMENTAL_LOG_DATA_ALL");
            }
            i.yashan = Some(YashanFacts {
                stream_pool_size: ev
                    .rows_or_empty("ys_parameters")
                    .iter()
                    .find(|r| text_or(r, "NAME").eq_ignore_ascii_case("STREAM_POOL_SIZE"))
                    .and_then(|r| text(r, "VALUE")),
                servers: ev
                    .rows_or_empty("ys_servers")
                    .iter()
                    .map(|r| YstreamServer {
                        server_name: text_or(r, "SERVER_NAME"),
                        status: text_or(r, "STATUS"),
                        connect_user: text(r, "CONNECT_USER"),
                        start_scn: num(r, "START_SCN"),
                        error: text(r, "ERROR"),
                    })
                    .collect(),
            });
        }
    }
    // DM8 and YashanDB have no NOW column: the database's clock when the
    // script ran is the file's collected_at.
    if i.now.is_none() {
        i.now = ev.collected_at.as_deref().and_then(parse_time);
    }
    if let Some(r) = ev.rows_or_empty("instance").first() {
        i.version = text(r, "VERSION_FULL")
            .or_else(|| text(r, "VERSION"))
            .unwrap_or_default();
        i.instance_name = text_or(r, "INSTANCE_NAME");
    }
    if let Some(r) = ev.rows_or_empty("version_banner").first() {
        i.banner = text_or(r, "BANNER");
    }
    for r in ev.rows_or_empty("parameters") {
        if let Some(v) = text(r, "VALUE") {
            i.parameters
                .insert(text_or(r, "NAME").to_ascii_lowercase(), v);
        }
    }
    i.pdbs = ev
        .rows_or_empty("pdbs")
        .iter()
        .map(|r| PdbFacts {
            name: text_or(r, "NAME"),
            con_id: num(r, "CON_ID").unwrap_or(0) as u32,
            open_mode: text_or(r, "OPEN_MODE"),
            restricted: yes(r, "RESTRICTED"),
            application_root: yes(r, "APPLICATION_ROOT"),
            application_pdb: yes(r, "APPLICATION_PDB"),
        })
        .collect();
    i.services = ev
        .rows_or_empty("services")
        .iter()
        .map(|r| ServiceFacts {
            name: text_or(r, "NAME"),
            network_name: text(r, "NETWORK_NAME"),
            pdb: text(r, "PDB"),
        })
        .collect();
    i.recovery_area = ev
        .rows_or_empty("recovery_area")
        .first()
        .map(|r| RecoveryArea {
            name: text_or(r, "NAME"),
            space_limit: num(r, "SPACE_LIMIT").unwrap_or(0),
            space_used: num(r, "SPACE_USED").unwrap_or(0),
            space_reclaimable: num(r, "SPACE_RECLAIMABLE").unwrap_or(0),
            number_of_files: num(r, "NUMBER_OF_FILES").unwrap_or(0),
            archived_log_reclaimable_pct: ev
                .rows_or_empty("recovery_area_usage")
                .iter()
                .find(|u| text_or(u, "FILE_TYPE") == "ARCHIVED LOG")
                .and_then(|u| float(u, "PERCENT_SPACE_RECLAIMABLE")),
        });
    i.failed_archive_dests = ev
        .rows_or_empty("archive_dest_failed")
        .iter()
        .map(|r| text_or(r, "DEST_NAME"))
        .collect();
    if let Some(r) = ev.rows_or_empty("undo_stat").first() {
        i.undo.tuned_undoretention_s = num(r, "TUNED_UNDORETENTION");
        i.undo.snapshot_too_old_errors = num(r, "SSOLDERRCNT").unwrap_or(0);
        i.undo.no_space_errors = num(r, "NOSPACEERRCNT").unwrap_or(0);
    }
    if let Some(r) = ev.rows_or_empty("undo_tablespaces").first() {
        i.undo.tablespace = text(r, "TABLESPACE_NAME");
        i.undo.retention_guarantee = text_or(r, "RETENTION") == "GUARANTEE";
        i.undo.autoextensible = yes(r, "AUTOEXTENSIBLE");
    }
    i.wallet_status = ev
        .rows_or_empty("wallet")
        .first()
        .and_then(|r| text(r, "STATUS"));
    i.encrypted_tablespaces = ev
        .rows_or_empty("encrypted_tablespaces")
        .iter()
        .map(|r| text_or(r, "TABLESPACE_NAME"))
        .collect();
    i.switch_history = ev
        .rows("log_switches")
        .ok()
        .and_then(|r| r.first())
        .map(|r| SwitchHistory {
            peak_per_hour: num(r, "PEAK_PER_HOUR").unwrap_or(0) as u32,
            hours_observed: num(r, "HOURS_OBSERVED").unwrap_or(0) as u32,
        });
    Ok(i)
}

fn session_from(ev: &EvidenceFile) -> Result<SessionFacts, String> {
    let r = ev
        .rows("session")?
        .first()
        .ok_or("the session query returned no row")?;
    let mut s = SessionFacts {
        user: text_or(r, "USERNAME"),
        con_name: text_or(r, "CON_NAME"),
        service_name: text(r, "SERVICE_NAME"),
        ..Default::default()
    };
    s.privileges = ev
        .rows_or_empty("session_privs")
        .iter()
        .map(|r| text_or(r, "PRIVILEGE"))
        .collect();
    s.roles = ev
        .rows_or_empty("session_roles")
        .iter()
        .map(|r| text_or(r, "ROLE"))
        .collect();
    s.container_data = ev
        .rows_or_empty("container_data")
        .iter()
        .map(|r| {
            if yes(r, "ALL_CONTAINERS") {
                "ALL".to_string()
            } else {
                text_or(r, "CONTAINER_NAME")
            }
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if let Some(u) = ev.rows_or_empty("user_account").first() {
        s.common_user = yes(u, "COMMON");
        s.default_tablespace = text(u, "DEFAULT_TABLESPACE");
        let limits: BTreeMap<String, String> = ev
            .rows_or_empty("user_profile")
            .iter()
            .map(|r| (text_or(r, "RESOURCE_NAME"), text_or(r, "LIMIT")))
            .collect();
        s.profile = Some(ProfileFacts {
            profile: text_or(u, "PROFILE"),
            idle_time: limits.get("IDLE_TIME").cloned(),
            connect_time: limits.get("CONNECT_TIME").cloned(),
            password_life_time: limits.get("PASSWORD_LIFE_TIME").cloned(),
            account_status: text(u, "ACCOUNT_STATUS"),
            expiry_date: time(u, "EXPIRY_DATE"),
        });
    }
    if let Ok(q) = ev.rows("user_quotas") {
        let ts = s.default_tablespace.clone().unwrap_or_default();
        s.has_quota = Some(q.iter().any(|r| text_or(r, "TABLESPACE_NAME") == ts));
    }
    // A refused CDB_CONTAINER_DATA is unknown, not empty.
    if let Some(QueryRows::Error { error }) = ev.queries.get("container_data") {
        let code = error
            .trim_start_matches("ORA-")
            .parse::<u32>()
            .unwrap_or(942);
        s.inaccessible_objects
            .insert("CDB_CONTAINER_DATA".into(), code);
    }
    for r in ev.rows_or_empty("object_access") {
        let code = num(r, "ORA_CODE").unwrap_or(0) as u32;
        if code != 0 {
            s.inaccessible_objects
                .insert(text_or(r, "OBJECT_NAME"), code);
        }
    }
    if ev.dialect == Dialect::Dm {
        // The DM8 script probes each view mining reads: a refused probe is
        // a missing grant.
        for (query, object) in [
            ("dm_probe_logmnr_contents", "V$LOGMNR_CONTENTS"),
            ("dm_probe_arch_file", "V$ARCH_FILE"),
            ("dm_probe_rlog", "V$RLOG"),
            ("dm_probe_trx", "V$TRX"),
            ("dm_ini", "V$DM_INI"),
        ] {
            if let Some(QueryRows::Error { error }) = ev.queries.get(query) {
                s.inaccessible_objects
                    .insert(object.into(), error_code(error));
            }
        }
    }
    if ev.dialect == Dialect::Yashandb {
        // The YashanDB script reads these views in its own queries: a
        // refused one is a missing grant.
        for (query, object) in [
            ("ys_database", "V$DATABASE"),
            ("ys_transactions", "V$TRANSACTION"),
            ("ys_servers", "V$YSTREAM_SERVER"),
        ] {
            if let Some(QueryRows::Error { error }) = ev.queries.get(query) {
                s.inaccessible_objects
                    .insert(object.into(), error_code(error));
            }
        }
    }
    Ok(s)
}

/// The number of a client's error text (`YAS-02012`, `[-2106]`), or 1
/// when it carries none.
fn error_code(error: &str) -> u32 {
    let from = error.find("YAS-").map_or(0, |i| i + 4);
    let digits: String = error[from..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|c| *c != 0).unwrap_or(1)
}

fn tables_from(ev: &EvidenceFile) -> Result<Vec<TableFacts>, String> {
    let encrypted: BTreeSet<String> = ev
        .rows_or_empty("encrypted_tablespaces")
        .iter()
        .map(|r| text_or(r, "TABLESPACE_NAME"))
        .collect();
    let mut tables: BTreeMap<TableName, TableFacts> = BTreeMap::new();
    for r in ev.rows("tables")? {
        let name = table_key(r, "OWNER", "TABLE_NAME");
        let t = TableFacts {
            name: name.clone(),
            logging: yes(r, "LOGGING"),
            temporary: yes(r, "TEMPORARY"),
            iot_type: text(r, "IOT_TYPE"),
            nested: yes(r, "NESTED"),
            compress_for: text(r, "COMPRESS_FOR"),
            num_rows: num(r, "NUM_ROWS"),
            encrypted: text(r, "TABLESPACE_NAME").is_some_and(|ts| encrypted.contains(&ts)),
            ..Default::default()
        };
        tables.insert(name, t);
    }
    for r in ev.rows_or_empty("columns") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.columns.push(ColumnFacts {
                name: text_or(r, "COLUMN_NAME"),
                data_type: text_or(r, "DATA_TYPE"),
                data_type_owner: text(r, "DATA_TYPE_OWNER"),
                nullable: yes(r, "NULLABLE"),
                data_length: num(r, "DATA_LENGTH").map(|v| v as u32),
                data_precision: num(r, "DATA_PRECISION").map(|v| v as u32),
                data_scale: int(r, "DATA_SCALE").map(|v| v as i32),
                hidden: yes(r, "HIDDEN_COLUMN"),
                virtual_column: yes(r, "VIRTUAL_COLUMN"),
            });
        }
    }
    let mut cons: Vec<&Row> = ev.rows_or_empty("constraints").iter().collect();
    cons.sort_by_key(|r| num(r, "POSITION").unwrap_or(0));
    for r in cons {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            let name = text_or(r, "CONSTRAINT_NAME");
            let col = text_or(r, "COLUMN_NAME");
            match t.constraints.iter_mut().find(|c| c.name == name) {
                Some(c) => c.columns.push(col),
                None => t.constraints.push(KeyConstraint {
                    name,
                    constraint_type: text_or(r, "CONSTRAINT_TYPE"),
                    columns: vec![col],
                    enabled: yes(r, "STATUS"),
                }),
            }
        }
    }
    let mut idx: Vec<&Row> = ev.rows_or_empty("indexes").iter().collect();
    idx.sort_by_key(|r| num(r, "COLUMN_POSITION").unwrap_or(0));
    for r in idx {
        if let Some(t) = tables.get_mut(&table_key(r, "TABLE_OWNER", "TABLE_NAME")) {
            let name = text_or(r, "INDEX_NAME");
            let col = text_or(r, "COLUMN_NAME");
            match t.indexes.iter_mut().find(|i| i.name == name) {
                Some(i) => i.columns.push(col),
                None => t.indexes.push(IndexFacts {
                    name,
                    unique: text_or(r, "UNIQUENESS") == "UNIQUE",
                    columns: vec![col],
                    local: yes(r, "PARTITIONED"),
                    status: text_or(r, "STATUS"),
                    unusable_partitions: Vec::new(),
                }),
            }
        }
    }
    for r in ev.rows_or_empty("unusable_index_partitions") {
        let owner = text_or(r, "INDEX_OWNER");
        let name = text_or(r, "INDEX_NAME");
        for t in tables.values_mut().filter(|t| t.name.owner == owner) {
            if let Some(i) = t.indexes.iter_mut().find(|i| i.name == name) {
                i.unusable_partitions.push(text_or(r, "PARTITION_NAME"));
            }
        }
    }
    for r in ev.rows_or_empty("log_groups") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.log_groups.push(LogGroupFacts {
                name: text_or(r, "LOG_GROUP_NAME"),
                log_group_type: text_or(r, "LOG_GROUP_TYPE"),
                always: yes(r, "ALWAYS"),
            });
        }
    }
    for r in ev.rows_or_empty("part_tables") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.partitioning = Some(PartitioningFacts {
                partitioning_type: text_or(r, "PARTITIONING_TYPE"),
                subpartitioning_type: text(r, "SUBPARTITIONING_TYPE").filter(|s| s != "NONE"),
                interval: text(r, "INTERVAL"),
                ..Default::default()
            });
        }
    }
    let mut keys: Vec<&Row> = ev.rows_or_empty("part_key_columns").iter().collect();
    keys.sort_by_key(|r| num(r, "COLUMN_POSITION").unwrap_or(0));
    for r in keys {
        if let Some(p) = tables
            .get_mut(&table_key(r, "OWNER", "NAME"))
            .and_then(|t| t.partitioning.as_mut())
        {
            p.key_columns.push(text_or(r, "COLUMN_NAME"));
        }
    }
    let mut parts: Vec<&Row> = ev.rows_or_empty("tab_partitions").iter().collect();
    parts.sort_by_key(|r| num(r, "PARTITION_POSITION").unwrap_or(0));
    for r in parts {
        if let Some(p) = tables
            .get_mut(&table_key(r, "TABLE_OWNER", "TABLE_NAME"))
            .and_then(|t| t.partitioning.as_mut())
        {
            p.partitions.push(PartitionFacts {
                name: text_or(r, "PARTITION_NAME"),
                position: num(r, "PARTITION_POSITION").unwrap_or(0) as u32,
                high_value: text_or(r, "HIGH_VALUE"),
                num_rows: num(r, "NUM_ROWS"),
                interval: yes(r, "INTERVAL"),
                subpartition_count: num(r, "SUBPARTITION_COUNT").unwrap_or(0) as u32,
                ..Default::default()
            });
        }
    }
    for r in ev.rows_or_empty("segments") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "SEGMENT_NAME")) {
            let bytes = num(r, "BYTES").unwrap_or(0);
            t.segment_bytes = Some(t.segment_bytes.unwrap_or(0) + bytes);
            if let (Some(pn), Some(p)) = (text(r, "PARTITION_NAME"), t.partitioning.as_mut()) {
                if let Some(part) = p.partitions.iter_mut().find(|x| x.name == pn) {
                    part.bytes = Some(part.bytes.unwrap_or(0) + bytes);
                }
            }
        }
    }
    for r in ev.rows_or_empty("objects") {
        let Some(t) = tables.get_mut(&table_key(r, "OWNER", "OBJECT_NAME")) else {
            continue;
        };
        let kind = text_or(r, "OBJECT_TYPE");
        if kind == "TABLE" {
            t.object_id = num(r, "OBJECT_ID");
            t.data_object_id = num(r, "DATA_OBJECT_ID");
            t.last_ddl_time = time(r, "LAST_DDL_TIME");
        } else if kind == "TABLE PARTITION" {
            let sub = text_or(r, "SUBOBJECT_NAME");
            if let Some(part) = t
                .partitioning
                .as_mut()
                .and_then(|p| p.partitions.iter_mut().find(|x| x.name == sub))
            {
                part.object_id = num(r, "OBJECT_ID").unwrap_or(0);
                part.data_object_id = num(r, "DATA_OBJECT_ID");
                part.created = time(r, "CREATED");
                part.last_ddl_time = time(r, "LAST_DDL_TIME");
            }
        }
    }
    for r in ev.rows_or_empty("tab_privs") {
        if let Some(t) = tables.get_mut(&table_key(r, "TABLE_SCHEMA", "TABLE_NAME")) {
            let p = text_or(r, "PRIVILEGE");
            if !t.granted.contains(&p) {
                t.granted.push(p);
            }
        }
    }
    for r in ev.rows_or_empty("flashback_probe") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.flashback_probe_error = num(r, "ORA_CODE").filter(|c| *c != 0).map(|c| c as u32);
        }
    }
    Ok(tables.into_values().collect())
}

fn transactions_from(ev: &EvidenceFile) -> Result<Vec<SessionTransaction>, String> {
    let mut v: Vec<SessionTransaction> = ev
        .rows("transactions")?
        .iter()
        .map(|r| {
            let transaction = OpenTransaction {
                xid: text_or(r, "XID"),
                start_scn: num(r, "START_SCN").unwrap_or(0),
                start_time: time(r, "START_DATE"),
                used_urec: num(r, "USED_UREC").unwrap_or(0),
                username: text(r, "USERNAME"),
                con_name: text(r, "CON_NAME"),
            };
            // The outer join to V$SESSION found no row: no SID.
            let session = num(r, "SID").map(|sid| TransactionSession {
                sid: Some(sid),
                serial: num(r, "SERIAL#"),
                username: transaction.username.clone(),
                program: text(r, "PROGRAM"),
                machine: text(r, "MACHINE"),
                inst_id: num(r, "INST_ID").and_then(|i| u32::try_from(i).ok()),
            });
            SessionTransaction {
                transaction,
                session,
            }
        })
        .collect();
    v.sort_by_key(|t| t.transaction.start_scn);
    Ok(v)
}

fn archived_from(r: &Row) -> ArchivedLog {
    ArchivedLog {
        name: text(r, "NAME"),
        dest_id: num(r, "DEST_ID").unwrap_or(0) as u32,
        thread: num(r, "THREAD#").unwrap_or(1) as u16,
        sequence: num(r, "SEQUENCE#").unwrap_or(0),
        first_change: num(r, "FIRST_CHANGE#").unwrap_or(0),
        next_change: num(r, "NEXT_CHANGE#").unwrap_or(0),
        first_time: time(r, "FIRST_TIME"),
        next_time: time(r, "NEXT_TIME"),
        status: text(r, "STATUS").unwrap_or_else(|| "A".into()),
        deleted: yes(r, "DELETED"),
        archived: r.get("ARCHIVED").is_none() || yes(r, "ARCHIVED"),
        resetlogs_change: num(r, "RESETLOGS_CHANGE#").unwrap_or(0),
        bytes: num(r, "BYTES").unwrap_or(0),
    }
}

fn inventory_from(ev: &EvidenceFile) -> Result<LogInventory, String> {
    let mut inv = LogInventory::default();
    if ev.dialect == Dialect::Dm {
        inv.archived = ev
            .rows("dm_archived_logs")?
            .iter()
            .map(archived_from)
            .collect();
        return Ok(inv);
    }
    inv.resetlogs_change = ev
        .rows_or_empty("database")
        .first()
        .and_then(|r| num(r, "RESETLOGS_CHANGE#"))
        .unwrap_or(0);
    inv.online = ev
        .rows("online_logs")?
        .iter()
        .map(|r| OnlineLog {
            group: num(r, "GROUP#").unwrap_or(0) as u32,
            thread: num(r, "THREAD#").unwrap_or(1) as u16,
            sequence: num(r, "SEQUENCE#").unwrap_or(0),
            bytes: num(r, "BYTES").unwrap_or(0),
            members: num(r, "MEMBERS").unwrap_or(1) as u32,
            status: text_or(r, "STATUS"),
            archived: yes(r, "ARCHIVED"),
            first_change: num(r, "FIRST_CHANGE#").unwrap_or(0),
            next_change: num(r, "NEXT_CHANGE#"),
            first_time: time(r, "FIRST_TIME"),
            member_files: text(r, "MEMBER").into_iter().collect(),
        })
        .collect();
    inv.archived = ev
        .rows_or_empty("archived_logs")
        .iter()
        .map(archived_from)
        .collect();
    inv.destinations = ev
        .rows_or_empty("archive_dests")
        .iter()
        .map(|r| ArchiveDestStatus {
            dest_id: num(r, "DEST_ID").unwrap_or(0) as u32,
            dest_name: text_or(r, "DEST_NAME"),
            status: text_or(r, "STATUS"),
            dest_type: text_or(r, "TYPE"),
            destination: text(r, "DESTINATION"),
        })
        .collect();
    inv.threads = ev
        .rows_or_empty("threads")
        .iter()
        .map(|r| RedoThread {
            thread: num(r, "THREAD#").unwrap_or(1) as u16,
            status: text_or(r, "STATUS"),
            enabled: text_or(r, "ENABLED"),
            current_sequence: num(r, "SEQUENCE#").unwrap_or(0),
            last_redo_scn: num(r, "LAST_REDO_CHANGE#").unwrap_or(0),
            enable_change: num(r, "ENABLE_CHANGE#").unwrap_or(0),
            disable_change: num(r, "DISABLE_CHANGE#").unwrap_or(0),
            checkpoint_change: num(r, "CHECKPOINT_CHANGE#").unwrap_or(0),
        })
        .collect();
    Ok(inv)
}

/// A `Catalog` over an evidence file: every fact is mapped once at load.
#[derive(Debug, Clone)]
pub struct EvidenceCatalog {
    pub origin: String,
    instance: Result<InstanceFacts, String>,
    session: Result<SessionFacts, String>,
    tables: Result<Vec<TableFacts>, String>,
    transactions: Result<Vec<SessionTransaction>, String>,
    inventory: Result<LogInventory, String>,
}

impl EvidenceCatalog {
    /// Reads an evidence file from disk.
    pub fn open(path: &std::path::Path) -> Result<Self, SourceError> {
        let shown = path.display().to_string();
        let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES).map_err(|e| {
            SourceError::Invalid(format!("cannot read the evidence file {shown}: {e}"))
        })?;
        Ok(Self::from_file(
            &EvidenceFile::parse(&text, &shown)?,
            &shown,
        ))
    }

    pub fn from_file(ev: &EvidenceFile, origin: &str) -> Self {
        EvidenceCatalog {
            origin: origin.to_string(),
            instance: instance_from(ev),
            session: session_from(ev),
            tables: tables_from(ev),
            transactions: transactions_from(ev),
            inventory: inventory_from(ev),
        }
    }
}

fn missing(what: &str, e: &str) -> SourceError {
    SourceError::NotFound(format!("the evidence has no {what} facts: {e}"))
}

impl Catalog for EvidenceCatalog {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.instance.clone().map_err(|e| missing("instance", &e))
    }
    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.session.clone().map_err(|e| missing("session", &e))
    }
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let all = self.tables.clone().map_err(|e| missing("table", &e))?;
        Ok(all
            .into_iter()
            .filter(|t| patterns.is_empty() || patterns.iter().any(|p| p.matches(&t.name)))
            .collect())
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self
            .transaction_sessions()?
            .into_iter()
            .map(|t| t.transaction)
            .collect())
    }
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.transactions
            .clone()
            .map_err(|e| missing("transaction", &e))
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.inventory.clone().map_err(|e| missing("log", &e))
    }
}

// ---- facts → rows (collect --from-source)

fn yn(b: bool) -> Value {
    Value::from(if b { "YES" } else { "NO" })
}

fn ts(t: Option<NaiveDateTime>) -> Value {
    t.map(|t| Value::from(t.format("%Y-%m-%dT%H:%M:%S").to_string()))
        .unwrap_or(Value::Null)
}

fn opt<T: Into<Value>>(v: Option<T>) -> Value {
    v.map(Into::into).unwrap_or(Value::Null)
}

macro_rules! row {
    ($($k:literal => $v:expr),* $(,)?) => {{
        let mut r = Row::new();
        $( r.insert($k.to_string(), Value::from($v)); )*
        r
    }};
}

/// Renders facts as the rows the collect script would have spooled.
/// Facts that could not be read become `{"error": ...}` entries.
pub fn rows_from_facts(
    instance: Result<&InstanceFacts, String>,
    session: Result<&SessionFacts, String>,
    tables: Result<&[TableFacts], String>,
    transactions: Result<&[SessionTransaction], String>,
    inventory: Result<&LogInventory, String>,
    source: &str,
) -> EvidenceFile {
    let mut q: BTreeMap<String, QueryRows> = BTreeMap::new();
    let mut put = |name: &str, rows: Vec<Row>| {
        q.insert(name.to_string(), QueryRows::Rows(rows));
    };
    let dialect = instance.as_ref().map(|i| i.dialect).unwrap_or_default();
    let mut errors: Vec<(&str, String)> = Vec::new();
    match &instance {
        Ok(i) => {
            put(
                "instance",
                vec![
                    row! {"VERSION" => i.version.clone(), "INSTANCE_NAME" => i.instance_name.clone()},
                ],
            );
            put("version_banner", vec![row! {"BANNER" => i.banner.clone()}]);
            put(
                "parameters",
                i.parameters
                    .iter()
                    .map(|(k, v)| row! {"NAME" => k.clone(), "VALUE" => v.clone()})
                    .collect(),
            );
            put(
                "pdbs",
                i.pdbs
                    .iter()
                    .map(|p| row! {"CON_ID" => p.con_id, "NAME" => p.name.clone(), "OPEN_MODE" => p.open_mode.clone(),
                        "RESTRICTED" => yn(p.restricted), "APPLICATION_ROOT" => yn(p.application_root), "APPLICATION_PDB" => yn(p.application_pdb)})
                    .collect(),
            );
            put(
                "services",
                i.services
                    .iter()
                    .map(|s| row! {"NAME" => s.name.clone(), "NETWORK_NAME" => opt(s.network_name.clone()), "PDB" => opt(s.pdb.clone())})
                    .collect(),
            );
            put(
                "recovery_area",
                i.recovery_area
                    .iter()
                    .map(|r| row! {"NAME" => r.name.clone(), "SPACE_LIMIT" => r.space_limit, "SPACE_USED" => r.space_used,
                        "SPACE_RECLAIMABLE" => r.space_reclaimable, "NUMBER_OF_FILES" => r.number_of_files})
                    .collect(),
            );
            put(
                "recovery_area_usage",
                i.recovery_area
                    .iter()
                    .filter_map(|r| r.archived_log_reclaimable_pct)
                    .map(|p| row! {"FILE_TYPE" => "ARCHIVED LOG", "PERCENT_SPACE_USED" => Value::Null, "PERCENT_SPACE_RECLAIMABLE" => p})
                    .collect(),
            );
            put(
                "archive_dest_failed",
                i.failed_archive_dests
                    .iter()
                    .map(|d| row! {"DEST_NAME" => d.clone(), "STATUS" => "ERROR"})
                    .collect(),
            );
            put(
                "undo_stat",
                vec![
                    row! {"TUNED_UNDORETENTION" => opt(i.undo.tuned_undoretention_s), "SSOLDERRCNT" => i.undo.snapshot_too_old_errors,
                    "NOSPACEERRCNT" => i.undo.no_space_errors},
                ],
            );
            put(
                "undo_tablespaces",
                vec![row! {"TABLESPACE_NAME" => opt(i.undo.tablespace.clone()),
                "RETENTION" => if i.undo.retention_guarantee { "GUARANTEE" } else { "NOGUARANTEE" },
                "AUTOEXTENSIBLE" => yn(i.undo.autoextensible)}],
            );
            put(
                "wallet",
                i.wallet_status
                    .iter()
                    .map(|s| row! {"STATUS" => s.clone()})
                    .collect(),
            );
            put(
                "encrypted_tablespaces",
                i.encrypted_tablespaces
                    .iter()
                    .map(|t| row! {"TABLESPACE_NAME" => t.clone()})
                    .collect(),
            );
            match &i.switch_history {
                Some(h) => put(
                    "log_switches",
                    vec![
                        row! {"PEAK_PER_HOUR" => h.peak_per_hour, "HOURS_OBSERVED" => h.hours_observed},
                    ],
                ),
                None => errors.push(("log_switches", "not read".into())),
            }
            match dialect {
                Dialect::Oracle => {
                    let resetlogs = inventory.as_ref().map(|v| v.resetlogs_change).unwrap_or(0);
                    put(
                        "database",
                        vec![
                            row! {"NAME" => i.db_name.clone(), "LOG_MODE" => i.log_mode.clone(),
                            "SUPPLEMENTAL_LOG_DATA_MIN" => i.supplemental_log_data_min.clone(),
                            "SUPPLEMENTAL_LOG_DATA_PK" => yn(i.supplemental_log_data_pk),
                            "SUPPLEMENTAL_LOG_DATA_UI" => yn(i.supplemental_log_data_ui),
                            "SUPPLEMENTAL_LOG_DATA_ALL" => yn(i.supplemental_log_data_all),
                            "FORCE_LOGGING" => yn(i.force_logging), "DATABASE_ROLE" => i.database_role.clone(),
                            "OPEN_MODE" => i.open_mode.clone(), "CDB" => yn(i.cdb), "CURRENT_SCN" => i.current_scn,
                            "RESETLOGS_CHANGE#" => resetlogs, "NOW" => ts(i.now)},
                        ],
                    );
                }
                Dialect::Dm => {
                    put(
                        "dm_database",
                        vec![
                            row! {"ARCH_MODE" => if i.log_mode == "ARCHIVELOG" { "Y" } else { "N" }},
                        ],
                    );
                    if let Some(d) = &i.dm {
                        let mut ini = Vec::new();
                        if let Some(v) = &d.arch_ini {
                            ini.push(row! {"PARA_NAME" => "ARCH_INI", "PARA_VALUE" => v.clone()});
                        }
                        if let Some(v) = &d.rlog_append_logic {
                            ini.push(row! {"PARA_NAME" => "RLOG_APPEND_LOGIC", "PARA_VALUE" => v.clone()});
                        }
                        if let Some(m) = d.mpp {
                            ini.push(row! {"PARA_NAME" => "MPP_INI", "PARA_VALUE" => if m { "1" } else { "0" }});
                        }
                        put("dm_ini", ini);
                        if let Some(p) = d.logmnr_package_installed {
                            put("dm_pkg", vec![row! {"INSTALLED" => if p { 1 } else { 0 }}]);
                        }
                        put(
                            "dm_arch_ini",
                            d.arch_destinations
                                .iter()
                                .map(|a| row! {"ARCH_NAME" => a.arch_name.clone(), "ARCH_TYPE" => a.arch_type.clone(),
                                    "ARCH_DEST" => a.arch_dest.clone(), "ARCH_SPACE_LIMIT" => a.arch_space_limit,
                                    "ARCH_IS_VALID" => if a.arch_is_valid { "Y" } else { "N" }})
                                .collect(),
                        );
                    }
                }
                Dialect::Yashandb => {
                    put(
                        "ys_database",
                        vec![
                            row! {"LOG_MODE" => i.log_mode.clone(), "SUPPLEMENTAL_LOG_DATA_ALL" => yn(i.supplemental_log_data_all)},
                        ],
                    );
                    if let Some(y) = &i.yashan {
                        put(
                            "ys_parameters",
                            y.stream_pool_size
                                .iter()
                                .map(|v| row! {"NAME" => "STREAM_POOL_SIZE", "VALUE" => v.clone()})
                                .collect(),
                        );
                        put(
                            "ys_servers",
                            y.servers
                                .iter()
                                .map(|s| row! {"SERVER_NAME" => s.server_name.clone(), "STATUS" => s.status.clone(),
                                    "CONNECT_USER" => opt(s.connect_user.clone()), "START_SCN" => opt(s.start_scn), "ERROR" => opt(s.error.clone())})
                                .collect(),
                        );
                    }
                }
            }
        }
        Err(e) => errors.push(("database", e.clone())),
    }
    match &session {
        Ok(s) => {
            put(
                "session",
                vec![
                    row! {"USERNAME" => s.user.clone(), "CON_NAME" => s.con_name.clone(), "SERVICE_NAME" => opt(s.service_name.clone())},
                ],
            );
            put(
                "session_privs",
                s.privileges
                    .iter()
                    .map(|p| row! {"PRIVILEGE" => p.clone()})
                    .collect(),
            );
            put(
                "session_roles",
                s.roles.iter().map(|r| row! {"ROLE" => r.clone()}).collect(),
            );
            put(
                "container_data",
                s.container_data
                    .iter()
                    .map(|c| {
                        if c == "ALL" {
                            row! {"USERNAME" => s.user.clone(), "ALL_CONTAINERS" => "Y", "CONTAINER_NAME" => Value::Null}
                        } else {
                            row! {"USERNAME" => s.user.clone(), "ALL_CONTAINERS" => "N", "CONTAINER_NAME" => c.clone()}
                        }
                    })
                    .collect(),
            );
            let p = s.profile.clone().unwrap_or_default();
            if s.profile.is_some() || s.default_tablespace.is_some() || s.common_user {
                put(
                    "user_account",
                    vec![
                        row! {"USERNAME" => s.user.clone(), "COMMON" => yn(s.common_user),
                        "DEFAULT_TABLESPACE" => opt(s.default_tablespace.clone()), "PROFILE" => p.profile.clone(),
                        "ACCOUNT_STATUS" => opt(p.account_status.clone()), "EXPIRY_DATE" => ts(p.expiry_date)},
                    ],
                );
            }
            let mut limits = Vec::new();
            for (k, v) in [
                ("IDLE_TIME", &p.idle_time),
                ("CONNECT_TIME", &p.connect_time),
                ("PASSWORD_LIFE_TIME", &p.password_life_time),
            ] {
                if let Some(v) = v {
                    limits.push(row! {"RESOURCE_NAME" => k, "LIMIT" => v.clone()});
                }
            }
            put("user_profile", limits);
            match s.has_quota {
                Some(true) => put(
                    "user_quotas",
                    vec![
                        row! {"TABLESPACE_NAME" => s.default_tablespace.clone().unwrap_or_default(), "MAX_BYTES" => -1},
                    ],
                ),
                Some(false) => put("user_quotas", Vec::new()),
                None => {}
            }
            let mut access: BTreeMap<String, u32> = REQUIRED_OBJECTS
                .iter()
                .map(|o| (o.to_string(), 0))
                .collect();
            access.extend(s.inaccessible_objects.iter().map(|(k, v)| (k.clone(), *v)));
            put(
                "object_access",
                access
                    .into_iter()
                    .map(|(o, c)| row! {"OBJECT_NAME" => o, "ORA_CODE" => c})
                    .collect(),
            );
        }
        Err(e) => errors.push(("session", e.clone())),
    }
    match &tables {
        Ok(tables) => {
            let enc_ts = instance
                .as_ref()
                .ok()
                .and_then(|i| i.encrypted_tablespaces.first().cloned())
                .unwrap_or_else(|| "ENCRYPTED".into());
            let (mut t_rows, mut c_rows, mut k_rows, mut i_rows, mut u_rows, mut g_rows) = (
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            );
            let (
                mut s_rows,
                mut o_rows,
                mut pt_rows,
                mut pk_rows,
                mut p_rows,
                mut priv_rows,
                mut f_rows,
            ) = (
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            );
            for t in *tables {
                let (o, n) = (t.name.owner.clone(), t.name.table.clone());
                t_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(),
                    "TABLESPACE_NAME" => if t.encrypted { enc_ts.clone() } else { "USERS".to_string() },
                    "LOGGING" => yn(t.logging), "TEMPORARY" => if t.temporary { "Y" } else { "N" },
                    "IOT_TYPE" => opt(t.iot_type.clone()), "NESTED" => yn(t.nested), "COMPRESS_FOR" => opt(t.compress_for.clone()),
                    "NUM_ROWS" => opt(t.num_rows), "PARTITIONED" => yn(t.partitioning.is_some())});
                for c in &t.columns {
                    c_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "COLUMN_NAME" => c.name.clone(),
                        "DATA_TYPE" => c.data_type.clone(), "DATA_TYPE_OWNER" => opt(c.data_type_owner.clone()),
                        "NULLABLE" => if c.nullable { "Y" } else { "N" }, "DATA_LENGTH" => opt(c.data_length),
                        "DATA_PRECISION" => opt(c.data_precision), "DATA_SCALE" => opt(c.data_scale),
                        "HIDDEN_COLUMN" => yn(c.hidden), "VIRTUAL_COLUMN" => yn(c.virtual_column)});
                }
                for k in &t.constraints {
                    for (pos, col) in k.columns.iter().enumerate() {
                        k_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "CONSTRAINT_NAME" => k.name.clone(),
                            "CONSTRAINT_TYPE" => k.constraint_type.clone(), "STATUS" => if k.enabled { "ENABLED" } else { "DISABLED" },
                            "COLUMN_NAME" => col.clone(), "POSITION" => pos + 1});
                    }
                }
                for i in &t.indexes {
                    for (pos, col) in i.columns.iter().enumerate() {
                        i_rows.push(row! {"TABLE_OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "INDEX_NAME" => i.name.clone(),
                            "UNIQUENESS" => if i.unique { "UNIQUE" } else { "NONUNIQUE" }, "PARTITIONED" => yn(i.local),
                            "STATUS" => i.status.clone(), "COLUMN_NAME" => col.clone(), "COLUMN_POSITION" => pos + 1});
                    }
                    for p in &i.unusable_partitions {
                        u_rows.push(row! {"INDEX_OWNER" => o.clone(), "INDEX_NAME" => i.name.clone(), "PARTITION_NAME" => p.clone()});
                    }
                }
                for g in &t.log_groups {
                    g_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "LOG_GROUP_NAME" => g.name.clone(),
                        "LOG_GROUP_TYPE" => g.log_group_type.clone(), "ALWAYS" => if g.always { "ALWAYS" } else { "CONDITIONAL" }});
                }
                let part_bytes: u64 = t
                    .partitioning
                    .iter()
                    .flat_map(|p| p.partitions.iter())
                    .filter_map(|p| p.bytes)
                    .sum();
                if let Some(total) = t.segment_bytes {
                    // The table-level remainder keeps the sum equal to SEGMENT_BYTES.
                    if total > part_bytes || part_bytes == 0 {
                        s_rows.push(row! {"OWNER" => o.clone(), "SEGMENT_NAME" => n.clone(), "PARTITION_NAME" => Value::Null,
                            "BYTES" => total.saturating_sub(part_bytes)});
                    }
                }
                o_rows.push(row! {"OWNER" => o.clone(), "OBJECT_NAME" => n.clone(), "SUBOBJECT_NAME" => Value::Null,
                    "OBJECT_TYPE" => "TABLE", "OBJECT_ID" => opt(t.object_id), "DATA_OBJECT_ID" => opt(t.data_object_id),
                    "CREATED" => Value::Null, "LAST_DDL_TIME" => ts(t.last_ddl_time)});
                if let Some(p) = &t.partitioning {
                    pt_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "PARTITIONING_TYPE" => p.partitioning_type.clone(),
                        "SUBPARTITIONING_TYPE" => p.subpartitioning_type.clone().unwrap_or_else(|| "NONE".into()),
                        "INTERVAL" => opt(p.interval.clone())});
                    for (pos, k) in p.key_columns.iter().enumerate() {
                        pk_rows.push(row! {"OWNER" => o.clone(), "NAME" => n.clone(), "COLUMN_NAME" => k.clone(), "COLUMN_POSITION" => pos + 1});
                    }
                    for part in &p.partitions {
                        p_rows.push(row! {"TABLE_OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "PARTITION_NAME" => part.name.clone(),
                            "PARTITION_POSITION" => part.position, "HIGH_VALUE" => part.high_value.clone(), "NUM_ROWS" => opt(part.num_rows),
                            "INTERVAL" => yn(part.interval), "SUBPARTITION_COUNT" => part.subpartition_count});
                        if let Some(b) = part.bytes {
                            s_rows.push(row! {"OWNER" => o.clone(), "SEGMENT_NAME" => n.clone(), "PARTITION_NAME" => part.name.clone(), "BYTES" => b});
                        }
                        o_rows.push(row! {"OWNER" => o.clone(), "OBJECT_NAME" => n.clone(), "SUBOBJECT_NAME" => part.name.clone(),
                            "OBJECT_TYPE" => "TABLE PARTITION", "OBJECT_ID" => part.object_id, "DATA_OBJECT_ID" => opt(part.data_object_id),
                            "CREATED" => ts(part.created), "LAST_DDL_TIME" => ts(part.last_ddl_time)});
                    }
                }
                for g in &t.granted {
                    priv_rows.push(row! {"TABLE_SCHEMA" => o.clone(), "TABLE_NAME" => n.clone(), "PRIVILEGE" => g.clone()});
                }
                f_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "ORA_CODE" => t.flashback_probe_error.unwrap_or(0)});
            }
            for (name, rows) in [
                ("tables", t_rows),
                ("columns", c_rows),
                ("constraints", k_rows),
                ("indexes", i_rows),
                ("unusable_index_partitions", u_rows),
                ("log_groups", g_rows),
                ("segments", s_rows),
                ("objects", o_rows),
                ("part_tables", pt_rows),
                ("part_key_columns", pk_rows),
                ("tab_partitions", p_rows),
                ("tab_privs", priv_rows),
                ("flashback_probe", f_rows),
            ] {
                put(name, rows);
            }
        }
        Err(e) => errors.push(("tables", e.clone())),
    }
    match &transactions {
        Ok(txns) => put(
            "transactions",
            txns.iter()
                .map(|st| {
                    let t = &st.transaction;
                    let s = st.session.as_ref();
                    row! {"XID" => t.xid.clone(), "START_SCN" => t.start_scn, "START_DATE" => ts(t.start_time),
                        "USED_UREC" => t.used_urec, "USERNAME" => opt(t.username.clone()), "CON_NAME" => opt(t.con_name.clone()),
                        "PROGRAM" => opt(s.and_then(|s| s.program.clone())), "MACHINE" => opt(s.and_then(|s| s.machine.clone())),
                        "SID" => opt(s.and_then(|s| s.sid)), "SERIAL#" => opt(s.and_then(|s| s.serial)),
                        "INST_ID" => opt(s.and_then(|s| s.inst_id))}
                })
                .collect(),
        ),
        Err(e) => errors.push(("transactions", e.clone())),
    }
    match &inventory {
        Ok(inv) => {
            let arch: Vec<Row> = inv
                .archived
                .iter()
                .map(|a| row! {"NAME" => opt(a.name.clone()), "DEST_ID" => a.dest_id, "THREAD#" => a.thread, "SEQUENCE#" => a.sequence,
                    "FIRST_CHANGE#" => a.first_change, "NEXT_CHANGE#" => a.next_change, "FIRST_TIME" => ts(a.first_time),
                    "NEXT_TIME" => ts(a.next_time), "STATUS" => a.status.clone(), "DELETED" => yn(a.deleted),
                    "ARCHIVED" => yn(a.archived), "RESETLOGS_CHANGE#" => a.resetlogs_change, "BYTES" => a.bytes})
                .collect();
            if dialect == Dialect::Dm {
                put("dm_archived_logs", arch);
            } else {
                put("archived_logs", arch);
                put(
                    "online_logs",
                    inv.online
                        .iter()
                        .map(|l| row! {"GROUP#" => l.group, "THREAD#" => l.thread, "SEQUENCE#" => l.sequence, "BYTES" => l.bytes,
                            "MEMBERS" => l.members, "STATUS" => l.status.clone(), "ARCHIVED" => yn(l.archived),
                            "FIRST_CHANGE#" => l.first_change, "NEXT_CHANGE#" => opt(l.next_change), "FIRST_TIME" => ts(l.first_time),
                            "MEMBER" => opt(l.member_files.first().cloned())})
                        .collect(),
                );
                put(
                    "archive_dests",
                    inv.destinations
                        .iter()
                        .map(|d| row! {"DEST_ID" => d.dest_id, "DEST_NAME" => d.dest_name.clone(), "STATUS" => d.status.clone(),
                            "TYPE" => d.dest_type.clone(), "DESTINATION" => opt(d.destination.clone())})
                        .collect(),
                );
                put(
                    "threads",
                    inv.threads
                        .iter()
                        .map(|t| row! {"THREAD#" => t.thread, "STATUS" => t.status.clone(), "ENABLED" => t.enabled.clone(),
                            "SEQUENCE#" => t.current_sequence, "LAST_REDO_CHANGE#" => t.last_redo_scn})
                        .collect(),
                );
            }
        }
        Err(e) => errors.push(("online_logs", e.clone())),
    }
    for (name, e) in errors {
        q.insert(name.to_string(), QueryRows::Error { error: e });
    }
    EvidenceFile {
        format: FORMAT.to_string(),
        version: VERSION,
        collected_at: instance
            .as_ref()
            .ok()
            .and_then(|i| i.now)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%S").to_string()),
        dialect,
        source: Some(source.to_string()),
        queries: q,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_another_tool_is_refused_with_a_clear_message() {
        let e = EvidenceFile::parse(r#"{"format":"other","version":1,"queries":{}}"#, "x.json")
            .unwrap_err();
        assert!(e.to_string().contains("not a cdcctl evidence file"), "{e}");
        let e = EvidenceFile::parse("SQL> select", "x.json").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
    }

    #[test]
    fn refused_queries_leave_facts_missing_not_guessed() {
        let ev = EvidenceFile::parse(
            r#"{"format":"cdcctl-evidence","version":1,"queries":{"database":{"error":"ORA-00942"}}}"#,
            "x",
        )
        .unwrap();
        let mut c = EvidenceCatalog::from_file(&ev, "x");
        let e = c.instance().unwrap_err();
        assert!(e.to_string().contains("ORA-00942"), "{e}");
    }

    #[test]
    fn numbers_may_arrive_as_strings_and_dates_in_either_form() {
        let r: Row = serde_json::from_str(
            r#"{"A":"42","B":42.0,"T":"2026-01-31 10:00:00","U":"2026-01-31T10:00:00"}"#,
        )
        .unwrap();
        assert_eq!(num(&r, "A"), Some(42));
        assert_eq!(num(&r, "B"), Some(42));
        assert_eq!(time(&r, "T"), time(&r, "U"));
        assert!(time(&r, "T").is_some());
    }

    /// What disql prints for the DM8 script: one JSON line per row, and
    /// the client's error text where the database refused a query.
    const DISQL_SPOOL: &str = r#"{"format":"cdcctl-evidence","version":1,"dialect":"dm",
"collected_at":"2026-01-31 12:00:00",
"queries":{
"dm_arch_ini":[
 {"ARCH_NAME":"ARCHIVE_LOCAL1","ARCH_TYPE":"LOCAL","ARCH_DEST":"/dm\\arch \"x\"","ARCH_SPACE_LIMIT":"0","ARCH_IS_VALID":"Y"}
]
,"dm_database":[
 {"ARCH_MODE":"Y"}
]
,"dm_ini":[
 {"PARA_NAME":"ARCH_INI","PARA_VALUE":"1"}
,{"PARA_NAME":"RLOG_APPEND_LOGIC","PARA_VALUE":"1"}
,{"PARA_NAME":"MPP_INI","PARA_VALUE":null}
]
,"dm_archived_logs":[
]
,"dm_pkg":[
[-2207]:Error in line: 1
No function [SF_CHECK_SYSTEM_PACKAGE]

]
}}
"#;

    #[test]
    fn a_disql_spool_with_a_refused_query_reads_with_that_query_as_an_error() {
        let ev = EvidenceFile::parse(DISQL_SPOOL, "dm.json").unwrap();
        assert_eq!(ev.dialect, Dialect::Dm);
        match ev.queries.get("dm_pkg") {
            Some(QueryRows::Error { error }) => {
                assert!(
                    error.starts_with("[-2207]:Error in line: 1 No function"),
                    "{error}"
                )
            }
            other => panic!("{other:?}"),
        }
        let mut c = EvidenceCatalog::from_file(&ev, "dm.json");
        let i = c.instance().unwrap();
        assert_eq!(i.log_mode, "ARCHIVELOG");
        let dm = i.dm.unwrap();
        assert_eq!(dm.rlog_append_logic.as_deref(), Some("1"));
        assert_eq!(
            dm.logmnr_package_installed, None,
            "refused: unknown, not false"
        );
        assert_eq!(dm.arch_destinations[0].arch_dest, "/dm\\arch \"x\"");
        assert_eq!(dm.arch_destinations[0].arch_space_limit, 0);
        assert!(c.log_inventory().unwrap().archived.is_empty());
    }

    #[test]
    fn a_refused_dm8_probe_is_a_missing_grant_on_its_view() {
        let text = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"session\":[\n {\"USERNAME\":\"DM_CDC\"}\n]\n,\"dm_probe_arch_file\":[\n[-2106]:Error in line: 1 Invalid table or view name [V$ARCH_FILE].\n]\n,\"dm_probe_rlog\":[\n {\"N\":\"0\"}\n]\n}}\n";
        let ev = EvidenceFile::parse(text, "dm.json").unwrap();
        let mut c = EvidenceCatalog::from_file(&ev, "dm.json");
        let s = c.session().unwrap();
        assert_eq!(s.user, "DM_CDC");
        assert_eq!(s.inaccessible_objects.get("V$ARCH_FILE"), Some(&2106));
        assert!(!s.inaccessible_objects.contains_key("V$RLOG"));
    }

    #[test]
    fn client_chatter_in_a_spool_is_not_taken_for_an_error() {
        let text = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"dm_arch_ini\":[\n未选定行\n\n已用时间: 0.412(毫秒). 执行号:1203.\n]\n,\"dm_ini\":[\n {\"PARA_NAME\":\"ARCH_INI\",\"PARA_VALUE\":\"1\"}\n行数 1\n1 row fetched.\n]\n}}\n";
        let ev = EvidenceFile::parse(text, "dm.json").unwrap();
        assert_eq!(
            ev.queries.get("dm_arch_ini"),
            Some(&QueryRows::Rows(Vec::new()))
        );
        match ev.queries.get("dm_ini") {
            Some(QueryRows::Rows(r)) => assert_eq!(r.len(), 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refused_yashandb_views_are_missing_grants() {
        let text = r#"{"format":"cdcctl-evidence","version":1,"dialect":"yashandb",
"queries":{
"session":[
 {"USERNAME":"CDC"}
]
,"ys_transactions":[
[1:22]YAS-02012 table or view does not exist
]
,"ys_servers":[
 {"SERVER_NAME":"S1","STATUS":"STARTED","CONNECT_USER":"CDC","START_SCN":"100","ERROR":null}
]
}}"#;
        let ev = EvidenceFile::parse(text, "ys.json").unwrap();
        let mut c = EvidenceCatalog::from_file(&ev, "ys.json");
        let s = c.session().unwrap();
        assert_eq!(s.user, "CDC");
        assert_eq!(
            s.inaccessible_objects.get("V$TRANSACTION"),
            Some(&2012),
            "{:?}",
            s.inaccessible_objects
        );
        assert!(!s.inaccessible_objects.contains_key("V$YSTREAM_SERVER"));
        assert_eq!(error_code("no number"), 1);
        assert_eq!(error_code("[-2106]: invalid table"), 2106);
    }

    #[test]
    fn a_spool_cut_short_or_of_another_tool_is_not_repaired_into_evidence() {
        assert!(repair_lines("SQL> select 1\n1\n").is_none());
        let oracle = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"oracle\",\n\"queries\":{\n\"database\":[\nERROR at line 1:\n]\n}}";
        assert!(
            repair_lines(oracle).is_none(),
            "the Oracle script's file is JSON or nothing"
        );
        let cut = "{\"format\":\"cdcctl-evidence\",\"version\":1,\"dialect\":\"dm\",\n\"queries\":{\n\"dm_ini\":[\n {\"PARA_NAME\":\"ARCH_INI\"";
        let v = repair_lines(cut).unwrap();
        assert!(v["queries"]["dm_ini"]["error"]
            .as_str()
            .unwrap()
            .contains("ends inside"));
    }

    #[test]
    fn facts_survive_a_trip_through_rows() {
        let inst = InstanceFacts {
            version: "19.22.0.0.0".into(),
            log_mode: "ARCHIVELOG".into(),
            supplemental_log_data_min: "YES".into(),
            cdb: true,
            ..Default::default()
        };
        let table = TableFacts {
            name: TableName {
                owner: "APP".into(),
                table: "ORDERS".into(),
            },
            columns: vec![ColumnFacts {
                name: "ID".into(),
                data_type: "NUMBER".into(),
                ..Default::default()
            }],
            constraints: vec![KeyConstraint {
                name: "PK".into(),
                constraint_type: "P".into(),
                columns: vec!["ID".into(), "X".into()],
                enabled: true,
            }],
            segment_bytes: Some(1000),
            granted: vec!["SELECT".into()],
            ..Default::default()
        };
        let ev = rows_from_facts(
            Ok(&inst),
            Err("no session".into()),
            Ok(std::slice::from_ref(&table)),
            Ok(&[]),
            Ok(&LogInventory::default()),
            "test",
        );
        let text = serde_json::to_string(&ev).unwrap();
        let mut back = EvidenceCatalog::from_file(&EvidenceFile::parse(&text, "t").unwrap(), "t");
        let i = back.instance().unwrap();
        assert_eq!(
            (i.version.as_str(), i.cdb, i.log_mode.as_str()),
            ("19.22.0.0.0", true, "ARCHIVELOG")
        );
        assert_eq!(back.tables(&[]).unwrap(), vec![table]);
        assert!(back.session().is_err());
    }
}

/// The catalog facts themselves as one JSON document (the structs' serde
/// form): hand-written fixtures and `collect --facts` use it. Missing parts
/// read as "could not be read".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FactsSnapshot {
    pub instance: Option<InstanceFacts>,
    pub session: Option<SessionFacts>,
    pub tables: Option<Vec<TableFacts>>,
    pub transactions: Option<Vec<SnapshotTransaction>>,
    pub inventory: Option<LogInventory>,
}

/// A transaction of a facts file: the `V$TRANSACTION` fields, and the
/// session holding it under `session` when it was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotTransaction {
    #[serde(flatten)]
    pub transaction: OpenTransaction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<TransactionSession>,
}

impl FactsSnapshot {
    pub fn open(path: &std::path::Path) -> Result<Self, SourceError> {
        let shown = path.display().to_string();
        let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES).map_err(|e| {
            SourceError::Invalid(format!("cannot read the facts file {shown}: {e}"))
        })?;
        Self::parse(&text, &shown)
    }

    fn parse(text: &str, shown: &str) -> Result<Self, SourceError> {
        serde_json::from_str(text)
            .map_err(|e| SourceError::Invalid(format!("{shown} is not a cdcctl facts file: {e}")))
    }
}

/// Opens an offline facts file of either form: an evidence file (what
/// `cdcctl collect` and `collect --from-source` write, told apart by its
/// `format` key) or the facts structs' own JSON.
pub fn open_offline(path: &std::path::Path) -> Result<Box<dyn Catalog>, SourceError> {
    let shown = path.display().to_string();
    let text = crate::limits::read_text(path, crate::limits::EVIDENCE_BYTES)
        .map_err(|e| SourceError::Invalid(format!("cannot read the facts file {shown}: {e}")))?;
    let is_evidence = serde_json::from_str::<Value>(&text)
        .ok()
        .is_some_and(|v| v.get("format").and_then(Value::as_str) == Some(FORMAT));
    Ok(if is_evidence {
        Box::new(EvidenceCatalog::from_file(
            &EvidenceFile::parse(&text, &shown)?,
            &shown,
        ))
    } else {
        Box::new(FactsSnapshot::parse(&text, &shown)?)
    })
}

fn absent(what: &str) -> SourceError {
    SourceError::NotFound(format!("the facts file has no {what} section"))
}

impl Catalog for FactsSnapshot {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.instance.clone().ok_or_else(|| absent("instance"))
    }
    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.session.clone().ok_or_else(|| absent("session"))
    }
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let all = self.tables.clone().ok_or_else(|| absent("tables"))?;
        Ok(all
            .into_iter()
            .filter(|t| patterns.is_empty() || patterns.iter().any(|p| p.matches(&t.name)))
            .collect())
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self
            .transaction_sessions()?
            .into_iter()
            .map(|t| t.transaction)
            .collect())
    }
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        let all = self
            .transactions
            .clone()
            .ok_or_else(|| absent("transactions"))?;
        Ok(all
            .into_iter()
            .map(|t| SessionTransaction {
                transaction: t.transaction,
                session: t.session,
            })
            .collect())
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.inventory.clone().ok_or_else(|| absent("inventory"))
    }
}
