//! Rows of Oracle's views turned into cdcctl's types.
//!
//! Every query of the backend selects text (numbers through `TO_CHAR`,
//! dates with fixed formats, RAW through `RAWTOHEX`), so one small trait,
//! [`RowAccess`], is all a mapping needs, and each mapping is a pure
//! function tested with a fake row.

use chrono::NaiveDateTime;

use crate::engine::row::{LogMinerRow, OperationCode, Scn};
use crate::source::inventory::{ArchiveDestStatus, ArchivedLog, OnlineLog, RedoThread};
use crate::source::SourceError;

use super::sql::contents_col as c;

/// Column access by position, values as text (`None` = NULL).
pub trait RowAccess {
    fn text(&self, idx: usize) -> Result<Option<String>, SourceError>;
}

impl RowAccess for ::oracle::Row {
    fn text(&self, idx: usize) -> Result<Option<String>, SourceError> {
        self.get::<usize, Option<String>>(idx)
            .map_err(|e| super::error::map_error(&e))
    }
}

/// A row held in memory: what tests and the fake source use.
impl RowAccess for Vec<Option<String>> {
    fn text(&self, idx: usize) -> Result<Option<String>, SourceError> {
        self.get(idx).cloned().ok_or_else(|| {
            SourceError::Invalid(format!(
                "row has {} columns, column {} was asked for",
                self.len(),
                idx + 1
            ))
        })
    }
}

/// Reads typed values out of a text row, naming the view and column in
/// every error.
pub struct Reader<'a, R: RowAccess + ?Sized> {
    row: &'a R,
    view: &'static str,
}

impl<'a, R: RowAccess + ?Sized> Reader<'a, R> {
    pub fn new(row: &'a R, view: &'static str) -> Self {
        Reader { row, view }
    }

    pub fn opt_text(&self, idx: usize) -> Result<Option<String>, SourceError> {
        self.row.text(idx)
    }

    pub fn text(&self, idx: usize, column: &str) -> Result<String, SourceError> {
        self.row.text(idx)?.ok_or_else(|| {
            SourceError::Invalid(format!(
                "{}.{column} is NULL where a value is required",
                self.view
            ))
        })
    }

    pub fn text_or_empty(&self, idx: usize) -> Result<String, SourceError> {
        Ok(self.row.text(idx)?.unwrap_or_default())
    }

    pub fn opt_u64(&self, idx: usize, column: &str) -> Result<Option<u64>, SourceError> {
        match self.row.text(idx)? {
            None => Ok(None),
            Some(t) => t.trim().parse::<u64>().map(Some).map_err(|_| {
                SourceError::Invalid(format!(
                    "{}.{column} is `{t}`, not a whole non-negative number",
                    self.view
                ))
            }),
        }
    }

    pub fn u64(&self, idx: usize, column: &str) -> Result<u64, SourceError> {
        self.opt_u64(idx, column)?.ok_or_else(|| {
            SourceError::Invalid(format!(
                "{}.{column} is NULL where a number is required",
                self.view
            ))
        })
    }

    pub fn u64_or_zero(&self, idx: usize, column: &str) -> Result<u64, SourceError> {
        Ok(self.opt_u64(idx, column)?.unwrap_or(0))
    }

    pub fn small<T: TryFrom<u64>>(&self, idx: usize, column: &str) -> Result<T, SourceError> {
        let n = self.u64_or_zero(idx, column)?;
        T::try_from(n).map_err(|_| {
            SourceError::Invalid(format!("{}.{column} = {n} is out of range", self.view))
        })
    }

    pub fn opt_small<T: TryFrom<u64>>(
        &self,
        idx: usize,
        column: &str,
    ) -> Result<Option<T>, SourceError> {
        match self.opt_u64(idx, column)? {
            None => Ok(None),
            Some(n) => T::try_from(n).map(Some).map_err(|_| {
                SourceError::Invalid(format!("{}.{column} = {n} is out of range", self.view))
            }),
        }
    }

