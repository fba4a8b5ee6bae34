//! Every statement text the DM8 backend sends, as `const`s or pure
//! builders, so snapshot tests pin each one.
//!
//! The views and packages are DM8's documented ones: `V$RLOG`,
//! `V$ARCH_FILE`, `V$DATABASE`, `V$DM_INI`, `V$DM_ARCH_INI`, `V$TRX`,
//! `V$VERSION`, `V$LOGMNR_CONTENTS`, `DBMS_LOGMNR`, and the
//! Oracle-compatible `ALL_TABLES`, `ALL_TAB_COLUMNS`, `ALL_CONSTRAINTS`,
//! `ALL_CONS_COLUMNS`, `ALL_PART_TABLES` and `ALL_TAB_PARTITIONS`. Where a
//! check in `checks/` reads the same fact with `dialect = "dm"`, the text
//! is that check's, word for word (a test holds them equal).
//!
//! User input (owners, table patterns, SCNs of a contents query) is bound
//! with `?`. The `DBMS_LOGMNR` calls carry numbers and file paths read
//! from `V$ARCH_FILE` as literals, quoted by [`quote_literal`], so each call
//! is one plain statement.

use std::fmt::Write as _;

use crate::source::oracle::sql::{BindValue, BoundSql};
use crate::source::{ContentsQuery, MiningOptions};

/// The current LSN (DM8's SCN), the checkpoint LSN and the database clock.
pub const CURRENT_LSN: &str = "SELECT CUR_LSN, CKPT_LSN, SYSDATE FROM V$RLOG";

/// Every archive file with its LSN range (`PATH`, `ARCH_SEQ`, `ARCH_LSN`,
/// `CLSN`, `STATUS`, `CREATE_TIME`, `CLOSE_TIME`, `FILE_SIZE`, taken by
/// name). `STATUS = 'ACTIVE'` is the file still being written, which
/// DBMS_LOGMNR can mine all the same.
pub const ARCH_FILES: &str = "SELECT * FROM V$ARCH_FILE ORDER BY ARCH_SEQ";

/// Archive destinations (`dm_arch_ini` of checks/dm-arch-dest.toml).
pub const ARCH_DESTS: &str =
    "SELECT arch_name, arch_type, arch_dest, arch_space_limit, arch_is_valid FROM v$dm_arch_ini";

/// Whether `DBMS_LOGMNR` is created (`dm_pkg` of checks/dm-pkg.toml).
pub const LOGMNR_PACKAGE: &str =
    "SELECT sf_check_system_package('DBMS_LOGMNR') AS installed FROM dual";

/// The database's name and archive mode (`ARCH_MODE` `Y` is archiving).
pub const DATABASE: &str = "SELECT NAME, ARCH_MODE FROM V$DATABASE";

/// The parameters capture depends on. A superset of `dm_ini` in
/// checks/dm-arch.toml: the LOB settings matter too, and the snapshot's
/// flashback reads need `ENABLE_FLASHBACK` and `UNDO_RETENTION`.
pub const DM_INI: &str = "SELECT PARA_NAME, PARA_VALUE FROM V$DM_INI WHERE PARA_NAME IN \
('ARCH_INI', 'RLOG_APPEND_LOGIC', 'MPP_INI', 'RLOG_IGNORE_TABLE_SET', 'LOGMNR_PARSE_LOB', \
'ENABLE_FLASHBACK', 'UNDO_RETENTION')";

/// The instances of a DMDSC cluster (Dameng's DSC manual, "V$DSC_EP_INFO":
/// the same rows from every node; no row on a single instance).
pub const DSC_NODES: &str = "SELECT EP_NAME, EP_SEQNO, EP_MODE, EP_STATUS FROM V$DSC_EP_INFO";

/// The release banner (`DM Database Server 64 V8`, then `DB Version: ...`).
pub const VERSION: &str = "SELECT BANNER FROM V$VERSION";

