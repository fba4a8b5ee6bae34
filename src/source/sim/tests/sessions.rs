//! LogMiner sessions restarted over the same logs.

use super::*;

/// Mines `windows` consecutive SCN windows of the demo the way the engine
/// does, restarting LogMiner over the same logs for each; `fresh` ends the
/// session first, so nothing of the previous one is kept.
fn mine_windows(windows: usize, fresh: bool) -> Vec<LogMinerRow> {
    let mut s = Sim::from_spec("demo").unwrap();
    let start = s.model().scn;
    s.advance_ms(600_000);
    let end = s.model().scn;
    let files = s.plan_logs(start);
    let step = (end - start) / windows as u64;
    let mut out = Vec::new();
    for w in 0..windows as u64 {
        if fresh {
            s.end_session().unwrap();
        }
        s.start_session(&SessionRequest {
            log_files: files.clone(),
            start_scn: start,
            end_scn: end,
            options: MiningOptions {
                dict_from_online_catalog: true,
                ..MiningOptions::default()
            },
        })
        .unwrap();
        s.query_contents(&ContentsQuery {
            from_scn: start + w * step,
            to_scn: start + (w + 1) * step,
            ..ContentsQuery::default()
        })
        .unwrap();
        while s.fetch(1000, &mut out).unwrap() > 0 {}
    }
    out
}

#[test]
fn a_session_restarted_over_the_same_logs_resolves_undo_xids_as_a_fresh_one_does() {
    let kept = mine_windows(40, false);
    let fresh = mine_windows(40, true);
    let undo: Vec<&LogMinerRow> = kept.iter().filter(|r| r.rollback).collect();
    assert!(!undo.is_empty(), "the demo's rollbacks write undo rows");
    assert!(
        undo.iter().any(|r| !r.xid.ends_with("FFFFFFFF")),
        "some undo rows' transactions started inside the session"
    );
    assert_eq!(kept.len(), fresh.len());
    assert!(kept
        .iter()
        .zip(&fresh)
        .all(|(a, b)| format!("{a:?}") == format!("{b:?}")));
}
