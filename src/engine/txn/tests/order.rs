//! Commit order and rollbacks: interleaved transactions come out in
//! commit order, a rollback drops its transaction, a partial rollback the
//! changes it undoes, also when LogMiner hides the undo row's sequence.

use super::*;

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

#[test]
fn dm8_a_row_flagged_roll_back_is_itself_dropped_and_the_committed_insert_stays_issue34() {
    // DM8: INSERT 1; SAVEPOINT s; UPDATE 1; ROLLBACK TO s; COMMIT. DM8
    // flags the UPDATE itself ROLL_BACK = 1 (Dameng's interface
    // documentation: "whether this record was rolled back") and writes no
    // undo row; read as Oracle's compensation row it took back the INSERT.
    let mut flagged_update = update(4, A, 1, "PAID");
    flagged_update.rollback = true;
    let rows = vec![
        start(1, A),
        insert(2, A, 1),
        flagged_update,
        insert(5, A, 3),
        commit(6, A),
    ];
    let dm = BufferConfig {
        dialect: crate::engine::port::Dialect::Dm,
        ..BufferConfig::default()
    };
    let mut buf = TxnBuffer::new(dm);
    let events = run(&mut buf, rows);
    assert_eq!(ids(&events), pairs(&[(A, "c1"), (A, "c3")]));
    assert_eq!(buf.counts().partial_rollbacks, 1);
    assert!(buf.take_warnings().is_empty());
}
