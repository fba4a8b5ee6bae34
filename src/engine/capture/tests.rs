//! The capture loop over a scripted source: commit order, session reuse
//! and restarts, first starts inside open transactions, recovery from
//! dropped connections and archiver races, idle pauses, archives missing
//! ahead, and the table filter.

use super::window::missing_ahead;
use super::*;
use crate::engine::event::{Field, FieldRef};
use crate::engine::port::{
    ArchiveDestStatus, LogInventory, OnlineLog, OpenTransaction, RedoThread, ScnTime,
    SessionRequest, SnapshotChunk, TableName,
};
use chrono::NaiveDate;

/// A source over a fixed list of rows in one CURRENT online log; the SCN
/// clock advances by `step` per poll, and errors can be injected.
struct ScriptedSource {
    rows: Vec<LogMinerRow>,
    now: Scn,
    step: Scn,
    query: Option<(Scn, Scn)>,
    cursor: usize,
    fetches: u32,
    fail_on_fetch: Vec<u32>,
    reconnects: u32,
    starts: u32,
    ends: u32,
    /// (STARTSCN, query's `SCN >` bound) of each window.
    windows: Vec<(Scn, Scn)>,
    /// What `V$TRANSACTION` answers.
    open: Vec<OpenTransaction>,
    /// START_LOGMNR calls (1-based) that fail with ORA-01291.
    fail_on_start: Vec<u32>,
    /// Reads of the log inventory (V$THREAD alone not counted).
    inventories: u32,
    /// Reconnects that fail with ORA-12541 (the listener down) before one
    /// succeeds.
    listener_down_for: u32,
}

fn ts() -> chrono::NaiveDateTime {
    NaiveDate::from_ymd_opt(2025, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .unwrap_or_default()
}

fn row(scn: Scn, xid: &str, op: OperationCode, sql: &str) -> LogMinerRow {
    LogMinerRow {
        scn,
        xid: xid.into(),
        operation_code: op,
        seg_owner: op.is_dml().then(|| "APP".into()),
        table_name: op.is_dml().then(|| "ORDERS".into()),
        row_id: op.is_dml().then(|| format!("AAAR3sAAEAAAACX{scn:03}")),
        sql_redo: Some(sql.into()),
        timestamp: Some(ts()),
        rs_id: Some(format!(" 0x000001.{scn:08x}.0010 ")),
        ..LogMinerRow::default()
    }
}

fn insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    row(
        scn,
        xid,
        OperationCode::Insert,
        &format!("insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"STATUS\") values ('{id}','NEW');"),
    )
}

/// Two interleaved transactions, one rolled back, one committed later.
fn script() -> Vec<LogMinerRow> {
    vec![
        row(
            101,
            "01",
            OperationCode::Start,
            "set transaction read write;",
        ),
        insert(102, "01", 1),
        row(
            103,
            "02",
            OperationCode::Start,
            "set transaction read write;",
        ),
        insert(104, "02", 2),
        insert(105, "01", 3),
        row(106, "01", OperationCode::Commit, "commit;"),
        row(
            107,
            "03",
            OperationCode::Start,
            "set transaction read write;",
        ),
        insert(108, "03", 4),
        row(109, "03", OperationCode::Rollback, "rollback;"),
        insert(110, "02", 5),
        row(111, "02", OperationCode::Commit, "commit;"),
        row(
            112,
            "04",
            OperationCode::Start,
            "set transaction read write;",
        ),
        insert(113, "04", 6),
        row(114, "04", OperationCode::Commit, "commit;"),
    ]
}

impl ScriptedSource {
    fn new(step: Scn) -> Self {
        Self {
            rows: script(),
            now: 100,
            step,
            query: None,
            cursor: 0,
            fetches: 0,
            fail_on_fetch: Vec::new(),
            reconnects: 0,
            starts: 0,
            ends: 0,
            windows: Vec::new(),
            open: Vec::new(),
            fail_on_start: Vec::new(),
            inventories: 0,
            listener_down_for: 0,
        }
    }

    fn thread(&self) -> RedoThread {
        RedoThread {
            thread: 1,
            status: "OPEN".into(),
            enabled: "PUBLIC".into(),
            current_sequence: 1,
            last_redo_scn: self.now,
            ..RedoThread::default()
        }
    }
}

