//! Column types and values of the simulated tables, and how LogMiner shows
//! them: the SQL_REDO literal (under the session NLS settings of
//! sql-redo-format.md), the canonical text a correct capture engine emits,
//! and the raw bytes LogMiner prints as `HEXTORAW` when it has no dictionary.
//!
//! What fixes a literal's form beyond its value is [`Nls`]: the session's
//! timestamp format (`…SS.FF9` as cdcctl sets it, or `…SS.FF`, which prints
//! as many fraction digits as the column's precision: none for
//! TIMESTAMP(0)) and the character sets, in which character data LogMiner
//! cannot show as text is printed as `HEXTORAW` of its stored bytes.

use chrono::{Datelike, NaiveDateTime, Timelike};

use crate::engine::event::Field;

use super::charset::{self, Charsets};
use super::rng::Rng;

/// The fraction part of the mining session's `NLS_TIMESTAMP_FORMAT` and
/// `NLS_TIMESTAMP_TZ_FORMAT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fraction {
    /// `FF9`, as cdcctl's session sets it: always nine digits.
    #[default]
    Ff9,
    /// `FF`: the column's precision in digits, so a TIMESTAMP(0) value
    /// prints an empty fraction (`2020-02-01 00:00:00.`).
    Ff,
}

impl Fraction {
    /// The format strings a scenario may name, for error messages.
    pub const ALLOWED: &'static str =
        "\"YYYY-MM-DD HH24:MI:SS.FF9\" or \"YYYY-MM-DD HH24:MI:SS.FF\"";

    /// The fraction of an `NLS_TIMESTAMP_FORMAT` a scenario names.
    pub fn from_format(format: &str) -> Option<Fraction> {
        match format.trim().to_ascii_uppercase().as_str() {
            "YYYY-MM-DD HH24:MI:SS.FF9" => Some(Fraction::Ff9),
            "YYYY-MM-DD HH24:MI:SS.FF" => Some(Fraction::Ff),
            _ => None,
        }
    }
}

/// The session and database settings a literal's form depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Nls {
    pub fraction: Fraction,
    pub charsets: Charsets,
}

/// A column type the simulator models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColType {
    Number {
        precision: Option<u32>,
        scale: Option<i32>,
    },
    Varchar2(u32),
    NVarchar2(u32),
    Char(u32),
    Date,
    Timestamp(u8),
    TimestampTz(u8),
    Raw(u32),
    Clob,
    Blob,
    /// XMLType stored as CLOB (binary XML prints the same rows).
    XmlType,
    IntervalYm,
    IntervalDs,
    /// Native JSON (21c+), stored as binary OSON.
    Json,
    /// DM8 `INT` (32-bit); values are [`Value::Number`].
    Int,
    /// DM8 `BIGINT`; values are [`Value::Number`].
    BigInt,
    /// DM8 `DOUBLE`; values are [`Value::Double`].
    Double,
    /// DM8 `DATE`: a day without time of day (Oracle's DATE has one).
    DateOnly,
    /// DM8 `TIME` (seconds); values are [`Value::Time`].
    Time,
}

/// The most bytes a VARCHAR2 value LogMiner prints inline may hold: longer
/// values of a `MAX_STRING_SIZE = EXTENDED` database come in 32K pieces.
pub const INLINE_STRING_BYTES: usize = 4000;

/// The type names a scenario may use, for error messages.
pub const ALLOWED_TYPES: &str = "NUMBER, NUMBER(p), NUMBER(p,s), VARCHAR2(n), NVARCHAR2(n), CHAR(n), DATE, \
TIMESTAMP(n), TIMESTAMP(n) WITH TIME ZONE, RAW(n), CLOB, BLOB, XMLTYPE, INTERVAL YEAR TO MONTH, INTERVAL DAY TO SECOND, JSON (21c+)";

fn args(text: &str, prefix: &str) -> Option<Vec<u32>> {
    let rest = text.strip_prefix(prefix)?.trim();
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(',')
        .map(|p| p.trim().parse::<u32>().ok())
        .collect()
}

/// The DM8 type names a scenario may use, for error messages.
pub const ALLOWED_DM_TYPES: &str =
    "INT, BIGINT, DECIMAL(p,s), DOUBLE, VARCHAR(n), CHAR(n), DATE, TIME, \
TIMESTAMP, TIMESTAMP WITH TIME ZONE, BLOB, CLOB";

impl ColType {
    /// Parses a type name of the scenario's dialect.
    pub fn parse_in(text: &str, dialect: crate::source::Dialect) -> Result<ColType, String> {
        match dialect {
            crate::source::Dialect::Dm => ColType::parse_dm(text),
            _ => ColType::parse(text),
        }
    }

