//! OSON scalar nodes as JSON text.
//!
//! JSON's own scalars map directly; Oracle NUMBER becomes a JSON number
//! with its exact decimal digits, BINARY_DOUBLE/FLOAT the shortest number
//! that reads back as the same value. Types JSON has no literal for become
//! strings, as Oracle's `JSON_SERIALIZE` gives them, so the text matches
//! what a query of the column returns: DATE and TIMESTAMP as ISO 8601
//! (`2024-01-02T03:04:05`, a fraction only when non-zero), TIMESTAMP WITH
//! TIME ZONE as the UTC instant with `Z` (Oracle stores it in UTC),
//! intervals as ISO 8601 durations (`P1DT2H3M4.5S`, `P1Y2M`), RAW and
//! binary ids as lower-case hex (cdcctl's form for bytes), and NaN and the
//! infinities of the binary floats as `"NaN"`, `"Infinity"`, `"-Infinity"`.
//! Vectors (23ai, the extended type 0x7B) are not decoded.

use std::fmt::Write as _;

use super::{OsonError, Reader};

/// A string as a quoted JSON string.
pub(super) fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Appends the scalar node of type `ty` whose bytes `r` is at.
pub(super) fn write(r: &mut Reader<'_>, ty: u8, out: &mut String) -> Result<(), OsonError> {
    let at = r.pos;
    match ty {
        0x30 => out.push_str("null"),
        0x31 => out.push_str("true"),
        0x32 => out.push_str("false"),
        0x33 | 0x37 | 0x38 => {
            let len = r.uint(width(ty, 0x33))?;
            string(r, len, out)?;
        }
        0x34 => {
            let len = r.u8()?;
            number(r.take(len.into())?, at, out)?;
        }
        0x36 => double(r.take(8)?, out),
        0x7f => float(r.take(4)?, out),
        0x3c | 0x7d => date_time(r.take(7)?, at, out)?,
        0x39 => date_time(r.take(11)?, at, out)?,
        0x7c => {
            date_time(&r.take(13)?[..11], at, out)?;
            out.insert(out.len() - 1, 'Z');
        }
        0x3e => interval_ds(r.take(11)?, at, out)?,
        0x3d => interval_ym(r.take(5)?, at, out)?,
        0x7e => {
            let len = r.u8()?;
            hex(r.take(len.into())?, out);
        }
        0x3a | 0x3b => {
            let len = r.uint(if ty == 0x3a { 2 } else { 4 })?;
            hex(r.take(len as usize)?, out);
        }
        // Length in the type byte: 0x20/0x60 with length - 1, 0x40/0x50
        // with the length (integers), 0x00-0x1F a string that long.
        t if matches!(t & 0xf0, 0x20 | 0x60) => {
            number(r.take(usize::from(t & 0x0f) + 1)?, at, out)?
        }
        t if matches!(t & 0xf0, 0x40 | 0x50) => number(r.take(usize::from(t & 0x0f))?, at, out)?,
        t if t & 0xe0 == 0 => string(r, t.into(), out)?,
        _ => return Err(OsonError::NodeType { ty, at: at - 1 }),
    }
    Ok(())
}

/// 0x33 (and 0x37, 0x38): a one-, two- or four-byte length.
fn width(ty: u8, one: u8) -> usize {
    match ty - one {
        0 => 1,
        4 => 2,
        _ => 4,
    }
}

fn string(r: &mut Reader<'_>, len: u32, out: &mut String) -> Result<(), OsonError> {
    let at = r.pos;
    let s = std::str::from_utf8(r.take(len as usize)?).map_err(|_| OsonError::Invalid {
        what: "string (not UTF-8)",
        at,
    })?;
    out.push_str(&quoted(s));
    Ok(())
}

fn hex(b: &[u8], out: &mut String) {
    out.push('"');
    for x in b {
        let _ = write!(out, "{x:02x}");
    }
    out.push('"');
}

/// Oracle NUMBER: an exponent byte, then base-100 digits (+1 when
/// positive; 101 - d and a closing 102 when negative). Its exact digits,
/// plain unless that would take more than 20 padding zeros.
pub(super) fn number(b: &[u8], at: usize, out: &mut String) -> Result<(), OsonError> {
    let bad = OsonError::Invalid { what: "NUMBER", at };
    let (&head, rest) = b.split_first().ok_or(bad.clone())?;
    if head == 0x80 && rest.is_empty() {
        out.push('0');
        return Ok(());
    }
    let positive = head & 0x80 != 0;
    let (exp, digits) = if positive {
        (i32::from(head & 0x7f) - 65, rest)
    } else {
        (
            i32::from(!head & 0x7f) - 65,
            rest.strip_suffix(&[102]).unwrap_or(rest),
        )
    };
    if digits.is_empty() {
        return Err(bad); // the infinities: no JSON number for them
    }
    let mut text = String::with_capacity(digits.len() * 2);
    for &d in digits {
        let v = if positive {
            d.wrapping_sub(1)
        } else {
            101u8.wrapping_sub(d)
        };
        if v > 99 {
            return Err(bad);
        }
        let _ = write!(text, "{v:02}");
    }
    // `point`: how many of `text`'s digits come before the decimal point.
    let mut point = (exp + 1) * 2;
    let lead = text.len() - text.trim_start_matches('0').len();
    text.drain(..lead);
    point -= lead as i32;
    text.truncate(text.trim_end_matches('0').len());
    if text.is_empty() {
        out.push('0');
        return Ok(());
    }
    if !positive {
        out.push('-');
    }
    place_point(&text, point, out);
    Ok(())
}