/// Makes `schema` the session's current schema. The name is one the
/// address parser accepted (letters, digits, `_`, `$`, `#`), written as a
/// quoted identifier so its case is kept.
pub fn set_schema(schema: &str) -> String {
    format!("SET SCHEMA \"{}\"", schema.replace('"', ""))
}

/// The connected user.
pub const SESSION_USER: &str = "SELECT USER FROM DUAL";

/// Transactions open now. Read whole: the backend takes `ID` (the
/// transaction id V$LOGMNR_CONTENTS.XID shows as 8 bytes), `SESS_ID` and
/// `STATUS` by name, so a release with more or fewer columns reads the same.
pub const OPEN_TRANSACTIONS: &str = "SELECT * FROM V$TRX";

/// Views a CDC user must be able to read, probed one by one without
/// reading a row: the grants DM8's mining needs, plus the catalog's own.
pub const PROBED_OBJECTS: &[(&str, &str)] = &[
    ("V$DATABASE", "SELECT 1 FROM V$DATABASE WHERE 1 = 0"),
    ("V$RLOG", "SELECT 1 FROM V$RLOG WHERE 1 = 0"),
    ("V$ARCH_FILE", "SELECT 1 FROM V$ARCH_FILE WHERE 1 = 0"),
    ("V$DM_INI", "SELECT 1 FROM V$DM_INI WHERE 1 = 0"),
    ("V$DM_ARCH_INI", "SELECT 1 FROM V$DM_ARCH_INI WHERE 1 = 0"),
    ("V$TRX", "SELECT 1 FROM V$TRX WHERE 1 = 0"),
    (
        "V$LOGMNR_CONTENTS",
        "SELECT 1 FROM V$LOGMNR_CONTENTS WHERE 1 = 0",
    ),
];

/// Schemas DM8 keeps for itself; left out only when every owner is asked
/// for (an explicit `SYSDBA.%` still reads SYSDBA's tables).
pub const SYSTEM_SCHEMAS: &[&str] = &["CTISYS", "SYS", "SYSAUDITOR", "SYSDBA", "SYSDBO", "SYSSSO"];

/// `DBMS_LOGMNR.START_LOGMNR` option bits DM8 honours: 2
/// COMMITTED_DATA_ONLY, 16 DICT_FROM_ONLINE_CATALOG, 64 NO_SQL_DELIMITER,
/// 2048 NO_ROWID_IN_STMT.
pub mod option_bits {
    pub const COMMITTED_DATA_ONLY: u32 = 2;
    pub const DICT_FROM_ONLINE_CATALOG: u32 = 16;
    pub const NO_SQL_DELIMITER: u32 = 64;
    pub const NO_ROWID_IN_STMT: u32 = 2048;
}

/// The `OPTIONS` value of a session. SQL_REDO never ends in `;` (64), as
/// Oracle's does not; the engine's options add the rest. With cdcctl's own
/// options this is 2128: no COMMITTED_DATA_ONLY, so the engine's buffer,
/// restart SCN and checkpoints work as on Oracle. `None` for
/// CONTINUOUS_MINE, which DM8 does not have.
pub fn start_options(options: &MiningOptions) -> Option<u32> {
    if options.continuous_mine {
        return None;
    }
    let mut bits = option_bits::NO_SQL_DELIMITER;
    if options.committed_data_only {
        bits += option_bits::COMMITTED_DATA_ONLY;
    }
    if options.dict_from_online_catalog {
        bits += option_bits::DICT_FROM_ONLINE_CATALOG;
    }
    if options.no_rowid_in_stmt {
        bits += option_bits::NO_ROWID_IN_STMT;
    }
    Some(bits)
}

/// A string literal; `None` for text with a NUL, which no file name holds.
pub fn quote_literal(text: &str) -> Option<String> {
    if text.contains('\0') {
        return None;
    }
    Some(format!("'{}'", text.replace('\'', "''")))
}

