//! Catalog facts of the simulated instance, filled from the model the way
//! the real views would show them (`V$DATABASE`, `V$PARAMETER`,
//! `SESSION_PRIVS`, `ALL_TAB_COLS`, `ALL_TAB_PARTITIONS`, `V$LOG`, ...).

use std::collections::BTreeMap;

use chrono::NaiveDateTime;

use crate::source::catalog::*;
use crate::source::inventory::*;

use super::model::{high_value_text, Bound, Column, Model, Partitioning, Table};
use super::scenario::{InstanceSpec, LogMode, PartitionKind, SuppLevel};
use super::value::ColType;

/// What cdcctl's setup script grants a capture user, by release.
pub fn default_privileges(major: u32) -> Vec<String> {
    let mut p = vec![
        "CREATE SESSION",
        "SELECT ANY TRANSACTION",
        "SELECT ANY DICTIONARY",
        "FLASHBACK ANY TABLE",
        "SELECT ANY TABLE",
        "LOCK ANY TABLE",
        "CREATE TABLE",
    ];
    if major >= 12 {
        p.push("LOGMINING");
        p.push("SET CONTAINER");
    }
    p.into_iter().map(String::from).collect()
}

/// DBMS_LOGMNR is executed through EXECUTE_CATALOG_ROLE on every release
/// (LOGMINING on 12c+ is needed in addition, not instead).
pub fn default_roles(_major: u32) -> Vec<String> {
    vec![
        "SELECT_CATALOG_ROLE".to_string(),
        "EXECUTE_CATALOG_ROLE".to_string(),
    ]
}

/// Whether a call to `SYS.DBMS_LOGMNR` compiles for this user: without
/// EXECUTE the block fails with PLS-00201 (ORA-06550) before LogMiner
/// checks LOGMINING.
pub fn can_execute_logmnr(privileges: &[String], roles: &[String], execute_on: &[String]) -> bool {
    let any = |list: &[String], x: &str| list.iter().any(|v| v.eq_ignore_ascii_case(x));
    any(roles, "EXECUTE_CATALOG_ROLE")
        || any(roles, "DBA")
        || any(privileges, "EXECUTE ANY PROCEDURE")
        || execute_on.iter().any(|p| {
            p.trim_start_matches("SYS.")
                .eq_ignore_ascii_case("DBMS_LOGMNR")
        })
}

pub fn instance(m: &Model) -> InstanceFacts {
    if m.scenario.is_dm() {
        return super::dm::instance(m);
    }
    let s = &m.scenario;
    let i = &s.instance;
    let version = s.version_full().unwrap_or_default();
    InstanceFacts {
        dialect: Dialect::Oracle,
        banner: banner(m.version_major, &version),
        version,
        db_name: i.db_name.clone(),
        instance_name: i
            .instance_name
            .clone()
            .unwrap_or_else(|| i.db_name.to_ascii_lowercase()),
        cdb: i.cdb,
        pdbs: pdbs(i),
        log_mode: match i.log_mode {
            LogMode::Archivelog => "ARCHIVELOG".into(),
            LogMode::Noarchivelog => "NOARCHIVELOG".into(),
        },
        supplemental_log_data_min: match i.supplemental_logging {
            SuppLevel::None => "NO".into(),
            SuppLevel::Min => "YES".into(),
            // PK or ALL logging at database level implies minimal.
            SuppLevel::Pk | SuppLevel::All => "IMPLICIT".into(),
        },
        supplemental_log_data_pk: i.supplemental_logging == SuppLevel::Pk,
        supplemental_log_data_ui: false,
        supplemental_log_data_all: i.supplemental_logging == SuppLevel::All,
        force_logging: i.force_logging,
        database_role: i.database_role.clone(),
        open_mode: i.open_mode.clone(),
        parameters: parameters(m),
        nls_characterset: i.characterset.clone(),
        nls_nchar_characterset: i.nchar_characterset.clone(),
        recovery_area: recovery_area(m),
        failed_archive_dests: failed_archive_dests(m),
        undo: UndoFacts {
            tablespace: Some(i.undo_tablespace.clone()),
            retention_guarantee: i.undo_retention_guarantee,
            autoextensible: i.undo_autoextensible,
            tuned_undoretention_s: Some(i.undo_retention_s),
            snapshot_too_old_errors: m.snapshot_too_old_errors,
            no_space_errors: 0,
        },
        wallet_status: i.wallet_status.clone(),
        encrypted_tablespaces: Vec::new(),
        services: services(i),
        switch_history: Some(switch_history(m)),
        current_scn: m.scn,
        now: Some(m.now()),
        dm: None,
        yashan: None,
    }
}

