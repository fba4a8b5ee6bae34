//! The snapshot's reads of one table: its key and columns as the
//! dictionary gives them, and the chunks cut from its rows.

use crate::engine::snapshot::{in_stream_form, ReadForm};
use crate::source::{SnapshotChunk, SourceError, TableName};

use super::rows::Reader;
use super::sql::{Extent, SnapshotColumn, SnapshotKey, ValueKind};

/// Parts of a table a snapshot reads, looked up once per table.
#[derive(Debug, Clone)]
pub(super) struct SnapshotMeta {
    pub(super) columns: Vec<SnapshotColumn>,
    pub(super) key: SnapshotKey,
    /// With a ROWID key, the table's extents once read; `None` reads the
    /// table without extent ranges (no `DBA_EXTENTS` grant, bigfile).
    pub(super) extents: Option<Vec<Extent>>,
}

/// Chooses the columns and the ordering key of a snapshot from
/// `ALL_TAB_COLS` and `ALL_CONSTRAINTS` rows ([`sql::TABLE_COLUMNS`],
/// [`sql::TABLE_KEYS`]).
pub(super) fn snapshot_meta_from_rows(
    table: &TableName,
    cols: &[Vec<Option<String>>],
    keys: &[Vec<Option<String>>],
) -> Result<SnapshotMeta, SourceError> {
    let mut columns = Vec::new();
    let mut not_null = Vec::new();
    let mut unsupported = Vec::new();
    for row in cols {
        let r = Reader::new(row, "ALL_TAB_COLS");
        let name = r.text(0, "COLUMN_NAME")?;
        let data_type = r.text(1, "DATA_TYPE")?;
        // Oracle's own hidden columns are bookkeeping and virtual ones are
        // not in redo; an invisible column is hidden too, but it is the
        // user's (USER_GENERATED) and redo carries it.
        let hidden = r.flag(7)? && !r.flag(9)?;
        if hidden || r.flag(8)? {
            continue;
        }
        if r.opt_text(3)?.as_deref() == Some("N") {
            not_null.push(name.clone());
        }
        match ValueKind::from_data_type(&data_type) {
            Some(kind) => columns.push(SnapshotColumn { name, kind }),
            None => unsupported.push(format!("{name} ({data_type})")),
        }
    }
    if columns.is_empty() && unsupported.is_empty() {
        return Err(SourceError::NotFound(format!(
            "table {table} does not exist or is not visible to the connected user: check the name and GRANT SELECT, FLASHBACK ON it"
        )));
    }
    if !unsupported.is_empty() {
        return Err(SourceError::Unsupported(format!(
            "cannot snapshot {table}: columns of types a snapshot cannot read faithfully: {}",
            unsupported.join(", ")
        )));
    }
    // (name, type, enabled, column) rows ordered by type (P first), name, position.
    let mut candidates: Vec<(String, String, bool, Vec<String>)> = Vec::new();
    for row in keys {
        let r = Reader::new(row, "ALL_CONSTRAINTS");
        let name = r.text(0, "CONSTRAINT_NAME")?;
        let ctype = r.text(1, "CONSTRAINT_TYPE")?;
        let enabled = r.opt_text(2)?.as_deref() == Some("ENABLED");
        let column = r.text(3, "COLUMN_NAME")?;
        match candidates.last_mut().filter(|c| c.0 == name) {
            Some(c) => c.3.push(column),
            None => candidates.push((name, ctype, enabled, vec![column])),
        }
    }
    // BLOB columns cannot order a read (Oracle refuses LOBs in keys anyway).
    let orderable = |name: &String| {
        columns
            .iter()
            .find(|c| &c.name == name && c.kind != ValueKind::Blob)
            .cloned()
    };
    let key = candidates
        .iter()
        .filter(|(_, ctype, enabled, cols)| {
            *enabled && (ctype == "P" || cols.iter().all(|c| not_null.contains(c)))
        })
        .find_map(|(_, _, _, cols)| {
            let key_cols: Option<Vec<SnapshotColumn>> = cols.iter().map(orderable).collect();
            key_cols
        })
        .map(SnapshotKey::Columns)
        .unwrap_or(SnapshotKey::RowId);
    Ok(SnapshotMeta {
        columns,
        key,
        extents: None,
    })
}

/// A resumed read must name one value per key column, or the binds of the
/// keyset condition would be incomplete.
pub(super) fn check_after_key(
    table: &TableName,
    key: &SnapshotKey,
    after_key: Option<&[String]>,
) -> Result<(), SourceError> {
    let want = match key {
        SnapshotKey::Columns(cols) => cols.len(),
        SnapshotKey::RowId => 1,
    };
    match after_key {
        Some(k) if k.len() != want => Err(SourceError::Invalid(format!(
            "the snapshot of {table} resumes after a key of {} values, but its key has {want}; restart the snapshot of this table",
            k.len()
        ))),
        _ => Ok(()),
    }
}

/// Turns the text rows of a snapshot read into a chunk. `value_cols` is how
/// many leading columns are table values; with a ROWID key the ROWID text
/// follows them.
pub(super) fn chunk_from_rows(
    columns: &[SnapshotColumn],
    key: &SnapshotKey,
    rows: Vec<Vec<Option<String>>>,
    limit: usize,
) -> Result<SnapshotChunk, SourceError> {
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let full = rows.len() >= limit && limit > 0;
    let last_key =
        match (rows.last(), full) {
            (Some(last), true) => {
                let positions: Vec<usize> = match key {
                    SnapshotKey::Columns(k) => k
                        .iter()
                        .filter_map(|kc| names.iter().position(|n| n == &kc.name))
                        .collect(),
                    SnapshotKey::RowId => vec![names.len()],
                };
                let mut values = Vec::with_capacity(positions.len());
                for p in positions {
                    match last.get(p).cloned().flatten() {
                        Some(v) => values.push(v),
                        None => return Err(SourceError::Invalid(
                            "a snapshot key column came back NULL; the key cannot order the read"
                                .into(),
                        )),
                    }
                }
                Some(values)
            }
            _ => None,
        };
    // The key above stays in the read's text, which the next chunk binds
    // back with the same formats; the rows take the stream's forms.
    let forms: Vec<ReadForm> = columns.iter().map(|c| c.kind.read_form()).collect();
    let rows = rows
        .into_iter()
        .map(|mut r| {
            r.truncate(names.len());
            r.into_iter()
                .zip(&forms)
                .map(|(v, f)| v.map(|v| in_stream_form(*f, v)))
                .collect()
        })
        .collect();
    Ok(SnapshotChunk {
        columns: names,
        rows,
        last_key,
    })
}
