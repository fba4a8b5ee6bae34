//! `cdcctl run` driven as an operator runs it: capture to a file with a
//! checkpoint, stop, resume, and compare with the simulator's ground truth.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::common::{demo_window, without_unavailable};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

pub(crate) fn cdcctl(dir: &std::path::Path, args: &[&str]) -> Output {
    match Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

/// Starts `cdcctl` in the background with stderr captured.
pub(crate) fn spawn(dir: &Path, args: &[&str]) -> Child {
    match Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

/// `run` on `source` into `out.jsonl` with `cp.json`, then `extra`.
fn scenario_run<'a>(source: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--source",
        source,
        "run",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
    ];
    args.extend_from_slice(extra);
    args
}

/// `run` of every table into `out.jsonl` with `cp.json`, without an end.
/// Streaming only: these tests are about the stream's events.
fn spawn_daemon(dir: &Path) -> Child {
    spawn(
        dir,
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--snapshot",
            "never",
        ],
    )
}

/// Waits until `path` holds at least `lines` lines (a bound on the wait
/// only keeps a broken build from hanging the suite).
fn wait_for_lines(path: &Path, lines: usize) {
    for _ in 0..6000 {
        let n = std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        if n >= lines {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} never reached {lines} lines", path.display());
}

/// Sends `signal` (e.g. "TERM") to a child.
pub(crate) fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

pub(crate) fn lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// `run APP.ORDERS` on the virtual-clock demo into `out.jsonl` with
/// `cp.json`, stopping after `count` events.
fn orders_run(count: &str) -> [&str; 12] {
    [
        "--source",
        "sim:demo?clock=virtual",
        "run",
        "APP.ORDERS",
        "--snapshot",
        "never",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        count,
    ]
}

#[test]
fn stopping_and_resuming_from_the_checkpoint_writes_each_change_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = orders_run("40");
    for round in 0..3 {
        let out = cdcctl(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let got: Vec<serde_json::Value> = lines(&text).into_iter().map(without_unavailable).collect();
    assert_eq!(got.len(), 120);
    let scn = |v: &serde_json::Value| -> u64 {
        v["source"]["commit_scn"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("commit_scn")
    };
    let (first, last) = (scn(&got[0]), scn(&got[got.len() - 1]));
    let truth = cdcctl(
        dir.path(),
        &[
            "sim",
            "truth",
            "--scenario",
            "demo",
            "--until-scn",
            &last.to_string(),
        ],
    );
    let want: Vec<serde_json::Value> = lines(&String::from_utf8_lossy(&truth.stdout))
        .into_iter()
        .filter(|v| v["source"]["table"] == "ORDERS" && scn(v) >= first)
        .map(without_unavailable)
        .collect();
    assert!(want.len() >= got.len());
    let diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(diff, None, "first difference at event {diff:?}");
}

#[test]
fn issue11_output_to_dev_null_or_a_fifo_runs_and_leaves_no_side_files_beside_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = orders_run("5");
    args[7] = "/dev/null";
    let out = cdcctl(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!Path::new("/dev/null.lock").exists());
    assert!(!Path::new("/dev/null.stream").exists());
    let cp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cp.json")).expect("cp"))
            .expect("checkpoint JSON");
    assert!(cp["commit_scn"].as_u64().unwrap_or(0) > 0, "{cp}");

    let fifo = dir.path().join("events.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read fifo"))
    };
    let mut args = orders_run("5");
    args[7] = "events.fifo";
    args[9] = "cp2.json";
    let out = cdcctl(dir.path(), &args);
    if !out.status.success() {
        // The reader waits for a writer: open the pipe once so it ends.
        let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = reader.join().expect("reader");
    assert_eq!(lines(&text).len(), 5, "{text}");
    assert!(!dir.path().join("events.fifo.lock").exists());
}

#[test]
fn from_scn_with_an_existing_checkpoint_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = [
        "--source",
        "sim:demo?clock=virtual",
        "run",
        "APP.ORDERS",
        "--output",
        "o.jsonl",
    ];
    let out = cdcctl(dir.path(), &[&base[..], &["--count", "1"]].concat());
    assert_eq!(out.status.code(), Some(0));
    let out = cdcctl(dir.path(), &[&base[..], &["--from-scn", "1"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("conflicts with the existing checkpoint"));
}

#[test]
fn issue10_torn_last_line_is_cut_on_restart_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = orders_run("5");
    let out = cdcctl(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0));
    // A kill mid-write leaves half an envelope behind.
    let path = dir.path().join("out.jsonl");
    let mut text = std::fs::read_to_string(&path).expect("output");
    text.push_str("{\"before\":null,\"after\":{\"ID\":");
    std::fs::write(&path, &text).expect("tear");
    let out = cdcctl(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cut 29 bytes of a torn last line"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&path).expect("output");
    assert_eq!(lines(&text).len(), 10);
}

#[test]
fn issue10_second_run_on_the_same_checkpoint_or_output_exits_2_naming_the_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut first = spawn_daemon(dir.path());
    wait_for_lines(&dir.path().join("out.jsonl"), 1);
    let pid = format!("PID {}", first.id());
    for (output, checkpoint) in [("other.jsonl", "cp.json"), ("out.jsonl", "other.json")] {
        let out = cdcctl(
            dir.path(),
            &[
                "--source",
                "sim:demo?clock=virtual",
                "run",
                "--output",
                output,
                "--checkpoint",
                checkpoint,
                "--count",
                "1",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&pid), "{stderr}");
    }
    first.kill().expect("kill");
    let _ = first.wait();
    // The kernel released the dead holder's locks.
    let out = cdcctl(dir.path(), &orders_run("1"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("other.jsonl").exists());
}

#[test]
fn issue10_sigterm_and_sigint_finish_the_batch_and_exit_0() {
    for sig in ["TERM", "INT"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let child = spawn_daemon(dir.path());
        wait_for_lines(&dir.path().join("out.jsonl"), 20);
        signal(&child, sig);
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "SIG{sig}: {stderr}");
        assert!(stderr.contains("stopped by a signal"), "{stderr}");
        assert!(dir.path().join("cp.json").exists());
    }
}

