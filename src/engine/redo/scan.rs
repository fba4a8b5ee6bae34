//! The byte scanner under the SQL_REDO parser: whitespace, keywords, quoted
//! identifiers, string literals and every value form LogMiner renders.
//!
//! Only ASCII bytes are ever compared, so every position the scanner stops
//! at is a UTF-8 character boundary and slicing the input never panics.

use std::borrow::Cow;

use crate::engine::block::{self, BLOCK};
use memchr::memchr;

use super::datemask::{self, Target};
use super::value::{
    decode_unistr, is_calendar_date, is_date_time, is_time, is_timestamp, is_timestamp_tz,
    timestamp_exists, Value,
};

/// A parse failure before the raw text is attached.
#[derive(Debug)]
pub(super) struct Fail {
    pub message: String,
    pub position: usize,
}

pub(super) type Res<T> = Result<T, Fail>;

impl Fail {
    /// Names the column whose value failed, so the operator can find it
    /// in a wide statement.
    pub fn in_column(mut self, column: &str) -> Self {
        self.message = format!("column \"{column}\": {}", self.message);
        self
    }
}

pub(super) struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pub pos: usize,
}

/// Up to 40 characters either side of byte `at` on one line, and a caret
/// line under the byte, for errors that must show where they point.
pub(super) fn caret_excerpt(src: &str, at: usize) -> String {
    let mut start = at.saturating_sub(40);
    while !src.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 41).min(src.len());
    while !src.is_char_boundary(end) {
        end += 1;
    }
    let flat = |s: &str| s.replace(['\n', '\r', '\t'], " ");
    let before = flat(&src[start..at.min(src.len())]);
    format!(
        "  {}{}\n  {}^",
        if start > 0 { "…" } else { "" },
        flat(&src[start..end]).trim_end(),
        " ".repeat(before.chars().count() + usize::from(start > 0))
    )
}

/// Bytes of an unquoted word: letters, digits, `_`, `$`, `#`.
static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'#';
        b += 1;
    }
    t
};

#[inline]
fn is_word_byte(b: u8) -> bool {
    WORD_BYTE[usize::from(b)]
}

/// The first `needle` in `hay`. Most literals and names LogMiner prints are
/// short, shorter than memchr takes to set up its vector loop: the first
/// 64 bytes (a name, a number, a date, a timestamp, a run of text between
/// doubled quotes) are searched a block at a time, the end of a short
/// `hay` in one block that overlaps the one before.
#[inline]
fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    const REGISTER_BYTES: usize = 64;
    let mut at = 0;
    while at < REGISTER_BYTES {
        let Some(block) = hay
            .get(at..at + BLOCK)
            .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
        else {
            if hay.len() < BLOCK {
                return hay.iter().position(|&b| b == needle);
            }
            let mask = block::tail_mask(hay, at, |b| block::eq_mask(b, needle));
            return (mask != 0).then(|| at + mask.trailing_zeros() as usize);
        };
        let mask = block::eq_mask(block, needle);
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += BLOCK;
    }
    memchr(needle, &hay[at..]).map(|i| at + i)
}

impl<'a> Scanner<'a> {
    pub fn new(src: &'a str) -> Self {
        Self {
            src,
            bytes: src.as_bytes(),
            pos: 0,
        }
    }

    pub fn fail<T>(&self, message: impl Into<String>) -> Res<T> {
        Err(Fail {
            message: message.into(),
            position: self.pos,
        })
    }

    /// Describes what is at the cursor, for error messages.
    fn found(&self) -> String {
        match self.bytes.get(self.pos) {
            None => "the end of the statement".to_string(),
            Some(_) => {
                let rest = self.src.get(self.pos..).unwrap_or_default();
                let snippet: String = rest.chars().take(12).collect();
                format!("`{snippet}`")
            }
        }
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    #[inline]
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }

    /// Consumes `b` after optional whitespace.
    #[inline]
    pub fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, b: u8, context: &str) -> Res<()> {
        if self.eat(b) {
            Ok(())
        } else {
            self.fail(format!(
                "expected `{}` {context}, found {}",
                b as char,
                self.found()
            ))
        }
    }

    /// `(` after a function name; the message is built only on failure.
    fn open_paren(&mut self, func: &str) -> Res<()> {
        if self.eat(b'(') {
            Ok(())
        } else {
            self.fail(format!("expected `(` after {func}, found {}", self.found()))
        }
    }

    fn close_paren(&mut self, func: &str) -> Res<()> {
        if self.eat(b')') {
            Ok(())
        } else {
            self.fail(format!(
                "expected `)` to close {func}(, found {}",
                self.found()
            ))
        }
    }

    /// Consumes the keyword `kw` (upper-case ASCII) in any case, when it is
    /// followed by something that cannot continue a word.
    #[inline]
    pub fn keyword(&mut self, kw: &[u8]) -> bool {
        self.skip_ws();
        let end = self.pos + kw.len();
        match self.bytes.get(self.pos..end) {
            Some(word) if word.eq_ignore_ascii_case(kw) => {
                if self.bytes.get(end).is_some_and(|&b| is_word_byte(b)) {
                    return false;
                }
                self.pos = end;
                true
            }
            _ => false,
        }
    }

    pub fn expect_keyword(&mut self, kw: &[u8], context: &str) -> Res<()> {
        if self.keyword(kw) {
            Ok(())
        } else {
            self.fail(format!(
                "expected `{}` {context}, found {}",
                String::from_utf8_lossy(kw).to_lowercase(),
                self.found()
            ))
        }
    }

    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// A run of word bytes (a function name or keyword), possibly empty.
    pub fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(|&b| is_word_byte(b)) {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    /// [`Scanner::word`] after optional whitespace.
    pub fn word_after_ws(&mut self) -> &'a str {
        self.skip_ws();
        self.word()
    }

    /// The source between two positions the scanner stopped at.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        self.src.get(start..end).unwrap_or_default()
    }

    /// What is not yet consumed.
    pub fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or_default()
    }

    /// `"NAME"`: LogMiner quotes every identifier and a quoted Oracle
    /// identifier cannot contain `"`, so the name is the bytes in between.
    #[inline]
    pub fn quoted_ident(&mut self, context: &str) -> Res<&'a str> {
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b'"') {
            return self.fail(format!(
                "expected a quoted name {context}, found {}",
                self.found()
            ));
        }
        let start = self.pos + 1;
        match find_byte(b'"', &self.bytes[start..]) {
            Some(len) => {
                self.pos = start + len + 1;
                Ok(&self.src[start..start + len])
            }
            None => self.fail("the quoted name never ends (missing `\"`)"),
        }
    }

    /// `'text'` with doubled quotes undone; borrows unless a quote was doubled.
    #[inline]
    pub fn string_lit(&mut self) -> Res<Cow<'a, str>> {
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b'\'') {
            return self.fail(format!("expected a string literal, found {}", self.found()));
        }
        let start = self.pos + 1;
        let mut i = start;
        // Filled from the first doubled quote on, in the same pass that
        // finds the end: text full of `''` would otherwise be scanned twice.
        let mut undoubled: Option<String> = None;
        loop {
            let Some(off) = find_byte(b'\'', &self.bytes[i..]) else {
                return self.fail("the string literal never ends (missing `'`)");
            };
            let q = i + off;
            if self.bytes.get(q + 1) == Some(&b'\'') {
                // Keeps one quote of the pair; both are ASCII, so the slices
                // end on char boundaries.
                // The rest of the statement bounds the literal: one
                // allocation even for a long LOB piece full of quotes.
                let out =
                    undoubled.get_or_insert_with(|| String::with_capacity(self.bytes.len() - i));
                out.push_str(&self.src[i..=q]);
                i = q + 2;
            } else {
                self.pos = q + 1;
                return Ok(match undoubled {
                    Some(mut out) => {
                        out.push_str(&self.src[i..q]);
                        Cow::Owned(out)
                    }
                    None => Cow::Borrowed(&self.src[start..q]),
                });
            }
        }
    }

    /// An unquoted number as DM8 writes it: `123`, `-1.5`, `3.14159E0`.
    fn unquoted_number(&mut self) -> Res<&'a str> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let mut digits = 0;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
            digits += 1;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
                digits += 1;
            }
        }
        if digits == 0 {
            return self.fail(format!("expected a value, found {}", self.found()));
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(b.get(j), Some(b'-' | b'+')) {
                j += 1;
            }
            let exp_start = j;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            if j == exp_start {
                self.pos = i;
                return self.fail("the number's exponent has no digits");
            }
            i = j;
        }
        if b.get(i).is_some_and(|&c| is_word_byte(c) || c == b'.') {
            self.pos = i;
            return self.fail(format!("malformed number, found {}", self.found()));
        }
        self.pos = i;
        Ok(&self.src[start..i])
    }

    /// One value: a literal, NULL, a conversion function, a `||` chain,
    /// or `Unsupported Type`.
    pub fn value(&mut self) -> Res<Value<'a>> {
        self.skip_ws();
        match self.bytes.get(self.pos) {
            Some(b'\'') => {
                let s = self.string_lit()?;
                self.check_literal_end()?;
                self.maybe_chain(s)
            }
            Some(b'0') if matches!(self.bytes.get(self.pos + 1), Some(b'x' | b'X')) => {
                self.hex_bytes()
            }
            Some(b) if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.') => {
                Ok(Value::Text(Cow::Borrowed(self.unquoted_number()?)))
            }
            Some(b) if b.is_ascii_alphabetic() => self.function(),
            Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                let json = self.comments()?;
                let v = self.value()?;
                Ok(if json { v.into_json() } else { v })
            }
            _ => self.fail(format!("expected a value, found {}", self.found())),
        }
    }

    /// Skips the `/* ... */` comments before a value; true when one of them
    /// is `/* JSON */`, LogMiner's mark on native JSON columns (21c+).
    fn comments(&mut self) -> Res<bool> {
        let mut json = false;
        while self.bytes.get(self.pos..self.pos + 2) == Some(b"/*") {
            let body_at = self.pos + 2;
            let Some(len) = self.src[body_at..].find("*/") else {
                return self.fail("the comment never ends (missing `*/`)");
            };
            json |= self.src[body_at..body_at + len]
                .trim()
                .eq_ignore_ascii_case("JSON");
            self.pos = body_at + len + 2;
            self.skip_ws();
        }
        Ok(json)
    }

    /// A string value's closing quote must be followed by what may follow a
    /// value (`,` `)` `;` `||`, `and`, `where`, `for` or the end). Anything else
    /// means the quote was inside the text and LogMiner did not double it:
    /// reading on would silently truncate the value.
    #[inline]
    fn check_literal_end(&mut self) -> Res<()> {
        let quote = self.pos - 1;
        self.skip_ws();
        match self.peek() {
            None | Some(b',' | b')' | b';' | b'|') => Ok(()),
            Some(b'a' | b'A' | b'w' | b'W')
                if self.at_keyword(b"AND") || self.at_keyword(b"WHERE") =>
            {
                Ok(())
            }
            // A LOB locator's `select ... where "K" = '1' for update`.
            Some(b'f' | b'F') if self.at_keyword(b"FOR") => Ok(()),
            Some(_) => Err(Fail {
                message: format!(
                    "unescaped quote inside a string literal: the `'` at byte {quote} is followed \
                     by {}, not by `,`, `)` or the end of the value (LogMiner did not double a \
                     quote in the text; --relaxed-quotes recovers such values)\n{}",
                    self.found(),
                    caret_excerpt(self.src, quote)
                ),
                position: quote,
            }),
        }
    }

    /// Whether the keyword `kw` is at the cursor, without consuming it.
    pub fn at_keyword(&mut self, kw: &[u8]) -> bool {
        let at = self.pos;
        let found = self.keyword(kw);
        self.pos = at;
        found
    }

    /// Continues `first` with `|| 'more'` or `|| UNISTR('...')` pieces.
    fn maybe_chain(&mut self, first: Cow<'a, str>) -> Res<Value<'a>> {
        if !self.at_chain() {
            return Ok(Value::Text(first));
        }
        let mut acc = first.into_owned();
        while self.at_chain() {
            self.pos += 2;
            self.skip_ws();
            let piece_at = self.pos;
            if self.bytes.get(self.pos) == Some(&b'\'') {
                acc.push_str(&self.string_lit()?);
            } else if self.keyword(b"UNISTR") {
                acc.push_str(&self.unistr_args(piece_at)?);
            } else {
                return self.fail(format!(
                    "expected a string or UNISTR after `||`, found {}",
                    self.found()
                ));
            }
        }
        Ok(Value::Text(Cow::Owned(acc)))
    }

    fn at_chain(&mut self) -> bool {
        self.skip_ws();
        self.bytes.get(self.pos..self.pos + 2) == Some(b"||")
    }

    /// `( 'escaped' )` after UNISTR, decoded.
    fn unistr_args(&mut self, at: usize) -> Res<Cow<'a, str>> {
        self.expect(b'(', "after UNISTR")?;
        let s = self.string_lit()?;
        self.expect(b')', "to close UNISTR(")?;
        decode_unistr(s).map_err(|message| Fail {
            message,
            position: at,
        })
    }

    /// `( 'literal' [, 'format'] )`, returning the literal and the mask.
    fn literal_args(&mut self, name: &str) -> Res<(Cow<'a, str>, Option<Cow<'a, str>>)> {
        self.open_paren(name)?;
        let s = self.string_lit()?;
        let mask = if self.eat(b',') {
            Some(self.string_lit()?)
        } else {
            None
        };
        self.close_paren(name)?;
        Ok((s, mask))
    }

    fn function(&mut self) -> Res<Value<'a>> {
        let at = self.pos;
        let name = self.word();
        let is = |n: &str| -> bool { name.eq_ignore_ascii_case(n) };
        if is("NULL") {
            return Ok(Value::Null);
        }
        // Oracle's forms are calls; a word followed by a quote is one of
        // DM8's typed literals, so Oracle's statements never test for them.
        self.skip_ws();
        if self.peek() == Some(b'\'') {
            return self.typed_literal(at, name);
        }
        if is("TO_DATE") {
            let (s, mask) = self.literal_args("TO_DATE")?;
            return DATE.read(at, s, mask, is_date_time, Value::Date);
        }
        if is("TO_TIMESTAMP") {
            let (s, mask) = self.literal_args("TO_TIMESTAMP")?;
            return TIMESTAMP.read(at, s, mask, is_timestamp, Value::Timestamp);
        }
        if is("TO_TIMESTAMP_TZ") {
            let (s, mask) = self.literal_args("TO_TIMESTAMP_TZ")?;
            return TIMESTAMP_TZ.read(at, s, mask, is_timestamp_tz, Value::TimestampTz);
        }
        if is("HEXTORAW") {
            let (s, _) = self.literal_args("HEXTORAW")?;
            if !all_hex(s.as_bytes()) {
                return Err(Fail {
                    message: format!("HEXTORAW('{s}') holds a character that is not hex"),
                    position: at,
                });
            }
            return Ok(Value::Raw(s));
        }
        if is("UNISTR") {
            let s = self.unistr_args(at)?;
            return self.maybe_chain(s);
        }
        if is("EMPTY_CLOB") || is("EMPTY_BLOB") {
            self.open_paren(name)?;
            self.close_paren(name)?;
            return Ok(if is("EMPTY_BLOB") {
                Value::EmptyBlob
            } else {
                Value::EmptyLob
            });
        }
        if is("TO_YMINTERVAL") || is("TO_DSINTERVAL") {
            let (s, _) = self.literal_args(name)?;
            return Ok(Value::Interval(s));
        }
        if is("Unsupported") {
            self.expect_keyword(b"TYPE", "after `Unsupported`")?;
            return Ok(Value::Unsupported);
        }
        if is("OUT_CLOB") {
            return self.out_clob();
        }
        Err(Fail {
            message: if name.is_empty() {
                format!("expected a value, found {}", self.found())
            } else {
                format!("`{name}` is not a value form LogMiner writes")
            },
            position: at,
        })
    }
}

