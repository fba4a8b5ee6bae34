//! The DM8 mode through the real capture engine, compared with the ground
//! truth: what DM8 is documented to write (XA commits, batch updates,
//! V$TRX states) must come out as the committed changes, no more, no less.

use super::*;
use crate::engine::capture::{Capture, CaptureConfig, CaptureError, Progress, StartAt};
use crate::engine::emit::SinkError;
use crate::engine::event::{CapturedEvent, Image, Op};
use crate::engine::finding::Finding;
use crate::engine::txn::{BufferConfig, TxnWarning};

/// The `dm8` built-in with edits to its text.
pub(super) fn dm8_scenario(edits: &[(&str, &str)]) -> Scenario {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let mut text = b.text.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "dm8 has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Scenario::parse(&text, "dm8 variant").expect("a valid variant")
}

/// The `[connection]` of a DM8 user with every grant mining needs but
/// SELECT on V$TRX.
pub(crate) const WITHOUT_V_TRX: (&str, &str) = (
    "user = \"CDC\"",
    "user = \"CDC\"\nprivileges = [\"CREATE SESSION\", \"EXECUTE ON SYS.DBMS_LOGMNR\", \
     \"SELECT ON SYS.V$LOGMNR_CONTENTS\", \"SELECT ON SYS.V$ARCH_FILE\", \"SELECT ON SYS.V$RLOG\", \
     \"SELECT ON SYS.V$DM_INI\"]",
);

/// What a capture gave and what it should have given.
pub(super) struct Captured {
    pub events: Vec<CapturedEvent>,
    pub findings: Vec<Finding>,
    pub warnings: Vec<TxnWarning>,
    pub error: Option<CaptureError>,
    /// The truth of the transactions committed in the captured range.
    pub truth: Vec<CapturedEvent>,
}

/// Captures `scns` SCNs of a DM8 scenario from where its warm-up left it,
/// polled as a running capture polls (a second of database time each).
pub(super) fn capture_dm8(scenario: Scenario, scns: Scn) -> Captured {
    capture_dm8_from(scenario, scns, false)
}

/// As [`capture_dm8`]; `behind`: the database has already run to the end
/// of the range when the capture starts, so every row is mined after all
/// that happened in it.
fn capture_dm8_from(scenario: Scenario, scns: Scn, behind: bool) -> Captured {
    let mut source = Sim::new(scenario.clone(), Clock::Virtual { step_ms: 1000 });
    let from = source.model().scn;
    let until = from + scns;
    if behind {
        source.advance_to_scn(until);
    }
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: source.db_name().to_string(),
            ..BufferConfig::default()
        },
        start: StartAt::Scn(from),
        until_scn: Some(until),
        ..CaptureConfig::default()
    };
    let mut events = Vec::new();
    let mut findings = Vec::new();
    let mut warnings = Vec::new();
    let error = match Capture::new(source, config) {
        Err(e) => Some(e),
        Ok(mut cap) => loop {
            let r = cap.poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
                events.push(e);
                Ok(())
            });
            findings.extend(cap.take_findings().into_iter().map(|f| f.finding));
            warnings.extend(cap.take_warnings());
            match r {
                Ok(Progress::Finished) => break None,
                Ok(_) => continue,
                Err(e) => break Some(e),
            }
        },
    };
    let mut t = Sim::new(scenario, Clock::Virtual { step_ms: 1000 });
    t.advance_to_scn(until + 1);
    let truth = t
        .truth()
        .filter(|e| {
            matches!(e, CapturedEvent::Change(c)
                if c.source.commit_scn > from && c.source.commit_scn <= until)
        })
        .cloned()
        .collect();
    Captured {
        events,
        findings,
        warnings,
        error,
        truth,
    }
}

/// A change as the comparison sees it: its envelope without the values
/// redo cannot carry (LOB placeholders), columns in name order.
fn line(e: &CapturedEvent) -> Option<String> {
    let CapturedEvent::Change(c) = e else {
        return None;
    };
    let known = |img: &Option<Image>| {
        img.as_ref().map(|i| {
            let mut i: Image = i
                .iter()
                .filter(|(_, f)| !f.is_unavailable())
                .map(|(c, f)| (c, f.to_field()))
                .collect();
            i.sort_by_name();
            i
        })
    };
    let mut c = c.clone();
    c.before = known(&c.before);
    c.after = known(&c.after);
    Some(c.to_json_line())
}

