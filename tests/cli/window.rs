//! Where a capture window ends and what an idle poll costs, on the
//! simulator: the window never reaches past the redo every open thread has
//! written to disk, an empty window waits instead of asking LogMiner for an
//! invalid range, and a quiet database is polled sparingly.

use cdcctl::engine::capture::{Capture, CaptureConfig, CaptureError, Progress, StartAt};
use cdcctl::engine::emit::SinkError;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::row::Scn;
use cdcctl::engine::txn::BufferConfig;
use cdcctl::source::sim::{Clock, Scenario, Sim, BUILTINS};
use cdcctl::source::RedoSource;

/// The commented example scenario with `threads` redo threads (RAC instances).
fn example_with_threads(threads: u16) -> Scenario {
    let text = BUILTINS
        .iter()
        .find(|b| b.name == "example")
        .map(|b| b.text)
        .expect("the example scenario is built in");
    let text = text.replacen("threads = 1 ", &format!("threads = {threads} "), 1);
    assert!(text.contains(&format!("threads = {threads} ")));
    Scenario::parse(&text, "example").expect("example scenario")
}

fn config(sim: &Sim, start: StartAt, until: Option<Scn>) -> CaptureConfig {
    CaptureConfig {
        buffer: BufferConfig {
            db_name: sim.db_name().to_string(),
            ..BufferConfig::default()
        },
        pdb: sim.default_pdb(),
        start,
        until_scn: until,
        ..CaptureConfig::default()
    }
}

/// Polls until `until` is mined (or `polls` run out), collecting changes.
fn capture(
    sim: Sim,
    start: StartAt,
    until: Scn,
    polls: usize,
) -> (Vec<CapturedEvent>, Option<CaptureError>, Capture<Sim>) {
    let cfg = config(&sim, start, Some(until));
    let mut cap = Capture::new(sim, cfg).expect("capture starts");
    let mut events = Vec::new();
    for _ in 0..polls {
        let r = cap.poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
            events.push(e);
            Ok(())
        });
        match r {
            Ok(Progress::Finished) => return (events, None, cap),
            Ok(_) => {}
            Err(e) => return (events, Some(e), cap),
        }
    }
    (events, None, cap)
}

fn change_keys(events: &[CapturedEvent]) -> Vec<(String, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            CapturedEvent::Change(c) => Some((c.source.xid.clone(), c.index)),
            CapturedEvent::Ddl(_) => None,
        })
        .collect()
}

/// Reading CURRENT_SCN consumes SCNs, so the truth comes from the very
/// simulator that was mined.
fn assert_equals_truth(sim: &Sim, from: Scn, until: Scn, got: &[CapturedEvent]) {
    let want: Vec<CapturedEvent> = sim
        .truth_between(from, until)
        .filter(|e| matches!(e, CapturedEvent::Change(_)))
        .cloned()
        .collect();
    assert!(want.len() > 50, "only {} changes", want.len());
    let (got, want) = (change_keys(got), change_keys(&want));
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(
        (got.len(), first_diff),
        (want.len(), None),
        "first difference {:?}",
        first_diff.map(|i| (&got[i], &want[i]))
    );
}

#[test]
fn issue8_two_threads_capture_without_ora_01281_and_equal_the_truth() {
    let sim = Sim::new(example_with_threads(2), Clock::Virtual { step_ms: 20 });
    let from = sim.scenario().instance.start_scn;
    let until = from + 5_000;
    let (got, err, cap) = capture(sim, StartAt::Scn(from), until, 100_000);
    assert!(err.is_none(), "{:?}", err.map(|e| e.to_string()));
    assert_equals_truth(&cap.into_source(), from, until, &got);
}

#[test]
fn issue8_single_instance_never_mines_past_the_redo_on_disk() {
    // One instance, polled every 20 ms of database time: CURRENT_SCN runs
    // ahead of what LGWR has written, and changes still in the log buffer
    // must be read once written, never skipped.
    let sim = Sim::new(example_with_threads(1), Clock::Virtual { step_ms: 20 });
    let from = sim.scenario().instance.start_scn;
    let until = from + 5_000;
    let (got, err, mut cap) = capture(sim, StartAt::Scn(from), until, 100_000);
    assert!(err.is_none(), "{:?}", err.map(|e| e.to_string()));
    let on_disk = cap.source_mut().redo_threads().expect("V$THREAD")[0].last_redo_scn;
    assert!(cap.status().mined_scn < on_disk);
    assert!(cap.checkpoint().restart_scn < on_disk);
    assert_equals_truth(&cap.into_source(), from, until, &got);
}