/// `ADD_LOGFILE` of one archive file: `NEW` starts the list, `ADDFILE`
/// extends it.
pub fn add_logfile(path: &str, first: bool) -> Option<String> {
    let option = if first { "NEW" } else { "ADDFILE" };
    Some(format!(
        "BEGIN DBMS_LOGMNR.ADD_LOGFILE({}, DBMS_LOGMNR.{option}); END;",
        quote_literal(path)?
    ))
}

/// `START_LOGMNR` over `[start_scn, end_scn]`.
pub fn start_logmnr(start_scn: u64, end_scn: u64, options: u32) -> String {
    format!(
        "BEGIN DBMS_LOGMNR.START_LOGMNR(STARTSCN => {start_scn}, ENDSCN => {end_scn}, OPTIONS => {options}); END;"
    )
}

/// Ends the session's LogMiner and drops its file list.
pub const END_LOGMNR: &str = "BEGIN DBMS_LOGMNR.END_LOGMNR(); END;";

/// The columns of `V$LOGMNR_CONTENTS` read into a `LogMinerRow`, in the
/// order [`super::rows::contents_row`] reads them.
pub mod contents_col {
    pub const SCN: usize = 0;
    pub const TIMESTAMP: usize = 1;
    pub const XID: usize = 2;
    pub const OPERATION_CODE: usize = 3;
    pub const ROLL_BACK: usize = 4;
    pub const SEG_OWNER: usize = 5;
    pub const TABLE_NAME: usize = 6;
    pub const ROW_ID: usize = 7;
    pub const USERNAME: usize = 8;
    pub const RS_ID: usize = 9;
    pub const SSN: usize = 10;
    pub const CSF: usize = 11;
    pub const SQL_REDO: usize = 12;
    pub const COUNT: usize = 13;
}

/// Transaction control rows pass every owner filter: START (6), COMMIT (7),
/// ROLLBACK (36), XA_COMMIT (38, the only end row of an XA branch), and
/// MISSING_SCN (34) so a hole stops capture.
pub const CONTROL_CODES: &[u16] = &[6, 7, 34, 36, 38];

/// The only codes left out: INTERNAL (0) and SELECT_FOR_UPDATE (25) never
/// carry a change. Every other code reaches the engine, which maps the ones
/// it knows and reports the rest, so a code DM8 adds is seen, never lost in
/// the query.
pub const IGNORED_CODES: &[u16] = &[0, 25];

