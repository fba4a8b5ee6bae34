//! The daemon as a monitoring system sees it: `run --metrics` scraped while
//! it captures, and `cdcctl status` with its exit codes.

use crate::run::cdcctl;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

/// A live `run` on the virtual-clock demo with metrics on a free port;
/// returns the child and the address it serves.
fn spawn_with_metrics(dir: &Path) -> (Child, String) {
    spawn_run_with_metrics(dir, &["--snapshot", "never"])
}

/// `run` with `extra` arguments and metrics on a free port.
fn spawn_run_with_metrics(dir: &Path, extra: &[&str]) -> (Child, String) {
    spawn_source_with_metrics(dir, "sim:demo?clock=virtual", extra)
}

/// `run` on `source` with `extra` arguments and metrics on a free port.
pub(crate) fn spawn_source_with_metrics(
    dir: &Path,
    source: &str,
    extra: &[&str],
) -> (Child, String) {
    let mut child = match Command::new(BIN)
        .args([
            "--source",
            source,
            "run",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--metrics",
            "127.0.0.1:0",
        ])
        .args(extra)
        .current_dir(dir)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    };
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        match lines.next() {
            Some(Ok(l)) => {
                if let Some(rest) = l.strip_prefix("cdcctl run: metrics at http://") {
                    break rest.trim_end_matches("/metrics").to_string();
                }
            }
            other => panic!("run ended before serving metrics: {other:?}"),
        }
    };
    // Keep draining stderr so the daemon never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

pub(crate) fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("request");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("response");
    let (head, body) = text.split_once("\r\n\r\n").expect("http");
    assert_eq!(head.split_whitespace().nth(1), Some("200"), "{head}");
    body.to_string()
}

/// `name{labels} value` samples of one scrape.
pub(crate) fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (k, v) = l.rsplit_once(' ')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

fn output_events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("out.jsonl"))
        .expect("output")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub(crate) fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

