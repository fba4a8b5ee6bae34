//! Peak memory of the transaction buffer holding one 1,000,000-row
//! uncommitted transaction (~300-byte INSERTs), with spill to disk on and
//! off, then committing it and streaming the events out.
//!
//! Each mode runs in a child process (this binary re-executed with
//! `child MODE`), so the peaks (VmHWM from /proc/self/status) do not mix.
//!
//! A third child measures throughput on OLTP-shaped redo (eight sessions
//! interleaving ten-row transactions, parsed at commit, serialised).
//!
//! Two more give the peak of one transaction writing a large CLOB in 4,000-
//! character LOB_WRITE rows (`--lob-pieces N`, default 25,000: 100 MB of
//! text), spilled, under `--lob placeholder` (only the value's length is
//! kept) and `--lob capture` (the value is the event's).
//!
//! The peaks are those of the binary's allocator, mimalloc, which gives
//! freed memory back to the system only after `MIMALLOC_PURGE_DELAY`
//! milliseconds (1,000 by default): rows just spilled, or a value's buffer
//! before it grew, still count for that long. `MIMALLOC_PURGE_DELAY=10`
//! shows the peaks without them.
//!
//! Run: `cargo bench --bench txn_memory` (`-- --rows N` to change the size).

use std::process::Command;
use std::time::Instant;

use cdcctl::engine::emit::SinkError;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::row::{LogMinerRow, OperationCode};
use cdcctl::engine::txn::{BufferConfig, LobMode, TxnBuffer};

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const XID: &str = "0A0014005D3C0000";

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Ends the benchmark on a buffer error.
fn failed(e: &dyn std::fmt::Display) -> ! {
    eprintln!("txn_memory: {e}");
    std::process::exit(1)
}

/// Events received and their JSON lines' bytes: what a consumer pays.
#[derive(Default)]
struct Tally {
    events: u64,
    json_bytes: u64,
}

impl Tally {
    fn sink(&mut self) -> impl FnMut(CapturedEvent) -> Result<(), SinkError> + '_ {
        |e| {
            self.events += 1;
            self.json_bytes += e.to_json_line().len() as u64 + 1;
            Ok(())
        }
    }

    fn json_mib(&self) -> f64 {
        self.json_bytes as f64 / 1048576.0
    }
}

fn rowid(n: u64) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let c = |v: u64| char::from(B64[(v % 64) as usize]);
    format!(
        "AAAR3sAAEAAA{}{}{}{}{}{}",
        c(n >> 30),
        c(n >> 24),
        c(n >> 18),
        c(n >> 12),
        c(n >> 6),
        c(n)
    )
}

/// A realistic INSERT row: ~300 bytes of SQL_REDO plus the usual columns.
fn insert_row(i: u64) -> LogMinerRow {
    let sql = format!(
        "insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"CUSTOMER_ID\",\"STATUS\",\"AMOUNT\",\"CURRENCY\",\
         \"ORDER_DATE\",\"NOTE\") values ('{}','{}','NEW','{}.{:02}','EUR',TO_DATE('2025-03-01 09:00:00', \
         'YYYY-MM-DD HH24:MI:SS'),'order {} for the benchmark, padded to a typical row of an order table');",
        1_000_000 + i,
        40_000 + i % 977,
        i % 1000,
        i % 100,
        i
    );
    LogMinerRow {
        scn: 1_000 + i,
        xid: XID.into(),
        operation_code: OperationCode::Insert,
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(i)),
        rs_id: Some(format!(" 0x000003.{:08x}.0010 ", i / 50)),
        ssn: 0,
        sql_redo: Some(sql),
        sequence: 3,
        ..LogMinerRow::default()
    }
}

