//! Every statement text the Oracle backend sends, as `const`s or pure
//! builders, so snapshot tests pin each one and reviewers read the SQL in one
//! place.
//!
//! Rules the texts keep:
//! - user input (owners, table names, key values, SCNs) is always bound,
//!   never pasted; the only identifiers written into SQL are ones read back
//!   from the dictionary, and they are quoted by [`quote_ident`];
//! - numbers are read as text (`TO_CHAR`) so SCNs and values stay exact;
//! - dates are read through `TO_CHAR` with the fixed formats of
//!   [`SESSION_SETTINGS`], the same formats SQL_REDO literals use;
//! - the `V$LOGMNR_CONTENTS` query has no `ORDER BY`: the view returns redo
//!   order, and sorting could reorder the tied pieces of a CSF row.

use std::fmt::Write as _;

use crate::source::{ContentsQuery, MiningOptions};

mod snapshot;

/// `TO_CHAR` format of a DATE, as SQL_REDO shows it.
pub const DATE_FORMAT: &str = "YYYY-MM-DD HH24:MI:SS";
/// `TO_CHAR` format of a TIMESTAMP, as SQL_REDO shows it.
pub const TIMESTAMP_FORMAT: &str = "YYYY-MM-DD HH24:MI:SS.FF9";
/// `TO_CHAR` format of a TIMESTAMP WITH TIME ZONE, as SQL_REDO shows it.
pub const TIMESTAMP_TZ_FORMAT: &str = "YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM";

/// Run once after every connect. The literal formats of SQL_REDO follow the
/// session's NLS settings, so they are fixed here rather than inherited from
/// the client's NLS_LANG; binary sort and comparison keep snapshot key
/// ordering identical to the key comparisons in the next chunk's WHERE.
pub const SESSION_SETTINGS: &[&str] = &[
    "ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY-MM-DD HH24:MI:SS' \
     NLS_TIMESTAMP_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9' \
     NLS_TIMESTAMP_TZ_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM' \
     NLS_NUMERIC_CHARACTERS = '.,' \
     NLS_SORT = BINARY NLS_COMP = BINARY",
    "ALTER SESSION SET TIME_ZONE = '00:00'",
];

/// Current SCN as exact text and the database's clock.
pub const CURRENT_SCN: &str =
    "SELECT TO_CHAR(CURRENT_SCN), TO_CHAR(SYSDATE, 'YYYY-MM-DD HH24:MI:SS') FROM V$DATABASE";

/// The PGA of this session's server process, where LogMiner keeps its
/// state: used, allocated and the most allocated. Needs SELECT on
/// V$PROCESS and V$SESSION (SELECT_CATALOG_ROLE gives both).
pub const SESSION_MEMORY: &str = "SELECT TO_CHAR(P.PGA_USED_MEM), TO_CHAR(P.PGA_ALLOC_MEM), \
TO_CHAR(P.PGA_MAX_MEM) FROM V$PROCESS P JOIN V$SESSION S ON S.PADDR = P.ADDR \
WHERE S.SID = SYS_CONTEXT('USERENV', 'SID')";

/// The UGA of this session ('session uga memory' in V$SESSTAT). Asked
/// apart from [`SESSION_MEMORY`]: a grant on V$PROCESS without one on
/// V$SESSTAT still gives the PGA.
pub const SESSION_UGA: &str = "SELECT TO_CHAR(T.VALUE) FROM V$SESSTAT T \
JOIN V$STATNAME N ON N.STATISTIC# = T.STATISTIC# \
WHERE T.SID = SYS_CONTEXT('USERENV', 'SID') AND N.NAME = 'session uga memory'";

/// Per redo thread, the logs begun over the last hour (a switch each) and
/// the seconds since the first of them began: the switch rate whatever
/// the reader's position.
pub const RECENT_LOG_SWITCHES: &str = "SELECT TO_CHAR(THREAD#), TO_CHAR(COUNT(*)), \
TO_CHAR(ROUND((SYSDATE - MIN(FIRST_TIME)) * 86400)) FROM V$LOG_HISTORY \
WHERE FIRST_TIME > SYSDATE - 1/24 GROUP BY THREAD# ORDER BY THREAD#";

/// Online redo groups with their members, one row per member. A member
/// Oracle marked INVALID (unreadable) or DELETED cannot be added to a
/// LogMiner session, and standby log files hold no redo of this database;
/// STALE members are kept, since a stale member may still be readable and
/// the backend tries the group's next member when one fails.
pub const ONLINE_LOGS: &str =
    "SELECT TO_CHAR(L.GROUP#), TO_CHAR(L.THREAD#), TO_CHAR(L.SEQUENCE#), TO_CHAR(L.BYTES), \
TO_CHAR(L.MEMBERS), L.STATUS, L.ARCHIVED, TO_CHAR(L.FIRST_CHANGE#), TO_CHAR(L.NEXT_CHANGE#), \
TO_CHAR(L.FIRST_TIME, 'YYYY-MM-DD HH24:MI:SS'), F.MEMBER \
FROM V$LOG L JOIN V$LOGFILE F ON F.GROUP# = L.GROUP# \
WHERE (F.STATUS IS NULL OR F.STATUS NOT IN ('INVALID', 'DELETED')) AND F.TYPE = 'ONLINE' \
ORDER BY L.THREAD#, L.SEQUENCE#, L.GROUP#, F.MEMBER";

/// The incarnation archived logs must belong to.
pub const RESETLOGS_CHANGE: &str = "SELECT TO_CHAR(RESETLOGS_CHANGE#) FROM V$DATABASE";

/// The incarnation a checkpoint records: both columns, as V$ARCHIVED_LOG's
/// incarnation filter uses both.
pub const INCARNATION: &str = "SELECT TO_CHAR(RESETLOGS_CHANGE#), \
TO_CHAR(RESETLOGS_TIME, 'YYYY-MM-DD HH24:MI:SS') FROM V$DATABASE";

/// The columns of `V$ARCHIVED_LOG` read into an `ArchivedLog`, of the
/// current incarnation only (other incarnations cannot be mined together
/// with the current one).
macro_rules! archived_logs_select {
    () => {
        "SELECT A.NAME, TO_CHAR(A.DEST_ID), TO_CHAR(A.THREAD#), TO_CHAR(A.SEQUENCE#), \
TO_CHAR(A.FIRST_CHANGE#), TO_CHAR(A.NEXT_CHANGE#), \
TO_CHAR(A.FIRST_TIME, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(A.NEXT_TIME, 'YYYY-MM-DD HH24:MI:SS'), \
A.STATUS, A.DELETED, A.ARCHIVED, TO_CHAR(A.RESETLOGS_CHANGE#), TO_CHAR(A.BLOCKS * A.BLOCK_SIZE) \
FROM V$ARCHIVED_LOG A, V$DATABASE D \
WHERE A.RESETLOGS_CHANGE# = D.RESETLOGS_CHANGE# AND A.RESETLOGS_TIME = D.RESETLOGS_TIME"
    };
}

