//! Rows of DM8's views turned into cdcctl's types: pure functions over
//! text rows, each tested without a server.
//!
//! The driver hands typed values; [`value_text`] turns each into the text
//! the Oracle backend's `TO_CHAR` formats give (dates as
//! `YYYY-MM-DD HH24:MI:SS`, bytes as upper-case hex), so the same
//! [`Reader`] reads both backends' rows.

use chrono::NaiveDateTime;
use dm_pure::Value;

use crate::engine::row::{LogMinerRow, OperationCode, Scn};
use crate::source::inventory::{ArchiveDestStatus, ArchivedLog, OnlineLog, RedoThread};
use crate::source::oracle::rows::Reader;
use crate::source::{DmArchDest, LogInventory, OpenTransaction, SourceError};

use super::sql::contents_col as c;

/// A row as text, `None` for NULL.
pub type TextRow = Vec<Option<String>>;

/// Upper-case hex of bytes, as XID and RAW values are written.
pub fn hex_upper(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// One driver value as text. Dates and times lose their fraction and zone:
/// every date the backend reads is a catalog or log time, read to the
/// second like Oracle's `DATE`.
pub fn value_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::TinyInt(v) => v.to_string(),
        Value::SmallInt(v) => v.to_string(),
        Value::Int(v) => v.to_string(),
        Value::BigInt(v) => v.to_string(),
        Value::Real(v) => v.to_string(),
        Value::Double(v) => v.to_string(),
        Value::Decimal(s) | Value::Str(s) | Value::Interval(s) => s.clone(),
        Value::Bytes(b) | Value::Raw(b) => hex_upper(b),
        Value::Date(d) => d.to_string(),
        Value::Time(t) => format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
        Value::DateTime(dt) => format!(
            "{} {:02}:{:02}:{:02}",
            dt.date, dt.time.hour, dt.time.minute, dt.time.second
        ),
    })
}

/// A row of [`super::sql::ARCH_FILES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchFile {
    pub path: String,
    pub seq: u64,
    /// `ARCH_LSN`: the first LSN the file holds.
    pub first_lsn: Scn,
    /// `CLSN`: the last LSN the file holds (still growing while ACTIVE).
    pub last_lsn: Scn,
    pub created: Option<NaiveDateTime>,
    pub closed: Option<NaiveDateTime>,
    /// `ACTIVE` while being written, `INACTIVE` once switched.
    pub status: String,
    pub bytes: u64,
}

impl ArchFile {
    pub fn is_active(&self) -> bool {
        self.status.eq_ignore_ascii_case("ACTIVE")
    }
}

/// Rows of [`super::sql::ARCH_FILES`], read by column name. `FILE_SIZE`
/// is optional (0 without it): only the size report needs it, and a
/// release without the column still mines.
pub fn arch_files(columns: &[String], rows: &[TextRow]) -> Result<Vec<ArchFile>, SourceError> {
    let col = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
    let need = |name: &str| {
        col(name).ok_or_else(|| SourceError::Invalid(format!("V$ARCH_FILE has no {name} column")))
    };
    let (path, seq, first, last, status) = (
        need("PATH")?,
        need("ARCH_SEQ")?,
        need("ARCH_LSN")?,
        need("CLSN")?,
        need("STATUS")?,
    );
    let (created, closed, size) = (col("CREATE_TIME"), col("CLOSE_TIME"), col("FILE_SIZE"));
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "V$ARCH_FILE");
            let time = |i: Option<usize>, name: &str| match i {
                Some(i) => r.datetime(i, name),
                None => Ok(None),
            };
            Ok(ArchFile {
                path: r.text(path, "PATH")?,
                seq: r.u64(seq, "ARCH_SEQ")?,
                first_lsn: r.u64_or_zero(first, "ARCH_LSN")?,
                last_lsn: r.u64_or_zero(last, "CLSN")?,
                created: time(created, "CREATE_TIME")?,
                closed: time(closed, "CLOSE_TIME")?,
                status: r.text_or_empty(status)?.trim().to_ascii_uppercase(),
                bytes: match size {
                    Some(i) => r.u64_or_zero(i, "FILE_SIZE")?,
                    None => 0,
                },
            })
        })
        .collect()
}

/// Rows of [`super::sql::ARCH_DESTS`].
pub fn arch_dests(rows: &[TextRow]) -> Result<Vec<DmArchDest>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "V$DM_ARCH_INI");
            Ok(DmArchDest {
                arch_name: r.text_or_empty(0)?,
                arch_type: r.text_or_empty(1)?.trim().to_ascii_uppercase(),
                arch_dest: r.text_or_empty(2)?,
                arch_space_limit: r.u64_or_zero(3, "ARCH_SPACE_LIMIT")?,
                arch_is_valid: r.flag(4)?,
            })
        })
        .collect()
}

