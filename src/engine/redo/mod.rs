//! The SQL_REDO parser: LogMiner's reconstructed statements into typed
//! before and after images, with findings instead of guesses.
//!
//! The parser is the engine's hot path. It is a hand-written byte scanner
//! that borrows names and values from the statement text; a value is copied
//! only when unescaping (`''`, UNISTR, `||` chains) changes it. Owned
//! [`Image`]s are built only when asked for, at commit time.
//!
//! Forms and findings follow `shared/reference/sql-redo-format.md`. The
//! canonical text of each value form (what [`Field::Text`] carries):
//!
//! | SQL_REDO literal | canonical text |
//! |---|---|
//! | `'it''s'`, `'99.5'`, `-1.5` (DM8) | `it's`, `99.5`, `-1.5` |
//! | `TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS')` | `2025-03-01T09:00:00` |
//! | `TO_DATE('20141110 21:18:04', 'yyyymmdd hh24:mi:ss')` (another session's format) | `2014-11-10T21:18:04` |
//! | `TO_TIMESTAMP('2025-03-01 09:00:00.123456000')` | `2025-03-01T09:00:00.123456000` |
//! | `TO_TIMESTAMP('2020-02-01 00:00:00.')` (TIMESTAMP(0), `SS.FF` format) | `2020-02-01T00:00:00.0` |
//! | `TO_TIMESTAMP_TZ('2025-03-01 09:00:00.1 +08:00')` | `2025-03-01T01:00:00.1Z` (the instant in UTC) |
//! | `TO_TIMESTAMP_TZ('2025-03-01 09:00:00 US/Pacific PST')` | `2025-03-01T09:00:00 US/Pacific PST` |
//! | `HEXTORAW('0A0B')` | [`Field::Binary`] `0a0b` (written as `--binary-handling` says) |
//! | `UNISTR('\4E2D')`, `'a' \|\| UNISTR('\00E9')` | `中`, `aé` |
//! | `TO_YMINTERVAL('+01-02')`, `TO_DSINTERVAL('+01 02:03:04.5')` | `+01-02`, `+01 02:03:04.5` |
//! | `NULL`, `"C" IS NULL` | [`Field::Null`] |
//! | `EMPTY_CLOB()`, `Unsupported Type` | [`Field::Unavailable`] |
//! | `EMPTY_BLOB()` | [`Field::UnavailableBinary`] |
//! | `/* JSON */ HEXTORAW('7b7d')` (JSON text bytes) | `{}` |
//! | `/* JSON */ HEXTORAW('ff4a5a01…')` (binary OSON) | its JSON text ([`oson`]); [`Field::Unavailable`] and a finding when it does not decode |
//! | `/* JSON */ EMPTY_BLOB()` | [`Field::Unavailable`], and a finding |
//! | `3.14159E0`, `9223372036854775807` (DM8, unquoted) | `3.14159E0`, `9223372036854775807` |
//! | `DATE'2026-01-02'` (DM8) | `2026-01-02T00:00:00` |
//! | `TIME'10:20:30'` (DM8) | `10:20:30` |
//! | `TIMESTAMP'2026-01-02 10:20:30.123456'` (DM8) | `2026-01-02T10:20:30.123456` |
//! | `TIMESTAMP'2026-01-02 10:20:30.123456 +08:00'` (DM8) | `2026-01-02T02:20:30.123456Z` (the instant in UTC) |
//! | `0x0A0B` (DM8) | [`Field::Binary`] `0a0b` (never a [`Finding::CharacterHex`]: DM8 prints character data as text) |
//! | `OUT_CLOB`, `OUT_CLOB(LOB_ID: 525301)` (DM8) | [`Field::Unavailable`], and a [`Finding::LobNotLogged`] |
//!
//! DM8's typed literals (`DATE`, `TIME`, `TIMESTAMP`) take the keyword in
//! any case and whitespace before the quote; a day, time or offset that
//! does not exist (`DATE'2026-13-45'`), odd or non-hex `0x` digits and an
//! unterminated literal are errors naming the column and the literal. No
//! dialect switch is needed: no Oracle form starts with a word followed by
//! a quote, `0x` or `OUT_CLOB`.
//!
//! Any other `/* ... */` comment before a value is skipped.
//!
//! A string value whose closing quote is followed by something no value can
//! be followed by holds a quote LogMiner did not double: an error pointing at
//! that quote, or, with [`ParseOptions::relaxed_quotes`], a value recovered
//! from the statement's shape and a finding.
//!
//! Timestamps are taken in every ISO-ordered form (0–9 fraction digits, `T`
//! or a space before the time, an offset, `Z` or a region). A date or
//! timestamp whose format argument is not the session's is read by that
//! mask (`datemask`), off the hot path. Without a mask, one that is not
//! year-first is an error naming the column, the literal and the format
//! expected, not a guess: the mining session's NLS settings were not
//! applied. So is a mask that leaves the value to the converting session
//! (a two-digit year, a 12-hour clock without AM/PM).