impl RedoSource for ScriptedSource {
    fn describe(&self) -> String {
        "scripted".into()
    }
    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        // Redo up to 120 is on disk once LAST_REDO_CHANGE# reaches 121.
        self.now = (self.now + self.step).min(121);
        // One second of database time per SCN; the rows were written at SCN 100's time.
        Ok(ScnTime {
            scn: self.now,
            time: ts() + chrono::Duration::seconds(self.now as i64 - 100),
        })
    }
    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        Ok(vec![self.thread()])
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.inventories += 1;
        Ok(LogInventory {
            resetlogs_change: 1,
            online: vec![OnlineLog {
                group: 1,
                thread: 1,
                sequence: 1,
                status: "CURRENT".into(),
                first_change: 1,
                member_files: vec!["/redo/redo01.log".into()],
                ..OnlineLog::default()
            }],
            archived: vec![],
            destinations: vec![ArchiveDestStatus {
                dest_id: 1,
                dest_name: "LOG_ARCHIVE_DEST_1".into(),
                status: "VALID".into(),
                dest_type: "LOCAL".into(),
                destination: None,
            }],
            threads: vec![self.thread()],
        })
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(self.open.clone())
    }
    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        Ok(Incarnation {
            resetlogs_change: 1,
            resetlogs_time: ts(),
        })
    }
    fn start_session(&mut self, r: &SessionRequest) -> Result<(), SourceError> {
        assert!(!r.options.continuous_mine);
        self.starts += 1;
        self.windows.push((r.start_scn, 0));
        if self.fail_on_start.contains(&self.starts) {
            return Err(SourceError::oracle(1291, "missing logfile"));
        }
        Ok(())
    }
    fn query_contents(&mut self, q: &ContentsQuery) -> Result<(), SourceError> {
        self.query = Some((q.from_scn, q.to_scn));
        if let Some(w) = self.windows.last_mut() {
            w.1 = q.from_scn;
        }
        self.cursor = 0;
        Ok(())
    }
    fn fetch(&mut self, max: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        self.fetches += 1;
        if self.fail_on_fetch.contains(&self.fetches) {
            return Err(SourceError::oracle(
                3113,
                "end-of-file on communication channel",
            ));
        }
        let Some((lo, hi)) = self.query else {
            return Ok(0);
        };
        let matching: Vec<&LogMinerRow> = self
            .rows
            .iter()
            .filter(|r| r.scn > lo && r.scn <= hi)
            .collect();
        // One row per fetch so that failures can land mid-window.
        let take = matching.iter().skip(self.cursor).take(max.min(1));
        let before = out.len();
        out.extend(take.map(|r| (*r).clone()));
        self.cursor += out.len() - before;
        Ok(out.len() - before)
    }
    fn end_session(&mut self) -> Result<(), SourceError> {
        self.ends += 1;
        Ok(())
    }
    fn snapshot_chunk(
        &mut self,
        _: &TableName,
        _: Scn,
        _: Option<&[String]>,
        _: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        Err(SourceError::Unsupported(
            "no snapshots in this source".into(),
        ))
    }
    fn reconnect(&mut self) -> Result<(), SourceError> {
        self.reconnects += 1;
        if self.reconnects <= self.listener_down_for {
            return Err(SourceError::oracle(12541, "TNS:no listener"));
        }
        Ok(())
    }
}

fn capture_all(source: ScriptedSource) -> (Vec<String>, ScriptedSource) {
    capture_with(source, StartAt::Scn(100), PollConfig::default())
}

fn capture_from(source: ScriptedSource, start: StartAt) -> (Vec<String>, ScriptedSource) {
    capture_with(source, start, PollConfig::default())
}

fn capture_with(
    source: ScriptedSource,
    start: StartAt,
    polling: PollConfig,
) -> (Vec<String>, ScriptedSource) {
    let config = CaptureConfig {
        start,
        until_scn: Some(120),
        // Every window the clock allows, however narrow.
        polling: PollConfig {
            min_window_scns: 1,
            ..polling
        },
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut ids = Vec::new();
    for _ in 0..200 {
        let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
            if let CapturedEvent::Change(c) = e {
                let after = c.after.unwrap_or_default();
                let id = after
                    .get("ORDER_ID")
                    .and_then(|f| f.as_str().map(str::to_string))
                    .unwrap_or_default();
                ids.push(format!("{}:{id}", c.source.xid));
            }
            Ok(())
        };
        match cap.poll(&mut sink).expect("poll") {
            Progress::Finished => break,
            _ => continue,
        }
    }
    (ids, cap.source)
}

