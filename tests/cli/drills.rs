//! The lag-cause drills: a simulator scenario per cause, run through `run`
//! (the cause named on `/metrics`, `/status.json` and `status`) and through
//! `tail --plain`, plus a healthy scenario that keeps up.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::daemon::{spawn_source_with_metrics, wait_until_named, wait_until_named_then, Named};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");
const DEMO: &str = include_str!("../../src/source/sim/scenarios/demo.toml");

/// `demo` with `(from, to)` replacements, each checked to apply.
fn demo_with(edits: &[(&str, &str)]) -> String {
    edits.iter().fold(DEMO.to_string(), |text, (from, to)| {
        assert!(text.contains(from), "demo no longer holds {from:?}");
        text.replacen(from, to, 1)
    })
}

/// `demo` without its long transactions, which would pin the restart SCN
/// across the small logs of some drills and be named first.
fn quiet_demo(edits: &[(&str, &str)]) -> String {
    let text = demo_with(edits);
    let start = text
        .find("long_transactions = [")
        .expect("long transactions");
    let end = start + text[start..].find("\n]\n").expect("end of the list") + 3;
    format!("{}long_transactions = []\n{}", &text[..start], &text[end..])
}

/// Writes `text` as `name.toml` in `dir`; the `--source` naming it.
fn scenario(dir: &Path, name: &str, text: &str, query: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("scenario");
    format!("sim:{}{query}", path.display())
}

/// 128 KiB online logs, copied by an archiver that takes 15 s a log while
/// the workload fills one in about 11 s.
pub(crate) fn archiver_behind(dir: &Path) -> String {
    let text = quiet_demo(&[(
        "group_bytes = 4194304",
        "group_bytes = 131072\narchive_copy_s = 15.0",
    )]);
    scenario(dir, "archiver-behind", &text, "?clock=virtual")
}

/// The same 128 KiB logs with a quick archiver: some 900 switches an hour.
pub(crate) fn log_switch_storm(dir: &Path) -> String {
    let text = quiet_demo(&[("group_bytes = 4194304", "group_bytes = 131072")]);
    scenario(dir, "log-switch-storm", &text, "?clock=virtual")
}

/// The listener goes down 3 s into capture for 20 s: each reconnect
/// meanwhile raises ORA-12541.
pub(crate) fn listener_outage(dir: &Path) -> String {
    let text = demo_with(&[("warmup_s = 600", "warmup_s = 5")])
        + "\n[[faults]]\nkind = \"connection_drop\"\nat_s = 8\nduration_s = 20\n";
    scenario(dir, "listener-outage", &text, "")
}

/// `demo` at 3,000 changes/s on the real clock: the queue to the sink (8
/// batches of 1,024 events) fills within seconds of the sink stalling.
fn busy_demo(dir: &Path) -> String {
    let text = demo_with(&[
        ("warmup_s = 600", "warmup_s = 5"),
        ("rate = 30.0", "rate = 3000.0"),
    ]);
    scenario(dir, "busy", &text, "")
}

fn assert_named_everywhere(n: &Named, label: &str, title: &str) {
    assert_eq!(n.report["cause"]["cause"], label, "{}", n.report);
    assert_eq!(n.view["cause"]["cause"], label, "{}", n.view);
    let line = format!("Cause                {title}");
    assert!(n.human.contains(&line), "{}", n.human);
}

#[test]
fn issue35_an_archiver_slower_than_the_redo_is_the_cause_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = archiver_behind(dir.path());
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    let n = wait_until_named(dir.path(), &mut child, &addr, "archiver_behind");
    assert_eq!(
        n.scrape["cdcctl_online_logs_not_archived"], 2.0,
        "{:?}",
        n.scrape
    );
    assert_named_everywhere(&n, "archiver_behind", "the archiver is behind");
    assert!(
        n.human.contains("2 of 3 online logs not archived"),
        "{}",
        n.human
    );
}

#[test]
fn issue35_a_log_switch_storm_is_the_cause_everywhere_while_capture_keeps_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = log_switch_storm(dir.path());
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    let n = wait_until_named(dir.path(), &mut child, &addr, "log_switch_storm");
    assert!(
        n.scrape["cdcctl_log_switches_per_hour"] >= 600.0,
        "{:?}",
        n.scrape
    );
    assert_named_everywhere(&n, "log_switch_storm", "log-switch storm");
    assert!(n.human.contains("of 128 KiB"), "{}", n.human);
}

