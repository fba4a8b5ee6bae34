//! A synthetic engine feed: realistic [`EngineMessage`]s (order-entry
//! changes, statuses with lag and open transactions, findings, source errors)
//! without a database. Tests build screens from it; `tail --synthetic-feed`
//! draws it to check a terminal. Nothing here pretends to be captured data:
//! the header names the feed.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread;
use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime};

use crate::engine::event::{
    CapturedEvent, ChangeEvent, DdlEvent, Field, FieldRef, Image, Op, SnapshotMark, SourcePosition,
};
use crate::engine::finding::Finding;
use crate::engine::metrics::{
    CaptureStatus, EngineMessage, MinedLog, MiningState, OpCounts, OpenTxnSummary,
};
use crate::engine::row::{format_xid, Scn};

use super::app::HeaderInfo;

/// First SCN of the feed.
pub const BASE_SCN: Scn = 10_041_200;

/// Wall time of the feed's first second (2026-03-01 09:00:00).
pub fn base_time() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .unwrap_or_default()
}

fn base_ms() -> i64 {
    base_time().and_utc().timestamp_millis()
}

/// The header of a PDB on 19c mined by a common user.
pub fn demo_header() -> HeaderInfo {
    let mut key_columns = std::collections::BTreeMap::new();
    key_columns.insert("APP.ORDERS".to_string(), vec!["ORDER_ID".to_string()]);
    key_columns.insert(
        "APP.ORDER_LINES".to_string(),
        vec!["ORDER_ID".to_string(), "LINE_NO".to_string()],
    );
    HeaderInfo {
        source: "synthetic feed".into(),
        version: "Oracle 19.21.0.0.0".into(),
        container: "ORCLPDB1".into(),
        user: "C##CDC".into(),
        tables: "APP.ORDERS,APP.ORDER_LINES".into(),
        key_columns,
        simulator: None,
        db_transactions: demo_db_transactions(),
        db_transactions_at: Some(base_time() + chrono::Duration::seconds(60)),
        db_transactions_error: None,
    }
}

/// What V$TRANSACTION joined to V$SESSION lists at the feed's start: the
/// two transactions the status also shows, and one of another user that
/// touches no followed table.
fn demo_db_transactions() -> Vec<crate::source::SessionTransaction> {
    let t = |xid: String, start_scn: Scn, secs: i64, urec: u64, who: (&str, &str, &str, u64)| {
        let (user, program, machine, sid) = who;
        crate::source::SessionTransaction {
            transaction: crate::source::OpenTransaction {
                xid,
                start_scn,
                start_time: Some(base_time() + chrono::Duration::seconds(secs)),
                used_urec: urec,
                username: Some(user.into()),
                con_name: Some("ORCLPDB1".into()),
            },
            session: Some(crate::source::TransactionSession {
                sid: Some(sid),
                serial: Some(sid * 7 + 3),
                username: Some(user.into()),
                program: Some(program.into()),
                machine: Some(machine.into()),
                inst_id: None,
            }),
        }
    };
    vec![
        t(
            format_xid(0x0003, 0x0005, 0x0F01),
            BASE_SCN - 4_000,
            -3_600,
            88,
            ("BATCH", "sqlplus@ops-jump01 (TNS V1-V3)", "ops-jump01", 212),
        ),
        t(
            format_xid(0x0007, 0x0011, 0x2B10),
            BASE_SCN - 117,
            15,
            14,
            ("APP", "JDBC Thin Client", "app01.example.com", 388),
        ),
        t(
            format_xid(0x0004, 0x0002, 0x19A7),
            BASE_SCN + 40,
            52,
            1_350,
            ("APP", "JDBC Thin Client", "app02.example.com", 1_047),
        ),
    ]
}

fn t(s: &str) -> Field {
    Field::text(s)
}

fn position(i: u64, table: &str) -> SourcePosition {
    let scn = BASE_SCN + i * 3;
    SourcePosition {
        name: "cdcctl".into(),
        db: "ORCLPDB1".into(),
        schema: "APP".into(),
        table: table.into(),
        xid: format_xid(0x000A, (i % 20) as u16, 0x3C5D + (i / 3) as u32),
        scn,
        commit_scn: scn + 2,
        change_ts_ms: base_ms() + (i as i64) * 250,
        rs_id: Some(format!(
            " 0x00072{:01}.0000{:04x}.0010 ",
            i % 10,
            i % 0xffff
        )),
        ssn: 0,
        thread: 1,
        row_id: Some(format!(
            "AAAR3sAAEAAAACXAA{}",
            (b'A' + (i % 26) as u8) as char
        )),
        dialect: crate::source::Dialect::Oracle,
        user_name: None,
        start_scn: None,
        start_ts_ms: None,
    }
}