    /// Parses a DM8 type name as a scenario writes it.
    pub fn parse_dm(text: &str) -> Result<ColType, String> {
        let t = text.trim().to_ascii_uppercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad =
            || format!("`{text}` is not a supported DM8 column type (allowed: {ALLOWED_DM_TYPES})");
        match t.as_str() {
            "INT" | "INTEGER" => return Ok(ColType::Int),
            "BIGINT" => return Ok(ColType::BigInt),
            "DOUBLE" => return Ok(ColType::Double),
            "DATE" => return Ok(ColType::DateOnly),
            "TIME" => return Ok(ColType::Time),
            // DM8's TIMESTAMP defaults to six fraction digits, as printed.
            "TIMESTAMP" => return Ok(ColType::Timestamp(6)),
            "TIMESTAMP WITH TIME ZONE" => return Ok(ColType::TimestampTz(6)),
            "CLOB" | "TEXT" => return Ok(ColType::Clob),
            "BLOB" => return Ok(ColType::Blob),
            _ => {}
        }
        if t.starts_with("DECIMAL") {
            return match args(&t, "DECIMAL").ok_or_else(bad)?.as_slice() {
                [p, s] if (1..=38).contains(p) && s <= p => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(*s as i32),
                }),
                [p] if (1..=38).contains(p) => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(0),
                }),
                _ => Err(bad()),
            };
        }
        let one = |prefix: &str| -> Result<u32, String> {
            match args(&t, prefix).ok_or_else(bad)?.as_slice() {
                [n] if *n > 0 => Ok(*n),
                _ => Err(bad()),
            }
        };
        if t.starts_with("VARCHAR") && !t.starts_with("VARCHAR2") {
            return Ok(ColType::Varchar2(one("VARCHAR")?));
        }
        if t.starts_with("CHAR") {
            return Ok(ColType::Char(one("CHAR")?));
        }
        Err(bad())
    }

    /// A type whose values the simulator can generate keys of in sequence.
    pub fn is_integral_key(&self) -> bool {
        matches!(
            self,
            ColType::Number { .. } | ColType::Int | ColType::BigInt
        )
    }

    /// The type name DM8's `ALL_TAB_COLUMNS.DATA_TYPE` shows.
    pub fn dm_data_type(&self) -> String {
        match self {
            ColType::Number { .. } => "DECIMAL".into(),
            ColType::Varchar2(_) | ColType::NVarchar2(_) => "VARCHAR".into(),
            ColType::Timestamp(_) => "TIMESTAMP".into(),
            ColType::TimestampTz(_) => "TIMESTAMP WITH TIME ZONE".into(),
            ColType::DateOnly | ColType::Date => "DATE".into(),
            ColType::Raw(_) => "VARBINARY".into(),
            other => other.data_type(),
        }
    }

    /// Parses an Oracle type name as a scenario writes it.
    pub fn parse(text: &str) -> Result<ColType, String> {
        let t = text.trim().to_ascii_uppercase();
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad = || format!("`{text}` is not a supported column type (allowed: {ALLOWED_TYPES})");
        let one = |prefix: &str, default: Option<u32>| -> Result<u32, String> {
            match args(&t, prefix).ok_or_else(bad)?.as_slice() {
                [n] if *n > 0 => Ok(*n),
                [] => default.ok_or_else(bad),
                _ => Err(bad()),
            }
        };
        if t.starts_with("TIMESTAMP") {
            let (head, tz) = match t.strip_suffix(" WITH TIME ZONE") {
                Some(h) => (h.to_string(), true),
                None => (t.clone(), false),
            };
            let p = match args(&head, "TIMESTAMP").ok_or_else(bad)?.as_slice() {
                [] => 6,
                [n] if *n <= 9 => *n as u8,
                _ => return Err(bad()),
            };
            return Ok(if tz {
                ColType::TimestampTz(p)
            } else {
                ColType::Timestamp(p)
            });
        }
        if t.starts_with("INTERVAL YEAR") && t.ends_with("TO MONTH") {
            return Ok(ColType::IntervalYm);
        }
        if t.starts_with("INTERVAL DAY") && t.contains("TO SECOND") {
            return Ok(ColType::IntervalDs);
        }
        match t.as_str() {
            "DATE" => return Ok(ColType::Date),
            "CLOB" => return Ok(ColType::Clob),
            "BLOB" => return Ok(ColType::Blob),
            "XMLTYPE" | "SYS.XMLTYPE" => return Ok(ColType::XmlType),
            "JSON" => return Ok(ColType::Json),
            _ => {}
        }
        if t.starts_with("NUMBER") {
            return match args(&t, "NUMBER").ok_or_else(bad)?.as_slice() {
                [] => Ok(ColType::Number {
                    precision: None,
                    scale: None,
                }),
                [p] if (1..=38).contains(p) => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(0),
                }),
                [p, s] if (1..=38).contains(p) && s <= p => Ok(ColType::Number {
                    precision: Some(*p),
                    scale: Some(*s as i32),
                }),
                _ => Err(bad()),
            };
        }
        if t.starts_with("NVARCHAR2") {
            return Ok(ColType::NVarchar2(one("NVARCHAR2", None)?));
        }
        if t.starts_with("VARCHAR2") {
            return Ok(ColType::Varchar2(one("VARCHAR2", None)?));
        }
        if t.starts_with("CHAR") {
            return Ok(ColType::Char(one("CHAR", Some(1))?));
        }
        if t.starts_with("RAW") {
            return Ok(ColType::Raw(one("RAW", None)?));
        }
        Err(bad())
    }

    /// `ALL_TAB_COLS.DATA_TYPE`.
    pub fn data_type(&self) -> String {
        match self {
            ColType::Number { .. } => "NUMBER".into(),
            ColType::Varchar2(_) => "VARCHAR2".into(),
            ColType::NVarchar2(_) => "NVARCHAR2".into(),
            ColType::Char(_) => "CHAR".into(),
            ColType::Date => "DATE".into(),
            ColType::Timestamp(p) => format!("TIMESTAMP({p})"),
            ColType::TimestampTz(p) => format!("TIMESTAMP({p}) WITH TIME ZONE"),
            ColType::Raw(_) => "RAW".into(),
            ColType::Clob => "CLOB".into(),
            ColType::Blob => "BLOB".into(),
            ColType::XmlType => "XMLTYPE".into(),
            ColType::IntervalYm => "INTERVAL YEAR(2) TO MONTH".into(),
            ColType::IntervalDs => "INTERVAL DAY(2) TO SECOND(6)".into(),
            ColType::Json => "JSON".into(),
            ColType::Int => "INT".into(),
            ColType::BigInt => "BIGINT".into(),
            ColType::Double => "DOUBLE".into(),
            ColType::DateOnly => "DATE".into(),
            ColType::Time => "TIME".into(),
        }
    }

    /// `DATA_LENGTH` in bytes.
    pub fn data_length(&self) -> u32 {
        match self {
            ColType::Number { .. } => 22,
            ColType::Varchar2(n) | ColType::Char(n) | ColType::Raw(n) => *n,
            ColType::NVarchar2(n) => n * 2,
            ColType::Date => 7,
            ColType::Timestamp(_) => 11,
            ColType::TimestampTz(_) => 13,
            ColType::Clob | ColType::Blob | ColType::XmlType | ColType::Json => 4000,
            ColType::IntervalYm => 5,
            ColType::IntervalDs => 11,
            ColType::Int => 4,
            ColType::BigInt | ColType::Double => 8,
            ColType::DateOnly => 3,
            ColType::Time => 5,
        }
    }

    pub fn is_lob(&self) -> bool {
        matches!(self, ColType::Clob | ColType::Blob)
    }

    /// A column whose value LogMiner never shows in a DML statement: LOBs
    /// (EMPTY_LOB() and LOB rows), XMLType (XML DOC rows) and native JSON
    /// (LOB-stored OSON: `/* JSON */ EMPTY_BLOB()` or its undecoded bytes).
    /// None is ever in a WHERE clause.
    pub fn is_lob_like(&self) -> bool {
        matches!(
            self,
            ColType::Clob | ColType::Blob | ColType::XmlType | ColType::Json
        )
    }

    /// The fraction digits a TIMESTAMP column's values print with under `f`.
    fn fraction_digits(&self, f: Fraction) -> usize {
        match (f, self) {
            (Fraction::Ff, ColType::Timestamp(p) | ColType::TimestampTz(p)) => usize::from(*p),
            _ => 9,
        }
    }
}