#[test]
fn issue35_a_listener_outage_is_the_cause_everywhere_with_its_own_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = listener_outage(dir.path());
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    let n = wait_until_named(dir.path(), &mut child, &addr, "source_errors");
    assert_eq!(
        n.scrape.get("cdcctl_lag_cause{cause=\"source_errors\"}"),
        Some(&1.0)
    );
    assert_named_everywhere(&n, "source_errors", "source errors retried");
    let evidence = n.report["cause"]["evidence"].as_str().unwrap_or_default();
    assert!(evidence.starts_with("ORA-"), "{evidence}");
}

/// A FIFO as the output, read 20 KB/s while the workload writes some
/// 3 MB/s: the queue to the sink fills and the engine waits on it.
#[test]
fn issue35_a_sink_slower_than_the_redo_is_the_cause_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("out.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let done = std::sync::Arc::clone(&done);
        std::thread::spawn(move || slow_reader(&fifo, &done))
    };
    let source = busy_demo(dir.path());
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    // The reader drains the queue at once when the run is stopped: a stop
    // delivers what the queue holds first.
    let drain = || done.store(true, std::sync::atomic::Ordering::Relaxed);
    let n = wait_until_named_then(dir.path(), &mut child, &addr, "slow_sink", drain);
    let _ = reader.join();
    assert_named_everywhere(&n, "slow_sink", "the sink is slow");
    let evidence = n.report["cause"]["evidence"].as_str().unwrap_or_default();
    assert!(evidence.contains("waited"), "{evidence}");
}

/// Reads `fifo` 4 KiB every 200 ms until `done`, then to its end.
fn slow_reader(fifo: &Path, done: &std::sync::atomic::AtomicBool) {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(fifo) else {
        return;
    };
    let mut buf = [0u8; 4096];
    loop {
        match f.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) if done.load(std::sync::atomic::Ordering::Relaxed) => {}
            Ok(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

#[test]
fn issue35_a_healthy_capture_is_keeping_up_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = quiet_demo(&[]);
    let source = scenario(dir.path(), "quiet", &text, "?clock=virtual");
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    let n = wait_until_named(dir.path(), &mut child, &addr, "keeping_up");
    assert_named_everywhere(&n, "keeping_up", "keeping up");
}

/// The causes `tail --plain` says until one starts with `title` (or 60 s
/// pass), then the tail is stopped.
fn plain_until_named(source: &str, title: &str) -> Vec<String> {
    let mut child = Command::new(BIN)
        .args(["--source", source, "tail", "--plain", "APP.ORDERS"])
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tail");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(cause) = line.strip_prefix("cdcctl tail: cause: ") {
                if tx.send(cause.to_string()).is_err() {
                    return;
                }
            }
        }
    });
    let until = Instant::now() + Duration::from_secs(60);
    let mut causes = Vec::new();
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        let Ok(cause) = rx.recv_timeout(left) else {
            break;
        };
        let named = cause.starts_with(title);
        causes.push(cause);
        if named {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    causes
}

/// `tail --plain` on `source` names `title` with its `advice`.
fn assert_plain_names(source: &str, title: &str, advice: &str) {
    let causes = plain_until_named(source, title);
    assert!(
        causes
            .iter()
            .any(|c| c.starts_with(title) && c.contains(&format!("advice: {advice}"))),
        "{causes:?}"
    );
}

#[test]
fn issue35_plain_names_the_archiver_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = archiver_behind(dir.path());
    assert_plain_names(
        &source,
        "the archiver is behind",
        "check the archive destinations",
    );
}

#[test]
fn issue35_plain_names_a_log_switch_storm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = log_switch_storm(dir.path());
    assert_plain_names(
        &source,
        "log-switch storm",
        "make the online redo logs larger",
    );
}

#[test]
fn issue35_plain_names_a_logminer_slower_than_the_redo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = crate::daemon::slow_logminer_scenario(dir.path());
    assert_plain_names(&source, "LogMiner is slow", "LogMiner reads slowly");
}

#[test]
fn issue35_plain_names_a_listener_outage_with_its_own_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = listener_outage(dir.path());
    assert_plain_names(&source, "source errors retried", "the connection dropped");
}