/// `V$VERSION`'s banner of the release.
fn banner(major: u32, version: &str) -> String {
    match major {
        11 => {
            format!("Oracle Database 11g Enterprise Edition Release {version} - 64bit Production")
        }
        12 => {
            format!("Oracle Database 12c Enterprise Edition Release {version} - 64bit Production")
        }
        23 => "Oracle Database 23ai Enterprise Edition Release 23.0.0.0.0 - Production".to_string(),
        n => format!("Oracle Database {n}c Enterprise Edition Release {n}.0.0.0.0 - Production"),
    }
}

/// `V$PARAMETER`: what the scenario's settings imply, then its own
/// `instance.parameters` over them.
fn parameters(m: &Model) -> BTreeMap<String, String> {
    let s = &m.scenario;
    let i = &s.instance;
    let mut parameters = BTreeMap::new();
    let mut set = |k: &str, v: String| {
        parameters.insert(k.to_string(), v);
    };
    set("undo_retention", i.undo_retention_s.to_string());
    set("undo_management", "AUTO".into());
    set("undo_tablespace", i.undo_tablespace.clone());
    set(
        "db_recovery_file_dest",
        "/u01/app/oracle/fast_recovery_area".into(),
    );
    set(
        "db_recovery_file_dest_size",
        i.recovery_area_size.to_string(),
    );
    set(
        "compatible",
        match m.version_major {
            11 => "11.2.0.4.0".into(),
            12 => "12.2.0".into(),
            n => format!("{n}.0.0"),
        },
    );
    set("max_string_size", "STANDARD".into());
    set("log_archive_format", s.redo.log_archive_format.clone());
    set("db_name", i.db_name.clone());
    set("db_block_size", "8192".into());
    set(
        "enable_pluggable_database",
        if i.cdb { "TRUE" } else { "FALSE" }.into(),
    );
    set("enable_goldengate_replication", "FALSE".into());
    set("streams_pool_size", "0".into());
    set(
        "cluster_database",
        if i.threads > 1 { "TRUE" } else { "FALSE" }.into(),
    );
    for d in &s.redo.destinations {
        let v = if d.destination == "USE_DB_RECOVERY_FILE_DEST" {
            "LOCATION=USE_DB_RECOVERY_FILE_DEST".to_string()
        } else if d.destination.starts_with("LOCATION=") || d.destination.starts_with("SERVICE=") {
            d.destination.clone()
        } else {
            format!("LOCATION={}", d.destination)
        };
        set(&format!("log_archive_dest_{}", d.id), v);
        set(&format!("log_archive_dest_state_{}", d.id), "ENABLE".into());
    }
    for (k, v) in &i.parameters {
        set(&k.to_ascii_lowercase(), v.clone());
    }
    parameters
}

/// `V$RECOVERY_FILE_DEST`, with the archives the simulation wrote.
fn recovery_area(m: &Model) -> Option<RecoveryArea> {
    let i = &m.scenario.instance;
    let fra_files = m.archived.iter().filter(|a| !a.deleted).count() as u64;
    Some(RecoveryArea {
        name: "/u01/app/oracle/fast_recovery_area".into(),
        space_limit: i.recovery_area_size,
        space_used: i.recovery_area_used + m.fra_archive_bytes,
        space_reclaimable: i.recovery_area_reclaimable,
        number_of_files: fra_files + 12,
        archived_log_reclaimable_pct: Some(if i.recovery_area_size == 0 {
            0.0
        } else {
            i.recovery_area_reclaimable as f64 * 100.0 / i.recovery_area_size as f64
        }),
    })
}

