//! The DM8 mode of the simulator (`instance.dialect = "dm"`): what a Dameng
//! DM8 instance answers where it differs from Oracle, beside the Oracle
//! model rather than inside it. The workload, the SCN (DM8's LSN) clock and
//! the log files are the shared model's; this module owns how DM8 shows
//! them (dm8-contract.md):
//!
//! - the catalog: `V$DATABASE.ARCH_MODE`, `V$DM_INI`, `V$DM_ARCH_INI`,
//!   `SF_CHECK_SYSTEM_PACKAGE('DBMS_LOGMNR')`, the grants a CDC user holds;
//! - the log inventory: archived files of `V$ARCH_FILE` (INACTIVE), and the
//!   file still being written (ACTIVE) as the one CURRENT online log;
//! - `DBMS_LOGMNR` refusals, and the rows of `V$LOGMNR_CONTENTS`: explicit
//!   START and COMMIT rows, no end row for a rollback (under
//!   `dm.rollback_rows = "compensation"` undo rows flagged `ROLL_BACK = 1`,
//!   under `"original"` the rolled-back rows themselves flagged), DM8's
//!   literals, a WHERE per `RLOG_APPEND_LOGIC`, SQL_REDO split at 4000
//!   bytes into pieces of one SCN numbered by SSN, long LOBs as `OUT_CLOB`;
//!   XA branches end in XA_COMMIT (38) and never in COMMIT (7), batched
//!   updates show BATCH_UPDATE (4) (`dm.xa_pct`, `dm.batch_update_pct`);
//!   the ACTIVE file's readable content may trail its `CLSN`
//!   (`dm.active_file_lag`); SQL_REDO is rendered with the table's columns
//!   when it is mined, so a row written before an ADD COLUMN and mined
//!   after it names the new column, NULL.
//!   The rows a query returns are the DM source's own query's
//!   ([`crate::source::dm::sql::contents_selects`]), mapped as that source
//!   maps DM8's codes;
//! - the flashback read of a snapshot chunk (`AS OF SCN lsn`): only with
//!   `ENABLE_FLASHBACK = 1` and within `UNDO_RETENTION`, else `[-9801]`,
//!   values in the text the stream gives them (LOBs whole).

use std::collections::BTreeMap;

use crate::engine::port::dm_codes::{FLASHBACK_EXPIRED, NO_OBJECT};
use crate::engine::row::Scn;
use crate::engine::row::{LogMinerRow, OperationCode};
use crate::source::catalog::*;
use crate::source::inventory::*;
use crate::source::{SourceError, TableName};

use super::model::{Body, DmlOp, Model, Rec};
use super::scenario::{DmRollbackRows, LogMode};
use super::value::{ColType, DmLobForm, Value};

