//! The snapshot's statements: the flashback read of one chunk, where a
//! reader beside it starts, and the segment lookups of reads by ROWID.

use std::fmt::Write as _;

use super::{quote_ident, BindValue, BoundSql, ValueKind};

/// A column of a snapshot read, as found in the dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotColumn {
    pub name: String,
    pub kind: ValueKind,
}

/// The ordering key of a snapshot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotKey {
    /// Primary-key (or NOT NULL unique-key) columns, by name.
    Columns(Vec<SnapshotColumn>),
    /// No usable key: order by ROWID, which is stable within one `AS OF SCN`.
    RowId,
}

/// One chunk of a snapshot read.
#[derive(Debug, Clone, Copy)]
pub struct SnapshotRead<'a> {
    pub owner: &'a str,
    pub table: &'a str,
    pub columns: &'a [SnapshotColumn],
    pub key: &'a SnapshotKey,
    /// The previous chunk's last key, in canonical text.
    pub after_key: Option<&'a [String]>,
    pub limit: usize,
    pub as_of_scn: u64,
    /// With a ROWID key: read only this extent, so the sort behind
    /// `ORDER BY ROWID` covers one extent rather than the rest of the table.
    pub extent: Option<&'a Extent>,
}

/// One extent of a table segment (`DBA_EXTENTS`), with the data object
/// number its ROWIDs carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent {
    pub data_object_id: u64,
    pub relative_fno: u64,
    pub first_block: u64,
    pub last_block: u64,
}

/// The extents of a table's segments (partitions and subpartitions
/// included), in ROWID order: data object, relative file, block. The
/// tablespace's BIGFILE flag comes along because bigfile ROWIDs encode the
/// block differently and are read without extent ranges.
pub const TABLE_EXTENTS: &str = "SELECT TO_CHAR(O.DATA_OBJECT_ID), TO_CHAR(E.RELATIVE_FNO), \
TO_CHAR(E.BLOCK_ID), TO_CHAR(E.BLOCK_ID + E.BLOCKS - 1), T.BIGFILE \
FROM DBA_EXTENTS E JOIN ALL_OBJECTS O ON O.OWNER = E.OWNER AND O.OBJECT_NAME = E.SEGMENT_NAME \
AND NVL(O.SUBOBJECT_NAME, ' ') = NVL(E.PARTITION_NAME, ' ') AND O.OBJECT_TYPE = E.SEGMENT_TYPE \
JOIN DBA_TABLESPACES T ON T.TABLESPACE_NAME = E.TABLESPACE_NAME \
WHERE E.OWNER = :owner AND E.SEGMENT_NAME = :table_name \
AND E.SEGMENT_TYPE IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION') \
ORDER BY O.DATA_OBJECT_ID, E.RELATIVE_FNO, E.BLOCK_ID";

/// The data object ids of a table's segments now: the table's own, or
/// each partition's and subpartition's (a partitioned table and the
/// partitions of a composite-partitioned one have none). A snapshot read
/// by ROWID compares them before each chunk; the query is cheaper than
/// [`TABLE_EXTENTS`] and needs no `DBA_` grant.
pub const TABLE_SEGMENT_IDS: &str = "SELECT TO_CHAR(DATA_OBJECT_ID) FROM ALL_OBJECTS \
WHERE OWNER = :owner AND OBJECT_NAME = :table_name \
AND OBJECT_TYPE IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION') \
AND DATA_OBJECT_ID IS NOT NULL ORDER BY DATA_OBJECT_ID";

