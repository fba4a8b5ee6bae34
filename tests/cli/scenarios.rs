//! Every built-in scenario through the real capture engine, compared with
//! the simulator's ground truth: nothing lost, nothing duplicated, same
//! order — straight through, across restarts from checkpoints, and with
//! the faults each scenario injects surfacing as typed errors.

use crate::common::known;
use cdcctl::engine::capture::{Capture, CaptureConfig, CaptureError, Progress, StartAt};
use cdcctl::engine::charset::{Charset, CharsetDictionary};
use cdcctl::engine::checkpoint::Checkpoint;
use cdcctl::engine::emit::SinkError;
use cdcctl::engine::event::{CapturedEvent, Image};
use cdcctl::engine::finding::Finding;
use cdcctl::engine::row::Scn;
use cdcctl::engine::txn::BufferConfig;
use cdcctl::source::sim::{Clock, Scenario, Sim, BUILTINS};
use cdcctl::source::Catalog;

fn sim(name: &str) -> Sim {
    let b = BUILTINS
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no built-in {name}"));
    let scenario = Scenario::parse(b.text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    Sim::new(scenario, Clock::Virtual { step_ms: 1000 }).with_default_pdb()
}

fn config(s: &mut Sim, start: StartAt, until: Scn) -> CaptureConfig {
    let tables = Catalog::tables(s, &[]).expect("tables");
    // The character sets and column types `run` reads from the catalog, to
    // decode character data LogMiner printed as HEXTORAW.
    let instance = Catalog::instance(s).expect("instance");
    let charset = |name: &str| Charset::from_oracle_name(name).expect("a character set");
    let mut charsets = CharsetDictionary::new(
        charset(&instance.nls_characterset),
        charset(&instance.nls_nchar_characterset),
    );
    for t in &tables {
        for c in &t.columns {
            charsets.add_column(&t.name.owner, &t.name.table, &c.name, &c.data_type);
        }
    }
    let key_columns = tables
        .into_iter()
        .map(|t| {
            let k = t.key_columns();
            (t.name, k)
        })
        .collect();
    CaptureConfig {
        key_columns,
        buffer: BufferConfig {
            db_name: s.db_name().to_string(),
            charsets: Some(std::sync::Arc::new(charsets)),
            ..BufferConfig::default()
        },
        pdb: s.default_pdb(),
        start,
        until_scn: Some(until),
        ..CaptureConfig::default()
    }
}

struct Run {
    events: Vec<CapturedEvent>,
    findings: Vec<Finding>,
    error: Option<CaptureError>,
}

/// Captures (from, until], restarting from a checkpoint after every
/// `restart_every` events when given (the source survives, as the database would).
fn capture(name: &str, from: Scn, until: Scn, restart_every: Option<usize>) -> Run {
    capture_from(sim(name), name, from, until, restart_every)
}

/// [`capture`] of a given simulator.
fn capture_from(
    source: Sim,
    name: &str,
    from: Scn,
    until: Scn,
    restart_every: Option<usize>,
) -> Run {
    let mut start = StartAt::Scn(from);
    let mut source = source;
    let mut events = Vec::new();
    let mut findings = Vec::new();
    for _restart in 0..10_000 {
        let cfg = config(&mut source, start.clone(), until);
        let mut cap = match Capture::new(source, cfg) {
            Ok(c) => c,
            Err(e) => {
                return Run {
                    events,
                    findings,
                    error: Some(e),
                };
            }
        };
        let mut since_start = 0usize;
        let outcome = loop {
            let limit = restart_every.unwrap_or(usize::MAX);
            let r = cap.poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
                if since_start >= limit {
                    return Err("restart".into());
                }
                events.push(e);
                since_start += 1;
                Ok(())
            });
            findings.extend(cap.take_findings().into_iter().map(|f| f.finding));
            match r {
                Ok(Progress::Finished) => break None,
                Ok(_) => continue,
                Err(CaptureError::Txn(cdcctl::engine::txn::TxnError::Sink(_))) => {
                    break Some(cap.checkpoint())
                }
                Err(e) => {
                    return Run {
                        events,
                        findings,
                        error: Some(e),
                    }
                }
            }
        };
        match outcome {
            None => {
                return Run {
                    events,
                    findings,
                    error: None,
                }
            }
            Some(cp) => {
                let cp: Checkpoint = Checkpoint::from_json(&cp.to_json()).expect("checkpoint JSON");
                start = StartAt::Checkpoint(cp);
                source = cap.into_source();
            }
        }
    }
    panic!("{name}: too many restarts");
}

