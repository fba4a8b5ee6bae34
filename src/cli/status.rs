//! `cdcctl status`: the state of a running (or stopped) `cdcctl run`, in
//! the manner of GoldenGate's `INFO ALL`, `LAG` and `SEND ... SHOWTRANS`,
//! as a screen or JSON, with exit codes a monitoring check can use.
//!
//! It reads the status document the daemon publishes
//! ([`cdcctl::telemetry::report`]), or the checkpoint when there is none.

use crate::cli::log;
use cdcctl::output::count;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use chrono::{DateTime, Utc};
use clap::Args;
use serde::Serialize;

use crate::cli::duration::parse_duration;
use crate::cli::exit;
use cdcctl::engine::checkpoint::FileCheckpointStore;
use cdcctl::engine::lag_cause::Diagnosis;
use cdcctl::engine::snapshot::SnapshotProgress;
use cdcctl::telemetry::report::{DaemonReport, OpenTxn, StatusFile};

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The checkpoint of the `run` to report on; its status file is read
    /// from next to it.
    #[arg(
        long,
        default_value = "cdcctl-checkpoint.json",
        conflicts_with = "metrics"
    )]
    pub checkpoint: PathBuf,
    /// Ask the running daemon at its `--metrics` address instead
    /// (HOST:PORT or http://HOST:PORT).
    #[arg(long, value_name = "URL")]
    pub metrics: Option<String>,
    /// Output: `human` or `json`.
    #[arg(long, value_parser = ["human", "json"], default_value = "human")]
    pub format: String,
    /// Exit 1 (WARNING) when the lag exceeds this.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warn: Option<Duration>,
    /// Exit 1 (CRITICAL) when the lag exceeds this.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub crit: Option<Duration>,
}

/// The verdict of a status check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Health {
    Ok,
    Warning,
    Critical,
    /// Not running, or not reachable.
    Unknown,
}

impl Health {
    fn exit_code(self) -> u8 {
        match self {
            Health::Ok => exit::OK,
            Health::Warning | Health::Critical => exit::FINDINGS,
            Health::Unknown => exit::UNREACHABLE,
        }
    }
}

/// What `status` prints: the report plus what it concluded.
#[derive(Debug, Serialize)]
pub struct StatusView {
    pub health: Health,
    /// Whether the daemon that wrote the report is alive.
    pub running: bool,
    /// `max(lag at checkpoint, time since the last checkpoint)`: a daemon
    /// that stopped checkpointing falls behind by the time since.
    pub lag_seconds: Option<i64>,
    pub since_checkpoint_seconds: Option<i64>,
    pub reason: Option<String>,
    pub report: Option<DaemonReport>,
    /// The checkpoint's snapshot while one is being taken (or stopped
    /// part-way), in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// Why capture is behind, or that it keeps up: the daemon's diagnosis
    /// as of its report, while it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Diagnosis>,
}