#[test]
fn issue8_starting_now_on_two_threads_waits_instead_of_failing() {
    // At "now" CURRENT_SCN is ahead of what the log writers have written:
    // the first windows are empty and must be idle, never ORA-01281.
    let sim = Sim::new(example_with_threads(2), Clock::Virtual { step_ms: 20 });
    let cfg = config(&sim, StartAt::Now, None);
    let mut cap = Capture::new(sim, cfg).expect("capture starts");
    let mut changes = 0usize;
    for _ in 0..300 {
        let r = cap.poll(&mut |e: CapturedEvent| -> Result<(), SinkError> {
            changes += usize::from(matches!(e, CapturedEvent::Change(_)));
            Ok(())
        });
        match r {
            Ok(Progress::Retrying) => panic!("{:?}", cap.status().state),
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(changes > 0, "nothing captured in 300 polls");
}

/// The example scenario with (almost) no workload: one change in a
/// thousand seconds.
fn idle_scenario() -> Scenario {
    let text = BUILTINS
        .iter()
        .find(|b| b.name == "example")
        .map(|b| b.text)
        .expect("the example scenario is built in")
        .replacen("rate = 20.0 ", "rate = 0.001 ", 1);
    Scenario::parse(&text, "idle").expect("idle scenario")
}

/// A database with no workload for the minute measured (one change in a
/// thousand seconds), polled with the pauses the engine asks for.
fn idle_minute_statements() -> (u64, u64) {
    let scenario = idle_scenario();
    // Each CURRENT_SCN read costs 20 ms of database time, a LAN round trip.
    let sim = Sim::new(scenario, Clock::Virtual { step_ms: 20 });
    let cfg = config(&sim, StartAt::Now, None);
    let mut cap = Capture::new(sim, cfg).expect("capture starts");
    // Settle first: the first polls read the redo already there.
    let mut elapsed_ms = 0i64;
    let mut polls = 0u64;
    let mut start_statements = None;
    while elapsed_ms < 70_000 {
        let before = cap.source_mut().model().now_ms;
        cap.poll(&mut |_e: CapturedEvent| -> Result<(), SinkError> { Ok(()) })
            .expect("an idle poll succeeds");
        let pause = cap.pause().as_millis() as i64;
        cap.source_mut().advance_ms(pause);
        elapsed_ms += cap.source_mut().model().now_ms - before;
        if elapsed_ms >= 10_000 {
            start_statements.get_or_insert(cap.source_mut().statements_sent());
            polls += 1;
        }
    }
    let sent = cap.source_mut().statements_sent() - start_statements.unwrap_or(0);
    (sent, polls)
}

#[test]
fn issue8_an_idle_minute_costs_few_statements() {
    let (statements, polls) = idle_minute_statements();
    eprintln!("idle minute: {statements} statements in {polls} polls");
    // Backed off to one poll every 3 s, each reading CURRENT_SCN and V$THREAD.
    assert!(polls <= 25, "{polls} polls in an idle minute");
    assert!(
        statements <= 2 * 25,
        "{statements} statements in an idle minute"
    );
}

#[test]
fn a_busy_poll_reads_no_inventory_while_no_log_switches() {
    // demo at 30 changes/s, polled every 20 ms of database time for a minute.
    let b = BUILTINS.iter().find(|b| b.name == "demo").expect("demo");
    let sim = Sim::new(
        Scenario::parse(b.text, "demo").expect("demo scenario"),
        Clock::Virtual { step_ms: 20 },
    );
    let cfg = config(&sim, StartAt::Now, None);
    let mut cap = Capture::new(sim, cfg).expect("capture starts");
    let start_ms = cap.source_mut().model().now_ms;
    let (mut polls, mut windows) = (0u64, 0u64);
    while cap.source_mut().model().now_ms - start_ms < 60_000 {
        let p = cap
            .poll(&mut |_e: CapturedEvent| -> Result<(), SinkError> { Ok(()) })
            .expect("a poll succeeds");
        windows += u64::from(matches!(p, Progress::Advanced { .. }));
        polls += 1;
        let pause = cap.pause().as_millis() as i64;
        cap.source_mut().advance_ms(pause);
    }
    let sent = cap.source_mut().statements_sent();
    eprintln!("busy minute: {sent} statements in {polls} polls ({windows} windows)");
    // CURRENT_SCN, V$THREAD, START_LOGMNR and the contents query per window,
    // two per idle poll, and the inventory (4) plus ADD_LOGFILE only after
    // a log switch: well under the 8 of a full inventory every poll.
    assert!(windows > 100, "{windows} windows");
    assert!(sent < 5 * polls, "{sent} statements in {polls} polls");
}

#[test]
fn reading_current_scn_on_an_idle_database_advances_it() {
    let scenario = idle_scenario();
    let mut sim = Sim::new(scenario, Clock::Virtual { step_ms: 20 });
    let threads = sim.redo_threads().expect("V$THREAD");
    let a = sim.current_scn().expect("CURRENT_SCN").scn;
    let b = sim.current_scn().expect("CURRENT_SCN").scn;
    let c = sim.current_scn().expect("CURRENT_SCN").scn;
    assert!(a < b && b < c, "{a} {b} {c}");
    // No redo was written by reading it.
    assert_eq!(sim.redo_threads().expect("V$THREAD"), threads);
    assert_eq!(sim.statements_sent(), 5);
}

#[test]
fn issue8_a_thread_enabled_mid_run_does_not_stop_capture() {
    // A third RAC node joins two minutes in: its thread has no log holding
    // the start SCN, and capture reads it from its ENABLE_CHANGE# on.
    let text = BUILTINS
        .iter()
        .find(|b| b.name == "example")
        .map(|b| b.text)
        .expect("the example scenario is built in")
        .replacen("threads = 1 ", "threads = 3 ", 1)
        .replacen(
            "# thread_schedule = [",
            "thread_schedule = [{ thread = 3, enabled_at_s = 120 }]\n# thread_schedule = [",
            1,
        );
    let scenario = Scenario::parse(&text, "late-node").expect("scenario");
    let sim = Sim::new(scenario, Clock::Virtual { step_ms: 200 });
    let from = sim.scenario().instance.start_scn;
    let until = from + 8_000;
    let (got, err, mut cap) = capture(sim, StartAt::Scn(from), until, 100_000);
    assert!(err.is_none(), "{:?}", err.map(|e| e.to_string()));
    let threads = cap.source_mut().redo_threads().expect("V$THREAD");
    assert!(threads[2].enable_change > from, "{threads:?}");
    assert!(threads[2].enable_change < until, "{threads:?}");
    assert!(
        got.iter()
            .any(|e| matches!(e, CapturedEvent::Change(c) if c.source.thread == 3)),
        "no change from the node added later"
    );
    assert_equals_truth(&cap.into_source(), from, until, &got);
}

fn cdcctl(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("cdcctl runs")
}

fn json_lines(text: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// What identifies a change independently of how it was delivered.
fn identity(v: &serde_json::Value) -> String {
    format!(
        "{} {} {} {} {}",
        v["source"]["txId"], v["source"]["scn"], v["source"]["commit_scn"], v["op"], v["after"]
    )
}

/// `run` and `tail` on the RAC scenario, real clock, through node 2's quiet
/// minutes (in the warm-up history): every change the truth has, in order.
#[test]
fn issue8_rac_scenario_through_run_and_tail_equals_the_ground_truth() {
    let dir = tempfile::tempdir().expect("tempdir");
    let from: u64 = 13_000_000;
    let until = from + 12_000;
    let truth = cdcctl(
        dir.path(),
        &[
            "sim",
            "truth",
            "--scenario",
            "rac",
            "--until-scn",
            &until.to_string(),
        ],
    );
    assert_eq!(truth.status.code(), Some(0));
    let want: Vec<String> = json_lines(&truth.stdout)
        .iter()
        .filter(|v| v["source"]["table"] == "ORDERS" || v["source"]["table"] == "CUSTOMERS")
        .map(identity)
        .collect();
    assert!(want.len() > 1_000, "truth has {} changes", want.len());
    let (from, until) = (from.to_string(), until.to_string());
    let run = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:rac",
            "run",
            "--from-scn",
            &from,
            "--until-scn",
            &until,
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
        ],
    );
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = std::fs::read(dir.path().join("out.jsonl")).expect("output");
    let got: Vec<String> = json_lines(&written).iter().map(identity).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "run differs from the truth");
    let tail = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:rac",
            "tail",
            "APP.%",
            "--plain",
            "--from-scn",
            &from,
            "--until-scn",
            &until,
            "--lag-every",
            "0",
        ],
    );
    assert_eq!(
        tail.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&tail.stderr)
    );
    let got: Vec<String> = json_lines(&tail.stdout).iter().map(identity).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "tail differs from the truth");
}

