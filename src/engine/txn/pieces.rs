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
//! their pieces are read (a malformed one is still an error), only the
//! value's length is kept (to check the writes' offsets), and the column is
//! given as the unavailable marker with a finding, as Debezium does without
//! `lob.enabled`. A LOB written only in part of an existing value
//! (no trim to the written length) starts from an empty value: the redo does
//! not carry the rest.

use crate::engine::event::{decode_hex, ChangeEvent, Field, FieldRef, Image, Op, SnapshotMark};
use crate::engine::finding::Finding;
use crate::engine::redo::lob::{LobData, Piece, Target};
use crate::engine::redo::lob_value::{self, LobText, LobValue};
use crate::engine::row::LogMinerRow;

use super::report::TxnFinding;

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

/// The row a piece that opens a value names, if it is such a piece.
pub(super) fn target_mut(piece: &mut Piece) -> Option<&mut Target> {
    match piece {
        Piece::Lob(block) => block.locator.as_mut().map(|(target, _)| target),
        Piece::XmlBegin(target) | Piece::StringBegin(target) => Some(target),
        _ => None,
    }
}

/// The target with the piece row's ROW_ID when its statement printed none
/// (`NO_ROWID_IN_STMT`): the row is then found by ROWID, not by a WHERE
/// whose values may be printed in other forms than the change's.
fn with_row_id(mut target: Target, row: &LogMinerRow) -> Target {
    if target.row_id.is_none() {
        // START and COMMIT rows carry the all-`A` ROWID of no row.
        target.row_id = row
            .row_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty() && !id.bytes().all(|b| b == b'A'))
            .map(str::to_string);
    }
    target
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
                    let target = with_row_id(target, row);
                    out.extend(self.close_lob(capture));
                    let value = pending
                        .filter(|p| same_row(p, &target))
                        .and_then(|p| p.after.as_ref())
                        .and_then(|a| a.get(&target.column))
                        .and_then(|f| start_value(f, binary, capture))
                        .unwrap_or_else(|| empty_value(binary, capture));
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
                        lob_value::apply(&mut open.value, op)?;
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
                    target: with_row_id(target, row),
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
                    // A placeholder's document is not kept.
                    Some(_) if !capture => {}
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
                    target: with_row_id(target, row),
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
/// carry). For a placeholder only its length is kept: the writes are
/// checked, and a large LOB holds no memory for a value never given.
fn start_value(field: FieldRef<'_>, binary: bool, capture: bool) -> Option<LobValue> {
    let t = match field {
        FieldRef::Text(t) | FieldRef::Binary(t) => t,
        _ => return None,
    };
    match (binary, capture) {
        (false, true) => Some(LobValue::Text(LobText::new(t.to_string()))),
        (false, false) => Some(LobValue::Length {
            binary,
            len: t.chars().count(),
        }),
        (true, true) => decode_hex(t).map(LobValue::Bytes),
        // The hex decode_hex would take: whole bytes of digits.
        (true, false) => (t.len().is_multiple_of(2) && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(LobValue::Length {
                binary,
                len: t.len() / 2,
            }),
    }
}

/// The value a LOB's writes start from when the change before holds none.
fn empty_value(binary: bool, capture: bool) -> LobValue {
    if capture {
        LobValue::empty(binary)
    } else {
        LobValue::Length { binary, len: 0 }
    }
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
        snapshot: SnapshotMark::Stream,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::redo::lob::{LobBlock, LobOp};
    use crate::engine::redo::lob_value::MAX_PAD;

    fn target() -> Target {
        Target {
            schema: "APP".into(),
            table: "DOCS".into(),
            column: "BODY".into(),
            key: Image::new(),
            row_id: None,
        }
    }

    fn write(text: &str, offset: u64) -> LobOp {
        LobOp::Write {
            data: LobData::Text(text.into()),
            amount: text.chars().count() as u64,
            offset,
        }
    }

    fn lob(locator: bool, ops: Vec<LobOp>) -> Piece {
        Piece::Lob(LobBlock {
            locator: locator.then(|| (target(), false)),
            ops,
        })
    }

    #[test]
    fn issue12_placeholder_keeps_only_the_length_of_a_lob_being_written() {
        let row = LogMinerRow::default();
        let mut asm = Assembly::default();
        let piece = lob(true, vec![write("it's ", 1), write("long", 6)]);
        assert!(asm
            .take(piece, LobMode::Placeholder, None, &row)
            .is_ok_and(|p| p.is_empty()));
        let value = asm.lob.as_ref().map(|open| &open.value);
        assert_eq!(
            value,
            Some(&LobValue::Length {
                binary: false,
                len: 9
            })
        );
        // The length still refuses a write far past the value's end.
        let far = lob(false, vec![write("x", MAX_PAD + 100)]);
        assert!(asm.take(far, LobMode::Placeholder, None, &row).is_err());
        // Capture keeps the text.
        let mut asm = Assembly::default();
        let piece = lob(true, vec![write("it's ", 1), write("long", 6)]);
        assert!(asm.take(piece, LobMode::Capture, None, &row).is_ok());
        let value = asm.lob.take().map(|open| open.value.into_field());
        assert_eq!(value, Some(Field::Text("it's long".into())));
    }

    #[test]
    fn issue12_placeholder_starts_from_the_length_of_the_inline_value() {
        let length = |binary, len| Some(LobValue::Length { binary, len });
        let text = FieldRef::Text("h\u{e9}llo");
        assert_eq!(start_value(text, false, false), length(false, 5));
        let hex = FieldRef::Binary("0A0b");
        assert_eq!(start_value(hex, true, false), length(true, 2));
        assert_eq!(
            start_value(hex, true, true),
            Some(LobValue::Bytes(vec![0x0a, 0x0b]))
        );
        // Hex that capture could not decode starts empty either way.
        for bad in ["0A0", "zz", "\u{e9}"] {
            let field = FieldRef::Binary(bad);
            assert_eq!(start_value(field, true, false), None, "{bad}");
            assert_eq!(start_value(field, true, true), None, "{bad}");
        }
        assert_eq!(start_value(FieldRef::Null, false, false), None);
    }

    #[test]
    fn issue12_placeholder_keeps_no_xml_document() {
        let row = LogMinerRow::default();
        for (mode, kept) in [(LobMode::Placeholder, 0), (LobMode::Capture, 4)] {
            let mut asm = Assembly::default();
            let pieces = [
                Piece::XmlBegin(target()),
                Piece::XmlWrite(Some(LobData::Text("<a/>".into()))),
            ];
            for piece in pieces {
                assert!(asm.take(piece, mode, None, &row).is_ok());
            }
            assert_eq!(asm.xml.as_ref().map(|open| open.data.len()), Some(kept));
        }
    }
}
