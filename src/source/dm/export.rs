//! DM8's `V$LOGMNR_CONTENTS` as an export of it shows it (`redo parse`,
//! `redo replay`, `sim contents`): the columns DM8 is known to have, its
//! own operation codes and names, and XIDs as `BINARY(8)` prints them.
//!
//! The codes and XIDs are read as the live source reads them
//! ([`super::rows::operation_code`], [`super::rows::xid_text`]), so a
//! replayed export gives what capture would.

use crate::engine::contents_csv::{Column, ExportForms, COLUMNS as ORACLE_COLUMNS};
use crate::engine::port::Dialect;

use super::rows::{operation_code, xid_text, BATCH_UPDATE, SEQ_MODIFY, XA_COMMIT};

/// The columns of DM8's view an export carries: those the DM source reads,
/// with START_SCN and COMMIT_SCN (filled only under COMMITTED_DATA_ONLY):
/// Oracle's columns up to SQL_REDO. DM8 has no STATUS, INFO or
/// SRC_CON_NAME cdcctl knows of (no containers), and calls the rollback
/// flag `ROLL_BACK`.
pub const COLUMNS: &[Column] = ORACLE_COLUMNS.split_at(16).0;

/// DM8's `OPERATION` names by code (its community's list): LOB_ERASE is 28
/// where Oracle's is 29, and 4, 37 and 38 are DM8's own.
const NAMES: &[(u16, &str)] = &[
    (0, "INTERNAL"),
    (1, "INSERT"),
    (2, "DELETE"),
    (3, "UPDATE"),
    (BATCH_UPDATE, "BATCH_UPDATE"),
    (5, "DDL"),
    (6, "START"),
    (7, "COMMIT"),
    (9, "SEL_LOB_LOCATOR"),
    (10, "LOB_WRITE"),
    (11, "LOB_TRIM"),
    (25, "SELECT_FOR_UPDATE"),
    (28, "LOB_ERASE"),
    (34, "MISSING_SCN"),
    (36, "ROLLBACK"),
    (SEQ_MODIFY, "SEQ MODIFY"),
    (XA_COMMIT, "XA_COMMIT"),
    (255, "UNSUPPORTED"),
];

fn code_of_name(name: &str) -> Option<u16> {
    NAMES
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(c, _)| *c)
}

fn name_of_code(code: u16) -> &'static str {
    NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("UNKNOWN", |(_, n)| n)
}

/// `0x` and the 16 hex digits, as DM8 prints a `BINARY(8)`.
fn write_xid(xid: &str) -> String {
    if xid.is_empty() {
        return String::new();
    }
    format!("0x{xid}")
}

/// How DM8's export writes what the engine reads.
pub const FORMS: ExportForms = ExportForms {
    dialect: Dialect::Dm,
    columns: COLUMNS,
    operation: operation_code,
    code_of_name,
    name_of_code,
    read_xid: |xid| xid_text(xid).ok(),
    write_xid,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::contents_csv::{ContentsReader, ContentsWriter, REQUIRED_FOR_REPLAY};
    use crate::engine::row::{LogMinerRow, OperationCode};

    fn dm_row(code: u16, xid: &str, rollback: bool) -> LogMinerRow {
        LogMinerRow {
            scn: 40_123,
            xid: xid.into(),
            operation_code: OperationCode::from_code(code),
            rollback,
            sql_redo: Some("INSERT INTO \"APP\".\"T\"(\"ID\") VALUES(1)".into()),
            ..LogMinerRow::default()
        }
    }

    /// `rows` as DM8's export.
    fn export(rows: &[LogMinerRow]) -> Vec<u8> {
        let mut w = ContentsWriter::with_forms(Vec::new(), FORMS).unwrap();
        for r in rows {
            w.write_row(r).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn dm8_export_names_roll_back_and_prints_dm8_codes_names_and_binary_xids() {
        let text = String::from_utf8(export(&[
            dm_row(XA_COMMIT, "000000000000468B", false),
            dm_row(BATCH_UPDATE, "000000000000468C", true),
        ]))
        .unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(
                "SCN,START_SCN,COMMIT_SCN,TIMESTAMP,XID,OPERATION_CODE,OPERATION,ROLL_BACK,\
                 SEG_OWNER,TABLE_NAME,ROW_ID,USERNAME,RS_ID,SSN,CSF,SQL_REDO"
            )
        );
        assert!(
            text.contains(",0x000000000000468B,38,XA_COMMIT,0,"),
            "{text}"
        );
        assert!(
            text.contains(",0x000000000000468C,4,BATCH_UPDATE,1,"),
            "{text}"
        );
    }

    #[test]
    fn dm8_export_reads_back_in_the_engine_terms_the_live_source_gives() {
        let bytes = export(&[
            dm_row(XA_COMMIT, "000000000000468B", false),
            dm_row(BATCH_UPDATE, "000000000000468C", true),
            dm_row(SEQ_MODIFY, "000000000000468C", false),
        ]);
        let reader = ContentsReader::new(bytes.as_slice(), REQUIRED_FOR_REPLAY).unwrap();
        assert_eq!(reader.header_dialect(), Some(Dialect::Dm));
        let rows: Vec<LogMinerRow> = reader.with_forms(FORMS).map(Result::unwrap).collect();
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.operation_code, r.xid.as_str(), r.rollback))
            .collect();
        assert_eq!(
            got,
            [
                (OperationCode::Commit, "000000000000468B", false),
                (OperationCode::Update, "000000000000468C", true),
                (OperationCode::Internal, "000000000000468C", false),
            ]
        );
    }

    #[test]
    fn dm8_operation_names_stand_in_for_codes_and_xids_are_padded() {
        let csv = "SCN,XID,OPERATION,SQL_REDO,CSF,ROLL_BACK\n\
                   5,0x468B,xa_commit,,0,0\n\
                   6,468B,SEQ MODIFY,,0,0\n\
                   7,0x468B,LOB_ERASE,,0,0\n";
        let rows: Vec<LogMinerRow> = ContentsReader::new(csv.as_bytes(), REQUIRED_FOR_REPLAY)
            .unwrap()
            .with_forms(FORMS)
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows[0].operation_code, OperationCode::Commit);
        assert_eq!(rows[0].xid, "000000000000468B");
        assert_eq!(rows[1].operation_code, OperationCode::Internal);
        assert_eq!(rows[1].xid, "000000000000468B");
        // DM8's 28, which the live source leaves unnamed too.
        assert_eq!(rows[2].operation_code, OperationCode::Other(28));
    }

    #[test]
    fn dm8_xid_that_is_not_eight_bytes_of_hex_names_the_line() {
        let csv = "SCN,XID,OPERATION_CODE,SQL_REDO,CSF\n5,0xZZ,7,,0\n";
        let err = ContentsReader::new(csv.as_bytes(), REQUIRED_FOR_REPLAY)
            .unwrap()
            .with_forms(FORMS)
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "contents CSV line 2, column XID: `0xZZ` is not a transaction id of 8 bytes in hex"
        );
    }
}