    pub fn i32(&self, idx: usize, column: &str) -> Result<i32, SourceError> {
        match self.row.text(idx)? {
            None => Ok(0),
            Some(t) => t.trim().parse::<i32>().map_err(|_| {
                SourceError::Invalid(format!(
                    "{}.{column} is `{t}`, not a whole number",
                    self.view
                ))
            }),
        }
    }

    pub fn opt_i32(&self, idx: usize, column: &str) -> Result<Option<i32>, SourceError> {
        match self.row.text(idx)? {
            None => Ok(None),
            Some(_) => self.i32(idx, column).map(Some),
        }
    }

    /// `YES`/`Y`/`1` → true; anything else (NULL included) → false.
    pub fn flag(&self, idx: usize) -> Result<bool, SourceError> {
        Ok(matches!(
            self.row.text(idx)?.as_deref().map(str::trim),
            Some("YES" | "Y" | "1" | "TRUE")
        ))
    }

    /// A date read with `TO_CHAR(x, 'YYYY-MM-DD HH24:MI:SS')`.
    pub fn datetime(&self, idx: usize, column: &str) -> Result<Option<NaiveDateTime>, SourceError> {
        match self.row.text(idx)? {
            None => Ok(None),
            Some(t) => NaiveDateTime::parse_from_str(t.trim(), "%Y-%m-%d %H:%M:%S")
                .map(Some)
                .map_err(|_| {
                    SourceError::Invalid(format!(
                        "{}.{column} is `{t}`, not a YYYY-MM-DD HH24:MI:SS date",
                        self.view
                    ))
                }),
        }
    }
}

/// The `V$DATABASE` row of [`super::sql::INCARNATION`].
pub fn incarnation<R: RowAccess + ?Sized>(
    row: &R,
) -> Result<crate::source::Incarnation, SourceError> {
    let r = Reader::new(row, "V$DATABASE");
    Ok(crate::source::Incarnation {
        resetlogs_change: r.u64(0, "RESETLOGS_CHANGE#")?,
        resetlogs_time: r
            .datetime(1, "RESETLOGS_TIME")?
            .ok_or_else(|| SourceError::Invalid("V$DATABASE.RESETLOGS_TIME is NULL".into()))?,
    })
}

/// One `V$LOGMNR_CONTENTS` row read by [`super::sql::contents_query`].
pub fn contents_row<R: RowAccess + ?Sized>(row: &R) -> Result<LogMinerRow, SourceError> {
    let r = Reader::new(row, "V$LOGMNR_CONTENTS");
    let op: u16 = r.small(c::OPERATION_CODE, "OPERATION_CODE")?;
    let xid = r.text_or_empty(c::XID)?.to_ascii_uppercase();
    if !(xid.is_empty() || xid.len() == 16 && xid.bytes().all(|b| b.is_ascii_hexdigit())) {
        return Err(SourceError::Invalid(format!(
            "V$LOGMNR_CONTENTS.XID is `{xid}`, not 16 hex digits"
        )));
    }
    Ok(LogMinerRow {
        scn: r.u64(c::SCN, "SCN")?,
        start_scn: r.opt_u64(c::START_SCN, "START_SCN")?.filter(|s| *s != 0),
        commit_scn: r.opt_u64(c::COMMIT_SCN, "COMMIT_SCN")?.filter(|s| *s != 0),
        timestamp: r.datetime(c::TIMESTAMP, "TIMESTAMP")?,
        xid,
        operation_code: OperationCode::from_code(op),
        rollback: r.u64_or_zero(c::ROLLBACK, "ROLLBACK")? == 1,
        seg_owner: r.opt_text(c::SEG_OWNER)?,
        table_name: r.opt_text(c::TABLE_NAME)?,
        row_id: r.opt_text(c::ROW_ID)?,
        username: r.opt_text(c::USERNAME)?,
        rs_id: r.opt_text(c::RS_ID)?,
        ssn: r.u64_or_zero(c::SSN, "SSN")?,
        csf: r.u64_or_zero(c::CSF, "CSF")? == 1,
        sql_redo: r.opt_text(c::SQL_REDO)?,
        status: r.i32(c::STATUS, "STATUS")?,
        info: r.opt_text(c::INFO)?,
        thread: r.small(c::THREAD, "THREAD#")?,
        sequence: r.u64_or_zero(c::SEQUENCE, "SEQUENCE#")?,
        data_obj: r.opt_u64(c::DATA_OBJ, "DATA_OBJ#")?,
        data_objd: r.opt_u64(c::DATA_OBJD, "DATA_OBJD#")?,
        src_con_name: r.opt_text(c::SRC_CON_NAME)?,
    })
}