/// `V$PDBS`: the scenario's PDBs, from CON_ID 3.
fn pdbs(i: &InstanceSpec) -> Vec<PdbFacts> {
    i.pdbs
        .iter()
        .enumerate()
        .map(|(n, name)| PdbFacts {
            name: name.clone(),
            con_id: n as u32 + 3,
            open_mode: "READ WRITE".into(),
            ..Default::default()
        })
        .collect()
}

/// `V$SERVICES`: the database's and one per PDB.
fn services(i: &InstanceSpec) -> Vec<ServiceFacts> {
    let mut services = vec![ServiceFacts {
        name: i.db_name.to_ascii_lowercase(),
        network_name: Some(i.db_name.to_ascii_lowercase()),
        pdb: i.cdb.then(|| "CDB$ROOT".to_string()),
    }];
    for p in &i.pdbs {
        services.push(ServiceFacts {
            name: p.to_ascii_lowercase(),
            network_name: Some(p.to_ascii_lowercase()),
            pdb: Some(p.clone()),
        });
    }
    services
}

/// `V$LOG_HISTORY` over the last hour, per thread: a row per closed log
/// (its FIRST_TIME the switch that began it) begun within the hour.
pub(super) fn recent_switches(m: &Model) -> Vec<crate::engine::port::RecentSwitches> {
    let now = m.now();
    let hour_ago = now - chrono::Duration::hours(1);
    let mut threads: BTreeMap<u16, Vec<NaiveDateTime>> = BTreeMap::new();
    for (thread, t) in &m.switches {
        threads.entry(*thread).or_default().push(*t);
    }
    threads
        .into_iter()
        .filter_map(|(thread, times)| {
            // The last switch began the CURRENT log, not a closed one.
            let closed = &times[..times.len().saturating_sub(1)];
            let begun: Vec<_> = closed.iter().filter(|t| **t > hour_ago).collect();
            let first = begun.iter().min()?;
            Some(crate::engine::port::RecentSwitches {
                thread,
                switches: u32::try_from(begun.len()).unwrap_or(u32::MAX),
                span_s: u64::try_from((now - **first).num_seconds()).unwrap_or(0),
            })
        })
        .collect()
}

/// Log switches per hour: the peak and the hours seen.
fn switch_history(m: &Model) -> SwitchHistory {
    let mut per_hour: BTreeMap<String, u32> = BTreeMap::new();
    for (_, t) in &m.switches {
        *per_hour
            .entry(t.format("%Y%m%d%H").to_string())
            .or_default() += 1;
    }
    SwitchHistory {
        peak_per_hour: per_hour.values().copied().max().unwrap_or(0),
        hours_observed: per_hour.len() as u32,
    }
}

/// Archive destinations in error or full.
fn failed_archive_dests(m: &Model) -> Vec<String> {
    m.scenario
        .redo
        .destinations
        .iter()
        .filter(|d| d.status == "ERROR" || d.status == "FULL" || m.dest_errors.contains_key(&d.id))
        .map(|d| {
            d.name
                .clone()
                .unwrap_or_else(|| format!("LOG_ARCHIVE_DEST_{}", d.id))
        })
        .collect()
}

