//! Memory bounds: big transactions spill to disk and back unchanged, and
//! transactions past the retention are abandoned.

use super::*;

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