/// The grants a DM8 CDC user needs: DBMS_LOGMNR reads every change in the
/// database whatever the table grants, and V$TRX is how a rolled-back
/// transaction, which DM8 ends with no row, is known to have ended.
pub fn default_privileges() -> Vec<String> {
    [
        "CREATE SESSION",
        "EXECUTE ON SYS.DBMS_LOGMNR",
        "SELECT ON SYS.V$LOGMNR_CONTENTS",
        "SELECT ON SYS.V$ARCH_FILE",
        "SELECT ON SYS.V$RLOG",
        "SELECT ON SYS.V$DM_INI",
        "SELECT ON SYS.V$TRX",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

fn holds(privileges: &[String], roles: &[String], grant: &str) -> bool {
    roles.iter().any(|r| r.eq_ignore_ascii_case("DBA"))
        || privileges.iter().any(|p| p.eq_ignore_ascii_case(grant))
}

/// Whether archiving is on: `ARCH_MODE = 'Y'` and `ARCH_INI = 1`.
fn archiving(m: &Model) -> bool {
    m.scenario.instance.log_mode == LogMode::Archivelog && m.scenario.dm.arch_ini
}

/// `V$DATABASE`, `V$INSTANCE`, `V$DM_INI` and `V$DM_ARCH_INI` as facts.
pub fn instance(m: &Model) -> InstanceFacts {
    let s = &m.scenario;
    let i = &s.instance;
    let d = &s.dm;
    let mut parameters = BTreeMap::new();
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    parameters.insert("arch_ini".to_string(), flag(d.arch_ini));
    parameters.insert(
        "rlog_append_logic".to_string(),
        d.rlog_append_logic.to_string(),
    );
    parameters.insert("mpp_ini".to_string(), flag(d.mpp));
    parameters.insert("rlog_ignore_table_set".to_string(), "1".to_string());
    parameters.insert("logmnr_parse_lob".to_string(), flag(d.parse_lob));
    parameters.insert("enable_flashback".to_string(), flag(d.enable_flashback));
    parameters.insert(
        "undo_retention".to_string(),
        format!("{}.000000", i.undo_retention_s),
    );
    for (k, v) in &i.parameters {
        parameters.insert(k.to_ascii_lowercase(), v.clone());
    }
    let arch_destinations = if d.arch_ini {
        s.redo
            .destinations
            .iter()
            .enumerate()
            .map(|(n, dest)| DmArchDest {
                arch_name: dest
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("ARCHIVE_LOCAL{}", n + 1)),
                arch_type: "LOCAL".into(),
                arch_dest: dest.destination.clone(),
                arch_space_limit: i.recovery_area_size >> 20,
                arch_is_valid: dest.status == "VALID",
            })
            .collect()
    } else {
        Vec::new()
    };
    InstanceFacts {
        dialect: Dialect::Dm,
        version: s.version_full().unwrap_or_default(),
        banner: "DM Database Server 64 V8".into(),
        db_name: i.db_name.clone(),
        instance_name: i.instance_name.clone().unwrap_or_else(|| "DMSERVER".into()),
        cdb: false,
        pdbs: Vec::new(),
        log_mode: if i.log_mode == LogMode::Archivelog {
            "ARCHIVELOG".into()
        } else {
            "NOARCHIVELOG".into()
        },
        supplemental_log_data_min: "NO".into(),
        database_role: i.database_role.clone(),
        open_mode: "OPEN".into(),
        parameters,
        nls_characterset: i.characterset.clone(),
        nls_nchar_characterset: i.nchar_characterset.clone(),
        current_scn: m.scn,
        now: Some(m.now()),
        dm: Some(DmFacts {
            arch_ini: Some(flag(d.arch_ini)),
            rlog_append_logic: Some(d.rlog_append_logic.to_string()),
            logmnr_package_installed: Some(d.logmnr_package),
            mpp: Some(d.mpp),
            arch_destinations,
            dsc_nodes: Some(d.dsc_nodes),
        }),
        ..InstanceFacts::default()
    }
}

/// The session: DM8 has no containers; views and packages the user cannot
/// use are listed as a probe would find them.
pub fn session(m: &Model, privileges: &[String], roles: &[String]) -> SessionFacts {
    let c = &m.scenario.connection;
    let mut inaccessible = BTreeMap::new();
    for view in [
        "V$LOGMNR_CONTENTS",
        "V$ARCH_FILE",
        "V$RLOG",
        "V$DM_INI",
        "V$TRX",
    ] {
        if !holds(privileges, roles, &format!("SELECT ON SYS.{view}")) {
            inaccessible.insert(view.to_string(), 942);
        }
    }
    if !holds(privileges, roles, "EXECUTE ON SYS.DBMS_LOGMNR") {
        inaccessible.insert("DBMS_LOGMNR".to_string(), 6550);
    }
    SessionFacts {
        user: c.user.clone(),
        con_name: m.scenario.instance.db_name.clone(),
        privileges: privileges.to_vec(),
        roles: roles.to_vec(),
        inaccessible_objects: inaccessible,
        ..SessionFacts::default()
    }
}

/// The log inventory by the contract's mapping of `V$ARCH_FILE` and
/// `V$RLOG`: archived INACTIVE files, the ACTIVE file as the CURRENT log of
/// thread 1, never the redo files themselves (they cannot be mined).
pub fn log_inventory(m: &Model) -> LogInventory {
    let s = &m.scenario;
    let mut inv = LogInventory {
        resetlogs_change: 0,
        ..LogInventory::default()
    };
    let archiving = archiving(m);
    if archiving {
        inv.archived = m.archived.clone();
    }
    if let Some(t) = m.threads.first() {
        // V$RLOG answers whether or not anything is archived; without
        // archiving there is no ACTIVE file to mine either.
        if let Some(g) = t.groups.get(t.current).filter(|_| archiving) {
            inv.online.push(OnlineLog {
                group: 1,
                thread: 1,
                sequence: g.seq.unwrap_or(0),
                bytes: s.redo.group_bytes,
                members: 1,
                status: "CURRENT".into(),
                archived: false,
                first_change: g.first_change,
                next_change: None,
                first_time: g.first_time,
                member_files: g.readable_members().into_iter().take(1).collect(),
            });
        }
        inv.threads.push(RedoThread {
            thread: 1,
            status: "OPEN".into(),
            enabled: "PUBLIC".into(),
            current_sequence: t.seq,
            last_redo_scn: t.last_redo_scn,
            enable_change: t.enable_change.unwrap_or(0),
            disable_change: 0,
            checkpoint_change: t.groups.get(t.current).map_or(0, |g| g.first_change),
        });
    }
    if !archiving {
        // ARCH_INI = 0: V$DM_ARCH_INI has no row.
        return inv;
    }
    inv.destinations = s
        .redo
        .destinations
        .iter()
        .map(|d| ArchiveDestStatus {
            dest_id: d.id,
            dest_name: d
                .name
                .clone()
                .unwrap_or_else(|| format!("ARCHIVE_LOCAL{}", d.id)),
            status: d.status.clone(),
            dest_type: "LOCAL".into(),
            destination: Some(d.destination.clone()),
        })
        .collect();
    inv
}

/// `V$RLOG` as the one thread DM8 has.
pub fn redo_threads(m: &Model) -> Vec<RedoThread> {
    log_inventory(m).threads
}

/// What `DBMS_LOGMNR.ADD_LOGFILE`/`START_LOGMNR` refuse on DM8 before any
/// file is looked at: a missing package, a missing EXECUTE grant.
pub fn check_start(m: &Model, privileges: &[String], roles: &[String]) -> Result<(), SourceError> {
    if !m.scenario.dm.logmnr_package {
        return Err(SourceError::Invalid(
            "DBMS_LOGMNR is not installed on this DM8 instance: run SP_CREATE_SYSTEM_PACKAGES(1,'DBMS_LOGMNR') as SYSDBA".into(),
        ));
    }
    if !holds(privileges, roles, "EXECUTE ON SYS.DBMS_LOGMNR") {
        return Err(SourceError::Invalid(
            "no EXECUTE on SYS.DBMS_LOGMNR: GRANT EXECUTE ON SYS.DBMS_LOGMNR TO the capture user"
                .into(),
        ));
    }
    Ok(())
}

/// `V$TRX` as DM8 answers `SELECT * FROM V$TRX` over the model's `open`
/// transactions: one row each, `ID` the XID as a number, `STATUS`
/// `LOCK WAIT` for the share `dm.lock_wait_pct` names (waiting for a row
/// lock, routine in OLTP) and `ACTIVE` otherwise, read by the DM source's
/// own row mapping.
pub fn open_transactions(
    m: &Model,
    open: Vec<OpenTransaction>,
    privileges: &[String],
    roles: &[String],
) -> Result<Vec<OpenTransaction>, SourceError> {
    if !holds(privileges, roles, "SELECT ON SYS.V$TRX") {
        // DM8 names a view the user may not read as an invalid one.
        return Err(SourceError::Dm {
            code: crate::source::dm::error::NO_OBJECT,
            message: "无效的表或视图名[V$TRX]".into(),
        });
    }
    let columns: Vec<String> = ["ID", "STATUS", "SESS_ID", "START_LSN"]
        .into_iter()
        .map(String::from)
        .collect();
    let rows: Vec<Vec<Option<String>>> = open
        .into_iter()
        .enumerate()
        .map(|(n, t)| {
            let status = if chosen(&t.xid, LOCK_WAIT, m.scenario.dm.lock_wait_pct) {
                "LOCK WAIT"
            } else {
                "ACTIVE"
            };
            let id = u64::from_str_radix(&t.xid, 16).unwrap_or_default();
            vec![
                Some(id.to_string()),
                Some(status.to_string()),
                Some((140 + n).to_string()),
                Some(t.start_scn.to_string()),
            ]
        })
        .collect();
    crate::source::dm::rows::transactions(&columns, &rows)
}

/// A dropped connection as the DM source reports it: the `dm-pure`
/// driver's network error (-6852, `连接关闭` when the server closed the
/// socket), mapped by the source's own error mapping.
pub fn connection_dropped() -> SourceError {
    crate::source::dm::error::classify(
        crate::source::dm::error::NETWORK,
        "连接关闭（读取帧头）",
        "sim",
        false,
    )
}

/// Whether the user may read `V$LOGMNR_CONTENTS`.
pub fn can_read_contents(privileges: &[String], roles: &[String]) -> bool {
    holds(privileges, roles, "SELECT ON SYS.V$LOGMNR_CONTENTS")
}

/// Whether `V$LOGMNR_CONTENTS` shows a record at all: nothing without
/// logical logging (RLOG_APPEND_LOGIC = 0), no end row for a rollback, and
/// undo rows only under the `compensation` rollback model.
pub fn shows(m: &Model, rec: &Rec) -> bool {
    if m.scenario.dm.rlog_append_logic == 0 {
        return false;
    }
    match &rec.body {
        Body::Rollback { .. } | Body::ReplicationMarker => false,
        Body::Dml { rollback, .. } => {
            !*rollback || m.scenario.dm.rollback_rows == DmRollbackRows::Compensation
        }
        Body::LobLocator { .. } | Body::LobWrite { .. } | Body::Piece { .. } => false,
        _ => true,
    }
}

/// Whether DM8 flags `rec` itself `ROLL_BACK = 1` (`dm.rollback_rows =
/// "original"`): a change later taken back by a rollback whose redo is
/// written by now. One mined before its rollback shows 0.
fn rolled_back(m: &Model, rec: &Rec) -> bool {
    if m.scenario.dm.rollback_rows != DmRollbackRows::Original {
        return false;
    }
    m.undone.get(&rec.scn).is_some_and(|&undo| {
        m.threads
            .iter()
            .any(|t| t.thread == rec.thread && undo <= t.last_redo_scn)
    })
}

/// Whether a record written to the archive can be read back yet: in the
/// ACTIVE file (the thread's current one) only up to `dm.active_file_lag`
/// LSNs below what `V$ARCH_FILE.CLSN` shows; a switched file whole.
pub fn readable(m: &Model, rec: &Rec) -> bool {
    let lag = m.scenario.dm.active_file_lag;
    if lag == 0 {
        return true;
    }
    m.threads
        .iter()
        .find(|t| t.thread == rec.thread)
        .is_none_or(|t| {
            let active = t.groups.get(t.current).and_then(|g| g.seq);
            active != Some(rec.seq) || rec.scn.saturating_add(lag) <= t.last_redo_scn
        })
}

/// Whether `pct` percent of transactions have a trait `salt` names,
/// decided by the XID alone so every query and poll agrees.
pub fn chosen(xid: &str, salt: u8, pct: f64) -> bool {
    if pct <= 0.0 {
        return false;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in std::iter::once(salt).chain(xid.bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    ((h % 10_000) as f64) < pct * 100.0
}

pub(super) const XA: u8 = 1;
pub(super) const BATCH: u8 = 2;
pub(super) const LOCK_WAIT: u8 = 3;

use crate::source::dm::rows::{BATCH_UPDATE, XA_COMMIT};

/// A deterministic `LOB_ID` for `OUT_CLOB(LOB_ID: n)`: the same value
/// renders the same way in every query.
fn lob_id(rec: &Rec, column: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in rec.scn.to_le_bytes().iter().chain(&column.to_le_bytes()) {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    500_000 + h % 500_000
}

/// One redo record as one unsplit DM8 row (see [`split`]).
pub fn render(m: &Model, rec: &Rec) -> LogMinerRow {
    let mut row = LogMinerRow {
        scn: rec.scn,
        timestamp: Some(rec.time),
        xid: rec.xid().to_string(),
        username: Some(rec.username().to_string()),
        rs_id: Some(rec.rs_id()),
        ssn: 0,
        thread: 1,
        sequence: rec.seq,
        ..LogMinerRow::default()
    };
    match &rec.body {
        Body::Start => row.operation_code = OperationCode::Start,
        Body::Commit { .. } => {
            row.operation_code = if chosen(rec.xid(), XA, m.scenario.dm.xa_pct) {
                OperationCode::from_code(XA_COMMIT)
            } else {
                OperationCode::Commit
            }
        }
        Body::Ddl { table, sql } => {
            row.operation_code = OperationCode::Ddl;
            if let Some(t) = m.tables.get(*table) {
                row.seg_owner = Some(t.name.owner.clone());
                row.table_name = Some(t.name.table.clone());
            }
            row.sql_redo = Some(sql.clone());
        }
        Body::Dml {
            table,
            op,
            rollback,
            rowid,
            before,
            after,
            changed,
            ..
        } => {
            row.operation_code = op.operation_code();
            if *op == DmlOp::Update && chosen(rec.xid(), BATCH, m.scenario.dm.batch_update_pct) {
                row.operation_code = OperationCode::from_code(BATCH_UPDATE);
            }
            row.rollback = *rollback || rolled_back(m, rec);
            row.row_id = Some(rowid.to_string());
            let Some(t) = m.tables.get(*table) else {
                return row;
            };
            row.seg_owner = Some(t.name.owner.clone());
            row.table_name = Some(t.name.table.clone());
            let lob = |i: usize| {
                if m.scenario.dm.parse_lob {
                    DmLobForm::WithId(lob_id(rec, i))
                } else {
                    DmLobForm::Bare
                }
            };
            let col = |i: usize| format!("\"{}\"", t.columns[i].name);
            let lit = |i: usize, v: &Value| v.dm_literal(&t.columns[i].ty, lob(i));
            let target = format!("\"{}\".\"{}\"", t.name.owner, t.name.table);
            // LOBs cannot be compared with `=`: no WHERE names them. At
            // RLOG_APPEND_LOGIC = 1 a table with a key logs the key alone.
            let where_cols: Vec<usize> = if m.scenario.dm.rlog_append_logic == 1 && !t.pk.is_empty()
            {
                t.pk.clone()
            } else {
                (0..t.columns.len())
                    .filter(|&i| !t.columns[i].ty.is_lob())
                    .collect()
            };
            let cond = |b: &[Value]| -> String {
                where_cols
                    .iter()
                    .map(|&i| match b.get(i).filter(|v| !v.is_null()) {
                        Some(v) => format!("{} = {}", col(i), lit(i, v)),
                        None => format!("{} IS NULL", col(i)),
                    })
                    .collect::<Vec<_>>()
                    .join(" AND ")
            };
            let b = before.as_deref().map(|v| v.as_slice()).unwrap_or(&[]);
            let a = after.as_deref().map(|v| v.as_slice()).unwrap_or(&[]);
            let sql = match op {
                DmlOp::Insert => {
                    // The table's columns now, not when the row was written:
                    // one added since is NULL.
                    let cols: Vec<String> = (0..t.columns.len()).map(col).collect();
                    let vals: Vec<String> = (0..t.columns.len())
                        .map(|i| lit(i, a.get(i).unwrap_or(&Value::Null)))
                        .collect();
                    format!(
                        "INSERT INTO {target}({}) VALUES({})",
                        cols.join(", "),
                        vals.join(", ")
                    )
                }
                DmlOp::Update => {
                    let set: Vec<String> = changed
                        .iter()
                        .filter_map(|&i| a.get(i).map(|v| format!("{} = {}", col(i), lit(i, v))))
                        .collect();
                    format!("UPDATE {target} SET {} WHERE {}", set.join(", "), cond(b))
                }
                DmlOp::Delete => format!("DELETE FROM {target} WHERE {}", cond(b)),
            };
            row.sql_redo = Some(sql);
        }
        Body::Rollback { .. }
        | Body::ReplicationMarker
        | Body::LobLocator { .. }
        | Body::LobWrite { .. }
        | Body::Piece { .. } => row.operation_code = OperationCode::Internal,
    }
    row
}

/// SQL_REDO is VARCHAR(4000): a longer statement comes in rows of the same
/// SCN numbered by SSN 0, 1, 2, … with CSF = 1 on all but the last.
pub fn split(row: LogMinerRow, out: &mut Vec<LogMinerRow>) {
    let Some(sql) = row.sql_redo.as_deref() else {
        out.push(row);
        return;
    };
    if sql.len() <= super::CSF_PIECE_BYTES {
        out.push(row);
        return;
    }
    let sql = sql.to_string();
    let mut start = 0;
    let mut ssn = 0;
    while start < sql.len() {
        let mut end = (start + super::CSF_PIECE_BYTES).min(sql.len());
        while !sql.is_char_boundary(end) {
            end -= 1;
        }
        let mut piece = row.clone();
        piece.sql_redo = Some(sql[start..end].to_string());
        piece.csf = end < sql.len();
        piece.ssn = ssn;
        ssn += 1;
        out.push(piece);
        start = end;
    }
}

/// Why a flashback read of `table` as of `lsn` fails before it reads, if
/// it does. With `ENABLE_FLASHBACK = 0` DM8 keeps no version to go back to;
/// what it answers then is not public, so the simulator answers as for an
/// expired version (cdcctl checks `V$DM_INI` before it reads and never
/// gets here on such an instance).
pub fn flashback_refusal(m: &Model, table: &TableName, lsn: Scn) -> Option<SourceError> {
    if !m.scenario.dm.enable_flashback {
        return Some(flashback_expired(
            table,
            lsn,
            "ENABLE_FLASHBACK = 0 keeps no version to read",
        ));
    }
    None
}

/// `[-9801]` for a read of `table` as of `lsn`.
pub fn flashback_expired(table: &TableName, lsn: Scn, why: &str) -> SourceError {
    SourceError::Dm {
        code: FLASHBACK_EXPIRED,
        message: format!(
            "闪回版本已过期 (flashback version expired): {table} AS OF SCN {lsn}: {why}"
        ),
    }
}

/// `[-2106]`: the table does not exist or the user may not see it.
pub fn no_table(table: &TableName) -> SourceError {
    SourceError::Dm {
        code: NO_OBJECT,
        message: format!("无效的表或视图名 (invalid table or view name) [{table}]"),
    }
}

/// The text a flashback read gives `value` of a column of type `ty`, in
/// the form the stream gives the same value; LOBs whole, as a read gives
/// them, where DM8's log shows a long one as `OUT_CLOB`.
pub fn snapshot_text(value: &Value, ty: &ColType) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Clob(_) | Value::Blob(_) | Value::Raw(_) => value.snapshot_text(),
        other => other.dm_field(ty).as_str().map(str::to_string),
    }
}
