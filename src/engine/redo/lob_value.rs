//! A LOB's value while its pieces are applied: `dbms_lob` writes, trims
//! and erases on CLOB text (offsets in characters) or BLOB bytes, or on the
//! length alone of a value given as the placeholder.

use std::borrow::Cow;

use super::lob::{LobData, LobOp};
use crate::engine::event::{hex_lower, Field};

/// The most a write may pad past a value's end: a larger gap is a
/// malformed offset, not data (it would exhaust memory).
pub const MAX_PAD: u64 = 64 << 20;

/// Applies LOB calls to a value as `dbms_lob` does: a write past the end
/// pads with spaces (zero bytes), erase blanks, trim cuts. A write starting
/// more than [`MAX_PAD`] past the end is refused.
pub fn apply(value: &mut LobValue, op: &LobOp) -> Result<(), String> {
    if let LobOp::Write { offset, .. } = op {
        let len = match value {
            LobValue::Text(t) => t.chars,
            LobValue::Bytes(b) => b.len(),
            LobValue::Length { len, .. } => *len,
        } as u64;
        if offset.saturating_sub(1) > len.saturating_add(MAX_PAD) {
            return Err(format!(
                "dbms_lob.write at offset {offset}, far past the value's end ({len}): not a \
                 value LogMiner wrote"
            ));
        }
    }
    apply_op(value, op);
    Ok(())
}

/// A 1-based `dbms_lob` offset as a 0-based index.
fn index(offset: u64) -> usize {
    usize::try_from(offset.max(1) - 1).unwrap_or(usize::MAX)
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn apply_op(value: &mut LobValue, op: &LobOp) {
    match (value, op) {
        (
            LobValue::Text(text),
            LobOp::Write {
                data,
                amount,
                offset,
            },
        ) => {
            text.write(first_chars(&data.text(), count(*amount)), index(*offset));
        }
        (
            LobValue::Bytes(bytes),
            LobOp::Write {
                data,
                amount,
                offset,
            },
        ) => {
            let data = data.bytes();
            let src = &data[..data.len().min(count(*amount))];
            overwrite(bytes, src, index(*offset));
        }
        (
            LobValue::Length { binary, len },
            LobOp::Write {
                data,
                amount,
                offset,
            },
        ) => {
            // What the Text and Bytes arms write, counted instead of copied.
            let written = if *binary {
                data.bytes().len()
            } else {
                data.text().chars().count()
            };
            *len = (*len).max(index(*offset).saturating_add(written.min(count(*amount))));
        }
        (LobValue::Length { len, .. }, LobOp::Trim { length }) => {
            *len = (*len).min(count(*length));
        }
        // Erasing blanks what exists: the length stays.
        (LobValue::Length { .. }, LobOp::Erase { .. }) => {}
        (LobValue::Text(text), LobOp::Trim { length }) => text.trim(count(*length)),
        (LobValue::Bytes(bytes), LobOp::Trim { length }) => bytes.truncate(count(*length)),
        (LobValue::Text(text), LobOp::Erase { amount, offset }) => {
            text.erase(count(*amount), index(*offset))
        }
        (LobValue::Bytes(bytes), LobOp::Erase { amount, offset }) => {
            let start = index(*offset);
            let end = start.saturating_add(count(*amount)).min(bytes.len());
            if start < end {
                bytes[start..end].fill(0);
            }
        }
    }
}

/// The first `n` characters of `s` (all of it when it has fewer).
fn first_chars(s: &str, n: usize) -> &str {
    if s.len() <= n {
        // No more characters than bytes.
        return s;
    }
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

fn overwrite(dst: &mut Vec<u8>, src: &[u8], start: usize) {
    if dst.len() < start {
        dst.resize(start, 0);
    }
    // The part over existing data is copied in place, the rest appended:
    // pieces mostly append, kilobytes at a time.
    let over = dst.len().saturating_sub(start).min(src.len());
    dst[start..start + over].copy_from_slice(&src[..over]);
    dst.extend_from_slice(&src[over..]);
}

impl LobData {
    /// The data a CLOB write takes: bytes sent as HEXTORAW read as UTF-8.
    fn text(&self) -> Cow<'_, str> {
        match self {
            LobData::Text(t) => Cow::Borrowed(t.as_str()),
            LobData::Bytes(b) => String::from_utf8_lossy(b),
        }
    }

    /// The data a BLOB write takes: text as its UTF-8 bytes.
    fn bytes(&self) -> &[u8] {
        match self {
            LobData::Bytes(b) => b.as_slice(),
            LobData::Text(t) => t.as_bytes(),
        }
    }
}

/// A LOB's value while its pieces are applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobValue {
    Text(LobText),
    Bytes(Vec<u8>),
    /// A value that will be given as the placeholder: only its length
    /// (characters, or bytes when `binary`), which [`apply`]'s offset check
    /// needs. A LOB of gigabytes costs nothing to hold this way.
    Length {
        binary: bool,
        len: usize,
    },
}