fn truth(name: &str, from: Scn, until: Scn) -> Vec<CapturedEvent> {
    let mut s = sim(name);
    s.advance_to_scn(until + 1);
    s.truth_between(from, until)
        .filter(|e| matches!(e, CapturedEvent::Change(_)))
        .cloned()
        .collect()
}

fn lines(events: &[CapturedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => {
                let mut c = c.clone();
                // Columns in name order: a value reassembled from 32K or LOB
                // rows comes after the statement's own columns.
                let sorted = |img: Option<Image>| {
                    img.map(|mut i| {
                        i.sort_by_name();
                        i
                    })
                };
                c.before = sorted(known(&c.before));
                c.after = sorted(known(&c.after));
                Some(c.to_json_line())
            }
            CapturedEvent::Ddl(_) => None,
        })
        .collect()
}

fn assert_same(name: &str, got: &[CapturedEvent], want: &[CapturedEvent]) {
    let (got, want) = (lines(got), lines(want));
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(
        (got.len(), first_diff),
        (want.len(), None),
        "{name}: first difference {:?}",
        first_diff.map(|i| (&got[i], &want[i]))
    );
}

fn window(name: &str, scns: Scn) -> (Scn, Scn) {
    let s = sim(name);
    let from = s.scenario().instance.start_scn;
    (from, from + scns)
}

const HEALTHY: &[&str] = &[
    "demo",
    "noarchivelog",
    "undo-too-small",
    "fra-nearly-full",
    "interval-partition-churn",
    "long-transaction",
    "big-transaction",
    "oracle11g",
    "rac",
    "lobs",
    "redo-forms",
];

#[test]
fn every_healthy_scenario_captures_exactly_the_ground_truth() {
    for name in HEALTHY {
        let (from, until) = window(name, 10_000);
        let t = std::time::Instant::now();
        let run = capture(name, from, until, None);
        eprintln!("{name}: {} events in {:?}", run.events.len(), t.elapsed());
        assert!(
            run.error.is_none(),
            "{name}: {:?}",
            run.error.map(|e| e.to_string())
        );
        let want = truth(name, from, until);
        assert!(
            want.len() > 100,
            "{name}: only {} changes in the window",
            want.len()
        );
        assert_same(name, &run.events, &want);
    }
}

#[test]
fn restarts_from_checkpoints_neither_lose_nor_repeat_changes() {
    for name in [
        "demo",
        "long-transaction",
        "big-transaction",
        "oracle11g",
        "rac",
    ] {
        let (from, until) = window(name, 4_000);
        let want = truth(name, from, until);
        for every in [13, 250] {
            let run = capture(name, from, until, Some(every));
            assert!(
                run.error.is_none(),
                "{name}/{every}: {:?}",
                run.error.map(|e| e.to_string())
            );
            assert_same(
                &format!("{name} restarting every {every}"),
                &run.events,
                &want,
            );
        }
    }
}

#[test]
fn wrong_container_stops_with_ora_65040_and_its_advice() {
    let (from, until) = window("wrong-container", 5_000);
    let run = capture("wrong-container", from, until, None);
    let err = run.error.expect("mining inside a PDB on 19c must fail");
    assert_eq!(err.ora_code(), Some(65040), "{err}");
    assert!(err.advice().unwrap_or_default().contains("CDB$ROOT"));
    assert!(run.events.is_empty());
}