#[test]
fn dm8_out_clob_column_is_told_once_across_changes() {
    let update = |scn: Scn, n: u32| {
        row(
            scn,
            "05",
            OperationCode::Update,
            &format!(
                "UPDATE \"APP\".\"ORDERS\" SET \"NOTE\" = OUT_CLOB(LOB_ID: {n}) \
                 WHERE \"ORDER_ID\" = 1 AND \"NOTE\" = OUT_CLOB"
            ),
        )
    };
    let mut source = ScriptedSource::new(20);
    source.rows = vec![
        row(101, "05", OperationCode::Start, "START"),
        update(102, 1),
        update(103, 2),
        row(104, "05", OperationCode::Commit, "COMMIT"),
    ];
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        until_scn: Some(120),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut notes = Vec::new();
    let mut findings = Vec::new();
    for _ in 0..50 {
        let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
            if let CapturedEvent::Change(c) = e {
                let after = c.after.unwrap_or_default();
                notes.push(after.get("NOTE").map(FieldRef::to_field));
            }
            Ok(())
        };
        let progress = cap.poll(&mut sink).expect("poll");
        findings.extend(cap.take_findings().into_iter().map(|f| f.finding));
        if matches!(progress, Progress::Finished) {
            break;
        }
    }
    assert_eq!(notes, [Some(Field::Unavailable), Some(Field::Unavailable)]);
    assert_eq!(
        findings,
        [Finding::LobNotLogged {
            schema: "APP".into(),
            table: "ORDERS".into(),
            column: "NOTE".into(),
        }]
    );
}

#[test]
fn committed_changes_come_out_in_commit_order_without_rolled_back_work() {
    let (ids, _) = capture_all(ScriptedSource::new(3));
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
}

#[test]
fn session_is_reused_while_the_log_set_is_unchanged() {
    let (_, source) = capture_all(ScriptedSource::new(2));
    assert!(source.starts > 5, "{} windows", source.starts);
    assert_eq!(
        source.ends, 0,
        "END_LOGMNR between windows over the same log"
    );
}

#[test]
fn session_starts_at_the_oldest_open_transaction_and_reads_only_new_rows() {
    let (ids, source) = capture_all(ScriptedSource::new(1));
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    // 02 starts at 103 and commits at 111: windows in between start
    // their session at 103 but ask only for rows past what was read.
    let inside: Vec<_> = source
        .windows
        .iter()
        .filter(|(_, from)| (107..111).contains(from))
        .collect();
    assert!(!inside.is_empty(), "{:?}", source.windows);
    assert!(inside.iter().all(|(start, _)| *start == 103), "{inside:?}");
    assert!(source
        .windows
        .iter()
        .all(|(start, from)| start <= &(from + 1)));
    let (start, from) = source.windows.last().copied().unwrap_or_default();
    assert_eq!(start, from + 1, "nothing open at the end");
}

#[test]
fn start_now_inside_open_transactions_mines_them_from_their_start() {
    let open = |xid: &str, start_scn| OpenTransaction {
        xid: xid.into(),
        start_scn,
        start_time: None,
        used_urec: 1,
        username: None,
        con_name: None,
    };
    // "Now" is SCN 105: 01 (from 101) and 02 (from 103) are under way.
    let mut source = ScriptedSource::new(5);
    source.open = vec![open("01", 101), open("02", 103)];
    let (ids, source) = capture_from(source, StartAt::Now);
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    assert_eq!(source.windows.first().map(|w| w.0), Some(101));
    // Without V$TRANSACTION's answer only rows after the start point
    // (SCN 105) are read.
    let (ids, _) = capture_from(ScriptedSource::new(5), StartAt::Now);
    assert_eq!(ids, ["02:5", "04:6"]);
}

#[test]
fn inventory_is_read_once_while_no_thread_switches_logs() {
    let (_, source) = capture_all(ScriptedSource::new(2));
    assert!(source.starts > 5, "{} windows", source.starts);
    // One read of the logs and destinations plus one of V$ARCHIVED_LOG.
    assert_eq!(source.inventories, 2);
}

