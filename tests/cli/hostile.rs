//! `cdcctl run` against what a hostile or careless operator does to its
//! files, signals and options: each case ends with a clear refusal (exit 2
//! or 4) or with nothing lost and nothing written twice, never with events
//! silently skipped or duplicated.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::run::{cdcctl, lines, signal, spawn};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");
const SIM: &str = "sim:demo?clock=virtual";

/// `run APP.ORDERS` on the virtual-clock demo into `output` with
/// `checkpoint`, streaming only, then `extra`.
fn orders<'a>(output: &'a str, checkpoint: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--source",
        SIM,
        "run",
        "APP.ORDERS",
        "--snapshot",
        "never",
        "--output",
        output,
        "--checkpoint",
        checkpoint,
    ];
    args.extend_from_slice(extra);
    args
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The events' positions (commit SCN, XID, order) in the output files, in
/// order.
fn positions(dir: &Path, files: &[&str]) -> Vec<(String, String, u64)> {
    files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            lines(&text)
        })
        .map(|v| {
            (
                v["source"]["commit_scn"].as_str().unwrap_or("").to_string(),
                v["source"]["txId"].as_str().unwrap_or("").to_string(),
                v["transaction"]["total_order"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn assert_no_duplicates(positions: &[(String, String, u64)]) {
    let mut seen = std::collections::BTreeSet::new();
    for p in positions {
        assert!(seen.insert(p.clone()), "written twice: {p:?}");
    }
}

/// Waits until `path` exists with some content.
fn wait_for_content(path: &Path) {
    let until = Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(path).map_or(true, |m| m.len() == 0) {
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn issue31_a_second_run_on_the_same_output_through_a_link_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("real.jsonl"), "").expect("output");
    std::os::unix::fs::symlink("real.jsonl", dir.path().join("link.jsonl")).expect("symlink");
    std::fs::hard_link(dir.path().join("real.jsonl"), dir.path().join("hard.jsonl"))
        .expect("hard link");
    let mut first = spawn(dir.path(), &orders("real.jsonl", "cpA.json", &[]));
    // Events written: the first run holds the output open, and locked.
    wait_for_content(&dir.path().join("real.jsonl"));
    for (output, cp) in [("link.jsonl", "cpB.json"), ("hard.jsonl", "cpC.json")] {
        let out = cdcctl(
            dir.path(),
            &orders(output, cp, &["--until-scn", "13034000"]),
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{output}: {err}");
        assert!(err.contains("in use by another cdcctl"), "{output}: {err}");
    }
    signal(&first, "TERM");
    let status = first.wait().expect("first run");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn issue31_signals_at_start_stop_cleanly_instead_of_killing_the_run() {
    for sig in ["HUP", "TERM"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = spawn(
            dir.path(),
            &orders("o.jsonl", "cp.json", &["--until-scn", "13034000"]),
        );
        // The lock file names the run as soon as it exists: what logrotate's
        // postrotate reads to send SIGHUP.
        wait_for_content(&dir.path().join("o.jsonl.lock"));
        signal(&child, sig);
        let status = child.wait().expect("run");
        assert_eq!(status.code(), Some(0), "SIG{sig} ended the run: {status}");
    }
}

#[test]
fn issue31_an_output_rotated_before_the_hangup_was_handled_continues_the_stream() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "500"]),
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    // logrotate moved the output away; the run it signalled was gone.
    std::fs::rename(dir.path().join("o.jsonl"), dir.path().join("o.jsonl.1")).expect("rotate");
    let out = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "300"]),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("o.jsonl.1"),
        "the rotated file is named: {err}"
    );
    let all = positions(dir.path(), &["o.jsonl.1", "o.jsonl"]);
    assert_eq!(all.len(), 800);
    assert_no_duplicates(&all);
}

#[test]
fn issue31_an_output_replaced_by_a_shorter_one_ending_later_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "3000"]),
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let text = std::fs::read_to_string(dir.path().join("o.jsonl")).expect("output");
    let all: Vec<&str> = text.lines().collect();
    // The first thousand events, then the last one: it ends where the
    // checkpoint does, with 1,999 events gone from the middle.
    let cut = format!("{}\n{}\n", all[..1000].join("\n"), all[2999]);
    std::fs::write(dir.path().join("o.jsonl"), cut).expect("cut");
    let out = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "10"]),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("o.jsonl"), "{err}");
}