pub mod csf;
mod datefmt;
mod datemask;
pub mod lob;
pub mod lob_value;
pub mod oson;
mod relaxed;
mod scan;
mod value;

#[cfg(test)]
mod dm8_tests;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use super::charset::CharsetDictionary;
use super::event::image::{Col, Slot};
use super::event::Image;
use super::finding::Finding;
use scan::{Fail, Res, Scanner};
pub use value::FieldText;
pub use value::Value;

/// Which DML a statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DmlKind {
    Insert,
    Update,
    Delete,
}

impl DmlKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DmlKind::Insert => "insert",
            DmlKind::Update => "update",
            DmlKind::Delete => "delete",
        }
    }
}

/// A column name and its value, both borrowed from the statement.
pub type Pair<'a> = (&'a str, Value<'a>);

/// A parsed `insert`/`update`/`delete` statement. Two statements are equal
/// when they say the same, whatever their whitespace or trailing `;`.
#[derive(Debug, Clone)]
pub struct Statement<'a> {
    pub kind: DmlKind,
    /// The whole statement, which names and values are slices of.
    sql: &'a str,
    schema: &'a str,
    table: &'a str,
    /// INSERT's VALUES or UPDATE's SET, in statement order.
    assigned: Vec<Pair<'a>>,
    /// UPDATE/DELETE's WHERE without the ROWID term, in statement order.
    matched: Vec<Pair<'a>>,
    row_id: Option<Cow<'a, str>>,
    findings: Vec<Finding>,
}

impl PartialEq for Statement<'_> {
    fn eq(&self, o: &Self) -> bool {
        (self.kind, self.schema, self.table) == (o.kind, o.schema, o.table)
            && self.assigned == o.assigned
            && self.matched == o.matched
            && self.row_id == o.row_id
            && self.findings == o.findings
    }
}

/// A statement that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at byte {position}")]
pub struct ParseError {
    pub message: String,
    /// Byte offset into `raw` where parsing failed.
    pub position: usize,
    pub raw: String,
}