#[test]
fn issue14_metrics_scraped_during_a_run_count_what_the_checkpoint_covers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, addr) = spawn_with_metrics(dir.path());
    let mut scrape = BTreeMap::new();
    for _ in 0..600 {
        scrape = samples(&get(&addr, "/metrics"));
        let written: f64 = scrape
            .iter()
            .filter(|(k, _)| k.starts_with("cdcctl_events_total{"))
            .map(|(_, v)| v)
            .sum();
        if written >= 200.0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    stop(&mut child);
    let scn = |pos: &str| scrape[&format!("cdcctl_scn{{position=\"{pos}\"}}")];
    assert_eq!(scrape["cdcctl_lag_scns"], scn("current") - scn("mined"));
    assert!(scn("restart") <= scn("commit") && scn("commit") <= scn("mined"));
    assert!(scrape["cdcctl_logminer_rows_total"] > 0.0);
    assert!(scrape["cdcctl_sql_redo_bytes_total"] > 0.0);
    // Every event up to the scraped commit SCN was written and counted
    // before the scrape; none after it was counted.
    let commit = scn("commit") as u64;
    let mut want: BTreeMap<String, f64> = BTreeMap::new();
    for e in output_events(dir.path()) {
        let s = &e["source"];
        let at: u64 = s["commit_scn"]
            .as_str()
            .and_then(|v| v.parse().ok())
            .expect("scn");
        if at <= commit {
            let key = format!(
                "cdcctl_events_total{{op=\"{}\",schema=\"{}\",table=\"{}\"}}",
                e["op"].as_str().expect("op"),
                s["schema"].as_str().expect("schema"),
                s["table"].as_str().expect("table")
            );
            *want.entry(key).or_default() += 1.0;
        }
    }
    let got: BTreeMap<String, f64> = scrape
        .into_iter()
        .filter(|(k, _)| k.starts_with("cdcctl_events_total{"))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

#[test]
fn issue14_snapshot_progress_is_served_per_table_and_matches_the_rows_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, addr) =
        spawn_run_with_metrics(dir.path(), &["APP.ORDERS", "--snapshot-chunk-rows", "500"]);
    let done = "cdcctl_snapshot_table_done{schema=\"APP\",table=\"ORDERS\"}";
    let mut scrape = BTreeMap::new();
    for _ in 0..600 {
        scrape = samples(&get(&addr, "/metrics"));
        let streamed: f64 = scrape
            .iter()
            .filter(|(k, _)| k.starts_with("cdcctl_events_total{op=\"u\""))
            .map(|(_, v)| v)
            .sum();
        if scrape.get(done) == Some(&1.0) && streamed > 0.0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let report: serde_json::Value =
        serde_json::from_str(&get(&addr, "/status.json")).expect("status JSON");
    stop(&mut child);
    assert_eq!(scrape.get(done), Some(&1.0), "{scrape:?}");
    let read = output_events(dir.path())
        .iter()
        .filter(|e| e["op"] == "r")
        .count() as f64;
    assert!(read > 0.0);
    let rows = "cdcctl_snapshot_rows{schema=\"APP\",table=\"ORDERS\"}";
    assert_eq!(scrape[rows], read);
    // One count of events written (issue 35): snapshot rows are in it,
    // labelled `op="r"`.
    let counted = "cdcctl_events_total{op=\"r\",schema=\"APP\",table=\"ORDERS\"}";
    assert_eq!(scrape.get(counted), Some(&read), "{scrape:?}");
    let chunks = scrape["cdcctl_snapshot_chunks{schema=\"APP\",table=\"ORDERS\"}"];
    assert!(
        chunks >= (read / 500.0).floor(),
        "{chunks} chunks for {read} rows"
    );
    // The chunk size asked for, and a read timed per group of chunks.
    assert_eq!(
        scrape.get("cdcctl_snapshot_chunk_rows"),
        Some(&500.0),
        "{scrape:?}"
    );
    let reads = scrape["cdcctl_snapshot_chunk_read_seconds_count"];
    assert!(
        reads >= 1.0 && reads <= chunks + 1.0,
        "{reads} reads timed, {chunks} chunks"
    );
    let table = &report["snapshot"]["tables"][0];
    assert_eq!(table["rows"].as_f64(), Some(read), "{report}");
    assert_eq!(table["state"], "done", "{report}");
}

#[test]
fn issue14_status_reads_a_live_daemon_by_checkpoint_and_by_metrics_address() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, addr) = spawn_with_metrics(dir.path());
    let status_file = dir.path().join("cp.json.status");
    for _ in 0..600 {
        if status_file.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let by_file = cdcctl(dir.path(), &["status", "--checkpoint", "cp.json"]);
    let by_url = cdcctl(
        dir.path(),
        &[
            "status",
            "--metrics",
            &format!("http://{addr}"),
            "--format",
            "json",
        ],
    );
    stop(&mut child);
    let text = String::from_utf8_lossy(&by_file.stdout);
    assert_eq!(by_file.status.code(), Some(0), "{text}");
    assert!(
        text.contains("RUNNING") && text.contains("Restart SCN"),
        "{text}"
    );
    assert_eq!(by_url.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&by_url.stdout).expect("json");
    assert_eq!(v["health"], "OK");
    assert_eq!(v["report"]["pid"], child.id());
    // After the stop the file says so, and a check reports it as down.
    let after = cdcctl(dir.path(), &["status", "--checkpoint", "cp.json"]);
    assert_eq!(after.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&after.stdout).contains("STOPPED"));
}

/// A status file as a daemon with this test's pid (alive) would write it,
/// last checkpointed `minutes` ago.
fn fake_status(dir: &Path, minutes: i64) {
    let now = chrono::Utc::now();
    let at = (now - chrono::Duration::minutes(minutes)).to_rfc3339();
    let doc = serde_json::json!({
        "pid": std::process::id(), "state": "mining", "error": null, "sink": "file out.jsonl",
        "started_at": at, "updated_at": at, "checkpoint_at": at,
        "current_scn": 200, "mined_scn": 150, "commit_scn": 140, "restart_scn": 100,
        "lag_scns": 50, "lag_seconds": 3, "events_written": 10,
        "events_per_second": 1.0, "rows_per_second": 2.0,
        "open_transactions": 0, "oldest_open": null, "largest_open": null
    });
    std::fs::write(dir.join("cp.json.status"), doc.to_string()).expect("write");
}

