//! Any text through the SQL_REDO parser: it must return a statement or a
//! typed error whose position lies inside the input, never panic.
//! Run: `cargo +nightly fuzz run parse` from the crate root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    match cdcctl::engine::redo::parse(sql) {
        Ok(stmt) => {
            let _ = (stmt.before_image(), stmt.after_image(), stmt.findings());
        }
        Err(e) => assert!(e.position <= sql.len() && e.raw == sql),
    }
});