/// One column value as the database holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Null,
    /// Exact decimal text as Oracle prints it (`99.5`, `.5`, `-7`).
    Number(String),
    /// VARCHAR2 / CHAR (CHAR already blank-padded).
    Str(String),
    /// NVARCHAR2.
    NStr(String),
    Date(NaiveDateTime),
    Timestamp(NaiveDateTime),
    /// Local time and offset in minutes east of UTC.
    TimestampTz(NaiveDateTime, i32),
    Raw(Vec<u8>),
    /// LOB content; the redo carries it in LOB_WRITE rows, never in DML text.
    Clob(String),
    Blob(Vec<u8>),
    /// An XMLType document; the redo carries it in XML DOC rows.
    Xml(String),
    /// `+01-02`.
    IntervalYm(String),
    /// `+01 02:03:04.123456`.
    IntervalDs(String),
    /// A native JSON document, as JSON text.
    Json(String),
    /// A DM8 DOUBLE as DM8 prints it (`3.14159E0`).
    Double(String),
    /// A DM8 TIME.
    Time(chrono::NaiveTime),
}

/// Lower-case hex of `bytes`, two digits a byte, as HEXTORAW and LOB
/// writes print them. Built by table lookup: BLOB content runs to
/// kilobytes and is hexed for every write, so a formatter call per byte
/// dominated generating it.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0x0f)]);
    }
    String::from_utf8(out).unwrap_or_default()
}

fn quote(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('\'');
    for (i, run) in text.split('\'').enumerate() {
        if i > 0 {
            s.push_str("''");
        }
        s.push_str(run);
    }
    s.push('\'');
    s
}

/// `UNISTR('...')` body: non-ASCII as `\XXXX` UTF-16 units (surrogate pairs
/// above U+FFFF), backslash as `\005C`, quotes doubled.
fn unistr(text: &str) -> String {
    let mut s = String::from("UNISTR('");
    for c in text.chars() {
        if c == '\\' {
            s.push_str("\\005C");
        } else if c == '\'' {
            s.push_str("''");
        } else if c.is_ascii() {
            s.push(c);
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                s.push_str(&format!("\\{unit:04X}"));
            }
        }
    }
    s.push_str("')");
    s
}

/// An NVARCHAR2 literal: plain when ASCII, else `UNISTR(...)`; when `chain`
/// is set, ASCII runs stay quoted literals joined to UNISTR runs with `||`.
pub fn render_nvarchar(text: &str, chain: bool) -> String {
    if text.is_ascii() {
        return quote(text);
    }
    if !chain {
        return unistr(text);
    }
    let mut parts: Vec<String> = Vec::new();
    let mut run = String::new();
    let mut run_ascii = true;
    for c in text.chars() {
        let a = c.is_ascii() && c != '\\';
        if !run.is_empty() && a != run_ascii {
            parts.push(if run_ascii { quote(&run) } else { unistr(&run) });
            run.clear();
        }
        run_ascii = a;
        run.push(c);
    }
    if !run.is_empty() {
        parts.push(if run_ascii { quote(&run) } else { unistr(&run) });
    }
    parts.join(" || ")
}