/// Builds the flashback read of one chunk: `AS OF SCN`, keyset pagination
/// after the previous chunk's last key, at most `:limit` rows.
///
/// Oracle has no row-value `>` comparison, so `(a, b) > (:k1, :k2)` is
/// spelled `a > :k1 OR (a = :k1 AND b > :k2)`, led by `a >= :k1`: the
/// optimizer takes no access predicate out of the OR, so without that
/// conjunct each chunk may scan and sort the rest of the table. 11g has no
/// `FETCH FIRST` and gets the `ROWNUM` form. Returns `None` if an
/// identifier cannot be quoted.
pub fn snapshot_chunk(read: &SnapshotRead<'_>, major_version: u32) -> Option<BoundSql> {
    let SnapshotRead {
        owner,
        table,
        columns,
        key,
        after_key,
        limit,
        as_of_scn,
        extent,
    } = *read;
    let from = format!("{}.{}", quote_ident(owner)?, quote_ident(table)?);
    // Aliases keep the 11g inline view's column names plain and unique.
    let mut select = Vec::with_capacity(columns.len() + 1);
    for (i, c) in columns.iter().enumerate() {
        select.push(format!(
            "{} AS C{}",
            c.kind.select_expr(&quote_ident(&c.name)?),
            i + 1
        ));
    }
    // Key columns (as comparable expressions and bind conversions).
    let mut key_cols: Vec<(String, ValueKind)> = Vec::new();
    match key {
        SnapshotKey::Columns(cols) => {
            for c in cols {
                key_cols.push((quote_ident(&c.name)?, c.kind));
            }
        }
        SnapshotKey::RowId => {
            select.push(format!("ROWIDTOCHAR(ROWID) AS C{}", columns.len() + 1));
            key_cols.push(("ROWID".to_string(), ValueKind::OtherText));
        }
    }
    let mut binds = vec![("scn".to_string(), BindValue::Number(as_of_scn))];
    let mut text = format!("SELECT {} FROM {from} AS OF SCN :scn", select.join(", "));
    let mut conditions = Vec::new();
    if let (Some(e), SnapshotKey::RowId) = (extent, key) {
        // Row 0 to the largest row number of a block: every ROWID the
        // extent can hold.
        conditions.push(
            "ROWID BETWEEN SYS.DBMS_ROWID.ROWID_CREATE(1, :objd, :fno, :first_block, 0) \
AND SYS.DBMS_ROWID.ROWID_CREATE(1, :objd, :fno, :last_block, 32767)"
                .to_string(),
        );
        binds.push(("objd".to_string(), BindValue::Number(e.data_object_id)));
        binds.push(("fno".to_string(), BindValue::Number(e.relative_fno)));
        binds.push(("first_block".to_string(), BindValue::Number(e.first_block)));
        binds.push(("last_block".to_string(), BindValue::Number(e.last_block)));
    }
    if let Some(after) = after_key {
        let mut disjuncts = Vec::with_capacity(key_cols.len());
        for i in 0..key_cols.len() {
            let mut terms = Vec::with_capacity(i + 1);
            for (j, (col, kind)) in key_cols.iter().enumerate().take(i + 1) {
                let bind = format!("k{}", j + 1);
                let op = if j == i { ">" } else { "=" };
                let value = if *kind == ValueKind::OtherText && col == "ROWID" {
                    format!("CHARTOROWID(:{bind})")
                } else {
                    kind.bind_expr(&bind)
                };
                terms.push(format!("{col} {op} {value}"));
            }
            disjuncts.push(if terms.len() == 1 {
                terms.remove(0)
            } else {
                format!("({})", terms.join(" AND "))
            });
        }
        if let (true, Some((col, kind))) = (key_cols.len() > 1, key_cols.first()) {
            conditions.push(format!("{col} >= {}", kind.bind_expr("k1")));
        }
        conditions.push(format!("({})", disjuncts.join(" OR ")));
        for (j, value) in after.iter().enumerate().take(key_cols.len()) {
            binds.push((format!("k{}", j + 1), BindValue::Text(value.clone())));
        }
    }
    if !conditions.is_empty() {
        let _ = write!(text, " WHERE {}", conditions.join(" AND "));
    }
    let order: Vec<&str> = key_cols.iter().map(|(c, _)| c.as_str()).collect();
    let _ = write!(text, " ORDER BY {}", order.join(", "));
    if major_version >= 12 {
        text.push_str(" FETCH FIRST :limit ROWS ONLY");
    } else {
        text = format!("SELECT * FROM ({text}) WHERE ROWNUM <= :limit");
    }
    binds.push(("limit".to_string(), BindValue::Number(limit as u64)));
    Some(BoundSql { text, binds })
}

/// Where the chunk after the next `:nth` rows starts: the key of the
/// `:nth` row past the read's `after_key` `AS OF SCN`, no row when fewer
/// follow. `read.columns` are the key columns alone, so the optimizer
/// answers from the key's index; readers side by side each start at such a
/// key. `ROWNUM` both ways, since 11g has no `OFFSET`.
pub fn snapshot_key_after(read: &SnapshotRead<'_>, nth: usize) -> Option<BoundSql> {
    let inner = snapshot_chunk(
        &SnapshotRead {
            limit: nth,
            ..*read
        },
        11,
    )?;
    let ordered = inner
        .text
        .strip_prefix("SELECT * FROM (")?
        .strip_suffix(") WHERE ROWNUM <= :limit")?;
    let text = format!(
        "SELECT * FROM (SELECT Q.*, ROWNUM AS RN FROM ({ordered}) Q WHERE ROWNUM <= :limit) \
WHERE RN = :nth"
    );
    let mut binds = inner.binds;
    binds.push(("nth".to_string(), BindValue::Number(nth as u64)));
    Some(BoundSql { text, binds })
}
