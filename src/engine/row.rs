//! One row of `V$LOGMNR_CONTENTS`, as every source hands it to the engine.
//!
//! The field names follow the view's columns so that the real backend, the
//! simulator and the CSV replay all fill the same shape.

use chrono::NaiveDateTime;

/// A system change number.
pub type Scn = u64;

/// `OPERATION_CODE` of `V$LOGMNR_CONTENTS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperationCode {
    Internal,
    Insert,
    Delete,
    Update,
    Ddl,
    Start,
    Commit,
    SelectLobLocator,
    LobWrite,
    LobTrim,
    SelectForUpdate,
    ReplicationMarker,
    LobErase,
    MissingScn,
    Rollback,
    Unsupported,
    /// Any code this version of cdcctl does not name (XML, extended strings, ...).
    Other(u16),
}

impl OperationCode {
    /// A row of a LOB's pieces (locator, write, trim, erase) rather than
    /// of its row's DML.
    pub fn is_lob_piece(self) -> bool {
        matches!(
            self,
            Self::SelectLobLocator | Self::LobWrite | Self::LobTrim | Self::LobErase
        )
    }

    pub fn from_code(code: u16) -> Self {
        match code {
            0 => Self::Internal,
            1 => Self::Insert,
            2 => Self::Delete,
            3 => Self::Update,
            5 => Self::Ddl,
            6 => Self::Start,
            7 => Self::Commit,
            9 => Self::SelectLobLocator,
            10 => Self::LobWrite,
            11 => Self::LobTrim,
            25 => Self::SelectForUpdate,
            27 => Self::ReplicationMarker,
            29 => Self::LobErase,
            34 => Self::MissingScn,
            36 => Self::Rollback,
            255 => Self::Unsupported,
            other => Self::Other(other),
        }
    }

    pub fn code(self) -> u16 {
        match self {
            Self::Internal => 0,
            Self::Insert => 1,
            Self::Delete => 2,
            Self::Update => 3,
            Self::Ddl => 5,
            Self::Start => 6,
            Self::Commit => 7,
            Self::SelectLobLocator => 9,
            Self::LobWrite => 10,
            Self::LobTrim => 11,
            Self::SelectForUpdate => 25,
            Self::ReplicationMarker => 27,
            Self::LobErase => 29,
            Self::MissingScn => 34,
            Self::Rollback => 36,
            Self::Unsupported => 255,
            Self::Other(c) => c,
        }
    }

    /// The `OPERATION` column text Oracle shows for this code.
    pub fn operation_name(self) -> &'static str {
        match self {
            Self::Internal => "INTERNAL",
            Self::Insert => "INSERT",
            Self::Delete => "DELETE",
            Self::Update => "UPDATE",
            Self::Ddl => "DDL",
            Self::Start => "START",
            Self::Commit => "COMMIT",
            Self::SelectLobLocator => "SEL_LOB_LOCATOR",
            Self::LobWrite => "LOB_WRITE",
            Self::LobTrim => "LOB_TRIM",
            Self::SelectForUpdate => "SELECT_FOR_UPDATE",
            Self::ReplicationMarker => "REPLICATION_MARKER",
            Self::LobErase => "LOB_ERASE",
            Self::MissingScn => "MISSING_SCN",
            Self::Rollback => "ROLLBACK",
            Self::Unsupported => "UNSUPPORTED",
            Self::Other(68) => "XML DOC BEGIN",
            Self::Other(70) => "XML DOC WRITE",
            Self::Other(71) => "XML DOC END",
            Self::Other(91) => "32K BEGIN",
            Self::Other(92) => "32K WRITE",
            Self::Other(93) => "32K END",
            Self::Other(_) => "UNKNOWN",
        }
    }

    pub fn is_dml(self) -> bool {
        matches!(self, Self::Insert | Self::Delete | Self::Update)
    }
}

/// One row of `V$LOGMNR_CONTENTS`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMinerRow {
    pub scn: Scn,
    pub start_scn: Option<Scn>,
    pub commit_scn: Option<Scn>,
    /// `TIMESTAMP`: the redo record's time (DATE precision, database time zone).
    pub timestamp: Option<NaiveDateTime>,
    /// `XID` as 16 upper-case hex digits (USN.SLT.SQN, RAW(8)).
    pub xid: String,
    pub operation_code: OperationCode,
    /// `ROLLBACK = 1`: this DML row undoes an earlier change of the same transaction.
    pub rollback: bool,
    pub seg_owner: Option<String>,
    pub table_name: Option<String>,
    pub row_id: Option<String>,
    pub username: Option<String>,
    pub rs_id: Option<String>,
    pub ssn: u64,
    /// `CSF = 1`: SQL_REDO continues on the next row.
    pub csf: bool,
    pub sql_redo: Option<String>,
    pub status: i32,
    pub info: Option<String>,
    pub thread: u16,
    pub sequence: u64,
    pub data_obj: Option<u64>,
    pub data_objd: Option<u64>,
    /// `SRC_CON_NAME`: the PDB that made the change, when mined from CDB$ROOT.
    pub src_con_name: Option<String>,
}

impl Default for LogMinerRow {
    fn default() -> Self {
        Self {
            scn: 0,
            start_scn: None,
            commit_scn: None,
            timestamp: None,
            xid: String::new(),
            operation_code: OperationCode::Internal,
            rollback: false,
            seg_owner: None,
            table_name: None,
            row_id: None,
            username: None,
            rs_id: None,
            ssn: 0,
            csf: false,
            sql_redo: None,
            status: 0,
            info: None,
            thread: 1,
            sequence: 0,
            data_obj: None,
            data_objd: None,
            src_con_name: None,
        }
    }
}

/// Formats an XID the way `V$LOGMNR_CONTENTS.XID` shows it.
pub fn format_xid(usn: u16, slot: u16, sqn: u32) -> String {
    // XID is RAW(8) stored little-endian per field on x86 instances; LogMiner
    // prints the raw bytes, which is what operators paste into queries.
    let mut s = String::with_capacity(16);
    for b in usn.to_le_bytes() {
        s.push_str(&format!("{b:02X}"));
    }
    for b in slot.to_le_bytes() {
        s.push_str(&format!("{b:02X}"));
    }
    for b in sqn.to_le_bytes() {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_codes_round_trip() {
        for code in 0..=300u16 {
            assert_eq!(OperationCode::from_code(code).code(), code);
        }
    }

    #[test]
    fn xid_prints_as_sixteen_hex_digits_in_raw_byte_order() {
        // 0x000A.0x0014.0x00003C5D as in the reference example 0A0014005D3C0000.
        assert_eq!(format_xid(0x000A, 0x0014, 0x3C5D), "0A0014005D3C0000");
    }
}
