//! Oracle character sets: character data LogMiner printed as `HEXTORAW`
//! decoded to text with the column's character set (the database one for
//! CHAR/VARCHAR2/CLOB, the national one for NCHAR/NVARCHAR2/NCLOB).
//!
//! Decoding is strict: bytes that are not valid in the character set are an
//! error, never replacement characters, so the caller keeps the hex and says
//! why.

use std::collections::HashMap;

use encoding_rs::Encoding;

/// Why hex could not become text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CharsetError {
    #[error("`{0}` is not a character set cdcctl decodes")]
    Unknown(String),
    #[error("the hex has an odd number of digits or a non-hex character")]
    BadHex,
    #[error("the bytes are not valid {0}")]
    Invalid(String),
}

/// An Oracle character set cdcctl can decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// AL32UTF8: UTF-8.
    Utf8,
    /// UTF8: CESU-8 (a supplementary character is two 3-byte surrogates).
    Cesu8,
    /// WE8ISO8859P1: each byte is the code point of the same value.
    Latin1,
    /// US7ASCII.
    Ascii,
    /// Any other, through the WHATWG encoding of the same repertoire.
    Whatwg(&'static Encoding),
}

impl Charset {
    /// The character set named as `NLS_CHARACTERSET` /
    /// `NLS_NCHAR_CHARACTERSET` show it.
    pub fn from_oracle_name(name: &str) -> Result<Self, CharsetError> {
        use encoding_rs as e;
        let upper = name.trim().to_ascii_uppercase();
        Ok(match upper.as_str() {
            "AL32UTF8" => Charset::Utf8,
            "UTF8" => Charset::Cesu8,
            "WE8ISO8859P1" => Charset::Latin1,
            "US7ASCII" => Charset::Ascii,
            "AL16UTF16" => Charset::Whatwg(e::UTF_16BE),
            "AL16UTF16LE" => Charset::Whatwg(e::UTF_16LE),
            "ZHS16GBK" => Charset::Whatwg(e::GBK),
            "ZHS32GB18030" => Charset::Whatwg(e::GB18030),
            "ZHT16BIG5" | "ZHT16HKSCS" => Charset::Whatwg(e::BIG5),
            "JA16SJIS" | "JA16SJISTILDE" => Charset::Whatwg(e::SHIFT_JIS),
            "JA16EUC" | "JA16EUCTILDE" => Charset::Whatwg(e::EUC_JP),
            "KO16MSWIN949" | "KO16KSC5601" => Charset::Whatwg(e::EUC_KR),
            "WE8MSWIN1252" => Charset::Whatwg(e::WINDOWS_1252),
            "EE8MSWIN1250" => Charset::Whatwg(e::WINDOWS_1250),
            "CL8MSWIN1251" => Charset::Whatwg(e::WINDOWS_1251),
            "EL8MSWIN1253" => Charset::Whatwg(e::WINDOWS_1253),
            "TR8MSWIN1254" => Charset::Whatwg(e::WINDOWS_1254),
            "IW8MSWIN1255" => Charset::Whatwg(e::WINDOWS_1255),
            "AR8MSWIN1256" => Charset::Whatwg(e::WINDOWS_1256),
            "BLT8MSWIN1257" => Charset::Whatwg(e::WINDOWS_1257),
            "VN8MSWIN1258" => Charset::Whatwg(e::WINDOWS_1258),
            "WE8ISO8859P15" => Charset::Whatwg(e::ISO_8859_15),
            "EE8ISO8859P2" => Charset::Whatwg(e::ISO_8859_2),
            "CL8ISO8859P5" => Charset::Whatwg(e::ISO_8859_5),
            "CL8KOI8R" => Charset::Whatwg(e::KOI8_R),
            "TH8TISASCII" => Charset::Whatwg(e::WINDOWS_874),
            _ => return Err(CharsetError::Unknown(name.trim().to_string())),
        })
    }