#[test]
fn missing_grants_stop_capture_with_ora_01031() {
    let (from, until) = window("missing-grants", 5_000);
    let err = capture("missing-grants", from, until, None)
        .error
        .expect("LogMiner without LOGMINING must fail");
    assert_eq!(err.ora_code(), Some(1031), "{err}");
    assert!(!err.is_untrusted_data());
}

#[test]
fn archive_gap_stops_capture_as_untrusted_data_never_skipping_the_gap() {
    let (from, until) = window("archive-gap", 200_000);
    let run = capture("archive-gap", from, until, None);
    let err = run.error.expect("deleted archives must stop capture");
    assert!(err.is_untrusted_data(), "{err}");
    // cdcctl sees the hole in V$ARCHIVED_LOG before asking LogMiner (which
    // would answer ORA-01291), and names the missing sequences.
    let text = err.to_string();
    assert!(text.contains("archive gap on thread 1"), "{text}");
    assert!(err
        .advice()
        .unwrap_or_default()
        .contains("RESTORE ARCHIVELOG"));
    // What was emitted before the stop is a prefix of the truth: no skipping.
    let want = truth("archive-gap", from, until);
    let got = lines(&run.events);
    assert_eq!(got[..], lines(&want)[..got.len()]);
}

#[test]
fn no_supplemental_logging_is_reported_and_after_images_still_match() {
    let (from, until) = window("no-supplemental-logging", 20_000);
    let run = capture("no-supplemental-logging", from, until, None);
    assert!(
        run.error.is_none(),
        "{:?}",
        run.error.map(|e| e.to_string())
    );
    assert!(
        run.findings
            .iter()
            .any(|f| matches!(f, Finding::PartialBeforeImage { .. })),
        "partial before images must be reported, got {:?}",
        run.findings.iter().map(Finding::code).collect::<Vec<_>>()
    );
    let want = truth("no-supplemental-logging", from, until);
    assert_eq!(run.events.len(), want.len());
    for (g, w) in run.events.iter().zip(&want) {
        let (CapturedEvent::Change(g), CapturedEvent::Change(w)) = (g, w) else {
            panic!("only changes are compared");
        };
        assert_eq!(
            (g.op, &g.source.xid, g.index),
            (w.op, &w.source.xid, w.index)
        );
        if g.op == cdcctl::engine::event::Op::Create {
            assert_eq!(known(&g.after), known(&w.after));
        }
    }
}

#[test]
fn dm8_capture_equals_the_ground_truth_straight_through_and_across_restarts() {
    let (from, until) = window("dm8", 10_000);
    let want = truth("dm8", from, until);
    assert!(
        want.len() > 100,
        "only {} changes in the window",
        want.len()
    );
    let run = capture("dm8", from, until, None);
    assert!(
        run.error.is_none(),
        "{:?}",
        run.error.map(|e| e.to_string())
    );
    assert_same("dm8", &run.events, &want);
    let (from, until) = window("dm8", 4_000);
    let want = truth("dm8", from, until);
    for every in [13, 250] {
        let run = capture("dm8", from, until, Some(every));
        assert!(
            run.error.is_none(),
            "dm8/{every}: {:?}",
            run.error.map(|e| e.to_string())
        );
        assert_same(&format!("dm8 restarting every {every}"), &run.events, &want);
    }
}

