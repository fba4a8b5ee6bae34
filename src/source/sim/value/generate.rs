//! Generated column values: per column type, values that exercise a
//! capture's parser (quotes, keywords, newlines, wide characters, long
//! text), drawn from the scenario's seeded random stream.

use chrono::{NaiveDateTime, Timelike};

use super::super::rng::Rng;
use super::data::Value;
use super::forms::number_text;
use super::types::{ColType, INLINE_STRING_BYTES};

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
            ColType::Number { precision, scale } => number(rng, precision, scale),
            ColType::Varchar2(n) | ColType::Char(n) => text(rng, ty, n, name, long_text),
            ColType::NVarchar2(n) => nvarchar(rng, n),
            ColType::Date => date(rng, now),
            ColType::Timestamp(p) | ColType::TimestampTz(p) => timestamp(rng, ty, p, now),
            ColType::Raw(n) => raw(rng, n),
            ColType::Clob => clob(rng),
            ColType::Blob => blob(rng),
            ColType::XmlType => xml(rng),
            ColType::Json => json(rng),
            ColType::Int => int(rng),
            ColType::BigInt => big_int(rng),
            ColType::Double => double(rng),
            ColType::DateOnly => date_only(rng, now),
            ColType::Time => time(rng),
            ColType::IntervalYm => interval_ym(rng),
            ColType::IntervalDs => interval_ds(rng),
        }
    }
}

/// A NUMBER within its precision and scale; an unconstrained one sometimes
/// negative or fractional.
fn number(rng: &mut Rng, precision: &Option<u32>, scale: &Option<i32>) -> Value {
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

/// VARCHAR2 or CHAR text fitted to `n` bytes: a status word for a
/// STATUS column, now and then (with `long_text`) thousands of bytes.
fn text(rng: &mut Rng, ty: &ColType, n: &u32, name: &str, long_text: bool) -> Value {
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

/// NVARCHAR2 text fitted to `n` characters, mostly wide.
fn nvarchar(rng: &mut Rng, n: &u32) -> Value {
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

/// A DATE up to 40 days before `now` or two days after it.
fn date(rng: &mut Rng, now: NaiveDateTime) -> Value {
    let back = rng.below(40 * 86_400) as i64;
    let ahead = rng.below(2 * 86_400) as i64;
    Value::Date(now - chrono::Duration::seconds(back) + chrono::Duration::seconds(ahead))
}

/// A TIMESTAMP(p) in the hour before `now`, with a zone offset for
/// WITH TIME ZONE.
fn timestamp(rng: &mut Rng, ty: &ColType, p: &u8, now: NaiveDateTime) -> Value {
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

/// Up to 32 random bytes of a RAW(n).
fn raw(rng: &mut Rng, n: &u32) -> Value {
    let len = rng.range(1, u64::from(*n).min(32)) as usize;
    Value::Raw((0..len).map(|_| rng.below(256) as u8).collect())
}

/// CLOB text of 10 to 9000 bytes.
fn clob(rng: &mut Rng) -> Value {
    let len = rng.range(10, 9000) as usize;
    let mut s = String::new();
    while s.len() < len {
        s.push_str(rng.pick(PLAIN).copied().unwrap_or("x"));
        s.push_str(rng.pick(TRICKY).copied().unwrap_or(" "));
    }
    Value::Clob(s)
}

/// BLOB content of 1 to 3000 bytes.
fn blob(rng: &mut Rng) -> Value {
    let len = rng.range(1, 3000) as usize;
    Value::Blob((0..len).map(|_| rng.below(256) as u8).collect())
}

/// An XMLType document of up to 60 elements.
fn xml(rng: &mut Rng) -> Value {
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

/// A native JSON document: an id, a status and tags.
fn json(rng: &mut Rng) -> Value {
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

/// A DM8 INT.
fn int(rng: &mut Rng) -> Value {
    let n = i64::from(rng.below(2_000_000_000) as u32) - 1_000_000_000;
    Value::Number(n.to_string())
}

/// A DM8 BIGINT, now and then its largest value.
fn big_int(rng: &mut Rng) -> Value {
    if rng.chance(0.05) {
        return Value::Number(i64::MAX.to_string());
    }
    let n = rng.below(1 << 62) as i64 - (1 << 61);
    Value::Number(n.to_string())
}

/// A DM8 DOUBLE in the form DM8 prints it.
fn double(rng: &mut Rng) -> Value {
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

/// A DM8 DATE up to 400 days before `now`.
fn date_only(rng: &mut Rng, now: NaiveDateTime) -> Value {
    let back = rng.below(400) as i64;
    let day = (now - chrono::Duration::days(back)).date();
    Value::Date(day.and_hms_opt(0, 0, 0).unwrap_or(now))
}

/// A DM8 TIME.
fn time(rng: &mut Rng) -> Value {
    let secs = rng.below(86_400) as u32;
    Value::Time(chrono::NaiveTime::from_num_seconds_from_midnight_opt(secs, 0).unwrap_or_default())
}

/// An INTERVAL YEAR TO MONTH.
fn interval_ym(rng: &mut Rng) -> Value {
    let sign = if rng.chance(0.2) { '-' } else { '+' };
    Value::IntervalYm(format!("{sign}{:02}-{:02}", rng.below(100), rng.below(12)))
}

/// An INTERVAL DAY TO SECOND.
fn interval_ds(rng: &mut Rng) -> Value {
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
