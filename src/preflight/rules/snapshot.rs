//! Snapshot and undo rules: undo retention against the estimated snapshot
//! time, open transactions against the logs, the AS OF SCN probe.

use super::{gib, need};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};
use crate::preflight::remedy;
use crate::source::{SessionTransaction, TransactionSession};

/// Seconds a snapshot of `bytes` takes at `rate_mbps` MB/s, capped at a
/// century so that a tiny rate still yields a date chrono can represent.
pub fn snapshot_seconds(bytes: u64, rate_mbps: f64) -> f64 {
    const CENTURY_S: f64 = 100.0 * 365.25 * 86_400.0;
    if rate_mbps <= 0.0 {
        return f64::INFINITY;
    }
    (bytes as f64 / (rate_mbps * 1024.0 * 1024.0)).min(CENTURY_S)
}

pub fn undo_vs_snapshot(f: &Facts, d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let sized: Vec<u64> = tables.iter().filter_map(|t| t.segment_bytes).collect();
    if sized.is_empty() {
        return Outcome::skip("no segment size is known for the in-scope tables (DBA_SEGMENTS)");
    }
    let bytes: u64 = sized.iter().sum();
    let rate = f.options.snapshot_rate_mbps;
    let est = snapshot_seconds(bytes, rate);
    let param = i
        .parameter("undo_retention")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let Some(retention) = i.undo.tuned_undoretention_s.or(param) else {
        return Outcome::skip("neither V$UNDOSTAT.TUNED_UNDORETENTION nor undo_retention was read");
    };
    let ratio = d.threshold("warn_ratio", 2.0);
    let floor = d.threshold("min_retention_s", 900.0);
    let mut t = Tally::default();
    t.note(format!(
        "{} in {} table(s) at {rate} MB/s: about {:.0} s (--snapshot-rate-mbps)",
        gib(bytes),
        sized.len(),
        est
    ));
    t.note(format!(
        "undo retention {retention} s (tuned {}, undo_retention {}), guarantee {}, autoextend {}",
        i.undo
            .tuned_undoretention_s
            .map(|v| format!("{v} s"))
            .unwrap_or_else(|| "unknown".into()),
        param
            .map(|v| format!("{v} s"))
            .unwrap_or_else(|| "unknown".into()),
        i.undo.retention_guarantee,
        i.undo.autoextensible
    ));
    for line in per_table_estimates(tables, rate) {
        t.note(line);
    }
    let reader = snapshot_reader(f);
    let (statement, chunk_s) = chunk_statement(&reader, tables, rate, retention);
    t.note(statement);
    // What must fit in undo: one chunk's read for a chunked reader whose
    // chunk size is known, else the whole snapshot.
    let (est, what) = match chunk_s {
        Some(c) => (c, "the largest snapshot chunk"),
        None => (est, "the snapshot"),
    };
    let est_r = est.ceil() as u64;
    if est > retention as f64 * ratio {
        if i.undo.retention_guarantee || i.undo.autoextensible {
            t.warn(format!(
                "{what} (~{est_r} s) outlasts undo retention ({retention} s) more than {ratio}x; undo can grow, but watch for ORA-30036"
            ));
        } else {
            t.fail(format!(
                "{what} (~{est_r} s) outlasts undo retention ({retention} s) and undo neither guarantees retention nor autoextends: ORA-01555"
            ));
        }
    } else if est > retention as f64 {
        t.warn(format!(
            "{what} (~{est_r} s) is longer than undo retention ({retention} s): ORA-01555 is likely"
        ));
    }
    if (retention as f64) < floor && !i.undo.retention_guarantee {
        t.warn(format!(
            "undo retention is {retention} s, below {floor} s: any snapshot read or chunk query longer than that risks ORA-01555"
        ));
    }
    // ORA-01555 already happened: a long snapshot read will meet it too.
    let max_01555 = d.threshold("max_ora01555", 0.0);
    if i.undo.snapshot_too_old_errors as f64 > max_01555 {
        t.fail(format!(
            "V$UNDOSTAT recorded {} ORA-01555 (snapshot too old) recently: queries already outlive undo",
            i.undo.snapshot_too_old_errors
        ));
    }
    if i.undo.no_space_errors > 0 {
        t.warn(format!(
            "V$UNDOSTAT recorded {} no-space error(s) recently",
            i.undo.no_space_errors
        ));
    }
    let alternative = match &reader {
        SnapshotReader::Whole { .. } => {
            "or a chunked snapshot (Flink CDC's incremental snapshot, cdcctl run): only a chunk must fit".to_string()
        }
        SnapshotReader::Chunks { by, .. } => format!("or smaller chunks: {by}"),
    };
    // Retention that outlasts the estimated snapshot with room to spare.
    let mut wanted = ((est * 1.5).ceil() as u64).max(floor as u64).max(retention);
    let mut why = format!("1.5x the ~{est_r} s of {what}, at least {floor} s");
    // Queries already outlive undo: the estimate is not the whole story
    // (other long queries, undo stolen under pressure).
    if i.undo.snapshot_too_old_errors > 0 && wanted < retention.saturating_mul(2) {
        wanted = retention.saturating_mul(2);
        why = format!("ORA-01555 is already recorded at {retention} s: at least double it");
    }
    let undo_ts = i
        .undo
        .tablespace
        .as_deref()
        .map(remedy::sql_ident)
        .unwrap_or_else(|| "UNDOTBS1".into());
    t.finish(format!(
        "{what} (~{est_r} s) fits in undo retention ({retention} s)"
    ))
    .fix(format!(
        "ALTER SYSTEM SET undo_retention = {wanted};  -- {why}\n\
         ALTER TABLESPACE {undo_ts} RETENTION GUARANTEE;\n\
         -- {alternative}"
    ))
}

