//! Where capture stands: transactions begun before capture read them
//! (partial, or read from their start at a first start), the restart SCN,
//! the status, and restarts from a checkpoint emitting nothing twice.

use super::*;

/// `f` of each change among `events`, DDL left out.
fn of_changes<T>(events: &[CapturedEvent], f: impl Fn(&ChangeEvent) -> T) -> Vec<T> {
    events
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some(f(c)),
            CapturedEvent::Ddl(_) => None,
        })
        .collect()
}

fn partial_flags(events: &[CapturedEvent]) -> Vec<(String, bool)> {
    of_changes(events, |c| (c.source.xid.clone(), c.partial))
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

#[test]
fn a_transaction_dropped_as_ended_that_writes_again_is_a_finding_and_comes_out_partial_issue34() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    run(
        &mut buf,
        vec![start(1, A), insert(2, A, 1), start(3, B), insert(4, B, 2)],
    );
    // The listing missed both (say, in a state it was not read as open).
    let none = std::collections::HashSet::new();
    assert_eq!(buf.drop_ended(&none, 10), 2);
    let events = run(
        &mut buf,
        vec![insert(12, A, 3), commit(13, A), commit(14, B)],
    );
    assert_eq!(ids(&events), pairs(&[(A, "c3")]));
    assert!(events.iter().all(|e| match e {
        CapturedEvent::Change(c) => c.partial,
        CapturedEvent::Ddl(_) => true,
    }));
    let f = buf.take_findings();
    let xids: Vec<(&str, Scn)> = f
        .iter()
        .filter(|f| f.finding.code() == "reappeared_transaction")
        .map(|f| (f.xid.as_str(), f.scn))
        .collect();
    assert_eq!(xids, vec![(A, 12), (B, 14)], "{f:?}");
    assert_eq!(buf.stats().findings, 2);
}

fn named(mut row: LogMinerRow, user: &str) -> LogMinerRow {
    row.username = Some(user.into());
    row
}

/// (user_name, start_scn, start_ts_ms, commit_ts_ms) of a change.
type Origin = (Option<String>, Option<Scn>, Option<i64>, i64);

fn origins(events: &[CapturedEvent]) -> Vec<Origin> {
    of_changes(events, |c| {
        (
            c.source.user_name.as_deref().map(str::to_string),
            c.source.start_scn,
            c.source.start_ts_ms,
            c.commit_ts_ms,
        )
    })
}

/// The origin of a transaction SCOTT began at SCN 3 and committed at 6.
fn scott_started_at_3_committed_at_6() -> Origin {
    (
        Some("SCOTT".to_string()),
        Some(3),
        Some(ts_ms(at(3))),
        ts_ms(at(6)),
    )
}

#[test]
fn every_change_carries_the_user_and_start_of_its_transactions_start_row_issue32() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    // Rows mined apart from their START row say UNKNOWN; the START row
    // names the user for the whole transaction.
    let events = run(
        &mut buf,
        vec![
            named(start(3, B), "SCOTT"),
            named(insert(4, B, 1), "UNKNOWN"),
            named(insert(5, B, 2), "SCOTT"),
            named(commit(6, B), "UNKNOWN"),
        ],
    );
    let want = scott_started_at_3_committed_at_6();
    assert_eq!(origins(&events), [want.clone(), want]);
}

#[test]
fn a_partial_transaction_has_no_start_and_a_user_only_if_a_row_names_one_issue32() {
    let mut buf = TxnBuffer::new(BufferConfig::default());
    let events = run(
        &mut buf,
        vec![
            named(insert(2, A, 1), "UNKNOWN"),
            insert(3, C, 3),
            named(insert(4, A, 2), "UNKNOWN"),
            named(insert(5, C, 4), "SCOTT"),
            commit(6, A),
            commit(7, C),
        ],
    );
    let unnamed = (None, None, None, ts_ms(at(6)));
    let named_later = (Some("SCOTT".to_string()), None, None, ts_ms(at(7)));
    assert_eq!(
        origins(&events),
        [unnamed.clone(), unnamed, named_later.clone(), named_later]
    );
}

#[test]
fn a_spilled_transaction_keeps_its_user_and_start_issue32() {
    let mut buf = TxnBuffer::new(BufferConfig {
        spill_txn_bytes: Some(1),
        ..BufferConfig::default()
    });
    let events = run(
        &mut buf,
        vec![
            named(start(3, B), "SCOTT"),
            named(insert(4, B, 1), "UNKNOWN"),
            named(insert(5, B, 2), "UNKNOWN"),
            commit(6, B),
        ],
    );
    assert_eq!(
        buf.stats().spilled_transactions,
        1,
        "the transaction went to disk"
    );
    let want = scott_started_at_3_committed_at_6();
    assert_eq!(origins(&events), [want.clone(), want]);
}