/// Online log rows (one per member, ordered by group) folded into groups.
pub fn online_logs<R: RowAccess>(rows: &[R]) -> Result<Vec<OnlineLog>, SourceError> {
    let mut out: Vec<OnlineLog> = Vec::new();
    for row in rows {
        let r = Reader::new(row, "V$LOG");
        let group: u32 = r.small(0, "GROUP#")?;
        let member = r.opt_text(10)?;
        if let Some(last) = out.last_mut().filter(|l| l.group == group) {
            last.member_files.extend(member);
            continue;
        }
        out.push(OnlineLog {
            group,
            thread: r.small(1, "THREAD#")?,
            sequence: r.u64(2, "SEQUENCE#")?,
            bytes: r.u64_or_zero(3, "BYTES")?,
            members: r.small(4, "MEMBERS")?,
            status: r.text_or_empty(5)?,
            archived: r.flag(6)?,
            first_change: r.u64_or_zero(7, "FIRST_CHANGE#")?,
            next_change: r.opt_u64(8, "NEXT_CHANGE#")?,
            first_time: r.datetime(9, "FIRST_TIME")?,
            member_files: member.into_iter().collect(),
        });
    }
    Ok(out)
}

pub fn archived_log<R: RowAccess + ?Sized>(row: &R) -> Result<ArchivedLog, SourceError> {
    let r = Reader::new(row, "V$ARCHIVED_LOG");
    Ok(ArchivedLog {
        name: r.opt_text(0)?,
        dest_id: r.small(1, "DEST_ID")?,
        thread: r.small(2, "THREAD#")?,
        sequence: r.u64(3, "SEQUENCE#")?,
        first_change: r.u64_or_zero(4, "FIRST_CHANGE#")?,
        next_change: r.u64_or_zero(5, "NEXT_CHANGE#")?,
        first_time: r.datetime(6, "FIRST_TIME")?,
        next_time: r.datetime(7, "NEXT_TIME")?,
        status: r.text_or_empty(8)?,
        deleted: r.flag(9)?,
        archived: r.flag(10)?,
        resetlogs_change: r.u64_or_zero(11, "RESETLOGS_CHANGE#")?,
        bytes: r.u64_or_zero(12, "BLOCKS * BLOCK_SIZE")?,
    })
}

pub fn archive_dest<R: RowAccess + ?Sized>(row: &R) -> Result<ArchiveDestStatus, SourceError> {
    let r = Reader::new(row, "V$ARCHIVE_DEST_STATUS");
    Ok(ArchiveDestStatus {
        dest_id: r.small(0, "DEST_ID")?,
        dest_name: r.text_or_empty(1)?,
        status: r.text_or_empty(2)?,
        dest_type: r.text_or_empty(3)?,
        destination: r.opt_text(4)?,
    })
}

pub fn redo_thread<R: RowAccess + ?Sized>(row: &R) -> Result<RedoThread, SourceError> {
    let r = Reader::new(row, "V$THREAD");
    Ok(RedoThread {
        thread: r.small(0, "THREAD#")?,
        status: r.text_or_empty(1)?,
        enabled: r.text_or_empty(2)?,
        current_sequence: r.u64_or_zero(3, "SEQUENCE#")?,
        last_redo_scn: r.u64_or_zero(4, "LAST_REDO_CHANGE#")?,
        enable_change: r.u64_or_zero(5, "ENABLE_CHANGE#")?,
        disable_change: r.u64_or_zero(6, "DISABLE_CHANGE#")?,
        checkpoint_change: r.u64_or_zero(7, "CHECKPOINT_CHANGE#")?,
    })
}