#[test]
fn issue8_a_quiet_rac_node_holds_capture_at_its_last_redo_then_capture_resumes() {
    let b = BUILTINS.iter().find(|b| b.name == "rac").expect("rac");
    let mut sim = Sim::new(
        Scenario::parse(b.text, "rac").expect("rac scenario"),
        Clock::Virtual { step_ms: 500 },
    );
    // 15 minutes in, node 2 falls quiet until 19.5 minutes.
    sim.advance_ms(910_000 - 420_000);
    let cfg = config(&sim, StartAt::Now, None);
    let mut cap = Capture::new(sim, cfg).expect("capture starts");
    let mut sink = |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) };
    // Started "now", past node 2's last redo: nothing is mined until node 2
    // writes again, and then never past what both nodes have written.
    let start = cap.status().mined_scn;
    let mut held = 0;
    let mut resumed = false;
    for _ in 0..2_000 {
        cap.poll(&mut sink).expect("no error while a node is quiet");
        let pause = cap.pause().as_millis() as i64;
        cap.source_mut().advance_ms(pause);
        let threads = cap.source_mut().redo_threads().expect("V$THREAD");
        let node2 = threads[1].last_redo_scn;
        let node1 = threads[0].last_redo_scn;
        let mined = cap.status().mined_scn;
        assert!(
            mined == start || mined < node1.min(node2),
            "mined {mined} (started at {start}) past node 2's {node2}"
        );
        if node1 > node2 + 1_000 && mined == start {
            held += 1;
        }
        if cap.source_mut().model().now_ms > 1_180_000 && mined > node1.saturating_sub(1_000) {
            resumed = true;
            break;
        }
    }
    // About four minutes of polls, 3 s apart once backed off.
    assert!(held > 50, "node 2 was never behind ({held} polls)");
    assert!(resumed, "capture did not catch up once node 2 wrote again");
}