impl<'a> Statement<'a> {
    /// Owner, without quotes.
    pub fn schema(&self) -> &'a str {
        self.schema
    }

    /// Table name, without quotes.
    pub fn table(&self) -> &'a str {
        self.table
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The `ROWID = '...'` term of the WHERE clause, when LogMiner added one.
    pub fn row_id(&self) -> Option<&str> {
        self.row_id.as_deref()
    }

    /// INSERT's column values, or UPDATE's SET pairs; empty for DELETE.
    pub fn assigned(&self) -> &[Pair<'a>] {
        &self.assigned
    }

    /// The WHERE pairs (`IS NULL` as [`Value::Null`]), without ROWID; empty
    /// for INSERT.
    pub fn matched(&self) -> &[Pair<'a>] {
        &self.matched
    }

    /// The before image's names and values as the statement has them:
    /// UPDATE/DELETE's WHERE; `None` for INSERT.
    pub fn before_pairs(&self) -> Option<&[Pair<'a>]> {
        (self.kind != DmlKind::Insert).then_some(&self.matched[..])
    }

    /// The after image's names and values as the statement has them,
    /// without building the image: INSERT's values, or UPDATE's WHERE with
    /// each column's last SET value over it and the SET columns the WHERE
    /// lacks after it; `None` for DELETE.
    pub fn after_pairs(&self) -> Option<impl Iterator<Item = (&'a str, &Value<'a>)> + '_> {
        let last_set = |col: &str| self.assigned.iter().rev().find(|(c, _)| *c == col);
        let (base, added): (&[Pair<'a>], &[Pair<'a>]) = match self.kind {
            DmlKind::Delete => return None,
            DmlKind::Insert => (&self.assigned, &[]),
            DmlKind::Update => (&self.matched, &self.assigned),
        };
        let base = base.iter().map(move |(c, v)| match self.kind {
            DmlKind::Update => last_set(c).map_or((*c, v), |(c, v)| (*c, v)),
            _ => (*c, v),
        });
        let added = added.iter().enumerate().filter_map(move |(k, (c, _))| {
            let new = !self.matched.iter().any(|(m, _)| m == c)
                && !self.assigned[..k].iter().any(|(a, _)| a == c);
            new.then(|| last_set(c).map(|(c, v)| (*c, v)))?
        });
        Some(base.chain(added))
    }

    /// Before image: the WHERE columns of UPDATE/DELETE; `None` for INSERT.
    pub fn before_image(&self) -> Option<Image> {
        self.images().0
    }

    /// After image: INSERT's values, or UPDATE's before image with the SET
    /// columns replaced (new ones appended); `None` for DELETE.
    pub fn after_image(&self) -> Option<Image> {
        self.images().1
    }

    /// Both images, as [`Statement::before_image`] and
    /// [`Statement::after_image`] give them, over one copy of the
    /// statement.
    pub fn images(&self) -> (Option<Image>, Option<Image>) {
        // One buffer: the copy of the statement, converted values after it.
        let mut text = String::with_capacity(self.sql.len() + self.sql.len() / 4);
        text.push_str(self.sql);
        let Located {
            before,
            after,
            mut extra,
            separators,
        } = self.locate_with(text, 0);
        to_iso_separators(&mut extra, &separators);
        Located::share(Arc::new(extra), before, after)
    }

    /// Where each image's names and values are in the statement's text:
    /// the parts of [`Statement::images`] that need the statement, so the
    /// caller can drop it and hand over the text it owns.
    pub(crate) fn locate(&self) -> Located {
        // Room for the usual converted values (dates, timestamps) of a row
        // without regrowing.
        self.locate_with(String::with_capacity(self.sql.len() / 4), self.sql.len())
    }

    /// [`Statement::locate`], appending converted values to `extra`, whose
    /// text will start at `base` in the images' buffer.
    fn locate_with(&self, extra: String, base: usize) -> Located {
        let mut text = ImageText {
            sql: self.sql,
            extra,
            base,
            separators: Vec::new(),
        };
        let (before, after) = match self.kind {
            DmlKind::Insert => (None, Some(text.cols(&self.assigned))),
            DmlKind::Delete => (Some(text.cols(&self.matched)), None),
            DmlKind::Update => {
                let before = text.cols(&self.matched);
                let mut after = before.clone();
                // SET columns the WHERE lacks, in the order appended.
                let mut appended: Vec<&str> = Vec::new();
                for (col, v) in &self.assigned {
                    let at = self.matched.iter().position(|(c, _)| c == col).or_else(|| {
                        let i = appended.iter().position(|c| c == col)?;
                        Some(self.matched.len() + i)
                    });
                    match at {
                        Some(i) => after[i].value = text.slot(v),
                        None => {
                            after.push(text.col(col, v));
                            appended.push(col);
                        }
                    }
                }
                (Some(before), Some(after))
            }
        };
        Located {
            before,
            after,
            extra: text.extra,
            separators: text.separators,
        }
    }
}

/// A statement's images as column ranges into its text followed by
/// `extra`, the canonical text of values that differ from what LogMiner
/// printed.
pub(crate) struct Located {
    before: Option<Vec<Col>>,
    after: Option<Vec<Col>>,
    extra: String,
    /// Where in the statement a date's space becomes the ISO `T`.
    separators: Vec<usize>,
}