/// The `i`-th change of the feed: inserts and updates of `APP.ORDERS`,
/// deletes from `APP.ORDER_LINES`, in turn.
pub fn sample_change(i: u64) -> CapturedEvent {
    let order = (1000 + i / 3).to_string();
    let ts = |s: u64| format!("2026-03-01 09:{:02}:{:02}", (s / 60) % 60, s % 60);
    type Pairs = Option<Vec<(String, Field)>>;
    let (op, table, before, after): (Op, &str, Pairs, Pairs) = match i % 3 {
        0 => (
            Op::Create,
            "ORDERS",
            None,
            Some(vec![
                ("ORDER_ID".into(), t(&order)),
                ("CUSTOMER_ID".into(), t(&(500 + i % 37).to_string())),
                ("STATUS".into(), t("NEW")),
                (
                    "AMOUNT".into(),
                    t(&format!("{}.{:02}", 10 + i % 90, i % 100)),
                ),
                ("NOTE".into(), Field::Null),
                ("UPDATED_AT".into(), t(&ts(i / 4))),
            ]),
        ),
        1 => (
            Op::Update,
            "ORDERS",
            Some(vec![
                ("ORDER_ID".into(), t(&order)),
                ("CUSTOMER_ID".into(), t(&(500 + i % 37).to_string())),
                ("STATUS".into(), t("NEW")),
                (
                    "AMOUNT".into(),
                    t(&format!("{}.{:02}", 10 + i % 90, (i - 1) % 100)),
                ),
                ("NOTE".into(), Field::Null),
                ("UPDATED_AT".into(), t(&ts(i / 4))),
            ]),
            Some(vec![
                ("ORDER_ID".into(), t(&order)),
                ("CUSTOMER_ID".into(), t(&(500 + i % 37).to_string())),
                ("STATUS".into(), t("SHIPPED")),
                (
                    "AMOUNT".into(),
                    t(&format!("{}.{:02}", 10 + i % 90, (i - 1) % 100)),
                ),
                ("NOTE".into(), Field::Null),
                ("UPDATED_AT".into(), t(&ts(i / 4 + 1))),
            ]),
        ),
        _ => (
            Op::Delete,
            "ORDER_LINES",
            Some(vec![
                ("ORDER_ID".into(), t(&order)),
                ("LINE_NO".into(), t(&(1 + i % 4).to_string())),
                ("SKU".into(), t(&format!("SKU-{:05}", i * 7 % 99_991))),
                ("QTY".into(), t(&(1 + i % 5).to_string())),
            ]),
            None,
        ),
    };
    let source = position(i, table);
    let commit_ts_ms = source.change_ts_ms + 120;
    CapturedEvent::Change(ChangeEvent {
        op,
        before: before.map(Image::from),
        after: after.map(Image::from),
        source,
        snapshot: SnapshotMark::Stream,
        partial: false,
        commit_ts_ms,
        index: 0,
        table_order: 1,
    })
}

/// The SQL_REDO and USERNAME LogMiner gives for the `i`-th change.
pub fn sample_redo(i: u64) -> crate::engine::metrics::RedoDetail {
    let c = match sample_change(i) {
        CapturedEvent::Change(c) => c,
        CapturedEvent::Ddl(d) => {
            return crate::engine::metrics::RedoDetail {
                commit_scn: d.source.commit_scn,
                xid: d.source.xid,
                index: 0,
                sql_redo: Some(d.ddl),
                username: Some("APP".into()),
            }
        }
    };
    let quoted = |img: &Option<Image>, sep: &str| {
        img.iter()
            .flatten()
            .map(|(col, v)| match v {
                FieldRef::Text(t) => format!("\"{col}\" = '{t}'"),
                _ => format!("\"{col}\" IS NULL"),
            })
            .collect::<Vec<_>>()
            .join(sep)
    };
    let table = format!("\"APP\".\"{}\"", c.source.table);
    let row_id = c.source.row_id.clone().unwrap_or_default();
    let sql = match c.op {
        Op::Create => {
            let img = c.after.clone().unwrap_or_default();
            let cols: Vec<String> = img.iter().map(|(k, _)| format!("\"{k}\"")).collect();
            let vals: Vec<String> = img
                .iter()
                .map(|(_, v)| match v {
                    FieldRef::Text(t) => format!("'{t}'"),
                    _ => "NULL".into(),
                })
                .collect();
            format!(
                "insert into {table}({}) values ({});",
                cols.join(","),
                vals.join(",")
            )
        }
        Op::Update => format!(
            "update {table} set \"STATUS\" = 'SHIPPED' where {} and ROWID = '{row_id}';",
            quoted(&c.before, " and ")
        ),
        _ => format!(
            "delete from {table} where {} and ROWID = '{row_id}';",
            quoted(&c.before, " and ")
        ),
    };
    crate::engine::metrics::RedoDetail {
        commit_scn: c.source.commit_scn,
        xid: c.source.xid.clone(),
        index: c.index,
        sql_redo: Some(sql),
        username: Some("APP".into()),
    }
}