fn fmt_date(t: &NaiveDateTime) -> String {
    use std::fmt::Write;
    // chrono parses its format string on every call; every DATE and
    // TIMESTAMP literal of every rendered row comes through here.
    if !(0..=9999).contains(&t.year()) || t.nanosecond() >= 1_000_000_000 {
        return t.format("%Y-%m-%d %H:%M:%S").to_string();
    }
    let mut s = String::with_capacity(19);
    let _ = write!(
        s,
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    s
}

fn fmt_frac(t: &NaiveDateTime) -> String {
    fmt_digits(t, 9)
}

/// Date, time and the first `digits` of the nine fraction digits (the
/// value was generated at the column's precision, so nothing is cut).
fn fmt_digits(t: &NaiveDateTime, digits: usize) -> String {
    let nine = format!("{:09}", t.nanosecond() % 1_000_000_000);
    format!("{}.{}", fmt_date(t), &nine[..digits.min(9)])
}

/// The envelope's text for a timestamp printed with `digits` fraction
/// digits: the engine keeps the digits as printed and reads an empty
/// fraction as `.0`.
fn iso_digits(t: &NaiveDateTime, digits: usize) -> String {
    let mut s = fmt_digits(t, digits).replacen(' ', "T", 1);
    if digits == 0 {
        s.push('0');
    }
    s
}

/// The header binary OSON starts with (`0xFF` then `JZ` and a version).
const OSON_MAGIC: [u8; 4] = [0xFF, 0x4A, 0x5A, 0x01];

/// Stand-in OSON bytes of a document: the header and then the JSON text.
/// Only the header matters to a reader of SQL_REDO, which cannot decode the
/// body either way; the header makes the bytes invalid UTF-8, so nothing
/// takes them for JSON text.
fn oson(doc: &str) -> Vec<u8> {
    let mut b = OSON_MAGIC.to_vec();
    b.extend_from_slice(doc.as_bytes());
    b
}

/// Character data LogMiner shows as a quoted literal; other values (here:
/// holding a control character other than tab, line feed or carriage
/// return) are printed as `HEXTORAW` of their stored bytes.
pub fn displayable(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

fn fmt_offset(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let m = minutes.unsigned_abs();
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

/// Deterministic choice of NVARCHAR2 rendering form, so the same value
/// always renders the same way.
fn chain_form(text: &str) -> bool {
    text.bytes()
        .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)))
        % 3
        == 0
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// A VARCHAR2 value too long to print inline (`MAX_STRING_SIZE =
    /// EXTENDED`): it travels in 32K BEGIN/WRITE/END rows.
    pub fn is_extended_string(&self) -> bool {
        matches!(self, Value::Str(s) if s.len() > INLINE_STRING_BYTES)
    }

    /// A value LogMiner leaves out of DML text: LOB, XML and extended strings
    /// (native JSON is in it, as `/* JSON */` and bytes no reader decodes).
    pub fn in_pieces(&self) -> bool {
        matches!(self, Value::Clob(_) | Value::Blob(_) | Value::Xml(_)) || self.is_extended_string()
    }

    /// The full value, as a capture that reassembles LOB, XML and
    /// extended-string rows gives it (BLOB as lower-case hex).
    pub fn full_field(&self) -> Field {
        match self {
            Value::Clob(s) | Value::Xml(s) => Field::text(s.clone()),
            Value::Blob(b) => Field::Binary(hex(b)),
            other => other.field(),
        }
    }

    /// [`Value::full_field`] of a value of column type `ty` mined under `nls`.
    pub fn full_field_in(&self, ty: &ColType, nls: &Nls) -> Field {
        match self {
            Value::Clob(_) | Value::Blob(_) | Value::Xml(_) => self.full_field(),
            other => other.field_in(ty, nls),
        }
    }

    /// [`Value::field`] of a value of column type `ty` mined under `nls`:
    /// timestamps keep the fraction digits the session format printed.
    pub fn field_in(&self, ty: &ColType, nls: &Nls) -> Field {
        let digits = ty.fraction_digits(nls.fraction);
        match self {
            Value::Timestamp(t) if digits != 9 => Field::text(iso_digits(t, digits)),
            Value::TimestampTz(t, off) if digits != 9 => {
                let utc = *t - chrono::TimeDelta::minutes(i64::from(*off));
                Field::text(format!("{}Z", iso_digits(&utc, digits)))
            }
            other => other.field(),
        }
    }

    /// The literal of a value of column type `ty` mined under `nls`, in the
    /// VALUES of an INSERT (`insert`) or in SET and WHERE.
    pub fn literal_in(&self, ty: &ColType, nls: &Nls, insert: bool) -> String {
        let digits = ty.fraction_digits(nls.fraction);
        let charsets = &nls.charsets;
        match self {
            // A JSON value is LOB-stored: an insert shows the empty locator.
            Value::Json(_) if insert => "/* JSON */ EMPTY_BLOB()".into(),
            Value::Str(s) if !displayable(s) => hextoraw_text(charsets.database, s),
            Value::NStr(s) if !displayable(s) => hextoraw_text(charsets.national, s),
            Value::Timestamp(t) if digits != 9 => {
                format!("TO_TIMESTAMP('{}')", fmt_digits(t, digits))
            }
            Value::TimestampTz(t, off) if digits != 9 => format!(
                "TO_TIMESTAMP_TZ('{} {}')",
                fmt_digits(t, digits),
                fmt_offset(*off)
            ),
            other => other.sql_literal(),
        }
    }

    /// The value as a column of type `ty` stores it: characters the
    /// column's character set lacks replaced, CHAR blank-padded to its
    /// length in bytes of that set.
    pub fn stored_in(self, ty: &ColType, charsets: &Charsets) -> Value {
        match (self, ty) {
            (Value::Str(s), ColType::Char(n)) => {
                let mut s = charset::stored(charsets.database, s.trim_end_matches(' '));
                while charset::byte_len(charsets.database, &s) < *n as usize {
                    s.push(' ');
                }
                Value::Str(s)
            }
            (Value::Str(s), _) => Value::Str(charset::stored_owned(charsets.database, s)),
            (Value::Clob(s), _) => Value::Clob(charset::stored_owned(charsets.database, s)),
            (Value::Xml(s), _) => Value::Xml(charset::stored_owned(charsets.database, s)),
            (Value::NStr(s), _) => Value::NStr(charset::stored_owned(charsets.national, s)),
            (other, _) => other,
        }
    }

    /// The literal LogMiner writes in SQL_REDO. LOB values render as
    /// `EMPTY_CLOB()`/`EMPTY_BLOB()`: their content follows in LOB_WRITE rows.
    pub fn sql_literal(&self) -> String {
        match self {
            Value::Null => "NULL".into(),
            Value::Number(n) => quote(n),
            Value::Str(s) => quote(s),
            Value::NStr(s) => render_nvarchar(s, chain_form(s)),
            Value::Date(t) => format!("TO_DATE('{}', 'YYYY-MM-DD HH24:MI:SS')", fmt_date(t)),
            Value::Timestamp(t) => format!("TO_TIMESTAMP('{}')", fmt_frac(t)),
            Value::TimestampTz(t, off) => {
                format!("TO_TIMESTAMP_TZ('{} {}')", fmt_frac(t), fmt_offset(*off))
            }
            Value::Raw(b) => format!("HEXTORAW('{}')", hex(b)),
            Value::Clob(_) => "EMPTY_CLOB()".into(),
            Value::Blob(_) => "EMPTY_BLOB()".into(),
            // Never printed in a statement: the XML DOC rows carry it.
            Value::Xml(_) => "NULL".into(),
            Value::IntervalYm(s) => format!("TO_YMINTERVAL('{s}')"),
            Value::IntervalDs(s) => format!("TO_DSINTERVAL('{s}')"),
            Value::Json(doc) => format!("/* JSON */ HEXTORAW('{}')", hex(&oson(doc))),
            Value::Double(d) => quote(d),
            Value::Time(t) => format!("'{}'", t.format("%H:%M:%S")),
        }
    }

    /// The canonical field text of the change envelope.
    pub fn field(&self) -> Field {
        match self {
            Value::Null => Field::Null,
            Value::Number(s) | Value::Str(s) | Value::NStr(s) => Field::text(s.clone()),
            Value::Date(t) => Field::text(fmt_date(t).replacen(' ', "T", 1)),
            Value::Timestamp(t) => Field::text(fmt_frac(t).replacen(' ', "T", 1)),
            // The envelope gives the instant in UTC (see engine::event).
            Value::TimestampTz(t, off) => {
                let utc = *t - chrono::TimeDelta::minutes(i64::from(*off));
                Field::text(format!("{}Z", fmt_frac(&utc).replacen(' ', "T", 1)))
            }
            Value::Raw(b) => Field::Binary(hex(b)),
            // Binary OSON no capture decodes, or no value at all.
            Value::Clob(_) | Value::Xml(_) | Value::Json(_) => Field::Unavailable,
            Value::Blob(_) => Field::UnavailableBinary,
            Value::IntervalYm(s) | Value::IntervalDs(s) | Value::Double(s) => {
                Field::text(s.clone())
            }
            Value::Time(t) => Field::text(t.format("%H:%M:%S").to_string()),
        }
    }

    /// The value as a snapshot read returns it (canonical text, LOBs as content).
    pub fn snapshot_text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            Value::Clob(s) | Value::Xml(s) | Value::Json(s) => Some(s.clone()),
            Value::Blob(b) => Some(hex(b)),
            other => other.field().as_str().map(str::to_string),
        }
    }

    /// The column's bytes as stored in the block: what LogMiner prints in
    /// `HEXTORAW('...')` when it cannot map the object to a dictionary entry.
    pub fn storage_bytes(&self) -> Vec<u8> {
        match self {
            Value::Null => Vec::new(),
            Value::Number(n) => oracle_number(n),
            Value::Str(s) | Value::Clob(s) | Value::Xml(s) => s.as_bytes().to_vec(),
            Value::NStr(s) => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            Value::Date(t) => date_bytes(t),
            Value::Timestamp(t) | Value::TimestampTz(t, _) => {
                let mut b = date_bytes(t);
                b.extend_from_slice(&(t.nanosecond() % 1_000_000_000).to_be_bytes());
                b
            }
            Value::Raw(b) | Value::Blob(b) => b.clone(),
            Value::IntervalYm(s) | Value::IntervalDs(s) | Value::Double(s) => s.as_bytes().to_vec(),
            Value::Json(doc) => oson(doc),
            Value::Time(t) => t.format("%H:%M:%S").to_string().into_bytes(),
        }
    }

    /// Byte length in the redo (a rough size for log filling).
    pub fn redo_len(&self) -> usize {
        match self {
            Value::Null => 1,
            Value::Number(n) => n.len() / 2 + 2,
            Value::Str(s) | Value::NStr(s) | Value::Clob(s) | Value::Xml(s) | Value::Json(s) => {
                s.len() + 1
            }
            Value::Raw(b) | Value::Blob(b) => b.len() + 1,
            _ => 12,
        }
    }
}