/// CLOB text and its length in characters, which `dbms_lob` offsets and
/// amounts count. While the two lengths are equal (every character one
/// byte, the usual case) a character offset is a byte offset, so a write is
/// a copy; otherwise offsets are found by walking the characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LobText {
    text: String,
    chars: usize,
}

impl LobText {
    pub fn new(text: String) -> Self {
        let chars = text.chars().count();
        LobText { text, chars }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The byte offset of character `at` (the end when past it). At or
    /// past the end, as for the appending writes LogMiner's pieces are, it
    /// takes no walk: a large multi-byte CLOB does not cost a walk per piece.
    fn byte_at(&self, at: usize) -> usize {
        if at >= self.chars {
            return self.text.len();
        }
        if self.text.len() == self.chars {
            return at;
        }
        self.text
            .char_indices()
            .nth(at)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Writes `src` over the characters from `start` on, padding with
    /// spaces up to `start` and growing the text past its end.
    fn write(&mut self, src: &str, start: usize) {
        if self.chars < start {
            let gap = start - self.chars;
            self.text.extend(std::iter::repeat_n(' ', gap));
            self.chars = start;
        }
        let n = src.chars().count();
        let from = self.byte_at(start);
        if from == self.text.len() {
            self.text.push_str(src);
        } else {
            let to = self.byte_at(start.saturating_add(n));
            self.text.replace_range(from..to, src);
        }
        self.chars = self.chars.max(start.saturating_add(n));
    }

    fn trim(&mut self, length: usize) {
        if length < self.chars {
            let at = self.byte_at(length);
            self.text.truncate(at);
            self.chars = length;
        }
    }

    /// Blanks `amount` characters from `start` (those that exist).
    fn erase(&mut self, amount: usize, start: usize) {
        let end = start.saturating_add(amount).min(self.chars);
        if start < end {
            let (from, to) = (self.byte_at(start), self.byte_at(end));
            let spaces = " ".repeat(end - start);
            self.text.replace_range(from..to, &spaces);
        }
    }
}

impl LobValue {
    pub fn empty(binary: bool) -> Self {
        if binary {
            LobValue::Bytes(Vec::new())
        } else {
            LobValue::Text(LobText::default())
        }
    }

    /// The event value: the text, or a BLOB's bytes as lower-case hex (as
    /// RAW values are given); the unavailable marker for a value of which
    /// only the length was kept.
    pub fn into_field(self) -> Field {
        match self {
            LobValue::Text(t) => Field::Text(t.text),
            LobValue::Bytes(bytes) => Field::Binary(hex_lower(&bytes)),
            LobValue::Length { binary: false, .. } => Field::Unavailable,
            LobValue::Length { binary: true, .. } => Field::UnavailableBinary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lob_calls_apply_as_dbms_lob_does() {
        let mut v = LobValue::Text(LobText::new("0123456789".into()));
        let write = |text: &str, offset| LobOp::Write {
            data: LobData::Text(text.into()),
            amount: text.chars().count() as u64,
            offset,
        };
        for op in [
            write("ab", 3),
            LobOp::Erase {
                amount: 2,
                offset: 6,
            },
            LobOp::Trim { length: 8 },
            write("z", 10),
        ] {
            assert_eq!(apply(&mut v, &op), Ok(()));
        }
        assert_eq!(v.into_field(), Field::Text("01ab4  7 z".into()));
        let mut b = LobValue::empty(true);
        let at = |offset| LobOp::Write {
            data: LobData::Bytes(vec![0xab]),
            amount: 1,
            offset,
        };
        assert_eq!(apply(&mut b, &at(2)), Ok(()));
        assert_eq!(b.clone().into_field(), Field::Binary("00ab".into()));
        // An offset far past the end is refused, not padded.
        assert!(apply(&mut b, &at(u64::MAX)).is_err());
        assert!(apply(&mut b, &at(MAX_PAD + 10)).is_err());
    }

    /// `dbms_lob` on a list of characters, the plain way: what the text
    /// value must agree with.
    fn model(chars: &mut Vec<char>, op: &LobOp) {
        match op {
            LobOp::Write {
                data: LobData::Text(t),
                amount,
                offset,
            } => {
                let src: Vec<char> = t.chars().take(count(*amount)).collect();
                let start = index(*offset);
                if chars.len() < start {
                    chars.resize(start, ' ');
                }
                for (i, c) in src.into_iter().enumerate() {
                    match chars.get_mut(start + i) {
                        Some(slot) => *slot = c,
                        None => chars.push(c),
                    }
                }
            }
            LobOp::Trim { length } => chars.truncate(count(*length)),
            LobOp::Erase { amount, offset } => {
                let start = index(*offset);
                let end = start.saturating_add(count(*amount)).min(chars.len());
                for c in chars.iter_mut().take(end).skip(start) {
                    *c = ' ';
                }
            }
            LobOp::Write { .. } => unreachable!("the strategy writes text"),
        }
    }

    fn text_op() -> impl proptest::strategy::Strategy<Value = LobOp> {
        use proptest::prelude::*;
        prop_oneof![
            ("[ab\u{e9}\u{4e2d}\u{1d11e}]{0,12}", 0u64..14, 0u64..30).prop_map(
                |(t, amount, offset)| LobOp::Write {
                    data: LobData::Text(t),
                    amount,
                    offset,
                }
            ),
            (0u64..30).prop_map(|length| LobOp::Trim { length }),
            (0u64..10, 0u64..30).prop_map(|(amount, offset)| LobOp::Erase { amount, offset }),
        ]
    }

    /// Writes of text or bytes (not always UTF-8), trims and erases, at
    /// offsets near the value and far past it.
    fn any_op() -> impl proptest::strategy::Strategy<Value = LobOp> {
        use proptest::prelude::*;
        let data = prop_oneof![
            "[ab\u{e9}\u{4e2d}]{0,12}".prop_map(LobData::Text),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(LobData::Bytes),
        ];
        let offset = prop_oneof![
            8 => 0u64..40,
            1 => MAX_PAD + 60..MAX_PAD + 100,
            1 => Just(u64::MAX),
        ];
        prop_oneof![
            (data, 0u64..14, offset).prop_map(|(data, amount, offset)| LobOp::Write {
                data,
                amount,
                offset,
            }),
            (0u64..30).prop_map(|length| LobOp::Trim { length }),
            (0u64..10, 0u64..30).prop_map(|(amount, offset)| LobOp::Erase { amount, offset }),
        ]
    }

    fn len_of(value: &LobValue) -> usize {
        match value {
            LobValue::Text(t) => t.chars,
            LobValue::Bytes(b) => b.len(),
            LobValue::Length { len, .. } => *len,
        }
    }

    proptest::proptest! {
        /// The placeholder's length-only value is as long as the value it
        /// stands for after every call, and refuses the same calls.
        #[test]
        fn length_only_value_follows_the_value_it_stands_for(
            binary in proptest::prelude::any::<bool>(),
            ops in proptest::collection::vec(any_op(), 1..12),
        ) {
            let mut value = LobValue::empty(binary);
            let mut length = LobValue::Length { binary, len: 0 };
            for op in &ops {
                proptest::prop_assert_eq!(apply(&mut length, op), apply(&mut value, op));
                proptest::prop_assert_eq!(len_of(&length), len_of(&value));
            }
        }

        /// Character offsets over text of one- to four-byte characters,
        /// ASCII and not, land where a list of characters puts them.
        #[test]
        fn text_lob_calls_count_characters_not_bytes(
            start in "[xy\u{fc}]{0,8}",
            ops in proptest::collection::vec(text_op(), 1..12),
        ) {
            let mut chars: Vec<char> = start.chars().collect();
            let mut value = LobValue::Text(LobText::new(start));
            for op in &ops {
                model(&mut chars, op);
                proptest::prop_assert_eq!(apply(&mut value, op), Ok(()));
                let LobValue::Text(t) = &value else { unreachable!() };
                proptest::prop_assert_eq!(t.chars, chars.len());
            }
            let expected: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(value.into_field(), Field::Text(expected));
        }
    }
}