/// The health of `report` at `now`; `running` says whether its process lives.
pub fn assess(
    report: Option<DaemonReport>,
    running: bool,
    now: DateTime<Utc>,
    warn: Option<Duration>,
    crit: Option<Duration>,
) -> StatusView {
    let Some(r) = report else {
        return StatusView {
            health: Health::Unknown,
            running: false,
            lag_seconds: None,
            since_checkpoint_seconds: None,
            reason: Some("no status: the daemon has not started here".into()),
            report: None,
            snapshot: None,
            cause: None,
        };
    };
    let since = r.checkpoint_at.map(|t| (now - t).num_seconds().max(0));
    let lag = match (r.lag_seconds, since) {
        (Some(l), Some(s)) => Some(l.max(s)),
        (l, s) => l.or(s),
    };
    let over = |limit: Option<Duration>| {
        limit.is_some_and(|d| {
            lag.is_some_and(|l| l > i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        })
    };
    let (health, reason) = if !running {
        (
            Health::Unknown,
            Some(format!("not running (pid {} has ended)", r.pid)),
        )
    } else if over(crit) {
        (Health::Critical, Some("lag above --crit".to_string()))
    } else if over(warn) {
        (Health::Warning, Some("lag above --warn".to_string()))
    } else {
        (Health::Ok, None)
    };
    StatusView {
        health,
        running,
        lag_seconds: lag,
        since_checkpoint_seconds: since,
        reason,
        cause: running.then(|| cause_now(&r, lag)).flatten(),
        report: Some(r),
        snapshot: None,
    }
}

/// The cause the daemon wrote, unless a snapshot chunk has held it since:
/// the file is rewritten at checkpoints, and none is taken while a chunk
/// is read, so a lag grown past the snapshot's 5 s with a table being read
/// names the chunk.
fn cause_now(r: &DaemonReport, lag: Option<i64>) -> Option<Diagnosis> {
    use cdcctl::engine::lag_cause::{self, LagFacts, SNAPSHOT_HOLD_LAG_S};
    let hold = r.snapshot.as_ref().and_then(lag_cause::snapshot_hold);
    let written = r.cause.clone();
    match hold {
        Some(h)
            if lag.unwrap_or(0) >= SNAPSHOT_HOLD_LAG_S
                && written
                    .as_ref()
                    .is_none_or(|c| c.cause != lag_cause::Cause::SourceErrors) =>
        {
            Some(lag_cause::diagnose(&LagFacts {
                lag_s: lag,
                snapshot: Some(h),
                ..LagFacts::default()
            }))
        }
        _ => written,
    }
}

fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // Signal 0 only checks that the process exists.
    // SAFETY: kill with signal 0 sends nothing.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// `HOST:PORT` or `http://HOST:PORT[/...]` as the host and port to connect to.
fn host_port(url: &str) -> &str {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    rest.split('/').next().unwrap_or(rest)
}

/// GET `/status.json` from a daemon's metrics address.
fn fetch(url: &str) -> Result<DaemonReport, String> {
    let hp = host_port(url);
    let addr = hp
        .to_socket_addrs()
        .map_err(|e| format!("{url}: {e}"))?
        .next()
        .ok_or_else(|| format!("{url}: no address"))?;
    let timeout = Duration::from_secs(5);
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("{url}: {e}"))?;
    s.set_read_timeout(Some(timeout))
        .and_then(|()| write!(s, "GET /status.json HTTP/1.0\r\nHost: {hp}\r\n\r\n"))
        .map_err(|e| format!("{url}: {e}"))?;
    let mut text = String::new();
    s.read_to_string(&mut text)
        .map_err(|e| format!("{url}: {e}"))?;
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{url}: not an HTTP response"))?;
    if !head.starts_with("HTTP/1.") || head.split_whitespace().nth(1) != Some("200") {
        let line = head.lines().next().unwrap_or_default();
        return Err(format!("{url}: {line}"));
    }
    serde_json::from_str(body).map_err(|e| format!("{url}: not a cdcctl status: {e}"))
}

fn read_local(args: &StatusArgs) -> Result<(Option<DaemonReport>, bool), String> {
    let file = StatusFile::for_checkpoint(&args.checkpoint);
    if let Some(r) = file.read()? {
        let alive = pid_alive(r.pid) && r.state != "finished" && r.state != "stopped";
        return Ok((Some(r), alive));
    }
    // A checkpoint without a status file: written by a run that never
    // published one; its positions are still worth showing.
    let cp = FileCheckpointStore::new(&args.checkpoint)
        .load()
        .map_err(|e| format!("{}: {e}", args.checkpoint.display()))?;
    Ok((
        cp.map(|cp| {
            let mut r = DaemonReport::starting(String::new(), cp.updated_at);
            r.pid = 0;
            r.state = "stopped".into();
            r.commit_scn = cp.commit_scn;
            r.restart_scn = cp.restart_scn;
            r.checkpoint_at = Some(cp.updated_at);
            r
        }),
        false,
    ))
}

/// The checkpoint's snapshot while it is unfinished, read without a lock
/// (saves replace the file whole); an unreadable checkpoint gives `None`
/// (the report, or the next reading, says more).
pub fn unfinished_snapshot(checkpoint: &Path) -> Option<SnapshotProgress> {
    let cp = FileCheckpointStore::new(checkpoint).load().ok()??;
    cp.snapshot.filter(|s| !s.finished())
}

/// The report's snapshot, in one line, while it is unfinished.
fn unfinished_in(report: &DaemonReport) -> Option<String> {
    report
        .snapshot
        .as_ref()
        .filter(|s| !s.finished())
        .map(SnapshotProgress::summary)
}