/// Every archived log of the current incarnation (preflight's retention
/// and gap checks).
pub const ARCHIVED_LOGS: &str = concat!(
    archived_logs_select!(),
    " ORDER BY A.THREAD#, A.SEQUENCE#, A.DEST_ID"
);

/// The archived logs one window can need: of the current incarnation, of
/// one destination, holding SCNs above `:from_scn`. Everything older, and
/// the rows of other (standby) destinations, stays on the server; a deleted
/// row comes back only when it lies inside the window, where it explains a gap.
pub const ARCHIVED_LOGS_FROM: &str = concat!(
    archived_logs_select!(),
    " AND A.DEST_ID = :dest_id AND A.NEXT_CHANGE# > :from_scn ORDER BY A.THREAD#, A.SEQUENCE#"
);

/// Archive destinations in use (the 31 unconfigured slots are left out).
pub const ARCHIVE_DESTS: &str =
    "SELECT TO_CHAR(S.DEST_ID), S.DEST_NAME, S.STATUS, S.TYPE, D.DESTINATION \
FROM V$ARCHIVE_DEST_STATUS S JOIN V$ARCHIVE_DEST D ON D.DEST_ID = S.DEST_ID \
WHERE S.STATUS <> 'INACTIVE' OR D.DESTINATION IS NOT NULL \
ORDER BY S.DEST_ID";

/// Redo threads (one per RAC instance, one on a single instance). The last
/// redo written is `LAST_REDO_CHANGE#` (there is no `LAST_REDO_SCN`); the
/// enable, disable and checkpoint SCNs bound where a thread can have redo.
/// The same columns exist from 10g on, so one text serves every release.
pub const THREADS: &str =
    "SELECT TO_CHAR(THREAD#), STATUS, ENABLED, TO_CHAR(SEQUENCE#), TO_CHAR(LAST_REDO_CHANGE#), \
TO_CHAR(ENABLE_CHANGE#), TO_CHAR(DISABLE_CHANGE#), TO_CHAR(CHECKPOINT_CHANGE#) \
FROM V$THREAD ORDER BY THREAD#";

/// The first log of a session: starts a new list.
pub const ADD_LOGFILE_NEW: &str =
    "BEGIN SYS.DBMS_LOGMNR.ADD_LOGFILE(LOGFILENAME => :name, OPTIONS => SYS.DBMS_LOGMNR.NEW); END;";

/// Every further log of a session.
pub const ADD_LOGFILE_ADDFILE: &str =
    "BEGIN SYS.DBMS_LOGMNR.ADD_LOGFILE(LOGFILENAME => :name, OPTIONS => SYS.DBMS_LOGMNR.ADDFILE); END;";

/// Ends the LogMiner session and frees its PGA.
pub const END_LOGMNR: &str = "BEGIN SYS.DBMS_LOGMNR.END_LOGMNR; END;";

/// The container of the session: name and `CON_ID` (0 in a non-CDB, 1 in
/// CDB$ROOT, 3 and above in a PDB). From 12c.
pub const SESSION_CONTAINER: &str =
    "SELECT SYS_CONTEXT('USERENV', 'CON_NAME'), SYS_CONTEXT('USERENV', 'CON_ID') FROM DUAL";

/// Back to the root before any `DBMS_LOGMNR` call: LogMiner runs in
/// CDB$ROOT (and, from 19c, in a PDB the session connected to directly).
pub const ROOT_CONTAINER: &str = "ALTER SESSION SET CONTAINER = CDB$ROOT";

/// `ALTER SESSION SET CONTAINER` into a PDB. DDL takes no binds, so the
/// name is one read back from `V$PDBS` (the caller checks that first) and
/// written as a quoted identifier, which keeps its case exactly.
pub fn set_container(pdb: &str) -> Option<String> {
    Some(format!(
        "ALTER SESSION SET CONTAINER = {}",
        quote_ident(pdb)?
    ))
}

/// Users Oracle maintains (`ORACLE_MAINTAINED` exists from 12.1).
pub const ORACLE_MAINTAINED_USERS: &str =
    "SELECT USERNAME FROM ALL_USERS WHERE ORACLE_MAINTAINED = 'Y' ORDER BY USERNAME";

/// `START_LOGMNR` over `[:start_scn, :end_scn]` with the options spelled as
/// `DBMS_LOGMNR` constants so the text says what it asks for.
pub fn start_logmnr(options: &MiningOptions) -> String {
    let mut names = Vec::new();
    if options.dict_from_online_catalog {
        names.push("SYS.DBMS_LOGMNR.DICT_FROM_ONLINE_CATALOG");
    }
    if options.no_rowid_in_stmt {
        names.push("SYS.DBMS_LOGMNR.NO_ROWID_IN_STMT");
    }
    if options.committed_data_only {
        names.push("SYS.DBMS_LOGMNR.COMMITTED_DATA_ONLY");
    }
    if options.continuous_mine {
        names.push("SYS.DBMS_LOGMNR.CONTINUOUS_MINE");
    }
    let options = if names.is_empty() {
        "0".to_string()
    } else {
        names.join(" + ")
    };
    format!(
        "BEGIN SYS.DBMS_LOGMNR.START_LOGMNR(STARTSCN => :start_scn, ENDSCN => :end_scn, OPTIONS => {options}); END;"
    )
}

/// The columns of `V$LOGMNR_CONTENTS` read into a `LogMinerRow`, in the
/// order [`super::rows::contents_row`] reads them.
pub mod contents_col {
    pub const SCN: usize = 0;
    pub const START_SCN: usize = 1;
    pub const COMMIT_SCN: usize = 2;
    pub const TIMESTAMP: usize = 3;
    pub const XID: usize = 4;
    pub const OPERATION_CODE: usize = 5;
    pub const ROLLBACK: usize = 6;
    pub const SEG_OWNER: usize = 7;
    pub const TABLE_NAME: usize = 8;
    pub const ROW_ID: usize = 9;
    pub const USERNAME: usize = 10;
    pub const RS_ID: usize = 11;
    pub const SSN: usize = 12;
    pub const CSF: usize = 13;
    pub const SQL_REDO: usize = 14;
    pub const STATUS: usize = 15;
    pub const INFO: usize = 16;
    pub const THREAD: usize = 17;
    pub const SEQUENCE: usize = 18;
    pub const DATA_OBJ: usize = 19;
    pub const DATA_OBJD: usize = 20;
    pub const SRC_CON_NAME: usize = 21;
    pub const COUNT: usize = 22;
}