// DM8's value forms, kept apart from Oracle's: `value` and `function`
// reach them only on a byte no Oracle form has there.
impl<'a> Scanner<'a> {
    /// DM8's `0x00010203` (BLOB, BINARY, VARBINARY): whole bytes of hex.
    fn hex_bytes(&mut self) -> Res<Value<'a>> {
        let at = self.pos;
        self.pos += 2;
        let digits = self.word();
        let literal = &self.src[at..self.pos];
        let why = if !all_hex(digits.as_bytes()) {
            "holds a character that is not hex"
        } else if !digits.len().is_multiple_of(2) {
            "has an odd number of hex digits, so it is not whole bytes"
        } else {
            return Ok(Value::Bytes(Cow::Borrowed(digits)));
        };
        Err(Fail {
            message: format!("binary literal {literal} {why}"),
            position: at,
        })
    }

    /// `DATE'...'`, `TIME'...'`, `TIMESTAMP'...'` as DM8 writes them, the
    /// keyword in any case, whitespace allowed before the quote. Each must
    /// be a day, time or instant that exists: DM8 prints what it stored,
    /// so anything else is a corrupt row, never rounded into a value.
    fn typed_literal(&mut self, at: usize, keyword: &'a str) -> Res<Value<'a>> {
        let quote = self.pos;
        let text = match self.string_lit() {
            Ok(text) => text,
            Err(_) => {
                let rest: String = self.src[quote..].chars().take(40).collect();
                return Err(Fail {
                    message: format!("the literal {keyword}{rest} never ends (missing `'`)"),
                    position: at,
                });
            }
        };
        self.check_literal_end()?;
        let is = |n: &str| keyword.eq_ignore_ascii_case(n);
        let b = text.as_bytes();
        let (value, expected) = if is("TIMESTAMP") {
            let value = if is_timestamp(b) && timestamp_exists(b) {
                Some(Value::Timestamp(text.clone()))
            } else if is_timestamp_tz(b) && timestamp_exists(b) {
                Some(Value::TimestampTz(text.clone()))
            } else {
                None
            };
            (
                value,
                "TIMESTAMP'YYYY-MM-DD HH:MI:SS[.FF]' (0 to 9 fraction digits), optionally then \
                 a space and an offset +HH:MI, a day, time and offset that exist",
            )
        } else if is("DATE") {
            let value = if is_calendar_date(b) || (is_date_time(b) && timestamp_exists(b)) {
                Some(Value::Date(text.clone()))
            } else {
                None
            };
            (value, "DATE'YYYY-MM-DD', a day that exists")
        } else if is("TIME") {
            let value = is_time(b).then(|| Value::Time(text.clone()));
            (
                value,
                "TIME'HH:MI:SS[.FF]' (0 to 9 fraction digits), a time that exists",
            )
        } else {
            return Err(Fail {
                message: format!(
                    "{keyword}'{text}' is not a literal form cdcctl reads (DM8 writes DATE'...', \
                     TIME'...' and TIMESTAMP'...')"
                ),
                position: at,
            });
        };
        value.ok_or_else(|| Fail {
            message: format!(
                "{keyword}'{text}' is not a valid {}: expected {expected}",
                keyword.to_ascii_lowercase()
            ),
            position: at,
        })
    }

    /// `OUT_CLOB` or `OUT_CLOB(LOB_ID: 525301)` (after the word): DM8 logs
    /// a large LOB's place, never its content.
    fn out_clob(&mut self) -> Res<Value<'a>> {
        if self.eat(b'(') {
            self.expect_keyword(b"LOB_ID", "inside OUT_CLOB(")?;
            self.expect(b':', "after LOB_ID")?;
            self.skip_ws();
            let at = self.pos;
            let id = self.word();
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
                self.pos = at;
                return self.fail(format!(
                    "expected the LOB_ID number in OUT_CLOB(, found {}",
                    self.found()
                ));
            }
            self.close_paren("OUT_CLOB")?;
        }
        Ok(Value::LobNotLogged)
    }
}