fn code_list(codes: &[u16]) -> String {
    codes
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether [`contents_query`] returns a row of `code` owned by `owner`
/// (`None`: no owner) when asked for `owners`: the query's WHERE as a
/// predicate, so the simulator answers the same query the same way.
pub fn contents_selects(code: u16, owner: Option<&str>, owners: &[String]) -> bool {
    if CONTROL_CODES.contains(&code) {
        return true;
    }
    if IGNORED_CODES.contains(&code) {
        return false;
    }
    let Some(owner) = owner else {
        return true;
    };
    if owners.is_empty() {
        return !SYSTEM_SCHEMAS.contains(&owner);
    }
    owners.iter().any(|o| crate::engine::port::like(o, owner))
}

fn is_pattern(owner: &str) -> bool {
    owner.contains(['%', '_'])
}

/// `SEG_OWNER IN (?, ...)` for exact names and `SEG_OWNER LIKE ? ESCAPE '\'`
/// for patterns, ORed.
fn owner_terms(owners: &[String], binds: &mut Vec<(String, BindValue)>) -> Vec<String> {
    let mut terms = Vec::new();
    let exact: Vec<&String> = owners.iter().filter(|o| !is_pattern(o)).collect();
    if !exact.is_empty() {
        let marks = vec!["?"; exact.len()].join(", ");
        terms.push(format!("SEG_OWNER IN ({marks})"));
        for (i, o) in exact.iter().enumerate() {
            binds.push((format!("owner{}", i + 1), BindValue::Text((*o).clone())));
        }
    }
    for (i, o) in owners.iter().filter(|o| is_pattern(o)).enumerate() {
        terms.push("SEG_OWNER LIKE ? ESCAPE '\\'".to_string());
        binds.push((
            format!("owner_like{}", i + 1),
            BindValue::Text(o.replace('\\', "\\\\")),
        ));
    }
    terms
}

/// `SEG_OWNER NOT IN ('CTISYS', ...)`: constants of this module, written
/// as literals.
fn system_exclusion() -> String {
    let names: Vec<String> = SYSTEM_SCHEMAS.iter().map(|s| format!("'{s}'")).collect();
    format!("SEG_OWNER NOT IN ({})", names.join(", "))
}

/// The `V$LOGMNR_CONTENTS` query of one bounded window, in redo order (no
/// ORDER BY: the pieces of a split SQL_REDO share one SCN). DM8 fills no
/// THREAD# or SEQUENCE# the engine needs: one thread, and the sequence
/// comes from the archive file an SCN falls in.
pub fn contents_query(query: &ContentsQuery) -> BoundSql {
    let mut binds = vec![
        ("from_scn".to_string(), BindValue::Number(query.from_scn)),
        ("to_scn".to_string(), BindValue::Number(query.to_scn)),
    ];
    let mut text = String::from(
        "SELECT SCN, TIMESTAMP, XID, OPERATION_CODE, ROLL_BACK, SEG_OWNER, TABLE_NAME, ROW_ID, \
USERNAME, RS_ID, SSN, CSF, SQL_REDO FROM V$LOGMNR_CONTENTS WHERE SCN > ? AND SCN <= ? \
AND (OPERATION_CODE IN (",
    );
    text.push_str(&code_list(CONTROL_CODES));
    text.push_str(") OR (OPERATION_CODE NOT IN (");
    text.push_str(&code_list(IGNORED_CODES));
    // Rows without an owner always pass: the engine reports them rather
    // than losing them.
    text.push_str(") AND (SEG_OWNER IS NULL OR ");
    let terms = owner_terms(&query.owners, &mut binds);
    match terms.len() {
        0 => text.push_str(&system_exclusion()),
        1 => text.push_str(&terms[0]),
        _ => {
            let _ = write!(text, "({})", terms.join(" OR "));
        }
    }
    text.push_str(")))");
    BoundSql { text, binds }
}

/// Tables matching `owner LIKE ? AND table LIKE ?`; DM8's own schemas are
/// left out when the owner pattern is `%`.
pub fn tables_matching(owner: &str, table: &str) -> BoundSql {
    let mut text = String::from(
        "SELECT OWNER, TABLE_NAME FROM ALL_TABLES WHERE OWNER LIKE ? AND TABLE_NAME LIKE ?",
    );
    if owner == "%" {
        let names: Vec<String> = SYSTEM_SCHEMAS.iter().map(|s| format!("'{s}'")).collect();
        let _ = write!(text, " AND OWNER NOT IN ({})", names.join(", "));
    }
    text.push_str(" ORDER BY OWNER, TABLE_NAME");
    BoundSql {
        text,
        binds: vec![
            ("owner".to_string(), BindValue::Text(owner.to_string())),
            ("table_name".to_string(), BindValue::Text(table.to_string())),
        ],
    }
}

pub const TABLE_COLUMNS: &str = "SELECT COLUMN_NAME, DATA_TYPE, NULLABLE, DATA_LENGTH, \
DATA_PRECISION, DATA_SCALE FROM ALL_TAB_COLUMNS WHERE OWNER = ? AND TABLE_NAME = ? ORDER BY COLUMN_ID";

pub const TABLE_KEYS: &str = "SELECT C.CONSTRAINT_NAME, C.CONSTRAINT_TYPE, C.STATUS, CC.COLUMN_NAME \
FROM ALL_CONSTRAINTS C JOIN ALL_CONS_COLUMNS CC ON CC.OWNER = C.OWNER AND CC.CONSTRAINT_NAME = C.CONSTRAINT_NAME \
WHERE C.OWNER = ? AND C.TABLE_NAME = ? AND C.CONSTRAINT_TYPE IN ('P', 'U') \
ORDER BY C.CONSTRAINT_TYPE, C.CONSTRAINT_NAME, CC.POSITION";

pub const TABLE_PARTITIONING: &str = "SELECT PARTITIONING_TYPE, SUBPARTITIONING_TYPE \
FROM ALL_PART_TABLES WHERE OWNER = ? AND TABLE_NAME = ?";

pub const TABLE_PARTITIONS: &str =
    "SELECT PARTITION_NAME, PARTITION_POSITION, HIGH_VALUE, NUM_ROWS \
FROM ALL_TAB_PARTITIONS WHERE TABLE_OWNER = ? AND TABLE_NAME = ? ORDER BY PARTITION_POSITION";

/// The binds of a per-table statement.
pub fn table_bound(text: &str, owner: &str, table: &str) -> BoundSql {
    BoundSql {
        text: text.to_string(),
        binds: vec![
            ("owner".to_string(), BindValue::Text(owner.to_string())),
            ("table_name".to_string(), BindValue::Text(table.to_string())),
        ],
    }
}

/// How a snapshot read selects and binds a DM8 column, by its
/// `ALL_TAB_COLUMNS.DATA_TYPE` (and `DATA_SCALE`, a TIMESTAMP's fractional
/// digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmReadKind {
    /// Integers, DECIMAL, DOUBLE: read as they are.
    Number,
    /// Character data and CLOB, read as they are.
    Text,
    /// BINARY, VARBINARY, BLOB: the driver gives the bytes as hex.
    Bytes,
    /// DATE: `YYYY-MM-DD HH24:MI:SS` (the time part is midnight).
    Date,
    /// TIME: `HH24:MI:SS`.
    Time,
    /// TIMESTAMP(p), DATETIME(p): `YYYY-MM-DD HH24:MI:SS.FFp`.
    Timestamp(u8),
    /// TIMESTAMP(p) WITH TIME ZONE: `... TZH:TZM`.
    TimestampTz(u8),
}

