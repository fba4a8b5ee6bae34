//! How Oracle's LogMiner shows a value: the SQL_REDO literal under the
//! session's NLS settings, and the canonical text of the change envelope a
//! correct capture gives for it.

use crate::engine::event::Field;

use super::super::charset;
use super::data::Value;
use super::forms::{
    displayable, fmt_date, fmt_digits, fmt_frac, fmt_offset, hex, iso_digits, quote,
    render_nvarchar,
};
use super::oson;
use super::types::{ColType, Nls};

impl Value {
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
            Value::Json(doc) => format!("/* JSON */ HEXTORAW('{}')", hex(&oson::encode(doc))),
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
            // Not in the statement: LOB rows, XML DOC rows, or (JSON) the
            // empty locator of an insert; an update's OSON is the truth's.
            Value::Clob(_) | Value::Xml(_) | Value::Json(_) => Field::Unavailable,
            Value::Blob(_) => Field::UnavailableBinary,
            Value::IntervalYm(s) | Value::IntervalDs(s) | Value::Double(s) => {
                Field::text(s.clone())
            }
            Value::Time(t) => Field::text(t.format("%H:%M:%S").to_string()),
        }
    }

    /// The value as a chunk's SQL returns it: DATE and TIMESTAMP through
    /// `TO_CHAR` with the snapshot's formats (space-separated, nine fraction
    /// digits, the zone as `TZH:TZM`), everything else as
    /// [`Value::snapshot_text`].
    pub fn read_text(&self) -> Option<String> {
        match self {
            Value::Date(t) => Some(fmt_date(t)),
            Value::Timestamp(t) => Some(fmt_frac(t)),
            Value::TimestampTz(t, off) => Some(format!("{} {}", fmt_frac(t), fmt_offset(*off))),
            other => other.snapshot_text(),
        }
    }

    /// How a read gives this value (what the backend converts from).
    pub fn read_form(&self) -> crate::engine::snapshot::ReadForm {
        use crate::engine::snapshot::ReadForm;
        match self {
            Value::Date(_) => ReadForm::Date,
            Value::Timestamp(_) => ReadForm::Timestamp,
            Value::TimestampTz(..) => ReadForm::TimestampTz,
            _ => ReadForm::AsIs,
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
}

/// Deterministic choice of NVARCHAR2 rendering form, so the same value
/// always renders the same way.
fn chain_form(text: &str) -> bool {
    text.bytes()
        .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)))
        % 3
        == 0
}

/// `HEXTORAW` of `text`'s bytes in `charset` (a value [`Value::stored_in`]
/// made storable there).
fn hextoraw_text(charset: crate::engine::charset::Charset, text: &str) -> String {
    let bytes = charset::encode(charset, text).unwrap_or_else(|| text.as_bytes().to_vec());
    format!("HEXTORAW('{}')", hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, NaiveDateTime};

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
}