    /// The text `hex` spells in this character set.
    pub fn decode_hex(self, hex: &str) -> Result<String, CharsetError> {
        let bytes = crate::engine::event::decode_hex(hex).ok_or(CharsetError::BadHex)?;
        self.decode(&bytes)
    }

    pub fn decode(self, bytes: &[u8]) -> Result<String, CharsetError> {
        match self {
            Charset::Utf8 => String::from_utf8(bytes.to_vec())
                .map_err(|_| CharsetError::Invalid("AL32UTF8".into())),
            Charset::Cesu8 => decode_cesu8(bytes).ok_or(CharsetError::Invalid("UTF8".into())),
            Charset::Latin1 => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
            Charset::Ascii if bytes.is_ascii() => {
                Ok(bytes.iter().map(|&b| char::from(b)).collect())
            }
            Charset::Ascii => Err(CharsetError::Invalid("US7ASCII".into())),
            Charset::Whatwg(enc) => enc
                .decode_without_bom_handling_and_without_replacement(bytes)
                .map(|c| c.into_owned())
                .ok_or_else(|| CharsetError::Invalid(enc.name().into())),
        }
    }
}

/// Which character set a column's bytes are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextColumn {
    /// CHAR, VARCHAR2, LONG, CLOB: the database character set.
    Database,
    /// NCHAR, NVARCHAR2, NCLOB: the national character set.
    National,
}

impl TextColumn {
    /// The class of an Oracle data type (`VARCHAR2(100)`, `NCHAR`), or
    /// `None` when its bytes are not text (RAW, BLOB, numbers, ...).
    pub fn of_data_type(data_type: &str) -> Option<Self> {
        let base = data_type
            .split(['(', ' '])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        match base.as_str() {
            "CHAR" | "VARCHAR2" | "VARCHAR" | "LONG" | "CLOB" => Some(TextColumn::Database),
            "NCHAR" | "NVARCHAR2" | "NCLOB" => Some(TextColumn::National),
            _ => None,
        }
    }
}

/// What the engine needs of the data dictionary to turn character data
/// LogMiner printed as `HEXTORAW` into text: the two character sets and
/// the character columns of each table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharsetDictionary {
    pub database: Charset,
    pub national: Charset,
    tables: HashMap<(String, String), HashMap<String, TextColumn>>,
    /// Columns of tables it does not know are character data in the
    /// database character set (the user said so), not unknown.
    unknown_as_text: bool,
}

impl CharsetDictionary {
    pub fn new(database: Charset, national: Charset) -> Self {
        Self {
            database,
            national,
            tables: HashMap::new(),
            unknown_as_text: false,
        }
    }

    /// Takes every column of a table it does not know for character data
    /// in the database character set: for statements whose `HEXTORAW`
    /// values are known to be text, without a dictionary (a RAW column
    /// prints the same way, so only the user can say).
    #[must_use]
    pub fn unknown_tables_as_text(mut self) -> Self {
        self.unknown_as_text = true;
        self
    }

    /// Records a column with its Oracle data type; a table is known once
    /// any of its columns was added.
    pub fn add_column(&mut self, owner: &str, table: &str, column: &str, data_type: &str) {
        let cols = self
            .tables
            .entry((owner.to_string(), table.to_string()))
            .or_default();
        if let Some(class) = TextColumn::of_data_type(data_type) {
            cols.insert(column.to_string(), class);
        }
    }

    /// `None` when the table is unknown; `Some(None)` for a column whose
    /// bytes are not text.
    pub fn column(&self, owner: &str, table: &str, column: &str) -> Option<Option<TextColumn>> {
        match self.tables.get(&(owner.to_string(), table.to_string())) {
            Some(cols) => Some(cols.get(column).copied()),
            None if self.unknown_as_text => Some(Some(TextColumn::Database)),
            None => None,
        }
    }

