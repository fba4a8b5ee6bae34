//! Buffer behaviour pinned row by row: commit order, rollbacks, restart
//! SCN, spill, abandonment, DDL, findings and restarts from checkpoints.

use super::*;
use crate::engine::event::{Field, FieldRef, Image};
use chrono::NaiveDate;

const A: &str = "0A0014005D3C0000";
const B: &str = "0B0001000A000000";
const C: &str = "0C0002000B000000";

fn at(secs: i64) -> Option<NaiveDateTime> {
    NaiveDate::from_ymd_opt(2025, 3, 1)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .map(|t| t + chrono::Duration::seconds(secs))
}

fn ctl(scn: Scn, xid: &str, op: OperationCode) -> LogMinerRow {
    LogMinerRow {
        scn,
        xid: xid.into(),
        operation_code: op,
        timestamp: at(scn as i64),
        ..LogMinerRow::default()
    }
}

fn start(scn: Scn, xid: &str) -> LogMinerRow {
    ctl(scn, xid, OperationCode::Start)
}

fn commit(scn: Scn, xid: &str) -> LogMinerRow {
    ctl(scn, xid, OperationCode::Commit)
}

fn rowid(n: u32) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let c = |v: u32| char::from(B64[(v % 64) as usize]);
    format!("AAAR3sAAEAAAACX{}{}{}", c(n / 4096), c(n / 64), c(n))
}

fn insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "insert into \"APP\".\"ORDERS\"(\"ORDER_ID\",\"STATUS\") values ('{id}','NEW');"
        )),
        ..ctl(scn, xid, OperationCode::Insert)
    }
}

fn update(scn: Scn, xid: &str, id: u32, status: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "update \"APP\".\"ORDERS\" set \"STATUS\" = '{status}' where \"ORDER_ID\" = '{id}' and \"STATUS\" = 'NEW';"
        )),
        ..ctl(scn, xid, OperationCode::Update)
    }
}

/// The undo row LogMiner shows for a rolled-back INSERT: a DELETE, ROLLBACK = 1.
fn undo_insert(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        rollback: true,
        seg_owner: Some("APP".into()),
        table_name: Some("ORDERS".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "delete from \"APP\".\"ORDERS\" where \"ORDER_ID\" = '{id}' and \"STATUS\" = 'NEW';"
        )),
        ..ctl(scn, xid, OperationCode::Delete)
    }
}

fn run(buf: &mut TxnBuffer, rows: Vec<LogMinerRow>) -> Vec<CapturedEvent> {
    let mut out = Vec::new();
    for r in rows {
        buf.push(r, &mut |e| {
            out.push(e);
            Ok(())
        })
        .unwrap();
    }
    out
}

fn ids(events: &[CapturedEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| match e {
            CapturedEvent::Change(c) => {
                let img = c.after.as_ref().or(c.before.as_ref()).unwrap();
                let id = img
                    .get("ORDER_ID")
                    .and_then(FieldRef::as_str)
                    .unwrap_or("?")
                    .to_string();
                (c.source.xid.clone(), format!("{}{}", c.op.code(), id))
            }
            CapturedEvent::Ddl(d) => (d.source.xid.clone(), d.ddl.clone()),
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn buffer_can_move_to_the_engine_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<TxnBuffer>();
}

#[test]
fn commit_order_follows_commit_rows_across_interleaved_transactions() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(100, A),
            insert(101, A, 1),
            start(102, B),
            insert(103, B, 2),
            insert(104, A, 3),
            commit(105, B),
            update(106, A, 1, "PAID"),
            commit(107, A),
        ],
    );
    assert_eq!(
        ids(&events),
        pairs(&[(B, "c2"), (A, "c1"), (A, "c3"), (A, "u1")])
    );
    let CapturedEvent::Change(first_a) = &events[1] else {
        panic!("change expected")
    };
    assert_eq!(first_a.source.commit_scn, 107);
    assert_eq!(first_a.source.scn, 101);
    assert_eq!(first_a.index, 0);
    assert_eq!(first_a.commit_ts_ms, ts_ms(at(107)));
    assert_eq!(first_a.source.change_ts_ms, ts_ms(at(101)));
    let CapturedEvent::Change(last_a) = &events[3] else {
        panic!("change expected")
    };
    assert_eq!((last_a.index, last_a.table_order), (2, 3));
    assert_eq!(buf.counts().commits, 2);
    assert_eq!(buf.counts().inserts, 3);
    assert_eq!(buf.counts().updates, 1);
    assert_eq!(buf.commit_scn(), 107);
}

#[test]
fn commits_at_one_scn_emit_in_arrival_order_and_are_all_recorded() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            insert(10, B, 1),
            insert(11, A, 2),
            commit(12, A),
            commit(12, B),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c2"), (B, "c1")]));
    let cp = buf.checkpoint();
    assert_eq!(cp.commit_scn, 12);
    assert_eq!(
        cp.committed_xids_at_commit_scn,
        vec![A.to_string(), B.to_string()]
    );
}

#[test]
fn commit_below_an_earlier_commit_is_an_error() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    run(&mut buf, vec![insert(10, A, 1), commit(20, A)]);
    let err = buf.push(commit(15, B), &mut |_| Ok(())).unwrap_err();
    assert!(matches!(
        err,
        TxnError::CommitOutOfOrder {
            scn: 15,
            last: 20,
            ..
        }
    ));
}

#[test]
fn full_rollback_drops_the_whole_transaction() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(1, A),
            insert(2, A, 1),
            insert(3, B, 2),
            insert(4, A, 3),
            ctl(5, A, OperationCode::Rollback),
            commit(6, B),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(B, "c2")]));
    assert_eq!(buf.counts().rollbacks, 1);
    assert_eq!(buf.open_count(), 0);
}