/// A DDL event at position `i`.
pub fn sample_ddl(i: u64) -> CapturedEvent {
    let source = position(i, "ORDERS");
    CapturedEvent::Ddl(DdlEvent {
        commit_ts_ms: source.change_ts_ms,
        source,
        ddl: "ALTER TABLE \"APP\".\"ORDERS\" ADD (\"CHANNEL\" VARCHAR2(16))".into(),
    })
}

fn counts_for(n: u64) -> OpCounts {
    OpCounts {
        inserts: n.div_ceil(3),
        updates: (n + 1) / 3,
        deletes: n / 3,
        truncates: 0,
        ddl: 0,
        commits: n / 2 + 1,
        rollbacks: n / 97,
        partial_rollbacks: n / 211,
    }
}

fn txn(xid: String, start_scn: Scn, start_time: NaiveDateTime, events: u64) -> OpenTxnSummary {
    OpenTxnSummary {
        xid,
        start_scn,
        start_time: Some(start_time),
        events,
        bytes: events * 412,
        spilled: false,
    }
}

/// The status `lag_s` seconds and `scn_lag` SCNs behind, after `events`
/// changes, `at` seconds into the feed.
pub fn status_with_lag(at: u64, events: u64, lag_s: u64, scn_lag: u64) -> CaptureStatus {
    let now = base_time() + chrono::Duration::seconds(at as i64 + 60);
    let current_scn = BASE_SCN + 3 * events + 900 + scn_lag;
    let mined_scn = current_scn - scn_lag;
    let oldest_start = now - chrono::Duration::seconds(42 + lag_s as i64);
    let buffered = vec![
        txn(
            format_xid(0x0007, 0x0011, 0x2B10),
            BASE_SCN - 117,
            oldest_start,
            12,
        ),
        txn(
            format_xid(0x0003, 0x0019, 0x0C41),
            BASE_SCN + 12,
            now - chrono::Duration::seconds(20),
            3,
        ),
        txn(
            format_xid(0x0004, 0x0002, 0x19A7),
            BASE_SCN + 40,
            now - chrono::Duration::seconds(8),
            1_204,
        ),
    ];
    CaptureStatus {
        state: MiningState::Mining,
        current_scn,
        current_time: Some(now),
        // A scripted feed has no engine clock: its lag is the one scripted.
        polled_at: None,
        mined_scn,
        mined_time: Some(now - chrono::Duration::seconds(lag_s as i64)),
        restart_scn: BASE_SCN - 118,
        commit_scn: mined_scn.saturating_sub(4),
        window: (BASE_SCN - 118, mined_scn + 2_000),
        logs: vec![
            MinedLog {
                thread: 1,
                sequence: 1842,
                online: false,
                name: "/u01/fra/ORCL/archivelog/2026_03_01/o1_mf_1_1842_mx7k2l0q_.arc".into(),
            },
            MinedLog {
                thread: 1,
                sequence: 1843,
                online: true,
                name: "/u02/oradata/ORCL/redo02.log".into(),
            },
        ],
        open_transactions: buffered.len(),
        oldest_open: buffered.first().cloned(),
        largest_open: buffered.iter().max_by_key(|t| t.events).cloned(),
        counts: counts_for(events),
        rows_read: events * 3 + events / 2,
        findings: 0,
        buffered,
        archives_missing_ahead: Vec::new(),
        mining: Default::default(),
    }
}

/// A healthy status: two seconds and 240 SCNs behind.
pub fn steady_status(at: u64) -> CaptureStatus {
    status_with_lag(at, at * 40, 2, 240)
}

/// `APP.ORDER_LINES` lacks supplemental logging.
pub fn partial_image_finding() -> Finding {
    Finding::PartialBeforeImage {
        schema: "APP".into(),
        table: "ORDER_LINES".into(),
        row_id: Some("AAAR3sAAEAAAACXAAB".into()),
    }
}

/// LogMiner's dictionary does not know object 74211.
pub fn dictionary_finding() -> Finding {
    Finding::DictionaryMismatch {
        object_id: Some(74_211),
        detail: "\"UNKNOWN\".\"OBJ# 74211\"".into(),
    }
}

/// ORA-03113 while fetching; the engine reconnects.
pub fn connection_dropped(retrying: bool) -> EngineMessage {
    EngineMessage::SourceError {
        error: "ORA-03113: end-of-file on communication channel".into(),
        ora_code: Some(3113),
        advice: Some(
            "the connection dropped; cdcctl reconnects and resumes from the restart SCN".into(),
        ),
        retrying,
        gap: None,
    }
}