impl Located {
    /// The images over `sql`, the statement's own text (its allocation is
    /// reused: the images share it).
    pub(crate) fn into_images(self, mut sql: String) -> (Option<Image>, Option<Image>) {
        to_iso_separators(&mut sql, &self.separators);
        sql.push_str(&self.extra);
        Located::share(Arc::new(sql), self.before, self.after)
    }

    fn share(
        text: Arc<String>,
        before: Option<Vec<Col>>,
        after: Option<Vec<Col>>,
    ) -> (Option<Image>, Option<Image>) {
        let before = before.map(|c| Image::from_parts(Arc::clone(&text), c));
        let after = after.map(|c| Image::from_parts(text, c));
        (before, after)
    }
}

/// Turns the date/time separators at `at` (spaces, as the parser checked)
/// into the ISO `T`, in the images' own copy of the statement.
fn to_iso_separators(text: &mut String, at: &[usize]) {
    for &i in at {
        if text.as_bytes().get(i) == Some(&b' ') {
            // SAFETY: one ASCII byte replaces another, so the text stays
            // UTF-8.
            unsafe { text.as_bytes_mut()[i] = b'T' };
        }
    }
}

/// Locates names and values in a statement's text, appending those that
/// are not in it (unescaped quotes, decoded hex, dates with a time zone)
/// to `extra`.
struct ImageText<'s> {
    sql: &'s str,
    extra: String,
    /// Where `extra` starts in the images' buffer: after the statement,
    /// or 0 when `extra` begins with a copy of it.
    base: usize,
    /// Separators of dates and timestamps located in the statement, which
    /// become ISO by one byte in place rather than a converted copy; noted
    /// only when `extra` does not hold the copy (else turned at once).
    separators: Vec<usize>,
}

impl ImageText<'_> {
    fn cols(&mut self, pairs: &[Pair<'_>]) -> Vec<Col> {
        pairs.iter().map(|(c, v)| self.col(c, v)).collect()
    }

    #[inline]
    fn col(&mut self, name: &str, v: &Value<'_>) -> Col {
        Col {
            name: self.range(name),
            value: self.slot(v),
        }
    }

    /// A date or timestamp of [`Value::iso_parts`] printed in the
    /// statement, located there with its space noted to become `T`: the
    /// canonical text [`Value::canonical`] would append, without the copy.
    fn iso_in_place(&mut self, v: &Value<'_>) -> Option<Range<usize>> {
        let (date, time) = v.iso_parts()?;
        let at = (date.as_ptr() as usize).wrapping_sub(self.sql.as_ptr() as usize);
        let len = date.len() + 1 + time.len();
        if at > self.sql.len() || len > self.sql.len() - at {
            return None;
        }
        let separator = at + date.len();
        if self.base == 0 {
            // `extra` starts with the images' copy of the statement: the
            // separator is turned there and then, with nothing to note.
            to_iso_separators(&mut self.extra, &[separator]);
            return Some(at..at + len);
        }
        if self.separators.capacity() == 0 {
            // Room for a wide row's dates at once rather than four
            // regrowths.
            self.separators.reserve(32);
        }
        self.separators.push(separator);
        Some(at..at + len)
    }

    /// Where `s` is in the statement, when it is a slice of it (names and
    /// most values are); elsewhere it is appended.
    fn range(&mut self, s: &str) -> Range<usize> {
        let base = self.sql.as_ptr() as usize;
        let at = (s.as_ptr() as usize).wrapping_sub(base);
        if at <= self.sql.len() && s.len() <= self.sql.len() - at {
            return at..at + s.len();
        }
        let start = self.base + self.extra.len();
        self.extra.push_str(s);
        start..start + s.len()
    }

    /// Inlined for the common values of a wide row (NULL, text as
    /// printed), which need no conversion: a call per column cost more
    /// than locating the value.
    #[inline]
    fn slot(&mut self, v: &Value<'_>) -> Slot {
        match v {
            Value::Null => Slot::Null,
            Value::Text(Cow::Borrowed(t)) => Slot::Text(self.range(t)),
            _ => self.converted_slot(v),
        }
    }

    /// [`ImageText::slot`] of a value whose text may differ from what
    /// LogMiner printed.
    #[inline(never)]
    fn converted_slot(&mut self, v: &Value<'_>) -> Slot {
        if let Value::Date(Cow::Borrowed(_)) | Value::Timestamp(Cow::Borrowed(_)) = v {
            if let Some(r) = self.iso_in_place(v) {
                return Slot::Text(r);
            }
        }
        let base = self.base;
        let moved = |r: Range<usize>| base + r.start..base + r.end;
        match v.field_text(&mut self.extra) {
            FieldText::Null => Slot::Null,
            FieldText::Unavailable => Slot::Unavailable,
            FieldText::UnavailableBinary => Slot::UnavailableBinary,
            FieldText::Text(t) => Slot::Text(self.range(t)),
            FieldText::Binary(t) => Slot::Binary(self.range(t)),
            FieldText::TextAppended(r) => Slot::Text(moved(r)),
            FieldText::BinaryAppended(r) => Slot::Binary(moved(r)),
        }
    }
}

