//! LogMiner over the simulated redo: `ADD_LOGFILE`/`START_LOGMNR` checks
//! (ORA-01284, ORA-01291, ORA-44609, ORA-65040, ORA-01031), and the rows of
//! `V$LOGMNR_CONTENTS` rendered exactly as sql-redo-format.md describes:
//! SQL_REDO text per supplemental logging level, CSF pieces of at most 4000
//! bytes, ROLLBACK=1 rows, control rows, DDL, LOB rows and unknown-dictionary
//! rows for objects the dictionary does not know. UPDATE and DELETE rows name
//! a table alias as often as the scenario's `logminer.table_alias_pct` says;
//! values print as [`Value::literal_in`] gives them under the model's NLS.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::engine::row::{LogMinerRow, OperationCode, Scn};
use crate::source::dm::{rows as dm_rows, sql as dm_sql};
use crate::source::{ContentsQuery, MiningOptions, SessionRequest, SourceError};

use super::model::{Body, DmlOp, Model, Rec, MAX_NEXT_CHANGE};
use super::sql_redo::{self, DmlStatement};
use super::value::Value;

/// USERNAME of a row LogMiner cannot tie to its transaction's START record.
const UNKNOWN_USER: &str = "UNKNOWN";

/// SQL_REDO pieces are at most this many bytes (`CSF = 1` on all but the last).
pub const CSF_PIECE_BYTES: usize = 4000;

/// ROW_ID LogMiner shows on rows that touch no table row.
const NO_ROWID: &str = "AAAAAAAAAAAAAAAAAA";

/// A log file added to the session.
#[derive(Debug, Clone)]
pub struct SessionFile {
    pub name: String,
    pub thread: u16,
    pub seq: u64,
    pub online: bool,
}

/// A running LogMiner session.
#[derive(Debug, Clone)]
pub struct Session {
    pub files: Vec<SessionFile>,
    pub start_scn: Scn,
    pub end_scn: Scn,
    pub options: MiningOptions,
    /// Objects the dictionary knew when the session started.
    dropped: HashSet<u64>,
    known_below: u64,
    /// Mining from inside a PDB (21c+) shows only that PDB's redo.
    container: Option<String>,
    /// Transactions known to have started in the session's range, kept
    /// from one query to the next: the engine re-queries the same session
    /// with a rising lower bound, and rescanning from the session start
    /// each time cost time in proportion to the session's length.
    started: StartedCache,
}

/// XIDs of START records in the session's files with an SCN from the
/// session start through `through`. Only SCNs below the database's SCN are
/// cached: no record can still be written there, so the set is final.
#[derive(Debug, Clone, Default)]
struct StartedCache {
    through: Option<Scn>,
    xids: HashSet<Arc<str>>,
}

/// Which container the connection is in, for mining rules.
pub struct Connection<'a> {
    pub container: &'a str,
    pub privileges: &'a [String],
    pub roles: &'a [String],
}

impl Connection<'_> {
    pub fn has_priv(&self, p: &str) -> bool {
        self.privileges.iter().any(|x| x.eq_ignore_ascii_case(p))
    }
    pub fn has_role(&self, r: &str) -> bool {
        self.roles.iter().any(|x| x.eq_ignore_ascii_case(r))
    }
}

fn locate(model: &Model, name: &str) -> Option<SessionFile> {
    for a in &model.archived {
        if a.is_available() && a.name.as_deref() == Some(name) {
            return Some(SessionFile {
                name: name.to_string(),
                thread: a.thread,
                seq: a.sequence,
                online: false,
            });
        }
    }
    for t in &model.threads {
        for g in &t.groups {
            if let (Some(seq), true) = (g.seq, g.members.iter().any(|m| m == name)) {
                return Some(SessionFile {
                    name: name.to_string(),
                    thread: t.thread,
                    seq,
                    online: true,
                });
            }
        }
    }
    None
}

/// The thread and group of an online member marked INVALID.
fn invalid_member(model: &Model, name: &str) -> Option<(u16, u32)> {
    model.threads.iter().find_map(|t| {
        t.groups
            .iter()
            .find(|g| g.invalid_members.iter().any(|m| m == name))
            .map(|g| (t.thread, g.number))
    })
}