/// Schemas Oracle maintains itself; their rows are never user data. Used
/// only when the query names no owners, and only where the dictionary
/// cannot say (`ALL_USERS.ORACLE_MAINTAINED` exists from 12.1, see
/// [`ORACLE_MAINTAINED_USERS`]), so it also holds the 11g-era schemas.
/// An entry with `%` is a `LIKE` pattern (escape `\`); the others are exact
/// names, `_` included.
pub const ORACLE_SCHEMAS: &[&str] = &[
    "ANONYMOUS",
    "APEX\\_%",
    "APPQOSSYS",
    "AUDSYS",
    "CTXSYS",
    "DBSFWUSER",
    "DBSNMP",
    "DGPDB_INT",
    "DIP",
    "DVSYS",
    "EXFSYS",
    "FLOWS\\_%",
    "GGSHAREDCAP",
    "GGSYS",
    "GSMADMIN_INTERNAL",
    "GSMCATUSER",
    "LBACSYS",
    "MDDATA",
    "MDSYS",
    "MGMT_VIEW",
    "OJVMSYS",
    "OLAPSYS",
    "ORACLE_OCM",
    "ORDDATA",
    "ORDPLUGINS",
    "ORDSYS",
    "OUTLN",
    "OWBSYS",
    "OWBSYS_AUDIT",
    "REMOTE_SCHEDULER_AGENT",
    "SI_INFORMTN_SCHEMA",
    "SPATIAL_CSW_ADMIN_USR",
    "SPATIAL_WFS_ADMIN_USR",
    "SYS",
    "SYS$UMF",
    "SYSBACKUP",
    "SYSDG",
    "SYSKM",
    "SYSMAN",
    "SYSRAC",
    "SYSTEM",
    "VECSYS",
    "WMSYS",
    "XDB",
    "XS$NULL",
];

/// The built-in list as owned names, for [`contents_query`] and
/// [`tables_matching`] when the dictionary list is not available.
pub fn builtin_oracle_schemas() -> Vec<String> {
    ORACLE_SCHEMAS.iter().map(|s| s.to_string()).collect()
}

/// Oracle refuses more than 1000 expressions in one IN list (ORA-01795).
const IN_LIST_MAX: usize = 1000;

/// A statement with its named binds, in bind order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundSql {
    pub text: String,
    pub binds: Vec<(String, BindValue)>,
}

/// A bind value as the backend passes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindValue {
    Text(String),
    Number(u64),
}

impl std::fmt::Display for BoundSql {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.text)?;
        for (name, value) in &self.binds {
            match value {
                BindValue::Text(t) => writeln!(f, ":{name} = '{t}'")?,
                BindValue::Number(n) => writeln!(f, ":{name} = {n}")?,
            }
        }
        Ok(())
    }
}

/// The select list of the contents query. `SRC_CON_NAME` appeared in 12c,
/// so 11g reads NULL in its place.
fn contents_select_list(major_version: u32) -> String {
    let src_con = if major_version >= 12 {
        "SRC_CON_NAME"
    } else {
        "NULL"
    };
    format!(
        "SELECT TO_CHAR(SCN), TO_CHAR(START_SCN), TO_CHAR(COMMIT_SCN), \
TO_CHAR(TIMESTAMP, 'YYYY-MM-DD HH24:MI:SS'), RAWTOHEX(XID), TO_CHAR(OPERATION_CODE), TO_CHAR(ROLLBACK), \
SEG_OWNER, TABLE_NAME, ROW_ID, USERNAME, RS_ID, TO_CHAR(SSN), TO_CHAR(CSF), SQL_REDO, TO_CHAR(STATUS), INFO, \
TO_CHAR(THREAD#), TO_CHAR(SEQUENCE#), TO_CHAR(DATA_OBJ#), TO_CHAR(DATA_OBJD#), {src_con}"
    )
}

/// Transaction control rows pass every owner filter: the engine needs each
/// START, COMMIT and ROLLBACK to close its buffers, each GoldenGate
/// replication marker (27) to close a marker transaction that never shows
/// a COMMIT, and MISSING_SCN to stop rather than skip a hole in the redo.
const CONTROL_CODES: &str = "6, 7, 27, 34, 36";

/// Row changes the engine reads: DML, DDL, LOB pieces, XML and extended
/// strings, and UNSUPPORTED (so an unreadable change is reported, not lost).
const CHANGE_CODES: &str = "1, 2, 3, 5, 9, 10, 11, 29, 68, 70, 71, 91, 92, 93, 255";

/// A `LIKE` pattern whose `\` is taken literally under `ESCAPE '\'`:
/// owner patterns use `%` and `_` as wildcards and nothing else, the same
/// rule the engine's own matching applies to rows.
fn like_bind(pattern: &str) -> String {
    pattern.replace('\\', "\\\\")
}

/// Whether an owner pattern of the table list has a wildcard. `_` is one,
/// as in Oracle's `LIKE` and in `ALL_TABLES` matching: a schema named
/// `APP_DATA` is then read with `LIKE 'APP_DATA'`, which may also let
/// `APPXDATA` through; the engine drops such rows with the same pattern.
fn is_pattern(owner: &str) -> bool {
    owner.contains(['%', '_'])
}

/// `SEG_OWNER IN (...)` for exact names (split at 1000, ORA-01795) and
/// `SEG_OWNER LIKE :p ESCAPE '\'` for patterns, ORed; binds are named
/// `{prefix}1`, `{prefix}2`, ...
fn owner_filter(
    column: &str,
    owners: &[String],
    prefix: &str,
    pattern: impl Fn(&str) -> bool,
    binds: &mut Vec<(String, BindValue)>,
) -> Vec<String> {
    let mut n = 0usize;
    let mut next_bind = |value: String, binds: &mut Vec<(String, BindValue)>| {
        n += 1;
        let name = format!("{prefix}{n}");
        binds.push((name.clone(), BindValue::Text(value)));
        name
    };
    let exact: Vec<&String> = owners.iter().filter(|o| !pattern(o)).collect();
    let mut terms = Vec::new();
    for chunk in exact.chunks(IN_LIST_MAX) {
        let names: Vec<String> = chunk
            .iter()
            .map(|o| format!(":{}", next_bind((*o).clone(), binds)))
            .collect();
        terms.push(format!("{column} IN ({})", names.join(", ")));
    }
    for o in owners.iter().filter(|o| pattern(o)) {
        let name = next_bind(like_bind(o), binds);
        terms.push(format!("{column} LIKE :{name} ESCAPE '\\'"));
    }
    terms
}