#[test]
fn issue10_temp_files_of_an_interrupted_checkpoint_save_are_removed_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let leftover = dir.path().join(".cp.json.Ab12Cd.tmp");
    std::fs::write(&leftover, "{\"version\": 1, \"resta").expect("leftover");
    let unrelated = dir.path().join(".other.json.Ab12Cd.tmp");
    std::fs::write(&unrelated, "x").expect("unrelated");
    let out = cdcctl(dir.path(), &orders_run("1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!leftover.exists(), "{stderr}");
    assert!(unrelated.exists());
    assert!(stderr.contains("removed 1 temporary file"), "{stderr}");
}

#[test]
fn issue10_output_of_another_checkpoint_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &orders_run("5"));
    assert_eq!(out.status.code(), Some(0));
    // Another stream (another table, another checkpoint) into the same file.
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.DOCS",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "other.json",
            "--count",
            "5",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is not the output of checkpoint other.json"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    assert_eq!(lines(&text).len(), 5);
}

#[test]
fn issue10_output_behind_the_checkpoint_exits_4_and_rewind_writes_the_gap_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.jsonl");
    for _ in 0..3 {
        let out = cdcctl(dir.path(), &orders_run("10"));
        assert_eq!(out.status.code(), Some(0));
    }
    let complete = std::fs::read_to_string(&path).expect("output");
    assert_eq!(lines(&complete).len(), 30);
    // The output restored from an older backup: its last 15 events are gone.
    let kept: String = complete
        .lines()
        .take(15)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, &kept).expect("truncate");
    let out = cdcctl(dir.path(), &orders_run("10"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("is behind checkpoint cp.json"), "{stderr}");
    let last = lines(&complete)[29]["source"]["commit_scn"]
        .as_str()
        .expect("commit_scn")
        .to_string();
    assert!(
        stderr.contains(&format!("up to commit SCN {last}")),
        "{stderr}"
    );
    let untouched = std::fs::read_to_string(&path).expect("output") == kept;
    assert!(untouched, "a refused start changed the output");
    let out = cdcctl(dir.path(), &[&orders_run("15")[..], &["--rewind"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rewound = std::fs::read_to_string(&path).expect("output");
    let diff = rewound
        .lines()
        .zip(complete.lines())
        .position(|(a, b)| a != b);
    assert_eq!(diff, None, "first difference at line {diff:?}");
    assert_eq!(rewound.lines().count(), 30);
    // And capture goes on from there.
    let out = cdcctl(dir.path(), &orders_run("5"));
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&path).expect("output");
    assert!(text.starts_with(&complete), "rewound output changed");
    assert_eq!(lines(&text).len(), 35);
}

#[test]
fn issue10_output_ahead_of_the_checkpoint_resumes_after_its_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &orders_run("10"));
    assert_eq!(out.status.code(), Some(0));
    let older = std::fs::read(dir.path().join("cp.json")).expect("checkpoint");
    let out = cdcctl(dir.path(), &orders_run("10"));
    assert_eq!(out.status.code(), Some(0));
    // A crash after the output was synced but before the checkpoint was.
    std::fs::write(dir.path().join("cp.json"), older).expect("restore");
    let out = cdcctl(dir.path(), &orders_run("5"));
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let got = lines(&text);
    assert_eq!(got.len(), 25);
    let mut keys: Vec<String> = got
        .iter()
        .map(|v| {
            format!(
                "{}/{}/{}",
                v["source"]["commit_scn"], v["source"]["txId"], v["transaction"]["total_order"]
            )
        })
        .collect();
    keys.dedup();
    assert_eq!(keys.len(), 25);
}

