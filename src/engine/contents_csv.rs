//! `V$LOGMNR_CONTENTS` as CSV: the reader behind `redo parse --csv` and
//! `redo replay`, and the writer behind `sim contents`.
//!
//! The header names the view's columns (any case, any order; unknown
//! columns are ignored). An empty cell is NULL, as it is in Oracle. Text
//! cells are taken byte for byte, never trimmed: RS_ID carries spaces and a
//! SQL_REDO piece may start or end with one. Rows stream one at a time.
//!
//! Oracle's view and DM8's differ in a column name (DM8's rollback flag is
//! `ROLL_BACK`), in operation codes and in how an XID prints: the header
//! tells which view it is when it names the rollback flag, and
//! [`ExportForms`] says how a family writes codes and XIDs.

use std::io::{Read, Write};

use chrono::NaiveDateTime;
use thiserror::Error;

use super::port::Dialect;
use super::row::{LogMinerRow, OperationCode};

/// A column of the view that the CSV may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Scn,
    StartScn,
    CommitScn,
    Timestamp,
    Xid,
    OperationCode,
    Operation,
    Rollback,
    SegOwner,
    TableName,
    RowId,
    Username,
    RsId,
    Ssn,
    Csf,
    SqlRedo,
    Status,
    Info,
    Thread,
    Sequence,
    DataObj,
    DataObjd,
    SrcConName,
}

/// Every column, in the order the writer puts them.
pub const COLUMNS: [Column; 23] = [
    Column::Scn,
    Column::StartScn,
    Column::CommitScn,
    Column::Timestamp,
    Column::Xid,
    Column::OperationCode,
    Column::Operation,
    Column::Rollback,
    Column::SegOwner,
    Column::TableName,
    Column::RowId,
    Column::Username,
    Column::RsId,
    Column::Ssn,
    Column::Csf,
    Column::SqlRedo,
    Column::Status,
    Column::Info,
    Column::Thread,
    Column::Sequence,
    Column::DataObj,
    Column::DataObjd,
    Column::SrcConName,
];

/// What `redo parse --csv` needs.
pub const REQUIRED_FOR_PARSE: &[Column] = &[Column::SqlRedo, Column::Csf];

/// What a replay through the transaction buffer needs (OPERATION stands in
/// for a missing OPERATION_CODE).
pub const REQUIRED_FOR_REPLAY: &[Column] = &[
    Column::Scn,
    Column::Xid,
    Column::OperationCode,
    Column::SqlRedo,
    Column::Csf,
];