/// LOB values up to this many bytes are printed inline by the simulated
/// DM8 LogMiner (a CLOB as a string, a BLOB as `0x…`); longer ones print
/// `OUT_CLOB`. DM8 keeps short LOBs in the row and larger ones out of it;
/// the exact limit is the simulator's choice, not a measured DM8 figure.
pub const DM_INLINE_LOB_BYTES: usize = 900;

/// How the simulated DM8 LogMiner prints a LOB it does not show inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmLobForm {
    /// `OUT_CLOB`.
    Bare,
    /// `OUT_CLOB(LOB_ID: n)`, with `LOGMNR_PARSE_LOB = 1`.
    WithId(u64),
}

/// A number as DM8 prints it: unquoted, with a zero before a leading point.
fn dm_number(n: &str) -> String {
    if let Some(rest) = n.strip_prefix("-.") {
        format!("-0.{rest}")
    } else if n.starts_with('.') {
        format!("0{n}")
    } else {
        n.to_string()
    }
}

impl Value {
    /// A LOB DM8's LogMiner shows inline; other values always are.
    pub fn dm_inline(&self) -> bool {
        match self {
            Value::Clob(s) => s.len() <= DM_INLINE_LOB_BYTES,
            Value::Blob(b) => b.len() <= DM_INLINE_LOB_BYTES,
            _ => true,
        }
    }

    /// The literal DM8's LogMiner writes in SQL_REDO for a value of column
    /// type `ty` (dm8-contract: unquoted numbers, `DATE'…'`, `TIME'…'`,
    /// `TIMESTAMP'…'`, `0x…`, `OUT_CLOB` for a LOB kept out of the row).
    pub fn dm_literal(&self, ty: &ColType, lob: DmLobForm) -> String {
        let digits = match ty {
            ColType::Timestamp(p) | ColType::TimestampTz(p) => usize::from(*p),
            _ => 6,
        };
        let out_clob = || match lob {
            DmLobForm::Bare => "OUT_CLOB".to_string(),
            DmLobForm::WithId(id) => format!("OUT_CLOB(LOB_ID: {id})"),
        };
        match self {
            Value::Null => "NULL".into(),
            Value::Number(n) => dm_number(n),
            Value::Double(d) => d.clone(),
            Value::Str(s) | Value::NStr(s) => quote(s),
            Value::Date(t) => format!("DATE'{}'", t.format("%Y-%m-%d")),
            Value::Time(t) => format!("TIME'{}'", t.format("%H:%M:%S")),
            Value::Timestamp(t) => format!("TIMESTAMP'{}'", fmt_digits(t, digits)),
            Value::TimestampTz(t, off) => {
                format!("TIMESTAMP'{} {}'", fmt_digits(t, digits), fmt_offset(*off))
            }
            Value::Raw(b) => format!("0x{}", hex(b).to_ascii_uppercase()),
            Value::Clob(c) if self.dm_inline() => quote(c),
            Value::Blob(b) if self.dm_inline() => format!("0x{}", hex(b).to_ascii_uppercase()),
            Value::Clob(_) | Value::Blob(_) => out_clob(),
            other => other.sql_literal(),
        }
    }

    /// The envelope's value a capture of DM8's LogMiner can give: what the
    /// literal shows, and nothing for a LOB kept out of the row, whose
    /// content DM8 never logs.
    pub fn dm_field(&self, ty: &ColType) -> Field {
        let digits = match ty {
            ColType::Timestamp(p) | ColType::TimestampTz(p) => usize::from(*p),
            _ => 6,
        };
        match self {
            Value::Number(n) => Field::text(dm_number(n)),
            Value::Timestamp(t) => Field::text(iso_digits(t, digits)),
            Value::TimestampTz(t, off) => {
                let utc = *t - chrono::TimeDelta::minutes(i64::from(*off));
                Field::text(format!("{}Z", iso_digits(&utc, digits)))
            }
            Value::Clob(c) if self.dm_inline() => Field::text(c.clone()),
            Value::Blob(b) if self.dm_inline() => Field::Binary(hex(b)),
            Value::Clob(_) | Value::Blob(_) => Field::Unavailable,
            other => other.field(),
        }
    }
}

