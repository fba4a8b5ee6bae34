//! Any text through the SQL_REDO parser, strict and with relaxed quotes: it
//! must return a statement or a typed error whose position lies inside the
//! input, never panic; a statement only the relaxed reading accepts must say
//! which values it recovered.
//! Run: `cargo +nightly fuzz run parse -- -dict=fuzz/sql_redo.dict` from the
//! crate root (seed statements: fuzz/seeds/parse).
#![no_main]

use cdcctl::engine::finding::Finding;
use cdcctl::engine::redo::{parse, parse_with, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    let strict = parse(sql);
    match &strict {
        Ok(stmt) => {
            let _ = (stmt.before_image(), stmt.after_image(), stmt.findings());
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