/// SCN range [first, next) of a sequence, from any copy.
fn seq_range(model: &Model, thread: u16, seq: u64) -> Option<(Scn, Scn)> {
    for t in model.threads.iter().filter(|t| t.thread == thread) {
        if let Some(g) = t.groups.iter().find(|g| g.seq == Some(seq)) {
            return Some((g.first_change, g.next_change));
        }
    }
    model
        .archived
        .iter()
        .find(|a| a.thread == thread && a.sequence == seq)
        .map(|a| (a.first_change, a.next_change))
}

/// `ADD_LOGFILE` + `START_LOGMNR`, as Oracle would accept or refuse them.
///
/// Inside a PDB, `ADD_LOGFILE` is refused on every release (ORA-65040);
/// from 19c `START_LOGMNR` there takes an SCN range alone and adds the
/// logs itself (per-PDB mining), showing only that PDB's redo.
pub fn start(
    model: &Model,
    conn: &Connection<'_>,
    req: &SessionRequest,
) -> Result<Session, SourceError> {
    let inst = &model.scenario.instance;
    let dm = model.scenario.is_dm();
    if dm {
        super::dm::check_start(model, conn.privileges, conn.roles)?;
    }
    let in_pdb = inst.cdb && !conn.container.eq_ignore_ascii_case("CDB$ROOT");
    if in_pdb && (!req.log_files.is_empty() || model.version_major < 19) {
        let call = if req.log_files.is_empty() {
            "START_LOGMNR"
        } else {
            "ADD_LOGFILE"
        };
        return Err(SourceError::oracle(
            65040,
            format!(
                "operation not allowed from within a pluggable database ({call} in {}; per-PDB mining takes START_LOGMNR with an SCN range alone, from 19c)",
                conn.container
            ),
        ));
    }
    let c = &model.scenario.connection;
    if !dm && !super::facts::can_execute_logmnr(conn.privileges, conn.roles, &c.execute_on) {
        return Err(SourceError::oracle(
            6550,
            "line 1, column 7: PLS-00201: identifier 'SYS.DBMS_LOGMNR' must be declared",
        ));
    }
    let can_mine = dm
        || conn.has_role("DBA")
        || if model.version_major >= 12 {
            conn.has_priv("LOGMINING")
        } else {
            conn.has_role("EXECUTE_CATALOG_ROLE")
        };
    if !can_mine {
        return Err(SourceError::oracle(1031, "insufficient privileges (DBMS_LOGMNR needs LOGMINING on 12c+ or EXECUTE_CATALOG_ROLE on 11g)"));
    }
    let mut files: Vec<SessionFile> = Vec::new();
    let implicit = if in_pdb {
        plan_logs(model, req.start_scn)
    } else {
        Vec::new()
    };
    for name in req.log_files.iter().chain(&implicit) {
        if let Some((thread, group)) = invalid_member(model, name) {
            return Err(SourceError::oracle(
                313,
                format!("open failed for members of log group {group} of thread {thread} ({name} is INVALID)"),
            ));
        }
        let f = locate(model, name)
            .ok_or_else(|| SourceError::oracle(1284, format!("file {name} cannot be opened")))?;
        if files.iter().any(|x| x.thread == f.thread && x.seq == f.seq) {
            return Err(SourceError::oracle(
                1289,
                format!("cannot add duplicate logfile {name}"),
            ));
        }
        files.push(f);
    }
    // DM8 ignores the option bits it does not implement.
    if !dm && req.options.continuous_mine && model.version_major >= 19 {
        return Err(SourceError::oracle(
            44609,
            "CONTINUOUS_MINE is desupported for use with DBMS_LOGMNR.START_LOGMNR",
        ));
    }
    if files.is_empty() {
        return Err(SourceError::oracle(
            1291,
            "missing logfile (no log file was added)",
        ));
    }
    if req.end_scn < req.start_scn {
        return Err(SourceError::oracle(1281, "SCN range specified is invalid"));
    }
    let upper = req.end_scn.min(model.scn);
    // A thread has redo only from its ENABLE_CHANGE#: one enabled later (a
    // RAC node added) needs logs from there, one not enabled none at all.
    let threads: Vec<(u16, Scn)> = model
        .threads
        .iter()
        .filter_map(|t| t.enable_change.map(|e| (t.thread, e)))
        .filter(|&(_, enabled)| enabled <= upper)
        .map(|(t, enabled)| (t, req.start_scn.max(enabled)))
        .collect();
    for (thread, need_from) in threads {
        let mut seqs: Vec<(u64, Scn, Scn)> = files
            .iter()
            .filter(|f| f.thread == thread)
            .filter_map(|f| seq_range(model, thread, f.seq).map(|(a, b)| (f.seq, a, b)))
            .collect();
        seqs.sort_unstable();
        let covered = (|| {
            let first = seqs
                .iter()
                .position(|(_, a, b)| *a <= need_from && need_from < *b)?;
            let mut last_next = seqs[first].2;
            let mut last_seq = seqs[first].0;
            for (seq, _, next) in &seqs[first + 1..] {
                if last_next > upper {
                    break;
                }
                if *seq != last_seq + 1 {
                    return None;
                }
                last_seq = *seq;
                last_next = *next;
            }
            (last_next > upper || last_next == MAX_NEXT_CHANGE).then_some(())
        })();
        if covered.is_none() {
            return Err(SourceError::oracle(
                1291,
                format!(
                    "missing logfile: the added logs of thread {thread} do not cover SCN {need_from} to {upper}"
                ),
            ));
        }
    }
    Ok(Session {
        files,
        start_scn: req.start_scn,
        end_scn: req.end_scn,
        options: req.options,
        dropped: model.dropped_objects.clone(),
        container: in_pdb.then(|| conn.container.to_string()),
        started: StartedCache::default(),
        known_below: model
            .tables
            .iter()
            .flat_map(|t| {
                let mut ids = vec![t.obj_id];
                if let Some(p) = &t.partitioning {
                    ids.extend(p.partitions.iter().map(|x| x.obj_id));
                }
                ids
            })
            .max()
            .map_or(0, |m| m + 1),
    })
}