impl DmReadKind {
    /// The `TO_CHAR` format of a date or time kind.
    fn format(self) -> Option<String> {
        let frac = |p: u8| {
            if p == 0 {
                String::new()
            } else {
                format!(".FF{}", p.min(9))
            }
        };
        match self {
            Self::Date => Some("YYYY-MM-DD HH24:MI:SS".into()),
            Self::Time => Some("HH24:MI:SS".into()),
            Self::Timestamp(p) => Some(format!("YYYY-MM-DD HH24:MI:SS{}", frac(p))),
            Self::TimestampTz(p) => Some(format!("YYYY-MM-DD HH24:MI:SS{} TZH:TZM", frac(p))),
            Self::Number | Self::Text | Self::Bytes => None,
        }
    }

    /// The select expression of a quoted column.
    pub fn select_expr(self, quoted: &str) -> String {
        match self.format() {
            Some(f) => format!("TO_CHAR({quoted}, '{f}')"),
            None => quoted.to_string(),
        }
    }

    /// The `?` of a key value in the text a read gave it, converted back
    /// to the column's type so the comparison uses the column's ordering.
    pub fn bind_expr(self) -> String {
        match self {
            Self::Number => "TO_NUMBER(?)".into(),
            Self::Date | Self::Timestamp(_) => {
                format!("TO_TIMESTAMP(?, '{}')", self.format().unwrap_or_default())
            }
            Self::TimestampTz(_) => {
                format!(
                    "TO_TIMESTAMP_TZ(?, '{}')",
                    self.format().unwrap_or_default()
                )
            }
            Self::Time | Self::Text | Self::Bytes => "?".into(),
        }
    }
}