pub fn session(
    m: &Model,
    privileges: &[String],
    roles: &[String],
    container: &str,
) -> SessionFacts {
    if m.scenario.is_dm() {
        return super::dm::session(m, privileges, roles);
    }
    let c = &m.scenario.connection;
    let common = m.scenario.instance.cdb && c.user.to_ascii_uppercase().starts_with("C##");
    let mut inaccessible = BTreeMap::new();
    let has = |p: &str| privileges.iter().any(|x| x.eq_ignore_ascii_case(p));
    let role = |r: &str| roles.iter().any(|x| x.eq_ignore_ascii_case(r));
    if !(has("SELECT ANY DICTIONARY") || role("SELECT_CATALOG_ROLE") || role("DBA")) {
        inaccessible.insert("V$LOGMNR_CONTENTS".to_string(), 942);
        inaccessible.insert("V$DATABASE".to_string(), 942);
        inaccessible.insert("V$ARCHIVED_LOG".to_string(), 942);
        inaccessible.insert("V$ARCHIVE_DEST".to_string(), 942);
        inaccessible.insert("V$SESSION".to_string(), 942);
    }
    if !can_execute_logmnr(privileges, roles, &c.execute_on) {
        inaccessible.insert("DBMS_LOGMNR".to_string(), 6550);
    }
    SessionFacts {
        user: c.user.clone(),
        con_name: container.to_string(),
        common_user: common,
        privileges: privileges.to_vec(),
        roles: roles.to_vec(),
        container_data: c.container_data.clone().unwrap_or_else(|| {
            if common {
                vec!["ALL".into()]
            } else {
                Vec::new()
            }
        }),
        default_tablespace: Some(
            c.default_tablespace
                .clone()
                .unwrap_or_else(|| "USERS".into()),
        ),
        has_quota: Some(c.has_quota),
        profile: Some(ProfileFacts {
            profile: c.profile.clone().unwrap_or_else(|| "DEFAULT".into()),
            idle_time: Some(c.idle_time.clone().unwrap_or_else(|| "UNLIMITED".into())),
            connect_time: Some("UNLIMITED".into()),
            password_life_time: Some(c.password_life_time.clone().unwrap_or_else(|| "180".into())),
            account_status: Some(c.account_status.clone().unwrap_or_else(|| "OPEN".into())),
            expiry_date: None,
        }),
        inaccessible_objects: inaccessible,
        service_name: Some(c.service_name.clone().unwrap_or_else(|| {
            if container.eq_ignore_ascii_case("CDB$ROOT") || !m.scenario.instance.cdb {
                m.scenario.instance.db_name.to_ascii_lowercase()
            } else {
                container.to_ascii_lowercase()
            }
        })),
    }
}

pub fn tables(m: &Model, patterns: &[TablePattern], container: &str) -> Vec<TableFacts> {
    let mut out = Vec::new();
    for (ti, t) in m.tables.iter().enumerate() {
        if t.dropped || !t.visible_in(m.scenario.instance.cdb, container) {
            continue;
        }
        if !patterns.is_empty() && !patterns.iter().any(|p| p.matches(&t.name)) {
            continue;
        }
        out.push(table_facts(m, ti, t));
    }
    out
}

/// One table's `ALL_TABLES`, `ALL_TAB_COLS`, constraint, index, log group
/// and partition facts; `ti` numbers its log group.
fn table_facts(m: &Model, ti: usize, t: &Table) -> TableFacts {
    let columns = t.columns.iter().map(|c| column_facts(m, c)).collect();
    let (constraints, indexes) = key_facts(t);
    let log_groups = log_group_facts(t, ti);
    let avg_row = 120u64;
    let partitioning = t
        .partitioning
        .as_ref()
        .map(|p| partitioning_facts(t, p, avg_row));
    let probe = m.scenario.connection.privileges.as_ref().map(|p| {
        p.iter()
            .any(|x| x.eq_ignore_ascii_case("FLASHBACK ANY TABLE"))
            || t.grants.iter().any(|g| g.eq_ignore_ascii_case("FLASHBACK"))
    });
    TableFacts {
        name: t.name.clone(),
        object_id: Some(t.obj_id),
        data_object_id: t.partitioning.is_none().then_some(t.data_obj_id),
        columns,
        constraints,
        indexes,
        log_groups,
        logging: true,
        temporary: false,
        iot_type: None,
        nested: false,
        compress_for: None,
        num_rows: Some(t.rows.len() as u64),
        // DBA_SEGMENTS holds a partitioned table's space in its
        // partitions' segments: the table's bytes are their sum.
        segment_bytes: Some(match &partitioning {
            Some(p) => p.partitions.iter().filter_map(|x| x.bytes).sum(),
            None => (t.rows.len() as u64 * avg_row).max(64 << 10),
        }),
        last_ddl_time: Some(t.last_ddl),
        partitioning,
        granted: t.grants.clone(),
        flashback_probe_error: match probe {
            Some(false) => Some(1031),
            _ => None,
        },
        encrypted: false,
    }
}