impl Statement<'_> {
    /// Decodes `HEXTORAW` values of character columns (VARCHAR2, CHAR,
    /// NVARCHAR2, ...) with the dictionary's database or national character
    /// set; LogMiner prints character data that way when it cannot show it
    /// as text. RAW columns keep their hex. Whatever stays hex where it may
    /// be text (no dictionary, unknown table, bytes invalid in the
    /// character set) gets a [`Finding::CharacterHex`] per column.
    pub fn decode_character_hex(&mut self, dict: Option<&CharsetDictionary>) {
        self.decode_character_hex_except(dict, |_, _, _| false);
    }

    /// [`Statement::decode_character_hex`] without a finding for the
    /// columns `given(schema, table, column)` says were already reported:
    /// a change stream would otherwise build the same finding, names and
    /// all, on every change to a table with a RAW column.
    pub fn decode_character_hex_except(
        &mut self,
        dict: Option<&CharsetDictionary>,
        given: impl Fn(&str, &str, &str) -> bool,
    ) {
        let (schema, table) = (self.schema, self.table);
        let mut reasons: Vec<(&str, Cow<'static, str>)> = Vec::new();
        for (col, v) in self.assigned.iter_mut().chain(self.matched.iter_mut()) {
            let Value::Raw(hex) = v else {
                continue;
            };
            let reason = match dict.map(|d| (d, d.column(schema, table, col))) {
                None => Cow::Borrowed("no dictionary to tell character data from RAW"),
                Some((_, None)) => Cow::Borrowed("the dictionary does not know the table"),
                Some((_, Some(None))) => continue,
                Some((d, Some(Some(class)))) => match d.charset(class).decode_hex(hex) {
                    Ok(text) => {
                        *v = Value::Text(Cow::Owned(text));
                        continue;
                    }
                    Err(e) => Cow::Owned(e.to_string()),
                },
            };
            if !reasons.iter().any(|(c, _)| c == col) && !given(schema, table, col) {
                reasons.push((col, reason));
            }
        }
        self.findings.extend(
            reasons
                .into_iter()
                .map(|(column, reason)| Finding::CharacterHex {
                    schema: schema.to_string(),
                    table: table.to_string(),
                    column: column.to_string(),
                    reason: reason.into_owned(),
                }),
        );
    }

    /// The findings, taken out of the statement.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }
}

/// Parses one SQL_REDO statement.
///
/// Takes `insert into "S"."T"(...) values (...)`, `update "S"."T" set ...
/// where ...` and `delete from "S"."T" where ...`, keywords in any case,
/// whitespace anywhere, the trailing `;` optional. UPDATE and DELETE may
/// name a table alias (`update "S"."T" a set a."C" = ...`); the images are
/// those of the unaliased statement.
pub fn parse(sql: &str) -> Result<Statement<'_>, ParseError> {
    let mut s = Scanner::new(sql);
    match statement(&mut s) {
        Ok(mut stmt) => {
            stmt.findings = findings(&stmt);
            stmt.sql = sql;
            Ok(stmt)
        }
        Err(Fail { message, position }) => Err(ParseError {
            message,
            position,
            raw: sql.to_string(),
        }),
    }
}