#[test]
fn rollback_to_savepoint_drops_only_later_rows() {
    // insert 1; SAVEPOINT s; insert 2; update 1; ROLLBACK TO s; insert 3; COMMIT.
    let mut undo_update = update(7, A, 1, "NEW");
    undo_update.rollback = true;
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(1, A),
            insert(2, A, 1),
            insert(3, A, 2),
            update(4, A, 1, "PAID"),
            undo_update,
            undo_insert(8, A, 2),
            insert(9, A, 3),
            commit(10, A),
        ],
    );
    // The undo of the UPDATE removes the UPDATE (the later change of row 1),
    // not the INSERT of row 1.
    assert_eq!(ids(&events), pairs(&[(A, "c1"), (A, "c3")]));
    assert_eq!(buf.counts().partial_rollbacks, 2);
    let indexes: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some(c.index),
            CapturedEvent::Ddl(_) => None,
        })
        .collect();
    assert_eq!(indexes, vec![0, 1]);
}

#[test]
fn unmatched_partial_rollback_is_a_warning() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![insert(1, A, 1), undo_insert(2, A, 5), commit(3, A)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c1")]));
    let w = buf.take_warnings();
    assert!(matches!(
        &w[..],
        [TxnWarning::UnmatchedPartialRollback { scn: 2, .. }]
    ));
}

/// The XID LogMiner shows on undo rows of a transaction that started
/// before the session: USN and SLOT kept, sequence FFFFFFFF.
fn masked(xid: &str) -> String {
    format!("{}FFFFFFFF", &xid[..8])
}

#[test]
fn rollback_with_sequence_ffffffff_closes_the_one_open_transaction_on_its_slot() {
    let (x, y) = ("0A0011002A000000", "0B0011002A000000");
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(1, x),
            insert(2, x, 1),
            start(3, y),
            insert(4, y, 2),
            ctl(5, &masked(x), OperationCode::Rollback),
            commit(6, y),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(y, "c2")]));
    assert_eq!(buf.counts().rollbacks, 1);
    assert_eq!(buf.open_count(), 0);
}

#[test]
fn undo_rows_with_sequence_ffffffff_remove_changes_of_the_transaction_on_their_slot() {
    let x = "0A0011002A000000";
    let mut undo_update = update(5, &masked(x), 1, "NEW");
    undo_update.rollback = true;
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(1, x),
            insert(2, x, 1),
            update(3, x, 1, "PAID"),
            insert(4, x, 2),
            undo_insert(5, &masked(x), 2),
            undo_update,
            commit(7, x),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(x, "c1")]));
    assert_eq!(buf.counts().partial_rollbacks, 2);
    assert_eq!(buf.take_warnings(), []);
}

#[test]
fn undo_row_with_sequence_ffffffff_matching_two_open_transactions_is_a_warning() {
    // Two open XIDs on one slot: one of them is stale (its end was never
    // seen). Guessing could undo the wrong transaction's change.
    let (x, stale) = ("0A0011002A000000", "0A0011002B000000");
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            insert(1, stale, 9),
            insert(2, x, 1),
            undo_insert(3, &masked(x), 1),
            commit(4, x),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(x, "c1")]));
    let w = buf.take_warnings();
    assert!(
        matches!(&w[0], TxnWarning::AmbiguousUndoXid { scn: 3, candidates, .. } if candidates.len() == 2),
        "{w:?}"
    );
}

fn partial_flags(events: &[CapturedEvent]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some((c.source.xid.clone(), c.partial)),
            CapturedEvent::Ddl(_) => None,
        })
        .collect()
}

#[test]
fn transaction_first_seen_without_its_start_row_is_marked_partial() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            insert(2, A, 1),
            start(3, B),
            insert(4, B, 2),
            commit(5, A),
            commit(6, B),
        ],
    );
    assert_eq!(
        partial_flags(&events),
        [(A.to_string(), true), (B.to_string(), false)]
    );
    let line = match &events[0] {
        CapturedEvent::Change(c) => c.to_json_line(),
        CapturedEvent::Ddl(_) => String::new(),
    };
    assert!(line.contains("\"partial\":true"), "{line}");
}

#[test]
fn first_start_reads_in_flight_transactions_from_their_start_and_skips_other_earlier_rows() {
    let in_flight = [crate::engine::port::OpenTransaction {
        xid: A.into(),
        start_scn: 2,
        start_time: None,
        used_urec: 1,
        username: None,
        con_name: None,
    }];
    // Start point 5: A (open there) is read from SCN 2; B committed at 5
    // and C, whose start lies before 5 but which V$TRANSACTION did not
    // list (it ended before the list was read), are not emitted as whole.
    let rows = vec![
        start(2, A),
        insert(3, A, 1),
        start(3, B),
        insert(4, B, 2),
        start(4, C),
        insert(4, C, 3),
        commit(5, B),
        insert(6, A, 4),
        insert(7, C, 5),
        commit(8, A),
        commit(9, C),
    ];
    let mut buf = TxnBuffer::starting_after(BufferConfig::default(), 5, &in_flight);
    assert_eq!(buf.restart_scn(), 1);
    let events = run(&mut buf, rows.clone());
    assert_eq!(ids(&events), pairs(&[(A, "c1"), (A, "c4"), (C, "c5")]));
    assert_eq!(
        partial_flags(&events),
        [
            (A.to_string(), false),
            (A.to_string(), false),
            (C.to_string(), true)
        ]
    );
    // A checkpoint taken while A is open restarts below the start point;
    // the resumed buffer still does not emit B.
    let mut buf = TxnBuffer::starting_after(BufferConfig::default(), 5, &in_flight);
    run(&mut buf, rows[..8].to_vec());
    let cp = buf.checkpoint();
    assert_eq!((cp.restart_scn, cp.commit_scn), (1, 5));
    let mut resumed = TxnBuffer::resume(BufferConfig::default(), &cp);
    let again = run(&mut resumed, rows);
    assert_eq!(
        ids(&again),
        pairs(&[(A, "c1"), (A, "c4"), (C, "c3"), (C, "c5")])
    );
}