/// Why there is no status, naming where it was looked for: a reader who
/// ran `status` from another directory, or whose run keeps its checkpoint
/// elsewhere, learns which file was missing and how to name the right one.
fn not_started(checkpoint: &Path) -> String {
    format!(
        "no status: no checkpoint at {} (nor its status file); the daemon has not started here \
         — name a run's checkpoint with --checkpoint FILE (its config's `checkpoint` key)",
        checkpoint.display()
    )
}

pub fn run(args: &StatusArgs) -> ExitCode {
    let now = Utc::now();
    let view = match &args.metrics {
        Some(url) => match fetch(url) {
            Ok(r) => {
                let snapshot = unfinished_in(&r);
                let mut view = assess(Some(r), true, now, args.warn, args.crit);
                view.snapshot = snapshot;
                view
            }
            Err(e) => StatusView {
                health: Health::Unknown,
                running: false,
                lag_seconds: None,
                since_checkpoint_seconds: None,
                reason: Some(format!("unreachable: {e}")),
                report: None,
                snapshot: None,
                cause: None,
            },
        },
        None => match read_local(args) {
            Ok((r, alive)) => {
                // The checkpoint file is the durable word; a Kafka sink
                // keeps none here, and the report then tells.
                let snapshot = unfinished_snapshot(&args.checkpoint)
                    .map(|s| s.summary())
                    .or_else(|| r.as_ref().and_then(unfinished_in));
                let started = r.is_some();
                let mut view = assess(r, alive, now, args.warn, args.crit);
                view.snapshot = snapshot;
                if !started {
                    view.reason = Some(not_started(&args.checkpoint));
                }
                view
            }
            Err(e) => {
                log::error("status", &e);
                return exit::code(exit::USAGE);
            }
        },
    };
    let text = if args.format == "json" {
        serde_json::to_string_pretty(&view).unwrap_or_default() + "\n"
    } else {
        render_human(&view)
    };
    let code = view.health.exit_code();
    match exit::write_stdout(text.as_bytes()) {
        c if c == exit::code(exit::OK) => exit::code(code),
        c => c,
    }
}

fn secs(s: Option<i64>) -> String {
    match s {
        None => "?".into(),
        Some(s) if s < 120 => format!("{s}s"),
        Some(s) if s < 7200 => format!("{}m{:02}s", s / 60, s % 60),
        Some(s) => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1 << 10 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b if b < 1 << 30 => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
        b => format!("{:.1} GiB", b as f64 / f64::from(1 << 30)),
    }
}

fn txn_line(label: &str, t: &OpenTxn) -> String {
    let start = t.start_time.map_or_else(
        || "?".to_string(),
        |s| s.format("%Y-%m-%d %H:%M:%S").to_string(),
    );
    format!(
        "  {label:<8} XID {}  start SCN {}  {start}  age {}  {}  {}{}\n",
        t.xid,
        t.start_scn,
        secs(t.age_seconds),
        count(t.events, "change", "changes"),
        size(t.bytes),
        if t.spilled { "  (spilled)" } else { "" }
    )
}