/// How forgiving the parser is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Read string literals holding a quote LogMiner did not double, using
    /// the statement's shape to find where each ends; every value so
    /// recovered gets a [`Finding::UnescapedQuote`]. Off, such a statement
    /// is an error pointing at the quote.
    pub relaxed_quotes: bool,
}

/// [`parse`], with options. The strict parser runs first: options only
/// change what happens to a statement it rejects.
pub fn parse_with(sql: &str, options: ParseOptions) -> Result<Statement<'_>, ParseError> {
    let strict = match parse(sql) {
        Ok(stmt) => return Ok(stmt),
        Err(e) => e,
    };
    if !options.relaxed_quotes {
        return Err(strict);
    }
    match relaxed::parse_relaxed(sql) {
        Ok((mut stmt, recovered)) => {
            stmt.sql = sql;
            let mut found = findings(&stmt);
            found.extend(recovered.into_iter().map(|column| Finding::UnescapedQuote {
                schema: stmt.schema.to_string(),
                table: stmt.table.to_string(),
                column: column.to_string(),
            }));
            stmt.findings = found;
            Ok(stmt)
        }
        Err(Fail { message, .. }) => Err(ParseError {
            message: format!("{}; --relaxed-quotes: {message}", strict.message),
            ..strict
        }),
    }
}

/// The finding a row's `STATUS` implies: LogMiner sets 2 when it could not
/// rebuild the statement, and `INFO` says why.
pub fn finding_for_status(status: i32, info: Option<&str>) -> Option<Finding> {
    (status == 2).then(|| Finding::Unreconstructable {
        info: info
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .unwrap_or("LogMiner gave no INFO")
            .to_string(),
    })
}

fn statement<'a>(s: &mut Scanner<'a>) -> Res<Statement<'a>> {
    s.skip_ws();
    let stmt = if s.keyword(b"INSERT") {
        s.expect_keyword(b"INTO", "after `insert`")?;
        let (schema, table) = table_name(s)?;
        insert_body(s, schema, table)?
    } else if s.keyword(b"UPDATE") {
        let (schema, table) = table_name(s)?;
        let alias = table_alias(s, b"SET");
        s.expect_keyword(b"SET", "after the table name")?;
        let assigned = assignments(s, alias)?;
        let mut stmt = new_statement(DmlKind::Update, schema, table, assigned);
        if s.keyword(b"WHERE") {
            conditions(s, &mut stmt, alias)?;
        }
        stmt
    } else if s.keyword(b"DELETE") {
        s.expect_keyword(b"FROM", "after `delete`")?;
        let (schema, table) = table_name(s)?;
        let alias = table_alias(s, b"WHERE");
        let mut stmt = new_statement(DmlKind::Delete, schema, table, Vec::new());
        if s.keyword(b"WHERE") {
            conditions(s, &mut stmt, alias)?;
        }
        stmt
    } else {
        return s.fail("expected `insert`, `update` or `delete` at the start of the statement");
    };
    s.eat(b';');
    if !s.at_end() {
        return s.fail("unexpected text after the end of the statement");
    }
    Ok(stmt)
}

fn new_statement<'a>(
    kind: DmlKind,
    schema: &'a str,
    table: &'a str,
    assigned: Vec<Pair<'a>>,
) -> Statement<'a> {
    Statement {
        kind,
        sql: "",
        schema,
        table,
        assigned,
        matched: Vec::new(),
        row_id: None,
        findings: Vec::new(),
    }
}

fn table_name<'a>(s: &mut Scanner<'a>) -> Res<(&'a str, &'a str)> {
    let schema = s.quoted_ident("for the owner")?;
    s.expect(b'.', "between owner and table name")?;
    let table = s.quoted_ident("for the table")?;
    Ok((schema, table))
}

/// The alias LogMiner may print after the table name of an UPDATE or DELETE
/// (`update "S"."T" a set a."C" = ...`): any unquoted word but the keyword
/// that follows.
fn table_alias<'a>(s: &mut Scanner<'a>, next: &[u8]) -> Option<&'a str> {
    s.skip_ws();
    if !s.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let at = s.pos;
    if s.keyword(next) {
        s.pos = at;
        return None;
    }
    Some(s.word())
}

