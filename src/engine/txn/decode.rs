//! The one place the buffer calls the SQL_REDO parser: a buffered DML row's
//! text into owned images and findings, at commit time.

use crate::engine::charset::CharsetDictionary;
use crate::engine::event::{Field, FieldRef, Image};
use crate::engine::finding::Finding;
use crate::engine::redo::{self, DmlKind, ParseError};

use super::reported::ReportedOnce;

/// What the buffer keeps of a parsed statement.
pub(crate) struct Decoded {
    pub kind: DmlKind,
    pub schema: String,
    pub table: String,
    pub before: Option<Image>,
    pub after: Option<Image>,
    pub findings: Vec<Finding>,
    /// The `ROWID = '...'` of the WHERE clause, when present.
    pub row_id: Option<String>,
    /// Columns set to `EMPTY_CLOB()`/`EMPTY_BLOB()`, true for a BLOB.
    pub empty_lobs: Vec<(String, bool)>,
}

/// Decodes `sql`, whose text becomes the images' (the images share it
/// rather than a copy of each name and value). Once-per-column findings
/// `once` holds are not made again.
pub(crate) fn decode(
    sql: String,
    relaxed_quotes: bool,
    charsets: Option<&CharsetDictionary>,
    once: &ReportedOnce,
) -> Result<Decoded, ParseError> {
    let mut stmt = redo::parse_with(&sql, redo::ParseOptions { relaxed_quotes })?;
    stmt.decode_character_hex_except(charsets, |schema, table, column| {
        once.contains(ReportedOnce::CHARACTER_HEX, schema, table, column)
    });
    let kind = stmt.kind;
    let schema = stmt.schema().to_string();
    let table = stmt.table().to_string();
    let findings = stmt.take_findings();
    let row_id = stmt.row_id().map(str::to_string);
    let empty_lobs = stmt
        .assigned()
        .iter()
        .filter_map(|(c, v)| match v {
            redo::Value::EmptyLob => Some(((*c).to_string(), false)),
            redo::Value::EmptyBlob => Some(((*c).to_string(), true)),
            _ => None,
        })
        .collect();
    let located = stmt.locate();
    let (before, after) = located.into_images(sql);
    Ok(Decoded {
        kind,
        schema,
        table,
        before,
        after,
        findings,
        row_id,
        empty_lobs,
    })
}

/// Character data LogMiner printed as `HEXTORAW` in a piece's WHERE (a
/// LOB locator's, an XML or 32K BEGIN's), as text: the images a piece
/// builds on their own hold these values. Left as bytes when the
/// dictionary cannot tell (the statement's own images report that).
pub(crate) fn decode_character_hex_in(
    image: &mut Image,
    schema: &str,
    table: &str,
    charsets: Option<&CharsetDictionary>,
) {
    let Some(dict) = charsets else {
        return;
    };
    image.update(|column, field| {
        let FieldRef::Binary(hex) = field else {
            return None;
        };
        let class = dict.column(schema, table, column).flatten()?;
        dict.charset(class).decode_hex(hex).ok().map(Field::Text)
    });
}

/// The finding a row's STATUS/INFO stand for (`STATUS = 2`: not rebuilt).
pub(crate) fn status_finding(status: i32, info: Option<&str>) -> Option<Finding> {
    redo::finding_for_status(status, info)
}