#[test]
fn dm8_rollbacks_leave_no_change_whether_or_not_dm8_writes_undo_rows() {
    for rows in ["none", "flagged", "original"] {
        let model = format!("rollback_rows = \"{rows}\"");
        let edits = [
            ("rollback_rows = \"none\"", model.as_str()),
            ("rollback_pct = 5.0", "rollback_pct = 30.0"),
        ];
        let (run, want, restart_scn) = dm8_variant(&edits, 4_000);
        assert!(
            run.error.is_none(),
            "{rows}: {:?}",
            run.error.map(|e| e.to_string())
        );
        assert!(want.len() > 50, "{rows}: {} changes", want.len());
        assert_same(&format!("dm8 rollback rows {rows}"), &run.events, &want);
        // No end row marks a DM8 rollback: left in the buffer, a rolled-back
        // transaction would pin the restart SCN at its start for good.
        let want_last = want.last().map_or(0, |e| e.source().commit_scn);
        assert!(
            restart_scn + 1_000 > want_last,
            "{rows}: restart SCN {restart_scn} is pinned far behind the last commit at {want_last}"
        );
        // The same from the scenario's start, restarting from checkpoints.
        let scenario = dm8_scenario(&edits);
        let from = scenario.instance.start_scn;
        let until = from + 4_000;
        let mut t = Sim::new(scenario.clone(), Clock::Virtual { step_ms: 1000 });
        t.advance_to_scn(until + 1);
        let want: Vec<CapturedEvent> = t
            .truth_between(from, until)
            .filter(|e| matches!(e, CapturedEvent::Change(_)))
            .cloned()
            .collect();
        for every in [7, 100] {
            let source = Sim::new(scenario.clone(), Clock::Virtual { step_ms: 1000 });
            let run = capture_from(source, "dm8 variant", from, until, Some(every));
            assert!(
                run.error.is_none(),
                "{rows}/{every}: {:?}",
                run.error.map(|e| e.to_string())
            );
            assert_same(
                &format!("dm8 rollback rows {rows} restarting every {every}"),
                &run.events,
                &want,
            );
        }
    }
}

/// The `dm8` built-in with edits to its text.
fn dm8_scenario(edits: &[(&str, &str)]) -> Scenario {
    let b = BUILTINS.iter().find(|b| b.name == "dm8").expect("dm8");
    let mut text = b.text.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "dm8 has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Scenario::parse(&text, "dm8 variant").expect("a valid variant")
}

/// A DM8 scenario with edits to its text, captured through the engine
/// from where its warm-up left it for `scns` SCNs, polled as a running
/// capture polls (a second of database time each), with the truth of the
/// transactions committed in that range and the restart SCN of the last
/// checkpoint.
fn dm8_variant(edits: &[(&str, &str)], scns: Scn) -> (Run, Vec<CapturedEvent>, Scn) {
    let scenario = dm8_scenario(edits);
    let mut source = Sim::new(scenario.clone(), Clock::Virtual { step_ms: 1000 });
    let from = source.model().scn;
    let until = from + scns;
    let cfg = config(&mut source, StartAt::Scn(from), until);
    let mut cap = Capture::new(source, cfg).expect("capture");
    let mut events = Vec::new();
    let mut findings = Vec::new();
    let error = loop {
        let r = cap.poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
            events.push(e);
            Ok(())
        });
        findings.extend(cap.take_findings().into_iter().map(|f| f.finding));
        match r {
            Ok(Progress::Finished) => break None,
            Ok(_) => continue,
            Err(e) => break Some(e),
        }
    };
    let restart_scn = cap.checkpoint().restart_scn;
    let mut t = Sim::new(scenario, Clock::Virtual { step_ms: 1000 });
    t.advance_to_scn(until + 1);
    // Transactions under way at the start point are read from their start.
    let want = t
        .truth()
        .filter(|e| {
            matches!(e, CapturedEvent::Change(c)
                if c.source.commit_scn > from && c.source.commit_scn <= until)
        })
        .cloned()
        .collect();
    (
        Run {
            events,
            findings,
            error,
        },
        want,
        restart_scn,
    )
}

#[test]
fn dm8_key_only_before_images_are_reported_and_inserts_still_match() {
    let (run, want, _) = dm8_variant(&[("rlog_append_logic = 2", "rlog_append_logic = 1")], 4_000);
    assert!(
        run.error.is_none(),
        "{:?}",
        run.error.map(|e| e.to_string())
    );
    assert!(
        run.findings
            .iter()
            .any(|f| matches!(f, Finding::KeyOnlyBeforeImage { table, .. } if table == "ORDERS")),
        "got {:?}",
        run.findings.iter().map(Finding::code).collect::<Vec<_>>()
    );
    assert_eq!(run.events.len(), want.len());
    for (g, w) in run.events.iter().zip(&want) {
        let (CapturedEvent::Change(g), CapturedEvent::Change(w)) = (g, w) else {
            panic!("only changes are compared");
        };
        assert_eq!((g.op, &g.source.xid), (w.op, &w.source.xid));
        if g.op == cdcctl::engine::event::Op::Create {
            assert_eq!(known(&g.after), known(&w.after));
        }
    }
}