#[test]
fn archiver_race_at_start_logmnr_is_retried_once_on_a_fresh_inventory() {
    let mut source = ScriptedSource::new(3);
    source.fail_on_start = vec![2];
    let (ids, source) = capture_all(source);
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    assert_eq!(source.reconnects, 0, "no reconnect for a log race");
    assert_eq!(source.inventories, 4, "the inventory was read again");
}

#[test]
fn a_second_missing_log_in_a_row_stops_capture_with_ora_01291() {
    let mut source = ScriptedSource::new(3);
    source.fail_on_start = vec![2, 3];
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        until_scn: Some(120),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    let err = (0..50)
        .find_map(|_| cap.poll(&mut sink).err())
        .expect("a log missing twice stops capture");
    assert_eq!(err.ora_code(), Some(1291));
}

#[test]
fn an_old_session_is_ended_and_its_files_added_again() {
    // Database time runs one second per SCN: a session may live 5 s.
    let polling = PollConfig {
        max_session_age: Duration::from_secs(5),
        ..PollConfig::default()
    };
    let (ids, source) = capture_with(ScriptedSource::new(2), StartAt::Scn(100), polling);
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    assert!(source.ends >= 2, "{} END_LOGMNR", source.ends);
    assert!(source.ends < source.starts);
}