/// A column name in SET or WHERE, qualified by the table alias or not.
#[inline]
fn column<'a>(s: &mut Scanner<'a>, alias: Option<&str>, context: &str) -> Res<&'a str> {
    if alias.is_some() {
        qualifier(s, alias)?;
    }
    s.quoted_ident(context)
}

/// Consumes `alias.` before a column (or ROWID) when it is there; a word
/// that is not the declared alias is an error, not a guess.
fn qualifier(s: &mut Scanner<'_>, alias: Option<&str>) -> Res<()> {
    s.skip_ws();
    if !s.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        return Ok(());
    }
    let at = s.pos;
    let word = s.word();
    if s.peek() != Some(b'.') {
        s.pos = at;
        return Ok(());
    }
    match alias {
        Some(a) if a.eq_ignore_ascii_case(word) => {
            s.pos += 1;
            Ok(())
        }
        _ => {
            s.pos = at;
            s.fail(format!(
                "the column is qualified by `{word}`, which is not the table's alias{}",
                alias.map(|a| format!(" `{a}`")).unwrap_or_default()
            ))
        }
    }
}

fn insert_body<'a>(s: &mut Scanner<'a>, schema: &'a str, table: &'a str) -> Res<Statement<'a>> {
    let columns = insert_columns(s)?;
    let mut assigned = Vec::with_capacity(columns.len());
    let mut columns = columns.into_iter();
    loop {
        s.skip_ws();
        let Some(c) = columns.next() else {
            return s.fail("the statement has more values than columns");
        };
        let v = s.value().map_err(|f| f.in_column(c))?;
        assigned.push((c, v));
        if !s.eat(b',') {
            break;
        }
    }
    if columns.next().is_some() {
        return s.fail("the statement has fewer values than columns");
    }
    s.expect(b')', "to close the value list")?;
    Ok(new_statement(DmlKind::Insert, schema, table, assigned))
}

/// `("A","B") values (`: the INSERT's column list, up to its first value.
fn insert_columns<'a>(s: &mut Scanner<'a>) -> Res<Vec<&'a str>> {
    s.expect(b'(', "to open the column list")?;
    let mut columns = Vec::with_capacity(32);
    loop {
        columns.push(s.quoted_ident("in the column list")?);
        if !s.eat(b',') {
            break;
        }
    }
    s.expect(b')', "to close the column list")?;
    s.expect_keyword(b"VALUES", "after the column list")?;
    s.expect(b'(', "to open the value list")?;
    Ok(columns)
}

fn assignments<'a>(s: &mut Scanner<'a>, alias: Option<&str>) -> Res<Vec<Pair<'a>>> {
    let mut out = Vec::with_capacity(4);
    loop {
        let col = column(s, alias, "in the SET list")?;
        s.expect(b'=', "after the SET column")?;
        out.push((col, s.value().map_err(|f| f.in_column(col))?));
        if !s.eat(b',') {
            return Ok(out);
        }
    }
}

fn conditions<'a>(s: &mut Scanner<'a>, stmt: &mut Statement<'a>, alias: Option<&str>) -> Res<()> {
    // A WHERE term takes at least ~20 bytes; sizing from what is left avoids
    // regrowing the vector on wide tables.
    stmt.matched.reserve((s.remaining() / 20).clamp(4, 64));
    loop {
        if alias.is_some() {
            qualifier(s, alias)?;
        }
        if s.keyword(b"ROWID") {
            s.expect(b'=', "after ROWID")?;
            stmt.row_id = Some(s.string_lit()?);
        } else {
            let col = s.quoted_ident("in the WHERE clause")?;
            if s.eat(b'=') {
                stmt.matched
                    .push((col, s.value().map_err(|f| f.in_column(col))?));
            } else if s.keyword(b"IS") {
                s.expect_keyword(b"NULL", "after `IS`")?;
                stmt.matched.push((col, Value::Null));
            } else {
                return s.fail("expected `=` or `IS NULL` after the WHERE column");
            }
        }
        if !s.keyword(b"AND") {
            return Ok(());
        }
    }
}