/// A datetime conversion LogMiner writes and the session format its
/// literal must follow.
struct DateForm {
    func: &'static str,
    target: Target,
    /// The format cdcctl's mining session sets.
    format: &'static str,
    /// What is accepted, for the error message.
    accepted: &'static str,
    nls: &'static str,
}

const DATE: DateForm = DateForm {
    func: "TO_DATE",
    target: Target::Date,
    format: "YYYY-MM-DD HH24:MI:SS",
    accepted: "YYYY-MM-DD HH24:MI:SS",
    nls: "NLS_DATE_FORMAT = 'YYYY-MM-DD HH24:MI:SS'",
};

const TIMESTAMP: DateForm = DateForm {
    func: "TO_TIMESTAMP",
    target: Target::Timestamp,
    format: "YYYY-MM-DD HH24:MI:SS.FF9",
    accepted: "YYYY-MM-DD HH24:MI:SS[.FF], 0 to 9 fraction digits",
    nls: "NLS_TIMESTAMP_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9'",
};

const TIMESTAMP_TZ: DateForm = DateForm {
    func: "TO_TIMESTAMP_TZ",
    target: Target::TimestampTz,
    format: "YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM",
    accepted: "YYYY-MM-DD HH24:MI:SS[.FF] then TZH:TZM or a TZR region, 0 to 9 fraction digits",
    nls: "NLS_TIMESTAMP_TZ_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM'",
};

