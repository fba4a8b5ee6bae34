//! The daemon driven in-process on the simulator: what `run` promises,
//! without the binary.

use std::path::Path;

use super::*;
use crate::connect::tables::parse_spec;
use crate::connect::CaptureSource;
use crate::engine::checkpoint::FileCheckpointStore;
use crate::engine::snapshot::SnapshotMode;
use crate::source::replay::ReplaySource;
use crate::source::sim::Sim;
use crate::source::Catalog;

fn orders(dir: &Path, count: u64) -> DaemonConfig {
    let source = CaptureSource {
        spec: "sim:demo?clock=virtual".into(),
        client_lib: None,
        tables: vec![parse_spec("APP.ORDERS").expect("table")],
        pdb: None,
        every_table: true,
        prompt: |_| None,
    };
    let output = dir.join("out.jsonl").display().to_string();
    let mut c = DaemonConfig::new(source, SinkChoice::File { output }, dir.join("cp.json"));
    c.snapshot = Some(SnapshotMode::Never);
    c.count = Some(count);
    c
}

fn events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("out.jsonl"))
        .expect("output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event"))
        .collect()
}

/// An event's position as the checkpoint holds it: the XID as LogMiner
/// prints it, upper case, where txId is lower case.
fn position(v: &serde_json::Value) -> (String, String, u64) {
    (
        v["source"]["commit_scn"].as_str().unwrap_or("").into(),
        v["source"]["txId"]
            .as_str()
            .unwrap_or("")
            .to_ascii_uppercase(),
        v["transaction"]["total_order"].as_u64().unwrap_or(0),
    )
}

#[test]
fn a_run_writes_the_events_asked_for_and_stores_their_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notices = Collected::default();
    let outcome = run(&orders(dir.path(), 300), &Signals::default(), &notices).expect("run");
    assert_eq!(outcome.ending, Ending::Finished);
    assert_eq!(outcome.written, 300);
    assert_eq!(events(dir.path()).len(), 300);
    let cp = FileCheckpointStore::new(dir.path().join("cp.json"))
        .load()
        .expect("checkpoint")
        .expect("stored");
    let last = events(dir.path()).last().map(position).expect("an event");
    let stored = cp.last_event.expect("the output's last event");
    assert_eq!(
        (stored.commit_scn.to_string(), stored.xid, stored.order),
        last
    );
    let mark = cp.output.expect("the output's mark");
    assert_eq!(
        mark.bytes,
        std::fs::metadata(dir.path().join("out.jsonl"))
            .expect("output")
            .len()
    );
}

#[test]
fn a_resumed_run_writes_each_change_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notices = Collected::default();
    for _ in 0..3 {
        run(&orders(dir.path(), 200), &Signals::default(), &notices).expect("run");
    }
    let all = events(dir.path());
    assert_eq!(all.len(), 600);
    let mut seen = std::collections::BTreeSet::new();
    for e in &all {
        assert!(seen.insert(position(e)), "written twice: {e}");
    }
    assert!(notices
        .messages()
        .iter()
        .any(|m| m.starts_with("resuming from")));
}

#[test]
fn a_raised_stop_ends_the_run_after_its_window_with_the_checkpoint_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let signals = Signals::default();
    signals
        .stop
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let notices = Collected::default();
    let outcome = run(&orders(dir.path(), 1_000_000), &signals, &notices).expect("run");
    assert_eq!(outcome.ending, Ending::Stopped);
    assert!(notices
        .messages()
        .iter()
        .any(|m| m.starts_with("stopped by a signal")));
    assert!(dir.path().join("cp.json").exists());
}

#[test]
fn a_refused_start_leaves_no_file_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = orders(dir.path(), 10);
    c.source.tables = vec![parse_spec("APP.NOPE").expect("table")];
    let e = run(&c, &Signals::default(), &Collected::default()).expect_err("unknown table");
    assert_eq!(e.exit_code(), crate::exit::USAGE, "{e}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.map(|e| e.file_name()))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_sink_that_fails_ends_the_run_with_its_error_and_no_checkpoint_past_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = orders(dir.path(), 100);
    c.sink = SinkChoice::File {
        output: "/dev/full".into(),
    };
    let e = run(&c, &Signals::default(), &Collected::default()).expect_err("a full device");
    assert_eq!(e.exit_code(), crate::exit::USAGE);
    assert!(e.to_string().contains("/dev/full"), "{e}");
    let cp = FileCheckpointStore::new(dir.path().join("cp.json"))
        .load()
        .expect("checkpoint");
    assert!(
        cp.is_none_or(|c| c.commit_scn == 0),
        "no checkpoint may cover events the sink failed to write"
    );
}