/// `NOT (...)` of [`owner_filter`] over Oracle's own schemas: exact names
/// in `NOT IN`, entries with `%` as `NOT LIKE` (their `_` is escaped already).
fn schema_exclusion(
    column: &str,
    schemas: &[String],
    binds: &mut Vec<(String, BindValue)>,
) -> String {
    let mut n = 0usize;
    let mut terms = Vec::new();
    let exact: Vec<&String> = schemas.iter().filter(|s| !s.contains('%')).collect();
    for chunk in exact.chunks(IN_LIST_MAX) {
        let mut names = Vec::with_capacity(chunk.len());
        for s in chunk {
            n += 1;
            names.push(format!(":sys{n}"));
            binds.push((format!("sys{n}"), BindValue::Text((*s).clone())));
        }
        terms.push(format!("{column} NOT IN ({})", names.join(", ")));
    }
    for s in schemas.iter().filter(|s| s.contains('%')) {
        n += 1;
        terms.push(format!("{column} NOT LIKE :sys{n} ESCAPE '\\'"));
        binds.push((format!("sys{n}"), BindValue::Text(s.clone())));
    }
    if terms.is_empty() {
        "1 = 1".to_string()
    } else {
        terms.join(" AND ")
    }
}

/// The `V$LOGMNR_CONTENTS` query of one bounded window. `oracle_schemas`
/// are left out when the query names no owners (see [`ORACLE_SCHEMAS`]).
pub fn contents_query(
    query: &ContentsQuery,
    major_version: u32,
    oracle_schemas: &[String],
) -> BoundSql {
    let mut binds = vec![
        ("from_scn".to_string(), BindValue::Number(query.from_scn)),
        ("to_scn".to_string(), BindValue::Number(query.to_scn)),
    ];
    let mut text = contents_select_list(major_version);
    text.push_str(
        " FROM V$LOGMNR_CONTENTS WHERE SCN > :from_scn AND SCN <= :to_scn AND (OPERATION_CODE IN (",
    );
    text.push_str(CONTROL_CODES);
    text.push_str(") OR (OPERATION_CODE IN (");
    text.push_str(CHANGE_CODES);
    text.push_str(
        ") AND (OPERATION_CODE <> 5 OR INFO IS NULL OR INFO NOT LIKE 'INTERNAL DDL%') AND ",
    );
    // Rows LogMiner could not attribute (owner NULL, or `UNKNOWN` when the
    // dictionary does not know the object) always pass: the engine must
    // report them as dictionary mismatches, never lose them.
    text.push_str("(SEG_OWNER IS NULL OR SEG_OWNER = 'UNKNOWN' OR ");
    let terms = owner_filter("SEG_OWNER", &query.owners, "owner", is_pattern, &mut binds);
    if terms.is_empty() {
        text.push('(');
        text.push_str(&schema_exclusion("SEG_OWNER", oracle_schemas, &mut binds));
        text.push(')');
    } else if terms.len() == 1 {
        text.push_str(&terms[0]);
    } else {
        let _ = write!(text, "({})", terms.join(" OR "));
    }
    text.push_str(")))");
    if let Some(pdb) = &query.pdb {
        text.push_str(" AND SRC_CON_NAME = :pdb");
        binds.push(("pdb".to_string(), BindValue::Text(pdb.clone())));
    }
    BoundSql { text, binds }
}

/// Quotes a dictionary identifier. Identifiers containing a double quote or
/// a NUL cannot be quoted safely and are refused.
pub fn quote_ident(name: &str) -> Option<String> {
    if name.is_empty() || name.contains('"') || name.contains('\0') {
        return None;
    }
    Some(format!("\"{name}\""))
}

/// How a column's value is read as the engine's canonical text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `TO_CHAR` of a NUMBER or FLOAT: the same decimal text SQL_REDO shows.
    Number,
    Date,
    Timestamp,
    TimestampTz,
    /// RAW as lower-case hex.
    Raw,
    /// Character data read as is (VARCHAR2, CHAR, NVARCHAR2, NCHAR, CLOB, NCLOB).
    Text,
    /// BLOB, read as bytes and hex-encoded by the backend.
    Blob,
    /// INTERVAL and ROWID types, read through `TO_CHAR`.
    OtherText,
}

impl ValueKind {
    /// The kind for an `ALL_TAB_COLS.DATA_TYPE`, or `None` when a snapshot
    /// cannot read the type faithfully (LONG, object types, XMLTYPE, ...).
    pub fn from_data_type(data_type: &str) -> Option<Self> {
        let t = data_type.trim();
        Some(match t {
            "NUMBER" | "FLOAT" | "BINARY_FLOAT" | "BINARY_DOUBLE" | "INTEGER" => Self::Number,
            "DATE" => Self::Date,
            "RAW" => Self::Raw,
            "VARCHAR2" | "VARCHAR" | "CHAR" | "NVARCHAR2" | "NCHAR" | "CLOB" | "NCLOB" => {
                Self::Text
            }
            "BLOB" => Self::Blob,
            "ROWID" | "UROWID" => Self::OtherText,
            _ if t.starts_with("TIMESTAMP") && t.ends_with("WITH TIME ZONE") => Self::TimestampTz,
            _ if t.starts_with("TIMESTAMP") && t.ends_with("WITH LOCAL TIME ZONE") => {
                Self::Timestamp
            }
            _ if t.starts_with("TIMESTAMP") => Self::Timestamp,
            _ if t.starts_with("INTERVAL") => Self::OtherText,
            _ => return None,
        })
    }

    /// The select expression of a quoted column.
    pub fn select_expr(self, quoted: &str) -> String {
        match self {
            Self::Number | Self::OtherText => format!("TO_CHAR({quoted})"),
            Self::Date => format!("TO_CHAR({quoted}, '{DATE_FORMAT}')"),
            Self::Timestamp => format!("TO_CHAR({quoted}, '{TIMESTAMP_FORMAT}')"),
            Self::TimestampTz => format!("TO_CHAR({quoted}, '{TIMESTAMP_TZ_FORMAT}')"),
            Self::Raw => format!("LOWER(RAWTOHEX({quoted}))"),
            Self::Text | Self::Blob => quoted.to_string(),
        }
    }

    /// How a read gives this kind's values (see [`Self::select_expr`]).
    pub fn read_form(self) -> crate::engine::snapshot::ReadForm {
        use crate::engine::snapshot::ReadForm;
        match self {
            Self::Date => ReadForm::Date,
            Self::Timestamp => ReadForm::Timestamp,
            Self::TimestampTz => ReadForm::TimestampTz,
            Self::Number | Self::Raw | Self::Text | Self::Blob | Self::OtherText => ReadForm::AsIs,
        }
    }