/// One screen: GoldenGate operators read `INFO ALL` and `LAG` this way.
pub fn render_human(v: &StatusView) -> String {
    let mut out = String::new();
    let health = match v.health {
        Health::Ok => "OK",
        Health::Warning => "WARNING",
        Health::Critical => "CRITICAL",
        Health::Unknown => "UNKNOWN",
    };
    let Some(r) = &v.report else {
        out.push_str(&format!(
            "cdcctl run   {health}   {}\n",
            v.reason.as_deref().unwrap_or_default()
        ));
        return out;
    };
    let running = if v.running {
        format!("RUNNING ({}, pid {})", r.state, r.pid)
    } else {
        format!("STOPPED (last state {})", r.state)
    };
    out.push_str(&format!("cdcctl run   {running}   {health}"));
    if let Some(reason) = &v.reason {
        out.push_str(&format!(": {reason}"));
    }
    out.push('\n');
    if !r.sink.is_empty() {
        out.push_str(&format!("Sink                 {}\n", r.sink));
    }
    out.push_str(&format!(
        "Lag at checkpoint    {} ({})\n",
        secs(v.lag_seconds),
        count(r.lag_scns, "SCN", "SCNs")
    ));
    out.push_str(&format!(
        "Since checkpoint     {}\n",
        secs(v.since_checkpoint_seconds)
    ));
    if let Some(c) = &v.cause {
        out.push_str(&format!("Cause                {}\n", c.line()));
        out.push_str(&format!("  advice             {}\n", c.advice));
    }
    for (label, scn) in [
        ("Current SCN", r.current_scn),
        ("Mined SCN", r.mined_scn),
        ("Commit SCN", r.commit_scn),
        ("Restart SCN", r.restart_scn),
    ] {
        out.push_str(&format!("{label:<21}{scn}\n"));
    }
    out.push_str(&format!(
        "Events written       {} ({:.0}/s; {:.0} LogMiner rows/s)\n",
        r.events_written, r.events_per_second, r.rows_per_second
    ));
    out.push_str(&format!("Open transactions    {}\n", r.open_transactions));
    if let Some(t) = &r.oldest_open {
        out.push_str(&txn_line("oldest", t));
    }
    if let Some(t) = r
        .largest_open
        .as_ref()
        .filter(|l| r.oldest_open.as_ref().is_none_or(|o| o.xid != l.xid))
    {
        out.push_str(&txn_line("largest", t));
    }
    if let Some(snap) = &v.snapshot {
        out.push_str(&format!("Snapshot             {snap}\n"));
    }
    if let Some(e) = &r.error {
        out.push_str(&format!("Last error           {e}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDateTime;

    fn at(s: &str) -> DateTime<Utc> {
        match DateTime::parse_from_rfc3339(s) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => panic!("{s}: {e}"),
        }
    }

    /// Issue 36: counts of one printed as "1 SCNs", "1 changes".
    #[test]
    fn counts_of_one_are_singular_issue36() {
        let mut r = report();
        r.lag_scns = 1;
        let v = assess(Some(r), true, at("2026-11-30T10:05:02Z"), None, None);
        let text = render_human(&v);
        assert!(text.contains(" (1 SCN)\n"), "{text}");
        let t = OpenTxn {
            xid: "0009001A00000B2C".into(),
            start_scn: 13_000_901,
            start_time: None,
            age_seconds: Some(3),
            events: 1,
            bytes: 120,
            spilled: false,
        };
        assert!(
            txn_line("oldest", &t).contains(" 1 change "),
            "{}",
            txn_line("oldest", &t)
        );
    }

    fn report() -> DaemonReport {
        let start = at("2026-11-30T10:00:00Z");
        let mut r = DaemonReport::starting("kafka 127.0.0.1:9092".into(), start);
        r.pid = 4242;
        r.state = "mining".into();
        r.updated_at = at("2026-11-30T10:05:00Z");
        r.checkpoint_at = Some(at("2026-11-30T10:05:00Z"));
        r.current_scn = 13_001_200;
        r.mined_scn = 13_001_150;
        r.commit_scn = 13_001_140;
        r.restart_scn = 13_000_900;
        r.lag_scns = 50;
        r.lag_seconds = Some(4);
        r.events_written = 123_456;
        r.events_per_second = 2_048.5;
        r.rows_per_second = 3_100.0;
        r.open_transactions = 3;
        r.oldest_open = Some(OpenTxn {
            xid: "0009001A00000B2C".into(),
            start_scn: 13_000_901,
            start_time: NaiveDateTime::parse_from_str("2026-11-30 09:58:10", "%Y-%m-%d %H:%M:%S")
                .ok(),
            age_seconds: Some(170),
            events: 12,
            bytes: 4_300,
            spilled: false,
        });
        r.largest_open = Some(OpenTxn {
            xid: "000A0003000001F0".into(),
            start_scn: 13_001_000,
            start_time: None,
            age_seconds: None,
            events: 90_000,
            bytes: 70 << 20,
            spilled: true,
        });
        r
    }

    macro_rules! snap {
        ($name:expr, $value:expr) => {
            insta::with_settings!({
                snapshot_path => "../../snapshots",
                prepend_module_to_snapshot => false,
            }, {
                insta::assert_snapshot!($name, $value);
            })
        };
    }

    #[test]
    fn a_running_daemon_shows_its_lag_cause_and_advice_issue35() {
        let facts = cdcctl::engine::lag_cause::LagFacts {
            lag_s: Some(4),
            pinning: Some(cdcctl::engine::lag_cause::PinningTxn {
                xid: "0009001A00000B2C".into(),
                start_scn: 13_000_901,
                age_s: Some(170),
                events: 12,
                held_logs: 3,
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut r = report();
        r.cause = Some(cdcctl::engine::lag_cause::diagnose(&facts));
        let now = at("2026-11-30T10:05:02Z");
        let v = assess(Some(r.clone()), true, now, None, None);
        let text = render_human(&v);
        assert!(
            text.contains("Cause                a long transaction pins the restart SCN (0009001A00000B2C, open 170s, 12 changes, holds 3 logs in the window)\n"),
            "{text}"
        );
        assert!(
            text.contains("  advice             ask the owner of 0009001A00000B2C"),
            "{text}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&v).expect("json")).expect("parse");
        assert_eq!(json["cause"]["cause"], "long_transaction");
        // A daemon that ended names no cause: nothing is mined any more.
        let ended = assess(Some(r), false, now, None, None);
        assert!(!render_human(&ended).contains("Cause"));
    }

    /// The status file is not rewritten while a chunk is read: the time
    /// since its checkpoint is the stream's lag, and past 5 s with a table
    /// being read the chunk is the cause, not what the file said before it.
    #[test]
    fn a_chunk_read_since_the_last_checkpoint_is_named_once_it_holds_5_s_issue35() {
        let mut r = report();
        r.lag_seconds = Some(0);
        r.cause = Some(cdcctl::engine::lag_cause::diagnose(&Default::default()));
        r.snapshot = Some(
            serde_json::from_value(serde_json::json!({
                "tables": [{"table": {"owner": "APP", "table": "ORDER_HIS"},
                            "after_key": null, "chunks": 0, "rows": 0, "state": "reading"}],
                "chunks": 0, "last_scn": 0
            }))
            .expect("progress"),
        );
        let cause = |now| {
            assess(Some(r.clone()), true, at(now), None, None)
                .cause
                .map(|c| c.cause.label())
        };
        assert_eq!(cause("2026-11-30T10:05:02Z"), Some("keeping_up"));
        assert_eq!(cause("2026-11-30T10:05:09Z"), Some("snapshot_chunk"));
    }

    #[test]
    fn healthy_daemon_screen() {
        let v = assess(
            Some(report()),
            true,
            at("2026-11-30T10:05:02Z"),
            Some(Duration::from_secs(60)),
            None,
        );
        assert_eq!(v.health, Health::Ok);
        snap!("status_human_ok", render_human(&v));
    }

    #[test]
    fn healthy_daemon_json() {
        let v = assess(Some(report()), true, at("2026-11-30T10:05:02Z"), None, None);
        snap!(
            "status_json_ok",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        );
    }

    #[test]
    fn lag_counts_the_time_since_a_checkpoint_that_stopped_coming() {
        let now = at("2026-11-30T10:15:00Z");
        let v = assess(
            Some(report()),
            true,
            now,
            Some(Duration::from_secs(60)),
            Some(Duration::from_secs(300)),
        );
        assert_eq!(v.lag_seconds, Some(600));
        assert_eq!(v.health, Health::Critical);
        assert_eq!(v.health.exit_code(), exit::FINDINGS);
        snap!("status_human_critical", render_human(&v));
    }

    #[test]
    fn lag_between_warn_and_crit_is_a_warning() {
        let v = assess(
            Some(report()),
            true,
            at("2026-11-30T10:07:00Z"),
            Some(Duration::from_secs(60)),
            Some(Duration::from_secs(300)),
        );
        assert_eq!((v.health, v.lag_seconds), (Health::Warning, Some(120)));
    }

    #[test]
    fn a_daemon_that_ended_is_unknown_with_exit_3() {
        let v = assess(
            Some(report()),
            false,
            at("2026-11-30T10:05:02Z"),
            None,
            None,
        );
        assert_eq!(v.health, Health::Unknown);
        assert_eq!(v.health.exit_code(), exit::UNREACHABLE);
        snap!("status_human_stopped", render_human(&v));
    }

    #[test]
    fn status_file_is_replaced_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let f = StatusFile::for_checkpoint(&dir.path().join("cp.json"));
        assert_eq!(f.path(), dir.path().join("cp.json.status"));
        f.write(&report()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(f.read(), Ok(Some(report())));
    }

    #[test]
    fn metrics_url_forms_name_host_and_port() {
        assert_eq!(host_port("http://127.0.0.1:9464/metrics"), "127.0.0.1:9464");
        assert_eq!(host_port("127.0.0.1:9464"), "127.0.0.1:9464");
    }
}