/// Kills `run` over `from..=until` of `scenario` `kills` times at
/// pseudo-random moments (every fifth a SIGTERM, every seventh a SIGINT,
/// the rest SIGKILL), then lets it finish, and checks the output against
/// the ground truth: nothing lost, nothing twice, no torn line, no
/// leftover temporary file. Returns how many runs were killed by SIGKILL.
fn crash_and_compare(scenario: &str, until: &str, kills: u32) -> u32 {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = format!("sim:{scenario}?clock=virtual");
    let base = [
        "--source",
        source.as_str(),
        "run",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--until-scn",
        until,
        "--status-every",
        "1h",
    ];
    let args = |fresh: bool| -> Vec<&str> {
        let mut a = base.to_vec();
        if fresh {
            // The scenario's first SCN: the ground truth starts there too.
            a.extend(["--from-scn", "13000000"]);
        }
        a
    };
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15 ^ u64::from(kills);
    let mut sigkills = 0;
    for i in 1..=kills {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay_ms = (seed >> 33) % 1200;
        let fresh = !dir.path().join("cp.json").exists();
        let mut child = spawn(dir.path(), &args(fresh));
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let sig = match i {
            _ if i % 5 == 0 => "TERM",
            _ if i % 7 == 0 => "INT",
            _ => "KILL",
        };
        if child.try_wait().expect("try_wait").is_none() {
            signal(&child, sig);
            if sig == "KILL" {
                sigkills += 1;
            }
        }
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Killed, stopped cleanly, or finished: never a refusal or failure.
        assert!(
            out.status.code().is_none() || out.status.code() == Some(0),
            "run {i} (SIG{sig} after {delay_ms} ms): {:?}: {stderr}",
            out.status
        );
    }
    let fresh = !dir.path().join("cp.json").exists();
    let out = cdcctl(dir.path(), &args(fresh));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    assert!(text.is_empty() || text.ends_with('\n'), "torn last line");
    let got: Vec<_> = lines(&text).into_iter().map(without_unavailable).collect();
    let truth = cdcctl(
        dir.path(),
        &["sim", "truth", "--scenario", scenario, "--until-scn", until],
    );
    let want: Vec<_> = lines(&String::from_utf8_lossy(&truth.stdout))
        .into_iter()
        .map(without_unavailable)
        .collect();
    let diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(diff, None, "first difference at event {diff:?}");
    assert_eq!(got.len(), want.len(), "events lost or written twice");
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    eprintln!(
        "{scenario}: {kills} interruptions, {sigkills} by SIGKILL, {} events equal to the truth",
        got.len()
    );
    sigkills
}