    /// The bind of a key value given in canonical text, converted back to
    /// the column's type so the comparison uses the column's ordering.
    pub fn bind_expr(self, bind: &str) -> String {
        match self {
            Self::Number => format!("TO_NUMBER(:{bind})"),
            Self::Date => format!("TO_DATE(:{bind}, '{DATE_FORMAT}')"),
            Self::Timestamp => format!("TO_TIMESTAMP(:{bind}, '{TIMESTAMP_FORMAT}')"),
            Self::TimestampTz => format!("TO_TIMESTAMP_TZ(:{bind}, '{TIMESTAMP_TZ_FORMAT}')"),
            Self::Raw => format!("HEXTORAW(:{bind})"),
            Self::Text | Self::Blob | Self::OtherText => format!(":{bind}"),
        }
    }
}

pub use snapshot::{
    snapshot_chunk, snapshot_key_after, Extent, SnapshotColumn, SnapshotKey, SnapshotRead,
    TABLE_EXTENTS, TABLE_SEGMENT_IDS,
};

// ---------------------------------------------------------------- catalog

/// Instance identity and redo settings.
pub const INSTANCE_DATABASE: &str =
    "SELECT NAME, LOG_MODE, SUPPLEMENTAL_LOG_DATA_MIN, SUPPLEMENTAL_LOG_DATA_PK, \
SUPPLEMENTAL_LOG_DATA_UI, SUPPLEMENTAL_LOG_DATA_ALL, FORCE_LOGGING, DATABASE_ROLE, OPEN_MODE, \
TO_CHAR(CURRENT_SCN), TO_CHAR(SYSDATE, 'YYYY-MM-DD HH24:MI:SS') FROM V$DATABASE";

/// `V$DATABASE.CDB` exists from 12c.
pub const INSTANCE_CDB: &str = "SELECT CDB FROM V$DATABASE";

/// `VERSION_FULL` exists from 18c; `VERSION` before.
pub const INSTANCE_VERSION_FULL: &str = "SELECT INSTANCE_NAME, VERSION_FULL FROM V$INSTANCE";
pub const INSTANCE_VERSION: &str = "SELECT INSTANCE_NAME, VERSION FROM V$INSTANCE";

pub const VERSION_BANNER: &str = "SELECT BANNER FROM V$VERSION WHERE ROWNUM = 1";

/// The parameters preflight reads.
pub const PARAMETERS: &str = "SELECT NAME, VALUE FROM V$PARAMETER WHERE NAME IN (\
'compatible', 'db_recovery_file_dest', 'db_recovery_file_dest_size', 'enable_goldengate_replication', \
'log_archive_dest_1', 'log_archive_format', 'pga_aggregate_limit', 'pga_aggregate_target', \
'processes', 'sessions', 'streams_pool_size', 'undo_management', 'undo_retention', 'undo_tablespace', \
'max_string_size', 'archive_lag_target', 'cluster_database', 'db_block_size', 'enable_pluggable_database', \
'control_file_record_keep_time') ORDER BY NAME";

/// The database and national character sets: LogMiner prints character
/// data it cannot show as text as `HEXTORAW`, in these encodings.
pub const CHARACTER_SETS: &str = "SELECT PARAMETER, VALUE FROM NLS_DATABASE_PARAMETERS \
WHERE PARAMETER IN ('NLS_CHARACTERSET', 'NLS_NCHAR_CHARACTERSET') ORDER BY PARAMETER";

/// PDBs with their application-container roles (columns from 12.2).
pub const PDBS: &str =
    "SELECT NAME, TO_CHAR(CON_ID), OPEN_MODE, RESTRICTED, APPLICATION_ROOT, APPLICATION_PDB \
FROM V$PDBS ORDER BY CON_ID";

/// 12.1 has no application containers.
pub const PDBS_12_1: &str =
    "SELECT NAME, TO_CHAR(CON_ID), OPEN_MODE, RESTRICTED, NULL, NULL FROM V$PDBS ORDER BY CON_ID";

pub const RECOVERY_AREA: &str =
    "SELECT NAME, TO_CHAR(SPACE_LIMIT), TO_CHAR(SPACE_USED), TO_CHAR(SPACE_RECLAIMABLE), \
TO_CHAR(NUMBER_OF_FILES) FROM V$RECOVERY_FILE_DEST";

pub const RECOVERY_AREA_ARCHIVED: &str =
    "SELECT TO_CHAR(PERCENT_SPACE_RECLAIMABLE) FROM V$RECOVERY_AREA_USAGE WHERE FILE_TYPE = 'ARCHIVED LOG'";

pub const FAILED_ARCHIVE_DESTS: &str =
    "SELECT DEST_NAME FROM V$ARCHIVE_DEST WHERE STATUS IN ('FULL', 'ERROR') ORDER BY DEST_ID";

/// `V$SERVICES.PDB` exists from 12c.
pub const SERVICES: &str = "SELECT NAME, NETWORK_NAME, PDB FROM V$SERVICES ORDER BY NAME";
pub const SERVICES_11G: &str = "SELECT NAME, NETWORK_NAME, NULL FROM V$SERVICES ORDER BY NAME";

pub const UNDO_TABLESPACE: &str = "SELECT T.TABLESPACE_NAME, T.RETENTION, \
(SELECT CASE WHEN COUNT(*) > 0 THEN 'YES' ELSE 'NO' END FROM DBA_DATA_FILES F \
WHERE F.TABLESPACE_NAME = T.TABLESPACE_NAME AND F.AUTOEXTENSIBLE = 'YES') \
FROM DBA_TABLESPACES T WHERE T.CONTENTS = 'UNDO' AND T.TABLESPACE_NAME = \
(SELECT UPPER(VALUE) FROM V$PARAMETER WHERE NAME = 'undo_tablespace')";

pub const UNDO_STATS: &str =
    "SELECT TO_CHAR(MAX(CASE WHEN END_TIME > SYSDATE - 1/24 THEN TUNED_UNDORETENTION END)), \
TO_CHAR(NVL(SUM(SSOLDERRCNT), 0)), TO_CHAR(NVL(SUM(NOSPACEERRCNT), 0)) FROM V$UNDOSTAT";

pub const WALLET_STATUS: &str = "SELECT STATUS FROM V$ENCRYPTION_WALLET WHERE ROWNUM = 1";

pub const ENCRYPTED_TABLESPACES: &str =
    "SELECT TABLESPACE_NAME FROM DBA_TABLESPACES WHERE ENCRYPTED = 'YES' ORDER BY TABLESPACE_NAME";

/// Peak log switches in one hour over the last week, and how many hours
/// the history covers (from the first switch seen in that week until now).
pub const SWITCH_HISTORY: &str =
    "SELECT TO_CHAR(NVL(MAX(N), 0)), TO_CHAR(NVL(CEIL((SYSDATE - MIN(H)) * 24), 0)) FROM (\
SELECT TRUNC(FIRST_TIME, 'HH24') H, COUNT(*) N FROM V$LOG_HISTORY \
WHERE FIRST_TIME > SYSDATE - 7 GROUP BY TRUNC(FIRST_TIME, 'HH24'))";

