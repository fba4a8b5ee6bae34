//! Facts back to the rows the collect script would have spooled
//! (`collect --from-source`), so both directions share one mapping.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::source::{
    Dialect, InstanceFacts, LogInventory, SessionFacts, SessionTransaction, TableFacts,
};

use super::file::*;

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
    let mut s = Spool::default();
    let dialect = instance.as_ref().map(|i| i.dialect).unwrap_or_default();
    match &instance {
        Ok(i) => {
            let resetlogs = inventory.as_ref().map(|v| v.resetlogs_change).unwrap_or(0);
            spool_instance(&mut s, i, resetlogs);
        }
        Err(e) => s.error("database", e.clone()),
    }
    match &session {
        Ok(session) => spool_session(&mut s, session),
        Err(e) => s.error("session", e.clone()),
    }
    match &tables {
        Ok(tables) => {
            let enc_ts = instance
                .as_ref()
                .ok()
                .and_then(|i| i.encrypted_tablespaces.first().cloned())
                .unwrap_or_else(|| "ENCRYPTED".into());
            spool_tables(&mut s, tables, &enc_ts);
        }
        Err(e) => s.error("tables", e.clone()),
    }
    match &transactions {
        Ok(txns) => spool_transactions(&mut s, txns),
        Err(e) => s.error("transactions", e.clone()),
    }
    match &inventory {
        Ok(inv) => spool_inventory(&mut s, inv, dialect),
        Err(e) => s.error("online_logs", e.clone()),
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
        queries: s.into_queries(),
    }
}

/// The spooled queries so far, and those that failed.
#[derive(Default)]
struct Spool {
    queries: BTreeMap<String, QueryRows>,
    errors: Vec<(&'static str, String)>,
}

impl Spool {
    fn put(&mut self, name: &str, rows: Vec<Row>) {
        self.queries.insert(name.to_string(), QueryRows::Rows(rows));
    }

    fn error(&mut self, name: &'static str, error: String) {
        self.errors.push((name, error));
    }