impl Session {
    /// A session over everything the model holds, for inspection and tests.
    pub fn unrestricted(model: &Model) -> Session {
        Session {
            files: Vec::new(),
            start_scn: 0,
            end_scn: Scn::MAX,
            options: MiningOptions {
                dict_from_online_catalog: true,
                ..MiningOptions::default()
            },
            dropped: model.dropped_objects.clone(),
            known_below: u64::MAX,
            container: None,
            started: StartedCache::default(),
        }
    }

    /// Every added file still readable; a deleted archive raises ORA-01291 and
    /// an overwritten online log ORA-00310, as Oracle does when it reads them.
    pub fn check_files(&self, model: &Model) -> Result<(), SourceError> {
        for f in &self.files {
            if f.online {
                let still = model.threads.iter().any(|t| {
                    t.thread == f.thread
                        && t.groups
                            .iter()
                            .any(|g| g.seq == Some(f.seq) && g.members.contains(&f.name))
                });
                if !still {
                    let now = model
                        .threads
                        .iter()
                        .flat_map(|t| t.groups.iter())
                        .find(|g| g.members.contains(&f.name))
                        .and_then(|g| g.seq)
                        .unwrap_or(0);
                    return Err(SourceError::oracle(
                        310,
                        format!("archived log contains sequence {now}; sequence {} required (online log {} was reused)", f.seq, f.name),
                    ));
                }
            } else if !model
                .archived
                .iter()
                .any(|a| a.is_available() && a.name.as_deref() == Some(f.name.as_str()))
            {
                return Err(SourceError::oracle(
                    1291,
                    format!("missing logfile: {} (thread {} sequence {}) was deleted before it was read", f.name, f.thread, f.seq),
                ));
            }
        }
        Ok(())
    }

