//! What capture does to each change the buffer emits, from the
//! dictionary's facts: values of binary columns marked as bytes, LOB
//! columns the redo did not carry marked unavailable, and before images
//! lacking their key reported.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::event::{ChangeEvent, Field, FieldRef, Op};
use crate::engine::finding::Finding;
use crate::engine::port::{Dialect, TableName};
use crate::engine::txn::TxnFinding;

/// Marks the values of binary columns as bytes. The parser cannot tell a
/// RAW value from character data LogMiner printed as hex, nor an unlogged
/// BLOB from an unlogged CLOB; the dictionary can.
fn mark_binary_columns(
    binary: &BTreeMap<TableName, Vec<String>>,
    name: &TableName,
    change: &mut ChangeEvent,
) {
    let Some(columns) = binary.get(name) else {
        return;
    };
    for image in [change.before.as_mut(), change.after.as_mut()]
        .into_iter()
        .flatten()
    {
        image.update(|column, field| {
            // Values already binary (HEXTORAW) or NULL stay as they are:
            // most values of a RAW column, so no copy is made for them.
            if matches!(
                field,
                FieldRef::Binary(_) | FieldRef::Null | FieldRef::UnavailableBinary
            ) || !columns.iter().any(|c| c == column)
            {
                return None;
            }
            let binary = field.to_field().into_binary();
            (binary != field).then_some(binary)
        });
    }
}

/// What the catalog says of the captured tables' columns.
#[derive(Clone, Copy)]
pub(super) struct Dictionary<'a> {
    /// Primary key columns.
    pub keys: &'a BTreeMap<TableName, Vec<String>>,
    /// LOB, XMLType and JSON columns.
    pub lobs: &'a BTreeMap<TableName, Vec<String>>,
    /// Every column, in table order.
    pub columns: &'a BTreeMap<TableName, Vec<String>>,
    /// RAW, LONG RAW and BLOB columns.
    pub binary: &'a BTreeMap<TableName, Vec<String>>,
}

/// Every check of one change the buffer emits. The table's name is made
/// once, and not at all for an insert unless some table has binary
/// columns: the other checks look at updates and deletes only.
pub(super) fn check_change(
    dict: Dictionary<'_>,
    dialect: Dialect,
    partial_reported: &mut BTreeSet<TableName>,
    unlogged_reported: &mut BTreeSet<(TableName, String)>,
    findings: &mut Vec<TxnFinding>,
    change: &mut ChangeEvent,
) {
    if !matches!(change.op, Op::Update | Op::Delete) && dict.binary.is_empty() {
        return;
    }
    let name = TableName {
        owner: change.source.schema.clone(),
        table: change.source.table.clone(),
    };
    // Before the marker fills them: a key the redo lacks is its own finding.
    check_before_image(
        dict.keys,
        dialect,
        partial_reported,
        findings,
        &name,
        change,
    );
    fill_unlogged_columns(dict, unlogged_reported, findings, &name, change);
    mark_binary_columns(dict.binary, &name, change);
}

/// Puts the unavailable marker in UPDATE and DELETE images for every
/// column the redo did not carry — LOBs (LogMiner logs a LOB apart from
/// the row) and columns supplemental logging left out — so a consumer
/// never reads a missing field as NULL. Reported once per column.
fn fill_unlogged_columns(
    dict: Dictionary<'_>,
    reported: &mut BTreeSet<(TableName, String)>,
    findings: &mut Vec<TxnFinding>,
    name: &TableName,
    change: &mut ChangeEvent,
) {
    if !matches!(change.op, Op::Update | Op::Delete) {
        return;
    }
    let lobs = dict.lobs.get(name).map_or(&[][..], Vec::as_slice);
    let all = dict.columns.get(name).map_or(&[][..], Vec::as_slice);
    // LOBs first: a table the catalog lists without columns still has them.
    for column in lobs.iter().chain(all.iter().filter(|c| !lobs.contains(c))) {
        let mut filled = false;
        for image in [change.before.as_mut(), change.after.as_mut()]
            .into_iter()
            .flatten()
        {
            if !image.contains(column) {
                image.push(column, &Field::Unavailable);
                filled = true;
            }
        }
        if filled && reported.insert((name.clone(), column.clone())) {
            let (schema, table, column) = (name.owner.clone(), name.table.clone(), column.clone());
            let finding = if lobs.contains(&column) {
                Finding::LobUnavailable {
                    schema,
                    table,
                    column,
                }
            } else {
                Finding::ColumnUnavailable {
                    schema,
                    table,
                    column,
                }
            };
            findings.push(TxnFinding {
                xid: change.source.xid.clone(),
                scn: change.source.scn,
                finding,
            });
        }
    }
}

/// Reports, once per table, an UPDATE or DELETE whose before image lacks a
/// key column the dictionary says the table has: only minimal supplemental
/// logging reached the redo, so before images hold just what changed.
fn check_before_image(
    keys: &BTreeMap<TableName, Vec<String>>,
    dialect: Dialect,
    reported: &mut BTreeSet<TableName>,
    findings: &mut Vec<TxnFinding>,
    name: &TableName,
    change: &ChangeEvent,
) {
    if !matches!(change.op, Op::Update | Op::Delete) {
        return;
    }
    let Some(key) = keys.get(name) else {
        return;
    };
    let Some(before) = &change.before else {
        return;
    };
    let has_key = key.iter().all(|k| before.contains(k));
    // On DM8 the WHERE carries the whole before image or, at
    // RLOG_APPEND_LOGIC = 1, the key alone. (A table of key columns only
    // is reported too: no finer test tells the two apart from the row.)
    if dialect == Dialect::Dm && !key.is_empty() && has_key && before.len() == key.len() {
        if !reported.contains(name) {
            reported.insert(name.clone());
            findings.push(TxnFinding {
                xid: change.source.xid.clone(),
                scn: change.source.scn,
                finding: Finding::KeyOnlyBeforeImage {
                    schema: change.source.schema.clone(),
                    table: change.source.table.clone(),
                },
            });
        }
        return;
    }
    if key.is_empty() || has_key {
        return;
    }
    if !reported.contains(name) {
        reported.insert(name.clone());
        findings.push(TxnFinding {
            xid: change.source.xid.clone(),
            scn: change.source.scn,
            finding: Finding::PartialBeforeImage {
                schema: change.source.schema.clone(),
                table: change.source.table.clone(),
                row_id: change.source.row_id.clone(),
            },
        });
    }
}