impl Column {
    /// The view's column name.
    pub fn name(self) -> &'static str {
        match self {
            Column::Scn => "SCN",
            Column::StartScn => "START_SCN",
            Column::CommitScn => "COMMIT_SCN",
            Column::Timestamp => "TIMESTAMP",
            Column::Xid => "XID",
            Column::OperationCode => "OPERATION_CODE",
            Column::Operation => "OPERATION",
            Column::Rollback => "ROLLBACK",
            Column::SegOwner => "SEG_OWNER",
            Column::TableName => "TABLE_NAME",
            Column::RowId => "ROW_ID",
            Column::Username => "USERNAME",
            Column::RsId => "RS_ID",
            Column::Ssn => "SSN",
            Column::Csf => "CSF",
            Column::SqlRedo => "SQL_REDO",
            Column::Status => "STATUS",
            Column::Info => "INFO",
            Column::Thread => "THREAD#",
            Column::Sequence => "SEQUENCE#",
            Column::DataObj => "DATA_OBJ#",
            Column::DataObjd => "DATA_OBJD#",
            Column::SrcConName => "SRC_CON_NAME",
        }
    }

    /// The column's name in `dialect`'s view.
    pub fn name_in(self, dialect: Dialect) -> &'static str {
        match (self, dialect) {
            (Column::Rollback, Dialect::Dm) => DM_ROLLBACK,
            _ => self.name(),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// DM8's name of the rollback flag, which Oracle calls `ROLLBACK`.
const DM_ROLLBACK: &str = "ROLL_BACK";

/// How one database family's `V$LOGMNR_CONTENTS` export writes what the
/// engine reads: its columns, operation codes and names, and XIDs.
#[derive(Debug, Clone, Copy)]
pub struct ExportForms {
    pub dialect: Dialect,
    /// The columns a writer puts, in order.
    pub columns: &'static [Column],
    /// The family's OPERATION_CODE in the engine's (Oracle's) terms.
    pub operation: fn(u16) -> OperationCode,
    /// The family's code of an OPERATION name (any case).
    pub code_of_name: fn(&str) -> Option<u16>,
    /// The OPERATION name the family shows for its code.
    pub name_of_code: fn(u16) -> &'static str,
    /// An XID cell as the engine's XID; `None` when it is not one.
    pub read_xid: fn(&str) -> Option<String>,
    /// The engine's XID as the family's export prints it.
    pub write_xid: fn(&str) -> String,
}

/// Oracle's export: codes and names as [`OperationCode`] has them, XIDs
/// taken as they are.
pub const ORACLE_FORMS: ExportForms = ExportForms {
    dialect: Dialect::Oracle,
    columns: &COLUMNS,
    operation: OperationCode::from_code,
    code_of_name: |name| operation_from_name(name).map(OperationCode::code),
    name_of_code: |code| OperationCode::from_code(code).operation_name(),
    read_xid: |xid| Some(xid.to_string()),
    write_xid: str::to_string,
};

/// The family a header's rollback flag names: DM8's `ROLL_BACK` or
/// Oracle's `ROLLBACK`; `None` when it names neither (or both).
fn header_dialect(headers: &csv::StringRecord) -> Option<Dialect> {
    let has = |name: &str| headers.iter().any(|h| h.trim().eq_ignore_ascii_case(name));
    match (has(Column::Rollback.name()), has(DM_ROLLBACK)) {
        (true, false) => Some(Dialect::Oracle),
        (false, true) => Some(Dialect::Dm),
        _ => None,
    }
}

/// Why a contents CSV could not be read.
#[derive(Debug, Error)]
pub enum ContentsError {
    #[error("cannot read the contents CSV: {0}")]
    Io(#[from] std::io::Error),
    #[error(
        "the contents CSV has no {column} column; export V$LOGMNR_CONTENTS with at least {required}"
    )]
    MissingColumn {
        column: &'static str,
        required: String,
    },
    #[error("contents CSV line {line}: {message}; fix or remove that row")]
    Malformed { line: u64, message: String },
    #[error("contents CSV line {line}, column {column}: `{value}` is not {expected}")]
    BadValue {
        line: u64,
        column: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("contents CSV line {line}: {column} is empty but required")]
    Empty { line: u64, column: &'static str },
}

/// Streams `LogMinerRow`s out of a contents CSV.
pub struct ContentsReader<R: Read> {
    inner: csv::Reader<R>,
    index: [Option<usize>; COLUMNS.len()],
    required: Vec<Column>,
    record: csv::StringRecord,
    forms: ExportForms,
    header_dialect: Option<Dialect>,
}

impl<R: Read> ContentsReader<R> {
    /// Reads the header; every `required` column must be in it.
    pub fn new(reader: R, required: &[Column]) -> Result<Self, ContentsError> {
        let mut inner = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(reader);
        let headers = inner.headers().map_err(csv_error)?.clone();
        let mut index = [None; COLUMNS.len()];
        for (i, h) in headers.iter().enumerate() {
            let h = h.trim();
            let named = |c: &&Column| {
                c.name().eq_ignore_ascii_case(h) || c.name_in(Dialect::Dm).eq_ignore_ascii_case(h)
            };
            if let Some(c) = COLUMNS.iter().find(named) {
                index[c.index()].get_or_insert(i);
            }
        }
        let list = || {
            required
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        for &c in required {
            let present = index[c.index()].is_some()
                || (c == Column::OperationCode && index[Column::Operation.index()].is_some());
            if !present {
                return Err(ContentsError::MissingColumn {
                    column: c.name(),
                    required: list(),
                });
            }
        }
        Ok(Self {
            inner,
            index,
            required: required.to_vec(),
            record: csv::StringRecord::new(),
            forms: ORACLE_FORMS,
            header_dialect: header_dialect(&headers),
        })
    }

    /// Reads codes, operation names and XIDs as `forms` says (Oracle's
    /// until told otherwise).
    pub fn with_forms(mut self, forms: ExportForms) -> Self {
        self.forms = forms;
        self
    }

    /// The family whose view the header's columns are, where they tell:
    /// DM8's rollback flag is `ROLL_BACK`, Oracle's `ROLLBACK`.
    pub fn header_dialect(&self) -> Option<Dialect> {
        self.header_dialect
    }

    /// Whether the header named this column.
    pub fn has(&self, c: Column) -> bool {
        self.index[c.index()].is_some()
    }

    fn cell(&self, c: Column) -> Option<&str> {
        self.index[c.index()]
            .and_then(|i| self.record.get(i))
            .filter(|s| !s.is_empty())
    }

    fn text(&self, c: Column) -> Option<String> {
        self.cell(c).map(str::to_string)
    }

    fn number<T: std::str::FromStr>(
        &self,
        line: u64,
        c: Column,
    ) -> Result<Option<T>, ContentsError> {
        match self.cell(c) {
            None if self.required.contains(&c) => Err(ContentsError::Empty {
                line,
                column: c.name(),
            }),
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| ContentsError::BadValue {
                    line,
                    column: c.name(),
                    value: v.to_string(),
                    expected: "a whole number",
                }),
        }
    }

    fn flag(&self, line: u64, c: Column) -> Result<bool, ContentsError> {
        match self.cell(c).map(str::trim) {
            None | Some("0") => Ok(false),
            Some("1") => Ok(true),
            Some(v) => Err(ContentsError::BadValue {
                line,
                column: c.name_in(self.forms.dialect),
                value: v.to_string(),
                expected: "0 or 1",
            }),
        }
    }

    fn operation(&self, line: u64) -> Result<OperationCode, ContentsError> {
        if let Some(v) = self.cell(Column::OperationCode) {
            return v.trim().parse().map(self.forms.operation).map_err(|_| {
                ContentsError::BadValue {
                    line,
                    column: Column::OperationCode.name(),
                    value: v.to_string(),
                    expected: "an OPERATION_CODE number",
                }
            });
        }
        match self.cell(Column::Operation).map(str::trim) {
            None if self.required.contains(&Column::OperationCode) => Err(ContentsError::Empty {
                line,
                column: Column::OperationCode.name(),
            }),
            None => Ok(OperationCode::Internal),
            Some(name) => (self.forms.code_of_name)(name)
                .map(self.forms.operation)
                .ok_or_else(|| ContentsError::BadValue {
                    line,
                    column: Column::Operation.name(),
                    value: name.to_string(),
                    expected: "an OPERATION name LogMiner uses",
                }),
        }
    }

    fn xid(&self, line: u64) -> Result<String, ContentsError> {
        match self.cell(Column::Xid) {
            None => Ok(String::new()),
            Some(v) => (self.forms.read_xid)(v).ok_or_else(|| ContentsError::BadValue {
                line,
                column: Column::Xid.name(),
                value: v.to_string(),
                expected: "a transaction id of 8 bytes in hex",
            }),
        }
    }

    fn timestamp(&self, line: u64) -> Result<Option<NaiveDateTime>, ContentsError> {
        let Some(v) = self.cell(Column::Timestamp) else {
            return Ok(None);
        };
        let t = v.trim();
        ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
            .iter()
            .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
            .map(Some)
            .ok_or_else(|| ContentsError::BadValue {
                line,
                column: Column::Timestamp.name(),
                value: v.to_string(),
                expected: "a time as YYYY-MM-DD HH24:MI:SS",
            })
    }

    fn row(&self, line: u64) -> Result<LogMinerRow, ContentsError> {
        Ok(LogMinerRow {
            scn: self.number(line, Column::Scn)?.unwrap_or(0),
            start_scn: self.number(line, Column::StartScn)?,
            commit_scn: self.number(line, Column::CommitScn)?,
            timestamp: self.timestamp(line)?,
            xid: self.xid(line)?,
            operation_code: self.operation(line)?,
            rollback: self.flag(line, Column::Rollback)?,
            seg_owner: self.text(Column::SegOwner),
            table_name: self.text(Column::TableName),
            row_id: self.text(Column::RowId),
            username: self.text(Column::Username),
            rs_id: self.text(Column::RsId),
            ssn: self.number(line, Column::Ssn)?.unwrap_or(0),
            csf: self.flag(line, Column::Csf)?,
            sql_redo: self.text(Column::SqlRedo),
            status: self.number(line, Column::Status)?.unwrap_or(0),
            info: self.text(Column::Info),
            thread: self.number(line, Column::Thread)?.unwrap_or(1),
            sequence: self.number(line, Column::Sequence)?.unwrap_or(0),
            data_obj: self.number(line, Column::DataObj)?,
            data_objd: self.number(line, Column::DataObjd)?,
            src_con_name: self.text(Column::SrcConName),
        })
    }

    /// The next row, `None` at the end of the input.
    pub fn read_row(&mut self) -> Option<Result<LogMinerRow, ContentsError>> {
        match self.inner.read_record(&mut self.record) {
            Ok(false) => None,
            Ok(true) => {
                let line = self.record.position().map_or(0, csv::Position::line);
                Some(self.row(line))
            }
            Err(e) => Some(Err(csv_error(e))),
        }
    }
}

impl<R: Read> Iterator for ContentsReader<R> {
    type Item = Result<LogMinerRow, ContentsError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_row()
    }
}