/// `"OBJ# 74622"` → 74622.
fn object_number(table: &str) -> Option<u64> {
    table.strip_prefix("OBJ# ")?.trim().parse().ok()
}

fn is_unknown_column(name: &str) -> bool {
    name.strip_prefix("COL ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The pairs whose value matches `pred`, once per column (an UPDATE names
/// a column in SET and WHERE).
fn first_per_column<'p, 'a: 'p>(
    pairs: impl Iterator<Item = &'p Pair<'a>> + Clone,
    pred: impl Fn(&Value<'a>) -> bool,
) -> Vec<(&'a str, &'p Value<'a>)> {
    let mut out: Vec<(&'a str, &'p Value<'a>)> = Vec::new();
    for (col, v) in pairs {
        if pred(v) && !out.iter().any(|(c, _)| c == col) {
            out.push((col, v));
        }
    }
    out
}

fn findings(stmt: &Statement<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let object_id = object_number(stmt.table);
    // Nearly every statement has no column the findings below are about:
    // one pass over the pairs tells, before three that would find nothing.
    let unusual = |(c, v): &Pair<'_>| {
        matches!(
            v,
            Value::Unsupported | Value::LobNotLogged | Value::JsonUnavailable | Value::JsonBytes(_)
        ) || is_unknown_column(c)
    };
    if object_id.is_some()
        || stmt.schema == "UNKNOWN"
        || stmt.assigned.iter().chain(&stmt.matched).any(unusual)
    {
        column_findings(stmt, object_id, &mut out);
    }
    if let Some(f) = partial_before_image(stmt) {
        out.push(f);
    }
    out
}

/// The dictionary, missing-value and JSON findings of a statement's
/// columns.
fn column_findings(stmt: &Statement<'_>, object_id: Option<u64>, out: &mut Vec<Finding>) {
    let all = || stmt.assigned.iter().chain(&stmt.matched);
    if object_id.is_some() || stmt.schema == "UNKNOWN" || all().any(|(c, _)| is_unknown_column(c)) {
        let name = format!("\"{}\".\"{}\"", stmt.schema, stmt.table);
        let detail = if object_id.is_some() || stmt.schema == "UNKNOWN" {
            name
        } else {
            format!("{name} with columns named \"COL n\"")
        };
        out.push(Finding::DictionaryMismatch { object_id, detail });
    }

    // One pass for both markers of a value the log does not hold.
    let missing = |v: &Value<'_>| matches!(v, Value::Unsupported | Value::LobNotLogged);
    for (col, v) in first_per_column(all(), missing) {
        let (schema, table, column) = (
            stmt.schema.to_string(),
            stmt.table.to_string(),
            col.to_string(),
        );
        out.push(match v {
            Value::LobNotLogged => Finding::LobNotLogged {
                schema,
                table,
                column,
            },
            _ => Finding::UnsupportedType {
                schema,
                table,
                column,
            },
        });
    }
    for (col, v) in first_per_column(all(), Value::is_undecoded_json) {
        let form = if matches!(v, Value::JsonUnavailable) {
            "unavailable"
        } else {
            "oson_hex"
        };
        out.push(Finding::JsonUndecoded {
            schema: stmt.schema.to_string(),
            table: stmt.table.to_string(),
            column: col.to_string(),
            form: form.to_string(),
        });
    }
}

/// An UPDATE or DELETE whose WHERE names only the changed columns (or
/// none) besides ROWID: minimal supplemental logging.
fn partial_before_image(stmt: &Statement<'_>) -> Option<Finding> {
    if stmt.row_id.is_some() {
        let only_changed = match stmt.kind {
            DmlKind::Update => stmt
                .matched
                .iter()
                .all(|(c, _)| stmt.assigned.iter().any(|(a, _)| a == c)),
            DmlKind::Delete => stmt.matched.is_empty(),
            DmlKind::Insert => false,
        };
        if only_changed {
            return Some(Finding::PartialBeforeImage {
                schema: stmt.schema.to_string(),
                table: stmt.table.to_string(),
                row_id: stmt.row_id.as_deref().map(str::to_string),
            });
        }
    }
    None
}