/// ORA-01291 for an archived log that was deleted.
pub fn missing_log_error() -> EngineMessage {
    EngineMessage::SourceError {
        error: "ORA-01291: missing logfile: thread 1 sequence 1841 (SCN 10041082) is not available".into(),
        ora_code: Some(1291),
        advice: Some(
            "restore the archived log from backup (RMAN RESTORE ARCHIVELOG) or, if it is gone for good, take a new snapshot"
                .into(),
        ),
        retrying: false,
        gap: None,
    }
}

/// How the synthetic feed behaves over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// Steady flow, low lag.
    Steady,
    /// Lag grows by a few seconds each second.
    RisingLag,
    /// Steady, then a dropped connection and a retry every 20 seconds, and
    /// a missing-supplemental-logging finding.
    Faults,
}

/// A second-by-second generator of engine messages.
#[derive(Debug, Clone)]
pub struct SyntheticFeed {
    script: Script,
    second: u64,
    emitted: u64,
    seed: u64,
}

impl SyntheticFeed {
    pub fn new(script: Script) -> Self {
        Self {
            script,
            second: 0,
            emitted: 0,
            seed: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn rand(&mut self, n: u64) -> u64 {
        // xorshift: deterministic, good enough for a workload shape.
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % n.max(1)
    }

    /// The messages of the next second.
    pub fn next_second(&mut self) -> Vec<EngineMessage> {
        let s = self.second;
        self.second += 1;
        let mut out = Vec::new();
        if s == 0 {
            out.push(EngineMessage::Status(Box::new(CaptureStatus {
                state: MiningState::Connecting,
                ..CaptureStatus::default()
            })));
            return out;
        }
        if self.script == Script::Faults && s % 20 == 10 {
            out.push(connection_dropped(true));
            let mut st = steady_status(s);
            st.state = MiningState::Retrying {
                attempt: 1,
                error: "ORA-03113: end-of-file on communication channel".into(),
                advice: None,
                code: Some("ORA-03113".into()),
            };
            out.push(EngineMessage::Status(Box::new(st)));
            return out;
        }
        if self.script == Script::Faults && s % 20 == 5 {
            out.push(EngineMessage::Finding(partial_image_finding()));
        }
        let n = 20 + self.rand(40);
        let events: Vec<_> = (self.emitted..self.emitted + n)
            .map(sample_change)
            .collect();
        let redo = (self.emitted..self.emitted + n).map(sample_redo).collect();
        self.emitted += n;
        out.push(EngineMessage::Events(events));
        out.push(EngineMessage::RedoDetail(redo));
        let (lag_s, scn_lag) = match self.script {
            Script::RisingLag => (s * 3, s * 2_500),
            _ => (1 + self.rand(3), 120 + self.rand(400)),
        };
        out.push(EngineMessage::Status(Box::new(status_with_lag(
            s,
            self.emitted,
            lag_s,
            scn_lag,
        ))));
        out
    }

    /// Runs the feed on its own thread, one second of messages per `every`,
    /// for `seconds` seconds (or until the receiver is dropped).
    pub fn spawn(mut self, every: Duration, seconds: Option<u64>) -> Receiver<EngineMessage> {
        let (tx, rx) = sync_channel(64);
        thread::spawn(move || {
            let mut sent = 0u64;
            while seconds.is_none_or(|n| sent < n) {
                for msg in self.next_second() {
                    if tx.send(msg).is_err() {
                        return;
                    }
                }
                sent += 1;
                thread::sleep(every);
            }
            let mut st = steady_status(self.second);
            st.state = MiningState::Finished;
            let _ = tx.send(EngineMessage::Status(Box::new(st)));
            let _ = tx.send(EngineMessage::Stopped);
        });
        rx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_changes_have_increasing_commit_scns() {
        let scns: Vec<Scn> = (0..10)
            .map(|i| sample_change(i).source().commit_scn)
            .collect();
        assert!(scns.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn rising_lag_script_reports_growing_lag() {
        let mut feed = SyntheticFeed::new(Script::RisingLag);
        let lags: Vec<i64> = (0..6)
            .flat_map(|_| feed.next_second())
            .filter_map(|m| match m {
                EngineMessage::Status(s) if s.state == MiningState::Mining => s.time_lag_s(),
                _ => None,
            })
            .collect();
        assert_eq!(lags.len(), 5);
        assert!(lags.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn spawned_feed_ends_with_stopped() {
        let rx = SyntheticFeed::new(Script::Steady).spawn(Duration::ZERO, Some(3));
        let msgs: Vec<_> = rx.iter().collect();
        assert!(matches!(msgs.last(), Some(EngineMessage::Stopped)));
        assert!(msgs.iter().any(|m| matches!(m, EngineMessage::Events(_))));
    }
}