#[test]
fn issue14_status_exit_codes_follow_the_lag_thresholds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let code = |args: &[&str]| {
        let mut a = vec!["status", "--checkpoint", "cp.json"];
        a.extend_from_slice(args);
        let out = cdcctl(dir.path(), &a);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (c, text) = code(&[]);
    assert_eq!(c, Some(3), "no daemon ran here: {text}");
    fake_status(dir.path(), 10);
    assert_eq!(code(&[]).0, Some(0));
    assert_eq!(code(&["--warn", "1h"]).0, Some(0));
    let (c, text) = code(&["--warn", "1m", "--crit", "1h"]);
    assert_eq!(c, Some(1));
    assert!(text.contains("WARNING"), "{text}");
    let (c, text) = code(&["--warn", "1m", "--crit", "5m"]);
    assert_eq!(c, Some(1));
    assert!(text.contains("CRITICAL"), "{text}");
}

#[test]
fn issue14_status_of_an_unreachable_metrics_address_exits_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let out = cdcctl(
        dir.path(),
        &["status", "--metrics", &format!("127.0.0.1:{port}")],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("unreachable"));
}

#[test]
fn issue14_status_without_a_checkpoint_file_shows_the_reported_snapshot_as_with_kafka() {
    let dir = tempfile::tempdir().expect("tempdir");
    fake_status(dir.path(), 0);
    let path = dir.path().join("cp.json.status");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("status")).expect("json");
    doc["sink"] = "kafka 127.0.0.1:9092 (cdcctl.SCHEMA.TABLE)".into();
    doc["snapshot"] = serde_json::json!({
        "tables": [
            {"table": {"owner": "APP", "table": "ORDERS"}, "after_key": ["1200"],
             "chunks": 3, "rows": 1200, "expected_rows": 4000, "state": "reading"},
            {"table": {"owner": "APP", "table": "DOCS"}, "after_key": null,
             "chunks": 0, "rows": 0, "state": "reading"}
        ],
        "chunks": 3, "last_scn": 150
    });
    std::fs::write(&path, doc.to_string()).expect("write");
    assert!(!dir.path().join("cp.json").exists());
    let out = cdcctl(dir.path(), &["status", "--checkpoint", "cp.json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("APP.ORDERS: 1200 rows of ~4000 (30%), chunk 3"),
        "{text}"
    );
    let out = cdcctl(
        dir.path(),
        &["status", "--checkpoint", "cp.json", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["snapshot"]
            .as_str()
            .is_some_and(|s| s.starts_with("table 1 of 2")),
        "{v}"
    );
}

/// Threads of a live process, as Linux counts them.
fn threads_of(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a Threads line")
}

#[test]
#[cfg(target_os = "linux")]
fn issue31_idle_connections_to_metrics_cost_no_thread_each_and_huge_heads_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut child, addr) = spawn_with_metrics(dir.path());
    let mut huge = TcpStream::connect(&addr).expect("connect");
    let _ = huge.write_all(format!("GET /{} HTTP/1.1\r\n", "a".repeat(1 << 20)).as_bytes());
    let mut answer = String::new();
    let _ = huge.read_to_string(&mut answer);
    let before = threads_of(child.id());
    let idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&addr).expect("connect"))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let during = threads_of(child.id());
    drop(idle);
    let scrape = samples(&get(&addr, "/metrics"));
    stop(&mut child);
    assert!(
        during <= before + 2,
        "300 idle connections took {} threads",
        during - before
    );
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert!(!scrape.is_empty(), "the server still answers");
}

/// What `/metrics`, `/status.json`, `status --format json` and `status`
/// say once the run names `label` as the cause (waited for up to 60 s).
pub(crate) struct Named {
    pub scrape: BTreeMap<String, f64>,
    pub report: serde_json::Value,
    pub view: serde_json::Value,
    pub human: String,
}