/// DM8's archive destinations as Oracle's `V$ARCHIVE_DEST_STATUS` rows:
/// the LOCAL one is destination 1, where [`inventory`] puts every archived
/// file; the others follow in their order.
pub fn destinations(dests: &[DmArchDest]) -> Vec<ArchiveDestStatus> {
    let mut next = 2;
    let mut local_seen = false;
    dests
        .iter()
        .map(|d| {
            let dest_id = if d.arch_type == "LOCAL" && !local_seen {
                local_seen = true;
                1
            } else {
                next += 1;
                next - 1
            };
            ArchiveDestStatus {
                dest_id,
                dest_name: d.arch_name.clone(),
                status: if d.arch_is_valid { "VALID" } else { "ERROR" }.to_string(),
                dest_type: d.arch_type.clone(),
                destination: Some(d.arch_dest.clone()).filter(|s| !s.is_empty()),
            }
        })
        .collect()
}

/// The log inventory of DM8 in Oracle's terms, so the planner runs
/// unchanged: switched archive files are `archived` (destination 1,
/// thread 1), the file still being written is the CURRENT online log of
/// thread 1, and one open thread ends where that file ends. DM8's online
/// redo files are never listed: DBMS_LOGMNR cannot open them.
///
/// The thread's last redo is the lower of `CUR_LSN` and one past the
/// active file's `CLSN`: redo the archive does not hold yet cannot be
/// mined, and a window past it would read nothing where rows will appear.
pub fn inventory(
    files: &[ArchFile],
    cur_lsn: Scn,
    ckpt_lsn: Scn,
    dests: &[DmArchDest],
) -> LogInventory {
    let archived = files
        .iter()
        .filter(|f| !f.is_active())
        .map(|f| ArchivedLog {
            name: Some(f.path.clone()),
            dest_id: 1,
            thread: 1,
            sequence: f.seq,
            first_change: f.first_lsn,
            next_change: f.last_lsn.saturating_add(1),
            first_time: f.created,
            next_time: f.closed,
            status: "A".into(),
            deleted: false,
            archived: true,
            resetlogs_change: 0,
            bytes: f.bytes,
        })
        .collect();
    let active = files.iter().rev().find(|f| f.is_active());
    let online = active
        .map(|f| OnlineLog {
            group: 1,
            thread: 1,
            sequence: f.seq,
            bytes: f.bytes,
            members: 1,
            status: "CURRENT".into(),
            archived: false,
            first_change: f.first_lsn,
            next_change: None,
            first_time: f.created,
            member_files: vec![f.path.clone()],
        })
        .into_iter()
        .collect();
    let last_redo = match active {
        Some(f) => cur_lsn.min(f.last_lsn.saturating_add(1)),
        None => cur_lsn,
    };
    let threads = vec![RedoThread {
        thread: 1,
        status: "OPEN".into(),
        enabled: "PUBLIC".into(),
        current_sequence: active.or(files.last()).map_or(0, |f| f.seq),
        last_redo_scn: last_redo,
        enable_change: 0,
        disable_change: 0,
        checkpoint_change: ckpt_lsn,
    }];
    LogInventory {
        resetlogs_change: 0,
        online,
        archived,
        destinations: destinations(dests),
        threads,
    }
}

/// The row of [`super::sql::CURRENT_LSN`]: `CUR_LSN`, `CKPT_LSN` and the clock.
pub fn current_lsn(row: &TextRow) -> Result<(Scn, Scn, NaiveDateTime), SourceError> {
    let r = Reader::new(row, "V$RLOG");
    let time = r
        .datetime(2, "SYSDATE")?
        .ok_or_else(|| SourceError::Invalid("V$RLOG: SYSDATE came back NULL".into()))?;
    Ok((r.u64(0, "CUR_LSN")?, r.u64_or_zero(1, "CKPT_LSN")?, time))
}

/// `XID` as 16 upper-case hex digits: BINARY(8) arrives as bytes (hex
/// already) or as `0x...` text.
pub fn xid_text(raw: &str) -> Result<String, SourceError> {
    let hex = raw
        .trim()
        .strip_prefix("0x")
        .or_else(|| raw.trim().strip_prefix("0X"))
        .unwrap_or(raw.trim())
        .to_ascii_uppercase();
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SourceError::Invalid(format!(
            "V$LOGMNR_CONTENTS.XID is `{raw}`, not 8 bytes of hex"
        )));
    }
    Ok(format!("{hex:0>16}"))
}

/// The archive sequence an SCN was read from: the last added file that
/// starts at or below it.
pub fn sequence_of(files: &[ArchFile], scn: Scn) -> u64 {
    files
        .iter()
        .filter(|f| f.first_lsn <= scn)
        .max_by_key(|f| f.first_lsn)
        .map_or(0, |f| f.seq)
}