/// Tables listed one by one in the estimate; the rest are summed up.
const TABLES_LISTED: usize = 8;

/// One line per table, largest first: its size and its share of the time.
fn per_table_estimates(tables: &[crate::source::TableFacts], rate: f64) -> Vec<String> {
    let mut sized: Vec<(&crate::source::TableFacts, u64)> = tables
        .iter()
        .filter_map(|t| Some((t, t.segment_bytes?)))
        .collect();
    sized.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    let mut lines: Vec<String> = sized
        .iter()
        .take(TABLES_LISTED)
        .map(|(t, bytes)| {
            let rows = t
                .num_rows
                .map(|n| format!(", {n} rows"))
                .unwrap_or_default();
            format!(
                "{}: {}{rows}, {} to read",
                t.name,
                gib(*bytes),
                seconds_text(snapshot_seconds(*bytes, rate))
            )
        })
        .collect();
    if sized.len() > TABLES_LISTED {
        let rest: u64 = sized[TABLES_LISTED..].iter().map(|(_, b)| b).sum();
        lines.push(format!(
            "{} more table(s): {}, {} to read",
            sized.len() - TABLES_LISTED,
            gib(rest),
            seconds_text(snapshot_seconds(rest, rate))
        ));
    }
    lines
}

fn seconds_text(s: f64) -> String {
    if s < 1.0 {
        return "under a second".into();
    }
    match s.ceil() as u64 {
        n if n < 120 => format!("about {n} s"),
        n if n < 7_200 => format!("about {} min", n.div_ceil(60)),
        n => format!("about {:.1} h", n as f64 / 3_600.0),
    }
}