/// `SELECT TO_CHAR(CURRENT_SCN), TO_CHAR(SYSDATE, ...)`.
pub fn scn_time<R: RowAccess + ?Sized>(row: &R) -> Result<(Scn, NaiveDateTime), SourceError> {
    let r = Reader::new(row, "V$DATABASE");
    let scn = r.u64(0, "CURRENT_SCN")?;
    let time = r
        .datetime(1, "SYSDATE")?
        .ok_or_else(|| SourceError::Invalid("SYSDATE came back NULL".into()))?;
    Ok((scn, time))
}

/// Rows of [`super::sql::SESSION_MEMORY`]: `None` when the session's
/// process is not listed.
pub fn session_memory(
    rows: &[Vec<Option<String>>],
) -> Result<Option<crate::engine::port::SessionMemory>, SourceError> {
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let r = Reader::new(row, "V$PROCESS");
    Ok(Some(crate::engine::port::SessionMemory {
        used: r.u64(0, "PGA_USED_MEM")?,
        allocated: r.u64(1, "PGA_ALLOC_MEM")?,
        max: r.u64(2, "PGA_MAX_MEM")?,
        uga: None,
    }))
}

/// Rows of [`super::sql::SESSION_UGA`]: `None` when the statistic is not
/// listed.
pub fn session_uga(rows: &[Vec<Option<String>>]) -> Result<Option<u64>, SourceError> {
    rows.first()
        .map(|row| Reader::new(row, "V$SESSTAT").u64(0, "VALUE"))
        .transpose()
}

