//! The one place the buffer calls the SQL_REDO parser: a buffered DML row's
//! text into owned images and findings, at commit time.

use crate::engine::event::Image;
use crate::engine::finding::Finding;
use crate::engine::redo::{self, DmlKind, ParseError};

/// What the buffer keeps of a parsed statement.
pub(crate) struct Decoded {
    pub kind: DmlKind,
    pub schema: String,
    pub table: String,
    pub before: Option<Image>,
    pub after: Option<Image>,
    pub findings: Vec<Finding>,
}

pub(crate) fn decode(sql: &str) -> Result<Decoded, ParseError> {
    let stmt = redo::parse(sql)?;
    Ok(Decoded {
        kind: stmt.kind,
        schema: stmt.schema.into_owned(),
        table: stmt.table.into_owned(),
        before: stmt.before,
        after: stmt.after,
        findings: stmt.findings,
    })
}

/// The finding a row's STATUS/INFO stand for (`STATUS = 2`: not rebuilt).
pub(crate) fn status_finding(status: i32, info: Option<&str>) -> Option<Finding> {
    (status == 2).then(|| Finding::Unreconstructable {
        info: info.unwrap_or("no INFO given").to_string(),
    })
}