/// Where a change belongs, to show a difference briefly.
fn brief(e: &CapturedEvent) -> Option<(Scn, String, u32, Op, bool)> {
    match e {
        CapturedEvent::Change(c) => Some((
            c.source.commit_scn,
            c.source.xid.clone(),
            c.index,
            c.op,
            c.partial,
        )),
        CapturedEvent::Ddl(_) => None,
    }
}

/// The capture's changes equal the truth's, event for event.
pub(super) fn assert_same_as_truth(what: &str, run: &Captured) {
    assert!(
        run.error.is_none(),
        "{what}: capture stopped: {:?}",
        run.error.as_ref().map(ToString::to_string)
    );
    let changes = |v: &[CapturedEvent]| -> Vec<CapturedEvent> {
        v.iter()
            .filter(|e| matches!(e, CapturedEvent::Change(_)))
            .cloned()
            .collect()
    };
    let (got, want) = (changes(&run.events), changes(&run.truth));
    let (got_lines, want_lines): (Vec<_>, Vec<_>) = (
        got.iter().filter_map(line).collect(),
        want.iter().filter_map(line).collect(),
    );
    let n = got_lines.len().max(want_lines.len());
    if let Some(i) = (0..n).find(|&i| got_lines.get(i) != want_lines.get(i)) {
        panic!(
            "{what}: {} changes captured, {} in the truth; first difference at {i}:\n got  {:?}\n want {:?}",
            got.len(),
            want.len(),
            got.get(i).and_then(brief),
            want.get(i).and_then(brief)
        );
    }
}

/// XIDs of transactions the simulator shows with trait `salt` among the
/// truth's, to prove a test exercised what it names.
fn chosen_in_truth(run: &Captured, salt: u8, pct: f64) -> usize {
    let mut xids: Vec<&str> = run
        .truth
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some(c.source.xid.as_str()),
            _ => None,
        })
        .filter(|x| super::super::dm::chosen(x, salt, pct))
        .collect();
    xids.dedup();
    xids.len()
}

#[test]
fn xa_commit_code_38_emits_the_transaction_issue34() {
    let scenario = dm8_scenario(&[("xa_pct = 10.0", "xa_pct = 40.0")]);
    let run = capture_dm8(scenario, 3_000);
    assert!(
        chosen_in_truth(&run, super::super::dm::XA, 40.0) > 10,
        "too few XA transactions committed in the window"
    );
    assert_same_as_truth("XA commits", &run);
}

#[test]
fn batch_update_code_4_rows_are_emitted_as_updates_issue34() {
    let scenario = dm8_scenario(&[("batch_update_pct = 10.0", "batch_update_pct = 60.0")]);
    let run = capture_dm8(scenario, 3_000);
    let updates = run
        .truth
        .iter()
        .filter(|e| matches!(e, CapturedEvent::Change(c) if c.op == Op::Update))
        .count();
    assert!(updates > 20, "only {updates} updates in the window");
    assert_same_as_truth("batch updates", &run);
}

#[test]
fn a_transaction_v_trx_lists_in_lock_wait_across_polls_is_emitted_whole_when_it_commits_issue34() {
    let scenario = dm8_scenario(&[("lock_wait_pct = 20.0", "lock_wait_pct = 60.0")]);
    let run = capture_dm8(scenario, 3_000);
    assert!(
        chosen_in_truth(&run, super::super::dm::LOCK_WAIT, 60.0) > 10,
        "too few lock-waiting transactions committed in the window"
    );
    assert_same_as_truth("lock waits", &run);
    assert!(
        !run.findings
            .iter()
            .any(|f| f.code() == "reappeared_transaction"),
        "a transaction still listed must never be dropped: {:?}",
        run.findings
    );
}