fn child(mode: &str, rows: u64) {
    let spill_dir = std::env::temp_dir();
    let config = match mode {
        "spill" => BufferConfig {
            spill_txn_bytes: Some(32 << 20),
            spill_total_bytes: Some(64 << 20),
            spill_dir: Some(spill_dir),
            ..BufferConfig::default()
        },
        _ => BufferConfig {
            spill_txn_bytes: None,
            spill_total_bytes: None,
            ..BufferConfig::default()
        },
    };
    let baseline = vm_hwm_kib();
    let mut buf = TxnBuffer::new(config);
    let mut noop = |_| Ok(());
    let t0 = Instant::now();
    let start = LogMinerRow {
        scn: 999,
        xid: XID.into(),
        operation_code: OperationCode::Start,
        ..LogMinerRow::default()
    };
    let mut sql_bytes = 0u64;
    if let Err(e) = buf.push(start, &mut noop) {
        failed(&e)
    }
    for i in 0..rows {
        let r = insert_row(i);
        sql_bytes += r.sql_redo.as_ref().map_or(0, |s| s.len() as u64);
        if let Err(e) = buf.push(r, &mut noop) {
            failed(&e)
        }
    }
    let buffered_s = t0.elapsed().as_secs_f64();
    let hwm_buffered = vm_hwm_kib();
    let t1 = Instant::now();
    let mut tally = Tally::default();
    let commit = LogMinerRow {
        scn: 1_000 + rows,
        xid: XID.into(),
        operation_code: OperationCode::Commit,
        ..LogMinerRow::default()
    };
    let mut sink = tally.sink();
    if let Err(e) = buf.push(commit, &mut sink) {
        failed(&e)
    }
    let commit_s = t1.elapsed().as_secs_f64();
    let hwm_end = vm_hwm_kib();
    drop(sink);
    println!(
        "{mode} rows={rows} avg_sql_bytes={} baseline_mib={:.1} peak_buffered_mib={:.1} \
         peak_after_commit_mib={:.1} buffer_s={buffered_s:.2} commit_stream_s={commit_s:.2} \
         events={} json_mib={:.1} spilled_mib={:.1}",
        sql_bytes / rows.max(1),
        baseline as f64 / 1024.0,
        hwm_buffered as f64 / 1024.0,
        hwm_end as f64 / 1024.0,
        tally.events,
        tally.json_mib(),
        buf.stats().spilled_bytes as f64 / 1048576.0,
    );
}

/// One transaction: an INSERT with `EMPTY_CLOB()`, its locator, `pieces`
/// writes of 4,000 characters, COMMIT; spilled past 32 MiB.
fn lob(mode: &str, lob: LobMode, pieces: u64) {
    const ROWID: &str = "AAAR3sAAEAAAACGAAK";
    let row = |scn: u64, code, sql: String| LogMinerRow {
        scn,
        xid: XID.into(),
        operation_code: code,
        seg_owner: Some("APP".into()),
        table_name: Some("DOCS".into()),
        row_id: Some(ROWID.into()),
        sql_redo: Some(sql),
        ..LogMinerRow::default()
    };
    let opening = [
        row(
            1,
            OperationCode::Start,
            "set transaction read write;".into(),
        ),
        row(
            2,
            OperationCode::Insert,
            "insert into \"APP\".\"DOCS\"(\"ID\",\"BODY\") values ('1',EMPTY_CLOB());".into(),
        ),
        row(
            3,
            OperationCode::SelectLobLocator,
            format!(
                "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6156); \nBEGIN\n select \"BODY\" into \
                 loc_c from \"APP\".\"DOCS\" where \"ID\" = '1' and ROWID = '{ROWID}' for update;"
            ),
        ),
    ];
    let text = "it''s a piece of a large document. ".repeat(120);
    let text = &text[..4_000];
    let chars = text.replace("''", "'").chars().count() as u64;
    let baseline = vm_hwm_kib();
    let mut buf = TxnBuffer::new(BufferConfig {
        lob,
        spill_txn_bytes: Some(32 << 20),
        spill_total_bytes: Some(64 << 20),
        spill_dir: Some(std::env::temp_dir()),
        ..BufferConfig::default()
    });
    let mut tally = Tally::default();
    let mut sink = tally.sink();
    let writes = (0..pieces).map(|i| {
        let sql = format!(
            " buf_c := '{text}'; \n  dbms_lob.write(loc_c, {chars}, {}, buf_c);\nEND;",
            i * chars + 1
        );
        row(4 + i, OperationCode::LobWrite, sql)
    });
    let commit = row(4 + pieces, OperationCode::Commit, "commit;".into());
    let t0 = Instant::now();
    for r in opening.into_iter().chain(writes).chain([commit]) {
        if let Err(e) = buf.push(r, &mut sink) {
            failed(&e)
        }
    }
    drop(sink);
    println!(
        "{mode} pieces={pieces} lob_mib={:.1} baseline_mib={:.1} peak_mib={:.1} seconds={:.2} \
         events={} json_mib={:.1} spilled_mib={:.1}",
        (pieces * chars) as f64 / 1048576.0,
        baseline as f64 / 1024.0,
        vm_hwm_kib() as f64 / 1024.0,
        t0.elapsed().as_secs_f64(),
        tally.events,
        tally.json_mib(),
        buf.stats().spilled_bytes as f64 / 1048576.0,
    );
}

