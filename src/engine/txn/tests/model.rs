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