/// DM8's XA_COMMIT: the commit of an XA branch, which shows no COMMIT (7).
pub const XA_COMMIT: u16 = 38;
/// DM8's BATCH_UPDATE: an UPDATE a batched statement logged. Its SQL_REDO
/// is read as an UPDATE's; one that is not an UPDATE statement stops
/// capture as any unparseable change does.
pub const BATCH_UPDATE: u16 = 4;
/// DM8's SEQ MODIFY: a sequence's next cached value, not a row change.
pub const SEQ_MODIFY: u16 = 37;

/// DM8's `OPERATION_CODE` in the engine's (Oracle's) terms. Codes DM8
/// shares with Oracle keep their meaning; a code neither knows stays
/// `Other`, which the engine reports.
pub fn operation_code(code: u16) -> OperationCode {
    match code {
        XA_COMMIT => OperationCode::Commit,
        BATCH_UPDATE => OperationCode::Update,
        // A sequence step changes no captured table; ignored as INTERNAL
        // rows are, so sequences used by every insert do not flood findings.
        SEQ_MODIFY => OperationCode::Internal,
        other => OperationCode::from_code(other),
    }
}

/// One `V$LOGMNR_CONTENTS` row of [`super::sql::contents_query`].
/// `START_SCN` and `COMMIT_SCN` are not known to be filled on DM8 and stay
/// unset; `files` are the session's files, for the row's sequence.
pub fn contents_row(row: &TextRow, files: &[ArchFile]) -> Result<LogMinerRow, SourceError> {
    if row.len() < c::COUNT {
        return Err(SourceError::Invalid(format!(
            "V$LOGMNR_CONTENTS returned {} columns, {} were selected",
            row.len(),
            c::COUNT
        )));
    }
    let r = Reader::new(row, "V$LOGMNR_CONTENTS");
    let op: u16 = r.small(c::OPERATION_CODE, "OPERATION_CODE")?;
    let xid = match r.opt_text(c::XID)? {
        Some(raw) => xid_text(&raw)?,
        None => String::new(),
    };
    let scn = r.u64(c::SCN, "SCN")?;
    Ok(LogMinerRow {
        scn,
        start_scn: None,
        commit_scn: None,
        timestamp: r.datetime(c::TIMESTAMP, "TIMESTAMP")?,
        xid,
        operation_code: operation_code(op),
        rollback: r.u64_or_zero(c::ROLL_BACK, "ROLL_BACK")? == 1,
        seg_owner: r.opt_text(c::SEG_OWNER)?,
        table_name: r.opt_text(c::TABLE_NAME)?,
        row_id: r.opt_text(c::ROW_ID)?,
        username: r.opt_text(c::USERNAME)?,
        rs_id: r.opt_text(c::RS_ID)?,
        ssn: r.u64_or_zero(c::SSN, "SSN")?,
        csf: r.u64_or_zero(c::CSF, "CSF")? == 1,
        sql_redo: r.opt_text(c::SQL_REDO)?,
        status: 0,
        info: None,
        thread: 1,
        sequence: sequence_of(files, scn),
        data_obj: None,
        data_objd: None,
        src_con_name: None,
    })
}

/// Rows of [`super::sql::OPEN_TRANSACTIONS`], read by column name: `ID`
/// is the transaction id (V$LOGMNR_CONTENTS.XID as a number), and
/// `START_LSN`, when a release has it, is where the transaction began.
/// Without it the start is 0, unknown: the engine then mines no transaction
/// from before its own start point.
///
/// Every row is an open transaction whatever its `STATUS`: one waiting for
/// a lock, rolling back or prepared (an XA branch) has not ended, and the
/// engine takes a transaction missing from this list as rolled back.
pub fn transactions(
    columns: &[String],
    rows: &[TextRow],
) -> Result<Vec<OpenTransaction>, SourceError> {
    let col = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
    let id = col("ID").ok_or_else(|| SourceError::Invalid("V$TRX has no ID column".into()))?;
    let start = col("START_LSN");
    let mut out = Vec::new();
    for row in rows {
        let r = Reader::new(row, "V$TRX");
        let trx = r.u64(id, "ID")?;
        out.push(OpenTransaction {
            xid: format!("{trx:016X}"),
            start_scn: match start {
                Some(i) => r.u64_or_zero(i, "START_LSN")?,
                None => 0,
            },
            start_time: None,
            used_urec: 0,
            username: None,
            con_name: None,
        });
    }
    out.sort_by(|a, b| a.start_scn.cmp(&b.start_scn).then(a.xid.cmp(&b.xid)));
    Ok(out)
}
