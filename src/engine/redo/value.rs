//! Parsed SQL_REDO values and their canonical text (the `Field` the events
//! carry): borrowed from the statement unless unescaping needed a copy.

use std::borrow::Cow;
use std::ops::Range;

use crate::engine::event::Field;

/// One value as LogMiner wrote it, with SQL quoting undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    Null,
    /// Strings, numbers (quoted or not) and decoded UNISTR text.
    Text(Cow<'a, str>),
    /// `TO_DATE` text, `YYYY-MM-DD HH24:MI:SS`; DM8's `DATE'YYYY-MM-DD'`
    /// gives the date alone (midnight).
    Date(Cow<'a, str>),
    /// `TO_TIMESTAMP` text, `YYYY-MM-DD HH24:MI:SS[.FF]`.
    Timestamp(Cow<'a, str>),
    /// `TO_TIMESTAMP_TZ` text, timestamp then a space and the zone.
    TimestampTz(Cow<'a, str>),
    /// `HEXTORAW` digits as written.
    Raw(Cow<'a, str>),
    /// DM8's `0x...` digits (without `0x`): always a binary column's bytes,
    /// since DM8 prints character data as text.
    Bytes(Cow<'a, str>),
    /// DM8's `TIME'HH:MI:SS[.FF]'` text.
    Time(Cow<'a, str>),
    /// DM8's `OUT_CLOB` / `OUT_CLOB(LOB_ID: n)`: a large LOB whose content
    /// DM8 never writes to its log.
    LobNotLogged,
    /// `TO_YMINTERVAL` / `TO_DSINTERVAL` text.
    Interval(Cow<'a, str>),
    /// `EMPTY_CLOB()`: the data follows in LOB_WRITE rows.
    EmptyLob,
    /// `EMPTY_BLOB()`: the same for bytes.
    EmptyBlob,
    /// `Unsupported Type`.
    Unsupported,
    /// `/* JSON */ HEXTORAW('...')`: a native JSON column's bytes, hex as
    /// written. JSON text when they are JSON text or binary OSON cdcctl
    /// decodes; otherwise unavailable (its canonical text stays the
    /// lower-case hex).
    JsonBytes(Cow<'a, str>),
    /// `/* JSON */ EMPTY_BLOB()`: the JSON value was not logged in the row.
    JsonUnavailable,
}

impl<'a> Value<'a> {
    /// The value a `/* JSON */` comment marks.
    pub(super) fn into_json(self) -> Value<'a> {
        match self {
            Value::Raw(hex) => Value::JsonBytes(hex),
            Value::EmptyLob | Value::EmptyBlob => Value::JsonUnavailable,
            other => other,
        }
    }

    /// Whether the value stands for a native JSON column that could not be
    /// given as JSON text (not logged, or binary OSON that did not decode).
    pub fn is_undecoded_json(&self) -> bool {
        match self {
            Value::JsonUnavailable => true,
            Value::JsonBytes(hex) => json_text(hex).is_none(),
            _ => false,
        }
    }

    /// A date or timestamp whose canonical text is its own with the ISO
    /// `T` between date and time: the date and the time. The parser took
    /// only digits and separators into them, so neither needs escaping in
    /// JSON. `None` for other values and for the forms converted further
    /// (a date alone, an empty fraction).
    pub fn iso_parts(&self) -> Option<(&str, &str)> {
        let (Value::Date(t) | Value::Timestamp(t)) = self else {
            return None;
        };
        if t.len() <= 11 || t.as_bytes()[10] != b' ' || t.ends_with('.') {
            return None;
        }
        Some((&t[..10], &t[11..]))
    }

    /// The canonical event value.
    pub fn to_field(&self) -> Field {
        let mut out = String::new();
        match self.field_text(&mut out) {
            FieldText::Null => Field::Null,
            FieldText::Unavailable => Field::Unavailable,
            FieldText::UnavailableBinary => Field::UnavailableBinary,
            FieldText::Text(t) => Field::Text(t.to_string()),
            FieldText::Binary(t) => Field::Binary(t.to_string()),
            FieldText::TextAppended(_) => Field::Text(out),
            FieldText::BinaryAppended(_) => Field::Binary(out),
        }
    }

    /// [`Value::to_field`] without allocating: text that is the value as
    /// written is borrowed, and text that had to be converted (dates to
    /// ISO, hex to lower case) is appended to `out`.
    pub fn field_text(&self, out: &mut String) -> FieldText<'_> {
        // Binary OSON that did not decode: its hex as a string would pass
        // for the document's value downstream.
        if self.is_undecoded_json() {
            return FieldText::Unavailable;
        }
        // HEXTORAW left as such is bytes; character data in it was
        // already decoded to text where the dictionary allowed.
        let binary = matches!(self, Value::Raw(_) | Value::Bytes(_));
        match (self.canonical_into(out), binary) {
            (Some(Canon::Borrowed(t)), false) => FieldText::Text(t),
            (Some(Canon::Borrowed(t)), true) => FieldText::Binary(t),
            (Some(Canon::Appended(r)), false) => FieldText::TextAppended(r),
            (Some(Canon::Appended(r)), true) => FieldText::BinaryAppended(r),
            (None, _) if matches!(self, Value::Null) => FieldText::Null,
            (None, _) if matches!(self, Value::EmptyBlob) => FieldText::UnavailableBinary,
            (None, _) => FieldText::Unavailable,
        }
    }

    /// [`Value::to_field`], moving text the parser already copied (undone
    /// quotes, decoded UNISTR) into the field instead of copying it again.
    pub fn into_field(self) -> Field {
        match self {
            Value::Text(s) | Value::Interval(s) => Field::Text(s.into_owned()),
            Value::Raw(s) | Value::Bytes(s) if !s.bytes().any(|b| b.is_ascii_uppercase()) => {
                Field::Binary(s.into_owned())
            }
            other => other.to_field(),
        }
    }

    /// The canonical text, or `None` for NULL and for values LogMiner did
    /// not show (LOB placeholders, `Unsupported Type`).
    pub fn canonical(&self) -> Option<Cow<'_, str>> {
        let mut out = String::new();
        match self.canonical_into(&mut out)? {
            Canon::Borrowed(t) => Some(Cow::Borrowed(t)),
            Canon::Appended(_) => Some(Cow::Owned(out)),
        }
    }

    /// [`Value::canonical`], appending text that differs from the value as
    /// written to `out` instead of allocating it.
    fn canonical_into(&self, out: &mut String) -> Option<Canon<'_>> {
        let start = out.len();
        let appended = |out: &mut String| Some(Canon::Appended(start..out.len()));
        match self {
            Value::Null
            | Value::EmptyLob
            | Value::EmptyBlob
            | Value::Unsupported
            | Value::LobNotLogged
            | Value::JsonUnavailable => None,
            Value::JsonBytes(hex) => {
                match json_text(hex) {
                    Some(text) => out.push_str(&text),
                    None => push_lowercase(out, hex),
                }
                appended(out)
            }
            Value::Text(s) | Value::Interval(s) => Some(Canon::Borrowed(s)),
            Value::Date(s) | Value::Timestamp(s) => {
                push_iso_date_time(out, s);
                appended(out)
            }
            Value::TimestampTz(s) => {
                push_iso_timestamp_tz(out, s);
                appended(out)
            }
            Value::Time(s) if s.ends_with('.') => {
                out.push_str(s);
                out.push('0');
                appended(out)
            }
            Value::Time(s) => Some(Canon::Borrowed(s)),
            Value::Raw(s) | Value::Bytes(s) if s.bytes().any(|b| b.is_ascii_uppercase()) => {
                push_lowercase(out, s);
                appended(out)
            }
            Value::Raw(s) | Value::Bytes(s) => Some(Canon::Borrowed(s)),
        }
    }
}

/// Where a value's canonical text is: in the value, or appended to the
/// buffer [`Value::canonical_into`] was given, at this range.
enum Canon<'v> {
    Borrowed(&'v str),
    Appended(Range<usize>),
}

/// What [`Value::field_text`] found: the [`Field`] a value becomes, with
/// its text borrowed from the value or appended to the caller's buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldText<'v> {
    Null,
    Unavailable,
    UnavailableBinary,
    Text(&'v str),
    Binary(&'v str),
    TextAppended(Range<usize>),
    BinaryAppended(Range<usize>),
}

fn push_lowercase(out: &mut String, s: &str) {
    out.extend(s.chars().map(|c| c.to_ascii_lowercase()));
}

/// `2025-03-01 09:00:00[.fff]` → `2025-03-01T09:00:00[.fff]`; the shape was
/// checked when parsing, so byte 10 is the date/time separator. An empty
/// fraction (TIMESTAMP(0) under a `...SS.FF` format prints `00:00:00.`)
/// reads as `.0`. A date alone (DM8's `DATE'2026-01-02'`) is at midnight.
fn push_iso_date_time(out: &mut String, s: &str) {
    if s.len() == 10 {
        out.push_str(s);
        out.push_str("T00:00:00");
        return;
    }
    match (s.get(..10), s.get(11..)) {
        (Some(date), Some(time)) => {
            out.push_str(date);
            out.push('T');
            out.push_str(time);
            if time.ends_with('.') {
                out.push('0');
            }
        }
        _ => out.push_str(s),
    }
}

/// Like [`push_iso_date_time`], as the same instant in UTC written with `Z`:
/// `... 09:00:00.1 +08:00` → `...T01:00:00.1Z`. The fraction's digits are
/// kept as printed. A region name (spools from sessions with a `TZR`
/// format) keeps its space and is not converted: that needs the time zone
/// database LogMiner's session used.
fn push_iso_timestamp_tz(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let end = timestamp_end(b).unwrap_or(b.len());
    let zone = s[end..].trim_start_matches(' ');
    if push_utc_of(out, &s[..end], zone).is_some() {
        return;
    }
    push_iso_date_time(out, &s[..end]);
    if !matches!(zone.as_bytes().first(), Some(b'+' | b'-')) && zone != "Z" {
        out.push(' ');
    }
    out.push_str(zone);
}

/// `date time[.fraction]` at a numeric offset (or `Z`), in UTC, appended
/// to `out`; `None` (and nothing appended) when the zone is not an offset
/// or the time cannot be read.
fn push_utc_of(out: &mut String, local: &str, zone: &str) -> Option<()> {
    let offset_minutes = match zone.as_bytes() {
        b"Z" | b"UTC" | b"GMT" | b"Etc/UTC" | b"Etc/GMT" => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (h, m) = std::str::from_utf8(rest).ok()?.split_once(':')?;
            let minutes = h.parse::<i64>().ok()? * 60 + m.parse::<i64>().ok()?;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    let (date_time, fraction) = (local.get(..19)?, &local[19..]);
    match shifted(date_time.as_bytes(), offset_minutes) {
        Some(utc) => utc.iter().for_each(|&b| out.push(char::from(b))),
        None => {
            let whole = chrono::NaiveDateTime::parse_from_str(
                &date_time.replacen('T', " ", 1),
                "%Y-%m-%d %H:%M:%S",
            )
            .ok()?;
            let utc = whole.checked_sub_signed(chrono::TimeDelta::try_minutes(offset_minutes)?)?;
            out.push_str(&utc.format("%Y-%m-%dT%H:%M:%S").to_string());
        }
    }
    out.push_str(fraction);
    if fraction == "." {
        out.push('0');
    }
    out.push('Z');
    Some(())
}

/// `YYYY-MM-DD HH:MI:SS` moved back by `offset_minutes`, written
/// `YYYY-MM-DDTHH:MI:SS`, for the common case only: a valid date and time
/// (no leap second) landing in years 1 to 9999. Anything else is `None`
/// and goes through chrono, whose parser and formatter cost more than the
/// rest of a wide row's values together.
fn shifted(b: &[u8], offset_minutes: i64) -> Option<[u8; 19]> {
    if !is_date_time(b) {
        return None;
    }
    let num =
        |r: std::ops::Range<usize>| b[r].iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    let (hour, minute, second) = (num(11..13), num(14..16), num(17..19));
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_minutes.checked_mul(60)?;
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return None;
    }
    let mut out = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, width: usize, mut n: i64| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    Some(out)
}

pub(super) fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The JSON text that hex digits spell: binary OSON decoded, or UTF-8
/// JSON (the textual storage of a JSON column) as it is; `None` for OSON
/// cdcctl cannot decode or anything that is not a JSON document.
fn json_text(hex: &str) -> Option<String> {
    let b = hex.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Vec<u8> = b
        .chunks_exact(2)
        .map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?))
        .collect::<Option<_>>()?;
    if super::oson::is_oson(&bytes) {
        return super::oson::decode(&bytes).ok();
    }
    let text = String::from_utf8(bytes).ok()?;
    serde_json::from_str::<serde::de::IgnoredAny>(&text).ok()?;
    Some(text)
}

fn hex_digit(h: u8) -> Option<u8> {
    match h {
        b'0'..=b'9' => Some(h - b'0'),
        b'a'..=b'f' => Some(h - b'a' + 10),
        b'A'..=b'F' => Some(h - b'A' + 10),
        _ => None,
    }
}

#[inline]
fn digits(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_digit)
}

/// `YYYY-MM-DD HH24:MI:SS` exactly (a `T` between date and time, as ISO
/// 8601 writes it, is taken too).
pub(super) fn is_date_time(b: &[u8]) -> bool {
    b.len() == 19
        && digits(&b[0..4])
        && b[4] == b'-'
        && digits(&b[5..7])
        && b[7] == b'-'
        && digits(&b[8..10])
        && (b[10] == b' ' || b[10] == b'T')
        && digits(&b[11..13])
        && b[13] == b':'
        && digits(&b[14..16])
        && b[16] == b':'
        && digits(&b[17..19])
}

fn number(b: &[u8]) -> i64 {
    b.iter()
        .fold(0i64, |n, &d| n * 10 + i64::from(d.wrapping_sub(b'0')))
}

/// Whether a `YYYY-MM-DD` (shape already checked) is a day the calendar has.
fn day_exists(b: &[u8]) -> bool {
    let (year, month, day) = (number(&b[0..4]), number(&b[5..7]), number(&b[8..10]));
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// Whether an `HH:MI:SS` (shape already checked) is a time the clock has.
fn clock_exists(b: &[u8]) -> bool {
    number(&b[0..2]) <= 23 && number(&b[3..5]) <= 59 && number(&b[6..8]) <= 59
}

/// `YYYY-MM-DD` exactly, a day the calendar has: DM8's `DATE'...'`.
pub(super) fn is_calendar_date(b: &[u8]) -> bool {
    b.len() == 10
        && digits(&b[0..4])
        && b[4] == b'-'
        && digits(&b[5..7])
        && b[7] == b'-'
        && digits(&b[8..10])
        && day_exists(b)
}

/// `HH:MI:SS`, optionally `.` and 0–9 fraction digits, a time the clock
/// has: DM8's `TIME'...'`.
pub(super) fn is_time(b: &[u8]) -> bool {
    let shape = b.len() >= 8
        && digits(&b[0..2])
        && b[2] == b':'
        && digits(&b[3..5])
        && b[5] == b':'
        && digits(&b[6..8]);
    let fraction = match b.get(8..) {
        Some([]) => true,
        Some([b'.', rest @ ..]) => rest.len() <= 9 && digits(rest),
        _ => false,
    };
    shape && fraction && clock_exists(b)
}

/// For text [`is_timestamp`] or [`is_timestamp_tz`] took: whether its day
/// and time exist and a numeric offset is one a zone can have (at most 14
/// hours, 59 minutes). Those checks only test the shape; DM8's literals
/// are checked in full so a corrupt value is an error, not an event.
pub(super) fn timestamp_exists(b: &[u8]) -> bool {
    let Some(end) = timestamp_end(b) else {
        return false;
    };
    let zone = &b[end..];
    let zone = zone.strip_prefix(b" ").unwrap_or(zone);
    let offset_ok = match zone {
        [b'+' | b'-', rest @ ..] => match rest.iter().position(|&c| c == b':') {
            Some(colon) => number(&rest[..colon]) <= 14 && number(&rest[colon + 1..]) <= 59,
            None => false,
        },
        _ => true,
    };
    day_exists(&b[..10]) && clock_exists(&b[11..19]) && offset_ok
}

/// Where the date, time and fraction (`.` and 0–9 digits) of `b` end, when
/// it starts with an ISO-ordered date and time.
fn timestamp_end(b: &[u8]) -> Option<usize> {
    if !b.get(..19).is_some_and(is_date_time) {
        return None;
    }
    if b.get(19) != Some(&b'.') {
        return Some(19);
    }
    let frac = b[20..].iter().take_while(|c| c.is_ascii_digit()).count();
    (frac <= 9).then_some(20 + frac)
}

/// `YYYY-MM-DD HH24:MI:SS`, optionally `.` and 0–9 fraction digits.
pub(super) fn is_timestamp(b: &[u8]) -> bool {
    timestamp_end(b) == Some(b.len())
}

/// A timestamp and a zone, with or without a space between: an offset
/// (`+08:00`, `-05:30`), `Z`, or a region (`Europe/Paris`) optionally
/// followed by its abbreviation (`US/Pacific PDT`, NLS `TZR TZD`).
pub(super) fn is_timestamp_tz(b: &[u8]) -> bool {
    let Some(end) = timestamp_end(b) else {
        return false;
    };
    let zone = &b[end..];
    let zone = zone.strip_prefix(b" ").unwrap_or(zone);
    match zone {
        [b'+' | b'-', h1, h2, b':', m1, m2] => digits(&[*h1, *h2, *m1, *m2]),
        [b'+' | b'-', h, b':', m1, m2] => digits(&[*h, *m1, *m2]),
        [b'Z'] => true,
        [first, ..] if first.is_ascii_alphabetic() => {
            let mut parts = zone.split(|&c| c == b' ');
            let region_ok = parts.next().is_some_and(|r| {
                r.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'+'))
            });
            let abbr_ok = match parts.next() {
                None => true,
                Some(a) => !a.is_empty() && a.iter().all(u8::is_ascii_alphabetic),
            };
            region_ok && abbr_ok && parts.next().is_none()
        }
        _ => false,
    }
}

/// Decodes UNISTR's argument: `\XXXX` is one UTF-16 code unit (a surrogate
/// pair spans two escapes), `\\` is a backslash, anything else is itself.
pub(super) fn decode_unistr(s: Cow<'_, str>) -> Result<Cow<'_, str>, String> {
    if !s.contains('\\') {
        return Ok(s);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let Some(off) = memchr::memchr(b'\\', &bytes[i..]) else {
            out.push_str(&s[i..]);
            break;
        };
        out.push_str(&s[i..i + off]);
        i += off;
        if bytes.get(i + 1) == Some(&b'\\') {
            out.push('\\');
            i += 2;
            continue;
        }
        let unit = code_unit(bytes, i)?;
        i += 5;
        if (0xD800..0xDC00).contains(&unit) {
            let low = if bytes.get(i) == Some(&b'\\') {
                code_unit(bytes, i).ok()
            } else {
                None
            };
            match low {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    let c = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                    out.push(char::from_u32(c).ok_or_else(|| bad_unit(unit))?);
                    i += 5;
                }
                _ => {
                    return Err(format!(
                        "UNISTR has a high surrogate \\{unit:04X} without its low half"
                    ))
                }
            }
        } else {
            out.push(char::from_u32(u32::from(unit)).ok_or_else(|| bad_unit(unit))?);
        }
    }
    Ok(Cow::Owned(out))
}

fn bad_unit(unit: u16) -> String {
    format!("UNISTR has a lone surrogate \\{unit:04X}")
}

/// The four hex digits after the backslash at `i`.
fn code_unit(bytes: &[u8], i: usize) -> Result<u16, String> {
    let hex = bytes
        .get(i + 1..i + 5)
        .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
        .ok_or_else(|| "UNISTR has a `\\` not followed by four hex digits".to_string())?;
    let mut unit = 0u16;
    for &h in hex {
        unit = unit << 4 | u16::from(hex_digit(h).unwrap_or(0));
    }
    Ok(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What chrono makes of the same shift, or `None` where it refuses.
    fn by_chrono(local: &str, offset_minutes: i64) -> Option<String> {
        let whole = chrono::NaiveDateTime::parse_from_str(
            &local.replacen('T', " ", 1),
            "%Y-%m-%d %H:%M:%S",
        )
        .ok()?;
        let utc = whole.checked_sub_signed(chrono::TimeDelta::try_minutes(offset_minutes)?)?;
        Some(utc.format("%Y-%m-%dT%H:%M:%S").to_string())
    }

    #[test]
    fn the_direct_utc_shift_agrees_with_chrono_wherever_it_answers() {
        let locals = [
            "2025-03-01 09:00:00",
            "2025-03-01T00:30:00",
            "2024-02-29 23:59:59",
            "2023-02-29 10:00:00",
            "2100-02-28 22:00:00",
            "2000-02-29 01:00:00",
            "1999-12-31 23:00:00",
            "2000-01-01 00:00:00",
            "1970-01-01 00:00:00",
            "1969-12-31 23:59:59",
            "0001-01-01 00:00:00",
            "9999-12-31 23:59:59",
            "2025-13-01 00:00:00",
            "2025-04-31 00:00:00",
            "2025-00-10 00:00:00",
            "2025-01-00 00:00:00",
            "2025-01-01 24:00:00",
            "2025-01-01 23:60:00",
            "2025-01-01 23:59:60",
            "1600-03-01 12:00:00",
        ];
        let mut answered = 0;
        for local in locals {
            for offset in [
                0,
                1,
                -1,
                60,
                -60,
                330,
                -570,
                14 * 60,
                -12 * 60,
                99 * 60 + 59,
            ] {
                if let Some(fast) = shifted(local.as_bytes(), offset) {
                    answered += 1;
                    let fast = String::from_utf8(fast.to_vec()).unwrap();
                    assert_eq!(Some(fast), by_chrono(local, offset), "{local} {offset}");
                }
            }
        }
        assert!(
            answered > 100,
            "the direct path answered only {answered} cases"
        );
        // Whatever it declines still converts, through chrono.
        assert_eq!(
            {
                let mut out = String::new();
                push_utc_of(&mut out, "2025-01-01 23:59:60", "+01:00").map(|()| out)
            },
            by_chrono("2025-01-01 23:59:60", 60).map(|t| t + "Z")
        );
    }
}