#[test]
fn issue8_lag_does_not_grow_while_windows_advance_without_rows() {
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        polling: PollConfig {
            min_window_scns: 1,
            ..PollConfig::default()
        },
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(ScriptedSource::new(2), config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    for _ in 0..40 {
        cap.poll(&mut sink).expect("poll");
    }
    // The last row was written at SCN 114, seven seconds before the
    // clock stopped at 121; every window since read nothing new.
    assert_eq!(cap.status().mined_scn, 120);
    assert_eq!(cap.status().time_lag_s(), Some(0));
}

#[test]
fn idle_pause_doubles_up_to_its_bound_and_resets_on_rows() {
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        polling: PollConfig {
            min_idle_pause: Duration::from_millis(100),
            max_idle_pause: Duration::from_millis(700),
            min_window_scns: 1,
            ..PollConfig::default()
        },
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(ScriptedSource::new(30), config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    assert_eq!(
        cap.poll(&mut sink).expect("poll"),
        Progress::Advanced { rows: 14 }
    );
    assert_eq!(cap.pause(), Duration::ZERO);
    let mut pauses = Vec::new();
    for _ in 0..5 {
        cap.poll(&mut sink).expect("poll");
        pauses.push(cap.pause().as_millis());
    }
    assert_eq!(pauses, [100, 200, 400, 700, 700]);
}

#[test]
fn disconnect_mid_window_re_mines_without_loss_or_duplicates() {
    let mut source = ScriptedSource::new(20);
    // Fail inside the window, after transaction 01 was emitted.
    source.fail_on_fetch = vec![8, 9];
    let (ids, source) = capture_all(source);
    assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"]);
    assert_eq!(source.reconnects, 2);
}

#[test]
fn issue11_operation_counts_survive_a_reconnect() {
    let mut source = ScriptedSource::new(20);
    source.fail_on_fetch = vec![8, 9];
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        until_scn: Some(120),
        polling: PollConfig {
            min_window_scns: 1,
            ..PollConfig::default()
        },
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut emitted = 0u64;
    for _ in 0..200 {
        let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
            if matches!(e, CapturedEvent::Change(_)) {
                emitted += 1;
            }
            Ok(())
        };
        if matches!(cap.poll(&mut sink), Ok(Progress::Finished)) {
            break;
        }
    }
    let c = cap.status().counts;
    assert_eq!(cap.source.reconnects, 2);
    assert_eq!(c.inserts + c.updates + c.deletes, emitted);
    assert_eq!(emitted, 5);
}

#[test]
fn window_size_does_not_change_what_is_captured() {
    for step in [1, 2, 5, 7, 20] {
        let (ids, _) = capture_all(ScriptedSource::new(step));
        assert_eq!(ids, ["01:1", "01:3", "02:2", "02:5", "04:6"], "step {step}");
    }
}

#[test]
fn too_many_consecutive_transient_errors_stop_capture() {
    let mut source = ScriptedSource::new(20);
    source.fail_on_fetch = (1..=50).collect();
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        max_retries: 3,
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    let mut outcome = None;
    for _ in 0..10 {
        if let Err(e) = cap.poll(&mut sink) {
            outcome = Some(e);
            break;
        }
    }
    let err = outcome.expect("capture must give up");
    assert_eq!(err.ora_code(), Some(3113));
    assert!(matches!(cap.status().state, MiningState::Stopped { .. }));
}

#[test]
fn a_failed_reconnect_is_the_error_retried_and_the_pause_doubles_issue35() {
    let mut source = ScriptedSource::new(20);
    source.fail_on_fetch = vec![1];
    source.listener_down_for = 2;
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    assert_eq!(cap.poll(&mut sink).ok(), Some(Progress::Retrying));
    assert_eq!(cap.retry_pause(), Duration::from_secs(1));
    // The reconnect after ORA-03113 failed: the next poll tries again and
    // reports why, not the "not connected" of a call without a session.
    assert_eq!(cap.poll(&mut sink).ok(), Some(Progress::Retrying));
    let MiningState::Retrying { code, attempt, .. } = &cap.status().state else {
        panic!("{:?}", cap.status().state);
    };
    assert_eq!((code.as_deref(), *attempt), (Some("ORA-12541"), 2));
    assert_eq!(cap.retry_pause(), Duration::from_secs(2));
    assert!(matches!(cap.poll(&mut sink), Ok(Progress::Advanced { .. })));
    assert_eq!(cap.retry_pause(), Duration::from_secs(1));
}

#[test]
fn the_pause_between_retries_stops_doubling_at_30_s() {
    let mut source = ScriptedSource::new(20);
    source.fail_on_fetch = (1..=50).collect();
    let config = CaptureConfig {
        start: StartAt::Scn(100),
        max_retries: 20,
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("start");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    let mut pauses = Vec::new();
    for _ in 0..8 {
        assert_eq!(cap.poll(&mut sink).ok(), Some(Progress::Retrying));
        pauses.push(cap.retry_pause().as_secs());
    }
    assert_eq!(pauses, [1, 2, 4, 8, 16, 30, 30, 30]);
}

#[test]
fn archives_deleted_or_unlisted_ahead_of_the_read_position_are_named() {
    use crate::engine::port::ArchivedLog;
    let arch = |seq: u64, first: Scn, status: &str| ArchivedLog {
        name: (status == "A").then(|| format!("/arch/1_{seq}.arc")),
        dest_id: 1,
        thread: 1,
        sequence: seq,
        first_change: first,
        next_change: first + 100,
        status: status.into(),
        deleted: status == "D",
        archived: true,
        ..ArchivedLog::default()
    };
    let inventory = LogInventory {
        archived: vec![
            arch(10, 1_000, "A"),
            arch(11, 1_100, "A"),
            arch(12, 1_200, "D"),
            // 13 has no row at all.
            arch(14, 1_400, "A"),
        ],
        online: vec![OnlineLog {
            thread: 1,
            sequence: 15,
            status: "CURRENT".into(),
            ..OnlineLog::default()
        }],
        ..LogInventory::default()
    };
    let missing = missing_ahead(&inventory, 1_050);
    let got: Vec<(u64, &str)> = missing.iter().map(|m| (m.sequence, m.state)).collect();
    assert_eq!(got, [(12, "DELETED"), (13, "NOT LISTED")]);
    assert!(
        missing_ahead(&inventory, 1_450).is_empty(),
        "behind the read position they are history"
    );
}

#[test]
fn table_filter_keeps_control_rows_and_unknown_objects() {
    let pats = vec![TablePattern::parse("APP.ORD%").expect("pattern")];
    let mut r = insert(1, "01", 1);
    assert!(wanted(&pats, &r));
    r.table_name = Some("CUSTOMERS".into());
    assert!(!wanted(&pats, &r));
    r.seg_owner = Some("UNKNOWN".into());
    r.table_name = Some("OBJ# 74622".into());
    assert!(wanted(&pats, &r));
    assert!(wanted(
        &pats,
        &row(2, "01", OperationCode::Commit, "commit;")
    ));
    assert_eq!(owners_of(&pats), ["APP"]);
    assert!(owners_of(&[TablePattern::parse("%.X").expect("pattern")]).is_empty());
}

#[test]
fn owners_with_underscores_or_wildcards_are_still_pushed_down() {
    let pats = [
        TablePattern::parse("APP_DATA.ORDERS").expect("pattern"),
        TablePattern::parse("HR%.EMP").expect("pattern"),
    ];
    assert_eq!(owners_of(&pats), ["APP_DATA", "HR%"]);
}