/// A column as `ALL_TAB_COLS` shows it, in the dialect's type names.
fn column_facts(m: &Model, c: &Column) -> ColumnFacts {
    let (precision, scale) = match c.ty {
        ColType::Number { precision, scale } => (precision, scale),
        ColType::Timestamp(p) | ColType::TimestampTz(p) => (None, Some(i32::from(p))),
        _ => (None, None),
    };
    ColumnFacts {
        name: c.name.clone(),
        data_type: if m.scenario.is_dm() {
            c.ty.dm_data_type()
        } else {
            c.ty.data_type()
        },
        data_type_owner: None,
        nullable: c.nullable,
        data_length: Some(c.ty.data_length()),
        data_precision: precision,
        data_scale: scale,
        hidden: false,
        virtual_column: false,
    }
}

/// The primary key's constraint and index.
fn key_facts(t: &Table) -> (Vec<KeyConstraint>, Vec<IndexFacts>) {
    let pk_cols: Vec<String> = t.pk.iter().map(|&i| t.columns[i].name.clone()).collect();
    let mut constraints = Vec::new();
    let mut indexes = Vec::new();
    if !pk_cols.is_empty() {
        constraints.push(KeyConstraint {
            name: format!("PK_{}", t.name.table),
            constraint_type: "P".into(),
            columns: pk_cols.clone(),
            enabled: true,
        });
        indexes.push(IndexFacts {
            name: format!("PK_{}", t.name.table),
            unique: true,
            columns: pk_cols,
            local: false,
            status: "VALID".into(),
            unusable_partitions: Vec::new(),
        });
    }
    (constraints, indexes)
}

/// The table-level supplemental log group, if any.
fn log_group_facts(t: &Table, ti: usize) -> Vec<LogGroupFacts> {
    let mut log_groups = Vec::new();
    match t.log_group {
        Some(SuppLevel::All) => log_groups.push(LogGroupFacts {
            name: format!("SYS_C00{}", 7000 + ti),
            log_group_type: "ALL COLUMN LOGGING".into(),
            always: true,
        }),
        Some(SuppLevel::Pk) => log_groups.push(LogGroupFacts {
            name: format!("SYS_C00{}", 7000 + ti),
            log_group_type: "PRIMARY KEY LOGGING".into(),
            always: true,
        }),
        _ => {}
    }
    log_groups
}

/// `ALL_PART_TABLES` and the live partitions in bound order, with their
/// rows and bytes at `avg_row` bytes a row.
fn partitioning_facts(t: &Table, p: &Partitioning, avg_row: u64) -> PartitioningFacts {
    let mut live: Vec<usize> = (0..p.partitions.len())
        .filter(|&i| !p.partitions[i].dropped)
        .collect();
    live.sort_by(
        |a, b| match (&p.partitions[*a].bound, &p.partitions[*b].bound) {
            (Bound::Date(x), Bound::Date(y)) => x.cmp(y),
            (Bound::MaxValue, _) => std::cmp::Ordering::Greater,
            (_, Bound::MaxValue) => std::cmp::Ordering::Less,
            _ => a.cmp(b),
        },
    );
    let mut counts = vec![0u64; p.partitions.len()];
    for r in t.rows.values() {
        if let Some(c) = counts.get_mut(r.part) {
            *c += 1;
        }
    }
    PartitioningFacts {
        partitioning_type: match p.kind {
            PartitionKind::Range | PartitionKind::Interval => "RANGE".into(),
            PartitionKind::List => "LIST".into(),
            PartitionKind::Hash => "HASH".into(),
        },
        subpartitioning_type: None,
        key_columns: vec![t.columns[p.column].name.clone()],
        interval: p
            .interval_months
            .filter(|_| p.kind == PartitionKind::Interval)
            .map(|n| format!("NUMTOYMINTERVAL({n}, 'MONTH')")),
        partitions: live
            .iter()
            .enumerate()
            .map(|(pos, &i)| {
                let x = &p.partitions[i];
                PartitionFacts {
                    name: x.name.clone(),
                    position: pos as u32 + 1,
                    high_value: high_value_text(&x.bound),
                    num_rows: Some(counts[i]),
                    bytes: Some((counts[i] * avg_row).max(8 << 20)),
                    object_id: x.obj_id,
                    data_object_id: Some(x.data_obj_id),
                    created: Some(x.created),
                    last_ddl_time: Some(x.last_ddl),
                    interval: x.interval,
                    subpartition_count: 0,
                }
            })
            .collect(),
    }
}