/// How many times the crash tests kill `run` (CDCCTL_CRASH_KILLS, default 24).
fn crash_kills() -> u32 {
    std::env::var("CDCCTL_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

#[test]
fn issue10_killed_at_random_moments_while_the_restart_scn_moves_output_equals_truth() {
    let kills = crash_and_compare("demo", "13034000", crash_kills());
    assert!(kills > 0);
}

#[test]
fn issue10_killed_at_random_moments_while_a_long_transaction_pins_the_restart_scn_output_equals_truth(
) {
    let kills = crash_and_compare("long-transaction", "13034000", crash_kills());
    assert!(kills > 0);
}

#[test]
fn issue10_simulator_resumes_where_the_checkpoint_left_it_without_crawling_from_boot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = cdcctl(dir.path(), &orders_run("2000"));
    assert_eq!(first.status.code(), Some(0));
    // Rebooted at its warm-up, the database would sit below the checkpoint
    // for dozens of idle windows; brought up where it was, only the re-read
    // from the restart SCN (the oldest open transaction) up to the
    // checkpoint's commit SCN passes before the new event. Each window is
    // one LogMiner session (started or reused), logged at -vv.
    let out = cdcctl(dir.path(), &[&["-vv"][..], &orders_run("1")[..]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let windows = stderr
        .lines()
        .filter(|l| l.contains("mining session"))
        .count();
    assert!((1..=3).contains(&windows), "{windows} windows: {stderr}");
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    assert_eq!(lines(&text).len(), 2001);
}

/// Rewrites fields of the checkpoint `cp.json` in `dir` as cdcctl would
/// have written them (a checkpoint of another database, not a hand edit:
/// its checksum matches).
fn edit_checkpoint(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("cp.json");
    let mut cp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("checkpoint")).expect("json");
    edit(&mut cp);
    let cp: cdcctl::engine::checkpoint::Checkpoint =
        serde_json::from_value(cp).expect("a checkpoint");
    std::fs::write(&path, cp.to_json()).expect("write checkpoint");
}

#[test]
fn issue10_checkpoints_that_cannot_be_right_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &orders_run("5"));
    assert_eq!(out.status.code(), Some(0));
    let good = std::fs::read(dir.path().join("cp.json")).expect("checkpoint");
    let refused = |args: &[&str], needle: &str| {
        let out = cdcctl(dir.path(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{needle}: {stderr}");
        assert!(stderr.contains(needle), "{stderr}");
        // A refused checkpoint is never announced as resumed first.
        assert!(!stderr.contains("resuming from"), "{stderr}");
        std::fs::write(dir.path().join("cp.json"), &good).expect("restore");
    };
    // Another database: a different scenario.
    let other = [
        "--source",
        "sim:long-transaction?clock=virtual",
        "run",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        "1",
    ];
    refused(
        &other,
        "it was written for sim:demo, the source is sim:long-transaction",
    );
    edit_checkpoint(dir.path(), |cp| {
        cp["restart_scn"] = 99_000_000_000u64.into();
        cp["commit_scn"] = 99_000_000_001u64.into();
    });
    refused(&orders_run("1"), "above the database's current SCN");
    edit_checkpoint(dir.path(), |cp| cp["restart_scn"] = 0.into());
    refused(&orders_run("1"), "its restart SCN is 0");
    edit_checkpoint(dir.path(), |cp| cp["db_name"] = "PRODDB".into());
    refused(&orders_run("1"), "written for database PRODDB");
    refused(
        &[&orders_run("1")[..], &["--until-scn", "13000001"]].concat(),
        "already past --until-scn 13000001",
    );
    refused(
        &[
            "--source",
            "sim:demo?clock=virtual",
            "tail",
            "APP.ORDERS",
            "--from-scn",
            "99000000000",
        ],
        "--from-scn 99000000000 is above the database's current SCN",
    );
    // The good checkpoint still resumes.
    let out = cdcctl(dir.path(), &orders_run("1"));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cdcctl run: resuming from cp.json"));
}

#[test]
fn issue10_malformed_source_strings_never_echo_the_password() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "Tiger9Secret";
    let specs = [
        format!("oracle://scott@db:1521/ORCL?password={secret}"),
        format!("oracle://scott@db:1521/ORCL/{secret}"),
        format!("oracle://scott@db:{secret}/ORCL"),
        format!("oracle://scott%3A{secret}@db:1521/ORCL"),
        format!("oracle://scott/{secret}@db:1521/ORCL"),
        format!("oracle://scott:{secret}@db:1521/ORCL"),
        format!("oracle://scott/{secret}"),
        format!("scott/{secret}@db:1521/ORCL"),
        format!("orcle://scott:{secret}@db/ORCL"),
    ];
    for spec in &specs {
        for command in [
            &["preflight"][..],
            &["run", "--count", "1"],
            &["tail", "APP.ORDERS"],
        ] {
            let out = cdcctl(
                dir.path(),
                &[&["--source", spec.as_str()][..], command].concat(),
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(2), "{spec} {command:?}: {stderr}");
            assert!(
                !stderr.contains(secret) && !stdout.contains(secret),
                "{spec} {command:?} echoed the password: {stderr}{stdout}"
            );
        }
    }
    for spec in [&specs[4], &specs[7]] {
        let out = cdcctl(dir.path(), &["--source", spec.as_str(), "preflight"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("SQL*Plus form"), "{stderr}");
        assert!(stderr.contains("CDCCTL_PASSWORD"), "{stderr}");
    }
}

#[test]
fn issue10_partial_before_image_finding_is_printed_without_a_table_list_too() {
    let finding = "APP.ORDERS: before image has no key columns";
    for tables in [&["APP.ORDERS"][..], &[]] {
        let dir = tempfile::tempdir().expect("tempdir");
        let args = [
            &[
                "--source",
                "sim:no-supplemental-logging?clock=virtual",
                "run",
            ][..],
            tables,
            &[
                "--output",
                "out.jsonl",
                "--checkpoint",
                "cp.json",
                "--count",
                "50",
            ],
        ]
        .concat();
        let out = cdcctl(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains(finding), "{tables:?}: {stderr}");
    }
}

#[test]
fn issue10_spill_directory_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A file where the directory should be: creating spill files fails.
    std::fs::write(dir.path().join("not-a-dir"), "x").expect("file");
    let out = cdcctl(
        dir.path(),
        &scenario_run(
            "sim:big-transaction?clock=virtual",
            &[
                "--count",
                "70000",
                "--spill-mb",
                "1",
                "--spill-dir",
                "not-a-dir",
            ],
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not-a-dir"), "{stderr}");
}

#[test]
fn issue10_connection_drop_before_the_first_call_is_retried() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/source/sim/scenarios/demo.toml"),
    )
    .expect("demo scenario");
    // The demo warms up for 600 s; the first call moves the clock to 601 s.
    let text = demo + "\n[[faults]]\nkind = \"connection_drop\"\nat_s = 601\n";
    std::fs::write(dir.path().join("drop.toml"), text).expect("write");
    let out = cdcctl(
        dir.path(),
        &scenario_run(
            "sim:drop.toml?clock=virtual",
            &["APP.ORDERS", "--count", "5"],
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("ORA-03113"), "{stderr}");
    assert!(stderr.contains("reconnecting (attempt 1)"), "{stderr}");
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    assert_eq!(lines(&text).len(), 5);
}

fn run_in_pdb(dir: &std::path::Path, pdb: &str) -> Output {
    let (from, until) = demo_window();
    cdcctl(
        dir,
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--pdb",
            pdb,
            "--from-scn",
            &from,
            "--until-scn",
            &until,
            "--output",
            "o.jsonl",
            "--checkpoint",
            "cp.json",
        ],
    )
}

#[test]
fn issue8_run_reads_a_pdb_table_from_the_root_with_pdb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run_in_pdb(dir.path(), "ORCLPDB1");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("o.jsonl")).expect("output");
    let got = lines(&text);
    assert!(!got.is_empty(), "no change of APP.ORDERS in the PDB");
    assert!(got.iter().all(|v| v["source"]["table"] == "ORDERS"));
}