impl DateForm {
    /// A value in the session's format, as cdcctl's own sessions print it
    /// (the hot path: a shape check, nothing copied); one in another format
    /// is read by the mask that comes with it.
    #[inline]
    fn read<'a>(
        &self,
        at: usize,
        s: Cow<'a, str>,
        mask: Option<Cow<'a, str>>,
        valid: fn(&[u8]) -> bool,
        make: fn(Cow<'a, str>) -> Value<'a>,
    ) -> Res<Value<'a>> {
        match mask {
            Some(m) if !self.is_session_mask(&m) => self.by_mask(at, &s, &m, valid, make),
            _ if valid(s.as_bytes()) => Ok(make(s)),
            Some(m) => self.by_mask(at, &s, &m, valid, make),
            None => Err(self.not_iso(at, &s)),
        }
    }

    /// Whether a format argument is the session's: the same for a DATE,
    /// ISO-ordered through the seconds for the timestamps.
    #[inline]
    fn is_session_mask(&self, mask: &str) -> bool {
        if self.target == Target::Date {
            return mask.trim().eq_ignore_ascii_case(self.format);
        }
        let prefix = "YYYY-MM-DD HH24:MI:SS";
        mask.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    }

    /// The value read by its own mask into the session's form, then taken
    /// as a value in that form is.
    #[cold]
    #[inline(never)]
    fn by_mask<'a>(
        &self,
        at: usize,
        s: &str,
        mask: &str,
        valid: fn(&[u8]) -> bool,
        make: fn(Cow<'a, str>) -> Value<'a>,
    ) -> Res<Value<'a>> {
        match datemask::read(s, mask, self.target) {
            Ok(iso) if valid(iso.as_bytes()) => Ok(make(Cow::Owned(iso))),
            Ok(iso) => Err(self.not_iso(at, &iso)),
            Err(e) => {
                let advice = if e.ambiguous {
                    format!("; set {} in the mining session", self.nls)
                } else {
                    String::new()
                };
                Err(Fail {
                    message: format!("{}('{s}', '{mask}'): {}{advice}", self.func, e.reason),
                    position: at,
                })
            }
        }
    }

    fn not_iso(&self, at: usize, s: &str) -> Fail {
        // Day-first and month-name forms (the DD-MON-RR defaults) leave the
        // century and the month language to the session: never guessed.
        let why = if s
            .get(..4)
            .is_some_and(|y| y.bytes().all(|b| b.is_ascii_digit()))
        {
            "is not in that format"
        } else {
            "is not ISO-ordered (year first), so it is ambiguous (a DD-MON-RR form leaves the \
             century and the month names to the session)"
        };
        Fail {
            message: format!(
                "{}('{s}') {why}; expected {}: set {} in the mining session",
                self.func, self.accepted, self.nls
            ),
            position: at,
        }
    }
}