/// How the snapshot that preflight checks for reads a table.
#[derive(Debug, Clone, PartialEq)]
enum SnapshotReader {
    /// In chunks of this many rows, each its own read: `cdcctl run`, or
    /// Flink CDC's incremental snapshot.
    Chunks {
        rows: u64,
        by: &'static str,
        each: &'static str,
    },
    /// Every table at one SCN, one read per table: Debezium's initial
    /// snapshot, Flink CDC with the incremental snapshot turned off.
    Whole { by: &'static str },
}

fn snapshot_reader(f: &Facts) -> SnapshotReader {
    let Some(c) = f.config.as_ref() else {
        return SnapshotReader::Chunks {
            rows: f.options.snapshot_chunk_rows,
            by: "cdcctl run (--snapshot-chunk-rows)",
            each: "each at its own SCN",
        };
    };
    if !c.format.is_flink() {
        return SnapshotReader::Whole {
            by: "Debezium's initial snapshot",
        };
    }
    if c.flag(&["scan.incremental.snapshot.enabled"]) == Some(false) {
        return SnapshotReader::Whole {
            by: "Flink CDC with scan.incremental.snapshot.enabled = false",
        };
    }
    // A size below one row is no chunking Flink would do: its default.
    let size = c.flink_chunk_rows();
    let rows = if size >= 1.0 {
        size as u64
    } else {
        crate::preflight::config::FLINK_CHUNK_ROWS_DEFAULT as u64
    };
    SnapshotReader::Chunks {
        rows,
        by: "Flink CDC's incremental snapshot (scan.incremental.snapshot.chunk.size)",
        each: "each a query of its own",
    }
}

/// Whether the whole table or one chunk of it must fit in undo retention,
/// and whether the largest chunk does; the largest chunk's seconds when the
/// reader is chunked and row sizes are known.
fn chunk_statement(
    reader: &SnapshotReader,
    tables: &[crate::source::TableFacts],
    rate: f64,
    retention: u64,
) -> (String, Option<f64>) {
    let (rows, by, each) = match reader {
        SnapshotReader::Whole { by } => {
            return (
                format!(
                    "{by} reads each table whole at one SCN: the whole snapshot, not a chunk, must fit in undo retention"
                ),
                None,
            )
        }
        SnapshotReader::Chunks { rows, by, each } => (*rows, by, each),
    };
    // The widest rows make the longest chunk; a table smaller than a chunk
    // is read in one.
    let largest = tables
        .iter()
        .filter_map(|t| {
            let bytes = t.segment_bytes?;
            let n = t.num_rows.filter(|n| *n > 0)?;
            Some((t, bytes / n * n.min(rows)))
        })
        .max_by_key(|(_, chunk)| *chunk);
    let head = format!(
        "{by} reads chunks of {rows} rows, {each}: only a chunk must fit in undo retention ({retention} s), not the whole table"
    );
    let Some((t, chunk)) = largest else {
        return (
            format!(
                "{head}; row sizes are unknown (no NUM_ROWS), so the whole snapshot is weighed"
            ),
            None,
        );
    };
    let secs = snapshot_seconds(chunk, rate);
    let verdict = if secs <= retention as f64 {
        "it does"
    } else {
        "it does not: make the chunks smaller"
    };
    (
        format!(
            "{head}; the largest chunk ({}, ~{}) takes {}: {verdict}",
            t.name,
            gib(chunk),
            seconds_text(secs)
        ),
        Some(secs),
    )
}

pub fn long_txn(f: &Facts, d: &CheckDef) -> Outcome {
    let txns = need!(f, transactions, "transactions");
    let Some(oldest) = txns.iter().min_by_key(|t| t.transaction.start_scn) else {
        return Outcome::pass("no open transaction");
    };
    let o = &oldest.transaction;
    let mut t = Tally::default();
    let now = f.now();
    t.note(format!(
        "oldest open transaction {} started at SCN {}{} by {}{}",
        o.xid,
        o.start_scn,
        o.start_time.map(|s| format!(" ({s})")).unwrap_or_default(),
        o.username.clone().unwrap_or_else(|| "?".into()),
        oldest
            .session
            .as_ref()
            .map(|s| format!(" ({})", session_text(s)))
            .unwrap_or_default(),
    ));
    let warn_min = d.threshold("warn_minutes", 5.0);
    let minutes_open = |st: &SessionTransaction| {
        st.transaction
            .start_time
            .map(|start| (now - start).num_seconds() as f64 / 60.0)
    };
    if let Some(minutes) = minutes_open(oldest).filter(|m| *m > warn_min) {
        t.warn(format!(
            "transaction {} has been open {minutes:.0} min: the restart SCN cannot pass its START_SCN {}, so the logs from there on must be kept",
            o.xid, o.start_scn
        ));
    }
    let first_log = f.inventory.as_ref().and_then(|inv| {
        inv.archived
            .iter()
            .filter(|a| a.is_available())
            .map(|a| a.first_change)
            .chain(inv.online.iter().map(|o| o.first_change))
            .min()
    });
    if let Some(first) = first_log.filter(|first| o.start_scn < *first) {
        t.fail(format!(
            "transaction {} started at SCN {}, before the oldest available log (SCN {first}): its first changes cannot be mined (ORA-01291)",
            o.xid, o.start_scn
        ));
    }
    let outcome = t.finish(format!("{} open transaction(s), none old", txns.len()));
    // The transactions that hold capture back: open too long, or begun
    // before the oldest log. The oldest always is one when the check fires.
    let holding: Vec<&SessionTransaction> = txns
        .iter()
        .filter(|st| {
            std::ptr::eq(*st, oldest)
                || minutes_open(st).is_some_and(|m| m > warn_min)
                || first_log.is_some_and(|first| st.transaction.start_scn < first)
        })
        .collect();
    outcome.fix(kill_statements(&holding, cluster(f), minutes_open))
}

/// Whether the database is a cluster, where a session is killed on its
/// instance (`'SID,SERIAL#,@INST_ID'`). Unknown instance facts leave it to
/// whether the source named an instance at all.
fn cluster(f: &Facts) -> Option<bool> {
    let i = f.instance.as_ref()?;
    i.parameter("cluster_database")
        .map(|v| v.eq_ignore_ascii_case("TRUE"))
}

/// `user, program on machine, SID n`: who holds a transaction.
fn session_text(s: &TransactionSession) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &s.program {
        parts.push(match &s.machine {
            Some(m) => format!("{p} on {m}"),
            None => p.clone(),
        });
    }
    if let Some(sid) = s.sid {
        parts.push(format!("SID {sid}"));
    }
    if let Some(i) = s.inst_id {
        parts.push(format!("instance {i}"));
    }
    parts.join(", ")
}

