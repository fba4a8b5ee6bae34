//! The snapshot's reads of one DM8 table: which columns and key a read
//! takes from the dictionary, and the chunk made of the rows it returned.
//! The statement itself is [`super::sql::snapshot_chunk`].

use crate::engine::snapshot::{in_stream_form, ReadForm};
use crate::source::{SnapshotChunk, SourceError, TableFacts, TableName};

use super::sql::DmReadKind;

/// What a snapshot reads of one table, looked up once.
#[derive(Debug, Clone)]
pub(super) struct DmSnapshotMeta {
    pub(super) columns: Vec<(String, DmReadKind)>,
    /// The primary (or NOT NULL unique) key; empty reads by `ROWID`.
    pub(super) key: Vec<(String, DmReadKind)>,
}

/// The read kind of an `ALL_TAB_COLUMNS.DATA_TYPE`, or `None` for a type a
/// snapshot cannot read faithfully (INTERVAL, BFILE, object types).
pub(super) fn read_kind(data_type: &str, scale: Option<i32>) -> Option<DmReadKind> {
    let t = data_type.trim().to_ascii_uppercase();
    // DM8's TIMESTAMP defaults to 6 fractional digits.
    let digits = u8::try_from(scale.unwrap_or(6).clamp(0, 9)).unwrap_or(6);
    Some(match t.as_str() {
        "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "BYTE" | "BIT" | "DECIMAL"
        | "DEC" | "NUMERIC" | "NUMBER" | "DOUBLE" | "FLOAT" | "REAL" | "DOUBLE PRECISION" => {
            DmReadKind::Number
        }
        "CHAR" | "CHARACTER" | "VARCHAR" | "VARCHAR2" | "NCHAR" | "NVARCHAR" | "NVARCHAR2"
        | "TEXT" | "LONGVARCHAR" | "CLOB" | "NCLOB" => DmReadKind::Text,
        "BINARY" | "VARBINARY" | "RAW" | "BLOB" | "IMAGE" | "LONGVARBINARY" => DmReadKind::Bytes,
        "DATE" => DmReadKind::Date,
        "TIME" => DmReadKind::Time,
        _ if t.starts_with("TIMESTAMP") || t.starts_with("DATETIME") => {
            if t.ends_with("WITH TIME ZONE") && !t.contains("LOCAL") {
                DmReadKind::TimestampTz(digits)
            } else {
                DmReadKind::Timestamp(digits)
            }
        }
        _ => return None,
    })
}

/// Chooses the columns and the ordering key of a snapshot of `facts`. A
/// partitioned table is refused: DM8's flashback query reads ordinary
/// (heap) tables, not horizontally partitioned or column-store ones.
pub(super) fn meta_from_facts(
    table: &TableName,
    facts: &TableFacts,
) -> Result<DmSnapshotMeta, SourceError> {
    if facts.columns.is_empty() {
        return Err(SourceError::NotFound(format!(
            "table {table} does not exist or is not visible to the connected user: check the \
             name and GRANT SELECT ON it"
        )));
    }
    if facts.partitioning.is_some() {
        return Err(SourceError::Unsupported(format!(
            "cannot snapshot {table}: DM8's flashback query does not read horizontally \
             partitioned tables; capture it with `run --snapshot never` or snapshot it by \
             other means"
        )));
    }
    let mut columns = Vec::with_capacity(facts.columns.len());
    let mut unsupported = Vec::new();
    for c in &facts.columns {
        match read_kind(&c.data_type, c.data_scale) {
            Some(kind) => columns.push((c.name.clone(), kind)),
            None => unsupported.push(format!("{} ({})", c.name, c.data_type)),
        }
    }
    if !unsupported.is_empty() {
        return Err(SourceError::Unsupported(format!(
            "cannot snapshot {table}: columns of types a snapshot cannot read faithfully: {}",
            unsupported.join(", ")
        )));
    }
    let nullable = |n: &String| facts.columns.iter().any(|c| &c.name == n && c.nullable);
    let orderable = |n: &String| {
        columns
            .iter()
            .find(|(c, k)| c == n && !(*k == DmReadKind::Bytes || is_lob(facts, c)))
            .cloned()
    };
    let key = facts
        .constraints
        .iter()
        .filter(|k| k.enabled && (k.constraint_type == "P" || !k.columns.iter().any(nullable)))
        .find_map(|k| k.columns.iter().map(orderable).collect::<Option<Vec<_>>>())
        .unwrap_or_default();
    Ok(DmSnapshotMeta { columns, key })
}

fn is_lob(facts: &TableFacts, column: &str) -> bool {
    facts.columns.iter().any(|c| {
        c.name == column && matches!(c.data_type.trim(), "CLOB" | "NCLOB" | "TEXT" | "BLOB")
    })
}

/// Turns the text rows of a read into a chunk: the key of the last row
/// stays in the read's text (the next chunk binds it back), the values
/// take the stream's forms (ISO dates, UTC instants, lower-case hex).
pub(super) fn chunk_from_rows(
    meta: &DmSnapshotMeta,
    rows: Vec<Vec<Option<String>>>,
    limit: usize,
) -> Result<SnapshotChunk, SourceError> {
    let names: Vec<String> = meta.columns.iter().map(|(n, _)| n.clone()).collect();
    let positions: Vec<usize> = if meta.key.is_empty() {
        vec![names.len()]
    } else {
        meta.key
            .iter()
            .filter_map(|(k, _)| names.iter().position(|n| n == k))
            .collect()
    };
    let last_key = match rows.last() {
        Some(last) if limit > 0 && rows.len() >= limit => Some(
            positions
                .iter()
                .map(|&p| last.get(p).cloned().flatten())
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| {
                    SourceError::Invalid(
                        "a snapshot key column came back NULL; the key cannot order the read"
                            .into(),
                    )
                })?,
        ),
        _ => None,
    };
    let rows = rows
        .into_iter()
        .map(|mut r| {
            r.truncate(names.len());
            r.into_iter()
                .zip(&meta.columns)
                .map(|(v, (_, kind))| v.map(|v| stream_text(*kind, v)))
                .collect()
        })
        .collect();
    Ok(SnapshotChunk {
        columns: names,
        rows,
        last_key,
    })
}

fn stream_text(kind: DmReadKind, text: String) -> String {
    match kind {
        DmReadKind::Date => in_stream_form(ReadForm::Date, text),
        DmReadKind::Timestamp(_) => in_stream_form(ReadForm::Timestamp, text),
        DmReadKind::TimestampTz(_) => in_stream_form(ReadForm::TimestampTz, text),
        DmReadKind::Bytes => text.to_ascii_lowercase(),
        DmReadKind::Number | DmReadKind::Text | DmReadKind::Time => text,
    }
}
