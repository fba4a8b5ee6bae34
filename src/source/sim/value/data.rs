//! One column value as the database holds it: the [`Value`] itself, what
//! a column's character set and length make of it, and its bytes in the
//! block and the redo.

use chrono::{Datelike, NaiveDateTime, Timelike};

use super::super::charset::{self, Charsets};
use super::types::{ColType, INLINE_STRING_BYTES};

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

    /// The column's bytes as stored in the block: what LogMiner prints in
    /// `HEXTORAW('...')` when it cannot map the object to a dictionary entry.
    pub fn storage_bytes(&self) -> Vec<u8> {
        match self {
            Value::Null => Vec::new(),
            Value::Number(n) => super::number::oracle_number(n),
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
            Value::Json(doc) => super::oson::encode(doc),
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