/// Digits with the decimal point after `point` of them.
fn place_point(digits: &str, point: i32, out: &mut String) {
    let len = digits.len() as i32;
    if point > len + 20 || point < -20 {
        out.push_str(&digits[..1]);
        if len > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "E{:+}", point - 1);
    } else if point >= len {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (point - len) as usize));
    } else if point > 0 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    }
}

/// BINARY_DOUBLE and BINARY_FLOAT bytes sort as their values: the sign bit
/// is set for a positive value, every bit inverted for a negative one.
fn ieee_bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut x = [0u8; N];
    x.copy_from_slice(&b[..N]);
    if x[0] & 0x80 != 0 {
        x[0] &= 0x7f;
    } else {
        x.iter_mut().for_each(|v| *v = !*v);
    }
    x
}

fn double(b: &[u8], out: &mut String) {
    let v = f64::from_be_bytes(ieee_bytes::<8>(b));
    match serde_json::Number::from_f64(v) {
        Some(n) => out.push_str(&n.to_string()),
        None => non_finite(v.is_nan(), v > 0.0, out),
    }
}

fn float(b: &[u8], out: &mut String) {
    let v = f32::from_be_bytes(ieee_bytes::<4>(b));
    if v.is_finite() {
        // Serialized as an f32, the shortest text that reads back as it.
        out.push_str(&serde_json::to_string(&v).unwrap_or_else(|_| v.to_string()));
    } else {
        non_finite(v.is_nan(), v > 0.0, out);
    }
}

fn non_finite(nan: bool, positive: bool, out: &mut String) {
    out.push_str(match (nan, positive) {
        (true, _) => "\"NaN\"",
        (false, true) => "\"Infinity\"",
        (false, false) => "\"-Infinity\"",
    });
}

/// DATE (7 bytes: century and year + 100, month, day, hour, minute and
/// second + 1) or TIMESTAMP (and nanoseconds, 4 bytes) as a quoted ISO
/// 8601 string. Years before 1 AD are refused.
fn date_time(b: &[u8], at: usize, out: &mut String) -> Result<(), OsonError> {
    let bad = || OsonError::Invalid { what: "date", at };
    let year = (i32::from(b[0]) - 100) * 100 + i32::from(b[1]) - 100;
    let (month, day) = (b[2], b[3]);
    let (h, m, s) = (
        b[4].wrapping_sub(1),
        b[5].wrapping_sub(1),
        b[6].wrapping_sub(1),
    );
    if !(1..=9999).contains(&year)
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || h > 23
        || m > 59
        || s > 59
    {
        return Err(bad());
    }
    let _ = write!(out, "\"{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}");
    if b.len() >= 11 {
        let nanos = u32::from_be_bytes([b[7], b[8], b[9], b[10]]);
        if nanos > 999_999_999 {
            return Err(bad());
        }
        fraction(nanos, out);
    }
    out.push('"');
    Ok(())
}

/// `.` and the nanoseconds without trailing zeros; nothing when zero.
fn fraction(nanos: u32, out: &mut String) {
    if nanos != 0 {
        let f = format!("{nanos:09}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

/// INTERVAL DAY TO SECOND: days (4 bytes) and nanoseconds (4 bytes) offset
/// by 2^31, hours, minutes and seconds by 60.
fn interval_ds(b: &[u8], at: usize, out: &mut String) -> Result<(), OsonError> {
    let days = i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])) - (1 << 31);
    let (h, m, s) = (
        i64::from(b[4]) - 60,
        i64::from(b[5]) - 60,
        i64::from(b[6]) - 60,
    );
    let nanos = i64::from(u32::from_be_bytes([b[7], b[8], b[9], b[10]])) - (1 << 31);
    let parts = [days, h, m, s, nanos];
    let negative = parts.iter().any(|&p| p < 0);
    if (negative && parts.iter().any(|&p| p > 0))
        || h.abs() > 23
        || m.abs() > 59
        || s.abs() > 59
        || nanos.abs() > 999_999_999
    {
        return Err(OsonError::Invalid {
            what: "INTERVAL DAY TO SECOND",
            at,
        });
    }
    out.push_str(if negative { "\"-P" } else { "\"P" });
    let _ = write!(out, "{}DT{}H{}M{}", days.abs(), h.abs(), m.abs(), s.abs());
    fraction(nanos.unsigned_abs() as u32, out);
    out.push_str("S\"");
    Ok(())
}

/// INTERVAL YEAR TO MONTH: years (4 bytes) offset by 2^31, months by 60.
fn interval_ym(b: &[u8], at: usize, out: &mut String) -> Result<(), OsonError> {
    let years = i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])) - (1 << 31);
    let months = i64::from(b[4]) - 60;
    if months.abs() > 11 || (years < 0 && months > 0) || (years > 0 && months < 0) {
        return Err(OsonError::Invalid {
            what: "INTERVAL YEAR TO MONTH",
            at,
        });
    }
    let sign = if years < 0 || months < 0 { "-" } else { "" };
    let _ = write!(out, "\"{sign}P{}Y{}M\"", years.abs(), months.abs());
    Ok(())
}