/// `HEXTORAW` of `text`'s bytes in `charset` (a value [`Value::stored_in`]
/// made storable there).
fn hextoraw_text(charset: crate::engine::charset::Charset, text: &str) -> String {
    let bytes = charset::encode(charset, text).unwrap_or_else(|| text.as_bytes().to_vec());
    format!("HEXTORAW('{}')", hex(&bytes))
}

fn date_bytes(t: &NaiveDateTime) -> Vec<u8> {
    let y = t.year();
    vec![
        (y / 100 + 100) as u8,
        (y % 100 + 100) as u8,
        t.month() as u8,
        t.day() as u8,
        t.hour() as u8 + 1,
        t.minute() as u8 + 1,
        t.second() as u8 + 1,
    ]
}

/// Oracle's internal NUMBER format: exponent byte then base-100 digits
/// (+1 for positive; 101-d and a trailing 102 for negative).
pub fn oracle_number(text: &str) -> Vec<u8> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    if int.is_empty() && frac.trim_matches('0').is_empty() {
        return vec![0x80];
    }
    // Pad to even-length groups around the decimal point.
    let int_p = if int.len() % 2 == 1 {
        format!("0{int}")
    } else {
        int.to_string()
    };
    let frac_p = if frac.len() % 2 == 1 {
        format!("{frac}0")
    } else {
        frac.to_string()
    };
    let all: Vec<u8> = format!("{int_p}{frac_p}")
        .bytes()
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    let mut groups: Vec<u8> = all
        .chunks(2)
        .map(|c| c[0] * 10 + c.get(1).copied().unwrap_or(0))
        .collect();
    let mut exp = (int_p.len() / 2) as i32 - 1;
    while groups.first() == Some(&0) {
        groups.remove(0);
        exp -= 1;
    }
    while groups.last() == Some(&0) {
        groups.pop();
    }
    let mut out = Vec::with_capacity(groups.len() + 2);
    if neg {
        out.push((62 - exp) as u8);
        out.extend(groups.iter().map(|g| 101 - g));
        out.push(102);
    } else {
        out.push((exp + 193) as u8);
        out.extend(groups.iter().map(|g| g + 1));
    }
    out
}

/// Oracle's text for a decimal `mantissa * 10^-scale`: no trailing zeros in
/// the fraction, no leading zero before the point (`.5`, `-.25`).
pub fn number_text(mantissa: i128, scale: u32) -> String {
    let neg = mantissa < 0;
    let m = mantissa.unsigned_abs().to_string();
    let scale = scale as usize;
    let (int, frac) = if m.len() > scale {
        (
            m[..m.len() - scale].to_string(),
            m[m.len() - scale..].to_string(),
        )
    } else {
        (String::new(), format!("{}{m}", "0".repeat(scale - m.len())))
    };
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() && frac.is_empty() {
        "0".to_string()
    } else {
        int
    };
    let int = if int == "0" && !frac.is_empty() {
        String::new()
    } else {
        int
    };
    let mut s = String::new();
    if neg && (int != "0" || !frac.is_empty()) {
        s.push('-');
    }
    s.push_str(&int);
    if !frac.is_empty() {
        s.push('.');
        s.push_str(frac);
    }
    s
}

/// Text samples that exercise the parser: quotes, commas, parentheses,
/// `;`, ` and `, newlines, keywords.
const TRICKY: &[&str] = &[
    "O'Brien",
    "a, b (c); d",
    "x and y",
    "it''s",
    "line1\nline2",
    "values ('x')",
    "where \"A\" = 'B'",
    " and ROWID = 'AAAA'",
    ");--",
    "tab\there",
    "NULL",
    "",
];

const PLAIN: &[&str] = &[
    "NEW",
    "PAID",
    "SHIPPED",
    "CANCELLED",
    "RETURNED",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "Shanghai",
    "Beijing",
    "Hangzhou",
];

const WIDE: &[&str] = &[
    "café",
    "中文",
    "订单已支付",
    "Zürich",
    "naïve",
    "😀 smile",
    "𝄞 clef",
    "ab\\cd é",
    "Ελληνικά",
    "日本語テキスト",
];