/// One chunk of a DM8 snapshot read.
#[derive(Debug, Clone, Copy)]
pub struct DmSnapshotRead<'a> {
    pub owner: &'a str,
    pub table: &'a str,
    /// Every column read, by name.
    pub columns: &'a [(String, DmReadKind)],
    /// The key the read is ordered by; empty orders by `ROWID`.
    pub key: &'a [(String, DmReadKind)],
    /// The previous chunk's last key, in the text the read gave it.
    pub after_key: Option<&'a [String]>,
    pub limit: usize,
    /// The LSN the chunk is read as of.
    pub as_of_lsn: u64,
}

/// Builds DM8's flashback read of one chunk: `AS OF SCN lsn` after the
/// table (DM8's SQL manual, flashback query clause `AS OF SCN|LSN`; an
/// LSN is what `V$RLOG.CUR_LSN` and `V$LOGMNR_CONTENTS.SCN` hold), keyset
/// pagination after the previous chunk's last key, `LIMIT` rows. The LSN
/// and the limit are numbers cdcctl computed, written as literals as
/// DM8's examples write them; key values are bound. A table without a
/// key is ordered by `ROWID`, DM8's row number, read as one more column.
/// Returns `None` if an identifier cannot be quoted.
pub fn snapshot_chunk(read: &DmSnapshotRead<'_>) -> Option<BoundSql> {
    use crate::source::oracle::sql::quote_ident;
    let mut select = Vec::with_capacity(read.columns.len() + 1);
    for (name, kind) in read.columns {
        select.push(kind.select_expr(&quote_ident(name)?));
    }
    let mut key: Vec<(String, DmReadKind)> = Vec::with_capacity(read.key.len().max(1));
    for (name, kind) in read.key {
        key.push((quote_ident(name)?, *kind));
    }
    if key.is_empty() {
        select.push("ROWID".into());
        key.push(("ROWID".into(), DmReadKind::Number));
    }
    let mut text = format!(
        "SELECT {} FROM {}.{} AS OF SCN {}",
        select.join(", "),
        quote_ident(read.owner)?,
        quote_ident(read.table)?,
        read.as_of_lsn
    );
    let mut binds = Vec::new();
    if let Some(after) = read.after_key {
        // (a, b) > (k1, k2) as a > k1 OR (a = k1 AND b > k2), led by
        // a >= k1 so the key's index bounds the scan.
        let mut disjuncts = Vec::with_capacity(key.len());
        let mut values = Vec::new();
        if let (true, Some((col, kind))) = (key.len() > 1, key.first()) {
            let _ = write!(text, " WHERE {col} >= {} AND (", kind.bind_expr());
            values.push(0);
        } else {
            text.push_str(" WHERE (");
        }
        for i in 0..key.len() {
            let terms: Vec<String> = key
                .iter()
                .take(i + 1)
                .enumerate()
                .map(|(j, (col, kind))| {
                    values.push(j);
                    let op = if j == i { ">" } else { "=" };
                    format!("{col} {op} {}", kind.bind_expr())
                })
                .collect();
            disjuncts.push(if terms.len() == 1 {
                terms.join("")
            } else {
                format!("({})", terms.join(" AND "))
            });
        }
        text.push_str(&disjuncts.join(" OR "));
        text.push(')');
        for (n, j) in values.into_iter().enumerate() {
            let value = after.get(j)?.clone();
            binds.push((format!("k{}_{n}", j + 1), BindValue::Text(value)));
        }
    }
    let order: Vec<&str> = key.iter().map(|(c, _)| c.as_str()).collect();
    let _ = write!(text, " ORDER BY {} LIMIT {}", order.join(", "), read.limit);
    Some(BoundSql { text, binds })
}
