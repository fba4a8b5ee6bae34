//! LogMiner sessions restarted over the same logs, and what a session
//! shows of the transactions it mines only part of.

use std::collections::BTreeSet;

use crate::engine::row::Scn;

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
        let window = (start + w * step, start + (w + 1) * step);
        mine(&mut s, files.clone(), (start, end), window, &mut out);
    }
    out
}

/// Starts LogMiner over `files` for `session` and reads the rows of
/// `window` into `out`, as the engine does.
fn mine(
    s: &mut Sim,
    files: Vec<String>,
    session: (Scn, Scn),
    window: (Scn, Scn),
    out: &mut Vec<LogMinerRow>,
) {
    s.start_session(&SessionRequest {
        log_files: files,
        start_scn: session.0,
        end_scn: session.1,
        options: MiningOptions {
            dict_from_online_catalog: true,
            ..MiningOptions::default()
        },
    })
    .unwrap();
    s.query_contents(&ContentsQuery {
        from_scn: window.0,
        to_scn: window.1,
        ..ContentsQuery::default()
    })
    .unwrap();
    while s.fetch(1000, out).unwrap() > 0 {}
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

/// The rows of `spec`'s first ten minutes, mined from `from_half` of the
/// way through them in one window.
fn mine_from(spec: &str, from_half: bool) -> Vec<LogMinerRow> {
    let mut s = Sim::from_spec(spec).unwrap();
    let start = s.model().scn;
    s.advance_ms(600_000);
    let end = s.model().scn;
    let from = if from_half {
        start + (end - start) / 2
    } else {
        start
    };
    let mut out = Vec::new();
    let files = s.plan_logs(from);
    mine(&mut s, files, (from, end), (from, end), &mut out);
    out
}

/// Rows of transactions whose START row was mined, and of the others, by
/// the USERNAME they show.
fn users_by_start_mined(rows: &[LogMinerRow]) -> [BTreeSet<String>; 2] {
    let started: std::collections::HashSet<&str> = rows
        .iter()
        .filter(|r| r.operation_code == OperationCode::Start)
        .map(|r| r.xid.as_str())
        .collect();
    let mut by = [BTreeSet::new(), BTreeSet::new()];
    for r in rows
        .iter()
        .filter(|r| r.operation_code.is_dml() && !r.rollback)
    {
        let i = usize::from(!started.contains(r.xid.as_str()));
        by[i].insert(r.username.clone().unwrap_or_default());
    }
    by
}

#[test]
fn username_shows_only_on_rows_mined_with_their_transactions_start_issue32() {
    for from_half in [false, true] {
        let [with_start, without] = users_by_start_mined(&mine_from("demo", from_half));
        assert_eq!(
            with_start,
            ["APP".to_string()].into(),
            "from half: {from_half}"
        );
        if from_half {
            assert_eq!(without, ["UNKNOWN".to_string()].into());
        }
    }
}

#[test]
fn username_is_unknown_on_every_row_without_supplemental_logging_issue32() {
    let rows = mine_from("no-supplemental-logging", false);
    assert!(rows.iter().any(|r| r.operation_code.is_dml()));
    assert!(rows
        .iter()
        .all(|r| r.username.as_deref() == Some("UNKNOWN")));
}