#[test]
fn issue8_lowercase_pdb_is_read_as_the_v_pdbs_name() {
    let upper = tempfile::tempdir().expect("tempdir");
    let lower = tempfile::tempdir().expect("tempdir");
    let a = run_in_pdb(upper.path(), "ORCLPDB1");
    let b = run_in_pdb(lower.path(), "orclpdb1");
    assert_eq!(
        b.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&b.stderr)
    );
    assert_eq!(a.status.code(), Some(0));
    let read =
        |d: &tempfile::TempDir| std::fs::read_to_string(d.path().join("o.jsonl")).expect("output");
    let (a, b) = (read(&upper), read(&lower));
    assert!(!b.is_empty(), "--pdb orclpdb1 found no change");
    assert_eq!(a, b);
}

#[test]
fn issue8_unknown_pdb_exits_2_listing_the_open_pdbs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run_in_pdb(dir.path(), "NOSUCHPDB");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("NOSUCHPDB") && err.contains("open PDBs: ORCLPDB1"),
        "{err}"
    );
}

/// Writes the demo scenario with one edit and `extra` appended to `dir/file`.
fn demo_variant(dir: &std::path::Path, file: &str, edit: (&str, &str), extra: &str) {
    let demo = cdcctl::source::sim::BUILTINS
        .iter()
        .find(|b| b.name == "demo")
        .expect("demo scenario");
    assert!(demo.text.contains(edit.0), "demo has no `{}`", edit.0);
    let text = demo.text.replacen(edit.0, edit.1, 1) + extra;
    std::fs::write(dir.join(file), text).expect("scenario file");
}