#[test]
fn replication_marker_closes_a_marker_only_transaction_but_not_one_with_changes() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            start(1, A),
            ctl(2, A, OperationCode::ReplicationMarker),
            start(3, B),
            insert(4, B, 1),
            ctl(5, B, OperationCode::ReplicationMarker),
            commit(6, B),
        ],
    );
    assert_eq!(ids(&events), pairs(&[(B, "c1")]));
    assert_eq!(buf.open_count(), 0);
}

#[test]
fn restart_scn_is_oldest_open_start_minus_one_else_last_complete_scn() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    for r in [
        start(100, A),
        insert(101, A, 1),
        start(105, B),
        insert(106, B, 2),
    ] {
        buf.push(r, noop).unwrap();
    }
    assert_eq!(buf.restart_scn(), 99);
    buf.push(commit(110, A), noop).unwrap();
    assert_eq!(buf.restart_scn(), 104);
    let open = buf.open_transactions();
    assert_eq!(open.len(), 1);
    assert_eq!(
        (open[0].xid.as_str(), open[0].start_scn, open[0].events),
        (B, 105, 1)
    );
    buf.push(commit(120, B), noop).unwrap();
    buf.finish_window(120, noop).unwrap();
    assert_eq!(buf.restart_scn(), 120);
    assert_eq!(buf.commit_scn(), 120);
}

#[test]
fn status_names_the_oldest_and_the_largest_open_transaction() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    run(
        &mut buf,
        vec![
            start(5, A),
            insert(6, B, 1),
            insert(7, B, 2),
            insert(8, C, 3),
            commit(9, C),
        ],
    );
    let mut status = CaptureStatus::default();
    buf.fill_status(&mut status);
    assert_eq!(status.open_transactions, 2);
    assert_eq!(status.oldest_open.map(|t| t.xid), Some(A.to_string()));
    assert_eq!(status.largest_open.map(|t| t.xid), Some(B.to_string()));
    assert_eq!((status.restart_scn, status.commit_scn), (4, 9));
    assert_eq!(status.counts.inserts, 1);
}

#[test]
fn restart_scn_does_not_fall_back_when_a_transaction_rolls_back() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    let mut seen = Vec::new();
    for r in [
        insert(10, A, 1),
        commit(11, A),
        insert(20, B, 2),
        insert(30, C, 3),
        ctl(31, B, OperationCode::Rollback),
        commit(40, C),
        insert(40, A, 4),
        commit(41, A),
    ] {
        buf.push(r, noop).unwrap();
        seen.push(buf.restart_scn());
    }
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
}

fn big_txn_rows() -> Vec<LogMinerRow> {
    let mut rows = vec![start(1, A), insert(2, B, 99)];
    for i in 0..40u32 {
        rows.push(insert(3 + u64::from(i), A, i));
    }
    // ROLLBACK TO SAVEPOINT over the last three inserts, after they spilled.
    for (k, i) in [39u32, 38, 37].iter().enumerate() {
        rows.push(undo_insert(50 + k as u64, A, *i));
    }
    rows.push(update(60, A, 3, "PAID"));
    rows.push(commit(61, B));
    rows.push(commit(62, A));
    rows
}

#[test]
fn spilled_transaction_emits_the_same_events_as_in_memory() {
    let mut mem = TxnBuffer::new(BufferConfig {
        spill_txn_bytes: None,
        spill_total_bytes: None,
        ..BufferConfig::default()
    });
    let in_memory = run(&mut mem, big_txn_rows());
    assert_eq!(mem.stats().spilled_transactions, 0);

    let dir = tempfile::tempdir().unwrap();
    let mut spilling = TxnBuffer::new(BufferConfig {
        spill_txn_bytes: Some(2_000),
        spill_dir: Some(dir.path().to_path_buf()),
        ..BufferConfig::default()
    });
    let mut spilled = Vec::new();
    let mut saw_spill = false;
    for r in big_txn_rows() {
        spilling
            .push(r, &mut |e| {
                spilled.push(e);
                Ok(())
            })
            .unwrap();
        saw_spill |= spilling.open_transactions().iter().any(|t| t.spilled);
    }
    assert!(saw_spill);
    assert_eq!(spilling.stats().spilled_transactions, 1);
    assert!(spilling.stats().spilled_bytes > 2_000);
    assert_eq!(spilled, in_memory);
    assert_eq!(spilling.counts().partial_rollbacks, 3);
    assert_eq!(spilled.len(), 1 + 37 + 1);
}

#[test]
fn partial_rollback_finds_hashed_row_ids_in_spilled_data() {
    // DM8 / YashanDB row ids are not Oracle's 18-character form.
    let with_id = |mut r: LogMinerRow, id: &str| {
        r.row_id = Some(id.into());
        r
    };
    let dir = tempfile::tempdir().unwrap();
    let mut buf = TxnBuffer::new(BufferConfig {
        spill_txn_bytes: Some(1),
        spill_dir: Some(dir.path().to_path_buf()),
        ..BufferConfig::default()
    });
    let events = run(
        &mut buf,
        vec![
            with_id(insert(1, A, 1), "281474976710657"),
            with_id(insert(2, A, 2), "281474976710658"),
            with_id(undo_insert(3, A, 1), "281474976710657"),
            commit(4, A),
        ],
    );
    assert_eq!(buf.stats().spilled_transactions, 1);
    assert_eq!(ids(&events), pairs(&[(A, "c2")]));
}