    /// The rows `SELECT ... FROM V$LOGMNR_CONTENTS WHERE ...` returns, in view order.
    pub fn query(&mut self, model: &Model, q: &ContentsQuery) -> Vec<LogMinerRow> {
        let files: HashSet<(u16, u64)> = self.files.iter().map(|f| (f.thread, f.seq)).collect();
        let lo = q.from_scn.max(self.start_scn.saturating_sub(1));
        let hi = q.to_scn.min(self.end_scn);
        let owners: Vec<String> = q.owners.iter().map(|o| o.to_ascii_uppercase()).collect();
        let dm = model.scenario.is_dm();
        let mut rows: Vec<LogMinerRow> = Vec::new();
        let mut started_recent = self.started_in_session(model, &files, lo);
        let started_before = &self.started.xids;
        let start_idx = model.records.partition_point(|r| r.scn <= lo);
        for rec in model.records.range(start_idx..) {
            if rec.scn > hi {
                break;
            }
            if !files.contains(&(rec.thread, rec.seq)) {
                continue;
            }
            // Redo still in the instance's log buffer is not in the file.
            let written = model
                .threads
                .iter()
                .find(|t| t.thread == rec.thread)
                .is_some_and(|t| rec.scn <= t.last_redo_scn);
            if !written {
                continue;
            }
            if dm {
                if super::dm::shows(model, rec) && super::dm::readable(model, rec) {
                    // DM8 answers the DM source's own query, and the
                    // source maps DM8's codes as it maps a live row's
                    // (an export keeps DM8's).
                    let mut row = super::dm::render(model, rec);
                    let code = row.operation_code.code();
                    if dm_sql::contents_selects(code, row.seg_owner.as_deref(), &q.owners) {
                        if !model.dm_own_codes {
                            row.operation_code = dm_rows::operation_code(code);
                        }
                        super::dm::split(row, &mut rows);
                    }
                }
                continue;
            }
            let mut row = self.render(model, rec);
            let start = matches!(rec.body, Body::Start);
            if start {
                started_recent.insert(rec.xid().clone());
            }
            let start_mined =
                start || started_before.contains(rec.xid()) || started_recent.contains(rec.xid());
            if !start_mined && is_undo(&row) {
                row.xid = undo_xid(&row.xid);
            }
            // The user is in the transaction's START record: LogMiner
            // shows it on the rows mined with that record, `UNKNOWN` on
            // the others (Debezium DBZ-8884, DBZ-3978).
            if !start_mined || !model.logs_user() {
                row.username = Some(UNKNOWN_USER.to_string());
            }
            if let Some(c) = &self.container {
                if row.src_con_name.as_deref() != Some(c.as_str()) {
                    continue;
                }
            }
            if let Some(pdb) = &q.pdb {
                if row.src_con_name.as_deref() != Some(pdb.as_str()) {
                    continue;
                }
            }
            if passes(&row, &owners) {
                split_csf(row, &mut rows);
            }
        }
        if self.options.committed_data_only {
            rows = committed_only(rows);
        }
        rows
    }

    /// XIDs whose transaction began inside the session's SCN range before
    /// the query's lower bound. LogMiner resolves the full XID of an undo
    /// row only when the transaction's start lies inside the session's own
    /// range; otherwise it knows the undo segment and slot but not the
    /// sequence (Debezium DBZ-5090, debezium#1145).
    fn started_in_session(
        &mut self,
        model: &Model,
        files: &HashSet<(u16, u64)>,
        lo: Scn,
    ) -> HashSet<Arc<str>> {
        if self.started.through.is_some_and(|t| t > lo) {
            self.started = StartedCache::default();
        }
        let is_start =
            |rec: &Rec| matches!(rec.body, Body::Start) && files.contains(&(rec.thread, rec.seq));
        let from = model.records.partition_point(|r| r.scn < self.start_scn);
        let from = match self.started.through {
            Some(t) => from.max(model.records.partition_point(|r| r.scn <= t)),
            None => from,
        };
        let settled = lo.min(model.scn.saturating_sub(1));
        let mut recent = HashSet::new();
        for rec in model.records.range(from..) {
            if rec.scn > lo {
                break;
            }
            if !is_start(rec) {
                continue;
            }
            if rec.scn <= settled {
                self.started.xids.insert(rec.xid().clone());
            } else {
                recent.insert(rec.xid().clone());
            }
        }
        if self.started.through.is_none_or(|t| t < settled) {
            self.started.through = Some(settled);
        }
        recent
    }

    /// Keeps what `previous` learnt of the transactions started in its
    /// range when this session mines the same logs from the same SCN: the
    /// engine restarts LogMiner each poll with only the upper bound moved.
    pub fn carry_over(&mut self, previous: Session) {
        let logs = |s: &Session| {
            let mut l: Vec<(u16, u64)> = s.files.iter().map(|f| (f.thread, f.seq)).collect();
            l.sort_unstable();
            l
        };
        if previous.start_scn == self.start_scn && logs(&previous) == logs(self) {
            self.started = previous.started;
        }
    }