/// Whether every byte is a hex digit. Checked a block at a time without
/// stopping early, which the compiler turns into vector code: LOB pieces
/// carry kilobytes of HEXTORAW digits.
pub(super) fn all_hex(b: &[u8]) -> bool {
    b.chunks(32).all(|block| {
        block.iter().fold(true, |ok, &c| {
            ok & (c.is_ascii_digit() | matches!(c | 0x20, b'a'..=b'f'))
        })
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Scanner;

    /// A literal's text with every quote doubled, as LogMiner writes it.
    fn quoted(text: &str) -> String {
        format!("'{}'", text.replace('\'', "''"))
    }

    proptest! {
        /// Text of any length with quotes anywhere (runs of them, one at a
        /// block's edge, pairs split across blocks), then more of the
        /// statement: the literal ends at its closing quote, with every
        /// pair undone, whatever follows.
        #[test]
        fn string_lit_undoes_doubled_quotes_and_stops_at_the_closing_one(
            text in "([a-z\"é']|''){0,70}",
            rest in "( and \"B\" = '[a-z]*'| ,)?",
        ) {
            let sql = format!("{}{rest}", quoted(&text));
            let mut scanner = Scanner::new(&sql);
            let lit = scanner.string_lit().map_err(|e| TestCaseError::fail(e.message))?;
            prop_assert_eq!(lit.as_ref(), text.as_str());
            prop_assert_eq!(&sql[scanner.pos..], rest.as_str());
        }

        /// Without its closing quote a literal is an error, never a panic
        /// or a literal that runs into whatever follows.
        #[test]
        fn string_lit_without_its_closing_quote_fails(text in "([a-z']|''){0,70}") {
            let sql = quoted(&text);
            let open = &sql[..sql.len() - 1];
            prop_assert!(Scanner::new(open).string_lit().is_err());
        }

        /// Every length around the blocks, the overlapping last block and
        /// the hand-over to memchr, with the needle anywhere, twice, or
        /// absent.
        #[test]
        fn find_byte_finds_what_memchr_finds(
            hay in proptest::collection::vec(prop_oneof![Just(b'\''), Just(b'"'), any::<u8>()], 0..100),
            needle in prop_oneof![Just(b'\''), Just(b'"'), any::<u8>()],
        ) {
            prop_assert_eq!(super::find_byte(needle, &hay), memchr::memchr(needle, &hay));
        }

        /// One needle at any offset of a clean run (or none): each block,
        /// the overlapping last one and the hand-over must each find it.
        #[test]
        fn find_byte_finds_a_lone_needle_at_any_offset(
            len in 0usize..100,
            at in 0usize..110,
            needle in prop_oneof![Just(b'\''), Just(b'"')],
        ) {
            let mut hay = vec![b'x'; len];
            if let Some(b) = hay.get_mut(at) {
                *b = needle;
            }
            prop_assert_eq!(super::find_byte(needle, &hay), memchr::memchr(needle, &hay));
        }
    }
}