#[test]
fn total_buffer_limit_spills_the_largest_transaction() {
    let mut buf = TxnBuffer::new(BufferConfig {
        spill_txn_bytes: None,
        spill_total_bytes: Some(3_000),
        ..BufferConfig::default()
    });
    let noop = &mut |_| Ok(());
    for i in 0..6 {
        buf.push(insert(10 + u64::from(i), A, i), noop).unwrap();
    }
    buf.push(insert(20, B, 7), noop).unwrap();
    let open = buf.open_transactions();
    let a = open.iter().find(|t| t.xid == A).unwrap();
    let b = open.iter().find(|t| t.xid == B).unwrap();
    assert!(a.spilled);
    assert!(!b.spilled);
    assert!(buf.memory_bytes() <= 3_000);
}

#[test]
fn abandoned_transaction_is_dropped_and_its_late_commit_reported() {
    let mut buf = TxnBuffer::new(BufferConfig {
        abandon_after: Some(Duration::from_secs(60)),
        ..BufferConfig::default()
    });
    let events = run(
        &mut buf,
        vec![
            start(1, A),
            insert(2, A, 1),
            insert(30, B, 2),
            commit(40, B),
        ],
    );
    assert_eq!(events.len(), 1);
    assert!(
        buf.abandon_expired().is_empty(),
        "39 s is within the retention"
    );
    let events = run(&mut buf, vec![insert(100, B, 3)]);
    assert!(events.is_empty());
    assert_eq!(buf.long_running(Duration::from_secs(60)).len(), 1);
    let w = buf.abandon_expired();
    assert!(
        matches!(&w[..], [TxnWarning::Abandoned { xid, start_scn: 1, events: 1, .. }] if xid == A),
        "{w:?}"
    );
    assert!(w[0].message().contains(A));
    assert_eq!(buf.restart_scn(), 99);
    // Later rows of the abandoned XID are not buffered and its COMMIT emits nothing.
    let events = run(
        &mut buf,
        vec![insert(101, A, 4), commit(102, A), commit(103, B)],
    );
    assert_eq!(ids(&events), pairs(&[(B, "c3")]));
    let w = buf.take_warnings();
    assert!(w
        .iter()
        .any(|w| matches!(w, TxnWarning::LateCommitIgnored { xid, scn: 102 } if xid == A)));
}

#[test]
fn without_retention_long_transactions_are_reported_not_abandoned() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    run(
        &mut buf,
        vec![start(1, A), insert(2, A, 1), insert(5000, B, 2)],
    );
    assert!(buf.abandon_expired().is_empty());
    let long = buf.long_running(Duration::from_secs(3600));
    assert_eq!(long.len(), 1);
    assert_eq!(long[0].summary.xid, A);
    assert_eq!(long[0].age, Duration::from_secs(4999));
    let events = run(&mut buf, vec![commit(5001, A)]);
    assert_eq!(ids(&events), pairs(&[(A, "c1")]));
}

#[test]
fn parse_failure_stops_with_scn_xid_position_and_raw_text() {
    let mut bad = insert(2, A, 1);
    bad.sql_redo = Some("insert into \"APP\".\"ORDERS\"(\"A\") valuez ('1');".into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    buf.push(bad, noop).unwrap();
    let err = buf.push(commit(3, A), noop).unwrap_err();
    match err {
        TxnError::Parse {
            scn,
            xid,
            raw,
            position,
            ..
        } => {
            assert_eq!((scn, xid.as_str()), (2, A));
            assert!(raw.contains("valuez"));
            assert!(position > 0);
        }
        other => panic!("parse error expected, got {other}"),
    }
}

#[test]
fn parse_error_message_clips_a_huge_statement_but_keeps_it_whole() {
    let mut bad = insert(2, A, 1);
    let huge = format!(
        "insert into \"APP\".\"T\"(\"A\") valuez ('{}');",
        "é".repeat(5000)
    );
    bad.sql_redo = Some(huge.clone());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let noop = &mut |_| Ok(());
    buf.push(bad, noop).unwrap();
    let err = buf.push(commit(3, A), noop).unwrap_err();
    let text = err.to_string();
    assert!(text.len() < 3000, "{} bytes", text.len());
    assert!(text.contains(&format!("({} bytes in all)", huge.len())));
    assert!(matches!(err, TxnError::Parse { raw, .. } if raw == huge));
}

#[test]
fn warn_mode_dead_letters_the_statement_and_continues() {
    let mut bad = insert(3, A, 2);
    bad.sql_redo = Some("garbage".into());
    let mut buf = TxnBuffer::new(BufferConfig {
        on_parse_error: OnParseError::Warn,
        ..BufferConfig::default()
    });
    let events = run(
        &mut buf,
        vec![insert(2, A, 1), bad, insert(4, A, 3), commit(5, A)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c1"), (A, "c3")]));
    let dead = buf.take_dead_letters();
    assert_eq!(dead.len(), 1);
    assert_eq!((dead[0].scn, dead[0].raw.as_str()), (3, "garbage"));
    assert_eq!(buf.stats().dead_letters, 1);
}

#[test]
fn missing_scn_row_is_an_error() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let err = buf
        .push(ctl(7, A, OperationCode::MissingScn), &mut |_| Ok(()))
        .unwrap_err();
    assert!(matches!(err, TxnError::MissingScn { scn: 7, .. }));
}

fn ddl(scn: Scn, xid: &str, text: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("ORDER_HIS".into()),
        sql_redo: Some(text.into()),
        ..ctl(scn, xid, OperationCode::Ddl)
    }
}

#[test]
fn ddl_is_emitted_at_its_commit_in_commit_order() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            insert(1, A, 1),
            start(2, B),
            ddl(
                3,
                B,
                "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\";",
            ),
            commit(4, B),
            commit(5, A),
        ],
    );
    assert_eq!(events.len(), 2);
    let CapturedEvent::Ddl(d) = &events[0] else {
        panic!("DDL first")
    };
    assert_eq!((d.source.scn, d.source.commit_scn), (3, 4));
    assert_eq!(d.source.table, "ORDER_HIS");
    assert_eq!(buf.counts().ddl, 1);
}