    pub fn charset(&self, class: TextColumn) -> Charset {
        match class {
            TextColumn::Database => self.database,
            TextColumn::National => self.national,
        }
    }
}

/// CESU-8: UTF-8 except that a character above U+FFFF is its UTF-16
/// surrogate pair, each half encoded as a 3-byte sequence.
fn decode_cesu8(bytes: &[u8]) -> Option<String> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let surrogate = |at: usize, lo: u8, hi: u8| -> Option<u32> {
            match bytes.get(at..at + 3)? {
                [0xED, b2, b3] if (lo..=hi).contains(b2) && (0x80..=0xBF).contains(b3) => {
                    Some(0xD000 | (u32::from(*b2 & 0x3F) << 6) | u32::from(*b3 & 0x3F))
                }
                _ => None,
            }
        };
        if let Some(high) = surrogate(i, 0xA0, 0xAF) {
            let low = surrogate(i + 3, 0xB0, 0xBF)?;
            out.push(char::from_u32(
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00),
            )?);
            i += 6;
            continue;
        }
        // The next character, or its ill-formed first byte.
        let len = match bytes[i] {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return None,
        };
        out.push_str(std::str::from_utf8(bytes.get(i..i + len)?).ok()?);
        i += len;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(charset: &str, hex: &str) -> Result<String, CharsetError> {
        Charset::from_oracle_name(charset)?.decode_hex(hex)
    }

    #[test]
    fn character_sets_decode_the_bytes_oracle_stores() {
        // "中文" in each multi-byte set; "café" in the single-byte ones.
        assert_eq!(decode("AL32UTF8", "e4b8ade69687").as_deref(), Ok("中文"));
        assert_eq!(decode("UTF8", "e4b8ade69687").as_deref(), Ok("中文"));
        assert_eq!(decode("AL16UTF16", "4e2d6587").as_deref(), Ok("中文"));
        assert_eq!(decode("ZHS16GBK", "D6D0CEC4").as_deref(), Ok("中文"));
        assert_eq!(decode("WE8MSWIN1252", "636166e9").as_deref(), Ok("café"));
        assert_eq!(decode("WE8ISO8859P1", "636166e9").as_deref(), Ok("café"));
        assert_eq!(decode("we8mswin1252", "80").as_deref(), Ok("€"));
    }

    #[test]
    fn iso_8859_1_keeps_c1_controls_where_windows_1252_has_letters() {
        assert_eq!(decode("WE8ISO8859P1", "80").as_deref(), Ok("\u{80}"));
    }

    #[test]
    fn supplementary_characters_in_each_unicode_form() {
        // U+1F600: 4 bytes in AL32UTF8, two 3-byte surrogates in UTF8
        // (CESU-8), a surrogate pair in AL16UTF16.
        assert_eq!(decode("AL32UTF8", "f09f9880").as_deref(), Ok("😀"));
        assert_eq!(decode("UTF8", "eda0bdedb880").as_deref(), Ok("😀"));
        assert_eq!(decode("AL16UTF16", "d83dde00").as_deref(), Ok("😀"));
    }

    #[test]
    fn invalid_bytes_and_unknown_sets_are_errors_never_replacement_characters() {
        assert_eq!(
            decode("AL32UTF8", "ff"),
            Err(CharsetError::Invalid("AL32UTF8".into()))
        );
        assert!(decode("UTF8", "eda0bd41").is_err());
        assert!(decode("AL16UTF16", "4e").is_err());
        assert!(decode("AL16UTF16", "d83d0041").is_err());
        assert!(decode("US7ASCII", "e9").is_err());
        assert_eq!(decode("AL32UTF8", "4"), Err(CharsetError::BadHex));
        assert_eq!(decode("AL32UTF8", "zz"), Err(CharsetError::BadHex));
        assert!(matches!(
            decode("XX8NOSUCH", "41"),
            Err(CharsetError::Unknown(_))
        ));
    }
}
