//! Any bytes as a V$LOGMNR_CONTENTS CSV, through the reader, the CSF
//! assembler and the parser: typed errors only, never a panic.
//! Run: `cargo +nightly fuzz run -s none contents_csv -- -dict=fuzz/sql_redo.dict` from
//! the crate root (seed: fuzz/seeds/contents_csv, rows `sim contents` prints
//! for the redo-forms scenario).
#![no_main]

use cdcctl::engine::contents_csv::{ContentsReader, REQUIRED_FOR_PARSE};
use cdcctl::engine::redo::csf::{CsfAssembler, CsfError};
use cdcctl::engine::redo::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = ContentsReader::new(data, REQUIRED_FOR_PARSE) else {
        return;
    };
    let mut csf = CsfAssembler::new();
    for row in reader {
        let Ok(row) = row else {
            continue;
        };
        let mut next = Some(row);
        while let Some(row) = next.take() {
            match csf.push(row) {
                Ok(Some(logical)) => {
                    if let Some(sql) = logical.sql_redo.as_deref() {
                        let _ = parse(sql);
                    }
                }
                Ok(None) => {}
                Err(CsfError::Interleaved { row, .. }) => next = Some(*row),
                Err(CsfError::Truncated { .. }) => {}
            }
        }
    }
    let _ = csf.finish();
});
