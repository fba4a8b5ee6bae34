//! How the simulated database stores character data: the bytes of a text in
//! its database or national character set, and the text a column really
//! holds once a client's characters the set cannot represent were replaced,
//! as Oracle's conversion replaces them.
//!
//! The encoders are the `encoding_rs` ones (and UTF-16 and CESU-8 by their
//! definitions), never the engine's decoders, so a round trip through the
//! engine checks two independent implementations against each other.

use crate::engine::charset::Charset;

/// The character set of each kind of character column of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charsets {
    /// `NLS_CHARACTERSET`: CHAR, VARCHAR2, CLOB.
    pub database: Charset,
    /// `NLS_NCHAR_CHARACTERSET`: NCHAR, NVARCHAR2, NCLOB.
    pub national: Charset,
}

impl Default for Charsets {
    fn default() -> Self {
        Charsets {
            database: Charset::Utf8,
            national: Charset::Whatwg(encoding_rs::UTF_16BE),
        }
    }
}

impl Charsets {
    /// The pair a scenario names; a name cdcctl does not know (the scenario
    /// check refuses those) falls back to the default one.
    pub fn from_names(database: &str, national: &str) -> Charsets {
        let d = Charsets::default();
        Charsets {
            database: Charset::from_oracle_name(database).unwrap_or(d.database),
            national: Charset::from_oracle_name(national).unwrap_or(d.national),
        }
    }
}

/// The replacement character Oracle stores for one the target character
/// set lacks (the ASCII question mark in the sets simulated here).
const REPLACEMENT: char = '?';

/// `text` in `charset`, or `None` when a character has no code there.
pub fn encode(charset: Charset, text: &str) -> Option<Vec<u8>> {
    match charset {
        Charset::Utf8 => Some(text.as_bytes().to_vec()),
        Charset::Cesu8 => Some(cesu8(text)),
        Charset::Latin1 => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect(),
        Charset::Ascii => text.is_ascii().then(|| text.as_bytes().to_vec()),
        Charset::Whatwg(enc) if enc == encoding_rs::UTF_16BE => {
            Some(text.encode_utf16().flat_map(u16::to_be_bytes).collect())
        }
        Charset::Whatwg(enc) if enc == encoding_rs::UTF_16LE => {
            Some(text.encode_utf16().flat_map(u16::to_le_bytes).collect())
        }
        Charset::Whatwg(enc) => {
            let (bytes, _, unmappable) = enc.encode(text);
            (!unmappable).then(|| bytes.into_owned())
        }
    }
}

/// The text a column in `charset` holds after storing `text`: each
/// character the set cannot represent becomes `?`.
pub fn stored(charset: Charset, text: &str) -> String {
    if representable(charset, text) {
        return text.to_string();
    }
    let mut buf = [0u8; 4];
    text.chars()
        .map(|c| {
            if encode(charset, c.encode_utf8(&mut buf)).is_some() {
                c
            } else {
                REPLACEMENT
            }
        })
        .collect()
}

/// Whether every character of `text` has a code in `charset`: what
/// [`encode`] answers, without building the bytes for the Unicode sets
/// (which represent any text) and the single-byte ones.
pub fn representable(charset: Charset, text: &str) -> bool {
    match charset {
        Charset::Utf8 | Charset::Cesu8 => true,
        Charset::Latin1 => text.chars().all(|c| u32::from(c) <= 0xFF),
        Charset::Ascii => text.is_ascii(),
        Charset::Whatwg(enc) if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE => {
            true
        }
        Charset::Whatwg(_) => encode(charset, text).is_some(),
    }
}

/// The text a column in `charset` holds after storing `text` (see
/// [`stored`]), reusing `text` when nothing needs replacing.
pub fn stored_owned(charset: Charset, text: String) -> String {
    if representable(charset, &text) {
        text
    } else {
        stored(charset, &text)
    }
}

/// The number of bytes `text` takes in `charset` (its UTF-8 length when a
/// character has no code there, which [`stored`] rules out).
pub fn byte_len(charset: Charset, text: &str) -> usize {
    if charset == Charset::Utf8 {
        return text.len();
    }
    encode(charset, text).map_or(text.len(), |b| b.len())
}

/// CESU-8 (Oracle's `UTF8`): UTF-8, except that a character above U+FFFF
/// is its UTF-16 surrogate pair, each half as a 3-byte sequence.
fn cesu8(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if u32::from(c) <= 0xFFFF {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            let u = u32::from(*unit);
            out.extend_from_slice(&[
                0xE0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3F) as u8,
                0x80 | (u & 0x3F) as u8,
            ]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs(name: &str) -> Charset {
        Charset::from_oracle_name(name).unwrap()
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn text_encodes_to_the_bytes_each_character_set_stores() {
        let enc = |name: &str, text: &str| encode(cs(name), text).map(|b| hex(&b));
        assert_eq!(enc("AL32UTF8", "中文").as_deref(), Some("e4b8ade69687"));
        assert_eq!(enc("ZHS16GBK", "中文").as_deref(), Some("d6d0cec4"));
        assert_eq!(enc("AL16UTF16", "中文").as_deref(), Some("4e2d6587"));
        assert_eq!(enc("WE8MSWIN1252", "café€").as_deref(), Some("636166e980"));
        assert_eq!(enc("WE8ISO8859P1", "café").as_deref(), Some("636166e9"));
        assert_eq!(enc("UTF8", "😀").as_deref(), Some("eda0bdedb880"));
        assert_eq!(enc("AL16UTF16", "😀").as_deref(), Some("d83dde00"));
        assert_eq!(enc("WE8MSWIN1252", "中"), None);
        assert_eq!(enc("ZHS16GBK", "😀"), None);
    }

    #[test]
    fn characters_a_set_lacks_are_stored_as_question_marks() {
        assert_eq!(stored(cs("WE8MSWIN1252"), "café 中文"), "café ??");
        assert_eq!(stored(cs("ZHS16GBK"), "中文 😀"), "中文 ?");
        assert_eq!(stored(cs("AL32UTF8"), "中文 😀"), "中文 😀");
        assert_eq!(byte_len(cs("ZHS16GBK"), "中文a"), 5);
    }

    #[test]
    fn representable_answers_what_encoding_answers() {
        for name in [
            "AL32UTF8",
            "UTF8",
            "WE8ISO8859P1",
            "US7ASCII",
            "ZHS16GBK",
            "WE8MSWIN1252",
            "AL16UTF16",
        ] {
            for text in ["plain", "café", "中文", "😀", "a€b", ""] {
                assert_eq!(
                    representable(cs(name), text),
                    encode(cs(name), text).is_some(),
                    "{name} {text:?}"
                );
            }
        }
    }
}