#[test]
fn ddl_without_commit_auto_commits_at_window_end() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let mut out = Vec::new();
    let mut sink = |e| {
        out.push(e);
        Ok(())
    };
    buf.push(ddl(3, B, "DROP TABLE \"APP\".\"T\";"), &mut sink)
        .unwrap();
    buf.finish_window(3, &mut sink).unwrap();
    assert_eq!(buf.open_count(), 0);
    buf.push(commit(4, B), &mut sink).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].source().commit_scn, 3);
    assert_eq!(buf.counts().commits, 1);
}

#[test]
fn status_2_and_unsupported_rows_become_findings_not_events() {
    let mut s2 = insert(2, A, 1);
    s2.status = 2;
    s2.info = Some("Object contains a column of unsupported type".into());
    let mut unsupported = ctl(3, A, OperationCode::Unsupported);
    unsupported.seg_owner = Some("APP".into());
    unsupported.table_name = Some("DOCS".into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![s2, unsupported, insert(4, A, 2), commit(5, A)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c2")]));
    let f = buf.take_findings();
    assert_eq!(f.len(), 2);
    assert!(f[0].finding.message().contains("unsupported type"));
    assert!(f[1].finding.message().contains("APP.DOCS"));
}

/// A row of `code` on APP.DOCS (the row of `rowid(id)`) with this SQL_REDO.
fn piece(scn: Scn, xid: &str, code: u16, id: u32, sql: &str) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("DOCS".into()),
        row_id: Some(rowid(id)),
        sql_redo: (!sql.is_empty()).then(|| sql.to_string()),
        ..ctl(scn, xid, OperationCode::from_code(code))
    }
}

fn doc_insert(scn: Scn, xid: &str, id: u32, body: &str) -> LogMinerRow {
    piece(
        scn,
        xid,
        1,
        id,
        &format!("insert into \"APP\".\"DOCS\"(\"ID\",\"BODY\") values ('{id}',{body});"),
    )
}

fn locator(scn: Scn, xid: &str, id: u32, column: &str, var: &str) -> LogMinerRow {
    let sql = format!(
        "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6156); \n loc_b BLOB; \n buf_b RAW(6156);\n \
         loc_nc NCLOB; \n buf_nc NVARCHAR2(6156); \nBEGIN\n select \"{column}\" into {var} from \
         \"APP\".\"DOCS\" where \"ID\" = '{id}' and ROWID = '{}' for update;",
        rowid(id)
    );
    piece(scn, xid, 9, id, &sql)
}

fn clob_write(scn: Scn, xid: &str, id: u32, text: &str, offset: u64) -> LogMinerRow {
    let sql = format!(
        " buf_c := '{}'; \n  dbms_lob.write(loc_c, {}, {offset}, buf_c);\nEND;",
        text.replace('\'', "''"),
        text.chars().count()
    );
    piece(scn, xid, 10, id, &sql)
}

fn lob_buffer(lob: LobMode, on_parse_error: OnParseError) -> TxnBuffer {
    TxnBuffer::new(BufferConfig {
        lob,
        on_parse_error,
        ..BufferConfig::default()
    })
}

fn after_of(e: &CapturedEvent) -> Vec<(String, Field)> {
    match e {
        CapturedEvent::Change(c) => c.after.as_ref().map(Image::to_vec).unwrap_or_default(),
        CapturedEvent::Ddl(_) => Vec::new(),
    }
}

fn text(v: &str) -> Field {
    Field::Text(v.to_string())
}

#[test]
fn issue9_lob_capture_puts_the_lob_writes_into_the_insert() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "it's ", 1),
        clob_write(5, A, 1, "long", 6),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(
        after_of(&events[0]),
        vec![("ID".into(), text("1")), ("BODY".into(), text("it's long"))]
    );
    assert_eq!(buf.stats().lob_rows, 3);
    assert!(buf.take_findings().is_empty());
}

#[test]
fn issue9_empty_lob_with_no_write_is_an_empty_value_under_capture() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let events = run(
        &mut buf,
        vec![doc_insert(2, A, 1, "EMPTY_CLOB()"), commit(3, A)],
    );
    assert_eq!(after_of(&events[0])[1], ("BODY".into(), text("")));
}

#[test]
fn issue9_lob_placeholder_gives_the_marker_and_one_finding_per_column() {
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "abc", 1),
        doc_insert(5, A, 2, "EMPTY_CLOB()"),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 2);
    for e in &events {
        assert_eq!(after_of(e)[1], ("BODY".into(), Field::Unavailable));
    }
    let f = buf.take_findings();
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(matches!(&f[0].finding, Finding::LobUnavailable { column, .. } if column == "BODY"));
}