/// Rows of [`super::sql::RECENT_LOG_SWITCHES`], one per redo thread.
pub fn recent_switches(
    rows: &[Vec<Option<String>>],
) -> Result<Vec<crate::engine::port::RecentSwitches>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "V$LOG_HISTORY");
            Ok(crate::engine::port::RecentSwitches {
                thread: r.small(0, "THREAD#")?,
                switches: r.small(1, "COUNT")?,
                span_s: r.u64(2, "SPAN")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_switches_are_read_per_thread_from_v_log_history_issue35() {
        let got = recent_switches(&[
            row(&[Some("1"), Some("42"), Some("3540")]),
            row(&[Some("2"), Some("7"), Some("900")]),
        ])
        .expect("mapped");
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].thread, got[0].switches, got[0].span_s),
            (1, 42, 3540)
        );
        assert_eq!((got[1].thread, got[1].switches, got[1].span_s), (2, 7, 900));
        assert!(recent_switches(&[]).expect("mapped").is_empty());
        assert!(recent_switches(&[row(&[Some("1"), Some("x"), Some("1")])]).is_err());
    }

    #[test]
    fn session_memory_is_read_from_v_process_and_absent_without_a_row_issue35() {
        let m = session_memory(&[row(&[Some("52428800"), Some("67108864"), Some("94371840")])])
            .expect("mapped")
            .expect("a row");
        assert_eq!(
            (m.used, m.allocated, m.max),
            (52_428_800, 67_108_864, 94_371_840)
        );
        assert_eq!(session_memory(&[]).expect("mapped"), None);
        assert!(session_memory(&[row(&[None, Some("1"), Some("1")])]).is_err());
    }

    #[test]
    fn session_uga_is_read_from_v_sesstat_and_absent_without_a_row_issue35() {
        assert_eq!(
            session_uga(&[row(&[Some("2097152")])]).expect("mapped"),
            Some(2_097_152)
        );
        assert_eq!(session_uga(&[]).expect("mapped"), None);
        assert!(session_uga(&[row(&[Some("x")])]).is_err());
    }

    fn row(values: &[Option<&str>]) -> Vec<Option<String>> {
        values.iter().map(|v| v.map(str::to_string)).collect()
    }

    fn contents(values: [Option<&str>; c::COUNT]) -> Vec<Option<String>> {
        row(&values)
    }

    #[test]
    fn contents_row_maps_every_column_exactly() {
        let r = contents([
            Some("18446744073709551615"),
            Some("281474976710000"),
            None,
            Some("2025-03-01 09:00:00"),
            Some("0a0014005d3c0000"),
            Some("3"),
            Some("0"),
            Some("APP"),
            Some("ORDERS"),
            Some("AAAR3sAAEAAAACXAAA"),
            Some("APPUSER"),
            Some(" 0x000123.000004a2.0010 "),
            Some("7"),
            Some("1"),
            Some("update \"APP\".\"ORDERS\" set"),
            Some("0"),
            None,
            Some("2"),
            Some("4711"),
            Some("74622"),
            Some("74623"),
            Some("FREEPDB1"),
        ]);
        let m = contents_row(&r).unwrap();
        assert_eq!(m.scn, u64::MAX);
        assert_eq!(m.start_scn, Some(281_474_976_710_000));
        assert_eq!(m.commit_scn, None);
        assert_eq!(
            m.timestamp.map(|t| t.to_string()).as_deref(),
            Some("2025-03-01 09:00:00")
        );
        assert_eq!(m.xid, "0A0014005D3C0000");
        assert_eq!(m.operation_code, OperationCode::Update);
        assert!(!m.rollback);
        assert_eq!(m.seg_owner.as_deref(), Some("APP"));
        assert_eq!(m.table_name.as_deref(), Some("ORDERS"));
        assert_eq!(m.row_id.as_deref(), Some("AAAR3sAAEAAAACXAAA"));
        assert_eq!(m.username.as_deref(), Some("APPUSER"));
        assert_eq!(m.rs_id.as_deref(), Some(" 0x000123.000004a2.0010 "));
        assert_eq!(m.ssn, 7);
        assert!(m.csf);
        assert_eq!(m.sql_redo.as_deref(), Some("update \"APP\".\"ORDERS\" set"));
        assert_eq!(m.status, 0);
        assert_eq!(m.thread, 2);
        assert_eq!(m.sequence, 4711);
        assert_eq!(m.data_obj, Some(74622));
        assert_eq!(m.data_objd, Some(74623));
        assert_eq!(m.src_con_name.as_deref(), Some("FREEPDB1"));
    }

    #[test]
    fn commit_row_with_rollback_flag_and_unknown_code() {
        let mut values = [None; c::COUNT];
        values[c::SCN] = Some("100");
        values[c::COMMIT_SCN] = Some("100");
        values[c::XID] = Some("0A0014005D3C0000");
        values[c::OPERATION_CODE] = Some("70");
        values[c::ROLLBACK] = Some("1");
        values[c::STATUS] = Some("2");
        values[c::INFO] = Some("Unsupported");
        values[c::THREAD] = Some("1");
        let m = contents_row(&contents(values)).unwrap();
        assert_eq!(m.operation_code, OperationCode::Other(70));
        assert!(m.rollback);
        assert_eq!(m.commit_scn, Some(100));
        assert_eq!(m.status, 2);
        assert_eq!(m.info.as_deref(), Some("Unsupported"));
    }

    #[test]
    fn bad_values_are_typed_errors_naming_the_column() {
        let mut values = [None; c::COUNT];
        values[c::SCN] = Some("12.5");
        values[c::OPERATION_CODE] = Some("1");
        let e = contents_row(&contents(values)).unwrap_err();
        assert!(e.to_string().contains("V$LOGMNR_CONTENTS.SCN"), "{e}");

        values[c::SCN] = Some("1");
        values[c::XID] = Some("nothex");
        let e = contents_row(&contents(values)).unwrap_err();
        assert!(e.to_string().contains("XID"), "{e}");

        values[c::XID] = None;
        values[c::OPERATION_CODE] = Some("70000");
        let e = contents_row(&contents(values)).unwrap_err();
        assert!(e.to_string().contains("OPERATION_CODE"), "{e}");

        values[c::OPERATION_CODE] = Some("1");
        values[c::TIMESTAMP] = Some("01-MAR-25");
        let e = contents_row(&contents(values)).unwrap_err();
        assert!(e.to_string().contains("TIMESTAMP"), "{e}");
    }

    #[test]
    fn short_row_is_an_error_not_a_panic() {
        let e = contents_row(&row(&[Some("1")])).unwrap_err();
        assert!(matches!(e, SourceError::Invalid(_)));
    }

    #[test]
    fn online_members_fold_into_their_group() {
        let rows = vec![
            row(&[
                Some("1"),
                Some("1"),
                Some("41"),
                Some("209715200"),
                Some("2"),
                Some("INACTIVE"),
                Some("YES"),
                Some("1000"),
                Some("2000"),
                Some("2025-03-01 08:00:00"),
                Some("/u01/redo01a.log"),
            ]),
            row(&[
                Some("1"),
                Some("1"),
                Some("41"),
                Some("209715200"),
                Some("2"),
                Some("INACTIVE"),
                Some("YES"),
                Some("1000"),
                Some("2000"),
                Some("2025-03-01 08:00:00"),
                Some("/u02/redo01b.log"),
            ]),
            row(&[
                Some("2"),
                Some("1"),
                Some("42"),
                Some("209715200"),
                Some("1"),
                Some("CURRENT"),
                Some("NO"),
                Some("2000"),
                Some("281474976710655"),
                Some("2025-03-01 09:00:00"),
                Some("/u01/redo02a.log"),
            ]),
        ];
        let logs = online_logs(&rows).unwrap();
        assert_eq!(logs.len(), 2);
        assert_eq!(
            logs[0].member_files,
            vec!["/u01/redo01a.log", "/u02/redo01b.log"]
        );
        assert!(logs[0].archived);
        assert_eq!(logs[1].status, "CURRENT");
        assert_eq!(logs[1].next_change, Some(281_474_976_710_655));
    }

    #[test]
    fn archived_log_row_maps_flags_and_deleted_names() {
        let r = row(&[
            None,
            Some("1"),
            Some("1"),
            Some("40"),
            Some("900"),
            Some("1000"),
            None,
            None,
            Some("D"),
            Some("YES"),
            Some("YES"),
            Some("1"),
            Some("1048576"),
        ]);
        let a = archived_log(&r).unwrap();
        assert_eq!(a.name, None);
        assert!(a.deleted && a.archived);
        assert!(!a.is_available());
        assert_eq!(a.bytes, 1_048_576);
    }

    #[test]
    fn thread_and_dest_rows_map() {
        let t = redo_thread(&row(&[
            Some("2"),
            Some("OPEN"),
            Some("PUBLIC"),
            Some("77"),
            Some("5000"),
            Some("4100"),
            Some("0"),
            Some("4990"),
        ]))
        .unwrap();
        assert_eq!(
            (t.thread, t.current_sequence, t.last_redo_scn),
            (2, 77, 5000)
        );
        assert_eq!(
            (t.enable_change, t.disable_change, t.checkpoint_change),
            (4100, 0, 4990)
        );
        let d = archive_dest(&row(&[
            Some("1"),
            Some("LOG_ARCHIVE_DEST_1"),
            Some("VALID"),
            Some("LOCAL"),
            Some("USE_DB_RECOVERY_FILE_DEST"),
        ]))
        .unwrap();
        assert_eq!(d.dest_name, "LOG_ARCHIVE_DEST_1");
        assert_eq!(d.destination.as_deref(), Some("USE_DB_RECOVERY_FILE_DEST"));
    }

    #[test]
    fn current_scn_is_exact_beyond_f64() {
        let (scn, time) = scn_time(&row(&[
            Some("9007199254740993"),
            Some("2026-11-29 10:00:00"),
        ]))
        .unwrap();
        assert_eq!(scn, 9_007_199_254_740_993);
        assert_eq!(time.to_string(), "2026-11-29 10:00:00");
    }
}