#[test]
fn issue31_an_output_replaced_by_another_captures_file_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "1000"]),
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    // Another capture of the same database under another name: it ends
    // later than this checkpoint's last event.
    let other = cdcctl(
        dir.path(),
        &orders(
            "other.jsonl",
            "cp2.json",
            &["--count", "3000", "--server-name", "other"],
        ),
    );
    assert_eq!(other.status.code(), Some(0), "{}", stderr(&other));
    std::fs::copy(dir.path().join("other.jsonl"), dir.path().join("o.jsonl")).expect("copy");
    let out = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "10"]),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
}

#[test]
fn issue31_a_last_line_that_is_no_event_is_named_not_taken_for_an_empty_output() {
    for garbage in ["garbage", "{}"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = cdcctl(
            dir.path(),
            &orders("o.jsonl", "cp.json", &["--count", "300"]),
        );
        assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
        let path = dir.path().join("o.jsonl");
        let mut text = std::fs::read_to_string(&path).expect("output");
        text.push_str(garbage);
        text.push('\n');
        std::fs::write(&path, text).expect("append");
        for rewind in [&[][..], &["--rewind"][..]] {
            let args = [&["--count", "10"][..], rewind].concat();
            let out = cdcctl(dir.path(), &orders("o.jsonl", "cp.json", &args));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(4), "{garbage}: {err}");
            assert!(err.contains("last line"), "{garbage}: {err}");
            assert!(!err.contains("is empty"), "{garbage}: {err}");
        }
        let events = std::fs::read_to_string(&path)
            .expect("output")
            .lines()
            .count();
        assert_eq!(events, 301, "nothing written again after {garbage}");
    }
}

#[test]
fn issue31_a_fifo_as_checkpoint_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("cp.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut child = Command::new(BIN)
        .args(orders("o.jsonl", "cp.json", &["--count", "10"]))
        .current_dir(dir.path())
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("run blocked on a FIFO checkpoint");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().expect("output");
    let err = stderr(&out);
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn issue31_a_hand_edited_checkpoint_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "500"]),
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let path = dir.path().join("cp.json");
    let mut cp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("checkpoint")).expect("json");
    let commit = cp["commit_scn"].as_u64().expect("commit SCN");
    cp["commit_scn"] = (commit + 8000).into();
    std::fs::write(&path, serde_json::to_string_pretty(&cp).expect("json")).expect("edit");
    let out = cdcctl(
        dir.path(),
        &orders("o.jsonl", "cp.json", &["--count", "10"]),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("checksum"), "{err}");
}

#[test]
fn issue31_durations_below_their_floor_and_an_end_before_the_start_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    for extra in [
        &["--max-idle-pause", "0s"][..],
        &["--max-session-age", "0s"],
        &["--status-every", "0s"],
        &["--abandon-after", "0s"],
        &["--from-scn", "13000000", "--until-scn", "0"],
    ] {
        let out = cdcctl(dir.path(), &orders("o.jsonl", "cp.json", extra));
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(!dir.path().join("o.jsonl").exists(), "{extra:?} wrote");
    }
}

#[test]
fn issue31_config_errors_name_the_line_of_a_table_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (text, expected) in [
        (
            "source = \"sim\"\n\n[a.b]\nx = 1\n",
            "line 3: unknown key `a`",
        ),
        (
            "source = \"sim\"\n[count]\nx=1\n",
            "line 2: `count` takes a string, number or boolean",
        ),
    ] {
        std::fs::write(dir.path().join("c.toml"), text).expect("config");
        let out = cdcctl(dir.path(), &["run", "--config", "c.toml"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(expected), "{err}");
    }
}

#[test]
fn issue31_a_password_in_the_source_address_never_reaches_the_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = "oracle://cdc:S3cretPW!@127.0.0.1:1/ORCL";
    for args in [
        &["-v", "--source", spec, "run", "-o", "o.jsonl"][..],
        &["-vvv", "--log-format", "json", "--source", spec, "run"],
        &["-vvv", "--source", "dm://cdc:S3cretPW!@127.0.0.1:1", "run"],
    ] {
        let out = cdcctl(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(!stderr(&out).contains("S3cretPW"), "{}", stderr(&out));
    }
    let out = Command::new(BIN)
        .args(["-vv", "run", "-o", "o.jsonl"])
        .env("CDCCTL_SOURCE", spec)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("S3cretPW"), "{}", stderr(&out));
}