#[test]
fn issue8_run_from_the_root_of_a_cdb_with_two_pdbs_asks_for_pdb() {
    let dir = tempfile::tempdir().expect("tempdir");
    demo_variant(
        dir.path(),
        "two.toml",
        (
            "pdbs = [\"ORCLPDB1\"]",
            "pdbs = [\"ORCLPDB1\", \"SALESPDB\"]",
        ),
        "",
    );
    let base = [
        "--source",
        "sim:two.toml?clock=virtual",
        "run",
        "APP.ORDERS",
    ];
    let out = cdcctl(dir.path(), &[&base[..], &["--count", "1"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pdb (ORCLPDB1, SALESPDB)"), "{err}");
    let out = cdcctl(
        dir.path(),
        &[&base[..], &["--pdb", "orclpdb1", "--count", "1"]].concat(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn issue8_run_mines_through_the_readable_member_when_one_is_invalid() {
    let dir = tempfile::tempdir().expect("tempdir");
    demo_variant(
        dir.path(),
        "invalid.toml",
        ("groups = 3\n", "groups = 3\nmembers = 2\n"),
        "\n[[faults]]\nkind = \"member_invalid\"\nat_s = 60\n",
    );
    let (from, until) = demo_window();
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:invalid.toml?clock=virtual",
            "run",
            "APP.ORDERS",
            "--from-scn",
            &from,
            "--until-scn",
            &until,
            "--output",
            "o.jsonl",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("o.jsonl")).expect("output");
    assert!(!lines(&text).is_empty());
}

#[test]
fn unlogged_lob_columns_are_the_unavailable_marker_in_update_and_delete_images() {
    // LogMiner logs a LOB apart from the row: the SQL_REDO of an update or
    // delete has no value for it. Leaving the field out would read as NULL
    // to a debezium-json consumer; the marker says "not known".
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.DOCS",
            "--snapshot",
            "never",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--count",
            "60",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let events = lines(&text);
    let mut checked = 0;
    for e in &events {
        let images: &[&str] = match e["op"].as_str() {
            Some("u") => &["before", "after"],
            Some("d") => &["before"],
            _ => continue,
        };
        for image in images {
            for col in ["BODY", "IMAGE"] {
                let v = &e[*image][col];
                assert!(
                    v == "__debezium_unavailable_value" || v.is_string(),
                    "{image}.{col} missing in {e}"
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked > 0,
        "no update or delete among {} events",
        events.len()
    );
}

/// `run` over the lobs scenario with these extra arguments: its events.
fn run_lobs(dir: &std::path::Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let base = [
        "--source",
        "sim:lobs?clock=virtual",
        "run",
        "APP.DOCS,APP.FEEDS",
        "--output",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        "120",
    ];
    let out = cdcctl(dir, &[&base[..], extra].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out.jsonl")).expect("output");
    lines(&text)
}

#[test]
fn issue9_run_lob_capture_gives_lob_xml_and_32k_values_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = run_lobs(dir.path(), &["--lob", "capture"]);
    let inserts: Vec<_> = events.iter().filter(|e| e["op"] == "c").collect();
    let value = |e: &serde_json::Value, col: &str| e["after"][col].as_str().map(str::to_string);
    assert!(inserts
        .iter()
        .any(|e| value(e, "BODY")
            .is_some_and(|b| !b.is_empty() && b != "__debezium_unavailable_value")));
    assert!(inserts
        .iter()
        .any(|e| value(e, "PAYLOAD").is_some_and(|x| x.starts_with("<doc"))));
    assert!(events
        .iter()
        .any(|e| value(e, "NOTES").is_some_and(|x| x.len() > 4000)));
    // The default: LOB and XML as the marker; extended strings still whole.
    let dir = tempfile::tempdir().expect("tempdir");
    let events = run_lobs(dir.path(), &[]);
    for e in events.iter().filter(|e| e["op"] == "c") {
        for col in ["BODY", "IMAGE", "PAYLOAD"] {
            let v = &e["after"][col];
            assert!(
                v.is_null()
                    || *v == "__debezium_unavailable_value"
                    || *v == "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="
                    || e["after"].get(col).is_none(),
                "{col} in {e}"
            );
        }
    }
    assert!(events
        .iter()
        .any(|e| value(e, "NOTES").is_some_and(|x| x.len() > 4000)));
}

#[test]
fn raw_columns_known_from_the_dictionary_are_bytes_without_a_finding() {
    // APP.ORDERS.TOKEN is RAW: the dictionary says so, so its HEXTORAW is
    // bytes (base64 in the envelope) and nothing needs reporting. Without a
    // dictionary (redo replay) the column is reported once, not per change.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(
        dir.path(),
        &[
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.ORDERS",
            "--output",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--count",
            "300",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let events = lines(&text);
    assert!(events.len() >= 300);
    assert!(!stderr.contains("LogMiner printed HEXTORAW"), "{stderr}");
    let tokens: Vec<&str> = events
        .iter()
        .filter_map(|e| e["after"]["TOKEN"].as_str())
        .collect();
    assert!(!tokens.is_empty());
    for t in tokens {
        let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, t);
        assert!(bytes.is_ok(), "TOKEN {t} is not base64");
    }

    let contents = dir.path().join("contents.csv");
    let csv = cdcctl(
        dir.path(),
        &[
            "sim",
            "contents",
            "--scenario",
            "demo",
            "--from-scn",
            "13000000",
            "--until-scn",
            "13001000",
        ],
    );
    assert_eq!(csv.status.code(), Some(0));
    std::fs::write(&contents, &csv.stdout).expect("contents written");
    let replay = cdcctl(
        dir.path(),
        &[
            "redo",
            "replay",
            "--csv",
            &contents.to_string_lossy(),
            "--skip-ddl",
        ],
    );
    let stderr = String::from_utf8_lossy(&replay.stderr);
    assert_eq!(replay.status.code(), Some(0), "{stderr}");
    let reported = stderr
        .lines()
        .filter(|l| l.contains("APP.ORDERS.TOKEN: LogMiner printed HEXTORAW"))
        .count();
    assert_eq!(reported, 1, "{stderr}");
}

fn event_keys(path: &Path) -> Vec<(u64, String, u64)> {
    lines(&std::fs::read_to_string(path).expect("output"))
        .iter()
        .map(|e| {
            (
                e["source"]["commit_scn"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .expect("commit scn"),
                e["source"]["txId"].as_str().expect("xid").to_string(),
                e["transaction"]["total_order"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn issue14_sighup_reopens_the_output_after_logrotate_moved_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let rotated = dir.path().join("out.jsonl.1");
    let mut child = spawn_daemon(dir.path());
    wait_for_lines(&out, 50);
    std::fs::rename(&out, &rotated).expect("rotate");
    signal(&child, "HUP");
    wait_for_lines(&out, 20);
    signal(&child, "TERM");
    let status = child.wait().expect("wait");
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut stderr).expect("stderr");
    }
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("SIGHUP: reopened out.jsonl"), "{stderr}");
    // The old file ends where the new one begins: the stream continues.
    let before = event_keys(&rotated);
    let after = event_keys(&out);
    assert!(!before.is_empty() && !after.is_empty());
    let all: Vec<_> = before.iter().chain(&after).collect();
    assert!(
        all.windows(2).all(|w| w[0].0 <= w[1].0),
        "commit order kept"
    );
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no event in both files");
    // The checkpoint that records the rotation resumes after the new
    // file's end.
    let mut child = spawn_daemon(dir.path());
    wait_for_lines(&out, after.len() + 1);
    signal(&child, "TERM");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    let next = event_keys(&out);
    assert_eq!(next[..after.len()], after[..]);
    assert!(
        next[after.len()] > after[after.len() - 1],
        "resumed after the last event"
    );
}

/// Debezium keeps schema changes off the tables' topics; a reader of the
/// file as a changelog must be able to do the same, and lose none.
#[test]
fn issue16_schema_changes_go_inline_nowhere_or_to_their_own_file() {
    let run_with = |extra: &[&str]| {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut args = vec![
            "--source",
            "sim:interval-partition-churn?clock=virtual",
            "run",
            "APP.%",
            "--snapshot",
            "never",
            "-o",
            "out.jsonl",
            "--until-scn",
            "13100000",
        ];
        args.extend_from_slice(extra);
        let out = cdcctl(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
        let is_ddl = |v: &serde_json::Value| v.get("op").is_none() && v.get("ddl").is_some();
        let output = lines(&read("out.jsonl"));
        let side = lines(&read("ddl.jsonl"));
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (
            output.iter().filter(|v| !is_ddl(v)).count(),
            output.iter().filter(|v| is_ddl(v)).count(),
            side.iter().filter(|v| is_ddl(v)).count(),
            side.len(),
            stderr,
        )
    };
    let (rows, ddl, _, _, _) = run_with(&[]);
    assert!(rows > 0 && ddl > 0, "the churn scenario has partition DDL");
    let (skip_rows, skip_ddl, _, _, err) = run_with(&["--schema-changes", "skip"]);
    assert_eq!((skip_rows, skip_ddl), (rows, 0));
    assert!(
        err.contains(&format!("{ddl} schema-change (DDL) events left out")),
        "{err}"
    );
    let (file_rows, file_ddl, side_ddl, side_all, _) = run_with(&["--schema-changes", "ddl.jsonl"]);
    assert_eq!((file_rows, file_ddl), (rows, 0));
    assert_eq!((side_ddl, side_all), (ddl, ddl), "only DDL, all of it");
}

#[test]
fn issue15_dm8_run_with_snapshot_never_streams_and_resumes_without_writing_twice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = [
        "--source",
        "sim:dm8?clock=virtual",
        "run",
        "APP.ORDERS",
        "-o",
        "out.jsonl",
        "--checkpoint",
        "cp.json",
        "--count",
        "40",
        "--snapshot",
        "never",
    ];
    let first = cdcctl(dir.path(), &base);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = cdcctl(dir.path(), &base);
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let events = lines(&text);
    assert_eq!(events.len(), 80);
    let mut seen = std::collections::HashSet::new();
    for e in &events {
        assert_eq!(e["source"]["connector"], "dm");
        assert_ne!(e["op"], "r", "no snapshot rows with --snapshot never");
        let at = (
            e["source"]["scn"].to_string(),
            e["source"]["txId"].to_string(),
            e["transaction"]["total_order"].to_string(),
        );
        assert!(seen.insert(at), "written twice across the restart: {e}");
    }
}

/// The `source` fields a Debezium consumer reads besides the position:
/// who ran the transaction, where and when it began, when it committed,
/// and every time also in µs and ns.
#[test]
fn every_change_names_its_transactions_user_start_and_commit_time_issue32() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &orders_run("60"));
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.path().join("out.jsonl")).expect("output");
    let events = lines(&text);
    assert_eq!(events.len(), 60);
    let int = |v: &serde_json::Value| v.as_i64().expect("a number");
    let scn = |v: &serde_json::Value| -> u64 {
        v.as_str()
            .and_then(|s| s.parse().ok())
            .expect("an SCN string")
    };
    for e in &events {
        let src = &e["source"];
        // The demo runs with supplemental logging, as user APP.
        assert_eq!(src["user_name"], "APP", "{e}");
        assert!(scn(&src["start_scn"]) <= scn(&src["scn"]), "{e}");
        assert!(int(&src["start_ts_ms"]) <= int(&src["ts_ms"]), "{e}");
        assert!(int(&src["ts_ms"]) <= int(&src["commit_ts_ms"]), "{e}");
        assert_eq!(src["commit_ts_ms"], e["ts_ms"]);
        for v in [src, e] {
            assert_eq!(int(&v["ts_us"]), int(&v["ts_ms"]) * 1_000);
            assert_eq!(int(&v["ts_ns"]), int(&v["ts_ms"]) * 1_000_000);
        }
        let tx = src["txId"].as_str().expect("txId");
        assert!(
            tx.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{tx}"
        );
        assert_eq!(e["transaction"]["id"], tx);
        let rs_id = src["rs_id"].as_str().expect("rs_id");
        assert_eq!(rs_id, rs_id.trim());
    }
}