/// The connected user and container.
pub const SESSION_CONTEXT: &str =
    "SELECT SYS_CONTEXT('USERENV', 'SESSION_USER'), SYS_CONTEXT('USERENV', 'CON_NAME'), \
SYS_CONTEXT('USERENV', 'SERVICE_NAME') FROM DUAL";

/// 11g has no containers.
pub const SESSION_CONTEXT_11G: &str = "SELECT SYS_CONTEXT('USERENV', 'SESSION_USER'), NULL, \
SYS_CONTEXT('USERENV', 'SERVICE_NAME') FROM DUAL";

pub const SESSION_PRIVS: &str = "SELECT PRIVILEGE FROM SESSION_PRIVS ORDER BY PRIVILEGE";
pub const SESSION_ROLES: &str = "SELECT ROLE FROM SESSION_ROLES ORDER BY ROLE";

/// The user's own account (`USER_USERS` needs no privilege; it has no
/// PROFILE column, see [`USER_PROFILE`]).
pub const USER_ACCOUNT: &str = "SELECT DEFAULT_TABLESPACE, ACCOUNT_STATUS, \
TO_CHAR(EXPIRY_DATE, 'YYYY-MM-DD HH24:MI:SS') FROM USER_USERS";

/// The profile is only in `DBA_USERS`.
pub const USER_PROFILE: &str = "SELECT PROFILE FROM DBA_USERS WHERE USERNAME = :username";

/// `ALL_USERS.COMMON` exists from 12c and needs no privilege.
pub const USER_COMMON: &str = "SELECT COMMON FROM ALL_USERS WHERE USERNAME = :username";

pub const USER_QUOTA: &str =
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM USER_TS_QUOTAS Q, USER_USERS U \
WHERE Q.TABLESPACE_NAME = U.DEFAULT_TABLESPACE AND (Q.MAX_BYTES = -1 OR Q.MAX_BYTES > 0)) \
OR EXISTS (SELECT 1 FROM SESSION_PRIVS WHERE PRIVILEGE = 'UNLIMITED TABLESPACE') \
THEN 'YES' ELSE 'NO' END FROM DUAL";

pub const PROFILE_LIMITS: &str =
    "SELECT RESOURCE_NAME, LIMIT FROM DBA_PROFILES WHERE PROFILE = :profile \
AND RESOURCE_NAME IN ('IDLE_TIME', 'CONNECT_TIME', 'PASSWORD_LIFE_TIME')";

pub const CONTAINER_DATA: &str =
    "SELECT NVL(CONTAINER_NAME, 'ALL') FROM CDB_CONTAINER_DATA WHERE USERNAME = :username ORDER BY 1";

/// Objects a CDC user must be able to use, probed one by one.
pub const PROBED_OBJECTS: &[(&str, &str)] = &[
    ("V$DATABASE", "SELECT 1 FROM V$DATABASE WHERE ROWNUM = 1"),
    ("V$LOG", "SELECT 1 FROM V$LOG WHERE ROWNUM = 1"),
    ("V$LOGFILE", "SELECT 1 FROM V$LOGFILE WHERE ROWNUM = 1"),
    (
        "V$ARCHIVED_LOG",
        "SELECT 1 FROM V$ARCHIVED_LOG WHERE ROWNUM = 1",
    ),
    (
        "V$ARCHIVE_DEST",
        "SELECT 1 FROM V$ARCHIVE_DEST WHERE ROWNUM = 1",
    ),
    (
        "V$ARCHIVE_DEST_STATUS",
        "SELECT 1 FROM V$ARCHIVE_DEST_STATUS WHERE ROWNUM = 1",
    ),
    ("V$THREAD", "SELECT 1 FROM V$THREAD WHERE ROWNUM = 1"),
    (
        "V$TRANSACTION",
        "SELECT 1 FROM V$TRANSACTION WHERE ROWNUM = 1",
    ),
    ("V$SESSION", "SELECT 1 FROM V$SESSION WHERE ROWNUM = 1"),
    (
        "V$LOGMNR_CONTENTS",
        "SELECT 1 FROM V$LOGMNR_CONTENTS WHERE 1 = 0",
    ),
    ("V$LOGMNR_LOGS", "SELECT 1 FROM V$LOGMNR_LOGS WHERE 1 = 0"),
    (
        "DBA_TABLESPACES",
        "SELECT 1 FROM DBA_TABLESPACES WHERE ROWNUM = 1",
    ),
    ("DBA_SEGMENTS", "SELECT 1 FROM DBA_SEGMENTS WHERE 1 = 0"),
];

/// The probe of EXECUTE on `DBMS_LOGMNR`, run when no LogMiner session is
/// open. No view shows an EXECUTE grant received through a role, so the
/// package is called: ORA-01307 (no session to end) proves the grant, and
/// ORA-06550 with PLS-00201 means the user cannot execute it.
pub const PROBE_DBMS_LOGMNR: (&str, &str) = ("DBMS_LOGMNR", END_LOGMNR);

/// Tables matching `owner LIKE :owner AND table LIKE :table`; owners Oracle
/// maintains (`oracle_schemas`, bound) are left out when the pattern is `%`.
pub fn tables_matching(owner: &str, table: &str, oracle_schemas: &[String]) -> BoundSql {
    let mut binds = vec![
        ("owner".to_string(), BindValue::Text(owner.to_string())),
        ("table_name".to_string(), BindValue::Text(table.to_string())),
    ];
    let exclusion = schema_exclusion("T.OWNER", oracle_schemas, &mut binds);
    let text = format!(
        "SELECT T.OWNER, T.TABLE_NAME, NVL(T.LOGGING, (SELECT P.DEF_LOGGING FROM ALL_PART_TABLES P \
WHERE P.OWNER = T.OWNER AND P.TABLE_NAME = T.TABLE_NAME)), T.TEMPORARY, T.IOT_TYPE, T.NESTED, T.COMPRESS_FOR, \
TO_CHAR(T.NUM_ROWS), TO_CHAR(O.OBJECT_ID), TO_CHAR(O.DATA_OBJECT_ID), \
TO_CHAR(O.LAST_DDL_TIME, 'YYYY-MM-DD HH24:MI:SS') \
FROM ALL_TABLES T JOIN ALL_OBJECTS O ON O.OWNER = T.OWNER AND O.OBJECT_NAME = T.TABLE_NAME \
AND O.OBJECT_TYPE = 'TABLE' \
WHERE T.OWNER LIKE :owner AND T.TABLE_NAME LIKE :table_name \
AND (:owner <> '%' OR ({exclusion})) \
ORDER BY T.OWNER, T.TABLE_NAME"
    );
    BoundSql { text, binds }
}