/// `V$TRANSACTION`, oldest first (with the session's user, as the join gives it).
pub fn open_transactions(m: &Model) -> Vec<OpenTransaction> {
    session_transactions(m)
        .into_iter()
        .map(|t| t.transaction)
        .collect()
}

/// A row of `V$SESSION` (`GV$SESSION` on RAC) as the simulator keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub inst_id: u16,
    pub saddr: String,
    pub sid: u64,
    pub serial: u64,
    pub username: String,
    pub program: String,
    pub machine: String,
}

fn saddr(inst_id: u16, sid: u64) -> String {
    format!(
        "{:016X}",
        0x0000_0000_8F3A_0000u64 + u64::from(inst_id) * 0x10_0000 + sid * 0x1F8
    )
}

/// `V$SESSION`: the sessions running the workload's open transactions,
/// and the capture user's own on instance 1.
pub fn sessions(m: &Model) -> Vec<SessionRow> {
    let mut v: Vec<SessionRow> = m
        .open
        .iter()
        .map(|t| {
            let h = t.holder();
            SessionRow {
                inst_id: t.thread,
                saddr: saddr(t.thread, h.sid),
                sid: h.sid,
                serial: h.serial,
                username: t.username().to_string(),
                program: h.program.into(),
                machine: h.machine.into(),
            }
        })
        .collect();
    v.push(SessionRow {
        inst_id: 1,
        saddr: saddr(1, 1_001),
        sid: 1_001,
        serial: 7,
        username: m.scenario.connection.user.to_ascii_uppercase(),
        program: "cdcctl".into(),
        machine: "cdc-host".into(),
    });
    v
}

/// `V$TRANSACTION T LEFT JOIN V$SESSION S ON S.SADDR = T.SES_ADDR` (and
/// `S.INST_ID = T.INST_ID` on RAC), oldest first.
pub fn session_transactions(m: &Model) -> Vec<SessionTransaction> {
    let sessions = sessions(m);
    let mut v: Vec<SessionTransaction> = m
        .open
        .iter()
        .filter(|t| t.start_scn > 0)
        .map(|t| {
            // V$TRANSACTION.SES_ADDR and INST_ID of the transaction.
            let ses_addr = saddr(t.thread, t.holder().sid);
            let session = sessions
                .iter()
                .find(|s| s.inst_id == t.thread && s.saddr == ses_addr)
                .map(|s| TransactionSession {
                    sid: Some(s.sid),
                    serial: Some(s.serial),
                    username: Some(s.username.clone()),
                    program: Some(s.program.clone()),
                    machine: Some(s.machine.clone()),
                    // GV$SESSION names the instance; a single instance
                    // reads V$SESSION, which does not.
                    inst_id: (m.scenario.instance.threads > 1).then_some(u32::from(s.inst_id)),
                });
            SessionTransaction {
                transaction: OpenTransaction {
                    xid: t.xid().to_string(),
                    start_scn: t.start_scn,
                    start_time: Some(t.start_time),
                    used_urec: t.change_count() as u64,
                    username: session.as_ref().and_then(|s| s.username.clone()),
                    con_name: t.pdb().as_ref().map(|p| p.to_string()),
                },
                session,
            }
        })
        .collect();
    v.sort_by_key(|t| t.transaction.start_scn);
    v
}

