//! Oracle datetime values read by the format mask that comes with them:
//! `TO_DATE('20141110 21:18:04', 'yyyymmdd hh24:mi:ss')`, as spools made
//! under another session's NLS formats carry them.
//!
//! The reader turns value and mask into the ISO-ordered text the parser
//! takes from cdcctl's own sessions (`YYYY-MM-DD HH24:MI:SS[.FF][ zone]`),
//! so both forms go through one conversion. It is reached only when a value
//! does not come in the session's format: the live path never takes it.
//!
//! Elements read, in any case: `YYYY` `SYYYY` `RRRR` `YY` `RR`, `MM` `MON`
//! `MONTH` (English names), `DD`, `HH` `HH12` `HH24` with `AM` `PM` `A.M.`
//! `P.M.`, `MI`, `SS`, `X`, `FF` `FF1`–`FF9`, `TZH` `TZM` `TZR` `TZD`,
//! `"quoted"` text and the separators `- / , . ; :` and space; `FX` and
//! `FM` toggle exact matching and fill mode as in Oracle. Without `FX` the
//! value is matched as Oracle's string-to-date rules allow: fewer digits,
//! any punctuation for a separator, omitted separators, omitted trailing
//! time fields, `MON` for `MM` and names in either length.
//!
//! What the value alone cannot tell is refused, never guessed: a two-digit
//! year (`YY`, `RR`, or `RRRR` given two digits) took its century from the
//! day the converting session ran, which the row does not carry, and the
//! value it was printed from had four digits; a 12-hour clock without
//! AM/PM; a mask without a year, a month or (for `TO_TIMESTAMP_TZ`) a
//! zone, which Oracle fills from the session's clock and time zone.

use super::datefmt::{ambiguous, check_mask, invalid, tokenize, Field, Token};
pub(super) use super::datefmt::{MaskError, Target};
use super::value::days_in_month;

/// The zone a `TO_TIMESTAMP_TZ` value was read with.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Zone {
    Offset {
        negative: bool,
        hours: u32,
        minutes: u32,
    },
    Region(String),
}

/// What the value gave, field by field.
#[derive(Debug, Default)]
struct Parts {
    year: Option<u32>,
    month: Option<u32>,
    day: Option<u32>,
    hour12: Option<u32>,
    hour24: Option<u32>,
    pm: Option<bool>,
    minute: Option<u32>,
    second: Option<u32>,
    fraction: Option<String>,
    zone: Option<Zone>,
}

/// `value` read by `mask` into the ISO-ordered text of `target`'s session
/// format: `YYYY-MM-DD HH24:MI:SS`, then `.` and the fraction's digits as
/// written for timestamps with `FF`, then a space and `+HH:MM` or the region
/// (and its abbreviation) for `TO_TIMESTAMP_TZ`.
pub(super) fn read(value: &str, mask: &str, target: Target) -> Result<String, MaskError> {
    let tokens = tokenize(mask)?;
    check_mask(&tokens, target)?;
    let mut reader = Reader {
        v: value.as_bytes(),
        src: value,
        pos: 0,
        exact: false,
        fill: false,
        parts: Parts::default(),
    };
    reader.read_all(&tokens)?;
    assemble(reader.parts)
}

struct Reader<'v> {
    v: &'v [u8],
    src: &'v str,
    pos: usize,
    exact: bool,
    fill: bool,
    parts: Parts,
}

impl<'v> Reader<'v> {
    fn at_end(&self) -> bool {
        self.pos >= self.v.len()
    }

    fn peek(&self) -> Option<u8> {
        self.v.get(self.pos).copied()
    }

    /// What is at the cursor, for messages.
    fn found(&self) -> String {
        match self.src.get(self.pos..) {
            Some(rest) if !rest.is_empty() => {
                format!("`{}`", rest.chars().take(12).collect::<String>())
            }
            _ => "the end of the value".to_string(),
        }
    }

