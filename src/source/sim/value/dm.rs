//! How DM8's LogMiner shows a value: unquoted numbers, `DATE'…'` and
//! `TIMESTAMP'…'` literals, `0x…` bytes, and `OUT_CLOB` for a LOB kept out
//! of the row, with the envelope text a capture of it can give.

use crate::engine::event::Field;

use super::data::Value;
use super::forms::{fmt_digits, fmt_offset, hex, iso_digits, quote};
use super::types::ColType;

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