pub fn incarnation(m: &Model) -> Incarnation {
    Incarnation {
        resetlogs_change: m.scenario.instance.resetlogs_change,
        resetlogs_time: m.resetlogs_time,
    }
}

/// The service of a remote (Data Guard) destination, `SERVICE=stby ...`.
/// On a primary, V$ARCHIVED_LOG lists the archives shipped there with
/// STANDBY_DEST = 'YES' and the service as NAME: no file LogMiner can open.
fn standby_service(s: &super::scenario::Scenario, dest_id: u32) -> Option<String> {
    let d = s.redo.destinations.iter().find(|d| d.id == dest_id)?;
    let rest = d.destination.strip_prefix("SERVICE=")?;
    rest.split_whitespace().next().map(str::to_string)
}

pub fn log_inventory(m: &Model) -> LogInventory {
    if m.scenario.is_dm() {
        return super::dm::log_inventory(m);
    }
    let s = &m.scenario;
    let mut online = Vec::new();
    for t in &m.threads {
        for g in &t.groups {
            online.push(OnlineLog {
                group: g.number,
                thread: t.thread,
                sequence: g.seq.unwrap_or(0),
                bytes: s.redo.group_bytes,
                members: g.members.len() as u32,
                status: g.status.to_string(),
                archived: g.archived,
                first_change: g.first_change,
                next_change: g.seq.map(|_| g.next_change),
                first_time: g.first_time,
                // The inventory query leaves INVALID members out.
                member_files: g.readable_members(),
            });
        }
    }
    LogInventory {
        resetlogs_change: s.instance.resetlogs_change,
        online,
        archived: if s.instance.log_mode == LogMode::Archivelog {
            m.archived
                .iter()
                .map(|a| {
                    let mut a = a.clone();
                    if let (Some(service), Some(_)) = (standby_service(s, a.dest_id), &a.name) {
                        a.name = Some(service);
                    }
                    a
                })
                .collect()
        } else {
            Vec::new()
        },
        destinations: s
            .redo
            .destinations
            .iter()
            .map(|d| ArchiveDestStatus {
                dest_id: d.id,
                dest_name: d
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("LOG_ARCHIVE_DEST_{}", d.id)),
                status: if m.dest_errors.contains_key(&d.id) {
                    "ERROR".into()
                } else {
                    d.status.clone()
                },
                dest_type: if standby_service(s, d.id).is_some() {
                    "PHYSICAL".into()
                } else {
                    "LOCAL".into()
                },
                destination: Some(if d.destination == "USE_DB_RECOVERY_FILE_DEST" {
                    "USE_DB_RECOVERY_FILE_DEST".into()
                } else {
                    d.destination.clone()
                }),
            })
            .collect(),
        threads: redo_threads(m),
    }
}

/// `V$THREAD`: one row per redo thread.
pub fn redo_threads(m: &Model) -> Vec<RedoThread> {
    if m.scenario.is_dm() {
        return super::dm::redo_threads(m);
    }
    m.threads
        .iter()
        .map(|t| match t.enable_change {
            Some(enable_change) => RedoThread {
                thread: t.thread,
                status: "OPEN".into(),
                enabled: "PUBLIC".into(),
                current_sequence: t.seq,
                last_redo_scn: t.last_redo_scn,
                enable_change,
                disable_change: 0,
                // The last checkpoint was at the last log switch.
                checkpoint_change: t
                    .groups
                    .get(t.current)
                    .map_or(enable_change, |g| g.first_change),
            },
            // Log groups exist for the node to be added; the thread is not
            // enabled and its instance has never opened.
            None => RedoThread {
                thread: t.thread,
                status: "CLOSED".into(),
                enabled: "DISABLED".into(),
                ..RedoThread::default()
            },
        })
        .collect()
}