/// The statement per holding transaction: kill its session when the facts
/// name it, else the query that finds the session.
fn kill_statements(
    holding: &[&SessionTransaction],
    cluster: Option<bool>,
    minutes_open: impl Fn(&SessionTransaction) -> Option<f64>,
) -> String {
    const SHOWN: usize = 5;
    let mut out = vec![
        "-- if the application that holds it cannot commit or roll back (it is abandoned), kill its session:".to_string(),
    ];
    for st in holding.iter().take(SHOWN) {
        let x = &st.transaction;
        let age = minutes_open(st)
            .map(|m| format!(", open {m:.0} min"))
            .unwrap_or_default();
        let who = x.username.as_deref().map(remedy::sql_ident);
        let session = st
            .session
            .as_ref()
            .and_then(|s| Some((s, s.sid?, s.serial?)));
        match session {
            Some((s, sid, serial)) => {
                let inst = match (s.inst_id, cluster) {
                    (Some(i), Some(true) | None) => format!(",@{i}"),
                    _ => String::new(),
                };
                let mut comment = format!("XID {}, START_SCN {}{age}", x.xid, x.start_scn);
                if let Some(u) = &who {
                    comment.push_str(&format!(", user {u}"));
                }
                // The statement names the SID and instance already.
                if let Some(p) = &s.program {
                    comment.push_str(&format!(", {p}"));
                    if let Some(m) = &s.machine {
                        comment.push_str(&format!(" on {m}"));
                    }
                }
                out.push(format!(
                    "ALTER SYSTEM KILL SESSION '{sid},{serial}{inst}';  -- {comment}"
                ));
            }
            None => out.push(format!(
                "-- XID {}{age}: its session was not read; find it with\n\
                 SELECT s.inst_id, s.sid, s.serial#, s.username, s.program, s.machine FROM gv$session s \
                 JOIN gv$transaction t ON t.inst_id = s.inst_id AND t.ses_addr = s.saddr WHERE t.xid = HEXTORAW('{}');",
                x.xid,
                x.xid.replace('\'', "''")
            )),
        }
    }
    if holding.len() > SHOWN {
        out.push(format!(
            "-- and {} more transaction(s) like these",
            holding.len() - SHOWN
        ));
    }
    out.join("\n")
}

pub fn flashback_probe(f: &Facts, _d: &CheckDef) -> Outcome {
    let tables = need!(f, tables, "tables");
    if tables.is_empty() {
        return Outcome::skip("no table in scope");
    }
    let mut t = Tally::default();
    let mut ungranted = Vec::new();
    for tab in tables {
        match tab.flashback_probe_error {
            None => {}
            Some(1031) => {
                ungranted.push(&tab.name);
                t.fail(format!("{}: AS OF SCN read fails with ORA-01031", tab.name))
            }
            Some(code @ (8180 | 8181)) => t.fail(format!(
                "{}: AS OF SCN read fails with ORA-{code:05}",
                tab.name
            )),
            Some(1466) => t.warn(format!(
                "{}: ORA-01466, the table definition changed recently",
                tab.name
            )),
            Some(code) => t.warn(format!(
                "{}: AS OF SCN read fails with ORA-{code:05}",
                tab.name
            )),
        }
    }
    let outcome = t.finish(format!("AS OF SCN reads work on {} table(s)", tables.len()));
    if ungranted.is_empty() {
        return outcome;
    }
    outcome.fix(
        remedy::per_table("GRANT FLASHBACK ON owner.table TO c##dbzuser;", ungranted)
            + "\n-- and for ORA-01466: wait for the DDL to settle",
    )
}