/// The events the transaction buffer alone makes of `rows`.
fn engine_events(rows: &[crate::engine::row::LogMinerRow], db: &str) -> u64 {
    use crate::engine::txn::{BufferConfig, TxnBuffer};
    let mut buffer = TxnBuffer::new(BufferConfig {
        db_name: db.into(),
        ..BufferConfig::default()
    });
    let mut n = 0;
    for row in rows.iter().cloned() {
        buffer
            .push(row, &mut |_| {
                n += 1;
                Ok(())
            })
            .expect("the engine reads every row");
    }
    n
}

#[test]
fn recorded_rows_through_the_stages_give_the_engines_events() {
    let mut sim = Sim::from_spec("oracle11g").expect("scenario");
    sim.set_truth_limit(Some(1));
    let _ = Catalog::instance(&mut sim);
    sim.pregenerate(20_000);
    let rows = sim.all_rows();
    let expected = engine_events(&rows, sim.db_name());
    let first = rows.first().map_or(0, |r| r.scn);
    let dir = tempfile::tempdir().expect("tempdir");
    let source = CaptureSource {
        spec: "sim:oracle11g?clock=virtual".into(),
        client_lib: None,
        tables: Vec::new(),
        pdb: None,
        every_table: true,
        prompt: |_| None,
    };
    let mut opened = source.open(None).expect("the scenario's dictionary");
    let replay = ReplaySource::new(rows, 500);
    let until = replay.last_scn();
    opened.source = Box::new(replay);
    let output = dir.path().join("out.jsonl").display().to_string();
    let mut c = DaemonConfig::new(
        source,
        SinkChoice::File { output },
        dir.path().join("cp.json"),
    );
    c.snapshot = Some(SnapshotMode::Never);
    c.from_scn = Some(first - 1);
    c.until_scn = Some(until);
    let outcome = run_on(&c, opened, &Signals::default(), &Collected::default()).expect("run");
    assert_eq!(outcome.written, expected);
    assert_eq!(events(dir.path()).len() as u64, expected);
}

/// A run of `count` events of any table of a built-in scenario.
fn scenario_run(dir: &Path, scenario: &str, count: u64) -> DaemonConfig {
    let source = CaptureSource {
        spec: format!("sim:{scenario}?clock=virtual"),
        client_lib: None,
        tables: Vec::new(),
        pdb: None,
        every_table: false,
        prompt: |_| None,
    };
    let output = dir.join("out.jsonl").display().to_string();
    let mut c = DaemonConfig::new(source, SinkChoice::File { output }, dir.join("cp.json"));
    c.snapshot = Some(SnapshotMode::Never);
    c.count = Some(count);
    c
}

#[test]
fn a_dm8_capture_without_logical_logging_stops_at_the_start_with_exit_4_and_the_parameter_issue34()
{
    let dir = tempfile::tempdir().expect("tempdir");
    let notices = Collected::default();
    let config = scenario_run(dir.path(), "dm8-append-logic-0", 10);
    let e = run(&config, &Signals::default(), &notices).expect_err("nothing can be captured");
    assert_eq!(e.exit_code(), crate::exit::UNTRUSTED_DATA, "{e}");
    let text = e.to_string();
    assert!(text.contains("RLOG_APPEND_LOGIC"), "{text}");
    assert!(text.contains("SP_SET_PARA_VALUE"), "{text}");
}

#[test]
fn a_dm8_capture_on_a_dmdsc_cluster_stops_at_the_start_with_exit_4_and_advice_issue34() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dm8 = crate::source::sim::scenario::BUILTINS
        .iter()
        .find(|b| b.name == "dm8")
        .expect("dm8");
    let scenario = dir.path().join("dsc.toml");
    let text = dm8
        .text
        .replacen("mpp = false", "mpp = false\ndsc_nodes = 2", 1);
    std::fs::write(&scenario, text).expect("scenario");
    let notices = Collected::default();
    let config = scenario_run(dir.path(), &scenario.display().to_string(), 10);
    let e = run(&config, &Signals::default(), &notices).expect_err("DSC is refused");
    assert_eq!(e.exit_code(), crate::exit::UNTRUSTED_DATA, "{e}");
    let text = e.to_string();
    assert!(text.contains("DMDSC cluster of 2"), "{text}");
    assert!(text.contains("single-instance"), "{text}");
}