    fn read_all(&mut self, tokens: &[Token<'_>]) -> Result<(), MaskError> {
        let mut i = 0;
        while let Some(&token) = tokens.get(i) {
            match token {
                Token::Exact => self.exact = !self.exact,
                Token::Fill => self.fill = !self.fill,
                Token::Sep(_) => {
                    let run = tokens[i..]
                        .iter()
                        .take_while(|t| matches!(t, Token::Sep(_)))
                        .count();
                    let next = tokens[i + run..].iter().find_map(|t| t.elem());
                    self.separators(&tokens[i..i + run], next.map(|(f, _)| f))?;
                    i += run;
                    continue;
                }
                Token::Literal(text) => self.literal(text)?,
                Token::Elem(field, name) => {
                    let next = tokens[i + 1..]
                        .iter()
                        .find(|t| !matches!(t, Token::Exact | Token::Fill));
                    self.element(field, name, next.copied())?;
                }
            }
            i += 1;
        }
        if !self.exact {
            while self.peek() == Some(b' ') {
                self.pos += 1;
            }
        }
        if !self.at_end() {
            return invalid(format!(
                "the value goes on after the mask ends: {}",
                self.found()
            ));
        }
        Ok(())
    }

    /// A run of the mask's separators. Under `FX` the value has the same
    /// characters; otherwise any punctuation stands for them, blanks are
    /// free and the punctuation may be left out.
    fn separators(&mut self, run: &[Token<'_>], next: Option<Field>) -> Result<(), MaskError> {
        let expected: String = run
            .iter()
            .filter_map(|t| match t {
                Token::Sep(c) => Some(char::from(*c)),
                _ => None,
            })
            .collect();
        if self.at_end() {
            return Ok(());
        }
        if self.exact {
            if self
                .src
                .get(self.pos..)
                .is_some_and(|r| r.starts_with(&expected))
            {
                self.pos += expected.len();
                return Ok(());
            }
            return invalid(format!(
                "expected `{expected}` (the mask is FX), found {}",
                self.found()
            ));
        }
        let allowed = expected.bytes().filter(|&c| c != b' ').count().max(1);
        let signed = matches!(next, Some(Field::TzHour | Field::TzRegion));
        let mut punctuation = 0;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || !c.is_ascii() || c == b'"' {
                break;
            }
            if signed && matches!(c, b'+' | b'-') {
                break;
            }
            if c != b' ' {
                // More punctuation than the mask has is left for the next
                // element, which then names what it found.
                if punctuation == allowed {
                    break;
                }
                punctuation += 1;
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn literal(&mut self, text: &str) -> Result<(), MaskError> {
        if self.at_end() {
            return Ok(());
        }
        let here = self.v.get(self.pos..self.pos + text.len());
        if here.is_some_and(|h| h.eq_ignore_ascii_case(text.as_bytes())) {
            self.pos += text.len();
            return Ok(());
        }
        invalid(format!(
            "expected the mask's text \"{text}\", found {}",
            self.found()
        ))
    }

    /// One element; a time element the value left off at its end stays
    /// zero, anything else left off is an error.
    fn element(
        &mut self,
        field: Field,
        name: &str,
        next: Option<Token<'_>>,
    ) -> Result<(), MaskError> {
        if self.at_end() {
            if let Field::Fraction(_) = field {
                // TIMESTAMP(0) under `SS.FF` prints `00:00:00.`.
                if self.after_radix() {
                    self.parts.fraction = Some(String::new());
                }
            }
            if field.is_time() {
                return Ok(());
            }
            return invalid(format!("the value ends where the mask has `{name}`"));
        }
        match field {
            Field::Year | Field::SignedYear | Field::RoundYear | Field::ShortYear => {
                let next_numeric = matches!(next, Some(Token::Elem(f, _)) if f.is_numeric());
                self.year(field, name, next_numeric)
            }
            Field::MonthNumber | Field::MonthAbbr | Field::MonthName => {
                self.month(field, name, matches!(next, Some(Token::Literal(_))))
            }
            Field::Day => {
                self.parts.day = Some(self.number(name, 2, 1, 31)?);
                Ok(())
            }
            Field::Hour12 => {
                self.parts.hour12 = Some(self.number(name, 2, 1, 12)?);
                Ok(())
            }
            Field::Hour24 => {
                self.parts.hour24 = Some(self.number(name, 2, 0, 23)?);
                Ok(())
            }
            Field::Minute => {
                self.parts.minute = Some(self.number(name, 2, 0, 59)?);
                Ok(())
            }
            Field::Second => {
                self.parts.second = Some(self.number(name, 2, 0, 59)?);
                Ok(())
            }
            Field::Fraction(digits) => self.fraction(name, digits),
            Field::Meridian { dots } => self.meridian(name, dots),
            Field::Radix => self.radix(name),
            Field::TzHour => self.tz_hour(name),
            Field::TzMinute => self.tz_minute(name),
            Field::TzRegion => self.tz_region(name),
            Field::TzAbbr => self.tz_abbr(name),
        }
    }

    /// The digits at the cursor, at most `width` of them (exactly `width`
    /// under `FX` without `FM`).
    fn digits(&mut self, name: &str, width: usize) -> Result<&'v str, MaskError> {
        let start = self.pos;
        let run = self.v[start..]
            .iter()
            .take(width)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if run == 0 {
            return invalid(format!(
                "expected digits for `{name}`, found {}",
                self.found()
            ));
        }
        if self.exact && !self.fill && run != width {
            return invalid(format!(
                "`{name}` takes {width} digits under FX, found {}",
                self.found()
            ));
        }
        self.pos += run;
        Ok(&self.src[start..start + run])
    }

    fn number(&mut self, name: &str, width: usize, min: u32, max: u32) -> Result<u32, MaskError> {
        let text = self.digits(name, width)?;
        let n = text.parse::<u32>().unwrap_or(u32::MAX);
        if !(min..=max).contains(&n) {
            return invalid(format!("`{name}` is {text}, outside {min} to {max}"));
        }
        Ok(n)
    }

    fn year(&mut self, field: Field, name: &str, next_numeric: bool) -> Result<(), MaskError> {
        if field == Field::SignedYear {
            match self.peek() {
                Some(b'-') => return invalid(format!("`{name}` is before year 1 (BC)")),
                Some(b'+' | b' ') => self.pos += 1,
                _ => {}
            }
        }
        let run = self.v[self.pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        // Oracle's string-to-date rules let four digits stand where `YY`
        // or `RR` is, when nothing else is written against them.
        let four_for_two = field == Field::ShortYear && !self.exact && run == 4 && !next_numeric;
        let width = if field == Field::ShortYear && !four_for_two {
            2
        } else {
            4
        };
        let start = self.pos;
        let text = self.digits(name, width)?;
        if (field == Field::ShortYear && !four_for_two)
            || (field == Field::RoundYear && text.len() <= 2)
        {
            return ambiguous(format!(
                "`{name}` gives the year as `{text}`: its century came from the day the \
                 converting session ran, which the row does not carry (the value had four \
                 digits), so the year is ambiguous"
            ));
        }
        let year = text.parse::<u32>().unwrap_or(0);
        if year == 0 {
            self.pos = start;
            return invalid(format!("`{name}` is {text}: there is no year 0"));
        }
        self.parts.year = Some(year);
        Ok(())
    }

    /// A month by number, or by its English name; quoted text after it in
    /// the mask may go on in letters (`"Jan"T`), so the name ends there.
    fn month(&mut self, field: Field, name: &str, next_literal: bool) -> Result<(), MaskError> {
        let spelled = self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || !c.is_ascii());
        if field == Field::MonthNumber && (self.exact || !spelled) {
            self.parts.month = Some(self.number(name, 2, 1, 12)?);
            return Ok(());
        }
        let start = self.pos;
        let run = self.v[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        let word = &self.v[start..start + run];
        let is = |name: &str| {
            if next_literal {
                word.get(..name.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(name.as_bytes()))
            } else {
                word.eq_ignore_ascii_case(name.as_bytes())
            }
        };
        let full = MONTHS.iter().position(|m| is(m));
        let abbr = MONTHS.iter().position(|m| is(&m[..3]));
        let len = match full {
            Some(m) if field != Field::MonthAbbr || !self.exact => MONTHS[m].len(),
            _ => 3,
        };
        let month = match (field, full, abbr) {
            (Field::MonthAbbr, _, Some(m)) | (Field::MonthName, Some(m), _) => m,
            (_, Some(m), _) | (_, _, Some(m)) if !self.exact => m,
            _ => {
                let kind = if field == Field::MonthName {
                    "full"
                } else {
                    "abbreviated"
                };
                return invalid(format!(
                    "expected an {kind} English month name for `{name}`, found {} (names \
                     in another NLS_DATE_LANGUAGE are not read)",
                    self.found()
                ));
            }
        };
        self.pos += len;
        if field == Field::MonthName && !self.fill {
            // MONTH pads names to the longest, SEPTEMBER.
            while self.peek() == Some(b' ') && self.pos - start < 9 {
                self.pos += 1;
            }
        }
        self.parts.month = Some(month as u32 + 1);
        Ok(())
    }

    /// Whether the last thing read before the cursor (blanks aside) is a
    /// radix: `FF` printed no digits there.
    fn after_radix(&self) -> bool {
        let before = self.v.get(..self.pos).unwrap_or_default();
        matches!(before.iter().rev().find(|&&c| c != b' '), Some(b'.' | b','))
    }

    fn fraction(&mut self, name: &str, digits: Option<usize>) -> Result<(), MaskError> {
        let max = digits.unwrap_or(9);
        let start = self.pos;
        let run = self.v[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after_radix = self.after_radix();
        if run > max {
            return invalid(format!(
                "`{name}` holds at most {max} digits, found {}",
                self.found()
            ));
        }
        if run == 0 && !after_radix {
            return invalid(format!(
                "expected digits for `{name}`, found {}",
                self.found()
            ));
        }
        if self.exact && digits.is_some_and(|n| run != n && run != 0) {
            return invalid(format!(
                "`{name}` takes {max} digits under FX, found {}",
                self.found()
            ));
        }
        self.pos += run;
        self.parts.fraction = Some(self.src[start..start + run].to_string());
        Ok(())
    }

    fn meridian(&mut self, name: &str, dots: bool) -> Result<(), MaskError> {
        for (text, pm, with_dots) in [
            ("A.M.", false, true),
            ("P.M.", true, true),
            ("AM", false, false),
            ("PM", true, false),
        ] {
            let here = self.v.get(self.pos..self.pos + text.len());
            if here.is_some_and(|h| h.eq_ignore_ascii_case(text.as_bytes()))
                && (!self.exact || with_dots == dots)
            {
                self.pos += text.len();
                self.parts.pm = Some(pm);
                return Ok(());
            }
        }
        invalid(format!(
            "expected AM or PM for `{name}`, found {}",
            self.found()
        ))
    }

    fn radix(&mut self, name: &str) -> Result<(), MaskError> {
        if matches!(self.peek(), Some(b'.' | b',')) {
            self.pos += 1;
            return Ok(());
        }
        invalid(format!(
            "expected the radix `.` for `{name}`, found {}",
            self.found()
        ))
    }

    fn tz_hour(&mut self, name: &str) -> Result<(), MaskError> {
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        let hours = self.number(name, 2, 0, 14)?;
        self.parts.zone = Some(Zone::Offset {
            negative,
            hours,
            minutes: 0,
        });
        Ok(())
    }

    fn tz_minute(&mut self, name: &str) -> Result<(), MaskError> {
        let minutes = self.number(name, 2, 0, 59)?;
        if let Some(Zone::Offset { minutes: m, .. }) = &mut self.parts.zone {
            *m = minutes;
        }
        Ok(())
    }

    /// A region name, or the offset `TZR` prints for a value that has one.
    fn tz_region(&mut self, name: &str) -> Result<(), MaskError> {
        if let Some(sign @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let hours = self.number(name, 2, 0, 14)?;
            if self.peek() != Some(b':') {
                return invalid(format!(
                    "expected `:` in the `{name}` offset, found {}",
                    self.found()
                ));
            }
            self.pos += 1;
            let minutes = self.number(name, 2, 0, 59)?;
            self.parts.zone = Some(Zone::Offset {
                negative: sign == b'-',
                hours,
                minutes,
            });
            return Ok(());
        }
        let start = self.pos;
        let len = self.v[start..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'+'))
            .count();
        if !self.v[start].is_ascii_alphabetic() {
            return invalid(format!(
                "expected a time zone region for `{name}`, found {}",
                self.found()
            ));
        }
        self.pos += len;
        self.parts.zone = Some(Zone::Region(self.src[start..start + len].to_string()));
        Ok(())
    }

    /// The zone's abbreviation after its region (`US/Pacific PDT`): kept,
    /// since it tells the two hours a change back from summer time repeats.
    fn tz_abbr(&mut self, name: &str) -> Result<(), MaskError> {
        let start = self.pos;
        let len = self.v[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        if len == 0 {
            return invalid(format!(
                "expected a zone abbreviation for `{name}`, found {}",
                self.found()
            ));
        }
        self.pos += len;
        if let Some(Zone::Region(region)) = &mut self.parts.zone {
            region.push(' ');
            region.push_str(&self.src[start..start + len]);
        }
        Ok(())
    }
}

const MONTHS: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];

/// The ISO-ordered text of what was read, once the day is one the month has.
fn assemble(p: Parts) -> Result<String, MaskError> {
    let (Some(year), Some(month)) = (p.year, p.month) else {
        return invalid("the value gives no year or no month");
    };
    let day = p.day.unwrap_or(1);
    if i64::from(day) > days_in_month(i64::from(year), i64::from(month)) {
        let name = MONTHS.get(month as usize - 1).unwrap_or(&"");
        let title = name.get(1..).unwrap_or_default().to_lowercase();
        return invalid(format!(
            "`DD` is {day}, a day {}{title} {year:04} does not have",
            name.get(..1).unwrap_or_default()
        ));
    }
    let hour = match (p.hour12, p.pm) {
        (Some(h), Some(pm)) => h % 12 + if pm { 12 } else { 0 },
        (Some(_), None) => {
            return ambiguous(
                "the value leaves off AM/PM after a 12-hour clock, so the hour is ambiguous",
            )
        }
        (None, _) => p.hour24.unwrap_or(0),
    };
    let mut out = format!(
        "{year:04}-{month:02}-{day:02} {hour:02}:{:02}:{:02}",
        p.minute.unwrap_or(0),
        p.second.unwrap_or(0)
    );
    if let Some(fraction) = p.fraction {
        out.push('.');
        out.push_str(&fraction);
    }
    match p.zone {
        Some(Zone::Offset {
            negative,
            hours,
            minutes,
        }) => {
            let sign = if negative { '-' } else { '+' };
            out.push_str(&format!(" {sign}{hours:02}:{minutes:02}"));
        }
        Some(Zone::Region(region)) => {
            out.push(' ');
            out.push_str(&region);
        }
        None => {}
    }
    Ok(out)
}
