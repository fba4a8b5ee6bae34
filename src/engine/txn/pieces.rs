//! Values LogMiner sends in pieces after their DML row, put back together
//! at commit: LOB rows (locator, writes, trims, erases), XML DOC
//! BEGIN/WRITE/END and 32K BEGIN/WRITE/END (extended strings).
//!
//! A piece names its row by table and key (and ROWID). It goes into the
//! after image of the change just before it when that change is of the same
//! row (an INSERT with `EMPTY_CLOB()`, an UPDATE); otherwise (`dbms_lob`
//! writing an existing row, an extended string updated alone) it becomes an
//! UPDATE event of that row holding the key and the new value.
//!
//! Extended strings are always reassembled. LOB and XMLType values are
//! reassembled with [`LobMode::Capture`]; with [`LobMode::Placeholder`]
//! their pieces are read (a malformed one is still an error) and the column
//! is given as the unavailable marker with a finding, as Debezium does
//! without `lob.enabled`. A LOB written only in part of an existing value
//! (no trim to the written length) starts from an empty value: the redo does
//! not carry the rest.

use crate::engine::event::{decode_hex, ChangeEvent, Field, FieldRef, Image, Op};
use crate::engine::finding::Finding;
use crate::engine::redo::lob::{self, LobData, LobText, LobValue, Piece, Target};
use crate::engine::row::LogMinerRow;

use super::TxnFinding;

/// What `--lob` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LobMode {
    /// LOB and XMLType values as the unavailable marker, with a finding.
    #[default]
    Placeholder,
    /// LOB and XMLType values reassembled from their rows.
    Capture,
}

/// A change waiting for the pieces that may follow it.
pub(super) struct Pending {
    pub event: ChangeEvent,
    pub findings: Vec<TxnFinding>,
}

/// Pieces of one transaction being put together.
#[derive(Default)]
pub(super) struct Assembly {
    lob: Option<OpenLob>,
    xml: Option<OpenText>,
    string: Option<OpenText>,
}

struct OpenLob {
    target: Target,
    /// The locator row (without its text): where the value was written.
    row: LogMinerRow,
    value: LobValue,
    /// Calls were applied (a locator alone changes nothing).
    written: bool,
}

struct OpenText {
    target: Target,
    /// The BEGIN row, text kept for an error when no END comes.
    row: LogMinerRow,
    data: Vec<u8>,
    null: bool,
}

/// A finished value for the buffer to put into the row's after image: into
/// the pending change when it is of that row, else as an UPDATE event of
/// its own. `None` for a placeholder: mark the column unavailable where the
/// pending change has it, and report it. The row is the one that started
/// the value.
pub(super) struct Placement(pub Target, pub Option<Field>, pub LogMinerRow);

/// Whether the pending change is of the target's row.
pub(super) fn same_row(pending: &ChangeEvent, target: &Target) -> bool {
    if pending.source.schema != target.schema || pending.source.table != target.table {
        return false;
    }
    if let (Some(a), Some(b)) = (pending.source.row_id.as_deref(), target.row_id.as_deref()) {
        return a.trim() == b.trim();
    }
    let Some(after) = pending.after.as_ref() else {
        return false;
    };
    !target.key.is_empty()
        && target
            .key
            .iter()
            .all(|(c, v)| after.iter().any(|(ac, av)| ac == c && av == v))
}