/// Throughput on OLTP-shaped redo: eight sessions interleaving ten-row
/// transactions, parsed at commit and serialised as envelopes.
fn oltp(rows: u64) {
    const SESSIONS: u64 = 8;
    const TXN_ROWS: u64 = 10;
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let mut tally = Tally::default();
    let mut sink = tally.sink();
    let mut txn_of = [0u64; SESSIONS as usize];
    let mut fill = [0u64; SESSIONS as usize];
    let mut next_txn = 0u64;
    for (s, t) in txn_of.iter_mut().enumerate() {
        *t = s as u64;
        next_txn += 1;
    }
    let t0 = Instant::now();
    let mut scn = 1_000u64;
    for i in 0..rows {
        let s = (i % SESSIONS) as usize;
        let xid = format!("{:016X}", txn_of[s]);
        scn += 1;
        let mut r = insert_row(i);
        r.scn = scn;
        r.xid = xid.clone();
        if let Err(e) = buf.push(r, &mut sink) {
            failed(&e)
        }
        fill[s] += 1;
        if fill[s] == TXN_ROWS {
            scn += 1;
            let commit = LogMinerRow {
                scn,
                xid,
                operation_code: OperationCode::Commit,
                ..LogMinerRow::default()
            };
            if let Err(e) = buf.push(commit, &mut sink) {
                failed(&e)
            }
            fill[s] = 0;
            txn_of[s] = next_txn;
            next_txn += 1;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    drop(sink);
    println!(
        "oltp rows={rows} sessions={SESSIONS} txn_rows={TXN_ROWS} events={} seconds={secs:.2} \
         rows_per_s={:.0} json_mib={:.1} peak_mib={:.1}",
        tally.events,
        rows as f64 / secs,
        tally.json_mib(),
        vm_hwm_kib() as f64 / 1024.0
    );
}

/// The number after `name` in the arguments, else `default`.
fn number_arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rows = number_arg(&args, "--rows", 1_000_000);
    let pieces = number_arg(&args, "--lob-pieces", 25_000);
    if args.get(1).map(String::as_str) == Some("child") {
        match args.get(2).map(String::as_str) {
            Some("oltp") => oltp(rows),
            Some(mode @ "lob-placeholder") => lob(mode, LobMode::Placeholder, pieces),
            Some(mode @ "lob-capture") => lob(mode, LobMode::Capture, pieces),
            mode => child(mode.unwrap_or("spill"), rows),
        }
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("txn_memory: cannot find the benchmark executable");
        std::process::exit(1)
    };
    println!("txn_memory: one uncommitted transaction of {rows} INSERT rows, then COMMIT");
    for mode in ["spill", "memory", "oltp", "lob-placeholder", "lob-capture"] {
        match Command::new(&exe)
            .args(["child", mode, "--rows", &rows.to_string()])
            .args(["--lob-pieces", &pieces.to_string()])
            .output()
        {
            Ok(out) => {
                print!("{}", String::from_utf8_lossy(&out.stdout));
                eprint!("{}", String::from_utf8_lossy(&out.stderr));
            }
            Err(e) => eprintln!("txn_memory: cannot run the {mode} child: {e}"),
        }
    }
}