/// Columns with their hidden and virtual flags. `USER_GENERATED` (12c)
/// tells an invisible column (hidden, but the user's and in redo) from
/// Oracle's own hidden columns.
pub const TABLE_COLUMNS: &str =
    "SELECT COLUMN_NAME, DATA_TYPE, DATA_TYPE_OWNER, NULLABLE, TO_CHAR(DATA_LENGTH), \
TO_CHAR(DATA_PRECISION), TO_CHAR(DATA_SCALE), HIDDEN_COLUMN, VIRTUAL_COLUMN, USER_GENERATED \
FROM ALL_TAB_COLS WHERE OWNER = :owner AND TABLE_NAME = :table_name \
ORDER BY COLUMN_ID NULLS LAST, INTERNAL_COLUMN_ID";

/// 11g has no invisible columns and no `USER_GENERATED`: every hidden
/// column there is Oracle's.
pub const TABLE_COLUMNS_11G: &str =
    "SELECT COLUMN_NAME, DATA_TYPE, DATA_TYPE_OWNER, NULLABLE, TO_CHAR(DATA_LENGTH), \
TO_CHAR(DATA_PRECISION), TO_CHAR(DATA_SCALE), HIDDEN_COLUMN, VIRTUAL_COLUMN, 'NO' \
FROM ALL_TAB_COLS WHERE OWNER = :owner AND TABLE_NAME = :table_name \
ORDER BY COLUMN_ID NULLS LAST, INTERNAL_COLUMN_ID";

/// The column query of a release.
pub fn table_columns(major_version: u32) -> &'static str {
    if major_version >= 12 {
        TABLE_COLUMNS
    } else {
        TABLE_COLUMNS_11G
    }
}

pub const TABLE_KEYS: &str = "SELECT C.CONSTRAINT_NAME, C.CONSTRAINT_TYPE, C.STATUS, CC.COLUMN_NAME \
FROM ALL_CONSTRAINTS C JOIN ALL_CONS_COLUMNS CC ON CC.OWNER = C.OWNER AND CC.CONSTRAINT_NAME = C.CONSTRAINT_NAME \
WHERE C.OWNER = :owner AND C.TABLE_NAME = :table_name AND C.CONSTRAINT_TYPE IN ('P', 'U') \
ORDER BY C.CONSTRAINT_TYPE, C.CONSTRAINT_NAME, CC.POSITION";

pub const TABLE_INDEXES: &str = "SELECT I.INDEX_NAME, I.UNIQUENESS, I.PARTITIONED, I.STATUS, IC.COLUMN_NAME, \
NULL, (SELECT PI.LOCALITY FROM ALL_PART_INDEXES PI WHERE PI.OWNER = I.OWNER AND PI.INDEX_NAME = I.INDEX_NAME) \
FROM ALL_INDEXES I JOIN ALL_IND_COLUMNS IC ON IC.INDEX_OWNER = I.OWNER AND IC.INDEX_NAME = I.INDEX_NAME \
WHERE I.TABLE_OWNER = :owner AND I.TABLE_NAME = :table_name \
ORDER BY I.INDEX_NAME, IC.COLUMN_POSITION";

/// Unusable local index partitions, one row each (a LISTAGG could overflow
/// 4000 bytes on tables with thousands of partitions).
pub const TABLE_UNUSABLE_INDEX_PARTITIONS: &str = "SELECT P.INDEX_NAME, P.PARTITION_NAME FROM ALL_IND_PARTITIONS P \
WHERE P.STATUS = 'UNUSABLE' AND (P.INDEX_OWNER, P.INDEX_NAME) IN \
(SELECT I.OWNER, I.INDEX_NAME FROM ALL_INDEXES I WHERE I.TABLE_OWNER = :owner AND I.TABLE_NAME = :table_name) \
ORDER BY P.INDEX_NAME, P.PARTITION_POSITION";

pub const TABLE_LOG_GROUPS: &str =
    "SELECT LOG_GROUP_NAME, LOG_GROUP_TYPE, ALWAYS FROM ALL_LOG_GROUPS \
WHERE OWNER = :owner AND TABLE_NAME = :table_name ORDER BY LOG_GROUP_NAME";

pub const TABLE_PARTITIONING: &str = "SELECT P.PARTITIONING_TYPE, P.SUBPARTITIONING_TYPE, P.INTERVAL, \
(SELECT LISTAGG(K.COLUMN_NAME, ',') WITHIN GROUP (ORDER BY K.COLUMN_POSITION) FROM ALL_PART_KEY_COLUMNS K \
WHERE K.OWNER = P.OWNER AND K.NAME = P.TABLE_NAME AND K.OBJECT_TYPE = 'TABLE') \
FROM ALL_PART_TABLES P WHERE P.OWNER = :owner AND P.TABLE_NAME = :table_name";

/// `HIGH_VALUE` is a LONG: read it first in its own column so the driver
/// fetches it whole.
pub const TABLE_PARTITIONS: &str = "SELECT P.PARTITION_NAME, TO_CHAR(P.PARTITION_POSITION), P.HIGH_VALUE, \
TO_CHAR(P.NUM_ROWS), TO_CHAR(O.OBJECT_ID), TO_CHAR(O.DATA_OBJECT_ID), \
TO_CHAR(O.CREATED, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(O.LAST_DDL_TIME, 'YYYY-MM-DD HH24:MI:SS'), \
P.INTERVAL, TO_CHAR(P.SUBPARTITION_COUNT) \
FROM ALL_TAB_PARTITIONS P JOIN ALL_OBJECTS O ON O.OWNER = P.TABLE_OWNER AND O.OBJECT_NAME = P.TABLE_NAME \
AND O.SUBOBJECT_NAME = P.PARTITION_NAME AND O.OBJECT_TYPE = 'TABLE PARTITION' \
WHERE P.TABLE_OWNER = :owner AND P.TABLE_NAME = :table_name ORDER BY P.PARTITION_POSITION";

/// 11g's ALL_TAB_PARTITIONS has no INTERVAL column before 11.2; read it as NULL there.
pub const TABLE_PARTITIONS_11G: &str = "SELECT P.PARTITION_NAME, TO_CHAR(P.PARTITION_POSITION), P.HIGH_VALUE, \
TO_CHAR(P.NUM_ROWS), TO_CHAR(O.OBJECT_ID), TO_CHAR(O.DATA_OBJECT_ID), \
TO_CHAR(O.CREATED, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(O.LAST_DDL_TIME, 'YYYY-MM-DD HH24:MI:SS'), \
NULL, TO_CHAR(P.SUBPARTITION_COUNT) \
FROM ALL_TAB_PARTITIONS P JOIN ALL_OBJECTS O ON O.OWNER = P.TABLE_OWNER AND O.OBJECT_NAME = P.TABLE_NAME \
AND O.SUBOBJECT_NAME = P.PARTITION_NAME AND O.OBJECT_TYPE = 'TABLE PARTITION' \
WHERE P.TABLE_OWNER = :owner AND P.TABLE_NAME = :table_name ORDER BY P.PARTITION_POSITION";

