//! The text a snapshot read returns for date and time columns, brought to
//! the form the stream gives the same value. A chunk's SQL reads DATE as
//! `TO_CHAR(c, 'YYYY-MM-DD HH24:MI:SS')`, TIMESTAMP with `.FF9` and
//! TIMESTAMP WITH TIME ZONE with `TZH:TZM`; the stream's canonical text is
//! ISO 8601 with `T`, and the instant in UTC with `Z` for a zoned value.
//! One value must have one form, or `--time-precision` converts the
//! streamed rows and not the `r` rows, and a typed consumer rejects them.

use chrono::{NaiveDateTime, TimeDelta};

/// How a snapshot read gives a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadForm {
    /// `YYYY-MM-DD HH24:MI:SS`.
    Date,
    /// `YYYY-MM-DD HH24:MI:SS.FF9`.
    Timestamp,
    /// `YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM`.
    TimestampTz,
    /// Already the stream's form (numbers, text, hex).
    AsIs,
}

/// The stream's form of `text` read in `form`; `None` when the text is not
/// in that form (the caller keeps it as read).
pub fn stream_form(form: ReadForm, text: &str) -> Option<String> {
    match form {
        ReadForm::AsIs => None,
        ReadForm::Date | ReadForm::Timestamp => {
            let (date, time) = text.split_once(' ')?;
            if !plain_date(date) || time.contains(' ') {
                return None;
            }
            Some(format!("{date}T{time}"))
        }
        ReadForm::TimestampTz => zoned_to_utc(text),
    }
}

/// [`stream_form`], or the text as read when it is not in `form`.
pub fn in_stream_form(form: ReadForm, text: String) -> String {
    stream_form(form, &text).unwrap_or(text)
}

/// A DATE or TIMESTAMP written in the stream's form, as a read gives it
/// (what the next chunk binds back): `2025-03-28T09:00:01` as
/// `2025-03-28 09:00:01`. Other text is returned as it is.
pub fn read_text_of(text: &str) -> String {
    match text.split_once('T') {
        Some((date, time)) if plain_date(date) && !time.ends_with('Z') => {
            format!("{date} {time}")
        }
        _ => text.to_string(),
    }
}

fn plain_date(date: &str) -> bool {
    let b = date.as_bytes();
    b.len() == 10 && b[4] == b'-' && b[7] == b'-'
}

/// `2024-01-31 10:00:00.123456789 +02:00` as `2024-01-31T08:00:00.123456789Z`.
fn zoned_to_utc(text: &str) -> Option<String> {
    let (local, offset) = text.rsplit_once(' ')?;
    let minutes = offset_minutes(offset)?;
    let (whole, fraction) = local.split_once('.').unwrap_or((local, ""));
    if !fraction.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let t = NaiveDateTime::parse_from_str(whole, "%Y-%m-%d %H:%M:%S").ok()?;
    let utc = t.checked_sub_signed(TimeDelta::minutes(minutes))?;
    let point = if fraction.is_empty() { "" } else { "." };
    Some(format!(
        "{}{point}{fraction}Z",
        utc.format("%Y-%m-%dT%H:%M:%S")
    ))
}

fn offset_minutes(offset: &str) -> Option<i64> {
    let (sign, rest) = match offset.as_bytes().first()? {
        b'+' => (1, &offset[1..]),
        b'-' => (-1, &offset[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 14 && m < 60).then_some(sign * (h * 60 + m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_date_and_timestamp_take_the_streams_iso_form() {
        assert_eq!(
            stream_form(ReadForm::Date, "2025-03-28 09:00:01").as_deref(),
            Some("2025-03-28T09:00:01")
        );
        assert_eq!(
            stream_form(ReadForm::Timestamp, "2025-03-28 09:00:01.120000000").as_deref(),
            Some("2025-03-28T09:00:01.120000000")
        );
    }

    #[test]
    fn a_read_zoned_timestamp_becomes_the_instant_in_utc() {
        assert_eq!(
            stream_form(
                ReadForm::TimestampTz,
                "2025-03-28 01:30:00.500000000 +02:00"
            )
            .as_deref(),
            Some("2025-03-27T23:30:00.500000000Z")
        );
        assert_eq!(
            stream_form(ReadForm::TimestampTz, "2025-03-28 01:30:00 -05:30").as_deref(),
            Some("2025-03-28T07:00:00Z")
        );
    }

    #[test]
    fn a_written_date_key_is_bound_back_in_the_reads_form() {
        for read in ["2025-03-28 09:00:01", "2025-03-28 09:00:01.500000000"] {
            let written = in_stream_form(ReadForm::Timestamp, read.to_string());
            assert_eq!(read_text_of(&written), read);
        }
        assert_eq!(read_text_of("ABC"), "ABC");
    }

    #[test]
    fn text_not_in_the_read_form_is_left_alone() {
        assert_eq!(stream_form(ReadForm::Date, "2025-03-28T09:00:01"), None);
        assert_eq!(
            stream_form(ReadForm::TimestampTz, "2025-03-28 01:30:00"),
            None
        );
        assert_eq!(stream_form(ReadForm::AsIs, "12"), None);
    }
}
