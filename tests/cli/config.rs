//! `run --config FILE`: keys for flags, flags over keys, and the file's
//! errors (unknown keys with their line, passwords refused) as exit 2.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

fn cdcctl(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .output()
        .expect("run cdcctl")
}

const CONFIG: &str = r#"# the daemon's options
source = "sim:demo?clock=virtual"
output = "out.jsonl"
checkpoint = "cp.json"
from_scn = 13000000
until-scn = 13010000
tables = ["APP.ORDERS"]
status-every = "1h"
"#;

fn events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("out.jsonl"))
        .expect("output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn highest_commit_scn(events: &[serde_json::Value]) -> u64 {
    events
        .iter()
        .filter_map(|e| e["source"]["commit_scn"].as_str()?.parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn issue14_run_takes_its_options_from_the_config_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("cdcctl.toml"), CONFIG).expect("config");
    let out = cdcctl(dir.path(), &["run", "--config", "cdcctl.toml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = events(dir.path());
    assert!(!got.is_empty());
    assert!(got.iter().all(|e| e["source"]["table"] == "ORDERS"));
    assert!(highest_commit_scn(&got) <= 13_010_000);
    assert!(dir.path().join("cp.json").exists());
}

#[test]
fn issue14_flags_on_the_command_line_override_the_config_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("cdcctl.toml"), CONFIG).expect("config");
    let out = cdcctl(
        dir.path(),
        &[
            "run",
            "--config",
            "cdcctl.toml",
            "--until-scn",
            "13005000",
            "APP.ORDER_HIS",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = events(dir.path());
    assert!(!got.is_empty());
    assert!(got.iter().all(|e| e["source"]["table"] == "ORDER_HIS"));
    assert!(highest_commit_scn(&got) <= 13_005_000);
}

fn refused(extra: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("cdcctl.toml"), format!("{CONFIG}{extra}\n")).expect("config");
    let out = cdcctl(dir.path(), &["run", "--config", "cdcctl.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !dir.path().join("out.jsonl").exists(),
        "nothing is captured"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn issue14_unknown_config_keys_are_refused_naming_key_and_line() {
    let err = refused("spil-mb = 3");
    assert!(err.contains("line 9: unknown key `spil-mb`"), "{err}");
    assert!(err.contains("did you mean spill-mb"), "{err}");
}

#[test]
fn issue14_a_password_in_the_config_file_is_refused_naming_the_key() {
    let err = refused("password = \"tiger\"");
    assert!(err.contains("line 9: `password`"), "{err}");
    assert!(!err.contains("tiger"), "the password is not echoed: {err}");
    let dir = tempfile::tempdir().expect("tempdir");
    let text = CONFIG.replace("sim:demo?clock=virtual", "oracle://app:tiger@db:1521/ORCL");
    std::fs::write(dir.path().join("cdcctl.toml"), text).expect("config");
    let out = cdcctl(dir.path(), &["run", "--config", "cdcctl.toml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("line 2: `source` holds a password"), "{err}");
    assert!(!err.contains("tiger"), "{err}");
}

/// Each stderr line as a JSON object, failing on any line that is not one.
fn json_lines(stderr: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON object ({e}): {l}")))
        .collect()
}

#[test]
fn issue14_log_format_json_writes_every_stderr_line_as_one_object_from_flag_or_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("cdcctl.toml");
    std::fs::write(
        &file,
        "source = \"sim:demo?clock=virtual\"\nlog-format = \"json\"\n",
    )
    .expect("config");
    let out = cdcctl(
        dir.path(),
        &[
            "run",
            "--config",
            "cdcctl.toml",
            "APP.ORDERS",
            "--snapshot",
            "never",
            "-o",
            "out.jsonl",
            "--checkpoint",
            "cp.json",
            "--count",
            "50",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stderr);
    let status = lines
        .iter()
        .find(|l| l.get("mined_scn").is_some())
        .unwrap_or_else(|| panic!("no status line in {lines:?}"));
    assert_eq!(status["level"], "INFO");
    assert_eq!(status["command"], "run");
    assert!(status["events_written"].as_u64().is_some(), "{status}");
    assert!(status["timestamp"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));

    // A refusal is one ERROR object; the flag works without the file.
    let out = cdcctl(
        dir.path(),
        &[
            "--log-format",
            "json",
            "--source",
            "sim:demo?clock=virtual",
            "run",
            "APP.NOPE",
            "-o",
            "nope.jsonl",
            "--checkpoint",
            "cp2.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let lines = json_lines(&out.stderr);
    let last = lines.last().expect("a line");
    assert_eq!(last["level"], "ERROR", "{lines:?}");
    assert!(
        last["message"]
            .as_str()
            .is_some_and(|m| m.contains("APP.NOPE")),
        "{last}"
    );
}

/// Issue 36: run's config errors read `error: config ...: ... (os error 2)`
/// while run's other messages read `cdcctl run: ...`.
#[test]
fn run_config_errors_carry_the_command_prefix_and_no_errno_issue36() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cdcctl(dir.path(), &["run", "--config", "missing.toml"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("cdcctl run: config missing.toml: "),
        "{err}"
    );
    assert!(err.contains("No such file or directory"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    std::fs::write(dir.path().join("bad.toml"), "bogus = 1\n").expect("write");
    let out = cdcctl(dir.path(), &["run", "--config", "bad.toml"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.starts_with("cdcctl run: config bad.toml: line 1"),
        "{err}"
    );
}