#[test]
fn issue9_lob_written_alone_becomes_an_update_of_its_row() {
    // dbms_lob on an existing row: no DML row, the LOB rows and a trim.
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        locator(2, A, 5, "BODY", "loc_c"),
        clob_write(3, A, 5, "new text", 1),
        piece(4, A, 11, 5, " dbms_lob.trim(loc_c, 8);"),
        commit(5, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    let CapturedEvent::Change(c) = &events[0] else {
        panic!("a change event, got {:?}", events[0])
    };
    assert_eq!(c.op, Op::Update);
    assert_eq!(c.before, Some(vec![("ID".into(), text("5"))].into()));
    assert_eq!(
        c.after,
        Some(vec![("ID".into(), text("5")), ("BODY".into(), text("new text"))].into())
    );
    assert_eq!(c.source.row_id.as_deref(), Some(rowid(5).as_str()));
    // Without capture such a change carries nothing: no event, a finding.
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        locator(2, A, 5, "BODY", "loc_c"),
        clob_write(3, A, 5, "new text", 1),
        commit(5, A),
    ];
    assert!(run(&mut buf, rows).is_empty());
    assert_eq!(buf.take_findings().len(), 1);
}

#[test]
fn issue9_blob_writes_give_bytes() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_BLOB()"),
        locator(3, A, 1, "BODY", "loc_b"),
        piece(
            4,
            A,
            10,
            1,
            " buf_b := HEXTORAW('0A0B'); \n  dbms_lob.write(loc_b, 2, 1, buf_b);\nEND;",
        ),
        piece(
            5,
            A,
            10,
            1,
            " buf_b := HEXTORAW('ff'); \n  dbms_lob.write(loc_b, 1, 3, buf_b);\nEND;",
        ),
        commit(6, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(
        after_of(&events[0])[1],
        ("BODY".into(), Field::Binary("0a0bff".into()))
    );
}