#[test]
fn an_oracle_capture_in_noarchivelog_mode_warns_at_the_start_and_goes_on_issue34() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notices = Collected::default();
    let config = scenario_run(dir.path(), "noarchivelog", 20);
    let outcome = run(&config, &Signals::default(), &notices).expect("capture works");
    assert_eq!(outcome.written, 20);
    assert!(
        notices
            .at(Level::Warn)
            .iter()
            .any(|m| m.contains("NOARCHIVELOG")),
        "{:?}",
        notices.messages()
    );
}

/// A sink that counts what it is asked to do, keeping the checkpoints it
/// commits with.
#[derive(Default)]
struct Counting {
    written: Arc<std::sync::Mutex<(u64, Vec<Option<u64>>)>>,
    /// Set at the first commit: a signal arriving while the sink works.
    stop_at_commit: Option<Arc<AtomicBool>>,
    /// How long each commit takes (a Kafka transaction's round trips).
    commit_takes: std::time::Duration,
}

impl crate::sink::EventSink for Counting {
    fn write(
        &mut self,
        _event: &crate::engine::event::CapturedEvent,
    ) -> Result<(), crate::sink::SinkError> {
        self.written.lock().expect("lock").0 += 1;
        Ok(())
    }

    fn commit(&mut self) -> Result<(), crate::sink::SinkError> {
        self.commit_with(None)
    }