pub const TABLE_SEGMENT_BYTES: &str = "SELECT TO_CHAR(SUM(BYTES)) FROM DBA_SEGMENTS \
WHERE OWNER = :owner AND SEGMENT_NAME = :table_name AND SEGMENT_TYPE LIKE 'TABLE%'";

/// Bytes per partition segment.
pub const PARTITION_SEGMENT_BYTES: &str =
    "SELECT PARTITION_NAME, TO_CHAR(SUM(BYTES)) FROM DBA_SEGMENTS \
WHERE OWNER = :owner AND SEGMENT_NAME = :table_name AND SEGMENT_TYPE = 'TABLE PARTITION' \
GROUP BY PARTITION_NAME";

pub const TABLE_ENCRYPTED: &str = "SELECT T.ENCRYPTED FROM DBA_TABLESPACES T JOIN ALL_TABLES A \
ON A.TABLESPACE_NAME = T.TABLESPACE_NAME WHERE A.OWNER = :owner AND A.TABLE_NAME = :table_name";

pub const TABLE_GRANTS: &str = "SELECT DISTINCT PRIVILEGE FROM ALL_TAB_PRIVS \
WHERE TABLE_SCHEMA = :owner AND TABLE_NAME = :table_name \
AND (GRANTEE = SYS_CONTEXT('USERENV', 'SESSION_USER') OR GRANTEE IN (SELECT ROLE FROM SESSION_ROLES) \
OR GRANTEE = 'PUBLIC') ORDER BY PRIVILEGE";

/// Open transactions, oldest first, with the container each runs in
/// (`CON_ID_TO_CON_NAME` exists from 18c; the 12.2 reference lists only
/// CON_NAME_TO_ID, CON_DBID_TO_ID and CON_UID_TO_ID) and the session that
/// holds each (user, program, machine, SID and SERIAL#). The last column
/// is the instance, which only the cluster's GV$ form reads: on a single
/// instance `KILL SESSION` needs no `@INST_ID`.
pub const OPEN_TRANSACTIONS: &str = "SELECT RAWTOHEX(T.XID), TO_CHAR(T.START_SCN), \
TO_CHAR(T.START_DATE, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(T.USED_UREC), S.USERNAME, \
CON_ID_TO_CON_NAME(T.CON_ID), S.PROGRAM, S.MACHINE, TO_CHAR(S.SID), TO_CHAR(S.SERIAL#), NULL \
FROM V$TRANSACTION T LEFT JOIN V$SESSION S ON S.SADDR = T.SES_ADDR ORDER BY T.START_SCN";

/// 12.1 and 12.2 name the container through `V$CONTAINERS`, which has a row
/// per container (CON_ID 0 on a non-CDB).
pub const OPEN_TRANSACTIONS_12: &str = "SELECT RAWTOHEX(T.XID), TO_CHAR(T.START_SCN), \
TO_CHAR(T.START_DATE, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(T.USED_UREC), S.USERNAME, C.NAME, \
S.PROGRAM, S.MACHINE, TO_CHAR(S.SID), TO_CHAR(S.SERIAL#), NULL \
FROM V$TRANSACTION T LEFT JOIN V$SESSION S ON S.SADDR = T.SES_ADDR \
LEFT JOIN V$CONTAINERS C ON C.CON_ID = T.CON_ID ORDER BY T.START_SCN";

/// RAC (`cluster_database = TRUE`): V$TRANSACTION shows only the local
/// instance's transactions, so read every instance's through the GV$ views,
/// joining sessions on the instance as well as the address.
pub const OPEN_TRANSACTIONS_RAC: &str = "SELECT RAWTOHEX(T.XID), TO_CHAR(T.START_SCN), \
TO_CHAR(T.START_DATE, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(T.USED_UREC), S.USERNAME, \
CON_ID_TO_CON_NAME(T.CON_ID), S.PROGRAM, S.MACHINE, TO_CHAR(S.SID), TO_CHAR(S.SERIAL#), TO_CHAR(T.INST_ID) \
FROM GV$TRANSACTION T LEFT JOIN GV$SESSION S ON S.INST_ID = T.INST_ID AND S.SADDR = T.SES_ADDR \
ORDER BY T.START_SCN";

/// RAC before 18c: no container name to read.
pub const OPEN_TRANSACTIONS_RAC_NO_CON: &str = "SELECT RAWTOHEX(T.XID), TO_CHAR(T.START_SCN), \
TO_CHAR(T.START_DATE, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(T.USED_UREC), S.USERNAME, NULL, \
S.PROGRAM, S.MACHINE, TO_CHAR(S.SID), TO_CHAR(S.SERIAL#), TO_CHAR(T.INST_ID) \
FROM GV$TRANSACTION T LEFT JOIN GV$SESSION S ON S.INST_ID = T.INST_ID AND S.SADDR = T.SES_ADDR \
ORDER BY T.START_SCN";

/// The open-transaction statement on a cluster and its ORA-00904 fallback:
/// the container's name comes from CON_ID_TO_CON_NAME, which exists from
/// 18c; a 12.x cluster reads no name.
pub fn open_transactions_rac_statements(major_version: u32) -> (&'static str, &'static str) {
    if major_version >= 18 {
        (OPEN_TRANSACTIONS_RAC, OPEN_TRANSACTIONS_RAC_NO_CON)
    } else {
        (OPEN_TRANSACTIONS_RAC_NO_CON, OPEN_TRANSACTIONS_RAC_NO_CON)
    }
}

/// Whether the instance is part of a cluster (`cluster_database`).
pub const CLUSTER_DATABASE: &str =
    "SELECT UPPER(VALUE) FROM V$PARAMETER WHERE NAME = 'cluster_database'";

/// 11g has no containers.
pub const OPEN_TRANSACTIONS_NO_CON: &str = "SELECT RAWTOHEX(T.XID), TO_CHAR(T.START_SCN), \
TO_CHAR(T.START_DATE, 'YYYY-MM-DD HH24:MI:SS'), TO_CHAR(T.USED_UREC), S.USERNAME, NULL, \
S.PROGRAM, S.MACHINE, TO_CHAR(S.SID), TO_CHAR(S.SERIAL#), NULL \
FROM V$TRANSACTION T LEFT JOIN V$SESSION S ON S.SADDR = T.SES_ADDR ORDER BY T.START_SCN";

/// The flashback probe of a table in scope.
pub fn flashback_probe(owner: &str, table: &str) -> Option<String> {
    Some(format!(
        "SELECT 1 FROM {}.{} AS OF SCN :scn WHERE ROWNUM = 1",
        quote_ident(owner)?,
        quote_ident(table)?
    ))
}