impl Assembly {
    /// Takes one parsed piece. `pending` is the change before it, to start a
    /// LOB from the value that change holds. An `Err` is a piece out of
    /// place (a write with no locator, a WRITE without BEGIN).
    pub fn take(
        &mut self,
        piece: Piece,
        mode: LobMode,
        pending: Option<&ChangeEvent>,
        row: &LogMinerRow,
    ) -> Result<Vec<Placement>, String> {
        let capture = mode == LobMode::Capture;
        let mut out = Vec::new();
        match piece {
            Piece::Lob(block) => {
                if let Some((target, binary)) = block.locator {
                    out.extend(self.close_lob(capture));
                    let value = pending
                        .filter(|p| same_row(p, &target))
                        .and_then(|p| p.after.as_ref())
                        .and_then(|a| a.get(&target.column))
                        .and_then(|f| start_value(f, binary))
                        .unwrap_or_else(|| LobValue::empty(binary));
                    self.lob = Some(OpenLob {
                        target,
                        row: LogMinerRow {
                            sql_redo: None,
                            ..row.clone()
                        },
                        value,
                        written: false,
                    });
                }
                if !block.ops.is_empty() {
                    let Some(open) = self.lob.as_mut() else {
                        return Err(
                            "a LOB call with no locator before it (no SELECT_LOB_LOCATOR row \
                                    or `select ... for update` for this LOB)"
                                .to_string(),
                        );
                    };
                    for op in &block.ops {
                        lob::apply(&mut open.value, op)?;
                    }
                    open.written = true;
                }
            }
            Piece::XmlBegin(target) => {
                if let Some(open) = &self.xml {
                    return Err(format!(
                        "XML DOC BEGIN for \"{}\" while the XML value of \"{}\" has no XML DOC END",
                        target.column, open.target.column
                    ));
                }
                self.xml = Some(OpenText {
                    target,
                    row: row.clone(),
                    data: Vec::new(),
                    null: false,
                });
            }
            Piece::XmlWrite(data) => {
                let Some(open) = self.xml.as_mut() else {
                    return Err("XML DOC WRITE without an XML DOC BEGIN before it".to_string());
                };
                match data {
                    None => open.null = true,
                    Some(LobData::Text(t)) => open.data.extend_from_slice(t.as_bytes()),
                    Some(LobData::Bytes(b)) => open.data.extend_from_slice(&b),
                }
            }
            Piece::XmlEnd => {
                let Some(open) = self.xml.take() else {
                    return Err("XML DOC END without an XML DOC BEGIN before it".to_string());
                };
                let field = if !capture {
                    None
                } else if open.null {
                    Some(Field::Null)
                } else {
                    // Pieces split the document anywhere, inside a character too.
                    match String::from_utf8(open.data) {
                        Ok(text) => Some(Field::Text(text)),
                        Err(e) => {
                            return Err(format!(
                                "the XML value of \"{}\" is not UTF-8 text: {e}",
                                open.target.column
                            ))
                        }
                    }
                };
                out.push(Placement(open.target, field, open.row));
            }
            Piece::StringBegin(target) => {
                if let Some(open) = &self.string {
                    return Err(format!(
                        "32K BEGIN for \"{}\" while the string of \"{}\" has no 32K END",
                        target.column, open.target.column
                    ));
                }
                self.string = Some(OpenText {
                    target,
                    row: row.clone(),
                    data: Vec::new(),
                    null: false,
                });
            }
            Piece::StringWrite(text) => {
                let Some(open) = self.string.as_mut() else {
                    return Err("32K WRITE without a 32K BEGIN before it".to_string());
                };
                open.data.extend_from_slice(text.as_bytes());
            }
            Piece::StringEnd => {
                let Some(open) = self.string.take() else {
                    return Err("32K END without a 32K BEGIN before it".to_string());
                };
                let text = String::from_utf8(open.data).map_err(|e| e.to_string())?;
                out.push(Placement(open.target, Some(Field::Text(text)), open.row));
            }
        }
        Ok(out)
    }

    /// The open LOB's value, to place (a DML row or a new locator ends it).
    pub fn close_lob(&mut self, capture: bool) -> Option<Placement> {
        let open = self.lob.take()?;
        if !capture {
            return Some(Placement(open.target, None, open.row));
        }
        // A locator with no call after it changed nothing: the change before
        // it already holds what is known.
        open.written
            .then(|| Placement(open.target, Some(open.value.into_field()), open.row))
    }

    /// At commit: a BEGIN whose END never came is a value cut short; the
    /// message and the BEGIN row.
    pub fn unfinished(&mut self) -> Option<(String, LogMinerRow)> {
        if let Some(open) = self.xml.take() {
            let t = &open.target;
            let msg = format!(
                "the XML value of \"{}\".\"{}\".\"{}\" has no XML DOC END before the COMMIT",
                t.schema, t.table, t.column
            );
            return Some((msg, open.row));
        }
        self.string.take().map(|open| {
            let t = &open.target;
            let msg = format!(
                "the extended string of \"{}\".\"{}\".\"{}\" has no 32K END before the COMMIT",
                t.schema, t.table, t.column
            );
            (msg, open.row)
        })
    }
}

/// A LOB's value before its writes: what the change before holds (an
/// inline value), else empty (`EMPTY_CLOB()`, or a value the redo does not
/// carry).
fn start_value(field: FieldRef<'_>, binary: bool) -> Option<LobValue> {
    let t = match field {
        FieldRef::Text(t) | FieldRef::Binary(t) => t,
        _ => return None,
    };
    if !binary {
        return Some(LobValue::Text(LobText::new(t.to_string())));
    }
    decode_hex(t).map(LobValue::Bytes)
}

/// Puts a value into the pending change's after image.
pub(super) fn set_after(event: &mut ChangeEvent, column: &str, field: Field) {
    event
        .after
        .get_or_insert_with(Image::new)
        .set(column, &field);
}

/// The UPDATE event of a row whose value changed with no DML row before
/// the pieces (`dbms_lob` on an existing row).
pub(super) fn standalone_update(
    target: &Target,
    field: Field,
    source: crate::engine::event::SourcePosition,
) -> ChangeEvent {
    let mut after = target.key.clone();
    after.push(&target.column, &field);
    let mut source = source;
    source.schema = target.schema.clone();
    source.table = target.table.clone();
    if target.row_id.is_some() {
        source.row_id = target.row_id.clone();
    }
    ChangeEvent {
        op: Op::Update,
        before: Some(target.key.clone()),
        after: Some(after),
        source,
        snapshot: false,
        partial: false,
        commit_ts_ms: 0,
        index: 0,
        table_order: 0,
    }
}

/// The finding for a LOB or XML column given as the unavailable marker.
pub(super) fn unavailable(row: &LogMinerRow, target: &Target) -> TxnFinding {
    TxnFinding {
        xid: row.xid.clone(),
        scn: row.scn,
        finding: Finding::LobUnavailable {
            schema: target.schema.clone(),
            table: target.table.clone(),
            column: target.column.clone(),
        },
    }
}