fn csv_error(e: csv::Error) -> ContentsError {
    let line = e.position().map_or(0, csv::Position::line);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => ContentsError::Io(io),
        csv::ErrorKind::Utf8 { err, .. } => ContentsError::Malformed {
            line,
            message: format!("field {} is not valid UTF-8", err.field() + 1),
        },
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => ContentsError::Malformed {
            line,
            message: format!("the row has {len} fields but the header has {expected_len}"),
        },
        other => ContentsError::Malformed {
            line,
            message: format!("{other:?}"),
        },
    }
}

/// Maps an `OPERATION` name to its code.
pub fn operation_from_name(name: &str) -> Option<OperationCode> {
    const KNOWN: [u16; 22] = [
        0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 25, 27, 29, 34, 36, 68, 70, 71, 91, 92, 93, 255,
    ];
    KNOWN
        .iter()
        .map(|&c| OperationCode::from_code(c))
        .find(|op| op.operation_name().eq_ignore_ascii_case(name))
}

/// Writes `LogMinerRow`s as a contents CSV: Oracle's view with every
/// column in [`COLUMNS`] order, or another family's as its
/// [`ExportForms`] say.
pub struct ContentsWriter<W: Write> {
    inner: csv::Writer<W>,
    forms: ExportForms,
}