#[test]
fn dm8_without_logical_logging_captures_nothing_and_without_archiving_cannot_start() {
    let (from, until) = window("dm8-append-logic-0", 4_000);
    let run = capture("dm8-append-logic-0", from, until, None);
    assert!(
        run.error.is_none(),
        "{:?}",
        run.error.map(|e| e.to_string())
    );
    assert!(
        run.events.is_empty(),
        "V$LOGMNR_CONTENTS is empty at RLOG_APPEND_LOGIC = 0"
    );
    assert!(!truth("dm8-append-logic-0", from, until).is_empty());
    let (from, until) = window("dm8-no-arch", 4_000);
    let run = capture("dm8-no-arch", from, until, None);
    let err = run.error.expect("no archived file: nothing to mine");
    assert!(err.is_untrusted_data(), "{err}");
    assert!(run.events.is_empty());
}

#[test]
fn every_builtin_is_covered_by_an_expectation_here() {
    let covered: Vec<&str> = HEALTHY
        .iter()
        .copied()
        .chain([
            "wrong-container",
            "missing-grants",
            "archive-gap",
            "no-supplemental-logging",
            "example",
            "dm8",
            "dm8-append-logic-0",
            "dm8-no-arch",
            // Run with --snapshot against its table contents in snapshot.rs.
            "snapshot-under-fire",
        ])
        .collect();
    for b in BUILTINS {
        assert!(
            covered.contains(&b.name),
            "built-in `{}` has no capture expectation",
            b.name
        );
    }
}

#[test]
fn issue10_scenario_values_that_would_spin_or_exhaust_memory_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/source/sim/scenarios/demo.toml"),
    )
    .expect("demo scenario");
    let cases = [
        (
            "rate = 30.0",
            "rate = 1e12",
            "workload.rate must be at most",
        ),
        (
            "warmup_s = 600",
            "warmup_s = 99999999999",
            "warmup_s must be at most",
        ),
        (
            "rollback_pct = 3.0",
            "rollback_pct = 250.0",
            "rollback_pct must be between 0 and 100",
        ),
        (
            "txn_size = [1, 6]",
            "txn_size = [1, 4000000000]",
            "txn_size must be at most",
        ),
    ];
    for (from, to, needle) in cases {
        assert!(base.contains(from), "demo.toml lost `{from}`");
        let path = dir.path().join("s.toml");
        std::fs::write(&path, base.replacen(from, to, 1)).expect("write");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
            .args(["--source", &format!("sim:{}", path.display()), "preflight"])
            .output()
            .expect("run cdcctl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {stderr}");
        assert!(stderr.contains(needle), "{to}: {stderr}");
    }
    // A table listed twice, and a clock that is not one.
    let table_start = base.find("[[tables]]").expect("a table");
    let table_end = base[table_start + 10..]
        .find("[[tables]]")
        .map_or(base.len(), |i| table_start + 10 + i);
    let twice = format!("{}{}", base, &base[table_start..table_end]);
    let path = dir.path().join("twice.toml");
    std::fs::write(&path, twice).expect("write");
    for (source, needle) in [
        (format!("sim:{}", path.display()), "is listed twice"),
        (
            "sim:demo?clock=warp".to_string(),
            "clock=warp is not a clock",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
            .args(["--source", &source, "preflight"])
            .output()
            .expect("run cdcctl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{source}: {stderr}");
        assert!(stderr.contains(needle), "{source}: {stderr}");
    }
}