#[test]
fn issue9_xml_doc_rows_fill_the_xml_column_of_the_change_before() {
    // Oracle's XMLType example: the INSERT leaves the XMLType column out,
    // XML DOC BEGIN names it, the document follows in pieces (here as
    // HEXTORAW that cuts `é` in two).
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let rows = vec![
        piece(
            2,
            A,
            1,
            1,
            "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
        ),
        piece(
            3,
            A,
            68,
            1,
            "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
        ),
        piece(4, A, 70, 1, "XML_REDO := HEXTORAW('3c613ec3'):4"),
        piece(5, A, 70, 1, "XML_REDO := HEXTORAW('a93c2f613e):5"),
        piece(6, A, 71, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(after_of(&events[0])[1], ("X".into(), text("<a>é</a>")));
    // The placeholder: the column is there, unavailable, and reported.
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![
        piece(
            2,
            A,
            1,
            1,
            "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
        ),
        piece(
            3,
            A,
            68,
            1,
            "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
        ),
        piece(4, A, 70, 1, "XML_REDO := '<a/>':4"),
        piece(6, A, 71, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(after_of(&events[0])[1], ("X".into(), Field::Unavailable));
    assert_eq!(buf.take_findings().len(), 1);
}

#[test]
fn issue9_extended_string_is_reassembled_without_lob_capture() {
    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let begin = "DECLARE \n TempLob CLOB;\n buf_c VARCHAR2(32767);\n Stmt CLOB;\nBEGIN\n \
                 DBMS_LOB.CreateTemporary(TempLob, FALSE);\n Stmt := 'update \"APP\".\"DOCS\" a set \
                 a.\"NOTES\" = :NOTES where a.\"ID\" = ''1'';';";
    let rows = vec![
        piece(
            2,
            A,
            3,
            1,
            "update \"APP\".\"DOCS\" set \"T\" = 'x' where \"ID\" = '1';",
        ),
        piece(3, A, 91, 1, begin),
        piece(
            4,
            A,
            92,
            1,
            " buf_c := 'it''s '; \n DBMS_LOB.WRITEAPPEND(TempLob, 5, buf_c);",
        ),
        piece(5, A, 92, 1, " buf_c := 'long';"),
        piece(6, A, 93, 1, ""),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(
        after_of(&events[0]),
        vec![
            ("ID".into(), text("1")),
            ("T".into(), text("x")),
            ("NOTES".into(), text("it's long"))
        ]
    );
    assert!(buf.take_findings().is_empty());
}

#[test]
fn issue9_malformed_xml_row_is_a_parse_error_or_a_dead_letter() {
    let rows = || {
        vec![
            piece(
                2,
                A,
                1,
                1,
                "insert into \"APP\".\"DOCS\"(\"ID\") values ('1');",
            ),
            piece(
                3,
                A,
                68,
                1,
                "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';",
            ),
            piece(4, A, 70, 1, "XML Data"),
            piece(5, A, 71, 1, ""),
            commit(6, A),
        ]
    };
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let mut err = None;
    for r in rows() {
        if let Err(e) = buf.push(r, &mut |_| Ok(())) {
            err = Some(e);
            break;
        }
    }
    match err {
        Some(TxnError::Parse { raw, scn, .. }) => {
            assert_eq!(raw, "XML Data");
            assert_eq!(scn, 4);
        }
        other => panic!("a parse error, got {other:?}"),
    }
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Warn);
    let events = run(&mut buf, rows());
    assert_eq!(events.len(), 1);
    let dead = buf.take_dead_letters();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].raw, "XML Data");
}

/// Pushes the rows and returns the first error's message.
fn first_error(buf: &mut TxnBuffer, rows: Vec<LogMinerRow>) -> String {
    for r in rows {
        if let Err(e) = buf.push(r, &mut |_| Ok(())) {
            return e.to_string();
        }
    }
    panic!("the rows were accepted")
}

#[test]
fn issue9_pieces_out_of_place_are_errors_with_the_raw_row() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let e = first_error(&mut buf, vec![clob_write(2, A, 1, "x", 1), commit(3, A)]);
    assert!(
        e.contains("no locator") && e.contains("dbms_lob.write"),
        "{e}"
    );

    let mut buf = lob_buffer(LobMode::Placeholder, OnParseError::Fail);
    let rows = vec![piece(2, A, 92, 1, " buf_c := 'x';"), commit(3, A)];
    let e = first_error(&mut buf, rows);
    assert!(e.contains("32K WRITE without a 32K BEGIN"), "{e}");

    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let begin = "update \"APP\".\"DOCS\" a set a.\"X\" = XMLType(:1) where a.\"ID\" = '1';";
    let rows = vec![piece(2, A, 68, 1, begin), commit(3, A)];
    let e = first_error(&mut buf, rows);
    assert!(
        e.contains("no XML DOC END before the COMMIT") && e.contains(begin),
        "{e}"
    );
}

#[test]
fn issue9_undone_statement_takes_its_lob_rows_with_it() {
    let mut buf = lob_buffer(LobMode::Capture, OnParseError::Fail);
    let mut undo = piece(
        5,
        A,
        2,
        1,
        "delete from \"APP\".\"DOCS\" where \"ID\" = '1';",
    );
    undo.rollback = true;
    let rows = vec![
        doc_insert(2, A, 1, "EMPTY_CLOB()"),
        locator(3, A, 1, "BODY", "loc_c"),
        clob_write(4, A, 1, "gone", 1),
        undo,
        doc_insert(6, A, 2, "EMPTY_CLOB()"),
        commit(7, A),
    ];
    let events = run(&mut buf, rows);
    assert_eq!(events.len(), 1);
    assert_eq!(after_of(&events[0])[0], ("ID".into(), text("2")));
}

#[test]
fn continuation_pieces_are_joined_before_buffering() {
    let full = insert(2, A, 7);
    let sql = full.sql_redo.clone().unwrap();
    let (p1, p2) = sql.split_at(20);
    let mut first = full.clone();
    first.sql_redo = Some(p1.into());
    first.csf = true;
    let mut second = full.clone();
    second.sql_redo = Some(p2.into());
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(&mut buf, vec![first.clone(), second, commit(3, A)]);
    assert_eq!(ids(&events), pairs(&[(A, "c7")]));
    buf.push(first, &mut |_| Ok(())).unwrap();
    assert!(matches!(
        buf.finish_window(2, &mut |_| Ok(())),
        Err(TxnError::Csf(_))
    ));
}

#[test]
fn source_db_is_src_con_name_or_the_configured_name() {
    let mut pdb = insert(2, A, 1);
    pdb.src_con_name = Some("ORCLPDB1".into());
    let mut buf = TxnBuffer::new(BufferConfig {
        db_name: "ORCL".into(),
        ..BufferConfig::default()
    });
    let events = run(&mut buf, vec![pdb, insert(3, A, 2), commit(4, A)]);
    let dbs: Vec<_> = events.iter().map(|e| e.source().db.clone()).collect();
    assert_eq!(dbs, vec!["ORCLPDB1", "ORCL"]);
}

fn replay_rows() -> Vec<LogMinerRow> {
    vec![
        start(10, A),
        insert(11, A, 1),
        insert(12, B, 2),
        commit(13, B),
        insert(14, A, 3),
        insert(15, C, 4),
        commit(16, A),
        insert(17, C, 5),
        commit(18, C),
    ]
}

#[test]
fn replay_from_a_checkpoint_emits_nothing_twice() {
    let rows = replay_rows();
    for cut in 1..rows.len() {
        let mut first = TxnBuffer::new(BufferConfig::default());
        let mut got = run(&mut first, rows[..cut].to_vec());
        first
            .finish_window(rows[cut - 1].scn, &mut |_| Ok(()))
            .unwrap();
        let cp = first.checkpoint();
        let mut second = TxnBuffer::resume(BufferConfig::default(), &cp);
        got.extend(run(&mut second, rows.clone()));
        let mut all = TxnBuffer::new(BufferConfig::default());
        let expected = run(&mut all, rows.clone());
        assert_eq!(ids(&got), ids(&expected), "cut after row {cut}");
    }
}

#[test]
fn transaction_cut_short_by_the_sink_resumes_after_its_last_emitted_event() {
    let rows = replay_rows();
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let mut got = Vec::new();
    let mut failed = false;
    for r in rows.clone() {
        let res = buf.push(r, &mut |e| {
            // The sink accepts A's first change and then fails.
            if e.source().xid == A && got.iter().any(|g: &CapturedEvent| g.source().xid == A) {
                return Err("disk full".into());
            }
            got.push(e);
            Ok(())
        });
        if let Err(e) = res {
            assert!(matches!(e, TxnError::Sink(_)));
            failed = true;
            break;
        }
    }
    assert!(failed);
    let cp = buf.checkpoint();
    assert_eq!(cp.last_event_index, Some((A.to_string(), 0)));
    assert_eq!(cp.restart_scn, 9, "A is not done: restart at its start");
    let mut again = TxnBuffer::resume(BufferConfig::default(), &cp);
    got.extend(run(&mut again, rows.clone()));
    let mut all = TxnBuffer::new(BufferConfig::default());
    assert_eq!(ids(&got), ids(&run(&mut all, rows)));
}

mod model {
    //! Random interleaved workloads against a ground truth computed without
    //! the buffer: spill and restarts must not change what is emitted.
    use super::*;
    use proptest::prelude::*;

    const XIDS: [&str; 4] = [A, B, C, "0D0003000C000000"];

    /// Rows in view order and the (xid, op, id) changes that must come out.
    fn workload(steps: &[(u8, u8)]) -> (Vec<LogMinerRow>, Vec<(String, String)>) {
        let mut rows = Vec::new();
        let mut truth = Vec::new();
        // Per slot: the live changes (op+id, row id) of the open transaction.
        let mut live: Vec<Option<Vec<(String, u32)>>> = vec![None; XIDS.len()];
        let mut next_id = 0u32;
        let mut scn: Scn = 100;
        for &(pick, what) in steps {
            let slot = usize::from(pick) % XIDS.len();
            let xid = XIDS[slot];
            scn += 1;
            let changes = live[slot].get_or_insert_with(Vec::new);
            match what % 10 {
                0..=4 => {
                    next_id += 1;
                    rows.push(insert(scn, xid, next_id));
                    changes.push((format!("c{next_id}"), next_id));
                }
                5 => {
                    if let Some((_, id)) = changes.last().cloned() {
                        rows.push(update(scn, xid, id, "PAID"));
                        changes.push((format!("u{id}"), id));
                    }
                }
                6 => {
                    // ROLLBACK TO SAVEPOINT of the latest change.
                    if let Some((_, id)) = changes.pop() {
                        rows.push(undo_insert(scn, xid, id));
                    }
                }
                7 | 8 => {
                    rows.push(commit(scn, xid));
                    for (c, _) in live[slot].take().unwrap_or_default() {
                        truth.push((xid.to_string(), c));
                    }
                }
                _ => {
                    rows.push(ctl(scn, xid, OperationCode::Rollback));
                    live[slot] = None;
                }
            }
        }
        (rows, truth)
    }

    fn emitted(config: BufferConfig, rows: &[LogMinerRow]) -> Vec<CapturedEvent> {
        let mut buf = TxnBuffer::new(config);
        run(&mut buf, rows.to_vec())
    }

    fn no_spill() -> BufferConfig {
        BufferConfig {
            spill_txn_bytes: None,
            spill_total_bytes: None,
            ..BufferConfig::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn buffer_emits_exactly_the_committed_live_changes(
            steps in prop::collection::vec(any::<(u8, u8)>(), 1..120)
        ) {
            let (rows, truth) = workload(&steps);
            let got = emitted(no_spill(), &rows);
            prop_assert_eq!(ids(&got), truth);
        }

        #[test]
        fn spilling_changes_nothing(steps in prop::collection::vec(any::<(u8, u8)>(), 1..120)) {
            let (rows, _) = workload(&steps);
            let spilled = emitted(
                BufferConfig {
                    spill_txn_bytes: Some(1_500),
                    spill_total_bytes: Some(4_000),
                    ..BufferConfig::default()
                },
                &rows,
            );
            prop_assert_eq!(spilled, emitted(no_spill(), &rows));
        }

        #[test]
        fn restart_from_any_checkpoint_emits_each_change_once(
            steps in prop::collection::vec(any::<(u8, u8)>(), 1..120),
            cut in any::<prop::sample::Index>(),
        ) {
            let (rows, _) = workload(&steps);
            let cut = cut.index(rows.len() + 1);
            let mut first = TxnBuffer::new(no_spill());
            let mut got = run(&mut first, rows[..cut].to_vec());
            if cut > 0 {
                first.finish_window(rows[cut - 1].scn, &mut |_| Ok(())).unwrap();
            }
            let mut second = TxnBuffer::resume(no_spill(), &first.checkpoint());
            got.extend(run(&mut second, rows.clone()));
            prop_assert_eq!(got, emitted(no_spill(), &rows));
        }
    }
}

#[test]
fn a_transaction_the_source_no_longer_lists_open_is_dropped_when_it_started_before_the_listing() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    run(
        &mut buf,
        vec![
            start(1, A),
            insert(2, A, 1),
            start(10, B),
            insert(11, B, 2),
            start(50, C),
            insert(51, C, 3),
        ],
    );
    assert_eq!(buf.restart_scn(), 0);
    // Listed at SCN 40 with only B open: A ended without a COMMIT row
    // (a DM8 rollback); C started after the listing and is kept.
    let open: std::collections::HashSet<String> = [B.to_string()].into_iter().collect();
    assert_eq!(buf.drop_ended(&open, 40), 1);
    assert_eq!(buf.open_count(), 2);
    assert_eq!(buf.restart_scn(), 9);
    let events = run(&mut buf, vec![commit(60, B), commit(61, C)]);
    assert_eq!(ids(&events), pairs(&[(B, "c2"), (C, "c3")]));
}

/// An UPDATE of `APP.DEVICES` whose two RAW columns stay hex (no
/// character-set dictionary).
fn raw_update(scn: Scn, xid: &str, id: u32) -> LogMinerRow {
    LogMinerRow {
        seg_owner: Some("APP".into()),
        table_name: Some("DEVICES".into()),
        row_id: Some(rowid(id)),
        sql_redo: Some(format!(
            "update \"APP\".\"DEVICES\" set \"MAC\" = HEXTORAW('0a0b') where \"ID\" = '{id}' and \
             \"MAC\" = HEXTORAW('0c0d') and \"SERIAL\" = HEXTORAW('ff');"
        )),
        ..ctl(scn, xid, OperationCode::Update)
    }
}

#[test]
fn a_column_kept_as_hex_is_reported_once_across_changes_and_transactions() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            raw_update(2, A, 1),
            raw_update(3, A, 2),
            commit(4, A),
            raw_update(5, B, 3),
            commit(6, B),
        ],
    );
    assert_eq!(events.len(), 3);
    let mut columns: Vec<String> = buf
        .take_findings()
        .into_iter()
        .map(|f| match f.finding {
            Finding::CharacterHex { column, .. } => column,
            other => panic!("unexpected finding {other:?}"),
        })
        .collect();
    columns.sort();
    assert_eq!(columns, ["MAC", "SERIAL"]);
    // The values themselves stay binary on every change.
    for e in &events {
        let CapturedEvent::Change(c) = e else {
            panic!("not a change: {e:?}");
        };
        let before = c.before.as_ref().map(|i| i.get_field("SERIAL"));
        assert_eq!(before, Some(Some(Field::Binary("ff".into()))));
    }
}