impl<W: Write> ContentsWriter<W> {
    /// Writes Oracle's header row.
    pub fn new(writer: W) -> Result<Self, ContentsError> {
        Self::with_forms(writer, ORACLE_FORMS)
    }

    /// Writes the header row of `forms`' view. Rows then carry the
    /// family's own operation codes.
    pub fn with_forms(writer: W, forms: ExportForms) -> Result<Self, ContentsError> {
        let mut inner = csv::Writer::from_writer(writer);
        inner
            .write_record(forms.columns.iter().map(|c| c.name_in(forms.dialect)))
            .map_err(csv_error)?;
        Ok(Self { inner, forms })
    }

    pub fn write_row(&mut self, r: &LogMinerRow) -> Result<(), ContentsError> {
        let forms = self.forms;
        let fields = forms.columns.iter().map(|&c| cell(r, c, &forms));
        self.inner.write_record(fields).map_err(csv_error)
    }

    /// Flushes and hands the sink back.
    pub fn finish(self) -> Result<W, ContentsError> {
        self.inner
            .into_inner()
            .map_err(|e| ContentsError::Io(e.into_error()))
    }
}

/// One column of a row as the export writes it.
fn cell(r: &LogMinerRow, c: Column, forms: &ExportForms) -> String {
    fn opt<T: ToString>(v: Option<T>) -> String {
        v.map(|v| v.to_string()).unwrap_or_default()
    }
    match c {
        Column::Scn => r.scn.to_string(),
        Column::StartScn => opt(r.start_scn),
        Column::CommitScn => opt(r.commit_scn),
        Column::Timestamp => opt(r.timestamp.map(|t| t.format("%Y-%m-%d %H:%M:%S"))),
        Column::Xid => (forms.write_xid)(&r.xid),
        Column::OperationCode => r.operation_code.code().to_string(),
        Column::Operation => (forms.name_of_code)(r.operation_code.code()).to_string(),
        Column::Rollback => u8::from(r.rollback).to_string(),
        Column::SegOwner => opt(r.seg_owner.as_deref()),
        Column::TableName => opt(r.table_name.as_deref()),
        Column::RowId => opt(r.row_id.as_deref()),
        Column::Username => opt(r.username.as_deref()),
        Column::RsId => opt(r.rs_id.as_deref()),
        Column::Ssn => r.ssn.to_string(),
        Column::Csf => u8::from(r.csf).to_string(),
        Column::SqlRedo => opt(r.sql_redo.as_deref()),
        Column::Status => r.status.to_string(),
        Column::Info => opt(r.info.as_deref()),
        Column::Thread => r.thread.to_string(),
        Column::Sequence => r.sequence.to_string(),
        Column::DataObj => opt(r.data_obj),
        Column::DataObjd => opt(r.data_objd),
        Column::SrcConName => opt(r.src_con_name.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn read(csv: &str, required: &[Column]) -> Vec<Result<LogMinerRow, ContentsError>> {
        ContentsReader::new(csv.as_bytes(), required)
            .unwrap()
            .collect()
    }

    fn sample_rows() -> Vec<LogMinerRow> {
        let ts = NaiveDate::from_ymd_opt(2025, 3, 1).and_then(|d| d.and_hms_opt(9, 0, 0));
        vec![
            LogMinerRow {
                scn: 9_007_199_254_740_993,
                start_scn: Some(9_007_199_254_740_990),
                commit_scn: None,
                timestamp: ts,
                xid: "0A0014005D3C0000".into(),
                operation_code: OperationCode::Insert,
                rollback: false,
                seg_owner: Some("APP".into()),
                table_name: Some("ORDERS".into()),
                row_id: Some("AAAR3sAAEAAAACXAAA".into()),
                username: Some("APP".into()),
                rs_id: Some(" 0x000003.00000010.0010 ".into()),
                ssn: 0,
                csf: true,
                sql_redo: Some(
                    "insert into \"APP\".\"ORDERS\"(\"NOTE\") values ('a, \"b\"\nc".into(),
                ),
                status: 0,
                info: None,
                thread: 2,
                sequence: 41,
                data_obj: Some(74622),
                data_objd: Some(74623),
                src_con_name: Some("ORCLPDB1".into()),
            },
            LogMinerRow {
                scn: 9_007_199_254_740_993,
                xid: "0A0014005D3C0000".into(),
                operation_code: OperationCode::Other(68),
                rollback: true,
                ssn: 0,
                sql_redo: Some("');".into()),
                status: 2,
                info: Some("Unsupported column type".into()),
                ..LogMinerRow::default()
            },
        ]
    }

    #[test]
    fn writer_output_reads_back_to_the_same_rows() {
        let rows = sample_rows();
        let mut w = ContentsWriter::new(Vec::new()).unwrap();
        for r in &rows {
            w.write_row(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with(
            "SCN,START_SCN,COMMIT_SCN,TIMESTAMP,XID,OPERATION_CODE,OPERATION,ROLLBACK,SEG_OWNER,\
             TABLE_NAME,ROW_ID,USERNAME,RS_ID,SSN,CSF,SQL_REDO,STATUS,INFO,THREAD#,SEQUENCE#,\
             DATA_OBJ#,DATA_OBJD#,SRC_CON_NAME\n"
        ));
        let back: Vec<_> = read(&text, REQUIRED_FOR_REPLAY)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn header_is_case_insensitive_and_extra_columns_are_ignored() {
        let rows = read(
            "extra,sql_redo,Csf,scn\nx,commit;,0,42\n",
            REQUIRED_FOR_PARSE,
        );
        let r = rows[0].as_ref().unwrap();
        assert_eq!(r.sql_redo.as_deref(), Some("commit;"));
        assert_eq!(r.scn, 42);
        assert_eq!(r.thread, 1);
        assert_eq!(r.rs_id, None);
    }

    #[test]
    fn header_with_a_byte_order_mark_and_crlf_lines_reads() {
        let rows = read("\u{feff}SQL_REDO,CSF\r\ncommit;,0\r\n", REQUIRED_FOR_PARSE);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            rows[0].as_ref().unwrap().sql_redo.as_deref(),
            Some("commit;")
        );
    }

    #[test]
    fn missing_required_column_names_it() {
        let err = ContentsReader::new("SCN,SQL_REDO\n1,x\n".as_bytes(), REQUIRED_FOR_PARSE)
            .err()
            .unwrap();
        assert!(matches!(
            err,
            ContentsError::MissingColumn { column: "CSF", .. }
        ));
        assert!(err.to_string().contains("SQL_REDO, CSF"));
    }

    #[test]
    fn header_rollback_flag_tells_dm8_from_oracle_and_both_read_as_the_flag() {
        let dialect = |header: &str| {
            ContentsReader::new(format!("{header}\n").as_bytes(), REQUIRED_FOR_PARSE)
                .unwrap()
                .header_dialect()
        };
        assert_eq!(dialect("SQL_REDO,CSF,ROLL_BACK"), Some(Dialect::Dm));
        assert_eq!(dialect("sql_redo,csf,roll_back"), Some(Dialect::Dm));
        assert_eq!(dialect("SQL_REDO,CSF,ROLLBACK"), Some(Dialect::Oracle));
        assert_eq!(dialect("SQL_REDO,CSF"), None);
        assert_eq!(dialect("SQL_REDO,CSF,ROLLBACK,ROLL_BACK"), None);
        let rows = read("SQL_REDO,CSF,ROLL_BACK\nx,0,1\ny,0,0\n", REQUIRED_FOR_PARSE);
        let flags: Vec<bool> = rows.iter().map(|r| r.as_ref().unwrap().rollback).collect();
        assert_eq!(flags, [true, false]);
    }

    #[test]
    fn operation_name_stands_in_for_a_missing_code() {
        let csv =
            "SCN,XID,OPERATION,SQL_REDO,CSF\n5,AB,commit,commit;,0\n6,AB,SEL_LOB_LOCATOR,,0\n";
        let rows: Vec<_> = read(csv, REQUIRED_FOR_REPLAY)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows[0].operation_code, OperationCode::Commit);
        assert_eq!(rows[1].operation_code, OperationCode::SelectLobLocator);
        assert_eq!(rows[1].sql_redo, None);
        let err = ContentsReader::new("SCN,XID,SQL_REDO,CSF\n".as_bytes(), REQUIRED_FOR_REPLAY)
            .err()
            .unwrap();
        assert!(matches!(
            err,
            ContentsError::MissingColumn {
                column: "OPERATION_CODE",
                ..
            }
        ));
    }

    #[test]
    fn bad_cells_name_the_line_and_column() {
        let csv = "SCN,SQL_REDO,CSF,TIMESTAMP\n1,a,0,2025-03-01 09:00:00\n2,b,0,2025-03-01T09:00:01\nx,c,0,\n4,\"multi\nline\",2,\n";
        let rows = read(csv, REQUIRED_FOR_PARSE);
        assert!(rows[0].is_ok() && rows[1].is_ok());
        assert_eq!(
            rows[1].as_ref().unwrap().timestamp.map(|t| t.to_string()),
            Some("2025-03-01 09:00:01".to_string())
        );
        match &rows[2] {
            Err(ContentsError::BadValue { line, column, .. }) => {
                assert_eq!((*line, *column), (4, "SCN"));
            }
            other => panic!("expected a bad SCN, got {other:?}"),
        }
        match &rows[3] {
            Err(ContentsError::BadValue { line, column, .. }) => {
                assert_eq!((*line, *column), (5, "CSF"));
            }
            other => panic!("expected a bad CSF, got {other:?}"),
        }
    }

    #[test]
    fn empty_required_scn_is_an_error_for_replay() {
        let rows = read(
            "SCN,XID,OPERATION_CODE,SQL_REDO,CSF\n,AB,7,commit;,0\n",
            REQUIRED_FOR_REPLAY,
        );
        assert!(matches!(
            rows[0],
            Err(ContentsError::Empty {
                line: 2,
                column: "SCN"
            })
        ));
    }

    #[test]
    fn row_with_wrong_field_count_is_malformed_with_its_line() {
        let rows = read("SQL_REDO,CSF\na,0\nb\n", REQUIRED_FOR_PARSE);
        assert!(matches!(
            rows[1],
            Err(ContentsError::Malformed { line: 3, .. })
        ));
    }

    fn text_strategy() -> impl proptest::strategy::Strategy<Value = Option<String>> {
        proptest::option::of("[^\\x00]{1,24}")
    }

    proptest::proptest! {
        #[test]
        fn any_row_survives_writer_then_reader(
            scn in proptest::num::u64::ANY,
            code in 0u16..300,
            csf in proptest::bool::ANY,
            sql in text_strategy(),
            rs_id in text_strategy(),
            info in text_strategy(),
            status in -3i32..4,
            ssn in proptest::num::u64::ANY,
        ) {
            let row = LogMinerRow {
                scn,
                xid: "0A0014005D3C0000".into(),
                operation_code: OperationCode::from_code(code),
                csf,
                sql_redo: sql,
                rs_id,
                info,
                status,
                ssn,
                ..LogMinerRow::default()
            };
            let mut w = ContentsWriter::new(Vec::new()).unwrap();
            w.write_row(&row).unwrap();
            let bytes = w.finish().unwrap();
            let back: Vec<_> = ContentsReader::new(bytes.as_slice(), REQUIRED_FOR_REPLAY)
                .unwrap()
                .collect();
            proptest::prop_assert_eq!(back.len(), 1);
            proptest::prop_assert_eq!(back[0].as_ref().unwrap(), &row);
        }
    }

    #[test]
    fn operation_names_map_back_to_codes() {
        for code in [
            0u16, 1, 2, 3, 5, 6, 7, 9, 10, 11, 25, 27, 29, 34, 36, 68, 70, 71, 91, 92, 93, 255,
        ] {
            let op = OperationCode::from_code(code);
            assert_eq!(operation_from_name(op.operation_name()), Some(op));
        }
        assert_eq!(operation_from_name("NOPE"), None);
    }
}
