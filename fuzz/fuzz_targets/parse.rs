//! Any text through the SQL_REDO parser, strict and with relaxed quotes: it
//! must return a statement or a typed error whose position lies inside the
//! input, never panic; a statement only the relaxed reading accepts must say
//! which values it recovered. A statement that parses also goes through the
//! engine's HEXTORAW decoding of character columns, in character sets the
//! input's length picks (never a panic); without a dictionary that decoding
//! leaves the images as they are.
//! Run: `cargo +nightly fuzz run -s none parse -- -dict=fuzz/sql_redo.dict`
//! from the crate root (seed statements: fuzz/seeds/parse).
#![no_main]

use cdcctl::engine::charset::{Charset, CharsetDictionary};
use cdcctl::engine::finding::Finding;
use cdcctl::engine::redo::{parse, parse_with, ParseOptions};
use libfuzzer_sys::fuzz_target;

/// The character sets a database or national character set may be in.
const CHARSETS: [&str; 7] = [
    "AL32UTF8",
    "UTF8",
    "AL16UTF16",
    "ZHS16GBK",
    "WE8MSWIN1252",
    "WE8ISO8859P1",
    "US7ASCII",
];

/// A dictionary for the dictionary tokens' table `"S"."T"`: `"C"` and `"K"`
/// character columns, `"N"` national, `"R"` RAW.
fn dictionary(pick: usize) -> Option<CharsetDictionary> {
    let cs = |i: usize| Charset::from_oracle_name(CHARSETS[i % CHARSETS.len()]).ok();
    let mut d = CharsetDictionary::new(cs(pick)?, cs(pick / CHARSETS.len())?);
    for (column, data_type) in [
        ("C", "VARCHAR2(4000)"),
        ("K", "CHAR(10)"),
        ("N", "NVARCHAR2(100)"),
        ("R", "RAW(16)"),
    ] {
        d.add_column("S", "T", column, data_type);
    }
    Some(d)
}

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    let strict = parse(sql);
    match &strict {
        Ok(stmt) => {
            let _ = (stmt.before_image(), stmt.after_image(), stmt.findings());
            let mut decoded = stmt.clone();
            decoded.decode_character_hex(dictionary(sql.len()).as_ref());
            let _ = (decoded.before_image(), decoded.after_image());
            let mut bare = stmt.clone();
            bare.decode_character_hex(None);
            assert_eq!(bare.after_image(), stmt.after_image());
        }
        Err(e) => assert!(e.position <= sql.len() && e.raw == sql),
    }
    let relaxed = parse_with(
        sql,
        ParseOptions {
            relaxed_quotes: true,
        },
    );
    match (&strict, &relaxed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Ok(_), Err(e)) => panic!("relaxed rejects what strict accepts: {e}"),
        (Err(_), Ok(stmt)) => {
            let _ = (stmt.before_image(), stmt.after_image());
            assert!(
                stmt.findings()
                    .iter()
                    .any(|f| matches!(f, Finding::UnescapedQuote { .. })),
                "recovered without a finding: {sql}"
            );
        }
        (Err(_), Err(e)) => assert!(e.position <= sql.len() && e.raw == sql),
    }
});