    /// A failure stands in for whatever rows its query name got.
    fn into_queries(mut self) -> BTreeMap<String, QueryRows> {
        for (name, error) in self.errors {
            self.queries
                .insert(name.to_string(), QueryRows::Error { error });
        }
        self.queries
    }
}

/// The instance-wide queries, then the dialect's own.
fn spool_instance(s: &mut Spool, i: &InstanceFacts, resetlogs: u64) {
    s.put(
        "instance",
        vec![row! {"VERSION" => i.version.clone(), "INSTANCE_NAME" => i.instance_name.clone()}],
    );
    s.put("version_banner", vec![row! {"BANNER" => i.banner.clone()}]);
    s.put(
        "parameters",
        i.parameters
            .iter()
            .map(|(k, v)| row! {"NAME" => k.clone(), "VALUE" => v.clone()})
            .collect(),
    );
    s.put(
                "pdbs",
                i.pdbs
                    .iter()
                    .map(|p| row! {"CON_ID" => p.con_id, "NAME" => p.name.clone(), "OPEN_MODE" => p.open_mode.clone(),
                        "RESTRICTED" => yn(p.restricted), "APPLICATION_ROOT" => yn(p.application_root), "APPLICATION_PDB" => yn(p.application_pdb)})
                    .collect(),
            );
    s.put(
                "services",
                i.services
                    .iter()
                    .map(|s| row! {"NAME" => s.name.clone(), "NETWORK_NAME" => opt(s.network_name.clone()), "PDB" => opt(s.pdb.clone())})
                    .collect(),
            );
    s.put(
                "recovery_area",
                i.recovery_area
                    .iter()
                    .map(|r| row! {"NAME" => r.name.clone(), "SPACE_LIMIT" => r.space_limit, "SPACE_USED" => r.space_used,
                        "SPACE_RECLAIMABLE" => r.space_reclaimable, "NUMBER_OF_FILES" => r.number_of_files})
                    .collect(),
            );
    s.put(
                "recovery_area_usage",
                i.recovery_area
                    .iter()
                    .filter_map(|r| r.archived_log_reclaimable_pct)
                    .map(|p| row! {"FILE_TYPE" => "ARCHIVED LOG", "PERCENT_SPACE_USED" => Value::Null, "PERCENT_SPACE_RECLAIMABLE" => p})
                    .collect(),
            );
    s.put(
        "archive_dest_failed",
        i.failed_archive_dests
            .iter()
            .map(|d| row! {"DEST_NAME" => d.clone(), "STATUS" => "ERROR"})
            .collect(),
    );
    s.put(
                "undo_stat",
                vec![
                    row! {"TUNED_UNDORETENTION" => opt(i.undo.tuned_undoretention_s), "SSOLDERRCNT" => i.undo.snapshot_too_old_errors,
                    "NOSPACEERRCNT" => i.undo.no_space_errors},
                ],
            );
    s.put(
        "undo_tablespaces",
        vec![row! {"TABLESPACE_NAME" => opt(i.undo.tablespace.clone()),
        "RETENTION" => if i.undo.retention_guarantee { "GUARANTEE" } else { "NOGUARANTEE" },
        "AUTOEXTENSIBLE" => yn(i.undo.autoextensible)}],
    );
    s.put(
        "wallet",
        i.wallet_status
            .iter()
            .map(|s| row! {"STATUS" => s.clone()})
            .collect(),
    );
    s.put(
        "encrypted_tablespaces",
        i.encrypted_tablespaces
            .iter()
            .map(|t| row! {"TABLESPACE_NAME" => t.clone()})
            .collect(),
    );
    match &i.switch_history {
        Some(h) => s.put(
            "log_switches",
            vec![row! {"PEAK_PER_HOUR" => h.peak_per_hour, "HOURS_OBSERVED" => h.hours_observed}],
        ),
        None => s.error("log_switches", "not read".into()),
    }
    match i.dialect {
        Dialect::Oracle => spool_oracle_database(s, i, resetlogs),
        Dialect::Dm => spool_dm_instance(s, i),
        Dialect::Yashandb => spool_yashan_instance(s, i),
    }
}

fn spool_oracle_database(s: &mut Spool, i: &InstanceFacts, resetlogs: u64) {
    s.put(
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

fn spool_dm_instance(s: &mut Spool, i: &InstanceFacts) {
    s.put(
        "dm_database",
        vec![row! {"ARCH_MODE" => if i.log_mode == "ARCHIVELOG" { "Y" } else { "N" }}],
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
        s.put("dm_ini", ini);
        if let Some(p) = d.logmnr_package_installed {
            s.put("dm_pkg", vec![row! {"INSTALLED" => if p { 1 } else { 0 }}]);
        }
        s.put(
            "dm_arch_ini",
            d.arch_destinations
                .iter()
                .map(|a| {
                    row! {"ARCH_NAME" => a.arch_name.clone(), "ARCH_TYPE" => a.arch_type.clone(),
                    "ARCH_DEST" => a.arch_dest.clone(), "ARCH_SPACE_LIMIT" => a.arch_space_limit,
                    "ARCH_IS_VALID" => if a.arch_is_valid { "Y" } else { "N" }}
                })
                .collect(),
        );
    }
}

fn spool_yashan_instance(s: &mut Spool, i: &InstanceFacts) {
    s.put(
                        "ys_database",
                        vec![
                            row! {"LOG_MODE" => i.log_mode.clone(), "SUPPLEMENTAL_LOG_DATA_ALL" => yn(i.supplemental_log_data_all)},
                        ],
                    );
    if let Some(y) = &i.yashan {
        s.put(
            "ys_parameters",
            y.stream_pool_size
                .iter()
                .map(|v| row! {"NAME" => "STREAM_POOL_SIZE", "VALUE" => v.clone()})
                .collect(),
        );
        s.put(
                            "ys_servers",
                            y.servers
                                .iter()
                                .map(|s| row! {"SERVER_NAME" => s.server_name.clone(), "STATUS" => s.status.clone(),
                                    "CONNECT_USER" => opt(s.connect_user.clone()), "START_SCN" => opt(s.start_scn), "ERROR" => opt(s.error.clone())})
                                .collect(),
                        );
    }
}

/// The connected user: privileges, roles, profile, quotas and the views it can read.
fn spool_session(s: &mut Spool, session: &SessionFacts) {
    s.put(
                "session",
                vec![
                    row! {"USERNAME" => session.user.clone(), "CON_NAME" => session.con_name.clone(), "SERVICE_NAME" => opt(session.service_name.clone())},
                ],
            );
    s.put(
        "session_privs",
        session
            .privileges
            .iter()
            .map(|p| row! {"PRIVILEGE" => p.clone()})
            .collect(),
    );
    s.put(
        "session_roles",
        session
            .roles
            .iter()
            .map(|r| row! {"ROLE" => r.clone()})
            .collect(),
    );
    s.put(
                "container_data",
                session.container_data
                    .iter()
                    .map(|c| {
                        if c == "ALL" {
                            row! {"USERNAME" => session.user.clone(), "ALL_CONTAINERS" => "Y", "CONTAINER_NAME" => Value::Null}
                        } else {
                            row! {"USERNAME" => session.user.clone(), "ALL_CONTAINERS" => "N", "CONTAINER_NAME" => c.clone()}
                        }
                    })
                    .collect(),
            );
    let p = session.profile.clone().unwrap_or_default();
    if session.profile.is_some() || session.default_tablespace.is_some() || session.common_user {
        s.put(
                    "user_account",
                    vec![
                        row! {"USERNAME" => session.user.clone(), "COMMON" => yn(session.common_user),
                        "DEFAULT_TABLESPACE" => opt(session.default_tablespace.clone()), "PROFILE" => p.profile.clone(),
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
    s.put("user_profile", limits);
    match session.has_quota {
                Some(true) => s.put(
                    "user_quotas",
                    vec![
                        row! {"TABLESPACE_NAME" => session.default_tablespace.clone().unwrap_or_default(), "MAX_BYTES" => -1},
                    ],
                ),
                Some(false) => s.put("user_quotas", Vec::new()),
                None => {}
            }
    let mut access: BTreeMap<String, u32> = REQUIRED_OBJECTS
        .iter()
        .map(|o| (o.to_string(), 0))
        .collect();
    access.extend(
        session
            .inaccessible_objects
            .iter()
            .map(|(k, v)| (k.clone(), *v)),
    );
    s.put(
        "object_access",
        access
            .into_iter()
            .map(|(o, c)| row! {"OBJECT_NAME" => o, "ORA_CODE" => c})
            .collect(),
    );
}

/// The dictionary views' rows of the tables, query by query.
#[derive(Default)]
struct TableRows {
    t_rows: Vec<Row>,
    c_rows: Vec<Row>,
    k_rows: Vec<Row>,
    i_rows: Vec<Row>,
    u_rows: Vec<Row>,
    g_rows: Vec<Row>,
    s_rows: Vec<Row>,
    o_rows: Vec<Row>,
    pt_rows: Vec<Row>,
    pk_rows: Vec<Row>,
    p_rows: Vec<Row>,
    priv_rows: Vec<Row>,
    f_rows: Vec<Row>,
}

fn spool_tables(s: &mut Spool, tables: &[TableFacts], enc_ts: &str) {
    let mut r = TableRows::default();
    for t in tables {
        r.push(t, enc_ts);
    }
    for (name, rows) in [
        ("tables", r.t_rows),
        ("columns", r.c_rows),
        ("constraints", r.k_rows),
        ("indexes", r.i_rows),
        ("unusable_index_partitions", r.u_rows),
        ("log_groups", r.g_rows),
        ("segments", r.s_rows),
        ("objects", r.o_rows),
        ("part_tables", r.pt_rows),
        ("part_key_columns", r.pk_rows),
        ("tab_partitions", r.p_rows),
        ("tab_privs", r.priv_rows),
        ("flashback_probe", r.f_rows),
    ] {
        s.put(name, rows);
    }
}

impl TableRows {
    fn push(&mut self, t: &TableFacts, enc_ts: &str) {
        let (o, n) = (t.name.owner.clone(), t.name.table.clone());
        self.t_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(),
                    "TABLESPACE_NAME" => if t.encrypted { enc_ts.to_string() } else { "USERS".to_string() },
                    "LOGGING" => yn(t.logging), "TEMPORARY" => if t.temporary { "Y" } else { "N" },
                    "IOT_TYPE" => opt(t.iot_type.clone()), "NESTED" => yn(t.nested), "COMPRESS_FOR" => opt(t.compress_for.clone()),
                    "NUM_ROWS" => opt(t.num_rows), "PARTITIONED" => yn(t.partitioning.is_some())});
        for c in &t.columns {
            self.c_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "COLUMN_NAME" => c.name.clone(),
                        "DATA_TYPE" => c.data_type.clone(), "DATA_TYPE_OWNER" => opt(c.data_type_owner.clone()),
                        "NULLABLE" => if c.nullable { "Y" } else { "N" }, "DATA_LENGTH" => opt(c.data_length),
                        "DATA_PRECISION" => opt(c.data_precision), "DATA_SCALE" => opt(c.data_scale),
                        "HIDDEN_COLUMN" => yn(c.hidden), "VIRTUAL_COLUMN" => yn(c.virtual_column)});
        }
        for k in &t.constraints {
            for (pos, col) in k.columns.iter().enumerate() {
                self.k_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "CONSTRAINT_NAME" => k.name.clone(),
                            "CONSTRAINT_TYPE" => k.constraint_type.clone(), "STATUS" => if k.enabled { "ENABLED" } else { "DISABLED" },
                            "COLUMN_NAME" => col.clone(), "POSITION" => pos + 1});
            }
        }
        for i in &t.indexes {
            for (pos, col) in i.columns.iter().enumerate() {
                self.i_rows.push(row! {"TABLE_OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "INDEX_NAME" => i.name.clone(),
                            "UNIQUENESS" => if i.unique { "UNIQUE" } else { "NONUNIQUE" }, "PARTITIONED" => yn(i.local),
                            "STATUS" => i.status.clone(), "COLUMN_NAME" => col.clone(), "COLUMN_POSITION" => pos + 1});
            }
            for p in &i.unusable_partitions {
                self.u_rows.push(row! {"INDEX_OWNER" => o.clone(), "INDEX_NAME" => i.name.clone(), "PARTITION_NAME" => p.clone()});
            }
        }
        for g in &t.log_groups {
            self.g_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "LOG_GROUP_NAME" => g.name.clone(),
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
                self.s_rows.push(row! {"OWNER" => o.clone(), "SEGMENT_NAME" => n.clone(), "PARTITION_NAME" => Value::Null,
                            "BYTES" => total.saturating_sub(part_bytes)});
            }
        }
        self.o_rows.push(row! {"OWNER" => o.clone(), "OBJECT_NAME" => n.clone(), "SUBOBJECT_NAME" => Value::Null,
                    "OBJECT_TYPE" => "TABLE", "OBJECT_ID" => opt(t.object_id), "DATA_OBJECT_ID" => opt(t.data_object_id),
                    "CREATED" => Value::Null, "LAST_DDL_TIME" => ts(t.last_ddl_time)});
        if let Some(p) = &t.partitioning {
            self.pt_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "PARTITIONING_TYPE" => p.partitioning_type.clone(),
                        "SUBPARTITIONING_TYPE" => p.subpartitioning_type.clone().unwrap_or_else(|| "NONE".into()),
                        "INTERVAL" => opt(p.interval.clone())});
            for (pos, k) in p.key_columns.iter().enumerate() {
                self.pk_rows.push(row! {"OWNER" => o.clone(), "NAME" => n.clone(), "COLUMN_NAME" => k.clone(), "COLUMN_POSITION" => pos + 1});
            }
            for part in &p.partitions {
                self.p_rows.push(row! {"TABLE_OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "PARTITION_NAME" => part.name.clone(),
                            "PARTITION_POSITION" => part.position, "HIGH_VALUE" => part.high_value.clone(), "NUM_ROWS" => opt(part.num_rows),
                            "INTERVAL" => yn(part.interval), "SUBPARTITION_COUNT" => part.subpartition_count});
                if let Some(b) = part.bytes {
                    self.s_rows.push(row! {"OWNER" => o.clone(), "SEGMENT_NAME" => n.clone(), "PARTITION_NAME" => part.name.clone(), "BYTES" => b});
                }
                self.o_rows.push(row! {"OWNER" => o.clone(), "OBJECT_NAME" => n.clone(), "SUBOBJECT_NAME" => part.name.clone(),
                            "OBJECT_TYPE" => "TABLE PARTITION", "OBJECT_ID" => part.object_id, "DATA_OBJECT_ID" => opt(part.data_object_id),
                            "CREATED" => ts(part.created), "LAST_DDL_TIME" => ts(part.last_ddl_time)});
            }
        }
        for g in &t.granted {
            self.priv_rows.push(row! {"TABLE_SCHEMA" => o.clone(), "TABLE_NAME" => n.clone(), "PRIVILEGE" => g.clone()});
        }
        self.f_rows.push(row! {"OWNER" => o.clone(), "TABLE_NAME" => n.clone(), "ORA_CODE" => t.flashback_probe_error.unwrap_or(0)});
    }
}