    /// Whether the session's dictionary maps the object: without
    /// DICT_FROM_ONLINE_CATALOG (and no other dictionary) nothing is known.
    fn known(&self, obj: u64) -> bool {
        self.options.dict_from_online_catalog
            && !self.dropped.contains(&obj)
            && obj < self.known_below
    }

    /// One redo record as one (unsplit) row.
    pub fn render(&self, model: &Model, rec: &Rec) -> LogMinerRow {
        let inst = &model.scenario.instance;
        let mut row = LogMinerRow {
            scn: rec.scn,
            timestamp: Some(rec.time),
            xid: rec.xid().to_string(),
            username: Some(rec.username().to_string()),
            rs_id: Some(rec.rs_id()),
            // Records are never split across SQL statements here.
            ssn: 0,
            thread: rec.thread,
            sequence: rec.seq,
            src_con_name: if inst.cdb {
                rec.pdb().as_ref().map(|p| p.to_string())
            } else {
                None
            },
            row_id: Some(NO_ROWID.to_string()),
            data_obj: Some(0),
            data_objd: Some(0),
            ..LogMinerRow::default()
        };
        match &rec.body {
            Body::Start => {
                row.operation_code = OperationCode::Start;
                row.sql_redo = Some("set transaction read write;".into());
            }
            Body::ReplicationMarker => {
                row.operation_code = OperationCode::ReplicationMarker;
                row.sql_redo = None;
            }
            Body::Commit { start_scn } => {
                row.operation_code = OperationCode::Commit;
                row.sql_redo = Some("commit;".into());
                row.start_scn = Some(*start_scn);
                row.commit_scn = Some(rec.scn);
            }
            Body::Rollback { start_scn } => {
                row.operation_code = OperationCode::Rollback;
                row.sql_redo = Some("rollback;".into());
                row.start_scn = Some(*start_scn);
            }
            Body::Ddl { table, sql } => {
                row.operation_code = OperationCode::Ddl;
                if let Some(t) = model.tables.get(*table) {
                    row.seg_owner = Some(t.name.owner.clone());
                    row.table_name = Some(t.name.table.clone());
                    row.data_obj = Some(t.obj_id);
                    row.data_objd = Some(t.data_obj_id);
                }
                row.sql_redo = Some(sql.clone());
            }
            Body::Dml { .. } => self.render_dml(model, rec, &mut row),
            Body::LobLocator { .. } => {
                render_lob_locator(model, rec, &mut row, self.options.no_rowid_in_stmt)
            }
            Body::Piece { .. } => render_piece(model, rec, &mut row),
            Body::LobWrite { .. } => render_lob_write(model, rec, &mut row),
        }
        row
    }

    /// A DML row: its object, ROWID and undo flag, and its statement as the
    /// session's dictionary, the logging level and the table alias draw make it.
    fn render_dml(&self, model: &Model, rec: &Rec, row: &mut LogMinerRow) {
        let Body::Dml {
            table,
            obj,
            objd,
            op,
            rollback,
            rowid,
            before,
            after,
            changed,
        } = &rec.body
        else {
            return;
        };
        row.operation_code = op.operation_code();
        row.rollback = *rollback;
        row.row_id = Some(rowid.to_string());
        row.data_obj = Some(*obj);
        row.data_objd = Some(*objd);
        let Some(t) = model.tables.get(*table) else {
            return;
        };
        let known = self.known(*obj);
        let (owner, name) = if known {
            (t.name.owner.clone(), t.name.table.clone())
        } else {
            ("UNKNOWN".to_string(), format!("OBJ# {obj}"))
        };
        row.seg_owner = Some(owner.clone());
        row.table_name = Some(name.clone());
        if !known {
            row.info = Some("Dictionary Version Mismatch".into());
        }
        let statement = DmlStatement {
            table: t,
            known,
            owner: &owner,
            name: &name,
            alias: known
                && !matches!(op, DmlOp::Insert)
                && drawn(rec, model.scenario.logminer.table_alias_pct),
            nls: &model.nls,
            no_rowid: self.options.no_rowid_in_stmt,
            rowid,
        };
        row.sql_redo = Some(match op {
            DmlOp::Insert => statement.insert(image(after)),
            DmlOp::Update => statement.update(
                model.supp_level(*table),
                image(before),
                image(after),
                changed,
            ),
            DmlOp::Delete => statement.delete(image(before)),
        });
    }
}