pub(crate) fn wait_until_named(dir: &Path, child: &mut Child, addr: &str, label: &str) -> Named {
    wait_until_named_then(dir, child, addr, label, || {})
}

/// As [`wait_until_named`], calling `before_stop` once every surface was
/// read and before the run is stopped.
pub(crate) fn wait_until_named_then(
    dir: &Path,
    child: &mut Child,
    addr: &str,
    label: &str,
    before_stop: impl FnOnce(),
) -> Named {
    let gauge = format!("cdcctl_lag_cause{{cause=\"{label}\"}}");
    let mut scrape = BTreeMap::new();
    for _ in 0..600 {
        scrape = samples(&get(addr, "/metrics"));
        if scrape.get(&gauge) == Some(&1.0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let report: serde_json::Value =
        serde_json::from_str(&get(addr, "/status.json")).expect("status JSON");
    let status_args = ["status", "--checkpoint", "cp.json", "--format", "json"];
    let wanted = format!("\"cause\": \"{label}\"");
    // The status file is rewritten every few seconds: read until it has
    // caught up with the scrape.
    let mut status = cdcctl(dir, &status_args);
    for _ in 0..100 {
        if String::from_utf8_lossy(&status.stdout).contains(&wanted) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        status = cdcctl(dir, &status_args);
    }
    let human = cdcctl(dir, &["status", "--checkpoint", "cp.json"]);
    before_stop();
    stop(child);
    assert_eq!(scrape.get(&gauge), Some(&1.0), "{scrape:?}");
    Named {
        scrape,
        report,
        view: serde_json::from_slice(&status.stdout).expect("status --format json"),
        human: String::from_utf8_lossy(&human.stdout).into_owned(),
    }
}

/// The long-transaction drill: its transaction holds the window back long
/// before the hour `--alert-txn-age` waits for, and `/metrics`,
/// `/status.json` and `status` name it as the cause.
#[test]
fn issue35_a_transaction_pinning_the_restart_scn_is_the_cause_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, addr) = spawn_source_with_metrics(
        dir.path(),
        "sim:long-transaction?clock=virtual",
        &["--snapshot", "never"],
    );
    let n = wait_until_named(dir.path(), &mut child, &addr, "long_transaction");
    let scrape = &n.scrape;
    assert_eq!(
        scrape.get("cdcctl_lag_cause{cause=\"keeping_up\"}"),
        Some(&0.0)
    );
    assert!(scrape["cdcctl_oldest_transaction_held_logs"] >= 2.0);
    assert!(scrape["cdcctl_window_seconds_count"] >= 1.0);
    assert!(scrape["cdcctl_logminer_session_start_seconds_count"] >= 1.0);
    assert!(scrape["cdcctl_contents_query_seconds_count"] >= 1.0);
    assert!(scrape["cdcctl_window_logs_count"] >= 1.0);
    assert!(scrape.contains_key("cdcctl_transactions_total{outcome=\"commit\"}"));
    assert_eq!(
        n.report["cause"]["cause"], "long_transaction",
        "{}",
        n.report
    );
    assert_eq!(n.view["cause"]["cause"], "long_transaction", "{}", n.view);
    assert!(
        n.human
            .contains("Cause                a long transaction pins the restart SCN"),
        "{}",
        n.human
    );
}

/// The snapshot-holding drill: on the real clock `snapshot-under-fire`'s
/// reads take their time (400 rows/s), so a 6,000-row chunk of ORDER_HIS
/// holds the stream for 15 s; past 5 s of lag every surface names the
/// chunk (the status file, rewritten every few seconds, within those 10 s).
#[test]
fn issue35_a_snapshot_chunk_holding_the_stream_is_the_cause_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, addr) = spawn_source_with_metrics(
        dir.path(),
        "sim:snapshot-under-fire",
        &[
            "--snapshot",
            "initial",
            "--snapshot-chunk-rows",
            "6000",
            "APP.ORDER_HIS",
        ],
    );
    let n = wait_until_named(dir.path(), &mut child, &addr, "snapshot_chunk");
    assert!(n.scrape["cdcctl_lag_seconds"] >= 5.0, "{:?}", n.scrape);
    assert_eq!(n.report["cause"]["cause"], "snapshot_chunk", "{}", n.report);
    assert!(
        n.report["cause"]["evidence"]
            .as_str()
            .is_some_and(|e| e.starts_with("reading APP.")),
        "{}",
        n.report
    );
    assert_eq!(n.view["cause"]["cause"], "snapshot_chunk", "{}", n.view);
    assert!(
        n.human
            .contains("Cause                a snapshot chunk holds the stream"),
        "{}",
        n.human
    );
}