fn fit_bytes(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

fn fit_chars(s: &str, max: usize) -> String {
    s.chars()
        .collect::<Vec<_>>()
        .chunks(max.max(1))
        .next()
        .map(|c| c.iter().collect())
        .unwrap_or_default()
}

/// Generates values per column type.
pub struct ValueGen;

impl ValueGen {
    /// A fresh value for a column; `now` anchors dates, `long_text` allows
    /// strings long enough to push SQL_REDO past 4000 bytes.
    pub fn generate(
        rng: &mut Rng,
        ty: &ColType,
        name: &str,
        now: NaiveDateTime,
        long_text: bool,
    ) -> Value {
        match ty {
            ColType::Number { precision, scale } => {
                let scale = scale.unwrap_or(0).max(0) as u32;
                let digits = precision.unwrap_or(10).min(12);
                let int_digits = digits.saturating_sub(scale).clamp(1, 9);
                let max = 10i128.pow(int_digits + scale) - 1;
                let mut m = i128::from(rng.below(max.min(i128::from(u32::MAX)) as u64 + 1));
                if precision.is_none() && rng.chance(0.2) {
                    // Unconstrained NUMBER: fractions and negatives.
                    let s = rng.range(1, 4) as u32;
                    m = i128::from(rng.below(100_000)) - 50_000;
                    return Value::Number(number_text(m, s));
                }
                if rng.chance(0.05) {
                    m = i128::from(rng.below(10)) * 10i128.pow(scale.saturating_sub(1));
                }
                Value::Number(number_text(m, scale))
            }
            ColType::Varchar2(n) | ColType::Char(n) => {
                let upper = name.to_ascii_uppercase();
                let mut s = if upper.contains("STATUS") {
                    PLAIN[rng.below(5) as usize].to_string()
                } else if long_text && *n > 1000 && rng.chance(0.15) {
                    let mut s = String::new();
                    // Past 4000 bytes (MAX_STRING_SIZE = EXTENDED) the value
                    // travels in 32K rows.
                    let want = if *n as usize > INLINE_STRING_BYTES {
                        rng.range(3000, (*n as u64).min(12_000)) as usize
                    } else {
                        (*n as usize).min(3900)
                    };
                    while s.len() < want {
                        s.push_str(rng.pick(PLAIN).copied().unwrap_or("x"));
                        s.push_str(rng.pick(TRICKY).copied().unwrap_or(" "));
                        if rng.chance(0.1) {
                            s.push_str(rng.pick(WIDE).copied().unwrap_or("é"));
                        }
                    }
                    s
                } else {
                    match rng.below(10) {
                        0..=3 => rng.pick(TRICKY).copied().unwrap_or("").to_string(),
                        4 => rng.pick(WIDE).copied().unwrap_or("").to_string(),
                        _ => format!(
                            "{} {}",
                            rng.pick(PLAIN).copied().unwrap_or(""),
                            rng.below(10_000)
                        ),
                    }
                };
                s = fit_bytes(&s, *n as usize);
                if let ColType::Char(n) = ty {
                    // CHAR is blank-padded to its byte length.
                    while s.len() < *n as usize {
                        s.push(' ');
                    }
                    return Value::Str(s);
                }
                if s.is_empty() {
                    // Oracle stores '' as NULL.
                    return Value::Null;
                }
                Value::Str(s)
            }
            ColType::NVarchar2(n) => {
                let s = match rng.below(4) {
                    0 => rng.pick(PLAIN).copied().unwrap_or("x").to_string(),
                    1 => format!(
                        "{} {}",
                        rng.pick(TRICKY).copied().unwrap_or(""),
                        rng.pick(WIDE).copied().unwrap_or("")
                    ),
                    _ => rng.pick(WIDE).copied().unwrap_or("é").to_string(),
                };
                let s = fit_chars(&s, *n as usize);
                if s.is_empty() {
                    Value::Null
                } else {
                    Value::NStr(s)
                }
            }
            ColType::Date => {
                let back = rng.below(40 * 86_400) as i64;
                let ahead = rng.below(2 * 86_400) as i64;
                Value::Date(
                    now - chrono::Duration::seconds(back) + chrono::Duration::seconds(ahead),
                )
            }
            ColType::Timestamp(p) | ColType::TimestampTz(p) => {
                let unit = 10u64.pow(9 - u32::from(*p));
                let nanos = rng.below(1_000_000_000) / unit * unit;
                let t = now - chrono::Duration::seconds(rng.below(3600) as i64)
                    + chrono::Duration::nanoseconds(nanos as i64);
                let t = t.with_nanosecond(nanos as u32).unwrap_or(t);
                if matches!(ty, ColType::TimestampTz(_)) {
                    let offs = [480, 0, -300, 330, 60];
                    Value::TimestampTz(t, offs[rng.below(offs.len() as u64) as usize])
                } else {
                    Value::Timestamp(t)
                }
            }
            ColType::Raw(n) => {
                let len = rng.range(1, u64::from(*n).min(32)) as usize;
                Value::Raw((0..len).map(|_| rng.below(256) as u8).collect())
            }
            ColType::Clob => {
                let len = rng.range(10, 9000) as usize;
                let mut s = String::new();
                while s.len() < len {
                    s.push_str(rng.pick(PLAIN).copied().unwrap_or("x"));
                    s.push_str(rng.pick(TRICKY).copied().unwrap_or(" "));
                }
                Value::Clob(s)
            }
            ColType::Blob => {
                let len = rng.range(1, 3000) as usize;
                Value::Blob((0..len).map(|_| rng.below(256) as u8).collect())
            }
            ColType::XmlType => {
                let mut doc = format!("<doc id=\"{}\">", rng.below(100_000));
                for _ in 0..rng.range(1, 60) {
                    let text = rng.pick(PLAIN).copied().unwrap_or("x");
                    doc.push_str(&format!("<v n=\"{}\">{text}</v>", rng.below(1000)));
                    if rng.chance(0.1) {
                        doc.push_str(&format!(
                            "<w>{}</w>",
                            rng.pick(WIDE).copied().unwrap_or("é")
                        ));
                    }
                }
                doc.push_str("</doc>");
                Value::Xml(doc)
            }
            ColType::Json => {
                let mut doc = format!(
                    "{{\"id\":{},\"status\":\"{}\",\"tags\":[",
                    rng.below(100_000),
                    rng.pick(PLAIN).copied().unwrap_or("x")
                );
                for i in 0..rng.range(0, 4) {
                    if i > 0 {
                        doc.push(',');
                    }
                    doc.push_str(&format!("\"{}\"", rng.pick(PLAIN).copied().unwrap_or("x")));
                }
                doc.push_str("]}");
                Value::Json(doc)
            }
            ColType::Int => {
                let n = i64::from(rng.below(2_000_000_000) as u32) - 1_000_000_000;
                Value::Number(n.to_string())
            }
            ColType::BigInt => {
                if rng.chance(0.05) {
                    return Value::Number(i64::MAX.to_string());
                }
                let n = rng.below(1 << 62) as i64 - (1 << 61);
                Value::Number(n.to_string())
            }
            ColType::Double => {
                // DM8 prints a DOUBLE as one digit, a fraction and an
                // exponent: 3.14159E0.
                let first = rng.range(1, 9);
                let frac_digits = rng.range(1, 6) as u32;
                let mut frac = rng.below(10u64.pow(frac_digits));
                if frac.is_multiple_of(10) {
                    frac += 1;
                }
                let sign = if rng.chance(0.2) { "-" } else { "" };
                let exp = rng.below(10) as i64 - 3;
                Value::Double(format!(
                    "{sign}{first}.{frac:0width$}E{exp}",
                    width = frac_digits as usize
                ))
            }
            ColType::DateOnly => {
                let back = rng.below(400) as i64;
                let day = (now - chrono::Duration::days(back)).date();
                Value::Date(day.and_hms_opt(0, 0, 0).unwrap_or(now))
            }
            ColType::Time => {
                let secs = rng.below(86_400) as u32;
                Value::Time(
                    chrono::NaiveTime::from_num_seconds_from_midnight_opt(secs, 0)
                        .unwrap_or_default(),
                )
            }
            ColType::IntervalYm => {
                let sign = if rng.chance(0.2) { '-' } else { '+' };
                Value::IntervalYm(format!("{sign}{:02}-{:02}", rng.below(100), rng.below(12)))
            }
            ColType::IntervalDs => {
                let sign = if rng.chance(0.2) { '-' } else { '+' };
                Value::IntervalDs(format!(
                    "{sign}{:02} {:02}:{:02}:{:02}.{:06}",
                    rng.below(100),
                    rng.below(24),
                    rng.below(60),
                    rng.below(60),
                    rng.below(1_000_000)
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn t(h: u32, m: u32, s: u32, nanos: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2025, 3, 1)
            .and_then(|d| d.and_hms_nano_opt(h, m, s, nanos))
            .unwrap()
    }

    #[test]
    fn literals_match_the_reference_forms() {
        assert_eq!(Value::Number("123.45".into()).sql_literal(), "'123.45'");
        assert_eq!(Value::Str("it's".into()).sql_literal(), "'it''s'");
        assert_eq!(
            Value::Date(t(9, 0, 0, 0)).sql_literal(),
            "TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS')"
        );
        assert_eq!(
            Value::Timestamp(t(9, 0, 0, 123_456_000)).sql_literal(),
            "TO_TIMESTAMP('2025-03-01 09:00:00.123456000')"
        );
        assert_eq!(
            Value::TimestampTz(t(9, 0, 0, 123_456_000), 480).sql_literal(),
            "TO_TIMESTAMP_TZ('2025-03-01 09:00:00.123456000 +08:00')"
        );
        assert_eq!(
            Value::Raw(vec![10, 11, 12]).sql_literal(),
            "HEXTORAW('0a0b0c')"
        );
        assert_eq!(Value::Clob("x".into()).sql_literal(), "EMPTY_CLOB()");
        assert_eq!(Value::Blob(vec![1]).sql_literal(), "EMPTY_BLOB()");
        assert_eq!(
            Value::IntervalYm("+01-02".into()).sql_literal(),
            "TO_YMINTERVAL('+01-02')"
        );
        assert_eq!(
            Value::IntervalDs("+01 02:03:04.123456".into()).sql_literal(),
            "TO_DSINTERVAL('+01 02:03:04.123456')"
        );
        assert_eq!(Value::Null.sql_literal(), "NULL");
    }

    #[test]
    fn canonical_text_matches_the_envelope_rules() {
        assert_eq!(
            Value::Date(t(9, 0, 0, 0)).field(),
            Field::text("2025-03-01T09:00:00")
        );
        assert_eq!(
            Value::Timestamp(t(9, 0, 0, 123_456_000)).field(),
            Field::text("2025-03-01T09:00:00.123456000")
        );
        assert_eq!(
            Value::TimestampTz(t(9, 0, 0, 123_456_000), 480).field(),
            Field::text("2025-03-01T01:00:00.123456000Z")
        );
        assert_eq!(
            Value::TimestampTz(t(0, 30, 0, 0), 60).field(),
            Field::text("2025-02-28T23:30:00.000000000Z")
        );
        assert_eq!(
            Value::Raw(vec![0xAB, 1]).field(),
            Field::Binary("ab01".into())
        );
        assert_eq!(Value::Clob("x".into()).field(), Field::Unavailable);
        assert_eq!(Value::Blob(vec![1]).field(), Field::UnavailableBinary);
        assert_eq!(Value::Null.field(), Field::Null);
    }

    #[test]
    fn nvarchar_uses_unistr_with_surrogate_pairs() {
        assert_eq!(render_nvarchar("中文", false), "UNISTR('\\4E2D\\6587')");
        assert_eq!(render_nvarchar("😀", false), "UNISTR('\\D83D\\DE00')");
        assert_eq!(render_nvarchar("abé", true), "'ab' || UNISTR('\\00E9')");
        assert_eq!(render_nvarchar("a\\é", false), "UNISTR('a\\005C\\00E9')");
        assert_eq!(render_nvarchar("plain", true), "'plain'");
    }

    #[test]
    fn numbers_print_like_oracle() {
        assert_eq!(number_text(9950, 2), "99.5");
        assert_eq!(number_text(50, 2), ".5");
        assert_eq!(number_text(-25, 2), "-.25");
        assert_eq!(number_text(0, 2), "0");
        assert_eq!(number_text(1001, 0), "1001");
        assert_eq!(number_text(-7, 0), "-7");
    }

    #[test]
    fn internal_number_bytes_match_oracle() {
        assert_eq!(hex(&oracle_number("1010")), "c20b0b");
        assert_eq!(hex(&oracle_number("101000")), "c30b0b");
        assert_eq!(hex(&oracle_number(".5")), "c033");
        assert_eq!(hex(&oracle_number("0")), "80");
        assert_eq!(hex(&oracle_number("1")), "c102");
        assert_eq!(hex(&oracle_number("-1")), "3e6466");
        assert_eq!(hex(&oracle_number("99.5")), "c16433");
    }

    #[test]
    fn type_names_parse_and_reject() {
        assert_eq!(
            ColType::parse("number(12,2)").unwrap(),
            ColType::Number {
                precision: Some(12),
                scale: Some(2)
            }
        );
        assert_eq!(
            ColType::parse("TIMESTAMP(6) WITH TIME ZONE").unwrap(),
            ColType::TimestampTz(6)
        );
        assert_eq!(
            ColType::parse("INTERVAL DAY(2) TO SECOND(6)").unwrap(),
            ColType::IntervalDs
        );
        let err = ColType::parse("VARCHAR").unwrap_err();
        assert!(err.contains("allowed: NUMBER"), "{err}");
        assert!(ColType::parse("VARCHAR2").is_err());
    }

    #[test]
    fn hex_dates_and_quotes_print_as_the_formatters_do() {
        let bytes: Vec<u8> = (0..=255).collect();
        let by_format: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&bytes), by_format);
        for (y, mo, d, h, mi, se) in [
            (2024, 2, 29, 23, 59, 59),
            (1, 1, 1, 0, 0, 0),
            (12345, 6, 7, 8, 9, 10),
            (-44, 3, 15, 12, 0, 0),
        ] {
            let t = NaiveDate::from_ymd_opt(y, mo, d)
                .and_then(|x| x.and_hms_opt(h, mi, se))
                .unwrap();
            assert_eq!(fmt_date(&t), t.format("%Y-%m-%d %H:%M:%S").to_string());
        }
        assert_eq!(quote("it's 'x'"), "'it''s ''x'''");
        assert_eq!(quote(""), "''");
    }
}