/// A row image's values; none when the record has no such image.
fn image(values: &Option<Arc<Vec<Value>>>) -> &[Value] {
    values.as_deref().map(|v| v.as_slice()).unwrap_or(&[])
}

/// A LOB locator row: the PL/SQL block that selects the LOB for update.
fn render_lob_locator(model: &Model, rec: &Rec, row: &mut LogMinerRow, no_rowid: bool) {
    let Body::LobLocator {
        table,
        obj,
        objd,
        column,
        rowid,
        row: values,
    } = &rec.body
    else {
        return;
    };
    row.operation_code = OperationCode::SelectLobLocator;
    row.row_id = Some(rowid.to_string());
    row.data_obj = Some(*obj);
    row.data_objd = Some(*objd);
    if let Some(t) = model.tables.get(*table) {
        row.seg_owner = Some(t.name.owner.clone());
        row.table_name = Some(t.name.table.clone());
        let statement = DmlStatement {
            table: t,
            known: true,
            owner: &t.name.owner,
            name: &t.name.table,
            alias: false,
            nls: &model.nls,
            no_rowid,
            rowid,
        };
        let level = model.supp_level(*table);
        row.sql_redo = Some(statement.lob_locator(level, *column, values));
    }
}

/// A row carrying part of a value (LOB_TRIM, XML DOC, 32K), its SQL_REDO
/// already written.
fn render_piece(model: &Model, rec: &Rec, row: &mut LogMinerRow) {
    let Body::Piece {
        table,
        obj,
        objd,
        rowid,
        code,
        sql,
    } = &rec.body
    else {
        return;
    };
    row.operation_code = OperationCode::from_code(*code);
    row.row_id = Some(rowid.to_string());
    row.data_obj = Some(*obj);
    row.data_objd = Some(*objd);
    // Oracle's XMLType example shows STATUS 5 on XML DOC rows:
    // the statement needs the rows after it to be complete.
    if matches!(code, 68 | 70 | 71) {
        row.status = 5;
    }
    if let Some(t) = model.tables.get(*table) {
        row.seg_owner = Some(t.name.owner.clone());
        row.table_name = Some(t.name.table.clone());
    }
    row.sql_redo = sql.clone();
}

/// A LOB write row: one piece of the LOB's content.
fn render_lob_write(model: &Model, rec: &Rec, row: &mut LogMinerRow) {
    let Body::LobWrite {
        table,
        obj,
        objd,
        column,
        rowid,
        data,
        offset,
    } = &rec.body
    else {
        return;
    };
    row.operation_code = OperationCode::LobWrite;
    row.row_id = Some(rowid.to_string());
    row.data_obj = Some(*obj);
    row.data_objd = Some(*objd);
    if let Some(t) = model.tables.get(*table) {
        row.seg_owner = Some(t.name.owner.clone());
        row.table_name = Some(t.name.table.clone());
        row.sql_redo = Some(sql_redo::lob_write(t, *column, data, *offset));
    }
}

/// Whether a row passes the contents query's owner filter: control rows
/// always, DML of the listed owners (or of any but SYS and SYSTEM).
fn passes(row: &LogMinerRow, owners: &[String]) -> bool {
    match row.operation_code {
        OperationCode::Start
        | OperationCode::Commit
        | OperationCode::Rollback
        | OperationCode::ReplicationMarker
        | OperationCode::Ddl => true,
        _ => {
            let owner = row.seg_owner.as_deref().unwrap_or("");
            // Rows LogMiner cannot map to a dictionary object carry
            // owner UNKNOWN; they pass so the engine can report the
            // mismatch (clients add `OR SEG_OWNER = 'UNKNOWN'`).
            owner == "UNKNOWN"
                || if owners.is_empty() {
                    !matches!(owner, "SYS" | "SYSTEM")
                } else {
                    owners.iter().any(|o| crate::source::like(o, owner))
                }
        }
    }
}