/// `demo` with a LogMiner that returns 400 rows/s on the real clock, below
/// the ~1,000 rows/s of redo its workload writes.
pub(crate) fn slow_logminer_scenario(dir: &Path) -> String {
    let demo = include_str!("../../src/source/sim/scenarios/demo.toml");
    let text = demo
        .replace("warmup_s = 600", "warmup_s = 5")
        .replace("rate = 30.0", "rate = 300.0")
        .replace(
            "undo_retention_s = 3600",
            "undo_retention_s = 3600\nmine_rows_per_s = 400",
        );
    assert!(text.contains("mine_rows_per_s"), "demo's instance changed");
    let path = dir.join("slow-logminer.toml");
    std::fs::write(&path, text).expect("scenario");
    format!("sim:{}", path.display())
}

/// The slow-LogMiner drill: the contents' fetch takes most of every window
/// and the lag grows, so every surface names LogMiner.
#[test]
fn issue35_a_logminer_slower_than_the_redo_is_the_cause_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = slow_logminer_scenario(dir.path());
    let (mut child, addr) =
        spawn_source_with_metrics(dir.path(), &source, &["--snapshot", "never"]);
    let n = wait_until_named(dir.path(), &mut child, &addr, "slow_logminer");
    assert!(n.scrape["cdcctl_lag_seconds"] >= 2.0, "{:?}", n.scrape);
    assert_eq!(n.report["cause"]["cause"], "slow_logminer", "{}", n.report);
    assert_eq!(n.view["cause"]["cause"], "slow_logminer", "{}", n.view);
    assert!(
        n.human.contains("Cause                LogMiner is slow"),
        "{}",
        n.human
    );
}

/// Issue 36: `cdcctl status` with no checkpoint in sight said only "the
/// daemon has not started here", without the path it looked at.
#[test]
fn status_without_a_checkpoint_names_the_path_it_looked_at_issue36() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = cdcctl(dir.path(), &["status"]);
    assert_eq!(o.status.code(), Some(3));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("cdcctl-checkpoint.json"), "{text}");
    assert!(text.contains("--checkpoint"), "{text}");
    let json = cdcctl(
        dir.path(),
        &["status", "--checkpoint", "a/cp.json", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let reason = v["reason"].as_str().expect("a reason");
    assert!(reason.contains("a/cp.json"), "{reason}");
}

#[test]
fn issue35_snapshot_reads_tried_again_are_counted_by_table_and_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The partition DDL and lost undo of `snapshot-under-fire` fail reads
    // of 1,500-row chunks (see the snapshot fault test).
    let (mut child, addr) = spawn_source_with_metrics(
        dir.path(),
        "sim:snapshot-under-fire?clock=virtual",
        &["--snapshot-chunk-rows", "1500"],
    );
    let mut counted = BTreeMap::new();
    for _ in 0..1200 {
        counted = samples(&get(&addr, "/metrics"))
            .into_iter()
            .filter(|(k, _)| k.starts_with("cdcctl_snapshot_retries_total{"))
            .collect();
        if counted.keys().any(|k| k.contains("ORA-08103")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    stop(&mut child);
    // Which table's read meets the segment change depends on when the
    // reader sessions read; each count names its table.
    assert!(
        counted.iter().any(|(k, v)| ["ORDER_HIS", "AUDIT_TMP"]
            .iter()
            .any(|t| k.contains(&format!("table=\"{t}\"")))
            && k.contains("ORA-08103")
            && *v >= 1.0),
        "{counted:?}"
    );
}