#[test]
fn without_select_on_v_trx_dm8_capture_stops_with_the_grant_instead_of_buffering_for_ever_issue34()
{
    // Rollbacks leave no end row on DM8: without V$TRX they would stay
    // buffered, pinning the restart point and growing memory for good.
    let scenario = dm8_scenario(&[WITHOUT_V_TRX, ("rollback_pct = 5.0", "rollback_pct = 30.0")]);
    let run = capture_dm8(scenario, 3_000);
    let error = run.error.expect("capture must stop");
    let advice = error.advice().unwrap_or_default();
    assert!(
        advice.contains("GRANT SELECT ON SYS.V$TRX"),
        "{error}: advice {advice}"
    );
    assert!(error.to_string().contains("V$TRX"), "{error}");
    assert_eq!(crate::exit::for_capture(&error), crate::exit::USAGE);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn without_select_on_v_trx_a_resumed_dm8_capture_stops_at_the_first_buffered_transaction_issue34() {
    // A resume reads no V$TRX at its start: the first poll with a
    // transaction buffered asks, and must stop rather than go on.
    let scenario = dm8_scenario(&[WITHOUT_V_TRX]);
    let source = Sim::new(scenario, Clock::Virtual { step_ms: 1000 });
    let from = source.model().scn;
    let config = CaptureConfig {
        start: StartAt::Checkpoint(crate::engine::checkpoint::Checkpoint::new(
            from,
            from,
            Vec::new(),
            None,
        )),
        until_scn: Some(from + 3_000),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("a resume reads no V$TRX at its start");
    let mut polls = 0;
    let error = loop {
        polls += 1;
        match cap.poll(&mut |_| Ok(())) {
            Ok(Progress::Finished) => panic!("capture went on without V$TRX to the end"),
            Ok(_) => assert!(polls < 10_000, "capture never stopped"),
            Err(e) => break e,
        }
    };
    let advice = error.advice().unwrap_or_default();
    assert!(
        advice.contains("GRANT SELECT ON SYS.V$TRX"),
        "{error}: {advice}"
    );
    assert_eq!(crate::exit::for_capture(&error), crate::exit::USAGE);
}

#[test]
fn a_dropped_dm8_connection_is_retried_under_its_dm8_code_with_dm8_advice_issue34() {
    // 20 s after the warm-up, inside the captured range.
    let text = format!(
        "{}\n[[faults]]\nkind = \"connection_drop\"\nat_s = 320\n",
        BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8").text
    );
    let scenario = Scenario::parse(&text, "dm8 with a drop").expect("a valid variant");
    let source = Sim::new(scenario, Clock::Virtual { step_ms: 1000 });
    let from = source.model().scn;
    let config = CaptureConfig {
        start: StartAt::Scn(from),
        until_scn: Some(from + 3_000),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("capture");
    let state = loop {
        match cap.poll(&mut |_| Ok(())) {
            Ok(Progress::Retrying) => break cap.status().state.clone(),
            Ok(Progress::Finished) => panic!("the connection never dropped"),
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    };
    let crate::engine::metrics::MiningState::Retrying {
        code,
        advice,
        error,
        ..
    } = state
    else {
        panic!("not retrying: {state:?}");
    };
    assert_eq!(code.as_deref(), Some("DM-6852"), "{error}");
    let advice = advice.unwrap_or_default();
    assert!(
        advice.contains("DM8") && !advice.contains("Oracle"),
        "{advice}"
    );
    // Reconnected, the capture goes on to the end.
    loop {
        match cap.poll(&mut |_| Ok(())) {
            Ok(Progress::Finished) => break,
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn rows_in_the_active_archive_files_unreadable_tail_are_mined_once_readable_issue34() {
    // V$ARCH_FILE.CLSN of the ACTIVE file runs ahead of what DBMS_LOGMNR
    // can read from it: a window ending at CLSN must not pass over rows
    // that appear there later.
    let scenario = dm8_scenario(&[(
        "lock_wait_pct = 20.0",
        "lock_wait_pct = 20.0\nactive_file_lag = 40",
    )]);
    let run = capture_dm8(scenario, 3_000);
    assert!(run.truth.len() > 100, "only {} changes", run.truth.len());
    assert_same_as_truth("ACTIVE file lag", &run);
}

#[test]
fn dm8_rows_flagged_roll_back_are_dropped_and_never_take_back_a_committed_change_issue34() {
    // Dameng documents ROLL_BACK as "this record was rolled back": the
    // flagged row is the rolled-back change itself, not Oracle's
    // compensation row undoing the latest earlier change of the row.
    let scenario = dm8_scenario(&[
        ("rollback_rows = \"none\"", "rollback_rows = \"original\""),
        (
            "rollback_pct = 5.0",
            "rollback_pct = 5.0\nsavepoint_pct = 40.0",
        ),
    ]);
    let run = capture_dm8(scenario.clone(), 3_000);
    assert!(
        run.error.is_none(),
        "{:?}",
        run.error.map(|e| e.to_string())
    );
    let mut model = Sim::new(scenario, Clock::Virtual { step_ms: 1000 });
    model.advance_to_scn(run_end(&run) + 1);
    let undone = &model.model().undone;
    assert!(
        undone.len() > 20,
        "only {} changes rolled back",
        undone.len()
    );
    let keyed = |v: &[CapturedEvent]| -> Vec<(String, Scn)> {
        v.iter()
            .filter_map(|e| match e {
                CapturedEvent::Change(c) => line(e).map(|l| (l, c.source.scn)),
                CapturedEvent::Ddl(_) => None,
            })
            .collect()
    };
    let (got, want) = (keyed(&run.events), keyed(&run.truth));
    let missing: Vec<&(String, Scn)> = want.iter().filter(|w| !got.contains(w)).collect();
    assert!(missing.is_empty(), "committed changes lost: {missing:?}");
    // A change mined while its transaction was open shows ROLL_BACK = 0 and
    // comes out if a savepoint rollback takes it back later: the one case
    // left, and the only difference allowed.
    let extra: Vec<&(String, Scn)> = got
        .iter()
        .filter(|g| !want.contains(g) && !undone.contains_key(&g.1))
        .collect();
    assert!(extra.is_empty(), "changes not in the truth: {extra:?}");
}

/// The last SCN a capture's truth covers.
fn run_end(run: &Captured) -> Scn {
    run.truth
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some(c.source.commit_scn),
            CapturedEvent::Ddl(_) => None,
        })
        .max()
        .unwrap_or(0)
}

/// `APP.ORDERS` gets a column 30 s after the warm-up.
const ADD_REGION: (&str, &str) = (
    "username = \"APP\"",
    "username = \"APP\"\nmaintenance = [{ at_s = 330, table = \"APP.ORDERS\", action = \"add_column\", \
     column = { name = \"REGION\", type = \"VARCHAR(10)\" } }]",
);

/// The changes of the dictionary-drift finding of APP.ORDERS, if any.
fn drifted(run: &Captured) -> u64 {
    run.findings
        .iter()
        .filter_map(|f| match f {
            Finding::DictionaryDrift { table, changes, .. } if table == "ORDERS" => Some(*changes),
            _ => None,
        })
        .sum()
}

#[test]
fn changes_mined_after_an_add_column_they_precede_take_the_new_column_and_are_a_finding_issue34() {
    let scenario = dm8_scenario(&[ADD_REGION]);
    let behind = capture_dm8_from(scenario.clone(), 6_000, true);
    assert!(
        behind.error.is_none(),
        "{:?}",
        behind.error.as_ref().map(ToString::to_string)
    );
    let ddl_scn = behind
        .events
        .iter()
        .find_map(|e| match e {
            CapturedEvent::Ddl(d) if d.ddl.contains("ADD \"REGION\"") => Some(d.source.scn),
            _ => None,
        })
        .expect("the ADD COLUMN was mined");
    // DM8 renders with today's columns: an insert written before the DDL
    // names REGION (NULL), which the row did not have when written.
    let early = behind
        .events
        .iter()
        .find_map(|e| match e {
            CapturedEvent::Change(c)
                if c.op == Op::Create && c.source.table == "ORDERS" && c.source.scn < ddl_scn =>
            {
                Some(c)
            }
            _ => None,
        })
        .expect("an insert before the DDL");
    assert!(
        early
            .after
            .as_ref()
            .is_some_and(|a| a.get("REGION").is_some()),
        "{early:?}"
    );
    let n = drifted(&behind);
    assert!(
        n > 10,
        "a capture behind the DDL mined {n} earlier changes after it"
    );
    // A capture that keeps up mined most of them before the DDL was made.
    let current = capture_dm8(scenario, 6_000);
    assert!(drifted(&current) < n, "{} >= {n}", drifted(&current));
}
