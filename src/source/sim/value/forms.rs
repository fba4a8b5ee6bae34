//! Text forms shared by Oracle's and DM8's LogMiner: quoted and `UNISTR`
//! literals, date and timestamp text, time zone offsets, hex, and Oracle's
//! decimal text.

use chrono::{Datelike, NaiveDateTime, Timelike};

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

pub(super) fn quote(text: &str) -> String {
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

pub(super) fn fmt_date(t: &NaiveDateTime) -> String {
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

pub(super) fn fmt_frac(t: &NaiveDateTime) -> String {
    fmt_digits(t, 9)
}

/// Date, time and the first `digits` of the nine fraction digits (the
/// value was generated at the column's precision, so nothing is cut).
pub(super) fn fmt_digits(t: &NaiveDateTime, digits: usize) -> String {
    let nine = format!("{:09}", t.nanosecond() % 1_000_000_000);
    format!("{}.{}", fmt_date(t), &nine[..digits.min(9)])
}

/// The envelope's text for a timestamp printed with `digits` fraction
/// digits: the engine keeps the digits as printed and reads an empty
/// fraction as `.0`.
pub(super) fn iso_digits(t: &NaiveDateTime, digits: usize) -> String {
    let mut s = fmt_digits(t, digits).replacen(' ', "T", 1);
    if digits == 0 {
        s.push('0');
    }
    s
}

/// Character data LogMiner shows as a quoted literal; other values (here:
/// holding a control character other than tab, line feed or carriage
/// return) are printed as `HEXTORAW` of their stored bytes.
pub fn displayable(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

pub(super) fn fmt_offset(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let m = minutes.unsigned_abs();
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

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
