//! LOB, XML and 32K rows: any text through the piece parser, and any run of
//! DML and piece rows through the transaction buffer with `--lob capture`.
//! Typed errors only, never a panic; an error's position lies in its input.
//! Input: rows separated by NUL bytes, each a code selector byte then its
//! SQL_REDO. Run: `cargo +nightly fuzz run -s none lob_pieces -- -dict=fuzz/sql_redo.dict`
//! from the crate root (seeds: fuzz/seeds/lob_pieces).
#![no_main]

use cdcctl::engine::redo::lob::parse_piece;
use cdcctl::engine::row::{LogMinerRow, OperationCode};
use cdcctl::engine::txn::{BufferConfig, LobMode, OnParseError, TxnBuffer};
use libfuzzer_sys::fuzz_target;

const CODES: [u16; 13] = [1, 2, 3, 9, 10, 11, 29, 68, 70, 71, 91, 92, 93];

fuzz_target!(|data: &[u8]| {
    let mut buf = TxnBuffer::new(BufferConfig {
        lob: LobMode::Capture,
        on_parse_error: OnParseError::Warn,
        spill_txn_bytes: None,
        spill_total_bytes: None,
        ..BufferConfig::default()
    });
    let mut sink = |_| Ok(());
    let mut scn = 1;
    for chunk in data.split(|&b| b == 0) {
        let Some((&sel, rest)) = chunk.split_first() else {
            continue;
        };
        let Ok(sql) = std::str::from_utf8(rest) else {
            continue;
        };
        let code = CODES[usize::from(sel) % CODES.len()];
        if code > 3 {
            if let Err(e) = parse_piece(code, sql) {
                assert!(e.position <= sql.len() && e.raw == sql);
            }
        }
        scn += 1;
        let row = LogMinerRow {
            scn,
            xid: "0A0014005D3C0000".into(),
            operation_code: OperationCode::from_code(code),
            rollback: sel & 0x80 != 0 && code <= 3,
            row_id: Some("AAAR3sAAEAAAACXAAA".into()),
            sql_redo: Some(sql.to_string()),
            ..LogMinerRow::default()
        };
        if buf.push(row, &mut sink).is_err() {
            return;
        }
    }
    let commit = LogMinerRow {
        scn: scn + 1,
        xid: "0A0014005D3C0000".into(),
        operation_code: OperationCode::Commit,
        ..LogMinerRow::default()
    };
    let _ = buf.push(commit, &mut sink);
});