    fn commit_with(
        &mut self,
        checkpoint: Option<&crate::engine::checkpoint::Checkpoint>,
    ) -> Result<(), crate::sink::SinkError> {
        let scn = checkpoint.map(|c| c.commit_scn);
        std::thread::sleep(self.commit_takes);
        self.written.lock().expect("lock").1.push(scn);
        if let Some(stop) = &self.stop_at_commit {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }
}

fn window_commit(commit_scn: u64) -> queue::ToSink {
    queue::ToSink::Commit(Box::new(queue::Commit {
        checkpoint: Some(crate::engine::checkpoint::Checkpoint::new(
            commit_scn,
            commit_scn,
            Vec::new(),
            None,
        )),
        status: CaptureStatus::default(),
        volumes: Volumes::default(),
        snapshot: None,
    }))
}

fn event(op: crate::engine::event::Op) -> crate::engine::event::CapturedEvent {
    use crate::engine::event::{
        CapturedEvent, ChangeEvent, Field, Image, Op, SnapshotMark, SourcePosition,
    };
    let image = Image::from(vec![("ID".to_string(), Field::text("7"))]);
    CapturedEvent::Change(ChangeEvent {
        op,
        before: (op != Op::Create && op != Op::Read).then(|| image.clone()),
        after: (op != Op::Delete).then_some(image),
        source: SourcePosition::default(),
        snapshot: if op == Op::Read {
            SnapshotMark::Row
        } else {
            SnapshotMark::Stream
        },
        partial: false,
        commit_ts_ms: 0,
        index: 0,
        table_order: 0,
    })
}

/// What a sink stage fed `messages` writes and commits: events written,
/// and the commit SCN of each commit.
fn delivered(messages: Vec<queue::ToSink>) -> (u64, Vec<Option<u64>>) {
    delivered_within(messages, deliver::CommitBound::default())
}

/// [`delivered`] by a sink stage whose commits hold at most `bound`.
fn delivered_within(
    messages: Vec<queue::ToSink>,
    bound: deliver::CommitBound,
) -> (u64, Vec<Option<u64>>) {
    let (tx, rx) = sync_channel(messages.len().max(1));
    for m in messages {
        tx.send(m).expect("queued");
    }
    drop(tx);
    counted_run(&rx, bound, None)
}

/// Runs a sink stage over a [`Counting`] sink until `rx` hangs up: events
/// written, and the commit SCN of each commit.
fn counted_run(
    rx: &std::sync::mpsc::Receiver<queue::ToSink>,
    bound: deliver::CommitBound,
    stop: Option<Arc<AtomicBool>>,
) -> (u64, Vec<Option<u64>>) {
    let sink = Counting {
        stop_at_commit: stop.clone(),
        ..Counting::default()
    };
    run_into(rx, bound, stop, sink)
}

/// Runs a sink stage over `sink` until `rx` hangs up: events written, and
/// the commit SCN of each commit.
fn run_into(
    rx: &std::sync::mpsc::Receiver<queue::ToSink>,
    bound: deliver::CommitBound,
    stop: Option<Arc<AtomicBool>>,
    sink: Counting,
) -> (u64, Vec<Option<u64>>) {
    let telemetry = Telemetry::new(None, "test".into());
    run_observed(rx, bound, stop, sink, telemetry)
}

/// [`run_into`] publishing to `telemetry`.
fn run_observed(
    rx: &std::sync::mpsc::Receiver<queue::ToSink>,
    bound: deliver::CommitBound,
    stop: Option<Arc<AtomicBool>>,
    sink: Counting,
    telemetry: Arc<Telemetry>,
) -> (u64, Vec<Option<u64>>) {
    let seen = Arc::clone(&sink.written);
    let notices = notice::Collected::default();
    let stage = SinkStage {
        sink: Box::new(sink),
        store: None,
        telemetry,
        hangup: Arc::new(AtomicBool::new(false)),
        stop: stop.unwrap_or_default(),
        output: String::new(),
        rotated_after: None,
        durable: Arc::new(AtomicU64::new(0)),
        bound,
        reporter: &notices,
    };
    assert!(stage.run(rx).is_ok());
    let done = seen.lock().expect("lock").clone();
    done
}

#[test]
fn windows_already_queued_behind_a_commit_are_made_durable_in_one_group_issue31() {
    use crate::engine::event::Op;
    let mut queued = Vec::new();
    for (i, scn) in [10u64, 20, 30].into_iter().enumerate() {
        queued.push(queue::ToSink::Events(vec![event(Op::Create); i + 1]));
        queued.push(window_commit(scn));
    }
    assert_eq!(
        delivered(queued),
        (6, vec![Some(30)]),
        "one commit, with the last checkpoint"
    );
}

/// Events of a window whose commit has not come yet are written with
/// the group, but published with their own commit: a scrape never counts
/// an event past the commit SCN it shows.
#[test]
fn events_after_the_pending_commit_are_not_published_with_it_issue31() {
    use crate::engine::event::Op;
    let (tx, rx) = sync_channel(4);
    tx.send(queue::ToSink::Events(vec![event(Op::Create); 2]))
        .expect("queued");
    tx.send(window_commit(10)).expect("queued");
    tx.send(queue::ToSink::Events(vec![event(Op::Update); 3]))
        .expect("queued");
    drop(tx);
    let telemetry = Telemetry::new(None, "test".into());
    let sink = Counting::default();
    let got = run_observed(
        &rx,
        deliver::CommitBound::default(),
        None,
        sink,
        Arc::clone(&telemetry),
    );
    assert_eq!(got, (5, vec![Some(10)]), "all written, one commit");
    let counted: f64 = telemetry
        .render()
        .lines()
        .filter(|l| l.starts_with("cdcctl_events_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(counted, 2.0, "only the committed window's events");
}

/// A sink whose commits are slow holds a commit open a few commit lengths
/// for the windows that follow, though none was queued when it looked:
/// the round trips are paid once for them all.
#[test]
fn a_slow_sink_groups_windows_arriving_within_a_few_commit_lengths_issue31() {
    use crate::engine::event::Op;
    use std::time::Duration;
    let (tx, rx) = sync_channel(16);
    let feeder = std::thread::spawn(move || {
        // The first commit takes 100 ms; the second window comes during
        // it, the third 100 ms after the sink took the second.
        for (scn, after) in [(10u64, 0u64), (20, 50), (30, 150)] {
            std::thread::sleep(Duration::from_millis(after));
            tx.send(queue::ToSink::Events(vec![event(Op::Create)]))
                .expect("queued");
            tx.send(window_commit(scn)).expect("queued");
        }
    });
    let sink = Counting {
        commit_takes: Duration::from_millis(100),
        ..Counting::default()
    };
    let got = run_into(&rx, deliver::CommitBound::default(), None, sink);
    feeder.join().expect("feeder");
    assert_eq!(got, (3, vec![Some(10), Some(30)]));
}

/// A window, a snapshot chunk's three rows, then two more windows, each
/// closed by its commit (at SCN 10, 20, 30, 40).
fn chunk_between_windows() -> Vec<queue::ToSink> {
    use crate::engine::event::Op;
    vec![
        queue::ToSink::Events(vec![event(Op::Create)]),
        window_commit(10),
        queue::ToSink::Events(vec![event(Op::Read); 3]),
        window_commit(20),
        queue::ToSink::Events(vec![event(Op::Update)]),
        window_commit(30),
        queue::ToSink::Events(vec![event(Op::Update)]),
        window_commit(40),
    ]
}

/// A restart accounts for at most one snapshot chunk past the checkpoint
/// (from the output's last row), so a chunk's rows are committed alone:
/// the windows before them first, and nothing after them joins their
/// commit.
#[test]
fn a_snapshot_chunk_is_never_grouped_with_the_windows_around_it_issue31() {
    let queued = chunk_between_windows();
    assert_eq!(delivered(queued), (6, vec![Some(10), Some(20), Some(40)]));
}

/// A stop ends the stage at its next commit: what the queue still holds is
/// in no checkpoint and is mined again by the next run, so a slow sink
/// cannot hold a stopped run for as long as it takes to drain the queue.
#[test]
fn a_stop_ends_delivery_at_the_next_commit_leaving_the_queue_to_be_mined_again() {
    // Without a stop these are delivered as (6, [10, 20, 40]): a chunk's
    // rows are committed alone. The stop comes with the first commit, made
    // as the chunk's rows arrive; the chunk is the last thing delivered.
    let queued = chunk_between_windows();
    let (tx, rx) = sync_channel(queued.len());
    for m in queued {
        tx.send(m).expect("queued");
    }
    drop(tx);
    let stop = Arc::new(AtomicBool::new(false));
    assert_eq!(
        counted_run(&rx, deliver::CommitBound::default(), Some(stop)),
        (4, vec![Some(10), Some(20)])
    );
}

fn resume_point(commit_scn: u64) -> queue::ToSink {
    queue::ToSink::ResumePoint(Box::new(crate::engine::checkpoint::Checkpoint::new(
        commit_scn,
        commit_scn,
        Vec::new(),
        None,
    )))
}

/// One database transaction of millions of rows must not be one Kafka
/// transaction (the coordinator aborts it past its timeout, and the same
/// window is replayed for ever): past the bound, what the window wrote so
/// far is committed with the checkpoint its start was, which a restart
/// resumes from, dropping what the destination holds.
#[test]
fn a_window_past_the_commit_bound_is_committed_in_parts_with_its_start_issue32() {
    use crate::engine::event::Op;
    let bound = deliver::CommitBound {
        events: 2_000,
        open_for: None,
    };
    let mut queued = vec![resume_point(10)];
    queued.extend((0..5).map(|_| queue::ToSink::Events(vec![event(Op::Update); 1_000])));
    queued.push(window_commit(20));
    assert_eq!(
        delivered_within(queued, bound),
        (5_000, vec![Some(10), Some(10), Some(20)]),
        "a part per 2,000 events with the window's start, then the window's end"
    );
}

/// Windows grouped behind a pending commit (a sink slower than the engine)
/// are bounded too: the pending commit is made durable once the group
/// holds more than one commit may, not only at the grouping limits.
#[test]
fn windows_grouped_behind_a_commit_are_bounded_by_the_commit_bound_issue32() {
    use crate::engine::event::Op;
    let bound = deliver::CommitBound {
        events: 2_000,
        open_for: None,
    };
    let mut queued = vec![window_commit(10), resume_point(10)];
    queued.extend((0..5).map(|_| queue::ToSink::Events(vec![event(Op::Update); 1_000])));
    queued.push(window_commit(20));
    let (events, commits) = delivered_within(queued, bound);
    assert_eq!(events, 5_000);
    assert!(
        commits.len() >= 3 && commits.first() == Some(&Some(10)),
        "the group behind commit 10 is cut at 2,000 events: {commits:?}"
    );
}

/// While a snapshot runs the engine names no resume point (its gate
/// releases held changes out of order): then a window stays one commit.
#[test]
fn a_window_without_a_resume_point_stays_one_commit_issue32() {
    use crate::engine::event::Op;
    let bound = deliver::CommitBound {
        events: 2_000,
        open_for: None,
    };
    let mut queued = Vec::new();
    queued.extend((0..5).map(|_| queue::ToSink::Events(vec![event(Op::Update); 1_000])));
    queued.push(window_commit(20));
    assert_eq!(
        delivered_within(queued, bound),
        (5_000, vec![Some(20)]),
        "no part without a resume point"
    );
}

/// A commit open longer than the sink allows is closed even when no
/// event comes: a window whose LogMiner fetch takes minutes must not keep
/// a Kafka transaction open past its timeout.
#[test]
fn an_open_commit_is_closed_when_it_is_due_even_while_no_event_comes_issue32() {
    use crate::engine::event::Op;
    let bound = deliver::CommitBound {
        events: usize::MAX,
        open_for: Some(std::time::Duration::from_millis(50)),
    };
    let (tx, rx) = sync_channel(8);
    let feeder = std::thread::spawn(move || {
        tx.send(resume_point(10)).expect("queued");
        tx.send(queue::ToSink::Events(vec![event(Op::Update); 3]))
            .expect("queued");
        // Longer than the bound and than the stage's idle tick.
        std::thread::sleep(std::time::Duration::from_millis(1_200));
        tx.send(window_commit(20)).expect("queued");
    });
    let done = counted_run(&rx, bound, None);
    feeder.join().expect("feeder");
    assert_eq!(done, (3, vec![Some(10), Some(20)]));
}

#[test]
fn the_status_line_says_counts_of_one_in_the_singular_issue36() {
    let status = crate::engine::metrics::CaptureStatus {
        current_scn: 101,
        mined_scn: 100,
        open_transactions: 1,
        ..Default::default()
    };
    let line = super::mine::status_notice(&status, 1).message;
    assert!(
        line.contains("(lag ?, 1 SCN)")
            && line.contains(", 1 open transaction, ")
            && line.ends_with("1 event written"),
        "{line}"
    );
}

/// The snapshot rows of `events`: each row with the SCN it was read at,
/// its chunk and its mark (its time is when it was read).
fn read_rows(events: &[serde_json::Value]) -> Vec<serde_json::Value> {
    events
        .iter()
        .filter(|e| e["op"] == "r")
        .map(|e| {
            let s = &e["source"];
            serde_json::json!([s["scn"], s["snapshot_chunk"], s["snapshot"], e["after"]])
        })
        .collect()
}

/// A crash while a chunk's rows are sent leaves them out of every
/// checkpoint; a Kafka consumer may still have seen them (in a transaction
/// the crash aborted). The restart reads the chunk again at the SCN it was
/// read at, so the same rows come again with the same positions, never a
/// newer read without the rows deleted in between.
#[test]
fn a_chunk_cut_short_by_a_crash_is_read_again_at_its_scn_with_the_same_rows_issue31() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = orders(dir.path(), 0);
    c.snapshot = Some(SnapshotMode::Initial);
    c.snapshot_chunk_rows = 300;
    // The event limit ends the run inside the second chunk, before its
    // commit: its rows are in the output and in no checkpoint.
    c.count = Some(450);
    run(&c, &Signals::default(), &Collected::default()).expect("first run");
    let cp = FileCheckpointStore::new(dir.path().join("cp.json"))
        .load()
        .expect("checkpoint")
        .expect("stored");
    let committed = cp.output.expect("the output's mark").bytes;
    let out = dir.path().join("out.jsonl");
    let written = events(dir.path());
    // What the consumer saw of the cut chunk, then the output as the
    // checkpoint has it: the cut rows gone, as an aborted transaction's.
    let text = std::fs::read(&out).expect("output");
    let committed = usize::try_from(committed).expect("a small output");
    let cut: Vec<serde_json::Value> = String::from_utf8_lossy(&text[committed..])
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event"))
        .collect();
    let cut = read_rows(&cut);
    assert!(!cut.is_empty(), "the run ended inside a chunk: {written:?}");
    std::fs::write(&out, &text[..committed]).expect("truncate");
    c.count = Some(cut.len() as u64 + 50);
    run(&c, &Signals::default(), &Collected::default()).expect("second run");
    let again = read_rows(&events(dir.path()));
    for row in &cut {
        assert!(
            again.contains(row),
            "read again otherwise: {row} not among the rows written after the restart"
        );
    }
}