/// Whether `pct` percent of rows show a form, decided by the row itself
/// (its SCN, RS_ID and SSN) so every query renders it the same way.
fn drawn(rec: &Rec, pct: f64) -> bool {
    if pct <= 0.0 {
        return false;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let rs_id = rec.rs_id();
    for b in rec
        .scn
        .to_le_bytes()
        .iter()
        .chain(rs_id.as_bytes())
        // Where the record's SSN (always 0) once went: the same bytes keep
        // every scenario's draws, and so its rows, as they were.
        .chain(&0u64.to_le_bytes())
    {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    ((h % 10_000) as f64) < pct * 100.0
}

/// A ROLLBACK (36) row or an undo row (`ROLLBACK = 1`).
fn is_undo(row: &LogMinerRow) -> bool {
    row.operation_code == OperationCode::Rollback || row.operation_code.is_dml() && row.rollback
}

/// The XID LogMiner shows on an undo row whose transaction started before
/// the session: the RAW(8) keeps USN and SLOT (first 8 hex digits) and the
/// sequence (last 8) becomes FFFFFFFF.
fn undo_xid(xid: &str) -> String {
    match xid.get(..8) {
        Some(usn_slot) if xid.len() == 16 => format!("{usn_slot}FFFFFFFF"),
        _ => xid.to_string(),
    }
}

/// Splits SQL_REDO above 4000 bytes into CSF pieces at char boundaries.
pub fn split_csf(row: LogMinerRow, out: &mut Vec<LogMinerRow>) {
    let Some(sql) = row.sql_redo.as_deref() else {
        out.push(row);
        return;
    };
    if sql.len() <= CSF_PIECE_BYTES {
        out.push(row);
        return;
    }
    let sql = sql.to_string();
    let mut start = 0;
    while start < sql.len() {
        let mut end = (start + CSF_PIECE_BYTES).min(sql.len());
        while !sql.is_char_boundary(end) {
            end -= 1;
        }
        let mut piece = row.clone();
        piece.sql_redo = Some(sql[start..end].to_string());
        piece.csf = end < sql.len();
        out.push(piece);
        start = end;
    }
}

/// `COMMITTED_DATA_ONLY`: each committed transaction's rows together, in
/// commit order; rolled-back and still-open transactions are left out.
fn committed_only(rows: Vec<LogMinerRow>) -> Vec<LogMinerRow> {
    let mut by_xid: HashMap<String, Vec<LogMinerRow>> = HashMap::new();
    let mut commits: Vec<(Scn, String, Option<Scn>)> = Vec::new();
    for r in rows {
        if r.operation_code == OperationCode::Commit {
            commits.push((r.scn, r.xid.clone(), r.start_scn));
        }
        by_xid.entry(r.xid.clone()).or_default().push(r);
    }
    let mut out = Vec::new();
    for (commit_scn, xid, start_scn) in commits {
        let Some(group) = by_xid.remove(&xid) else {
            continue;
        };
        for mut r in group {
            r.commit_scn = Some(commit_scn);
            r.start_scn = start_scn;
            out.push(r);
        }
    }
    out
}

/// The files a client would add for a session starting at `start_scn`:
/// available archives of the first destination with NEXT_CHANGE# above it,
/// then the online logs not yet archived there.
pub fn plan_logs(model: &Model, start_scn: Scn) -> Vec<String> {
    let dest = model
        .scenario
        .redo
        .destinations
        .iter()
        .find(|d| d.status == "VALID")
        .map(|d| d.id);
    let mut out = Vec::new();
    let mut archived_seqs: HashSet<(u16, u64)> = HashSet::new();
    let mut arch: Vec<_> = model
        .archived
        .iter()
        .filter(|a| Some(a.dest_id) == dest && a.is_available() && a.next_change > start_scn)
        .collect();
    arch.sort_by_key(|a| (a.thread, a.sequence));
    for a in arch {
        if let Some(n) = &a.name {
            out.push(n.clone());
            archived_seqs.insert((a.thread, a.sequence));
        }
    }
    for t in &model.threads {
        let mut groups: Vec<_> = t.groups.iter().filter(|g| g.seq.is_some()).collect();
        groups.sort_by_key(|g| g.seq);
        for g in groups {
            let Some(seq) = g.seq else { continue };
            if g.next_change > start_scn && !archived_seqs.contains(&(t.thread, seq)) {
                if let Some(m) = g.readable_members().into_iter().next() {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Rows still to hand out by `fetch`.
pub type Pending = VecDeque<LogMinerRow>;