fn spool_transactions(s: &mut Spool, txns: &[SessionTransaction]) {
    s.put(
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
        );
}

fn spool_inventory(s: &mut Spool, inv: &LogInventory, dialect: Dialect) {
    let arch: Vec<Row> = inv
                .archived
                .iter()
                .map(|a| row! {"NAME" => opt(a.name.clone()), "DEST_ID" => a.dest_id, "THREAD#" => a.thread, "SEQUENCE#" => a.sequence,
                    "FIRST_CHANGE#" => a.first_change, "NEXT_CHANGE#" => a.next_change, "FIRST_TIME" => ts(a.first_time),
                    "NEXT_TIME" => ts(a.next_time), "STATUS" => a.status.clone(), "DELETED" => yn(a.deleted),
                    "ARCHIVED" => yn(a.archived), "RESETLOGS_CHANGE#" => a.resetlogs_change, "BYTES" => a.bytes})
                .collect();
    if dialect == Dialect::Dm {
        s.put("dm_archived_logs", arch);
    } else {
        s.put("archived_logs", arch);
        s.put(
                    "online_logs",
                    inv.online
                        .iter()
                        .map(|l| row! {"GROUP#" => l.group, "THREAD#" => l.thread, "SEQUENCE#" => l.sequence, "BYTES" => l.bytes,
                            "MEMBERS" => l.members, "STATUS" => l.status.clone(), "ARCHIVED" => yn(l.archived),
                            "FIRST_CHANGE#" => l.first_change, "NEXT_CHANGE#" => opt(l.next_change), "FIRST_TIME" => ts(l.first_time),
                            "MEMBER" => opt(l.member_files.first().cloned())})
                        .collect(),
                );
        s.put(
                    "archive_dests",
                    inv.destinations
                        .iter()
                        .map(|d| row! {"DEST_ID" => d.dest_id, "DEST_NAME" => d.dest_name.clone(), "STATUS" => d.status.clone(),
                            "TYPE" => d.dest_type.clone(), "DESTINATION" => opt(d.destination.clone())})
                        .collect(),
                );
        s.put(
                    "threads",
                    inv.threads
                        .iter()
                        .map(|t| row! {"THREAD#" => t.thread, "STATUS" => t.status.clone(), "ENABLED" => t.enabled.clone(),
                            "SEQUENCE#" => t.current_sequence, "LAST_REDO_CHANGE#" => t.last_redo_scn})
                        .collect(),
                );
    }
}
